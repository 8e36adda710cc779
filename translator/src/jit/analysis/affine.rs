//! Lane-affine addresses: vector values that are `lane0 + lane × stride` (modulo 2^bits)
//! in the lanes an access uses, with `stride` known at compile time.
//!
//! The sources of such values are broadcasts (stride 0), `LaneId` (stride 1) and *roots*:
//! VGPRs read before the block writes them (`GetVgpr`), which the lowering tests once at
//! the block's start for `v[l] = v[0] + l` over all the block's lanes (workitem ids). They
//! are carried exactly through `Add`/`Sub`, `Shl`/`Mul` by a constant, the low half of a
//! 64-bit value, `Pack` of the low and high halves of one value, and a blend `Select` on
//! the access's own mask (the lanes it does not take are not used). Sign and zero
//! extensions to 64 bits (`SExt`/`ZExt`, and the lifter's `Pack { lo, hi: lo >> 31 }` and
//! `Pack { lo, hi: 0 }`) are affine only when no lane wraps around the 32-bit range: the
//! lowering tests that on lane 0's value at run time ([`Ext`]). Any failed test takes the
//! general code, so the facts here are exact claims under those tests.

use super::runs::OpClass;
use crate::ir::{BinOp, Block, ConvOp, Op, Ty, UnOp, Val};
use std::collections::HashMap;

/// How deep an address expression is followed.
pub(crate) const MAX_DEPTH: u32 = 24;

/// Largest stride (bytes between lanes) an affine access is lowered with (its displacements
/// stay small constants).
pub(crate) const MAX_STRIDE: u64 = 1 << 16;

/// A 32→64-bit extension the lowering checks for wrap-around at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ext {
    Signed,
    Zero,
}

/// The affine facts of a block.
#[derive(Clone, Debug, Default)]
pub(crate) struct AffineFacts {
    /// Vector accesses (op index of a `Load`/`Store`) whose address is affine, with the
    /// stride in bytes.
    pub access: HashMap<usize, u64>,
    /// The VGPRs whose block-entry value the accesses' addresses assume lane-affine with stride 1, or with stride 0 when flagged
    /// [`UNIFORM_ROOT`] (tested at the block's start).
    pub roots: Vec<u16>,
    /// The roots only the runs with a scalar copy assume (not in `roots`).
    pub run_roots: Vec<u16>,
    /// The lane-group runs with a scalar copy, by first op ([`super::affine_runs`]).
    pub runs: HashMap<usize, super::affine_runs::AffineRun>,
    /// Per op, whether the lane-group form leaves it out ([`deferred`]).
    pub deferred: Vec<bool>,
    /// Per op, whether a deferred op reads it (so a lane-group run keeps its whole value).
    pub remat_input: Vec<bool>,
}

/// The shape of an affine value's expression at one op (what the lowering evaluates on
/// lane 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// `Broadcast(s)`: lane 0 is `s`.
    Uniform(Val),
    /// `LaneId`: lane 0 is 0.
    Lane,
    /// A root VGPR's entry value.
    Root(u16),
    /// Same lanes (in the access's mask) as this value.
    Same(Val),
    /// `a + b` / `a - b`.
    Add(Val, Val),
    Sub(Val, Val),
    /// `a << k`.
    Shl(Val, u32),
    /// `a * k`.
    Mul(Val, u64),
    /// Low 32 bits.
    Lo(Val),
    /// A 32-bit value extended to 64 bits.
    Ext(Val, Ext),
    /// The high half of a 64-bit value: uniform when no lane carries into it (the
    /// lowering tests that on lane 0 and the last lane at run time).
    Hi(Val),
    /// `Pack { lo, hi }` of a 32-bit value and a root VGPR read whose lanes are all equal
    /// (tested at the block's start, [`uniform_root`]): a 64-bit value when `lo` does not
    /// wrap around the 32-bit range within the wave (tested at run time).
    PackRoot(Val, u16),
    /// A 64-bit add done in 32-bit halves with the carry through a lane mask (RDNA's
    /// `v_add_co_u32` + `v_add_co_ci_u32`, [`add64`]).
    Add64(Half, Half),
}

