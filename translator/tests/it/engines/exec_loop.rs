//! Execution loop tests on real gfx942 machine code (encodings from llvm-mc-22, see the
//! comments), checked against host computations; plus budget and bad-jump handling.

use wavejit_translator::env::{CodeSource, ExecFault, ExitCode};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::ir::*;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::WaveState;
use wavejit_translator::wave::{sreg, InstClass};

struct Code {
    base: u64,
    bytes: Vec<u8>,
}

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(self.base)? as usize;
        self.bytes.get(off..).filter(|s| !s.is_empty())
    }
}

const BASE: u64 = 0x10_0000;

/// `llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -show-encoding`:
/// ```text
///   s_mov_b32 s0, 0x64         ; ff 00 80 be 64 00 00 00
/// loop:
///   v_fma_f32 v0, v1, v2, v0   ; 00 00 cb d1 01 05 02 04
///   v_add_u32_e32 v3, 1, v3    ; 81 06 06 68
///   s_sub_u32 s0, s0, 1        ; 00 81 80 80
///   s_cmp_lg_u32 s0, 0         ; 00 80 07 bf
///   s_cbranch_scc1 loop        ; fa ff 85 bf   (simm16 = (8 - 32) / 4 = -6)
///   s_endpgm                   ; 00 00 81 bf
/// ```
fn fma_loop() -> Code {
    let bytes = vec![
        0xff, 0x00, 0x80, 0xbe, 0x64, 0x00, 0x00, 0x00, // s_mov_b32 s0, 100
        0x00, 0x00, 0xcb, 0xd1, 0x01, 0x05, 0x02, 0x04, // v_fma_f32
        0x81, 0x06, 0x06, 0x68, // v_add_u32
        0x00, 0x81, 0x80, 0x80, // s_sub_u32
        0x00, 0x80, 0x07, 0xbf, // s_cmp_lg_u32
        0xfa, 0xff, 0x85, 0xbf, // s_cbranch_scc1
        0x00, 0x00, 0x81, 0xbf, // s_endpgm
    ];
    Code { base: BASE, bytes }
}

fn initial_state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for l in 0..64 {
        s.vgpr[0][l] = (l as f32 * 0.25 - 3.0).to_bits();
        s.vgpr[1][l] = (0.5 + l as f32 / 128.0).to_bits();
        s.vgpr[2][l] = (1.0 - l as f32 / 256.0).to_bits();
        s.vgpr[3][l] = 1000 + l as u32;
    }
    s.set_exec(0xFFFF_FFFF_FFFF_FFF0 & !(1 << 40)); // lanes 0..4 and 40 inactive
    s.pc = BASE;
    s
}

