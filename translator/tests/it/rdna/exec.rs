//! RDNA execution, per instruction: true16 halves, row permutes, the scalar float ops, the
//! RDNA4 float min/max variants, buffer V# addressing and its out-of-range modes, and the
//! wave64 rules (both halves read the state from before the instruction; 64-bit masks).
//!
//! Instruction words come from `llvm-mc-22 -show-encoding` (the assembly is in the comment
//! next to each word); expected values are host computations or the ISA pseudocode (RDNA4
//! ISA, ch. 16) worked by hand. Every program runs in the interpreter and, block by block,
//! in the JIT from the same state, which must agree exactly.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays
#![allow(clippy::too_many_arguments)] // the buffer reference takes every address input

use crate::lift_support::{clone_state, Code, Mem, Rng, CODE_BASE};
use wavejit_translator::env::ExitCode;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::Exit;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

/// MODE of HIP kernels on RDNA: round to nearest even, f32 and f64/f16 denormals kept.
const MODE: u32 = 0xf0;

/// A state of `wave` lanes with every VGPR and SGPR random and non-zero, EXEC = `exec`.
fn state(wave: u32, seed: u64, exec: u64) -> Box<WaveState> {
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
    s.set_exec(exec);
    s.scc = 0;
    s.mode = MODE;
    s.pc = CODE_BASE;
    s
}

/// Runs `words` on `target` until `s_endpgm`: each block in the interpreter and, when it
/// compiles, in the JIT from the same state and memory (results must be identical).
fn run(target: Target, words: &[u32], s: &mut WaveState, mem: &mut Mem) {
    let code = Code::from_words(words);
    let jit = Jit::new().expect("JIT for the host");
    for _ in 0..1000 {
        let block = lift_block(&target, &code, s.pc, s.mode);
        if let Exit::Unsupported { reason, .. } = &block.exit {
            panic!("{}: unsupported: {reason}", target.gpu);
        }
        wavejit_translator::ir::verify(&block).expect("lifted block verifies");
        let mut js = clone_state(s);
        let mut jm = mem.clone();
        let r = run_block(&block, s, mem);
        if let Ok(compiled) = jit.compile(&block) {
            let jr = compiled.run(&mut js, &mut jm);
            let same = jr == r
                && js.vgpr == s.vgpr
                && js.sgpr == s.sgpr
                && js.scc == s.scc
                && js.pc == s.pc
                && js.counters == s.counters
                && jm == *mem;
            assert!(same, "JIT and interpreter differ on block:\n{block}");
        }
        match r.expect("block runs") {
            ExitCode::EndPgm => return,
            ExitCode::Continue | ExitCode::Barrier | ExitCode::Yield => {}
            other => panic!("unexpected exit {other:?}"),
        }
    }
    panic!("program did not end");
}

/// A target with an explicit wave size.
fn tgt(gpu: Gpu, wave: u32) -> Target {
    Target {
        gpu,
        wave_size: wave,
    }
}

/// Lanes active in the tests' partial EXEC (wave32 keeps the low half).
const EXEC: u64 = 0xF0F0_1234_FFFF_8001;

/// `want(lane)` in the active lanes of VGPR `reg`, its old value elsewhere.
fn check(before: &WaveState, after: &WaveState, reg: usize, want: impl Fn(usize) -> u32) {
    let exec = before.exec();
    for l in 0..64 {
        let w = if exec >> l & 1 != 0 {
            want(l)
        } else {
            before.vgpr[reg][l]
        };
        assert_eq!(
            after.vgpr[reg][l], w,
            "v{reg} lane {l}: got {:#x}, want {w:#x}",
            after.vgpr[reg][l]
        );
    }
}

const S_ENDPGM: u32 = 0xbfb00000;

/// f16 bits of `x` (exactly representable normal values only, as the tests use).
fn h(x: f32) -> u32 {
    let b = x.to_bits();
    let e = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!(
        (1..31).contains(&e) && b & 0x1fff == 0,
        "{x} is not an exact f16 normal"
    );
    (b >> 16) & 0x8000 | (e as u32) << 10 | (b >> 13) & 0x3ff
}

#[test]
fn true16_halves_keep_the_other_half() {
    #[rustfmt::skip]
    let words = [
        0x7f023902, // v_mov_b16_e32 v1.h, v2.l
        0x7e023982, // v_mov_b16_e32 v1.l, v2.h  (v1 = {v2.l, v2.h}: halves swapped)
        0xd7640803, 0x00020b04, // v_xor_b16 v3.l, v4.h, v5.l
        0xd7644003, 0x0001ff04, 0x00001234, // v_xor_b16 v3.h, v4.l, 0x1234
        0x7e0c1507, // v_cvt_f16_f32_e32 v6.l, v7
        0xd7625809, 0x0002170a, // v_and_b16 v9.h, v10.h, v11.h
        0x7e18d38d, // v_not_b16_e32 v12.l, v13.h
        0x6b1d210f, // v_mul_f16_e32 v14.h, v15.l, v16.h
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 11, EXEC);
        for l in 0..64 {
            s.vgpr[7][l] = (1.5f32 + l as f32).to_bits();
            s.vgpr[15][l] = h(0.75) | 0xdead_0000;
            s.vgpr[16][l] = h(-2.0 - l as f32) << 16 | 0xbeef;
        }
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let v = |r: usize, l: usize| b.vgpr[r][l];
        check(&b, &s, 1, |l| (v(2, l) & 0xffff) << 16 | v(2, l) >> 16);
        check(&b, &s, 3, |l| {
            let lo = (v(4, l) >> 16) ^ (v(5, l) & 0xffff);
            let hi = (v(4, l) & 0xffff) ^ 0x1234;
            hi << 16 | lo
        });
        check(&b, &s, 6, |l| v(6, l) & 0xffff_0000 | h(1.5 + l as f32));
        check(&b, &s, 9, |l| {
            (v(10, l) & v(11, l)) & 0xffff_0000 | v(9, l) & 0xffff
        });
        check(&b, &s, 12, |l| {
            v(12, l) & 0xffff_0000 | !(v(13, l) >> 16) & 0xffff
        });
        check(&b, &s, 14, |l| {
            h(0.75 * (-2.0 - l as f32)) << 16 | v(14, l) & 0xffff
        });
    }
}

/// The lane `permlane16` (`x`: `permlanex16`) reads for `lane` with selects `sel`.
fn perm_src(lane: usize, sel: u64, x: bool) -> usize {
    let row = lane & !15;
    let row = if x { row ^ 16 } else { row };
    row + (sel >> (4 * (lane % 16)) & 15) as usize
}

#[test]
fn permlane16_and_x16_with_fi_and_bound_ctrl() {
    #[rustfmt::skip]
    let words = [
        0xd65b0001, 0x00040102, // v_permlane16_b32 v1, v2, s0, s1
        0xd65c0003, 0x00040102, // v_permlanex16_b32 v3, v2, s0, s1
        0xd65b0804, 0x00040102, // v_permlane16_b32 v4, v2, s0, s1 op_sel:[1,0]
        0xd65c1005, 0x00040102, // v_permlanex16_b32 v5, v2, s0, s1 op_sel:[0,1]
        S_ENDPGM,
    ];
    for (gpu, wave) in [
        (Gpu::GFX1100, 32),
        (Gpu::GFX1100, 64),
        (Gpu::GFX1200, 32),
        (Gpu::GFX1201, 64),
    ] {
        let mut s = state(wave, 21, EXEC);
        // Lane i of each row reads lane (15 - i) * 3 mod 16.
        let sel: u64 = (0..16)
            .map(|i| (((15 - i) * 3 % 16) as u64) << (4 * i))
            .sum();
        s.set_sgpr64(0, sel);
        let b = clone_state(&s);
        run(tgt(gpu, wave), &words, &mut s, &mut Mem::new(0));
        let exec = b.exec();
        let on = |l: usize| exec >> l & 1 != 0;
        let src = |l: usize| b.vgpr[2][l];
        // FI = 0, BOUND_CTRL = 0: a disabled source lane leaves the destination unchanged.
        check(&b, &s, 1, |l| {
            let j = perm_src(l, sel, false);
            if on(j) {
                src(j)
            } else {
                b.vgpr[1][l]
            }
        });
        check(&b, &s, 3, |l| {
            let j = perm_src(l, sel, true);
            if on(j) {
                src(j)
            } else {
                b.vgpr[3][l]
            }
        });
        // FI = 1: disabled lanes are read.
        check(&b, &s, 4, |l| src(perm_src(l, sel, false)));
        // BOUND_CTRL = 1: a disabled source lane gives 0.
        check(&b, &s, 5, |l| {
            let j = perm_src(l, sel, true);
            if on(j) {
                src(j)
            } else {
                0
            }
        });
    }
}

#[test]
fn permlane_var_and_permlane64_gfx12() {
    #[rustfmt::skip]
    let words = [
        0xd70f0006, 0x00020f02, // v_permlane16_var_b32 v6, v2, v7
        0xd7100008, 0x00020f02, // v_permlanex16_var_b32 v8, v2, v7
        0x7e12cf02, // v_permlane64_b32 v9, v2
        S_ENDPGM,
    ];
    for wave in [32, 64] {
        let mut s = state(wave, 31, EXEC);
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1200, wave), &words, &mut s, &mut Mem::new(0));
        let exec = b.exec();
        let on = |l: usize| exec >> l & 1 != 0;
        let pick = |l: usize, x: bool, old: u32| {
            let row = if x { (l & !15) ^ 16 } else { l & !15 };
            let j = row + (b.vgpr[7][l] & 15) as usize;
            if on(j) {
                b.vgpr[2][j]
            } else {
                old
            }
        };
        check(&b, &s, 6, |l| pick(l, false, b.vgpr[6][l]));
        check(&b, &s, 8, |l| pick(l, true, b.vgpr[8][l]));
        // wave64: lane l reads lane l ^ 32, disabled or not; wave32: no effect.
        if wave == 64 {
            check(&b, &s, 9, |l| b.vgpr[2][l ^ 32]);
        } else {
            assert_eq!(s.vgpr[9], b.vgpr[9]);
        }
    }
}

/// RDNA4 ISA V_MINIMUM_F32 / V_MAXIMUM_F32 pseudocode on f32 bits.
fn minimum(a: u32, b: u32, max: bool) -> u32 {
    let nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
    let snan = |x: u32| nan(x) && x & 0x40_0000 == 0;
    let q = |x: u32| x | 0x40_0000;
    if snan(a) {
        return q(a);
    }
    if snan(b) {
        return q(b);
    }
    if nan(a) {
        return a;
    }
    if nan(b) {
        return b;
    }
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    let a_first = if max {
        fa > fb || (fa == 0.0 && fb == 0.0 && a >> 31 == 0 && b >> 31 == 1)
    } else {
        fa < fb || (fa == 0.0 && fb == 0.0 && a >> 31 == 1 && b >> 31 == 0)
    };
    if a_first {
        a
    } else {
        b
    }
}

/// RDNA4 ISA S_MIN_NUM_F32 / S_MAX_NUM_F32 pseudocode on f32 bits.
fn min_num(a: u32, b: u32, max: bool) -> u32 {
    let nan = |x: u32| x & 0x7fff_ffff > 0x7f80_0000;
    match (nan(a), nan(b)) {
        (true, true) => a | 0x40_0000,
        (true, false) => b,
        (false, true) => a,
        _ => minimum(a, b, max),
    }
}

/// Float bit patterns with the corner cases the min/max rules distinguish.
const SPECIALS: [u32; 10] = [
    0x7f80_0001, // sNaN
    0xffc0_1234, // -qNaN with payload
    0x8000_0000, // -0
    0x0000_0000, // +0
    0x3f80_0000, // 1
    0xbf80_0000, // -1
    0x7f80_0000, // +inf
    0xff80_0000, // -inf
    0x0000_0001, // smallest denormal
    0x4049_0fdb, // pi
];

#[test]
fn float_minimum_maximum_gfx12() {
    #[rustfmt::skip]
    let words = [
        0xd7650003, 0x00020501, // v_minimum_f32 v3, v1, v2
        0xd7660004, 0x00020501, // v_maximum_f32 v4, v1, v2
        0xd62d0005, 0x04020501, // v_minimum3_f32 v5, v1, v2, v0
        0xd66d0006, 0x04020501, // v_maximumminimum_f32 v6, v1, v2, v0
        S_ENDPGM,
    ];
    for wave in [32, 64] {
        let mut s = state(wave, 41, !0);
        for l in 0..64 {
            s.vgpr[1][l] = SPECIALS[l % 10];
            s.vgpr[2][l] = SPECIALS[(l / 10 + l) % 10];
            s.vgpr[0][l] = SPECIALS[(l * 7 + 3) % 10];
        }
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1200, wave), &words, &mut s, &mut Mem::new(0));
        let (a, c, d) = (|l| b.vgpr[1][l], |l| b.vgpr[2][l], |l| b.vgpr[0][l]);
        check(&b, &s, 3, |l| minimum(a(l), c(l), false));
        check(&b, &s, 4, |l| minimum(a(l), c(l), true));
        check(&b, &s, 5, |l| {
            minimum(minimum(a(l), c(l), false), d(l), false)
        });
        check(&b, &s, 6, |l| {
            minimum(minimum(a(l), c(l), true), d(l), false)
        });
    }
}

/// The neighbouring f32 of finite `n` towards +inf (`up`) or -inf.
fn f32_step(n: f32, up: bool) -> f32 {
    if n == 0.0 {
        return f32::from_bits(if up { 1 } else { 0x8000_0001 });
    }
    let b = n.to_bits();
    f32::from_bits(if (n > 0.0) == up { b + 1 } else { b - 1 })
}

/// `x` rounded to f32 in MODE direction `rm` (0 nearest even, 1 up, 2 down, 3 toward 0).
fn round_f32(x: f64, rm: u32) -> u32 {
    let n = x as f32; // nearest even
    let r = match rm {
        1 if (n as f64) < x => f32_step(n, true),
        2 if (n as f64) > x => f32_step(n, false),
        3 if (n as f64).abs() > x.abs() => f32_step(n, x < 0.0),
        _ => n,
    };
    r.to_bits()
}

#[test]
fn scalar_float_arithmetic_in_directed_rounding_modes() {
    // RDNA4 ISA 6.8: SALU float rounding follows MODE.round; each result is rounded once.
    #[rustfmt::skip]
    let words = [
        0xa0080504, // s_add_f32 s8, s4, s5
        0xa2090706, // s_mul_f32 s9, s6, s7
        0xa38a0504, // s_fmac_f32 s10, s4, s5
        0xa48b0302, // s_add_f16 s11, s2, s3
        S_ENDPGM,
    ];
    let (a, b) = (1.0f32, -(2f32.powi(-30)));
    let (c, d) = (f32::from_bits(0x3eaa_aaab), 3.0f32); // 1/3 rounded up, times 3
    let acc = 2.0f32;
    for rm in 0..4 {
        let mut s = state(32, 191, EXEC);
        s.mode = MODE | rm | rm << 2;
        s.sgpr[4] = a.to_bits();
        s.sgpr[5] = b.to_bits();
        s.sgpr[6] = c.to_bits();
        s.sgpr[7] = d.to_bits();
        s.sgpr[10] = acc.to_bits();
        s.sgpr[2] = 0x3c00; // f16 1.0
        s.sgpr[3] = 0x8400; // f16 -2^-14
        run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
        let exact_fma = a as f64 * b as f64 + acc as f64;
        // 1 - 2^-14 lies between f16 0x3bff (1 - 2^-11) and 0x3c00: nearest and up give 1.
        let f16 = if rm == 2 || rm == 3 { 0x3bff } else { 0x3c00 };
        let want = [
            round_f32(a as f64 + b as f64, rm),
            round_f32(c as f64 * d as f64, rm),
            round_f32(exact_fma, rm),
            f16,
        ];
        assert_eq!(s.sgpr[8..12], want, "round mode {rm}");
    }
}

#[test]
fn scalar_float_conversions_in_every_rounding_mode() {
    // RDNA4 ISA 6.8 (SALU float rounding follows MODE.round; results identical to the VALU
    // counterparts) and 16.3 (S_CVT_F32_I32/U32: i32/u32_to_f32; S_CVT_F16_F32: f32_to_f16,
    // V_CVT_F16_F32 rounds in the f64/f16 direction, MODE[3:2]); FP16_OVFL (MODE[23])
    // clamps an overflowing f16 result to ±65504 but keeps a true infinity (ISA 3.4.3 MODE).
    #[rustfmt::skip]
    let words = [
        0xbe886402, // s_cvt_f32_i32 s8, s2
        0xbe896403, // s_cvt_f32_i32 s9, s3
        0xbe8a6504, // s_cvt_f32_u32 s10, s4
        0xbe8b6805, // s_cvt_f16_f32 s11, s5
        0xbe8c6806, // s_cvt_f16_f32 s12, s6
        0xbe8d6807, // s_cvt_f16_f32 s13, s7
        0xa48e0f0f, // s_add_f16 s14, s15, s15
        0xbe906811, // s_cvt_f16_f32 s16, s17
        S_ENDPGM,
    ];
    // f16 results by hand, per MODE direction (nearest even, +inf, -inf, toward 0):
    // 1 + 2^-12 is a quarter ulp above f16 1.0 (0x3c00); -(1 + 3 * 2^-11) is the tie between
    // -(1 + 2^-10) (0xbc01) and the even -(1 + 2^-9) (0xbc02); 70000 and 65504 + 65504 lie
    // above the f16 maximum 65504 (0x7bff) and beyond the nearest-even overflow bound 65520.
    let cvt_small = [0x3c00, 0x3c01, 0x3c00, 0x3c00];
    let cvt_tie = [0xbc02, 0xbc01, 0xbc02, 0xbc01];
    let overflow = [0x7c00, 0x7c00, 0x7bff, 0x7bff];
    for ovfl in [false, true] {
        for rm in 0..4u32 {
            let mut s = state(32, 211, EXEC);
            s.mode = MODE | rm | rm << 2 | (ovfl as u32) << 23;
            s.sgpr[2] = 0x0100_0003; // 2^24 + 3: between 2^24 + 2 and 2^24 + 4, a tie
            s.sgpr[3] = (-16_777_217i32) as u32; // -(2^24 + 1), a tie
            s.sgpr[4] = u32::MAX;
            s.sgpr[5] = 0x3f80_0800; // 1 + 2^-12
            s.sgpr[6] = 0xbf80_3000; // -(1 + 3 * 2^-11)
            s.sgpr[7] = 70000.0f32.to_bits();
            s.sgpr[15] = 0xabcd_7bff; // f16 65504 (high half ignored)
            s.sgpr[17] = f32::INFINITY.to_bits();
            run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
            let i = rm as usize;
            let big = if ovfl { 0x7bff } else { overflow[i] };
            let want = [
                round_f32(16_777_219.0, rm),
                round_f32(-16_777_217.0, rm),
                round_f32(u32::MAX as f64, rm),
                cvt_small[i],
                cvt_tie[i],
                big,
                big,
            ];
            assert_eq!(s.sgpr[8..15], want, "round mode {rm}, FP16_OVFL {ovfl}");
            // A true infinity stays one under FP16_OVFL.
            assert_eq!(s.sgpr[16], 0x7c00, "round mode {rm}, FP16_OVFL {ovfl}");
        }
    }
}

#[test]
fn exact_scalar_float_ops_in_every_rounding_mode() {
    // Min/max and ceil/floor/trunc/rndne are exact, so MODE's rounding direction (f32 in
    // bits [1:0], f16 in [3:2]) does not change them (RDNA4 ISA 6.8, 16.3).
    #[rustfmt::skip]
    let words = [
        0xbe886004, // s_ceil_f32 s8, s4
        0xbe896104, // s_floor_f32 s9, s4
        0xa88a0502, // s_minimum_f16 s10, s2, s5
        0xa18b0604, // s_max_num_f32 s11, s4, s6
        0xbe8c6e05, // s_rndne_f16 s12, s5
        0xbe8d6204, // s_trunc_f32 s13, s4
        S_ENDPGM,
    ];
    for rm in 0..4 {
        let mut s = state(32, 181, EXEC);
        s.mode = MODE | rm | rm << 2;
        s.sgpr[4] = (-2.5f32).to_bits();
        s.sgpr[6] = 1.25f32.to_bits();
        s.sgpr[2] = 0x1234_3c00; // f16 1.0 (high half ignored)
        s.sgpr[5] = 0x5678_c100; // f16 -2.5
        run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
        let want = [
            (-2.0f32).to_bits(),
            (-3.0f32).to_bits(),
            0xc100, // -2.5; f16 results zero the high half
            1.25f32.to_bits(),
            0xc000, // -2.0 (ties to even)
            (-2.0f32).to_bits(),
        ];
        assert_eq!(s.sgpr[8..14], want, "round mode {rm}");
    }
}

