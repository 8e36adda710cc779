//! The fixed-stride inline path of a single vector access: a run-time test that the active
//! lanes' addresses are `a0 + stride * lane` inside one window, then vector (or per-lane)
//! host loads and stores.

use crate::ir::{Ty, Val};
use crate::jit::analysis::memory::stride_guess;
use crate::jit::lower::{le, nchunks, sty, vty, Gen, GenResult, I32X4, I64X2, JV};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, ConstantData, InstBuilder, StackSlot, Value};

/// The run-time facts of an inline memory access ([`Gen::mem_plan`]).
pub(in crate::jit::lower) struct MemPlan {
    /// `I8`: take the inline path.
    pub go: Value,
    /// The helper path's block (also entered from the plan's quick rejection; sealed by the
    /// caller after branching to it on `go`).
    pub slow: cranelift_codegen::ir::Block,
    /// Host address of lane 0's access.
    pub ptr: Value,
    /// `I8`: the access has 64 lanes (a lane above 31 is active), else 32.
    pub n64: Value,
    /// Bytes between consecutive lanes' addresses.
    pub stride: u64,
    /// The access's lane mask (`I64`).
    pub mask: Value,
}

impl Gen<'_, '_> {
    /// The run-time test of the inline path for a load (`store` false) or store of `size`
    /// bytes per lane: the active lanes' addresses are `a0 + stride * lane` (`a0` lane 0's
    /// address, `stride` from [`stride_guess`]), the `n` lanes (64 when a lane above
    /// 31 is active, else 32) span one window, the mask is not empty, and for a store every
    /// one of those `n` lanes is active (a store never touches an inactive lane's bytes).
    pub(in crate::jit::lower) fn mem_plan(
        &mut self,
        pc: u64,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        mask: Val,
        store: bool,
    ) -> GenResult<MemPlan> {
        let stride = stride_guess(self.block, pc, space, size);
        if self.ty(addr)? != Ty::V64 {
            return Err("address vector".into());
        }
        // Cut to the block's lanes: in a wave32 block `n64` is then always false.
        let m = self.lane_bits(mask)?;
        let a0 = self.addr_lane(addr, 0)?;
        // Quick rejection first: lane 1 and the last lane, when active, must follow the
        // pattern (most accesses that do not, e.g. a GEMM's rows or columns spread over
        // lane groups, fail here and go to the helper without the whole-wave test or
        // loading the whole address vector).
        let last = self.lanes - 1;
        let a1 = self.addr_lane(addr, 1)?;
        let al = self.addr_lane(addr, last)?;
        let mut off_pattern = None;
        for (a, l) in [(a1, 1usize), (al, last)] {
            let want = self.b.ins().iadd_imm_s(a0, (stride * l as u64) as i64);
            let ne = self.b.ins().icmp(IntCC::NotEqual, a, want);
            let bit = self.b.ins().band_imm_u(m, (1u64 << l) as i64);
            let act = self.b.ins().icmp_imm_u(IntCC::NotEqual, bit, 0);
            let bad = self.b.ins().band(ne, act);
            off_pattern = Some(match off_pattern {
                Some(o) => self.b.ins().bor(o, bad),
                None => bad,
            });
        }
        let off_pattern = off_pattern.ok_or("address vector")?;
        let check = self.cold_block();
        let slow = self.b.create_block();
        self.b.ins().brif(off_pattern, slow, &[], check, &[]);
        self.b.switch_to_block(check);
        self.b.seal_block(check);
        let achunks = self.v(addr)?;
        if achunks.len() != nchunks(self.lanes, 64) {
            return Err("address vector".into());
        }
        let a0v = self.b.ins().splat(I64X2, a0);
        // Fast test first: every lane, active or not, at the pattern (the OR of each chunk
        // XOR its pattern addresses is zero: three vector instructions a chunk, one test).
        // Only when some lane is off the pattern does the exact test below find whether it
        // is an active one (a partial EXEC whose inactive lanes hold other addresses).
        let mut first = [0u8; 16];
        first[8..].copy_from_slice(&stride.to_le_bytes());
        let first = self.vconst_bytes(I64X2, first);
        let mut two = [0u8; 16];
        two[..8].copy_from_slice(&(2 * stride).to_le_bytes());
        two[8..].copy_from_slice(&(2 * stride).to_le_bytes());
        let two = self.vconst_bytes(I64X2, two);
        let mut want = self.b.ins().iadd(a0v, first);
        let mut acc: Option<Value> = None;
        for (k, &ch) in achunks.iter().enumerate() {
            if k > 0 {
                want = self.b.ins().iadd(want, two);
            }
            let x = self.b.ins().bxor(ch, want);
            acc = Some(match acc {
                Some(a) => self.b.ins().bor(a, x),
                None => x,
            });
        }
        let acc = acc.ok_or("address vector")?;
        let off_any = self.b.ins().vany_true(acc);
        let exact = self.cold_block();
        let tested = self.b.create_block();
        self.b.append_block_param(tested, types::I64);
        let zero = self.iconst(types::I64, 0);
        self.b
            .ins()
            .brif(off_any, exact, &[], tested, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(exact);
        self.b.seal_block(exact);
        // Lanes whose address differs from the pattern, as a scalar lane mask (two sign
        // bits per chunk), then restricted to the active lanes.
        let mut diff: Option<Value> = None;
        for (k, &ch) in achunks.iter().enumerate() {
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&(stride * 2 * k as u64).to_le_bytes());
            bytes[8..].copy_from_slice(&(stride * (2 * k as u64 + 1)).to_le_bytes());
            let offs = self.vconst_bytes(I64X2, bytes);
            let want = self.b.ins().iadd(a0v, offs);
            let ne = self.b.ins().icmp(IntCC::NotEqual, ch, want);
            let hb = self.b.ins().vhigh_bits(types::I64, ne);
            let x = if k == 0 {
                hb
            } else {
                self.b.ins().ishl_imm_u(hb, 2 * k as i64)
            };
            diff = Some(match diff {
                Some(d) => self.b.ins().bor(d, x),
                None => x,
            });
        }
        let diff = diff.ok_or("address vector")?;
        self.b.ins().jump(tested, &[BlockArg::Value(diff)]);
        self.b.switch_to_block(tested);
        self.b.seal_block(tested);
        let diff = self.b.block_params(tested)[0];
        let bad = self.b.ins().band(diff, m);
        let (n64, span) = self.access_lanes(m, stride, size);
        let (hit, ptr) = self.window(space, a0, span)?;
        let good = self.b.ins().icmp_imm_u(IntCC::Equal, bad, 0);
        let mut go = self.b.ins().band(hit, good);
        let active = self.access_active(m, store);
        go = self.b.ins().band(go, active);
        Ok(MemPlan {
            go,
            slow,
            ptr,
            n64,
            stride,
            mask: m,
        })
    }

