//! Per-instruction float tests: denormal inputs and outputs under every MODE.FP_DENORM
//! setting of the f32 field and of the f64/f16 field (16 combinations), and float → integer
//! conversions at their saturation edges, NaN, ±Inf, ±0 and halfway values.
//!
//! Expected values: host IEEE arithmetic on operands flushed (or not) by the rule of ISA
//! table 26 (0 flush in and out, 1 allow input, 2 allow output, 3 allow both), and the
//! conversion rules written out (truncate, saturate to the integer range, NaN gives 0).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

#[rustfmt::skip]
const PROGRAM: [u32; 20] = [
    0x0a000501, // v_mul_f32_e32 v0, v1, v2
    0xd2810004, 0x00021106, // v_mul_f64 v[4:5], v[6:7], v[8:9]
    0x4414190b, // v_mul_f16_e32 v10, v11, v12
    0x7e1e1501, // v_cvt_f16_f32_e32 v15, v1
    0x7e20170b, // v_cvt_f32_f16_e32 v16, v11
    0x02220501, // v_add_f32_e32 v17, v1, v2
    0x7e241101, // v_cvt_i32_f32_e32 v18, v1
    0x7e260f01, // v_cvt_u32_f32_e32 v19, v1
    0x7e280706, // v_cvt_i32_f64_e32 v20, v[6:7]
    0x7e2a2b06, // v_cvt_u32_f64_e32 v21, v[6:7]
    0x7e2c790b, // v_cvt_i16_f16_e32 v22, v11
    0x7e2e770b, // v_cvt_u16_f16_e32 v23, v11
    0x7e301b01, // v_cvt_flr_i32_f32_e32 v24, v1
    0x7e321901, // v_cvt_rpi_i32_f32_e32 v25, v1
    0xd390401a, 0x1802190b, // v_pk_mul_f16 v26, v11, v12
    0xd280001c, 0x00021106, // v_add_f64 v[28:29], v[6:7], v[8:9]
    0xbf810000, // s_endpgm
];

/// f32 first operands: denormals, values whose products or sums are denormal, conversion
/// edges (2^31, the largest f32 below 2^31, 2^32, ...), halves, NaN, ±Inf, ±0.
const X: [u32; 24] = [
    0x0000_0001, // smallest denormal
    0x807f_ffff, // largest negative denormal
    0x0040_0000, // denormal 2^-127
    0x0080_0000, // smallest normal
    0x8100_0000, // -2^-125
    0x4f00_0000, // 2^31
    0x4eff_ffff, // 2147483520
    0xcf00_0000, // -2^31
    0xcf00_0001, // -2147483904
    0x4f80_0000, // 2^32
    0x4f7f_ffff, // 4294967040
    0xbfc0_0000, // -1.5
    0xbf00_0000, // -0.5
    0x3f00_0000, // 0.5
    0x3ec0_0000, // 0.375
    0x4020_0000, // 2.5
    0x3eff_ffff, // 0.49999997: +0.5 rounds to 1 - 2^-25 → floor 0
    0x7fc0_0000, // NaN
    0x7f80_0000, // +Inf
    0xff80_0000, // -Inf
    0x8000_0000, // -0
    0x0000_0000, // +0
    0x4b80_0001, // 16777218 (f32 grid of 2 at 2^24)
    0x477f_e000, // 65504 (f16 MAX)
];

/// f32 second operands (multipliers / addends).
const Y: [u32; 6] = [
    0x3f80_0000, // 1
    0x3a80_0000, // 2^-10
    0x4480_0000, // 2^10
    0x0000_0002, // denormal 2^-148
    0x8080_0000, // -2^-126
    0x3f00_0000, // 0.5
];

/// f16 operands: denormals, normals that multiply into denormals, conversion edges.
const H: [u16; 16] = [
    0x0001, 0x83ff, 0x0200, 0x0400, 0x8400, 0x2000, 0x7bff, 0xfbff, 0xf800, 0x7800, 0xbe00, 0x3800,
    0x7e00, 0x7c00, 0xfc00, 0x8000,
];

fn flush32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

fn flush64(x: f64) -> f64 {
    if x.is_subnormal() {
        f64::from_bits(x.to_bits() & 1 << 63)
    } else {
        x
    }
}