#[test]
fn scalar_float_ops_gfx12() {
    #[rustfmt::skip]
    let words = [
        0xa00a0100, // s_add_f32 s10, s0, s1
        0xa08b0100, // s_sub_f32 s11, s0, s1
        0xa20c0100, // s_mul_f32 s12, s0, s1
        0xa10d0100, // s_min_num_f32 s13, s0, s1
        0xa18e0100, // s_max_num_f32 s14, s0, s1
        0xa78f0100, // s_minimum_f32 s15, s0, s1
        0xa8100100, // s_maximum_f32 s16, s0, s1
        0xa3910100, // s_fmac_f32 s17, s0, s1
        0xa2920100, 0x40400000, // s_fmaak_f32 s18, s0, s1, 0x40400000
        0xa3130100, 0x40400000, // s_fmamk_f32 s19, s0, 0x40400000, s1
        0xbe946402, // s_cvt_f32_i32 s20, s2
        0xbe956502, // s_cvt_f32_u32 s21, s2
        0xbe966600, // s_cvt_i32_f32 s22, s0
        0xbe976700, // s_cvt_u32_f32 s23, s0
        0xbe986800, // s_cvt_f16_f32 s24, s0
        0xbe996903, // s_cvt_f32_f16 s25, s3
        0xbe9a6a03, // s_cvt_hi_f32_f16 s26, s3
        0xa49b0403, // s_add_f16 s27, s3, s4
        0xa59c0403, // s_min_num_f16 s28, s3, s4
        0xa89d0403, // s_minimum_f16 s29, s3, s4
        0xbe9e6100, // s_floor_f32 s30, s0
        0xbe9f6300, // s_rndne_f32 s31, s0
        0xa4200100, // s_cvt_pk_rtz_f16_f32 s32, s0, s1
        0xa7210403, // s_fmac_f16 s33, s3, s4
        0xbf410100, // s_cmp_lt_f32 s0, s1
        0x98228081, // s_cselect_b32 s34, 1, 0
        0xbf580403, // s_cmp_u_f16 s3, s4
        0x98238081, // s_cselect_b32 s35, 1, 0
        0xbf490100, // s_cmp_nge_f32 s0, s1
        0x98248081, // s_cselect_b32 s36, 1, 0
        S_ENDPGM,
    ];
    // (s0, s1, s3, s4): ordinary values, then NaNs and signed zeros.
    let cases: [(f32, f32, u32, u32); 4] = [
        (2.5, -1.25, h(1.5) | h(-3.0) << 16, h(2.25) | 0xabcd_0000),
        (-7.75, 3.0e-3, h(-0.5) | h(8.0) << 16, h(-0.5)),
        (f32::from_bits(0x7f80_0001), 1.0, 0x7d00, h(2.0)),
        (-0.0, 0.0, 0x8000, 0x0000),
    ];
    for gpu in [Gpu::GFX1200, Gpu::GFX1201] {
        for (i, &(x, y, p, q)) in cases.iter().enumerate() {
            let mut s = state(32, 50 + i as u64, !0);
            s.sgpr[0] = x.to_bits();
            s.sgpr[1] = y.to_bits();
            s.sgpr[2] = (-123457i32) as u32;
            s.sgpr[3] = p;
            s.sgpr[4] = q;
            s.sgpr[17] = 0.5f32.to_bits();
            s.sgpr[33] = h(0.25) | 0x5555_0000;
            let b = clone_state(&s);
            run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
            let (a, c) = (x.to_bits(), y.to_bits());
            let nan = |v: u32| v & 0x7fff_ffff > 0x7f80_0000;
            let f = |v: f32| v.to_bits();
            let r = |i: usize| s.sgpr[i];
            if !nan(a) {
                assert_eq!(r(10), f(x + y), "case {i}");
                assert_eq!(r(11), f(x - y));
                assert_eq!(r(12), f(x * y));
                assert_eq!(r(17), f(x.mul_add(y, 0.5)));
                assert_eq!(r(18), f(x.mul_add(y, 3.0)));
                assert_eq!(r(19), f(x.mul_add(3.0, y)));
                assert_eq!(r(22), x as i32 as u32);
                assert_eq!(r(23), x as u32);
                assert_eq!(r(30), f(x.floor()));
                assert_eq!(r(31), f(x.round_ties_even()));
                assert_eq!(r(34), (x < y) as u32);
                // nge: not (x >= y), true when unordered.
                assert_eq!(
                    r(36),
                    (x.partial_cmp(&y) == Some(std::cmp::Ordering::Less)) as u32
                );
            } else {
                assert_eq!(r(34), 0);
                assert_eq!(r(36), 1);
                assert_eq!(r(22), 0);
            }
            assert_eq!(r(13), min_num(a, c, false), "case {i}");
            assert_eq!(r(14), min_num(a, c, true));
            assert_eq!(r(15), minimum(a, c, false));
            assert_eq!(r(16), minimum(a, c, true));
            assert_eq!(r(20), f(-123457.0));
            assert_eq!(r(21), f(0xfffe_1dbf_u32 as f32));
            match i {
                0 => {
                    assert_eq!(r(24), h(2.5));
                    assert_eq!(r(25), f(1.5));
                    assert_eq!(r(26), f(-3.0));
                    assert_eq!(r(27), h(3.75));
                    assert_eq!(r(28), h(1.5));
                    assert_eq!(r(29), h(1.5));
                    // 2.5 and -1.25 are exact in f16.
                    assert_eq!(r(32), h(2.5) | h(-1.25) << 16);
                    assert_eq!(r(33), h(1.5f32.mul_add(2.25, 0.25)));
                    assert_eq!(r(35), 0);
                }
                2 => {
                    // s3 = f16 sNaN 0x7d00: min_num returns the number, minimum the
                    // quieted NaN; the compare is unordered.
                    assert_eq!(r(28), h(2.0));
                    assert_eq!(r(29), 0x7f00);
                    assert_eq!(r(35), 1);
                }
                3 => {
                    // -0 < +0 for both rules; f16 likewise.
                    assert_eq!(r(13), 0x8000_0000);
                    assert_eq!(r(14), 0);
                    assert_eq!(r(28), 0x8000);
                    assert_eq!(r(24), 0x8000);
                }
                _ => {}
            }
            // SCC and SGPRs the program does not write stay.
            assert_eq!(s.sgpr[37..106], b.sgpr[37..106]);
        }
    }
}

#[test]
fn wave64_halves_read_the_state_before_the_instruction() {
    #[rustfmt::skip]
    let words = [
        0x40020702, // v_add_co_ci_u32_e32 v1, vcc, v2, v3, vcc
        0x7c980b04, // v_cmp_gt_u32_e32 vcc, v4, v5
        0x020c1107, // v_cndmask_b32_e32 v6, v7, v8, vcc
        0xd441000a, 0x00020b04, // v_cmp_lt_i32_e64 s[10:11], v4, v5
        0xd7000c09, 0x00020702, // v_add_co_u32 v9, s[12:13], v2, v3
        0x7d9a0b04, // v_cmpx_ne_u32_e32 v4, v5
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(64, 61, EXEC);
        for l in 0..64 {
            // Large values so that about half the lanes carry; v4/v5 equal in some lanes.
            s.vgpr[2][l] |= 0x8000_0000;
            if l % 5 == 0 {
                s.vgpr[5][l] = s.vgpr[4][l];
            }
        }
        s.set_sgpr64(106, 0x5555_aaaa_0f0f_f0f0);
        let b = clone_state(&s);
        run(tgt(gpu, 64), &words, &mut s, &mut Mem::new(0));
        let exec = b.exec();
        let v = |r: usize, l: usize| b.vgpr[r][l];
        let vcc0 = b.sgpr64(106);
        // Carry-in from the old VCC in both halves, carry-out to VCC (then overwritten).
        check(&b, &s, 1, |l| {
            v(2, l)
                .wrapping_add(v(3, l))
                .wrapping_add((vcc0 >> l & 1) as u32)
        });
        let mask = |f: &dyn Fn(usize) -> bool| -> u64 {
            (0..64)
                .filter(|&l| exec >> l & 1 != 0 && f(l))
                .map(|l| 1u64 << l)
                .sum()
        };
        let gt = mask(&|l| v(4, l) > v(5, l));
        assert_eq!(s.sgpr64(106), gt, "{}: VCC of v_cmp_gt", gpu);
        check(
            &b,
            &s,
            6,
            |l| if gt >> l & 1 != 0 { v(8, l) } else { v(7, l) },
        );
        assert_eq!(s.sgpr64(10), mask(&|l| (v(4, l) as i32) < (v(5, l) as i32)));
        check(&b, &s, 9, |l| v(2, l).wrapping_add(v(3, l)));
        assert_eq!(
            s.sgpr64(12),
            mask(&|l| (v(2, l) as u64 + v(3, l) as u64) >> 32 != 0)
        );
        // RDNA v_cmpx writes EXEC only (64 bits).
        assert_eq!(s.exec(), mask(&|l| v(4, l) != v(5, l)));
        assert!(s.exec() >> 32 != 0 && s.exec() as u32 != 0);
    }
}

#[test]
fn vopd_is_wave32_only() {
    // v_dual_mov_b32 v0, v2 :: v_dual_mov_b32 v1, v4
    let words = [0xca100102, 0x00000104, S_ENDPGM];
    let code = Code::from_words(&words);
    let w64 = lift_block(&tgt(Gpu::GFX1100, 64), &code, CODE_BASE, MODE);
    match &w64.exit {
        Exit::Unsupported { reason, .. } => assert!(reason.contains("wave64"), "{reason}"),
        other => panic!("VOPD lifted in wave64: {other:?}"),
    }
    let mut s = state(32, 71, EXEC);
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut Mem::new(0));
    check(&b, &s, 0, |l| b.vgpr[2][l]);
    check(&b, &s, 1, |l| b.vgpr[4][l]);
}

/// Base of the buffer memory in the buffer test.
const BUF: u64 = 0x2000_0000;
/// Its size in bytes.
const BUF_LEN: usize = 32768;

/// A V#: base, stride, swizzle enable, num_records, index stride code, add-tid, OOB_SELECT.
#[derive(Clone, Copy, Debug)]
struct Vsharp {
    stride: u32,
    swizzle: u32,
    nrec: u32,
    istride: u32,
    add_tid: bool,
    oob: u32,
}

impl Vsharp {
    fn words(&self) -> [u32; 4] {
        [
            BUF as u32,
            (BUF >> 32) as u32 | self.stride << 16 | self.swizzle << 30,
            self.nrec,
            self.istride << 21 | (self.add_tid as u32) << 23 | self.oob << 28,
        ]
    }

    /// RDNA4 ISA 9.4: byte offset of the access and whether a piece of `size` bytes at
    /// `piece` is in range, for lane `lane` with the given index, offsets.
    fn locate(
        &self,
        lane: u32,
        idx: u32,
        voff: u32,
        soff: u32,
        ioff: u32,
        piece: u32,
        size: u32,
    ) -> (u64, bool) {
        let index = idx + if self.add_tid { lane } else { 0 };
        let total = voff.wrapping_add(ioff).wrapping_add(soff);
        let off = if self.swizzle != 0 {
            let es: u64 = if self.swizzle == 1 { 4 } else { 16 };
            let is = 8u64 << self.istride;
            let (i, t) = (index as u64, total as u64);
            ((i / is) * self.stride as u64 + (t / es) * es) * is + (i % is) * es + t % es
        } else {
            index as u64 * self.stride as u64 + total as u64
        };
        let end = total as u64 + (piece + size) as u64;
        let structured_check = index < self.nrec && end <= self.stride as u64;
        let ok = match self.oob {
            0 => structured_check,
            1 => index < self.nrec,
            2 => self.nrec != 0,
            _ if self.swizzle != 0 && self.stride != 0 => structured_check,
            _ => end <= self.nrec as u64,
        };
        (off + piece as u64, ok)
    }
}

#[test]
fn buffer_vsharp_modes_and_swizzle() {
    #[rustfmt::skip]
    let gfx11 = [
        0xe0500004, 0x08410100, // buffer_load_b32 v1, v0, s[4:7], s8 offen offset:4
        0xe0500004, 0x08810203, // buffer_load_b32 v2, v3, s[4:7], s8 idxen offset:4
        0xe0540000, 0x08c10406, // buffer_load_b64 v[4:5], v[6:7], s[4:7], s8 idxen offen
        0xe0680008, 0x08410900, // buffer_store_b32 v9, v0, s[4:7], s8 offen offset:8
        S_ENDPGM,
    ];
    #[rustfmt::skip]
    let gfx12 = [
        0xc4050008, 0x40800801, 0x00000400, // buffer_load_b32 v1, v0, s[4:7], s8 offen offset:4
        0xc4050008, 0x80800802, 0x00000403, // buffer_load_b32 v2, v3, s[4:7], s8 idxen offset:4
        0xc4054008, 0xc0800804, 0x00000006, // buffer_load_b64 v[4:5], v[6:7], s[4:7], s8 idxen offen
        0xc4068008, 0x40800809, 0x00000800, // buffer_store_b32 v9, v0, s[4:7], s8 offen offset:8
        S_ENDPGM,
    ];
    let mut n = 0;
    for (gpu, words) in [(Gpu::GFX1100, &gfx11[..]), (Gpu::GFX1200, &gfx12[..])] {
        for wave in [32, 64] {
            for oob in 0..4 {
                for (swizzle, add_tid) in [(0, false), (1, false), (3, true), (0, true)] {
                    n += 1;
                    let vs = Vsharp {
                        stride: if oob == 1 && swizzle == 0 && !add_tid {
                            0
                        } else {
                            48
                        },
                        swizzle,
                        nrec: [150, 9, 0, 100][oob as usize] + n % 3,
                        istride: n % 4,
                        add_tid,
                        oob,
                    };
                    run_buffer(gpu, wave, words, vs, n as u64);
                }
            }
        }
    }
}

fn run_buffer(gpu: Gpu, wave: u32, words: &[u32], vs: Vsharp, seed: u64) {
    let mut mem = Mem::new(0);
    let bytes: Vec<u8> = (0..BUF_LEN)
        .map(|i| (i * 13 + 7) as u8 ^ (i >> 8) as u8)
        .collect();
    mem.add(BUF, bytes.clone());
    let mut s = state(wave, seed, EXEC);
    let soff = 4 * (seed as u32 % 3);
    for l in 0..64 {
        s.vgpr[0][l] = 4 * ((l as u32 * 7) % 40); // raw offsets 0..156
        s.vgpr[3][l] = (l as u32 * 5) % 13; // indices 0..12
        s.vgpr[6][l] = (l as u32 * 3) % 11;
        s.vgpr[7][l] = 4 * (l as u32 % 11);
    }
    let d = vs.words();
    s.sgpr[4..8].copy_from_slice(&d);
    s.sgpr[8] = soff;
    let b = clone_state(&s);
    run(tgt(gpu, wave), words, &mut s, &mut mem);
    let exec = b.exec();
    let rd =
        |off: u64| u32::from_le_bytes(bytes[off as usize..off as usize + 4].try_into().unwrap());
    let what = format!("{gpu} wave{wave} {vs:?}");
    for l in 0..64usize {
        if exec >> l & 1 == 0 {
            continue;
        }
        let lane = l as u32;
        let load = |idx: u32, voff: u32, ioff: u32, piece: u32| {
            let (o, ok) = vs.locate(lane, idx, voff, soff, ioff, piece, 4);
            if ok {
                rd(o)
            } else {
                0
            }
        };
        let v = |r: usize| b.vgpr[r][l];
        assert_eq!(s.vgpr[1][l], load(0, v(0), 4, 0), "{what} v1 lane {l}");
        assert_eq!(s.vgpr[2][l], load(v(3), 0, 4, 0), "{what} v2 lane {l}");
        assert_eq!(s.vgpr[4][l], load(v(6), v(7), 0, 0), "{what} v4 lane {l}");
        assert_eq!(s.vgpr[5][l], load(v(6), v(7), 0, 4), "{what} v5 lane {l}");
    }
    // The store: every in-range active lane writes v9 at its offset (lanes in order, so the
    // highest lane wins where offsets coincide).
    let mut want = bytes.clone();
    for l in 0..64usize {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (o, ok) = vs.locate(l as u32, 0, b.vgpr[0][l], soff, 8, 0, 4);
        if ok {
            want[o as usize..o as usize + 4].copy_from_slice(&b.vgpr[9][l].to_le_bytes());
        }
    }
    assert!(mem.region(BUF) == &want[..], "{what}: stored bytes differ");
}

#[test]
fn buffer_resources_in_ttmps_and_null() {
    // A V# may sit in trap temporaries (gfx1100: `ttmp[8:11]` assembles), and `null` reads as
    // four zero dwords (RDNA4 ISA 3.3, operand 124: "Reads return zero"): num_records 0 puts
    // every access out of range, so loads return 0 and stores are dropped (ISA 9.4).
    // `buffer_load_b32 v11, v0, null, ...` comes from llvm-mc-22 --disassemble (the assembler
    // rejects a null resource).
    #[rustfmt::skip]
    let words = [
        0xe0500000, 0x805d0a00, // buffer_load_b32 v10, v0, ttmp[8:11], 0 offen
        0xe0500000, 0x805f0b00, // buffer_load_b32 v11, v0, null, 0 offen
        0xe0680004, 0x805f0900, // buffer_store_b32 v9, v0, null, 0 offen offset:4
        S_ENDPGM,
    ];
    let vs = Vsharp {
        stride: 0,
        swizzle: 0,
        nrec: BUF_LEN as u32,
        istride: 0,
        add_tid: false,
        oob: 3,
    };
    for wave in [32, 64] {
        let mut mem = Mem::new(0);
        let bytes: Vec<u8> = (0..BUF_LEN).map(|i| (i * 29 + 3) as u8).collect();
        mem.add(BUF, bytes.clone());
        let mut s = state(wave, 257, EXEC);
        for l in 0..64 {
            s.vgpr[0][l] = 4 * ((l as u32 * 11) % 97);
        }
        s.sgpr[116..120].copy_from_slice(&vs.words()); // ttmp8..ttmp11
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1100, wave), &words, &mut s, &mut mem);
        let rd = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap());
        check(&b, &s, 10, |l| rd(b.vgpr[0][l] as usize));
        check(&b, &s, 11, |_| 0);
        assert!(
            mem.region(BUF) == &bytes[..],
            "wave{wave}: a store through null wrote"
        );
    }
}

/// `want` for VGPR `reg` in active lanes, NaN results compared as NaN.
fn check_f(before: &WaveState, after: &WaveState, reg: usize, want: impl Fn(usize) -> u32) {
    let exec = before.exec();
    for l in 0..64 {
        let got = after.vgpr[reg][l];
        if exec >> l & 1 == 0 {
            assert_eq!(got, before.vgpr[reg][l], "v{reg} lane {l} (inactive)");
            continue;
        }
        let w = want(l);
        let nan = |x: u32| f32::from_bits(x).is_nan();
        assert!(
            got == w || nan(got) && nan(w),
            "v{reg} lane {l}: got {got:#x}, want {w:#x}"
        );
    }
}

