//! `v_min`/`v_max` (f32, f64, f16, packed f16), `v_min3`/`v_max3`/`v_med3_f32` on NaN payloads
//! (quiet and signalling, both signs), ±0, ±Inf, denormals and normals, with MODE.IEEE on and
//! off; NaN propagation of directed-rounding arithmetic; MODE.FP16_OVFL.
//!
//! Expected values follow the GFX9/CDNA instruction pseudocode, transcribed here on raw bits:
//!
//! ```text
//! V_MIN_F32: if (IEEE_MODE && S0 is sNaN) D = quiet(S0)
//!            elsif (IEEE_MODE && S1 is sNaN) D = quiet(S1)
//!            elsif (S0 is NaN) D = S1  elsif (S1 is NaN) D = S0
//!            elsif (S0 == +0 && S1 == -0) D = S1  elsif (S0 == -0 && S1 == +0) D = S0
//!            else D = S0 < S1 ? S0 : S1
//! V_MAX_F32: likewise with +0 preferred; D = (IEEE_MODE ? S0 >= S1 : S0 > S1) ? S0 : S1
//! V_MIN3_F32(S0, S1, S2) = V_MIN_F32(V_MIN_F32(S0, S1), S2) (max3 likewise)
//! V_MED3_F32: if any NaN: V_MIN3_F32(S0, S1, S2)
//!            elsif V_MAX3_F32(S0, S1, S2) == S0: V_MAX_F32(S1, S2)
//!            elsif V_MAX3_F32(S0, S1, S2) == S1: V_MAX_F32(S0, S2)
//!            else V_MAX_F32(S0, S1)
//! ```

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

/// A float format on raw bits.
#[derive(Clone, Copy)]
struct Fmt {
    bits: u32,
    mbits: u32,
}
const H: Fmt = Fmt {
    bits: 16,
    mbits: 10,
};
const S: Fmt = Fmt {
    bits: 32,
    mbits: 23,
};
const D: Fmt = Fmt {
    bits: 64,
    mbits: 52,
};

impl Fmt {
    fn sign(self) -> u64 {
        1 << (self.bits - 1)
    }
    fn quiet(self) -> u64 {
        1 << (self.mbits - 1)
    }
    fn is_nan(self, x: u64) -> bool {
        let inf = (self.sign() - 1) & !((1 << self.mbits) - 1);
        x & (self.sign() - 1) > inf
    }
    fn is_snan(self, x: u64) -> bool {
        self.is_nan(x) && x & self.quiet() == 0
    }
    fn val(self, x: u64) -> f64 {
        match self.bits {
            16 => f64::from(half::f16::from_bits(x as u16)),
            32 => f64::from(f32::from_bits(x as u32)),
            _ => f64::from_bits(x),
        }
    }
    fn is_zero(self, x: u64) -> bool {
        x & (self.sign() - 1) == 0
    }
    /// V_MIN/V_MAX per the pseudocode.
    fn minmax(self, max: bool, ieee: bool, a: u64, b: u64) -> u64 {
        if ieee && self.is_snan(a) {
            return a | self.quiet();
        }
        if ieee && self.is_snan(b) {
            return b | self.quiet();
        }
        if self.is_nan(a) {
            return b;
        }
        if self.is_nan(b) {
            return a;
        }
        if self.is_zero(a) && self.is_zero(b) && a != b {
            // One +0 and one -0: min gives -0, max +0.
            let neg = if a & self.sign() != 0 { a } else { b };
            let pos = if a & self.sign() != 0 { b } else { a };
            return if max { pos } else { neg };
        }
        let (x, y) = (self.val(a), self.val(b));
        let take_a = if max {
            if ieee {
                x >= y
            } else {
                x > y
            }
        } else {
            x < y
        };
        if take_a {
            a
        } else {
            b
        }
    }
    fn med3(self, ieee: bool, a: u64, b: u64, c: u64) -> u64 {
        if self.is_nan(a) || self.is_nan(b) || self.is_nan(c) {
            let t = self.minmax(false, ieee, a, b);
            return self.minmax(false, ieee, t, c);
        }
        let t = self.minmax(true, ieee, a, b);
        let m = self.minmax(true, ieee, t, c);
        if self.val(m) == self.val(a) {
            self.minmax(true, ieee, b, c)
        } else if self.val(m) == self.val(b) {
            self.minmax(true, ieee, a, c)
        } else {
            self.minmax(true, ieee, a, b)
        }
    }
}

