//! Stores whose lane `l` writes `a0 ^ (size * l)` (the JIT's lane-XOR path,
//! `jit::lower::memory::lanexor`: Triton's swizzled shared-memory tile writes; LDS only, so
//! global stores of the same shape check the general path) against the interpreter. The harness (`super::memory`) poisons the registers, fills memory with a
//! non-repeating pattern and compares the exit, every register and memory. Every XOR value,
//! blocks at the window's start and end, wave64 and wave32, every EXEC shape, a misaligned
//! `a0`, lanes off the pattern (active or not) and a block outside the window (the fault as
//! the interpreter's).

use super::memory::{run_both_with, store_block_w, Access, GLOBAL_LEN, LDS_LEN};
use wavejit_translator::env::Space;

const MASKS: [u64; 6] = [
    u64::MAX,
    0xFFFF_FFFF,
    0xFFFF_FFFF_0000_0000,
    0x8000_0001_F0F0_1235,
    1 << 40,
    0,
];

/// Lane `l`'s offset for the block at `base` (aligned to `wave * size`) and XOR value `k`
/// (in elements).
fn xored(base: u64, k: u64, size: u8) -> impl Fn(usize) -> u64 {
    move |l| base + ((k ^ l as u64) * u64::from(size))
}

/// Runs the store of `a` in both engines; returns the helper calls.
fn check(a: &Access, wave: u32) -> u32 {
    run_both_with(&store_block_w(a, wave), |_| {}).1
}

#[test]
fn xor_permuted_stores_match_the_interpreter() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        let len = len as u64;
        for size in [1u8, 2, 4] {
            for wave in [64u32, 32] {
                let block = u64::from(wave) * u64::from(size);
                for base in [0, 3 * block, len - block] {
                    for k in [0u64, 1, 5, 8, 31, 63] {
                        let k = k % u64::from(wave);
                        for &mask in &MASKS {
                            let a = Access::new(space, mask, size, xored(base, k, size));
                            let active = mask & (u64::MAX >> (64 - wave)) != 0;
                            // Inline (some path of the generated code) whenever a lane runs.
                            let want = u32::from(!active);
                            let what = format!("{space:?} {size} w{wave} {base} {k} {mask:#x}");
                            assert_eq!(check(&a, wave), want, "{what}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn lanes_off_the_xor_pattern_take_the_general_path() {
    for (space, len) in [(Space::Global, GLOBAL_LEN), (Space::Lds, LDS_LEN)] {
        lanes_off_the_xor_pattern_in(space, len as u64);
    }
}

fn lanes_off_the_xor_pattern_in(space: Space, len: u64) {
    for size in [2u8, 4] {
        let on = xored(256, 9, size);
        for &mask in &MASKS {
            // A misaligned block (every lane one byte on).
            let a = Access::new(space, mask, size, |l| on(l) + 1);
            check(&a, 64);
            for lane in [1usize, 7, 31, 32, 63] {
                // One lane elsewhere (in the window), active or not.
                let a = Access::new(space, mask, size, |l| {
                    if l == lane {
                        4000 + l as u64
                    } else {
                        on(l)
                    }
                });
                check(&a, 64);
                // The same lane far outside every window: a fault when it is active.
                let a = Access::new(space, mask, size, |l| {
                    if l == lane {
                        0x4000_0000_0000
                    } else {
                        on(l)
                    }
                });
                check(&a, 64);
            }
        }
        // The whole block past the window's end: a fault when a lane is active.
        for base in [len, 0x1_0000_0000] {
            for &mask in &MASKS {
                check(&Access::new(space, mask, size, xored(base, 3, size)), 64);
            }
        }
    }
}
