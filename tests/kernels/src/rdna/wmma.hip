// WMMA / SWMMAC tiles (built only for the RDNA targets): one wave computes D = A * B + C for a
// single 16 x 16 tile. A is 16 x K, B is K x 16, C and D are 16 x 16, all row-major in memory;
// each lane loads the elements the instruction expects from it and stores the D elements it
// holds. Launch one workgroup of one wave (32 work-items, or 64 for the *w64 builds, which
// build.sh compiles with -DWAVE64).
//
// Register layouts, not checked on hardware:
// - gfx11 (RDNA3, GPUOpen "WMMA on RDNA3" and ISA 7.9): A and B are replicated across each
//   16-lane group: lane l holds row l % 16 of A (and column l % 16 of B) with all 16 k in
//   order. D (32-bit): VGPR r of lane l holds row G*r + l / 16 with G = wave size / 16 (the
//   Matrix Instruction Calculator's gfx11 rule), column l % 16.
// - gfx12 (RDNA4, ISA 7.12.2, /work/shared/notes/rdna.md §5.3): 16-bit A wave32: lane
//   {k[2], m[3:0]}, VGPR {k[3], k[1]}, half k[0]; wave64: lane {k[3:2], m}, VGPR k[1], half k[0].
//   8-bit A wave32: lane {k[3], m}, byte k[2:0]; wave64: lane {k[2], k[3], m}, byte k[1:0].
//   B likewise with n for m. 32-bit D wave32: lane {m[3], n}, VGPR m[2:0]; wave64: lane
//   {m[2], m[3], n}, VGPR m[1:0].
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
// Row of D held in VGPR r of lane l (RDNA3).
static __device__ inline unsigned drow(unsigned l, unsigned r) {
#ifdef WAVE64
  return 4 * r + l / 16;
#else
  return 2 * r + l / 16;
#endif
}
// k of element e of lane l's A row / B column (RDNA3: all 16 in order).
static __device__ inline unsigned k16(unsigned l, unsigned e) { return e; }
static __device__ inline unsigned k8(unsigned l, unsigned e) { return e; }
#define NE16 16
#define NE8 16
#else
#ifdef WAVE64
static __device__ inline unsigned drow(unsigned l, unsigned r) {
  return ((l >> 4) & 1) << 3 | ((l >> 5) & 1) << 2 | r;
}
static __device__ inline unsigned k16(unsigned l, unsigned e) { return (l >> 4) << 2 | e; }
static __device__ inline unsigned k8(unsigned l, unsigned e) {
  return ((l >> 4) & 1) << 3 | ((l >> 5) & 1) << 2 | e;
}
#define NE16 4
#define NE8 4
#else
static __device__ inline unsigned drow(unsigned l, unsigned r) { return (l >> 4) * 8 + r; }
static __device__ inline unsigned k16(unsigned l, unsigned e) {
  unsigned v = e >> 1;
  return ((v >> 1) & 1) << 3 | ((l >> 4) & 1) << 2 | (v & 1) << 1 | (e & 1);
}
static __device__ inline unsigned k8(unsigned l, unsigned e) { return (l >> 4) * 8 + e; }
#define NE16 8
#define NE8 8
#endif
#endif

// Loads lane l's share of A (16 x 16, row-major) and B (16 x 16, row-major) into vectors of
// NE elements, with k = K(l, e).
#define LOAD_AB(va, vb, a, b, NE, K)                                                           \
  for (unsigned e = 0; e < NE; e++) {                                                          \
    (va)[e] = (a)[(l % 16) * 16 + K(l, e)];                                                      \
    (vb)[e] = (b)[K(l, e) * 16 + l % 16];                                                        \
  }
#define LOAD_C(acc, c)                                                                         \
  for (unsigned r = 0; r < DREGS; r++)                                                         \
    acc[r] = c[drow(l, r) * 16 + l % 16];
#define STORE_D(d, acc)                                                                        \
  for (unsigned r = 0; r < DREGS; r++)                                                         \
    d[drow(l, r) * 16 + l % 16] = acc[r];

