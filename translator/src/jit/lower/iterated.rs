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
//! 1. **Scalar loop**: the block's uniform ops once per iteration, charging the credit and
//!    counting exactly as the other forms do per run, until the exit leaves the loop or
//!    the credit does not cover another iteration. `n` iterations were run.
//! 2. **Vector part**: one lane-group loop ([`Gen::run`]) whose body runs the block's vector
//!    ops `n` times for the group, registers carried in SSA values and stored once at the
//!    end. Its fast copy collects the NaN lanes of the group's float results over all
//!    iterations and, when there are any, leaves for the slow copy before storing anything
//!    of the group; the slow copy redoes the group from its first iteration with the NaN
//!    rule in line.
//! 3. The block's exit as usual, or, when the credit ran out, a return to the run loop at
//!    the block's start, with the state of `n` complete iterations.

use super::{trusted, Gen, GenResult, I32X4, JV};
use crate::env::ExitCode;
use crate::ir::{Block, ConvOp, Exit, Op, Ty};
use crate::jit::analysis::operands;
use crate::jit::analysis::runs::{classify, run_extent, OpClass};
use crate::wave::WaveState;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};

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
    let extent = run_extent(blk, 0, &classes);
    if extent.end != n || extent.post.iter().any(|p| *p) {
        return Err("the block is not one lane-group run".into());
    }
    Ok(classes)
}