const F32S: [u32; 16] = [
    0x7fc0_1234, // qNaN with payload
    0xffc0_0001, // negative qNaN
    0x7f80_0abc, // sNaN with payload
    0xff80_0001, // negative sNaN
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7f80_0000, // +Inf
    0xff80_0000, // -Inf
    0x0000_0003, // denormal
    0x8000_0005, // negative denormal
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x4049_0fdb, // pi
    0xc2c8_0000, // -100
    0x3f80_0000, // 1 again (equal operands)
    0x7f7f_ffff, // MAX
];

const F16S: [u32; 12] = [
    0x7e12, 0xfe01, 0x7c0a, 0xfc01, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x0003, 0x8005, 0x3c00, 0xc248,
];

fn f32_to_f64_bits(x: u32) -> u64 {
    // Widens with the NaN payload and quiet bit in place (the test's own mapping).
    let s = ((x >> 31) as u64) << 63;
    let e = (x >> 23) & 0xff;
    let m = (x & 0x7f_ffff) as u64;
    if e == 0xff {
        s | 0x7ff0_0000_0000_0000 | m << 29
    } else {
        f64::from(f32::from_bits(x)).to_bits()
    }
}

#[rustfmt::skip]
const MINMAX: [u32; 19] = [
    0x16540501, // v_max_f32_e32 v42, v1, v2
    0x14560501, // v_min_f32_e32 v43, v1, v2
    0xd283002c, 0x00022510, // v_max_f64 v[44:45], v[16:17], v[18:19]
    0xd282002e, 0x00022510, // v_min_f64 v[46:47], v[16:17], v[18:19]
    0x5a603b1c, // v_max_f16_e32 v48, v28, v29
    0xd3914031, 0x18023b1c, // v_pk_min_f16 v49, v28, v29
    0xd1d00032, 0x041a0501, // v_min3_f32 v50, v1, v2, v6
    0xd1d30033, 0x041a0501, // v_max3_f32 v51, v1, v2, v6
    0xd1d60034, 0x041a0501, // v_med3_f32 v52, v1, v2, v6
    0xd3924035, 0x18023b1c, // v_pk_max_f16 v53, v28, v29
    0x5c6c3b1c, // v_min_f16_e32 v54, v28, v29
    0xbf810000, // s_endpgm
];

