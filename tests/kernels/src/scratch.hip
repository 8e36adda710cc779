// A private array with dynamic indexing: lives in scratch memory. `private_array` is accessed
// with scratch_load/scratch_store; `private_flat` (a volatile array) is accessed with flat_
// instructions through the private aperture.
#include "common.h"

// out[i] = f(private array of 64 words initialised from i and seed, then mixed at indices
// taken from idx[i]); see the test for the reference.
extern "C" __global__ void private_array(const unsigned *idx, unsigned *out, unsigned seed,
                                         unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  unsigned arr[64];
  for (unsigned k = 0; k < 64; k++)
    arr[k] = i * k + seed;
  unsigned j = idx[i];
  for (unsigned r = 0; r < 8; r++)
    arr[(j + r * 7) & 63] += arr[(j * 3 + r) & 63];
  out[i] = arr[j & 63] ^ arr[(j >> 6) & 63];
}

// Same computation on a volatile array.
extern "C" __global__ void private_flat(const unsigned *idx, unsigned *out, unsigned seed,
                                        unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  volatile unsigned arr[64];
  for (unsigned k = 0; k < 64; k++)
    arr[k] = i * k + seed;
  unsigned j = idx[i];
  for (unsigned r = 0; r < 8; r++)
    arr[(j + r * 7) & 63] += arr[(j * 3 + r) & 63];
  out[i] = arr[j & 63] ^ arr[(j >> 6) & 63];
}
