//! Output modifiers and integer clamp on gfx942 (CDNA3 ISA 6.2.2, 6.5): OMOD on f16 results
//! (ignored under MODE.IEEE), integer clamp (saturation) on 32-bit adds/subs with carry-out
//! and on packed 16-bit integer ops, signed 16/32-bit add/sub and 16-bit min3/max3/med3, and
//! the typed buffer load into LDS. Expected values are computed on the host from the ISA's
//! definitions (f64 arithmetic rounded with `half`).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

/// MODE with IEEE clear (OMOD active), f16 output denormals flushed (input kept), f32
/// denormals kept, DX10_CLAMP set, round to nearest even.
const MODE_OMOD: u32 = 0x170;

/// f16 bits with output flushing: a denormal becomes a zero of the same sign.
fn flush16(bits: u32, flush: bool) -> u32 {
    if flush && bits & 0x7c00 == 0 {
        bits & 0x8000
    } else {
        bits
    }
}

/// OMOD `m` and clamp applied to the f16 bits `r` as the ISA orders them: `r * m` rounded to
/// f16 (flushed), then clamped to [0, 1] (a NaN becomes 0 under DX10_CLAMP).
fn omod_clamp(r: u32, m: f64, clamp: bool, flush: bool) -> u32 {
    let r = flush16(f16_bits(f16_half(r, false) * m), flush);
    let x = f16_half(r, false);
    if !clamp {
        r
    } else if x.is_nan() {
        0
    } else {
        f16_bits(maxnum64(x, 0.0).min(1.0))
    }
}

