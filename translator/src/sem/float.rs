//! Float encodings shared by every element rule: the NaN rule, width conversions between
//! f16, f32 and f64 (NaNs quieted with their payload), and exact scaling by powers of two.

/// Sign bit of an f32.
pub const F32_SIGN: u32 = 0x8000_0000;
/// Quiet bit of an f32 NaN.
pub const F32_QUIET: u32 = 0x0040_0000;
/// Default NaN of f32 operations.
pub const F32_DEFAULT_NAN: u32 = 0x7FC0_0000;
/// Sign bit of an f64.
pub const F64_SIGN: u64 = 0x8000_0000_0000_0000;
/// Quiet bit of an f64 NaN.
pub const F64_QUIET: u64 = 0x0008_0000_0000_0000;
/// Default NaN of f64 operations.
pub const F64_DEFAULT_NAN: u64 = 0x7FF8_0000_0000_0000;

/// True when the f32 bits are a NaN.
#[inline]
pub fn is_nan32(x: u32) -> bool {
    x & !F32_SIGN > 0x7F80_0000
}

/// True when the f64 bits are a NaN.
#[inline]
pub fn is_nan64(x: u64) -> bool {
    x & !F64_SIGN > 0x7FF0_0000_0000_0000
}

#[inline]
pub(super) fn f32b(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

#[inline]
pub(super) fn f64b(x: u64) -> f64 {
    f64::from_bits(x)
}

/// Applies the NaN rule to an f32 result `r` computed from `ops`.
#[inline]
pub fn nan_rule32(ops: &[u32], r: f32) -> u32 {
    for &o in ops {
        if is_nan32(o) {
            return o | F32_QUIET;
        }
    }
    if r.is_nan() {
        F32_DEFAULT_NAN
    } else {
        r.to_bits()
    }
}

/// Applies the NaN rule to an f64 result `r` computed from `ops`.
#[inline]
pub fn nan_rule64(ops: &[u64], r: f64) -> u64 {
    for &o in ops {
        if is_nan64(o) {
            return o | F64_QUIET;
        }
    }
    if r.is_nan() {
        F64_DEFAULT_NAN
    } else {
        r.to_bits()
    }
}

/// Truncates `x` to `bits` (32 or 64).
#[inline]
pub fn trunc_to(bits: u32, x: u64) -> u64 {
    if bits == 32 {
        x & 0xFFFF_FFFF
    } else {
        x
    }
}

/// Exact `x * 2^k` for f64 bits with one rounding (to nearest even) at the end, including
/// results in the subnormal range.
pub fn ldexp64(x: u64, k: i64) -> u64 {
    if is_nan64(x) {
        return x | F64_QUIET;
    }
    let sign = x & F64_SIGN;
    let e_field = ((x >> 52) & 0x7FF) as i64;
    let m = x & 0x000F_FFFF_FFFF_FFFF;
    if e_field == 0x7FF || (e_field == 0 && m == 0) {
        return x; // ±Inf, ±0
    }
    // value = mant * 2^(e - 1075) with bit 52 of mant set.
    let (mant, e) = if e_field == 0 {
        let s = m.leading_zeros() as i64 - 11;
        (m << s, 1 - s)
    } else {
        (m | 1 << 52, e_field)
    };
    let e2 = e + k.clamp(-5000, 5000);
    if e2 >= 0x7FF {
        return sign | 0x7FF0_0000_0000_0000;
    }
    if e2 >= 1 {
        return sign | (e2 as u64) << 52 | (mant & 0x000F_FFFF_FFFF_FFFF);
    }
    let shift = 1 - e2; // >= 1
    if shift > 54 {
        return sign;
    }
    let q = mant >> shift;
    let rem = mant & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let q = if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    };
    sign | q
}

/// Exact `x * 2^k` for f32 bits, rounded once to nearest even.
pub fn ldexp32(x: u32, k: i64) -> u32 {
    if is_nan32(x) {
        return x | F32_QUIET;
    }
    // Every f32 times 2^k for |k| <= 400 is exact in f64; the f64 → f32 cast rounds once.
    let k = k.clamp(-400, 400);
    let d = f64::from(f32::from_bits(x)).to_bits();
    (f64::from_bits(ldexp64(d, k)) as f32).to_bits()
}

/// f32 bits → f64 bits (exact; NaNs quieted, payload kept).
pub fn f32_to_f64(a: u32) -> u64 {
    if is_nan32(a) {
        let sign = ((a & F32_SIGN) as u64) << 32;
        let payload = ((a & 0x7F_FFFF) as u64) << 29;
        sign | 0x7FF0_0000_0000_0000 | F64_QUIET | payload
    } else {
        f64::from(f32::from_bits(a)).to_bits()
    }
}

/// f64 bits → f32 bits, round to nearest even (NaNs quieted, top payload bits kept).
pub fn f64_to_f32(a: u64) -> u32 {
    if is_nan64(a) {
        let sign = ((a >> 32) as u32) & F32_SIGN;
        let payload = ((a >> 29) as u32) & 0x7F_FFFF;
        sign | 0x7F80_0000 | F32_QUIET | payload
    } else {
        (f64::from_bits(a) as f32).to_bits()
    }
}

/// f16 bits (low 16) → f32 bits (exact; NaNs quieted, payload kept).
pub fn f16_to_f32(h: u32) -> u32 {
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1F;
    let mant = h & 0x3FF;
    match exp {
        0 => {
            // ±0 or a denormal: mant * 2^-24 is exact in f32.
            let v = mant as f32 * f32::from_bits(0x3380_0000);
            sign | v.to_bits()
        }
        0x1F => {
            if mant == 0 {
                sign | 0x7F80_0000
            } else {
                sign | 0x7F80_0000 | F32_QUIET | mant << 13
            }
        }
        _ => sign | (exp + 112) << 23 | mant << 13,
    }
}

/// f32 bits → f16 bits (low 16, high zero). `rtz` selects round toward zero, else nearest even.
/// NaNs are quieted keeping the top payload bits.
pub fn f32_to_f16(a: u32, rtz: bool) -> u32 {
    let sign = (a >> 16) & 0x8000;
    let exp = ((a >> 23) & 0xFF) as i32;
    let mant = a & 0x7F_FFFF;
    if exp == 0xFF {
        return if mant == 0 {
            sign | 0x7C00
        } else {
            sign | 0x7E00 | (mant >> 13)
        };
    }
    if exp == 0 {
        // f32 zero or denormal: far below half of the smallest f16 denormal.
        return sign;
    }
    let e = exp - 127;
    let m24 = mant | 0x80_0000;
    // Value = m24 * 2^(e-23). Target unit: 2^(max(e,-14) - 10).
    let unit_exp = e.max(-14) - 10;
    let shift = (unit_exp - (e - 23)) as u32; // >= 13
    let (q, rem, half) = if shift > 31 {
        (0u32, 1u32, u32::MAX)
    } else {
        let q = m24 >> shift;
        let rem = m24 & ((1u32 << shift) - 1);
        (q, rem, 1u32 << (shift - 1))
    };
    let q = if !rtz && (rem > half || (rem == half && q & 1 == 1)) {
        q + 1
    } else {
        q
    };
    // q counts units of 2^unit_exp; for normals q is in [1024, 2048].
    let bits = if e < -14 {
        q // denormal (q == 1024 is the smallest normal, encoded the same way)
    } else {
        let biased = (e + 15) as u32;
        (biased << 10) + (q - 1024) // a carry into 2048 bumps the exponent
    };
    if bits >= 0x7C00 {
        return sign | if rtz { 0x7BFF } else { 0x7C00 };
    }
    sign | bits
}
