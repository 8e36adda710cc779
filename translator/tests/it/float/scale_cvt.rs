//! gfx950 scaled conversions between OCP FP8/BF8 and f32/f16/bf16 (`v_cvt_scalef32_*`), in
//! both engines. The scale is `2^(scale[30:23] - 127)` (CDNA4 ISA 7.3: an E8M0 exponent;
//! sign and mantissa ignored); conversions from FP8/BF8 multiply by it, conversions to them
//! divide by it (LLVM's ROCDL op descriptions). Expected values: the exact scaled value in
//! f64 rounded once by the FP8/BF8 codec of `crate::lift_support::f8` or the `half` crate; operand
//! selects as clang-22 encodes the builtins' selector arguments.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::f8::*;
use crate::lift_support::*;
use half::{bf16, f16};
use wavejit_translator::env::ExitCode;
use wavejit_translator::isa::{Gpu, Target};

#[rustfmt::skip]
const PROGRAM: [u32; 39] = [
    0xd23b000a, 0x00020501, // v_cvt_scalef32_f32_fp8 v10, v1, v2
    0xd23c100b, 0x00020501, // v_cvt_scalef32_f32_bf8 v11, v1, v2 op_sel:[0,1,0]
    0xd24a080c, 0x00020501, // v_cvt_scalef32_f16_fp8 v12, v1, v2 op_sel:[1,0,0]
    0xd24b580d, 0x00020501, // v_cvt_scalef32_f16_bf8 v13, v1, v2 op_sel:[1,1,1]
    0xd239000e, 0x00020501, // v_cvt_scalef32_pk_f32_fp8 v[14:15], v1, v2
    0xd23a0810, 0x00020501, // v_cvt_scalef32_pk_f32_bf8 v[16:17], v1, v2 op_sel:[1,0,0]
    0xd2480812, 0x00020501, // v_cvt_scalef32_pk_f16_fp8 v18, v1, v2 op_sel:[1,0,0]
    0xd2490013, 0x00020501, // v_cvt_scalef32_pk_f16_bf8 v19, v1, v2
    0xd2690014, 0x00020501, // v_cvt_scalef32_pk_bf16_fp8 v20, v1, v2
    0xd26a0815, 0x00020501, // v_cvt_scalef32_pk_bf16_bf8 v21, v1, v2 op_sel:[1,0,0]
    0xd2350016, 0x040a0903, // v_cvt_scalef32_pk_fp8_f32 v22, v3, v4, v2
    0xd2364217, 0x240a0903, // v_cvt_scalef32_pk_bf8_f32 v23, -v3, |v4|, v2 op_sel:[0,0,0,1]
    0xd2404018, 0x00020505, // v_cvt_scalef32_pk_fp8_f16 v24, v5, v2 op_sel:[0,0,1]
    0xd2410019, 0x00020505, // v_cvt_scalef32_pk_bf8_f16 v25, v5, v2
    0xd244001a, 0x00020505, // v_cvt_scalef32_pk_fp8_bf16 v26, v5, v2
    0xd245401b, 0x00020505, // v_cvt_scalef32_pk_bf8_bf16 v27, v5, v2 op_sel:[0,0,1]
    0xd237201c, 0x040a0d03, // v_cvt_scalef32_sr_fp8_f32 v28, v3, v6, v2 op_sel:[0,0,1,0]
    0xd238601d, 0x040a0d03, // v_cvt_scalef32_sr_bf8_f32 v29, v3, v6, v2 op_sel:[0,0,1,1]
    0xd23b001e, 0x0001ed01, // v_cvt_scalef32_f32_fp8 v30, v1, 4.0
    0xbf810000, // s_endpgm
];

/// Interesting FP8/BF8 codes: zeros, the smallest denormals, ones, the largest finite values,
/// BF8 infinities, NaNs of both formats.
const CODES: [u8; 12] = [
    0x00, 0x80, 0x01, 0x81, 0x38, 0x3c, 0x7e, 0xfb, 0x7c, 0xfc, 0x7f, 0xfe,
];

