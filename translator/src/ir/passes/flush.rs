//! Denormal flushing as integer bit operations, without lane masks, and only where a value
//! can be denormal.
//!
//! Under a MODE that flushes f32 or f64 denormals the lifter flushes every input and output
//! of a float op with `Select { cond: Cmp(FClass, x, 0x90), a: And(x, SIGN), b: x }`
//! (classes 4 and 7: ±denormal → signed zero). Lowered as written that is a class test, a
//! lane mask built from it (and, in a lane-group loop, accumulated across groups) and a
//! select on the mask, per flush. Here each such flush becomes
//!
//! ```text
//! keep = (x & EXP) != 0 ? all ones : 0      exponent field non-zero: normal, inf, NaN
//!      = ((x & EXP) + (SIGN - 1)) >>s (w-1)    (32-bit; 64-bit: 0 - (... >>u 63))
//! r    = x & (keep | SIGN)
//! ```
//!
//! which is bit for bit the same (`x & EXP` is 0 or at least the smallest normal's exponent,
//! so adding `SIGN - 1` sets the sign bit exactly when it is non-zero, without wrapping; an
//! exponent of 0 with a zero mantissa is ±0, which `x & SIGN` leaves as it is).
//!
//! A value is *denormal-free* when it is the result of a flush, a constant that is not a
//! denormal (or its broadcast), or `FNeg`/`FAbs` of a denormal-free value; a flush of a
//! denormal-free value is the value itself and is dropped (a float op's flushed output
//! feeding the next op's input flush, a literal operand). Ops left without a use (the class
//! tests and selects replaced) are removed ([`remove_dead`]).

use super::dce::remove_dead;
use crate::ir::{BinOp, Block, CmpOp, Op, Ty, UnOp, Val};
use std::collections::HashMap;

/// The f32/f64 flush the lifter emits at op `i`: the flushed value and its width.
fn flush_at(block: &Block, i: usize) -> Option<(Val, u32)> {
    let Op::Select { cond, a, b } = block.ops.get(i)? else {
        return None;
    };
    let x = *b;
    let ty = block.types.get(x.0 as usize).copied().flatten()?;
    let bits = ty.bits();
    let Op::Cmp(CmpOp::FClass, cx, classes) = block.ops.get(cond.0 as usize)? else {
        return None;
    };
    if *cx != x || constant(block, *classes)? != 0x90 {
        return None;
    }
    let Op::Bin(BinOp::And, ax, sign) = block.ops.get(a.0 as usize)? else {
        return None;
    };
    (*ax == x && constant(block, *sign)? == sign_bit(bits)).then_some((x, bits))
}

/// The value of `v` when it is a constant or the broadcast of one.
fn constant(block: &Block, v: Val) -> Option<u64> {
    match block.ops.get(v.0 as usize)? {
        Op::Const { bits, .. } => Some(*bits),
        Op::Broadcast(s) => match block.ops.get(s.0 as usize)? {
            Op::Const { bits, .. } => Some(*bits),
            _ => None,
        },
        _ => None,
    }
}

fn sign_bit(bits: u32) -> u64 {
    if bits == 32 {
        1 << 31
    } else {
        1 << 63
    }
}

fn exp_mask(bits: u32) -> u64 {
    if bits == 32 {
        0x7f80_0000
    } else {
        0x7ff0_0000_0000_0000
    }
}

/// Whether the `bits`-bit float `x` is a denormal.
fn is_denormal(x: u64, bits: u32) -> bool {
    let x = if bits == 32 { x & 0xffff_ffff } else { x };
    x & exp_mask(bits) == 0 && x & !sign_bit(bits) & !exp_mask(bits) & mask(bits) != 0
}

fn mask(bits: u32) -> u64 {
    if bits == 32 {
        0xffff_ffff
    } else {
        u64::MAX
    }
}

/// The rewritten block (module doc), or `None` when it has no flush.
pub fn rewrite(block: &Block) -> Option<Block> {
    rewrite_assuming(block, &[])
}

