//! RDNA execution of the last semantics questions of issue 6: `v_mullit_f32`, `s_getreg_b32`
//! of STATUS, STATE_PRIV, the scratch base and the cycle counter, the integer dots' clamp,
//! and LLVM's f32 division sequence against host division.
//!
//! Instruction words come from `llvm-mc-22 -show-encoding` (the assembly is in the comment
//! next to each word); expected values are the ISA pseudocode (RDNA4 ISA ch. 16) worked by
//! hand or host computations. Every block runs in the interpreter and in the JIT (which must
//! compile it) from the same state, and the two must agree exactly.

use crate::lift_support::{clone_state, Code, Rng, CODE_BASE};
use wavejit_translator::env::ExitCode;
use wavejit_translator::interp::run_block;
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::ir::Exit;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

/// MODE of HIP kernels on RDNA: round to nearest even, f32 and f64/f16 denormals kept.
const MODE: u32 = 0xf0;
const S_ENDPGM: u32 = 0xbfb00000;
/// The tests' partial EXEC (wave32 keeps the low half).
const EXEC: u64 = 0xF0F0_1234_FFFF_8001;

const TARGETS: [(Gpu, u32); 4] = [
    (Gpu::GFX1100, 32),
    (Gpu::GFX1100, 64),
    (Gpu::GFX1200, 32),
    (Gpu::GFX1200, 64),
];

/// A state of `wave` lanes with every VGPR and SGPR random and non-zero (poison), EXEC =
/// `exec`.
fn state(wave: u32, seed: u64, exec: u64) -> Box<WaveState> {
    let mut s = WaveState::new_boxed(wave);
    let mut r = Rng(seed | 1);
    for reg in s.vgpr.iter_mut() {
        for v in reg.iter_mut() {
            *v = r.u32() | 1;
        }
    }
    for v in s.sgpr.iter_mut() {
        *v = r.u32() | 1;
    }
    s.set_exec(exec);
    s.scc = 0;
    s.mode = MODE;
    s.pc = CODE_BASE;
    s
}

fn env(barrier: u32) -> FlatEnv {
    let mut e = FlatEnv::new(0x1000_0000, 0x100, 0x100, 0x40);
    e.barrier = barrier;
    e
}

/// Runs `words` until `s_endpgm`: each block in the interpreter and in the JIT (which must
/// compile it) from the same state; the environment's barrier state word is `barrier`.
fn run(gpu: Gpu, wave: u32, words: &[u32], s: &mut WaveState, barrier: u32) {
    let target = Target {
        gpu,
        wave_size: wave,
    };
    let code = Code::from_words(words);
    let jit = Jit::new().expect("JIT for the host");
    for _ in 0..100 {
        let block = lift_block(&target, &code, s.pc, s.mode);
        if let Exit::Unsupported { reason, .. } = &block.exit {
            panic!("{gpu}: unsupported: {reason}");
        }
        wavejit_translator::ir::verify(&block).expect("lifted block verifies");
        let mut js = clone_state(s);
        let r = run_block(&block, s, &mut env(barrier));
        let compiled = jit.compile(&block).expect("the JIT compiles the block");
        let jr = compiled.run(&mut js, &mut env(barrier));
        let same = jr == r
            && js.vgpr == s.vgpr
            && js.sgpr == s.sgpr
            && js.scc == s.scc
            && js.pc == s.pc
            && js.counters == s.counters;
        assert!(same, "JIT and interpreter differ on block:\n{block}");
        match r.expect("block runs") {
            ExitCode::EndPgm => return,
            ExitCode::Continue => {}
            other => panic!("unexpected exit {other:?}"),
        }
    }
    panic!("program did not end");
}

// ---- v_mullit_f32 ----

const NEG_MAX: u32 = 0xff7f_ffff;
const NAN: u32 = 0x7fc0_0000;
const INF: u32 = 0x7f80_0000;
const NEG_INF: u32 = 0xff80_0000;

/// RDNA4 ISA 16.12 V_MULLIT_F32 read literally, with the host multiply:
/// `S1 == -MAX || S1 == -INF || isNaN(S1) || S2 <= 0 || isNaN(S2) ? -MAX : S0 * S1`.
fn mullit_ref(a: f32, b: f32, c: f32) -> u32 {
    if b == f32::from_bits(NEG_MAX)
        || b == f32::NEG_INFINITY
        || b.is_nan()
        || c <= 0.0
        || c.is_nan()
    {
        NEG_MAX
    } else {
        (a * b).to_bits()
    }
}

