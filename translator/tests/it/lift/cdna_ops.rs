//! gfx942/gfx950 VALU ops lifted by the functions shared with RDNA or in `lift::cdna_ops`:
//! `v_cvt_pk_u8_f32`, `v_cvt_pkaccum_u8_f32`, `v_cvt_norm_{i16,u16}_f16`,
//! `v_cvt_pknorm_{i16,u16}_{f16,f32}`, `v_qsad_pk_u16_u8`, `v_mqsad_pk_u16_u8`,
//! `v_mqsad_u32_u8` (gfx942) and `v_prng_b32`, `v_ashr_pk_{i8,u8}_i32`, `v_dot2_f32_bf16`,
//! `v_dot2c_f32_bf16` (gfx950), `v_exp/log_legacy_f32` and `v_cube{id,sc,tc,ma}_f32`
//! (both). Expected values: the CDNA4 ISA pseudocode (chapter 12) computed on the host;
//! instruction words from llvm-mc-22. `op_sel` on the VOP3P dots, which the ISA forbids and
//! llvm-mc-22 rejects, must not lift.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;
use wavejit_translator::env::ExitCode;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::lift::coverage::lift_one;

/// `f32_to_u8`: toward zero, saturated to [0, 255], NaN giving 0 (the 8-bit form of
/// `v_cvt_u32_f32`, as the lifter defines it).
fn f32_to_u8(x: f32) -> u32 {
    if x.is_nan() {
        0
    } else {
        x.clamp(0.0, 255.0) as u32
    }
}

/// `v_cvt_pk_u8_f32`: `f32_to_u8(x)` into byte `sel[1:0]` of `old`.
fn pk_u8(x: f32, sel: u32, old: u32) -> u32 {
    let sh = 8 * (sel & 3);
    old & !(0xff << sh) | f32_to_u8(x) << sh
}

/// SNORM (`signed`) or UNORM 16-bit code: clamp to [-1, 1] or [0, 1], scale by 32767 or
/// 65535, round to nearest even; NaN gives 0.
fn norm16(x: f64, signed: bool) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let (lo, s) = if signed {
        (-1.0, 32767.0)
    } else {
        (0.0, 65535.0)
    };
    let v = x.clamp(lo, 1.0) * s;
    // Round half to even.
    let r = v.round();
    let r = if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - v.signum()
    } else {
        r
    };
    (r as i32 as u32) & 0xffff
}

/// `Σ |a.b - b.b|` over the bytes, skipping bytes where `b.b == 0` with `masked`.
fn sad8(a: u32, b: u32, masked: bool) -> u32 {
    (0..4)
        .map(|i| (a >> (8 * i) & 0xff, b >> (8 * i) & 0xff))
        .filter(|&(_, y)| !masked || y != 0)
        .map(|(x, y)| x.abs_diff(y))
        .sum()
}

/// f32 values with the corner cases of the integer conversions.
const F32_EDGES: [f32; 16] = [
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    -0.0,
    -0.75,
    0.3,
    0.5,
    1.0,
    1.5,
    254.9,
    255.0,
    255.5,
    300.0,
    -3.0,
    1.0e-40,
    0.999_99,
];

/// f16 bit patterns with the corner cases of the normalizing conversions.
const F16_EDGES: [u16; 12] = [
    0x7e00, // NaN
    0x7c00, // +inf
    0xfc00, // -inf
    0x8000, // -0
    0x3c00, // 1.0
    0xbc00, // -1.0
    0x3800, // 0.5
    0xb555, // about -0.333
    0x0001, // smallest denormal
    0x4200, // 3.0
    0x3bff, // just below 1
    0x1400, // 2^-10: 32767 * x = 31.999 (rounds), 65535 * x = 63.999
];