/// The IR the lifter makes of [`fma_loop`], built by hand so the loop tests do not depend
/// on the decoder.
fn ir_lifter(target: &Target, _code: &dyn CodeSource, pc: u64, _mode: u32) -> Block {
    let mut b = Builder::new(pc, target.wave_size);
    let c = |b: &mut Builder, x: u32| {
        b.push(
            Op::Const {
                ty: Ty::S32,
                bits: x as u64,
            },
            Some(Ty::S32),
        )
    };
    match pc - BASE {
        0 => {
            let k = c(&mut b, 100);
            b.push(Op::SetSgpr(0, k), None);
            b.count_inst(InstClass::Salu, pc + 8);
            b.finish(Exit::Jump(pc + 8))
        }
        8 => {
            let lo = b.push(Op::GetSgpr(sreg::EXEC_LO), Some(Ty::S32));
            let hi = b.push(Op::GetSgpr(sreg::EXEC_HI), Some(Ty::S32));
            let exec = b.push(Op::Pack { lo, hi }, Some(Ty::S64));
            let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
            let v1 = b.push(Op::GetVgpr(1), Some(Ty::V32));
            let v2 = b.push(Op::GetVgpr(2), Some(Ty::V32));
            let f = b.push(Op::Tern(TernOp::Fma, v1, v2, v0), Some(Ty::V32));
            b.push(
                Op::SetVgpr {
                    reg: 0,
                    val: f,
                    mask: exec,
                },
                None,
            );
            b.push(Op::CountVector { mask: exec }, None);
            b.count_inst(InstClass::Valu, pc + 8);
            let one = c(&mut b, 1);
            let onev = b.push(Op::Broadcast(one), Some(Ty::V32));
            let v3 = b.push(Op::GetVgpr(3), Some(Ty::V32));
            let s = b.push(Op::Bin(BinOp::Add, onev, v3), Some(Ty::V32));
            b.push(
                Op::SetVgpr {
                    reg: 3,
                    val: s,
                    mask: exec,
                },
                None,
            );
            b.push(Op::CountVector { mask: exec }, None);
            b.count_inst(InstClass::Valu, pc + 12);
            let s0 = b.push(Op::GetSgpr(0), Some(Ty::S32));
            let d = b.push(Op::Bin(BinOp::Sub, s0, one), Some(Ty::S32));
            b.push(Op::SetSgpr(0, d), None);
            b.count_inst(InstClass::Salu, pc + 16);
            let z = c(&mut b, 0);
            let ne = b.push(Op::Cmp(CmpOp::Ne, d, z), Some(Ty::S32));
            b.push(Op::SetScc(ne), None);
            b.count_inst(InstClass::Salu, pc + 20);
            let scc = b.push(Op::GetScc, Some(Ty::S32));
            b.count_inst(InstClass::Control, pc + 24);
            b.finish(Exit::Branch {
                cond: scc,
                taken: pc,
                not_taken: pc + 24,
            })
        }
        32 => {
            b.count_inst(InstClass::Control, pc + 4);
            b.finish(Exit::EndPgm)
        }
        _ => b.finish(Exit::Unsupported {
            pc,
            reason: "not in the test program".into(),
        }),
    }
}

fn run(engine: EngineKind, threshold: u32) -> (Box<WaveState>, Translator) {
    run_with(engine, threshold, wavejit_translator::lift::lift_block)
}

fn run_with(
    engine: EngineKind,
    threshold: u32,
    lift: wavejit_translator::exec::LiftFn,
) -> (Box<WaveState>, Translator) {
    let t = Translator::new(Target::new(Gpu::GFX942), engine)
        .expect("translator")
        .with_hot_threshold(threshold)
        .with_lifter(lift);
    let code = fma_loop();
    let mut s = initial_state();
    let mut env = FlatEnv::new(0, 0, 0, 0);
    let mut budget = 100_000;
    let r = t.run(&code, &mut s, &mut env, &mut budget);
    assert_eq!(r, Ok(ExitCode::EndPgm), "engine {engine:?}");
    assert_eq!(
        budget,
        100_000 - (1 + 100 * 5 + 1),
        "every instruction is charged"
    );
    (s, t)
}

fn check_against_host(s: &WaveState) {
    let init = initial_state();
    let exec = init.exec();
    for l in 0..64 {
        let (a, b) = (
            f32::from_bits(init.vgpr[1][l]),
            f32::from_bits(init.vgpr[2][l]),
        );
        let mut acc = f32::from_bits(init.vgpr[0][l]);
        let mut cnt = init.vgpr[3][l];
        if exec >> l & 1 == 1 {
            for _ in 0..100 {
                acc = a.mul_add(b, acc);
                cnt += 1;
            }
        }
        assert_eq!(s.vgpr[0][l], acc.to_bits(), "v0 lane {l}");
        assert_eq!(s.vgpr[3][l], cnt, "v3 lane {l}");
    }
    assert_eq!(s.sgpr[0], 0);
    assert_eq!(s.counters.vector_insts, 200);
    assert_eq!(s.counters.active_lanes, 200 * exec.count_ones() as u64);
}

#[test]
fn ir_loop_interpreted() {
    let (s, t) = run_with(EngineKind::Interp, 0, ir_lifter);
    check_against_host(&s);
    assert_eq!(t.stats().blocks_compiled, 0);
    assert_eq!(t.stats().blocks_lifted, 3);
    assert_eq!(s.counters.by_class[InstClass::Valu as usize], 200);
    assert_eq!(s.counters.by_class[InstClass::Salu as usize], 201);
}

