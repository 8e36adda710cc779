//! If-conversion of `s_cbranch_execz` around short regions of EXEC-masked work.
//!
//! Compilers guard divergent code as `s_and_saveexec_b64 s, c; s_cbranch_execz L; body;
//! L: s_or_b64 exec, exec, s` (or end the body with `s_branch L`, the branch's own target).
//! The branch only saves time: when EXEC is zero, an instruction whose every effect is
//! masked by EXEC (VGPR writes, memory accesses) does nothing. Ending the block at the
//! branch costs a run-loop round trip per guarded region, so a region whose instructions all
//! have only such effects, or write SGPRs and SCC (a carry-out of `v_add_co_u32`, a `v_cmp`
//! into VCC, SALU), runs inside the block instead: each scalar write is lifted as
//! `select(EXEC was non-zero at the region's start, new, old)`, so with EXEC zero the region
//! leaves every register as the skipped one would. The branch becomes a fall-through,
//! and one [`Op::CountRegion`] counts the region's instructions only when EXEC is non-zero,
//! so the counters are those of the branching program. The instruction budget is charged for
//! the region either way (it only stops runaway kernels).

use super::{lift_inst, Flow, Lifter};
use crate::ir::{BinOp, Exit, Op, RegionCounts, Val};
use crate::isa::generated::{Sem, SoppSem};
use crate::isa::{Inst, Target};

/// Longest region converted, in instructions (a longer one keeps the branch).
pub(super) const MAX_REGION_INSTS: u32 = 24;

/// The counts (for [`Op::CountRegion`]) of the region after an `s_cbranch_execz` to `join`,
/// starting at `from`, if it can run under EXEC: fewer than `max` instructions up to `join`
/// (forward branch) or up to and including an `s_branch join`, each of which only writes
/// VGPRs and memory under the region's EXEC, and SGPRs and SCC (made conditional in the
/// region). `next` decodes the instruction at an address.
pub(super) fn scan(
    target: &Target,
    mode: u32,
    from: u64,
    join: u64,
    max: u32,
    next: &mut dyn FnMut(u64) -> Result<Inst, String>,
) -> Option<RegionCounts> {
    // Lift the region on its own to inspect its ops; the caller lifts it again in place.
    let mut l = Lifter::new(target, from, mode);
    let exec = l.exec();
    let mut counts = RegionCounts::default();
    let mut pc = from;
    for _ in 0..max.min(MAX_REGION_INSTS) {
        if pc == join {
            return Some(counts);
        }
        let inst = next(pc).ok()?;
        if matches!(inst.op.sem(), Sem::Mfma(_) | Sem::Wmma(_)) {
            return None;
        }
        let next_pc = pc.wrapping_add(inst.size.max(4) as u64);
        let first = l.b.len();
        l.begin(&inst, pc, next_pc);
        let (class, flow) = lift_inst(&mut l, &inst).ok()?;
        let ops = l.b.ops();
        for op in &ops[first..] {
            match masked_effect(ops, op, exec) {
                Some(true) => counts.vector += 1,
                Some(false) => {}
                None => return None,
            }
        }
        counts.classes[class as usize] += 1;
        match flow {
            Flow::Next => {}
            Flow::End(Exit::Jump(t))
                if t == join && inst.op.sem() == Sem::Sopp(SoppSem::S_BRANCH) =>
            {
                return Some(counts)
            }
            Flow::End(_) => return None,
        }
        pc = next_pc;
    }
    None
}

/// Whether `op` may run with EXEC (`exec`) zero in place of being skipped: `Some(true)` for
/// the count of a vector instruction under `exec`, `Some(false)` for ops without effects and
/// effects masked by EXEC and scalar register writes, `None` for anything else (MODE,
/// scalar memory, faults that do not depend on the lanes, effects ignoring EXEC, vector
/// effects under a mask other than the region's EXEC).
fn masked_effect(ops: &[Op], op: &Op, exec: Val) -> Option<bool> {
    let masked = |m: &Val| under_exec(ops, *m, exec).then_some(false);
    match op {
        Op::Const { .. }
        | Op::LaneConst(_)
        | Op::LaneId
        | Op::GetSgpr(_)
        | Op::GetVgpr(_)
        | Op::GetScc
        | Op::GetMode
        | Op::Un(..)
        | Op::Bin(..)
        | Op::Tern(..)
        | Op::Cmp(..)
        | Op::Select { .. }
        | Op::Broadcast(_)
        | Op::Conv(..)
        | Op::Pack { .. }
        | Op::ReadLane { .. }
        | Op::WriteLane { .. }
        | Op::Gather { .. }
        | Op::MaskToLanes(_)
        | Op::Lane { .. } => Some(false),
        Op::SetVgpr { mask, .. } => masked(mask),
        // Lifted in the region as `select(EXEC was non-zero, new, old)` (`Lifter::set_sreg`).
        Op::SetSgpr(..) | Op::SetScc(_) => Some(false),
        Op::Load { mask, .. } | Op::Store { mask, .. } | Op::Atomic { mask, .. } => masked(mask),
        Op::CountVector { mask } => (*mask == exec).then_some(true),
        // Dynamic VGPR indexing faults on a bad index whatever EXEC is.
        Op::GetVgprDyn { .. }
        | Op::SetVgprDyn { .. }
        | Op::SetMode(_)
        | Op::SLoad { .. }
        | Op::SStore { .. }
        | Op::Clock
        | Op::InstCount
        | Op::BarrierState
        | Op::CountRegion { .. }
        | Op::Matrix(_) => None,
    }
}

/// True when lane mask `m` is `exec` or an `And` with such a mask (zero when EXEC is).
fn under_exec(ops: &[Op], m: Val, exec: Val) -> bool {
    m == exec
        || matches!(ops.get(m.0 as usize), Some(Op::Bin(BinOp::And, a, b))
            if under_exec(ops, *a, exec) || under_exec(ops, *b, exec))
}
