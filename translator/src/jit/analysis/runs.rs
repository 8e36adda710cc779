//! Which ops of a block form lane-group runs: the classification of each op
//! ([`OpClass`]) and the extent of a run starting at an op ([`run_extent`]), with the
//! uniform ops that must wait for the run's compares and the masks a lane group can derive
//! from them.

use super::operands;
use crate::ir::{BinOp, Block, CmpOp, ConvOp, LaneFn, Op, Round, RoundedOp, TernOp, Ty, UnOp, Val};

/// How an op takes part in the lane-group form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpClass {
    /// A lane-local vector op the code generator inlines.
    Lane,
    /// A uniform op that reads no vector value and cannot fault.
    Uniform,
    /// Anything else: emitted in the straight-line form.
    Other,
}

pub(crate) fn classify(blk: &Block, i: usize) -> OpClass {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let is_vec = |v: &Val| ty(v).is_some_and(|t| t.is_vector());
    let op = &blk.ops[i];
    let rt = blk.types[i];
    let vector_result = rt.is_some_and(|t| t.is_vector());
    let bits = rt.map_or(32, |t| t.bits());
    let lane = match op {
        Op::GetVgpr(_) | Op::LaneId | Op::MaskToLanes(_) => true,
        Op::SetVgpr { val, .. } => ty(val) == Some(Ty::V32),
        Op::Broadcast(_) | Op::Pack { .. } => vector_result,
        Op::Select { .. } => vector_result,
        Op::Un(u, _) => {
            vector_result
                && matches!(
                    u,
                    UnOp::Not
                        | UnOp::Neg
                        | UnOp::FNeg
                        | UnOp::FAbs
                        | UnOp::FSqrt
                        | UnOp::Popcnt
                        | UnOp::Clz
                        | UnOp::Ctz
                        | UnOp::BitReverse
                        | UnOp::FFloor
                        | UnOp::FCeil
                        | UnOp::FTrunc
                        | UnOp::FRoundEven
                        | UnOp::FRcp
                        | UnOp::FQuiet
                )
        }
        Op::Bin(o, ..) => {
            vector_result
                && match o {
                    BinOp::Add
                    | BinOp::Sub
                    | BinOp::And
                    | BinOp::Or
                    | BinOp::Xor
                    | BinOp::FAdd
                    | BinOp::FSub
                    | BinOp::FMul
                    | BinOp::FDiv
                    | BinOp::FCopySign
                    | BinOp::FMinNum
                    | BinOp::FMaxNum => true,
                    BinOp::Mul
                    | BinOp::UMin
                    | BinOp::UMax
                    | BinOp::SMin
                    | BinOp::SMax
                    | BinOp::FLdexp => bits == 32,
                    o => scalar_bin_inline(*o),
                }
        }
        // Directed roundings of f32/f64 add, sub, mul and fma are vector code (`lower::round`).
        // So are f32 division's steps and `v_exp_f32` (`lower::lanefn`).
        Op::Lane { f, .. } => vector_result && (rounded_inline(f) || lanefn_inline(f)),
        Op::Tern(o, ..) => {
            vector_result
                && (matches!(o, TernOp::Fma | TernOp::Bfi)
                    || matches!(o, TernOp::Perm | TernOp::Bfe | TernOp::SBfe) && bits == 32)
        }
        Op::Conv(c, _) => {
            vector_result
                && matches!(
                    c,
                    ConvOp::ZExt
                        | ConvOp::F32ToF64
                        | ConvOp::F64ToF32
                        | ConvOp::SExt
                        | ConvOp::Lo
                        | ConvOp::Hi
                        | ConvOp::I32ToF32
                        | ConvOp::U32ToF32
                        | ConvOp::F32ToI32
                        | ConvOp::F32ToU32
                )
        }
        _ => false,
    };
    let lane_cmp = match op {
        // Class tests of 32- and 64-bit lanes are vector code (`lower::alu`), not helpers.
        Op::Cmp(c, a, _) => {
            is_vec(a) && (*c != CmpOp::FClass || matches!(ty(a).map(|t| t.bits()), Some(32 | 64)))
        }
        _ => false,
    };
    if lane || lane_cmp {
        return OpClass::Lane;
    }
    if vector_result {
        return OpClass::Other;
    }
    let reads_vector = operands(op).iter().any(is_vec);
    let can_fault = matches!(
        op,
        Op::SLoad { .. }
            | Op::SStore { .. }
            | Op::Clock
            | Op::InstCount
            | Op::BarrierState
            | Op::Load { .. }
            | Op::Store { .. }
            | Op::Atomic { .. }
            | Op::SetVgprDyn { .. }
            | Op::SetVgpr { .. }
            | Op::Matrix(_)
    );
    if reads_vector || can_fault {
        OpClass::Other
    } else {
        OpClass::Uniform
    }
}

