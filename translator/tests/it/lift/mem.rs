//! Memory instructions: SMEM loads of kernel arguments, GLOBAL loads (vaddr and saddr
//! forms, negative and positive offsets, sign/zero extension, dwordx4), stores of several
//! sizes, and atomics with and without return, under a partial EXEC. The expected memory is
//! computed by replaying the accesses on a host copy of the buffers.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

const KA: u64 = 0x10_0000;
const SRC: u64 = 0x20_0000;
const DST: u64 = 0x30_0000;

fn rd(b: &[u8], o: usize, n: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(&b[o..o + n]);
    u64::from_le_bytes(x)
}

fn wr(b: &mut [u8], o: usize, n: usize, v: u64) {
    b[o..o + n].copy_from_slice(&v.to_le_bytes()[..n]);
}

#[test]
fn smem_and_global_access() {
    #[rustfmt::skip]
    let words = [
        0xc00a0100, 0x00000010, // s_load_dwordx4 s[4:7], s[0:1], 0x10
        0xc0020200, 0x00000004, // s_load_dword s8, s[0:1], 0x4
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xdc509ff8, 0x0a7f0002, // global_load_dword v10, v[2:3], off offset:-8
        0xdc5c8010, 0x0c040001, // global_load_dwordx4 v[12:15], v1, s[4:5] offset:16
        0xdc448003, 0x107f0002, // global_load_sbyte v16, v[2:3], off offset:3
        0xdc488006, 0x11040001, // global_load_ushort v17, v1, s[4:5] offset:6
        0xdc4c8006, 0x12040001, // global_load_sshort v18, v1, s[4:5] offset:6
        0xdc708004, 0x00061301, // global_store_dword v1, v19, s[6:7] offset:4
        0xdc688200, 0x00061401, // global_store_short v1, v20, s[6:7] offset:512
        0xdc748400, 0x00061601, // global_store_dwordx2 v1, v[22:23], s[6:7] offset:1024
        0xdd098800, 0x18061901, // global_atomic_add v24, v1, v25, s[6:7] offset:2048 sc0
        0xdd058040, 0x1a001c1b, // global_atomic_cmpswap v26, v27, v[28:29], s[0:1] offset:64 sc0
        0xdd1c8044, 0x00001e1b, // global_atomic_umax v27, v30, s[0:1] offset:68
        0xbf8c0f70, // s_waitcnt vmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut rng = Rng(99);
    let mut ka: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
    wr(&mut ka, 0x10, 8, SRC);
    wr(&mut ka, 0x18, 8, DST);
    let src: Vec<u8> = (0..4096).map(|_| rng.next() as u8).collect();
    let dst = vec![0xcdu8; 4096];
    let mut mem = Mem::new(0);
    mem.add(KA, ka.clone());
    mem.add(SRC, src.clone());
    mem.add(DST, dst.clone());
    let (b, a) = run_words(&words, 5, exec, &mut mem, |s| {
        s.set_sgpr64(0, KA);
        for l in 0..64 {
            s.vgpr[1][l] = 16 * l as u32;
            let p = SRC + 8 + 4 * l as u64;
            s.vgpr[2][l] = p as u32;
            s.vgpr[3][l] = (p >> 32) as u32;
            s.vgpr[27][l] = 8 * l as u32;
            if l % 2 == 0 {
                // cmpswap compare value equal to memory in even lanes.
                s.vgpr[29][l] = rd(&ka, 64 + 8 * l, 4) as u32;
            }
        }
    });
    // SMEM.
    assert_eq!(a.sgpr64(4), SRC);
    assert_eq!(a.sgpr64(6), DST);
    assert_eq!(a.sgpr[8], rd(&ka, 4, 4) as u32);
    // Loads.
    check_vgpr(&b, &a, 10, exec, |l| rd(&src, 4 * l, 4) as u32);
    for i in 0..4 {
        check_vgpr(&b, &a, 12 + i, exec, |l| {
            rd(&src, 16 * l + 16 + 4 * i, 4) as u32
        });
    }
    check_vgpr(&b, &a, 16, exec, |l| src[8 + 4 * l + 3] as i8 as i32 as u32);
    check_vgpr(&b, &a, 17, exec, |l| rd(&src, 16 * l + 6, 2) as u32);
    check_vgpr(&b, &a, 18, exec, |l| {
        rd(&src, 16 * l + 6, 2) as u16 as i16 as i32 as u32
    });
    // Stores and atomics replayed on host copies, in instruction then lane order.
    let mut hd = dst.clone();
    let mut hk = ka.clone();
    let active = |l: usize| exec >> l & 1 != 0;
    let v = |r: usize, l: usize| b.vgpr[r][l] as u64;
    for l in (0..64).filter(|&l| active(l)) {
        wr(&mut hd, 16 * l + 4, 4, v(19, l));
    }
    for l in (0..64).filter(|&l| active(l)) {
        wr(&mut hd, 16 * l + 512, 2, v(20, l));
    }
    for l in (0..64).filter(|&l| active(l)) {
        wr(&mut hd, 16 * l + 1024, 4, v(22, l));
        wr(&mut hd, 16 * l + 1028, 4, v(23, l));
    }
    let mut add_old = [0u32; 64];
    for l in (0..64).filter(|&l| active(l)) {
        let o = 16 * l + 2048;
        let old = rd(&hd, o, 4);
        add_old[l] = old as u32;
        wr(
            &mut hd,
            o,
            4,
            (old as u32).wrapping_add(v(25, l) as u32) as u64,
        );
    }
    let mut cas_old = [0u32; 64];
    for l in (0..64).filter(|&l| active(l)) {
        let o = 64 + 8 * l;
        let old = rd(&hk, o, 4);
        cas_old[l] = old as u32;
        if old == v(29, l) {
            wr(&mut hk, o, 4, v(28, l));
        }
    }
    for l in (0..64).filter(|&l| active(l)) {
        let o = 68 + 8 * l;
        let old = rd(&hk, o, 4);
        wr(&mut hk, o, 4, old.max(v(30, l)));
    }
    assert!(mem.region(DST) == &hd[..], "destination buffer differs");
    assert!(
        mem.region(KA) == &hk[..],
        "kernarg buffer (atomics) differs"
    );
    check_vgpr(&b, &a, 24, exec, |l| add_old[l]);
    check_vgpr(&b, &a, 26, exec, |l| cas_old[l]);
    // umax without return leaves v27 (its address operand) alone.
    check_vgpr(&b, &a, 27, exec, |l| 8 * l as u32);
}
