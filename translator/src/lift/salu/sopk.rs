//! SOPK register-immediate arithmetic and `s_call_b64` (ISA SOPK table).
use super::*;

/// D = SIMM16.
pub(super) fn movk(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let v = l.c32(inst.imm as u32);
    l.set_s32(sopk_reg(inst), v)?;
    Ok(Flow::Next)
}

/// D = SCC ? SIMM16 : D.
pub(super) fn cmovk(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let o = sopk_reg(inst);
    let old = l.s32(o, K::B32)?;
    let v = l.c32(inst.imm as u32);
    let scc = l.get_scc();
    let r = l.select(scc, v, old);
    l.set_s32(o, r)?;
    Ok(Flow::Next)
}

/// D = D + SIMM16; SCC = signed overflow.
pub(super) fn addk(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let o = sopk_reg(inst);
    let a = l.s32(o, K::B32)?;
    let b = l.c32(inst.imm as u32);
    let r = l.add(a, b);
    let ov = signed_add_overflow(l, a, b, r);
    l.set_s32(o, r)?;
    l.set_scc(ov);
    Ok(Flow::Next)
}

/// `s_call_b64`: D = PC + 4; PC = PC + 4 + SIMM16 * 4.
pub(super) fn call(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    // D = PC + 4; PC = PC + 4 + SIMM16 * 4.
    let ret = l.c64(l.next_pc);
    l.set_s64(sopk_reg(inst), ret)?;
    let t = l.next_pc.wrapping_add((inst.imm as i16 as i64 * 4) as u64);
    Ok(Flow::End(Exit::Jump(t)))
}

/// D = D * SIMM16.
pub(super) fn mulk(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let o = sopk_reg(inst);
    let a = l.s32(o, K::B32)?;
    let b = l.c32(inst.imm as u32);
    let r = l.bin(BinOp::Mul, a, b);
    l.set_s32(o, r)?;
    Ok(Flow::Next)
}
