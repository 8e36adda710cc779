//! The 8-bit float formats of gfx942 (FNUZ) and gfx950 (OCP) as a test oracle: all 256 codes
//! decoded from the format table (CDNA4 ISA table 30), nearest-even chosen by exact
//! comparison with the midpoints of neighbouring codes, stochastic rounding by the ISA's rule.

/// One 8-bit format.
#[derive(Clone, Copy, Debug)]
pub struct F8 {
    /// Mantissa bits.
    pub mbits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// FNUZ (gfx942): 0x80 the only NaN, no −0 or Inf.
    pub fnuz: bool,
    /// OCP E5M2 has IEEE-style Inf/NaN; OCP E4M3FN only NaN at S.1111.111.
    pub ieee_top: bool,
}

/// gfx942 FP8 (E4M3, bias 8).
pub const FP8_FNUZ: F8 = F8 {
    mbits: 3,
    bias: 8,
    fnuz: true,
    ieee_top: false,
};
/// gfx942 BF8 (E5M2, bias 16).
pub const BF8_FNUZ: F8 = F8 {
    mbits: 2,
    bias: 16,
    fnuz: true,
    ieee_top: false,
};
/// OCP E4M3FN (gfx950).
pub const FP8_OCP: F8 = F8 {
    mbits: 3,
    bias: 7,
    fnuz: false,
    ieee_top: false,
};
/// OCP E5M2 (gfx950).
pub const BF8_OCP: F8 = F8 {
    mbits: 2,
    bias: 15,
    fnuz: false,
    ieee_top: true,
};

impl F8 {
    /// The value of `code`: `None` for NaN, ±Inf as f64 infinities.
    pub fn decode(self, code: u8) -> Option<f64> {
        let neg = code & 0x80 != 0;
        let ebits = 7 - self.mbits;
        let e = (code as u32 >> self.mbits) & ((1 << ebits) - 1);
        let m = (code as u32) & ((1 << self.mbits) - 1);
        if self.fnuz && code == 0x80 {
            return None;
        }
        if !self.fnuz && e == (1 << ebits) - 1 {
            if self.ieee_top {
                return if m == 0 {
                    Some(if neg {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    })
                } else {
                    None
                };
            }
            if m == (1 << self.mbits) - 1 {
                return None;
            }
        }
        let mag = if e == 0 {
            m as f64 * 2f64.powi(1 - self.bias - self.mbits as i32)
        } else {
            (m + (1 << self.mbits)) as f64 * 2f64.powi(e as i32 - self.bias - self.mbits as i32)
        };
        Some(if neg { -mag } else { mag })
    }
    /// Finite non-negative codes by increasing value (0 first).
    pub fn positive(self) -> Vec<(u8, f64)> {
        let mut v: Vec<(u8, f64)> = (0u8..0x80)
            .filter_map(|c| self.decode(c).filter(|x| x.is_finite()).map(|x| (c, x)))
            .collect();
        v.sort_by(|a, b| a.1.total_cmp(&b.1));
        v
    }
    /// The largest finite code and its value.
    pub fn max(self) -> (u8, f64) {
        *self.positive().last().unwrap()
    }
    /// The NaN code of sign `neg`.
    pub fn nan(self, neg: bool) -> u8 {
        if self.fnuz {
            0x80
        } else {
            (neg as u8) << 7 | 0x7f
        }
    }
    /// The code of an overflow of sign `neg` (±max with `sat`).
    pub fn overflow(self, neg: bool, sat: bool) -> u8 {
        let s = (neg as u8) << 7;
        if sat {
            s | self.max().0
        } else if self.ieee_top {
            s | 0x7c
        } else {
            self.nan(neg)
        }
    }
    /// `code` with the sign `neg` (FNUZ has no −0).
    pub fn signed(self, neg: bool, code: u8) -> u8 {
        if code == 0 && self.fnuz {
            0
        } else {
            (neg as u8) << 7 | code
        }
    }
    /// Stochastic rounding of the finite f32 `x` by the V_CVT_SR_FP8_F32 pseudocode (CDNA4
    /// ISA ch. 12): `S1[31:12]` (FP8) / `S1[31:11]` (BF8) added to the 23-bit mantissa,
    /// wrapping around on overflow, then truncation (the largest code not above the sum).
    fn convert_sr(self, x: f32, r: u32, sat: bool) -> u8 {
        if x.is_infinite() {
            // An f64 beyond the f32 range (a scaled conversion's quotient): ±Inf in f32.
            return self.overflow(x < 0.0, sat);
        }
        let b = x.to_bits();
        let m = ((b & 0x7f_ffff) + (r >> (32 - (23 - self.mbits)))) & 0x7f_ffff;
        let t = f64::from(f32::from_bits(b & 0xff80_0000 | m));
        let neg = b >> 31 != 0;
        let a = t.abs();
        let pos = self.positive();
        let (_, maxv) = self.max();
        let step_top = maxv - pos[pos.len() - 2].1;
        if a >= maxv + step_top {
            return self.overflow(neg, sat);
        }
        match pos.iter().rev().find(|&&(_, v)| v <= a) {
            Some(&(c, _)) => self.signed(neg, c),
            None => unreachable!("0 <= a"),
        }
    }

    /// An f32 (or any f64) value → code, nearest even (`rng` None) or stochastic
    /// ([`F8::convert_sr`], `x` then taken as an f32).
    pub fn convert(self, x: impl Into<f64>, rng: Option<u32>, sat: bool) -> u8 {
        let x: f64 = x.into();
        let neg = x.is_sign_negative();
        if x.is_nan() {
            return self.nan(neg);
        }
        if x.is_infinite() {
            return self.overflow(neg, sat);
        }
        if let Some(r) = rng {
            return self.convert_sr(x as f32, r, sat);
        }
        let a = x.abs();
        let pos = self.positive();
        let (maxc, maxv) = self.max();
        // The grid continues one step past max (a value rounded there overflows).
        let step_top = maxv - pos[pos.len() - 2].1;
        let beyond = maxv + step_top;
        let i = pos.iter().rposition(|&(_, v)| v <= a);
        let (lo_c, lo) = match i {
            Some(i) => pos[i],
            None => unreachable!("0 <= a"),
        };
        let (hi_c, hi) = match i.and_then(|i| pos.get(i + 1)) {
            Some(&(c, v)) => (Some(c), v),
            None => (None, beyond),
        };
        if a > beyond {
            return self.overflow(neg, sat);
        }
        let mid = (lo + hi) / 2.0; // exact
        let up = a > mid || (a == mid && lo_c & 1 == 1);
        if a == lo {
            return self.signed(neg, lo_c);
        }
        match (up, hi_c) {
            (false, _) => self.signed(neg, lo_c),
            (true, Some(c)) => self.signed(neg, c),
            (true, None) => {
                let _ = maxc;
                self.overflow(neg, sat)
            }
        }
    }
}