/// Whether the lowering computes the lane function `f` in line (`lower::round`): directed
/// roundings of f32/f64 add, sub, mul and fma.
pub(crate) fn rounded_inline(f: &LaneFn) -> bool {
    use RoundedOp::*;
    matches!(
        f,
        LaneFn::Rounded(
            AddF32 | SubF32 | MulF32 | FmaF32 | AddF64 | SubF64 | MulF64 | FmaF64,
            Round::Up | Round::Down | Round::Zero,
            _,
        )
    )
}

/// Whether the lowering computes the lane function `f` in line (`lower::lanefn`): the steps
/// of f32 division (`v_div_scale/fmas/fixup_f32`) and `v_exp_f32`.
pub(crate) fn lanefn_inline(f: &LaneFn) -> bool {
    matches!(
        f,
        LaneFn::DivScaleF32
            | LaneFn::DivScaleF32Flag
            | LaneFn::DivScaleF32Rdna
            | LaneFn::DivScaleF32RdnaFlag
            | LaneFn::DivFmasF32
            | LaneFn::DivFixupF32
            | LaneFn::Exp2F32
    )
}

/// Whether emitting `op` can leave the block function before its exit (a fault return, or
/// a helper that reaches the environment): pending counts are added before it.
pub(crate) fn may_leave(op: &Op) -> bool {
    matches!(
        op,
        Op::Load { .. }
            | Op::Store { .. }
            | Op::Atomic { .. }
            | Op::SLoad { .. }
            | Op::SStore { .. }
            | Op::Clock
            | Op::BarrierState
            | Op::GetVgprDyn { .. }
            | Op::SetVgprDyn { .. }
            | Op::Matrix(_)
    )
}

/// Integer binary ops that the lowering inlines on scalars (`lower::alu`), and so can run
/// lane by lane.
pub(crate) fn scalar_bin_inline(o: BinOp) -> bool {
    !matches!(
        o,
        BinOp::FAdd
            | BinOp::FSub
            | BinOp::FMul
            | BinOp::FDiv
            | BinOp::FMinNum
            | BinOp::FMaxNum
            | BinOp::FLdexp
    )
}

/// A run of lane-group ops ([`run_extent`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RunExtent {
    /// One past the run's last op.
    pub end: usize,
    /// Per op of the run: a uniform op emitted after the loop.
    pub post: Vec<bool>,
    /// The run's post ops whose lane masks a lane group computes.
    pub derived: Vec<u32>,
}

/// The end of the run starting at `i` and, per op of the run, whether a uniform op goes after
/// the loop: it depends on a compare of the run, or follows such an op (uniform ops keep
/// their relative order; pure ops on values available before the loop do not need to). A
/// vector op that needs such a value ends the run, unless it takes it as a lane mask and
/// the value is lane-wise computable per group ([`group_mask_op`]: the compares, and bitwise
/// and width ops on them, e.g. RDNA's carry `exec & cmp` through VCC into
/// `v_add_co_ci_u32`); those are returned too (their group masks are made in the loop,
/// their values after it as usual).
pub(crate) fn run_extent(blk: &Block, i: usize, classes: &[OpClass]) -> RunExtent {
    run_extent_skipping(blk, i, classes, &[])
}

