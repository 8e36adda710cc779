//! gfx950 conversions with a block scale between 8-bit floats (OCP FP8 E4M3FN, BF8 E5M2) and
//! f32/f16/bf16, and between FP4 (E2M1)/FP6 (E2M3)/BF6 (E3M2) and f32/f16/bf16
//! (`v_cvt_scalef32_*`, CDNA4 ISA 7.3 "Converts with Scale", chapter-12 pseudocode). To
//! FP4/FP6/BF6: nearest even, out-of-range values and ±Inf saturate to ±max (ISA 7.3), a NaN
//! becomes ±max with its sign (the ISA is silent; AMD's HIP host emulation of these builtins,
//! `amd_hip_ocp_host.hpp`, does this). 32 packed 6-bit values lie densely in six
//! VGPRs, element i in bits 6i+5:6i of the 192-bit value whose bits 31:0 are the first VGPR.
//!
//! Stochastic rounding (`sr_*`, the random value in src1, the scale in src2): the value divided
//! by the scale gets random bits added below the destination's last place and is truncated.
//! To FP8/BF8 (from f32, and from f16/bf16 converted exactly to f32) by the `V_CVT_SR_FP8_F32`
//! pseudocode's rule (`S1[31:12]`/`S1[31:11]` added to the f32 mantissa, which wraps); to
//! FP4/FP6/BF6 the top bits of the random value likewise, the carry rounding up (the rule and
//! its sources: [`RoundedOp::SrF32ToFp4`], `sem/round.rs::sr_mx`). Element i of a
//! multi-element conversion to FP4/FP6/BF6 uses the random value advanced i times by
//! `v_prng_b32`: "for convert ops requiring a Stochastic Rounding Value over multiple passes,
//! an updated random number is generated every pass [...] created internally via V_PRNG_B32
//! but not written" (CDNA4 ISA 7.3), one pass per element as in the chapter-12 pseudocode's
//! loops; that the first element takes the operand unchanged is an assumption (ISA 7.3:
//! "updated" every pass; AMD's host emulation reuses one value for all elements). The
//! single f16/bf16 source of `sr_{fp8,bf8}_{f16,bf16}` is the half `op_sel[0]` selects, with
//! neg/abs on its sign bit.
//!
//! The scale operand is read as an f32 of which only the exponent field is used: an E8M0
//! exponent with bias 127, so the scale is `2^(scale[30:23] - 127)` (ISA 7.3; inline constants
//! contribute their f32 exponent). Conversions *to* an 8-bit format divide by the scale,
//! conversions *from* one multiply by it (LLVM's ROCDL op descriptions of
//! `rocdl.cvt.scalef32.*`: "dividing by the exponent in `scale`" / "multiplying by the
//! exponent of `scale`"). Scaling by a power of two is exact in f32 wherever the result is
//! a normal f32, so each conversion rounds once: to an 8-bit format nearest even with
//! FP16_OVFL saturation as `v_cvt_pk_fp8_f32` (an f32 result that the scaling made
//! subnormal or infinite lies far outside the 8-bit range, where the rounding gives the same
//! code); to f16/bf16 nearest even. Scale exponent 255 scales by 2^128 like any other. The
//! CDNA4 ISA defines E8M0 0xFF as NaN for MFMA block scales (7.2: "valid values in: -127, 127
//! (0xFF is NaN)") and AMD's host emulation treats it as a NaN scale, but 7.3 (converts) says
//! only "an E8M0 exponent with a bias of 127" and no source gives the result bits of a NaN
//! scale per destination format (FP4/FP6 have no NaN): open question, ARCHITECTURE.md.
//!
//! Operand selects, as LLVM encodes the builtins' selector arguments (clang-22 for gfx950):
//! the source byte of `f32_fp8`/`f16_fp8` and of the `pk_*_fp4` up-conversions is
//! `op_sel[1:0]` (FP4 element 0 in the byte's low nibble, as in MFMA operands, ISA 7.1.5), the
//! source word of the other `pk_*` up-conversions `op_sel[0]`, the written half of `f16_fp8` and the written word of the
//! `pk_*` down-conversions `op_sel[3]` (the other kept), the written byte of `sr_*_f32`
//! `op_sel[3:2]` (the others kept). The 8-bit and packed 16-bit sources take no input
//! modifiers (ISA 7.3), f32 sources do; OMOD and clamp are not supported by converts.

