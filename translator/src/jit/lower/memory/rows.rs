//! The two-row inline path of a wave64 vector load whose lanes are not at one fixed stride
//! (emitted where [`Gen::mem_plan`]'s test failed, before the per-lane gather): lanes 0..31
//! read consecutive elements from lane 0's address and lanes 32..63 consecutive elements
//! from lane 32's, each half its own row. Triton's blocked layouts give exactly this for a
//! 32-element row of 16-bit values per half wave (a GEMM's A tile on CDNA: `k = lane % 32`,
//! a row per half), one `global_load_ushort` per element and register pair.
//!
//! Under a full mask only (a partial one takes the gather): a run-time test checks every
//! lane against the pattern and that both rows lie in one window. Then each row is eight
//! vector loads and widenings instead of 32 window tests and scalar loads.

use super::lanetest::Combine;
use super::{WinParts, WindowHints};
use crate::jit::helpers;
use crate::jit::lower::{le, trusted, Gen, GenResult, I32X4};
use core::mem::offset_of;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlot, Value};

impl Gen<'_, '_> {
    /// Tries the two-row path for a load of `size`-byte elements (`bits`-bit result lanes)
    /// whose 64 lane addresses are at `abuf` under the lane mask `m`: when it applies (every
    /// lane active, on the pattern, both rows inside one window) the result is stored into
    /// `res` and control jumps to `join`; otherwise the code continues in a new current
    /// block (the caller's fallback).
    /// Emits nothing for wave32 blocks, 64-bit lanes or other element sizes.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn rows_load(
        &mut self,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        size: u8,
        signed: bool,
        bits: u32,
        res: StackSlot,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        if self.lanes != 64 || bits != 32 || !matches!(size, 1 | 2 | 4) {
            return Ok(());
        }
        let s = size as u64;
        let a0 = self.b.ins().load(types::I64, trusted(), abuf, 0);
        let a32 = self.b.ins().load(types::I64, trusted(), abuf, 8 * 32);
        // Quick rejection: a partial mask, or the last lane of a half off its half's pattern
        // (accesses spread over more rows or columns fail here without loading the whole
        // address vector).
        let a31 = self.b.ins().load(types::I64, trusted(), abuf, 8 * 31);
        let a63 = self.b.ins().load(types::I64, trusted(), abuf, 8 * 63);
        let w31 = self.b.ins().iadd_imm_s(a0, (31 * s) as i64);
        let w63 = self.b.ins().iadd_imm_s(a32, (31 * s) as i64);
        let ne31 = self.b.ins().icmp(IntCC::NotEqual, a31, w31);
        let ne63 = self.b.ins().icmp(IntCC::NotEqual, a63, w63);
        let partial = self.b.ins().icmp_imm_s(IntCC::NotEqual, m, -1);
        let off = self.b.ins().bor(ne31, ne63);
        let off = self.b.ins().bor(off, partial);
        let fail = self.b.create_block();
        let test = self.b.create_block();
        self.b.ins().brif(off, fail, &[], test, &[]);
        self.b.switch_to_block(test);
        self.b.seal_block(test);
        // Every lane on its row's pattern (`lanetest`).
        let off_any = self.lanes_off_pattern(abuf, &[(0, a0), (32, a32)], 32, s, Combine::Add);
        // Each row inside one window: the low row's, the high row tested against it (rows
        // in different windows take the gather, which is still correct).
        let span = self.iconst(types::I64, 32 * s);
        let w = self.window_by_next_hint(space, a0, span)?;
        let o_lo = self.b.ins().isub(a0, w.start);
        let o_hi = self.b.ins().isub(a32, w.start);
        let in_hi = self
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, o_hi, w.lim);
        let p_lo = self.b.ins().iadd(w.host, o_lo);
        let p_hi = self.b.ins().iadd(w.host, o_hi);
        let ok = self.b.ins().band(w.hit, in_hi);
        let on = self.b.ins().bnot(off_any);
        let go = self.b.ins().band(ok, on);
        let fast = self.b.create_block();
        self.b.ins().brif(go, fast, &[], fail, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        // 16 chunks of 4 lanes: chunks 0..7 from the low row, 8..15 from the high one.
        for c in 0..16usize {
            let base = if c < 8 { p_lo } else { p_hi };
            let off = ((c % 8) as u64 * 4 * s) as i32;
            let v = match (size, signed) {
                (2, false) => self.b.ins().uload16x4(le(), base, off),
                (2, true) => self.b.ins().sload16x4(le(), base, off),
                (1, _) => {
                    let x = self.b.ins().load(types::I32, le(), base, off);
                    let v = self.b.ins().scalar_to_vector(I32X4, x);
                    let v = self.b.ins().bitcast(types::I8X16, le(), v);
                    if signed {
                        let h = self.b.ins().swiden_low(v);
                        self.b.ins().swiden_low(h)
                    } else {
                        let h = self.b.ins().uwiden_low(v);
                        self.b.ins().uwiden_low(h)
                    }
                }
                _ => self.b.ins().load(I32X4, le(), base, off),
            };
            self.b
                .ins()
                .stack_store(types::I64, v, res, (16 * c) as i32);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(fail);
        self.b.seal_block(fail);
        Ok(())
    }

    /// [`Gen::window_of`] for a global access by the hint the next selection will use (the
    /// gather's, after this path), without its scan: on a miss `hit` is false and the
    /// gather's selection scans and updates the shared hint. Saves the scan's code (about
    /// 45 CLIF ops) in every load that can fail the fixed-stride test.
    fn window_by_next_hint(
        &mut self,
        space: crate::env::Space,
        a: Value,
        span: Value,
    ) -> GenResult<WinParts> {
        use crate::env::{FastMemory, MemWindow, Space};
        let hints = match (space, self.hints) {
            (Space::Global | Space::Flat, Some(h)) => h,
            _ => return self.window_of(space, a, span),
        };
        let slot = self.next_hint % WindowHints::LEN;
        let fm = offset_of!(helpers::JitCtx<'static>, fm);
        let wsize = std::mem::size_of::<MemWindow>();
        let [fs, fl, fh] = MemWindow::FIELD_OFFSETS;
        let global = (fm + offset_of!(FastMemory, global)) as i32;
        let haddr = self.iconst(types::I64, (hints + slot) as u64);
        // As `window_hinted`: a relaxed byte load, `& 3` a window index of the four.
        let h = self.b.ins().uload8(types::I64, trusted(), haddr, 0);
        let h = self.b.ins().band_imm_u(h, 3);
        let o = self.b.ins().imul_imm_u(h, wsize as i64);
        let p = self.b.ins().iadd(self.ctx, o);
        // Not `trusted()`-readonly: helpers rewrite the windows between accesses.
        let start = self.b.ins().load(types::I64, le(), p, global + fs as i32);
        let len = self.b.ins().load(types::I64, le(), p, global + fl as i32);
        let host = self.b.ins().load(types::I64, le(), p, global + fh as i32);
        let (hit, lim) = self.window_test(a, span, start, len);
        Ok(WinParts {
            hit,
            start,
            lim,
            host,
        })
    }
}
