//! The shape of a block's memory accesses: addresses as a root plus a constant
//! ([`affine`]), multi-dword accesses the lifter split into dword pieces
//! ([`multi_access`]), the stride the inline path expects ([`stride_guess`]), and how a
//! block's single accesses are lowered ([`MemLowering`]).

use crate::env::Space;
use crate::ir::{BinOp, Block, Op, Ty, Val};
use crate::wave::NUM_VREGS;
use std::collections::HashMap;

/// Most vector loads and stores a block may have for each to get inline code
/// (the fixed-stride and per-lane forms of `lower::memory`, some KB each): a block with more (a GEMM's
/// epilogue of 128 stores, run once per wave) runs faster through the helpers' one compact
/// loop than through that much code, and compiles much faster. Multi-dword accesses
/// ([`multi_access`]) keep their inline form.
pub(crate) const INLINE_MEM_OPS: usize = 64;

/// Largest byte distance from the first piece of a multi-dword access to the end of its last
/// piece ([`multi_access`]): `ds_read2_b32`/`ds_write2_b32` offsets reach 1020 + 4.
pub(crate) const MULTI_SPAN: u64 = 1024;

/// How the single vector loads and stores of a block (those not lowered as part of a
/// multi-dword access, [`multi_access`]) are lowered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemLowering {
    /// Inline paths before the helper: a multi-dword load's pieces at once
    /// ([`fused_load_pieces`]), then the fixed-stride path, then any lanes inside one window.
    Inline,
    /// The block has more vector memory ops than [`INLINE_MEM_OPS`]: only a multi-dword
    /// load's pieces at once keep an inline path; every other access calls its helper.
    Compact,
    /// Every access calls its helper (the fallback of a multi-dword access).
    Helper,
}

impl MemLowering {
    /// The lowering of `blk`'s single accesses: [`MemLowering::Compact`] when it has more
    /// than [`INLINE_MEM_OPS`] vector loads and stores, else [`MemLowering::Inline`].
    pub fn of_block(blk: &Block) -> MemLowering {
        let mem_ops = blk
            .ops
            .iter()
            .filter(|o| matches!(o, Op::Load { .. } | Op::Store { .. }))
            .count();
        if mem_ops > INLINE_MEM_OPS {
            MemLowering::Compact
        } else {
            MemLowering::Inline
        }
    }

    /// Whether a multi-dword load's first piece tries all pieces at once.
    pub fn fuses_pieces(self) -> bool {
        self != MemLowering::Helper
    }

    /// Whether a single access gets the fixed-stride and per-lane inline paths.
    pub fn inline_single(self) -> bool {
        self == MemLowering::Inline
    }
}

/// The lane stride the inline path expects of the memory op at `pc`: its size times
/// the number of pieces the lifter made of that instruction (`global_load_dwordx4` is
/// four dword loads at `+0, +4, +8, +12`, so each piece has a 16-byte lane stride). LDS
/// ops (`ds_read2*` pieces are not adjacent) expect `size`. Only a guess: the run-time
/// check decides, a wrong guess takes the helper.
pub(crate) fn stride_guess(blk: &Block, pc: u64, space: Space, size: u8) -> u64 {
    if space == Space::Lds {
        return size as u64;
    }
    let n = blk
        .ops
        .iter()
        .filter(|op| match op {
            Op::Load { pc: p, size: s, .. } | Op::Store { pc: p, size: s, .. } => {
                *p == pc && *s == size
            }
            _ => false,
        })
        .count()
        .clamp(1, 16);
    size as u64 * n as u64
}

/// When op `i` is the first dword piece of a multi-dword load (`global_load_dwordx4`,
/// `ds_read_b128`, ...: the later pieces are unsigned dword loads into `V32` of the same
/// instruction, exec mask and space at `+4, +8, ..` from its address, with no store in
/// between, at most 4 pieces within the next 64 ops): its pieces, op `i` first, at least
/// two. The lowering tries them all at once, one window test per lane instead of one per
/// piece.
pub(crate) fn fused_load_pieces(blk: &Block, i: usize) -> Option<Vec<usize>> {
    let Some(Op::Load {
        pc,
        space,
        addr,
        size: 4,
        signed: false,
        mask,
    }) = blk.ops.get(i)
    else {
        return None;
    };
    let bits = blk.types.get(i).copied().flatten()?.bits();
    if bits != 32 || *space == Space::Scratch {
        return None;
    }
    let (root, c0) = affine(blk, *addr);
    let mut pieces = vec![i];
    for (k, op) in blk.ops.iter().enumerate().skip(i + 1).take(64) {
        match op {
            Op::Store { .. } | Op::Atomic { .. } | Op::SStore { .. } | Op::Matrix(_) => break,
            Op::Load {
                pc: p,
                space: sp,
                addr: a,
                size: 4,
                signed: false,
                mask: m,
            } if p == pc && sp == space && m == mask => {
                let want = c0.wrapping_add(4 * pieces.len() as u64);
                if affine(blk, *a) != (root, want) || pieces.len() == 4 {
                    break;
                }
                pieces.push(k);
            }
            _ => {}
        }
    }
    (pieces.len() >= 2).then_some(pieces)
}

