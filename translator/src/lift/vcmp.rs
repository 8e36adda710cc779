//! Vector compares: `v_cmp_*` and `v_cmpx_*` (VOPC and VOP3), including `v_cmp_class`.
//!
//! The result mask has the bits of inactive lanes cleared (ISA: "VCC bits of inactive lanes
//! are written 0"). `v_cmpx` on GFX9 writes the mask to its scalar destination and to EXEC; on RDNA to EXEC only.
//!
//! [`decode`] names every [`VcmpSem`] operation with its condition and operand type.

use super::operand::K;
use super::{Flow, LiftResult, Lifter};
use crate::ir::{CmpOp, ConvOp, Val};
use crate::isa::generated::VcmpSem::{self, *};
use crate::isa::Inst;
use crate::wave::InstClass;

/// The condition of a compare (`v_cmp_<cond>_<type>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cond {
    /// `v_cmp_class`: the class of S0 is one of those set in the mask S1.
    Class,
    /// `f`: never.
    False,
    /// `t` (integers), `tru` (floats): always.
    True,
    Lt,
    Eq,
    Le,
    Gt,
    /// Float: less or greater (ordered, not equal).
    Lg,
    Ne,
    Ge,
    /// Float: ordered (neither is NaN).
    O,
    /// Float: unordered (either is NaN).
    U,
    Nge,
    Nlg,
    Ngt,
    Nle,
    Neq,
    Nlt,
}

/// The operand type of a compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::upper_case_acronyms)]
enum CmpTy {
    F16,
    F32,
    F64,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

impl CmpTy {
    /// The operand kind the sources are read as.
    fn k(self) -> K {
        match self {
            CmpTy::F16 => K::F16,
            CmpTy::F32 => K::F32,
            CmpTy::F64 => K::F64,
            CmpTy::I16 | CmpTy::U16 => K::B16,
            CmpTy::I32 | CmpTy::U32 => K::B32,
            CmpTy::I64 => K::I64,
            CmpTy::U64 => K::B64,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, CmpTy::F16 | CmpTy::F32 | CmpTy::F64)
    }

