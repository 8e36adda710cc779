//! Scalar memory atomics and buffer stores, `s_buffer_load` range checks (out-of-range
//! dwords read 0 without touching memory, the stride scales the limit), cache no-ops, and
//! vector packed-half atomics. Expected values are computed here from the ISA pseudocode;
//! every block also runs in the JIT, which must agree with the interpreter.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

const BUF: u64 = 0x50_0000;
const GBUF: u64 = 0x60_0000;
const NREC: u32 = 0x40;

fn dw(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

#[test]
fn scalar_atomics_buffer_stores_and_range_checks() {
    #[rustfmt::skip]
    let words = [
        0xc20b0141, 0x00000008, // s_atomic_add s5, s[2:3], 0x8 glc
        0xc2850201, 0x00000004, // s_atomic_cmpswap_x2 s[8:11], s[2:3], s4 glc
        0xc2120601, 0x00000010, // s_atomic_smin s24, s[2:3], 0x10
        0xc2070a81, 0x00000030, // s_atomic_cmpswap s[42:43], s[2:3], 0x30 glc
        0xc11f0186, 0x00000004, // s_buffer_atomic_umax s6, s[12:15], 0x4 glc
        0xc10b01c6, 0x00000040, // s_buffer_atomic_add s7, s[12:15], 0x40 glc
        0xc0660406, 0x00000018, // s_buffer_store_dwordx2 s[16:17], s[12:15], 0x18
        0xc0620486, 0x00000040, // s_buffer_store_dword s18, s[12:15], 0x40
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xc02a0506, 0x00000038, // s_buffer_load_dwordx4 s[20:23], s[12:15], 0x38
        0xc022080e, 0x00000000, // s_buffer_load_dword s32, s[28:31], 0x0
        0xc0260a12, 0x0000001c, // s_buffer_load_dwordx2 s[40:41], s[36:39], 0x1c
        0xc0a20001, 0x00000000, // s_dcache_discard s[2:3], 0x0
        0xc09a01c1, 0x00000000, // s_atc_probe 7, s[2:3], 0x0
        0xc0940680, 0x00000000, // s_memrealtime s[26:27]
        0xbf810000, // s_endpgm
    ];
    let mut rng = Rng(7);
    let buf: Vec<u8> = (0..128).map(|_| rng.next() as u8).collect();
    let gbuf: Vec<u8> = (0..64).map(|_| rng.next() as u8).collect();
    let mut mem = Mem::new(256);
    mem.add(BUF, buf.clone());
    mem.add(GBUF, gbuf.clone());
    let g64 = |o: usize| u64::from_le_bytes(gbuf[o..o + 8].try_into().unwrap());
    let (b, a) = run_words(&words, 3, EXEC_PARTIAL, &mut mem, |s| {
        s.sgpr[2] = GBUF as u32;
        s.sgpr[3] = (GBUF >> 32) as u32;
        s.sgpr[4] = 0x20;
        // cmpswap_x2: compare value = memory, so the swap happens.
        s.sgpr[10] = g64(0x20) as u32;
        s.sgpr[11] = (g64(0x20) >> 32) as u32;
        s.sgpr[24] = 0x8000_0005; // negative: smin takes it
        s.sgpr[43] = dw(&gbuf, 0x30) ^ 1; // cmpswap mismatch: memory kept
        s.sgpr[6] = 0xffff_fff0;
        s.sgpr[12] = BUF as u32;
        s.sgpr[13] = (BUF >> 32) as u32; // stride 0
        s.sgpr[14] = NREC;
        s.sgpr[28] = 0x1234_0000; // unmapped base, num_records 0
        s.sgpr[29] = 0;
        s.sgpr[30] = 0;
        s.sgpr[36] = BUF as u32;
        s.sgpr[37] = (BUF >> 32) as u32 | 16 << 16; // stride 16
        s.sgpr[38] = 2; // limit 32 bytes
    });
    let g = mem.region(GBUF).to_vec();
    let m = mem.region(BUF).to_vec();
    // s_atomic_add with glc: old value returned, sum stored.
    assert_eq!(a.sgpr[5], dw(&gbuf, 8));
    assert_eq!(dw(&g, 8), dw(&gbuf, 8).wrapping_add(b.sgpr[5]));
    // cmpswap_x2: swapped, old value in s[8:9].
    assert_eq!(a.sgpr[8] as u64 | (a.sgpr[9] as u64) << 32, g64(0x20));
    let new64 = b.sgpr[8] as u64 | (b.sgpr[9] as u64) << 32;
    assert_eq!(u64::from_le_bytes(g[0x20..0x28].try_into().unwrap()), new64);
    // smin without glc: memory is the signed minimum, s24 unchanged.
    let old = dw(&gbuf, 0x10) as i32;
    assert_eq!(dw(&g, 0x10), old.min(b.sgpr[24] as i32) as u32);
    assert_eq!(a.sgpr[24], b.sgpr[24]);
    // cmpswap mismatch: memory unchanged, old value returned.
    assert_eq!(dw(&g, 0x30), dw(&gbuf, 0x30));
    assert_eq!(a.sgpr[42], dw(&gbuf, 0x30));
    // s_buffer_atomic_umax in range.
    assert_eq!(a.sgpr[6], dw(&buf, 4));
    assert_eq!(dw(&m, 4), dw(&buf, 4).max(0xffff_fff0));
    // Out of range (offset 0x40 = num_records): no update, returns 0.
    assert_eq!(a.sgpr[7], 0);
    assert_eq!(dw(&m, 0x40), dw(&buf, 0x40));
    // s_buffer_store_dwordx2 in range; the out-of-range store leaves memory alone.
    assert_eq!(dw(&m, 0x18), b.sgpr[16]);
    assert_eq!(dw(&m, 0x1c), b.sgpr[17]);
    // Nothing else in the buffer changed.
    for o in (0..128).step_by(4) {
        if ![4, 0x18, 0x1c].contains(&o) {
            assert_eq!(dw(&m, o), dw(&buf, o), "buffer dword at {o:#x}");
        }
    }
    // s_buffer_load_dwordx4 at 0x38: two dwords in range, two past num_records read 0
    // (the bytes behind num_records exist and are non-zero).
    assert_eq!(a.sgpr[20], dw(&buf, 0x38));
    assert_eq!(a.sgpr[21], dw(&buf, 0x3c));
    assert_ne!(dw(&buf, 0x40), 0);
    assert_eq!((a.sgpr[22], a.sgpr[23]), (0, 0));
    // num_records 0 with an unmapped base: 0, no fault.
    assert_eq!(a.sgpr[32], 0);
    // Stride 16 × 2 records = 32 bytes: dword 0x1c (written by the store above) in range,
    // 0x20 out of range.
    assert_eq!(a.sgpr[40], b.sgpr[17]);
    assert_eq!(a.sgpr[41], 0);
    // s_memrealtime reads the environment clock.
    assert_eq!(
        a.sgpr[26] as u64 | (a.sgpr[27] as u64) << 32,
        0x1234_5678_9abc
    );
}

const SRC: u64 = 0x70_0000;
const DST: u64 = 0x71_0000;
const DST2: u64 = 0x72_0000;
const SWZ: u64 = 0x73_0000;
const TID: u64 = 0x74_0000;

/// f32 in [2^-14, 65504] → f16 bits, rounded to nearest even (host f64 arithmetic).
fn f16_of(x: f32) -> u32 {
    let x = x as f64;
    if x == 0.0 {
        return 0;
    }
    let e = x.log2().floor() as i32;
    let ulp = 2f64.powi(e - 10);
    let q = (x / ulp).round_ties_even() as u32; // 1024..=2048
    let (e, q) = if q == 2048 { (e + 1, 1024) } else { (e, q) };
    ((e + 15) as u32) << 10 | (q - 1024)
}

fn sx(v: u32, w: u32) -> u32 {
    (((v << (32 - w)) as i32) >> (32 - w)) as u32
}

/// V# dword1 for `base` with `stride`.
fn d1(base: u64, stride: u32) -> u32 {
    (base >> 32) as u32 | stride << 16
}

#[test]
fn typed_buffer_formats_swizzle_and_add_tid() {
    #[rustfmt::skip]
    let words = [
        0xe00c2000, 0x80020004, // buffer_load_format_xyzw v[0:3], v4, s[8:11], 0 idxen
        0xe8e0a000, 0x80030604, // tbuffer_load_format_xy v[6:7], v4, s[12:15], 0 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_SNORM] idxen
        0xebe52000, 0x80030804, // tbuffer_load_format_d16_xyz v[8:9], v4, s[12:15], 0 format:[BUF_DATA_FORMAT_16_16_16_16,BUF_NUM_FORMAT_FLOAT] idxen
        0xeac9a000, 0x80030c04, // tbuffer_load_format_xyzw v[12:15], v4, s[12:15], 0 format:[BUF_DATA_FORMAT_2_10_10_10,BUF_NUM_FORMAT_SINT] idxen
        0xe0982000, 0x80020b04, // buffer_load_format_d16_hi_x v11, v4, s[8:11], 0 idxen
        0xe0142000, 0x80041004, // buffer_store_format_xy v[16:17], v4, s[16:19], 0 idxen
        0xead7a000, 0x80051204, // tbuffer_store_format_d16_xyzw v[18:19], v4, s[20:23], 0 format:[BUF_DATA_FORMAT_8_8_8_8,BUF_NUM_FORMAT_SINT] idxen
        0xebbb2004, 0x80051404, // tbuffer_store_format_xyz v[20:22], v4, s[20:23], 0 format:[BUF_DATA_FORMAT_11_11_10,BUF_NUM_FORMAT_FLOAT] idxen offset:4
        0xe0500000, 0x80061800, // buffer_load_dword v24, off, s[24:27], 0
        0xe0500004, 0x80061a00, // buffer_load_dword v26, off, s[24:27], 0 offset:4
        0xe0700000, 0x80071900, // buffer_store_dword v25, off, s[28:31], 0
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut rng = Rng(99);
    let src: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let dst: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let dst2: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let swz: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
    let tid: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let mut mem = Mem::new(64);
    for (b, v) in [
        (SRC, &src),
        (DST, &dst),
        (DST2, &dst2),
        (SWZ, &swz),
        (TID, &tid),
    ] {
        mem.add(b, v.clone());
    }
    // Stored float components: 11_11_10 is X = 10-bit (5 mantissa bits), Y, Z = 11-bit (6).
    // (input, expected bits) worked by hand: 1.0 = e15 m0; 2.5 = 1.25·2 = e16 m8/32;
    // 1 + 2^-6 is a tie between m0 and m1 → even m0; 1 + 3·2^-6 a tie between m1 and m2 → m2;
    // negatives give 0; 1e6 overflows to +inf; NaN stays NaN.
    let x10: [(f32, u32); 8] = [
        (1.0, 15 << 5),
        (2.5, 16 << 5 | 8),
        (-2.0, 0),
        (0.0, 0),
        (1.0 + 1.0 / 64.0, 15 << 5),
        (1.0 + 3.0 / 64.0, 15 << 5 | 2),
        (1e6, 31 << 5),
        (f32::NAN, 31 << 5 | 16),
    ];
    // 11-bit: 0.5 = e14; 3.0 = 1.5·2 = e16 m32/64; ties as above at 2^-7; 2^-20 is the
    // smallest denormal (m1).
    let y11: [(f32, u32); 8] = [
        (1.0, 15 << 6),
        (0.5, 14 << 6),
        (3.0, 16 << 6 | 32),
        (1.0 + 1.0 / 128.0, 15 << 6),
        (1.0 + 3.0 / 128.0, 15 << 6 | 2),
        (f32::NAN, 31 << 6 | 32),
        (-1.0, 0),
        (2f32.powi(-20), 1),
    ];
    let (b, a) = run_words(&words, 17, exec, &mut mem, |s| {
        // s[8:11]: stride 16, 8 records, 8_8_8_8 UNORM, DST_SEL X=B(6) Y=G(5) Z=R(4) W=1.
        s.sgpr[8] = SRC as u32;
        s.sgpr[9] = d1(SRC, 16);
        s.sgpr[10] = 8;
        s.sgpr[11] = 6 | 5 << 3 | 4 << 6 | 1 << 9 | 10 << 15; // NUM_FORMAT 0 = UNORM
                                                              // s[12:15]: stride 8, 16 records (format from the instruction).
        s.sgpr[12] = SRC as u32;
        s.sgpr[13] = d1(SRC, 8);
        s.sgpr[14] = 16;
        s.sgpr[15] = 0;
        // s[16:19]: stride 4, 16 records, 16_16 UNORM.
        s.sgpr[16] = DST as u32;
        s.sgpr[17] = d1(DST, 4);
        s.sgpr[18] = 16;
        s.sgpr[19] = 5 << 15;
        // s[20:23]: stride 8, 16 records.
        s.sgpr[20] = DST2 as u32;
        s.sgpr[21] = d1(DST2, 8);
        s.sgpr[22] = 16;
        s.sgpr[23] = 0;
        // s[24:27]: swizzled (ES = 4, IS = 16), stride 8, ADD_TID, 40 records.
        s.sgpr[24] = SWZ as u32;
        s.sgpr[25] = d1(SWZ, 8) | 1 << 31;
        s.sgpr[26] = 40;
        s.sgpr[27] = 1 << 19 | 1 << 21 | 1 << 23;
        // s[28:31]: linear, stride 4, ADD_TID, 64 records.
        s.sgpr[28] = TID as u32;
        s.sgpr[29] = d1(TID, 4);
        s.sgpr[30] = 64;
        s.sgpr[31] = 1 << 23;
        for l in 0..64 {
            s.vgpr[4][l] = l as u32 % 20;
            s.vgpr[16][l] = ((l as f32 - 8.0) / 48.0).to_bits();
            s.vgpr[17][l] = if l % 7 == 0 {
                f32::NAN.to_bits()
            } else {
                (1.0 - l as f32 / 64.0).to_bits()
            };
            let h = |v: i32| v as u16 as u32;
            s.vgpr[18][l] = h(l as i32 * 9 - 200) | h(300 - l as i32 * 10) << 16;
            s.vgpr[19][l] = h(-(l as i32)) | h(l as i32 * 3) << 16;
            s.vgpr[20][l] = x10[l % 8].0.to_bits();
            s.vgpr[21][l] = y11[l % 8].0.to_bits();
            s.vgpr[22][l] = y11[(l + 3) % 8].0.to_bits();
        }
    });
    let act: Vec<usize> = (0..64).filter(|l| exec >> l & 1 != 0).collect();
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let byte = |o: usize| src[o] as u32;
    let h16 = |o: usize| src[o] as u32 | (src[o + 1] as u32) << 8;
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    let unorm8 = |x: u32| (x as f32 / 255.0).to_bits();
    let one = 1.0f32.to_bits();
    for l in 0..64 {
        let i = v(4, l) as usize;
        let in8 = i < 8;
        let in16 = i < 16;
        let o16 = 16 * i;
        let o8 = 8 * i;
        // buffer_load_format_xyzw: selects B, G, R, 1; out-of-range lanes read 0 (the
        // constant-one select still gives 1.0).
        let (x, y, z) = if in8 {
            (
                unorm8(byte(o16 + 2)),
                unorm8(byte(o16 + 1)),
                unorm8(byte(o16)),
            )
        } else {
            (0, 0, 0)
        };
        let want = [x, y, z, one];
        for c in 0..4 {
            check_lane(&b, &a, c, l, exec, want[c]);
        }
        // SNORM16 x, y.
        let sn = |o: usize| {
            let v = h16(o) as u16 as i16 as f32 / 32767.0;
            v.max(-1.0).to_bits()
        };
        let (x, y) = if in16 { (sn(o8), sn(o8 + 2)) } else { (0, 0) };
        check_lane(&b, &a, 6, l, exec, x);
        check_lane(&b, &a, 7, l, exec, y);
        // d16 FLOAT16 xyz: halves unchanged; z keeps v9's high half.
        let (hx, hy, hz) = if in16 {
            (h16(o8), h16(o8 + 2), h16(o8 + 4))
        } else {
            (0, 0, 0)
        };
        check_lane(&b, &a, 8, l, exec, hx | hy << 16);
        check_lane(&b, &a, 9, l, exec, hz | (v(9, l) & 0xffff_0000));
        // SINT 2_10_10_10.
        let d = if in16 { dw(&src, o8) } else { 0 };
        let want = [sx(d, 10), sx(d >> 10, 10), sx(d >> 20, 10), sx(d >> 30, 2)];
        for c in 0..4 {
            check_lane(&b, &a, 12 + c, l, exec, want[c]);
        }
        // d16_hi_x with DST_SEL_X = B: f16 of the UNORM value into the high half.
        let hb = if in8 {
            f16_of(byte(o16 + 2) as f32 / 255.0)
        } else {
            0
        };
        check_lane(&b, &a, 11, l, exec, (v(11, l) & 0xffff) | hb << 16);
        // Swizzled loads with ADD_TID: index = lane; ES = 4, IS = 16, stride 8.
        let sw = |off: usize| {
            if l < 40 {
                dw(&swz, ((l / 16) * 8 + off) * 16 + (l % 16) * 4)
            } else {
                0
            }
        };
        check_lane(&b, &a, 24, l, exec, sw(0));
        check_lane(&b, &a, 26, l, exec, sw(4));
    }
    // Stores, applied lane by lane (a later lane wins on the same record).
    let mut want_dst = dst.clone();
    let mut want_dst2 = dst2.clone();
    let mut want_tid = tid.clone();
    let unorm16 = |x: u32| {
        let f = f32::from_bits(x);
        if f.is_nan() {
            0
        } else {
            (f.clamp(0.0, 1.0) as f64 * 65535.0).round_ties_even() as u32
        }
    };
    for &l in &act {
        let i = v(4, l) as usize;
        if i < 16 {
            let d = unorm16(v(16, l)) | unorm16(v(17, l)) << 16;
            want_dst[4 * i..4 * i + 4].copy_from_slice(&d.to_le_bytes());
            let sat = |h: u32| (h as u16 as i16).clamp(-128, 127) as u8;
            let bytes = [
                sat(v(18, l)),
                sat(v(18, l) >> 16),
                sat(v(19, l)),
                sat(v(19, l) >> 16),
            ];
            want_dst2[8 * i..8 * i + 4].copy_from_slice(&bytes);
            let f = x10[l % 8].1 | y11[l % 8].1 << 10 | y11[(l + 3) % 8].1 << 21;
            want_dst2[8 * i + 4..8 * i + 8].copy_from_slice(&f.to_le_bytes());
        }
        want_tid[4 * l..4 * l + 4].copy_from_slice(&v(25, l).to_le_bytes());
    }
    assert!(mem.region(DST) == want_dst.as_slice(), "16_16 UNORM stores");
    assert!(
        mem.region(DST2) == want_dst2.as_slice(),
        "8_8_8_8 SINT / 11_11_10 stores"
    );
    assert!(mem.region(TID) == want_tid.as_slice(), "ADD_TID stores");
    // The inputs exercised clamping, NaN and both in- and out-of-range records.
    assert!(act.iter().any(|&l| v(4, l) >= 16) && act.iter().any(|&l| l % 7 == 0));
}

#[test]
fn loads_into_lds() {
    #[rustfmt::skip]
    let words = [
        0xbefc00ff, 0x00000100, // s_mov_b32 m0, 0x100
        0xdca88008, 0x007f0002, // global_load_lds_dword v[2:3], off offset:8
        0xbefc00ff, 0x00000300, // s_mov_b32 m0, 0x300
        0xdca48000, 0x007f0002, // global_load_lds_sshort v[2:3], off
        0xbefc00ff, 0x00000500, // s_mov_b32 m0, 0x500
        0xddf48000, 0x007f0002, // global_load_lds_dwordx4 v[2:3], off
        0xbefc00ff, 0x00000a00, // s_mov_b32 m0, 0xa00
        0xe0411000, 0x80020004, // buffer_load_ubyte v4, s[8:11], 0 offen lds
        0xbefc00ff, 0x00000c00, // s_mov_b32 m0, 0xc00
        0xdca86000, 0x007f0005, // scratch_load_lds_dword v5, off
        0xbefc00ff, 0x00000e00, // s_mov_b32 m0, 0xe00
        0xddf89ffc, 0x000c0006, // global_load_lds_dwordx3 v6, s[12:13] offset:-4
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xbf810000, // s_endpgm
    ];
    const G: u64 = 0x50_0000;
    let exec = EXEC_PARTIAL;
    let mut rng = Rng(5);
    let g: Vec<u8> = (0..512).map(|_| rng.next() as u8).collect();
    let mut mem = Mem::new(0x1200);
    mem.add(G, g.clone());
    for s in mem.scratch.iter_mut() {
        for b in s.iter_mut() {
            *b = rng.next() as u8;
        }
    }
    let code = Code::from_words(&words);
    let mut st = random_state(8, exec);
    st.sgpr[8] = G as u32;
    st.sgpr[9] = (G >> 32) as u32;
    st.sgpr[10] = 150;
    st.sgpr[11] = 0;
    st.sgpr[12] = (G + 16) as u32;
    st.sgpr[13] = ((G + 16) >> 32) as u32;
    for l in 0..64 {
        let p = G + 4 * l as u64;
        st.vgpr[2][l] = p as u32;
        st.vgpr[3][l] = (p >> 32) as u32;
        st.vgpr[4][l] = 3 * l as u32;
        st.vgpr[5][l] = 4 * (l as u32 % 16);
        st.vgpr[6][l] = 4 * l as u32;
    }
    let before = clone_state(&st);
    let lds0 = mem.lds.clone();
    let scratch = mem.scratch.clone();
    let t = wavejit_translator::isa::Target::new(wavejit_translator::isa::Gpu::GFX950);
    let r = run_on(&t, &code, &mut st, &mut mem).expect("runs");
    assert_eq!(r, wavejit_translator::env::ExitCode::EndPgm);
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    let mut want = lds0.clone();
    let mut put = |o: usize, v: u32| want[o..o + 4].copy_from_slice(&v.to_le_bytes());
    for l in (0..64).filter(|l| exec >> l & 1 != 0) {
        // The instruction offset applies to the LDS address too.
        put(0x100 + 8 + 4 * l, dw(&g, 4 * l + 8));
        let h = u16::from_le_bytes([g[4 * l], g[4 * l + 1]]) as i16 as i32 as u32;
        put(0x300 + 4 * l, h);
        for i in 0..4 {
            put(0x500 + 16 * l + 4 * i, dw(&g, 4 * l + 4 * i));
        }
        // num_records 150: a byte at 3l is in range when 3l + 1 <= 150.
        let b = if 3 * l < 150 { g[3 * l] as u32 } else { 0 };
        put(0xa00 + 4 * l, b);
        put(0xc00 + 4 * l, dw(&scratch[l], 4 * (l % 16)));
        for i in 0..3 {
            put(0xe00 - 4 + 12 * l + 4 * i, dw(&g, 16 + 4 * l - 4 + 4 * i));
        }
    }
    for o in (0..want.len()).step_by(4) {
        assert_eq!(dw(&mem.lds, o), dw(&want, o), "LDS dword at {o:#x}");
    }
    // No VGPR is written.
    assert!(st.vgpr == before.vgpr);
    assert!((0..64).any(|l| exec >> l & 1 != 0 && 3 * l >= 150));
}

/// Vector packed-half atomic adds, each half rounded once to nearest even (values worked by
/// hand: ties to even, just above a tie, overflow to infinity, denormals, NaN operands).
#[test]
fn packed_half_atomic_adds() {
    #[rustfmt::skip]
    let words = [
        0xdd398000, 0x017f0402, // global_atomic_pk_add_f16 v1, v[2:3], v4, off sc0
        0xdd488000, 0x007f0806, // global_atomic_pk_add_bf16 v[6:7], v8, off
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xbf810000, // s_endpgm
    ];
    // (memory, data, sum) per case.
    let f16: [(u32, u32, u32); 8] = [
        (0x3c00, 0x1000, 0x3c00), // 1 + 2^-11: tie -> 1
        (0x3c00, 0x1600, 0x3c02), // 1 + 3*2^-11: tie -> even 1 + 2^-9
        (0x3c00, 0x1002, 0x3c01), // 1 + 2^-11 + 2^-20: above the tie
        (0x7bff, 0x4c00, 0x7c00), // 65504 + 16 = 65520: tie -> even = +inf
        (0xc100, 0x3d00, 0xbd00), // -2.5 + 1.25 = -1.25
        (0x7e01, 0x3c00, 0x7e01), // NaN + 1: the NaN
        (0x0001, 0x0001, 0x0002), // denormals
        (0x2e66, 0x3266, 0x34cc), // 0.0999755859375 + 0.199951171875: tie -> even
    ];
    let bf16: [(u32, u32, u32); 8] = [
        (0x3f80, 0x3b80, 0x3f80), // 1 + 2^-8: tie -> 1
        (0x3f81, 0x3b80, 0x3f82), // tie -> even
        (0x3f80, 0x3b81, 0x3f81), // above the tie
        (0x7f7f, 0x7f7f, 0x7f80), // overflow -> +inf
        (0xbfc0, 0x3f00, 0xbf80), // -1.5 + 0.5
        (0x7fc1, 0x3f80, 0x7fc1), // NaN + 1
        (0x0001, 0x0001, 0x0002), // denormals
        (0x4040, 0x3c00, 0x4040), // 3 + 2^-7: tie -> even 3
    ];
    const G: u64 = 0x80_0000;
    let exec = EXEC_PARTIAL;
    let mut g = vec![0u8; 512];
    for l in 0..64 {
        let (a, b, _) = f16[l % 8];
        // High half: the operands swapped.
        g[4 * l..4 * l + 4].copy_from_slice(&(a | b << 16).to_le_bytes());
        let (a, b, _) = bf16[l % 8];
        g[256 + 4 * l..256 + 4 * l + 4].copy_from_slice(&(a | b << 16).to_le_bytes());
    }
    let mut mem = Mem::new(64);
    mem.add(G, g.clone());
    let (b, a) = run_words(&words, 9, exec, &mut mem, |s| {
        for l in 0..64 {
            let p = G + 4 * l as u64;
            s.vgpr[2][l] = p as u32;
            s.vgpr[3][l] = (p >> 32) as u32;
            s.vgpr[4][l] = f16[l % 8].1 | f16[l % 8].0 << 16;
            let q = p + 256;
            s.vgpr[6][l] = q as u32;
            s.vgpr[7][l] = (q >> 32) as u32;
            s.vgpr[8][l] = bf16[l % 8].1 | bf16[l % 8].0 << 16;
        }
    });
    let m = mem.region(G);
    for l in 0..64 {
        let on = exec >> l & 1 != 0;
        let want16 = if on {
            f16[l % 8].2 | f16[l % 8].2 << 16
        } else {
            dw(&g, 4 * l)
        };
        let wantb = if on {
            bf16[l % 8].2 | bf16[l % 8].2 << 16
        } else {
            dw(&g, 256 + 4 * l)
        };
        assert_eq!(dw(m, 4 * l), want16, "f16 lane {l}");
        assert_eq!(dw(m, 256 + 4 * l), wantb, "bf16 lane {l}");
    }
    // sc0: the pre-op value returns to v1.
    check_vgpr(&b, &a, 1, exec, |l| dw(&g, 4 * l));
}

/// Unsigned small float (5-bit exponent, bias 15, `m` mantissa bits) → f64.
fn ufloat(v: u32, m: u32) -> f64 {
    let (e, f) = (v >> m, v & ((1 << m) - 1));
    match e {
        0 => f as f64 * 2f64.powi(-14 - m as i32),
        31 if f == 0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + f as f64 / (1u32 << m) as f64) * 2f64.powi(e as i32 - 15),
    }
}

/// More typed loads: scaled, packed-float, 3-dword and d16 integer formats, and the defaults
/// of components a format lacks (0 for Y/Z, one for W).
#[test]
fn typed_loads_scaled_packed_float_and_defaults() {
    #[rustfmt::skip]
    let words = [
        0xe909a000, 0x80010008, // tbuffer_load_format_xyzw v[0:3], v8, s[4:7], 0 format:[BUF_NUM_FORMAT_USCALED] idxen
        0xe9a9a000, 0x80010a08, // tbuffer_load_format_xyzw v[10:13], v8, s[4:7], 0 format:[BUF_DATA_FORMAT_16_16,BUF_NUM_FORMAT_SSCALED] idxen
        0xebb12000, 0x80010e08, // tbuffer_load_format_xyz v[14:16], v8, s[4:7], 0 format:[BUF_DATA_FORMAT_10_11_11,BUF_NUM_FORMAT_FLOAT] idxen
        0xea69a000, 0x80011408, // tbuffer_load_format_xyzw v[20:23], v8, s[4:7], 0 format:[BUF_DATA_FORMAT_32_32_32,BUF_NUM_FORMAT_UINT] idxen
        0xea9ca000, 0x80011808, // tbuffer_load_format_d16_xy v24, v8, s[4:7], 0 format:[BUF_DATA_FORMAT_8_8,BUF_NUM_FORMAT_SINT] idxen
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut rng = Rng(77);
    let src: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let mut mem = Mem::new(64);
    mem.add(SRC, src.clone());
    let (b, a) = run_words(&words, 19, exec, &mut mem, |s| {
        s.sgpr[4] = SRC as u32;
        s.sgpr[5] = d1(SRC, 16);
        s.sgpr[6] = 12; // records 12.. are out of range
        s.sgpr[7] = 0;
        for l in 0..64 {
            s.vgpr[8][l] = l as u32 % 14;
        }
    });
    let one = 1.0f32.to_bits();
    let dw = |o: usize| u32::from_le_bytes(src[o..o + 4].try_into().unwrap());
    let h = |o: usize| u16::from_le_bytes([src[o], src[o + 1]]) as i16;
    for l in 0..64 {
        let i = l % 14;
        let o = 16 * i;
        let ok = i < 12;
        let f = |x: f32| if ok { x.to_bits() } else { 0 };
        // 8 USCALED: X only; Y, Z = 0.0, W = 1.0 (also when out of range).
        let want = [f(src[o] as f32), 0, 0, one];
        for c in 0..4 {
            check_lane(&b, &a, c, l, exec, want[c]);
        }
        let want = [f(h(o) as f32), f(h(o + 2) as f32), 0, one];
        for c in 0..4 {
            check_lane(&b, &a, 10 + c, l, exec, want[c]);
        }
        // 10_11_11 FLOAT: X, Y 11-bit and Z 10-bit unsigned floats.
        let d = if ok { dw(o) } else { 0 };
        let comps = [
            ufloat(d & 0x7ff, 6),
            ufloat(d >> 11 & 0x7ff, 6),
            ufloat(d >> 22, 5),
        ];
        for (c, v) in comps.iter().enumerate() {
            let got = f32::from_bits(a.vgpr[14 + c][l]);
            if exec >> l & 1 == 0 {
                assert_eq!(a.vgpr[14 + c][l], b.vgpr[14 + c][l]);
            } else if v.is_nan() {
                assert!(got.is_nan(), "lane {l} comp {c}");
            } else {
                assert_eq!(got as f64, *v, "lane {l} comp {c}"); // exact in f32
            }
        }
        // 32_32_32 UINT: three dwords, W = integer 1.
        let want = if ok {
            [dw(o), dw(o + 4), dw(o + 8), 1]
        } else {
            [0, 0, 0, 1]
        };
        for c in 0..4 {
            check_lane(&b, &a, 20 + c, l, exec, want[c]);
        }
        // d16 8_8 SINT: sign-extended bytes, 16 bits each.
        let s8 = |x: u8| x as i8 as i16 as u16 as u32;
        let want = if ok {
            s8(src[o]) | s8(src[o + 1]) << 16
        } else {
            0
        };
        check_lane(&b, &a, 24, l, exec, want);
    }
}
