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
use crate::isa::Inst;
use crate::wave::InstClass;

/// Lifts a VALU instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    let base = name.strip_prefix("v_").unwrap_or(name);
    if base == "nop" {
        return Ok((InstClass::Valu, Flow::Next));
    }
    // Ops whose GFX9 definition is RDNA's (32-bit results from 8/16-bit fields; the CDNA and
    // RDNA ISA pseudocode agree) have one implementation, here ([`shared`]).
    if matches!(
        base,
        "mad_u32_u16"
            | "mad_i32_i16"
            | "sad_u8"
            | "sad_hi_u8"
            | "sad_u16"
            | "msad_u8"
            | "lerp_u8"
            | "cvt_off_f32_i4"
            | "qsad_pk_u16_u8"
            | "mqsad_pk_u16_u8"
            | "mqsad_u32_u8"
            | "cvt_pk_u8_f32"
            | "cvt_norm_i16_f16"
            | "cvt_norm_u16_f16"
            | "cvt_pknorm_i16_f16"
            | "cvt_pknorm_u16_f16"
            | "cvt_pknorm_i16_f32"
            | "cvt_pknorm_u16_f32"
    ) {
        if let Some(r) = shared(l, inst, base) {
            return r.map(|()| (InstClass::Valu, Flow::Next));
        }
    }
    if let Some(r) = cdna::lift(l, inst, base) {
        r?;
        return Ok((InstClass::Valu, Flow::Next));
    }
    l.count_vector();
    lift_inner(l, inst, base)?;
    Ok((InstClass::Valu, Flow::Next))
}

/// The ops GFX9 and RDNA share one definition of (RDNA's `rdna_ops` calls the same functions).
fn shared(l: &mut Lifter, inst: &Inst, base: &str) -> Option<R<()>> {
    Some(match base {
        "mad_u32_u16" | "mad_i32_i16" => mad32_16(l, inst, base),
        "sad_u8" | "sad_hi_u8" | "sad_u16" | "msad_u8" | "lerp_u8" => sad(l, inst, base),
        "qsad_pk_u16_u8" | "mqsad_pk_u16_u8" | "mqsad_u32_u8" => qsad(l, inst, base),
        "cvt_off_f32_i4" => cvt_off_i4(l, inst),
        "cvt_pknorm_i16_f16" | "cvt_pknorm_u16_f16" | "cvt_pknorm_i16_f32"
        | "cvt_pknorm_u16_f32" | "cvt_norm_i16_f16" | "cvt_norm_u16_f16" => cvt_norm(l, inst, base),
        "cvt_pk_u8_f32" => cvt_pk_u8(l, inst),
        _ => return None,
    })
}

/// A kind module's lifting function: `Ok(false)` when `base` is not one of its instructions.
type KindLift = fn(&mut Lifter, &Inst, &str) -> R<bool>;

/// Lifts `base` through the module of its kind.
fn lift_inner(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let kinds: [KindLift; 9] = [
        moves::lift,
        float::lift,
        transcend::lift,
        f16::lift,
        packed::lift,
        convert::lift,
        int::lift,
        int16::lift,
        dot::lift,
    ];
    for kind in kinds {
        if kind(l, inst, base)? {
            return Ok(());
        }
    }
    Err("not supported".into())
}
