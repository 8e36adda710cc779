//! Program-counter moves and RDNA's `s_barrier_signal{,_isfirst}`.
use super::*;

/// `s_getpc_b64`.
pub(super) fn getpc(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    // The address of the next instruction.
    let v = l.c64(l.next_pc);
    l.set_s64(inst.dst[0], v)?;
    Ok(Flow::Next)
}

/// `s_setpc_b64`.
pub(super) fn setpc(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let t = l.s64(inst.src[0], K::B64)?;
    Ok(Flow::End(Exit::JumpIndirect(t)))
}

/// `s_swappc_b64`.
pub(super) fn swappc(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let t = l.s64(inst.src[0], K::B64)?;
    let ret = l.c64(l.next_pc);
    l.set_s64(inst.dst[0], ret)?;
    Ok(Flow::End(Exit::JumpIndirect(t)))
}

/// `s_barrier_signal_isfirst` of barrier -2 or 0: SCC = 0.
pub(super) fn barrier_isfirst_noop(l: &mut Lifter) -> R<Flow> {
    let zero = l.c32(0);
    l.set_scc(zero);
    Ok(Flow::Next)
}

/// `s_barrier_signal` on RDNA: -1 is the work-group barrier, -2 and 0 do nothing.
pub(super) fn barrier_signal(l: &mut Lifter, inst: &Inst) -> LiftResult {
    match inst.src[0].code {
        193 => Ok((
            InstClass::Control,
            Flow::End(Exit::Barrier { next: l.next_pc }),
        )),
        128 | 194 => Ok((InstClass::Control, Flow::Next)),
        _ => Err("named barriers are not in the RDNA4 ISA".into()),
    }
}

/// `s_barrier_signal_isfirst -1` on RDNA: SCC = first wave to signal, then the barrier.
pub(super) fn barrier_isfirst(l: &mut Lifter) -> LiftResult {
    let st = l.push_op(Op::BarrierState, Ty::S32);
    let t = l.and_imm(st, 0x7f_0001);
    let one = l.c32(1);
    let first = l.cmp(CmpOp::Eq, t, one);
    l.set_scc(first);
    Ok((
        InstClass::Control,
        Flow::End(Exit::Barrier { next: l.next_pc }),
    ))
}
