//! Arithmetic, logic and comparisons (`Un`, `Bin`, `Tern`, `Cmp`), scalar and vector.

use super::{le, sty, Gen, GenResult, I32X4, JV};
use crate::ir::{BinOp, CmpOp, ConvOp, Op, TernOp, Ty, UnOp, Val};
use crate::jit::analysis::runs::scalar_bin_inline;
use crate::jit::codes::*;
use crate::jit::helpers::kind;
use crate::sem;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

impl Gen<'_, '_> {
    pub(super) fn un(&mut self, u: UnOp, a: Val, t: Ty) -> GenResult<JV> {
        let bits = t.bits();
        let code = code_of(&UNOPS, &u).ok_or("unknown unary op")?;
        if !t.is_vector() {
            let x = self.s(a)?;
            return match self.scalar_un(u, bits, x) {
                Some(r) => Ok(JV::S(r)),
                None => self.scalar_helper(kind::UN, code, bits, &[a], bits),
            };
        }
        let x = self.v(a)?;
        let mut out = Vec::new();
        match u {
            UnOp::Not | UnOp::Neg | UnOp::FNeg | UnOp::FAbs | UnOp::FSqrt => {
                for &c in &x {
                    out.push(match u {
                        UnOp::Not => self.b.ins().bnot(c),
                        UnOp::Neg => self.b.ins().ineg(c),
                        UnOp::FNeg => {
                            let s = self.splat_const(bits, sign(bits));
                            self.b.ins().bxor(c, s)
                        }
                        UnOp::FAbs => {
                            let s = self.splat_const(bits, !sign(bits));
                            self.b.ins().band(c, s)
                        }
                        _ => {
                            let f = self.as_f(bits, c);
                            let r = self.b.ins().sqrt(f);
                            self.as_i(bits, r)
                        }
                    });
                }
                if u == UnOp::FSqrt {
                    out = self.nan_fix_all(bits, &[x], out);
                }
            }
            UnOp::Popcnt | UnOp::Clz | UnOp::Ctz | UnOp::BitReverse => {
                out = self.per_lane(bits, &[x], |g, xs| g.scalar_un(u, bits, xs[0]))?;
            }
            UnOp::FFloor | UnOp::FCeil | UnOp::FTrunc | UnOp::FRoundEven | UnOp::FRcp => {
                for &c in &x {
                    let f = self.as_f(bits, c);
                    let r = match u {
                        UnOp::FFloor => self.b.ins().floor(f),
                        UnOp::FCeil => self.b.ins().ceil(f),
                        UnOp::FTrunc => self.b.ins().trunc(f),
                        UnOp::FRoundEven => self.b.ins().nearest(f),
                        _ => {
                            let one = if bits == 32 {
                                1.0f32.to_bits() as u64
                            } else {
                                1.0f64.to_bits()
                            };
                            let one = self.splat_const(bits, one);
                            let one = self.as_f(bits, one);
                            self.b.ins().fdiv(one, f)
                        }
                    };
                    out.push(self.as_i(bits, r));
                }
                out = self.nan_fix_all(bits, &[x], out);
            }
            UnOp::FQuiet => {
                let q = if bits == 32 {
                    sem::F32_QUIET as u64
                } else {
                    sem::F64_QUIET
                };
                let qv = self.splat_const(bits, q);
                for &c in &x {
                    let f = self.as_f(bits, c);
                    let n = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                    let cq = self.b.ins().bor(c, qv);
                    out.push(self.b.ins().bitselect(n, cq, c));
                }
            }
            _ => return self.vec_helper(kind::UN, code, bits, &[a], bits, false),
        }
        Ok(JV::V(out))
    }

    /// Inline scalar unary op, `None` when it needs the helper.
    pub(super) fn scalar_un(&mut self, u: UnOp, bits: u32, x: Value) -> Option<Value> {
        Some(match u {
            UnOp::Not => self.b.ins().bnot(x),
            UnOp::Neg => self.b.ins().ineg(x),
            UnOp::Popcnt => self.b.ins().popcnt(x),
            UnOp::Clz => self.b.ins().clz(x),
            UnOp::Ctz => self.b.ins().ctz(x),
            UnOp::BitReverse => self.b.ins().bitrev(x),
            UnOp::FNeg => {
                let s = self.iconst(sty(bits), sign(bits));
                self.b.ins().bxor(x, s)
            }
            UnOp::FAbs => {
                let s = self.iconst(sty(bits), !sign(bits));
                self.b.ins().band(x, s)
            }
            _ => return None,
        })
    }

