//! LDS instructions: writes (b32, write2, write2st64), reads (b32, read2, read2st64, u8,
//! i16, b64), a returning atomic with colliding lanes, and the cross-lane `ds_bpermute_b32`
//! and `ds_swizzle_b32` (swap, quad permute, bitmask permute), under a partial EXEC.
//! Expected LDS contents come from replaying the accesses on a host copy in lane order;
//! swizzle source lanes are derived from LLVM's swizzle macros, not from the lifter's decoding.

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
fn lds_reads_writes_atomics_and_swizzles() {
    #[rustfmt::skip]
    let words = [
        0xd81a0004, 0x00000201, // ds_write_b32 v1, v2 offset:4
        0xd81c0302, 0x00040301, // ds_write2_b32 v1, v3, v4 offset0:2 offset1:3
        0xd81e0201, 0x00070605, // ds_write2st64_b32 v5, v6, v7 offset0:1 offset1:2
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xd86c0004, 0x08000001, // ds_read_b32 v8, v1 offset:4
        0xd86e0302, 0x0a000001, // ds_read2_b32 v[10:11], v1 offset0:2 offset1:3
        0xd8700201, 0x0c000005, // ds_read2st64_b32 v[12:13], v5 offset0:1 offset1:2
        0xd8740005, 0x0e000001, // ds_read_u8 v14, v1 offset:5
        0xd8760006, 0x0f000001, // ds_read_i16 v15, v1 offset:6
        0xd8ec0008, 0x10000001, // ds_read_b64 v[16:17], v1 offset:8
        0xd8400000, 0x12001413, // ds_add_rtn_u32 v18, v19, v20
        0xd87e0000, 0x15000216, // ds_bpermute_b32 v21, v22, v2
        0xd87a041f, 0x17000002, // ds_swizzle_b32 v23, v2 offset:swizzle(SWAP,1)
        0xd87a801b, 0x18000002, // ds_swizzle_b32 v24, v2 offset:swizzle(QUAD_PERM,3,2,1,0)
        0xd87a0907, 0x19000002, // ds_swizzle_b32 v25, v2 offset:swizzle(BITMASK_PERM,"01pip")
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(65536);
    let lds0 = mem.lds.clone();
    let (b, a) = run_words(&words, 17, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[1][l] = 32 * l as u32;
            s.vgpr[5][l] = 8192 + 4 * l as u32;
            s.vgpr[19][l] = 16384 + 4 * (l % 8) as u32;
        }
    });
    let act = |l: usize| exec >> l & 1 != 0;
    let v = |r: usize, l: usize| b.vgpr[r][l] as u64;
    let mut h = lds0;
    for l in (0..64).filter(|&l| act(l)) {
        wr(&mut h, 32 * l + 4, 4, v(2, l));
    }
    for l in (0..64).filter(|&l| act(l)) {
        wr(&mut h, 32 * l + 8, 4, v(3, l));
        wr(&mut h, 32 * l + 12, 4, v(4, l));
    }
    for l in (0..64).filter(|&l| act(l)) {
        wr(&mut h, 8192 + 4 * l + 256, 4, v(6, l));
        wr(&mut h, 8192 + 4 * l + 512, 4, v(7, l));
    }
    let after_writes = h.clone();
    let mut add_old = [0u32; 64];
    for l in (0..64).filter(|&l| act(l)) {
        let o = v(19, l) as usize;
        let old = rd(&h, o, 4) as u32;
        add_old[l] = old;
        wr(&mut h, o, 4, old.wrapping_add(v(20, l) as u32) as u64);
    }
    assert!(mem.lds == h, "LDS contents differ");
    let w = &after_writes;
    check_vgpr(&b, &a, 8, exec, |l| rd(w, 32 * l + 4, 4) as u32);
    check_vgpr(&b, &a, 10, exec, |l| rd(w, 32 * l + 8, 4) as u32);
    check_vgpr(&b, &a, 11, exec, |l| rd(w, 32 * l + 12, 4) as u32);
    check_vgpr(&b, &a, 12, exec, |l| rd(w, 8192 + 4 * l + 256, 4) as u32);
    check_vgpr(&b, &a, 13, exec, |l| rd(w, 8192 + 4 * l + 512, 4) as u32);
    check_vgpr(&b, &a, 14, exec, |l| w[32 * l + 5] as u32);
    check_vgpr(&b, &a, 15, exec, |l| {
        rd(w, 32 * l + 6, 2) as u16 as i16 as i32 as u32
    });
    check_vgpr(&b, &a, 16, exec, |l| rd(w, 32 * l + 8, 4) as u32);
    check_vgpr(&b, &a, 17, exec, |l| rd(w, 32 * l + 12, 4) as u32);
    check_vgpr(&b, &a, 18, exec, |l| add_old[l]);
    // Cross-lane: an inactive source lane reads as 0.
    let from = |src: usize| if act(src) { b.vgpr[2][src] } else { 0 };
    check_vgpr(&b, &a, 21, exec, |l| {
        from((b.vgpr[22][l] as usize >> 2) & 63)
    });
    check_vgpr(&b, &a, 23, exec, |l| from(l ^ 1));
    check_vgpr(&b, &a, 24, exec, |l| from((l & !3) + [3, 2, 1, 0][l & 3]));
    // "01pip" from bit 4 to bit 0: 0, 1, preserve, invert, preserve (within 32 lanes).
    check_vgpr(&b, &a, 25, exec, |l| {
        from((l & 32) | 8 | (l & 4) | (!l & 2) | (l & 1))
    });
}

/// `ds_permute_b32` (forward permute): active lanes send their data to lane
/// `((addr + offset) / 4) & 63`; a later lane wins a collision; unwritten lanes get 0.
#[test]
fn forward_permute() {
    #[rustfmt::skip]
    let words = [
        0xd87c0008, 0x03000204, // ds_permute_b32 v3, v4, v2 offset:8
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 51, exec, &mut mem, |s| {
        for l in 0..64 {
            // Collisions (l % 5 == 0 lanes all target lane 7) and wrapping indices.
            s.vgpr[4][l] = if l % 5 == 0 { 4 * 7 - 8 } else { s.vgpr[4][l] };
        }
    });
    let mut tmp = [0u32; 64];
    for i in (0..64).filter(|&i| exec >> i & 1 != 0) {
        let d = ((b.vgpr[4][i].wrapping_add(8) >> 2) & 63) as usize;
        tmp[d] = b.vgpr[2][i];
    }
    check_vgpr(&b, &a, 3, exec, |l| tmp[l]);
}
