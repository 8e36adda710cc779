//! The IR NaN rule (`sem::nan_rule32`/`nan_rule64`: a NaN result takes the first NaN
//! operand, quieted, else the default NaN) in JIT code against the interpreter, for every
//! float op the JIT computes with host float instructions (f32 and f64 add, sub, mul, div,
//! fma, sqrt, floor, ceil, trunc, round-to-even, reciprocal): quiet and signalling NaNs of
//! both signs with payloads in every operand position, invalid operations (∞ − ∞, 0 × ∞,
//! √−x) that make the default NaN, quick and optimised tiers, lane-group and straight-line
//! forms, wave64 and wave32, all lanes and a partial write mask, result registers poisoned.
//! The lanes' results are also checked against the rule worked on the host.

use crate::lift_support::*;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{BinOp, Block, ConvOp, Exit, Op, TernOp, Ty, UnOp, Val};
use wavejit_translator::jit::{Jit, Tier};
use wavejit_translator::wave::WaveState;

/// The op under test.
#[derive(Clone, Copy, Debug)]
enum Case {
    Un(UnOp),
    Bin(BinOp),
    Fma,
}

impl Case {
    fn arity(self) -> usize {
        match self {
            Case::Un(_) => 1,
            Case::Bin(_) => 2,
            Case::Fma => 3,
        }
    }
}

const CASES: [Case; 11] = [
    Case::Un(UnOp::FSqrt),
    Case::Un(UnOp::FFloor),
    Case::Un(UnOp::FCeil),
    Case::Un(UnOp::FTrunc),
    Case::Un(UnOp::FRoundEven),
    Case::Un(UnOp::FRcp),
    Case::Bin(BinOp::FAdd),
    Case::Bin(BinOp::FSub),
    Case::Bin(BinOp::FMul),
    Case::Bin(BinOp::FDiv),
    Case::Fma,
];

