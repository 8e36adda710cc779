//! The per-lane inline path of a vector access (any lanes inside the window of the lowest
//! active lane), and a multi-dword load's pieces loaded at once that way.

use super::WinParts;
use crate::ir::{Op, Val};
use crate::jit::analysis::memory::fused_load_pieces;
use crate::jit::lower::{le, sty, trusted, Gen, GenResult};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, BlockArg, InstBuilder, StackSlot, StackSlotData, StackSlotKind, Value,
};

impl Gen<'_, '_> {
    /// The first dword piece (op `i`, loading from `addr` under `mask`) of a multi-dword
    /// load ([`fused_load_pieces`]): tries all pieces at once, every active lane's bytes
    /// inside the window of the lowest active lane, one window test per lane instead of one
    /// per piece. Returns `Some((op i's buffer, block to continue at))`, the current block
    /// being the helper path of each piece (taken when the fused one does not apply: a lane
    /// outside the window, several windows, an empty mask); a flag slot tells the later
    /// pieces ([`Gen::fused`]) which ran. `None` (nothing emitted) when op `i` is no such
    /// first piece.
    pub(in crate::jit::lower) fn fused_load(
        &mut self,
        i: usize,
        addr: Val,
        mask: Val,
    ) -> GenResult<Option<(StackSlot, cranelift_codegen::ir::Block)>> {
        let Some(pieces) = fused_load_pieces(self.block, i) else {
            return Ok(None);
        };
        let Some(Op::Load { space, .. }) = self.block.ops.get(i) else {
            return Ok(None);
        };
        let space = *space;
        let n = pieces.len();
        let slot = |g: &mut Self, size: u32, align: u8| {
            g.b.create_sized_stack_slot(StackSlotData::new(
                StackSlotKind::ExplicitSlot,
                size,
                align,
            ))
        };
        let res: Vec<StackSlot> = (0..n).map(|_| slot(self, 256, 4)).collect();
        let flag = slot(self, 1, 0);
        let m = self.lane_bits(mask)?;
        let abuf = self.read_buffer(addr, 0)?;
        let fail = self.b.create_block();
        let ok = self.cold_block();
        // The window of the lowest active lane's `4n` bytes; each lane tested against it.
        let anchor = self.cold_block();
        self.b.ins().brif(m, anchor, &[], fail, &[]);
        self.b.switch_to_block(anchor);
        self.b.seal_block(anchor);
        let f = self.b.ins().ctz(m);
        let fo = self.b.ins().ishl_imm_u(f, 3);
        let fa = self.b.ins().iadd(abuf, fo);
        let a = self.b.ins().load(types::I64, trusted(), fa, 0);
        let span = self.iconst(types::I64, 4 * n as u64);
        let w = self.window_of(space, a, span)?;
        let go = self.cold_block();
        self.b.ins().brif(w.hit, go, &[], fail, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, m, all_lanes);
        let (fb, pb) = (self.cold_block(), self.cold_block());
        self.b.ins().brif(full, fb, &[], pb, &[]);
        for (blk, masked) in [(fb, false), (pb, true)] {
            self.b.switch_to_block(blk);
            self.b.seal_block(blk);
            let (hdr, li) = self.quad_loop_begin();
            let ao = self.b.ins().ishl_imm_u(li, 3);
            let ab = self.b.ins().iadd(abuf, ao);
            let ms = if masked { self.b.ins().ushr(m, li) } else { m };
            let ro = self.b.ins().ishl_imm_u(li, 2);
            let rps: Vec<Value> = res
                .iter()
                .map(|&r| {
                    let base = self.b.ins().stack_addr(types::I64, r, 0);
                    self.b.ins().iadd(base, ro)
                })
                .collect();
            for j in 0..4usize {
                let (off, act) = self.gather_offset(&w, ab, ms, j, masked, fail);
                let p = self.b.ins().iadd(w.host, off);
                for (k, &rp) in rps.iter().enumerate() {
                    let x = self.b.ins().load(types::I32, le(), p, (4 * k) as i32);
                    let x = match act {
                        Some(act) => {
                            let zero = self.iconst(types::I32, 0);
                            self.b.ins().select(act, x, zero)
                        }
                        None => x,
                    };
                    self.b.ins().store(trusted(), x, rp, (4 * j) as i32);
                }
            }
            self.quad_loop_end(hdr, li, ok);
        }
        // Joined by op i's code after its per-piece path.
        let done = self.b.create_block();
        self.b.switch_to_block(ok);
        self.b.seal_block(ok);
        let one = self.iconst(types::I8, 1);
        self.b.ins().stack_store(types::I64, one, flag, 0);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(fail);
        self.b.seal_block(fail);
        let zero = self.iconst(types::I8, 0);
        self.b.ins().stack_store(types::I64, zero, flag, 0);
        for (k, &op) in pieces.iter().enumerate().skip(1) {
            self.fused.insert(op, (res[k], flag));
        }
        Ok(Some((res[0], done)))
    }

