//! The scalar copy of a lane-group run whose lane work is affine
//! ([`crate::jit::analysis::affine_runs`]): before the run's loop, lane 0 of every value the
//! run writes or compares is computed as a scalar, with the run-time tests the analysis's
//! claims assume (the run's blend mask full, its roots tested, no wrap-around). When they
//! all pass, each register write stores `splat(lane 0) + lane × stride` into its row and
//! each compare's lane mask is a range of lanes found by arithmetic; the loop is skipped.
//! Otherwise the general loop runs as before.

use super::{trusted, Gen, GenResult, I32X4};
use crate::ir::{CmpOp, Op, Val};
use crate::jit::analysis::affine_runs::RangeCmp;
use crate::wave::WaveState;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};

impl Gen<'_, '_> {
    /// Emits the scalar copy of the run `i..j` (compares `cmps`, whose masks `after`
    /// takes) when the analysis found one: returns the block the general loop is to be
    /// emitted from (taken when a test fails), or `None` (no scalar copy; nothing
    /// emitted).
    pub(super) fn affine_run_copy(
        &mut self,
        i: usize,
        j: usize,
        cmps: &[usize],
        after: cranelift_codegen::ir::Block,
    ) -> GenResult<Option<cranelift_codegen::ir::Block>> {
        // Not in the iterated form, nor in the quick tier's code (compile time first: its
        // blocks run a few times).
        if self.iters.is_some() || self.one_copy {
            return Ok(None);
        }
        let Some(run) = self.facts.affine.runs.get(&i).cloned() else {
            return Ok(None);
        };
        if run.end != j
            || !run.cmps.iter().map(|c| c.op).eq(cmps.iter().copied())
            || !run.roots.iter().all(|r| self.affine_roots.contains_key(r))
        {
            return Ok(None);
        }
        let blk = self.block;
        let sel = run.mask.unwrap_or(Val(u32::MAX));
        let mut guards = Vec::new();
        if let Some(m) = run.mask {
            let x = self.lane_bits(m)?;
            let all = self.all_lanes();
            let full = self.b.ins().icmp_imm_u(IntCC::Equal, x, all);
            guards.push(full);
        }
        let mut rows = Vec::new();
        for &(k, stride) in &run.writes {
            let Op::SetVgpr { reg, val, .. } = blk.ops[k] else {
                return Err("affine run: register write".into());
            };
            let l0 = self.affine_lane0(val, sel, &mut guards, 0)?;
            rows.push((reg, l0, stride as u32));
        }
        let mut masks = Vec::new();
        for c in &run.cmps {
            let x0 = self.affine_lane0(c.x, sel, &mut guards, 0)?;
            let b = self.affine_lane0(c.bound, sel, &mut guards, 0)?;
            let (m, ok) = self.range_mask(c, x0, b);
            guards.push(ok);
            masks.push(m);
        }
        // The same root's test joins every value that reads the root: once is enough.
        let mut distinct: Vec<Value> = Vec::new();
        for g in guards {
            if !distinct.contains(&g) {
                distinct.push(g);
            }
        }
        let mut go = match distinct.pop() {
            Some(g) => g,
            None => self.b.ins().iconst(types::I8, 1),
        };
        for g in distinct {
            go = self.b.ins().band(go, g);
        }
        let body = self.b.create_block();
        let general = self.b.create_block();
        self.b.ins().brif(go, body, &[], general, &[]);
        self.b.switch_to_block(body);
        self.b.seal_block(body);
        for (reg, l0, stride) in rows {
            let mut steps = [0u8; 16];
            for k in 0..4u32 {
                steps[4 * k as usize..4 * k as usize + 4]
                    .copy_from_slice(&k.wrapping_mul(stride).to_le_bytes());
            }
            let s = self.b.ins().splat(I32X4, l0);
            let mut w = if stride == 0 {
                s
            } else {
                let steps = self.vconst_bytes(I32X4, steps);
                self.b.ins().iadd(s, steps)
            };
            let four = self.splat_const(32, u64::from(stride.wrapping_mul(4)));
            let base = WaveState::vgpr_offset(reg as usize, 0) as i32;
            for c in 0..self.lanes / 4 {
                if c > 0 && stride != 0 {
                    w = self.b.ins().iadd(w, four);
                }
                self.b
                    .ins()
                    .store(trusted(), w, self.state, base + 16 * c as i32);
            }
        }
        let args: Vec<BlockArg> = masks.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(after, &args);
        self.b.switch_to_block(general);
        self.b.seal_block(general);
        Ok(Some(general))
    }

