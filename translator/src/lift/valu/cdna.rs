//! GFX9 (CDNA3/CDNA4) VALU instructions without an RDNA lifting function of the same
//! semantics: `v_prng_b32`, `v_ashr_pk_{i8,u8}_i32`, `v_cvt_pkaccum_u8_f32` and the bf16 dot
//! products `v_dot2_f32_bf16`/`v_dot2c_f32_bf16` (gfx950); the cube-map ops
//! `v_cube{id,sc,tc,ma}_f32` are RDNA's (`float::cube`) with GFX9's denormal rule.
//!
//! The definitions are the pseudocode of AMD's CDNA4 ISA guide, chapter 12 (VOP1 `V_PRNG_B32`,
//! VOP2 `V_DOT2C_F32_BF16`, VOP3 `V_ASHR_PK_*`/`V_CVT_PKACCUM_U8_F32`, VOP3P
//! `V_DOT2_F32_BF16`), cited at each function.

use super::common::{dot_default_sel, prng_step, src_raw};
use super::convert::cvt_pk_u8;
use crate::ir::{BinOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::{Inst, Opnd};
use crate::lift::operand::{inline_const, K, R};
use crate::lift::Lifter;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_PRNG_B32 => prng(l, inst),
        V_ASHR_PK_I8_I32 | V_ASHR_PK_U8_I32 => ashr_pk(l, inst, op == V_ASHR_PK_I8_I32),
        V_CVT_PKACCUM_U8_F32 => pkaccum(l, inst),
        V_DOT2_F32_BF16 => dot2_bf16(l, inst),
        V_DOT2C_F32_BF16 => dot2c_bf16(l, inst),
        // Cube-map math, defined once with RDNA's (RDNA4 ISA 16.12) pseudocode; GFX9 follows
        // MODE for denormals (see `float::cube`).
        V_CUBEID_F32 | V_CUBESC_F32 | V_CUBETC_F32 | V_CUBEMA_F32 => {
            super::float::cube(l, op, false)
        }
        _ => Err("not supported".into()),
    }
}

/// Rejects clamp and OMOD, which these integer/bit operations do not define.
fn no_out_mods(inst: &Inst, what: &str) -> R<()> {
    if inst.mods.clamp || inst.mods.omod != 0 {
        return Err(format!("clamp or output modifier on {what}"));
    }
    Ok(())
}

/// `v_prng_b32` (CDNA4 ISA, V_PRNG_B32): one step of a 32-bit Galois LFSR,
/// `D = (S0 << 1) ^ (S0[31] ? 197 : 0)` (period 2^32 - 1 for a non-zero seed).
fn prng(l: &mut Lifter, inst: &Inst) -> R<()> {
    no_out_mods(inst, "v_prng_b32")?;
    l.count_vector();
    let x = l.src(0, K::B32)?;
    let r = prng_step(l, x);
    l.vdst32(r)
}

