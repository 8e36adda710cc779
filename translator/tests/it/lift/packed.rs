//! Packed math (VOP3P): f16 and u16/i16 pairs with `op_sel`/`op_sel_hi`/`neg_lo`/`neg_hi`,
//! packed f32 on register pairs, the mixed-precision `v_fma_mix*`, and `v_fma_f16`.
//! Host references round once from f64 (exact for these f16 operations) with the `half`
//! crate; NaN results are checked as "some NaN" per half.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

fn check_pk(
    a: &wavejit_translator::wave::WaveState,
    reg: usize,
    exec: u64,
    f: impl Fn(usize) -> (f64, f64),
) {
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (lo, hi) = f(l);
        let got = a.vgpr[reg][l];
        same16(got & 0xffff, f16_bits(lo), &format!("v{reg} lane {l} lo"));
        same16(got >> 16, f16_bits(hi), &format!("v{reg} lane {l} hi"));
    }
}

#[test]
fn packed_and_mixed_precision() {
    #[rustfmt::skip]
    let words = [
        0xd38f4000, 0x18020501, // v_pk_add_f16 v0, v1, v2
        0xd3904803, 0x10020501, // v_pk_mul_f16 v3, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]
        0xd3924204, 0x38020501, // v_pk_max_f16 v4, v1, v2 neg_lo:[1,0] neg_hi:[0,1]
        0xd38e4005, 0x1c1a0501, // v_pk_fma_f16 v5, v1, v2, v6
        0xd38a4007, 0x18020501, // v_pk_add_u16 v7, v1, v2
        0xd3844008, 0x18020501, // v_pk_lshlrev_b16 v8, v1, v2
        0xd3864009, 0x18020501, // v_pk_ashrrev_i16 v9, v1, v2
        0xd3a0400a, 0x0c2e0501, // v_fma_mix_f32 v10, v1, v2, v11 op_sel_hi:[1,0,1]
        0xd3a0080c, 0x1c2e0501, // v_fma_mix_f32 v12, v1, v2, v11 op_sel:[1,0,0] op_sel_hi:[1,1,0]
        0xd3a1400d, 0x1c2e0501, // v_fma_mixlo_f16 v13, v1, v2, v11 op_sel_hi:[1,1,1]
        0xd3b0400e, 0x1c522510, // v_pk_fma_f32 v[14:15], v[16:17], v[18:19], v[20:21]
        0xd3b14016, 0x10022510, // v_pk_mul_f32 v[22:23], v[16:17], v[18:19] op_sel_hi:[0,1]
        0xd2060018, 0x042e0501, // v_fma_f16 v24, v1, v2, v11
        0xd38f4019, 0x1801e501, // v_pk_add_f16 v25, v1, 1.0
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut r = Rng(8);
    // Finite f16 pairs of moderate magnitude, plus NaN/Inf/zero/denormal lanes.
    let mut half_val = move |l: usize| -> u32 {
        match l % 8 {
            0 => 0x7e00,
            1 => 0x8000,
            2 => 0x7c00,
            3 => 0x0003,
            _ => {
                let m = r.next() as u32 & 0x83ff;
                m | (((r.next() as u32 % 20) + 5) << 10)
            }
        }
    };
    let (b, a) = run_words(&words, 9, exec, &mut mem, |s| {
        for l in 0..64 {
            for reg in [1, 2, 6] {
                s.vgpr[reg][l] = half_val(l + reg) | half_val(l * 3 + reg) << 16;
            }
            let f = (l as f32 - 20.0) * 0.37;
            s.vgpr[2][l] = if l % 2 == 0 {
                s.vgpr[2][l]
            } else {
                f.to_bits()
            };
            s.vgpr[11][l] = if l % 3 == 0 {
                (f * 1.5).to_bits()
            } else {
                s.vgpr[6][l]
            };
            for (i, reg) in [16, 17, 18, 19, 20, 21].into_iter().enumerate() {
                s.vgpr[reg][l] = ((l as f32 + i as f32) * 1.25 - 30.0).to_bits();
            }
        }
    });
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let f = |r: usize, l: usize| f32::from_bits(b.vgpr[r][l]);
    check_pk(&a, 0, exec, |l| {
        (
            f16_half(v(1, l), false) + f16_half(v(2, l), false),
            f16_half(v(1, l), true) + f16_half(v(2, l), true),
        )
    });
    check_pk(&a, 3, exec, |l| {
        (
            f16_half(v(1, l), true) * f16_half(v(2, l), false),
            f16_half(v(1, l), false) * f16_half(v(2, l), true),
        )
    });
    check_pk(&a, 4, exec, |l| {
        (
            maxnum64(-f16_half(v(1, l), false), f16_half(v(2, l), false)),
            maxnum64(f16_half(v(1, l), true), -f16_half(v(2, l), true)),
        )
    });
    check_pk(&a, 5, exec, |l| {
        let fma = |hi| f16_half(v(1, l), hi).mul_add(f16_half(v(2, l), hi), f16_half(v(6, l), hi));
        (fma(false), fma(true))
    });
    let u16s = |x: u32| (x & 0xffff, x >> 16);
    check_vgpr(&b, &a, 7, exec, |l| {
        let (a0, a1) = u16s(v(1, l));
        let (b0, b1) = u16s(v(2, l));
        (a0 + b0) & 0xffff | ((a1 + b1) & 0xffff) << 16
    });
    check_vgpr(&b, &a, 8, exec, |l| {
        let (a0, a1) = u16s(v(1, l));
        let (b0, b1) = u16s(v(2, l));
        (b0 << (a0 & 15)) & 0xffff | ((b1 << (a1 & 15)) & 0xffff) << 16
    });
    check_vgpr(&b, &a, 9, exec, |l| {
        let (a0, a1) = u16s(v(1, l));
        let (b0, b1) = u16s(v(2, l));
        let sh = |x: u32, s: u32| ((x as u16 as i16) >> (s & 15)) as u16 as u32;
        sh(b0, a0) | sh(b1, a1) << 16
    });
    let same32 = |reg: usize, want: &dyn Fn(usize) -> f32| {
        for l in (0..64).filter(|&l| exec >> l & 1 != 0) {
            let (g, w) = (a.vgpr[reg][l], want(l));
            if w.is_nan() {
                assert!(f32::from_bits(g).is_nan(), "v{reg} lane {l}");
            } else {
                assert_eq!(
                    g,
                    w.to_bits(),
                    "v{reg} lane {l}: got {}, want {w}",
                    f32::from_bits(g)
                );
            }
        }
    };
    same32(10, &|l| {
        (f16_half(v(1, l), false) as f32).mul_add(f(2, l), f16_half(v(11, l), false) as f32)
    });
    same32(12, &|l| {
        (f16_half(v(1, l), true) as f32).mul_add(f16_half(v(2, l), false) as f32, f(11, l))
    });
    for l in (0..64).filter(|&l| exec >> l & 1 != 0) {
        let w = (f16_half(v(1, l), false) as f32).mul_add(
            f16_half(v(2, l), false) as f32,
            f16_half(v(11, l), false) as f32,
        );
        same16(
            a.vgpr[13][l] & 0xffff,
            f16_bits(w as f64),
            &format!("v13 lane {l}"),
        );
        assert_eq!(
            a.vgpr[13][l] >> 16,
            b.vgpr[13][l] >> 16,
            "v13 lane {l} high half kept"
        );
        let w =
            f16_half(v(1, l), false).mul_add(f16_half(v(2, l), false), f16_half(v(11, l), false));
        same16(a.vgpr[24][l], f16_bits(w), &format!("v24 lane {l}"));
        assert_eq!(
            a.vgpr[24][l] >> 16,
            b.vgpr[24][l] >> 16,
            "v24 lane {l}: high half kept (GFX9 v_fma_f16 has OPSEL; CDNA4 ISA ch. 12)"
        );
    }
    same32(14, &|l| f(16, l).mul_add(f(18, l), f(20, l)));
    same32(15, &|l| f(17, l).mul_add(f(19, l), f(21, l)));
    same32(22, &|l| f(16, l) * f(18, l));
    same32(23, &|l| f(16, l) * f(19, l));
    check_pk(&a, 25, exec, |l| {
        (
            f16_half(v(1, l), false) + 1.0,
            f16_half(v(1, l), true) + 1.0,
        )
    });
}

/// `x` with a denormal replaced by zero of its sign.
fn flush32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

#[test]
fn packed_f32_follows_the_f32_denormal_mode() {
    // MODE.FP_DENORM's f32 field governs v_pk_{add,mul,fma}_f32 like every f32 VALU op
    // (CDNA4 ISA 6.4 names V_DOT2 as the only exception). Host reference: inputs flushed
    // unless allowed in, one f32 rounding, the result flushed unless allowed out.
    #[rustfmt::skip]
    let words = [
        0xd3b2400e, 0x18022510, // v_pk_add_f32 v[14:15], v[16:17], v[18:19]
        0xd3b14016, 0x18022510, // v_pk_mul_f32 v[22:23], v[16:17], v[18:19]
        0xd3b04018, 0x1c522510, // v_pk_fma_f32 v[24:25], v[16:17], v[18:19], v[20:21]
        0xbf810000,             // s_endpgm
    ];
    let min = f32::MIN_POSITIVE;
    // Operand triples (a, b, c): denormal inputs, and normal inputs whose sum, product or
    // fma result is denormal.
    let cases: [(f32, f32, f32); 8] = [
        (1e-40, 2.0, 3e-39),
        (-7e-39, 1.5, -1e-45),
        (min * 1.5, -min, 0.0),
        (1e-20, 1e-20, 1e-39),
        (-1e-20, 3e-19, min),
        (min, 0.25, -min * 0.5),
        (1.75, -2.5, 3.0),
        (1e-41, -1e-41, 5e-40),
    ];
    let exec = EXEC_PARTIAL;
    for den in 0..4u32 {
        let mode = (DEFAULT_MODE & !0x30) | den << 4;
        let mut mem = Mem::new(0);
        let (b, a) = run_words(&words, 40 + den as u64, exec, &mut mem, |s| {
            s.mode = mode;
            for l in 0..64 {
                let (x, y, z) = cases[l % 8];
                let (x2, y2, z2) = cases[(l / 8) % 8];
                let vals = [x, x2, y, y2, z, z2];
                for (reg, v) in (16..22).zip(vals) {
                    s.vgpr[reg][l] = v.to_bits();
                }
            }
        });
        let fin = |bits: u32| {
            let x = f32::from_bits(bits);
            if den & 1 != 0 {
                x
            } else {
                flush32(x)
            }
        };
        let fout = |x: f32| if den & 2 != 0 { x } else { flush32(x) }.to_bits();
        let v = |reg: usize, l: usize| fin(b.vgpr[reg][l]);
        for half in 0..2 {
            check_vgpr(&b, &a, 14 + half, exec, |l| {
                fout(v(16 + half, l) + v(18 + half, l))
            });
            check_vgpr(&b, &a, 22 + half, exec, |l| {
                fout(v(16 + half, l) * v(18 + half, l))
            });
            check_vgpr(&b, &a, 24 + half, exec, |l| {
                fout(v(16 + half, l).mul_add(v(18 + half, l), v(20 + half, l)))
            });
        }
    }
}
