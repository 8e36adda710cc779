//! Transcendental and reciprocal ops of f32/f64: sqrt, rcp, rsq, exp, log, sin, cos,
//! frexp (MODE-independent rounding, see the `lift` module doc).

use super::common::*;
use crate::ir::{BinOp, CmpOp, LaneFn, Ty, UnOp};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `base` (the mnemonic without `v_`) when it is one of this module's instructions;
/// `Ok(false)` when it is not.
pub(super) fn lift(l: &mut Lifter, _inst: &Inst, base: &str) -> R<bool> {
    match base {
        "sqrt_f32" | "rsq_f32" | "exp_f32" | "log_f32" | "rcp_iflag_f32"
            if flushes_denormals(l, base) =>
        {
            fun_flushed(l, |l, a| match base {
                "sqrt_f32" => l.un(UnOp::FSqrt, a),
                "rsq_f32" => l.un(UnOp::FRsq, a),
                "exp_f32" => l.lane_fn(LaneFn::Exp2F32, vec![a], Ty::V32),
                "log_f32" => l.lane_fn(LaneFn::Log2F32, vec![a], Ty::V32),
                _ => l.lane_fn(LaneFn::RcpIflagF32, vec![a], Ty::V32),
            })
        }
        "sqrt_f32" => fun(l, UnOp::FSqrt, K::F32),
        "sqrt_f64" => fun(l, UnOp::FSqrt, K::F64),
        "rcp_f32" => fun(l, UnOp::FRcp, K::F32),
        "rcp_f64" => fun(l, UnOp::FRcp, K::F64),
        "rsq_f32" => fun(l, UnOp::FRsq, K::F32),
        "rsq_f64" => fun(l, UnOp::FRsq, K::F64),
        // The GCN "legacy" forms (gfx942/gfx950): the only definition, the Sea Islands guide's
        // "D.f = pow(2.0, S0.f)" / "D.f = log2(S0.f)", is v_exp_f32/v_log_f32's; what they keep
        // from Southern Islands is documented nowhere (ARCHITECTURE "Open ISA questions").
        "exp_f32" | "log_f32" | "exp_legacy_f32" | "log_legacy_f32" | "sin_f32" | "cos_f32"
        | "rcp_iflag_f32" | "frexp_mant_f32" | "frexp_exp_i32_f32" => {
            let f = match base {
                "exp_f32" | "exp_legacy_f32" => LaneFn::Exp2F32,
                "log_f32" | "log_legacy_f32" => LaneFn::Log2F32,
                "sin_f32" => LaneFn::SinF32,
                "cos_f32" => LaneFn::CosF32,
                "rcp_iflag_f32" => LaneFn::RcpIflagF32,
                "frexp_mant_f32" => LaneFn::FrexpMantF32,
                _ => LaneFn::FrexpExpF32,
            };
            let a = l.src(0, K::F32)?;
            let r = l.lane_fn(f, vec![a], Ty::V32);
            let r = if base == "frexp_exp_i32_f32" {
                r
            } else {
                l.fout(r, K::F32)?
            };
            l.vdst32(r)
        }

        "frexp_mant_f64" | "frexp_exp_i32_f64" => frexp64(l, base == "frexp_mant_f64"),
        _ => return Ok(false),
    }?;
    Ok(true)
}

/// `v_frexp_mant_f64` (mantissa in [0.5, 1) with the sign; NaN, Inf and zero unchanged) and
/// `v_frexp_exp_i32_f64` (`e` with `x = mant * 2^e`; 0 for NaN, Inf and zero), denormals
/// normalised through a leading-zero count.
pub(in crate::lift) fn frexp64(l: &mut Lifter, mant: bool) -> R<()> {
    let x = l.src(0, K::F64)?;
    let e = l.lshr_imm(x, 52);
    let e = l.and_imm(e, 0x7ff);
    let m = l.and_imm(x, (1u64 << 52) - 1);
    let z = l.cst(e, 0);
    let emax = l.cst(e, 0x7ff);
    let is_max = l.cmp(CmpOp::Eq, e, emax);
    let e0 = l.cmp(CmpOp::Eq, e, z);
    let m0 = l.cmp(CmpOp::Eq, m, z);
    let zero = l.and(e0, m0);
    let special = l.or(is_max, zero);
    let clz = l.un(UnOp::Clz, m);
    if mant {
        // Denormal: m << (clz - 11) puts the leading one at bit 52.
        let sh = l.add_imm(clz, (-11i64) as u64);
        let m2 = l.bin(Shl, m, sh);
        let m2 = l.and_imm(m2, (1u64 << 52) - 1);
        let bits = l.select(e0, m2, m);
        let sign = l.and_imm(x, 1u64 << 63);
        let t = l.or(sign, bits);
        let half = l.cst(t, 1022u64 << 52);
        let r = l.or(t, half);
        let r = l.select(special, x, r);
        let r = l.fout(r, K::F64)?;
        l.vdst64(r)
    } else {
        // Normal: e - 1022; denormal: -1010 - clz(m).
        let en = l.add_imm(e, (-1022i64) as u64);
        let c = l.cst(clz, (-1010i64) as u64);
        let ed = l.bin(Sub, c, clz);
        let r = l.select(e0, ed, en);
        let zz = l.cst(r, 0);
        let r = l.select(special, zz, r);
        let r = l.lo(r);
        l.vdst32(r)
    }
}
