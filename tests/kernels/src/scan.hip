// Workgroup inclusive prefix sum in LDS (Hillis-Steele, double-buffered), 256 threads.
#include "common.h"

// out[i] = sum of in[j] for j from the start of i's workgroup to i (elements >= n count 0);
// totals[blockIdx.x] = the block's total. Launch with 256 threads per workgroup.
extern "C" __global__ void block_scan(const unsigned *in, unsigned *out, unsigned *totals,
                                      unsigned n) {
  __shared__ unsigned buf[2][256];
  unsigned t = tid_x();
  unsigned i = gid_x();
  int cur = 0;
  buf[0][t] = i < n ? in[i] : 0u;
  __syncthreads();
  for (unsigned off = 1; off < 256; off <<= 1) {
    unsigned v = buf[cur][t];
    if (t >= off)
      v += buf[cur][t - off];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n)
    out[i] = buf[cur][t];
  if (t == 255)
    totals[bid_x()] = buf[cur][255];
}
