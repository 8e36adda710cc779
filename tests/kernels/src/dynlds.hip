// Dynamic LDS (extern __shared__, sized at launch) placed after a static LDS array.
#include "common.h"

// Per workgroup of bs threads (bs <= 256, dynamic LDS = bs * 4 bytes):
// out[gid] = in[block reversed index] + stat[t % 64], where stat[k] = k * 3 + bid.
extern "C" __global__ void dyn_lds_reverse(const unsigned *in, unsigned *out) {
  __shared__ unsigned stat[64];
  extern __shared__ unsigned dyn[];
  unsigned t = tid_x(), bs = bdim_x(), i = gid_x();
  if (t < 64)
    stat[t] = t * 3 + bid_x();
  dyn[t] = in[i];
  __syncthreads();
  out[i] = dyn[bs - 1 - t] + stat[t % 64];
}
