//! SMFMAC: the sparse A expanded into the dense k-major A block in one pass.
//!
//! A 4:2 sparse A stores two elements per group of four columns (CDNA4 ISA 7.1.6: the
//! packed columns `2q` and `2q+1` of row i belong to the dense columns `4q..4q+3`), each
//! with a 2-bit index naming its column in the group. The generic executor zeroes A and
//! then places the stored elements one at a time in their order (the later one wins when
//! both name the same column). Here the two elements of every group are a *pair*: the dense
//! column `4q + p` of row i is the second element if its index is `p`, else the first if its
//! index is `p`, else zero: exactly what the ordered placement leaves. MFMA layouts put
//! consecutive rows i on consecutive lanes, so pairs compress into runs of lanes: both
//! values are decoded a whole run at a time by the operand moves of [`super::gather`]
//! (F16C, AVX-512 permutes, shifts), then four selects per run write the four dense
//! columns, each a contiguous k-major row segment. The dense GEMM kernels then run as for a
//! dense MFMA.

use super::{gather, Halves, Moves, Run, SparseK, LANES};
use crate::matrix::gemm::Isa;
use std::cell::RefCell;

/// A run of pairs on lanes `lane0..lane0+len`: the first and second elements' values were
/// decoded to `vals[off..off+len]` and `vals[off+len..off+2·len]`, their indices are the
/// 2-bit fields `idx0`/`idx1` (register, shift) of the same lanes, and lane `lane0 + x`
/// fills the k-major positions `at0 + x + p·M` (p = 0..4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PairRun {
    lane0: u8,
    len: u8,
    idx0: (u16, u8),
    idx1: (u16, u8),
    off: u32,
    at0: u32,
}

/// A sparse A prepared for the one-pass expansion ([`SparsePairs::new`] checks every
/// invariant the expansion relies on).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SparsePairs {
    /// The values of both elements of every pair, into the decoded value buffer.
    vals: Vec<Run>,
    /// `vals` paired by 16-bit halves (16-bit formats).
    halves: Option<Halves>,
    runs: Vec<PairRun>,
    /// Decoded values: `2 ×` the stored elements.
    nvals: usize,
    /// The index value that places nothing (4: none).
    never: u8,
    /// Rows of A (the k-major stride).
    m: usize,
}

/// One pair before compression: the shared lane, both value fields, both index fields,
/// the k-major position of index 0.
type Pair = (u8, (u16, u8), (u16, u8), (u16, u8), (u16, u8), u32);

