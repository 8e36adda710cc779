//! Media ops shared by GFX9 and RDNA (one definition, the ISA pseudocode agrees): SAD/
//! MSAD/LERP, QSAD/MQSAD.

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;

/// The media ops `v_sad_u8`, `v_sad_hi_u8` (the sum shifted left by 16), `v_sad_u16`,
/// `v_msad_u8` (bytes whose reference S1 byte is 0 skipped), all `S2 + sum |S0.e - S1.e|`
/// wrapping, and `v_lerp_u8` (per byte `(S0.b + S1.b + S2.b[0]) >> 1`) (RDNA4 ISA, V_SAD_U8).
pub(in crate::lift) fn sad(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    no_clamp(inst)?;
    l.count_vector();
    let a = l.src(0, K::B32)?;
    let b = l.src(1, K::B32)?;
    let c = l.src(2, K::B32)?;
    let (bits, n) = if op == V_SAD_U16 {
        (16u64, 2u64)
    } else {
        (8, 4)
    };
    let field = |l: &mut Lifter, v: Val, i: u64| {
        let t = l.lshr_imm(v, bits * i);
        l.and_imm(t, (1 << bits) - 1)
    };
    if op == V_LERP_U8 {
        let mut acc: Option<Val> = None;
        for i in 0..4 {
            let x = field(l, a, i);
            let y = field(l, b, i);
            let r = l.lshr_imm(c, 8 * i);
            let r = l.and_imm(r, 1);
            let s = l.add(x, y);
            let s = l.add(s, r);
            let s = l.lshr_imm(s, 1);
            let s = l.shl_imm(s, 8 * i);
            acc = Some(match acc {
                None => s,
                Some(p) => l.or(p, s),
            });
        }
        let r = acc.ok_or("no bytes")?;
        return l.vdst32(r);
    }
    let mut sum: Option<Val> = None;
    for i in 0..n {
        let x = field(l, a, i);
        let y = field(l, b, i);
        let d = absdiff(l, x, y, op == V_MSAD_U8);
        sum = Some(add_to(l, sum, d));
    }
    let sum = sum.ok_or("no elements")?;
    let sum = if op == V_SAD_HI_U8 {
        l.shl_imm(sum, 16)
    } else {
        sum
    };
    let r = l.add(sum, c);
    l.vdst32(r)
}

/// `|x - y|` of unsigned fields; with `masked` (the MSAD/MQSAD rule) 0 where the reference
/// `y` is 0.
pub(in crate::lift) fn absdiff(l: &mut Lifter, x: Val, y: Val, masked: bool) -> Val {
    let hi = l.bin(BinOp::UMax, x, y);
    let lo = l.bin(BinOp::UMin, x, y);
    let d = l.bin(BinOp::Sub, hi, lo);
    if !masked {
        return d;
    }
    let zero = l.cst(y, 0);
    let ref0 = l.cmp(CmpOp::Eq, y, zero);
    l.select(ref0, zero, d)
}

/// `acc + v`, or `v` when there is no sum yet.
pub(in crate::lift) fn add_to(l: &mut Lifter, acc: Option<Val>, v: Val) -> Val {
    match acc {
        None => v,
        Some(a) => l.add(a, v),
    }
}

/// `v_qsad_pk_u16_u8`, `v_mqsad_pk_u16_u8` and `v_mqsad_u32_u8`: four (masked) SADs of the
/// 32-bit windows `S0[8i+31:8i]` (S0 is 64-bit) against S1, each added to field `i` of S2
/// (16-bit fields of a 64-bit S2, truncated to 16 bits; or 32-bit fields of a 128-bit S2)
/// (RDNA4 ISA, V_QSAD_PK_U16_U8).
pub(in crate::lift) fn qsad(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    no_clamp(inst)?;
    l.count_vector();
    let masked = matches!(op, V_MQSAD_PK_U16_U8 | V_MQSAD_U32_U8);
    let wide = op == V_MQSAD_U32_U8;
    let a = l.src(0, K::B64)?;
    let b = l.src(1, K::B32)?;
    let c: Vec<Val> = if wide {
        l.get_vregs(inst.src[2], 4)?
    } else {
        let c = l.src(2, K::B64)?;
        vec![l.lo(c), l.hi(c)]
    };
    let mut out = Vec::new();
    for i in 0..4u64 {
        let w = l.lshr_imm(a, 8 * i);
        let w = l.conv(ConvOp::Lo, w);
        let mut sum: Option<Val> = None;
        for j in 0..4u64 {
            let x = l.lshr_imm(w, 8 * j);
            let x = l.and_imm(x, 0xff);
            let y = l.lshr_imm(b, 8 * j);
            let y = l.and_imm(y, 0xff);
            let d = absdiff(l, x, y, masked);
            sum = Some(add_to(l, sum, d));
        }
        let sum = sum.ok_or("no bytes")?;
        let acc = if wide {
            c[i as usize]
        } else {
            let f = l.lshr_imm(c[(i / 2) as usize], 16 * (i % 2));
            l.and_imm(f, 0xffff)
        };
        let r = l.add(sum, acc);
        out.push(if wide { r } else { l.and_imm(r, 0xffff) });
    }
    let vals = if wide {
        out
    } else {
        let h0 = l.shl_imm(out[1], 16);
        let d0 = l.or(out[0], h0);
        let h1 = l.shl_imm(out[3], 16);
        let d1 = l.or(out[2], h1);
        vec![d0, d1]
    };
    let exec = l.exec();
    l.set_vregs(inst.dst[0], &vals, exec)
}
