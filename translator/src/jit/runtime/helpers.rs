//! `extern "C"` helpers that generated code calls for the ops it does not inline: element
//! semantics (through [`crate::sem`], so both engines share them), memory through the
//! [`WaveEnv`] in the [`JitCtx`] (loads and stores first try the direct path of
//! [`super::memory`]), and error reporting.
//!
//! Buffers passed by generated code hold 64 lanes in the value's own width: `[u32; 64]` for
//! 32-bit lanes, `[u64; 64]` for 64-bit lanes (512 bytes, 16-byte aligned stack slots). In a
//! wave32 block only lanes 0..31 are written: [`h_vector`] then reads and writes 32 lanes,
//! and the memory helpers get masks without bits 32..63.

use super::memory;
use crate::env::{ExecFault, FastMemory, WaveEnv};
use crate::interp::extend;
use crate::jit::codes::*;
use crate::sem;

/// Execution context that generated code passes to helpers.
pub struct JitCtx<'a> {
    /// The wave's environment.
    pub env: &'a mut dyn WaveEnv,
    /// The fault a helper reported (the block then returns `ExitCode::Fault`).
    pub fault: Option<ExecFault>,
    /// The environment's direct-access windows, always fresh in the sense of
    /// [`crate::env::MemWindow::new`]: taken when the block starts and again after every
    /// helper's call of the environment. Generated code reads them here (inline memory path).
    pub fm: FastMemory,
    /// Calls of the memory helpers (`h_load`, `h_store`, `h_sload`): tests check with it
    /// which path an access took.
    pub mem_helper_calls: u32,
}

impl<'a> JitCtx<'a> {
    /// The context of one block run on `env`.
    #[inline]
    pub fn new(env: &'a mut dyn WaveEnv) -> JitCtx<'a> {
        let fm = env.fast_memory();
        JitCtx {
            env,
            fault: None,
            fm,
            mem_helper_calls: 0,
        }
    }

    /// Takes the windows again: every helper calls this after calling the environment
    /// (whose methods end the validity of the windows it gave before).
    fn refresh(&mut self) {
        self.fm = self.env.fast_memory();
    }
}

/// Helper kinds for [`h_scalar`] and [`h_vector`].
pub mod kind {
    /// Unary op.
    pub const UN: u32 = 0;
    /// Binary op.
    pub const BIN: u32 = 1;
    /// Ternary op.
    pub const TERN: u32 = 2;
    /// Conversion.
    pub const CONV: u32 = 3;
    /// Comparison (result 0/1, or a lane mask for vectors).
    pub const CMP: u32 = 4;
    /// Lane function.
    pub const LANEFN: u32 = 5;
    /// Cross-lane gather.
    pub const GATHER: u32 = 6;
}

/// Evaluates one element; `bits` is the operand width, the result is truncated to `rbits`.
fn element(k: u32, op: u32, bits: u32, rbits: u32, args: [u64; 4]) -> u64 {
    let [a, b, c, _] = args;
    let r = match k {
        kind::UN => UNOPS.get(op as usize).map(|&o| sem::un(o, bits, a)),
        kind::BIN => BINOPS.get(op as usize).map(|&o| sem::bin(o, bits, a, b)),
        kind::TERN => TERNOPS
            .get(op as usize)
            .map(|&o| sem::tern(o, bits, a, b, c)),
        kind::CONV => CONVOPS.get(op as usize).map(|&o| sem::conv(o, a)),
        kind::CMP => CMPOPS
            .get(op as usize)
            .map(|&o| sem::cmp(o, bits, a, b) as u64),
        kind::LANEFN => lanefn_of(op).map(|o| sem::lane_fn(o, args)),
        _ => None,
    };
    sem::trunc_to(rbits, r.unwrap_or(0))
}

/// Scalar element op: `wbits` = operand width | result width << 8.
pub extern "C" fn h_scalar(k: u32, op: u32, wbits: u32, a: u64, b: u64, c: u64) -> u64 {
    element(k, op, wbits & 0xFF, wbits >> 8, [a, b, c, 0])
}

/// Reads lane `l` of a buffer of `wide` (64-bit) or 32-bit lanes.
///
/// # Safety
/// `p` must point to 64 readable lanes of that width.
#[inline]
unsafe fn rd(p: *const u8, wide: bool, l: usize) -> u64 {
    // SAFETY: the caller guarantees 64 lanes; `l < 64`; unaligned reads are allowed.
    unsafe {
        if wide {
            (p as *const u64).add(l).read_unaligned()
        } else {
            (p as *const u32).add(l).read_unaligned() as u64
        }
    }
}

/// Writes lane `l` of a buffer.
///
/// # Safety
/// `p` must point to 64 writable lanes of that width.
#[inline]
unsafe fn wr(p: *mut u8, wide: bool, l: usize, x: u64) {
    // SAFETY: as for `rd`.
    unsafe {
        if wide {
            (p as *mut u64).add(l).write_unaligned(x)
        } else {
            (p as *mut u32).add(l).write_unaligned(x as u32)
        }
    }
}

/// The [`h_vector`] `wmask` bit of a wave32 block (32 lanes).
pub const WAVE32: u32 = 1 << 5;

/// Vector element op over 64 lanes, or 32 in a wave32 block. `wmask` bit `k` (0..4) =
/// argument `k` has 64-bit lanes, bit 4 = the result has 64-bit lanes, [`WAVE32`] = 32 lanes
/// (gather indices modulo 32, lanes 32..63 of `out` left alone); `bits` = operand element
/// width. For `CMP` the result is one `u64` lane mask at `out` (bits past the lanes 0).
///
/// # Safety
/// Generated code passes buffers of 64 lanes for every argument the op uses and for `out`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn h_vector(
    k: u32,
    op: u32,
    wmask: u32,
    bits: u32,
    a: *const u8,
    b: *const u8,
    c: *const u8,
    d: *const u8,
    out: *mut u8,
) {
    let ptrs = [a, b, c, d];
    let wide = |i: usize| wmask >> i & 1 == 1;
    let rwide = wmask >> 4 & 1 == 1;
    let rbits = if rwide { 64 } else { 32 };
    let lanes = if wmask & WAVE32 != 0 { 32 } else { 64 };
    if k == kind::GATHER {
        for l in 0..lanes {
            // SAFETY: `a` (values) and `b` (indices) are 64-lane buffers, `out` likewise.
            unsafe {
                let idx = rd(b, wide(1), l) as usize & (lanes - 1);
                wr(out, rwide, l, rd(a, wide(0), idx));
            }
        }
        return;
    }
    let mut mask = 0u64;
    for l in 0..lanes {
        let mut args = [0u64; 4];
        for (i, x) in args.iter_mut().enumerate() {
            if !ptrs[i].is_null() {
                // SAFETY: non-null argument buffers hold 64 lanes.
                *x = unsafe { rd(ptrs[i], wide(i), l) };
            }
        }
        let r = element(k, op, bits, rbits, args);
        if k == kind::CMP {
            mask |= (r & 1) << l;
        } else {
            // SAFETY: `out` holds 64 lanes of the result width.
            unsafe { wr(out, rwide, l, r) };
        }
    }
    if k == kind::CMP {
        // SAFETY: for comparisons `out` holds at least 8 bytes.
        unsafe { (out as *mut u64).write_unaligned(mask) };
    }
}

