//! Vector ALU: VOP1, VOP2, VOP3 (A and B), VOP3P, and the AGPR moves of VOP3P-MAI, selected
//! by the semantic key [`ValuSem`]: [`kind`] places every operation in the module of its kind
//! (moves, integer, 16-bit integer, float, min/max, transcendental, f16, packed,
//! conversions, scaled conversions, dot products, media, CDNA-only); RDNA's own definitions
//! of shared operations and the RDNA-only operations are chosen here ([`rdna_form`],
//! [`rdna_only`]).
//!
//! Every result is written to the lanes of EXEC (narrowed by DPP row/bank masks and invalid
//! DPP sources); carry-outs and other mask results have the bits of inactive lanes cleared.
//!
//! Float results round in the MODE.FP_ROUND direction of their type (see the `lift` module
//! doc); f16 FMAs round once. `v_min`/`v_max`/`v_min3`/`v_max3`/`v_med3` follow the GFX9/CDNA
//! pseudocode including MODE.IEEE's sNaN quieting.
//!
//! Documented approximation: `v_rcp_f32`/`v_rsq_f32`/`v_sqrt_f32` are correctly rounded
//! (hardware: within 1 ULP).

mod cdna;
mod common;
mod convert;
mod dot;
mod f16;
mod float;
mod int;
mod int16;
mod kind;
mod media;
mod minmax;
mod moves;
mod packed;
mod permlane_swap;
mod scale_cvt;
mod transcend;

pub(super) use convert::{cvt_norm, cvt_off_i4, cvt_pk_u8};
pub(super) use int16::mad32_16;
pub(super) use media::{qsad, sad};

use super::operand::R;
use super::{Flow, LiftResult, Lifter};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::wave::InstClass;
use dot::FloatDot;
use kind::{kind, Kind};

/// Lifts a VALU instruction whose semantic key is `op`, through the module of its kind
/// ([`kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> LiftResult {
    let done = Ok((InstClass::Valu, Flow::Next));
    if l.gpu.family() != Some(crate::isa::Family::Gfx9) {
        if let Some(r) = rdna_form(l, inst, op) {
            r?;
            return done;
        }
    }
    let lift: fn(&mut Lifter, &Inst, ValuSem) -> R<()> = match kind(op) {
        Kind::Nop => return done,
        Kind::Unsupported(why) => return Err(why.into()),
        // These count themselves.
        Kind::Rdna => rdna_only,
        Kind::Shared => shared,
        Kind::Cdna => cdna::lift,
        Kind::Moves => moves::lift,
        Kind::Int => int::lift,
        Kind::Int16 => int16::lift,
        Kind::Float => float::lift,
        Kind::Transcend => transcend::lift,
        Kind::F16 => f16::lift,
        Kind::Packed => packed::lift,
        Kind::Convert => convert::lift,
        Kind::Scaled => scale_cvt::lift,
        Kind::Dot => dot::lift,
    };
    if !matches!(kind(op), Kind::Rdna | Kind::Shared | Kind::Cdna) {
        l.count_vector();
    }
    lift(l, inst, op)?;
    done
}

/// The operations whose GFX9 definition is RDNA's (32-bit results from 8/16-bit fields; the
/// CDNA and RDNA ISA pseudocode agree): one implementation for both families.
fn shared(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_MAD_U32_U16 | V_MAD_I32_I16 => mad32_16(l, inst, op),
        V_SAD_U8 | V_SAD_HI_U8 | V_SAD_U16 | V_MSAD_U8 | V_LERP_U8 => sad(l, inst, op),
        V_QSAD_PK_U16_U8 | V_MQSAD_PK_U16_U8 | V_MQSAD_U32_U8 => qsad(l, inst, op),
        V_CVT_OFF_F32_I4 => cvt_off_i4(l, inst),
        V_CVT_PKNORM_I16_F16 | V_CVT_PKNORM_U16_F16 | V_CVT_PKNORM_I16_F32
        | V_CVT_PKNORM_U16_F32 | V_CVT_NORM_I16_F16 | V_CVT_NORM_U16_F16 => cvt_norm(l, inst, op),
        V_CVT_PK_U8_F32 => cvt_pk_u8(l, inst),
        _ => Err("not supported".into()),
    }
}

/// RDNA's own definition of operations GFX9 also has (RDNA's denormal rule of the cube-map
/// ops, OCP FP8 formats, 16-bit results into VGPR halves, IEEE-754-2019 min/max), or `None`.
/// They count themselves.
fn rdna_form(l: &mut Lifter, inst: &Inst, op: ValuSem) -> Option<R<()>> {
    Some(match op {
        V_CUBEID_F32 | V_CUBESC_F32 | V_CUBETC_F32 | V_CUBEMA_F32 => float::cube(l, op, true),
        V_SAT_PK_U8_I16 => int16::sat_pk_u8(l, inst),
        V_DOT2_F32_F16 => dot::dot_float(l, inst, FloatDot::Dot2 { bf16: false }),
        V_DOT2_F32_BF16 => dot::dot_float(l, inst, FloatDot::Dot2 { bf16: true }),
        V_CVT_F32_FP8 | V_CVT_F32_BF8 | V_CVT_PK_F32_FP8 | V_CVT_PK_F32_BF8 => {
            convert::cvt_from_ocp8(l, inst, op)
        }
        V_CVT_PK_FP8_F32 | V_CVT_PK_BF8_F32 | V_CVT_SR_FP8_F32 | V_CVT_SR_BF8_F32 => {
            convert::cvt_to_ocp8(l, inst, op)
        }
        V_MIN3_I16 | V_MIN3_U16 | V_MAX3_I16 | V_MAX3_U16 | V_MED3_I16 | V_MED3_U16 => {
            int::int_minmax(l, inst, op)
        }
        V_MINIMUM3_F32 | V_MAXIMUM3_F32 => minmax::fminmax(l, inst, op),
        _ => return None,
    })
}

