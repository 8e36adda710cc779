//! Loops whose loop variant runs with the host's FTZ (`jit::lower::fenv`): f32 and f64
//! FMA, multiply and add under every FP_DENORM setting, wave32 and wave64, full and partial
//! EXEC, run by the JIT (the loop chained in its own code) against the interpreter, with
//! every VGPR poisoned. The data has lanes whose products and FMAs land just below
//! MIN_NORMAL where IEEE rounding (and so the ISA's flush after it) gives MIN_NORMAL but the
//! host's FTZ gives 0, lanes that shrink into the denormals and flush, tiny sums, NaNs and
//! denormal inputs, and groups of 4 lanes of ordinary normals (the fast path). Also: the
//! MXCSR is the host's default after every run (normal exits, credit exits) and inside a
//! helper the loop calls.

use crate::lift_support::*;
use wavejit_translator::env::{AtomicOp, ExitCode, MemError, Space, WaveEnv};
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::passes::{flush, uniform};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::{mxcsr, Jit};
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

/// What the loop computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Prog {
    /// `v_fma_f32 v12, v12, v13, v14; v_mul_f32 v15, v15, v16; v_add_f32 v17, v17, v13`.
    F32,
    /// `v_fma_f64 v[0:1], v[0:1], v[2:3], v[4:5]; v_mul_f64 v[6:7], v[6:7], v[8:9];
    /// v_add_f64 v[10:11], v[10:11], v[2:3]`.
    F64,
    /// Both.
    Both,
}

/// The loop (encodings from llvm-mc-22), then `s_sub_u32 s0, s0, 1; s_cmp_lg_u32 s0, 0;
/// s_cbranch_scc1 loop; s_endpgm`; with `memtime` (gfx942 only) an `s_memtime s[2:3]`
/// in the loop (a helper call).
pub(super) fn program(gfx9: bool, prog: Prog, memtime: bool) -> Vec<u32> {
    let f64_ops: [u32; 6] = if gfx9 {
        [
            0xd1cc_0000,
            0x0412_0500,
            0xd281_0006,
            0x0002_1106,
            0xd280_000a,
            0x0002_050a,
        ]
    } else {
        [
            0xd614_0000,
            0x0412_0500,
            0xd728_0006,
            0x0002_1106,
            0xd727_000a,
            0x0002_050a,
        ]
    };
    let f32_ops: [u32; 4] = if gfx9 {
        [0xd1cb_000c, 0x043a_1b0c, 0x0a1e_210f, 0x0222_1b11]
    } else {
        [0xd613_000c, 0x043a_1b0c, 0x101e_210f, 0x0622_1b11]
    };
    let mut w = Vec::new();
    if prog != Prog::F32 {
        w.extend(f64_ops);
    }
    if prog != Prog::F64 {
        w.extend(f32_ops);
    }
    if memtime {
        assert!(gfx9);
        w.extend([0xc090_0080, 0]);
    }
    w.extend([0x8080_8100, 0xbf07_8000]);
    // s_cbranch_scc1 back to the start: offset in dwords from the next instruction.
    let back = (-(w.len() as i32 + 1)) as u16 as u32;
    let (br, end) = if gfx9 {
        (0xbf85_0000, 0xbf81_0000)
    } else {
        (0xbfa2_0000, 0xbfb0_0000)
    };
    w.extend([br | back, end]);
    w
}

/// MODE: round to nearest, DX10_CLAMP and IEEE set, FP_DENORM f32 = `d32`, f64/f16 = `d64`.
pub(super) fn mode(d32: u32, d64: u32) -> u32 {
    0x300 | d32 << 4 | d64 << 6
}

const MIN32: u32 = 0x0080_0000;
/// 1 - 2^-24: `MIN32 * ONE_BELOW32` = 2^-126 - 2^-150, which IEEE rounds (a tie, to even)
/// to MIN_NORMAL and FTZ flushes.
const ONE_BELOW32: u32 = 0x3f7f_ffff;
const MIN64: u64 = 0x0010_0000_0000_0000;
/// 1 - 2^-53 (as above for f64).
const ONE_BELOW64: u64 = 0x3fef_ffff_ffff_ffff;

pub(super) fn normal32(r: &mut Rng, e: i32) -> u32 {
    (r.next() as u32 & 0x8000_0000) | ((127 + e) as u32) << 23 | (r.next() as u32 & 0x7f_ffff)
}

pub(super) fn normal64(r: &mut Rng, e: i64) -> u64 {
    (r.next() & 1 << 63) | ((1023 + e) as u64) << 52 | (r.next() & ((1 << 52) - 1))
}

