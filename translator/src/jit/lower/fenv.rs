//! The host's float environment (x86 MXCSR, [`crate::jit::mxcsr`]) for generated code:
//! directed rounding by MXCSR.RC for a whole block, and flush-to-zero by MXCSR.FTZ in a
//! flush-mode loop variant's fast copies.
//!
//! Generated code enters an environment with [`Gen::fenv_enter`] (the caller's MXCSR saved
//! in a slot of the function's frame) and leaves it with [`Gen::leave_fenv`] (that MXCSR
//! loaded back) before every return and tail call; [`Gen::call`] leaves it around helper
//! calls. Rust code therefore always runs under the caller's MXCSR, whatever it is.
//!
//! # Directed rounding (RC)
//!
//! A block whose directed roundings ([`crate::ir::LaneFn::Rounded`] f32/f64 add, sub, mul
//! and fma, vector) all go one direction, and whose other in-line float code does not
//! depend on the rounding direction ([`host_round`]), runs from its entry with RC set to
//! that direction and computes those ops as plain host ops (`fadd`, `fsub`, `fmul`, `fma`
//! on f32x4/f64x2), with the NaN handling of the round-to-nearest ops. x86 computes these
//! (and divide and square root) as IEEE 754 prescribes for the direction in RC (SDM vol. 1,
//! 4.8.4 and 10.2.3.3): the exact result rounded once, denormal results included (FTZ and
//! DAZ clear), overflow to ±∞ or ±MAX as the direction says, and an exact zero sum −0
//! toward −∞ (IEEE 754 6.3) — which is [`crate::sem::round`]'s definition. The unit test
//! `mxcsr::tests::rc_rounds_f32_arithmetic_once_in_its_direction` checks f32 add, sub,
//! mul, fma, div and sqrt against an exact oracle on the host; `float::round_rc` checks
//! f32/f64 blocks against the interpreter. The integer output flush of a flushing MODE
//! stays: it acts on the correctly rounded result, as in the interpreter.
//!
//! What RC would change, so [`host_round`] keeps the block at round-to-nearest (and
//! `lower::round`'s error-free formulas, which assume it) when it has any of it:
//! - ops with round-to-nearest semantics the JIT computes with host float arithmetic:
//!   IR `FAdd`/`FSub`/`FMul`/`FDiv`/`Fma`, sqrt, rcp, rsq, fract, ldexp; conversions
//!   f64 → f32 and integer → float (`cvtpd2ps`/`cvtdq2ps` follow RC, checked by the unit
//!   test); float → integer and round-to-integral (`cvttps2dq`, `roundps` with an
//!   immediate mode ignore RC, but Cranelift's lowering of the unsigned and saturating
//!   forms adds fix-up arithmetic, so they are kept out too);
//! - in-line lane functions (division steps, `v_exp_f32`: formulas that assume nearest),
//!   directed roundings in another direction (f32 and f64 have separate MODE fields; the
//!   host has one RC), matrix ops and float atomics.
//!
//! Not affected: compares, min/max, abs/neg/copysign, f32 → f64 and f16 → f32 widening
//! (exact), integer and memory ops, and everything a helper computes. Cranelift 0.135 folds
//! float constants only for scalar `fadd`/`fmul` (`opts/cprop.isle`), never for the vector
//! ops used here, so no round-to-nearest result is baked in at compile time.
//!
//! The environment is switched at the block function's entry and exits (a self-loop stays
//! in it); switching per loop variant, as FTZ does, would leave the block's first pass and
//! non-looping blocks on the slower exact-error path.
//!
//! # Flush to zero (FTZ)
//!
//! A block's loop variant ([`crate::ir::passes::flush::loop_variant`]) that
//! [`flush::ftz_ready`] accepts runs with FTZ set from its start to every return, tail call
//! and helper call (which switch it off first, and on again after a call). Its lane-group
//! loops' fast copies compute f32/f64 adds, multiplies and FMAs ([`flush::ftz_op`]) and
//! take the host's result for the op's output flush ([`flush::flushed_value`]); the slow
//! copies run with FTZ off and keep the flush. FTZ is not combined with RC (the argument
//! below is for round-to-nearest).
//!
//! Why this is exact (x86 SDM vol. 1, 4.9.1.5 and 10.2.3.3; checked on the host by
//! `mxcsr::tests`): with FTZ the host returns ±0 (the sign of the exact result) when the
//! result rounded with an unbounded exponent is below MIN_NORMAL ("tiny after rounding"),
//! else the IEEE result. The ISA's output flush as the interpreter does it rounds in the
//! format (denormals included) and then replaces a denormal by ±0. For an exact result
//! `x`:
//! - `|x| >= MIN_NORMAL`: both give IEEE's result.
//! - `|x| < MIN_NORMAL` and not tiny after rounding (it rounds to MIN_NORMAL with 24/53
//!   bits): `x` is within half an ulp of the binade below MIN_NORMAL, which is less than
//!   half a denormal ulp, so IEEE rounds it to ±MIN_NORMAL too: the same.
//! - tiny after rounding: FTZ gives ±0; IEEE + flush gives ±0 too unless IEEE rounds `x`
//!   up to ±MIN_NORMAL (`x` within half a denormal ulp of it).
//!
//! So the host's result differs only where it is ±0 and the flushed one is ±MIN_NORMAL.
//! An add or subtract cannot get there: its exact result is a multiple of the smallest
//! denormal, so below MIN_NORMAL it is a denormal itself. Multiplies and FMAs can: the
//! fast copy sends a group with a ±0 (or NaN) product or FMA result to the slow copy
//! (all such results of the group are multiplied together, so one test of `|p| <= 0 or
//! NaN` covers them; an underflowing product of non-zero results only sends the group to
//! the slow copy needlessly). DAZ is not used: operands are read as they are.
//!
//! In the iterated form those multiplies would share the FMA ports with the loop's own
//! FMAs in every iteration, so there the fast copy reads MXCSR's underflow flag instead
//! ([`FtzFlag`]): FTZ returns a zero for a tiny result only on a masked underflow, which
//! sets UE (SDM vol. 1, 10.2.3.3), so UE clear after the iterations means no result was
//! flushed; the results then need only the NaN test.

