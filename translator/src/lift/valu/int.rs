//! 32- and 64-bit integer and bit operations: add/sub with carries, multiplies (24-bit
//! forms), min/max/med3, shifts, three-operand forms, bitfields, bit counts.

use super::common::*;
use crate::ir::{BinOp, ConvOp, TernOp, UnOp};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_ADD_U32 | V_ADD_CO_U32 if inst.dst[1].is_some() => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let r = l.add(a, b);
            let c = l.bin(AddCarry, a, b);
            carry_result(l, inst, r, c, u32::MAX)
        }
        V_SUB_CO_U32 | V_SUBREV_CO_U32 | V_SUB_U32 | V_SUBREV_U32 if inst.dst[1].is_some() => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if matches!(op, V_SUBREV_CO_U32 | V_SUBREV_U32) {
                (b, a)
            } else {
                (a, b)
            };
            let r = l.bin(Sub, a, b);
            let c = l.bin(SubBorrow, a, b);
            carry_result(l, inst, r, c, 0)
        }
        V_ADDC_CO_U32 => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let cin = l.mask_opnd(inst.src[2])?;
            let cin = l.mask_to_lanes(cin);
            let t = l.add(a, b);
            let c1 = l.bin(AddCarry, a, b);
            let r = l.add(t, cin);
            let c2 = l.bin(AddCarry, t, cin);
            let c = l.or(c1, c2);
            carry_result(l, inst, r, c, u32::MAX)
        }
        V_SUBB_CO_U32 | V_SUBBREV_CO_U32 => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if op == V_SUBBREV_CO_U32 {
                (b, a)
            } else {
                (a, b)
            };
            let bin_ = l.mask_opnd(inst.src[2])?;
            let bin_ = l.mask_to_lanes(bin_);
            let t = l.bin(Sub, a, b);
            let c1 = l.bin(SubBorrow, a, b);
            let r = l.bin(Sub, t, bin_);
            let c2 = l.bin(SubBorrow, t, bin_);
            let c = l.or(c1, c2);
            carry_result(l, inst, r, c, 0)
        }
        V_ADD_U32 | V_SUB_U32 | V_SUBREV_U32 if inst.mods.clamp => {
            // Unsigned saturation: overflow gives 0xffffffff, borrow gives 0.
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if op == V_SUBREV_U32 { (b, a) } else { (a, b) };
            let (r, c, sat) = if op == V_ADD_U32 {
                (l.add(a, b), l.bin(AddCarry, a, b), u32::MAX as u64)
            } else {
                (l.bin(Sub, a, b), l.bin(SubBorrow, a, b), 0)
            };
            let m = l.lanes_to_mask(c);
            let sv = l.cst(r, sat);
            let r = l.select(m, sv, r);
            l.vdst32(r)
        }
        V_ADD_U32 => ibin(l, inst, Add, K::B32, false),
        V_SUB_U32 => ibin(l, inst, Sub, K::B32, false),
        V_SUBREV_U32 => ibin(l, inst, Sub, K::B32, true),
        V_MUL_LO_U32 => ibin(l, inst, Mul, K::B32, false),
        V_MUL_HI_U32 => ibin(l, inst, MulHiU, K::B32, false),
        V_MUL_HI_I32 => ibin(l, inst, MulHiS, K::B32, false),
        V_MUL_U32_U24 | V_MUL_I32_I24 | V_MAD_U32_U24 | V_MAD_I32_I24 if inst.mods.clamp => {
            // Clamp saturates the exact result (a 48-bit product, plus S2) to the u32 / i32
            // range (CDNA ISA 6.5, RDNA4 ISA 7.2.3.1), formed in 64 bits.
            let signed = matches!(op, V_MUL_I32_I24 | V_MAD_I32_I24);
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if signed {
                (i24(l, a), i24(l, b))
            } else {
                (u24(l, a), u24(l, b))
            };
            let w = if signed { ConvOp::SExt } else { ConvOp::ZExt };
            let (a, b) = (l.conv(w, a), l.conv(w, b));
            let mut r = l.bin(Mul, a, b);
            if matches!(op, V_MAD_U32_U24 | V_MAD_I32_I24) {
                let c = l.src(2, K::B32)?;
                let c = l.conv(w, c);
                r = l.add(r, c);
            }
            let r = saturate(l, r, signed, 32);
            let r = l.conv(ConvOp::Lo, r);
            l.vdst32(r)
        }
        V_MUL_U32_U24 | V_MUL_HI_U32_U24 | V_MUL_I32_I24 | V_MUL_HI_I32_I24 => {
            // The high half of a 48-bit product is always in range: clamp has no effect.
            let hi = matches!(op, V_MUL_HI_U32_U24 | V_MUL_HI_I32_I24);
            if !hi {
                no_clamp(inst)?;
            }
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let signed = matches!(op, V_MUL_I32_I24 | V_MUL_HI_I32_I24);
            let (a, b) = if signed {
                (i24(l, a), i24(l, b))
            } else {
                (u24(l, a), u24(l, b))
            };
            let op = match (hi, signed) {
                (false, _) => Mul,
                (true, false) => MulHiU,
                (true, true) => MulHiS,
            };
            let r = l.bin(op, a, b);
            l.vdst32(r)
        }
        V_MAD_U32_U24 | V_MAD_I32_I24 => i3(l, inst, K::B32, |l, a, b, c| {
            let (a, b) = if op == V_MAD_I32_I24 {
                (i24(l, a), i24(l, b))
            } else {
                (u24(l, a), u24(l, b))
            };
            let p = l.bin(Mul, a, b);
            l.add(p, c)
        }),
        V_MAD_U64_U32 | V_MAD_I64_I32 => {
            // D.u64 = S0 * S1 + S2.u64; the sdst carry-out is the 64-bit add's carry.
            no_clamp(inst)?;
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let c = l.src(2, K::B64)?;
            let ext = if op == V_MAD_I64_I32 {
                ConvOp::SExt
            } else {
                ConvOp::ZExt
            };
            let a = l.conv(ext, a);
            let b = l.conv(ext, b);
            let p = l.bin(Mul, a, b);
            let r = l.add(p, c);
            let carry = if op == V_MAD_I64_I32 {
                // Signed: overflow of the signed 64-bit add.
                let x1 = l.xor(p, r);
                let x2 = l.xor(c, r);
                let t = l.and(x1, x2);
                let t = l.lshr_imm(t, 63);
                l.lo(t)
            } else {
                let t = l.bin(AddCarry, p, c);
                l.lo(t)
            };
            l.vdst64(r)?;
            if inst.dst[1].is_some() {
                write_carry(l, inst, carry)?;
            }
            Ok(())
        }
        V_MIN_I32 => ibin(l, inst, SMin, K::B32, false),
        V_MAX_I32 => ibin(l, inst, SMax, K::B32, false),
        V_MIN_U32 => ibin(l, inst, UMin, K::B32, false),
        V_MAX_U32 => ibin(l, inst, UMax, K::B32, false),
        V_MIN3_I32 | V_MIN3_U32 | V_MAX3_I32 | V_MAX3_U32 => {
            let op = match op {
                V_MIN3_I32 => SMin,
                V_MIN3_U32 => UMin,
                V_MAX3_I32 => SMax,
                _ => UMax,
            };
            i3_clamp_free(l, K::B32, |l, a, b, c| {
                let t = l.bin(op, a, b);
                l.bin(op, t, c)
            })
        }
        V_MED3_I32 | V_MED3_U32 => {
            let (mn, mx) = if op == V_MED3_I32 {
                (SMin, SMax)
            } else {
                (UMin, UMax)
            };
            i3_clamp_free(l, K::B32, |l, a, b, c| med3(l, a, b, c, mn, mx))
        }
        V_ADD_I32 | V_SUB_I32 => {
            // D.i32 = S0.i32 ± S1.i32; clamp saturates to the i32 range (CDNA ISA 6.5).
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = (l.conv(ConvOp::SExt, a), l.conv(ConvOp::SExt, b));
            let r = if op == V_ADD_I32 {
                l.add(a, b)
            } else {
                l.bin(Sub, a, b)
            };
            let r = if inst.mods.clamp {
                saturate(l, r, true, 32)
            } else {
                r
            };
            let r = l.conv(ConvOp::Lo, r);
            l.vdst32(r)
        }
        _ => bits(l, inst, op),
    }
}