#[test]
fn conversions_and_qsad_gfx942() {
    #[rustfmt::skip]
    let words = [
        0xd1dd000a, 0x040e0501, // v_cvt_pk_u8_f32 v10, v1, v2, v3
        0xd1f0000b, 0x00020501, // v_cvt_pkaccum_u8_f32 v11, v1, v2
        0x7e189b04, // v_cvt_norm_i16_f16_e32 v12, v4
        0x7e1a9d04, // v_cvt_norm_u16_f16_e32 v13, v4
        // v_cvt_norm_i16_f16_sdwa v14, v4 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE
        // src0_sel:WORD_1
        0x7e1c9af9, 0x00051504,
        0xd299080f, 0x00020b04, // v_cvt_pknorm_i16_f16 v15, v4, v5 op_sel:[1,0,0]
        0xd29a0010, 0x00020b04, // v_cvt_pknorm_u16_f16 v16, v4, v5
        0xd2940011, 0x00020d01, // v_cvt_pknorm_i16_f32 v17, v1, v6
        0xd2950012, 0x00020d01, // v_cvt_pknorm_u16_f32 v18, v1, v6
        0xd1e50014, 0x04220f02, // v_qsad_pk_u16_u8 v[20:21], v[2:3], v7, v[8:9]
        0xd1e60016, 0x04220f02, // v_mqsad_pk_u16_u8 v[22:23], v[2:3], v7, v[8:9]
        0xd1e70018, 0x04720f02, // v_mqsad_u32_u8 v[24:27], v[2:3], v7, v[28:31]
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut r = Rng(4242);
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 31, exec, &mut mem, |s| {
        for l in 0..64 {
            let v = r.next();
            s.vgpr[1][l] = F32_EDGES[v as usize % 16].to_bits();
            s.vgpr[6][l] = F32_EDGES[(v >> 8) as usize % 16].to_bits();
            let h = |k: u64| F16_EDGES[(v >> k) as usize % 12] as u32;
            s.vgpr[4][l] = h(16) | h(24) << 16;
            s.vgpr[5][l] = h(32) | h(40) << 16;
            // Byte data with zeros (masked SADs skip them) and 0xff.
            for reg in [2, 3, 7] {
                let w = r.next() as u32;
                s.vgpr[reg][l] = if l % 3 == 0 { w & 0xff00_ff00 } else { w };
            }
            if l % 5 == 0 {
                // Accumulators near the top: the 16-bit fields wrap.
                s.vgpr[8][l] = 0xfff0_fffe;
                s.vgpr[9][l] = 0xffff_0000;
            }
        }
    });
    let f16 = |x: u32, hi: bool| f16_half(x, hi);
    for l in 0..64 {
        let v = |reg: usize| b.vgpr[reg][l];
        let x = f32::from_bits(v(1));
        let y = f32::from_bits(v(6));
        check_lane(&b, &a, 10, l, exec, pk_u8(x, v(2), v(3)));
        check_lane(&b, &a, 11, l, exec, pk_u8(x, v(2), v(11)));
        check_lane(&b, &a, 12, l, exec, norm16(f16(v(4), false), true));
        check_lane(&b, &a, 13, l, exec, norm16(f16(v(4), false), false));
        let sdwa = norm16(f16(v(4), true), true) << 16 | v(14) & 0xffff;
        check_lane(&b, &a, 14, l, exec, sdwa);
        let pk = |lo: u32, hi: u32| lo | hi << 16;
        check_lane(
            &b,
            &a,
            15,
            l,
            exec,
            pk(
                norm16(f16(v(4), true), true),
                norm16(f16(v(5), false), true),
            ),
        );
        check_lane(
            &b,
            &a,
            16,
            l,
            exec,
            pk(
                norm16(f16(v(4), false), false),
                norm16(f16(v(5), false), false),
            ),
        );
        check_lane(
            &b,
            &a,
            17,
            l,
            exec,
            pk(norm16(x.into(), true), norm16(y.into(), true)),
        );
        check_lane(
            &b,
            &a,
            18,
            l,
            exec,
            pk(norm16(x.into(), false), norm16(y.into(), false)),
        );
        // QSAD: the window S0[8i+31:8i] of the 64-bit v[2:3] against v7, plus field i of S2.
        let s0 = u64::from(v(2)) | u64::from(v(3)) << 32;
        let win = |i: u32| (s0 >> (8 * i)) as u32;
        let s2 = u64::from(v(8)) | u64::from(v(9)) << 32;
        let field16 = |i: u32| (s2 >> (16 * i)) as u32 & 0xffff;
        for (dst, masked) in [(20usize, false), (22, true)] {
            let f = |i: u32| (sad8(win(i), v(7), masked) + field16(i)) & 0xffff;
            check_lane(&b, &a, dst, l, exec, f(0) | f(1) << 16);
            check_lane(&b, &a, dst + 1, l, exec, f(2) | f(3) << 16);
        }
        for i in 0..4u32 {
            let want = sad8(win(i), v(7), true).wrapping_add(v(28 + i as usize));
            check_lane(&b, &a, 24 + i as usize, l, exec, want);
        }
    }
    // The inputs reach the interesting cases in active lanes.
    let active = |l: usize| exec >> l & 1 != 0;
    assert!((0..64).any(|l| active(l) && f32::from_bits(b.vgpr[1][l]).is_nan()));
    assert!((0..64).any(|l| active(l) && a.vgpr[10][l] != b.vgpr[3][l]));
    assert!((0..64).any(|l| active(l) && b.vgpr[8][l] == 0xfff0_fffe));
}

