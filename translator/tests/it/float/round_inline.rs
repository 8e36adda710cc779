//! The JIT's in-line directed roundings against the interpreter (`sem::round`, itself
//! checked against an exact oracle in `float::round`): f32 and f64 add, sub, mul and fma
//! toward +∞, −∞ and zero, on random operands of moderate size and on specials (denormals,
//! values near MIN_NORMAL and MAX, ties, cancellations, infinities, NaNs, signed zeros), in
//! both the lane-group and the straight-line form, wave64 and wave32, with all lanes and
//! with a partial write mask (outputs poisoned). Each op runs in a block of its own, which
//! runs under the host's MXCSR.RC (`jit/lower/fenv.rs`, checked with `host_round`), and
//! next to the same op in another direction, which keeps the block at round-to-nearest and
//! the exact-error formulas of `jit/lower/round.rs`. The cold-lane counter shows the
//! in-line path is the one taken: operands of moderate size never reach the lane function.

use crate::lift_support::*;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{Block, ConvOp, Exit, LaneFn, Op, Round, RoundedOp, Ty, Val};
use wavejit_translator::jit::{host_round, mxcsr, rounded_cold_lanes, Jit};
use wavejit_translator::wave::WaveState;

const OPS: [RoundedOp; 8] = [
    RoundedOp::AddF32,
    RoundedOp::SubF32,
    RoundedOp::MulF32,
    RoundedOp::FmaF32,
    RoundedOp::AddF64,
    RoundedOp::SubF64,
    RoundedOp::MulF64,
    RoundedOp::FmaF64,
];

const MODES: [Round; 3] = [Round::Up, Round::Down, Round::Zero];

fn wide(op: RoundedOp) -> bool {
    matches!(
        op,
        RoundedOp::AddF64 | RoundedOp::SubF64 | RoundedOp::MulF64 | RoundedOp::FmaF64
    )
}

fn arity(op: RoundedOp) -> usize {
    if matches!(op, RoundedOp::FmaF32 | RoundedOp::FmaF64) {
        3
    } else {
        2
    }
}

/// A direction other than `rm` (a second op in it keeps the block off the host's RC).
fn other(rm: Round) -> Round {
    if rm == Round::Zero {
        Round::Up
    } else {
        Round::Zero
    }
}

/// Operands in v1, v2, v3 (f32) or v[2:3], v[4:5], v[6:7] (f64); the result, written under
/// `mask`, in v10 (f32) or v[10:11] (f64); with `mixed`, the op in [`other`] direction
/// too, in v12 (f32) or v[12:13]; a wave of `wave` lanes.
fn block(op: RoundedOp, rm: Round, mask: u64, mixed: bool, wave: u32) -> Block {
    let mut ops = Vec::new();
    let mut types = Vec::new();
    let mut push = |op: Op, ty: Option<Ty>| {
        ops.push(op);
        types.push(ty);
        Val((ops.len() - 1) as u32)
    };
    let m = push(
        Op::Const {
            ty: Ty::S64,
            bits: mask,
        },
        Some(Ty::S64),
    );
    let mut args = Vec::new();
    for i in 0..arity(op) as u16 {
        let a = if wide(op) {
            let lo = push(Op::GetVgpr(2 + 2 * i), Some(Ty::V32));
            let hi = push(Op::GetVgpr(3 + 2 * i), Some(Ty::V32));
            push(Op::Pack { lo, hi }, Some(Ty::V64))
        } else {
            push(Op::GetVgpr(1 + i), Some(Ty::V32))
        };
        args.push(a);
    }
    let rty = if wide(op) { Ty::V64 } else { Ty::V32 };
    let outs: &[(Round, u16)] = if mixed {
        &[(rm, 10), (other(rm), 12)]
    } else {
        &[(rm, 10)]
    };
    for &(dir, reg) in outs {
        let r = push(
            Op::Lane {
                f: LaneFn::Rounded(op, dir, false),
                args: args.clone(),
            },
            Some(rty),
        );
        let vals = if wide(op) {
            vec![
                push(Op::Conv(ConvOp::Lo, r), Some(Ty::V32)),
                push(Op::Conv(ConvOp::Hi, r), Some(Ty::V32)),
            ]
        } else {
            vec![r]
        };
        for (k, val) in vals.into_iter().enumerate() {
            push(
                Op::SetVgpr {
                    reg: reg + k as u16,
                    val,
                    mask: m,
                },
                None,
            );
        }
    }
    Block {
        start_pc: CODE_BASE,
        end_pc: CODE_BASE + 4,
        inst_count: 1,
        class_counts: Default::default(),
        wave_size: wave,
        ops,
        types,
        exit: Exit::EndPgm,
    }
}

