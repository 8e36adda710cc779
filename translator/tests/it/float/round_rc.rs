//! Loops under a directed MODE.FP_ROUND, which the JIT runs under the host's MXCSR.RC
//! (`jit::lower::fenv`): f32 and f64 FMA, multiply and add in every rounding direction ×
//! FP_DENORM setting, wave32 and wave64, full and partial EXEC, run by the JIT (the loop
//! chained in its own code) against the interpreter, with every VGPR poisoned. The lane
//! data sits on rounding boundaries: overflow (±∞ or ±MAX by direction), results just
//! below the smallest denormal and at MIN_NORMAL, ties, exact results, exact-zero sums and
//! FMAs (−0 toward −∞), NaN and infinite operands, denormal inputs and results, and groups
//! of ordinary normals. Mixed f32/f64 directions keep the block at round-to-nearest (the
//! exact-error path of `jit::lower::round`). Also: helpers and the code after a run see
//! the caller's MXCSR, also when the caller itself runs with FTZ and a directed RC.

use super::flush_ftz::{mode, normal32, normal64, program, run, set64, ClockWatch, Prog};
use crate::lift_support::*;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::Round;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::{host_round, mxcsr, Jit};
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

const TARGETS: [(Gpu, u32); 3] = [(Gpu::GFX942, 64), (Gpu::GFX1100, 32), (Gpu::GFX1100, 64)];

/// MODE.FP_ROUND field value of a direction (f32 in bits 1:0, f64/f16 in bits 3:2).
fn field(rm: Round) -> u32 {
    Round::ALL.iter().position(|&r| r == rm).unwrap_or(0) as u32
}