/// `v_prng_b32`: `(x << 1) ^ (x[31] ? 197 : 0)` (CDNA4 ISA, V_PRNG_B32).
fn prng(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 != 0 { 197 } else { 0 }
}

/// `v_ashr_pk_*`: the two arithmetic shifts saturated to 8 bits, packed into D[15:0], D[31:16]
/// kept.
fn ashr_pk(x: u32, y: u32, s: u32, signed: bool, old: u32) -> u32 {
    let (lo, hi) = if signed { (-128, 127) } else { (0, 255) };
    let sat = |v: u32| ((v as i32 >> (s & 31)).clamp(lo, hi) as u32) & 0xff;
    old & 0xffff_0000 | sat(x) | sat(y) << 8
}

/// A bf16 (the 16 bits `h`) as f32, negated with `neg`, denormals flushed to signed zero.
fn bf16(h: u32, neg: bool) -> f32 {
    let f = f32::from_bits((h & 0xffff) << 16);
    let f = if neg { -f } else { f };
    flush(f)
}

/// Denormal f32 to zero of the same sign.
fn flush(f: f32) -> f32 {
    if f.is_subnormal() {
        f32::from_bits(f.to_bits() & 0x8000_0000)
    } else {
        f
    }
}

/// bf16 halves: ordinary values, products that round in f32, denormals, infinities, NaN.
const BF16_EDGES: [u16; 14] = [
    0x3f80, // 1.0
    0xbfc0, // -1.5
    0x4049, // 3.140625
    0x3f81, // 1.0078125
    0x3f7f, // 0.99609375
    0xc2f7, // -123.5
    0x0040, // a bf16 denormal
    0x0080, // smallest normal 2^-126
    0x7f80, // +inf
    0x7fc0, // NaN
    0x8000, // -0
    0x4b80, // 2^24
    0x3380, // 2^-24
    0x1f80, // 2^-64
];