#[test]
fn rdna_valu_extras_and_dpp_gfx11_wave64() {
    #[rustfmt::skip]
    let words = [
        0xd665000a, 0x040e0501, // v_minmax_i32 v10, v1, v2, v3
        0xd662000b, 0x040e0501, // v_maxmin_u32 v11, v1, v2, v3
        0xd650500c, 0x040e0501, // v_med3_i16 v12.h, v1.l, v2.h, v3.l
        0xd64e280d, 0x040e0501, // v_max3_u16 v13.l, v1.h, v2.l, v3.h
        0xd65d500e, 0x00520501, // v_cndmask_b16 v14.h, v1.l, v2.h, s[20:21]
        0x7e1ecd90, // v_swap_b16 v15.l, v16.h
        0x0e220b04, // v_mul_dx9_zero_f32_e32 v17, v4, v5
        0xd6090012, 0x041a0b04, // v_fma_dx9_zero_f32 v18, v4, v5, v6
        0x7e26d581, // v_cvt_i32_i16_e32 v19, v1.h
        0xd7260014, 0x00020501, // v_add_nc_i32 v20, v1, v2
        0x7e2a02fa, 0xff015501, // v_mov_b32_dpp v21, v1 row_share:5 row_mask:0xf bank_mask:0xf
        0x7e2c02fa, 0xff056301, // v_mov_b32_dpp v22, v1 row_xmask:3 row_mask:0xf bank_mask:0xf fi:1
        0x4a2e04fa, 0xff091301, // v_add_nc_u32_dpp v23, v1, v2 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:1
        0x7e3002e9, 0x05397701, // v_mov_b32_dpp v24, v1 dpp8:[7,6,5,4,3,2,1,0]
        0x7e3202ea, 0xdf868901, // v_mov_b32_dpp v25, v1 dpp8:[1,1,2,3,0,7,7,6] fi:1
        0x9a9e0201, // s_pack_hl_b32_b16 s30, s1, s2
        S_ENDPGM,
    ];
    let mut s = state(64, 81, EXEC);
    let zs = [0.0f32, -0.0, 1.5, 2.0];
    let ws = [f32::INFINITY, f32::NAN, 3.0, -0.0, 2.5];
    for l in 0..64 {
        s.vgpr[4][l] = zs[l % 4].to_bits();
        s.vgpr[5][l] = ws[l % 5].to_bits();
        s.vgpr[6][l] = (l as f32 - 20.25).to_bits();
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 64), &words, &mut s, &mut Mem::new(0));
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let lo = |x: u32| x & 0xffff;
    let hi = |x: u32| x >> 16;
    let exec = b.exec();
    let on = |l: usize| exec >> l & 1 != 0;
    check(&b, &s, 10, |l| {
        (v(1, l) as i32).min(v(2, l) as i32).max(v(3, l) as i32) as u32
    });
    check(&b, &s, 11, |l| v(1, l).max(v(2, l)).min(v(3, l)));
    check(&b, &s, 12, |l| {
        let mut x = [lo(v(1, l)) as i16, hi(v(2, l)) as i16, lo(v(3, l)) as i16];
        x.sort();
        (x[1] as u16 as u32) << 16 | lo(v(12, l))
    });
    check(&b, &s, 13, |l| {
        let m = hi(v(1, l)).max(lo(v(2, l))).max(hi(v(3, l)));
        v(13, l) & 0xffff_0000 | m
    });
    let m20 = b.sgpr64(20);
    check(&b, &s, 14, |l| {
        let x = if m20 >> l & 1 != 0 {
            hi(v(2, l))
        } else {
            lo(v(1, l))
        };
        x << 16 | lo(v(14, l))
    });
    check(&b, &s, 15, |l| v(15, l) & 0xffff_0000 | hi(v(16, l)));
    check(&b, &s, 16, |l| lo(v(15, l)) << 16 | lo(v(16, l)));
    let f = |r: usize, l: usize| f32::from_bits(v(r, l));
    check_f(&b, &s, 17, |l| {
        if f(4, l) == 0.0 || f(5, l) == 0.0 {
            0
        } else {
            (f(4, l) * f(5, l)).to_bits()
        }
    });
    check_f(&b, &s, 18, |l| {
        if f(4, l) == 0.0 || f(5, l) == 0.0 {
            v(6, l)
        } else {
            f(4, l).mul_add(f(5, l), f(6, l)).to_bits()
        }
    });
    check(&b, &s, 19, |l| hi(v(1, l)) as u16 as i16 as i32 as u32);
    check(&b, &s, 20, |l| v(1, l).wrapping_add(v(2, l)));
    // row_share:5, FI = 0, BC = 0: lane 5 of the row, no write if it is disabled.
    check(&b, &s, 21, |l| {
        let j = (l & !15) + 5;
        if on(j) {
            v(1, j)
        } else {
            v(21, l)
        }
    });
    // row_xmask:3 with FI: lane r ^ 3 of the row, disabled or not.
    check(&b, &s, 22, |l| v(1, (l & !15) + ((l & 15) ^ 3)));
    // row_shr:3 with BC: out of range or disabled sources read 0.
    check(&b, &s, 23, |l| {
        let src = if l & 15 >= 3 && on(l - 3) {
            v(1, l - 3)
        } else {
            0
        };
        src.wrapping_add(v(2, l))
    });
    // DPP8: disabled sources read 0 unless FI.
    check(&b, &s, 24, |l| {
        let j = (l & !7) + 7 - (l & 7);
        if on(j) {
            v(1, j)
        } else {
            0
        }
    });
    let sel = [1, 1, 2, 3, 0, 7, 7, 6];
    check(&b, &s, 25, |l| v(1, (l & !7) + sel[l & 7]));
    assert_eq!(s.sgpr[30], (b.sgpr[2] & 0xffff) << 16 | b.sgpr[1] >> 16);
}

#[test]
fn gfx12_pseudo_scalar_and_wrexec() {
    #[rustfmt::skip]
    let words = [
        0xd680000a, 0x00000001, // v_s_exp_f32 s10, s1
        0xd688000b, 0x00000002, // v_s_sqrt_f32 s11, s2
        0xd685000c, 0x00000003, // v_s_rcp_f16 s12, s3
        0xbe8d3404, // s_and_not0_wrexec_b32 s13, s4
        S_ENDPGM,
    ];
    let mut s = state(32, 91, EXEC);
    s.sgpr[1] = (-3.0f32).to_bits();
    s.sgpr[2] = 6.25f32.to_bits();
    s.sgpr[3] = 0xffff_0000 | h(0.5);
    s.sgpr[4] = 0x0ff0_0f0f;
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
    // Exact cases: 2^-3, sqrt(6.25), 1/0.5 (f16 with the high half zeroed).
    assert_eq!(s.sgpr[10], 0.125f32.to_bits());
    assert_eq!(s.sgpr[11], 2.5f32.to_bits());
    assert_eq!(s.sgpr[12], h(2.0));
    let new = !0x0ff0_0f0fu32 & b.exec() as u32;
    assert_eq!(s.sgpr[13], new);
    assert_eq!(s.exec(), new as u64);
    assert_eq!(s.scc, (new != 0) as u32);
    // The VGPRs are untouched: the pseudo-scalar ops write SGPRs only.
    assert!(s.vgpr == b.vgpr);
}

/// OCP FP8 (E4M3, bias 7, NaN = S.1111.111, no infinity) or BF8 (E5M2, bias 15, IEEE-like)
/// byte → f32, from the format definitions (RDNA4 ISA 7.5).
fn ocp8(b: u32, bf8: bool) -> f32 {
    let s: f64 = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let (eb, mb, bias) = if bf8 { (5, 2, 15) } else { (4, 3, 7) };
    let e = (b >> mb) & ((1 << eb) - 1);
    let m = b & ((1 << mb) - 1);
    let emax = (1 << eb) - 1;
    if bf8 && e == emax {
        return if m == 0 {
            (s * f64::INFINITY) as f32
        } else {
            f32::NAN
        };
    }
    if !bf8 && e == emax && m == 7 {
        return f32::NAN;
    }
    let frac = m as f64 / (1 << mb) as f64;
    let v = if e == 0 {
        frac * 2f64.powi(1 - bias)
    } else {
        (1.0 + frac) * 2f64.powi(e as i32 - bias)
    };
    (s * v) as f32
}

#[test]
fn gfx12_fp8_bf8_to_f32_all_bytes() {
    #[rustfmt::skip]
    let words = [
        0xd5ec000a, 0x00000102, // v_cvt_f32_fp8_e64 v10, v2
        0xd5ec100b, 0x00000102, // v_cvt_f32_fp8_e64 v11, v2 byte_sel:1
        0xd5ec080c, 0x00000102, // v_cvt_f32_fp8_e64 v12, v2 byte_sel:2
        0xd5ec180d, 0x00000102, // v_cvt_f32_fp8_e64 v13, v2 byte_sel:3
        0xd5ed000e, 0x00000102, // v_cvt_f32_bf8_e64 v14, v2
        0xd5ed100f, 0x00000102, // v_cvt_f32_bf8_e64 v15, v2 byte_sel:1
        0xd5ed0810, 0x00000102, // v_cvt_f32_bf8_e64 v16, v2 byte_sel:2
        0xd5ed1811, 0x00000102, // v_cvt_f32_bf8_e64 v17, v2 byte_sel:3
        0xd5ec0012, 0x00000103, // v_cvt_f32_fp8_e64 v18, v3
        0xd5ec1013, 0x00000103, // v_cvt_f32_fp8_e64 v19, v3 byte_sel:1
        0xd5ec0814, 0x00000103, // v_cvt_f32_fp8_e64 v20, v3 byte_sel:2
        0xd5ec1815, 0x00000103, // v_cvt_f32_fp8_e64 v21, v3 byte_sel:3
        0xd5ed0016, 0x00000103, // v_cvt_f32_bf8_e64 v22, v3
        0xd5ed1017, 0x00000103, // v_cvt_f32_bf8_e64 v23, v3 byte_sel:1
        0xd5ed0818, 0x00000103, // v_cvt_f32_bf8_e64 v24, v3 byte_sel:2
        0xd5ed1819, 0x00000103, // v_cvt_f32_bf8_e64 v25, v3 byte_sel:3
        0xd5ee081e, 0x00000102, // v_cvt_pk_f32_fp8_e64 v[30:31], v2 op_sel:[1,0]
        0x7e40df03, // v_cvt_pk_f32_bf8_e32 v[32:33], v3.l
        S_ENDPGM,
    ];
    let mut s = state(32, 101, !0);
    // Lane l of v2 holds bytes 4l..4l+3, of v3 bytes 128+4l..: every byte value once.
    for l in 0..32u32 {
        s.vgpr[2][l as usize] = u32::from_le_bytes([0, 1, 2, 3].map(|i| (4 * l + i) as u8));
        s.vgpr[3][l as usize] = u32::from_le_bytes([0, 1, 2, 3].map(|i| (128 + 4 * l + i) as u8));
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
    let byte = |r: usize, l: usize, i: u32| b.vgpr[r][l] >> (8 * i) & 0xff;
    for (k, (src, bf8, sel)) in [2usize, 3]
        .iter()
        .flat_map(|&r| [false, true].map(move |bf| (r, bf)))
        .flat_map(|(r, bf)| (0..4u32).map(move |i| (r, bf, i)))
        .enumerate()
    {
        check_f(&b, &s, 10 + k, |l| ocp8(byte(src, l, sel), bf8).to_bits());
    }
    // Packed: the high half of v2 (op_sel[0]), the low half of v3.
    check_f(&b, &s, 30, |l| ocp8(byte(2, l, 2), false).to_bits());
    check_f(&b, &s, 31, |l| ocp8(byte(2, l, 3), false).to_bits());
    check_f(&b, &s, 32, |l| ocp8(byte(3, l, 0), true).to_bits());
    check_f(&b, &s, 33, |l| ocp8(byte(3, l, 1), true).to_bits());
    // Spot values from the format tables: FP8 0x7e = 448 (max), 0x08 = 2^-6 (min normal),
    // 0x01 = 2^-9; BF8 0x7b = 57344, 0x7c = inf.
    assert_eq!(ocp8(0x7e, false), 448.0);
    assert_eq!(ocp8(0x08, false), 2f32.powi(-6));
    assert_eq!(ocp8(0x01, false), 2f32.powi(-9));
    assert_eq!(ocp8(0x7b, true), 57344.0);
    assert_eq!(ocp8(0x7c, true), f32::INFINITY);
    assert!(
        f32::from_bits(s.vgpr[13][31]).is_nan(),
        "FP8 byte 0x7f is a NaN"
    );
}

/// Reference f32 → OCP 8-bit code by search over the codes: the nearest finite code, ties
/// to the even code, or (`truncate`) the largest code not above `|x|`; a result past the
/// largest finite value overflows to NaN (FP8) / infinity (BF8), or to ±max with
/// `saturate` (MODE.FP16_OVFL).
fn to_ocp8(x: f32, bf8: bool, saturate: bool, truncate: bool) -> u32 {
    let (max_code, nan_code, inf_code) = if bf8 {
        (0x7b, 0x7e, 0x7c)
    } else {
        (0x7e, 0x7f, 0x7f)
    };
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    if x.is_nan() {
        return sign | nan_code;
    }
    let a = x.abs() as f64;
    let val = |c: u32| ocp8(c, bf8) as f64;
    // The codes 0..=max_code and one virtual code past the end (the next spacing).
    let past = 2.0 * val(max_code) - val(max_code - 1);
    if a >= past {
        return sign | if saturate { max_code } else { inf_code };
    }
    let mut best = 0u32;
    for c in 0..=max_code + 1 {
        let v = if c > max_code { past } else { val(c) };
        if truncate {
            if v <= a {
                best = c;
            }
        } else {
            let (d, db) = ((v - a).abs(), (val(best) - a).abs());
            let db = if best > max_code {
                (past - a).abs()
            } else {
                db
            };
            if d < db || (d == db && c % 2 == 0) {
                best = c;
            }
        }
    }
    if a.is_infinite() || best > max_code {
        return sign | if saturate { max_code } else { inf_code };
    }
    sign | best
}

#[test]
fn gfx12_f32_to_fp8_bf8_rne_and_stochastic() {
    #[rustfmt::skip]
    let words = [
        0xd769000a, 0x00020501, // v_cvt_pk_fp8_f32 v10.l, v1, v2
        0xd769400a, 0x00020903, // v_cvt_pk_fp8_f32 v10.h, v3, v4
        0xd76a000b, 0x00020501, // v_cvt_pk_bf8_f32 v11.l, v1, v2
        0xd76a400b, 0x00020903, // v_cvt_pk_bf8_f32 v11.h, v3, v4
        0xd76b400c, 0x00020b01, // v_cvt_sr_fp8_f32 v12, v1, v5 byte_sel:2
        0xd76c200d, 0x00020b03, // v_cvt_sr_bf8_f32 v13, v3, v5 byte_sel:1
        S_ENDPGM,
    ];
    // Inputs: every FP8/BF8 value, the midpoints between neighbours (ties), values just
    // around the midpoints, overflow and specials.
    let mut inputs: Vec<f32> = Vec::new();
    for bf8 in [false, true] {
        let max_code = if bf8 { 0x7b } else { 0x7e };
        for c in 0..max_code {
            let (a, b) = (ocp8(c, bf8) as f64, ocp8(c + 1, bf8) as f64);
            let mid = ((a + b) / 2.0) as f32;
            inputs.extend([a as f32, mid, f32::from_bits(mid.to_bits() + 1), -mid]);
            if mid.to_bits() > 0 {
                inputs.push(f32::from_bits(mid.to_bits() - 1));
            }
        }
    }
    inputs.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -0.0,
        1.0e6,
        -470.0,
        464.0,
        465.0,
        61440.0,
        f32::from_bits(1),
        f32::MAX,
    ]);
    for mode in [0xf0u32, 0xf0 | 1 << 23] {
        let saturate = mode >> 23 & 1 != 0;
        for chunk in inputs.chunks(128) {
            let mut s = state(32, 111 + chunk.len() as u64, !0);
            s.mode = mode;
            let val = |i: usize| chunk[i % chunk.len()].to_bits();
            for l in 0..32 {
                for (r, off) in [(1, 0), (2, 32), (3, 64), (4, 96)] {
                    s.vgpr[r][l] = val(l + off);
                }
            }
            let b = clone_state(&s);
            run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
            let f = |r: usize, l: usize| f32::from_bits(b.vgpr[r][l]);
            let pk = |x: f32, y: f32, bf8: bool| {
                to_ocp8(x, bf8, saturate, false) | to_ocp8(y, bf8, saturate, false) << 8
            };
            let sr = |x: u32, rnd: u32, bf8: bool| {
                // The ISA's stochastic step: random bits added to the mantissa, wrapping.
                let add = rnd >> if bf8 { 11 } else { 12 };
                let m = ((x & 0x7f_ffff) + add) & 0x7f_ffff;
                to_ocp8(f32::from_bits(x & 0xff80_0000 | m), bf8, saturate, true)
            };
            let what = format!("mode {mode:#x}");
            for l in 0..32 {
                let lo10 = pk(f(1, l), f(2, l), false);
                let hi10 = pk(f(3, l), f(4, l), false);
                assert_eq!(
                    s.vgpr[10][l],
                    hi10 << 16 | lo10,
                    "{what} v10 lane {l}: {} {} {} {}",
                    f(1, l),
                    f(2, l),
                    f(3, l),
                    f(4, l)
                );
                let lo11 = pk(f(1, l), f(2, l), true);
                let hi11 = pk(f(3, l), f(4, l), true);
                assert_eq!(
                    s.vgpr[11][l],
                    hi11 << 16 | lo11,
                    "{what} v11 lane {l}: {} {} {} {}",
                    f(1, l),
                    f(2, l),
                    f(3, l),
                    f(4, l)
                );
                let c12 = sr(b.vgpr[1][l], b.vgpr[5][l], false);
                assert_eq!(
                    s.vgpr[12][l],
                    b.vgpr[12][l] & 0xff00_ffff | c12 << 16,
                    "{what} v12 lane {l}"
                );
                let c13 = sr(b.vgpr[3][l], b.vgpr[5][l], true);
                assert_eq!(
                    s.vgpr[13][l],
                    b.vgpr[13][l] & 0xffff_00ff | c13 << 8,
                    "{what} v13 lane {l}"
                );
            }
        }
    }
}

/// f16 bits → f32 (finite values; a host reference independent of the lifter's).
fn f16_val(b: u32) -> f32 {
    let s = if b & 0x8000 != 0 { -1.0f64 } else { 1.0 };
    let e = (b >> 10) & 31;
    let m = (b & 0x3ff) as f64;
    assert!(e < 31, "finite f16 only");
    let v = if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e as i32 - 15)
    };
    (s * v) as f32
}

#[test]
fn dot_products_integer_and_float() {
    #[rustfmt::skip]
    let gfx11 = [
        0xcc16400a, 0x1c0e0501, // v_dot4_i32_iu8 v10, v1, v2, v3
        0xcc16400b, 0x3c0e0501, // v_dot4_i32_iu8 v11, v1, v2, v3 neg_lo:[1,0,0]
        0xcc16400c, 0x7c0e0501, // v_dot4_i32_iu8 v12, v1, v2, v3 neg_lo:[1,1,0]
        0xcc18400d, 0x5c0e0501, // v_dot8_i32_iu4 v13, v1, v2, v3 neg_lo:[0,1,0]
        0xcc13400e, 0x1c1a0b04, // v_dot2_f32_f16 v14, v4, v5, v6
        0xcc13490f, 0x541a0b04, // v_dot2_f32_f16 v15, v4, v5, v6 op_sel:[1,0,0] op_sel_hi:[0,1,1] neg_lo:[0,1,0] neg_hi:[1,0,0]
        0xcc1a4010, 0x1c1a0b04, // v_dot2_f32_bf16 v16, v4, v5, v6
        0x04220b04, // v_dot2acc_f32_f16 v17, v4, v5
        S_ENDPGM,
    ];
    #[rustfmt::skip]
    let gfx12 = [
        0xcc244012, 0x1c1a0501, // v_dot4_f32_fp8_bf8 v18, v1, v2, v6
        0xcc274013, 0x1c1a0501, // v_dot4_f32_bf8_bf8 v19, v1, v2, v6
        S_ENDPGM,
    ];
    let halves = [
        h(0.5),
        h(-1.25),
        h(3.0),
        h(1024.0),
        0x8000,
        h(2f32.powi(-14)),
        h(-7.5),
        h(0.099975586),
    ];
    let mut s = state(32, 121, EXEC);
    for l in 0..64 {
        s.vgpr[4][l] = halves[l % 8] | halves[(l / 8 + 3) % 8] << 16;
        s.vgpr[5][l] = halves[(l * 3) % 8] | halves[(l + 5) % 8] << 16;
        s.vgpr[6][l] = (l as f32 * 0.3 - 4.0).to_bits();
        s.vgpr[17][l] = (1.0f32 / (l as f32 + 1.0)).to_bits();
        // v1, v2: 8-bit floats must avoid NaN codes for the f32 dot reference below.
        s.vgpr[1][l] &= 0x7676_7676;
        s.vgpr[2][l] &= 0x7676_7676;
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &gfx11, &mut s, &mut Mem::new(0));
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let dot_int = |l: usize, bits: u32, sa: bool, sb: bool| {
        let n = 32 / bits;
        let el = |x: u32, i: u32, signed: bool| {
            let t = x << (32 - bits * (i + 1));
            if signed {
                (t as i32 >> (32 - bits)) as u32
            } else {
                t >> (32 - bits)
            }
        };
        (0..n).fold(v(3, l), |acc, i| {
            acc.wrapping_add(el(v(1, l), i, sa).wrapping_mul(el(v(2, l), i, sb)))
        })
    };
    check(&b, &s, 10, |l| dot_int(l, 8, false, false));
    check(&b, &s, 11, |l| dot_int(l, 8, true, false));
    check(&b, &s, 12, |l| dot_int(l, 8, true, true));
    check(&b, &s, 13, |l| dot_int(l, 4, false, true));
    let hv = |x: u32, hi: bool| f16_val(if hi { x >> 16 } else { x & 0xffff });
    let fl = |r: usize, l: usize| f32::from_bits(v(r, l));
    check(&b, &s, 14, |l| {
        let mut t = fl(6, l);
        t += hv(v(4, l), false) * hv(v(5, l), false);
        t += hv(v(4, l), true) * hv(v(5, l), true);
        t.to_bits()
    });
    // Low element: src0 high half (op_sel[0]), src1 negated (neg_lo[1]); high element:
    // src0 low half (op_sel_hi[0] = 0), negated (neg_hi[0]).
    check(&b, &s, 15, |l| {
        let mut t = fl(6, l);
        t += hv(v(4, l), true) * -hv(v(5, l), false);
        t += -hv(v(4, l), false) * hv(v(5, l), true);
        t.to_bits()
    });
    let bf = |x: u32, hi: bool| f32::from_bits(if hi { x & 0xffff_0000 } else { x << 16 });
    check(&b, &s, 16, |l| {
        let mut t = fl(6, l);
        t += bf(v(4, l), false) * bf(v(5, l), false);
        t += bf(v(4, l), true) * bf(v(5, l), true);
        t.to_bits()
    });
    check(&b, &s, 17, |l| {
        let mut t = fl(17, l);
        t += hv(v(4, l), false) * hv(v(5, l), false);
        t += hv(v(4, l), true) * hv(v(5, l), true);
        t.to_bits()
    });
    let mut s = clone_state(&b);
    run(tgt(Gpu::GFX1200, 32), &gfx12, &mut s, &mut Mem::new(0));
    for (reg, abf) in [(18, false), (19, true)] {
        check(&b, &s, reg, |l| {
            let mut t = fl(6, l);
            for i in 0..4 {
                let x = ocp8(v(1, l) >> (8 * i) & 0xff, abf);
                let y = ocp8(v(2, l) >> (8 * i) & 0xff, true);
                t += x * y;
            }
            t.to_bits()
        });
    }
}