pub(super) fn set64(s: &mut WaveState, reg: usize, l: usize, x: u64) {
    s.vgpr[reg][l] = x as u32;
    s.vgpr[reg + 1][l] = (x >> 32) as u32;
}

/// Poisoned registers and the lane data (module doc); `rounds` loop iterations.
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
        let sign32 = (r.next() as u32) & 0x8000_0000;
        let sign64 = r.next() & 1 << 63;
        // Groups 0, 3, 6, ... hold ordinary normals only (the fast path); the others a
        // mix of the special cases.
        let case = if (l / 4) % 3 == 0 { 2 } else { l % 6 };
        let (a32, b32, c32, p32, q32, s32);
        let (a64, b64, c64, p64, q64, s64);
        match case {
            0 => {
                // Products and FMAs just below MIN_NORMAL every round.
                (a32, b32, c32) = (MIN32 | sign32, ONE_BELOW32, 0);
                (p32, q32, s32) = (MIN32 ^ sign32, ONE_BELOW32, normal32(&mut r, 3));
                (a64, b64, c64) = (MIN64 | sign64, ONE_BELOW64, 0);
                (p64, q64, s64) = (MIN64 ^ sign64, ONE_BELOW64, normal64(&mut r, 3));
            }
            1 => {
                // Shrinking into the denormals (then flushed, or kept).
                (a32, b32, c32) = (normal32(&mut r, -110), 0x3e80_0123, 0);
                (p32, q32, s32) = (normal32(&mut r, -112), 0x3e81_0000, normal32(&mut r, -2));
                (a64, b64, c64) = (normal64(&mut r, -1000), 0x3fd0_0000_0000_1234, 0);
                (p64, q64, s64) = (normal64(&mut r, -1004), 0x3fd0_1000_0000_0000, 1 << 62);
            }
            3 => {
                // A NaN multiplier, and a sum of two normals below MIN_NORMAL.
                let b = 0xbf80_0000 | (r.next() as u32 & 0xff); // about -1
                (a32, b32, c32) = (normal32(&mut r, 0), b, normal32(&mut r, 1));
                (p32, q32, s32) = (normal32(&mut r, 0), 0x7fc0_0001, 0x0080_0000 | 0x3ff);
                (a64, b64, c64) = (normal64(&mut r, 0), 0xbff0_0000_0000_00ff, 1 << 62);
                (p64, q64, s64) = (normal64(&mut r, 0), 0x7ff8_0000_0000_0001, MIN64 | 0x3ff);
            }
            4 => {
                // Denormal inputs, in the registers the loop rewrites (so the loop variant
                // takes over once they are flushed).
                (a32, b32, c32) = (0x0000_1234 | sign32, 0x3f00_0000, 0x3a80_0000);
                (p32, q32, s32) = (0x8040_0000, 0x3f80_0000, 0x0000_0042);
                (a64, b64, c64) = (
                    0x0000_0000_1234_5678 | sign64,
                    0x3fe0_0000_0000_0000,
                    1 << 61,
                );
                (p64, q64, s64) = (0x8008_0000_0000_0000, 0x3ff0_0000_0000_0000, 0x42);
            }
            _ => {
                (a32, b32, c32) = (
                    normal32(&mut r, -3),
                    normal32(&mut r, -1),
                    normal32(&mut r, -4),
                );
                (p32, q32, s32) = (
                    normal32(&mut r, -3),
                    0x3f80_0000 | (r.next() as u32 & 0xff),
                    normal32(&mut r, 5),
                );
                (a64, b64, c64) = (
                    normal64(&mut r, -3),
                    normal64(&mut r, -1),
                    normal64(&mut r, -4),
                );
                (p64, q64, s64) = (
                    normal64(&mut r, -3),
                    0x3ff0_0000_0000_0000 | (r.next() & 0xff),
                    normal64(&mut r, 5),
                );
            }
        }
        s.vgpr[12][l] = a32;
        s.vgpr[13][l] = b32;
        s.vgpr[14][l] = c32;
        s.vgpr[15][l] = p32;
        s.vgpr[16][l] = q32;
        s.vgpr[17][l] = s32;
        set64(&mut s, 0, l, a64);
        set64(&mut s, 2, l, b64);
        set64(&mut s, 4, l, c64);
        set64(&mut s, 6, l, p64);
        set64(&mut s, 8, l, q64);
        set64(&mut s, 10, l, s64);
    }
    s
}