#[test]
fn prng_ashr_pk_and_bf16_dots_gfx950() {
    #[rustfmt::skip]
    let words = [
        0x7e14b101, // v_prng_b32_e32 v10, v1
        0xd198000b, 0x00000004, // v_prng_b32_e64 v11, s4
        0xd265000c, 0x040e0501, // v_ashr_pk_i8_i32 v12, v1, v2, v3
        0xd266000d, 0x040e0501, // v_ashr_pk_u8_i32 v13, v1, v2, v3
        0xd39a400e, 0x1c1e0d05, // v_dot2_f32_bf16 v14, v5, v6, v7
        // v_dot2_f32_bf16 v15, v5, v6, v7 neg_lo:[1,0,0] neg_hi:[0,1,0] clamp
        0xd39ac20f, 0x3c1e0d05,
        0x2c200d05, // v_dot2c_f32_bf16_e32 v16, v5, v6
        0xd1160111, 0x00020d05, // v_dot2c_f32_bf16_e64 v17, |v5|, v6
        0xd39a4012, 0x1c1e0cf2, // v_dot2_f32_bf16 v18, 1.0, v6, v7
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut r = Rng(777);
    let mut mem = Mem::new(0);
    let code = Code::from_words(&words);
    let mut s = random_state(19, exec);
    s.sgpr[4] = 0x8000_0001;
    for l in 0..64 {
        let v = r.next();
        s.vgpr[1][l] = if l % 4 == 0 { 0x8000_0000 } else { v as u32 };
        s.vgpr[2][l] = if l % 4 == 1 {
            0x7fff_ffff
        } else {
            (v >> 32) as u32
        };
        s.vgpr[3][l] = r.next() as u32;
        let h = |k: u64| BF16_EDGES[(v >> k) as usize % 14] as u32;
        // Mostly ordinary values; every other lane random bf16 pairs.
        let pair = |lo: u32, hi: u32| lo | hi << 16;
        s.vgpr[5][l] = if l % 2 == 0 {
            pair(h(0), h(8))
        } else {
            r.next() as u32 & 0x7fff_3fff
        };
        s.vgpr[6][l] = if l % 2 == 0 {
            pair(h(16), h(24))
        } else {
            r.next() as u32 & 0x3fff_bfff
        };
        s.vgpr[7][l] = if l % 8 == 3 {
            0x0000_0001
        } else {
            (r.next() as u32 & 0x3fff_ffff) | 0x0080_0000
        };
        s.vgpr[16][l] = (0.25f32 * l as f32 - 3.0).to_bits();
    }
    let before = clone_state(&s);
    let t = Target::new(Gpu::GFX950);
    let res = run_on(&t, &code, &mut s, &mut mem).expect("program runs");
    assert_eq!(res, wavejit_translator::env::ExitCode::EndPgm);
    let (b, a) = (&before, &s);
    for l in 0..64 {
        let v = |reg: usize| b.vgpr[reg][l];
        check_lane(b, a, 10, l, exec, prng(v(1)));
        check_lane(b, a, 11, l, exec, prng(0x8000_0001));
        check_lane(b, a, 12, l, exec, ashr_pk(v(1), v(2), v(3), true, v(12)));
        check_lane(b, a, 13, l, exec, ashr_pk(v(1), v(2), v(3), false, v(13)));
        if exec >> l & 1 == 0 {
            for reg in 14..=18 {
                assert_eq!(a.vgpr[reg][l], b.vgpr[reg][l], "v{reg} lane {l} inactive");
            }
            continue;
        }
        let (x, y) = (v(5), v(6));
        let c = flush(f32::from_bits(v(7)));
        // tmp = a0*b0; tmp += a1*b1; tmp += c (f32, nearest even), result flushed.
        let dot = |a0: f32, b0: f32, a1: f32, b1: f32, acc: Option<f32>| {
            let t = match acc {
                Some(d) => d + a0 * b0,
                None => a0 * b0,
            };
            t + a1 * b1
        };
        let d14 = flush(
            dot(
                bf16(x, false),
                bf16(y, false),
                bf16(x >> 16, false),
                bf16(y >> 16, false),
                None,
            ) + c,
        );
        same32(a.vgpr[14][l], d14, &format!("v14 lane {l}"));
        // neg_lo[0] negates S0's low element, neg_hi[1] S1's high one.
        let d15 = flush(
            dot(
                bf16(x, true),
                bf16(y, false),
                bf16(x >> 16, false),
                bf16(y >> 16, true),
                None,
            ) + c,
        );
        same32(
            a.vgpr[15][l],
            // Clamp is max(min) by maxNum/minNum: NaN becomes 0.
            if d15.is_nan() {
                0.0
            } else {
                d15.clamp(0.0, 1.0)
            },
            &format!("v15 lane {l}"),
        );
        let d = flush(f32::from_bits(v(16)));
        let d16 = flush(dot(
            bf16(x, false),
            bf16(y, false),
            bf16(x >> 16, false),
            bf16(y >> 16, false),
            Some(d),
        ));
        same32(a.vgpr[16][l], d16, &format!("v16 lane {l}"));
        // e64: ABS[0] is NEG_HI[0]: S0's high element negated (not made positive).
        let d = flush(f32::from_bits(v(17)));
        let d17 = flush(dot(
            bf16(x, false),
            bf16(y, false),
            bf16(x >> 16, true),
            bf16(y >> 16, false),
            Some(d),
        ));
        same32(a.vgpr[17][l], d17, &format!("v17 lane {l}"));
        // The inline constant 1.0 is bf16 0x3f80 in both elements.
        let d18 = flush(dot(1.0, bf16(y, false), 1.0, bf16(y >> 16, false), None) + c);
        same32(a.vgpr[18][l], d18, &format!("v18 lane {l}"));
    }
    let active = |l: usize| exec >> l & 1 != 0;
    assert!((0..64).any(|l| active(l) && b.vgpr[1][l] >> 31 != 0));
    assert!((0..64).any(|l| active(l) && f32::from_bits(a.vgpr[14][l]).is_nan()));
    assert!((0..64).any(|l| active(l) && a.vgpr[15][l] != 0 && a.vgpr[15][l] != 0x3f80_0000));
}

/// "DOT instructions must not use SDWA or OPSEL" (CDNA3 ISA, L1714 of the digest's source) and
/// llvm-mc-22 rejects `op_sel`/`op_sel_hi` on the VOP3P dots: such words (set bit by bit from
/// the default forms llvm-mc-22 assembles) are not executed; the default forms are.
#[test]
fn dot_op_sel_is_not_lifted() {
    let le = |w: [u32; 2]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        let t = Target::new(gpu);
        // Default forms (llvm-mc-22 -mcpu=gfx942/gfx950): v_dot2_f32_f16, v_dot2_i32_i16,
        // v_dot4_u32_u8, v_dot8_u32_u4 v0, v1, v2, v3.
        for op in [0xa3u32, 0xa6, 0xa9, 0xab] {
            let w = [0xd3804000 | op << 16, 0x1c0e0501];
            assert_eq!(
                lift_one(&t, &le(w)),
                Ok(()),
                "{gpu:?} op {op:#x} default form"
            );
            // op_sel[0] (word 0 bit 11), op_sel_hi[0] cleared (word 1 bit 59).
            for bad in [[w[0] | 1 << 11, w[1]], [w[0], w[1] & !(1 << 27)]] {
                // Rejected by the lifter, or already by the decoder where LLVM's generated
                // fixed-bit masks forbid the bit for this opcode.
                let e = lift_one(&t, &le(bad)).expect_err("op_sel on a dot product");
                assert!(
                    e.contains("OPSEL") || e.contains("must not differ"),
                    "{gpu:?} op {op:#x}: {e}"
                );
            }
        }
    }
    let t = Target::new(Gpu::GFX950);
    // v_dot2_f32_bf16 v0, v1, v2, v3 (llvm-mc-22 -mcpu=gfx950) and with op_sel[1] set.
    assert_eq!(lift_one(&t, &le([0xd39a4000, 0x1c0e0501])), Ok(()));
    let e = lift_one(&t, &le([0xd39a5000, 0x1c0e0501])).expect_err("op_sel on v_dot2_f32_bf16");
    assert!(e.contains("OPSEL"), "{e}");
}

