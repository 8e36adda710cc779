//! VALU float instructions over special values (NaN, ±0, ±Inf, denormals, large values),
//! with VOP3 modifiers, inline float constants and a literal; expected values from host
//! IEEE arithmetic (Rust's f32/f64 operations are correctly rounded, `mul_add` is fused).
//! A NaN result is checked as "some NaN": the payload is the interpreter's documented rule.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

const SPECIALS: [u32; 16] = [
    0x7fc0_0000, // qNaN
    0x7f80_0001, // sNaN
    0x0000_0000, // +0
    0x8000_0000, // -0
    0x7f80_0000, // +Inf
    0xff80_0000, // -Inf
    0x0000_0001, // smallest denormal
    0x807f_ffff, // largest negative denormal
    0x3fc0_0000, // 1.5
    0xc030_0000, // -2.75
    0x7149_f2ca, // 1e30
    0x4f32_d05e, // 3e9
    0xd015_02f9, // -1e10
    0x3f80_0000, // 1.0
    0x3eaa_aaab, // 1/3
    0x4b00_0001, // 8388609
];

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// V_MAX_F32/V_MIN_F32 with MODE.IEEE = 1 (GFX9/CDNA pseudocode): an sNaN operand gives a
/// NaN (S0's first, quieted), else NaN operands give the other operand, −0 < +0.
fn isa_minmax(a: f32, b: f32, max: bool) -> f32 {
    let snan = |x: f32| x.is_nan() && x.to_bits() & 0x40_0000 == 0;
    if snan(a) || snan(b) {
        return f32::NAN;
    }
    maxnum(a, b, max)
}

/// IEEE maxNum/minNum with −0 < +0.
fn maxnum(a: f32, b: f32, max: bool) -> f32 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == 0.0 && b == 0.0 {
        let a_neg = a.is_sign_negative();
        let b_neg = b.is_sign_negative();
        return if max != a_neg {
            a
        } else if max != b_neg {
            b
        } else {
            a
        };
    }
    if (a > b) == max {
        a
    } else {
        b
    }
}

fn check_f32(
    b: &wavejit_translator::wave::WaveState,
    a: &wavejit_translator::wave::WaveState,
    reg: usize,
    exec: u64,
    want: impl Fn(usize) -> f32,
) {
    for l in 0..64 {
        let got = a.vgpr[reg][l];
        if exec >> l & 1 == 0 {
            assert_eq!(got, b.vgpr[reg][l], "v{reg} lane {l} (inactive)");
            continue;
        }
        let w = want(l);
        if w.is_nan() {
            assert!(f(got).is_nan(), "v{reg} lane {l}: got {got:#x}, want NaN");
        } else {
            assert_eq!(
                got,
                w.to_bits(),
                "v{reg} lane {l}: got {}, want {w}",
                f(got)
            );
        }
    }
}

fn check_f64(
    b: &wavejit_translator::wave::WaveState,
    a: &wavejit_translator::wave::WaveState,
    reg: usize,
    exec: u64,
    want: impl Fn(usize) -> f64,
) {
    for l in 0..64 {
        let got = a.vgpr[reg][l] as u64 | (a.vgpr[reg + 1][l] as u64) << 32;
        if exec >> l & 1 == 0 {
            assert_eq!(a.vgpr[reg][l], b.vgpr[reg][l]);
            assert_eq!(a.vgpr[reg + 1][l], b.vgpr[reg + 1][l]);
            continue;
        }
        let w = want(l);
        if w.is_nan() {
            assert!(f64::from_bits(got).is_nan(), "v{reg} lane {l}: want NaN");
        } else {
            assert_eq!(
                got,
                w.to_bits(),
                "v{reg} lane {l}: got {}, want {w}",
                f64::from_bits(got)
            );
        }
    }
}

fn mask_of(exec: u64, p: impl Fn(usize) -> bool) -> u64 {
    (0..64)
        .filter(|&l| exec >> l & 1 != 0 && p(l))
        .fold(0, |m, l| m | 1 << l)
}

/// `v_cmp_class` mask bit of `x`.
fn class_bit(x: f32) -> u32 {
    let neg = x.is_sign_negative();
    if x.is_nan() {
        return if x.to_bits() & 0x40_0000 == 0 { 0 } else { 1 };
    }
    if x.is_infinite() {
        return if neg { 2 } else { 9 };
    }
    if x == 0.0 {
        return if neg { 5 } else { 6 };
    }
    if x.is_subnormal() {
        return if neg { 4 } else { 7 };
    }
    if neg {
        3
    } else {
        8
    }
}

