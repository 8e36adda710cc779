//! Multi-dword accesses ([`crate::jit::analysis::memory::multi_access`]) lowered as one.

use super::PathLayout;
use crate::ir::Op;
use crate::jit::analysis::lds_runs::{load_run, store_run};
use crate::jit::analysis::memory::{multi_access, vgpr_row, Multi, RunAddr, RunBase, MULTI_SPAN};
use crate::jit::analysis::MemLowering;
use crate::jit::lower::{le, masks::LANE_MASKS, trusted, Gen, GenResult, I32X4, JV};
use crate::wave::{WaveState, MAX_LANES};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value};

impl Gen<'_, '_> {
    /// One piece of a multi-dword store, in lane order (four lanes per iteration): the low
    /// `size` bytes of each lane's data dword (`data`, a stack buffer's address) at the lane's
    /// host address (the 64-bit pointers in `ptrs`) plus the piece's offset `d`.
    pub(in crate::jit::lower) fn store_piece_in_lane_order(
        &mut self,
        ptrs: StackSlot,
        data: Value,
        size: u8,
        d: u64,
    ) {
        let next = self.b.create_block();
        let (hdr, li) = self.quad_loop_begin();
        let po = self.b.ins().ishl_imm_u(li, 3);
        let pbase = self.b.ins().stack_addr(types::I64, ptrs, 0);
        let pp = self.b.ins().iadd(pbase, po);
        let dof = self.b.ins().ishl_imm_u(li, 2);
        let dp = self.b.ins().iadd(data, dof);
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

    /// Emits the multi-dword access starting at op `i` ([`multi_access`]) as one, when there
    /// is one: returns the index of the op after it.
    pub(in crate::jit::lower) fn try_multi(&mut self, i: usize) -> GenResult<Option<usize>> {
        let blk = self.block;
        let (uses, last_use) = (&self.facts.uses, &self.facts.last_use);
        let mu = match load_run(blk, i, uses, last_use)
            .or_else(|| multi_access(blk, i, uses, last_use))
        {
            Some(mu) => mu,
            None => match store_run(blk, i, &self.facts.last_use) {
                Some(mu) => mu,
                None => return Ok(None),
            },
        };
        self.emit_multi(&mu)
            .map_err(|e| format!("ops {i}..={}: {e}", mu.last))?;
        Ok(Some(mu.last + 1))
    }

    /// Sets value `k` (emitted out of order) as [`Gen::record`] would.
    pub(in crate::jit::lower) fn set_val(&mut self, k: usize, v: JV) {
        let src = match (&self.block.ops[k], &v) {
            (Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
            _ => None,
        };
        self.vals[k] = v;
        self.splat_src[k] = src;
    }

    /// Emits a multi-dword access ([`multi_access`]) as one: when every active lane's
    /// `span` bytes lie in the window of the lowest active lane (tested for all lanes
    /// before anything is written), loads go straight into their registers (four lanes at
    /// a time, no result buffers, no address vectors of the later pieces) and stores write
    /// piece after piece in lane order (the order of the separate stores, so overlapping
    /// lanes end as on the checked path). Otherwise (a cold path) every op of the range runs
    /// as usual, loads and stores through their helpers.
    pub(in crate::jit::lower) fn emit_multi(&mut self, mu: &Multi) -> GenResult<()> {
        let blk = self.block;
        if self.vals.len() != mu.first {
            return Err("value numbering".into());
        }
        for _ in mu.first..=mu.last {
            self.vals.push(JV::None);
            self.splat_src.push(None);
        }
        self.flush_counts();
        if !mu.load {
            // The stores write memory (`super::pending`).
            self.materialise_live(mu.first, true);
        }
        for &k in &mu.hoist {
            let v = self.op(k, &blk.ops[k], blk.types[k])?;
            self.set_val(k, v);
        }
        let (space, addr, mask) = match &blk.ops[mu.first] {
            Op::Load {
                space, addr, mask, ..
            }
            | Op::Store {
                space, addr, mask, ..
            } => (*space, *addr, *mask),
            _ => return Err("multi-dword access".into()),
        };
        let m = self.lane_bits(mask)?;
        // The first address, when the lane-group form left it to the general code of lane-
        // affine stores (a store run's pieces may be such stores): made here, before both
        // paths; the later pieces' (in the range) are made by the fallback.
        let remat = self.remat_address(addr)?;
        // The first piece's lane addresses, when a base counts from them (else unused).
        let abuf = if mu.bases.iter().any(|rb| rb.addr == RunAddr::First) {
            self.read_buffer(addr, 0)?
        } else {
            self.iconst(types::I64, 0)
        };
        // Stores: each piece's data row (its register, else a buffer).
        let mut data = Vec::new();
        if !mu.load {
            for (x, &(k, _)) in mu.pieces.iter().enumerate() {
                let Op::Store { data: dv, .. } = &blk.ops[k] else {
                    return Err("multi-dword store".into());
                };
                // (The range writes no register: a row read anywhere in it holds its value
                // at every store.)
                let p = match vgpr_row(self.block, *dv, mu.last) {
                    Some(r) => self.state_addr(WaveState::vgpr_offset(r as usize, 0)),
                    None if 1 + x < self.slots.len() => self.read_buffer(*dv, 1 + x)?,
                    None => {
                        let chunks = self.v(*dv)?;
                        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                            StackSlotKind::ExplicitSlot,
                            4 * MAX_LANES as u32,
                            4,
                        ));
                        for (c, v) in chunks.iter().enumerate() {
                            self.b
                                .ins()
                                .stack_store(types::I64, *v, slot, (c * 16) as i32);
                        }
                        self.b.ins().stack_addr(types::I64, slot, 0)
                    }
                };
                data.push(p);
            }
        }
        let fallback = self.b.create_block();
        let join = self.b.create_block();
        let fast_done = self.b.create_block();
        self.layout = PathLayout::InLine;
        let r = self.multi_fast(mu, space, abuf, m, &data, fallback, fast_done);
        self.layout = PathLayout::Cold;
        r?;
        // A store run's instruction counts: after its stores here, in order on the fallback;
        // added to the counters on each path.
        let counts: Vec<usize> = (mu.first..=mu.last)
            .filter(|&k| matches!(blk.ops[k], Op::CountVector { .. }))
            .collect();
        self.b.switch_to_block(fast_done);
        self.b.seal_block(fast_done);
        for &k in &counts {
            self.op(k, &blk.ops[k], blk.types[k])?;
        }
        self.flush_counts();
        self.b.ins().jump(join, &[]);
        // The fallback: the ops as usual, memory through the helpers; laid out cold.
        let from = self.b.func.dfg.num_blocks();
        self.b.switch_to_block(fallback);
        self.b.seal_block(fallback);
        self.mem = MemLowering::Helper;
        let mut r = Ok(());
        for k in mu.first..=mu.last {
            if mu.hoist.contains(&k) {
                continue;
            }
            match self.op(k, &blk.ops[k], blk.types[k]) {
                Ok(v) => self.set_val(k, v),
                Err(e) => {
                    r = Err(format!("op {k}: {e}"));
                    break;
                }
            }
        }
        self.mem = self.facts.mem;
        r?;
        self.flush_counts();
        self.b.ins().jump(join, &[]);
        self.b.set_cold_block(fallback);
        for b in from..self.b.func.dfg.num_blocks() {
            self.b
                .set_cold_block(cranelift_codegen::ir::Block::from_u32(b as u32));
        }
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        // Values made on one path only; registers written behind the caches' back.
        for k in mu.first..=mu.last {
            if !mu.hoist.contains(&k) {
                self.vals[k] = JV::None;
                self.splat_src[k] = None;
                self.escaped.remove(&(k as u32));
                self.pending.remove(&(k as u32));
            }
        }
        self.end_remat(remat);
        self.vreg_cache.clear();
        self.mask_cache.clear();
        self.multi += 1;
        Ok(())
    }

