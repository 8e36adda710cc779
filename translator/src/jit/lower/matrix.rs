//! Matrix ops (`Op::Matrix`): the fused kernel (alone, paired or grouped with its
//! neighbours, [`crate::jit::analysis::matrix`]) when MODE allows it, else the helper.

use super::{trusted, Gen, GenResult, JV};
use crate::ir::Op;
use crate::jit::analysis::matrix::{matrix_unit, MatUnit};
use crate::jit::helpers;
use crate::matrix::plans;
use crate::wave::{WaveState, NUM_VREGS};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind};

impl Gen<'_, '_> {
    /// Lowers a matrix op.
    pub(super) fn matrix(&mut self, i: usize, op: &Op) -> GenResult<JV> {
        Ok(match op {
            Op::Matrix(call) => {
                // Runs between lane-group runs, after every earlier register write has been
                // stored; the registers it writes are read again from the state afterwards.
                self.whole_wave("matrix")?;
                // Plans live for the process (`matrix::plans`): the plan, kernel and
                // descriptor addresses below, the neighbours' included, stay valid with no
                // owner here, and running the code takes no lock.
                let planned = plans::get(call.plan).ok_or("matrix op with an unknown plan")?;
                let p = types::I64;
                // A pre-resolved kernel (`matrix::kernels::Fused`, checked against the
                // register file when the plan was built) is called directly when MODE
                // allows it; otherwise, and for every other instruction, the helper runs
                // the plan.
                let fused = planned
                    .plan
                    .fused()
                    .filter(|(f, ..)| f.nregs() <= NUM_VREGS);
                // Matrix instructions in a row (only constants and counts between) run as
                // one call at the first of a unit when MODE allows their fused kernels
                // ([`matrix_unit`]); the others then do nothing on that path.
                let unit = matrix_unit(self.block, i);
                let join = self.b.create_block();
                if let Some((f, mask, want)) = fused {
                    let mode = self.b.ins().load(
                        types::I32,
                        trusted(),
                        self.state,
                        WaveState::MODE_OFFSET as i32,
                    );
                    let sel = self.b.ins().band_imm_u(mode, i64::from(mask));
                    let ok = self.b.ins().icmp_imm_u(IntCC::Equal, sel, i64::from(want));
                    let fast = self.b.create_block();
                    let slow = self.b.create_block();
                    self.b.ins().brif(ok, fast, &[], slow, &[]);
                    self.b.switch_to_block(fast);
                    self.b.seal_block(fast);
                    let regs = self
                        .b
                        .ins()
                        .iadd_imm_u(self.state, WaveState::vgpr_offset(0, 0) as i64);
                    match unit {
                        // The unit's call at its first instruction ran this one.
                        MatUnit::Member => {}
                        MatUnit::Pair(entry, fp, gp) => {
                            let fv = self.iconst(p, fp);
                            let gv = self.iconst(p, gp);
                            self.call(entry as usize, &[p, p, p], None, &[fv, gv, regs]);
                        }
                        MatUnit::Group(entry, desc) => {
                            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                                StackSlotKind::ExplicitSlot,
                                16 * desc.len() as u32,
                                3,
                            ));
                            for (x, [fp, from]) in desc.iter().enumerate() {
                                let v = self.iconst(p, *fp);
                                self.b.ins().stack_store(p, v, slot, 16 * x as i32);
                                let v = self.iconst(p, *from);
                                self.b.ins().stack_store(p, v, slot, 16 * x as i32 + 8);
                            }
                            let dv = self.b.ins().stack_addr(p, slot, 0);
                            let nv = self.iconst(p, desc.len() as u64);
                            self.call(entry as usize, &[p, p, p], None, &[dv, nv, regs]);
                        }
                        MatUnit::Single => {
                            let fv = self.iconst(p, f as *const _ as u64);
                            self.call(f.entry() as usize, &[p, p], None, &[fv, regs]);
                        }
                    }
                    self.b.ins().jump(join, &[]);
                    self.b.switch_to_block(slow);
                    self.b.seal_block(slow);
                }
                let plan = self.iconst(p, planned as *const plans::Planned as u64);
                let pc = self.iconst(p, call.pc);
                let rc = self
                    .call(
                        helpers::h_matrix as *const () as usize,
                        &[p, p, p, p],
                        Some(types::I32),
                        &[self.ctx, self.state, plan, pc],
                    )
                    .ok_or("helper result")?;
                self.fault_check(rc, call.pc);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.b.seal_block(join);
                self.vreg_cache.clear();
                JV::None
            }
            _ => return Err("not a matrix op".into()),
        })
    }
}
