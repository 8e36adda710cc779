//! Conversions between integer and float types, FP8/BF8, bf16, 16-bit packing, SNORM/
//! UNORM and the gfx950 scaled conversions (`scale_cvt`).

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, Ty, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_CVT_F32_I32 | V_CVT_F32_U32 | V_CVT_F32_F64
            if round_of(l, K::F32) != Round::NearestEven =>
        {
            // Rounded in the f32 MODE direction (the destination's).
            let (op, from) = match op {
                V_CVT_F32_I32 => (RoundedOp::I32ToF32, K::B32),
                V_CVT_F32_U32 => (RoundedOp::U32ToF32, K::B32),
                _ => (RoundedOp::F64ToF32, K::F64),
            };
            let a = l.src(0, from)?;
            let r = rounded(l, op, K::F32, vec![a]);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        V_CVT_F32_I32 => conv(l, ConvOp::I32ToF32, K::B32, K::F32),
        V_CVT_F32_U32 => conv(l, ConvOp::U32ToF32, K::B32, K::F32),
        V_CVT_I32_F32 => conv(l, ConvOp::F32ToI32, K::F32, K::B32),
        V_CVT_U32_F32 => conv(l, ConvOp::F32ToU32, K::F32, K::B32),
        V_CVT_F64_I32 => conv(l, ConvOp::I32ToF64, K::B32, K::F64),
        V_CVT_F64_U32 => conv(l, ConvOp::U32ToF64, K::B32, K::F64),
        V_CVT_I32_F64 => conv(l, ConvOp::F64ToI32, K::F64, K::B32),
        V_CVT_U32_F64 => conv(l, ConvOp::F64ToU32, K::F64, K::B32),
        V_CVT_F64_F32 => conv(l, ConvOp::F32ToF64, K::F32, K::F64),
        V_CVT_F32_F64 => conv(l, ConvOp::F64ToF32, K::F64, K::F32),
        V_CVT_F32_F16 => conv(l, ConvOp::F16ToF32, K::F16, K::F32),
        V_CVT_F16_F32 => {
            // OMOD and clamp apply to the f16 result (`out16`).
            let a = l.src(0, K::F32)?;
            let r = to_f16(l, a);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_CVT_FLR_I32_F32 | V_CVT_RPI_I32_F32 => {
            // flr: floor(x); rpi: floor(x + 0.5).
            let a = l.src(0, K::F32)?;
            let a = if op == V_CVT_RPI_I32_F32 {
                let h = l.cst(a, 0x3f00_0000);
                l.bin(FAdd, a, h)
            } else {
                a
            };
            let f = l.un(UnOp::FFloor, a);
            let r = l.conv(ConvOp::F32ToI32, f);
            l.vdst32(r)
        }
        V_CVT_F32_UBYTE0 | V_CVT_F32_UBYTE1 | V_CVT_F32_UBYTE2 | V_CVT_F32_UBYTE3 => {
            let n = match op {
                V_CVT_F32_UBYTE0 => 0,
                V_CVT_F32_UBYTE1 => 1,
                V_CVT_F32_UBYTE2 => 2,
                _ => 3,
            };
            let a = l.src(0, K::B32)?;
            let s = l.lshr_imm(a, 8 * n as u64);
            let b = l.and_imm(s, 0xff);
            let r = l.conv(ConvOp::U32ToF32, b);
            // A float result: OMOD and clamp apply.
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        V_CVT_PKRTZ_F16_F32 => {
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let r = l.lane_fn(LaneFn::PkRtzF16F32, vec![a, b], Ty::V32);
            l.vdst32(r)
        }

        V_CVT_PK_FP8_F32 | V_CVT_PK_BF8_F32 => {
            // D.word[op_sel[3]] = {cvt(S1), cvt(S0)}, the other word kept; nearest even
            // (CDNA4 ISA table 31); FP16_OVFL saturates (the encoding has no clamp bit).
            let bf8 = op == V_CVT_PK_BF8_F32;
            let op = f8_op(l, bf8, false);
            let sat = fp16_ovfl(l);
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let lo = l.lane_fn(
                LaneFn::Rounded(op, Round::NearestEven, sat),
                vec![a],
                Ty::V32,
            );
            let hi = l.lane_fn(
                LaneFn::Rounded(op, Round::NearestEven, sat),
                vec![b],
                Ty::V32,
            );
            let hi = l.shl_imm(hi, 8);
            let w = l.or(lo, hi);
            // The word selected by op_sel[3], the other kept: the same write as true16's.
            write16(l, inst, w)
        }
        V_CVT_PK_F16_F32 | V_CVT_PK_BF16_F32 => {
            // gfx950: D = {cvt(S1), cvt(S0)}; f16 in the f16 MODE direction with FP16_OVFL
            // and output flushing, bf16 in the f32 direction.
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let (lo, hi) = if op == V_CVT_PK_F16_F32 {
                (to_f16(l, a), to_f16(l, b))
            } else {
                let rm = round_of(l, K::F32);
                let f = LaneFn::Rounded(RoundedOp::F32ToBf16, rm, false);
                (
                    l.lane_fn(f, vec![a], Ty::V32),
                    l.lane_fn(f, vec![b], Ty::V32),
                )
            };
            let hi = l.shl_imm(hi, 16);
            let r = l.or(lo, hi);
            l.vdst32(r)
        }
        V_CVT_F32_BF16 => {
            // The bf16 in the low half (or the SDWA-selected word) is the top of an f32.
            let a = l.src(0, K::B32)?;
            let a = l.and_imm(a, 0xffff);
            let r = l.shl_imm(a, 16);
            l.vdst32(r)
        }
        V_CVT_SR_F16_F32 | V_CVT_SR_BF16_F32 => {
            // Stochastic rounding with the random S1 into the half op_sel[3] of D, the other
            // half kept (CDNA4 ISA 7.3).
            let (op, k) = if op == V_CVT_SR_F16_F32 {
                (RoundedOp::SrF32ToF16, K::F16)
            } else {
                (RoundedOp::SrF32ToBf16, K::F32)
            };
            let a = l.src(0, K::F32)?;
            let rng = l.src(1, K::B32)?;
            let h = rounded(l, op, k, vec![a, rng]);
            let h = if k == K::F16 { f16out(l, h) } else { h };
            let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
            let old = l.get_vreg(reg)?;
            let r = if inst.mods.op_sel & 8 != 0 {
                let keep = l.and_imm(old, 0xffff);
                let h = l.shl_imm(h, 16);
                l.or(keep, h)
            } else {
                let keep = l.and_imm(old, 0xffff_0000);
                l.or(keep, h)
            };
            l.vdst32(r)
        }
        V_CVT_SR_FP8_F32 | V_CVT_SR_BF8_F32 => {
            // Stochastic rounding with the random S1; the byte op_sel[3:2] of D is written,
            // the others kept (CDNA4 ISA 7.3).
            let bf8 = op == V_CVT_SR_BF8_F32;
            let op = f8_op(l, bf8, true);
            let sat = fp16_ovfl(l);
            let a = l.src(0, K::F32)?;
            let rng = l.src(1, K::B32)?;
            let byte = l.lane_fn(
                LaneFn::Rounded(op, Round::NearestEven, sat),
                vec![a, rng],
                Ty::V32,
            );
            write_dst_byte(l, inst, byte)
        }
        V_CVT_F32_FP8 | V_CVT_F32_BF8 => {
            // FNUZ formats on gfx942, OCP on gfx950; the byte comes from the SDWA select (byte 0
            // otherwise).
            if inst.mods.op_sel != 0 {
                return Err("op_sel byte selection is not supported".into());
            }
            let a = l.src(0, K::B32)?;
            let ocp = is_ocp(l);
            let r = f8_to_f32(l, a, op == V_CVT_F32_BF8, ocp);
            l.vdst32(r)
        }
        V_CVT_PK_F32_FP8 | V_CVT_PK_F32_BF8 => {
            // Bytes 0 and 1 (the word chosen by SDWA) to a register pair.
            if inst.mods.op_sel != 0 {
                return Err("op_sel word selection is not supported".into());
            }
            let a = l.src(0, K::B32)?;
            let bf8 = op == V_CVT_PK_F32_BF8;
            let ocp = is_ocp(l);
            let lo = f8_to_f32(l, a, bf8, ocp);
            let b1 = l.lshr_imm(a, 8);
            let hi = f8_to_f32(l, b1, bf8, ocp);
            let v = l.pack(lo, hi);
            l.vdst64(v)
        }
        V_CVT_F16_U16 | V_CVT_F16_I16 => {
            // 16-bit integers are exact in f32, so one rounding to f16.
            let a = l.src(0, K::B16)?;
            let (e, c) = if op == V_CVT_F16_I16 {
                (ConvOp::SExt16, ConvOp::I32ToF32)
            } else {
                (ConvOp::ZExt16, ConvOp::U32ToF32)
            };
            let a = l.conv(e, a);
            let r = if round_of(l, K::F16) == Round::NearestEven && !fp16_ovfl(l) {
                let f = l.conv(c, a);
                l.conv(ConvOp::F32ToF16, f)
            } else {
                let op = if op == V_CVT_F16_I16 {
                    RoundedOp::I32ToF16
                } else {
                    RoundedOp::U32ToF16
                };
                rounded(l, op, K::F16, vec![a])
            };
            // A float result: OMOD and clamp apply.
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        V_CVT_U16_F16 | V_CVT_I16_F16 => {
            // Toward zero, saturating to the 16-bit range; NaN gives 0.
            let a = l.src(0, K::F16)?;
            let f = l.conv(ConvOp::F16ToF32, a);
            let r = if op == V_CVT_U16_F16 {
                let i = l.conv(ConvOp::F32ToU32, f);
                let m = l.cst(i, 0xffff);
                l.bin(UMin, i, m)
            } else {
                let i = l.conv(ConvOp::F32ToI32, f);
                let lo = l.cst(i, (-32768i32) as u32 as u64);
                let hi = l.cst(i, 32767);
                let t = l.bin(SMax, i, lo);
                l.bin(SMin, t, hi)
            };
            wr16(l, inst, r)
        }
        V_CVT_PK_U16_U32 | V_CVT_PK_I16_I32 => {
            // D = {sat16(S1), sat16(S0)}.
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let sat = |l: &mut Lifter, x: Val| -> Val {
                if op == V_CVT_PK_U16_U32 {
                    let m = l.cst(x, 0xffff);
                    l.bin(UMin, x, m)
                } else {
                    let lo = l.cst(x, (-32768i32) as u32 as u64);
                    let hi = l.cst(x, 32767);
                    let t = l.bin(SMax, x, lo);
                    let t = l.bin(SMin, t, hi);
                    l.and_imm(t, 0xffff)
                }
            };
            let lo = sat(l, a);
            let hi = sat(l, b);
            let hi = l.shl_imm(hi, 16);
            let r = l.or(lo, hi);
            l.vdst32(r)
        }
        _ => Err("not supported".into()),
    }
}

/// `conv` from a source of kind `from` to a result of kind `to`.
pub(in crate::lift) fn conv(l: &mut Lifter, op: ConvOp, from: K, to: K) -> R<()> {
    let a = l.src(0, from)?;
    let r = l.conv(op, a);
    let r = if to.is_float() { l.fout(r, to)? } else { r };
    wr(l, r, to)
}

/// `v_cvt_off_f32_i4`: the signed 4-bit S0[3:0] divided by 16 (the ISA's offset table:
/// 0b1000 → -0.5, 0b0111 → 0.4375), exact in f32.
pub(in crate::lift) fn cvt_off_i4(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let _ = inst;
    let v = l.src(0, K::B32)?;
    let t = l.shl_imm(v, 28);
    let i = l.ashr_imm(t, 28);
    let f = l.conv(ConvOp::I32ToF32, i);
    let sixteenth = l.cst(f, 0x3d80_0000);
    let r = l.bin(BinOp::FMul, f, sixteenth);
    let r = l.fout(r, K::F32)?;
    l.vdst32(r)
}

/// The normalizing conversions `v_cvt_norm_{i16,u16}_f16`, `v_cvt_pk_norm_{i16,u16}_{f16,f32}`
/// (GFX9: `v_cvt_pknorm_*`, CDNA4 ISA 12.11, the same `f16_to_snorm`/`f32_to_unorm` pseudocode)
/// (RDNA4 ISA: `f16_to_snorm`, `f32_to_unorm`, ...; the packed forms put S0's result in
/// bits [15:0] and S1's in [31:16]). The ISA does not define the helpers; its notes say
/// "0.5ULP accuracy, supports rounding ... and saturation": here SNORM is `x` clamped to
/// [-1, 1] times 32767 and UNORM `x` clamped to [0, 1] times 65535 (the D3D/Vulkan
/// conversion rules), the product (exact in f64) rounded to an integer once in the source
/// type's MODE.FP_ROUND direction; NaN gives 0.
pub(in crate::lift) fn cvt_norm(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on a normalizing conversion".into());
    }
    l.count_vector();
    let signed = matches!(
        op,
        V_CVT_NORM_I16_F16
            | V_CVT_PKNORM_I16_F16
            | V_CVT_PKNORM_I16_F32
            | V_CVT_PK_NORM_I16_F16
            | V_CVT_PK_NORM_I16_F32
    );
    let f16 = matches!(
        op,
        V_CVT_NORM_I16_F16
            | V_CVT_NORM_U16_F16
            | V_CVT_PKNORM_I16_F16
            | V_CVT_PKNORM_U16_F16
            | V_CVT_PK_NORM_I16_F16
            | V_CVT_PK_NORM_U16_F16
    );
    let k = if f16 { K::F16 } else { K::F32 };
    let round = Round::from_field(if f16 { l.mode >> 2 } else { l.mode });
    let mut out = Vec::new();
    let n = if matches!(op, V_CVT_NORM_I16_F16 | V_CVT_NORM_U16_F16) {
        1
    } else {
        2
    };
    for i in 0..n {
        let x = l.src(i, k)?;
        let x = if f16 { l.conv(ConvOp::F16ToF32, x) } else { x };
        out.push(norm16(l, x, signed, round));
    }
    if n == 1 {
        // GFX9 zeroes the high half (or writes it with op_sel[3]); RDNA keeps the other half.
        return wr16(l, inst, out[0]);
    }
    let hi = l.shl_imm(out[1], 16);
    let r = l.or(out[0], hi);
    l.vdst32(r)
}

/// SNORM (`signed`) or UNORM 16-bit code of the f32 lanes `x` (see [`cvt_norm`]).
pub(in crate::lift) fn norm16(l: &mut Lifter, x: Val, signed: bool, round: Round) -> Val {
    let (low, scale) = if signed {
        ((-1.0f32).to_bits(), 32767.0f64)
    } else {
        (0, 65535.0)
    };
    let nan = l.cmp(CmpOp::FUno, x, x);
    let lo = l.cst(x, low as u64);
    let one = l.cst(x, 1.0f32.to_bits() as u64);
    let c = l.bin(BinOp::FMaxNum, x, lo);
    let c = l.bin(BinOp::FMinNum, c, one);
    let d = l.conv(ConvOp::F32ToF64, c);
    let s = l.cst(d, scale.to_bits());
    let p = l.bin(BinOp::FMul, d, s);
    let r = l.un(
        match round {
            Round::NearestEven => UnOp::FRoundEven,
            Round::Up => UnOp::FCeil,
            Round::Down => UnOp::FFloor,
            Round::Zero => UnOp::FTrunc,
        },
        p,
    );
    let i = l.conv(ConvOp::F64ToI32, r);
    let zero = l.cst(i, 0);
    let i = l.select(nan, zero, i);
    l.and_imm(i, 0xffff)
}

/// `v_cvt_pk_u8_f32` (RDNA4 ISA): `f32_to_u8(S0)` into byte `S1[1:0]` of S2, the other bytes
/// of S2 kept. `f32_to_u8` is taken as the 8-bit form of `f32_to_u32` (`v_cvt_u32_f32`):
/// toward zero, saturating to [0, 255], NaN giving 0; the ISA does not define it.
pub(in crate::lift) fn cvt_pk_u8(l: &mut Lifter, inst: &Inst) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on an integer conversion".into());
    }
    l.count_vector();
    let x = l.src(0, K::F32)?;
    let sel = l.src(1, K::B32)?;
    let c = l.src(2, K::B32)?;
    let u = l.conv(ConvOp::F32ToU32, x);
    let max = l.cst(u, 255);
    let u = l.bin(BinOp::UMin, u, max);
    let sel = l.and_imm(sel, 3);
    let shift = l.shl_imm(sel, 3);
    let ff = l.cst(u, 0xff);
    let field = l.bin(BinOp::Shl, ff, shift);
    let keep = l.not(field);
    let c = l.and(c, keep);
    let u = l.bin(BinOp::Shl, u, shift);
    let r = l.or(c, u);
    l.vdst32(r)
}

