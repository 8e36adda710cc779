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
use crate::ir::{BinOp, Block, CmpOp, ConvOp, Op, TernOp, Ty, UnOp, Val};
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
    rewrite_assuming(block, Assumed::NONE)
}

/// A block's loop variant ([`loop_variant`]).
#[derive(Clone, Debug)]
pub struct LoopVariant {
    /// The block rewritten for the registers below being denormal-free at its start.
    pub block: Block,
    /// VGPRs whose f32 input flushes the variant skips.
    pub regs: Vec<u16>,
    /// VGPR pairs (the lower register of each) whose f64 input flushes it skips.
    pub pairs: Vec<u16>,
    /// SGPRs (scalar slot codes) whose f32 input flushes it skips; the block never
    /// writes them.
    pub sregs: Vec<u8>,
    /// SGPR pairs (the lower slot of each) whose f64 input flushes it skips; never
    /// written by the block.
    pub spairs: Vec<u8>,
}

/// The registers a loop variant takes as denormal-free at its start ([`LoopVariant`]).
#[derive(Clone, Copy)]
struct Assumed<'r> {
    regs: &'r [u16],
    pairs: &'r [u16],
    sregs: &'r [u8],
    spairs: &'r [u8],
}

impl Assumed<'_> {
    const NONE: Assumed<'static> = Assumed {
        regs: &[],
        pairs: &[],
        sregs: &[],
        spairs: &[],
    };

    /// Whether op `op` (of `ops`, with result width `bits`) reads registers assumed
    /// denormal-free as a float of that width.
    fn reads_clean(&self, ops: &[Op], op: &Op, bits: u32) -> bool {
        match (op, bits) {
            (Op::GetVgpr(r), 32) => self.regs.contains(r),
            (Op::GetSgpr(r), 32) => self.sregs.contains(r),
            (Op::Pack { lo, hi }, 64) => match (ops.get(lo.0 as usize), ops.get(hi.0 as usize)) {
                (Some(Op::GetVgpr(p)), Some(Op::GetVgpr(q))) => {
                    self.pairs.contains(p) && p.checked_add(1) == Some(*q)
                }
                (Some(Op::GetSgpr(p)), Some(Op::GetSgpr(q))) => {
                    self.spairs.contains(p) && p.checked_add(1) == Some(*q)
                }
                _ => false,
            },
            _ => false,
        }
    }
}

