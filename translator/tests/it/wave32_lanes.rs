//! What lets the runtime's dispatcher start a wave32 wave by writing lanes 0..31 only (and leave
//! lanes 32..63 of a reused state as they are): no engine's result depends on lanes 32..63
//! of a wave32 wave's registers. Random gfx1100 wave32 programs (the RDNA differential
//! fuzzer's: ALU, scalar and vector memory, LDS, branches, loops, calls; one wave each) run
//! from a random state twice, once with lanes 32..63 of every VGPR and AGPR replaced by
//! other random values, in the interpreter and in the JIT: the exit, lanes 0..31 of every
//! register, every scalar register, the counters and memory must be the same.

use wavejit_translator::difffuzz::rdna::RdnaFuzzer;
use wavejit_translator::difffuzz::{first_diff, gen, random_env, random_state, run_waves, Rng};
use wavejit_translator::exec::EngineKind;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::{WaveState, NUM_VREGS};

/// Programs run per engine.
const PROGRAMS: u64 = 50;

/// `s` with lanes `lanes` of every vector register set to random values.
fn other_lanes(s: &WaveState, lanes: std::ops::Range<usize>, rng: &mut Rng) -> Box<WaveState> {
    let mut t = WaveState::new_boxed(32);
    t.vgpr = s.vgpr;
    t.sgpr = s.sgpr;
    t.scc = s.scc;
    t.mode = s.mode;
    t.status = s.status;
    t.trapsts = s.trapsts;
    t.pc = s.pc;
    t.wave_size = s.wave_size;
    t.credit = s.credit;
    t.counters = s.counters;
    for r in 0..NUM_VREGS {
        for l in lanes.clone() {
            t.vgpr[r][l] = rng.next_u64() as u32;
        }
    }
    t
}

/// Copies lanes 32..63 of every vector register of `from` into `to`.
fn copy_high_lanes(from: &WaveState, to: &mut WaveState) {
    for r in 0..NUM_VREGS {
        to.vgpr[r][32..].copy_from_slice(&from.vgpr[r][32..]);
    }
}

#[test]
fn wave32_results_do_not_depend_on_lanes_32_to_63() {
    let target = Target {
        gpu: Gpu::GFX1100,
        wave_size: 32,
    };
    let fuzzer = RdnaFuzzer::new(Gpu::GFX1100, 32);
    let (mut ran, mut control_differs) = (0, 0);
    for seed in 0..PROGRAMS {
        let mut rng = Rng(0x3232_0000 + seed);
        let items = fuzzer.program(&mut rng);
        let code = gen::Code(gen::to_bytes(&fuzzer.layout(&items)));
        let mut state = random_state(&mut rng, 0xf0);
        state.wave_size = 32;
        let other = other_lanes(&state, 32..64, &mut rng);
        // The control: lanes 0..31 do matter (the comparison sees a difference).
        let control = other_lanes(&state, 0..32, &mut rng);
        let env = random_env(&mut rng);
        for engine in [EngineKind::Interp, EngineKind::Jit] {
            let a = run_waves(&target, &code, &[&state], &env, engine, false);
            let mut b = run_waves(&target, &code, &[&other], &env, engine, false);
            // Lanes 32..63 themselves are unspecified: compare everything else. (Same
            // engine both times: `first_diff`'s check that the JIT compiled every block is
            // for an interpreter/JIT pair, so the compile counts are matched up.)
            copy_high_lanes(&a.state, &mut b.state);
            b.compiled = b.lifted;
            if let Some(d) = first_diff(&a, &b) {
                panic!("seed {seed}, {engine:?}: lanes 32..63 changed the result: {d}");
            }
            ran += a.result.is_ok() as u32;
            if engine == EngineKind::Interp {
                let mut c = run_waves(&target, &code, &[&control], &env, engine, false);
                copy_high_lanes(&a.state, &mut c.state);
                c.compiled = c.lifted;
                control_differs += first_diff(&a, &c).is_some() as u32;
            }
        }
    }
    // Most programs end normally (the rest fault the same way in both runs).
    assert!(ran > PROGRAMS as u32, "only {ran} runs ended normally");
    assert!(
        control_differs > PROGRAMS as u32 / 2,
        "lanes 0..31 changed only {control_differs} results"
    );
}