/// `v_exp_legacy_f32` / `v_log_legacy_f32` (gfx942, gfx950): `D.f = pow(2.0, S0.f)` and
/// `D.f = log2(S0.f)` (the Sea Islands definition, the only one there is), worked on the host
/// in f64 and rounded to f32, plus exact cases by hand; VOP3 with neg and clamp.
#[test]
fn legacy_exp_log() {
    #[rustfmt::skip]
    let words = [
        0x7e149701, // v_exp_legacy_f32_e32 v10, v1
        0x7e169902, // v_log_legacy_f32_e32 v11, v2
        0xd18b800c, 0x20000101, // v_exp_legacy_f32_e64 v12, -v1 clamp
        0xbf810000, // s_endpgm
    ];
    // (x, 2^x) and (y, log2 y) worked by hand, then values for the host formula.
    let exact_exp = [
        (3.0f32, 8.0f32),
        (-1.0, 0.5),
        (0.0, 1.0),
        (f32::NEG_INFINITY, 0.0),
    ];
    let exact_log = [
        (8.0f32, 3.0f32),
        (0.25, -2.0),
        (1.0, 0.0),
        (0.0, f32::NEG_INFINITY),
    ];
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        let exec = EXEC_PARTIAL;
        let mut r = Rng(77);
        let mut s = random_state(5, exec);
        s.mode = 0xf0; // round to nearest, denormals kept
        for l in 0..64 {
            let v = r.next();
            let (x, y) = match l % 8 {
                0..=3 => (exact_exp[l % 4].0, exact_log[l % 4].0),
                _ => (
                    (v % 20_000) as f32 / 100.0 - 100.0,
                    ((v >> 20) % 1_000_000 + 1) as f32 / 997.0,
                ),
            };
            s.vgpr[1][l] = x.to_bits();
            s.vgpr[2][l] = y.to_bits();
        }
        let b = clone_state(&s);
        let code = Code::from_words(&words);
        let t = Target::new(gpu);
        assert_eq!(
            run_on(&t, &code, &mut s, &mut Mem::new(0)),
            Ok(ExitCode::EndPgm)
        );
        let a = s;
        for l in 0..64 {
            let (x, y) = (f32::from_bits(b.vgpr[1][l]), f32::from_bits(b.vgpr[2][l]));
            let (e, g) = if l % 8 < 4 {
                (exact_exp[l % 4].1, exact_log[l % 4].1)
            } else {
                (f64::from(x).exp2() as f32, f64::from(y).log2() as f32)
            };
            check_lane(&b, &a, 10, l, exec, e.to_bits());
            check_lane(&b, &a, 11, l, exec, g.to_bits());
            let c = (f64::from(-x).exp2() as f32).clamp(0.0, 1.0);
            check_lane(&b, &a, 12, l, exec, c.to_bits());
        }
    }
}

