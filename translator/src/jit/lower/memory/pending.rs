//! Load results read through a pointer: a single vector load whose inline path read every
//! lane of the block contiguously (full mask, lane `l` at `ptr + l * size`, the size of
//! the result's lanes) does not copy them into its 64-lane result buffer. Its value is the
//! window's host memory itself, reached through a Cranelift variable holding an address:
//! the host address on that path, the result buffer's on every other path (where the
//! buffer was written). Readers load the value's chunks through the variable
//! ([`Gen::pending_base`]).
//!
//! The host memory holds the value only while nothing writes it and the window stays
//! valid ([`crate::env::MemWindow::new`]: until the next call into the `WaveEnv`). So the
//! value is *materialised* (copied into its buffer, the variable redefined to the buffer)
//! where that could end:
//! - before an op that writes memory (a vector store, an atomic, a scalar store, a
//!   multi-dword store), when the value is used after that op ([`Gen::before_write`]);
//!   the op's own reads of it come before its writes (the inline paths load every chunk
//!   first; the helper paths pass a copy, [`Gen::read_buffer`]);
//! - before a helper call that may reach the environment, when the value is used at or
//!   after the current op ([`Gen::before_call`]); on a helper path (mostly cold) only,
//!   since the variable carries the choice to the join;
//! - when a helper is to read the value from a buffer ([`Gen::read_buffer`]).
//!
//! Other waves' stores to the same bytes are races the ISA leaves unordered; a lane-group
//! loop whose fast copy hands a group to the slow copy reads that group's loaded lanes
//! again, so a racing store landing in between may be seen by one read and not the other.

use crate::jit::helpers;
use crate::jit::lower::{le, nchunks, vty, Gen, GenResult};
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, StackSlot, Value};
use cranelift_frontend::Variable;

/// A load result read through a pointer (module doc).
#[derive(Clone, Copy)]
pub(in crate::jit::lower) struct Pending {
    /// `I64`: the address of the value's 64-lane lane-order bytes (host memory or `slot`).
    pub var: Variable,
    /// The load's result buffer, where it is materialised.
    pub slot: StackSlot,
    /// Bits of the value's lanes (32 or 64).
    pub bits: u32,
}

/// The helpers that never reach the environment (so never end a window's validity) and
/// never write guest memory: calling them leaves pending values as they are.
fn env_free(f: usize) -> bool {
    let pure: [usize; 4] = [
        helpers::h_scalar as *const () as usize,
        helpers::h_vector as *const () as usize,
        helpers::h_bad_vreg as *const () as usize,
        helpers::h_matrix as *const () as usize,
    ];
    pure.contains(&f) || crate::jit::lower::env_free_lane_helper(f)
}

impl Gen<'_, '_> {
    /// The flags of a load through a pending value's address (host memory: any alignment).
    pub(in crate::jit::lower) fn pending_flags() -> MemFlagsData {
        le()
    }

    /// The address of pending value `v`'s lane-order bytes at this point of the code, when
    /// `v` is pending.
    pub(in crate::jit::lower) fn pending_base(&mut self, v: u32) -> Option<Value> {
        let p = self.pending.get(&v).copied()?;
        Some(self.b.use_var(p.var))
    }

    /// The whole-wave chunks of pending value `v` (straight-line form), when pending.
    pub(in crate::jit::lower) fn pending_chunks(&mut self, v: u32) -> Option<Vec<Value>> {
        let p = self.pending.get(&v).copied()?;
        let base = self.b.use_var(p.var);
        let flags = Self::pending_flags();
        Some(
            (0..nchunks(self.lanes, p.bits))
                .map(|c| self.b.ins().load(vty(p.bits), flags, base, (16 * c) as i32))
                .collect(),
        )
    }

    /// Copies pending value `v` into its buffer (from wherever its variable points now)
    /// and points the variable there; returns the buffer's address.
    pub(in crate::jit::lower) fn materialise(&mut self, v: u32) -> Option<Value> {
        let p = self.pending.get(&v).copied()?;
        let base = self.b.use_var(p.var);
        let flags = Self::pending_flags();
        let chunks: Vec<Value> = (0..nchunks(self.lanes, p.bits))
            .map(|c| self.b.ins().load(vty(p.bits), flags, base, (16 * c) as i32))
            .collect();
        for (c, ch) in chunks.into_iter().enumerate() {
            self.b
                .ins()
                .stack_store(types::I64, ch, p.slot, (16 * c) as i32);
        }
        let a = self.b.ins().stack_addr(types::I64, p.slot, 0);
        self.b.def_var(p.var, a);
        Some(a)
    }

    /// Materialises every pending value used by op `from` or later. With `settle` (the
    /// code here runs on every path to what follows) they stop being pending: their
    /// buffers hold them from here on.
    pub(in crate::jit::lower) fn materialise_live(&mut self, from: usize, settle: bool) {
        let mut live: Vec<u32> = self
            .pending
            .keys()
            .copied()
            .filter(|&k| {
                self.facts
                    .last_use
                    .get(k as usize)
                    .is_some_and(|&l| l >= from)
            })
            .collect();
        if live.is_empty() {
            return;
        }
        if self.group.is_some() {
            // A lane group's loop reads pending values through addresses taken before it.
            self.defect
                .get_or_insert_with(|| "a pending load materialised in a lane group".into());
            return;
        }
        live.sort_unstable();
        for k in live {
            self.materialise(k);
            if settle {
                if let Some(p) = self.pending.remove(&k) {
                    self.escaped.insert(k, p.slot);
                }
            }
        }
    }

    /// Before op `i`, which writes memory (on every path to what follows): materialises the
    /// pending values used after it.
    pub(in crate::jit::lower) fn before_write(&mut self, i: usize) {
        self.materialise_live(i + 1, true);
    }

    /// Before a call of the helper at `f`: materialises the pending values used by the
    /// current op or later, unless the helper never reaches the environment.
    pub(in crate::jit::lower) fn before_call(&mut self, f: usize) {
        if !env_free(f) {
            self.materialise_live(self.cur_op, false);
            self.sload_runs_end();
            if let Some(v) = self.sload_valid {
                let no = self.b.ins().iconst(types::I8, 0);
                self.b.def_var(v, no);
            }
        }
    }

    /// A new pending value for load `i` (its variable undefined yet).
    pub(in crate::jit::lower) fn new_pending(&mut self, slot: StackSlot, bits: u32) -> Pending {
        Pending {
            var: self.b.declare_var(types::I64),
            slot,
            bits,
        }
    }

    /// An error when something needed a materialisation the code could not make.
    pub(in crate::jit::lower) fn check_defect(&mut self) -> GenResult<()> {
        match self.defect.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