/// One 64-bit operand of [`Node::Add64`], from its two halves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    /// `Lo(x)` and `Hi(x)`: the 64-bit vector `x`.
    Wide(Val),
    /// Broadcasts of two uniform `S32`s: `lo | hi << 32`.
    Uniform(Val, Val),
}

/// The uniform constant `v` (a `Const`, or a `Broadcast`/extension/cut of one).
pub(crate) fn const_of(blk: &Block, v: Val) -> Option<u64> {
    match blk.ops.get(v.0 as usize)? {
        Op::Const { bits, .. } => Some(*bits),
        Op::Broadcast(x) => const_of(blk, *x),
        Op::Conv(ConvOp::ZExt, x) => const_of(blk, *x).map(|c| c & 0xFFFF_FFFF),
        Op::Conv(ConvOp::Lo, x) => const_of(blk, *x).map(|c| c & 0xFFFF_FFFF),
        Op::Bin(BinOp::And, a, b) => Some(const_of(blk, *a)? & const_of(blk, *b)?),
        _ => None,
    }
}

fn bits_of(blk: &Block, v: Val) -> Option<u32> {
    match blk.types.get(v.0 as usize).copied().flatten()? {
        Ty::V32 => Some(32),
        Ty::V64 => Some(64),
        _ => None,
    }
}

fn wrap(bits: u32, x: u64) -> u64 {
    if bits == 32 {
        x & 0xFFFF_FFFF
    } else {
        x
    }
}

/// `v` without the blends `Select { cond: mask, a, .. }` (or on the constant all-ones)
/// around it: the same lanes where `mask` is set.
fn strip(blk: &Block, mut v: Val, mask: Val) -> Val {
    for _ in 0..MAX_DEPTH {
        match blk.ops.get(v.0 as usize) {
            Some(Op::Select { cond, a, .. })
                if *cond == mask || const_of(blk, *cond) == Some(u64::MAX) =>
            {
                v = *a
            }
            _ => break,
        }
    }
    v
}

/// The 64-bit operand whose halves are `lo` and `hi` (`V32`, for an access under `mask`).
fn half(blk: &Block, lo: Val, hi: Val, mask: Val) -> Option<Half> {
    let (lo, hi) = (strip(blk, lo, mask), strip(blk, hi, mask));
    match (blk.ops.get(lo.0 as usize)?, blk.ops.get(hi.0 as usize)?) {
        (Op::Conv(ConvOp::Lo, x), Op::Conv(ConvOp::Hi, y)) if x == y => Some(Half::Wide(*x)),
        (Op::Broadcast(x), Op::Broadcast(y)) => Some(Half::Uniform(*x, *y)),
        _ => None,
    }
}