/// Poisoned registers and the lane data (module doc) for `rounds` loop iterations. The
/// loop computes `v12 = v12·v13 + v14`, `v15 *= v16`, `v17 += v13` (f32) and
/// `v[0:1] = v[0:1]·v[2:3] + v[4:5]`, `v[6:7] *= v[8:9]`, `v[10:11] += v[2:3]` (f64).
fn initial(wave: u32, seed: u64, rounds: u32) -> Box<WaveState> {
    let mut r = Rng(seed);
    let mut s = WaveState::new_boxed(wave);
    for reg in s.vgpr.iter_mut() {
        for v in reg.iter_mut() {
            *v = r.next() as u32; // poison
        }
    }
    s.pc = CODE_BASE;
    s.sgpr[0] = rounds;
    for l in 0..64 {
        let sg32 = (r.next() as u32) & 0x8000_0000;
        let sg64 = r.next() & 1 << 63;
        // Groups 0, 3, 6, ... hold ordinary normals only; the others the boundary cases.
        let case = if (l / 4) % 3 == 0 { 6 } else { l % 6 };
        let x32: [u32; 6];
        let x64: [u64; 6];
        match case {
            0 => {
                // Overflow: ±MAX·(1 + 2^-23) + 1, 2^127·2, MAX + (1 + 2^-23).
                x32 = [
                    0x7f7f_fff0 | sg32,
                    0x3f80_0001,
                    0x3f80_0000,
                    0x7f00_0000 ^ sg32,
                    0x4000_0000,
                    0x7f7f_ffff | sg32,
                ];
                x64 = [
                    0x7fef_ffff_ffff_fff0 | sg64,
                    0x3ff0_0000_0000_0001,
                    0x3ff0_0000_0000_0000,
                    0x7fe0_0000_0000_0000 ^ sg64,
                    0x4000_0000_0000_0000,
                    0x7fef_ffff_ffff_ffff | sg64,
                ];
            }
            1 => {
                // Shrinking through the denormals; sums of normals.
                x32 = [
                    normal32(&mut r, -120),
                    0x3e80_0123,
                    0,
                    normal32(&mut r, -125),
                    0x3f40_0001,
                    normal32(&mut r, 3),
                ];
                x64 = [
                    normal64(&mut r, -1016),
                    0x3fd0_0000_0000_1234,
                    0,
                    normal64(&mut r, -1020),
                    0x3fe8_0000_0000_0001,
                    normal64(&mut r, 3),
                ];
            }
            2 => {
                // Ties: a·1.5 + half an ulp at 1; (1 + 2^-12)(1 + 2^-12) and the f64 twin
                // end in exactly half an ulp; 1 + 1.5 is exact.
                let a32 = 0x3f80_0000 | (r.next() as u32 & 0x3ff) << 13;
                let a64 = 0x3ff0_0000_0000_0000 | (r.next() & 0x3ff) << 42;
                x32 = [
                    a32 | sg32,
                    0x3fc0_0000,
                    0x3380_0000,
                    0x3f80_0800 | sg32,
                    0x3f80_0800,
                    0x3f80_0000,
                ];
                x64 = [
                    a64 | sg64,
                    0x3ff8_0000_0000_0000,
                    0x3ca0_0000_0000_0000,
                    0x3ff0_0000_0400_0000 | sg64,
                    0x3ff0_0000_0200_0000,
                    0x3ff0_0000_0000_0000,
                ];
            }
            3 => {
                // Exact zeros: a·2 + (−2a), 1.5·(−0), −2 + 2.
                let a32 = normal32(&mut r, 2) & 0x7fff_ffff | sg32;
                let a64 = normal64(&mut r, 2) & !(1 << 63) | sg64;
                x32 = [
                    a32,
                    0x4000_0000,
                    (a32 + (1 << 23)) ^ 0x8000_0000,
                    0x3fc0_0000 | sg32,
                    0x8000_0000,
                    0xc000_0000,
                ];
                x64 = [
                    a64,
                    0x4000_0000_0000_0000,
                    (a64 + (1 << 52)) ^ 1 << 63,
                    0x3ff8_0000_0000_0000 | sg64,
                    1 << 63,
                    0xc000_0000_0000_0000,
                ];
            }
            4 => {
                // A signalling NaN addend, an infinite multiplier, an infinite sum.
                x32 = [
                    normal32(&mut r, 0),
                    normal32(&mut r, 0),
                    0x7fa0_0000,
                    normal32(&mut r, 1),
                    0xff80_0000,
                    0x7f80_0000 | sg32,
                ];
                x64 = [
                    normal64(&mut r, 0),
                    normal64(&mut r, 0),
                    0x7ff4_0000_0000_0000,
                    normal64(&mut r, 1),
                    0xfff0_0000_0000_0000,
                    0x7ff0_0000_0000_0000 | sg64,
                ];
            }
            5 => {
                // Denormals: a product below the smallest denormal plus a denormal;
                // MIN_NORMAL·(1 − 2^-24) (a tie at MIN_NORMAL); denormal + denormal.
                x32 = [
                    normal32(&mut r, -100),
                    0x0000_0321,
                    0x8000_1000 ^ sg32,
                    0x0080_0000 | sg32,
                    0x3f7f_ffff,
                    0x0000_1234 | sg32,
                ];
                x64 = [
                    normal64(&mut r, -600),
                    0x321,
                    0x8000_0000_0000_1000 ^ sg64,
                    0x0010_0000_0000_0000 | sg64,
                    0x3fef_ffff_ffff_ffff,
                    0x0000_0000_1234_5678 | sg64,
                ];
            }
            _ => {
                x32 = [
                    normal32(&mut r, -3),
                    normal32(&mut r, -1),
                    normal32(&mut r, -4),
                    normal32(&mut r, -3),
                    0x3f80_0000 | (r.next() as u32 & 0xff),
                    normal32(&mut r, 5),
                ];
                x64 = [
                    normal64(&mut r, -3),
                    normal64(&mut r, -1),
                    normal64(&mut r, -4),
                    normal64(&mut r, -3),
                    0x3ff0_0000_0000_0000 | (r.next() & 0xff),
                    normal64(&mut r, 5),
                ];
            }
        }
        for (k, v) in x32.into_iter().enumerate() {
            s.vgpr[12 + k][l] = v;
        }
        for (k, v) in x64.into_iter().enumerate() {
            set64(&mut s, 2 * k, l, v);
        }
    }
    s
}

/// The loop block as the JIT compiles it, and the direction it runs under as RC.
fn loop_rc(t: &Target, code: &Code, mode: u32) -> Option<Round> {
    host_round(&lift_block(t, code, CODE_BASE, mode))
}