#[test]
fn float_ops_on_special_values() {
    #[rustfmt::skip]
    let words = [
        0x02000501, // v_add_f32_e32 v0, v1, v2
        0xd1050203, 0x20020501, // v_mul_f32_e64 v3, -v1, |v2|
        0xd1cb0004, 0x04160501, // v_fma_f32 v4, v1, v2, v5
        0x160c0501, // v_max_f32_e32 v6, v1, v2
        0xd10a0007, 0x0001e101, // v_min_f32_e64 v7, v1, 0.5
        0xd1018008, 0x00020501, // v_add_f32_e64 v8, v1, v2 clamp
        0xd1050009, 0x0801e501, // v_mul_f32_e64 v9, v1, 1.0 mul:2
        0x76140501, // v_fmac_f32_e32 v10, v1, v2
        0xd280000c, 0x0002210e, // v_add_f64 v[12:13], v[14:15], v[16:17]
        0xd1cc0012, 0x0441e10e, // v_fma_f64 v[18:19], v[14:15], 0.5, v[16:17]
        0x7e281101, // v_cvt_i32_f32_e32 v20, v1
        0x7e2a0f01, // v_cvt_u32_f32_e32 v21, v1
        0x7e2c0b02, // v_cvt_f32_i32_e32 v22, v2
        0x7e2e1501, // v_cvt_f16_f32_e32 v23, v1
        0x7e301719, // v_cvt_f32_f16_e32 v24, v25
        0x7e343f01, // v_floor_f32_e32 v26, v1
        0x7e363d01, // v_rndne_f32_e32 v27, v1
        0x7e383701, // v_fract_f32_e32 v28, v1
        0xd0410000, 0x00020501, // v_cmp_lt_f32_e64 s[0:1], v1, v2
        0xd04d0002, 0x00020501, // v_cmp_neq_f32_e64 s[2:3], v1, v2
        0xd0100004, 0x00023b01, // v_cmp_class_f32_e64 s[4:5], v1, v29
        0x7e3c2101, // v_cvt_f64_f32_e32 v[30:31], v1
        0xd2880020, 0x00024301, // v_ldexp_f32 v32, v1, v33
        0x2e440501, 0x40400000, // v_fmamk_f32 v34, v1, 0x40400000, v2
        0x7e462721, // v_cvt_f32_ubyte2_e32 v35, v33
        0x7e484f01, // v_sqrt_f32_e32 v36, v1
        0xd2810026, 0x4002210e, // v_mul_f64 v[38:39], v[14:15], -v[16:17]
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let f16s: [u16; 8] = [
        0x7e00, 0x0001, 0x8000, 0x7c00, 0x3c00, 0xc500, 0x03ff, 0x7bff,
    ];
    let (b, a) = run_words(&words, 21, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[1][l] = SPECIALS[l % 16];
            s.vgpr[2][l] = SPECIALS[(l * 7 + 3) % 16];
            s.vgpr[5][l] = SPECIALS[(l * 5 + 1) % 16];
            s.vgpr[10][l] = SPECIALS[(l * 3 + 2) % 16];
            let d1 = f64::from(f(SPECIALS[(l + 5) % 16])) * 1.000_000_1;
            let d2 = f64::from(f(SPECIALS[(l * 11 + 7) % 16])) / 3.0;
            s.vgpr[14][l] = d1.to_bits() as u32;
            s.vgpr[15][l] = (d1.to_bits() >> 32) as u32;
            s.vgpr[16][l] = d2.to_bits() as u32;
            s.vgpr[17][l] = (d2.to_bits() >> 32) as u32;
            s.vgpr[25][l] = 0xabcd_0000 | f16s[l % 8] as u32;
            s.vgpr[29][l] = (1 << (l % 10)) | (1 << ((l * 3) % 10));
            s.vgpr[33][l] = if l % 4 == 3 {
                s.vgpr[33][l]
            } else {
                ((l as i32 - 32) * 5) as u32
            };
        }
    });
    let x = |r: usize, l: usize| f(b.vgpr[r][l]);
    let d =
        |r: usize, l: usize| f64::from_bits(b.vgpr[r][l] as u64 | (b.vgpr[r + 1][l] as u64) << 32);
    check_f32(&b, &a, 0, exec, |l| x(1, l) + x(2, l));
    check_f32(&b, &a, 3, exec, |l| -x(1, l) * x(2, l).abs());
    check_f32(&b, &a, 4, exec, |l| x(1, l).mul_add(x(2, l), x(5, l)));
    check_f32(&b, &a, 6, exec, |l| isa_minmax(x(1, l), x(2, l), true));
    check_f32(&b, &a, 7, exec, |l| isa_minmax(x(1, l), 0.5, false));
    check_f32(&b, &a, 8, exec, |l| {
        let s = x(1, l) + x(2, l);
        if s.is_nan() {
            0.0
        } else {
            maxnum(maxnum(s, 0.0, true), 1.0, false)
        }
    });
    // MODE.IEEE is set (the default), so the output modifier mul:2 is ignored (ISA 6.2.2).
    check_f32(&b, &a, 9, exec, |l| x(1, l) * 1.0);
    check_f32(&b, &a, 10, exec, |l| x(1, l).mul_add(x(2, l), x(10, l)));
    check_f64(&b, &a, 12, exec, |l| d(14, l) + d(16, l));
    check_f64(&b, &a, 18, exec, |l| d(14, l).mul_add(0.5, d(16, l)));
    check_vgpr(&b, &a, 20, exec, |l| x(1, l) as i32 as u32);
    check_vgpr(&b, &a, 21, exec, |l| x(1, l) as u32);
    check_f32(&b, &a, 22, exec, |l| b.vgpr[2][l] as i32 as f32);
    check_vgpr(&b, &a, 23, exec, |l| {
        let h = half::f16::from_f32(x(1, l));
        if h.is_nan() {
            a.vgpr[23][l] // checked below
        } else {
            h.to_bits() as u32
        }
    });
    for l in 0..64 {
        if exec >> l & 1 != 0 && x(1, l).is_nan() {
            let r = a.vgpr[23][l];
            assert!(
                r >> 16 == 0 && half::f16::from_bits(r as u16).is_nan(),
                "lane {l}"
            );
        }
    }
    check_f32(&b, &a, 24, exec, |l| {
        half::f16::from_bits(b.vgpr[25][l] as u16).to_f32()
    });
    check_f32(&b, &a, 26, exec, |l| x(1, l).floor());
    check_f32(&b, &a, 27, exec, |l| x(1, l).round_ties_even());
    check_f32(&b, &a, 28, exec, |l| {
        let v = x(1, l);
        if v.is_infinite() || v.is_nan() {
            f32::NAN
        } else {
            (v - v.floor()).min(f(0x3f7f_ffff))
        }
    });
    assert_eq!(a.sgpr64(0), mask_of(exec, |l| x(1, l) < x(2, l)));
    assert_eq!(a.sgpr64(2), mask_of(exec, |l| x(1, l) != x(2, l)));
    assert_eq!(
        a.sgpr64(4),
        mask_of(exec, |l| b.vgpr[29][l] >> class_bit(x(1, l)) & 1 != 0)
    );
    check_f64(&b, &a, 30, exec, |l| x(1, l) as f64);
    check_f32(&b, &a, 32, exec, |l| {
        let n = (b.vgpr[33][l] as i32).clamp(-300, 300);
        (x(1, l) as f64 * 2f64.powi(n)) as f32
    });
    check_f32(&b, &a, 34, exec, |l| x(1, l).mul_add(3.0, x(2, l)));
    check_f32(&b, &a, 35, exec, |l| ((b.vgpr[33][l] >> 16) & 0xff) as f32);
    check_f32(&b, &a, 36, exec, |l| x(1, l).sqrt());
    check_f64(&b, &a, 38, exec, |l| d(14, l) * -d(16, l));
}

