//! Pure analyses of an IR block that decide how the code generator lowers it: which ops
//! form lane-group runs ([`runs`]), the shape of its memory accesses ([`memory`]), how its
//! matrix ops combine into fused units ([`matrix`]), and which values are used where
//! ([`BlockFacts`]). Nothing here knows Cranelift: each function is a fact about the IR.

#![forbid(unsafe_code)]

pub(crate) mod affine;
pub(crate) mod affine_runs;
pub(crate) mod lds_runs;
pub(crate) mod matrix;
pub(crate) mod memory;
pub(crate) mod runs;

#[cfg(test)]
mod tests;

use crate::ir::{Block, Exit, Op, Val};
use std::collections::HashMap;

pub(crate) use memory::MemLowering;

/// The facts about a whole block that its lowering consults throughout.
pub(crate) struct BlockFacts {
    /// Per value, how many ops (and the exit) use it ([`use_counts`]).
    pub uses: Vec<u32>,
    /// Per value, the last op using it ([`last_uses`]).
    pub last_use: Vec<usize>,
    /// Vector values read from their register row wherever used ([`memory::row_values`]).
    pub rows: HashMap<u32, u16>,
    /// How the block's single vector loads and stores are lowered.
    pub mem: MemLowering,
    /// The accesses whose addresses are lane-affine ([`affine`]).
    pub affine: affine::AffineFacts,
    /// Per op, how it takes part in the lane-group form ([`runs::classify`]).
    pub classes: Vec<runs::OpClass>,
    /// The extents of the block's runs by first op, found with the affine facts' deferred
    /// ops ([`affine_runs::of`]).
    pub extents: HashMap<usize, runs::RunExtent>,
}

impl BlockFacts {
    /// The facts of `blk`.
    pub fn of(blk: &Block) -> BlockFacts {
        let uses = use_counts(blk);
        let last_use = last_uses(blk);
        let rows = memory::row_values(blk, &uses, &last_use);
        let mut affine = affine::of(blk, &uses, &last_use);
        let (classes, extents, runs) =
            affine_runs::of(blk, &last_use, &rows, &affine.deferred, &affine.remat_input);
        affine.runs = runs;
        let mut run_roots: Vec<u16> = Vec::new();
        for run in affine.runs.values() {
            for r in &run.roots {
                if !affine.roots.contains(r) && !run_roots.contains(r) {
                    run_roots.push(*r);
                }
            }
        }
        run_roots.sort_unstable();
        affine.run_roots = run_roots;
        BlockFacts {
            classes,
            extents,
            mem: MemLowering::of_block(blk),
            uses,
            last_use,
            rows,
            affine,
        }
    }
}

/// The value operands of `op` ([`Op::operands`]).
pub(crate) fn operands(op: &Op) -> Vec<Val> {
    op.operands()
}

/// The value operands of the exit `e`.
pub(crate) fn exit_operands(e: &Exit) -> Vec<Val> {
    let mut v = Vec::new();
    e.for_each_operand(|x| v.push(x));
    v
}

/// Per op index, the last op using its value (`ops.len()` when the exit uses it).
pub(crate) fn last_uses(blk: &Block) -> Vec<usize> {
    let n = blk.ops.len();
    let mut last_use = vec![0usize; n];
    for (k, op) in blk.ops.iter().enumerate() {
        for v in operands(op) {
            if let Some(l) = last_use.get_mut(v.0 as usize) {
                *l = (*l).max(k);
            }
        }
    }
    for v in exit_operands(&blk.exit) {
        if let Some(l) = last_use.get_mut(v.0 as usize) {
            *l = n;
        }
    }
    last_use
}

/// Per op index, how many operands of ops and of the exit name its value.
pub(crate) fn use_counts(blk: &Block) -> Vec<u32> {
    let mut uses = vec![0u32; blk.ops.len()];
    let all = blk
        .ops
        .iter()
        .flat_map(operands)
        .chain(exit_operands(&blk.exit));
    for v in all {
        if let Some(u) = uses.get_mut(v.0 as usize) {
            *u += 1;
        }
    }
    uses
}