/// `Pack { lo, hi }` as a 64-bit add in halves: `lo = a + b`, `hi = c + d + carry` with
/// `carry` the lanes of `AddCarry(a, b) != 0` (through `MaskToLanes` of that compare,
/// possibly ANDed with `mask`, cut to 32 bits in a wave32 block, zero-extended, or split
/// into two halves and packed again), `a:c` and `b:d` the halves of two 64-bit operands.
/// Exact in the lanes of `mask`.
fn add64(blk: &Block, lo: Val, hi: Val, mask: Val) -> Option<(Half, Half)> {
    let op = |v: Val| blk.ops.get(v.0 as usize);
    let Op::Bin(BinOp::Add, a, b) = op(strip(blk, lo, mask))? else {
        return None;
    };
    let Op::Bin(BinOp::Add, x, y) = op(strip(blk, hi, mask))? else {
        return None;
    };
    // One of `x`, `y` is the carry, the other `c + d`.
    let is_carry = |v: Val| -> bool {
        let Some(Op::MaskToLanes(mut m)) = op(strip(blk, v, mask)) else {
            return false;
        };
        for _ in 0..8 {
            match op(m) {
                Some(Op::Conv(ConvOp::ZExt, z)) => m = *z,
                // The 32-bit cut keeps every lane of a wave32 block only.
                Some(Op::Conv(ConvOp::Lo, z)) if blk.lanes() == 32 => m = *z,
                // A wave64 mask through two SGPRs.
                Some(Op::Pack { lo: p, hi: q }) => match (op(*p), op(*q)) {
                    (Some(Op::Conv(ConvOp::Lo, z)), Some(Op::Conv(ConvOp::Hi, w))) if z == w => {
                        m = *z
                    }
                    _ => return false,
                },
                Some(Op::Bin(BinOp::And, p, q)) if *q == mask => m = *p,
                Some(Op::Bin(BinOp::And, p, q)) if *p == mask => m = *q,
                Some(Op::Cmp(crate::ir::CmpOp::Ne, ac, z)) => {
                    return const_of(blk, *z) == Some(0)
                        && matches!(op(*ac), Some(Op::Bin(BinOp::AddCarry, p, q))
                            if (p, q) == (a, b) || (p, q) == (b, a));
                }
                _ => return false,
            }
        }
        false
    };
    let sum = if is_carry(*y) {
        *x
    } else if is_carry(*x) {
        *y
    } else {
        return None;
    };
    let Op::Bin(BinOp::Add, c, d) = op(strip(blk, sum, mask))? else {
        return None;
    };
    [(c, d), (d, c)]
        .into_iter()
        .find_map(|(c, d)| Some((half(blk, *a, *c, mask)?, half(blk, *b, *d, mask)?)))
}

/// Whether an op before `v` may write VGPR `r` (so `v`'s read is not the entry value).
fn written_before(blk: &Block, v: Val, r: u16) -> bool {
    blk.ops[..(v.0 as usize).min(blk.ops.len())]
        .iter()
        .any(|o| match o {
            Op::SetVgpr { reg, .. } => *reg == r,
            Op::SetVgprDyn { .. } => true,
            _ => false,
        })
}

/// Flag on a root's register number in [`AffineFacts::roots`]: the root is tested for
/// every lane holding lane 0's value (stride 0) rather than lane 0 + `l` (stride 1).
pub(crate) const UNIFORM_ROOT: u16 = 0x8000;

/// The [`AffineFacts::roots`] entry of VGPR `r` tested uniform.
pub(crate) fn uniform_root(r: u16) -> u16 {
    r | UNIFORM_ROOT
}