    /// Inline scalar binary op, `None` when it needs the helper (see [`scalar_bin_inline`]).
    pub(super) fn scalar_bin(&mut self, o: BinOp, bits: u32, x: Value, y: Value) -> Option<Value> {
        Some(match o {
            BinOp::Add => self.b.ins().iadd(x, y),
            BinOp::Sub => self.b.ins().isub(x, y),
            BinOp::Mul => self.b.ins().imul(x, y),
            BinOp::MulHiU => self.b.ins().umulhi(x, y),
            BinOp::MulHiS => self.b.ins().smulhi(x, y),
            BinOp::And => self.b.ins().band(x, y),
            BinOp::Or => self.b.ins().bor(x, y),
            BinOp::Xor => self.b.ins().bxor(x, y),
            // Cranelift takes scalar shift amounts modulo the width, as the IR does.
            BinOp::Shl => self.b.ins().ishl(x, y),
            BinOp::LShr => self.b.ins().ushr(x, y),
            BinOp::AShr => self.b.ins().sshr(x, y),
            BinOp::UMin => self.b.ins().umin(x, y),
            BinOp::UMax => self.b.ins().umax(x, y),
            BinOp::SMin => self.b.ins().smin(x, y),
            BinOp::SMax => self.b.ins().smax(x, y),
            BinOp::AddCarry => {
                let s = self.b.ins().iadd(x, y);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, s, x);
                self.b.ins().uextend(sty(bits), c)
            }
            BinOp::SubBorrow => {
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, x, y);
                self.b.ins().uextend(sty(bits), c)
            }
            BinOp::FCopySign => {
                let m = self.iconst(sty(bits), sign(bits));
                self.b.ins().bitselect(m, y, x)
            }
            _ => return None,
        })
    }

    /// Applies a scalar computation to every lane of the chunks of `args`.
    pub(super) fn per_lane(
        &mut self,
        bits: u32,
        args: &[Vec<Value>],
        f: impl Fn(&mut Self, &[Value]) -> Option<Value>,
    ) -> GenResult<Vec<Value>> {
        let n = args.first().map_or(0, |a| a.len());
        let lanes = if bits == 32 { 4 } else { 2 };
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let mut acc = self.splat_const(bits, 0);
            for l in 0..lanes {
                let xs: Vec<Value> = args
                    .iter()
                    .map(|a| self.b.ins().extractlane(a[k], l as u8))
                    .collect();
                let r = f(self, &xs).ok_or("per-lane op")?;
                acc = self.b.ins().insertlane(acc, r, l as u8);
            }
            out.push(acc);
        }
        Ok(out)
    }

    pub(super) fn bin(&mut self, o: BinOp, a: Val, b: Val, t: Ty) -> GenResult<JV> {
        let bits = t.bits();
        let code = code_of(&BINOPS, &o).ok_or("unknown binary op")?;
        if !t.is_vector() {
            let (x, y) = (self.s(a)?, self.s(b)?);
            return match self.scalar_bin(o, bits, x, y) {
                Some(r) => Ok(JV::S(r)),
                None => self.scalar_helper(kind::BIN, code, bits, &[a, b], bits),
            };
        }
        if let Some(e) = self.nonzero_mask_source(o, a, b, bits) {
            // `e != 0` (`e > 0`, as `e` is not negative) as all-ones lanes: one compare
            // instead of an add and a shift.
            let x = self.v(e)?;
            // A zero of this loop copy's own (`slow_copy`): shared with the other copies,
            // it is spilled and reloaded at every use.
            let zero = self.splat_const(bits, 0);
            let zero = self.slow_copy(zero);
            let out = x
                .iter()
                .map(|&c| self.b.ins().icmp(IntCC::SignedGreaterThan, c, zero))
                .collect();
            return Ok(JV::V(out));
        }
        let (x, mut y) = (self.v(a)?, self.v(b)?);
        if y.len() != x.len() {
            // A shift amount / exponent of the other width: only its low bits matter.
            y = if y.len() < x.len() {
                let mut w = Vec::with_capacity(x.len());
                for c in &y {
                    w.push(self.b.ins().uwiden_low(*c));
                    w.push(self.b.ins().uwiden_high(*c));
                }
                w
            } else {
                let mut w = Vec::with_capacity(x.len());
                for k in 0..y.len() / 2 {
                    let r = self.shuffle32(y[2 * k], y[2 * k + 1], [0, 2, 4, 6]);
                    w.push(self.b.ins().bitcast(I32X4, le(), r));
                }
                w
            };
        }
        if o == BinOp::FLdexp && bits == 32 {
            let out = (0..self.nch(32))
                .map(|k| self.ldexp32_chunk(x[k], y[k]))
                .collect();
            return Ok(JV::V(out));
        }
        // A uniform shift amount (a broadcast, or a broadcast widened or narrowed: the low
        // bits that count are the scalar's) shifts every lane by the same scalar.
        let src = match self.block.ops.get(b.0 as usize) {
            Some(Op::Conv(ConvOp::ZExt | ConvOp::SExt | ConvOp::Lo, s)) => *s,
            _ => b,
        };
        let uniform_amt = self.splat_src.get(src.0 as usize).copied().flatten();
        let inline = match o {
            BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor => true,
            BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FCopySign => true,
            BinOp::FMinNum | BinOp::FMaxNum => true,
            BinOp::Mul | BinOp::UMin | BinOp::UMax | BinOp::SMin | BinOp::SMax => bits == 32,
            BinOp::Shl | BinOp::LShr | BinOp::AShr => uniform_amt.is_some(),
            BinOp::AddCarry | BinOp::SubBorrow => true,
            _ => false,
        };
        if !inline {
            if scalar_bin_inline(o) {
                // Lane by lane with scalar instructions (e.g. per-lane shift amounts, which
                // 128-bit Cranelift vectors lack): still lane-local and helper-free.
                let r =
                    self.per_lane(bits, &[x, y], |g, xs| g.scalar_bin(o, bits, xs[0], xs[1]))?;
                return Ok(JV::V(r));
            }
            return self.vec_helper(kind::BIN, code, bits, &[a, b], bits, false);
        }
        let amt = match uniform_amt {
            Some(s) if matches!(o, BinOp::Shl | BinOp::LShr | BinOp::AShr) => {
                let s = if self.b.func.dfg.value_type(s) != sty(bits) {
                    if bits == 64 {
                        self.b.ins().uextend(types::I64, s)
                    } else {
                        self.b.ins().ireduce(types::I32, s)
                    }
                } else {
                    s
                };
                Some(self.b.ins().band_imm_u(s, (bits - 1) as i64))
            }
            _ => None,
        };
        let mut out = Vec::new();
        for k in 0..self.nch(bits) {
            let (c, d) = (x[k], y[k]);
            let r = match o {
                BinOp::Add => self.b.ins().iadd(c, d),
                BinOp::Sub => self.b.ins().isub(c, d),
                BinOp::And => self.b.ins().band(c, d),
                BinOp::Or => self.b.ins().bor(c, d),
                BinOp::Xor => self.b.ins().bxor(c, d),
                BinOp::Mul => self.b.ins().imul(c, d),
                BinOp::UMin => self.b.ins().umin(c, d),
                BinOp::UMax => self.b.ins().umax(c, d),
                BinOp::SMin => self.b.ins().smin(c, d),
                BinOp::SMax => self.b.ins().smax(c, d),
                // Carry/borrow as an all-ones/zero lane compare, then 1/0.
                BinOp::AddCarry | BinOp::SubBorrow => {
                    let m = if o == BinOp::AddCarry {
                        let sum = self.b.ins().iadd(c, d);
                        self.b.ins().icmp(IntCC::UnsignedLessThan, sum, c)
                    } else {
                        self.b.ins().icmp(IntCC::UnsignedLessThan, c, d)
                    };
                    let one = self.splat_const(bits, 1);
                    self.b.ins().band(m, one)
                }
                BinOp::Shl => self.b.ins().ishl(c, amt.ok_or("shift")?),
                BinOp::LShr => self.b.ins().ushr(c, amt.ok_or("shift")?),
                BinOp::AShr => self.b.ins().sshr(c, amt.ok_or("shift")?),
                BinOp::FCopySign => {
                    let s = self.splat_const(bits, sign(bits));
                    self.b.ins().bitselect(s, d, c)
                }
                BinOp::FMinNum | BinOp::FMaxNum => self.minmax(bits, o == BinOp::FMaxNum, c, d),
                _ => {
                    let (cf, df) = (self.as_f(bits, c), self.as_f(bits, d));
                    let r = match o {
                        BinOp::FAdd => self.b.ins().fadd(cf, df),
                        BinOp::FSub => self.b.ins().fsub(cf, df),
                        BinOp::FMul => self.b.ins().fmul(cf, df),
                        _ => self.b.ins().fdiv(cf, df),
                    };
                    self.as_i(bits, r)
                }
            };
            out.push(r);
        }
        if matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv)
            && !(o == BinOp::FMul && self.ftz_collect(bits, &out)?)
        {
            out = self.nan_fix_all(bits, &[x, y], out);
        }
        Ok(JV::V(out))
    }

    /// IEEE minNum/maxNum of one chunk, exactly as [`sem::minmax32`]: NaN operands give the
    /// other operand (both NaN: `a` quieted); equal values (±0) combine their bits so that
    /// min prefers −0 and max +0.
    pub(super) fn minmax(&mut self, bits: u32, max: bool, a: Value, b: Value) -> Value {
        let (af, bf) = (self.as_f(bits, a), self.as_f(bits, b));
        let lt = self.b.ins().fcmp(FloatCC::LessThan, af, bf);
        let gt = self.b.ins().fcmp(FloatCC::GreaterThan, af, bf);
        let res = if max {
            let eq = self.b.ins().band(a, b);
            let r = self.b.ins().bitselect(lt, b, eq);
            self.b.ins().bitselect(gt, a, r)
        } else {
            let eq = self.b.ins().bor(a, b);
            let r = self.b.ins().bitselect(gt, b, eq);
            self.b.ins().bitselect(lt, a, r)
        };
        let na = self.b.ins().fcmp(FloatCC::Unordered, af, af);
        let nb = self.b.ins().fcmp(FloatCC::Unordered, bf, bf);
        let res = self.b.ins().bitselect(nb, a, res);
        let res = self.b.ins().bitselect(na, b, res);
        let both = self.b.ins().band(na, nb);
        let q = if bits == 32 {
            sem::F32_QUIET as u64
        } else {
            sem::F64_QUIET
        };
        let qv = self.splat_const(bits, q);
        let aq = self.b.ins().bor(a, qv);
        self.b.ins().bitselect(both, aq, res)
    }

    pub(super) fn tern(&mut self, o: TernOp, a: Val, b: Val, c: Val, t: Ty) -> GenResult<JV> {
        let bits = t.bits();
        let code = code_of(&TERNOPS, &o).ok_or("unknown ternary op")?;
        if !t.is_vector() {
            if o == TernOp::Bfi {
                let (x, y, z) = (self.s(a)?, self.s(b)?, self.s(c)?);
                return Ok(JV::S(self.b.ins().bitselect(x, y, z)));
            }
            return self.scalar_helper(kind::TERN, code, bits, &[a, b, c], bits);
        }
        match o {
            TernOp::Bfe | TernOp::SBfe if bits == 32 => {
                let out = self.bfe32(o == TernOp::SBfe, a, b, c)?;
                Ok(JV::V(out))
            }
            TernOp::Perm if bits == 32 => {
                let (x, y, z) = (self.v(a)?, self.v(b)?, self.v(c)?);
                let mut out = Vec::new();
                for k in 0..self.nch(bits) {
                    out.push(self.perm_chunk(x[k], y[k], z[k]));
                }
                Ok(JV::V(out))
            }
            TernOp::Fma | TernOp::Bfi => {
                let (x, y, z) = (self.v(a)?, self.v(b)?, self.v(c)?);
                // A broadcast multiplicand goes second: x86's FMA overwrites its first
                // operand, which is then the other (in a loop, the carried value) and
                // needs no copy. The product is the same; a NaN result's bits may differ,
                // but the NaN rule (`nan`) computes those from the operands in IR order.
                let splat = |v: Val| self.splat_src.get(v.0 as usize).copied().flatten();
                let swap = o == TernOp::Fma && splat(a).is_some() && splat(b).is_none();
                let mut out = Vec::new();
                for k in 0..self.nch(bits) {
                    if o == TernOp::Bfi {
                        out.push(self.b.ins().bitselect(x[k], y[k], z[k]));
                        continue;
                    }
                    let (xf, yf, zf) = (
                        self.as_f(bits, x[k]),
                        self.as_f(bits, y[k]),
                        self.as_f(bits, z[k]),
                    );
                    let (xf, yf) = if swap { (yf, xf) } else { (xf, yf) };
                    let r = self.b.ins().fma(xf, yf, zf);
                    out.push(self.as_i(bits, r));
                }
                if o == TernOp::Fma && !self.ftz_collect(bits, &out)? {
                    out = self.nan_fix_all(bits, &[x, y, z], out);
                }
                Ok(JV::V(out))
            }
            _ => self.vec_helper(kind::TERN, code, bits, &[a, b, c], bits, false),
        }
    }

    /// 32-bit vector [`TernOp::Bfe`] (`signed`: [`TernOp::SBfe`]) of `a`, offsets `b` and
    /// widths `c` (their low 5 bits), as [`sem`] computes it: `(a >> off) & ((1 << width) - 1)`
    /// with a logical shift, or an arithmetic one and the field sign-extended from bit
    /// `width - 1` when signed; width 0 gives 0.
    /// Uniform offset and width shift whole chunks by scalars; others go lane by lane.
    fn bfe32(&mut self, signed: bool, a: Val, b: Val, c: Val) -> GenResult<Vec<Value>> {
        let x = self.v(a)?;
        let uniform = |g: &mut Self, v: Val| {
            let s = g.splat_src.get(v.0 as usize).copied().flatten()?;
            Some(match g.b.func.dfg.value_type(s) {
                types::I32 => s,
                t if t.bits() > 32 => g.b.ins().ireduce(types::I32, s),
                _ => g.b.ins().uextend(types::I32, s),
            })
        };
        if let (Some(off), Some(width)) = (uniform(self, b), uniform(self, c)) {
            let (off, width, keep, sh) = self.bfe_amounts(off, width);
            let mut out = Vec::with_capacity(x.len());
            let keep = self.b.ins().splat(I32X4, keep);
            for chunk in x {
                let t = if signed {
                    self.b.ins().sshr(chunk, off)
                } else {
                    self.b.ins().ushr(chunk, off)
                };
                let r = if signed {
                    let hi = self.b.ins().ishl(t, sh);
                    self.b.ins().sshr(hi, sh)
                } else {
                    let one = self.iconst(types::I32, 1);
                    let m = self.b.ins().ishl(one, width);
                    let m = self.b.ins().iadd_imm_s(m, -1);
                    let m = self.b.ins().splat(I32X4, m);
                    self.b.ins().band(t, m)
                };
                out.push(self.b.ins().band(r, keep));
            }
            return Ok(out);
        }
        let (y, z) = (self.v(b)?, self.v(c)?);
        self.per_lane(32, &[x, y, z], |g, xs| {
            let (off, width, keep, sh) = g.bfe_amounts(xs[1], xs[2]);
            let t = if signed {
                g.b.ins().sshr(xs[0], off)
            } else {
                g.b.ins().ushr(xs[0], off)
            };
            let r = if signed {
                let hi = g.b.ins().ishl(t, sh);
                g.b.ins().sshr(hi, sh)
            } else {
                let one = g.iconst(types::I32, 1);
                let m = g.b.ins().ishl(one, width);
                let m = g.b.ins().iadd_imm_s(m, -1);
                g.b.ins().band(t, m)
            };
            Some(g.b.ins().band(r, keep))
        })
    }

    /// For [`Gen::bfe32`], from scalar offset and width: the offset and width (low 5 bits
    /// each), all ones unless the width is 0, and `32 - width` (the shift that puts the
    /// field's top bit at bit 31; 32, shifting by 0, only with width 0, whose result the
    /// all-ones value clears).
    fn bfe_amounts(&mut self, off: Value, width: Value) -> (Value, Value, Value, Value) {
        let off = self.b.ins().band_imm_u(off, 31);
        let width = self.b.ins().band_imm_u(width, 31);
        let nz = self.b.ins().icmp_imm_u(IntCC::NotEqual, width, 0);
        let keep = self.b.ins().bmask(types::I32, nz);
        let k32 = self.iconst(types::I32, 32);
        let sh = self.b.ins().isub(k32, width);
        (off, width, keep, sh)
    }

    /// [`TernOp::Perm`] on one `i32x4` chunk as byte shuffles (`sem::perm32` per lane).
    /// With selector byte `s` of lane `j`: source byte `q` of the lane's 8 bytes `{hi, lo}`
    /// is `s` for `s < 8` and `2(s & 3) + 1` for the sign cases; it is fetched from byte
    /// `4j + (q & 3)` of `lo` or `hi` (`q & 4`) by `swizzle`; then the sign cases replicate
    /// its top bit, 12 gives 0 and 13..=255 give 0xff.
    pub(super) fn perm_chunk(&mut self, hi: Value, lo: Value, sel: Value) -> Value {
        let b16 = types::I8X16;
        let bc = |g: &mut Self, v: Value| g.b.ins().bitcast(b16, le(), v);
        let (hi, lo, s) = (bc(self, hi), bc(self, lo), bc(self, sel));
        let splat = |g: &mut Self, x: u8| g.vconst_bytes(b16, [x; 16]);
        let (c3, c7, c1, c8, c12, c13) = (
            splat(self, 3),
            splat(self, 7),
            splat(self, 1),
            splat(self, 8),
            splat(self, 12),
            splat(self, 13),
        );
        let lt8 = self.b.ins().icmp(IntCC::UnsignedLessThan, s, c8);
        let s3 = self.b.ins().band(s, c3);
        let sign_q = self.b.ins().iadd(s3, s3);
        let sign_q = self.b.ins().bor(sign_q, c1);
        let s7 = self.b.ins().band(s, c7);
        let q = self.b.ins().bitselect(lt8, s7, sign_q);
        let mut base = [0u8; 16];
        for (i, b) in base.iter_mut().enumerate() {
            *b = (i & !3) as u8;
        }
        let base = self.vconst_bytes(b16, base);
        let q3 = self.b.ins().band(q, c3);
        let idx = self.b.ins().iadd(q3, base);
        let from_lo = self.b.ins().swizzle(lo, idx);
        let from_hi = self.b.ins().swizzle(hi, idx);
        let c4 = self.b.ins().bxor(c3, c7);
        let q4 = self.b.ins().band(q, c4);
        let use_hi = self.b.ins().icmp(IntCC::Equal, q4, c4);
        let byte = self.b.ins().bitselect(use_hi, from_hi, from_lo);
        let zero = splat(self, 0);
        let sign = self.b.ins().icmp(IntCC::SignedLessThan, byte, zero);
        let lt12 = self.b.ins().icmp(IntCC::UnsignedLessThan, s, c12);
        let lt13 = self.b.ins().icmp(IntCC::UnsignedLessThan, s, c13);
        // s == 12 → 0, s ≥ 13 → 0xff: exactly the bytes of "not below 13".
        let high = self.b.ins().bnot(lt13);
        let r = self.b.ins().bitselect(lt12, sign, high);
        let r = self.b.ins().bitselect(lt8, byte, r);
        self.b.ins().bitcast(I32X4, le(), r)
    }

    pub(super) fn cmp(&mut self, c: CmpOp, a: Val, b: Val) -> GenResult<JV> {
        let t = self.ty(a)?;
        let bits = t.bits();
        let code = code_of(&CMPOPS, &c).ok_or("unknown comparison")?;
        let icc = match c {
            CmpOp::Eq => Some(IntCC::Equal),
            CmpOp::Ne => Some(IntCC::NotEqual),
            CmpOp::ULt => Some(IntCC::UnsignedLessThan),
            CmpOp::ULe => Some(IntCC::UnsignedLessThanOrEqual),
            CmpOp::UGt => Some(IntCC::UnsignedGreaterThan),
            CmpOp::UGe => Some(IntCC::UnsignedGreaterThanOrEqual),
            CmpOp::SLt => Some(IntCC::SignedLessThan),
            CmpOp::SLe => Some(IntCC::SignedLessThanOrEqual),
            CmpOp::SGt => Some(IntCC::SignedGreaterThan),
            CmpOp::SGe => Some(IntCC::SignedGreaterThanOrEqual),
            _ => None,
        };
        let fcc = match c {
            CmpOp::FEq => Some(FloatCC::Equal),
            CmpOp::FLt => Some(FloatCC::LessThan),
            CmpOp::FLe => Some(FloatCC::LessThanOrEqual),
            CmpOp::FGt => Some(FloatCC::GreaterThan),
            CmpOp::FGe => Some(FloatCC::GreaterThanOrEqual),
            CmpOp::FLg => Some(FloatCC::OrderedNotEqual),
            CmpOp::FOrd => Some(FloatCC::Ordered),
            CmpOp::FUno => Some(FloatCC::Unordered),
            CmpOp::FNeq => Some(FloatCC::NotEqual),
            CmpOp::FNlt => Some(FloatCC::UnorderedOrGreaterThanOrEqual),
            CmpOp::FNle => Some(FloatCC::UnorderedOrGreaterThan),
            CmpOp::FNgt => Some(FloatCC::UnorderedOrLessThanOrEqual),
            CmpOp::FNge => Some(FloatCC::UnorderedOrLessThan),
            CmpOp::FNlg => Some(FloatCC::UnorderedOrEqual),
            _ => None,
        };
        if !t.is_vector() {
            let (x, y) = (self.s(a)?, self.s(b)?);
            let r = match icc {
                Some(cc) => self.b.ins().icmp(cc, x, y),
                None if c == CmpOp::FClass && (bits == 32 || bits == 64) => {
                    return self.fclass_scalar(a, b, bits)
                }
                None => return self.scalar_helper(kind::CMP, code, bits, &[a, b], 32),
            };
            return Ok(JV::S(self.b.ins().uextend(types::I32, r)));
        }
        if c == CmpOp::FClass && (bits == 32 || bits == 64) {
            return self.fclass_vec(a, b, bits);
        }
        if icc.is_none() && fcc.is_none() {
            return self.vec_helper(kind::CMP, code, bits, &[a, b], 32, true);
        }
        let (x, y) = (self.v(a)?, self.v(b)?);
        let mut acc = self.iconst(types::I64, 0);
        let mut masks = Vec::new();
        for k in 0..self.nch(bits) {
            let m = match (icc, fcc) {
                (Some(cc), _) => self.b.ins().icmp(cc, x[k], y[k]),
                (None, Some(cc)) => {
                    let (xf, yf) = (self.as_f(bits, x[k]), self.as_f(bits, y[k]));
                    // x86 has no vector `one`/`ueq`: compose them from two compares.
                    match cc {
                        FloatCC::OrderedNotEqual => {
                            let l = self.b.ins().fcmp(FloatCC::LessThan, xf, yf);
                            let g = self.b.ins().fcmp(FloatCC::GreaterThan, xf, yf);
                            self.b.ins().bor(l, g)
                        }
                        FloatCC::UnorderedOrEqual => {
                            let e = self.b.ins().fcmp(FloatCC::Equal, xf, yf);
                            let u = self.b.ins().fcmp(FloatCC::Unordered, xf, yf);
                            self.b.ins().bor(e, u)
                        }
                        _ => self.b.ins().fcmp(cc, xf, yf),
                    }
                }
                _ => return Err("comparison".into()),
            };
            masks.push(m);
            let bitsv = self.mask_bits(m, k, bits);
            acc = self.b.ins().bor(acc, bitsv);
        }
        if let Some(g) = self.group.as_mut() {
            g.last_cmp = Some((masks, bits));
        }
        Ok(JV::S(acc))
    }
    /// The constant value of `v`: a `Const`, or the broadcast of one.
    fn const_of(&self, v: Val) -> Option<u64> {
        let src = match self.block.ops.get(v.0 as usize)? {
            Op::Broadcast(s) => *s,
            _ => v,
        };
        match self.block.ops.get(src.0 as usize)? {
            Op::Const { bits, .. } => Some(*bits),
            _ => None,
        }
    }

    /// `e` when the vector op `o a b` is all ones where `e` is non-zero and 0 elsewhere,
    /// `e` being `x & K` with `K`'s top bit clear (so `0 <= e <= 2^(w-1) - 1`): the mask
    /// of `ir::passes::flush`, `(e + (2^(w-1) - 1)) >>s (w-1)` for 32 bits and
    /// `0 - ((e + (2^(w-1) - 1)) >>u (w-1))` for 64 (the add sets the top bit exactly when
    /// `e` is non-zero, without wrapping).
    fn nonzero_mask_source(&self, o: BinOp, a: Val, b: Val, bits: u32) -> Option<Val> {
        let top = u64::from(bits - 1);
        let bias = (1u64 << top) - 1;
        let shifted = match (o, bits) {
            (BinOp::AShr, 32) if self.const_of(b)? & 31 == top => a,
            (BinOp::Sub, 64) if self.const_of(a)? == 0 => match self.block.ops.get(b.0 as usize)? {
                Op::Bin(BinOp::LShr, s, n) if self.const_of(*n)? & 63 == top => *s,
                _ => return None,
            },
            _ => return None,
        };
        let Op::Bin(BinOp::Add, e, c) = self.block.ops.get(shifted.0 as usize)? else {
            return None;
        };
        if self.const_of(*c)? & sem::trunc_to(bits, u64::MAX) != bias {
            return None;
        }
        match self.block.ops.get(e.0 as usize)? {
            Op::Bin(BinOp::And, _, k) if self.const_of(*k)? >> top & 1 == 0 => Some(*e),
            _ => None,
        }
    }

    /// The class mask of an `FClass` compare when it is a broadcast constant.
    fn class_mask_const(&self, b: Val) -> Option<u64> {
        let src = match self.block.ops.get(b.0 as usize)? {
            Op::Broadcast(s) => *s,
            _ => b,
        };
        match self.block.ops.get(src.0 as usize)? {
            Op::Const { bits, .. } => Some(*bits),
            _ => None,
        }
    }

    /// `FClass` on 32- or 64-bit lanes as vector code ([`sem::cmp`]'s `class_bit`): each
    /// lane's class from integer compares on its bits, tested against the class mask `b`
    /// (only the classes a constant mask names are computed).
    fn fclass_vec(&mut self, a: Val, b: Val, bits: u32) -> GenResult<JV> {
        let known = self.class_mask_const(b);
        let x = self.v(a)?;
        let y = match known {
            Some(_) => Vec::new(),
            None => self.v(b)?,
        };
        let mut acc = self.iconst(types::I64, 0);
        let mut masks = Vec::new();
        for (k, &xk) in x.iter().enumerate() {
            let m = self.class_test(xk, y.get(k).copied(), known, bits, |g, v| {
                g.splat_const(bits, v)
            });
            masks.push(m);
            let bitsv = self.mask_bits(m, k, bits);
            acc = self.b.ins().bor(acc, bitsv);
        }
        if let Some(g) = self.group.as_mut() {
            g.last_cmp = Some((masks, bits));
        }
        Ok(JV::S(acc))
    }

    /// Scalar `FClass` of a 32- or 64-bit value: 1 when its class is in the mask `b`.
    fn fclass_scalar(&mut self, a: Val, b: Val, bits: u32) -> GenResult<JV> {
        let known = self.class_mask_const(b);
        let x = self.s(a)?;
        let y = match known {
            Some(_) => None,
            None => Some(self.s(b)?),
        };
        let t = sty(bits);
        let m = self.class_test(x, y, known, bits, |g, v| g.iconst(t, v));
        Ok(JV::S(self.b.ins().uextend(types::I32, m)))
    }

    /// Whether the float bits `x` (a scalar or a vector of `bits`-bit lanes) are of a class
    /// the mask names: the constant mask `known`, else the mask value `y` (same shape as
    /// `x`). Each magnitude class (zero, denormal, normal, infinity) is tested once and
    /// combined with the sign only when the mask names one sign of it; NaNs ignore the sign.
    /// `konst` makes a constant of `x`'s shape. Returns the compare result (all-ones lanes
    /// for vectors, an `i8` 0/1 for scalars).
    fn class_test(
        &mut self,
        x: Value,
        y: Option<Value>,
        known: Option<u64>,
        bits: u32,
        konst: impl Fn(&mut Self, u64) -> Value,
    ) -> Value {
        let (inf, quiet, min_normal) = if bits == 32 {
            (0x7f80_0000u64, 0x40_0000u64, 0x80_0000u64)
        } else {
            (0x7ff0_0000_0000_0000, 1 << 51, 1 << 52)
        };
        let abs_mask = !sign(bits) & if bits == 32 { 0xffff_ffff } else { u64::MAX };
        let zero = konst(self, 0);
        let absm = konst(self, abs_mask);
        let abs = self.b.ins().band(x, absm);
        // Whether the mask names `class`: a constant answer, or a per-lane predicate.
        let named = |g: &mut Self, class: u32| -> Option<Option<Value>> {
            match (known, y) {
                (Some(m), _) => ((m >> class) & 1 == 1).then_some(None),
                (None, Some(y)) => {
                    let bit = konst(g, 1 << class);
                    let yb = g.b.ins().band(y, bit);
                    Some(Some(g.b.ins().icmp(IntCC::NotEqual, yb, zero)))
                }
                (None, None) => None,
            }
        };
        let mut acc: Option<Value> = None;
        let mut or = |g: &mut Self, p: Value| {
            acc = Some(match acc {
                Some(m) => g.b.ins().bor(m, p),
                None => p,
            });
        };
        // Signalling (0) and quiet (1) NaNs.
        let (s_nan, q_nan) = (named(self, 0), named(self, 1));
        if s_nan.is_some() || q_nan.is_some() {
            let q = konst(self, inf | quiet);
            let is_q = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, abs, q);
            if let Some(n) = q_nan {
                let p = match n {
                    Some(n) => self.b.ins().band(is_q, n),
                    None => is_q,
                };
                or(self, p);
            }
            if let Some(n) = s_nan {
                let i = konst(self, inf);
                let nan = self.b.ins().icmp(IntCC::UnsignedGreaterThan, abs, i);
                let p = self.b.ins().band_not(nan, is_q);
                let p = match n {
                    Some(n) => self.b.ins().band(p, n),
                    None => p,
                };
                or(self, p);
            }
        }
        // (negative class, positive class) of each magnitude: infinity, normal, denormal,
        // zero.
        let mut neg = None;
        for (nc, pc) in [(2u32, 9u32), (3, 8), (4, 7), (5, 6)] {
            let (wn, wp) = (named(self, nc), named(self, pc));
            if wn.is_none() && wp.is_none() {
                continue;
            }
            let mag = match nc {
                2 => {
                    let i = konst(self, inf);
                    self.b.ins().icmp(IntCC::Equal, abs, i)
                }
                3 => {
                    let lo = konst(self, min_normal);
                    let span = konst(self, inf - min_normal);
                    let d = self.b.ins().isub(abs, lo);
                    self.b.ins().icmp(IntCC::UnsignedLessThan, d, span)
                }
                4 => {
                    let one = konst(self, 1);
                    let span = konst(self, min_normal - 1);
                    let d = self.b.ins().isub(abs, one);
                    self.b.ins().icmp(IntCC::UnsignedLessThan, d, span)
                }
                _ => self.b.ins().icmp(IntCC::Equal, abs, zero),
            };
            if wn == Some(None) && wp == Some(None) {
                or(self, mag); // both signs named
                continue;
            }
            let n = *neg.get_or_insert_with(|| self.b.ins().icmp(IntCC::SignedLessThan, x, zero));
            for (w, negative) in [(wn, true), (wp, false)] {
                let Some(w) = w else { continue };
                let p = if negative {
                    self.b.ins().band(mag, n)
                } else {
                    self.b.ins().band_not(mag, n)
                };
                let p = match w {
                    Some(w) => self.b.ins().band(p, w),
                    None => p,
                };
                or(self, p);
            }
        }
        match acc {
            Some(m) => m,
            // No class named: false everywhere.
            None => self.b.ins().icmp(IntCC::NotEqual, zero, zero),
        }
    }
}

/// The sign bit of a `bits`-bit float.
fn sign(bits: u32) -> u64 {
    if bits == 32 {
        sem::F32_SIGN as u64
    } else {
        sem::F64_SIGN
    }
}
