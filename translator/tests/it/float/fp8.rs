//! FP8/BF8 conversions on gfx942 (FNUZ formats) and gfx950 (OCP E4M3FN/E5M2): nearest-even
//! packing (`v_cvt_pk_{fp8,bf8}_f32`, destination word by op_sel[3]), stochastic rounding
//! (`v_cvt_sr_{fp8,bf8}_f32`, destination byte by op_sel[3:2]), saturation (FP16_OVFL; the
//! encodings have no clamp bit: LLVM rejects it) and the conversions back to f32 (`v_cvt_f32_*`, `v_cvt_pk_f32_fp8`,
//! SDWA byte select), in both engines.
//!
//! Expected values come from this file's own codec: all 256 codes of a format decoded from
//! the format table (CDNA4 ISA table 30; FNUZ: bias one higher, 0x80 the only NaN, no −0 or
//! Inf), nearest-even chosen by exact comparison with the midpoints of neighbouring codes,
//! stochastic rounding by the CDNA4 ISA ch. 12 rule (V_CVT_SR_FP8_F32: `S1[31:12]`, for BF8
//! `S1[31:11]`, added to the f32 mantissa, wrapping around within it, then truncation).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::f8::*;
use crate::lift_support::*;
use wavejit_translator::env::ExitCode;
use wavejit_translator::interp::run_block;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

#[rustfmt::skip]
const PROGRAM: [u32; 16] = [
    0xd2a2000a, 0x00020501, // v_cvt_pk_fp8_f32 v10, v1, v2
    0xd2a3400b, 0x00020501, // v_cvt_pk_bf8_f32 v11, v1, v2 op_sel:[0,0,1]
    0xd2a4000c, 0x00020701, // v_cvt_sr_fp8_f32 v12, v1, v3
    0xd2a5600d, 0x00020701, // v_cvt_sr_bf8_f32 v13, v1, v3 op_sel:[0,0,1,1]
    0xd2a4400e, 0x00020702, // v_cvt_sr_fp8_f32 v14, v2, v3 op_sel:[0,0,0,1]
    0x7e1ea90a, // v_cvt_f32_fp8_e32 v15, v10
    0x7e20ab0b, // v_cvt_f32_bf8_e32 v16, v11
    0x7e24ad0a, // v_cvt_pk_f32_fp8_e32 v[18:19], v10
    0x7e22a8f9, 0x0003060b, // v_cvt_f32_fp8_sdwa v17, v11 src0_sel:BYTE_3
    0xbf810000, // s_endpgm
];

/// Lifts and runs `code` on `gpu` in the interpreter and, block by block, the JIT (which must
/// agree exactly).
fn run_on(gpu: Gpu, code: &Code, state: &mut WaveState, mem: &mut Mem) {
    let t = Target::new(gpu);
    let jit = Jit::new().expect("JIT for the host");
    for _ in 0..100 {
        let block = lift_block(&t, code, state.pc, state.mode);
        let mut js = clone_state(state);
        let mut jm = mem.clone();
        let r = run_block(&block, state, mem);
        if let Ok(compiled) = jit.compile(&block) {
            let jr = compiled.run(&mut js, &mut jm);
            assert!(
                jr == r && js.vgpr == state.vgpr && js.sgpr == state.sgpr,
                "JIT and interpreter differ on block:\n{block}"
            );
        }
        match r.expect("runs") {
            ExitCode::EndPgm => return,
            ExitCode::Continue => {}
            other => panic!("unexpected exit {other:?}"),
        }
    }
    panic!("program did not end");
}

