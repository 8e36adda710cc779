//! The inline fixed-stride path of single vector loads and stores (`jit::lower::memory`
//! `mem_plan`: one whole-wave pattern test, then vector host loads and stores) against the
//! interpreter, on the address shapes around it: contiguous lanes (the fast test passes),
//! strided and reversed lanes (the pattern fails, another path serves them), a partial EXEC
//! whose inactive lanes hold other addresses (the exact per-lane test decides), one active
//! lane off the pattern, accesses straddling a window's start or end and accesses outside
//! every window (faults: the same lane, address and pc in both engines). Registers start
//! poisoned and memory holds a non-zero pattern (`memory.rs`), so a path that skips or
//! duplicates a lane shows.

use super::memory::{
    load_block_w, run_both_with, store_block_w, Access, BASE, GLOBAL_LEN, LDS_LEN,
};
use wavejit_translator::env::Space;
use wavejit_translator::ir::Block;

/// The spaces with a window, and the window's length.
const SPACES: [(Space, u64); 3] = [
    (Space::Global, GLOBAL_LEN as u64),
    (Space::Flat, GLOBAL_LEN as u64),
    (Space::Lds, LDS_LEN as u64),
];

/// A lane's byte offset from the window's start, by lane.
type LaneOffsets = Box<dyn Fn(usize) -> u64>;

/// Every lane of a wave of `wave` lanes.
fn full(wave: u32) -> u64 {
    if wave == 32 {
        0xFFFF_FFFF
    } else {
        u64::MAX
    }
}

/// The blocks of one access: loads (zero- and sign-extending) and the store.
fn blocks(a: &Access, wave: u32) -> [Block; 3] {
    [
        load_block_w(a, false, wave),
        load_block_w(a, true, wave),
        store_block_w(a, wave),
    ]
}

/// Runs every block of `a` in both engines (they must agree: exits with their faults,
/// registers, memory); returns the requests that reached the checked environment.
fn agree(a: &Access, wave: u32) -> [u32; 3] {
    blocks(a, wave).map(|b| run_both_with(&b, |_| {}).0)
}

#[test]
fn contiguous_lanes_stay_in_the_generated_code() {
    for wave in [32u32, 64] {
        for (space, _) in SPACES {
            for size in [1u8, 2, 4, 8] {
                for start in [0u64, 3, 64] {
                    let a =
                        Access::new(space, full(wave), size, |l| start + size as u64 * l as u64);
                    assert_eq!(
                        agree(&a, wave),
                        [0; 3],
                        "{space:?} size {size} start {start} w{wave}"
                    );
                }
            }
        }
    }
}

#[test]
fn strided_reversed_and_one_lane_off_match() {
    for wave in [32u32, 64] {
        for (space, _) in SPACES {
            for size in [1u8, 2, 4, 8] {
                let sz = size as u64;
                let n = wave as u64;
                let shapes: [(&str, LaneOffsets); 4] = [
                    ("stride 2x", Box::new(move |l| 2 * sz * l as u64)),
                    (
                        "reversed",
                        Box::new(move |l| sz * (n - 1).saturating_sub(l as u64)),
                    ),
                    // Lane 17 points at lane 17 + 64's element: every lane but one fits.
                    (
                        "one off",
                        Box::new(move |l| sz * (l as u64 + if l == 17 { 64 } else { 0 })),
                    ),
                    ("same address", Box::new(|_| 40)),
                ];
                for (name, f) in shapes {
                    let a = Access::new(space, full(wave), size, f);
                    // Inside the window: no request reaches the checked environment.
                    assert_eq!(
                        agree(&a, wave),
                        [0; 3],
                        "{name} {space:?} size {size} w{wave}"
                    );
                }
            }
        }
    }
}

