//! Integer and f16 dot products (`v_dot{2,4,8}*`, the `c` accumulating forms).

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, Ty, UnOp, Val};
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

/// `v_dot4_i32_iu8`/`v_dot8_i32_iu4` (RDNA4 ISA 16.10): NEG[0]/NEG[1] make the elements
/// of S0/S1 signed, D = S2 + sum of the products. With clamp the exact sum is saturated to
/// the i32 range, although RDNA4 7.2.3.1 lists V_DOT4_I32_IU8 (and V_DOT4_U32_U8) among the
/// instructions that ignore clamp: the toolchains rely on saturation on GFX11/GFX12. LLVM 22
/// lowers `llvm.amdgcn.sdot4/sdot8(..., clamp=true)` to the clamped instruction, and LLVM
/// PR 187945 selects it for `saddsat(dot, c)`; Mesa (RADV and radeonsi) declares
/// `has_sdot_4x8_sat` on every GPU with dot instructions and ACO emits `v_dot4_i32_iu8 ...
/// clamp` for SPIR-V's saturating `OpSDotAccSat`/`OpSUDotAccSat` on GFX11+ (else NIR would
/// lower them to `iadd_sat(dot(a, b, 0), c)`, the exact sum saturated once, as here).
/// (ARCHITECTURE "Open ISA questions (RDNA)".)
pub(in crate::lift) fn dot_iu(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.op_sel & 7 != 0 || inst.mods.op_sel_hi & 7 != 7 || inst.mods.neg_hi != 0 {
        return Err("op_sel or neg_hi on an integer dot product is not supported".into());
    }
    l.count_vector();
    let (bits, n) = if op == V_DOT4_I32_IU8 {
        (8u64, 4u64)
    } else {
        (4, 8)
    };
    let clamp = inst.mods.clamp;
    let a = l.src(0, K::B32)?;
    let b = l.src(1, K::B32)?;
    let c = l.src(2, K::B32)?;
    // With clamp the sum is formed in 64 bits (exact), else in 32 (wrapping).
    let wide = |l: &mut Lifter, v: Val| {
        if clamp {
            l.conv(ConvOp::SExt, v)
        } else {
            v
        }
    };
    let mut acc = wide(l, c);
    let (sa, sb) = (inst.mods.neg & 1 != 0, inst.mods.neg & 2 != 0);
    let elem = |l: &mut Lifter, v: Val, i: u64, signed: bool| {
        // Element i into the top bits, then shifted down (arithmetic when signed).
        let t = l.shl_imm(v, 32 - bits * (i + 1));
        if signed {
            l.ashr_imm(t, 32 - bits)
        } else {
            l.lshr_imm(t, 32 - bits)
        }
    };
    for i in 0..n {
        let x = elem(l, a, i, sa);
        let y = elem(l, b, i, sb);
        // |x * y| <= 255 * 255: exact as an i32.
        let p = l.bin(BinOp::Mul, x, y);
        let p = wide(l, p);
        acc = l.add(acc, p);
    }
    if clamp {
        let lo = l.cst(acc, i32::MIN as i64 as u64);
        let hi = l.cst(acc, i32::MAX as u64);
        let t = l.bin(BinOp::SMax, acc, lo);
        let t = l.bin(BinOp::SMin, t, hi);
        acc = l.conv(ConvOp::Lo, t);
    }
    l.vdst32(acc)
}

/// A 16-bit element of VOP3P source `i` ([`packed_elem`]) as f32 (`bf16`: the bits shifted
/// up; else the f16 converted, MODE input denormals flushed).
pub(in crate::lift) fn dot_half(
    l: &mut Lifter,
    inst: &Inst,
    i: usize,
    hi_elem: bool,
    bf16: bool,
) -> R<Val> {
    let v = packed_elem(l, inst, i, hi_elem)?;
    Ok(half_to_f32(l, v, bf16))
}

/// The f32 value of the 16-bit float in the low bits of `v`: bf16 shifted up, or f16 with
/// MODE input denormals flushed, converted exactly.
pub(in crate::lift) fn half_to_f32(l: &mut Lifter, v: Val, bf16: bool) -> Val {
    if bf16 {
        return l.shl_imm(v, 16);
    }
    let v = if l.denorm_allowed(K::F16, 1) {
        v
    } else {
        l.flush_denorm(v, K::F16)
    };
    l.conv(ConvOp::F16ToF32, v)
}

