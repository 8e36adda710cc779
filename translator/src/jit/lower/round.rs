//! MODE.FP_ROUND's directed roundings (toward +∞, −∞ and zero) of f32 and f64 add, sub,
//! mul and fma ([`LaneFn::Rounded`]) as vector code in line.
//!
//! Each lane takes the round-to-nearest result `s` of the operation and the sign of its exact
//! error `x − s`, and steps `s` one unit in the last place (its bit pattern ± 1) when the
//! direction asks for it: toward +∞ when the error is positive, toward −∞ when negative,
//! toward zero when it has the opposite sign of `s`. The error is exact:
//!
//! * f32: operands are exact in f64 and a product of two has at most 48 bits, so the f64 sum
//!   (TwoSum), product or `a·b + c` (exact product, TwoSum) gives `x = s64 + e64` exactly;
//!   `s = RN32(s64)` and `x − s = (s64 − s) + e64`, where `s64 − s` is exact (they are within
//!   one f32 unit) and the rounded sum keeps the exact sign (all terms are multiples of
//!   2^-298, far inside f64's normal range).
//! * f64: TwoSum for add/sub, the FMA residual `fma(a, b, −s)` for mul, and Boldo and
//!   Muller's ErrFma for fma, the same error-free transformations as [`crate::sem::round`],
//!   under the conditions where that reference also uses them.
//!
//! An exact zero sum is −0 toward −∞ unless both addends are +0 (IEEE 754 6.3); rounding to
//! nearest gives the other directions' zero already. Lanes outside those conditions — a NaN
//! or infinite operand or result (overflow), an f64 product near or below the subnormal
//! range, or a huge f64 FMA product — are computed by the lane function itself
//! ([`crate::sem::lane_fn`]) on a cold path, four (f32) or two (f64) lanes at a time; in the
//! fast copy of a lane-group loop such a lane sends the group to the slow copy, as a NaN
//! result does. [`cold_lanes`] counts the lanes computed that way (on this thread), so tests
//! can check the in-line path is the one taken.
//!
//! A block whose directed roundings all go one direction and that qualifies otherwise
//! ([`super::fenv::host_round`]) runs under that direction as the host's MXCSR.RC; there
//! these ops are the host's own `fadd`/`fsub`/`fmul`/`fma` instead.

use super::{Gen, GenResult, I32X4, JV};
use crate::ir::{BinOp, LaneFn, Round, RoundedOp, TernOp, Ty, Val};
pub(crate) use crate::jit::analysis::runs::rounded_inline as inlined;
use crate::jit::codes::lanefn_code;
use crate::jit::helpers::{h_scalar, kind};
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use std::cell::Cell;

thread_local! {
    static COLD_LANES: Cell<u64> = const { Cell::new(0) };
}

/// How many lanes of in-line directed roundings took the cold path on this thread so far.
pub fn cold_lanes() -> u64 {
    COLD_LANES.with(Cell::get)
}

/// The cold path of one lane: the lane function `code` ([`h_scalar`]), counted.
pub(super) extern "C" fn h_rounded_lane(code: u32, wbits: u32, a: u64, b: u64, c: u64) -> u64 {
    COLD_LANES.with(|n| n.set(n.get() + 1));
    h_scalar(kind::LANEFN, code, wbits, a, b, c)
}

/// `2^e` as f64 bits.
fn pow2(e: i32) -> u64 {
    ((e + 1023) as u64) << 52
}