/// `(S0, S1, S2, D)` worked by hand from the pseudocode; `D = NAN` means any NaN.
const MULLIT_CASES: [(u32, u32, u32, u32); 16] = [
    (0x4000_0000, 0x4040_0000, 0x3f80_0000, 0x40c0_0000), // 2 * 3, S2 = 1 → 6
    (0x4000_0000, NEG_MAX, 0x3f80_0000, NEG_MAX),         // S1 = -MAX
    (0x4000_0000, NEG_INF, 0x3f80_0000, NEG_MAX),         // S1 = -INF
    (0x4000_0000, NAN, 0x3f80_0000, NEG_MAX),             // S1 NaN
    (0x4000_0000, 0xffc0_0001, 0x3f80_0000, NEG_MAX),     // S1 negative NaN
    (0x4000_0000, 0x4040_0000, 0x0000_0000, NEG_MAX),     // S2 = +0
    (0x4000_0000, 0x4040_0000, 0x8000_0000, NEG_MAX),     // S2 = -0
    (0x4000_0000, 0x4040_0000, 0xbf80_0000, NEG_MAX),     // S2 = -1
    (0x4000_0000, 0x4040_0000, 0x7fc0_0000, NEG_MAX),     // S2 NaN
    (0x4000_0000, 0x4040_0000, 0x0000_0001, 0x40c0_0000), // S2 = smallest denormal > 0
    (0x0000_0000, INF, 0x3f80_0000, NAN),                 // 0 * +INF: NaN (no "0 * x = 0")
    (0x4040_0000, INF, 0x3f80_0000, INF),                 // 3 * +INF = +INF
    (0x4000_0000, 0xff7f_fffe, 0x3f80_0000, NEG_INF),     // 2 * (-MAX + 1 ulp) overflows
    (0x4000_0000, 0x7f7f_ffff, 0x3f80_0000, INF),         // 2 * +MAX overflows
    (0x0000_0000, 0xbf80_0000, 0x3f80_0000, 0x8000_0000), // 0 * -1 = -0
    (0xbfc0_0000, 0x4000_0000, 0x4f00_0000, 0xc040_0000), // -1.5 * 2 = -3
];

#[test]
fn mullit_follows_the_rdna4_pseudocode() {
    let words = [
        0xd6180001, 0x04120702, // v_mullit_f32 v1, v2, v3, v4
        0xd6188005, 0x04120702, // v_mullit_f32 v5, v2, v3, v4 clamp
        0xd6180006, 0x44120702, // v_mullit_f32 v6, v2, -v3, v4
        0xd6180107, 0x84120702, // v_mullit_f32 v7, |v2|, v3, -v4
        S_ENDPGM,
    ];
    for (gpu, wave) in TARGETS {
        let mut s = state(wave, 0x5eed_0001, EXEC);
        let mut r = Rng(77);
        for l in 0..64 {
            let (a, b, c) = match MULLIT_CASES.get(l % 20) {
                Some(&(a, b, c, _)) => (a, b, c),
                // Other lanes: normal values of either sign.
                None => (
                    r.u32() & 0x807f_ffff | 0x3f00_0000,
                    r.u32() & 0x807f_ffff | 0x4000_0000,
                    r.u32() & 0x807f_ffff | 0x3e00_0000,
                ),
            };
            s.vgpr[2][l] = a;
            s.vgpr[3][l] = b;
            s.vgpr[4][l] = c;
        }
        let before = clone_state(&s);
        run(gpu, wave, &words, &mut s, 0);
        let exec = before.exec();
        for l in 0..64 {
            let active = l < wave as usize && exec >> l & 1 != 0;
            let f = |r: usize| f32::from_bits(before.vgpr[r][l]);
            let (a, b, c) = (f(2), f(3), f(4));
            for reg in [1usize, 5, 6, 7] {
                let got = s.vgpr[reg][l];
                if !active {
                    assert_eq!(
                        got, before.vgpr[reg][l],
                        "{gpu} w{wave} v{reg} lane {l} kept"
                    );
                    continue;
                }
                let want = match reg {
                    1 => match MULLIT_CASES.get(l % 20) {
                        Some(&(_, _, _, d)) => d,
                        None => mullit_ref(a, b, c),
                    },
                    5 => {
                        // Clamp to [0, 1], -0 to +0 (NaN lanes are not this test's
                        // question).
                        let d = f32::from_bits(mullit_ref(a, b, c));
                        if d.is_nan() {
                            continue;
                        }
                        if d <= 0.0 {
                            0
                        } else {
                            d.min(1.0).to_bits()
                        }
                    }
                    6 => mullit_ref(a, -b, c),
                    _ => mullit_ref(a.abs(), b, -c),
                };
                if f32::from_bits(want).is_nan() {
                    assert!(
                        f32::from_bits(got).is_nan(),
                        "{gpu} w{wave} v{reg} lane {l}: got {got:#x}, want a NaN"
                    );
                } else {
                    assert_eq!(got, want, "{gpu} w{wave} v{reg} lane {l}: {a} {b} {c}");
                }
            }
        }
    }
}

