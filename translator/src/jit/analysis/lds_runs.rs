//! Runs of LDS accesses from one base address, lowered like a multi-dword access
//! (`lower::memory::multi`): one window test per lane for the whole run, then each piece in
//! order. Stores ([`store_run`]): consecutive `ds_store_b8/b16/b32` (and their `d16_hi`
//! forms) of one exec mask at constant offsets from the same address register, with only
//! their address and data arithmetic and instruction counts in between, as a tile copy into
//! LDS writes them (`ds_store_b16 v, v1 offset:0/80/160/…`). Loads ([`load_run`]):
//! consecutive `ds_load_b32..b128` from one address register into distinct registers, as a
//! GEMM reads its operand tiles (`ds_load_b128 v[27:30], v23; … v23 offset:16`).

use super::memory::{affine, vgpr_row, Multi, MULTI_SPAN};
use crate::env::Space;
use crate::ir::{BinOp, Block, ConvOp, Op, Ty, Val};
use crate::wave::NUM_VREGS;

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
    let (root, c) = affine(blk, v);
    let v = Val(root);
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

/// The most dword loads one load run takes.
const MAX_LOADS: usize = 64;

/// The load run starting at op `i`, if it is one (see the module documentation): dword loads
/// of `V32` lanes from LDS (the pieces of several `ds_load_b32..b128`, any pcs, one mask) at
/// offsets `0..MULTI_SPAN` from the first's address, each used only by its `SetVgpr` (the
/// load's mask or all ones; distinct registers, none the address register), with only
/// constants, address arithmetic and instruction counts between. Constants are hoisted; the
/// other values the range makes are used inside it only. Runs of one instruction are left
/// to [`super::memory::multi_access`].
pub(crate) fn load_run(blk: &Block, i: usize, uses: &[u32], last_use: &[usize]) -> Option<Multi> {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let load = |k: usize| match blk.ops.get(k) {
        Some(Op::Load {
            pc,
            space: Space::Lds,
            addr,
            size: 4,
            signed: false,
            mask,
        }) if blk.types[k] == Some(Ty::V32) && ty(addr) == Some(Ty::V64) => {
            Some((*pc, *addr, *mask))
        }
        _ => None,
    };
    let (pc0, addr, mask) = load(i)?;
    let (base, c0) = base_of(blk, addr, i);
    let is_const = |v: &Val| matches!(blk.ops.get(v.0 as usize), Some(Op::Const { .. }));
    let mut pieces = vec![(i, 0u64)];
    let mut dest: Vec<Option<(u16, bool)>> = vec![None];
    let mut hoist = Vec::new();
    let mut last = i;
    let mut pcs = 1;
    for k in i + 1..blk.ops.len().min(i + 512) {
        if let Some((pc, a, m)) = load(k) {
            let (b, c) = base_of(blk, a, k);
            let d = c.wrapping_sub(c0);
            if m != mask || b != base || d + 4 > MULTI_SPAN || pieces.len() == MAX_LOADS {
                break;
            }
            if pc != pc0 {
                pcs += 1;
            }
            pieces.push((k, d));
            dest.push(None);
            continue;
        }
        match &blk.ops[k] {
            Op::Const { .. } => hoist.push(k),
            Op::Broadcast(x) if is_const(x) => hoist.push(k),
            Op::CountVector { .. } | Op::GetVgpr(_) | Op::Conv(ConvOp::ZExt, _) => {}
            Op::Bin(BinOp::Add, ..) if blk.types[k] == Some(Ty::V64) => {}
            Op::SetVgpr { reg, val, mask: wm } => {
                let Some(p) = pieces.iter().position(|&(o, _)| o == val.0 as usize) else {
                    break;
                };
                let ones = matches!(
                    blk.ops.get(wm.0 as usize),
                    Some(Op::Const { bits: u64::MAX, .. })
                );
                let taken = dest.iter().flatten().any(|&(r, _)| r == *reg);
                if dest[p].is_some()
                    || *wm != mask && !ones
                    || *reg as usize >= NUM_VREGS
                    || taken
                    || base == Base::ZExtRow(*reg)
                {
                    break;
                }
                dest[p] = Some((*reg, *wm != mask));
                last = k;
            }
            _ => break,
        }
    }
    // The range ends at the last register write: a load without its write is not taken.
    while pieces.last().is_some_and(|&(k, _)| k > last) {
        pieces.pop();
        dest.pop();
    }
    hoist.retain(|&k| k < last);
    if pieces.len() < 2 || pcs < 2 {
        return None;
    }
    let inside = (i..=last)
        .filter(|k| !hoist.contains(k))
        .all(|k| last_use.get(k).is_some_and(|&l| l <= last));
    let once = pieces.iter().all(|&(k, _)| uses.get(k).copied() == Some(1));
    let dest: Vec<(u16, bool)> = dest.into_iter().collect::<Option<_>>()?;
    if !inside || !once {
        return None;
    }
    let span = pieces.iter().map(|&(_, d)| d + 4).max().unwrap_or(4);
    Some(Multi {
        first: i,
        last,
        load: true,
        sizes: vec![4; pieces.len()],
        pieces,
        dest,
        hoist,
        span,
    })
}