// v_wmma_f32_16x16x16_f16
extern "C" __global__ void wmma_f32_f16(const _Float16 *a, const _Float16 *b, const float *c,
                                        float *d) {
  unsigned l = tid_x();
#if defined(__GFX11__)
  half16 va, vb;
#elif defined(WAVE64)
  half4 va, vb;
#else
  half8 va, vb;
#endif
  LOAD_AB(va, vb, a, b, NE16, k16);
  accf acc;
  LOAD_C(acc, c);
#if defined(__GFX11__) && defined(WAVE64)
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64(va, vb, acc);
#elif defined(__GFX11__)
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(va, vb, acc);
#elif defined(WAVE64)
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12(va, vb, acc);
#else
  acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(va, vb, acc);
#endif
  STORE_D(d, acc);
}

// v_wmma_f32_16x16x16_bf16 (bf16 passed as raw 16-bit patterns)
extern "C" __global__ void wmma_f32_bf16(const unsigned short *a, const unsigned short *b,
                                         const float *c, float *d) {
  unsigned l = tid_x();
  accf acc;
  LOAD_C(acc, c);
#if defined(__GFX11__)
  short16 va, vb;
  LOAD_AB(va, vb, (const short *)a, (const short *)b, NE16, k16);
#ifdef WAVE64
  acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w64(va, vb, acc);
#else
  acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(va, vb, acc);
#endif
#else
#ifdef WAVE64
  bf16x4 va, vb;
#else
  bf16x8 va, vb;
#endif
  LOAD_AB(va, vb, (const __bf16 *)a, (const __bf16 *)b, NE16, k16);
#ifdef WAVE64
  acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w64_gfx12(va, vb, acc);
#else
  acc = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(va, vb, acc);
#endif
#endif
  STORE_D(d, acc);
}

// v_wmma_i32_16x16x16_iu8 with A signed and B unsigned (NEG[0] = 1, NEG[1] = 0).
extern "C" __global__ void wmma_i32_iu8(const signed char *a, const unsigned char *b,
                                        const int *c, int *d) {
  unsigned l = tid_x();
  unsigned char ea[NE8], eb[NE8];
  LOAD_AB(ea, eb, (const unsigned char *)a, b, NE8, k8);
  // Pack bytes little-endian into the dword operands (item e in byte e % 4 of dword e / 4).
  unsigned wa[NE8 / 4], wb[NE8 / 4];
  for (unsigned w = 0; w < NE8 / 4; w++) {
    wa[w] = ea[4 * w] | ea[4 * w + 1] << 8 | ea[4 * w + 2] << 16 | (unsigned)ea[4 * w + 3] << 24;
    wb[w] = eb[4 * w] | eb[4 * w + 1] << 8 | eb[4 * w + 2] << 16 | (unsigned)eb[4 * w + 3] << 24;
  }
  acci acc;
  LOAD_C(acc, c);
#if defined(__GFX11__)
  int4v va = {(int)wa[0], (int)wa[1], (int)wa[2], (int)wa[3]};
  int4v vb = {(int)wb[0], (int)wb[1], (int)wb[2], (int)wb[3]};
#ifdef WAVE64
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64(true, va, false, vb, acc, false);
#else
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, va, false, vb, acc, false);
#endif
#elif defined(WAVE64)
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64_gfx12(true, (int)wa[0], false, (int)wb[0], acc,
                                                         false);
#else
  int2v va = {(int)wa[0], (int)wa[1]};
  int2v vb = {(int)wb[0], (int)wb[1]};
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, va, false, vb, acc, false);
#endif
  STORE_D(d, acc);
}

