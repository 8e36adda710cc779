//! RDNA WMMA/SWMMAC (VOP3P): one [`Op::Matrix`] per instruction, built like MFMA's (`mai`)
//! through [`crate::matrix::plans`].
//!
//! Operands (RDNA4 ISA Table 42, `notes/rdna.md` §5.2): `vdst` = D, `src0` = A, `src1` = B,
//! `src2` = C (VGPRs or an inline constant) or, for SWMMAC, the index VGPR (C is D). NEG,
//! NEG_HI, OPSEL and CLAMP are the instruction's modifiers (see [`Wmma`]). EXEC is ignored.

use crate::ir::{MatrixCall, Op};
use crate::isa::generated::WmmaSem;
use crate::isa::{Family, Inst, Opnd};
use crate::lift::operand::{inline_const, K};
use crate::lift::{Flow, LiftResult, Lifter};
use crate::matrix::plans::{self, PlanKey};
use crate::matrix::wmma::Wmma;
use crate::matrix::{Acc, CSrc, Elem, Kind, MatrixOp, Operands};
use crate::wave::{InstClass, NUM_VREGS};

/// A VGPR operand as a register-file index.
fn vreg(o: Opnd, what: &str) -> Result<u16, String> {
    o.vreg().ok_or_else(|| format!("{what} must be a VGPR"))
}

/// Lifts one WMMA/SWMMAC.
pub(in crate::lift) fn lift(l: &mut Lifter, inst: &Inst, sem: WmmaSem) -> LiftResult {
    let op = sem
        .spelling()
        .and_then(|sp| MatrixOp::from_spelling(sp, l.gpu))
        .ok_or_else(|| format!("no matrix semantics for {sem:?} on {}", l.gpu))?;
    let d = vreg(inst.dst[0], "the destination")?;
    let a = vreg(inst.src[0], "src0 (A)")?;
    let b = vreg(inst.src[1], "src1 (B)")?;
    let s2 = inst.src[2];
    let (c, index) = if op.kind == Kind::Swmmac {
        (CSrc::Reg(d), vreg(s2, "the sparse index (src2)")?)
    } else if let Some(r) = s2.vreg() {
        (CSrc::Reg(r), 0)
    } else {
        // Inline constants only; 16-bit C takes the constant's 16-bit form (ISA L3257).
        let k = match (op.acc, op.d16) {
            (_, Some(Elem::F16)) => K::F16,
            (Acc::I32, _) => K::B32,
            _ => K::F32,
        };
        let mut bits =
            inline_const(s2.code, k).ok_or("src2 (C) must be VGPRs or an inline constant")?;
        if op.d16 == Some(Elem::Bf16) {
            // bf16 constants: the high half of the f32 form for float codes, else the LSBs.
            let f = inline_const(s2.code, K::F32).unwrap_or(0);
            bits = if (240..=248).contains(&s2.code) {
                f >> 16
            } else {
                f & 0xFFFF
            };
        }
        (CSrc::Imm(bits), 0)
    };
    let w = Wmma {
        rdna4: l.gpu.family() == Some(Family::Gfx12),
        wave: l.wave as usize,
        neg: inst.mods.neg,
        neg_hi: inst.mods.neg_hi,
        opsel: inst.mods.op_sel,
        clamp: inst.mods.clamp,
    };
    let opnds = Operands { d, a, b, c, index };
    let plan = plans::plan(PlanKey::Wmma { op, w, opnds }, NUM_VREGS).map_err(|e| e.to_string())?;
    let call = MatrixCall { pc: l.pc, plan };
    let all = l.c64(if l.wave == 64 {
        u64::MAX
    } else {
        u32::MAX as u64
    });
    l.effect(Op::CountVector { mask: all });
    l.effect(Op::Matrix(call));
    Ok((InstClass::Matrix, Flow::Next))
}
