//! Lane functions of f32 division and `v_exp_f32` as vector code in line
//! ([`inlined`]): `v_div_scale_f32` (GFX9 and RDNA rules, value and VCC flag),
//! `v_div_fmas_f32`, `v_div_fixup_f32` and `v_exp_f32`, which compiled f32 division, softmax
//! and layer norm run on every lane; and f32 `ldexp` ([`crate::ir::BinOp::FLdexp`], exact
//! through f64, no cold path).
//!
//! Each computes the ordinary lanes' result with a few vector instructions and a test of
//! which lanes are ordinary; any other lane (zeros, denormals, infinities, NaNs, exponent
//! gaps that make the instruction scale, a VCC-scaled FMA, an `exp` result near an f32
//! rounding boundary) is computed by the lane function itself ([`crate::sem::lane_fn`]) on a
//! cold path, four lanes at a time; in the fast copy of a lane-group loop such a lane sends
//! the group to the slow copy, as a NaN result does. So the result is the lane function's,
//! bit for bit. [`cold_lanes`] counts the lanes computed the slow way (on this thread).
//!
//! Ordinary lanes (`e0`, `e1`, `e2`: the biased exponent fields of S0, S1, S2):
//! * `v_div_scale_f32` (GFX9, [`crate::sem::div_scale32`]): `1 ≤ e1 ≤ 254`, `24 ≤ e2 ≤ 254`
//!   and `−124 ≤ e2 − e1 ≤ 95`: no operand is zero, denormal, infinite or NaN, S2's exponent
//!   is above 23 and the quotient is a normal number below 2^96, so no rule scales and the
//!   result is S0 with VCC clear.
//! * `v_div_scale_f32` (RDNA, [`crate::sem::div_scale32_rdna`]): `1 ≤ e1 ≤ 252`,
//!   `25 ≤ e2 ≤ 254`, `|e2 − e1| < 96` and S0 not NaN: S0 unchanged (`ldexp(S0, 0)`), VCC
//!   clear.
//! * `v_div_fmas_f32`: VCC clear and a non-NaN FMA result (so no NaN operand): the FMA.
//! * `v_div_fixup_f32` ([`crate::sem::div_fixup32`]): `1 ≤ e1, e2 ≤ 254`,
//!   `e2 − e1 ≥ −150` and `e0 ≠ 255`: S0's magnitude with the sign of S1 × S2.
//! * `v_exp_f32` (`2^x` in f64 rounded to f32, [`crate::sem::lane_fn`]): `−125 ≤ x < 128`
//!   and a result not near an f32 rounding boundary. `2^x = 2^n · 2^f` with `n` the nearest
//!   integer and `f = x − n` (exact, `|f| ≤ 1/2`); `2^f` is the Taylor polynomial of
//!   `e^(f ln 2)` to degree 11 (truncation below 2^-47 relative, Horner with FMA), scaled by
//!   `2^n` exactly. Its relative error is below 2^-45, and the reference's f64 `exp2` is
//!   within one f64 unit of the exact value, so both round to the same f32 unless the f64
//!   result lies within 2^12 f64 units of an f32 rounding boundary (a halfway point: the low
//!   29 bits of the f64 significand are `0x1000_0000`); those lanes take the cold path.
//!   Results are at least 2^-125, so f32 rounding is that of normal numbers.

use super::{Gen, GenResult, I32X4, I64X2, JV};
use crate::ir::{LaneFn, Val};
pub(crate) use crate::jit::analysis::runs::lanefn_inline as inlined;
use crate::jit::codes::{lanefn_code, lanefn_of};
use crate::sem;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};
use std::cell::Cell;

thread_local! {
    static COLD_LANES: Cell<u64> = const { Cell::new(0) };
}

/// How many lanes of in-line lane functions took the cold path on this thread so far.
pub fn cold_lanes() -> u64 {
    COLD_LANES.with(Cell::get)
}

/// The cold path of one lane: the lane function `code` on `a, b, c, d` (32-bit lanes),
/// counted.
pub(super) extern "C" fn h_lanefn_lane(code: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
    COLD_LANES.with(|n| n.set(n.get() + 1));
    let args = [a, b, c, d].map(u64::from);
    lanefn_of(code).map_or(0, |f| sem::lane_fn(f, args) as u32)
}

/// The Taylor coefficients `ln(2)^k / k!`, k = 0..=11, of `2^f = e^(f ln 2)`.
fn exp2_coefficients() -> [f64; 12] {
    let mut c = [1.0f64; 12];
    for k in 1..12 {
        c[k] = c[k - 1] * core::f64::consts::LN_2 / k as f64;
    }
    c
}

