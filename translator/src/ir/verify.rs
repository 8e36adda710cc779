//! The checks of a [`Block`] against the IR's contract: every operand defined earlier, and
//! the types each op expects ([`super::typecheck`]).

use super::Block;
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

/// Checks that every operand refers to an earlier op that has a result, and that operand
/// and result types follow the IR's type rules.
pub fn verify(block: &Block) -> Result<(), VerifyError> {
    if block.ops.len() != block.types.len() {
        return Err(VerifyError {
            op: 0,
            msg: "ops and types differ in length".into(),
        });
    }
    for (i, op) in block.ops.iter().enumerate() {
        let mut bad = None;
        op.for_each_operand(|v| {
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
    super::typecheck::typecheck(block)
}
