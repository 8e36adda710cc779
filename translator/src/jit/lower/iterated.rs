//! The iterated form of a block that loops to itself ([`super::Form::Iterated`]): all its
//! iterations run per lane group, with the group's registers in host registers across them.
//!
//! It applies when the block's vector part cannot affect its scalar part or other lanes:
//! every op is a lane-local vector op or a uniform op that reads no vector value and cannot
//! fault ([`OpClass`]), there are no vector compares (nothing flows from the vector part to
//! SGPRs, VCC, EXEC or SCC), and every uniform value a vector op reads is the same in every
//! iteration (it depends on no SGPR or SCC the block writes). Then the scalar part alone
//! decides how many iterations run, and the vector part of one lane group depends only on
//! that group's registers, so the order of execution can be interchanged:
//!
//! 1. **Scalar loop**: the block's uniform ops once per iteration, charging the credit
//!    exactly as the other forms do per run, until the exit leaves the loop or the credit
//!    does not cover another iteration. `n` iterations were run. The credit, the trip count
//!    and the active lanes counted stay in host registers; the credit left, the counted lanes
//!    and `n` times the block's class and vector-instruction counts reach the wave state
//!    once, after the loop (nothing in it reads them: blocks that read the counters do not
//!    qualify).
//! 2. **Vector part**: one lane-group loop ([`Gen::run`]) whose body runs the block's vector
//!    ops `n` times for the group, registers carried in SSA values and stored once at the
//!    end. Only registers an iteration reads before writing them are carried
//!    ([`carried_registers`]); registers only read are loaded once before the loop, or,
//!    when the trip's rows would not fit the host's registers, where each iteration uses
//!    them. Each group's iterations form one dependency chain through those registers, so
//!    the fast copy runs two groups per trip, whose chains the host overlaps. It collects
//!    the NaN lanes of the groups' float results over all iterations and, when there are
//!    any, leaves for the slow copy before storing anything of the groups; the slow copy
//!    redoes them, one group per trip, from their first iteration with the NaN rule in
//!    line.
//! 3. The block's exit as usual, or, when the credit ran out, a return to the run loop at
//!    the block's start, with the state of `n` complete iterations.
//!
//! A block with a flush-mode loop variant runs the variant in this form, after its general
//! version's lane-group form found the variant's registers free of denormals
//! ([`Gen::emit`]); under host FTZ, MXCSR's underflow flag after the iterations (or, with a
//! helper call in the loop, the ±0/NaN product tests) joins the NaN lanes
//! ([`super::fenv`]).
//!
//! A NaN in a register whose next value the iteration computes from it by NaN-propagating
//! ops stays there to the last iteration ([`nan_persistent`]): results that become such a
//! register's value are tested for NaN once, in its final value, not in every iteration.

use super::{trusted, Gen, GenResult, I32X4, JV};
use crate::env::ExitCode;
use crate::ir::{Block, ConvOp, Exit, Op, Ty};
use crate::jit::analysis::operands;
use crate::jit::analysis::runs::{classify, run_extent, OpClass};
use crate::wave::{WaveCounters, WaveState};
use core::mem::offset_of;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use std::collections::HashMap;

/// The most VGPRs a block in the iterated form carries from one iteration to the next.
const MAX_CARRIED: usize = 12;

/// The most VGPR rows (of all the groups of a trip) the iterated form holds in host
/// registers across its iterations; beyond it, read-only rows are loaded per iteration.
const MAX_HELD_ROWS: usize = 12;