fn flush16(h: u16) -> u16 {
    if h & 0x7c00 == 0 {
        h & 0x8000
    } else {
        h
    }
}

/// f16 bits of an f64 that is an exact f16 product or an f32 value (one rounding).
fn to16(x: f64) -> u16 {
    half::f16::from_f64(x).to_bits()
}

fn h64(h: u16) -> f64 {
    f64::from(half::f16::from_bits(h))
}

/// `x` truncated and saturated to `[lo, hi]`; NaN gives 0.
fn sat(x: f64, lo: f64, hi: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(lo, hi) as i64
    }
}

fn check_mode(f32_den: u32, f64_den: u32) {
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mode = (DEFAULT_MODE & !0xf0) | f32_den << 4 | f64_den << 6;
    let (b, a) = run_words(&PROGRAM, 100 + mode as u64, exec, &mut mem, |s| {
        s.mode = mode;
        for l in 0..64 {
            s.vgpr[1][l] = X[l % 24];
            s.vgpr[2][l] = Y[(l / 4 + l) % 6];
            let dx =
                f64::from(f32::from_bits(X[l % 24])) * 2f64.powi(if l % 3 == 0 { -900 } else { 0 });
            let dy = f64::from(f32::from_bits(Y[(l / 4 + l) % 6]))
                * 2f64.powi(if l % 2 == 0 { -150 } else { 0 });
            s.vgpr[6][l] = dx.to_bits() as u32;
            s.vgpr[7][l] = (dx.to_bits() >> 32) as u32;
            s.vgpr[8][l] = dy.to_bits() as u32;
            s.vgpr[9][l] = (dy.to_bits() >> 32) as u32;
            s.vgpr[12][l] = H[(l * 5 + 3) % 16] as u32 | (H[(l + 7) % 16] as u32) << 16;
            // v_pk_mul_f16 reads both halves of v11: make the high half an f16 too.
            s.vgpr[11][l] = H[l % 16] as u32 | (H[(l * 3 + 1) % 16] as u32) << 16;
        }
    });
    let (in32, out32) = (f32_den & 1 != 0, f32_den & 2 != 0);
    let (in64, out64) = (f64_den & 1 != 0, f64_den & 2 != 0);
    let i32f = |x: f32| if in32 { x } else { flush32(x) };
    let o32f = |x: f32| if out32 { x } else { flush32(x) };
    let i64f = |x: f64| if in64 { x } else { flush64(x) };
    let o64f = |x: f64| if out64 { x } else { flush64(x) };
    let i16f = |h: u16| if in64 { h } else { flush16(h) };
    let o16f = |h: u16| if out64 { h } else { flush16(h) };
    let ctx =
        |r: usize, l: usize| format!("v{r} lane {l}, FP_DENORM f32 {f32_den} f64/f16 {f64_den}");
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let x = f32::from_bits(b.vgpr[1][l]);
        let y = f32::from_bits(b.vgpr[2][l]);
        let same = |got: u32, want: f32| {
            if want.is_nan() {
                f32::from_bits(got).is_nan()
            } else {
                got == want.to_bits()
            }
        };
        let want = o32f(i32f(x) * i32f(y));
        assert!(
            same(a.vgpr[0][l], want),
            "{} got {:#x} want {want:e}",
            ctx(0, l),
            a.vgpr[0][l]
        );
        let want = o32f(i32f(x) + i32f(y));
        assert!(same(a.vgpr[17][l], want), "{}", ctx(17, l));
        let g64 = |r: usize, s: &wavejit_translator::wave::WaveState| {
            f64::from_bits(s.vgpr[r][l] as u64 | (s.vgpr[r + 1][l] as u64) << 32)
        };
        let (dx, dy) = (g64(6, &b), g64(8, &b));
        for (reg, want) in [
            (4, o64f(i64f(dx) * i64f(dy))),
            (28, o64f(i64f(dx) + i64f(dy))),
        ] {
            let got = g64(reg, &a);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{} got {got:e} want {want:e}",
                ctx(reg, l)
            );
        }
        // f16: one rounding of the exact f64 product.
        let (p, q) = (b.vgpr[11][l] as u16, b.vgpr[12][l] as u16);
        let mul16 = |p: u16, q: u16| o16f(to16(h64(i16f(p)) * h64(i16f(q))));
        let nan16 = |h: u32| h & 0x7fff > 0x7c00;
        let want = mul16(p, q) as u32;
        assert!(
            a.vgpr[10][l] == want || (nan16(a.vgpr[10][l]) && nan16(want)),
            "{} got {:#x} want {want:#x}",
            ctx(10, l),
            a.vgpr[10][l]
        );
        let (ph, qh) = ((b.vgpr[11][l] >> 16) as u16, (b.vgpr[12][l] >> 16) as u16);
        let got = a.vgpr[26][l];
        let (wl, wh) = (mul16(p, q) as u32, mul16(ph, qh) as u32);
        assert!(
            (got & 0xffff == wl || nan16(got & 0xffff) && nan16(wl))
                && (got >> 16 == wh || nan16(got >> 16) && nan16(wh)),
            "{} got {got:#x} want {wh:#x}:{wl:#x}",
            ctx(26, l)
        );
        // Conversions between f32 and f16 flush by their input and output types.
        let want = o16f(to16(f64::from(i32f(x)))) as u32;
        assert!(
            a.vgpr[15][l] == want || (nan16(a.vgpr[15][l]) && nan16(want)),
            "{} got {:#x} want {want:#x}",
            ctx(15, l),
            a.vgpr[15][l]
        );
        let want = o32f(h64(i16f(p)) as f32);
        assert!(same(a.vgpr[16][l], want), "{}", ctx(16, l));
        // Float → integer: truncate, saturate, NaN → 0 (inputs flushed like any float input).
        let xi = f64::from(i32f(x));
        assert_eq!(
            a.vgpr[18][l],
            sat(xi, -2147483648.0, 2147483647.0) as u32,
            "{}",
            ctx(18, l)
        );
        assert_eq!(
            a.vgpr[19][l],
            sat(xi, 0.0, 4294967295.0) as u32,
            "{}",
            ctx(19, l)
        );
        let fl = if xi.is_nan() { xi } else { xi.floor() };
        assert_eq!(
            a.vgpr[24][l],
            sat(fl, -2147483648.0, 2147483647.0) as u32,
            "{}",
            ctx(24, l)
        );
        // rpi: floor(S0 + 0.5) with the sum rounded to f32.
        let r = f64::from(i32f(x) + 0.5);
        let r = if r.is_nan() { r } else { r.floor() };
        assert_eq!(
            a.vgpr[25][l],
            sat(r, -2147483648.0, 2147483647.0) as u32,
            "{}",
            ctx(25, l)
        );
        let di = i64f(dx);
        assert_eq!(
            a.vgpr[20][l],
            sat(di, -2147483648.0, 2147483647.0) as u32,
            "{}",
            ctx(20, l)
        );
        assert_eq!(
            a.vgpr[21][l],
            sat(di, 0.0, 4294967295.0) as u32,
            "{}",
            ctx(21, l)
        );
        let hi = h64(i16f(p));
        assert_eq!(
            a.vgpr[22][l],
            sat(hi, -32768.0, 32767.0) as u32 & 0xffff,
            "{}",
            ctx(22, l)
        );
        assert_eq!(
            a.vgpr[23][l],
            sat(hi, 0.0, 65535.0) as u32,
            "{}",
            ctx(23, l)
        );
    }
}