use super::common::{f8_op, f8_to_f32, fp16_ovfl, prng_step, write16, write_dst_byte};
use crate::ir::{BinOp, ConvOp, LaneFn, Round, RoundedOp, Ty, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;

/// Lifts `v_cvt_scalef32_<rest>`; `Err` for the forms not handled here.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.omod != 0 || inst.mods.clamp {
        return Err("output modifiers on a scaled conversion".into());
    }
    let m = inst.mods;
    let bf8_src = matches!(
        op,
        V_CVT_SCALEF32_F32_BF8
            | V_CVT_SCALEF32_F16_BF8
            | V_CVT_SCALEF32_PK_F32_BF8
            | V_CVT_SCALEF32_PK_F16_BF8
            | V_CVT_SCALEF32_PK_BF16_BF8
    );
    match op {
        V_CVT_SCALEF32_F32_FP8
        | V_CVT_SCALEF32_F32_BF8
        | V_CVT_SCALEF32_F16_FP8
        | V_CVT_SCALEF32_F16_BF8 => {
            no_mods(inst, 1)?;
            let src = l.src(0, K::B32)?;
            let k = scale_exp(l, 1)?;
            let byte = l.lshr_imm(src, 8 * (m.op_sel as u64 & 3));
            let x = up(l, byte, bf8_src, k);
            if matches!(op, V_CVT_SCALEF32_F32_FP8 | V_CVT_SCALEF32_F32_BF8) {
                l.vdst32(x)
            } else {
                let h = l.conv(ConvOp::F32ToF16, x);
                write16(l, inst, h)
            }
        }
        V_CVT_SCALEF32_PK_F32_FP8
        | V_CVT_SCALEF32_PK_F32_BF8
        | V_CVT_SCALEF32_PK_F16_FP8
        | V_CVT_SCALEF32_PK_F16_BF8
        | V_CVT_SCALEF32_PK_BF16_FP8
        | V_CVT_SCALEF32_PK_BF16_BF8 => {
            no_mods(inst, 1)?;
            let src = l.src(0, K::B32)?;
            let k = scale_exp(l, 1)?;
            let word = l.lshr_imm(src, 16 * (m.op_sel as u64 & 1));
            let lo = up(l, word, bf8_src, k);
            let b1 = l.lshr_imm(word, 8);
            let hi = up(l, b1, bf8_src, k);
            write_pair(l, op, lo, hi)
        }
        V_CVT_SCALEF32_PK_F32_FP4 | V_CVT_SCALEF32_PK_F16_FP4 | V_CVT_SCALEF32_PK_BF16_FP4 => {
            // Byte op_sel[1:0]: element 0 in its low nibble, element 1 in the high one.
            no_mods(inst, 1)?;
            let src = l.src(0, K::B32)?;
            let k = scale_exp(l, 1)?;
            let byte = l.lshr_imm(src, 8 * (m.op_sel as u64 & 3));
            let lo = fp4_to_f32(l, byte);
            let lo = l.bin(BinOp::FLdexp, lo, k);
            let n1 = l.lshr_imm(byte, 4);
            let hi = fp4_to_f32(l, n1);
            let hi = l.bin(BinOp::FLdexp, hi, k);
            write_pair(l, op, lo, hi)
        }
        _ => narrow(l, inst, op),
    }
}