/// A block computing `case` at `bits` from v1.. (f64 operand `i`: v[1+2i : 2+2i]), writing
/// the result under `mask` to v10 (f64: v[10:11]), then an integer op of the result to v12
/// so the lane-group form has a run that reads it.
fn block(case: Case, bits: u32, mask: u64, wave: u32) -> Block {
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
    let ty = if bits == 32 { Ty::V32 } else { Ty::V64 };
    let args: Vec<Val> = (0..case.arity() as u16)
        .map(|i| {
            if bits == 32 {
                push(Op::GetVgpr(1 + i), Some(Ty::V32))
            } else {
                let lo = push(Op::GetVgpr(1 + 2 * i), Some(Ty::V32));
                let hi = push(Op::GetVgpr(2 + 2 * i), Some(Ty::V32));
                push(Op::Pack { lo, hi }, Some(Ty::V64))
            }
        })
        .collect();
    let r = match case {
        Case::Un(u) => push(Op::Un(u, args[0]), Some(ty)),
        Case::Bin(b) => push(Op::Bin(b, args[0], args[1]), Some(ty)),
        Case::Fma => push(Op::Tern(TernOp::Fma, args[0], args[1], args[2]), Some(ty)),
    };
    let (lo, hi) = if bits == 32 {
        (r, None)
    } else {
        (
            push(Op::Conv(ConvOp::Lo, r), Some(Ty::V32)),
            Some(push(Op::Conv(ConvOp::Hi, r), Some(Ty::V32))),
        )
    };
    let one = push(
        Op::Const {
            ty: Ty::S32,
            bits: 0x5a5a_0001,
        },
        Some(Ty::S32),
    );
    let ones = push(Op::Broadcast(one), Some(Ty::V32));
    let x = push(Op::Bin(BinOp::Xor, lo, ones), Some(Ty::V32));
    for (reg, val) in [(10, Some(lo)), (11, hi), (12, Some(x))] {
        if let Some(val) = val {
            push(Op::SetVgpr { reg, val, mask: m }, None);
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

/// A random f32 operand: often a NaN (quiet or signalling, either sign, random payload), an
/// infinity, a zero or a negative number (the invalid operations), else an ordinary value.
fn operand32(r: &mut Rng) -> u32 {
    let sign = r.next() as u32 & 0x8000_0000;
    let mant = r.next() as u32 & 0x7f_ffff;
    sign | match r.next() % 8 {
        0 | 1 => 0x7fc0_0000 | mant,                      // quiet NaN
        2 | 3 => 0x7f80_0000 | (mant & 0x3f_ffff).max(1), // signalling NaN
        4 => 0x7f80_0000,                                 // infinity
        5 => 0,                                           // zero
        _ => (100 + (r.next() % 54) as u32) << 23 | mant, // ordinary
    }
}

/// [`operand32`] for f64.
fn operand64(r: &mut Rng) -> u64 {
    let sign = r.next() & (1 << 63);
    let mant = r.next() & ((1 << 52) - 1);
    sign | match r.next() % 8 {
        0 | 1 => 0x7ff8_0000_0000_0000 | mant,
        2 | 3 => 0x7ff0_0000_0000_0000 | (mant & ((1 << 51) - 1)).max(1),
        4 => 0x7ff0_0000_0000_0000,
        5 => 0,
        _ => (1000 + r.next() % 54) << 52 | mant,
    }
}

/// What the lanes of a case exercised: results that took operand `i`'s NaN, and default
/// NaNs made by an invalid operation.
#[derive(Default, Debug)]
struct Seen {
    nan_from: [u32; 3],
    default_nan: u32,
}

/// Runs `cases` at `bits` under every tier, form, wave size and mask against the
/// interpreter.
fn check(cases: &[Case], bits: u32) {
    let jits = [
        ("lane-group", Jit::new().expect("JIT")),
        (
            "straight-line",
            Jit::new().expect("JIT").without_loop_form(),
        ),
    ];
    for &case in cases {
        let mut seen = Seen::default();
        for mask in [u64::MAX, EXEC_PARTIAL] {
            for wave in [64u32, 32] {
                let blk = block(case, bits, mask, wave);
                wavejit_translator::ir::verify(&blk).expect("block verifies");
                for (form, jit) in &jits {
                    for tier in [Tier::Quick, Tier::Optimised] {
                        let compiled = jit.compile_at(&blk, tier).expect("the block compiles");
                        assert_eq!(
                            compiled.is_grouped(),
                            *form == "lane-group",
                            "{case:?} f{bits} {form} {tier:?}"
                        );
                        for seed in 0..4u64 {
                            let mut r =
                                Rng(0x4a11_7e57 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
                            let mut want = WaveState::new_boxed(wave);
                            want.vgpr = random_state(seed + 11, u64::MAX).vgpr;
                            want.set_exec(u64::MAX);
                            want.mode = DEFAULT_MODE;
                            want.pc = CODE_BASE;
                            for l in 0..wave as usize {
                                for i in 0..case.arity() {
                                    if bits == 32 {
                                        want.vgpr[1 + i][l] = operand32(&mut r);
                                    } else {
                                        let x = operand64(&mut r);
                                        want.vgpr[1 + 2 * i][l] = x as u32;
                                        want.vgpr[2 + 2 * i][l] = (x >> 32) as u32;
                                    }
                                }
                                for reg in 10..13 {
                                    want.vgpr[reg][l] = 0xdead_0000 | reg as u32;
                                }
                            }
                            let mut got = clone_state(&want);
                            let mut mem = Mem::new(0);
                            let a = run_block(&blk, &mut want, &mut mem).expect("interpreter");
                            let b = compiled.run(&mut got, &mut mem).expect("JIT");
                            assert_eq!(a, b);
                            for l in 0..64 {
                                for reg in 10..13 {
                                    assert_eq!(
                                        got.vgpr[reg][l],
                                        want.vgpr[reg][l],
                                        "{case:?} f{bits} {form} {tier:?} w{wave} mask {mask:#x} \
                                         seed {seed}: v{reg} lane {l}, operands {:#x} {:#x} \
                                         {:#x} {:#x} {:#x} {:#x}",
                                        want.vgpr[1][l],
                                        want.vgpr[2][l],
                                        want.vgpr[3][l],
                                        want.vgpr[4][l],
                                        want.vgpr[5][l],
                                        want.vgpr[6][l],
                                    );
                                }
                            }
                            count(&mut seen, case, bits, &want, wave, mask);
                        }
                    }
                }
            }
        }
        // The operands reached every rule: each operand position's NaN won somewhere, and
        // invalid operations made the default NaN (not for the rounding ops, which have none).
        for i in 0..case.arity() {
            assert!(seen.nan_from[i] > 0, "{case:?} f{bits}: {seen:?}");
        }
        let invalid = matches!(case, Case::Un(UnOp::FSqrt) | Case::Bin(_) | Case::Fma);
        assert_eq!(seen.default_nan > 0, invalid, "{case:?} f{bits}: {seen:?}");
    }
}

/// Counts the written lanes of `s` (after the block) by which NaN rule made them.
fn count(seen: &mut Seen, case: Case, bits: u32, s: &WaveState, wave: u32, mask: u64) {
    for l in (0..wave as usize).filter(|l| mask >> l & 1 == 1) {
        let (res, op): (u64, Vec<u64>) = if bits == 32 {
            (
                u64::from(s.vgpr[10][l]),
                (0..case.arity())
                    .map(|i| u64::from(s.vgpr[1 + i][l]))
                    .collect(),
            )
        } else {
            let w = |r: usize| u64::from(s.vgpr[r][l]) | u64::from(s.vgpr[r + 1][l]) << 32;
            (w(10), (0..case.arity()).map(|i| w(1 + 2 * i)).collect())
        };
        let (quiet, dn, is_nan): (u64, u64, fn(u64) -> bool) = if bits == 32 {
            (0x40_0000, 0x7fc0_0000, |x| {
                f32::from_bits(x as u32).is_nan()
            })
        } else {
            (1 << 51, 0x7ff8_0000_0000_0000, |x| {
                f64::from_bits(x).is_nan()
            })
        };
        match op.iter().position(|&x| is_nan(x)) {
            Some(i) => {
                // Independent of both engines: the first NaN operand, quieted.
                assert_eq!(res, op[i] | quiet, "{case:?} f{bits} lane {l}");
                seen.nan_from[i] += 1;
            }
            None if res == dn => seen.default_nan += 1,
            None => assert!(!is_nan(res), "{case:?} f{bits} lane {l}: {res:#x}"),
        }
    }
}

#[test]
fn f32_ops_apply_the_nan_rule_in_every_tier_and_form() {
    check(&CASES, 32);
}

#[test]
fn f64_ops_apply_the_nan_rule_in_every_tier_and_form() {
    check(&CASES, 64);
}
