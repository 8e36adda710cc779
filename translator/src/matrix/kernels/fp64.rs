//! The fast path of the f64 MFMAs (`v_mfma_f64_16x16x4_f64`, `v_mfma_f64_4x4x4_4b_f64`).
//!
//! Numerics (CDNA4 ISA 7.1, `mfma.rs`): every output starts at C and takes one fused
//! multiply-add per k in ascending order (`acc = fma(A[i][k], B[k][j], acc)`, rounded to
//! nearest even, denormals kept); BLGP bits 0/1/2 negate A/B/C; a NaN result is the
//! canonical 0x7FF8000000000000. The generic executor computes exactly this with
//! [`gemm_f64`] on operands it gathers one 64-bit slot at a time; here the operands move as
//! runs of lanes (the low and high halves of a register pair combined a run at a time) and
//! the same chain runs with each C row held in host registers across the k loop, so the
//! two paths are bit-identical (each step is one correctly rounded FMA whichever code
//! computes it). The
//! negations flip the sign bit, which equals the generic executor's multiplication by −1
//! on every value but a NaN, whose result is the canonical NaN either way.

use super::{compress, in_range, Run, SlotRef, LANES};
use crate::matrix::gemm::Isa;
use std::cell::RefCell;

/// The slot lists of an f64 MFMA in the generic plan's orders (the low register of each
/// pair).
pub struct Slots64<'a> {
    /// A in `(blk·M + i)·K + k` order.
    pub a: &'a [SlotRef],
    /// B in `(blk·K + k)·N + j` order.
    pub b: &'a [SlotRef],
    /// C in `(blk·M + i)·N + j` order (`None`: constant C).
    pub c: Option<&'a [SlotRef]>,
    /// D in the same order as C.
    pub d: &'a [SlotRef],
}

/// An f64 MFMA prepared for the fast path.
#[derive(Clone, Debug, PartialEq)]
pub struct FastF64 {
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    nregs: usize,
    /// A into row-major blocks `(blk·M + i)·K + k` (as the generic executor's).
    a: Moves64,
    b: Moves64,
    /// C (`None`: every element is `c_imm`).
    c: Option<Moves64>,
    c_imm: u64,
    d: Moves64,
    /// Sign masks XORed into A, B and C (BLGP negation).
    sign: [u64; 3],
    /// `v_mfma_f64_4x4x4_4b_f64`'s lane layout ([`Lanes4`]), when the slots follow it.
    lanes4: Option<Lanes4>,
}

/// The first register pairs of A, B, C (`None`: constant) and D of a
/// `v_mfma_f64_4x4x4_4b_f64` whose every element sits where its layout puts it: A[b][i][k]
/// on lane `i + 4b + 16k`, B[b][k][j] on lane `j + 4b + 16k` (ISA 7.1.4, one pair each),
/// C/D[b][i][j] on lane `j + 4b + 16i` (the Matrix Instruction Calculator's layout,
/// `layout::cd_loc`). Output lane `L = 16i + 4b + j` then needs, per k, B's lane
/// `16k + (L mod 16)` (B's 16-lane group k as it lies) and A's lane `16k + 4b + i` (group k
/// with each 4-lane block's element i broadcast: `vpermpd` within 256 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lanes4 {
    a: u16,
    b: u16,
    c: Option<u16>,
    d: u16,
}

