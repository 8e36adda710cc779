//! Element formats of matrix operands, decoded exactly.
//!
//! Sources: CDNA4 ISA 7.3 "Small float formats" (`notes/cdna.md` §5.8). Every format
//! narrower than f32 is a subset of f32, so decoding is exact; products of two such values
//! are exact in f32 as well (at most 11 + 11 significant bits).
//!
//! The two 8-bit float families differ by target: CDNA3 (gfx942) uses the FNUZ variants
//! (exponent bias 8 / 16, a single NaN at 0x80, no negative zero, no infinity), CDNA4
//! (gfx950) and RDNA4 the OCP ones (E4M3FN: bias 7, NaN at S.1111.111, no infinity;
//! E5M2: bias 15, IEEE-like infinities and NaNs).

/// The value a gfx942 xf32 MFMA (`v_mfma_f32_*_xf32`) multiplies for the f32 register bits
/// `raw`: the mantissa truncated to its top 10 bits (round toward zero, the low 13 bits
/// dropped), NaN kept as NaN.
///
/// No AMD ISA text gives the conversion (the CDNA3 guide only names the type). Source:
/// ROCm/rocm-libraries PR 9176 (hipBLASLt, ROCM-3139) reports that gfx942's native xf32
/// MFMA truncates f32 to tf32 in hardware, biasing results toward zero, and works around it
/// by pre-rounding the operands in the kernel. NaN inputs keeping NaN (rather than a NaN
/// whose payload sits only in the dropped bits becoming infinity) is our assumption.
pub fn xf32_from_bits(raw: u32) -> f32 {
    let v = f32::from_bits(raw);
    if v.is_nan() {
        v
    } else {
        f32::from_bits(raw & !0x1FFF)
    }
}

/// The element type of one matrix operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// IEEE binary32.
    F32,
    /// CDNA3 "xf32": f32 registers read with their mantissa truncated to 10 bits
    /// ([`xf32_from_bits`]).
    Xf32,
    /// IEEE binary16.
    F16,
    /// bfloat16 (the high half of an f32).
    Bf16,
    /// Signed 8-bit integer.
    I8,
    /// IEEE binary64.
    F64,
    /// E4M3 FNUZ (CDNA3 FP8).
    Fp8Fnuz,
    /// E5M2 FNUZ (CDNA3 BF8).
    Bf8Fnuz,
    /// E4M3FN, OCP (CDNA4 FP8).
    Fp8,
    /// E5M2, OCP (CDNA4 BF8).
    Bf8,
    /// E2M3 (FP6), no Inf or NaN.
    Fp6,
    /// E3M2 (BF6), no Inf or NaN.
    Bf6,
    /// E2M1 (FP4), no Inf or NaN.
    Fp4,
    /// Unsigned 8-bit integer (RDNA IU8 WMMA with its NEG bit clear).
    U8,
    /// Signed 4-bit integer (RDNA IU4 WMMA with its NEG bit set).
    I4,
    /// Unsigned 4-bit integer (RDNA IU4 WMMA with its NEG bit clear).
    U4,
}

impl Elem {
    /// Width of one element in bits.
    pub fn bits(self) -> u32 {
        match self {
            Elem::F64 => 64,
            Elem::F32 | Elem::Xf32 => 32,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::I8 | Elem::U8 | Elem::Fp8Fnuz | Elem::Bf8Fnuz | Elem::Fp8 | Elem::Bf8 => 8,
            Elem::Fp6 | Elem::Bf6 => 6,
            Elem::Fp4 | Elem::I4 | Elem::U4 => 4,
        }
    }

    /// The format an F8F6F4 MFMA selects with a CBSZ (A) or BLGP (B) code
    /// (CDNA4 ISA 7.1.5): 0 = E4M3, 1 = E5M2, 2 = E2M3, 3 = E3M2, 4 = E2M1.
    pub fn from_f8f6f4_code(code: u8) -> Option<Elem> {
        Some(match code {
            0 => Elem::Fp8,
            1 => Elem::Bf8,
            2 => Elem::Fp6,
            3 => Elem::Bf6,
            4 => Elem::Fp4,
            _ => return None,
        })
    }