/// The conversions to FP8/BF8/FP4/FP6/BF6 (rounded or stochastic) and the 32-element
/// FP6/BF6 ones.
fn narrow(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_CVT_SCALEF32_PK_FP8_F32 | V_CVT_SCALEF32_PK_BF8_F32 => {
            let bf8 = op == V_CVT_SCALEF32_PK_BF8_F32;
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let k = scale_exp(l, 2)?;
            let lo = down(l, a, bf8, k, None);
            let hi = down(l, b, bf8, k, None);
            let hi = l.shl_imm(hi, 8);
            let w = l.or(lo, hi);
            write16(l, inst, w)
        }
        V_CVT_SCALEF32_PK_FP8_F16
        | V_CVT_SCALEF32_PK_BF8_F16
        | V_CVT_SCALEF32_PK_FP8_BF16
        | V_CVT_SCALEF32_PK_BF8_BF16 => {
            no_mods(inst, 1)?;
            let bf8 = matches!(op, V_CVT_SCALEF32_PK_BF8_F16 | V_CVT_SCALEF32_PK_BF8_BF16);
            let src = l.src(0, K::B32)?;
            let k = scale_exp(l, 1)?;
            let bf16 = matches!(op, V_CVT_SCALEF32_PK_FP8_BF16 | V_CVT_SCALEF32_PK_BF8_BF16);
            let lo = from16(l, src, bf16);
            let h = l.lshr_imm(src, 16);
            let hi = from16(l, h, bf16);
            let lo = down(l, lo, bf8, k, None);
            let hi = down(l, hi, bf8, k, None);
            let hi = l.shl_imm(hi, 8);
            let w = l.or(lo, hi);
            write16(l, inst, w)
        }
        V_CVT_SCALEF32_SR_FP8_F32 | V_CVT_SCALEF32_SR_BF8_F32 => {
            let bf8 = op == V_CVT_SCALEF32_SR_BF8_F32;
            let a = l.src(0, K::F32)?;
            let rng = l.src(1, K::B32)?;
            let k = scale_exp(l, 2)?;
            let byte = down(l, a, bf8, k, Some(rng));
            write_dst_byte(l, inst, byte)
        }
        V_CVT_SCALEF32_SR_FP8_F16
        | V_CVT_SCALEF32_SR_BF8_F16
        | V_CVT_SCALEF32_SR_FP8_BF16
        | V_CVT_SCALEF32_SR_BF8_BF16 => {
            let bf8 = matches!(op, V_CVT_SCALEF32_SR_BF8_F16 | V_CVT_SCALEF32_SR_BF8_BF16);
            let h = src16_mods(l, inst)?;
            let x = from16(
                l,
                h,
                matches!(op, V_CVT_SCALEF32_SR_FP8_BF16 | V_CVT_SCALEF32_SR_BF8_BF16),
            );
            let rng = l.src(1, K::B32)?;
            let k = scale_exp(l, 2)?;
            let byte = down(l, x, bf8, k, Some(rng));
            write_dst_byte(l, inst, byte)
        }
        V_CVT_SCALEF32_SR_PK_FP4_F32
        | V_CVT_SCALEF32_SR_PK_FP4_F16
        | V_CVT_SCALEF32_SR_PK_FP4_BF16 => {
            // The pair (a VGPR pair of f32, or a packed f16/bf16 register; no input modifiers
            // on either) into byte op_sel[3:2] of D, element 0 in the low nibble.
            no_mods(inst, 1)?;
            let (a, b) = if op == V_CVT_SCALEF32_SR_PK_FP4_F32 {
                let v = f32_regs(l, inst, 0, 2)?;
                (v[0], v[1])
            } else {
                let bf16 = op == V_CVT_SCALEF32_SR_PK_FP4_BF16;
                let src = l.src(0, K::B32)?;
                let h = l.lshr_imm(src, 16);
                (from16(l, src, bf16), from16(l, h, bf16))
            };
            let rng = l.src(1, K::B32)?;
            let k = scale_exp(l, 2)?;
            let seeds = pass_seeds(l, rng, 2);
            let lo = mx_down_sr(l, a, Mx::Fp4, k, seeds[0]);
            let hi = mx_down_sr(l, b, Mx::Fp4, k, seeds[1]);
            let hi = l.shl_imm(hi, 4);
            let byte = l.or(lo, hi);
            write_dst_byte(l, inst, byte)
        }
        V_CVT_SCALEF32_SR_PK32_FP6_F32
        | V_CVT_SCALEF32_SR_PK32_BF6_F32
        | V_CVT_SCALEF32_SR_PK32_FP6_F16
        | V_CVT_SCALEF32_SR_PK32_BF6_F16
        | V_CVT_SCALEF32_SR_PK32_FP6_BF16
        | V_CVT_SCALEF32_SR_PK32_BF6_BF16 => {
            // 32 f32 registers, or 16 registers of packed f16/bf16 (element 2p in the low
            // half of register p), into six VGPRs.
            no_mods(inst, 1)?;
            let fmt = if matches!(
                op,
                V_CVT_SCALEF32_SR_PK32_BF6_F32
                    | V_CVT_SCALEF32_SR_PK32_BF6_F16
                    | V_CVT_SCALEF32_SR_PK32_BF6_BF16
            ) {
                Mx::Bf6
            } else {
                Mx::Fp6
            };
            let vals = if matches!(
                op,
                V_CVT_SCALEF32_SR_PK32_FP6_F32 | V_CVT_SCALEF32_SR_PK32_BF6_F32
            ) {
                f32_regs(l, inst, 0, 32)?
            } else {
                let bf16 = matches!(
                    op,
                    V_CVT_SCALEF32_SR_PK32_FP6_BF16 | V_CVT_SCALEF32_SR_PK32_BF6_BF16
                );
                let mut vals = Vec::new();
                for w in l.get_vregs(inst.src[0], 16)? {
                    let h = l.lshr_imm(w, 16);
                    vals.push(from16(l, w, bf16));
                    vals.push(from16(l, h, bf16));
                }
                vals
            };
            let rng = l.src(1, K::B32)?;
            let k = scale_exp(l, 2)?;
            let seeds = pass_seeds(l, rng, 32);
            let codes: Vec<Val> = vals
                .into_iter()
                .zip(seeds)
                .map(|(x, s)| mx_down_sr(l, x, fmt, k, s))
                .collect();
            let out = pack6(l, &codes);
            let exec = l.exec();
            l.set_vregs(inst.dst[0], &out, exec)
        }
        V_CVT_SCALEF32_PK_FP4_F32 | V_CVT_SCALEF32_PK_FP4_F16 | V_CVT_SCALEF32_PK_FP4_BF16 => {
            // Two FP4 codes into byte op_sel[3:2] of D (element 0 in the low nibble), the
            // other bytes kept (CDNA4 ISA 12.11, V_CVT_SCALEF32_PK_FP4_F32).
            let (lo, hi) = if op == V_CVT_SCALEF32_PK_FP4_F32 {
                let a = l.src(0, K::F32)?;
                let b = l.src(1, K::F32)?;
                let k = scale_exp(l, 2)?;
                (mx_down(l, a, Mx::Fp4, k), mx_down(l, b, Mx::Fp4, k))
            } else {
                no_mods(inst, 1)?;
                let bf16 = op == V_CVT_SCALEF32_PK_FP4_BF16;
                let src = l.src(0, K::B32)?;
                let k = scale_exp(l, 1)?;
                let a = from16(l, src, bf16);
                let h = l.lshr_imm(src, 16);
                let b = from16(l, h, bf16);
                (mx_down(l, a, Mx::Fp4, k), mx_down(l, b, Mx::Fp4, k))
            };
            let hi = l.shl_imm(hi, 4);
            let byte = l.or(lo, hi);
            write_dst_byte(l, inst, byte)
        }
        V_CVT_SCALEF32_2XPK16_FP6_F32 | V_CVT_SCALEF32_2XPK16_BF6_F32 => {
            // Element 2p is S0[p], element 2p+1 is S1[p] ("S0 and S1 inputs are interleaved
            // in the packed result", V_CVT_SCALEF32_2XPK16_FP6_F32).
            no_mods(inst, 2)?;
            let fmt = if op == V_CVT_SCALEF32_2XPK16_BF6_F32 {
                Mx::Bf6
            } else {
                Mx::Fp6
            };
            let a = f32_regs(l, inst, 0, 16)?;
            let b = f32_regs(l, inst, 1, 16)?;
            let k = scale_exp(l, 2)?;
            let mut codes = Vec::new();
            for (x, y) in a.into_iter().zip(b) {
                codes.push(mx_down(l, x, fmt, k));
                codes.push(mx_down(l, y, fmt, k));
            }
            let out = pack6(l, &codes);
            let exec = l.exec();
            l.set_vregs(inst.dst[0], &out, exec)
        }
        V_CVT_SCALEF32_PK32_FP6_F16
        | V_CVT_SCALEF32_PK32_FP6_BF16
        | V_CVT_SCALEF32_PK32_BF6_F16
        | V_CVT_SCALEF32_PK32_BF6_BF16 => {
            no_mods(inst, 1)?;
            let fmt = if matches!(
                op,
                V_CVT_SCALEF32_PK32_BF6_F16 | V_CVT_SCALEF32_PK32_BF6_BF16
            ) {
                Mx::Bf6
            } else {
                Mx::Fp6
            };
            let bf16 = matches!(
                op,
                V_CVT_SCALEF32_PK32_FP6_BF16 | V_CVT_SCALEF32_PK32_BF6_BF16
            );
            let src = l.get_vregs(inst.src[0], 16)?;
            let k = scale_exp(l, 1)?;
            let mut codes = Vec::new();
            for w in src {
                let h = l.lshr_imm(w, 16);
                for half in [w, h] {
                    let x = from16(l, half, bf16);
                    codes.push(mx_down(l, x, fmt, k));
                }
            }
            let out = pack6(l, &codes);
            let exec = l.exec();
            l.set_vregs(inst.dst[0], &out, exec)
        }
        V_CVT_SCALEF32_PK32_F32_FP6
        | V_CVT_SCALEF32_PK32_F32_BF6
        | V_CVT_SCALEF32_PK32_F16_FP6
        | V_CVT_SCALEF32_PK32_BF16_FP6
        | V_CVT_SCALEF32_PK32_F16_BF6
        | V_CVT_SCALEF32_PK32_BF16_BF6 => {
            no_mods(inst, 1)?;
            let fmt = if matches!(
                op,
                V_CVT_SCALEF32_PK32_F32_BF6
                    | V_CVT_SCALEF32_PK32_F16_BF6
                    | V_CVT_SCALEF32_PK32_BF16_BF6
            ) {
                Mx::Bf6
            } else {
                Mx::Fp6
            };
            let src = l.get_vregs(inst.src[0], 6)?;
            let k = scale_exp(l, 1)?;
            let mut vals = Vec::new();
            for i in 0..32 {
                let c = unpack6(l, &src, i);
                let x = mx_to_f32(l, c, fmt);
                vals.push(l.bin(BinOp::FLdexp, x, k));
            }
            let out = if matches!(
                op,
                V_CVT_SCALEF32_PK32_F32_FP6 | V_CVT_SCALEF32_PK32_F32_BF6
            ) {
                vals
            } else {
                let f16 = matches!(
                    op,
                    V_CVT_SCALEF32_PK32_F16_FP6 | V_CVT_SCALEF32_PK32_F16_BF6
                );
                let mut out = Vec::new();
                for pair in vals.chunks(2) {
                    let (lo, hi) = if f16 {
                        (
                            l.conv(ConvOp::F32ToF16, pair[0]),
                            l.conv(ConvOp::F32ToF16, pair[1]),
                        )
                    } else {
                        (to_bf16(l, pair[0]), to_bf16(l, pair[1]))
                    };
                    let hi = l.shl_imm(hi, 16);
                    out.push(l.or(lo, hi));
                }
                out
            };
            let exec = l.exec();
            l.set_vregs(inst.dst[0], &out, exec)
        }
        _ => Err("scaled conversion of this format pair is not supported".into()),
    }
}

