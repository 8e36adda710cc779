//! The IR NaN rule for float results, applied after the host's float ops.

use super::{le, vty, Gen, I32X4};
use crate::sem;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{BlockArg, InstBuilder, Value};

impl Gen<'_, '_> {
    /// The IR NaN rule applied to an integer-typed result chunk `r` of operand chunks `ops`:
    /// a NaN result lane takes the first NaN operand, quieted, or else the default NaN
    /// ([`sem::nan_rule32`]); `q` and `dn` are the splatted quiet bit and default NaN. The
    /// host's float ops give a NaN wherever an operand is one, so only NaN result lanes
    /// change.
    fn nan_fix(&mut self, bits: u32, (q, dn): (Value, Value), ops: &[Value], r: Value) -> Value {
        let mut nan = dn;
        for &o in ops.iter().rev() {
            let of = self.as_f(bits, o);
            let uo = self.b.ins().fcmp(FloatCC::Unordered, of, of);
            nan = self.b.ins().bitselect(uo, o, nan);
        }
        let nan = self.b.ins().bor(nan, q);
        let rf = self.as_f(bits, r);
        let ur = self.b.ins().fcmp(FloatCC::Unordered, rf, rf);
        self.b.ins().bitselect(ur, nan, r)
    }

    /// [`Gen::nan_fix`] of every result chunk `r[k]` with its operand chunks `ops[..][k]`.
    fn nan_fix_chunks(&mut self, bits: u32, ops: &[Vec<Value>], r: &[Value]) -> Vec<Value> {
        let (q, dn) = if bits == 32 {
            (sem::F32_QUIET as u64, sem::F32_DEFAULT_NAN as u64)
        } else {
            (sem::F64_QUIET, sem::F64_DEFAULT_NAN)
        };
        let consts = (self.splat_const(bits, q), self.splat_const(bits, dn));
        let mut fixed = Vec::with_capacity(r.len());
        for (k, c) in r.iter().enumerate() {
            let o: Vec<Value> = ops.iter().map(|x| x[k]).collect();
            fixed.push(self.nan_fix(bits, consts, &o, *c));
        }
        fixed
    }

    /// In the fast lane-group loop: NaN lanes of the result chunks `r` are collected and
    /// tested once, at the end of the group before its stores (`bail_on_nan`); lane ops
    /// have no effects and never trap (conversions saturate), so the rest of the group may
    /// compute with the unfixed values, which the slow loop recomputes. Chunks are tested
    /// two at a time (one unordered compare of two chunks is true where either has a NaN);
    /// a chunk left waiting for a partner is tested by [`Gen::pending_nans`].
    pub(super) fn collect_nans(&mut self, bits: u32, r: &[Value]) {
        if let Some(d) = self.fast_copy().and_then(|fc| fc.nan_deferred.as_mut()) {
            d.extend(r.iter().map(|c| (bits, *c)));
            return;
        }
        for c in r {
            let f = self.as_f(bits, *c);
            let pending = self.fast_copy().and_then(|fc| fc.nan_pending.take());
            match pending {
                Some(p) if self.b.func.dfg.value_type(p) == self.b.func.dfg.value_type(f) => {
                    let u = self.b.ins().fcmp(FloatCC::Unordered, p, f);
                    self.add_nans(u);
                }
                Some(p) => {
                    let u = self.b.ins().fcmp(FloatCC::Unordered, p, p);
                    self.add_nans(u);
                    if let Some(fc) = self.fast_copy() {
                        fc.nan_pending = Some(f);
                    }
                }
                None => {
                    if let Some(fc) = self.fast_copy() {
                        fc.nan_pending = Some(f);
                    }
                }
            }
        }
    }

    /// Tests the chunk [`Gen::collect_nans`] left waiting, if any.
    pub(super) fn pending_nans(&mut self) {
        if let Some(p) = self.fast_copy().and_then(|fc| fc.nan_pending.take()) {
            let u = self.b.ins().fcmp(FloatCC::Unordered, p, p);
            self.add_nans(u);
        }
    }

    /// ORs the compare result `u` into the fast copy's NaN lanes (lanes that send the group
    /// to the slow copy).
    pub(super) fn add_nans(&mut self, u: Value) {
        let u = if self.b.func.dfg.value_type(u) == I32X4 {
            u
        } else {
            self.b.ins().bitcast(I32X4, le(), u)
        };
        let prev = self.fast_copy().and_then(|f| f.nan);
        let nan = match prev {
            Some(n) => self.b.ins().bor(n, u),
            None => u,
        };
        if let Some(f) = self.fast_copy() {
            f.nan = Some(nan);
        }
    }

    /// Float op results `r` with the NaN rule applied. Optimised code tests all chunks for a
    /// NaN at once and takes the full per-lane fix-up only on a rarely taken path. Quick code
    /// ([`Gen::with_one_loop_copy`]) applies the fix-up to every lane without a branch: each
    /// branch would split the Cranelift block, and the single-pass register allocator of the
    /// quick tier spills every live value at each block edge, which costs more to compile
    /// and to run than the fix-up's compares and blends.
    pub(super) fn nan_fix_all(
        &mut self,
        bits: u32,
        ops: &[Vec<Value>],
        r: Vec<Value>,
    ) -> Vec<Value> {
        if self.fast_copy().is_some() {
            self.collect_nans(bits, &r);
            return r;
        }
        if self.one_copy {
            return self.nan_fix_chunks(bits, ops, &r);
        }
        let mut acc: Option<Value> = None;
        for c in &r {
            let f = self.as_f(bits, *c);
            let u = self.b.ins().fcmp(FloatCC::Unordered, f, f);
            acc = Some(match acc {
                Some(a) => self.b.ins().bor(a, u),
                None => u,
            });
        }
        let Some(acc) = acc else { return r };
        let any = self.b.ins().vany_true(acc);
        let fix = self.b.create_block();
        let join = self.b.create_block();
        if self.in_slow_copy() {
            self.b.set_cold_block(fix);
            self.b.set_cold_block(join);
        }
        for _ in 0..r.len() {
            self.b.append_block_param(join, vty(bits));
        }
        let args: Vec<BlockArg> = r.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().brif(any, fix, &[], join, &args);
        self.b.switch_to_block(fix);
        self.b.seal_block(fix);
        let fixed = self.nan_fix_chunks(bits, ops, &r);
        let args: Vec<BlockArg> = fixed.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join).to_vec()
    }
}