/// Why the block qualifies for the iterated form: the class of each op, or why not.
pub(super) fn qualify(blk: &Block) -> Result<Vec<OpClass>, String> {
    let start = blk.start_pc;
    let loops = match blk.exit {
        Exit::Jump(t) => t == start,
        Exit::Branch {
            taken, not_taken, ..
        } => taken == start || not_taken == start,
        _ => false,
    };
    if !loops {
        return Err("the block does not loop to itself".into());
    }
    let n = blk.ops.len();
    let classes: Vec<OpClass> = (0..n).map(|i| classify(blk, i)).collect();
    if classes.contains(&OpClass::Other) {
        return Err("an op is neither lane-local nor uniform".into());
    }
    // Values that may differ between iterations: reads of SGPRs or SCC the block writes,
    // and everything computed from them.
    let written_sgprs: Vec<u8> = blk
        .ops
        .iter()
        .filter_map(|o| match o {
            Op::SetSgpr(r, _) => Some(*r),
            _ => None,
        })
        .collect();
    let writes_scc = blk.ops.iter().any(|o| matches!(o, Op::SetScc(_)));
    // Live ops: those with an effect (no result) and what they or the exit use. A dead
    // vector op may read a changing value (e.g. the unused half of an SGPR pair).
    let mut live = vec![false; n];
    if let Exit::Branch { cond, .. } = blk.exit {
        if let Some(l) = live.get_mut(cond.0 as usize) {
            *l = true;
        }
    }
    for k in (0..n).rev() {
        if live[k] || blk.types[k].is_none() {
            live[k] = true;
            for v in operands(&blk.ops[k]) {
                if let Some(l) = live.get_mut(v.0 as usize) {
                    *l = true;
                }
            }
        }
    }
    let mut varies = vec![false; n];
    let mut any_vector_write = false;
    for (k, op) in blk.ops.iter().enumerate() {
        match op {
            Op::SetMode(_) | Op::GetMode => return Err("the block reads or writes MODE".into()),
            // The scalar loop adds its counts once, after its last iteration.
            Op::InstCount => return Err("the block reads the instruction counters".into()),
            Op::Cmp(..) if classes[k] == OpClass::Lane => {
                return Err("a vector compare feeds the scalar part".into())
            }
            Op::SetVgpr { .. } => any_vector_write = true,
            _ => {}
        }
        // The half of a pair taken apart again is that half alone (an SGPR pair of which a
        // packed op uses one register, `op_sel`).
        let pack = |v: &crate::ir::Val| match blk.ops.get(v.0 as usize) {
            Some(Op::Pack { lo, hi }) => Some((*lo, *hi)),
            _ => None,
        };
        varies[k] = match op {
            Op::GetSgpr(r) => written_sgprs.contains(r),
            Op::GetScc => writes_scc,
            Op::Conv(ConvOp::Lo, p) if pack(p).is_some() => {
                pack(p).is_some_and(|(lo, _)| varies[lo.0 as usize])
            }
            Op::Conv(ConvOp::Hi, p) if pack(p).is_some() => {
                pack(p).is_some_and(|(_, hi)| varies[hi.0 as usize])
            }
            _ => operands(op).iter().any(|v| varies[v.0 as usize]),
        };
        let is_uniform = |v: &crate::ir::Val| {
            blk.types
                .get(v.0 as usize)
                .copied()
                .flatten()
                .is_some_and(|t: Ty| !t.is_vector())
        };
        if classes[k] == OpClass::Lane
            && live[k]
            && operands(op)
                .iter()
                .any(|v| is_uniform(v) && varies[v.0 as usize])
        {
            return Err("a vector op reads a uniform value that changes per iteration".into());
        }
    }
    if !any_vector_write {
        return Err("no vector register written".into());
    }
    // The registers an iteration reads before writing them are carried in host registers
    // across the iterations; beyond what the host's 16 vector registers hold, the spills
    // cost more than the form saves (measured: a loop carrying 16 ran 1.15× the
    // lane-group form's host instructions).
    let carried = carried_registers(blk);
    if carried.len() > MAX_CARRIED {
        return Err(format!("{} vector registers carried", carried.len()));
    }
    let extent = run_extent(blk, 0, &classes);
    if extent.end != n || extent.post.iter().any(|p| *p) {
        return Err("the block is not one lane-group run".into());
    }
    Ok(classes)
}