#[test]
fn partial_exec_with_inactive_lanes_elsewhere() {
    for wave in [32u32, 64] {
        for (space, _) in SPACES {
            for size in [1u8, 2, 4, 8] {
                let sz = size as u64;
                for mask in [0x0000_FFFF_0000_FFFFu64, 0xFFFF_FFFE, 0x8000_0001, 1 << 31] {
                    let mask = mask & full(wave);
                    // Active lanes on the pattern; inactive lanes far outside any window.
                    let a = Access::new(space, mask, size, |l| {
                        if mask >> l & 1 == 1 {
                            8 + sz * l as u64
                        } else {
                            u64::MAX - 3 * l as u64
                        }
                    });
                    assert_eq!(
                        agree(&a, wave),
                        [0; 3],
                        "{space:?} size {size} mask {mask:#x}"
                    );
                    // Every lane on the pattern, some inactive (the fast test passes; the
                    // inactive lanes must keep their registers and bytes).
                    let a = Access::new(space, mask, size, |l| 8 + sz * l as u64);
                    assert_eq!(
                        agree(&a, wave),
                        [0; 3],
                        "{space:?} size {size} mask {mask:#x}"
                    );
                }
            }
        }
    }
}

#[test]
fn straddling_and_outside_accesses_fault_alike() {
    for wave in [32u32, 64] {
        for (space, len) in SPACES {
            for size in [1u8, 2, 4, 8] {
                let sz = size as u64;
                let n = wave as u64;
                // Contiguous lanes whose last one ends exactly at the window's end: inline.
                let end = len - n * sz;
                let a = Access::new(space, full(wave), size, |l| end + sz * l as u64);
                assert_eq!(agree(&a, wave), [0; 3], "{space:?} size {size} at the end");
                // One byte further: the last lane straddles the end and faults (the
                // checked path reports it, in both engines the same lane and address).
                let a = Access::new(space, full(wave), size, |l| end + 1 + sz * l as u64);
                assert_eq!(
                    agree(&a, wave),
                    [1; 3],
                    "{space:?} size {size} past the end"
                );
                // ... unless that lane is inactive.
                let a = Access {
                    mask: full(wave) >> 1,
                    ..a
                };
                assert_eq!(
                    agree(&a, wave),
                    [0; 3],
                    "{space:?} size {size} last inactive"
                );
                // Lane 0 one element below the window's start (the others inside).
                let a = Access::new(space, full(wave), size, |l| {
                    (sz * l as u64).wrapping_sub(sz)
                });
                assert_eq!(
                    agree(&a, wave),
                    [1; 3],
                    "{space:?} size {size} below the start"
                );
                // Entirely outside: a contiguous run far beyond the window.
                let a = Access::new(space, full(wave), size, |l| (1 << 40) + sz * l as u64);
                assert_eq!(agree(&a, wave), [1; 3], "{space:?} size {size} outside");
            }
        }
    }
}

/// `n` scalar dword loads of one pc (as the lifter splits `s_load_dwordxN`) at `BASE + off +
/// 4k` into s4.., the later ones reusing the first one's window in the JIT.
fn sload_run(off: u64, n: u8) -> Block {
    use wavejit_translator::ir::{Builder, Exit, Op, Ty};
    let mut b = Builder::new(0x100, 64);
    let base = b.push(
        Op::Const {
            ty: Ty::S64,
            bits: BASE.wrapping_add(off),
        },
        Some(Ty::S64),
    );
    for k in 0..n {
        let d = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: 4 * k as u64,
            },
            Some(Ty::S64),
        );
        let addr = b.push(
            Op::Bin(wavejit_translator::ir::BinOp::Add, base, d),
            Some(Ty::S64),
        );
        let v = b.push(Op::SLoad { pc: 0x100, addr }, Some(Ty::S32));
        b.push(Op::SetSgpr(4 + k, v), None);
    }
    b.finish(Exit::Jump(0x200))
}

