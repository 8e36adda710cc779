//! Multi-dword LDS loads whose lane addresses are a register's row in any lane order (the
//! JIT's span path, `jit::lower::memory::lds_span`: Triton's XOR-swizzled `ds_read_b64`)
//! against the interpreter. The blocks have the lifter's form (`zext(v6) + offset` per
//! piece, pieces written to v0..v3); the harness (`super::memory`) poisons the registers,
//! fills memory with a non-repeating pattern and compares the exit (a fault's lane and
//! address), every register and memory. Patterns: Triton's swizzle, a lane permutation,
//! every lane at one address, descending lanes, lanes at the window's last bytes; every
//! EXEC shape; lanes past the window's end (active or not); two address registers in one
//! block (a load run); wave32 with lanes 32..63 far outside.

use super::memory::{run_both_with, LDS_LEN};
use wavejit_translator::env::Space;
use wavejit_translator::ir::*;

const MASKS: [u64; 6] = [u64::MAX, 0xFFFF_FFFF, 0x8000_0001_F0F0_1235, 1 << 40, 1, 0];

/// The lifter's form of `ds_read_b<32 * n>` from address register `areg` plus `offset`
/// under `mask`, the pieces into v<dest>.., for each `(areg, dest)` of `reads` in order.
fn read_block(reads: &[(u16, u16)], n: u32, offset: u64, mask: u64, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let m = b.push(
        Op::Const {
            ty: Ty::S64,
            bits: mask,
        },
        Some(Ty::S64),
    );
    for (x, &(areg, dest)) in reads.iter().enumerate() {
        let pc = 0x100 + 8 * x as u64;
        let a = b.push(Op::GetVgpr(areg), Some(Ty::V32));
        let z = b.push(Op::Conv(ConvOp::ZExt, a), Some(Ty::V64));
        let mut vals = Vec::new();
        for k in 0..n {
            let c = b.push(
                Op::Const {
                    ty: Ty::S64,
                    bits: offset + 4 * k as u64,
                },
                Some(Ty::S64),
            );
            let c = b.push(Op::Broadcast(c), Some(Ty::V64));
            let ak = b.push(Op::Bin(BinOp::Add, z, c), Some(Ty::V64));
            vals.push(b.push(
                Op::Load {
                    pc,
                    space: Space::Lds,
                    addr: ak,
                    size: 4,
                    signed: false,
                    mask: m,
                },
                Some(Ty::V32),
            ));
        }
        for (k, v) in vals.into_iter().enumerate() {
            b.push(
                Op::SetVgpr {
                    reg: dest + k as u16,
                    val: v,
                    mask: m,
                },
                None,
            );
        }
    }
    b.finish(Exit::Jump(0x200))
}

/// The lifter's form of `ds_write_b<32 * n>` of v2, v3, v2, .. at v6 plus `offset` under
/// `mask` (pieces of `size` bytes at `size * k`).
fn write_block(n: u32, size: u8, offset: u64, mask: u64, wave: u32) -> Block {
    let mut b = Builder::new(0x100, wave);
    let m = b.push(
        Op::Const {
            ty: Ty::S64,
            bits: mask,
        },
        Some(Ty::S64),
    );
    let a = b.push(Op::GetVgpr(6), Some(Ty::V32));
    let z = b.push(Op::Conv(ConvOp::ZExt, a), Some(Ty::V64));
    for k in 0..n {
        let c = b.push(
            Op::Const {
                ty: Ty::S64,
                bits: offset + u64::from(size) * k as u64,
            },
            Some(Ty::S64),
        );
        let c = b.push(Op::Broadcast(c), Some(Ty::V64));
        let ak = b.push(Op::Bin(BinOp::Add, z, c), Some(Ty::V64));
        let data = b.push(Op::GetVgpr(2 + (k % 2) as u16), Some(Ty::V32));
        b.push(
            Op::Store {
                pc: 0x100,
                space: Space::Lds,
                addr: ak,
                size,
                data,
                mask: m,
            },
            None,
        );
    }
    b.finish(Exit::Jump(0x200))
}

/// A lane's address.
type Pattern = Box<dyn Fn(usize) -> u32>;

/// Triton's gfx942 A-operand read: lane `l` at `64 (l % 32) + 8 ((l / 2) % 8 ^ l / 32)`.
fn swizzle(l: usize) -> u32 {
    (64 * (l % 32) + 8 * (((l >> 1) & 7) ^ (l >> 5))) as u32
}

/// Runs the block with v6 (and v7) holding the lane addresses; returns the requests that
/// reached the environment.
fn check(block: &Block, v6: &dyn Fn(usize) -> u32, v7: &dyn Fn(usize) -> u32) -> u32 {
    run_both_with(block, |s| {
        for l in 0..64 {
            s.vgpr[6][l] = v6(l);
            s.vgpr[7][l] = v7(l);
        }
    })
    .0
}