/// The operations only RDNA has ([`Kind::Rdna`]). They count themselves.
fn rdna_only(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_MOV_B16 | V_NOT_B16 | V_AND_B16 | V_OR_B16 | V_XOR_B16 => int16::bits16(l, inst, op),
        V_CNDMASK_B16 => moves::cndmask16(l, inst),
        V_SWAP_B16 => moves::swap16(l, inst),
        V_PERMLANE16_B32 | V_PERMLANEX16_B32 | V_PERMLANE16_VAR_B32 | V_PERMLANEX16_VAR_B32 => {
            moves::permlane16(l, inst, op)
        }
        V_PERMLANE64_B32 => moves::permlane64(l, inst),
        V_MOVRELS_B32 | V_MOVRELD_B32 | V_MOVRELSD_B32 | V_MOVRELSD_2_B32 | V_SWAPREL_B32 => {
            moves::movrel(l, inst, op)
        }
        V_MINMAX_I32 | V_MINMAX_U32 | V_MAXMIN_I32 | V_MAXMIN_U32 => int::int_minmax(l, inst, op),
        V_CVT_I32_I16 | V_CVT_U32_U16 => convert::ext16(l, inst, op),
        V_CVT_PK_I16_F32 | V_CVT_PK_U16_F32 => convert::cvt_pk16_f32(l, inst, op),
        V_CVT_PK_NORM_I16_F16
        | V_CVT_PK_NORM_U16_F16
        | V_CVT_PK_NORM_I16_F32
        | V_CVT_PK_NORM_U16_F32 => cvt_norm(l, inst, op),
        V_FMAC_F16 | V_FMAAK_F16 | V_FMAMK_F16 => f16::fma16_forms(l, inst, op),
        V_PK_MINIMUM_F16 | V_PK_MAXIMUM_F16 | V_PK_MIN_NUM_F16 | V_PK_MAX_NUM_F16 => {
            packed::pk_minimum16(l, inst, op)
        }
        V_MED3_NUM_F32 | V_MED3_NUM_F16 => minmax::med3_num(l, inst, op),
        V_MINIMUM_F32 | V_MINIMUM_F16 | V_MINIMUM_F64 | V_MAXIMUM_F32 | V_MAXIMUM_F16
        | V_MAXIMUM_F64 | V_MINIMUM3_F16 | V_MAXIMUM3_F16 | V_MINIMUMMAXIMUM_F32
        | V_MINIMUMMAXIMUM_F16 | V_MAXIMUMMINIMUM_F32 | V_MAXIMUMMINIMUM_F16 | V_MINMAX_F32
        | V_MINMAX_F16 | V_MAXMIN_F32 | V_MAXMIN_F16 | V_MIN_NUM_F16 | V_MIN_NUM_F64
        | V_MAX_NUM_F16 | V_MAX_NUM_F64 | V_MIN3_NUM_F32 | V_MIN3_NUM_F16 | V_MAX3_NUM_F32
        | V_MAX3_NUM_F16 | V_MINMAX_NUM_F32 | V_MINMAX_NUM_F16 | V_MAXMIN_NUM_F32
        | V_MAXMIN_NUM_F16 => minmax::fminmax(l, inst, op),
        V_MUL_DX9_ZERO_F32 | V_FMA_DX9_ZERO_F32 | V_FMAC_DX9_ZERO_F32 => {
            float::dx9_zero(l, inst, op)
        }
        V_MULLIT_F32 => float::mullit(l),
        V_S_EXP_F32 | V_S_EXP_F16 | V_S_LOG_F32 | V_S_LOG_F16 | V_S_RCP_F32 | V_S_RCP_F16
        | V_S_RSQ_F32 | V_S_RSQ_F16 | V_S_SQRT_F32 | V_S_SQRT_F16 => {
            transcend::pseudo_scalar(l, inst, op)
        }
        V_DOT4_I32_IU8 | V_DOT8_I32_IU4 => dot::dot_iu(l, inst, op),
        V_DOT2ACC_F32_F16 => dot::dot_float(l, inst, FloatDot::Dot2Acc { bf16: false }),
        V_DOT4_F32_FP8_FP8 => dot::dot_float(
            l,
            inst,
            FloatDot::Fp8 {
                a_bf8: false,
                b_bf8: false,
            },
        ),
        V_DOT4_F32_FP8_BF8 => dot::dot_float(
            l,
            inst,
            FloatDot::Fp8 {
                a_bf8: false,
                b_bf8: true,
            },
        ),
        V_DOT4_F32_BF8_FP8 => dot::dot_float(
            l,
            inst,
            FloatDot::Fp8 {
                a_bf8: true,
                b_bf8: false,
            },
        ),
        V_DOT4_F32_BF8_BF8 => dot::dot_float(
            l,
            inst,
            FloatDot::Fp8 {
                a_bf8: true,
                b_bf8: true,
            },
        ),
        V_DOT2_F16_F16 | V_DOT2_BF16_BF16 => dot::dot2_16(l, inst, op),
        _ => Err("not supported".into()),
    }
}

/// gfx11 `v_dual_dot2acc_f32_bf16`, a VOPD half with no VOP2 opcode of its own (`vopd`).
pub(super) fn dot2acc_bf16(l: &mut Lifter, inst: &Inst) -> R<()> {
    dot::dot_float(l, inst, FloatDot::Dot2Acc { bf16: true })
}