    /// Every lane of the block set (`I64` constant bits).
    fn all_lanes(&self) -> i64 {
        if self.lanes == 32 {
            0xFFFF_FFFF
        } else {
            -1
        }
    }

    /// The lane mask (`I64`) of the compare `c` with lane 0 of its affine side `x0` and
    /// its bound `b` (`I32`s), and whether it is exact (`I8`): no lane's value wraps
    /// around the compare's range, so the values grow with the lane and the lanes below
    /// (above) a bound form a prefix (suffix).
    fn range_mask(&mut self, c: &RangeCmp, x0: Value, b: Value) -> (Value, Value) {
        use CmpOp::*;
        let signed = matches!(c.cc, SLt | SLe | SGt | SGe);
        let (a, bound) = if signed {
            (
                self.b.ins().sextend(types::I64, x0),
                self.b.ins().sextend(types::I64, b),
            )
        } else {
            (
                self.b.ins().uextend(types::I64, x0),
                self.b.ins().uextend(types::I64, b),
            )
        };
        let lanes = self.lanes as i64;
        let step = i64::from(c.step);
        let last = self.b.ins().iadd_imm_s(a, step * (lanes - 1));
        let ok = if signed {
            self.b
                .ins()
                .icmp_imm_s(IntCC::SignedLessThanOrEqual, last, i32::MAX as i64)
        } else {
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedLessThanOrEqual, last, u32::MAX as i64)
        };
        // The lanes `l` with `a + l × step < t`: a prefix of `ceil((t - a) / step)` lanes,
        // clamped to the block's.
        let below = |g: &mut Self, t: Value| -> Value {
            let diff = g.b.ins().isub(t, a);
            let n = if step == 1 {
                diff
            } else {
                let d = g.b.ins().iadd_imm_s(diff, step - 1);
                g.b.ins().sdiv_imm_s(d, step)
            };
            let zero = g.b.ins().iconst(types::I64, 0);
            let n = g.b.ins().smax(n, zero);
            let max = g.b.ins().iconst(types::I64, lanes);
            let n = g.b.ins().smin(n, max);
            let one = g.b.ins().iconst(types::I64, 1);
            let p = g.b.ins().ishl(one, n);
            let p = g.b.ins().iadd_imm_s(p, -1);
            if lanes == 64 {
                // `1 << 64` is not 0 in Cranelift (the shift count is taken mod 64).
                let all = g.b.ins().icmp_imm_s(IntCC::Equal, n, 64);
                let ones = g.b.ins().iconst(types::I64, -1);
                g.b.ins().select(all, ones, p)
            } else {
                p
            }
        };
        let lt = below(self, bound);
        let b1 = self.b.ins().iadd_imm_s(bound, 1);
        let le = below(self, b1);
        let all = self.all_lanes();
        let m = match c.cc {
            ULt | SLt => lt,
            ULe | SLe => le,
            UGt | SGt => self.b.ins().bxor_imm_s(le, all),
            UGe | SGe => self.b.ins().bxor_imm_s(lt, all),
            // `lt` is within `le`: their difference is the lanes equal to the bound.
            Eq => self.b.ins().bxor(le, lt),
            _ => {
                let eq = self.b.ins().bxor(le, lt);
                self.b.ins().bxor_imm_s(eq, all)
            }
        };
        (m, ok)
    }
}
