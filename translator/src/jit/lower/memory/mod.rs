//! Memory ops: vector loads, stores and atomics, scalar loads and stores. A single vector
//! access tries its inline paths ([`inline`]: a fixed lane stride; [`gather`]: any lanes inside
//! one window) before its helper; a multi-dword access ([`multi`]) is lowered as one.

use super::{le, Gen, GenResult, JV};
use crate::ir::{Op, Ty};
use crate::jit::analysis::memory::inline_size;
use crate::jit::codes::*;
use crate::jit::helpers;
use core::mem::offset_of;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, StackSlotData, StackSlotKind, Value};

mod affine;
mod direct_store;
mod gather;
mod inline;
mod lanetest;
mod lanexor;
mod lds_span;
mod multi;
mod pending;
mod rows;
mod sload_run;

pub(in crate::jit::lower) use pending::Pending;
pub(in crate::jit::lower) use sload_run::Ahead;

/// Where the blocks of inline memory paths are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::jit::lower) enum PathLayout {
    /// After the function's other code: the helper path stays in line, so blocks whose
    /// accesses never fit the inline pattern (a GEMM's loads) keep their hot code compact.
    Cold,
    /// In line: the fast path of a multi-dword access ([`multi`]), which is the hot one.
    InLine,
}

/// One window of the context's `FastMemory` as generated code selected it
/// ([`Gen::window_of`]).
#[derive(Clone, Copy)]
pub(in crate::jit::lower) struct WinParts {
    /// `I8`: the access lies in this window.
    pub hit: Value,
    /// Device address of the window's first byte.
    pub start: Value,
    /// The last offset from `start` at which the access fits.
    pub lim: Value,
    /// Host address of `start`.
    pub host: Value,
}

/// One byte per global window selection of a compiled block ([`Gen::window_hinted`]): the
/// index of the window it hit last. Owned by the compiled block, whose code reads and writes
/// it (at any time, from any thread running the block) as relaxed atomics.
pub(crate) struct WindowHints([core::sync::atomic::AtomicU8; WindowHints::LEN]);

impl WindowHints {
    /// Hint bytes per block; later selections of a block with more share them round robin
    /// (a shared hint only makes a miss likelier).
    pub const LEN: usize = 64;

    /// Hints that all name window 0.
    pub fn new() -> WindowHints {
        WindowHints(core::array::from_fn(|_| {
            core::sync::atomic::AtomicU8::new(0)
        }))
    }

    /// Address of the first hint byte, for generated code.
    pub fn addr(&self) -> usize {
        self.0.as_ptr() as usize
    }
}

impl Default for WindowHints {
    fn default() -> Self {
        WindowHints::new()
    }
}

/// An error for an access size the IR does not define.
fn check_size(size: u8) -> GenResult<()> {
    if matches!(size, 1 | 2 | 4 | 8) {
        Ok(())
    } else {
        Err(format!("memory access size {size}"))
    }
}

impl Gen<'_, '_> {
    /// `(hit, ptr)` for an access of `span` bytes at `a` (both `I64`): `hit` (an `I8`
    /// boolean) when they lie in one of `space`'s windows in the context's `FastMemory`,
    /// `ptr` the host address of `a` then. The windows are read from the context at each
    /// access (helpers refresh them after calling the environment).
    pub(in crate::jit::lower) fn window(
        &mut self,
        space: crate::env::Space,
        a: Value,
        span: Value,
    ) -> GenResult<(Value, Value)> {
        let w = self.window_of(space, a, span)?;
        let off = self.b.ins().isub(a, w.start);
        let ptr = self.b.ins().iadd(w.host, off);
        Ok((w.hit, ptr))
    }

    /// The window of `space` in the context's `FastMemory` that holds the `span` bytes at
    /// `a` (both `I64`): `hit` (an `I8` boolean) when there is one, and then its start, the
    /// last offset at which `span` bytes fit (`lim`) and its host address (values unspecified
    /// without a hit). A global window is looked up by this call site's hint first
    /// ([`Gen::window_hinted`]) when the block has hints.
    pub(in crate::jit::lower) fn window_of(
        &mut self,
        space: crate::env::Space,
        a: Value,
        span: Value,
    ) -> GenResult<WinParts> {
        use crate::env::Space;
        match (space, self.hints) {
            (Space::Global | Space::Flat, Some(hints)) => self.window_hinted(hints, a, span),
            _ => Ok(self.window_scan(space, a, span)?.0),
        }
    }

