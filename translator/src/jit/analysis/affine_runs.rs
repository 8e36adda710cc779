//! Lane-group runs whose whole lane work is affine ([`super::affine`]): every register
//! write of the run writes a lane-affine value and every compare compares a lane-affine
//! value with a uniform one. Such a run has a scalar copy (`lower::affine_run`): lane 0
//! and the stride of each written value as scalars, its row written as
//! `splat(lane 0) + lane × stride`, and each compare's lanes as a range of lanes, found by
//! arithmetic on lane 0, the stride and the bound. Typical: a kernel's entry block, which
//! computes the global id `workgroup × size + v0` and compares it with `n` for EXEC.
//!
//! The claims here are exact under run-time tests the lowering makes before the copy:
//! the run's blend mask has every lane set, its roots are lane-affine, its extensions
//! and high halves do not wrap, and no compared value wraps around its compare's range
//! within the wave. Any failed test runs the general loop.

use super::affine::{node, stride, Half, Node, MAX_DEPTH};
use super::runs::{classify, run_extent_skipping, OpClass, RunExtent};
use crate::ir::{Block, CmpOp, Op, Ty, Val};
use std::collections::HashMap;

/// Largest compare stride the range form takes (lanes step by at most this).
pub(crate) const MAX_CMP_STRIDE: u64 = 1 << 16;

/// A compare `x cc bound` of the lane-affine `x` (stride `step`) with the uniform `bound`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RangeCmp {
    /// The compare's op index.
    pub op: usize,
    /// The condition with `x` on its left.
    pub cc: CmpOp,
    pub x: Val,
    pub bound: Val,
    /// Lane `l`'s `x` is lane 0's + `l × step` (1..=[`MAX_CMP_STRIDE`]).
    pub step: u32,
}

/// A run with a scalar copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AffineRun {
    /// One past the run's last op (as [`run_extent_skipping`] finds it).
    pub end: usize,
    /// The blend mask the run's values assume full (`None`: they take no blend).
    pub mask: Option<Val>,
    /// The run's register writes (op index) and their values' strides.
    pub writes: Vec<(usize, u64)>,
    /// The run's compares, in order.
    pub cmps: Vec<RangeCmp>,
    /// The roots (VGPRs tested at the body's start) the run's values assume.
    pub roots: Vec<u16>,
}

/// The classes of `blk`'s ops and the extents of its runs by first op, as the lane-group
/// form cuts the block when no multi-dword access joins ops (`lower::group`, which reuses
/// them), and the runs with a scalar copy; `deferred` and `remat_input` as in
/// [`super::affine::AffineFacts`], `rows` as in [`super::BlockFacts`].
pub(crate) type Runs = (
    Vec<OpClass>,
    HashMap<usize, RunExtent>,
    HashMap<usize, AffineRun>,
);

/// See [`Runs`].
pub(crate) fn of(
    blk: &Block,
    last_use: &[usize],
    rows: &HashMap<u32, u16>,
    deferred: &[bool],
    remat_input: &[bool],
) -> Runs {
    let n = blk.ops.len();
    let classes: Vec<OpClass> = (0..n).map(|i| classify(blk, i)).collect();
    let mut extents = HashMap::new();
    let mut out = HashMap::new();
    let mut i = 0;
    while i < n {
        if classes[i] == OpClass::Other {
            i += 1;
            continue;
        }
        let extent = run_extent_skipping(blk, i, &classes, deferred);
        let j = extent.end.max(i + 1);
        let ctx = RunCtx {
            blk,
            i,
            j,
            classes: &classes,
            post: &extent.post,
            deferred,
        };
        if let Some(r) = ctx.plan(last_use, rows, remat_input) {
            out.insert(i, r);
        }
        extents.insert(i, extent);
        i = j;
    }
    (classes, extents, out)
}

struct RunCtx<'a> {
    blk: &'a Block,
    i: usize,
    j: usize,
    classes: &'a [OpClass],
    post: &'a [bool],
    deferred: &'a [bool],
}