/// For a block that loops to itself (its exit may continue at its own start): the VGPRs
/// whose f32 flushes it can skip on the way round the loop, and the block rewritten to
/// skip them (`None` when there are none).
///
/// The registers are those the block flushes as f32 inputs and only ever writes with a
/// denormal-free value (a flush result, a denormal-free constant, ...), through
/// `SetVgpr`: when every lane of them is denormal-free at the block's start (the code
/// checks that once, when the general version of the block loops back), every lane still
/// is at its end, written or not, so the loop can stay in the rewritten version. Blocks
/// with dynamically indexed VGPR writes or matrix ops (which write VGPRs themselves) have
/// no variant.
pub fn loop_variant(block: &Block) -> Option<(Block, Vec<u16>)> {
    let start = block.start_pc;
    let loops = match block.exit {
        crate::ir::Exit::Jump(t) => t == start,
        crate::ir::Exit::Branch {
            taken, not_taken, ..
        } => taken == start || not_taken == start,
        _ => false,
    };
    if !loops
        || block
            .ops
            .iter()
            .any(|o| matches!(o, Op::SetVgprDyn { .. } | Op::Matrix(_)))
    {
        return None;
    }
    let n = block.ops.len();
    let mut regs: Vec<u16> = Vec::new();
    for i in 0..n {
        if let Some((x, 32)) = flush_at(block, i) {
            if let Some(Op::GetVgpr(r)) = block.ops.get(x.0 as usize) {
                if !regs.contains(r) {
                    regs.push(*r);
                }
            }
        }
    }
    // Drop registers written with a value not known denormal-free (under the assumption
    // that the remaining ones are), until no more drop out.
    loop {
        let clean = clean_values(block, &regs);
        let before = regs.len();
        regs.retain(|r| {
            block.ops.iter().all(|o| match o {
                Op::SetVgpr { reg, val, .. } if reg == r => clean[val.0 as usize],
                _ => true,
            })
        });
        if regs.is_empty() {
            return None;
        }
        if regs.len() == before {
            break;
        }
    }
    regs.sort_unstable();
    Some((rewrite_assuming(block, &regs)?, regs))
}

/// Which values of `block` are denormal-free as f32 (module doc), with the VGPRs `regs`
/// denormal-free at its start.
fn clean_values(block: &Block, regs: &[u16]) -> Vec<bool> {
    let mut clean = vec![false; block.ops.len()];
    for (i, op) in block.ops.iter().enumerate() {
        let bits = block.types[i].map(|t| t.bits());
        clean[i] = match (op, bits) {
            (_, Some(32)) if flush_at(block, i).is_some() => true,
            (Op::GetVgpr(r), _) => regs.contains(r),
            (Op::Const { bits: c, .. }, Some(32)) => !is_denormal(*c, 32),
            (Op::Broadcast(s) | Op::Un(UnOp::FNeg | UnOp::FAbs, s), Some(32)) => {
                clean.get(s.0 as usize).copied().unwrap_or(false)
            }
            _ => false,
        };
    }
    clean
}