/// The two 16-bit elements of a 32-bit VOP3 source (low, high), as f32: a register or literal
/// holds both; an inline constant is replicated into both halves (RDNA4 ISA 7.2.2, "Inline
/// constants with V_DOT2_..."). f16 elements are MODE-flushed and converted exactly; bf16
/// elements are the high 16 bits of an f32.
pub(in crate::lift) fn vop3_pair(l: &mut Lifter, inst: &Inst, i: usize, bf16: bool) -> R<[Val; 2]> {
    let o = inst.src[i];
    let whole = o.vreg().is_some() || o.sreg().is_some() || o.code == crate::isa::Opnd::LITERAL;
    let (lo, hi) = if whole {
        let v = src_raw(l, i, K::B32)?;
        (l.and_imm(v, 0xffff), l.lshr_imm(v, 16))
    } else {
        if bf16 && (240..=248).contains(&o.code) {
            return Err("inline float constant on a bf16 operand".into());
        }
        let v = src_raw(l, i, K::F16)?;
        let v = l.and_imm(v, 0xffff);
        (v, v)
    };
    Ok([half_to_f32(l, lo, bf16), half_to_f32(l, hi, bf16)])
}

/// The float dot products into f32: `v_dot2_f32_f16/bf16`, `v_dot2acc_f32_f16/bf16` (the
/// destination is the addend), gfx12 `v_dot4_f32_{fp8,bf8}_{fp8,bf8}`. Following the
/// pseudocode, `tmp = S2; tmp += A[i] * B[i]` element by element: every product is exact in
/// f32 (f16, bf16 and 8-bit significands), each addition rounds once.
pub(in crate::lift) fn dot_float(l: &mut Lifter, inst: &Inst, form: FloatDot) -> R<()> {
    let m = inst.mods;
    if m.omod != 0 {
        return Err("output modifier on a dot product".into());
    }
    l.count_vector();
    let acc_form = matches!(form, FloatDot::Dot2Acc { .. });
    let fp8 = matches!(form, FloatDot::Fp8 { .. });
    let (pa, pb): (Vec<Val>, Vec<Val>) = if fp8 {
        if m.op_sel & 3 != 0 || m.neg & 3 != 0 || m.neg_hi & 3 != 0 {
            return Err("op_sel or neg on an FP8 dot product is not supported".into());
        }
        let a = l.src(0, K::B32)?;
        let b = l.src(1, K::B32)?;
        let (abf, bbf) = match form {
            FloatDot::Fp8 { a_bf8, b_bf8 } => (a_bf8, b_bf8),
            _ => (false, false),
        };
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for i in 0..4u64 {
            let x = l.lshr_imm(a, 8 * i);
            xs.push(ocp8_to_f32(l, x, abf));
            let y = l.lshr_imm(b, 8 * i);
            ys.push(ocp8_to_f32(l, y, bbf));
        }
        (xs, ys)
    } else {
        let bf16 = matches!(
            form,
            FloatDot::Dot2 { bf16: true } | FloatDot::Dot2Acc { bf16: true }
        );
        if acc_form {
            // VOP2 (or VOPD): plain 32-bit sources, abs/neg per source as f16/bf16 pairs.
            let mut out = (Vec::new(), Vec::new());
            for (i, dst) in [(0usize, &mut out.0), (1, &mut out.1)] {
                let v = src_raw(l, i, K::B32)?;
                for h in 0..2u64 {
                    let x = if h == 1 { l.lshr_imm(v, 16) } else { v };
                    let mut x = l.and_imm(x, 0xffff);
                    if m.abs >> i & 1 != 0 {
                        x = l.and_imm(x, 0x7fff);
                    }
                    if m.neg >> i & 1 != 0 {
                        let c = l.cst(x, 0x8000);
                        x = l.xor(x, c);
                    }
                    dst.push(if bf16 {
                        l.shl_imm(x, 16)
                    } else {
                        l.conv(ConvOp::F16ToF32, x)
                    });
                }
            }
            out
        } else {
            if m.op_sel & 4 != 0 || m.neg_hi & 4 != 0 {
                return Err("op_sel or neg_hi on the f32 addend of a dot product".into());
            }
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for hi in [false, true] {
                xs.push(dot_half(l, inst, 0, hi, bf16)?);
                ys.push(dot_half(l, inst, 1, hi, bf16)?);
            }
            (xs, ys)
        }
    };
    let mut acc = if acc_form {
        let d = inst.dst[0]
            .vreg()
            .ok_or("dot2acc destination is not a VGPR")?;
        l.get_vreg(d)?
    } else {
        src_with_mods(l, 2, K::F32, |m| {
            m.neg &= 4;
            m.abs = 0;
        })?
    };
    for (x, y) in pa.into_iter().zip(pb) {
        let p = l.bin(BinOp::FMul, x, y);
        acc = l.bin(BinOp::FAdd, acc, p);
    }
    let r = l.fout(acc, K::F32)?;
    l.vdst32(r)
}

