//! Runs of LDS stores from one base address ([`store_run`]): consecutive `ds_store_b8/b16/b32`
//! (and their `d16_hi` forms) of one exec mask at constant offsets from the same address
//! register, with only their address and data arithmetic and instruction counts in between,
//! as a tile copy into LDS writes them (`ds_store_b16 v, v1 offset:0/80/160/…`). Lowered
//! like a multi-dword store (`lower::memory::multi`): one window test per lane for the whole
//! run, then each store in order.

use super::memory::{vgpr_row, Multi, MULTI_SPAN};
use crate::env::Space;
use crate::ir::{BinOp, Block, ConvOp, Op, Ty, Val};

/// The most stores one run takes.
const MAX_PIECES: usize = 16;

/// The base of an address: a value, the zero extension of a 32-bit value, or that of a
/// register's row (the lifter reads and extends the address register again for each
/// instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Val(u32),
    ZExt(u32),
    ZExtRow(u16),
}

/// The address `v` of the store at op `at` as `base + c` (constants added as 64-bit
/// broadcasts); a register read counts as its row when no op before `at` writes the register
/// after the read ([`vgpr_row`]).
fn base_of(blk: &Block, v: Val, at: usize) -> (Base, u64) {
    let ops = &blk.ops;
    let bconst = |x: &Val| match ops.get(x.0 as usize) {
        Some(Op::Broadcast(s)) => match ops.get(s.0 as usize) {
            Some(Op::Const { bits, .. }) => Some(*bits),
            _ => None,
        },
        _ => None,
    };
    let (mut v, mut c) = (v, 0u64);
    for _ in 0..8 {
        let is64 = blk.types.get(v.0 as usize) == Some(&Some(Ty::V64));
        match ops.get(v.0 as usize) {
            Some(Op::Bin(BinOp::Add, x, y)) if is64 => {
                if let Some(k) = bconst(y) {
                    (v, c) = (*x, c.wrapping_add(k));
                } else if let Some(k) = bconst(x) {
                    (v, c) = (*y, c.wrapping_add(k));
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    match ops.get(v.0 as usize) {
        Some(Op::Conv(ConvOp::ZExt, x)) if blk.types.get(x.0 as usize) == Some(&Some(Ty::V32)) => {
            match vgpr_row(blk, *x, at) {
                Some(r) => (Base::ZExtRow(r), c),
                None => (Base::ZExt(x.0), c),
            }
        }
        _ => (Base::Val(v.0), c),
    }
}

/// An op a run may hold besides its stores: pure, no trap, no register write.
fn pure(op: &Op) -> bool {
    use BinOp::*;
    match op {
        Op::Const { .. } | Op::GetVgpr(_) | Op::GetSgpr(_) | Op::Broadcast(_) => true,
        Op::Bin(o, ..) => matches!(o, Add | Sub | Mul | And | Or | Xor | Shl | LShr | AShr),
        Op::Conv(o, _) => matches!(
            o,
            ConvOp::ZExt | ConvOp::SExt | ConvOp::Lo | ConvOp::Hi | ConvOp::ZExt16 | ConvOp::ZExt8
        ),
        Op::Pack { .. } => true,
        _ => false,
    }
}

/// The store run starting at op `i`, if it is one (see the module documentation): at least
/// two stores of `V32` data to LDS, each of 1, 2 or 4 bytes, at offsets `0..MULTI_SPAN`
/// from the first's address. The result is a store [`Multi`] whose `hoist` holds every
/// pure op of the range that a store's data or a later op needs (emitted before the run:
/// they only read registers, which the range does not write), and whose `sizes` gives each
/// store's width. `CountVector` ops of the range stay in it.
pub(crate) fn store_run(blk: &Block, i: usize, last_use: &[usize]) -> Option<Multi> {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let store = |k: usize| match blk.ops.get(k) {
        Some(Op::Store {
            pc: _,
            space: Space::Lds,
            addr,
            size: size @ (1 | 2 | 4),
            data,
            mask,
        }) if ty(data) == Some(Ty::V32) && ty(addr) == Some(Ty::V64) => {
            Some((*addr, *size, *data, *mask))
        }
        _ => None,
    };
    let (addr, size, _, mask) = store(i)?;
    let (base, c0) = base_of(blk, addr, i);
    let mut pieces = vec![(i, 0u64)];
    let mut sizes = vec![size];
    let mut last = i;
    for k in i + 1..blk.ops.len().min(i + 256) {
        if let Some((a, s, _, m)) = store(k) {
            let (b, c) = base_of(blk, a, k);
            let d = c.wrapping_sub(c0);
            if m != mask || b != base || d + u64::from(s) > MULTI_SPAN {
                break;
            }
            pieces.push((k, d));
            sizes.push(s);
            last = k;
            if pieces.len() == MAX_PIECES {
                break;
            }
            continue;
        }
        match &blk.ops[k] {
            Op::CountVector { .. } => {}
            op if pure(op) => {}
            _ => break,
        }
    }
    if pieces.len() < 2 {
        return None;
    }
    // Hoisted: what a store's data or an op after the run reads, with its operands in the
    // range; constants (later ops may use them).
    let mut hoist = vec![false; last + 1];
    let mut need: Vec<usize> = pieces
        .iter()
        .filter_map(|&(k, _)| store(k).map(|(.., d, _)| d.0 as usize))
        .collect();
    for k in i + 1..last {
        let escapes = last_use.get(k).is_some_and(|&l| l > last);
        if matches!(blk.ops[k], Op::Const { .. }) || escapes {
            need.push(k);
        }
    }
    while let Some(k) = need.pop() {
        if k <= i || k >= last || hoist[k] {
            continue;
        }
        if matches!(blk.ops[k], Op::Store { .. } | Op::CountVector { .. }) {
            return None;
        }
        hoist[k] = true;
        need.extend(blk.ops[k].operands().iter().map(|v| v.0 as usize));
    }
    let span = pieces
        .iter()
        .zip(&sizes)
        .map(|(&(_, d), &s)| d + u64::from(s))
        .max()
        .unwrap_or(4);
    Some(Multi {
        first: i,
        last,
        load: false,
        pieces,
        dest: Vec::new(),
        hoist: (i + 1..last).filter(|&k| hoist[k]).collect(),
        span,
        sizes,
    })
}