impl SparsePairs {
    /// The pairs of `sp` (the plan's stored elements in placement order) for an `m`-row,
    /// `k`-column A of `bits`-bit elements (16-bit formats with `pair_halves`), over
    /// `nregs` registers. `None` unless the elements form exact pairs that cover A: each
    /// group of four columns of each row has exactly two elements, on the same lane as
    /// their indices, the group starting at a column that is a multiple of 4, and every
    /// group of A appears once (then the expansion writes every element of A).
    pub(super) fn new(
        sp: &[SparseK],
        m: usize,
        k: usize,
        nregs: usize,
        pair_halves: bool,
    ) -> Option<SparsePairs> {
        if m == 0 || !k.is_multiple_of(4) || sp.len() != m * k / 2 {
            return None;
        }
        let never = sp.first()?.never;
        // Elements by group (k-major position of index 0), in placement order.
        let mut by_at: Vec<Vec<&SparseK>> = vec![Vec::new(); m * k];
        for e in sp {
            let at = e.at as usize;
            let (i, k0) = (at % m, at / m);
            if at >= m * k
                || !k0.is_multiple_of(4)
                || e.never != never
                || e.val.1 != e.idx.1
                || usize::from(e.val.1) >= LANES
                || usize::from(e.val.0) >= nregs
                || usize::from(e.idx.0) >= nregs
                || e.idx.2 > 30
                || i >= m
            {
                return None;
            }
            by_at[at].push(e);
        }
        let mut pairs: Vec<Pair> = Vec::with_capacity(m * k / 4);
        for (at, g) in by_at.iter().enumerate() {
            match g[..] {
                [] => {}
                [e0, e1] if e0.val.1 == e1.val.1 => pairs.push((
                    e0.val.1,
                    (e0.val.0, e0.val.2),
                    (e1.val.0, e1.val.2),
                    (e0.idx.0, e0.idx.2),
                    (e1.idx.0, e1.idx.2),
                    at as u32,
                )),
                _ => return None,
            }
        }
        if pairs.len() != m * k / 4 {
            return None;
        }
        // Runs: the same fields on consecutive lanes with consecutive positions (rows).
        pairs.sort_unstable_by_key(|&(lane, v0, v1, i0, i1, at)| (v0, v1, i0, i1, lane, at));
        let mut runs: Vec<PairRun> = Vec::new();
        let mut fields: Vec<((u16, u8), (u16, u8))> = Vec::new();
        for &(lane, v0, v1, i0, i1, at) in &pairs {
            if let (Some(r), Some(&(f0, f1))) = (runs.last_mut(), fields.last()) {
                let len = u32::from(r.len);
                if (f0, f1, r.idx0, r.idx1) == (v0, v1, i0, i1)
                    && u32::from(r.lane0) + len == u32::from(lane)
                    && r.at0 + len == at
                    && (r.at0 as usize % m) + (len as usize) < m
                {
                    r.len += 1;
                    continue;
                }
            }
            runs.push(PairRun {
                lane0: lane,
                len: 1,
                idx0: i0,
                idx1: i1,
                off: 0,
                at0: at,
            });
            fields.push((v0, v1));
        }
        // The value runs: first elements at `off`, second ones right after.
        let mut vals = Vec::with_capacity(2 * runs.len());
        let mut off = 0u32;
        for (r, &(v0, v1)) in runs.iter_mut().zip(&fields) {
            r.off = off;
            let len = u32::from(r.len);
            for (x, (reg, shift)) in [v0, v1].into_iter().enumerate() {
                vals.push(Run {
                    reg,
                    shift,
                    lane0: r.lane0,
                    len: r.len,
                    out0: off + x as u32 * len,
                    stride: 1,
                });
            }
            off += 2 * len;
        }
        let nvals = off as usize;
        if !super::in_range(&vals, nregs, nvals) {
            return None;
        }
        Some(SparsePairs {
            halves: pair_halves.then(|| Halves::new(&vals)),
            vals,
            runs,
            nvals,
            never,
            m,
        })
    }

    /// Writes the dense k-major A (`a`, `M·K` elements) from the registers: decoded with
    /// `t`'s moves `mv`, selected by the indices, chosen for GEMM variant `isa`.
    pub(super) fn expand(
        &self,
        isa: Isa,
        mv: Moves,
        regs: &[[u32; 64]],
        t: super::Decode,
        a: &mut [f32],
    ) {
        VALS.with(|cell| {
            let mut vals = cell.borrow_mut();
            vals.resize(self.nvals, 0.0);
            gather(mv, &self.vals, self.halves.as_ref(), regs, t, &mut vals);
            match isa {
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
                    // SAFETY: the CPU supports AVX-512F (checked just above), the only
                    // requirement; the body is safe Rust.
                    unsafe { select_avx512(self, regs, &vals, a) }
                }
                #[cfg(target_arch = "x86_64")]
                Isa::Avx2 if std::arch::is_x86_feature_detected!("avx2") => {
                    // SAFETY: the CPU supports AVX2 (checked just above).
                    unsafe { select_avx2(self, regs, &vals, a) }
                }
                _ => select_body(self, regs, &vals, a),
            }
        })
    }
}

impl SparsePairs {
    /// Writes the dense A as i8 quads for the VNNI kernel (`aq[i·K4 + q]`, `k4` = K/4, sized
    /// `M·K4`, bytes flipped to `a + 128` as [`super::int8`] wants): each 4:2 group is one
    /// quad, byte `p` the second element's if its index is `p`, else the first's if its index
    /// is `p`, else 0 (the generic executor's ordered placement). Returns `false`, having
    /// changed nothing, unless every value is a whole byte of its register and `aq` fits.
    pub(super) fn quads(&self, regs: &[[u32; 64]], aq: &mut [u32], k4: usize) -> bool {
        if self.vals.iter().any(|v| v.shift % 8 != 0) || aq.len() < self.m * k4 {
            return false;
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU supports AVX-512F (checked just above), the only requirement;
            // the body is safe Rust.
            unsafe { quads_avx512(self, regs, aq, k4) };
            return true;
        }
        quads_body(self, regs, aq, k4);
        true
    }
}