impl Lanes4 {
    /// The layout check over every slot (shape 4×4×4, 4 blocks).
    fn new(shape: [usize; 4], slots: &Slots64, nregs: usize) -> Option<Lanes4> {
        if shape != [4, 4, 4, 4] {
            return None;
        }
        // `at(x)`: the lane of logical position x; every slot on the operand's first pair.
        let check = |v: &[SlotRef], at: &dyn Fn(usize) -> usize| -> Option<u16> {
            let reg = v.first()?.0;
            let ok = v.len() == 64
                && usize::from(reg) + 1 < nregs
                && v.iter()
                    .enumerate()
                    .all(|(x, &s)| s == (reg, at(x) as u8, 0));
            ok.then_some(reg)
        };
        // A: x = (b·4 + i)·4 + k; B: x = (b·4 + k)·4 + j; C/D: x = (b·4 + i)·4 + j.
        let a = check(slots.a, &|x| (x >> 2 & 3) + 4 * (x >> 4) + 16 * (x & 3))?;
        let b = check(slots.b, &|x| (x & 3) + 4 * (x >> 4) + 16 * (x >> 2 & 3))?;
        let cd = |x: usize| (x & 3) + 4 * (x >> 4) + 16 * (x >> 2 & 3);
        let c = match slots.c {
            Some(c) => Some(check(c, &cd)?),
            None => None,
        };
        let d = check(slots.d, &cd)?;
        Some(Lanes4 { a, b, c, d })
    }
}

impl FastF64 {
    /// Prepares an `m×n×k` f64 MFMA of `blocks` blocks over `nregs` registers: `c_imm` is a
    /// constant C's bits, `neg` the BLGP negation bits (0: A, 1: B, 2: C). `None` when an
    /// operand does not fit (then the generic executor runs).
    pub fn new(
        [m, n, k, blocks]: [usize; 4],
        slots: &Slots64,
        c_imm: u64,
        neg: u8,
        nregs: usize,
    ) -> Option<FastF64> {
        let (sa, sb, sc) = (blocks * m * k, blocks * k * n, blocks * m * n);
        if m == 0 || n == 0 || k == 0 || blocks == 0 || nregs < 2 {
            return None;
        }
        if slots.a.len() != sa
            || slots.b.len() != sb
            || slots.d.len() != sc
            || slots.c.is_some_and(|c| c.len() != sc)
        {
            return None;
        }
        // Whole 64-bit elements: shift 0 and the high register inside the file too.
        let moves = |v: &[SlotRef]| -> Option<Moves64> {
            let mut p: Vec<(SlotRef, u32)> =
                v.iter().enumerate().map(|(x, &s)| (s, x as u32)).collect();
            let runs = compress(&mut p);
            if !(runs.iter().all(|x| x.shift == 0) && in_range(&runs, nregs - 1, v.len())) {
                return None;
            }
            // Runs shorter than 8 lanes on average: per-element indices are cheaper.
            Some(if runs.len() * 8 > v.len() {
                Moves64::Index(
                    v.iter()
                        .map(|&(reg, lane, _)| u32::from(reg) * LANES as u32 + u32::from(lane))
                        .collect(),
                )
            } else {
                Moves64::Runs(runs)
            })
        };
        let (a, b, d) = (moves(slots.a)?, moves(slots.b)?, moves(slots.d)?);
        let c = match slots.c {
            Some(c) => Some(moves(c)?),
            None => None,
        };
        let bit = |b: u8| if neg & b != 0 { 1u64 << 63 } else { 0 };
        let lanes4 = Lanes4::new([m, n, k, blocks], slots, nregs);
        Some(FastF64 {
            m,
            n,
            k,
            blocks,
            nregs,
            a,
            b,
            c,
            c_imm,
            d,
            sign: [bit(1), bit(2), bit(4)],
            lanes4,
        })
    }

    /// Whether the `v_mfma_f64_4x4x4_4b_f64` lane kernel runs (with AVX-512F).
    pub fn has_lanes4(&self) -> bool {
        self.lanes4.is_some()
    }

