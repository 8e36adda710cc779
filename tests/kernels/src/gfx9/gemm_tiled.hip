// A tiled f16 GEMM written like a real one, for the CDNA matrix cores: C[M][N] = A[M][K] · B[K][N]
// (row-major, f16 inputs, f32 accumulation, C overwritten).
//
// Requires M % 64 == 0, N % 64 == 0 and K % 32 == 0 (no edge handling; the kernel writes
// nothing for other sizes, and the host rejects them before launching).
// Launch: workgroup 256 work-items (4 waves), grid = (N/64, M/64).
//
// Each workgroup computes one 64x64 tile of C. Per K step of 32 it stages a 64x32 tile of A
// and a 32x64 tile of B through LDS with one 128-bit global load (global_load_dwordx4) of
// each per work-item; A is kept row-major, B transposed (Bt[n][k]), so that every lane's MFMA
// operand is 16 consecutive k of one row (two ds_read_b128). Wave w owns the 32x32 sub-tile
// at rows 32*(w/2), columns 32*(w%2), held in a 16-register accumulator, and issues four
// v_mfma_f32_32x32x8_f16 per K step.
//
// MFMA layout (CDNA3/CDNA4 ISA 7.1.4, 32x32x8, one block): lane l supplies A[l%32][4*(l/32)+t]
// and B[4*(l/32)+t][l%32], t < 4; result register j of lane l is D[8*(j/4) + 4*(l/32) + j%4][l%32].
// Any permutation of k applied to both A and B leaves the product unchanged, so MFMA i
// (i < 4) of a K step takes k = 16*(l/32) + 4*i + t: lane l reads its 16 k at once.
#include "../common.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef float float16v __attribute__((ext_vector_type(16)));

#define TM 64
#define TN 64
#define TK 32
// LDS row stride in halves: TK plus 8 of padding (rows stay 16-byte aligned; spreads the
// ds_read_b128 of neighbouring lanes over the banks as a real kernel would).
#define LDS_STRIDE (TK + 8)

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
gemm_f16_tiled(const _Float16 *A, const _Float16 *B, float *C, int M, int N, int K) {
  __shared__ _Float16 As[TM * LDS_STRIDE];
  __shared__ _Float16 Bs[TN * LDS_STRIDE];
  if (M % TM != 0 || N % TN != 0 || K % TK != 0)
    return;
  const int tid = (int)tid_x();
  const int lane = tid % 64, wave = tid / 64;
  const int row0 = (int)bid_y() * TM, col0 = (int)bid_x() * TN;

  // Global -> LDS: work-item tid copies A[row0 + tid/4][k0 + 8*(tid%4) .. +7] and
  // B[k0 + tid/8][col0 + 8*(tid%8) .. +7].
  const int ar = tid / 4, ac = 8 * (tid % 4);
  const int br = tid / 8, bc = 8 * (tid % 8);
  const half8 *ag = (const half8 *)(A + (long)(row0 + ar) * K + ac);
  const half8 *bg = (const half8 *)(B + (long)br * N + col0 + bc);
  const long bstep = (long)TK * N / 8; // one K step of B, in half8 units

  // This lane's operand rows in LDS.
  const int wm = 32 * (wave / 2), wn = 32 * (wave % 2);
  const int kofs = 16 * (lane / 32);
  const _Float16 *ap = As + (wm + lane % 32) * LDS_STRIDE + kofs;
  const _Float16 *bp = Bs + (wn + lane % 32) * LDS_STRIDE + kofs;

  float16v acc = {};
  for (int k0 = 0; k0 < K; k0 += TK) {
    half8 a = *ag, b = *bg;
    ag += TK / 8;
    bg += bstep;
    __syncthreads(); // the previous step's reads are done
    *(half8 *)(As + ar * LDS_STRIDE + ac) = a;
    for (int t = 0; t < 8; t++)
      Bs[(bc + t) * LDS_STRIDE + br] = b[t];
    __syncthreads();
    half8 a0 = *(const half8 *)ap, a1 = *(const half8 *)(ap + 8);
    half8 b0 = *(const half8 *)bp, b1 = *(const half8 *)(bp + 8);
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a0.lo, b0.lo, acc, 0, 0, 0);
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a0.hi, b0.hi, acc, 0, 0, 0);
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a1.lo, b1.lo, acc, 0, 0, 0);
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a1.hi, b1.hi, acc, 0, 0, 0);
  }

  float *cp = C + (long)(row0 + wm + 4 * (lane / 32)) * N + col0 + wn + lane % 32;
  for (int j = 0; j < 16; j++)
    cp[(long)(8 * (j / 4) + j % 4) * N] = acc[j];
}

