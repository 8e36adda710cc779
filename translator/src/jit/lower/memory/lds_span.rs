//! The span path of a multi-dword LDS load or store ([`super::multi`]) whose lane addresses
//! come from registers' rows, under a full mask: one window test of the span from the lowest to the
//! highest lane address (vector `umin`/`umax` over the rows) instead of a test per lane.
//! Any lane pattern fits, in particular the XOR-swizzled reads of Triton's GEMMs
//! (`ds_read_b64` of lane `l` at `64 * (l % 32) + 8 * ((l / 2) % 8 ^ l / 32)` plus a
//! per-instruction constant), which are neither at a fixed stride nor a permuted block.
//!
//! The test is exact for the lanes: every lane's bytes lie between the lowest address and
//! the highest address plus the base's span, and the window is contiguous. When it fails
//! (a lane outside the LDS, a partial or empty mask) the code continues to the per-lane
//! path, which reports the fault's lane and address as before.

use crate::ir::{ConvOp, Op, Ty};
use crate::jit::analysis::memory::{affine, vgpr_row, Multi, RunAddr};
use crate::jit::lower::{le, trusted, Gen, GenResult, I32X4, I64X2};
use crate::wave::{WaveState, MAX_LANES};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value};

/// The largest base bias the path takes: a biased address then never wraps in 64 bits
/// (LDS offsets are 16-bit).
const MAX_BIAS: u64 = 1 << 32;

