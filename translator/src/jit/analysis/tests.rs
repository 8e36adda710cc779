//! The analyses on hand-built blocks, each expectation worked out from the IR by hand.

use super::matrix::matrix_neighbour;
use super::memory::{
    affine, fused_load_pieces, multi_access, stride_guess, vgpr_row, MemLowering, INLINE_MEM_OPS,
};
use super::runs::{classify, run_extent, OpClass};
use super::{last_uses, use_counts, BlockFacts};
use crate::env::Space;
use crate::ir::{BinOp, Block, Builder, CmpOp, Exit, Op, Ty, Val};

fn c64(b: &mut Builder, x: u64) -> Val {
    b.push(
        Op::Const {
            ty: Ty::S64,
            bits: x,
        },
        Some(Ty::S64),
    )
}

/// `base + off` as the lifter forms a piece's address: a broadcast constant added to a
/// `V64` address.
fn offset_addr(b: &mut Builder, base: Val, off: u64) -> Val {
    let c = c64(b, off);
    let v = b.push(Op::Broadcast(c), Some(Ty::V64));
    b.push(Op::Bin(BinOp::Add, base, v), Some(Ty::V64))
}

fn load(b: &mut Builder, pc: u64, space: Space, addr: Val, mask: Val) -> Val {
    b.push(
        Op::Load {
            pc,
            space,
            addr,
            size: 4,
            signed: false,
            mask,
        },
        Some(Ty::V32),
    )
}

/// A `global_load_dwordx4`-like access as the lifter splits it: the address from two VGPRs,
/// four dword loads at `+0, +4, +8, +12` (the first at `base + 0x100`), each written to its
/// register (v10..v13) under EXEC. Returns the block and the index of the first load.
fn dwordx4(wave: u32) -> (Block, usize) {
    let mut b = Builder::new(0x1000, wave);
    let exec = b.push(Op::GetSgpr(126), Some(Ty::S32));
    let exec = b.push(Op::Conv(crate::ir::ConvOp::ZExt, exec), Some(Ty::S64));
    let lo = b.push(Op::GetVgpr(0), Some(Ty::V32));
    let hi = b.push(Op::GetVgpr(1), Some(Ty::V32));
    let base = b.push(Op::Pack { lo, hi }, Some(Ty::V64));
    let a0 = offset_addr(&mut b, base, 0x100);
    let first = b.len();
    let mut addr = a0;
    for k in 0..4u16 {
        if k > 0 {
            addr = offset_addr(&mut b, a0, 4 * k as u64);
        }
        let x = load(&mut b, 0x1000, Space::Global, addr, exec);
        b.push(
            Op::SetVgpr {
                reg: 10 + k,
                val: x,
                mask: exec,
            },
            None,
        );
    }
    (b.finish(Exit::EndPgm), first)
}

#[test]
fn affine_follows_adds_of_broadcast_constants() {
    let mut b = Builder::new(0, 64);
    let lo = b.push(Op::GetVgpr(0), Some(Ty::V32));
    let base = b.push(Op::Pack { lo, hi: lo }, Some(Ty::V64));
    let a = offset_addr(&mut b, base, 0x10);
    let a = offset_addr(&mut b, a, u64::MAX); // -1, wrapping
    let blk = b.finish(Exit::EndPgm);
    assert_eq!(affine(&blk, a), (base.0, 0xF));
    assert_eq!(affine(&blk, base), (base.0, 0));
}

#[test]
fn multi_access_finds_a_split_dwordx4_load() {
    let (blk, first) = dwordx4(64);
    let uses = use_counts(&blk);
    let last = last_uses(&blk);
    let mu = multi_access(&blk, first, &uses, &last).expect("a multi-dword load");
    assert!(mu.load);
    assert_eq!(mu.first, first);
    assert_eq!(mu.last, blk.ops.len() - 1);
    let offs: Vec<u64> = mu.pieces.iter().map(|&(_, d)| d).collect();
    assert_eq!(offs, [0, 4, 8, 12]);
    // Registers v10..v13, each written under the load's own mask (not all-ones).
    assert_eq!(
        mu.dest,
        [(10, false), (11, false), (12, false), (13, false)]
    );
    assert_eq!(mu.bases[0].span, 16);
    // The offset constants and their broadcasts are hoisted; the adds are not.
    for &h in &mu.hoist {
        assert!(matches!(blk.ops[h], Op::Const { .. } | Op::Broadcast(_)));
    }
    assert_eq!(mu.hoist.len(), 6);
    // Not at the second piece (it would need the first's address root at +0).
    let second = mu.pieces[1].0;
    let later = multi_access(&blk, second, &uses, &last).expect("pieces 2..4");
    assert_eq!(later.pieces.len(), 3);
}

#[test]
fn multi_access_rejects_a_piece_used_twice() {
    let (mut blk, first) = dwordx4(64);
    // A second use of the first piece's value (a register write after the access).
    let x = Val(first as u32);
    blk.ops.push(Op::SetVgpr {
        reg: 20,
        val: x,
        mask: Val(1),
    });
    blk.types.push(None);
    let uses = use_counts(&blk);
    let last = last_uses(&blk);
    assert!(multi_access(&blk, first, &uses, &last).is_none());
}

