//! The per-wave execution loop: block cache, tier-up from interpreter to JIT, running blocks.
//!
//! CONTRACT (implementation pending). A [`Translator`] is shared by all host threads of a
//! launch (it is `Send + Sync`); each call to [`Translator::run`] executes one wave until it
//! ends, reaches a barrier, traps or faults.

use crate::env::{CodeSource, ExecFault, ExitCode, WaveEnv};
use crate::isa::Target;
use crate::wave::WaveState;

/// Which engine executes blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EngineKind {
    /// Interpret cold blocks, compile hot ones with Cranelift.
    #[default]
    Jit,
    /// Interpret every block.
    Interp,
}

/// Counters of the translator itself (translation work, cache behaviour).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TranslatorStats {
    /// Blocks lifted to IR.
    pub blocks_lifted: u64,
    /// Blocks compiled to host code.
    pub blocks_compiled: u64,
    /// Block lookups that found a translated block.
    pub cache_hits: u64,
    /// Nanoseconds spent lifting and compiling.
    pub translate_ns: u64,
}

/// Translates and runs the code of one code object for one target.
pub struct Translator {
    target: Target,
    engine: EngineKind,
}

impl Translator {
    /// A translator for code of `target`, executing with `engine`.
    pub fn new(target: Target, engine: EngineKind) -> Result<Translator, ExecFault> {
        Ok(Translator { target, engine })
    }

    /// Runs the wave in `state` from `state.pc` until it ends (`EndPgm`), waits at a barrier
    /// (`Barrier`, `state.pc` = where to resume), traps or faults. Every executed wave
    /// instruction is subtracted from `budget`; when it would go below zero the run stops
    /// with [`ExecFault::Runaway`]. Executed instructions are added to `state.counters`.
    /// On `Err`, and on `Trap`, `state.pc` is the address of the faulting (trapping)
    /// instruction, so the runtime can report it and its disassembly.
    pub fn run(
        &self,
        code: &dyn CodeSource,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
        budget: &mut u64,
    ) -> Result<ExitCode, ExecFault> {
        let _ = (code, state, env, budget, self.target, self.engine);
        Err(ExecFault::Unsupported(
            "execution loop not built yet".into(),
        ))
    }

    /// Translation counters so far.
    pub fn stats(&self) -> TranslatorStats {
        TranslatorStats::default()
    }
}
