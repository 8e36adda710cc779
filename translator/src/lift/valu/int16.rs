//! 16-bit integer operations on VGPR halves (op_sel, GFX9 zero-extension or RDNA
//! half writes): add/sub/mul/shift/min/max, min3/max3/med3, mad, bitop3, `v_sat_pk_u8_i16`.

use super::common::*;
use crate::ir::{BinOp, ConvOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_MIN3_I16 | V_MIN3_U16 | V_MAX3_I16 | V_MAX3_U16 | V_MED3_I16 | V_MED3_U16 => {
            // The 16-bit halves chosen by op_sel, compared extended to 32 bits; clamp has no
            // effect (the result is one of the sources, see `i3_clamp_free`).
            let signed = matches!(op, V_MIN3_I16 | V_MAX3_I16 | V_MED3_I16);
            let v = srcs16_extended(l, signed)?;
            let (mn, mx) = if signed { (SMin, SMax) } else { (UMin, UMax) };
            let r = match op {
                V_MIN3_I16 | V_MIN3_U16 => {
                    let t = l.bin(mn, v[0], v[1]);
                    l.bin(mn, t, v[2])
                }
                V_MAX3_I16 | V_MAX3_U16 => {
                    let t = l.bin(mx, v[0], v[1]);
                    l.bin(mx, t, v[2])
                }
                _ => med3(l, v[0], v[1], v[2], mn, mx),
            };
            wr16(l, inst, r)
        }
        V_ADD_I16 | V_SUB_I16 => {
            // D.i16 = S0.i16 ± S1.i16, exact in 32 bits; clamp saturates to the i16 range
            // (CDNA ISA 6.5), else the low 16 bits.
            let a = l.src(0, K::B16)?;
            let b = l.src(1, K::B16)?;
            let (a, b) = (l.conv(ConvOp::SExt16, a), l.conv(ConvOp::SExt16, b));
            let r = if op == V_ADD_I16 {
                l.add(a, b)
            } else {
                l.bin(Sub, a, b)
            };
            let r = if inst.mods.clamp {
                saturate(l, r, true, 16)
            } else {
                r
            };
            wr16(l, inst, r)
        }
        V_BITOP3_B16 => {
            // The truth table on the 16-bit halves chosen by op_sel[2:0]; the result into the
            // half op_sel[3] (CDNA4 ISA, V_BITOP3_B16).
            let table = inst.imm as u8;
            let mut v = Vec::with_capacity(3);
            for i in 0..3 {
                v.push(l.src(i, K::B16)?);
            }
            let r = bitop3(l, table, v[0], v[1], v[2]);
            let r = l.and_imm(r, 0xffff);
            wr16(l, inst, r)
        }
        V_SAT_PK_U8_I16 => {
            // D.b16 = {SAT8(S0[31:16].i16), SAT8(S0[15:0].i16)}, SAT8 clamping to 0..=255
            // (RDNA4 ISA pseudocode, V_SAT_PK_U8_I16; the CDNA opcode is the same).
            no_clamp(inst)?;
            let a = l.src(0, K::B32)?;
            let sat8 = |l: &mut Lifter, h: Val| {
                let x = l.conv(ConvOp::SExt16, h);
                let z = l.cst(x, 0);
                let m = l.cst(x, 255);
                let t = l.bin(SMax, x, z);
                l.bin(SMin, t, m)
            };
            let lo = sat8(l, a);
            let h = l.lshr_imm(a, 16);
            let hi = sat8(l, h);
            let hi = l.shl_imm(hi, 8);
            let r = l.or(lo, hi);
            wr16(l, inst, r)
        }
        V_ADD_U16 | V_SUB_U16 | V_SUBREV_U16 | V_MUL_LO_U16 | V_LSHLREV_B16 | V_LSHRREV_B16
        | V_ASHRREV_I16 | V_MAX_U16 | V_MAX_I16 | V_MIN_U16 | V_MIN_I16 => {
            // Clamp saturates the unsigned add/sub to 0..=0xffff (CDNA ISA 6.5, RDNA4 ISA
            // 7.2.3.1: "Unsigned int [0, UINT_MAX]"); not lifted for the others.
            let sat = matches!(op, V_ADD_U16 | V_SUB_U16 | V_SUBREV_U16);
            if !sat {
                no_clamp(inst)?;
            }
            let a = l.src(0, K::B16)?;
            let b = l.src(1, K::B16)?;
            let rev = matches!(
                op,
                V_SUBREV_U16 | V_LSHLREV_B16 | V_LSHRREV_B16 | V_ASHRREV_I16
            );
            let (a, b) = if rev { (b, a) } else { (a, b) };
            let signed = matches!(op, V_ASHRREV_I16 | V_MAX_I16 | V_MIN_I16);
            let (a, b) = if signed {
                (l.conv(ConvOp::SExt16, a), l.conv(ConvOp::SExt16, b))
            } else {
                (l.conv(ConvOp::ZExt16, a), l.conv(ConvOp::ZExt16, b))
            };
            let r = match op {
                V_ADD_U16 => l.add(a, b),
                V_SUB_U16 | V_SUBREV_U16 => l.bin(Sub, a, b),
                V_MUL_LO_U16 => l.bin(Mul, a, b),
                V_LSHLREV_B16 | V_LSHRREV_B16 | V_ASHRREV_I16 => {
                    let s = l.and_imm(b, 15);
                    let op = match op {
                        V_LSHLREV_B16 => Shl,
                        V_LSHRREV_B16 => LShr,
                        _ => AShr,
                    };
                    // `a` is already extended to 32 bits; the amount is at most 15.
                    l.bin(op, a, s)
                }
                V_MAX_U16 => l.bin(UMax, a, b),
                V_MAX_I16 => l.bin(SMax, a, b),
                V_MIN_U16 => l.bin(UMin, a, b),
                _ => l.bin(SMin, a, b),
            };
            // `r` is exact in 32 bits (a borrow makes it negative).
            let r = if sat && inst.mods.clamp {
                let zero = l.cst(r, 0);
                let max = l.cst(r, 0xffff);
                let t = l.bin(SMax, r, zero);
                l.bin(SMin, t, max)
            } else {
                r
            };
            wr16(l, inst, r)
        }
        V_MAD_U16 | V_MAD_I16 if inst.mods.clamp => {
            // Clamp saturates the exact S0 * S1 + S2 (|S0 * S1| <= 2^30, exact in 32 bits)
            // to the 16-bit range (CDNA ISA 6.5, RDNA4 ISA 7.2.3.1).
            let signed = op == V_MAD_I16;
            let v = srcs16_extended(l, signed)?;
            let p = l.bin(Mul, v[0], v[1]);
            let r = l.add(p, v[2]);
            let r = saturate(l, r, signed, 16);
            wr16_gfx9_opsel(l, inst, r, false)
        }
        V_MAD_U16 | V_MAD_LEGACY_U16 | V_MAD_I16 | V_MAD_LEGACY_I16 => {
            no_clamp(inst)?;
            let a = l.src(0, K::B16)?;
            let b = l.src(1, K::B16)?;
            let c = l.src(2, K::B16)?;
            let p = l.bin(Mul, a, b);
            let r = l.add(p, c);
            wr16_gfx9_opsel(
                l,
                inst,
                r,
                matches!(op, V_MAD_LEGACY_U16 | V_MAD_LEGACY_I16),
            )
        }
        _ => Err("not supported".into()),
    }
}

