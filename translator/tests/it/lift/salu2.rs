//! SALU and SOPP additions: `s_quadmask`, `s_wqm`, `s_bitreplicate_b64_b32`,
//! `s_movrels`/`s_movreld` (dynamic SGPR index in M0, out-of-range reads 0 / writes
//! nothing), `s_call_b64`, and the system controls with an off-GPU meaning (debug-condition
//! branches never taken, `s_sendmsg` MSG_INTERRUPT, `s_setkill`, `s_sethalt 0`). Expected
//! values come from bit loops written here from the ISA definitions; every block also runs
//! in the JIT, which must agree with the interpreter.

use crate::lift_support::*;

fn quadmask(x: u64, quads: u32) -> u64 {
    (0..quads).fold(0, |r, i| r | (((x >> (4 * i)) & 0xf != 0) as u64) << i)
}

fn wqm(x: u64, quads: u32) -> u64 {
    (0..quads).fold(0, |r, i| {
        r | if (x >> (4 * i)) & 0xf != 0 {
            0xf << (4 * i)
        } else {
            0
        }
    })
}

#[test]
fn quad_masks_bit_replicate_movrel_call_and_system_controls() {
    #[rustfmt::skip]
    let words = [
        0xbe8a2804, // s_quadmask_b32 s10, s4
        0xbe8c2906, // s_quadmask_b64 s[12:13], s[6:7]
        0xbe8e0604, // s_wqm_b32 s14, s4
        0xbe900706, // s_wqm_b64 s[16:17], s[6:7]
        0xbe923704, // s_bitreplicate_b64_b32 s[18:19], s4
        0xbefc0083, // s_mov_b32 m0, 3
        0xbe942a1e, // s_movrels_b32 s20, s30
        0xbe962b1e, // s_movrels_b64 s[22:23], s[30:31]
        0xbea82c05, // s_movreld_b32 s40, s5
        0xbeac2d06, // s_movreld_b64 s[44:45], s[6:7]
        0xbf970001, // s_cbranch_cdbgsys 1
        0xbeb60087, // s_mov_b32 s54, 7
        0xbf980001, // s_cbranch_cdbguser 1
        0xbeb70089, // s_mov_b32 s55, 9
        0xbf900001, // s_sendmsg sendmsg(MSG_INTERRUPT)
        0xbf8b0000, // s_setkill 0
        0xbf8d0000, // s_sethalt 0
        0xbab20002, // s_call_b64 s[50:51], 2
        0xbf810000, // s_endpgm
        0xbf810000, // s_endpgm
        0xbeb400ff, 0x00001234, // s_mov_b32 s52, 0x1234
        0xbf8b0001, // s_setkill 1
        0xbeb500ff, 0x00005678, // s_mov_b32 s53, 0x5678
        0xbf810000, // s_endpgm
    ];
    let (b, a) = run_words(&words, 77, EXEC_PARTIAL, &mut Mem::new(64), |s| {
        s.sgpr[4] = 0x0f00_3010;
        s.sgpr[6] = 0x8000_0001;
        s.sgpr[7] = 0x0600_0000;
    });
    let s = |r: usize| b.sgpr[r];
    let s64 = |r: usize| s(r) as u64 | (s(r + 1) as u64) << 32;
    let g = |r: usize| a.sgpr[r];
    let g64 = |r: usize| g(r) as u64 | (g(r + 1) as u64) << 32;
    assert_eq!(g(10) as u64, quadmask(s(4) as u64, 8));
    assert_eq!(g64(12), quadmask(s64(6), 16));
    assert_eq!(g(14) as u64, wqm(s(4) as u64, 8));
    assert_eq!(g64(16), wqm(s64(6), 16));
    let rep = (0..32).fold(0u64, |r, i| r | (((s(4) >> i) & 1) as u64 * 3) << (2 * i));
    assert_eq!(g64(18), rep);
    // M0 = 3: s20 = s33, s[22:23] = s[33:34]; s43 = s5; s[47:48] = s[6:7].
    assert_eq!(g(20), s(33));
    assert_eq!((g(22), g(23)), (s(33), s(34)));
    assert_eq!(g(43), s(5));
    assert_eq!((g(47), g(48)), (s(6), s(7)));
    for r in [40, 44, 45, 46] {
        assert_eq!(g(r), s(r), "s{r} unchanged");
    }
    // The debug-condition branches are not taken.
    assert_eq!((g(54), g(55)), (7, 9));
    // s_call_b64 at word 17 (byte 0x44) saves the address of the next instruction and
    // jumps 2 words past it; s_setkill 1 then ends the wave before s53 is written.
    assert_eq!(g64(50), CODE_BASE + 0x48);
    assert_eq!(g(52), 0x1234);
    assert_eq!(g(53), s(53));
    // SCC comes from s_wqm_b64, the last instruction that writes it.
    assert_eq!(a.scc, (wqm(s64(6), 16) != 0) as u32);
}

#[test]
fn movrel_past_the_sgprs_reads_zero_and_writes_nothing() {
    #[rustfmt::skip]
    let words = [
        0xbefc00ff, 0x00000064, // s_mov_b32 m0, 0x64
        0xbe942a1e, // s_movrels_b32 s20, s30
        0xbea82c05, // s_movreld_b32 s40, s5
        0xbf810000, // s_endpgm
    ];
    let (b, a) = run_words(&words, 78, EXEC_PARTIAL, &mut Mem::new(64), |_| {});
    assert_eq!(a.sgpr[20], 0);
    for r in 0..102 {
        if r != 20 {
            assert_eq!(a.sgpr[r], b.sgpr[r], "s{r}");
        }
    }
}