fn check_minmax(ieee: bool) {
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&MINMAX, 5 + ieee as u64, exec, &mut mem, |s| {
        s.mode = if ieee {
            DEFAULT_MODE
        } else {
            DEFAULT_MODE & !0x200
        };
        for l in 0..64 {
            let (x, y, z) = (
                F32S[l % 16],
                F32S[(l / 16 + l * 5) % 16],
                F32S[(l * 3 + 7) % 16],
            );
            s.vgpr[1][l] = x;
            s.vgpr[2][l] = y;
            s.vgpr[6][l] = z;
            for (reg, v) in [(16, f32_to_f64_bits(x)), (18, f32_to_f64_bits(y))] {
                s.vgpr[reg][l] = v as u32;
                s.vgpr[reg + 1][l] = (v >> 32) as u32;
            }
            let (p, q) = (F16S[l % 12], F16S[(l / 12 + l * 7) % 12]);
            s.vgpr[28][l] = p | q << 16;
            s.vgpr[29][l] = q | F16S[(l * 5 + 1) % 12] << 16;
        }
    });
    let ctx = |r: usize, l: usize| format!("v{r} lane {l}, IEEE {ieee}");
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            for r in [42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54] {
                assert_eq!(a.vgpr[r][l], b.vgpr[r][l], "inactive {}", ctx(r, l));
            }
            continue;
        }
        let (x, y, z) = (
            b.vgpr[1][l] as u64,
            b.vgpr[2][l] as u64,
            b.vgpr[6][l] as u64,
        );
        assert_eq!(
            a.vgpr[42][l] as u64,
            S.minmax(true, ieee, x, y),
            "{}",
            ctx(42, l)
        );
        assert_eq!(
            a.vgpr[43][l] as u64,
            S.minmax(false, ieee, x, y),
            "{}",
            ctx(43, l)
        );
        let t = S.minmax(false, ieee, x, y);
        assert_eq!(
            a.vgpr[50][l] as u64,
            S.minmax(false, ieee, t, z),
            "{}",
            ctx(50, l)
        );
        let t = S.minmax(true, ieee, x, y);
        assert_eq!(
            a.vgpr[51][l] as u64,
            S.minmax(true, ieee, t, z),
            "{}",
            ctx(51, l)
        );
        assert_eq!(
            a.vgpr[52][l] as u64,
            S.med3(ieee, x, y, z),
            "{}",
            ctx(52, l)
        );
        let g = |r: usize| a.vgpr[r][l] as u64 | (a.vgpr[r + 1][l] as u64) << 32;
        let (dx, dy) = (f32_to_f64_bits(x as u32), f32_to_f64_bits(y as u32));
        assert_eq!(g(44), D.minmax(true, ieee, dx, dy), "{}", ctx(44, l));
        assert_eq!(g(46), D.minmax(false, ieee, dx, dy), "{}", ctx(46, l));
        let (p, q) = (b.vgpr[28][l] as u64, b.vgpr[29][l] as u64);
        let h = |max: bool, a: u64, b: u64| H.minmax(max, ieee, a & 0xffff, b & 0xffff);
        assert_eq!(a.vgpr[48][l] as u64, h(true, p, q), "{}", ctx(48, l));
        assert_eq!(a.vgpr[54][l] as u64, h(false, p, q), "{}", ctx(54, l));
        let pk = |max: bool| h(max, p, q) | h(max, p >> 16, q >> 16) << 16;
        assert_eq!(a.vgpr[49][l] as u64, pk(false), "{}", ctx(49, l));
        assert_eq!(a.vgpr[53][l] as u64, pk(true), "{}", ctx(53, l));
    }
}

#[test]
fn min_max_med3_ieee_mode() {
    check_minmax(true);
}

#[test]
fn min_max_med3_without_ieee_mode() {
    check_minmax(false);
}

#[test]
fn minmax_oracle_cases_worked_by_hand() {
    // The transcription above against values read off the pseudocode.
    assert_eq!(S.minmax(false, true, 0x7f80_0001, 0x3f80_0000), 0x7fc0_0001);
    assert_eq!(
        S.minmax(false, false, 0x7f80_0001, 0x3f80_0000),
        0x3f80_0000
    );
    assert_eq!(S.minmax(true, true, 0x7fc0_0000, 0xff80_0002), 0xffc0_0002);
    assert_eq!(S.minmax(true, false, 0x7fc0_0000, 0xff80_0002), 0xff80_0002);
    assert_eq!(S.minmax(false, true, 0x0000_0000, 0x8000_0000), 0x8000_0000);
    assert_eq!(S.minmax(true, true, 0x8000_0000, 0x0000_0000), 0x0000_0000);
    assert_eq!(
        S.med3(true, 0x4000_0000, 0x3f80_0000, 0x4040_0000),
        0x4000_0000
    );
}

#[rustfmt::skip]
const NAN_AND_OVFL: [u32; 13] = [
    0x02000501, // v_add_f32_e32 v0, v1, v2
    0x04060501, // v_sub_f32_e32 v3, v1, v2
    0xd1cb0005, 0x041a0501, // v_fma_f32 v5, v1, v2, v6
    0x3e363b1c, // v_add_f16_e32 v27, v28, v29
    0x443c3b1c, // v_mul_f16_e32 v30, v28, v29
    0xd206001f, 0x04823b1c, // v_fma_f16 v31, v28, v29, v32
    0x7e141501, // v_cvt_f16_f32_e32 v10, v1
    0xd38f4022, 0x18023b1c, // v_pk_add_f16 v34, v28, v29
    0x7e487308, // v_cvt_f16_u16_e32 v36, v8
    0xbf810000, // s_endpgm
];

