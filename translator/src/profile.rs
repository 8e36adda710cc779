//! Per-instruction execution counts for profiling.
//!
//! A profiling [`Translator`](crate::exec::Translator) (`Translator::profiling`) lifts blocks
//! of exactly one instruction ([`lift_one`]) and runs every block once per call (no JIT
//! chaining, no loops inside compiled code), so its run loop sees each instruction a wave
//! executes: the block's [`PcCell`] adds one execution and the number of lanes active
//! (EXEC) before it. The counts are those of the program as written and are the same for
//! both engines and any number of host threads (integer sums of the same events).

use crate::env::CodeSource;
use crate::ir::Block;
use crate::isa::Target;
use std::sync::atomic::{AtomicU64, Ordering};

/// Executions of one cached block (one instruction in profiling mode).
#[derive(Debug, Default)]
pub struct PcCell {
    count: AtomicU64,
    active_lanes: AtomicU64,
}

impl PcCell {
    /// Adds one execution by a wave whose EXEC mask is `exec`.
    pub fn record(&self, exec: u64) {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.active_lanes
            .fetch_add(u64::from(exec.count_ones()), Ordering::Relaxed);
    }

    /// (executions, summed active lanes) so far.
    pub fn get(&self) -> (u64, u64) {
        (
            self.count.load(Ordering::Relaxed),
            self.active_lanes.load(Ordering::Relaxed),
        )
    }
}

/// What the waves of a profiled launch did at one pc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcCount {
    /// Address of the instruction (the code image's address space).
    pub pc: u64,
    /// Times a wave executed it.
    pub count: u64,
    /// Sum over those executions of the active lanes (popcount of EXEC before it).
    pub active_lanes: u64,
}

/// The lifter of profiling mode: blocks of one instruction.
pub fn lift_one(target: &Target, code: &dyn CodeSource, pc: u64, mode: u32) -> Block {
    crate::lift::lift_block_limited(target, code, pc, mode, 1)
}