/// `v_cubeid/cubesc/cubetc/cubema_f32` on gfx942/gfx950, worked by hand from the RDNA4 ISA
/// 16.12 pseudocode (the CDNA4 chapters name these ops only in an opcode table): the major
/// axis is z when |z| >= |x| and |z| >= |y|, else y when |y| >= |x|, else x. GFX9 follows
/// MODE.FP_DENORM (wavejit's stated assumption, `rdna_ops::cube`): with denormals flushed the
/// results are RDNA's; with denormals kept a denormal coordinate takes part as itself.
/// Words from llvm-mc-22 (`-mcpu=gfx942` and `gfx950` encode them alike).
#[test]
fn cube_map_ops_follow_mode_denormals() {
    #[rustfmt::skip]
    let words = [
        0xd1c4000a, 0x040e0501, // v_cubeid_f32 v10, v1, v2, v3
        0xd1c5000b, 0x040e0501, // v_cubesc_f32 v11, v1, v2, v3
        0xd1c6000c, 0x040e0501, // v_cubetc_f32 v12, v1, v2, v3
        0xd1c7000d, 0x040e0501, // v_cubema_f32 v13, v1, v2, v3
        0xd1c5040e, 0x240e0501, // v_cubesc_f32 v14, -v1, v2, |v3|
        0xd1c7800f, 0x040e0501, // v_cubema_f32 v15, v1, v2, v3 clamp
        0xbf810000, // s_endpgm
    ];
    let den = f32::from_bits(1);
    let flushed = CUBE_ROWS;
    // The two denormal rows with denormals kept: |den| > |±0| makes x major in row 7
    // (x > 0: sc = -z = +0, tc = -y = -0, ma = 2 den; v14: -x < 0, sc = |z| = +0); row 8
    // keeps y and z as they are (sc = -z, tc = -y; v14: -3 < 0, sc = |z|).
    #[rustfmt::skip]
    let kept: [[f32; 5]; 2] = [
        [0.0, 0.0, -0.0, f32::from_bits(2), 0.0],
        [0.0, -4.0e-39, -den, 6.0, 4.0e-39],
    ];
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        for mode in [0xf0u32, 0x00] {
            let exec = EXEC_PARTIAL;
            let mut s = random_state(41, exec);
            s.mode = mode;
            for l in 0..64 {
                for k in 0..3 {
                    s.vgpr[1 + k][l] = flushed[l % 9].0[k].to_bits();
                }
            }
            let b = clone_state(&s);
            let code = Code::from_words(&words);
            let t = Target::new(gpu);
            assert_eq!(
                run_on(&t, &code, &mut s, &mut Mem::new(0)),
                Ok(ExitCode::EndPgm)
            );
            for l in 0..64 {
                let row = l % 9;
                let want = if mode == 0xf0 && row >= 7 {
                    kept[row - 7]
                } else {
                    flushed[row].1
                };
                for k in 0..5 {
                    check_lane(&b, &s, 10 + k, l, exec, want[k].to_bits());
                }
                // Clamp to [0, 1] (the zero results' sign is left out of this check).
                if want[3] != 0.0 {
                    let c = want[3].clamp(0.0, 1.0);
                    check_lane(&b, &s, 15, l, exec, c.to_bits());
                }
            }
        }
    }
}

