//! Lane ops the JIT computes in line that it once handed to the per-lane helpers, against
//! the interpreter: gathers by constant lane numbers (DPP, `ds_swizzle`: `lower::lanes`),
//! the steps of f32 division (`v_div_scale_f32` on GFX9 and RDNA, value and VCC flag,
//! `v_div_fmas_f32`, `v_div_fixup_f32`), `v_exp_f32` and f32 `ldexp` (`lower::lanefn`).
//! Every case runs in the lane-group and the straight-line form, wave64 and wave32, with all
//! lanes and a partial write mask, the result register poisoned, on operands of ordinary
//! size (where the cold-lane counter shows the in-line path is the one taken) and on
//! specials (zeros, denormals, infinities, NaNs, huge exponent gaps) that must reach the
//! lane function and still agree.

use crate::lift_support::*;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{BinOp, Block, Exit, LaneFn, Op, Ty, Val};
use wavejit_translator::jit::{lanefn_cold_lanes, Jit};
use wavejit_translator::wave::WaveState;

/// The op under test, reading its operands from v1.. and giving a V32.
#[derive(Clone, Copy, Debug)]
enum Case {
    Lane(LaneFn, usize),
    Ldexp,
    Gather(u8),
}

const LANE_CASES: [Case; 7] = [
    Case::Lane(LaneFn::DivScaleF32, 3),
    Case::Lane(LaneFn::DivScaleF32Flag, 3),
    Case::Lane(LaneFn::DivScaleF32Rdna, 3),
    Case::Lane(LaneFn::DivScaleF32RdnaFlag, 3),
    Case::Lane(LaneFn::DivFmasF32, 4),
    Case::Lane(LaneFn::DivFixupF32, 3),
    Case::Lane(LaneFn::Exp2F32, 1),
];

/// Constant lane maps of the gather cases: DPP row shifts, quad permutations, row
/// broadcasts, reversals, a wave rotate and a scattered map.
fn lane_map(k: u8) -> [u32; 64] {
    std::array::from_fn(|l| {
        let row = l & !15;
        let r = l & 15;
        (match k {
            0 => {
                if r >= 8 {
                    l - 8
                } else {
                    l
                }
            } // row_shr:8
            1 => (l & !3) + [2, 3, 0, 1][l & 3], // quad_perm
            2 => {
                if row > 0 {
                    row - 1
                } else {
                    l
                }
            } // row_bcast:15
            3 => {
                if l >= 32 {
                    31
                } else {
                    l
                }
            } // row_bcast:31
            4 => row + 15 - r,                   // row_mirror
            5 => (l + 1) & 63,                   // wave_rol
            6 => (l * 37 + 11) & 63,             // scattered
            _ => row + (r ^ 5),                  // row_xmask
        }) as u32
    })
}