#[test]
fn wave64_in_place_cross_half_reads_use_old_values() {
    #[rustfmt::skip]
    let words = [
        0x7e04cf02, // v_permlane64_b32 v2, v2
        0xd65c0803, 0x00040103, // v_permlanex16_b32 v3, v3, s0, s1 op_sel:[1,0]
        0xd5200a04, 0x002a0b04, // v_add_co_ci_u32_e64 v4, s[10:11], v4, v5, s[10:11]
        S_ENDPGM,
    ];
    let mut s = state(64, 131, !0);
    let sel: u64 = 0x0123_4567_89ab_cdef;
    s.set_sgpr64(0, sel);
    s.set_sgpr64(10, 0xdead_beef_1234_5678);
    for l in 0..64 {
        s.vgpr[4][l] |= 0xc000_0000; // carries in many lanes
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1200, 64), &words, &mut s, &mut Mem::new(0));
    let v = |r: usize, l: usize| b.vgpr[r][l];
    // Lanes 32..63 read the old low half and vice versa, not the values just written.
    check(&b, &s, 2, |l| v(2, l ^ 32));
    check(&b, &s, 3, |l| v(3, perm_src(l, sel, true)));
    // Carry-in from the old s[10:11] in both halves; carry-out to s[10:11].
    let c0 = b.sgpr64(10);
    check(&b, &s, 4, |l| {
        v(4, l)
            .wrapping_add(v(5, l))
            .wrapping_add((c0 >> l & 1) as u32)
    });
    let carry: u64 = (0..64)
        .filter(|&l| v(4, l) as u64 + v(5, l) as u64 + (c0 >> l & 1) > u32::MAX as u64)
        .map(|l| 1u64 << l)
        .sum();
    assert_eq!(s.sgpr64(10), carry);
}

#[test]
fn gfx12_scalar_sub_dword_loads() {
    #[rustfmt::skip]
    let words = [
        0xf4012282, 0xf8000011, // s_load_u8 s10, s[4:5], 0x11
        0xf40102c2, 0xf8000013, // s_load_i8 s11, s[4:5], 0x13
        0xf4016302, 0xf8000016, // s_load_u16 s12, s[4:5], 0x16
        0xf4014342, 0x0c000002, // s_load_i16 s13, s[4:5], s6 offset:0x2
        S_ENDPGM,
    ];
    let base = 0x3000_0000u64;
    let mut bytes: Vec<u8> = (0..64u32).map(|i| (i * 37 + 0x85) as u8).collect();
    bytes[0x13] = 0x9c;
    bytes[0x23] = 0xf1;
    let mut mem = Mem::new(0);
    mem.add(base, bytes.clone());
    let mut s = state(32, 141, EXEC);
    s.set_sgpr64(4, base);
    s.sgpr[6] = 0x20;
    run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut mem);
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
    assert_eq!(s.sgpr[10], bytes[0x11] as u32);
    assert_eq!(s.sgpr[11], bytes[0x13] as i8 as i32 as u32);
    assert_eq!(s.sgpr[12], u16_at(0x16) as u32);
    assert_eq!(s.sgpr[13], u16_at(0x22) as i16 as i32 as u32);
    // The chosen bytes have the sign bit set, so zero- and sign-extension differ.
    assert!(bytes[0x13] & 0x80 != 0 && u16_at(0x22) & 0x8000 != 0);
}

#[test]
fn ds_cmpstore_takes_the_new_value_first() {
    #[rustfmt::skip]
    let words = [
        0xd8c00000, 0x08040201, // ds_cmpstore_rtn_b32 v8, v1, v2, v4
        0xd8400004, 0x00040201, // ds_cmpstore_b32 v1, v2, v4 offset:4
        S_ENDPGM,
    ];
    let mut mem = Mem::new(1024);
    let lds0 = mem.lds.clone();
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    let mut s = state(32, 151, EXEC);
    for l in 0..32 {
        s.vgpr[1][l] = 8 * l as u32;
        // Even lanes: the compare value (v4) matches the word at the first address.
        if l % 2 == 0 {
            s.vgpr[4][l] = dw(&lds0, 8 * l);
        }
        // Lanes divisible by 3: it matches the word at the second address.
        if l % 3 == 0 {
            s.vgpr[4][l] = dw(&lds0, 8 * l + 4);
        }
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut mem);
    let exec = b.exec();
    check(&b, &s, 8, |l| dw(&lds0, 8 * l));
    for l in 0..32 {
        let (new, cmp) = (b.vgpr[2][l], b.vgpr[4][l]);
        for off in [0, 4] {
            let old = dw(&lds0, 8 * l + off);
            let want = if exec >> l & 1 != 0 && old == cmp {
                new
            } else {
                old
            };
            assert_eq!(dw(&mem.lds, 8 * l + off), want, "lane {l} offset {off}");
        }
    }
}

#[test]
fn omod_rules_rdna3_and_rdna4() {
    #[rustfmt::skip]
    let words = [
        0xd508000a, 0x08020501, // v_mul_f32_e64 v10, v1, v2 mul:2
        0xd503000b, 0x18020501, // v_add_f32_e64 v11, v1, v2 div:2
        S_ENDPGM,
    ];
    let min_normal = f32::from_bits(0x0080_0000);
    let pairs = [
        (1.5f32, 2.0f32),
        (-0.0, 5.0),
        (min_normal, 0.5),
        (-3.0, 0.25),
        (min_normal, -0.0),
    ];
    // (gpu, MODE, OMOD applies, output denormals flushed when it does)
    for (gpu, mode, applies) in [
        (Gpu::GFX1200, 0xf0, true),
        (Gpu::GFX1200, 0x00, true),
        (Gpu::GFX1100, 0xf0, false),
        (Gpu::GFX1100, 0x00, true),
    ] {
        let mut s = state(32, 161, !0);
        s.mode = mode;
        for l in 0..64 {
            let (a, b) = pairs[l % 5];
            s.vgpr[1][l] = a.to_bits();
            s.vgpr[2][l] = b.to_bits();
        }
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let expect = |r: f32, scale: f32| {
            let flush = |x: f32| {
                if x.is_subnormal() {
                    0.0f32.copysign(x)
                } else {
                    x
                }
            };
            if !applies {
                // Output denormals allowed (MODE 0xf0): kept.
                return r.to_bits();
            }
            let x = flush(r * scale);
            if x.to_bits() == 0x8000_0000 {
                0
            } else {
                x.to_bits()
            }
        };
        let what = format!("{gpu} mode {mode:#x}");
        for l in 0..32 {
            let (x, y) = pairs[l % 5];
            assert_eq!(s.vgpr[10][l], expect(x * y, 2.0), "{what} mul lane {l}");
            assert_eq!(s.vgpr[11][l], expect(x + y, 0.5), "{what} add lane {l}");
        }
    }
}

#[test]
fn f16_omod_flushes_and_drops_the_negative_zero() {
    // RDNA4 ISA 7.2.3: OMOD applies to half results too, "flushes output denorms when
    // OMOD!=0", and -0 * OMOD = +0; RDNA3 applies it only when f16 denormals are flushed
    // (as for f32, `omod_rules_rdna3_and_rdna4`). Values worked by hand.
    #[rustfmt::skip]
    let words = [
        0xd535000a, 0x08020501, // v_mul_f16_e64 v10.l, v1.l, v2.l mul:2
        0xd532000b, 0x18020501, // v_add_f16_e64 v11.l, v1.l, v2.l div:2
        S_ENDPGM,
    ];
    // (a, b, a*b*2 with MODE 0xf0, with MODE 0, a*b unscaled; (a+b)/2, (a+b) unscaled)
    #[rustfmt::skip]
    let cases: [(u32, u32, u32, u32, u32, u32, u32); 6] = [
        (0x3e00, 0x4000, 0x4600, 0x4600, 0x4200, 0x3f00, 0x4300), // 1.5, 2: 6; 1.75
        (0x8000, 0x4500, 0x0000, 0x0000, 0x8000, 0x4100, 0x4500), // -0, 5: +0; 2.5
        (0x0400, 0x3800, 0x0400, 0x0000, 0x0200, 0x3400, 0x3800), // 2^-14, 0.5: 2^-15 * 2
        (0xc200, 0x3400, 0xbe00, 0xbe00, 0xba00, 0xbd80, 0xc180), // -3, 0.25: -1.5; -1.375
        (0x0400, 0x8000, 0x0000, 0x0000, 0x8000, 0x0000, 0x0400), // 2^-15 flushed to +0
        (0x7800, 0x3c00, 0x7c00, 0x7c00, 0x7800, 0x7400, 0x7800), // 32768 * 2 = +inf
    ];
    for (gpu, mode, applies) in [
        (Gpu::GFX1200, 0xf0, true),
        (Gpu::GFX1200, 0x00, true),
        (Gpu::GFX1100, 0xf0, false),
        (Gpu::GFX1100, 0x00, true),
    ] {
        let mut s = state(32, 171, !0);
        s.mode = mode;
        for l in 0..64 {
            let c = cases[l % 6];
            s.vgpr[1][l] = s.vgpr[1][l] & 0xffff_0000 | c.0;
            s.vgpr[2][l] = s.vgpr[2][l] & 0xffff_0000 | c.1;
        }
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        for l in 0..32 {
            let c = cases[l % 6];
            let (mul, add) = match (applies, mode) {
                (true, 0xf0) => (c.2, c.5),
                (true, _) => (c.3, c.5),
                _ => (c.4, c.6),
            };
            let what = format!("{gpu} mode {mode:#x} lane {l}");
            assert_eq!(
                s.vgpr[10][l],
                b.vgpr[10][l] & 0xffff_0000 | mul,
                "{what} mul"
            );
            assert_eq!(
                s.vgpr[11][l],
                b.vgpr[11][l] & 0xffff_0000 | add,
                "{what} add"
            );
        }
    }
}

#[test]
fn f16_min_max_variants_take_omod_and_clamp() {
    // The RDNA f16 min/max variants take OMOD and clamp like every f16 VOP3 result (RDNA4
    // ISA 7.2.3: OMOD then clamp to [0, 1], any NaN clamps to 0; RDNA3 applies OMOD only
    // with f16 output denormals flushed and IEEE clear). Results worked by hand from the
    // ISA's minNum/maxNum (a NaN loses to a number) and IEEE maximum (a NaN wins).
    const NAN: u32 = 0x7e00;
    // (a, b, c): 1.5, 3, 2 | -0.25, 0.5, NaN | 0.0625, 0.75, 0.125 | NaN, NaN, NaN
    let inputs: [(u32, u32, u32); 4] = [
        (0x3e00, 0x4200, 0x4000),
        (0xb400, 0x3800, NAN),
        (0x2c00, 0x3a00, 0x3000),
        (NAN, NAN, NAN),
    ];
    let load = |s: &mut WaveState| {
        for l in 0..64 {
            let (a, b, c) = inputs[l % 4];
            s.vgpr[1][l] = s.vgpr[1][l] & 0xffff_0000 | a;
            s.vgpr[2][l] = s.vgpr[2][l] & 0xffff_0000 | b;
            s.vgpr[3][l] = s.vgpr[3][l] & 0xffff_0000 | c;
        }
    };
    let half = |s: &WaveState, b: &WaveState, reg: usize, l: usize, hi: bool, v: u32| {
        let keep = if hi { 0xffff } else { 0xffff_0000 };
        let want = b.vgpr[reg][l] & keep | if hi { v << 16 } else { v };
        assert_eq!(s.vgpr[reg][l], want, "v{reg} lane {l}");
    };

    // gfx12
    #[rustfmt::skip]
    let words = [
        0xd62b000a, 0x0c0e0501, // v_min3_num_f16 v10.l, v1.l, v2.l, v3.l mul:2
        0xd62bc00a, 0x040e0501, // v_min3_num_f16 v10.h, v1.l, v2.l, v3.l op_sel:[0,0,0,1] clamp
        0xd768000b, 0x18020501, // v_maximum_f16 v11.l, v1.l, v2.l div:2
        0xd632800c, 0x140e0501, // v_med3_num_f16 v12.l, v1.l, v2.l, v3.l clamp mul:4
        0xd66a800d, 0x040e0501, // v_minmax_num_f16 v13.l, v1.l, v2.l, v3.l clamp
        S_ENDPGM,
    ];
    // Per input row: min3_num * 2, clamp(min3_num), maximum / 2, clamp(med3_num * 4),
    // clamp(max_num(min_num(a, b), c)).
    let want12: [[u32; 5]; 4] = [
        [0x4200, 0x3c00, 0x3e00, 0x3c00, 0x3c00], // 3, 1, 1.5, clamp(8), clamp(2)
        [0xb800, 0x0000, 0x3400, 0x0000, 0x0000], // -0.5, 0, 0.25, clamp(-1), clamp(-0.25)
        [0x3000, 0x2c00, 0x3600, 0x3800, 0x3000], // 0.125, 0.0625, 0.375, 0.5, 0.125
        [NAN, 0x0000, NAN, 0x0000, 0x0000],       // NaN passes OMOD; clamp makes it 0
    ];
    for mode in [0xf0, 0x00] {
        let mut s = state(32, 221, !0);
        s.mode = mode;
        load(&mut s);
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
        for l in 0..32 {
            let w = want12[l % 4];
            half(&s, &b, 11, l, false, w[2]);
            half(&s, &b, 12, l, false, w[3]);
            half(&s, &b, 13, l, false, w[4]);
            // v10.h: the low half holds the first result.
            assert_eq!(s.vgpr[10][l], w[1] << 16 | w[0], "v10 lane {l}");
        }
    }

    // gfx11: OMOD only with MODE 0 (f16 denormals flushed); clamp always.
    #[rustfmt::skip]
    let words = [
        0xd661000a, 0x0c0e0501, // v_minmax_f16 v10.l, v1.l, v2.l, v3.l mul:2
        0xd660800b, 0x040e0501, // v_maxmin_f16 v11.l, v1.l, v2.l, v3.l clamp
        0xd661800c, 0x1c0e0501, // v_minmax_f16 v12.l, v1.l, v2.l, v3.l clamp div:2
        S_ENDPGM,
    ];
    // Per input row: minmax = max(min(a, b), c) and maxmin = min(max(a, b), c) (minNum and
    // maxNum); (minmax * 2, minmax, clamp(maxmin), clamp(minmax / 2), clamp(minmax)).
    let want11: [[u32; 5]; 4] = [
        [0x4400, 0x4000, 0x3c00, 0x3c00, 0x3c00], // 4, 2, clamp(2), 1, clamp(2)
        [0xb800, 0xb400, 0x3800, 0x0000, 0x0000], // -0.5, -0.25, 0.5, clamp(-0.125), 0
        [0x3400, 0x3000, 0x3000, 0x2c00, 0x3000], // 0.25, 0.125, 0.125, 0.0625, 0.125
        [NAN, NAN, 0x0000, 0x0000, 0x0000],
    ];
    for (mode, omod) in [(0xf0, false), (0x00, true)] {
        let mut s = state(32, 223, !0);
        s.mode = mode;
        load(&mut s);
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut Mem::new(0));
        for l in 0..32 {
            let w = want11[l % 4];
            half(&s, &b, 10, l, false, if omod { w[0] } else { w[1] });
            half(&s, &b, 11, l, false, w[2]);
            half(&s, &b, 12, l, false, if omod { w[3] } else { w[4] });
        }
    }
}

#[test]
fn cube_map_ops_and_their_denormal_flush() {
    // RDNA4 ISA 16.12 V_CUBEID/CUBESC/CUBETC/CUBEMA_F32 worked by hand: the major axis is z
    // when |z| >= |x| and |z| >= |y|, else y when |y| >= |x|, else x; 7.2.4: these ops flush
    // input and output denormals in every MODE. The same on RDNA3 (LLVM encodes them alike).
    #[rustfmt::skip]
    let words = [
        0xd60c000a, 0x040e0501, // v_cubeid_f32 v10, v1, v2, v3
        0xd60d000b, 0x040e0501, // v_cubesc_f32 v11, v1, v2, v3
        0xd60e000c, 0x040e0501, // v_cubetc_f32 v12, v1, v2, v3
        0xd60f000d, 0x040e0501, // v_cubema_f32 v13, v1, v2, v3
        0xd60d040e, 0x240e0501, // v_cubesc_f32 v14, -v1, v2, |v3|
        S_ENDPGM,
    ];
    let rows = crate::lift_support::CUBE_ROWS;
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        for mode in [0xf0, 0x00] {
            let mut s = state(32, 227, EXEC);
            s.mode = mode;
            for l in 0..64 {
                let (x, _) = rows[l % 9];
                for k in 0..3 {
                    s.vgpr[1 + k][l] = x[k].to_bits();
                }
            }
            let b = clone_state(&s);
            run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
            for k in 0..5 {
                check(&b, &s, 10 + k, |l| rows[l % 9].1[k].to_bits());
            }
        }
    }
}

