//! gfx950 stochastic rounding with a block scale (`v_cvt_scalef32_sr_*`): to FP4/FP6/BF6 from
//! f32/f16/bf16, and to FP8/BF8 from f16/bf16, in both engines.
//!
//! The rule under test (ARCHITECTURE.md, "Open ISA questions"): the source divided by the
//! scale `2^(scale[30:23] - 127)` gets the top `23 - mbits` bits of the random operand added
//! below the destination's last place and is truncated; to FP4/FP6/BF6 a carry rounds up to
//! the next code, overflow, ±Inf and NaN give ±max (ISA 7.3); element i of a multi-element
//! conversion uses the random operand advanced i times by `v_prng_b32` (`(x << 1) ^ (x[31] ?
//! 197 : 0)`, ISA pseudocode). The expected values here come from the codes' values (the
//! format tables of CDNA4 ISA table 30) and the position of the value between two
//! neighbouring codes, not from bit manipulation of the f32; FP8/BF8 from the ISA's
//! `V_CVT_SR_FP8_F32` rule in `crate::lift_support::f8`. Encodings from llvm-mc-22 (gfx950).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::f8::*;
use crate::lift_support::mx::*;
use crate::lift_support::*;
use half::{bf16, f16};
use wavejit_translator::env::ExitCode;
use wavejit_translator::isa::{Gpu, Target};

/// Stochastic rounding to a small format, worked on the host.
trait Sr {
    fn sr(self, x: f64, rng: u32) -> u32;
}

impl Sr for Mx {
    /// `x` (an f64 holding an f32 value, or ±Inf/NaN) rounded stochastically with `rng`:
    /// between the neighbouring codes lo ≤ |x| < lo + ulp the fraction `(|x| - lo) / ulp`,
    /// truncated to `23 - mbits` bits, plus `rng`'s top `23 - mbits` bits reaching 1 rounds up.
    fn sr(self, x: f64, rng: u32) -> u32 {
        let s = if x.is_sign_negative() { self.sign() } else { 0 };
        let n = self.sign();
        if x.is_nan() || x.is_infinite() {
            return s | (n - 1);
        }
        let a = x.abs();
        let i = (0..n).rev().find(|&c| self.value(c) <= a).unwrap_or(0);
        let lo = self.value(i);
        let ulp = if i + 1 < n {
            self.value(i + 1) - lo
        } else {
            lo - self.value(i - 1)
        };
        let keep = 23 - self.mbits;
        let one = f64::from(1u32 << keep);
        let frac = ((a - lo) / ulp * one).floor();
        let r = f64::from(rng >> (32 - keep));
        let c = if frac + r >= one { i + 1 } else { i };
        s | c.min(n - 1)
    }
}

/// One `v_prng_b32` step (CDNA4 ISA pseudocode of V_PRNG_B32).
fn prng(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 }
}

/// The random operand of pass `i`.
fn seed(rng: u32, i: usize) -> u32 {
    (0..i).fold(rng, |x, _| prng(x))
}

/// The value of the f16 or bf16 in the low half of `h` (exact).
fn half16(h: u32, bf: bool) -> f64 {
    if bf {
        f64::from(f32::from_bits((h & 0xffff) << 16))
    } else {
        f16::from_bits(h as u16).to_f64()
    }
}

/// The quotient of `x` by `2^k` as the f32 the hardware forms (±Inf beyond f32's range).
fn quot(x: f64, k: i32) -> f64 {
    f64::from((x * 2f64.powi(-k)) as f32)
}

#[rustfmt::skip]
const PROGRAM: [u32; 29] = [
    0xd23e000a, 0x040a0304, // v_cvt_scalef32_sr_pk_fp4_f32 v10, v[4:5], v1, v2
    0xd23e600b, 0x040a0304, // v_cvt_scalef32_sr_pk_fp4_f32 v11, v[4:5], v1, v2 op_sel:[0,0,1,1]
    0xd24e200c, 0x040a0306, // v_cvt_scalef32_sr_pk_fp4_f16 v12, v6, v1, v2 op_sel:[0,0,1,0]
    0xd24f400d, 0x040a0307, // v_cvt_scalef32_sr_pk_fp4_bf16 v13, v7, v1, v2 op_sel:[0,0,0,1]
    0xd242000e, 0x040a0306, // v_cvt_scalef32_sr_fp8_f16 v14, v6, v1, v2
    0xd243680f, 0x040a0306, // v_cvt_scalef32_sr_bf8_f16 v15, v6, v1, v2 op_sel:[1,0,1,1]
    0xd2464810, 0x240a0307, // v_cvt_scalef32_sr_fp8_bf16 v16, -v7, v1, v2 op_sel:[1,0,0,1]
    0xd2472111, 0x040a0307, // v_cvt_scalef32_sr_bf8_bf16 v17, |v7|, v1, v2 op_sel:[0,0,1,0]
    0xd2540012, 0x040a0320, // v_cvt_scalef32_sr_pk32_fp6_f32 v[18:23], v[32:63], v1, v2
    0xd2550018, 0x040a0320, // v_cvt_scalef32_sr_pk32_bf6_f32 v[24:29], v[32:63], v1, v2
    0xd25c0040, 0x040a0360, // v_cvt_scalef32_sr_pk32_fp6_f16 v[64:69], v[96:111], v1, v2
    0xd25e0046, 0x040a0360, // v_cvt_scalef32_sr_pk32_bf6_f16 v[70:75], v[96:111], v1, v2
    0xd25d004c, 0x040a0370, // v_cvt_scalef32_sr_pk32_fp6_bf16 v[76:81], v[112:127], v1, v2
    0xd25f0052, 0x040a0370, // v_cvt_scalef32_sr_pk32_bf6_bf16 v[82:87], v[112:127], v1, v2
    0xbf810000, // s_endpgm
];