    /// For an access under the lane mask `m` (cut to the block's lanes) at lanes `stride`
    /// bytes apart of `size` bytes each: whether it has 64 lanes (a lane above 31 is
    /// active; never in a wave32 block) and the bytes from lane 0's address to the end of
    /// lane n-1's access.
    pub(in crate::jit::lower) fn access_lanes(
        &mut self,
        m: Value,
        stride: u64,
        size: u8,
    ) -> (Value, Value) {
        let s32 = self.iconst(types::I64, stride * 31 + size as u64);
        if self.lanes == 32 {
            return (self.iconst(types::I8, 0), s32);
        }
        let upper = self.b.ins().ushr_imm_u(m, 32);
        let n64 = self.b.ins().icmp_imm_u(IntCC::NotEqual, upper, 0);
        let s64 = self.iconst(types::I64, stride * 63 + size as u64);
        (n64, self.b.ins().select(n64, s64, s32))
    }

    /// Whether the lanes of the mask `m` (cut to the block's lanes) suit an inline access:
    /// any lane for a load; for a store (which never touches an inactive lane's bytes)
    /// exactly lanes 0..n, the whole wave64 or the low 32 lanes.
    pub(in crate::jit::lower) fn access_active(&mut self, m: Value, store: bool) -> Value {
        if !store {
            return self.b.ins().icmp_imm_u(IntCC::NotEqual, m, 0);
        }
        let low = self.b.ins().icmp_imm_u(IntCC::Equal, m, 0xFFFF_FFFF);
        if self.lanes == 32 {
            return low;
        }
        let all = self.b.ins().icmp_imm_s(IntCC::Equal, m, -1);
        self.b.ins().bor(all, low)
    }

