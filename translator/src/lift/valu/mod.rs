//! Vector ALU: VOP1, VOP2, VOP3 (A and B), and the AGPR moves of VOP3P-MAI.
//!
//! Every result is written to the lanes of EXEC (narrowed by DPP row/bank masks and invalid
//! DPP sources); carry-outs and other mask results have the bits of inactive lanes cleared.
//!
//! Float results round in the MODE.FP_ROUND direction of their type (see the `lift` module
//! doc); f16 FMAs round once. `v_min`/`v_max`/`v_min3`/`v_max3`/`v_med3` follow the GFX9/CDNA
//! pseudocode including MODE.IEEE's sNaN quieting.
//!
//! Documented approximations: `v_rcp_f32`/`v_rsq_f32`/`v_sqrt_f32` are correctly rounded
//! (hardware: within 1 ULP); `v_mad_f32`/`v_mac_f32`/`v_madak_f32`/`v_madmk_f32` round after
//! the multiply but keep denormals (hardware flushes them).

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
mod moves;
mod packed;
mod permlane_swap;
mod scale_cvt;
mod transcend;

pub(super) use common::{
    farith, fp16_ovfl, insert16, out16, round_of, rounded, src_raw, src_with_mods, write16,
};
pub(super) use convert::{cvt_norm, cvt_off_i4, cvt_pk_u8};
pub(super) use float::cube;
pub(super) use int16::mad32_16;
pub(super) use media::{qsad, sad};

use super::operand::R;
use super::{Flow, LiftResult, Lifter};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::wave::InstClass;
use kind::{kind, Kind};

/// Lifts a VALU instruction whose semantic key is `op`, through the module of its kind
/// ([`kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> LiftResult {
    let done = Ok((InstClass::Valu, Flow::Next));
    let lift: fn(&mut Lifter, &Inst, ValuSem) -> R<()> = match kind(op) {
        Kind::Nop => return done,
        Kind::Unsupported(why) => return Err(why.into()),
        // Lifted by `rdna_ops`, which the RDNA dispatch consults first.
        Kind::Rdna => return Err("not supported".into()),
        // These count themselves.
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
    if !matches!(kind(op), Kind::Shared | Kind::Cdna) {
        l.count_vector();
    }
    lift(l, inst, op)?;
    done
}

/// The operations whose GFX9 definition is RDNA's (32-bit results from 8/16-bit fields; the
/// CDNA and RDNA ISA pseudocode agree): one implementation, which `rdna_ops` calls too.
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
