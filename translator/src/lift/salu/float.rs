//! SALU float instructions (gfx12; RDNA4 ISA 6.8 and 16.1/16.3/16.4): `s_add/sub/mul_f32/f16`,
//! `s_fmac/fmaak/fmamk`, `s_min/max_num`, `s_minimum/maximum`, `s_ceil/floor/trunc/rndne`,
//! the conversions and `s_cmp_*_f32/f16`. They "produce identical results with their VALU
//! counterparts": MODE rounding, denormal flushing and FP16_OVFL apply as there.

use super::super::operand::{K, R};
use super::super::Lifter;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, TernOp, Ty, UnOp, Val};
use crate::isa::Inst;
use crate::lift::fmode::{self, minmax, MinMax};

/// A SALU float operation (the operand kind comes with it, see [`lift`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum FloatOp {
    Add,
    Sub,
    Mul,
    MinNum,
    MaxNum,
    Minimum,
    Maximum,
    /// `D = S0 * S1 + D`.
    Fmac,
    /// `D = S0 * S1 + K` (LLVM's operand order: s0, s1, K).
    Fmaak,
    /// `D = S0 * K + S1` (LLVM's operand order: s0, K, s1).
    Fmamk,
    Ceil,
    Floor,
    Trunc,
    Rndne,
    /// `s_cmp_<cond>_f32/f16`: SCC = the comparison.
    Cmp(CmpOp),
    CvtF32I32,
    CvtF32U32,
    CvtI32F32,
    CvtU32F32,
    CvtF32F16,
    CvtHiF32F16,
    CvtF16F32,
    CvtPkRtzF16F32,
}

/// The SALU float instructions (RDNA4 ISA 6.8 and 16.1/16.3/16.4) on operands of kind `k`
/// (`F32` or `F16`; the conversions name their own). f16 arithmetic is done in f32 and
/// rounded once (exact for add, sub, mul and min/max; `s_fmac_f16` may double-round in rare
/// ties, as the VALU f16 FMAs); f16 results zero the high half. Under a directed MODE
/// rounding (or FP16_OVFL for f16 results), arithmetic goes through `salu_float_directed`
/// and the rounding conversions through `scalar_rounded`.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: FloatOp, k: K) -> R<()> {
    if let FloatOp::Cmp(c) = op {
        let a = fsrc(l, inst, 0, k)?;
        let b = fsrc(l, inst, 1, k)?;
        let (a, b) = if k == K::F16 {
            (l.conv(ConvOp::F16ToF32, a), l.conv(ConvOp::F16ToF32, b))
        } else {
            (a, b)
        };
        let r = l.cmp(c, a, b);
        l.set_scc(r);
        return Ok(());
    }
    salu_float_op(l, inst, op, k)
}

/// A scalar float source: MODE input denormal flushing applies (RDNA4 ISA 6.8: "Rounding
/// and denormal handling follow the MODE.round and MODE.denorm settings"); f16 sources are
/// the low 16 bits.
fn fsrc(l: &mut Lifter, inst: &Inst, i: usize, k: K) -> R<Val> {
    let v = l.s32(inst.src[i], k)?;
    let v = if k == K::F16 { l.and_imm(v, 0xffff) } else { v };
    Ok(if l.denorm_allowed(k, 1) {
        v
    } else {
        l.flush_denorm(v, k)
    })
}

/// `op` on scalar operands rounded once in the MODE direction for results of kind `k`, with
/// FP16_OVFL for f16 results: the VALU's rounded lane function on a broadcast, lane 0 read
/// back (RDNA4 ISA 6.8: the scalar float instructions "produce identical results with their
/// VALU counterparts"; rounding follows MODE.round).
fn scalar_rounded(l: &mut Lifter, op: RoundedOp, k: K, args: Vec<Val>) -> Val {
    let lanes: Vec<Val> = args.into_iter().map(|a| l.bcast(a)).collect();
    let v = fmode::rounded(l, op, k, lanes);
    let zero = l.c32(0);
    l.read_lane(v, zero)
}

/// Whether a result of kind `k` needs [`scalar_rounded`]: a directed MODE rounding, or
/// FP16_OVFL for an f16 result (the IR's conversions round to nearest even and overflow to
/// infinity).
fn needs_rounded(l: &Lifter, k: K) -> bool {
    fmode::round_of(l, k) != Round::NearestEven || (k == K::F16 && fmode::fp16_ovfl(l))
}