    /// Lane `l` of the `V64` value `v` (straight-line form): one load from its buffer when
    /// it has one, else a lane of its chunk.
    pub(in crate::jit::lower) fn addr_lane(&mut self, v: Val, l: usize) -> GenResult<Value> {
        match self.get(v)? {
            JV::Buf(slot) => {
                let slot = *slot;
                if let Some(base) = self.pending_base(v.0) {
                    let flags = Self::pending_flags();
                    return Ok(self.b.ins().load(types::I64, flags, base, (8 * l) as i32));
                }
                Ok(self
                    .b
                    .ins()
                    .stack_load(types::I64, types::I64, slot, (8 * l) as i32))
            }
            JV::V(chunks) => {
                let ch = *chunks.get(l / 2).ok_or("address vector")?;
                Ok(self.b.ins().extractlane(ch, (l % 2) as u8))
            }
            _ => Err(format!("operand {v:?} is not a vector")),
        }
    }

    /// The host addresses of lanes 0..32 and 32..64 of an inline access: `ptr`, and
    /// `ptr + 32 * stride` when the access has 64 lanes, else `ptr` again (lanes 32..63
    /// are then inactive: a load reads lanes 0..31 a second time, inside the window, and
    /// the lane mask zeroes the result; a store skips them).
    pub(in crate::jit::lower) fn halves(&mut self, p: &MemPlan) -> (Value, Value) {
        let hi = self.b.ins().iadd_imm_s(p.ptr, (32 * p.stride) as i64);
        let hi = self.b.ins().select(p.n64, hi, p.ptr);
        (p.ptr, hi)
    }

