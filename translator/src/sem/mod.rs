//! Scalar reference semantics of the IR ops, one element at a time.
//!
//! Every function here computes one element (one lane, or the uniform value) of an op, on raw
//! bits: 32-bit elements are passed in the low half of a `u64` (high half zero) and returned
//! the same way. The interpreter applies them per lane; the JIT calls the same functions
//! (through `extern "C"` wrappers) for the ops it does not inline, so both engines agree by
//! construction there, and the differential tests check the inlined ones against these.
//!
//! NaN rule (documented in [`crate::ir`]): when an arithmetic float op has a NaN operand, the
//! result is the first NaN operand (in operand order) quieted; when no operand is NaN but the
//! result is NaN (an invalid operation such as `inf - inf`, `0 * inf`, `sqrt(-1)`), the result
//! is the default NaN `0x7FC00000` / `0x7FF8000000000000`.

mod float;
pub mod round;

pub use float::*;

use crate::env::AtomicOp;
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, TernOp, UnOp};

/// Unary op on one element of `bits` width.
pub fn un(op: UnOp, bits: u32, a: u64) -> u64 {
    if bits == 32 {
        un32(op, a as u32) as u64
    } else {
        un64(op, a)
    }
}

fn un32(op: UnOp, a: u32) -> u32 {
    let f = f32::from_bits(a);
    match op {
        UnOp::Not => !a,
        UnOp::Neg => a.wrapping_neg(),
        UnOp::Popcnt => a.count_ones(),
        UnOp::Clz => a.leading_zeros(),
        UnOp::Ctz => a.trailing_zeros(),
        UnOp::BitReverse => a.reverse_bits(),
        UnOp::FNeg => a ^ F32_SIGN,
        UnOp::FAbs => a & !F32_SIGN,
        UnOp::FSqrt => nan_rule32(&[a], f.sqrt()),
        UnOp::FFloor => nan_rule32(&[a], f.floor()),
        UnOp::FCeil => nan_rule32(&[a], f.ceil()),
        UnOp::FTrunc => nan_rule32(&[a], f.trunc()),
        UnOp::FRoundEven => nan_rule32(&[a], f.round_ties_even()),
        UnOp::FRcp => nan_rule32(&[a], 1.0 / f),
        UnOp::FRsq => {
            let s = nan_rule32(&[a], f.sqrt());
            nan_rule32(&[s], 1.0 / f32::from_bits(s))
        }
        UnOp::FFract => {
            let r = f - f.floor();
            // v_fract: the result is clamped below 1.0 (largest f32 below 1 = 0x3F7FFFFF).
            let r = if r >= 1.0 {
                f32::from_bits(0x3F7F_FFFF)
            } else {
                r
            };
            nan_rule32(&[a], r)
        }
        UnOp::FQuiet => {
            if is_nan32(a) {
                a | F32_QUIET
            } else {
                a
            }
        }
    }
}

fn un64(op: UnOp, a: u64) -> u64 {
    let f = f64::from_bits(a);
    match op {
        UnOp::Not => !a,
        UnOp::Neg => a.wrapping_neg(),
        UnOp::Popcnt => a.count_ones() as u64,
        UnOp::Clz => a.leading_zeros() as u64,
        UnOp::Ctz => a.trailing_zeros() as u64,
        UnOp::BitReverse => a.reverse_bits(),
        UnOp::FNeg => a ^ F64_SIGN,
        UnOp::FAbs => a & !F64_SIGN,
        UnOp::FSqrt => nan_rule64(&[a], f.sqrt()),
        UnOp::FFloor => nan_rule64(&[a], f.floor()),
        UnOp::FCeil => nan_rule64(&[a], f.ceil()),
        UnOp::FTrunc => nan_rule64(&[a], f.trunc()),
        UnOp::FRoundEven => nan_rule64(&[a], f.round_ties_even()),
        UnOp::FRcp => nan_rule64(&[a], 1.0 / f),
        UnOp::FRsq => {
            let s = nan_rule64(&[a], f.sqrt());
            nan_rule64(&[s], 1.0 / f64::from_bits(s))
        }
        UnOp::FFract => {
            let r = f - f.floor();
            let r = if r >= 1.0 {
                f64::from_bits(0x3FEF_FFFF_FFFF_FFFF)
            } else {
                r
            };
            nan_rule64(&[a], r)
        }
        UnOp::FQuiet => {
            if is_nan64(a) {
                a | F64_QUIET
            } else {
                a
            }
        }
    }
}

/// Binary op on one element of `bits` width.
pub fn bin(op: BinOp, bits: u32, a: u64, b: u64) -> u64 {
    if bits == 32 {
        bin32(op, a as u32, b as u32) as u64
    } else {
        bin64(op, a, b)
    }
}

