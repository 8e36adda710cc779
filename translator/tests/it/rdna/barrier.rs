//! RDNA scalar instructions that need more than one wave's state or end a wave: gfx12's
//! `s_barrier_signal_isfirst -1` and `s_get_barrier_state` in multi-wave work-groups,
//! `s_movrelsd_2_b32`, and `s_code_end` (an illegal instruction).
//!
//! Instruction words come from `llvm-mc-22 -show-encoding` (the assembly is next to each
//! word; `s_get_barrier_state` with an SGPR source is rejected by the assembler but decoded by
//! `llvm-mc-22 --disassemble`, which gave those words). Expected values are the RDNA4 ISA
//! pseudocode (ch. 16) worked by hand for the schedule the work-group runner documents
//! (`difffuzz::run_waves`: waves run in index order until they end or wait at a barrier).
//! Both engines run every program and must agree.

use wavejit_translator::difffuzz::gen::{to_bytes, Code, CODE_BASE};
use wavejit_translator::difffuzz::{first_diff, run_waves, Outcome};
use wavejit_translator::env::{ExecFault, ExitCode};
use wavejit_translator::exec::EngineKind;
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::WaveState;

const S_ENDPGM: u32 = 0xbfb0_0000;

/// A wave with every SGPR poisoned (`0xdead_0000 + n`), EXEC all lanes, `s10` = `index`.
fn wave(wave_size: u32, index: u32) -> Box<WaveState> {
    let mut s = WaveState::new_boxed(wave_size);
    for (n, v) in s.sgpr.iter_mut().enumerate() {
        *v = 0xdead_0000 + n as u32;
    }
    s.set_exec(if wave_size == 64 {
        u64::MAX
    } else {
        0xffff_ffff
    });
    s.sgpr[10] = index;
    s.sgpr[12] = 63; // BARRIER_STATE[63] is barrier -1
    s.sgpr[13] = 62; // barrier -2
    s.sgpr[124] = 0x1f; // M0[4:0] = 31
    s.scc = 0;
    s.pc = CODE_BASE;
    s
}

/// Runs `words` as a work-group of `waves` waves in both engines; they must agree.
fn run(target: Target, words: &[u32], waves: u32) -> Outcome {
    let code = Code(to_bytes(words));
    let inits: Vec<Box<WaveState>> = (0..waves).map(|i| wave(target.wave_size, i)).collect();
    let refs: Vec<&WaveState> = inits.iter().map(|s| &**s).collect();
    let env = FlatEnv::new(0x1000_0000, 64, 64, 0);
    let a = run_waves(&target, &code, &refs, &env, EngineKind::Interp, false);
    let b = run_waves(&target, &code, &refs, &env, EngineKind::Jit, false);
    assert_eq!(b.compiled, b.lifted, "every block compiles");
    assert_eq!(first_diff(&a, &b), None, "engines differ");
    a
}

/// The final states of all waves of an outcome, wave 0 first.
fn states(o: &Outcome) -> Vec<(&Result<ExitCode, ExecFault>, &WaveState)> {
    std::iter::once((&o.result, &*o.state))
        .chain(o.others.iter().map(|(r, s)| (r, &**s)))
        .collect()
}

/// `{ 9'0, signalCnt[6:0], 5'0, memberCnt[6:0], 3'0, valid }` (RDNA4 ISA 5.6.2, Table 25).
fn state_word(signaled: u32, members: u32) -> u32 {
    (signaled << 16) | (members << 4) | 1
}

#[rustfmt::skip]
const BARRIER_PROGRAM: [u32; 16] = [
    0xbe8150c1, // s_get_barrier_state s1, -1
    0xbe804fc1, // s_barrier_signal_isfirst -1
    0x98028081, // s_cselect_b32 s2, 1, 0
    0xbe8350c1, // s_get_barrier_state s3, -1
    0xbf06800a, // s_cmp_eq_u32 s10, 0
    0xbfa20009, // s_cbranch_scc1 9           (wave 0 ends here)
    0xbe8450c1, // s_get_barrier_state s4, -1
    0xbe804fc1, // s_barrier_signal_isfirst -1
    0x98058081, // s_cselect_b32 s5, 1, 0
    0xbe86500c, // s_get_barrier_state s6, s12 (63: barrier -1)
    0xbe87500d, // s_get_barrier_state s7, s13 (62: barrier -2)
    0xbe88507d, // s_get_barrier_state s8, m0  (31)
    0xbe895082, // s_get_barrier_state s9, 2
    0xbe804fc2, // s_barrier_signal_isfirst -2
    0x980b8081, // s_cselect_b32 s11, 1, 0
    S_ENDPGM,
];

