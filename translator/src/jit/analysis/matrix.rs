//! How consecutive matrix ops combine into one call of a fused kernel ([`matrix_unit`]).

use crate::ir::{Block, Op};
use crate::matrix::kernels::{Fused, GroupEntry, PairEntry, MAX_GROUP};
use crate::matrix::plans;
use crate::wave::NUM_VREGS;

/// How a matrix op runs when MODE allows its fused kernel ([`matrix_unit`]).
#[derive(Debug)]
pub(crate) enum MatUnit {
    /// Alone, by its own kernel.
    Single,
    /// Run by the unit call at an earlier op.
    Member,
    /// With the next matrix op: the pair kernel and the two `Fused` addresses.
    Pair(PairEntry, u64, u64),
    /// With the next ones: the group kernel and its descriptors (`Fused::group`).
    Group(GroupEntry, Vec<[u64; 2]>),
}

/// The nearest matrix op after (`forward`) or before op `i` with only constants and
/// counts between.
pub(crate) fn matrix_neighbour(blk: &Block, i: usize, forward: bool) -> Option<usize> {
    let ops = &blk.ops;
    let mut j = i;
    loop {
        j = if forward { j + 1 } else { j.checked_sub(1)? };
        match ops.get(j)? {
            Op::Matrix(_) => return Some(j),
            Op::Const { .. } | Op::CountVector { .. } => {}
            _ => return None,
        }
    }
}

/// The fused kernel of matrix op `k` and its MODE condition (`MODE & mask == want`), when
/// it has one that fits the register file.
/// Plans live for the process ([`plans`]), so the kernel does too.
pub(crate) fn matrix_fused(blk: &Block, k: usize) -> Option<(&'static Fused, u32, u32)> {
    match blk.ops.get(k) {
        Some(Op::Matrix(c)) => plans::get(c.plan)?
            .plan
            .fused()
            .filter(|(f, ..)| f.nregs() <= NUM_VREGS),
        _ => None,
    }
}

/// How matrix op `i` runs when MODE allows its fused kernel. Its chain (matrix ops in a
/// row, [`matrix_neighbour`]) is cut from its start into units: two ops that
/// pair (`Fused::pair`: the second accumulates onto the first's D), else the longest
/// group (`Fused::group`: shared operands decoded once) of at least two, else one op.
pub(crate) fn matrix_unit(blk: &Block, i: usize) -> MatUnit {
    let mut s = i;
    while let Some(p) = matrix_neighbour(blk, s, false) {
        s = p;
    }
    loop {
        let mut ops = vec![s];
        let mut unit = MatUnit::Single;
        if let Some((f, fm, fw)) = matrix_fused(blk, s) {
            let mut list = vec![f];
            let mut next = matrix_neighbour(blk, s, true);
            while let Some(q) = next.filter(|_| list.len() < MAX_GROUP) {
                let Some((g, gm, gw)) = matrix_fused(blk, q) else {
                    break;
                };
                if (gm, gw) != (fm, fw) {
                    break;
                }
                if list.len() == 1 {
                    if let Some(entry) = f.pair(g) {
                        ops.push(q);
                        unit = MatUnit::Pair(entry, f as *const _ as u64, g as *const _ as u64);
                        break;
                    }
                }
                list.push(g);
                match Fused::group(&list) {
                    Some((entry, desc)) => {
                        ops.push(q);
                        unit = MatUnit::Group(entry, desc);
                    }
                    None => break,
                }
                next = matrix_neighbour(blk, q, true);
            }
        }
        if ops.contains(&i) {
            return if ops[0] == i { unit } else { MatUnit::Member };
        }
        match ops.last().and_then(|&l| matrix_neighbour(blk, l, true)) {
            Some(n) => s = n,
            None => return MatUnit::Single,
        }
    }
}
