// More than one s_barrier inside a loop: an LDS ring rotation repeated `iters` times.
#include "common.h"

// Each step: v = sh[(t+1) % bs] + sh[t]; barrier; sh[t] = v ^ step; barrier.
// out[gid] = sh[t] after iters steps. Any block size up to 256.
extern "C" __global__ void barrier_loop(const unsigned *in, unsigned *out, unsigned iters) {
  __shared__ unsigned sh[256];
  unsigned t = tid_x();
  unsigned bs = bdim_x();
  unsigned i = gid_x();
  sh[t] = in[i];
  __syncthreads();
  for (unsigned s = 0; s < iters; s++) {
    unsigned next = t + 1 == bs ? 0 : t + 1;
    unsigned v = sh[next] + sh[t];
    __syncthreads();
    sh[t] = v ^ s;
    __syncthreads();
  }
  out[i] = sh[t];
}