/// Output denormal flushing of a scalar float result.
fn fres(l: &mut Lifter, v: Val, k: K) -> Val {
    if l.denorm_allowed(k, 2) {
        v
    } else {
        l.flush_denorm(v, k)
    }
}

fn salu_float_op(l: &mut Lifter, inst: &Inst, op: FloatOp, k: K) -> R<()> {
    use FloatOp::*;
    // Conversions, named `s_cvt_<to>_<from>`.
    match op {
        CvtF32I32 | CvtF32U32 => {
            // Rounded in the f32 MODE direction (RDNA4 ISA 16.3 S_CVT_F32_I32/U32: `D0.f32 =
            // i32_to_f32(S0.i32)`, as V_CVT_F32_I32).
            let a = l.s32(inst.src[0], K::B32)?;
            let signed = op == CvtF32I32;
            let r = if needs_rounded(l, K::F32) {
                let op = if signed {
                    RoundedOp::I32ToF32
                } else {
                    RoundedOp::U32ToF32
                };
                scalar_rounded(l, op, K::F32, vec![a])
            } else if signed {
                l.conv(ConvOp::I32ToF32, a)
            } else {
                l.conv(ConvOp::U32ToF32, a)
            };
            return l.set_s32(inst.dst[0], r);
        }
        CvtI32F32 | CvtU32F32 => {
            // Toward zero, saturating, NaN → 0 (the IR's conversion rule).
            let a = fsrc(l, inst, 0, K::F32)?;
            let c = if op == CvtI32F32 {
                ConvOp::F32ToI32
            } else {
                ConvOp::F32ToU32
            };
            let r = l.conv(c, a);
            return l.set_s32(inst.dst[0], r);
        }
        CvtF32F16 | CvtHiF32F16 => {
            let a = l.s32(inst.src[0], K::F16)?;
            let a = if op == CvtHiF32F16 {
                l.lshr_imm(a, 16)
            } else {
                a
            };
            let a = l.and_imm(a, 0xffff);
            let a = if l.denorm_allowed(K::F16, 1) {
                a
            } else {
                l.flush_denorm(a, K::F16)
            };
            let r = l.conv(ConvOp::F16ToF32, a);
            let r = fres(l, r, K::F32);
            return l.set_s32(inst.dst[0], r);
        }
        CvtF16F32 => {
            // Rounded in the f16 (f64/f16) MODE direction with FP16_OVFL, as V_CVT_F16_F32
            // ("Output rounding based on DP rounding mode", RDNA4 ISA 16.8).
            let a = fsrc(l, inst, 0, K::F32)?;
            let r = if needs_rounded(l, K::F16) {
                scalar_rounded(l, RoundedOp::F32ToF16, K::F16, vec![a])
            } else {
                l.conv(ConvOp::F32ToF16, a)
            };
            let r = fres(l, r, K::F16);
            let r = l.and_imm(r, 0xffff);
            return l.set_s32(inst.dst[0], r);
        }
        CvtPkRtzF16F32 => {
            // Through the VALU's lane function on a broadcast (lane 0 read back).
            let a = fsrc(l, inst, 0, K::F32)?;
            let b = fsrc(l, inst, 1, K::F32)?;
            let (va, vb) = (l.bcast(a), l.bcast(b));
            let v = l.lane_fn(LaneFn::PkRtzF16F32, vec![va, vb], Ty::V32);
            let zero = l.c32(0);
            let r = l.read_lane(v, zero);
            return l.set_s32(inst.dst[0], r);
        }
        _ => {}
    }
    // Min/max and the integral roundings are exact (in f16 through f32 too): no MODE
    // rounding direction or overflow applies to them. Add, sub, mul and the FMAs round once
    // in a directed MODE direction, or with FP16_OVFL, through `scalar_rounded`, in f16
    // directly.
    let exact = matches!(
        op,
        MinNum | MaxNum | Minimum | Maximum | Ceil | Floor | Trunc | Rndne
    );
    if !exact && needs_rounded(l, k) {
        return salu_float_directed(l, inst, op, k);
    }
    let f16 = k == K::F16;
    let widen = |l: &mut Lifter, v: Val| {
        if f16 {
            l.conv(ConvOp::F16ToF32, v)
        } else {
            v
        }
    };
    let r = match op {
        Add | Sub | Mul | MinNum | MaxNum | Minimum | Maximum => {
            let a = fsrc(l, inst, 0, k)?;
            let b = fsrc(l, inst, 1, k)?;
            let (a, b) = (widen(l, a), widen(l, b));
            match op {
                Add => l.bin(BinOp::FAdd, a, b),
                Sub => l.bin(BinOp::FSub, a, b),
                Mul => l.bin(BinOp::FMul, a, b),
                MinNum => minmax(l, MinMax::Num, false, a, b),
                MaxNum => minmax(l, MinMax::Num, true, a, b),
                Minimum => minmax(l, MinMax::Ieee2019, false, a, b),
                _ => minmax(l, MinMax::Ieee2019, true, a, b),
            }
        }
        Fmac | Fmaak | Fmamk => {
            let a = fsrc(l, inst, 0, k)?;
            let (b, c) = match op {
                // D = S0 * S1 + D
                Fmac => {
                    let b = fsrc(l, inst, 1, k)?;
                    let d = l.s32(inst.dst[0], k)?;
                    let d = if f16 { l.and_imm(d, 0xffff) } else { d };
                    let d = if l.denorm_allowed(k, 1) {
                        d
                    } else {
                        l.flush_denorm(d, k)
                    };
                    (b, d)
                }
                // D = S0 * S1 + K (LLVM's operand order: s0, s1, K)
                Fmaak => (fsrc(l, inst, 1, k)?, fsrc(l, inst, 2, k)?),
                // D = S0 * K + S1 (LLVM's operand order: s0, K, s1)
                _ => (fsrc(l, inst, 1, k)?, fsrc(l, inst, 2, k)?),
            };
            let (a, b, c) = (widen(l, a), widen(l, b), widen(l, c));
            l.tern(TernOp::Fma, a, b, c)
        }
        Ceil | Floor | Trunc | Rndne => {
            let a = fsrc(l, inst, 0, k)?;
            let a = widen(l, a);
            let u = match op {
                Ceil => UnOp::FCeil,
                Floor => UnOp::FFloor,
                Trunc => UnOp::FTrunc,
                _ => UnOp::FRoundEven,
            };
            l.un(u, a)
        }
        Cmp(_) | CvtF32I32 | CvtF32U32 | CvtI32F32 | CvtU32F32 | CvtF32F16 | CvtHiF32F16
        | CvtF16F32 | CvtPkRtzF16F32 => return Err("conversion lifted above".into()),
    };
    let r = if f16 {
        let h = l.conv(ConvOp::F32ToF16, r);
        let h = fres(l, h, K::F16);
        l.and_imm(h, 0xffff)
    } else {
        fres(l, r, K::F32)
    };
    l.set_s32(inst.dst[0], r)
}

