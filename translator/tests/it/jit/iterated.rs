//! The iterated form of blocks that loop to themselves (`jit::lower::iterated`: the scalar
//! loop first, then every iteration per lane group with the registers held in host
//! registers), against the interpreter on poisoned state: wave32 and wave64, full and
//! partial EXEC, NaN lanes (the fast copy's bail-out), loops of 1, 2 and many iterations,
//! and runaway loops stopped by the budget at exactly the interpreter's instruction.

use wavejit_translator::env::{CodeSource, ExecFault, ExitCode};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::tier::TierPolicy;
use wavejit_translator::wave::WaveState;

const BASE: u64 = 0x10_0000;

struct Code(Vec<u8>);

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.0.get(off..).filter(|s| !s.is_empty())
    }
}

fn code(words: &[u32]) -> Code {
    Code(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// gfx1100 (encodings from `llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx1100
/// -show-encoding`); wave32 reads `s10` as the `v_cndmask` mask, wave64 `s[10:11]`:
/// ```text
/// loop: v_fmac_f32_e32 v0, v1, v2              ; 56000501
///       v_fma_f32 v3, v3, s4, v5               ; d6130003 04140903
///       v_add_f32_e32 v5, v5, v0               ; 060a0105
///       v_xor_b32_e32 v6, v6, v7               ; 3a0c0f06
///       v_cndmask_b32_e64 v8, v8, v6, s[10:11] ; d5010008 002a0d08
///       s_add_u32 s5, s5, s4                   ; 80050405
///       s_sub_u32 s0, s0, 1                    ; 80808100
///       s_cmp_lg_u32 s0, 0                     ; bf078000
///       s_cbranch_scc1 loop                    ; bfa2fff5
///       s_endpgm                               ; bfb00000
/// ```
/// The loop block has 9 instructions. `fma_reg` is the SGPR `v_fma_f32` reads (4: loop
/// invariant; 0: the loop counter, which keeps the block out of the iterated form).
fn gfx1100_loop(fma_reg: u32) -> Vec<u32> {
    vec![
        0x5600_0501,
        0xd613_0003,
        0x0414_0103 | (fma_reg << 9),
        0x060a_0105,
        0x3a0c_0f06,
        0xd501_0008,
        0x002a_0d08,
        0x8005_0405,
        0x8080_8100,
        0xbf07_8000,
        0xbfa2_fff5,
        0xbfb0_0000,
    ]
}

/// gfx942 (`-mcpu=gfx942`), 8 instructions in the loop block; the second `v_pk_fma_f32`
/// reads the SGPR pair `s[6:7]`, whose high half changes per iteration, but uses only `s6`
/// (`op_sel_hi` 0 for it), as `alu_fma`'s loop does:
/// ```text
/// loop: v_pk_fma_f32 v[0:1], v[0:1], v[2:3], v[4:5]     ; d3b04000 1c120500
///       v_fmac_f32_e32 v6, v7, v2                       ; 760c0507
///       v_add_u32_e32 v8, v8, v9                        ; 68101308
///       v_pk_fma_f32 v[10:11], v[10:11], s[6:7], v[4:5] op_sel_hi:[1,0,1]
///                                                       ; d3b0400a 0c100d0a
///       s_add_u32 s7, s7, 3                             ; 80078307
///       s_sub_u32 s0, s0, 1                             ; 80808100
///       s_cmp_lg_u32 s0, 0                              ; bf078000
///       s_cbranch_scc1 loop                             ; bf85fff6
///       s_endpgm                                        ; bf810000
/// ```
fn gfx942_loop() -> Vec<u32> {
    vec![
        0xd3b0_4000,
        0x1c12_0500,
        0x760c_0507,
        0x6810_1308,
        0xd3b0_400a,
        0x0c10_0d0a,
        0x8007_8307,
        0x8080_8100,
        0xbf07_8000,
        0xbf85_fff6,
        0xbf81_0000,
    ]
}

/// gfx1100: a loop whose vector compare decides the branch (the vector part feeds the
/// scalar part):
/// ```text
/// loop: v_add_f32_e32 v0, v0, v1        ; 06000300
///       v_cmp_gt_f32_e32 vcc_lo, v0, v1 ; 7c280300
///       s_cbranch_vccnz loop            ; bfa4fffd
///       s_endpgm                        ; bfb00000
/// ```
fn gfx1100_compare_loop() -> Vec<u32> {
    vec![0x0600_0300, 0x7c28_0300, 0xbfa4_fffd, 0xbfb0_0000]
}

/// xorshift64*.
fn next(seed: &mut u64) -> u32 {
    *seed ^= *seed >> 12;
    *seed ^= *seed << 25;
    *seed ^= *seed >> 27;
    (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
}

/// A float in [0.5, 1.5) with random low bits: no NaN or infinity in 100 iterations.
fn tame(seed: &mut u64) -> u32 {
    (0.5 + (next(seed) & 0xffff) as f32 / 65536.0).to_bits()
}

/// A wave at `BASE` with every VGPR lane and SGPR poisoned, `s0 = iters`; with `tame`, the
/// active lanes' float operands are moderate (the fast copy runs to the end), else they keep
/// random bits (NaNs and infinities: the fast copy bails out to the slow one).
fn poisoned_wave(
    seed: u64,
    wave_size: u32,
    exec: u64,
    iters: u32,
    tame_floats: bool,
) -> Box<WaveState> {
    let mut r = 0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x1000_0001) | 1;
    let mut s = WaveState::new_boxed(wave_size);
    for reg in 0..16 {
        for l in 0..64 {
            s.vgpr[reg][l] = next(&mut r);
        }
    }
    for g in 0..16 {
        s.sgpr[g] = next(&mut r);
    }
    if tame_floats {
        for l in 0..64 {
            for reg in [0, 1, 2, 3, 4, 5, 6, 10, 11] {
                s.vgpr[reg][l] = tame(&mut r);
            }
            // Products near 0.5 keep the chains bounded.
            s.vgpr[2][l] = (0.5f32).to_bits();
        }
        s.sgpr[4] = (0.75f32).to_bits();
        s.sgpr[6] = (0.5f32).to_bits();
    }
    s.sgpr[0] = iters;
    s.mode = IEEE_MODE;
    s.set_exec(exec);
    s.pc = BASE;
    s
}

/// Runs the wave on `t`: its result, final state and budget left.
fn run(
    t: &Translator,
    code: &Code,
    mut s: Box<WaveState>,
    budget: u64,
) -> (Result<ExitCode, ExecFault>, Box<WaveState>, u64) {
    let mut env = FlatEnv::new(0x2000_0000, 256, 0, 0);
    let mut left = budget;
    let r = t.run(code, &mut s, &mut env, &mut left);
    (r, s, left)
}

fn translator(gpu: Gpu, wave: u32, engine: EngineKind) -> Translator {
    Translator::new(
        Target {
            gpu,
            wave_size: wave,
        },
        engine,
    )
    .expect("translator")
    .with_tiers(TierPolicy::single(0))
    .with_jit(Jit::new().expect("JIT").with_iterated_loops(true))
}

/// The JIT's run ended exactly as the interpreter's: result, budget, pc, registers, SCC and
/// counters, every lane of every VGPR (inactive lanes keep their poison).
fn same(
    jit: &(Result<ExitCode, ExecFault>, Box<WaveState>, u64),
    interp: &(Result<ExitCode, ExecFault>, Box<WaveState>, u64),
    what: &str,
) {
    assert_eq!(jit.0, interp.0, "{what}");
    assert_eq!(jit.2, interp.2, "{what}: budget left");
    let (a, b) = (&jit.1, &interp.1);
    assert_eq!(a.pc, b.pc, "{what}");
    assert_eq!(a.sgpr, b.sgpr, "{what}");
    assert_eq!(a.scc, b.scc, "{what}");
    for r in 0..16 {
        assert_eq!(a.vgpr[r], b.vgpr[r], "{what}: v{r}");
    }
    assert_eq!(a.counters, b.counters, "{what}");
}

/// Whether the JIT compiles the block at `BASE` in the iterated form.
fn iterated(gpu: Gpu, wave: u32, code: &Code) -> bool {
    let target = Target {
        gpu,
        wave_size: wave,
    };
    let blk = lift_block(&target, code, BASE, IEEE_MODE);
    Jit::new()
        .expect("JIT")
        .with_iterated_loops(true)
        .compile(&blk)
        .expect("the block compiles")
        .is_iterated()
}

/// The loops of the tests: GPU, wave size, code, instructions in the loop block.
fn loops() -> Vec<(Gpu, u32, Code, u64)> {
    vec![
        (Gpu::GFX1100, 32, code(&gfx1100_loop(4)), 9),
        (Gpu::GFX1100, 64, code(&gfx1100_loop(4)), 9),
        (Gpu::GFX942, 64, code(&gfx942_loop()), 8),
    ]
}

/// MODE with every float denormal kept (FP_DENORM, bits 7:4, all set) and round to
/// nearest: blocks that flush f32 denormals in a loop take their loop variant instead.
const IEEE_MODE: u32 = 0xF0;

const PARTIAL: u64 = 0xF0F0_1234_FFFF_8001;

#[test]
fn iterated_loops_match_the_interpreter() {
    for (gpu, wave, code, _) in loops() {
        assert!(iterated(gpu, wave, &code), "{gpu:?} w{wave}: iterated form");
        let jit = translator(gpu, wave, EngineKind::Jit);
        let interp = translator(gpu, wave, EngineKind::Interp);
        let mut seed = 0;
        for iters in [1, 2, 7, 100] {
            for exec in [u64::MAX, PARTIAL] {
                for tame_floats in [true, false] {
                    seed += 1;
                    let what = format!(
                        "{gpu:?} w{wave}, {iters} iterations, exec {exec:#x}, tame {tame_floats}"
                    );
                    let mk = || poisoned_wave(seed, wave, exec, iters, tame_floats);
                    let want = run(&interp, &code, mk(), 1_000_000);
                    assert_eq!(want.0, Ok(ExitCode::EndPgm), "{what}");
                    // The loop ran: the counter is 0 and the carried registers changed.
                    assert_eq!(want.1.sgpr[0], 0, "{what}");
                    assert_ne!(want.1.vgpr[0], mk().vgpr[0], "{what}");
                    same(&run(&jit, &code, mk(), 1_000_000), &want, &what);
                }
            }
        }
    }
}

#[test]
fn a_runaway_loop_stops_where_the_interpreter_does() {
    for (gpu, wave, code, cost) in loops() {
        let jit = translator(gpu, wave, EngineKind::Jit);
        let interp = translator(gpu, wave, EngineKind::Interp);
        // s0 = 0: the counter wraps, 2^32 iterations; the budget stops the loop.
        for (i, budget) in [0, cost - 1, cost, cost + 1, 5 * cost + 3, 1000 * cost + 7]
            .into_iter()
            .enumerate()
        {
            let what = format!("{gpu:?} w{wave}, budget {budget}");
            let mk = || poisoned_wave(i as u64 + 50, wave, PARTIAL, 0, false);
            let want = run(&interp, &code, mk(), budget);
            assert!(matches!(want.0, Err(ExecFault::Runaway(_))), "{what}");
            // floor(budget / cost) iterations ran, each charging `cost`.
            let k = budget / cost;
            assert_eq!(want.1.sgpr[0], 0u32.wrapping_sub(k as u32), "{what}");
            assert_eq!(want.2, budget % cost, "{what}");
            same(&run(&jit, &code, mk(), budget), &want, &what);
        }
    }
}

#[test]
fn loops_whose_vector_part_feeds_the_scalar_part_are_not_iterated() {
    // A vector op reading the loop counter, and a vector compare deciding the branch.
    let counter = code(&gfx1100_loop(0));
    let compare = code(&gfx1100_compare_loop());
    for wave in [32, 64] {
        assert!(!iterated(Gpu::GFX1100, wave, &counter), "w{wave}");
        assert!(!iterated(Gpu::GFX1100, wave, &compare), "w{wave}");
    }
    // They still match the interpreter in their other form.
    let jit = translator(Gpu::GFX1100, 32, EngineKind::Jit);
    let interp = translator(Gpu::GFX1100, 32, EngineKind::Interp);
    for seed in 0..4 {
        let mk = || poisoned_wave(seed + 90, 32, PARTIAL, 5, true);
        let want = run(&interp, &counter, mk(), 1_000_000);
        assert_eq!(want.0, Ok(ExitCode::EndPgm));
        same(&run(&jit, &counter, mk(), 1_000_000), &want, "counter loop");
    }
}

/// gfx1100: `regs` times `v_xor_b32_e32 vN, vN, v20` (N = 0, 1, …; `0x3a000000 | N << 17 |
/// 20 << 9 | (256 + N)`), then `s_sub_u32 s0, s0, 1`, `s_cmp_lg_u32 s0, 0`,
/// `s_cbranch_scc1` back to the first (`bfa2` with the word offset from the next
/// instruction) and `s_endpgm`.
fn gfx1100_xor_loop(regs: u32) -> Vec<u32> {
    let mut w: Vec<u32> = (0..regs)
        .map(|n| 0x3a00_0000 | n << 17 | 20 << 9 | (256 + n))
        .collect();
    let back = (-(regs as i32 + 3)) as u32 & 0xffff;
    w.extend([0x8080_8100, 0xbf07_8000, 0xbfa2_0000 | back, 0xbfb0_0000]);
    w
}

#[test]
fn loops_writing_more_registers_than_the_host_holds_are_not_iterated() {
    let (fits, spills) = (code(&gfx1100_xor_loop(12)), code(&gfx1100_xor_loop(13)));
    for wave in [32, 64] {
        assert!(iterated(Gpu::GFX1100, wave, &fits), "w{wave}");
        assert!(!iterated(Gpu::GFX1100, wave, &spills), "w{wave}");
        let jit = translator(Gpu::GFX1100, wave, EngineKind::Jit);
        let interp = translator(Gpu::GFX1100, wave, EngineKind::Interp);
        for (code, what) in [(&fits, "12 registers"), (&spills, "13 registers")] {
            for exec in [u64::MAX, PARTIAL] {
                let mk = || {
                    let mut s = poisoned_wave(7 + u64::from(wave), wave, exec, 5, false);
                    let mut r = 0x5eed_u64 + u64::from(wave);
                    for l in 0..64 {
                        s.vgpr[20][l] = next(&mut r) | 1;
                    }
                    s
                };
                let want = run(&interp, code, mk(), 1_000_000);
                assert_eq!(want.0, Ok(ExitCode::EndPgm), "{what}");
                // Five rounds of XOR with v20 (odd, never 0 in lane bit 0): every active
                // lane of v0 changed.
                let before = mk();
                for l in (0..wave as usize).filter(|&l| exec >> l & 1 == 1) {
                    assert_ne!(want.1.vgpr[0][l], before.vgpr[0][l], "{what}: lane {l}");
                }
                same(&run(&jit, code, mk(), 1_000_000), &want, what);
            }
        }
    }
}

/// gfx942 (`-mcpu=gfx942`): `alu_fma64`'s loop as clang emits it (with `s0` as the
/// counter): four f64 chains whose addends are re-made by `v_mov` in every iteration, the
/// `v_fmac_f64` results copied back to the chains' registers: 16 VGPRs written, of which
/// only `v[2:9]` are read before being written (`v[10:17]` are read only after the `v_mov`s,
/// whose lanes outside EXEC keep the old value).
/// ```text
/// loop: v_mov_b32_e32 v10, 0                            ; 7e140280
///       v_mov_b32_e32 v12, 0                            ; 7e180280
///       v_mov_b32_e32 v14, 0                            ; 7e1c0280
///       v_mov_b32_e32 v16, 0                            ; 7e200280
///       v_mov_b32_e32 v11, 0x3f500000                   ; 7e1602ff 3f500000
///       v_mov_b32_e32 v13, 0x3f600000                   ; 7e1a02ff 3f600000
///       v_mov_b32_e32 v15, 0x3f680000                   ; 7e1e02ff 3f680000
///       v_mov_b32_e32 v17, 0x3f700000                   ; 7e2202ff 3f700000
///       v_fmac_f64_e32 v[10:11], 0x3feff800, v[8:9]     ; 081410ff 3feff800
///       v_fmac_f64_e32 v[12:13], 0x3feff800, v[6:7]     ; 08180cff 3feff800
///       v_fmac_f64_e32 v[14:15], 0x3feff800, v[4:5]     ; 081c08ff 3feff800
///       v_fmac_f64_e32 v[16:17], 0x3feff800, v[2:3]     ; 082004ff 3feff800
///       s_add_i32 s0, s0, -1                            ; 8100c100
///       s_cmp_lg_u32 s0, 0                              ; bf078000
///       v_mov_b64_e32 v[2:3], v[16:17]                  ; 7e047110
///       v_mov_b64_e32 v[4:5], v[14:15]                  ; 7e08710e
///       v_mov_b64_e32 v[6:7], v[12:13]                  ; 7e0c710c
///       v_mov_b64_e32 v[8:9], v[10:11]                  ; 7e10710a
///       s_cbranch_scc1 loop                             ; bf85ffe5
///       s_endpgm                                        ; bf810000
/// ```
fn gfx942_f64_rotation_loop() -> Vec<u32> {
    vec![
        0x7e14_0280,
        0x7e18_0280,
        0x7e1c_0280,
        0x7e20_0280,
        0x7e16_02ff,
        0x3f50_0000,
        0x7e1a_02ff,
        0x3f60_0000,
        0x7e1e_02ff,
        0x3f68_0000,
        0x7e22_02ff,
        0x3f70_0000,
        0x0814_10ff,
        0x3fef_f800,
        0x0818_0cff,
        0x3fef_f800,
        0x081c_08ff,
        0x3fef_f800,
        0x0820_04ff,
        0x3fef_f800,
        0x8100_c100,
        0xbf07_8000,
        0x7e04_7110,
        0x7e08_710e,
        0x7e0c_710c,
        0x7e10_710a,
        0xbf85_ffe5,
        0xbf81_0000,
    ]
}

/// MODE with f64/f16 denormals flushed (FP_DENORM bits 7:6 clear), f32 denormals kept.
const F64_FLUSH_MODE: u32 = 0x30;

/// A wave64 for [`gfx942_f64_rotation_loop`] in `mode`: VGPRs 0..24 and SGPRs poisoned;
/// with `tame`, the chains' f64 values are moderate, else they keep random bits (NaNs,
/// infinities, denormals). Every seventh lane of `v[2:3]` holds an f64 denormal either way,
/// which the loop's last FMA reads (the flush mode's general version runs until none is
/// left).
fn f64_wave(seed: u64, exec: u64, iters: u32, tame_floats: bool, mode: u32) -> Box<WaveState> {
    let mut r = 0x51f6_4aa1_0b3c_d2e7 ^ seed.wrapping_mul(0x1000_0001) | 1;
    let mut s = WaveState::new_boxed(64);
    for reg in 0..24 {
        for l in 0..64 {
            s.vgpr[reg][l] = next(&mut r);
        }
    }
    for g in 0..16 {
        s.sgpr[g] = next(&mut r);
    }
    if tame_floats {
        for l in 0..64 {
            for pair in [2, 4, 6, 8] {
                let x = 0.5 + f64::from(next(&mut r) & 0xffff) / 65536.0;
                let b = x.to_bits();
                s.vgpr[pair][l] = b as u32;
                s.vgpr[pair + 1][l] = (b >> 32) as u32;
            }
        }
    }
    for l in (0..64).step_by(7) {
        // An f64 denormal (exponent 0, mantissa non-zero).
        s.vgpr[2][l] = next(&mut r) | 1;
        s.vgpr[3][l] = next(&mut r) & 0x000f_ffff;
    }
    s.sgpr[0] = iters;
    s.mode = mode;
    s.set_exec(exec);
    s.pc = BASE;
    s
}

/// Whether the JIT compiles the block at `BASE` in the iterated form under `mode`.
fn iterated_in(gpu: Gpu, wave: u32, code: &Code, mode: u32) -> bool {
    let target = Target {
        gpu,
        wave_size: wave,
    };
    let blk = lift_block(&target, code, BASE, mode);
    Jit::new()
        .expect("JIT")
        .with_iterated_loops(true)
        .compile(&blk)
        .expect("the block compiles")
        .is_iterated()
}

#[test]
fn loops_writing_registers_before_reading_them_carry_only_the_others() {
    let code = code(&gfx942_f64_rotation_loop());
    let jit = translator(Gpu::GFX942, 64, EngineKind::Jit);
    let interp = translator(Gpu::GFX942, 64, EngineKind::Interp);
    let mut seed = 0;
    for mode in [IEEE_MODE, F64_FLUSH_MODE] {
        // 16 registers written, 8 carried: within the host's registers.
        assert!(iterated_in(Gpu::GFX942, 64, &code, mode), "mode {mode:#x}");
        for iters in [1, 2, 7, 100] {
            for exec in [u64::MAX, PARTIAL] {
                for tame_floats in [true, false] {
                    for budget in [1_000_000, 37] {
                        seed += 1;
                        let what = format!(
                            "mode {mode:#x}, {iters} iterations, exec {exec:#x}, tame \
                             {tame_floats}, budget {budget}"
                        );
                        let mk = || f64_wave(seed, exec, iters, tame_floats, mode);
                        let want = run(&interp, &code, mk(), budget);
                        if budget > 1000 {
                            assert_eq!(want.0, Ok(ExitCode::EndPgm), "{what}");
                            assert_eq!(want.1.sgpr[0], 0, "{what}");
                        } else if iters > 1 {
                            // 37 covers one iteration of 19 instructions: the loop is
                            // left by the budget.
                            assert!(matches!(want.0, Err(ExecFault::Runaway(_))), "{what}");
                        }
                        // The loop ran: v10 changed in the active lanes.
                        let before = mk();
                        for l in (0..64).filter(|&l| exec >> l & 1 == 1) {
                            assert_ne!(want.1.vgpr[10][l], before.vgpr[10][l], "{what}: {l}");
                        }
                        let got = run(&jit, &code, mk(), budget);
                        same(&got, &want, &what);
                        for r in 16..24 {
                            assert_eq!(got.1.vgpr[r], want.1.vgpr[r], "{what}: v{r}");
                        }
                    }
                }
            }
        }
    }
}

/// gfx1100 (`llvm-mc-22 -mcpu=gfx1100`): two carried registers whose results may become NaN
/// in one iteration, and integer accumulators that keep every iteration's bits of them:
/// ```text
/// loop: v_and_b32_e32 v1, v0, v4        ; 36020900
///       v_fma_f32 v0, v1, v2, v3        ; d6130000 040e0501
///       v_fma_f32 v6, v6, v9, v7        ; d6130006 041e1306
///       v_xor_b32_e32 v5, v5, v0        ; 3a0a0105
///       v_xor_b32_e32 v8, v8, v6        ; 3a100d08
///       s_sub_u32 s0, s0, 1             ; 80808100
///       s_cmp_lg_u32 s0, 0              ; bf078000
///       s_cbranch_scc1 loop             ; bfa2fff6
///       s_endpgm                        ; bfb00000
/// ```
/// `v6`'s NaN persists (`fma` of a NaN is NaN), so the fast copy tests only its final
/// value; `v0`'s does not (the `v_and` with `v4 = 0xffbfffff` clears a NaN's quiet bit,
/// making the host's default NaN −∞), so its results are tested in every iteration.
fn gfx1100_nan_persistence_loop() -> Vec<u32> {
    vec![
        0x3602_0900,
        0xd613_0000,
        0x040e_0501,
        0xd613_0006,
        0x041e_1306,
        0x3a0a_0105,
        0x3a10_0d08,
        0x8080_8100,
        0xbf07_8000,
        0xbfa2_fff6,
        0xbfb0_0000,
    ]
}

/// Lanes of [`gfx1100_nan_persistence_loop`]'s wave, poisoned elsewhere. Kind 0: `v0 = +∞`,
/// `v2 = 2`, `v3 = −∞`: the first iteration's `fma(∞, 2, −∞)` is NaN (the ISA's default
/// NaN `0x7fc00000`, x86's `0xffc00000`), which the next `v_and` turns into +∞ (then NaN
/// again) or −∞ (then −∞ for good): the fast copy's NaN is gone by the last iteration
/// and only the slow copy gets the ISA's values. Kind 1: `v6 = +∞`, `v9 = 0`:
/// `fma(∞, 0, v7)` is NaN from the first iteration on. Kind 2: moderate values. Kind 3:
/// random bits (NaN and infinite lanes).
fn nan_persistence_wave(
    seed: u64,
    wave_size: u32,
    exec: u64,
    iters: u32,
    kind: impl Fn(usize) -> u32,
) -> Box<WaveState> {
    let mut s = poisoned_wave(seed, wave_size, exec, iters, false);
    let mut r = seed | 1;
    for l in 0..64 {
        let k = kind(l);
        if k == 3 {
            continue;
        }
        for reg in [0, 3, 6, 7] {
            s.vgpr[reg][l] = tame(&mut r);
        }
        s.vgpr[2][l] = 0.5f32.to_bits();
        s.vgpr[4][l] = 0xffbf_ffff;
        s.vgpr[9][l] = 0.5f32.to_bits();
        if k == 0 {
            s.vgpr[0][l] = f32::INFINITY.to_bits();
            s.vgpr[2][l] = 2.0f32.to_bits();
            s.vgpr[3][l] = f32::NEG_INFINITY.to_bits();
        } else if k == 1 {
            s.vgpr[6][l] = f32::INFINITY.to_bits();
            s.vgpr[9][l] = 0;
        }
    }
    s
}

/// A name and each lane's kind ([`nan_persistence_wave`]).
type LaneKinds = (&'static str, fn(usize) -> u32);

/// A NaN that appears in one iteration and is gone from the register by the last still
/// sends the group to the slow copy (its bits reach an accumulator), and a NaN in a register
/// whose NaNs persist is caught by the test of its final value: JIT against interpreter,
/// wave32 and wave64, full and partial EXEC, 1 to 100 iterations, left by the budget
/// mid-loop.
#[test]
fn nans_that_vanish_by_the_last_iteration_are_tested_in_every_iteration() {
    let code = code(&gfx1100_nan_persistence_loop());
    let kinds: [LaneKinds; 3] = [
        ("mixed lanes", |l| (l % 4) as u32),
        ("one transient NaN lane", |l| if l == 21 { 0 } else { 2 }),
        ("one persistent NaN lane", |l| if l == 5 { 1 } else { 2 }),
    ];
    for wave in [32, 64] {
        assert!(
            iterated(Gpu::GFX1100, wave, &code),
            "w{wave}: iterated form"
        );
        let jit = translator(Gpu::GFX1100, wave, EngineKind::Jit);
        let interp = translator(Gpu::GFX1100, wave, EngineKind::Interp);
        let mut seed = 0;
        for (name, kind) in kinds {
            for iters in [1, 2, 7, 100] {
                for exec in [u64::MAX, PARTIAL] {
                    for budget in [1_000_000, 37] {
                        seed += 1;
                        let what = format!(
                            "w{wave}, {name}, {iters} iterations, exec {exec:#x}, budget {budget}"
                        );
                        let mk = || nan_persistence_wave(seed, wave, exec, iters, kind);
                        let want = run(&interp, &code, mk(), budget);
                        if budget > 1000 {
                            assert_eq!(want.0, Ok(ExitCode::EndPgm), "{what}");
                        }
                        // The NaN lanes' bits reached the accumulators.
                        if budget > 1000 && iters > 1 && exec == u64::MAX {
                            let active = (0..wave as usize).filter(|&l| kind(l) < 2);
                            let nan_bits = active.clone().any(|l| {
                                let (v5, v8) = (want.1.vgpr[5][l], want.1.vgpr[8][l]);
                                v5 != mk().vgpr[5][l] || v8 != mk().vgpr[8][l]
                            });
                            assert!(nan_bits, "{what}: the accumulators changed");
                        }
                        same(&run(&jit, &code, mk(), budget), &want, &what);
                    }
                }
            }
        }
    }
}
