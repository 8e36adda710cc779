//! RDNA (GFX11/GFX12) instructions without a GFX9 lifting function of the same semantics:
//!
//! * true16: 16-bit results written to one half of the VGPR, the other half kept
//!   ([`write16`], also used by the GFX9 16-bit functions on RDNA); `v_mov/not/and/or/
//!   xor_b16`, `v_cndmask_b16`, `v_swap_b16`, `v_fmac/fmaak/fmamk_f16`, `v_mad_u32_u16`;
//! * lane permutes: `v_permlane16/x16_b32` (FI, BOUND_CTRL), the gfx12 `_var` forms,
//!   `v_permlane64_b32`; RDNA DPP16 (`row_share`, `row_xmask`, the BC/FI table) and DPP8;
//! * float min/max: RDNA4 `v_minimum/maximum*` (IEEE-754-2019), `v_min/max_num` of f16/f64,
//!   `v_minmax/maxmin`, `v_med3_num`, the packed f16 forms;
//! * FP8/BF8 (gfx12, OCP): conversions both ways, stochastic rounding; dot products
//!   (`v_dot4_i32_iu8`, `v_dot8_i32_iu4`, `v_dot2_f32_f16/bf16`, `v_dot2acc`, FP8 dots,
//!   `v_dot2_f16_f16`/`v_dot2_bf16_bf16` rounded once per step);
//! * conversions to 16/8-bit integers: SNORM/UNORM (`v_cvt_norm_*`, `v_cvt_pk_norm_*`),
//!   `v_cvt_pk_{i16,u16}_f32`, `v_cvt_pk_u8_f32`;
//! * gfx12 pseudo-scalar `v_s_*`;
//! * misc VALU: integer `minmax/min3/max3/med3`, `v_cvt_i32_i16`, SAD/QSAD/lerp,
//!   dx9-zero multiplies, `v_sat_pk_u8_i16`, `v_cvt_off_f32_i4`, M0-relative `v_movrel*`,
//!   the cube-map ops `v_cube{id,sc,tc,ma}_f32` (also lifted on GFX9, through [`cube`]).
//!
//! [`lift`] is consulted before the GFX9 lifting functions for every RDNA instruction and
//! returns `None` for what it does not handle. The RDNA-only scalar, control and memory
//! instructions are in their class modules (`salu`, `control`, `smem`, `ds`, `vmem`).

use super::operand::{K, R};
use super::valu::{
    cube, cvt_norm, cvt_off_i4, cvt_pk_u8, insert16, mad32_16, qsad, sad, src_raw, src_with_mods,
    write16,
};
use super::{Flow, LiftResult, Lifter};
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, TernOp, Ty, UnOp, Val};
use crate::isa::{Format, Inst};
use crate::wave::InstClass;

/// Lifts an RDNA-only instruction (`name` is LLVM's base mnemonic), or `None` when the
/// instruction is not one of them.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> Option<LiftResult> {
    let vector = matches!(
        inst.format,
        Format::Vop1 | Format::Vop2 | Format::Vop3 | Format::Vop3b | Format::Vop3p
    );
    if !vector {
        return None;
    }
    let base = name.strip_prefix("v_")?;
    let r = match base {
        "mov_b16" | "not_b16" | "and_b16" | "or_b16" | "xor_b16" => Some(bits16(l, inst, base)),
        "permlane16_b32" | "permlanex16_b32" | "permlane16_var_b32" | "permlanex16_var_b32" => {
            Some(permlane16(l, inst, base))
        }
        "permlane64_b32" => Some(permlane64(l, inst)),
        "fmac_f16" | "fmaak_f16" | "fmamk_f16" => Some(fma16_forms(l, inst, base)),
        "mad_u32_u16" | "mad_i32_i16" => Some(mad32_16(l, inst, base)),
        "sat_pk_u8_i16" => Some(sat_pk_u8(l, inst)),
        "movrels_b32" | "movreld_b32" | "movrelsd_b32" | "movrelsd_2_b32" | "swaprel_b32" => {
            Some(movrel(l, inst, base))
        }
        "sad_u8" | "sad_hi_u8" | "sad_u16" | "msad_u8" | "lerp_u8" => Some(sad(l, inst, base)),
        "qsad_pk_u16_u8" | "mqsad_pk_u16_u8" | "mqsad_u32_u8" => Some(qsad(l, inst, base)),
        "cvt_off_f32_i4" => Some(cvt_off_i4(l, inst)),
        "pk_minimum_f16" | "pk_maximum_f16" | "pk_min_num_f16" | "pk_max_num_f16" => {
            Some(pk_minimum16(l, inst, base))
        }
        "med3_num_f32" | "med3_num_f16" => Some(med3_num(l, inst, base)),
        "cubeid_f32" | "cubesc_f32" | "cubetc_f32" | "cubema_f32" => Some(cube(l, base, true)),
        "dot4_i32_iu8" | "dot8_i32_iu4" => Some(dot_iu(l, inst, base)),
        "dot2_f32_f16" | "dot2_f32_bf16" | "dot2acc_f32_f16" | "dot2acc_f32_bf16"
        | "dot4_f32_fp8_fp8" | "dot4_f32_fp8_bf8" | "dot4_f32_bf8_fp8" | "dot4_f32_bf8_bf8" => {
            Some(dot_float(l, inst, base))
        }
        "cvt_f32_fp8" | "cvt_f32_bf8" | "cvt_pk_f32_fp8" | "cvt_pk_f32_bf8" => {
            Some(cvt_from_ocp8(l, inst, base))
        }
        "cvt_pk_fp8_f32" | "cvt_pk_bf8_f32" | "cvt_sr_fp8_f32" | "cvt_sr_bf8_f32" => {
            Some(cvt_to_ocp8(l, inst, base))
        }
        "minmax_i32" | "minmax_u32" | "maxmin_i32" | "maxmin_u32" | "min3_i16" | "min3_u16"
        | "max3_i16" | "max3_u16" | "med3_i16" | "med3_u16" => Some(int_minmax(l, inst, base)),
        "cvt_i32_i16" | "cvt_u32_u16" => Some(ext16(l, inst, base)),
        "dot2_f16_f16" | "dot2_bf16_bf16" => Some(dot2_16(l, inst, base)),
        "cvt_norm_i16_f16"
        | "cvt_norm_u16_f16"
        | "cvt_pk_norm_i16_f16"
        | "cvt_pk_norm_u16_f16"
        | "cvt_pk_norm_i16_f32"
        | "cvt_pk_norm_u16_f32"
        // GFX9 spellings of the same operations.
        | "cvt_pknorm_i16_f16"
        | "cvt_pknorm_u16_f16"
        | "cvt_pknorm_i16_f32"
        | "cvt_pknorm_u16_f32" => Some(cvt_norm(l, inst, base)),
        "cvt_pk_i16_f32" | "cvt_pk_u16_f32" => Some(cvt_pk16_f32(l, inst, base)),
        "cvt_pk_u8_f32" => Some(cvt_pk_u8(l, inst)),
        "cndmask_b16" => Some(cndmask16(l, inst)),
        "swap_b16" => Some(swap16(l, inst)),
        "mul_dx9_zero_f32" | "fma_dx9_zero_f32" | "fmac_dx9_zero_f32" => {
            Some(dx9_zero(l, inst, base))
        }
        "mullit_f32" => Some(mullit(l)),
        _ if base.starts_with("s_") => pseudo_scalar(l, inst, base),
        _ => fminmax(l, inst, base),
    }?;
    Some(r.map(|()| (InstClass::Valu, Flow::Next)))
}

