//! The lane-group form (module doc of [`super`]): each run of lane-local ops
//! ([`crate::jit::analysis::runs`]) becomes one loop over groups of 4 lanes, emitted as a
//! fast copy and a cold slow copy.

use super::{trusted, vty, Gen, GenResult, JV};
use crate::ir::{Op, Val};
use crate::jit::analysis::operands;
use crate::jit::analysis::runs::{run_extent_skipping, OpClass, RunExtent};
use crate::wave::WaveState;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, InstBuilder, MemFlagsData, StackSlot, StackSlotData, StackSlotKind, Value,
};
use std::collections::HashMap;

/// The lane group being emitted: the loop index, the copy of the loop, and what the ops of
/// the group share.
pub(super) struct LaneGroup {
    /// The loop index `g` (`I64`, 0..lanes/4; lanes `4g..4g+4`).
    pub g: Value,
    /// `state + 16 * g`: where the group's part of each VGPR row starts.
    pub rows: Value,
    /// Which copy of the loop.
    pub copy: LoopCopy,
    /// Whole-wave vector values from before the run: the address of the lane-order bytes
    /// the loop reads (a stack buffer, or a pending load's, `memory::pending`) and the
    /// flags to read them with.
    pub outer: HashMap<u32, (Value, MemFlagsData)>,
    /// The run's post ops whose lane masks the group computes ([`RunExtent::derived`]).
    pub derived: Vec<u32>,
    /// Registers written in this group and not stored yet (stored once at the end of the
    /// group; inside the loop every read goes through `vreg_cache`).
    pub dirty: Vec<u16>,
    /// Lane masks of the group's compares: value → (chunks, lane bits).
    pub cmp_masks: HashMap<u32, (Vec<Value>, u32)>,
    /// Masks of the compare just emitted (picked up by [`Gen::group_loop`]).
    pub last_cmp: Option<(Vec<Value>, u32)>,
}

/// The two copies of a lane-group loop.
pub(super) enum LoopCopy {
    /// Runs when the run's early register-write masks are full; leaves for the slow copy
    /// at the first group with a NaN float result, before that group stores anything.
    Fast(FastCopy),
    /// Redoes that group and the rest with the NaN rule in line, blending register writes;
    /// laid out cold.
    Slow,
}

/// The state of the fast copy of a lane-group loop.
pub(super) struct FastCopy {
    /// Where a group with a NaN float result leaves for the slow copy.
    pub bail: Bail,
    /// The register-write masks checked before the loop to have every lane set.
    pub full_masks: Vec<u32>,
    /// The NaN lanes of the group's float results so far.
    pub nan: Option<Value>,
    /// A float result chunk not tested for NaNs yet (tested with the next one).
    pub nan_pending: Option<Value>,
    /// Under the host's FTZ: the group's f32 and f64 multiply and FMA result chunks so far,
    /// whose product is tested for ±0/NaN before the stores ([`super::fenv`]).
    pub ftz_products: [Vec<Value>; 2],
    /// Under the host's FTZ in the iterated form: whether MXCSR.UE tests the results instead.
    pub ftz_flag: super::fenv::FtzFlag,
    /// In the iterated form: the float result chunks (width, chunk) of an iteration, whose
    /// NaN tests wait for its end ([`super::iterated`]).
    pub nan_deferred: Option<Vec<(u32, Value)>>,
}

/// The exit of the fast lane-group loop to the slow one: the loop header's parameters (the
/// group and its compare accumulators, passed on so the slow loop redoes the group) and the
/// block taking them, made at the first float op that needs it.
pub(super) struct Bail {
    pub args: Vec<Value>,
    pub block: Option<cranelift_codegen::ir::Block>,
}