/// For a block that loops to itself (its exit may continue at its own start): the VGPRs
/// whose f32 flushes and the VGPR pairs whose f64 flushes it can skip on the way round the
/// loop, and the block rewritten to skip them (`None` when there are none).
///
/// The registers are those the block flushes as f32 inputs and only ever writes with a
/// denormal-free value (a flush result, a denormal-free constant, ...), through
/// `SetVgpr`; the pairs those it flushes as f64 inputs (`Pack` of `v[p]`, `v[p+1]`) and
/// only ever writes as the low and high halves of one denormal-free f64 value, by two
/// adjacent `SetVgpr`s with the same mask. When every lane of them is denormal-free at the
/// block's start (the code checks that once, when the general version of the block loops
/// back), every lane still is at its end, written or not, so the loop can stay in the
/// rewritten version. Blocks with dynamically indexed VGPR writes or matrix ops (which
/// write VGPRs themselves) have no variant.
pub fn loop_variant(block: &Block) -> Option<LoopVariant> {
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
    let mut pairs: Vec<u16> = Vec::new();
    let mut sregs: Vec<u8> = Vec::new();
    let mut spairs: Vec<u8> = Vec::new();
    for i in 0..n {
        match flush_at(block, i) {
            Some((x, 32)) => {
                if let Some(Op::GetVgpr(r)) = block.ops.get(x.0 as usize) {
                    if !regs.contains(r) {
                        regs.push(*r);
                    }
                }
            }
            Some((x, 64)) => {
                if let Some(p) = pair_read(block, x) {
                    if !pairs.contains(&p) {
                        pairs.push(p);
                    }
                }
            }
            _ => {}
        }
        // Uniform inputs: SGPRs (or their broadcasts) the block never writes.
        if let Some((x, bits)) = flush_at(block, i) {
            let x = match block.ops.get(x.0 as usize) {
                Some(Op::Broadcast(s)) => *s,
                _ => x,
            };
            match (block.ops.get(x.0 as usize), bits) {
                (Some(Op::GetSgpr(r)), 32) if !sregs.contains(r) && !sgpr_written(block, *r) => {
                    sregs.push(*r)
                }
                (Some(Op::Pack { lo, hi }), 64) => {
                    if let (Some(Op::GetSgpr(p)), Some(Op::GetSgpr(q))) =
                        (block.ops.get(lo.0 as usize), block.ops.get(hi.0 as usize))
                    {
                        if p.checked_add(1) == Some(*q)
                            && !spairs.contains(p)
                            && !sgpr_written(block, *p)
                            && !sgpr_written(block, *q)
                        {
                            spairs.push(*p);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    // Drop registers written with a value not known denormal-free (under the assumption
    // that the remaining ones are), until no more drop out.
    loop {
        let assumed = Assumed {
            regs: &regs,
            pairs: &pairs,
            sregs: &sregs,
            spairs: &spairs,
        };
        let clean = clean_values(block, assumed);
        let before = regs.len() + pairs.len();
        regs.retain(|r| {
            block.ops.iter().all(|o| match o {
                Op::SetVgpr { reg, val, .. } if reg == r => clean[val.0 as usize],
                _ => true,
            })
        });
        pairs.retain(|&p| pair_writes_clean(block, p, &clean));
        if regs.is_empty() && pairs.is_empty() && sregs.is_empty() && spairs.is_empty() {
            return None;
        }
        if regs.len() + pairs.len() == before {
            break;
        }
    }
    regs.sort_unstable();
    pairs.sort_unstable();
    sregs.sort_unstable();
    spairs.sort_unstable();
    let assumed = Assumed {
        regs: &regs,
        pairs: &pairs,
        sregs: &sregs,
        spairs: &spairs,
    };
    Some(LoopVariant {
        block: rewrite_assuming(block, assumed)?,
        regs,
        pairs,
        sregs,
        spairs,
    })
}

/// Whether `block` writes SGPR slot `r`.
fn sgpr_written(block: &Block, r: u8) -> bool {
    block
        .ops
        .iter()
        .any(|o| matches!(o, Op::SetSgpr(w, _) if *w == r))
}

/// When `x` is `Pack { lo: GetVgpr(p), hi: GetVgpr(p + 1) }`: `p`.
fn pair_read(block: &Block, x: Val) -> Option<u16> {
    let Op::Pack { lo, hi } = block.ops.get(x.0 as usize)? else {
        return None;
    };
    match (block.ops.get(lo.0 as usize)?, block.ops.get(hi.0 as usize)?) {
        (Op::GetVgpr(p), Op::GetVgpr(q)) if p.checked_add(1) == Some(*q) => Some(*p),
        _ => None,
    }
}

/// Whether every write of `v[p]` or `v[p+1]` is one of two adjacent `SetVgpr`s, with one
/// mask, of `Conv(Lo, x)` to `v[p]` and `Conv(Hi, x)` to `v[p+1]` for one value `x`
/// denormal-free as f64 (`clean`).
fn pair_writes_clean(block: &Block, p: u16, clean: &[bool]) -> bool {
    let half = |v: Val| match block.ops.get(v.0 as usize) {
        Some(Op::Conv(ConvOp::Lo, x)) => Some((false, *x)),
        Some(Op::Conv(ConvOp::Hi, x)) => Some((true, *x)),
        _ => None,
    };
    let write = |i: usize| match block.ops.get(i) {
        Some(Op::SetVgpr { reg, val, mask }) => Some((*reg, *val, *mask)),
        _ => None,
    };
    let mut i = 0;
    while i < block.ops.len() {
        match write(i) {
            Some((reg, val, mask)) if reg == p || reg.checked_sub(1) == Some(p) => {
                // The other half must be the next op, the same value and mask.
                let Some((reg2, val2, mask2)) = write(i + 1) else {
                    return false;
                };
                let (h1, h2) = (half(val), half(val2));
                let ok = match (h1, h2) {
                    (Some((hi1, x1)), Some((hi2, x2))) => {
                        x1 == x2
                            && mask == mask2
                            && hi1 != hi2
                            && (if hi1 {
                                reg == p + 1 && reg2 == p
                            } else {
                                reg == p && reg2 == p + 1
                            })
                            && clean.get(x1.0 as usize).copied().unwrap_or(false)
                            && block
                                .types
                                .get(x1.0 as usize)
                                .copied()
                                .flatten()
                                .map(|t| t.bits())
                                == Some(64)
                    }
                    _ => false,
                };
                if !ok {
                    return false;
                }
                i += 2;
            }
            _ => i += 1,
        }
    }
    true
}

/// Which values of `block` are denormal-free as floats of their width (module doc), with
/// the registers `assumed` denormal-free at its start.
fn clean_values(block: &Block, assumed: Assumed<'_>) -> Vec<bool> {
    let mut clean = vec![false; block.ops.len()];
    for (i, op) in block.ops.iter().enumerate() {
        let bits = block.types[i].map(|t| t.bits());
        clean[i] = match (op, bits) {
            (_, Some(32 | 64)) if flush_at(block, i).is_some() => true,
            // The two halves of one denormal-free f64 put together again (a 64-bit move).
            (Op::Pack { lo, hi }, Some(64))
                if matches!(
                    (block.ops.get(lo.0 as usize), block.ops.get(hi.0 as usize)),
                    (Some(Op::Conv(ConvOp::Lo, a)), Some(Op::Conv(ConvOp::Hi, b)))
                        if a == b && clean.get(a.0 as usize).copied().unwrap_or(false)
                ) =>
            {
                true
            }
            (Op::GetVgpr(_) | Op::GetSgpr(_) | Op::Pack { .. }, Some(b)) => {
                assumed.reads_clean(&block.ops, op, b)
            }
            (Op::Const { bits: c, .. }, Some(b @ (32 | 64))) => !is_denormal(*c, b),
            (Op::Broadcast(s) | Op::Un(UnOp::FNeg | UnOp::FAbs, s), Some(32 | 64)) => {
                clean.get(s.0 as usize).copied().unwrap_or(false)
            }
            _ => false,
        };
    }
    clean
}

/// [`rewrite`] with the registers `assumed` taken as denormal-free where the block reads
/// them.
fn rewrite_assuming(block: &Block, assumed: Assumed<'_>) -> Option<Block> {
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
                        Op::GetVgpr(_) | Op::GetSgpr(_) | Op::Pack { .. } => {
                            assumed.reads_clean(&ops, &o, bits)
                        }
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

/// When op `i` is the last op of a flush written by [`rewrite`] (`x & (keep | SIGN)`): the
/// flushed value `x` and its width.
pub fn flushed_value(block: &Block, i: usize) -> Option<(Val, u32)> {
    let op = |v: Val| block.ops.get(v.0 as usize);
    let Some(Op::Bin(BinOp::And, x, m)) = block.ops.get(i) else {
        return None;
    };
    let bits = block.types.get(i).copied().flatten()?.bits();
    let Some(Op::Bin(BinOp::Or, keep, sign)) = op(*m) else {
        return None;
    };
    if constant(block, *sign)? != sign_bit(bits) {
        return None;
    }
    let s = match (op(*keep)?, bits) {
        (Op::Bin(BinOp::AShr, s, top), 32) if constant(block, *top)? == 31 => *s,
        (Op::Bin(BinOp::Sub, zero, one), 64) if constant(block, *zero)? == 0 => match op(*one)? {
            Op::Bin(BinOp::LShr, s, top) if constant(block, *top)? == 63 => *s,
            _ => return None,
        },
        _ => return None,
    };
    let Some(Op::Bin(BinOp::Add, e, bias)) = op(s) else {
        return None;
    };
    let Some(Op::Bin(BinOp::And, ex, exp)) = op(*e) else {
        return None;
    };
    (constant(block, *bias)? == sign_bit(bits) - 1
        && ex == x
        && constant(block, *exp)? == exp_mask(bits))
    .then_some((*x, bits))
}

/// The float ops the host may compute with MXCSR.FTZ set in place of their output flush:
/// vector f32/f64 add, subtract, multiply and FMA (round to nearest; directed rounding is a
/// lane function).
pub fn ftz_op(block: &Block, v: Val) -> Option<u32> {
    let ty = block.types.get(v.0 as usize).copied().flatten()?;
    if !ty.is_vector() {
        return None;
    }
    match block.ops.get(v.0 as usize)? {
        Op::Bin(BinOp::FAdd | BinOp::FSub | BinOp::FMul, ..) | Op::Tern(TernOp::Fma, ..) => {
            Some(ty.bits())
        }
        _ => None,
    }
}

/// Whether `block` (a loop variant in its final form) may run its lane-group loops with the
/// host's FTZ set (`jit::lower::fenv`): every float op computed in line that can give a
/// result below MIN_NORMAL is one of [`ftz_op`] and used only through its output flush,
/// and at least one such flush exists. FTZ then changes no result the block computes
/// except the ±0 results of multiplies and FMAs, which the JIT tests (an add's exact
/// result below MIN_NORMAL is a multiple of the smallest denormal, so it is a denormal
/// already and is flushed the same; see the module doc of `jit::lower::fenv`).
pub fn ftz_ready(block: &Block) -> bool {
    let mut any = false;
    for (j, op) in block.ops.iter().enumerate() {
        let blocked = match op {
            Op::Lane { .. } | Op::Matrix(_) => true,
            Op::Bin(BinOp::FDiv | BinOp::FLdexp, ..) => true,
            Op::Un(UnOp::FSqrt | UnOp::FRcp | UnOp::FRsq | UnOp::FFract, _) => true,
            Op::Conv(ConvOp::F64ToF32 | ConvOp::F32ToF16, _) => true,
            Op::Bin(BinOp::FAdd | BinOp::FSub | BinOp::FMul, ..) | Op::Tern(TernOp::Fma, ..) => {
                ftz_op(block, Val(j as u32)).is_none()
            }
            _ => false,
        };
        if blocked {
            return false;
        }
        let flushed = flushed_value(block, j).map(|(x, _)| x);
        let exp_test = match op {
            Op::Bin(BinOp::And, x, e) => {
                let bits = block.types.get(j).copied().flatten().map(|t| t.bits());
                bits.is_some_and(|b| constant(block, *e) == Some(exp_mask(b)))
                    .then_some(*x)
            }
            _ => None,
        };
        if flushed.is_some_and(|x| ftz_op(block, x).is_some()) {
            any = true;
        }
        let mut ok = true;
        op.for_each_operand(|v| {
            if ftz_op(block, v).is_some() && Some(v) != flushed && Some(v) != exp_test {
                ok = false;
            }
        });
        if !ok {
            return false;
        }
    }
    let mut exit_ok = true;
    block.exit.for_each_operand(|v| {
        if ftz_op(block, v).is_some() {
            exit_ok = false;
        }
    });
    any && exit_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{run_block, test_env::FlatEnv};
    use crate::ir::Exit;
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