/// Scale exponents: mostly near the bias, plus the extremes (0: 2^-127, 255: 2^128).
fn scale_exp(l: usize, r: &mut Rng) -> u32 {
    match l % 9 {
        0 => 0,
        1 => 255,
        2 => 254,
        3 => 1,
        _ => 110 + (r.next() % 35) as u32,
    }
}

/// f32 data: ±(1 + f) · 2^e for e in [-30, 30], and NaN, ±Inf, ±0 in some lanes.
fn f32_data(l: usize, r: &mut Rng) -> u32 {
    let v = r.next();
    match (l + (v as usize >> 40)) % 13 {
        0 => 0x7fc0_0000,
        1 => 0xff80_0000,
        2 => 0x8000_0000,
        _ => (v as u32 & 0x807f_ffff) | (97 + (v >> 32) as u32 % 61) << 23,
    }
}

/// The value of `code` times `2^k` (exact in f64); NaN for a NaN code.
fn up(f: F8, code: u32, k: i32) -> f64 {
    f.decode(code as u8).map_or(f64::NAN, |v| v * 2f64.powi(k))
}

fn check32(got: u32, want: f64, what: &str) {
    if want.is_nan() {
        assert!(
            f32::from_bits(got).is_nan(),
            "{what}: got {got:#x}, want NaN"
        );
    } else {
        let w = (want as f32).to_bits();
        assert_eq!(got, w, "{what}: got {got:#x}, want {w:#x} ({want})");
    }
}

fn check_bf16(got: u32, want: f64, what: &str) {
    let got = got & 0xffff;
    if want.is_nan() {
        assert!(got & 0x7fff > 0x7f80, "{what}: got {got:#x}, want NaN");
    } else {
        let w = bf16::from_f64(want).to_bits() as u32;
        assert_eq!(got, w, "{what}: got {got:#x}, want {w:#x} ({want})");
    }
}

/// The f16 (or bf16) in the low half of `h` as f64.
fn half16(h: u32, bf: bool) -> f64 {
    if bf {
        f64::from(f32::from_bits((h & 0xffff) << 16))
    } else {
        f16::from_bits(h as u16).to_f64()
    }
}