#[test]
fn denormals_under_every_fp_denorm_setting() {
    for f32_den in 0..4 {
        for f64_den in 0..4 {
            check_mode(f32_den, f64_den);
        }
    }
}

/// `v_div_fmas` with VCC set scales the FMA by 2^-64 (f32) / 2^-128 (f64) and rounds once:
/// worked by hand, (5 * 2^-86) * 1 + 2^-149 scaled by 2^-64 is (2.5 + 2^-64) * 2^-149, just
/// above the tie between 2 and 3 units of 2^-149, so 3 (0x00000003); rounding the FMA first
/// (to 5 * 2^-86) would reach the tie and give 2. Likewise in f64 with 5 * 2^-947 and 2^-1074.
#[test]
fn div_fmas_rounds_once() {
    #[rustfmt::skip]
    let words = [
        0xd1e20000, 0x040e0501, // v_div_fmas_f32 v0, v1, v2, v3
        0xd1e30004, 0x042a1106, // v_div_fmas_f64 v[4:5], v[6:7], v[8:9], v[10:11]
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 7, exec, &mut mem, |s| {
        s.sgpr[106] = u32::MAX;
        s.sgpr[107] = u32::MAX;
        for l in 0..64 {
            let neg = (l as u32 & 1) << 31;
            s.vgpr[1][l] = (5.0f32 * 2f32.powi(-86)).to_bits() | neg;
            s.vgpr[2][l] = 1.0f32.to_bits();
            s.vgpr[3][l] = 1 | neg; // 2^-149
            let x = (5.0 * 2f64.powi(-947)).to_bits() | (neg as u64) << 32;
            let (c, one) = (1u64 | (neg as u64) << 32, 1.0f64.to_bits());
            for (r, v) in [(6, x), (8, one), (10, c)] {
                s.vgpr[r][l] = v as u32;
                s.vgpr[r + 1][l] = (v >> 32) as u32;
            }
        }
    });
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            assert_eq!(a.vgpr[0][l], b.vgpr[0][l]);
            continue;
        }
        let neg = (l as u32 & 1) << 31;
        assert_eq!(a.vgpr[0][l], 3 | neg, "f32 lane {l}");
        assert_eq!(a.vgpr[4][l], 3, "f64 lo lane {l}");
        assert_eq!(a.vgpr[5][l], neg, "f64 hi lane {l}");
    }
}

