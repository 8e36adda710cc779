//! Packed (VOP3P) two-element math: `v_pk_*_f32`, `v_pk_*_{f16,u16,i16}`, `v_pk_fmac_f16`.

use super::common::*;
use crate::ir::{BinOp, ConvOp, RoundedOp, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_PK_ADD_F32 | V_PK_MUL_F32 | V_PK_FMA_F32 | V_PK_MOV_B32 => pk_f32(l, inst, op),
        V_PK_ADD_F16 | V_PK_MUL_F16 | V_PK_MAX_F16 | V_PK_MIN_F16 | V_PK_FMA_F16 | V_PK_ADD_U16
        | V_PK_ADD_I16 | V_PK_SUB_U16 | V_PK_SUB_I16 | V_PK_MUL_LO_U16 | V_PK_MAX_U16
        | V_PK_MAX_I16 | V_PK_MIN_U16 | V_PK_MIN_I16 | V_PK_LSHLREV_B16 | V_PK_LSHRREV_B16
        | V_PK_ASHRREV_I16 | V_PK_MAD_U16 | V_PK_MAD_I16 | V_PK_MAXIMUM3_F16
        | V_PK_MINIMUM3_F16 => pk16(l, inst, op),
        V_PK_FMAC_F16 => {
            // D.h = fma(S0.h, S1.h, D.h) for both halves (no op_sel on this VOP2).
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let c = acc_src(l, inst, K::B32)?;
            let mut halves = Vec::new();
            for h in 0..2u64 {
                let [x, y, z] = [a, b, c].map(|v| {
                    let t = if h == 1 { l.lshr_imm(v, 16) } else { v };
                    let t = l.and_imm(t, 0xffff);
                    if l.denorm_allowed(K::F16, 1) {
                        t
                    } else {
                        l.flush_denorm(t, K::F16)
                    }
                });
                halves.push(f16_arith(l, RoundedOp::FmaF16, vec![x, y, z]));
            }
            let hi = l.shl_imm(halves[1], 16);
            let r = l.or(halves[0], hi);
            l.vdst32(r)
        }
        _ => Err("not supported".into()),
    }
}

/// The two dwords of a packed-f32 (VOP3P) source: a register pair, or a scalar/constant
/// used for both halves (an SGPR pair gives its two registers).
pub(in crate::lift) fn pk_src(l: &mut Lifter, inst: &Inst, i: usize) -> R<[Val; 2]> {
    let o = inst.src[i];
    if let Some(r) = o.vreg() {
        let lo = l.get_vreg(r)?;
        let hi = l.get_vreg(r + 1)?;
        return Ok([lo, hi]);
    }
    if let Some(r) = o.sreg() {
        let _ = r;
        let v = l.s64(o, K::B64)?;
        let lo = l.lo(v);
        let hi = l.hi(v);
        return Ok([l.bcast(lo), l.bcast(hi)]);
    }
    let c = l.v32(o, K::F32)?;
    Ok([c, c])
}

/// `v_pk_{add,mul,fma}_f32`, `v_pk_mov_b32` (gfx90a+ VOP3P on 64-bit register pairs): the low
/// result takes dword `op_sel[i]` of each source, the high result dword `op_sel_hi[i]`;
/// `neg_lo`/`neg_hi` negate the selected operands of the low/high halves.
pub(in crate::lift) fn pk_f32(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let n = match op {
        V_PK_FMA_F32 => 3,
        V_PK_MOV_B32 => 2,
        _ => 2,
    };
    let mut srcs = Vec::new();
    for i in 0..n {
        srcs.push(pk_src(l, inst, i)?);
    }
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let m = inst.mods;
    let mut out = [None, None];
    for (half, slot) in out.iter_mut().enumerate() {
        let sel = if half == 0 { m.op_sel } else { m.op_sel_hi };
        let neg = if half == 0 { m.neg } else { m.neg_hi };
        let mut ops = Vec::new();
        for (i, s) in srcs.iter().enumerate() {
            let mut x = s[(sel >> i & 1) as usize];
            if op != V_PK_MOV_B32 && neg >> i & 1 != 0 {
                x = l.un(UnOp::FNeg, x);
            }
            // MODE.FP_DENORM's f32 field applies to packed f32 math as to every f32 VALU op
            // (CDNA4 ISA 6.4 excepts only V_DOT2); a move copies bits.
            if op != V_PK_MOV_B32 && !l.denorm_allowed(K::F32, 1) {
                x = l.flush_denorm(x, K::F32);
            }
            ops.push(x);
        }
        let r = match op {
            V_PK_ADD_F32 => farith(l, FAdd, K::F32, ops[0], ops[1]),
            V_PK_MUL_F32 => farith(l, FMul, K::F32, ops[0], ops[1]),
            V_PK_FMA_F32 => ffma(l, K::F32, ops[0], ops[1], ops[2]),
            // v_pk_mov_b32: D.lo = src0[op_sel[0]], D.hi = src1[op_sel[1]].
            _ => srcs[half][(m.op_sel >> half & 1) as usize],
        };
        let r = if m.clamp && op != V_PK_MOV_B32 {
            let z = l.cst(r, 0);
            let o = l.cst(r, 0x3f80_0000);
            let t = l.bin(FMaxNum, r, z);
            l.bin(FMinNum, t, o)
        } else {
            r
        };
        let r = if op != V_PK_MOV_B32 && !l.denorm_allowed(K::F32, 2) {
            l.flush_denorm(r, K::F32)
        } else {
            r
        };
        *slot = Some(r);
    }
    let w = l.wmask();
    for (half, r) in out.into_iter().enumerate() {
        let r = r.ok_or("missing half")?;
        l.set_vreg(reg + half as u16, r, w)?;
    }
    Ok(())
}