impl Gen<'_, '_> {
    /// Tries the span path for the multi-dword access `mu` (`m` its lane mask, `data` a
    /// store's data rows per piece): when every lane is active and each base's lanes lie in
    /// the LDS window, the host address of each lane is made with vector code, the pieces
    /// are loaded by [`Gen::multi_load_pass`] or stored piece after piece in lane order (the
    /// order of the separate stores, as the per-lane path), then control jumps to `join`;
    /// otherwise the code continues in a new current block (the caller's per-lane path).
    /// Emits nothing for other spaces or bases that are not registers' rows.
    pub(in crate::jit::lower) fn lds_span(
        &mut self,
        mu: &Multi,
        space: crate::env::Space,
        m: Value,
        data: &[Value],
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        if space != crate::env::Space::Lds || (!mu.load && data.len() != mu.pieces.len()) {
            return Ok(());
        }
        let Some(rows) = self.span_rows(mu) else {
            return Ok(());
        };
        let n = self.lanes;
        let fail = self.b.create_block();
        let test = self.b.create_block();
        let all_lanes = if n == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, m, all_lanes);
        self.b.ins().brif(full, test, &[], fail, &[]);
        self.b.switch_to_block(test);
        self.b.seal_block(test);
        // Per base: the lowest and highest lane address (biased), both in the window.
        let mut ok: Option<Value> = None;
        let mut hosts = Vec::with_capacity(rows.len());
        for &(r, bias, span) in &rows {
            let row = self.state;
            let off = WaveState::vgpr_offset(r as usize, 0) as i32;
            let mut lo: Option<Value> = None;
            let mut hi: Option<Value> = None;
            for c in 0..n / 4 {
                let v = self
                    .b
                    .ins()
                    .load(I32X4, trusted(), row, off + 16 * c as i32);
                lo = Some(lo.map_or(v, |x| self.b.ins().umin(x, v)));
                hi = Some(hi.map_or(v, |x| self.b.ins().umax(x, v)));
            }
            let lo = self.hreduce(lo.ok_or("row")?, true);
            let hi = self.hreduce(hi.ok_or("row")?, false);
            let lo = self.b.ins().iadd_imm_s(lo, bias as i64);
            let hi = self.b.ins().iadd_imm_s(hi, bias as i64);
            let span = self.iconst(types::I64, span);
            let w = self.window_of(space, lo, span)?;
            let hoff = self.b.ins().isub(hi, w.start);
            let hin = self
                .b
                .ins()
                .icmp(IntCC::UnsignedLessThanOrEqual, hoff, w.lim);
            let both = self.b.ins().band(w.hit, hin);
            ok = Some(match ok {
                Some(o) => self.b.ins().band(o, both),
                None => both,
            });
            // Host address of a lane = its row value + (host + bias - start).
            let d = self.b.ins().isub(w.host, w.start);
            hosts.push(self.b.ins().iadd_imm_s(d, bias as i64));
        }
        let ok = ok.ok_or("no base")?;
        let fast = self.b.create_block();
        self.b.ins().brif(ok, fast, &[], fail, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        // Every lane's host address per base, as the per-lane path's first pass leaves them.
        let mut ptrs = Vec::with_capacity(rows.len());
        for (&(r, _, _), &h) in rows.iter().zip(&hosts) {
            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                8 * MAX_LANES as u32,
                4,
            ));
            let hv = self.b.ins().splat(I64X2, h);
            let off = WaveState::vgpr_offset(r as usize, 0) as i32;
            for c in 0..n / 4 {
                let v = self
                    .b
                    .ins()
                    .load(I32X4, trusted(), self.state, off + 16 * c as i32);
                for (k, wide) in [self.b.ins().uwiden_low(v), self.b.ins().uwiden_high(v)]
                    .into_iter()
                    .enumerate()
                {
                    let p = self.b.ins().iadd(wide, hv);
                    self.b
                        .ins()
                        .stack_store(types::I64, p, slot, (32 * c + 16 * k) as i32);
                }
            }
            ptrs.push(slot);
        }
        if mu.load {
            self.multi_load_pass(mu, &ptrs, m, false, join)?;
        } else {
            self.span_stores(mu, &ptrs, data, join);
        }
        self.b.switch_to_block(fail);
        self.b.seal_block(fail);
        Ok(())
    }

    /// The stores of a span path: piece after piece, each in lane order (four lanes per
    /// iteration), the low bytes of each lane's data dword at its base's host address
    /// (`ptrs`) plus the piece's offset. Then a jump to `join`.
    fn span_stores(
        &mut self,
        mu: &Multi,
        ptrs: &[StackSlot],
        data: &[Value],
        join: cranelift_codegen::ir::Block,
    ) {
        for (x, &(_, d)) in mu.pieces.iter().enumerate() {
            let size = mu.sizes.get(x).copied().unwrap_or(4);
            let base = mu.base_of.get(x).copied().unwrap_or(0) as usize;
            let next = self.b.create_block();
            let (hdr, li) = self.quad_loop_begin();
            let po = self.b.ins().ishl_imm_u(li, 3);
            let pbase = self.b.ins().stack_addr(types::I64, ptrs[base], 0);
            let pp = self.b.ins().iadd(pbase, po);
            let dof = self.b.ins().ishl_imm_u(li, 2);
            let dp = self.b.ins().iadd(data[x], dof);
            for j in 0..4usize {
                let p = self.b.ins().load(types::I64, trusted(), pp, (8 * j) as i32);
                let v = self.b.ins().load(types::I32, trusted(), dp, (4 * j) as i32);
                // The low bytes (little-endian), as `ds_store_b8`/`b16` write them.
                let v = match size {
                    1 => self.b.ins().ireduce(types::I8, v),
                    2 => self.b.ins().ireduce(types::I16, v),
                    _ => v,
                };
                self.b.ins().store(le(), v, p, d as i32);
            }
            self.quad_loop_end(hdr, li, next);
            self.b.switch_to_block(next);
            self.b.seal_block(next);
        }
        self.b.ins().jump(join, &[]);
    }

    /// Each base of `mu` as `(register, bias, span)`: its lane addresses are the register's
    /// row zero-extended plus `bias` (below [`MAX_BIAS`]). A base counting from the first
    /// piece's address qualifies when that address is such a row plus constants ([`affine`]
    /// through the block's adds, the register unwritten since its read, [`vgpr_row`]): the
    /// lifter's form of a single `ds_read_b64`/`b128`.
    fn span_rows(&self, mu: &Multi) -> Option<Vec<(u16, u64, u64)>> {
        let blk = self.block;
        let first_addr = match blk.ops.get(mu.first)? {
            Op::Load { addr, .. } | Op::Store { addr, .. } => *addr,
            _ => return None,
        };
        let rows: Option<Vec<(u16, u64, u64)>> = mu
            .bases
            .iter()
            .map(|rb| {
                let (r, c) = match rb.addr {
                    RunAddr::Row(r) => (r, 0),
                    RunAddr::First => {
                        let (root, c) = affine(blk, first_addr);
                        let Some(Op::Conv(ConvOp::ZExt, x)) = blk.ops.get(root as usize) else {
                            return None;
                        };
                        if blk.types.get(x.0 as usize) != Some(&Some(Ty::V32)) {
                            return None;
                        }
                        (vgpr_row(blk, *x, mu.first)?, c)
                    }
                    RunAddr::Pair(..) => return None,
                };
                let bias = rb.bias.wrapping_add(c);
                (bias < MAX_BIAS).then_some((r, bias, rb.span))
            })
            .collect();
        rows.filter(|r| !r.is_empty())
    }

    /// The unsigned minimum (`min`) or maximum of the four lanes of `v` (`I32X4`), as `I64`.
    fn hreduce(&mut self, v: Value, min: bool) -> Value {
        let mut x = v;
        for lanes in [[2, 3, 0, 1], [1, 0, 3, 2]] {
            let s = self.shuffle32(x, x, lanes);
            let s = self.b.ins().bitcast(I32X4, le(), s);
            x = if min {
                self.b.ins().umin(x, s)
            } else {
                self.b.ins().umax(x, s)
            };
        }
        let e = self.b.ins().extractlane(x, 0);
        self.b.ins().uextend(types::I64, e)
    }
}