#[test]
fn scalar_dword_runs_inside_and_across_the_window_end() {
    let len = GLOBAL_LEN as u64;
    for n in [2u8, 4, 8] {
        let span = 4 * n as u64;
        // Inside, ending exactly at the window's end: no request reaches the environment.
        for off in [0, 64, len - span] {
            assert_eq!(
                run_both_with(&sload_run(off, n), |_| {}).0,
                0,
                "x{n} at {off}"
            );
        }
        // The last dword (or the last two) past the end: those go to the checked path,
        // which faults at the same pc with the same address in both engines.
        for past in [4u64, 8] {
            let (slow, _) = run_both_with(&sload_run(len - span + past, n), |_| {});
            assert!(slow >= 1, "x{n} {past} past the end");
        }
        // Below the window: the first dword already faults.
        assert_eq!(run_both_with(&sload_run(u64::MAX - 3, n), |_| {}).0, 1);
    }
}

/// Scalar dword loads of different pcs at the given offsets from `BASE`, each into s4.. with
/// a scalar op between them (the JIT tests a later load against the window the previous
/// one selected first, and selects again when that fails).
fn sload_mix(offs: &[u64]) -> Block {
    use wavejit_translator::ir::{BinOp, Builder, Exit, Op, Ty};
    let mut b = Builder::new(0x100, 64);
    for (k, off) in offs.iter().enumerate() {
        let addr = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: BASE.wrapping_add(*off),
            },
            Some(Ty::S64),
        );
        let v = b.push(
            Op::SLoad {
                pc: 0x100 + 8 * k as u64,
                addr,
            },
            Some(Ty::S32),
        );
        let s = b.push(Op::GetSgpr(3), Some(Ty::S32));
        let x = b.push(Op::Bin(BinOp::Xor, v, s), Some(Ty::S32));
        b.push(Op::SetSgpr(4 + k as u8, x), None);
    }
    b.finish(Exit::Jump(0x200))
}

#[test]
fn scalar_loads_of_different_pcs_share_a_window_test_and_fault_alike() {
    let len = GLOBAL_LEN as u64;
    let poison = |s: &mut wavejit_translator::wave::WaveState| {
        for (r, x) in s.sgpr.iter_mut().enumerate() {
            *x = 0x5A00_0000 | r as u32;
        }
    };
    // Inside the window, anywhere and in any order: nothing reaches the environment.
    for offs in [
        vec![0, 400, 8, len - 4],
        vec![len - 4, 0],
        vec![12, 12, 4096],
    ] {
        assert_eq!(run_both_with(&sload_mix(&offs), poison).0, 0, "{offs:?}");
    }
    // A load outside the window (past its end, below its start, far away) or unaligned,
    // first, in the middle or last: that load goes to the checked path; a fault names
    // its pc in both engines (the exit is compared).
    for bad in [len, len - 2, u64::MAX - 3, 1 << 40, 6] {
        for at in 0..3 {
            let mut offs = vec![16, 32, 48];
            offs[at] = bad;
            let (slow, _) = run_both_with(&sload_mix(&offs), poison);
            assert!(slow >= 1, "{offs:?}");
        }
    }
}