/// f32 inputs: every region of both formats (subnormal, normal, around max, past max), exact
/// midpoints, f32 subnormals, ±0, NaN, ±Inf.
fn inputs(l: usize, r: &mut Rng) -> f32 {
    let pick: [f32; 24] = [
        0.0,
        -0.0,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0e-40,        // f32 subnormal
        2f32.powi(-10), // FNUZ FP8 smallest subnormal
        2f32.powi(-17) * 1.5,
        3.0 * 2f32.powi(-11), // a midpoint below the FNUZ FP8 subnormals
        1.0625,               // FP8 tie between 1 and 1.125 (even: 1)
        1.1875,               // FP8 tie between 1.125 and 1.25 (even: 1.25)
        240.0,
        247.0,
        248.0, // FNUZ FP8: tie between 240 and the step past max
        448.0,
        464.0, // OCP FP8 tie between 448 and 480
        470.0,
        57344.0,
        61440.0, // BF8 tie past max
        60000.0,
        1.0e6,
        -3.3,
        -0.013,
        0.3,
    ];
    if l < 48 {
        let x = pick[l % 24];
        if l >= 24 {
            -x
        } else {
            x
        }
    } else {
        // Random significand, exponent in [-20, 17].
        let e = (r.next() % 38) as i32 - 20;
        let m = 1.0 + (r.next() >> 41) as f32 / (1u64 << 23) as f32;
        let s = if r.next() & 1 == 1 { -1.0 } else { 1.0 };
        s * m * 2f32.powi(e)
    }
}

fn check(gpu: Gpu, ovfl: bool) {
    let (fp8, bf8) = if gpu == Gpu::GFX950 {
        (FP8_OCP, BF8_OCP)
    } else {
        (FP8_FNUZ, BF8_FNUZ)
    };
    let code = Code::from_words(&PROGRAM);
    let mut mem = Mem::new(0);
    let mut s = random_state(0x8888 + ovfl as u64, u64::MAX);
    s.mode = DEFAULT_MODE | (ovfl as u32) << 23;
    let mut r = Rng(12345);
    for l in 0..64 {
        s.vgpr[1][l] = inputs(l, &mut r).to_bits();
        s.vgpr[2][l] = inputs((l * 7 + 5) % 64, &mut r).to_bits();
        s.vgpr[3][l] = match l % 4 {
            0 => 0,
            1 => u32::MAX,
            _ => r.next() as u32,
        };
    }
    let b = clone_state(&s);
    run_on(gpu, &code, &mut s, &mut mem);
    let a = s;
    let ctx = |reg: usize, l: usize| format!("{gpu} FP16_OVFL {ovfl}: v{reg} lane {l}");
    for l in 0..64 {
        let (x, y, rng) = (
            f32::from_bits(b.vgpr[1][l]),
            f32::from_bits(b.vgpr[2][l]),
            b.vgpr[3][l],
        );
        let pk = |f: F8, sat: bool| {
            f.convert(x, None, sat) as u32 | (f.convert(y, None, sat) as u32) << 8
        };
        let want = pk(fp8, ovfl) | b.vgpr[10][l] & 0xffff_0000;
        assert_eq!(a.vgpr[10][l], want, "{} x {x:e} y {y:e}", ctx(10, l));
        let want = pk(bf8, ovfl) << 16 | b.vgpr[11][l] & 0xffff;
        assert_eq!(a.vgpr[11][l], want, "{} x {x:e} y {y:e}", ctx(11, l));
        let sr = |f: F8, v: f32| f.convert(v, Some(rng), ovfl) as u32;
        let want = sr(fp8, x) | b.vgpr[12][l] & 0xffff_ff00;
        assert_eq!(a.vgpr[12][l], want, "{} x {x:e} rng {rng:#x}", ctx(12, l));
        let want = sr(bf8, x) << 24 | b.vgpr[13][l] & 0x00ff_ffff;
        assert_eq!(a.vgpr[13][l], want, "{} x {x:e} rng {rng:#x}", ctx(13, l));
        let want = sr(fp8, y) << 16 | b.vgpr[14][l] & 0xff00_ffff;
        assert_eq!(a.vgpr[14][l], want, "{} y {y:e} rng {rng:#x}", ctx(14, l));
        // Back to f32: bytes of the results (and the old bytes kept in v11).
        let dec = |f: F8, byte: u32, got: u32, reg: usize| match f.decode(byte as u8) {
            None => assert!(
                f32::from_bits(got).is_nan(),
                "{} NaN code {byte:#x}",
                ctx(reg, l)
            ),
            Some(v) => assert_eq!(got, (v as f32).to_bits(), "{} code {byte:#x}", ctx(reg, l)),
        };
        dec(fp8, a.vgpr[10][l] & 0xff, a.vgpr[15][l], 15);
        dec(bf8, a.vgpr[11][l] & 0xff, a.vgpr[16][l], 16);
        dec(fp8, a.vgpr[10][l] & 0xff, a.vgpr[18][l], 18);
        dec(fp8, a.vgpr[10][l] >> 8 & 0xff, a.vgpr[19][l], 19);
        dec(fp8, a.vgpr[11][l] >> 24, a.vgpr[17][l], 17);
    }
}

