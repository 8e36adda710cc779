//! VALU integer instructions: lifted, interpreted, and compared with host computations of
//! the ISA definitions, under a partial EXEC.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

/// Byte `i` of the 8-byte value `{s0, s1}` per the `v_perm_b32` selector rules.
fn perm(s0: u32, s1: u32, sel: u32) -> u32 {
    let v = (s0 as u64) << 32 | s1 as u64;
    let mut r = 0u32;
    for i in 0..4 {
        let s = (sel >> (8 * i)) & 0xff;
        let b = match s {
            0..=7 => (v >> (8 * s)) as u32 & 0xff,
            8..=11 => {
                if v >> (16 * (s - 8) + 15) & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        r |= b << (8 * i);
    }
    r
}

fn bfe_u(a: u32, off: u32, w: u32) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        0
    } else {
        (a >> off) & ((1u64 << w) - 1) as u32
    }
}

fn bfe_i(a: u32, off: u32, w: u32) -> u32 {
    let (off, w) = (off & 31, w & 31);
    if w == 0 {
        return 0;
    }
    let x = bfe_u(a, off, w);
    (((x as i32) << (32 - w)) >> (32 - w)) as u32
}

#[test]
fn integer_alu_partial_exec() {
    #[rustfmt::skip]
    let words = [
        0x68000501, // v_add_u32_e32 v0, v1, v2
        0xd1350003, 0x00020404, // v_sub_u32_e64 v3, s4, v2
        0x6c080491, // v_subrev_u32_e32 v4, 17, v2
        0xd2850005, 0x00020501, // v_mul_lo_u32 v5, v1, v2
        0xd2860006, 0x00020501, // v_mul_hi_u32 v6, v1, v2
        0xd2870007, 0x00020501, // v_mul_hi_i32 v7, v1, v2
        0x24100501, // v_lshlrev_b32_e32 v8, v1, v2
        0x22120501, // v_ashrrev_i32_e32 v9, v1, v2
        0x201404a3, // v_lshrrev_b32_e32 v10, 35, v2
        0x2a1604c5, // v_xor_b32_e32 v11, -5, v2
        0xd1c8000c, 0x04360501, // v_bfe_u32 v12, v1, v2, v13
        0xd1c9000e, 0x02310901, // v_bfe_i32 v14, v1, 4, 12
        0xd1ca000f, 0x04360501, // v_bfi_b32 v15, v1, v2, v13
        0xd1ce0010, 0x04360501, // v_alignbit_b32 v16, v1, v2, v13
        0xd1ff0011, 0x04360501, // v_add3_u32 v17, v1, v2, v13
        0xd2000012, 0x04090701, // v_lshl_or_b32 v18, v1, 3, v2
        0xd1d10013, 0x04360501, // v_min3_i32 v19, v1, v2, v13
        0xd1d80014, 0x04360501, // v_med3_u32 v20, v1, v2, v13
        0x102a0501, // v_mul_u32_u24_e32 v21, v1, v2
        0x0c2c0501, // v_mul_i32_i24_e32 v22, v1, v2
        0xd28b0017, 0x00020501, // v_bcnt_u32_b32 v23, v1, v2
        0x7e305b19, // v_ffbh_u32_e32 v24, v25
        0x7e345d19, // v_ffbl_b32_e32 v26, v25
        0x7e365901, // v_bfrev_b32_e32 v27, v1
        0xd1ed001c, 0x047a0501, // v_perm_b32 v28, v1, v2, v30
        0xd1cf001d, 0x020e0501, // v_alignbyte_b32 v29, v1, v2, 3
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 7, exec, &mut mem, |s| {
        for l in 0..64 {
            // Some zeros for ffbh/ffbl, and every selector class for v_perm.
            if l % 5 == 0 {
                s.vgpr[25][l] = 0;
            }
            s.vgpr[30][l] = u32::from_le_bytes([
                (l % 16) as u8,
                (l * 3 % 16) as u8,
                (l * 5 + 1) as u8,
                (l * 7 % 16) as u8,
            ]);
        }
    });
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let s4 = b.sgpr[4];
    check_vgpr(&b, &a, 0, exec, |l| v(1, l).wrapping_add(v(2, l)));
    check_vgpr(&b, &a, 3, exec, |l| s4.wrapping_sub(v(2, l)));
    check_vgpr(&b, &a, 4, exec, |l| v(2, l).wrapping_sub(17));
    check_vgpr(&b, &a, 5, exec, |l| v(1, l).wrapping_mul(v(2, l)));
    check_vgpr(&b, &a, 6, exec, |l| {
        ((v(1, l) as u64 * v(2, l) as u64) >> 32) as u32
    });
    check_vgpr(&b, &a, 7, exec, |l| {
        ((v(1, l) as i32 as i64 * v(2, l) as i32 as i64) >> 32) as u32
    });
    check_vgpr(&b, &a, 8, exec, |l| v(2, l) << (v(1, l) & 31));
    check_vgpr(&b, &a, 9, exec, |l| {
        ((v(2, l) as i32) >> (v(1, l) & 31)) as u32
    });
    check_vgpr(&b, &a, 10, exec, |l| v(2, l) >> (35 & 31));
    check_vgpr(&b, &a, 11, exec, |l| v(2, l) ^ (-5i32 as u32));
    check_vgpr(&b, &a, 12, exec, |l| bfe_u(v(1, l), v(2, l), v(13, l)));
    check_vgpr(&b, &a, 14, exec, |l| bfe_i(v(1, l), 4, 12));
    check_vgpr(&b, &a, 15, exec, |l| {
        (v(1, l) & v(2, l)) | (!v(1, l) & v(13, l))
    });
    check_vgpr(&b, &a, 16, exec, |l| {
        ((((v(1, l) as u64) << 32) | v(2, l) as u64) >> (v(13, l) & 31)) as u32
    });
    check_vgpr(&b, &a, 17, exec, |l| {
        v(1, l).wrapping_add(v(2, l)).wrapping_add(v(13, l))
    });
    check_vgpr(&b, &a, 18, exec, |l| (v(1, l) << 3) | v(2, l));
    check_vgpr(&b, &a, 19, exec, |l| {
        (v(1, l) as i32).min(v(2, l) as i32).min(v(13, l) as i32) as u32
    });
    check_vgpr(&b, &a, 20, exec, |l| {
        let mut x = [v(1, l), v(2, l), v(13, l)];
        x.sort();
        x[1]
    });
    check_vgpr(&b, &a, 21, exec, |l| {
        (v(1, l) & 0xff_ffff).wrapping_mul(v(2, l) & 0xff_ffff)
    });
    check_vgpr(&b, &a, 22, exec, |l| {
        let x = ((v(1, l) << 8) as i32) >> 8;
        let y = ((v(2, l) << 8) as i32) >> 8;
        x.wrapping_mul(y) as u32
    });
    check_vgpr(&b, &a, 23, exec, |l| v(1, l).count_ones() + v(2, l));
    check_vgpr(&b, &a, 24, exec, |l| {
        if v(25, l) == 0 {
            u32::MAX
        } else {
            v(25, l).leading_zeros()
        }
    });
    check_vgpr(&b, &a, 26, exec, |l| {
        if v(25, l) == 0 {
            u32::MAX
        } else {
            v(25, l).trailing_zeros()
        }
    });
    check_vgpr(&b, &a, 27, exec, |l| v(1, l).reverse_bits());
    check_vgpr(&b, &a, 28, exec, |l| perm(v(1, l), v(2, l), v(30, l)));
    check_vgpr(&b, &a, 29, exec, |l| {
        ((((v(1, l) as u64) << 32) | v(2, l) as u64) >> 24) as u32
    });
    // Counters: 26 VALU instructions, each counted with the active lanes.
    assert_eq!(a.counters.vector_insts, 26);
    assert_eq!(a.counters.active_lanes, 26 * exec.count_ones() as u64);
}

