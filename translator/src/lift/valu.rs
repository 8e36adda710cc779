//! Vector ALU: VOP1, VOP2, VOP3 (A and B), and the AGPR moves of VOP3P-MAI.
//!
//! Every result is written to the lanes of EXEC (narrowed by DPP row/bank masks and invalid
//! DPP sources); carry-outs and other mask results have the bits of inactive lanes cleared.
//!
//! Float results round in the MODE.FP_ROUND direction of their type (see the `lift` module
//! doc); f16 FMAs round once. `v_min`/`v_max`/`v_min3`/`v_max3`/`v_med3` follow the GFX9/CDNA
//! pseudocode including MODE.IEEE's sNaN quieting.
//!
//! Documented approximations: `v_rcp_f32`/`v_rsq_f32`/`v_sqrt_f32` are correctly rounded
//! (hardware: within 1 ULP); `v_mad_f32`/`v_mac_f32`/`v_madak_f32`/`v_madmk_f32` round after
//! the multiply but keep denormals (hardware flushes them).

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, TernOp, Ty, UnOp, Val};
use crate::isa::{Inst, Opnd};
use crate::wave::InstClass;
use BinOp::*;

/// Lifts a VALU instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    let base = name.strip_prefix("v_").unwrap_or(name);
    if base == "nop" {
        return Ok((InstClass::Valu, Flow::Next));
    }
    // Ops whose GFX9 definition is RDNA's (32-bit results from 8/16-bit fields; the CDNA and
    // RDNA ISA pseudocode agree) have one implementation, in `rdna_ops`.
    if matches!(
        base,
        "mad_u32_u16"
            | "mad_i32_i16"
            | "sad_u8"
            | "sad_hi_u8"
            | "sad_u16"
            | "msad_u8"
            | "lerp_u8"
            | "cvt_off_f32_i4"
            | "qsad_pk_u16_u8"
            | "mqsad_pk_u16_u8"
            | "mqsad_u32_u8"
            | "cvt_pk_u8_f32"
            | "cvt_norm_i16_f16"
            | "cvt_norm_u16_f16"
            | "cvt_pknorm_i16_f16"
            | "cvt_pknorm_u16_f16"
            | "cvt_pknorm_i16_f32"
            | "cvt_pknorm_u16_f32"
    ) {
        if let Some(r) = super::rdna_ops::lift(l, inst, name) {
            return r;
        }
    }
    if let Some(r) = super::cdna_ops::lift(l, inst, base) {
        r?;
        return Ok((InstClass::Valu, Flow::Next));
    }
    l.count_vector();
    lift_inner(l, inst, base)?;
    Ok((InstClass::Valu, Flow::Next))
}

/// Writes a result of kind `k` to the vector destination.
fn wr(l: &mut Lifter, v: Val, k: K) -> R<()> {
    if k.is64() {
        l.vdst64(v)
    } else {
        l.vdst32(v)
    }
}

/// Writes the result `r` and carry/borrow lanes `c` of a 32-bit add/sub with carry-out. With
/// clamp the result saturates to `sat` (0xffffffff on carry, 0 on borrow) where `c` is set
/// (CDNA ISA 6.5: integer clamp saturates); the carry-out is written either way.
fn carry_result(l: &mut Lifter, inst: &Inst, r: Val, c: Val, sat: u32) -> R<()> {
    let r = if inst.mods.clamp {
        let m = l.lanes_to_mask(c);
        let sv = l.cst(r, sat as u64);
        l.select(m, sv, r)
    } else {
        r
    };
    l.vdst32(r)?;
    write_carry(l, inst, c)
}

/// `r` (an exact integer result, signed or unsigned as `signed` says; unsigned ones must be
/// non-negative) saturated to the range of a `bits`-bit integer of that signedness, in `r`'s
/// width (integer clamp).
pub(super) fn saturate(l: &mut Lifter, r: Val, signed: bool, bits: u32) -> Val {
    if signed {
        let lo = l.cst(r, (-1i64 << (bits - 1)) as u64);
        let hi = l.cst(r, (1u64 << (bits - 1)) - 1);
        let t = l.bin(SMax, r, lo);
        l.bin(SMin, t, hi)
    } else {
        let hi = l.cst(r, (1u64 << bits) - 1);
        l.bin(UMin, r, hi)
    }
}

/// The three 16-bit sources (halves chosen by op_sel), sign- or zero-extended to 32 bits.
fn srcs16_extended(l: &mut Lifter, signed: bool) -> R<Vec<Val>> {
    let ext = if signed {
        ConvOp::SExt16
    } else {
        ConvOp::ZExt16
    };
    (0..3)
        .map(|i| {
            let x = l.src(i, K::B16)?;
            Ok(l.conv(ext, x))
        })
        .collect()
}

/// Rejects integer clamp (saturation), which is not lifted.
pub(super) fn no_clamp(inst: &Inst) -> R<()> {
    if inst.mods.clamp {
        return Err("clamp on an integer operation is not supported".into());
    }
    Ok(())
}

/// MODE.FP_ROUND for results of kind `k`: bits [1:0] for f32, [3:2] for f64 and f16
/// (CDNA3/CDNA4 ISA 3.5, MODE register).
pub(super) fn round_of(l: &Lifter, k: K) -> Round {
    if k == K::F32 {
        Round::from_field(l.mode)
    } else {
        Round::from_field(l.mode >> 2)
    }
}

/// MODE.FP16_OVFL (bit 23): an f16 result that overflows becomes ±MAX_F16, not ±Inf.
pub(super) fn fp16_ovfl(l: &Lifter) -> bool {
    l.mode >> 23 & 1 != 0
}

/// `op` rounded once in the MODE direction for results of kind `k` (a lane function).
pub(super) fn rounded(l: &mut Lifter, op: RoundedOp, k: K, args: Vec<Val>) -> Val {
    let rm = round_of(l, k);
    let ovfl = k == K::F16 && fp16_ovfl(l);
    let ty = if op.wide_result() { Ty::V64 } else { Ty::V32 };
    l.lane_fn(LaneFn::Rounded(op, rm, ovfl), args, ty)
}

/// Float add/sub/mul of kind `k` (f32 or f64): the IR op under round-to-nearest-even, the
/// rounded lane function under a directed MODE.FP_ROUND.
pub(super) fn farith(l: &mut Lifter, op: BinOp, k: K, a: Val, b: Val) -> Val {
    if round_of(l, k) == Round::NearestEven || !matches!(op, FAdd | FSub | FMul) {
        return l.bin(op, a, b);
    }
    let r = match (op, k.is64()) {
        (FAdd, false) => RoundedOp::AddF32,
        (FSub, false) => RoundedOp::SubF32,
        (FMul, false) => RoundedOp::MulF32,
        (FAdd, true) => RoundedOp::AddF64,
        (FSub, true) => RoundedOp::SubF64,
        _ => RoundedOp::MulF64,
    };
    rounded(l, r, k, vec![a, b])
}

/// Fused multiply-add of kind `k` (f32 or f64) in the MODE rounding direction.
fn ffma(l: &mut Lifter, k: K, a: Val, b: Val, c: Val) -> Val {
    if round_of(l, k) == Round::NearestEven {
        return l.tern(TernOp::Fma, a, b, c);
    }
    let op = if k.is64() {
        RoundedOp::FmaF64
    } else {
        RoundedOp::FmaF32
    };
    rounded(l, op, k, vec![a, b, c])
}

/// MODE.FP_DENORM output flushing of an f16 result (the f64/f16 field, bits [7:6]).
fn f16out(l: &mut Lifter, r: Val) -> Val {
    if l.denorm_allowed(K::F16, 2) {
        r
    } else {
        l.flush_denorm(r, K::F16)
    }
}

/// An f16 add/sub/mul/fma on f16 bits (low halves), rounded once in the f16 MODE direction,
/// with FP16_OVFL. Add, sub and mul under round-to-nearest-even without FP16_OVFL go through
/// f32 (exact there, and one rounding to f16: 24 >= 2 * 11 + 2 rules out double rounding);
/// FMAs always use the single-rounding lane function.
fn f16_arith(l: &mut Lifter, op: RoundedOp, args: Vec<Val>) -> Val {
    if round_of(l, K::F16) == Round::NearestEven && !fp16_ovfl(l) && op != RoundedOp::FmaF16 {
        let bop = match op {
            RoundedOp::AddF16 => FAdd,
            RoundedOp::SubF16 => FSub,
            _ => FMul,
        };
        let a = l.conv(ConvOp::F16ToF32, args[0]);
        let b = l.conv(ConvOp::F16ToF32, args[1]);
        let r = l.bin(bop, a, b);
        let r = l.conv(ConvOp::F32ToF16, r);
        return f16out(l, r);
    }
    let r = rounded(l, op, K::F16, args);
    f16out(l, r)
}

/// f32 → f16 (low 16 bits) in the f16 MODE direction, with FP16_OVFL.
fn to_f16(l: &mut Lifter, v: Val) -> Val {
    let r = if round_of(l, K::F16) == Round::NearestEven && !fp16_ovfl(l) {
        l.conv(ConvOp::F32ToF16, v)
    } else {
        rounded(l, RoundedOp::F32ToF16, K::F16, vec![v])
    };
    f16out(l, r)
}

/// Clamps f16 bits to [0, 1] (through f32, exact both ways).
fn clamp16(l: &mut Lifter, h: Val) -> Val {
    let x = l.conv(ConvOp::F16ToF32, h);
    let z = l.cst(x, 0);
    let o = l.cst(x, 0x3f80_0000);
    let t = l.bin(FMaxNum, x, z);
    let t = l.bin(FMinNum, t, o);
    l.conv(ConvOp::F32ToF16, t)
}

/// Lanes (`S64` mask) whose value of kind `k` (f32/f64 bits, or f16 in the low 16 bits) is a
/// signalling NaN: a NaN with the top fraction bit clear.
fn snan_mask(l: &mut Lifter, v: Val, k: K) -> Val {
    let (abs, inf, quiet) = match k {
        K::F16 => (0x7fffu64, 0x7c00u64, 0x200u64),
        K::F64 => (!(1u64 << 63), 0x7ff0_0000_0000_0000, 1u64 << 51),
        _ => (0x7fff_ffff, 0x7f80_0000, 1 << 22),
    };
    let m = l.and_imm(v, abs);
    let i = l.cst(m, inf);
    let nan = l.cmp(CmpOp::UGt, m, i);
    let q = l.and_imm(v, quiet);
    let z = l.cst(q, 0);
    let qz = l.cmp(CmpOp::Eq, q, z);
    l.and(nan, qz)
}

/// Lanes whose value of kind `k` is any NaN.
fn nan_mask(l: &mut Lifter, v: Val, k: K) -> Val {
    if k == K::F16 {
        let m = l.and_imm(v, 0x7fff);
        let i = l.cst(m, 0x7c00);
        l.cmp(CmpOp::UGt, m, i)
    } else {
        l.cmp(CmpOp::FUno, v, v)
    }
}

