//! Translation of one IR [`Block`] into a Cranelift function
//! `fn(state: *mut WaveState, ctx: *mut JitCtx) -> u32` (`tail` convention): it charges
//! [`WaveState::credit`] at its start, and at a static exit tail-calls the linked successor
//! (`jit::Links`) when there is one.
//!
//! Two forms, tried in this order:
//!
//! * **Lane-group form** (`Gen::emit_grouped`): the block is cut into runs of lane-local
//!   vector ops (and uniform ops that cannot fault); each run becomes its uniform prologue and
//!   one loop over the groups of 4 lanes (16 for wave64, 8 for wave32) that executes every
//!   vector op of the run for that group, so a group's values stay in registers across the whole run and VGPRs are stored
//!   once per group. Vector compares accumulate their mask bits in loop-carried values;
//!   uniform ops that need them run after the loop. Other ops (memory, cross-lane, helper
//!   calls) are emitted between runs in the straight-line form. The loop is emitted twice:
//!   a fast copy that leaves at the first group with a NaN float result (one test of the
//!   group's float results, before that group stores anything) and a cold copy that redoes that group and the rest with the NaN rule
//!   in line. The fast copy runs only when the masks of the run's register writes that
//!   exist before the loop (EXEC) have all the block's lanes set, and writes registers
//!   without blending; otherwise the cold copy runs from group 0.
//! * **Straight-line form**: every op once over all the block's lanes.
//!
//! Uniform values are scalar Cranelift values. A whole-wave lane vector is 16 `i32x4` chunks
//! (32-bit lanes) or 32 `i64x2` chunks (64-bit lanes) for wave64, half as many for wave32, in
//! SSA, or (values leaving a lane-group run, load results) a 64-lane stack buffer whose
//! chunks are loaded where used; in a lane group it is 1 or 2 chunks. Masked VGPR writes blend with the old value (lane masks expanded once per mask
//! value, from a table indexed by each chunk's mask bits); the constant all-ones mask stores directly. Float results get the IR NaN rule
//! through a cheap any-NaN test with the exact fix-up on a rarely taken path. Ops that
//! Cranelift cannot do exactly or well call the helpers in [`super::helpers`] with the
//! operands spilled to 512-byte stack buffers (64-lane layout; a wave32 block fills lanes
//! 0..31). A wave32 block computes only lanes 0..31 ([`Block::lanes`]; the IR leaves lanes
//! 32..63 of values unspecified): it never loads, computes or stores lanes 32..63 of a
//! register, so they keep what they held; masks passed to memory helpers are cut to 32 bits
//! and helpers evaluate 32 lanes.

use super::codes::*;
use super::helpers::{self, kind};
use crate::interp::sem;
use crate::ir::{BinOp, Block, CmpOp, ConvOp, Exit, Op, TernOp, Ty, UnOp, Val};
use crate::wave::{sreg, WaveCounters, WaveState, MAX_LANES, NUM_SREGS, NUM_VREGS};
use core::mem::offset_of;
use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, ConstantData, Endianness, InstBuilder, MemFlagsData, Signature,
    StackSlot, StackSlotData, StackSlotKind, Type, Value,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::FunctionBuilder;
use std::collections::HashMap;

/// Internal exit code: the block ended in [`Exit::Unsupported`].
pub const EXIT_UNSUPPORTED: u32 = 6;
/// Internal exit code: the block ended in [`Exit::Illegal`].
pub const EXIT_ILLEGAL: u32 = 7;

#[derive(Clone)]
enum JV {
    None,
    S(Value),
    V(Vec<Value>),
    /// A whole-wave vector held only in its 64-lane stack buffer (also in `escaped`), its
    /// chunks loaded where used: a value that leaves a lane-group run or a memory load is
    /// mostly consumed from the buffer (by later runs and helpers), so eager reloads of all
    /// its chunks would be dead code.
    Buf(StackSlot),
}

const I32X4: Type = types::I32X4;
const I64X2: Type = types::I64X2;

fn vty(bits: u32) -> Type {
    if bits == 32 {
        I32X4
    } else {
        I64X2
    }
}

fn fty(bits: u32) -> Type {
    if bits == 32 {
        types::F32X4
    } else {
        types::F64X2
    }
}

fn sty(bits: u32) -> Type {
    if bits == 32 {
        types::I32
    } else {
        types::I64
    }
}

/// Chunks of a whole-wave vector of `bits`-bit lanes for `lanes` lanes (4 or 2 per chunk).
fn nchunks(lanes: usize, bits: u32) -> usize {
    if bits == 32 {
        lanes / 4
    } else {
        lanes / 2
    }
}

fn le() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

fn trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// Compile error: the block stays interpreted.
pub type GenResult<T> = Result<T, String>;

pub struct Gen<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub block: &'a Block,
    pub call_conv: CallConv,
    frontend: TargetFrontendConfig,
    state: Value,
    ctx: Value,
    vals: Vec<JV>,
    /// For vectors made by `Broadcast`: the uniform source.
    splat_src: Vec<Option<Value>>,
    slots: Vec<StackSlot>,
    /// Lane-mask chunks already expanded from a mask value: `(value, lane bits)` → chunks.
    mask_cache: HashMap<(u32, u32), Vec<Value>>,
    /// Current contents of vector registers, as chunks (stores are still emitted at once,
    /// so memory is always up to date; this only saves reloads).
    vreg_cache: HashMap<u16, Vec<Value>>,
    /// Matrix instructions whose address the code holds (kept alive with the code).
    keep: Vec<std::sync::Arc<crate::ir::MatrixCall>>,
    /// The block's lanes (64, or 32 for wave32): whole-wave values have `lanes / 4` `i32x4`
    /// or `lanes / 2` `i64x2` chunks; the lane-group loop runs `lanes / 4` groups.
    lanes: usize,
    /// Lane-group mode: the loop index `g` (`I64`, 0..lanes/4; lanes `4g..4g+4`) and
    /// `state + 16 * g`. Vector values are then one group: 1 `i32x4` or 2 `i64x2` chunks.
    group: Option<(Value, Value)>,
    /// Whether to try the lane-group loop form.
    pub try_loop: bool,
    /// Address of the block's two successor links (`jit::Links`: code of the compiled
    /// block at the jump / taken target, then at the not-taken target; 0 = not linked),
    /// when the block may continue in its successor by a tail call (block chaining).
    pub links: Option<usize>,
    /// Whole-wave vector values spilled before a lane-group loop that reads them.
    outer: HashMap<u32, StackSlot>,
    /// Registers written in the current lane group and not stored yet (stored once at the
    /// end of the group; inside the loop every read goes through `vreg_cache`).
    dirty: Vec<u16>,
    /// Lane masks of the compares of the current lane group: value → (chunks, lane bits).
    group_masks: HashMap<u32, (Vec<Value>, u32)>,
    /// Masks of the compare just emitted in a lane group (picked up by `run`).
    cur_cmp_masks: Option<(Vec<Value>, u32)>,
    /// Vector values that left a lane-group run: their 64-lane stack buffers (lane order,
    /// the helpers' layout; written once, by that run), which helpers that only read a
    /// value take directly instead of a fresh copy.
    escaped: HashMap<u32, StackSlot>,
    /// Later dword pieces of a multi-dword load whose first piece tried them all at once
    /// ([`Gen::fused_load`]): op index → (its result buffer, the flag slot, non-zero when
    /// the fused path loaded it).
    fused: HashMap<usize, (StackSlot, StackSlot)>,
    /// While the fast lane-group loop is emitted: where a group with a NaN float result
    /// leaves it for the slow loop (`Gen::run`).
    bail: Option<Bail>,
    /// Blocks made now are cold (the slow lane-group loop).
    cold: bool,
    /// [`Op::CountVector`] counts not yet added to the counters: active lanes (`I64`) and
    /// vector instructions.
    pending_counts: Option<(Value, u64)>,
    /// The current run's post ops whose lane masks a lane group computes ([`run_extent`]).
    group_derived: Vec<u32>,
    /// While the fast lane-group loop is emitted: the register-write masks it runs only
    /// with every lane set (checked before the loop).
    full_masks: Vec<u32>,
    /// In the fast lane-group loop: the NaN lanes of the group's float results so far.
    group_nan: Option<Value>,
    /// Loads and stores go straight to their helper (the fallback of a multi-dword access,
    /// [`Gen::emit_multi`]).
    helper_only: bool,
    /// Blocks of inline memory paths are laid out in line ([`Gen::cold_block`]): the
    /// multi-dword path, [`Gen::emit_multi`], is the hot one.
    hot_mem: bool,
    /// Per value, how many ops (and the exit) use it.
    uses: Vec<u32>,
    /// Multi-dword accesses emitted as one ([`Gen::emit_multi`]).
    multi: u32,
    /// Vector values read from their register row wherever used ([`row_values`]).
    rows: HashMap<u32, u16>,
    /// The block has more vector memory ops than [`INLINE_MEM_OPS`]: single accesses go
    /// straight to their helper (no inline code for each).
    many_mem: bool,
}

/// How a matrix op runs when MODE allows its fused kernel ([`Gen::matrix_unit`]).
enum MatUnit {
    /// Alone, by its own kernel.
    Single,
    /// Run by the unit call at an earlier op.
    Member,
    /// With the next matrix op: the pair kernel and the two `Fused` addresses.
    Pair(crate::matrix::kernels::PairEntry, u64, u64),
    /// With the next ones: the group kernel and its descriptors (`Fused::group`).
    Group(crate::matrix::kernels::GroupEntry, Vec<[u64; 2]>),
}

/// The exit of the fast lane-group loop to the slow one: the loop header's parameters (the
/// group and its compare accumulators, passed on so the slow loop redoes the group) and the
/// block taking them, made at the first float op that needs it.
struct Bail {
    args: Vec<Value>,
    block: Option<cranelift_codegen::ir::Block>,
}

impl<'a, 'b> Gen<'a, 'b> {
    pub fn new(
        mut b: FunctionBuilder<'b>,
        block: &'a Block,
        call_conv: CallConv,
        frontend: TargetFrontendConfig,
    ) -> Gen<'a, 'b> {
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let state = b.block_params(entry)[0];
        let ctx = b.block_params(entry)[1];
        let slots = (0..6)
            .map(|_| {
                b.create_sized_stack_slot(StackSlotData::new(StackSlotKind::ExplicitSlot, 512, 4))
            })
            .collect();
        Gen {
            b,
            block,
            call_conv,
            frontend,
            state,
            ctx,
            vals: Vec::with_capacity(block.ops.len()),
            splat_src: Vec::with_capacity(block.ops.len()),
            slots,
            mask_cache: HashMap::new(),
            vreg_cache: HashMap::new(),
            keep: Vec::new(),
            lanes: block.lanes(),
            group: None,
            try_loop: false,
            links: None,
            outer: HashMap::new(),
            dirty: Vec::new(),
            group_masks: HashMap::new(),
            cur_cmp_masks: None,
            escaped: HashMap::new(),
            fused: HashMap::new(),
            bail: None,
            cold: false,
            pending_counts: None,
            group_derived: Vec::new(),
            full_masks: Vec::new(),
            group_nan: None,
            helper_only: false,
            hot_mem: false,
            uses: Vec::new(),
            multi: 0,
            many_mem: false,
            rows: HashMap::new(),
        }
    }

    /// Chunks per vector value of `bits` lanes in the current mode.
    fn nch(&self, bits: u32) -> usize {
        match (self.group.is_some(), bits) {
            (true, 32) => 1,
            (true, _) => 2,
            (false, b) => nchunks(self.lanes, b),
        }
    }

    /// The `S64` lane mask `m` cut to the block's lanes (wave32: bits 32..63 cleared).
    fn lane_bits(&mut self, m: Val) -> GenResult<Value> {
        let x = self.s_as(m, types::I64)?;
        Ok(if self.lanes == 32 {
            self.b.ins().band_imm_u(x, 0xFFFF_FFFF)
        } else {
            x
        })
    }

    /// Base address for VGPR rows: `state`, or `state + 16 * g` in a lane group.
    fn vbase(&self) -> Value {
        self.group.map_or(self.state, |(_, p)| p)
    }

    /// Fails in lane-group mode (the op needs all 64 lanes at once).
    fn whole_wave(&self, what: &str) -> GenResult<()> {
        if self.group.is_some() {
            Err(format!("{what} is not lane-local"))
        } else {
            Ok(())
        }
    }

    fn get(&self, v: Val) -> GenResult<&JV> {
        match self.vals.get(v.0 as usize) {
            Some(JV::None) | None => Err(format!("operand {v:?} is not an earlier value")),
            Some(x) => Ok(x),
        }
    }

    fn ty(&self, v: Val) -> GenResult<Ty> {
        match self.block.types.get(v.0 as usize) {
            Some(Some(t)) => Ok(*t),
            _ => Err(format!("operand {v:?} has no type")),
        }
    }

    fn s(&self, v: Val) -> GenResult<Value> {
        match self.get(v)? {
            JV::S(x) => Ok(*x),
            _ => Err(format!("operand {v:?} is not uniform")),
        }
    }

    /// A uniform operand widened/narrowed to `t` (I32 or I64).
    fn s_as(&mut self, v: Val, t: Type) -> GenResult<Value> {
        let x = self.s(v)?;
        let xt = self.b.func.dfg.value_type(x);
        Ok(if xt == t {
            x
        } else if t == types::I64 {
            self.b.ins().uextend(types::I64, x)
        } else {
            self.b.ins().ireduce(types::I32, x)
        })
    }

    fn v(&mut self, v: Val) -> GenResult<Vec<Value>> {
        let x = match self.get(v)? {
            JV::V(x) => x.clone(),
            JV::Buf(slot) => {
                let slot = *slot;
                if self.group.is_none() {
                    let bits = self.ty(v)?.bits();
                    return Ok((0..nchunks(self.lanes, bits))
                        .map(|c| {
                            self.b
                                .ins()
                                .stack_load(types::I64, vty(bits), slot, (16 * c) as i32)
                        })
                        .collect());
                }
                // In a lane group: read from the buffer like any value from before the run.
                Vec::new()
            }
            _ => return Err(format!("operand {v:?} is not a vector")),
        };
        let Some((g, _)) = self.group else {
            return Ok(x);
        };
        let bits = self.ty(v)?.bits();
        if !x.is_empty() && x.len() == self.nch(bits) {
            return Ok(x); // defined in this lane group
        }
        // A whole-wave value from before the loop: its group `g` part.
        if let (Some(&x0), Some(Some(_))) = (x.first(), self.splat_src.get(v.0 as usize)) {
            let x0 = self.slow_copy(x0);
            return Ok(vec![x0; self.nch(bits)]);
        }
        let slot = *self
            .outer
            .get(&v.0)
            .ok_or_else(|| format!("operand {v:?} not prepared for the lane group"))?;
        let base = self.b.ins().stack_addr(types::I64, slot, 0);
        let sh = if bits == 32 { 4 } else { 5 };
        let go = self.b.ins().ishl_imm_u(g, sh);
        let a = self.b.ins().iadd(base, go);
        Ok((0..self.nch(bits))
            .map(|c| self.b.ins().load(vty(bits), trusted(), a, (16 * c) as i32))
            .collect())
    }

    /// In the slow lane-group loop, a copy of the vector `x` that Cranelift cannot prove
    /// equal to it (ORed with zeros loaded from [`LANE_MASKS`]), else `x`: the slow loop's
    /// splats are then values of their own, hoisted to its entry, so the fast loop keeps
    /// its splats in registers (with shared values the register allocator tends to spill
    /// them for both loops, reloading them in the fast loop every group).
    fn slow_copy(&mut self, x: Value) -> Value {
        if !self.cold || self.group.is_none() {
            return x;
        }
        let t = self.b.func.dfg.value_type(x);
        let zeros = self.iconst(types::I64, LANE_MASKS.m32.as_ptr() as u64);
        // A static table: never written, always mapped; entry 0 is all zeros.
        let z = self
            .b
            .ins()
            .load(t, trusted().with_readonly().with_can_move(), zeros, 0);
        self.b.ins().bor(x, z)
    }

    fn iconst(&mut self, t: Type, x: u64) -> Value {
        self.b.ins().iconst(t, x as i64)
    }

