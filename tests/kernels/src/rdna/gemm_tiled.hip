// A tiled f16 GEMM written like a real one, for the RDNA WMMA units (gfx1100, gfx1200, gfx1201;
// wave32, and wave64 in the *w64 builds): C[M][N] = A[M][K] · B[K][N] (row-major, f16 inputs,
// f32 accumulation, C overwritten) with v_wmma_f32_16x16x16_f16.
//
// Requires M % 64 == 0, N % 64 == 0 and K % 32 == 0 (no edge handling; the kernel writes
// nothing for other sizes, and the host rejects them before launching).
// Launch: workgroup 256 work-items (8 wave32 or 4 wave64 waves), grid = (N/64, M/64).
//
// Each workgroup computes one 64x64 tile of C, sixteen 16x16 WMMA tiles. Per K step of 32 it
// stages a 64x32 tile of A and a 32x64 tile of B through LDS with one 128-bit global load of
// each per work-item; A is kept row-major, B transposed (Bt[n][k]), so every lane's WMMA
// operand is consecutive k of one row (ds_read_b128/b64). Each wave owns 16 / waves
// consecutive 16x16 tiles (two in wave32, a 16x64 strip in wave64), with register-held
// accumulators, and issues 2 WMMAs per tile per K step.
//
// Operand layouts (as in wmma_gemm.hip): RDNA3 replicates A/B in every 16-lane group with all
// 16 k of row/column l%16 in order; RDNA4 splits the 16 k over the lane groups (wave32: lane
// half h holds k {k[2] = h}, wave64: group g holds k[3:2] = g). Any permutation of k applied
// to both A and B leaves the product unchanged, so on RDNA4 lane group g takes the
// consecutive k NE*g .. NE*g + NE - 1 (NE elements per lane) and reads them at once.
// D register r of lane l holds row DROW(l, r), column l % 16.
#include "../common.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef float float4v __attribute__((ext_vector_type(4)));
typedef float float8v __attribute__((ext_vector_type(8)));

#ifdef WAVE64
#define WAVE 64
#define DREGS 4
typedef float4v accf;
#else
#define WAVE 32
#define DREGS 8
typedef float8v accf;
#endif

#if defined(__GFX11__)
#define NE 16
typedef half16 vh;
#ifdef WAVE64
static __device__ inline unsigned drow(unsigned l, unsigned r) { return 4 * r + l / 16; }
#else
static __device__ inline unsigned drow(unsigned l, unsigned r) { return 2 * r + l / 16; }
#endif
// Lane l's first k within the 16-k chunk.
static __device__ inline unsigned kfirst(unsigned l) { return 0; }
#elif defined(WAVE64)
#define NE 4
typedef half4 vh;
static __device__ inline unsigned drow(unsigned l, unsigned r) { return ((l >> 4) & 1) << 3 | ((l >> 5) & 1) << 2 | r; }
static __device__ inline unsigned kfirst(unsigned l) { return 4 * (l / 16); }
#else
#define NE 8
typedef half8 vh;
static __device__ inline unsigned drow(unsigned l, unsigned r) { return (l >> 4) * 8 + r; }
static __device__ inline unsigned kfirst(unsigned l) { return 8 * (l / 16); }
#endif

static __device__ inline accf wmma(vh a, vh b, accf c) {
#if defined(__GFX11__) && defined(WAVE64)
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w64(a, b, c);
#elif defined(__GFX11__)
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a, b, c);
#elif defined(WAVE64)
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12(a, b, c);
#else
  return __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a, b, c);
#endif
}

#define TM 64
#define TN 64
#define TK 32
// LDS row stride in halves: TK plus 8 of padding (rows stay 16-byte aligned).
#define LDS_STRIDE (TK + 8)
// 16x16 tiles per wave.
#define TPW (16 / (256 / WAVE))

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(256, 256)))
gemm_f16_tiled(const _Float16 *A, const _Float16 *B, float *C, int M, int N, int K) {
  __shared__ _Float16 As[TM * LDS_STRIDE];
  __shared__ _Float16 Bs[TN * LDS_STRIDE];
  if (M % TM != 0 || N % TN != 0 || K % TK != 0)
    return;
  const unsigned tid = tid_x();
  const unsigned lane = tid % WAVE, wave = tid / WAVE;
  const int row0 = (int)bid_y() * TM, col0 = (int)bid_x() * TN;

  // Global -> LDS: work-item tid copies A[row0 + tid/4][k0 + 8*(tid%4) .. +7] and
  // B[k0 + tid/8][col0 + 8*(tid%8) .. +7].
  const int ar = (int)tid / 4, ac = 8 * (int)(tid % 4);
  const int br = (int)tid / 8, bc = 8 * (int)(tid % 8);
  const half8 *ag = (const half8 *)(A + (long)(row0 + ar) * K + ac);
  const half8 *bg = (const half8 *)(B + (long)br * N + col0 + bc);
  const long bstep = (long)TK * N / 8; // one K step of B, in half8 units

  // Tile i of this wave: tile t = TPW * wave + i of the 4x4 grid of 16x16 tiles.
  const unsigned t0 = TPW * wave;
  const _Float16 *ap = As + (16 * (t0 / 4) + lane % 16) * LDS_STRIDE + kfirst(lane);
  const _Float16 *bp = Bs + (16 * (t0 % 4) + lane % 16) * LDS_STRIDE + kfirst(lane);

  accf acc[TPW] = {};
  for (int k0 = 0; k0 < K; k0 += TK) {
    half8 a = *ag, b = *bg;
    ag += TK / 8;
    bg += bstep;
    __syncthreads(); // the previous step's reads are done
    *(half8 *)(As + ar * LDS_STRIDE + ac) = a;
    for (int t = 0; t < 8; t++)
      Bs[(bc + t) * LDS_STRIDE + br] = b[t];
    __syncthreads();
    for (int kc = 0; kc < TK; kc += 16) {
      // All of a wave's tiles share their 16 rows of A (TPW <= 4 tiles in one tile row).
      vh av = *(const vh *)(ap + kc);
      for (int i = 0; i < TPW; i++) {
        vh bv = *(const vh *)(bp + 16 * i * LDS_STRIDE + kc);
        acc[i] = wmma(av, bv, acc[i]);
      }
    }
  }

  for (int i = 0; i < TPW; i++) {
    const unsigned t = t0 + i;
    float *cp = C + (long)(row0 + 16 * (t / 4)) * N + col0 + 16 * (t % 4) + lane % 16;
    for (unsigned r = 0; r < DREGS; r++)
      cp[(long)drow(lane, r) * N] = acc[i][r];
  }
}