#[test]
fn integer_add_sub_clamp_saturates() {
    // RDNA4 ISA 7.2.3.1: with clamp an integer result saturates to the type's range (signed
    // [INT_MIN, INT_MAX], unsigned [0, UINT_MAX]); LLVM 22 lowers llvm.sadd.sat/ssub.sat to
    // these forms on gfx1100 and gfx1200. Expected values from the host's saturating ops;
    // the rows are chosen to overflow each way.
    #[rustfmt::skip]
    let words = [
        0xd726800a, 0x00020501, // v_add_nc_i32 v10, v1, v2 clamp
        0xd725800b, 0x00020501, // v_sub_nc_i32 v11, v1, v2 clamp
        0xd726000c, 0x00020501, // v_add_nc_i32 v12, v1, v2
        0xd70d800d, 0x00020501, // v_add_nc_i16 v13.l, v1.l, v2.l clamp
        0xd70ec00d, 0x00020501, // v_sub_nc_i16 v13.h, v1.l, v2.l op_sel:[0,0,1] clamp
        0xd703800e, 0x00020501, // v_add_nc_u16 v14.l, v1.l, v2.l clamp
        0xd704c00e, 0x00020501, // v_sub_nc_u16 v14.h, v1.l, v2.l op_sel:[0,0,1] clamp
        0xd525800f, 0x00020501, // v_add_nc_u32_e64 v15, v1, v2 clamp
        S_ENDPGM,
    ];
    let rows: [(u32, u32); 5] = [
        (0x7fff_fff0, 0x0000_0020),
        (0x8000_0005, 0x0000_0010),
        (0x0000_7ff0, 0xffff_0020),
        (0xffff_8000, 0x0000_0001),
        (0x1234_5678, 0x0fed_cba9),
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 229, EXEC);
        for l in 0..64 {
            let (a, b) = rows[l % 5];
            s.vgpr[1][l] = a;
            s.vgpr[2][l] = b;
        }
        let bs = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let ab = |l: usize| rows[l % 5];
        check(&bs, &s, 10, |l| {
            let (a, b) = ab(l);
            (a as i32).saturating_add(b as i32) as u32
        });
        check(&bs, &s, 11, |l| {
            let (a, b) = ab(l);
            (a as i32).saturating_sub(b as i32) as u32
        });
        check(&bs, &s, 12, |l| {
            let (a, b) = ab(l);
            a.wrapping_add(b)
        });
        check(&bs, &s, 13, |l| {
            let (a, b) = ab(l);
            let (x, y) = (a as u16 as i16, b as u16 as i16);
            (x.saturating_sub(y) as u16 as u32) << 16 | x.saturating_add(y) as u16 as u32
        });
        check(&bs, &s, 14, |l| {
            let (a, b) = ab(l);
            let (x, y) = (a as u16, b as u16);
            (x.saturating_sub(y) as u32) << 16 | x.saturating_add(y) as u32
        });
        check(&bs, &s, 15, |l| {
            let (a, b) = ab(l);
            a.saturating_add(b)
        });
    }
}

#[test]
fn clamp_without_effect_on_min_max_and_align() {
    // Integer clamp saturates to the representable range (RDNA4 ISA 7.2.3.1), which a
    // min/max/median already is in; V_ALIGN* ignore clamp (the same section's list). So
    // these give the plain results, computed on the host.
    #[rustfmt::skip]
    let words = [
        0xd64a800a, 0x040e0501, // v_min3_i16 v10.l, v1.l, v2.l, v3.l clamp
        0xd64ec00a, 0x040e0501, // v_max3_u16 v10.h, v1.l, v2.l, v3.l op_sel:[0,0,0,1] clamp
        0xd650800b, 0x040e0501, // v_med3_i16 v11.l, v1.l, v2.l, v3.l clamp
        0xd616800e, 0x040e0501, // v_alignbit_b32 v14, v1, v2, v3 clamp
        0xd617800f, 0x040e0501, // v_alignbyte_b32 v15, v1, v2, v3 clamp
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 233, EXEC);
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let h = |r: usize, l: usize| b.vgpr[r][l] as u16;
        check(&b, &s, 10, |l| {
            let (x, y, z) = (h(1, l) as i16, h(2, l) as i16, h(3, l) as i16);
            let lo = x.min(y).min(z) as u16 as u32;
            let hi = h(1, l).max(h(2, l)).max(h(3, l)) as u32;
            hi << 16 | lo
        });
        check(&b, &s, 11, |l| {
            let mut v = [h(1, l) as i16, h(2, l) as i16, h(3, l) as i16];
            v.sort();
            b.vgpr[11][l] & 0xffff_0000 | v[1] as u16 as u32
        });
        let cat = |l: usize| (b.vgpr[1][l] as u64) << 32 | b.vgpr[2][l] as u64;
        check(&b, &s, 14, |l| (cat(l) >> (b.vgpr[3][l] & 31)) as u32);
        check(&b, &s, 15, |l| (cat(l) >> (8 * (b.vgpr[3][l] & 3))) as u32);
    }
}

#[test]
fn transcendentals_flush_denormals_in_every_mode() {
    // RDNA4 ISA 16.8 notes of V_SQRT/RSQ/LOG/EXP_F32: "denormals are flushed" (input and
    // output, 7.2.4, which also lists RCP_IFLAG and FMA_DX9_ZERO), whatever MODE allows; the
    // gfx12 pseudo-scalar forms likewise. Values worked by hand with MODE allowing f32
    // denormals: the denormal 2^-141 reads as +0, -2^-141 as -0; exp2(-130) = 2^-130 is a
    // denormal result and becomes +0. V_RCP_F32 keeps following MODE (see
    // `valu::flushes_denormals`): 1 / FLT_MAX stays the denormal 2^-128.
    #[rustfmt::skip]
    let words = [
        0x7e145507, // v_rcp_f32 v10, v7
        0x7e166701, // v_sqrt_f32 v11, v1
        0x7e186706, // v_sqrt_f32 v12, v6
        0x7e1a4f01, // v_log_f32 v13, v1
        0x7e1c5d01, // v_rsq_f32 v14, v1
        0x7e205701, // v_rcp_iflag_f32 v16, v1
        0x7e244b04, // v_exp_f32 v18, v4
        0x7e264b05, // v_exp_f32 v19, v5
        0xd6090011, 0x040e0501, // v_fma_dx9_zero_f32 v17, v1, v2, v3
        S_ENDPGM,
    ];
    let pseudo = [
        0xd6880014, 0x00000006, // v_s_sqrt_f32 s20, s6
        0xd6800015, 0x00000004, // v_s_exp_f32 s21, s4
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut w = Vec::new();
        if gpu == Gpu::GFX1200 {
            w.extend(pseudo);
        }
        w.extend(words);
        let mut s = state(32, 239, EXEC);
        s.mode = 0xf0;
        for l in 0..64 {
            s.vgpr[1][l] = 0x0000_0100; // 2^-141
            s.vgpr[2][l] = 2.0f32.to_bits();
            s.vgpr[3][l] = 0x0000_0001; // 2^-149
            s.vgpr[4][l] = (-130.0f32).to_bits();
            s.vgpr[5][l] = 4.0f32.to_bits();
            s.vgpr[6][l] = 0x8000_0100; // -2^-141
            s.vgpr[7][l] = f32::MAX.to_bits();
        }
        s.sgpr[6] = 0x8000_0100;
        s.sgpr[4] = (-130.0f32).to_bits();
        let b = clone_state(&s);
        run(tgt(gpu, 32), &w, &mut s, &mut Mem::new(0));
        let inf = 0x7f80_0000;
        for (reg, want) in [
            (10, 0x0020_0000), // 1 / (2^128 (1 - 2^-24)) rounds to 2^-128
            (11, 0),
            (12, 0x8000_0000),
            (13, 0xff80_0000), // log2(+0) = -inf
            (14, inf),
            (16, inf),
            (18, 0),
            (19, 16.0f32.to_bits()),
        ] {
            check(&b, &s, reg, |_| want);
        }
        // gfx12: S0 flushed to 0, so D = S2, flushed; gfx11 follows MODE: the FMA
        // 2^-141 * 2 + 2^-149 = 2^-140 + 2^-149 is exact.
        let dx9 = if gpu == Gpu::GFX1200 { 0 } else { 0x0000_0201 };
        check(&b, &s, 17, |_| dx9);
        if gpu == Gpu::GFX1200 {
            assert_eq!(s.sgpr[20..22], [0x8000_0000, 0]);
        }
    }
}

#[test]
fn endpgm_saved_ends_the_wave() {
    // RDNA4 ISA 16.5 S_ENDPGM_SAVED: "... terminate wavefront"; what follows never runs.
    let words = [
        0xbe8a0087, // s_mov_b32 s10, 7
        0xbfb10000, // s_endpgm_saved
        0xbe8a0089, // s_mov_b32 s10, 9
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 241, EXEC);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        assert_eq!(s.sgpr[10], 7, "{gpu}");
    }
}

#[test]
fn conversions_to_float_take_omod_and_clamp() {
    // Float results of conversions take OMOD and clamp like other float results (RDNA4 ISA
    // 7.2.3.1); values worked by hand. MODE 0 on gfx1100 (OMOD applies only with denormals
    // flushed), MODE 0xf0 on gfx1200 (OMOD always applies).
    #[rustfmt::skip]
    let words = [
        0xd58a800a, 0x00000101, // v_cvt_f16_f32_e64 v10.l, v1 clamp
        0xd58a400a, 0x08000101, // v_cvt_f16_f32_e64 v10.h, v1 op_sel:[0,1] mul:2
        0xd592800b, 0x00000102, // v_cvt_f32_ubyte1_e64 v11, v2 clamp
        0xd591000c, 0x18000102, // v_cvt_f32_ubyte0_e64 v12, v2 div:2
        0xd5d1800d, 0x00000103, // v_cvt_f16_i16_e64 v13.l, v3.l clamp
        0xd5d0400d, 0x10000103, // v_cvt_f16_u16_e64 v13.h, v3.l op_sel:[0,1] mul:4
        S_ENDPGM,
    ];
    // (v1 f32, v2, v3 low half) -> (v10, v11, v12, v13)
    #[rustfmt::skip]
    let rows: [(u32, u32, u32, [u32; 4]); 4] = [
        // clamp(3) = 1, 3 * 2 = 6; byte1 1 -> 1, byte0 0 / 2; clamp(5) = 1, 5 * 4 = 20
        (3.0f32.to_bits(), 0x0000_0100, 5, [0x4600_3c00, 0x3f80_0000, 0, 0x4d00_3c00]),
        // clamp(-0.25) = +0, -0.5; byte1 50 -> 1, 7 / 2; clamp(-1) = +0, 65535 -> inf
        ((-0.25f32).to_bits(), 0x0000_3207, 0xffff, [0xb800_0000, 0x3f80_0000, 3.5f32.to_bits(), 0x7c00_0000]),
        // 0.375 kept, 0.75; byte1 0, 1 / 2; 0 and 0
        (0.375f32.to_bits(), 0x0000_0001, 0, [0x3a00_3600, 0, 0.5f32.to_bits(), 0]),
        // NaN clamps to 0 and stays NaN times 2; byte1 0, 255 / 2; clamp(2) = 1, 2 * 4 = 8
        (0x7fc0_0000, 0x0000_00ff, 2, [0x7e00_0000, 0, 127.5f32.to_bits(), 0x4800_3c00]),
    ];
    for (gpu, mode) in [(Gpu::GFX1100, 0x00), (Gpu::GFX1200, 0xf0)] {
        let mut s = state(32, 251, EXEC);
        s.mode = mode;
        for l in 0..64 {
            let (a, b, c, _) = rows[l % 4];
            s.vgpr[1][l] = a;
            s.vgpr[2][l] = b;
            s.vgpr[3][l] = s.vgpr[3][l] & 0xffff_0000 | c;
        }
        let bs = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        for k in 0..4 {
            check(&bs, &s, 10 + k, |l| rows[l % 4].3[k]);
        }
    }
}

#[test]
fn mad_32_16_clamp_saturates_the_exact_sum() {
    // D = S0.16 * S1.16 + S2.32; with clamp the exact result saturates to the u32 / i32
    // range (RDNA4 ISA 7.2.3.1). Expected values from the host in 64 bits; the rows overflow
    // each way, the random lanes mostly do not.
    #[rustfmt::skip]
    let words = [
        0xd659800a, 0x040e0501, // v_mad_u32_u16 v10, v1.l, v2.l, v3 clamp
        0xd65a800b, 0x040e0501, // v_mad_i32_i16 v11, v1.l, v2.l, v3 clamp
        0xd659000c, 0x040e0501, // v_mad_u32_u16 v12, v1.l, v2.l, v3
        S_ENDPGM,
    ];
    let rows: [(u32, u32, u32); 4] = [
        (0xffff, 0xffff, 0x0002_0000), // u: 0xfffe0001 + 0x20000 > u32::MAX
        (0x8000, 0x7fff, 0x8000_0000), // i: -2^30 + 2^15 ... + INT_MIN < INT_MIN
        (0x7fff, 0x7fff, 0x7fff_0000), // i: 0x3fff0001 + 0x7fff0000 > INT_MAX
        (0x0003, 0x0005, 0x0000_0007), // 22 either way
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 263, EXEC);
        for l in 0..8 {
            let (a, b, c) = rows[l % 4];
            s.vgpr[1][l] = s.vgpr[1][l] & 0xffff_0000 | a;
            s.vgpr[2][l] = s.vgpr[2][l] & 0xffff_0000 | b;
            s.vgpr[3][l] = c;
        }
        let bs = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let lo = |r: usize, l: usize| bs.vgpr[r][l] & 0xffff;
        check(&bs, &s, 10, |l| {
            let r = lo(1, l) as u64 * lo(2, l) as u64 + bs.vgpr[3][l] as u64;
            r.min(u32::MAX as u64) as u32
        });
        check(&bs, &s, 11, |l| {
            let p = (lo(1, l) as u16 as i16 as i64) * (lo(2, l) as u16 as i16 as i64);
            let r = p + bs.vgpr[3][l] as i32 as i64;
            r.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
        });
        check(&bs, &s, 12, |l| {
            (lo(1, l) * lo(2, l)).wrapping_add(bs.vgpr[3][l])
        });
    }
}

#[test]
fn mul_mad_24_and_16_clamp_saturates_the_exact_result() {
    // With clamp the exact result saturates to the destination type's range (RDNA4 ISA
    // 7.2.3.1): the 48-bit products of the 24-bit multiplies (plus S2), the 16-bit mads.
    // Expected values from the host in 64 bits on random register values (most products
    // overflow 32 bits).
    #[rustfmt::skip]
    let words = [
        0xd50b800a, 0x00020501, // v_mul_u32_u24_e64 v10, v1, v2 clamp
        0xd509800b, 0x00020501, // v_mul_i32_i24_e64 v11, v1, v2 clamp
        0xd60b800c, 0x040e0501, // v_mad_u32_u24 v12, v1, v2, v3 clamp
        0xd60a800d, 0x040e0501, // v_mad_i32_i24 v13, v1, v2, v3 clamp
        0xd641800e, 0x040e0501, // v_mad_u16 v14.l, v1.l, v2.l, v3.l clamp
        0xd653c00e, 0x040e0501, // v_mad_i16 v14.h, v1.l, v2.l, v3.l op_sel:[0,0,0,1] clamp
        S_ENDPGM,
    ];
    let u24 = |x: u32| (x & 0xff_ffff) as i64;
    let i24 = |x: u32| ((x << 8) as i32 >> 8) as i64;
    let sat = |r: i64, lo: i64, hi: i64| r.clamp(lo, hi) as u32;
    let (imin, imax, umax) = (i32::MIN as i64, i32::MAX as i64, u32::MAX as i64);
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 269, EXEC);
        // Lane 0: small values, no saturation.
        s.vgpr[1][0] = 3;
        s.vgpr[2][0] = 5;
        s.vgpr[3][0] = 7;
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let v = |r: usize, l: usize| b.vgpr[r][l];
        check(&b, &s, 10, |l| sat(u24(v(1, l)) * u24(v(2, l)), 0, umax));
        check(&b, &s, 11, |l| sat(i24(v(1, l)) * i24(v(2, l)), imin, imax));
        check(&b, &s, 12, |l| {
            sat(u24(v(1, l)) * u24(v(2, l)) + v(3, l) as i64, 0, umax)
        });
        check(&b, &s, 13, |l| {
            sat(
                i24(v(1, l)) * i24(v(2, l)) + v(3, l) as i32 as i64,
                imin,
                imax,
            )
        });
        check(&b, &s, 14, |l| {
            let (x, y, z) = (v(1, l) & 0xffff, v(2, l) & 0xffff, v(3, l) & 0xffff);
            let u = sat(x as i64 * y as i64 + z as i64, 0, 0xffff);
            let sx = |w: u32| w as u16 as i16 as i64;
            let i = sat(sx(x) * sx(y) + sx(z), -32768, 32767) & 0xffff;
            i << 16 | u
        });
        assert_eq!(s.vgpr[12][0], 22, "{gpu}");
    }
}

#[test]
fn wave32_lds_permutes_wrap_at_32_lanes() {
    #[rustfmt::skip]
    let words = [
        0xdacc0000, 0x03000201, // ds_bpermute_b32 v3, v1, v2
        0xdac80008, 0x04000201, // ds_permute_b32 v4, v1, v2 offset:8
        S_ENDPGM,
    ];
    let mut s = state(32, 171, EXEC);
    for l in 0..64 {
        // Byte addresses up to 4 * 95: lane indices past 31 must wrap.
        s.vgpr[1][l] = 4 * ((l as u32 * 13 + 7) % 96);
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut Mem::new(64));
    let exec = b.exec();
    let on = |l: usize| exec >> l & 1 != 0;
    // bpermute: lane i reads lane (addr / 4) % 32, 0 from a disabled lane.
    check(&b, &s, 3, |l| {
        let j = (b.vgpr[1][l] / 4 % 32) as usize;
        if on(j) {
            b.vgpr[2][j]
        } else {
            0
        }
    });
    // permute: active lane i sends to lane ((addr + 8) / 4) % 32, later lanes winning.
    let mut want = [0u32; 32];
    for i in 0..32 {
        if on(i) {
            want[((b.vgpr[1][i] + 8) / 4 % 32) as usize] = b.vgpr[2][i];
        }
    }
    check(&b, &s, 4, |l| want[l]);
}

/// ISA 13.3 MINNUM/MAXNUM selection on f32 bits (memory atomics).
fn atomic_minmax(a: u32, b: u32, max: bool) -> u32 {
    min_num(a, b, max)
}

#[test]
fn float_min_max_atomics() {
    #[rustfmt::skip]
    let gfx11 = [
        0xdd464000, 0x017c0402, // global_atomic_min_f32 v1, v[2:3], v4, off glc
        0xdd4a0004, 0x007c0502, // global_atomic_max_f32 v[2:3], v5, off offset:4
        S_ENDPGM,
    ];
    #[rustfmt::skip]
    let gfx12 = [
        0xee14807c, 0x02100001, 0x00000002, // global_atomic_max_num_f32 v1, v[2:3], v4, off th:TH_ATOMIC_RETURN
        0xee14407c, 0x02800000, 0x00000402, // global_atomic_min_num_f32 v[2:3], v5, off offset:4
        S_ENDPGM,
    ];
    let base = 0x4000_0000u64;
    for (gpu, words, first_max) in [
        (Gpu::GFX1100, &gfx11[..], false),
        (Gpu::GFX1200, &gfx12[..], true),
    ] {
        // Distinct non-zero numbers: NaN pairs and signed zeros are decided by the memory
        // environment (the runtime follows ISA 13.3); the lifter chooses the operation.
        let nums = [
            1.0f32,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            3.25,
            2.5,
            -7.0,
            1e-3,
        ];
        let mem0: Vec<u8> = (0..64usize)
            .flat_map(|i| nums[(i * 3) % 8].to_bits().to_le_bytes())
            .collect();
        let mut mem = Mem::new(0);
        mem.add(base, mem0.clone());
        let mut s = state(32, 181, EXEC);
        for l in 0..64 {
            s.set_sgpr64(0, 0);
            let a = base + 8 * (l as u64 % 32);
            s.vgpr[2][l] = a as u32;
            s.vgpr[3][l] = (a >> 32) as u32;
            s.vgpr[4][l] = nums[(l + 1) % 8].to_bits();
            s.vgpr[5][l] = nums[(l / 3 + 2) % 8].to_bits();
        }
        let b = clone_state(&s);
        run(tgt(gpu, 32), words, &mut s, &mut mem);
        let exec = b.exec();
        let dw = |m: &[u8], i: usize| u32::from_le_bytes(m[4 * i..4 * i + 4].try_into().unwrap());
        // The returning atomic gives the old value.
        check(&b, &s, 1, |l| dw(&mem0, 2 * l));
        for l in 0..32 {
            let on = exec >> l & 1 != 0;
            let (o0, o1) = (dw(&mem0, 2 * l), dw(&mem0, 2 * l + 1));
            let w0 = if on {
                atomic_minmax(o0, b.vgpr[4][l], first_max)
            } else {
                o0
            };
            let w1 = if on {
                atomic_minmax(o1, b.vgpr[5][l], !first_max)
            } else {
                o1
            };
            assert_eq!(dw(mem.region(base), 2 * l), w0, "{gpu} lane {l} word 0");
            assert_eq!(dw(mem.region(base), 2 * l + 1), w1, "{gpu} lane {l} word 1");
        }
    }
}

