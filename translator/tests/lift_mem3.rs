//! Scalar memory atomics and buffer stores, `s_buffer_load` range checks (out-of-range
//! dwords read 0 without touching memory, the stride scales the limit), cache no-ops, and
//! vector packed-half atomics. Expected values are computed here from the ISA pseudocode;
//! every block also runs in the JIT, which must agree with the interpreter.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

mod lift_support;
use lift_support::*;

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