/// `v_min_*`/`v_max_*` of kind `k` (f32/f64 values, or f16 bits) as the GFX9/CDNA pseudocode
/// defines them: with MODE.IEEE an sNaN operand gives that operand quieted (S0 first); then a
/// NaN S0 gives S1 and a NaN S1 gives S0 (unchanged, so two NaNs give S1); otherwise the
/// smaller/larger value with −0 < +0.
fn fminmax(l: &mut Lifter, max: bool, k: K, a: Val, b: Val) -> Val {
    let op = if max { FMaxNum } else { FMinNum };
    let r = if k == K::F16 {
        // Ordered results are exact through f32; NaN cases select f16 bits below.
        let a32 = l.conv(ConvOp::F16ToF32, a);
        let b32 = l.conv(ConvOp::F16ToF32, b);
        let r = l.bin(op, a32, b32);
        l.conv(ConvOp::F32ToF16, r)
    } else {
        l.bin(op, a, b)
    };
    let na = nan_mask(l, a, k);
    let r = l.select(na, b, r);
    if !l.ieee() {
        return r;
    }
    let quiet = match k {
        K::F16 => 0x200u64,
        K::F64 => 1u64 << 51,
        _ => 1 << 22,
    };
    let sa = snan_mask(l, a, k);
    let sb = snan_mask(l, b, k);
    let qc = l.cst(a, quiet);
    let qa = l.or(a, qc);
    let qb = l.or(b, qc);
    let r = l.select(sb, qb, r);
    l.select(sa, qa, r)
}

/// `v_med3_f32` (pseudocode): with a NaN operand `min3`; else the maximum of the two operands
/// other than the first one (S0, S1, S2 order) equal to `max3`.
fn fmed3(l: &mut Lifter, a: Val, b: Val, c: Val) -> Val {
    let na = nan_mask(l, a, K::F32);
    let nb = nan_mask(l, b, K::F32);
    let nc = nan_mask(l, c, K::F32);
    let t = fminmax(l, false, K::F32, a, b);
    let min3 = fminmax(l, false, K::F32, t, c);
    let t = l.bin(FMaxNum, a, b);
    let max3 = l.bin(FMaxNum, t, c);
    let mbc = l.bin(FMaxNum, b, c);
    let mac = l.bin(FMaxNum, a, c);
    let mab = l.bin(FMaxNum, a, b);
    let e0 = l.cmp(CmpOp::FEq, max3, a);
    let e1 = l.cmp(CmpOp::FEq, max3, b);
    let r = l.select(e1, mac, mab);
    let r = l.select(e0, mbc, r);
    let any = l.or(na, nb);
    let any = l.or(any, nc);
    l.select(any, min3, r)
}

/// VOP3 OMOD and clamp on an f16 result (low 16 bits of `r`), in that order (CDNA ISA
/// 6.2.2). OMOD applies under the MODE conditions of [`Lifter::omod_active`]: the result times
/// 2, 4 or 0.5, computed exactly in f32 and rounded once to f16 in the MODE direction. RDNA,
/// as for f32 results ([`Lifter::fout`]): then output denormals are flushed (RDNA4 ISA 7.2.3:
/// "flushes output denorms when OMOD!=0"; RDNA3 applies OMOD only when f16 denormals are
/// flushed anyway) and -0 * OMOD = +0.
pub(super) fn out16(l: &mut Lifter, inst: &Inst, r: Val) -> R<Val> {
    let mut r = r;
    if l.omod_active(inst, K::F16) {
        let m = match inst.mods.omod {
            1 => 0x4000_0000,
            2 => 0x4080_0000,
            _ => 0x3f00_0000,
        };
        let x = l.conv(ConvOp::F16ToF32, r);
        let c = l.cst(x, m);
        let y = l.bin(FMul, x, c);
        r = to_f16(l, y);
        if l.gpu.family() != Some(crate::isa::Family::Gfx9) {
            r = l.flush_denorm(r, K::F16);
            let h = l.and_imm(r, 0xffff);
            let nz = l.cst(h, 0x8000);
            let is_nz = l.cmp(CmpOp::Eq, h, nz);
            let z = l.cst(r, 0);
            r = l.select(is_nz, z, r);
        }
    }
    Ok(if inst.mods.clamp { clamp16(l, r) } else { r })
}

/// f16 unary op computed by `f` on the exact f32 value of the (flushed) source, rounded once
/// to f16 (nearest even; these ops are exact or approximate in f32 already), with output
/// flushing and clamp.
fn fun16(l: &mut Lifter, inst: &Inst, f: impl Fn(&mut Lifter, Val) -> Val) -> R<()> {
    let a = l.src(0, K::F16)?;
    let x = l.conv(ConvOp::F16ToF32, a);
    let y = f(l, x);
    let r = l.conv(ConvOp::F32ToF16, y);
    let r = f16out(l, r);
    let r = out16(l, inst, r)?;
    wr16(l, inst, r)
}

/// `v_med3_f16` (f16 bits): the `v_med3_f32` pseudocode on f16 operands (ordered results
/// compared exactly in f32).
fn fmed3_16(l: &mut Lifter, a: Val, b: Val, c: Val) -> Val {
    let na = nan_mask(l, a, K::F16);
    let nb = nan_mask(l, b, K::F16);
    let nc = nan_mask(l, c, K::F16);
    let t = fminmax(l, false, K::F16, a, b);
    let min3 = fminmax(l, false, K::F16, t, c);
    let (x, y, z) = (
        l.conv(ConvOp::F16ToF32, a),
        l.conv(ConvOp::F16ToF32, b),
        l.conv(ConvOp::F16ToF32, c),
    );
    let t = l.bin(FMaxNum, x, y);
    let max3 = l.bin(FMaxNum, t, z);
    let myz = l.bin(FMaxNum, y, z);
    let mxz = l.bin(FMaxNum, x, z);
    let mxy = l.bin(FMaxNum, x, y);
    let e0 = l.cmp(CmpOp::FEq, max3, x);
    let e1 = l.cmp(CmpOp::FEq, max3, y);
    let r = l.select(e1, mxz, mxy);
    let r = l.select(e0, myz, r);
    let r = l.conv(ConvOp::F32ToF16, r);
    let any = l.or(na, nb);
    let any = l.or(any, nc);
    l.select(any, min3, r)
}

/// IEEE 754-2019 maximum/minimum (gfx950 `v_maximum3`/`v_minimum3`): an sNaN operand gives it
/// quieted (S0 first), then a quiet NaN operand (S0 first); otherwise the larger/smaller value
/// with −0 < +0. `k` is F32 (values) or F16 (bits).
fn fmaximum(l: &mut Lifter, max: bool, k: K, a: Val, b: Val) -> Val {
    let op = if max { FMaxNum } else { FMinNum };
    let r = if k == K::F16 {
        let x = l.conv(ConvOp::F16ToF32, a);
        let y = l.conv(ConvOp::F16ToF32, b);
        let r = l.bin(op, x, y);
        l.conv(ConvOp::F32ToF16, r)
    } else {
        l.bin(op, a, b)
    };
    let quiet = if k == K::F16 { 0x200u64 } else { 1 << 22 };
    let qc = l.cst(a, quiet);
    let qa = l.or(a, qc);
    let qb = l.or(b, qc);
    let na = nan_mask(l, a, k);
    let nb = nan_mask(l, b, k);
    let sa = snan_mask(l, a, k);
    let sb = snan_mask(l, b, k);
    let r = l.select(nb, qb, r);
    let r = l.select(na, qa, r);
    let r = l.select(sb, qb, r);
    l.select(sa, qa, r)
}

/// Float binary op with modifiers.
fn fbin(l: &mut Lifter, op: BinOp, k: K, rev: bool) -> R<()> {
    let a = l.src(0, k)?;
    let b = l.src(1, k)?;
    let (a, b) = if rev { (b, a) } else { (a, b) };
    let r = farith(l, op, k, a, b);
    let r = l.fout(r, k)?;
    wr(l, r, k)
}

/// Float unary op with modifiers.
fn fun(l: &mut Lifter, op: UnOp, k: K) -> R<()> {
    let a = l.src(0, k)?;
    let r = l.un(op, a);
    let r = l.fout(r, k)?;
    wr(l, r, k)
}

/// Whether the f32 transcendental `base` flushes input and output denormals whatever MODE
/// says: on RDNA, `v_sqrt/rsq/exp/log_f32` ("1ULP accuracy, denormals are flushed", RDNA4
/// ISA 16.8 notes) and `v_rcp_iflag_f32` (7.2.4's list). The RDNA3 guide's list is an image
/// in our copy; LLVM's f32 sqrt/log/exp lowerings scale denormal inputs on every AMDGPU
/// target, which assumes the same. Not applied to GFX9 (no CDNA text at hand), nor to
/// `v_sin/cos_f32`, whose RDNA4 notes say "Denormals are supported" although 7.2.4 lists COS,
/// nor to `v_rcp_f32` although its notes say "Denormals are flushed" (LLVM PR 203566 says it
/// flushes per the denormal mode): on GFX9, compiled f32 division takes `v_rcp_f32` of
/// `v_div_scale_f32`'s denominator, and with that pseudocode read literally (`sem/mod.rs`,
/// `div_scale32`) FLT_MAX / FLT_MAX would become 0 (the corpus `float_specials` case). RDNA's
/// `div_scale32_rdna` keeps such reciprocals normal; which reading the hardware follows for
/// `v_rcp_f32` itself is open.
fn flushes_denormals(l: &Lifter, base: &str) -> bool {
    l.gpu.family() != Some(crate::isa::Family::Gfx9)
        && matches!(
            base,
            "sqrt_f32" | "rsq_f32" | "exp_f32" | "log_f32" | "rcp_iflag_f32"
        )
}

/// An f32 transcendental that flushes input and output denormals ([`flushes_denormals`]):
/// `f` on the flushed source, OMOD/clamp, the result flushed.
fn fun_flushed(l: &mut Lifter, f: impl FnOnce(&mut Lifter, Val) -> Val) -> R<()> {
    let a = l.src(0, K::F32)?;
    let a = l.flush_denorm(a, K::F32);
    let r = f(l, a);
    let r = l.fout(r, K::F32)?;
    let r = l.flush_denorm(r, K::F32);
    l.vdst32(r)
}

/// Integer binary op on sources 0 and 1 (`rev` swaps them).
fn ibin(l: &mut Lifter, inst: &Inst, op: BinOp, k: K, rev: bool) -> R<()> {
    no_clamp(inst)?;
    let a = l.src(0, k)?;
    let b = l.src(1, k)?;
    let (a, b) = if rev { (b, a) } else { (a, b) };
    let r = l.bin(op, a, b);
    wr(l, r, k)
}

/// A 16-bit result (in the low bits of `v`): GFX9 writes zeros above it, or with VOP3
/// `op_sel[3]` writes the high half and keeps the low half.
pub(super) fn wr16(l: &mut Lifter, inst: &Inst, v: Val) -> R<()> {
    if l.gpu.family() != Some(crate::isa::Family::Gfx9) {
        // RDNA keeps the other half (see `rdna_ops::write16`).
        return super::rdna_ops::write16(l, inst, v);
    }
    if inst.mods.op_sel & 8 != 0 && inst.sdwa.is_none() {
        let reg = inst.dst[0]
            .vreg()
            .ok_or("16-bit destination is not a VGPR")?;
        let old = l.get_vreg(reg)?;
        let keep = l.and_imm(old, 0xffff);
        let hi = l.shl_imm(v, 16);
        let r = l.or(keep, hi);
        return l.vdst32(r);
    }
    let r = if inst.sdwa.is_some() {
        v
    } else {
        l.and_imm(v, 0xffff)
    };
    l.vdst32(r)
}