fn elems(x: u32, bits: u32, signed: bool) -> Vec<i64> {
    (0..32 / bits)
        .map(|i| {
            let v = (x >> (bits * i)) & ((1u64 << bits) - 1) as u32;
            if signed && v >> (bits - 1) & 1 != 0 {
                v as i64 - (1i64 << bits)
            } else {
                v as i64
            }
        })
        .collect()
}

fn dot(a: u32, b: u32, c: u32, bits: u32, signed: bool) -> u32 {
    let s: i64 = elems(a, bits, signed)
        .iter()
        .zip(elems(b, bits, signed))
        .map(|(x, y)| x * y)
        .sum();
    (c as i64).wrapping_add(s) as u32
}

#[test]
fn swap_pack_and_integer_dot_products() {
    #[rustfmt::skip]
    let words = [
        0x7e02a302, // v_swap_b32 v1, v2
        0xd2a00803, 0x00020b04, // v_pack_b32_f16 v3, v4, v5 op_sel:[1,0,0]
        0xd3a84006, 0x1c261107, // v_dot4_i32_i8 v6, v7, v8, v9
        0xd3a9400a, 0x1c261107, // v_dot4_u32_u8 v10, v7, v8, v9
        0xd3a6400b, 0x1c261107, // v_dot2_i32_i16 v11, v7, v8, v9
        0xd3ab400c, 0x1c261107, // v_dot8_u32_u4 v12, v7, v8, v9
        0x721a1107, // v_dot4c_i32_i8_e32 v13, v7, v8
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 19, exec, &mut mem, |_| {});
    let v = |r: usize, l: usize| b.vgpr[r][l];
    check_vgpr(&b, &a, 1, exec, |l| v(2, l));
    check_vgpr(&b, &a, 2, exec, |l| v(1, l));
    check_vgpr(&b, &a, 3, exec, |l| {
        (v(4, l) >> 16) | (v(5, l) & 0xffff) << 16
    });
    check_vgpr(&b, &a, 6, exec, |l| dot(v(7, l), v(8, l), v(9, l), 8, true));
    check_vgpr(&b, &a, 10, exec, |l| {
        dot(v(7, l), v(8, l), v(9, l), 8, false)
    });
    check_vgpr(&b, &a, 11, exec, |l| {
        dot(v(7, l), v(8, l), v(9, l), 16, true)
    });
    check_vgpr(&b, &a, 12, exec, |l| {
        dot(v(7, l), v(8, l), v(9, l), 4, false)
    });
    check_vgpr(&b, &a, 13, exec, |l| {
        dot(v(7, l), v(8, l), v(13, l), 8, true)
    });
}

