//! Float min/max with RDNA's rules: RDNA4 `v_minimum/maximum*` (IEEE-754-2019: a NaN input
//! gives a NaN, −0 < +0), the gfx11 `v_minmax/maxmin` and gfx12 `*_num` forms
//! (minimumNumber/maximumNumber), `v_med3_num`; the SALU float min/max (`salu::float`) share the rules in `common`.

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;

/// The RDNA float min/max operations: the rule and the max flags applied left to right over
/// the sources (`v_minimum/maximum*` IEEE-754-2019; gfx11 `v_minmax/maxmin` and gfx12
/// `*_num` minimumNumber/maximumNumber, like `v_min_f32`).
pub(in crate::lift) fn fminmax(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    use MinMax::*;
    const MIN: &[bool] = &[false];
    const MAX: &[bool] = &[true];
    const MIN3: &[bool] = &[false, false];
    const MAX3: &[bool] = &[true, true];
    const MINMAX: &[bool] = &[false, true];
    const MAXMIN: &[bool] = &[true, false];
    let (k, rule, seq) = match op {
        V_MINIMUM_F32 => (K::F32, Ieee2019, MIN),
        V_MINIMUM_F16 => (K::F16, Ieee2019, MIN),
        V_MINIMUM_F64 => (K::F64, Ieee2019, MIN),
        V_MAXIMUM_F32 => (K::F32, Ieee2019, MAX),
        V_MAXIMUM_F16 => (K::F16, Ieee2019, MAX),
        V_MAXIMUM_F64 => (K::F64, Ieee2019, MAX),
        V_MINIMUM3_F32 => (K::F32, Ieee2019, MIN3),
        V_MINIMUM3_F16 => (K::F16, Ieee2019, MIN3),
        V_MAXIMUM3_F32 => (K::F32, Ieee2019, MAX3),
        V_MAXIMUM3_F16 => (K::F16, Ieee2019, MAX3),
        V_MINIMUMMAXIMUM_F32 => (K::F32, Ieee2019, MINMAX),
        V_MINIMUMMAXIMUM_F16 => (K::F16, Ieee2019, MINMAX),
        V_MAXIMUMMINIMUM_F32 => (K::F32, Ieee2019, MAXMIN),
        V_MAXIMUMMINIMUM_F16 => (K::F16, Ieee2019, MAXMIN),
        V_MINMAX_F32 => (K::F32, Num, MINMAX),
        V_MINMAX_F16 => (K::F16, Num, MINMAX),
        V_MAXMIN_F32 => (K::F32, Num, MAXMIN),
        V_MAXMIN_F16 => (K::F16, Num, MAXMIN),
        V_MIN_NUM_F16 => (K::F16, Num, MIN),
        V_MIN_NUM_F64 => (K::F64, Num, MIN),
        V_MAX_NUM_F16 => (K::F16, Num, MAX),
        V_MAX_NUM_F64 => (K::F64, Num, MAX),
        V_MIN3_NUM_F32 => (K::F32, Num, MIN3),
        V_MIN3_NUM_F16 => (K::F16, Num, MIN3),
        V_MAX3_NUM_F32 => (K::F32, Num, MAX3),
        V_MAX3_NUM_F16 => (K::F16, Num, MAX3),
        V_MINMAX_NUM_F32 => (K::F32, Num, MINMAX),
        V_MINMAX_NUM_F16 => (K::F16, Num, MINMAX),
        V_MAXMIN_NUM_F32 => (K::F32, Num, MAXMIN),
        V_MAXMIN_NUM_F16 => (K::F16, Num, MAXMIN),
        _ => return Err("not supported".into()),
    };
    fminmax_apply(l, inst, k, rule, seq)
}

pub(in crate::lift) fn fminmax_apply(
    l: &mut Lifter,
    inst: &Inst,
    k: K,
    rule: MinMax,
    seq: &[bool],
) -> R<()> {
    l.count_vector();
    let mut acc = l.src(0, k)?;
    for (i, &max) in seq.iter().enumerate() {
        let b = l.src(i + 1, k)?;
        acc = if k == K::F16 {
            minmax16(l, rule, max, acc, b)
        } else {
            minmax(l, rule, max, acc, b)
        };
    }
    if k == K::F16 {
        // OMOD and clamp apply to f16 results as to f32 ones (RDNA4 ISA 7.2.3).
        let r = out16(l, inst, acc)?;
        return write16(l, inst, r);
    }
    let r = l.fout(acc, k)?;
    if k == K::F64 {
        l.vdst64(r)
    } else {
        l.vdst32(r)
    }
}

/// gfx12 `v_med3_num_f32/f16` (RDNA4 ISA, V_MED3_NUM_F32): with a NaN input, the
/// `min3_num` of the three; otherwise the `max_num` of the two inputs other than the first
/// one equal to their `max3_num`. f16 values are compared as exact f32 conversions.
pub(in crate::lift) fn med3_num(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    l.count_vector();
    let f16 = op == V_MED3_NUM_F16;
    let k = if f16 { K::F16 } else { K::F32 };
    let mut v = Vec::new();
    for i in 0..3 {
        let x = l.src(i, k)?;
        v.push(if f16 { l.conv(ConvOp::F16ToF32, x) } else { x });
    }
    let (a, b, c) = (v[0], v[1], v[2]);
    let mn = |l: &mut Lifter, x: Val, y: Val| l.bin(BinOp::FMinNum, x, y);
    let mx = |l: &mut Lifter, x: Val, y: Val| l.bin(BinOp::FMaxNum, x, y);
    let t = mn(l, a, b);
    let min3 = mn(l, t, c);
    let t = mx(l, a, b);
    let max3 = mx(l, t, c);
    let any_nan = {
        let na = l.cmp(CmpOp::FUno, a, a);
        let nb = l.cmp(CmpOp::FUno, b, b);
        let nc = l.cmp(CmpOp::FUno, c, c);
        let t = l.or(na, nb);
        l.or(t, nc)
    };
    let is_a = l.cmp(CmpOp::FEq, max3, a);
    let is_b = l.cmp(CmpOp::FEq, max3, b);
    let bc = mx(l, b, c);
    let ac = mx(l, a, c);
    let ab = mx(l, a, b);
    let r = l.select(is_b, ac, ab);
    let r = l.select(is_a, bc, r);
    let r = l.select(any_nan, min3, r);
    if f16 {
        let h = l.conv(ConvOp::F32ToF16, r);
        let h = out16(l, inst, h)?;
        write16(l, inst, h)
    } else {
        let r = l.fout(r, K::F32)?;
        l.vdst32(r)
    }
}