/// Bitwise, shift, bitfield and bit-count operations and the fused three-operand forms.
fn bits(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_AND_B32 => ibin(l, inst, And, K::B32, false),
        V_OR_B32 => ibin(l, inst, Or, K::B32, false),
        V_XOR_B32 => ibin(l, inst, Xor, K::B32, false),
        V_XNOR_B32 => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let t = l.xor(a, b);
            let r = l.not(t);
            l.vdst32(r)
        }
        V_NOT_B32 => {
            let a = l.src(0, K::B32)?;
            let r = l.not(a);
            l.vdst32(r)
        }
        V_LSHLREV_B32 => ibin(l, inst, Shl, K::B32, true),
        V_LSHRREV_B32 => ibin(l, inst, LShr, K::B32, true),
        V_ASHRREV_I32 => ibin(l, inst, AShr, K::B32, true),
        V_LSHLREV_B64 | V_LSHRREV_B64 | V_ASHRREV_I64 => {
            // D.u64 = S1.u64 shifted by S0[5:0].
            let op = match op {
                V_LSHLREV_B64 => Shl,
                V_LSHRREV_B64 => LShr,
                _ => AShr,
            };
            let s = l.src(0, K::B32)?;
            let v = l.src(1, K::B64)?;
            let s = l.conv(ConvOp::ZExt, s);
            let r = l.bin(op, v, s);
            l.vdst64(r)
        }
        V_LSHL_ADD_U64 => {
            // D.u64 = (S0.u64 << S1[2:0]) + S2.u64.
            let a = l.src(0, K::B64)?;
            let s = l.src(1, K::B32)?;
            let c = l.src(2, K::B64)?;
            let s = l.and_imm(s, 7);
            let s = l.conv(ConvOp::ZExt, s);
            let t = l.bin(Shl, a, s);
            let r = l.add(t, c);
            l.vdst64(r)
        }
        V_LSHL_ADD_U32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.bin(Shl, a, b);
            l.add(t, c)
        }),
        V_ADD_LSHL_U32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.add(a, b);
            l.bin(Shl, t, c)
        }),
        V_LSHL_OR_B32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.bin(Shl, a, b);
            l.or(t, c)
        }),
        V_AND_OR_B32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.and(a, b);
            l.or(t, c)
        }),
        V_OR3_B32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.or(a, b);
            l.or(t, c)
        }),
        V_BITOP3_B32 => {
            let table = inst.imm as u8;
            i3(l, inst, K::B32, move |l, a, b, c| bitop3(l, table, a, b, c))
        }
        V_XOR3_B32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.xor(a, b);
            l.xor(t, c)
        }),
        V_ADD3_U32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.add(a, b);
            l.add(t, c)
        }),
        V_XAD_U32 => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.xor(a, b);
            l.add(t, c)
        }),
        V_BFE_U32 => i3(l, inst, K::B32, |l, a, b, c| l.tern(TernOp::Bfe, a, b, c)),
        V_BFE_I32 => i3(l, inst, K::B32, |l, a, b, c| l.tern(TernOp::SBfe, a, b, c)),
        V_BFI_B32 => i3(l, inst, K::B32, |l, a, b, c| l.tern(TernOp::Bfi, a, b, c)),
        V_BFM_B32 => {
            // ((1 << S0[4:0]) - 1) << S1[4:0].
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let one = l.cst(a, 1);
            let m = l.bin(Shl, one, a);
            let m = l.bin(Sub, m, one);
            let r = l.bin(Shl, m, b);
            l.vdst32(r)
        }
        // RDNA ignores clamp on V_ALIGN* (RDNA4 ISA 7.2.3.1); GFX9 keeps rejecting it.
        V_ALIGNBIT_B32 | V_ALIGNBYTE_B32
            if inst.mods.clamp && l.gpu.family() == Some(crate::isa::Family::Gfx9) =>
        {
            no_clamp(inst)
        }
        V_ALIGNBIT_B32 | V_ALIGNBYTE_B32 => i3_clamp_free(l, K::B32, |l, a, b, c| {
            // ({S0, S1} >> shift)[31:0]; shift = S2[4:0] bits or S2[1:0] bytes.
            let v = l.pack(b, a);
            let s = if op == V_ALIGNBIT_B32 {
                l.and_imm(c, 31)
            } else {
                let t = l.and_imm(c, 3);
                l.shl_imm(t, 3)
            };
            let s = l.conv(ConvOp::ZExt, s);
            let t = l.bin(LShr, v, s);
            l.lo(t)
        }),
        V_PERM_B32 => perm(l, inst),
        V_BCNT_U32_B32 => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let c = l.un(UnOp::Popcnt, a);
            let r = l.add(c, b);
            l.vdst32(r)
        }
        V_BFREV_B32 => {
            let a = l.src(0, K::B32)?;
            let r = l.un(UnOp::BitReverse, a);
            l.vdst32(r)
        }
        V_FFBH_U32 | V_FFBL_B32 | V_FFBH_I32 => {
            // Leading zeros / trailing zeros / leading sign bits; -1 when no bit is found.
            let a = l.src(0, K::B32)?;
            let x = if op == V_FFBH_I32 {
                let s = l.ashr_imm(a, 31);
                l.xor(a, s)
            } else {
                a
            };
            let c = if op == V_FFBL_B32 {
                l.un(UnOp::Ctz, x)
            } else {
                l.un(UnOp::Clz, x)
            };
            let z = l.lanes_to_mask(x);
            let m1 = l.cst(c, 0xffff_ffff);
            let r = l.select(z, c, m1);
            l.vdst32(r)
        }
        V_MBCNT_LO_U32_B32 | V_MBCNT_HI_U32_B32 => {
            // Count of set bits of S0 that belong to lanes below this one (lo: lanes 0..31,
            // hi: lanes 32..63), plus S1.
            let mut masks = [0u32; 64];
            for (lane, m) in masks.iter_mut().enumerate() {
                *m = if op == V_MBCNT_LO_U32_B32 {
                    if lane >= 32 {
                        u32::MAX
                    } else {
                        (1u32 << lane) - 1
                    }
                } else if lane <= 32 {
                    0
                } else {
                    (1u32 << (lane - 32)) - 1
                };
            }
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let mv = l.lane_const(masks);
            let t = l.and(a, mv);
            let c = l.un(UnOp::Popcnt, t);
            let r = l.add(c, b);
            l.vdst32(r)
        }
        V_SAD_U32 => i3(l, inst, K::B32, |l, a, b, c| {
            // |S0 - S1| (unsigned) + S2.
            let mx = l.bin(UMax, a, b);
            let mn = l.bin(UMin, a, b);
            let d = l.bin(Sub, mx, mn);
            l.add(d, c)
        }),
        _ => Err("not supported".into()),
    }
}