/// The 16-bit result of GFX9's VOP3 ops that have OPSEL (`v_mad_u16`, `v_mad_i16`,
/// `v_mad_f16`, `v_fma_f16`, `v_div_fixup_f16`): the half `op_sel[3]` selects is written and
/// the other half kept. Sources: CDNA4 ISA ch. 12 (these opcodes keep D[31:16] when
/// OPSEL[3] = 0); LLVM `GCNSubtarget::zeroesHigh16BitsOfDest` lists only their GFX8
/// encodings (`V_MAD_U16_e64` … = `v_mad_legacy_u16` … on GFX9, `legacy`) as zeroing on GFX9,
/// not the `_gfx9` ones. On RDNA (no `legacy` forms) this is [`wr16`].
fn wr16_gfx9_opsel(l: &mut Lifter, inst: &Inst, v: Val, legacy: bool) -> R<()> {
    if legacy || inst.sdwa.is_some() {
        wr16(l, inst, v)
    } else {
        super::rdna_ops::write16(l, inst, v)
    }
}

/// Carry/borrow mask from per-lane 0/1 values, restricted to the written lanes, to `dst[1]`.
fn write_carry(l: &mut Lifter, inst: &Inst, c: Val) -> R<()> {
    let m = l.lanes_to_mask(c);
    let w = l.wmask();
    let m = l.and(m, w);
    l.set_mask_opnd(inst.dst[1], m)
}

/// Three-source integer op `f(a, b, c)`.
/// gfx950 `v_bitop3_b32`: bit i of the result is bit `{S0[i], S1[i], S2[i]}` of the 8-bit
/// truth table (CDNA4 ISA, V_BITOP3): the OR of the minterms whose table bit is set.
fn bitop3(l: &mut Lifter, table: u8, a: Val, b: Val, c: Val) -> Val {
    let (na, nb, nc) = (l.not(a), l.not(b), l.not(c));
    let mut acc: Option<Val> = None;
    for idx in 0..8 {
        if table >> idx & 1 == 0 {
            continue;
        }
        let x = if idx & 4 != 0 { a } else { na };
        let y = if idx & 2 != 0 { b } else { nb };
        let z = if idx & 1 != 0 { c } else { nc };
        let t = l.and(x, y);
        let t = l.and(t, z);
        acc = Some(match acc {
            Some(p) => l.or(p, t),
            None => t,
        });
    }
    acc.unwrap_or_else(|| l.cst(a, 0))
}

fn i3(l: &mut Lifter, inst: &Inst, k: K, f: impl Fn(&mut Lifter, Val, Val, Val) -> Val) -> R<()> {
    no_clamp(inst)?;
    i3_clamp_free(l, k, f)
}

/// [`i3`] for an op on which clamp has no effect: a min/max/median, whose result is one of
/// its sources and so already in the representable range that integer clamp saturates to
/// (CDNA ISA 6.5, RDNA4 ISA 7.2.3.1), or one that ignores clamp (RDNA4 ISA 7.2.3.1's list).
fn i3_clamp_free(l: &mut Lifter, k: K, f: impl Fn(&mut Lifter, Val, Val, Val) -> Val) -> R<()> {
    let a = l.src(0, k)?;
    let b = l.src(1, k)?;
    let c = l.src(2, k)?;
    let r = f(l, a, b, c);
    wr(l, r, k)
}

/// `x & 0xffffff` (unsigned 24-bit operand).
fn u24(l: &mut Lifter, x: Val) -> Val {
    l.and_imm(x, 0xff_ffff)
}

/// Sign-extended low 24 bits.
fn i24(l: &mut Lifter, x: Val) -> Val {
    let t = l.shl_imm(x, 8);
    l.ashr_imm(t, 8)
}