use super::round::inlined;
use super::{Gen, GenResult, I32X4, JV};
use crate::env::AtomicOp;
use crate::ir::passes::flush;
use crate::ir::{BinOp, Block, ConvOp, LaneFn, Op, Round, TernOp, UnOp};
use crate::jit::mxcsr;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, InstBuilder, Signature, StackSlot, StackSlotData, StackSlotKind, Value,
};
use cranelift_codegen::isa::CallConv;

/// MXCSR's underflow flag (UE, bit 4; SDM vol. 1, 10.2.3).
const UNDERFLOW: u32 = 1 << 4;

/// The direction a block may run under as MXCSR.RC (module doc): the one direction of its
/// in-line directed roundings, when it has some and nothing whose result RC would change.
pub fn host_round(block: &Block) -> Option<Round> {
    if !mxcsr::AVAILABLE {
        return None;
    }
    let mut dir = None;
    for (j, op) in block.ops.iter().enumerate() {
        let vector = block
            .types
            .get(j)
            .copied()
            .flatten()
            .is_some_and(|t| t.is_vector());
        let ok = match op {
            Op::Lane { f, .. } if vector && inlined(f) => match *f {
                LaneFn::Rounded(_, rm, _) if dir.is_none_or(|d| d == rm) => {
                    dir = Some(rm);
                    true
                }
                _ => false,
            },
            Op::Lane { f, .. } => !(vector && super::lanefn::inlined(f)),
            Op::Bin(o, ..) => !matches!(
                o,
                BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FLdexp
            ),
            Op::Un(u, _) => !matches!(
                u,
                UnOp::FSqrt
                    | UnOp::FRcp
                    | UnOp::FRsq
                    | UnOp::FFract
                    | UnOp::FFloor
                    | UnOp::FCeil
                    | UnOp::FTrunc
                    | UnOp::FRoundEven
            ),
            Op::Tern(o, ..) => *o != TernOp::Fma,
            Op::Conv(c, _) => !matches!(
                c,
                ConvOp::F64ToF32
                    | ConvOp::F32ToF16
                    | ConvOp::I32ToF32
                    | ConvOp::U32ToF32
                    | ConvOp::I32ToF64
                    | ConvOp::U32ToF64
                    | ConvOp::F32ToI32
                    | ConvOp::F32ToU32
                    | ConvOp::F64ToI32
                    | ConvOp::F64ToU32
            ),
            Op::Matrix(_) => false,
            Op::Atomic { op, .. } => *op != AtomicOp::FAdd,
            _ => true,
        };
        if !ok {
            return None;
        }
    }
    dir
}