    /// [`Gen::window_of`] for a global access through a hint: the index of the window this
    /// call site hit last (a byte of the block's [`WindowHints`]). That window is tested
    /// alone (one byte load and three window loads); only when it does not hold the access
    /// are all windows scanned ([`Gen::window_scan`], in a cold block), and the scan's
    /// window becomes the hint. The hint only picks which window is tested first: any
    /// value gives the same result.
    fn window_hinted(&mut self, hints: usize, a: Value, span: Value) -> GenResult<WinParts> {
        use crate::env::{FastMemory, MemWindow};
        let slot = self.next_hint % WindowHints::LEN;
        self.next_hint += 1;
        let fm = offset_of!(helpers::JitCtx<'static>, fm);
        let wsize = std::mem::size_of::<MemWindow>();
        let [fs, fl, fh] = MemWindow::FIELD_OFFSETS;
        let global = (fm + offset_of!(FastMemory, global)) as i32;
        let haddr = self.iconst(types::I64, (hints + slot) as u64);
        // Relaxed: a plain byte load/store is single-copy atomic on the hosts (other threads
        // running this block rewrite it); `& 3` keeps any value a window index of the four.
        let h = self.b.ins().uload8(types::I64, super::trusted(), haddr, 0);
        let h = self.b.ins().band_imm_u(h, 3);
        let o = self.b.ins().imul_imm_u(h, wsize as i64);
        let p = self.b.ins().iadd(self.ctx, o);
        // Not `trusted()`-readonly: helpers rewrite the windows between accesses.
        let start = self.b.ins().load(types::I64, le(), p, global + fs as i32);
        let len = self.b.ins().load(types::I64, le(), p, global + fl as i32);
        let host = self.b.ins().load(types::I64, le(), p, global + fh as i32);
        let (ok, lim) = self.window_test(a, span, start, len);
        let join = self.b.create_block();
        // A selection on a cold path (the general code's) continues cold.
        if let Some(cur) = self.b.current_block() {
            if self.b.func.layout.is_cold(cur) {
                self.b.set_cold_block(join);
            }
        }
        for t in [types::I8, types::I64, types::I64, types::I64] {
            self.b.append_block_param(join, t);
        }
        let miss = self.b.create_block();
        self.b.set_cold_block(miss);
        let one = self.iconst(types::I8, 1);
        let args = [one, start, lim, host].map(BlockArg::Value);
        self.b.ins().brif(ok, join, &args, miss, &[]);
        self.b.switch_to_block(miss);
        self.b.seal_block(miss);
        let (w, idx) = self.window_scan(crate::env::Space::Global, a, span)?;
        let idx = self.b.ins().ireduce(types::I8, idx);
        self.b.ins().store(super::trusted(), idx, haddr, 0);
        let args = [w.hit, w.start, w.lim, w.host].map(BlockArg::Value);
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        let p = self.b.block_params(join);
        Ok(WinParts {
            hit: p[0],
            start: p[1],
            lim: p[2],
            host: p[3],
        })
    }

    /// `(inside, lim)` for `span` bytes at `a` and the window `start`, `len` (all `I64`):
    /// `inside` (`I8`) when they lie in it, `lim` the last offset at which they fit.
    fn window_test(&mut self, a: Value, span: Value, start: Value, len: Value) -> (Value, Value) {
        // Inside when `span <= len` and `a - start <= len - span` (an address below
        // `start` wraps above; windows never wrap around 2^64, `MemWindow::new`).
        let off = self.b.ins().isub(a, start);
        let fits = self
            .b
            .ins()
            .icmp(IntCC::UnsignedGreaterThanOrEqual, len, span);
        let lim = self.b.ins().isub(len, span);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, off, lim);
        (self.b.ins().band(fits, inside), lim)
    }