/// The node of `v` for an access under `mask`, if `v` is one of the affine forms.
pub(crate) fn node(blk: &Block, v: Val, mask: Val) -> Option<Node> {
    let bits = bits_of(blk, v)?;
    let same_bits = |x: &Val| bits_of(blk, *x) == Some(bits);
    Some(match blk.ops.get(v.0 as usize)? {
        Op::Broadcast(s) => Node::Uniform(*s),
        Op::LaneId => Node::Lane,
        Op::GetVgpr(r) => {
            if written_before(blk, v, *r) {
                return None;
            }
            Node::Root(*r)
        }
        Op::Select { cond, a, .. } if *cond == mask || const_of(blk, *cond) == Some(u64::MAX) => {
            Node::Same(*a)
        }
        Op::Bin(BinOp::Add, a, b) if same_bits(a) && same_bits(b) => Node::Add(*a, *b),
        Op::Bin(BinOp::Sub, a, b) if same_bits(a) && same_bits(b) => Node::Sub(*a, *b),
        Op::Bin(BinOp::Shl, a, k) if same_bits(a) => {
            Node::Shl(*a, (const_of(blk, *k)? & (bits as u64 - 1)) as u32)
        }
        Op::Bin(BinOp::Mul, a, k) if same_bits(a) && const_of(blk, *k).is_some() => {
            Node::Mul(*a, const_of(blk, *k)?)
        }
        Op::Bin(BinOp::Mul, k, a) if same_bits(a) && const_of(blk, *k).is_some() => {
            Node::Mul(*a, const_of(blk, *k)?)
        }
        Op::Conv(ConvOp::Lo, x) if bits_of(blk, *x) == Some(64) => Node::Lo(*x),
        Op::Conv(ConvOp::Hi, x) if bits_of(blk, *x) == Some(64) => Node::Hi(*x),
        Op::Conv(ConvOp::SExt, x) if bits_of(blk, *x) == Some(32) => Node::Ext(*x, Ext::Signed),
        Op::Conv(ConvOp::ZExt, x) if bits_of(blk, *x) == Some(32) => Node::Ext(*x, Ext::Zero),
        Op::Pack { lo, hi } => {
            // The halves as the access sees them (blends on its mask taken apart).
            let (lo, hi) = (&strip(blk, *lo, mask), &strip(blk, *hi, mask));
            let op_of = |x: &Val| blk.ops.get(x.0 as usize);
            match (op_of(lo)?, op_of(hi)?) {
                (Op::Conv(ConvOp::Lo, x), Op::Conv(ConvOp::Hi, y)) if x == y => Node::Same(*x),
                (_, Op::Bin(BinOp::AShr, y, k))
                    if strip(blk, *y, mask) == *lo
                        && const_of(blk, *k).map(|k| k & 31) == Some(31) =>
                {
                    Node::Ext(*lo, Ext::Signed)
                }
                _ if const_of(blk, *hi) == Some(0) && bits_of(blk, *lo) == Some(32) => {
                    Node::Ext(*lo, Ext::Zero)
                }
                (_, Op::GetVgpr(r))
                    if bits_of(blk, *lo) == Some(32) && !written_before(blk, *hi, *r) =>
                {
                    Node::PackRoot(*lo, *r)
                }
                _ => {
                    let (a, b) = add64(blk, *lo, *hi, mask)?;
                    Node::Add64(a, b)
                }
            }
        }
        _ => return None,
    })
}

/// The stride of `v` (modulo 2^bits) for an access under `mask`, adding the roots it
/// assumes to `roots`; `None` when `v` is not affine.
pub(crate) fn stride(blk: &Block, v: Val, mask: Val, roots: &mut Vec<u16>) -> Option<u64> {
    stride_at(blk, v, mask, roots, 0)
}

fn stride_at(blk: &Block, v: Val, mask: Val, roots: &mut Vec<u16>, depth: u32) -> Option<u64> {
    if depth > MAX_DEPTH {
        return None;
    }
    let bits = bits_of(blk, v)?;
    if let Some(Node::PackRoot(_, r)) = node(blk, v, mask) {
        let r = uniform_root(r);
        if !roots.contains(&r) {
            roots.push(r);
        }
    }
    let mut s = |x: Val| stride_at(blk, x, mask, roots, depth + 1);
    let r = match node(blk, v, mask)? {
        Node::Uniform(_) => 0,
        Node::Lane => 1,
        Node::Root(r) => {
            if !roots.contains(&r) {
                roots.push(r);
            }
            1
        }
        Node::Same(x) => s(x)?,
        Node::Add(a, b) => s(a)?.wrapping_add(s(b)?),
        Node::Sub(a, b) => s(a)?.wrapping_sub(s(b)?),
        Node::Shl(a, k) => s(a)? << k,
        Node::Mul(a, k) => s(a)?.wrapping_mul(k),
        Node::Lo(x) => s(x)?,
        // Under the lowering's no-carry test every lane's high half is lane 0's.
        Node::Hi(x) => {
            s(x)?;
            0
        }
        Node::PackRoot(lo, _) => s(lo)? as u32 as i32 as i64 as u64,
        // Under the lowering's no-wrap test the 64-bit lanes step by the 32-bit stride
        // read as signed.
        Node::Ext(x, _) => s(x)? as u32 as i32 as i64 as u64,
        Node::Add64(a, b) => {
            let mut h = |x: Half| match x {
                Half::Wide(v) => s(v),
                Half::Uniform(..) => Some(0),
            };
            h(a)?.wrapping_add(h(b)?)
        }
    };
    Some(wrap(bits, r))
}