/// MODE.VSKIP (GFX9 MODE bit 28, CDNA4 ISA 3.4: "1 = skip (do not execute) any vector
/// instructions: valu, vmem, lds"), set by `s_setvskip` (`VSKIP = S0[S1[4:0]]`) or by
/// `s_setreg` of MODE: the skipped VALU, LDS and global instructions leave registers and
/// memory alone (their LDS and global addresses are random, so executing them would fault),
/// scalar instructions still run, and `s_getreg` of MODE reads VSKIP. Words from llvm-mc-22.
#[test]
fn vskip_skips_vector_instructions() {
    #[rustfmt::skip]
    let words = [
        0xbf100100, // s_setvskip s0, s1            (s0 = 0b100, s1 = 34: bit 2 = 1)
        0x7e020287, // v_mov_b32_e32 v1, 7           skipped
        0x02060301, // v_add_f32_e32 v3, v1, v1      skipped
        0xd81a0000, 0x00000504, // ds_write_b32 v4, v5             skipped
        0xdc708000, 0x007f0506, // global_store_dword v[6:7], v5, off skipped
        0xbe850089, // s_mov_b32 s5, 9               runs
        0xb886f801, // s_getreg_b32 s6, hwreg(HW_REG_MODE)
        0xbf100200, // s_setvskip s0, s2            (s2 = 0: bit 0 = 0)
        0x7e040285, // v_mov_b32_e32 v2, 5           runs
        0xba000701, 0x00000001, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1
        0x7e100286, // v_mov_b32_e32 v8, 6           skipped
        0xb887f801, // s_getreg_b32 s7, hwreg(HW_REG_MODE)
        0xba000701, 0x00000000, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 0
        0x7e120284, // v_mov_b32_e32 v9, 4           runs
        0xbf810000, // s_endpgm
    ];
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        let exec = EXEC_PARTIAL;
        let mut s = random_state(29, exec);
        s.mode = 0xf0;
        s.sgpr[0] = 0b100;
        s.sgpr[1] = 34; // S1[4:0] = 2
        s.sgpr[2] = 0;
        let b = clone_state(&s);
        let code = Code::from_words(&words);
        let t = Target::new(gpu);
        let mut mem = Mem::new(0);
        assert_eq!(run_on(&t, &code, &mut s, &mut mem), Ok(ExitCode::EndPgm));
        for l in 0..64 {
            for r in [1, 3, 8] {
                check_lane(&b, &s, r, l, 0, 0); // unchanged in every lane
            }
            check_lane(&b, &s, 2, l, exec, 5);
            check_lane(&b, &s, 9, l, exec, 4);
        }
        assert_eq!(s.sgpr[5], 9);
        assert_eq!(s.sgpr[6], 0xf0 | 1 << 28, "MODE with VSKIP set");
        assert_eq!(s.sgpr[7], 0xf0 | 1 << 28, "MODE with VSKIP set by s_setreg");
        assert_eq!(s.mode, 0xf0, "VSKIP cleared at the end");
    }
}

/// `s_sethalt 1` and `s_sendmsghalt` halt the wave until the host or a debugger resumes it
/// (CDNA4 ISA 3.4, STATUS.HALT); wavejit has neither, so they are refused with that reason
/// and the instruction's text, while `s_sethalt 0` (resume a running wave) has no effect.
#[test]
fn halting_is_refused_with_its_reason() {
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        let t = Target::new(gpu);
        for (w, text) in [
            (0xbf8d0001u32, "s_sethalt 1"),
            (0xbf910001, "s_sendmsghalt sendmsg(MSG_INTERRUPT)"),
        ] {
            let e = lift_one(&t, &w.to_le_bytes()).expect_err("a halt must not lift");
            assert!(e.contains(text) && e.contains("halts the wave"), "{e}");
        }
        assert_eq!(lift_one(&t, &0xbf8d0000u32.to_le_bytes()), Ok(()));
    }
}