#[test]
fn f16_omod_and_clamp() {
    #[rustfmt::skip]
    let words = [
        0xd11f0000, 0x08020501, // v_add_f16_e64 v0, v1, v2 mul:2
        0xd1228003, 0x18020501, // v_mul_f16_e64 v3, v1, v2 clamp div:2
        0xd2060004, 0x14160501, // v_fma_f16 v4, v1, v2, v5 mul:4
        0xd12d0006, 0x08020501, // v_max_f16_e64 v6, v1, v2 mul:2
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut r = Rng(31);
    // Moderate magnitudes (2^-5..2^6, no denormal products), plus NaN, ±Inf, ±0, values that
    // overflow when multiplied, and cancelling pairs whose sum is an f16 denormal.
    let mut val = move |l: usize, reg: usize| -> u32 {
        let noise = r.next() as u32;
        match (l + reg) % 11 {
            0 => 0x7e00,
            1 => 0x8000,
            2 => 0xfc00,
            3 => 0x7000 | noise & 0x3ff, // 2^13 * (1 + f)
            _ => (noise & 0x83ff) | ((noise >> 16) % 11 + 10) << 10,
        }
    };
    let mut inputs = vec![[0u32; 3]; 64];
    for (l, slot) in inputs.iter_mut().enumerate() {
        *slot = [val(l, 1), val(l, 2), val(l, 5)];
        if l % 13 == 5 {
            // b = -(a - ulp): a + b = 2^-24 · k, a denormal.
            slot[0] = 0x0401;
            slot[1] = 0x8400;
        }
    }
    for (mode, omod) in [(MODE_OMOD, true), (DEFAULT_MODE, false)] {
        let mut mem = Mem::new(0);
        let (b, a) = run_words(&words, 5, exec, &mut mem, |s| {
            s.mode = mode;
            for l in 0..64 {
                // The high halves keep their random bits: f16 ops read the low half.
                s.vgpr[1][l] = s.vgpr[1][l] & 0xffff_0000 | inputs[l][0];
                s.vgpr[2][l] = s.vgpr[2][l] & 0xffff_0000 | inputs[l][1];
                s.vgpr[5][l] = s.vgpr[5][l] & 0xffff_0000 | inputs[l][2];
            }
        });
        let flush = omod;
        let m = |x: f64| if omod { x } else { 1.0 };
        for l in 0..64 {
            let what = |reg: usize| format!("mode {mode:#x} v{reg} lane {l}");
            if exec >> l & 1 == 0 {
                for reg in [0, 3, 4, 6] {
                    assert_eq!(a.vgpr[reg][l], b.vgpr[reg][l], "{}", what(reg));
                }
                continue;
            }
            let x = f16_half(inputs[l][0], false);
            let y = f16_half(inputs[l][1], false);
            let z = f16_half(inputs[l][2], false);
            // GFX9 writes zeros above a 16-bit result, except v_fma_f16 (v4: opcode 0x206 has
            // OPSEL and keeps D[31:16], CDNA4 ISA ch. 12).
            let check = |reg: usize, want: u32| {
                let hi = if reg == 4 { b.vgpr[reg][l] >> 16 } else { 0 };
                assert_eq!(a.vgpr[reg][l] >> 16, hi, "{}", what(reg));
                same16(a.vgpr[reg][l] & 0xffff, want, &what(reg));
            };
            let sum = flush16(f16_bits(x + y), flush);
            check(0, omod_clamp(sum, m(2.0), false, flush));
            let prod = flush16(f16_bits(x * y), flush);
            check(3, omod_clamp(prod, m(0.5), true, flush));
            // x * y is exact in f64, and so is the sum with z for these magnitudes.
            let fma = flush16(f16_bits(x * y + z), flush);
            check(4, omod_clamp(fma, m(4.0), false, flush));
            check(
                6,
                omod_clamp(f16_bits(maxnum64(x, y)), m(2.0), false, flush),
            );
        }
        // The data reach every case: a NaN clamped, an overflow, a flushed denormal sum.
        assert!((0..64).any(|l| exec >> l & 1 != 0 && l % 13 == 5));
    }
}

/// Saturates `v` to `[lo, hi]`.
fn sat(v: i64, lo: i64, hi: i64) -> u32 {
    v.clamp(lo, hi) as u32
}

#[test]
fn integer_clamp_saturates() {
    #[rustfmt::skip]
    let words = [
        0xd119940a, 0x00021308, // v_add_co_u32_e64 v10, s[20:21], v8, v9 clamp
        0xd11a960b, 0x00021308, // v_sub_co_u32_e64 v11, s[22:23], v8, v9 clamp
        0xd11c980c, 0x007a1308, // v_addc_co_u32_e64 v12, s[24:25], v8, v9, s[30:31] clamp
        0xd11e9a0d, 0x007a1308, // v_subbrev_co_u32_e64 v13, s[26:27], v8, v9, s[30:31] clamp
        0xd38ac00e, 0x18021308, // v_pk_add_u16 v14, v8, v9 clamp
        0xd38bc00f, 0x18021308, // v_pk_sub_u16 v15, v8, v9 clamp
        0xd382c010, 0x18021308, // v_pk_add_i16 v16, v8, v9 clamp
        0xd383c811, 0x10021308, // v_pk_sub_i16 v17, v8, v9 op_sel:[1,0] op_sel_hi:[0,1] clamp
        0xd389c012, 0x1c4e1308, // v_pk_mad_u16 v18, v8, v9, v19 clamp
        0xd380c014, 0x1c4e1308, // v_pk_mad_i16 v20, v8, v9, v19 clamp
        0xd387c015, 0x18021308, // v_pk_max_i16 v21, v8, v9 clamp
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let edges = [0u32, 1, 0x7fff, 0x8000, 0xffff, 0x8001, 0x00ff, 0x7ffe];
    let mut r = Rng(77);
    let mut half = move |l: usize| -> u32 {
        let v = r.next() as u32;
        if l.is_multiple_of(3) {
            edges[(v >> 8) as usize % 8]
        } else {
            v & 0xffff
        }
    };
    let mut ins = vec![[0u32; 3]; 64];
    for l in 0..64 {
        for i in 0..3 {
            ins[l][i] = half(l + i) | half(l * 7 + i) << 16;
        }
        if l % 5 == 0 {
            // 32-bit edges: sums that carry, differences that borrow.
            ins[l][0] = 0xffff_ffe0 + l as u32 % 32;
            ins[l][1] = 0x20 + l as u32 % 7;
        }
    }
    let carry_in = 0x9a3c_5e7f_0f1e_2d3cu64;
    let (b, a) = run_words(&words, 21, exec, &mut mem, |s| {
        s.sgpr[30] = carry_in as u32;
        s.sgpr[31] = (carry_in >> 32) as u32;
        for l in 0..64 {
            s.vgpr[8][l] = ins[l][0];
            s.vgpr[9][l] = ins[l][1];
            s.vgpr[19][l] = ins[l][2];
        }
    });
    let u = |x: u32, h: usize| i64::from(x >> (16 * h) & 0xffff);
    let i = |x: u32, h: usize| i64::from((x >> (16 * h)) as u16 as i16);
    let pk = |f: &dyn Fn(usize) -> u32| f(0) & 0xffff | (f(1) & 0xffff) << 16;
    let mut masks = [0u64; 4];
    let (umax, smin, smax) = (0xffff, -0x8000, 0x7fff);
    for l in (0..64).filter(|l| exec >> l & 1 != 0) {
        let [x, y, z] = ins[l];
        let (x64, y64) = (i64::from(x), i64::from(y));
        let cin = (carry_in >> l & 1) as i64;
        let sums = [x64 + y64, x64 - y64, x64 + y64 + cin, y64 - x64 - cin];
        for (k, s) in sums.into_iter().enumerate() {
            let want = sat(s, 0, u32::MAX as i64);
            check_lane(&b, &a, 10 + k, l, exec, want);
            masks[k] |= u64::from(!(0..=u32::MAX as i64).contains(&s)) << l;
        }
        let want = [
            (14, pk(&|h| sat(u(x, h) + u(y, h), 0, umax))),
            (15, pk(&|h| sat(u(x, h) - u(y, h), 0, umax))),
            (16, pk(&|h| sat(i(x, h) + i(y, h), smin, smax))),
            (17, pk(&|h| sat(i(x, 1 - h) - i(y, h), smin, smax))),
            (18, pk(&|h| sat(u(x, h) * u(y, h) + u(z, h), 0, umax))),
            (20, pk(&|h| sat(i(x, h) * i(y, h) + i(z, h), smin, smax))),
            (21, pk(&|h| i(x, h).max(i(y, h)) as u32)),
        ];
        for (reg, w) in want {
            check_lane(&b, &a, reg, l, exec, w);
        }
    }
    for (k, m) in masks.into_iter().enumerate() {
        let got = u64::from(a.sgpr[20 + 2 * k]) | u64::from(a.sgpr[21 + 2 * k]) << 32;
        assert_eq!(got, m, "carry-out of instruction {k}");
        assert!(m != 0, "no lane saturates in instruction {k}");
    }
}

#[test]
fn typed_buffer_load_into_lds() {
    #[rustfmt::skip]
    let words = [
        0xbefc00ff, 0x00000100, // s_mov_b32 m0, 0x100
        0xe0011008, 0x80020004, // buffer_load_format_x v4, s[8:11], 0 offen offset:8 lds
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xbf810000, // s_endpgm
    ];
    const G: u64 = 0x40_0000;
    let exec = EXEC_PARTIAL;
    let mut rng = Rng(12);
    let g: Vec<u8> = (0..512).map(|_| rng.next() as u8).collect();
    let mut mem = Mem::new(0x400);
    for b in mem.lds.iter_mut() {
        *b = rng.next() as u8;
    }
    mem.add(G, g.clone());
    let lds0 = mem.lds.clone();
    let (b, a) = run_words(&words, 3, exec, &mut mem, |s| {
        // V#: stride 0, 200 bytes, 8_8_8_8 UNORM, DST_SEL_X = R (4).
        s.sgpr[8] = G as u32;
        s.sgpr[9] = (G >> 32) as u32;
        s.sgpr[10] = 200;
        s.sgpr[11] = 4 | 10 << 15;
        for l in 0..64 {
            s.vgpr[4][l] = 4 * l as u32;
        }
    });
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    let mut want = lds0.clone();
    for l in (0..64).filter(|l| exec >> l & 1 != 0) {
        // Element at 4l + 8 (the instruction offset applies to the LDS address too); in
        // range when 4l + 8 + 4 <= 200, else it reads 0.
        let o = 4 * l + 8;
        let x = if o + 4 <= 200 {
            (g[o] as f32 / 255.0).to_bits()
        } else {
            0
        };
        want[0x100 + 8 + 4 * l..][..4].copy_from_slice(&x.to_le_bytes());
    }
    for o in (0..want.len()).step_by(4) {
        assert_eq!(dw(&mem.lds, o), dw(&want, o), "LDS dword at {o:#x}");
    }
    assert!(a.vgpr == b.vgpr, "no VGPR is written");
    assert!((0..64).any(|l| exec >> l & 1 != 0 && 4 * l + 12 > 200));
}

/// The 16-bit half `h` of `x`, sign- (`s`) or zero-extended.
fn half(x: u32, h: u32, s: bool) -> i64 {
    let v = (x >> (16 * h)) as u16;
    if s {
        i64::from(v as i16)
    } else {
        i64::from(v)
    }
}

/// The median of three: `max(min(a, b), min(max(a, b), c))`.
fn med3(a: i64, b: i64, c: i64) -> i64 {
    a.min(b).max(a.max(b).min(c))
}

#[test]
fn signed_add_sub_and_16bit_min_max() {
    #[rustfmt::skip]
    let words = [
        0xd29e000a, 0x00020501, // v_add_i16 v10, v1, v2
        0xd29e800b, 0x00020501, // v_add_i16 v11, v1, v2 clamp
        0xd29f880c, 0x00020501, // v_sub_i16 v12, v1, v2 op_sel:[1,0,0] clamp
        0xd29f500d, 0x00020501, // v_sub_i16 v13, v1, v2 op_sel:[0,1,1]
        0xd29c800e, 0x00020501, // v_add_i32 v14, v1, v2 clamp
        0xd29d800f, 0x00020501, // v_sub_i32 v15, v1, v2 clamp
        0xd29d0010, 0x00020501, // v_sub_i32 v16, v1, v2
        0xd1f50011, 0x040e0501, // v_min3_i16 v17, v1, v2, v3
        0xd1f91812, 0x040e0501, // v_max3_u16 v18, v1, v2, v3 op_sel:[1,1,0,0]
        0xd1fb3013, 0x040e0501, // v_med3_i16 v19, v1, v2, v3 op_sel:[0,1,1,0]
        0xd1fc0014, 0x040e0501, // v_med3_u16 v20, v1, v2, v3
        0xd1f86815, 0x040e0501, // v_max3_i16 v21, v1, v2, v3 op_sel:[1,0,1,1]
        0xd1f60016, 0x040e0501, // v_min3_u16 v22, v1, v2, v3
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let edges = [0u32, 1, 0x7fff, 0x8000, 0xffff, 0x8001, 0x7ffe, 0x4000];
    let mut r = Rng(4242);
    let mut ins = vec![[0u32; 3]; 64];
    for l in 0..64 {
        for i in 0..3 {
            let v = r.next();
            ins[l][i] = if l % 3 == 0 {
                edges[v as usize % 8] | edges[(v >> 8) as usize % 8] << 16
            } else {
                v as u32
            };
        }
        if l % 7 == 1 {
            // i32 overflow both ways.
            ins[l][0] = 0x7fff_fff0;
            ins[l][1] = 0x8000_0100 + l as u32;
        }
    }
    let (b, a) = run_words(&words, 13, exec, &mut mem, |s| {
        for l in 0..64 {
            for i in 0..3 {
                s.vgpr[1 + i][l] = ins[l][i];
            }
        }
    });
    let (i16min, i16max) = (-0x8000i64, 0x7fffi64);
    let (i32min, i32max) = (i64::from(i32::MIN), i64::from(i32::MAX));
    for l in 0..64 {
        let [x, y, z] = ins[l];
        let lo = |v: i64| v as u32 & 0xffff;
        let old = |reg: usize| b.vgpr[reg][l];
        let hi_into = |reg: usize, v: i64| old(reg) & 0xffff | lo(v) << 16;
        let want = [
            (10, lo(half(x, 0, true) + half(y, 0, true))),
            (
                11,
                lo((half(x, 0, true) + half(y, 0, true)).clamp(i16min, i16max)),
            ),
            (
                12,
                lo((half(x, 1, true) - half(y, 0, true)).clamp(i16min, i16max)),
            ),
            (13, hi_into(13, half(x, 0, true) - half(y, 1, true))),
            (
                14,
                ((x as i32 as i64) + (y as i32 as i64)).clamp(i32min, i32max) as u32,
            ),
            (
                15,
                ((x as i32 as i64) - (y as i32 as i64)).clamp(i32min, i32max) as u32,
            ),
            (16, x.wrapping_sub(y)),
            (
                17,
                lo(half(x, 0, true).min(half(y, 0, true)).min(half(z, 0, true))),
            ),
            (
                18,
                lo(half(x, 1, false)
                    .max(half(y, 1, false))
                    .max(half(z, 0, false))),
            ),
            (
                19,
                lo(med3(half(x, 0, true), half(y, 1, true), half(z, 1, true))),
            ),
            (
                20,
                lo(med3(
                    half(x, 0, false),
                    half(y, 0, false),
                    half(z, 0, false),
                )),
            ),
            (
                21,
                hi_into(
                    21,
                    half(x, 1, true).max(half(y, 0, true)).max(half(z, 1, true)),
                ),
            ),
            (
                22,
                lo(half(x, 0, false)
                    .min(half(y, 0, false))
                    .min(half(z, 0, false))),
            ),
        ];
        for (reg, w) in want {
            check_lane(&b, &a, reg, l, exec, w);
        }
    }
}

#[test]
fn integer_dot_products_saturate_with_clamp() {
    #[rustfmt::skip]
    let words = [
        0xd3a7c00b, 0x1c0e0501, // v_dot2_u32_u16 v11, v1, v2, v3 clamp
        0xd3a8c00c, 0x1c0e0501, // v_dot4_i32_i8 v12, v1, v2, v3 clamp
        0xd3abc00d, 0x1c0e0501, // v_dot8_u32_u4 v13, v1, v2, v3 clamp
        0xd138800e, 0x00020501, // v_dot2c_i32_i16_e64 v14, v1, v2 clamp
        0xd138f80f, 0x00020501, // v_dot2c_i32_i16_e64 v15, v1, v2 clamp (op_sel bits set, ignored)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut r = Rng(2024);
    let mut ins = vec![[0u32; 4]; 64];
    for l in 0..64 {
        for i in 0..4 {
            ins[l][i] = r.next() as u32;
        }
        match l % 4 {
            // Accumulators at the edges of both ranges, large products of both signs.
            0 => ins[l][2] = 0xffff_ff00 | l as u32,
            1 => ins[l][3] = 0x7fff_ff00 | l as u32,
            2 => ins[l][3] = 0x8000_0100 - l as u32,
            _ => {
                ins[l][0] = 0x7f7f_7f7f;
                ins[l][1] = 0x7f7f_7f7f;
                ins[l][2] = 0x7fff_ff00 | l as u32;
            }
        }
    }
    let (b, a) = run_words(&words, 31, exec, &mut mem, |s| {
        for l in 0..64 {
            for i in 0..3 {
                s.vgpr[1 + i][l] = ins[l][i];
            }
            s.vgpr[14][l] = ins[l][3];
            s.vgpr[15][l] = ins[l][3];
        }
    });
    // Element `i` of `bits` bits of `x`, sign- or zero-extended.
    let elem = |x: u32, bits: u32, i: u32, s: bool| -> i64 {
        let v = x >> (bits * i) & ((1 << bits) - 1);
        if s && v >> (bits - 1) != 0 {
            i64::from(v) - (1i64 << bits)
        } else {
            i64::from(v)
        }
    };
    let dot = |x: u32, y: u32, bits: u32, s: bool| -> i64 {
        (0..32 / bits)
            .map(|i| elem(x, bits, i, s) * elem(y, bits, i, s))
            .sum()
    };
    let (smin, smax) = (i64::from(i32::MIN), i64::from(i32::MAX));
    let umax = i64::from(u32::MAX);
    let mut saturated = [false; 4];
    for l in 0..64 {
        let [x, y, z, d] = ins[l];
        let sums = [
            (i64::from(z) + dot(x, y, 16, false), 0, umax),
            (i64::from(z as i32) + dot(x, y, 8, true), smin, smax),
            (i64::from(z) + dot(x, y, 4, false), 0, umax),
            (i64::from(d as i32) + dot(x, y, 16, true), smin, smax),
        ];
        for (k, (s, lo, hi)) in sums.into_iter().enumerate() {
            check_lane(&b, &a, 11 + k, l, exec, sat(s, lo, hi));
            saturated[k] |= exec >> l & 1 != 0 && !(lo..=hi).contains(&s);
        }
        check_lane(&b, &a, 15, l, exec, sat(sums[3].0, smin, smax));
    }
    assert_eq!(
        saturated, [true; 4],
        "every instruction saturates in some lane"
    );
}

/// The GFX8-encoded `_legacy` f16 ops compute as their GFX9 counterparts, ignore the op_sel
/// bits (set here in the encodings; LLVM prints none) and write the low half with zeros above.
#[test]
fn legacy_f16_ops_ignore_op_sel() {
    #[rustfmt::skip]
    let words = [
        0xd1ea780a, 0x040e0501, // v_mad_legacy_f16 v10, v1, v2, v3 (op_sel bits 14:11 set)
        0xd1ee780b, 0x040e0501, // v_fma_legacy_f16 v11, v1, v2, v3 (op_sel bits set)
        0xd1ef780c, 0x040e0501, // v_div_fixup_legacy_f16 v12, v1, v2, v3 (op_sel bits set)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut r = Rng(606);
    // Finite, non-zero f16 values 2^-4..2^4 in both halves (the high halves must be ignored).
    let mut val = move || -> u32 {
        let v = r.next() as u32;
        let h = |x: u32| (x & 0x83ff) | ((x >> 11) % 9 + 11) << 10;
        h(v) | h(v >> 16) << 16
    };
    let mut ins = vec![[0u32; 3]; 64];
    for slot in ins.iter_mut() {
        *slot = [val(), val(), val()];
    }
    let (b, a) = run_words(&words, 8, exec, &mut mem, |s| {
        for l in 0..64 {
            for i in 0..3 {
                s.vgpr[1 + i][l] = ins[l][i];
            }
        }
    });
    for l in 0..64 {
        let [x, y, z] = ins[l];
        let (p, q, c) = (f16_half(x, false), f16_half(y, false), f16_half(z, false));
        // mad: the product rounded to f16, then the sum; fma: one rounding (x * y + z is exact
        // in f64 for these magnitudes).
        let mad = f16_bits(f16_half(f16_bits(p * q), false) + c);
        let fma = f16_bits(p * q + c);
        // div_fixup of finite non-zero operands: |S0| with the sign of S1 ^ S2.
        let fix = (x & 0x7fff) | ((y ^ z) & 0x8000);
        for (reg, w) in [(10, mad), (11, fma), (12, fix)] {
            check_lane(&b, &a, reg, l, exec, w);
        }
    }
}
