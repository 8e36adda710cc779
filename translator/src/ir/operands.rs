//! The one operand visitor of the IR: every value an [`Op`] or an [`Exit`] reads, in a fixed
//! order, by reference ([`Op::for_each_operand`]) or for rewriting
//! ([`Op::for_each_operand_mut`]).

use super::{Exit, Op, Val};

/// Calls `$f` on each value operand of `$op` (an `&Op` or an `&mut Op`: the bindings are
/// `&Val` or `&mut Val` by the match's binding mode), in field order, an atomic's `cmp`
/// before its mask.
macro_rules! visit_operands {
    ($op:expr, $f:ident) => {
        match $op {
            Op::Const { .. }
            | Op::LaneConst(_)
            | Op::LaneId
            | Op::GetSgpr(_)
            | Op::GetVgpr(_)
            | Op::GetScc
            | Op::GetMode
            | Op::Clock
            | Op::InstCount
            | Op::BarrierState
            | Op::Matrix(_) => {}
            Op::SetSgpr(_, v) | Op::SetScc(v) | Op::SetMode(v) => $f(v),
            Op::SetVgpr { val, mask, .. } => {
                $f(val);
                $f(mask);
            }
            Op::GetVgprDyn { index, .. } => $f(index),
            Op::SetVgprDyn {
                index, val, mask, ..
            } => {
                $f(index);
                $f(val);
                $f(mask);
            }
            Op::Un(_, a) | Op::Broadcast(a) | Op::Conv(_, a) | Op::MaskToLanes(a) => $f(a),
            Op::Bin(_, a, b) | Op::Cmp(_, a, b) => {
                $f(a);
                $f(b);
            }
            Op::Tern(_, a, b, c) => {
                $f(a);
                $f(b);
                $f(c);
            }
            Op::Select { cond, a, b } => {
                $f(cond);
                $f(a);
                $f(b);
            }
            Op::Pack { lo, hi } => {
                $f(lo);
                $f(hi);
            }
            Op::ReadLane { v, lane } => {
                $f(v);
                $f(lane);
            }
            Op::WriteLane { v, lane, x } => {
                $f(v);
                $f(lane);
                $f(x);
            }
            Op::Gather { v, idx } => {
                $f(v);
                $f(idx);
            }
            Op::Lane { args, .. } => {
                for a in args {
                    $f(a);
                }
            }
            Op::Load { addr, mask, .. } => {
                $f(addr);
                $f(mask);
            }
            Op::Store {
                addr, data, mask, ..
            } => {
                $f(addr);
                $f(data);
                $f(mask);
            }
            Op::Atomic {
                addr,
                data,
                cmp,
                mask,
                ..
            } => {
                $f(addr);
                $f(data);
                if let Some(c) = cmp {
                    $f(c);
                }
                $f(mask);
            }
            Op::SLoad { addr, .. } => $f(addr),
            Op::SStore { addr, data, .. } => {
                $f(addr);
                $f(data);
            }
            Op::CountVector { mask } => $f(mask),
            Op::CountRegion { exec, .. } => $f(exec),
        }
    };
}

impl Op {
    /// Calls `f` on every value operand of the op.
    pub fn for_each_operand(&self, mut f: impl FnMut(Val)) {
        let mut g = |v: &Val| f(*v);
        visit_operands!(self, g)
    }

    /// Calls `f` on every value operand of the op, which it may rewrite.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Val)) {
        visit_operands!(self, f)
    }

    /// The value operands of the op, in [`Op::for_each_operand`]'s order.
    pub fn operands(&self) -> Vec<Val> {
        let mut v = Vec::with_capacity(3);
        self.for_each_operand(|x| v.push(x));
        v
    }
}

impl Exit {
    /// Calls `f` on the value the exit reads (a branch condition, an indirect target).
    pub fn for_each_operand(&self, mut f: impl FnMut(Val)) {
        match self {
            Exit::Branch { cond, .. } => f(*cond),
            Exit::JumpIndirect(t) => f(*t),
            _ => {}
        }
    }

    /// Calls `f` on the value the exit reads, which it may rewrite.
    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut Val)) {
        match self {
            Exit::Branch { cond, .. } => f(cond),
            Exit::JumpIndirect(t) => f(t),
            _ => {}
        }
    }
}
