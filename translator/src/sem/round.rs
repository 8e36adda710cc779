//! Float results rounded once in a chosen direction ([`LaneFn::Rounded`](crate::ir::LaneFn::Rounded)): MODE.FP_ROUND's
//! directed modes, and FMAs whose f16 result must not be rounded twice.
//!
//! Method: the exact result `x` of an operation is first written as a pair of f64 values
//! `(s, e)` with `s = RN(x)` (round to nearest in f64) and `x = s + e` exactly (or `e`
//! carrying the sign of `x - s`), possibly scaled by `2^k`, using error-free transformations:
//! TwoSum (always exact), the FMA residual `fma(a, b, -a*b)` (exact while the product is well
//! above the subnormal range) and Boldo and Muller's ErrFma for FMAs ("Exact and approximated
//! error of the FMA", IEEE TC 2011). f32 and f16 operands are exact in f64 and their products
//! have at most 48 bits, so every f32/f16 operation is an exact pair. `round_pair` then
//! rounds `x` to the target format on that format's grid with exact f64 arithmetic; the pair
//! rounds correctly because `|e|` is at most half an f64 ulp of `s`, so `x` lies in the same
//! open grid interval as `s` unless `s` is itself a grid point (then `e`'s sign decides).
//!
//! Everything here is ordinary Rust float arithmetic in the default environment (nearest even,
//! no flushing): the results do not depend on the host's MXCSR/FPCR settings beyond that.
//!
//! Signed zeros follow IEEE 754: an exact zero sum is +0 except toward −∞ (−0), and a sum of
//! two zeros of the same sign keeps it.

use super::float::{
    f16_to_f32, f32_to_f16, f64_to_f32, is_nan32, is_nan64, ldexp64, nan_rule32, nan_rule64,
    F32_QUIET, F32_SIGN,
};
use crate::ir::{Round, RoundedOp};

/// A binary interchange format: fraction bits and the normal exponent range.
#[derive(Clone, Copy)]
struct Fmt {
    mbits: i32,
    emin: i32,
    emax: i32,
}

const F16: Fmt = Fmt {
    mbits: 10,
    emin: -14,
    emax: 15,
};
const F32: Fmt = Fmt {
    mbits: 23,
    emin: -126,
    emax: 127,
};
const F64: Fmt = Fmt {
    mbits: 52,
    emin: -1022,
    emax: 1023,
};

/// `2^e` for `-1022 <= e <= 1023`.
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e.clamp(-1022, 1023) + 1023) as u64) << 52)
}

/// `x * 2^e`, exact whenever the result is a normal f64 (steps of at most 2^±1000, so an
/// intermediate never leaves the normal range before the result does).
fn scale(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= pow2(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= pow2(-1000);
        e += 1000;
    }
    x * pow2(e)
}

/// Unbiased exponent of a finite non-zero f64 (`floor(log2 |x|)`), subnormals included.
fn exponent(x: f64) -> i32 {
    let b = x.to_bits() & !(1u64 << 63);
    let e = (b >> 52) as i32;
    if e == 0 {
        (63 - b.leading_zeros() as i32) - 1074
    } else {
        e - 1023
    }
}

/// True when rounding in `rm` increases the magnitude of a value of sign `neg`.
fn away(rm: Round, neg: bool) -> bool {
    match rm {
        Round::Up => !neg,
        Round::Down => neg,
        _ => false,
    }
}

