//! The OCP MX small float formats (FP4 E2M1, FP6 E2M3, BF6 E3M2: subnormals at exponent
//! field 0, no Inf or NaN) worked on the host, and their packed 6-bit fields, for the scale
//! conversion tests.

/// A small OCP float format: exponent bits, mantissa bits, bias.
#[derive(Clone, Copy, Debug)]
pub struct Mx {
    pub ebits: u32,
    pub mbits: u32,
    pub bias: i32,
}

pub const FP4: Mx = Mx {
    ebits: 2,
    mbits: 1,
    bias: 1,
};
pub const FP6: Mx = Mx {
    ebits: 2,
    mbits: 3,
    bias: 1,
};
pub const BF6: Mx = Mx {
    ebits: 3,
    mbits: 2,
    bias: 3,
};

impl Mx {
    /// The sign bit (also the number of non-negative codes).
    pub fn sign(self) -> u32 {
        1 << (self.ebits + self.mbits)
    }

    /// The value of the non-negative code `c`: exponent field 0 is subnormal,
    /// `m · 2^(1 - bias - mbits)`, else `(1 + m / 2^mbits) · 2^(e - bias)`.
    pub fn value(self, c: u32) -> f64 {
        let e = c >> self.mbits;
        let m = f64::from(c & ((1 << self.mbits) - 1));
        let frac = m / f64::from(1u32 << self.mbits);
        if e == 0 {
            frac * 2f64.powi(1 - self.bias)
        } else {
            (1.0 + frac) * 2f64.powi(e as i32 - self.bias)
        }
    }

    /// The value of `code`, sign bit included.
    pub fn decode(self, code: u32) -> f64 {
        let mag = self.value(code & (self.sign() - 1));
        if code & self.sign() != 0 {
            -mag
        } else {
            mag
        }
    }

    /// The code nearest to `x` by search over all positive codes (ties to the even code),
    /// saturating; NaN gives the largest code with its sign.
    pub fn encode(self, x: f64) -> u32 {
        let sign = if x.is_sign_negative() { self.sign() } else { 0 };
        let max = self.sign() - 1;
        let a = x.abs();
        if x.is_nan() || a >= self.value(max) {
            return sign | max;
        }
        let mut best = 0;
        for c in 1..=max {
            let (db, dc) = ((self.value(best) - a).abs(), (self.value(c) - a).abs());
            if dc < db || (dc == db && c % 2 == 0 && best % 2 != 0) {
                best = c;
            }
        }
        sign | best
    }
}

/// Field `i` (6 bits) of the 192-bit value in `regs` (bits 31:0 in `regs[0]`): bits
/// `6i+5:6i`, possibly straddling two registers.
pub fn field6(regs: &[u32], i: usize) -> u32 {
    let bit = 6 * i;
    let (w, s) = (bit / 32, bit % 32);
    let pair = regs[w] as u64 | (regs.get(w + 1).copied().unwrap_or(0) as u64) << 32;
    (pair >> s) as u32 & 0x3f
}