    /// Executes the instruction on `regs` with GEMM variant `isa`. Returns `false`, having
    /// changed nothing, when `regs` is smaller than the register file the plan was made for.
    pub fn run(&self, isa: Isa, regs: &mut [[u32; 64]]) -> bool {
        if regs.len() < self.nregs {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(l4) = &self.lanes4 {
            if isa == Isa::Avx512 && std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU supports AVX-512F (checked just above); `Lanes4::new`
                // checked the register pairs against `nregs <= regs.len()`.
                unsafe { lanes4_avx512(l4, self.sign, self.c_imm, regs) };
                return true;
            }
        }
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let (a, b, acc) = &mut *s;
            a.resize(self.blocks * self.m * self.k, 0.0);
            b.resize(self.blocks * self.k * self.n, 0.0);
            acc.resize(self.blocks * self.m * self.n, 0.0);
            match isa {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
                    // SAFETY: the CPU supports AVX-512F (checked just above), the only
                    // requirement; the body is safe Rust.
                    unsafe { run_avx512(self, regs, a, b, acc) }
                }
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2
                    if std::arch::is_x86_feature_detected!("avx2")
                        && std::arch::is_x86_feature_detected!("fma") =>
                {
                    // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                    unsafe { run_avx2(self, regs, a, b, acc) }
                }
                _ => run_body(self, regs, a, b, acc),
            }
            true
        })
    }
}

/// How one operand moves: as runs of lanes, or (when its runs are short, as in
/// `v_mfma_f64_4x4x4_4b_f64`, whose runs are 4 lanes) one flattened register-file index
/// (`reg·64 + lane`, the low word) per logical position.
#[derive(Clone, Debug, PartialEq)]
enum Moves64 {
    Runs(Vec<Run>),
    Index(Vec<u32>),
}

thread_local! {
    /// A, B and the accumulator (no allocation per instruction).
    static SCRATCH: RefCell<(Vec<f64>, Vec<f64>, Vec<f64>)> =
        const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// The body of [`FastF64::run`] (`a`, `b`, `acc` sized from the shape): gather, the GEMM
/// of every block, scatter.
#[inline(always)]
fn run_body(f: &FastF64, regs: &mut [[u32; 64]], a: &mut [f64], b: &mut [f64], acc: &mut [f64]) {
    let (m, n, k) = (f.m, f.n, f.k);
    let [sa, sb, sc] = f.sign;
    gather64(&f.a, regs, sa, a);
    gather64(&f.b, regs, sb, b);
    match &f.c {
        Some(c) => gather64(c, regs, sc, acc),
        None => acc.fill(f64::from_bits(f.c_imm ^ sc)),
    }
    for blk in 0..f.blocks {
        let (ab, bb) = (
            &a[blk * m * k..(blk + 1) * m * k],
            &b[blk * k * n..(blk + 1) * k * n],
        );
        let cb = &mut acc[blk * m * n..(blk + 1) * m * n];
        match n {
            16 if m % 4 == 0 => rows::<16>(k, ab, bb, cb),
            4 if m % 4 == 0 => rows::<4>(k, ab, bb, cb),
            _ => rows_any(n, k, ab, bb, cb),
        }
    }
    scatter64(&f.d, acc, regs);
}

/// [`run_body`] compiled for AVX-512F (the moves and the GEMM vectorise 8 lanes wide).
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn run_avx512(
    f: &FastF64,
    regs: &mut [[u32; 64]],
    a: &mut [f64],
    b: &mut [f64],
    acc: &mut [f64],
) {
    run_body(f, regs, a, b, acc)
}

/// [`run_body`] compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU supports AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn run_avx2(
    f: &FastF64,
    regs: &mut [[u32; 64]],
    a: &mut [f64],
    b: &mut [f64],
    acc: &mut [f64],
) {
    run_body(f, regs, a, b, acc)
}