#[test]
fn rc_loops_match_the_interpreter_in_every_round_and_denormal_mode() {
    let mut rc_runs = 0;
    let rounds = [
        (Round::Zero, Round::Zero),
        (Round::Up, Round::Up),
        (Round::Down, Round::Down),
        (Round::NearestEven, Round::NearestEven),
        (Round::Zero, Round::Up),
    ];
    for (gpu, wave) in TARGETS {
        let t = Target {
            gpu,
            wave_size: wave,
        };
        let jit = Jit::new().expect("JIT");
        for prog in [Prog::F32, Prog::F64, Prog::Both] {
            let code = Code::from_words(&program(gpu == Gpu::GFX942, prog, false));
            for (r32, r64) in rounds {
                for d in 0..4 {
                    let m = mode(d, d) | field(r32) | field(r64) << 2;
                    // RC where every directed rounding of the loop goes one way.
                    let want_rc = match prog {
                        Prog::F32 => Some(r32),
                        Prog::F64 => Some(r64),
                        Prog::Both => (r32 == r64).then_some(r32),
                    }
                    .filter(|&r| r != Round::NearestEven && mxcsr::AVAILABLE);
                    let what = format!("{gpu:?} w{wave} {prog:?} {r32:?}/{r64:?} denorm {d}");
                    assert_eq!(loop_rc(&t, &code, m), want_rc, "{what}: RC");
                    rc_runs += usize::from(want_rc.is_some());
                    for exec in [u64::MAX, 0x0fff_ffff_ffff_fff0u64] {
                        let seed = 0x7c_0000 + u64::from(d) * 131 + u64::from(wave) + exec % 7;
                        let mut s = initial(wave, seed, 5);
                        s.set_exec(exec);
                        s.mode = m;
                        let mut want = clone_state(&s);
                        let mut got = clone_state(&s);
                        let (mut m1, mut m2) = (Mem::new(0), Mem::new(0));
                        run(&t, &code, &mut want, &mut m1, None, 0);
                        run(&t, &code, &mut got, &mut m2, Some(&jit), 1 << 20);
                        for reg in 0..18 {
                            assert_eq!(
                                got.vgpr[reg], want.vgpr[reg],
                                "{what} exec {exec:x}: v{reg} differs"
                            );
                        }
                        assert_eq!(got.sgpr[0], 0, "{what}");
                        assert_eq!(got.counters, want.counters, "{what}");
                    }
                }
            }
        }
    }
    assert!(rc_runs >= 60, "{rc_runs}");
}

/// The data reaches the boundaries it is meant for: in one direction the f32 overflow
/// gives MAX and +∞ in lanes of the same case, and ties and exact zeros round apart.
#[test]
fn rc_loop_data_reaches_the_rounding_boundaries() {
    let t = Target {
        gpu: Gpu::GFX1100,
        wave_size: 32,
    };
    let code = Code::from_words(&program(false, Prog::F32, false));
    let jit = Jit::new().expect("JIT");
    let mut results = Vec::new();
    for rm in [Round::Up, Round::Zero] {
        let mut s = initial(32, 0x51, 1);
        s.set_exec(u64::MAX);
        s.mode = mode(3, 3) | field(rm) | field(rm) << 2;
        run(&t, &code, &mut s, &mut Mem::new(0), Some(&jit), 1 << 20);
        results.push(s);
    }
    let (up, zero) = (&results[0], &results[1]);
    // Case 0 lanes (l % 6 == 0, outside the all-normal groups): positive overflow.
    let lanes: Vec<usize> = (0..32).filter(|l| l % 6 == 0 && (l / 4) % 3 != 0).collect();
    assert!(!lanes.is_empty());
    for &l in &lanes {
        let (u, z) = (up.vgpr[15][l], zero.vgpr[15][l]);
        assert_eq!(
            u & 0x7fff_ffff,
            if u >> 31 == 0 {
                0x7f80_0000
            } else {
                0x7f7f_ffff
            },
            "lane {l}"
        );
        assert_eq!(z & 0x7fff_ffff, 0x7f7f_ffff, "lane {l}");
    }
    // Case 2 lanes: the product of (1 + 2^-12)² is a tie, rounded up and down.
    for l in (0..32).filter(|l| l % 6 == 2 && (l / 4) % 3 != 0) {
        let away = if up.vgpr[15][l] >> 31 == 0 { 1 } else { 0 };
        assert_eq!(up.vgpr[15][l] & 0x7fff_ffff, 0x3f80_1000 + away, "lane {l}");
        assert_eq!(zero.vgpr[15][l] & 0x7fff_ffff, 0x3f80_1000, "lane {l}");
    }
}