/// The body of [`SparsePairs::quads`] (checks done): per run, the quads of its lanes
/// computed branch-free into a contiguous buffer (vectorises), then stored K4 apart.
#[inline(always)]
fn quads_body(sp: &SparsePairs, regs: &[[u32; 64]], aq: &mut [u32], k4: usize) {
    let never = u32::from(sp.never);
    let mut tmp = [0u32; LANES];
    for (r, f) in sp.runs.iter().zip(sp.vals.chunks_exact(2)) {
        let lanes = usize::from(r.lane0)..usize::from(r.lane0) + usize::from(r.len);
        let (i0, q) = (r.at0 as usize % sp.m, r.at0 as usize / sp.m / 4);
        let w0 = &regs[usize::from(f[0].reg)][lanes.clone()];
        let w1 = &regs[usize::from(f[1].reg)][lanes.clone()];
        let x0 = &regs[usize::from(r.idx0.0)][lanes.clone()];
        let x1 = &regs[usize::from(r.idx1.0)][lanes];
        let (s0, s1) = (u32::from(f[0].shift), u32::from(f[1].shift));
        let (t0, t1) = (u32::from(r.idx0.1), u32::from(r.idx1.1));
        let out = &mut tmp[..w0.len()];
        for ((((o, &w0), &w1), &x0), &x1) in out.iter_mut().zip(w0).zip(w1).zip(x0).zip(x1) {
            let (p0, p1) = ((x0 >> t0) & 3, (x1 >> t1) & 3);
            // All ones when the element is placed.
            let (k0, k1) = (
                u32::from(p0 != never).wrapping_neg(),
                u32::from(p1 != never).wrapping_neg(),
            );
            let first = (((w0 >> s0) & 0xFF) << (8 * p0)) & k0;
            let keep = !((0xFF << (8 * p1)) & k1);
            let second = (((w1 >> s1) & 0xFF) << (8 * p1)) & k1;
            *o = ((first & keep) | second) ^ 0x8080_8080;
        }
        for (x, &v) in out.iter().enumerate() {
            aq[(i0 + x) * k4 + q] = v;
        }
    }
}

/// [`quads_body`] compiled for AVX-512F.
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn quads_avx512(sp: &SparsePairs, regs: &[[u32; 64]], aq: &mut [u32], k4: usize) {
    quads_body(sp, regs, aq, k4)
}

thread_local! {
    /// The decoded values of the stored elements (no allocation per instruction).
    static VALS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// The selects of [`SparsePairs::expand`]: dense column `4q + p` of row i is the second
/// element if its index is `p`, else the first if its index is `p`, else +0.0 (the ordered
/// placement of the generic executor; an index equal to `never` places nothing).
#[inline(always)]
fn select_body(sp: &SparsePairs, regs: &[[u32; 64]], vals: &[f32], a: &mut [f32]) {
    let never = u32::from(sp.never);
    for r in &sp.runs {
        let len = usize::from(r.len);
        let lanes = usize::from(r.lane0)..usize::from(r.lane0) + len;
        let x0 = &regs[usize::from(r.idx0.0)][lanes.clone()];
        let x1 = &regs[usize::from(r.idx1.0)][lanes];
        let (s0, s1) = (u32::from(r.idx0.1), u32::from(r.idx1.1));
        let off = r.off as usize;
        let (v0, v1) = (&vals[off..off + len], &vals[off + len..off + 2 * len]);
        for p in 0..4u32 {
            let at = r.at0 as usize + p as usize * sp.m;
            let dst = &mut a[at..at + len];
            // Both values load unconditionally, so the selects vectorise as blends.
            for ((((d, &w0), &w1), &e0), &e1) in dst.iter_mut().zip(x0).zip(x1).zip(v0).zip(v1) {
                let (p0, p1) = ((w0 >> s0) & 3, (w1 >> s1) & 3);
                let first = if p0 == p && p0 != never { e0 } else { 0.0 };
                *d = if p1 == p && p1 != never { e1 } else { first };
            }
        }
    }
}

/// [`select_body`] compiled for AVX-512F (the selects vectorise 16 lanes wide).
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn select_avx512(sp: &SparsePairs, regs: &[[u32; 64]], vals: &[f32], a: &mut [f32]) {
    select_body(sp, regs, vals, a)
}

/// [`select_body`] compiled for AVX2.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn select_avx2(sp: &SparsePairs, regs: &[[u32; 64]], vals: &[f32], a: &mut [f32]) {
    select_body(sp, regs, vals, a)
}
