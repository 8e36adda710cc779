// Device code of module_api.hip, compiled to a code object with scripts/hipcc --genco.
#include <hip/hip_runtime.h>

__device__ float bias = 0.5f;

extern "C" __global__ void scale(float *v, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * s + bias;
}
