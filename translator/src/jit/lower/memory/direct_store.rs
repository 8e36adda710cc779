//! A store written straight from a lane-group loop: when the op right after a run is a
//! lane-affine store of a vector value the run computes (and nothing else uses), the
//! store's affine test runs before the loop. When it passes with every lane of the block
//! active and the lanes contiguous, each group stores its part of the value at its place
//! in the window (where the run would store it into the value's escape buffer, which the
//! store then copied out); the store op itself is then done. Otherwise the group writes
//! the escape buffer and the store runs its general code ([`Gen::store`]).
//!
//! This moves the store's writes before the run's later groups read their operands. It
//! is done only when that changes nothing:
//! - the store cannot fault (its test passed), and no op between the loop's start and the
//!   store can leave the block (the run's ops are lane ops and uniform ops that cannot
//!   fault; the store is the op right after the run);
//! - pending loads used after the store are materialised before the loop
//!   ([`super::pending`]), and every pending load the loop reads is tested not to overlap
//!   the stored bytes in a way an earlier group's write could reach a later group's read:
//!   disjoint, or (stored lanes no wider than the loaded ones) the stored bytes start at or
//!   below the loaded ones (a group reads all its operands before it stores);
//! - the loop reads nothing else from guest memory (its other operands are registers and
//!   stack buffers).

use crate::ir::Op;
use crate::jit::analysis::memory::inline_size;
use crate::jit::analysis::operands;
use crate::jit::lower::{Gen, GenResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlot, Value};

impl Gen<'_, '_> {
    /// Before the loop of the run `i..j`: when op `j` is a store that can be written from
    /// the loop (module doc), its test; returns the escape (index among `escapes`) and the
    /// address its groups are stored from (host memory or the escape buffer), and records
    /// the test for [`Gen::store`] ([`Gen::direct_stores`]).
    pub(in crate::jit::lower) fn direct_store(
        &mut self,
        i: usize,
        j: usize,
        escapes: &[(usize, u32, StackSlot)],
    ) -> GenResult<Option<(usize, Value)>> {
        let blk = self.block;
        let Some(Op::Store {
            space,
            addr,
            size,
            data,
            mask,
            ..
        }) = blk.ops.get(j)
        else {
            return Ok(None);
        };
        let k = data.0 as usize;
        let Some(e) = escapes.iter().position(|x| x.0 == k) else {
            return Ok(None);
        };
        let (_, bits, slot) = escapes[e];
        // Lanes as wide as the access, contiguous, and the value used by the store alone.
        let contiguous = self.facts.affine.access.get(&j) == Some(&(*size as u64));
        let store_only = blk.ops[j..]
            .iter()
            .flat_map(operands)
            .chain(crate::jit::analysis::exit_operands(&blk.exit))
            .filter(|v| v.0 as usize == k)
            .count()
            == 1;
        if !contiguous
            || !store_only
            || *addr == *data
            || bits != 8 * *size as u32
            || !inline_size(*space, *size, bits)
            || !self.mem.inline_single()
            || self.iters.is_some()
        {
            return Ok(None);
        }
        // Pending loads used after the store: copied now, before any group writes.
        self.before_write(j);
        let Ok(Some(plan)) = self.affine_test(j, *space, *addr, *size, *mask, true) else {
            return Ok(None);
        };
        // (A wave32 block's mask is cut to its lanes: the test's "lanes 0..31" is all.)
        let mut go = plan.go;
        if self.lanes == 64 {
            let full = self.b.ins().icmp_imm_s(IntCC::Equal, plan.mask, -1);
            go = self.b.ins().band(go, full);
        }
        let dst = plan.ptr;
        let stored = self.lanes as i64 * *size as i64;
        // The pending loads the run reads (all pending values used in it: those used
        // later were materialised above).
        let mut read: Vec<u32> = self
            .pending
            .keys()
            .copied()
            .filter(|&p| {
                let l = self.facts.last_use.get(p as usize).copied().unwrap_or(0);
                l >= i && l <= j
            })
            .collect();
        read.sort_unstable();
        for p in read {
            let pbits = self.pending.get(&p).map_or(0, |x| x.bits);
            let Some(src) = self.pending_base(p) else {
                continue;
            };
            let loaded = self.lanes as i64 * pbits as i64 / 8;
            // Unsigned arithmetic on host addresses (neither range wraps around 2^64).
            let ok = if bits <= pbits {
                // Harmful only when the stored bytes start inside the loaded ones, above
                // their start: 0 < dst - src < loaded.
                let t = self.b.ins().isub(dst, src);
                let t = self.b.ins().iadd_imm_s(t, -1);
                self.b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, t, loaded - 1)
            } else {
                // Disjoint: src - dst + loaded - 1 >= stored + loaded - 1 (wrapping).
                let t = self.b.ins().isub(src, dst);
                let t = self.b.ins().iadd_imm_s(t, loaded - 1);
                self.b
                    .ins()
                    .icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, t, stored + loaded - 1)
            };
            go = self.b.ins().band(go, ok);
        }
        let buf = self.b.ins().stack_addr(types::I64, slot, 0);
        let base = self.b.ins().select(go, dst, buf);
        self.direct_stores.insert(j, go);
        Ok(Some((e, base)))
    }
}