#[test]
fn gfx12_global_load_tr_into_the_wmma_a_layout() {
    #[rustfmt::skip]
    let w32 = [
        0xee15c07c, 0x00000008, 0x00000002, // global_load_tr_b128 v[8:11], v[2:3], off
        0xee16007c, 0x0000000c, 0x00000004, // global_load_tr_b64 v[12:13], v[4:5], off
        S_ENDPGM,
    ];
    #[rustfmt::skip]
    let w64 = [
        0xee15c07c, 0x00000008, 0x00000002, // global_load_tr_b128 v[8:9], v[2:3], off
        0xee16007c, 0x0000000c, 0x00000004, // global_load_tr_b64 v12, v[4:5], off
        S_ENDPGM,
    ];
    // A 16x16 A-matrix (M x K) stored column-major: 16-bit at B16, 8-bit at B8.
    const B16: u64 = 0x5000_0000;
    const B8: u64 = 0x5000_1000;
    let e16 = |m: u32, k: u32| 0x4000 + m * 16 + k * 0x100 + (m ^ k);
    let e8 = |m: u32, k: u32| (m * 16 + k) ^ 0x5a;
    let mut m16 = vec![0u8; 512];
    let mut m8 = vec![0u8; 256];
    for m in 0..16 {
        for k in 0..16 {
            let o = (k * 16 + m) as usize;
            m16[2 * o..2 * o + 2].copy_from_slice(&(e16(m, k) as u16).to_le_bytes());
            m8[o] = e8(m, k) as u8;
        }
    }
    for (wave, words) in [(32u32, &w32[..]), (64, &w64[..])] {
        let mut mem = Mem::new(0);
        mem.add(B16, m16.clone());
        mem.add(B8, m8.clone());
        let mut s = state(wave, 191, !0);
        // ISA 11.6.2 figure: lane L loads the 8 elements M0..M0+8 of column K.
        for lane in 0..64u32 {
            let (k, m0) = ((lane >> 3) * 4 + (lane & 3), 8 * (lane >> 2 & 1));
            let (a16, a8) = if lane < 32 {
                (B16 + 2 * (k * 16 + m0) as u64, B8 + (k * 16 + m0) as u64)
            } else {
                // Lanes 32..63 (wave64): not used; an address outside memory proves it.
                (0xdead_0000, 0xdead_0000)
            };
            s.vgpr[2][lane as usize] = a16 as u32;
            s.vgpr[3][lane as usize] = (a16 >> 32) as u32;
            s.vgpr[4][lane as usize] = a8 as u32;
            s.vgpr[5][lane as usize] = (a8 >> 32) as u32;
        }
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1200, wave), words, &mut s, &mut mem);
        // ISA 7.12.2 A-matrix layout, element (row M, col K) → (lane, vgpr, position).
        let n16 = if wave == 32 { 4 } else { 2 };
        for m in 0..16u32 {
            for k in 0..16u32 {
                let (lane, reg, pos) = if wave == 32 {
                    ((k >> 2 & 1) << 4 | m, (k >> 3) << 1 | (k >> 1 & 1), k & 1)
                } else {
                    ((k >> 2) << 4 | m, k >> 1 & 1, k & 1)
                };
                assert!(reg < n16);
                let got = s.vgpr[8 + reg as usize][lane as usize] >> (16 * pos) & 0xffff;
                assert_eq!(got, e16(m, k), "wave{wave} b128 M={m} K={k}");
                let (lane, reg, pos) = if wave == 32 {
                    ((k >> 3) << 4 | m, k >> 2 & 1, k & 3)
                } else {
                    ((k >> 2 & 1) << 5 | (k >> 3) << 4 | m, 0, k & 3)
                };
                let got = s.vgpr[12 + reg as usize][lane as usize] >> (8 * pos) & 0xff;
                assert_eq!(got, e8(m, k), "wave{wave} b64 M={m} K={k}");
            }
        }
        // Nothing else written (wave64: 2 + 1 registers, wave32: 4 + 2).
        let written: &[usize] = if wave == 32 {
            &[8, 9, 10, 11, 12, 13]
        } else {
            &[8, 9, 12]
        };
        for r in (0..40).filter(|r| !written.contains(r)) {
            assert_eq!(s.vgpr[r], b.vgpr[r], "v{r}");
        }
    }
}

/// f64 → f16 bits, round to nearest even (normal results only, as the tests produce).
fn to_f16(x: f64) -> u32 {
    let s = if x < 0.0 { 0x8000 } else { 0 };
    let a = x.abs();
    let e = a.log2().floor() as i32;
    assert!((-14..16).contains(&e), "{x} is not in the f16 normal range");
    let q = (a / 2f64.powi(e - 10)).round_ties_even(); // 11-bit significand
    let (q, e) = if q >= 2048.0 {
        (q / 2.0, e + 1)
    } else {
        (q, e)
    };
    s | ((e + 15) as u32) << 10 | (q as u32 - 1024)
}

#[test]
fn f16_fmac_fmaak_fmamk_on_halves() {
    #[rustfmt::skip]
    let words = [
        0x6d051104, // v_fmac_f16_e32 v2.h, v4.l, v8.h
        0x70061104, 0x00003c00, // v_fmaak_f16 v3.l, v4.l, v8.l, 0x3c00
        0x6f0a1184, 0x0000c100, // v_fmamk_f16 v5.h, v4.h, 0xc100, v8.l
        S_ENDPGM,
    ];
    let vals = [
        1.375f32, -2.625, 0.1875, 3.0, -0.71875, 5.5, 1.0009766, -9.25,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 201, EXEC);
        for l in 0..64 {
            s.vgpr[4][l] = h(vals[l % 8]) | h(vals[(l + 3) % 8]) << 16;
            s.vgpr[8][l] = h(vals[(l / 2) % 8]) | h(vals[(l + 5) % 8]) << 16;
            s.vgpr[2][l] = (s.vgpr[2][l] & 0xffff) | h(vals[(l + 1) % 8]) << 16;
        }
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let hv = |x: u32, hi: bool| f16_val(if hi { x >> 16 } else { x & 0xffff }) as f64;
        let v = |r: usize, l: usize| b.vgpr[r][l];
        let fma = |a: f64, b: f64, c: f64| to_f16(a * b + c);
        check(&b, &s, 2, |l| {
            fma(hv(v(4, l), false), hv(v(8, l), true), hv(v(2, l), true)) << 16 | v(2, l) & 0xffff
        });
        check(&b, &s, 3, |l| {
            v(3, l) & 0xffff_0000 | fma(hv(v(4, l), false), hv(v(8, l), false), 1.0)
        });
        check(&b, &s, 5, |l| {
            fma(hv(v(4, l), true), -2.5, hv(v(8, l), false)) << 16 | v(5, l) & 0xffff
        });
    }
}

/// RDNA4 V_MINIMUM_F16 / V_MAXIMUM_F16 (and S_MIN_NUM_F16 with `num`) on f16 bits.
fn minimum16(a: u32, b: u32, max: bool, num: bool) -> u32 {
    let nan = |x: u32| x & 0x7fff > 0x7c00;
    let snan = |x: u32| nan(x) && x & 0x200 == 0;
    let q = |x: u32| x | 0x200;
    let val = |x: u32| {
        if x & 0x7fff == 0x7c00 {
            if x & 0x8000 != 0 {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        } else {
            f16_val(x) as f64
        }
    };
    if num {
        match (nan(a), nan(b)) {
            (true, true) => return q(a),
            (true, false) => return b,
            (false, true) => return a,
            _ => {}
        }
    } else {
        for (t, x) in [(snan(a), a), (snan(b), b), (nan(a), a), (nan(b), b)] {
            if t {
                return q(x);
            }
        }
    }
    let (fa, fb) = (val(a), val(b));
    let zero_pair = fa == 0.0 && fb == 0.0;
    let a_first = if max {
        fa > fb || (zero_pair && a & 0x8000 == 0 && b & 0x8000 != 0)
    } else {
        fa < fb || (zero_pair && a & 0x8000 != 0 && b & 0x8000 == 0)
    };
    if a_first {
        a
    } else {
        b
    }
}

#[test]
fn gfx12_mad_16_packed_minimum_and_bpermute_fi() {
    #[rustfmt::skip]
    let words = [
        0xd659080a, 0x040e0501, // v_mad_u32_u16 v10, v1.h, v2.l, v3
        0xd65a100b, 0x040e0501, // v_mad_i32_i16 v11, v1.l, v2.h, v3
        0xcc1d400c, 0x18020b04, // v_pk_minimum_f16 v12, v4, v5
        0xcc1e480d, 0x10020b04, // v_pk_maximum_f16 v13, v4, v5 op_sel:[1,0] op_sel_hi:[0,1]
        0xcc1c400f, 0x18020b04, // v_pk_max_num_f16 v15, v4, v5
        0xdb340004, 0x10000807, // ds_bpermute_fi_b32 v16, v7, v8 offset:4
        0xd6310011, 0x045a2b14, // v_med3_num_f32 v17, v20, v21, v22
        0xd632500e, 0x041a0b04, // v_med3_num_f16 v14.h, v4.l, v5.h, v6.l
        S_ENDPGM,
    ];
    let sp16: [u32; 10] = [
        0x7d00, 0xfe55, 0x8000, 0x0000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x0001, 0x4248,
    ];
    let mut s = state(32, 211, EXEC);
    for l in 0..64 {
        s.vgpr[4][l] = sp16[l % 10] | sp16[(l / 10 + 2) % 10] << 16;
        s.vgpr[5][l] = sp16[(l * 3 + 1) % 10] | sp16[(l + 7) % 10] << 16;
        s.vgpr[7][l] = 4 * ((l as u32 * 11 + 5) % 64);
        s.vgpr[6][l] = sp16[(l * 7 + 2) % 10] | 0xabcd_0000;
        s.vgpr[20][l] = SPECIALS[l % 10];
        s.vgpr[21][l] = SPECIALS[(l / 3 + 4) % 10];
        s.vgpr[22][l] = SPECIALS[(l * 7 + 1) % 10];
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut Mem::new(0));
    // V_MED3_NUM pseudocode: min3_num with a NaN input, else the max_num of the two inputs
    // other than the first one equal to the max3_num.
    let med3 = |a: u32,
                b: u32,
                c: u32,
                mm: &dyn Fn(u32, u32, bool) -> u32,
                isnan: &dyn Fn(u32) -> bool,
                eq: &dyn Fn(u32, u32) -> bool| {
        if isnan(a) || isnan(b) || isnan(c) {
            return mm(mm(a, b, false), c, false);
        }
        let m = mm(mm(a, b, true), c, true);
        if eq(m, a) {
            mm(b, c, true)
        } else if eq(m, b) {
            mm(a, c, true)
        } else {
            mm(a, b, true)
        }
    };
    let nan32 = |x: u32| f32::from_bits(x).is_nan();
    let eq32 = |x: u32, y: u32| f32::from_bits(x) == f32::from_bits(y);
    check(&b, &s, 17, |l| {
        let v = |r: usize| b.vgpr[r][l];
        med3(v(20), v(21), v(22), &min_num, &nan32, &eq32)
    });
    let nan16 = |x: u32| x & 0x7fff > 0x7c00;
    let eq16 = |x: u32, y: u32| x == y || (x | y) & 0x7fff == 0;
    let mm16 = |x: u32, y: u32, max: bool| minimum16(x, y, max, true);
    check(&b, &s, 14, |l| {
        let v = |r: usize| b.vgpr[r][l];
        let m = med3(
            v(4) & 0xffff,
            v(5) >> 16,
            v(6) & 0xffff,
            &mm16,
            &nan16,
            &eq16,
        );
        m << 16 | v(14) & 0xffff
    });
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let (lo, hi) = (|x: u32| x & 0xffff, |x: u32| x >> 16);
    check(&b, &s, 10, |l| {
        (hi(v(1, l)) * lo(v(2, l))).wrapping_add(v(3, l))
    });
    check(&b, &s, 11, |l| {
        let p = (lo(v(1, l)) as u16 as i16 as i32) * (hi(v(2, l)) as u16 as i16 as i32);
        (p as u32).wrapping_add(v(3, l))
    });
    check(&b, &s, 12, |l| {
        minimum16(lo(v(4, l)), lo(v(5, l)), false, false)
            | minimum16(hi(v(4, l)), hi(v(5, l)), false, false) << 16
    });
    check(&b, &s, 13, |l| {
        minimum16(hi(v(4, l)), lo(v(5, l)), true, false)
            | minimum16(lo(v(4, l)), hi(v(5, l)), true, false) << 16
    });
    check(&b, &s, 15, |l| {
        minimum16(lo(v(4, l)), lo(v(5, l)), true, true)
            | minimum16(hi(v(4, l)), hi(v(5, l)), true, true) << 16
    });
    // Fetch-inactive: disabled source lanes are read too; index modulo 32.
    check(&b, &s, 16, |l| v(8, ((v(7, l) + 4) / 4 % 32) as usize));
}

#[test]
fn sat_pk_u8_and_cvt_off_f32_i4() {
    #[rustfmt::skip]
    let words = [
        0x7f04c504, // v_sat_pk_u8_i16_e32 v2.h, v4
        0x7e061d05, // v_cvt_off_f32_i4_e32 v3, v5
        S_ENDPGM,
    ];
    // The ISA's offset table for S0[3:0] = 0b0000..0b1111.
    let table = [
        0.0f32, 0.0625, 0.125, 0.1875, 0.25, 0.3125, 0.375, 0.4375, -0.5, -0.4375, -0.375, -0.3125,
        -0.25, -0.1875, -0.125, -0.0625,
    ];
    let i16s = [-300i16, -1, 0, 1, 127, 128, 255, 256, 32767, -32768, 77];
    let mut s = state(32, 221, EXEC);
    for l in 0..64 {
        s.vgpr[4][l] = (i16s[l % 11] as u16 as u32) | (i16s[(l + 4) % 11] as u16 as u32) << 16;
        s.vgpr[5][l] = s.vgpr[5][l] & !0xf | (l as u32 % 16);
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut Mem::new(0));
    let sat = |x: u32| (x as u16 as i16).clamp(0, 255) as u32;
    check(&b, &s, 2, |l| {
        let v = b.vgpr[4][l];
        (sat(v & 0xffff) | sat(v >> 16) << 8) << 16 | b.vgpr[2][l] & 0xffff
    });
    check(&b, &s, 3, |l| table[(b.vgpr[5][l] & 15) as usize].to_bits());
}

#[test]
fn gfx12_scalar_buffer_sub_dword_loads() {
    #[rustfmt::skip]
    let words = [
        0xf4032282, 0xf8000011, // s_buffer_load_u8 s10, s[4:7], 0x11
        0xf40342c2, 0x10000002, // s_buffer_load_i16 s11, s[4:7], s8 offset:0x2
        0xf4030302, 0xf800003f, // s_buffer_load_i8 s12, s[4:7], 0x3f
        0xf4036342, 0xf8000040, // s_buffer_load_u16 s13, s[4:7], 0x40
        S_ENDPGM,
    ];
    let base = 0x3100_0000u64;
    let mut bytes: Vec<u8> = (0..128u32).map(|i| (i * 29 + 0x11) as u8).collect();
    bytes[0x3f] = 0xc3;
    bytes[0x23] = 0x9d;
    let mut mem = Mem::new(0);
    mem.add(base, bytes.clone());
    // V#: num_records = 64 bytes (stride 0): offset 0x40 is out of range and reads 0.
    let mut s = state(32, 231, EXEC);
    s.sgpr[4] = base as u32;
    s.sgpr[5] = (base >> 32) as u32;
    s.sgpr[6] = 64;
    s.sgpr[7] = 0;
    s.sgpr[8] = 0x20;
    run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut mem);
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
    assert_eq!(s.sgpr[10], bytes[0x11] as u32);
    assert_eq!(s.sgpr[11], u16_at(0x22) as i16 as i32 as u32);
    assert!(u16_at(0x22) & 0x8000 != 0, "sign-extension exercised");
    assert_eq!(s.sgpr[12], 0xc3u8 as i8 as i32 as u32);
    assert_eq!(s.sgpr[13], 0, "past num_records");
}

#[test]
fn media_sad_and_lerp() {
    #[rustfmt::skip]
    let words = [
        0xd622000a, 0x040e0501, // v_sad_u8 v10, v1, v2, v3
        0xd623000b, 0x040e0501, // v_sad_hi_u8 v11, v1, v2, v3
        0xd624000c, 0x040e0501, // v_sad_u16 v12, v1, v2, v3
        0xd639000d, 0x040e0501, // v_msad_u8 v13, v1, v2, v3
        0xd615000e, 0x040e0501, // v_lerp_u8 v14, v1, v2, v3
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 241, EXEC);
        for l in 0..64 {
            // Zero reference bytes in some lanes (msad skips them).
            if l % 3 == 0 {
                s.vgpr[2][l] &= 0xff00_ff00;
            }
        }
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let v = |r: usize, l: usize| b.vgpr[r][l];
        let by = |x: u32, i: u32| x >> (8 * i) & 0xff;
        let sad8 = |l: usize, masked: bool| {
            (0..4).fold(0u32, |acc, i| {
                let (x, y) = (by(v(1, l), i), by(v(2, l), i));
                if masked && y == 0 {
                    acc
                } else {
                    acc + x.abs_diff(y)
                }
            })
        };
        check(&b, &s, 10, |l| sad8(l, false).wrapping_add(v(3, l)));
        check(&b, &s, 11, |l| (sad8(l, false) << 16).wrapping_add(v(3, l)));
        check(&b, &s, 12, |l| {
            let (x, y) = (v(1, l), v(2, l));
            ((x & 0xffff).abs_diff(y & 0xffff) + (x >> 16).abs_diff(y >> 16)).wrapping_add(v(3, l))
        });
        check(&b, &s, 13, |l| sad8(l, true).wrapping_add(v(3, l)));
        check(&b, &s, 14, |l| {
            (0..4).fold(0u32, |acc, i| {
                let r = (by(v(1, l), i) + by(v(2, l), i) + (v(3, l) >> (8 * i) & 1)) >> 1;
                acc | r << (8 * i)
            })
        });
    }
}

#[test]
fn addtid_global_and_lds() {
    #[rustfmt::skip]
    let words = [
        0xdca20010, 0x08020000, // global_load_addtid_b32 v8, s[2:3] offset:16
        0xdca60100, 0x00020900, // global_store_addtid_b32 v9, s[2:3] offset:256
        0xdac40008, 0x0a000000, // ds_load_addtid_b32 v10 offset:8
        0xdac00200, 0x00000b00, // ds_store_addtid_b32 v11 offset:512
        S_ENDPGM,
    ];
    let base = 0x3200_0000u64;
    let bytes: Vec<u8> = (0..512u32).map(|i| (i * 53 + 7) as u8).collect();
    let mut mem = Mem::new(1024);
    mem.add(base, bytes.clone());
    let lds0 = mem.lds.clone();
    let mut s = state(32, 251, EXEC);
    s.set_sgpr64(2, base);
    s.sgpr[wavejit_translator::wave::sreg::M0 as usize] = 0xffff_0040; // M0[15:0] = 0x40
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut mem);
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    check(&b, &s, 8, |l| dw(&bytes, 16 + 4 * l));
    check(&b, &s, 10, |l| dw(&lds0, 0x40 + 8 + 4 * l));
    let exec = b.exec();
    for l in 0..32 {
        let on = exec >> l & 1 != 0;
        let g = dw(mem.region(base), 256 + 4 * l);
        assert_eq!(
            g,
            if on {
                b.vgpr[9][l]
            } else {
                dw(&bytes, 256 + 4 * l)
            },
            "global lane {l}"
        );
        let d = dw(&mem.lds, 0x40 + 512 + 4 * l);
        assert_eq!(
            d,
            if on {
                b.vgpr[11][l]
            } else {
                dw(&lds0, 0x40 + 512 + 4 * l)
            },
            "lds lane {l}"
        );
    }
}

