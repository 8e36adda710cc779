//! f16 arithmetic (computed through f32 with one rounding to f16): unary ops, add/sub/mul,
//! min/max/med3, fma/mad/mac forms, `v_fma_mix*`, `v_pack_b32_f16`.

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, RoundedOp, Ty, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::{Format, Inst};
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_CEIL_F16 => fun16(l, inst, |l, x| l.un(UnOp::FCeil, x)),
        V_FLOOR_F16 => fun16(l, inst, |l, x| l.un(UnOp::FFloor, x)),
        V_TRUNC_F16 => fun16(l, inst, |l, x| l.un(UnOp::FTrunc, x)),
        V_RNDNE_F16 => fun16(l, inst, |l, x| l.un(UnOp::FRoundEven, x)),
        V_SQRT_F16 => fun16(l, inst, |l, x| l.un(UnOp::FSqrt, x)),
        V_RCP_F16 => fun16(l, inst, |l, x| l.un(UnOp::FRcp, x)),
        V_RSQ_F16 => fun16(l, inst, |l, x| l.un(UnOp::FRsq, x)),
        V_EXP_F16 => fun16(l, inst, |l, x| l.lane_fn(LaneFn::Exp2F32, vec![x], Ty::V32)),
        V_LOG_F16 => fun16(l, inst, |l, x| l.lane_fn(LaneFn::Log2F32, vec![x], Ty::V32)),
        V_SIN_F16 => fun16(l, inst, |l, x| l.lane_fn(LaneFn::SinF32, vec![x], Ty::V32)),
        V_COS_F16 => fun16(l, inst, |l, x| l.lane_fn(LaneFn::CosF32, vec![x], Ty::V32)),
        V_FREXP_MANT_F16 => fun16(l, inst, |l, x| {
            l.lane_fn(LaneFn::FrexpMantF32, vec![x], Ty::V32)
        }),
        V_FRACT_F16 => {
            // x - floor(x) is exact in f32 and in f16 except for tiny negative x, where it
            // rounds to 1.0: clamped to the largest f16 below 1 (0x3bff) like v_fract_f32.
            let a = l.src(0, K::F16)?;
            let x = l.conv(ConvOp::F16ToF32, a);
            let f = l.un(UnOp::FFloor, x);
            let d = l.bin(FSub, x, f);
            let h = l.conv(ConvOp::F32ToF16, d);
            let nan = nan_mask(l, h, K::F16);
            let lim = l.cst(h, 0x3bff);
            let c = l.bin(UMin, h, lim);
            let r = l.select(nan, h, c);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_FREXP_EXP_I16_F16 => {
            let a = l.src(0, K::F16)?;
            let x = l.conv(ConvOp::F16ToF32, a);
            let r = l.lane_fn(LaneFn::FrexpExpF32, vec![x], Ty::V32);
            let r = l.and_imm(r, 0xffff);
            wr16(l, inst, r)
        }
        V_LDEXP_F16 => {
            // D = S0.f16 * 2^S1.i16.
            let a = l.src(0, K::F16)?;
            let e = l.src(1, K::B16)?;
            let e = l.conv(ConvOp::SExt16, e);
            let x = l.conv(ConvOp::F16ToF32, a);
            // Exact in f32 wherever the f16 result is not 0 or Inf.
            let y = l.bin(FLdexp, x, e);
            let r = to_f16(l, y);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_MAX3_F16 | V_MIN3_F16 => {
            let max = op == V_MAX3_F16;
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let c = l.src(2, K::F16)?;
            let t = fminmax(l, max, K::F16, a, b);
            let r = fminmax(l, max, K::F16, t, c);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_MED3_F16 => {
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let c = l.src(2, K::F16)?;
            let r = fmed3_16(l, a, b, c);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_MAD_LEGACY_F16 | V_FMA_LEGACY_F16 | V_DIV_FIXUP_LEGACY_F16 => {
            // GFX8 encodings kept on GFX9: the operation without `_legacy`, minus op_sel (GFX8's
            // VOP3 has no such field and LLVM accepts none here), so the result is written to
            // the low half with zeros above.
            let mut plain = *inst;
            plain.mods.op_sel = 0;
            let saved = l.inst;
            l.inst = Some(plain);
            let r = f16_three(l, &plain, op);
            l.inst = saved;
            r
        }
        V_ADD_F16 | V_SUB_F16 | V_SUBREV_F16 | V_MUL_F16 | V_MAX_F16 | V_MIN_F16 => {
            // Computed in f32 and rounded once to f16: exact for these operations, since f32
            // holds every f16 sum, difference and product exactly or with a single rounding
            // that cannot cause a double-rounding error (24 >= 2 * 11 + 2).
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let (a, b) = if op == V_SUBREV_F16 { (b, a) } else { (a, b) };
            let r = match op {
                V_ADD_F16 => f16_arith(l, RoundedOp::AddF16, vec![a, b]),
                V_SUB_F16 | V_SUBREV_F16 => f16_arith(l, RoundedOp::SubF16, vec![a, b]),
                V_MUL_F16 => f16_arith(l, RoundedOp::MulF16, vec![a, b]),
                _ => fminmax(l, op == V_MAX_F16, K::F16, a, b),
            };
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_PACK_B32_F16 => {
            // D = {S1.f16, S0.f16} (halves chosen by op_sel; abs/neg act on the sign bit).
            l.no_flush = true;
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let lo = l.and_imm(a, 0xffff);
            let hi = l.shl_imm(b, 16);
            let r = l.or(lo, hi);
            l.vdst32(r)
        }
        V_MAC_F16 | V_MADAK_F16 | V_MADMK_F16 => {
            // Unfused: the product rounded to f16, then the sum (as v_mad_f16); mac adds to
            // the destination, madak/madmk take the literal K as an operand.
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let c = if op == V_MAC_F16 {
                acc_src(l, inst, K::F16)?
            } else {
                l.src(2, K::F16)?
            };
            let p = f16_arith(l, RoundedOp::MulF16, vec![a, b]);
            let r = f16_arith(l, RoundedOp::AddF16, vec![p, c]);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_DIV_FIXUP_F16 | V_FMA_F16 | V_MAD_F16 => f16_three(l, inst, op),
        V_FMA_MIX_F32 | V_FMA_MIXLO_F16 | V_FMA_MIXHI_F16 => fma_mix(l, inst, op),
        _ => Err("not supported".into()),
    }
}

/// `v_div_fixup_f16`, `v_fma_f16`, `v_mad_f16` and their GFX8 encodings `*_legacy_f16`
/// (`op` names which).
pub(in crate::lift) fn f16_three(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let legacy = matches!(
        op,
        V_MAD_LEGACY_F16 | V_FMA_LEGACY_F16 | V_DIV_FIXUP_LEGACY_F16
    );
    if matches!(op, V_DIV_FIXUP_F16 | V_DIV_FIXUP_LEGACY_F16) {
        // V_DIV_FIXUP_F16 pseudocode (quotient S0, denominator S1, numerator S2) on bits:
        // NaNs (S2 first) quieted, 0/0 and inf/inf give 0xfe00, x/0 and inf/y ±Inf,
        // x/inf and 0/y ±0, else S0 with the sign of S1 ^ S2.
        let q = l.src(0, K::F16)?;
        let d = l.src(1, K::F16)?;
        let n = l.src(2, K::F16)?;
        let x = l.xor(d, n);
        let sign = l.and_imm(x, 0x8000);
        let mag = |l: &mut Lifter, v: Val, c: u64| {
            let m = l.and_imm(v, 0x7fff);
            let k = l.cst(m, c);
            l.cmp(CmpOp::Eq, m, k)
        };
        let (dz, nz) = (mag(l, d, 0), mag(l, n, 0));
        let (di, ni) = (mag(l, d, 0x7c00), mag(l, n, 0x7c00));
        let nd = nan_mask(l, d, K::F16);
        let nn = nan_mask(l, n, K::F16);
        let qm = l.and_imm(q, 0x7fff);
        let r = l.or(sign, qm);
        let to_zero = l.or(di, nz);
        let r = l.select(to_zero, sign, r);
        let to_inf = l.or(dz, ni);
        let inf = l.cst(sign, 0x7c00);
        let sinf = l.or(sign, inf);
        let r = l.select(to_inf, sinf, r);
        let zz = l.and(dz, nz);
        let ii = l.and(di, ni);
        let invalid = l.or(zz, ii);
        let dnan = l.cst(r, 0xfe00);
        let r = l.select(invalid, dnan, r);
        let qc = l.cst(d, 0x200);
        let qd = l.or(d, qc);
        let qd = l.and_imm(qd, 0xffff);
        let r = l.select(nd, qd, r);
        let qn = l.or(n, qc);
        let qn = l.and_imm(qn, 0xffff);
        let r = l.select(nn, qn, r);
        let r = out16(l, inst, r)?;
        wr16_gfx9_opsel(l, inst, r, legacy)
    } else {
        // fma: one rounding of the exact a*b + c; mad (unfused): the product rounded to
        // f16, then the sum.
        let mut v = Vec::new();
        for i in 0..3 {
            v.push(l.src(i, K::F16)?);
        }
        let r = if matches!(op, V_FMA_F16 | V_FMA_LEGACY_F16) {
            f16_arith(l, RoundedOp::FmaF16, v)
        } else {
            let p = f16_arith(l, RoundedOp::MulF16, vec![v[0], v[1]]);
            f16_arith(l, RoundedOp::AddF16, vec![p, v[2]])
        };
        let r = out16(l, inst, r)?;
        wr16_gfx9_opsel(l, inst, r, legacy)
    }
}

/// `v_fma_mix_f32` / `v_fma_mixlo_f16` / `v_fma_mixhi_f16`: each source
/// is f32, or with `op_sel_hi[i]` an f16 taken from half `op_sel[i]`; `neg` negates and
/// `neg_hi` takes the absolute value of source i. The f32 result is written whole, or
/// rounded to f16 into the low/high half (the other half kept).
pub(in crate::lift) fn fma_mix(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let m = inst.mods;
    let mut ops = Vec::new();
    for i in 0..3 {
        let o = inst.src[i];
        let mut x = if m.op_sel_hi >> i & 1 != 0 {
            let v = if o.vreg().is_some() || o.sreg().is_some() {
                let v = l.v32(o, K::B32)?;
                if m.op_sel >> i & 1 != 0 {
                    l.lshr_imm(v, 16)
                } else {
                    v
                }
            } else {
                l.v32(o, K::F16)?
            };
            let v = l.and_imm(v, 0xffff);
            // MODE.FP_DENORM input flushing of f16 (f64/f16 field) and f32 sources.
            let v = if l.denorm_allowed(K::F16, 1) {
                v
            } else {
                l.flush_denorm(v, K::F16)
            };
            l.conv(ConvOp::F16ToF32, v)
        } else {
            let v = l.v32(o, K::F32)?;
            if l.denorm_allowed(K::F32, 1) {
                v
            } else {
                l.flush_denorm(v, K::F32)
            }
        };
        if m.neg_hi >> i & 1 != 0 {
            x = l.un(UnOp::FAbs, x);
        }
        if m.neg >> i & 1 != 0 {
            x = l.un(UnOp::FNeg, x);
        }
        ops.push(x);
    }
    let clamp = |l: &mut Lifter, r: Val| -> Val {
        let z = l.cst(r, 0);
        let o = l.cst(r, 0x3f80_0000);
        let t = l.bin(FMaxNum, r, z);
        l.bin(FMinNum, t, o)
    };
    if op == V_FMA_MIX_F32 {
        // The f32 result rounds in the f32 MODE direction.
        let r = ffma(l, K::F32, ops[0], ops[1], ops[2]);
        let r = if m.clamp { clamp(l, r) } else { r };
        let r = if l.denorm_allowed(K::F32, 2) {
            r
        } else {
            l.flush_denorm(r, K::F32)
        };
        return l.vdst32(r);
    }
    // f16 result: the FMA rounds once to f16 (f16 MODE direction, FP16_OVFL).
    let h = rounded(l, RoundedOp::FmaF32ToF16, K::F16, ops);
    let h = f16out(l, h);
    let h = if m.clamp { clamp16(l, h) } else { h };
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let v = if op == V_FMA_MIXHI_F16 {
        let keep = l.and_imm(old, 0xffff);
        let hi = l.shl_imm(h, 16);
        l.or(keep, hi)
    } else {
        let keep = l.and_imm(old, 0xffff_0000);
        l.or(keep, h)
    };
    l.vdst32(v)
}

/// `v_fmac_f16` (`D = fma(S0, S1, D)`), `v_fmaak_f16` (`fma(S0, S1, K)`) and `v_fmamk_f16`
/// (`fma(S0, K, S1)`, LLVM's operand order `S0, K, S1`): lifted as `v_fma_f16` with the
/// accumulator or the constant as the third (or second) source; the destination half of
/// `fmac` is also its accumulator half.
pub(in crate::lift) fn fma16_forms(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let mut f = *inst;
    f.op = crate::isa::Op::from_name("v_fma_f16").ok_or("no v_fma_f16 opcode")?;
    f.format = Format::Vop3;
    if op == V_FMAC_F16 {
        f.src[2] = inst.dst[0];
        if inst.mods.op_sel & 8 != 0 {
            f.mods.op_sel |= 4;
        } else {
            f.mods.op_sel &= !4;
        }
    }
    let (pc, next) = (l.pc, l.next_pc);
    l.begin(&f, pc, next);
    let r = super::lift(l, &f, V_FMA_F16).map(|_| ());
    l.inst = Some(*inst);
    r
}
