//! Register forwarding inside a block, and (when the caller says nothing reads a wave's
//! state after it ends) removal of the register writes of a block ending in `s_endpgm`.
//!
//! The lifter reads every operand register with a `GetVgpr`/`GetSgpr` and writes every
//! result with a `SetVgpr`/`SetSgpr`, so a value passed from one instruction to the next
//! goes through the wave state. Here a read of a register the block already wrote becomes
//! the written value: after `SetVgpr { reg, val, mask }`, `GetVgpr(reg)` is `val` when the
//! mask is the constant all-ones, else `Select { cond: mask, a: val, b: old }` with `old`
//! the register's value before the write (the lanes outside the mask keep it, exactly as
//! the masked write leaves them). Scalar slots forward unmasked. Reads of a register not
//! yet written are shared.
//!
//! With [`Forwarding::drop_final_writes`] and an [`Exit::EndPgm`] block, every register
//! write is then removed: no op of the block reads the register after it (all reads were
//! forwarded) and, by the caller's word, nothing reads the wave's registers after its end
//! (kernel dispatch resets a wave's state before the next one). MODE writes stay. With
//! it, in a block of any exit, so is a write that a later write of the block replaces
//! (every lane of it, for a VGPR) before any op reads the register.
//!
//! Why such a write is dead, fault paths included: no op of the block reads it (every read
//! of the register up to the replacing write was forwarded or is checked above), and the
//! block's exit sees the later value. The one other observer would be a fault (or any exit
//! of the block function) between the two writes; but a fault ends the wave, and by the
//! caller's word nothing reads the registers of an ended wave: kernel dispatch reports a
//! fault's wave, lane, pc and cause (from the fault and the pc, which no dropped op
//! writes), never its registers, and resumes no faulted wave. Exits that do resume a wave
//! (barrier, yield, branches) are block ends, where every kept register is exact.
//!
//! Blocks with ops that read or write registers by themselves (dynamic VGPR indexing,
//! matrix ops) are left as they are.

use crate::ir::{Block, Exit, Op, Ty, Val};
use crate::wave::sreg;
use std::collections::HashMap;

/// What [`forward`] may assume.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forwarding {
    /// Nothing reads the wave's registers (VGPRs, SGPRs, SCC) after it ends: a block ending
    /// in `s_endpgm` need not write them.
    pub drop_final_writes: bool,
}

/// Whether `op` only reads the wave state or computes from its operands (so it may go
/// when its value is unused).
fn removable(op: &Op) -> bool {
    super::dce::pure(op) || matches!(op, Op::GetVgpr(_) | Op::GetSgpr(_) | Op::GetScc)
}