/// The 16-bit element of VOP3P source `i` (low 16 bits of the result): the low element
/// uses half `op_sel[i]` and `neg[i]`, the high element `op_sel_hi[i]` and `neg_hi[i]`.
/// Inline constants and literals are the same in both elements.
fn packed_elem(l: &mut Lifter, inst: &Inst, i: usize, hi_elem: bool) -> R<Val> {
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

/// `v_mov_b16`, `v_not_b16`, `v_and_b16`, `v_or_b16`, `v_xor_b16` on 16-bit halves.
fn bits16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on a 16-bit bitwise operation".into());
    }
    l.count_vector();
    let a = l.src(0, K::B16)?;
    let r = match base {
        "mov_b16" => a,
        "not_b16" => l.not(a),
        _ => {
            let b = l.src(1, K::B16)?;
            let op = match base {
                "and_b16" => BinOp::And,
                "or_b16" => BinOp::Or,
                _ => BinOp::Xor,
            };
            l.bin(op, a, b)
        }
    };
    write16(l, inst, r)
}

/// `v_permlane16_b32`, `v_permlanex16_b32` (lane selects from `{S2, S1}`, four bits per lane
/// of a row) and the gfx12 `_var` forms (the select in bits [3:0] of a VGPR): lane
/// `row * 16 + i` reads lane `sel(i)` of its own row (`x16`: of the other row of its pair).
/// `op_sel[0]` is FI (read disabled lanes), `op_sel[1]` BOUND_CTRL (a disabled source lane
/// writes 0 instead of nothing) (RDNA4 ISA, V_PERMLANE16_B32).
fn permlane16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.abs != 0 || inst.mods.neg != 0 || inst.mods.omod != 0 || inst.mods.clamp {
        return Err("source or output modifiers on a lane permute".into());
    }
    l.count_vector();
    let v = l.src(0, K::B32)?;
    let sel = if base.ends_with("_var_b32") {
        let s = l.src(1, K::B32)?;
        l.and_imm(s, 15)
    } else {
        let s1 = l.s32(inst.src[1], K::B32)?;
        let s2 = l.s32(inst.src[2], K::B32)?;
        let both = l.pack(s1, s2);
        let both = l.bcast(both);
        let shift = l.lanes(|i| 4 * (i % 16));
        let shift = l.conv(ConvOp::ZExt, shift);
        let s = l.bin(BinOp::LShr, both, shift);
        let s = l.conv(ConvOp::Lo, s);
        l.and_imm(s, 15)
    };
    let cross = base.starts_with("permlanex16");
    // The first lane of the row read: its own row, or the other row of its pair.
    let row = l.lanes(|i| if cross { (i & !15) ^ 16 } else { i & !15 });
    let idx = l.add(row, sel);
    let exec = l.exec();
    let permuted = l.gather(v, idx);
    let fi = inst.mods.op_sel & 1 != 0;
    let bound_ctrl = inst.mods.op_sel & 2 != 0;
    let ok = if fi {
        l.c64(!0)
    } else {
        let on = l.mask_to_lanes(exec);
        let src_on = l.gather(on, idx);
        l.lanes_to_mask(src_on)
    };
    let reg = inst.dst[0]
        .vreg()
        .ok_or("permute destination is not a VGPR")?;
    if bound_ctrl {
        let zero = l.cst(permuted, 0);
        let r = l.select(ok, permuted, zero);
        l.set_vreg(reg, r, exec)
    } else {
        let m = l.and(exec, ok);
        l.set_vreg(reg, permuted, m)
    }
}

/// `v_permlane64_b32`: wave64 lanes read the other half (`lane ^ 32`), disabled source lanes
/// included; a no-op in wave32 (RDNA4 ISA, V_PERMLANE64_B32).
fn permlane64(l: &mut Lifter, inst: &Inst) -> R<()> {
    if l.wave == 32 {
        return Ok(());
    }
    l.count_vector();
    let v = l.src(0, K::B32)?;
    let idx = l.lanes(|i| i ^ 32);
    let r = l.gather(v, idx);
    let reg = inst.dst[0]
        .vreg()
        .ok_or("permute destination is not a VGPR")?;
    let exec = l.exec();
    l.set_vreg(reg, r, exec)
}

/// Which float min/max rule.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum MinMax {
    /// IEEE-754-2019 minimumNumber/maximumNumber (= 2008 minNum/maxNum with −0 < +0).
    Num,
    /// IEEE-754-2019 minimum/maximum: a NaN input gives a NaN (an sNaN first, quieted).
    Ieee2019,
}

/// `min` (or `max`) of `a` and `b` under `rule`, for f32/f64 operands (RDNA4 ISA,
/// V_MINIMUM_F32: sNaN S0, sNaN S1, qNaN S0, qNaN S1 in that priority, each quieted; else
/// the smaller, −0 < +0).
pub(super) fn minmax(l: &mut Lifter, rule: MinMax, max: bool, a: Val, b: Val) -> Val {
    let op = if max { BinOp::FMaxNum } else { BinOp::FMinNum };
    let r = l.bin(op, a, b);
    if rule == MinMax::Num {
        return r;
    }
    let (qa, qb) = (l.un(UnOp::FQuiet, a), l.un(UnOp::FQuiet, b));
    let (na, nb) = (l.cmp(CmpOp::FUno, a, a), l.cmp(CmpOp::FUno, b, b));
    let snan = l.cst(a, 1);
    let (sa, sb) = (l.cmp(CmpOp::FClass, a, snan), l.cmp(CmpOp::FClass, b, snan));
    let t = l.select(nb, qb, r);
    let t = l.select(na, qa, t);
    let t = l.select(sb, qb, t);
    l.select(sa, qa, t)
}