// The same GEMM with 128x128 C tiles (M % 128 == 0, N % 128 == 0, K % 32 == 0; grid =
// (N/128, M/128), 256 work-items): twice the matrix work per byte staged. Per K step each
// work-item loads 32 bytes of A (two global_load_dwordx4 of one row) and two 16-byte runs of B
// from rows 2p and 2p+1, which it stores transposed as packed pairs (Bt[n][2p..2p+1], one
// ds_write_b32 per column). Wave w owns the 64x64 sub-tile at rows 64*(w/2), columns
// 64*(w%2): 2x2 accumulators of 32x32 (64 registers), 8 ds_read_b128 and 16
// v_mfma_f32_32x32x8_f16 per K step.
typedef _Float16 half2 __attribute__((ext_vector_type(2)));

#define TM2 128
#define TN2 128

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
gemm_f16_tiled128(const _Float16 *A, const _Float16 *B, float *C, int M, int N, int K) {
  __shared__ _Float16 As[TM2 * LDS_STRIDE];
  __shared__ _Float16 Bs[TN2 * LDS_STRIDE];
  if (M % TM2 != 0 || N % TN2 != 0 || K % TK != 0)
    return;
  const int tid = (int)tid_x();
  const int lane = tid % 64, wave = tid / 64;
  const int row0 = (int)bid_y() * TM2, col0 = (int)bid_x() * TN2;

  // Global -> LDS: A[row0 + tid/2][k0 + 16*(tid%2) .. +15]; B rows k0 + 2p and k0 + 2p + 1
  // (p = tid/16), columns col0 + 8*(tid%16) .. +7.
  const int ar = tid / 2, ac = 16 * (tid % 2);
  const int bp2 = 2 * (tid / 16), bc = 8 * (tid % 16);
  const half8 *ag = (const half8 *)(A + (long)(row0 + ar) * K + ac);
  const half8 *bg = (const half8 *)(B + (long)bp2 * N + col0 + bc);
  const long brow = N / 8;             // one row of B, in half8 units
  const long bstep = (long)TK * N / 8; // one K step of B

  const int wm = 64 * (wave / 2), wn = 64 * (wave % 2);
  const int kofs = 16 * (lane / 32);
  const _Float16 *ap = As + (wm + lane % 32) * LDS_STRIDE + kofs;
  const _Float16 *bp = Bs + (wn + lane % 32) * LDS_STRIDE + kofs;

  float16v acc[2][2] = {};
  for (int k0 = 0; k0 < K; k0 += TK) {
    half8 a0 = ag[0], a1 = ag[1], b0 = bg[0], b1 = bg[brow];
    ag += TK / 8;
    bg += bstep;
    __syncthreads(); // the previous step's reads are done
    *(half8 *)(As + ar * LDS_STRIDE + ac) = a0;
    *(half8 *)(As + ar * LDS_STRIDE + ac + 8) = a1;
    for (int t = 0; t < 8; t++) {
      half2 pair = {b0[t], b1[t]};
      *(half2 *)(Bs + (bc + t) * LDS_STRIDE + bp2) = pair;
    }
    __syncthreads();
    half8 av[2][2], bv[2][2];
    for (int i = 0; i < 2; i++)
      for (int h = 0; h < 2; h++) {
        av[i][h] = *(const half8 *)(ap + 32 * i * LDS_STRIDE + 8 * h);
        bv[i][h] = *(const half8 *)(bp + 32 * i * LDS_STRIDE + 8 * h);
      }
    for (int h = 0; h < 2; h++)
      for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
          acc[i][j] = __builtin_amdgcn_mfma_f32_32x32x8f16(av[i][h].lo, bv[j][h].lo, acc[i][j], 0, 0, 0);
          acc[i][j] = __builtin_amdgcn_mfma_f32_32x32x8f16(av[i][h].hi, bv[j][h].hi, acc[i][j], 0, 0, 0);
        }
  }

  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      float *cp = C + (long)(row0 + wm + 32 * i + 4 * (lane / 32)) * N + col0 + wn + 32 * j + lane % 32;
      for (int r = 0; r < 16; r++)
        cp[(long)(8 * (r / 4) + r % 4) * N] = acc[i][j][r];
    }
}