/// The destination registers of [`PROGRAM`].
const DSTS: [std::ops::RangeInclusive<usize>; 2] = [10..=29, 64..=87];

/// A value near the FP4/FP6/BF6 range: a code's value (either format's), just above or below
/// one, halfway, a random f32 of magnitude 2^-5..2^6, or a special (±0, ±Inf, NaN, huge).
fn value(r: &mut Rng) -> f64 {
    let v = r.next();
    let sign = if v >> 63 != 0 { -1.0 } else { 1.0 };
    let f = [FP4, FP6, BF6][(v >> 8) as usize % 3];
    let c = (v >> 16) as u32 % f.sign();
    let mag = match v % 16 {
        0 => {
            return [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e30]
                [(v >> 4) as usize % 6]
        }
        1..=3 => f.value(c),
        4 | 5 => f.value(c) * (1.0 + 2f64.powi(-20)),
        6 | 7 => f.value(c) * (1.0 - 2f64.powi(-21)),
        8 | 9 => (f.value(c) + f.value((c + 1) % f.sign())) / 2.0,
        _ => {
            let m = 1.0 + f64::from((v >> 24) as u32 & 0x7f_ffff) / f64::from(1u32 << 23);
            m * 2f64.powi(((v >> 48) % 12) as i32 - 5)
        }
    };
    sign * f64::from(mag as f32)
}

/// A random operand: random, or 0, all ones, or one whose top bits sit at a rounding
/// threshold (0x8000_0000, 0x7fff_ffff).
fn random_operand(r: &mut Rng) -> u32 {
    let v = r.next();
    match v % 8 {
        0 => 0,
        1 => u32::MAX,
        2 => 0x8000_0000,
        3 => 0x7fff_ffff,
        _ => (v >> 32) as u32,
    }
}