/// The block's affine accesses and the roots they assume: single accesses that get the
/// inline paths (not the pieces of a multi-dword access, [`super::memory::multi_access`] and
/// [`super::memory::fused_load_pieces`]); `uses` and `last_use` as in
/// [`super::BlockFacts`].
pub(crate) fn of(blk: &Block, uses: &[u32], last_use: &[usize]) -> AffineFacts {
    use super::memory::{fused_load_pieces, inline_size, multi_access, MemLowering};
    let mut f = AffineFacts::default();
    if !MemLowering::of_block(blk).inline_single() {
        f.deferred = vec![false; blk.ops.len()];
        f.remat_input = vec![false; blk.ops.len()];
        return f;
    }
    let mut pieces: Vec<usize> = Vec::new();
    for i in 0..blk.ops.len() {
        if let Some(m) = multi_access(blk, i, uses, last_use) {
            pieces.extend(m.pieces.iter().map(|p| p.0));
        }
        if let Some(p) = fused_load_pieces(blk, i) {
            pieces.extend(p);
        }
    }
    for (i, op) in blk.ops.iter().enumerate() {
        let (addr, mask, space, size, bits) = match op {
            Op::Load {
                addr,
                mask,
                space,
                size,
                ..
            } => (*addr, *mask, *space, *size, blk.types[i].map(|t| t.bits())),
            Op::Store {
                addr,
                mask,
                space,
                size,
                data,
                ..
            } => (*addr, *mask, *space, *size, {
                blk.types
                    .get(data.0 as usize)
                    .copied()
                    .flatten()
                    .map(|t| t.bits())
            }),
            _ => continue,
        };
        let Some(bits) = bits else { continue };
        if bits_of(blk, addr) != Some(64) || !inline_size(space, size, bits) || pieces.contains(&i)
        {
            continue;
        }
        let mut roots = Vec::new();
        if let Some(s) = stride(blk, addr, mask, &mut roots) {
            if s == 0 || s > MAX_STRIDE {
                continue;
            }
            f.access.insert(i, s);
            for r in roots {
                if !f.roots.contains(&r) {
                    f.roots.push(r);
                }
            }
        }
    }
    f.deferred = deferred(blk, &f.access);
    f.remat_input = vec![false; blk.ops.len()];
    for (k, op) in blk.ops.iter().enumerate() {
        if f.deferred[k] {
            for v in op.operands() {
                if let Some(r) = f.remat_input.get_mut(v.0 as usize) {
                    *r = true;
                }
            }
        }
    }
    f
}