/// Recovers the context.
///
/// # Safety
/// `ctx` must be the live `JitCtx` passed to the block function.
unsafe fn ctx_mut<'a, 'b>(ctx: *mut JitCtx<'b>) -> &'a mut JitCtx<'b> {
    // SAFETY: guaranteed by the caller; generated code passes through the pointer it got.
    unsafe { &mut *ctx }
}

/// Copies 64 lanes of `p` into a `u64` array.
///
/// # Safety
/// `p` must hold 64 lanes of the given width.
unsafe fn lanes(p: *const u8, wide: bool) -> [u64; 64] {
    let mut out = [0u64; 64];
    for (l, x) in out.iter_mut().enumerate() {
        // SAFETY: forwarded from the caller.
        *x = unsafe { rd(p, wide, l) };
    }
    out
}

/// The shift of [`ext`] for an access of `size` bytes.
fn ext_shift(size: u32) -> u32 {
    match size {
        1 | 2 | 4 => 64 - 8 * size,
        _ => 0,
    }
}

/// [`extend`] as one shift pair (`sh` from [`ext_shift`]), so lane loops vectorise.
#[inline(always)]
fn ext(x: u64, sh: u32, signed: bool) -> u64 {
    if signed {
        (((x << sh) as i64) >> sh) as u64
    } else {
        (x << sh) >> sh
    }
}