// ---- s_getreg_b32 ----

/// Runs `words` from a poisoned state with EXEC = `exec` and the given barrier state word.
fn getreg_run(gpu: Gpu, wave: u32, words: &[u32], exec: u64, barrier: u32) -> Box<WaveState> {
    let mut s = state(wave, 0x5eed_0002, exec);
    run(gpu, wave, words, &mut s, barrier);
    s
}

#[test]
fn getreg_status_reflects_scc_execz_vccz_and_the_work_group() {
    const VALID: u32 = 1 << 16;
    // SCC = 1, VCC = 0, EXEC non-zero: s10 = STATUS; then SCC = 0, VCC = {lo 0, hi 1}:
    // s11 = STATUS[10:9]; then EXEC_LO = 0: s12 = STATUS.
    let words = [
        0xbf068080, // s_cmp_eq_u32 0, 0
        0xbeea0180, // s_mov_b64 vcc, 0
        0xb88af802, // s_getreg_b32 s10, hwreg(HW_REG_STATUS)
        0xbf068180, // s_cmp_eq_u32 0, 1
        0xbeeb0081, // s_mov_b32 vcc_hi, 1
        0xb88b0a42, // s_getreg_b32 s11, hwreg(HW_REG_STATUS, 9, 2)
        0xbefe0080, // s_mov_b32 exec_lo, 0
        0xb88cf802, // s_getreg_b32 s12, hwreg(HW_REG_STATUS)
        S_ENDPGM,
    ];
    for (gpu, wave) in TARGETS {
        let gfx12 = gpu == Gpu::GFX1200;
        for (barrier, in_wg) in [(0u32, 0u32), (0x0002_0021, 1 << 11)] {
            let s = getreg_run(gpu, wave, &words, EXEC, barrier);
            // gfx11 (GCN layout): SCC is bit 0; gfx12: WAVE64 is bit 29 and SCC is not here.
            let wave64 = if gfx12 && wave == 64 { 1 << 29 } else { 0 };
            let scc = if gfx12 { 0 } else { 1 };
            assert_eq!(
                s.sgpr[10],
                scc | 1 << 10 | in_wg | VALID | wave64,
                "{gpu} w{wave} STATUS"
            );
            // wave32 ignores VCC_HI (RDNA4 ISA 3.4.7): VCCZ = 1; wave64: VCCZ = 0.
            let vccz = if wave == 32 { 1 } else { 0 };
            assert_eq!(s.sgpr[11], vccz << 1, "{gpu} w{wave} STATUS[10:9]");
            // EXEC_LO = 0: EXECZ in wave32; wave64 keeps EXEC_HI = 0xF0F01234.
            let execz = if wave == 32 { 1 << 9 } else { 0 };
            assert_eq!(
                s.sgpr[12],
                execz | vccz << 10 | in_wg | VALID | wave64,
                "{gpu} w{wave} STATUS after EXEC_LO = 0"
            );
        }
    }
}

#[test]
fn getreg_scratch_base_state_priv_hw_id_trap_ctrl() {
    for (gpu, wave) in TARGETS {
        let mut words = vec![
            0xb88cf814, // s_getreg_b32 s12, hwreg(HW_REG_FLAT_SCR_LO | SCRATCH_BASE_LO)
            0xb88df815, // s_getreg_b32 s13, hwreg(HW_REG_FLAT_SCR_HI | SCRATCH_BASE_HI)
            0xbf068080, // s_cmp_eq_u32 0, 0
        ];
        words.extend([
            0xb88ef817, // s_getreg_b32 s14, hwreg(HW_REG_HW_ID1)
            0xb88ff818, // s_getreg_b32 s15, hwreg(HW_REG_HW_ID2)
        ]);
        if gpu == Gpu::GFX1200 {
            words.push(0xb891f804); // s_getreg_b32 s17, hwreg(HW_REG_WAVE_STATE_PRIV)
            words.push(0xb890f813); // s_getreg_b32 s16, hwreg(HW_REG_TRAP_CTRL)
        }
        words.push(S_ENDPGM);
        let s = getreg_run(gpu, wave, &words, EXEC, 0);
        // The poisoned registers were odd (non-zero) before.
        assert_eq!(s.sgpr[12], 0, "{gpu} scratch base lo");
        assert_eq!(s.sgpr[13], 0, "{gpu} scratch base hi");
        assert_eq!(s.sgpr[14], 0, "{gpu} HW_ID1");
        assert_eq!(s.sgpr[15], 0, "{gpu} HW_ID2");
        if gpu == Gpu::GFX1200 {
            // RDNA4 Table 6: STATE_PRIV.SCC is bit 9.
            assert_eq!(s.sgpr[17], 1 << 9, "{gpu} STATE_PRIV");
            assert_eq!(s.sgpr[16], 0, "{gpu} TRAP_CTRL");
        }
    }
}