#[test]
fn ir_loop_jit_tiers_up() {
    let (s, t) = run_with(EngineKind::Jit, 10, ir_lifter);
    check_against_host(&s);
    let st = t.stats();
    assert_eq!(st.blocks_compiled, 1, "{st:?}");
    // The loop block: 1 miss, then hits until its 11th run compiles it; compiled, it repeats
    // itself for the remaining 89 iterations without going through the run loop.
    assert_eq!(st.cache_hits, 10, "{st:?}");
    assert_eq!(s.counters.by_class[InstClass::Salu as usize], 201);
}

#[test]
fn ir_runaway() {
    let t = Translator::new(Target::new(Gpu::GFX942), EngineKind::Jit)
        .expect("translator")
        .with_lifter(ir_lifter);
    let code = fma_loop();
    let mut s = initial_state();
    let mut env = FlatEnv::new(0, 0, 0, 0);
    let mut budget = 50;
    assert_eq!(
        t.run(&code, &mut s, &mut env, &mut budget),
        Err(ExecFault::Runaway(50))
    );
    let mut s = initial_state();
    s.pc = 0x5000;
    assert_eq!(
        t.run(&code, &mut s, &mut env, &mut budget),
        Err(ExecFault::BadJump(0x5000))
    );
}

#[test]
fn fma_loop_interpreted() {
    let (s, t) = run(EngineKind::Interp, 0);
    check_against_host(&s);
    assert_eq!(t.stats().blocks_compiled, 0);
}

#[test]
fn fma_loop_jit_tiers_up() {
    let (s, t) = run(EngineKind::Jit, 10);
    check_against_host(&s);
    let st = t.stats();
    assert!(st.blocks_compiled >= 1, "{st:?}");
    // The loop block at 8 (iterations 2..=100): a miss, 10 interpreted hits, then one
    // compiled run that repeats itself.
    assert_eq!(st.cache_hits, 10, "{st:?}");
}

#[test]
fn compiled_self_loop_stops_where_the_budget_does() {
    for lift in [ir_lifter, wavejit_translator::lift::lift_block] {
        let t = Translator::new(Target::new(Gpu::GFX942), EngineKind::Jit)
            .expect("translator")
            .with_hot_threshold(0)
            .with_lifter(lift);
        let code = fma_loop();
        let mut s = initial_state();
        let mut env = FlatEnv::new(0, 0, 0, 0);
        // s_mov (1) and 50 iterations (5 each) fit, the 51st does not.
        let mut budget = 1 + 50 * 5 + 4;
        assert_eq!(
            t.run(&code, &mut s, &mut env, &mut budget),
            Err(ExecFault::Runaway(255))
        );
        assert_eq!(budget, 4);
        let exec = s.exec();
        for l in 0..64 {
            let want = 1000 + l as u32 + if exec >> l & 1 == 1 { 50 } else { 0 };
            assert_eq!(s.vgpr[3][l], want, "v3 lane {l}");
        }
        assert_eq!(s.sgpr[0], 50);
        assert_eq!(s.counters.vector_insts, 100);
        assert_eq!(s.counters.by_class[InstClass::Salu as usize], 101);
    }
}

#[test]
fn runaway_and_bad_jump() {
    let t = Translator::new(Target::new(Gpu::GFX942), EngineKind::Jit).expect("translator");
    let code = fma_loop();
    let mut s = initial_state();
    let mut env = FlatEnv::new(0, 0, 0, 0);
    let mut budget = 50;
    assert_eq!(
        t.run(&code, &mut s, &mut env, &mut budget),
        Err(ExecFault::Runaway(50))
    );
    let mut s = initial_state();
    s.pc = 0x5000;
    let mut budget = 50;
    assert_eq!(
        t.run(&code, &mut s, &mut env, &mut budget),
        Err(ExecFault::BadJump(0x5000))
    );
}