#[test]
fn sixteen_bit_conversions_packs_and_sad() {
    #[rustfmt::skip]
    let words = [
        0x7e007301, // v_cvt_f16_u16_e32 v0, v1
        0x7e047501, // v_cvt_f16_i16_e32 v2, v1
        0x7e067704, // v_cvt_u16_f16_e32 v3, v4
        0x7e0a7904, // v_cvt_i16_f16_e32 v5, v4
        0xd2970006, 0x00021107, // v_cvt_pk_u16_u32 v6, v7, v8
        0xd2980009, 0x00021107, // v_cvt_pk_i16_i32 v9, v7, v8
        0xd1dc000a, 0x04061107, // v_sad_u32 v10, v7, v8, v1
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let halfs: [f32; 8] = [
        f32::NAN,
        -1.5e5,
        7e4,
        -40000.5,
        123.75,
        -0.9,
        65535.0,
        -32768.0,
    ];
    let (b, a) = run_words(&words, 29, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[4][l] = 0x1234_0000 | half::f16::from_f32(halfs[l % 8]).to_bits() as u32;
            if l % 3 == 0 {
                s.vgpr[7][l] &= 0xffff;
                s.vgpr[8][l] = (-(l as i32) * 300) as u32;
            }
        }
    });
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let h = |x: f64| half::f16::from_f64(x).to_bits() as u32;
    check_vgpr(&b, &a, 0, exec, |l| h((v(1, l) & 0xffff) as f64));
    check_vgpr(&b, &a, 2, exec, |l| h(v(1, l) as u16 as i16 as f64));
    let f = |l: usize| half::f16::from_bits(v(4, l) as u16).to_f32();
    check_vgpr(&b, &a, 3, exec, |l| (f(l) as u16) as u32);
    check_vgpr(&b, &a, 5, exec, |l| (f(l) as i16) as u16 as u32);
    check_vgpr(&b, &a, 6, exec, |l| {
        v(7, l).min(0xffff) | v(8, l).min(0xffff) << 16
    });
    check_vgpr(&b, &a, 9, exec, |l| {
        let s = |x: u32| (x as i32).clamp(-32768, 32767) as u16 as u32;
        s(v(7, l)) | s(v(8, l)) << 16
    });
    check_vgpr(&b, &a, 10, exec, |l| {
        v(7, l).abs_diff(v(8, l)).wrapping_add(v(1, l))
    });
}