/// The OCP formats without Inf or NaN (CDNA4 ISA 7.3).
#[derive(Clone, Copy)]
enum Mx {
    /// E2M1, bias 1.
    Fp4,
    /// E2M3, bias 1.
    Fp6,
    /// E3M2, bias 3.
    Bf6,
}

impl Mx {
    /// (exponent bits, mantissa bits, bias).
    fn shape(self) -> (u64, u64, i32) {
        match self {
            Mx::Fp4 => (2, 1, 1),
            Mx::Fp6 => (2, 3, 1),
            Mx::Bf6 => (3, 2, 3),
        }
    }
}

/// The f32 `x` divided by `2^k`, rounded nearest even to `fmt`, saturating; NaN gives ±max
/// (see [`RoundedOp::F32ToFp4`]). The code is in the low bits.
fn mx_down(l: &mut Lifter, x: Val, fmt: Mx, k: Val) -> Val {
    let z = l.cst(k, 0);
    let nk = l.bin(BinOp::Sub, z, k);
    let y = l.bin(BinOp::FLdexp, x, nk);
    let op = match fmt {
        Mx::Fp4 => RoundedOp::F32ToFp4,
        Mx::Fp6 => RoundedOp::F32ToFp6,
        Mx::Bf6 => RoundedOp::F32ToBf6,
    };
    l.lane_fn(
        LaneFn::Rounded(op, Round::NearestEven, false),
        vec![y],
        Ty::V32,
    )
}