/// `v_mfma_f64_4x4x4_4b_f64` with AVX-512F ([`Lanes4`]): the 64 lanes of A, B and C as
/// eight vectors of 8 f64 each, then per output vector (rows i, half h) the chain
/// `acc = C; acc = fma(A_k broadcast, B_k, acc)` for k = 0..3 in order (the generic
/// executor's chain), NaN written as 0x7FF8000000000000.
///
/// # Safety
/// The CPU supports AVX-512F; the pairs `l.a`, `l.b`, `l.c`, `l.d` (and the next register
/// of each) exist in `regs`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn lanes4_avx512(l: &Lanes4, sign: [u64; 3], c_imm: u64, regs: &mut [[u32; 64]]) {
    use std::arch::x86_64::*;
    // Lanes 8x..8x+8 of the pair at `r` as f64, sign bits XORed with `s`.
    let load = |regs: &[[u32; 64]], r: u16, x: usize, s: u64| -> __m512d {
        let (lo, hi) = (
            &regs[usize::from(r)][8 * x..][..8],
            &regs[usize::from(r) + 1][8 * x..][..8],
        );
        // SAFETY: `lo` and `hi` are 8 words (32 bytes) each.
        let (lo, hi) = unsafe {
            (
                _mm256_loadu_si256(lo.as_ptr().cast()),
                _mm256_loadu_si256(hi.as_ptr().cast()),
            )
        };
        let w = _mm512_or_si512(
            _mm512_cvtepu32_epi64(lo),
            _mm512_slli_epi64::<32>(_mm512_cvtepu32_epi64(hi)),
        );
        _mm512_castsi512_pd(_mm512_xor_si512(w, _mm512_set1_epi64(s as i64)))
    };
    let [sa, sb, sc] = sign;
    let a: [__m512d; 8] = core::array::from_fn(|x| load(regs, l.a, x, sa));
    let b: [__m512d; 8] = core::array::from_fn(|x| load(regs, l.b, x, sb));
    let c: [__m512d; 8] = match l.c {
        Some(r) => core::array::from_fn(|x| load(regs, r, x, sc)),
        None => [_mm512_castsi512_pd(_mm512_set1_epi64((c_imm ^ sc) as i64)); 8],
    };
    // Output vector 2i + h holds lanes 16i + 8h..: blocks 2h, 2h+1, row i. A's vector
    // 2k + h holds blocks 2h, 2h+1 of group k; element i of each 4-lane block is row i.
    let mut d = [_mm512_setzero_pd(); 8];
    for (x, dx) in d.iter_mut().enumerate() {
        let (i, h) = (x / 2, x % 2);
        let mut acc = c[x];
        for kk in 0..4 {
            let av = a[2 * kk + h];
            let ab = match i {
                0 => _mm512_permutex_pd::<0x00>(av),
                1 => _mm512_permutex_pd::<0x55>(av),
                2 => _mm512_permutex_pd::<0xAA>(av),
                _ => _mm512_permutex_pd::<0xFF>(av),
            };
            acc = _mm512_fmadd_pd(ab, b[2 * kk + h], acc);
        }
        *dx = acc;
    }
    let canon = _mm512_set1_epi64(0x7FF8_0000_0000_0000);
    let r = usize::from(l.d);
    for (x, &v) in d.iter().enumerate() {
        let nan = _mm512_cmp_pd_mask::<_CMP_UNORD_Q>(v, v);
        let w = _mm512_mask_mov_epi64(_mm512_castpd_si512(v), nan, canon);
        let (lo, hi) = (
            _mm512_cvtepi64_epi32(w),
            _mm512_cvtepi64_epi32(_mm512_srli_epi64::<32>(w)),
        );
        // SAFETY: 8 words (32 bytes) at lane 8x of each register of the pair.
        unsafe {
            _mm256_storeu_si256(regs[r][8 * x..][..8].as_mut_ptr().cast(), lo);
            _mm256_storeu_si256(regs[r + 1][8 * x..][..8].as_mut_ptr().cast(), hi);
        }
    }
}

/// One block, width `N`, row-major A (`m×k`), B (`k×N`) and C (`m×N`): rows of C are held
/// in local arrays across the k loop, four rows at a time so that eight or more independent
/// FMA chains are in flight, each output taking one fused multiply-add per k in ascending
/// order (the chain of `gemm::gemm_f64`). M must be a multiple of 4.
#[inline(always)]
fn rows<const N: usize>(k: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    for (rows4, arows) in c.chunks_exact_mut(4 * N).zip(a.chunks_exact(4 * k)) {
        let mut r = [[0f64; N]; 4];
        for (ri, row) in r.iter_mut().zip(rows4.chunks_exact(N)) {
            ri.copy_from_slice(row);
        }
        for (kk, brow) in b.chunks_exact(N).take(k).enumerate() {
            for (ri, arow) in r.iter_mut().zip(arows.chunks_exact(k)) {
                let x = arow[kk];
                for (rj, &y) in ri.iter_mut().zip(brow) {
                    *rj = x.mul_add(y, *rj);
                }
            }
        }
        for (ri, row) in r.iter().zip(rows4.chunks_exact_mut(N)) {
            row.copy_from_slice(ri);
        }
    }
}