#[test]
fn getreg_shader_cycles_counts_executed_instructions() {
    // The counter reads the instructions executed up to and including the s_getreg. The
    // wave has already executed 0x1_ABCF_FFFD instructions: bits 20 and up change between the
    // reads, and the high half is 1.
    let words = [
        0xbf800000, // s_nop 0                                  (base + 1)
        0xb88e981d, // s_getreg_b32 s14, hwreg(29, 0, 20)       (base + 2)
        0x7e0002f2, // v_mov_b32_e32 v0, 1.0                    (base + 3)
        0xb88ff81d, // s_getreg_b32 s15, hwreg(29)              (base + 4)
        S_ENDPGM,
    ];
    let gfx12_words = [
        0xbf800000, // s_nop 0
        0xb88e981d, // s_getreg_b32 s14, hwreg(HW_REG_SHADER_CYCLES_LO, 0, 20)
        0x7e0002f2, // v_mov_b32_e32 v0, 1.0
        0xb88ff81d, // s_getreg_b32 s15, hwreg(HW_REG_SHADER_CYCLES_LO)
        0xb890f81e, // s_getreg_b32 s16, hwreg(HW_REG_SHADER_CYCLES_HI)  (base + 5)
        S_ENDPGM,
    ];
    let base: u64 = 0x1_ABCF_FFFD;
    for (gpu, wave) in TARGETS {
        let gfx12 = gpu == Gpu::GFX1200;
        let mut s = state(wave, 0x5eed_0003, EXEC);
        s.counters.by_class[0] = 0x1_0000_0000;
        s.counters.by_class[1] = 0xABCF_FFFD;
        let w: &[u32] = if gfx12 { &gfx12_words } else { &words };
        run(gpu, wave, w, &mut s, 0);
        assert_eq!(
            s.sgpr[14] as u64,
            (base + 2) & 0xf_ffff,
            "{gpu} w{wave} cycles[19:0]"
        );
        if gfx12 {
            assert_eq!(
                s.sgpr[15] as u64,
                (base + 4) & 0xffff_ffff,
                "{gpu} cycles lo"
            );
            assert_eq!(s.sgpr[16] as u64, (base + 5) >> 32, "{gpu} cycles hi");
        } else {
            // gfx11: a 20-bit counter.
            assert_eq!(s.sgpr[15] as u64, (base + 4) & 0xf_ffff, "{gpu} cycles");
        }
    }
}

#[test]
fn getreg_of_other_registers_is_unsupported() {
    let cases: [(Gpu, u32); 4] = [
        (Gpu::GFX1100, 0xb892f803), // s_getreg_b32 s18, hwreg(HW_REG_TRAPSTS)
        (Gpu::GFX1200, 0xb892f812), // s_getreg_b32 s18, hwreg(HW_REG_EXCP_FLAG_USER)
        (Gpu::GFX1100, 0xb890f81e), // s_getreg_b32 s16, hwreg(30): no SHADER_CYCLES_HI on gfx11
        (Gpu::GFX1100, 0xb891f804), // s_getreg_b32 s17, hwreg(4): no STATE_PRIV on gfx11
    ];
    for (gpu, word) in cases {
        let target = Target { gpu, wave_size: 32 };
        let code = Code::from_words(&[word, S_ENDPGM]);
        let block = lift_block(&target, &code, CODE_BASE, MODE);
        assert!(
            matches!(block.exit, Exit::Unsupported { .. }),
            "{gpu} {word:#x}: {:?}",
            block.exit
        );
    }
}

// ---- integer dot products with clamp ----

/// `S2 + sum of the products` of `n` elements of `bits` bits (signed per `sa`/`sb`), in i64.
fn dot_ref(a: u32, b: u32, c: i64, bits: u32, sa: bool, sb: bool) -> i64 {
    let n = 32 / bits;
    let el = |v: u32, i: u32, signed: bool| -> i64 {
        let x = (v >> (i * bits)) & ((1 << bits) - 1);
        if signed && x >> (bits - 1) != 0 {
            x as i64 - (1i64 << bits)
        } else {
            x as i64
        }
    };
    (0..n).fold(c, |acc, i| acc + el(a, i, sa) * el(b, i, sb))
}