/// The f32 `x` divided by `2^k`, stochastically rounded to `fmt` with the random `seed`
/// (see [`RoundedOp::SrF32ToFp4`]), saturating; the code is in the low bits.
fn mx_down_sr(l: &mut Lifter, x: Val, fmt: Mx, k: Val, seed: Val) -> Val {
    let z = l.cst(k, 0);
    let nk = l.bin(BinOp::Sub, z, k);
    let y = l.bin(BinOp::FLdexp, x, nk);
    let op = match fmt {
        Mx::Fp4 => RoundedOp::SrF32ToFp4,
        Mx::Fp6 => RoundedOp::SrF32ToFp6,
        Mx::Bf6 => RoundedOp::SrF32ToBf6,
    };
    l.lane_fn(
        LaneFn::Rounded(op, Round::NearestEven, false),
        vec![y, seed],
        Ty::V32,
    )
}

/// The random values of the `n` passes of a multi-pass stochastic conversion: `rng`, then
/// each the `v_prng_b32` step of the one before (CDNA4 ISA 7.3, see the module doc).
fn pass_seeds(l: &mut Lifter, rng: Val, n: usize) -> Vec<Val> {
    let mut seeds = vec![rng];
    for _ in 1..n {
        let prev = seeds[seeds.len() - 1];
        seeds.push(prng_step(l, prev));
    }
    seeds
}

