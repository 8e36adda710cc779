//! Wave64 loads whose two half waves each read one row of consecutive elements (the JIT's
//! two-row path, `jit::lower::memory::rows`: Triton's 16-bit GEMM operand loads) against the
//! interpreter. The harness (`super::memory`) poisons the registers, fills memory with a
//! non-repeating pattern and compares the exit, every register and memory. Rows anywhere
//! (below, above, overlapping, unaligned, at a window's last byte), every EXEC shape (full,
//! one half, scattered, one lane, empty), inactive lanes off the pattern, active lanes off
//! it, and a row outside the window (the fault as the interpreter's).

use super::memory::{load_block_w, run_both_with, Access, GLOBAL_LEN, LDS_LEN};
use wavejit_translator::env::Space;

const MASKS: [u64; 7] = [
    u64::MAX,
    0xFFFF_FFFF,
    0xFFFF_FFFF_0000_0000,
    0x8000_0001_F0F0_1235,
    1 << 40,
    0x0000_0001_8000_0000,
    0,
];

/// Lane `l`'s offset for rows starting at `r0` (lanes 0..31) and `r1` (lanes 32..63).
fn rows(r0: u64, r1: u64, size: u8) -> impl Fn(usize) -> u64 {
    move |l| {
        let (r, i) = if l < 32 { (r0, l) } else { (r1, l - 32) };
        r + i as u64 * u64::from(size)
    }
}

/// Runs one access in both engines; returns the helper calls.
fn check(a: &Access, signed: bool, wave: u32) -> u32 {
    run_both_with(&load_block_w(a, signed, wave), |_| {}).1
}

#[test]
fn two_rows_of_elements_match_the_interpreter() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        let len = len as u64;
        for size in [1u8, 2, 4] {
            let row = 32 * u64::from(size);
            let starts = [
                // Far apart, the high row first, overlapping, unaligned.
                (64, 2048 + 6),
                (4000, 100),
                (1000, 1000 + row / 2),
                (333, 777),
                // Both rows the same.
                (512, 512),
                // The high row ending at the window's last byte.
                (8, len - row),
            ];
            for (r0, r1) in starts {
                for &mask in &MASKS {
                    let a = Access::new(space, mask, size, rows(r0, r1, size));
                    for signed in [false, true] {
                        let helpers = check(&a, signed, 64);
                        // Inline whenever a lane runs.
                        let want = u32::from(mask == 0);
                        assert_eq!(helpers, want, "{space:?} {size} {r0} {r1} {mask:#x}");
                        check(&a, signed, 32);
                    }
                }
            }
        }
    }
}

#[test]
fn lanes_off_the_rows_take_the_general_path() {
    let len = GLOBAL_LEN as u64;
    for size in [1u8, 2, 4] {
        let on = rows(128, 3000, size);
        for &mask in &MASKS {
            for lane in [1usize, 17, 31, 32, 33, 50, 63] {
                // One lane elsewhere (in the window): active or not, the result is the
                // interpreter's.
                let a = Access::new(Space::Global, mask, size, |l| {
                    if l == lane {
                        5000 + l as u64
                    } else {
                        on(l)
                    }
                });
                check(&a, false, 64);
                // The same lane far outside every window: a fault when it is active.
                let a = Access::new(Space::Global, mask, size, |l| {
                    if l == lane {
                        0x4000_0000_0000
                    } else {
                        on(l)
                    }
                });
                check(&a, true, 64);
            }
        }
        // A whole row past the window's end: its lanes fault when active; inactive, the
        // other row is read alone.
        for r1 in [len - 32 * u64::from(size) + 1, len + 64, 0x1_0000_0000] {
            for &mask in &MASKS {
                let a = Access::new(Space::Global, mask, size, rows(256, r1, size));
                check(&a, false, 64);
            }
        }
    }
}