#[test]
fn translator_is_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Translator>();
    let t = Translator::new(Target::new(Gpu::GFX942), EngineKind::Jit)
        .expect("translator")
        .with_hot_threshold(5)
        .with_lifter(ir_lifter);
    let code = fma_loop();
    std::thread::scope(|sc| {
        for _ in 0..4 {
            sc.spawn(|| {
                for _ in 0..3 {
                    let mut s = initial_state();
                    let mut env = FlatEnv::new(0, 0, 0, 0);
                    let mut budget = 1_000_000;
                    assert_eq!(
                        t.run(&code, &mut s, &mut env, &mut budget),
                        Ok(ExitCode::EndPgm)
                    );
                    check_against_host(&s);
                }
            });
        }
    });
    let st = t.stats();
    // Racing threads may both lift a block, but only one entry is kept, and no block is
    // compiled twice. (A wave never waits for a compile, so a rarely run block may, under
    // contention, stay interpreted; the hot loop block is compiled.)
    assert!(st.blocks_lifted >= 3, "{st:?}");
    assert!((1..=3).contains(&st.blocks_compiled), "{st:?}");
}

/// Throughput of the whole execution loop on the IR loop (ignored by default):
/// `cargo test --release -p wavejit-translator --test exec_loop -- --ignored --nocapture loop_throughput`.
#[test]
#[ignore = "throughput probe"]
fn loop_throughput() {
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        let t = Translator::new(Target::new(Gpu::GFX942), engine)
            .expect("translator")
            .with_lifter(ir_lifter);
        let code = fma_loop();
        let mut env = FlatEnv::new(0, 0, 0, 0);
        let waves = 2000;
        let t0 = std::time::Instant::now();
        let mut insts = 0;
        for _ in 0..waves {
            let mut s = initial_state();
            let mut budget = 1_000_000u64;
            assert_eq!(
                t.run(&code, &mut s, &mut env, &mut budget),
                Ok(ExitCode::EndPgm)
            );
            insts += 1_000_000 - budget;
        }
        let dt = t0.elapsed().as_secs_f64();
        println!(
            "{engine:?}: {:.1} M wave-instructions/s through Translator::run ({:?})",
            insts as f64 / dt / 1e6,
            t.stats()
        );
    }
}

/// A loop of two blocks that compiled code chains (`loop` jumps to `mid`, `mid` branches
/// back), with a global load in the second one. `llvm-mc-22 -triple=amdgcn-amd-amdhsa
/// -mcpu=gfx942 -filetype=obj` + `llvm-objdump-22 -d`:
/// ```text
///        s_mov_b32 s0, 0x64                   ; ff 00 80 be 64 00 00 00
/// 0x08 loop:
///        v_add_u32_e32 v3, 1, v3              ; 68060681
///        s_branch mid                         ; bf820000
/// 0x10 mid:
///        global_load_dword v5, v[6:7], off    ; dc508000 057f0006
///        v_add_u32_e32 v6, 4, v6              ; 680c0c84
///        v_add_u32_e32 v4, v5, v4             ; 68080905
///        s_sub_u32 s0, s0, 1                  ; 80808100
///        s_cmp_lg_u32 s0, 0                   ; bf078000
///        s_cbranch_scc1 loop                  ; bf85fff7
///        s_endpgm                             ; bf810000
/// ```
fn chain_loop() -> Code {
    let words: [u32; 12] = [
        0xbe8000ff, 0x00000064, 0x68060681, 0xbf820000, 0xdc508000, 0x057f0006, 0x680c0c84,
        0x68080905, 0x80808100, 0xbf078000, 0xbf85fff7, 0xbf810000,
    ];
    Code {
        base: BASE,
        bytes: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
    }
}

/// Device address of the chain loop's global memory.
const GLOBAL: u64 = 0x2000_0000;

/// The chain loop's global memory: `dwords` words, word `k` = `3k + 1`.
fn chain_env(dwords: usize) -> FlatEnv {
    let mut env = FlatEnv::new(GLOBAL, dwords * 4, 0, 0);
    for k in 0..dwords {
        env.global[4 * k..4 * k + 4].copy_from_slice(&(3 * k as u32 + 1).to_le_bytes());
    }
    env
}

/// Lane `l` reads word `l + i` in iteration `i`.
fn chain_state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for l in 0..64 {
        s.vgpr[3][l] = 1000 + l as u32;
        s.vgpr[4][l] = 7 * l as u32;
        s.vgpr[5][l] = 0xDEAD_BEEF;
        s.vgpr[6][l] = GLOBAL as u32 + 4 * l as u32;
        s.vgpr[7][l] = 0;
    }
    s.set_exec(u64::MAX);
    s.pc = BASE;
    s
}

