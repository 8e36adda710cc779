//! Matrix instructions (MFMA/SMFMAC, VOP3P-MAI): one [`Op::Matrix`] per instruction.
//!
//! The op reads and writes whole register ranges directly, outside the IR's value flow: both
//! engines have stored every earlier register write when it runs (the JIT calls the host
//! GEMM, `crate::matrix`, from the block's code, and drops its cached register values
//! after it), and the lifter never forwards a VGPR value past it (every read is a
//! `GetVgpr`), so matrix instructions sit anywhere in a block.
//!
//! Operands (CDNA4 ISA 7.1, `notes/cdna.md` §5.1): `vdst` = D, `src0` = A, `src1` = B, both
//! VGPRs or AGPRs; `src2` = C (registers or an inline constant), or for SMFMAC the index
//! VGPR (C is D). EXEC is ignored; the counters count the instruction with all lanes.

use super::operand::{inline_const, K};
use super::{Flow, LiftResult, Lifter};
use crate::ir::{MatrixCall, Op};
use crate::isa::generated::MfmaSem;
use crate::isa::{Inst, Opnd};
use crate::matrix::plans::{self, PlanKey, ScaleSrc};
use crate::matrix::{Acc, CSrc, Controls, Kind, MatrixOp, Operands};
use crate::wave::{InstClass, NUM_VREGS};

// RDNA's WMMA/SWMMAC, dispatched from here (`lift/wmma.rs`).
#[path = "wmma.rs"]
pub(super) mod wmma;

/// A register operand as a register-file index (AGPRs from 256).
fn vreg(o: Opnd, what: &str) -> Result<u16, String> {
    o.vreg()
        .ok_or_else(|| format!("{what} must be a VGPR or AGPR"))
}

/// Lifts one matrix instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, sem: MfmaSem) -> LiftResult {
    if sem == MfmaSem::V_MFMA_LD_SCALE_B32 {
        return Err("v_mfma_ld_scale_b32 without its MFMA".into());
    }
    let mut op = sem
        .spelling()
        .and_then(|sp| MatrixOp::from_spelling(sp, l.gpu))
        .ok_or_else(|| format!("no matrix semantics for {sem:?} on {}", l.gpu))?;
    // The gfx950 block-scaled form decodes as its F8F6F4 MFMA with the scale sources of the
    // `v_mfma_ld_scale_b32` prefix (`isa::MaiFields::scale`).
    let scale = match inst.mai.scale {
        Some([sa, sb]) if op.kind == Kind::F8f6f4 => {
            op.kind = Kind::ScaledF8f6f4;
            let src = |o: Opnd, n: u8| -> Result<ScaleSrc, String> {
                let byte = (inst.mods.op_sel >> n & 1) | (inst.mods.op_sel_hi >> n & 1) << 1;
                if let Some(r) = o.vreg() {
                    return Ok(ScaleSrc {
                        reg: Some(r),
                        value: 0,
                        byte,
                    });
                }
                let value = inline_const(o.code, K::B32)
                    .ok_or("a scale operand must be a VGPR or an inline constant")?
                    as u32;
                Ok(ScaleSrc {
                    reg: None,
                    value,
                    byte,
                })
            };
            Some([src(sa, 0)?, src(sb, 1)?])
        }
        Some(_) => return Err("scale operands on a matrix op without scales".into()),
        None => None,
    };
    let d = vreg(inst.dst[0], "the destination")?;
    let a = vreg(inst.src[0], "src0 (A)")?;
    let b = vreg(inst.src[1], "src1 (B)")?;
    let s2 = inst.src[2];
    let (c, index) = if op.kind == Kind::Sparse {
        (CSrc::Reg(d), vreg(s2, "the sparse index (src2)")?)
    } else if let Some(r) = s2.vreg() {
        (CSrc::Reg(r), 0)
    } else {
        let k = if op.acc == Acc::F64 { K::F64 } else { K::F32 };
        let bits = if s2.code == Opnd::LITERAL {
            let lit = inst.literal.ok_or("literal operand without a literal")? as u64;
            if k == K::F64 {
                lit << 32
            } else {
                lit
            }
        } else {
            inline_const(s2.code, k).ok_or("src2 (C) must be registers or a constant")?
        };
        let bits = if op.acc == Acc::I32 {
            // Integer accumulators take integer constants (float codes are their f32 bits).
            inline_const(s2.code, K::B32).unwrap_or(bits)
        } else {
            bits
        };
        (CSrc::Imm(bits), 0)
    };
    let opnds = Operands { d, a, b, c, index };
    let ctl = Controls {
        cbsz: inst.mai.cbsz,
        abid: inst.mai.abid,
        blgp: inst.mai.blgp,
        mode: 0,
    };
    // Register ranges and controls are checked here, so a bad operand is a lift-time error.
    let key = PlanKey::Mfma {
        op,
        opnds,
        ctl,
        scale,
    };
    let plan = plans::plan(key, NUM_VREGS).map_err(|e| e.to_string())?;
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
