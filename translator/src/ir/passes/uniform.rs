//! Uniform-value folding: vector ops whose operands are all wave-uniform become one scalar
//! op and a [`Op::Broadcast`] before code generation.
//!
//! The lifter expresses every VALU operation per lane, even when its inputs are the same in
//! every lane (an SGPR or a constant broadcast to the wave, e.g. the selector of
//! `v_perm_b32 v, v, v, s`). Computed per lane group, such chains cost a vector op each, and
//! worse, a shift by a per-lane amount or a select on a lane mask made from per-lane compares
//! falls back to lane-by-lane code. Here they are computed once as scalars:
//!
//! * `Un`/`Bin`/`Tern`/`Conv`/`Pack` on vectors whose operands are all uniform: the same op
//!   on the scalar sources, then `Broadcast`. Both engines evaluate an op lane by lane with
//!   the same per-element rule whatever its width ([`crate::sem`]), so the scalar op yields
//!   the lane value exactly.
//! * `Cmp` of uniform vectors: the vector form sets all the block's mask bits or none, so it
//!   becomes the scalar compare (0/1) turned into `0 − zext(c)` (0 or all ones), for wave32
//!   `zext(0 − c)` (0 or the low 32 bits).
//! * `Select` on such a mask between uniform vectors: the scalar select on the 0/1 compare;
//!   between per-lane vectors: a bitwise blend with the broadcast all-ones-or-zero mask.
//!
//! The result is checked like any block ([`crate::ir::verify`]); the caller compiles the
//! original block when the folded one is rejected.

use crate::ir::{Block, Op, Ty, Val};

/// `op` with every value operand replaced by `f(operand)`.
fn map_operands(op: &Op, f: impl Fn(Val) -> Val) -> Op {
    let mut o = op.clone();
    o.for_each_operand_mut(|v| *v = f(*v));
    o
}

