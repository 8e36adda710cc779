//! The loop variant's float results flushed by the host: x86 MXCSR.FTZ
//! ([`crate::jit::mxcsr`]) in place of a vector flush per result.
//!
//! A block's loop variant ([`crate::ir::passes::flush::loop_variant`]) that
//! [`flush::ftz_ready`] accepts runs with FTZ set from its start to every return, tail call
//! and helper call (which switch it off first, and on again after a call). Its lane-group
//! loops' fast copies compute f32/f64 adds, multiplies and FMAs ([`flush::ftz_op`]) and
//! take the host's result for the op's output flush ([`flush::flushed_value`]); the slow
//! copies run with FTZ off and keep the flush.
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

use super::{Gen, GenResult, JV};
use crate::ir::passes::flush;
use crate::jit::mxcsr;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_codegen::isa::CallConv;

impl Gen<'_, '_> {
    /// Calls [`mxcsr::h_ftz_on`] or [`mxcsr::h_ftz_off`] (directly: not through
    /// [`Gen::call`], which wraps calls made under FTZ in these).
    pub(super) fn ftz_switch(&mut self, on: bool) {
        let f = if on {
            mxcsr::h_ftz_on as *const () as usize
        } else {
            mxcsr::h_ftz_off as *const () as usize
        };
        // Neither function changes a register: values live across the call stay in
        // registers (no spills in the loops around these calls).
        let sig = cranelift_codegen::ir::Signature::new(CallConv::PreserveAll);
        let sigref = self.b.import_signature(sig);
        let callee = self.iconst(types::I64, f as u64);
        self.b.ins().call_indirect(sigref, callee, &[]);
    }

    /// Before a return or tail call: FTZ off when the code runs with it on.
    pub(super) fn leave_ftz(&mut self) {
        if self.ftz {
            self.ftz_switch(false);
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
        for c in r {
            let f = self.as_f(bits, *c);
            let prev = self.fast_copy().and_then(|fc| fc.ftz_products[k]);
            let p = match prev {
                Some(p) => self.b.ins().fmul(p, f),
                None => f,
            };
            if let Some(fc) = self.fast_copy() {
                fc.ftz_products[k] = Some(p);
            }
        }
        Ok(true)
    }

    /// Before the group's stores: the ±0/NaN test of the products [`Gen::ftz_collect`]
    /// made, added to the lanes that send the group to the slow copy.
    pub(super) fn ftz_tests(&mut self) {
        for (k, bits) in [(0, 32), (1, 64)] {
            let Some(p) = self.fast_copy().and_then(|fc| fc.ftz_products[k].take()) else {
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
}
