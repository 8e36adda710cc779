//! RDNA memory atomics without a GFX9 counterpart: gfx11 `csub_u32` / gfx12 `sub_clamp_u32`,
//! gfx12 `cond_sub_u32` and gfx11 `cmpswap_f32`, on GLOBAL, FLAT, MUBUF and LDS.
//!
//! Instruction words come from `llvm-mc-22 -show-encoding` (assembly next to each word);
//! expected values are host computations of the RDNA4 ISA Table 49 rules
//! (SUB_CLAMP: `src > dst ? 0 : dst - src`; COND_SUB: `src > dst ? dst : dst - src`;
//! CMPSWAP_F32: IEEE `dst == cmp ? src : dst`). Every block also runs in the JIT, which must
//! agree with the interpreter (`crate::lift_support::run_on`).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::{clone_state, run_on, Code, Mem, Rng};
use wavejit_translator::env::ExitCode;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::WaveState;

const S_ENDPGM: u32 = 0xbfb00000;
/// Partial EXEC (wave32: the low half).
const EXEC: u64 = 0xF0F0_1234_FFFF_8A61;
const BASE: u64 = 0x4000_0000;

fn tgt(gpu: Gpu) -> Target {
    Target { gpu, wave_size: 32 }
}

fn dw(m: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(m[4 * i..4 * i + 4].try_into().unwrap())
}

/// Random wave32 state whose lane `l` addresses `BASE + 8 * l` through v[2:3].
fn state(seed: u64) -> Box<WaveState> {
    state_of(32, seed)
}

/// [`state`] for a wave of `wave` lanes.
fn state_of(wave: u32, seed: u64) -> Box<WaveState> {
    let mut s = WaveState::new_boxed(wave);
    let mut r = Rng(seed | 1);
    for reg in s.vgpr.iter_mut() {
        for v in reg.iter_mut() {
            *v = r.u32();
        }
    }
    for v in s.sgpr.iter_mut() {
        *v = r.u32();
    }
    s.set_exec(EXEC);
    s.mode = 0xf0;
    s.pc = crate::lift_support::CODE_BASE;
    for l in 0..64 {
        let a = BASE + 8 * (l as u64 % 32);
        s.vgpr[2][l] = a as u32;
        s.vgpr[3][l] = (a >> 32) as u32;
    }
    s
}

/// Memory word `i`: small values so that the data is above, equal to and below it.
fn mem0(seed: u64) -> Vec<u8> {
    let mut r = Rng(seed);
    (0..80)
        .flat_map(|_| (r.u32() % 40 + 1).to_le_bytes())
        .collect()
}

fn run(gpu: Gpu, words: &[u32], s: &mut WaveState, mem: &mut Mem) {
    let r = run_on(&tgt(gpu), &Code::from_words(words), s, mem).expect("program runs");
    assert_eq!(r, ExitCode::EndPgm);
}

/// SUB_CLAMP: `src > dst ? 0 : dst - src`, i.e. the saturating difference.
fn sub_clamp(old: u32, d: u32) -> u32 {
    old.saturating_sub(d)
}

fn cond_sub(old: u32, d: u32) -> u32 {
    if d > old {
        old
    } else {
        old - d
    }
}

fn check_ret(b: &WaveState, s: &WaveState, reg: usize, want: impl Fn(usize) -> u32) {
    for l in 0..32 {
        let w = if EXEC >> l & 1 != 0 {
            want(l)
        } else {
            b.vgpr[reg][l]
        };
        assert_eq!(s.vgpr[reg][l], w, "v{reg} lane {l}");
    }
}

