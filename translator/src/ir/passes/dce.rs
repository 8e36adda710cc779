//! Removal of ops whose value nothing uses and which have no other effect.

use crate::ir::{Block, Op, Val};

/// Whether removing `op` when its value is unused changes nothing: it only computes from
/// its operands (no register, memory, counter or MODE access, no fault).
pub(super) fn pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Const { .. }
            | Op::LaneConst(_)
            | Op::LaneId
            | Op::Un(..)
            | Op::Bin(..)
            | Op::Tern(..)
            | Op::Cmp(..)
            | Op::Conv(..)
            | Op::Select { .. }
            | Op::Broadcast(_)
            | Op::Pack { .. }
    )
}

/// `block` without its unused pure ops, values renumbered (the block itself when every op
/// is used).
pub fn remove_dead(block: &Block) -> Block {
    let n = block.ops.len();
    let mut live = vec![false; n];
    block.exit.for_each_operand(|v| {
        if let Some(l) = live.get_mut(v.0 as usize) {
            *l = true;
        }
    });
    for i in (0..n).rev() {
        if !live[i] && pure(&block.ops[i]) {
            continue;
        }
        live[i] = true;
        block.ops[i].for_each_operand(|v| {
            if let Some(l) = live.get_mut(v.0 as usize) {
                *l = true;
            }
        });
    }
    if live.iter().all(|&l| l) {
        return block.clone();
    }
    let mut map = vec![Val(u32::MAX); n];
    let mut ops = Vec::with_capacity(n);
    let mut types = Vec::with_capacity(n);
    for i in (0..n).filter(|&i| live[i]) {
        let mut o = block.ops[i].clone();
        o.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
        map[i] = Val(ops.len() as u32);
        ops.push(o);
        types.push(block.types[i]);
    }
    let mut exit = block.exit.clone();
    exit.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
    Block {
        start_pc: block.start_pc,
        end_pc: block.end_pc,
        inst_count: block.inst_count,
        class_counts: block.class_counts,
        wave_size: block.wave_size,
        ops,
        types,
        exit,
    }
}