    /// Tier 1 for lanes at any addresses (after [`Gen::mem_plan`]'s fixed-stride test
    /// failed): the window holding the lowest active lane's access, found in the current
    /// block. Branches to `helper` when the mask `m` is empty or no window holds that access;
    /// continues (in a new block) with the window. Every other active lane is tested against
    /// this window as it is accessed ([`Gen::gather_load`], [`Gen::gather_store`]).
    pub(in crate::jit::lower) fn gather_window(
        &mut self,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        span: u64,
        helper: cranelift_codegen::ir::Block,
    ) -> GenResult<WinParts> {
        let anchor = self.cold_block();
        self.b.ins().brif(m, anchor, &[], helper, &[]);
        self.b.switch_to_block(anchor);
        self.b.seal_block(anchor);
        // The lowest active lane (m != 0, so < 64).
        let f = self.b.ins().ctz(m);
        let fo = self.b.ins().ishl_imm_u(f, 3);
        let fa = self.b.ins().iadd(abuf, fo);
        let a = self.b.ins().load(types::I64, trusted(), fa, 0);
        let sz = self.iconst(types::I64, span);
        let w = self.window_of(space, a, sz)?;
        let go = self.cold_block();
        self.b.ins().brif(w.hit, go, &[], helper, &[]);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        Ok(w)
    }

    /// Opens a loop over the block's lanes four at a time (cold): returns its header and the
    /// first lane of the current four (`I64`); the body follows in the current block and
    /// [`Gen::quad_loop_end`] closes it.
    pub(in crate::jit::lower) fn quad_loop_begin(
        &mut self,
    ) -> (cranelift_codegen::ir::Block, Value) {
        let hdr = self.cold_block();
        let i = self.b.append_block_param(hdr, types::I64);
        let zero = self.iconst(types::I64, 0);
        self.b.ins().jump(hdr, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(hdr);
        (hdr, i)
    }

    /// Closes [`Gen::quad_loop_begin`]'s loop, continuing at `exit`.
    pub(in crate::jit::lower) fn quad_loop_end(
        &mut self,
        hdr: cranelift_codegen::ir::Block,
        i: Value,
        exit: cranelift_codegen::ir::Block,
    ) {
        let next = self.b.ins().iadd_imm_s(i, 4);
        let more = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, next, self.lanes as i64);
        self.b
            .ins()
            .brif(more, hdr, &[BlockArg::Value(next)], exit, &[]);
        self.b.seal_block(hdr);
    }