/// The block with register reads forwarded (and final writes dropped, [`Forwarding`]),
/// unused pure ops removed; `None` when nothing changes or the block is not handled.
pub fn forward(block: &Block, how: Forwarding) -> Option<Block> {
    let handled = block.ops.iter().all(|op| {
        !matches!(
            op,
            Op::GetVgprDyn { .. } | Op::SetVgprDyn { .. } | Op::Matrix(_)
        )
    });
    if !handled {
        return None;
    }
    let n = block.ops.len();
    let ty = |v: Val| block.types.get(v.0 as usize).copied().flatten();
    let all_ones = |v: Val| {
        matches!(
            block.ops.get(v.0 as usize),
            Some(Op::Const { bits: u64::MAX, .. })
        )
    };
    // Per SetVgpr: whether a later GetVgpr reads its register (so the value it leaves is
    // needed, and for a masked write, the value before it too).
    let mut read_after = vec![false; n];
    {
        let mut pending: HashMap<u16, Vec<usize>> = HashMap::new();
        for (i, op) in block.ops.iter().enumerate() {
            match op {
                Op::SetVgpr { reg, .. } => pending.entry(*reg).or_default().push(i),
                Op::GetVgpr(reg) => {
                    for k in pending.remove(reg).unwrap_or_default() {
                        read_after[k] = true;
                    }
                }
                _ => {}
            }
        }
    }
    let mut ops: Vec<Op> = Vec::with_capacity(n + 8);
    let mut types: Vec<Option<Ty>> = Vec::with_capacity(n + 8);
    let mut map: Vec<Val> = Vec::with_capacity(n);
    // Known current values (new numbering).
    let mut vcur: HashMap<u16, Val> = HashMap::new();
    let mut scur: HashMap<u8, Val> = HashMap::new();
    let mut changed = false;
    let push = |ops: &mut Vec<Op>, types: &mut Vec<Option<Ty>>, op: Op, t: Option<Ty>| {
        ops.push(op);
        types.push(t);
        Val((ops.len() - 1) as u32)
    };
    for (i, op) in block.ops.iter().enumerate() {
        let mut o = op.clone();
        o.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
        let t = *block.types.get(i)?;
        let new = match (&o, op) {
            (Op::GetVgpr(reg), _) => match vcur.get(reg) {
                Some(&v) => {
                    changed = true;
                    v
                }
                None => {
                    let v = push(&mut ops, &mut types, o.clone(), t);
                    vcur.insert(*reg, v);
                    v
                }
            },
            (Op::GetSgpr(code), _) if *code != sreg::NULL => match scur.get(code) {
                Some(&v) => {
                    changed = true;
                    v
                }
                None => {
                    let v = push(&mut ops, &mut types, o.clone(), t);
                    scur.insert(*code, v);
                    v
                }
            },
            (
                Op::SetVgpr { reg, val, mask },
                Op::SetVgpr {
                    val: old_val,
                    mask: old_mask,
                    ..
                },
            ) => {
                if read_after[i] && ty(*old_val) == Some(Ty::V32) {
                    let v = if all_ones(*old_mask) {
                        *val
                    } else {
                        let before = match vcur.get(reg) {
                            Some(&b) => b,
                            None => push(&mut ops, &mut types, Op::GetVgpr(*reg), Some(Ty::V32)),
                        };
                        push(
                            &mut ops,
                            &mut types,
                            Op::Select {
                                cond: *mask,
                                a: *val,
                                b: before,
                            },
                            Some(Ty::V32),
                        )
                    };
                    vcur.insert(*reg, v);
                } else {
                    vcur.remove(reg);
                }
                push(&mut ops, &mut types, o.clone(), t)
            }
            (Op::SetSgpr(code, v), Op::SetSgpr(_, old_v)) => {
                if *code != sreg::NULL && ty(*old_v) == Some(Ty::S32) {
                    scur.insert(*code, *v);
                } else {
                    scur.remove(code);
                }
                push(&mut ops, &mut types, o.clone(), t)
            }
            _ => push(&mut ops, &mut types, o.clone(), t),
        };
        map.push(new);
    }
    let mut exit = block.exit.clone();
    exit.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
    if unblend(&mut ops, &types, &exit) {
        changed = true;
    }
    // Final writes: a write no later op of the block reads back from the state.
    let drop_final = how.drop_final_writes && matches!(block.exit, Exit::EndPgm);
    // Overwritten writes: a write a later one of the block replaces before any op reads it.
    let drop_overwritten = how.drop_final_writes;
    let lanes32 = block.lanes() == 32;
    // Whether a later write under mask `later` writes every lane a write under `earlier`
    // does (mask bits 32..63 of a wave32 block are ignored, `ir` module doc).
    let covers = |ops: &[Op], later: Val, earlier: Val| {
        later == earlier
            || matches!(ops.get(later.0 as usize), Some(Op::Const { bits, .. })
                if *bits == u64::MAX || lanes32 && *bits & 0xFFFF_FFFF == 0xFFFF_FFFF)
    };
    let mut live = vec![false; ops.len()];
    exit.for_each_operand(|v| {
        if let Some(l) = live.get_mut(v.0 as usize) {
            *l = true;
        }
    });
    let mut vread: Vec<u16> = Vec::new();
    let mut sread: Vec<u8> = Vec::new();
    let mut scc_read = false;
    // Registers a kept later write replaces with no read in between (VGPRs: its masks).
    let mut vlater: HashMap<u16, Vec<Val>> = HashMap::new();
    let mut slater: Vec<u8> = Vec::new();
    let mut scc_later = false;
    for k in (0..ops.len()).rev() {
        let op = &ops[k];
        let final_write = drop_final
            && match op {
                Op::SetVgpr { reg, .. } => !vread.contains(reg),
                Op::SetSgpr(code, _) => !sread.contains(code),
                Op::SetScc(_) => !scc_read,
                _ => false,
            };
        let overwritten = drop_overwritten
            && match op {
                Op::SetVgpr { reg, mask, .. } => vlater
                    .get(reg)
                    .is_some_and(|ms| ms.iter().any(|m| covers(&ops, *m, *mask))),
                Op::SetSgpr(code, _) => slater.contains(code),
                Op::SetScc(_) => scc_later,
                _ => false,
            };
        let dead_write = final_write || overwritten;
        if dead_write || !live[k] && removable(op) {
            if dead_write {
                changed = true;
            }
            continue;
        }
        live[k] = true;
        match op {
            Op::GetVgpr(r) => {
                vread.push(*r);
                vlater.remove(r);
            }
            Op::GetSgpr(c) => {
                sread.push(*c);
                slater.retain(|x| x != c);
            }
            Op::GetScc => {
                scc_read = true;
                scc_later = false;
            }
            Op::SetVgpr { reg, mask, .. } => vlater.entry(*reg).or_default().push(*mask),
            Op::SetSgpr(code, _) => slater.push(*code),
            Op::SetScc(_) => scc_later = true,
            _ => {}
        }
        op.for_each_operand(|v| {
            if let Some(l) = live.get_mut(v.0 as usize) {
                *l = true;
            }
        });
    }
    if !changed {
        return None;
    }
    let mut remap = vec![Val(u32::MAX); ops.len()];
    let mut out_ops = Vec::with_capacity(ops.len());
    let mut out_types = Vec::with_capacity(ops.len());
    for k in (0..ops.len()).filter(|&k| live[k]) {
        let mut o = ops[k].clone();
        o.for_each_operand_mut(|v| *v = remap.get(v.0 as usize).copied().unwrap_or(*v));
        remap[k] = Val(out_ops.len() as u32);
        out_ops.push(o);
        out_types.push(types[k]);
    }
    exit.for_each_operand_mut(|v| *v = remap.get(v.0 as usize).copied().unwrap_or(*v));
    Some(Block {
        ops: out_ops,
        types: out_types,
        exit,
        ..block.clone()
    })
}

