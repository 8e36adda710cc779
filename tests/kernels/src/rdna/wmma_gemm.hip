// GEMMs on the RDNA WMMA units: C[M][N] = A[M][K] * B[K][N] (row-major, C overwritten), built
// for gfx1100, gfx1200 and gfx1201 in wave32 and (the *w64 builds, -DWAVE64) wave64.
// One wave (launch block = the wave size) computes one 16x16 tile of C; grid = (ceil(N/16),
// ceil(M/16)). Elements of A and B outside the matrices read as 0, so any M, N, K work
// (the sparse kernel needs K % 32 == 0).
//
// Register layouts (as in wmma.hip; RDNA4 from ISA 7.12.2, RDNA3 from the Matrix Instruction
// Calculator): element e of lane l's A row / B column is k = K16(l, e) (16-bit) or K8(l, e)
// (8-bit); VGPR r of lane l holds D row DROW(l, r), column l % 16.
#include "../common.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef short short16 __attribute__((ext_vector_type(16)));
typedef __bf16 bf16x4 __attribute__((ext_vector_type(4)));
typedef __bf16 bf16x8 __attribute__((ext_vector_type(8)));
typedef int int2v __attribute__((ext_vector_type(2)));
typedef int int4v __attribute__((ext_vector_type(4)));
typedef int int8v __attribute__((ext_vector_type(8)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float8v __attribute__((ext_vector_type(8)));

#ifdef WAVE64
#define DREGS 4
typedef float4v accf;
typedef int4v acci;
#else
#define DREGS 8
typedef float8v accf;
typedef int8v acci;
#endif

#if defined(__GFX11__)
// RDNA3: A/B replicated in every 16-lane group, all 16 k in order; D row G*r + l/16 with
// G = wave size / 16 (the Matrix Instruction Calculator's gfx11 rule).
#ifdef WAVE64
static __device__ inline unsigned drow(unsigned l, unsigned r) { return 4 * r + l / 16; }
#else
static __device__ inline unsigned drow(unsigned l, unsigned r) { return 2 * r + l / 16; }
#endif
static __device__ inline unsigned k16(unsigned l, unsigned e) { return e; }
static __device__ inline unsigned k8(unsigned l, unsigned e) { return e; }
#define NE16 16
#define NE8 16
typedef half16 vh;
typedef short16 vbf;
typedef int8v vw16;
#elif defined(WAVE64)
// RDNA4 wave64: 16-bit lane {k[3:2], m}, VGPR k[1], half k[0]; 8-bit lane {k[2], k[3], m},
// byte k[1:0]; D lane {m[2], m[3], n}, VGPR m[1:0].
static __device__ inline unsigned drow(unsigned l, unsigned r) { return ((l >> 4) & 1) << 3 | ((l >> 5) & 1) << 2 | r; }
static __device__ inline unsigned k16(unsigned l, unsigned e) { return (l >> 4) << 2 | e; }
static __device__ inline unsigned k8(unsigned l, unsigned e) { return ((l >> 4) & 1) << 3 | ((l >> 5) & 1) << 2 | e; }
#define NE16 4
#define NE8 4
typedef half4 vh;
typedef bf16x4 vbf;
typedef int2v vw16;
#else
// RDNA4 wave32: 16-bit lane {k[2], m}, VGPR {k[3], k[1]}, half k[0]; 8-bit lane {k[3], m},
// VGPR k[2], byte k[1:0]; D lane {m[3], n}, VGPR m[2:0].
static __device__ inline unsigned drow(unsigned l, unsigned r) { return (l >> 4) * 8 + r; }
static __device__ inline unsigned k16(unsigned l, unsigned e) {
  return ((e >> 2) & 1) << 3 | ((l >> 4) & 1) << 2 | ((e >> 1) & 1) << 1 | (e & 1);
}
static __device__ inline unsigned k8(unsigned l, unsigned e) { return (l >> 4) * 8 + e; }
#define NE16 8
#define NE8 8
typedef half8 vh;
typedef bf16x8 vbf;
typedef int4v vw16;
#endif

#define TILE_SETUP                                                                             \
  unsigned l = tid_x();                                                                        \
  int row0 = (int)bid_y() * 16, col0 = (int)bid_x() * 16;                                      \
  int r = row0 + (int)(l % 16), c = col0 + (int)(l % 16);

#define STORE_C(acc)                                                                           \
  for (unsigned rr = 0; rr < DREGS; rr++) {                                                    \
    int i = row0 + (int)drow(l, rr);                                                           \
    if (i < M && c < N)                                                                        \
      C[i * N + c] = acc[rr];                                                                  \
  }

// Lane l's NE16 16-bit elements of A's row r and B's column c at k = k0 + K16(l, e) (0
// outside the matrices), packed two per dword in 32-bit integer arithmetic (so the kernels
// need no 16-bit register moves).
static __device__ inline void pack16(const unsigned short *A, const unsigned short *B, int r, int c, int k0,
                                     int M, int N, int K, unsigned l, vw16 *wa, vw16 *wb) {
  for (unsigned w = 0; w < NE16 / 2; w++) {
    unsigned x = 0, y = 0;
    for (unsigned h = 0; h < 2; h++) {
      int k = k0 + (int)k16(l, 2 * w + h);
      x |= (unsigned)((r < M && k < K) ? A[r * K + k] : 0) << (16 * h);
      y |= (unsigned)((c < N && k < K) ? B[k * N + c] : 0) << (16 * h);
    }
    (*wa)[w] = (int)x;
    (*wb)[w] = (int)y;
  }
}

// f16 inputs, f32 accumulation: v_wmma_f32_16x16x16_f16.
extern "C" __global__ void gemm_f16(const unsigned short *A, const unsigned short *B, float *C, int M, int N,
                                    int K) {
  TILE_SETUP
  accf acc = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    vw16 wa, wb;
    pack16(A, B, r, c, k0, M, N, K, l, &wa, &wb);
    vh a = __builtin_bit_cast(vh, wa), b = __builtin_bit_cast(vh, wb);
#if defined(__GFX11__) && defined(WAVE64)
    acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64(a, b, acc);
#elif defined(__GFX11__)
    acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, acc);
#elif defined(WAVE64)
    acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12(a, b, acc);
#else
    acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, acc);
#endif
  }
  STORE_C(acc)
}