/// The first 288 fractional bits of 2/π (the well-known expansion, e.g. fdlibm's
/// `__kernel_rem_pio2` table: 0.A2F9836E 4E441529 ...).
const TWO_OVER_PI_HEX: &str =
    "a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a";

/// Fraction bit `i` of 2/π (0 = first after the point).
fn two_over_pi_bit(i: u32) -> u64 {
    let d = u64::from_str_radix(&TWO_OVER_PI_HEX[(i / 4) as usize..][..1], 16).unwrap();
    d >> (3 - i % 4) & 1
}

/// `v_trig_preop_f64`: segments 0..4 of 2/π for ordinary inputs and shifted segments for
/// inputs with exponents above 1077 (pseudocode: `shift = S1 * 53 + max(0, exp - 1077)`,
/// result `W * 2^(-53 - shift)` with W the 53 bits after `shift`).
#[test]
fn trig_preop_segments_of_two_over_pi() {
    #[rustfmt::skip]
    let words = [
        0xd2920000, 0x00020902, // v_trig_preop_f64 v[0:1], v[2:3], v4
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 8, exec, &mut mem, |s| {
        for l in 0..64 {
            // Biased exponents: 1.0, 2.0, 2^100, the 1077 threshold and above it.
            let e = [1023u64, 1024, 1123, 1077, 1078, 1100, 1223, 1000][l % 8];
            let x = e << 52 | (l as u64) << 20 | (l as u64 & 8) << 60;
            s.vgpr[2][l] = x as u32;
            s.vgpr[3][l] = (x >> 32) as u32;
            // Segment index (bits above 4 ignored); keep every bit read within the 288 known.
            let seg = (l / 8) as u32 % if e == 1223 { 2 } else { 4 };
            s.vgpr[4][l] = seg | (0xffe0 * (l as u32 & 1));
        }
    });
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let x = b.vgpr[2][l] as u64 | (b.vgpr[3][l] as u64) << 32;
        let e = (x >> 52 & 0x7ff) as u32;
        let shift = (b.vgpr[4][l] & 31) * 53 + e.saturating_sub(1077);
        let w = (shift..shift + 53).fold(0u64, |w, i| w << 1 | two_over_pi_bit(i));
        let want = w as f64 * 2f64.powi(-53 - shift as i32);
        let got = a.vgpr[0][l] as u64 | (a.vgpr[1][l] as u64) << 32;
        assert_eq!(got, want.to_bits(), "lane {l} shift {shift}");
        if shift == 0 {
            // Segment 0 is 2/π truncated to 53 bits: within one ulp of FRAC_2_PI.
            assert!(got.abs_diff(std::f64::consts::FRAC_2_PI.to_bits()) <= 1);
        }
    }
}