#[test]
fn scaled_sr_random() {
    let exec = EXEC_PARTIAL;
    let mut r = Rng(0x5eed5);
    let code = Code::from_words(&PROGRAM);
    let mut s = random_state(77, exec);
    // Scale exponents k in [-3, 3] (values then reach past both ends of the formats).
    let ks: Vec<i32> = (0..64).map(|_| (r.next() % 7) as i32 - 3).collect();
    for l in 0..64 {
        let k = ks[l];
        s.vgpr[1][l] = random_operand(&mut r);
        // Sign and mantissa of the scale are ignored.
        s.vgpr[2][l] = (r.next() as u32 & 0x807f_ffff) | ((127 + k) as u32) << 23;
        let f32_of = |x: f64| ((x * 2f64.powi(k)) as f32).to_bits();
        let (a, b) = (value(&mut r), value(&mut r));
        s.vgpr[4][l] = f32_of(a);
        s.vgpr[5][l] = f32_of(b);
        let h = |x: f64| f16::from_f64(x * 2f64.powi(k)).to_bits() as u32;
        let bh = |x: f64| bf16::from_f64(x * 2f64.powi(k)).to_bits() as u32;
        s.vgpr[6][l] = h(value(&mut r)) | h(value(&mut r)) << 16;
        s.vgpr[7][l] = bh(value(&mut r)) | bh(value(&mut r)) << 16;
        for reg in 32..64 {
            s.vgpr[reg][l] = f32_of(value(&mut r));
        }
        for reg in 96..112 {
            s.vgpr[reg][l] = h(value(&mut r)) | h(value(&mut r)) << 16;
        }
        for reg in 112..128 {
            s.vgpr[reg][l] = bh(value(&mut r)) | bh(value(&mut r)) << 16;
        }
    }
    let b = clone_state(&s);
    let mut mem = Mem::new(0);
    let t = Target::new(Gpu::GFX950);
    assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
    for l in 0..64 {
        let v = |reg: usize| b.vgpr[reg][l];
        let got = |reg: usize| s.vgpr[reg][l];
        let what = |reg: usize| format!("v{reg} lane {l}");
        if exec >> l & 1 == 0 {
            for reg in DSTS.iter().cloned().flatten() {
                assert_eq!(got(reg), v(reg), "{}", what(reg));
            }
            continue;
        }
        let k = ks[l];
        let rng = v(1);
        let byte_at = |reg: usize, byte: u32, sh: u32| {
            let want = v(reg) & !(0xff << sh) | byte << sh;
            assert_eq!(got(reg), want, "{}", what(reg));
        };
        // FP4 pairs: element 0 in the low nibble with the operand, element 1 with prng(it).
        let fp4_pair = |x0: f64, x1: f64| {
            FP4.sr(quot(x0, k), seed(rng, 0)) | FP4.sr(quot(x1, k), seed(rng, 1)) << 4
        };
        let f = |reg: usize| f64::from(f32::from_bits(v(reg)));
        byte_at(10, fp4_pair(f(4), f(5)), 0);
        byte_at(11, fp4_pair(f(4), f(5)), 24);
        let (h0, h1) = (half16(v(6), false), half16(v(6) >> 16, false));
        let (b0, b1) = (half16(v(7), true), half16(v(7) >> 16, true));
        byte_at(12, fp4_pair(h0, h1), 8);
        byte_at(13, fp4_pair(b0, b1), 16);
        // FP8/BF8 from one half (op_sel[0]) into byte op_sel[3:2].
        let f8 = |fmt: F8, x: f64| u32::from(fmt.convert(quot(x, k), Some(rng), false));
        byte_at(14, f8(FP8_OCP, h0), 0);
        byte_at(15, f8(BF8_OCP, h1), 24);
        byte_at(16, f8(FP8_OCP, half16((v(7) >> 16) ^ 0x8000, true)), 16);
        byte_at(17, f8(BF8_OCP, half16(v(7) & 0x7fff, true)), 8);
        // 32 elements into six registers.
        let pk32 = |dst: usize, fmt: Mx, xs: &[f64]| {
            let regs: Vec<u32> = (dst..dst + 6).map(got).collect();
            for (i, &x) in xs.iter().enumerate() {
                let want = fmt.sr(quot(x, k), seed(rng, i));
                let g = field6(&regs, i);
                assert_eq!(g, want, "v[{dst}:{}] lane {l} element {i} ({x})", dst + 5);
            }
        };
        let xs: Vec<f64> = (32..64).map(f).collect();
        pk32(18, FP6, &xs);
        pk32(24, BF6, &xs);
        let halves = |base: usize, bf: bool| -> Vec<f64> {
            (base..base + 16)
                .flat_map(|reg| [half16(v(reg), bf), half16(v(reg) >> 16, bf)])
                .collect()
        };
        pk32(64, FP6, &halves(96, false));
        pk32(70, BF6, &halves(96, false));
        pk32(76, FP6, &halves(112, true));
        pk32(82, BF6, &halves(112, true));
    }
}

