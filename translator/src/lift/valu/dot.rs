//! Integer and f16 dot products (`v_dot{2,4,8}*`, the `c` accumulating forms).

use super::common::*;
use crate::ir::{BinOp, ConvOp, LaneFn, Round, RoundedOp, Ty, UnOp, Val};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `base` (the mnemonic without `v_`) when it is one of this module's instructions;
/// `Ok(false)` when it is not.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, base: &str) -> R<bool> {
    match base {
        "dot2_i32_i16" | "dot2_u32_u16" | "dot4_i32_i8" | "dot4_u32_u8" | "dot8_i32_i4"
        | "dot8_u32_u4" | "dot2c_i32_i16" | "dot4c_i32_i8" | "dot8c_i32_i4" => {
            // D = S2 + sum of the products of the packed elements: wrapping, or with clamp
            // the exact sum saturated to the i32/u32 range (CDNA ISA 6.5; LLVM's sdot/udot
            // clamp operand). LLVM's assembler rejects op_sel on the VOP3P forms (its meaning
            // is undefined), so non-default selects are not lifted there; in the VOP3 form of
            // `dot*c` the field selects 16-bit halves only, and these operands are 32-bit
            // (CDNA ISA 6.2.1; LLVM has no op_sel operand for it), so it is ignored.
            if inst.format == crate::isa::Format::Vop3p {
                dot_default_sel(inst)?;
            }
            let (bits, n) = if base.starts_with("dot2") {
                (16u64, 2u64)
            } else if base.starts_with("dot4") {
                (8, 4)
            } else {
                (4, 8)
            };
            let signed = base.contains("_i32_");
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let acc = if base.contains("c_") {
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
        "dot2_f32_f16" | "dot2c_f32_f16" => {
            // D = S0.h[0] * S1.h[0] + S0.h[1] * S1.h[1] + S2 (dot2c: + D), one rounding to
            // nearest even, denormals flushed (V_DOT2 ignores MODE: CDNA ISA 6.4).
            let m = inst.mods;
            let (a, b, c) = if base == "dot2c_f32_f16" {
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
        _ => return Ok(false),
    }?;
    Ok(true)
}