/// Vector load: 0 on success, 1 after storing the fault in the context.
///
/// # Safety
/// `ctx` is the live context; `addrs` holds 64 `u64`s; `out` 64 lanes of the result width.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn h_load(
    ctx: *mut JitCtx<'_>,
    space: u32,
    size: u32,
    signed: u32,
    mask: u64,
    addrs: *const u8,
    out: *mut u8,
    rwide: u32,
) -> u32 {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    cx.mem_helper_calls += 1;
    let sp = SPACES[space as usize & 3];
    let fm = cx.fm;
    // SAFETY: `cx.fm` is fresh (`JitCtx::refresh` after every environment call); buffers as
    // in the contract.
    if unsafe { memory::try_load(&fm, sp, addrs, mask, size, signed != 0, rwide != 0, out) } {
        return 0;
    }
    let mut res = [0u64; 64];
    let r = if addrs.align_offset(std::mem::align_of::<[u64; 64]>()) == 0 {
        // SAFETY: `addrs` holds 64 `u64`s (contract) and is aligned for them (checked):
        // generated code passes its 16-byte aligned stack slot, read in place.
        let a = unsafe { &*(addrs as *const [u64; 64]) };
        cx.env.load(sp, a, mask, size, &mut res)
    } else {
        // SAFETY: see the function contract.
        let a = unsafe { lanes(addrs, true) };
        cx.env.load(sp, &a, mask, size, &mut res)
    };
    cx.refresh();
    if let Err(e) = r {
        cx.fault = Some(e.into());
        return 1;
    }
    let sh = ext_shift(size);
    let sg = signed != 0;
    // Branch-free per lane (inactive lanes give 0), built in a local array so the loop
    // vectorises, then copied out in one go.
    let val = |l: usize| ext(res[l], sh, sg) & 0u64.wrapping_sub(mask >> l & 1);
    if rwide != 0 {
        let o: [u64; 64] = std::array::from_fn(val);
        // SAFETY: `out` holds 64 lanes of 64 bits (512 bytes); `o` is a distinct local.
        unsafe { std::ptr::copy_nonoverlapping(o.as_ptr().cast::<u8>(), out, 512) };
    } else {
        let o: [u32; 64] = std::array::from_fn(|l| val(l) as u32);
        // SAFETY: `out` holds 64 lanes of 32 bits (256 bytes); `o` is a distinct local.
        unsafe { std::ptr::copy_nonoverlapping(o.as_ptr().cast::<u8>(), out, 256) };
    }
    0
}

/// Vector store: 0 on success, 1 on a fault.
///
/// # Safety
/// As [`h_load`]; `data` holds 64 lanes of width `dwide`.
pub unsafe extern "C" fn h_store(
    ctx: *mut JitCtx<'_>,
    space: u32,
    size: u32,
    mask: u64,
    addrs: *const u8,
    data: *const u8,
    dwide: u32,
) -> u32 {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    cx.mem_helper_calls += 1;
    let sp = SPACES[space as usize & 3];
    let fm = cx.fm;
    // SAFETY: `cx.fm` is fresh (`JitCtx::refresh`); buffers as in the contract.
    if unsafe { memory::try_store(&fm, sp, addrs, mask, size, data, dwide != 0) } {
        return 0;
    }
    // SAFETY: see the function contract.
    let (addrs, data) = unsafe { (lanes(addrs, true), lanes(data, dwide != 0)) };
    let r = cx.env.store(sp, &addrs, mask, size, &data);
    cx.refresh();
    if let Err(e) = r {
        cx.fault = Some(e.into());
        return 1;
    }
    0
}

/// Vector atomic: 0 on success, 1 on a fault. `cmp` may be null.
///
/// # Safety
/// As [`h_store`]; `out` holds 64 lanes of width `wide` (also the width of `data`/`cmp`).
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn h_atomic(
    ctx: *mut JitCtx<'_>,
    space: u32,
    aop: u32,
    size: u32,
    mask: u64,
    addrs: *const u8,
    data: *const u8,
    cmp: *const u8,
    out: *mut u8,
    wide: u32,
) -> u32 {
    let w = wide != 0;
    // SAFETY: see the function contract.
    let (cx, addrs, data) = unsafe { (ctx_mut(ctx), lanes(addrs, true), lanes(data, w)) };
    let cmpv = if cmp.is_null() {
        [0u64; 64]
    } else {
        // SAFETY: a non-null `cmp` holds 64 lanes.
        unsafe { lanes(cmp, w) }
    };
    let sp = SPACES[space as usize & 3];
    let op = ATOMICS[aop as usize % ATOMICS.len()];
    let mut res = [0u64; 64];
    let r = cx
        .env
        .atomic(sp, op, &addrs, mask, size, &data, &cmpv, &mut res);
    cx.refresh();
    if let Err(e) = r {
        cx.fault = Some(e.into());
        return 1;
    }
    for (l, r) in res.iter().enumerate() {
        let v = if mask >> l & 1 == 1 {
            extend(*r, size as u8, false)
        } else {
            0
        };
        // SAFETY: `out` holds 64 lanes.
        unsafe { wr(out, w, l, v) };
    }
    0
}

