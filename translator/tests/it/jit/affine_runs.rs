//! Runs whose lane work is affine (`jit::analysis::affine_runs`, `jit::lower::affine_run`)
//! against the interpreter: kernel entry blocks as the lifter builds them, computing the
//! global id from the workgroup offset and v0 (gfx9's `v_add_u32` of `s*k`, RDNA's 64-bit
//! `v_mad_u64_u32` into v[1:2] with v1 read as the high half) and comparing it with `n`
//! for VCC and EXEC, under every integer compare with the id on either side. v0 holds lane
//! ids (the scalar copy's tests pass) from bases near 0, 2^31 and 2^32 (signed and
//! unsigned wrap inside the wave: the tests fail), ids with other strides, 2-D ids and
//! permuted ids (not affine); v1 uniform or not; EXEC full, partial and empty; `n` at every
//! lane boundary and at the ends of both ranges. Registers start poisoned. Also loads
//! whose address packs an affine low half with a uniform root (`Pack(v0, v1)`) and a high
//! half taken from a 64-bit affine value, with faults at the window's edges.

use super::affine::{c32, c64};
use super::memory::{env, state, BASE, GLOBAL_LEN};
use wavejit_translator::env::Space;
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::*;
use wavejit_translator::jit::{Jit, Tier};
use wavejit_translator::wave::WaveState;

const CMPS: [CmpOp; 10] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::ULt,
    CmpOp::ULe,
    CmpOp::UGt,
    CmpOp::UGe,
    CmpOp::SLt,
    CmpOp::SLe,
    CmpOp::SGt,
    CmpOp::SGe,
];

/// How the entry block makes the id.
#[derive(Clone, Copy, Debug)]
enum Entry {
    /// `v0 = s2 * s3 + (v0 << k)` (gfx9's `v_add_u32`; `k = 0` is the kernels').
    Gfx9(u32),
    /// `v[1:2] = zext(s15) * zext(s2) + v[0:1]` (RDNA's `v_mad_u64_u32`); the compare
    /// reads v1.
    Mad,
}

fn exec_of(b: &mut Builder, wave: u32) -> Val {
    let e0 = b.push(Op::GetSgpr(126), Some(Ty::S32));
    if wave == 32 {
        b.push(Op::Conv(ConvOp::ZExt, e0), Some(Ty::S64))
    } else {
        let e1 = b.push(Op::GetSgpr(127), Some(Ty::S32));
        b.push(Op::Pack { lo: e0, hi: e1 }, Some(Ty::S64))
    }
}