#[test]
fn relative_vgpr_moves_with_m0() {
    #[rustfmt::skip]
    let words = [
        0xbefd008a, // s_mov_b32 m0, 10
        0x7e0a8707, // v_movrels_b32_e32 v5, v7      (v5 = v17)
        0x7e288507, // v_movreld_b32_e32 v20, v7     (v30 = v7)
        0x7e3c8928, // v_movrelsd_b32_e32 v30, v40   (v40 = v50)
        0xbefd00ff, 0x00050003, // s_mov_b32 m0, 0x50003
        0x7e64913c, // v_movrelsd_2_b32_e32 v50, v60 (v55 = v63)
        0xbefd00ff, 0x000000fa, // s_mov_b32 m0, 0xfa
        0x7e0c8707, // v_movrels_b32_e32 v6, v7      (v257 is out of range: v6 = v0)
        0x7e108509, // v_movreld_b32_e32 v8, v9      (v258 is out of range: no write)
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let mut s = state(32, 261, EXEC);
        let b = clone_state(&s);
        run(tgt(gpu, 32), &words, &mut s, &mut Mem::new(0));
        let v = |r: usize, l: usize| b.vgpr[r][l];
        check(&b, &s, 5, |l| v(17, l));
        check(&b, &s, 30, |l| v(7, l));
        // v40 = v50 (read before v50 is written below).
        check(&b, &s, 40, |l| v(50, l));
        check(&b, &s, 55, |l| v(63, l));
        check(&b, &s, 6, |l| v(0, l));
        for r in [8usize, 20, 50] {
            assert_eq!(s.vgpr[r], b.vgpr[r], "{gpu} v{r} must not be written");
        }
    }
}

#[test]
fn qsad_and_mqsad() {
    #[rustfmt::skip]
    let words = [
        0xd63a000a, 0x041a0902, // v_qsad_pk_u16_u8 v[10:11], v[2:3], v4, v[6:7]
        0xd63b000c, 0x041a0902, // v_mqsad_pk_u16_u8 v[12:13], v[2:3], v4, v[6:7]
        0xd63d0014, 0x043a0902, // v_mqsad_u32_u8 v[20:23], v[2:3], v4, v[14:17]
        S_ENDPGM,
    ];
    let mut s = state(32, 271, EXEC);
    for l in 0..64 {
        if l % 2 == 0 {
            s.vgpr[4][l] &= 0x00ff_ff00; // zero reference bytes (skipped by the masked forms)
        }
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut Mem::new(0));
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let sad = |l: usize, i: u32, masked: bool| {
        let a = (v(2, l) as u64 | (v(3, l) as u64) << 32) >> (8 * i);
        (0..4).fold(0u32, |acc, j| {
            let x = (a >> (8 * j)) as u32 & 0xff;
            let y = v(4, l) >> (8 * j) & 0xff;
            if masked && y == 0 {
                acc
            } else {
                acc + x.abs_diff(y)
            }
        })
    };
    let pk = |l: usize, masked: bool, hi: bool| {
        let c = v(6, l) as u64 | (v(7, l) as u64) << 32;
        let f = |i: u32| (sad(l, i, masked) + ((c >> (16 * i)) as u32 & 0xffff)) & 0xffff;
        let (i0, i1) = if hi { (2, 3) } else { (0, 1) };
        f(i0) | f(i1) << 16
    };
    check(&b, &s, 10, |l| pk(l, false, false));
    check(&b, &s, 11, |l| pk(l, false, true));
    check(&b, &s, 12, |l| pk(l, true, false));
    check(&b, &s, 13, |l| pk(l, true, true));
    for i in 0..4 {
        check(&b, &s, 20 + i, |l| {
            sad(l, i as u32, true).wrapping_add(v(14 + i, l))
        });
    }
}

#[test]
fn gfx12_block_load_store_with_m0_mask() {
    #[rustfmt::skip]
    let words = [
        0xbefd00ff, 0x80000005, // s_mov_b32 m0, 0x80000005 (VGPRs 0, 2 and 31 of the block)
        0xee14c07c, 0x00000008, 0x00000802, // global_load_block v[8:39], v[2:3], off offset:8
        0xee15007c, 0x14000000, 0x00000404, // global_store_block v[4:5], v[40:71], off offset:4
        S_ENDPGM,
    ];
    const LD: u64 = 0x6000_0000;
    const ST: u64 = 0x6001_0000;
    let bytes: Vec<u8> = (0..32 * 160u32)
        .map(|i| (i * 31 + 3) as u8 ^ (i >> 7) as u8)
        .collect();
    let mut mem = Mem::new(0);
    mem.add(LD, bytes.clone());
    mem.add(ST, vec![0xee; 32 * 160]);
    let mut s = state(32, 281, EXEC);
    for l in 0..64 {
        let (a, b) = (LD + 160 * (l as u64 % 32), ST + 160 * (l as u64 % 32));
        s.vgpr[2][l] = a as u32;
        s.vgpr[3][l] = (a >> 32) as u32;
        s.vgpr[4][l] = b as u32;
        s.vgpr[5][l] = (b >> 32) as u32;
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1200, 32), &words, &mut s, &mut mem);
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    let exec = b.exec();
    for n in 0..32usize {
        let on_bit = [0, 2, 31].contains(&n);
        // Loads: VGPR 8 + n from 160 * lane + 8 + 4n when selected, else unchanged.
        if on_bit {
            check(&b, &s, 8 + n, |l| dw(&bytes, 160 * l + 8 + 4 * n));
        } else {
            assert_eq!(s.vgpr[8 + n], b.vgpr[8 + n], "v{} skipped", 8 + n);
        }
        // Stores: VGPR 40 + n to 160 * lane + 4 + 4n when selected (skipped slots untouched).
        for l in 0..32usize {
            let got = dw(mem.region(ST), 160 * l + 4 + 4 * n);
            let want = if on_bit && exec >> l & 1 != 0 {
                b.vgpr[40 + n][l]
            } else {
                0xeeee_eeee
            };
            assert_eq!(got, want, "store v{} lane {l}", 40 + n);
        }
    }
}

#[test]
fn swaprel_and_vopd_dot2acc_bf16() {
    #[rustfmt::skip]
    let words = [
        0xbefd00ff, 0x00020003, // s_mov_b32 m0, 0x20003
        0x7e14d114, // v_swaprel_b32 v10, v20 (v12 <-> v23)
        0xcb500702, 0x00000104, // v_dual_dot2acc_f32_bf16 v0, v2, v3 :: v_dual_mov_b32 v1, v4
        S_ENDPGM,
    ];
    let mut s = state(32, 291, EXEC);
    let halves = [0x3f80u32, 0xc000, 0x3e00, 0x4110, 0xbf40, 0x4280];
    for l in 0..64 {
        s.vgpr[2][l] = halves[l % 6] | halves[(l + 1) % 6] << 16;
        s.vgpr[3][l] = halves[(l + 2) % 6] | halves[(l + 4) % 6] << 16;
        s.vgpr[0][l] = (l as f32 * 0.75 - 3.0).to_bits();
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut Mem::new(0));
    let v = |r: usize, l: usize| b.vgpr[r][l];
    check(&b, &s, 12, |l| v(23, l));
    check(&b, &s, 23, |l| v(12, l));
    let bf = |x: u32| f32::from_bits(x << 16);
    check(&b, &s, 0, |l| {
        let mut t = f32::from_bits(v(0, l));
        t += bf(v(2, l) & 0xffff) * bf(v(3, l) & 0xffff);
        t += bf(v(2, l) >> 16) * bf(v(3, l) >> 16);
        t.to_bits()
    });
    check(&b, &s, 1, |l| v(4, l));
}

#[test]
fn ds_storexchg_2addr() {
    #[rustfmt::skip]
    let words = [
        0xd8b80501, 0x08030201, // ds_storexchg_2addr_rtn_b32 v[8:9], v1, v2, v3 offset0:1 offset1:5
        0xd9bc0100, 0x0a06040e, // ds_storexchg_2addr_stride64_rtn_b64 v[10:13], v14, v[4:5], v[6:7] offset1:1
        S_ENDPGM,
    ];
    let mut mem = Mem::new(2048);
    let lds0 = mem.lds.clone();
    let mut s = state(32, 301, EXEC);
    for l in 0..64 {
        s.vgpr[1][l] = 1024 + 32 * (l as u32 % 32);
        s.vgpr[14][l] = 8 * (l as u32 % 32);
    }
    let b = clone_state(&s);
    run(tgt(Gpu::GFX1100, 32), &words, &mut s, &mut mem);
    let dw = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
    let exec = b.exec();
    check(&b, &s, 8, |l| dw(&lds0, 1024 + 32 * l + 4));
    check(&b, &s, 9, |l| dw(&lds0, 1024 + 32 * l + 20));
    check(&b, &s, 10, |l| dw(&lds0, 8 * l));
    check(&b, &s, 11, |l| dw(&lds0, 8 * l + 4));
    check(&b, &s, 12, |l| dw(&lds0, 8 * l + 512));
    check(&b, &s, 13, |l| dw(&lds0, 8 * l + 516));
    for l in 0..32 {
        let on = exec >> l & 1 != 0;
        let want = |o: usize, new: u32| if on { new } else { dw(&lds0, o) };
        let v = |r: usize| b.vgpr[r][l];
        for (o, new) in [
            (1024 + 32 * l + 4, v(2)),
            (1024 + 32 * l + 20, v(3)),
            (8 * l, v(4)),
            (8 * l + 4, v(5)),
            (8 * l + 512, v(6)),
            (8 * l + 516, v(7)),
        ] {
            assert_eq!(dw(&mem.lds, o), want(o, new), "lane {l} offset {o}");
        }
    }
}

/// f16 bits → f32, infinities and NaN included (host reference).
fn half(b: u32) -> f32 {
    match (b >> 10 & 31, b & 0x3ff) {
        (31, 0) if b & 0x8000 != 0 => f32::NEG_INFINITY,
        (31, 0) => f32::INFINITY,
        (31, _) => f32::NAN,
        _ => f16_val(b),
    }
}

/// SNORM (`signed`) or UNORM 16-bit code of `x`: clamped to [-1, 1] ([0, 1]), scaled by
/// 32767 (65535) in f64, rounded half to even; NaN gives 0.
fn norm_ref(x: f32, signed: bool) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let (lo, scale) = if signed {
        (-1.0, 32767.0)
    } else {
        (0.0, 65535.0)
    };
    let v = (x as f64).max(lo).min(1.0) * scale;
    (v.round_ties_even() as i64 as u32) & 0xffff
}

/// `v_cvt_i16_f32`/`v_cvt_u16_f32` of the ISA: toward zero, saturated, NaN → 0.
fn cvt16_ref(x: f32, signed: bool) -> u32 {
    if x.is_nan() {
        return 0;
    }
    let (lo, hi) = if signed {
        (-32768.0, 32767.0)
    } else {
        (0.0, 65535.0)
    };
    ((x as f64).trunc().max(lo).min(hi) as i64 as u32) & 0xffff
}

#[test]
fn norm_and_16_bit_pack_conversions() {
    #[rustfmt::skip]
    let words = [
        0xd721000a, 0x00020501, // v_cvt_pk_norm_i16_f32 v10, v1, v2
        0xd722000b, 0x00020501, // v_cvt_pk_norm_u16_f32 v11, v1, v2
        0xd706000c, 0x00020501, // v_cvt_pk_i16_f32 v12, v1, v2
        0xd707000d, 0x00020501, // v_cvt_pk_u16_f32 v13, v1, v2
        0xd626000e, 0x04120701, // v_cvt_pk_u8_f32 v14, v1, v3, v4
        0xd712100f, 0x00020b05, // v_cvt_pk_norm_i16_f16 v15, v5.l, v5.h op_sel:[0,1,0]
        0xd7130810, 0x00020d05, // v_cvt_pk_norm_u16_f16 v16, v5.h, v6.l op_sel:[1,0,0]
        0x7f22c705, // v_cvt_norm_i16_f16_e32 v17.h, v5.l
        0x7e22c985, // v_cvt_norm_u16_f16_e32 v17.l, v5.h
        S_ENDPGM,
    ];
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -3.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -1e-40,
        0.999_99,
        -0.999_99,
        40000.0,
        -40000.0,
        65535.9,
        70000.0,
        -1.5,
        255.9,
        256.0,
        300.0,
        0.7,
        12.5,
        -7.25,
    ];
    let h_specials = [
        0x0000u32, 0x8000, 0x3c00, 0xbc00, 0x3800, 0x7c00, 0xfc00, 0x7e00, 0x0001, 0x83ff, 0x3bff,
        0xbbff, 0x4000, 0x7bff,
    ];
    for (gpu, wave) in [(Gpu::GFX1100, 32), (Gpu::GFX1200, 32), (Gpu::GFX1200, 64)] {
        let mut s = state(wave, 91, EXEC);
        let mut r = Rng(5);
        let f = |r: &mut Rng, l: usize, k: usize| {
            if (l + k).is_multiple_of(3) {
                specials[(l * 7 + k) % specials.len()]
            } else {
                ((r.u32() as f64 / 4294967296.0) * 3.0 - 1.5) as f32
            }
        };
        for l in 0..64 {
            s.vgpr[1][l] = f(&mut r, l, 0).to_bits();
            s.vgpr[2][l] = f(&mut r, l, 1).to_bits();
            s.vgpr[3][l] = r.u32() & !3 | (l as u32 % 4);
            let hv = |r: &mut Rng, k: usize| {
                if (l + k).is_multiple_of(2) {
                    h_specials[(l * 5 + k) % h_specials.len()]
                } else {
                    // A random finite f16 with magnitude below 4.
                    r.u32() & 0x83ff | (r.u32() % 17) << 10
                }
            };
            s.vgpr[5][l] = hv(&mut r, 0) | hv(&mut r, 1) << 16;
            s.vgpr[6][l] = hv(&mut r, 2) | 0xdead_0000;
        }
        let b = clone_state(&s);
        let mut mem = Mem::new(0);
        run(tgt(gpu, wave), &words, &mut s, &mut mem);
        let (x, y) = (
            |l: usize| f32::from_bits(b.vgpr[1][l]),
            |l: usize| f32::from_bits(b.vgpr[2][l]),
        );
        let pk = |a: u32, c: u32| a | c << 16;
        check(&b, &s, 10, |l| {
            pk(norm_ref(x(l), true), norm_ref(y(l), true))
        });
        check(&b, &s, 11, |l| {
            pk(norm_ref(x(l), false), norm_ref(y(l), false))
        });
        check(&b, &s, 12, |l| {
            pk(cvt16_ref(x(l), true), cvt16_ref(y(l), true))
        });
        check(&b, &s, 13, |l| {
            pk(cvt16_ref(x(l), false), cvt16_ref(y(l), false))
        });
        check(&b, &s, 14, |l| {
            let v = x(l);
            let u = if v.is_nan() {
                0
            } else {
                (v as f64).trunc().clamp(0.0, 255.0) as u32
            };
            let sh = 8 * (b.vgpr[3][l] & 3);
            b.vgpr[4][l] & !(0xff << sh) | u << sh
        });
        let lo5 = |l: usize| half(b.vgpr[5][l] & 0xffff);
        let hi5 = |l: usize| half(b.vgpr[5][l] >> 16);
        let lo6 = |l: usize| half(b.vgpr[6][l] & 0xffff);
        check(&b, &s, 15, |l| {
            pk(norm_ref(lo5(l), true), norm_ref(hi5(l), true))
        });
        check(&b, &s, 16, |l| {
            pk(norm_ref(hi5(l), false), norm_ref(lo6(l), false))
        });
        check(&b, &s, 17, |l| {
            norm_ref(lo5(l), true) << 16 | norm_ref(hi5(l), false)
        });
    }
}

/// f64 → bf16 bits, round to nearest even (normal results, or zero, as the tests produce).
fn to_bf16(x: f64) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let s = if x < 0.0 { 0x8000 } else { 0 };
    let a = x.abs();
    let e = a.log2().floor() as i32;
    let q = (a / 2f64.powi(e - 7)).round_ties_even(); // 8-bit significand
    let (q, e) = if q >= 256.0 { (q / 2.0, e + 1) } else { (q, e) };
    s | ((e + 127) as u32) << 7 | (q as u32 - 128)
}

#[test]
fn dot2_f16_f16_and_bf16_bf16_round_each_step_once() {
    #[rustfmt::skip]
    let words = [
        0xd6660014, 0x04261107, // v_dot2_f16_f16 v20, v7, v8, v9
        0xd6666015, 0x04261107, // v_dot2_f16_f16 v21.h, v7, v8, v9.h op_sel:[0,0,1,1]
        0xd6670016, 0x0432170a, // v_dot2_bf16_bf16 v22, v10, v11, v12
        0xd6676017, 0x0432170a, // v_dot2_bf16_bf16 v23.h, v10, v11, v12.h op_sel:[0,0,1,1]
        S_ENDPGM,
    ];
    let bf = |b: u32| f32::from_bits(b << 16) as f64;
    let hf = |b: u32| f16_val(b) as f64;
    for (gpu, wave) in [(Gpu::GFX1100, 32), (Gpu::GFX1200, 32), (Gpu::GFX1200, 64)] {
        let mut s = state(wave, 33, EXEC);
        let mut r = Rng(77);
        // Moderate exponents: every product and sum is exact in f64, so the host rounds once.
        let h16 = |r: &mut Rng| r.u32() & 0x83ff | (12 + r.u32() % 7) << 10;
        let b16 = |r: &mut Rng| r.u32() & 0x807f | (124 + r.u32() % 7) << 7;
        for l in 0..64 {
            for reg in [7, 8, 9] {
                s.vgpr[reg][l] = h16(&mut r) | h16(&mut r) << 16;
            }
            for reg in [10, 11, 12] {
                s.vgpr[reg][l] = b16(&mut r) | b16(&mut r) << 16;
            }
        }
        // Lane 0: a product exactly halfway between two f16 (bf16) values plus a tiny
        // addend, which a sum rounded to f32 first would put onto the tie.
        // f16: (1 + 2^-5)(1 + 2^-6) = 1 + 2^-5 + 2^-6 + 2^-11, addend 2^-24 (a denormal).
        s.vgpr[7][0] = 0x3c20;
        s.vgpr[8][0] = 0x3c10;
        s.vgpr[9][0] = 0x0001 | 0x0001 << 16;
        // bf16: 1.0625^2 = 1 + 2^-3 + 2^-8, addend 2^-30.
        s.vgpr[10][0] = 0x3f88;
        s.vgpr[11][0] = 0x3f88;
        s.vgpr[12][0] = 0x3080 | 0x3080 << 16;
        let b = clone_state(&s);
        let mut mem = Mem::new(0);
        run(tgt(gpu, wave), &words, &mut s, &mut mem);
        let lo = |v: u32| v & 0xffff;
        let hi = |v: u32| v >> 16;
        let f16dot = |l: usize, c: u32| {
            let (a, bb) = (b.vgpr[7][l], b.vgpr[8][l]);
            let t = to_f16_or_zero(hf(c) + hf(lo(a)) * hf(lo(bb)));
            to_f16_or_zero(hf(t) + hf(hi(a)) * hf(hi(bb)))
        };
        check(&b, &s, 20, |l| {
            b.vgpr[20][l] & 0xffff_0000 | f16dot(l, lo(b.vgpr[9][l]))
        });
        check(&b, &s, 21, |l| {
            b.vgpr[21][l] & 0xffff | f16dot(l, hi(b.vgpr[9][l])) << 16
        });
        assert_eq!(s.vgpr[20][0] & 0xffff, 0x3c31, "f16 tie case rounds up");
        let bfdot = |l: usize, c: u32| {
            let (a, bb) = (b.vgpr[10][l], b.vgpr[11][l]);
            let t = to_bf16(bf(c) + bf(lo(a)) * bf(lo(bb)));
            to_bf16(bf(t) + bf(hi(a)) * bf(hi(bb)))
        };
        check(&b, &s, 22, |l| {
            b.vgpr[22][l] & 0xffff_0000 | bfdot(l, lo(b.vgpr[12][l]))
        });
        check(&b, &s, 23, |l| {
            b.vgpr[23][l] & 0xffff | bfdot(l, hi(b.vgpr[12][l])) << 16
        });
        assert_eq!(s.vgpr[22][0] & 0xffff, 0x3f91, "bf16 tie case rounds up");
    }
}

/// [`to_f16`], with an exact zero giving +0.
fn to_f16_or_zero(x: f64) -> u32 {
    if x == 0.0 {
        0
    } else {
        to_f16(x)
    }
}