/// The VGPRs an iteration of `blk` reads before it writes them: their values flow from one
/// iteration to the next. A register written before any read of it gets its value from
/// the iteration itself (its lanes outside EXEC keep the value from before the loop). So
/// does one whose earlier reads only fill the lanes a select does not take, when the
/// select's lane mask is the mask of every write to the register: the iterated form's ops
/// are lane-local, so those lanes' values reach no write (a `v_mov` of a constant under
/// EXEC, re-materialised in every iteration).
fn carried_registers(blk: &Block) -> Vec<u16> {
    let mut read_first: Vec<(u16, usize)> = Vec::new();
    let mut written: Vec<u16> = Vec::new();
    for (k, op) in blk.ops.iter().enumerate() {
        match op {
            Op::GetVgpr(r) if !written.contains(r) => read_first.push((*r, k)),
            Op::SetVgpr { reg, .. } if !written.contains(reg) => written.push(*reg),
            _ => {}
        }
    }
    let masks = |r: u16| {
        blk.ops.iter().filter_map(move |o| match o {
            Op::SetVgpr { reg, mask, .. } if *reg == r => Some(*mask),
            _ => None,
        })
    };
    let only_unselected = |r: u16, k: usize| {
        let Some(m) = masks(r).next() else {
            return false;
        };
        let read = crate::ir::Val(k as u32);
        masks(r).all(|x| x == m)
            && blk.ops.iter().all(|o| match o {
                Op::Select { cond, a, b } if *b == read => *cond == m && *a != read,
                o => !operands(o).contains(&read),
            })
    };
    written.retain(|r| {
        read_first
            .iter()
            .any(|&(x, k)| x == *r && !only_unselected(x, k))
    });
    written
}

/// The carried registers whose NaN lanes persist through the iterations: the last value an
/// iteration writes to the register is computed from the value it read from it (before any
/// write) by ops whose result is NaN wherever that operand is (the host's add, subtract,
/// multiply and FMA: x86 returns a NaN operand, quieted; negation and absolute value are
/// sign-bit operations, and a denormal flush keeps a NaN). A NaN such a register receives in one iteration is still in it
/// after the last, so testing its final value covers the results written to it in every
/// iteration (lanes a masked write leaves keep theirs, NaN or not, and are not written).
/// `rc` is the direction the block runs under as the host's RC: its directed roundings in
/// that direction are host ops too ([`super::fenv`]).
fn nan_persistent(blk: &Block, carried: &[u16], rc: Option<crate::ir::Round>) -> Vec<u16> {
    carried
        .iter()
        .copied()
        .filter(|&r| {
            let first_write = blk
                .ops
                .iter()
                .position(|o| matches!(o, Op::SetVgpr { reg, .. } if *reg == r));
            let last = blk.ops.iter().rev().find_map(|o| match o {
                Op::SetVgpr { reg, val, .. } if *reg == r => Some(*val),
                _ => None,
            });
            let (Some(first_write), Some(last)) = (first_write, last) else {
                return false;
            };
            let mut seen = std::collections::HashSet::new();
            propagates_from(blk, rc, last, r, first_write, &mut seen)
        })
        .collect()
}

/// Whether `v` is NaN wherever the value of VGPR `r` read before op `before` is
/// ([`nan_persistent`]).
fn propagates_from(
    blk: &Block,
    rc: Option<crate::ir::Round>,
    v: crate::ir::Val,
    r: u16,
    before: usize,
    seen: &mut std::collections::HashSet<u32>,
) -> bool {
    use crate::ir::{BinOp, LaneFn, RoundedOp, TernOp, UnOp};
    if !seen.insert(v.0) {
        return false;
    }
    let Some(op) = blk.ops.get(v.0 as usize) else {
        return false;
    };
    // A denormal flush (`flush::rewrite`'s bit operations) keeps a NaN as it is.
    if let Some((x, _)) = crate::ir::passes::flush::flushed_value(blk, v.0 as usize) {
        return propagates_from(blk, rc, x, r, before, seen);
    }
    let args: Vec<crate::ir::Val> = match op {
        Op::GetVgpr(x) => return *x == r && (v.0 as usize) < before,
        Op::Bin(BinOp::FAdd | BinOp::FSub | BinOp::FMul, a, b) => vec![*a, *b],
        Op::Tern(TernOp::Fma, a, b, c) => vec![*a, *b, *c],
        Op::Un(UnOp::FNeg | UnOp::FAbs, a) => vec![*a],
        Op::Lane {
            f:
                LaneFn::Rounded(
                    RoundedOp::AddF32 | RoundedOp::SubF32 | RoundedOp::MulF32 | RoundedOp::FmaF32,
                    rm,
                    _,
                ),
            args,
        } if rc == Some(*rm) => args.clone(),
        _ => return false,
    };
    args.into_iter()
        .any(|a| propagates_from(blk, rc, a, r, before, seen))
}

