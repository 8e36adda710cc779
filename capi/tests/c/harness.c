/* Mock-GPU dispatches through libwavejit, as a harness without a GPU makes them: code bytes
 * at an arbitrary host address, kernarg and buffers in host memory, the dispatch registers
 * forwarded. Built and run by capi/tests/c_harness.rs, which generates cases.h from the
 * corpus code objects. Prints "ok ..." per check; exits 1 at the first failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavejit.h"

typedef struct {
  const char *arch;
  const char *kernel; /* "vadd" (a, b, c, n) or "saxpy" (alpha, x, y, n) */
  const unsigned char *code;
  uint32_t code_size;
  uint32_t rsrc1, rsrc2, rsrc3;
  uint32_t wave_size;
  const unsigned char *kernarg;
  uint32_t kernarg_size;
  uint32_t ptr_off[3]; /* kernarg offsets of the pointer arguments, in order */
} wjt_case;

#include "cases.h"

#define NCASES (sizeof(CASES) / sizeof(CASES[0]))
#define SLACK 64u /* past-the-end floats, poisoned, that no kernel may write */
#define ALPHA 1.5f

static int failures = 0;

#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                           \
      printf(__VA_ARGS__);                                                                  \
      printf(" (last error: %s)\n", wj_last_error());                                      \
      exit(1);                                                                              \
    }                                                                                       \
  } while (0)

/* Host buffers and a kernarg segment for one dispatch. */
typedef struct {
  float *in0, *in1, *out; /* vadd: a, b, c; saxpy: x, y (in1 = out = y) */
  unsigned char *kernarg;
  float *expect;
  uint32_t kernarg_size;
} bufs;

static uint32_t poison_bits(void) { return 0xA5A5A5A5u; }

static bufs make_bufs(const wjt_case *c, uint32_t seed) {
  bufs b;
  size_t n = WJT_N + SLACK;
  b.in0 = malloc(n * sizeof(float));
  b.in1 = malloc(n * sizeof(float));
  b.expect = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; i++) {
    b.in0[i] = (float)i * 0.25f + (float)seed;
    b.in1[i] = 100.0f - (float)i;
  }
  int saxpy = strcmp(c->kernel, "saxpy") == 0;
  if (saxpy) {
    b.out = b.in1;
  } else {
    b.out = malloc(n * sizeof(float));
    uint32_t p = poison_bits();
    for (size_t i = 0; i < n; i++) memcpy(&b.out[i], &p, 4);
  }
  for (size_t i = 0; i < n; i++) {
    if (i >= WJT_N) {
      memcpy(&b.expect[i], &b.out[i], 4);
    } else if (saxpy) {
      b.expect[i] = ALPHA * b.in0[i] + b.in1[i]; /* fma on the GPU: checked with tolerance */
    } else {
      b.expect[i] = b.in0[i] + b.in1[i];
    }
  }
  b.kernarg_size = c->kernarg_size;
  b.kernarg = calloc(1, c->kernarg_size + 64);
  memcpy(b.kernarg, c->kernarg, c->kernarg_size);
  uint64_t ptrs[3];
  if (saxpy) {
    ptrs[0] = (uint64_t)(uintptr_t)b.in0;
    ptrs[1] = (uint64_t)(uintptr_t)b.in1;
  } else {
    ptrs[0] = (uint64_t)(uintptr_t)b.in0;
    ptrs[1] = (uint64_t)(uintptr_t)b.in1;
    ptrs[2] = (uint64_t)(uintptr_t)b.out;
  }
  for (int i = 0; i < (saxpy ? 2 : 3); i++) memcpy(b.kernarg + c->ptr_off[i], &ptrs[i], 8);
  return b;
}

