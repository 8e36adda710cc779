// MFMA tiles (gfx942 and gfx950; built only for the GFX9 targets): one wave64 computes
// D = A * B + C for a single tile. A is M x K, B is K x N, C and D are M x N, all row-major in
// memory; each lane loads exactly the elements the instruction expects from it and stores the
// D elements it holds. Launch one workgroup of 64 work-items.
//
// Register layouts (CDNA3/CDNA4 ISA 7.1.4, as summarised in /work/shared/notes/cdna.md §5.4;
// not checked on hardware): with K_L = K / (64 / M), A[i][k] is item k % K_L of lane
// i + M * (k / K_L), B[k][j] is item k % K_L of lane j + N * (k / K_L); for 32x32 outputs
// D[i][j] is item 4 * (i / 8) + i % 4 of lane j + 32 * ((i / 4) % 2), for 16x16 outputs item
// i % 4 of lane j + 16 * (i / 4).
#include "../common.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef int int4v __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));

// 32x32 output, item r of lane l.
static __device__ inline unsigned d32_row(unsigned l, unsigned r) {
  return 8 * (r / 4) + 4 * (l / 32) + r % 4;
}
// 16x16 output, item r of lane l.
static __device__ inline unsigned d16_row(unsigned l, unsigned r) { return 4 * (l / 16) + r; }

// v_mfma_f32_32x32x8_f16: M = N = 32, K = 8, K_L = 4.
extern "C" __global__ void mfma_f32_32x32x8_f16(const _Float16 *a, const _Float16 *b,
                                                const float *c, float *d) {
  unsigned l = tid_x();
  half4 va, vb;
  for (unsigned t = 0; t < 4; t++) {
    va[t] = a[(l % 32) * 8 + 4 * (l / 32) + t];
    vb[t] = b[(4 * (l / 32) + t) * 32 + l % 32];
  }
  float16v acc;
  for (unsigned r = 0; r < 16; r++)
    acc[r] = c[d32_row(l, r) * 32 + l % 32];
  acc = __builtin_amdgcn_mfma_f32_32x32x8f16(va, vb, acc, 0, 0, 0);
  for (unsigned r = 0; r < 16; r++)
    d[d32_row(l, r) * 32 + l % 32] = acc[r];
}

// v_mfma_f32_16x16x16_f16: M = N = K = 16, K_L = 4.
extern "C" __global__ void mfma_f32_16x16x16_f16(const _Float16 *a, const _Float16 *b,
                                                 const float *c, float *d) {
  unsigned l = tid_x();
  half4 va, vb;
  for (unsigned t = 0; t < 4; t++) {
    va[t] = a[(l % 16) * 16 + 4 * (l / 16) + t];
    vb[t] = b[(4 * (l / 16) + t) * 16 + l % 16];
  }
  float4v acc;
  for (unsigned r = 0; r < 4; r++)
    acc[r] = c[d16_row(l, r) * 16 + l % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x16f16(va, vb, acc, 0, 0, 0);
  for (unsigned r = 0; r < 4; r++)
    d[d16_row(l, r) * 16 + l % 16] = acc[r];
}

// v_mfma_f32_16x16x32_fp8_fp8: M = N = 16, K = 32, K_L = 8; A and B are FP8 (E4M3) bytes,
// item t in byte t of the 64-bit operand.
extern "C" __global__ void mfma_f32_16x16x32_fp8(const unsigned char *a, const unsigned char *b,
                                                 const float *c, float *d) {
  unsigned l = tid_x();
  unsigned long va = 0, vb = 0;
  for (unsigned t = 0; t < 8; t++) {
    va |= (unsigned long)a[(l % 16) * 32 + 8 * (l / 16) + t] << (8 * t);
    vb |= (unsigned long)b[(8 * (l / 16) + t) * 16 + l % 16] << (8 * t);
  }
  float4v acc;
  for (unsigned r = 0; r < 4; r++)
    acc[r] = c[d16_row(l, r) * 16 + l % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8((long)va, (long)vb, acc, 0, 0, 0);
  for (unsigned r = 0; r < 4; r++)
    d[d16_row(l, r) * 16 + l % 16] = acc[r];
}

// v_mfma_i32_16x16x32_i8: M = N = 16, K = 32, K_L = 8; signed bytes, item t in byte t.
extern "C" __global__ void mfma_i32_16x16x32_i8(const signed char *a, const signed char *b,
                                                const int *c, int *d) {
  unsigned l = tid_x();
  unsigned long va = 0, vb = 0;
  for (unsigned t = 0; t < 8; t++) {
    va |= (unsigned long)(unsigned char)a[(l % 16) * 32 + 8 * (l / 16) + t] << (8 * t);
    vb |= (unsigned long)(unsigned char)b[(8 * (l / 16) + t) * 16 + l % 16] << (8 * t);
  }
  int4v acc;
  for (unsigned r = 0; r < 4; r++)
    acc[r] = c[d16_row(l, r) * 16 + l % 16];
  acc = __builtin_amdgcn_mfma_i32_16x16x32_i8((long)va, (long)vb, acc, 0, 0, 0);
  for (unsigned r = 0; r < 4; r++)
    d[d16_row(l, r) * 16 + l % 16] = acc[r];
}

#ifdef __gfx950__
// gfx950 only (CDNA4): v_mfma_f32_16x16x32_f16 and _bf16, M = N = 16, K = 32, K_L = 8.
extern "C" __global__ void mfma_f32_16x16x32_f16(const _Float16 *a, const _Float16 *b,
                                                 const float *c, float *d) {
  unsigned l = tid_x();
  half8 va, vb;
  for (unsigned t = 0; t < 8; t++) {
    va[t] = a[(l % 16) * 32 + 8 * (l / 16) + t];
    vb[t] = b[(8 * (l / 16) + t) * 16 + l % 16];
  }
  float4v acc;
  for (unsigned r = 0; r < 4; r++)
    acc[r] = c[d16_row(l, r) * 16 + l % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x32_f16(va, vb, acc, 0, 0, 0);
  for (unsigned r = 0; r < 4; r++)
    d[d16_row(l, r) * 16 + l % 16] = acc[r];
}

extern "C" __global__ void mfma_f32_16x16x32_bf16(const __bf16 *a, const __bf16 *b,
                                                  const float *c, float *d) {
  unsigned l = tid_x();
  bf16x8 va, vb;
  for (unsigned t = 0; t < 8; t++) {
    va[t] = a[(l % 16) * 32 + 8 * (l / 16) + t];
    vb[t] = b[(8 * (l / 16) + t) * 16 + l % 16];
  }
  float4v acc;
  for (unsigned r = 0; r < 4; r++)
    acc[r] = c[d16_row(l, r) * 16 + l % 16];
  acc = __builtin_amdgcn_mfma_f32_16x16x32_bf16(va, vb, acc, 0, 0, 0);
  for (unsigned r = 0; r < 4; r++)
    d[d16_row(l, r) * 16 + l % 16] = acc[r];
}
#endif