/// `s_add/sub/mul/fmac/fmaak/fmamk_f32/f16` under a directed MODE rounding direction (or an
/// f16 one with FP16_OVFL): one rounding of the exact result (RDNA4 ISA 6.8: SALU float
/// rounding follows MODE.round).
fn salu_float_directed(l: &mut Lifter, inst: &Inst, op: FloatOp, k: K) -> R<()> {
    use RoundedOp::*;
    let f16 = k == K::F16;
    let (rop, args) = match op {
        FloatOp::Add | FloatOp::Sub | FloatOp::Mul => {
            let rop = match (op, f16) {
                (FloatOp::Add, false) => AddF32,
                (FloatOp::Sub, false) => SubF32,
                (FloatOp::Mul, false) => MulF32,
                (FloatOp::Add, true) => AddF16,
                (FloatOp::Sub, true) => SubF16,
                _ => MulF16,
            };
            (rop, vec![fsrc(l, inst, 0, k)?, fsrc(l, inst, 1, k)?])
        }
        FloatOp::Fmac | FloatOp::Fmaak | FloatOp::Fmamk => {
            let a = fsrc(l, inst, 0, k)?;
            let b = fsrc(l, inst, 1, k)?;
            let c = if op == FloatOp::Fmac {
                let d = l.s32(inst.dst[0], k)?;
                let d = if f16 { l.and_imm(d, 0xffff) } else { d };
                if l.denorm_allowed(k, 1) {
                    d
                } else {
                    l.flush_denorm(d, k)
                }
            } else {
                fsrc(l, inst, 2, k)?
            };
            (if f16 { FmaF16 } else { FmaF32 }, vec![a, b, c])
        }
        _ => return Err("only add, sub, mul and the FMAs round in a MODE direction".into()),
    };
    let r = scalar_rounded(l, rop, k, args);
    let r = fres(l, r, k);
    let r = if f16 { l.and_imm(r, 0xffff) } else { r };
    l.set_s32(inst.dst[0], r)
}