/// A run being emitted: what both copies of its loop share.
struct RunPlan<'c> {
    i: usize,
    j: usize,
    classes: &'c [OpClass],
    /// Per op of the run: a uniform op emitted after the loop ([`RunExtent::post`]).
    post: &'c [bool],
    /// The run's compares, whose lane bits accumulate in loop-carried values.
    cmps: Vec<usize>,
    /// Vector values used after the run: value, lane bits, 64-lane buffer.
    escapes: Vec<(usize, u32, StackSlot)>,
    /// The escape (index in `escapes`) stored by the loop for the store after the run, and
    /// the address its groups go to (`memory::direct_store`).
    direct: Option<(usize, Value)>,
    outer: HashMap<u32, (Value, MemFlagsData)>,
    derived: Vec<u32>,
}

impl Gen<'_, '_> {
    /// Whether op `k` is left out of the lane-group form: it only makes affine addresses,
    /// and the general code of their accesses recomputes it (`memory::affine`).
    pub(super) fn is_deferred(&self, k: usize) -> bool {
        self.facts.affine.deferred.get(k).copied().unwrap_or(false)
    }

    /// Whether the slow copy of a lane-group loop is being emitted.
    pub(super) fn in_slow_copy(&self) -> bool {
        matches!(
            self.group,
            Some(LaneGroup {
                copy: LoopCopy::Slow,
                ..
            })
        )
    }

    /// The fast copy of a lane-group loop, while it is emitted.
    pub(super) fn fast_copy(&mut self) -> Option<&mut FastCopy> {
        match &mut self.group {
            Some(LaneGroup {
                copy: LoopCopy::Fast(f),
                ..
            }) => Some(f),
            _ => None,
        }
    }

    /// Lane-group form (iterate the lane chunks outside, keep values in registers). The
    /// block is cut into runs of consecutive ops that are lane-local inlined vector ops
    /// ([`OpClass::Lane`]) or uniform ops that read no vector value and cannot fault
    /// ([`OpClass::Uniform`]); other ops are emitted in the straight-line form between
    /// runs. A run emits its uniform ops first (they touch no VGPRs, so this reordering is
    /// invisible), then one loop over the groups of 4 lanes (`lanes / 4`) executing all its
    /// vector ops for that group. Vector values used after the run are stored per group
    /// into stack buffers and reloaded after the loop.
    pub(super) fn emit_grouped(&mut self) -> GenResult<()> {
        let blk = self.block;
        let n = blk.ops.len();
        let classes: Vec<OpClass> = self.facts.classes.clone();
        let mut any_run = false;
        let mut i = 0;
        while i < n {
            if classes[i] == OpClass::Other {
                if let Some(next) = self.try_multi(i)? {
                    i = next;
                    continue;
                }
                self.straight(i)?;
                i += 1;
                continue;
            }
            let extent = match self.facts.extents.get(&i) {
                Some(e) => e.clone(),
                None => run_extent_skipping(blk, i, &classes, &self.facts.affine.deferred),
            };
            let j = extent.end;
            let lane: Vec<bool> = (i..j)
                .map(|k| classes[k] == OpClass::Lane && !self.is_deferred(k))
                .collect();
            // A lane op whose value nothing uses (lane ops with a value are pure) gives the
            // loop nothing to do: a run of only such ops is emitted in the straight-line
            // form, not as an empty loop. (Register writes, which have no value, are work.)
            let dead: Vec<bool> = (i..j)
                .map(|k| {
                    lane[k - i]
                        && blk.types[k].is_some()
                        && self.facts.uses.get(k).copied() == Some(0)
                })
                .collect();
            if (i..j).any(|k| lane[k - i] && !dead[k - i]) {
                self.run(i, &classes, extent)?;
                any_run = true;
            } else {
                any_run |= lane.contains(&true);
                for k in i..j {
                    // Dead ops are still lowered (which checks them); Cranelift drops them.
                    if self.is_deferred(k) {
                        self.record(&blk.ops[k], JV::None);
                    } else {
                        self.straight(k)?;
                    }
                }
            }
            i = j;
        }
        if any_run {
            Ok(())
        } else {
            Err("no lane-local vector work".into())
        }
    }