/// f16 `min`/`max` of the low 16 bits of `a` and `b`: the ordered result is computed on the
/// exactly converted f32 values (both NaN: `a` quieted, payload kept); the IEEE-754-2019 NaN
/// priority is decided on the f16 bits (the f16 → f32 conversion quiets NaNs).
fn minmax16(l: &mut Lifter, rule: MinMax, max: bool, a: Val, b: Val) -> Val {
    let (fa, fb) = (l.conv(ConvOp::F16ToF32, a), l.conv(ConvOp::F16ToF32, b));
    let op = if max { BinOp::FMaxNum } else { BinOp::FMinNum };
    let r = l.bin(op, fa, fb);
    let r = l.conv(ConvOp::F32ToF16, r);
    if rule == MinMax::Num {
        return r;
    }
    let class = |l: &mut Lifter, x: Val| {
        let mag = l.and_imm(x, 0x7fff);
        let inf = l.cst(x, 0x7c00);
        let nan = l.cmp(CmpOp::UGt, mag, inf);
        let qbit = l.and_imm(x, 0x200);
        let zero = l.cst(x, 0);
        let signalling = l.cmp(CmpOp::Eq, qbit, zero);
        let snan = l.and(nan, signalling);
        let qb = l.cst(x, 0x200);
        let q = l.or(x, qb);
        let q = l.and_imm(q, 0xffff);
        (nan, snan, q)
    };
    let (na, sa, qa) = class(l, a);
    let (nb, sb, qb) = class(l, b);
    let t = l.select(nb, qb, r);
    let t = l.select(na, qa, t);
    let t = l.select(sb, qb, t);
    l.select(sa, qa, t)
}

/// The RDNA4 float min/max variants of the VALU: `v_minimum/v_maximum_{f32,f16,f64}`,
/// `v_minimum3/v_maximum3_{f32,f16}`, `v_minimummaximum/v_maximumminimum_{f32,f16}`, and
/// the `v_min_num/v_max_num` of f16 and f64 (f32 ones are GFX9's `v_min/max_f32`).
fn fminmax(l: &mut Lifter, inst: &Inst, base: &str) -> Option<R<()>> {
    let (stem, ty) = base.rsplit_once('_')?;
    let k = match ty {
        "f32" => K::F32,
        "f16" => K::F16,
        "f64" => K::F64,
        _ => return None,
    };
    use MinMax::*;
    // (rule, sequence of max flags applied left to right over the sources)
    let plan: (MinMax, &[bool]) = match stem {
        "minimum" => (Ieee2019, &[false]),
        "maximum" => (Ieee2019, &[true]),
        "minimum3" => (Ieee2019, &[false, false]),
        "maximum3" => (Ieee2019, &[true, true]),
        "minimummaximum" => (Ieee2019, &[false, true]),
        "maximumminimum" => (Ieee2019, &[true, false]),
        // gfx11 `v_minmax/v_maxmin_f32/f16` (IEEE minNum/maxNum, like `v_min_f32`).
        "minmax" => (Num, &[false, true]),
        "maxmin" => (Num, &[true, false]),
        "min_num" if k != K::F32 => (Num, &[false]),
        "max_num" if k != K::F32 => (Num, &[true]),
        "min3_num" => (Num, &[false, false]),
        "max3_num" => (Num, &[true, true]),
        "minmax_num" => (Num, &[false, true]),
        "maxmin_num" => (Num, &[true, false]),
        _ => return None,
    };
    Some(fminmax_apply(l, inst, k, plan.0, plan.1))
}

fn fminmax_apply(l: &mut Lifter, inst: &Inst, k: K, rule: MinMax, seq: &[bool]) -> R<()> {
    l.count_vector();
    let mut acc = l.src(0, k)?;
    for (i, &max) in seq.iter().enumerate() {
        let b = l.src(i + 1, k)?;
        acc = if k == K::F16 {
            minmax16(l, rule, max, acc, b)
        } else {
            minmax(l, rule, max, acc, b)
        };
    }
    if k == K::F16 {
        // OMOD and clamp apply to f16 results as to f32 ones (RDNA4 ISA 7.2.3).
        let r = super::valu::out16(l, inst, acc)?;
        return write16(l, inst, r);
    }
    let r = l.fout(acc, k)?;
    if k == K::F64 {
        l.vdst64(r)
    } else {
        l.vdst32(r)
    }
}

// ---- more VALU ------------------------------------------------------------------------------