/// A vector add over three buffers whose bases are the SGPR pairs s[0:1], s[2:3], s[4:5],
/// at lane offsets `v0 * 4` (the lifter's `base + (sext(v0) << 2)`) under the EXEC of
/// s[8:9]: `v4 = a[v0]`, `v5 = a[v0] + b[v0]`, `c[v0] = v5`. Each access selects its
/// window through its own hint (`jit::lower::memory` `window_hinted`).
fn vadd3(wave: u32) -> Block {
    use wavejit_translator::ir::{BinOp, Builder, Exit, Op, Ty};
    let mut b = Builder::new(0x100, wave);
    let lo = b.push(Op::GetSgpr(8), Some(Ty::S32));
    let hi = b.push(Op::GetSgpr(9), Some(Ty::S32));
    let m = b.push(Op::Pack { lo, hi }, Some(Ty::S64));
    let addr = |b: &mut Builder, k: u8| {
        let lo = b.push(Op::GetSgpr(2 * k), Some(Ty::S32));
        let hi = b.push(Op::GetSgpr(2 * k + 1), Some(Ty::S32));
        let base = b.push(Op::Pack { lo, hi }, Some(Ty::S64));
        let base = b.push(Op::Broadcast(base), Some(Ty::V64));
        let v0 = b.push(Op::GetVgpr(0), Some(Ty::V32));
        let k31 = b.push(
            Op::Const {
                ty: Ty::S32,
                bits: 31,
            },
            Some(Ty::S32),
        );
        let k31 = b.push(Op::Broadcast(k31), Some(Ty::V32));
        let sign = b.push(Op::Bin(BinOp::AShr, v0, k31), Some(Ty::V32));
        let w = b.push(Op::Pack { lo: v0, hi: sign }, Some(Ty::V64));
        let k2 = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: 2,
            },
            Some(Ty::S64),
        );
        let k2 = b.push(Op::Broadcast(k2), Some(Ty::V64));
        let off = b.push(Op::Bin(BinOp::Shl, w, k2), Some(Ty::V64));
        b.push(Op::Bin(BinOp::Add, base, off), Some(Ty::V64))
    };
    let load = |b: &mut Builder, k: u8, pc: u64| {
        let a = addr(b, k);
        b.push(
            Op::Load {
                pc,
                space: Space::Global,
                addr: a,
                size: 4,
                signed: false,
                mask: m,
            },
            Some(Ty::V32),
        )
    };
    let x = load(&mut b, 0, 0x100);
    let y = load(&mut b, 1, 0x108);
    let s = b.push(Op::Bin(BinOp::Add, x, y), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 4,
            val: x,
            mask: m,
        },
        None,
    );
    b.push(
        Op::SetVgpr {
            reg: 5,
            val: s,
            mask: m,
        },
        None,
    );
    let c = addr(&mut b, 2);
    b.push(
        Op::Store {
            pc: 0x110,
            space: Space::Global,
            addr: c,
            size: 4,
            data: s,
            mask: m,
        },
        None,
    );
    b.finish(Exit::Jump(0x200))
}

/// One run of [`vadd3`]: the three buffers' offsets from `BASE`, v0's lanes (ids from
/// `first`, or when `shuffled` a permutation of them, which is not lane-affine), EXEC.
#[derive(Clone, Copy, Debug)]
struct Vadd3Run {
    bufs: [u64; 3],
    first: u32,
    shuffled: bool,
    exec: u64,
}

/// Runs the compiled [`vadd3`] block `cb` and the interpreter on `run` (both from
/// poisoned registers, each on its own memory carried over from the previous runs, which
/// start equal and patterned); the exits (with a fault's pc, lane and address), v0..v7,
/// the SGPRs and memory must agree. Returns the JIT's memory helper calls.
fn vadd3_agree(
    blk: &Block,
    cb: &wavejit_translator::jit::CompiledBlock,
    envs: &mut [wavejit_translator::interp::test_env::FlatEnv; 2],
    run: Vadd3Run,
) -> u32 {
    use wavejit_translator::interp::run_block;
    let mut s0 = super::memory::state();
    s0.wave_size = blk.wave_size;
    for (r, x) in s0.sgpr.iter_mut().enumerate() {
        *x = 0x5A00_0000 | r as u32;
    }
    for (k, off) in run.bufs.iter().enumerate() {
        let a = BASE.wrapping_add(*off);
        s0.sgpr[2 * k] = a as u32;
        s0.sgpr[2 * k + 1] = (a >> 32) as u32;
    }
    s0.sgpr[8] = run.exec as u32;
    s0.sgpr[9] = (run.exec >> 32) as u32;
    for l in 0..64u32 {
        let lane = if run.shuffled { (l * 37 + 11) % 64 } else { l };
        s0.vgpr[0][l as usize] = run.first.wrapping_add(lane);
    }
    let fresh = || {
        let mut s = super::memory::state();
        s.wave_size = s0.wave_size;
        s.vgpr = s0.vgpr;
        s.sgpr = s0.sgpr;
        s
    };
    let (mut si, mut sj) = (fresh(), fresh());
    let [ei, ej] = envs;
    let ri = run_block(blk, &mut si, ei);
    let (rj, helpers) = cb.run_counting(&mut sj, ej);
    assert_eq!(ri, rj, "exit {run:?}");
    for r in 0..8 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r} {run:?}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs {run:?}");
    assert!(ei == ej, "memory differs {run:?}");
    helpers
}

