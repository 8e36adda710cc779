//! MODE and M0 writes: `s_getreg`/`s_setreg` of MODE, VGPR indexing and `s_setvskip`.
use super::*;

/// `s_getreg_b32` of MODE (the one register every family has).
pub(super) fn getreg_mode(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let (id, off, size) = hwreg(inst.imm as u32);
    if id != HWREG_MODE {
        return Err(format!("hardware register {id} is not supported"));
    }
    let m = l.push_op(Op::GetMode, Ty::S32);
    let r = field(l, m, off, size);
    l.set_s32(sopk_reg(inst), r)?;
    Ok(Flow::Next)
}

/// `s_setreg_b32` / `s_setreg_imm32_b32` (`imm32`) of MODE.
pub(super) fn setreg(l: &mut Lifter, inst: &Inst, imm32: bool) -> R<Flow> {
    let (id, off, size) = hwreg(inst.imm as u32);
    if id != HWREG_MODE {
        return Err(format!("hardware register {id} is not supported"));
    }
    let v = if imm32 {
        let lit = inst
            .literal
            .ok_or("s_setreg_imm32_b32 without its constant")?;
        l.c32(lit)
    } else {
        let o = if inst.src[0].is_some() {
            inst.src[0]
        } else {
            inst.dst[0]
        };
        l.s32(o, K::B32)?
    };
    let old = l.push_op(Op::GetMode, Ty::S32);
    let fmask = if size >= 32 {
        u32::MAX
    } else {
        ((1u32 << size) - 1) << off
    };
    let ins = l.shl_imm(v, off as u64);
    let ins = l.and_imm(ins, fmask as u64);
    let kept = l.and_imm(old, !fmask as u64);
    let new = l.or(kept, ins);
    l.effect(Op::SetMode(new));
    // Translation depends on MODE: end the block.
    Ok(Flow::End(Exit::Jump(l.next_pc)))
}

/// `s_set_gpr_idx_on`: M0 index and mask, MODE.GPR_IDX_EN on.
pub(super) fn set_gpr_idx_on(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let s0 = l.s32(inst.src[0], K::B32)?;
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let keep = l.and_imm(m0, !0xf0ffu32 as u64);
    let idx = l.and_imm(s0, 0xff);
    let t = l.or(keep, idx);
    let bits = l.c32(((inst.imm as u32) & 0xf) << 12);
    let nm0 = l.or(t, bits);
    l.set_sreg(crate::wave::sreg::M0, nm0);
    let mode = l.push_op(Op::GetMode, Ty::S32);
    let on = l.c32(1 << 27);
    let nm = l.or(mode, on);
    l.effect(Op::SetMode(nm));
    Ok(Flow::End(Exit::Jump(l.next_pc)))
}

/// `s_setvskip`: MODE.VSKIP = S0[S1[4:0]].
pub(super) fn setvskip(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let s0 = l.s32(inst.src[0], K::B32)?;
    let s1 = l.s32(inst.src[1], K::B32)?;
    let sh = l.and_imm(s1, 31);
    let bit = l.bin(BinOp::LShr, s0, sh);
    let bit = l.and_imm(bit, 1);
    let bit = l.shl_imm(bit, 28);
    let mode = l.push_op(Op::GetMode, Ty::S32);
    let kept = l.and_imm(mode, !(1u64 << 28) & 0xffff_ffff);
    let nm = l.or(kept, bit);
    l.effect(Op::SetMode(nm));
    Ok(Flow::End(Exit::Jump(l.next_pc)))
}

/// `s_set_gpr_idx_idx`: M0[7:0] = S0[7:0].
pub(super) fn set_gpr_idx_idx(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let s0 = l.s32(inst.src[0], K::B32)?;
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let keep = l.and_imm(m0, !0xffu32 as u64);
    let idx = l.and_imm(s0, 0xff);
    let nm0 = l.or(keep, idx);
    l.set_sreg(crate::wave::sreg::M0, nm0);
    Ok(Flow::Next)
}
