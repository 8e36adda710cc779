//! The run-time test of every lane's address against a pattern, shared by the inline paths
//! of accesses whose lanes are not at one fixed stride ([`super::rows`], [`super::lanexor`]).
//!
//! Lane `l` of segment `g` (segments of `per` consecutive lanes, each with its own base `b`)
//! is expected at `b + size * (l - first)` ([`Combine::Add`]) or `b ^ size * (l - first)`
//! ([`Combine::Xor`]). The test is a loop over eight lanes of every segment per iteration
//! (four `I64X2` chunks; four lanes where `per` is not a multiple of 8), not one unrolled
//! chunk per two lanes: about 40 CLIF ops instead of five per chunk, which the code of every access that can fail the
//! fixed-stride test pays in compile time whether or not the pattern ever holds.

use crate::jit::lower::{trusted, Gen, I64X2};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, Value};

/// How a lane's expected address derives from its segment's base and its offset in it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(in crate::jit::lower) enum Combine {
    /// `base + size * lane`: consecutive elements (rows).
    Add,
    /// `base ^ size * lane`: a block in lane order permuted by XOR.
    Xor,
}

impl Gen<'_, '_> {
    /// `I8`: some lane's address at `abuf` (64-bit lane addresses) differs from the pattern:
    /// segments of `per` lanes (a multiple of 4) starting at the lanes `firsts`, with the
    /// bases `bases` (`I64`, one per segment), elements of `size` bytes, `comb`ined.
    /// Continues in a new current block after the loop.
    pub(in crate::jit::lower) fn lanes_off_pattern(
        &mut self,
        abuf: Value,
        segs: &[(u32, Value)],
        per: u32,
        size: u64,
        comb: Combine,
    ) -> Value {
        let cold = self
            .b
            .current_block()
            .is_some_and(|c| self.b.func.layout.is_cold(c));
        let hdr = self.b.create_block();
        let exit = self.b.create_block();
        if cold {
            self.b.set_cold_block(hdr);
            self.b.set_cold_block(exit);
        }
        // Loop-carried: the byte offset of the iteration's first lane in a segment, the lane
        // offsets (`size * l`, `size * (l + 1)`) of its first chunk, the OR of differences.
        let off = self.b.append_block_param(hdr, types::I64);
        let lofs = self.b.append_block_param(hdr, I64X2);
        let acc = self.b.append_block_param(hdr, I64X2);
        let done = self.b.append_block_param(exit, I64X2);
        let bases: Vec<(u32, Value)> = segs
            .iter()
            .map(|&(f, b)| (f, self.b.ins().splat(I64X2, b)))
            .collect();
        let mut c0 = [0u8; 16];
        c0[8..].copy_from_slice(&size.to_le_bytes());
        let lofs0 = self.vconst_bytes(I64X2, c0);
        let zero = self.vconst_bytes(I64X2, [0; 16]);
        let z = self.iconst(types::I64, 0);
        let args = [z, lofs0, zero].map(BlockArg::Value);
        self.b.ins().jump(hdr, &args);
        self.b.switch_to_block(hdr);
        // Chunks per segment and iteration: four (eight lanes) where the segment allows.
        let q: u32 = if per.is_multiple_of(8) { 4 } else { 2 };
        let two = self.b.ins().iconst(types::I64, (2 * size) as i64);
        let two = self.b.ins().splat(I64X2, two);
        let mut los = vec![lofs];
        for j in 1..q as usize {
            let prev = los[j - 1];
            los.push(self.b.ins().iadd(prev, two));
        }
        let p = self.b.ins().iadd(abuf, off);
        let mut a = acc;
        for &(first, base) in &bases {
            for (j, &lo) in los.iter().enumerate() {
                let at = (8 * first + 16 * j as u32) as i32;
                let ch = self.b.ins().load(I64X2, trusted(), p, at);
                let want = match comb {
                    Combine::Add => self.b.ins().iadd(base, lo),
                    Combine::Xor => self.b.ins().bxor(base, lo),
                };
                let x = self.b.ins().bxor(ch, want);
                a = self.b.ins().bor(a, x);
            }
        }
        let next = self.b.ins().iadd_imm_s(off, 16 * q as i64);
        let last = los[los.len() - 1];
        let lnext = self.b.ins().iadd(last, two);
        let more = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, next, 8 * per as i64);
        let again = [next, lnext, a].map(BlockArg::Value);
        self.b
            .ins()
            .brif(more, hdr, &again, exit, &[BlockArg::Value(a)]);
        self.b.seal_block(hdr);
        self.b.switch_to_block(exit);
        self.b.seal_block(exit);
        self.b.ins().vany_true(done)
    }
}
