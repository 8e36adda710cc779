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
        })
    }

    /// Executes the instruction on `regs` with GEMM variant `isa`. Returns `false`, having
    /// changed nothing, when `regs` is smaller than the register file the plan was made for.
    pub fn run(&self, isa: Isa, regs: &mut [[u32; 64]]) -> bool {
        if regs.len() < self.nregs {
            return false;
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
            16 => rows::<16>(k, ab, bb, cb),
            4 => rows::<4>(k, ab, bb, cb),
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

/// One block, width `N`, row-major A (`m×k`), B (`k×N`) and C (`m×N`): each row of C is
/// held in a local array across the k loop, one fused multiply-add per k in ascending
/// order (the chain of `gemm::gemm_f64`).
#[inline(always)]
fn rows<const N: usize>(k: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    for (row, arow) in c.chunks_exact_mut(N).zip(a.chunks_exact(k)) {
        let mut r = [0f64; N];
        r.copy_from_slice(row);
        for (&x, brow) in arow.iter().zip(b.chunks_exact(N)) {
            for (rj, &y) in r.iter_mut().zip(brow) {
                *rj = x.mul_add(y, *rj);
            }
        }
        row.copy_from_slice(&r);
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