/// The single 16-bit source 0 (the half `op_sel[0]` selects) in the low bits, with its
/// neg/abs modifiers applied to the sign bit (bit 15; f16 and bf16 alike).
fn src16_mods(l: &mut Lifter, inst: &Inst) -> R<Val> {
    let mut v = l.src(0, K::B16)?;
    if inst.mods.abs & 1 != 0 {
        v = l.and_imm(v, 0x7fff);
    }
    if inst.mods.neg & 1 != 0 {
        let c = l.cst(v, 0x8000);
        v = l.xor(v, c);
    }
    Ok(v)
}

/// The f32 value (exact) of the `fmt` code in the low bits of `v`: exponent field e > 0 gives
/// `(1 + m/2^mbits) · 2^(e - bias)`, e = 0 gives `m · 2^(1 - bias - mbits)`.
fn mx_to_f32(l: &mut Lifter, v: Val, fmt: Mx) -> Val {
    let (eb, mb, bias) = fmt.shape();
    let e = l.lshr_imm(v, mb);
    let e = l.and_imm(e, (1 << eb) - 1);
    let m = l.and_imm(v, (1 << mb) - 1);
    let ef = l.add_imm(e, (127 - bias) as u64);
    let ef = l.shl_imm(ef, 23);
    let mf = l.shl_imm(m, 23 - mb);
    let normal = l.or(ef, mf);
    let mi = l.conv(ConvOp::U32ToF32, m);
    let unit = l.cst(mi, (((127 + 1 - bias) as u32 - mb as u32) << 23) as u64);
    let denorm = l.bin(BinOp::FMul, mi, unit);
    let zero = l.cst(e, 0);
    let e0 = l.cmp(crate::ir::CmpOp::Eq, e, zero);
    let mag = l.select(e0, denorm, normal);
    let sign = l.lshr_imm(v, eb + mb);
    let sign = l.and_imm(sign, 1);
    let sign = l.shl_imm(sign, 31);
    l.or(mag, sign)
}

