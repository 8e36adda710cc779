//! Profiling mode of the run loop (`Translator::profiling`: one-instruction blocks, each
//! counted with the lanes active before it) on the two constructs that change block
//! formation: an `s_cbranch_execz` region (kept in the branch's block normally) and
//! `s_setvskip` (MODE.VSKIP, part of the block key). Against the normal run loop: the same
//! final state and counters under both engines; and the counts the programs give by
//! construction (words from llvm-mc-22).

use crate::lift_support::*;
use wavejit_translator::env::ExitCode;
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::profile::PcCount;
use wavejit_translator::wave::WaveState;

/// Runs `s` to `s_endpgm` through a [`Translator`] (the JIT compiling every block on first
/// use); returns the final state and the per-pc counts (empty unless `profiling`).
fn run_loop(
    t: &Target,
    code: &Code,
    s: &WaveState,
    engine: EngineKind,
    profiling: bool,
) -> (Box<WaveState>, Vec<PcCount>) {
    let mut tr = Translator::new(*t, engine).unwrap().with_hot_threshold(0);
    if profiling {
        tr = tr.profiling();
    }
    let mut st = clone_state(s);
    let mut mem = Mem::new(256);
    let mut budget = 10_000;
    assert_eq!(
        tr.run(code, &mut st, &mut mem, &mut budget),
        Ok(ExitCode::EndPgm)
    );
    (st, tr.profile_counts())
}

/// Checks profiling against the normal loop for both engines; returns the profile.
fn profile_matches_normal(t: &Target, code: &Code, s: &WaveState) -> Vec<PcCount> {
    let (normal, none) = run_loop(t, code, s, EngineKind::Interp, false);
    assert!(none.is_empty());
    let mut first: Option<Vec<PcCount>> = None;
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        let (p, counts) = run_loop(t, code, s, engine, true);
        assert_eq!(p.vgpr, normal.vgpr, "{engine:?}");
        assert_eq!(p.sgpr, normal.sgpr, "{engine:?}");
        assert_eq!((p.scc, p.mode, p.pc), (normal.scc, normal.mode, normal.pc));
        assert_eq!(p.counters, normal.counters, "{engine:?}");
        let total: u64 = counts.iter().map(|c| c.count).sum();
        assert_eq!(total, normal.counters.by_class.iter().sum::<u64>());
        match &first {
            None => first = Some(counts),
            Some(f) => assert_eq!(f, &counts, "{engine:?}"),
        }
    }
    first.unwrap()
}

fn pc(off: u64) -> u64 {
    CODE_BASE + off
}

#[test]
fn execz_region_runs_as_a_branch() {
    let words = [
        0xbe88200a, // s_and_saveexec_b64 s[8:9], s[10:11]
        0xbf880002, // s_cbranch_execz .L1 (+8)
        0x68020287, // v_add_u32_e32 v1, 7, v1
        0x7e040301, // v_mov_b32_e32 v2, v1
        0x87fe087e, // .L1: s_or_b64 exec, exec, s[8:9]
        0xbf810000, // s_endpgm
    ];
    let code = Code::from_words(&words);
    let t = Target::new(Gpu::GFX942);
    let exec = EXEC_PARTIAL;
    let all = u64::from(exec.count_ones());
    for cond in [0x00FF_0000_0000_8F01u64, 0x0F0F_0000_0000_0000] {
        let mut s = random_state(7, exec);
        s.set_sgpr64(10, cond);
        let inner = exec & cond;
        let lanes = u64::from(inner.count_ones());
        let ran = u64::from(inner != 0);
        let counts = profile_matches_normal(&t, &code, &s);
        let want: Vec<(u64, u64, u64)> = [
            (0, 1, all),
            (4, 1, lanes),
            (8, ran, ran * lanes),
            (12, ran, ran * lanes),
            (16, 1, lanes),
            (20, 1, all),
        ]
        .into_iter()
        .filter(|w| w.1 != 0)
        .collect();
        let got: Vec<(u64, u64, u64)> = counts
            .iter()
            .map(|c| (c.pc - CODE_BASE, c.count, c.active_lanes))
            .collect();
        assert_eq!(got, want, "condition {cond:#x}");
    }
}

#[test]
fn vskip_skipped_instructions_are_counted_once_each() {
    #[rustfmt::skip]
    let words = [
        0xbf100100, // s_setvskip s0, s1            (VSKIP = 1)
        0x7e020287, // v_mov_b32_e32 v1, 7           skipped
        0x02060301, // v_add_f32_e32 v3, v1, v1      skipped
        0xd81a0000, 0x00000504, // ds_write_b32 v4, v5             skipped
        0xdc708000, 0x007f0506, // global_store_dword v[6:7], v5, off skipped
        0xbe850089, // s_mov_b32 s5, 9
        0xbf100200, // s_setvskip s0, s2            (VSKIP = 0)
        0x7e040285, // v_mov_b32_e32 v2, 5           runs
        0xbf810000, // s_endpgm
    ];
    let code = Code::from_words(&words);
    for gpu in [Gpu::GFX942, Gpu::GFX950] {
        let t = Target::new(gpu);
        let exec = EXEC_PARTIAL;
        let mut s = random_state(29, exec);
        s.mode = 0xf0;
        s.sgpr[0] = 0b100;
        s.sgpr[1] = 34; // S1[4:0] = 2: VSKIP = bit 2 of s0 = 1
        s.sgpr[2] = 0;
        let counts = profile_matches_normal(&t, &code, &s);
        let offs: Vec<u64> = counts.iter().map(|c| c.pc - CODE_BASE).collect();
        assert_eq!(offs, [0, 4, 8, 12, 20, 28, 32, 36, 40]);
        for c in &counts {
            assert_eq!(c.count, 1, "{:#x}", c.pc);
            assert_eq!(c.active_lanes, u64::from(exec.count_ones()));
        }
        assert_eq!(counts[0].pc, pc(0));
    }
}