#[test]
fn hinted_windows_follow_alternating_buffers_and_fault_alike() {
    use wavejit_translator::jit::Jit;
    // Four windows of 2 KiB over the patterned memory, listed last part first.
    let part = GLOBAL_LEN as u64 / 4;
    let jit = Jit::new().expect("host JIT");
    for wave in [32u32, 64] {
        let blk = vadd3(wave);
        // One compiled block for all runs: its hints carry over from run to run.
        let cb = jit.compile(&blk).expect("compiles");
        let mut envs = [super::memory::env(), super::memory::env()];
        for e in &mut envs {
            e.windows = 4;
        }
        let all = full(wave);
        let run = |bufs: [u64; 3]| Vadd3Run {
            bufs,
            first: 0,
            shuffled: false,
            exec: all,
        };
        // Inside windows, the buffers in different ones and then swapped around (every
        // hint misses once, then hits): all in the generated code, no helper.
        for bufs in [
            [0, 3 * part + 8, part + 256],
            [0, 3 * part + 8, part + 256],
            [2 * part + 4, 16, 3 * part + 512],
            [part, part + 256, part + 512],
            [3 * part + 1024, 2 * part, 64],
            [0, 3 * part + 8, part + 256],
        ] {
            assert_eq!(vadd3_agree(&blk, &cb, &mut envs, run(bufs)), 0, "{bufs:?}");
        }
        // Lanes ending exactly at a window's end; ids from a later first lane.
        let span = 4 * wave as u64;
        for (bufs, first) in [
            ([part - span, 2 * part - span, 4 * part - span], 0),
            ([0, part, 2 * part], 5),
        ] {
            let r = Vadd3Run { first, ..run(bufs) };
            assert_eq!(vadd3_agree(&blk, &cb, &mut envs, r), 0, "{r:?}");
        }
        // Straddling two windows (the memory is there; no window holds the access, so
        // the checked path serves it), outside every window (faults: pc, lane and address
        // as the interpreter's), lanes not lane-affine, and partial EXEC, each between
        // runs that hit.
        let odd = [
            run([part - 64, 16, 3 * part]),
            run([0, 2 * part - 4, 3 * part]),
            run([0, part, 3 * part - 8]),
            run([4 * part - 8, 16, 32]),
            run([0, 16, 4 * part]),
            run([0, u64::MAX - 255, 256]),
            run([0, 16, 1 << 40]),
            Vadd3Run {
                shuffled: true,
                ..run([part, 2 * part, 3 * part])
            },
            Vadd3Run {
                exec: all & 0x5555_5555_5555_5555,
                ..run([part, 2 * part, 3 * part])
            },
            Vadd3Run {
                exec: 1 << (wave - 1),
                ..run([part, 2 * part + 4, 3 * part])
            },
            Vadd3Run {
                exec: 0,
                ..run([part, 2 * part + 4, 3 * part])
            },
        ];
        for (k, r) in odd.into_iter().enumerate() {
            let helpers = vadd3_agree(&blk, &cb, &mut envs, r);
            // No window holds the first seven: the checked path serves them (a window test
            // that let one through would read or write in line, or past the memory).
            assert!(k >= 7 || helpers >= 1, "{r:?} took no helper");
            let back = run([2 * part, part, 0]);
            assert_eq!(vadd3_agree(&blk, &cb, &mut envs, back), 0, "after {r:?}");
        }
    }
}
