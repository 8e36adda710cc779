// ALU-bound benchmark: 8 independent f32 FMA chains per lane (used by `wavejit bench`).
#include "common.h"

// out[i] = sum of 8 chains, chain k starting at i * 1e-3 + k, each step c = fma(c, m_k, a_k).
extern "C" __global__ void alu_fma(float *out, int iters) {
  unsigned i = gid_x();
  float x = (float)i * 1e-3f;
  float c0 = x, c1 = x + 1.0f, c2 = x + 2.0f, c3 = x + 3.0f;
  float c4 = x + 4.0f, c5 = x + 5.0f, c6 = x + 6.0f, c7 = x + 7.0f;
  for (int k = 0; k < iters; k++) {
    c0 = __builtin_fmaf(c0, 0.999f, 0.5f);
    c1 = __builtin_fmaf(c1, 0.998f, 0.25f);
    c2 = __builtin_fmaf(c2, 0.997f, 0.125f);
    c3 = __builtin_fmaf(c3, 0.996f, 0.0625f);
    c4 = __builtin_fmaf(c4, 0.995f, 0.5f);
    c5 = __builtin_fmaf(c5, 0.994f, 0.25f);
    c6 = __builtin_fmaf(c6, 0.993f, 0.125f);
    c7 = __builtin_fmaf(c7, 0.992f, 0.0625f);
  }
  out[i] = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7));
}
