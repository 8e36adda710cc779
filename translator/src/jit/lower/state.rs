//! Reads and writes of the wave state: SGPRs, VGPRs (also dynamically indexed), SCC, MODE.

use super::{trusted, Gen, GenResult, I32X4, JV};
use crate::ir::{Op, Ty, Val};
use crate::jit::helpers;
use crate::wave::{sreg, WaveState, MAX_LANES, NUM_SREGS, NUM_VREGS};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

impl Gen<'_, '_> {
    /// Address of vector slot `base + index` after a range check (fault when out of range).
    pub(super) fn dyn_vreg(&mut self, i: usize, base: u16, index: Val) -> GenResult<Value> {
        let idx = self.s_as(index, types::I32)?;
        let idx = self.b.ins().uextend(types::I64, idx);
        let r = self.b.ins().iadd_imm_s(idx, base as i64);
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, r, NUM_VREGS as i64);
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bad, fault, &[], cont, &[]);
        self.b.switch_to_block(fault);
        self.b.seal_block(fault);
        let opv = self.iconst(types::I32, i as u64);
        let p = types::I64;
        self.call(
            helpers::h_bad_vreg as *const () as usize,
            &[p, types::I32, p],
            None,
            &[self.ctx, opv, r],
        );
        let c = self.iconst(types::I32, crate::env::ExitCode::Fault as u64);
        self.leave_fenv();
        self.b.ins().return_(&[c]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
        let off = self.b.ins().imul_imm_s(r, (MAX_LANES * 4) as i64);
        let a = self.b.ins().iadd(self.state, off);
        Ok(self
            .b
            .ins()
            .iadd_imm_s(a, WaveState::vgpr_offset(0, 0) as i64))
    }

    /// Masked store of a `V32` value to the register row at address `a` (whose current
    /// chunks are `old` when known): a blend with the old contents, or plain stores when the
    /// mask is the constant all-ones. Returns the new contents.
    pub(super) fn set_vgpr(
        &mut self,
        a: Value,
        old: Option<Vec<Value>>,
        val: Val,
        mask: Val,
        store: bool,
    ) -> GenResult<Vec<Value>> {
        let chunks = self.v(val)?;
        if chunks.len() != self.nch(32) || self.ty(val)? != Ty::V32 {
            return Err("SetVgpr of a 64-bit vector".into());
        }
        let all_ones = matches!(
            self.block.ops.get(mask.0 as usize),
            Some(Op::Const { bits: u64::MAX, .. })
        );
        // In the fast lane-group loop, a mask checked to be full before it (`Gen::run`).
        let full = self
            .fast_copy()
            .is_some_and(|f| f.full_masks.contains(&mask.0));
        if all_ones || full {
            if store {
                for (k, c) in chunks.iter().enumerate() {
                    self.b.ins().store(trusted(), *c, a, (16 * k) as i32);
                }
            }
            return Ok(chunks);
        }
        let lms = self.lane_masks(mask, 32)?;
        let mut out = Vec::with_capacity(16);
        for (k, c) in chunks.iter().enumerate() {
            let o = match &old {
                Some(o) => o[k],
                None => self.b.ins().load(I32X4, trusted(), a, (16 * k) as i32),
            };
            let new = self.blend(lms[k], *c, o);
            if store {
                self.b.ins().store(trusted(), new, a, (16 * k) as i32);
            }
            out.push(new);
        }
        Ok(out)
    }

    /// Lowers a read or write of the wave state.
    pub(super) fn state_op(&mut self, i: usize, op: &Op) -> GenResult<JV> {
        Ok(match op {
            Op::GetSgpr(code) => {
                let c = *code as usize;
                if c >= NUM_SREGS {
                    return Err(format!("scalar slot {c} out of range"));
                }
                if *code == sreg::NULL {
                    JV::S(self.iconst(types::I32, 0))
                } else {
                    let off = WaveState::sgpr_offset(c) as i32;
                    JV::S(self.b.ins().load(types::I32, trusted(), self.state, off))
                }
            }
            Op::SetSgpr(code, v) => {
                let c = *code as usize;
                if c >= NUM_SREGS {
                    return Err(format!("scalar slot {c} out of range"));
                }
                let x = self.s_as(*v, types::I32)?;
                if *code != sreg::NULL {
                    let off = WaveState::sgpr_offset(c) as i32;
                    self.b.ins().store(trusted(), x, self.state, off);
                }
                JV::None
            }
            Op::GetVgpr(reg) => {
                let r = *reg as usize;
                if r >= NUM_VREGS {
                    return Err(format!("vector slot {r} out of range"));
                }
                if let Some(c) = self.vreg_cache.get(reg) {
                    return Ok(JV::V(c.clone()));
                }
                if self.rows_at_use.0.contains(reg) {
                    return Ok(JV::Row(*reg));
                }
                let base = WaveState::vgpr_offset(r, 0) as i32;
                let vb = self.vbase();
                let chunks: Vec<Value> = (0..self.nch(32) as i32)
                    .map(|k| self.b.ins().load(I32X4, trusted(), vb, base + 16 * k))
                    .collect();
                self.vreg_cache.insert(*reg, chunks.clone());
                JV::V(chunks)
            }
            Op::SetVgpr { reg, val, mask } => {
                let r = *reg as usize;
                if r >= NUM_VREGS {
                    return Err(format!("vector slot {r} out of range"));
                }
                let vb = self.vbase();
                let a = self
                    .b
                    .ins()
                    .iadd_imm_s(vb, WaveState::vgpr_offset(r, 0) as i64);
                let old = self.vreg_cache.get(reg).cloned();
                let defer = self.group.is_some();
                let new = self.set_vgpr(a, old, *val, *mask, !defer)?;
                if let Some(g) = self.group.as_mut() {
                    if !g.dirty.contains(reg) {
                        g.dirty.push(*reg);
                    }
                }
                self.vreg_cache.insert(*reg, new);
                JV::None
            }
            Op::GetVgprDyn { base, index } => {
                self.whole_wave("this op")?;
                let a = self.dyn_vreg(i, *base, *index)?;
                JV::V(
                    (0..(self.lanes / 4) as i32)
                        .map(|k| self.b.ins().load(I32X4, trusted(), a, 16 * k))
                        .collect(),
                )
            }
            Op::SetVgprDyn {
                base,
                index,
                val,
                mask,
            } => {
                self.whole_wave("SetVgprDyn")?;
                let a = self.dyn_vreg(i, *base, *index)?;
                self.set_vgpr(a, None, *val, *mask, true)?;
                // Any register may have changed.
                self.vreg_cache.clear();
                JV::None
            }
            Op::GetScc => {
                let x = self.b.ins().load(
                    types::I32,
                    trusted(),
                    self.state,
                    WaveState::SCC_OFFSET as i32,
                );
                JV::S(self.b.ins().band_imm_u(x, 1))
            }
            Op::SetScc(v) => {
                let x = self.s_as(*v, types::I32)?;
                let x = self.b.ins().band_imm_u(x, 1);
                self.b
                    .ins()
                    .store(trusted(), x, self.state, WaveState::SCC_OFFSET as i32);
                JV::None
            }
            Op::GetMode => JV::S(self.b.ins().load(
                types::I32,
                trusted(),
                self.state,
                WaveState::MODE_OFFSET as i32,
            )),
            Op::SetMode(v) => {
                let x = self.s_as(*v, types::I32)?;
                self.b
                    .ins()
                    .store(trusted(), x, self.state, WaveState::MODE_OFFSET as i32);
                JV::None
            }
            _ => return Err("not a state op".into()),
        })
    }
}