/// The folded block, or `None` when no op is uniform (or an operand is malformed: the
/// original block then goes to the checks, which report it).
pub fn fold(block: &Block) -> Option<Block> {
    let n = block.ops.len();
    let mut ops: Vec<Op> = Vec::with_capacity(n + n / 4);
    let mut types: Vec<Option<Ty>> = Vec::with_capacity(n + n / 4);
    // Old value → new value; for uniform vectors their new scalar; for uniform lane masks
    // (all bits or none) the new 0/1 `S32` compare.
    let mut map: Vec<Val> = Vec::with_capacity(n);
    let mut uni: Vec<Option<Val>> = Vec::with_capacity(n);
    let mut umask: Vec<Option<Val>> = Vec::with_capacity(n);
    let mut folded = 0usize;
    let mut push = |ops: &mut Vec<Op>, op: Op, ty: Option<Ty>| -> Val {
        ops.push(op);
        types.push(ty);
        Val((ops.len() - 1) as u32)
    };
    for (i, op) in block.ops.iter().enumerate() {
        let ty = *block.types.get(i)?;
        let get = |v: &Val, t: &Vec<Option<Val>>| t.get(v.0 as usize).copied().flatten();
        let all_uni = |vs: &[Val]| -> Option<Vec<Val>> {
            vs.iter()
                .map(|v| get(v, &uni))
                .collect::<Option<Vec<Val>>>()
        };
        let vector = ty.is_some_and(|t| t.is_vector());
        // The scalar form of a vector op on uniform operands.
        let scalar: Option<Op> = match op {
            Op::Un(u, a) if vector => all_uni(&[*a]).map(|s| Op::Un(*u, s[0])),
            Op::Bin(o, a, b) if vector => all_uni(&[*a, *b]).map(|s| Op::Bin(*o, s[0], s[1])),
            Op::Tern(o, a, b, c) if vector => {
                all_uni(&[*a, *b, *c]).map(|s| Op::Tern(*o, s[0], s[1], s[2]))
            }
            Op::Conv(c, a) if vector => all_uni(&[*a]).map(|s| Op::Conv(*c, s[0])),
            Op::Pack { lo, hi } if vector => {
                all_uni(&[*lo, *hi]).map(|s| Op::Pack { lo: s[0], hi: s[1] })
            }
            Op::Select { cond, a, b } if vector => match get(cond, &umask) {
                Some(c) => all_uni(&[*a, *b]).map(|s| Op::Select {
                    cond: c,
                    a: s[0],
                    b: s[1],
                }),
                None => None,
            },
            _ => None,
        };
        // A select on a uniform mask between per-lane vectors: `b ^ ((a ^ b) & M)` with M
        // the broadcast of all ones or zero, bitwise the same as taking `a` or `b`.
        let blend = match op {
            Op::Select { cond, a, b } if vector && scalar.is_none() => {
                get(cond, &umask).map(|c| (c, map[a.0 as usize], map[b.0 as usize]))
            }
            _ => None,
        };
        let (new, u, m) = if let (Some((c01, a, b)), Some(t)) = (blend, ty) {
            use crate::ir::{BinOp, ConvOp};
            let st = t.to_scalar();
            let wide = if st == Ty::S64 {
                push(&mut ops, Op::Conv(ConvOp::ZExt, c01), Some(Ty::S64))
            } else {
                c01
            };
            let zero = push(&mut ops, Op::Const { ty: st, bits: 0 }, Some(st));
            let ms = push(&mut ops, Op::Bin(BinOp::Sub, zero, wide), Some(st));
            let mv = push(&mut ops, Op::Broadcast(ms), Some(t));
            let x = push(&mut ops, Op::Bin(BinOp::Xor, a, b), Some(t));
            let x = push(&mut ops, Op::Bin(BinOp::And, x, mv), Some(t));
            let r = push(&mut ops, Op::Bin(BinOp::Xor, b, x), Some(t));
            folded += 1;
            (r, None, None)
        } else if let (Some(sop), Some(t)) = (scalar, ty) {
            let s = push(&mut ops, sop, Some(t.to_scalar()));
            let v = push(&mut ops, Op::Broadcast(s), Some(t));
            folded += 1;
            (v, Some(s), None)
        } else if let Op::Cmp(c, a, b) = op {
            let vector_cmp = block
                .types
                .get(a.0 as usize)
                .copied()
                .flatten()
                .is_some_and(|t| t.is_vector());
            match all_uni(&[*a, *b]) {
                Some(s) if vector_cmp && block.lanes() == 32 => {
                    use crate::ir::{BinOp, ConvOp};
                    let c01 = push(&mut ops, Op::Cmp(*c, s[0], s[1]), Some(Ty::S32));
                    let zero = push(
                        &mut ops,
                        Op::Const {
                            ty: Ty::S32,
                            bits: 0,
                        },
                        Some(Ty::S32),
                    );
                    let m32 = push(&mut ops, Op::Bin(BinOp::Sub, zero, c01), Some(Ty::S32));
                    let m = push(&mut ops, Op::Conv(ConvOp::ZExt, m32), Some(Ty::S64));
                    folded += 1;
                    (m, None, Some(c01))
                }
                Some(s) if vector_cmp => {
                    let c01 = push(&mut ops, Op::Cmp(*c, s[0], s[1]), Some(Ty::S32));
                    let wide = push(
                        &mut ops,
                        Op::Conv(crate::ir::ConvOp::ZExt, c01),
                        Some(Ty::S64),
                    );
                    let zero = push(
                        &mut ops,
                        Op::Const {
                            ty: Ty::S64,
                            bits: 0,
                        },
                        Some(Ty::S64),
                    );
                    let m = push(
                        &mut ops,
                        Op::Bin(crate::ir::BinOp::Sub, zero, wide),
                        Some(Ty::S64),
                    );
                    folded += 1;
                    (m, None, Some(c01))
                }
                _ => {
                    let o = map_operands(op, |v| map.get(v.0 as usize).copied().unwrap_or(v));
                    (push(&mut ops, o, ty), None, None)
                }
            }
        } else {
            let o = map_operands(op, |v| map.get(v.0 as usize).copied().unwrap_or(v));
            let new = push(&mut ops, o, ty);
            let u = match op {
                Op::Broadcast(a) => map.get(a.0 as usize).copied(),
                _ => None,
            };
            (new, u, None)
        };
        map.push(new);
        uni.push(u);
        umask.push(m);
    }
    if folded == 0 {
        return None;
    }
    let mut exit = block.exit.clone();
    exit.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
    Some(Block {
        start_pc: block.start_pc,
        end_pc: block.end_pc,
        inst_count: block.inst_count,
        class_counts: block.class_counts,
        wave_size: block.wave_size,
        ops,
        types,
        exit,
    })
}