#[test]
fn isfirst_and_barrier_state_across_three_waves() {
    for wave_size in [32, 64] {
        let mut t = Target::new(Gpu::GFX1200);
        t.wave_size = wave_size;
        let o = run(t, &BARRIER_PROGRAM, 3);
        let w = states(&o);
        for (i, (r, _)) in w.iter().enumerate() {
            assert_eq!(**r, Ok(ExitCode::EndPgm), "wave {i}");
        }
        // Phase 1: waves 0, 1, 2 signal in turn; three members; wave 0 is first.
        for (i, &(_, s)) in w.iter().enumerate() {
            assert_eq!(s.sgpr[1], state_word(i as u32, 3), "wave {i} s1");
            assert_eq!(s.sgpr[2], (i == 0) as u32, "wave {i} isfirst (phase 1)");
        }
        // After the release: nothing signalled; wave 0 runs first (3 members), then wave 1
        // (wave 0 has ended: 2 members), then wave 2 (wave 1 waits again).
        assert_eq!(w[0].1.sgpr[3], state_word(0, 3));
        assert_eq!(w[1].1.sgpr[3], state_word(0, 2));
        assert_eq!(w[2].1.sgpr[3], state_word(1, 2));
        // Phase 2 (waves 1 and 2): wave 1 is first.
        assert_eq!(w[1].1.sgpr[4], state_word(0, 2));
        assert_eq!(w[2].1.sgpr[4], state_word(1, 2));
        assert_eq!(w[1].1.sgpr[5], 1);
        assert_eq!(w[2].1.sgpr[5], 0);
        // Id 63 (from an SGPR) is barrier -1 (`BARRIER_STATE[id & 63]`); wave 1 reads it
        // with both waves live, wave 2 after wave 1 ended. Other ids: not valid.
        assert_eq!(w[1].1.sgpr[6], state_word(0, 2));
        assert_eq!(w[2].1.sgpr[6], state_word(0, 1));
        for (i, s) in [(1, w[1].1), (2, w[2].1)] {
            assert_eq!([s.sgpr[7], s.sgpr[8], s.sgpr[9]], [0, 0, 0], "wave {i}");
            // The trap barrier is privileged: SCC = 0.
            assert_eq!(s.sgpr[11], 0, "wave {i} isfirst -2");
        }
        // Wave 0 ended before the second phase: those registers keep their poison.
        assert_eq!(w[0].1.sgpr[4], 0xdead_0004);
        assert_eq!(w[0].1.sgpr[5], 0xdead_0005);
    }
}

#[test]
fn a_single_wave_is_not_in_a_workgroup() {
    // RDNA4 ISA 16.3: !InWorkgroup() gives SCC = 0; a one-wave work-group is not one for the
    // barrier (5.6.2: such waves treat the signal as S_NOP); its state reads as 0.
    let o = run(Target::new(Gpu::GFX1200), &BARRIER_PROGRAM, 1);
    assert_eq!(o.result, Ok(ExitCode::EndPgm));
    let s = &o.state;
    assert_eq!([s.sgpr[1], s.sgpr[2], s.sgpr[3]], [0, 0, 0]);
}

#[test]
fn movrelsd_2_indexes_source_and_destination_separately() {
    #[rustfmt::skip]
    let words = [
        0xbefd00ff, 0x0014000a, // s_mov_b32 m0, 0x14000a (dst +20, src +10)
        0xbe854407,             // s_movrelsd_2_b32 s5, s7  (ISA example: s25 = s17)
        0xbefd00ff, 0x02020000, // s_mov_b32 m0, 0x2020000  (dst +514: past the SGPRs)
        0xbe86441e,             // s_movrelsd_2_b32 s6, s30 (no write)
        0xbefd00ff, 0xfc000201, // s_mov_b32 m0, 0xfc000201 (src +513 from M0[9:0]; dst +0)
        0xbe894414,             // s_movrelsd_2_b32 s9, s20 (s533: past the SGPRs, reads 0)
        0xbefd00ff, 0x00020001, // s_mov_b32 m0, 0x20001
        0xbe8a4430,             // s_movrelsd_2_b32 s10, s48 (s12 = s49)
        S_ENDPGM,
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        for wave_size in [32, 64] {
            let mut t = Target::new(gpu);
            t.wave_size = wave_size;
            let o = run(t, &words, 1);
            assert_eq!(o.result, Ok(ExitCode::EndPgm));
            let b = wave(wave_size, 0);
            let s = &o.state;
            let mut want = b.sgpr;
            want[25] = b.sgpr[17];
            want[9] = 0;
            want[12] = b.sgpr[49];
            want[124] = 0x20001;
            assert_eq!(s.sgpr[..128], want[..128], "{gpu} wave{wave_size}");
        }
    }
}

#[test]
fn code_end_is_an_illegal_instruction() {
    // s_endpgm's padding: executing it is an illegal-instruction exception (RDNA4 ISA 16.5).
    let words = [
        0xbe8a00c1, /* s_mov_b32 s10, -1 */
        0xbf9f0000, /* s_code_end */
    ];
    for gpu in [Gpu::GFX1100, Gpu::GFX1200] {
        let o = run(Target::new(gpu), &words, 1);
        match &o.result {
            Err(ExecFault::Illegal(why)) => assert!(why.contains("s_code_end"), "{why}"),
            other => panic!("{gpu}: {other:?}"),
        }
        assert_eq!(o.state.pc, CODE_BASE + 4, "pc names the instruction");
        assert_eq!(o.state.sgpr[10], u32::MAX, "the instruction before it ran");
        let text = ExecFault::Illegal("s_code_end".into()).to_string();
        assert_eq!(text, "illegal instruction: s_code_end");
    }
}