/// `v_cvt_i32_i16` / `v_cvt_u32_u16`: a 16-bit half sign- or zero-extended to 32 bits.
pub(in crate::lift) fn ext16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    l.count_vector();
    let a = l.src(0, K::B16)?;
    let e = if op == V_CVT_I32_I16 {
        ConvOp::SExt16
    } else {
        ConvOp::ZExt16
    };
    let r = l.conv(e, a);
    let _ = inst;
    l.vdst32(r)
}

/// `v_cvt_pk_i16_f32` / `v_cvt_pk_u16_f32` (RDNA4 ISA): `{cvt16(S1), cvt16(S0)}` where
/// `v_cvt_i16_f32`/`v_cvt_u16_f32` convert toward zero and saturate to the 16-bit range,
/// NaN giving 0 (the rule of `v_cvt_i32_f32` at 16 bits).
pub(in crate::lift) fn cvt_pk16_f32(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on an integer conversion".into());
    }
    l.count_vector();
    let signed = op == V_CVT_PK_I16_F32;
    let mut out = Vec::new();
    for i in 0..2 {
        let x = l.src(i, K::F32)?;
        let v = if signed {
            let v = l.conv(ConvOp::F32ToI32, x);
            let lo = l.cst(v, (-32768i32) as u32 as u64);
            let hi = l.cst(v, 32767);
            let v = l.bin(BinOp::SMax, v, lo);
            let v = l.bin(BinOp::SMin, v, hi);
            l.and_imm(v, 0xffff)
        } else {
            let v = l.conv(ConvOp::F32ToU32, x);
            let hi = l.cst(v, 0xffff);
            l.bin(BinOp::UMin, v, hi)
        };
        out.push(v);
    }
    let hi = l.shl_imm(out[1], 16);
    let r = l.or(out[0], hi);
    l.vdst32(r)
}