fn sat_i32(x: i64) -> u32 {
    x.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32
}

fn sat_u32(x: i64) -> u32 {
    x.clamp(0, u32::MAX as i64) as u32
}

/// `(S0, S1, S2, [v10 .. v17])` worked by hand (see the program's registers).
const DOT_CASES: [(u32, u32, u32, [u32; 8]); 3] = [
    (
        0xffff_ffff,
        0xffff_ffff,
        0x7fff_ff00,
        [
            0x7fff_ffff, // 255*255*4 = 260100 over INT_MAX: saturated
            0x7fff_ff04, // (-1)(-1)*4 = 4
            0x7fff_fb04, // (-1)(255)*4 = -1020
            0x7fff_ff04, // no clamp
            0x7fff_ff08, // iu4 (-1)(-1)*8
            0x7fff_fe88, // iu4 15*(-1)*8 = -120
            0x8003_f704, // u8: 260100 in u32, no saturation
            0x8000_0608, // u4: 225*8 = 1800
        ],
    ),
    (
        0x8080_8080,
        0x7f7f_7f7f,
        0x8000_0010,
        [
            0x8000_fe10, // 128*127*4 = 65024
            0x8000_0000, // -65024 under INT_MIN: saturated
            0x8000_0000, // the same with S1 unsigned
            0x7fff_0210, // no clamp: wraps
            0x8000_0000, // iu4 (-8)*7*4 = -224
            0x8000_00f0, // iu4 8*7*4 = 224
            0x8000_fe10, // u8
            0x8000_00f0, // u4
        ],
    ),
    (
        0xffff_ffff,
        0xffff_ffff,
        0xffff_ff00,
        [
            0x0003_f704, // -256 + 260100
            0xffff_ff04, // -256 + 4
            0xffff_fb04, // -256 - 1020
            0xffff_ff04, // no clamp
            0xffff_ff08, // -256 + 8
            0xffff_fe88, // -256 - 120
            0xffff_ffff, // u8: over UINT_MAX, saturated
            0xffff_ffff, // u4: saturated
        ],
    ),
];

#[test]
fn integer_dots_saturate_with_clamp() {
    let words = [
        0xcc16c00a, 0x1c120702, // v_dot4_i32_iu8 v10, v2, v3, v4 clamp
        0xcc16c00b, 0x7c120702, // v_dot4_i32_iu8 v11, v2, v3, v4 neg_lo:[1,1,0] clamp
        0xcc16c00c, 0x3c120702, // v_dot4_i32_iu8 v12, v2, v3, v4 neg_lo:[1,0,0] clamp
        0xcc16400d, 0x7c120702, // v_dot4_i32_iu8 v13, v2, v3, v4 neg_lo:[1,1,0]
        0xcc18c00e, 0x7c120702, // v_dot8_i32_iu4 v14, v2, v3, v4 neg_lo:[1,1,0] clamp
        0xcc18c00f, 0x5c120702, // v_dot8_i32_iu4 v15, v2, v3, v4 neg_lo:[0,1,0] clamp
        0xcc17c010, 0x1c120702, // v_dot4_u32_u8 v16, v2, v3, v4 clamp
        0xcc19c011, 0x1c120702, // v_dot8_u32_u4 v17, v2, v3, v4 clamp
        S_ENDPGM,
    ];
    for (gpu, wave) in TARGETS {
        // Lanes 0, 1, 2 (and 32, 33, 34) hold the hand-worked cases; the rest random
        // bytes with S2 near the i32/u32 limits.
        let mut s = state(wave, 0x5eed_0004, EXEC | 0x7 | 0x7 << 32);
        let mut r = Rng(99);
        for l in 0..64 {
            let (a, b, c) = match DOT_CASES.get(l % 32) {
                Some(&(a, b, c, _)) => (a, b, c),
                None => {
                    let limits = [0x7fff_0000, 0x8000_ffff, 0xffff_0000, 0];
                    (r.u32(), r.u32(), limits[l % 4] ^ (r.u32() & 0xffff))
                }
            };
            s.vgpr[2][l] = a;
            s.vgpr[3][l] = b;
            s.vgpr[4][l] = c;
        }
        let before = clone_state(&s);
        run(gpu, wave, &words, &mut s, 0);
        let exec = before.exec();
        for l in 0..64 {
            let active = l < wave as usize && exec >> l & 1 != 0;
            let (a, b, c) = (before.vgpr[2][l], before.vgpr[3][l], before.vgpr[4][l]);
            let ci = c as i32 as i64;
            let want = match DOT_CASES.get(l % 32) {
                Some(&(_, _, _, d)) => d,
                None => [
                    sat_i32(dot_ref(a, b, ci, 8, false, false)),
                    sat_i32(dot_ref(a, b, ci, 8, true, true)),
                    sat_i32(dot_ref(a, b, ci, 8, true, false)),
                    dot_ref(a, b, ci, 8, true, true) as u32,
                    sat_i32(dot_ref(a, b, ci, 4, true, true)),
                    sat_i32(dot_ref(a, b, ci, 4, false, true)),
                    sat_u32(dot_ref(a, b, c as i64, 8, false, false)),
                    sat_u32(dot_ref(a, b, c as i64, 4, false, false)),
                ],
            };
            for (k, w) in want.iter().enumerate() {
                let reg = 10 + k;
                let w = if active { *w } else { before.vgpr[reg][l] };
                assert_eq!(
                    s.vgpr[reg][l], w,
                    "{gpu} w{wave} v{reg} lane {l}: {a:#x} {b:#x} {c:#x}"
                );
            }
        }
    }
}

