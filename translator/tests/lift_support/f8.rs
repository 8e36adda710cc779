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
    /// An f32 (or any f64) value → code, nearest even (`rng` None) or stochastic (the
    /// random value's low `23 - mbits` bits, as for an f32 input).
    pub fn convert(self, x: impl Into<f64>, rng: Option<u32>, sat: bool) -> u8 {
        let x: f64 = x.into();
        let neg = x.is_sign_negative();
        if x.is_nan() {
            return self.nan(neg);
        }
        if x.is_infinite() {
            return self.overflow(neg, sat);
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
        let up = match rng {
            None => {
                let mid = (lo + hi) / 2.0; // exact
                a > mid || (a == mid && lo_c & 1 == 1)
            }
            Some(r) => {
                let keep = 23 - self.mbits;
                let rem = a - lo; // exact
                let dropped = (rem / (hi - lo) * 2f64.powi(keep as i32)).floor() as u64;
                dropped + (r as u64 & ((1 << keep) - 1)) >= 1 << keep
            }
        };
        if a == lo && rng.is_none() {
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
