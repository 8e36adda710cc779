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
        if mu.load {
            let bases: Vec<(u16, Value)> = rows.iter().map(|r| r.0).zip(hosts).collect();
            self.span_loads(mu, &bases, join)?;
        } else {
            // Every lane's host address per base (for the stores' lane loops).
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
            self.span_stores(mu, &ptrs, data, join);
        }
        self.b.switch_to_block(fail);
        self.b.seal_block(fail);
        Ok(())
    }

    /// The loads of a span path, four lanes per iteration, every lane active: each lane's
    /// host address from its base's row (`bases`: register, and the value that turns a row
    /// value into a host address), then per piece group the lanes' dwords into the pieces'
    /// registers: four consecutive dwords (a `b128`) as one 16-byte load per lane and a
    /// transpose, two (a `b64`) as one 8-byte load per lane and two shuffles, any other
    /// piece as a dword per lane. Then a jump to `join`.
    fn span_loads(
        &mut self,
        mu: &Multi,
        bases: &[(u16, Value)],
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let (hdr, li) = self.quad_loop_begin();
        let lo = self.b.ins().ishl_imm_u(li, 2);
        let row0 = self.b.ins().iadd(self.state, lo);
        // Per base, the host addresses of the four lanes.
        let mut pss: Vec<[Value; 4]> = Vec::with_capacity(bases.len());
        for &(r, h) in bases {
            let off = WaveState::vgpr_offset(r as usize, 0) as i32;
            let ps = core::array::from_fn(|j| {
                let a = self.b.ins().uload32(trusted(), row0, off + 4 * j as i32);
                self.b.ins().iadd(a, h)
            });
            pss.push(ps);
        }
        let offs: Vec<u64> = mu.pieces.iter().map(|&(_, d)| d).collect();
        let base = |x: usize| mu.base_of.get(x).copied().unwrap_or(0) as usize;
        let mut chunks: Vec<Value> = Vec::with_capacity(offs.len());
        let mut x = 0;
        while x < offs.len() {
            let d = offs[x];
            let ps = *pss.get(base(x)).ok_or("run base")?;
            let run = |k: usize| {
                offs.get(x..x + k)
                    .is_some_and(|o| o.iter().enumerate().all(|(i, &e)| e == d + 4 * i as u64))
                    && (x..x + k).all(|y| base(y) == base(x))
            };
            if run(4) {
                let r: Vec<Value> = ps
                    .iter()
                    .map(|&p| self.b.ins().load(I32X4, le(), p, d as i32))
                    .collect();
                let t0 = self.shuffle32(r[0], r[1], [0, 4, 1, 5]);
                let t1 = self.shuffle32(r[2], r[3], [0, 4, 1, 5]);
                let t2 = self.shuffle32(r[0], r[1], [2, 6, 3, 7]);
                let t3 = self.shuffle32(r[2], r[3], [2, 6, 3, 7]);
                for (a, b, l) in [
                    (t0, t1, [0, 1, 4, 5]),
                    (t0, t1, [2, 3, 6, 7]),
                    (t2, t3, [0, 1, 4, 5]),
                    (t2, t3, [2, 3, 6, 7]),
                ] {
                    let c = self.shuffle32(a, b, l);
                    chunks.push(self.b.ins().bitcast(I32X4, le(), c));
                }
                x += 4;
            } else if run(2) {
                // Lanes' qwords [q0, q1] and [q2, q3]: the low dwords, then the high ones.
                let q: Vec<Value> = ps
                    .iter()
                    .map(|&p| self.b.ins().load(types::I64, le(), p, d as i32))
                    .collect();
                let a = self.b.ins().scalar_to_vector(I64X2, q[0]);
                let a = self.b.ins().insertlane(a, q[1], 1);
                let b = self.b.ins().scalar_to_vector(I64X2, q[2]);
                let b = self.b.ins().insertlane(b, q[3], 1);
                let a = self.b.ins().bitcast(I32X4, le(), a);
                let b = self.b.ins().bitcast(I32X4, le(), b);
                for l in [[0, 2, 4, 6], [1, 3, 5, 7]] {
                    let c = self.shuffle32(a, b, l);
                    chunks.push(self.b.ins().bitcast(I32X4, le(), c));
                }
                x += 2;
            } else {
                let mut v = None;
                for (j, &p) in ps.iter().enumerate() {
                    let e = self.b.ins().load(types::I32, le(), p, d as i32);
                    v = Some(match v {
                        None => self.b.ins().scalar_to_vector(I32X4, e),
                        Some(v) => self.b.ins().insertlane(v, e, j as u8),
                    });
                }
                chunks.push(v.ok_or("empty chunk")?);
                x += 1;
            }
        }
        for (c, &(reg, _)) in chunks.into_iter().zip(&mu.dest) {
            let off = WaveState::vgpr_offset(reg as usize, 0) as i32;
            self.b.ins().store(trusted(), c, row0, off);
        }
        self.quad_loop_end(hdr, li, join);
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
            self.store_piece_in_lane_order(ptrs[base], data[x], size, d);
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