impl Gen<'_, '_> {
    /// Emits the block in the iterated form (module doc), or fails when it does not qualify
    /// (before emitting anything).
    pub(super) fn emit_iterated(&mut self) -> GenResult<()> {
        let blk = self.block;
        let classes = qualify(blk)?;
        let cost = u64::from(blk.inst_count).max(1);
        let credit_off = WaveState::CREDIT_OFFSET as i32;
        // The first iteration's credit (a return to the run loop when short). From here on
        // the credit, the trip count and the active lanes counted stay in registers; they
        // reach the wave state once, when the scalar loop ends (nothing before that reads
        // them: `qualify` rules out reads of the counters, and no op of the loop leaves it).
        let first = self
            .b
            .ins()
            .load(types::I64, trusted(), self.state, credit_off);
        let short = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, first, cost as i64);
        let stop0 = self.b.create_block();
        self.b.set_cold_block(stop0);
        let go = self.b.create_block();
        self.b.ins().brif(short, stop0, &[], go, &[]);
        self.b.switch_to_block(stop0);
        self.b.seal_block(stop0);
        self.ret_with_pc(blk.start_pc, ExitCode::Continue as u32);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let left = self.b.ins().iadd_imm_s(first, -(cost as i64));
        let body = self.b.create_block();
        for _ in 0..3 {
            self.b.append_block_param(body, types::I64);
        }
        let zero = self.iconst(types::I64, 0);
        self.b.ins().jump(
            body,
            &[
                BlockArg::Value(zero),
                BlockArg::Value(left),
                BlockArg::Value(zero),
            ],
        );
        // 1. The scalar loop: one iteration's uniform ops (charged already). Parameters: the
        // iterations done, the credit left, the active lanes counted so far.
        self.b.switch_to_block(body);
        let bp = self.b.block_params(body).to_vec();
        let (done, credit, lanes) = (bp[0], bp[1], bp[2]);
        for (k, class) in classes.iter().enumerate() {
            if *class == OpClass::Uniform {
                self.straight(k)?;
            } else {
                self.vals.push(JV::None);
                self.splat_src.push(None);
            }
        }
        // The vector instructions counted per iteration (a constant) and their lanes.
        let (lanes, insts) = match self.pending_counts.take() {
            Some(p) => {
                let l = self.pending_lanes(p);
                (self.b.ins().iadd(lanes, l), p.insts)
            }
            None => (lanes, 0),
        };
        let iters = self.b.ins().iadd_imm_s(done, 1);
        let vector = self.b.create_block();
        self.b.append_block_param(vector, types::I64);
        self.b.append_block_param(vector, types::I8);
        self.b.append_block_param(vector, types::I64);
        self.b.append_block_param(vector, types::I64);
        let stay = self.stays(blk)?;
        let again = self.b.create_block();
        let leave = self.iconst(types::I8, 0);
        let out = |why: Value| {
            [
                BlockArg::Value(iters),
                BlockArg::Value(why),
                BlockArg::Value(credit),
                BlockArg::Value(lanes),
            ]
        };
        self.b.ins().brif(stay, again, &[], vector, &out(leave));
        // Another iteration when the credit covers it, else the vector part and a return.
        self.b.switch_to_block(again);
        self.b.seal_block(again);
        let short = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, credit, cost as i64);
        let charge = self.b.create_block();
        let out_of_credit = self.iconst(types::I8, 1);
        self.b
            .ins()
            .brif(short, vector, &out(out_of_credit), charge, &[]);
        self.b.switch_to_block(charge);
        self.b.seal_block(charge);
        let left = self.b.ins().iadd_imm_s(credit, -(cost as i64));
        self.b.ins().jump(
            body,
            &[
                BlockArg::Value(iters),
                BlockArg::Value(left),
                BlockArg::Value(lanes),
            ],
        );
        self.b.seal_block(body);
        // The scalar loop's credit and counts, `n` iterations of them.
        self.b.switch_to_block(vector);
        self.b.seal_block(vector);
        let params = self.b.block_params(vector).to_vec();
        let (n, why, credit, lanes) = (params[0], params[1], params[2], params[3]);
        self.b
            .ins()
            .store(trusted(), credit, self.state, credit_off);
        self.count_classes_times(n);
        if insts > 0 {
            self.add_counter(WaveState::ACTIVE_LANES_OFFSET, lanes);
            let x = self.b.ins().imul_imm_u(n, insts as i64);
            self.add_counter(WaveState::VECTOR_INSTS_OFFSET, x);
        }
        // 2. The vector part, `n` iterations per lane group.
        let extent = run_extent(blk, 0, &classes);
        self.iters = Some(n);
        let r = self.run(0, &classes, extent);
        self.iters = None;
        r?;
        // 3. The exit, or back to the run loop at the block's start.
        let stop = self.b.create_block();
        self.b.set_cold_block(stop);
        let exit = self.b.create_block();
        self.b.ins().brif(why, stop, &[], exit, &[]);
        self.b.switch_to_block(stop);
        self.b.seal_block(stop);
        self.ret_with_pc(blk.start_pc, ExitCode::Continue as u32);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        // The exit's edge back to the block is never taken here (the loop was left); it
        // goes to a return to the run loop at the block's start, which is always correct.
        let back = self.b.create_block();
        self.b.set_cold_block(back);
        self.exit(back)?;
        self.b.switch_to_block(back);
        self.b.seal_block(back);
        self.ret_with_pc(blk.start_pc, ExitCode::Continue as u32);
        Ok(())
    }

    /// Adds `n` runs' instructions by class (`n`: `I64`) to the wave's counters.
    fn count_classes_times(&mut self, n: Value) {
        let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
        for (i, k) in self.block.class_counts.iter().enumerate() {
            if *k > 0 {
                let x = self.b.ins().imul_imm_u(n, *k as i64);
                self.add_counter(cls + 8 * i, x);
            }
        }
    }

    /// Whether the block's exit goes back to its start (`I8`, computed in the current
    /// iteration).
    fn stays(&mut self, blk: &Block) -> GenResult<Value> {
        let start = blk.start_pc;
        Ok(match &blk.exit {
            Exit::Branch {
                cond,
                taken,
                not_taken,
            } => {
                let c = self.s_as(*cond, types::I32)?;
                match (*taken == start, *not_taken == start) {
                    (true, true) => self.iconst(types::I8, 1),
                    (true, false) => self.b.ins().icmp_imm_u(IntCC::NotEqual, c, 0),
                    _ => self.b.ins().icmp_imm_u(IntCC::Equal, c, 0),
                }
            }
            _ => self.iconst(types::I8, 1),
        })
    }
}

