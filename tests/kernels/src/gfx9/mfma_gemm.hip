// GEMMs on the CDNA matrix cores: C[M][N] = A[M][K] · B[K][N] (row-major, C overwritten).
// One wave (64 threads, launch block 64) computes one 16x16 tile of C; grid = (ceil(N/16),
// ceil(M/16)). Elements of A and B outside the matrices read as 0, so any M, N, K work.
// Register layouts (CDNA4 ISA 7.1.4): for a 16x16xK MFMA with K_L = K/4 items per lane,
// lane l holds A[l%16][K_L*(l/16) + t] and B[K_L*(l/16) + t][l%16]; the 4 results of lane l
// are D[4*(l/16) + t][l%16] (f64: D[4t + l/16][l%16]).
#include "../common.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef double double4 __attribute__((ext_vector_type(4)));
typedef int int4v __attribute__((ext_vector_type(4)));

#define TILE_SETUP                                                                   \
  int l = (int)lane_id();                                                            \
  int row0 = (int)bid_y() * 16, col0 = (int)bid_x() * 16;                            \
  int r = row0 + l % 16, c = col0 + l % 16;

// f16 inputs, f32 accumulation: v_mfma_f32_16x16x16_f16.
extern "C" __global__ void gemm_f16(const _Float16 *A, const _Float16 *B, float *C, int M, int N, int K) {
  TILE_SETUP
  float4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 16) {
    half4 a, b;
    for (int t = 0; t < 4; t++) {
      int k = k0 + 4 * (l / 16) + t;
      a[t] = (r < M && k < K) ? A[r * K + k] : (_Float16)0;
      b[t] = (c < N && k < K) ? B[k * N + c] : (_Float16)0;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
}

// bf16 inputs (raw 16-bit patterns), f32 accumulation: v_mfma_f32_16x16x16_bf16.
extern "C" __global__ void gemm_bf16(const short *A, const short *B, float *C, int M, int N, int K) {
  TILE_SETUP
  float4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 16) {
    short4 a, b;
    for (int t = 0; t < 4; t++) {
      int k = k0 + 4 * (l / 16) + t;
      a[t] = (r < M && k < K) ? A[r * K + k] : (short)0;
      b[t] = (c < N && k < K) ? B[k * N + c] : (short)0;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc, 0, 0, 0);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
}

// Packs 8 bytes A[r][k0 + 8q .. +7] (0 outside) into a long, item t in bits [8t+7:8t].
static __device__ inline long pack8_row(const unsigned char *A, int r, int k0, int M, int K) {
  unsigned long v = 0;
  for (int t = 0; t < 8; t++) {
    int k = k0 + t;
    unsigned long x = (r < M && k < K) ? A[r * K + k] : 0;
    v |= x << (8 * t);
  }
  return (long)v;
}
static __device__ inline long pack8_col(const unsigned char *B, int c, int k0, int N, int K) {
  unsigned long v = 0;
  for (int t = 0; t < 8; t++) {
    int k = k0 + t;
    unsigned long x = (c < N && k < K) ? B[k * N + c] : 0;
    v |= x << (8 * t);
  }
  return (long)v;
}

// i8 inputs, i32 accumulation: v_mfma_i32_16x16x32_i8 (K_L = 8).
extern "C" __global__ void gemm_i8(const unsigned char *A, const unsigned char *B, int *C, int M, int N, int K) {
  TILE_SETUP
  int4v acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 32) {
    long a = pack8_row(A, r, k0 + 8 * (l / 16), M, K);
    long b = pack8_col(B, c, k0 + 8 * (l / 16), N, K);
    acc = __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, acc, 0, 0, 0);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
}

// FP8 (E4M3: FNUZ on gfx942, OCP on gfx950) inputs: v_mfma_f32_16x16x32_fp8_fp8.
extern "C" __global__ void gemm_fp8(const unsigned char *A, const unsigned char *B, float *C, int M, int N, int K) {
  TILE_SETUP
  float4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 32) {
    long a = pack8_row(A, r, k0 + 8 * (l / 16), M, K);
    long b = pack8_col(B, c, k0 + 8 * (l / 16), N, K);
    acc = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, acc, 0, 0, 0);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
}

// f64: v_mfma_f64_16x16x4_f64 (K_L = 1; results D[4t + l/16][l%16]).
extern "C" __global__ void gemm_f64(const double *A, const double *B, double *C, int M, int N, int K) {
  TILE_SETUP
  double4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 4) {
    int k = k0 + l / 16;
    double a = (r < M && k < K) ? A[r * K + k] : 0.0;
    double b = (c < N && k < K) ? B[k * N + c] : 0.0;
    acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, acc, 0, 0, 0);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * t + l / 16;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
}