/// A helper called from code running under RC (`s_memtime`) sees the caller's MXCSR, the
/// MXCSR after every run (normal and credit exits) is the caller's, and the results match
/// the interpreter — also when the caller runs with FTZ and RC toward +∞ itself (the block
/// sets both fields on entry). A flush-mode FTZ loop leaves a caller's FTZ set.
#[test]
fn helpers_and_exits_keep_the_callers_mxcsr() {
    let t = Target {
        gpu: Gpu::GFX942,
        wave_size: 64,
    };
    let code = Code::from_words(&program(true, Prog::Both, true));
    let jit = Jit::new().expect("JIT");
    let rz = mode(3, 3) | field(Round::Zero) | field(Round::Zero) << 2;
    assert_eq!(
        loop_rc(&t, &code, rz),
        mxcsr::AVAILABLE.then_some(Round::Zero)
    );
    let default = mxcsr::control();
    for caller in [default, default | mxcsr::FTZ | mxcsr::rc_bits(Round::Up)] {
        for credit in [1 << 20, 23] {
            let mut s = initial(64, 0x6e1f + credit, 30);
            s.set_exec(u64::MAX);
            s.mode = rz;
            let mut want = clone_state(&s);
            let mut got = clone_state(&s);
            let mut m1 = Mem::new(0);
            let mut m2 = ClockWatch {
                mem: Mem::new(0),
                seen: Vec::new(),
            };
            run(&t, &code, &mut want, &mut m1, None, 0);
            mxcsr::set_env(caller);
            run(&t, &code, &mut got, &mut m2, Some(&jit), credit);
            let after = mxcsr::control();
            mxcsr::set_env(default);
            assert_eq!(after, caller, "credit {credit}: MXCSR after the run");
            assert!(m2.seen.len() >= 30, "{} clock reads", m2.seen.len());
            assert!(
                m2.seen.iter().all(|&x| x & !mxcsr::STATUS_FLAGS == caller),
                "caller {caller:x}: a helper saw {:x?}",
                m2.seen
            );
            for reg in 0..18 {
                assert_eq!(
                    got.vgpr[reg], want.vgpr[reg],
                    "caller {caller:x} credit {credit}: v{reg} differs"
                );
            }
        }
    }
    // The FTZ loop variant (flush mode, nearest) under a caller with FTZ set: helpers see
    // it and it is still set afterwards.
    let flush = mode(0, 0);
    let mut s = initial(64, 0x77, 30);
    s.set_exec(u64::MAX);
    s.mode = flush;
    let mut m2 = ClockWatch {
        mem: Mem::new(0),
        seen: Vec::new(),
    };
    let caller = default | mxcsr::FTZ;
    mxcsr::set_env(caller);
    run(&t, &code, &mut s, &mut m2, Some(&jit), 1 << 20);
    let after = mxcsr::control();
    mxcsr::set_env(default);
    assert_eq!(after, caller, "FTZ loop: MXCSR after the run");
    assert!(m2.seen.len() >= 30);
    assert!(m2.seen.iter().all(|&x| x & !mxcsr::STATUS_FLAGS == caller));
}

/// The interpreter alone, for reference: a directed loop and its nearest twin differ
/// (the data is not all exact).
#[test]
fn directed_and_nearest_results_differ() {
    let t = Target {
        gpu: Gpu::GFX1100,
        wave_size: 64,
    };
    let code = Code::from_words(&program(false, Prog::Both, false));
    let mut out = Vec::new();
    for rm in [Round::NearestEven, Round::Down] {
        let mut s = initial(64, 0x99, 5);
        s.set_exec(u64::MAX);
        s.mode = mode(3, 3) | field(rm) | field(rm) << 2;
        for _ in 0..100 {
            let b = lift_block(&t, &code, s.pc, s.mode);
            if run_block(&b, &mut s, &mut Mem::new(0)).expect("runs")
                == wavejit_translator::env::ExitCode::EndPgm
            {
                break;
            }
        }
        out.push(s);
    }
    let differ = (0..18)
        .filter(|&r| out[0].vgpr[r] != out[1].vgpr[r])
        .count();
    // Of the 9 registers the loop writes (v12, v15, v17, v[0:1], v[6:7], v[10:11]).
    assert!(differ >= 6, "{differ} registers differ");
}