impl Gen<'_, '_> {
    /// The lane function `f` (one for which [`inlined`] holds) on `args`.
    pub(super) fn rounded_inline(&mut self, f: &LaneFn, args: &[Val]) -> GenResult<JV> {
        let LaneFn::Rounded(op, rm, _) = *f else {
            return Err("not a rounded op".into());
        };
        let wide = matches!(
            op,
            RoundedOp::AddF64 | RoundedOp::SubF64 | RoundedOp::MulF64 | RoundedOp::FmaF64
        );
        if self.rc == Some(rm) {
            // The block runs under this direction's RC (`lower::fenv`): the host's op.
            let t = if wide { Ty::V64 } else { Ty::V32 };
            let arg = |k: usize| args.get(k).copied().ok_or("rounded op operand missing");
            return match op {
                RoundedOp::AddF32 | RoundedOp::AddF64 => self.bin(BinOp::FAdd, arg(0)?, arg(1)?, t),
                RoundedOp::SubF32 | RoundedOp::SubF64 => self.bin(BinOp::FSub, arg(0)?, arg(1)?, t),
                RoundedOp::MulF32 | RoundedOp::MulF64 => self.bin(BinOp::FMul, arg(0)?, arg(1)?, t),
                _ => self.tern(TernOp::Fma, arg(0)?, arg(1)?, arg(2)?, t),
            };
        }
        let code = lanefn_code(f).ok_or("unknown lane function")?;
        let x = args
            .iter()
            .map(|a| self.v(*a))
            .collect::<GenResult<Vec<_>>>()?;
        let n = x.first().map_or(0, Vec::len);
        if x.iter().any(|c| c.len() != n) {
            return Err("rounded op operands of different widths".into());
        }
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let ops: Vec<Value> = x.iter().map(|c| c[k]).collect();
            let (r, cold) = if wide {
                self.round64(op, rm, &ops)
            } else {
                self.round32(op, rm, &ops)
            };
            let bits = if wide { 64 } else { 32 };
            out.push(self.cold_path(code, bits, &ops, r, cold));
        }
        Ok(JV::V(out))
    }

    /// `r` with the lanes set in `cold` recomputed by the lane function (module doc).
    fn cold_path(&mut self, code: u32, bits: u32, ops: &[Value], r: Value, cold: Value) -> Value {
        if self.fast_copy().is_some() {
            self.add_nans(cold);
            return r;
        }
        let any = self.b.ins().vany_true(cold);
        let slow = self.b.create_block();
        let join = self.b.create_block();
        self.b.set_cold_block(slow);
        if self.in_slow_copy() {
            self.b.set_cold_block(join);
        }
        let t = self.b.func.dfg.value_type(r);
        self.b.append_block_param(join, t);
        self.b
            .ins()
            .brif(any, slow, &[], join, &[BlockArg::Value(r)]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let (i32t, i64t) = (types::I32, types::I64);
        let codev = self.iconst(i32t, code as u64);
        let wbits = self.iconst(i32t, (bits | bits << 8) as u64);
        let zero = self.iconst(i64t, 0);
        let mut acc = r;
        for l in 0..(128 / bits) as u8 {
            let mut a = [zero; 3];
            for (slot, o) in a.iter_mut().zip(ops) {
                let x = self.b.ins().extractlane(*o, l);
                *slot = if bits == 32 {
                    self.b.ins().uextend(i64t, x)
                } else {
                    x
                };
            }
            let res = self
                .call(
                    h_rounded_lane as *const () as usize,
                    &[i32t, i32t, i64t, i64t, i64t],
                    Some(i64t),
                    &[codev, wbits, a[0], a[1], a[2]],
                )
                .unwrap_or(zero);
            let res = if bits == 32 {
                self.b.ins().ireduce(i32t, res)
            } else {
                res
            };
            acc = self.b.ins().insertlane(acc, res, l);
        }
        self.b.ins().jump(join, &[BlockArg::Value(acc)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }

    /// TwoSum of float vectors: `RN(a + b)` and the exact error.
    fn two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.b.ins().fadd(a, b);
        let bb = self.b.ins().fsub(s, a);
        let ab = self.b.ins().fsub(s, bb);
        let da = self.b.ins().fsub(a, ab);
        let db = self.b.ins().fsub(b, bb);
        let e = self.b.ins().fadd(da, db);
        (s, e)
    }

    /// The integer lanes `r` (round-to-nearest results) stepped one unit in direction `rm`
    /// where the exact error is positive (`pos`) or negative (`neg`): `+1` increases the
    /// magnitude, `-1` decreases it.
    fn step(&mut self, rm: Round, bits: u32, r: Value, pos: Value, neg: Value) -> Value {
        let zero = self.splat_const(bits, 0);
        let minus = self.b.ins().icmp(IntCC::SignedLessThan, r, zero);
        let (inc, dec) = match rm {
            Round::Up => (
                self.b.ins().band_not(pos, minus),
                self.b.ins().band(pos, minus),
            ),
            Round::Down => (
                self.b.ins().band(neg, minus),
                self.b.ins().band_not(neg, minus),
            ),
            _ => {
                // Toward zero: the error has the opposite sign of the result.
                let a = self.b.ins().band(pos, minus);
                let b = self.b.ins().band_not(neg, minus);
                (zero, self.b.ins().bor(a, b))
            }
        };
        // Masks are all ones (−1) in the lanes they select.
        let r = self.b.ins().isub(r, inc);
        self.b.ins().iadd(r, dec)
    }

    /// Toward −∞, an exact zero result (`r` ±0 where the error is zero) gets the sign of
    /// either addend (`sl`, `sr`: lanes with the addends' signs in the sign bit).
    fn zero_down(
        &mut self,
        bits: u32,
        r: Value,
        pos: Value,
        neg: Value,
        sl: Value,
        sr: Value,
    ) -> Value {
        let sign = if bits == 32 { 1 << 31 } else { 1 << 63 };
        let abs = self.splat_const(bits, !sign);
        let signv = self.splat_const(bits, sign);
        let zero = self.splat_const(bits, 0);
        let mag = self.b.ins().band(r, abs);
        let z = self.b.ins().icmp(IntCC::Equal, mag, zero);
        let inexact = self.b.ins().bor(pos, neg);
        let z = self.b.ins().band_not(z, inexact);
        let s = self.b.ins().bor(sl, sr);
        let s = self.b.ins().band(s, signv);
        let s = self.b.ins().band(s, z);
        self.b.ins().bor(r, s)
    }

    /// One `i32x4` chunk of an f32 op: the result and the lanes for the cold path.
    fn round32(&mut self, op: RoundedOp, rm: Round, ops: &[Value]) -> (Value, Value) {
        let sign = self.splat_const(32, 0x8000_0000);
        let a = ops[0];
        let b = if op == RoundedOp::SubF32 {
            self.b.ins().bxor(ops[1], sign)
        } else {
            ops[1]
        };
        let c = ops.get(2).copied();
        // The two f64 halves of each operand.
        let halves = |g: &mut Self, x: Value| -> [Value; 2] {
            let lo = g.as_f(32, x);
            let hi = g.shuffle32(x, x, [2, 3, 2, 3]);
            let hi = g.b.ins().bitcast(types::F32X4, super::le(), hi);
            [g.b.ins().fvpromote_low(lo), g.b.ins().fvpromote_low(hi)]
        };
        let (ah, bh) = (halves(self, a), halves(self, b));
        let ch = c.map(|c| halves(self, c));
        let mut s32 = Vec::with_capacity(2);
        let mut pos = Vec::with_capacity(2);
        let mut neg = Vec::with_capacity(2);
        let mut unsure = Vec::with_capacity(2);
        let zero64 = self.splat_const(64, 0);
        let zero64 = self.as_f(64, zero64);
        // The fast lane-group copy skips the error term: `s = RN64(x)` in one op, and where
        // `d = s - RN32(s)` is not zero it is a non-zero multiple of an f64 ulp of `s` (both
        // are multiples of it), larger than `|x - s|`, so its sign is that of `x - RN32(s)`.
        // Lanes with `d = 0` and `s != 0` (an f32 result that may be inexact) send the group
        // to the slow copy, which has the error term (`s = 0` is an exact zero).
        let fast = self.fast_copy().is_some() && op != RoundedOp::MulF32;
        for h in 0..2 {
            let (s, e) = match op {
                RoundedOp::MulF32 => (self.b.ins().fmul(ah[h], bh[h]), None),
                RoundedOp::FmaF32 if fast => {
                    let c = ch.map_or(zero64, |c| c[h]);
                    (self.b.ins().fma(ah[h], bh[h], c), None)
                }
                RoundedOp::FmaF32 => {
                    let p = self.b.ins().fmul(ah[h], bh[h]);
                    let c = ch.map_or(zero64, |c| c[h]);
                    let (s, e) = self.two_sum(p, c);
                    (s, Some(e))
                }
                _ if fast => (self.b.ins().fadd(ah[h], bh[h]), None),
                _ => {
                    let (s, e) = self.two_sum(ah[h], bh[h]);
                    (s, Some(e))
                }
            };
            let r = self.b.ins().fvdemote(s);
            let back = self.b.ins().fvpromote_low(r);
            let d = self.b.ins().fsub(s, back);
            let t = match e {
                Some(e) => self.b.ins().fadd(d, e),
                None => d,
            };
            if fast {
                let on_grid = self.b.ins().fcmp(FloatCC::Equal, d, zero64);
                let nonzero = self.b.ins().fcmp(FloatCC::NotEqual, s, zero64);
                unsure.push(self.b.ins().band(on_grid, nonzero));
            }
            s32.push(r);
            pos.push(self.b.ins().fcmp(FloatCC::GreaterThan, t, zero64));
            neg.push(self.b.ins().fcmp(FloatCC::LessThan, t, zero64));
        }
        let narrow = |g: &mut Self, x: &[Value], lanes: [u8; 4]| {
            let r = g.shuffle32(x[0], x[1], lanes);
            g.b.ins().bitcast(I32X4, super::le(), r)
        };
        let r = narrow(self, &s32, [0, 1, 4, 5]);
        let pos = narrow(self, &pos, [0, 2, 4, 6]);
        let neg = narrow(self, &neg, [0, 2, 4, 6]);
        let exp = self.splat_const(32, 0x7f80_0000);
        let e = self.b.ins().band(r, exp);
        let mut cold = self.b.ins().icmp(IntCC::Equal, e, exp);
        if fast {
            let u = narrow(self, &unsure, [0, 2, 4, 6]);
            cold = self.b.ins().bor(cold, u);
        }
        let mut out = self.step(rm, 32, r, pos, neg);
        if rm == Round::Down && op != RoundedOp::MulF32 {
            let (sl, sr) = match (op, c) {
                (RoundedOp::FmaF32, Some(c)) => (self.b.ins().bxor(a, b), c),
                _ => (a, b),
            };
            out = self.zero_down(32, out, pos, neg, sl, sr);
        }
        (out, cold)
    }

    /// One `i64x2` chunk of an f64 op: the result and the lanes for the cold path.
    fn round64(&mut self, op: RoundedOp, rm: Round, ops: &[Value]) -> (Value, Value) {
        let sign = self.splat_const(64, 1 << 63);
        let absm = self.splat_const(64, !(1u64 << 63));
        let b_bits = if op == RoundedOp::SubF64 {
            self.b.ins().bxor(ops[1], sign)
        } else {
            ops[1]
        };
        let a = self.as_f(64, ops[0]);
        let b = self.as_f(64, b_bits);
        let c = ops.get(2).map(|&c| self.as_f(64, c));
        let zero = self.splat_const(64, 0);
        let zf = self.as_f(64, zero);
        let inf = self.splat_const(64, 0x7ff0_0000_0000_0000);
        let inf = self.as_f(64, inf);
        let tiny = self.splat_const(64, pow2(-968));
        let tiny = self.as_f(64, tiny);
        // |x| as a float (the sign bit cleared).
        let fabs = |g: &mut Self, x: Value| {
            let i = g.as_i(64, x);
            let m = g.b.ins().band(i, absm);
            g.as_f(64, m)
        };
        // Lanes where a product `p` of non-zero factors is near or below the subnormals.
        let tiny_product = |g: &mut Self, p: Value| {
            let ap = fabs(g, p);
            let small = g.b.ins().fcmp(FloatCC::LessThan, ap, tiny);
            let na = g.b.ins().fcmp(FloatCC::NotEqual, a, zf);
            let nb = g.b.ins().fcmp(FloatCC::NotEqual, b, zf);
            let nz = g.b.ins().band(na, nb);
            g.b.ins().band(small, nz)
        };
        let (s, e, extra) = match (op, c) {
            (RoundedOp::MulF64, _) => {
                let s = self.b.ins().fmul(a, b);
                let ns = self.b.ins().fneg(s);
                let e = self.b.ins().fma(a, b, ns);
                (s, e, Some(tiny_product(self, s)))
            }
            (RoundedOp::FmaF64, Some(c)) => {
                // ErrFma: a·b + c = r1 + r2 + r3 exactly; the error is r2 + r3.
                let r1 = self.b.ins().fma(a, b, c);
                let u1 = self.b.ins().fmul(a, b);
                let nu1 = self.b.ins().fneg(u1);
                let u2 = self.b.ins().fma(a, b, nu1);
                let (a1, z) = self.two_sum(c, u2);
                let (b1, b2) = self.two_sum(u1, a1);
                let g = self.b.ins().fsub(b1, r1);
                let g = self.b.ins().fadd(g, b2);
                let r2 = self.b.ins().fadd(g, z);
                let t = self.b.ins().fsub(r2, g);
                let r3 = self.b.ins().fsub(z, t);
                let e = self.b.ins().fadd(r2, r3);
                let huge = self.splat_const(64, pow2(1000));
                let huge = self.as_f(64, huge);
                let au1 = fabs(self, u1);
                let big = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, au1, huge);
                let small = tiny_product(self, u1);
                (r1, e, Some(self.b.ins().bor(big, small)))
            }
            _ => {
                let (s, e) = self.two_sum(a, b);
                (s, e, None)
            }
        };
        // A non-finite result, or an error term that overflowed in a step.
        let abs_s = fabs(self, s);
        let abs_e = fabs(self, e);
        let fs = self.b.ins().fcmp(FloatCC::LessThan, abs_s, inf);
        let fe = self.b.ins().fcmp(FloatCC::LessThan, abs_e, inf);
        let finite = self.b.ins().band(fs, fe);
        let mut cold = self.b.ins().bnot(finite);
        if let Some(x) = extra {
            cold = self.b.ins().bor(cold, x);
        }
        let pos = self.b.ins().fcmp(FloatCC::GreaterThan, e, zf);
        let neg = self.b.ins().fcmp(FloatCC::LessThan, e, zf);
        let r = self.as_i(64, s);
        let mut out = self.step(rm, 64, r, pos, neg);
        if rm == Round::Down && op != RoundedOp::MulF64 {
            let (sl, sr) = match ops.get(2) {
                Some(&c) if op == RoundedOp::FmaF64 => (self.b.ins().bxor(ops[0], ops[1]), c),
                _ => (ops[0], b_bits),
            };
            out = self.zero_down(64, out, pos, neg, sl, sr);
        }
        (out, cold)
    }
}
