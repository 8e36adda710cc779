//! Buffer, scratch, FLAT and miscellaneous scalar-state instructions: `s_buffer_load` and
//! MUBUF loads/stores with V# range checks (out-of-range lanes read 0 and store nothing,
//! although the bytes behind `num_records` exist), scratch in vaddr and saddr forms, FLAT
//! accesses resolving to LDS and global memory, aperture constants, and
//! `s_setreg`/`s_getreg` of MODE (which ends the block).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;
use wavejit_translator::env::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};

const BUF: u64 = 0x50_0000;
const FLATBUF: u64 = 0x60_0000;
const NREC: u32 = 0x40;

fn rd(b: &[u8], o: usize, n: usize) -> u32 {
    let mut x = [0u8; 4];
    x[..n].copy_from_slice(&b[o..o + n]);
    u32::from_le_bytes(x)
}

#[test]
fn buffers_scratch_flat_and_mode() {
    #[rustfmt::skip]
    let words = [
        0xc0260282, 0x00000008, // s_buffer_load_dwordx2 s[10:11], s[4:7], 0x8
        0xc0220302, 0x0000003c, // s_buffer_load_dword s12, s[4:7], 0x3c
        0xc0220342, 0x00000040, // s_buffer_load_dword s13, s[4:7], 0x40
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xe0501004, 0x80010100, // buffer_load_dword v1, v0, s[4:7], 0 offen offset:4
        0xe0541000, 0x0e010200, // buffer_load_dwordx2 v[2:3], v0, s[4:7], s14 offen
        0xe0701008, 0x80010400, // buffer_store_dword v4, v0, s[4:7], 0 offen offset:8
        0xe0400007, 0x0f010500, // buffer_load_ubyte v5, off, s[4:7], s15 offset:7
        0xdc706010, 0x007f0706, // scratch_store_dword v6, v7, off offset:16
        0xdc506010, 0x087f0006, // scratch_load_dword v8, v6, off offset:16
        0xdc744020, 0x00100a00, // scratch_store_dwordx2 off, v[10:11], s16 offset:32
        0xdc544020, 0x0c100000, // scratch_load_dwordx2 v[12:13], off, s16 offset:32
        0xdc700000, 0x0000100e, // flat_store_dword v[14:15], v16
        0xdc500004, 0x1100000e, // flat_load_dword v17, v[14:15] offset:4
        0xbe9201eb, // s_mov_b64 s[18:19], src_shared_base
        0x7e2402ed, // v_mov_b32_e32 v18, src_private_base
        0xba001901, 0x0000000a, // s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 4), 10
        0xb8964801, // s_getreg_b32 s22, hwreg(HW_REG_MODE, 0, 10)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut rng = Rng(42);
    let buf: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let fbuf: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
    let mut mem = Mem::new(1024);
    mem.add(BUF, buf.clone());
    mem.add(FLATBUF, fbuf.clone());
    let lds0 = mem.lds.clone();
    let (b, a) = run_words(&words, 12, exec, &mut mem, |s| {
        s.sgpr[4] = BUF as u32;
        s.sgpr[5] = (BUF >> 32) as u32; // stride 0
        s.sgpr[6] = NREC;
        s.sgpr[7] = 0x0002_7000;
        s.sgpr[14] = 8;
        s.sgpr[15] = 50;
        s.sgpr[16] = 64;
        s.mode = 0x3f0;
        for l in 0..64 {
            s.vgpr[0][l] = 4 * l as u32;
            s.vgpr[6][l] = 4 * (l % 8) as u32;
            let p = if l % 2 == 0 {
                SHARED_APERTURE_BASE + 8 * l as u64
            } else {
                FLATBUF + 8 * l as u64
            };
            s.vgpr[14][l] = p as u32;
            s.vgpr[15][l] = (p >> 32) as u32;
        }
    });
    let act = |l: usize| exec >> l & 1 != 0;
    let v = |r: usize, l: usize| b.vgpr[r][l];
    // s_buffer_load: in range, and out of range (offset 0x40 = num_records) reads 0.
    assert_eq!(a.sgpr[10], rd(&buf, 8, 4));
    assert_eq!(a.sgpr[11], rd(&buf, 12, 4));
    assert_eq!(a.sgpr[12], rd(&buf, 0x3c, 4));
    assert_eq!(a.sgpr[13], 0);
    // MUBUF loads: a dword is in range when all of its bytes are below num_records.
    let in_range = |off: usize, n: usize| off + n <= NREC as usize;
    let load = |off: usize, n: usize| {
        if in_range(off, n) {
            rd(&buf, off, n)
        } else {
            0
        }
    };
    check_vgpr(&b, &a, 1, exec, |l| load(4 * l + 4, 4));
    check_vgpr(&b, &a, 2, exec, |l| load(4 * l + 8, 4));
    check_vgpr(&b, &a, 3, exec, |l| load(4 * l + 12, 4));
    check_vgpr(&b, &a, 5, exec, |_| load(57, 1));
    let mut hb = buf.clone();
    for l in (0..64).filter(|&l| act(l) && in_range(4 * l + 8, 4)) {
        hb[4 * l + 8..4 * l + 12].copy_from_slice(&v(4, l).to_le_bytes());
    }
    assert!(mem.region(BUF) == &hb[..], "buffer contents differ");
    // Scratch: per-lane private memory.
    check_vgpr(&b, &a, 8, exec, |l| v(7, l));
    check_vgpr(&b, &a, 12, exec, |l| v(10, l));
    check_vgpr(&b, &a, 13, exec, |l| v(11, l));
    for l in 0..64 {
        let s = &mem.scratch[l];
        if act(l) {
            let o = 16 + 4 * (l % 8);
            assert_eq!(rd(s, o, 4), v(7, l), "scratch lane {l}");
            assert_eq!(rd(s, 96, 4), v(10, l), "scratch lane {l}");
        } else {
            assert!(
                s.iter().all(|&x| x == 0x5a),
                "inactive lane {l} wrote scratch"
            );
        }
    }
    // FLAT: even lanes in the shared aperture (LDS), odd lanes global.
    let mut hl = lds0;
    let mut hf = fbuf.clone();
    for l in (0..64).filter(|&l| act(l)) {
        let dst = if l % 2 == 0 { &mut hl } else { &mut hf };
        dst[8 * l..8 * l + 4].copy_from_slice(&v(16, l).to_le_bytes());
    }
    assert!(mem.lds == hl, "LDS via FLAT differs");
    assert!(mem.region(FLATBUF) == &hf[..], "global via FLAT differs");
    check_vgpr(&b, &a, 17, exec, |l| {
        if l % 2 == 0 {
            rd(&hl, 8 * l + 4, 4)
        } else {
            rd(&hf, 8 * l + 4, 4)
        }
    });
    assert_eq!(a.sgpr64(18), SHARED_APERTURE_BASE);
    check_vgpr(&b, &a, 18, exec, |_| (PRIVATE_APERTURE_BASE >> 32) as u32);
    assert_eq!(a.mode, 0x3a0);
    assert_eq!(a.sgpr[22], 0x3a0);
}
