//! The two-row inline path of a wave64 vector load whose lanes are not at one fixed stride
//! (emitted where [`Gen::mem_plan`]'s test failed, before the per-lane gather): lanes 0..31
//! read consecutive elements from lane 0's address and lanes 32..63 consecutive elements
//! from lane 32's, each half its own row. Triton's blocked layouts give exactly this for a
//! 32-element row of 16-bit values per half wave (a GEMM's A tile on CDNA: `k = lane % 32`,
//! a row per half), one `global_load_ushort` per element and register pair.
//!
//! Under a full mask only (a partial one takes the gather): a run-time test checks every
//! lane against the pattern and that each row lies in a window. Then each row is eight
//! vector loads and widenings instead of 32 window tests and scalar loads.

use crate::jit::lower::{le, trusted, Gen, GenResult, I32X4, I64X2};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, StackSlot, Value};

impl Gen<'_, '_> {
    /// Tries the two-row path for a load of `size`-byte elements (`bits`-bit result lanes)
    /// whose 64 lane addresses are at `abuf` under the lane mask `m`: when it applies (every
    /// lane active, on the pattern, each row inside a window) the result is stored into
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
        // Every lane: the OR of each address chunk XOR its pattern is zero.
        let bases = [
            self.b.ins().splat(I64X2, a0),
            self.b.ins().splat(I64X2, a32),
        ];
        let mut acc: Option<Value> = None;
        for k in 0..32usize {
            let ch = self.b.ins().load(I64X2, trusted(), abuf, (16 * k) as i32);
            let l = (2 * k % 32) as u64;
            let mut c = [0u8; 16];
            c[..8].copy_from_slice(&(s * l).to_le_bytes());
            c[8..].copy_from_slice(&(s * (l + 1)).to_le_bytes());
            let c = self.vconst_bytes(I64X2, c);
            let want = self.b.ins().iadd(bases[k / 16], c);
            let x = self.b.ins().bxor(ch, want);
            acc = Some(match acc {
                Some(a) => self.b.ins().bor(a, x),
                None => x,
            });
        }
        let acc = acc.ok_or("address vector")?;
        let off_any = self.b.ins().vany_true(acc);
        // Each row inside a window.
        let span = self.iconst(types::I64, 32 * s);
        let (hit0, p_lo) = self.window(space, a0, span)?;
        let (hit1, p_hi) = self.window(space, a32, span)?;
        let ok = self.b.ins().band(hit0, hit1);
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
}