#[test]
fn gfx11_csub_and_cmpswap_f32() {
    #[rustfmt::skip]
    let words = [
        0xdcde4000, 0x017c0402, // global_atomic_csub_u32 v1, v[2:3], v4, off glc
        0xdd424004, 0x067c0802, // global_atomic_cmpswap_f32 v6, v[2:3], v[8:9], off offset:4 glc
        S_ENDPGM,
    ];
    let m0 = mem0(7);
    let mut mem = Mem::new(0);
    // Word 1 of each lane is an f32 for the compare-swap.
    let floats = [
        1.5f32,
        0.0,
        -0.0,
        f32::NAN,
        -3.0,
        2.0e-39,
        f32::INFINITY,
        7.25,
    ];
    let mut init = m0.clone();
    for l in 0..32 {
        let f = floats[l % 8].to_bits();
        init[8 * l + 4..8 * l + 8].copy_from_slice(&f.to_le_bytes());
    }
    mem.add(BASE, init.clone());
    let mut s = state(11);
    for l in 0..32 {
        s.vgpr[4][l] = (l as u32 * 5) % 43; // above, equal to and below the memory word
        s.vgpr[8][l] = 0x4000_0000 + l as u32; // new value
                                               // cmp: equal bits, the other zero, NaN (same bits), or a different number.
        let old = floats[l % 8];
        s.vgpr[9][l] = match l / 8 {
            0 => old.to_bits(),
            1 => (-old).to_bits(),
            2 => old.to_bits() ^ 1,
            _ => old.to_bits(),
        };
    }
    let b = clone_state(&s);
    run(Gpu::GFX1100, &words, &mut s, &mut mem);
    check_ret(&b, &s, 1, |l| dw(&init, 2 * l));
    check_ret(&b, &s, 6, |l| dw(&init, 2 * l + 1));
    let got = mem.region(BASE);
    for l in 0..32 {
        let on = EXEC >> l & 1 != 0;
        let (o0, o1) = (dw(&init, 2 * l), dw(&init, 2 * l + 1));
        let w0 = if on { sub_clamp(o0, b.vgpr[4][l]) } else { o0 };
        let eq = f32::from_bits(o1) == f32::from_bits(b.vgpr[9][l]);
        let w1 = if on && eq { b.vgpr[8][l] } else { o1 };
        assert_eq!(dw(got, 2 * l), w0, "lane {l} csub");
        assert_eq!(dw(got, 2 * l + 1), w1, "lane {l} cmpswap_f32");
    }
    // The cases the test means to cover all occur: swapped (+0/-0 too) and kept (NaN).
    assert!((0..32).any(|l| EXEC >> l & 1 != 0 && dw(got, 2 * l + 1) == b.vgpr[8][l]));
    assert!((0..32).any(|l| EXEC >> l & 1 != 0 && l % 8 == 3 && dw(got, 2 * l + 1) != b.vgpr[8][l]));
}

#[test]
fn gfx12_sub_clamp_and_cond_sub() {
    #[rustfmt::skip]
    let words = [
        0xee0dc07c, 0x02100001, 0x00000002, // global_atomic_sub_clamp_u32 v1, v[2:3], v4, off th:TH_ATOMIC_RETURN
        0xee14007c, 0x02900006, 0x00000402, // global_atomic_cond_sub_u32 v6, v[2:3], v5, off offset:4 th:TH_ATOMIC_RETURN
        0xec14007c, 0x02800000, 0x00000402, // flat_atomic_cond_sub_u32 v[2:3], v5 offset:4
        S_ENDPGM,
    ];
    let init = mem0(9);
    let mut mem = Mem::new(0);
    mem.add(BASE, init.clone());
    let mut s = state(13);
    for l in 0..32 {
        s.vgpr[4][l] = (l as u32 * 7) % 41;
        s.vgpr[5][l] = (l as u32 * 3) % 23 + 1;
    }
    let b = clone_state(&s);
    run(Gpu::GFX1200, &words, &mut s, &mut mem);
    check_ret(&b, &s, 1, |l| dw(&init, 2 * l));
    check_ret(&b, &s, 6, |l| dw(&init, 2 * l + 1));
    let got = mem.region(BASE);
    for l in 0..32 {
        let on = EXEC >> l & 1 != 0;
        let (o0, o1) = (dw(&init, 2 * l), dw(&init, 2 * l + 1));
        let w0 = if on { sub_clamp(o0, b.vgpr[4][l]) } else { o0 };
        let d = b.vgpr[5][l];
        let w1 = if on { cond_sub(cond_sub(o1, d), d) } else { o1 };
        assert_eq!(dw(got, 2 * l), w0, "lane {l} sub_clamp");
        assert_eq!(dw(got, 2 * l + 1), w1, "lane {l} cond_sub twice");
    }
}

