//! Runs of LDS accesses from one base address, lowered like a multi-dword access
//! (`lower::memory::multi`): one window test per lane for the whole run, then each piece in
//! order. Stores ([`store_run`]): consecutive `ds_store_b8/b16/b32` (and their `d16_hi`
//! forms) of one exec mask at constant offsets from the same address register, with only
//! their address and data arithmetic and instruction counts in between, as a tile copy into
//! LDS writes them (`ds_store_b16 v, v1 offset:0/80/160/…`). Loads ([`load_run`]):
//! consecutive `ds_load_b32..b128` into distinct registers from a few address registers, at
//! any offsets, as a GEMM reads its operand tiles (`ds_load_b128 v[27:30], v23; … v24
//! offset:5120; … v24 offset:6416; … v24 offset:6400; … v23 offset:32`), and the same of
//! `global_load_dword..x4` from register pairs (`global_load_dwordx4 v[86:89], v[68:69];
//! … v[68:69] offset:16; … v[66:67]`).

use super::memory::{affine, vgpr_row, Multi, RunAddr, RunBase, MULTI_SPAN};
use crate::env::Space;
use crate::ir::{BinOp, Block, ConvOp, Op, Ty, Val};
use crate::wave::NUM_VREGS;

/// The most stores one run takes.
const MAX_PIECES: usize = 16;

/// The base of an address: a value, the zero extension of a 32-bit value, that of a
/// register's row (the lifter reads and extends the address register again for each
/// instruction), or two registers' rows as one 64-bit value (a global address).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Base {
    Val(u32),
    ZExt(u32),
    ZExtRow(u16),
    PairRows(u16, u16),
}

impl Base {
    /// Whether the base is read from registers' rows.
    fn rows(self) -> bool {
        matches!(self, Base::ZExtRow(_) | Base::PairRows(..))
    }

    /// Whether register `r` is (part of) the base.
    fn reads(self, r: u16) -> bool {
        match self {
            Base::ZExtRow(x) => x == r,
            Base::PairRows(lo, hi) => lo == r || hi == r,
            _ => false,
        }
    }
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
        Some(Op::Pack { lo, hi }) => match (vgpr_row(blk, *lo, at), vgpr_row(blk, *hi, at)) {
            (Some(l), Some(h)) => (Base::PairRows(l, h), c),
            _ => (Base::Val(v.0), c),
        },
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
        bases: vec![RunBase::first(span)],
        base_of: vec![0; sizes.len()],
        sizes,
    })
}

/// The most dword loads one load run takes.
const MAX_LOADS: usize = 64;

/// Widest byte range one base of a load run may cover (from its lowest piece to the end of
/// its highest): more than any LDS (gfx950's is 160 KiB); the window test decides.
const LOAD_RUN_SPAN: u64 = 1 << 18;

/// The most address registers (or pairs) of a load run: when the first piece's base is a
/// register's row (or a pair's), more rows may follow (a GEMM reads its A and B tiles from
/// two registers in turn, and its global tiles from three pairs).
const MAX_BASES: usize = 4;

/// One base of a load run while it is found: the base, the constant of the first piece from
/// it, and the lowest and highest constants of its pieces (as offsets from that first one).
struct Found {
    base: Base,
    c0: u64,
    lo: i64,
    hi: i64,
}

