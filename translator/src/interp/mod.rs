//! IR interpreter: the slow path and the reference meaning of every IR op.
//!
//! CONTRACT (implementation pending).

use crate::env::{ExecFault, ExitCode, WaveEnv};
use crate::ir::Block;
use crate::wave::WaveState;

/// Executes `block` on `state`. On return `state.pc` holds the address to continue at (the
/// next block, the barrier's continuation, or the trapping instruction).
pub fn run_block(
    block: &Block,
    state: &mut WaveState,
    env: &mut dyn WaveEnv,
) -> Result<ExitCode, ExecFault> {
    let _ = (block, state, env);
    Err(ExecFault::Unsupported("interpreter not built yet".into()))
}