fn flush32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

fn flush64(x: f64) -> f64 {
    if x.is_subnormal() {
        f64::from_bits(x.to_bits() & (1 << 63))
    } else {
        x
    }
}

/// MODE = 0: denormals flushed on input and output (f32 and f64), IEEE and DX10_CLAMP off,
/// so the output modifier applies and a clamped NaN passes through; `v_cndmask` moves
/// denormals unchanged.
#[test]
fn flush_mode_omod_and_clamp() {
    #[rustfmt::skip]
    let words = [
        0x02000501, // v_add_f32_e32 v0, v1, v2
        0xd1050003, 0x0801e501, // v_mul_f32_e64 v3, v1, 1.0 mul:2
        0xd1018004, 0x00020501, // v_add_f32_e64 v4, v1, v2 clamp
        0x000a0501, // v_cndmask_b32_e32 v5, v1, v2, vcc
        0xd2800006, 0x00021508, // v_add_f64 v[6:7], v[8:9], v[10:11]
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 31, exec, &mut mem, |s| {
        s.mode = 0;
        for l in 0..64 {
            s.vgpr[1][l] = SPECIALS[l % 16];
            // Denormal second operands in some lanes; small normal sums that become
            // denormal in others.
            s.vgpr[2][l] = match l % 3 {
                0 => 0x0000_0100,
                1 => SPECIALS[(l * 7 + 3) % 16],
                _ => 0x8080_0000, // -min normal
            };
            let d1 = if l % 2 == 0 { 3e-310 } else { 2.0e-308 };
            let d2 = if l % 4 < 2 { -1.0e-308 } else { 1.5 };
            s.vgpr[8][l] = f64::to_bits(d1) as u32;
            s.vgpr[9][l] = (f64::to_bits(d1) >> 32) as u32;
            s.vgpr[10][l] = f64::to_bits(d2) as u32;
            s.vgpr[11][l] = (f64::to_bits(d2) >> 32) as u32;
        }
    });
    let x = |r: usize, l: usize| f(b.vgpr[r][l]);
    let d =
        |r: usize, l: usize| f64::from_bits(b.vgpr[r][l] as u64 | (b.vgpr[r + 1][l] as u64) << 32);
    check_f32(&b, &a, 0, exec, |l| {
        flush32(flush32(x(1, l)) + flush32(x(2, l)))
    });
    check_f32(&b, &a, 3, exec, |l| flush32(flush32(x(1, l)) * 2.0));
    check_f32(&b, &a, 4, exec, |l| {
        let s = flush32(x(1, l)) + flush32(x(2, l));
        if s.is_nan() {
            s
        } else {
            maxnum(maxnum(s, 0.0, true), 1.0, false)
        }
    });
    let vcc = b.sgpr64(106);
    check_vgpr(&b, &a, 5, exec, |l| {
        if vcc >> l & 1 != 0 {
            b.vgpr[2][l]
        } else {
            b.vgpr[1][l]
        }
    });
    check_f64(&b, &a, 6, exec, |l| {
        flush64(flush64(d(8, l)) + flush64(d(10, l)))
    });
}

