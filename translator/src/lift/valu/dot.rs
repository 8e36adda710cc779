//! Integer and f16 dot products (`v_dot{2,4,8}*`, the `c` accumulating forms).

use super::common::*;
use crate::ir::{BinOp, ConvOp, LaneFn, Round, RoundedOp, Ty, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_DOT2_I32_I16 | V_DOT2_U32_U16 | V_DOT4_I32_I8 | V_DOT4_U32_U8 | V_DOT8_I32_I4
        | V_DOT8_U32_U4 | V_DOT2C_I32_I16 | V_DOT4C_I32_I8 | V_DOT8C_I32_I4 => {
            // D = S2 + sum of the products of the packed elements: wrapping, or with clamp
            // the exact sum saturated to the i32/u32 range (CDNA ISA 6.5; LLVM's sdot/udot
            // clamp operand). LLVM's assembler rejects op_sel on the VOP3P forms (its meaning
            // is undefined), so non-default selects are not lifted there; in the VOP3 form of
            // `dot*c` the field selects 16-bit halves only, and these operands are 32-bit
            // (CDNA ISA 6.2.1; LLVM has no op_sel operand for it), so it is ignored.
            if inst.format == crate::isa::Format::Vop3p {
                dot_default_sel(inst)?;
            }
            let (bits, n) = if matches!(op, V_DOT2_I32_I16 | V_DOT2_U32_U16 | V_DOT2C_I32_I16) {
                (16u64, 2u64)
            } else if matches!(op, V_DOT4_I32_I8 | V_DOT4_U32_U8 | V_DOT4C_I32_I8) {
                (8, 4)
            } else {
                (4, 8)
            };
            let signed = matches!(
                op,
                V_DOT2_I32_I16
                    | V_DOT4_I32_I8
                    | V_DOT8_I32_I4
                    | V_DOT2C_I32_I16
                    | V_DOT4C_I32_I8
                    | V_DOT8C_I32_I4
            );
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let acc = if matches!(op, V_DOT2C_I32_I16 | V_DOT4C_I32_I8 | V_DOT8C_I32_I4) {
                acc_src(l, inst, K::B32)?
            } else {
                l.src(2, K::B32)?
            };
            // With clamp the sum is formed in 64 bits (exact), else in 32 (wrapping).
            let clamp = inst.mods.clamp;
            let wide = |l: &mut Lifter, v: Val| {
                if !clamp {
                    v
                } else if signed {
                    l.conv(ConvOp::SExt, v)
                } else {
                    l.conv(ConvOp::ZExt, v)
                }
            };
            let mut acc = wide(l, acc);
            for i in 0..n {
                let ext = |l: &mut Lifter, v: Val| -> Val {
                    // Element i, sign- or zero-extended from `bits`.
                    let t = l.shl_imm(v, 32 - bits * (i + 1));
                    if signed {
                        l.ashr_imm(t, 32 - bits)
                    } else {
                        l.lshr_imm(t, 32 - bits)
                    }
                };
                let x = ext(l, a);
                let y = ext(l, b);
                // The product is exact in 32 bits (as an i32 for signed, a u32 for unsigned).
                let p = l.bin(Mul, x, y);
                let p = wide(l, p);
                acc = l.add(acc, p);
            }
            if clamp {
                let (lo, hi) = if signed {
                    (i32::MIN as i64 as u64, i32::MAX as u64)
                } else {
                    (0, u32::MAX as u64)
                };
                let lo = l.cst(acc, lo);
                let hi = l.cst(acc, hi);
                let t = l.bin(SMax, acc, lo);
                let t = l.bin(SMin, t, hi);
                acc = l.conv(ConvOp::Lo, t);
            }
            l.vdst32(acc)
        }
        V_DOT2_F32_F16 | V_DOT2C_F32_F16 => {
            // D = S0.h[0] * S1.h[0] + S0.h[1] * S1.h[1] + S2 (dot2c: + D), one rounding to
            // nearest even, denormals flushed (V_DOT2 ignores MODE: CDNA ISA 6.4).
            let m = inst.mods;
            let (a, b, c) = if op == V_DOT2C_F32_F16 {
                let a = l.src(0, K::B32)?;
                let b = l.src(1, K::B32)?;
                let c = acc_src(l, inst, K::B32)?;
                (a, b, c)
            } else {
                if m.neg_hi & 4 != 0 {
                    return Err("neg_hi on the f32 source of v_dot2".into());
                }
                dot_default_sel(inst)?;
                let mut ab = Vec::new();
                for i in 0..2 {
                    // The low and high halves (an inline constant or literal is used for both).
                    let mut lo = half_src(l, inst, i, 0, K::F16)?;
                    let mut hi = half_src(l, inst, i, 1, K::F16)?;
                    if m.neg >> i & 1 != 0 {
                        let f = l.cst(lo, 0x8000);
                        lo = l.xor(lo, f);
                    }
                    if m.neg_hi >> i & 1 != 0 {
                        let f = l.cst(hi, 0x8000);
                        hi = l.xor(hi, f);
                    }
                    let hi = l.shl_imm(hi, 16);
                    ab.push(l.or(lo, hi));
                }
                let c = l.v32(inst.src[2], K::F32)?;
                let c = if m.neg & 4 != 0 {
                    l.un(UnOp::FNeg, c)
                } else {
                    c
                };
                (ab[0], ab[1], c)
            };
            let f = LaneFn::Rounded(RoundedOp::Dot2F32F16, Round::NearestEven, false);
            let r = l.lane_fn(f, vec![a, b, c], Ty::V32);
            let r = if m.clamp {
                let z = l.cst(r, 0);
                let o = l.cst(r, 0x3f80_0000);
                let t = l.bin(FMaxNum, r, z);
                l.bin(FMinNum, t, o)
            } else {
                r
            };
            l.vdst32(r)
        }
        _ => Err("not supported".into()),
    }
}
