//! The i8 MFMA microkernel on AVX-512 VNNI (`vpdpbusd`): `D = A·B` per block with every
//! product and sum in exact i32 arithmetic, so the result equals any other summation order.
//!
//! The i8 MFMA layouts (CDNA4 ISA 7.1.4) keep four consecutive k of one row of A, or of one
//! column of B, in the four bytes of one register dword. [`Quads`] finds those dwords when
//! the plan is made, so an instruction moves whole dwords from the register file into the
//! kernel's layout: A row-major by quads (`aq[i·K4 + q]`), B by quads per column
//! (`bq[q·N + j]`), no byte shuffling.
//!
//! `vpdpbusd` multiplies unsigned bytes of its first source by signed bytes of its second and
//! adds each group of four products to an i32 lane. A is signed, so the kernel feeds
//! `a + 128` (each byte's top bit flipped) and subtracts `128 · Σk B[k][j]`, itself one
//! `vpdpbusd` of the bytes `0x80` with B. With |A|, |B| ≤ 128 and K ≤ 64 every partial sum
//! stays below 2^22 in magnitude: no i32 lane can wrap.
//!
//! i8 SMFMACs use the same kernel ([`Quads::with_sparse_a`]): a 4:2 group of the sparse A
//! covers four consecutive k of one row, so it expands straight into one A quad.
//!
//! Without VNNI, or for a layout without whole quads, the caller keeps the f32 GEMM, which
//! is exact for these operands too.

use super::super::gemm::Isa;
use super::{Run, LANES};

/// Whether [`gemm_quads`] can run for GEMM variant `isa`: the AVX-512 variant on a host with
/// AVX-512 VNNI.
pub fn vnni(isa: Isa) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        isa == Isa::Avx512
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        false
    }
}

/// Lanes `lane0..lane0+len` of register `reg` (whole dwords) go to quads `t0, t0+step, …`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Move {
    reg: u16,
    lane0: u8,
    len: u8,
    t0: u32,
    step: u32,
}

/// Where each quad of A and B lives in the register file, for one i8 MFMA.
#[derive(Clone, Debug, PartialEq)]
pub struct Quads {
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    a: Vec<Move>,
    b: Vec<Move>,
    /// A is a sparse A, its quads built by [`super::sparse::SparsePairs::quads`] (`a` is
    /// then empty).
    sparse_a: bool,
}

impl Quads {
    /// The quads of an `m×n×k` MFMA of `blocks` blocks whose byte runs are `a` (positions
    /// `(blk·K + k)·M + i`) and `b` (`(blk·K + k)·N + j`), or `None` when K is not a
    /// multiple of four, exceeds 64 (the no-overflow bound), or some quad is not one dword.
    pub(super) fn new([m, n, k, blocks]: [usize; 4], a: &[Run], b: &[Run]) -> Option<Quads> {
        if k == 0 || !k.is_multiple_of(4) || k > 64 || m == 0 || n == 0 {
            return None;
        }
        let k4 = k / 4;
        // Quad index of A element (blk, kk, i) in the row-major layout, per block.
        let qa = |p: usize| {
            let (blk, r) = (p / (m * k), p % (m * k));
            let (kk, i) = (r / m, r % m);
            (kk % 4, blk * m * k4 + i * k4 + kk / 4)
        };
        let qb = |p: usize| {
            let (blk, r) = (p / (k * n), p % (k * n));
            let (kk, j) = (r / n, r % n);
            (kk % 4, blk * k4 * n + (kk / 4) * n + j)
        };
        Some(Quads {
            m,
            n,
            k,
            blocks,
            a: moves(a, qa, blocks * m * k4)?,
            b: moves(b, qb, blocks * k4 * n)?,
            sparse_a: false,
        })
    }

    /// The B quads of a one-block `m×n×k` SMFMAC whose dense A the caller expands into quads
    /// itself (each 4:2 group of A is one quad: [`super::sparse::SparsePairs::quads`]).
    /// `None` as for [`Quads::new`], with K up to 128: `|Σ (a+128)·b| ≤ 255·128·128 < 2^22`,
    /// so no i32 lane can wrap.
    pub(super) fn with_sparse_a([m, n, k]: [usize; 3], b: &[Run]) -> Option<Quads> {
        if k == 0 || !k.is_multiple_of(4) || k > 128 || m == 0 || n == 0 {
            return None;
        }
        let k4 = k / 4;
        let qb = |p: usize| {
            let (kk, j) = (p / n, p % n);
            (kk % 4, (kk / 4) * n + j)
        };
        Some(Quads {
            m,
            n,
            k,
            blocks: 1,
            a: Vec::new(),
            b: moves(b, qb, k4 * n)?,
            sparse_a: true,
        })
    }