/// `v_cvt_f32_fp8/bf8` (the byte chosen by OPSEL: `byte = op_sel[0] * 2 + op_sel[1]`, "byte
/// select bits are reversed") and `v_cvt_pk_f32_fp8/bf8` (the 16-bit half chosen by
/// `op_sel[0]`, two results in a register pair) (RDNA4 ISA 7.6.2, V_CVT_F32_FP8).
pub(in crate::lift) fn cvt_from_ocp8(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on an FP8/BF8 conversion".into());
    }
    l.count_vector();
    let bf8 = matches!(op, V_CVT_F32_BF8 | V_CVT_PK_F32_BF8);
    // The raw register: input modifiers are ignored, and OPSEL is a byte/half select here.
    let v = src_raw(l, 0, K::B32)?;
    let sel = inst.mods.op_sel;
    if matches!(op, V_CVT_PK_F32_FP8 | V_CVT_PK_F32_BF8) {
        let w = if sel & 1 != 0 { l.lshr_imm(v, 16) } else { v };
        let lo = ocp8_to_f32(l, w, bf8);
        let b1 = l.lshr_imm(w, 8);
        let hi = ocp8_to_f32(l, b1, bf8);
        let p = l.pack(lo, hi);
        return l.vdst64(p);
    }
    let byte = ((sel & 1) << 1 | (sel >> 1 & 1)) as u64;
    let b = if byte != 0 {
        l.lshr_imm(v, 8 * byte)
    } else {
        v
    };
    let r = ocp8_to_f32(l, b, bf8);
    l.vdst32(r)
}

