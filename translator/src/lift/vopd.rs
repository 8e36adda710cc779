//! RDNA VOPD (dual issue, wave32): `v_dual_X ... :: v_dual_Y ...` as two VALU operations.
//!
//! Both halves read their sources before either writes (RDNA ISA, VOPD: "the two
//! instructions ... read before write"). The halves are lifted one after the other through
//! the ordinary VALU lifting, in an order in which neither overwrites a register the other
//! still reads; when each writes a register the other reads, the instruction is Unsupported
//! (the assembler rejects most such pairs; LLVM does not emit them).
//!
//! Operand layout from the decoder (`isa::rdna`): `dst` = [VDSTX, VDSTY], `src` = [SRCX0,
//! VSRCX1, SRCY0, VSRCY1], `imm` = the Y opcode field, `literal` = the shared constant.

use super::{Flow, LiftResult, Lifter};
use crate::isa::generated::DualSem::{self, *};
use crate::isa::generated::{Sem, ValuSem};
use crate::isa::{Format, Inst, Op, Opnd, Target};
use crate::wave::InstClass;

/// What one VOPD half lifts as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Half {
    /// The VOP1/VOP2 operation of this key.
    Valu(ValuSem),
    /// gfx11 `v_dual_dot2acc_f32_bf16`, which has no VOP2 opcode of its own.
    Dot2AccBf16,
}

/// The operation of a VOPD half.
fn half_op(op: DualSem) -> Half {
    use ValuSem as V;
    Half::Valu(match op {
        V_DUAL_MOV_B32 => V::V_MOV_B32,
        V_DUAL_ADD_F32 => V::V_ADD_F32,
        V_DUAL_SUB_F32 => V::V_SUB_F32,
        V_DUAL_SUBREV_F32 => V::V_SUBREV_F32,
        V_DUAL_MUL_F32 => V::V_MUL_F32,
        V_DUAL_MAX_F32 | V_DUAL_MAX_NUM_F32 => V::V_MAX_F32,
        V_DUAL_MIN_F32 | V_DUAL_MIN_NUM_F32 => V::V_MIN_F32,
        V_DUAL_FMAC_F32 => V::V_FMAC_F32,
        V_DUAL_FMAMK_F32 => V::V_FMAMK_F32,
        V_DUAL_FMAAK_F32 => V::V_FMAAK_F32,
        V_DUAL_CNDMASK_B32 => V::V_CNDMASK_B32,
        V_DUAL_ADD_NC_U32 => V::V_ADD_U32,
        V_DUAL_LSHLREV_B32 => V::V_LSHLREV_B32,
        V_DUAL_AND_B32 => V::V_AND_B32,
        V_DUAL_MUL_DX9_ZERO_F32 => V::V_MUL_DX9_ZERO_F32,
        V_DUAL_DOT2ACC_F32_F16 => V::V_DOT2ACC_F32_F16,
        V_DUAL_DOT2ACC_F32_BF16 => return Half::Dot2AccBf16,
    })
}

/// One half as an ordinary VOP1/VOP2 instruction, with what it lifts as.
fn half(
    op: Op,
    dst: Opnd,
    s0: Opnd,
    s1: Opnd,
    wave: u32,
    base: &Inst,
) -> Result<(Inst, Half), String> {
    let Sem::Dual(dual) = op.sem() else {
        return Err("not a VOPD half".into());
    };
    let h = half_op(dual);
    let mut inst = *base;
    // The half's own VOP1/VOP2 opcode (the dual one for `Dot2AccBf16`).
    inst.op = match h {
        Half::Valu(v) => Op::from_name(v.name()).unwrap_or(op),
        Half::Dot2AccBf16 => op,
    };
    inst.format = if h == Half::Valu(ValuSem::V_MOV_B32) {
        Format::Vop1
    } else {
        Format::Vop2
    };
    inst.dst = [dst, Opnd::NONE];
    let lit = Opnd::scalar(Opnd::LITERAL as u8, 1);
    inst.src = match h {
        Half::Valu(ValuSem::V_MOV_B32) => [s0, Opnd::NONE, Opnd::NONE, Opnd::NONE],
        // LLVM's operand order: the constant K second (fmamk) or third (fmaak).
        Half::Valu(ValuSem::V_FMAMK_F32) => [s0, lit, s1, Opnd::NONE],
        Half::Valu(ValuSem::V_FMAAK_F32) => [s0, s1, lit, Opnd::NONE],
        // The selector is VCC (vcc_lo in wave32), explicit as in the GFX9 decoder.
        Half::Valu(ValuSem::V_CNDMASK_B32) => [
            s0,
            s1,
            Opnd::scalar(106, if wave == 64 { 2 } else { 1 }),
            Opnd::NONE,
        ],
        _ => [s0, s1, Opnd::NONE, Opnd::NONE],
    };
    Ok((inst, h))
}

/// VGPR slots a half reads (its accumulator included) and the slot it writes.
fn reads_writes(inst: &Inst, h: Half) -> (Vec<u16>, Option<u16>) {
    let mut reads: Vec<u16> = inst.src.iter().filter_map(|o| o.vreg()).collect();
    if matches!(
        h,
        Half::Valu(ValuSem::V_FMAC_F32 | ValuSem::V_DOT2ACC_F32_F16) | Half::Dot2AccBf16
    ) {
        reads.extend(inst.dst[0].vreg());
    }
    (reads, inst.dst[0].vreg())
}

/// Lifts one VOPD instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst) -> LiftResult {
    if l.wave == 64 {
        // RDNA ISA 2.1/7.8: every instruction exists in both wave sizes except VOPD.
        return Err("VOPD is illegal in wave64".into());
    }
    let target = Target {
        gpu: l.gpu,
        wave_size: l.wave,
    };
    let y_op = crate::isa::rdna::tables(&target)
        .vopdy
        .get(inst.imm as usize)
        .copied()
        .flatten()
        .ok_or("VOPD Y opcode not in the table")?
        .op;
    let x = half(inst.op, inst.dst[0], inst.src[0], inst.src[1], l.wave, inst)?;
    let y = half(y_op, inst.dst[1], inst.src[2], inst.src[3], l.wave, inst)?;
    let (xr, xw) = reads_writes(&x.0, x.1);
    let (yr, yw) = reads_writes(&y.0, y.1);
    let x_clobbers_y = xw.is_some_and(|w| yr.contains(&w));
    let y_clobbers_x = yw.is_some_and(|w| xr.contains(&w));
    let order = match (x_clobbers_y, y_clobbers_x) {
        (false, _) => [x, y],
        (true, false) => [y, x],
        (true, true) => return Err("VOPD halves that each overwrite the other's source".into()),
    };
    let (pc, next) = (l.pc, l.next_pc);
    for (h, op) in order {
        l.begin(&h, pc, next);
        match op {
            Half::Valu(op) => {
                super::valu::lift(l, &h, op)?;
            }
            Half::Dot2AccBf16 => super::valu::dot2acc_bf16(l, &h)?,
        }
    }
    Ok((InstClass::Valu, Flow::Next))
}