/// Whether a vector access of `size` bytes with `bits`-bit lane values has an inline path:
/// bytes, shorts and whole dwords in 32-bit lanes (sub-dword loads zero- or sign-extended,
/// stores of the low bytes), whole qwords in 64-bit lanes; global/FLAT or LDS.
pub(crate) fn inline_size(space: Space, size: u8, bits: u32) -> bool {
    space != Space::Scratch && matches!((size, bits), (1 | 2 | 4, 32) | (8, 64))
}

/// `v` as `(root, c)` with `v = root + c` through the block's `V64` adds of broadcast
/// constants (wrapping, as the adds are), `root` a value index.
pub(crate) fn affine(blk: &Block, v: Val) -> (u32, u64) {
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
    (v.0, c)
}

/// The register whose row holds vector `v` at op `at`: `v` is a `GetVgpr` whose register
/// no op between it and `at` writes (register writes are all stored between ops in the
/// straight-line form, and after each lane-group run).
pub(crate) fn vgpr_row(blk: &Block, v: Val, at: usize) -> Option<u16> {
    let ops = &blk.ops;
    let d = v.0 as usize;
    let Some(Op::GetVgpr(r)) = ops.get(d) else {
        return None;
    };
    let clobbered = ops.get(d + 1..at)?.iter().any(|op| match op {
        Op::SetVgpr { reg, .. } => reg == r,
        Op::SetVgprDyn { .. } | Op::Matrix(_) => true,
        _ => false,
    });
    (!clobbered && (*r as usize) < NUM_VREGS).then_some(*r)
}

/// Register reads whose every use is the data of a piece of a multi-dword store that reads
/// them from the register (`lower::memory::multi`, its fallback too): value → register. Such
/// values need no 64-lane copy when they leave a lane-group run.
pub(crate) fn row_values(blk: &Block, uses: &[u32], last_use: &[usize]) -> HashMap<u32, u16> {
    let mut found: HashMap<u32, (u16, u32)> = HashMap::new();
    let mut i = 0;
    while i < blk.ops.len() {
        let Some(mu) = multi_access(blk, i, uses, last_use) else {
            i += 1;
            continue;
        };
        if !mu.load {
            for &(k, _) in &mu.pieces {
                if let Op::Store { data, .. } = &blk.ops[k] {
                    if let Some(r) = vgpr_row(blk, *data, mu.first) {
                        found.entry(data.0).or_insert((r, 0)).1 += 1;
                    }
                }
            }
        }
        i = mu.last + 1;
    }
    found
        .into_iter()
        .filter(|(v, (_, n))| uses.get(*v as usize) == Some(n))
        .map(|(v, (r, _))| (v, r))
        .collect()
}

/// A multi-dword access as the lifter splits it (`global_load_dwordx2..4`,
/// `ds_read_b64..b128`, `ds_read2_b32`, and the stores alike): dword loads or stores of one
/// pc, space and exec mask at constant offsets from the first piece's address, with only
/// their address arithmetic in between, and for loads each piece written to a register
/// right after (lowered by `lower::memory::multi`).
pub(crate) struct Multi {
    /// The ops `first..=last` the access covers.
    pub first: usize,
    /// The last op of the access.
    pub last: usize,
    /// Loads (else stores).
    pub load: bool,
    /// The memory ops (first is `first`) and their byte offsets from its address.
    pub pieces: Vec<(usize, u64)>,
    /// Loads: per piece, the register its `SetVgpr` writes and whether that write's mask is
    /// the constant all-ones (else it is the load's mask).
    pub dest: Vec<(u16, bool)>,
    /// Ops of the range emitted before the access (constants and their broadcasts: later
    /// ops may use them).
    pub hoist: Vec<usize>,
    /// Per piece, the bytes it stores (4 but in a store run, `super::lds_runs`).
    pub sizes: Vec<u8>,
    /// The addresses the pieces' offsets count from: one, but in a load run over two
    /// address registers (`super::lds_runs::load_run`).
    pub bases: Vec<RunBase>,
    /// Per piece, the index of its base in `bases`.
    pub base_of: Vec<u8>,
}

/// The address a [`Multi`]'s pieces count their offsets from (each lane's), plus `bias`
/// (wrapping), so that every piece of the base lies in the `span` bytes from there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RunBase {
    /// Where each lane's address comes from.
    pub addr: RunAddr,
    /// Added (wrapping) to that address.
    pub bias: u64,
    /// Bytes from the biased address to the end of the base's farthest piece.
    pub span: u64,
}

/// Where a [`RunBase`]'s lane addresses come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunAddr {
    /// The first piece's address.
    First,
    /// A register's row, zero-extended (an LDS address).
    Row(u16),
    /// Two registers' rows, low and high half (a 64-bit global address).
    Pair(u16, u16),
}

