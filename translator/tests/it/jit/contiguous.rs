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
