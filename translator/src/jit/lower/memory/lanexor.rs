//! The lane-XOR inline path of a vector access whose lanes are not at one fixed stride
//! (emitted where [`Gen::mem_plan`]'s test failed, before the per-lane gather and scatter):
//! lane `l` accesses `a0 ^ (size * l)`, `a0` lane 0's address. That is a contiguous,
//! aligned block of `lanes * size` bytes in a lane order permuted by XOR with a uniform
//! value — the swizzled shared-memory layouts Triton writes its tiles with (a GEMM's
//! `ds_write_b16` of an A tile: `(2 * lane) ^ 8 * wave`).
//!
//! LDS stores only, under a full mask: a run-time test checks every lane against the pattern
//! and that `a0` is aligned to the element (otherwise the per-lane path, which is still
//! correct); then one window test for the whole block replaces the scatter's two passes
//! (a window test per lane, then the stores), and each lane is one XOR, load and store.

use super::lanetest::Combine;
use crate::jit::lower::{le, trusted, Gen, GenResult, I32X4};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, ConstantData, InstBuilder, Value};

/// The run-time facts of a lane-XOR access ([`Gen::xor_plan`]), valid where it branched.
struct XorPlan {
    /// Host address of the block's first byte.
    host: Value,
    /// `I64`: `a0`'s offset in the block (`lane l` is at `o ^ size * l`).
    o: Value,
    /// The fast path's block (sealed, current after the plan).
    fail: cranelift_codegen::ir::Block,
}

impl Gen<'_, '_> {
    /// The lane-XOR test for `size`-byte elements at the lane addresses at `abuf` under the
    /// lane mask `m`, which must hold every lane of the block: branches to a new `fail`
    /// block when it does not hold, else continues in a new current block.
    fn xor_plan(
        &mut self,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        size: u8,
    ) -> GenResult<XorPlan> {
        let s = size as u64;
        let n = self.lanes;
        let fail = self.b.create_block();
        let a0 = self.b.ins().load(types::I64, trusted(), abuf, 0);
        // Quick rejection: a partial mask, lane 1, the last lane and a0's alignment.
        let a1 = self.b.ins().load(types::I64, trusted(), abuf, 8);
        let al = self
            .b
            .ins()
            .load(types::I64, trusted(), abuf, (8 * (n - 1)) as i32);
        let x1 = self.b.ins().bxor(a1, a0);
        let xl = self.b.ins().bxor(al, a0);
        let ne1 = self.b.ins().icmp_imm_u(IntCC::NotEqual, x1, s as i64);
        let nel = self
            .b
            .ins()
            .icmp_imm_u(IntCC::NotEqual, xl, (s * (n as u64 - 1)) as i64);
        let mis = self.b.ins().band_imm_u(a0, (s - 1) as i64);
        let mis = self.b.ins().icmp_imm_u(IntCC::NotEqual, mis, 0);
        let all_lanes = if n == 32 { 0xFFFF_FFFF } else { -1 };
        let partial = self.b.ins().icmp_imm_s(IntCC::NotEqual, m, all_lanes);
        let off = self.b.ins().bor(ne1, nel);
        let off = self.b.ins().bor(off, mis);
        let off = self.b.ins().bor(off, partial);
        let test = self.b.create_block();
        self.b.ins().brif(off, fail, &[], test, &[]);
        self.b.switch_to_block(test);
        self.b.seal_block(test);
        // Every lane on the pattern (`lanetest`).
        let off_any = self.lanes_off_pattern(abuf, &[(0, a0)], n as u32, s, Combine::Xor);
        // The block: a0 with the bits a lane index can flip cleared.
        let span = s * n as u64;
        let lo = self.b.ins().band_imm_u(a0, !(span - 1) as i64);
        let o = self.b.ins().band_imm_u(a0, (span - 1) as i64);
        let sp = self.iconst(types::I64, span);
        let (hit, host) = self.window(space, lo, sp)?;
        let on = self.b.ins().bnot(off_any);
        let go = self.b.ins().band(hit, on);
        let fast = self.b.create_block();
        self.b.ins().brif(go, fast, &[], fail, &[]);
        self.b.switch_to_block(fast);
        self.b.seal_block(fast);
        Ok(XorPlan { host, o, fail })
    }