/// NaN operands under a directed rounding mode give the first NaN operand quieted (payload and
/// sign kept), invalid operations the default NaN; FP16_OVFL turns a finite f16 overflow into
/// ±65504 (0x7bff) but keeps a true Inf.
#[test]
fn nan_propagation_and_fp16_overflow_clamp() {
    for mode in [
        DEFAULT_MODE | 0b1011,
        DEFAULT_MODE | 1 << 23,
        DEFAULT_MODE | 1 << 23 | 0b0110,
        DEFAULT_MODE | 0b0100,
    ] {
        let exec = EXEC_PARTIAL;
        let mut mem = Mem::new(0);
        let ovfl = mode >> 23 & 1 != 0;
        let (b, a) = run_words(&NAN_AND_OVFL, 9, exec, &mut mem, |s| {
            s.mode = mode;
            for l in 0..64 {
                let (x, y) = match l % 6 {
                    0 => (0x7f80_0123, 0x3f80_0000), // sNaN + 1
                    1 => (0x3f80_0000, 0xffc0_0456), // 1 + qNaN
                    2 => (0x7f80_0000, 0x7f80_0000), // Inf - Inf (sub), Inf + Inf
                    3 => (0x7fc0_0001, 0xff80_0002), // two NaNs: the first
                    4 => (0x4780_0000, 0x3f80_0000), // 65536 (overflows f16)
                    _ => (0x7f80_0000, 0x0000_0000), // Inf * 0 in the fma
                };
                s.vgpr[1][l] = x;
                s.vgpr[2][l] = y;
                s.vgpr[6][l] = 0x3f80_0000;
                let (p, q, c) = match l % 6 {
                    0 => (0x7c01u32, 0x3c00u32, 0x3c00u32), // sNaN
                    1 => (0x3c00, 0xfe05, 0x3c00),
                    2 => (0x7bff, 0x7bff, 0x7bff), // finite overflow
                    3 => (0x7c00, 0x3c00, 0x3c00), // Inf stays Inf
                    4 => (0x7c00, 0xfc00, 0x3c00), // Inf - Inf
                    _ => (0x5c00, 0x5c00, 0x3c00), // 256^2 = 65536 overflows
                };
                s.vgpr[28][l] = p | q << 16;
                s.vgpr[29][l] = q | p << 16;
                s.vgpr[32][l] = c;
                s.vgpr[8][l] = 65535 - (l as u32 % 2) * 15; // 65535 and 65520 overflow f16 RNE
            }
        });
        for l in 0..64 {
            if exec >> l & 1 == 0 {
                continue;
            }
            let ctx = format!("lane {l} mode {mode:#x}");
            let (w_add, w_sub, w_fma) = match l % 6 {
                0 => (0x7fc0_0123, 0x7fc0_0123, 0x7fc0_0123),
                1 => (0xffc0_0456, 0xffc0_0456, 0xffc0_0456),
                2 => (0x7f80_0000, 0x7fc0_0000, 0x7f80_0000),
                3 => (0x7fc0_0001, 0x7fc0_0001, 0x7fc0_0001),
                // 65536 ± 1: exact in every direction.
                4 => (0x4780_0080, 0x477f_ff00, 0x4780_0080),
                _ => (0x7f80_0000, 0x7f80_0000, 0x7fc0_0000),
            };
            assert_eq!(a.vgpr[0][l], w_add, "v_add_f32 {ctx}");
            assert_eq!(a.vgpr[3][l], w_sub, "v_sub_f32 {ctx}");
            assert_eq!(a.vgpr[5][l], w_fma, "v_fma_f32 {ctx}");
            // A positive finite f16 overflow: MAX toward -inf or with FP16_OVFL, else Inf.
            let down16 = mode & 0xc == 8;
            let over = if ovfl || down16 { 0x7bff } else { 0x7c00 };
            let (w_add16, w_mul16, w_fma16) = match l % 6 {
                0 => (0x7e01, 0x7e01, 0x7e01),
                1 => (0xfe05, 0xfe05, 0xfe05),
                2 => (over, over, over),
                3 => (0x7c00, 0x7c00, 0x7c00),
                4 => (0x7e00, 0xfc00, 0xfc00),
                _ => (0x6000, over, over),
            };
            assert_eq!(a.vgpr[27][l], w_add16, "v_add_f16 {ctx}");
            assert_eq!(a.vgpr[30][l], w_mul16, "v_mul_f16 {ctx}");
            // v_fma_f16 (GFX9 opcode 0x206, with OPSEL) keeps D[31:16] (CDNA4 ISA ch. 12).
            let w_fma16 = b.vgpr[31][l] & 0xffff_0000 | w_fma16;
            assert_eq!(a.vgpr[31][l], w_fma16, "v_fma_f16 {ctx}");
            assert_eq!(a.vgpr[34][l], w_add16 | w_add16 << 16, "v_pk_add_f16 {ctx}");
            // 65535 and 65520 (the tie above MAX, even side Inf) overflow f16.
            assert_eq!(a.vgpr[36][l], over, "v_cvt_f16_u16 {ctx}");
            match l % 6 {
                0 => assert_eq!(a.vgpr[10][l], 0x7e00, "v_cvt_f16_f32 sNaN {ctx}"),
                4 => assert_eq!(a.vgpr[10][l], over, "v_cvt_f16_f32 65536 {ctx}"),
                _ => {}
            }
        }
    }
}