/// `v_ashr_pk_i8_i32` / `v_ashr_pk_u8_i32` (CDNA4 ISA, V_ASHR_PK_I8_I32): `S0.i32 >> S2[4:0]`
/// and `S1.i32 >> S2[4:0]` (arithmetic), each saturated to [-128, 127] (or [0, 255]), packed
/// into D[7:0] and D[15:8]. The pseudocode assigns only `D0[15:0]`: D[31:16] is kept.
/// `op_sel` on these 32-bit sources has no meaning in the ISA and is rejected.
fn ashr_pk(l: &mut Lifter, inst: &Inst, signed: bool) -> R<()> {
    no_out_mods(inst, "v_ashr_pk")?;
    if inst.mods.op_sel != 0 {
        return Err("op_sel on v_ashr_pk (32-bit sources) is not defined".into());
    }
    l.count_vector();
    let s2 = l.src(2, K::B32)?;
    let sh = l.and_imm(s2, 31);
    let (lo, hi) = if signed {
        ((-128i32) as u32 as u64, 127u64)
    } else {
        (0u64, 255u64)
    };
    let mut bytes = Vec::new();
    for i in 0..2 {
        let x = l.src(i, K::B32)?;
        let v = l.bin(BinOp::AShr, x, sh);
        let lo_v = l.cst(v, lo);
        let hi_v = l.cst(v, hi);
        let v = l.bin(BinOp::SMax, v, lo_v);
        let v = l.bin(BinOp::SMin, v, hi_v);
        bytes.push(l.and_imm(v, 0xff));
    }
    let b1 = l.shl_imm(bytes[1], 8);
    let packed = l.or(bytes[0], b1);
    let reg = inst.dst[0]
        .vreg()
        .ok_or("v_ashr_pk destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let keep = l.and_imm(old, 0xffff_0000);
    let r = l.or(keep, packed);
    l.vdst32(r)
}

/// `v_cvt_pkaccum_u8_f32` (CDNA4 ISA, V_CVT_PKACCUM_U8_F32): `f32_to_u8(S0)` into byte
/// `S1[1:0]` of D, the other bytes of D kept; "this opcode uses src_c to pass destination in
/// as a source", i.e. `v_cvt_pk_u8_f32` with S2 = D (shared with RDNA's `v_cvt_pk_u8_f32`).
fn pkaccum(l: &mut Lifter, inst: &Inst) -> R<()> {
    let mut with_d = *inst;
    with_d.src[2] = inst.dst[0];
    // The destination read as S2 takes no modifiers.
    with_d.mods.neg &= 3;
    with_d.mods.abs &= 3;
    let saved = l.inst.replace(with_d);
    let r = cvt_pk_u8(l, &with_d);
    l.inst = saved;
    r
}

/// The 16-bit bf16 element `hi` of source `i` before modifiers: a register holds both
/// elements; an inline constant is used for both, a float one in bf16 form (the high half of
/// its f32 encoding: 1.0 is 0x3f80), an integer one as its low 16 bits; a literal holds both.
fn bf16_elem(l: &mut Lifter, inst: &Inst, i: usize, hi: bool) -> R<Val> {
    let o: Opnd = inst.src[i];
    let v = if let Some(bits) = (240..=248)
        .contains(&o.code)
        .then(|| inline_const(o.code, K::F32))
        .flatten()
    {
        let x = src_raw(l, i, K::B32)?;
        l.cst(x, bits >> 16)
    } else {
        let v = src_raw(l, i, K::B32)?;
        let inline_int = (128..=208).contains(&o.code);
        if hi && !inline_int {
            l.lshr_imm(v, 16)
        } else {
            v
        }
    };
    Ok(l.and_imm(v, 0xffff))
}

/// A bf16 element as f32 lanes, negated when `neg`, denormals flushed to signed zero ("V_DOT2
/// instructions operating on floating point data ... flush input and output denorms",
/// CDNA4 ISA 6.4).
fn bf16_to_f32(l: &mut Lifter, v: Val, neg: bool) -> Val {
    let v = if neg {
        let c = l.cst(v, 0x8000);
        l.xor(v, c)
    } else {
        v
    };
    let f = l.shl_imm(v, 16);
    l.flush_denorm(f, K::F32)
}

/// The result of a float dot product: output denormals flushed, then clamped to [0, 1] with
/// `clamp` (the rule of `v_dot2_f32_f16`).
fn dot_out(l: &mut Lifter, inst: &Inst, r: Val) -> R<()> {
    if inst.mods.omod != 0 {
        return Err("output modifier on a dot product is not supported".into());
    }
    let r = l.flush_denorm(r, K::F32);
    let r = if inst.mods.clamp {
        let z = l.cst(r, 0);
        let o = l.cst(r, 0x3f80_0000);
        let t = l.bin(BinOp::FMaxNum, r, z);
        l.bin(BinOp::FMinNum, t, o)
    } else {
        r
    };
    l.vdst32(r)
}

/// `a0 * b0 + a1 * b1` in the order of the pseudocode, starting from `acc` when it is given
/// (`tmp = acc; tmp += p0; tmp += p1`), else from the first product.
fn dot2_sum(l: &mut Lifter, acc: Option<Val>, a: [Val; 2], b: [Val; 2]) -> Val {
    let mut tmp = acc;
    for k in 0..2 {
        let p = l.bin(BinOp::FMul, a[k], b[k]);
        tmp = Some(match tmp {
            Some(t) => l.bin(BinOp::FAdd, t, p),
            None => p,
        });
    }
    tmp.unwrap_or_else(|| l.cst(a[0], 0))
}

/// gfx950 `v_dot2_f32_bf16` (VOP3P; CDNA4 ISA, V_DOT2_F32_BF16):
/// `tmp = S0.bf16[0] * S1.bf16[0]; tmp += S0.bf16[1] * S1.bf16[1]; tmp += S2.f32`, each step an
/// f32 operation rounded to nearest even (V_DOT2 ignores MODE). The elements are taken in
/// order (a non-default `op_sel`/`op_sel_hi` is not lifted: [`dot_default_sel`])
/// and negated by `neg_lo`/`neg_hi`; "NEG and ABS input modifiers do not affect S2". Denormal inputs (S2 too) and
/// the result are flushed; intermediate sums are not (the ISA does not say).
fn dot2_bf16(l: &mut Lifter, inst: &Inst) -> R<()> {
    dot_default_sel(inst)?;
    l.count_vector();
    let m = inst.mods;
    let mut a = Vec::new();
    let mut b = Vec::new();
    for hi in [false, true] {
        for (i, out) in [(0usize, &mut a), (1, &mut b)] {
            let (sel, neg) = if hi {
                (m.op_sel_hi, m.neg_hi)
            } else {
                (m.op_sel, m.neg)
            };
            let e = bf16_elem(l, inst, i, sel >> i & 1 != 0)?;
            out.push(bf16_to_f32(l, e, neg >> i & 1 != 0));
        }
    }
    let c = src_raw(l, 2, K::F32)?;
    let c = l.flush_denorm(c, K::F32);
    let p = dot2_sum(l, None, [a[0], a[1]], [b[0], b[1]]);
    let r = l.bin(BinOp::FAdd, p, c);
    dot_out(l, inst, r)
}

/// gfx950 `v_dot2c_f32_bf16` (VOP2, also VOP3 and DPP; CDNA4 ISA, V_DOT2C_F32_BF16):
/// `tmp = D.f32; tmp += S0.bf16[0] * S1.bf16[0]; tmp += S0.bf16[1] * S1.bf16[1]`, each step
/// an f32 operation rounded to nearest even. "ABS[1:0] are used as NEG_HI[1:0]": NEG negates
/// the low elements, ABS the high ones. Denormals flushed as in [`dot2_bf16`].
fn dot2c_bf16(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let m = inst.mods;
    let mut a = Vec::new();
    let mut b = Vec::new();
    for hi in [false, true] {
        for (i, out) in [(0usize, &mut a), (1, &mut b)] {
            let neg = if hi { m.abs } else { m.neg };
            let e = bf16_elem(l, inst, i, hi)?;
            out.push(bf16_to_f32(l, e, neg >> i & 1 != 0));
        }
    }
    let d = l.v32(inst.dst[0], K::B32)?;
    let d = l.flush_denorm(d, K::F32);
    let r = dot2_sum(l, Some(d), [a[0], a[1]], [b[0], b[1]]);
    dot_out(l, inst, r)
}
