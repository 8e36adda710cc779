//! Helpers every vector-ALU kind shares: result writes (32/64-bit, 16-bit halves, bytes,
//! carries), MODE-dependent rounding and flushing, float min/max/med3 rules, source reads
//! with edited modifiers.

use crate::ir::{BinOp, CmpOp, ConvOp, Round, RoundedOp, TernOp, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::{Inst, Mods, Opnd};
pub(in crate::lift) use crate::lift::fmode::{
    fp16_ovfl, minmax, minmax16, round_of, rounded, MinMax,
};
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Writes a result of kind `k` to the vector destination.
pub(in crate::lift) fn wr(l: &mut Lifter, v: Val, k: K) -> R<()> {
    if k.is64() {
        l.vdst64(v)
    } else {
        l.vdst32(v)
    }
}

/// Writes the result `r` and carry/borrow lanes `c` of a 32-bit add/sub with carry-out. With
/// clamp the result saturates to `sat` (0xffffffff on carry, 0 on borrow) where `c` is set
/// (CDNA ISA 6.5: integer clamp saturates); the carry-out is written either way.
pub(in crate::lift) fn carry_result(
    l: &mut Lifter,
    inst: &Inst,
    r: Val,
    c: Val,
    sat: u32,
) -> R<()> {
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
pub(in crate::lift) fn saturate(l: &mut Lifter, r: Val, signed: bool, bits: u32) -> Val {
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
pub(in crate::lift) fn srcs16_extended(l: &mut Lifter, signed: bool) -> R<Vec<Val>> {
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
pub(in crate::lift) fn no_clamp(inst: &Inst) -> R<()> {
    if inst.mods.clamp {
        return Err("clamp on an integer operation is not supported".into());
    }
    Ok(())
}

/// Float add/sub/mul of kind `k` (f32 or f64): the IR op under round-to-nearest-even, the
/// rounded lane function under a directed MODE.FP_ROUND.
pub(in crate::lift) fn farith(l: &mut Lifter, op: BinOp, k: K, a: Val, b: Val) -> Val {
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
pub(in crate::lift) fn ffma(l: &mut Lifter, k: K, a: Val, b: Val, c: Val) -> Val {
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
pub(in crate::lift) fn f16out(l: &mut Lifter, r: Val) -> Val {
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
pub(in crate::lift) fn f16_arith(l: &mut Lifter, op: RoundedOp, args: Vec<Val>) -> Val {
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
pub(in crate::lift) fn to_f16(l: &mut Lifter, v: Val) -> Val {
    let r = if round_of(l, K::F16) == Round::NearestEven && !fp16_ovfl(l) {
        l.conv(ConvOp::F32ToF16, v)
    } else {
        rounded(l, RoundedOp::F32ToF16, K::F16, vec![v])
    };
    f16out(l, r)
}

/// Clamps f16 bits to [0, 1] (through f32, exact both ways).
pub(in crate::lift) fn clamp16(l: &mut Lifter, h: Val) -> Val {
    let x = l.conv(ConvOp::F16ToF32, h);
    let z = l.cst(x, 0);
    let o = l.cst(x, 0x3f80_0000);
    let t = l.bin(FMaxNum, x, z);
    let t = l.bin(FMinNum, t, o);
    l.conv(ConvOp::F32ToF16, t)
}

/// Lanes (`S64` mask) whose value of kind `k` (f32/f64 bits, or f16 in the low 16 bits) is a
/// signalling NaN: a NaN with the top fraction bit clear.
pub(in crate::lift) fn snan_mask(l: &mut Lifter, v: Val, k: K) -> Val {
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
pub(in crate::lift) fn nan_mask(l: &mut Lifter, v: Val, k: K) -> Val {
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
pub(in crate::lift) fn fminmax(l: &mut Lifter, max: bool, k: K, a: Val, b: Val) -> Val {
    if a == b && k != K::F16 {
        // One value twice (LLVM's canonicalize, `v_max_f32 v, x, x`): by the rules above the
        // result is `a`, an sNaN quieted under MODE.IEEE (a qNaN is quiet already).
        return if l.ieee() { l.un(UnOp::FQuiet, a) } else { a };
    }
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
pub(in crate::lift) fn fmed3(l: &mut Lifter, a: Val, b: Val, c: Val) -> Val {
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
pub(in crate::lift) fn out16(l: &mut Lifter, inst: &Inst, r: Val) -> R<Val> {
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
pub(in crate::lift) fn fun16(
    l: &mut Lifter,
    inst: &Inst,
    f: impl Fn(&mut Lifter, Val) -> Val,
) -> R<()> {
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
pub(in crate::lift) fn fmed3_16(l: &mut Lifter, a: Val, b: Val, c: Val) -> Val {
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
pub(in crate::lift) fn fmaximum(l: &mut Lifter, max: bool, k: K, a: Val, b: Val) -> Val {
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
pub(in crate::lift) fn fbin(l: &mut Lifter, op: BinOp, k: K, rev: bool) -> R<()> {
    let a = l.src(0, k)?;
    let b = l.src(1, k)?;
    let (a, b) = if rev { (b, a) } else { (a, b) };
    let r = farith(l, op, k, a, b);
    let r = l.fout(r, k)?;
    wr(l, r, k)
}

/// Float unary op with modifiers.
pub(in crate::lift) fn fun(l: &mut Lifter, op: UnOp, k: K) -> R<()> {
    let a = l.src(0, k)?;
    let r = l.un(op, a);
    let r = l.fout(r, k)?;
    wr(l, r, k)
}

/// Whether the f32 transcendental `op` flushes input and output denormals whatever MODE
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
pub(in crate::lift) fn flushes_denormals(l: &Lifter, op: ValuSem) -> bool {
    l.gpu.family() != Some(crate::isa::Family::Gfx9)
        && matches!(
            op,
            V_SQRT_F32 | V_RSQ_F32 | V_EXP_F32 | V_LOG_F32 | V_RCP_IFLAG_F32
        )
}

/// An f32 transcendental that flushes input and output denormals ([`flushes_denormals`]):
/// `f` on the flushed source, OMOD/clamp, the result flushed.
pub(in crate::lift) fn fun_flushed(
    l: &mut Lifter,
    f: impl FnOnce(&mut Lifter, Val) -> Val,
) -> R<()> {
    let a = l.src(0, K::F32)?;
    let a = l.flush_denorm(a, K::F32);
    let r = f(l, a);
    let r = l.fout(r, K::F32)?;
    let r = l.flush_denorm(r, K::F32);
    l.vdst32(r)
}

/// Integer binary op on sources 0 and 1 (`rev` swaps them).
pub(in crate::lift) fn ibin(l: &mut Lifter, inst: &Inst, op: BinOp, k: K, rev: bool) -> R<()> {
    no_clamp(inst)?;
    let a = l.src(0, k)?;
    let b = l.src(1, k)?;
    let (a, b) = if rev { (b, a) } else { (a, b) };
    let r = l.bin(op, a, b);
    wr(l, r, k)
}

/// A 16-bit result (in the low bits of `v`): GFX9 writes zeros above it, or with VOP3
/// `op_sel[3]` writes the high half and keeps the low half.
pub(in crate::lift) fn wr16(l: &mut Lifter, inst: &Inst, v: Val) -> R<()> {
    if l.gpu.family() != Some(crate::isa::Family::Gfx9) {
        // RDNA keeps the other half (see [`write16`]).
        return write16(l, inst, v);
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
pub(in crate::lift) fn wr16_gfx9_opsel(l: &mut Lifter, inst: &Inst, v: Val, legacy: bool) -> R<()> {
    if legacy || inst.sdwa.is_some() {
        wr16(l, inst, v)
    } else {
        write16(l, inst, v)
    }
}

/// Carry/borrow mask from per-lane 0/1 values, restricted to the written lanes, to `dst[1]`.
pub(in crate::lift) fn write_carry(l: &mut Lifter, inst: &Inst, c: Val) -> R<()> {
    let m = l.lanes_to_mask(c);
    let w = l.wmask();
    let m = l.and(m, w);
    l.set_mask_opnd(inst.dst[1], m)
}

/// Three-source integer op `f(a, b, c)`.
/// gfx950 `v_bitop3_b32`: bit i of the result is bit `{S0[i], S1[i], S2[i]}` of the 8-bit
/// truth table (CDNA4 ISA, V_BITOP3): the OR of the minterms whose table bit is set.
pub(in crate::lift) fn bitop3(l: &mut Lifter, table: u8, a: Val, b: Val, c: Val) -> Val {
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

pub(in crate::lift) fn i3(
    l: &mut Lifter,
    inst: &Inst,
    k: K,
    f: impl Fn(&mut Lifter, Val, Val, Val) -> Val,
) -> R<()> {
    no_clamp(inst)?;
    i3_clamp_free(l, k, f)
}

/// [`i3`] for an op on which clamp has no effect: a min/max/median, whose result is one of
/// its sources and so already in the representable range that integer clamp saturates to
/// (CDNA ISA 6.5, RDNA4 ISA 7.2.3.1), or one that ignores clamp (RDNA4 ISA 7.2.3.1's list).
pub(in crate::lift) fn i3_clamp_free(
    l: &mut Lifter,
    k: K,
    f: impl Fn(&mut Lifter, Val, Val, Val) -> Val,
) -> R<()> {
    let a = l.src(0, k)?;
    let b = l.src(1, k)?;
    let c = l.src(2, k)?;
    let r = f(l, a, b, c);
    wr(l, r, k)
}

/// `x & 0xffffff` (unsigned 24-bit operand).
pub(in crate::lift) fn u24(l: &mut Lifter, x: Val) -> Val {
    l.and_imm(x, 0xff_ffff)
}

/// Sign-extended low 24 bits.
pub(in crate::lift) fn i24(l: &mut Lifter, x: Val) -> Val {
    let t = l.shl_imm(x, 8);
    l.ashr_imm(t, 8)
}

/// The accumulator of `v_fmac`/`v_mac`: the destination register's current value.
pub(in crate::lift) fn acc_src(l: &mut Lifter, inst: &Inst, k: K) -> R<Val> {
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

/// Median of three: `max(min(a, b), min(max(a, b), c))`.
pub(in crate::lift) fn med3(l: &mut Lifter, a: Val, b: Val, c: Val, mn: BinOp, mx: BinOp) -> Val {
    let lo = l.bin(mn, a, b);
    let hi = l.bin(mx, a, b);
    let t = l.bin(mn, hi, c);
    l.bin(mx, lo, t)
}

/// Half `h` (0 = low, 1 = high) of a packed 16-bit source: VGPR/SGPR bits, or an inline
/// constant or literal replicated into both halves.
pub(in crate::lift) fn half_src(l: &mut Lifter, inst: &Inst, i: usize, h: u8, k: K) -> R<Val> {
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

/// Source `i` of a VOP3 instruction, or, when the decoder left it out, the 9-bit SRC field
/// of the second instruction word (bits `9*i..9*i+9`), for the lane-select operands of
/// `v_readlane_b32`/`v_writelane_b32`.
pub(in crate::lift) fn vop3_src_or(inst: &Inst, i: usize) -> Opnd {
    if inst.src[i].is_some() || inst.format != crate::isa::Format::Vop3 {
        return inst.src[i];
    }
    let code = (inst.words[1] >> (9 * i)) & 0x1ff;
    Opnd {
        code: code as u16,
        count: 1,
    }
}

/// True on gfx950, whose FP8/BF8 are the OCP formats (gfx942: FNUZ).
pub(in crate::lift) fn is_ocp(l: &Lifter) -> bool {
    l.gpu == crate::isa::Gpu::GFX950
}

/// The rounded op converting f32 to this target's FP8 or BF8 (`sr`: stochastic rounding).
pub(in crate::lift) fn f8_op(l: &Lifter, bf8: bool, sr: bool) -> RoundedOp {
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
pub(in crate::lift) fn f8_to_f32(l: &mut Lifter, v: Val, bf8: bool, ocp: bool) -> Val {
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
pub(in crate::lift) fn dot_default_sel(inst: &Inst) -> R<()> {
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
pub(in crate::lift) fn write_dst_byte(l: &mut Lifter, inst: &Inst, byte: Val) -> R<()> {
    let sh = 8 * (inst.mods.op_sel as u64 >> 2 & 3);
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let keep = l.and_imm(old, !(0xffu64 << sh) & 0xffff_ffff);
    let byte = l.shl_imm(byte, sh);
    let r = l.or(keep, byte);
    l.vdst32(r)
}

/// Writes the 16-bit result in the low bits of `v` to the half of the destination VGPR that
/// the instruction names (`.h` = `op_sel[3]`), keeping the other half: GFX10+ 16-bit VALU
/// ops do not zero the unused half (RDNA4 ISA 7.4: `v0.l` and `v0.h` are separate 16-bit
/// registers).
pub(in crate::lift) fn write16(l: &mut Lifter, inst: &Inst, v: Val) -> R<()> {
    let reg = inst.dst[0]
        .vreg()
        .ok_or("16-bit destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let v = l.and_imm(v, 0xffff);
    let r = insert16(l, old, v, inst.mods.op_sel & 8 != 0);
    l.vdst32(r)
}

/// `old` with its high (`hi`) or low 16 bits replaced by `v` (a 16-bit value).
pub(in crate::lift) fn insert16(l: &mut Lifter, old: Val, v: Val, hi: bool) -> Val {
    if hi {
        let keep = l.and_imm(old, 0xffff);
        let v = l.shl_imm(v, 16);
        l.or(keep, v)
    } else {
        let keep = l.and_imm(old, 0xffff_0000);
        l.or(keep, v)
    }
}

/// Reads source `i` as [`Lifter::src`] does, with the instruction's modifiers first changed
/// by `edit`: for operands whose OPSEL, ABS or NEG bits mean something else here (byte and
/// half selects, packed negation), which the caller then applies itself.
pub(in crate::lift) fn src_with_mods(
    l: &mut Lifter,
    i: usize,
    k: K,
    edit: impl FnOnce(&mut Mods),
) -> R<Val> {
    let mut plain = l.inst()?;
    edit(&mut plain.mods);
    let saved = l.inst.replace(plain);
    let v = l.src(i, k);
    l.inst = saved;
    v
}

/// Source `i` without OPSEL, ABS and NEG (see [`src_with_mods`]).
pub(in crate::lift) fn src_raw(l: &mut Lifter, i: usize, k: K) -> R<Val> {
    src_with_mods(l, i, k, |m| {
        m.op_sel = 0;
        m.abs = 0;
        m.neg = 0;
    })
}

/// One `v_prng_b32` step of the `V32` value `x` (see [`prng`]); also the per-element seed
/// update of the multi-pass stochastic-rounding conversions (`scale_cvt`).
pub(in crate::lift) fn prng_step(l: &mut Lifter, x: Val) -> Val {
    let shifted = l.shl_imm(x, 1);
    // S0[31] as 0 or 197: the arithmetic shift gives 0 or all ones.
    let sign = l.ashr_imm(x, 31);
    let tap = l.and_imm(sign, 197);
    l.xor(shifted, tap)
}

/// f32 bits of the OCP 8-bit float in the low byte of each lane of `b` (RDNA4 ISA 7.5):
/// BF8 is E5M2 with bias 15, infinities and NaNs (the high byte of an f16); FP8 is E4M3
/// with bias 7, no infinity, NaN = `S.1111.111`. Both convert exactly; a NaN gives the
/// quiet NaN with the input's sign.
pub(in crate::lift) fn ocp8_to_f32(l: &mut Lifter, b: Val, bf8: bool) -> Val {
    let b = l.and_imm(b, 0xff);
    if bf8 {
        let h = l.shl_imm(b, 8);
        return l.conv(ConvOp::F16ToF32, h);
    }
    let sign = l.and_imm(b, 0x80);
    let sign = l.shl_imm(sign, 24);
    let e = l.lshr_imm(b, 3);
    let e = l.and_imm(e, 15);
    let m = l.and_imm(b, 7);
    // Normal: exponent e - 7 + 127, mantissa m << 20.
    let ef = l.add_imm(e, 120);
    let ef = l.shl_imm(ef, 23);
    let mf = l.shl_imm(m, 20);
    let normal = l.or(ef, mf);
    // Denormal (e = 0): m * 2^-9, exact.
    let mfl = l.conv(ConvOp::U32ToF32, m);
    let scale = l.cst(mfl, 0x3b00_0000); // 2^-9
    let den = l.bin(BinOp::FMul, mfl, scale);
    let zero = l.cst(e, 0);
    let is_den = l.cmp(CmpOp::Eq, e, zero);
    let mag = l.select(is_den, den, normal);
    let low7 = l.and_imm(b, 0x7f);
    let nan_code = l.cst(b, 0x7f);
    let is_nan = l.cmp(CmpOp::Eq, low7, nan_code);
    let qnan = l.cst(b, 0x7fc0_0000);
    let mag = l.select(is_nan, qnan, mag);
    l.or(mag, sign)
}

/// The OCP 8-bit code (low byte) of the f32 values `x` (RNE, or truncation toward zero for
/// the stochastic forms whose random bits are already added) (RDNA4 ISA 7.5, 7.6.2).
///
/// The magnitude is scaled by `2^-k`, where `2^k` is the target's spacing at its binade
/// (`k = max(exponent, emin) - mantissa bits`), rounded to an integer and scaled back, all
/// exact f32 operations. Beyond the largest finite value: FP16_OVFL (MODE bit 23) saturates
/// to ±max, otherwise FP8 gives NaN and BF8 ±infinity. A NaN input gives the quiet code
/// `S.1111.111` (FP8) or `S.11111.10` (BF8) with the input's sign.
pub(in crate::lift) fn f32_to_ocp8(l: &mut Lifter, x: Val, bf8: bool, truncate: bool) -> Val {
    let (mbits, emin, bias, max_bits, max_code) = if bf8 {
        (2u64, -14i32, 15u64, 0x4760_0000u64, 0x7bu64)
    } else {
        (3, -6, 7, 0x43e0_0000, 0x7e)
    };
    let ovfl_code = if l.mode >> 23 & 1 != 0 {
        max_code
    } else if bf8 {
        0x7c
    } else {
        0x7f
    };
    let nan_code = if bf8 { 0x7e } else { 0x7f };
    let sign = l.and_imm(x, 0x8000_0000);
    let sign = l.lshr_imm(sign, 24);
    let a = l.and_imm(x, 0x7fff_ffff);
    // k = max(unbiased exponent, emin) - mbits, as a signed 32-bit value.
    let e = l.lshr_imm(a, 23);
    let e = l.add_imm(e, (-127i32) as u32 as u64);
    let emin_v = l.cst(e, emin as u32 as u64);
    let e = l.bin(BinOp::SMax, e, emin_v);
    let k = l.add_imm(e, (-(mbits as i32)) as u32 as u64);
    // 2^-k and 2^k as f32 (k is within [-16, 125), so both are normal).
    let c127 = l.cst(k, 127);
    let inv = l.bin(BinOp::Sub, c127, k);
    let inv = l.shl_imm(inv, 23);
    let scale = l.add_imm(k, 127);
    let scale = l.shl_imm(scale, 23);
    let q = l.bin(BinOp::FMul, a, inv);
    let q = l.un(
        if truncate {
            UnOp::FTrunc
        } else {
            UnOp::FRoundEven
        },
        q,
    );
    let r = l.bin(BinOp::FMul, q, scale);
    // Encode the exactly representable r: normal when its exponent >= emin.
    let er = l.lshr_imm(r, 23);
    let normal_exp = l.cst(er, (emin + 127) as u64);
    let is_normal = l.cmp(CmpOp::UGe, er, normal_exp);
    let ecode = l.add_imm(er, (bias as i64 - 127) as u64 & 0xffff_ffff);
    let ecode = l.shl_imm(ecode, mbits);
    let mcode = l.lshr_imm(r, 23 - mbits);
    let mcode = l.and_imm(mcode, (1 << mbits) - 1);
    let ncode = l.or(ecode, mcode);
    // Denormal: r / 2^(emin - mbits), an integer below 2^mbits.
    let dscale = l.cst(r, ((127 - (emin - mbits as i32)) as u64) << 23);
    let d = l.bin(BinOp::FMul, r, dscale);
    let dcode = l.conv(ConvOp::F32ToU32, d);
    let code = l.select(is_normal, ncode, dcode);
    let maxv = l.cst(r, max_bits);
    let over = l.cmp(CmpOp::UGt, r, maxv);
    let ovc = l.cst(r, ovfl_code);
    let code = l.select(over, ovc, code);
    let inf = l.cst(a, 0x7f80_0000);
    let nan = l.cmp(CmpOp::UGt, a, inf);
    let nc = l.cst(a, nan_code);
    let code = l.select(nan, nc, code);
    l.or(code, sign)
}

/// The 16-bit element of VOP3P source `i` (low 16 bits of the result): the low element
/// uses half `op_sel[i]` and `neg[i]`, the high element `op_sel_hi[i]` and `neg_hi[i]`.
/// Inline constants and literals are the same in both elements.
pub(in crate::lift) fn packed_elem(l: &mut Lifter, inst: &Inst, i: usize, hi_elem: bool) -> R<Val> {
    let m = inst.mods;
    let o = inst.src[i];
    let reg = o.vreg().is_some() || o.sreg().is_some();
    let v = src_raw(l, i, if reg { K::B32 } else { K::F16 })?;
    let sel = if hi_elem { m.op_sel_hi } else { m.op_sel };
    let v = if reg && sel >> i & 1 != 0 {
        l.lshr_imm(v, 16)
    } else {
        v
    };
    let v = l.and_imm(v, 0xffff);
    let neg = if hi_elem { m.neg_hi } else { m.neg };
    Ok(if neg >> i & 1 != 0 {
        let c = l.cst(v, 0x8000);
        l.xor(v, c)
    } else {
        v
    })
}
