// ALU-bound benchmark: 4 independent f32 FMA chains per lane (used by `wavejit bench`, whose
// host reference in workloads/src/bench.rs computes exactly this).
#include "common.h"

// x = i * 2^-10; chains start at x, x + 0.25, x + 0.5, x + 0.75; each step
// c_k = fma(c_k, 1 - 2^-10, k_th constant); out[i] = (c0 + c1) + (c2 + c3).
extern "C" __global__ void alu_fma(float *out, int iters) {
  unsigned i = gid_x();
  const float m = 0.9990234375f;
  float x = (float)i * 0.0009765625f;
  float c0 = x, c1 = x + 0.25f, c2 = x + 0.5f, c3 = x + 0.75f;
  for (int k = 0; k < iters; k++) {
    c0 = __builtin_fmaf(c0, m, 0.0009765625f);
    c1 = __builtin_fmaf(c1, m, 0.001953125f);
    c2 = __builtin_fmaf(c2, m, 0.0029296875f);
    c3 = __builtin_fmaf(c3, m, 0.00390625f);
  }
  out[i] = (c0 + c1) + (c2 + c3);
}