impl Gen<'_, '_> {
    /// Calls `f` (one of [`mxcsr`]'s `h_fenv_*`) with the frame's MXCSR slot and `env`
    /// (directly: not through [`Gen::call`], which wraps helper calls in these).
    fn fenv_call(&mut self, f: usize, env: Option<u32>) {
        let slot = *self.fenv_slot.get_or_insert_with(|| {
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 4, 2))
        });
        self.fenv_call_with(f, slot, env);
    }

    /// [`Gen::fenv_call`] with the MXCSR slot `slot`.
    fn fenv_call_with(&mut self, f: usize, slot: StackSlot, env: Option<u32>) {
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        // Neither function changes a register: values live across the call stay in
        // registers (no spills in the loops around these calls).
        let mut sig = Signature::new(CallConv::PreserveAll);
        sig.params.push(AbiParam::new(types::I64));
        let mut args = vec![addr];
        if let Some(env) = env {
            sig.params.push(AbiParam::new(types::I32));
            args.push(self.iconst(types::I32, u64::from(env)));
        }
        let sigref = self.b.import_signature(sig);
        let callee = self.iconst(types::I64, f as u64);
        self.b.ins().call_indirect(sigref, callee, &args);
    }

    /// Enters the environment `env` (MXCSR's FTZ and RC bits), saving the caller's MXCSR.
    pub(super) fn fenv_enter(&mut self, env: u32) {
        self.fenv_call(mxcsr::h_fenv_enter as *const () as usize, Some(env));
    }

    /// Loads the MXCSR saved by the last [`Gen::fenv_enter`].
    pub(super) fn fenv_leave(&mut self) {
        // Leaving the environment (around a helper call) loses the status flags a fast
        // copy's flushed results raised: that copy tests its results again.
        if let Some(fc) = self.fast_copy() {
            fc.ftz_flag = FtzFlag::Off;
        }
        self.fenv_call(mxcsr::h_fenv_leave as *const () as usize, None);
    }

    /// The environment the code being emitted runs under (0: the caller's).
    pub(super) fn fenv_bits(&self) -> u32 {
        let ftz = if self.ftz { mxcsr::FTZ } else { 0 };
        ftz | self.rc.map_or(0, mxcsr::rc_bits)
    }

    /// FTZ on (entering it, with the block's RC) or off (the caller's MXCSR back).
    pub(super) fn ftz_switch(&mut self, on: bool) {
        if on {
            let rc = self.rc.map_or(0, mxcsr::rc_bits);
            self.fenv_enter(mxcsr::FTZ | rc);
        } else {
            self.fenv_leave();
        }
    }

    /// Before a return or tail call: the caller's MXCSR back when the code runs under
    /// another environment.
    pub(super) fn leave_fenv(&mut self) {
        if self.fenv_bits() != 0 {
            self.fenv_leave();
        }
    }

    /// In a fast copy run with FTZ: op `i` when it is the output flush of an op the host
    /// flushed, as that op's value.
    pub(super) fn ftz_flushed(&mut self, i: usize) -> GenResult<Option<JV>> {
        if !self.ftz || self.fast_copy().is_none() {
            return Ok(None);
        }
        let blk = self.block;
        match flush::flushed_value(blk, i) {
            Some((x, _)) if flush::ftz_op(blk, x).is_some() => Ok(Some(self.get(x)?.clone())),
            _ => Ok(None),
        }
    }

    /// For the result chunks `r` of a multiply or FMA: under FTZ, collects them for the
    /// group's ±0/NaN test (which also does the NaN test) and returns true; false when FTZ
    /// is off. Under FTZ outside a fast copy (which [`flush::ftz_ready`] rules out) an
    /// error, so the block is compiled without FTZ.
    pub(super) fn ftz_collect(&mut self, bits: u32, r: &[Value]) -> GenResult<bool> {
        if !self.ftz {
            return Ok(false);
        }
        if self.fast_copy().is_none() {
            return Err("a multiply under FTZ outside a fast lane-group loop".into());
        }
        let k = usize::from(bits == 64);
        if let Some(fc) = self.fast_copy() {
            fc.ftz_products[k].extend_from_slice(r);
        }
        Ok(true)
    }

    /// Before the group's stores: the ±0/NaN test of the products [`Gen::ftz_collect`]
    /// made, added to the lanes that send the group to the slow copy.
    pub(super) fn ftz_tests(&mut self) {
        for (k, bits) in [(0, 32), (1, 64)] {
            let Some((level, flag)) = self
                .fast_copy()
                .map(|fc| (std::mem::take(&mut fc.ftz_products[k]), fc.ftz_flag))
            else {
                continue;
            };
            // With MXCSR.UE armed, a flushed result raised it: only the NaN rule is left to
            // test, two results per compare.
            if flag != FtzFlag::Off && !level.is_empty() {
                self.collect_nans(bits, &level);
                if let Some(fc) = self.fast_copy() {
                    fc.ftz_flag = FtzFlag::Used;
                }
                continue;
            }
            let mut level: Vec<Value> = level.iter().map(|c| self.as_f(bits, *c)).collect();
            // Multiplied pairwise (a tree of depth log2 n, not a chain of n - 1 multiplies:
            // the test's latency, not only its count, adds to every iteration's).
            while level.len() > 1 {
                let mut next = Vec::with_capacity(level.len().div_ceil(2));
                for pair in level.chunks(2) {
                    let mut xs = pair.iter().copied();
                    let p = xs.next().map(|a| match xs.next() {
                        Some(b) => self.b.ins().fmul(a, b),
                        None => a,
                    });
                    next.extend(p);
                }
                level = next;
            }
            let Some(&p) = level.first() else {
                continue;
            };
            // Constants of this copy's own (`Gen::slow_copy`), so they stay in registers.
            let abs = self.splat_const(
                bits,
                if bits == 32 {
                    0x7fff_ffff
                } else {
                    u64::MAX >> 1
                },
            );
            let abs = self.slow_copy(abs);
            let pi = self.as_i(bits, p);
            let a = self.b.ins().band(pi, abs);
            let af = self.as_f(bits, a);
            let zero = self.splat_const(bits, 0);
            let zero = self.slow_copy(zero);
            let zf = self.as_f(bits, zero);
            // |p| <= 0 or unordered: p is ±0 or NaN.
            let t = self
                .b
                .ins()
                .fcmp(FloatCC::UnorderedOrLessThanOrEqual, af, zf);
            self.add_nans(t);
        }
    }

    /// In the iterated form's fast copy under FTZ, before its iterations: clears MXCSR's
    /// status flags (the caller's MXCSR, saved in the frame, keeps its own) and arms the
    /// underflow flag as the test for flushed results ([`FtzFlag`]).
    pub(super) fn ftz_flag_arm(&mut self) {
        if !self.ftz || self.fast_copy().is_none() {
            return;
        }
        let Some(saved) = self.fenv_slot else {
            return;
        };
        let caller = self.b.ins().stack_load(types::I64, types::I32, saved, 0);
        let keep = !(mxcsr::STATUS_FLAGS | mxcsr::FTZ | mxcsr::RC_MASK);
        let kept = self.b.ins().band_imm_u(caller, i64::from(keep));
        let bits = i64::from(self.fenv_bits());
        let env = self.b.ins().bor_imm_u(kept, bits);
        let slot =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 4, 2));
        self.b.ins().stack_store(types::I64, env, slot, 0);
        self.fenv_call_with(mxcsr::h_fenv_leave as *const () as usize, slot, None);
        if let Some(fc) = self.fast_copy() {
            fc.ftz_flag = FtzFlag::Armed;
        }
    }

    /// After the iterations [`Gen::ftz_flag_arm`] armed: when a result relied on the flag,
    /// MXCSR.UE (set by every result the host flushed) sends the groups to the slow copy;
    /// the flag is disarmed.
    pub(super) fn ftz_flag_test(&mut self) {
        let Some(flag) = self.fast_copy().map(|fc| std::mem::take(&mut fc.ftz_flag)) else {
            return;
        };
        if flag != FtzFlag::Used {
            return;
        }
        // `h_fenv_enter` with this code's own environment only stores the MXCSR.
        let slot =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 4, 2));
        let env = self.fenv_bits();
        self.fenv_call_with(mxcsr::h_fenv_enter as *const () as usize, slot, Some(env));
        let m = self.b.ins().stack_load(types::I64, types::I32, slot, 0);
        let ue = self.b.ins().band_imm_u(m, i64::from(UNDERFLOW));
        let set = self.b.ins().icmp_imm_u(IntCC::NotEqual, ue, 0);
        let lanes = self.b.ins().bmask(types::I32, set);
        let lanes = self.b.ins().splat(I32X4, lanes);
        self.add_nans(lanes);
    }
}

/// How the fast copy of the iterated form under FTZ finds results the host flushed
/// (module doc): by their product (`Off`), or by MXCSR's underflow flag, which x86 sets
/// whenever FTZ returns a zero for a tiny result (SDM vol. 1, 10.2.3.3: FTZ acts only on
/// a masked underflow, which sets UE and PE). The flag costs two calls per group instead
/// of a multiply per result and iteration; a call into a helper in between (which loads
/// the caller's MXCSR and so its flags) disarms it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum FtzFlag {
    /// Products are tested.
    #[default]
    Off,
    /// The flags were cleared before the iterations and no call has loaded others since.
    Armed,
    /// Armed, and a result is left to the flag.
    Used,
}
