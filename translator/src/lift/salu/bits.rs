//! SALU bit operations: NOT, bit compare/set, field extract/mask, counts, sign extension,
//! quad masks and bit replication.
use super::*;

/// `s_bitcmp{0,1}` (`zero` for 0): SCC = S0[S1] == {0,1}.
pub(super) fn bitcmp(l: &mut Lifter, inst: &Inst, k: K, zero: bool) -> R<Flow> {
    // s_bitcmp{0,1}_b{32,64}: SCC = S0[S1] == {0,1}.
    let a = src(l, inst, 0, k)?;
    let b = l.s32(inst.src[1], K::B32)?;
    let b = if k.is64() { l.conv(ConvOp::ZExt, b) } else { b };
    let sh = l.bin(BinOp::LShr, a, b);
    let bit = l.and_imm(sh, 1);
    let bit = if k.is64() { l.lo(bit) } else { bit };
    let r = if zero { l.eq0(bit) } else { bit };
    l.set_scc(r);
    Ok(Flow::Next)
}

/// D = ~S0; SCC = D != 0.
pub(super) fn not(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let r = l.not(a);
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_bfe_*`: bit field extract (`signed` for the `_i` forms).
pub(super) fn bit_extract(l: &mut Lifter, inst: &Inst, k: K, signed: bool) -> R<Flow> {
    // S1[5:0] = offset, S1[22:16] = width; SCC = result != 0.
    let a = src(l, inst, 0, k)?;
    let b = l.s32(inst.src[1], K::B32)?;
    let off = l.and_imm(b, 0x3f);
    let w = l.lshr_imm(b, 16);
    let w = l.and_imm(w, 0x7f);
    let r = bfe(l, a, off, w, signed)?;
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_bfm`: a bit field mask.
pub(super) fn bfm(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    // ((1 << S0[4:0]) - 1) << S1[4:0] (5:0 for 64 bits).
    let a = l.s32(inst.src[0], K::B32)?;
    let b = l.s32(inst.src[1], K::B32)?;
    let (a, b) = if k.is64() {
        (l.conv(ConvOp::ZExt, a), l.conv(ConvOp::ZExt, b))
    } else {
        (a, b)
    };
    let one = l.cst(a, 1);
    let m = l.bin(BinOp::Shl, one, a);
    let m = l.bin(BinOp::Sub, m, one);
    let r = l.bin(BinOp::Shl, m, b);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// D = S0 with its bits reversed.
pub(super) fn brev(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let r = l.un(UnOp::BitReverse, a);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_bcnt{0,1}` (`zeros` for 0): count of 0/1 bits; SCC = D != 0.
pub(super) fn bcnt(l: &mut Lifter, inst: &Inst, k: K, zeros: bool) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let a = if zeros { l.not(a) } else { a };
    let c = l.un(UnOp::Popcnt, a);
    let r = if k.is64() { l.lo(c) } else { c };
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_ff{0,1}` (`zeros` for 0).
pub(super) fn ff(l: &mut Lifter, inst: &Inst, k: K, zeros: bool) -> R<Flow> {
    // Index of the first 0/1 bit from the LSB; -1 if none.
    let a = src(l, inst, 0, k)?;
    let a = if zeros { l.not(a) } else { a };
    let z = l.eq0(a);
    let c = l.un(UnOp::Ctz, a);
    let c = if k.is64() { l.lo(c) } else { c };
    let m1 = l.c32(u32::MAX);
    let r = l.select(z, m1, c);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_flbit_i32_b32/b64`.
pub(super) fn flbit(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    // Leading zeros; -1 if zero.
    let a = src(l, inst, 0, k)?;
    let z = l.eq0(a);
    let c = l.un(UnOp::Clz, a);
    let c = if k.is64() { l.lo(c) } else { c };
    let m1 = l.c32(u32::MAX);
    let r = l.select(z, m1, c);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_flbit_i32` / `s_flbit_i32_i64`.
pub(super) fn flbit_signed(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    // Leading bits equal to the sign bit; -1 for 0 and -1.
    let a = src(l, inst, 0, k)?;
    let bits = l.ty(a).bits() as u64;
    let s = l.ashr_imm(a, bits - 1);
    let x = l.xor(a, s);
    let z = l.eq0(x);
    let c = l.un(UnOp::Clz, x);
    let c = if k.is64() { l.lo(c) } else { c };
    let m1 = l.c32(u32::MAX);
    let r = l.select(z, m1, c);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_sext_i32_i8` (`byte`) / `s_sext_i32_i16`.
pub(super) fn sext(l: &mut Lifter, inst: &Inst, byte: bool) -> R<Flow> {
    let a = src(l, inst, 0, K::B32)?;
    let c = if byte { ConvOp::SExt8 } else { ConvOp::SExt16 };
    let r = l.conv(c, a);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_bitset{0,1}` (`zero` for 0).
pub(super) fn bitset(l: &mut Lifter, inst: &Inst, k: K, zero: bool) -> R<Flow> {
    // D[S0[4:0]] = 0/1 (other bits of D kept).
    let old = src_of_dst(l, inst, k)?;
    let b = l.s32(inst.src[0], K::B32)?;
    let b = if k.is64() { l.conv(ConvOp::ZExt, b) } else { b };
    let one = l.cst(old, 1);
    let bit = l.bin(BinOp::Shl, one, b);
    let r = if zero {
        let n = l.not(bit);
        l.and(old, n)
    } else {
        l.or(old, bit)
    };
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// `s_quadmask`.
pub(super) fn quadmask(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    // D bit i = OR of S0 bits [4i+3:4i]; SCC = D != 0.
    let a = src(l, inst, 0, k)?;
    let q = quad_or(l, a);
    let n = if k.is64() { 16 } else { 8 };
    let mut r = l.cst(a, 0);
    for i in 0..n {
        let b = l.lshr_imm(q, 4 * i);
        let b = l.and_imm(b, 1);
        let b = l.shl_imm(b, i);
        r = l.or(r, b);
    }
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_wqm`.
pub(super) fn wqm(l: &mut Lifter, inst: &Inst, k: K) -> R<Flow> {
    // Whole quad mode: every quad with any bit set becomes all ones; SCC = D != 0.
    let a = src(l, inst, 0, k)?;
    let q = quad_or(l, a);
    let q = l.and_imm(q, 0x1111_1111_1111_1111 & mask_of(k));
    let mut r = q;
    for s in 1..4 {
        let t = l.shl_imm(q, s);
        r = l.or(r, t);
    }
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_bitreplicate_b64_b32`.
pub(super) fn bitreplicate(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    // D[2i+1:2i] = S0[i] twice (SCC unchanged): spread the bits, then double them.
    let a = src(l, inst, 0, K::B32)?;
    let mut x = l.conv(ConvOp::ZExt, a);
    for (sh, m) in [
        (16, 0x0000_ffff_0000_ffffu64),
        (8, 0x00ff_00ff_00ff_00ff),
        (4, 0x0f0f_0f0f_0f0f_0f0f),
        (2, 0x3333_3333_3333_3333),
        (1, 0x5555_5555_5555_5555),
    ] {
        let t = l.shl_imm(x, sh);
        let t = l.or(x, t);
        x = l.and_imm(t, m);
    }
    let t = l.shl_imm(x, 1);
    let r = l.or(x, t);
    l.set_s64(inst.dst[0], r)?;
    Ok(Flow::Next)
}