#[test]
fn lanes_in_any_order_match_the_interpreter() {
    let len = LDS_LEN as u32;
    for n in [2u32, 4] {
        let span = 4 * n;
        let patterns: [(&str, Pattern); 6] = [
            ("swizzle", Box::new(swizzle)),
            (
                "permuted",
                Box::new(move |l| span * ((l * 37 + 11) % 64) as u32),
            ),
            ("one address", Box::new(|_| 96)),
            ("descending", Box::new(move |l| span * (63 - l) as u32 + 4)),
            (
                "at the end",
                Box::new(move |l| len - span * (1 + (l % 8) as u32)),
            ),
            (
                "unaligned",
                Box::new(move |l| 3 + span * ((l * 5) % 64) as u32),
            ),
        ];
        for (name, p) in &patterns {
            for offset in [0u64, 8, 512] {
                // Lanes whose last byte would pass the window's end with this offset.
                let fits =
                    (0..64).all(|l| u64::from(p(l)) + offset + u64::from(span) <= len as u64);
                for &mask in &MASKS {
                    for wave in [64u32, 32] {
                        let blk = read_block(&[(6, 0)], n, offset, mask, wave);
                        let slow = check(&blk, p.as_ref(), &|l| l as u32);
                        if fits {
                            assert_eq!(slow, 0, "{name} b{} +{offset} {mask:#x} w{wave}", 32 * n);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn lanes_past_the_window_fault_as_the_interpreter() {
    let len = LDS_LEN as u32;
    for n in [2u32, 4] {
        let span = 4 * n;
        for &mask in &MASKS {
            for lane in [0usize, 1, 31, 32, 63] {
                // One lane's last byte one past the end, then far outside; active or not.
                for bad in [len - span + 1, len, 0xFFFF_FFF0] {
                    let p = move |l: usize| if l == lane { bad } else { swizzle(l) };
                    for wave in [64u32, 32] {
                        let blk = read_block(&[(6, 0)], n, 0, mask, wave);
                        check(&blk, &p, &|l| l as u32);
                    }
                }
            }
        }
        // Wave32: lanes 32..63 of the address row far outside do not matter.
        for mask in MASKS.map(|m| m & 0xFFFF_FFFF) {
            let blk = read_block(&[(6, 0)], n, 0, mask, 32);
            let slow = check(
                &blk,
                &|l| if l < 32 { swizzle(l) } else { 0xFFFF_0000 },
                &|l| l as u32,
            );
            assert_eq!(slow, 0, "wave32 b{} {mask:#x}", 32 * n);
        }
    }
}

#[test]
fn two_address_registers_in_one_block_match_the_interpreter() {
    let len = LDS_LEN as u32;
    for &mask in &MASKS {
        for offset in [0u64, 16] {
            // Two `ds_read_b64` (a load run over v6 and v7), then one reading v7 past the end
            // in lane 40.
            let blk = read_block(&[(6, 0), (7, 2)], 2, offset, mask, 64);
            let slow = check(&blk, &swizzle, &|l| swizzle(l) ^ 16);
            assert_eq!(slow, 0, "{mask:#x} +{offset}");
            check(&blk, &swizzle, &|l| {
                if l == 40 {
                    len - 4
                } else {
                    swizzle(l) ^ 32
                }
            });
        }
    }
}

#[test]
fn stores_in_any_order_match_the_interpreter() {
    let len = LDS_LEN as u32;
    for n in [2u32, 4] {
        let span = 4 * n;
        let patterns: [(&str, Pattern); 5] = [
            ("swizzle", Box::new(swizzle)),
            (
                "permuted",
                Box::new(move |l| span * ((l * 37 + 11) % 64) as u32),
            ),
            // Lanes colliding: the last lane's bytes win, piece after piece.
            ("one address", Box::new(|_| 96)),
            ("overlapping", Box::new(|l| 4 * (l / 2) as u32)),
            (
                "at the end",
                Box::new(move |l| len - span * (1 + (l % 8) as u32)),
            ),
        ];
        for (name, p) in &patterns {
            for &mask in &MASKS {
                for wave in [64u32, 32] {
                    let blk = write_block(n, 4, 0, mask, wave);
                    let slow = check(&blk, p.as_ref(), &|l| l as u32);
                    assert_eq!(slow, 0, "{name} b{} {mask:#x} w{wave}", 32 * n);
                }
            }
        }
        // A lane past the end: active, the fault as the interpreter's (nothing written
        // before it is found); inactive, the others store.
        for lane in [0usize, 33, 63] {
            for bad in [len - span + 1, 0xFFFF_FFF0] {
                let p = move |l: usize| if l == lane { bad } else { swizzle(l) };
                for &mask in &MASKS {
                    check(&write_block(n, 4, 0, mask, 64), &p, &|l| l as u32);
                }
            }
        }
    }
    // Pieces of 2 bytes (`ds_write2`-like shorts in a store run).
    for &mask in &MASKS {
        check(&write_block(2, 2, 6, mask, 64), &swizzle, &|l| l as u32);
    }
}
