//! Loads of 1, 2 and 4 bytes at scattered lanes (the JIT's inline gather,
//! `jit::lower::memory::gather`) against the interpreter: partial EXEC with the inactive
//! lanes' addresses far outside, wave64 and wave32, lanes reading the window's last bytes,
//! and an active lane outside the window (the fault names the same lane and address). The
//! harness (`super::memory`) poisons the registers and compares the exit, every register and
//! memory, and counts the requests that reached the environment and the helper calls.

use super::memory::{load_block_w, run_both_with, Access, GLOBAL_LEN, LDS_LEN};
use wavejit_translator::env::Space;

/// Scattered offsets in `[0, span)`, a different permutation-like pattern per seed.
fn scattered(seed: u64, span: u64) -> [u64; 64] {
    let mut x = seed | 1;
    std::array::from_fn(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % span
    })
}

const MASKS: [u64; 4] = [
    u64::MAX,
    0x8000_0001_F0F0_1235,
    1 << 40,
    0xFFFF_0000_0000_8001,
];

#[test]
fn scattered_loads_match_the_interpreter() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        let len = len as u64;
        for size in [1u8, 2, 4] {
            for (i, &mask) in MASKS.iter().enumerate() {
                for wave in [64u32, 32] {
                    let offs = scattered(i as u64 * 7 + u64::from(size), len - 3);
                    // Inactive lanes point far outside every window.
                    let a = Access::new(space, mask, size, |l| {
                        if mask >> l & 1 != 0 {
                            offs[l]
                        } else {
                            0x4000_0000_0000 + l as u64
                        }
                    });
                    let active = mask & (u64::MAX >> (64 - wave)) != 0;
                    for signed in [false, true] {
                        let r = run_both_with(&load_block_w(&a, signed, wave), |_| {});
                        // Inline (no environment request, no helper) whenever a lane runs.
                        let want = (0, u32::from(!active));
                        assert_eq!(r, want, "{space:?} {size} {mask:#x} w{wave} {signed}");
                    }
                }
            }
        }
    }
}

#[test]
fn lanes_at_the_window_end_take_the_per_lane_path_exactly() {
    let len = GLOBAL_LEN as u64;
    for size in [1u8, 2, 4] {
        let offs = scattered(u64::from(size) + 100, len - 3);
        for last in [0usize, 17, 63] {
            // Lane `last` reads the window's last `size` bytes.
            let a = Access::new(Space::Global, u64::MAX, size, |l| {
                if l == last {
                    len - u64::from(size)
                } else {
                    offs[l]
                }
            });
            for signed in [false, true] {
                let r = run_both_with(&load_block_w(&a, signed, 64), |_| {});
                assert_eq!(r, (0, 0), "{size} lane {last}");
            }
        }
    }
}

#[test]
fn an_active_lane_outside_faults_as_in_the_interpreter() {
    let len = GLOBAL_LEN as u64;
    for size in [1u8, 2, 4] {
        let offs = scattered(u64::from(size) + 200, len - 3);
        for (lane, bad) in [(5usize, len), (40, len - 1), (63, u64::MAX - 15)] {
            let bad = if bad == len - 1 && size == 1 {
                len
            } else {
                bad
            };
            let mask = 0xF0F0_F0F0_F0F0_F0F0 | 1 << lane;
            let a = Access::new(Space::Global, mask, size, |l| {
                if l == lane {
                    bad
                } else {
                    offs[l]
                }
            });
            // The checked path decides (one request, one helper call); `run_both_with`
            // compares the fault (lane, address) with the interpreter's.
            let r = run_both_with(&load_block_w(&a, false, 64), |_| {});
            assert_eq!(r, (1, 1), "{size} lane {lane} at {bad:#x}");
            // The same lane inactive: inline again.
            let a = Access {
                mask: mask & !(1 << lane),
                ..a
            };
            let r = run_both_with(&load_block_w(&a, true, 64), |_| {});
            assert_eq!(r, (0, 0), "{size} lane {lane} inactive");
        }
    }
}
