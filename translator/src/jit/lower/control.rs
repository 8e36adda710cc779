//! Control flow and accounting: the block's credit charge, its exit (with tail calls of
//! linked successors), fault returns, and the instruction and lane counters.

use super::{trusted, Gen, GenResult, PendingCounts, EXIT_ILLEGAL, EXIT_UNSUPPORTED, JV};
use crate::ir::{Exit, Op};
use crate::jit::helpers;
use crate::wave::{WaveCounters, WaveState};
use core::mem::offset_of;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

impl Gen<'_, '_> {
    /// Branches to a block that stores `pc` and returns Fault when `rc != 0`.
    pub(super) fn fault_check(&mut self, rc: Value, pc: u64) {
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(rc, fault, &[], cont, &[]);
        self.b.switch_to_block(fault);
        self.b.seal_block(fault);
        self.ret_with_pc(pc, crate::env::ExitCode::Fault as u32);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    pub(super) fn ret_with_pc(&mut self, pc: u64, code: u32) {
        let pcv = self.iconst(types::I64, pc);
        self.b
            .ins()
            .store(trusted(), pcv, self.state, WaveState::PC_OFFSET as i32);
        let c = self.iconst(types::I32, code as u64);
        self.leave_fenv();
        self.b.ins().return_(&[c]);
    }

    /// Charges the block's instruction count to [`WaveState::credit`] at the block's start
    /// (`head`, also where an exit to the block's own start loops back to); when the credit
    /// is short, returns `Continue` at the block's start with nothing executed, so the run
    /// loop sees the budget run out exactly where the interpreter would.
    pub(super) fn charge_credit(&mut self) {
        let blk = self.block;
        let cost = u64::from(blk.inst_count).max(1);
        let off = WaveState::CREDIT_OFFSET as i32;
        let credit = self.b.ins().load(types::I64, trusted(), self.state, off);
        let short = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, credit, cost as i64);
        let stop = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(short, stop, &[], go, &[]);
        self.b.set_cold_block(stop);
        self.b.switch_to_block(stop);
        self.b.seal_block(stop);
        self.ret_with_pc(blk.start_pc, crate::env::ExitCode::Continue as u32);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let left = self.b.ins().iadd_imm_s(credit, -(cost as i64));
        self.b.ins().store(trusted(), left, self.state, off);
    }

    /// Ends the block continuing at `pc` (already stored in the state): with `link` (the
    /// address of the successor's link cell), a tail call of the linked successor's code
    /// when the link is set, else `Continue` to the run loop.
    pub(super) fn exit_continue(&mut self, link: Option<Value>) {
        let z = self.iconst(types::I32, 0);
        let Some(link) = link else {
            self.leave_fenv();
            self.b.ins().return_(&[z]);
            return;
        };
        // Acquire: the code was finalized before another thread published its address.
        let f = self
            .b
            .ins()
            .atomic_load(types::I64, MemFlagsData::trusted(), link);
        let chain = self.b.create_block();
        let back = self.b.create_block();
        self.b.ins().brif(f, chain, &[], back, &[]);
        self.b.switch_to_block(chain);
        self.b.seal_block(chain);
        let sig = self.b.func.signature.clone();
        let sigref = self.b.import_signature(sig);
        let (state, ctx) = (self.state, self.ctx);
        self.leave_fenv();
        self.b.ins().return_call_indirect(sigref, f, &[state, ctx]);
        self.b.switch_to_block(back);
        self.b.seal_block(back);
        self.leave_fenv();
        self.b.ins().return_(&[z]);
    }

    /// Adds the [`Op::CountVector`] counts summed since the last flush to the counters:
    /// before an op that can leave the block early (a fault) and at the block's exit, so
    /// every exit sees the counts of exactly the ops before it, as in the interpreter.
    pub(super) fn flush_counts(&mut self) {
        if let Some(p) = self.pending_counts.take() {
            let lanes = self.pending_lanes(p);
            self.add_counter(WaveState::ACTIVE_LANES_OFFSET, lanes);
            let insts = p.insts;
            let n = self.iconst(types::I64, insts);
            self.add_counter(WaveState::VECTOR_INSTS_OFFSET, n);
        }
    }

    /// The active lanes `p` counts (`I64`).
    pub(super) fn pending_lanes(&mut self, p: PendingCounts) -> Value {
        let mut n = self.b.ins().popcnt(p.mask);
        if p.times > 1 {
            n = self.b.ins().imul_imm_u(n, p.times as i64);
        }
        match p.lanes {
            Some(l) => self.b.ins().iadd(l, n),
            None => n,
        }
    }

    pub(super) fn add_counter(&mut self, off: usize, x: Value) {
        let a = self.state_addr(off);
        let old = self.b.ins().load(types::I64, trusted(), a, 0);
        let new = self.b.ins().iadd(old, x);
        self.b.ins().store(trusted(), new, a, 0);
    }

