//! Instruction semantics: lifting decoded instructions of one basic block to IR.
//!
//! CONTRACT (implementation pending): [`lift_block`] never fails; an instruction it cannot
//! decode or execute ends the block with [`crate::ir::Exit::Unsupported`] at its address.

use crate::env::CodeSource;
use crate::ir::{Block, Builder, Exit};
use crate::isa::Target;

/// Decodes and lifts the basic block starting at `pc`, for a wave whose MODE register is
/// `mode` (translation may depend on the float modes).
pub fn lift_block(target: &Target, code: &dyn CodeSource, pc: u64, mode: u32) -> Block {
    let _ = (code, mode);
    Builder::new(pc, target.wave_size).finish(Exit::Unsupported {
        pc,
        reason: "lifter not built yet".into(),
    })
}