/// `v_dot2_f16_f16` and `v_dot2_bf16_bf16` (RDNA4 ISA): `tmp = S2; tmp += S0[15:0] *
/// S1[15:0]; tmp += S0[31:16] * S1[31:16]; D = tmp` with `tmp` of the result type, so each
/// step is a fused multiply-add rounded once to f16 (bf16). OPSEL[2] selects the half of S2,
/// OPSEL[3] the half of D written, OPSEL[1:0] are ignored. bf16 steps round to odd in f32
/// (the exact FMA truncated, its last bit set when inexact) and then to nearest-even bf16,
/// which is the exact sum rounded once.
pub(in crate::lift) fn dot2_16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let m = inst.mods;
    if m.clamp || m.omod != 0 {
        return Err("output modifiers on a 16-bit dot product".into());
    }
    if (m.abs | m.neg) & 3 != 0 {
        return Err("abs/neg on the packed sources of a 16-bit dot product".into());
    }
    let bf16 = op == V_DOT2_BF16_BF16;
    let f16_round = Round::from_field(l.mode >> 2);
    if bf16 && (f16_round != Round::NearestEven || l.mode & 3 != 0) {
        return Err("bf16 dot product under a directed MODE round mode".into());
    }
    l.count_vector();
    let a = vop3_pair(l, inst, 0, bf16)?;
    let b = vop3_pair(l, inst, 1, bf16)?;
    let mut t = if bf16 {
        // The raw half (OPSEL[2]); ABS/NEG act on its sign bit.
        let c = l.src(2, K::B16)?;
        let c = if m.abs & 4 != 0 {
            l.and_imm(c, 0x7fff)
        } else {
            c
        };
        let c = if m.neg & 4 != 0 {
            let s = l.cst(c, 0x8000);
            l.xor(c, s)
        } else {
            c
        };
        l.and_imm(c, 0xffff)
    } else {
        l.src(2, K::F16)?
    };
    let ovfl = l.mode >> 23 & 1 != 0;
    for (x, y) in a.into_iter().zip(b) {
        t = if bf16 {
            let acc = l.shl_imm(t, 16);
            let step = |l: &mut Lifter, r: Round| {
                l.lane_fn(
                    LaneFn::Rounded(RoundedOp::FmaF32, r, false),
                    vec![x, y, acc],
                    Ty::V32,
                )
            };
            let (rz, ru, rd) = (
                step(l, Round::Zero),
                step(l, Round::Up),
                step(l, Round::Down),
            );
            let inexact = l.cmp(CmpOp::Ne, ru, rd);
            let one = l.cst(rz, 1);
            let odd = l.or(rz, one);
            let r = l.select(inexact, odd, rz);
            let f = LaneFn::Rounded(RoundedOp::F32ToBf16, Round::NearestEven, false);
            l.lane_fn(f, vec![r], Ty::V32)
        } else {
            let acc = l.conv(ConvOp::F16ToF32, t);
            let f = LaneFn::Rounded(RoundedOp::FmaF32ToF16, f16_round, ovfl);
            l.lane_fn(f, vec![x, y, acc], Ty::V32)
        };
    }
    let t = if !bf16 && !l.denorm_allowed(K::F16, 2) {
        l.flush_denorm(t, K::F16)
    } else {
        t
    };
    write16(l, inst, t)
}

/// A float dot product into f32 ([`dot_float`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lift) enum FloatDot {
    /// `v_dot2_f32_f16` / `v_dot2_f32_bf16`: `D = S0 · S1 + S2`.
    Dot2 { bf16: bool },
    /// `v_dot2acc_f32_f16` / `v_dot2acc_f32_bf16`: `D = S0 · S1 + D`.
    Dot2Acc { bf16: bool },
    /// `v_dot4_f32_{fp8,bf8}_{fp8,bf8}`: the element formats of S0 and S1.
    Fp8 { a_bf8: bool, b_bf8: bool },
}