/// The entry block: the id written under EXEC, compared (`id cc n`, or `n cc id` when
/// `swapped`) with `n` = s4, the result ANDed with EXEC into VCC and EXEC (saved to s[8:9]),
/// and a branch on it being empty.
fn entry(shape: Entry, cc: CmpOp, swapped: bool, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let exec = exec_of(&mut b, wave);
    let id = match shape {
        Entry::Gfx9(k) => {
            let s2 = b.push(Op::GetSgpr(2), Some(Ty::S32));
            let s3 = b.push(Op::GetSgpr(3), Some(Ty::S32));
            let off = b.push(Op::Bin(BinOp::Mul, s2, s3), Some(Ty::S32));
            let off = b.push(Op::Broadcast(off), Some(Ty::V32));
            let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
            let x = if k == 0 {
                v0
            } else {
                let k = c32(&mut b, k);
                let k = b.push(Op::Broadcast(k), Some(Ty::V32));
                b.push(Op::Bin(BinOp::Shl, v0, k), Some(Ty::V32))
            };
            let id = b.push(Op::Bin(BinOp::Add, off, x), Some(Ty::V32));
            let sel = b.push(
                Op::Select {
                    cond: exec,
                    a: id,
                    b: v0,
                },
                Some(Ty::V32),
            );
            b.push(
                Op::SetVgpr {
                    reg: 0,
                    val: id,
                    mask: exec,
                },
                None,
            );
            sel
        }
        Entry::Mad => {
            let s15 = b.push(Op::GetSgpr(15), Some(Ty::S32));
            let s2 = b.push(Op::GetSgpr(2), Some(Ty::S32));
            let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
            let v1 = b.push(Op::GetVgpr(1), Some(Ty::V32));
            let p = b.push(Op::Pack { lo: v0, hi: v1 }, Some(Ty::V64));
            let a = b.push(Op::Conv(ConvOp::ZExt, s15), Some(Ty::S64));
            let c = b.push(Op::Conv(ConvOp::ZExt, s2), Some(Ty::S64));
            let m = b.push(Op::Bin(BinOp::Mul, a, c), Some(Ty::S64));
            let m = b.push(Op::Broadcast(m), Some(Ty::V64));
            let r = b.push(Op::Bin(BinOp::Add, m, p), Some(Ty::V64));
            let lo = b.push(Op::Conv(ConvOp::Lo, r), Some(Ty::V32));
            let hi = b.push(Op::Conv(ConvOp::Hi, r), Some(Ty::V32));
            let sel = b.push(
                Op::Select {
                    cond: exec,
                    a: lo,
                    b: v1,
                },
                Some(Ty::V32),
            );
            b.push(
                Op::SetVgpr {
                    reg: 1,
                    val: lo,
                    mask: exec,
                },
                None,
            );
            b.push(
                Op::SetVgpr {
                    reg: 2,
                    val: hi,
                    mask: exec,
                },
                None,
            );
            sel
        }
    };
    let n = b.push(Op::GetSgpr(4), Some(Ty::S32));
    let n = b.push(Op::Broadcast(n), Some(Ty::V32));
    let (x, y) = if swapped { (n, id) } else { (id, n) };
    let cmp = b.push(Op::Cmp(cc, x, y), Some(Ty::S64));
    let vcc = b.push(Op::Bin(BinOp::And, cmp, exec), Some(Ty::S64));
    let lo = b.push(Op::Conv(ConvOp::Lo, vcc), Some(Ty::S32));
    let hi = b.push(Op::Conv(ConvOp::Hi, vcc), Some(Ty::S32));
    b.push(Op::SetSgpr(106, lo), None);
    b.push(Op::SetSgpr(126, lo), None);
    if wave == 64 {
        b.push(Op::SetSgpr(107, hi), None);
        b.push(Op::SetSgpr(127, hi), None);
    }
    let e = b.push(Op::Conv(ConvOp::Lo, exec), Some(Ty::S32));
    b.push(Op::SetSgpr(8, e), None);
    let z = c64(&mut b, 0);
    let none = b.push(Op::Cmp(CmpOp::Eq, vcc, z), Some(Ty::S32));
    b.finish(Exit::Branch {
        cond: none,
        taken: 0x200,
        not_taken: 0x108,
    })
}

/// One starting state: v0 (and v1) per lane, the scalars, EXEC.
struct Start {
    v0: [u32; 64],
    v1: [u32; 64],
    s2: u32,
    s3: u32,
    s15: u32,
    n: u32,
    exec: u64,
}

fn start(wave: u32, st: &Start) -> Box<WaveState> {
    let mut s = state();
    s.wave_size = wave;
    for r in 0..8 {
        for l in 0..64 {
            s.vgpr[r][l] ^= 0x5A5A_0000;
        }
    }
    s.vgpr[0] = st.v0;
    s.vgpr[1] = st.v1;
    for (i, x) in s.sgpr.iter_mut().enumerate() {
        *x = 0xC0DE_0000 | i as u32;
    }
    s.sgpr[2] = st.s2;
    s.sgpr[3] = st.s3;
    s.sgpr[15] = st.s15;
    s.sgpr[4] = st.n;
    let exec = if wave == 32 {
        st.exec & 0xFFFF_FFFF
    } else {
        st.exec
    };
    s.sgpr[126] = exec as u32;
    s.sgpr[127] = if wave == 32 { 0 } else { (exec >> 32) as u32 };
    s
}

/// Runs `blk` compiled (at both tiers) and interpreted from `st`; everything must match.
fn check(
    blk: &Block,
    jits: &[wavejit_translator::jit::CompiledBlock],
    mem: &FlatEnv,
    st: &Start,
    what: &str,
) {
    let mut si = start(blk.wave_size, st);
    let mut ei = mem.clone();
    let ri = run_block(blk, &mut si, &mut ei);
    for cb in jits {
        let mut sj = start(blk.wave_size, st);
        let mut ej = mem.clone();
        let rj = cb.run(&mut sj, &mut ej);
        assert_eq!(ri, rj, "exit {what}\n{blk}");
        assert_eq!(si.pc, sj.pc, "pc {what}\n{blk}");
        for r in 0..8 {
            assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r} {what}\n{blk}");
        }
        assert_eq!(si.sgpr, sj.sgpr, "sgprs {what}\n{blk}");
        assert!(ei == ej, "memory {what}\n{blk}");
    }
}