fn lift_inner(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    match base {
        // ---- moves ----
        "mov_b32" | "accvgpr_read_b32" | "accvgpr_write_b32" | "accvgpr_mov_b32" => {
            let a = l.src(0, K::B32)?;
            l.vdst32(a)
        }
        "mov_b64" => {
            let a = l.src(0, K::B64)?;
            l.vdst64(a)
        }
        "readfirstlane_b32" => {
            // The first active lane (lane 0 when EXEC is 0).
            let v = l.src(0, K::B32)?;
            let e = l.exec();
            let t = l.un(UnOp::Ctz, e);
            let lane = l.lo(t);
            let r = l.read_lane(v, lane);
            l.set_s32(inst.dst[0], r)
        }
        "readlane_b32" => {
            let v = l.src(0, K::B32)?;
            let lane = l.s32(vop3_src_or(inst, 1), K::B32)?;
            let lane = l.and_imm(lane, (l.wave - 1) as u64);
            let r = l.read_lane(v, lane);
            l.set_s32(inst.dst[0], r)
        }
        "writelane_b32" => {
            // Writes one lane regardless of EXEC.
            let x = l.s32(vop3_src_or(inst, 0), K::B32)?;
            let lane = l.s32(vop3_src_or(inst, 1), K::B32)?;
            let lane = l.and_imm(lane, (l.wave - 1) as u64);
            let reg = inst.dst[0]
                .vreg()
                .ok_or("writelane destination is not a VGPR")?;
            let old = l.get_vreg(reg)?;
            let r = l.write_lane(old, lane, x);
            let all = l.c64(u64::MAX);
            l.set_vreg(reg, r, all)
        }

        // ---- f32 arithmetic ----
        "add_f32" => fbin(l, FAdd, K::F32, false),
        "sub_f32" => fbin(l, FSub, K::F32, false),
        "subrev_f32" => fbin(l, FSub, K::F32, true),
        "mul_f32" => fbin(l, FMul, K::F32, false),
        "min_f32" | "max_f32" | "min_f64" | "max_f64" => {
            let k = if base.ends_with("f64") {
                K::F64
            } else {
                K::F32
            };
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let r = fminmax(l, base.starts_with("max"), k, a, b);
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }
        "add_f64" => fbin(l, FAdd, K::F64, false),
        "mul_f64" => fbin(l, FMul, K::F64, false),
        "ldexp_f32" | "ldexp_f64" => {
            let k = if base == "ldexp_f32" { K::F32 } else { K::F64 };
            let a = l.src(0, k)?;
            let e = l.src(1, K::B32)?;
            let r = if round_of(l, k) != Round::NearestEven {
                let op = if k.is64() {
                    RoundedOp::LdexpF64
                } else {
                    RoundedOp::LdexpF32
                };
                rounded(l, op, k, vec![a, e])
            } else {
                let e = if k.is64() { l.conv(ConvOp::ZExt, e) } else { e };
                l.bin(FLdexp, a, e)
            };
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }
        "fma_f32" | "fma_f64" | "fmac_f32" | "fmac_f64" => {
            let k = if base.ends_with("f32") {
                K::F32
            } else {
                K::F64
            };
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let c = if base.starts_with("fmac") {
                acc_src(l, inst, k)?
            } else {
                l.src(2, k)?
            };
            let r = ffma(l, k, a, b, c);
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }
        "fmamk_f32" | "fmaak_f32" | "madmk_f32" | "madak_f32" => {
            // The decoder places the constant K as a literal source in LLVM's operand order,
            // so both forms are `D = S0 * S1 + S2`.
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let r = if base.starts_with("fma") {
                ffma(l, K::F32, a, b, c)
            } else {
                let p = farith(l, FMul, K::F32, a, b);
                farith(l, FAdd, K::F32, p, c)
            };
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "mad_f32" | "mac_f32" => {
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = if base == "mac_f32" {
                acc_src(l, inst, K::F32)?
            } else {
                l.src(2, K::F32)?
            };
            let p = farith(l, FMul, K::F32, a, b);
            let r = farith(l, FAdd, K::F32, p, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "min3_f32" | "max3_f32" => {
            // V_MIN3_F32 = V_MIN_F32(V_MIN_F32(S0, S1), S2), likewise max3.
            let max = base == "max3_f32";
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let t = fminmax(l, max, K::F32, a, b);
            let r = fminmax(l, max, K::F32, t, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "med3_f32" => {
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let r = fmed3(l, a, b, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }

        // ---- float unary ----
        // ---- f16 unary, through f32 (exact there; one rounding to f16) ----
        "ceil_f16" => fun16(l, inst, |l, x| l.un(UnOp::FCeil, x)),
        "floor_f16" => fun16(l, inst, |l, x| l.un(UnOp::FFloor, x)),
        "trunc_f16" => fun16(l, inst, |l, x| l.un(UnOp::FTrunc, x)),
        "rndne_f16" => fun16(l, inst, |l, x| l.un(UnOp::FRoundEven, x)),
        "sqrt_f16" => fun16(l, inst, |l, x| l.un(UnOp::FSqrt, x)),
        "rcp_f16" => fun16(l, inst, |l, x| l.un(UnOp::FRcp, x)),
        "rsq_f16" => fun16(l, inst, |l, x| l.un(UnOp::FRsq, x)),
        "exp_f16" => fun16(l, inst, |l, x| l.lane_fn(LaneFn::Exp2F32, vec![x], Ty::V32)),
        "log_f16" => fun16(l, inst, |l, x| l.lane_fn(LaneFn::Log2F32, vec![x], Ty::V32)),
        "sin_f16" => fun16(l, inst, |l, x| l.lane_fn(LaneFn::SinF32, vec![x], Ty::V32)),
        "cos_f16" => fun16(l, inst, |l, x| l.lane_fn(LaneFn::CosF32, vec![x], Ty::V32)),
        "frexp_mant_f16" => fun16(l, inst, |l, x| {
            l.lane_fn(LaneFn::FrexpMantF32, vec![x], Ty::V32)
        }),
        "fract_f16" => {
            // x - floor(x) is exact in f32 and in f16 except for tiny negative x, where it
            // rounds to 1.0: clamped to the largest f16 below 1 (0x3bff) like v_fract_f32.
            let a = l.src(0, K::F16)?;
            let x = l.conv(ConvOp::F16ToF32, a);
            let f = l.un(UnOp::FFloor, x);
            let d = l.bin(FSub, x, f);
            let h = l.conv(ConvOp::F32ToF16, d);
            let nan = nan_mask(l, h, K::F16);
            let lim = l.cst(h, 0x3bff);
            let c = l.bin(UMin, h, lim);
            let r = l.select(nan, h, c);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "frexp_exp_i16_f16" => {
            let a = l.src(0, K::F16)?;
            let x = l.conv(ConvOp::F16ToF32, a);
            let r = l.lane_fn(LaneFn::FrexpExpF32, vec![x], Ty::V32);
            let r = l.and_imm(r, 0xffff);
            wr16(l, inst, r)
        }
        "ldexp_f16" => {
            // D = S0.f16 * 2^S1.i16.
            let a = l.src(0, K::F16)?;
            let e = l.src(1, K::B16)?;
            let e = l.conv(ConvOp::SExt16, e);
            let x = l.conv(ConvOp::F16ToF32, a);
            // Exact in f32 wherever the f16 result is not 0 or Inf.
            let y = l.bin(FLdexp, x, e);
            let r = to_f16(l, y);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "max3_f16" | "min3_f16" => {
            let max = base == "max3_f16";
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let c = l.src(2, K::F16)?;
            let t = fminmax(l, max, K::F16, a, b);
            let r = fminmax(l, max, K::F16, t, c);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "med3_f16" => {
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let c = l.src(2, K::F16)?;
            let r = fmed3_16(l, a, b, c);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "maximum3_f32" | "minimum3_f32" => {
            // gfx950: IEEE 754-2019 maximum/minimum of three (NaN propagates, −0 < +0).
            let max = base == "maximum3_f32";
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let t = fmaximum(l, max, K::F32, a, b);
            let r = fmaximum(l, max, K::F32, t, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "mul_legacy_f32" => {
            // DX9 rule: 0 * anything (Inf and NaN included) is +0.
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let p = farith(l, FMul, K::F32, a, b);
            let z = l.cst(a, 0);
            let az = l.cmp(CmpOp::FEq, a, z);
            let bz = l.cmp(CmpOp::FEq, b, z);
            let zero = l.or(az, bz);
            let r = l.select(zero, z, p);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "fract_f32" => fun(l, UnOp::FFract, K::F32),
        "fract_f64" => fun(l, UnOp::FFract, K::F64),
        "trunc_f32" => fun(l, UnOp::FTrunc, K::F32),
        "trunc_f64" => fun(l, UnOp::FTrunc, K::F64),
        "ceil_f32" => fun(l, UnOp::FCeil, K::F32),
        "ceil_f64" => fun(l, UnOp::FCeil, K::F64),
        "floor_f32" => fun(l, UnOp::FFloor, K::F32),
        "floor_f64" => fun(l, UnOp::FFloor, K::F64),
        "rndne_f32" => fun(l, UnOp::FRoundEven, K::F32),
        "rndne_f64" => fun(l, UnOp::FRoundEven, K::F64),
        "sqrt_f32" | "rsq_f32" | "exp_f32" | "log_f32" | "rcp_iflag_f32"
            if flushes_denormals(l, base) =>
        {
            fun_flushed(l, |l, a| match base {
                "sqrt_f32" => l.un(UnOp::FSqrt, a),
                "rsq_f32" => l.un(UnOp::FRsq, a),
                "exp_f32" => l.lane_fn(LaneFn::Exp2F32, vec![a], Ty::V32),
                "log_f32" => l.lane_fn(LaneFn::Log2F32, vec![a], Ty::V32),
                _ => l.lane_fn(LaneFn::RcpIflagF32, vec![a], Ty::V32),
            })
        }
        "sqrt_f32" => fun(l, UnOp::FSqrt, K::F32),
        "sqrt_f64" => fun(l, UnOp::FSqrt, K::F64),
        "rcp_f32" => fun(l, UnOp::FRcp, K::F32),
        "rcp_f64" => fun(l, UnOp::FRcp, K::F64),
        "rsq_f32" => fun(l, UnOp::FRsq, K::F32),
        "rsq_f64" => fun(l, UnOp::FRsq, K::F64),
        // The GCN "legacy" forms (gfx942/gfx950): the only definition, the Sea Islands guide's
        // "D.f = pow(2.0, S0.f)" / "D.f = log2(S0.f)", is v_exp_f32/v_log_f32's; what they keep
        // from Southern Islands is documented nowhere (ARCHITECTURE "Open ISA questions").
        "exp_f32" | "log_f32" | "exp_legacy_f32" | "log_legacy_f32" | "sin_f32" | "cos_f32"
        | "rcp_iflag_f32" | "frexp_mant_f32" | "frexp_exp_i32_f32" => {
            let f = match base {
                "exp_f32" | "exp_legacy_f32" => LaneFn::Exp2F32,
                "log_f32" | "log_legacy_f32" => LaneFn::Log2F32,
                "sin_f32" => LaneFn::SinF32,
                "cos_f32" => LaneFn::CosF32,
                "rcp_iflag_f32" => LaneFn::RcpIflagF32,
                "frexp_mant_f32" => LaneFn::FrexpMantF32,
                _ => LaneFn::FrexpExpF32,
            };
            let a = l.src(0, K::F32)?;
            let r = l.lane_fn(f, vec![a], Ty::V32);
            let r = if base == "frexp_exp_i32_f32" {
                r
            } else {
                l.fout(r, K::F32)?
            };
            l.vdst32(r)
        }

        // ---- division idiom ----
        "div_scale_f32" | "div_scale_f64" => {
            let k = if base.ends_with("f32") {
                K::F32
            } else {
                K::F64
            };
            let rdna = l.gpu.family() != Some(crate::isa::Family::Gfx9);
            let (fv, ff) = if k == K::F32 && rdna {
                (LaneFn::DivScaleF32Rdna, LaneFn::DivScaleF32RdnaFlag)
            } else if k == K::F32 {
                (LaneFn::DivScaleF32, LaneFn::DivScaleF32Flag)
            } else {
                (LaneFn::DivScaleF64, LaneFn::DivScaleF64Flag)
            };
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let c = l.src(2, k)?;
            let vt = if k.is64() { Ty::V64 } else { Ty::V32 };
            let r = l.lane_fn(fv, vec![a, b, c], vt);
            let flag = l.lane_fn(ff, vec![a, b, c], Ty::V32);
            wr(l, r, k)?;
            write_carry(l, inst, flag)
        }
        "div_fmas_f32" | "div_fmas_f64" => {
            let k = if base.ends_with("f32") {
                K::F32
            } else {
                K::F64
            };
            let f = if k == K::F32 {
                LaneFn::DivFmasF32
            } else {
                LaneFn::DivFmasF64
            };
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let c = l.src(2, k)?;
            let vcc = l.mask_opnd(Opnd::scalar(crate::wave::sreg::VCC_LO, 2))?;
            let bit = l.mask_to_lanes(vcc);
            let vt = if k.is64() { Ty::V64 } else { Ty::V32 };
            let r = l.lane_fn(f, vec![a, b, c, bit], vt);
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }
        "div_fixup_f32" | "div_fixup_f64" => {
            let k = if base.ends_with("f32") {
                K::F32
            } else {
                K::F64
            };
            let f = if k == K::F32 {
                LaneFn::DivFixupF32
            } else {
                LaneFn::DivFixupF64
            };
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let c = l.src(2, k)?;
            let vt = if k.is64() { Ty::V64 } else { Ty::V32 };
            let r = l.lane_fn(f, vec![a, b, c], vt);
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }

        // ---- conversions ----
        "cvt_f32_i32" | "cvt_f32_u32" | "cvt_f32_f64"
            if round_of(l, K::F32) != Round::NearestEven =>
        {
            // Rounded in the f32 MODE direction (the destination's).
            let (op, from) = match base {
                "cvt_f32_i32" => (RoundedOp::I32ToF32, K::B32),
                "cvt_f32_u32" => (RoundedOp::U32ToF32, K::B32),
                _ => (RoundedOp::F64ToF32, K::F64),
            };
            let a = l.src(0, from)?;
            let r = rounded(l, op, K::F32, vec![a]);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "cvt_f32_i32" => conv(l, ConvOp::I32ToF32, K::B32, K::F32),
        "cvt_f32_u32" => conv(l, ConvOp::U32ToF32, K::B32, K::F32),
        "cvt_i32_f32" => conv(l, ConvOp::F32ToI32, K::F32, K::B32),
        "cvt_u32_f32" => conv(l, ConvOp::F32ToU32, K::F32, K::B32),
        "cvt_f64_i32" => conv(l, ConvOp::I32ToF64, K::B32, K::F64),
        "cvt_f64_u32" => conv(l, ConvOp::U32ToF64, K::B32, K::F64),
        "cvt_i32_f64" => conv(l, ConvOp::F64ToI32, K::F64, K::B32),
        "cvt_u32_f64" => conv(l, ConvOp::F64ToU32, K::F64, K::B32),
        "cvt_f64_f32" => conv(l, ConvOp::F32ToF64, K::F32, K::F64),
        "cvt_f32_f64" => conv(l, ConvOp::F64ToF32, K::F64, K::F32),
        "cvt_f32_f16" => conv(l, ConvOp::F16ToF32, K::F16, K::F32),
        "cvt_f16_f32" => {
            // OMOD and clamp apply to the f16 result (`out16`).
            let a = l.src(0, K::F32)?;
            let r = to_f16(l, a);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "cvt_flr_i32_f32" | "cvt_rpi_i32_f32" => {
            // flr: floor(x); rpi: floor(x + 0.5).
            let a = l.src(0, K::F32)?;
            let a = if base == "cvt_rpi_i32_f32" {
                let h = l.cst(a, 0x3f00_0000);
                l.bin(FAdd, a, h)
            } else {
                a
            };
            let f = l.un(UnOp::FFloor, a);
            let r = l.conv(ConvOp::F32ToI32, f);
            l.vdst32(r)
        }
        "cvt_f32_ubyte0" | "cvt_f32_ubyte1" | "cvt_f32_ubyte2" | "cvt_f32_ubyte3" => {
            let n = base.as_bytes()[base.len() - 1] - b'0';
            let a = l.src(0, K::B32)?;
            let s = l.lshr_imm(a, 8 * n as u64);
            let b = l.and_imm(s, 0xff);
            let r = l.conv(ConvOp::U32ToF32, b);
            // A float result: OMOD and clamp apply.
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        "cvt_pkrtz_f16_f32" => {
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let r = l.lane_fn(LaneFn::PkRtzF16F32, vec![a, b], Ty::V32);
            l.vdst32(r)
        }

        // ---- 32-bit integer ----
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
        "min3_i16" | "min3_u16" | "max3_i16" | "max3_u16" | "med3_i16" | "med3_u16" => {
            // The 16-bit halves chosen by op_sel, compared extended to 32 bits; clamp has no
            // effect (the result is one of the sources, see `i3_clamp_free`).
            let signed = base.ends_with("i16");
            let v = srcs16_extended(l, signed)?;
            let (mn, mx) = if signed { (SMin, SMax) } else { (UMin, UMax) };
            let r = match &base[..4] {
                "min3" => {
                    let t = l.bin(mn, v[0], v[1]);
                    l.bin(mn, t, v[2])
                }
                "max3" => {
                    let t = l.bin(mx, v[0], v[1]);
                    l.bin(mx, t, v[2])
                }
                _ => med3(l, v[0], v[1], v[2], mn, mx),
            };
            wr16(l, inst, r)
        }
        "add_i16" | "sub_i16" => {
            // D.i16 = S0.i16 ± S1.i16, exact in 32 bits; clamp saturates to the i16 range
            // (CDNA ISA 6.5), else the low 16 bits.
            let a = l.src(0, K::B16)?;
            let b = l.src(1, K::B16)?;
            let (a, b) = (l.conv(ConvOp::SExt16, a), l.conv(ConvOp::SExt16, b));
            let r = if base == "add_i16" {
                l.add(a, b)
            } else {
                l.bin(Sub, a, b)
            };
            let r = if inst.mods.clamp {
                saturate(l, r, true, 16)
            } else {
                r
            };
            wr16(l, inst, r)
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
        "mad_legacy_f16" | "fma_legacy_f16" | "div_fixup_legacy_f16" => {
            // GFX8 encodings kept on GFX9: the operation without `_legacy`, minus op_sel (GFX8's
            // VOP3 has no such field and LLVM accepts none here), so the result is written to
            // the low half with zeros above.
            let mut plain = *inst;
            plain.mods.op_sel = 0;
            let saved = l.inst;
            l.inst = Some(plain);
            let r = f16_three(l, &plain, base);
            l.inst = saved;
            r
        }
        "clrexcp" => {
            // Clears the SIMD's float exception state: wavejit records none (TRAPSTS.EXCP is
            // never set), so nothing observable changes.
            Ok(())
        }
        "bitop3_b16" => {
            // The truth table on the 16-bit halves chosen by op_sel[2:0]; the result into the
            // half op_sel[3] (CDNA4 ISA, V_BITOP3_B16).
            let table = inst.imm as u8;
            let mut v = Vec::with_capacity(3);
            for i in 0..3 {
                v.push(l.src(i, K::B16)?);
            }
            let r = bitop3(l, table, v[0], v[1], v[2]);
            let r = l.and_imm(r, 0xffff);
            wr16(l, inst, r)
        }
        "sat_pk_u8_i16" => {
            // D.b16 = {SAT8(S0[31:16].i16), SAT8(S0[15:0].i16)}, SAT8 clamping to 0..=255
            // (RDNA4 ISA pseudocode, V_SAT_PK_U8_I16; the CDNA opcode is the same).
            no_clamp(inst)?;
            let a = l.src(0, K::B32)?;
            let sat8 = |l: &mut Lifter, h: Val| {
                let x = l.conv(ConvOp::SExt16, h);
                let z = l.cst(x, 0);
                let m = l.cst(x, 255);
                let t = l.bin(SMax, x, z);
                l.bin(SMin, t, m)
            };
            let lo = sat8(l, a);
            let h = l.lshr_imm(a, 16);
            let hi = sat8(l, h);
            let hi = l.shl_imm(hi, 8);
            let r = l.or(lo, hi);
            wr16(l, inst, r)
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
        "cndmask_b32" => {
            // D = VCC[lane] ? S1 : S0 (mask from src2); abs/neg act on the bits, no flushing.
            l.no_flush = true;
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let m = l.mask_opnd(inst.src[2])?;
            let r = l.select(m, b, a);
            l.vdst32(r)
        }

        // ---- 16-bit integer and float (low halves; result zero-extended on GFX9) ----
        "add_u16" | "sub_u16" | "subrev_u16" | "mul_lo_u16" | "lshlrev_b16" | "lshrrev_b16"
        | "ashrrev_i16" | "max_u16" | "max_i16" | "min_u16" | "min_i16" => {
            // Clamp saturates the unsigned add/sub to 0..=0xffff (CDNA ISA 6.5, RDNA4 ISA
            // 7.2.3.1: "Unsigned int [0, UINT_MAX]"); not lifted for the others.
            let sat = matches!(base, "add_u16" | "sub_u16" | "subrev_u16");
            if !sat {
                no_clamp(inst)?;
            }
            let a = l.src(0, K::B16)?;
            let b = l.src(1, K::B16)?;
            let (a, b) = if base.contains("rev") { (b, a) } else { (a, b) };
            let signed = base.ends_with("i16");
            let (a, b) = if signed {
                (l.conv(ConvOp::SExt16, a), l.conv(ConvOp::SExt16, b))
            } else {
                (l.conv(ConvOp::ZExt16, a), l.conv(ConvOp::ZExt16, b))
            };
            let r = match base {
                "add_u16" => l.add(a, b),
                "sub_u16" | "subrev_u16" => l.bin(Sub, a, b),
                "mul_lo_u16" => l.bin(Mul, a, b),
                "lshlrev_b16" | "lshrrev_b16" | "ashrrev_i16" => {
                    let s = l.and_imm(b, 15);
                    let op = match base {
                        "lshlrev_b16" => Shl,
                        "lshrrev_b16" => LShr,
                        _ => AShr,
                    };
                    // `a` is already extended to 32 bits; the amount is at most 15.
                    l.bin(op, a, s)
                }
                "max_u16" => l.bin(UMax, a, b),
                "max_i16" => l.bin(SMax, a, b),
                "min_u16" => l.bin(UMin, a, b),
                _ => l.bin(SMin, a, b),
            };
            // `r` is exact in 32 bits (a borrow makes it negative).
            let r = if sat && inst.mods.clamp {
                let zero = l.cst(r, 0);
                let max = l.cst(r, 0xffff);
                let t = l.bin(SMax, r, zero);
                l.bin(SMin, t, max)
            } else {
                r
            };
            wr16(l, inst, r)
        }
        "add_f16" | "sub_f16" | "subrev_f16" | "mul_f16" | "max_f16" | "min_f16" => {
            // Computed in f32 and rounded once to f16: exact for these operations, since f32
            // holds every f16 sum, difference and product exactly or with a single rounding
            // that cannot cause a double-rounding error (24 >= 2 * 11 + 2).
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let (a, b) = if base == "subrev_f16" { (b, a) } else { (a, b) };
            let r = match base {
                "add_f16" => f16_arith(l, RoundedOp::AddF16, vec![a, b]),
                "sub_f16" | "subrev_f16" => f16_arith(l, RoundedOp::SubF16, vec![a, b]),
                "mul_f16" => f16_arith(l, RoundedOp::MulF16, vec![a, b]),
                _ => fminmax(l, base == "max_f16", K::F16, a, b),
            };
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "mad_u16" | "mad_i16" if inst.mods.clamp => {
            // Clamp saturates the exact S0 * S1 + S2 (|S0 * S1| <= 2^30, exact in 32 bits)
            // to the 16-bit range (CDNA ISA 6.5, RDNA4 ISA 7.2.3.1).
            let signed = base == "mad_i16";
            let v = srcs16_extended(l, signed)?;
            let p = l.bin(Mul, v[0], v[1]);
            let r = l.add(p, v[2]);
            let r = saturate(l, r, signed, 16);
            wr16_gfx9_opsel(l, inst, r, false)
        }
        "mad_u16" | "mad_legacy_u16" | "mad_i16" | "mad_legacy_i16" => {
            no_clamp(inst)?;
            let a = l.src(0, K::B16)?;
            let b = l.src(1, K::B16)?;
            let c = l.src(2, K::B16)?;
            let p = l.bin(Mul, a, b);
            let r = l.add(p, c);
            wr16_gfx9_opsel(l, inst, r, base.contains("legacy"))
        }
        "pk_add_f32" | "pk_mul_f32" | "pk_fma_f32" | "pk_mov_b32" => pk_f32(l, inst, base),
        "cvt_pk_fp8_f32" | "cvt_pk_bf8_f32" => {
            // D.word[op_sel[3]] = {cvt(S1), cvt(S0)}, the other word kept; nearest even
            // (CDNA4 ISA table 31); FP16_OVFL saturates (the encoding has no clamp bit).
            let bf8 = base.contains("bf8");
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
            super::rdna_ops::write16(l, inst, w)
        }
        "cvt_pk_f16_f32" | "cvt_pk_bf16_f32" => {
            // gfx950: D = {cvt(S1), cvt(S0)}; f16 in the f16 MODE direction with FP16_OVFL
            // and output flushing, bf16 in the f32 direction.
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let (lo, hi) = if base == "cvt_pk_f16_f32" {
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
        "cvt_f32_bf16" => {
            // The bf16 in the low half (or the SDWA-selected word) is the top of an f32.
            let a = l.src(0, K::B32)?;
            let a = l.and_imm(a, 0xffff);
            let r = l.shl_imm(a, 16);
            l.vdst32(r)
        }
        "cvt_sr_f16_f32" | "cvt_sr_bf16_f32" => {
            // Stochastic rounding with the random S1 into the half op_sel[3] of D, the other
            // half kept (CDNA4 ISA 7.3).
            let (op, k) = if base == "cvt_sr_f16_f32" {
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
        "cvt_sr_fp8_f32" | "cvt_sr_bf8_f32" => {
            // Stochastic rounding with the random S1; the byte op_sel[3:2] of D is written,
            // the others kept (CDNA4 ISA 7.3).
            let bf8 = base.contains("bf8");
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
        "cvt_f32_fp8" | "cvt_f32_bf8" => {
            // FNUZ formats on gfx942, OCP on gfx950; the byte comes from the SDWA select (byte 0
            // otherwise).
            if inst.mods.op_sel != 0 {
                return Err("op_sel byte selection is not supported".into());
            }
            let a = l.src(0, K::B32)?;
            let ocp = is_ocp(l);
            let r = f8_to_f32(l, a, base.ends_with("bf8"), ocp);
            l.vdst32(r)
        }
        "cvt_pk_f32_fp8" | "cvt_pk_f32_bf8" => {
            // Bytes 0 and 1 (the word chosen by SDWA) to a register pair.
            if inst.mods.op_sel != 0 {
                return Err("op_sel word selection is not supported".into());
            }
            let a = l.src(0, K::B32)?;
            let bf8 = base.ends_with("bf8");
            let ocp = is_ocp(l);
            let lo = f8_to_f32(l, a, bf8, ocp);
            let b1 = l.lshr_imm(a, 8);
            let hi = f8_to_f32(l, b1, bf8, ocp);
            let v = l.pack(lo, hi);
            l.vdst64(v)
        }
        "cvt_f16_u16" | "cvt_f16_i16" => {
            // 16-bit integers are exact in f32, so one rounding to f16.
            let a = l.src(0, K::B16)?;
            let (e, c) = if base == "cvt_f16_i16" {
                (ConvOp::SExt16, ConvOp::I32ToF32)
            } else {
                (ConvOp::ZExt16, ConvOp::U32ToF32)
            };
            let a = l.conv(e, a);
            let r = if round_of(l, K::F16) == Round::NearestEven && !fp16_ovfl(l) {
                let f = l.conv(c, a);
                l.conv(ConvOp::F32ToF16, f)
            } else {
                let op = if base == "cvt_f16_i16" {
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
        "cvt_u16_f16" | "cvt_i16_f16" => {
            // Toward zero, saturating to the 16-bit range; NaN gives 0.
            let a = l.src(0, K::F16)?;
            let f = l.conv(ConvOp::F16ToF32, a);
            let r = if base == "cvt_u16_f16" {
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
        "cvt_pk_u16_u32" | "cvt_pk_i16_i32" => {
            // D = {sat16(S1), sat16(S0)}.
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let sat = |l: &mut Lifter, x: Val| -> Val {
                if base == "cvt_pk_u16_u32" {
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
        "sad_u32" => i3(l, inst, K::B32, |l, a, b, c| {
            // |S0 - S1| (unsigned) + S2.
            let mx = l.bin(UMax, a, b);
            let mn = l.bin(UMin, a, b);
            let d = l.bin(Sub, mx, mn);
            l.add(d, c)
        }),
        "frexp_mant_f64" | "frexp_exp_i32_f64" => frexp64(l, base == "frexp_mant_f64"),
        "trig_preop_f64" => {
            let a = l.src(0, K::F64)?;
            let b = l.src(1, K::B32)?;
            let r = l.lane_fn(LaneFn::TrigPreopF64, vec![a, b], Ty::V64);
            let r = l.fout(r, K::F64)?;
            l.vdst64(r)
        }
        "permlane16_swap_b32" | "permlane32_swap_b32" => super::permlane_swap::lift(l, inst, base),
        "swap_b32" => {
            // Exchanges two VGPRs in the active lanes.
            let d = inst.dst[0]
                .vreg()
                .ok_or("v_swap_b32 destination is not a VGPR")?;
            let s = inst.src[0]
                .vreg()
                .ok_or("v_swap_b32 source is not a VGPR")?;
            let a = l.get_vreg(d)?;
            let b = l.get_vreg(s)?;
            let m = l.exec();
            l.set_vreg(d, b, m)?;
            l.set_vreg(s, a, m)
        }
        "pack_b32_f16" => {
            // D = {S1.f16, S0.f16} (halves chosen by op_sel; abs/neg act on the sign bit).
            l.no_flush = true;
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let lo = l.and_imm(a, 0xffff);
            let hi = l.shl_imm(b, 16);
            let r = l.or(lo, hi);
            l.vdst32(r)
        }
        "dot2_i32_i16" | "dot2_u32_u16" | "dot4_i32_i8" | "dot4_u32_u8" | "dot8_i32_i4"
        | "dot8_u32_u4" | "dot2c_i32_i16" | "dot4c_i32_i8" | "dot8c_i32_i4" => {
            // D = S2 + sum of the products of the packed elements: wrapping, or with clamp
            // the exact sum saturated to the i32/u32 range (CDNA ISA 6.5; LLVM's sdot/udot
            // clamp operand). LLVM's assembler rejects op_sel on the VOP3P forms (its meaning
            // is undefined), so non-default selects are not lifted there; in the VOP3 form of
            // `dot*c` the field selects 16-bit halves only, and these operands are 32-bit
            // (CDNA ISA 6.2.1; LLVM has no op_sel operand for it), so it is ignored.
            if inst.format == crate::isa::Format::Vop3p {
                dot_default_sel(inst)?;
            }
            let (bits, n) = if base.starts_with("dot2") {
                (16u64, 2u64)
            } else if base.starts_with("dot4") {
                (8, 4)
            } else {
                (4, 8)
            };
            let signed = base.contains("_i32_");
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let acc = if base.contains("c_") {
                acc_src(l, inst, K::B32)?
            } else {
                l.src(2, K::B32)?
            };
            // With clamp the sum is formed in 64 bits (exact), else in 32 (wrapping).
            let clamp = inst.mods.clamp;
            let wide = |l: &mut Lifter, v: Val| {
                if !clamp {
                    v
                } else if signed {
                    l.conv(ConvOp::SExt, v)
                } else {
                    l.conv(ConvOp::ZExt, v)
                }
            };
            let mut acc = wide(l, acc);
            for i in 0..n {
                let ext = |l: &mut Lifter, v: Val| -> Val {
                    // Element i, sign- or zero-extended from `bits`.
                    let t = l.shl_imm(v, 32 - bits * (i + 1));
                    if signed {
                        l.ashr_imm(t, 32 - bits)
                    } else {
                        l.lshr_imm(t, 32 - bits)
                    }
                };
                let x = ext(l, a);
                let y = ext(l, b);
                // The product is exact in 32 bits (as an i32 for signed, a u32 for unsigned).
                let p = l.bin(Mul, x, y);
                let p = wide(l, p);
                acc = l.add(acc, p);
            }
            if clamp {
                let (lo, hi) = if signed {
                    (i32::MIN as i64 as u64, i32::MAX as u64)
                } else {
                    (0, u32::MAX as u64)
                };
                let lo = l.cst(acc, lo);
                let hi = l.cst(acc, hi);
                let t = l.bin(SMax, acc, lo);
                let t = l.bin(SMin, t, hi);
                acc = l.conv(ConvOp::Lo, t);
            }
            l.vdst32(acc)
        }
        "pk_add_f16" | "pk_mul_f16" | "pk_max_f16" | "pk_min_f16" | "pk_fma_f16" | "pk_add_u16"
        | "pk_add_i16" | "pk_sub_u16" | "pk_sub_i16" | "pk_mul_lo_u16" | "pk_max_u16"
        | "pk_max_i16" | "pk_min_u16" | "pk_min_i16" | "pk_lshlrev_b16" | "pk_lshrrev_b16"
        | "pk_ashrrev_i16" | "pk_mad_u16" | "pk_mad_i16" | "pk_maximum3_f16"
        | "pk_minimum3_f16" => pk16(l, inst, base),
        "dot2_f32_f16" | "dot2c_f32_f16" => {
            // D = S0.h[0] * S1.h[0] + S0.h[1] * S1.h[1] + S2 (dot2c: + D), one rounding to
            // nearest even, denormals flushed (V_DOT2 ignores MODE: CDNA ISA 6.4).
            let m = inst.mods;
            let (a, b, c) = if base == "dot2c_f32_f16" {
                let a = l.src(0, K::B32)?;
                let b = l.src(1, K::B32)?;
                let c = acc_src(l, inst, K::B32)?;
                (a, b, c)
            } else {
                if m.neg_hi & 4 != 0 {
                    return Err("neg_hi on the f32 source of v_dot2".into());
                }
                dot_default_sel(inst)?;
                let mut ab = Vec::new();
                for i in 0..2 {
                    // The low and high halves (an inline constant or literal is used for both).
                    let mut lo = half_src(l, inst, i, 0, K::F16)?;
                    let mut hi = half_src(l, inst, i, 1, K::F16)?;
                    if m.neg >> i & 1 != 0 {
                        let f = l.cst(lo, 0x8000);
                        lo = l.xor(lo, f);
                    }
                    if m.neg_hi >> i & 1 != 0 {
                        let f = l.cst(hi, 0x8000);
                        hi = l.xor(hi, f);
                    }
                    let hi = l.shl_imm(hi, 16);
                    ab.push(l.or(lo, hi));
                }
                let c = l.v32(inst.src[2], K::F32)?;
                let c = if m.neg & 4 != 0 {
                    l.un(UnOp::FNeg, c)
                } else {
                    c
                };
                (ab[0], ab[1], c)
            };
            let f = LaneFn::Rounded(RoundedOp::Dot2F32F16, Round::NearestEven, false);
            let r = l.lane_fn(f, vec![a, b, c], Ty::V32);
            let r = if m.clamp {
                let z = l.cst(r, 0);
                let o = l.cst(r, 0x3f80_0000);
                let t = l.bin(FMaxNum, r, z);
                l.bin(FMinNum, t, o)
            } else {
                r
            };
            l.vdst32(r)
        }
        "pk_fmac_f16" => {
            // D.h = fma(S0.h, S1.h, D.h) for both halves (no op_sel on this VOP2).
            let a = l.src(0, K::B32)?;
            let b = l.src(1, K::B32)?;
            let c = acc_src(l, inst, K::B32)?;
            let mut halves = Vec::new();
            for h in 0..2u64 {
                let [x, y, z] = [a, b, c].map(|v| {
                    let t = if h == 1 { l.lshr_imm(v, 16) } else { v };
                    let t = l.and_imm(t, 0xffff);
                    if l.denorm_allowed(K::F16, 1) {
                        t
                    } else {
                        l.flush_denorm(t, K::F16)
                    }
                });
                halves.push(f16_arith(l, RoundedOp::FmaF16, vec![x, y, z]));
            }
            let hi = l.shl_imm(halves[1], 16);
            let r = l.or(halves[0], hi);
            l.vdst32(r)
        }
        "mac_f16" | "madak_f16" | "madmk_f16" => {
            // Unfused: the product rounded to f16, then the sum (as v_mad_f16); mac adds to
            // the destination, madak/madmk take the literal K as an operand.
            let a = l.src(0, K::F16)?;
            let b = l.src(1, K::F16)?;
            let c = if base == "mac_f16" {
                acc_src(l, inst, K::F16)?
            } else {
                l.src(2, K::F16)?
            };
            let p = f16_arith(l, RoundedOp::MulF16, vec![a, b]);
            let r = f16_arith(l, RoundedOp::AddF16, vec![p, c]);
            let r = out16(l, inst, r)?;
            wr16(l, inst, r)
        }
        "div_fixup_f16" | "fma_f16" | "mad_f16" => f16_three(l, inst, base),
        "fma_mix_f32" | "fma_mixlo_f16" | "fma_mixhi_f16" | "mad_mix_f32" | "mad_mixlo_f16"
        | "mad_mixhi_f16" => fma_mix(l, inst, base),
        _ if base.starts_with("cvt_scalef32_") => {
            super::scale_cvt::lift(l, inst, &base["cvt_scalef32_".len()..])
        }
        _ => Err("not supported".into()),
    }
}

/// `v_div_fixup_f16`, `v_fma_f16`, `v_mad_f16` and their GFX8 encodings `*_legacy_f16`
/// (`base` names which).
fn f16_three(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let legacy = base.contains("legacy");
    if base.starts_with("div_fixup") {
        // V_DIV_FIXUP_F16 pseudocode (quotient S0, denominator S1, numerator S2) on bits:
        // NaNs (S2 first) quieted, 0/0 and inf/inf give 0xfe00, x/0 and inf/y ±Inf,
        // x/inf and 0/y ±0, else S0 with the sign of S1 ^ S2.
        let q = l.src(0, K::F16)?;
        let d = l.src(1, K::F16)?;
        let n = l.src(2, K::F16)?;
        let x = l.xor(d, n);
        let sign = l.and_imm(x, 0x8000);
        let mag = |l: &mut Lifter, v: Val, c: u64| {
            let m = l.and_imm(v, 0x7fff);
            let k = l.cst(m, c);
            l.cmp(CmpOp::Eq, m, k)
        };
        let (dz, nz) = (mag(l, d, 0), mag(l, n, 0));
        let (di, ni) = (mag(l, d, 0x7c00), mag(l, n, 0x7c00));
        let nd = nan_mask(l, d, K::F16);
        let nn = nan_mask(l, n, K::F16);
        let qm = l.and_imm(q, 0x7fff);
        let r = l.or(sign, qm);
        let to_zero = l.or(di, nz);
        let r = l.select(to_zero, sign, r);
        let to_inf = l.or(dz, ni);
        let inf = l.cst(sign, 0x7c00);
        let sinf = l.or(sign, inf);
        let r = l.select(to_inf, sinf, r);
        let zz = l.and(dz, nz);
        let ii = l.and(di, ni);
        let invalid = l.or(zz, ii);
        let dnan = l.cst(r, 0xfe00);
        let r = l.select(invalid, dnan, r);
        let qc = l.cst(d, 0x200);
        let qd = l.or(d, qc);
        let qd = l.and_imm(qd, 0xffff);
        let r = l.select(nd, qd, r);
        let qn = l.or(n, qc);
        let qn = l.and_imm(qn, 0xffff);
        let r = l.select(nn, qn, r);
        let r = out16(l, inst, r)?;
        wr16_gfx9_opsel(l, inst, r, legacy)
    } else {
        // fma: one rounding of the exact a*b + c; mad (unfused): the product rounded to
        // f16, then the sum.
        let mut v = Vec::new();
        for i in 0..3 {
            v.push(l.src(i, K::F16)?);
        }
        let r = if base.starts_with("fma") {
            f16_arith(l, RoundedOp::FmaF16, v)
        } else {
            let p = f16_arith(l, RoundedOp::MulF16, vec![v[0], v[1]]);
            f16_arith(l, RoundedOp::AddF16, vec![p, v[2]])
        };
        let r = out16(l, inst, r)?;
        wr16_gfx9_opsel(l, inst, r, legacy)
    }
}

/// The accumulator of `v_fmac`/`v_mac`: the destination register's current value.
fn acc_src(l: &mut Lifter, inst: &Inst, k: K) -> R<Val> {
    if inst.src[2].is_some() {
        return l.src(2, k);
    }
    let o = inst.dst[0];
    if k.is64() {
        l.v64(o, k)
    } else {
        l.v32(o, k)
    }
}

/// `conv` from a source of kind `from` to a result of kind `to`.
fn conv(l: &mut Lifter, op: ConvOp, from: K, to: K) -> R<()> {
    let a = l.src(0, from)?;
    let r = l.conv(op, a);
    let r = if to.is_float() { l.fout(r, to)? } else { r };
    wr(l, r, to)
}

/// Median of three: `max(min(a, b), min(max(a, b), c))`.
fn med3(l: &mut Lifter, a: Val, b: Val, c: Val, mn: BinOp, mx: BinOp) -> Val {
    let lo = l.bin(mn, a, b);
    let hi = l.bin(mx, a, b);
    let t = l.bin(mn, hi, c);
    l.bin(mx, lo, t)
}

/// `v_perm_b32 D, S0, S1, S2`: byte `i` of D is chosen by byte `i` of S2 from the 8 bytes
/// `{S0, S1}` (S1 = bytes 0..3): 0..=7 that byte, 8..=11 the sign bit of byte 1/3/5/7
/// replicated, 12 zero, 13..=255 0xff.
fn perm(l: &mut Lifter, _inst: &Inst) -> R<()> {
    let a = l.src(0, K::B32)?;
    let b = l.src(1, K::B32)?;
    let sel = l.src(2, K::B32)?;
    let r = l.tern(TernOp::Perm, a, b, sel);
    l.vdst32(r)
}

/// The two dwords of a packed-f32 (VOP3P) source: a register pair, or a scalar/constant
/// used for both halves (an SGPR pair gives its two registers).
fn pk_src(l: &mut Lifter, inst: &Inst, i: usize) -> R<[Val; 2]> {
    let o = inst.src[i];
    if let Some(r) = o.vreg() {
        let lo = l.get_vreg(r)?;
        let hi = l.get_vreg(r + 1)?;
        return Ok([lo, hi]);
    }
    if let Some(r) = o.sreg() {
        let _ = r;
        let v = l.s64(o, K::B64)?;
        let lo = l.lo(v);
        let hi = l.hi(v);
        return Ok([l.bcast(lo), l.bcast(hi)]);
    }
    let c = l.v32(o, K::F32)?;
    Ok([c, c])
}

/// `v_pk_{add,mul,fma}_f32`, `v_pk_mov_b32` (gfx90a+ VOP3P on 64-bit register pairs): the low
/// result takes dword `op_sel[i]` of each source, the high result dword `op_sel_hi[i]`;
/// `neg_lo`/`neg_hi` negate the selected operands of the low/high halves.
fn pk_f32(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let n = match base {
        "pk_fma_f32" => 3,
        "pk_mov_b32" => 2,
        _ => 2,
    };
    let mut srcs = Vec::new();
    for i in 0..n {
        srcs.push(pk_src(l, inst, i)?);
    }
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let m = inst.mods;
    let mut out = [None, None];
    for (half, slot) in out.iter_mut().enumerate() {
        let sel = if half == 0 { m.op_sel } else { m.op_sel_hi };
        let neg = if half == 0 { m.neg } else { m.neg_hi };
        let mut ops = Vec::new();
        for (i, s) in srcs.iter().enumerate() {
            let mut x = s[(sel >> i & 1) as usize];
            if base != "pk_mov_b32" && neg >> i & 1 != 0 {
                x = l.un(UnOp::FNeg, x);
            }
            ops.push(x);
        }
        let r = match base {
            "pk_add_f32" => farith(l, FAdd, K::F32, ops[0], ops[1]),
            "pk_mul_f32" => farith(l, FMul, K::F32, ops[0], ops[1]),
            "pk_fma_f32" => ffma(l, K::F32, ops[0], ops[1], ops[2]),
            // v_pk_mov_b32: D.lo = src0[op_sel[0]], D.hi = src1[op_sel[1]].
            _ => srcs[half][(m.op_sel >> half & 1) as usize],
        };
        let r = if m.clamp && base != "pk_mov_b32" {
            let z = l.cst(r, 0);
            let o = l.cst(r, 0x3f80_0000);
            let t = l.bin(FMaxNum, r, z);
            l.bin(FMinNum, t, o)
        } else {
            r
        };
        *slot = Some(r);
    }
    let w = l.wmask();
    for (half, r) in out.into_iter().enumerate() {
        let r = r.ok_or("missing half")?;
        l.set_vreg(reg + half as u16, r, w)?;
    }
    Ok(())
}

/// Half `h` (0 = low, 1 = high) of a packed 16-bit source: VGPR/SGPR bits, or an inline
/// constant or literal replicated into both halves.
fn half_src(l: &mut Lifter, inst: &Inst, i: usize, h: u8, k: K) -> R<Val> {
    let o = inst.src[i];
    let v = if o.vreg().is_some() || o.sreg().is_some() {
        l.v32(o, K::B32)?
    } else {
        l.v32(o, k)?
    };
    let v = if h == 1 && (o.vreg().is_some() || o.sreg().is_some()) {
        l.lshr_imm(v, 16)
    } else {
        v
    };
    Ok(l.and_imm(v, 0xffff))
}

/// VOP3P packed 16-bit ops: the low result uses half `op_sel[i]` of each source and `neg`,
/// the high result half `op_sel_hi[i]` and `neg_hi`. Float ops are computed in f32 (exact
/// before the single rounding to f16 for add/mul/min/max; FMA may double-round in rare ties).
fn pk16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let m = inst.mods;
    let float = base.ends_with("f16");
    let n = if base.contains("fma") || base.contains("mad") || base.contains("imum3") {
        3
    } else {
        2
    };
    let op = base.strip_prefix("pk_").unwrap_or(base);
    let op = op.rsplit_once('_').map(|x| x.0).unwrap_or(op);
    let signed = base.ends_with("i16");
    let mut halves = [None, None];
    for (h, slot) in halves.iter_mut().enumerate() {
        let sel = if h == 0 { m.op_sel } else { m.op_sel_hi };
        let neg = if h == 0 { m.neg } else { m.neg_hi };
        let mut ops = Vec::new();
        for i in 0..n {
            let k = if float { K::F16 } else { K::B16 };
            let mut x = half_src(l, inst, i, sel >> i & 1, k)?;
            if float {
                if neg >> i & 1 != 0 {
                    let c = l.cst(x, 0x8000);
                    x = l.xor(x, c);
                }
                // MODE.FP_DENORM input flushing (f64/f16 field).
                if !l.denorm_allowed(K::F16, 1) {
                    x = l.flush_denorm(x, K::F16);
                }
            } else if signed {
                x = l.conv(ConvOp::SExt16, x);
            }
            ops.push(x);
        }
        let r = if float {
            // f16 bits in the low halves; min/max compare in f32 (exact).
            let r = match op {
                "add" => f16_arith(l, RoundedOp::AddF16, ops.clone()),
                "mul" => f16_arith(l, RoundedOp::MulF16, ops.clone()),
                "max" | "min" => fminmax(l, op == "max", K::F16, ops[0], ops[1]),
                "maximum3" | "minimum3" => {
                    let max = op == "maximum3";
                    let t = fmaximum(l, max, K::F16, ops[0], ops[1]);
                    fmaximum(l, max, K::F16, t, ops[2])
                }
                _ => f16_arith(l, RoundedOp::FmaF16, ops.clone()),
            };
            if m.clamp {
                clamp16(l, r)
            } else {
                r
            }
        } else {
            if m.clamp && matches!(op, "mul_lo" | "lshlrev" | "lshrrev" | "ashrrev") {
                // The ISA's integer clamp (saturate to the representable range, CDNA ISA 6.5)
                // does not say what range a low product or a shift saturates to.
                return Err("clamp on a packed mul_lo or shift is not supported".into());
            }
            let r = match op {
                "add" => l.add(ops[0], ops[1]),
                "sub" => l.bin(Sub, ops[0], ops[1]),
                "mul_lo" => l.bin(Mul, ops[0], ops[1]),
                "max" if signed => l.bin(SMax, ops[0], ops[1]),
                "max" => l.bin(UMax, ops[0], ops[1]),
                "min" if signed => l.bin(SMin, ops[0], ops[1]),
                "min" => l.bin(UMin, ops[0], ops[1]),
                "lshlrev" | "lshrrev" | "ashrrev" => {
                    let s = l.and_imm(ops[0], 15);
                    let o = match op {
                        "lshlrev" => Shl,
                        "lshrrev" => LShr,
                        _ => AShr,
                    };
                    l.bin(o, ops[1], s)
                }
                _ => {
                    let p = l.bin(Mul, ops[0], ops[1]);
                    l.add(p, ops[2])
                }
            };
            // `r` is exact in 32 bits (i32 for signed ops); clamp saturates it to 16 bits
            // (CDNA ISA 6.5); min/max results are always in range.
            let r = match (m.clamp, signed, op) {
                (false, ..) | (_, _, "max" | "min") => r,
                (true, true, _) => {
                    let lo = l.cst(r, 0xffff_8000);
                    let hi = l.cst(r, 0x7fff);
                    let t = l.bin(SMax, r, lo);
                    l.bin(SMin, t, hi)
                }
                (true, false, _) => {
                    // A difference below zero saturates to 0; sums and mads are not negative.
                    let t = if op == "sub" {
                        let z = l.cst(r, 0);
                        l.bin(SMax, r, z)
                    } else {
                        r
                    };
                    let hi = l.cst(t, 0xffff);
                    l.bin(UMin, t, hi)
                }
            };
            l.and_imm(r, 0xffff)
        };
        *slot = Some(r);
    }
    let lo = halves[0].ok_or("missing half")?;
    let hi = halves[1].ok_or("missing half")?;
    let hi = l.shl_imm(hi, 16);
    let r = l.or(lo, hi);
    l.vdst32(r)
}

/// `v_fma_mix_f32` / `v_fma_mixlo_f16` / `v_fma_mixhi_f16` (and the `mad` forms): each source
/// is f32, or with `op_sel_hi[i]` an f16 taken from half `op_sel[i]`; `neg` negates and
/// `neg_hi` takes the absolute value of source i. The f32 result is written whole, or
/// rounded to f16 into the low/high half (the other half kept).
fn fma_mix(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let m = inst.mods;
    let mut ops = Vec::new();
    for i in 0..3 {
        let o = inst.src[i];
        let mut x = if m.op_sel_hi >> i & 1 != 0 {
            let v = if o.vreg().is_some() || o.sreg().is_some() {
                let v = l.v32(o, K::B32)?;
                if m.op_sel >> i & 1 != 0 {
                    l.lshr_imm(v, 16)
                } else {
                    v
                }
            } else {
                l.v32(o, K::F16)?
            };
            let v = l.and_imm(v, 0xffff);
            // MODE.FP_DENORM input flushing of f16 (f64/f16 field) and f32 sources.
            let v = if l.denorm_allowed(K::F16, 1) {
                v
            } else {
                l.flush_denorm(v, K::F16)
            };
            l.conv(ConvOp::F16ToF32, v)
        } else {
            let v = l.v32(o, K::F32)?;
            if l.denorm_allowed(K::F32, 1) {
                v
            } else {
                l.flush_denorm(v, K::F32)
            }
        };
        if m.neg_hi >> i & 1 != 0 {
            x = l.un(UnOp::FAbs, x);
        }
        if m.neg >> i & 1 != 0 {
            x = l.un(UnOp::FNeg, x);
        }
        ops.push(x);
    }
    let clamp = |l: &mut Lifter, r: Val| -> Val {
        let z = l.cst(r, 0);
        let o = l.cst(r, 0x3f80_0000);
        let t = l.bin(FMaxNum, r, z);
        l.bin(FMinNum, t, o)
    };
    let fma = base.starts_with("fma");
    if base.ends_with("f32") {
        // The f32 result rounds in the f32 MODE direction.
        let r = if fma {
            ffma(l, K::F32, ops[0], ops[1], ops[2])
        } else {
            let p = farith(l, FMul, K::F32, ops[0], ops[1]);
            farith(l, FAdd, K::F32, p, ops[2])
        };
        let r = if m.clamp { clamp(l, r) } else { r };
        let r = if l.denorm_allowed(K::F32, 2) {
            r
        } else {
            l.flush_denorm(r, K::F32)
        };
        return l.vdst32(r);
    }
    // f16 result: the FMA rounds once to f16 (f16 MODE direction, FP16_OVFL); the unfused
    // mad rounds the f32 product, then the sum to f16 (nearest even only).
    let h = if fma {
        let h = rounded(l, RoundedOp::FmaF32ToF16, K::F16, ops.clone());
        f16out(l, h)
    } else {
        if round_of(l, K::F16) != Round::NearestEven || round_of(l, K::F32) != Round::NearestEven {
            return Err("v_mad_mix with a directed MODE rounding is not supported".into());
        }
        let p = l.bin(FMul, ops[0], ops[1]);
        let r = l.bin(FAdd, p, ops[2]);
        to_f16(l, r)
    };
    let h = if m.clamp { clamp16(l, h) } else { h };
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let v = if base.contains("mixhi") {
        let keep = l.and_imm(old, 0xffff);
        let hi = l.shl_imm(h, 16);
        l.or(keep, hi)
    } else {
        let keep = l.and_imm(old, 0xffff_0000);
        l.or(keep, h)
    };
    l.vdst32(v)
}

/// Source `i` of a VOP3 instruction, or, when the decoder left it out, the 9-bit SRC field
/// of the second instruction word (bits `9*i..9*i+9`), for the lane-select operands of
/// `v_readlane_b32`/`v_writelane_b32`.
fn vop3_src_or(inst: &Inst, i: usize) -> Opnd {
    if inst.src[i].is_some() || inst.format != crate::isa::Format::Vop3 {
        return inst.src[i];
    }
    let code = (inst.words[1] >> (9 * i)) & 0x1ff;
    Opnd {
        code: code as u16,
        count: 1,
    }
}

/// `v_frexp_mant_f64` (mantissa in [0.5, 1) with the sign; NaN, Inf and zero unchanged) and
/// `v_frexp_exp_i32_f64` (`e` with `x = mant * 2^e`; 0 for NaN, Inf and zero), denormals
/// normalised through a leading-zero count.
fn frexp64(l: &mut Lifter, mant: bool) -> R<()> {
    let x = l.src(0, K::F64)?;
    let e = l.lshr_imm(x, 52);
    let e = l.and_imm(e, 0x7ff);
    let m = l.and_imm(x, (1u64 << 52) - 1);
    let z = l.cst(e, 0);
    let emax = l.cst(e, 0x7ff);
    let is_max = l.cmp(CmpOp::Eq, e, emax);
    let e0 = l.cmp(CmpOp::Eq, e, z);
    let m0 = l.cmp(CmpOp::Eq, m, z);
    let zero = l.and(e0, m0);
    let special = l.or(is_max, zero);
    let clz = l.un(UnOp::Clz, m);
    if mant {
        // Denormal: m << (clz - 11) puts the leading one at bit 52.
        let sh = l.add_imm(clz, (-11i64) as u64);
        let m2 = l.bin(Shl, m, sh);
        let m2 = l.and_imm(m2, (1u64 << 52) - 1);
        let bits = l.select(e0, m2, m);
        let sign = l.and_imm(x, 1u64 << 63);
        let t = l.or(sign, bits);
        let half = l.cst(t, 1022u64 << 52);
        let r = l.or(t, half);
        let r = l.select(special, x, r);
        let r = l.fout(r, K::F64)?;
        l.vdst64(r)
    } else {
        // Normal: e - 1022; denormal: -1010 - clz(m).
        let en = l.add_imm(e, (-1022i64) as u64);
        let c = l.cst(clz, (-1010i64) as u64);
        let ed = l.bin(Sub, c, clz);
        let r = l.select(e0, ed, en);
        let zz = l.cst(r, 0);
        let r = l.select(special, zz, r);
        let r = l.lo(r);
        l.vdst32(r)
    }
}

/// True on gfx950, whose FP8/BF8 are the OCP formats (gfx942: FNUZ).
fn is_ocp(l: &Lifter) -> bool {
    l.gpu == crate::isa::Gpu::GFX950
}

/// The rounded op converting f32 to this target's FP8 or BF8 (`sr`: stochastic rounding).
pub(super) fn f8_op(l: &Lifter, bf8: bool, sr: bool) -> RoundedOp {
    match (is_ocp(l), bf8, sr) {
        (false, false, false) => RoundedOp::F32ToFp8Fnuz,
        (false, true, false) => RoundedOp::F32ToBf8Fnuz,
        (true, false, false) => RoundedOp::F32ToFp8Ocp,
        (true, true, false) => RoundedOp::F32ToBf8Ocp,
        (false, false, true) => RoundedOp::SrF32ToFp8Fnuz,
        (false, true, true) => RoundedOp::SrF32ToBf8Fnuz,
        (true, false, true) => RoundedOp::SrF32ToFp8Ocp,
        (true, true, true) => RoundedOp::SrF32ToBf8Ocp,
    }
}

/// The f32 value of the 8-bit float in the low byte of `v`. FNUZ (gfx942): FP8 = E4M3 with
/// bias 8, BF8 = E5M2 with bias 16, 0x80 the only NaN, no −0 and no infinity. OCP (gfx950):
/// FP8 = E4M3FN with bias 7 (NaN 0x7f/0xff, no infinity), BF8 = E5M2 with bias 15 (IEEE-like
/// infinities and NaNs); both with −0.
pub(super) fn f8_to_f32(l: &mut Lifter, v: Val, bf8: bool, ocp: bool) -> Val {
    let (mbits, bias) = match (bf8, ocp) {
        (true, false) => (2u64, 16u64),
        (false, false) => (3, 8),
        (true, true) => (2, 15),
        (false, true) => (3, 7),
    };
    let b = l.and_imm(v, 0xff);
    let m = l.and_imm(b, (1 << mbits) - 1);
    let e = l.lshr_imm(b, mbits);
    let e = l.and_imm(e, (1 << (7 - mbits)) - 1);
    // Normal: exponent rebased to f32, mantissa at the top of f32's.
    let ef = l.add_imm(e, 127 - bias);
    let ef = l.shl_imm(ef, 23);
    let mf = l.shl_imm(m, 23 - mbits);
    let normal = l.or(ef, mf);
    // Denormal: m * 2^(1 - bias - mbits), exact in f32.
    let mfl = l.conv(ConvOp::U32ToF32, m);
    let scale = l.cst(mfl, (127 + 1 - bias - mbits) << 23);
    let denorm = l.bin(FMul, mfl, scale);
    let z = l.cst(e, 0);
    let e0 = l.cmp(CmpOp::Eq, e, z);
    let mag = l.select(e0, denorm, normal);
    let sign = l.and_imm(b, 0x80);
    let sign = l.shl_imm(sign, 24);
    let r = l.or(mag, sign);
    if !ocp {
        let nanb = l.cst(b, 0x80);
        let is_nan = l.cmp(CmpOp::Eq, b, nanb);
        let nan = l.cst(r, 0x7fc0_0000);
        return l.select(is_nan, nan, r);
    }
    // OCP: FP8 S.1111.111 is NaN; BF8 exponent 31 is Inf (mantissa 0) or NaN.
    let mag7 = l.and_imm(b, 0x7f);
    let qnan = l.cst(sign, 0x7fc0_0000);
    let qnan = l.or(qnan, sign);
    if bf8 {
        let emax = l.cst(e, 31);
        let top = l.cmp(CmpOp::Eq, e, emax);
        let z = l.cst(m, 0);
        let m0 = l.cmp(CmpOp::Eq, m, z);
        let inf = l.cst(r, 0x7f80_0000);
        let inf = l.or(inf, sign);
        let special = l.select(m0, inf, qnan);
        l.select(top, special, r)
    } else {
        let all = l.cst(mag7, 0x7f);
        let is_nan = l.cmp(CmpOp::Eq, mag7, all);
        l.select(is_nan, qnan, r)
    }
}

/// VOP3P dot products take their elements in order: "DOT instructions must not use SDWA or
/// OPSEL" (CDNA3 ISA 7.2 / `shared/notes/cdna.md` §4.10), and llvm-mc-22 rejects `op_sel` and
/// a non-default `op_sel_hi` on them, so such a word has no defined meaning and is not lifted.
pub(super) fn dot_default_sel(inst: &Inst) -> R<()> {
    if inst.mods.op_sel != 0 || inst.mods.op_sel_hi & 3 != 3 {
        return Err(format!(
            "op_sel/op_sel_hi on {} (a dot product must not use OPSEL)",
            inst.op.name()
        ));
    }
    Ok(())
}

/// Writes the 8-bit `byte` into byte `op_sel[3:2]` of the VGPR destination, keeping its other
/// bytes (the FP8/BF8/FP4 stochastic and packed conversions, CDNA3/CDNA4 ISA).
pub(super) fn write_dst_byte(l: &mut Lifter, inst: &Inst, byte: Val) -> R<()> {
    let sh = 8 * (inst.mods.op_sel as u64 >> 2 & 3);
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let keep = l.and_imm(old, !(0xffu64 << sh) & 0xffff_ffff);
    let byte = l.shl_imm(byte, sh);
    let r = l.or(keep, byte);
    l.vdst32(r)
}