/// `n` f32 registers of source `i` (a VGPR range), with MODE's f32 input denormal flushing
/// ("conversion from F32 supports MODE-based denormal control", ISA 7.3).
fn f32_regs(l: &mut Lifter, inst: &Inst, i: usize, n: u16) -> R<Vec<Val>> {
    let regs = l.get_vregs(inst.src[i], n)?;
    if l.denorm_allowed(K::F32, 1) {
        return Ok(regs);
    }
    Ok(regs
        .into_iter()
        .map(|v| l.flush_denorm(v, K::F32))
        .collect())
}

/// The 6-bit element `i` of the 192-bit value in `regs` (six dwords, `regs[0]` holding bits
/// 31:0): bits `6i+5:6i`, which may straddle two registers (CDNA4 ISA 12.11,
/// `S0[sOffset + 5 : sOffset]` with `sOffset = pass * 6`; the packing of AMD's HIP host
/// emulation, `fp6x32_packed`, and of the MFMA FP6 operands in `matrix`).
fn unpack6(l: &mut Lifter, regs: &[Val], i: usize) -> Val {
    let bit = 6 * i;
    let (w, s) = (bit / 32, (bit % 32) as u64);
    let mut v = l.lshr_imm(regs[w], s);
    if s > 26 {
        let next = l.shl_imm(regs[w + 1], 32 - s);
        v = l.or(v, next);
    }
    l.and_imm(v, 0x3f)
}

/// The six dwords holding the 6-bit `codes` (element i in bits `6i+5:6i`, see [`unpack6`]).
fn pack6(l: &mut Lifter, codes: &[Val]) -> Vec<Val> {
    let mut out: Vec<Option<Val>> = vec![None; 6];
    let mut put = |l: &mut Lifter, w: usize, v: Val| {
        out[w] = Some(match out[w] {
            Some(p) => l.or(p, v),
            None => v,
        });
    };
    for (i, &c) in codes.iter().enumerate() {
        let bit = 6 * i;
        let (w, s) = (bit / 32, (bit % 32) as u64);
        let lo = l.shl_imm(c, s);
        put(l, w, lo);
        if s > 26 {
            let hi = l.lshr_imm(c, 32 - s);
            put(l, w + 1, hi);
        }
    }
    out.into_iter()
        .map(|v| v.unwrap_or_else(|| l.cst(codes[0], 0)))
        .collect()
}

/// Writes the two f32 results of a `pk_<dst>_*` up-conversion: an f32 register pair, or f16
/// or bf16 halves (nearest even) of one register.
fn write_pair(l: &mut Lifter, op: ValuSem, lo: Val, hi: Val) -> R<()> {
    if matches!(
        op,
        V_CVT_SCALEF32_PK_F32_FP8 | V_CVT_SCALEF32_PK_F32_BF8 | V_CVT_SCALEF32_PK_F32_FP4
    ) {
        let v = l.pack(lo, hi);
        return l.vdst64(v);
    }
    let (lo, hi) = if matches!(
        op,
        V_CVT_SCALEF32_PK_F16_FP8 | V_CVT_SCALEF32_PK_F16_BF8 | V_CVT_SCALEF32_PK_F16_FP4
    ) {
        (l.conv(ConvOp::F32ToF16, lo), l.conv(ConvOp::F32ToF16, hi))
    } else {
        (to_bf16(l, lo), to_bf16(l, hi))
    };
    let hi = l.shl_imm(hi, 16);
    let r = l.or(lo, hi);
    l.vdst32(r)
}

