// Kernels that only `wavejit bench` runs (workloads/src/bench.rs computes each result on the host too).
#include "../../../tests/kernels/src/common.h"

// STREAM triad: a[i] = b[i] + s * c[i] for i < n.
extern "C" __global__ void triad(float *a, const float *b, const float *c, float s, unsigned n) {
  unsigned i = gid_x();
  if (i < n)
    a[i] = b[i] + s * c[i];
}

// Sum of n words (wrapping): each work-item sums a grid-strided run of elements, the
// workgroup (256 work-items) reduces them through LDS, and one atomic per workgroup adds the
// workgroup's sum to *sum.
extern "C" __global__ void reduce_sum(const unsigned *in, unsigned *sum, unsigned n) {
  __shared__ unsigned sh[256];
  unsigned t = tid_x();
  unsigned stride = __builtin_amdgcn_grid_size_x();
  unsigned acc = 0;
  for (unsigned i = gid_x(); i < n; i += stride)
    acc += in[i];
  sh[t] = acc;
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s)
      sh[t] += sh[t + s];
    __syncthreads();
  }
  if (t == 0)
    __hip_atomic_fetch_add(sum, sh[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
