//! Transcendental and reciprocal ops of f32/f64: sqrt, rcp, rsq, exp, log, sin, cos,
//! frexp (MODE-independent rounding, see the `lift` module doc).

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Ty, UnOp};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, _inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_SQRT_F32 | V_RSQ_F32 | V_EXP_F32 | V_LOG_F32 | V_RCP_IFLAG_F32
            if flushes_denormals(l, op) =>
        {
            fun_flushed(l, |l, a| match op {
                V_SQRT_F32 => l.un(UnOp::FSqrt, a),
                V_RSQ_F32 => l.un(UnOp::FRsq, a),
                V_EXP_F32 => l.lane_fn(LaneFn::Exp2F32, vec![a], Ty::V32),
                V_LOG_F32 => l.lane_fn(LaneFn::Log2F32, vec![a], Ty::V32),
                _ => l.lane_fn(LaneFn::RcpIflagF32, vec![a], Ty::V32),
            })
        }
        V_SQRT_F32 => fun(l, UnOp::FSqrt, K::F32),
        V_SQRT_F64 => fun(l, UnOp::FSqrt, K::F64),
        V_RCP_F32 => fun(l, UnOp::FRcp, K::F32),
        V_RCP_F64 => fun(l, UnOp::FRcp, K::F64),
        V_RSQ_F32 => fun(l, UnOp::FRsq, K::F32),
        V_RSQ_F64 => fun(l, UnOp::FRsq, K::F64),
        // The GCN "legacy" forms (gfx942/gfx950): the only definition, the Sea Islands guide's
        // "D.f = pow(2.0, S0.f)" / "D.f = log2(S0.f)", is v_exp_f32/v_log_f32's; what they keep
        // from Southern Islands is documented nowhere (ARCHITECTURE "Open ISA questions").
        V_EXP_F32 | V_LOG_F32 | V_EXP_LEGACY_F32 | V_LOG_LEGACY_F32 | V_SIN_F32 | V_COS_F32
        | V_RCP_IFLAG_F32 | V_FREXP_MANT_F32 | V_FREXP_EXP_I32_F32 => {
            let f = match op {
                V_EXP_F32 | V_EXP_LEGACY_F32 => LaneFn::Exp2F32,
                V_LOG_F32 | V_LOG_LEGACY_F32 => LaneFn::Log2F32,
                V_SIN_F32 => LaneFn::SinF32,
                V_COS_F32 => LaneFn::CosF32,
                V_RCP_IFLAG_F32 => LaneFn::RcpIflagF32,
                V_FREXP_MANT_F32 => LaneFn::FrexpMantF32,
                _ => LaneFn::FrexpExpF32,
            };
            let a = l.src(0, K::F32)?;
            let r = l.lane_fn(f, vec![a], Ty::V32);
            let r = if op == V_FREXP_EXP_I32_F32 {
                r
            } else {
                l.fout(r, K::F32)?
            };
            l.vdst32(r)
        }

        V_FREXP_MANT_F64 | V_FREXP_EXP_I32_F64 => frexp64(l, op == V_FREXP_MANT_F64),
        _ => Err("not supported".into()),
    }
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

/// The gfx12 pseudo-scalar transcendentals `v_s_{exp,log,rcp,rsq,sqrt}_{f32,f16}`: a VALU
/// op on a uniform value writing an SGPR, EXEC ignored (RDNA4 ISA 7.10); f16 results zero
/// the high half.
pub(in crate::lift) fn pseudo_scalar(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let (fun, f16) = match op {
        V_S_EXP_F32 => (Pseudo::Exp, false),
        V_S_EXP_F16 => (Pseudo::Exp, true),
        V_S_LOG_F32 => (Pseudo::Log, false),
        V_S_LOG_F16 => (Pseudo::Log, true),
        V_S_RCP_F32 => (Pseudo::Rcp, false),
        V_S_RCP_F16 => (Pseudo::Rcp, true),
        V_S_RSQ_F32 => (Pseudo::Rsq, false),
        V_S_RSQ_F16 => (Pseudo::Rsq, true),
        V_S_SQRT_F32 => (Pseudo::Sqrt, false),
        V_S_SQRT_F16 => (Pseudo::Sqrt, true),
        _ => return Err("not supported".into()),
    };
    {
        if inst.mods.omod != 0 || inst.mods.clamp {
            return Err("output modifiers on a pseudo-scalar op are not supported".into());
        }
        let k = if f16 { K::F16 } else { K::F32 };
        let v = l.s32(inst.src[0], k)?;
        let v = if f16 {
            let v = l.and_imm(v, 0xffff);
            l.conv(ConvOp::F16ToF32, v)
        } else {
            v
        };
        let mut v = v;
        if inst.mods.abs & 1 != 0 {
            v = l.un(UnOp::FAbs, v);
        }
        if inst.mods.neg & 1 != 0 {
            v = l.un(UnOp::FNeg, v);
        }
        // The f32 forms flush input and output denormals as their VALU counterparts
        // (RDNA4 ISA 16.8 notes: "denormals are flushed"); `v_s_rcp_f32` follows MODE as
        // `v_rcp_f32` does (`valu::flushes_denormals`).
        let flush = !f16 && fun != Pseudo::Rcp;
        if flush {
            v = l.flush_denorm(v, K::F32);
        }
        let r = match fun {
            Pseudo::Rcp => l.un(UnOp::FRcp, v),
            Pseudo::Rsq => l.un(UnOp::FRsq, v),
            Pseudo::Sqrt => l.un(UnOp::FSqrt, v),
            Pseudo::Exp | Pseudo::Log => {
                let f = if fun == Pseudo::Exp {
                    LaneFn::Exp2F32
                } else {
                    LaneFn::Log2F32
                };
                let vv = l.bcast(v);
                let r = l.lane_fn(f, vec![vv], Ty::V32);
                let zero = l.c32(0);
                l.read_lane(r, zero)
            }
        };
        let r = if f16 {
            let h = l.conv(ConvOp::F32ToF16, r);
            l.and_imm(h, 0xffff)
        } else if flush {
            l.flush_denorm(r, K::F32)
        } else {
            r
        };
        l.set_s32(inst.dst[0], r)
    }
}

/// The operation of a pseudo-scalar transcendental ([`pseudo_scalar`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pseudo {
    Exp,
    Log,
    Rcp,
    Rsq,
    Sqrt,
}
