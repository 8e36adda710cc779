//! Packed (VOP3P) two-element math: `v_pk_*_f32`, `v_pk_*_{f16,u16,i16}`, `v_pk_fmac_f16`.

use super::common::*;
use crate::ir::{BinOp, ConvOp, RoundedOp, UnOp, Val};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `base` (the mnemonic without `v_`) when it is one of this module's instructions;
/// `Ok(false)` when it is not.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, base: &str) -> R<bool> {
    match base {
        "pk_add_f32" | "pk_mul_f32" | "pk_fma_f32" | "pk_mov_b32" => pk_f32(l, inst, base),
        "pk_add_f16" | "pk_mul_f16" | "pk_max_f16" | "pk_min_f16" | "pk_fma_f16" | "pk_add_u16"
        | "pk_add_i16" | "pk_sub_u16" | "pk_sub_i16" | "pk_mul_lo_u16" | "pk_max_u16"
        | "pk_max_i16" | "pk_min_u16" | "pk_min_i16" | "pk_lshlrev_b16" | "pk_lshrrev_b16"
        | "pk_ashrrev_i16" | "pk_mad_u16" | "pk_mad_i16" | "pk_maximum3_f16"
        | "pk_minimum3_f16" => pk16(l, inst, base),
        "pk_fmac_f16" => {
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
        _ => return Ok(false),
    }?;
    Ok(true)
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
pub(in crate::lift) fn pk_f32(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let n = match base {
        "pk_fma_f32" => 3,
        "pk_mov_b32" => 2,
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
            if base != "pk_mov_b32" && neg >> i & 1 != 0 {
                x = l.un(UnOp::FNeg, x);
            }
            ops.push(x);
        }
        let r = match base {
            "pk_add_f32" => farith(l, FAdd, K::F32, ops[0], ops[1]),
            "pk_mul_f32" => farith(l, FMul, K::F32, ops[0], ops[1]),
            "pk_fma_f32" => ffma(l, K::F32, ops[0], ops[1], ops[2]),
            // v_pk_mov_b32: D.lo = src0[op_sel[0]], D.hi = src1[op_sel[1]].
            _ => srcs[half][(m.op_sel >> half & 1) as usize],
        };
        let r = if m.clamp && base != "pk_mov_b32" {
            let z = l.cst(r, 0);
            let o = l.cst(r, 0x3f80_0000);
            let t = l.bin(FMaxNum, r, z);
            l.bin(FMinNum, t, o)
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
pub(in crate::lift) fn pk16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let m = inst.mods;
    let float = base.ends_with("f16");
    let n = if base.contains("fma") || base.contains("mad") || base.contains("imum3") {
        3
    } else {
        2
    };
    let op = base.strip_prefix("pk_").unwrap_or(base);
    let op = op.rsplit_once('_').map(|x| x.0).unwrap_or(op);
    let signed = base.ends_with("i16");
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
                "add" => f16_arith(l, RoundedOp::AddF16, ops.clone()),
                "mul" => f16_arith(l, RoundedOp::MulF16, ops.clone()),
                "max" | "min" => fminmax(l, op == "max", K::F16, ops[0], ops[1]),
                "maximum3" | "minimum3" => {
                    let max = op == "maximum3";
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
            if m.clamp && matches!(op, "mul_lo" | "lshlrev" | "lshrrev" | "ashrrev") {
                // The ISA's integer clamp (saturate to the representable range, CDNA ISA 6.5)
                // does not say what range a low product or a shift saturates to.
                return Err("clamp on a packed mul_lo or shift is not supported".into());
            }
            let r = match op {
                "add" => l.add(ops[0], ops[1]),
                "sub" => l.bin(Sub, ops[0], ops[1]),
                "mul_lo" => l.bin(Mul, ops[0], ops[1]),
                "max" if signed => l.bin(SMax, ops[0], ops[1]),
                "max" => l.bin(UMax, ops[0], ops[1]),
                "min" if signed => l.bin(SMin, ops[0], ops[1]),
                "min" => l.bin(UMin, ops[0], ops[1]),
                "lshlrev" | "lshrrev" | "ashrrev" => {
                    let s = l.and_imm(ops[0], 15);
                    let o = match op {
                        "lshlrev" => Shl,
                        "lshrrev" => LShr,
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
                (false, ..) | (_, _, "max" | "min") => r,
                (true, true, _) => {
                    let lo = l.cst(r, 0xffff_8000);
                    let hi = l.cst(r, 0x7fff);
                    let t = l.bin(SMax, r, lo);
                    l.bin(SMin, t, hi)
                }
                (true, false, _) => {
                    // A difference below zero saturates to 0; sums and mads are not negative.
                    let t = if op == "sub" {
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