/// [`run_extent`] for a form that leaves out the ops marked in `skip` (the deferred address
/// ops, [`super::affine::deferred`]): they belong to the run without taking part in it (no
/// op waits for them, none is emitted after the loop).
pub(crate) fn run_extent_skipping(
    blk: &Block,
    i: usize,
    classes: &[OpClass],
    skip: &[bool],
) -> RunExtent {
    let n = blk.ops.len();
    let mut post = Vec::new();
    let mut post_started = false;
    // Values only complete after the loop: the run's compares and post ops (per op index,
    // from `i`).
    let mut late: Vec<bool> = Vec::new();
    // Late values whose lane masks a group can compute (listed, and per op index).
    let mut derivable: Vec<u32> = Vec::new();
    let mut derivable_at: Vec<bool> = Vec::new();
    let at = |flags: &[bool], v: &Val| {
        (v.0 as usize)
            .checked_sub(i)
            .and_then(|k| flags.get(k))
            .copied()
            .unwrap_or(false)
    };
    let mut j = i;
    while j < n && classes[j] != OpClass::Other {
        late.push(false);
        derivable_at.push(false);
        if skip.get(j).copied().unwrap_or(false) {
            post.push(false);
            j += 1;
            continue;
        }
        let op = &blk.ops[j];
        let ops = operands(op);
        match classes[j] {
            OpClass::Uniform => {
                let dep = ops.iter().any(|v| at(&late, v));
                let p = dep || post_started && !pure_uniform(op);
                if p {
                    post_started = true;
                    late[j - i] = true;
                    if dep
                        && group_mask_op(blk, op)
                        && ops.iter().all(|v| !at(&late, v) || at(&derivable_at, v))
                    {
                        derivable.push(j as u32);
                        derivable_at[j - i] = true;
                    }
                }
                post.push(p);
            }
            _ => {
                let mask_ops: Vec<Val> = match op {
                    Op::Select { cond, .. } => vec![*cond],
                    Op::SetVgpr { mask, .. } => vec![*mask],
                    Op::MaskToLanes(m) => vec![*m],
                    _ => vec![],
                };
                let blocked = ops
                    .iter()
                    .any(|v| at(&late, v) && !(at(&derivable_at, v) && mask_ops.contains(v)));
                if blocked {
                    break;
                }
                if matches!(op, Op::Cmp(..)) {
                    late[j - i] = true;
                    derivable.push(j as u32);
                    derivable_at[j - i] = true;
                }
                post.push(false);
            }
        }
        j += 1;
    }
    derivable.retain(|&d| !matches!(blk.ops[d as usize], Op::Cmp(..)));
    RunExtent {
        end: j,
        post,
        derived: derivable,
    }
}

/// A uniform op without effects or state reads (so it may move before the run's post ops
/// when its operands are available).
pub(crate) fn pure_uniform(op: &Op) -> bool {
    matches!(
        op,
        Op::Const { .. }
            | Op::Un(..)
            | Op::Bin(..)
            | Op::Tern(..)
            | Op::Cmp(..)
            | Op::Select { .. }
            | Op::Conv(..)
            | Op::Pack { .. }
    )
}

/// A uniform op whose lane bits are a lane-wise function of its operands' lane bits: AND,
/// OR, XOR, NOT of masks, and the 32-bit cut (`Lo`) and zero extension of a mask.
pub(crate) fn group_mask_op(blk: &Block, op: &Op) -> bool {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let scalar = |v: &Val| matches!(ty(v), Some(Ty::S32 | Ty::S64));
    match op {
        Op::Bin(BinOp::And | BinOp::Or | BinOp::Xor, a, b) => scalar(a) && ty(a) == ty(b),
        Op::Un(UnOp::Not, a) => scalar(a),
        Op::Conv(ConvOp::Lo, a) => ty(a) == Some(Ty::S64),
        Op::Conv(ConvOp::ZExt, a) => ty(a) == Some(Ty::S32),
        _ => false,
    }
}