/// A random f32 of moderate size (exponent within ±20): sums, products and fmas of such
/// values stay far from the subnormal range and from overflow.
fn moderate32(r: &mut Rng) -> u32 {
    let e = 127 - 20 + (r.next() % 41) as u32;
    (r.next() as u32 & 0x8000_0000) | e << 23 | (r.next() as u32 & 0x7f_ffff)
}

fn moderate64(r: &mut Rng) -> u64 {
    let e = 1023 - 60 + r.next() % 121;
    (r.next() & 1 << 63) | e << 52 | (r.next() & ((1 << 52) - 1))
}

/// A random f32, often a special value, a boundary or a value with few mantissa bits (ties).
fn special32(r: &mut Rng) -> u32 {
    let sign = r.next() as u32 & 0x8000_0000;
    let mant = r.next() as u32 & 0x7f_ffff;
    sign | match r.next() % 12 {
        0 => mant.max(1),                                             // denormal
        1 => 0,                                                       // zero
        2 => 0x7f80_0000,                                             // infinity
        3 => 0x7fc0_0000 | mant,                                      // quiet NaN
        4 => 0x7f80_0000 | (mant & 0x3f_ffff).max(1),                 // signalling NaN
        5 => 0x0080_0000 | (mant & 0xff),                             // just above MIN_NORMAL
        6 => 0x7f7f_ffff - (mant & 0xf),                              // near MAX
        7 => (127 + (r.next() % 9) as u32) << 23 | (mant & 0x7ff000), // few bits: ties
        8 => (1 + (r.next() % 30) as u32) << 23 | mant,               // small normals
        9 => (220 + (r.next() % 34) as u32) << 23 | mant,             // large normals
        _ => moderate32(r) & 0x7fff_ffff,
    }
}

fn special64(r: &mut Rng) -> u64 {
    let sign = r.next() & 1 << 63;
    let mant = r.next() & ((1 << 52) - 1);
    sign | match r.next() % 12 {
        0 => mant.max(1),
        1 => 0,
        2 => 0x7ff0 << 48,
        3 => 0x7ff8 << 48 | mant,
        4 => 0x7ff0 << 48 | (mant & ((1 << 51) - 1)).max(1),
        5 => 1 << 52 | (mant & 0xffff),
        6 => 0x7fef_ffff_ffff_ffff - (mant & 0xf),
        7 => (1023 + r.next() % 9) << 52 | (mant & !((1 << 30) - 1)),
        8 => (1 + r.next() % 100) << 52 | mant,
        9 => (1900 + r.next() % 146) << 52 | mant,
        _ => moderate64(r) & !(1 << 63),
    }
}