/// Runs the program to `s_endpgm`: in the interpreter (`jit` None), or compiled, each
/// block run with `credit` (so the loop goes round in the compiled code); asserts the
/// MXCSR is the caller's after every compiled run.
pub(super) fn run(
    t: &Target,
    code: &Code,
    s: &mut WaveState,
    env: &mut dyn WaveEnv,
    jit: Option<&Jit>,
    credit: u64,
) {
    for _ in 0..100_000 {
        let block = lift_block(t, code, s.pc, s.mode);
        let r = match jit {
            None => run_block(&block, s, env),
            Some(j) => {
                let c = j.compile(&block).expect("the block compiles");
                s.credit = credit;
                let before = mxcsr::control();
                let r = c.run_chained(s, env);
                assert_eq!(mxcsr::control(), before, "the caller's MXCSR changed");
                r
            }
        };
        if r.expect("block runs") == ExitCode::EndPgm {
            return;
        }
    }
    panic!("program did not end");
}

/// Whether the JIT runs the loop block's variant with FTZ (as `Jit::compile` prepares it).
fn loop_takes_ftz(t: &Target, code: &Code, mode: u32) -> bool {
    let block = lift_block(t, code, CODE_BASE, mode);
    flush::loop_variant(&block).is_some_and(|v| {
        let b = uniform::fold(&v.block).unwrap_or(v.block);
        flush::ftz_ready(&b)
    })
}

/// Whether `jit` compiles the loop block in the iterated form (for a block with a loop
/// variant: the variant runs in it).
fn loop_is_iterated(t: &Target, code: &Code, mode: u32, jit: &Jit) -> bool {
    let block = lift_block(t, code, CODE_BASE, mode);
    jit.compile(&block)
        .expect("the block compiles")
        .is_iterated()
}

const TARGETS: [(Gpu, u32); 3] = [(Gpu::GFX942, 64), (Gpu::GFX1100, 32), (Gpu::GFX1100, 64)];

#[test]
fn ftz_loops_match_the_interpreter_in_every_denormal_mode() {
    let mut ftz_runs = 0;
    let mut iterated_runs = 0;
    for (gpu, wave) in TARGETS {
        let t = Target {
            gpu,
            wave_size: wave,
        };
        let jit = Jit::new().expect("JIT");
        for prog in [Prog::F32, Prog::F64, Prog::Both] {
            let code = Code::from_words(&program(gpu == Gpu::GFX942, prog, false));
            for d32 in 0..4 {
                for d64 in 0..4 {
                    let m = mode(d32, d64);
                    // FP_DENORM: 0 flushes inputs and outputs, 1 outputs, 2 inputs, 3 none.
                    let (in32, out32) = (d32 % 2 == 0 && d32 < 3, d32 < 2);
                    let (in64, out64) = (d64 % 2 == 0 && d64 < 3, d64 < 2);
                    let (flush32, flush64) = (out32, out64);
                    // A loop variant exists where the loop flushes register inputs; it runs
                    // with FTZ where every float op of the loop flushes its output.
                    let want_ftz = match prog {
                        Prog::F32 => in32 && out32,
                        Prog::F64 => in64 && out64,
                        Prog::Both => (in32 || in64) && out32 && out64,
                    };
                    let ftz = loop_takes_ftz(&t, &code, m);
                    assert_eq!(
                        ftz, want_ftz,
                        "{gpu:?} w{wave} {prog:?} d32 {d32} d64 {d64}: FTZ variant"
                    );
                    ftz_runs += usize::from(ftz);
                    // The loop (its variant with FTZ) runs all iterations per lane group.
                    if ftz {
                        assert!(
                            loop_is_iterated(&t, &code, m, &jit),
                            "{gpu:?} w{wave} {prog:?} d32 {d32} d64 {d64}: iterated form"
                        );
                        iterated_runs += 1;
                    }
                    // A long credit, and a short one that leaves the compiled loop every
                    // few iterations (mid-loop credit exits).
                    let runs = [(u64::MAX, 1 << 20), (0x0fff_ffff_ffff_fff0u64, 1 << 20)]
                        .into_iter()
                        .chain(ftz.then_some((u64::MAX, 37)));
                    for (exec, credit) in runs {
                        let seed = 0xf72_0000 + u64::from(d32 * 4 + d64) * 131 + u64::from(wave);
                        let mut s = initial(wave, seed, 24);
                        s.set_exec(exec);
                        s.mode = m;
                        let mut want = clone_state(&s);
                        let mut got = clone_state(&s);
                        let (mut m1, mut m2) = (Mem::new(0), Mem::new(0));
                        run(&t, &code, &mut want, &mut m1, None, 0);
                        run(&t, &code, &mut got, &mut m2, Some(&jit), credit);
                        let what = format!(
                            "{gpu:?} w{wave} {prog:?} d32 {d32} d64 {d64} exec {exec:x} credit {credit}"
                        );
                        // The data reaches the case FTZ alone gets wrong: a flushed product
                        // or FMA that IEEE rounds up to MIN_NORMAL.
                        if flush32 && prog != Prog::F64 {
                            let band = (0..wave as usize)
                                .filter(|&l| exec >> l & 1 == 1)
                                .filter(|&l| want.vgpr[15][l] & 0x7fff_ffff == MIN32)
                                .count();
                            assert!(band > 0, "{what}: no f32 product at MIN_NORMAL");
                        }
                        if flush64 && prog != Prog::F32 {
                            let band = (0..wave as usize)
                                .filter(|&l| exec >> l & 1 == 1)
                                .filter(|&l| {
                                    let x = u64::from(want.vgpr[0][l])
                                        | u64::from(want.vgpr[1][l]) << 32;
                                    x & !(1 << 63) == MIN64
                                })
                                .count();
                            assert!(band > 0, "{what}: no f64 FMA at MIN_NORMAL");
                        }
                        for reg in 0..18 {
                            assert_eq!(got.vgpr[reg], want.vgpr[reg], "{what}: v{reg} differs");
                        }
                        assert_eq!(got.sgpr[0], 0, "{what}");
                        assert_eq!(got.counters, want.counters, "{what}");
                    }
                }
            }
        }
    }
    assert!(ftz_runs >= 9, "{ftz_runs}");
    assert_eq!(iterated_runs, ftz_runs);
}