/// [`rewrite`] with the VGPRs `regs` taken as denormal-free (f32) where the block reads
/// them.
fn rewrite_assuming(block: &Block, regs: &[u16]) -> Option<Block> {
    let n = block.ops.len();
    let flushes: Vec<Option<(Val, u32)>> = (0..n).map(|i| flush_at(block, i)).collect();
    if flushes.iter().all(Option::is_none) {
        return None;
    }
    let mut ops: Vec<Op> = Vec::with_capacity(n + n / 2);
    let mut types: Vec<Option<Ty>> = Vec::with_capacity(n + n / 2);
    // Old value → new value.
    let mut map: Vec<Val> = Vec::with_capacity(n);
    // New values known denormal-free, by float width.
    let mut clean: HashMap<(u32, u32), ()> = HashMap::new();
    // Constants made here: (type, bits) → value (a `Const`, or its broadcast for vectors).
    let mut consts: HashMap<(bool, u32, u64), Val> = HashMap::new();
    let push = |ops: &mut Vec<Op>, types: &mut Vec<Option<Ty>>, op: Op, ty: Option<Ty>| {
        ops.push(op);
        types.push(ty);
        Val((ops.len() - 1) as u32)
    };
    for (i, op) in block.ops.iter().enumerate() {
        let ty = *block.types.get(i)?;
        let new = match (flushes[i], ty) {
            (Some((x, bits)), Some(t)) => {
                let x = map[x.0 as usize];
                if clean.contains_key(&(x.0, bits)) {
                    x
                } else {
                    let mut c = |ops: &mut Vec<Op>, types: &mut Vec<Option<Ty>>, v: u64| {
                        let key = (t.is_vector(), bits, v);
                        if let Some(&c) = consts.get(&key) {
                            return c;
                        }
                        let st = t.to_scalar();
                        let s = push(ops, types, Op::Const { ty: st, bits: v }, Some(st));
                        let c = if t.is_vector() {
                            push(ops, types, Op::Broadcast(s), Some(t))
                        } else {
                            s
                        };
                        consts.insert(key, c);
                        c
                    };
                    let sign = sign_bit(bits);
                    let exp = c(&mut ops, &mut types, exp_mask(bits));
                    let bias = c(&mut ops, &mut types, sign - 1);
                    let top = c(&mut ops, &mut types, (bits - 1) as u64);
                    let signc = c(&mut ops, &mut types, sign);
                    let e = push(&mut ops, &mut types, Op::Bin(BinOp::And, x, exp), ty);
                    let s = push(&mut ops, &mut types, Op::Bin(BinOp::Add, e, bias), ty);
                    let keep = if bits == 32 {
                        push(&mut ops, &mut types, Op::Bin(BinOp::AShr, s, top), ty)
                    } else {
                        // No 64-bit arithmetic shift in SSE: 0 − (s >> 63).
                        let one = push(&mut ops, &mut types, Op::Bin(BinOp::LShr, s, top), ty);
                        let zero = c(&mut ops, &mut types, 0);
                        push(&mut ops, &mut types, Op::Bin(BinOp::Sub, zero, one), ty)
                    };
                    let m = push(&mut ops, &mut types, Op::Bin(BinOp::Or, keep, signc), ty);
                    let r = push(&mut ops, &mut types, Op::Bin(BinOp::And, x, m), ty);
                    clean.insert((r.0, bits), ());
                    r
                }
            }
            _ => {
                let mut o = op.clone();
                o.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
                let r = push(&mut ops, &mut types, o.clone(), ty);
                if let Some(t) = ty {
                    let bits = t.bits();
                    let is_clean = match &o {
                        Op::GetVgpr(r) => regs.contains(r),
                        Op::Const { bits: c, .. } => !is_denormal(*c, bits),
                        Op::Broadcast(s) | Op::Un(UnOp::FNeg | UnOp::FAbs, s) => {
                            clean.contains_key(&(s.0, bits))
                        }
                        _ => false,
                    };
                    if is_clean {
                        clean.insert((r.0, bits), ());
                    }
                }
                r
            }
        };
        map.push(new);
    }
    let mut exit = block.exit.clone();
    exit.for_each_operand_mut(|v| *v = map.get(v.0 as usize).copied().unwrap_or(*v));
    Some(remove_dead(&Block {
        start_pc: block.start_pc,
        end_pc: block.end_pc,
        inst_count: block.inst_count,
        class_counts: block.class_counts,
        wave_size: block.wave_size,
        ops,
        types,
        exit,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{run_block, test_env::FlatEnv};
    use crate::ir::{ConvOp, Exit};
    use crate::wave::WaveState;

    /// Ops and types of a block being built.
    #[derive(Default)]
    struct B {
        ops: Vec<Op>,
        types: Vec<Option<Ty>>,
    }

    impl B {
        fn op(&mut self, op: Op, ty: Option<Ty>) -> Val {
            self.ops.push(op);
            self.types.push(ty);
            Val((self.ops.len() - 1) as u32)
        }
        fn bcast(&mut self, t: Ty, x: u64) -> Val {
            let c = self.op(
                Op::Const {
                    ty: t.to_scalar(),
                    bits: x,
                },
                Some(t.to_scalar()),
            );
            self.op(Op::Broadcast(c), Some(t))
        }
        /// The lifter's flush of `x`.
        fn flush(&mut self, x: Val, t: Ty) -> Val {
            let classes = self.bcast(t, 0x90);
            let den = self.op(Op::Cmp(CmpOp::FClass, x, classes), Some(Ty::S64));
            let sign = self.bcast(t, sign_bit(t.bits()));
            let z = self.op(Op::Bin(BinOp::And, x, sign), Some(t));
            self.op(
                Op::Select {
                    cond: den,
                    a: z,
                    b: x,
                },
                Some(t),
            )
        }
    }

    /// v2 (f32) and v[4:5] (f64) flushed twice each (the second flush is of a flushed value),
    /// and a flushed f32 denormal literal; results in v3, v6/v7 and v8.
    fn flush_block() -> Block {
        let mut b = B::default();
        let all = b.op(
            Op::Const {
                ty: Ty::S64,
                bits: u64::MAX,
            },
            Some(Ty::S64),
        );
        let x = b.op(Op::GetVgpr(2), Some(Ty::V32));
        let f = b.flush(x, Ty::V32);
        let neg = b.op(Op::Un(UnOp::FNeg, f), Some(Ty::V32));
        let f = b.flush(neg, Ty::V32);
        b.op(
            Op::SetVgpr {
                reg: 3,
                val: f,
                mask: all,
            },
            None,
        );
        let lo = b.op(Op::GetVgpr(4), Some(Ty::V32));
        let hi = b.op(Op::GetVgpr(5), Some(Ty::V32));
        let d = b.op(Op::Pack { lo, hi }, Some(Ty::V64));
        let f = b.flush(d, Ty::V64);
        let f = b.flush(f, Ty::V64);
        let lo = b.op(Op::Conv(ConvOp::Lo, f), Some(Ty::V32));
        let hi = b.op(Op::Conv(ConvOp::Hi, f), Some(Ty::V32));
        b.op(
            Op::SetVgpr {
                reg: 6,
                val: lo,
                mask: all,
            },
            None,
        );
        b.op(
            Op::SetVgpr {
                reg: 7,
                val: hi,
                mask: all,
            },
            None,
        );
        let den = b.bcast(Ty::V32, 0x8000_0001);
        let f = b.flush(den, Ty::V32);
        b.op(
            Op::SetVgpr {
                reg: 8,
                val: f,
                mask: all,
            },
            None,
        );
        Block {
            start_pc: 0,
            end_pc: 4,
            inst_count: 1,
            class_counts: Default::default(),
            wave_size: 64,
            ops: b.ops,
            types: b.types,
            exit: Exit::EndPgm,
        }
    }

    /// The rewritten block has no class test or select left, one flush per input, and
    /// computes exactly what the lifted one does in the interpreter, on denormals, zeros,
    /// normals, infinities and NaNs of both signs (random mantissas).
    #[test]
    fn rewritten_flushes_match_the_lifted_ones() {
        let b = flush_block();
        let r = rewrite(&b).expect("a flush");
        assert!(crate::ir::verify(&r).is_ok(), "{:?}", crate::ir::verify(&r));
        assert!(r
            .ops
            .iter()
            .all(|o| !matches!(o, Op::Cmp(..) | Op::Select { .. })));
        let ands = |blk: &Block| {
            blk.ops
                .iter()
                .filter(|o| matches!(o, Op::Bin(BinOp::And, ..)))
                .count()
        };
        // Two `And`s per remaining flush: v2, v[4:5] and the denormal literal (the second
        // flushes of v2 and v[4:5] are gone).
        assert_eq!(ands(&r), 6, "{r:?}");
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..64 {
            let mut want = WaveState::new_boxed(64);
            let mut got = WaveState::new_boxed(64);
            for l in 0..64 {
                let (m32, m64) = (next() as u32 & 0x7f_ffff, next() & ((1 << 52) - 1));
                let (e32, e64) = match (l + round) % 5 {
                    0 | 1 => (0, 0),    // denormal or zero
                    2 => (0xff, 0x7ff), // infinity or NaN
                    3 => (1, 1),        // smallest normals
                    _ => (next() as u32 & 0xff, next() & 0x7ff),
                };
                let m32 = if l % 7 == 0 { 0 } else { m32 };
                let x = (next() as u32 & 0x8000_0000) | e32 << 23 | m32;
                let d = (next() & 1 << 63) | e64 << 52 | m64;
                for s in [&mut want, &mut got] {
                    s.vgpr[2][l] = x;
                    s.vgpr[4][l] = d as u32;
                    s.vgpr[5][l] = (d >> 32) as u32;
                    for reg in [3, 6, 7, 8] {
                        s.vgpr[reg][l] = 0xdead_beef; // poison
                    }
                }
            }
            let mut env = FlatEnv::new(0, 0, 0, 0);
            run_block(&b, &mut want, &mut env).expect("lifted block runs");
            run_block(&r, &mut got, &mut env).expect("rewritten block runs");
            for reg in [3, 6, 7, 8] {
                assert_eq!(got.vgpr[reg], want.vgpr[reg], "v{reg}, round {round}");
            }
        }
    }

    /// `is_denormal` on hand-picked encodings.
    #[test]
    fn denormal_encodings() {
        assert!(is_denormal(1, 32));
        assert!(is_denormal(0x807f_ffff, 32));
        assert!(!is_denormal(0x8000_0000, 32));
        assert!(!is_denormal(0x0080_0000, 32));
        assert!(!is_denormal(0x7fc0_0000, 32));
        assert!(is_denormal(1, 64));
        assert!(!is_denormal(1 << 52, 64));
        assert!(!is_denormal(1 << 63, 64));
    }
}