/// Fills the operands (with, now and then, `b = ±a` for cancellations and exact zeros) and
/// poisons the result registers.
fn fill(s: &mut WaveState, op: RoundedOp, special: bool, r: &mut Rng) {
    for l in 0..64 {
        let mut x = [0u64; 3];
        for v in x.iter_mut() {
            *v = match (wide(op), special) {
                (false, false) => moderate32(r) as u64,
                (false, true) => special32(r) as u64,
                (true, false) => moderate64(r),
                (true, true) => special64(r),
            };
        }
        if r.next().is_multiple_of(8) {
            let sign = if wide(op) { 1 << 63 } else { 1 << 31 };
            x[1] = x[0] ^ ((r.next() & 1) * sign);
            x[2] = x[0] ^ ((r.next() & 1) * sign);
        }
        for (i, v) in x.iter().enumerate() {
            if wide(op) {
                s.vgpr[2 + 2 * i][l] = *v as u32;
                s.vgpr[3 + 2 * i][l] = (*v >> 32) as u32;
            } else {
                s.vgpr[1 + i][l] = *v as u32;
            }
        }
        s.vgpr[10][l] = 0xdead_beef;
        s.vgpr[11][l] = 0xbad0_f00d;
        s.vgpr[12][l] = 0x5eed_f00d;
        s.vgpr[13][l] = 0xfeed_beef;
    }
}

/// Runs every op × direction × write mask × wave size × form × host RC or not on operands
/// from `fill`; returns how many lanes took the cold path.
fn check_all(special: bool, seeds: u64) -> u64 {
    let jits = [
        ("lane-group", Jit::new().expect("JIT")),
        (
            "straight-line",
            Jit::new().expect("JIT").without_loop_form(),
        ),
    ];
    let cold_before = rounded_cold_lanes();
    for op in OPS {
        for rm in MODES {
            for (mask, wave, mixed) in [
                (u64::MAX, 64, false),
                (EXEC_PARTIAL, 64, false),
                (EXEC_PARTIAL, 32, false),
                (u64::MAX, 64, true),
                (EXEC_PARTIAL, 32, true),
            ] {
                let blk = block(op, rm, mask, mixed, wave);
                wavejit_translator::ir::verify(&blk).expect("block verifies");
                let rc = (mxcsr::AVAILABLE && !mixed).then_some(rm);
                assert_eq!(host_round(&blk), rc, "{op:?} {rm:?} mixed {mixed}");
                for (form, jit) in &jits {
                    let compiled = jit.compile(&blk).expect("the block compiles");
                    assert_eq!(compiled.is_grouped(), *form == "lane-group", "{form}");
                    for seed in 0..seeds {
                        let mut r = Rng(0x0d1e_c7ed ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
                        let mut want = random_state(seed + 11, u64::MAX);
                        want.wave_size = wave;
                        want.set_exec(u64::MAX);
                        fill(&mut want, op, special, &mut r);
                        let mut got = clone_state(&want);
                        let mut mem = Mem::new(0);
                        let a = run_block(&blk, &mut want, &mut mem).expect("interpreter");
                        let before = mxcsr::control();
                        let b = compiled.run(&mut got, &mut mem).expect("JIT");
                        assert_eq!(mxcsr::control(), before, "the caller's MXCSR changed");
                        assert_eq!(a, b);
                        for reg in [10, 11, 12, 13] {
                            for l in 0..64 {
                                assert_eq!(
                                    got.vgpr[reg][l],
                                    want.vgpr[reg][l],
                                    "{op:?} {rm:?} {form} w{wave} mixed {mixed} mask {mask:#x} \
                                     seed {seed}: v{reg} lane \
                                     {l}, operands {:#x} {:#x} {:#x} {:#x} {:#x} {:#x}",
                                    want.vgpr[1][l],
                                    want.vgpr[2][l],
                                    want.vgpr[3][l],
                                    want.vgpr[4][l],
                                    want.vgpr[5][l],
                                    want.vgpr[6][l],
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    rounded_cold_lanes() - cold_before
}

#[test]
fn moderate_operands_round_in_line_without_the_lane_function() {
    let cold = check_all(false, 6);
    assert_eq!(cold, 0, "lanes of moderate operands took the cold path");
}

#[test]
fn specials_match_the_interpreter_through_the_cold_path() {
    let cold = check_all(true, 8);
    // The counter counts: NaN and infinite operands must have reached the lane function.
    assert!(cold > 1000, "only {cold} cold lanes");
}