#[test]
fn gfx11_buffer_csub() {
    // buffer_atomic_csub_u32 v10, off, s[4:7], 0 offset:8 glc: every lane hits BASE + 8, in
    // lane order (the returned values chain).
    let words = [0xe0dc4008, 0x80010a00, S_ENDPGM];
    let init = mem0(5);
    let mut mem = Mem::new(0);
    mem.add(BASE, init.clone());
    let mut s = state(17);
    // Raw V#: base, stride 0, num_records 64, OOB_SELECT 1 (index check only).
    s.sgpr[4] = BASE as u32;
    s.sgpr[5] = (BASE >> 32) as u32;
    s.sgpr[6] = 64;
    s.sgpr[7] = 1 << 28;
    for l in 0..32 {
        s.vgpr[10][l] = l as u32 % 3 + 2;
    }
    let b = clone_state(&s);
    run(Gpu::GFX1100, &words, &mut s, &mut mem);
    let mut cur = dw(&init, 2);
    for l in 0..32 {
        if EXEC >> l & 1 != 0 {
            assert_eq!(s.vgpr[10][l], cur, "lane {l} returned");
            cur = sub_clamp(cur, b.vgpr[10][l]);
        } else {
            assert_eq!(s.vgpr[10][l], b.vgpr[10][l], "lane {l} kept");
        }
    }
    assert_eq!(dw(mem.region(BASE), 2), cur);
    assert_eq!(cur, 0, "the chain reaches the clamp");
}