/// `v_cmp_class` of f16 (denormals must stay denormal) and f64, `v_cmp_lt_f16`, and a VOP3
/// `v_cmpx` that writes both its SGPR destination and EXEC.
#[test]
fn half_and_double_classes_and_cmpx() {
    #[rustfmt::skip]
    let words = [
        0xd0140000, 0x00020501, // v_cmp_class_f16_e64 s[0:1], v1, v2
        0x7c420701, // v_cmp_lt_f16_e32 vcc, v1, v3
        0xd0130002, 0x00020504, // v_cmpx_class_f64_e64 s[2:3], v[4:5], v2
        0xbf810000, // s_endpgm
    ];
    const H: [u16; 10] = [
        0x7d00, 0x7e00, 0xfc00, 0xbc00, 0x8001, 0x8000, 0x0000, 0x0200, 0x3c00, 0x7c00,
    ];
    const D: [f64; 6] = [f64::NAN, -1.5, -4.9e-324, 0.0, 2.0e-310, f64::INFINITY];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 41, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[1][l] = 0xdead_0000 | H[l % 10] as u32;
            s.vgpr[3][l] = H[(l * 3 + 1) % 10] as u32;
            s.vgpr[2][l] = (1 << (l % 10)) | (1 << ((l / 10) % 10));
            let d = D[l % 6];
            s.vgpr[4][l] = d.to_bits() as u32;
            s.vgpr[5][l] = (d.to_bits() >> 32) as u32;
        }
    });
    // Class index of each f16 in H: sNaN, qNaN, -Inf, -normal, -denormal, -0, +0,
    // +denormal, +normal, +Inf.
    let h_class = |x: u16| H.iter().position(|&y| y == x).unwrap() as u32;
    let d_class = |i: usize| [1u32, 3, 4, 6, 7, 9][i];
    let mut m0 = 0u64;
    let mut lt = 0u64;
    let mut mx = 0u64;
    for l in (0..64).filter(|&l| exec >> l & 1 != 0) {
        let cls = b.vgpr[2][l];
        if cls >> h_class(H[l % 10]) & 1 != 0 {
            m0 |= 1 << l;
        }
        let x = half::f16::from_bits(H[l % 10]);
        let y = half::f16::from_bits(H[(l * 3 + 1) % 10]);
        if x < y {
            lt |= 1 << l;
        }
        if cls >> d_class(l % 6) & 1 != 0 {
            mx |= 1 << l;
        }
    }
    assert_eq!(a.sgpr64(0), m0);
    assert_eq!(a.sgpr64(106), lt);
    assert_eq!(a.sgpr64(2), mx);
    assert_eq!(a.exec(), mx);
}

