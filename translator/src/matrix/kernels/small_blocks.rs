//! The 16-block 4×4 MFMAs (`v_mfma_f32_4x4x4_16b_f16`, `_4x4x1_16b_f32`, ...) as lane-wise
//! FMA chains.
//!
//! Their layout (CDNA4 ISA 7.1.4, [`crate::matrix::layout`]) puts block `b` on lanes
//! `4b..4b+3` of every operand: A[b][i][k] is item k of lane `4b + i`, B[b][k][j] item k of
//! lane `4b + j`, C/D[b][i][j] register i of lane `4b + j`. So the output in register i,
//! lane L is `C + Σ_k A_k[4⌊L/4⌋ + i] · B_k[L]`: every A item is a 64-lane vector that one
//! in-lane shuffle (`vpermilps`, four lanes per 128 bits: exactly one block) broadcasts
//! per row, B is used as it lies, and C and D are whole registers. The general run-based
//! path moves these operands in runs of 4 lanes; here each moves as whole registers.
//!
//! Same numerics as the generic executor (`mfma.rs`): per output C, then one fused
//! multiply-add per k in ascending order, NaN written as 0x7FC00000; the operands decode
//! with the same exact moves ([`super::gather`]). Bit-identical by construction.

use super::{gather, Halves, Moves, Run, SlotRef, LANES};
use crate::matrix::gemm::Isa;
use std::cell::RefCell;

/// Rows (and columns) of a block, and blocks.
const M: usize = 4;
const BLOCKS: usize = 16;

/// A 16-block 4×4 MFMA whose operands follow the lane-block layout exactly (checked
/// against every slot by [`LaneBlocks::new`]).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct LaneBlocks {
    k: usize,
    /// A's item k, all 64 lanes, into `av[64k..64k+64]`.
    a: Vec<Run>,
    a_halves: Option<Halves>,
    /// B's item k likewise into `bv`.
    b: Vec<Run>,
    b_halves: Option<Halves>,
    /// C's first register (C[b][i][j] in register `c + i`, lane `4b + j`); `None`: constant.
    c: Option<u16>,
    /// D's first register.
    d: u16,
}

/// The `(register, shift)` field of item `kk` when every slot of `at(blk, r)` (`r` the row
/// of A or the column of B) is that field on lane `4·blk + r`.
fn field(slots: &[SlotRef], at: impl Fn(usize, usize) -> usize) -> Option<(u16, u8)> {
    let (reg, lane, shift) = *slots.get(at(0, 0))?;
    if lane != 0 {
        return None;
    }
    for blk in 0..BLOCKS {
        for r in 0..M {
            let want = (reg, (M * blk + r) as u8, shift);
            if slots.get(at(blk, r)) != Some(&want) {
                return None;
            }
        }
    }
    Some((reg, shift))
}

/// C/D's first register when every element `(blk·4 + i)·4 + j` is register `first + i`,
/// lane `4·blk + j`, and the registers lie in a file of `nregs`.
fn whole_regs(slots: &[SlotRef], nregs: usize) -> Option<u16> {
    let first = slots.first()?.0;
    let ok = slots.len() == BLOCKS * M * M
        && usize::from(first) + M <= nregs
        && slots.iter().enumerate().all(|(x, &s)| {
            let (blk, i, j) = (x / (M * M), x / M % M, x % M);
            s == (first + i as u16, (M * blk + j) as u8, 0)
        });
    ok.then_some(first)
}