fn check(ovfl: bool) {
    let exec = EXEC_PARTIAL;
    let mut r = Rng(0x5ca1e + ovfl as u64);
    let code = Code::from_words(&PROGRAM);
    let mut s = random_state(41, exec);
    s.mode = DEFAULT_MODE | (ovfl as u32) << 23;
    for l in 0..64 {
        let mut bytes = 0u32;
        for i in 0..4 {
            let v = r.next();
            let b = if v.is_multiple_of(3) {
                CODES[(v >> 8) as usize % CODES.len()]
            } else {
                (v >> 16) as u8
            };
            bytes |= (b as u32) << (8 * i);
        }
        s.vgpr[1][l] = bytes;
        // Sign and mantissa of the scale are ignored.
        s.vgpr[2][l] = (r.next() as u32 & 0x807f_ffff) | scale_exp(l, &mut r) << 23;
        s.vgpr[3][l] = f32_data(l, &mut r);
        s.vgpr[4][l] = f32_data(l + 5, &mut r);
        s.vgpr[5][l] = r.next() as u32;
        s.vgpr[6][l] = r.next() as u32;
    }
    let b = clone_state(&s);
    let mut mem = Mem::new(0);
    let t = Target::new(Gpu::GFX950);
    assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
    let a = s;
    let (fp8, bf8) = (FP8_OCP, BF8_OCP);
    for l in 0..64 {
        let v = |reg: usize| b.vgpr[reg][l];
        let got = |reg: usize| a.vgpr[reg][l];
        let what = |reg: usize| format!("ovfl {ovfl} v{reg} lane {l}");
        if exec >> l & 1 == 0 {
            for reg in 10..=30 {
                assert_eq!(got(reg), v(reg), "{}", what(reg));
            }
            continue;
        }
        let k = (v(2) >> 23 & 0xff) as i32 - 127;
        let byte = |i: u32| v(1) >> (8 * i) & 0xff;
        let h16 = |x: f64| f16::from_f64(x).to_bits() as u32;
        let half_word = |reg: usize, want: u32, hi: bool| {
            let (g, keep) = if hi {
                (got(reg) >> 16, got(reg) & 0xffff == v(reg) & 0xffff)
            } else {
                (got(reg) & 0xffff, got(reg) >> 16 == v(reg) >> 16)
            };
            assert!(keep, "{}: the other half changed", what(reg));
            (g, want)
        };
        check32(got(10), up(fp8, byte(0), k), &what(10));
        check32(got(11), up(bf8, byte(2), k), &what(11));
        let (g, w) = half_word(12, h16(up(fp8, byte(1), k)), false);
        same16(g, w, &what(12));
        let (g, w) = half_word(13, h16(up(bf8, byte(3), k)), true);
        same16(g, w, &what(13));
        check32(got(14), up(fp8, byte(0), k), &what(14));
        check32(got(15), up(fp8, byte(1), k), &what(15));
        check32(got(16), up(bf8, byte(2), k), &what(16));
        check32(got(17), up(bf8, byte(3), k), &what(17));
        same16(got(18), h16(up(fp8, byte(2), k)), &what(18));
        same16(got(18) >> 16, h16(up(fp8, byte(3), k)), &what(18));
        same16(got(19), h16(up(bf8, byte(0), k)), &what(19));
        same16(got(19) >> 16, h16(up(bf8, byte(1), k)), &what(19));
        check_bf16(got(20), up(fp8, byte(0), k), &what(20));
        check_bf16(got(20) >> 16, up(fp8, byte(1), k), &what(20));
        check_bf16(got(21), up(bf8, byte(2), k), &what(21));
        check_bf16(got(21) >> 16, up(bf8, byte(3), k), &what(21));
        // Down: the exact quotient rounded once; the word op_sel[3] written, the other kept.
        let q = 2f64.powi(-k);
        let x3 = f64::from(f32::from_bits(v(3)));
        let x4 = f64::from(f32::from_bits(v(4)));
        let pair = |f: F8, lo: f64, hi: f64| {
            f.convert(lo * q, None, ovfl) as u32 | (f.convert(hi * q, None, ovfl) as u32) << 8
        };
        let word = |reg: usize, w: u32, hi: bool| {
            let (g, want) = half_word(reg, w, hi);
            assert_eq!(g, want, "{}: got {g:#06x}, want {want:#06x}", what(reg));
        };
        word(22, pair(fp8, x3, x4), false);
        word(23, pair(bf8, -x3, x4.abs()), true);
        let (f0, f1) = (half16(v(5), false), half16(v(5) >> 16, false));
        let (b0, b1) = (half16(v(5), true), half16(v(5) >> 16, true));
        word(24, pair(fp8, f0, f1), true);
        word(25, pair(bf8, f0, f1), false);
        word(26, pair(fp8, b0, b1), false);
        word(27, pair(bf8, b0, b1), true);
        // Stochastic rounding into byte op_sel[3:2].
        for (reg, f, sh) in [(28, fp8, 8), (29, bf8, 24)] {
            let c = f.convert(x3 * q, Some(v(6)), ovfl) as u32;
            let want = v(reg) & !(0xff << sh) | c << sh;
            assert_eq!(got(reg), want, "{}", what(reg));
        }
        // The inline constant 4.0 scales by 2^2.
        check32(got(30), up(fp8, byte(0), 2), &what(30));
    }
}

#[test]
fn scaled_conversions() {
    check(false);
}

#[test]
fn scaled_conversions_fp16_ovfl() {
    check(true);
}

