// Float math: div, sqrt, fma, min/max, floor/ceil/trunc and conversions f16/f32/f64/int.
#include "common.h"

// Per element 10 f32 results.
extern "C" __global__ void float_ops(const float *a, const float *b, const float *c, float *out,
                                     unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  float x = a[i], y = b[i], z = c[i];
  float *o = out + 10 * i;
  o[0] = x / y;
  o[1] = __builtin_sqrtf(__builtin_fabsf(x));
  o[2] = __builtin_fmaf(x, y, z);
  o[3] = __builtin_fminf(x, y);
  o[4] = __builtin_fmaxf(x, z);
  o[5] = __builtin_floorf(x);
  o[6] = __builtin_ceilf(y);
  o[7] = __builtin_truncf(z);
  o[8] = x * y;
  o[9] = x - z;
}

// f64 arithmetic: per element 4 results.
extern "C" __global__ void double_ops(const double *a, const double *b, double *out, unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  double x = a[i], y = b[i];
  double *o = out + 4 * i;
  o[0] = x / y;
  o[1] = __builtin_sqrt(__builtin_fabs(x));
  o[2] = __builtin_fma(x, y, x);
  o[3] = __builtin_floor(x * y);
}

// Conversions. Per element: 8 words of output (see the test for the layout).
// a[i] is in (-2^28, 2^28) so the float->int conversions are in range.
extern "C" __global__ void convert(const float *a, const double *d, const unsigned short *h,
                                   unsigned *out, unsigned n) {
  unsigned i = gid_x();
  if (i >= n)
    return;
  float x = a[i];
  double y = d[i];
  _Float16 hv = __builtin_bit_cast(_Float16, h[i]);
  unsigned *o = out + 8 * i;
  o[0] = __builtin_bit_cast(unsigned short, (_Float16)x);             // f32 -> f16 (RNE)
  o[1] = __builtin_bit_cast(unsigned, (float)hv);                     // f16 -> f32
  o[2] = __builtin_bit_cast(unsigned, (float)y);                      // f64 -> f32
  o[3] = (unsigned)(int)x;                                            // f32 -> i32 (trunc)
  o[4] = __builtin_bit_cast(unsigned, (float)(int)(o[3] * 7u));       // i32 -> f32
  o[5] = __builtin_bit_cast(unsigned, (float)(o[3] * 13u));           // u32 -> f32
  double w = (double)x * 3.0 + (double)(int)o[3];                      // f32 -> f64, i32 -> f64
  o[6] = (unsigned)(int)w;                                            // f64 -> i32
  o[7] = __builtin_bit_cast(unsigned, (float)(hv * (_Float16)3.0f)); // f16 mul
}