/// Operands in v1..v4, the result written under `mask` into v10.
fn block(case: Case, mask: u64, wave: u32) -> Block {
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
    let arity = match case {
        Case::Lane(_, n) => n,
        Case::Ldexp => 2,
        Case::Gather(_) => 1,
    };
    let args: Vec<Val> = (0..arity as u16)
        .map(|i| push(Op::GetVgpr(1 + i), Some(Ty::V32)))
        .collect();
    let r = match case {
        Case::Lane(f, _) => push(Op::Lane { f, args }, Some(Ty::V32)),
        Case::Ldexp => push(Op::Bin(BinOp::FLdexp, args[0], args[1]), Some(Ty::V32)),
        Case::Gather(k) => {
            let idx = push(Op::LaneConst(Box::new(lane_map(k))), Some(Ty::V32));
            push(Op::Gather { v: args[0], idx }, Some(Ty::V32))
        }
    };
    // A lane-local op after the result, so the lane-group form has a run to make.
    let one = push(
        Op::Const {
            ty: Ty::S32,
            bits: 1,
        },
        Some(Ty::S32),
    );
    let ones = push(Op::Broadcast(one), Some(Ty::V32));
    let r2 = push(Op::Bin(BinOp::Xor, r, ones), Some(Ty::V32));
    push(
        Op::SetVgpr {
            reg: 10,
            val: r,
            mask: m,
        },
        None,
    );
    push(
        Op::SetVgpr {
            reg: 11,
            val: r2,
            mask: m,
        },
        None,
    );
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

/// An f32 with the biased exponent in `bias ± spread`, random sign and significand.
fn near(r: &mut Rng, bias: i32, spread: i32) -> u32 {
    let e = (bias - spread + (r.next() % (2 * spread as u64 + 1)) as i32).clamp(1, 254) as u32;
    (r.next() as u32 & 0x8000_0000) | e << 23 | (r.next() as u32 & 0x7f_ffff)
}

/// A random f32, often a special value or a boundary.
fn special(r: &mut Rng) -> u32 {
    let sign = r.next() as u32 & 0x8000_0000;
    let mant = r.next() as u32 & 0x7f_ffff;
    sign | match r.next() % 10 {
        0 => mant.max(1),                                 // denormal
        1 => 0,                                           // zero
        2 => 0x7f80_0000,                                 // infinity
        3 => 0x7fc0_0000 | mant,                          // quiet NaN
        4 => 0x7f80_0000 | (mant & 0x3f_ffff).max(1),     // signalling NaN
        5 => (1 + (r.next() % 30) as u32) << 23 | mant,   // small normals
        6 => (220 + (r.next() % 34) as u32) << 23 | mant, // large normals
        _ => near(r, 127, 30) & 0x7fff_ffff,
    }
}

/// The operands of one lane: ordinary sizes, or specials.
fn operands(case: Case, special_ops: bool, r: &mut Rng) -> [u32; 4] {
    if special_ops {
        let mut x = [special(r), special(r), special(r), (r.next() % 2) as u32];
        if let Case::Lane(LaneFn::Exp2F32, _) = case {
            // Around the range ends and the exact powers of two.
            x[0] = match r.next() % 4 {
                0 => (-126.0f32 + (r.next() % 4000) as f32 / 1000.0).to_bits(),
                1 => (126.0f32 + (r.next() % 4000) as f32 / 1000.0).to_bits(),
                2 => ((r.next() % 250) as f32 - 125.0).to_bits(),
                _ => x[0],
            };
        }
        if let Case::Ldexp = case {
            x[1] = [
                0,
                1,
                64,
                150,
                300,
                1000,
                u32::MAX,
                -64i32 as u32,
                -149i32 as u32,
            ][(r.next() % 9) as usize]
                ^ (r.next() % 3) as u32;
        }
        if r.next().is_multiple_of(3) {
            x[0] = x[1 + (r.next() % 2) as usize];
        }
        return x;
    }
    match case {
        Case::Lane(LaneFn::Exp2F32, _) => {
            // x in [-120, 120).
            let x = (r.next() % 240_000) as f32 / 1000.0 - 120.0 + (r.next() % 7) as f32 / 8192.0;
            [x.to_bits(), 0, 0, 0]
        }
        Case::Lane(LaneFn::DivFmasF32, _) => {
            [near(r, 127, 20), near(r, 127, 20), near(r, 127, 20), 0]
        }
        Case::Lane(LaneFn::DivFixupF32, _) => {
            // (quotient, denominator, numerator) as compiled division passes them.
            let (d, n) = (near(r, 127, 40), near(r, 127, 40));
            let q = (f32::from_bits(n) / f32::from_bits(d)).to_bits();
            [q, d, n, 0]
        }
        Case::Lane(..) => {
            // v_div_scale's two uses: (den, den, num) and (num, den, num).
            let (d, n) = (near(r, 127, 40), near(r, 127, 40));
            [if r.next().is_multiple_of(2) { d } else { n }, d, n, 0]
        }
        Case::Ldexp => [
            near(r, 127, 60),
            ((r.next() % 120) as i32 - 60) as u32,
            0,
            0,
        ],
        Case::Gather(_) => [r.u32(), 0, 0, 0],
    }
}

/// Runs every case × write mask × wave size × form on operands from `operands`; returns how
/// many lanes took the cold path and how many lanes were computed.
fn check_all(cases: &[Case], special_ops: bool, seeds: u64) -> (u64, u64) {
    let jits = [
        ("lane-group", Jit::new().expect("JIT")),
        (
            "straight-line",
            Jit::new().expect("JIT").without_loop_form(),
        ),
    ];
    let cold_before = lanefn_cold_lanes();
    let mut lanes = 0;
    for &case in cases {
        for mask in [u64::MAX, EXEC_PARTIAL] {
            for wave in [64u32, 32] {
                let blk = block(case, mask, wave);
                wavejit_translator::ir::verify(&blk).expect("block verifies");
                for (form, jit) in &jits {
                    let compiled = jit.compile(&blk).expect("the block compiles");
                    if let Case::Lane(..) | Case::Ldexp = case {
                        // In line: the op joins the lane-group run.
                        assert_eq!(
                            compiled.is_grouped(),
                            *form == "lane-group",
                            "{case:?} {form}"
                        );
                    }
                    for seed in 0..seeds {
                        let mut r = Rng(0x1a4e_f00d ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
                        let mut want = WaveState::new_boxed(wave);
                        let random = random_state(seed + 5, u64::MAX);
                        want.vgpr = random.vgpr;
                        want.set_exec(u64::MAX);
                        want.mode = DEFAULT_MODE;
                        want.pc = CODE_BASE;
                        for l in 0..wave as usize {
                            let x = operands(case, special_ops, &mut r);
                            for (i, v) in x.iter().enumerate() {
                                want.vgpr[1 + i][l] = *v;
                            }
                            want.vgpr[10][l] = 0xdead_beef;
                            want.vgpr[11][l] = 0xbad0_f00d;
                        }
                        let mut got = clone_state(&want);
                        let mut mem = Mem::new(0);
                        let a = run_block(&blk, &mut want, &mut mem).expect("interpreter");
                        let b = compiled.run(&mut got, &mut mem).expect("JIT");
                        assert_eq!(a, b);
                        lanes += u64::from(wave);
                        for reg in [10, 11] {
                            for l in 0..64 {
                                assert_eq!(
                                    got.vgpr[reg][l],
                                    want.vgpr[reg][l],
                                    "{case:?} {form} w{wave} mask {mask:#x} seed {seed}: v{reg} \
                                     lane {l}, operands {:#x} {:#x} {:#x} {:#x}",
                                    want.vgpr[1][l],
                                    want.vgpr[2][l],
                                    want.vgpr[3][l],
                                    want.vgpr[4][l],
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    (lanefn_cold_lanes() - cold_before, lanes)
}

#[test]
fn constant_gathers_match_the_interpreter() {
    let cases: Vec<Case> = (0..8).map(Case::Gather).collect();
    check_all(&cases, false, 3);
}

#[test]
fn division_steps_and_exp_of_ordinary_operands_stay_in_line() {
    let division = &LANE_CASES[..6];
    let (cold, lanes) = check_all(division, false, 6);
    assert!(lanes > 10_000, "{lanes} lanes");
    assert_eq!(
        cold, 0,
        "division lanes of ordinary operands took the cold path"
    );
    // exp: only results within 2^12 f64 units of an f32 rounding boundary leave the line
    // (about one lane in 65 000).
    let (cold, lanes) = check_all(&LANE_CASES[6..], false, 12);
    assert!(
        cold * 1000 < lanes,
        "{cold} of {lanes} exp lanes took the cold path"
    );
}

#[test]
fn specials_match_the_interpreter_through_the_cold_path() {
    let (cold, lanes) = check_all(&LANE_CASES, true, 8);
    // The counter counts: zeros, infinities and NaNs must have reached the lane function.
    assert!(cold > lanes / 20, "only {cold} of {lanes} lanes were cold");
}

#[test]
fn ldexp_matches_the_interpreter() {
    check_all(&[Case::Ldexp], false, 6);
    check_all(&[Case::Ldexp], true, 12);
}