/// Per op: an op used only to make the addresses of affine accesses (directly or through
/// other such ops), which the lane-group form leaves out: the affine path does not read it,
/// and the general code of an access recomputes it where it needs it
/// (`lower::memory::affine`). Such ops are lane-local vector ops, register reads when no
/// later op of the block writes the register (their recomputation reads the same value),
/// and the lane masks of a 64-bit add done in halves (RDNA's `v_add_co_u32` +
/// `v_add_co_ci_u32`): the `AddCarry` compare, the uniform mask ops on its result (AND
/// with EXEC, the 32-bit halves and their `Pack`, the zero extension) and `MaskToLanes`.
///
/// Deferring changes no architectural state: every op named here is pure (no register,
/// memory or counter access, no fault), so leaving it out of the lane loops only moves
/// where its value is computed. A register write of its value (the carry's VCC write) is a
/// use by an op that is not deferred, which keeps it (and everything it reads) in the lane
/// loops; only when forwarding removed that write ([`crate::ir::passes::forward`], a block
/// ending in `s_endpgm` in kernel dispatch) does the chain leave them. A fault of an access
/// in the block then reports the state the block leaves with its final writes dropped,
/// exactly as without deferral.
pub(crate) fn deferred(blk: &Block, access: &HashMap<usize, u64>) -> Vec<bool> {
    let n = blk.ops.len();
    let mut d = vec![false; n];
    if access.is_empty() {
        return d;
    }
    // Users of each value.
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, op) in blk.ops.iter().enumerate() {
        for v in op.operands() {
            if let Some(u) = users.get_mut(v.0 as usize) {
                u.push(k);
            }
        }
    }
    let mut by_exit = vec![false; n];
    blk.exit.for_each_operand(|v| {
        if let Some(e) = by_exit.get_mut(v.0 as usize) {
            *e = true;
        }
    });
    let class = |k: usize| super::runs::classify(blk, k);
    for k in (0..n).rev() {
        let vector = blk.types[k].is_some_and(|t| t.is_vector());
        let op = &blk.ops[k];
        let kind = match op {
            Op::Broadcast(_)
            | Op::Pack { .. }
            | Op::Conv(..)
            | Op::Select { .. }
            | Op::LaneId
            | Op::MaskToLanes(_)
            | Op::Bin(
                BinOp::Add
                | BinOp::AddCarry
                | BinOp::Sub
                | BinOp::Shl
                | BinOp::Mul
                | BinOp::AShr
                | BinOp::LShr,
                ..,
            ) if vector => class(k) == OpClass::Lane,
            Op::GetVgpr(r) => {
                class(k) == OpClass::Lane
                    && !blk.ops[k + 1..].iter().any(|o| match o {
                        Op::SetVgpr { reg, .. } => reg == r,
                        Op::SetVgprDyn { .. } => true,
                        _ => false,
                    })
            }
            // A lane mask from a vector compare (uniform result, lane-local computation).
            Op::Cmp(..) => class(k) == OpClass::Lane,
            // Uniform ops on such masks: bitwise ops, halves, widening, pairs of halves.
            Op::Bin(BinOp::And | BinOp::Or | BinOp::Xor, ..)
            | Op::Un(UnOp::Not, _)
            | Op::Conv(ConvOp::Lo | ConvOp::Hi | ConvOp::ZExt, _)
            | Op::Pack { .. } => class(k) == OpClass::Uniform && is_mask_op(blk, op),
            _ => false,
        };
        if !kind || by_exit[k] || users[k].is_empty() {
            continue;
        }
        let me = Val(k as u32);
        d[k] = users[k].iter().all(|&u| {
            d[u] || match &blk.ops[u] {
                Op::Load { addr, mask, .. } => {
                    access.contains_key(&u) && *addr == me && *mask != me
                }
                Op::Store {
                    addr, data, mask, ..
                } => access.contains_key(&u) && *addr == me && *data != me && *mask != me,
                _ => false,
            }
        });
    }
    // A uniform op is left out only when it works on a left-out mask: the others are
    // cheap scalar work the lane-group form does once anyway. (Keeping one changes no
    // other op's standing: none of its operands is left out.)
    for k in 0..n {
        if d[k]
            && class(k) == OpClass::Uniform
            && !blk.ops[k].operands().iter().any(|v| d[v.0 as usize])
        {
            d[k] = false;
        }
    }
    d
}