/// FP4 pairs worked by hand. FP4 E2M1 magnitudes by code: 0, 0.5, 1, 1.5, 2, 3, 4, 6. 22
/// random bits: 1.25 lies half way from 1.0 (code 2) to 1.5 (code 3), fraction 0x200000.
/// prng(0x8000_0000) = 197 (top bits 0), prng(0x7fff_ffff) = 0xffff_fffe,
/// prng(0xffff_ffff) = 0xffff_ff3b (top 22 bits all ones), prng(0) = 0.
#[test]
fn scaled_sr_fp4_by_hand() {
    #[rustfmt::skip]
    let words = [
        0xd23e000a, 0x040a0304, // v_cvt_scalef32_sr_pk_fp4_f32 v10, v[4:5], v1, v2
        0xd23e600b, 0x040a0304, // v_cvt_scalef32_sr_pk_fp4_f32 v11, v[4:5], v1, v2 op_sel:[0,0,1,1]
        0xbf810000, // s_endpgm
    ];
    // (a, b, random operand, scale, expected byte)
    let cases: [(f32, f32, u32, f32, u32); 9] = [
        // 1.25 + 0x200000 reaches 1.5; the second element's operand 197 adds nothing.
        (1.25, 1.25, 0x8000_0000, 1.0, 0x23),
        // 0x1fffff falls one short; 0xffff_fffe's top bits round the second up.
        (1.25, 1.25, 0x7fff_ffff, 1.0, 0x32),
        // Seed 0 truncates.
        (1.25, 1.25, 0, 1.0, 0x22),
        // All ones: 1.0 is exact and stays; 5.5 (3/4 of the way from 4 to 6) rounds up to 6.
        (1.0, 5.5, u32::MAX, 1.0, 0x72),
        // +Inf gives +6, a negative NaN -6.
        (f32::INFINITY, f32::from_bits(0xffc0_0000), 0, 1.0, 0xf7),
        // Scale 8: 10 / 8 = 1.25 rounds up; -2 / 8 = -0.25, half way to -0.5, truncates to -0.
        (10.0, -2.0, 0x8000_0000, 8.0, 0x83),
        // 0.25 (subnormal half way to 0.5) rounds up to 0.5; -0 stays -0.
        (0.25, -0.0, 0x8000_0000, 1.0, 0x81),
        // Beyond 6 saturates whatever the random bits.
        (100.0, 6.5, 0, 1.0, 0x77),
        // Scale 0.5 (exponent 126) doubles: 3 → 6, 0.75 → 1.5.
        (3.0, 0.75, 0, 0.5, 0x37),
    ];
    let code = Code::from_words(&words);
    let mut s = random_state(5, u64::MAX);
    for (l, &(a, b, rng, scale, _)) in cases.iter().enumerate() {
        s.vgpr[4][l] = a.to_bits();
        s.vgpr[5][l] = b.to_bits();
        s.vgpr[1][l] = rng;
        s.vgpr[2][l] = scale.to_bits();
    }
    let before = clone_state(&s);
    let mut mem = Mem::new(0);
    let t = Target::new(Gpu::GFX950);
    assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
    for (l, &(.., want)) in cases.iter().enumerate() {
        let old10 = before.vgpr[10][l];
        let old11 = before.vgpr[11][l];
        assert_eq!(s.vgpr[10][l], old10 & !0xff | want, "v10 lane {l}");
        assert_eq!(
            s.vgpr[11][l],
            old11 & 0x00ff_ffff | want << 24,
            "v11 lane {l}"
        );
    }
}

/// FP6/BF6 worked by hand. FP6 E2M3: 1.0625 lies half way from 1.0 (code 0x08) to 1.125
/// (0x09), fraction 0x80000 of 20 bits; 7.75 is past the maximum 7.5 (0x1f). BF6 E3M2:
/// 0.09375 lies half way from 0.0625 to 0.125 (subnormals 0x01, 0x02), fraction 0x100000 of
/// 21 bits; -28.5 saturates to -28 (0x3f). Element 0 takes the operand 0x8000_0000 (rounds
/// up), element 1 prng of it, 197, whose top bits are 0 (truncates).
#[test]
fn scaled_sr_fp6_by_hand() {
    #[rustfmt::skip]
    let words = [
        0xd2540012, 0x040a0320, // v_cvt_scalef32_sr_pk32_fp6_f32 v[18:23], v[32:63], v1, v2
        0xd2550018, 0x040a0320, // v_cvt_scalef32_sr_pk32_bf6_f32 v[24:29], v[32:63], v1, v2
        0xbf810000, // s_endpgm
    ];
    let code = Code::from_words(&words);
    let mut s = random_state(6, 3);
    for l in 0..2 {
        for reg in 32..64 {
            s.vgpr[reg][l] = 0;
        }
        s.vgpr[1][l] = 0x8000_0000;
        s.vgpr[2][l] = 1.0f32.to_bits();
    }
    // Lane 0: FP6 cases; lane 1: BF6 cases.
    s.vgpr[32][0] = 1.0625f32.to_bits();
    s.vgpr[33][0] = 1.0625f32.to_bits();
    s.vgpr[63][0] = 7.75f32.to_bits();
    s.vgpr[32][1] = 0.09375f32.to_bits();
    s.vgpr[33][1] = (-28.5f32).to_bits();
    let mut mem = Mem::new(0);
    let t = Target::new(Gpu::GFX950);
    assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
    // FP6 lane 0: element 0 = 0x09, element 1 = 0x08, element 31 (bits 191:186) = 0x1f.
    let fp6: Vec<u32> = (18..24).map(|r| s.vgpr[r][0]).collect();
    assert_eq!(fp6, [0x209, 0, 0, 0, 0, 0x7c00_0000]);
    // BF6 lane 1: element 0 = 0x02, element 1 = 0x3f.
    let bf6: Vec<u32> = (24..30).map(|r| s.vgpr[r][1]).collect();
    assert_eq!(bf6, [0xfc2, 0, 0, 0, 0, 0]);
}