// v_wmma_f16_16x16x16_f16 with 16-bit C and D (raw f16 patterns in memory). gfx11: one element
// per VGPR, in the low halves (OPSEL[2] = 0: wmma_f16_f16) or the high halves (OPSEL[2] = 1:
// wmma_f16_f16_hi); the unused half of C holds junk. gfx12: two rows per VGPR (element e of
// lane l is row drow(l, e)), so only wmma_f16_f16. Operands are built and taken apart with
// 32-bit integer operations (bit casts), so the kernels need no 16-bit register moves.
#if defined(__GFX11__)
typedef half16 f16in;
#ifdef WAVE64
typedef half8 f16acc;
#else
typedef half16 f16acc;
#endif
#define NW16 8
#elif defined(WAVE64)
typedef half4 f16in;
typedef half4 f16acc;
#define NW16 2
#else
typedef half8 f16in;
typedef half8 f16acc;
#define NW16 4
#endif
typedef int int16w __attribute__((ext_vector_type(NW16)));
#if defined(__GFX11__)
typedef acci f16accw;
#define F16_PER_REG 1
#else
typedef int int16acc __attribute__((ext_vector_type(DREGS / 2)));
typedef int16acc f16accw;
#define F16_PER_REG 2
#endif

static __device__ inline void f16_tile(const unsigned short *a, const unsigned short *b,
                                       const unsigned short *c, unsigned short *d, unsigned hi) {
  unsigned l = tid_x();
  int16w wa, wb;
  for (unsigned w = 0; w < NW16; w++) {
    unsigned x = 0, y = 0;
    for (unsigned h = 0; h < 2; h++) {
      unsigned k = k16(l, 2 * w + h);
      x |= (unsigned)a[(l % 16) * 16 + k] << (16 * h);
      y |= (unsigned)b[k * 16 + l % 16] << (16 * h);
    }
    wa[w] = (int)x;
    wb[w] = (int)y;
  }
  f16accw wc;
  for (unsigned r = 0; r < DREGS / F16_PER_REG; r++) {
#if defined(__GFX11__)
    unsigned v = c[drow(l, r) * 16 + l % 16];
    wc[r] = (int)(hi ? (v << 16 | 0xDEADu) : (0xBEEFu << 16 | v));
#else
    wc[r] = (int)(c[drow(l, 2 * r) * 16 + l % 16] | (unsigned)c[drow(l, 2 * r + 1) * 16 + l % 16] << 16);
#endif
  }
  f16in va = __builtin_bit_cast(f16in, wa), vb = __builtin_bit_cast(f16in, wb);
  f16acc vc = __builtin_bit_cast(f16acc, wc);
#if defined(__GFX11__) && defined(WAVE64)
  vc = hi ? __builtin_amdgcn_wmma_f16_16x16x16_f16_w64(va, vb, vc, true)
          : __builtin_amdgcn_wmma_f16_16x16x16_f16_w64(va, vb, vc, false);
#elif defined(__GFX11__)
  vc = hi ? __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(va, vb, vc, true)
          : __builtin_amdgcn_wmma_f16_16x16x16_f16_w32(va, vb, vc, false);
#elif defined(WAVE64)
  vc = __builtin_amdgcn_wmma_f16_16x16x16_f16_w64_gfx12(va, vb, vc);
#else
  vc = __builtin_amdgcn_wmma_f16_16x16x16_f16_w32_gfx12(va, vb, vc);
#endif
  f16accw wd = __builtin_bit_cast(f16accw, vc);
  for (unsigned r = 0; r < DREGS / F16_PER_REG; r++) {
    unsigned v = (unsigned)wd[r];
#if defined(__GFX11__)
    d[drow(l, r) * 16 + l % 16] = (unsigned short)(hi ? v >> 16 : v);
#else
    d[drow(l, 2 * r) * 16 + l % 16] = (unsigned short)v;
    d[drow(l, 2 * r + 1) * 16 + l % 16] = (unsigned short)(v >> 16);
#endif
  }
}

// The same tile with bf16 A, B, C and D (v_wmma_bf16_16x16x16_bf16).
#if defined(__GFX11__)
typedef short16 bf16in;
#ifdef WAVE64
typedef short __attribute__((ext_vector_type(8))) bf16acc;
#else
typedef short16 bf16acc;
#endif
#elif defined(WAVE64)
typedef bf16x4 bf16in;
typedef bf16x4 bf16acc;
#else
typedef bf16x8 bf16in;
typedef bf16x8 bf16acc;
#endif

