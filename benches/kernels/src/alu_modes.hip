// The ALU loop of tests/kernels/src/alu_fma.hip under other float modes (`wavejit bench`,
// whose host references in the workloads compute exactly this): f32 rounded toward zero,
// and an f64 twin with f64 denormals kept or flushed. MODE is set with s_setreg at the
// start (hwreg(HW_REG_MODE, offset, size): FP_ROUND f32 is bits 1:0, FP_DENORM f64/f16
// bits 7:6).
#include "../../../tests/kernels/src/common.h"

// hwreg(HW_REG_MODE, 0, 2) = 0x801: FP_ROUND f32 := 3 (toward zero).
extern "C" __global__ void alu_fma_rtz(float *out, int iters) {
  __builtin_amdgcn_s_setreg(0x801, 3);
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

static __device__ inline void fma64_chains(double *out, int iters) {
  unsigned i = gid_x();
  const double m = 0.9990234375;
  double x = (double)i * 0.0009765625;
  double c0 = x, c1 = x + 0.25, c2 = x + 0.5, c3 = x + 0.75;
  for (int k = 0; k < iters; k++) {
    c0 = __builtin_fma(c0, m, 0.0009765625);
    c1 = __builtin_fma(c1, m, 0.001953125);
    c2 = __builtin_fma(c2, m, 0.0029296875);
    c3 = __builtin_fma(c3, m, 0.00390625);
  }
  out[i] = (c0 + c1) + (c2 + c3);
}

// f64 chains, denormals kept (the kernel's MODE).
extern "C" __global__ void alu_fma64(double *out, int iters) { fma64_chains(out, iters); }

// hwreg(HW_REG_MODE, 6, 2) = 0x981: FP_DENORM f64/f16 := 0 (flush in and out).
extern "C" __global__ void alu_fma64_flush(double *out, int iters) {
  __builtin_amdgcn_s_setreg(0x981, 0);
  fma64_chains(out, iters);
}
