//! More LDS forms: b128/b64/b8/b16/d16_hi writes, b128 and read2_b64 reads, d16_hi and i8
//! reads, and returning atomics whose operand order matters (`ds_cmpst`: data0 = compare
//! value, data1 = new value), float add, signed max, wrapping increment, and a 64-bit add,
//! with colliding lanes; expected LDS contents from a host replay in lane order.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

fn rd(b: &[u8], o: usize, n: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(&b[o..o + n]);
    u64::from_le_bytes(x)
}

fn wr(b: &mut [u8], o: usize, n: usize, v: u64) {
    b[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
}

#[test]
fn lds_wide_narrow_and_atomics() {
    #[rustfmt::skip]
    let words = [
        0xd9be0010, 0x00000201, // ds_write_b128 v1, v[2:5] offset:16
        0xd89a0028, 0x00000601, // ds_write_b64 v1, v[6:7] offset:40
        0xd83c0030, 0x00000801, // ds_write_b8 v1, v8 offset:48
        0xd83e0032, 0x00000801, // ds_write_b16 v1, v8 offset:50
        0xd8aa0034, 0x00000801, // ds_write_b16_d16_hi v1, v8 offset:52
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xd9fe0010, 0x0a000001, // ds_read_b128 v[10:13], v1 offset:16
        0xd8ee0205, 0x0e000001, // ds_read2_b64 v[14:17], v1 offset0:5 offset1:2
        0xd8b60032, 0x12000001, // ds_read_u16_d16_hi v18, v1 offset:50
        0xd8720030, 0x13000001, // ds_read_i8 v19, v1 offset:48
        0xd8600000, 0x14171615, // ds_cmpst_rtn_b32 v20, v21, v22, v23
        0xd86a0000, 0x18001a19, // ds_add_rtn_f32 v24, v25, v26
        0xd84c0000, 0x1b001d1c, // ds_max_rtn_i32 v27, v28, v29
        0xd8460000, 0x1e00201f, // ds_inc_rtn_u32 v30, v31, v32
        0xd8800000, 0x00002221, // ds_add_u64 v33, v[34:35]
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(32768);
    for i in 0..4 {
        wr(
            &mut mem.lds,
            12288 + 4 * i,
            4,
            (1.5f32 + i as f32).to_bits() as u64,
        );
    }
    let lds0 = mem.lds.clone();
    let (b, a) = run_words(&words, 23, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[1][l] = 64 * l as u32;
            s.vgpr[21][l] = 8192 + 4 * (l % 16) as u32;
            if l < 16 {
                s.vgpr[22][l] = rd(&lds0, 8192 + 4 * l, 4) as u32;
            }
            s.vgpr[25][l] = 12288 + 4 * (l % 4) as u32;
            s.vgpr[26][l] = (l as f32 * 0.25 - 3.0).to_bits();
            s.vgpr[28][l] = 16384 + 4 * (l % 4) as u32;
            s.vgpr[31][l] = 20480 + 4 * (l % 2) as u32;
            s.vgpr[32][l] = 5;
            s.vgpr[33][l] = 24576 + 8 * (l % 4) as u32;
        }
    });
    let act = |l: usize| exec >> l & 1 != 0;
    let v = |r: usize, l: usize| b.vgpr[r][l] as u64;
    let mut h = lds0.clone();
    let lanes: Vec<usize> = (0..64).filter(|&l| act(l)).collect();
    for &l in &lanes {
        for i in 0..4 {
            wr(&mut h, 64 * l + 16 + 4 * i, 4, v(2 + i, l));
        }
    }
    for &l in &lanes {
        wr(&mut h, 64 * l + 40, 4, v(6, l));
        wr(&mut h, 64 * l + 44, 4, v(7, l));
    }
    for &l in &lanes {
        wr(&mut h, 64 * l + 48, 1, v(8, l));
    }
    for &l in &lanes {
        wr(&mut h, 64 * l + 50, 2, v(8, l));
    }
    for &l in &lanes {
        wr(&mut h, 64 * l + 52, 2, v(8, l) >> 16);
    }
    let w = h.clone();
    let mut ret = vec![[0u64; 64]; 5];
    for &l in &lanes {
        let o = v(21, l) as usize;
        let old = rd(&h, o, 4);
        ret[0][l] = old;
        if old == v(22, l) {
            wr(&mut h, o, 4, v(23, l));
        }
    }
    for &l in &lanes {
        let o = v(25, l) as usize;
        let old = rd(&h, o, 4);
        ret[1][l] = old;
        let s = f32::from_bits(old as u32) + f32::from_bits(v(26, l) as u32);
        wr(&mut h, o, 4, s.to_bits() as u64);
    }
    for &l in &lanes {
        let o = v(28, l) as usize;
        let old = rd(&h, o, 4);
        ret[2][l] = old;
        wr(
            &mut h,
            o,
            4,
            (old as i32).max(v(29, l) as i32) as u32 as u64,
        );
    }
    for &l in &lanes {
        let o = v(31, l) as usize;
        let old = rd(&h, o, 4);
        ret[3][l] = old;
        wr(&mut h, o, 4, if old >= 5 { 0 } else { old + 1 });
    }
    for &l in &lanes {
        let o = v(33, l) as usize;
        let old = rd(&h, o, 8);
        wr(&mut h, o, 8, old.wrapping_add(v(34, l) | v(35, l) << 32));
    }
    assert!(mem.lds == h, "LDS contents differ");
    for i in 0..4 {
        check_vgpr(&b, &a, 10 + i, exec, |l| {
            rd(&w, 64 * l + 16 + 4 * i, 4) as u32
        });
    }
    check_vgpr(&b, &a, 14, exec, |l| rd(&w, 64 * l + 40, 4) as u32);
    check_vgpr(&b, &a, 15, exec, |l| rd(&w, 64 * l + 44, 4) as u32);
    check_vgpr(&b, &a, 16, exec, |l| rd(&w, 64 * l + 16, 4) as u32);
    check_vgpr(&b, &a, 17, exec, |l| rd(&w, 64 * l + 20, 4) as u32);
    check_vgpr(&b, &a, 18, exec, |l| {
        (v(18, l) as u32 & 0xffff) | (rd(&w, 64 * l + 50, 2) as u32) << 16
    });
    check_vgpr(&b, &a, 19, exec, |l| w[64 * l + 48] as i8 as i32 as u32);
    check_vgpr(&b, &a, 20, exec, |l| ret[0][l] as u32);
    check_vgpr(&b, &a, 24, exec, |l| ret[1][l] as u32);
    check_vgpr(&b, &a, 27, exec, |l| ret[2][l] as u32);
    check_vgpr(&b, &a, 30, exec, |l| ret[3][l] as u32);
}