/// The iteration loop inside the lane groups of the iterated form: its header (parameters:
/// the iteration index, then each group's chunks of the registers the block writes, then
/// the NaN lanes), the iteration count, those registers, and the groups one trip runs.
///
/// The fast copy runs two lane groups per trip (when the wave has an even number of
/// groups): each group's iterations form one dependency chain through its registers, so two
/// independent chains let the host overlap them. The slow copy runs one group per trip.
pub(super) struct IterLoop {
    head: cranelift_codegen::ir::Block,
    k: Value,
    n: Value,
    carried: Vec<u16>,
    /// The carried registers whose NaN lanes persist ([`nan_persistent`]).
    persistent: Vec<u16>,
    /// In the fast copy: the NaN lanes of the iterations so far (`I32X4`, loop-carried).
    nan: Option<Value>,
    /// Each group's index, rows pointer and registers (the current group's registers are
    /// in `vreg_cache` while its ops are emitted).
    groups: Vec<TripGroup>,
}

/// One lane group of a trip ([`IterLoop`]).
struct TripGroup {
    g: Value,
    rows: Value,
    regs: HashMap<u16, Vec<Value>>,
}

impl IterLoop {
    /// Lane groups per trip.
    pub(super) fn groups(&self) -> usize {
        self.groups.len()
    }
}