impl RunBase {
    /// The first piece's address, its pieces in the `span` bytes from there.
    pub fn first(span: u64) -> RunBase {
        RunBase {
            addr: RunAddr::First,
            bias: 0,
            span,
        }
    }
}

/// The multi-dword access starting at op `i`, if it is one: at least two dword pieces of
/// `V32` lanes (global/FLAT or LDS), every value the range makes besides constants used only
/// inside it, each load piece used only by its `SetVgpr` (distinct registers).
pub(crate) fn multi_access(
    blk: &Block,
    i: usize,
    uses: &[u32],
    last_use: &[usize],
) -> Option<Multi> {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let (pc, space, addr, mask, load) = match &blk.ops[i] {
        Op::Load {
            pc,
            space,
            addr,
            size: 4,
            signed: false,
            mask,
        } if blk.types[i] == Some(Ty::V32) => (*pc, *space, *addr, *mask, true),
        Op::Store {
            pc,
            space,
            addr,
            size: 4,
            data,
            mask,
        } if ty(data) == Some(Ty::V32) => (*pc, *space, *addr, *mask, false),
        _ => return None,
    };
    if space == Space::Scratch || ty(&addr) != Some(Ty::V64) {
        return None;
    }
    let is_const = |v: &Val| matches!(blk.ops.get(v.0 as usize), Some(Op::Const { .. }));
    let (root, c0) = affine(blk, addr);
    let mut pieces = vec![(i, 0u64)];
    let mut dest: Vec<Option<(u16, bool)>> = vec![None];
    let mut hoist = Vec::new();
    let mut last = i;
    // The offset of a piece at `a` from the first, when it is one.
    let piece = |a: &Val, n: usize| {
        let (r, c) = affine(blk, *a);
        let d = c.wrapping_sub(c0);
        (r == root && d + 4 <= MULTI_SPAN && n < 4).then_some(d)
    };
    for k in i + 1..blk.ops.len().min(i + 64) {
        match &blk.ops[k] {
            Op::Const { .. } => hoist.push(k),
            Op::Broadcast(x) if is_const(x) => hoist.push(k),
            Op::Bin(BinOp::Add, ..) if blk.types[k] == Some(Ty::V64) => {}
            Op::Load {
                pc: p,
                space: sp,
                addr: a,
                size: 4,
                signed: false,
                mask: m,
            } if load && *p == pc && *sp == space && *m == mask => {
                let Some(d) = piece(a, pieces.len()) else {
                    break;
                };
                if blk.types[k] != Some(Ty::V32) {
                    break;
                }
                pieces.push((k, d));
                dest.push(None);
                last = k;
            }
            Op::Store {
                pc: p,
                space: sp,
                addr: a,
                size: 4,
                data,
                mask: m,
            } if !load && *p == pc && *sp == space && *m == mask => {
                let Some(d) = piece(a, pieces.len()) else {
                    break;
                };
                if ty(data) != Some(Ty::V32) {
                    break;
                }
                pieces.push((k, d));
                last = k;
            }
            Op::SetVgpr { reg, val, mask: wm } if load => {
                let Some(p) = pieces.iter().position(|&(o, _)| o == val.0 as usize) else {
                    break;
                };
                let ones = matches!(
                    blk.ops.get(wm.0 as usize),
                    Some(Op::Const { bits: u64::MAX, .. })
                );
                // (A register out of range: the separate `SetVgpr` reports it.)
                if dest[p].is_some() || *wm != mask && !ones || *reg as usize >= NUM_VREGS {
                    break;
                }
                dest[p] = Some((*reg, *wm != mask));
                last = k;
            }
            _ => break,
        }
    }
    hoist.retain(|&k| k < last);
    if pieces.len() < 2 {
        return None;
    }
    // Everything the range makes, constants aside, is used inside it only.
    let inside = (i..=last)
        .filter(|k| !hoist.contains(k))
        .all(|k| last_use.get(k).is_some_and(|&l| l <= last));
    if !inside {
        return None;
    }
    let dest: Vec<(u16, bool)> = if load {
        let d: Option<Vec<_>> = dest.into_iter().collect();
        let d = d?;
        let once = pieces.iter().all(|&(k, _)| uses.get(k).copied() == Some(1));
        let distinct = d
            .iter()
            .enumerate()
            .all(|(x, r)| d[..x].iter().all(|q| q.0 != r.0));
        if !once || !distinct {
            return None;
        }
        d
    } else {
        Vec::new()
    };
    let span = pieces.iter().map(|&(_, d)| d + 4).max().unwrap_or(4);
    Some(Multi {
        first: i,
        last,
        load,
        sizes: vec![4; pieces.len()],
        bases: vec![RunBase::first(span)],
        base_of: vec![0; pieces.len()],
        pieces,
        dest,
        hoist,
    })
}