fn compile_both(blk: &Block) -> Vec<wavejit_translator::jit::CompiledBlock> {
    let jit = Jit::new().expect("host JIT");
    [Tier::Optimised, Tier::Quick]
        .into_iter()
        .map(|t| jit.compile_at(blk, t).expect("compiles"))
        .collect()
}

/// v0 patterns: (name, lane 0's id, per-lane values).
fn v0_patterns(k: u32) -> Vec<(&'static str, [u32; 64])> {
    let ids = |b: u32| std::array::from_fn(|l| b.wrapping_add(l as u32));
    let mut permuted: [u32; 64] = ids(0);
    permuted.swap(3, 17);
    permuted.swap(40, 41);
    let _ = k;
    vec![
        ("ids", ids(0)),
        ("ids+5", ids(5)),
        (
            "2-D",
            std::array::from_fn(|l| (l % 8) as u32 | ((l / 8) as u32) << 10),
        ),
        ("permuted", permuted),
        ("wrap32", ids(u32::MAX - 20)),
    ]
}

/// The ids' lane 0 bases (workgroup offset `s2 * s3`) and the first id (for the `n`
/// boundaries).
const OFFSETS: [(u32, u32); 5] = [
    (0, 7),
    (256, 3),
    (0x7FFF_FFD0, 1), // signed wrap inside the wave
    (0xFFFF_FFD0, 1), // unsigned wrap inside the wave
    (0x4000_0000, 2),
];

const EXECS: [u64; 5] = [u64::MAX, 0xFFFF_FFFF, 0x0F0F_F0F0_0000_FFFF, 1 << 31, 0];