#[test]
fn gfx942_fnuz_conversions() {
    check(Gpu::GFX942, false);
    check(Gpu::GFX942, true);
}

#[test]
fn gfx950_ocp_conversions() {
    check(Gpu::GFX950, false);
    check(Gpu::GFX950, true);
}

#[test]
fn codec_cases_worked_by_hand() {
    // Format table 30: maxima, smallest subnormals, special codes.
    assert_eq!(FP8_OCP.max(), (0x7e, 448.0));
    assert_eq!(BF8_OCP.max(), (0x7b, 57344.0));
    assert_eq!(FP8_FNUZ.max(), (0x7f, 240.0));
    assert_eq!(BF8_FNUZ.max(), (0x7f, 57344.0));
    assert_eq!(FP8_OCP.decode(0x01), Some(2f64.powi(-9)));
    assert_eq!(BF8_OCP.decode(0x01), Some(2f64.powi(-16)));
    assert_eq!(FP8_FNUZ.decode(0x01), Some(2f64.powi(-10)));
    assert_eq!(BF8_OCP.decode(0x7c), Some(f64::INFINITY));
    assert_eq!(FP8_OCP.decode(0xff), None);
    assert_eq!(FP8_FNUZ.decode(0x80), None);
    // 1.0625 is halfway between 1 (0x38) and 1.125 (0x39): even → 1.0.
    assert_eq!(FP8_OCP.convert(1.0625, None, false), 0x38);
    // 464 is halfway between 448 (0x7e, even) and the first value past max: 448.
    assert_eq!(FP8_OCP.convert(464.0, None, false), 0x7e);
    assert_eq!(FP8_OCP.convert(470.0, None, false), 0x7f);
    assert_eq!(FP8_OCP.convert(470.0, None, true), 0x7e);
    assert_eq!(BF8_OCP.convert(-1.0e6, None, false), 0xfc);
    assert_eq!(FP8_FNUZ.convert(-1.0e6, None, false), 0x80);
    assert_eq!(FP8_FNUZ.convert(-0.0, None, false), 0x00);
    assert_eq!(FP8_OCP.convert(-0.0, None, false), 0x80);
    // Stochastic (CDNA4 ISA ch. 12, V_CVT_SR_FP8_F32: S1[31:12] added to the mantissa,
    // wrapping, then truncation): 1 + 2^-4 has mantissa 0x08_0000, half an FP8 step (bit 20);
    // S1[31:12] = 0x8_0000 (S1 = 0x8000_0000) carries into bit 20 → 1.125 (0x39); S1 =
    // 0x7fff_ffff adds 0x7_ffff → 1.0 (0x38); the low bits S1[11:0] are not used.
    assert_eq!(FP8_OCP.convert(1.0625, Some(0x7fff_ffff), false), 0x38);
    assert_eq!(FP8_OCP.convert(1.0625, Some(0x8000_0000), false), 0x39);
    assert_eq!(FP8_OCP.convert(1.0625, Some(0x0000_0fff), false), 0x38);
    // BF8: S1[31:11]; 1 + 2^-3 (mantissa 0x10_0000) is half a BF8 step (bit 21).
    assert_eq!(BF8_OCP.convert(1.125, Some(0x7fff_ffff), false), 0x3c);
    assert_eq!(BF8_OCP.convert(1.125, Some(0x8000_0000), false), 0x3d);
    // "Wraps around on overflow": 2 - 2^-23 (mantissa 0x7f_ffff) plus S1[31:12] = 0xf_ffff
    // gives mantissa 0x0f_fffe with the exponent unchanged: 1.12..., truncated to 1.0 (0x38),
    // not 2.0 (0x40) as a carry into the exponent would give.
    assert_eq!(
        FP8_OCP.convert(f32::from_bits(0x3fff_ffff), Some(u32::MAX), false),
        0x38
    );
    // FNUZ (gfx942) uses the same bits: 1.0 is 0x40 there (bias 8).
    assert_eq!(FP8_FNUZ.convert(1.0625, Some(0x8000_0000), false), 0x41);
    assert_eq!(FP8_FNUZ.convert(-1.0625, Some(0x7fff_ffff), false), 0xc0);
}