static __device__ inline void bf16_tile(const unsigned short *a, const unsigned short *b,
                                       const unsigned short *c, unsigned short *d, unsigned hi) {
  unsigned l = tid_x();
  int16w wa, wb;
  for (unsigned w = 0; w < NW16; w++) {
    unsigned x = 0, y = 0;
    for (unsigned h = 0; h < 2; h++) {
      unsigned k = k16(l, 2 * w + h);
      x |= (unsigned)a[(l % 16) * 16 + k] << (16 * h);
      y |= (unsigned)b[k * 16 + l % 16] << (16 * h);
    }
    wa[w] = (int)x;
    wb[w] = (int)y;
  }
  f16accw wc;
  for (unsigned r = 0; r < DREGS / F16_PER_REG; r++) {
#if defined(__GFX11__)
    unsigned v = c[drow(l, r) * 16 + l % 16];
    wc[r] = (int)(hi ? (v << 16 | 0xDEADu) : (0xBEEFu << 16 | v));
#else
    wc[r] = (int)(c[drow(l, 2 * r) * 16 + l % 16] | (unsigned)c[drow(l, 2 * r + 1) * 16 + l % 16] << 16);
#endif
  }
  bf16in va = __builtin_bit_cast(bf16in, wa), vb = __builtin_bit_cast(bf16in, wb);
  bf16acc vc = __builtin_bit_cast(bf16acc, wc);
#if defined(__GFX11__) && defined(WAVE64)
  vc = hi ? __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w64(va, vb, vc, true)
          : __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w64(va, vb, vc, false);
#elif defined(__GFX11__)
  vc = hi ? __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w32(va, vb, vc, true)
          : __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w32(va, vb, vc, false);
#elif defined(WAVE64)
  vc = __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w64_gfx12(va, vb, vc);
#else
  vc = __builtin_amdgcn_wmma_bf16_16x16x16_bf16_w32_gfx12(va, vb, vc);
#endif
  f16accw wd = __builtin_bit_cast(f16accw, vc);
  for (unsigned r = 0; r < DREGS / F16_PER_REG; r++) {
    unsigned v = (unsigned)wd[r];
#if defined(__GFX11__)
    d[drow(l, r) * 16 + l % 16] = (unsigned short)(hi ? v >> 16 : v);
#else
    d[drow(l, 2 * r) * 16 + l % 16] = (unsigned short)v;
    d[drow(l, 2 * r + 1) * 16 + l % 16] = (unsigned short)(v >> 16);
#endif
  }
}

extern "C" __global__ void wmma_bf16_bf16(const unsigned short *a, const unsigned short *b,
                                          const unsigned short *c, unsigned short *d) {
  bf16_tile(a, b, c, d, 0);
}

#if defined(__GFX11__)
extern "C" __global__ void wmma_bf16_bf16_hi(const unsigned short *a, const unsigned short *b,
                                             const unsigned short *c, unsigned short *d) {
  bf16_tile(a, b, c, d, 1);
}
#endif

extern "C" __global__ void wmma_f16_f16(const unsigned short *a, const unsigned short *b,
                                        const unsigned short *c, unsigned short *d) {
  f16_tile(a, b, c, d, 0);
}

#if defined(__GFX11__)
extern "C" __global__ void wmma_f16_f16_hi(const unsigned short *a, const unsigned short *b,
                                           const unsigned short *c, unsigned short *d) {
  f16_tile(a, b, c, d, 1);
}
#endif