    /// Copies the quads out of `regs` into `aq` (bytes flipped to `a + 128`) and `bq`.
    fn gather(&self, regs: &[[u32; 64]], aq: &mut Vec<u32>, bq: &mut Vec<u32>) {
        let k4 = self.k / 4;
        aq.resize(self.blocks * self.m * k4, 0);
        bq.resize(self.blocks * k4 * self.n, 0);
        copy(&self.a, regs, aq, 0x8080_8080);
        copy(&self.b, regs, bq, 0);
    }
}

/// The dword moves of one operand: every byte run must be byte `e` of its dword for element
/// `k ≡ e (mod 4)` of the same quad, and every quad filled exactly once. `quad(p)` gives a
/// position's byte index within its quad and the quad's index (below `quads`).
fn moves(runs: &[Run], quad: impl Fn(usize) -> (usize, usize), quads: usize) -> Option<Vec<Move>> {
    // Per quad: the (register, lane) holding it, and which of its four bytes were seen.
    let mut at: Vec<Option<(u16, u8)>> = vec![None; quads];
    let mut seen = vec![0u8; quads];
    for r in runs {
        for x in 0..usize::from(r.len) {
            let (e, q) = quad(r.out0 as usize + x * r.stride as usize);
            let slot = (r.reg, r.lane0 + x as u8);
            if usize::from(r.shift) != 8 * e || q >= quads || at[q].is_some_and(|s| s != slot) {
                return None;
            }
            at[q] = Some(slot);
            seen[q] |= 1 << e;
        }
    }
    if seen.iter().any(|&s| s != 0xF) {
        return None;
    }
    // Compress quad order into lane runs (consecutive lanes of one register, equal steps).
    let mut slots: Vec<((u16, u8), u32)> = at
        .iter()
        .enumerate()
        .map(|(q, s)| s.map(|s| (s, q as u32)))
        .collect::<Option<_>>()?;
    slots.sort_unstable();
    let mut out: Vec<Move> = Vec::new();
    for ((reg, lane), t) in slots {
        if let Some(mv) = out.last_mut() {
            let next = mv.reg == reg
                && u32::from(mv.lane0) + u32::from(mv.len) == u32::from(lane)
                && usize::from(mv.len) < LANES;
            let last = mv.t0 + mv.step * (u32::from(mv.len) - 1);
            if next && t > last && (mv.len == 1 || t - last == mv.step) {
                if mv.len == 1 {
                    mv.step = t - last;
                }
                mv.len += 1;
                continue;
            }
        }
        out.push(Move {
            reg,
            lane0: lane,
            len: 1,
            t0: t,
            step: 1,
        });
    }
    Some(out)
}

/// Copies the dwords of `moves` into `out`, XORed with `flip`.
fn copy(moves: &[Move], regs: &[[u32; 64]], out: &mut [u32], flip: u32) {
    for mv in moves {
        let lanes = &regs[usize::from(mv.reg)][usize::from(mv.lane0)..][..usize::from(mv.len)];
        if mv.step == 1 {
            let dst = &mut out[mv.t0 as usize..][..lanes.len()];
            for (d, &w) in dst.iter_mut().zip(lanes) {
                *d = w ^ flip;
            }
        } else {
            for (x, &w) in lanes.iter().enumerate() {
                out[mv.t0 as usize + x * mv.step as usize] = w ^ flip;
            }
        }
    }
}

/// Runs the instruction's `A·B` with VNNI into `out` (`(blk·M + i)·N + j`), the quads moved
/// through `aq`/`bq`. Returns `false`, doing nothing, without VNNI or when `regs` or `out` is
/// too small for the plan.
pub fn gemm_quads(
    isa: Isa,
    q: &Quads,
    regs: &[[u32; 64]],
    aq: &mut Vec<u32>,
    bq: &mut Vec<u32>,
    out: &mut [i32],
) -> bool {
    let max_reg = q.a.iter().chain(&q.b).map(|mv| usize::from(mv.reg)).max();
    if q.sparse_a
        || !vnni(isa)
        || max_reg.is_some_and(|r| r >= regs.len())
        || out.len() < q.blocks * q.m * q.n
    {
        return false;
    }
    q.gather(regs, aq, bq);
    multiply(isa, q, aq, bq, out);
    true
}

