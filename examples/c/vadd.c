/* Vector add through the wavejit C library: load a code object, launch `vadd`, read back.
 *
 *   cargo build --release
 *   gcc -std=c11 -Iinclude examples/c/vadd.c -Ltarget/release -lwavejit \
 *       -Wl,-rpath,$PWD/target/release -o vadd
 *   ./vadd tests/kernels/gfx1100/vadd.hsaco
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wavejit.h"

#define N 4096

/* Prints the failing call and the library's message, then exits. */
static void check(int32_t status, const char *what) {
  if (status != WJ_OK) {
    fprintf(stderr, "%s failed (%d): %s\n", what, status, wj_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s vadd.hsaco\n", argv[0]);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *elf = malloc((size_t)size);
  if (fread(elf, 1, (size_t)size, f) != (size_t)size) return 1;
  fclose(f);

  wj_device *dev;
  wj_module *mod;
  wj_kernel *vadd;
  check(wj_device_create(&dev), "wj_device_create");
  check(wj_module_load(dev, elf, (uint64_t)size, &mod), "wj_module_load");
  free(elf);
  check(wj_kernel_create(mod, "vadd", &vadd), "wj_kernel_create");

  static float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
  }
  wj_buffer da, db, dc;
  check(wj_buffer_alloc(dev, sizeof a, &da), "alloc a");
  check(wj_buffer_alloc(dev, sizeof b, &db), "alloc b");
  check(wj_buffer_alloc(dev, sizeof c, &dc), "alloc c");
  check(wj_buffer_write(dev, da, 0, a, sizeof a), "write a");
  check(wj_buffer_write(dev, db, 0, b, sizeof b), "write b");

  wj_arg args[4] = {
      {.kind = WJ_ARG_BUFFER, .value.u64 = da.addr},
      {.kind = WJ_ARG_BUFFER, .value.u64 = db.addr},
      {.kind = WJ_ARG_BUFFER, .value.u64 = dc.addr},
      {.kind = WJ_ARG_I32, .value.i32 = N},
  };
  wj_launch_desc launch = {
      .grid = {N / 256, 1, 1},
      .block = {256, 1, 1},
      .args = args,
      .arg_count = 4,
  };
  wj_report report;
  int32_t st = wj_launch(dev, vadd, &launch, &report);
  if (st == WJ_ERR_FAULT) {
    wj_fault fault;
    wj_last_fault(&fault);
    fprintf(stderr, "fault in workgroup %u wave %u lane %d at pc %#llx: %s: %s\n",
            fault.workgroup[0], fault.wave, fault.lane, (unsigned long long)fault.pc,
            fault.instruction, fault.cause);
    return 1;
  }
  check(st, "wj_launch");
  check(wj_buffer_read(dev, dc, 0, c, sizeof c), "read c");

  int bad = 0;
  for (int i = 0; i < N; i++) bad += c[i] != a[i] + b[i];
  printf("vadd: %d results %s; %llu waves, %llu wave instructions (%llu VALU)\n", N - bad,
         bad ? "correct, some WRONG" : "correct", (unsigned long long)report.waves,
         (unsigned long long)report.wave_insts, (unsigned long long)report.valu);

  wj_kernel_destroy(vadd);
  wj_module_destroy(mod);
  wj_device_destroy(dev);
  return bad != 0;
}