// The same GEMM with 256x128 C tiles, a macro-tile shape of the kind tuned CDNA3 GEMM libraries
// pick for large f16 problems (M % 256 == 0, N % 128 == 0, K % 32 == 0; grid = (N/128,
// M/256), 256 work-items). Wave w owns the 128x64 sub-tile at rows 128*(w/2), columns
// 64*(w%2): 4x2 accumulators of 32x32 (128 registers), 12 ds_read_b128 and 32
// v_mfma_f32_32x32x8_f16 per K step. Per K step each work-item loads 64 bytes of A (one row,
// four global_load_dwordx4) and B as in gemm_f16_tiled128.
#define TM4 256
#define TN4 128

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
gemm_f16_tiled256(const _Float16 *A, const _Float16 *B, float *C, int M, int N, int K) {
  __shared__ _Float16 As[TM4 * LDS_STRIDE];
  __shared__ _Float16 Bs[TN4 * LDS_STRIDE];
  if (M % TM4 != 0 || N % TN4 != 0 || K % TK != 0)
    return;
  const int tid = (int)tid_x();
  const int lane = tid % 64, wave = tid / 64;
  const int row0 = (int)bid_y() * TM4, col0 = (int)bid_x() * TN4;

  // Global -> LDS: A[row0 + tid][k0 .. k0+31]; B rows k0 + 2p and k0 + 2p + 1 (p = tid/16),
  // columns col0 + 8*(tid%16) .. +7.
  const int bp2 = 2 * (tid / 16), bc = 8 * (tid % 16);
  const half8 *ag = (const half8 *)(A + (long)(row0 + tid) * K);
  const half8 *bg = (const half8 *)(B + (long)bp2 * N + col0 + bc);
  const long brow = N / 8;             // one row of B, in half8 units
  const long bstep = (long)TK * N / 8; // one K step of B

  const int wm = 128 * (wave / 2), wn = 64 * (wave % 2);
  const int kofs = 16 * (lane / 32);
  const _Float16 *ap = As + (wm + lane % 32) * LDS_STRIDE + kofs;
  const _Float16 *bp = Bs + (wn + lane % 32) * LDS_STRIDE + kofs;

  float16v acc[4][2] = {};
  for (int k0 = 0; k0 < K; k0 += TK) {
    half8 a[4];
#pragma unroll
    for (int q = 0; q < 4; q++)
      a[q] = ag[q];
    half8 b0 = bg[0], b1 = bg[brow];
    ag += TK / 8;
    bg += bstep;
    __syncthreads(); // the previous step's reads are done
#pragma unroll
    for (int q = 0; q < 4; q++)
      *(half8 *)(As + tid * LDS_STRIDE + 8 * q) = a[q];
#pragma unroll
    for (int t = 0; t < 8; t++) {
      half2 pair = {b0[t], b1[t]};
      *(half2 *)(Bs + (bc + t) * LDS_STRIDE + bp2) = pair;
    }
    __syncthreads();
#pragma unroll
    for (int h = 0; h < 2; h++) {
      half8 av[4], bv[2];
#pragma unroll
      for (int i = 0; i < 4; i++)
        av[i] = *(const half8 *)(ap + 32 * i * LDS_STRIDE + 8 * h);
#pragma unroll
      for (int j = 0; j < 2; j++)
        bv[j] = *(const half8 *)(bp + 32 * j * LDS_STRIDE + 8 * h);
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) {
          acc[i][j] = __builtin_amdgcn_mfma_f32_32x32x8f16(av[i].lo, bv[j].lo, acc[i][j], 0, 0, 0);
          acc[i][j] = __builtin_amdgcn_mfma_f32_32x32x8f16(av[i].hi, bv[j].hi, acc[i][j], 0, 0, 0);
        }
    }
  }

#pragma unroll
  for (int i = 0; i < 4; i++)
#pragma unroll
    for (int j = 0; j < 2; j++) {
      float *cp = C + (long)(row0 + wm + 32 * i + 4 * (lane / 32)) * N + col0 + wn + 32 * j + lane % 32;
#pragma unroll
      for (int r = 0; r < 16; r++)
        cp[(long)(8 * (r / 4) + r % 4) * N] = acc[i][j][r];
    }
}