/// [`rows`] for any width.
#[inline(always)]
fn rows_any(n: usize, k: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    for (row, arow) in c.chunks_exact_mut(n).zip(a.chunks_exact(k)) {
        for (&x, brow) in arow.iter().zip(b.chunks_exact(n)) {
            for (rj, &y) in row.iter_mut().zip(brow) {
                *rj = x.mul_add(y, *rj);
            }
        }
    }
}

/// Reads the f64 elements of `mv` (low word in the run's register, high word in the
/// next) into `out`, their sign bits XORed with `sign`.
#[inline(always)]
fn gather64(mv: &Moves64, regs: &[[u32; 64]], sign: u64, out: &mut [f64]) {
    let runs = match mv {
        Moves64::Runs(r) => r,
        Moves64::Index(idx) => {
            let flat = regs.as_flattened();
            for (o, &ix) in out.iter_mut().zip(idx) {
                let ix = ix as usize;
                let w = u64::from(flat[ix + LANES]) << 32 | u64::from(flat[ix]);
                *o = f64::from_bits(w ^ sign);
            }
            return;
        }
    };
    for r in runs {
        let l = usize::from(r.lane0)..usize::from(r.lane0) + usize::from(r.len);
        let lo = &regs[usize::from(r.reg)][l.clone()];
        let hi = &regs[usize::from(r.reg) + 1][l];
        let get =
            |(&lo, &hi): (&u32, &u32)| f64::from_bits((u64::from(hi) << 32 | u64::from(lo)) ^ sign);
        let o0 = r.out0 as usize;
        if r.stride == 1 {
            for (o, w) in out[o0..o0 + lo.len()].iter_mut().zip(lo.iter().zip(hi)) {
                *o = get(w);
            }
        } else {
            let st = r.stride as usize;
            for (x, w) in lo.iter().zip(hi).enumerate() {
                out[o0 + x * st] = get(w);
            }
        }
    }
}

/// Writes `acc` to the register pairs of `mv`, NaN as the canonical 0x7FF8000000000000.
#[inline(always)]
fn scatter64(mv: &Moves64, acc: &[f64], regs: &mut [[u32; 64]]) {
    let bits = |v: f64| {
        if v.is_nan() {
            0x7FF8_0000_0000_0000
        } else {
            v.to_bits()
        }
    };
    let runs = match mv {
        Moves64::Runs(r) => r,
        Moves64::Index(idx) => {
            let flat = regs.as_flattened_mut();
            for (&v, &ix) in acc.iter().zip(idx) {
                let (ix, b) = (ix as usize, bits(v));
                flat[ix] = b as u32;
                flat[ix + LANES] = (b >> 32) as u32;
            }
            return;
        }
    };
    for r in runs {
        let l = usize::from(r.lane0)..usize::from(r.lane0) + usize::from(r.len);
        let (o0, st) = (r.out0 as usize, r.stride as usize);
        let reg = usize::from(r.reg);
        let (first, rest) = regs.split_at_mut(reg + 1);
        let (lo, hi) = (&mut first[reg][l.clone()], &mut rest[0][l]);
        if st == 1 {
            for ((wl, wh), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(&acc[o0..]) {
                let b = bits(v);
                *wl = b as u32;
                *wh = (b >> 32) as u32;
            }
        } else {
            for (x, (wl, wh)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                let b = bits(acc[o0 + x * st]);
                *wl = b as u32;
                *wh = (b >> 32) as u32;
            }
        }
    }
}