// 2:4-sparse f16 A: v_smfmac_f32_16x16x32_f16. Ap[M][K/2] holds the two kept values of
// every group of 4 columns, Ai[M][K/4] their positions (bits [1:0] and [3:2], first < second).
// K must be a multiple of 32. Lane l holds packed A[l%16][4*(l/16) .. +3] (4 items: groups
// 2*(l/16) and 2*(l/16)+1) and B[8*(l/16) + t][l%16], t < 8.
extern "C" __global__ void gemm_sparse_f16(const _Float16 *Ap, const unsigned char *Ai, const _Float16 *B, float *C,
                                           int M, int N, int K) {
  TILE_SETUP
  float4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 32) {
    half4 a;
    half8 b;
    int idx = 0;
    for (int t = 0; t < 4; t++) {
      int kp = k0 / 2 + 4 * (l / 16) + t;
      a[t] = r < M ? Ap[r * (K / 2) + kp] : (_Float16)0;
    }
    for (int g = 0; g < 2; g++) {
      int q = k0 / 4 + 2 * (l / 16) + g;
      idx |= (r < M ? (int)Ai[r * (K / 4) + q] : 0x4) << (4 * g);
    }
    for (int t = 0; t < 8; t++) {
      int k = k0 + 8 * (l / 16) + t;
      b[t] = c < N ? B[k * N + c] : (_Float16)0;
    }
    acc = __builtin_amdgcn_smfmac_f32_16x16x32_f16(a, b, acc, idx, 0, 0);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
}

typedef int int8v __attribute__((ext_vector_type(8)));

// gfx950 only (the kernels below are empty on gfx942): FP8 (E4M3, OCP) A times FP4 (E2M1) B
// through v_mfma_f32_16x16x128_f8f6f4 (CBSZ = 0: A is FP8, BLGP = 4: B is FP4), and the
// block-scaled form v_mfma_scale_f32_16x16x128_f8f6f4 with one E8M0 scale per row of A and
// column of B per 32 k: SA[M][K/32], SB[N][K/32].
// Layouts (CDNA4 ISA 7.1.5 tables): lane l, group g = l/16; FP8 A items 0-15 are
// k = 16g + t, items 16-31 are k = 64 + 16g + (t - 16); FP4 B items t are k = 32g + t, eight
// per register. Scale lane l carries row (column) l%16 of K block l/16.
static __device__ inline void load_f8f6f4(const unsigned char *A, const unsigned char *B, int r, int c, int k0,
                                          int M, int N, int K, int l, int8v *a, int8v *b) {
  int g = l / 16;
  for (int t = 0; t < 32; t++) {
    int k = k0 + (t < 16 ? 16 * g + t : 64 + 16 * g + (t - 16));
    unsigned x = (r < M && k < K) ? A[r * K + k] : 0;
    (*a)[t / 4] |= (int)(x << (8 * (t % 4)));
  }
  for (int t = 0; t < 32; t++) {
    int k = k0 + 32 * g + t;
    unsigned x = (c < N && k < K) ? (B[k * N + c] & 0xF) : 0;
    (*b)[t / 8] |= (int)(x << (4 * (t % 8)));
  }
}

extern "C" __global__ void gemm_fp8_fp4(const unsigned char *A, const unsigned char *B, float *C, int M, int N,
                                        int K) {
#if defined(__gfx950__)
  TILE_SETUP
  float4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 128) {
    int8v a = {0, 0, 0, 0, 0, 0, 0, 0}, b = {0, 0, 0, 0, 0, 0, 0, 0};
    load_f8f6f4(A, B, r, c, k0, M, N, K, l, &a, &b);
    acc = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, acc, 0, 4, 0, 0x7F, 0, 0x7F);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
#endif
}

extern "C" __global__ void gemm_fp8_fp4_scaled(const unsigned char *A, const unsigned char *B,
                                               const unsigned char *SA, const unsigned char *SB, float *C, int M,
                                               int N, int K) {
#if defined(__gfx950__)
  TILE_SETUP
  float4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < K; k0 += 128) {
    int8v a = {0, 0, 0, 0, 0, 0, 0, 0}, b = {0, 0, 0, 0, 0, 0, 0, 0};
    load_f8f6f4(A, B, r, c, k0, M, N, K, l, &a, &b);
    int kb = k0 / 32 + l / 16;
    int sa = (r < M && kb < (K + 31) / 32) ? SA[r * ((K + 31) / 32) + kb] : 127;
    int sb = (c < N && kb < (K + 31) / 32) ? SB[c * ((K + 31) / 32) + kb] : 127;
    acc = __builtin_amdgcn_mfma_scale_f32_16x16x128_f8f6f4(a, b, acc, 0, 4, 0, sa, 0, sb);
  }
  for (int t = 0; t < 4; t++) {
    int i = row0 + 4 * (l / 16) + t;
    if (i < M && c < N)
      C[i * N + c] = acc[t];
  }
#endif
}