    /// Whether the element is a float narrower than 32 bits (MODE denormal controls do not
    /// apply to these inputs, CDNA4 ISA 7.4).
    pub fn is_narrow_float(self) -> bool {
        !matches!(self, Elem::F32 | Elem::Xf32 | Elem::F64) && !self.is_int()
    }

    /// Whether MODE's f32 input-denormal control applies to these inputs (f32 and xf32).
    pub fn honours_f32_denorm_mode(self) -> bool {
        matches!(self, Elem::F32 | Elem::Xf32)
    }

    /// Whether the element is an integer.
    pub fn is_int(self) -> bool {
        matches!(self, Elem::I8 | Elem::U8 | Elem::I4 | Elem::U4)
    }

    /// The value of an integer element's raw bits (`bits()` low bits of `raw`); 0 for floats.
    pub fn int_value(self, raw: u32) -> i64 {
        match self {
            Elem::I8 => raw as u8 as i8 as i64,
            Elem::U8 => (raw & 0xFF) as i64,
            Elem::I4 => ((raw << 28) as i32 >> 28) as i64,
            Elem::U4 => (raw & 0xF) as i64,
            _ => 0,
        }
    }

    /// Decodes the raw bits of a float element (`bits()` low bits of `raw`) to f32,
    /// exactly. Not for [`Elem::F64`] or [`Elem::I8`].
    pub fn to_f32(self, raw: u32) -> f32 {
        match self {
            Elem::F32 => f32::from_bits(raw),
            Elem::Xf32 => xf32_from_bits(raw),
            Elem::F16 => half::f16::from_bits(raw as u16).to_f32(),
            Elem::Bf16 => f32::from_bits((raw & 0xFFFF) << 16),
            Elem::Fp8 => {
                if raw & 0x7F == 0x7F {
                    nan(raw >> 7)
                } else {
                    minifloat(raw, 4, 3, 7)
                }
            }
            // OCP E5M2 is the top byte of an IEEE binary16.
            Elem::Bf8 => half::f16::from_bits(((raw & 0xFF) << 8) as u16).to_f32(),
            Elem::Fp8Fnuz => {
                if raw & 0xFF == 0x80 {
                    f32::NAN
                } else {
                    minifloat(raw, 4, 3, 8)
                }
            }
            Elem::Bf8Fnuz => {
                if raw & 0xFF == 0x80 {
                    f32::NAN
                } else {
                    minifloat(raw, 5, 2, 16)
                }
            }
            Elem::Fp6 => minifloat(raw, 2, 3, 1),
            Elem::Bf6 => minifloat(raw, 3, 2, 3),
            Elem::Fp4 => minifloat(raw, 2, 1, 1),
            Elem::F64 => f32::from_bits(raw),
            Elem::I8 | Elem::U8 | Elem::I4 | Elem::U4 => self.int_value(raw) as f32,
        }
    }
}

/// A quiet NaN with the given sign bit.
fn nan(sign: u32) -> f32 {
    f32::from_bits(((sign & 1) << 31) | 0x7FC0_0000)
}

/// 2^e for -149 <= e <= 127, exactly.
fn pow2(e: i32) -> f32 {
    if e >= -126 {
        f32::from_bits(((e + 127) as u32) << 23)
    } else {
        f32::from_bits(1 << (e + 149))
    }
}

