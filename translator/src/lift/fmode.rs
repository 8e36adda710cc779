//! What MODE makes of float results, for every instruction class that computes floats (the
//! vector ALU and the gfx12 scalar float ops): the rounding direction (FP_ROUND), f16
//! overflow (FP16_OVFL), results rounded once in that direction, and the float min/max rules.

use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, Ty, UnOp, Val};
use crate::lift::operand::K;
use crate::lift::Lifter;

/// MODE.FP_ROUND for results of kind `k`: bits [1:0] for f32, [3:2] for f64 and f16
/// (CDNA3/CDNA4 ISA 3.5, MODE register).
pub(in crate::lift) fn round_of(l: &Lifter, k: K) -> Round {
    if k == K::F32 {
        Round::from_field(l.mode)
    } else {
        Round::from_field(l.mode >> 2)
    }
}

/// MODE.FP16_OVFL (bit 23): an f16 result that overflows becomes ±MAX_F16, not ±Inf.
pub(in crate::lift) fn fp16_ovfl(l: &Lifter) -> bool {
    l.mode >> 23 & 1 != 0
}

/// `op` rounded once in the MODE direction for results of kind `k` (a lane function).
pub(in crate::lift) fn rounded(l: &mut Lifter, op: RoundedOp, k: K, args: Vec<Val>) -> Val {
    let rm = round_of(l, k);
    let ovfl = k == K::F16 && fp16_ovfl(l);
    let ty = if op.wide_result() { Ty::V64 } else { Ty::V32 };
    l.lane_fn(LaneFn::Rounded(op, rm, ovfl), args, ty)
}

/// Which float min/max rule.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::lift) enum MinMax {
    /// IEEE-754-2019 minimumNumber/maximumNumber (= 2008 minNum/maxNum with −0 < +0).
    Num,
    /// IEEE-754-2019 minimum/maximum: a NaN input gives a NaN (an sNaN first, quieted).
    Ieee2019,
}

/// `min` (or `max`) of `a` and `b` under `rule`, for f32/f64 operands (RDNA4 ISA,
/// V_MINIMUM_F32: sNaN S0, sNaN S1, qNaN S0, qNaN S1 in that priority, each quieted; else
/// the smaller, −0 < +0).
pub(in crate::lift) fn minmax(l: &mut Lifter, rule: MinMax, max: bool, a: Val, b: Val) -> Val {
    let op = if max { BinOp::FMaxNum } else { BinOp::FMinNum };
    let r = l.bin(op, a, b);
    if rule == MinMax::Num {
        return r;
    }
    let (qa, qb) = (l.un(UnOp::FQuiet, a), l.un(UnOp::FQuiet, b));
    let (na, nb) = (l.cmp(CmpOp::FUno, a, a), l.cmp(CmpOp::FUno, b, b));
    let snan = l.cst(a, 1);
    let (sa, sb) = (l.cmp(CmpOp::FClass, a, snan), l.cmp(CmpOp::FClass, b, snan));
    let t = l.select(nb, qb, r);
    let t = l.select(na, qa, t);
    let t = l.select(sb, qb, t);
    l.select(sa, qa, t)
}

/// f16 `min`/`max` of the low 16 bits of `a` and `b`: the ordered result is computed on the
/// exactly converted f32 values (both NaN: `a` quieted, payload kept); the IEEE-754-2019 NaN
/// priority is decided on the f16 bits (the f16 → f32 conversion quiets NaNs).
pub(in crate::lift) fn minmax16(l: &mut Lifter, rule: MinMax, max: bool, a: Val, b: Val) -> Val {
    let (fa, fb) = (l.conv(ConvOp::F16ToF32, a), l.conv(ConvOp::F16ToF32, b));
    let op = if max { BinOp::FMaxNum } else { BinOp::FMinNum };
    let r = l.bin(op, fa, fb);
    let r = l.conv(ConvOp::F32ToF16, r);
    if rule == MinMax::Num {
        return r;
    }
    let class = |l: &mut Lifter, x: Val| {
        let mag = l.and_imm(x, 0x7fff);
        let inf = l.cst(x, 0x7c00);
        let nan = l.cmp(CmpOp::UGt, mag, inf);
        let qbit = l.and_imm(x, 0x200);
        let zero = l.cst(x, 0);
        let signalling = l.cmp(CmpOp::Eq, qbit, zero);
        let snan = l.and(nan, signalling);
        let qb = l.cst(x, 0x200);
        let q = l.or(x, qb);
        let q = l.and_imm(q, 0xffff);
        (nan, snan, q)
    };
    let (na, sa, qa) = class(l, a);
    let (nb, sb, qb) = class(l, b);
    let t = l.select(nb, qb, r);
    let t = l.select(na, qa, t);
    let t = l.select(sb, qb, t);
    l.select(sa, qa, t)
}
