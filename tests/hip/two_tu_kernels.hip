// The kernels of the two-translation-unit test: defined here, launched from two_tu_main.hip.
#include <hip/hip_runtime.h>

static __constant__ int scale_factor = 3;

__global__ void scale_add(int n, const int *a, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * scale_factor + 1;
}

// Host-side entry point of this unit, also called from the other one.
void launch_scale_add(int n, const int *a, int *out) { scale_add<<<(n + 63) / 64, 64>>>(n, a, out); }