    fn vconst_bytes(&mut self, t: Type, bytes: [u8; 16]) -> Value {
        let c = self
            .b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(bytes.to_vec()));
        self.b.ins().vconst(t, c)
    }

    fn splat_const(&mut self, bits: u32, x: u64) -> Value {
        let mut bytes = [0u8; 16];
        if bits == 32 {
            for k in 0..4 {
                bytes[4 * k..4 * k + 4].copy_from_slice(&(x as u32).to_le_bytes());
            }
        } else {
            for k in 0..2 {
                bytes[8 * k..8 * k + 8].copy_from_slice(&x.to_le_bytes());
            }
        }
        self.vconst_bytes(vty(bits), bytes)
    }

    fn state_addr(&mut self, off: usize) -> Value {
        self.b.ins().iadd_imm_s(self.state, off as i64)
    }

    fn slot_addr(&mut self, k: usize) -> Value {
        self.b.ins().stack_addr(types::I64, self.slots[k], 0)
    }

    /// Stores a vector's chunks into stack buffer `k`; returns its address.
    fn spill(&mut self, k: usize, chunks: &[Value]) -> Value {
        for (i, c) in chunks.iter().enumerate() {
            self.b
                .ins()
                .stack_store(types::I64, *c, self.slots[k], (i * 16) as i32);
        }
        self.slot_addr(k)
    }

    /// A 64-lane buffer holding vector `v` for a helper that only reads it: the buffer `v`
    /// escaped a lane-group run in, else a copy in stack buffer `k`.
    fn read_buffer(&mut self, v: Val, k: usize) -> GenResult<Value> {
        if let Some(r) = self.rows.get(&v.0).copied() {
            return Ok(self.state_addr(WaveState::vgpr_offset(r as usize, 0)));
        }
        if let Some(slot) = self.escaped.get(&v.0).copied() {
            return Ok(self.b.ins().stack_addr(types::I64, slot, 0));
        }
        let chunks = self.v(v)?;
        Ok(self.spill(k, &chunks))
    }

    fn unspill(&mut self, k: usize, bits: u32) -> Vec<Value> {
        (0..nchunks(self.lanes, bits))
            .map(|i| {
                self.b
                    .ins()
                    .stack_load(types::I64, vty(bits), self.slots[k], (i * 16) as i32)
            })
            .collect()
    }

    fn sig(&self, params: &[Type], ret: Option<Type>) -> Signature {
        let mut s = Signature::new(self.call_conv);
        s.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        if let Some(r) = ret {
            s.returns.push(AbiParam::new(r));
        }
        s
    }

    /// Calls the helper at `f` with the given argument values.
    fn call(
        &mut self,
        f: usize,
        params: &[Type],
        ret: Option<Type>,
        args: &[Value],
    ) -> Option<Value> {
        let sig = self.sig(params, ret);
        let sigref = self.b.import_signature(sig);
        let callee = self.iconst(types::I64, f as u64);
        let inst = self.b.ins().call_indirect(sigref, callee, args);
        self.b.inst_results(inst).first().copied()
    }

    /// 4 or 2 lanes of the `mask` bits for chunk `k` as an all-ones/zero lane vector: the
    /// chunk's 4 (2) mask bits index [`LANE_MASKS`] (a shift, an AND and one load per chunk,
    /// in lane groups too).
    fn lane_mask(&mut self, mask: Value, k: usize, bits: u32) -> Value {
        let per = if bits == 32 { 4 } else { 2 };
        let sh = match self.group {
            // Lanes 4g + per*k ..: shift by 4g + per*k.
            Some((g, _)) => {
                let g4 = self.b.ins().ishl_imm_u(g, 2);
                let amt = self.b.ins().iadd_imm_s(g4, (k * per) as i64);
                self.b.ins().ushr(mask, amt)
            }
            None => self.b.ins().ushr_imm_u(mask, (k * per) as i64),
        };
        let idx = self.b.ins().band_imm_u(sh, (1i64 << per) - 1);
        let off = self.b.ins().ishl_imm_u(idx, 4);
        let table = if bits == 32 {
            LANE_MASKS.m32.as_ptr() as u64
        } else {
            LANE_MASKS.m64.as_ptr() as u64
        };
        let base = self.iconst(types::I64, table);
        let at = self.b.ins().iadd(base, off);
        // A static table: never written, always mapped.
        self.b
            .ins()
            .load(vty(bits), trusted().with_readonly().with_can_move(), at, 0)
    }

    /// The lane bits of an all-ones/zero lane vector chunk `k`, placed in an `i64` mask.
    fn mask_bits(&mut self, m: Value, k: usize, bits: u32) -> Value {
        let hb = self.b.ins().vhigh_bits(types::I64, m);
        let per = if bits == 32 { 4 } else { 2 };
        match self.group {
            Some((g, _)) => {
                let g4 = self.b.ins().ishl_imm_u(g, 2);
                let amt = self.b.ins().iadd_imm_s(g4, (k * per) as i64);
                self.b.ins().ishl(hb, amt)
            }
            None => self.b.ins().ishl_imm_u(hb, (k * per) as i64),
        }
    }

    fn as_f(&mut self, bits: u32, x: Value) -> Value {
        self.b.ins().bitcast(fty(bits), le(), x)
    }

    fn as_i(&mut self, bits: u32, x: Value) -> Value {
        self.b.ins().bitcast(vty(bits), le(), x)
    }

    /// The IR NaN rule applied to an integer-typed result chunk `r` of operand chunks `ops`.
    fn nan_fix(&mut self, bits: u32, ops: &[Value], r: Value) -> Value {
        let (q, dn) = if bits == 32 {
            (sem::F32_QUIET as u64, sem::F32_DEFAULT_NAN as u64)
        } else {
            (sem::F64_QUIET, sem::F64_DEFAULT_NAN)
        };
        let qv = self.splat_const(bits, q);
        let dnv = self.splat_const(bits, dn);
        let rf = self.as_f(bits, r);
        let ur = self.b.ins().fcmp(FloatCC::Unordered, rf, rf);
        let mut res = self.b.ins().bitselect(ur, dnv, r);
        for &o in ops.iter().rev() {
            let of = self.as_f(bits, o);
            let uo = self.b.ins().fcmp(FloatCC::Unordered, of, of);
            let qo = self.b.ins().bor(o, qv);
            res = self.b.ins().bitselect(uo, qo, res);
        }
        res
    }

    /// Generic vector fallback through [`helpers::h_vector`].
    fn vec_helper(
        &mut self,
        k: u32,
        op: u32,
        bits: u32,
        args: &[Val],
        rbits: u32,
        cmp: bool,
    ) -> GenResult<JV> {
        self.whole_wave("a helper-evaluated vector op")?;
        let mut wmask = if rbits == 64 { 16 } else { 0 };
        if self.lanes == 32 {
            wmask |= u64::from(helpers::WAVE32);
        }
        let mut ptrs = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let t = self.ty(*a)?;
            if t.bits() == 64 {
                wmask |= 1 << i;
            }
            ptrs.push(self.read_buffer(*a, i)?);
        }
        while ptrs.len() < 4 {
            ptrs.push(self.iconst(types::I64, 0));
        }
        let out = self.slot_addr(5);
        let kv = self.iconst(types::I32, k as u64);
        let opv = self.iconst(types::I32, op as u64);
        let wv = self.iconst(types::I32, wmask);
        let bv = self.iconst(types::I32, bits as u64);
        let i32t = types::I32;
        let p = types::I64;
        self.call(
            helpers::h_vector as *const () as usize,
            &[i32t, i32t, i32t, i32t, p, p, p, p, p],
            None,
            &[kv, opv, wv, bv, ptrs[0], ptrs[1], ptrs[2], ptrs[3], out],
        );
        if cmp {
            let m = self
                .b
                .ins()
                .stack_load(types::I64, types::I64, self.slots[5], 0);
            Ok(JV::S(m))
        } else {
            Ok(JV::V(self.unspill(5, rbits)))
        }
    }

    /// Generic scalar fallback through [`helpers::h_scalar`].
    fn scalar_helper(
        &mut self,
        k: u32,
        op: u32,
        bits: u32,
        args: &[Val],
        rbits: u32,
    ) -> GenResult<JV> {
        let mut a = Vec::new();
        for x in args {
            a.push(self.s_as(*x, types::I64)?);
        }
        while a.len() < 3 {
            a.push(self.iconst(types::I64, 0));
        }
        let kv = self.iconst(types::I32, k as u64);
        let opv = self.iconst(types::I32, op as u64);
        let wv = self.iconst(types::I32, (bits | rbits << 8) as u64);
        let i32t = types::I32;
        let i64t = types::I64;
        let r = self
            .call(
                helpers::h_scalar as *const () as usize,
                &[i32t, i32t, i32t, i64t, i64t, i64t],
                Some(i64t),
                &[kv, opv, wv, a[0], a[1], a[2]],
            )
            .ok_or("helper result")?;
        Ok(JV::S(if rbits == 32 {
            self.b.ins().ireduce(types::I32, r)
        } else {
            r
        }))
    }

    /// Branches to a block that stores `pc` and returns Fault when `rc != 0`.
    fn fault_check(&mut self, rc: Value, pc: u64) {
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(rc, fault, &[], cont, &[]);
        self.b.switch_to_block(fault);
        self.b.seal_block(fault);
        self.ret_with_pc(pc, crate::env::ExitCode::Fault as u32);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    fn ret_with_pc(&mut self, pc: u64, code: u32) {
        let pcv = self.iconst(types::I64, pc);
        self.b
            .ins()
            .store(trusted(), pcv, self.state, WaveState::PC_OFFSET as i32);
        let c = self.iconst(types::I32, code as u64);
        self.b.ins().return_(&[c]);
    }

    /// Charges the block's instruction count to [`WaveState::credit`] at the block's start
    /// (`head`, also where an exit to the block's own start loops back to); when the credit
    /// is short, returns `Continue` at the block's start with nothing executed, so the run
    /// loop sees the budget run out exactly where the interpreter would.
    fn charge_credit(&mut self) {
        let blk = self.block;
        let cost = u64::from(blk.inst_count).max(1);
        let off = WaveState::CREDIT_OFFSET as i32;
        let credit = self.b.ins().load(types::I64, trusted(), self.state, off);
        let short = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedLessThan, credit, cost as i64);
        let stop = self.b.create_block();
        let go = self.b.create_block();
        self.b.ins().brif(short, stop, &[], go, &[]);
        self.b.set_cold_block(stop);
        self.b.switch_to_block(stop);
        self.b.seal_block(stop);
        self.ret_with_pc(blk.start_pc, crate::env::ExitCode::Continue as u32);
        self.b.switch_to_block(go);
        self.b.seal_block(go);
        let left = self.b.ins().iadd_imm_s(credit, -(cost as i64));
        self.b.ins().store(trusted(), left, self.state, off);
    }

    /// Ends the block continuing at `pc` (already stored in the state): with `link` (the
    /// address of the successor's link cell), a tail call of the linked successor's code
    /// when the link is set, else `Continue` to the run loop.
    fn exit_continue(&mut self, link: Option<Value>) {
        let z = self.iconst(types::I32, 0);
        let Some(link) = link else {
            self.b.ins().return_(&[z]);
            return;
        };
        // Acquire: the code was finalized before another thread published its address.
        let f = self
            .b
            .ins()
            .atomic_load(types::I64, MemFlagsData::trusted(), link);
        let chain = self.b.create_block();
        let back = self.b.create_block();
        self.b.ins().brif(f, chain, &[], back, &[]);
        self.b.switch_to_block(chain);
        self.b.seal_block(chain);
        let sig = self.b.func.signature.clone();
        let sigref = self.b.import_signature(sig);
        let (state, ctx) = (self.state, self.ctx);
        self.b.ins().return_call_indirect(sigref, f, &[state, ctx]);
        self.b.switch_to_block(back);
        self.b.seal_block(back);
        self.b.ins().return_(&[z]);
    }

    /// Adds the [`Op::CountVector`] counts summed since the last flush to the counters:
    /// before an op that can leave the block early (a fault) and at the block's exit, so
    /// every exit sees the counts of exactly the ops before it, as in the interpreter.
    fn flush_counts(&mut self) {
        if let Some((lanes, insts)) = self.pending_counts.take() {
            self.add_counter(WaveState::ACTIVE_LANES_OFFSET, lanes);
            let n = self.iconst(types::I64, insts);
            self.add_counter(WaveState::VECTOR_INSTS_OFFSET, n);
        }
    }

    fn add_counter(&mut self, off: usize, x: Value) {
        let a = self.state_addr(off);
        let old = self.b.ins().load(types::I64, trusted(), a, 0);
        let new = self.b.ins().iadd(old, x);
        self.b.ins().store(trusted(), new, a, 0);
    }

    /// Emits the whole block.
    /// Emits the whole block; returns the matrix instructions the code points to, which must
    /// live as long as it, and how many multi-dword accesses it emitted as one
    /// ([`Gen::emit_multi`]).
    pub fn emit(mut self) -> GenResult<(Vec<std::sync::Arc<crate::ir::MatrixCall>>, u32)> {
        let blk = self.block;
        // The block body starts here, so that an exit to the block's own start can loop back
        // (`self_loop`); sealed with all blocks at the end.
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        self.charge_credit();
        let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
        for (i, n) in blk.class_counts.iter().enumerate() {
            if *n > 0 {
                let x = self.iconst(types::I64, *n as u64);
                self.add_counter(cls + 8 * i, x);
            }
        }
        self.uses = use_counts(blk);
        let mem_ops = blk
            .ops
            .iter()
            .filter(|o| matches!(o, Op::Load { .. } | Op::Store { .. }))
            .count();
        self.many_mem = mem_ops > INLINE_MEM_OPS;
        self.rows = row_values(blk, &self.uses, &last_uses(blk));
        if self.try_loop {
            self.emit_grouped()?;
        } else {
            let last_use = last_uses(blk);
            let mut i = 0;
            while i < blk.ops.len() {
                if let Some(mu) = multi_access(blk, i, &self.uses, &last_use) {
                    self.emit_multi(&mu)
                        .map_err(|e| format!("ops {i}..={}: {e}", mu.last))?;
                    i = mu.last + 1;
                    continue;
                }
                self.straight(i)?;
                i += 1;
            }
        }
        self.flush_counts();
        match &blk.exit {
            Exit::Jump(t) => {
                if *t == blk.start_pc {
                    // Loop: the credit check at `head` ends it.
                    self.b.ins().jump(head, &[]);
                } else {
                    let pcv = self.iconst(types::I64, *t);
                    self.b
                        .ins()
                        .store(trusted(), pcv, self.state, WaveState::PC_OFFSET as i32);
                    let link = self.links.map(|a| self.iconst(types::I64, a as u64));
                    self.exit_continue(link);
                }
            }
            Exit::Branch {
                cond,
                taken,
                not_taken,
            } => {
                let c = self.s_as(*cond, types::I32)?;
                let start = blk.start_pc;
                if *taken == start || *not_taken == start {
                    let to_self = match (*taken == start, *not_taken == start) {
                        (true, true) => self.iconst(types::I8, 1),
                        (true, false) => self.b.ins().icmp_imm_u(IntCC::NotEqual, c, 0),
                        _ => self.b.ins().icmp_imm_u(IntCC::Equal, c, 0),
                    };
                    // Loop back: the credit check at `head` ends it.
                    let out = self.b.create_block();
                    self.b.ins().brif(to_self, head, &[], out, &[]);
                    self.b.switch_to_block(out);
                    self.b.seal_block(out);
                }
                let t = self.iconst(types::I64, *taken);
                let n = self.iconst(types::I64, *not_taken);
                let pc = self.b.ins().select(c, t, n);
                self.b
                    .ins()
                    .store(trusted(), pc, self.state, WaveState::PC_OFFSET as i32);
                let same = *taken == *not_taken;
                let link = self.links.map(|a| {
                    let lt = self.iconst(types::I64, a as u64);
                    if same {
                        // One link for both ways (`jit::Jit::compile`).
                        return lt;
                    }
                    let ln = self.iconst(types::I64, a as u64 + 8);
                    self.b.ins().select(c, lt, ln)
                });
                self.exit_continue(link);
            }
            Exit::JumpIndirect(t) => {
                let pc = self.s_as(*t, types::I64)?;
                self.b
                    .ins()
                    .store(trusted(), pc, self.state, WaveState::PC_OFFSET as i32);
                let z = self.iconst(types::I32, 0);
                self.b.ins().return_(&[z]);
            }
            Exit::EndPgm => self.ret_with_pc(blk.end_pc, 1),
            Exit::Barrier { next } => self.ret_with_pc(*next, 2),
            Exit::Trap { pc, .. } => self.ret_with_pc(*pc, 3),
            Exit::Yield { next } => self.ret_with_pc(*next, 5),
            Exit::Unsupported { pc, .. } => self.ret_with_pc(*pc, EXIT_UNSUPPORTED),
            Exit::Illegal { pc, .. } => self.ret_with_pc(*pc, EXIT_ILLEGAL),
        }
        self.b.seal_all_blocks();
        self.b.finalize(self.frontend);
        Ok((self.keep, self.multi))
    }

    fn record(&mut self, op: &Op, v: JV) {
        let src = match (op, &v) {
            (Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
            _ => None,
        };
        self.vals.push(v);
        self.splat_src.push(src);
    }

    /// Lane-group form (DESIGN.md: iterate the lane chunks outside, keep values in
    /// registers). The block is cut into runs of consecutive ops that are lane-local inlined
    /// vector ops ([`OpClass::Lane`]) or uniform ops that read no vector value and cannot
    /// fault ([`OpClass::Uniform`]); other ops are emitted in the straight-line form between
    /// runs. A run emits its uniform ops first (they touch no VGPRs, so this reordering is
    /// invisible), then one loop over the groups of 4 lanes (`lanes / 4`) executing all its vector ops
    /// for that group. Vector values used after the run are stored per group into stack
    /// buffers and reloaded after the loop.
    fn emit_grouped(&mut self) -> GenResult<()> {
        let blk = self.block;
        let n = blk.ops.len();
        let classes: Vec<OpClass> = (0..n).map(|i| classify(blk, i)).collect();
        let last_use = last_uses(blk);
        let mut any_run = false;
        let mut i = 0;
        while i < n {
            if classes[i] == OpClass::Other {
                if let Some(mu) = multi_access(blk, i, &self.uses, &last_use) {
                    self.emit_multi(&mu)
                        .map_err(|e| format!("ops {i}..={}: {e}", mu.last))?;
                    i = mu.last + 1;
                    continue;
                }
                self.straight(i)?;
                i += 1;
                continue;
            }
            let (j, post, derived) = run_extent(blk, i, &classes);
            if (i..j).any(|k| classes[k] == OpClass::Lane) {
                self.group_derived = derived;
                self.run(i, j, &classes, &post, &last_use)?;
                self.group_derived.clear();
                any_run = true;
            } else {
                for k in i..j {
                    self.straight(k)?;
                }
            }
            i = j;
        }
        if any_run {
            Ok(())
        } else {
            Err("no lane-local vector work".into())
        }
    }

    /// Emits op `i` in the straight-line form.
    fn straight(&mut self, i: usize) -> GenResult<()> {
        let op = &self.block.ops[i];
        let v = self
            .op(i, op, self.block.types[i])
            .map_err(|e| format!("op {i}: {e}"))?;
        self.record(op, v);
        Ok(())
    }

    /// Emits ops `i..j` (a run) as uniform prologue + lane-group loop.
    // Op indices address several parallel tables (ops, types, classes, values).
    #[allow(clippy::needless_range_loop)]
    fn run(
        &mut self,
        i: usize,
        j: usize,
        classes: &[OpClass],
        post: &[bool],
        last_use: &[usize],
    ) -> GenResult<()> {
        let blk = self.block;
        // Placeholders keep value numbering aligned while the run is emitted out of order.
        let first = self.vals.len();
        if first != i {
            return Err("value numbering".into());
        }
        for _ in i..j {
            self.vals.push(JV::None);
            self.splat_src.push(None);
        }
        for k in i..j {
            if classes[k] == OpClass::Uniform && !post[k - i] {
                let v = self
                    .op(k, &blk.ops[k], blk.types[k])
                    .map_err(|e| format!("op {k}: {e}"))?;
                self.vals[k] = v;
            }
        }
        // Escaping vector values get a 64-lane stack buffer each.
        let mut escapes: Vec<(usize, u32, StackSlot)> = Vec::new();
        for k in i..j {
            if classes[k] == OpClass::Lane
                && last_use[k] >= j
                && !self.rows.contains_key(&(k as u32))
            {
                if let Some(t) = blk.types[k].filter(|t| t.is_vector()) {
                    let bits = t.bits();
                    let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        bits * 8,
                        4,
                    ));
                    escapes.push((k, bits, slot));
                }
            }
        }
        // Whole-wave vector operands from before the run go to stack buffers the loop reads.
        self.outer.clear();
        for k in i..j {
            if classes[k] != OpClass::Lane {
                continue;
            }
            for v in operands(&blk.ops[k]) {
                let d = v.0 as usize;
                if d >= i || self.outer.contains_key(&v.0) {
                    continue;
                }
                if self.splat_src.get(d).copied().flatten().is_some() {
                    continue;
                }
                if let Some(slot) = self.escaped.get(&v.0).copied() {
                    // Already in a lane-order buffer: the loop reads it there.
                    self.outer.insert(v.0, slot);
                    continue;
                }
                if let JV::V(chunks) = self.get(v)?.clone() {
                    let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                        StackSlotKind::ExplicitSlot,
                        (chunks.len() * 16) as u32,
                        4,
                    ));
                    for (c, ch) in chunks.iter().enumerate() {
                        self.b
                            .ins()
                            .stack_store(types::I64, *ch, slot, (16 * c) as i32);
                    }
                    self.outer.insert(v.0, slot);
                }
            }
        }
        // Compares of the run accumulate their lane bits in loop-carried values.
        let cmps: Vec<usize> = (i..j)
            .filter(|&k| classes[k] == OpClass::Lane && matches!(blk.ops[k], Op::Cmp(..)))
            .collect();
        let header = self.b.create_block();
        self.b.append_block_param(header, types::I64);
        for _ in &cmps {
            self.b.append_block_param(header, types::I64);
        }
        let after = self.b.create_block();
        for _ in &cmps {
            self.b.append_block_param(after, types::I64);
        }
        let zero = self.iconst(types::I64, 0);
        let init: Vec<BlockArg> = (0..=cmps.len()).map(|_| BlockArg::Value(zero)).collect();
        // The fast loop: a float result with a NaN lane leaves it (before the group stores
        // anything) for the slow loop, which redoes that group and the rest with the NaN
        // rule applied in line. So the NaN rule's operand tests and constants (loop
        // invariants for uniform operands, which Cranelift hoists) stay out of the hot
        // loop and do not take its registers. And the fast loop runs only when the masks of
        // the run's register writes that exist before it (EXEC) have every lane of the
        // block set, so it writes registers without blending (else the slow loop runs).
        let mut full: Vec<u32> = Vec::new();
        for k in i..j {
            if let (OpClass::Lane, Op::SetVgpr { mask, .. }) = (classes[k], &blk.ops[k]) {
                let early = (mask.0 as usize) < i
                    || classes.get(mask.0 as usize) == Some(&OpClass::Uniform)
                        && !post[mask.0 as usize - i];
                let constant = matches!(
                    blk.ops.get(mask.0 as usize),
                    Some(Op::Const { bits: u64::MAX, .. })
                );
                if early && !constant && !full.contains(&mask.0) {
                    full.push(mask.0);
                }
            }
        }
        let mut entry_bail = None;
        if full.is_empty() {
            self.b.ins().jump(header, &init);
        } else {
            let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
            let mut ok: Option<Value> = None;
            for m in &full {
                let x = self.lane_bits(Val(*m))?;
                let f = self.b.ins().icmp_imm_s(IntCC::Equal, x, all_lanes);
                ok = Some(match ok {
                    Some(o) => self.b.ins().band(o, f),
                    None => f,
                });
            }
            let ok = ok.ok_or("masks")?;
            let bail = self.b.create_block();
            self.b.set_cold_block(bail);
            for _ in 0..=cmps.len() {
                self.b.append_block_param(bail, types::I64);
            }
            self.b.ins().brif(ok, header, &init, bail, &init);
            entry_bail = Some(bail);
        }
        self.bail = Some(Bail {
            args: Vec::new(),
            block: entry_bail,
        });
        self.full_masks = full;
        let fast = self.group_loop(i, j, classes, &cmps, &escapes, header, after);
        self.full_masks.clear();
        let bail = self.bail.take();
        fast?;
        if let Some(Bail {
            block: Some(bail), ..
        }) = bail
        {
            self.b.switch_to_block(bail);
            self.b.seal_block(bail);
            let args: Vec<BlockArg> = self
                .b
                .block_params(bail)
                .iter()
                .map(|v| BlockArg::Value(*v))
                .collect();
            let slow = self.b.create_block();
            self.b.set_cold_block(slow);
            for _ in 0..args.len() {
                self.b.append_block_param(slow, types::I64);
            }
            self.b.ins().jump(slow, &args);
            for k in i..j {
                if classes[k] == OpClass::Lane {
                    self.vals[k] = JV::None;
                    self.splat_src[k] = None;
                }
            }
            self.cold = true;
            let r = self.group_loop(i, j, classes, &cmps, &escapes, slow, after);
            self.cold = false;
            r?;
        }
        self.b.switch_to_block(after);
        self.b.seal_block(after);
        let finals = self.b.block_params(after).to_vec();
        for (ci, &k) in cmps.iter().enumerate() {
            self.vals[k] = JV::S(finals[ci]);
        }
        self.group = None;
        self.group_masks.clear();
        self.outer.clear();
        self.mask_cache.clear();
        self.vreg_cache.clear();
        // Values that stay inside the run are dead now; escaping ones come back whole.
        for k in i..j {
            if classes[k] == OpClass::Lane && !cmps.contains(&k) {
                self.vals[k] = JV::None;
                self.splat_src[k] = None;
            }
        }
        // Uniform ops that depend on this run's compares (and all uniform ops after the
        // first of them, keeping their order), now that the masks are complete.
        for k in i..j {
            if classes[k] == OpClass::Uniform && post[k - i] {
                let v = self
                    .op(k, &blk.ops[k], blk.types[k])
                    .map_err(|e| format!("op {k}: {e}"))?;
                self.vals[k] = v;
            }
        }
        for (k, bits, slot) in escapes {
            self.escaped.insert(k as u32, slot);
            if let Op::Broadcast(a) = &blk.ops[k] {
                // Splats stay chunks (lane groups read their uniform source).
                let chunks = (0..nchunks(self.lanes, bits))
                    .map(|c| {
                        self.b
                            .ins()
                            .stack_load(types::I64, vty(bits), slot, (16 * c) as i32)
                    })
                    .collect();
                self.vals[k] = JV::V(chunks);
                self.splat_src[k] = self.s(*a).ok();
            } else {
                self.vals[k] = JV::Buf(slot);
            }
        }
        Ok(())
    }

    /// One lane-group loop of the run `i..j` from `header` (parameters: the group index
    /// and the compares' mask accumulators) to `after` (the accumulators): every lane op of
    /// the run for group `g`, then the group's register and escape stores.
    #[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
    fn group_loop(
        &mut self,
        i: usize,
        j: usize,
        classes: &[OpClass],
        cmps: &[usize],
        escapes: &[(usize, u32, StackSlot)],
        header: cranelift_codegen::ir::Block,
        after: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let blk = self.block;
        self.b.switch_to_block(header);
        self.mask_cache.clear();
        self.vreg_cache.clear();
        self.group_masks.clear();
        self.dirty.clear();
        self.group_nan = None;
        let params = self.b.block_params(header).to_vec();
        if let Some(b) = self.bail.as_mut() {
            b.args = params.clone();
        }
        let g = params[0];
        let mut accs: Vec<Value> = params[1..].to_vec();
        let off = self.b.ins().ishl_imm_u(g, 4);
        let p = self.b.ins().iadd(self.state, off);
        self.group = Some((g, p));
        for k in i..j {
            if classes[k] != OpClass::Lane {
                continue;
            }
            let op = &blk.ops[k];
            self.cur_cmp_masks = None;
            let v = self
                .op(k, op, blk.types[k])
                .map_err(|e| format!("op {k}: {e}"))?;
            if let Some(ci) = cmps.iter().position(|&c| c == k) {
                let (masks, bits) = self
                    .cur_cmp_masks
                    .take()
                    .ok_or("compare without lane masks")?;
                let JV::S(group_bits) = v else {
                    return Err("compare result".into());
                };
                accs[ci] = self.b.ins().bor(accs[ci], group_bits);
                self.group_masks.insert(k as u32, (masks, bits));
                // The whole mask exists only after the loop.
                self.vals[k] = JV::None;
                continue;
            }
            self.splat_src[k] = match (op, &v) {
                (Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
                _ => None,
            };
            self.vals[k] = v;
        }
        self.bail_on_nan();
        let vb = self.vbase();
        for reg in std::mem::take(&mut self.dirty) {
            let chunks = self.vreg_cache.get(&reg).cloned().ok_or("dirty register")?;
            let off = WaveState::vgpr_offset(reg as usize, 0);
            for (c, ch) in chunks.iter().enumerate() {
                self.b
                    .ins()
                    .store(trusted(), *ch, vb, (off + 16 * c) as i32);
            }
        }
        for (k, bits, slot) in escapes {
            let chunks = self.v(Val(*k as u32))?;
            let base = self.b.ins().stack_addr(types::I64, *slot, 0);
            // Group g of a V32 value is bytes 16g..16g+16; of a V64 value 32g..32g+32.
            let sh = if *bits == 32 { 4 } else { 5 };
            let go = self.b.ins().ishl_imm_u(g, sh);
            let a = self.b.ins().iadd(base, go);
            for (c, ch) in chunks.iter().enumerate() {
                self.b.ins().store(trusted(), *ch, a, (16 * c) as i32);
            }
        }
        let next = self.b.ins().iadd_imm_s(g, 1);
        let groups = (self.lanes / 4) as i64;
        let more = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, next, groups);
        let mut back = vec![BlockArg::Value(next)];
        back.extend(accs.iter().map(|a| BlockArg::Value(*a)));
        let out: Vec<BlockArg> = accs.iter().map(|a| BlockArg::Value(*a)).collect();
        self.b.ins().brif(more, header, &back, after, &out);
        self.b.seal_block(header);
        self.group = None;
        Ok(())
    }

    fn need(ty: Option<Ty>) -> GenResult<Ty> {
        ty.ok_or_else(|| "op has a result but no type".to_string())
    }

    fn op(&mut self, i: usize, op: &Op, ty: Option<Ty>) -> GenResult<JV> {
        if may_leave(op) {
            self.flush_counts();
        }
        Ok(match op {
            Op::Const { bits, .. } => {
                let t = Self::need(ty)?;
                if t.is_vector() {
                    return Err("vector Const".into());
                }
                JV::S(self.iconst(sty(t.bits()), sem::trunc_to(t.bits(), *bits)))
            }
            Op::LaneConst(c) => {
                self.whole_wave("this op")?;
                let mut chunks = Vec::new();
                for k in 0..self.lanes / 4 {
                    let mut b = [0u8; 16];
                    for j in 0..4 {
                        b[4 * j..4 * j + 4].copy_from_slice(&c[4 * k + j].to_le_bytes());
                    }
                    chunks.push(self.vconst_bytes(I32X4, b));
                }
                JV::V(chunks)
            }
            Op::LaneId if self.group.is_some() => {
                let g = self.group.map(|(g, _)| g).ok_or("group")?;
                let g4 = self.b.ins().ishl_imm_u(g, 2);
                let g4 = self.b.ins().ireduce(types::I32, g4);
                let sp = self.b.ins().splat(I32X4, g4);
                let mut bytes = [0u8; 16];
                for j in 0..4u32 {
                    bytes[4 * j as usize..4 * j as usize + 4].copy_from_slice(&j.to_le_bytes());
                }
                let base = self.vconst_bytes(I32X4, bytes);
                JV::V(vec![self.b.ins().iadd(sp, base)])
            }
            Op::LaneId => {
                let mut chunks = Vec::new();
                for k in 0..(self.lanes / 4) as u32 {
                    let mut b = [0u8; 16];
                    for j in 0..4u32 {
                        b[4 * j as usize..4 * j as usize + 4]
                            .copy_from_slice(&(4 * k + j).to_le_bytes());
                    }
                    chunks.push(self.vconst_bytes(I32X4, b));
                }
                JV::V(chunks)
            }
            Op::GetSgpr(code) => {
                let c = *code as usize;
                if c >= NUM_SREGS {
                    return Err(format!("scalar slot {c} out of range"));
                }
                if *code == sreg::NULL {
                    JV::S(self.iconst(types::I32, 0))
                } else {
                    let off = WaveState::sgpr_offset(c) as i32;
                    JV::S(self.b.ins().load(types::I32, trusted(), self.state, off))
                }
            }
            Op::SetSgpr(code, v) => {
                let c = *code as usize;
                if c >= NUM_SREGS {
                    return Err(format!("scalar slot {c} out of range"));
                }
                let x = self.s_as(*v, types::I32)?;
                if *code != sreg::NULL {
                    let off = WaveState::sgpr_offset(c) as i32;
                    self.b.ins().store(trusted(), x, self.state, off);
                }
                JV::None
            }
            Op::GetVgpr(reg) => {
                let r = *reg as usize;
                if r >= NUM_VREGS {
                    return Err(format!("vector slot {r} out of range"));
                }
                if let Some(c) = self.vreg_cache.get(reg) {
                    return Ok(JV::V(c.clone()));
                }
                let base = WaveState::vgpr_offset(r, 0) as i32;
                let vb = self.vbase();
                let chunks: Vec<Value> = (0..self.nch(32) as i32)
                    .map(|k| self.b.ins().load(I32X4, trusted(), vb, base + 16 * k))
                    .collect();
                self.vreg_cache.insert(*reg, chunks.clone());
                JV::V(chunks)
            }
            Op::SetVgpr { reg, val, mask } => {
                let r = *reg as usize;
                if r >= NUM_VREGS {
                    return Err(format!("vector slot {r} out of range"));
                }
                let vb = self.vbase();
                let a = self
                    .b
                    .ins()
                    .iadd_imm_s(vb, WaveState::vgpr_offset(r, 0) as i64);
                let old = self.vreg_cache.get(reg).cloned();
                let defer = self.group.is_some();
                let new = self.set_vgpr(a, old, *val, *mask, !defer)?;
                if defer && !self.dirty.contains(reg) {
                    self.dirty.push(*reg);
                }
                self.vreg_cache.insert(*reg, new);
                JV::None
            }
            Op::GetVgprDyn { base, index } => {
                self.whole_wave("this op")?;
                let a = self.dyn_vreg(i, *base, *index)?;
                JV::V(
                    (0..(self.lanes / 4) as i32)
                        .map(|k| self.b.ins().load(I32X4, trusted(), a, 16 * k))
                        .collect(),
                )
            }
            Op::SetVgprDyn {
                base,
                index,
                val,
                mask,
            } => {
                self.whole_wave("SetVgprDyn")?;
                let a = self.dyn_vreg(i, *base, *index)?;
                self.set_vgpr(a, None, *val, *mask, true)?;
                // Any register may have changed.
                self.vreg_cache.clear();
                JV::None
            }
            Op::GetScc => {
                let x = self.b.ins().load(
                    types::I32,
                    trusted(),
                    self.state,
                    WaveState::SCC_OFFSET as i32,
                );
                JV::S(self.b.ins().band_imm_u(x, 1))
            }
            Op::SetScc(v) => {
                let x = self.s_as(*v, types::I32)?;
                let x = self.b.ins().band_imm_u(x, 1);
                self.b
                    .ins()
                    .store(trusted(), x, self.state, WaveState::SCC_OFFSET as i32);
                JV::None
            }
            Op::GetMode => JV::S(self.b.ins().load(
                types::I32,
                trusted(),
                self.state,
                WaveState::MODE_OFFSET as i32,
            )),
            Op::SetMode(v) => {
                let x = self.s_as(*v, types::I32)?;
                self.b
                    .ins()
                    .store(trusted(), x, self.state, WaveState::MODE_OFFSET as i32);
                JV::None
            }
            Op::Un(u, a) => self.un(*u, *a, Self::need(ty)?)?,
            Op::Bin(o, a, b) => self.bin(*o, *a, *b, Self::need(ty)?)?,
            Op::Tern(o, a, b, c) => self.tern(*o, *a, *b, *c, Self::need(ty)?)?,
            Op::Cmp(c, a, b) => self.cmp(*c, *a, *b)?,
            Op::Select { cond, a, b } => {
                let t = Self::need(ty)?;
                if t.is_vector() {
                    let lms = self.lane_masks(*cond, t.bits())?;
                    let (x, y) = (self.v(*a)?, self.v(*b)?);
                    let mut out = Vec::new();
                    for k in 0..self.nch(t.bits()) {
                        out.push(self.b.ins().bitselect(lms[k], x[k], y[k]));
                    }
                    JV::V(out)
                } else {
                    let c = self.s_as(*cond, types::I32)?;
                    let (x, y) = (self.s(*a)?, self.s(*b)?);
                    JV::S(self.b.ins().select(c, x, y))
                }
            }
            Op::Broadcast(a) => {
                let t = Self::need(ty)?;
                let x = self.s_as(*a, sty(t.bits()))?;
                let s = self.b.ins().splat(vty(t.bits()), x);
                let s = self.slow_copy(s);
                JV::V(vec![s; self.nch(t.bits())])
            }
            Op::Conv(c, a) => self.conv(*c, *a, Self::need(ty)?)?,
            Op::Pack { lo, hi } => {
                let t = Self::need(ty)?;
                if t.is_vector() {
                    let (l, h) = (self.v(*lo)?, self.v(*hi)?);
                    let mut out = Vec::new();
                    for k in 0..l.len().min(h.len()) {
                        let (a, b) = (l[k], h[k]);
                        out.push(self.shuffle32(a, b, [0, 4, 1, 5]));
                        out.push(self.shuffle32(a, b, [2, 6, 3, 7]));
                    }
                    JV::V(out)
                } else {
                    let l = self.s_as(*lo, types::I64)?;
                    let h = self.s_as(*hi, types::I64)?;
                    let l = self.b.ins().band_imm_u(l, 0xFFFF_FFFF);
                    let h = self.b.ins().ishl_imm_u(h, 32);
                    JV::S(self.b.ins().bor(l, h))
                }
            }
            Op::ReadLane { v, lane } => {
                self.whole_wave("this op")?;
                let chunks = self.v(*v)?;
                let idx = self.s_as(*lane, types::I64)?;
                let base = self.spill(0, &chunks);
                let idx = self.b.ins().band_imm_u(idx, self.lanes as i64 - 1);
                let off = self.b.ins().ishl_imm_u(idx, 2);
                let a = self.b.ins().iadd(base, off);
                JV::S(self.b.ins().load(types::I32, MemFlagsData::new(), a, 0))
            }
            Op::WriteLane { v, lane, x } => {
                self.whole_wave("this op")?;
                let chunks = self.v(*v)?;
                let idx = self.s_as(*lane, types::I64)?;
                let xv = self.s_as(*x, types::I32)?;
                let base = self.spill(0, &chunks);
                let idx = self.b.ins().band_imm_u(idx, self.lanes as i64 - 1);
                let off = self.b.ins().ishl_imm_u(idx, 2);
                let a = self.b.ins().iadd(base, off);
                self.b.ins().store(MemFlagsData::new(), xv, a, 0);
                JV::V(self.unspill(0, 32))
            }
            Op::Gather { v, idx } => {
                self.vec_helper(kind::GATHER, 0, 32, &[*v, *idx], 32, false)?
            }
            Op::MaskToLanes(m) => {
                let lms = self.lane_masks(*m, 32)?;
                let one = self.splat_const(32, 1);
                let mut out = Vec::new();
                for lm in lms {
                    out.push(self.b.ins().band(lm, one));
                }
                JV::V(out)
            }
            Op::Lane { f, args } => {
                let t = Self::need(ty)?;
                if args.len() > 4 {
                    return Err("lane function with more than 4 arguments".into());
                }
                let code = lanefn_code(f).ok_or("unknown lane function")?;
                self.vec_helper(kind::LANEFN, code, 32, args, t.bits(), false)?
            }
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
                    None if self.helper_only => None,
                    None => self.fused_load(i, *pc, *space, *addr, *size, *signed, *mask, bits)?,
                };
                // Bytes, shorts and dwords into V32, qwords into V64: the inline paths first
                // (fixed stride, then any lanes inside one window), else the helper. The
                // pieces of a fused load that did not fit take the helper at once (less
                // code to compile; its direct path still serves lanes inside a window).
                let inline = !self.helper_only && !self.many_mem;
                let plan = if inline_size(*space, *size, bits) && done.is_none() && inline {
                    Some(self.mem_plan(*pc, *space, *addr, *size, *mask, false)?)
                } else {
                    None
                };
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
                let join = match &plan {
                    Some(p) => {
                        let fast = self.cold_block();
                        let slow = p.slow;
                        let join = self.b.create_block();
                        self.b.ins().brif(p.go, fast, &[], slow, &[]);
                        self.b.switch_to_block(fast);
                        self.b.seal_block(fast);
                        self.inline_load(p, *size, *signed, bits, join, res)?;
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
                self.escaped.insert(i as u32, res);
                JV::Buf(res)
            }
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
                let dbits = self.ty(*data)?.bits();
                let inline = !self.helper_only && !self.many_mem;
                let join = if inline_size(*space, *size, dbits) && inline {
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
                JV::None
            }
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
            Op::SLoad { pc, addr } => {
                self.whole_wave("this op")?;
                let a = self.s_as(*addr, types::I64)?;
                // Inline: a dword-aligned address inside a global window (as
                // `memory::try_scalar_load`), else the helper.
                let four = self.iconst(types::I64, 4);
                let (hit, ptr) = self.window(crate::env::Space::Global, a, four)?;
                let low = self.b.ins().band_imm_u(a, 3);
                let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
                let go = self.b.ins().band(hit, aligned);
                let fast = self.b.create_block();
                let slow = self.b.create_block();
                let join = self.b.create_block();
                self.b.append_block_param(join, types::I32);
                self.b.ins().brif(go, fast, &[], slow, &[]);
                self.b.switch_to_block(fast);
                self.b.seal_block(fast);
                let x = self.b.ins().load(types::I32, le(), ptr, 0);
                self.b.ins().jump(join, &[BlockArg::Value(x)]);
                self.b.switch_to_block(slow);
                self.b.seal_block(slow);
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
                JV::S(self.b.block_params(join)[0])
            }
            Op::SStore { pc, addr, data } => {
                self.whole_wave("this op")?;
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
            Op::Clock => {
                self.whole_wave("this op")?;
                let p = types::I64;
                let r = self
                    .call(
                        helpers::h_clock as *const () as usize,
                        &[p],
                        Some(p),
                        &[self.ctx],
                    )
                    .ok_or("helper result")?;
                JV::S(r)
            }
            Op::InstCount => {
                self.whole_wave("this op")?;
                let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
                let mut sum = self.iconst(types::I64, 0);
                for c in 0..crate::wave::InstClass::COUNT {
                    let a = self.state_addr(cls + 8 * c);
                    let n = self.b.ins().load(types::I64, trusted(), a, 0);
                    sum = self.b.ins().iadd(sum, n);
                }
                JV::S(sum)
            }
            Op::BarrierState => {
                self.whole_wave("this op")?;
                let r = self
                    .call(
                        helpers::h_barrier_state as *const () as usize,
                        &[types::I64],
                        Some(types::I32),
                        &[self.ctx],
                    )
                    .ok_or("helper result")?;
                JV::S(r)
            }
            Op::CountVector { mask } => {
                // Summed in registers; added to the counters before the next op that can
                // leave the block and at its exit (`flush_counts`).
                let m = self.s_as(*mask, types::I64)?;
                let n = self.b.ins().popcnt(m);
                self.pending_counts = Some(match self.pending_counts {
                    Some((lanes, insts)) => (self.b.ins().iadd(lanes, n), insts + 1),
                    None => (n, 1),
                });
                JV::None
            }
            Op::CountRegion { exec, counts } => {
                // Every count times 1 when EXEC is non-zero, else times 0.
                let m = self.s_as(*exec, types::I64)?;
                let nz = self.b.ins().icmp_imm_u(IntCC::NotEqual, m, 0);
                let ran = self.b.ins().uextend(types::I64, nz);
                let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
                for (c, n) in counts.classes.iter().enumerate() {
                    if *n > 0 {
                        let x = self.b.ins().imul_imm_u(ran, i64::from(*n));
                        self.add_counter(cls + 8 * c, x);
                    }
                }
                if counts.vector > 0 {
                    let x = self.b.ins().imul_imm_u(ran, i64::from(counts.vector));
                    self.add_counter(WaveState::VECTOR_INSTS_OFFSET, x);
                    let n = self.b.ins().popcnt(m);
                    let x = self.b.ins().imul_imm_u(n, i64::from(counts.vector));
                    self.add_counter(WaveState::ACTIVE_LANES_OFFSET, x);
                }
                JV::None
            }
            Op::Matrix(call) => {
                // Runs between lane-group runs, after every earlier register write has been
                // stored; the registers it writes are read again from the state afterwards.
                self.whole_wave("matrix")?;
                // The call itself, shared with the block (and with every rewritten copy of
                // it, e.g. `uniform::fold`'s): the pointers below, including the pair and
                // group descriptors taken from neighbouring matrix ops, point into these
                // `Arc`s, which the compiled block keeps (`CompiledBlock::_matrix`).
                let keep = std::sync::Arc::clone(call);
                let ptr = self.iconst(types::I64, std::sync::Arc::as_ptr(&keep) as u64);
                let p = types::I64;
                // A pre-resolved kernel (`matrix::kernels::Fused`, checked against the
                // register file when the plan was built) is called directly when MODE
                // allows it; otherwise, and for every other instruction, the helper runs
                // the plan.
                let fused = keep.plan.fused().filter(|(f, ..)| f.nregs() <= NUM_VREGS);
                // Matrix instructions in a row (only constants and counts between) run as
                // one call at the first of a unit when MODE allows their fused kernels
                // (`matrix_unit`); the others then do nothing on that path.
                let unit = self.matrix_unit(i);
                let join = self.b.create_block();
                if let Some((f, mask, want)) = fused {
                    let mode = self.b.ins().load(
                        types::I32,
                        trusted(),
                        self.state,
                        WaveState::MODE_OFFSET as i32,
                    );
                    let sel = self.b.ins().band_imm_u(mode, i64::from(mask));
                    let ok = self.b.ins().icmp_imm_u(IntCC::Equal, sel, i64::from(want));
                    let fast = self.b.create_block();
                    let slow = self.b.create_block();
                    self.b.ins().brif(ok, fast, &[], slow, &[]);
                    self.b.switch_to_block(fast);
                    self.b.seal_block(fast);
                    let regs = self
                        .b
                        .ins()
                        .iadd_imm_u(self.state, WaveState::vgpr_offset(0, 0) as i64);
                    match unit {
                        // The unit's call at its first instruction ran this one.
                        MatUnit::Member => {}
                        MatUnit::Pair(entry, fp, gp) => {
                            let fv = self.iconst(p, fp);
                            let gv = self.iconst(p, gp);
                            self.call(entry as usize, &[p, p, p], None, &[fv, gv, regs]);
                        }
                        MatUnit::Group(entry, desc) => {
                            let slot = self.b.create_sized_stack_slot(StackSlotData::new(
                                StackSlotKind::ExplicitSlot,
                                16 * desc.len() as u32,
                                3,
                            ));
                            for (x, [fp, from]) in desc.iter().enumerate() {
                                let v = self.iconst(p, *fp);
                                self.b.ins().stack_store(p, v, slot, 16 * x as i32);
                                let v = self.iconst(p, *from);
                                self.b.ins().stack_store(p, v, slot, 16 * x as i32 + 8);
                            }
                            let dv = self.b.ins().stack_addr(p, slot, 0);
                            let nv = self.iconst(p, desc.len() as u64);
                            self.call(entry as usize, &[p, p, p], None, &[dv, nv, regs]);
                        }
                        MatUnit::Single => {
                            let fv = self.iconst(p, f as *const _ as u64);
                            self.call(f.entry() as usize, &[p, p], None, &[fv, regs]);
                        }
                    }
                    self.b.ins().jump(join, &[]);
                    self.b.switch_to_block(slow);
                    self.b.seal_block(slow);
                }
                let rc = self
                    .call(
                        helpers::h_matrix as *const () as usize,
                        &[p, p, p],
                        Some(types::I32),
                        &[self.ctx, self.state, ptr],
                    )
                    .ok_or("helper result")?;
                self.keep.push(keep);
                self.fault_check(rc, call.pc);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                self.b.seal_block(join);
                self.vreg_cache.clear();
                JV::None
            }
        })
    }

    /// The nearest matrix op after (`forward`) or before op `i` with only constants and
    /// counts between.
    fn matrix_neighbour(&self, i: usize, forward: bool) -> Option<usize> {
        let ops = &self.block.ops;
        let mut j = i;
        loop {
            j = if forward { j + 1 } else { j.checked_sub(1)? };
            match ops.get(j)? {
                Op::Matrix(_) => return Some(j),
                Op::Const { .. } | Op::CountVector { .. } => {}
                _ => return None,
            }
        }
    }

    /// The fused kernel of matrix op `k` and its MODE condition.
    fn matrix_fused(&self, k: usize) -> Option<(&crate::matrix::kernels::Fused, u32, u32)> {
        match self.block.ops.get(k) {
            Some(Op::Matrix(c)) => c.plan.fused().filter(|(f, ..)| f.nregs() <= NUM_VREGS),
            _ => None,
        }
    }

    /// How matrix op `i` runs when MODE allows its fused kernel. Its chain (matrix ops in a
    /// row, [`Self::matrix_neighbour`]) is cut from its start into units: two ops that
    /// pair (`Fused::pair`: the second accumulates onto the first's D), else the longest
    /// group (`Fused::group`: shared operands decoded once) of at least two, else one op.
    fn matrix_unit(&self, i: usize) -> MatUnit {
        use crate::matrix::kernels::{Fused, MAX_GROUP};
        let mut s = i;
        while let Some(p) = self.matrix_neighbour(s, false) {
            s = p;
        }
        loop {
            let mut ops = vec![s];
            let mut unit = MatUnit::Single;
            if let Some((f, fm, fw)) = self.matrix_fused(s) {
                let mut list = vec![f];
                let mut next = self.matrix_neighbour(s, true);
                while let Some(q) = next.filter(|_| list.len() < MAX_GROUP) {
                    let Some((g, gm, gw)) = self.matrix_fused(q) else {
                        break;
                    };
                    if (gm, gw) != (fm, fw) {
                        break;
                    }
                    if list.len() == 1 {
                        if let Some(entry) = f.pair(g) {
                            ops.push(q);
                            unit = MatUnit::Pair(entry, f as *const _ as u64, g as *const _ as u64);
                            break;
                        }
                    }
                    list.push(g);
                    match Fused::group(&list) {
                        Some((entry, desc)) => {
                            ops.push(q);
                            unit = MatUnit::Group(entry, desc);
                        }
                        None => break,
                    }
                    next = self.matrix_neighbour(q, true);
                }
            }
            if ops.contains(&i) {
                return if ops[0] == i { unit } else { MatUnit::Member };
            }
            match ops.last().and_then(|&l| self.matrix_neighbour(l, true)) {
                Some(n) => s = n,
                None => return MatUnit::Single,
            }
        }
    }

    /// `(hit, ptr)` for an access of `span` bytes at `a` (both `I64`): `hit` (an `I8`
    /// boolean) when they lie in one of `space`'s windows in the context's `FastMemory`,
    /// `ptr` the host address of `a` then. The windows are read from the context at each
    /// access (helpers refresh them after calling the environment).
    fn window(
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
    /// without a hit).
    fn window_of(
        &mut self,
        space: crate::env::Space,
        a: Value,
        span: Value,
    ) -> GenResult<WinParts> {
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
        let mut sel: Option<WinParts> = None;
        for w in wins {
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
            // Inside when `span <= len` and `a - start <= len - span` (an address below
            // `start` wraps above; windows never wrap around 2^64, `MemWindow::new`).
            let off = self.b.ins().isub(a, start);
            let fits = self
                .b
                .ins()
                .icmp(IntCC::UnsignedGreaterThanOrEqual, len, span);
            let lim = self.b.ins().isub(len, span);
            let inside = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, off, lim);
            let ok = self.b.ins().band(fits, inside);
            sel = Some(match sel {
                None => WinParts {
                    hit: ok,
                    start,
                    lim,
                    host,
                },
                Some(s) => WinParts {
                    hit: self.b.ins().bor(s.hit, ok),
                    start: self.b.ins().select(ok, start, s.start),
                    lim: self.b.ins().select(ok, lim, s.lim),
                    host: self.b.ins().select(ok, host, s.host),
                },
            });
        }
        sel.ok_or_else(|| "no window".into())
    }

    /// The lane stride the inline path expects of the memory op at `pc`: its size times
    /// the number of pieces the lifter made of that instruction (`global_load_dwordx4` is
    /// four dword loads at `+0, +4, +8, +12`, so each piece has a 16-byte lane stride). LDS
    /// ops (`ds_read2*` pieces are not adjacent) expect `size`. Only a guess: the run-time
    /// check decides, a wrong guess takes the helper.
    fn stride_guess(&self, pc: u64, space: crate::env::Space, size: u8) -> u64 {
        if space == crate::env::Space::Lds {
            return size as u64;
        }
        let n = self
            .block
            .ops
            .iter()
            .filter(|op| match op {
                Op::Load { pc: p, size: s, .. } | Op::Store { pc: p, size: s, .. } => {
                    *p == pc && *s == size
                }
                _ => false,
            })
            .count()
            .clamp(1, 16);
        size as u64 * n as u64
    }

    /// The run-time test of the inline path for a load (`store` false) or store of `size`
    /// bytes per lane: the active lanes' addresses are `a0 + stride * lane` (`a0` lane 0's
    /// address, `stride` from [`Gen::stride_guess`]), the `n` lanes (64 when a lane above
    /// 31 is active, else 32) span one window, the mask is not empty, and for a store every
    /// one of those `n` lanes is active (a store never touches an inactive lane's bytes).
    fn mem_plan(
        &mut self,
        pc: u64,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        mask: Val,
        store: bool,
    ) -> GenResult<MemPlan> {
        let stride = self.stride_guess(pc, space, size);
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
        let bad = self.b.ins().band(diff, m);
        let upper = self.b.ins().ushr_imm_u(m, 32);
        let n64 = self.b.ins().icmp_imm_u(IntCC::NotEqual, upper, 0);
        // Bytes from lane 0's address to the end of lane n-1's access.
        let s64 = self.iconst(types::I64, stride * 63 + size as u64);
        let s32 = self.iconst(types::I64, stride * 31 + size as u64);
        let span = self.b.ins().select(n64, s64, s32);
        let (hit, ptr) = self.window(space, a0, span)?;
        let good = self.b.ins().icmp_imm_u(IntCC::Equal, bad, 0);
        let mut go = self.b.ins().band(hit, good);
        let active = if store {
            // Exactly lanes 0..n: the whole wave64 or the low 32 lanes.
            let all = self.b.ins().icmp_imm_s(IntCC::Equal, m, -1);
            let low = self.b.ins().icmp_imm_u(IntCC::Equal, m, 0xFFFF_FFFF);
            self.b.ins().bor(all, low)
        } else {
            self.b.ins().icmp_imm_u(IntCC::NotEqual, m, 0)
        };
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

    /// A new block of an inline memory path, laid out after the function's other code:
    /// the helper path stays in line, so blocks whose accesses never fit the inline pattern
    /// (a GEMM's loads) keep their hot code compact.
    fn cold_block(&mut self) -> cranelift_codegen::ir::Block {
        let b = self.b.create_block();
        if !self.hot_mem {
            self.b.set_cold_block(b);
        }
        b
    }

    /// Lane `l` of the `V64` value `v` (straight-line form): one load from its buffer when
    /// it has one, else a lane of its chunk.
    fn addr_lane(&mut self, v: Val, l: usize) -> GenResult<Value> {
        match self.get(v)? {
            JV::Buf(slot) => {
                let slot = *slot;
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
    fn halves(&mut self, p: &MemPlan) -> (Value, Value) {
        let hi = self.b.ins().iadd_imm_s(p.ptr, (32 * p.stride) as i64);
        let hi = self.b.ins().select(p.n64, hi, p.ptr);
        (p.ptr, hi)
    }

    /// The inline load (branch taken when `p.go`), storing the result chunks into the
    /// 64-lane buffer `res` (as the helper path does) and jumping to `join`: contiguous vector loads when the stride is the size, else one scalar
    /// load per lane at a constant displacement; inactive lanes 0, as the helper path gives
    /// (no masking when all the block's lanes are active). Plain host loads: on x86-64 and aarch64
    /// each naturally aligned element is read single-copy atomically, as the helper's relaxed
    /// atomics do (a misaligned element is read as bytes there; the values agree).
    fn inline_load(
        &mut self,
        p: &MemPlan,
        size: u8,
        signed: bool,
        bits: u32,
        join: cranelift_codegen::ir::Block,
        res: StackSlot,
    ) -> GenResult<()> {
        // Every lane of the block (its mask is cut to its lanes, `mem_plan`).
        let all_lanes = if self.lanes == 32 { 0xFFFF_FFFF } else { -1 };
        let full = self.b.ins().icmp_imm_s(IntCC::Equal, p.mask, all_lanes);
        let all = self.cold_block();
        let part = self.cold_block();
        self.b.ins().brif(full, all, &[], part, &[]);
        for (blk, masked) in [(all, false), (part, true)] {
            self.b.switch_to_block(blk);
            self.b.seal_block(blk);
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
    fn load_chunks(
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
    fn inline_store(
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

    /// `v` as `(root, c)` with `v = root + c` through the block's `V64` adds of broadcast
    /// constants (wrapping, as the adds are), `root` a value index.
    fn affine(&self, v: Val) -> (u32, u64) {
        affine(self.block, v)
    }

    /// The first dword piece (op `i`) of a multi-dword load (`global_load_dwordx4`,
    /// `ds_read_b128`, ...: the later pieces are loads of the same instruction, exec mask
    /// and space at `+4, +8, ..` with no store in between): tries all pieces at once, every
    /// active lane's bytes inside the window of the lowest active lane, one window test per
    /// lane instead of one per piece. Returns `Some((op i's buffer, block to continue at))`,
    /// the current block being the helper path of each piece (taken when the fused one does
    /// not apply: a lane outside the window, several windows, an empty mask); a flag slot
    /// tells the later pieces ([`Gen::fused`]) which ran. `None` (nothing emitted) when op
    /// `i` is no such first piece.
    #[allow(clippy::too_many_arguments)]
    fn fused_load(
        &mut self,
        i: usize,
        pc: u64,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        signed: bool,
        mask: Val,
        bits: u32,
    ) -> GenResult<Option<(StackSlot, cranelift_codegen::ir::Block)>> {
        if size != 4 || signed || bits != 32 || space == crate::env::Space::Scratch {
            return Ok(None);
        }
        let (root, c0) = self.affine(addr);
        let mut pieces = vec![i];
        for (k, op) in self.block.ops.iter().enumerate().skip(i + 1).take(64) {
            match op {
                Op::Store { .. } | Op::Atomic { .. } | Op::SStore { .. } | Op::Matrix(_) => break,
                Op::Load {
                    pc: p,
                    space: sp,
                    addr: a,
                    size: 4,
                    signed: false,
                    mask: m,
                } if *p == pc && *sp == space && *m == mask => {
                    let want = c0.wrapping_add(4 * pieces.len() as u64);
                    if self.affine(*a) != (root, want) || pieces.len() == 4 {
                        break;
                    }
                    pieces.push(k);
                }
                _ => {}
            }
        }
        let n = pieces.len();
        if n < 2 {
            return Ok(None);
        }
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
    fn gather_window(
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
    fn quad_loop_begin(&mut self) -> (cranelift_codegen::ir::Block, Value) {
        let hdr = self.cold_block();
        let i = self.b.append_block_param(hdr, types::I64);
        let zero = self.iconst(types::I64, 0);
        self.b.ins().jump(hdr, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(hdr);
        (hdr, i)
    }

    /// Closes [`Gen::quad_loop_begin`]'s loop, continuing at `exit`.
    fn quad_loop_end(
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
    fn gather_offset(
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
    fn gather_load(
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
    fn gather_store(
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

    /// Address of vector slot `base + index` after a range check (fault when out of range).
    fn dyn_vreg(&mut self, i: usize, base: u16, index: Val) -> GenResult<Value> {
        let idx = self.s_as(index, types::I32)?;
        let idx = self.b.ins().uextend(types::I64, idx);
        let r = self.b.ins().iadd_imm_s(idx, base as i64);
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, r, NUM_VREGS as i64);
        let fault = self.b.create_block();
        let cont = self.b.create_block();
        self.b.ins().brif(bad, fault, &[], cont, &[]);
        self.b.switch_to_block(fault);
        self.b.seal_block(fault);
        let opv = self.iconst(types::I32, i as u64);
        let p = types::I64;
        self.call(
            helpers::h_bad_vreg as *const () as usize,
            &[p, types::I32, p],
            None,
            &[self.ctx, opv, r],
        );
        let c = self.iconst(types::I32, crate::env::ExitCode::Fault as u64);
        self.b.ins().return_(&[c]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
        let off = self.b.ins().imul_imm_s(r, (MAX_LANES * 4) as i64);
        let a = self.b.ins().iadd(self.state, off);
        Ok(self
            .b
            .ins()
            .iadd_imm_s(a, WaveState::vgpr_offset(0, 0) as i64))
    }

    /// Masked store of a `V32` value to the register row at address `a` (whose current
    /// chunks are `old` when known): a blend with the old contents, or plain stores when the
    /// mask is the constant all-ones. Returns the new contents.
    fn set_vgpr(
        &mut self,
        a: Value,
        old: Option<Vec<Value>>,
        val: Val,
        mask: Val,
        store: bool,
    ) -> GenResult<Vec<Value>> {
        let chunks = self.v(val)?;
        if chunks.len() != self.nch(32) || self.ty(val)? != Ty::V32 {
            return Err("SetVgpr of a 64-bit vector".into());
        }
        let all_ones = matches!(
            self.block.ops.get(mask.0 as usize),
            Some(Op::Const { bits: u64::MAX, .. })
        );
        // In the fast lane-group loop, a mask checked to be full before it (`Gen::run`).
        let full = self.bail.is_some() && self.full_masks.contains(&mask.0);
        if all_ones || full {
            if store {
                for (k, c) in chunks.iter().enumerate() {
                    self.b.ins().store(trusted(), *c, a, (16 * k) as i32);
                }
            }
            return Ok(chunks);
        }
        let lms = self.lane_masks(mask, 32)?;
        let mut out = Vec::with_capacity(16);
        for (k, c) in chunks.iter().enumerate() {
            let o = match &old {
                Some(o) => o[k],
                None => self.b.ins().load(I32X4, trusted(), a, (16 * k) as i32),
            };
            let new = self.b.ins().bitselect(lms[k], *c, o);
            if store {
                self.b.ins().store(trusted(), new, a, (16 * k) as i32);
            }
            out.push(new);
        }
        Ok(out)
    }

    /// All lane-mask chunks of the mask value `m` (cached per value and lane width).
    fn lane_masks(&mut self, m: Val, bits: u32) -> GenResult<Vec<Value>> {
        if let Some(c) = self.mask_cache.get(&(m.0, bits)) {
            return Ok(c.clone());
        }
        if let Some((c, cbits)) = self.group_masks.get(&m.0).cloned() {
            // A compare of this lane group: its lane masks, converted to `bits` lanes.
            let v = match (cbits, bits) {
                (a, b) if a == b => c,
                (32, _) => vec![
                    self.b.ins().swiden_low(c[0]),
                    self.b.ins().swiden_high(c[0]),
                ],
                _ => {
                    let r = self.shuffle32(c[0], c[1], [0, 2, 4, 6]);
                    vec![self.b.ins().bitcast(I32X4, le(), r)]
                }
            };
            self.mask_cache.insert((m.0, bits), v.clone());
            return Ok(v);
        }
        let v = if self.group.is_some() && self.group_derived.contains(&m.0) {
            self.derived_masks(m, bits)?
        } else {
            let mv = self.s_as(m, types::I64)?;
            (0..self.nch(bits))
                .map(|k| self.lane_mask(mv, k, bits))
                .collect()
        };
        self.mask_cache.insert((m.0, bits), v.clone());
        Ok(v)
    }

    /// In a lane group, the lane masks of a uniform op on the run's compare masks whose value
    /// exists only after the loop ([`group_mask_op`]), from its operands' lane masks.
    fn derived_masks(&mut self, m: Val, bits: u32) -> GenResult<Vec<Value>> {
        let op = self
            .block
            .ops
            .get(m.0 as usize)
            .ok_or("mask operand")?
            .clone();
        let mut v: Vec<Value> = match op {
            Op::Bin(o, a, b) => {
                let (x, y) = (self.lane_masks(a, bits)?, self.lane_masks(b, bits)?);
                x.iter()
                    .zip(&y)
                    .map(|(&x, &y)| match o {
                        BinOp::And => self.b.ins().band(x, y),
                        BinOp::Or => self.b.ins().bor(x, y),
                        _ => self.b.ins().bxor(x, y),
                    })
                    .collect()
            }
            Op::Un(_, a) => {
                let x = self.lane_masks(a, bits)?;
                x.iter().map(|&x| self.b.ins().bnot(x)).collect()
            }
            // The zero extension of a 32-lane mask and the low 32 lanes of a mask: the same
            // lanes (lanes 32..63 of a 32-bit result cleared below).
            Op::Conv(_, a) => self.lane_masks(a, bits)?,
            _ => return Err("mask operand not lane-wise".into()),
        };
        // A 32-bit mask has no lanes 32..63 (a mask operand is zero-extended, `lane_masks`):
        // in wave64 groups 8..15 its lanes are cleared.
        if self.lanes == 64 && self.ty(m)? == Ty::S32 {
            let low = self.iconst(types::I64, 0xFFFF_FFFF);
            v = (0..v.len())
                .map(|k| {
                    let lm = self.lane_mask(low, k, bits);
                    self.b.ins().band(v[k], lm)
                })
                .collect();
        }
        Ok(v)
    }

    /// In the fast lane-group loop, before the group's stores: leaves for the slow loop
    /// when a float result of the group had a NaN lane.
    fn bail_on_nan(&mut self) {
        let (Some(acc), Some(bail)) = (self.group_nan.take(), self.bail.as_mut()) else {
            return;
        };
        let blk = match bail.block {
            Some(b) => b,
            None => {
                let b = self.b.create_block();
                self.b.set_cold_block(b);
                for _ in 0..bail.args.len() {
                    self.b.append_block_param(b, types::I64);
                }
                bail.block = Some(b);
                b
            }
        };
        let args: Vec<BlockArg> = bail.args.iter().map(|v| BlockArg::Value(*v)).collect();
        let any = self.b.ins().vany_true(acc);
        let cont = self.b.create_block();
        self.b.ins().brif(any, blk, &args, cont, &[]);
        self.b.switch_to_block(cont);
        self.b.seal_block(cont);
    }

    /// Float op results `r` with the NaN rule applied: a cheap any-NaN test over all chunks,
    /// and the full per-lane fix-up only on a rarely taken path.
    fn nan_fix_all(&mut self, bits: u32, ops: &[Vec<Value>], r: Vec<Value>) -> Vec<Value> {
        let mut acc: Option<Value> = None;
        for c in &r {
            let f = self.as_f(bits, *c);
            let u = self.b.ins().fcmp(FloatCC::Unordered, f, f);
            acc = Some(match acc {
                Some(a) => self.b.ins().bor(a, u),
                None => u,
            });
        }
        let Some(acc) = acc else { return r };
        if self.bail.is_some() {
            // The fast lane-group loop: NaN lanes are collected and tested once, at the end
            // of the group before its stores (`bail_on_nan`); lane ops have no effects and
            // never trap (conversions saturate), so the rest of the group may compute
            // with the unfixed values, which the slow loop recomputes.
            let acc = if self.b.func.dfg.value_type(acc) == I32X4 {
                acc
            } else {
                self.b.ins().bitcast(I32X4, le(), acc)
            };
            self.group_nan = Some(match self.group_nan {
                Some(n) => self.b.ins().bor(n, acc),
                None => acc,
            });
            return r;
        }
        let any = self.b.ins().vany_true(acc);
        let fix = self.b.create_block();
        let join = self.b.create_block();
        if self.cold {
            self.b.set_cold_block(fix);
            self.b.set_cold_block(join);
        }
        for _ in 0..r.len() {
            self.b.append_block_param(join, vty(bits));
        }
        let args: Vec<BlockArg> = r.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().brif(any, fix, &[], join, &args);
        self.b.switch_to_block(fix);
        self.b.seal_block(fix);
        let mut fixed = Vec::with_capacity(r.len());
        for (k, c) in r.iter().enumerate() {
            let o: Vec<Value> = ops.iter().map(|x| x[k]).collect();
            fixed.push(self.nan_fix(bits, &o, *c));
        }
        let args: Vec<BlockArg> = fixed.iter().map(|v| BlockArg::Value(*v)).collect();
        self.b.ins().jump(join, &args);
        self.b.switch_to_block(join);
        self.b.seal_block(join);
        self.b.block_params(join).to_vec()
    }

    /// Shuffles 32-bit lanes of two `i32x4`/`i64x2` chunks (`0..4` = a, `4..8` = b) into an
    /// `i64x2` result chunk.
    fn shuffle32(&mut self, a: Value, b: Value, lanes: [u8; 4]) -> Value {
        let a8 = self.b.ins().bitcast(types::I8X16, le(), a);
        let b8 = self.b.ins().bitcast(types::I8X16, le(), b);
        let mut m = [0u8; 16];
        for (j, l) in lanes.iter().enumerate() {
            for k in 0..4 {
                m[4 * j + k] = 4 * l + k as u8;
            }
        }
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(m.to_vec()));
        let s = self.b.ins().shuffle(a8, b8, imm);
        self.b.ins().bitcast(I64X2, le(), s)
    }

    fn un(&mut self, u: UnOp, a: Val, t: Ty) -> GenResult<JV> {
        let bits = t.bits();
        let code = code_of(&UNOPS, &u).ok_or("unknown unary op")?;
        if !t.is_vector() {
            let x = self.s(a)?;
            return match self.scalar_un(u, bits, x) {
                Some(r) => Ok(JV::S(r)),
                None => self.scalar_helper(kind::UN, code, bits, &[a], bits),
            };
        }
        let x = self.v(a)?;
        let mut out = Vec::new();
        match u {
            UnOp::Not | UnOp::Neg | UnOp::FNeg | UnOp::FAbs | UnOp::FSqrt => {
                for &c in &x {
                    out.push(match u {
                        UnOp::Not => self.b.ins().bnot(c),
                        UnOp::Neg => self.b.ins().ineg(c),
                        UnOp::FNeg => {
                            let s = self.splat_const(bits, sign(bits));
                            self.b.ins().bxor(c, s)
                        }
                        UnOp::FAbs => {
                            let s = self.splat_const(bits, !sign(bits));
                            self.b.ins().band(c, s)
                        }
                        _ => {
                            let f = self.as_f(bits, c);
                            let r = self.b.ins().sqrt(f);
                            self.as_i(bits, r)
                        }
                    });
                }
                if u == UnOp::FSqrt {
                    out = self.nan_fix_all(bits, &[x], out);
                }
            }
            UnOp::Popcnt | UnOp::Clz | UnOp::Ctz | UnOp::BitReverse => {
                out = self.per_lane(bits, &[x], |g, xs| g.scalar_un(u, bits, xs[0]))?;
            }
            UnOp::FFloor | UnOp::FCeil | UnOp::FTrunc | UnOp::FRoundEven | UnOp::FRcp => {
                for &c in &x {
                    let f = self.as_f(bits, c);
                    let r = match u {
                        UnOp::FFloor => self.b.ins().floor(f),
                        UnOp::FCeil => self.b.ins().ceil(f),
                        UnOp::FTrunc => self.b.ins().trunc(f),
                        UnOp::FRoundEven => self.b.ins().nearest(f),
                        _ => {
                            let one = if bits == 32 {
                                1.0f32.to_bits() as u64
                            } else {
                                1.0f64.to_bits()
                            };
                            let one = self.splat_const(bits, one);
                            let one = self.as_f(bits, one);
                            self.b.ins().fdiv(one, f)
                        }
                    };
                    out.push(self.as_i(bits, r));
                }
                out = self.nan_fix_all(bits, &[x], out);
            }
            UnOp::FQuiet => {
                let q = if bits == 32 {
                    sem::F32_QUIET as u64
                } else {
                    sem::F64_QUIET
                };
                let qv = self.splat_const(bits, q);
                for &c in &x {
                    let f = self.as_f(bits, c);
                    let n = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                    let cq = self.b.ins().bor(c, qv);
                    out.push(self.b.ins().bitselect(n, cq, c));
                }
            }
            _ => return self.vec_helper(kind::UN, code, bits, &[a], bits, false),
        }
        Ok(JV::V(out))
    }

    /// Inline scalar unary op, `None` when it needs the helper.
    fn scalar_un(&mut self, u: UnOp, bits: u32, x: Value) -> Option<Value> {
        Some(match u {
            UnOp::Not => self.b.ins().bnot(x),
            UnOp::Neg => self.b.ins().ineg(x),
            UnOp::Popcnt => self.b.ins().popcnt(x),
            UnOp::Clz => self.b.ins().clz(x),
            UnOp::Ctz => self.b.ins().ctz(x),
            UnOp::BitReverse => self.b.ins().bitrev(x),
            UnOp::FNeg => {
                let s = self.iconst(sty(bits), sign(bits));
                self.b.ins().bxor(x, s)
            }
            UnOp::FAbs => {
                let s = self.iconst(sty(bits), !sign(bits));
                self.b.ins().band(x, s)
            }
            _ => return None,
        })
    }

    /// Inline scalar binary op, `None` when it needs the helper (see [`scalar_bin_inline`]).
    fn scalar_bin(&mut self, o: BinOp, bits: u32, x: Value, y: Value) -> Option<Value> {
        Some(match o {
            BinOp::Add => self.b.ins().iadd(x, y),
            BinOp::Sub => self.b.ins().isub(x, y),
            BinOp::Mul => self.b.ins().imul(x, y),
            BinOp::MulHiU => self.b.ins().umulhi(x, y),
            BinOp::MulHiS => self.b.ins().smulhi(x, y),
            BinOp::And => self.b.ins().band(x, y),
            BinOp::Or => self.b.ins().bor(x, y),
            BinOp::Xor => self.b.ins().bxor(x, y),
            // Cranelift takes scalar shift amounts modulo the width, as the IR does.
            BinOp::Shl => self.b.ins().ishl(x, y),
            BinOp::LShr => self.b.ins().ushr(x, y),
            BinOp::AShr => self.b.ins().sshr(x, y),
            BinOp::UMin => self.b.ins().umin(x, y),
            BinOp::UMax => self.b.ins().umax(x, y),
            BinOp::SMin => self.b.ins().smin(x, y),
            BinOp::SMax => self.b.ins().smax(x, y),
            BinOp::AddCarry => {
                let s = self.b.ins().iadd(x, y);
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, s, x);
                self.b.ins().uextend(sty(bits), c)
            }
            BinOp::SubBorrow => {
                let c = self.b.ins().icmp(IntCC::UnsignedLessThan, x, y);
                self.b.ins().uextend(sty(bits), c)
            }
            BinOp::FCopySign => {
                let m = self.iconst(sty(bits), sign(bits));
                self.b.ins().bitselect(m, y, x)
            }
            _ => return None,
        })
    }

    /// Applies a scalar computation to every lane of the chunks of `args`.
    fn per_lane(
        &mut self,
        bits: u32,
        args: &[Vec<Value>],
        f: impl Fn(&mut Self, &[Value]) -> Option<Value>,
    ) -> GenResult<Vec<Value>> {
        let n = args.first().map_or(0, |a| a.len());
        let lanes = if bits == 32 { 4 } else { 2 };
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            let mut acc = self.splat_const(bits, 0);
            for l in 0..lanes {
                let xs: Vec<Value> = args
                    .iter()
                    .map(|a| self.b.ins().extractlane(a[k], l as u8))
                    .collect();
                let r = f(self, &xs).ok_or("per-lane op")?;
                acc = self.b.ins().insertlane(acc, r, l as u8);
            }
            out.push(acc);
        }
        Ok(out)
    }

    fn bin(&mut self, o: BinOp, a: Val, b: Val, t: Ty) -> GenResult<JV> {
        let bits = t.bits();
        let code = code_of(&BINOPS, &o).ok_or("unknown binary op")?;
        if !t.is_vector() {
            let (x, y) = (self.s(a)?, self.s(b)?);
            return match self.scalar_bin(o, bits, x, y) {
                Some(r) => Ok(JV::S(r)),
                None => self.scalar_helper(kind::BIN, code, bits, &[a, b], bits),
            };
        }
        let (x, mut y) = (self.v(a)?, self.v(b)?);
        if y.len() != x.len() {
            // A shift amount / exponent of the other width: only its low bits matter.
            y = if y.len() < x.len() {
                let mut w = Vec::with_capacity(x.len());
                for c in &y {
                    w.push(self.b.ins().uwiden_low(*c));
                    w.push(self.b.ins().uwiden_high(*c));
                }
                w
            } else {
                let mut w = Vec::with_capacity(x.len());
                for k in 0..y.len() / 2 {
                    let r = self.shuffle32(y[2 * k], y[2 * k + 1], [0, 2, 4, 6]);
                    w.push(self.b.ins().bitcast(I32X4, le(), r));
                }
                w
            };
        }
        // A uniform shift amount (a broadcast, or a broadcast widened or narrowed: the low
        // bits that count are the scalar's) shifts every lane by the same scalar.
        let src = match self.block.ops.get(b.0 as usize) {
            Some(Op::Conv(ConvOp::ZExt | ConvOp::SExt | ConvOp::Lo, s)) => *s,
            _ => b,
        };
        let uniform_amt = self.splat_src.get(src.0 as usize).copied().flatten();
        let inline = match o {
            BinOp::Add | BinOp::Sub | BinOp::And | BinOp::Or | BinOp::Xor => true,
            BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FCopySign => true,
            BinOp::FMinNum | BinOp::FMaxNum => true,
            BinOp::Mul | BinOp::UMin | BinOp::UMax | BinOp::SMin | BinOp::SMax => bits == 32,
            BinOp::Shl | BinOp::LShr | BinOp::AShr => uniform_amt.is_some(),
            BinOp::AddCarry | BinOp::SubBorrow => true,
            _ => false,
        };
        if !inline {
            if scalar_bin_inline(o) {
                // Lane by lane with scalar instructions (e.g. per-lane shift amounts, which
                // 128-bit Cranelift vectors lack): still lane-local and helper-free.
                let r =
                    self.per_lane(bits, &[x, y], |g, xs| g.scalar_bin(o, bits, xs[0], xs[1]))?;
                return Ok(JV::V(r));
            }
            return self.vec_helper(kind::BIN, code, bits, &[a, b], bits, false);
        }
        let amt = match uniform_amt {
            Some(s) if matches!(o, BinOp::Shl | BinOp::LShr | BinOp::AShr) => {
                let s = if self.b.func.dfg.value_type(s) != sty(bits) {
                    if bits == 64 {
                        self.b.ins().uextend(types::I64, s)
                    } else {
                        self.b.ins().ireduce(types::I32, s)
                    }
                } else {
                    s
                };
                Some(self.b.ins().band_imm_u(s, (bits - 1) as i64))
            }
            _ => None,
        };
        let mut out = Vec::new();
        for k in 0..self.nch(bits) {
            let (c, d) = (x[k], y[k]);
            let r = match o {
                BinOp::Add => self.b.ins().iadd(c, d),
                BinOp::Sub => self.b.ins().isub(c, d),
                BinOp::And => self.b.ins().band(c, d),
                BinOp::Or => self.b.ins().bor(c, d),
                BinOp::Xor => self.b.ins().bxor(c, d),
                BinOp::Mul => self.b.ins().imul(c, d),
                BinOp::UMin => self.b.ins().umin(c, d),
                BinOp::UMax => self.b.ins().umax(c, d),
                BinOp::SMin => self.b.ins().smin(c, d),
                BinOp::SMax => self.b.ins().smax(c, d),
                // Carry/borrow as an all-ones/zero lane compare, then 1/0.
                BinOp::AddCarry | BinOp::SubBorrow => {
                    let m = if o == BinOp::AddCarry {
                        let sum = self.b.ins().iadd(c, d);
                        self.b.ins().icmp(IntCC::UnsignedLessThan, sum, c)
                    } else {
                        self.b.ins().icmp(IntCC::UnsignedLessThan, c, d)
                    };
                    let one = self.splat_const(bits, 1);
                    self.b.ins().band(m, one)
                }
                BinOp::Shl => self.b.ins().ishl(c, amt.ok_or("shift")?),
                BinOp::LShr => self.b.ins().ushr(c, amt.ok_or("shift")?),
                BinOp::AShr => self.b.ins().sshr(c, amt.ok_or("shift")?),
                BinOp::FCopySign => {
                    let s = self.splat_const(bits, sign(bits));
                    self.b.ins().bitselect(s, d, c)
                }
                BinOp::FMinNum | BinOp::FMaxNum => self.minmax(bits, o == BinOp::FMaxNum, c, d),
                _ => {
                    let (cf, df) = (self.as_f(bits, c), self.as_f(bits, d));
                    let r = match o {
                        BinOp::FAdd => self.b.ins().fadd(cf, df),
                        BinOp::FSub => self.b.ins().fsub(cf, df),
                        BinOp::FMul => self.b.ins().fmul(cf, df),
                        _ => self.b.ins().fdiv(cf, df),
                    };
                    self.as_i(bits, r)
                }
            };
            out.push(r);
        }
        if matches!(o, BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv) {
            out = self.nan_fix_all(bits, &[x, y], out);
        }
        Ok(JV::V(out))
    }

    /// IEEE minNum/maxNum of one chunk, exactly as [`sem::minmax32`]: NaN operands give the
    /// other operand (both NaN: `a` quieted); equal values (±0) combine their bits so that
    /// min prefers −0 and max +0.
    fn minmax(&mut self, bits: u32, max: bool, a: Value, b: Value) -> Value {
        let (af, bf) = (self.as_f(bits, a), self.as_f(bits, b));
        let lt = self.b.ins().fcmp(FloatCC::LessThan, af, bf);
        let gt = self.b.ins().fcmp(FloatCC::GreaterThan, af, bf);
        let res = if max {
            let eq = self.b.ins().band(a, b);
            let r = self.b.ins().bitselect(lt, b, eq);
            self.b.ins().bitselect(gt, a, r)
        } else {
            let eq = self.b.ins().bor(a, b);
            let r = self.b.ins().bitselect(gt, b, eq);
            self.b.ins().bitselect(lt, a, r)
        };
        let na = self.b.ins().fcmp(FloatCC::Unordered, af, af);
        let nb = self.b.ins().fcmp(FloatCC::Unordered, bf, bf);
        let res = self.b.ins().bitselect(nb, a, res);
        let res = self.b.ins().bitselect(na, b, res);
        let both = self.b.ins().band(na, nb);
        let q = if bits == 32 {
            sem::F32_QUIET as u64
        } else {
            sem::F64_QUIET
        };
        let qv = self.splat_const(bits, q);
        let aq = self.b.ins().bor(a, qv);
        self.b.ins().bitselect(both, aq, res)
    }

    fn tern(&mut self, o: TernOp, a: Val, b: Val, c: Val, t: Ty) -> GenResult<JV> {
        let bits = t.bits();
        let code = code_of(&TERNOPS, &o).ok_or("unknown ternary op")?;
        if !t.is_vector() {
            if o == TernOp::Bfi {
                let (x, y, z) = (self.s(a)?, self.s(b)?, self.s(c)?);
                return Ok(JV::S(self.b.ins().bitselect(x, y, z)));
            }
            return self.scalar_helper(kind::TERN, code, bits, &[a, b, c], bits);
        }
        match o {
            TernOp::Perm if bits == 32 => {
                let (x, y, z) = (self.v(a)?, self.v(b)?, self.v(c)?);
                let mut out = Vec::new();
                for k in 0..self.nch(bits) {
                    out.push(self.perm_chunk(x[k], y[k], z[k]));
                }
                Ok(JV::V(out))
            }
            TernOp::Fma | TernOp::Bfi => {
                let (x, y, z) = (self.v(a)?, self.v(b)?, self.v(c)?);
                let mut out = Vec::new();
                for k in 0..self.nch(bits) {
                    if o == TernOp::Bfi {
                        out.push(self.b.ins().bitselect(x[k], y[k], z[k]));
                        continue;
                    }
                    let (xf, yf, zf) = (
                        self.as_f(bits, x[k]),
                        self.as_f(bits, y[k]),
                        self.as_f(bits, z[k]),
                    );
                    let r = self.b.ins().fma(xf, yf, zf);
                    out.push(self.as_i(bits, r));
                }
                if o == TernOp::Fma {
                    out = self.nan_fix_all(bits, &[x, y, z], out);
                }
                Ok(JV::V(out))
            }
            _ => self.vec_helper(kind::TERN, code, bits, &[a, b, c], bits, false),
        }
    }

    /// [`TernOp::Perm`] on one `i32x4` chunk as byte shuffles (`sem::perm32` per lane).
    /// With selector byte `s` of lane `j`: source byte `q` of the lane's 8 bytes `{hi, lo}`
    /// is `s` for `s < 8` and `2(s & 3) + 1` for the sign cases; it is fetched from byte
    /// `4j + (q & 3)` of `lo` or `hi` (`q & 4`) by `swizzle`; then the sign cases replicate
    /// its top bit, 12 gives 0 and 13..=255 give 0xff.
    fn perm_chunk(&mut self, hi: Value, lo: Value, sel: Value) -> Value {
        let b16 = types::I8X16;
        let bc = |g: &mut Self, v: Value| g.b.ins().bitcast(b16, le(), v);
        let (hi, lo, s) = (bc(self, hi), bc(self, lo), bc(self, sel));
        let splat = |g: &mut Self, x: u8| g.vconst_bytes(b16, [x; 16]);
        let (c3, c7, c1, c8, c12, c13) = (
            splat(self, 3),
            splat(self, 7),
            splat(self, 1),
            splat(self, 8),
            splat(self, 12),
            splat(self, 13),
        );
        let lt8 = self.b.ins().icmp(IntCC::UnsignedLessThan, s, c8);
        let s3 = self.b.ins().band(s, c3);
        let sign_q = self.b.ins().iadd(s3, s3);
        let sign_q = self.b.ins().bor(sign_q, c1);
        let s7 = self.b.ins().band(s, c7);
        let q = self.b.ins().bitselect(lt8, s7, sign_q);
        let mut base = [0u8; 16];
        for (i, b) in base.iter_mut().enumerate() {
            *b = (i & !3) as u8;
        }
        let base = self.vconst_bytes(b16, base);
        let q3 = self.b.ins().band(q, c3);
        let idx = self.b.ins().iadd(q3, base);
        let from_lo = self.b.ins().swizzle(lo, idx);
        let from_hi = self.b.ins().swizzle(hi, idx);
        let c4 = self.b.ins().bxor(c3, c7);
        let q4 = self.b.ins().band(q, c4);
        let use_hi = self.b.ins().icmp(IntCC::Equal, q4, c4);
        let byte = self.b.ins().bitselect(use_hi, from_hi, from_lo);
        let zero = splat(self, 0);
        let sign = self.b.ins().icmp(IntCC::SignedLessThan, byte, zero);
        let lt12 = self.b.ins().icmp(IntCC::UnsignedLessThan, s, c12);
        let lt13 = self.b.ins().icmp(IntCC::UnsignedLessThan, s, c13);
        // s == 12 → 0, s ≥ 13 → 0xff: exactly the bytes of "not below 13".
        let high = self.b.ins().bnot(lt13);
        let r = self.b.ins().bitselect(lt12, sign, high);
        let r = self.b.ins().bitselect(lt8, byte, r);
        self.b.ins().bitcast(I32X4, le(), r)
    }

    fn cmp(&mut self, c: CmpOp, a: Val, b: Val) -> GenResult<JV> {
        let t = self.ty(a)?;
        let bits = t.bits();
        let code = code_of(&CMPOPS, &c).ok_or("unknown comparison")?;
        let icc = match c {
            CmpOp::Eq => Some(IntCC::Equal),
            CmpOp::Ne => Some(IntCC::NotEqual),
            CmpOp::ULt => Some(IntCC::UnsignedLessThan),
            CmpOp::ULe => Some(IntCC::UnsignedLessThanOrEqual),
            CmpOp::UGt => Some(IntCC::UnsignedGreaterThan),
            CmpOp::UGe => Some(IntCC::UnsignedGreaterThanOrEqual),
            CmpOp::SLt => Some(IntCC::SignedLessThan),
            CmpOp::SLe => Some(IntCC::SignedLessThanOrEqual),
            CmpOp::SGt => Some(IntCC::SignedGreaterThan),
            CmpOp::SGe => Some(IntCC::SignedGreaterThanOrEqual),
            _ => None,
        };
        let fcc = match c {
            CmpOp::FEq => Some(FloatCC::Equal),
            CmpOp::FLt => Some(FloatCC::LessThan),
            CmpOp::FLe => Some(FloatCC::LessThanOrEqual),
            CmpOp::FGt => Some(FloatCC::GreaterThan),
            CmpOp::FGe => Some(FloatCC::GreaterThanOrEqual),
            CmpOp::FLg => Some(FloatCC::OrderedNotEqual),
            CmpOp::FOrd => Some(FloatCC::Ordered),
            CmpOp::FUno => Some(FloatCC::Unordered),
            CmpOp::FNeq => Some(FloatCC::NotEqual),
            CmpOp::FNlt => Some(FloatCC::UnorderedOrGreaterThanOrEqual),
            CmpOp::FNle => Some(FloatCC::UnorderedOrGreaterThan),
            CmpOp::FNgt => Some(FloatCC::UnorderedOrLessThanOrEqual),
            CmpOp::FNge => Some(FloatCC::UnorderedOrLessThan),
            CmpOp::FNlg => Some(FloatCC::UnorderedOrEqual),
            _ => None,
        };
        if !t.is_vector() {
            let (x, y) = (self.s(a)?, self.s(b)?);
            let r = match icc {
                Some(cc) => self.b.ins().icmp(cc, x, y),
                None => return self.scalar_helper(kind::CMP, code, bits, &[a, b], 32),
            };
            return Ok(JV::S(self.b.ins().uextend(types::I32, r)));
        }
        if icc.is_none() && fcc.is_none() {
            return self.vec_helper(kind::CMP, code, bits, &[a, b], 32, true);
        }
        let (x, y) = (self.v(a)?, self.v(b)?);
        let mut acc = self.iconst(types::I64, 0);
        let mut masks = Vec::new();
        for k in 0..self.nch(bits) {
            let m = match (icc, fcc) {
                (Some(cc), _) => self.b.ins().icmp(cc, x[k], y[k]),
                (None, Some(cc)) => {
                    let (xf, yf) = (self.as_f(bits, x[k]), self.as_f(bits, y[k]));
                    // x86 has no vector `one`/`ueq`: compose them from two compares.
                    match cc {
                        FloatCC::OrderedNotEqual => {
                            let l = self.b.ins().fcmp(FloatCC::LessThan, xf, yf);
                            let g = self.b.ins().fcmp(FloatCC::GreaterThan, xf, yf);
                            self.b.ins().bor(l, g)
                        }
                        FloatCC::UnorderedOrEqual => {
                            let e = self.b.ins().fcmp(FloatCC::Equal, xf, yf);
                            let u = self.b.ins().fcmp(FloatCC::Unordered, xf, yf);
                            self.b.ins().bor(e, u)
                        }
                        _ => self.b.ins().fcmp(cc, xf, yf),
                    }
                }
                _ => return Err("comparison".into()),
            };
            masks.push(m);
            let bitsv = self.mask_bits(m, k, bits);
            acc = self.b.ins().bor(acc, bitsv);
        }
        if self.group.is_some() {
            self.cur_cmp_masks = Some((masks, bits));
        }
        Ok(JV::S(acc))
    }

    fn conv(&mut self, c: ConvOp, a: Val, t: Ty) -> GenResult<JV> {
        let src = self.ty(a)?;
        let code = code_of(&CONVOPS, &c).ok_or("unknown conversion")?;
        let rbits = t.bits();
        if sem::conv_result_bits(c, src.bits()) != rbits {
            return Err(format!("conversion {c:?} to a {rbits}-bit type"));
        }
        if !t.is_vector() {
            let x = self.s(a)?;
            let r = match c {
                ConvOp::ZExt => self.b.ins().uextend(types::I64, x),
                ConvOp::SExt => self.b.ins().sextend(types::I64, x),
                ConvOp::Lo => self.b.ins().ireduce(types::I32, x),
                ConvOp::Hi => {
                    let h = self.b.ins().ushr_imm_u(x, 32);
                    self.b.ins().ireduce(types::I32, h)
                }
                _ => return self.scalar_helper(kind::CONV, code, src.bits(), &[a], rbits),
            };
            return Ok(JV::S(r));
        }
        let x = self.v(a)?;
        let mut out = Vec::new();
        match c {
            ConvOp::ZExt | ConvOp::SExt => {
                for ch in x {
                    if c == ConvOp::ZExt {
                        out.push(self.b.ins().uwiden_low(ch));
                        out.push(self.b.ins().uwiden_high(ch));
                    } else {
                        out.push(self.b.ins().swiden_low(ch));
                        out.push(self.b.ins().swiden_high(ch));
                    }
                }
            }
            ConvOp::Lo | ConvOp::Hi => {
                let off = if c == ConvOp::Lo { 0 } else { 1 };
                for k in 0..x.len() / 2 {
                    let r =
                        self.shuffle32(x[2 * k], x[2 * k + 1], [off, 2 + off, 4 + off, 6 + off]);
                    out.push(self.b.ins().bitcast(I32X4, le(), r));
                }
            }
            ConvOp::F32ToF64 => {
                // Exact widening; NaNs quieted with the payload kept (sem::f32_to_f64),
                // built explicitly rather than trusting the host's NaN conversion.
                let sgn = self.splat_const(64, 0x8000_0000);
                let pm = self.splat_const(64, 0x7F_FFFF);
                let qn = self.splat_const(64, 0x7FF8_0000_0000_0000);
                for ch in x {
                    for high in [false, true] {
                        let w = if high {
                            self.b.ins().uwiden_high(ch)
                        } else {
                            self.b.ins().uwiden_low(ch)
                        };
                        let src = if high {
                            let sh = self.shuffle32(ch, ch, [2, 3, 2, 3]);
                            self.b.ins().bitcast(types::F32X4, le(), sh)
                        } else {
                            self.as_f(32, ch)
                        };
                        let f = self.b.ins().fvpromote_low(src);
                        let r = self.as_i(64, f);
                        let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                        let sg = self.b.ins().band(w, sgn);
                        let sg = self.b.ins().ishl_imm_u(sg, 32);
                        let py = self.b.ins().band(w, pm);
                        let py = self.b.ins().ishl_imm_u(py, 29);
                        let nv = self.b.ins().bor(sg, py);
                        let nv = self.b.ins().bor(nv, qn);
                        out.push(self.b.ins().bitselect(nan, nv, r));
                    }
                }
            }
            ConvOp::F64ToF32 => {
                // Round to nearest even (the host conversion, exact IEEE); NaNs quieted with
                // the top payload bits (sem::f64_to_f32), built explicitly.
                let sgn = self.splat_const(64, 0x8000_0000);
                let pm = self.splat_const(64, 0x7F_FFFF);
                let qn = self.splat_const(64, 0x7FC0_0000);
                let mut halves = Vec::with_capacity(x.len());
                for ch in x {
                    let f = self.as_f(64, ch);
                    let d = self.b.ins().fvdemote(f);
                    let di = self.as_i(32, d);
                    let r = self.b.ins().uwiden_low(di);
                    let nan = self.b.ins().fcmp(FloatCC::Unordered, f, f);
                    let sg = self.b.ins().ushr_imm_u(ch, 32);
                    let sg = self.b.ins().band(sg, sgn);
                    let py = self.b.ins().ushr_imm_u(ch, 29);
                    let py = self.b.ins().band(py, pm);
                    let nv = self.b.ins().bor(sg, py);
                    let nv = self.b.ins().bor(nv, qn);
                    halves.push(self.b.ins().bitselect(nan, nv, r));
                }
                for k in 0..halves.len() / 2 {
                    let r = self.shuffle32(halves[2 * k], halves[2 * k + 1], [0, 2, 4, 6]);
                    out.push(self.b.ins().bitcast(I32X4, le(), r));
                }
            }
            ConvOp::I32ToF32 | ConvOp::U32ToF32 | ConvOp::F32ToI32 | ConvOp::F32ToU32 => {
                for ch in x {
                    let r = match c {
                        ConvOp::I32ToF32 => self.b.ins().fcvt_from_sint(types::F32X4, ch),
                        ConvOp::U32ToF32 => self.b.ins().fcvt_from_uint(types::F32X4, ch),
                        // Saturating, NaN → 0: the IR's definition.
                        ConvOp::F32ToI32 => {
                            let f = self.as_f(32, ch);
                            self.b.ins().fcvt_to_sint_sat(I32X4, f)
                        }
                        _ => {
                            let f = self.as_f(32, ch);
                            self.b.ins().fcvt_to_uint_sat(I32X4, f)
                        }
                    };
                    out.push(self.as_i(32, r));
                }
            }
            _ => return self.vec_helper(kind::CONV, code, src.bits(), &[a], rbits, false),
        }
        Ok(JV::V(out))
    }
}

fn sign(bits: u32) -> u64 {
    if bits == 32 {
        sem::F32_SIGN as u64
    } else {
        sem::F64_SIGN
    }
}

/// One window of the context's `FastMemory` as generated code selected it
/// ([`Gen::window_of`]).
#[derive(Clone, Copy)]
struct WinParts {
    /// `I8`: the access lies in this window.
    hit: Value,
    /// Device address of the window's first byte.
    start: Value,
    /// The last offset from `start` at which the access fits.
    lim: Value,
    /// Host address of `start`.
    host: Value,
}

/// The run-time facts of an inline memory access ([`Gen::mem_plan`]).
struct MemPlan {
    /// `I8`: take the inline path.
    go: Value,
    /// The helper path's block (also entered from the plan's quick rejection; sealed by the
    /// caller after branching to it on `go`).
    slow: cranelift_codegen::ir::Block,
    /// Host address of lane 0's access.
    ptr: Value,
    /// `I8`: the access has 64 lanes (a lane above 31 is active), else 32.
    n64: Value,
    /// Bytes between consecutive lanes' addresses.
    stride: u64,
    /// The access's lane mask (`I64`).
    mask: Value,
}

/// Whether a vector access of `size` bytes with `bits`-bit lane values has an inline path:
/// bytes, shorts and whole dwords in 32-bit lanes (sub-dword loads zero- or sign-extended,
/// stores of the low bytes), whole qwords in 64-bit lanes; global/FLAT or LDS.
fn inline_size(space: crate::env::Space, size: u8, bits: u32) -> bool {
    space != crate::env::Space::Scratch && matches!((size, bits), (1 | 2 | 4, 32) | (8, 64))
}

fn check_size(size: u8) -> GenResult<()> {
    if matches!(size, 1 | 2 | 4 | 8) {
        Ok(())
    } else {
        Err(format!("memory access size {size}"))
    }
}

/// All-ones/zero lane vectors by mask bits: `m32[i]` has 32-bit lane `j` set when bit `j`
/// of `i` is, `m64[i]` the same for 64-bit lanes ([`Gen::lane_mask`]).
#[repr(C, align(16))]
struct LaneMaskTable {
    m32: [[u32; 4]; 16],
    m64: [[u64; 2]; 4],
}

static LANE_MASKS: LaneMaskTable = LaneMaskTable {
    m32: {
        let mut t = [[0u32; 4]; 16];
        let mut i = 0;
        while i < 16 {
            let mut j = 0;
            while j < 4 {
                if i >> j & 1 == 1 {
                    t[i][j] = u32::MAX;
                }
                j += 1;
            }
            i += 1;
        }
        t
    },
    m64: [[0, 0], [u64::MAX, 0], [0, u64::MAX], [u64::MAX, u64::MAX]],
};

/// How an op takes part in the lane-group form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OpClass {
    /// A lane-local vector op the code generator inlines.
    Lane,
    /// A uniform op that reads no vector value and cannot fault.
    Uniform,
    /// Anything else: emitted in the straight-line form.
    Other,
}

fn classify(blk: &Block, i: usize) -> OpClass {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let is_vec = |v: &Val| ty(v).is_some_and(|t| t.is_vector());
    let op = &blk.ops[i];
    let rt = blk.types[i];
    let vector_result = rt.is_some_and(|t| t.is_vector());
    let bits = rt.map_or(32, |t| t.bits());
    let lane = match op {
        Op::GetVgpr(_) | Op::LaneId | Op::MaskToLanes(_) => true,
        Op::SetVgpr { val, .. } => ty(val) == Some(Ty::V32),
        Op::Broadcast(_) | Op::Pack { .. } => vector_result,
        Op::Select { .. } => vector_result,
        Op::Un(u, _) => {
            vector_result
                && matches!(
                    u,
                    UnOp::Not
                        | UnOp::Neg
                        | UnOp::FNeg
                        | UnOp::FAbs
                        | UnOp::FSqrt
                        | UnOp::Popcnt
                        | UnOp::Clz
                        | UnOp::Ctz
                        | UnOp::BitReverse
                        | UnOp::FFloor
                        | UnOp::FCeil
                        | UnOp::FTrunc
                        | UnOp::FRoundEven
                        | UnOp::FRcp
                        | UnOp::FQuiet
                )
        }
        Op::Bin(o, ..) => {
            vector_result
                && match o {
                    BinOp::Add
                    | BinOp::Sub
                    | BinOp::And
                    | BinOp::Or
                    | BinOp::Xor
                    | BinOp::FAdd
                    | BinOp::FSub
                    | BinOp::FMul
                    | BinOp::FDiv
                    | BinOp::FCopySign
                    | BinOp::FMinNum
                    | BinOp::FMaxNum => true,
                    BinOp::Mul | BinOp::UMin | BinOp::UMax | BinOp::SMin | BinOp::SMax => {
                        bits == 32
                    }
                    o => scalar_bin_inline(*o),
                }
        }
        Op::Tern(o, ..) => {
            vector_result
                && (matches!(o, TernOp::Fma | TernOp::Bfi) || *o == TernOp::Perm && bits == 32)
        }
        Op::Conv(c, _) => {
            vector_result
                && matches!(
                    c,
                    ConvOp::ZExt
                        | ConvOp::F32ToF64
                        | ConvOp::F64ToF32
                        | ConvOp::SExt
                        | ConvOp::Lo
                        | ConvOp::Hi
                        | ConvOp::I32ToF32
                        | ConvOp::U32ToF32
                        | ConvOp::F32ToI32
                        | ConvOp::F32ToU32
                )
        }
        _ => false,
    };
    let lane_cmp = match op {
        Op::Cmp(c, a, _) => is_vec(a) && *c != CmpOp::FClass,
        _ => false,
    };
    if lane || lane_cmp {
        return OpClass::Lane;
    }
    if vector_result {
        return OpClass::Other;
    }
    let reads_vector = operands(op).iter().any(is_vec);
    let can_fault = matches!(
        op,
        Op::SLoad { .. }
            | Op::SStore { .. }
            | Op::Clock
            | Op::InstCount
            | Op::BarrierState
            | Op::Load { .. }
            | Op::Store { .. }
            | Op::Atomic { .. }
            | Op::SetVgprDyn { .. }
            | Op::SetVgpr { .. }
            | Op::Matrix(_)
    );
    if reads_vector || can_fault {
        OpClass::Other
    } else {
        OpClass::Uniform
    }
}

/// Whether emitting `op` can leave the block function before its exit (a fault return, or
/// a helper that reaches the environment): pending counts are added before it.
fn may_leave(op: &Op) -> bool {
    matches!(
        op,
        Op::Load { .. }
            | Op::Store { .. }
            | Op::Atomic { .. }
            | Op::SLoad { .. }
            | Op::SStore { .. }
            | Op::Clock
            | Op::BarrierState
            | Op::GetVgprDyn { .. }
            | Op::SetVgprDyn { .. }
            | Op::Matrix(_)
    )
}

/// The value operands of `op`.
fn operands(op: &Op) -> Vec<Val> {
    match op {
        Op::Const { .. }
        | Op::LaneConst(_)
        | Op::LaneId
        | Op::GetSgpr(_)
        | Op::GetVgpr(_)
        | Op::GetScc
        | Op::GetMode
        | Op::Clock
        | Op::InstCount
        | Op::BarrierState => vec![],
        Op::SetSgpr(_, v) | Op::SetScc(v) | Op::SetMode(v) => vec![*v],
        Op::SetVgpr { val, mask, .. } => vec![*val, *mask],
        Op::GetVgprDyn { index, .. } => vec![*index],
        Op::SetVgprDyn {
            index, val, mask, ..
        } => vec![*index, *val, *mask],
        Op::Un(_, a) | Op::Broadcast(a) | Op::Conv(_, a) | Op::MaskToLanes(a) => vec![*a],
        Op::Bin(_, a, b) | Op::Cmp(_, a, b) => vec![*a, *b],
        Op::Tern(_, a, b, c) => vec![*a, *b, *c],
        Op::Select { cond, a, b } => vec![*cond, *a, *b],
        Op::Pack { lo, hi } => vec![*lo, *hi],
        Op::ReadLane { v, lane } => vec![*v, *lane],
        Op::WriteLane { v, lane, x } => vec![*v, *lane, *x],
        Op::Gather { v, idx } => vec![*v, *idx],
        Op::Lane { args, .. } => args.clone(),
        Op::Load { addr, mask, .. } => vec![*addr, *mask],
        Op::Store {
            addr, data, mask, ..
        } => vec![*addr, *data, *mask],
        Op::Atomic {
            addr,
            data,
            cmp,
            mask,
            ..
        } => {
            let mut v = vec![*addr, *data, *mask];
            v.extend(cmp.iter().copied());
            v
        }
        Op::SLoad { addr, .. } => vec![*addr],
        Op::SStore { addr, data, .. } => vec![*addr, *data],
        Op::CountVector { mask } => vec![*mask],
        Op::CountRegion { exec, .. } => vec![*exec],
        Op::Matrix(_) => vec![],
    }
}

/// `v` as `(root, c)` with `v = root + c` through the block's `V64` adds of broadcast
/// constants (wrapping, as the adds are), `root` a value index.
fn affine(blk: &Block, v: Val) -> (u32, u64) {
    let ops = &blk.ops;
    let bconst = |x: &Val| match ops.get(x.0 as usize) {
        Some(Op::Broadcast(s)) => match ops.get(s.0 as usize) {
            Some(Op::Const { bits, .. }) => Some(*bits),
            _ => None,
        },
        _ => None,
    };
    let (mut v, mut c) = (v, 0u64);
    for _ in 0..8 {
        let is64 = blk.types.get(v.0 as usize) == Some(&Some(Ty::V64));
        match ops.get(v.0 as usize) {
            Some(Op::Bin(BinOp::Add, x, y)) if is64 => {
                if let Some(k) = bconst(y) {
                    (v, c) = (*x, c.wrapping_add(k));
                } else if let Some(k) = bconst(x) {
                    (v, c) = (*y, c.wrapping_add(k));
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    (v.0, c)
}

/// Per op index, the last op using its value (`ops.len()` when the exit uses it).
fn last_uses(blk: &Block) -> Vec<usize> {
    let n = blk.ops.len();
    let mut last_use = vec![0usize; n];
    for (k, op) in blk.ops.iter().enumerate() {
        for v in operands(op) {
            if let Some(l) = last_use.get_mut(v.0 as usize) {
                *l = (*l).max(k);
            }
        }
    }
    for v in exit_operands(&blk.exit) {
        if let Some(l) = last_use.get_mut(v.0 as usize) {
            *l = n;
        }
    }
    last_use
}

/// Per op index, how many operands of ops and of the exit name its value.
fn use_counts(blk: &Block) -> Vec<u32> {
    let mut uses = vec![0u32; blk.ops.len()];
    let all = blk
        .ops
        .iter()
        .flat_map(operands)
        .chain(exit_operands(&blk.exit));
    for v in all {
        if let Some(u) = uses.get_mut(v.0 as usize) {
            *u += 1;
        }
    }
    uses
}

fn exit_operands(e: &Exit) -> Vec<Val> {
    match e {
        Exit::Branch { cond, .. } => vec![*cond],
        Exit::JumpIndirect(t) => vec![*t],
        _ => vec![],
    }
}

/// Integer binary ops that [`Gen::scalar_bin`] inlines (and so can run lane by lane).
fn scalar_bin_inline(o: BinOp) -> bool {
    !matches!(
        o,
        BinOp::FAdd
            | BinOp::FSub
            | BinOp::FMul
            | BinOp::FDiv
            | BinOp::FMinNum
            | BinOp::FMaxNum
            | BinOp::FLdexp
    )
}

/// The end of the run starting at `i` and, per op of the run, whether a uniform op goes after
/// the loop: it depends on a compare of the run, or follows such an op (uniform ops keep
/// their relative order; pure ops on values available before the loop do not need to). A
/// vector op that needs such a value ends the run, unless it takes it as a lane mask and
/// the value is lane-wise computable per group ([`group_mask_op`]: the compares, and bitwise
/// and width ops on them, e.g. RDNA's carry `exec & cmp` through VCC into
/// `v_add_co_ci_u32`); those are returned too (their group masks are made in the loop,
/// their values after it as usual).
fn run_extent(blk: &Block, i: usize, classes: &[OpClass]) -> (usize, Vec<bool>, Vec<u32>) {
    let n = blk.ops.len();
    let mut post = Vec::new();
    let mut post_started = false;
    // Values only complete after the loop: the run's compares and post ops.
    let mut late: Vec<u32> = Vec::new();
    // Late values whose lane masks a group can compute.
    let mut derivable: Vec<u32> = Vec::new();
    let mut j = i;
    while j < n && classes[j] != OpClass::Other {
        let op = &blk.ops[j];
        let ops = operands(op);
        match classes[j] {
            OpClass::Uniform => {
                let dep = ops.iter().any(|v| late.contains(&v.0));
                let p = dep || post_started && !pure_uniform(op);
                if p {
                    post_started = true;
                    late.push(j as u32);
                    if dep
                        && group_mask_op(blk, op)
                        && ops
                            .iter()
                            .all(|v| !late.contains(&v.0) || derivable.contains(&v.0))
                    {
                        derivable.push(j as u32);
                    }
                }
                post.push(p);
            }
            _ => {
                let mask_ops: Vec<Val> = match op {
                    Op::Select { cond, .. } => vec![*cond],
                    Op::SetVgpr { mask, .. } => vec![*mask],
                    Op::MaskToLanes(m) => vec![*m],
                    _ => vec![],
                };
                let blocked = ops.iter().any(|v| {
                    late.contains(&v.0) && !(derivable.contains(&v.0) && mask_ops.contains(v))
                });
                if blocked {
                    break;
                }
                if matches!(op, Op::Cmp(..)) {
                    late.push(j as u32);
                    derivable.push(j as u32);
                }
                post.push(false);
            }
        }
        j += 1;
    }
    derivable.retain(|&d| !matches!(blk.ops[d as usize], Op::Cmp(..)));
    (j, post, derivable)
}

/// A uniform op without effects or state reads (so it may move before the run's post ops
/// when its operands are available).
fn pure_uniform(op: &Op) -> bool {
    matches!(
        op,
        Op::Const { .. }
            | Op::Un(..)
            | Op::Bin(..)
            | Op::Tern(..)
            | Op::Cmp(..)
            | Op::Select { .. }
            | Op::Conv(..)
            | Op::Pack { .. }
    )
}

/// A uniform op whose lane bits are a lane-wise function of its operands' lane bits: AND,
/// OR, XOR, NOT of masks, and the 32-bit cut (`Lo`) and zero extension of a mask.
fn group_mask_op(blk: &Block, op: &Op) -> bool {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let scalar = |v: &Val| matches!(ty(v), Some(Ty::S32 | Ty::S64));
    match op {
        Op::Bin(BinOp::And | BinOp::Or | BinOp::Xor, a, b) => scalar(a) && ty(a) == ty(b),
        Op::Un(UnOp::Not, a) => scalar(a),
        Op::Conv(ConvOp::Lo, a) => ty(a) == Some(Ty::S64),
        Op::Conv(ConvOp::ZExt, a) => ty(a) == Some(Ty::S32),
        _ => false,
    }
}

/// The register whose row holds vector `v` at op `at`: `v` is a `GetVgpr` whose register
/// no op between it and `at` writes (register writes are all stored between ops in the
/// straight-line form, and after each lane-group run).
fn vgpr_row(blk: &Block, v: Val, at: usize) -> Option<u16> {
    let ops = &blk.ops;
    let d = v.0 as usize;
    let Some(Op::GetVgpr(r)) = ops.get(d) else {
        return None;
    };
    let clobbered = ops.get(d + 1..at)?.iter().any(|op| match op {
        Op::SetVgpr { reg, .. } => reg == r,
        Op::SetVgprDyn { .. } | Op::Matrix(_) => true,
        _ => false,
    });
    (!clobbered && (*r as usize) < NUM_VREGS).then_some(*r)
}

/// Register reads whose every use is the data of a piece of a multi-dword store that reads
/// them from the register ([`Gen::emit_multi`], its fallback too): value → register. Such
/// values need no 64-lane copy when they leave a lane-group run.
fn row_values(blk: &Block, uses: &[u32], last_use: &[usize]) -> HashMap<u32, u16> {
    let mut found: HashMap<u32, (u16, u32)> = HashMap::new();
    let mut i = 0;
    while i < blk.ops.len() {
        let Some(mu) = multi_access(blk, i, uses, last_use) else {
            i += 1;
            continue;
        };
        if !mu.load {
            for &(k, _) in &mu.pieces {
                if let Op::Store { data, .. } = &blk.ops[k] {
                    if let Some(r) = vgpr_row(blk, *data, mu.first) {
                        found.entry(data.0).or_insert((r, 0)).1 += 1;
                    }
                }
            }
        }
        i = mu.last + 1;
    }
    found
        .into_iter()
        .filter(|(v, (_, n))| uses.get(*v as usize) == Some(n))
        .map(|(v, (r, _))| (v, r))
        .collect()
}

/// Most vector loads and stores a block may have for each to get inline code
/// ([`Gen::mem_plan`] and the per-lane forms, some KB each): a block with more (a GEMM's
/// epilogue of 128 stores, run once per wave) runs faster through the helpers' one compact
/// loop than through that much code, and compiles much faster. Multi-dword accesses
/// ([`Gen::emit_multi`]) keep their inline form.
const INLINE_MEM_OPS: usize = 64;

/// Largest byte distance from the first piece of a multi-dword access to the end of its last
/// piece ([`multi_access`]): `ds_read2_b32`/`ds_write2_b32` offsets reach 1020 + 4.
const MULTI_SPAN: u64 = 1024;

/// A multi-dword access as the lifter splits it (`global_load_dwordx2..4`,
/// `ds_read_b64..b128`, `ds_read2_b32`, and the stores alike): dword loads or stores of one
/// pc, space and exec mask at constant offsets from the first piece's address, with only
/// their address arithmetic in between, and for loads each piece written to a register
/// right after ([`Gen::emit_multi`]).
struct Multi {
    /// The ops `first..=last` the access covers.
    first: usize,
    last: usize,
    load: bool,
    /// The memory ops (first is `first`) and their byte offsets from its address.
    pieces: Vec<(usize, u64)>,
    /// Loads: per piece, the register its `SetVgpr` writes and whether that write's mask is
    /// the constant all-ones (else it is the load's mask).
    dest: Vec<(u16, bool)>,
    /// Ops of the range emitted before the access (constants and their broadcasts: later
    /// ops may use them).
    hoist: Vec<usize>,
    /// Bytes from the first piece's address to the end of the farthest piece.
    span: u64,
}

/// The multi-dword access starting at op `i`, if it is one: at least two dword pieces of
/// `V32` lanes (global/FLAT or LDS), every value the range makes besides constants used only
/// inside it, each load piece used only by its `SetVgpr` (distinct registers).
fn multi_access(blk: &Block, i: usize, uses: &[u32], last_use: &[usize]) -> Option<Multi> {
    let ty = |v: &Val| blk.types.get(v.0 as usize).copied().flatten();
    let (pc, space, addr, mask, load) = match &blk.ops[i] {
        Op::Load {
            pc,
            space,
            addr,
            size: 4,
            signed: false,
            mask,
        } if blk.types[i] == Some(Ty::V32) => (*pc, *space, *addr, *mask, true),
        Op::Store {
            pc,
            space,
            addr,
            size: 4,
            data,
            mask,
        } if ty(data) == Some(Ty::V32) => (*pc, *space, *addr, *mask, false),
        _ => return None,
    };
    if space == crate::env::Space::Scratch || ty(&addr) != Some(Ty::V64) {
        return None;
    }
    let is_const = |v: &Val| matches!(blk.ops.get(v.0 as usize), Some(Op::Const { .. }));
    let (root, c0) = affine(blk, addr);
    let mut pieces = vec![(i, 0u64)];
    let mut dest: Vec<Option<(u16, bool)>> = vec![None];
    let mut hoist = Vec::new();
    let mut last = i;
    // The offset of a piece at `a` from the first, when it is one.
    let piece = |a: &Val, n: usize| {
        let (r, c) = affine(blk, *a);
        let d = c.wrapping_sub(c0);
        (r == root && d + 4 <= MULTI_SPAN && n < 4).then_some(d)
    };
    for k in i + 1..blk.ops.len().min(i + 64) {
        match &blk.ops[k] {
            Op::Const { .. } => hoist.push(k),
            Op::Broadcast(x) if is_const(x) => hoist.push(k),
            Op::Bin(BinOp::Add, ..) if blk.types[k] == Some(Ty::V64) => {}
            Op::Load {
                pc: p,
                space: sp,
                addr: a,
                size: 4,
                signed: false,
                mask: m,
            } if load && *p == pc && *sp == space && *m == mask => {
                let Some(d) = piece(a, pieces.len()) else {
                    break;
                };
                if blk.types[k] != Some(Ty::V32) {
                    break;
                }
                pieces.push((k, d));
                dest.push(None);
                last = k;
            }
            Op::Store {
                pc: p,
                space: sp,
                addr: a,
                size: 4,
                data,
                mask: m,
            } if !load && *p == pc && *sp == space && *m == mask => {
                let Some(d) = piece(a, pieces.len()) else {
                    break;
                };
                if ty(data) != Some(Ty::V32) {
                    break;
                }
                pieces.push((k, d));
                last = k;
            }
            Op::SetVgpr { reg, val, mask: wm } if load => {
                let Some(p) = pieces.iter().position(|&(o, _)| o == val.0 as usize) else {
                    break;
                };
                let ones = matches!(
                    blk.ops.get(wm.0 as usize),
                    Some(Op::Const { bits: u64::MAX, .. })
                );
                // (A register out of range: the separate `SetVgpr` reports it.)
                if dest[p].is_some() || *wm != mask && !ones || *reg as usize >= NUM_VREGS {
                    break;
                }
                dest[p] = Some((*reg, *wm != mask));
                last = k;
            }
            _ => break,
        }
    }
    hoist.retain(|&k| k < last);
    if pieces.len() < 2 {
        return None;
    }
    // Everything the range makes, constants aside, is used inside it only.
    let inside = (i..=last)
        .filter(|k| !hoist.contains(k))
        .all(|k| last_use.get(k).is_some_and(|&l| l <= last));
    if !inside {
        return None;
    }
    let dest: Vec<(u16, bool)> = if load {
        let d: Option<Vec<_>> = dest.into_iter().collect();
        let d = d?;
        let once = pieces.iter().all(|&(k, _)| uses.get(k).copied() == Some(1));
        let distinct = d
            .iter()
            .enumerate()
            .all(|(x, r)| d[..x].iter().all(|q| q.0 != r.0));
        if !once || !distinct {
            return None;
        }
        d
    } else {
        Vec::new()
    };
    let span = pieces.iter().map(|&(_, d)| d + 4).max().unwrap_or(4);
    Some(Multi {
        first: i,
        last,
        load,
        pieces,
        dest,
        hoist,
        span,
    })
}

impl<'a, 'b> Gen<'a, 'b> {
    /// Sets value `k` (emitted out of order) as [`Gen::record`] would.
    fn set_val(&mut self, k: usize, v: JV) {
        let src = match (&self.block.ops[k], &v) {
            (Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
            _ => None,
        };
        self.vals[k] = v;
        self.splat_src[k] = src;
    }

    /// The register whose row holds vector `v` at op `at` ([`vgpr_row`]).
    fn vgpr_row(&self, v: Val, at: usize) -> Option<u16> {
        vgpr_row(self.block, v, at)
    }

    /// Emits a multi-dword access ([`multi_access`]) as one: when every active lane's
    /// `span` bytes lie in the window of the lowest active lane (tested for all lanes
    /// before anything is written), loads go straight into their registers (four lanes at
    /// a time, no result buffers, no address vectors of the later pieces) and stores write
    /// piece after piece in lane order (the order of the separate stores, so overlapping
    /// lanes end as on the checked path). Otherwise (a cold path) every op of the range runs
    /// as usual, loads and stores through their helpers.
    fn emit_multi(&mut self, mu: &Multi) -> GenResult<()> {
        let blk = self.block;
        if self.vals.len() != mu.first {
            return Err("value numbering".into());
        }
        for _ in mu.first..=mu.last {
            self.vals.push(JV::None);
            self.splat_src.push(None);
        }
        self.flush_counts();
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
        let abuf = self.read_buffer(addr, 0)?;
        // Stores: each piece's data row (its register, else a buffer).
        let mut data = Vec::new();
        if !mu.load {
            for (x, &(k, _)) in mu.pieces.iter().enumerate() {
                let Op::Store { data: dv, .. } = &blk.ops[k] else {
                    return Err("multi-dword store".into());
                };
                let p = match self.vgpr_row(*dv, mu.first) {
                    Some(r) => self.state_addr(WaveState::vgpr_offset(r as usize, 0)),
                    None => self.read_buffer(*dv, 1 + x)?,
                };
                data.push(p);
            }
        }
        let fallback = self.b.create_block();
        let join = self.b.create_block();
        self.hot_mem = true;
        let r = self.multi_fast(mu, space, abuf, m, &data, fallback, join);
        self.hot_mem = false;
        r?;
        // The fallback: the ops as usual, memory through the helpers; laid out cold.
        let from = self.b.func.dfg.num_blocks();
        self.b.switch_to_block(fallback);
        self.b.seal_block(fallback);
        self.helper_only = true;
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
        self.helper_only = false;
        r?;
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
            }
        }
        self.vreg_cache.clear();
        self.mask_cache.clear();
        self.multi += 1;
        Ok(())
    }

    /// The fast path of [`Gen::emit_multi`]: branches to `fallback` when it does not
    /// apply, else does the access and jumps to `join`.
    #[allow(clippy::too_many_arguments)]
    fn multi_fast(
        &mut self,
        mu: &Multi,
        space: crate::env::Space,
        abuf: Value,
        m: Value,
        data: &[Value],
        fallback: cranelift_codegen::ir::Block,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let w = self.gather_window(space, abuf, m, mu.span, fallback)?;
        // Pass 1: every active lane's host address into `ptrs` (an inactive lane's: the
        // window's start for a load, whose lanes are then not written; a sink for a store).
        let ptrs = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            8 * MAX_LANES as u32,
            4,
        ));
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
            self.hot_mem = !masked;
            if masked {
                self.b.set_cold_block(blk);
            }
            let (hdr, li) = self.quad_loop_begin();
            let ao = self.b.ins().ishl_imm_u(li, 3);
            let ab = self.b.ins().iadd(abuf, ao);
            let pbase = self.b.ins().stack_addr(types::I64, ptrs, 0);
            let pp = self.b.ins().iadd(pbase, ao);
            let ms = if masked { self.b.ins().ushr(m, li) } else { m };
            for j in 0..4usize {
                let (off, act) = self.gather_offset(&w, ab, ms, j, masked, fallback);
                let mut p = self.b.ins().iadd(w.host, off);
                if let (Some(act), false) = (act, mu.load) {
                    let s = self.b.ins().stack_addr(types::I64, sink, 0);
                    p = self.b.ins().select(act, p, s);
                }
                self.b.ins().store(trusted(), p, pp, (8 * j) as i32);
            }
            self.quad_loop_end(hdr, li, done);
        }
        self.hot_mem = true;
        if mu.load {
            for (blk, masked) in [(fdone, false), (pdone, true)] {
                self.b.switch_to_block(blk);
                self.b.seal_block(blk);
                self.hot_mem = !masked;
                if masked {
                    self.b.set_cold_block(blk);
                }
                self.multi_load_pass(mu, ptrs, m, masked, join)?;
            }
            self.hot_mem = true;
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
                let next = self.b.create_block();
                let (hdr, li) = self.quad_loop_begin();
                let po = self.b.ins().ishl_imm_u(li, 3);
                let pbase = self.b.ins().stack_addr(types::I64, ptrs, 0);
                let pp = self.b.ins().iadd(pbase, po);
                let dof = self.b.ins().ishl_imm_u(li, 2);
                let dp = self.b.ins().iadd(data[x], dof);
                for j in 0..4usize {
                    let p = self.b.ins().load(types::I64, trusted(), pp, (8 * j) as i32);
                    let v = self.b.ins().load(types::I32, trusted(), dp, (4 * j) as i32);
                    self.b.ins().store(le(), v, p, d as i32);
                }
                self.quad_loop_end(hdr, li, next);
                self.b.switch_to_block(next);
                self.b.seal_block(next);
            }
            self.b.ins().jump(join, &[]);
        }
        Ok(())
    }

    /// Pass 2 of a multi-dword load: four lanes at a time, each piece's dwords of those
    /// lanes (one 16-byte load per lane and a transpose for four consecutive dwords)
    /// written to the piece's register: all four lanes when `masked` is false (every lane
    /// of the block active), else the active ones (a write with the constant all-ones mask
    /// writes 0 to the inactive lanes, as the load gives them). Then a jump to `join`.
    fn multi_load_pass(
        &mut self,
        mu: &Multi,
        ptrs: StackSlot,
        m: Value,
        masked: bool,
        join: cranelift_codegen::ir::Block,
    ) -> GenResult<()> {
        let (hdr, li) = self.quad_loop_begin();
        let po = self.b.ins().ishl_imm_u(li, 3);
        let pbase = self.b.ins().stack_addr(types::I64, ptrs, 0);
        let pp = self.b.ins().iadd(pbase, po);
        let ps: Vec<Value> = (0..4)
            .map(|j| self.b.ins().load(types::I64, trusted(), pp, 8 * j))
            .collect();
        let offs: Vec<u64> = mu.pieces.iter().map(|&(_, d)| d).collect();
        let chunks: Vec<Value> = if offs == [0, 4, 8, 12] {
            let r: Vec<Value> = ps
                .iter()
                .map(|&p| self.b.ins().load(I32X4, le(), p, 0))
                .collect();
            let t0 = self.shuffle32(r[0], r[1], [0, 4, 1, 5]);
            let t1 = self.shuffle32(r[2], r[3], [0, 4, 1, 5]);
            let t2 = self.shuffle32(r[0], r[1], [2, 6, 3, 7]);
            let t3 = self.shuffle32(r[2], r[3], [2, 6, 3, 7]);
            [
                (t0, t1, [0, 1, 4, 5]),
                (t0, t1, [2, 3, 6, 7]),
                (t2, t3, [0, 1, 4, 5]),
                (t2, t3, [2, 3, 6, 7]),
            ]
            .into_iter()
            .map(|(a, b, l)| {
                let c = self.shuffle32(a, b, l);
                self.b.ins().bitcast(I32X4, le(), c)
            })
            .collect()
        } else {
            offs.iter()
                .map(|&d| {
                    let mut v = None;
                    for (j, &p) in ps.iter().enumerate() {
                        let x = self.b.ins().load(types::I32, le(), p, d as i32);
                        v = Some(match v {
                            None => self.b.ins().scalar_to_vector(I32X4, x),
                            Some(v) => self.b.ins().insertlane(v, x, j as u8),
                        });
                    }
                    v.ok_or_else(|| "empty chunk".to_string())
                })
                .collect::<GenResult<_>>()?
        };
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