/// Three-source integer min/max: `v_minmax/v_maxmin_{i32,u32}` (`min(max(a, b), c)` and
/// mirror) and the 16-bit `v_min3/v_max3/v_med3_{i16,u16}`.
fn int_minmax(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    // Clamp has no effect: the result is one of the sources, already in the representable
    // range integer clamp saturates to (RDNA4 ISA 7.2.3.1).
    l.count_vector();
    let signed = base.contains("_i");
    let b16 = base.ends_with("16");
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
    let r = if base.starts_with("minmax") {
        let t = l.bin(min, a, b);
        l.bin(max, t, c)
    } else if base.starts_with("maxmin") {
        let t = l.bin(max, a, b);
        l.bin(min, t, c)
    } else if base.starts_with("min3") {
        let t = l.bin(min, a, b);
        l.bin(min, t, c)
    } else if base.starts_with("max3") {
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

/// `v_cvt_i32_i16` / `v_cvt_u32_u16`: a 16-bit half sign- or zero-extended to 32 bits.
fn ext16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    l.count_vector();
    let a = l.src(0, K::B16)?;
    let e = if base == "cvt_i32_i16" {
        ConvOp::SExt16
    } else {
        ConvOp::ZExt16
    };
    let r = l.conv(e, a);
    let _ = inst;
    l.vdst32(r)
}

/// `v_cndmask_b16`: `D.u16 = VCC[lane] ? S1.u16 : S0.u16` (the mask is `src[2]`); float
/// modifiers apply as to f16 values.
fn cndmask16(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    l.no_flush = true;
    let a = l.src(0, K::F16)?;
    let b = l.src(1, K::F16)?;
    let m = l.mask_opnd(inst.src[2])?;
    let r = l.select(m, b, a);
    write16(l, inst, r)
}

/// `v_swap_b16`: exchanges the 16-bit halves named by the destination and `src0`.
fn swap16(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let d = inst.dst[0].vreg().ok_or("swap destination is not a VGPR")?;
    let s = inst.src[0].vreg().ok_or("swap source is not a VGPR")?;
    let (dhi, shi) = (inst.mods.op_sel & 8 != 0, inst.mods.op_sel & 1 != 0);
    let dv = l.get_vreg(d)?;
    let sv = l.get_vreg(s)?;
    let half = |l: &mut Lifter, v: Val, hi: bool| {
        if hi {
            l.lshr_imm(v, 16)
        } else {
            l.and_imm(v, 0xffff)
        }
    };
    let dval = half(l, dv, dhi);
    let sval = half(l, sv, shi);
    let put = insert16;
    let exec = l.exec();
    if d == s {
        // Both halves of one register (or a no-op when they are the same half).
        let t = put(l, dv, sval, dhi);
        let t = put(l, t, dval, shi);
        return l.set_vreg(d, t, exec);
    }
    let nd = put(l, dv, sval, dhi);
    let ns = put(l, sv, dval, shi);
    l.set_vreg(d, nd, exec)?;
    l.set_vreg(s, ns, exec)
}

/// `v_mul_dx9_zero_f32`, `v_fma_dx9_zero_f32`, `v_fmac_dx9_zero_f32`: as `v_mul`/`v_fma`,
/// except that a zero factor gives a zero product even against infinity or NaN (`mul`:
/// +0; `fma`: `S2`) (RDNA4 ISA, V_MUL_DX9_ZERO_F32, V_FMA_DX9_ZERO_F32).
/// On gfx12 the FMA forms flush input and output denormals whatever MODE says (RDNA4 ISA
/// 7.2.4: "These opcodes flush input and output denorms: FMA_DX9_ZERO_F32, ..."; the RDNA3
/// list is an image in our copy, so gfx11 follows MODE).
fn dx9_zero(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    l.count_vector();
    let flush = base != "mul_dx9_zero_f32" && l.gpu.family() == Some(crate::isa::Family::Gfx12);
    let fl = |l: &mut Lifter, v: Val| {
        if flush {
            l.flush_denorm(v, K::F32)
        } else {
            v
        }
    };
    let a = l.src(0, K::F32)?;
    let a = fl(l, a);
    let b = l.src(1, K::F32)?;
    let b = fl(l, b);
    let zero = l.cst(a, 0);
    let za = l.cmp(CmpOp::FEq, a, zero);
    let zb = l.cmp(CmpOp::FEq, b, zero);
    let z = l.or(za, zb);
    let r = if base == "mul_dx9_zero_f32" {
        let p = l.bin(BinOp::FMul, a, b);
        l.select(z, zero, p)
    } else {
        let c = if base == "fmac_dx9_zero_f32" {
            let d = inst.dst[0].vreg().ok_or("fmac destination is not a VGPR")?;
            l.get_vreg(d)?
        } else {
            l.src(2, K::F32)?
        };
        let c = fl(l, c);
        let f = l.tern(TernOp::Fma, a, b, c);
        l.select(z, c, f)
    };
    let r = l.fout(r, K::F32)?;
    let r = fl(l, r);
    l.vdst32(r)
}

/// `v_mullit_f32` (RDNA4 ISA 16.12 V_MULLIT_F32), the pseudocode read literally:
/// `D = -MAX_FLOAT` when S1 is -MAX_FLOAT, -INF or NaN, or S2 <= 0 or NaN; else `S0 * S1`
/// (an ordinary multiply: MODE rounding and denormals, so 0 times +INF is NaN). The prose's
/// "0.0 * x = 0.0 and alternate INF, NAN, overflow rules" is not in the pseudocode and not
/// applied (ARCHITECTURE "Open ISA questions (RDNA)"). `S1 > -MAX && S2 > 0`, both ordered,
/// is the negation of the pseudocode's condition.
fn mullit(l: &mut Lifter) -> R<()> {
    l.count_vector();
    let a = l.src(0, K::F32)?;
    let b = l.src(1, K::F32)?;
    let c = l.src(2, K::F32)?;
    let p = super::valu::farith(l, BinOp::FMul, K::F32, a, b);
    let neg_max = l.cst(a, 0xff7f_ffff);
    let zero = l.cst(a, 0);
    let b_ok = l.cmp(CmpOp::FGt, b, neg_max);
    let c_ok = l.cmp(CmpOp::FGt, c, zero);
    let ok = l.and(b_ok, c_ok);
    let r = l.select(ok, p, neg_max);
    let r = l.fout(r, K::F32)?;
    l.vdst32(r)
}

/// The gfx12 pseudo-scalar transcendentals `v_s_{exp,log,rcp,rsq,sqrt}_{f32,f16}`: a VALU
/// op on a uniform value writing an SGPR, EXEC ignored (RDNA4 ISA 7.10); f16 results zero
/// the high half.
fn pseudo_scalar(l: &mut Lifter, inst: &Inst, base: &str) -> Option<R<()>> {
    let (fun, ty) = base.strip_prefix("s_")?.rsplit_once('_')?;
    if !matches!(fun, "exp" | "log" | "rcp" | "rsq" | "sqrt") || !matches!(ty, "f32" | "f16") {
        return None;
    }
    Some((|| {
        if inst.mods.omod != 0 || inst.mods.clamp {
            return Err("output modifiers on a pseudo-scalar op are not supported".into());
        }
        let f16 = ty == "f16";
        let k = if f16 { K::F16 } else { K::F32 };
        let v = l.s32(inst.src[0], k)?;
        let v = if f16 {
            let v = l.and_imm(v, 0xffff);
            l.conv(ConvOp::F16ToF32, v)
        } else {
            v
        };
        let mut v = v;
        if inst.mods.abs & 1 != 0 {
            v = l.un(UnOp::FAbs, v);
        }
        if inst.mods.neg & 1 != 0 {
            v = l.un(UnOp::FNeg, v);
        }
        // The f32 forms flush input and output denormals as their VALU counterparts
        // (RDNA4 ISA 16.8 notes: "denormals are flushed"); `v_s_rcp_f32` follows MODE as
        // `v_rcp_f32` does (`valu::flushes_denormals`).
        let flush = !f16 && fun != "rcp";
        if flush {
            v = l.flush_denorm(v, K::F32);
        }
        let r = match fun {
            "rcp" => l.un(UnOp::FRcp, v),
            "rsq" => l.un(UnOp::FRsq, v),
            "sqrt" => l.un(UnOp::FSqrt, v),
            _ => {
                let f = if fun == "exp" {
                    LaneFn::Exp2F32
                } else {
                    LaneFn::Log2F32
                };
                let vv = l.bcast(v);
                let r = l.lane_fn(f, vec![vv], Ty::V32);
                let zero = l.c32(0);
                l.read_lane(r, zero)
            }
        };
        let r = if f16 {
            let h = l.conv(ConvOp::F32ToF16, r);
            l.and_imm(h, 0xffff)
        } else if flush {
            l.flush_denorm(r, K::F32)
        } else {
            r
        };
        l.set_s32(inst.dst[0], r)
    })())
}

// ---- FP8 / BF8 (gfx12: OCP formats) ---------------------------------------------------------

/// f32 bits of the OCP 8-bit float in the low byte of each lane of `b` (RDNA4 ISA 7.5):
/// BF8 is E5M2 with bias 15, infinities and NaNs (the high byte of an f16); FP8 is E4M3
/// with bias 7, no infinity, NaN = `S.1111.111`. Both convert exactly; a NaN gives the
/// quiet NaN with the input's sign.
fn ocp8_to_f32(l: &mut Lifter, b: Val, bf8: bool) -> Val {
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

/// `v_cvt_f32_fp8/bf8` (the byte chosen by OPSEL: `byte = op_sel[0] * 2 + op_sel[1]`, "byte
/// select bits are reversed") and `v_cvt_pk_f32_fp8/bf8` (the 16-bit half chosen by
/// `op_sel[0]`, two results in a register pair) (RDNA4 ISA 7.6.2, V_CVT_F32_FP8).
fn cvt_from_ocp8(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on an FP8/BF8 conversion".into());
    }
    l.count_vector();
    let bf8 = base.ends_with("bf8");
    // The raw register: input modifiers are ignored, and OPSEL is a byte/half select here.
    let v = src_raw(l, 0, K::B32)?;
    let sel = inst.mods.op_sel;
    if base.starts_with("cvt_pk_") {
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

/// The OCP 8-bit code (low byte) of the f32 values `x` (RNE, or truncation toward zero for
/// the stochastic forms whose random bits are already added) (RDNA4 ISA 7.5, 7.6.2).
///
/// The magnitude is scaled by `2^-k`, where `2^k` is the target's spacing at its binade
/// (`k = max(exponent, emin) - mantissa bits`), rounded to an integer and scaled back, all
/// exact f32 operations. Beyond the largest finite value: FP16_OVFL (MODE bit 23) saturates
/// to ±max, otherwise FP8 gives NaN and BF8 ±infinity. A NaN input gives the quiet code
/// `S.1111.111` (FP8) or `S.11111.10` (BF8) with the input's sign.
fn f32_to_ocp8(l: &mut Lifter, x: Val, bf8: bool, truncate: bool) -> Val {
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

/// `v_cvt_pk_fp8/bf8_f32` (two RNE conversions into the 16-bit half `op_sel[3]` selects)
/// and `v_cvt_sr_fp8/bf8_f32` (stochastic rounding: `S1[31:12]` (FP8) or `S1[31:11]` (BF8)
/// added to the mantissa, wrapping within the 23 bits, then truncation; the byte `op_sel[3:2]`
/// selects); the rest of the destination is kept (RDNA4 ISA, V_CVT_PK_FP8_F32,
/// V_CVT_SR_FP8_F32).
fn cvt_to_ocp8(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.clamp {
        return Err("clamp on an FP8/BF8 conversion is not supported".into());
    }
    l.count_vector();
    let bf8 = base.contains("bf8");
    let a = l.src(0, K::F32)?;
    let reg = inst.dst[0]
        .vreg()
        .ok_or("conversion destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let sel = inst.mods.op_sel;
    let r = if base.starts_with("cvt_pk_") {
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

// ---- dot products ------------------------------------------------------------------------------

/// `v_dot4_i32_iu8`/`v_dot8_i32_iu4` (RDNA4 ISA 16.10): NEG[0]/NEG[1] make the elements
/// of S0/S1 signed, D = S2 + sum of the products. With clamp the exact sum is saturated to
/// the i32 range, although RDNA4 7.2.3.1 lists V_DOT4_I32_IU8 (and V_DOT4_U32_U8) among the
/// instructions that ignore clamp: the toolchains rely on saturation on GFX11/GFX12. LLVM 22
/// lowers `llvm.amdgcn.sdot4/sdot8(..., clamp=true)` to the clamped instruction, and LLVM
/// PR 187945 selects it for `saddsat(dot, c)`; Mesa (RADV and radeonsi) declares
/// `has_sdot_4x8_sat` on every GPU with dot instructions and ACO emits `v_dot4_i32_iu8 ...
/// clamp` for SPIR-V's saturating `OpSDotAccSat`/`OpSUDotAccSat` on GFX11+ (else NIR would
/// lower them to `iadd_sat(dot(a, b, 0), c)`, the exact sum saturated once, as here).
/// (ARCHITECTURE "Open ISA questions (RDNA)".)
fn dot_iu(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.op_sel & 7 != 0 || inst.mods.op_sel_hi & 7 != 7 || inst.mods.neg_hi != 0 {
        return Err("op_sel or neg_hi on an integer dot product is not supported".into());
    }
    l.count_vector();
    let (bits, n) = if base.starts_with("dot4") {
        (8u64, 4u64)
    } else {
        (4, 8)
    };
    let clamp = inst.mods.clamp;
    let a = l.src(0, K::B32)?;
    let b = l.src(1, K::B32)?;
    let c = l.src(2, K::B32)?;
    // With clamp the sum is formed in 64 bits (exact), else in 32 (wrapping).
    let wide = |l: &mut Lifter, v: Val| {
        if clamp {
            l.conv(ConvOp::SExt, v)
        } else {
            v
        }
    };
    let mut acc = wide(l, c);
    let (sa, sb) = (inst.mods.neg & 1 != 0, inst.mods.neg & 2 != 0);
    let elem = |l: &mut Lifter, v: Val, i: u64, signed: bool| {
        // Element i into the top bits, then shifted down (arithmetic when signed).
        let t = l.shl_imm(v, 32 - bits * (i + 1));
        if signed {
            l.ashr_imm(t, 32 - bits)
        } else {
            l.lshr_imm(t, 32 - bits)
        }
    };
    for i in 0..n {
        let x = elem(l, a, i, sa);
        let y = elem(l, b, i, sb);
        // |x * y| <= 255 * 255: exact as an i32.
        let p = l.bin(BinOp::Mul, x, y);
        let p = wide(l, p);
        acc = l.add(acc, p);
    }
    if clamp {
        let lo = l.cst(acc, i32::MIN as i64 as u64);
        let hi = l.cst(acc, i32::MAX as u64);
        let t = l.bin(BinOp::SMax, acc, lo);
        let t = l.bin(BinOp::SMin, t, hi);
        acc = l.conv(ConvOp::Lo, t);
    }
    l.vdst32(acc)
}

/// A 16-bit element of VOP3P source `i` ([`packed_elem`]) as f32 (`bf16`: the bits shifted
/// up; else the f16 converted, MODE input denormals flushed).
fn dot_half(l: &mut Lifter, inst: &Inst, i: usize, hi_elem: bool, bf16: bool) -> R<Val> {
    let v = packed_elem(l, inst, i, hi_elem)?;
    Ok(half_to_f32(l, v, bf16))
}

/// The f32 value of the 16-bit float in the low bits of `v`: bf16 shifted up, or f16 with
/// MODE input denormals flushed, converted exactly.
fn half_to_f32(l: &mut Lifter, v: Val, bf16: bool) -> Val {
    if bf16 {
        return l.shl_imm(v, 16);
    }
    let v = if l.denorm_allowed(K::F16, 1) {
        v
    } else {
        l.flush_denorm(v, K::F16)
    };
    l.conv(ConvOp::F16ToF32, v)
}

/// The float dot products into f32: `v_dot2_f32_f16/bf16`, `v_dot2acc_f32_f16/bf16` (the
/// destination is the addend), gfx12 `v_dot4_f32_{fp8,bf8}_{fp8,bf8}`. Following the
/// pseudocode, `tmp = S2; tmp += A[i] * B[i]` element by element: every product is exact in
/// f32 (f16, bf16 and 8-bit significands), each addition rounds once.
fn dot_float(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let m = inst.mods;
    if m.omod != 0 {
        return Err("output modifier on a dot product".into());
    }
    l.count_vector();
    let acc_form = base.starts_with("dot2acc");
    let fp8 = base.starts_with("dot4");
    let (pa, pb): (Vec<Val>, Vec<Val>) = if fp8 {
        if m.op_sel & 3 != 0 || m.neg & 3 != 0 || m.neg_hi & 3 != 0 {
            return Err("op_sel or neg on an FP8 dot product is not supported".into());
        }
        let a = l.src(0, K::B32)?;
        let b = l.src(1, K::B32)?;
        let abf = base.contains("_bf8_") && base.starts_with("dot4_f32_bf8");
        let bbf = base.ends_with("_bf8");
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for i in 0..4u64 {
            let x = l.lshr_imm(a, 8 * i);
            xs.push(ocp8_to_f32(l, x, abf));
            let y = l.lshr_imm(b, 8 * i);
            ys.push(ocp8_to_f32(l, y, bbf));
        }
        (xs, ys)
    } else {
        let bf16 = base.ends_with("bf16");
        if acc_form {
            // VOP2 (or VOPD): plain 32-bit sources, abs/neg per source as f16/bf16 pairs.
            let mut out = (Vec::new(), Vec::new());
            for (i, dst) in [(0usize, &mut out.0), (1, &mut out.1)] {
                let v = src_raw(l, i, K::B32)?;
                for h in 0..2u64 {
                    let x = if h == 1 { l.lshr_imm(v, 16) } else { v };
                    let mut x = l.and_imm(x, 0xffff);
                    if m.abs >> i & 1 != 0 {
                        x = l.and_imm(x, 0x7fff);
                    }
                    if m.neg >> i & 1 != 0 {
                        let c = l.cst(x, 0x8000);
                        x = l.xor(x, c);
                    }
                    dst.push(if bf16 {
                        l.shl_imm(x, 16)
                    } else {
                        l.conv(ConvOp::F16ToF32, x)
                    });
                }
            }
            out
        } else {
            if m.op_sel & 4 != 0 || m.neg_hi & 4 != 0 {
                return Err("op_sel or neg_hi on the f32 addend of a dot product".into());
            }
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            for hi in [false, true] {
                xs.push(dot_half(l, inst, 0, hi, bf16)?);
                ys.push(dot_half(l, inst, 1, hi, bf16)?);
            }
            (xs, ys)
        }
    };
    let mut acc = if acc_form {
        let d = inst.dst[0]
            .vreg()
            .ok_or("dot2acc destination is not a VGPR")?;
        l.get_vreg(d)?
    } else {
        src_with_mods(l, 2, K::F32, |m| {
            m.neg &= 4;
            m.abs = 0;
        })?
    };
    for (x, y) in pa.into_iter().zip(pb) {
        let p = l.bin(BinOp::FMul, x, y);
        acc = l.bin(BinOp::FAdd, acc, p);
    }
    let r = l.fout(acc, K::F32)?;
    l.vdst32(r)
}

/// The two 16-bit elements of a 32-bit VOP3 source (low, high), as f32: a register or literal
/// holds both; an inline constant is replicated into both halves (RDNA4 ISA 7.2.2, "Inline
/// constants with V_DOT2_..."). f16 elements are MODE-flushed and converted exactly; bf16
/// elements are the high 16 bits of an f32.
fn vop3_pair(l: &mut Lifter, inst: &Inst, i: usize, bf16: bool) -> R<[Val; 2]> {
    let o = inst.src[i];
    let whole = o.vreg().is_some() || o.sreg().is_some() || o.code == crate::isa::Opnd::LITERAL;
    let (lo, hi) = if whole {
        let v = src_raw(l, i, K::B32)?;
        (l.and_imm(v, 0xffff), l.lshr_imm(v, 16))
    } else {
        if bf16 && (240..=248).contains(&o.code) {
            return Err("inline float constant on a bf16 operand".into());
        }
        let v = src_raw(l, i, K::F16)?;
        let v = l.and_imm(v, 0xffff);
        (v, v)
    };
    Ok([half_to_f32(l, lo, bf16), half_to_f32(l, hi, bf16)])
}

/// `v_dot2_f16_f16` and `v_dot2_bf16_bf16` (RDNA4 ISA): `tmp = S2; tmp += S0[15:0] *
/// S1[15:0]; tmp += S0[31:16] * S1[31:16]; D = tmp` with `tmp` of the result type, so each
/// step is a fused multiply-add rounded once to f16 (bf16). OPSEL[2] selects the half of S2,
/// OPSEL[3] the half of D written, OPSEL[1:0] are ignored. bf16 steps round to odd in f32
/// (the exact FMA truncated, its last bit set when inexact) and then to nearest-even bf16,
/// which is the exact sum rounded once.
fn dot2_16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let m = inst.mods;
    if m.clamp || m.omod != 0 {
        return Err("output modifiers on a 16-bit dot product".into());
    }
    if (m.abs | m.neg) & 3 != 0 {
        return Err("abs/neg on the packed sources of a 16-bit dot product".into());
    }
    let bf16 = base == "dot2_bf16_bf16";
    let f16_round = Round::from_field(l.mode >> 2);
    if bf16 && (f16_round != Round::NearestEven || l.mode & 3 != 0) {
        return Err("bf16 dot product under a directed MODE round mode".into());
    }
    l.count_vector();
    let a = vop3_pair(l, inst, 0, bf16)?;
    let b = vop3_pair(l, inst, 1, bf16)?;
    let mut t = if bf16 {
        // The raw half (OPSEL[2]); ABS/NEG act on its sign bit.
        let c = l.src(2, K::B16)?;
        let c = if m.abs & 4 != 0 {
            l.and_imm(c, 0x7fff)
        } else {
            c
        };
        let c = if m.neg & 4 != 0 {
            let s = l.cst(c, 0x8000);
            l.xor(c, s)
        } else {
            c
        };
        l.and_imm(c, 0xffff)
    } else {
        l.src(2, K::F16)?
    };
    let ovfl = l.mode >> 23 & 1 != 0;
    for (x, y) in a.into_iter().zip(b) {
        t = if bf16 {
            let acc = l.shl_imm(t, 16);
            let step = |l: &mut Lifter, r: Round| {
                l.lane_fn(
                    LaneFn::Rounded(RoundedOp::FmaF32, r, false),
                    vec![x, y, acc],
                    Ty::V32,
                )
            };
            let (rz, ru, rd) = (
                step(l, Round::Zero),
                step(l, Round::Up),
                step(l, Round::Down),
            );
            let inexact = l.cmp(CmpOp::Ne, ru, rd);
            let one = l.cst(rz, 1);
            let odd = l.or(rz, one);
            let r = l.select(inexact, odd, rz);
            let f = LaneFn::Rounded(RoundedOp::F32ToBf16, Round::NearestEven, false);
            l.lane_fn(f, vec![r], Ty::V32)
        } else {
            let acc = l.conv(ConvOp::F16ToF32, t);
            let f = LaneFn::Rounded(RoundedOp::FmaF32ToF16, f16_round, ovfl);
            l.lane_fn(f, vec![x, y, acc], Ty::V32)
        };
    }
    let t = if !bf16 && !l.denorm_allowed(K::F16, 2) {
        l.flush_denorm(t, K::F16)
    } else {
        t
    };
    write16(l, inst, t)
}

// ---- conversions to 16- and 8-bit integers -------------------------------------------------

/// `v_cvt_pk_i16_f32` / `v_cvt_pk_u16_f32` (RDNA4 ISA): `{cvt16(S1), cvt16(S0)}` where
/// `v_cvt_i16_f32`/`v_cvt_u16_f32` convert toward zero and saturate to the 16-bit range,
/// NaN giving 0 (the rule of `v_cvt_i32_f32` at 16 bits).
fn cvt_pk16_f32(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err("output modifiers on an integer conversion".into());
    }
    l.count_vector();
    let signed = base == "cvt_pk_i16_f32";
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

/// `v_fmac_f16` (`D = fma(S0, S1, D)`), `v_fmaak_f16` (`fma(S0, S1, K)`) and `v_fmamk_f16`
/// (`fma(S0, K, S1)`, LLVM's operand order `S0, K, S1`): lifted as `v_fma_f16` with the
/// accumulator or the constant as the third (or second) source; the destination half of
/// `fmac` is also its accumulator half.
fn fma16_forms(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let mut f = *inst;
    f.op = crate::isa::Op::from_name("v_fma_f16").ok_or("no v_fma_f16 opcode")?;
    f.format = Format::Vop3;
    if base == "fmac_f16" {
        f.src[2] = inst.dst[0];
        if inst.mods.op_sel & 8 != 0 {
            f.mods.op_sel |= 4;
        } else {
            f.mods.op_sel &= !4;
        }
    }
    let (pc, next) = (l.pc, l.next_pc);
    l.begin(&f, pc, next);
    let r = super::valu::lift(l, &f, "v_fma_f16").map(|_| ());
    l.inst = Some(*inst);
    r
}

/// gfx12 `v_pk_minimum_f16` / `v_pk_maximum_f16` (the IEEE-754-2019 rule of
/// `v_minimum_f16`) and `v_pk_min_num_f16` / `v_pk_max_num_f16` (minimumNumber) on each half (low: halves `op_sel[i]`, `neg`; high: `op_sel_hi[i]`,
/// `neg_hi`).
fn pk_minimum16(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.clamp {
        return Err("clamp on a packed min/max is not supported".into());
    }
    l.count_vector();
    let max = base.starts_with("pk_max");
    let rule = if base.contains("_num_") {
        MinMax::Num
    } else {
        MinMax::Ieee2019
    };
    let mut out = Vec::new();
    for hi in [false, true] {
        let v = [packed_elem(l, inst, 0, hi)?, packed_elem(l, inst, 1, hi)?];
        out.push(minmax16(l, rule, max, v[0], v[1]));
    }
    let lo = l.and_imm(out[0], 0xffff);
    let hi = l.shl_imm(out[1], 16);
    let r = l.or(lo, hi);
    l.vdst32(r)
}

/// gfx12 `v_med3_num_f32/f16` (RDNA4 ISA, V_MED3_NUM_F32): with a NaN input, the
/// `min3_num` of the three; otherwise the `max_num` of the two inputs other than the first
/// one equal to their `max3_num`. f16 values are compared as exact f32 conversions.
fn med3_num(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    l.count_vector();
    let f16 = base.ends_with("f16");
    let k = if f16 { K::F16 } else { K::F32 };
    let mut v = Vec::new();
    for i in 0..3 {
        let x = l.src(i, k)?;
        v.push(if f16 { l.conv(ConvOp::F16ToF32, x) } else { x });
    }
    let (a, b, c) = (v[0], v[1], v[2]);
    let mn = |l: &mut Lifter, x: Val, y: Val| l.bin(BinOp::FMinNum, x, y);
    let mx = |l: &mut Lifter, x: Val, y: Val| l.bin(BinOp::FMaxNum, x, y);
    let t = mn(l, a, b);
    let min3 = mn(l, t, c);
    let t = mx(l, a, b);
    let max3 = mx(l, t, c);
    let any_nan = {
        let na = l.cmp(CmpOp::FUno, a, a);
        let nb = l.cmp(CmpOp::FUno, b, b);
        let nc = l.cmp(CmpOp::FUno, c, c);
        let t = l.or(na, nb);
        l.or(t, nc)
    };
    let is_a = l.cmp(CmpOp::FEq, max3, a);
    let is_b = l.cmp(CmpOp::FEq, max3, b);
    let bc = mx(l, b, c);
    let ac = mx(l, a, c);
    let ab = mx(l, a, b);
    let r = l.select(is_b, ac, ab);
    let r = l.select(is_a, bc, r);
    let r = l.select(any_nan, min3, r);
    if f16 {
        let h = l.conv(ConvOp::F32ToF16, r);
        let h = super::valu::out16(l, inst, h)?;
        write16(l, inst, h)
    } else {
        let r = l.fout(r, K::F32)?;
        l.vdst32(r)
    }
}

/// `v_sat_pk_u8_i16`: both signed 16-bit halves of S0 saturated to 0..=255, packed into a
/// 16-bit result (RDNA4 ISA, V_SAT_PK_U8_I16).
fn sat_pk_u8(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let v = l.src(0, K::B32)?;
    let mut out = Vec::new();
    for hi in [false, true] {
        let x = if hi { l.lshr_imm(v, 16) } else { v };
        let x = l.conv(ConvOp::SExt16, x);
        let zero = l.cst(x, 0);
        let top = l.cst(x, 255);
        let x = l.bin(BinOp::SMax, x, zero);
        out.push(l.bin(BinOp::SMin, x, top));
    }
    let h = l.shl_imm(out[1], 8);
    let r = l.or(out[0], h);
    write16(l, inst, r)
}

/// `v_movrels_b32` (`D = VGPR[src + M0]`), `v_movreld_b32` (`VGPR[dst + M0] = S0`),
/// `v_movrelsd_b32` (both indexed by M0) and `v_movrelsd_2_b32` (source by M0[9:0],
/// destination by M0[25:16]) (RDNA4 ISA, V_MOVRELS_B32). Out of range (index > 255 or
/// register + index past v255, ISA 3.3.2.2): a source reads v0, a destination makes the
/// instruction a no-op.
fn movrel(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    if inst.mods.abs != 0 || inst.mods.neg != 0 || inst.mods.omod != 0 || inst.mods.clamp {
        return Err("modifiers on a relative move".into());
    }
    l.count_vector();
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let (sidx, didx) = if base == "movrelsd_2_b32" || base == "swaprel_b32" {
        let s = l.and_imm(m0, 0x3ff);
        let d = l.lshr_imm(m0, 16);
        let d = l.and_imm(d, 0x3ff);
        (s, d)
    } else {
        (m0, m0)
    };
    // Register + index, and whether it is in range (index <= 255, sum <= 255).
    let rel = |l: &mut Lifter, reg: u16, idx: Val| {
        let max_idx = l.c32(255);
        let idx_ok = l.cmp(CmpOp::ULe, idx, max_idx);
        let limit = l.c32(255 - reg as u32);
        let sum_ok = l.cmp(CmpOp::ULe, idx, limit);
        let ok = l.and(idx_ok, sum_ok);
        let r = l.add_imm(idx, reg as u64);
        let zero = l.c32(0);
        (l.select(ok, r, zero), ok)
    };
    if base == "swaprel_b32" {
        // VGPR[dst + M0[25:16]] <-> VGPR[src + M0[9:0]]; either out of range: no effect.
        let d = inst.dst[0].vreg().filter(|&r| r < 256);
        let s0 = inst.src[0].vreg().filter(|&r| r < 256);
        let (Some(d), Some(s0)) = (d, s0) else {
            return Err("relative swap operands are not VGPRs".into());
        };
        let (di, dok) = rel(l, d, didx);
        let (si, sok) = rel(l, s0, sidx);
        let ok = l.and(dok, sok);
        let dv = l.push_op(crate::ir::Op::GetVgprDyn { base: 0, index: di }, Ty::V32);
        let sv = l.push_op(crate::ir::Op::GetVgprDyn { base: 0, index: si }, Ty::V32);
        let exec = l.exec();
        let none = l.c64(0);
        let mask = l.select(ok, exec, none);
        l.effect(crate::ir::Op::SetVgprDyn {
            base: 0,
            index: di,
            val: sv,
            mask,
        });
        l.effect(crate::ir::Op::SetVgprDyn {
            base: 0,
            index: si,
            val: dv,
            mask,
        });
        return Ok(());
    }
    let src_rel = base != "movreld_b32";
    let dst_rel = base != "movrels_b32";
    let v = if src_rel {
        let reg = inst.src[0]
            .vreg()
            .ok_or("relative move source is not a VGPR")?;
        if reg >= 256 {
            return Err("relative move source is not a VGPR".into());
        }
        let (index, _) = rel(l, reg, sidx);
        l.push_op(crate::ir::Op::GetVgprDyn { base: 0, index }, Ty::V32)
    } else {
        l.src(0, K::B32)?
    };
    let exec = l.exec();
    if dst_rel {
        let reg = inst.dst[0]
            .vreg()
            .ok_or("relative move destination is not a VGPR")?;
        if reg >= 256 {
            return Err("relative move destination is not a VGPR".into());
        }
        let (index, ok) = rel(l, reg, didx);
        let none = l.c64(0);
        let mask = l.select(ok, exec, none);
        l.effect(crate::ir::Op::SetVgprDyn {
            base: 0,
            index,
            val: v,
            mask,
        });
        Ok(())
    } else {
        l.vdst32(v)
    }
}