/// A finite sign/exponent/mantissa value with `ebits` exponent bits, `mbits` mantissa bits
/// and the given bias; exponent 0 is subnormal (no implicit one).
fn minifloat(raw: u32, ebits: u32, mbits: u32, bias: i32) -> f32 {
    let man = raw & ((1 << mbits) - 1);
    let exp = ((raw >> mbits) & ((1 << ebits) - 1)) as i32;
    let sign = (raw >> (mbits + ebits)) & 1;
    let mag = if exp == 0 {
        man as f32 * pow2(1 - bias - mbits as i32)
    } else {
        ((1 << mbits) | man) as f32 * pow2(exp - bias - mbits as i32)
    };
    if sign == 1 {
        -mag
    } else {
        mag
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values are the format tables of CDNA4 ISA 7.3 (notes/cdna.md §5.8).
    #[test]
    fn extremes_of_each_format() {
        assert_eq!(Elem::Fp8.to_f32(0x7E), 448.0);
        assert_eq!(Elem::Fp8.to_f32(0x08), 2f32.powi(-6));
        assert_eq!(Elem::Fp8.to_f32(0x01), 2f32.powi(-9));
        assert!(Elem::Fp8.to_f32(0x7F).is_nan() && Elem::Fp8.to_f32(0xFF).is_nan());
        assert_eq!(Elem::Fp8.to_f32(0x80).to_bits(), 0x8000_0000);
        assert_eq!(Elem::Bf8.to_f32(0x7B), 57344.0);
        assert_eq!(Elem::Bf8.to_f32(0x7C), f32::INFINITY);
        assert_eq!(Elem::Bf8.to_f32(0xFC), f32::NEG_INFINITY);
        assert!(Elem::Bf8.to_f32(0x7D).is_nan());
        assert_eq!(Elem::Bf8.to_f32(0x01), 2f32.powi(-16));
        assert_eq!(Elem::Fp6.to_f32(0x1F), 7.5);
        assert_eq!(Elem::Fp6.to_f32(0x08), 1.0);
        assert_eq!(Elem::Fp6.to_f32(0x01), 0.125);
        assert_eq!(Elem::Fp6.to_f32(0x3F), -7.5);
        assert_eq!(Elem::Bf6.to_f32(0x1F), 28.0);
        assert_eq!(Elem::Bf6.to_f32(0x04), 0.25);
        assert_eq!(Elem::Bf6.to_f32(0x01), 0.0625);
        assert_eq!(Elem::Fp4.to_f32(0x7), 6.0);
        assert_eq!(Elem::Fp4.to_f32(0x2), 1.0);
        assert_eq!(Elem::Fp4.to_f32(0x1), 0.5);
        assert_eq!(Elem::Fp4.to_f32(0xF), -6.0);
        // FNUZ: bias 8 (E4M3) / 16 (E5M2), 0x80 the only NaN, 0x7F a finite maximum.
        assert_eq!(Elem::Fp8Fnuz.to_f32(0x7F), 240.0);
        assert_eq!(Elem::Fp8Fnuz.to_f32(0x08), 2f32.powi(-7));
        assert!(Elem::Fp8Fnuz.to_f32(0x80).is_nan());
        assert_eq!(Elem::Fp8Fnuz.to_f32(0xC0), -1.0);
        assert_eq!(Elem::Bf8Fnuz.to_f32(0x7F), 57344.0);
        assert!(Elem::Bf8Fnuz.to_f32(0x80).is_nan());
        assert_eq!(Elem::Bf8Fnuz.to_f32(0x40), 1.0);
        assert_eq!(Elem::Bf16.to_f32(0x3FC0), 1.5);
        assert_eq!(Elem::F16.to_f32(0x3C00), 1.0);
    }

    #[test]
    fn integer_elements() {
        assert_eq!(Elem::I8.int_value(0x80), -128);
        assert_eq!(Elem::U8.int_value(0x80), 128);
        assert_eq!(Elem::I4.int_value(0x8), -8);
        assert_eq!(Elem::I4.int_value(0x7), 7);
        assert_eq!(Elem::I4.int_value(0xF), -1);
        assert_eq!(Elem::U4.int_value(0xF), 15);
        assert_eq!(Elem::U4.int_value(0x1F), 15);
    }

    #[test]
    fn small_floats_are_monotone_and_sign_symmetric() {
        for e in [
            Elem::Fp8,
            Elem::Bf8,
            Elem::Fp8Fnuz,
            Elem::Bf8Fnuz,
            Elem::Fp6,
            Elem::Bf6,
            Elem::Fp4,
        ] {
            let sign = 1u32 << (e.bits() - 1);
            let mut prev = 0.0f32;
            for code in 1..sign {
                let v = e.to_f32(code);
                if v.is_nan() || v.is_infinite() {
                    continue;
                }
                assert!(v > prev, "{e:?} {code:#x}: {v} after {prev}");
                assert_eq!(e.to_f32(code | sign), -v, "{e:?} {code:#x}");
                prev = v;
            }
        }
    }
}
