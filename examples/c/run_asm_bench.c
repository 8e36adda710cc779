/* Times run_asm the way a mock-GPU harness calls it (scripts/capi_bench.sh drives it).
 *
 *   run_asm_bench empty N          N dispatches of `s_endpgm` (1 workgroup of 32): µs each
 *   run_asm_bench loop FILE G REPS raw gfx1100 code in FILE, G workgroups of 32, REPS runs:
 *                                  wave instructions per second (counted by wj_dispatch's
 *                                  report for the same code and grid)
 * Both run on one host thread (wj_set_threads(1)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavejit.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check(int32_t st, const char *what) {
  if (st != WJ_OK) {
    fprintf(stderr, "%s failed (%d): %s\n", what, st, wj_last_error());
    exit(1);
  }
}

int main(int argc, char **argv) {
  wj_set_threads(1);
  uint64_t kernarg[4] = {0};
  if (argc == 3 && !strcmp(argv[1], "empty")) {
    long n = atol(argv[2]);
    uint32_t endpgm = 0xBFB00000u; /* gfx1100 s_endpgm */
    check(run_asm((const char *)&endpgm, 4, 1, 1, 1, 32, 1, 1, kernarg), "warm-up");
    double t0 = now_s();
    for (long i = 0; i < n; i++)
      check(run_asm((const char *)&endpgm, 4, 1, 1, 1, 32, 1, 1, kernarg), "run_asm");
    double t = now_s() - t0;
    printf("empty kernel: %ld dispatches, %.2f us per run_asm\n", n, 1e6 * t / (double)n);
    return 0;
  }
  if (argc == 5 && !strcmp(argv[1], "loop")) {
    FILE *f = fopen(argv[2], "rb");
    if (!f) {
      perror(argv[2]);
      return 1;
    }
    static unsigned char code[1 << 16];
    size_t size = fread(code, 1, sizeof code, f);
    fclose(f);
    uint32_t groups = (uint32_t)atoi(argv[3]);
    int reps = atoi(argv[4]);
    wj_report rep;
    wj_dispatch_desc d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.arch = "gfx1100";
    d.code = code;
    d.code_size = size;
    d.grid[0] = groups;
    d.block[0] = 32;
    d.rsrc2 = 15u << 1 | 1u << 7; /* run_asm's 1-D layout */
    d.kernarg = (uint64_t)(uintptr_t)kernarg;
    d.threads = 1;
    d.report = &rep;
    check(wj_dispatch(&d), "wj_dispatch (warm-up and count)");
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      double t0 = now_s();
      check(run_asm((const char *)code, (uint32_t)size, groups, 1, 1, 32, 1, 1, kernarg),
            "run_asm");
      double t = now_s() - t0;
      if (t < best) best = t;
    }
    printf("loop: %llu wave instructions in %.4f s (best of %d): %.1f M wave-instr/s\n",
           (unsigned long long)rep.wave_insts, best, reps, 1e-6 * (double)rep.wave_insts / best);
    return 0;
  }
  fprintf(stderr, "usage: %s empty N | loop FILE GROUPS REPS\n", argv[0]);
  return 2;
}