    /// Lowers a query of the environment (clock, barrier) or of the counters, or a count.
    pub(super) fn counter_op(&mut self, op: &Op) -> GenResult<JV> {
        Ok(match op {
            Op::Clock => {
                self.whole_wave("this op")?;
                let p = types::I64;
                let r = self
                    .call(
                        helpers::h_clock as *const () as usize,
                        &[p],
                        Some(p),
                        &[self.ctx],
                    )
                    .ok_or("helper result")?;
                JV::S(r)
            }
            Op::InstCount => {
                self.whole_wave("this op")?;
                let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
                let mut sum = self.iconst(types::I64, 0);
                for c in 0..crate::wave::InstClass::COUNT {
                    let a = self.state_addr(cls + 8 * c);
                    let n = self.b.ins().load(types::I64, trusted(), a, 0);
                    sum = self.b.ins().iadd(sum, n);
                }
                JV::S(sum)
            }
            Op::BarrierState => {
                self.whole_wave("this op")?;
                let r = self
                    .call(
                        helpers::h_barrier_state as *const () as usize,
                        &[types::I64],
                        Some(types::I32),
                        &[self.ctx],
                    )
                    .ok_or("helper result")?;
                JV::S(r)
            }
            Op::CountVector { mask } => {
                // Summed in registers; added to the counters before the next op that can
                // leave the block and at its exit (`flush_counts`).
                // Consecutive counts of one mask (every instruction under the same EXEC)
                // take one popcount, multiplied.
                let m = self.s_as(*mask, types::I64)?;
                self.pending_counts = Some(match self.pending_counts {
                    Some(p) if p.mask == m => PendingCounts {
                        times: p.times + 1,
                        insts: p.insts + 1,
                        ..p
                    },
                    Some(p) => PendingCounts {
                        lanes: Some(self.pending_lanes(p)),
                        mask: m,
                        times: 1,
                        insts: p.insts + 1,
                    },
                    None => PendingCounts {
                        lanes: None,
                        mask: m,
                        times: 1,
                        insts: 1,
                    },
                });
                JV::None
            }
            Op::CountRegion { exec, counts } => {
                // Every count times 1 when EXEC is non-zero, else times 0.
                let m = self.s_as(*exec, types::I64)?;
                let nz = self.b.ins().icmp_imm_u(IntCC::NotEqual, m, 0);
                let ran = self.b.ins().uextend(types::I64, nz);
                let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
                for (c, n) in counts.classes.iter().enumerate() {
                    if *n > 0 {
                        let x = self.b.ins().imul_imm_u(ran, i64::from(*n));
                        self.add_counter(cls + 8 * c, x);
                    }
                }
                if counts.vector > 0 {
                    let x = self.b.ins().imul_imm_u(ran, i64::from(counts.vector));
                    self.add_counter(WaveState::VECTOR_INSTS_OFFSET, x);
                    let n = self.b.ins().popcnt(m);
                    let x = self.b.ins().imul_imm_u(n, i64::from(counts.vector));
                    self.add_counter(WaveState::ACTIVE_LANES_OFFSET, x);
                }
                JV::None
            }
            _ => return Err("not a counter op".into()),
        })
    }

    /// Ends the block at its exit; `head` is the block body's start (after the credit
    /// charge), where an exit to the block's own start loops back to (unless
    /// [`Gen::without_self_loops`]).
    pub(super) fn exit(&mut self, head: cranelift_codegen::ir::Block) -> GenResult<()> {
        let blk = self.block;
        match &blk.exit {
            Exit::Jump(t) => {
                if *t == blk.start_pc && self.self_loops {
                    // Loop: the credit check at `head` ends it.
                    self.b.ins().jump(head, &[]);
                } else {
                    let pcv = self.iconst(types::I64, *t);
                    self.b
                        .ins()
                        .store(trusted(), pcv, self.state, WaveState::PC_OFFSET as i32);
                    let link = self.links.map(|a| self.iconst(types::I64, a as u64));
                    self.exit_continue(link);
                }
            }
            Exit::Branch {
                cond,
                taken,
                not_taken,
            } => {
                let c = self.s_as(*cond, types::I32)?;
                let start = blk.start_pc;
                if self.self_loops && (*taken == start || *not_taken == start) {
                    let to_self = match (*taken == start, *not_taken == start) {
                        (true, true) => self.iconst(types::I8, 1),
                        (true, false) => self.b.ins().icmp_imm_u(IntCC::NotEqual, c, 0),
                        _ => self.b.ins().icmp_imm_u(IntCC::Equal, c, 0),
                    };
                    // Loop back: the credit check at `head` ends it.
                    let out = self.b.create_block();
                    self.b.ins().brif(to_self, head, &[], out, &[]);
                    self.b.switch_to_block(out);
                    self.b.seal_block(out);
                }
                let t = self.iconst(types::I64, *taken);
                let n = self.iconst(types::I64, *not_taken);
                let pc = self.b.ins().select(c, t, n);
                self.b
                    .ins()
                    .store(trusted(), pc, self.state, WaveState::PC_OFFSET as i32);
                let same = *taken == *not_taken;
                let link = self.links.map(|a| {
                    let lt = self.iconst(types::I64, a as u64);
                    if same {
                        // One link for both ways (`jit::Jit::compile`).
                        return lt;
                    }
                    let ln = self.iconst(types::I64, a as u64 + 8);
                    self.b.ins().select(c, lt, ln)
                });
                self.exit_continue(link);
            }
            Exit::JumpIndirect(t) => {
                let pc = self.s_as(*t, types::I64)?;
                self.b
                    .ins()
                    .store(trusted(), pc, self.state, WaveState::PC_OFFSET as i32);
                let z = self.iconst(types::I32, 0);
                self.leave_fenv();
                self.b.ins().return_(&[z]);
            }
            Exit::EndPgm => self.ret_with_pc(blk.end_pc, 1),
            Exit::Barrier { next } => self.ret_with_pc(*next, 2),
            Exit::Trap { pc, .. } => self.ret_with_pc(*pc, 3),
            Exit::Yield { next } => self.ret_with_pc(*next, 5),
            Exit::Unsupported { pc, .. } => self.ret_with_pc(*pc, EXIT_UNSUPPORTED),
            Exit::Illegal { pc, .. } => self.ret_with_pc(*pc, EXIT_ILLEGAL),
        }
        Ok(())
    }
}