/// A 16-bit float format (f16 or bf16) for the stochastic-rounding oracle.
#[derive(Clone, Copy)]
struct F16ish {
    bf16: bool,
}

impl F16ish {
    /// The value of magnitude code `c` (no sign); the code of Inf counts as the next power of 2.
    fn mag(self, c: u16) -> f64 {
        if self.bf16 {
            if c == 0x7f80 {
                return 2f64.powi(128);
            }
            f64::from(half::bf16::from_bits(c))
        } else {
            if c == 0x7c00 {
                return 65536.0;
            }
            f64::from(half::f16::from_bits(c))
        }
    }
    /// Stochastic rounding of finite non-zero `x` with `rng` (13 or 16 random bits) and the
    /// overflow rule (Inf, or f16 MAX with FP16_OVFL).
    fn sr(self, x: f32, rng: u32, ovfl: bool) -> u16 {
        let neg = (x.is_sign_negative() as u16) << 15;
        let a = f64::from(x.abs());
        let keep = if self.bf16 { 16 } else { 13 };
        let top = if self.bf16 { 0x7f80u16 } else { 0x7c00 };
        // Largest code not above |x|, from a nearby guess.
        let mut c = if self.bf16 {
            half::bf16::from_f32(x.abs()).to_bits()
        } else {
            half::f16::from_f32(x.abs()).to_bits()
        }
        .min(top);
        while self.mag(c) > a {
            c -= 1;
        }
        while c < top && self.mag(c + 1) <= a {
            c += 1;
        }
        let (lo, hi) = (self.mag(c), self.mag(c + 1));
        let dropped = ((a - lo) / (hi - lo) * 2f64.powi(keep)).floor() as u64;
        let up = dropped + (rng as u64 & ((1 << keep) - 1)) >= 1 << keep;
        let r = if up { c + 1 } else { c };
        if r == top && !self.bf16 && ovfl {
            neg | 0x7bff
        } else {
            neg | r
        }
    }
}

#[rustfmt::skip]
const CVT16: [u32; 16] = [
    0xd267000a, 0x00020501, // v_cvt_pk_f16_f32 v10, v1, v2
    0xd268000b, 0x00020501, // v_cvt_pk_bf16_f32 v11, v1, v2
    0x7e18b703, // v_cvt_f32_bf16_e32 v12, v3
    0x7e1ab6f9, 0x00051603, // v_cvt_f32_bf16_sdwa v13, v3 src0_sel:WORD_1
    0xd2a6000e, 0x00020901, // v_cvt_sr_f16_f32 v14, v1, v4
    0xd2a6400f, 0x00020901, // v_cvt_sr_f16_f32 v15, v1, v4 op_sel:[0,0,1]
    0xd2a70010, 0x00020901, // v_cvt_sr_bf16_f32 v16, v1, v4
    0xd2a74011, 0x00020902, // v_cvt_sr_bf16_f32 v17, v2, v4 op_sel:[0,0,1]
    0xbf810000, // s_endpgm
];