impl Gen<'_, '_> {
    /// The lane function `f` (one for which [`inlined`] holds) on `args`.
    pub(super) fn lanefn_inline(&mut self, f: &LaneFn, args: &[Val]) -> GenResult<JV> {
        let code = lanefn_code(f).ok_or("unknown lane function")?;
        let x = args
            .iter()
            .map(|a| self.v(*a))
            .collect::<GenResult<Vec<_>>>()?;
        // The operands each in-line form reads (the lifter's arity; malformed IR is an error).
        let reads = match f {
            LaneFn::DivFmasF32 => 4,
            LaneFn::Exp2F32 => 1,
            _ => 3,
        };
        if x.len() < reads {
            return Err("lane function with too few operands".into());
        }
        let n = x.first().map_or(0, Vec::len);
        if x.iter().any(|c| c.len() != n) || self.nch(32) != n {
            return Err("lane function operands of other widths".into());
        }
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let ops: Vec<Value> = x.iter().map(|c| c[k]).collect();
            let (r, ok) = match f {
                LaneFn::DivScaleF32 | LaneFn::DivScaleF32Flag => self.div_scale_gfx9(&ops),
                LaneFn::DivScaleF32Rdna | LaneFn::DivScaleF32RdnaFlag => self.div_scale_rdna(&ops),
                LaneFn::DivFmasF32 => self.div_fmas(&ops),
                LaneFn::DivFixupF32 => self.div_fixup(&ops),
                LaneFn::Exp2F32 => self.exp2(&ops),
                _ => return Err("lane function not in line".into()),
            };
            // The flag forms give VCC, clear on ordinary lanes.
            let r = if matches!(f, LaneFn::DivScaleF32Flag | LaneFn::DivScaleF32RdnaFlag) {
                self.splat_const(32, 0)
            } else {
                r
            };
            let cold = self.b.ins().bnot(ok);
            out.push(self.lanefn_cold(code, &ops, r, cold));
        }
        Ok(JV::V(out))
    }

    /// The biased exponent field of each lane of `x` (`i32x4`).
    fn exp_field(&mut self, x: Value) -> Value {
        let s = self.b.ins().ushr_imm_u(x, 23);
        let m = self.splat_const(32, 0xFF);
        self.b.ins().band(s, m)
    }

    /// Lanes with `lo ≤ x ≤ hi` (signed, all ones).
    fn in_range(&mut self, x: Value, lo: i32, hi: i32) -> Value {
        let l = self.splat_const(32, (lo - 1) as u32 as u64);
        let h = self.splat_const(32, (hi + 1) as u32 as u64);
        let a = self.b.ins().icmp(IntCC::SignedGreaterThan, x, l);
        let b = self.b.ins().icmp(IntCC::SignedLessThan, x, h);
        self.b.ins().band(a, b)
    }

    /// `v_div_scale_f32` on GFX9: S0 and the ordinary lanes (module doc).
    fn div_scale_gfx9(&mut self, ops: &[Value]) -> (Value, Value) {
        let (e1, e2) = (self.exp_field(ops[1]), self.exp_field(ops[2]));
        let d = self.b.ins().isub(e2, e1);
        let a = self.in_range(e1, 1, 254);
        let b = self.in_range(e2, 24, 254);
        let c = self.in_range(d, -124, 95);
        let ab = self.b.ins().band(a, b);
        (ops[0], self.b.ins().band(ab, c))
    }

    /// `v_div_scale_f32` on RDNA: S0 and the ordinary lanes (module doc).
    fn div_scale_rdna(&mut self, ops: &[Value]) -> (Value, Value) {
        let (e1, e2) = (self.exp_field(ops[1]), self.exp_field(ops[2]));
        let d = self.b.ins().isub(e2, e1);
        let a = self.in_range(e1, 1, 252);
        let b = self.in_range(e2, 25, 254);
        let c = self.in_range(d, -95, 95);
        let f = self.b.ins().bitcast(types::F32X4, super::le(), ops[0]);
        let num = self.b.ins().fcmp(FloatCC::Ordered, f, f);
        let ab = self.b.ins().band(a, b);
        let cn = self.b.ins().band(c, num);
        (ops[0], self.b.ins().band(ab, cn))
    }

    /// `v_div_fmas_f32`: the FMA and the ordinary lanes (VCC clear, result not NaN).
    fn div_fmas(&mut self, ops: &[Value]) -> (Value, Value) {
        let f: Vec<Value> = ops[..3]
            .iter()
            .map(|&x| self.b.ins().bitcast(types::F32X4, super::le(), x))
            .collect();
        let r = self.b.ins().fma(f[0], f[1], f[2]);
        let num = self.b.ins().fcmp(FloatCC::Ordered, r, r);
        let zero = self.splat_const(32, 0);
        let clear = self.b.ins().icmp(IntCC::Equal, ops[3], zero);
        let r = self.b.ins().bitcast(I32X4, super::le(), r);
        (r, self.b.ins().band(num, clear))
    }

    /// `v_div_fixup_f32`: S0's magnitude with the quotient's sign, and the ordinary lanes.
    fn div_fixup(&mut self, ops: &[Value]) -> (Value, Value) {
        let (e0, e1, e2) = (
            self.exp_field(ops[0]),
            self.exp_field(ops[1]),
            self.exp_field(ops[2]),
        );
        let d = self.b.ins().isub(e2, e1);
        let a = self.in_range(e1, 1, 254);
        let b = self.in_range(e2, 1, 254);
        let c = self.in_range(d, -150, 253);
        let e = self.in_range(e0, 0, 254);
        let ab = self.b.ins().band(a, b);
        let ce = self.b.ins().band(c, e);
        let ok = self.b.ins().band(ab, ce);
        let sign = self.splat_const(32, sem::F32_SIGN as u64);
        let s = self.b.ins().bxor(ops[1], ops[2]);
        let r = self.b.ins().bitselect(sign, s, ops[0]);
        (r, ok)
    }

    /// `v_exp_f32`: `2^x` through f64 on two lanes at a time, and the ordinary lanes
    /// (module doc).
    fn exp2(&mut self, ops: &[Value]) -> (Value, Value) {
        let x = self.b.ins().bitcast(types::F32X4, super::le(), ops[0]);
        let lo = self.b.ins().fvpromote_low(x);
        let hi_lanes = self.shuffle32(ops[0], ops[0], [2, 3, 2, 3]);
        let hi_lanes = self.b.ins().bitcast(types::F32X4, super::le(), hi_lanes);
        let hi = self.b.ins().fvpromote_low(hi_lanes);
        let (ylo, nlo) = self.exp2_f64(lo);
        let (yhi, nhi) = self.exp2_f64(hi);
        // Both halves rounded to f32 (`fvdemote` fills lanes 0..1) and put together.
        let rlo = self.b.ins().fvdemote(ylo);
        let rhi = self.b.ins().fvdemote(yhi);
        let rlo = self.b.ins().bitcast(I32X4, super::le(), rlo);
        let rhi = self.b.ins().bitcast(I32X4, super::le(), rhi);
        let r = self.shuffle32(rlo, rhi, [0, 1, 4, 5]);
        let r = self.b.ins().bitcast(I32X4, super::le(), r);
        // Near-boundary lanes: 64-bit masks to 32-bit lanes.
        let near = self.shuffle32(nlo, nhi, [0, 2, 4, 6]);
        let near = self.b.ins().bitcast(I32X4, super::le(), near);
        let lo_ok = self.splat_const(32, (-125.0f32).to_bits() as u64);
        let hi_ok = self.splat_const(32, 128.0f32.to_bits() as u64);
        let lo_ok = self.b.ins().bitcast(types::F32X4, super::le(), lo_ok);
        let hi_ok = self.b.ins().bitcast(types::F32X4, super::le(), hi_ok);
        let a = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, x, lo_ok);
        let b = self.b.ins().fcmp(FloatCC::LessThan, x, hi_ok);
        let ab = self.b.ins().band(a, b);
        let ab = self.b.ins().bitcast(I32X4, super::le(), ab);
        (r, self.b.ins().band_not(ab, near))
    }

    /// `2^x` of two f64 lanes holding f32 values (module doc), and the lanes whose result
    /// is near an f32 rounding boundary (`i64x2`, all ones). Lanes outside the ordinary range
    /// give garbage the caller discards.
    fn exp2_f64(&mut self, x: Value) -> (Value, Value) {
        let f64x2 = types::F64X2;
        let splat_f = |g: &mut Self, v: f64| {
            let c = g.splat_const(64, v.to_bits());
            g.b.ins().bitcast(f64x2, super::le(), c)
        };
        // `x + 1.5·2^52` rounds x to an integer (nearest even) in the low significand bits.
        let magic = splat_f(self, 6755399441055744.0);
        let t = self.b.ins().fadd(x, magic);
        let n = self.b.ins().fsub(t, magic);
        let f = self.b.ins().fsub(x, n);
        let c = exp2_coefficients();
        let mut p = splat_f(self, c[11]);
        for &ck in c[..11].iter().rev() {
            let ckv = splat_f(self, ck);
            p = self.b.ins().fma(p, f, ckv);
        }
        // 2^n: the low bits of t's pattern hold n (two's complement in the significand);
        // (bits + 1023) << 52 keeps the 11-bit biased exponent n + 1023.
        let tb = self.b.ins().bitcast(I64X2, super::le(), t);
        let bias = self.splat_const(64, 1023);
        let e = self.b.ins().iadd(tb, bias);
        let e = self.b.ins().ishl_imm_u(e, 52);
        let scale = self.b.ins().bitcast(f64x2, super::le(), e);
        let y = self.b.ins().fmul(p, scale);
        let yb = self.b.ins().bitcast(I64X2, super::le(), y);
        let low = self.splat_const(64, 0x1FFF_FFFF);
        let low = self.b.ins().band(yb, low);
        // low - 0x1000_0000 + 2^12 in [0, 2^13): within 2^12 units of the halfway point.
        let off = self.splat_const(64, (0x1000_0000u64 - 0x1000).wrapping_neg());
        let d = self.b.ins().iadd(low, off);
        let lim = self.splat_const(64, 0x2000);
        let neg1 = self.splat_const(64, u64::MAX);
        let ge0 = self.b.ins().icmp(IntCC::SignedGreaterThan, d, neg1);
        let lt = self.b.ins().icmp(IntCC::SignedLessThan, d, lim);
        (y, self.b.ins().band(ge0, lt))
    }

    /// `ldexp` of f32 lanes `x` by the signed 32-bit lanes `k` ([`crate::sem::ldexp32`]):
    /// `k` clamped to ±400, `x · 2^k` in f64 (exact: every f32 times such a power of two is
    /// a normal f64) rounded once to f32; NaNs quieted.
    pub(super) fn ldexp32_chunk(&mut self, x: Value, k: Value) -> Value {
        let lim = self.splat_const(32, 400);
        let k = self.b.ins().smin(k, lim);
        let lim = self.splat_const(32, (-400i32) as u32 as u64);
        let k = self.b.ins().smax(k, lim);
        let xf = self.b.ins().bitcast(types::F32X4, super::le(), x);
        let x_hi = self.shuffle32(x, x, [2, 3, 2, 3]);
        let x_hi = self.b.ins().bitcast(types::F32X4, super::le(), x_hi);
        let mut halves = Vec::with_capacity(2);
        for (xs, ks) in [
            (xf, self.b.ins().swiden_low(k)),
            (x_hi, self.b.ins().swiden_high(k)),
        ] {
            let wide = self.b.ins().fvpromote_low(xs);
            let bias = self.splat_const(64, 1023);
            let e = self.b.ins().iadd(ks, bias);
            let e = self.b.ins().ishl_imm_u(e, 52);
            let scale = self.b.ins().bitcast(types::F64X2, super::le(), e);
            let y = self.b.ins().fmul(wide, scale);
            let y = self.b.ins().fvdemote(y);
            halves.push(self.b.ins().bitcast(I32X4, super::le(), y));
        }
        let r = self.shuffle32(halves[0], halves[1], [0, 1, 4, 5]);
        let r = self.b.ins().bitcast(I32X4, super::le(), r);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, xf, xf);
        let quiet = self.splat_const(32, sem::F32_QUIET as u64);
        let q = self.b.ins().bor(x, quiet);
        self.b.ins().bitselect(nan, q, r)
    }

    /// `r` with the lanes set in `cold` recomputed by the lane function `code` of the four
    /// lanes of `ops` (module doc).
    fn lanefn_cold(&mut self, code: u32, ops: &[Value], r: Value, cold: Value) -> Value {
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
        self.b.append_block_param(join, I32X4);
        self.b
            .ins()
            .brif(any, slow, &[], join, &[BlockArg::Value(r)]);
        self.b.switch_to_block(slow);
        self.b.seal_block(slow);
        let i32t = types::I32;
        let codev = self.iconst(i32t, code as u64);
        let zero = self.iconst(i32t, 0);
        let mut acc = r;
        for l in 0..4u8 {
            let mut a = [zero; 4];
            for (slot, o) in a.iter_mut().zip(ops) {
                *slot = self.b.ins().extractlane(*o, l);
            }
            let res = self
                .call(
                    h_lanefn_lane as *const () as usize,
                    &[i32t; 5],
                    Some(i32t),
                    &[codev, a[0], a[1], a[2], a[3]],
                )
                .unwrap_or(zero);
            acc = self.b.ins().insertlane(acc, res, l);
        }
        self.b.ins().jump(join, &[BlockArg::Value(acc)]);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join)[0]
    }
}