/// [`gemm_quads`] for a sparse A ([`Quads::with_sparse_a`]): its quads come from `pairs`.
/// Returns `false`, doing nothing, without VNNI, for another kind of plan, or when `regs`
/// or `out` is too small for it.
pub(super) fn gemm_quads_sparse(
    isa: Isa,
    q: &Quads,
    pairs: &super::sparse::SparsePairs,
    regs: &[[u32; 64]],
    aq: &mut Vec<u32>,
    bq: &mut Vec<u32>,
    out: &mut [i32],
) -> bool {
    let max_reg = q.b.iter().map(|mv| usize::from(mv.reg)).max();
    if !q.sparse_a
        || !vnni(isa)
        || max_reg.is_some_and(|r| r >= regs.len())
        || out.len() < q.m * q.n
    {
        return false;
    }
    let k4 = q.k / 4;
    aq.resize(q.m * k4, 0);
    bq.resize(k4 * q.n, 0);
    if !pairs.quads(regs, aq, k4) {
        return false;
    }
    copy(&q.b, regs, bq, 0);
    multiply(isa, q, aq, bq, out);
    true
}

/// The VNNI kernel over every block of `q` (quads in `aq`/`bq`, sized; A's bytes flipped);
/// nothing without VNNI (the callers have checked it).
fn multiply(isa: Isa, q: &Quads, aq: &[u32], bq: &[u32], out: &mut [i32]) {
    if !vnni(isa) {
        return;
    }
    let k4 = q.k / 4;
    for blk in 0..q.blocks {
        let a = &aq[blk * q.m * k4..][..q.m * k4];
        let b = &bq[blk * k4 * q.n..][..k4 * q.n];
        let o = &mut out[blk * q.m * q.n..][..q.m * q.n];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `vnni` found AVX-512F and AVX-512 VNNI on this CPU, the function's only
        // requirement besides the slice lengths, which are exactly M·K4, K4·N and M·N.
        unsafe {
            kernel_vnni(q.m, q.n, k4, a, b, o)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (a, b, o);
    }
}

/// The `vpdpbusd` loop over one block: per 16 columns the correction `128·Σk B`, then per
/// row K4 dot-accumulates of the broadcast A quad with B's quads.
///
/// # Safety
/// The CPU supports AVX-512F and AVX-512 VNNI; `aq` holds M·K4 entries, `bq` K4·N and
/// `out` M·N.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vnni")]
unsafe fn kernel_vnni(m: usize, n: usize, k4: usize, aq: &[u32], bq: &[u32], out: &mut [i32]) {
    use std::arch::x86_64::*;
    debug_assert!(aq.len() >= m * k4 && bq.len() >= k4 * n && out.len() >= m * n);
    let bias = _mm512_set1_epi32(0x8080_8080u32 as i32);
    for j0 in (0..n).step_by(16) {
        let cols = (n - j0).min(16);
        let mask: __mmask16 = if cols == 16 { 0xFFFF } else { (1 << cols) - 1 };
        // SAFETY (all loads below): dwords q·N + j0 .. +cols of `bq` (K4·N entries) exist;
        // masked-off lanes are not read.
        let load_b = |q: usize| unsafe {
            _mm512_maskz_loadu_epi32(mask, bq.as_ptr().add(q * n + j0).cast())
        };
        let mut corr = _mm512_setzero_si512();
        for q in 0..k4 {
            corr = _mm512_dpbusd_epi32(corr, bias, load_b(q));
        }
        for i in 0..m {
            let mut acc = _mm512_setzero_si512();
            for q in 0..k4 {
                let a = _mm512_set1_epi32(aq[i * k4 + q] as i32);
                acc = _mm512_dpbusd_epi32(acc, a, load_b(q));
            }
            let d = _mm512_sub_epi32(acc, corr);
            // SAFETY: entries i·N + j0 .. +cols of `out` (M·N entries) exist; masked-off
            // lanes are not written.
            unsafe { _mm512_mask_storeu_epi32(out.as_mut_ptr().add(i * n + j0), mask, d) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic xorshift word generator.
    fn words(seed: &mut u64, len: usize) -> Vec<u32> {
        (0..len)
            .map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                (*seed >> 16) as u32
            })
            .collect()
    }

    /// Byte runs of a test layout: element (blk, kk, x) of an operand with `rows` rows per k
    /// sits in register `base + blk·K4 + kk/4`, lane x, byte kk mod 4.
    fn runs(base: u16, [rows, k, blocks]: [usize; 3]) -> Vec<Run> {
        let mut v = Vec::new();
        for blk in 0..blocks {
            for kk in 0..k {
                v.push(Run {
                    reg: base + (blk * k / 4 + kk / 4) as u16,
                    shift: (8 * (kk % 4)) as u8,
                    lane0: 0,
                    len: rows as u8,
                    out0: ((blk * k + kk) * rows) as u32,
                    stride: 1,
                });
            }
        }
        v
    }

    /// Every i8 MFMA shape (and odd ones) on random registers and on the extremes -128 and
    /// 127: on every host the quads gathered from the registers hold each element where the
    /// kernel reads it; on a host with VNNI the product equals the plain i64 triple loop over
    /// the registers' bytes, and without VNNI `gemm_quads` refuses (the f32 route runs).
    #[test]
    fn vnni_matches_integer_reference() {
        let have_vnni = vnni(Isa::Avx512);
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for [m, n, k, blocks] in [
            [4, 4, 4, 16],
            [16, 16, 16, 1],
            [16, 16, 32, 1],
            [16, 16, 64, 1],
            [32, 32, 8, 2],
            [32, 32, 16, 1],
            [32, 32, 32, 1],
            [5, 19, 12, 3],
        ] {
            let (ra, rb) = (blocks * k / 4, blocks * k / 4);
            let q = Quads::new(
                [m, n, k, blocks],
                &runs(0, [m, k, blocks]),
                &runs(ra as u16, [n, k, blocks]),
            )
            .expect("test layout is quads");
            for fill in [
                None,
                Some((0x8080_8080u32, 0x8080_8080u32)),
                Some((0x7F7F_7F7F, 0x8080_8080)),
            ] {
                let mut regs: Vec<[u32; 64]> = (0..ra + rb)
                    .map(|_| words(&mut seed, 64).try_into().unwrap_or([0; 64]))
                    .collect();
                if let Some((fa, fb)) = fill {
                    regs[..ra].iter_mut().for_each(|r| r.fill(fa));
                    regs[ra..].iter_mut().for_each(|r| r.fill(fb));
                }
                let byte = |reg: usize, lane: usize, kk: usize| {
                    i64::from((regs[reg][lane] >> (8 * (kk % 4))) as u8 as i8)
                };
                // The packed layout: A row-major by quads (bytes + 128), B quads per column.
                let (mut aq, mut bq) = (Vec::new(), Vec::new());
                q.gather(&regs, &mut aq, &mut bq);
                let k4 = k / 4;
                for blk in 0..blocks {
                    for kk in 0..k {
                        let (r, sh) = (blk * k / 4 + kk / 4, 8 * (kk % 4));
                        for i in 0..m {
                            let got = aq[blk * m * k4 + i * k4 + kk / 4] >> sh & 0xFF;
                            assert_eq!(got, (regs[r][i] >> sh & 0xFF) ^ 0x80, "A quad");
                        }
                        for j in 0..n {
                            let got = bq[blk * k4 * n + (kk / 4) * n + j] >> sh & 0xFF;
                            assert_eq!(got, regs[ra + r][j] >> sh & 0xFF, "B quad");
                        }
                    }
                }
                let mut out = vec![0x5A5A_5A5Ai32; blocks * m * n];
                let ran = gemm_quads(Isa::Avx512, &q, &regs, &mut aq, &mut bq, &mut out);
                assert_eq!(ran, have_vnni, "runs exactly where the host has VNNI");
                if !ran {
                    continue;
                }
                for blk in 0..blocks {
                    for i in 0..m {
                        for j in 0..n {
                            let want: i64 = (0..k)
                                .map(|kk| {
                                    let r = blk * k / 4 + kk / 4;
                                    byte(r, i, kk) * byte(ra + r, j, kk)
                                })
                                .sum();
                            assert_eq!(
                                i64::from(out[(blk * m + i) * n + j]),
                                want,
                                "{m}x{n}x{k} blk {blk} ({i},{j}) fill {fill:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn refuses_layouts_and_hosts_it_cannot_do_exactly() {
        let shape = |k: usize| [4usize, 4, k, 1];
        // K not a multiple of four, and K above the no-overflow bound.
        assert!(Quads::new(shape(6), &runs(0, [4, 6, 1]), &runs(8, [4, 6, 1])).is_none());
        assert!(Quads::new(shape(68), &runs(0, [4, 68, 1]), &runs(20, [4, 68, 1])).is_none());
        // A byte in the wrong place of its dword.
        let mut a = runs(0, [4, 8, 1]);
        a[1].shift = 16;
        assert!(Quads::new(shape(8), &a, &runs(2, [4, 8, 1])).is_none());
        // An element missing.
        let mut b = runs(2, [4, 8, 1]);
        b.pop();
        assert!(Quads::new(shape(8), &runs(0, [4, 8, 1]), &b).is_none());
        // Registers the plan names but the file lacks, and no VNNI variant.
        let q = Quads::new(shape(8), &runs(0, [4, 8, 1]), &runs(2, [4, 8, 1])).expect("quads");
        let (mut aq, mut bq, mut out) = (Vec::new(), Vec::new(), vec![0; 16]);
        assert!(!gemm_quads(
            Isa::Avx512,
            &q,
            &[[0; 64]; 3],
            &mut aq,
            &mut bq,
            &mut out
        ));
        assert!(!gemm_quads(
            Isa::Portable,
            &q,
            &[[0; 64]; 4],
            &mut aq,
            &mut bq,
            &mut out
        ));
    }
}