/// Whether the uniform `op` computes a lane mask's bits lane-wise from its operands' (the
/// kinds [`deferred`] may leave out with a compare): scalar operands of 32 or 64 bits.
fn is_mask_op(blk: &Block, op: &Op) -> bool {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let scalar = |v: &Val| matches!(ty(v), Some(Ty::S32 | Ty::S64));
    match op {
        Op::Bin(_, a, b) => scalar(a) && ty(a) == ty(b),
        Op::Un(_, a) => scalar(a),
        Op::Conv(ConvOp::Lo | ConvOp::Hi, a) => ty(a) == Some(Ty::S64),
        Op::Conv(ConvOp::ZExt, a) => ty(a) == Some(Ty::S32),
        Op::Pack { lo, hi } => ty(lo) == Some(Ty::S32) && ty(hi) == Some(Ty::S32),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Space;
    use crate::ir::passes::forward::{forward, Forwarding};
    use crate::ir::{Builder, CmpOp, Exit};

    /// `load(s[0:1] + v[0:1])` with the 64-bit add lifted as RDNA's `v_add_co_u32` +
    /// `v_add_co_ci_u32` (carry through VCC, s106/s107), EXEC from s126/s127; the loaded
    /// value written to v4.
    fn rdna_load(wave: u32) -> Block {
        let mut b = Builder::new(0, wave);
        let e0 = b.push(Op::GetSgpr(126), Some(Ty::S32));
        let exec = if wave == 32 {
            b.push(Op::Conv(ConvOp::ZExt, e0), Some(Ty::S64))
        } else {
            let e1 = b.push(Op::GetSgpr(127), Some(Ty::S32));
            b.push(Op::Pack { lo: e0, hi: e1 }, Some(Ty::S64))
        };
        let s0 = b.push(Op::GetSgpr(0), Some(Ty::S32));
        let s0 = b.push(Op::Broadcast(s0), Some(Ty::V32));
        let s1 = b.push(Op::GetSgpr(1), Some(Ty::S32));
        let s1 = b.push(Op::Broadcast(s1), Some(Ty::V32));
        // v[0:1] = sext(v0) << 2, as `v_ashrrev_i32` + `v_lshlrev_b64` forwarded.
        let id = b.push(Op::GetVgpr(0), Some(Ty::V32));
        let k31 = b.push(
            Op::Const {
                ty: Ty::S32,
                bits: 31,
            },
            Some(Ty::S32),
        );
        let k31 = b.push(Op::Broadcast(k31), Some(Ty::V32));
        let sign = b.push(Op::Bin(BinOp::AShr, id, k31), Some(Ty::V32));
        let w = b.push(Op::Pack { lo: id, hi: sign }, Some(Ty::V64));
        let k2 = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: 2,
            },
            Some(Ty::S64),
        );
        let k2 = b.push(Op::Broadcast(k2), Some(Ty::V64));
        let off = b.push(Op::Bin(BinOp::Shl, w, k2), Some(Ty::V64));
        let v0 = b.push(Op::Conv(ConvOp::Lo, off), Some(Ty::V32));
        let v1 = b.push(Op::Conv(ConvOp::Hi, off), Some(Ty::V32));
        let lo = b.push(Op::Bin(BinOp::Add, s0, v0), Some(Ty::V32));
        let co = b.push(Op::Bin(BinOp::AddCarry, s0, v0), Some(Ty::V32));
        let z = b.push(
            Op::Const {
                ty: Ty::S32,
                bits: 0,
            },
            Some(Ty::S32),
        );
        let z = b.push(Op::Broadcast(z), Some(Ty::V32));
        let cmp = b.push(Op::Cmp(CmpOp::Ne, co, z), Some(Ty::S64));
        let vcc = b.push(Op::Bin(BinOp::And, cmp, exec), Some(Ty::S64));
        let x = b.push(Op::Conv(ConvOp::Lo, vcc), Some(Ty::S32));
        b.push(Op::SetSgpr(106, x), None);
        if wave == 64 {
            let y = b.push(Op::Conv(ConvOp::Hi, vcc), Some(Ty::S32));
            b.push(Op::SetSgpr(107, y), None);
        }
        let x = b.push(Op::GetSgpr(106), Some(Ty::S32));
        let carry = if wave == 32 {
            b.push(Op::Conv(ConvOp::ZExt, x), Some(Ty::S64))
        } else {
            let y = b.push(Op::GetSgpr(107), Some(Ty::S32));
            b.push(Op::Pack { lo: x, hi: y }, Some(Ty::S64))
        };
        let carry = b.push(Op::MaskToLanes(carry), Some(Ty::V32));
        let hi = b.push(Op::Bin(BinOp::Add, s1, v1), Some(Ty::V32));
        let hi = b.push(Op::Bin(BinOp::Add, hi, carry), Some(Ty::V32));
        let addr = b.push(Op::Pack { lo, hi }, Some(Ty::V64));
        let v = b.push(
            Op::Load {
                pc: 0,
                space: Space::Global,
                addr,
                size: 4,
                signed: false,
                mask: exec,
            },
            Some(Ty::V32),
        );
        b.push(
            Op::SetVgpr {
                reg: 4,
                val: v,
                mask: exec,
            },
            None,
        );
        b.finish(Exit::EndPgm)
    }

    /// The ops of `blk` the analysis leaves out, as written by `Debug`.
    fn deferred_ops(blk: &Block) -> Vec<String> {
        let uses = super::super::use_counts(blk);
        let last = super::super::last_uses(blk);
        let f = of(blk, &uses, &last);
        assert_eq!(f.access.len(), 1, "the load is affine\n{blk}");
        assert_eq!(f.roots, vec![0], "{blk}");
        (0..blk.ops.len())
            .filter(|&k| f.deferred[k])
            .map(|k| format!("{:?}", blk.ops[k]))
            .collect()
    }

    fn has(ops: &[String], prefix: &str) -> bool {
        ops.iter().any(|s| s.starts_with(prefix))
    }

    #[test]
    fn the_carry_chain_is_deferred_only_when_its_vcc_write_is_gone() {
        for wave in [32u32, 64] {
            let lifted = rdna_load(wave);
            let keep = forward(&lifted, Forwarding::default()).expect("forwards");
            let drop = forward(
                &lifted,
                Forwarding {
                    drop_final_writes: true,
                },
            )
            .expect("forwards");
            // VCC written: its value has a use outside the address, so the compare, the
            // mask ops on it, the carry and the low half (the carry reads it) stay; the
            // high half's ops still go (the carry's `MaskToLanes` too: it reads the mask
            // the loops compute anyway).
            let k = deferred_ops(&keep);
            for not in ["Cmp", "Bin(AddCarry", "Bin(And", "GetVgpr", "Bin(Shl"] {
                assert!(!has(&k, not), "w{wave} {not} in {k:?}\n{keep}");
            }
            for want in ["MaskToLanes", "Conv(Hi", "Pack"] {
                assert!(has(&k, want), "w{wave} {want} not in {k:?}\n{keep}");
            }
            // VCC dropped: the whole chain goes, and EXEC (the load's mask) stays.
            let k = deferred_ops(&drop);
            for want in [
                "Cmp",
                "MaskToLanes",
                "Bin(AddCarry",
                "Bin(And",
                "Bin(Add,",
                "GetVgpr",
                "Bin(Shl",
                "Bin(AShr",
            ] {
                assert!(has(&k, want), "w{wave} {want} not in {k:?}\n{drop}");
            }
            assert!(!has(&k, "GetSgpr"), "w{wave} {k:?}");
            let uses = super::super::use_counts(&drop);
            let last = super::super::last_uses(&drop);
            let f = of(&drop, &uses, &last);
            for (i, op) in drop.ops.iter().enumerate() {
                if let Op::Load { mask, .. } = op {
                    assert!(!f.deferred[mask.0 as usize], "EXEC stays\n{drop}");
                    assert!(!f.deferred[i]);
                }
            }
        }
    }
}
