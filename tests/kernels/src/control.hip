// Divergent control flow: nested if/else, loops with per-lane trip counts, break, early return.
#include "common.h"

// out[2*i] is always written; out[2*i+1] is skipped (early return) for some lanes.
extern "C" __global__ void divergent(const int *in, int *out, unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  int v = in[i];
  unsigned u = (unsigned)v, acc; // unsigned: wrapping arithmetic is defined
  if (v & 1) {
    if (v & 2)
      acc = u * 3u;
    else
      acc = u - 7u;
  } else {
    if (v & 4)
      acc = u ^ 0x55u;
    else
      acc = 0u - u;
  }
  // Per-lane trip count 0..15, with a data-dependent break.
  int trip = (v >> 3) & 15;
  for (int k = 0; k < trip; k++) {
    acc = acc * 5u + (unsigned)k;
    if ((acc & 0xff) == 0x3c)
      break;
  }
  // Bounded Collatz walk: a while loop with a per-lane trip count.
  unsigned c = ((unsigned)v & 0x3ff) + 1;
  int steps = 0;
  while (c != 1 && steps < 200) {
    c = (c & 1) ? 3 * c + 1 : c / 2;
    steps++;
  }
  out[2 * i] = (int)(acc + (unsigned)steps);
  if (v < 0 && (v & 0x30) == 0x30)
    return;
  out[2 * i + 1] = steps * 1000 + (int)(acc & 0xfffu);
}