impl Gen<'_, '_> {
    /// Emits the block in the iterated form (module doc), or fails when it does not qualify
    /// (before emitting anything).
    pub(super) fn emit_iterated(&mut self) -> GenResult<()> {
        let blk = self.block;
        let classes = qualify(blk)?;
        let cost = u64::from(blk.inst_count).max(1);
        let credit_off = WaveState::CREDIT_OFFSET as i32;
        // The first iteration's credit (a return to the run loop when short).
        self.charge_credit();
        let body = self.b.create_block();
        self.b.append_block_param(body, types::I64);
        let zero = self.iconst(types::I64, 0);
        self.b.ins().jump(body, &[BlockArg::Value(zero)]);
        // 1. The scalar loop: one iteration's uniform ops (charged already).
        self.b.switch_to_block(body);
        let done = self.b.block_params(body)[0];
        self.count_classes();
        for (k, class) in classes.iter().enumerate() {
            if *class == OpClass::Uniform {
                self.straight(k)?;
            } else {
                self.vals.push(JV::None);
                self.splat_src.push(None);
            }
        }
        self.flush_counts();
        let iters = self.b.ins().iadd_imm_s(done, 1);
        let vector = self.b.create_block();
        self.b.append_block_param(vector, types::I64);
        self.b.append_block_param(vector, types::I8);
        let stay = self.stays(blk)?;
        let again = self.b.create_block();
        let leave = self.iconst(types::I8, 0);
        self.b.ins().brif(
            stay,
            again,
            &[],
            vector,
            &[BlockArg::Value(iters), BlockArg::Value(leave)],
        );
        // Another iteration when the credit covers it, else the vector part and a return.
        self.b.switch_to_block(again);
        self.b.seal_block(again);
        let credit = self
            .b
            .ins()
            .load(types::I64, trusted(), self.state, credit_off);
        let short = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, credit, cost as i64);
        let charge = self.b.create_block();
        let out_of_credit = self.iconst(types::I8, 1);
        self.b.ins().brif(
            short,
            vector,
            &[BlockArg::Value(iters), BlockArg::Value(out_of_credit)],
            charge,
            &[],
        );
        self.b.switch_to_block(charge);
        self.b.seal_block(charge);
        let left = self.b.ins().iadd_imm_s(credit, -(cost as i64));
        self.b.ins().store(trusted(), left, self.state, credit_off);
        self.b.ins().jump(body, &[BlockArg::Value(iters)]);
        self.b.seal_block(body);
        // 2. The vector part, `n` iterations per lane group.
        self.b.switch_to_block(vector);
        self.b.seal_block(vector);
        let params = self.b.block_params(vector).to_vec();
        let (n, why) = (params[0], params[1]);
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

/// The iteration loop inside one lane group of the iterated form: its header (parameters:
/// the iteration index, then the chunks of the registers the block writes), the iteration
/// count, and those registers.
pub(super) struct IterLoop {
    head: cranelift_codegen::ir::Block,
    k: Value,
    n: Value,
    carried: Vec<u16>,
    /// In the fast copy: the NaN lanes of the iterations so far (`I32X4`, loop-carried).
    nan: Option<Value>,
}

impl Gen<'_, '_> {
    /// In a lane group of the iterated form, before its ops: loads the group's part of every
    /// register the lane ops `i..j` read or write (once, not per iteration) and starts the
    /// loop of `n` iterations, with the written registers as loop-carried values.
    pub(super) fn iteration_start(
        &mut self,
        i: usize,
        j: usize,
        classes: &[OpClass],
        n: Value,
    ) -> GenResult<IterLoop> {
        let blk = self.block;
        let mut regs: Vec<u16> = Vec::new();
        let mut carried: Vec<u16> = Vec::new();
        for (op, class) in blk.ops[i..j].iter().zip(&classes[i..j]) {
            if *class != OpClass::Lane {
                continue;
            }
            let (reg, written) = match op {
                Op::GetVgpr(r) => (*r, false),
                Op::SetVgpr { reg, .. } => (*reg, true),
                _ => continue,
            };
            if !regs.contains(&reg) {
                regs.push(reg);
            }
            if written && !carried.contains(&reg) {
                carried.push(reg);
            }
        }
        let vb = self.vbase();
        let nch = self.nch(32);
        for &r in &regs {
            if self.vreg_cache.contains_key(&r) {
                continue;
            }
            let base = WaveState::vgpr_offset(r as usize, 0) as i32;
            let chunks: Vec<Value> = (0..nch as i32)
                .map(|c| self.b.ins().load(I32X4, trusted(), vb, base + 16 * c))
                .collect();
            self.vreg_cache.insert(r, chunks);
        }
        let head = self.b.create_block();
        self.b.append_block_param(head, types::I64);
        let zero = self.iconst(types::I64, 0);
        let mut args = vec![BlockArg::Value(zero)];
        for r in &carried {
            for c in self.vreg_cache.get(r).ok_or("carried register")?.clone() {
                self.b.append_block_param(head, I32X4);
                args.push(BlockArg::Value(c));
            }
        }
        // The fast copy tests for NaN results once, after the last iteration: a NaN lane
        // only sends the group to the slow copy, which redoes it from its first iteration,
        // so what the fast copy computes after a NaN is never stored.
        let fast = self.fast_copy().is_some();
        if fast {
            let none = self.splat_const(32, 0);
            self.b.append_block_param(head, I32X4);
            args.push(BlockArg::Value(none));
        }
        self.b.ins().jump(head, &args);
        self.b.switch_to_block(head);
        let params = self.b.block_params(head).to_vec();
        let mut p = params[1..].iter();
        for r in &carried {
            let chunks: Vec<Value> = (0..nch).filter_map(|_| p.next().copied()).collect();
            self.vreg_cache.insert(*r, chunks);
        }
        let nan = if fast { p.next().copied() } else { None };
        Ok(IterLoop {
            head,
            k: params[0],
            n,
            carried,
            nan,
        })
    }

    /// After the lane ops of one iteration: the next iteration, or the group's end with the
    /// final register values (and, in the fast copy, the NaN lanes of all iterations, which
    /// [`Gen::bail_on_nan`] tests before anything of the group is stored).
    pub(super) fn iteration_end(&mut self, it: IterLoop) -> GenResult<()> {
        // This iteration's tests (flushed products, pending NaN tests) join the NaN lanes.
        self.ftz_tests();
        self.pending_nans();
        let next = self.b.ins().iadd_imm_s(it.k, 1);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, next, it.n);
        let done = self.b.create_block();
        let mut back = vec![BlockArg::Value(next)];
        let mut out = Vec::new();
        for r in &it.carried {
            for c in self.vreg_cache.get(r).ok_or("carried register")?.clone() {
                self.b.append_block_param(done, I32X4);
                back.push(BlockArg::Value(c));
                out.push(BlockArg::Value(c));
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
        for r in &it.carried {
            let chunks: Vec<Value> = (0..nch).filter_map(|_| p.next().copied()).collect();
            self.vreg_cache.insert(*r, chunks);
        }
        if it.nan.is_some() {
            let all = p.next().copied();
            if let Some(f) = self.fast_copy() {
                f.nan = all;
            }
        }
        Ok(())
    }
}