/// A few values worked by hand: E4M3 0x38 is 1.0, E5M2 0x3c is 1.0; scales 2^3 and 2^-2.
#[test]
fn scaled_conversions_by_hand() {
    #[rustfmt::skip]
    let words = [
        0xd23b000a, 0x00020501, // v_cvt_scalef32_f32_fp8 v10, v1, v2
        0xd2350016, 0x040a0903, // v_cvt_scalef32_pk_fp8_f32 v22, v3, v4, v2
        0xbf810000, // s_endpgm
    ];
    let code = Code::from_words(&words);
    let mut s = random_state(3, 1);
    s.vgpr[1][0] = 0x3c; // E4M3 1.5
    s.vgpr[2][0] = 0x4100_0000; // 8.0: scale 2^3
    s.vgpr[3][0] = 12.0f32.to_bits(); // 12 / 8 = 1.5 = E4M3 0x3c
    s.vgpr[4][0] = 4000.0f32.to_bits(); // 500 > 448: rounds past max, NaN (0x7f)
    s.vgpr[22][0] = 0xabcd_0000;
    let mut mem = Mem::new(0);
    let t = Target::new(Gpu::GFX950);
    assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
    assert_eq!(s.vgpr[10][0], 12.0f32.to_bits());
    assert_eq!(s.vgpr[22][0], 0xabcd_7f3c);
}

/// FP4 (E2M1, CDNA4 ISA table 30) by code: magnitudes 0, 0.5, 1, 1.5, 2, 3, 4, 6; bit 3 the
/// sign.
fn fp4(code: u32) -> f64 {
    let mag = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0][(code & 7) as usize];
    if code & 8 != 0 {
        -mag
    } else {
        mag
    }
}

#[test]
fn scaled_fp4_up_conversions() {
    #[rustfmt::skip]
    let words = [
        0xd23f180e, 0x00020501, // v_cvt_scalef32_pk_f32_fp4 v[14:15], v1, v2 op_sel:[1,1,0]
        0xd2501012, 0x00020501, // v_cvt_scalef32_pk_f16_fp4 v18, v1, v2 op_sel:[0,1,0]
        0xd2510814, 0x00020501, // v_cvt_scalef32_pk_bf16_fp4 v20, v1, v2 op_sel:[1,0,0]
        0xd23f0010, 0x00020501, // v_cvt_scalef32_pk_f32_fp4 v[16:17], v1, v2
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut r = Rng(404);
    let code = Code::from_words(&words);
    let mut s = random_state(43, exec);
    for l in 0..64 {
        s.vgpr[1][l] = r.next() as u32;
        s.vgpr[2][l] = (r.next() as u32 & 0x807f_ffff) | scale_exp(l, &mut r) << 23;
    }
    let b = clone_state(&s);
    let mut mem = Mem::new(0);
    let t = Target::new(Gpu::GFX950);
    assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
    for l in 0..64 {
        let what = |reg: usize| format!("v{reg} lane {l}");
        if exec >> l & 1 == 0 {
            for reg in 14..=21 {
                assert_eq!(s.vgpr[reg][l], b.vgpr[reg][l], "{}", what(reg));
            }
            continue;
        }
        let k = (b.vgpr[2][l] >> 23 & 0xff) as i32 - 127;
        // Nibble `n` (0 = low) of byte `i`, scaled.
        let x = |i: u32, n: u32| fp4(b.vgpr[1][l] >> (8 * i + 4 * n)) * 2f64.powi(k);
        check32(s.vgpr[14][l], x(3, 0), &what(14));
        check32(s.vgpr[15][l], x(3, 1), &what(15));
        check32(s.vgpr[16][l], x(0, 0), &what(16));
        check32(s.vgpr[17][l], x(0, 1), &what(17));
        let h16 = |v: f64| f16::from_f64(v).to_bits() as u32;
        same16(s.vgpr[18][l], h16(x(2, 0)), &what(18));
        same16(s.vgpr[18][l] >> 16, h16(x(2, 1)), &what(18));
        check_bf16(s.vgpr[20][l], x(1, 0), &what(20));
        check_bf16(s.vgpr[20][l] >> 16, x(1, 1), &what(20));
    }
}