impl Gen<'_, '_> {
    /// In a lane group of the iterated form, before its ops: loads the trip's groups' part of
    /// every register the lane ops `i..j` read or write (once, not per iteration) and starts
    /// the loop of `n` iterations, with the written registers as loop-carried values.
    pub(super) fn iteration_start(
        &mut self,
        i: usize,
        j: usize,
        classes: &[OpClass],
        n: Value,
    ) -> GenResult<IterLoop> {
        let blk = self.block;
        // Registers read before written are carried through the iterations; those written
        // first are loaded once (their lanes outside EXEC), not carried.
        let carried_in_block = carried_registers(blk);
        let mut carried: Vec<u16> = Vec::new();
        let mut fresh: Vec<u16> = Vec::new();
        for (op, class) in blk.ops[i..j].iter().zip(&classes[i..j]) {
            if *class != OpClass::Lane {
                continue;
            }
            if let Op::SetVgpr { reg, .. } = op {
                if carried_in_block.contains(reg) {
                    if !carried.contains(reg) {
                        carried.push(*reg);
                    }
                } else if !fresh.contains(reg) {
                    fresh.push(*reg);
                }
            }
        }
        // Registers only read are loaded once too (measured: loading them in every
        // iteration, which takes fewer host registers, ran slower).
        let mut read_only: Vec<u16> = Vec::new();
        for op in &blk.ops[i..j] {
            if let Op::GetVgpr(r) = op {
                if !carried.contains(r) && !fresh.contains(r) && !read_only.contains(r) {
                    read_only.push(*r);
                }
            }
        }
        let fast = self.fast_copy().is_some();
        // (Not with 64-bit lane values: their two chunks per group already fill the host's
        // registers; measured slower than one group per trip.)
        let wide = (i..j).any(|k| {
            classes[k] == OpClass::Lane
                && blk.types[k].is_some_and(|t| t.is_vector() && t.bits() > 32)
        });
        let per_trip = if fast && !wide && (self.lanes / 4).is_multiple_of(2) {
            2
        } else {
            1
        };
        // With every row of the trip's groups held (carried and read-only), the chains'
        // values exceed the host's 16 vector registers once the constants, the NaN lanes
        // and temporaries join them: the register allocator then spills read-only rows (a
        // store before the loop and a reload per use) and stores unchanged spill slots on
        // the back edge. Loading read-only rows where they are used in each iteration costs
        // only the reload (measured: gfx942 `alu_fma`, 2 × 8 rows).
        let held = if per_trip * (carried.len() + read_only.len()) <= MAX_HELD_ROWS {
            read_only.len()
        } else {
            0
        };
        let (g0, rows0) = self
            .group
            .as_ref()
            .map(|gr| (gr.g, gr.rows))
            .ok_or("iterations outside a lane group")?;
        let nch = self.nch(32);
        let mut groups = Vec::new();
        for h in 0..per_trip {
            let (g, rows) = if h == 0 {
                (g0, rows0)
            } else {
                (
                    self.b.ins().iadd_imm_s(g0, h as i64),
                    self.b.ins().iadd_imm_s(rows0, 16 * h as i64),
                )
            };
            let mut cache = HashMap::new();
            for &r in carried.iter().chain(&fresh).chain(&read_only[..held]) {
                let base = WaveState::vgpr_offset(r as usize, 0) as i32;
                let chunks: Vec<Value> = (0..nch as i32)
                    .map(|c| self.b.ins().load(I32X4, trusted(), rows, base + 16 * c))
                    .collect();
                cache.insert(r, chunks);
            }
            groups.push(TripGroup {
                g,
                rows,
                regs: cache,
            });
        }
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I64);
        let zero = self.iconst(types::I64, 0);
        let mut args = vec![BlockArg::Value(zero)];
        for tg in &groups {
            for r in &carried {
                for c in tg.regs.get(r).ok_or("carried register")? {
                    self.b.append_block_param(head, I32X4);
                    args.push(BlockArg::Value(*c));
                }
            }
        }
        // The fast copy tests for NaN results once, after the last iteration: a NaN lane
        // only sends the groups to the slow copy, which redoes them from their first
        // iteration, so what the fast copy computes after a NaN is never stored.
        if fast {
            let none = self.splat_const(32, 0);
            self.b.append_block_param(head, I32X4);
            args.push(BlockArg::Value(none));
        }
        // Under FTZ, results the host flushed are found by MXCSR.UE after the iterations.
        self.ftz_flag_arm();
        if let Some(fc) = self.fast_copy() {
            fc.nan_deferred = Some(Vec::new());
        }
        let persistent = nan_persistent(blk, &carried, self.rc);
        self.b.ins().jump(head, &args);
        self.b.switch_to_block(head);
        let params = self.b.block_params(head).to_vec();
        let mut p = params[1..].iter();
        for tg in &mut groups {
            for r in &carried {
                let chunks: Vec<Value> = (0..nch).filter_map(|_| p.next().copied()).collect();
                tg.regs.insert(*r, chunks);
            }
        }
        let nan = if fast { p.next().copied() } else { None };
        // Read-only rows not held are loaded where used, as pure loads (which Cranelift
        // places right before their use, not with the other loads at the loop's start)
        // whose address adds `k >> 63`, a zero Cranelift cannot prove loop-invariant, so
        // they are not hoisted out of the loop either.
        let z = self.b.ins().ushr_imm_u(params[0], 63);
        self.rows_at_use = (read_only[held..].to_vec(), Some(z));
        Ok(IterLoop {
            head,
            k: params[0],
            n,
            carried,
            persistent,
            nan,
            groups,
        })
    }

    /// Makes group `h` of the trip the one whose ops are emitted (its registers in
    /// `vreg_cache`, its index and rows in the lane group).
    pub(super) fn enter_trip_group(&mut self, it: &mut IterLoop, h: usize) {
        let tg = &mut it.groups[h];
        self.vreg_cache = std::mem::take(&mut tg.regs);
        self.mask_cache.clear();
        if let Some(gr) = self.group.as_mut() {
            gr.g = tg.g;
            gr.rows = tg.rows;
        }
    }

    /// After group `h`'s ops: keeps its registers (the next group's go to `vreg_cache`).
    pub(super) fn leave_trip_group(&mut self, it: &mut IterLoop, h: usize) {
        it.groups[h].regs = std::mem::take(&mut self.vreg_cache);
    }

    /// After the lane ops of one iteration of every group of the trip: the next iteration,
    /// or the trip's end with the final register values (and, in the fast copy, the NaN
    /// lanes of all iterations, which [`Gen::bail_on_nan`] tests before anything of the
    /// groups is stored). Returns the loop with the final values.
    pub(super) fn iteration_end(&mut self, mut it: IterLoop) -> GenResult<IterLoop> {
        // This iteration's tests (flushed products, pending NaN tests) join the NaN lanes.
        self.ftz_tests();
        // A result that is the final value of a register whose NaNs persist is tested once,
        // after the last iteration, in that register.
        let deferred = self
            .fast_copy()
            .and_then(|fc| fc.nan_deferred.take())
            .unwrap_or_default();
        let mut late: Vec<(usize, u16)> = Vec::new();
        for (bits, c) in deferred {
            let held = it.groups.iter().enumerate().find_map(|(h, tg)| {
                it.persistent
                    .iter()
                    .find(|r| tg.regs.get(r).is_some_and(|x| x.contains(&c)))
                    .map(|r| (h, *r))
            });
            match held {
                Some(hr) if bits == 32 => {
                    if !late.contains(&hr) {
                        late.push(hr);
                    }
                }
                _ => self.collect_nans(bits, &[c]),
            }
        }
        self.pending_nans();
        self.rows_at_use = (Vec::new(), None);
        let next = self.b.ins().iadd_imm_s(it.k, 1);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, it.n);
        let done = self.b.create_block();
        let mut back = vec![BlockArg::Value(next)];
        let mut out = Vec::new();
        for tg in &it.groups {
            for r in &it.carried {
                for c in tg.regs.get(r).ok_or("carried register")? {
                    self.b.append_block_param(done, I32X4);
                    back.push(BlockArg::Value(*c));
                    out.push(BlockArg::Value(*c));
                }
            }
        }
        if let Some(acc) = it.nan {
            let now = self.fast_copy().and_then(|f| f.nan.take());
            let all = match now {
                Some(x) => self.b.ins().bor(acc, x),
                None => acc,
            };
            self.b.append_block_param(done, I32X4);
            back.push(BlockArg::Value(all));
            out.push(BlockArg::Value(all));
        }
        self.b.ins().brif(more, it.head, &back, done, &out);
        self.b.seal_block(it.head);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        let params = self.b.block_params(done).to_vec();
        let nch = self.nch(32);
        let mut p = params.iter();
        let carried = it.carried.clone();
        for tg in &mut it.groups {
            for r in &carried {
                let chunks: Vec<Value> = (0..nch).filter_map(|_| p.next().copied()).collect();
                tg.regs.insert(*r, chunks);
            }
        }
        if it.nan.is_some() {
            let all = p.next().copied();
            if let Some(f) = self.fast_copy() {
                f.nan = all;
            }
        }
        for (h, r) in late {
            let final_chunks = it.groups[h].regs.get(&r).cloned().unwrap_or_default();
            self.collect_nans(32, &final_chunks);
        }
        self.pending_nans();
        self.ftz_flag_test();
        Ok(it)
    }
}