impl RunCtx<'_> {
    fn skip(&self, k: usize) -> bool {
        self.deferred.get(k).copied().unwrap_or(false)
    }

    /// Whether the mask `m` exists before the run's loop: from before the run, or one of
    /// its uniform ops emitted before the loop.
    fn early(&self, m: Val) -> bool {
        let k = m.0 as usize;
        if self.skip(k) {
            return false;
        }
        k < self.i
            || (k < self.j
                && self.classes[k] == OpClass::Uniform
                && !self.post.get(k - self.i).copied().unwrap_or(true))
    }

    fn plan(
        &self,
        last_use: &[usize],
        rows: &HashMap<u32, u16>,
        remat_input: &[bool],
    ) -> Option<AffineRun> {
        let blk = self.blk;
        let (i, j) = (self.i, self.j);
        // One blend mask for the whole run: the register writes' and the EXEC blends'.
        let mut mask: Option<Val> = None;
        for k in i..j {
            if self.classes[k] != OpClass::Lane || self.skip(k) {
                continue;
            }
            let m = match &blk.ops[k] {
                Op::SetVgpr { mask, .. } => *mask,
                Op::Select { cond, .. }
                    if matches!(
                        blk.types.get(cond.0 as usize).copied().flatten(),
                        Some(Ty::S32 | Ty::S64)
                    ) =>
                {
                    *cond
                }
                _ => continue,
            };
            if super::affine::const_of(blk, m) == Some(u64::MAX) {
                continue;
            }
            match mask {
                None => mask = Some(m),
                Some(x) if x == m => {}
                // Blends on another mask: such values are not affine here, and a write
                // under another mask would need it full too.
                Some(_) => {
                    if matches!(blk.ops[k], Op::SetVgpr { .. }) {
                        return None;
                    }
                }
            }
        }
        if let Some(m) = mask {
            if !self.early(m) {
                return None;
            }
        }
        let sel = mask.unwrap_or(Val(u32::MAX));
        let mut roots = Vec::new();
        let mut writes = Vec::new();
        let mut cmps = Vec::new();
        for k in i..j {
            if self.classes[k] != OpClass::Lane || self.skip(k) {
                continue;
            }
            match &blk.ops[k] {
                Op::SetVgpr { val, mask: m, .. } => {
                    if Some(*m) != mask && super::affine::const_of(blk, *m) != Some(u64::MAX) {
                        return None;
                    }
                    let s = stride(blk, *val, sel, &mut roots)?;
                    if !self.leaves_ok(*val, sel, 0) {
                        return None;
                    }
                    writes.push((k, s));
                }
                Op::Cmp(cc, a, b) => {
                    if blk.types[a.0 as usize] != Some(Ty::V32) {
                        return None;
                    }
                    let sa = stride(blk, *a, sel, &mut roots)?;
                    let sb = stride(blk, *b, sel, &mut roots)?;
                    let (cc, x, bound, step) = match (sa, sb) {
                        (s, 0) => (*cc, *a, *b, s),
                        (0, s) => (swap(*cc)?, *b, *a, s),
                        _ => return None,
                    };
                    if step == 0 || step > MAX_CMP_STRIDE || !int_cmp(cc) {
                        return None;
                    }
                    if !self.leaves_ok(x, sel, 0) || !self.leaves_ok(bound, sel, 0) {
                        return None;
                    }
                    cmps.push(RangeCmp {
                        op: k,
                        cc,
                        x,
                        bound,
                        step: step as u32,
                    });
                }
                _ => {
                    // Any other lane op computes a vector value: only its uses above may
                    // need it (the scalar copy computes no vector value).
                    let used_after = last_use.get(k).copied().unwrap_or(0) >= j
                        || remat_input.get(k).copied().unwrap_or(false);
                    let vector = blk.types[k].is_some_and(|t| t.is_vector());
                    if vector && used_after && !rows.contains_key(&(k as u32)) {
                        return None;
                    }
                }
            }
        }
        if writes.is_empty() && cmps.is_empty() {
            return None;
        }
        Some(AffineRun {
            end: j,
            mask,
            writes,
            cmps,
            roots,
        })
    }

    /// Whether the uniform leaves of the affine `v` exist before the run's loop (none is
    /// a uniform op the run emits after it).
    fn leaves_ok(&self, v: Val, mask: Val, depth: u32) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(nd) = node(self.blk, v, mask) else {
            return false;
        };
        let ok = |s: Val| self.early(s);
        let sub = |x: Val| self.leaves_ok(x, mask, depth + 1);
        match nd {
            Node::Uniform(s) => ok(s),
            Node::Lane | Node::Root(_) => true,
            Node::Same(x) | Node::Shl(x, _) | Node::Mul(x, _) | Node::Lo(x) | Node::Ext(x, _) => {
                sub(x)
            }
            Node::Hi(x) => sub(x),
            Node::PackRoot(lo, _) => sub(lo),
            Node::Add(a, b) | Node::Sub(a, b) => sub(a) && sub(b),
            Node::Add64(a, b) => [a, b].into_iter().all(|h| match h {
                Half::Wide(x) => sub(x),
                Half::Uniform(lo, hi) => ok(lo) && ok(hi),
            }),
        }
    }
}

/// `b cc a` as `a cc' b`.
fn swap(cc: CmpOp) -> Option<CmpOp> {
    use CmpOp::*;
    Some(match cc {
        Eq => Eq,
        Ne => Ne,
        ULt => UGt,
        ULe => UGe,
        UGt => ULt,
        UGe => ULe,
        SLt => SGt,
        SLe => SGe,
        SGt => SLt,
        SGe => SLe,
        _ => return None,
    })
}

fn int_cmp(cc: CmpOp) -> bool {
    use CmpOp::*;
    matches!(cc, Eq | Ne | ULt | ULe | UGt | UGe | SLt | SLe | SGt | SGe)
}