/// Which lanes of a vector value its uses observe.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Demand {
    /// The lanes of this `S64` mask value.
    Lanes(Val),
    All,
}

/// Whether `op` computes each lane of its vector result from the same lane of its vector
/// operands only.
fn lane_wise(op: &Op) -> bool {
    matches!(
        op,
        Op::Un(..)
            | Op::Bin(..)
            | Op::Tern(..)
            | Op::Conv(..)
            | Op::Pack { .. }
            | Op::Select { .. }
    )
}

/// Blends whose unselected lanes no use observes: `Select { cond: m, a, b }` whose every
/// use (directly, or through lane-wise ops) is a memory access or register write under the
/// mask `m` (so only lanes of `m` are read) becomes `a`. The masked register writes the
/// lifter emits per instruction (`Select` on EXEC after forwarding) then vanish where
/// the next instruction runs under the same EXEC. Returns whether it replaced any.
fn unblend(ops: &mut [Op], types: &[Option<Ty>], exit: &Exit) -> bool {
    let n = ops.len();
    let vector = |v: Val| {
        types
            .get(v.0 as usize)
            .copied()
            .flatten()
            .is_some_and(|t| t.is_vector())
    };
    let mut demand: Vec<Option<Demand>> = vec![None; n];
    let merge = |d: &mut Option<Demand>, c: Demand| {
        *d = Some(match *d {
            None => c,
            Some(x) if x == c => x,
            Some(_) => Demand::All,
        });
    };
    exit.for_each_operand(|v| {
        if let Some(d) = demand.get_mut(v.0 as usize) {
            *d = Some(Demand::All);
        }
    });
    for k in (0..n).rev() {
        let op = &ops[k];
        let own = demand[k];
        let mut contrib: Vec<(Val, Demand)> = Vec::new();
        op.for_each_operand(|v| {
            if !vector(v) {
                return;
            }
            let c = match op {
                Op::Load { mask, .. } | Op::Store { mask, .. } | Op::Atomic { mask, .. }
                    if v != *mask =>
                {
                    Some(Demand::Lanes(*mask))
                }
                Op::SetVgpr { mask, val, .. } if v == *val => Some(Demand::Lanes(*mask)),
                // An unused op observes nothing.
                _ if lane_wise(op) => own,
                _ => Some(Demand::All),
            };
            if let Some(c) = c {
                contrib.push((v, c));
            }
        });
        for (v, c) in contrib {
            if let Some(d) = demand.get_mut(v.0 as usize) {
                merge(d, c);
            }
        }
    }
    // Replacements, resolved in order (a replaced blend's `a` may itself be one).
    let mut repl: Vec<Val> = (0..n as u32).map(Val).collect();
    let mut any = false;
    for k in 0..n {
        if let (Op::Select { cond, a, .. }, Some(Demand::Lanes(m))) = (&ops[k], demand[k]) {
            if *cond == m && vector(*a) {
                repl[k] = repl[a.0 as usize];
                any = true;
            }
        }
    }
    if any {
        for op in ops.iter_mut() {
            op.for_each_operand_mut(|v| *v = repl.get(v.0 as usize).copied().unwrap_or(*v));
        }
    }
    any
}