// ---- f32 division as LLVM 22 expands it ----

/// LLVM 22's correctly rounded f32 division `v9 = v2 / v3` on gfx1100/gfx1200 (clang-22
/// `-cl-fp32-correctly-rounded-divide-sqrt`; the same words for wave32's `vcc_lo` and
/// wave64's `vcc`). `daz`: the form for f32 denormals off (`-cl-denorms-are-zero`), which
/// turns them on around the refinement with `s_denorm_mode`.
fn fdiv_words(daz: bool) -> Vec<u32> {
    let mut w = vec![
        0xd6fc7c04, 0x040a0703, // v_div_scale_f32 v4, null, v3, v3, v2
        0xd6fc6a07, 0x040a0702, // v_div_scale_f32 v7, vcc, v2, v3, v2
        0x7e0a5504, // v_rcp_f32_e32 v5, v4
    ];
    if daz {
        w.push(0xbf92000f); // s_denorm_mode 15
    }
    w.extend([
        0xd6130006, 0x23ca0b04, // v_fma_f32 v6, -v4, v5, 1.0
        0x560a0b06, // v_fmac_f32_e32 v5, v6, v5
        0x100c0b07, // v_mul_f32_e32 v6, v7, v5
        0xd6130008, 0x241e0d04, // v_fma_f32 v8, -v4, v6, v7
        0x560c0b08, // v_fmac_f32_e32 v6, v8, v5
        0xd6130004, 0x241e0d04, // v_fma_f32 v4, -v4, v6, v7
    ]);
    if daz {
        w.push(0xbf92000c); // s_denorm_mode 12
    }
    w.extend([
        0xd6370004, 0x041a0b04, // v_div_fmas_f32 v4, v4, v5, v6
        0xd6270009, 0x040a0704, // v_div_fixup_f32 v9, v4, v3, v2
        S_ENDPGM,
    ]);
    w
}

/// Division corner cases: denormal operands and results, the extremes, specials.
const FDIV_CASES: [(u32, u32); 24] = [
    (0x7f7f_ffff, 0x7f7f_ffff), // FLT_MAX / FLT_MAX = 1
    (0x7f7f_ffff, 0x0000_0001), // FLT_MAX / smallest denormal: +INF
    (0x0000_0001, 0x7f7f_ffff), // smallest denormal / FLT_MAX: 0
    (0x0000_0001, 0x0000_0001), // 1
    (0x0000_0003, 0x0000_0002), // 1.5
    (0x007f_ffff, 0x0000_0001), // largest denormal / smallest
    (0x3f80_0000, 0x7f7f_ffff), // 1 / FLT_MAX: a denormal result
    (0x0080_0000, 0x4040_0000), // FLT_MIN / 3: a rounded denormal
    (0x0000_0001, 0x4000_0000), // 2^-149 / 2: ties to even, 0
    (0x0000_0003, 0x4000_0000), // 3 * 2^-149 / 2: ties to even, 2 * 2^-149
    (0x0040_0000, 0x3f00_0000), // denormal / 0.5 = FLT_MIN
    (0x3f80_0000, 0x0000_0001), // 1 / 2^-149 = INF
    (0x3f80_0000, 0x0020_0000), // 1 / 2^-128 = 2^128: INF
    (0x3f80_0000, 0x0040_0000), // 1 / 2^-127 = 2^127
    (0x7f00_0000, 0x0080_0000), // 2^127 / 2^-126: INF
    (0x3f80_0000, 0x4040_0000), // 1 / 3
    (0x0000_0000, 0x0000_0000), // 0 / 0 = NaN
    (0x8000_0000, 0x3f80_0000), // -0 / 1
    (0x7f80_0000, 0x7f80_0000), // INF / INF = NaN
    (0x3f80_0000, 0x8000_0000), // 1 / -0 = -INF
    (0x7fc0_0000, 0x3f80_0000), // NaN / 1
    (0xc0a0_0000, 0x0000_0007), // -5 / 7 * 2^-149
    (0x0012_3456, 0x0065_4321), // denormal / denormal
    (0x7f7f_fffe, 0x3f7f_ffff), // just below FLT_MAX / just below 1
];