/// [`Mem`] that records the MXCSR whenever a helper asks for the clock.
pub(super) struct ClockWatch {
    pub(super) mem: Mem,
    pub(super) seen: Vec<u32>,
}

impl WaveEnv for ClockWatch {
    fn load(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        self.mem.load(space, addrs, mask, size, out)
    }
    fn store(
        &mut self,
        space: Space,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
    ) -> Result<(), MemError> {
        self.mem.store(space, addrs, mask, size, data)
    }
    fn atomic(
        &mut self,
        space: Space,
        op: AtomicOp,
        addrs: &[u64; 64],
        mask: u64,
        size: u32,
        data: &[u64; 64],
        cmp: &[u64; 64],
        out: &mut [u64; 64],
    ) -> Result<(), MemError> {
        self.mem
            .atomic(space, op, addrs, mask, size, data, cmp, out)
    }
    fn scalar_load(&mut self, addr: u64, out: &mut [u32]) -> Result<(), MemError> {
        self.mem.scalar_load(addr, out)
    }
    fn scalar_store(&mut self, addr: u64, data: &[u32]) -> Result<(), MemError> {
        self.mem.scalar_store(addr, data)
    }
    fn clock(&mut self) -> u64 {
        self.seen.push(mxcsr::read());
        self.mem.clock
    }
}

/// A helper called from the FTZ loop (`s_memtime`) sees the MXCSR without FTZ, and the
/// loop leaving its code on a short credit (every few rounds) leaves FTZ clear; results
/// match the interpreter.
#[test]
fn helpers_and_credit_exits_see_the_default_mxcsr() {
    let t = Target {
        gpu: Gpu::GFX942,
        wave_size: 64,
    };
    let code = Code::from_words(&program(true, Prog::Both, true));
    let m = mode(0, 0);
    assert!(loop_takes_ftz(&t, &code, m), "the loop runs with FTZ");
    let jit = Jit::new().expect("JIT");
    let before = mxcsr::read();
    for credit in [1 << 20, 23] {
        let mut s = initial(64, 0x6e1f + credit, 30);
        s.set_exec(u64::MAX);
        s.mode = m;
        let mut want = clone_state(&s);
        let mut got = clone_state(&s);
        let mut m1 = ClockWatch {
            mem: Mem::new(0),
            seen: Vec::new(),
        };
        let mut m2 = ClockWatch {
            mem: Mem::new(0),
            seen: Vec::new(),
        };
        run(&t, &code, &mut want, &mut m1, None, 0);
        run(&t, &code, &mut got, &mut m2, Some(&jit), credit);
        assert!(m2.seen.len() >= 30, "{} clock reads", m2.seen.len());
        assert!(
            m2.seen.iter().all(|&x| x & mxcsr::FTZ == 0),
            "a helper saw FTZ set: {:x?}",
            m2.seen
        );
        for reg in 0..18 {
            assert_eq!(
                got.vgpr[reg], want.vgpr[reg],
                "credit {credit}: v{reg} differs"
            );
        }
        assert_eq!(got.sgpr[..4], want.sgpr[..4], "credit {credit}");
    }
    assert_eq!(mxcsr::read() & mxcsr::FTZ, before & mxcsr::FTZ);
}