/// `v_cvt_pk_fp8/bf8_f32` (two RNE conversions into the 16-bit half `op_sel[3]` selects)
/// and `v_cvt_sr_fp8/bf8_f32` (stochastic rounding: `S1[31:12]` (FP8) or `S1[31:11]` (BF8)
/// added to the mantissa, wrapping within the 23 bits, then truncation; the byte `op_sel[3:2]`
/// selects); the rest of the destination is kept (RDNA4 ISA, V_CVT_PK_FP8_F32,
/// V_CVT_SR_FP8_F32).
pub(in crate::lift) fn cvt_to_ocp8(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.clamp {
        return Err("clamp on an FP8/BF8 conversion is not supported".into());
    }
    l.count_vector();
    let bf8 = matches!(op, V_CVT_PK_BF8_F32 | V_CVT_SR_BF8_F32);
    let a = l.src(0, K::F32)?;
    let reg = inst.dst[0]
        .vreg()
        .ok_or("conversion destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let sel = inst.mods.op_sel;
    let r = if matches!(op, V_CVT_PK_FP8_F32 | V_CVT_PK_BF8_F32) {
        let b = l.src(1, K::F32)?;
        let c0 = f32_to_ocp8(l, a, bf8, false);
        let c1 = f32_to_ocp8(l, b, bf8, false);
        let c1 = l.shl_imm(c1, 8);
        let w = l.or(c0, c1);
        insert16(l, old, w, sel & 8 != 0)
    } else {
        let rnd = l.src(1, K::B32)?;
        let shift = if bf8 { 11 } else { 12 };
        let rnd = l.lshr_imm(rnd, shift);
        let m = l.and_imm(a, 0x7f_ffff);
        let m = l.add(m, rnd);
        let m = l.and_imm(m, 0x7f_ffff);
        let se = l.and_imm(a, 0xff80_0000);
        let t = l.or(se, m);
        let c = f32_to_ocp8(l, t, bf8, true);
        let byte = (sel >> 2 & 3) as u64;
        let keep = l.and_imm(old, !(0xffu64 << (8 * byte)) & 0xffff_ffff);
        let c = l.shl_imm(c, 8 * byte);
        l.or(keep, c)
    };
    l.vdst32(r)
}