/// VOP3P packed 16-bit ops: the low result uses half `op_sel[i]` of each source and `neg`,
/// the high result half `op_sel_hi[i]` and `neg_hi`. Float ops are computed in f32 (exact
/// before the single rounding to f16 for add/mul/min/max; FMA may double-round in rare ties).
pub(in crate::lift) fn pk16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let m = inst.mods;
    let (op, float, signed) = pk16_decode(op).ok_or("not a packed 16-bit operation")?;
    let n = if matches!(op, Pk::Fma | Pk::Mad | Pk::Maximum3 | Pk::Minimum3) {
        3
    } else {
        2
    };
    let mut halves = [None, None];
    for (h, slot) in halves.iter_mut().enumerate() {
        let sel = if h == 0 { m.op_sel } else { m.op_sel_hi };
        let neg = if h == 0 { m.neg } else { m.neg_hi };
        let mut ops = Vec::new();
        for i in 0..n {
            let k = if float { K::F16 } else { K::B16 };
            let mut x = half_src(l, inst, i, sel >> i & 1, k)?;
            if float {
                if neg >> i & 1 != 0 {
                    let c = l.cst(x, 0x8000);
                    x = l.xor(x, c);
                }
                // MODE.FP_DENORM input flushing (f64/f16 field).
                if !l.denorm_allowed(K::F16, 1) {
                    x = l.flush_denorm(x, K::F16);
                }
            } else if signed {
                x = l.conv(ConvOp::SExt16, x);
            }
            ops.push(x);
        }
        let r = if float {
            // f16 bits in the low halves; min/max compare in f32 (exact).
            let r = match op {
                Pk::Add => f16_arith(l, RoundedOp::AddF16, ops.clone()),
                Pk::Mul => f16_arith(l, RoundedOp::MulF16, ops.clone()),
                Pk::Max | Pk::Min => fminmax(l, op == Pk::Max, K::F16, ops[0], ops[1]),
                Pk::Maximum3 | Pk::Minimum3 => {
                    let max = op == Pk::Maximum3;
                    let t = fmaximum(l, max, K::F16, ops[0], ops[1]);
                    fmaximum(l, max, K::F16, t, ops[2])
                }
                _ => f16_arith(l, RoundedOp::FmaF16, ops.clone()),
            };
            if m.clamp {
                clamp16(l, r)
            } else {
                r
            }
        } else {
            if m.clamp && matches!(op, Pk::Mul | Pk::Shl | Pk::LShr | Pk::AShr) {
                // The ISA's integer clamp (saturate to the representable range, CDNA ISA 6.5)
                // does not say what range a low product or a shift saturates to.
                return Err("clamp on a packed mul_lo or shift is not supported".into());
            }
            let r = match op {
                Pk::Add => l.add(ops[0], ops[1]),
                Pk::Sub => l.bin(Sub, ops[0], ops[1]),
                Pk::Mul => l.bin(Mul, ops[0], ops[1]),
                Pk::Max if signed => l.bin(SMax, ops[0], ops[1]),
                Pk::Max => l.bin(UMax, ops[0], ops[1]),
                Pk::Min if signed => l.bin(SMin, ops[0], ops[1]),
                Pk::Min => l.bin(UMin, ops[0], ops[1]),
                Pk::Shl | Pk::LShr | Pk::AShr => {
                    let s = l.and_imm(ops[0], 15);
                    let o = match op {
                        Pk::Shl => Shl,
                        Pk::LShr => LShr,
                        _ => AShr,
                    };
                    l.bin(o, ops[1], s)
                }
                _ => {
                    let p = l.bin(Mul, ops[0], ops[1]);
                    l.add(p, ops[2])
                }
            };
            // `r` is exact in 32 bits (i32 for signed ops); clamp saturates it to 16 bits
            // (CDNA ISA 6.5); min/max results are always in range.
            let r = match (m.clamp, signed, op) {
                (false, ..) | (_, _, Pk::Max | Pk::Min) => r,
                (true, true, _) => {
                    let lo = l.cst(r, 0xffff_8000);
                    let hi = l.cst(r, 0x7fff);
                    let t = l.bin(SMax, r, lo);
                    l.bin(SMin, t, hi)
                }
                (true, false, _) => {
                    // A difference below zero saturates to 0; sums and mads are not negative.
                    let t = if op == Pk::Sub {
                        let z = l.cst(r, 0);
                        l.bin(SMax, r, z)
                    } else {
                        r
                    };
                    let hi = l.cst(t, 0xffff);
                    l.bin(UMin, t, hi)
                }
            };
            l.and_imm(r, 0xffff)
        };
        *slot = Some(r);
    }
    let lo = halves[0].ok_or("missing half")?;
    let hi = halves[1].ok_or("missing half")?;
    let hi = l.shl_imm(hi, 16);
    let r = l.or(lo, hi);
    l.vdst32(r)
}

