//! 32- and 64-bit integer and bit operations: add/sub with carries, multiplies (24-bit
//! forms), min/max/med3, shifts, three-operand forms, bitfields, bit counts.

use super::common::*;
use crate::ir::{BinOp, ConvOp, TernOp, UnOp};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `base` (the mnemonic without `v_`) when it is one of this module's instructions;
/// `Ok(false)` when it is not.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, base: &str) -> R<bool> {
    match base {
        "add_u32" | "add_co_u32" if inst.dst[1].is_some() => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let r = l.add(a, b);
            let c = l.bin(AddCarry, a, b);
            carry_result(l, inst, r, c, u32::MAX)
        }
        "sub_co_u32" | "subrev_co_u32" | "sub_u32" | "subrev_u32" if inst.dst[1].is_some() => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if base.starts_with("subrev") {
                (b, a)
            } else {
                (a, b)
            };
            let r = l.bin(Sub, a, b);
            let c = l.bin(SubBorrow, a, b);
            carry_result(l, inst, r, c, 0)
        }
        "addc_co_u32" | "addc_u32" => {
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
        "subb_co_u32" | "subbrev_co_u32" | "subb_u32" | "subbrev_u32" => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if base.starts_with("subbrev") {
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
        "add_u32" | "sub_u32" | "subrev_u32" if inst.mods.clamp => {
            // Unsigned saturation: overflow gives 0xffffffff, borrow gives 0.
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = if base == "subrev_u32" { (b, a) } else { (a, b) };
            let (r, c, sat) = if base == "add_u32" {
                (l.add(a, b), l.bin(AddCarry, a, b), u32::MAX as u64)
            } else {
                (l.bin(Sub, a, b), l.bin(SubBorrow, a, b), 0)
            };
            let m = l.lanes_to_mask(c);
            let sv = l.cst(r, sat);
            let r = l.select(m, sv, r);
            l.vdst32(r)
        }
        "add_u32" => ibin(l, inst, Add, K::B32, false),
        "sub_u32" => ibin(l, inst, Sub, K::B32, false),
        "subrev_u32" => ibin(l, inst, Sub, K::B32, true),
        "mul_lo_u32" | "mul_lo_i32" => ibin(l, inst, Mul, K::B32, false),
        "mul_hi_u32" => ibin(l, inst, MulHiU, K::B32, false),
        "mul_hi_i32" => ibin(l, inst, MulHiS, K::B32, false),
        "mul_u32_u24" | "mul_i32_i24" | "mad_u32_u24" | "mad_i32_i24" if inst.mods.clamp => {
            // Clamp saturates the exact result (a 48-bit product, plus S2) to the u32 / i32
            // range (CDNA ISA 6.5, RDNA4 ISA 7.2.3.1), formed in 64 bits.
            let signed = base.contains("i24");
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
            if base.starts_with("mad") {
                let c = l.src(2, K::B32)?;
                let c = l.conv(w, c);
                r = l.add(r, c);
            }
            let r = saturate(l, r, signed, 32);
            let r = l.conv(ConvOp::Lo, r);
            l.vdst32(r)
        }
        "mul_u32_u24" | "mul_hi_u32_u24" | "mul_i32_i24" | "mul_hi_i32_i24" => {
            // The high half of a 48-bit product is always in range: clamp has no effect.
            if !base.starts_with("mul_hi") {
                no_clamp(inst)?;
            }
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let signed = base.contains("i24");
            let (a, b) = if signed {
                (i24(l, a), i24(l, b))
            } else {
                (u24(l, a), u24(l, b))
            };
            let op = match (base.starts_with("mul_hi"), signed) {
                (false, _) => Mul,
                (true, false) => MulHiU,
                (true, true) => MulHiS,
            };
            let r = l.bin(op, a, b);
            l.vdst32(r)
        }
        "mad_u32_u24" | "mad_i32_i24" => i3(l, inst, K::B32, |l, a, b, c| {
            let (a, b) = if base == "mad_i32_i24" {
                (i24(l, a), i24(l, b))
            } else {
                (u24(l, a), u24(l, b))
            };
            let p = l.bin(Mul, a, b);
            l.add(p, c)
        }),
        "mad_u64_u32" | "mad_i64_i32" => {
            // D.u64 = S0 * S1 + S2.u64; the sdst carry-out is the 64-bit add's carry.
            no_clamp(inst)?;
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let c = l.src(2, K::B64)?;
            let ext = if base == "mad_i64_i32" {
                ConvOp::SExt
            } else {
                ConvOp::ZExt
            };
            let a = l.conv(ext, a);
            let b = l.conv(ext, b);
            let p = l.bin(Mul, a, b);
            let r = l.add(p, c);
            let carry = if base == "mad_i64_i32" {
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
        "min_i32" => ibin(l, inst, SMin, K::B32, false),
        "max_i32" => ibin(l, inst, SMax, K::B32, false),
        "min_u32" => ibin(l, inst, UMin, K::B32, false),
        "max_u32" => ibin(l, inst, UMax, K::B32, false),
        "min3_i32" | "min3_u32" | "max3_i32" | "max3_u32" => {
            let op = match base {
                "min3_i32" => SMin,
                "min3_u32" => UMin,
                "max3_i32" => SMax,
                _ => UMax,
            };
            i3_clamp_free(l, K::B32, |l, a, b, c| {
                let t = l.bin(op, a, b);
                l.bin(op, t, c)
            })
        }
        "med3_i32" | "med3_u32" => {
            let (mn, mx) = if base == "med3_i32" {
                (SMin, SMax)
            } else {
                (UMin, UMax)
            };
            i3_clamp_free(l, K::B32, |l, a, b, c| med3(l, a, b, c, mn, mx))
        }
        "add_i32" | "sub_i32" => {
            // D.i32 = S0.i32 ± S1.i32; clamp saturates to the i32 range (CDNA ISA 6.5).
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let (a, b) = (l.conv(ConvOp::SExt, a), l.conv(ConvOp::SExt, b));
            let r = if base == "add_i32" {
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
        "and_b32" => ibin(l, inst, And, K::B32, false),
        "or_b32" => ibin(l, inst, Or, K::B32, false),
        "xor_b32" => ibin(l, inst, Xor, K::B32, false),
        "xnor_b32" => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let t = l.xor(a, b);
            let r = l.not(t);
            l.vdst32(r)
        }
        "not_b32" => {
            let a = l.src(0, K::B32)?;
            let r = l.not(a);
            l.vdst32(r)
        }
        "lshlrev_b32" => ibin(l, inst, Shl, K::B32, true),
        "lshrrev_b32" => ibin(l, inst, LShr, K::B32, true),
        "ashrrev_i32" => ibin(l, inst, AShr, K::B32, true),
        "lshlrev_b64" | "lshrrev_b64" | "ashrrev_i64" => {
            // D.u64 = S1.u64 shifted by S0[5:0].
            let op = match base {
                "lshlrev_b64" => Shl,
                "lshrrev_b64" => LShr,
                _ => AShr,
            };
            let s = l.src(0, K::B32)?;
            let v = l.src(1, K::B64)?;
            let s = l.conv(ConvOp::ZExt, s);
            let r = l.bin(op, v, s);
            l.vdst64(r)
        }
        "lshl_add_u64" => {
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
        "lshl_add_u32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.bin(Shl, a, b);
            l.add(t, c)
        }),
        "add_lshl_u32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.add(a, b);
            l.bin(Shl, t, c)
        }),
        "lshl_or_b32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.bin(Shl, a, b);
            l.or(t, c)
        }),
        "and_or_b32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.and(a, b);
            l.or(t, c)
        }),
        "or3_b32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.or(a, b);
            l.or(t, c)
        }),
        "bitop3_b32" => {
            let table = inst.imm as u8;
            i3(l, inst, K::B32, move |l, a, b, c| bitop3(l, table, a, b, c))
        }
        "xor3_b32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.xor(a, b);
            l.xor(t, c)
        }),
        "add3_u32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.add(a, b);
            l.add(t, c)
        }),
        "xad_u32" => i3(l, inst, K::B32, |l, a, b, c| {
            let t = l.xor(a, b);
            l.add(t, c)
        }),
        "bfe_u32" => i3(l, inst, K::B32, |l, a, b, c| l.tern(TernOp::Bfe, a, b, c)),
        "bfe_i32" => i3(l, inst, K::B32, |l, a, b, c| l.tern(TernOp::SBfe, a, b, c)),
        "bfi_b32" => i3(l, inst, K::B32, |l, a, b, c| l.tern(TernOp::Bfi, a, b, c)),
        "bfm_b32" => {
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
        "alignbit_b32" | "alignbyte_b32"
            if inst.mods.clamp && l.gpu.family() == Some(crate::isa::Family::Gfx9) =>
        {
            no_clamp(inst)
        }
        "alignbit_b32" | "alignbyte_b32" => i3_clamp_free(l, K::B32, |l, a, b, c| {
            // ({S0, S1} >> shift)[31:0]; shift = S2[4:0] bits or S2[1:0] bytes.
            let v = l.pack(b, a);
            let s = if base == "alignbit_b32" {
                l.and_imm(c, 31)
            } else {
                let t = l.and_imm(c, 3);
                l.shl_imm(t, 3)
            };
            let s = l.conv(ConvOp::ZExt, s);
            let t = l.bin(LShr, v, s);
            l.lo(t)
        }),
        "perm_b32" => perm(l, inst),
        "bcnt_u32_b32" => {
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let c = l.un(UnOp::Popcnt, a);
            let r = l.add(c, b);
            l.vdst32(r)
        }
        "bfrev_b32" => {
            let a = l.src(0, K::B32)?;
            let r = l.un(UnOp::BitReverse, a);
            l.vdst32(r)
        }
        "ffbh_u32" | "ffbl_b32" | "ffbh_i32" => {
            // Leading zeros / trailing zeros / leading sign bits; -1 when no bit is found.
            let a = l.src(0, K::B32)?;
            let x = if base == "ffbh_i32" {
                let s = l.ashr_imm(a, 31);
                l.xor(a, s)
            } else {
                a
            };
            let c = if base == "ffbl_b32" {
                l.un(UnOp::Ctz, x)
            } else {
                l.un(UnOp::Clz, x)
            };
            let z = l.lanes_to_mask(x);
            let m1 = l.cst(c, 0xffff_ffff);
            let r = l.select(z, c, m1);
            l.vdst32(r)
        }
        "mbcnt_lo_u32_b32" | "mbcnt_hi_u32_b32" => {
            // Count of set bits of S0 that belong to lanes below this one (lo: lanes 0..31,
            // hi: lanes 32..63), plus S1.
            let mut masks = [0u32; 64];
            for (lane, m) in masks.iter_mut().enumerate() {
                *m = if base.starts_with("mbcnt_lo") {
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
        "sad_u32" => i3(l, inst, K::B32, |l, a, b, c| {
            // |S0 - S1| (unsigned) + S2.
            let mx = l.bin(UMax, a, b);
            let mn = l.bin(UMin, a, b);
            let d = l.bin(Sub, mx, mn);
            l.add(d, c)
        }),
        _ => return Ok(false),
    }?;
    Ok(true)
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
