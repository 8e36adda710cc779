//! The affine path of a single vector access: when the analysis proved its address
//! `lane0 + lane × stride` ([`crate::jit::analysis::affine`]) under run-time tests on
//! scalars (its roots' entry test, its extensions' no-wrap tests), the access takes lane
//! 0's address computed as a scalar, one window test, and the fixed-stride inline code,
//! with no per-lane address built or tested. A failed test or window check runs the
//! general code (fixed-stride test, per-lane path, helper), which reports faults as ever.

use super::inline::MemPlan;
use crate::ir::Val;
use crate::jit::analysis::affine::{node, uniform_root, Ext, Half, Node, UNIFORM_ROOT};
use crate::jit::lower::{Gen, GenResult, I32X4, JV};
use crate::wave::WaveState;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlotData, StackSlotKind, Value};
use cranelift_codegen::packed_option::ReservedValue;

impl Gen<'_, '_> {
    /// At the body's start: for every root VGPR of the block's affine accesses and runs,
    /// lane 0 of its entry value (`I32`) and whether every lane `l` of the block holds
    /// lane 0 + `l` (`I8`; lane 0's value for a root flagged
    /// [`crate::jit::analysis::affine::UNIFORM_ROOT`]), kept in [`Gen::affine_roots`] by
    /// the flagged number.
    pub(in crate::jit::lower) fn affine_root_tests(&mut self) {
        self.affine_roots.clear();
        let mut roots = self.facts.affine.roots.clone();
        // The runs' scalar copies are left out of the quick tier's code (`affine_run`).
        if !self.one_copy {
            roots.extend(self.facts.affine.run_roots.iter().copied());
        }
        for key in roots {
            let r = key & !UNIFORM_ROOT;
            let step = u64::from(key & UNIFORM_ROOT == 0);
            let base = WaveState::vgpr_offset(r as usize, 0) as i32;
            let mut acc: Option<Value> = None;
            let mut lane0 = None;
            let mut want = None;
            let four = self.splat_const(32, 4 * step);
            for c in 0..self.lanes / 4 {
                let x = self.b.ins().load(
                    I32X4,
                    crate::jit::lower::trusted(),
                    self.state,
                    base + 16 * c as i32,
                );
                let w = match want {
                    None => {
                        let l0 = self.b.ins().extractlane(x, 0u8);
                        lane0 = Some(l0);
                        let s = self.b.ins().splat(I32X4, l0);
                        let mut steps = [0u8; 16];
                        for k in 0..4u32 {
                            steps[4 * k as usize..4 * k as usize + 4]
                                .copy_from_slice(&(k * step as u32).to_le_bytes());
                        }
                        if step == 0 {
                            s
                        } else {
                            let steps = self.vconst_bytes(I32X4, steps);
                            self.b.ins().iadd(s, steps)
                        }
                    }
                    Some(w) if step == 0 => w,
                    Some(w) => self.b.ins().iadd(w, four),
                };
                want = Some(w);
                let d = self.b.ins().bxor(x, w);
                acc = Some(match acc {
                    Some(a) => self.b.ins().bor(a, d),
                    None => d,
                });
            }
            if let (Some(acc), Some(l0)) = (acc, lane0) {
                let off = self.b.ins().vany_true(acc);
                let ok = self.b.ins().icmp_imm_u(IntCC::Equal, off, 0);
                // Pinned here by a store: Cranelift places pure values at their first use,
                // which would keep the row's chunks live (spilled) up to the first access.
                let pin = self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    8,
                    2,
                ));
                self.b.ins().stack_store(types::I64, l0, pin, 0);
                self.b.ins().stack_store(types::I64, ok, pin, 4);
                self.affine_roots.insert(key, (l0, ok));
            }
        }
    }

    /// Lane 0 of the affine value `v` (`I32` or `I64` by its lanes) for an access under
    /// `mask`, with the run-time conditions its affinity assumes pushed to `guards`.
    pub(in crate::jit::lower) fn affine_lane0(
        &mut self,
        v: Val,
        mask: Val,
        guards: &mut Vec<Value>,
        depth: u32,
    ) -> GenResult<Value> {
        if depth > 32 {
            return Err("affine expression too deep".into());
        }
        let bits = self.ty(v)?.bits();
        let t = if bits == 32 { types::I32 } else { types::I64 };
        let n = node(self.block, v, mask).ok_or("address not affine")?;
        let sub = |g: &mut Self, x: Val, guards: &mut Vec<Value>| {
            g.affine_lane0(x, mask, guards, depth + 1)
        };
        Ok(match n {
            Node::Uniform(s) => self.s_as(s, t)?,
            Node::Lane => self.iconst(t, 0),
            Node::Root(r) => {
                let (l0, ok) = *self.affine_roots.get(&r).ok_or("affine root untested")?;
                guards.push(ok);
                l0
            }
            Node::Same(x) => sub(self, x, guards)?,
            Node::Add(a, b) => {
                let a = sub(self, a, guards)?;
                let b = sub(self, b, guards)?;
                self.b.ins().iadd(a, b)
            }
            Node::Sub(a, b) => {
                let a = sub(self, a, guards)?;
                let b = sub(self, b, guards)?;
                self.b.ins().isub(a, b)
            }
            Node::Shl(a, k) => {
                let a = sub(self, a, guards)?;
                self.b.ins().ishl_imm_u(a, k as i64)
            }
            Node::Mul(a, k) => {
                let a = sub(self, a, guards)?;
                self.b.ins().imul_imm_s(a, k as i64)
            }
            Node::Lo(x) => {
                let x = sub(self, x, guards)?;
                self.b.ins().ireduce(types::I32, x)
            }
            Node::Hi(x) => {
                let mut roots = Vec::new();
                let s64 = crate::jit::analysis::affine::stride(self.block, x, mask, &mut roots)
                    .ok_or("address not affine")?;
                let l0 = sub(self, x, guards)?;
                // Every lane's high half is lane 0's when the lanes step monotonically from
                // lane 0 to the last lane without wrapping and the two share it.
                let d = s64 as i64;
                let ok = if d.unsigned_abs() >= 1 << 32 {
                    self.b.ins().iconst(types::I8, 0)
                } else {
                    let last = self.b.ins().iadd_imm_s(l0, d * (self.lanes as i64 - 1));
                    let cc = if d >= 0 {
                        IntCC::UnsignedGreaterThanOrEqual
                    } else {
                        IntCC::UnsignedLessThanOrEqual
                    };
                    let mono = self.b.ins().icmp(cc, last, l0);
                    let diff = self.b.ins().bxor(last, l0);
                    let hi = self.b.ins().ushr_imm_u(diff, 32);
                    let same = self.b.ins().icmp_imm_u(IntCC::Equal, hi, 0);
                    self.b.ins().band(mono, same)
                };
                guards.push(ok);
                let hi = self.b.ins().ushr_imm_u(l0, 32);
                self.b.ins().ireduce(types::I32, hi)
            }
            Node::PackRoot(lo, r) => {
                let mut roots = Vec::new();
                let s32 = crate::jit::analysis::affine::stride(self.block, lo, mask, &mut roots)
                    .ok_or("address not affine")?;
                let l0 = sub(self, lo, guards)?;
                let (h0, uniform) = *self
                    .affine_roots
                    .get(&uniform_root(r))
                    .ok_or("affine root untested")?;
                guards.push(uniform);
                // The low halves do not wrap: the last lane's, exact in 64 bits, stays in
                // the 32-bit range (the lanes step monotonically).
                let wide = self.b.ins().uextend(types::I64, l0);
                let step = s32 as u32 as i32 as i64;
                let last = self
                    .b
                    .ins()
                    .iadd_imm_s(wide, step * (self.lanes as i64 - 1));
                let ok =
                    self.b
                        .ins()
                        .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, last, u32::MAX as i64);
                let ok2 = self
                    .b
                    .ins()
                    .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, last, 0);
                let ok = self.b.ins().band(ok, ok2);
                guards.push(ok);
                let h = self.b.ins().uextend(types::I64, h0);
                let h = self.b.ins().ishl_imm_u(h, 32);
                self.b.ins().bor(h, wide)
            }
            Node::Ext(x, ext) => {
                let mut roots = Vec::new();
                let s32 = crate::jit::analysis::affine::stride(self.block, x, mask, &mut roots)
                    .ok_or("address not affine")?;
                let l0 = sub(self, x, guards)?;
                // The last lane's value, exact in 64 bits: no lane wraps when it lies in the
                // 32-bit range of the extension (the lanes step monotonically).
                let step = s32 as u32 as i32 as i64;
                let wide = match ext {
                    Ext::Signed => self.b.ins().sextend(types::I64, l0),
                    Ext::Zero => self.b.ins().uextend(types::I64, l0),
                };
                let last = self
                    .b
                    .ins()
                    .iadd_imm_s(wide, step * (self.lanes as i64 - 1));
                let ok = match ext {
                    Ext::Signed => {
                        let lo = self.b.ins().icmp_imm_s(
                            IntCC::SignedGreaterThanOrEqual,
                            last,
                            i32::MIN as i64,
                        );
                        let hi = self.b.ins().icmp_imm_s(
                            IntCC::SignedLessThanOrEqual,
                            last,
                            i32::MAX as i64,
                        );
                        self.b.ins().band(lo, hi)
                    }
                    Ext::Zero => self.b.ins().icmp_imm_u(
                        IntCC::UnsignedLessThanOrEqual,
                        last,
                        u32::MAX as i64,
                    ),
                };
                guards.push(ok);
                wide
            }
            Node::Add64(a, b) => {
                let h = |g: &mut Self, x: Half, guards: &mut Vec<Value>| match x {
                    Half::Wide(v) => sub(g, v, guards),
                    Half::Uniform(lo, hi) => {
                        let lo = g.s_as(lo, types::I32)?;
                        let hi = g.s_as(hi, types::I32)?;
                        let lo = g.b.ins().uextend(types::I64, lo);
                        let hi = g.b.ins().uextend(types::I64, hi);
                        let hi = g.b.ins().ishl_imm_u(hi, 32);
                        Ok(g.b.ins().bor(lo, hi))
                    }
                };
                let a = h(self, a, guards)?;
                let b = h(self, b, guards)?;
                self.b.ins().iadd(a, b)
            }
        })
    }

    /// The plan of the affine path of the access at op `i` (a load, or a store when
    /// `store`) of `size` bytes per lane at `addr` under `mask`, when the analysis found it
    /// affine: `go` when its tests pass, lane 0's address is in one window with the `n`
    /// lanes' span, the mask is not empty, and (a store) exactly lanes 0..n are active.
    /// `slow` is the block of the general code.
    pub(in crate::jit::lower) fn affine_plan(
        &mut self,
        i: usize,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        mask: Val,
        store: bool,
    ) -> GenResult<Option<MemPlan>> {
        let Some(mut plan) = self.affine_test(i, space, addr, size, mask, store)? else {
            return Ok(None);
        };
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        plan.slow = slow;
        Ok(Some(plan))
    }

    /// [`Gen::affine_plan`]'s test without its general code's block (`slow` is a
    /// placeholder, never inserted).
    pub(in crate::jit::lower) fn affine_test(
        &mut self,
        i: usize,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        mask: Val,
        store: bool,
    ) -> GenResult<Option<MemPlan>> {
        let Some(&stride) = self.facts.affine.access.get(&i) else {
            return Ok(None);
        };
        let mut guards = Vec::new();
        let a0 = self.affine_lane0(addr, mask, &mut guards, 0)?;
        let m = self.lane_bits(mask)?;
        let (n64, span) = self.access_lanes(m, stride, size);
        let (hit, ptr) = self.window(space, a0, span)?;
        let mut go = hit;
        for g in guards {
            go = self.b.ins().band(go, g);
        }
        let active = self.access_active(m, store);
        go = self.b.ins().band(go, active);
        Ok(Some(MemPlan {
            go,
            slow: cranelift_codegen::ir::Block::reserved_value(),
            ptr,
            n64,
            stride,
            mask: m,
        }))
    }
}