/// The load run starting at op `i`, if it is one (see the module documentation): dword loads
/// of `V32` lanes from LDS or global memory (the pieces of several `ds_load_b32..b128` or
/// `global_load_dword..x4`, any pcs, one mask, one space) at constant offsets, positive or
/// negative, from the first's address or, when that is a register's row (a pair's), from up
/// to [`MAX_BASES`] rows (pairs), each base's pieces within [`LOAD_RUN_SPAN`] bytes; each
/// load used only by its `SetVgpr` (the load's mask or all ones; distinct registers, none an
/// address register), with only constants, address arithmetic and instruction counts
/// between. Constants are hoisted, and so are the register reads and address arithmetic a
/// later op uses (none of a register the run writes); the rest of what the range makes is
/// used inside it only. Runs of one instruction are left to
/// [`super::memory::multi_access`].
pub(crate) fn load_run(blk: &Block, i: usize, uses: &[u32], last_use: &[usize]) -> Option<Multi> {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let load = |k: usize| match blk.ops.get(k) {
        Some(Op::Load {
            pc,
            space,
            addr,
            size: 4,
            signed: false,
            mask,
        }) if blk.types[k] == Some(Ty::V32)
            && ty(addr) == Some(Ty::V64)
            && *space != Space::Scratch =>
        {
            Some((*pc, *space, *addr, *mask))
        }
        _ => None,
    };
    let (pc0, space, addr, mask) = load(i)?;
    let (base, c0) = base_of(blk, addr, i);
    let is_const = |v: &Val| matches!(blk.ops.get(v.0 as usize), Some(Op::Const { .. }));
    let mut bases = vec![Found {
        base,
        c0,
        lo: 0,
        hi: 4,
    }];
    // Pieces: op, base, offset from the base's first piece.
    let mut pieces: Vec<(usize, usize, i64)> = vec![(i, 0, 0)];
    let mut dest: Vec<Option<(u16, bool)>> = vec![None];
    let mut hoist = Vec::new();
    let mut last = i;
    let mut pcs = 1;
    let is_base = |bases: &[Found], reg: u16| bases.iter().any(|f| f.base.reads(reg));
    for k in i + 1..blk.ops.len().min(i + 512) {
        if let Some((pc, sp, a, m)) = load(k) {
            let (b, c) = base_of(blk, a, k);
            if m != mask || sp != space || pieces.len() == MAX_LOADS {
                break;
            }
            let x = match bases.iter().position(|f| f.base == b) {
                Some(x) => x,
                None => {
                    // Another register (pair): when the first base is rows too, and no load
                    // so far wrote the registers (the rows are read before the run).
                    let written = dest.iter().flatten().any(|&(d, _)| b.reads(d));
                    if bases.len() == MAX_BASES || !bases[0].base.rows() || !b.rows() || written {
                        break;
                    }
                    bases.push(Found {
                        base: b,
                        c0: c,
                        lo: 0,
                        hi: 4,
                    });
                    bases.len() - 1
                }
            };
            let f = &mut bases[x];
            let d = c.wrapping_sub(f.c0) as i64;
            let (lo, hi) = (f.lo.min(d), f.hi.max(d.saturating_add(4)));
            if hi.saturating_sub(lo) > LOAD_RUN_SPAN as i64 {
                break;
            }
            (f.lo, f.hi) = (lo, hi);
            if pc != pc0 {
                pcs += 1;
            }
            pieces.push((k, x, d));
            dest.push(None);
            continue;
        }
        match &blk.ops[k] {
            Op::Const { .. } => hoist.push(k),
            Op::Broadcast(x) if is_const(x) => hoist.push(k),
            Op::CountVector { .. }
            | Op::GetVgpr(_)
            | Op::Conv(ConvOp::ZExt, _)
            | Op::Pack { .. } => {}
            Op::Bin(BinOp::Add, ..) if blk.types[k] == Some(Ty::V64) => {}
            Op::SetVgpr { reg, val, mask: wm } => {
                let Some(p) = pieces.iter().position(|&(o, ..)| o == val.0 as usize) else {
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
                    || is_base(&bases, *reg)
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
    while pieces.last().is_some_and(|&(k, ..)| k > last) {
        pieces.pop();
        dest.pop();
    }
    hoist.retain(|&k| k < last);
    if pieces.len() < 2 || pcs < 2 {
        return None;
    }
    let once = pieces
        .iter()
        .all(|&(k, ..)| uses.get(k).copied() == Some(1));
    let dest: Vec<(u16, bool)> = dest.into_iter().collect::<Option<_>>()?;
    if !once {
        return None;
    }
    // What the range makes and a later op uses (a register pair read once for this run's
    // address and the next's) is hoisted with what it needs from the range: register reads
    // of registers the run does not write, and address arithmetic.
    let mut hoisted = vec![false; last + 1];
    for &k in &hoist {
        hoisted[k] = true;
    }
    let mut need: Vec<usize> = (i..=last)
        .filter(|&k| !hoisted[k] && last_use.get(k).is_none_or(|&l| l > last))
        .collect();
    while let Some(k) = need.pop() {
        if k < i || hoisted[k] {
            continue;
        }
        let movable = match &blk.ops[k] {
            Op::GetVgpr(r) => dest.iter().all(|&(d, _)| d != *r),
            Op::Pack { .. } | Op::Conv(ConvOp::ZExt, _) | Op::Const { .. } => true,
            Op::Broadcast(x) => is_const(x) || blk.types[k] == Some(Ty::V64),
            Op::Bin(BinOp::Add, ..) => blk.types[k] == Some(Ty::V64),
            _ => false,
        };
        if !movable {
            return None;
        }
        hoisted[k] = true;
        need.extend(blk.ops[k].operands().iter().map(|v| v.0 as usize));
    }
    let hoist: Vec<usize> = (i..=last).filter(|&k| hoisted[k]).collect();
    // Each base's range from the pieces taken (a base whose pieces all went is dropped).
    let used: Vec<usize> = (0..bases.len())
        .filter(|&x| pieces.iter().any(|&(_, b, _)| b == x))
        .collect();
    let mut run_bases = Vec::new();
    for &x in &used {
        let f = &bases[x];
        let mine = pieces.iter().filter(|&&(_, b, _)| b == x).map(|&(.., d)| d);
        let lo = mine.clone().min()?;
        let hi = mine.max()? + 4;
        // A row's address is its zero extension (a pair's, its value) plus the pieces'
        // lowest constant; the first piece's (not rows) is its address plus the lowest
        // offset.
        let (addr, bias) = match (f.base, x) {
            (Base::ZExtRow(r), _) => (RunAddr::Row(r), f.c0.wrapping_add(lo as u64)),
            (Base::PairRows(l, h), _) => (RunAddr::Pair(l, h), f.c0.wrapping_add(lo as u64)),
            (_, 0) => (RunAddr::First, lo as u64),
            _ => return None,
        };
        run_bases.push((
            RunBase {
                addr,
                bias,
                span: (hi - lo) as u64,
            },
            lo,
        ));
    }
    let base_of: Vec<u8> = pieces
        .iter()
        .map(|&(_, b, _)| used.iter().position(|&x| x == b).unwrap_or(0) as u8)
        .collect();
    let pieces: Vec<(usize, u64)> = pieces
        .iter()
        .zip(&base_of)
        .map(|(&(k, _, d), &x)| (k, (d - run_bases[x as usize].1) as u64))
        .collect();
    Some(Multi {
        first: i,
        last,
        load: true,
        sizes: vec![4; pieces.len()],
        pieces,
        dest,
        hoist,
        bases: run_bases.into_iter().map(|(b, _)| b).collect(),
        base_of,
    })
}
