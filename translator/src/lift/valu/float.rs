//! f32/f64 arithmetic: add/sub/mul, fma/mad forms, min/max/min3/max3/med3 (GFX9 rules),
//! IEEE maximum3/minimum3, ldexp, rounding to integral values, the division helpers,
//! `v_trig_preop_f64`, the cube-map ops.

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, TernOp, Ty, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::{Inst, Opnd};
use crate::lift::operand::{K, R};
use crate::lift::Lifter;
use BinOp::*;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_ADD_F32 => fbin(l, FAdd, K::F32, false),
        V_SUB_F32 => fbin(l, FSub, K::F32, false),
        V_SUBREV_F32 => fbin(l, FSub, K::F32, true),
        V_MUL_F32 => fbin(l, FMul, K::F32, false),
        V_MIN_F32 | V_MAX_F32 | V_MIN_F64 | V_MAX_F64 => {
            let k = if matches!(op, V_MIN_F64 | V_MAX_F64) {
                K::F64
            } else {
                K::F32
            };
            let a = l.src(0, k)?;
            let b = if l.same_source(0, 1)? {
                a
            } else {
                l.src(1, k)?
            };
            let r = fminmax(l, matches!(op, V_MAX_F32 | V_MAX_F64), k, a, b);
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }
        V_ADD_F64 => fbin(l, FAdd, K::F64, false),
        V_MUL_F64 => fbin(l, FMul, K::F64, false),
        V_LDEXP_F32 | V_LDEXP_F64 => {
            let k = if op == V_LDEXP_F32 { K::F32 } else { K::F64 };
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
        V_FMA_F32 | V_FMA_F64 | V_FMAC_F32 | V_FMAC_F64 => {
            let k = if matches!(op, V_FMA_F32 | V_FMAC_F32) {
                K::F32
            } else {
                K::F64
            };
            let a = l.src(0, k)?;
            let b = l.src(1, k)?;
            let c = if matches!(op, V_FMAC_F32 | V_FMAC_F64) {
                acc_src(l, inst, k)?
            } else {
                l.src(2, k)?
            };
            let r = ffma(l, k, a, b, c);
            let r = l.fout(r, k)?;
            wr(l, r, k)
        }
        V_FMAMK_F32 | V_FMAAK_F32 => {
            // The decoder places the constant K as a literal source in LLVM's operand order,
            // so both forms are `D = S0 * S1 + S2`.
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let r = ffma(l, K::F32, a, b, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        V_MIN3_F32 | V_MAX3_F32 => {
            // V_MIN3_F32 = V_MIN_F32(V_MIN_F32(S0, S1), S2), likewise max3.
            let max = op == V_MAX3_F32;
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let t = fminmax(l, max, K::F32, a, b);
            let r = fminmax(l, max, K::F32, t, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        V_MED3_F32 => {
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let r = fmed3(l, a, b, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }

        V_MAXIMUM3_F32 | V_MINIMUM3_F32 => {
            // gfx950: IEEE 754-2019 maximum/minimum of three (NaN propagates, −0 < +0).
            let max = op == V_MAXIMUM3_F32;
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let c = l.src(2, K::F32)?;
            let t = fmaximum(l, max, K::F32, a, b);
            let r = fmaximum(l, max, K::F32, t, c);
            let r = l.fout(r, K::F32)?;
            l.vdst32(r)
        }
        V_MUL_LEGACY_F32 => {
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
        V_FRACT_F32 => fun(l, UnOp::FFract, K::F32),
        V_FRACT_F64 => fun(l, UnOp::FFract, K::F64),
        V_TRUNC_F32 => fun(l, UnOp::FTrunc, K::F32),
        V_TRUNC_F64 => fun(l, UnOp::FTrunc, K::F64),
        V_CEIL_F32 => fun(l, UnOp::FCeil, K::F32),
        V_CEIL_F64 => fun(l, UnOp::FCeil, K::F64),
        V_FLOOR_F32 => fun(l, UnOp::FFloor, K::F32),
        V_FLOOR_F64 => fun(l, UnOp::FFloor, K::F64),
        V_RNDNE_F32 => fun(l, UnOp::FRoundEven, K::F32),
        V_RNDNE_F64 => fun(l, UnOp::FRoundEven, K::F64),
        V_DIV_SCALE_F32 | V_DIV_SCALE_F64 => {
            let k = if op == V_DIV_SCALE_F32 {
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
        V_DIV_FMAS_F32 | V_DIV_FMAS_F64 => {
            let k = if op == V_DIV_FMAS_F32 { K::F32 } else { K::F64 };
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
        V_DIV_FIXUP_F32 | V_DIV_FIXUP_F64 => {
            let k = if op == V_DIV_FIXUP_F32 {
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

        V_TRIG_PREOP_F64 => {
            let a = l.src(0, K::F64)?;
            let b = l.src(1, K::B32)?;
            let r = l.lane_fn(LaneFn::TrigPreopF64, vec![a, b], Ty::V64);
            let r = l.fout(r, K::F64)?;
            l.vdst64(r)
        }
        _ => Err("not supported".into()),
    }
}

/// `v_cubeid/cubesc/cubetc/cubema_f32` of the coordinate (x, y, z) = (S0, S1, S2) (RDNA4 ISA
/// 16.12, V_CUBEID_F32 ... V_CUBEMA_F32): the major axis is z when |z| >= |x| and |z| >= |y|,
/// else y when |y| >= |x|, else x (a NaN compares false); the face id (0-5), the S and T
/// coordinates on that face (source values, sign-flipped by the pseudocode's rules) and twice
/// the major-axis value. With `always_flush` (RDNA) these ops flush input and output
/// denormals whatever MODE says (RDNA4 ISA 7.2.4: "These opcodes flush input and output
/// denorms: ..., CUBExx_F32"); without it (GFX9) MODE.FP_DENORM decides, as for every other
/// f32 op. The CDNA4 chapters at hand name these ops only in an opcode table (CDNA4 ISA 6.3)
/// and do not repeat RDNA's list, so GFX9 keeps the general rule; wavejit treats GFX9's
/// f32 transcendentals the same way (`valu::flushes_denormals`).
pub(in crate::lift) fn cube(l: &mut Lifter, op: ValuSem, always_flush: bool) -> R<()> {
    l.count_vector();
    let mut v = Vec::with_capacity(3);
    for i in 0..3 {
        let x = l.src(i, K::F32)?;
        v.push(if always_flush {
            l.flush_denorm(x, K::F32)
        } else {
            x
        });
    }
    let (x, y, z) = (v[0], v[1], v[2]);
    let (ax, ay, az) = (
        l.and_imm(x, 0x7fff_ffff),
        l.and_imm(y, 0x7fff_ffff),
        l.and_imm(z, 0x7fff_ffff),
    );
    let zx = l.cmp(CmpOp::FGe, az, ax);
    let zy = l.cmp(CmpOp::FGe, az, ay);
    let zmaj = l.and(zx, zy);
    let ymaj = l.cmp(CmpOp::FGe, ay, ax);
    let zero = l.cst(x, 0);
    let neg = |l: &mut Lifter, a: Val| {
        let m = l.cst(a, 0x8000_0000);
        l.xor(a, m)
    };
    let lt0 = |l: &mut Lifter, a: Val| l.cmp(CmpOp::FLt, a, zero);
    // The value on each branch: (z major, y major, x major).
    let (on_z, on_y, on_x) = match op {
        V_CUBEID_F32 => {
            let face = |l: &mut Lifter, a: Val, pos: f32| {
                let (p, n) = (
                    l.cst(a, pos.to_bits().into()),
                    l.cst(a, (pos + 1.0).to_bits().into()),
                );
                let is_neg = lt0(l, a);
                l.select(is_neg, n, p)
            };
            (face(l, z, 4.0), face(l, y, 2.0), face(l, x, 0.0))
        }
        V_CUBESC_F32 => {
            let nx = neg(l, x);
            let zn = lt0(l, z);
            let on_z = l.select(zn, nx, x);
            let nz = neg(l, z);
            let xn = lt0(l, x);
            let on_x = l.select(xn, z, nz);
            (on_z, x, on_x)
        }
        V_CUBETC_F32 => {
            let ny = neg(l, y);
            let nz = neg(l, z);
            let yn = lt0(l, y);
            let on_y = l.select(yn, nz, z);
            (ny, on_y, ny)
        }
        _ => {
            let two = l.cst(x, 2.0f32.to_bits().into());
            let (mz, my, mx) = (
                l.bin(BinOp::FMul, z, two),
                l.bin(BinOp::FMul, y, two),
                l.bin(BinOp::FMul, x, two),
            );
            (mz, my, mx)
        }
    };
    let r = l.select(ymaj, on_y, on_x);
    let r = l.select(zmaj, on_z, r);
    let r = l.fout(r, K::F32)?;
    let r = if always_flush {
        l.flush_denorm(r, K::F32)
    } else {
        r
    };
    l.vdst32(r)
}

/// `v_mul_dx9_zero_f32`, `v_fma_dx9_zero_f32`, `v_fmac_dx9_zero_f32`: as `v_mul`/`v_fma`,
/// except that a zero factor gives a zero product even against infinity or NaN (`mul`:
/// +0; `fma`: `S2`) (RDNA4 ISA, V_MUL_DX9_ZERO_F32, V_FMA_DX9_ZERO_F32).
/// On gfx12 the FMA forms flush input and output denormals whatever MODE says (RDNA4 ISA
/// 7.2.4: "These opcodes flush input and output denorms: FMA_DX9_ZERO_F32, ..."; the RDNA3
/// list is an image in our copy, so gfx11 follows MODE).
pub(in crate::lift) fn dx9_zero(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    l.count_vector();
    let flush = op != V_MUL_DX9_ZERO_F32 && l.gpu.family() == Some(crate::isa::Family::Gfx12);
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
    let r = if op == V_MUL_DX9_ZERO_F32 {
        let p = l.bin(BinOp::FMul, a, b);
        l.select(z, zero, p)
    } else {
        let c = if op == V_FMAC_DX9_ZERO_F32 {
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
pub(in crate::lift) fn mullit(l: &mut Lifter) -> R<()> {
    l.count_vector();
    let a = l.src(0, K::F32)?;
    let b = l.src(1, K::F32)?;
    let c = l.src(2, K::F32)?;
    let p = farith(l, BinOp::FMul, K::F32, a, b);
    let neg_max = l.cst(a, 0xff7f_ffff);
    let zero = l.cst(a, 0);
    let b_ok = l.cmp(CmpOp::FGt, b, neg_max);
    let c_ok = l.cmp(CmpOp::FGt, c, zero);
    let ok = l.and(b_ok, c_ok);
    let r = l.select(ok, p, neg_max);
    let r = l.fout(r, K::F32)?;
    l.vdst32(r)
}