/// Random f32 bits: exponents biased to the denormal, tiny and huge ranges.
fn fdiv_operand(r: &mut Rng) -> u32 {
    let x = r.u32();
    let e = match x % 4 {
        0 => 0,
        1 => (x >> 2) % 256,
        2 => 1 + (x >> 2) % 24,
        _ => 230 + (x >> 2) % 25,
    };
    (x & 0x8000_0000) | e << 23 | (r.u32() & 0x7f_ffff)
}

fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[test]
fn fdiv_sequence_is_correctly_rounded() {
    let mut bad = Vec::new();
    for daz in [false, true] {
        let words = fdiv_words(daz);
        // f32 denormals on (HIP's default), or off (DAZ; f64/f16 on).
        let mode = if daz { 0xc0 } else { 0xf0 };
        for (gpu, wave) in TARGETS {
            let mut r = Rng(0xd1f + wave as u64);
            for round in 0..8 {
                let mut s = state(wave, 0x5eed_0005 + round, u64::MAX);
                s.mode = mode;
                for l in 0..64 {
                    let (a, b) = match FDIV_CASES.get(l + 64 * round as usize) {
                        Some(&c) => c,
                        None => (fdiv_operand(&mut r), fdiv_operand(&mut r)),
                    };
                    s.vgpr[2][l] = a;
                    s.vgpr[3][l] = b;
                }
                let before = clone_state(&s);
                run(gpu, wave, &words, &mut s, 0);
                for l in 0..wave as usize {
                    let a = f32::from_bits(before.vgpr[2][l]);
                    let b = f32::from_bits(before.vgpr[3][l]);
                    let want = if daz {
                        flush(flush(a) / flush(b))
                    } else {
                        a / b
                    };
                    let got = f32::from_bits(s.vgpr[9][l]);
                    let ok = if want.is_nan() {
                        got.is_nan()
                    } else {
                        got.to_bits() == want.to_bits()
                    };
                    if !ok {
                        bad.push(format!(
                            "{gpu} w{wave} daz={daz} lane {l}: {a:e} ({:#x}) / {b:e} ({:#x}) = \
                             {got:e} ({:#x}), host {want:e} ({:#x})",
                            a.to_bits(),
                            b.to_bits(),
                            got.to_bits(),
                            want.to_bits()
                        ));
                    }
                }
            }
        }
    }
    for b in bad.iter().take(40) {
        eprintln!("{b}");
    }
    assert!(
        bad.is_empty(),
        "{} lanes differ from host division",
        bad.len()
    );
}

/// LLVM 22's f64 division `v[14:15] = v[2:3] / v[4:5]` (clang-22, OpenCL, gfx1100/gfx1200;
/// `v_mul_f64` is VOP3 on gfx11 and VOP2 on gfx12).
fn fdiv64_words(gpu: Gpu) -> Vec<u32> {
    let mul: &[u32] = if gpu == Gpu::GFX1200 {
        &[0x0c18110a] // v_mul_f64_e32 v[12:13], v[10:11], v[8:9]
    } else {
        &[0xd728000c, 0x0002110a] // v_mul_f64 v[12:13], v[10:11], v[8:9]
    };
    let mut w = vec![
        0xd6fd7c06, 0x040a0904, // v_div_scale_f64 v[6:7], null, v[4:5], v[4:5], v[2:3]
        0x7e105f06, // v_rcp_f64_e32 v[8:9], v[6:7]
        0xd614000a, 0x23ca1106, // v_fma_f64 v[10:11], -v[6:7], v[8:9], 1.0
        0xd6140008, 0x04221508, // v_fma_f64 v[8:9], v[8:9], v[10:11], v[8:9]
        0xd614000a, 0x23ca1106, // v_fma_f64 v[10:11], -v[6:7], v[8:9], 1.0
        0xd6140008, 0x04221508, // v_fma_f64 v[8:9], v[8:9], v[10:11], v[8:9]
        0xd6fd6a0a, 0x040a0902, // v_div_scale_f64 v[10:11], vcc, v[2:3], v[4:5], v[2:3]
    ];
    w.extend_from_slice(mul);
    w.extend([
        0xd6140006, 0x242a1906, // v_fma_f64 v[6:7], -v[6:7], v[12:13], v[10:11]
        0xd6380006, 0x04321106, // v_div_fmas_f64 v[6:7], v[6:7], v[8:9], v[12:13]
        0xd628000e, 0x040a0906, // v_div_fixup_f64 v[14:15], v[6:7], v[4:5], v[2:3]
        S_ENDPGM,
    ]);
    w
}