/// IEEE minNum/maxNum on f32 bits (see [`BinOp::FMinNum`]).
pub fn minmax32(max: bool, a: u32, b: u32) -> u32 {
    match (is_nan32(a), is_nan32(b)) {
        (true, true) => return a | F32_QUIET,
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    if fa < fb {
        if max {
            b
        } else {
            a
        }
    } else if fb < fa {
        if max {
            a
        } else {
            b
        }
    } else if max {
        // Equal: identical bits, or ±0 where max prefers +0 and min −0.
        a & b
    } else {
        a | b
    }
}

/// IEEE minNum/maxNum on f64 bits.
pub fn minmax64(max: bool, a: u64, b: u64) -> u64 {
    match (is_nan64(a), is_nan64(b)) {
        (true, true) => return a | F64_QUIET,
        (true, false) => return b,
        (false, true) => return a,
        _ => {}
    }
    let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
    if fa < fb {
        if max {
            b
        } else {
            a
        }
    } else if fb < fa {
        if max {
            a
        } else {
            b
        }
    } else if max {
        a & b
    } else {
        a | b
    }
}

fn bin32(op: BinOp, a: u32, b: u32) -> u32 {
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::MulHiU => ((a as u64 * b as u64) >> 32) as u32,
        BinOp::MulHiS => ((a as i32 as i64 * b as i32 as i64) >> 32) as u32,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << (b & 31),
        BinOp::LShr => a >> (b & 31),
        BinOp::AShr => ((a as i32) >> (b & 31)) as u32,
        BinOp::UMin => a.min(b),
        BinOp::UMax => a.max(b),
        BinOp::SMin => (a as i32).min(b as i32) as u32,
        BinOp::SMax => (a as i32).max(b as i32) as u32,
        BinOp::AddCarry => a.overflowing_add(b).1 as u32,
        BinOp::SubBorrow => (a < b) as u32,
        BinOp::FAdd => nan_rule32(&[a, b], fa + fb),
        BinOp::FSub => nan_rule32(&[a, b], fa - fb),
        BinOp::FMul => nan_rule32(&[a, b], fa * fb),
        BinOp::FDiv => nan_rule32(&[a, b], fa / fb),
        BinOp::FMinNum => minmax32(false, a, b),
        BinOp::FMaxNum => minmax32(true, a, b),
        BinOp::FLdexp => ldexp32(a, b as i32 as i64),
        BinOp::FCopySign => (a & !F32_SIGN) | (b & F32_SIGN),
    }
}

fn bin64(op: BinOp, a: u64, b: u64) -> u64 {
    let (fa, fb) = (f64::from_bits(a), f64::from_bits(b));
    match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::MulHiU => ((a as u128 * b as u128) >> 64) as u64,
        BinOp::MulHiS => ((a as i64 as i128 * b as i64 as i128) >> 64) as u64,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << (b & 63),
        BinOp::LShr => a >> (b & 63),
        BinOp::AShr => ((a as i64) >> (b & 63)) as u64,
        BinOp::UMin => a.min(b),
        BinOp::UMax => a.max(b),
        BinOp::SMin => (a as i64).min(b as i64) as u64,
        BinOp::SMax => (a as i64).max(b as i64) as u64,
        BinOp::AddCarry => a.overflowing_add(b).1 as u64,
        BinOp::SubBorrow => (a < b) as u64,
        BinOp::FAdd => nan_rule64(&[a, b], fa + fb),
        BinOp::FSub => nan_rule64(&[a, b], fa - fb),
        BinOp::FMul => nan_rule64(&[a, b], fa * fb),
        BinOp::FDiv => nan_rule64(&[a, b], fa / fb),
        BinOp::FMinNum => minmax64(false, a, b),
        BinOp::FMaxNum => minmax64(true, a, b),
        BinOp::FLdexp => ldexp64(a, b as u32 as i32 as i64),
        BinOp::FCopySign => (a & !F64_SIGN) | (b & F64_SIGN),
    }
}

/// Ternary op on one element of `bits` width.
pub fn tern(op: TernOp, bits: u32, a: u64, b: u64, c: u64) -> u64 {
    let w = bits as u64;
    let m = w - 1;
    match op {
        TernOp::Fma => {
            if bits == 32 {
                let r = f32b(a).mul_add(f32b(b), f32b(c));
                nan_rule32(&[a as u32, b as u32, c as u32], r) as u64
            } else {
                let r = f64b(a).mul_add(f64b(b), f64b(c));
                nan_rule64(&[a, b, c], r)
            }
        }
        TernOp::Bfe | TernOp::SBfe => {
            let off = b & m;
            let width = c & m;
            if width == 0 {
                return 0;
            }
            // `S0.i32 >> offset` for the signed form: an arithmetic shift, so a field
            // reaching past the top bit reads copies of the sign (RDNA4 guide, V_BFE_I32).
            let x = if op == TernOp::SBfe {
                let sh = 64 - bits;
                ((((a << sh) as i64) >> sh) >> off) as u64
            } else {
                trunc_to(bits, a) >> off
            };
            let field = x & ((1u64 << width) - 1);
            if op == TernOp::SBfe {
                let sh = 64 - width;
                trunc_to(bits, (((field << sh) as i64) >> sh) as u64)
            } else {
                field
            }
        }
        TernOp::Bfi => trunc_to(bits, (a & b) | (!a & c)),
        TernOp::Perm => u64::from(perm32(a as u32, b as u32, c as u32)),
    }
}