/// Runs the chain loop with `budget` on `engine` (every block compiled at its first run
/// under the JIT): the result, the final state, the budget left and the translator stats.
fn run_chain(
    engine: EngineKind,
    dwords: usize,
    budget: u64,
) -> (
    Result<ExitCode, ExecFault>,
    Box<WaveState>,
    u64,
    wavejit_translator::exec::TranslationStats,
) {
    let t = Translator::new(Target::new(Gpu::GFX942), engine)
        .expect("translator")
        .with_hot_threshold(0);
    let mut s = chain_state();
    let mut env = chain_env(dwords);
    let mut left = budget;
    let r = t.run(&chain_loop(), &mut s, &mut env, &mut left);
    (r, s, left, t.stats())
}

/// The two engines ended in the same state.
fn same_state(a: &WaveState, b: &WaveState) {
    assert_eq!(a.pc, b.pc);
    assert_eq!(a.sgpr, b.sgpr);
    assert_eq!(a.scc, b.scc);
    for r in 3..8 {
        assert_eq!(a.vgpr[r], b.vgpr[r], "v{r}");
    }
    assert_eq!(a.counters, b.counters);
}

#[test]
fn chained_blocks_match_the_host_and_skip_the_run_loop() {
    let (rj, sj, bj, stats) = run_chain(EngineKind::Jit, 64 + 100, 10_000);
    let (ri, si, bi, _) = run_chain(EngineKind::Interp, 64 + 100, 10_000);
    assert_eq!(rj, Ok(ExitCode::EndPgm));
    assert_eq!(ri, rj);
    // s_mov, 100 × (2 + 6), s_endpgm.
    assert_eq!(bj, 10_000 - (1 + 100 * 8 + 1));
    assert_eq!(bi, bj);
    same_state(&sj, &si);
    for l in 0..64u32 {
        let want: u32 = (0..100u32).map(|i| 3 * (l + i) + 1).sum::<u32>() + 7 * l;
        assert_eq!(sj.vgpr[4][l as usize], want, "v4 lane {l}");
        assert_eq!(sj.vgpr[3][l as usize], 1100 + l, "v3 lane {l}");
    }
    // Without chaining, each of the 201 blocks run after the first would be looked up; the
    // run loop sees `loop` twice and `mid` twice before both are linked, and the end.
    assert!(stats.cache_hits < 10, "{stats:?}");
}

#[test]
fn chained_loop_stops_where_the_budget_does() {
    // s_mov and 30 iterations fit, then `loop` (2) but not `mid` (6): the run stops at
    // `mid` with 3 left, inside the chain.
    let budget = 1 + 30 * 8 + 2 + 3;
    let (rj, sj, bj, _) = run_chain(EngineKind::Jit, 64 + 100, budget);
    let (ri, si, bi, _) = run_chain(EngineKind::Interp, 64 + 100, budget);
    assert_eq!(rj, Err(ExecFault::Runaway(budget)));
    assert_eq!(ri, rj);
    assert_eq!(sj.pc, BASE + 0x10);
    assert_eq!(bj, 3);
    assert_eq!(bi, bj);
    same_state(&sj, &si);
    assert_eq!(sj.sgpr[0], 100 - 30);
    assert_eq!(sj.vgpr[3][0], 1000 + 31);
}

#[test]
fn fault_in_a_chained_block_reports_its_pc() {
    // 64 + 40 words: iteration 41 (0-based) reads past the end in lane 63.
    let (rj, sj, bj, stats) = run_chain(EngineKind::Jit, 64 + 40, 10_000);
    let (ri, si, bi, _) = run_chain(EngineKind::Interp, 64 + 40, 10_000);
    assert!(matches!(rj, Err(ExecFault::Memory(_))), "{rj:?}");
    assert_eq!(ri, rj);
    // The global load's pc, with everything before it in that iteration done.
    assert_eq!(sj.pc, BASE + 0x10);
    assert_eq!(sj.sgpr[0], 100 - 41);
    assert_eq!(sj.vgpr[3][0], 1000 + 42);
    assert_eq!(bi, bj);
    same_state(&sj, &si);
    assert!(
        stats.cache_hits < 10,
        "the fault happened in chained code: {stats:?}"
    );
}