    /// [`Gen::window_of`] by testing every window of `space`, and the index (`I64`) of the
    /// window selected among them (unspecified without a hit).
    fn window_scan(
        &mut self,
        space: crate::env::Space,
        a: Value,
        span: Value,
    ) -> GenResult<(WinParts, Value)> {
        use crate::env::{FastMemory, MemWindow, Space};
        let fm = offset_of!(helpers::JitCtx<'static>, fm);
        let wsize = std::mem::size_of::<MemWindow>();
        let wins: Vec<usize> = match space {
            Space::Global | Space::Flat => (0..4)
                .map(|w| fm + offset_of!(FastMemory, global) + w * wsize)
                .collect(),
            Space::Lds => vec![fm + offset_of!(FastMemory, lds)],
            Space::Scratch => return Err("no scratch window".into()),
        };
        let [fs, fl, fh] = MemWindow::FIELD_OFFSETS;
        let mut sel: Option<(WinParts, Value)> = None;
        for (k, w) in wins.into_iter().enumerate() {
            // Not `trusted()`-readonly: helpers rewrite the windows between accesses.
            let start = self
                .b
                .ins()
                .load(types::I64, le(), self.ctx, (w + fs) as i32);
            let len = self
                .b
                .ins()
                .load(types::I64, le(), self.ctx, (w + fl) as i32);
            let host = self
                .b
                .ins()
                .load(types::I64, le(), self.ctx, (w + fh) as i32);
            let (ok, lim) = self.window_test(a, span, start, len);
            let k = self.iconst(types::I64, k as u64);
            sel = Some(match sel {
                None => (
                    WinParts {
                        hit: ok,
                        start,
                        lim,
                        host,
                    },
                    k,
                ),
                Some((s, idx)) => (
                    WinParts {
                        hit: self.b.ins().bor(s.hit, ok),
                        start: self.b.ins().select(ok, start, s.start),
                        lim: self.b.ins().select(ok, lim, s.lim),
                        host: self.b.ins().select(ok, host, s.host),
                    },
                    self.b.ins().select(ok, k, idx),
                ),
            });
        }
        sel.ok_or_else(|| "no window".into())
    }

    /// A new block of an inline memory path, laid out after the function's other code:
    /// the helper path stays in line, so blocks whose accesses never fit the inline pattern
    /// (a GEMM's loads) keep their hot code compact.
    pub(in crate::jit::lower) fn cold_block(&mut self) -> cranelift_codegen::ir::Block {
        let b = self.b.create_block();
        if self.layout == PathLayout::Cold {
            self.b.set_cold_block(b);
        }
        b
    }

    /// Lowers a vector load.
    pub(in crate::jit::lower) fn load(
        &mut self,
        i: usize,
        op: &Op,
        ty: Option<Ty>,
    ) -> GenResult<JV> {
        Ok(match op {
            Op::Load {
                pc,
                space,
                addr,
                size,
                signed,
                mask,
            } => {
                self.whole_wave("memory")?;
                let t = Self::need(ty)?;
                check_size(*size)?;
                let bits = t.bits();
                // A later piece of a fused multi-dword load: done when the flag says so.
                let pre = self.fused.remove(&i);
                let done = match pre {
                    Some((res, flag)) => {
                        let f = self.b.ins().stack_load(types::I64, types::I8, flag, 0);
                        let next = self.b.create_block();
                        let done = self.b.create_block();
                        self.b.ins().brif(f, done, &[], next, &[]);
                        self.b.switch_to_block(next);
                        self.b.seal_block(next);
                        Some((res, done))
                    }
                    None if !self.mem.fuses_pieces() => None,
                    None => self.fused_load(i, *addr, *mask)?,
                };
                // Bytes, shorts and dwords into V32, qwords into V64: the inline paths first
                // (fixed stride, then any lanes inside one window), else the helper. The
                // pieces of a fused load that did not fit take the helper at once (less
                // code to compile; its direct path still serves lanes inside a window).
                let inline = self.mem.inline_single();
                let use_inline = inline_size(*space, *size, bits) && done.is_none() && inline;
                // The result gets a buffer of its own, written by whichever path runs and
                // kept as the value's lane-order copy (later runs and helpers read it there).
                let res = match done {
                    Some((res, _)) => res,
                    None => self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        t.bits() * 8,
                        4,
                    )),
                };
                // Read through a pointer when an inline path reads every lane contiguously
                // (`pending`): lanes as wide as the access.
                let pend =
                    (use_inline && bits == 8 * *size as u32).then(|| self.new_pending(res, bits));
                let var = pend.map(|p| p.var);
                // A lane-affine address first (`affine`), the general code as its fallback.
                let affine = if use_inline {
                    self.affine_plan(i, *space, *addr, *size, *mask, false)?
                } else {
                    None
                };
                let ajoin = match &affine {
                    Some(ap) => {
                        let (fast, ajoin) = self.affine_branch(ap);
                        self.b.switch_to_block(fast);
                        let layout = std::mem::replace(&mut self.layout, PathLayout::InLine);
                        self.inline_load(ap, *size, *signed, bits, ajoin, res, var)?;
                        self.layout = layout;
                        self.b.switch_to_block(ap.slow);
                        self.b.seal_block(ap.slow);
                        Some(ajoin)
                    }
                    None => None,
                };
                // The general code's paths write the buffer (but the fixed-stride one when it
                // reads every lane contiguously).
                if let Some(var) = var {
                    let a = self.b.ins().stack_addr(types::I64, res, 0);
                    self.b.def_var(var, a);
                }
                let remat = match affine {
                    Some(_) => Some(self.remat_address(*addr)?),
                    None => None,
                };
                let plan = if use_inline {
                    Some(self.mem_plan(*pc, *space, *addr, *size, *mask, false)?)
                } else {
                    None
                };
                let join = match &plan {
                    Some(p) => {
                        let fast = self.cold_block();
                        let slow = p.slow;
                        let join = self.b.create_block();
                        self.b.ins().brif(p.go, fast, &[], slow, &[]);
                        self.b.switch_to_block(fast);
                        self.b.seal_block(fast);
                        self.inline_load(p, *size, *signed, bits, join, res, var)?;
                        self.b.switch_to_block(slow);
                        self.b.seal_block(slow);
                        Some(join)
                    }
                    None => None,
                };
                let m = self.lane_bits(*mask)?;
                let ap = self.read_buffer(*addr, 0)?;
                if let Some(join) = join {
                    let helper = self.b.create_block();
                    // Two rows of consecutive elements (`rows`), then any lanes.
                    self.rows_load(*space, ap, m, *size, *signed, bits, res, join)?;
                    self.gather_load(*space, ap, m, *size, *signed, bits, res, join, helper)?;
                    self.b.switch_to_block(helper);
                    self.b.seal_block(helper);
                }
                let out = self.b.ins().stack_addr(types::I64, res, 0);
                let sp = self.iconst(types::I32, code_of(&SPACES, space).unwrap_or(0) as u64);
                let sz = self.iconst(types::I32, *size as u64);
                let sg = self.iconst(types::I32, *signed as u64);
                let w = self.iconst(types::I32, (t.bits() == 64) as u64);
                let (p, i32t) = (types::I64, types::I32);
                let rc = self
                    .call(
                        helpers::h_load as *const () as usize,
                        &[p, i32t, i32t, i32t, p, p, p, i32t],
                        Some(i32t),
                        &[self.ctx, sp, sz, sg, m, ap, out, w],
                    )
                    .ok_or("helper result")?;
                self.fault_check(rc, *pc);
                if let Some(join) = join {
                    self.b.ins().jump(join, &[]);
                    self.b.switch_to_block(join);
                    self.b.seal_block(join);
                }
                if let Some((_, done)) = done {
                    self.b.ins().jump(done, &[]);
                    self.b.switch_to_block(done);
                    self.b.seal_block(done);
                }
                if let Some(r) = remat {
                    self.end_remat(r);
                }
                self.affine_join(ajoin);
                match pend {
                    Some(p) => {
                        self.pending.insert(i as u32, p);
                    }
                    None => {
                        self.escaped.insert(i as u32, res);
                    }
                }
                JV::Buf(res)
            }
            _ => return Err("not a load".into()),
        })
    }

    /// Branches on an affine plan's `go`: returns the (sealed) fast block and the block both
    /// paths join in.
    fn affine_branch(
        &mut self,
        ap: &inline::MemPlan,
    ) -> (cranelift_codegen::ir::Block, cranelift_codegen::ir::Block) {
        let fast = self.b.create_block();
        let ajoin = self.b.create_block();
        self.b.ins().brif(ap.go, fast, &[], ap.slow, &[]);
        self.b.seal_block(fast);
        (fast, ajoin)
    }

    /// Ends the general path of an access that had an affine one: jumps to and continues
    /// in their join block.
    fn affine_join(&mut self, ajoin: Option<cranelift_codegen::ir::Block>) {
        if let Some(aj) = ajoin {
            self.b.ins().jump(aj, &[]);
            self.b.switch_to_block(aj);
            self.b.seal_block(aj);
        }
    }

    /// Lowers a vector store.
    pub(in crate::jit::lower) fn store(&mut self, i: usize, op: &Op) -> GenResult<JV> {
        Ok(match op {
            Op::Store {
                pc,
                space,
                addr,
                size,
                data,
                mask,
            } => {
                self.whole_wave("memory")?;
                check_size(*size)?;
                self.before_write(i);
                let dbits = self.ty(*data)?.bits();
                let inline = self.mem.inline_single();
                let use_inline = inline_size(*space, *size, dbits) && inline;
                // Written by the lane-group loop before it when this is set (`direct_store`).
                let direct = self.direct_stores.remove(&i);
                let affine = if use_inline && direct.is_none() {
                    self.affine_plan(i, *space, *addr, *size, *mask, true)?
                } else {
                    None
                };
                let ajoin = match (&affine, direct) {
                    (None, Some(done)) => {
                        let slow = self.b.create_block();
                        self.b.set_cold_block(slow);
                        let ajoin = self.b.create_block();
                        self.b.ins().brif(done, ajoin, &[], slow, &[]);
                        self.b.switch_to_block(slow);
                        self.b.seal_block(slow);
                        Some(ajoin)
                    }
                    (Some(ap), _) => {
                        let (fast, ajoin) = self.affine_branch(ap);
                        self.b.switch_to_block(fast);
                        let layout = std::mem::replace(&mut self.layout, PathLayout::InLine);
                        self.inline_store(ap, *data, *size, dbits, ajoin)?;
                        self.layout = layout;
                        self.b.switch_to_block(ap.slow);
                        self.b.seal_block(ap.slow);
                        Some(ajoin)
                    }
                    (None, None) => None,
                };
                let remat = match ajoin {
                    Some(_) => Some(self.remat_address(*addr)?),
                    None => None,
                };
                let join = if use_inline {
                    let p = self.mem_plan(*pc, *space, *addr, *size, *mask, true)?;
                    let fast = self.cold_block();
                    let slow = p.slow;
                    let join = self.b.create_block();
                    self.b.ins().brif(p.go, fast, &[], slow, &[]);
                    self.b.switch_to_block(fast);
                    self.b.seal_block(fast);
                    self.inline_store(&p, *data, *size, dbits, join)?;
                    self.b.switch_to_block(slow);
                    self.b.seal_block(slow);
                    Some(join)
                } else {
                    None
                };
                let m = self.lane_bits(*mask)?;
                let dw = dbits == 64;
                let ap = self.read_buffer(*addr, 0)?;
                let dp = self.read_buffer(*data, 1)?;
                if let Some(join) = join {
                    let helper = self.b.create_block();
                    // Lanes at `a0 ^ size * lane` (`lanexor`), then any lanes.
                    self.xor_store(*space, ap, m, *size, dp, dbits, join)?;
                    self.gather_store(*space, ap, m, *size, dp, dbits, join, helper)?;
                    self.b.switch_to_block(helper);
                    self.b.seal_block(helper);
                }
                let sp = self.iconst(types::I32, code_of(&SPACES, space).unwrap_or(0) as u64);
                let sz = self.iconst(types::I32, *size as u64);
                let w = self.iconst(types::I32, dw as u64);
                let (p, i32t) = (types::I64, types::I32);
                let rc = self
                    .call(
                        helpers::h_store as *const () as usize,
                        &[p, i32t, i32t, p, p, p, i32t],
                        Some(i32t),
                        &[self.ctx, sp, sz, m, ap, dp, w],
                    )
                    .ok_or("helper result")?;
                self.fault_check(rc, *pc);
                if let Some(join) = join {
                    self.b.ins().jump(join, &[]);
                    self.b.switch_to_block(join);
                    self.b.seal_block(join);
                }
                if let Some(r) = remat {
                    self.end_remat(r);
                }
                self.affine_join(ajoin);
                JV::None
            }
            _ => return Err("not a store".into()),
        })
    }

    /// Lowers a vector atomic.
    pub(in crate::jit::lower) fn atomic(
        &mut self,
        i: usize,
        op: &Op,
        ty: Option<Ty>,
    ) -> GenResult<JV> {
        Ok(match op {
            Op::Atomic {
                pc,
                space,
                op,
                addr,
                size,
                data,
                cmp,
                mask,
            } => {
                self.whole_wave("memory")?;
                let t = Self::need(ty)?;
                check_size(*size)?;
                self.before_write(i);
                if self.ty(*data)?.bits() != t.bits() {
                    return Err("atomic data width differs from result".into());
                }
                let m = self.lane_bits(*mask)?;
                let ap = self.read_buffer(*addr, 0)?;
                let dp = self.read_buffer(*data, 1)?;
                let cp = match cmp {
                    Some(c) => {
                        if self.ty(*c)?.bits() != t.bits() {
                            return Err("atomic cmp width differs from result".into());
                        }
                        self.read_buffer(*c, 2)?
                    }
                    None => self.iconst(types::I64, 0),
                };
                let out = self.slot_addr(5);
                let sp = self.iconst(types::I32, code_of(&SPACES, space).unwrap_or(0) as u64);
                let ao = code_of(&ATOMICS, op).ok_or("atomic op unknown to the JIT")?;
                let ao = self.iconst(types::I32, ao as u64);
                let sz = self.iconst(types::I32, *size as u64);
                let w = self.iconst(types::I32, (t.bits() == 64) as u64);
                let (p, i32t) = (types::I64, types::I32);
                let rc = self
                    .call(
                        helpers::h_atomic as *const () as usize,
                        &[p, i32t, i32t, i32t, p, p, p, p, p, i32t],
                        Some(i32t),
                        &[self.ctx, sp, ao, sz, m, ap, dp, cp, out, w],
                    )
                    .ok_or("helper result")?;
                self.fault_check(rc, *pc);
                JV::V(self.unspill(5, t.bits()))
            }
            _ => return Err("not an atomic".into()),
        })
    }

    /// Lowers a scalar load or store.
    pub(in crate::jit::lower) fn scalar_mem(&mut self, i: usize, op: &Op) -> GenResult<JV> {
        Ok(match op {
            Op::SLoad { pc, addr } => {
                self.whole_wave("this op")?;
                if !self.sload_ahead.contains_key(&i) {
                    self.sload_read_ahead(i, *addr)?;
                }
                let ahead = self.sload_ahead.remove(&i);
                let a = self.s_as(*addr, types::I64)?;
                // Inline: a dword-aligned address inside a global window (as
                // `memory::try_scalar_load`), else the helper.
                let four = self.iconst(types::I64, 4);
                let low = self.b.ins().band_imm_u(a, 3);
                let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
                let join = self.b.create_block();
                self.b.append_block_param(join, types::I32);
                // Scalar loads in a row (the dwords of one `s_load_dwordxN`, and the loads
                // of one kernel argument block) mostly read one window: a later one, lowered
                // in the block where the previous one's code ended (so the window's values
                // dominate it), first tests its offset against the window that one selected,
                // and selects again only when that fails, or when a call into the
                // environment came since (`sload_valid`: the window may be gone).
                // A load of a run: its dword in the run's window when that holds, else the
                // code below (in a cold block, which the run's window values do not
                // dominate).
                if let Some(ahead) = ahead {
                    self.sload_ahead_read(ahead, join);
                    self.sload_window = None;
                }
                let here = self.b.current_block();
                let reused = match (self.sload_window, self.sload_valid) {
                    (Some((blk, w)), Some(valid)) if Some(blk) == here => {
                        let off = self.b.ins().isub(a, w.start);
                        let inside = self
                            .b
                            .ins()
                            .icmp(IntCC::UnsignedLessThanOrEqual, off, w.lim);
                        // Not after a call into the environment (on the previous load's
                        // helper path, or since): the window may be gone.
                        let valid = self.b.use_var(valid);
                        let hit = self.b.ins().band(w.hit, inside);
                        let hit = self.b.ins().band(hit, valid);
                        let go = self.b.ins().band(hit, aligned);
                        let again = self.b.create_block();
                        self.sload_inline(go, w.host, off, join, again);
                        Some(w)
                    }
                    _ => None,
                };
                // The window kept for the next load (`reused`, else this one's selection)
                // is valid until a call into the environment (`pending::before_call`).
                if reused.is_none() {
                    let valid = self.b.declare_var(types::I8);
                    let yes = self.iconst(types::I8, 1);
                    self.b.def_var(valid, yes);
                    self.sload_valid = Some(valid);
                }
                let w = self.window_of(crate::env::Space::Global, a, four)?;
                let off = self.b.ins().isub(a, w.start);
                let go = self.b.ins().band(w.hit, aligned);
                let slow = self.b.create_block();
                self.sload_inline(go, w.host, off, join, slow);
                let out = self.slot_addr(5);
                let (p, i32t) = (types::I64, types::I32);
                let rc = self
                    .call(
                        helpers::h_sload as *const () as usize,
                        &[p, p, p],
                        Some(i32t),
                        &[self.ctx, a, out],
                    )
                    .ok_or("helper result")?;
                self.fault_check(rc, *pc);
                let x = self
                    .b
                    .ins()
                    .stack_load(types::I64, types::I32, self.slots[5], 0);
                self.b.ins().jump(join, &[BlockArg::Value(x)]);
                self.b.switch_to_block(join);
                self.b.seal_block(join);
                self.sload_window = match ahead {
                    Some(_) => None,
                    None => Some((join, reused.unwrap_or(w))),
                };
                JV::S(self.b.block_params(join)[0])
            }
            Op::SStore { pc, addr, data } => {
                self.whole_wave("this op")?;
                self.before_write(i);
                let a = self.s_as(*addr, types::I64)?;
                let d = self.s_as(*data, types::I32)?;
                let (p, i32t) = (types::I64, types::I32);
                let rc = self
                    .call(
                        helpers::h_sstore as *const () as usize,
                        &[p, p, i32t],
                        Some(i32t),
                        &[self.ctx, a, d],
                    )
                    .ok_or("helper result")?;
                self.fault_check(rc, *pc);
                JV::None
            }
            _ => return Err("not a scalar memory op".into()),
        })
    }

    /// Branches on `go` to a block loading the dword at `host + off` into `join`'s
    /// parameter, else to `other`; leaves `other` current.
    fn sload_inline(
        &mut self,
        go: Value,
        host: Value,
        off: Value,
        join: cranelift_codegen::ir::Block,
        other: cranelift_codegen::ir::Block,
    ) {
        let fast = self.b.create_block();
        self.b.ins().brif(go, fast, &[], other, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        let ptr = self.b.ins().iadd(host, off);
        let x = self.b.ins().load(types::I32, le(), ptr, 0);
        self.b.ins().jump(join, &[BlockArg::Value(x)]);
        self.b.switch_to_block(other);
        self.b.seal_block(other);
    }
}