/// [`TernOp::Perm`]: byte `i` of the result is `BYTE_PERMUTE({hi, lo}, sel[8i+7:8i])`
/// (the RDNA4 ISA's `V_PERM_B32` pseudocode).
pub fn perm32(hi: u32, lo: u32, sel: u32) -> u32 {
    let data = (u64::from(hi) << 32) | u64::from(lo);
    let mut r = 0u32;
    for i in 0..4 {
        let s = (sel >> (8 * i)) & 0xff;
        let byte = match s {
            0..=7 => (data >> (8 * s)) as u32 & 0xff,
            8..=11 => {
                if (data >> (16 * (s - 8) + 15)) & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        r |= byte << (8 * i);
    }
    r
}

/// Float class bits of [`CmpOp::FClass`] for f32/f64 bits.
fn class_bit(bits: u32, a: u64) -> u32 {
    let (sign, exp, mant, emax) = if bits == 32 {
        let a = a as u32;
        (a >> 31 == 1, (a >> 23) & 0xFF, (a & 0x7F_FFFF) as u64, 0xFF)
    } else {
        (
            a >> 63 == 1,
            ((a >> 52) & 0x7FF) as u32,
            a & 0xF_FFFF_FFFF_FFFF,
            0x7FF,
        )
    };
    let quiet = if bits == 32 {
        mant & (F32_QUIET as u64) != 0
    } else {
        mant & F64_QUIET != 0
    };
    if exp == emax {
        if mant == 0 {
            return if sign { 2 } else { 9 };
        }
        return if quiet { 1 } else { 0 };
    }
    let k = if exp == 0 {
        if mant == 0 {
            5 // zero
        } else {
            4 // denormal
        }
    } else {
        3 // normal
    };
    if sign {
        k
    } else {
        // +0 = 6, +denormal = 7, +normal = 8
        11 - k
    }
}

use core::cmp::Ordering::{Equal, Greater, Less};

/// Comparison of one element pair of `bits` width: true or false.
pub fn cmp(op: CmpOp, bits: u32, a: u64, b: u64) -> bool {
    let (a, b) = (trunc_to(bits, a), trunc_to(bits, b));
    let (sa, sb) = if bits == 32 {
        (a as u32 as i32 as i64, b as u32 as i32 as i64)
    } else {
        (a as i64, b as i64)
    };
    let (fa, fb) = if bits == 32 {
        (f32b(a) as f64, f32b(b) as f64)
    } else {
        (f64b(a), f64b(b))
    };
    let o = fa.partial_cmp(&fb);
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::ULt => a < b,
        CmpOp::ULe => a <= b,
        CmpOp::UGt => a > b,
        CmpOp::UGe => a >= b,
        CmpOp::SLt => sa < sb,
        CmpOp::SLe => sa <= sb,
        CmpOp::SGt => sa > sb,
        CmpOp::SGe => sa >= sb,
        CmpOp::FEq => o == Some(Equal),
        CmpOp::FLt => o == Some(Less),
        CmpOp::FLe => matches!(o, Some(Less | Equal)),
        CmpOp::FGt => o == Some(Greater),
        CmpOp::FGe => matches!(o, Some(Greater | Equal)),
        CmpOp::FLg => matches!(o, Some(Less | Greater)),
        CmpOp::FOrd => o.is_some(),
        CmpOp::FUno => o.is_none(),
        CmpOp::FNeq => o != Some(Equal),
        CmpOp::FNlt => o != Some(Less),
        CmpOp::FNle => !matches!(o, Some(Less | Equal)),
        CmpOp::FNgt => o != Some(Greater),
        CmpOp::FNge => !matches!(o, Some(Greater | Equal)),
        CmpOp::FNlg => !matches!(o, Some(Less | Greater)),
        CmpOp::FClass => (b >> class_bit(bits, a)) & 1 == 1,
    }
}

/// Conversion of one element. `src_bits` is the operand width; the result is already
/// truncated to the result width.
pub fn conv(op: ConvOp, a: u64) -> u64 {
    let a32 = a as u32;
    match op {
        ConvOp::ZExt => a32 as u64,
        ConvOp::SExt => a32 as i32 as i64 as u64,
        ConvOp::Lo => a32 as u64,
        ConvOp::Hi => a >> 32,
        // Same-width ops: callers truncate to the operand width afterwards.
        ConvOp::SExt8 => a as u8 as i8 as i64 as u64,
        ConvOp::SExt16 => a as u16 as i16 as i64 as u64,
        ConvOp::ZExt8 => a & 0xFF,
        ConvOp::ZExt16 => a & 0xFFFF,
        ConvOp::F32ToF64 => f32_to_f64(a32),
        ConvOp::F64ToF32 => f64_to_f32(a) as u64,
        ConvOp::F16ToF32 => f16_to_f32(a32 & 0xFFFF) as u64,
        ConvOp::F32ToF16 => f32_to_f16(a32, false) as u64,
        ConvOp::I32ToF32 => (a32 as i32 as f32).to_bits() as u64,
        ConvOp::U32ToF32 => (a32 as f32).to_bits() as u64,
        ConvOp::I32ToF64 => (a32 as i32 as f64).to_bits(),
        ConvOp::U32ToF64 => (a32 as f64).to_bits(),
        // Rust's float → int casts saturate and map NaN to 0, as the IR defines.
        ConvOp::F32ToI32 => f32::from_bits(a32) as i32 as u32 as u64,
        ConvOp::F32ToU32 => f32::from_bits(a32) as u32 as u64,
        ConvOp::F64ToI32 => f64::from_bits(a) as i32 as u32 as u64,
        ConvOp::F64ToU32 => f64::from_bits(a) as u32 as u64,
    }
}

/// Result width of a conversion from an operand of `src_bits`.
pub fn conv_result_bits(op: ConvOp, src_bits: u32) -> u32 {
    op.result_bits(src_bits)
}

/// f32 exponent field helper: the biased exponent (0..255).
fn exp32(a: u32) -> i32 {
    ((a >> 23) & 0xFF) as i32
}

fn exp64(a: u64) -> i32 {
    ((a >> 52) & 0x7FF) as i32
}

fn is_denorm32(a: u32) -> bool {
    exp32(a) == 0 && a & 0x7F_FFFF != 0
}

fn is_denorm64(a: u64) -> bool {
    exp64(a) == 0 && a & 0xF_FFFF_FFFF_FFFF != 0
}

/// Result of a math function computed in f64 and rounded to f32, with the NaN rule.
fn via_f64(a: u32, f: impl Fn(f64) -> f64) -> u32 {
    let r = f(f32::from_bits(a) as f64) as f32;
    nan_rule32(&[a], r)
}

/// `v_div_scale_f32` value and VCC flag (RDNA4 ISA pseudocode, V_DIV_SCALE_F32; `D0` starts
/// as `S0`).
pub fn div_scale32(s0: u32, s1: u32, s2: u32) -> (u32, bool) {
    let (f1, f2) = (f32::from_bits(s1), f32::from_bits(s2));
    let mut d = s0;
    let mut vcc = false;
    // The pseudocode tests DENORM.f64(1.0 / 64'F(S1.f)), which no f32 input satisfies; taken
    // literally (as here) compiled f32 division matches host IEEE division on every tested lane,
    // while an f32-range test scales huge denominators up into infinity.
    let rcp_denorm = is_denorm64((1.0 / f1 as f64).to_bits());
    let quo_denorm = is_denorm32((f2 / f1).to_bits());
    if f2 == 0.0 || f1 == 0.0 {
        d = F32_DEFAULT_NAN;
    } else if exp32(s2) - exp32(s1) >= 96 {
        vcc = true;
        if s0 == s1 {
            d = ldexp32(s0, 64);
        }
    } else if is_denorm32(s1) {
        d = ldexp32(s0, 64);
    } else if rcp_denorm && quo_denorm {
        vcc = true;
        if s0 == s1 {
            d = ldexp32(s0, 64);
        }
    } else if rcp_denorm {
        d = ldexp32(s0, -64);
    } else if quo_denorm {
        vcc = true;
        if s0 == s2 {
            d = ldexp32(s0, 64);
        }
    } else if exp32(s2) <= 23 {
        d = ldexp32(s0, 64);
    }
    (d, vcc)
}

/// `v_div_scale_f32` value and VCC flag on RDNA (gfx11, gfx12). The public pseudocode's
/// `1.0 / 64'F(S1)` denormal test is never true (`div_scale32`), so a denominator at or above
/// 2^126 is not scaled and `v_rcp_f32` of it is a denormal, which compiled division with f32
/// denormals off (LLVM turns them on only after the `v_rcp_f32`) flushes to 0; an f32-range
/// test instead scales 1 / FLT_MAX's denominator into INF. These are the rules AMD's rocjitsu
/// reports checked on gfx1100 and gfx1201 hardware (ROCm/rocm-systems PR 11613,
/// `shared/division.h`: "The public pseudocode's DENORM predicates and fixed FMAS factors do
/// not reproduce these instructions or LLVM division macros"), on the exponent fields `de`
/// of the denominator S1 and `ne` of the numerator S2 (0 for denormals):
/// - `ne - de >= 96`: VCC = 1, the denominator scaled by 2^64 (as the pseudocode);
/// - else `de == 0`: scaled by 2^64 (as the pseudocode);
/// - else `de >= 253` (|S1| >= 2^126): scaled by 2^-64, except that when `ne - de <= -96`
///   VCC = 1 and the numerator stays;
/// - else `ne - de <= -96`: VCC = 1, the numerator scaled by 2^64;
/// - else `ne <= 24`: scaled by 2^64.
///
/// A zero S1 or S2 gives NaN (VCC as above); `v_div_fmas_f32` undoes VCC's scale by the
/// exponent of its S2 (`lanefn`), as rocjitsu's does.
pub fn div_scale32_rdna(s0: u32, s1: u32, s2: u32) -> (u32, bool) {
    let (d, n) = (s1 & 0x7FFF_FFFF, s2 & 0x7FFF_FFFF);
    let (de, ne) = (exp32(d), exp32(n));
    let delta = ne - de;
    let is_den = s0 == s1;
    let (adj, vcc) = if delta >= 96 {
        (if is_den { 64 } else { 0 }, true)
    } else if de == 0 {
        (64, false)
    } else if de >= 253 {
        let vcc = delta <= -96;
        (if vcc && !is_den { 0 } else { -64 }, vcc)
    } else if delta <= -96 {
        (if is_den { 0 } else { 64 }, true)
    } else if ne <= 24 {
        (64, false)
    } else {
        (0, false)
    };
    if d == 0 || n == 0 {
        return (F32_DEFAULT_NAN, vcc);
    }
    (ldexp32(s0, adj), vcc)
}

/// `v_div_scale_f64` value and VCC flag (RDNA4 ISA pseudocode, V_DIV_SCALE_F64).
pub fn div_scale64(s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    let (f1, f2) = (f64::from_bits(s1), f64::from_bits(s2));
    let mut d = s0;
    let mut vcc = false;
    let rcp_denorm = is_denorm64((1.0 / f1).to_bits());
    let quo_denorm = is_denorm64((f2 / f1).to_bits());
    if f2 == 0.0 || f1 == 0.0 {
        d = F64_DEFAULT_NAN;
    } else if exp64(s2) - exp64(s1) >= 768 {
        vcc = true;
        if s0 == s1 {
            d = ldexp64(s0, 128);
        }
    } else if is_denorm64(s1) {
        d = ldexp64(s0, 128);
    } else if rcp_denorm && quo_denorm {
        // Erratum in the RDNA4 guide, which scales the denominator by 2^+128 here: 1/S1 is
        // denormal only for |S1| > 2^1022, so that would overflow to infinity. Scaling it
        // down makes the quotient normal; V_DIV_FMAS then scales it back by 2^-128. With this,
        // compiled f64 division of huge denominators equals host IEEE division.
        vcc = true;
        if s0 == s1 {
            d = ldexp64(s0, -128);
        }
    } else if rcp_denorm {
        d = ldexp64(s0, -128);
    } else if quo_denorm {
        vcc = true;
        if s0 == s2 {
            d = ldexp64(s0, 128);
        }
    } else if exp64(s2) <= 53 {
        d = ldexp64(s0, 128);
    }
    (d, vcc)
}

/// `v_div_fixup_f32` (RDNA4 ISA pseudocode, V_DIV_FIXUP_F32).
pub fn div_fixup32(s0: u32, s1: u32, s2: u32) -> u32 {
    let sign = (s1 ^ s2) & F32_SIGN;
    let (f1, f2) = (f32::from_bits(s1), f32::from_bits(s2));
    if is_nan32(s2) {
        s2 | F32_QUIET
    } else if is_nan32(s1) {
        s1 | F32_QUIET
    } else if (f1 == 0.0 && f2 == 0.0) || (f1.is_infinite() && f2.is_infinite()) {
        0xFFC0_0000 // 0/0, inf/inf
    } else if f1 == 0.0 || f2.is_infinite() {
        sign | 0x7F80_0000 // x/0, inf/y
    } else if f1.is_infinite() || f2 == 0.0 || exp32(s2) - exp32(s1) < -150 {
        sign // x/inf, 0/y, UNDERFLOW_F32: 0 with the quotient's sign
    } else if exp32(s0) == 255 {
        sign | 0x7F80_0000 // the quotient S0 overflowed
    } else {
        sign | (s0 & !F32_SIGN)
    }
}

/// `v_div_fixup_f64` (RDNA4 ISA pseudocode, V_DIV_FIXUP_F64).
pub fn div_fixup64(s0: u64, s1: u64, s2: u64) -> u64 {
    let sign = (s1 ^ s2) & F64_SIGN;
    let (f1, f2) = (f64::from_bits(s1), f64::from_bits(s2));
    if is_nan64(s2) {
        s2 | F64_QUIET
    } else if is_nan64(s1) {
        s1 | F64_QUIET
    } else if (f1 == 0.0 && f2 == 0.0) || (f1.is_infinite() && f2.is_infinite()) {
        0xFFF8_0000_0000_0000
    } else if f1 == 0.0 || f2.is_infinite() {
        sign | 0x7FF0_0000_0000_0000
    } else if f1.is_infinite() || f2 == 0.0 || exp64(s2) - exp64(s1) < -1075 {
        sign
    } else if exp64(s0) == 2047 {
        sign | 0x7FF0_0000_0000_0000
    } else {
        sign | (s0 & !F64_SIGN)
    }
}

/// Per-lane Rust function `f` of `args` (unused arguments are ignored).
pub fn lane_fn(f: LaneFn, args: [u64; 4]) -> u64 {
    let [a, b, c, d] = args;
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    match f {
        LaneFn::Exp2F32 => via_f64(a32, f64::exp2) as u64,
        LaneFn::Log2F32 => via_f64(a32, f64::log2) as u64,
        // sin(2πx): reduce x to [-0.5, 0.5] exactly first (x - round(x) is exact in f64).
        LaneFn::SinF32 => via_f64(a32, |x| {
            (2.0 * core::f64::consts::PI * (x - x.round_ties_even())).sin()
        }) as u64,
        LaneFn::CosF32 => via_f64(a32, |x| {
            (2.0 * core::f64::consts::PI * (x - x.round_ties_even())).cos()
        }) as u64,
        LaneFn::FrexpMantF32 => {
            let f = f32::from_bits(a32);
            if f.is_nan() || f.is_infinite() || f == 0.0 {
                a32 as u64
            } else {
                let d = f64::from(f).to_bits();
                // Normalised f64: set the exponent to that of 0.5 (bias - 1).
                let m = (d & !(0x7FFu64 << 52)) | (1022u64 << 52);
                (f64::from_bits(m) as f32).to_bits() as u64
            }
        }
        LaneFn::FrexpExpF32 => {
            let f = f32::from_bits(a32);
            if f.is_nan() || f.is_infinite() || f == 0.0 {
                0
            } else {
                let e = exp64(f64::from(f).to_bits()) - 1023 + 1;
                e as u32 as u64
            }
        }
        LaneFn::DivFixupF32 => div_fixup32(a32, b32, c32) as u64,
        LaneFn::DivFixupF64 => div_fixup64(a, b, c),
        LaneFn::DivFmasF32 => {
            // VCC set → undo v_div_scale's 2^±64: the pseudocode's literal 2^32 cannot undo a
            // 2^64 scale (large and denormal operands came out 2^32 off); scaling by 2^64 when
            // the numerator S2 is large (exponent > 127) and 2^-64 otherwise makes every tested
            // lane of compiled f32 division equal the host's IEEE quotient. The FMA and the
            // scaling round once together (`round::fma_scaled_f32`).
            if d & 1 == 1 {
                let k = if exp32(c32) > 127 { 64 } else { -64 };
                round::fma_scaled_f32(a32, b32, c32, k) as u64
            } else {
                tern(TernOp::Fma, 32, a, b, c)
            }
        }
        LaneFn::DivFmasF64 => {
            // As for f32, with v_div_scale_f64's 2^±128 and the f64 exponent bias; one rounding.
            if d & 1 == 1 {
                let k = if exp64(c) > 1023 { 128 } else { -128 };
                round::fma_scaled_f64(a, b, c, k)
            } else {
                tern(TernOp::Fma, 64, a, b, c)
            }
        }
        LaneFn::DivScaleF32 => div_scale32(a32, b32, c32).0 as u64,
        LaneFn::DivScaleF32Flag => div_scale32(a32, b32, c32).1 as u64,
        LaneFn::DivScaleF32Rdna => div_scale32_rdna(a32, b32, c32).0 as u64,
        LaneFn::DivScaleF32RdnaFlag => div_scale32_rdna(a32, b32, c32).1 as u64,
        LaneFn::DivScaleF64 => div_scale64(a, b, c).0,
        LaneFn::DivScaleF64Flag => div_scale64(a, b, c).1 as u64,
        LaneFn::RcpIflagF32 => un32(UnOp::FRcp, a32) as u64,
        LaneFn::BufFmtLoad => buf_fmt::load(a, b, c32) as u64,
        LaneFn::BufFmtStore => buf_fmt::store(a, b, c32),
        LaneFn::PkRtzF16F32 => (f32_to_f16(a32, true) | f32_to_f16(b32, true) << 16) as u64,
        LaneFn::Rounded(op, rm, ovfl) => round::eval(op, rm, ovfl, args),
        LaneFn::TrigPreopF64 => round::trig_preop(a, b32),
    }
}

/// bf16 bits (low 16) → f32 bits (exact).
pub fn bf16_to_f32(h: u32) -> u32 {
    (h & 0xFFFF) << 16
}

/// f32 bits → bf16 bits (low 16), rounded to nearest even; NaNs are quieted keeping the top
/// payload bits.
pub fn f32_to_bf16(a: u32) -> u32 {
    if is_nan32(a) {
        return (a >> 16) | 0x40;
    }
    let round = 0x7FFF + ((a >> 16) & 1);
    (a.wrapping_add(round)) >> 16
}

/// Adds two f32 values given as bits, with a deterministic NaN result: the first NaN operand,
/// quieted (the host's NaN choice is not relied on).
fn add32_det(a: u32, b: u32) -> u32 {
    if is_nan32(a) {
        return a | F32_QUIET;
    }
    if is_nan32(b) {
        return b | F32_QUIET;
    }
    (f32::from_bits(a) + f32::from_bits(b)).to_bits()
}

/// The packed f16 add of `*_pk_add_f16` atomics: per 16-bit half `old + data`, rounded to
/// nearest even with denormals kept. The f32 sum of two f16 values rounded once more to f16
/// equals the correctly rounded f16 sum (24 ≥ 2·11 + 2 bits, so the double rounding is
/// innocuous). A NaN result is the first NaN operand (`old` first), quieted.
pub fn pk_add_f16(old: u32, data: u32) -> u32 {
    let half = |sh: u32| {
        let a = f16_to_f32((old >> sh) & 0xFFFF);
        let b = f16_to_f32((data >> sh) & 0xFFFF);
        f32_to_f16(add32_det(a, b), false) & 0xFFFF
    };
    half(0) | half(16) << 16
}

/// The packed bf16 add of `*_pk_add_bf16` atomics: per half `old + data` rounded to nearest
/// even (f32 sum then one rounding to bf16: 24 ≥ 2·8 + 2, innocuous), denormals kept, NaN as
/// in [`pk_add_f16`].
pub fn pk_add_bf16(old: u32, data: u32) -> u32 {
    let half = |sh: u32| {
        let a = bf16_to_f32((old >> sh) & 0xFFFF);
        let b = bf16_to_f32((data >> sh) & 0xFFFF);
        f32_to_bf16(add32_det(a, b)) & 0xFFFF
    };
    half(0) | half(16) << 16
}

/// New memory value of the atomics that do not map onto host atomic instructions and are
/// shared by every [`crate::env::WaveEnv`]: [`AtomicOp::RSub`], [`AtomicOp::MskOr`],
/// [`AtomicOp::Wrap`], [`AtomicOp::PkAddF16`], [`AtomicOp::PkAddBf16`], [`AtomicOp::CondSub`],
/// [`AtomicOp::SubClamp`] and [`AtomicOp::FCmpSwap`] (an IEEE compare: -0 equals +0, NaN equals nothing) (`None` for the others). Values are `size` bytes (4 or 8); the result is truncated to `size`.
pub fn atomic_extra(op: AtomicOp, size: u32, old: u64, data: u64, cmp: u64) -> Option<u64> {
    let bits = if size >= 8 { 64 } else { 32 };
    let t = |x: u64| trunc_to(bits, x);
    let (old, data, cmp) = (t(old), t(data), t(cmp));
    Some(t(match op {
        AtomicOp::RSub => data.wrapping_sub(old),
        AtomicOp::MskOr => (old & !data) | cmp,
        AtomicOp::Wrap => {
            if old >= data {
                old - data
            } else {
                old.wrapping_add(cmp)
            }
        }
        AtomicOp::PkAddF16 => pk_add_f16(old as u32, data as u32) as u64,
        AtomicOp::PkAddBf16 => pk_add_bf16(old as u32, data as u32) as u64,
        AtomicOp::CondSub if data > old => old,
        AtomicOp::CondSub => old - data,
        AtomicOp::SubClamp => old.saturating_sub(data),
        AtomicOp::FCmpSwap
            if size == 4 && f32::from_bits(old as u32) == f32::from_bits(cmp as u32) =>
        {
            data
        }
        AtomicOp::FCmpSwap if size == 4 => old,
        AtomicOp::FCmpSwap if f64::from_bits(old) == f64::from_bits(cmp) => data,
        AtomicOp::FCmpSwap => old,
        _ => return None,
    }))
}

/// Typed buffer formats (MUBUF `*_format_*` with the V#'s format, MTBUF with the
/// instruction's): GFX9 data format (DFMT, 4 bits) and number format (NFMT, 3 bits).
///
/// Component layout of each DFMT, as `(bit offset, width)` from the element's lowest bit
/// (e.g. 10_11_11: X = 11 bits at 0, Y = 11 at 11, Z = 10 at 22; 2_10_10_10: three 10-bit
/// components then a 2-bit W). DFMT 0 (INVALID) and 15 (reserved) have none: such loads
/// read 0 and such stores write nothing.
pub mod buf_fmt {
    use super::{f16_to_f32, f32_to_f16, is_nan32};

    /// NFMT values.
    pub const UNORM: u32 = 0;
    /// Signed normalized.
    pub const SNORM: u32 = 1;
    /// Unsigned integer converted to float.
    pub const USCALED: u32 = 2;
    /// Signed integer converted to float.
    pub const SSCALED: u32 = 3;
    /// Unsigned integer.
    pub const UINT: u32 = 4;
    /// Signed integer.
    pub const SINT: u32 = 5;
    /// Float (32-, 16-, 11- and 10-bit components).
    pub const FLOAT: u32 = 7;

    /// Key bit: the VGPR side is 16 bits wide (`d16` forms).
    pub const KEY_D16: u32 = 1 << 16;
    /// Key bit (loads, with [`KEY_D16`]): a 32-bit float component converts to f16 by
    /// truncation (RDNA4 ISA 9.3.1), not round to nearest even.
    pub const KEY_F32_RTZ: u32 = 1 << 17;

    /// The components of data format `dfmt`.
    pub fn layout(dfmt: u32) -> &'static [(u32, u32)] {
        match dfmt {
            1 => &[(0, 8)],
            2 => &[(0, 16)],
            3 => &[(0, 8), (8, 8)],
            4 => &[(0, 32)],
            5 => &[(0, 16), (16, 16)],
            6 => &[(0, 11), (11, 11), (22, 10)],
            7 => &[(0, 10), (10, 11), (21, 11)],
            8 => &[(0, 2), (2, 10), (12, 10), (22, 10)],
            9 => &[(0, 10), (10, 10), (20, 10), (30, 2)],
            10 => &[(0, 8), (8, 8), (16, 8), (24, 8)],
            11 => &[(0, 32), (32, 32)],
            12 => &[(0, 16), (16, 16), (32, 16), (48, 16)],
            13 => &[(0, 32), (32, 32), (64, 32)],
            14 => &[(0, 32), (32, 32), (64, 32), (96, 32)],
            _ => &[],
        }
    }

    /// Bytes of one element of data format `dfmt` (0 for invalid formats).
    pub fn elem_bytes(dfmt: u32) -> u32 {
        layout(dfmt)
            .iter()
            .map(|&(o, w)| o + w)
            .max()
            .unwrap_or(0)
            .div_ceil(8)
    }

    /// The NFMT produces float values in VGPRs (UNORM, SNORM, USCALED, SSCALED, FLOAT).
    pub fn float_like(nfmt: u32) -> bool {
        matches!(nfmt, UNORM | SNORM | USCALED | SSCALED | FLOAT)
    }

    fn sext(v: u64, w: u32) -> i64 {
        ((v << (64 - w)) as i64) >> (64 - w)
    }

    /// Unsigned small float (5-bit exponent, bias 15, `m` mantissa bits, no sign) → f32 bits.
    fn ufloat_to_f32(v: u32, m: u32) -> u32 {
        let e = v >> m;
        let f = v & ((1 << m) - 1);
        if e == 31 {
            return if f == 0 {
                0x7F80_0000
            } else {
                0x7FC0_0000 | f << (23 - m)
            };
        }
        let x = if e == 0 {
            f as f64 * 2f64.powi(-14 - m as i32)
        } else {
            (1.0 + f as f64 / (1u64 << m) as f64) * 2f64.powi(e as i32 - 15)
        };
        (x as f32).to_bits() // exact: at most 7 significant bits
    }

    /// f32 bits → unsigned small float with `m` mantissa bits, round to nearest even;
    /// negative values (and −0) give 0, NaN gives a NaN, overflow gives +∞.
    fn f32_to_ufloat(a: u32, m: u32) -> u32 {
        let inf = 31 << m;
        if is_nan32(a) {
            return inf | 1 << (m - 1);
        }
        if a >> 31 != 0 || a == 0 {
            return 0;
        }
        if a == 0x7F80_0000 {
            return inf;
        }
        let exp = ((a >> 23) & 0xFF) as i32;
        if exp == 0 {
            return 0; // f32 denormals are far below the smallest ufloat denormal
        }
        let e = exp - 127;
        let m24 = (a & 0x7F_FFFF) | 0x80_0000;
        // Value = m24 · 2^(e-23); unit of the result: 2^(max(e, -14) - m).
        let unit = e.max(-14) - m as i32;
        let shift = (unit - (e - 23)) as u32;
        let (q, rem, half) = if shift > 31 {
            (0, 1, u32::MAX)
        } else {
            (m24 >> shift, m24 & ((1 << shift) - 1), 1 << (shift - 1))
        };
        let q = if rem > half || (rem == half && q & 1 == 1) {
            q + 1
        } else {
            q
        };
        let bits = if e < -14 {
            q
        } else {
            (((e + 15) as u32) << m) + (q - (1 << m))
        };
        bits.min(inf)
    }

    /// One component of a loaded element. `raw` holds the element's bytes (little-endian);
    /// `key` = DFMT | NFMT << 4 | SEL << 8 | [`KEY_D16`], where SEL is a V# DST_SEL value
    /// (0 → 0, 1 → one, 4..7 → component X..W; components the format lacks read 0, W reads
    /// one). Float number formats give f32 bits (d16: f16, round to nearest even), integer
    /// ones the zero/sign-extended value (d16: its low 16 bits).
    pub fn load(raw_lo: u64, raw_hi: u64, key: u32) -> u32 {
        let (dfmt, nfmt, sel) = (key & 15, (key >> 4) & 7, (key >> 8) & 7);
        let lay = layout(dfmt);
        if lay.is_empty() || nfmt == 6 {
            return 0; // invalid format / reserved NFMT: unbound, reads 0
        }
        let fl = float_like(nfmt);
        let one = if fl { 0x3F80_0000 } else { 1 };
        let raw = raw_lo as u128 | (raw_hi as u128) << 64;
        let v = match sel {
            1 => one,
            4..=7 => {
                let c = (sel - 4) as usize;
                match lay.get(c) {
                    None if c == 3 => one,
                    None => 0,
                    Some(&(off, w)) => {
                        let bits = ((raw >> off) as u64) & (u64::MAX >> (64 - w));
                        if key & KEY_D16 != 0 && nfmt == FLOAT && w == 16 {
                            return bits as u32; // an f16 into 16 bits: unchanged
                        }
                        convert_in(bits, w, nfmt)
                    }
                }
            }
            _ => 0,
        };
        if key & KEY_D16 == 0 {
            v
        } else if fl {
            // Only 32-bit floats lose bits here (16-bit ones returned above, 11/10-bit ones
            // are exact in f16).
            f32_to_f16(v, key & KEY_F32_RTZ != 0 && nfmt == FLOAT)
        } else {
            v & 0xFFFF
        }
    }

    /// Memory component of `w` bits → VGPR value under `nfmt`.
    fn convert_in(v: u64, w: u32, nfmt: u32) -> u32 {
        let max = (u64::MAX >> (64 - w)) as f64;
        match nfmt {
            UNORM => ((v as f64 / max) as f32).to_bits(),
            SNORM => {
                let m = ((1u64 << (w - 1)) - 1) as f64;
                ((sext(v, w) as f64 / m).max(-1.0) as f32).to_bits()
            }
            USCALED => (v as f32).to_bits(),
            SSCALED => (sext(v, w) as f32).to_bits(),
            UINT => v as u32,
            SINT => sext(v, w) as u32,
            FLOAT => match w {
                32 => v as u32,
                16 => f16_to_f32(v as u32),
                11 => ufloat_to_f32(v as u32, 6),
                10 => ufloat_to_f32(v as u32, 5),
                _ => 0,
            },
            _ => 0,
        }
    }

    /// VGPR value → memory component of `w` bits under `nfmt`: normalized formats clamp and
    /// round to nearest even (NaN → 0), scaled ones round to nearest even and saturate,
    /// integer ones saturate, floats round to nearest even.
    fn convert_out(x: u32, w: u32, nfmt: u32) -> u64 {
        let mask = u64::MAX >> (64 - w);
        let f = f32::from_bits(x) as f64;
        let nan = is_nan32(x);
        let (smin, smax) = (-(1i64 << (w - 1)), (1i64 << (w - 1)) - 1);
        match nfmt {
            UNORM if nan => 0,
            UNORM => (f.clamp(0.0, 1.0) * mask as f64).round_ties_even() as u64,
            SNORM if nan => 0,
            SNORM => (f.clamp(-1.0, 1.0) * smax as f64).round_ties_even() as i64 as u64 & mask,
            USCALED if nan => 0,
            USCALED => f.round_ties_even().clamp(0.0, mask as f64) as u64,
            SSCALED if nan => 0,
            SSCALED => f.round_ties_even().clamp(smin as f64, smax as f64) as i64 as u64 & mask,
            UINT => (x as u64).min(mask),
            SINT => (x as i32 as i64).clamp(smin, smax) as u64 & mask,
            FLOAT => match w {
                32 => x as u64,
                16 => f32_to_f16(x, false) as u64,
                11 => f32_to_ufloat(x, 6) as u64,
                10 => f32_to_ufloat(x, 5) as u64,
                _ => 0,
            },
            _ => 0,
        }
    }

    /// Bytes `8·part .. 8·part + 8` of the element stored from the components in `xy`
    /// (X low, Y high) and `zw`; `key` = DFMT | NFMT << 4 | part << 12 | [`KEY_D16`]. With
    /// d16 every component is the low 16 bits of its dword: an f16 for float number formats,
    /// a 16-bit integer (sign-extended for SINT) otherwise.
    pub fn store(xy: u64, zw: u64, key: u32) -> u64 {
        let (dfmt, nfmt, part) = (key & 15, (key >> 4) & 7, (key >> 12) & 1);
        let ins = [xy as u32, (xy >> 32) as u32, zw as u32, (zw >> 32) as u32];
        let mut raw = 0u128;
        for (c, &(off, w)) in layout(dfmt).iter().enumerate() {
            let mut x = ins[c];
            if key & KEY_D16 != 0 {
                x = if float_like(nfmt) {
                    f16_to_f32(x & 0xFFFF)
                } else if nfmt == SINT {
                    x as u16 as i16 as i32 as u32
                } else {
                    x & 0xFFFF
                };
            }
            raw |= (convert_out(x, w, nfmt) as u128) << off;
        }
        (raw >> (64 * part)) as u64
    }
}