static void register_bufs(const bufs *b, int saxpy) {
  size_t n = (WJT_N + SLACK) * sizeof(float);
  CHECK(wj_register_memory(b->in0, n) == WJ_OK, "register in0");
  CHECK(wj_register_memory(b->in1, n) == WJ_OK, "register in1");
  if (!saxpy) CHECK(wj_register_memory(b->out, n) == WJ_OK, "register out");
  CHECK(wj_register_memory(b->kernarg, b->kernarg_size + 64) == WJ_OK, "register kernarg");
}

static void unregister_bufs(const bufs *b, int saxpy) {
  CHECK(wj_unregister_memory(b->in0) == WJ_OK, "unregister in0");
  CHECK(wj_unregister_memory(b->in1) == WJ_OK, "unregister in1");
  if (!saxpy) CHECK(wj_unregister_memory(b->out) == WJ_OK, "unregister out");
  CHECK(wj_unregister_memory(b->kernarg) == WJ_OK, "unregister kernarg");
}

static void check_bufs(const bufs *b, const char *what) {
  for (uint32_t i = 0; i < WJT_N + SLACK; i++) {
    float got = b->out[i], want = b->expect[i];
    float d = got > want ? got - want : want - got;
    float tol = (i < WJT_N) ? 1e-5f * (want < 0 ? -want : want) + 1e-6f : 0.0f;
    CHECK(memcmp(&got, &want, 4) == 0 || d <= tol, "%s: item %u = %g, expected %g", what, i,
          (double)got, (double)want);
  }
}

static void free_bufs(bufs *b, int saxpy) {
  free(b->in0);
  free(b->in1);
  if (!saxpy) free(b->out);
  free(b->kernarg);
  free(b->expect);
}

/* A copy of `c`'s code at a deliberately odd (but 4-byte aligned) heap address. */
static unsigned char *place_code(const wjt_case *c, unsigned char **block, size_t shift) {
  *block = malloc(c->code_size + 4096);
  unsigned char *p = *block + 4 * shift;
  memcpy(p, c->code, c->code_size);
  return p;
}

static uint32_t grid_x(void) { return (WJT_N + WJT_BLOCK - 1) / WJT_BLOCK; }

static int32_t run2(const wjt_case *c, const unsigned char *code, const bufs *b) {
  uint64_t ka = (uint64_t)(uintptr_t)b->kernarg;
  uint32_t user[2] = {(uint32_t)ka, (uint32_t)(ka >> 32)};
  return wj_run_asm2((const char *)code, c->code_size, grid_x(), 1, 1, WJT_BLOCK, 1, 1,
                     (const uint64_t *)b->kernarg, c->rsrc2, 0, c->arch, user, 2);
}

static const wjt_case *find_case(const char *arch, const char *kernel) {
  for (size_t i = 0; i < NCASES; i++)
    if (!strcmp(CASES[i].arch, arch) && !strcmp(CASES[i].kernel, kernel)) return &CASES[i];
  printf("FAIL: no case %s %s\n", arch, kernel);
  exit(1);
}

