//! Tier-up (`wavejit_translator::tier`): blocks compiled quickly and then recompiled
//! optimised, compiles on several threads at once, and optimised code replacing quick code
//! while blocks chain — every result checked against the interpreter on poisoned state.

use std::sync::Barrier;
use wavejit_translator::env::{CodeSource, ExecFault, ExitCode};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::tier::{TierPolicy, TierStats};
use wavejit_translator::wave::WaveState;

/// Code at [`BASE`]: one or more copies of the loop program ([`program`]).
struct Code {
    bytes: Vec<u8>,
}

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.bytes.get(off..).filter(|s| !s.is_empty())
    }
}

const BASE: u64 = 0x10_0000;
/// Device address of the global memory the loop reads.
const GLOBAL: u64 = 0x2000_0000;
/// Loop iterations (`s0`'s start value).
const ITERS: u32 = 40;

/// A two-block loop with a long first block, gfx942 machine code (encodings from
/// `llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding`):
/// ```text
///        s_mov_b32 s0, ITERS                  ; be8000ff ITERS
///        s_branch loop                        ; bf820000
/// loop:  (v_add_u32_e32 v3, 1, v3             ; 68060681
///         v_fma_f32 v0, v1, v2, v0) × pairs   ; d1cb0000 04020501
///        s_branch mid                         ; bf820000
/// mid:   global_load_dword v5, v[6:7], off    ; dc508000 057f0006
///        v_add_u32_e32 v6, 4, v6              ; 680c0c84
///        v_add_u32_e32 v4, v5, v4             ; 68080905
///        s_sub_u32 s0, s0, 1                  ; 80808100
///        s_cmp_lg_u32 s0, 0                   ; bf078000
///        s_cbranch_scc1 loop                  ; bf85xxxx
///        s_endpgm                             ; bf810000
/// ```
/// `loop` has `2 × pairs + 1` instructions, `mid` 6, the entry block 2 and the end block 1:
/// with a policy whose quick tier starts between, `loop` gets a quick tier and the others
/// do not.
fn program(pairs: usize) -> Vec<u32> {
    let mut w = vec![0xbe8000ff, ITERS, 0xbf820000];
    let loop_at = w.len();
    for _ in 0..pairs {
        w.extend([0x68060681, 0xd1cb0000, 0x04020501]);
    }
    w.push(0xbf820000);
    w.extend([
        0xdc508000, 0x057f0006, 0x680c0c84, 0x68080905, 0x80808100, 0xbf078000,
    ]);
    // simm16 = (target - (branch + 4)) / 4, in dwords.
    let rel = loop_at as i32 - (w.len() as i32 + 1);
    w.push(0xbf850000 | (rel as u16 as u32));
    w.push(0xbf810000);
    w
}

fn code(programs: &[Vec<u32>]) -> (Code, Vec<u64>) {
    let mut bytes = Vec::new();
    let mut starts = Vec::new();
    for p in programs {
        starts.push(BASE + bytes.len() as u64);
        bytes.extend(p.iter().flat_map(|w| w.to_le_bytes()));
    }
    (Code { bytes }, starts)
}

