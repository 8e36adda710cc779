//! Structural checks of a [`Block`]: operands defined earlier, with the types ops expect.

use super::{Block, Op, Val};
use thiserror::Error;

/// A malformed block (a lifter bug).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("op {op}: {msg}")]
pub struct VerifyError {
    /// Index of the offending op.
    pub op: usize,
    /// What is wrong.
    pub msg: String,
}

/// Checks that every operand refers to an earlier op that has a result.
pub fn verify(block: &Block) -> Result<(), VerifyError> {
    if block.ops.len() != block.types.len() {
        return Err(VerifyError {
            op: 0,
            msg: "ops and types differ in length".into(),
        });
    }
    for (i, op) in block.ops.iter().enumerate() {
        let mut bad = None;
        for_each_operand(op, |v| {
            let j = v.0 as usize;
            if j >= i || block.types[j].is_none() {
                bad = Some(v);
            }
        });
        if let Some(v) = bad {
            return Err(VerifyError {
                op: i,
                msg: format!("operand {v:?} is not an earlier value"),
            });
        }
    }
    Ok(())
}

/// Calls `f` on every value operand of `op`.
pub(crate) fn for_each_operand(op: &Op, mut f: impl FnMut(Val)) {
    match op {
        Op::Const { .. } | Op::LaneConst(_) | Op::LaneId | Op::GetSgpr(_) | Op::GetVgpr(_) => {}
        Op::GetScc | Op::GetMode | Op::Clock | Op::InstCount | Op::BarrierState => {}
        Op::SetSgpr(_, v) | Op::SetScc(v) | Op::SetMode(v) => f(*v),
        Op::SetVgpr { val, mask, .. } => {
            f(*val);
            f(*mask)
        }
        Op::GetVgprDyn { index, .. } => f(*index),
        Op::SetVgprDyn {
            index, val, mask, ..
        } => {
            f(*index);
            f(*val);
            f(*mask)
        }
        Op::Un(_, a) | Op::Broadcast(a) | Op::Conv(_, a) | Op::MaskToLanes(a) => f(*a),
        Op::Bin(_, a, b) | Op::Cmp(_, a, b) => {
            f(*a);
            f(*b)
        }
        Op::Tern(_, a, b, c) => {
            f(*a);
            f(*b);
            f(*c)
        }
        Op::Select { cond, a, b } => {
            f(*cond);
            f(*a);
            f(*b)
        }
        Op::Pack { lo, hi } => {
            f(*lo);
            f(*hi)
        }
        Op::ReadLane { v, lane } => {
            f(*v);
            f(*lane)
        }
        Op::WriteLane { v, lane, x } => {
            f(*v);
            f(*lane);
            f(*x)
        }
        Op::Gather { v, idx } => {
            f(*v);
            f(*idx)
        }
        Op::Lane { args, .. } => args.iter().copied().for_each(f),
        Op::Load { addr, mask, .. } => {
            f(*addr);
            f(*mask)
        }
        Op::Store {
            addr, data, mask, ..
        } => {
            f(*addr);
            f(*data);
            f(*mask)
        }
        Op::Atomic {
            addr,
            data,
            cmp,
            mask,
            ..
        } => {
            f(*addr);
            f(*data);
            if let Some(c) = cmp {
                f(*c)
            }
            f(*mask)
        }
        Op::SLoad { addr, .. } => f(*addr),
        Op::SStore { addr, data, .. } => {
            f(*addr);
            f(*data)
        }
        Op::CountVector { mask } => f(*mask),
        Op::CountRegion { exec, .. } => f(*exec),
        Op::Matrix(_) => {}
    }
}