    /// The window offset of lane `i + j`'s access (addresses at `abuf`), 0 (inside: the
    /// anchor fits) for an inactive lane when `masked`; branches to `out` when it lies
    /// outside `w`. Returns `(offset, active)` (`active` only when `masked`).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn gather_offset(
        &mut self,
        w: &WinParts,
        ab: Value,
        ms: Value,
        j: usize,
        masked: bool,
        out: cranelift_codegen::ir::Block,
    ) -> (Value, Option<Value>) {
        let a = self.b.ins().load(types::I64, trusted(), ab, (8 * j) as i32);
        let off = self.b.ins().isub(a, w.start);
        let (off, act) = if masked {
            let bit = self.b.ins().band_imm_u(ms, 1i64 << j);
            let zero = self.iconst(types::I64, 0);
            (self.b.ins().select(bit, off, zero), Some(bit))
        } else {
            (off, None)
        };
        let bad = self.b.ins().icmp(IntCC::UnsignedGreaterThan, off, w.lim);
        let next = self.cold_block();
        self.b.ins().brif(bad, out, &[], next, &[]);
        self.b.switch_to_block(next);
        self.b.seal_block(next);
        (off, act)
    }

    /// Tier 1 for a load whose lanes are not at a fixed stride (emitted where
    /// [`Gen::mem_plan`]'s test failed): every active lane's element from the window of the
    /// lowest active lane ([`Gen::gather_window`]), one host load per lane in ascending lane
    /// order into `res` (inactive lanes 0), then a jump to `join`. A lane outside the window
    /// (or an empty mask, or no window) sends the whole access to `helper` (loads have no
    /// side effects, so the partial result is simply overwritten there).
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn gather_load(
        &mut self,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        size: u8,
        signed: bool,
        bits: u32,
        res: StackSlot,
        join: cranelift_codegen::ir::Block,
        helper: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let w = self.gather_window(space, abuf, m, size as u64, helper)?;
        let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, m, all_lanes);
        let (fb, pb) = (self.cold_block(), self.cold_block());
        self.b.ins().brif(full, fb, &[], pb, &[]);
        let rb = bits as i64 / 8;
        for (blk, masked) in [(fb, false), (pb, true)] {
            self.b.switch_to_block(blk);
            self.b.seal_block(blk);
            let (hdr, i) = self.quad_loop_begin();
            let ao = self.b.ins().ishl_imm_u(i, 3);
            let ab = self.b.ins().iadd(abuf, ao);
            let ms = if masked { self.b.ins().ushr(m, i) } else { m };
            let ro = self.b.ins().imul_imm_s(i, rb);
            let rbase = self.b.ins().stack_addr(types::I64, res, 0);
            let rp = self.b.ins().iadd(rbase, ro);
            for j in 0..4usize {
                let (off, act) = self.gather_offset(&w, ab, ms, j, masked, helper);
                let p = self.b.ins().iadd(w.host, off);
                let x = match (size, signed) {
                    (1, false) => self.b.ins().uload8(types::I32, le(), p, 0),
                    (1, true) => self.b.ins().sload8(types::I32, le(), p, 0),
                    (2, false) => self.b.ins().uload16(types::I32, le(), p, 0),
                    (2, true) => self.b.ins().sload16(types::I32, le(), p, 0),
                    _ => self.b.ins().load(sty(bits), le(), p, 0),
                };
                let x = match act {
                    Some(act) => {
                        let zero = self.iconst(sty(bits), 0);
                        self.b.ins().select(act, x, zero)
                    }
                    None => x,
                };
                self.b.ins().store(trusted(), x, rp, (rb * j as i64) as i32);
            }
            self.quad_loop_end(hdr, i, join);
        }
        Ok(())
    }

    /// Tier 1 for a store whose lanes are not at a fixed stride, or with a partial mask
    /// (emitted where [`Gen::mem_plan`]'s test failed): first every active lane is tested
    /// against the window of the lowest active lane (any lane outside, an empty mask or no
    /// window: `helper`, nothing stored), then the low `size` bytes of each active lane of
    /// the data buffer `dbuf` (lanes of `dbits`) are stored in ascending lane order (a later
    /// lane wins on overlap, as the checked path); an inactive lane's store goes to a stack
    /// slot instead (its bytes are never touched). Then a jump to `join`.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn gather_store(
        &mut self,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        size: u8,
        dbuf: Value,
        dbits: u32,
        join: cranelift_codegen::ir::Block,
        helper: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let w = self.gather_window(space, abuf, m, size as u64, helper)?;
        let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, m, all_lanes);
        let (fb, pb) = (self.cold_block(), self.cold_block());
        self.b.ins().brif(full, fb, &[], pb, &[]);
        let db = dbits as i64 / 8;
        let sink =
            self.b
                .create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 8, 3));
        for (blk, masked) in [(fb, false), (pb, true)] {
            self.b.switch_to_block(blk);
            self.b.seal_block(blk);
            // Pass 1: every active lane inside (a fault must leave memory untouched).
            let stores = self.cold_block();
            let (hdr, i) = self.quad_loop_begin();
            let ao = self.b.ins().ishl_imm_u(i, 3);
            let ab = self.b.ins().iadd(abuf, ao);
            let ms = if masked { self.b.ins().ushr(m, i) } else { m };
            for j in 0..4usize {
                self.gather_offset(&w, ab, ms, j, masked, helper);
            }
            self.quad_loop_end(hdr, i, stores);
            // Pass 2: the stores, lowest lane first.
            self.b.switch_to_block(stores);
            self.b.seal_block(stores);
            let (hdr, i) = self.quad_loop_begin();
            let ao = self.b.ins().ishl_imm_u(i, 3);
            let ab = self.b.ins().iadd(abuf, ao);
            let doff = self.b.ins().imul_imm_s(i, db);
            let dp = self.b.ins().iadd(dbuf, doff);
            let ms = if masked { self.b.ins().ushr(m, i) } else { m };
            for j in 0..4usize {
                let a = self.b.ins().load(types::I64, trusted(), ab, (8 * j) as i32);
                let off = self.b.ins().isub(a, w.start);
                let p = self.b.ins().iadd(w.host, off);
                let p = if masked {
                    let bit = self.b.ins().band_imm_u(ms, 1i64 << j);
                    let s = self.b.ins().stack_addr(types::I64, sink, 0);
                    self.b.ins().select(bit, p, s)
                } else {
                    p
                };
                let x = self
                    .b
                    .ins()
                    .load(sty(dbits), trusted(), dp, (db * j as i64) as i32);
                match size {
                    1 => self.b.ins().istore8(le(), x, p, 0),
                    2 => self.b.ins().istore16(le(), x, p, 0),
                    _ => self.b.ins().store(le(), x, p, 0),
                };
            }
            self.quad_loop_end(hdr, i, join);
        }
        Ok(())
    }
}
