// Elementwise f32 kernels: vector add and saxpy.
#include "common.h"

// c[i] = a[i] + b[i] for i < n.
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = (int)gid_x();
  if (i < n)
    c[i] = a[i] + b[i];
}

// y[i] = alpha * x[i] + y[i] (HIP contracts this into one fma).
extern "C" __global__ void saxpy(float alpha, const float *x, float *y, unsigned n) {
  unsigned i = gid_x();
  if (i < n)
    y[i] = alpha * x[i] + y[i];
}