/// Typed buffer loads and stores through a raw V# (stride 0, OOB_SELECT 3, 24 elements in
/// range) with the unified format 46 = 8_8_8_8_UINT (RDNA4 ISA Table 62) and identity
/// DST_SEL; the MTBUF load uses its own format 28 = 16_16_SINT. Lanes 24.. are out of range:
/// loads give 0, stores are dropped. A store of fewer components repeats X (ISA 9.3).
#[test]
fn typed_buffer_access_gfx11_and_gfx12() {
    #[rustfmt::skip]
    let gfx11 = [
        0xe00c0000, 0x80420401, // buffer_load_format_xyzw v[4:7], v1, s[8:11], 0 offen
        0xe8e08000, 0x80420a01, // tbuffer_load_format_xy v[10:11], v1, s[8:11], 0 format:[BUF_FMT_16_16_SINT] offen
        0xe0280000, 0x80420e01, // buffer_load_d16_format_xyz v[14:15], v1, s[8:11], 0 offen
        0xe0140000, 0x80420c02, // buffer_store_format_xy v[12:13], v2, s[8:11], 0 offen
        S_ENDPGM,
    ];
    #[rustfmt::skip]
    let gfx12 = [
        0xc400c07c, 0x40801004, 0x00000001, // buffer_load_format_xyzw v[4:7], v1, s[8:11], null offen
        0xc420407c, 0x4e00100a, 0x00000001, // tbuffer_load_format_xy v[10:11], v1, s[8:11], null format:[BUF_FMT_16_16_SINT] offen
        0xc402807c, 0x4080100e, 0x00000001, // buffer_load_d16_format_xyz v[14:15], v1, s[8:11], null offen
        0xc401407c, 0x4080100c, 0x00000002, // buffer_store_format_xy v[12:13], v2, s[8:11], null offen
        S_ENDPGM,
    ];
    for (gpu, words) in [(Gpu::GFX1100, &gfx11[..]), (Gpu::GFX1200, &gfx12[..])] {
        let mut r = Rng(0x5eed);
        let init: Vec<u8> = (0..32)
            .flat_map(|_| (r.u32() | 0x8080).to_le_bytes())
            .collect();
        let mut mem = Mem::new(0);
        mem.add(BASE, init.clone());
        let mut s = state(23);
        s.sgpr[8] = BASE as u32;
        s.sgpr[9] = (BASE >> 32) as u32; // stride 0, no swizzle
        s.sgpr[10] = 4 * 24;
        s.sgpr[11] = 0xfac | 46 << 12 | 3 << 28;
        for l in 0..32 {
            s.vgpr[1][l] = 4 * l as u32;
            s.vgpr[2][l] = 4 * l as u32;
            s.vgpr[12][l] = (l as u32 * 37 + 11) % 256;
            s.vgpr[13][l] = (l as u32 * 91 + 200) % 256;
        }
        let b = clone_state(&s);
        run(gpu, words, &mut s, &mut mem);
        let byte = |l: usize, i: usize| if l < 24 { init[4 * l + i] as u32 } else { 0 };
        let half = |l: usize, i: usize| (byte(l, 2 * i) | byte(l, 2 * i + 1) << 8) as u16;
        for c in 0..4 {
            check_ret(&b, &s, 4 + c, |l| byte(l, c));
        }
        check_ret(&b, &s, 10, |l| half(l, 0) as i16 as i32 as u32);
        check_ret(&b, &s, 11, |l| half(l, 1) as i16 as i32 as u32);
        check_ret(&b, &s, 14, |l| byte(l, 0) | byte(l, 1) << 16);
        check_ret(&b, &s, 15, |l| b.vgpr[15][l] & 0xffff_0000 | byte(l, 2));
        let got = mem.region(BASE);
        for l in 0..32 {
            let w = if EXEC >> l & 1 != 0 && l < 24 {
                // Missing Z and W repeat X (RDNA4 ISA 9.3).
                let x = b.vgpr[12][l];
                x | b.vgpr[13][l] << 8 | x << 16 | x << 24
            } else {
                dw(&init, l)
            };
            assert_eq!(dw(got, l), w, "{gpu} lane {l} stored element");
        }
    }
}

/// d16 loads of 32-bit floats truncate to f16 (RDNA4 ISA 9.3.1): MTBUF with format 22 =
/// 32_FLOAT into the low half, MUBUF with the V#'s format 22 into the high half.
#[test]
fn typed_d16_f32_truncates() {
    #[rustfmt::skip]
    let gfx11 = [
        0xe8b40000, 0x80421001, // tbuffer_load_d16_format_x v16, v1, s[8:11], 0 format:[BUF_FMT_32_FLOAT] offen
        0xe0980000, 0x80421101, // buffer_load_d16_hi_format_x v17, v1, s[8:11], 0 offen
        S_ENDPGM,
    ];
    #[rustfmt::skip]
    let gfx12 = [
        0xc422007c, 0x4b001010, 0x00000001, // tbuffer_load_d16_format_x v16, v1, s[8:11], null format:[BUF_FMT_32_FLOAT] offen
        0xc409807c, 0x40801011, 0x00000001, // buffer_load_d16_hi_format_x v17, v1, s[8:11], null offen
        S_ENDPGM,
    ];
    // (f32, its f16 rounded toward zero), worked by hand: 1 + 3·2^-12 (RNE would give
    // 0x3c01), its negation, 65520 (RNE: infinity), 0.75·2^-24 (RNE: 0x0001), 1.5 (exact).
    let cases: [(f32, u32); 5] = [
        (1.0 + 3.0 / 4096.0, 0x3c00),
        (-(1.0 + 3.0 / 4096.0), 0xbc00),
        (65520.0, 0x7bff),
        (0.75 / 16_777_216.0, 0x0000),
        (1.5, 0x3e00),
    ];
    for (gpu, words) in [(Gpu::GFX1100, &gfx11[..]), (Gpu::GFX1200, &gfx12[..])] {
        let init: Vec<u8> = (0..32)
            .flat_map(|l| cases[l % 5].0.to_bits().to_le_bytes())
            .collect();
        let mut mem = Mem::new(0);
        mem.add(BASE, init);
        let mut s = state(29);
        s.sgpr[8] = BASE as u32;
        s.sgpr[9] = (BASE >> 32) as u32;
        s.sgpr[10] = 4 * 32;
        s.sgpr[11] = 0xfac | 22 << 12 | 3 << 28;
        for l in 0..32 {
            s.vgpr[1][l] = 4 * l as u32;
        }
        let b = clone_state(&s);
        run(gpu, words, &mut s, &mut mem);
        check_ret(&b, &s, 16, |l| b.vgpr[16][l] & 0xffff_0000 | cases[l % 5].1);
        check_ret(&b, &s, 17, |l| {
            b.vgpr[17][l] & 0xffff | cases[l % 5].1 << 16
        });
    }
}

