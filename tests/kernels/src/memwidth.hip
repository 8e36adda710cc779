// 8-, 16- and 64-bit loads and stores (signed and unsigned sub-dword loads).
#include "common.h"

// o8[i] = b8[n-1-i] ^ 0x5a; o16[i] = h16[i] * 3 + 1; o64[i] = d64[i] * K + (d64[i] >> 17);
// oi[2i] = (int)sb8[i]; oi[2i+1] = (int)sh16[i].
extern "C" __global__ void mem_widths(const unsigned char *b8, const unsigned short *h16,
                                      const unsigned long long *d64, const signed char *sb8,
                                      const short *sh16, unsigned char *o8, unsigned short *o16,
                                      unsigned long long *o64, int *oi, unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  o8[i] = b8[n - 1 - i] ^ 0x5a;
  o16[i] = (unsigned short)(h16[i] * 3u + 1u);
  unsigned long long d = d64[i];
  o64[i] = d * 0x9E3779B97F4A7C15ull + (d >> 17);
  oi[2 * i] = (int)sb8[i];
  oi[2 * i + 1] = (int)sh16[i];
}