    /// The fast path of [`Gen::emit_multi`]: branches to `fallback` when it does not
    /// apply, else does the access and jumps to `join`.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn multi_fast(
        &mut self,
        mu: &Multi,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        data: &[Value],
        fallback: cranelift_codegen::ir::Block,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        // LDS accesses from registers' rows under a full mask: one span test (`lds_span`).
        self.lds_span(mu, space, m, data, join)?;
        let nb = mu.bases.len();
        // Each base's lane addresses: a 64-bit buffer, or a register's row.
        let srcs: Vec<Value> = mu
            .bases
            .iter()
            .map(|rb| match rb.addr {
                RunAddr::Row(r) | RunAddr::Pair(r, _) => {
                    self.state_addr(WaveState::vgpr_offset(r as usize, 0))
                }
                RunAddr::First => abuf,
            })
            .collect();
        // The window of each base's bytes for the lowest active lane (none active: the
        // fallback).
        let anchor = self.cold_block();
        self.b.ins().brif(m, anchor, &[], fallback, &[]);
        self.b.switch_to_block(anchor);
        self.b.seal_block(anchor);
        let f = self.b.ins().ctz(m);
        let mut ws = Vec::with_capacity(nb);
        for (x, rb) in mu.bases.iter().enumerate() {
            let a = self.run_lane_address(rb, srcs[x], f, 0);
            let sz = self.iconst(types::I64, rb.span);
            let w = self.window_of(space, a, sz)?;
            let go = self.cold_block();
            self.b.ins().brif(w.hit, go, &[], fallback, &[]);
            self.b.switch_to_block(go);
            self.b.seal_block(go);
            ws.push(w);
        }
        // Pass 1: every active lane's host address of each base into `ptrs` (an inactive
        // lane's: the window's start for a load, whose lanes are then not written; a sink
        // for a store).
        let ptrs: Vec<StackSlot> = (0..nb)
            .map(|_| {
                self.b.create_sized_stack_slot(StackSlotData::new(
                    StackSlotKind::ExplicitSlot,
                    8 * MAX_LANES as u32,
                    4,
                ))
            })
            .collect();
        let sink = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            MULTI_SPAN as u32,
            4,
        ));
        let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, m, all_lanes);
        let (fb, pb) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(full, fb, &[], pb, &[]);
        let (fdone, pdone) = (self.b.create_block(), self.b.create_block());
        for (blk, masked, done) in [(fb, false, fdone), (pb, true, pdone)] {
            self.b.switch_to_block(blk);
            self.b.seal_block(blk);
            // The form for exec holes is laid out cold (as the fallback).
            self.layout = if masked {
                PathLayout::Cold
            } else {
                PathLayout::InLine
            };
            if masked {
                self.b.set_cold_block(blk);
            }
            let (hdr, li) = self.quad_loop_begin();
            let ao = self.b.ins().ishl_imm_u(li, 3);
            let ms = if masked { self.b.ins().ushr(m, li) } else { m };
            for j in 0..4usize {
                let act = masked.then(|| self.b.ins().band_imm_u(ms, 1i64 << j));
                for (x, rb) in mu.bases.iter().enumerate() {
                    let w = ws[x];
                    let a = self.run_lane_address(rb, srcs[x], li, j);
                    let off = self.b.ins().isub(a, w.start);
                    let off = match act {
                        Some(bit) => {
                            let zero = self.iconst(types::I64, 0);
                            self.b.ins().select(bit, off, zero)
                        }
                        None => off,
                    };
                    let bad = self.b.ins().icmp(IntCC::UnsignedGreaterThan, off, w.lim);
                    let next = self.cold_block();
                    self.b.ins().brif(bad, fallback, &[], next, &[]);
                    self.b.switch_to_block(next);
                    self.b.seal_block(next);
                    let mut p = self.b.ins().iadd(w.host, off);
                    if let (Some(act), false) = (act, mu.load) {
                        let s = self.b.ins().stack_addr(types::I64, sink, 0);
                        p = self.b.ins().select(act, p, s);
                    }
                    let pbase = self.b.ins().stack_addr(types::I64, ptrs[x], 0);
                    let pp = self.b.ins().iadd(pbase, ao);
                    self.b.ins().store(trusted(), p, pp, (8 * j) as i32);
                }
            }
            self.quad_loop_end(hdr, li, done);
        }
        self.layout = PathLayout::InLine;
        if mu.load {
            for (blk, masked) in [(fdone, false), (pdone, true)] {
                self.b.switch_to_block(blk);
                self.b.seal_block(blk);
                self.layout = if masked {
                    PathLayout::Cold
                } else {
                    PathLayout::InLine
                };
                if masked {
                    self.b.set_cold_block(blk);
                }
                self.multi_load_pass(mu, &ptrs, m, masked, join)?;
            }
            self.layout = PathLayout::InLine;
        } else {
            let stores = self.b.create_block();
            for blk in [fdone, pdone] {
                self.b.switch_to_block(blk);
                self.b.seal_block(blk);
                self.b.ins().jump(stores, &[]);
            }
            self.b.switch_to_block(stores);
            self.b.seal_block(stores);
            // Piece after piece, each in lane order: the order of the separate stores.
            for (x, &(_, d)) in mu.pieces.iter().enumerate() {
                let size = mu.sizes.get(x).copied().unwrap_or(4);
                self.store_piece_in_lane_order(ptrs[0], data[x], size, d);
            }
            self.b.ins().jump(join, &[]);
        }
        Ok(())
    }

    /// The address (`I64`) of lane `li + j` (`li` an `I64`) from base `rb` of a run: from
    /// `src`, the 64-bit lane addresses of the first piece or the (low) base register's row,
    /// plus the base's bias.
    fn run_lane_address(&mut self, rb: &RunBase, src: Value, li: Value, j: usize) -> Value {
        let a = match rb.addr {
            RunAddr::First => {
                let o = self.b.ins().ishl_imm_u(li, 3);
                let p = self.b.ins().iadd(src, o);
                self.b.ins().load(types::I64, trusted(), p, (8 * j) as i32)
            }
            RunAddr::Row(_) => {
                let o = self.b.ins().ishl_imm_u(li, 2);
                let p = self.b.ins().iadd(src, o);
                self.b.ins().uload32(trusted(), p, (4 * j) as i32)
            }
            RunAddr::Pair(lo, hi) => {
                let o = self.b.ins().ishl_imm_u(li, 2);
                let p = self.b.ins().iadd(src, o);
                let l = self.b.ins().uload32(trusted(), p, (4 * j) as i32);
                // The high half's row, at its distance from the low one's.
                let d = WaveState::vgpr_offset(hi as usize, 0) as i64
                    - WaveState::vgpr_offset(lo as usize, 0) as i64;
                let h = self
                    .b
                    .ins()
                    .uload32(trusted(), p, (d + 4 * j as i64) as i32);
                let h = self.b.ins().ishl_imm_u(h, 32);
                self.b.ins().bor(l, h)
            }
        };
        if rb.bias == 0 {
            a
        } else {
            self.b.ins().iadd_imm_s(a, rb.bias as i64)
        }
    }

    /// Pass 2 of a multi-dword load: four lanes at a time, each piece's dwords of those
    /// lanes (one 16-byte load per lane and a transpose for four consecutive dwords)
    /// written to the piece's register: all four lanes when `masked` is false (every lane
    /// of the block active), else the active ones (a write with the constant all-ones mask
    /// writes 0 to the inactive lanes, as the load gives them). Then a jump to `join`.
    pub(in crate::jit::lower) fn multi_load_pass(
        &mut self,
        mu: &Multi,
        ptrs: &[StackSlot],
        m: Value,
        masked: bool,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let (hdr, li) = self.quad_loop_begin();
        let po = self.b.ins().ishl_imm_u(li, 3);
        // Per base, the host addresses of the four lanes.
        let mut pss: Vec<Vec<Value>> = Vec::with_capacity(ptrs.len());
        for &slot in ptrs {
            let pbase = self.b.ins().stack_addr(types::I64, slot, 0);
            let pp = self.b.ins().iadd(pbase, po);
            pss.push(
                (0..4)
                    .map(|j| self.b.ins().load(types::I64, trusted(), pp, 8 * j))
                    .collect(),
            );
        }
        let offs: Vec<u64> = mu.pieces.iter().map(|&(_, d)| d).collect();
        let base = |x: usize| mu.base_of.get(x).copied().unwrap_or(0) as usize;
        // Four pieces at consecutive dwords (a `b128`): one 16-byte load per lane and a
        // transpose; any other piece: its dword of each lane.
        let mut chunks: Vec<Value> = Vec::with_capacity(offs.len());
        let mut x = 0;
        while x < offs.len() {
            let d = offs[x];
            let ps = pss.get(base(x)).ok_or("run base")?;
            let one_base = (x..x + 4).all(|y| base(y) == base(x));
            if offs.get(x..x + 4) == Some(&[d, d + 4, d + 8, d + 12]) && one_base {
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
                continue;
            }
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
        let lm = if masked {
            // The lane mask of lanes li..li+4 (`lane_mask`'s table).
            let sh = self.b.ins().ushr(m, li);
            let idx = self.b.ins().band_imm_u(sh, 15);
            let off = self.b.ins().ishl_imm_u(idx, 4);
            let base = self.iconst(types::I64, LANE_MASKS.m32.as_ptr() as u64);
            let at = self.b.ins().iadd(base, off);
            // A static table: never written, always mapped.
            Some(
                self.b
                    .ins()
                    .load(I32X4, trusted().with_readonly().with_can_move(), at, 0),
            )
        } else {
            None
        };
        let lo = self.b.ins().ishl_imm_u(li, 2);
        let row0 = self.b.ins().iadd(self.state, lo);
        for (c, &(reg, ones)) in chunks.into_iter().zip(&mu.dest) {
            let off = WaveState::vgpr_offset(reg as usize, 0) as i32;
            let v = match (lm, ones) {
                (None, _) => c,
                (Some(lm), true) => self.b.ins().band(c, lm),
                (Some(lm), false) => {
                    let old = self.b.ins().load(I32X4, trusted(), row0, off);
                    self.b.ins().bitselect(lm, c, old)
                }
            };
            self.b.ins().store(trusted(), v, row0, off);
        }
        self.quad_loop_end(hdr, li, join);
        Ok(())
    }
}