// v_wmma_i32_16x16x16_iu4 with A signed and B unsigned (NEG = [1, 0]); one 4-bit element per
// dword in memory (low nibble; dwords keep the packing in 32-bit operations). gfx11: lane l holds row/column l % 16, all 16 k in two dwords;
// gfx12: lane {k[3], m} (lanes 0-31, also in wave64), nibble k[2:0] of one dword.
extern "C" __global__ void wmma_i32_iu4(const unsigned *a, const unsigned *b, const int *c, int *d) {
  unsigned l = tid_x();
#if defined(__GFX11__)
  unsigned wa[2] = {0, 0}, wb[2] = {0, 0};
  for (unsigned k = 0; k < 16; k++) {
    wa[k / 8] |= (a[(l % 16) * 16 + k] & 0xFu) << (4 * (k % 8));
    wb[k / 8] |= (b[k * 16 + l % 16] & 0xFu) << (4 * (k % 8));
  }
  int2v va = {(int)wa[0], (int)wa[1]}, vb = {(int)wb[0], (int)wb[1]};
#else
  // Lanes 32-63 of a wave64 are not read; they load a copy of lanes 0-31 (no branch).
  unsigned va = 0, vb = 0;
  for (unsigned e = 0; e < 8; e++) {
    unsigned k = ((l / 16) & 1) * 8 + e;
    va |= (a[(l % 16) * 16 + k] & 0xFu) << (4 * e);
    vb |= (b[k * 16 + l % 16] & 0xFu) << (4 * e);
  }
#endif
  acci acc;
  LOAD_C(acc, c);
#if defined(__GFX11__) && defined(WAVE64)
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu4_w64(true, va, false, vb, acc, false);
#elif defined(__GFX11__)
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu4_w32(true, va, false, vb, acc, false);
#elif defined(WAVE64)
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu4_w64_gfx12(true, (int)va, false, (int)vb, acc, false);
#else
  acc = __builtin_amdgcn_wmma_i32_16x16x16_iu4_w32_gfx12(true, (int)va, false, (int)vb, acc, false);
#endif
  STORE_D(d, acc);
}

#if defined(__GFX12__)
// gfx12 only: v_wmma_f32_16x16x16_fp8_fp8 (FP8 E4M3 bytes, packed as for iu8).
extern "C" __global__ void wmma_f32_fp8(const unsigned char *a, const unsigned char *b,
                                        const float *c, float *d) {
  unsigned l = tid_x();
  unsigned char ea[NE8], eb[NE8];
  LOAD_AB(ea, eb, a, b, NE8, k8);
  unsigned wa[NE8 / 4], wb[NE8 / 4];
  for (unsigned w = 0; w < NE8 / 4; w++) {
    wa[w] = ea[4 * w] | ea[4 * w + 1] << 8 | ea[4 * w + 2] << 16 | (unsigned)ea[4 * w + 3] << 24;
    wb[w] = eb[4 * w] | eb[4 * w + 1] << 8 | eb[4 * w + 2] << 16 | (unsigned)eb[4 * w + 3] << 24;
  }
  accf acc;
  LOAD_C(acc, c);
#ifdef WAVE64
  acc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w64_gfx12((int)wa[0], (int)wb[0], acc);
#else
  int2v va = {(int)wa[0], (int)wa[1]};
  int2v vb = {(int)wb[0], (int)wb[1]};
  acc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(va, vb, acc);
#endif
  STORE_D(d, acc);
}