/// `v_perm_b32 D, S0, S1, S2`: byte `i` of D is chosen by byte `i` of S2 from the 8 bytes
/// `{S0, S1}` (S1 = bytes 0..3): 0..=7 that byte, 8..=11 the sign bit of byte 1/3/5/7
/// replicated, 12 zero, 13..=255 0xff.
pub(in crate::lift) fn perm(l: &mut Lifter, _inst: &Inst) -> R<()> {
    let a = l.src(0, K::B32)?;
    let b = l.src(1, K::B32)?;
    let sel = l.src(2, K::B32)?;
    let r = l.tern(TernOp::Perm, a, b, sel);
    l.vdst32(r)
}

/// Three-source integer min/max: `v_minmax/v_maxmin_{i32,u32}` (`min(max(a, b), c)` and
/// mirror) and the 16-bit `v_min3/v_max3/v_med3_{i16,u16}`.
pub(in crate::lift) fn int_minmax(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    // Clamp has no effect: the result is one of the sources, already in the representable
    // range integer clamp saturates to (RDNA4 ISA 7.2.3.1).
    l.count_vector();
    let signed = matches!(
        op,
        V_MINMAX_I32 | V_MAXMIN_I32 | V_MIN3_I16 | V_MAX3_I16 | V_MED3_I16
    );
    let b16 = matches!(
        op,
        V_MIN3_I16 | V_MIN3_U16 | V_MAX3_I16 | V_MAX3_U16 | V_MED3_I16 | V_MED3_U16
    );
    let k = if b16 { K::B16 } else { K::B32 };
    let mut v = [l.src(0, k)?, l.src(1, k)?, l.src(2, k)?];
    if b16 {
        let e = if signed {
            ConvOp::SExt16
        } else {
            ConvOp::ZExt16
        };
        for x in v.iter_mut() {
            *x = l.conv(e, *x);
        }
    }
    let (min, max) = if signed {
        (BinOp::SMin, BinOp::SMax)
    } else {
        (BinOp::UMin, BinOp::UMax)
    };
    let [a, b, c] = v;
    let r = if matches!(op, V_MINMAX_I32 | V_MINMAX_U32) {
        let t = l.bin(min, a, b);
        l.bin(max, t, c)
    } else if matches!(op, V_MAXMIN_I32 | V_MAXMIN_U32) {
        let t = l.bin(max, a, b);
        l.bin(min, t, c)
    } else if matches!(op, V_MIN3_I16 | V_MIN3_U16) {
        let t = l.bin(min, a, b);
        l.bin(min, t, c)
    } else if matches!(op, V_MAX3_I16 | V_MAX3_U16) {
        let t = l.bin(max, a, b);
        l.bin(max, t, c)
    } else {
        // med3 = max(min(a, b), min(max(a, b), c))
        let lo = l.bin(min, a, b);
        let hi = l.bin(max, a, b);
        let t = l.bin(min, hi, c);
        l.bin(max, lo, t)
    };
    if b16 {
        write16(l, inst, r)
    } else {
        l.vdst32(r)
    }
}