/// The operation of a packed 16-bit instruction ([`pk16`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pk {
    Add,
    Sub,
    /// The product (the low 16 bits for integers).
    Mul,
    Max,
    Min,
    Maximum3,
    Minimum3,
    Fma,
    Mad,
    Shl,
    LShr,
    AShr,
}

/// The operation of `op`, whether its elements are f16, and whether they are signed.
fn pk16_decode(op: ValuSem) -> Option<(Pk, bool, bool)> {
    Some(match op {
        V_PK_ADD_F16 => (Pk::Add, true, false),
        V_PK_MUL_F16 => (Pk::Mul, true, false),
        V_PK_MAX_F16 => (Pk::Max, true, false),
        V_PK_MIN_F16 => (Pk::Min, true, false),
        V_PK_FMA_F16 => (Pk::Fma, true, false),
        V_PK_MAXIMUM3_F16 => (Pk::Maximum3, true, false),
        V_PK_MINIMUM3_F16 => (Pk::Minimum3, true, false),
        V_PK_ADD_U16 => (Pk::Add, false, false),
        V_PK_ADD_I16 => (Pk::Add, false, true),
        V_PK_SUB_U16 => (Pk::Sub, false, false),
        V_PK_SUB_I16 => (Pk::Sub, false, true),
        V_PK_MUL_LO_U16 => (Pk::Mul, false, false),
        V_PK_MAX_U16 => (Pk::Max, false, false),
        V_PK_MAX_I16 => (Pk::Max, false, true),
        V_PK_MIN_U16 => (Pk::Min, false, false),
        V_PK_MIN_I16 => (Pk::Min, false, true),
        V_PK_LSHLREV_B16 => (Pk::Shl, false, false),
        V_PK_LSHRREV_B16 => (Pk::LShr, false, false),
        V_PK_ASHRREV_I16 => (Pk::AShr, false, true),
        V_PK_MAD_U16 => (Pk::Mad, false, false),
        V_PK_MAD_I16 => (Pk::Mad, false, true),
        _ => return None,
    })
}

/// gfx12 `v_pk_minimum_f16` / `v_pk_maximum_f16` (the IEEE-754-2019 rule of
/// `v_minimum_f16`) and `v_pk_min_num_f16` / `v_pk_max_num_f16` (minimumNumber) on each half (low: halves `op_sel[i]`, `neg`; high: `op_sel_hi[i]`,
/// `neg_hi`).
pub(in crate::lift) fn pk_minimum16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.clamp {
        return Err("clamp on a packed min/max is not supported".into());
    }
    l.count_vector();
    let max = matches!(op, V_PK_MAXIMUM_F16 | V_PK_MAX_NUM_F16);
    let rule = if matches!(op, V_PK_MIN_NUM_F16 | V_PK_MAX_NUM_F16) {
        MinMax::Num
    } else {
        MinMax::Ieee2019
    };
    let mut out = Vec::new();
    for hi in [false, true] {
        let v = [packed_elem(l, inst, 0, hi)?, packed_elem(l, inst, 1, hi)?];
        out.push(minmax16(l, rule, max, v[0], v[1]));
    }
    let lo = l.and_imm(out[0], 0xffff);
    let hi = l.shl_imm(out[1], 16);
    let r = l.or(lo, hi);
    l.vdst32(r)
}