// bf16 inputs (raw 16-bit patterns), f32 accumulation: v_wmma_f32_16x16x16_bf16.
extern "C" __global__ void gemm_bf16(const unsigned short *A, const unsigned short *B, float *C, int M, int N,
                                     int K) {
  TILE_SETUP
  accf acc = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    vw16 wa, wb;
    pack16(A, B, r, c, k0, M, N, K, l, &wa, &wb);
    vbf a = __builtin_bit_cast(vbf, wa), b = __builtin_bit_cast(vbf, wb);
#if defined(__GFX11__) && defined(WAVE64)
    acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w64(a, b, acc);
#elif defined(__GFX11__)
    acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a, b, acc);
#elif defined(WAVE64)
    acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w64_gfx12(a, b, acc);
#else
    acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a, b, acc);
#endif
  }
  STORE_C(acc)
}

// Lane l's NE8 bytes of A's row r (B's column c) at k = k0 + K8(l, e), packed little-endian.
static __device__ inline void pack8(const unsigned char *A, const unsigned char *B, int r, int c, int k0, int M,
                                    int N, int K, unsigned l, unsigned *wa, unsigned *wb) {
  for (unsigned w = 0; w < NE8 / 4; w++) {
    wa[w] = 0;
    wb[w] = 0;
  }
  for (unsigned e = 0; e < NE8; e++) {
    int k = k0 + (int)k8(l, e);
    unsigned x = (r < M && k < K) ? A[r * K + k] : 0;
    unsigned y = (c < N && k < K) ? B[k * N + c] : 0;
    wa[e / 4] |= x << (8 * (e % 4));
    wb[e / 4] |= y << (8 * (e % 4));
  }
}