    /// Chunk `q` (16 bytes) of the low `size` bytes of each 32-bit lane of the data
    /// buffer `dbuf`, packed in lane order (lanes `16q / size ..`).
    fn xor_packed_chunk(&mut self, dbuf: Value, size: u8, q: usize) -> Value {
        let b16 = types::I8X16;
        let per = 16 / size as usize;
        // The data chunks (4 lanes each) this packed chunk takes its lanes from.
        let src: Vec<Value> = (0..per / 4)
            .map(|i| {
                let off = (16 * (q * per / 4 + i)) as i32;
                let v = self.b.ins().load(I32X4, trusted(), dbuf, off);
                self.b.ins().bitcast(b16, le(), v)
            })
            .collect();
        // Byte `b` of a 4-lane pair's packing: byte `b % size` of lane `b / size`, lane
        // `j` being byte `4j` of the pair's 32 bytes (a `shuffle` of two vectors).
        let pack = |g: &mut Self, x: Value, y: Value, lanes: usize| {
            let mut m = [0u8; 16];
            for (b, t) in m.iter_mut().enumerate().take(lanes * size as usize) {
                *t = (4 * (b / size as usize) + b % size as usize) as u8;
            }
            let imm = g.b.func.dfg.immediates.push(ConstantData::from(m.to_vec()));
            g.b.ins().shuffle(x, y, imm)
        };
        match size {
            4 => src[0],
            // Lanes 0..8 of two data chunks.
            2 => pack(self, src[0], src[1], 8),
            // Lanes 0..8 of chunks 0, 1 and of 2, 3, then the two halves joined.
            _ => {
                let a = pack(self, src[0], src[1], 8);
                let b = pack(self, src[2], src[3], 8);
                let mut m = [0u8; 16];
                for (i, t) in m.iter_mut().enumerate() {
                    *t = if i < 8 { i as u8 } else { (16 + i - 8) as u8 };
                }
                let imm = self
                    .b
                    .func
                    .dfg
                    .immediates
                    .push(ConstantData::from(m.to_vec()));
                self.b.ins().shuffle(a, b, imm)
            }
        }
    }

    /// Tries the lane-XOR path for a store of the low `size` bytes of each 32-bit lane
    /// (`dbits`) of the data buffer `dbuf` at the lane addresses at `abuf` under the mask
    /// `m`: when every lane of the block is active (a partial mask takes the per-lane path)
    /// the elements are stored (the addresses are distinct, so the order does not matter)
    /// and control jumps to `join`; otherwise the code continues in a new current block.
    /// Emits nothing for 64-bit data or other sizes.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn xor_store(
        &mut self,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        size: u8,
        dbuf: Value,
        dbits: u32,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        // LDS only: XOR-swizzled tiles are a shared-memory layout. A global store that failed
        // the fixed-stride test is a scatter or a guarded edge store, and the path would only
        // add code (a GEMM epilogue of 64 global stores compiled 40 % more CLIF with it).
        if dbits != 32 || !matches!(size, 1 | 2 | 4) || space != crate::env::Space::Lds {
            return Ok(());
        }
        let p = self.xor_plan(space, abuf, m, size)?;
        // Element e of the block is lane e ^ k (k = o / size). Per 16-byte chunk of the
        // lanes' packed elements (chunk q): its bytes go to chunk q ^ (o >> 4) of the block,
        // byte b taking the chunk's byte b ^ (o & 15) (XOR splits over the bit fields).
        let b16 = types::I8X16;
        let lo4 = self.b.ins().band_imm_u(p.o, 15);
        let lo4 = self.b.ins().ireduce(types::I8, lo4);
        let lo4 = self.b.ins().splat(b16, lo4);
        let iota = self.vconst_bytes(b16, core::array::from_fn(|i| i as u8));
        let ctrl = self.b.ins().bxor(iota, lo4);
        let hi = self.b.ins().band_imm_u(p.o, !15);
        let s = size as usize;
        for q in 0..self.lanes * s / 16 {
            let packed = self.xor_packed_chunk(dbuf, size, q);
            let v = self.b.ins().swizzle(packed, ctrl);
            let at = self.b.ins().bxor_imm_u(hi, (16 * q) as i64);
            let at = self.b.ins().iadd(p.host, at);
            self.b.ins().store(le(), v, at, 0);
        }
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(p.fail);
        self.b.seal_block(p.fail);
        Ok(())
    }
}