#[test]
fn gfx9_entry_ids_and_compares_match_the_interpreter() {
    for wave in [32u32, 64] {
        for k in [0u32, 2] {
            for cc in CMPS {
                for swapped in [false, true] {
                    let blk = entry(Entry::Gfx9(k), cc, swapped, wave);
                    let jits = compile_both(&blk);
                    let mem = env();
                    for (name, v0) in v0_patterns(k) {
                        for (s2, s3) in OFFSETS {
                            for exec in EXECS {
                                let id0 = s2.wrapping_mul(s3).wrapping_add(v0[0] << k);
                                // `n` at every lane boundary (and one past), and the ends of
                                // both ranges.
                                let full = exec == u64::MAX && name == "ids";
                                let mut ns: Vec<u32> =
                                    vec![0, 1, i32::MAX as u32, 1 << 31, u32::MAX];
                                let bounds = if full { 0..=wave } else { 0..=2 };
                                for l in bounds {
                                    let at = id0.wrapping_add(l << k);
                                    ns.extend([at, at.wrapping_add(1)]);
                                }
                                for n in ns {
                                    let st = Start {
                                        v0,
                                        v1: [0x1234_5678; 64],
                                        s2,
                                        s3,
                                        s15: 0,
                                        n,
                                        exec,
                                    };
                                    let what = format!(
                                        "w{wave} k{k} {cc:?} swapped {swapped} v0 {name} s2 {s2:#x} s3 {s3} exec {exec:#x} n {n:#x}"
                                    );
                                    check(&blk, &jits, &mem, &st, &what);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn rdna_mad_entry_ids_and_compares_match_the_interpreter() {
    // v1 (the addend's high half): uniform 0, uniform all-ones, not uniform.
    let v1s: [(&str, [u32; 64]); 3] = [
        ("zero", [0; 64]),
        ("ones", [u32::MAX; 64]),
        ("mixed", std::array::from_fn(|l| (l as u32 >> 4) & 1)),
    ];
    for wave in [32u32, 64] {
        for cc in CMPS {
            for swapped in [false, true] {
                let blk = entry(Entry::Mad, cc, swapped, wave);
                let jits = compile_both(&blk);
                let mem = env();
                for (name, v0) in v0_patterns(0) {
                    for (v1n, v1) in &v1s {
                        for (s15, s2) in OFFSETS {
                            for exec in EXECS {
                                let id0 = s15.wrapping_mul(s2).wrapping_add(v0[0]);
                                let full = exec == u64::MAX && name == "ids" && *v1n == "zero";
                                let mut ns: Vec<u32> = vec![0, i32::MAX as u32, 1 << 31, u32::MAX];
                                let bounds = if full { 0..=wave } else { 0..=1 };
                                for l in bounds {
                                    let at = id0.wrapping_add(l);
                                    ns.extend([at, at.wrapping_add(1)]);
                                }
                                for n in ns {
                                    let st = Start {
                                        v0,
                                        v1: *v1,
                                        s2,
                                        s3: 0,
                                        s15,
                                        n,
                                        exec,
                                    };
                                    let what = format!(
                                        "w{wave} {cc:?} swapped {swapped} v0 {name} v1 {v1n} s15 {s15:#x} s2 {s2} exec {exec:#x} n {n:#x}"
                                    );
                                    check(&blk, &jits, &mem, &st, &what);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `v4 = load(BASE + (Pack(v0, v1) << 2))`, `v5 = Hi(Pack(v0, v1) + s[2:3])` (an
/// address with a uniform-root high half, and a high half of an affine 64-bit value).
fn pack_root_load(wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let exec = exec_of(&mut b, wave);
    let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
    let v1 = b.push(Op::GetVgpr(1), Some(Ty::V32));
    let p = b.push(Op::Pack { lo: v0, hi: v1 }, Some(Ty::V64));
    let k2 = c64(&mut b, 2);
    let k2 = b.push(Op::Broadcast(k2), Some(Ty::V64));
    let off = b.push(Op::Bin(BinOp::Shl, p, k2), Some(Ty::V64));
    let base = c64(&mut b, BASE);
    let base = b.push(Op::Broadcast(base), Some(Ty::V64));
    let addr = b.push(Op::Bin(BinOp::Add, base, off), Some(Ty::V64));
    let v = b.push(
        Op::Load {
            pc: 0x100,
            space: Space::Global,
            addr,
            size: 4,
            signed: false,
            mask: exec,
        },
        Some(Ty::V32),
    );
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: v,
            mask: exec,
        },
        None,
    );
    let s2 = b.push(Op::GetSgpr(2), Some(Ty::S32));
    let s3 = b.push(Op::GetSgpr(3), Some(Ty::S32));
    let s = b.push(Op::Pack { lo: s2, hi: s3 }, Some(Ty::S64));
    let s = b.push(Op::Broadcast(s), Some(Ty::V64));
    let x = b.push(Op::Bin(BinOp::Add, p, s), Some(Ty::V64));
    let hi = b.push(Op::Conv(ConvOp::Hi, x), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 5,
            val: hi,
            mask: exec,
        },
        None,
    );
    b.finish(Exit::EndPgm)
}

#[test]
fn packed_uniform_roots_and_high_halves_match_the_interpreter() {
    let words = (GLOBAL_LEN / 4) as u32;
    for wave in [32u32, 64] {
        let blk = pack_root_load(wave);
        let jits = compile_both(&blk);
        let mem = env();
        let lanes = wave;
        // v0 bases: inside, the last lane one dword past the end, lane 0 below the start
        // (wrapping), at the end exactly, the low half wrapping inside the wave.
        let starts = [
            0u32,
            7,
            words - lanes,
            words - lanes + 1,
            u32::MAX,
            u32::MAX - 3,
        ];
        let v1s: [(&str, [u32; 64]); 3] = [
            ("zero", [0; 64]),
            ("one", [1; 64]),
            ("mixed", std::array::from_fn(|l| u32::from(l == 9))),
        ];
        for s0 in starts {
            for (v1n, v1) in &v1s {
                for exec in EXECS {
                    for (s2, s3) in [(0u32, 0u32), (0xFFFF_FFF0, 0), (5, 0xFFFF_FFFF), (0, 7)] {
                        let st = Start {
                            v0: std::array::from_fn(|l| s0.wrapping_add(l as u32)),
                            v1: *v1,
                            s2,
                            s3,
                            s15: 0,
                            n: 0,
                            exec,
                        };
                        let what =
                            format!("w{wave} v0 from {s0:#x} v1 {v1n} exec {exec:#x} s[2:3] {s2:#x}:{s3:#x}");
                        check(&blk, &jits, &mem, &st, &what);
                    }
                }
            }
        }
    }
}
