//! SALU integer arithmetic with its SCC rules (carry, borrow, signed overflow).
use super::*;

/// gfx12 64-bit D = S0 op S1: wrapping, SCC unchanged (RDNA4 ISA, SOP2).
pub(super) fn wide_arith(l: &mut Lifter, inst: &Inst, op: BinOp) -> R<Flow> {
    let a = src(l, inst, 0, K::B64)?;
    let b = src(l, inst, 1, K::B64)?;
    let r = l.bin(op, a, b);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_add_u32` (`add`) / `s_sub_u32`.
pub(super) fn add_sub_u32(l: &mut Lifter, inst: &Inst, add: bool) -> R<Flow> {
    // SCC = unsigned carry / borrow.
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let (r, c) = if add {
        (l.add(a, b), l.bin(BinOp::AddCarry, a, b))
    } else {
        (l.bin(BinOp::Sub, a, b), l.bin(BinOp::SubBorrow, a, b))
    };
    dst(l, inst, r)?;
    l.set_scc(c);
    Ok(Flow::Next)
}

/// `s_addc_u32` (`add`) / `s_subb_u32`.
pub(super) fn addc_subb(l: &mut Lifter, inst: &Inst, add: bool) -> R<Flow> {
    // D = S0 ± S1 ± SCC; SCC = carry/borrow out of the whole operation.
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let cin = l.get_scc();
    let (r, c) = if add {
        let t = l.add(a, b);
        let c1 = l.bin(BinOp::AddCarry, a, b);
        let r = l.add(t, cin);
        let c2 = l.bin(BinOp::AddCarry, t, cin);
        (r, l.or(c1, c2))
    } else {
        let t = l.bin(BinOp::Sub, a, b);
        let c1 = l.bin(BinOp::SubBorrow, a, b);
        let r = l.bin(BinOp::Sub, t, cin);
        let c2 = l.bin(BinOp::SubBorrow, t, cin);
        (r, l.or(c1, c2))
    };
    dst(l, inst, r)?;
    l.set_scc(c);
    Ok(Flow::Next)
}

/// `s_add_i32` (`add`) / `s_sub_i32`.
pub(super) fn add_sub_i32(l: &mut Lifter, inst: &Inst, add: bool) -> R<Flow> {
    // SCC = signed overflow.
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let (r, ov) = if add {
        let r = l.add(a, b);
        (r, signed_add_overflow(l, a, b, r))
    } else {
        let r = l.bin(BinOp::Sub, a, b);
        // Overflow when the operands' signs differ and the result's sign differs from a.
        let x1 = l.xor(a, b);
        let x2 = l.xor(a, r);
        let t = l.and(x1, x2);
        (r, l.lshr_imm(t, 31))
    };
    dst(l, inst, r)?;
    l.set_scc(ov);
    Ok(Flow::Next)
}

/// D = |S0|; SCC = D != 0.
pub(super) fn abs(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let a = src(l, inst, 0, K::B32)?;
    let n = l.un(UnOp::Neg, a);
    let r = l.bin(BinOp::SMax, a, n);
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// D = |S0 - S1|; SCC = D != 0.
pub(super) fn absdiff(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let d1 = l.bin(BinOp::Sub, a, b);
    let d2 = l.bin(BinOp::Sub, b, a);
    let gt = l.cmp(CmpOp::SGt, a, b);
    let r = l.select(gt, d1, d2);
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}