#[test]
fn fused_load_pieces_and_stride_guess() {
    let (blk, first) = dwordx4(64);
    let pieces = fused_load_pieces(&blk, first).expect("pieces");
    assert_eq!(pieces.len(), 4);
    assert_eq!(pieces[0], first);
    // Four dword pieces of one instruction: a 16-byte lane stride; LDS expects the size.
    assert_eq!(stride_guess(&blk, 0x1000, Space::Global, 4), 16);
    assert_eq!(stride_guess(&blk, 0x1000, Space::Lds, 4), 4);
    assert_eq!(stride_guess(&blk, 0x2000, Space::Global, 4), 4);
    // The last piece starts nothing.
    assert!(fused_load_pieces(&blk, *pieces.last().unwrap()).is_none());
}

#[test]
fn vgpr_row_until_the_register_is_written() {
    let mut b = Builder::new(0, 64);
    let all = c64(&mut b, u64::MAX);
    let v = b.push(Op::GetVgpr(3), Some(Ty::V32));
    let w = b.push(Op::GetVgpr(4), Some(Ty::V32));
    b.push(
        Op::SetVgpr {
            reg: 3,
            val: w,
            mask: all,
        },
        None,
    );
    let blk = b.finish(Exit::EndPgm);
    assert_eq!(vgpr_row(&blk, v, 3), Some(3));
    assert_eq!(vgpr_row(&blk, v, 4), None);
    assert_eq!(vgpr_row(&blk, w, 4), Some(4));
}

#[test]
fn mem_lowering_by_count_of_vector_accesses() {
    let build = |n: usize| {
        let mut b = Builder::new(0, 64);
        let m = c64(&mut b, u64::MAX);
        let lo = b.push(Op::GetVgpr(0), Some(Ty::V32));
        let a = b.push(Op::Pack { lo, hi: lo }, Some(Ty::V64));
        for k in 0..n {
            load(&mut b, 4 * k as u64, Space::Global, a, m);
        }
        b.finish(Exit::EndPgm)
    };
    assert_eq!(
        MemLowering::of_block(&build(INLINE_MEM_OPS)),
        MemLowering::Inline
    );
    assert_eq!(
        MemLowering::of_block(&build(INLINE_MEM_OPS + 1)),
        MemLowering::Compact
    );
    assert!(MemLowering::Compact.fuses_pieces() && !MemLowering::Compact.inline_single());
    assert!(!MemLowering::Helper.fuses_pieces() && !MemLowering::Helper.inline_single());
}

/// `v2 = v0 + v1; vcc = v2 < v0` then `exec & vcc` selecting between `v0` and `v2`, and a
/// scalar load: lane ops, a uniform op after the compare whose group masks are derived,
/// and an op outside every run.
#[test]
fn runs_and_derived_masks() {
    let mut b = Builder::new(0, 64);
    let exec = c64(&mut b, 0xFFFF_0000_FFFF_0000); // 0
    let x = b.push(Op::GetVgpr(0), Some(Ty::V32)); // 1
    let y = b.push(Op::GetVgpr(1), Some(Ty::V32)); // 2
    let s = b.push(Op::Bin(BinOp::Add, x, y), Some(Ty::V32)); // 3
    let c = b.push(Op::Cmp(CmpOp::ULt, s, x), Some(Ty::S64)); // 4
    let m = b.push(Op::Bin(BinOp::And, exec, c), Some(Ty::S64)); // 5
    let r = b.push(
        Op::Select {
            cond: m,
            a: x,
            b: s,
        },
        Some(Ty::V32),
    ); // 6
    b.push(
        Op::SetVgpr {
            reg: 2,
            val: r,
            mask: exec,
        },
        None,
    ); // 7
    let a = c64(&mut b, 0x100); // 8
    b.push(Op::SLoad { pc: 0, addr: a }, Some(Ty::S32)); // 9
    let blk = b.finish(Exit::EndPgm);
    let classes: Vec<OpClass> = (0..blk.ops.len()).map(|i| classify(&blk, i)).collect();
    use OpClass::*;
    assert_eq!(
        classes,
        [Uniform, Lane, Lane, Lane, Lane, Uniform, Lane, Lane, Uniform, Other]
    );
    let run = run_extent(&blk, 0, &classes);
    // The run ends at the scalar load; the AND waits for the compare (a post op); the
    // constant after it is pure, so it need not wait.
    assert_eq!(run.end, 9);
    assert_eq!(
        run.post,
        [false, false, false, false, false, true, false, false, false]
    );
    // The select takes the AND as its lane mask: the group derives it from the compare.
    assert_eq!(run.derived, [5]);
}

#[test]
fn facts_and_matrix_neighbours() {
    let (blk, _) = dwordx4(32);
    let facts = BlockFacts::of(&blk);
    assert_eq!(facts.uses.len(), blk.ops.len());
    // EXEC (op 1) masks four loads and four register writes.
    assert_eq!(facts.uses[1], 8);
    assert_eq!(facts.mem, MemLowering::Inline);
    // No matrix ops: no neighbours.
    assert_eq!(matrix_neighbour(&blk, 0, true), None);
}