/// xorshift64*: poison that differs per wave.
fn poison(seed: &mut u64) -> u32 {
    *seed ^= *seed >> 12;
    *seed ^= *seed << 25;
    *seed ^= *seed >> 27;
    (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
}

/// Wave `n` starting at `pc`: every VGPR lane poisoned, then the loop's operands set for
/// the active lanes (inactive lanes 3, 17 and 40 keep poison, addresses included).
fn wave(n: u64, pc: u64) -> Box<WaveState> {
    let mut seed = 0x9e37_79b9_7f4a_7c15 ^ (n + 1).wrapping_mul(0x1000_0001);
    let mut s = WaveState::new_boxed(64);
    for r in 0..8 {
        for l in 0..64 {
            s.vgpr[r][l] = poison(&mut seed);
        }
    }
    let exec: u64 = !(1 << 3 | 1 << 17 | 1 << 40);
    for l in (0..64).filter(|l| exec >> l & 1 == 1) {
        s.vgpr[0][l] = (l as f32 * 0.25 - 3.0 + n as f32).to_bits();
        s.vgpr[1][l] = (0.5 + (poison(&mut seed) & 0xff) as f32 / 512.0).to_bits();
        s.vgpr[2][l] = (1.0 - (poison(&mut seed) & 0xff) as f32 / 1024.0).to_bits();
        s.vgpr[6][l] = GLOBAL as u32 + 4 * l as u32;
        s.vgpr[7][l] = 0;
    }
    s.set_exec(exec);
    s.pc = pc;
    s
}

/// Global memory: word `k` = `3k + 1`, enough for every lane and iteration.
fn env() -> FlatEnv {
    let words = 64 + ITERS as usize;
    let mut env = FlatEnv::new(GLOBAL, words * 4, 0, 0);
    for k in 0..words {
        env.global[4 * k..4 * k + 4].copy_from_slice(&(3 * k as u32 + 1).to_le_bytes());
    }
    env
}

/// Runs wave `n` from `pc`: its result, final state and budget left.
fn run(
    t: &Translator,
    code: &Code,
    n: u64,
    pc: u64,
) -> (Result<ExitCode, ExecFault>, Box<WaveState>, u64) {
    let mut s = wave(n, pc);
    let mut e = env();
    let mut budget = 1_000_000;
    let r = t.run(code, &mut s, &mut e, &mut budget);
    (r, s, budget)
}

fn translator(engine: EngineKind, policy: TierPolicy) -> Translator {
    Translator::new(Target::new(Gpu::GFX942), engine)
        .expect("translator")
        .with_tiers(policy)
}

/// The JIT's wave ended exactly as the interpreter's.
fn same(jit: &(Result<ExitCode, ExecFault>, Box<WaveState>, u64), code: &Code, n: u64, pc: u64) {
    let interp = translator(EngineKind::Interp, TierPolicy::DEFAULT);
    let want = run(&interp, code, n, pc);
    assert_eq!(want.0, Ok(ExitCode::EndPgm));
    assert_eq!(jit.0, want.0, "wave {n}");
    assert_eq!(jit.2, want.2, "wave {n}: budget left");
    let (a, b) = (&jit.1, &want.1);
    assert_eq!(a.pc, b.pc, "wave {n}");
    assert_eq!(a.sgpr, b.sgpr, "wave {n}");
    assert_eq!(a.scc, b.scc, "wave {n}");
    for r in 0..8 {
        assert_eq!(a.vgpr[r], b.vgpr[r], "wave {n}: v{r}");
    }
    assert_eq!(a.counters, b.counters, "wave {n}");
}

/// `loop` (41 instructions) gets a quick tier after 1 run and is optimised after 12 more;
/// `mid` (6) and the rest are optimised after 3.
const POLICY: TierPolicy = TierPolicy {
    hot_threshold: 3,
    quick_min_insts: 20,
    quick_threshold: 1,
    optimise_after: 12,
    eager_quick_waves: TierPolicy::DEFAULT.eager_quick_waves,
};

#[test]
fn quick_then_optimised_code_matches_the_interpreter() {
    let (code, starts) = code(&[program(20)]);
    let t = translator(EngineKind::Jit, POLICY);
    // Wave 0 passes every tier of `loop` (interpreted, quick for 12 runs, optimised) within
    // its 40 iterations; wave 1 runs optimised code only.
    for n in 0..2 {
        let r = run(&t, &code, n, starts[0]);
        same(&r, &code, n, starts[0]);
        let st = t.tier_stats();
        assert_eq!(
            st,
            TierStats {
                quick: 1,
                optimised: 2
            },
            "after wave {n}"
        );
    }
    // The entry block and the end block run once per wave: not hot yet.
    assert_eq!(t.stats().blocks_compiled, 3);
}

#[test]
fn quick_code_is_the_optimised_code_without_tier_up() {
    // `optimise_after` beyond the run count: `loop` runs quick code to the end.
    let (code, starts) = code(&[program(20)]);
    let policy = TierPolicy {
        optimise_after: 1_000,
        ..POLICY
    };
    let t = translator(EngineKind::Jit, policy);
    for n in 0..3 {
        let r = run(&t, &code, n, starts[0]);
        same(&r, &code, n, starts[0]);
    }
    assert_eq!(
        t.tier_stats(),
        TierStats {
            quick: 1,
            optimised: 1
        }
    );
}

#[test]
fn optimised_code_replacing_quick_code_is_chained() {
    let (code, starts) = code(&[program(20)]);
    let t = translator(EngineKind::Jit, POLICY);
    let r = run(&t, &code, 0, starts[0]);
    same(&r, &code, 0, starts[0]);
    // Wave 1: `mid` continues in the optimised `loop` and back by tail calls, so the run
    // loop looks up only the entry block, `loop` once and the end block (and a link
    // attempt or two), not 2 × 40 blocks.
    let hits = t.stats().cache_hits;
    let r = run(&t, &code, 1, starts[0]);
    same(&r, &code, 1, starts[0]);
    let wave1 = t.stats().cache_hits - hits;
    assert!(wave1 <= 6, "wave 1 looked up {wave1} blocks");
}

#[test]
fn two_threads_compiling_at_once_match_one_thread() {
    // Two programs (different blocks): each thread runs waves of both, starting with a
    // different one, so both compile at once, and a block may be recompiled optimised
    // while the other thread runs its quick code or is chained into it.
    let (code, starts) = code(&[program(20), program(24)]);
    let waves = 6u64;
    let one = translator(EngineKind::Jit, POLICY);
    for n in 0..waves {
        for (p, &pc) in starts.iter().enumerate() {
            let r = run(&one, &code, n * 2 + p as u64, pc);
            same(&r, &code, n * 2 + p as u64, pc);
        }
    }
    let two = translator(EngineKind::Jit, POLICY);
    let start = Barrier::new(2);
    std::thread::scope(|sc| {
        for th in 0..2usize {
            let (two, code, starts, start) = (&two, &code, &starts, &start);
            sc.spawn(move || {
                start.wait();
                for n in 0..waves {
                    for k in 0..2 {
                        let p = (th + k) % 2;
                        let id = n * 2 + p as u64;
                        let r = run(two, code, id, starts[p]);
                        same(&r, code, id, starts[p]);
                    }
                }
            });
        }
    });
    // Every block compiled once per tier it reached, as on one thread: `loop` of each
    // program quickly, and all eight blocks (entry, loop, mid, end) optimised.
    let want = TierStats {
        quick: 2,
        optimised: 8,
    };
    assert_eq!(one.tier_stats(), want);
    assert_eq!(two.tier_stats(), want);
    assert_eq!(two.stats().blocks_compiled, one.stats().blocks_compiled);
    assert_eq!(two.stats().blocks_lifted, one.stats().blocks_lifted);
}

/// Quick code ([`Tier::Quick`]: no Cranelift optimisation, single-pass register
/// allocation) of the first block of random gfx942 programs (the differential fuzzer's
/// generator) against the interpreter: same exit, registers, counters and memory from the
/// same random state.
#[test]
fn quick_code_matches_the_interpreter_on_random_blocks() {
    use wavejit_translator::difffuzz::gen::{to_bytes, Code as FuzzCode, CODE_BASE};
    use wavejit_translator::difffuzz::{
        first_diff, random_env, random_mode, random_state, Fuzzer, Outcome, Rng,
    };
    use wavejit_translator::jit::{Jit, Tier};
    let mut f = Fuzzer::new(Gpu::GFX942);
    let target = f.pool.target;
    let jit = Jit::new().expect("host JIT");
    let (mut compiled, mut insts) = (0, 0);
    for seed in 0x71e2_0000..0x71e2_0000 + 120u64 {
        // The same random state and memory for both engines.
        let fresh = || {
            let mut rng = Rng(seed);
            let mode = random_mode(&mut rng);
            let mut s = random_state(&mut rng, mode);
            s.pc = CODE_BASE;
            let env = random_env(&mut rng);
            (rng, s, env)
        };
        let (mut rng, mut s_interp, mut env_interp) = fresh();
        let len = 8 + rng.below(40) as usize;
        let items = f.pool.program(&mut rng, s_interp.mode, len);
        let code = FuzzCode(to_bytes(&f.pool.layout(&items)));
        let block = wavejit_translator::lift::lift_block(&target, &code, CODE_BASE, s_interp.mode);
        let Ok(quick) = jit.compile_at(&block, Tier::Quick) else {
            continue;
        };
        compiled += 1;
        insts += u64::from(block.inst_count);
        let (_, mut s_jit, mut env_jit) = fresh();
        let ra = wavejit_translator::interp::run_block(&block, &mut s_interp, &mut env_interp);
        let rb = quick.run(&mut s_jit, &mut env_jit);
        let outcome = |result, state, env| Outcome {
            result,
            state,
            env,
            lifted: 1,
            compiled: 1,
            matrix_blocks: 0,
            others: Vec::new(),
        };
        let (a, b) = (
            outcome(ra, s_interp, env_interp),
            outcome(rb, s_jit, env_jit),
        );
        if let Some(d) = first_diff(&a, &b) {
            panic!(
                "seed {seed:#x}: quick code differs from the interpreter: {d}\n{}",
                block
            );
        }
    }
    // Blocks the JIT declines stay interpreted; nearly all compile.
    assert!(compiled >= 100, "only {compiled} blocks compiled");
    assert!(insts >= 1000, "only {insts} instructions");
}

/// Under the default policy a long block (`loop`, 129 instructions, wave64) runs quick code
/// for 1024 runs after its 4 interpreted ones, then optimised code: 40 runs per wave, so the
/// optimised compile comes in wave 25 (runs 1001–1040) and not before; every wave against
/// the interpreter.
#[test]
fn default_policy_optimises_long_blocks_after_1024_quick_runs() {
    let (code, starts) = code(&[program(64)]);
    let t = translator(EngineKind::Jit, TierPolicy::DEFAULT);
    let loop_optimised = |t: &Translator| {
        // `mid` (6 instructions) is optimised from its 65th run, in wave 1; the entry and
        // end blocks run once per wave and stay interpreted here.
        let st = t.tier_stats();
        assert_eq!(st.quick, 1, "only `loop` gets quick code");
        st.optimised == 2
    };
    for n in 0..25 {
        let r = run(&t, &code, n, starts[0]);
        same(&r, &code, n, starts[0]);
        assert!(
            !loop_optimised(&t),
            "`loop` optimised after {} runs",
            40 * (n + 1)
        );
    }
    // Waiting: `loop` on quick code, the entry and end blocks interpreted.
    assert_eq!(t.stats().blocks_awaiting_optimised, 3);
    let r = run(&t, &code, 25, starts[0]);
    same(&r, &code, 25, starts[0]);
    assert!(
        loop_optimised(&t),
        "`loop` still on quick code after 1040 runs"
    );
    assert_eq!(t.stats().blocks_awaiting_optimised, 2);
    // Later waves run the optimised code.
    let r = run(&t, &code, 26, starts[0]);
    same(&r, &code, 26, starts[0]);
    assert_eq!(t.stats().blocks_compiled, 3);
}

/// `TranslationStats::blocks_awaiting_optimised` counts the cached blocks that are still
/// interpreted or running quick code, and reaches zero once every block has its last code.
#[test]
fn blocks_awaiting_the_optimised_tier_are_counted() {
    let (code, starts) = code(&[program(20)]);
    let awaiting = |t: &Translator| t.stats().blocks_awaiting_optimised;
    let t = translator(EngineKind::Jit, POLICY);
    assert_eq!(awaiting(&t), 0, "nothing cached yet");
    same(&run(&t, &code, 0, starts[0]), &code, 0, starts[0]);
    // `loop` and `mid` ran often enough to be optimised; the entry and end blocks ran once.
    assert_eq!(awaiting(&t), 2);
    for n in 1..4 {
        same(&run(&t, &code, n, starts[0]), &code, n, starts[0]);
    }
    // The entry and end blocks compiled on their fourth run (hot_threshold 3).
    assert_eq!(awaiting(&t), 0);

    // Quick code that is not yet replaced keeps its block waiting.
    let slow = translator(
        EngineKind::Jit,
        TierPolicy {
            optimise_after: 1_000,
            ..POLICY
        },
    );
    for n in 0..4 {
        same(&run(&slow, &code, n, starts[0]), &code, n, starts[0]);
    }
    assert_eq!(slow.tier_stats().quick, 1);
    assert_eq!(awaiting(&slow), 1, "`loop` runs quick code");

    // The interpreter never compiles, so nothing waits for it.
    let interp = translator(EngineKind::Interp, POLICY);
    same(&run(&interp, &code, 0, starts[0]), &code, 0, starts[0]);
    assert!(interp.stats().blocks_lifted >= 4);
    assert_eq!(awaiting(&interp), 0);
}

/// Quick code emits each lane-group loop once (the copy that blends partial EXEC masks and
/// applies the NaN rule in line), and the optimised code a fast and a slow copy: both
/// against the interpreter on the long `loop` block (`v_fma_f32` and `v_add_u32` pairs), with
/// EXEC full and partial, with and without NaN operands (quiet, signalling, negative) in
/// active and inactive lanes, VGPRs poisoned.
#[test]
fn one_loop_copy_matches_the_interpreter_with_nans_and_partial_exec() {
    use wavejit_translator::jit::{Jit, Tier};
    let (code, starts) = code(&[program(30)]);
    // `loop` follows `s_mov_b32 s0, ITERS` (two dwords) and `s_branch` (one).
    let pc = starts[0] + 12;
    let jit = Jit::new().expect("host JIT");
    let target = Target::new(Gpu::GFX942);
    for (case, (full_exec, nans)) in [(true, false), (true, true), (false, false), (false, true)]
        .into_iter()
        .enumerate()
    {
        let start = || {
            let mut s = wave(case as u64, pc);
            if full_exec {
                s.set_exec(u64::MAX);
            }
            if nans {
                // Lane 3 is inactive under the partial EXEC.
                for (reg, lane, bits) in [
                    (1, 5, 0x7fc0_0000),
                    (2, 9, 0x7f80_0001),
                    (0, 12, 0xffc0_1234),
                    (1, 3, 0x7fa0_0000),
                    (2, 63, 0xff80_0000),
                ] {
                    s.vgpr[reg][lane] = bits;
                }
            }
            s
        };
        let block = wavejit_translator::lift::lift_block(&target, &code, pc, start().mode);
        assert_eq!(block.inst_count, 61, "case {case}");
        let mut want = start();
        let mut env_want = env();
        let r_want = wavejit_translator::interp::run_block(&block, &mut want, &mut env_want);
        assert_eq!(r_want, Ok(ExitCode::Continue), "case {case}");
        for tier in [Tier::Quick, Tier::Optimised] {
            let cb = jit.compile_at(&block, tier).expect("compiles");
            assert!(cb.is_grouped(), "case {case} {tier:?}: lane-group form");
            let mut got = start();
            let mut env_got = env();
            let r = cb.run(&mut got, &mut env_got);
            assert_eq!(r, r_want, "case {case} {tier:?}");
            assert_eq!(got.pc, want.pc, "case {case} {tier:?}");
            assert_eq!(got.sgpr, want.sgpr, "case {case} {tier:?}");
            for reg in 0..8 {
                assert_eq!(
                    got.vgpr[reg], want.vgpr[reg],
                    "case {case} {tier:?}: v{reg}"
                );
            }
            assert_eq!(got.counters, want.counters, "case {case} {tier:?}");
        }
    }
}

/// A loop whose long body is one block looping to itself, gfx942 machine code:
/// ```text
///        s_mov_b32 s0, ITERS                  ; be8000ff ITERS
///        s_branch loop                        ; bf820000
/// loop:  (v_add_u32_e32 v3, 1, v3             ; 68060681
///         v_fma_f32 v0, v1, v2, v0) × pairs   ; d1cb0000 04020501
///        s_sub_u32 s0, s0, 1                  ; 80808100
///        s_cmp_lg_u32 s0, 0                   ; bf078000
///        s_cbranch_scc1 loop                  ; bf85xxxx
///        s_endpgm                             ; bf810000
/// ```
/// `loop` has `2 × pairs + 3` instructions.
fn self_loop_program(pairs: usize) -> Vec<u32> {
    let mut w = vec![0xbe8000ff, ITERS, 0xbf820000];
    let loop_at = w.len();
    for _ in 0..pairs {
        w.extend([0x68060681, 0xd1cb0000, 0x04020501]);
    }
    w.extend([0x80808100, 0xbf078000]);
    let rel = loop_at as i32 - (w.len() as i32 + 1);
    w.push(0xbf850000 | (rel as u16 as u32));
    w.push(0xbf810000);
    w
}

/// A long block looping to itself gets the quick tier like any long block: its quick code
/// runs one iteration and returns to the run loop (which counts each iteration as a run),
/// and after `optimise_after` more runs the optimised code (which loops inside) replaces it;
/// every wave against the interpreter on poisoned state with partial EXEC.
#[test]
fn long_self_loops_run_quick_code_one_iteration_per_run() {
    use wavejit_translator::jit::{Jit, Tier};
    let (code, starts) = code(&[self_loop_program(20)]);
    let pc = starts[0] + 12;

    // The quick code alone, with credit for every iteration: one iteration, then
    // `Continue` at the loop's start, as the interpreter's one run of the block.
    let target = Target::new(Gpu::GFX942);
    let block = wavejit_translator::lift::lift_block(&target, &code, pc, wave(0, pc).mode);
    assert_eq!(block.inst_count, 43);
    let quick = Jit::new()
        .expect("host JIT")
        .compile_at(&block, Tier::Quick)
        .expect("compiles");
    assert!(!quick.is_iterated());
    let (mut got, mut want) = (wave(0, pc), wave(0, pc));
    got.sgpr[0] = ITERS;
    want.sgpr[0] = ITERS;
    let (mut env_got, mut env_want) = (env(), env());
    let r_want = wavejit_translator::interp::run_block(&block, &mut want, &mut env_want);
    assert_eq!(r_want, Ok(ExitCode::Continue));
    assert_eq!(want.pc, pc, "the interpreter ran one iteration");
    // Credit for every iteration: the code still returns after one.
    got.credit = 1_000_000;
    let r = quick.run_chained(&mut got, &mut env_got);
    assert_eq!(r, r_want);
    assert_eq!(got.pc, want.pc);
    assert_eq!(got.sgpr, want.sgpr, "one iteration: s0 = ITERS - 1");
    for reg in 0..8 {
        assert_eq!(got.vgpr[reg], want.vgpr[reg], "v{reg}");
    }
    assert_eq!(got.counters, want.counters);

    // Quick code to the end: every iteration passes the run loop.
    let slow = translator(
        EngineKind::Jit,
        TierPolicy {
            optimise_after: 1_000,
            ..POLICY
        },
    );
    let r = run(&slow, &code, 0, starts[0]);
    same(&r, &code, 0, starts[0]);
    assert_eq!(
        slow.tier_stats(),
        TierStats {
            quick: 1,
            optimised: 0
        }
    );
    let hits = slow.stats().cache_hits;
    assert!(
        hits >= u64::from(ITERS) - 1,
        "{hits} lookups in 40 iterations"
    );

    // Under `POLICY` (quick after 1 run, optimised after 12 more) wave 0 passes every
    // tier of `loop`; wave 1 runs its optimised code, which loops inside.
    let t = translator(EngineKind::Jit, POLICY);
    for n in 0..2 {
        let r = run(&t, &code, n, starts[0]);
        same(&r, &code, n, starts[0]);
        assert_eq!(
            t.tier_stats(),
            TierStats {
                quick: 1,
                optimised: 1
            },
            "after wave {n}"
        );
    }
    let hits = t.stats().cache_hits;
    let r = run(&t, &code, 2, starts[0]);
    same(&r, &code, 2, starts[0]);
    let wave2 = t.stats().cache_hits - hits;
    assert!(wave2 <= 6, "wave 2 looked up {wave2} blocks");
}

/// One straight-line block run once per wave: `(v_add_u32 v3, 1, v3; v_fma_f32 v0, v1, v2,
/// v0) × pairs; s_endpgm` (the encodings of [`program`]).
fn straight(pairs: usize) -> Vec<u32> {
    let mut w = Vec::new();
    for _ in 0..pairs {
        w.extend([0x68060681, 0xd1cb0000, 0x04020501]);
    }
    w.push(0xbf810000);
    w
}

#[test]
fn launches_with_many_waves_compile_long_blocks_on_their_first_run() {
    // A 41-instruction block (long under this policy), run once per wave. The default
    // policy otherwise: quick after 4 interpreted runs, eager from 16 wave64 waves.
    let (code, starts) = code(&[straight(20)]);
    let policy = TierPolicy {
        quick_min_insts: 20,
        ..TierPolicy::DEFAULT
    };
    assert_eq!(policy.quick_threshold, 4);
    let eager_at = u64::from(policy.eager_quick_waves);
    let quick = |t: &Translator| t.tier_stats().quick;

    // A launch of enough waves: the first wave already runs quick code.
    let big = translator(EngineKind::Jit, policy);
    big.set_launch_waves(eager_at);
    for n in 0..3 {
        same(&run(&big, &code, n, starts[0]), &code, n, starts[0]);
        assert_eq!(quick(&big), 1, "after wave {n}");
    }

    // One wave fewer, and a translator never told of a launch: four interpreted runs first.
    let small = translator(EngineKind::Jit, policy);
    small.set_launch_waves(eager_at - 1);
    let untold = translator(EngineKind::Jit, policy);
    for t in [&small, &untold] {
        for n in 0..6 {
            same(&run(t, &code, n, starts[0]), &code, n, starts[0]);
            assert_eq!(quick(t), u64::from(n >= 4), "after wave {n}");
        }
    }

    // The count is read when a block is first cached: a block cached during a small launch
    // keeps its interpreted runs in a later large one.
    let later = translator(EngineKind::Jit, policy);
    later.set_launch_waves(1);
    same(&run(&later, &code, 0, starts[0]), &code, 0, starts[0]);
    later.set_launch_waves(eager_at * 100);
    same(&run(&later, &code, 1, starts[0]), &code, 1, starts[0]);
    assert_eq!(quick(&later), 0);

    // Short blocks are not affected: under a policy where this block is short, a large
    // launch still interprets it until `hot_threshold` and then compiles it optimised.
    let short = translator(
        EngineKind::Jit,
        TierPolicy {
            hot_threshold: 2,
            quick_min_insts: 100,
            ..policy
        },
    );
    short.set_launch_waves(eager_at * 100);
    for n in 0..4 {
        same(&run(&short, &code, n, starts[0]), &code, n, starts[0]);
        let want = TierStats {
            quick: 0,
            optimised: u64::from(n >= 2),
        };
        assert_eq!(short.tier_stats(), want, "after wave {n}");
    }
}
