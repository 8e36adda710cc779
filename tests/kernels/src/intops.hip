// Integer arithmetic: signed/unsigned div and rem (32 and 64-bit), shifts, bit ops,
// popcount, count-leading-zeros, multiply high.
#include "common.h"

// Per element 16 results; b[i] != 0 and (a, b) != (INT_MIN, -1) by construction of the inputs.
extern "C" __global__ void int_ops32(const int *a, const int *b, int *out, unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  int x = a[i], y = b[i];
  unsigned ux = (unsigned)x, uy = (unsigned)y;
  int *o = out + 16 * i;
  o[0] = x / y;
  o[1] = x % y;
  o[2] = (int)(ux / uy);
  o[3] = (int)(ux % uy);
  o[4] = (int)(ux << (uy & 31));
  o[5] = x >> (uy & 31);
  o[6] = (int)(ux >> (uy & 31));
  o[7] = x & y;
  o[8] = x | y;
  o[9] = x ^ ~y;
  o[10] = __builtin_popcount(ux);
  o[11] = ux ? __builtin_clz(ux) : 32;
  o[12] = (int)(ux * uy);
  o[13] = (int)(((long long)x * (long long)y) >> 32);
  o[14] = (int)(((unsigned long long)ux * uy) >> 32);
  o[15] = (int)(x < y ? uy - ux : ux - uy); // unsigned: no signed-overflow UB
}

// Per element 10 results; b[i] != 0 and (a, b) != (INT64_MIN, -1).
extern "C" __global__ void int_ops64(const long long *a, const long long *b, long long *out,
                                     unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  long long x = a[i], y = b[i];
  unsigned long long ux = (unsigned long long)x, uy = (unsigned long long)y;
  long long *o = out + 10 * i;
  o[0] = x / y;
  o[1] = x % y;
  o[2] = (long long)(ux / uy);
  o[3] = (long long)(ux % uy);
  o[4] = (long long)(ux << (uy & 63));
  o[5] = x >> (uy & 63);
  o[6] = (long long)(ux >> (uy & 63));
  o[7] = __builtin_popcountll(ux);
  o[8] = ux ? __builtin_clzll(ux) : 64;
  o[9] = (long long)(ux * uy + (ux ^ (uy >> 7)));
}
