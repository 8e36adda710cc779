//! Vector compares: `v_cmp_*` and `v_cmpx_*` (VOPC and VOP3), including `v_cmp_class`.
//!
//! The result mask has the bits of inactive lanes cleared (ISA: "VCC bits of inactive lanes
//! are written 0"). `v_cmpx` on GFX9 writes the mask to its scalar destination and to EXEC; on RDNA to EXEC only.

use super::operand::K;
use super::{Flow, LiftResult, Lifter};
use crate::ir::{CmpOp, ConvOp, Val};
use crate::isa::Inst;
use crate::wave::InstClass;

/// Lifts a compare.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    let (x, rest) = if let Some(r) = name.strip_prefix("v_cmpx_") {
        (true, r)
    } else if let Some(r) = name.strip_prefix("v_cmp_") {
        (false, r)
    } else {
        return Err("not supported".into());
    };
    let (cond, ty) = rest.rsplit_once('_').ok_or("not supported")?;
    let float = ty.starts_with('f');
    let signed = ty.starts_with('i');
    let k = match ty {
        "f16" => K::F16,
        "f32" => K::F32,
        "f64" => K::F64,
        "i16" | "u16" => K::B16,
        "i32" | "u32" => K::B32,
        "i64" => K::I64,
        "u64" => K::B64,
        _ => return Err("not supported".into()),
    };
    l.count_vector();
    let m = if cond == "class" {
        if !float {
            return Err("not supported".into());
        }
        let a = l.src(0, k)?;
        let b = l.src(1, K::B32)?;
        let (a, b) = match k {
            K::F16 => (f16_class_equivalent(l, a), b),
            K::F64 => (a, l.conv(ConvOp::ZExt, b)),
            _ => (a, b),
        };
        l.cmp(CmpOp::FClass, a, b)
    } else if cond == "f" || cond == "t" || cond == "tru" {
        let v = if cond == "f" { 0 } else { u64::MAX };
        l.c64(v)
    } else {
        let op = if float {
            float_cmp(cond).ok_or("not supported")?
        } else {
            match (cond, signed) {
                ("eq", _) => CmpOp::Eq,
                ("ne", _) | ("lg", _) => CmpOp::Ne,
                ("lt", false) => CmpOp::ULt,
                ("le", false) => CmpOp::ULe,
                ("gt", false) => CmpOp::UGt,
                ("ge", false) => CmpOp::UGe,
                ("lt", true) => CmpOp::SLt,
                ("le", true) => CmpOp::SLe,
                ("gt", true) => CmpOp::SGt,
                ("ge", true) => CmpOp::SGe,
                _ => return Err("not supported".into()),
            }
        };
        let a = l.src(0, k)?;
        let b = l.src(1, k)?;
        let (a, b) = widen16(l, k, signed, a, b);
        l.cmp(op, a, b)
    };
    let w = l.wmask();
    let m = l.and(m, w);
    // GFX10+ (RDNA) `v_cmpx` writes EXEC only (RDNA ISA, VOPC: "CMPX ... write EXEC");
    // GFX9's also writes its scalar destination (VCC for e32).
    let rdna_cmpx = x && l.gpu.family() != Some(crate::isa::Family::Gfx9);
    if inst.dst[0].is_some() && !rdna_cmpx {
        l.set_mask_opnd(inst.dst[0], m)?;
    }
    if x {
        l.set_exec(m);
    }
    Ok((InstClass::Valu, Flow::Next))
}

/// The float comparison named by a compare mnemonic's condition (`lt`, `nge`, `o`, ...), as
/// in `v_cmp_<cond>_f32` and the gfx12 `s_cmp_<cond>_f32`.
pub(super) fn float_cmp(cond: &str) -> Option<CmpOp> {
    Some(match cond {
        "lt" => CmpOp::FLt,
        "eq" => CmpOp::FEq,
        "le" => CmpOp::FLe,
        "gt" => CmpOp::FGt,
        "lg" => CmpOp::FLg,
        "ge" => CmpOp::FGe,
        "o" => CmpOp::FOrd,
        "u" => CmpOp::FUno,
        "nge" => CmpOp::FNge,
        "nlg" => CmpOp::FNlg,
        "ngt" => CmpOp::FNgt,
        "nle" => CmpOp::FNle,
        "neq" => CmpOp::FNeq,
        "nlt" => CmpOp::FNlt,
        _ => return None,
    })
}

/// 16-bit operands compared as 32-bit values (f16 → f32 is exact).
fn widen16(l: &mut Lifter, k: K, signed: bool, a: Val, b: Val) -> (Val, Val) {
    let op = match (k, signed) {
        (K::F16, _) => ConvOp::F16ToF32,
        (K::B16, true) => ConvOp::SExt16,
        (K::B16, false) => ConvOp::ZExt16,
        _ => return (a, b),
    };
    (l.conv(op, a), l.conv(op, b))
}

/// An f32 bit pattern in the same `v_cmp_class` class as the f16 in the low bits of `h`:
/// the sign and mantissa (shifted into place) are kept, exponent 0 stays 0 (zero or
/// denormal), 31 becomes 255 (Inf or NaN, the quiet bit landing on f32's), anything else
/// becomes a normal exponent. (A plain conversion would turn f16 denormals into f32 normals.)
fn f16_class_equivalent(l: &mut Lifter, h: Val) -> Val {
    let sign = l.and_imm(h, 0x8000);
    let sign = l.shl_imm(sign, 16);
    let mant = l.and_imm(h, 0x3ff);
    let mant = l.shl_imm(mant, 13);
    let e = l.and_imm(h, 0x7c00);
    let z = l.cst(e, 0);
    let top = l.cst(e, 0x7c00);
    let e0 = l.cmp(CmpOp::Eq, e, z);
    let emax = l.cmp(CmpOp::Eq, e, top);
    let exp_norm = l.cst(e, 127 << 23);
    let exp_max = l.cst(e, 255 << 23);
    let ex = l.select(emax, exp_max, exp_norm);
    let ex = l.select(e0, z, ex);
    let t = l.or(sign, ex);
    l.or(t, mant)
}