/// Rounds `x = (s + e) * 2^k` once to `fmt` in direction `rm` and returns the result as an
/// f64 (±Inf on overflow), where `s` is finite, non-zero and `s = RN(s + e)`; only the sign
/// of `e` is used.
fn round_pair(s: f64, e: f64, k: i32, fmt: Fmt, rm: Round) -> f64 {
    let neg = s < 0.0;
    let a = s.abs();
    // Where the exact magnitude lies relative to |s|: above (1), below (-1) or on it (0).
    let res = if e == 0.0 {
        0
    } else if (e > 0.0) != neg {
        1
    } else {
        -1
    };
    let ex = exponent(a) + k;
    let q = ex.max(fmt.emin) - fmt.mbits; // the grid spacing is 2^q
    let m = if ex < fmt.emin - fmt.mbits - 2 {
        // Below a quarter of the smallest subnormal: only "between 0 and half a unit" matters.
        0.125
    } else {
        scale(a, k - q) // exact: a power-of-two scaling into [0, 2^(mbits+1))
    };
    let fl = m.floor();
    let frac = m - fl;
    let up = away(rm, neg);
    let (units, uq) = if frac == 0.0 && res == 0 {
        (fl, q)
    } else if frac == 0.0 && res < 0 {
        // Just below the grid point fl·2^q: nearest and away-from-zero give it, toward zero
        // its predecessor (half a step down at the bottom of a binade above the subnormals).
        if rm == Round::NearestEven || up {
            (fl, q)
        } else if fl == pow2(fmt.mbits) && ex > fmt.emin {
            (2.0 * fl - 1.0, q - 1)
        } else {
            (fl - 1.0, q)
        }
    } else {
        let odd = (fl as u64) & 1 == 1;
        let inc = match rm {
            Round::NearestEven => frac > 0.5 || (frac == 0.5 && (res > 0 || (res == 0 && odd))),
            _ => up,
        };
        (if inc { fl + 1.0 } else { fl }, q)
    };
    let mag = scale(units, uq);
    let limit = scale(1.0, fmt.emax + 1);
    let mag = if mag >= limit || mag.is_infinite() {
        if rm == Round::NearestEven || up {
            f64::INFINITY
        } else {
            scale(pow2(fmt.mbits + 1) - 1.0, fmt.emax - fmt.mbits)
        }
    } else {
        mag
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// TwoSum: `s = RN(a + b)` and the exact error `a + b - s` (no overflow assumed).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// The sign of an exact zero sum of `a` and `b` (both zero, or cancelling) in direction `rm`.
fn zero_sum(a: f64, b: f64, rm: Round) -> f64 {
    if a == 0.0 && b == 0.0 && a.is_sign_negative() == b.is_sign_negative() {
        a
    } else if rm == Round::Down {
        -0.0
    } else {
        0.0
    }
}

/// The result of an overflow of sign `neg`: ±Inf, or ±MAX when rounding toward zero.
fn overflow(neg: bool, fmt: Fmt, rm: Round) -> f64 {
    let mag = if rm == Round::NearestEven || away(rm, neg) {
        f64::INFINITY
    } else {
        scale(pow2(fmt.mbits + 1) - 1.0, fmt.emax - fmt.mbits)
    };
    if neg {
        -mag
    } else {
        mag
    }
}

/// Kinds of arithmetic on exact f64 operands.
#[derive(Clone, Copy, PartialEq)]
enum Arith {
    Add,
    Mul,
    Fma,
}

/// `op` on finite f32/f16 values (exact in f64), rounded once to `fmt`.
fn small(op: Arith, x: [f64; 3], fmt: Fmt, rm: Round) -> f64 {
    let (s, e, l, r) = match op {
        Arith::Add => {
            let (s, e) = two_sum(x[0], x[1]);
            (s, e, x[0], x[1])
        }
        Arith::Mul => (x[0] * x[1], 0.0, 0.0, 0.0),
        Arith::Fma => {
            let p = x[0] * x[1]; // at most 48 significant bits: exact
            let (s, e) = two_sum(p, x[2]);
            (s, e, p, x[2])
        }
    };
    if s == 0.0 {
        // Products are exact, so a zero product is a true (signed) zero.
        return if op == Arith::Mul {
            s
        } else {
            zero_sum(l, r, rm)
        };
    }
    round_pair(s, e, 0, fmt, rm)
}

/// f64 `a * b` (finite, non-zero) in direction `rm`.
fn mul64(a: f64, b: f64, rm: Round) -> f64 {
    let s = a * b;
    if s.is_infinite() {
        return overflow(s < 0.0, F64, rm);
    }
    if s.abs() < pow2(-968) {
        // Near or below the subnormal range the residual could underflow: scale both factors
        // by 2^537 (|a|, |b| < 2^106 here) so the product and its residual are exact.
        let (a2, b2) = (scale(a, 537), scale(b, 537));
        let s2 = a2 * b2;
        let e2 = a2.mul_add(b2, -s2);
        return round_pair(s2, e2, -1074, F64, rm);
    }
    round_pair(s, a.mul_add(b, -s), 0, F64, rm)
}

/// ErrFma: `a*b + c = r1 + r2 + r3` exactly (no underflow or overflow in the steps); returns
/// `(r1, r2 + r3)`, the second carrying the sign of the error.
fn err_fma(a: f64, b: f64, c: f64) -> (f64, f64) {
    let r1 = a.mul_add(b, c);
    let u1 = a * b;
    let u2 = a.mul_add(b, -u1);
    let (a1, z) = two_sum(c, u2);
    let (b1, b2) = two_sum(u1, a1);
    let g = (b1 - r1) + b2;
    // Fast2Sum(g, z).
    let r2 = g + z;
    let r3 = z - (r2 - g);
    (r1, r2 + r3)
}

/// f64 `(a * b + c) * 2^kx` (all finite, `a * b` non-zero) rounded once in direction `rm`.
fn fma64(a: f64, b: f64, c: f64, kx: i32, rm: Round) -> f64 {
    let p = a * b;
    let (s, e, k) = if p.is_infinite() || p.abs() >= pow2(1000) {
        // Huge product: scale the larger factor and c down by 2^64 (both stay normal); a c
        // too small to scale exactly only breaks ties (its sign is the residual's).
        let (a2, b2) = if a.abs() >= b.abs() {
            (scale(a, -64), b)
        } else {
            (a, scale(b, -64))
        };
        if c != 0.0 && c.abs() < pow2(-900) {
            let s = a2 * b2;
            let e = a2.mul_add(b2, -s);
            (s, if e == 0.0 { c } else { e }, 64)
        } else {
            let (s, e) = err_fma(a2, b2, scale(c, -64));
            (s, e, 64)
        }
    } else if p.abs() < pow2(-968) {
        if c.abs() >= pow2(-850) {
            // The product is far below half an ulp of c: only its sign counts (it breaks
            // ties and decides directed roundings), and that sign survives in `p` unless the
            // product underflowed to ±0 (below 2^-1075): then the factors' signs give it.
            let tiny = if p == 0.0 {
                (a.signum() * b.signum()) * f64::from_bits(1)
            } else {
                p
            };
            (c, tiny, 0)
        } else {
            let (s, e) = err_fma(scale(a, 537), scale(b, 537), scale(c, 1074));
            (s, e, -1074)
        }
    } else {
        let (s, e) = err_fma(a, b, c);
        (s, e, 0)
    };
    if s.is_infinite() {
        return overflow(s < 0.0, F64, rm);
    }
    if s == 0.0 {
        // r1 = RN(x) = 0 only for an exact zero (x is a multiple of 2^-1074 here).
        return zero_sum(p, c, rm);
    }
    round_pair(s, e, k + kx, F64, rm)
}

/// `(a * b + c) * 2^k` on f32 bits rounded once to nearest even (`v_div_fmas_f32` with VCC
/// set), NaN rule as for the FMA.
pub fn fma_scaled_f32(a: u32, b: u32, c: u32, k: i32) -> u32 {
    let x = [a, b, c].map(|v| f64::from(f32::from_bits(v)));
    if [a, b, c].iter().any(|&v| is_nan32(v)) || x.iter().any(|v| v.is_infinite()) {
        return nan_rule32(&[a, b, c], (x[0] * x[1] + x[2]) as f32);
    }
    let p = x[0] * x[1];
    let (s, e) = two_sum(p, x[2]);
    if s == 0.0 {
        return (zero_sum(p, x[2], Round::NearestEven) as f32).to_bits();
    }
    (round_pair(s, e, k, F32, Round::NearestEven) as f32).to_bits()
}

/// `(a * b + c) * 2^k` on f64 bits rounded once to nearest even (`v_div_fmas_f64` with VCC
/// set), NaN rule as for the FMA.
pub fn fma_scaled_f64(a: u64, b: u64, c: u64, k: i32) -> u64 {
    let (x, y, z) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    if [a, b, c].iter().any(|&v| is_nan64(v)) || [x, y, z].iter().any(|v| v.is_infinite()) {
        return nan_rule64(&[a, b, c], x.mul_add(y, z));
    }
    if x == 0.0 || y == 0.0 {
        let r = if z == 0.0 { x * y + z } else { z };
        return round_pair_or_zero(r, k).to_bits();
    }
    fma64(x, y, z, k, Round::NearestEven).to_bits()
}

/// `r * 2^k` rounded to nearest even (`r` finite).
fn round_pair_or_zero(r: f64, k: i32) -> f64 {
    if r == 0.0 {
        r
    } else {
        round_pair(r, 0.0, k, F64, Round::NearestEven)
    }
}

/// f16 bits → f64 (finite or infinite; NaNs are handled by the caller).
fn h2d(h: u64) -> f64 {
    f64::from(f32::from_bits(f16_to_f32(h as u32 & 0xFFFF)))
}

/// True when the low 16 bits are an f16 NaN.
fn is_nan16(h: u64) -> bool {
    h as u32 & 0x7FFF > 0x7C00
}

/// An f64 holding an f16 value (or ±Inf) → f16 bits; with `ovfl`, an Inf that came from
/// rounding a finite result becomes ±65504 (MODE.FP16_OVFL).
fn d2h(x: f64, from_finite: bool, ovfl: bool) -> u64 {
    let h = f32_to_f16((x as f32).to_bits(), false);
    if ovfl && from_finite && h & 0x7FFF == 0x7C00 {
        (h & 0x8000 | 0x7BFF) as u64
    } else {
        h as u64
    }
}

/// f16 operation on the f16 operands `ops` (low 16 bits): NaN rule, specials, then `small`.
fn f16_op(op: Arith, ops: &[u64], rm: Round, ovfl: bool) -> u64 {
    if let Some(n) = ops.iter().find(|&&h| is_nan16(h)) {
        return (n & 0xFFFF) | 0x200;
    }
    let x = [
        h2d(ops[0]),
        h2d(ops[1]),
        ops.get(2).map_or(0.0, |&h| h2d(h)),
    ];
    let finite = x.iter().all(|v| v.is_finite());
    if !finite {
        let r = match op {
            Arith::Add => x[0] + x[1],
            Arith::Mul => x[0] * x[1],
            Arith::Fma => x[0] * x[1] + x[2],
        };
        return if r.is_nan() {
            0x7E00
        } else {
            d2h(r, false, ovfl)
        };
    }
    d2h(small(op, x, F16, rm), true, ovfl)
}

/// f32 operation on f32 bits rounded to `fmt` (f32 or, for mixed FMAs, f16).
fn f32_op(op: Arith, ops: &[u32], rm: Round, to16: bool, ovfl: bool) -> u64 {
    let x: Vec<f64> = ops.iter().map(|&b| f64::from(f32::from_bits(b))).collect();
    let x3 = [x[0], x[1], x.get(2).copied().unwrap_or(0.0)];
    let host = match op {
        Arith::Add => x3[0] + x3[1],
        Arith::Mul => x3[0] * x3[1],
        Arith::Fma => x3[0] * x3[1] + x3[2],
    };
    let special = ops.iter().any(|&b| is_nan32(b)) || x.iter().any(|v| v.is_infinite());
    if special {
        let r = nan_rule32(ops, host as f32);
        return if to16 {
            f32_to_f16(r, false) as u64
        } else {
            r as u64
        };
    }
    if to16 {
        d2h(small(op, x3, F16, rm), true, ovfl)
    } else {
        (small(op, x3, F32, rm) as f32).to_bits() as u64
    }
}

/// f64 operation on f64 bits.
fn f64_op(op: Arith, ops: &[u64], rm: Round) -> u64 {
    let x: Vec<f64> = ops.iter().map(|&b| f64::from_bits(b)).collect();
    let (a, b) = (x[0], x[1]);
    let c = x.get(2).copied().unwrap_or(0.0);
    let host = match op {
        Arith::Add => a + b,
        Arith::Mul => a * b,
        Arith::Fma => a.mul_add(b, c),
    };
    if ops.iter().any(|&o| is_nan64(o)) || x.iter().any(|v| v.is_infinite()) {
        return nan_rule64(ops, host);
    }
    let r = match op {
        Arith::Add => {
            let (s, e) = two_sum(a, b);
            if s.is_infinite() {
                overflow(s < 0.0, F64, rm)
            } else if s == 0.0 {
                zero_sum(a, b, rm)
            } else {
                round_pair(s, e, 0, F64, rm)
            }
        }
        Arith::Mul if a == 0.0 || b == 0.0 => host,
        Arith::Mul => mul64(a, b, rm),
        Arith::Fma if a == 0.0 || b == 0.0 => {
            if c == 0.0 {
                zero_sum(a * b, c, rm)
            } else {
                c
            }
        }
        Arith::Fma => fma64(a, b, c, 0, rm),
    };
    r.to_bits()
}

/// An 8-bit float format of the FP8/BF8 conversions (CDNA4 ISA table 30; gfx942 uses the
/// FNUZ variants: bias one higher, a single NaN 0x80, no −0 and no Inf).
#[derive(Clone, Copy)]
struct F8 {
    /// Position of the sign bit (7 for the 8-bit formats, 5 for FP6/BF6, 3 for FP4).
    sign: u32,
    mbits: i32,
    bias: i32,
    max: f64,
    fnuz: bool,
    has_inf: bool,
}

const FP8_FNUZ: F8 = F8 {
    sign: 7,
    mbits: 3,
    bias: 8,
    max: 240.0,
    fnuz: true,
    has_inf: false,
};
const BF8_FNUZ: F8 = F8 {
    sign: 7,
    mbits: 2,
    bias: 16,
    max: 57344.0,
    fnuz: true,
    has_inf: false,
};
const FP8_OCP: F8 = F8 {
    sign: 7,
    mbits: 3,
    bias: 7,
    max: 448.0,
    fnuz: false,
    has_inf: false,
};
const BF8_OCP: F8 = F8 {
    sign: 7,
    mbits: 2,
    bias: 15,
    max: 57344.0,
    fnuz: false,
    has_inf: true,
};

/// OCP FP4 E2M1 (bias 1, max 6), FP6 E2M3 (bias 1, max 7.5) and BF6 E3M2 (bias 3, max 28):
/// no Inf or NaN (CDNA4 ISA 7.3, table of formats).
const FP4: F8 = F8 {
    sign: 3,
    mbits: 1,
    bias: 1,
    max: 6.0,
    fnuz: false,
    has_inf: false,
};
const FP6: F8 = F8 {
    sign: 5,
    mbits: 3,
    bias: 1,
    max: 7.5,
    fnuz: false,
    has_inf: false,
};
const BF6: F8 = F8 {
    sign: 5,
    mbits: 2,
    bias: 3,
    max: 28.0,
    fnuz: false,
    has_inf: false,
};

impl F8 {
    /// The NaN code.
    fn nan(self, neg: bool) -> u64 {
        if self.fnuz {
            0x80
        } else {
            (neg as u64) << self.sign | 0x7f
        }
    }
    /// The code of finite `v` on this format's grid with `|v| <= max`.
    fn encode(self, v: f64) -> u64 {
        let neg = v.is_sign_negative();
        let a = v.abs();
        let sign = if self.fnuz && a == 0.0 {
            0 // FNUZ has no −0 (0x80 is the NaN)
        } else {
            (neg as u64) << self.sign
        };
        if a == 0.0 {
            return sign;
        }
        let emin = 1 - self.bias;
        let e = exponent(a);
        let (field, mant) = if e < emin {
            (0, a / pow2(emin - self.mbits))
        } else {
            (e + self.bias, a / pow2(e - self.mbits) - pow2(self.mbits))
        };
        sign | (field as u64) << self.mbits | mant as u64
    }
    /// An Inf or an out-of-range value: ±max when saturating, else Inf (OCP BF8) or NaN.
    fn overflow(self, neg: bool, sat: bool) -> u64 {
        if sat {
            self.encode(if neg { -self.max } else { self.max })
        } else if self.has_inf {
            (neg as u64) << self.sign | 0x7c
        } else {
            self.nan(neg)
        }
    }
}

/// Stochastic rounding of finite non-zero f32 bits `x` to a format with `mbits` fraction bits
/// and exponent bias `bias` (no upper limit: the caller checks overflow): the low
/// `23 - mbits` bits of `rng` are added to x's significand, which is first shifted right
/// (truncating) when the result is subnormal, and the sum is truncated to the format.
/// `v_cvt_sr_f16_f32` / `v_cvt_sr_bf16_f32` pass `rng` itself (its low bits: which random
/// bits those add is an open question, ARCHITECTURE.md, "Open ISA questions"), the FP4/FP6
/// conversions its top bits ([`sr_mx`]); FP8/BF8 follow the ch. 12 text ([`to_f8`]).
fn stochastic(x: u32, mbits: i32, bias: i32, rng: u32) -> f64 {
    let keep = 23 - mbits; // f32 fraction bits below the format's normal fraction
    let den_exp = 1 - bias; // exponent of the subnormal range
    let field = (x >> 23 & 0xff) as i32;
    let (act, sig) = if field == 0 {
        (-126, (x & 0x7f_ffff) as u64)
    } else {
        (field - 127, (x & 0x7f_ffff | 0x80_0000) as u64)
    };
    let diff = (den_exp - act).max(0);
    let sig = if diff >= 64 { 0 } else { sig >> diff };
    let units = (sig + (rng as u64 & ((1 << keep) - 1))) >> keep;
    let mag = units as f64 * pow2(act + diff - mbits);
    if x >> 31 != 0 {
        -mag
    } else {
        mag
    }
}

/// f32 bits → 8-bit float, nearest even, or stochastically rounded with `rng`.
fn to_f8(f: F8, x: u32, rng: Option<u32>, sat: bool) -> u64 {
    let neg = x >> 31 != 0;
    if is_nan32(x) {
        return f.nan(neg);
    }
    let v = f64::from(f32::from_bits(x));
    if v.is_infinite() {
        return f.overflow(neg, sat);
    }
    if v == 0.0 {
        return f.encode(v);
    }
    let r = match rng {
        None => {
            // Grid of the format without an upper limit; results above max overflow below.
            let fmt = Fmt {
                mbits: f.mbits,
                emin: 1 - f.bias,
                emax: 64,
            };
            round_pair(v, 0.0, 0, fmt, Round::NearestEven)
        }
        Some(rng) => {
            // V_CVT_SR_FP8_F32 / V_CVT_SR_BF8_F32 pseudocode (CDNA4 ISA ch. 12, same text in
            // the RDNA4 ISA): S1[31:12] (FP8) or S1[31:11] (BF8), i.e. the top `23 - mbits`
            // bits of the random value, are added to the f32 mantissa, wrapping around within
            // its 23 bits (no carry into the exponent), and the sum is truncated to the format.
            let m = ((x & 0x7f_ffff) + (rng >> (9 + f.mbits))) & 0x7f_ffff;
            let t = f64::from(f32::from_bits(x & 0xff80_0000 | m));
            let fmt = Fmt {
                mbits: f.mbits,
                emin: 1 - f.bias,
                emax: 64,
            };
            let r = if t == 0.0 {
                t
            } else {
                round_pair(t, 0.0, 0, fmt, Round::Zero)
            };
            if r == 0.0 {
                return f.encode(if neg { -0.0 } else { 0.0 });
            }
            r
        }
    };
    if r.abs() > f.max {
        return f.overflow(neg, sat);
    }
    f.encode(r)
}

/// f32 bits → FP4/FP6/BF6 (`f`), nearest even, saturating; a NaN gives ±max with its sign
/// (see [`RoundedOp::F32ToFp4`]).
fn to_mx(f: F8, x: u32) -> u64 {
    if is_nan32(x) {
        return f.overflow(x >> 31 != 0, true);
    }
    to_f8(f, x, None, true)
}

/// f32 bits → FP4/FP6/BF6 (`f`) stochastically rounded with the random `rng` (see
/// [`RoundedOp::SrF32ToFp4`]): NaN and ±Inf give ±max, zeros keep their sign.
///
/// Which random bits are added is not defined by the CDNA4 ISA for these formats (its
/// chapter-12 helpers are undefined); wavejit adds the top `23 - mbits` bits of `rng` below
/// the format's last place, as the FP8/BF8 pseudocode does (`S1[31:12]`, `S1[31:11]`), so
/// the result does not depend on the source's precision (an f16/bf16 source converted to f32
/// has zero low bits, and adding the top bits of `rng` to them carries exactly when adding
/// fewer top bits to the 16-bit fraction would). Unlike the FP8 pseudocode's "wrap around",
/// the carry rounds up into the exponent: AMD's host emulation of these conversions
/// (Composable Kernel `convert_to_type_sr`, `mant += seed >> sr_shift` with `sr_shift` 10
/// for FP4, then "increment exponent when mantissa overflows") does so, and a public MXFP4
/// training kernel that uses `v_cvt_scalef32_sr_pk_fp4_f32` notes "ASM SR is unbiased" (a
/// wrap would round 1.75 to FP4 1.0 half the time). Open question, ARCHITECTURE.md.
fn sr_mx(f: F8, x: u32, rng: u32) -> u64 {
    let neg = x >> 31 != 0;
    let v = f64::from(f32::from_bits(x));
    if is_nan32(x) || v.is_infinite() {
        return f.overflow(neg, true);
    }
    if v == 0.0 {
        return f.encode(v);
    }
    let r = stochastic(x, f.mbits, f.bias, rng >> (9 + f.mbits));
    if r == 0.0 {
        return f.encode(if neg { -0.0 } else { 0.0 });
    }
    if r.abs() > f.max {
        return f.overflow(neg, true);
    }
    f.encode(r)
}

/// Evaluates `op` in direction `rm` on one lane's arguments (see [`RoundedOp`]); `ovfl` is
/// MODE.FP16_OVFL for f16 results.
pub fn eval(op: RoundedOp, rm: Round, ovfl: bool, args: [u64; 4]) -> u64 {
    let [a, b, c, _] = args;
    let (a32, b32, c32) = (a as u32, b as u32, c as u32);
    match op {
        RoundedOp::AddF32 => f32_op(Arith::Add, &[a32, b32], rm, false, false),
        RoundedOp::SubF32 => {
            // a - b = a + (-b), NaN operands kept in their positions.
            let nb = if is_nan32(b32) {
                b32
            } else {
                b32 ^ 0x8000_0000
            };
            let r = f32_op(Arith::Add, &[a32, nb], rm, false, false) as u32;
            (if is_nan32(b32) && !is_nan32(a32) {
                b32 | 0x40_0000
            } else {
                r
            }) as u64
        }
        RoundedOp::MulF32 => f32_op(Arith::Mul, &[a32, b32], rm, false, false),
        RoundedOp::FmaF32 => f32_op(Arith::Fma, &[a32, b32, c32], rm, false, false),
        RoundedOp::FmaF32ToF16 => f32_op(Arith::Fma, &[a32, b32, c32], rm, true, ovfl),
        RoundedOp::AddF64 => f64_op(Arith::Add, &[a, b], rm),
        RoundedOp::SubF64 => {
            if is_nan64(b) && !is_nan64(a) {
                return b | 0x0008_0000_0000_0000;
            }
            let nb = if is_nan64(b) { b } else { b ^ (1u64 << 63) };
            f64_op(Arith::Add, &[a, nb], rm)
        }
        RoundedOp::MulF64 => f64_op(Arith::Mul, &[a, b], rm),
        RoundedOp::FmaF64 => f64_op(Arith::Fma, &[a, b, c], rm),
        RoundedOp::AddF16 => f16_op(Arith::Add, &[a, b], rm, ovfl),
        RoundedOp::SubF16 => {
            let nb = if is_nan16(b) { b } else { b ^ 0x8000 };
            if is_nan16(b) && !is_nan16(a) {
                return (b & 0xFFFF) | 0x200;
            }
            f16_op(Arith::Add, &[a, nb], rm, ovfl)
        }
        RoundedOp::MulF16 => f16_op(Arith::Mul, &[a, b], rm, ovfl),
        RoundedOp::FmaF16 => f16_op(Arith::Fma, &[a, b, c], rm, ovfl),
        RoundedOp::LdexpF32 => {
            let x = f32::from_bits(a32);
            if is_nan32(a32) {
                return (a32 | 0x40_0000) as u64;
            }
            if x == 0.0 || x.is_infinite() {
                return a32 as u64;
            }
            // Exact in f64 for |k| <= 400, which already over- or underflows any f32.
            let k = (b32 as i32).clamp(-400, 400);
            let s = scale(f64::from(x), k);
            (round_pair(s, 0.0, 0, F32, rm) as f32).to_bits() as u64
        }
        RoundedOp::LdexpF64 => {
            let x = f64::from_bits(a);
            if is_nan64(a) {
                return a | 0x0008_0000_0000_0000;
            }
            if x == 0.0 || x.is_infinite() {
                return a;
            }
            let k = (b32 as i32).clamp(-2200, 2200);
            round_pair(x, 0.0, k, F64, rm).to_bits()
        }
        RoundedOp::F64ToF32 => {
            let x = f64::from_bits(a);
            if is_nan64(a) || x == 0.0 || x.is_infinite() {
                return f64_to_f32(a) as u64;
            }
            (round_pair(x, 0.0, 0, F32, rm) as f32).to_bits() as u64
        }
        RoundedOp::I32ToF32 | RoundedOp::U32ToF32 | RoundedOp::I32ToF16 | RoundedOp::U32ToF16 => {
            let x = match op {
                RoundedOp::I32ToF32 | RoundedOp::I32ToF16 => f64::from(a32 as i32),
                _ => f64::from(a32),
            };
            let to16 = matches!(op, RoundedOp::I32ToF16 | RoundedOp::U32ToF16);
            if x == 0.0 {
                return 0;
            }
            if to16 {
                d2h(round_pair(x, 0.0, 0, F16, rm), true, ovfl)
            } else {
                (round_pair(x, 0.0, 0, F32, rm) as f32).to_bits() as u64
            }
        }
        RoundedOp::F32ToF16 => {
            let x = f32::from_bits(a32);
            if is_nan32(a32) || x == 0.0 || x.is_infinite() {
                return f32_to_f16(a32, false) as u64;
            }
            d2h(round_pair(f64::from(x), 0.0, 0, F16, rm), true, ovfl)
        }
        RoundedOp::F32ToFp8Fnuz => to_f8(FP8_FNUZ, a32, None, ovfl),
        RoundedOp::F32ToBf8Fnuz => to_f8(BF8_FNUZ, a32, None, ovfl),
        RoundedOp::F32ToFp8Ocp => to_f8(FP8_OCP, a32, None, ovfl),
        RoundedOp::F32ToBf8Ocp => to_f8(BF8_OCP, a32, None, ovfl),
        RoundedOp::SrF32ToFp8Fnuz => to_f8(FP8_FNUZ, a32, Some(b32), ovfl),
        RoundedOp::SrF32ToBf8Fnuz => to_f8(BF8_FNUZ, a32, Some(b32), ovfl),
        RoundedOp::SrF32ToFp8Ocp => to_f8(FP8_OCP, a32, Some(b32), ovfl),
        RoundedOp::SrF32ToBf8Ocp => to_f8(BF8_OCP, a32, Some(b32), ovfl),
        RoundedOp::F32ToBf16 | RoundedOp::SrF32ToBf16 => {
            let x = f32::from_bits(a32);
            if is_nan32(a32) {
                return ((a32 | 0x40_0000) >> 16) as u64;
            }
            if x == 0.0 || x.is_infinite() {
                return (a32 >> 16) as u64;
            }
            const BF16: Fmt = Fmt {
                mbits: 7,
                emin: -126,
                emax: 127,
            };
            let r = if op == RoundedOp::SrF32ToBf16 {
                let v = stochastic(a32, 7, 127, b32);
                if v.abs() >= pow2(128) {
                    v.signum() * f64::INFINITY
                } else {
                    v
                }
            } else {
                round_pair(f64::from(x), 0.0, 0, BF16, rm)
            };
            ((r as f32).to_bits() >> 16) as u64
        }
        RoundedOp::SrF32ToF16 => {
            let x = f32::from_bits(a32);
            if is_nan32(a32) || x == 0.0 || x.is_infinite() {
                return f32_to_f16(a32, false) as u64;
            }
            let v = stochastic(a32, 10, 15, b32);
            let v = if v.abs() > 65504.0 {
                v.signum() * f64::INFINITY
            } else {
                v
            };
            d2h(v, true, ovfl)
        }
        RoundedOp::Dot2F32F16 => dot2_f16(a32, b32, c32) as u64,
        RoundedOp::F32ToFp4 => to_mx(FP4, a32),
        RoundedOp::F32ToFp6 => to_mx(FP6, a32),
        RoundedOp::F32ToBf6 => to_mx(BF6, a32),
        RoundedOp::SrF32ToFp4 => sr_mx(FP4, a32, b32),
        RoundedOp::SrF32ToFp6 => sr_mx(FP6, a32, b32),
        RoundedOp::SrF32ToBf6 => sr_mx(BF6, a32, b32),
    }
}

/// `v_dot2_f32_f16` (see [`RoundedOp::Dot2F32F16`]). The two f16 products are exact integers
/// times 2^-48 below 2^81, so their sum is an exact `i128`; c joins it on a common grid (or,
/// far below it, as a sticky bit that only breaks ties, or far above it, alone); the exact sum
/// then rounds once through [`round_pair`].
fn dot2_f16(a: u32, b: u32, c: u32) -> u32 {
    let flush16 = |h: u32| if h & 0x7c00 == 0 { h & 0x8000 } else { h };
    let halves = [a & 0xffff, b & 0xffff, a >> 16, b >> 16].map(flush16);
    let c = if c & 0x7f80_0000 == 0 {
        c & F32_SIGN
    } else {
        c
    };
    if let Some(&h) = halves.iter().find(|&&h| h & 0x7fff > 0x7c00) {
        return f16_to_f32(h);
    }
    if is_nan32(c) {
        return c | F32_QUIET;
    }
    let x = halves.map(|h| h2d(h as u64));
    let cv = f64::from(f32::from_bits(c));
    let (p1, p2) = (x[0] * x[1], x[2] * x[3]); // exact
    let host = p1 + p2 + cv;
    if x.iter().any(|v| v.is_infinite()) || cv.is_infinite() {
        return nan_rule32(&[], host as f32);
    }
    let n = (p1 * pow2(48)) as i128 + (p2 * pow2(48)) as i128; // exact integers
    let bits = |v: i128| 128 - v.unsigned_abs().leading_zeros() as i32;
    let (x, g) = if cv == 0.0 {
        (n, -48)
    } else if cv.abs() >= pow2(70) {
        // |p1 + p2| < 2^33 is below half an ulp of c.
        return c;
    } else {
        let ec = exponent(cv) - 23;
        let mc = (cv * pow2(-ec)) as i128; // the 24-bit significand, signed
        if ec >= -48 {
            (n + (mc << (ec + 48)), -48)
        } else if bits(n) - 48 - ec <= 125 {
            ((n << (-48 - ec)) + mc, ec)
        } else {
            // c is more than 2^54 times smaller than the products' sum: a sticky bit below.
            let k = 125 - bits(n);
            ((n << k) + mc.signum(), -48 - k)
        }
    };
    if x == 0 {
        return (host as f32).to_bits();
    }
    let s = x as f64;
    let e = (x - s as i128).signum() as f64;
    let r = (round_pair(s, e, g, F32, Round::NearestEven) as f32).to_bits();
    if r & 0x7f80_0000 == 0 {
        r & F32_SIGN // output denormals flushed
    } else {
        r
    }
}

/// Fractional bits of the fixed-point numbers used to compute 2/π (more than the 1201 bits
/// `v_trig_preop_f64` reads, so every one of those is exact).
const PI_FRAC_LIMBS: usize = 22;

/// A non-negative fixed-point number: little-endian 64-bit limbs, `PI_FRAC_LIMBS` of them
/// fractional, one integer limb.
type Fixed = [u64; PI_FRAC_LIMBS + 1];

fn fixed_div_small(a: &Fixed, d: u64) -> Fixed {
    let mut q = [0u64; PI_FRAC_LIMBS + 1];
    let mut rem = 0u128;
    for i in (0..a.len()).rev() {
        let cur = rem << 64 | a[i] as u128;
        q[i] = (cur / d as u128) as u64;
        rem = cur % d as u128;
    }
    q
}

fn fixed_add(a: &mut Fixed, b: &Fixed) {
    let mut carry = 0u128;
    for i in 0..a.len() {
        let s = a[i] as u128 + b[i] as u128 + carry;
        a[i] = s as u64;
        carry = s >> 64;
    }
}

fn fixed_sub(a: &mut Fixed, b: &Fixed) {
    let mut borrow = 0i128;
    for i in 0..a.len() {
        let s = a[i] as i128 - b[i] as i128 - borrow;
        a[i] = s as u64;
        borrow = (s < 0) as i128;
    }
}

fn fixed_mul_small(a: &Fixed, m: u64) -> Fixed {
    let mut r = [0u64; PI_FRAC_LIMBS + 1];
    let mut carry = 0u128;
    for i in 0..a.len() {
        let p = a[i] as u128 * m as u128 + carry;
        r[i] = p as u64;
        carry = p >> 64;
    }
    r
}

/// `atan(1/x)` by its Taylor series, truncated at every step (error a few units of the last
/// limb).
fn fixed_atan_inv(x: u64) -> Fixed {
    let mut one = [0u64; PI_FRAC_LIMBS + 1];
    one[PI_FRAC_LIMBS] = 1;
    let mut power = fixed_div_small(&one, x); // x^-(2k+1)
    let mut sum = [0u64; PI_FRAC_LIMBS + 1];
    let mut k = 0u64;
    while power.iter().any(|&w| w != 0) {
        let term = fixed_div_small(&power, 2 * k + 1);
        if k.is_multiple_of(2) {
            fixed_add(&mut sum, &term);
        } else {
            fixed_sub(&mut sum, &term);
        }
        power = fixed_div_small(&fixed_div_small(&power, x), x);
        k += 1;
    }
    sum
}

/// The first 1201 fractional bits of 2/π, most significant first (b_1200 .. b_0 of the
/// `v_trig_preop_f64` pseudocode), packed into 64-bit words (bit 63 of word 0 = b_1200).
/// Computed once: π by Machin's formula `16 atan(1/5) - 4 atan(1/239)` in fixed point, then
/// 2/π by binary long division.
fn two_over_pi() -> &'static [u64; 19] {
    static BITS: std::sync::OnceLock<[u64; 19]> = std::sync::OnceLock::new();
    BITS.get_or_init(|| {
        let mut pi = fixed_mul_small(&fixed_atan_inv(5), 16);
        fixed_sub(&mut pi, &fixed_mul_small(&fixed_atan_inv(239), 4));
        // Remainder r starts at 2; each step doubles it and subtracts π when it can.
        let mut r = [0u64; PI_FRAC_LIMBS + 1];
        r[PI_FRAC_LIMBS] = 2;
        let mut out = [0u64; 19];
        for i in 0..1201 {
            // r <<= 1 (r < π < 4, so the integer limb never overflows).
            let mut carry = 0;
            for w in r.iter_mut() {
                let nc = *w >> 63;
                *w = *w << 1 | carry;
                carry = nc;
            }
            let ge = r.iter().rev().zip(pi.iter().rev()).find(|(a, b)| a != b);
            if ge.is_none_or(|(a, b)| a > b) {
                fixed_sub(&mut r, &pi);
                out[i / 64] |= 1 << (63 - i % 64);
            }
        }
        out
    })
}

/// `v_trig_preop_f64` (RDNA4 ISA pseudocode, V_TRIG_PREOP_F64): the 53 bits of 2/π starting
/// `shift = S1[4:0] * 53` (plus `exponent(S0) - 1077` for large S0) bits after the binary
/// point, as an integer scaled by `2^(-53 - shift)` (`+ 128` when `exponent(S0) >= 1968`);
/// bits past b_0 are zero.
pub fn trig_preop(a: u64, b: u32) -> u64 {
    let e = ((a >> 52) & 0x7ff) as i64;
    let mut shift = (b & 31) as i64 * 53;
    if e > 1077 {
        shift += e - 1077;
    }
    let bits = two_over_pi();
    let bit = |i: i64| -> u64 {
        // Fraction bit i (0 = b_1200, the first after the point).
        if !(0..1201).contains(&i) {
            0
        } else {
            bits[(i / 64) as usize] >> (63 - i % 64) & 1
        }
    };
    let mut w = 0u64;
    for i in shift..shift + 53 {
        w = w << 1 | bit(i);
    }
    let mut scale = -53 - shift;
    if e >= 1968 {
        scale += 128;
    }
    ldexp64((w as f64).to_bits(), scale)
}
