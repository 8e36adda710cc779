// Cold-start benchmark: a kernel of about 10 k instructions, a mix of what compiled kernels
// hold (long straight-line integer and float code, short loops, branches on lane data,
// loads and stores). `wavejit bench` reports its first launch (translation and compilation)
// and checks its result against the interpreter's.
#include "../../../tests/kernels/src/common.h"

// One step of a stage: integer hash, float fma, a data-dependent select. `K` makes every
// unrolled copy different, so the compiler cannot fold them.
#define STEP(K)                                                                         \
  do {                                                                                  \
    h = (h ^ (h >> 13)) * (0x9e3779b1u + 2u * (K));                                     \
    f = __builtin_fmaf(f, 0.9990234375f, (float)((K) & 63) * 0.0009765625f);           \
    g = (h & 16u) ? g + f : g - f * 0.5f;                                               \
  } while (0)

template <int N> __device__ __attribute__((always_inline)) inline void stage(unsigned &h, float &f, float &g) {
#pragma unroll
  for (int k = 0; k < N; k++)
    STEP(k * 7 + N);
}

extern "C" __global__ void cold_start(float *out, const unsigned *in, int iters) {
  unsigned i = gid_x();
  unsigned h = in[i] + i;
  float f = (float)(h & 1023) * 0.0009765625f;
  float g = 0.0f;
  stage<290>(h, f, g);
  for (int k = 0; k < iters; k++) {
    stage<24>(h, f, g);
    if (h & 1u)
      stage<64>(h, f, g);
  }
  stage<290>(h, f, g);
  for (int k = 0; k < iters; k++)
    stage<32>(h, f, g);
  stage<220>(h, f, g);
  out[i] = g + (float)(h & 0xffff);
}