    fn is_signed(self) -> bool {
        matches!(self, CmpTy::I16 | CmpTy::I32 | CmpTy::I64)
    }
}

/// Lifts a compare whose semantic key is `op`.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: VcmpSem) -> LiftResult {
    let (x, cond, ty) = decode(op);
    let (k, float, signed) = (ty.k(), ty.is_float(), ty.is_signed());
    l.count_vector();
    let m = match cond {
        Cond::Class => {
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
        }
        Cond::False => l.c64(0),
        Cond::True => l.c64(u64::MAX),
        _ => {
            let op = if float {
                float_op(cond)
            } else {
                int_op(cond, signed)
            }
            .ok_or("not supported")?;
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let (a, b) = widen16(l, k, signed, a, b);
            l.cmp(op, a, b)
        }
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

/// The IR comparison of a float condition.
fn float_op(cond: Cond) -> Option<CmpOp> {
    Some(match cond {
        Cond::Lt => CmpOp::FLt,
        Cond::Eq => CmpOp::FEq,
        Cond::Le => CmpOp::FLe,
        Cond::Gt => CmpOp::FGt,
        Cond::Lg => CmpOp::FLg,
        Cond::Ge => CmpOp::FGe,
        Cond::O => CmpOp::FOrd,
        Cond::U => CmpOp::FUno,
        Cond::Nge => CmpOp::FNge,
        Cond::Nlg => CmpOp::FNlg,
        Cond::Ngt => CmpOp::FNgt,
        Cond::Nle => CmpOp::FNle,
        Cond::Neq => CmpOp::FNeq,
        Cond::Nlt => CmpOp::FNlt,
        _ => return None,
    })
}

/// The IR comparison of an integer condition.
fn int_op(cond: Cond, signed: bool) -> Option<CmpOp> {
    Some(match (cond, signed) {
        (Cond::Eq, _) => CmpOp::Eq,
        (Cond::Ne | Cond::Lg, _) => CmpOp::Ne,
        (Cond::Lt, false) => CmpOp::ULt,
        (Cond::Le, false) => CmpOp::ULe,
        (Cond::Gt, false) => CmpOp::UGt,
        (Cond::Ge, false) => CmpOp::UGe,
        (Cond::Lt, true) => CmpOp::SLt,
        (Cond::Le, true) => CmpOp::SLe,
        (Cond::Gt, true) => CmpOp::SGt,
        (Cond::Ge, true) => CmpOp::SGe,
        _ => return None,
    })
}

/// Whether `op` writes EXEC (`v_cmpx`), its condition and its operand type.
fn decode(op: VcmpSem) -> (bool, Cond, CmpTy) {
    use CmpTy::*;
    use Cond::*;
    match op {
        V_CMP_CLASS_F16 => (false, Class, F16),
        V_CMP_CLASS_F32 => (false, Class, F32),
        V_CMP_CLASS_F64 => (false, Class, F64),
        V_CMP_EQ_F16 => (false, Eq, F16),
        V_CMP_EQ_F32 => (false, Eq, F32),
        V_CMP_EQ_F64 => (false, Eq, F64),
        V_CMP_EQ_I16 => (false, Eq, I16),
        V_CMP_EQ_I32 => (false, Eq, I32),
        V_CMP_EQ_I64 => (false, Eq, I64),
        V_CMP_EQ_U16 => (false, Eq, U16),
        V_CMP_EQ_U32 => (false, Eq, U32),
        V_CMP_EQ_U64 => (false, Eq, U64),
        V_CMP_F_F16 => (false, False, F16),
        V_CMP_F_F32 => (false, False, F32),
        V_CMP_F_F64 => (false, False, F64),
        V_CMP_F_I16 => (false, False, I16),
        V_CMP_F_I32 => (false, False, I32),
        V_CMP_F_I64 => (false, False, I64),
        V_CMP_F_U16 => (false, False, U16),
        V_CMP_F_U32 => (false, False, U32),
        V_CMP_F_U64 => (false, False, U64),
        V_CMP_GE_F16 => (false, Ge, F16),
        V_CMP_GE_F32 => (false, Ge, F32),
        V_CMP_GE_F64 => (false, Ge, F64),
        V_CMP_GE_I16 => (false, Ge, I16),
        V_CMP_GE_I32 => (false, Ge, I32),
        V_CMP_GE_I64 => (false, Ge, I64),
        V_CMP_GE_U16 => (false, Ge, U16),
        V_CMP_GE_U32 => (false, Ge, U32),
        V_CMP_GE_U64 => (false, Ge, U64),
        V_CMP_GT_F16 => (false, Gt, F16),
        V_CMP_GT_F32 => (false, Gt, F32),
        V_CMP_GT_F64 => (false, Gt, F64),
        V_CMP_GT_I16 => (false, Gt, I16),
        V_CMP_GT_I32 => (false, Gt, I32),
        V_CMP_GT_I64 => (false, Gt, I64),
        V_CMP_GT_U16 => (false, Gt, U16),
        V_CMP_GT_U32 => (false, Gt, U32),
        V_CMP_GT_U64 => (false, Gt, U64),
        V_CMP_LE_F16 => (false, Le, F16),
        V_CMP_LE_F32 => (false, Le, F32),
        V_CMP_LE_F64 => (false, Le, F64),
        V_CMP_LE_I16 => (false, Le, I16),
        V_CMP_LE_I32 => (false, Le, I32),
        V_CMP_LE_I64 => (false, Le, I64),
        V_CMP_LE_U16 => (false, Le, U16),
        V_CMP_LE_U32 => (false, Le, U32),
        V_CMP_LE_U64 => (false, Le, U64),
        V_CMP_LG_F16 => (false, Lg, F16),
        V_CMP_LG_F32 => (false, Lg, F32),
        V_CMP_LG_F64 => (false, Lg, F64),
        V_CMP_LT_F16 => (false, Lt, F16),
        V_CMP_LT_F32 => (false, Lt, F32),
        V_CMP_LT_F64 => (false, Lt, F64),
        V_CMP_LT_I16 => (false, Lt, I16),
        V_CMP_LT_I32 => (false, Lt, I32),
        V_CMP_LT_I64 => (false, Lt, I64),
        V_CMP_LT_U16 => (false, Lt, U16),
        V_CMP_LT_U32 => (false, Lt, U32),
        V_CMP_LT_U64 => (false, Lt, U64),
        V_CMP_NE_I16 => (false, Ne, I16),
        V_CMP_NE_I32 => (false, Ne, I32),
        V_CMP_NE_I64 => (false, Ne, I64),
        V_CMP_NE_U16 => (false, Ne, U16),
        V_CMP_NE_U32 => (false, Ne, U32),
        V_CMP_NE_U64 => (false, Ne, U64),
        V_CMP_NEQ_F16 => (false, Neq, F16),
        V_CMP_NEQ_F32 => (false, Neq, F32),
        V_CMP_NEQ_F64 => (false, Neq, F64),
        V_CMP_NGE_F16 => (false, Nge, F16),
        V_CMP_NGE_F32 => (false, Nge, F32),
        V_CMP_NGE_F64 => (false, Nge, F64),
        V_CMP_NGT_F16 => (false, Ngt, F16),
        V_CMP_NGT_F32 => (false, Ngt, F32),
        V_CMP_NGT_F64 => (false, Ngt, F64),
        V_CMP_NLE_F16 => (false, Nle, F16),
        V_CMP_NLE_F32 => (false, Nle, F32),
        V_CMP_NLE_F64 => (false, Nle, F64),
        V_CMP_NLG_F16 => (false, Nlg, F16),
        V_CMP_NLG_F32 => (false, Nlg, F32),
        V_CMP_NLG_F64 => (false, Nlg, F64),
        V_CMP_NLT_F16 => (false, Nlt, F16),
        V_CMP_NLT_F32 => (false, Nlt, F32),
        V_CMP_NLT_F64 => (false, Nlt, F64),
        V_CMP_O_F16 => (false, O, F16),
        V_CMP_O_F32 => (false, O, F32),
        V_CMP_O_F64 => (false, O, F64),
        V_CMP_T_F16 => (false, True, F16),
        V_CMP_T_F32 => (false, True, F32),
        V_CMP_T_F64 => (false, True, F64),
        V_CMP_T_I16 => (false, True, I16),
        V_CMP_T_I32 => (false, True, I32),
        V_CMP_T_I64 => (false, True, I64),
        V_CMP_T_U16 => (false, True, U16),
        V_CMP_T_U32 => (false, True, U32),
        V_CMP_T_U64 => (false, True, U64),
        V_CMP_TRU_F16 => (false, True, F16),
        V_CMP_TRU_F32 => (false, True, F32),
        V_CMP_TRU_F64 => (false, True, F64),
        V_CMP_U_F16 => (false, U, F16),
        V_CMP_U_F32 => (false, U, F32),
        V_CMP_U_F64 => (false, U, F64),
        V_CMPX_CLASS_F16 => (true, Class, F16),
        V_CMPX_CLASS_F32 => (true, Class, F32),
        V_CMPX_CLASS_F64 => (true, Class, F64),
        V_CMPX_EQ_F16 => (true, Eq, F16),
        V_CMPX_EQ_F32 => (true, Eq, F32),
        V_CMPX_EQ_F64 => (true, Eq, F64),
        V_CMPX_EQ_I16 => (true, Eq, I16),
        V_CMPX_EQ_I32 => (true, Eq, I32),
        V_CMPX_EQ_I64 => (true, Eq, I64),
        V_CMPX_EQ_U16 => (true, Eq, U16),
        V_CMPX_EQ_U32 => (true, Eq, U32),
        V_CMPX_EQ_U64 => (true, Eq, U64),
        V_CMPX_F_F16 => (true, False, F16),
        V_CMPX_F_F32 => (true, False, F32),
        V_CMPX_F_F64 => (true, False, F64),
        V_CMPX_F_I16 => (true, False, I16),
        V_CMPX_F_I32 => (true, False, I32),
        V_CMPX_F_I64 => (true, False, I64),
        V_CMPX_F_U16 => (true, False, U16),
        V_CMPX_F_U32 => (true, False, U32),
        V_CMPX_F_U64 => (true, False, U64),
        V_CMPX_GE_F16 => (true, Ge, F16),
        V_CMPX_GE_F32 => (true, Ge, F32),
        V_CMPX_GE_F64 => (true, Ge, F64),
        V_CMPX_GE_I16 => (true, Ge, I16),
        V_CMPX_GE_I32 => (true, Ge, I32),
        V_CMPX_GE_I64 => (true, Ge, I64),
        V_CMPX_GE_U16 => (true, Ge, U16),
        V_CMPX_GE_U32 => (true, Ge, U32),
        V_CMPX_GE_U64 => (true, Ge, U64),
        V_CMPX_GT_F16 => (true, Gt, F16),
        V_CMPX_GT_F32 => (true, Gt, F32),
        V_CMPX_GT_F64 => (true, Gt, F64),
        V_CMPX_GT_I16 => (true, Gt, I16),
        V_CMPX_GT_I32 => (true, Gt, I32),
        V_CMPX_GT_I64 => (true, Gt, I64),
        V_CMPX_GT_U16 => (true, Gt, U16),
        V_CMPX_GT_U32 => (true, Gt, U32),
        V_CMPX_GT_U64 => (true, Gt, U64),
        V_CMPX_LE_F16 => (true, Le, F16),
        V_CMPX_LE_F32 => (true, Le, F32),
        V_CMPX_LE_F64 => (true, Le, F64),
        V_CMPX_LE_I16 => (true, Le, I16),
        V_CMPX_LE_I32 => (true, Le, I32),
        V_CMPX_LE_I64 => (true, Le, I64),
        V_CMPX_LE_U16 => (true, Le, U16),
        V_CMPX_LE_U32 => (true, Le, U32),
        V_CMPX_LE_U64 => (true, Le, U64),
        V_CMPX_LG_F16 => (true, Lg, F16),
        V_CMPX_LG_F32 => (true, Lg, F32),
        V_CMPX_LG_F64 => (true, Lg, F64),
        V_CMPX_LT_F16 => (true, Lt, F16),
        V_CMPX_LT_F32 => (true, Lt, F32),
        V_CMPX_LT_F64 => (true, Lt, F64),
        V_CMPX_LT_I16 => (true, Lt, I16),
        V_CMPX_LT_I32 => (true, Lt, I32),
        V_CMPX_LT_I64 => (true, Lt, I64),
        V_CMPX_LT_U16 => (true, Lt, U16),
        V_CMPX_LT_U32 => (true, Lt, U32),
        V_CMPX_LT_U64 => (true, Lt, U64),
        V_CMPX_NE_I16 => (true, Ne, I16),
        V_CMPX_NE_I32 => (true, Ne, I32),
        V_CMPX_NE_I64 => (true, Ne, I64),
        V_CMPX_NE_U16 => (true, Ne, U16),
        V_CMPX_NE_U32 => (true, Ne, U32),
        V_CMPX_NE_U64 => (true, Ne, U64),
        V_CMPX_NEQ_F16 => (true, Neq, F16),
        V_CMPX_NEQ_F32 => (true, Neq, F32),
        V_CMPX_NEQ_F64 => (true, Neq, F64),
        V_CMPX_NGE_F16 => (true, Nge, F16),
        V_CMPX_NGE_F32 => (true, Nge, F32),
        V_CMPX_NGE_F64 => (true, Nge, F64),
        V_CMPX_NGT_F16 => (true, Ngt, F16),
        V_CMPX_NGT_F32 => (true, Ngt, F32),
        V_CMPX_NGT_F64 => (true, Ngt, F64),
        V_CMPX_NLE_F16 => (true, Nle, F16),
        V_CMPX_NLE_F32 => (true, Nle, F32),
        V_CMPX_NLE_F64 => (true, Nle, F64),
        V_CMPX_NLG_F16 => (true, Nlg, F16),
        V_CMPX_NLG_F32 => (true, Nlg, F32),
        V_CMPX_NLG_F64 => (true, Nlg, F64),
        V_CMPX_NLT_F16 => (true, Nlt, F16),
        V_CMPX_NLT_F32 => (true, Nlt, F32),
        V_CMPX_NLT_F64 => (true, Nlt, F64),
        V_CMPX_O_F16 => (true, O, F16),
        V_CMPX_O_F32 => (true, O, F32),
        V_CMPX_O_F64 => (true, O, F64),
        V_CMPX_T_F16 => (true, True, F16),
        V_CMPX_T_F32 => (true, True, F32),
        V_CMPX_T_F64 => (true, True, F64),
        V_CMPX_T_I16 => (true, True, I16),
        V_CMPX_T_I32 => (true, True, I32),
        V_CMPX_T_I64 => (true, True, I64),
        V_CMPX_T_U16 => (true, True, U16),
        V_CMPX_T_U32 => (true, True, U32),
        V_CMPX_T_U64 => (true, True, U64),
        V_CMPX_TRU_F16 => (true, True, F16),
        V_CMPX_TRU_F32 => (true, True, F32),
        V_CMPX_TRU_F64 => (true, True, F64),
        V_CMPX_U_F16 => (true, U, F16),
        V_CMPX_U_F32 => (true, U, F32),
        V_CMPX_U_F64 => (true, U, F64),
    }
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