/// Scalar load of one dword into `*out`: 0 on success, 1 on a fault.
///
/// # Safety
/// `ctx` is the live context and `out` points to a writable `u32`.
pub unsafe extern "C" fn h_sload(ctx: *mut JitCtx<'_>, addr: u64, out: *mut u32) -> u32 {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    cx.mem_helper_calls += 1;
    let fm = cx.fm;
    // SAFETY: `cx.fm` is fresh (`JitCtx::refresh`).
    if let Some(v) = unsafe { memory::try_scalar_load(&fm, addr) } {
        // SAFETY: `out` is writable.
        unsafe { out.write_unaligned(v) };
        return 0;
    }
    let mut v = [0u32; 1];
    let r = cx.env.scalar_load(addr, &mut v);
    cx.refresh();
    if let Err(e) = r {
        cx.fault = Some(e.into());
        return 1;
    }
    // SAFETY: `out` is writable.
    unsafe { out.write_unaligned(v[0]) };
    0
}

/// Scalar store of one dword: 0 on success, 1 on a fault.
///
/// # Safety
/// `ctx` is the live context.
pub unsafe extern "C" fn h_sstore(ctx: *mut JitCtx<'_>, addr: u64, data: u32) -> u32 {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    let r = cx.env.scalar_store(addr, &[data]);
    cx.refresh();
    if let Err(e) = r {
        cx.fault = Some(e.into());
        return 1;
    }
    0
}

/// The environment clock.
///
/// # Safety
/// `ctx` is the live context.
pub unsafe extern "C" fn h_clock(ctx: *mut JitCtx<'_>) -> u64 {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    let t = cx.env.clock();
    cx.refresh();
    t
}

/// The work-group barrier's state word ([`crate::env::WaveEnv::barrier_state`]).
///
/// # Safety
/// `ctx` is the live context.
pub unsafe extern "C" fn h_barrier_state(ctx: *mut JitCtx<'_>) -> u32 {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    let state = cx.env.barrier_state();
    // Like every environment call, this ends the validity of the windows taken before.
    cx.refresh();
    state
}

/// Runs the matrix instruction at `pc` on the register file ([`crate::interp::run_planned`]);
/// 1 (the fault recorded) when it fails.
///
/// # Safety
/// `ctx` is the live context, `state` the block's exclusive wave state, `planned` a plan
/// from [`crate::matrix::plans::get`] (which lives for the process).
pub unsafe extern "C" fn h_matrix(
    ctx: *mut JitCtx<'_>,
    state: *mut crate::wave::WaveState,
    planned: *const crate::matrix::plans::Planned,
    pc: u64,
) -> u32 {
    // SAFETY: see the function contract; generated code holds no reference into `state`
    // across the call (every register write is stored before it).
    let (cx, st, planned) = unsafe { (ctx_mut(ctx), &mut *state, &*planned) };
    match crate::interp::run_planned(planned, pc, st) {
        Ok(()) => 0,
        Err(e) => {
            cx.fault = Some(e);
            1
        }
    }
}

/// Records a dynamically indexed vector register out of range (a lifter bug).
///
/// # Safety
/// `ctx` is the live context.
pub unsafe extern "C" fn h_bad_vreg(ctx: *mut JitCtx<'_>, op: u32, reg: u64) {
    // SAFETY: see the function contract.
    let cx = unsafe { ctx_mut(ctx) };
    cx.fault = Some(ExecFault::Unsupported(format!(
        "malformed IR at op {op}: vector register slot {reg} out of range"
    )));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shift form of the load extension equals the interpreter's `extend`.
    #[test]
    fn shift_extension_matches_extend() {
        let xs = [
            0u64,
            0x7F,
            0x80,
            0xFFFF_8001,
            0x1234_5678_9ABC_DEF0,
            u64::MAX,
            0x8000_0000,
        ];
        for size in [1u32, 2, 4, 8] {
            for signed in [false, true] {
                for &x in &xs {
                    assert_eq!(
                        ext(x, ext_shift(size), signed),
                        extend(x, size as u8, signed),
                        "{x:#x} size {size} signed {signed}"
                    );
                }
            }
        }
    }
}