/// f64 division corner cases: denormal operands and results, the extremes, specials.
const FDIV64_CASES: [(u64, u64); 16] = [
    (0x7fef_ffff_ffff_ffff, 0x7fef_ffff_ffff_ffff), // MAX / MAX
    (0x3ff0_0000_0000_0000, 0x7fef_ffff_ffff_ffff), // 1 / MAX: a denormal
    (0x0000_0000_0000_0001, 0x7fef_ffff_ffff_ffff), // min denormal / MAX: 0
    (0x0000_0000_0000_0001, 0x0000_0000_0000_0001), // 1
    (0x0000_0000_0000_0003, 0x4000_0000_0000_0000), // ties to even
    (0x7fef_ffff_ffff_ffff, 0x0000_0000_0000_0001), // INF
    (0x3ff0_0000_0000_0000, 0x0008_0000_0000_0000), // 1 / 2^-1023 = 2^1023
    (0x0010_0000_0000_0000, 0x4008_0000_0000_0000), // MIN_POSITIVE / 3
    (0x3ff0_0000_0000_0000, 0x4008_0000_0000_0000), // 1 / 3
    (0x000f_ffff_ffff_ffff, 0x3fe0_0000_0000_0000), // largest denormal / 0.5
    (0x8000_0000_0000_0000, 0x3ff0_0000_0000_0000), // -0 / 1
    (0x0000_0000_0000_0000, 0x0000_0000_0000_0000), // NaN
    (0x7ff0_0000_0000_0000, 0x4000_0000_0000_0000), // INF / 2
    (0x3ff0_0000_0000_0000, 0x8000_0000_0000_0000), // -INF
    (0x0001_2345_6789_abcd, 0x0006_5432_1fed_cba9), // denormal / denormal
    (0x7fef_ffff_ffff_fffe, 0x3fef_ffff_ffff_ffff), // just below MAX / just below 1
];

fn fdiv64_operand(r: &mut Rng) -> u64 {
    let x = r.u32();
    let e = match x % 4 {
        0 => 0,
        1 => (x >> 2) as u64 % 2048,
        2 => 1 + (x >> 2) as u64 % 53,
        _ => 1900 + (x >> 2) as u64 % 147,
    };
    let m = ((r.u32() as u64) << 32 | r.u32() as u64) & 0xf_ffff_ffff_ffff;
    (x as u64 & 1) << 63 | e << 52 | m
}

#[test]
fn fdiv64_sequence_is_correctly_rounded() {
    let mut bad = Vec::new();
    for (gpu, wave) in TARGETS {
        let words = fdiv64_words(gpu);
        let mut r = Rng(0xd64 + wave as u64);
        for round in 0..8 {
            let mut s = state(wave, 0x5eed_0006 + round, u64::MAX);
            for l in 0..64 {
                let (a, b) = match FDIV64_CASES.get(l + 64 * round as usize) {
                    Some(&c) => c,
                    None => (fdiv64_operand(&mut r), fdiv64_operand(&mut r)),
                };
                s.vgpr[2][l] = a as u32;
                s.vgpr[3][l] = (a >> 32) as u32;
                s.vgpr[4][l] = b as u32;
                s.vgpr[5][l] = (b >> 32) as u32;
            }
            let before = clone_state(&s);
            run(gpu, wave, &words, &mut s, 0);
            let f = |st: &WaveState, reg: usize, l: usize| {
                f64::from_bits(st.vgpr[reg][l] as u64 | (st.vgpr[reg + 1][l] as u64) << 32)
            };
            for l in 0..wave as usize {
                let (a, b) = (f(&before, 2, l), f(&before, 4, l));
                let (got, want) = (f(&s, 14, l), a / b);
                let ok = if want.is_nan() {
                    got.is_nan()
                } else {
                    got.to_bits() == want.to_bits()
                };
                if !ok {
                    bad.push(format!(
                        "{gpu} w{wave} lane {l}: {a:e} ({:#x}) / {b:e} ({:#x}) = {got:e} ({:#x}), \
                         host {want:e} ({:#x})",
                        a.to_bits(),
                        b.to_bits(),
                        got.to_bits(),
                        want.to_bits()
                    ));
                }
            }
        }
    }
    for b in bad.iter().take(40) {
        eprintln!("{b}");
    }
    assert!(
        bad.is_empty(),
        "{} lanes differ from host division",
        bad.len()
    );
}