/// Host frexp by repeated scaling (a different method from the lifter's bit manipulation).
fn frexp_host(x: f64) -> (f64, i32) {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return (x, 0);
    }
    let mut m = x;
    let mut e = 0;
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

#[test]
fn frexp_f64() {
    #[rustfmt::skip]
    let words = [
        0x7e006302, // v_frexp_mant_f64_e32 v[0:1], v[2:3]
        0x7e086102, // v_frexp_exp_i32_f64_e32 v4, v[2:3]
        0xbf810000, // s_endpgm
    ];
    const X: [f64; 10] = [
        f64::NAN,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        4.9e-324,
        -3.3e-310,
        1.0,
        -0.75,
        1e300,
        6.5e-200,
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 43, exec, &mut mem, |s| {
        for l in 0..64 {
            let x = X[l % 10] * if l >= 10 { 1.0 + l as f64 / 7.0 } else { 1.0 };
            s.vgpr[2][l] = x.to_bits() as u32;
            s.vgpr[3][l] = (x.to_bits() >> 32) as u32;
        }
    });
    let x = |l: usize| f64::from_bits(b.vgpr[2][l] as u64 | (b.vgpr[3][l] as u64) << 32);
    check_f64(&b, &a, 0, exec, |l| frexp_host(x(l)).0);
    check_vgpr(&b, &a, 4, exec, |l| frexp_host(x(l)).1 as u32);
}

/// FNUZ 8-bit float (gfx942) by its definition: `bias`, `mbits` mantissa bits, 0x80 = NaN.
fn fnuz(b: u32, mbits: u32, bias: i32) -> f32 {
    if b == 0x80 {
        return f32::NAN;
    }
    let e = ((b & 0x7f) >> mbits) as i32;
    let m = (b & ((1 << mbits) - 1)) as f64 / (1 << mbits) as f64;
    let mag = if e == 0 {
        m * 2f64.powi(1 - bias)
    } else {
        (1.0 + m) * 2f64.powi(e - bias)
    };
    (if b & 0x80 != 0 { -mag } else { mag }) as f32
}

/// Every FP8 and BF8 byte value (4 per lane) decoded by the gfx942 converts, with SDWA
/// byte/word selects.
#[test]
fn fp8_bf8_decode() {
    #[rustfmt::skip]
    let words = [
        0x7e00a901, // v_cvt_f32_fp8_e32 v0, v1
        0x7e04ab01, // v_cvt_f32_bf8_e32 v2, v1
        0x7e06a8f9, 0x00020601, // v_cvt_f32_fp8_sdwa v3, v1 src0_sel:BYTE_2
        0x7e08ad01, // v_cvt_pk_f32_fp8_e32 v[4:5], v1
        0x7e0caef9, 0x00050601, // v_cvt_pk_f32_bf8_sdwa v[6:7], v1 src0_sel:WORD_1
        0xbf810000, // s_endpgm
    ];
    let exec = u64::MAX;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 47, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[1][l] = u32::from_le_bytes([
                (4 * l) as u8,
                (4 * l + 1) as u8,
                (4 * l + 2) as u8,
                (4 * l + 3) as u8,
            ]);
        }
    });
    let byte = |l: usize, i: u32| (b.vgpr[1][l] >> (8 * i)) & 0xff;
    let fp8 = |x: u32| fnuz(x, 3, 8);
    let bf8 = |x: u32| fnuz(x, 2, 16);
    check_f32(&b, &a, 0, exec, |l| fp8(byte(l, 0)));
    check_f32(&b, &a, 2, exec, |l| bf8(byte(l, 0)));
    check_f32(&b, &a, 3, exec, |l| fp8(byte(l, 2)));
    check_f32(&b, &a, 4, exec, |l| fp8(byte(l, 0)));
    check_f32(&b, &a, 5, exec, |l| fp8(byte(l, 1)));
    check_f32(&b, &a, 6, exec, |l| bf8(byte(l, 2)));
    check_f32(&b, &a, 7, exec, |l| bf8(byte(l, 3)));
}