int main(void) {
  CHECK((wj_version() >> 16) == (WJ_API_VERSION >> 16), "header/library version mismatch");
  wj_set_threads(2);

  /* 1. Every corpus case through wj_run_asm2 with registered (strictly checked) memory. */
  for (size_t i = 0; i < NCASES; i++) {
    const wjt_case *c = &CASES[i];
    int saxpy = strcmp(c->kernel, "saxpy") == 0;
    bufs b = make_bufs(c, (uint32_t)i);
    register_bufs(&b, saxpy);
    unsigned char *block;
    unsigned char *code = place_code(c, &block, 3 + i);
    int32_t r = run2(c, code, &b);
    CHECK(r == WJ_OK, "wj_run_asm2 %s %s returned %d", c->arch, c->kernel, r);
    check_bufs(&b, c->kernel);
    unregister_bufs(&b, saxpy);
    printf("ok wj_run_asm2 %s %s\n", c->arch, c->kernel);
    free(block);
    free_bufs(&b, saxpy);
  }

  /* 2. remu's run_asm: gfx1100 code as clang lays out its SGPRs (USER_SGPR_COUNT 15, so
   * the workgroup id is in s15 as in run_asm's 1-D convention). Nothing registered: the
   * process device accepts any writable host memory (WJ_HOST_CHECK_AUTO). */
  {
    const wjt_case *c = find_case("gfx1100", "vadd");
    bufs b = make_bufs(c, 7);
    unsigned char *block;
    unsigned char *code = place_code(c, &block, 1);
    int32_t r = run_asm((const char *)code, c->code_size, grid_x(), 1, 1, WJT_BLOCK, 1, 1,
                        (const uint64_t *)b.kernarg);
    CHECK(r == 0, "run_asm returned %d", r);
    check_bufs(&b, "run_asm vadd");
    printf("ok run_asm gfx1100 vadd\n");
    free(block);
    free_bufs(&b, 0);
  }

  /* 3. wj_dispatch with everything the packet knows (rsrc1/rsrc3: MODE, AGPR split). */
  {
    const wjt_case *c = find_case("gfx942", "saxpy");
    bufs b = make_bufs(c, 3);
    register_bufs(&b, 1);
    unsigned char *block;
    unsigned char *code = place_code(c, &block, 5);
    uint64_t ka = (uint64_t)(uintptr_t)b.kernarg;
    uint32_t user[2] = {(uint32_t)ka, (uint32_t)(ka >> 32)};
    wj_report rep;
    memset(&rep, 0, sizeof rep);
    wj_dispatch_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.arch = "gfx942";
    d.code = code;
    d.code_size = c->code_size;
    d.grid[0] = grid_x();
    d.block[0] = WJT_BLOCK;
    d.rsrc1 = c->rsrc1;
    d.rsrc2 = c->rsrc2;
    d.rsrc3 = c->rsrc3;
    d.user_data = user;
    d.user_data_count = 2;
    d.engine = WJ_ENGINE_INTERP;
    d.report = &rep;
    int32_t r = wj_dispatch(&d);
    CHECK(r == WJ_OK, "wj_dispatch returned %d", r);
    check_bufs(&b, "wj_dispatch saxpy");
    CHECK(rep.workgroups == grid_x() && rep.waves == grid_x(), "report geometry %llu %llu",
          (unsigned long long)rep.workgroups, (unsigned long long)rep.waves);
    CHECK(rep.valu > 0 && rep.vmem >= 3 * grid_x() && rep.wave_insts > rep.valu,
          "report counters valu %llu vmem %llu", (unsigned long long)rep.valu,
          (unsigned long long)rep.vmem);
    unregister_bufs(&b, 1);
    printf("ok wj_dispatch gfx942 saxpy\n");
    free(block);
    free_bufs(&b, 1);
  }

  /* 4. Undefined code: an error, and the process lives on. */
  {
    uint32_t words[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    uint64_t args[2] = {0, 0};
    int32_t r = run_asm((const char *)words, sizeof words, 1, 1, 1, 32, 1, 1, args);
    CHECK(r == WJ_ERR_FAULT, "undefined code returned %d", r);
    CHECK(strlen(wj_last_error()) > 0, "no error text");
    wj_fault f;
    CHECK(wj_last_fault(&f) == WJ_OK, "no fault record");
    CHECK(f.pc == 0 && f.workgroup[0] == 0 && f.wave == 0 && !strcmp(f.kernel, "run_asm") &&
              strstr(f.instruction, "FFFFFFFF") != NULL,
          "fault record: %s pc %llu: %s", f.kernel, (unsigned long long)f.pc, f.instruction);
    printf("ok undefined code (%s)\n", wj_last_error());
  }

  /* 5. The same bytes at two addresses. */
  {
    const wjt_case *c = find_case("gfx1100", "vadd");
    unsigned char *b1, *b2;
    unsigned char *c1 = place_code(c, &b1, 0), *c2 = place_code(c, &b2, 9);
    for (int k = 0; k < 2; k++) {
      bufs b = make_bufs(c, 11 + (uint32_t)k);
      register_bufs(&b, 0);
      CHECK(run2(c, k ? c2 : c1, &b) == WJ_OK, "copy %d", k);
      check_bufs(&b, "same bytes");
      unregister_bufs(&b, 0);
      free_bufs(&b, 0);
    }
    printf("ok same bytes at two addresses\n");
    free(b1);
    free(b2);
  }

  /* 6. Two different kernels at one address, one after the other. */
  {
    const wjt_case *cv = find_case("gfx1100", "vadd"), *cs = find_case("gfx1100", "saxpy");
    size_t size = cv->code_size > cs->code_size ? cv->code_size : cs->code_size;
    unsigned char *code = malloc(size);
    for (int k = 0; k < 2; k++) {
      const wjt_case *c = k ? cs : cv;
      memset(code, 0, size);
      memcpy(code, c->code, c->code_size);
      bufs b = make_bufs(c, 21 + (uint32_t)k);
      register_bufs(&b, k);
      CHECK(run2(c, code, &b) == WJ_OK, "kernel %s at the shared address", c->kernel);
      check_bufs(&b, c->kernel);
      unregister_bufs(&b, k);
      free_bufs(&b, k);
    }
    printf("ok two kernels at one address\n");
    free(code);
  }

  /* 7. A wild pointer: the output points at host memory nobody registered. The dispatch
   * faults and that memory is untouched. */
  {
    const wjt_case *c = find_case("gfx1201", "vadd");
    bufs b = make_bufs(c, 5);
    register_bufs(&b, 0);
    float *stray = malloc((WJT_N + SLACK) * sizeof(float));
    uint32_t p = poison_bits();
    for (uint32_t i = 0; i < WJT_N + SLACK; i++) memcpy(&stray[i], &p, 4);
    uint64_t sp = (uint64_t)(uintptr_t)stray;
    memcpy(b.kernarg + c->ptr_off[2], &sp, 8);
    unsigned char *block;
    unsigned char *code = place_code(c, &block, 2);
    int32_t r = run2(c, code, &b);
    CHECK(r == WJ_ERR_FAULT, "wild pointer returned %d", r);
    wj_fault f;
    CHECK(wj_last_fault(&f) == WJ_OK, "no fault record");
    CHECK(f.lane >= 0 && f.lane < 32 && strstr(f.instruction, "store") != NULL &&
              strstr(f.cause, "out-of-range") != NULL,
          "fault record: lane %d at %llu: %s: %s", f.lane, (unsigned long long)f.pc,
          f.instruction, f.cause);
    for (uint32_t i = 0; i < WJT_N + SLACK; i++)
      CHECK(memcmp(&stray[i], &p, 4) == 0, "unregistered memory written at %u", i);
    printf("ok wild pointer (registered): %s\n", wj_last_error());
    unregister_bufs(&b, 0);
    free(stray);
    free(block);
    free_bufs(&b, 0);
  }

  /* 8. Nothing registered (WJ_HOST_CHECK_AUTO accepts writable mappings): an unmapped
   * address is still a fault, not a segfault. */
  {
    const wjt_case *c = find_case("gfx950", "vadd");
    bufs b = make_bufs(c, 6);
    uint64_t wild = 0x40;
    memcpy(b.kernarg + c->ptr_off[0], &wild, 8);
    unsigned char *block;
    unsigned char *code = place_code(c, &block, 4);
    int32_t r = run2(c, code, &b);
    CHECK(r == WJ_ERR_FAULT, "unmapped pointer returned %d", r);
    printf("ok wild pointer (unmapped): %s\n", wj_last_error());
    free(block);
    free_bufs(&b, 0);
  }

  /* 9. Bad arguments are errors. */
  {
    uint64_t args[2] = {0, 0};
    uint32_t endpgm = 0xBFB00000u;
    CHECK(run_asm(NULL, 4, 1, 1, 1, 32, 1, 1, args) == WJ_ERR_INVALID_ARGUMENT, "null lib");
    CHECK(run_asm((const char *)&endpgm, 0, 1, 1, 1, 32, 1, 1, args) == WJ_ERR_INVALID_ARGUMENT,
          "zero size");
    CHECK(run_asm((const char *)&endpgm, 4, 0, 1, 1, 32, 1, 1, args) == WJ_ERR_USAGE,
          "empty grid");
    CHECK(run_asm((const char *)&endpgm, 4, 1, 1, 1, 2048, 1, 1, args) == WJ_ERR_USAGE,
          "huge block");
    CHECK(run_asm((const char *)&endpgm, 4, 1, 1, 1, 32, 1, 1, args) == WJ_OK, "s_endpgm");
    CHECK(wj_run_asm2((const char *)&endpgm, 4, 1, 1, 1, 32, 1, 1, args, 0, 0, "gfx90a", NULL,
                      0) == WJ_ERR_USAGE,
          "unknown arch");
    CHECK(wj_run_asm2((const char *)&endpgm, 4, 1, 1, 1, 32, 1, 1, args, 0, 0, NULL, NULL, 0) ==
              WJ_ERR_INVALID_ARGUMENT,
          "null arch");
    CHECK(wj_dispatch(NULL) == WJ_ERR_INVALID_ARGUMENT, "null desc");
    CHECK(wj_register_memory(NULL, 16) == WJ_ERR_USAGE, "register null");
    CHECK(wj_unregister_memory(args) == WJ_ERR_USAGE, "unregister unknown");
    CHECK(wj_last_fault(NULL) == WJ_ERR_INVALID_ARGUMENT, "null fault");
    printf("ok bad arguments\n");
  }

  /* 10. The object API: device, module from bytes, kernel by name, buffers, typed and raw
   * kernarg launches, the report. */
  {
    FILE *fp = fopen(WJT_HSACO_GFX1100, "rb");
    CHECK(fp != NULL, "open %s", WJT_HSACO_GFX1100);
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *elf = malloc((size_t)size);
    CHECK(fread(elf, 1, (size_t)size, fp) == (size_t)size, "read");
    fclose(fp);
    wj_device *dev = NULL;
    wj_module *m = NULL;
    wj_kernel *k = NULL;
    CHECK(wj_device_create(&dev) == WJ_OK, "device");
    CHECK(wj_module_load(dev, elf, 100, &m) == WJ_ERR_LOAD, "truncated object loads");
    CHECK(wj_module_load(dev, elf, (uint64_t)size, &m) == WJ_OK, "module");
    free(elf);
    uint32_t count = 0;
    const char *name = NULL;
    CHECK(wj_module_kernel_count(m, &count) == WJ_OK && count == 2, "kernel count");
    CHECK(wj_module_kernel_name(m, 1, &name) == WJ_OK && !strcmp(name, "saxpy"), "name");
    CHECK(wj_kernel_create(m, "vsub", &k) == WJ_ERR_USAGE, "unknown kernel");
    CHECK(strstr(wj_last_error(), "vadd") != NULL, "error lists the kernels");
    CHECK(wj_kernel_create(m, "vadd", &k) == WJ_OK, "kernel");
    wj_module_destroy(m); /* the kernel keeps what it needs */
    const wjt_case *c = find_case("gfx1100", "vadd");
    bufs h = make_bufs(c, 9);
    size_t bytes = (WJT_N + SLACK) * sizeof(float);
    wj_buffer a, b, o;
    CHECK(wj_buffer_alloc(dev, bytes, &a) == WJ_OK && wj_buffer_alloc(dev, bytes, &b) == WJ_OK &&
              wj_buffer_alloc(dev, bytes, &o) == WJ_OK,
          "alloc");
    CHECK(wj_buffer_write(dev, a, 0, h.in0, bytes) == WJ_OK, "write a");
    CHECK(wj_buffer_write(dev, b, 0, h.in1, bytes) == WJ_OK, "write b");
    CHECK(wj_buffer_write(dev, o, 0, h.out, bytes) == WJ_OK, "write c");
    CHECK(wj_buffer_write(dev, o, bytes, h.out, 1) == WJ_ERR_INVALID_ARGUMENT, "past the end");
    wj_arg args[4];
    memset(args, 0, sizeof args);
    args[0].kind = WJ_ARG_BUFFER;
    args[0].value.u64 = a.addr;
    args[1].kind = WJ_ARG_BUFFER;
    args[1].value.u64 = b.addr;
    args[2].kind = WJ_ARG_BUFFER;
    args[2].value.u64 = o.addr;
    args[3].kind = WJ_ARG_I32;
    args[3].value.i32 = (int32_t)WJT_N;
    wj_launch_desc l;
    memset(&l, 0, sizeof l);
    l.grid[0] = grid_x();
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = WJT_BLOCK;
    l.block[1] = l.block[2] = 1;
    l.args = args;
    l.arg_count = 3;
    wj_report rep;
    CHECK(wj_launch(dev, k, &l, &rep) == WJ_ERR_USAGE, "three arguments for four");
    l.arg_count = 4;
    CHECK(wj_launch(dev, k, &l, &rep) == WJ_OK, "launch");
    CHECK(rep.waves == grid_x() * (WJT_BLOCK / 32), "waves %llu", (unsigned long long)rep.waves);
    CHECK(wj_buffer_read(dev, o, 0, h.out, bytes) == WJ_OK, "read");
    check_bufs(&h, "object api vadd");
    /* The same through raw kernarg bytes: a, b, c, n at offsets 0, 8, 16, 24. */
    unsigned char ka[28];
    memcpy(ka, &a.addr, 8);
    memcpy(ka + 8, &b.addr, 8);
    memcpy(ka + 16, &a.addr, 8); /* c = a: a[i] becomes a[i] + b[i] */
    int32_t n = (int32_t)WJT_N;
    memcpy(ka + 24, &n, 4);
    l.args = NULL;
    l.arg_count = 0;
    l.kernarg = ka;
    l.kernarg_size = sizeof ka;
    l.engine = WJ_ENGINE_INTERP;
    CHECK(wj_launch(dev, k, &l, NULL) == WJ_OK, "raw kernarg launch");
    float *got = malloc(bytes);
    CHECK(wj_buffer_read(dev, a, 0, got, bytes) == WJ_OK, "read a");
    for (uint32_t i = 0; i < WJT_N; i++)
      CHECK(got[i] == h.in0[i] + h.in1[i], "raw kernarg item %u", i);
    /* A fault in a device launch: n past the buffers. */
    n = (int32_t)(4 * WJT_N);
    memcpy(ka + 24, &n, 4);
    l.grid[0] = 4 * grid_x();
    CHECK(wj_launch(dev, k, &l, NULL) == WJ_ERR_FAULT, "out of range launch");
    wj_fault f;
    CHECK(wj_last_fault(&f) == WJ_OK, "fault record");
    CHECK(f.lane >= 0 && !strcmp(f.kernel, "vadd"), "device fault record %s lane %d", f.kernel,
          f.lane);
    CHECK(wj_buffer_free(dev, a) == WJ_OK && wj_buffer_free(dev, b) == WJ_OK &&
              wj_buffer_free(dev, o) == WJ_OK,
          "free");
    CHECK(wj_buffer_free(dev, a) == WJ_ERR_USAGE, "double free");
    CHECK(wj_launch(NULL, k, &l, NULL) == WJ_ERR_INVALID_ARGUMENT, "null device");
    wj_kernel_destroy(k);
    wj_device_destroy(dev);
    free(got);
    free_bufs(&h, 0);
    printf("ok object api\n");
  }
  return failures;
}
