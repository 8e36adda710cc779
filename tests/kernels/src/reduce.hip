// Reductions: an LDS tree reduction over a 256-thread workgroup (4 waves) with barriers, and
// wave-level cross-lane operations (DPP, ds_swizzle, ds_bpermute, readlane).
#include "common.h"

// Launch with 256 threads per workgroup; sums[blockIdx.x] = wrapping sum of the block's inputs
// (elements past n count as 0).
extern "C" __global__ void lds_reduce(const unsigned *in, unsigned *sums, unsigned n) {
  __shared__ unsigned sh[256];
  unsigned t = tid_x();
  unsigned i = gid_x();
  sh[t] = i < n ? in[i] : 0u;
  __syncthreads();
  for (unsigned s = 128; s > 0; s >>= 1) {
    if (t < s)
      sh[t] += sh[t + s];
    __syncthreads();
  }
  if (t == 0)
    sums[bid_x()] = sh[0];
}

// Launch with whole waves (n a multiple of 64). Per lane 8 words, see the test for semantics:
//  0: DPP quad_perm [1,0,3,2] (lane ^ 1)
//  1: DPP row_shr:1 with old = 0x1234, bound_ctrl off (lane 0 of each row keeps old)
//  2: DPP row_ror:4
//  3: DPP row_mirror, bound_ctrl on
//  4: wave sum via ds_swizzle (xor 1,2,4,8,16 in 32-lane halves) + ds_bpermute (lane ^ 32)
//  5: readlane(x, sel & 63) (uniform lane from a kernel argument)
//  6: readfirstlane(x)
//  7: ds_bpermute from lane (lane * 5 + sel) & 63
extern "C" __global__ void wave_ops(const int *in, int *out, unsigned sel) {
  unsigned i = gid_x();
  int x = in[i];
  int *o = out + 8 * i;
  o[0] = __builtin_amdgcn_update_dpp(0, x, 0xB1, 0xf, 0xf, false);
  o[1] = __builtin_amdgcn_update_dpp(0x1234, x, 0x111, 0xf, 0xf, false);
  o[2] = __builtin_amdgcn_update_dpp(0, x, 0x124, 0xf, 0xf, false);
  o[3] = __builtin_amdgcn_update_dpp(0, x, 0x140, 0xf, 0xf, true);
  int s = x;
  s += __builtin_amdgcn_ds_swizzle(s, 0x041F);
  s += __builtin_amdgcn_ds_swizzle(s, 0x081F);
  s += __builtin_amdgcn_ds_swizzle(s, 0x101F);
  s += __builtin_amdgcn_ds_swizzle(s, 0x201F);
  s += __builtin_amdgcn_ds_swizzle(s, 0x401F);
  unsigned lane = lane_id();
  s += __builtin_amdgcn_ds_bpermute((int)((lane ^ 32) * 4), s);
  o[4] = s;
  o[5] = __builtin_amdgcn_readlane(x, sel & 63);
  o[6] = __builtin_amdgcn_readfirstlane(x);
  o[7] = __builtin_amdgcn_ds_bpermute((int)(((lane * 5 + sel) & 63) * 4), x);
}

// Wave-wide inclusive scan with DPP row_shr / row_bcast (the gfx9 sequence from AMD's
// "cross-lane operations" article): out[i] = inclusive prefix sum of `in` over the lanes of
// i's wave. update_dpp with old = 0: lanes whose source is invalid or whose row/bank is masked
// off contribute 0. Launch with whole waves. RDNA builds replace the row_bcast steps (below).
extern "C" __global__ void wave_scan(const int *in, int *out) {
  unsigned i = gid_x();
  int v = in[i];
  int t = v + __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false); // row_shr:1
  t += __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false);       // row_shr:2
  t += __builtin_amdgcn_update_dpp(0, v, 0x113, 0xf, 0xf, false);       // row_shr:3
  t += __builtin_amdgcn_update_dpp(0, t, 0x114, 0xf, 0xe, false);       // row_shr:4, banks 1-3
  t += __builtin_amdgcn_update_dpp(0, t, 0x118, 0xf, 0xc, false);       // row_shr:8, banks 2-3
#ifdef __GFX9__
  t += __builtin_amdgcn_update_dpp(0, t, 0x142, 0xa, 0xf, false);       // row_bcast:15, rows 1,3
  t += __builtin_amdgcn_update_dpp(0, t, 0x143, 0xc, 0xf, false);       // row_bcast:31, rows 2,3
#else
  // RDNA has no DPP row_bcast (GFX9 only): the same two steps through ds_bpermute.
  unsigned lane = lane_id();
  int b15 = __builtin_amdgcn_ds_bpermute((int)(((lane & ~31u) + 15) * 4), t);
  if (lane & 16)
    t += b15; // rows 1,3 add lane 15 of the row before
  int b31 = __builtin_amdgcn_ds_bpermute((int)(((lane & ~63u) + 31) * 4), t);
  if (lane & 32)
    t += b31; // rows 2,3 (wave64 only) add lane 31
#endif
  out[i] = t;
}