#[test]
fn gfx12_lds_cond_sub_and_sub_clamp_wave32_and_wave64() {
    #[rustfmt::skip]
    let words = [
        0xdaa00004, 0x05000201, // ds_cond_sub_rtn_u32 v5, v1, v2 offset:4
        0xdaa40000, 0x06000301, // ds_sub_clamp_rtn_u32 v6, v1, v3
        0xda600008, 0x00000401, // ds_cond_sub_u32 v1, v4 offset:8
        0xda64000c, 0x00000401, // ds_sub_clamp_u32 v1, v4 offset:12
        S_ENDPGM,
    ];
    for wave in [32u32, 64] {
        let lanes = wave as usize;
        let mut s = state_of(wave, 17);
        let mut r = Rng(21);
        for l in 0..64 {
            // Lane l owns LDS words 4l .. 4l + 3.
            s.vgpr[1][l] = 16 * l as u32;
            for reg in [2, 3, 4] {
                s.vgpr[reg][l] = r.u32() % 41 + 1;
            }
        }
        let mut mem = Mem::new(0);
        mem.lds = (0..4 * 64)
            .flat_map(|_| (r.u32() % 40 + 1).to_le_bytes())
            .collect();
        let init = mem.lds.clone();
        let b = clone_state(&s);
        let t = Target {
            gpu: Gpu::GFX1200,
            wave_size: wave,
        };
        let rc = run_on(&t, &Code::from_words(&words), &mut s, &mut mem).expect("program runs");
        assert_eq!(rc, ExitCode::EndPgm);
        for l in 0..64 {
            let on = l < lanes && EXEC >> l & 1 != 0;
            let old = |k: usize| dw(&init, 4 * l + k);
            let (d2, d3, d4) = (b.vgpr[2][l], b.vgpr[3][l], b.vgpr[4][l]);
            let want = if on {
                [
                    sub_clamp(old(0), d3),
                    cond_sub(old(1), d2),
                    cond_sub(old(2), d4),
                    sub_clamp(old(3), d4),
                ]
            } else {
                [old(0), old(1), old(2), old(3)]
            };
            for (k, w) in want.into_iter().enumerate() {
                assert_eq!(dw(&mem.lds, 4 * l + k), w, "wave{wave} lane {l} word {k}");
            }
            if l < lanes {
                let (r5, r6) = if on {
                    (old(1), old(0))
                } else {
                    (b.vgpr[5][l], b.vgpr[6][l])
                };
                assert_eq!(s.vgpr[5][l], r5, "wave{wave} lane {l} cond_sub return");
                assert_eq!(s.vgpr[6][l], r6, "wave{wave} lane {l} sub_clamp return");
            }
        }
    }
}