/// The f32 value of the FP4 (E2M1: bias 1, no Inf or NaN, CDNA4 ISA table 30) in the low
/// nibble of `v`: exponent e > 0 gives `(1 + m/2) · 2^(e-1)`, e = 0 gives `m/2`.
fn fp4_to_f32(l: &mut Lifter, v: Val) -> Val {
    let e = l.lshr_imm(v, 1);
    let e = l.and_imm(e, 3);
    let m = l.and_imm(v, 1);
    let ef = l.add_imm(e, 126);
    let ef = l.shl_imm(ef, 23);
    let mf = l.shl_imm(m, 22);
    let normal = l.or(ef, mf);
    // Denormal: 0.5 (0x3f000000) when m = 1, else 0.
    let half = l.cst(m, 0x3f00_0000);
    let denorm = l.bin(BinOp::Mul, m, half);
    let z = l.cst(e, 0);
    let e0 = l.cmp(crate::ir::CmpOp::Eq, e, z);
    let mag = l.select(e0, denorm, normal);
    let sign = l.and_imm(v, 8);
    let sign = l.shl_imm(sign, 28);
    l.or(mag, sign)
}

/// Rejects neg/abs on the sources before `first_scale` (8-bit or packed 16-bit data, which
/// take no input modifiers); the scale's sign does not matter, so its modifiers are allowed.
fn no_mods(inst: &Inst, first_scale: u8) -> R<()> {
    let data = (1u8 << first_scale) - 1;
    if (inst.mods.neg | inst.mods.abs) & data != 0 {
        return Err("input modifiers on the data of a scaled conversion".into());
    }
    Ok(())
}

/// The scale exponent `scale[30:23] - 127` of source `i` (`V32`, a signed integer).
fn scale_exp(l: &mut Lifter, i: usize) -> R<Val> {
    let s = l.src(i, K::F32)?;
    let e = l.lshr_imm(s, 23);
    let e = l.and_imm(e, 0xff);
    Ok(l.add_imm(e, (-127i32) as u32 as u64))
}

/// The f32 value of the 8-bit float in the low byte of `v`, times `2^k` (exact, or rounded
/// nearest even to an infinity).
fn up(l: &mut Lifter, v: Val, bf8: bool, k: Val) -> Val {
    let x = f8_to_f32(l, v, bf8, true);
    l.bin(BinOp::FLdexp, x, k)
}

/// The f32 `x` divided by `2^k`, rounded to FP8/BF8 (nearest even, or stochastically with the
/// random `rng`), in the low byte.
fn down(l: &mut Lifter, x: Val, bf8: bool, k: Val, rng: Option<Val>) -> Val {
    let z = l.cst(k, 0);
    let nk = l.bin(BinOp::Sub, z, k);
    let y = l.bin(BinOp::FLdexp, x, nk);
    let op = f8_op(l, bf8, rng.is_some());
    let sat = fp16_ovfl(l);
    let args = match rng {
        Some(r) => vec![y, r],
        None => vec![y],
    };
    l.lane_fn(LaneFn::Rounded(op, Round::NearestEven, sat), args, Ty::V32)
}

/// The f16 or bf16 in the low half of `v` as an f32 (exact).
fn from16(l: &mut Lifter, v: Val, bf16: bool) -> Val {
    let h = l.and_imm(v, 0xffff);
    if bf16 {
        l.shl_imm(h, 16)
    } else {
        l.conv(ConvOp::F16ToF32, h)
    }
}

/// f32 → bf16 bits (low half), nearest even.
fn to_bf16(l: &mut Lifter, x: Val) -> Val {
    let f = LaneFn::Rounded(RoundedOp::F32ToBf16, Round::NearestEven, false);
    l.lane_fn(f, vec![x], Ty::V32)
}