// Signed 8-bit inputs, i32 accumulation: v_wmma_i32_16x16x16_iu8 with NEG = [1, 1] (both signed).
extern "C" __global__ void gemm_i8(const unsigned char *A, const unsigned char *B, int *C, int M, int N, int K) {
  TILE_SETUP
  acci acc = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    unsigned wa[NE8 / 4], wb[NE8 / 4];
    pack8(A, B, r, c, k0, M, N, K, l, wa, wb);
#if defined(__GFX11__)
    int4v a = {(int)wa[0], (int)wa[1], (int)wa[2], (int)wa[3]};
    int4v b = {(int)wb[0], (int)wb[1], (int)wb[2], (int)wb[3]};
#ifdef WAVE64
    acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64(true, a, true, b, acc, false);
#else
    acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a, true, b, acc, false);
#endif
#elif defined(WAVE64)
    acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64_gfx12(true, (int)wa[0], true, (int)wb[0], acc, false);
#else
    int2v a = {(int)wa[0], (int)wa[1]};
    int2v b = {(int)wb[0], (int)wb[1]};
    acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a, true, b, acc, false);
#endif
  }
  STORE_C(acc)
}

#if defined(__GFX12__)
// gfx12 only: FP8 (OCP E4M3) inputs, f32 accumulation: v_wmma_f32_16x16x16_fp8_fp8.
extern "C" __global__ void gemm_fp8(const unsigned char *A, const unsigned char *B, float *C, int M, int N,
                                    int K) {
  TILE_SETUP
  accf acc = {};
  for (int k0 = 0; k0 < K; k0 += 16) {
    unsigned wa[NE8 / 4], wb[NE8 / 4];
    pack8(A, B, r, c, k0, M, N, K, l, wa, wb);
#ifdef WAVE64
    acc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w64_gfx12((int)wa[0], (int)wb[0], acc);
#else
    int2v a = {(int)wa[0], (int)wa[1]};
    int2v b = {(int)wb[0], (int)wb[1]};
    acc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(a, b, acc);
#endif
  }
  STORE_C(acc)
}

// gfx12 only: 2:4-sparse f16 A, v_swmmac_f32_16x16x32_f16. Ap[M][K/2] holds the two kept
// values of every group of 4 columns, Ai[M][K/4] their positions (bits [1:0] and [3:2],
// first < second); K % 32 == 0. Per 32 k: lane l's packed A item e is packed column
// K16(l, e) of the 16-column chunk, its 2-bit index at bits 2e of the index VGPR (set 0);
// B holds k0 + K16(l, e) in items 0..NE16-1 and k0 + 16 + K16(l, e) in the next NE16.
#ifdef WAVE64
typedef half8 vh2;
typedef int4v vw2;
#else
typedef half16 vh2;
typedef int8v vw2;
#endif
extern "C" __global__ void gemm_sparse_f16(const unsigned short *Ap, const unsigned char *Ai,
                                           const unsigned short *B, float *C, int M, int N, int K) {
  TILE_SETUP
  accf acc = {};
  for (int k0 = 0; k0 < K; k0 += 32) {
    vw16 wa;
    vw2 wb;
    int idx = 0;
    for (unsigned w = 0; w < NE16 / 2; w++) {
      unsigned x = 0, y0 = 0, y1 = 0;
      for (unsigned h = 0; h < 2; h++) {
        unsigned e = 2 * w + h;
        int kp = k0 / 2 + (int)k16(l, e);
        x |= (unsigned)(r < M ? Ap[r * (K / 2) + kp] : 0) << (16 * h);
        // Rows past M: positions 0 and 1 (any valid pair; their values are 0).
        int pos = r < M ? (Ai[r * (K / 4) + kp / 2] >> (2 * (kp % 2))) & 3 : kp % 2;
        idx |= pos << (2 * e);
        int k = k0 + (int)k16(l, e);
        y0 |= (unsigned)(c < N ? B[k * N + c] : 0) << (16 * h);
        y1 |= (unsigned)(c < N ? B[(k + 16) * N + c] : 0) << (16 * h);
      }
      wa[w] = (int)x;
      wb[w] = (int)y0;
      wb[w + NE16 / 2] = (int)y1;
    }
    vh a = __builtin_bit_cast(vh, wa);
    vh2 b = __builtin_bit_cast(vh2, wb);
#ifdef WAVE64
    acc = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w64(a, b, acc, idx);
#else
    acc = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(a, b, acc, idx);
#endif
  }
  STORE_C(acc)
}
#endif