#[rustfmt::skip]
const SAME_OPERAND: [u32; 7] = [
    0x16060301, // v_max_f32_e32 v3, v1, v1
    0x14080301, // v_min_f32_e32 v4, v1, v1
    0xd10b0005, 0x60020301, // v_max_f32_e64 v5, -v1, -v1
    0xd2830006, 0x00022110, // v_max_f64 v[6:7], v[16:17], v[16:17]
    0xbf810000, // s_endpgm
];

/// One register as both operands (LLVM's canonicalize): the pseudocode's result, an sNaN
/// quieted under MODE.IEEE and every other value unchanged (the lifter's shortcut when both
/// sources are the same operand with the same modifiers).
#[test]
fn min_max_of_one_value_twice() {
    for ieee in [true, false] {
        let exec = EXEC_PARTIAL;
        let mut mem = Mem::new(0);
        let (b, a) = run_words(&SAME_OPERAND, 21 + ieee as u64, exec, &mut mem, |s| {
            s.mode = if ieee {
                DEFAULT_MODE
            } else {
                DEFAULT_MODE & !0x200
            };
            for l in 0..64 {
                let x = F32S[(l * 7 + 3) % 16];
                s.vgpr[1][l] = x;
                let d = f32_to_f64_bits(x);
                s.vgpr[16][l] = d as u32;
                s.vgpr[17][l] = (d >> 32) as u32;
            }
        });
        for l in 0..64 {
            let ctx = format!("lane {l}, IEEE {ieee}");
            if exec >> l & 1 == 0 {
                for r in 3..8 {
                    assert_eq!(a.vgpr[r][l], b.vgpr[r][l], "inactive v{r} {ctx}");
                }
                continue;
            }
            let x = b.vgpr[1][l] as u64;
            assert_eq!(a.vgpr[3][l] as u64, S.minmax(true, ieee, x, x), "v3 {ctx}");
            assert_eq!(a.vgpr[4][l] as u64, S.minmax(false, ieee, x, x), "v4 {ctx}");
            let nx = x ^ S.sign();
            assert_eq!(
                a.vgpr[5][l] as u64,
                S.minmax(true, ieee, nx, nx),
                "v5 {ctx}"
            );
            let d = f32_to_f64_bits(x as u32);
            let got = a.vgpr[6][l] as u64 | (a.vgpr[7][l] as u64) << 32;
            assert_eq!(got, D.minmax(true, ieee, d, d), "v[6:7] {ctx}");
        }
    }
}
