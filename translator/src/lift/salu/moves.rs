//! SALU moves and selects, and the `_wrexec` EXEC writes.
use super::*;

/// `s_andn{1,2}_wrexec_b64` (`andn1` for 1).
pub(super) fn andn_wrexec(l: &mut Lifter, inst: &Inst, andn1: bool) -> R<Flow> {
    // EXEC = D = ~S0 & EXEC (andn1) or S0 & ~EXEC (andn2); SCC = EXEC != 0.
    let s0 = l.s64(inst.src[0], K::B64)?;
    let e = l.exec();
    let new = if andn1 {
        let n = l.not(s0);
        l.and(n, e)
    } else {
        let n = l.not(e);
        l.and(s0, n)
    };
    l.set_exec(new);
    l.set_mask_opnd(inst.dst[0], new)?;
    let scc = l.ne0(new);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// D = S0.
pub(super) fn mov(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    let v = src(l, inst, 0, k)?;
    dst(l, inst, v)?;
    Ok(Flow::Next)
}

/// D = SCC ? S0 : D.
pub(super) fn cmov(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    let v = src(l, inst, 0, k)?;
    let old = src_of_dst(l, inst, k)?;
    let scc = l.get_scc();
    let r = l.select(scc, v, old);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// D = SCC ? S0 : S1.
pub(super) fn cselect(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let b = src(l, inst, 1, k)?;
    let scc = l.get_scc();
    let r = l.select(scc, a, b);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}