/// `v_mad_u32_u16` / `v_mad_i32_i16`: `D = S0.16 * S1.16 + S2.32` with the 16-bit halves
/// (true16 `.l`/`.h` via OPSEL) zero- or sign-extended; wrapping, or with clamp the exact
/// sum (formed in 64 bits) saturated to the u32 / i32 range (RDNA4 ISA 7.2.3.1: "For integer
/// operations, it clamps the result to the largest and smallest representable value").
pub(in crate::lift) fn mad32_16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    l.count_vector();
    let signed = op == V_MAD_I32_I16;
    let e = if signed {
        ConvOp::SExt16
    } else {
        ConvOp::ZExt16
    };
    let a = l.src(0, K::B16)?;
    let b = l.src(1, K::B16)?;
    let (a, b) = (l.conv(e, a), l.conv(e, b));
    let c = l.src(2, K::B32)?;
    let p = l.bin(BinOp::Mul, a, b);
    if !inst.mods.clamp {
        let r = l.add(p, c);
        return l.vdst32(r);
    }
    // |S0 * S1| < 2^32 and |S2| < 2^32: exact in 64 bits.
    let w = if signed { ConvOp::SExt } else { ConvOp::ZExt };
    let (p, c) = (l.conv(w, p), l.conv(w, c));
    let r = l.add(p, c);
    let r = saturate(l, r, signed, 32);
    let r = l.conv(ConvOp::Lo, r);
    l.vdst32(r)
}

/// `v_mov_b16`, `v_not_b16`, `v_and_b16`, `v_or_b16`, `v_xor_b16` on 16-bit halves.
pub(in crate::lift) fn bits16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on a 16-bit bitwise operation".into());
    }
    l.count_vector();
    let a = l.src(0, K::B16)?;
    let r = match op {
        V_MOV_B16 => a,
        V_NOT_B16 => l.not(a),
        _ => {
            let b = l.src(1, K::B16)?;
            let op = match op {
                V_AND_B16 => BinOp::And,
                V_OR_B16 => BinOp::Or,
                _ => BinOp::Xor,
            };
            l.bin(op, a, b)
        }
    };
    write16(l, inst, r)
}

/// `v_sat_pk_u8_i16`: both signed 16-bit halves of S0 saturated to 0..=255, packed into a
/// 16-bit result (RDNA4 ISA, V_SAT_PK_U8_I16).
pub(in crate::lift) fn sat_pk_u8(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let v = l.src(0, K::B32)?;
    let mut out = Vec::new();
    for hi in [false, true] {
        let x = if hi { l.lshr_imm(v, 16) } else { v };
        let x = l.conv(ConvOp::SExt16, x);
        let zero = l.cst(x, 0);
        let top = l.cst(x, 255);
        let x = l.bin(BinOp::SMax, x, zero);
        out.push(l.bin(BinOp::SMin, x, top));
    }
    let h = l.shl_imm(out[1], 8);
    let r = l.or(out[0], h);
    write16(l, inst, r)
}