    /// Emits the run starting at op `i` as uniform prologue + lane-group loop (its fast
    /// and, when a group may leave it, its slow copy) + the uniform ops after the loop.
    // Op indices address several parallel tables (ops, types, classes, values).
    #[allow(clippy::needless_range_loop)]
    pub(super) fn run(
        &mut self,
        i: usize,
        classes: &[OpClass],
        extent: RunExtent,
    ) -> GenResult<()> {
        let blk = self.block;
        let RunExtent {
            end: j,
            post,
            derived,
        } = extent;
        // In the iterated form (`iterated`) the uniform ops ran already, in the scalar loop.
        let iterated = self.iters.is_some();
        if !iterated {
            // Placeholders keep value numbering aligned while the run is emitted out of
            // order.
            let first = self.vals.len();
            if first != i {
                return Err("value numbering".into());
            }
            for _ in i..j {
                self.vals.push(JV::None);
                self.splat_src.push(None);
            }
        }
        for k in i..j {
            if classes[k] == OpClass::Uniform && !post[k - i] && !iterated && !self.is_deferred(k) {
                let v = self
                    .op(k, &blk.ops[k], blk.types[k])
                    .map_err(|e| format!("op {k}: {e}"))?;
                self.vals[k] = v;
            }
        }
        // Escaping vector values get a 64-lane stack buffer each.
        let mut escapes: Vec<(usize, u32, StackSlot)> = Vec::new();
        for k in i..j {
            let remat_input = self.facts.affine.remat_input.get(k).copied() == Some(true);
            if classes[k] == OpClass::Lane
                && (self.facts.last_use[k] >= j || remat_input)
                && !self.facts.rows.contains_key(&(k as u32))
                && !self.is_deferred(k)
            {
                if let Some(t) = blk.types[k].filter(|t| t.is_vector()) {
                    let bits = t.bits();
                    let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        bits * 8,
                        4,
                    ));
                    escapes.push((k, bits, slot));
                }
            }
        }
        if iterated && !escapes.is_empty() {
            return Err("an iterated block's vector value is used after it".into());
        }
        let direct = self.direct_store(i, j, &escapes)?;
        let outer = self.outer_buffers(i, j, classes)?;
        // Compares of the run accumulate their lane bits in loop-carried values.
        let cmps: Vec<usize> = (i..j)
            .filter(|&k| {
                classes[k] == OpClass::Lane
                    && matches!(blk.ops[k], Op::Cmp(..))
                    && !self.is_deferred(k)
            })
            .collect();
        let plan = RunPlan {
            i,
            j,
            classes,
            post: &post,
            cmps,
            escapes,
            direct,
            outer,
            derived,
        };
        let header = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        for _ in &plan.cmps {
            self.b.append_block_param(header, types::I64);
        }
        let after = self.b.create_block();
        for _ in &plan.cmps {
            self.b.append_block_param(after, types::I64);
        }
        let zero = self.iconst(types::I64, 0);
        let init: Vec<BlockArg> = (0..=plan.cmps.len())
            .map(|_| BlockArg::Value(zero))
            .collect();
        // A run whose lane work is affine skips its loop when its tests pass.
        if let Some(general) = self.affine_run_copy(i, j, &plan.cmps, after)? {
            self.b.switch_to_block(general);
        }
        if self.one_copy {
            // Only the general copy, from group 0 (what the fast copy's entry test falls
            // back to), laid out in line.
            self.b.ins().jump(header, &init);
            self.group_loop(&plan, LoopCopy::Slow, header, after)?;
            return self.finish_run(plan, after);
        }
        // The fast loop: a float result with a NaN lane leaves it (before the group stores
        // anything) for the slow loop, which redoes that group and the rest with the NaN
        // rule applied in line. So the NaN rule's operand tests and constants (loop
        // invariants for uniform operands, which Cranelift hoists) stay out of the hot
        // loop and do not take its registers. And the fast loop runs only when the masks of
        // the run's register writes that exist before it (EXEC) have every lane of the
        // block set, so it writes registers without blending (else the slow loop runs).
        // The lifter's blends on EXEC (`Select` on an EXEC read) take the same test: with
        // every lane set they are their first operand.
        let mut full: Vec<u32> = Vec::new();
        for k in (i..j).filter(|&k| !self.is_deferred(k)) {
            let mask = match (classes[k], &blk.ops[k]) {
                (OpClass::Lane, Op::SetVgpr { mask, .. }) => Some(mask),
                (OpClass::Lane, Op::Select { cond, .. }) if reads_exec(blk, *cond) => Some(cond),
                _ => None,
            };
            if let Some(mask) = mask {
                let early = (mask.0 as usize) < i
                    || classes.get(mask.0 as usize) == Some(&OpClass::Uniform)
                        && !post[mask.0 as usize - i];
                let constant = matches!(
                    blk.ops.get(mask.0 as usize),
                    Some(Op::Const { bits: u64::MAX, .. })
                );
                if early && !constant && !full.contains(&mask.0) {
                    full.push(mask.0);
                }
            }
        }
        let mut entry_bail = None;
        if full.is_empty() {
            self.b.ins().jump(header, &init);
        } else {
            let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
            let mut ok: Option<Value> = None;
            for m in &full {
                let x = self.lane_bits(Val(*m))?;
                let f = self.b.ins().icmp_imm_s(IntCC::Equal, x, all_lanes);
                ok = Some(match ok {
                    Some(o) => self.b.ins().band(o, f),
                    None => f,
                });
            }
            let ok = ok.ok_or("masks")?;
            let bail = self.b.create_block();
            self.b.set_cold_block(bail);
            for _ in 0..=plan.cmps.len() {
                self.b.append_block_param(bail, types::I64);
            }
            self.b.ins().brif(ok, header, &init, bail, &init);
            entry_bail = Some(bail);
        }
        let fast = FastCopy {
            bail: Bail {
                args: Vec::new(),
                block: entry_bail,
            },
            full_masks: full,
            nan: None,
            nan_pending: None,
            ftz_products: [Vec::new(), Vec::new()],
            ftz_flag: Default::default(),
            nan_deferred: None,
        };
        let fast = self.group_loop(&plan, LoopCopy::Fast(fast), header, after)?;
        if let LoopCopy::Fast(FastCopy {
            bail: Bail {
                block: Some(bail), ..
            },
            ..
        }) = fast
        {
            self.b.switch_to_block(bail);
            self.b.seal_block(bail);
            let args: Vec<BlockArg> = self
                .b
                .block_params(bail)
                .iter()
                .map(|v| BlockArg::Value(*v))
                .collect();
            let slow = self.b.create_block();
            self.b.set_cold_block(slow);
            for _ in 0..args.len() {
                self.b.append_block_param(slow, types::I64);
            }
            // The slow copy runs with the host's FTZ off (`ftz`): off on the way in, on
            // again on the way out.
            let ftz = self.ftz;
            let slow_after = if ftz {
                self.ftz_switch(false);
                let b = self.b.create_block();
                self.b.set_cold_block(b);
                for _ in &plan.cmps {
                    self.b.append_block_param(b, types::I64);
                }
                b
            } else {
                after
            };
            self.b.ins().jump(slow, &args);
            for k in i..j {
                if classes[k] == OpClass::Lane {
                    self.vals[k] = JV::None;
                    self.splat_src[k] = None;
                }
            }
            self.ftz = false;
            self.group_loop(&plan, LoopCopy::Slow, slow, slow_after)?;
            self.ftz = ftz;
            if ftz {
                self.b.switch_to_block(slow_after);
                self.b.seal_block(slow_after);
                self.ftz_switch(true);
                let out: Vec<BlockArg> = self
                    .b
                    .block_params(slow_after)
                    .iter()
                    .map(|v| BlockArg::Value(*v))
                    .collect();
                self.b.ins().jump(after, &out);
            }
        }
        self.finish_run(plan, after)
    }

    /// After a run's loop copies: the compare masks from `after`'s parameters, the uniform
    /// ops that needed them, and the escaping vector values reloaded whole.
    #[allow(clippy::needless_range_loop)]
    fn finish_run(
        &mut self,
        plan: RunPlan<'_>,
        after: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        self.check_defect()?;
        let blk = self.block;
        let (i, j, classes, post) = (plan.i, plan.j, plan.classes, plan.post);
        self.b.switch_to_block(after);
        self.b.seal_block(after);
        let finals = self.b.block_params(after).to_vec();
        for (ci, &k) in plan.cmps.iter().enumerate() {
            self.vals[k] = JV::S(finals[ci]);
        }
        self.mask_cache.clear();
        self.vreg_cache.clear();
        // Values that stay inside the run are dead now; escaping ones come back whole.
        for k in i..j {
            if classes[k] == OpClass::Lane && !plan.cmps.contains(&k) {
                self.vals[k] = JV::None;
                self.splat_src[k] = None;
            }
        }
        // Uniform ops that depend on this run's compares (and all uniform ops after the
        // first of them, keeping their order), now that the masks are complete.
        for k in i..j {
            if classes[k] == OpClass::Uniform && post[k - i] {
                let v = self
                    .op(k, &blk.ops[k], blk.types[k])
                    .map_err(|e| format!("op {k}: {e}"))?;
                self.vals[k] = v;
            }
        }
        for (k, bits, slot) in plan.escapes {
            self.escaped.insert(k as u32, slot);
            if let Op::Broadcast(a) = &blk.ops[k] {
                // Splats stay chunks (lane groups read their uniform source).
                let chunks = (0..super::nchunks(self.lanes, bits))
                    .map(|c| {
                        self.b
                            .ins()
                            .stack_load(types::I64, vty(bits), slot, (16 * c) as i32)
                    })
                    .collect();
                self.vals[k] = JV::V(chunks);
                self.splat_src[k] = self.s(*a).ok();
            } else {
                self.vals[k] = JV::Buf(slot);
            }
        }
        Ok(())
    }

    /// The whole-wave vector operands from before the run `i..j` that its lane ops read:
    /// the addresses of their lane-order bytes (a stack buffer with a copy made now, the
    /// buffer they escaped an earlier run in, or where a pending load points) and the
    /// flags to read them with.
    fn outer_buffers(
        &mut self,
        i: usize,
        j: usize,
        classes: &[OpClass],
    ) -> GenResult<HashMap<u32, (Value, MemFlagsData)>> {
        let blk = self.block;
        let mut outer = HashMap::new();
        for (k, (op, class)) in blk.ops[i..j].iter().zip(&classes[i..j]).enumerate() {
            if *class != OpClass::Lane || self.is_deferred(i + k) {
                continue;
            }
            for v in operands(op) {
                let d = v.0 as usize;
                if d >= i || outer.contains_key(&v.0) {
                    continue;
                }
                if self.splat_src.get(d).copied().flatten().is_some() {
                    continue;
                }
                if let Some(base) = self.pending_base(v.0) {
                    outer.insert(v.0, (base, Self::pending_flags()));
                    continue;
                }
                if let Some(slot) = self.escaped.get(&v.0).copied() {
                    // Already in a lane-order buffer: the loop reads it there.
                    let base = self.b.ins().stack_addr(types::I64, slot, 0);
                    outer.insert(v.0, (base, trusted()));
                    continue;
                }
                if let JV::V(chunks) = self.get(v)?.clone() {
                    let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        (chunks.len() * 16) as u32,
                        4,
                    ));
                    for (c, ch) in chunks.iter().enumerate() {
                        self.b
                            .ins()
                            .stack_store(types::I64, *ch, slot, (16 * c) as i32);
                    }
                    let base = self.b.ins().stack_addr(types::I64, slot, 0);
                    outer.insert(v.0, (base, trusted()));
                }
            }
        }
        Ok(outer)
    }

    /// One copy of the lane-group loop of `plan` from `header` (parameters: the group index
    /// and the compares' mask accumulators) to `after` (the accumulators): every lane op of
    /// the run for group `g`, then the group's register and escape stores. Returns the
    /// copy's final state.
    fn group_loop(
        &mut self,
        plan: &RunPlan<'_>,
        mut copy: LoopCopy,
        header: cranelift_codegen::ir::Block,
        after: cranelift_codegen::ir::Block,
    ) -> GenResult<LoopCopy> {
        self.b.switch_to_block(header);
        self.mask_cache.clear();
        self.vreg_cache.clear();
        let params = self.b.block_params(header).to_vec();
        if let LoopCopy::Fast(f) = &mut copy {
            f.bail.args = params.clone();
        }
        let g = params[0];
        let mut accs: Vec<Value> = params[1..].to_vec();
        let off = self.b.ins().ishl_imm_u(g, 4);
        let p = self.b.ins().iadd(self.state, off);
        self.group = Some(LaneGroup {
            g,
            rows: p,
            copy,
            outer: plan.outer.clone(),
            derived: plan.derived.clone(),
            dirty: Vec::new(),
            cmp_masks: HashMap::new(),
            last_cmp: None,
        });
        // In the iterated form, a trip may run its ops for more than one group.
        let mut iterations = match self.iters {
            Some(n) => Some(self.iteration_start(plan.i, plan.j, plan.classes, n)?),
            None => None,
        };
        let per_trip = iterations.as_ref().map_or(1, |it| it.groups());
        for h in 0..per_trip {
            if let Some(it) = iterations.as_mut() {
                self.enter_trip_group(it, h);
            }
            self.group_ops(plan, &mut accs)?;
            if let Some(it) = iterations.as_mut() {
                self.leave_trip_group(it, h);
            }
        }
        let mut iterations = match iterations {
            Some(it) => Some(self.iteration_end(it)?),
            None => None,
        };
        self.bail_on_nan();
        let dirty = self
            .group
            .as_mut()
            .map(|gr| std::mem::take(&mut gr.dirty))
            .unwrap_or_default();
        for h in 0..per_trip {
            if let Some(it) = iterations.as_mut() {
                self.enter_trip_group(it, h);
            }
            let vb = self.vbase();
            for reg in &dirty {
                let chunks = self.vreg_cache.get(reg).cloned().ok_or("dirty register")?;
                let off = WaveState::vgpr_offset(*reg as usize, 0);
                for (c, ch) in chunks.iter().enumerate() {
                    self.b
                        .ins()
                        .store(trusted(), *ch, vb, (off + 16 * c) as i32);
                }
            }
        }
        for (e, (k, bits, slot)) in plan.escapes.iter().enumerate() {
            let chunks = self.v(Val(*k as u32))?;
            // The store after the run's own bytes, or the value's buffer.
            let (base, flags) = match plan.direct {
                Some((d, base)) if d == e => (base, super::le()),
                _ => (self.b.ins().stack_addr(types::I64, *slot, 0), trusted()),
            };
            // Group g of a V32 value is bytes 16g..16g+16; of a V64 value 32g..32g+32.
            let sh = if *bits == 32 { 4 } else { 5 };
            let go = self.b.ins().ishl_imm_u(g, sh);
            let a = self.b.ins().iadd(base, go);
            for (c, ch) in chunks.iter().enumerate() {
                self.b.ins().store(flags, *ch, a, (16 * c) as i32);
            }
        }
        let next = self.b.ins().iadd_imm_s(g, per_trip as i64);
        let groups = (self.lanes / 4) as i64;
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, next, groups);
        let mut back = vec![BlockArg::Value(next)];
        back.extend(accs.iter().map(|a| BlockArg::Value(*a)));
        let out: Vec<BlockArg> = accs.iter().map(|a| BlockArg::Value(*a)).collect();
        self.b.ins().brif(more, header, &back, after, &out);
        self.b.seal_block(header);
        let gr = self.group.take().ok_or("lane group")?;
        Ok(gr.copy)
    }

    /// The lane ops of `plan` for the current group (compares' lane bits into `accs`).
    fn group_ops(&mut self, plan: &RunPlan<'_>, accs: &mut [Value]) -> GenResult<()> {
        let blk = self.block;
        for k in plan.i..plan.j {
            if plan.classes[k] != OpClass::Lane || self.is_deferred(k) {
                continue;
            }
            let op = &blk.ops[k];
            if let Some(gr) = self.group.as_mut() {
                gr.last_cmp = None;
            }
            let v = self
                .op(k, op, blk.types[k])
                .map_err(|e| format!("op {k}: {e}"))?;
            if let Some(ci) = plan.cmps.iter().position(|&c| c == k) {
                let (masks, bits) = self
                    .group
                    .as_mut()
                    .and_then(|gr| gr.last_cmp.take())
                    .ok_or("compare without lane masks")?;
                let JV::S(group_bits) = v else {
                    return Err("compare result".into());
                };
                accs[ci] = self.b.ins().bor(accs[ci], group_bits);
                if let Some(gr) = self.group.as_mut() {
                    gr.cmp_masks.insert(k as u32, (masks, bits));
                }
                // The whole mask exists only after the loop.
                self.vals[k] = JV::None;
                continue;
            }
            self.splat_src[k] = match (op, &v) {
                (Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
                _ => None,
            };
            self.vals[k] = v;
        }
        Ok(())
    }

    /// In the fast lane-group loop, before the group's stores: leaves for the slow loop
    /// when a float result of the group had a NaN lane.
    pub(super) fn bail_on_nan(&mut self) {
        self.ftz_tests();
        self.pending_nans();
        let Some(fast) = self.fast_copy() else {
            return;
        };
        let Some(acc) = fast.nan.take() else {
            return;
        };
        let (block, nargs) = (fast.bail.block, fast.bail.args.len());
        let blk = match block {
            Some(b) => b,
            None => {
                let b = self.b.create_block();
                self.b.set_cold_block(b);
                for _ in 0..nargs {
                    self.b.append_block_param(b, types::I64);
                }
                if let Some(f) = self.fast_copy() {
                    f.bail.block = Some(b);
                }
                b
            }
        };
        let args: Vec<BlockArg> = self
            .fast_copy()
            .map(|f| f.bail.args.iter().map(|v| BlockArg::Value(*v)).collect())
            .unwrap_or_default();
        let any = self.b.ins().vany_true(acc);
        let cont = self.b.create_block();
        self.b.ins().brif(any, blk, &args, cont, &[]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }
}

/// Whether `v` is the wave's EXEC as the lifter reads it for a blend: `GetSgpr(126)`
/// (wave32, possibly zero-extended) or the pair 126/127 packed (wave64).
fn reads_exec(blk: &crate::ir::Block, v: Val) -> bool {
    let op = |v: Val| blk.ops.get(v.0 as usize);
    match op(v) {
        Some(Op::GetSgpr(126)) => true,
        Some(Op::Conv(crate::ir::ConvOp::ZExt, x)) => matches!(op(*x), Some(Op::GetSgpr(126))),
        Some(Op::Pack { lo, hi }) => {
            matches!(op(*lo), Some(Op::GetSgpr(126))) && matches!(op(*hi), Some(Op::GetSgpr(127)))
        }
        _ => false,
    }
}