// gfx12 only: v_swmmac_f32_16x16x32_f16, A 2:4 sparse. `ap` is the packed A (16 x 16: the two
// kept values of every group of four k, loaded with A's 16 x 16 layout), `b` the dense 32 x 16
// B, `idx` one raw sparse-index dword per lane (index set 0). B's K = 32 layout is an inference
// (rdna.md §5.3: the 16 x 16 layout for k < 16 in the first half of the operand, k >= 16 in the
// second), not checked on hardware.
extern "C" __global__ void swmmac_f32_f16(const _Float16 *ap, const _Float16 *b,
                                          const unsigned *idx, const float *c, float *d) {
  unsigned l = tid_x();
#ifdef WAVE64
  half4 va;
  half8 vb;
#else
  half8 va;
  half16 vb;
#endif
  for (unsigned e = 0; e < NE16; e++) {
    va[e] = ap[(l % 16) * 16 + k16(l, e)];
    vb[e] = b[k16(l, e) * 16 + l % 16];
    vb[e + NE16] = b[(16 + k16(l, e)) * 16 + l % 16];
  }
  accf acc;
  LOAD_C(acc, c);
#ifdef WAVE64
  acc = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w64(va, vb, acc, (int)idx[l]);
#else
  acc = __builtin_amdgcn_swmmac_f32_16x16x32_f16_w32(va, vb, acc, (int)idx[l]);
#endif
  STORE_D(d, acc);
}
// gfx12 only: v_wmma_f32_16x16x16_fp8_bf8: A FP8 (E4M3), B BF8 (E5M2), OCP, packed as for iu8.
extern "C" __global__ void wmma_f32_fp8_bf8(const unsigned char *a, const unsigned char *b,
                                            const float *c, float *d) {
  unsigned l = tid_x();
  unsigned char ea[NE8], eb[NE8];
  LOAD_AB(ea, eb, a, b, NE8, k8);
  unsigned wa[NE8 / 4], wb[NE8 / 4];
  for (unsigned w = 0; w < NE8 / 4; w++) {
    wa[w] = ea[4 * w] | ea[4 * w + 1] << 8 | ea[4 * w + 2] << 16 | (unsigned)ea[4 * w + 3] << 24;
    wb[w] = eb[4 * w] | eb[4 * w + 1] << 8 | eb[4 * w + 2] << 16 | (unsigned)eb[4 * w + 3] << 24;
  }
  accf acc;
  LOAD_C(acc, c);
#ifdef WAVE64
  acc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_bf8_w64_gfx12((int)wa[0], (int)wb[0], acc);
#else
  int2v va = {(int)wa[0], (int)wa[1]};
  int2v vb = {(int)wb[0], (int)wb[1]};
  acc = __builtin_amdgcn_wmma_f32_16x16x16_fp8_bf8_w32_gfx12(va, vb, acc);
#endif
  STORE_D(d, acc);
}

// gfx12 only: v_swmmac_i32_16x16x32_iu8, signed A (2:4 sparse, packed 16 x 16 bytes loaded
// with A's 8-bit 16 x 16 layout: item e of lane l is packed column k8(l, e)), unsigned dense
// 32 x 16 B (k < 16 in the first dwords, k >= 16 in the next, each with the 16 x 16 layout),
// `idx` one raw index dword per lane (set 0; the index of item e at bits 2e).
extern "C" __global__ void swmmac_i32_iu8(const unsigned *ap, const unsigned *b, const unsigned *idx,
                                          const int *c, int *d) {
  unsigned l = tid_x();
  unsigned wa[NE8 / 4], wb[NE8 / 2];
  for (unsigned w = 0; w < NE8 / 4; w++) {
    wa[w] = 0;
    wb[w] = 0;
    wb[w + NE8 / 4] = 0;
  }
  for (unsigned e = 0; e < NE8; e++) {
    unsigned k = k8(l, e);
    wa[e / 4] |= (ap[(l % 16) * 16 + k] & 0xFFu) << (8 * (e % 4));
    wb[e / 4] |= (b[k * 16 + l % 16] & 0xFFu) << (8 * (e % 4));
    wb[e / 4 + NE8 / 4] |= (b[(16 + k) * 16 + l % 16] & 0xFFu) << (8 * (e % 4));
  }
  acci acc;
  LOAD_C(acc, c);
#ifdef WAVE64
  int2v vb = {(int)wb[0], (int)wb[1]};
  acc = __builtin_amdgcn_swmmac_i32_16x16x32_iu8_w64(true, (int)wa[0], false, vb, acc, (int)idx[l], false);
#else
  int2v va = {(int)wa[0], (int)wa[1]};
  int4v vb = {(int)wb[0], (int)wb[1], (int)wb[2], (int)wb[3]};
  acc = __builtin_amdgcn_swmmac_i32_16x16x32_iu8_w32(true, va, false, vb, acc, (int)idx[l], false);
#endif
  STORE_D(d, acc);
}
#endif