    /// The inline load (branch taken when `p.go`), storing the result chunks into the
    /// 64-lane buffer `res` (as the helper path does) and jumping to `join`: contiguous
    /// vector loads when the stride is the size, else one scalar load per lane at a
    /// constant displacement; inactive lanes 0, as the helper path gives (no masking when
    /// all the block's lanes are active). Plain host loads: on x86-64 and aarch64 each
    /// naturally aligned element is read single-copy atomically, as the helper's relaxed
    /// atomics do (a misaligned element is read as bytes there; the values agree).
    ///
    /// With `ptr` (a pending load's variable, [`super::pending`]): when every lane of the
    /// block is active and the lanes are contiguous and as wide as the access, nothing is
    /// copied and `ptr` is set to the host address; else to `res`'s.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::jit::lower) fn inline_load(
        &mut self,
        p: &MemPlan,
        size: u8,
        signed: bool,
        bits: u32,
        join: cranelift_codegen::ir::Block,
        res: StackSlot,
        ptr: Option<cranelift_frontend::Variable>,
    ) -> GenResult<()> {
        // Every lane of the block (its mask is cut to its lanes, `mem_plan`).
        let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, p.mask, all_lanes);
        let all = self.cold_block();
        let part = self.cold_block();
        self.b.ins().brif(full, all, &[], part, &[]);
        let contiguous = p.stride == size as u64 && bits == 8 * size as u32;
        for (blk, masked) in [(all, false), (part, true)] {
            self.b.switch_to_block(blk);
            self.b.seal_block(blk);
            if let Some(var) = ptr {
                if !masked && contiguous {
                    // Lanes 32..63 of a full wave64 follow lanes 0..31 (`halves`).
                    self.b.def_var(var, p.ptr);
                    self.b.ins().jump(join, &[]);
                    continue;
                }
                let a = self.b.ins().stack_addr(types::I64, res, 0);
                self.b.def_var(var, a);
            }
            let chunks = self.load_chunks(p, size, signed, bits, masked)?;
            for (c, ch) in chunks.into_iter().enumerate() {
                self.b
                    .ins()
                    .stack_store(types::I64, ch, res, (16 * c) as i32);
            }
            self.b.ins().jump(join, &[]);
        }
        Ok(())
    }

    /// The chunks of an inline load ([`Gen::inline_load`]), ANDed with the lane mask when
    /// `masked`. Bytes and shorts (into 32-bit lanes) are zero- or (`signed`) sign-extended.
    pub(in crate::jit::lower) fn load_chunks(
        &mut self,
        p: &MemPlan,
        size: u8,
        signed: bool,
        bits: u32,
        masked: bool,
    ) -> GenResult<Vec<Value>> {
        let (lo, hi) = self.halves(p);
        let n = nchunks(self.lanes, bits);
        let per = if bits == 32 { 4 } else { 2 };
        let mut out = Vec::with_capacity(n);
        for c in 0..n {
            // A wave32 block's 32 lanes all lie from `lo`.
            let (base, first) = if self.lanes == 32 || c < n / 2 {
                (lo, c * per)
            } else {
                (hi, c * per - 32)
            };
            let v = if p.stride == size as u64 {
                let off = (first as u64 * p.stride) as i32;
                match (size, signed) {
                    // 4 shorts widened (`pmovzxwd`/`pmovsxwd`).
                    (2, false) => self.b.ins().uload16x4(le(), base, off),
                    (2, true) => self.b.ins().sload16x4(le(), base, off),
                    // 4 bytes as one dword, widened twice.
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
                    _ => self.b.ins().load(vty(bits), le(), base, off),
                }
            } else {
                let mut v = None;
                for j in 0..per {
                    let off = ((first + j) as u64 * p.stride) as i32;
                    let x = match (size, signed) {
                        (1, false) => self.b.ins().uload8(types::I32, le(), base, off),
                        (1, true) => self.b.ins().sload8(types::I32, le(), base, off),
                        (2, false) => self.b.ins().uload16(types::I32, le(), base, off),
                        (2, true) => self.b.ins().sload16(types::I32, le(), base, off),
                        _ => self.b.ins().load(sty(bits), le(), base, off),
                    };
                    v = Some(match v {
                        None => self.b.ins().scalar_to_vector(vty(bits), x),
                        Some(v) => self.b.ins().insertlane(v, x, j as u8),
                    });
                }
                v.ok_or("empty chunk")?
            };
            out.push(if masked {
                // Not the cached `lane_masks`: values made here do not dominate later code.
                let mk = self.lane_mask(p.mask, c, bits);
                self.b.ins().band(v, mk)
            } else {
                v
            });
        }
        Ok(out)
    }

    /// The inline store (branch taken when `p.go`: every lane of the access active), then a
    /// jump to `join`: lanes 0..31, and lanes 32..63 when the access has 64 lanes. Vector
    /// stores when the stride is the size, else one scalar store per lane.
    pub(in crate::jit::lower) fn inline_store(
        &mut self,
        p: &MemPlan,
        data: Val,
        size: u8,
        bits: u32,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let chunks = self.v(data)?;
        let n = nchunks(self.lanes, bits);
        if chunks.len() != n {
            return Err("store data vector".into());
        }
        let per = if bits == 32 { 4 } else { 2 };
        let (lo, hi) = self.halves(p);
        // A wave32 block stores its 32 lanes from `lo` in one part.
        let parts = if self.lanes == 32 { 1 } else { 2 };
        for half in 0..parts {
            let base = if half == 0 { lo } else { hi };
            let part = &chunks[half * n / parts..(half + 1) * n / parts];
            for (k, &ch) in part.iter().enumerate() {
                let first = k * per;
                if p.stride == size as u64 {
                    let off = (first as u64 * p.stride) as i32;
                    match size {
                        // The low bytes/shorts of the 4 lanes packed (`pshufb`), stored as
                        // one dword/qword.
                        1 | 2 => {
                            let v8 = self.b.ins().bitcast(types::I8X16, le(), ch);
                            let mut m = [0u8; 16];
                            for (i, b) in m.iter_mut().enumerate() {
                                // Byte i of the packed result: byte i % size of lane i / size
                                // (lanes beyond 4 repeat; only the low 4 * size bytes count).
                                let (lane, byte) = (i / size as usize % 4, i % size as usize);
                                *b = (4 * lane + byte) as u8;
                            }
                            let imm = self
                                .b
                                .func
                                .dfg
                                .immediates
                                .push(ConstantData::from(m.to_vec()));
                            let packed = self.b.ins().shuffle(v8, v8, imm);
                            let t = if size == 1 { I32X4 } else { I64X2 };
                            let w = self.b.ins().bitcast(t, le(), packed);
                            let x = self.b.ins().extractlane(w, 0u8);
                            self.b.ins().store(le(), x, base, off);
                        }
                        _ => {
                            self.b.ins().store(le(), ch, base, off);
                        }
                    }
                } else {
                    for j in 0..per {
                        let off = ((first + j) as u64 * p.stride) as i32;
                        let x = self.b.ins().extractlane(ch, j as u8);
                        match size {
                            1 => self.b.ins().istore8(le(), x, base, off),
                            2 => self.b.ins().istore16(le(), x, base, off),
                            _ => self.b.ins().store(le(), x, base, off),
                        };
                    }
                }
            }
            if half == 0 && parts == 2 {
                let upper = self.cold_block();
                self.b.ins().brif(p.n64, upper, &[], join, &[]);
                self.b.switch_to_block(upper);
                self.b.seal_block(upper);
            }
        }
        self.b.ins().jump(join, &[]);
        Ok(())
    }
}