/// gfx950's 16-bit conversions: `v_cvt_pk_f16_f32`, `v_cvt_pk_bf16_f32` (nearest even; the
/// expected values from the `half` crate's conversions), `v_cvt_f32_bf16`, and stochastic
/// rounding to f16/bf16 (the oracle above), with and without FP16_OVFL.
#[test]
fn gfx950_16bit_conversions() {
    for ovfl in [false, true] {
        let code = Code::from_words(&CVT16);
        let mut mem = Mem::new(0);
        let mut s = random_state(0x1616 + ovfl as u64, u64::MAX);
        s.mode = DEFAULT_MODE | (ovfl as u32) << 23;
        let mut r = Rng(777);
        let extra: [f32; 10] = [
            1.0 + 2f32.powi(-11),       // f16 tie (even: 1)
            1.0 + 3.0 * 2f32.powi(-11), // f16 tie (even: up)
            1.0 + 2f32.powi(-8),        // bf16 tie
            65520.0,                    // f16 tie above MAX: Inf (or MAX with FP16_OVFL)
            65519.0,
            1.0e-8,  // f16 subnormal range
            3.0e-39, // f32 (and bf16) subnormal
            3.4e38,  // bf16 rounds up to Inf
            -7.0e-6,
            0.1,
        ];
        for l in 0..64 {
            let x = if l % 4 == 3 {
                extra[(l / 4) % 10]
            } else {
                inputs(l, &mut r)
            };
            s.vgpr[1][l] = x.to_bits();
            s.vgpr[2][l] = inputs((l * 5 + 3) % 64, &mut r).to_bits();
            s.vgpr[4][l] = match l % 5 {
                0 => 0,
                1 => u32::MAX,
                _ => r.next() as u32,
            };
        }
        let b = clone_state(&s);
        run_on(Gpu::GFX950, &code, &mut s, &mut mem);
        let a = s;
        for l in 0..64 {
            let (x, y, rng) = (
                f32::from_bits(b.vgpr[1][l]),
                f32::from_bits(b.vgpr[2][l]),
                b.vgpr[4][l],
            );
            let ctx = format!("lane {l} x {x:e} y {y:e} rng {rng:#x} FP16_OVFL {ovfl}");
            let h = |v: f32| -> u32 {
                let c = half::f16::from_f32(v).to_bits();
                if ovfl && v.is_finite() && c & 0x7fff == 0x7c00 {
                    (c & 0x8000 | 0x7bff) as u32
                } else {
                    c as u32
                }
            };
            let nan16 = |c: u32| c & 0x7fff > 0x7c00;
            let same =
                |got: u32, want: u32| got == want || (nan16(got & 0xffff) && nan16(want & 0xffff));
            let got = a.vgpr[10][l];
            assert!(
                same(got & 0xffff, h(x)) && same(got >> 16, h(y)),
                "pk_f16 {ctx}: {got:#x}"
            );
            let bf = |v: f32| half::bf16::from_f32(v).to_bits() as u32;
            let nanb = |c: u32| c & 0x7fff > 0x7f80;
            let got = a.vgpr[11][l];
            assert!(
                (got & 0xffff == bf(x) || nanb(got & 0xffff) && nanb(bf(x)))
                    && (got >> 16 == bf(y) || nanb(got >> 16) && nanb(bf(y))),
                "pk_bf16 {ctx}: {got:#x}"
            );
            assert_eq!(a.vgpr[12][l], b.vgpr[3][l] << 16, "cvt_f32_bf16 {ctx}");
            assert_eq!(
                a.vgpr[13][l],
                b.vgpr[3][l] & 0xffff_0000,
                "cvt_f32_bf16 sdwa {ctx}"
            );
            let sr = |f: F16ish, v: f32| -> Option<u32> {
                if v.is_nan() {
                    None
                } else if v == 0.0 || v.is_infinite() {
                    Some(if f.bf16 {
                        v.to_bits() >> 16
                    } else {
                        half::f16::from_f32(v).to_bits() as u32
                    })
                } else {
                    Some(f.sr(v, rng, ovfl) as u32)
                }
            };
            let check = |got: u32, want: Option<u32>, bf: bool, what: &str| match want {
                Some(w) => assert_eq!(got, w, "{what} {ctx}"),
                None => assert!(
                    if bf { nanb(got) } else { nan16(got) },
                    "{what} NaN {ctx}: {got:#x}"
                ),
            };
            let (fh, fb) = (F16ish { bf16: false }, F16ish { bf16: true });
            check(a.vgpr[14][l] & 0xffff, sr(fh, x), false, "sr_f16");
            assert_eq!(
                a.vgpr[14][l] >> 16,
                b.vgpr[14][l] >> 16,
                "sr_f16 kept {ctx}"
            );
            check(a.vgpr[15][l] >> 16, sr(fh, x), false, "sr_f16 hi");
            assert_eq!(
                a.vgpr[15][l] & 0xffff,
                b.vgpr[15][l] & 0xffff,
                "sr_f16 hi kept {ctx}"
            );
            check(a.vgpr[16][l] & 0xffff, sr(fb, x), true, "sr_bf16");
            check(a.vgpr[17][l] >> 16, sr(fb, y), true, "sr_bf16 hi");
            assert_eq!(
                a.vgpr[17][l] & 0xffff,
                b.vgpr[17][l] & 0xffff,
                "sr_bf16 kept {ctx}"
            );
        }
    }
}
