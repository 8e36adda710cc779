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