/// What the general code of an access recomputed of its deferred address ops
/// ([`Gen::remat_address`]), undone when it ends ([`Gen::end_remat`]).
pub(in crate::jit::lower) struct Remat {
    ops: Vec<usize>,
    vreg_cache: std::collections::HashMap<u16, Vec<Value>>,
    mask_cache: std::collections::HashMap<(u32, u32), Vec<Value>>,
}

impl Gen<'_, '_> {
    /// In the general code of an affine access: emits the ops the lane-group form left out
    /// ([`crate::jit::analysis::affine::deferred`]) that the address `addr` needs, in the
    /// straight-line form. Their values and the caches filled meanwhile are valid only in
    /// this code: [`Gen::end_remat`] forgets them.
    pub(in crate::jit::lower) fn remat_address(&mut self, addr: Val) -> GenResult<Remat> {
        let saved = Remat {
            ops: Vec::new(),
            vreg_cache: self.vreg_cache.clone(),
            mask_cache: self.mask_cache.clone(),
        };
        let blk = self.block;
        let mut need = Vec::new();
        let mut stack = vec![addr.0 as usize];
        while let Some(k) = stack.pop() {
            if need.contains(&k) || !self.is_deferred(k) {
                continue;
            }
            if !matches!(self.vals.get(k), Some(JV::None)) {
                continue;
            }
            need.push(k);
            for v in blk.ops[k].operands() {
                stack.push(v.0 as usize);
            }
        }
        need.sort_unstable();
        let mut saved = saved;
        for k in need {
            let op = &blk.ops[k];
            let v = self
                .op(k, op, blk.types[k])
                .map_err(|e| format!("op {k}: {e}"))?;
            self.splat_src[k] = match (op, &v) {
                (crate::ir::Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
                _ => None,
            };
            self.vals[k] = v;
            saved.ops.push(k);
        }
        Ok(saved)
    }

    /// Forgets what [`Gen::remat_address`] made (at the end of the general code).
    pub(in crate::jit::lower) fn end_remat(&mut self, r: Remat) {
        for k in r.ops {
            self.vals[k] = JV::None;
            self.splat_src[k] = None;
        }
        self.vreg_cache = r.vreg_cache;
        self.mask_cache = r.mask_cache;
    }
}