#[test]
fn sendmsg_rtn_values_and_no_op_barriers() {
    #[rustfmt::skip]
    let msgs = [
        0xbe8a4c83, // s_sendmsg_rtn_b32 s10, sendmsg(MSG_RTN_GET_REALTIME)
        0xbe8c4d83, // s_sendmsg_rtn_b64 s[12:13], sendmsg(MSG_RTN_GET_REALTIME)
        0xbe8e4c80, // s_sendmsg_rtn_b32 s14, sendmsg(MSG_RTN_GET_DOORBELL)
        0xbe904d85, // s_sendmsg_rtn_b64 s[16:17], sendmsg(MSG_RTN_GET_TBA)
        0xbe924d82, // s_sendmsg_rtn_b64 s[18:19], sendmsg(MSG_RTN_GET_TMA)
        0xbe944c81, // s_sendmsg_rtn_b32 s20, sendmsg(MSG_RTN_GET_DDID)
    ];
    #[rustfmt::skip]
    let barriers = [
        0xbe804ec2, // s_barrier_signal -2 (trap barrier: a no-op for user waves)
        0xbe804e80, // s_barrier_signal 0 (a no-op)
        0xbe804fc2, // s_barrier_signal_isfirst -2 (SCC = 0)
    ];
    for (gpu, wave) in [(Gpu::GFX1100, 32), (Gpu::GFX1200, 32), (Gpu::GFX1200, 64)] {
        let mut words = msgs.to_vec();
        if gpu == Gpu::GFX1200 {
            words.extend(barriers);
        }
        words.push(S_ENDPGM);
        let mut s = state(wave, 3, EXEC);
        s.scc = 1;
        let mut mem = Mem::new(0);
        let clock = mem.clock;
        let code = Code::from_words(&words);
        let block = lift_block(&tgt(gpu, wave), &code, CODE_BASE, MODE);
        assert!(
            matches!(block.exit, Exit::EndPgm),
            "one block to s_endpgm: {block}"
        );
        run(tgt(gpu, wave), &words, &mut s, &mut mem);
        assert_eq!(
            s.sgpr[10], clock as u32,
            "REALTIME b32: the clock's low half"
        );
        assert_eq!(
            (s.sgpr[12], s.sgpr[13]),
            (clock as u32, (clock >> 32) as u32)
        );
        for reg in [14, 16, 17, 18, 19, 20] {
            assert_eq!(
                s.sgpr[reg], 0,
                "s{reg}: no doorbell, trap handler or dispatch id"
            );
        }
        if gpu == Gpu::GFX1200 {
            assert_eq!(s.scc, 0, "isfirst of barrier -2");
        }
    }
    // SAVE_WAVE is for trap handlers only; reserved ids do not lift either.
    for word in [0xbe944c84u32, 0xbe944c86] {
        let code = Code::from_words(&[word, S_ENDPGM]);
        let block = lift_block(&tgt(Gpu::GFX1200, 32), &code, CODE_BASE, MODE);
        assert!(matches!(block.exit, Exit::Unsupported { .. }), "{word:#x}");
    }
}

#[test]
fn gfx11_ds_cmpstore_f32_f64_compare_as_floats() {
    #[rustfmt::skip]
    let words = [
        0xd8c40004, 0x0a030201, // ds_cmpstore_rtn_f32 v10, v1, v2, v3 offset:4
        0xd8440008, 0x00050401, // ds_cmpstore_f32 v1, v4, v5 offset:8
        0xd9c40000, 0x0c100e06, // ds_cmpstore_rtn_f64 v[12:13], v6, v[14:15], v[16:17]
        0xd9440008, 0x00141206, // ds_cmpstore_f64 v6, v[18:19], v[20:21] offset:8
        S_ENDPGM,
    ];
    // (memory, compare) pairs: ±0 compare equal, NaN equals nothing (not even itself).
    let cases: [(f64, f64); 5] = [
        (0.0, -0.0),
        (f64::NAN, f64::NAN),
        (1.5, 1.5),
        (2.0, 3.0),
        (-0.0, 0.0),
    ];
    for wave in [32u32, 64] {
        let mut s = state(wave, 41, EXEC);
        let mut mem = Mem::new(2048);
        for l in 0..64 {
            let (m, c) = cases[l % 5];
            let (m2, c2) = cases[(l + 2) % 5];
            let o = 16 * l;
            mem.lds[o + 4..o + 8].copy_from_slice(&(m as f32).to_bits().to_le_bytes());
            mem.lds[o + 8..o + 12].copy_from_slice(&(m2 as f32).to_bits().to_le_bytes());
            let o64 = 1024 + 16 * l;
            mem.lds[o64..o64 + 8].copy_from_slice(&m.to_bits().to_le_bytes());
            mem.lds[o64 + 8..o64 + 16].copy_from_slice(&m2.to_bits().to_le_bytes());
            s.vgpr[1][l] = o as u32;
            s.vgpr[6][l] = o64 as u32;
            s.vgpr[3][l] = (c as f32).to_bits();
            s.vgpr[5][l] = (c2 as f32).to_bits();
            for (reg, v) in [(16, c), (20, c2)] {
                s.vgpr[reg][l] = v.to_bits() as u32;
                s.vgpr[reg + 1][l] = (v.to_bits() >> 32) as u32;
            }
        }
        let lds0 = mem.lds.clone();
        let b = clone_state(&s);
        run(tgt(Gpu::GFX1100, wave), &words, &mut s, &mut mem);
        let w32 = |m: &[u8], o: usize| u32::from_le_bytes(m[o..o + 4].try_into().unwrap());
        let w64 = |m: &[u8], o: usize| u64::from_le_bytes(m[o..o + 8].try_into().unwrap());
        let exec = b.exec();
        check(&b, &s, 10, |l| w32(&lds0, 16 * l + 4));
        check(&b, &s, 12, |l| w32(&lds0, 1024 + 16 * l));
        check(&b, &s, 13, |l| w32(&lds0, 1024 + 16 * l + 4));
        for l in 0..64 {
            let on = exec >> l & 1 != 0;
            let f32s = [(4, 2, 3), (8, 4, 5)];
            for (off, new, cmp) in f32s {
                let old = w32(&lds0, 16 * l + off);
                let hit = on && f32::from_bits(old) == f32::from_bits(b.vgpr[cmp][l]);
                let want = if hit { b.vgpr[new][l] } else { old };
                assert_eq!(
                    w32(&mem.lds, 16 * l + off),
                    want,
                    "wave{wave} lane {l} f32 +{off}"
                );
            }
            let pair = |r: usize| b.vgpr[r][l] as u64 | (b.vgpr[r + 1][l] as u64) << 32;
            for (off, new, cmp) in [(0, 14, 16), (8, 18, 20)] {
                let old = w64(&lds0, 1024 + 16 * l + off);
                let hit = on && f64::from_bits(old) == f64::from_bits(pair(cmp));
                let want = if hit { pair(new) } else { old };
                assert_eq!(
                    w64(&mem.lds, 1024 + 16 * l + off),
                    want,
                    "wave{wave} lane {l} f64 +{off}"
                );
            }
        }
    }
}

#[test]
fn ds_append_consume_count_per_wave64_pass() {
    #[rustfmt::skip]
    let words = [
        0xd8f80008, 0x05000000, // ds_append v5 offset:8
        0xd8f40010, 0x06000000, // ds_consume v6 offset:16
        S_ENDPGM,
    ];
    let configs = [
        (Gpu::GFX1100, 32, EXEC),
        (Gpu::GFX1200, 32, EXEC),
        (Gpu::GFX1100, 64, EXEC),
        (Gpu::GFX1200, 64, EXEC),
        (Gpu::GFX1200, 64, 0x0f00_0000_0000_0000),
    ];
    for (gpu, wave, exec) in configs {
        let mut s = state(wave, 9, exec);
        s.sgpr[124] = 64; // M0: the counters' base
        let mut mem = Mem::new(256);
        mem.lds[72..76].copy_from_slice(&1000u32.to_le_bytes());
        mem.lds[80..84].copy_from_slice(&500u32.to_le_bytes());
        let b = clone_state(&s);
        run(tgt(gpu, wave), &words, &mut s, &mut mem);
        let active = b.exec();
        let lo = (active & 0xffff_ffff).count_ones();
        let all = active.count_ones();
        let before_pass = |l: usize| if l < 32 { 0 } else { lo };
        check(&b, &s, 5, |l| 1000 + before_pass(l));
        check(&b, &s, 6, |l| 500 - before_pass(l));
        let word = |o: usize| u32::from_le_bytes(mem.lds[o..o + 4].try_into().unwrap());
        assert_eq!(word(72), 1000 + all, "{gpu} wave{wave} append counter");
        assert_eq!(word(80), 500 - all, "{gpu} wave{wave} consume counter");
    }
}

/// Lane-local, cross-lane, helper and memory work for [`lane_counts`] (gfx1100; wave32 and
/// wave64 encode alike, `vcc_lo`/`s40` standing for `vcc`/`s[40:41]` in wave64).
#[rustfmt::skip]
const LANE_WORK: [u32; 27] = [
    0x4a140501,             // v_add_nc_u32_e32 v10, v1, v2
    0xd613000b, 0x04160903, // v_fma_f32 v11, v3, v4, v5
    0x7c980501,             // v_cmp_gt_u32_e32 vcc_lo, v1, v2
    0x02180f06,             // v_cndmask_b32_e32 v12, v6, v7, vcc_lo
    0xd73c000e, 0x00021083, // v_lshlrev_b64 v[14:15], 3, v[8:9]
    0xd7600014, 0x00014b01, // v_readlane_b32 s20, v1, 37
    0xd7610010, 0x00014e15, // v_writelane_b32 v16, s21, 39
    0xdacc0000, 0x11000112, // ds_bpermute_b32 v17, v18, v1
    0x7e264b03,             // v_exp_f32_e32 v19, v3
    0x7e282103,             // v_cvt_f64_f32_e32 v[20:21], v3
    0x7e2c02fa, 0xff011101, // v_mov_b32_dpp v22, v1 row_shr:1 row_mask:0xf bank_mask:0xf
    0xd44c0028, 0x00000401, // v_cmp_gt_u32_e64 s40, s1, s2
    0xd5010019, 0x00a20f06, // v_cndmask_b32_e64 v25, v6, v7, s40
    0xdc520000, 0x171e0018, // global_load_b32 v23, v24, s[30:31]
    0xdc6a0100, 0x001e0a18, // global_store_b32 v24, v10, s[30:31] offset:256
    0xbf8903f7,             // s_waitcnt vmcnt(0)
    S_ENDPGM,
];

/// Runs `words` to `s_endpgm` in one engine: the interpreter (`jit` None) or the JIT with
/// every block compiled (an error if one does not). Returns whether some block ran in the
/// lane-group loop form.
fn run_engine(
    target: Target,
    words: &[u32],
    s: &mut WaveState,
    mem: &mut Mem,
    jit: Option<&Jit>,
) -> bool {
    let code = Code::from_words(words);
    let mut grouped = false;
    for _ in 0..100 {
        let block = lift_block(&target, &code, s.pc, s.mode);
        let r = match jit {
            None => run_block(&block, s, mem),
            Some(j) => {
                let c = j.compile(&block).expect("every block compiles");
                grouped |= c.is_grouped();
                c.run(s, mem)
            }
        };
        if r.expect("block runs") == ExitCode::EndPgm {
            return grouped;
        }
    }
    panic!("program did not end");
}

/// A wave32 block computes lanes 0..31 only and leaves lanes 32..63 of every VGPR as they
/// were (poisoned with random values here), in the interpreter and in both JIT forms; a
/// wave64 block computes both halves. Expected values are host computations.
#[test]
fn lane_counts_wave32_keeps_high_lanes_wave64_runs_both_halves() {
    const GBASE: u64 = 0x40_0000;
    for wave in [32u32, 64] {
        for exec in [u64::MAX, EXEC] {
            let mut b = state(wave, 0x3264 + wave as u64, exec);
            for l in 0..64 {
                b.vgpr[18][l] = 4 * ((l as u32 * 13 + 7) % 96);
                b.vgpr[24][l] = 4 * l as u32;
            }
            b.set_sgpr64(30, GBASE);
            let mut m0 = Mem::new(64);
            m0.add(GBASE, (0..512u32).map(|i| (i * 37 + 11) as u8).collect());
            let n = wave as usize;
            let jits = [
                None,
                Some(Jit::new().expect("JIT")),
                Some(Jit::new().expect("JIT").without_loop_form()),
            ];
            let mut first: Option<(Box<WaveState>, Mem)> = None;
            for (e, jit) in jits.iter().enumerate() {
                let mut s = clone_state(&b);
                let mut m = m0.clone();
                let grouped = run_engine(
                    tgt(Gpu::GFX1100, wave),
                    &LANE_WORK,
                    &mut s,
                    &mut m,
                    jit.as_ref(),
                );
                let what = format!("wave{wave} exec {exec:#x} engine {e}");
                if e == 1 {
                    assert!(grouped, "{what}: no block in the lane-group form");
                }
                // Lanes past the wave: untouched in every register.
                for r in 0..s.vgpr.len() {
                    for l in n..64 {
                        assert_eq!(s.vgpr[r][l], b.vgpr[r][l], "{what}: v{r} lane {l} changed");
                    }
                }
                let ex = b.exec();
                let on = |l: usize| ex >> l & 1 != 0;
                check(&b, &s, 10, |l| b.vgpr[1][l].wrapping_add(b.vgpr[2][l]));
                check(&b, &s, 12, |l| {
                    b.vgpr[if b.vgpr[1][l] > b.vgpr[2][l] { 7 } else { 6 }][l]
                });
                let sh = |l: usize| (b.vgpr[8][l] as u64 | (b.vgpr[9][l] as u64) << 32) << 3;
                check(&b, &s, 14, |l| sh(l) as u32);
                check(&b, &s, 15, |l| (sh(l) >> 32) as u32);
                // Lane selects ignore the bits past the wave size (RDNA4 ISA 7.6).
                assert_eq!(s.sgpr[20], b.vgpr[1][37 % n], "{what}: readlane");
                for l in 0..64 {
                    let want = if l == 39 % n {
                        b.sgpr[21]
                    } else {
                        b.vgpr[16][l]
                    };
                    assert_eq!(s.vgpr[16][l], want, "{what}: writelane lane {l}");
                }
                check(&b, &s, 17, |l| {
                    let j = (b.vgpr[18][l] / 4) as usize % n;
                    if on(j) {
                        b.vgpr[1][j]
                    } else {
                        0
                    }
                });
                let c = if b.sgpr[1] > b.sgpr[2] { 7 } else { 6 };
                check(&b, &s, 25, |l| b.vgpr[c][l]);
                check(&b, &s, 23, |l| m0.dword(GBASE, l));
                for l in 0..64 {
                    let want = if on(l) {
                        b.vgpr[1][l].wrapping_add(b.vgpr[2][l])
                    } else {
                        m0.dword(GBASE, 64 + l)
                    };
                    assert_eq!(m.dword(GBASE, 64 + l), want, "{what}: stored lane {l}");
                }
                // The rest (f32 FMA, exp, f64 conversion, DPP) as the interpreter gives.
                match &first {
                    None => first = Some((s, m)),
                    Some((s0, m0)) => {
                        assert!(s.vgpr == s0.vgpr && s.sgpr == s0.sgpr && m == *m0, "{what}");
                    }
                }
            }
        }
    }
}

/// Wave32 IR by hand: compare masks have bits 32..63 clear (per-lane, helper-evaluated and
/// uniform-folded compares), lane numbers are taken modulo 32 and all-ones register masks
/// write lanes 0..31 only, in the interpreter and both JIT forms (IR module doc).
#[test]
fn lane_counts_wave32_ir_masks_and_lane_numbers() {
    use wavejit_translator::ir::{BinOp, Block, Builder, CmpOp, ConvOp, Op, Ty};
    let mut b = Builder::new(CODE_BASE, 32);
    let cst = |b: &mut Builder, ty: Ty, bits: u64| b.push(Op::Const { ty, bits }, Some(ty));
    let (x, y) = (
        b.push(Op::GetSgpr(1), Some(Ty::S32)),
        b.push(Op::GetSgpr(2), Some(Ty::S32)),
    );
    let (vx, vy) = (
        b.push(Op::Broadcast(x), Some(Ty::V32)),
        b.push(Op::Broadcast(y), Some(Ty::V32)),
    );
    let (v1, v2) = (
        b.push(Op::GetVgpr(1), Some(Ty::V32)),
        b.push(Op::GetVgpr(2), Some(Ty::V32)),
    );
    let masks = [
        b.push(Op::Cmp(CmpOp::UGt, vx, vy), Some(Ty::S64)),
        b.push(Op::Cmp(CmpOp::UGt, v1, v2), Some(Ty::S64)),
        b.push(Op::Cmp(CmpOp::FClass, v1, v2), Some(Ty::S64)),
    ];
    for (k, m) in masks.into_iter().enumerate() {
        let lo = b.push(Op::Conv(ConvOp::Lo, m), Some(Ty::S32));
        let hi = b.push(Op::Conv(ConvOp::Hi, m), Some(Ty::S32));
        b.push(Op::SetSgpr(10 + 2 * k as u8, lo), None);
        b.push(Op::SetSgpr(11 + 2 * k as u8, hi), None);
    }
    let l37 = cst(&mut b, Ty::S32, 37);
    let r = b.push(Op::ReadLane { v: v1, lane: l37 }, Some(Ty::S32));
    b.push(Op::SetSgpr(16, r), None);
    let l40 = cst(&mut b, Ty::S32, 40);
    let i40 = b.push(Op::Broadcast(l40), Some(Ty::V32));
    let g = b.push(Op::Gather { v: v1, idx: i40 }, Some(Ty::V32));
    let all = cst(&mut b, Ty::S64, u64::MAX);
    b.push(
        Op::SetVgpr {
            reg: 3,
            val: g,
            mask: all,
        },
        None,
    );
    let sum = b.push(Op::Bin(BinOp::Add, v1, v2), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: sum,
            mask: all,
        },
        None,
    );
    let block: Block = b.finish(Exit::EndPgm);
    let mut before = state(32, 0x3232, u64::MAX);
    // s1 > s2: the uniform compare is all ones, whose high half must still be 0.
    before.sgpr[1] |= 0x8000_0000;
    before.sgpr[2] &= 0x7fff_ffff;
    let class = |v: u32, c: u32| {
        let f = f32::from_bits(v);
        let bit = match f.classify() {
            std::num::FpCategory::Nan if v & 0x40_0000 == 0 => 0,
            std::num::FpCategory::Nan => 1,
            std::num::FpCategory::Infinite => {
                if f < 0.0 {
                    2
                } else {
                    9
                }
            }
            std::num::FpCategory::Normal => {
                if f < 0.0 {
                    3
                } else {
                    8
                }
            }
            std::num::FpCategory::Subnormal => {
                if f < 0.0 {
                    4
                } else {
                    7
                }
            }
            std::num::FpCategory::Zero => {
                if v >> 31 != 0 {
                    5
                } else {
                    6
                }
            }
        };
        c >> bit & 1 != 0
    };
    let lanes = |f: &dyn Fn(usize) -> bool| (0..32).fold(0u32, |m, l| m | (f(l) as u32) << l);
    let (s, v) = (&before.sgpr, &before.vgpr);
    let want_s = [
        (10, if s[1] > s[2] { u32::MAX } else { 0 }),
        (12, lanes(&|l| v[1][l] > v[2][l])),
        (14, lanes(&|l| class(v[1][l], v[2][l]))),
        (16, v[1][5]),
    ];
    let jits = [
        Jit::new().expect("JIT"),
        Jit::new().expect("JIT").without_loop_form(),
    ];
    for e in 0..3 {
        let mut st = clone_state(&before);
        let mut mem = Mem::new(0);
        let r = match e {
            0 => run_block(&block, &mut st, &mut mem),
            _ => jits[e - 1]
                .compile(&block)
                .expect("compiles")
                .run(&mut st, &mut mem),
        };
        assert_eq!(r.expect("runs"), ExitCode::EndPgm);
        for (reg, want) in want_s {
            assert_eq!(st.sgpr[reg], want, "engine {e}: s{reg}");
            assert_eq!(
                st.sgpr[reg + 1],
                if reg == 16 { s[17] } else { 0 },
                "engine {e}: s{}",
                reg + 1
            );
        }
        for l in 0..64 {
            let (w3, w4) = if l < 32 {
                (v[1][8], v[1][l].wrapping_add(v[2][l]))
            } else {
                (v[3][l], v[4][l])
            };
            assert_eq!(
                (st.vgpr[3][l], st.vgpr[4][l]),
                (w3, w4),
                "engine {e}: lane {l}"
            );
        }
    }
}