impl LaneBlocks {
    /// The lane-block form of an `m×n×k` MFMA of `blocks` blocks with the slot lists of
    /// [`super::Slots`] (A of `bits_a`-bit elements, B of `bits_b`; 16-bit formats paired
    /// by halves when `halves_a`/`halves_b`), over `nregs` registers. `None` unless the
    /// shape is 16 blocks of 4×4 and every slot is where the lane-block layout puts it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        [m, n, k, blocks]: [usize; 4],
        slots: &super::Slots,
        nregs: usize,
        halves_a: bool,
        halves_b: bool,
    ) -> Option<LaneBlocks> {
        if m != M || n != M || blocks != BLOCKS || k == 0 || k > 16 || slots.sparse_a.is_some() {
            return None;
        }
        if slots.a.len() != BLOCKS * M * k || slots.b.len() != BLOCKS * k * M {
            return None;
        }
        let mut a = Vec::with_capacity(k);
        let mut b = Vec::with_capacity(k);
        for kk in 0..k {
            let (ra, sa) = field(slots.a, |blk, i| (blk * M + i) * k + kk)?;
            let (rb, sb) = field(slots.b, |blk, j| (blk * k + kk) * M + j)?;
            let run = |reg, shift| Run {
                reg,
                shift,
                lane0: 0,
                len: LANES as u8,
                out0: (kk * LANES) as u32,
                stride: 1,
            };
            a.push(run(ra, sa));
            b.push(run(rb, sb));
        }
        let size = k * LANES;
        if !(super::in_range(&a, nregs, size) && super::in_range(&b, nregs, size)) {
            return None;
        }
        let c = match slots.c {
            Some(c) => Some(whole_regs(c, nregs)?),
            None => None,
        };
        let d = whole_regs(slots.d, nregs)?;
        Some(LaneBlocks {
            k,
            a_halves: halves_a.then(|| Halves::new(&a)),
            b_halves: halves_b.then(|| Halves::new(&b)),
            a,
            b,
            c,
            d,
        })
    }

    /// Executes the instruction on `regs` (at least the plan's register file): A and B
    /// decoded by `ta`/`tb` with the moves `mv`, C from its registers or `c_imm` (f32
    /// bits), the FMA chains for GEMM variant `isa`.
    pub(super) fn run(
        &self,
        isa: Isa,
        mv: Moves,
        regs: &mut [[u32; 64]],
        (ta, tb): (super::Decode, super::Decode),
        c_imm: u32,
    ) {
        BUF.with(|cell| {
            let mut s = cell.borrow_mut();
            let (av, bv) = &mut *s;
            av.resize(self.k * LANES, 0.0);
            bv.resize(self.k * LANES, 0.0);
            gather(mv, &self.a, self.a_halves.as_ref(), regs, ta, av);
            gather(mv, &self.b, self.b_halves.as_ref(), regs, tb, bv);
            chains(isa, self.k, av, bv, regs, self.c, c_imm, self.d);
        })
    }
}

thread_local! {
    /// Decoded A and B items (no allocation per instruction).
    static BUF: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
}

/// `D_i[L] = C_i[L]`, then `D_i[L] = fma(av[k][4⌊L/4⌋ + i], bv[k][L], D_i[L])` for k
/// ascending, written to registers `d + i` with NaN as 0x7FC00000; C from registers
/// `c + i` (all read before D is written) or the f32 bits `c_imm`; with the variant `isa`
/// (`av`, `bv`: `k` items of 64 lanes; the registers checked by [`LaneBlocks::new`]).
#[allow(clippy::too_many_arguments)]
fn chains(
    isa: Isa,
    k: usize,
    av: &[f32],
    bv: &[f32],
    regs: &mut [[u32; 64]],
    c: Option<u16>,
    c_imm: u32,
    d: u16,
) {
    let (av, bv) = (&av[..k * LANES], &bv[..k * LANES]);
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above); `av` and `bv` are
            // exactly `k` items of 64 lanes.
            unsafe { chains_avx512(k, av, bv, regs, c, c_imm, d) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma") =>
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above); lengths as above.
            unsafe { chains_avx2(k, av, bv, regs, c, c_imm, d) }
        }
        _ => {
            let mut acc = load_c(regs, c, c_imm);
            for (i, row) in acc.iter_mut().enumerate() {
                for kk in 0..k {
                    let (a, b) = (&av[kk * LANES..][..LANES], &bv[kk * LANES..][..LANES]);
                    for (l, o) in row.iter_mut().enumerate() {
                        *o = a[(l & !3) + i].mul_add(b[l], *o);
                    }
                }
            }
            store_d(&acc, regs, d);
        }
    }
}

/// C's four registers as f32 (or the constant `c_imm` everywhere).
#[inline(always)]
fn load_c(regs: &[[u32; 64]], c: Option<u16>, c_imm: u32) -> [[f32; LANES]; M] {
    let mut acc = [[f32::from_bits(c_imm); LANES]; M];
    if let Some(c) = c {
        for (row, src) in acc.iter_mut().zip(&regs[usize::from(c)..][..M]) {
            for (o, &w) in row.iter_mut().zip(src) {
                *o = f32::from_bits(w);
            }
        }
    }
    acc
}

/// Writes the four D registers from `acc`, NaN as 0x7FC00000.
#[inline(always)]
fn store_d(acc: &[[f32; LANES]; M], regs: &mut [[u32; 64]], d: u16) {
    for (row, dst) in acc.iter().zip(&mut regs[usize::from(d)..][..M]) {
        for (w, &v) in dst.iter_mut().zip(row) {
            *w = if v.is_nan() { 0x7FC0_0000 } else { v.to_bits() };
        }
    }
}

