// Global atomics: integer add/min/max/and/or/xor, compare-exchange, float add.
#include "common.h"

// c[0] += v; c[1] = min; c[2] = max (signed); c[3] = umin; c[4] = umax; c[5] &= ; c[6] |= ;
// c[7] ^= ; c[8] += (v & 7) via a compare-exchange loop; c[9] = ticket counter
// (tickets[i] = old value: a permutation of its start value + 0..n-1);
// fsum[0] += (float)(v & 0xff) (exact: all partial sums are integers < 2^24).
extern "C" __global__ void atomics(const int *in, int *c, unsigned *tickets, float *fsum,
                                   unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  int v = in[i];
  __hip_atomic_fetch_add(&c[0], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&c[1], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(&c[2], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min((unsigned *)&c[3], (unsigned)v, __ATOMIC_RELAXED,
                         __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max((unsigned *)&c[4], (unsigned)v, __ATOMIC_RELAXED,
                         __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_and(&c[5], v | 0x0f0f0f0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_or(&c[6], v & 0x00ff00ff, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_xor(&c[7], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  int old = __hip_atomic_load(&c[8], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (!__hip_atomic_compare_exchange_strong(&c[8], &old, old + (v & 7), __ATOMIC_RELAXED,
                                               __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
  }
  tickets[i] = (unsigned)__hip_atomic_fetch_add(&c[9], 1, __ATOMIC_RELAXED,
                                                __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(fsum, (float)(v & 0xff), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