/// [`chains`] with AVX-512F: the 16 accumulators (4 rows × 64 lanes) stay in vector
/// registers; 16 lanes (four blocks) per vector, `vpermilps` broadcasting row i of each
/// block's A.
///
/// # Safety
/// The CPU supports AVX-512F; `av.len() == bv.len() == 64·k`; the C and D registers exist.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn chains_avx512(
    k: usize,
    av: &[f32],
    bv: &[f32],
    regs: &mut [[u32; 64]],
    c: Option<u16>,
    c_imm: u32,
    d: u16,
) {
    use std::arch::x86_64::*;
    let mut s = [[_mm512_set1_ps(f32::from_bits(c_imm)); 4]; M];
    if let Some(c) = c {
        for (i, si) in s.iter_mut().enumerate() {
            let src = &regs[usize::from(c) + i];
            for (x, v) in si.iter_mut().enumerate() {
                // SAFETY: 16 words at `16·x < 64` of one register.
                *v = unsafe {
                    _mm512_castsi512_ps(_mm512_loadu_si512(src[16 * x..].as_ptr().cast()))
                };
            }
        }
    }
    for kk in 0..k {
        for x in 0..4 {
            // SAFETY: 16 elements at `64·kk + 16·x < 64·k` of `av` and `bv` (the contract).
            let (a, b) = unsafe {
                (
                    _mm512_loadu_ps(av.as_ptr().add(kk * LANES + 16 * x)),
                    _mm512_loadu_ps(bv.as_ptr().add(kk * LANES + 16 * x)),
                )
            };
            // Row i of each block: element i of every 128-bit lane.
            let [s0, s1, s2, s3] = &mut s;
            s0[x] = _mm512_fmadd_ps(_mm512_permute_ps::<0x00>(a), b, s0[x]);
            s1[x] = _mm512_fmadd_ps(_mm512_permute_ps::<0x55>(a), b, s1[x]);
            s2[x] = _mm512_fmadd_ps(_mm512_permute_ps::<0xAA>(a), b, s2[x]);
            s3[x] = _mm512_fmadd_ps(_mm512_permute_ps::<0xFF>(a), b, s3[x]);
        }
    }
    let canon = _mm512_set1_epi32(0x7FC0_0000);
    for (i, si) in s.iter().enumerate() {
        let dst = &mut regs[usize::from(d) + i];
        for (x, &v) in si.iter().enumerate() {
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(v, v);
            let w = _mm512_mask_mov_epi32(_mm512_castps_si512(v), nan, canon);
            // SAFETY: 16 words at `16·x < 64` of one register.
            unsafe { _mm512_storeu_si512(dst[16 * x..].as_mut_ptr().cast(), w) };
        }
    }
}

/// [`chains`] with AVX2 and FMA: 8 lanes (two blocks) per vector, C and D through a
/// stack copy.
///
/// # Safety
/// The CPU supports AVX2 and FMA; `av.len() == bv.len() == 64·k`; the C and D registers
/// exist.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn chains_avx2(
    k: usize,
    av: &[f32],
    bv: &[f32],
    regs: &mut [[u32; 64]],
    c: Option<u16>,
    c_imm: u32,
    d: u16,
) {
    use std::arch::x86_64::*;
    let mut acc = load_c(regs, c, c_imm);
    for x in 0..LANES / 8 {
        // SAFETY: 8 elements at `8·x < 64` of each row.
        let mut s = unsafe {
            [
                _mm256_loadu_ps(acc[0][8 * x..].as_ptr()),
                _mm256_loadu_ps(acc[1][8 * x..].as_ptr()),
                _mm256_loadu_ps(acc[2][8 * x..].as_ptr()),
                _mm256_loadu_ps(acc[3][8 * x..].as_ptr()),
            ]
        };
        for kk in 0..k {
            // SAFETY: 8 elements at `64·kk + 8·x < 64·k` of `av` and `bv` (the contract).
            let (a, b) = unsafe {
                (
                    _mm256_loadu_ps(av.as_ptr().add(kk * LANES + 8 * x)),
                    _mm256_loadu_ps(bv.as_ptr().add(kk * LANES + 8 * x)),
                )
            };
            s[0] = _mm256_fmadd_ps(_mm256_permute_ps::<0x00>(a), b, s[0]);
            s[1] = _mm256_fmadd_ps(_mm256_permute_ps::<0x55>(a), b, s[1]);
            s[2] = _mm256_fmadd_ps(_mm256_permute_ps::<0xAA>(a), b, s[2]);
            s[3] = _mm256_fmadd_ps(_mm256_permute_ps::<0xFF>(a), b, s[3]);
        }
        for (row, v) in acc.iter_mut().zip(s) {
            // SAFETY: 8 elements at `8·x < 64` of one row.
            unsafe { _mm256_storeu_ps(row[8 * x..].as_mut_ptr(), v) };
        }
    }
    store_d(&acc, regs, d);
}
