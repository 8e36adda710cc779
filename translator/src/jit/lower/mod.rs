//! Translation of one IR [`Block`] into a Cranelift function
//! `fn(state: *mut WaveState, ctx: *mut JitCtx) -> u32` (`tail` convention): it charges
//! [`WaveState::credit`] at its start, and at a static exit tail-calls the linked successor
//! (`jit::Links`) when there is one.
//!
//! Two forms, tried in this order:
//!
//! * **Lane-group form** ([`group`]): the block is cut into runs of lane-local
//!   vector ops (and uniform ops that cannot fault); each run becomes its uniform prologue and
//!   one loop over the groups of 4 lanes (16 for wave64, 8 for wave32) that executes every
//!   vector op of the run for that group, so a group's values stay in registers across the
//!   whole run and VGPRs are stored once per group. Vector compares accumulate their mask bits in loop-carried values;
//!   uniform ops that need them run after the loop. Other ops (memory, cross-lane, helper
//!   calls) are emitted between runs in the straight-line form. The loop is emitted twice:
//!   a fast copy that leaves at the first group with a NaN float result (one test of the
//!   group's float results, before that group stores anything) and a cold copy that redoes
//!   that group and the rest with the NaN rule in line. The fast copy runs only when the masks of the run's register writes that
//!   exist before the loop (EXEC) have all the block's lanes set, and writes registers
//!   without blending; otherwise the cold copy runs from group 0. Quick code
//!   ([`Gen::with_one_loop_copy`]) has the second copy only, laid out in line.
//! * **Straight-line form**: every op once over all the block's lanes.
//!
//! Uniform values are scalar Cranelift values. A whole-wave lane vector is 16 `i32x4` chunks
//! (32-bit lanes) or 32 `i64x2` chunks (64-bit lanes) for wave64, half as many for wave32, in
//! SSA, or (values leaving a lane-group run, load results) a 64-lane stack buffer whose
//! chunks are loaded where used; in a lane group it is 1 or 2 chunks. Masked VGPR writes
//! blend with the old value (lane masks expanded once per mask value, from a table indexed by
//! each chunk's mask bits, [`masks`]); the constant all-ones mask stores directly. Float
//! results get the IR NaN rule ([`nan`]) through a cheap any-NaN test with the exact fix-up on a rarely taken path. Ops that
//! Cranelift cannot do exactly or well call the helpers in [`super::helpers`] with the
//! operands spilled to 512-byte stack buffers (64-lane layout; a wave32 block fills lanes
//! 0..31). A wave32 block computes only lanes 0..31 ([`Block::lanes`]; the IR leaves lanes
//! 32..63 of values unspecified): it never loads, computes or stores lanes 32..63 of a
//! register, so they keep what they held; masks passed to memory helpers are cut to 32 bits
//! and helpers evaluate 32 lanes.
//!
//! What decides the lowering is found beforehand by [`crate::jit::analysis`]; here each
//! class of op has its module: [`alu`] (arithmetic, logic, compares), [`conv`], [`lanes`]
//! (lane shapes and cross-lane ops), [`state`] (registers, SCC, MODE), [`memory`] (inline,
//! per-lane and multi-dword paths before the helpers), [`matrix`], [`control`] (credit,
//! exits, faults, counters), with [`calls`] for helper calls.

#![forbid(unsafe_code)]

mod affine_run;
mod alu;
mod calls;
mod control;
mod conv;
mod fenv;
mod group;
mod iterated;
mod lanefn;
mod lanes;
mod masks;
mod matrix;
mod memory;
pub(crate) use memory::WindowHints;
mod nan;
mod round;
mod state;

pub use fenv::host_round;
pub use lanefn::cold_lanes as lanefn_cold_lanes;
pub use round::cold_lanes as rounded_cold_lanes;

use super::analysis::runs::may_leave;
use super::analysis::{BlockFacts, MemLowering};
use crate::ir::{Block, ConvOp, Op, Ty, Val};
use crate::sem;
use crate::wave::{WaveCounters, WaveState};
use core::mem::offset_of;
use cranelift_codegen::ir::{
    types, ConstantData, Endianness, InstBuilder, MemFlagsData, StackSlot, StackSlotData,
    StackSlotKind, Type, Value,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::FunctionBuilder;
use group::LaneGroup;
use masks::LANE_MASKS;
use memory::PathLayout;
use std::collections::HashMap;

/// Zeros the loop variant's splat copies load ([`Gen::slow_copy`]): row 0 in its fast
/// lane-group copies, row 1 in its slow ones.
static VARIANT_ZEROS: [[u32; 4]; 2] = [[0; 4]; 2];

/// Internal exit code: the block ended in [`crate::ir::Exit::Unsupported`].
pub const EXIT_UNSUPPORTED: u32 = 6;
/// Internal exit code: the block ended in [`crate::ir::Exit::Illegal`].
pub const EXIT_ILLEGAL: u32 = 7;

#[derive(Clone)]
enum JV {
    None,
    S(Value),
    V(Vec<Value>),
    /// A whole-wave vector held only in its 64-lane stack buffer (also in `escaped`, or
    /// for a load read through a pointer in `pending`, `memory::pending`), its chunks loaded
    /// where used: a value that leaves a lane-group run or a memory load is mostly consumed
    /// from the buffer (by later runs and helpers), so eager reloads of all its chunks would
    /// be dead code.
    Buf(StackSlot),
    /// In the iterated form, a VGPR the block only reads, loaded from the lane group's
    /// rows where used ([`Gen::iteration_start`]: keeps it out of the host's registers).
    Row(u16),
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

/// Whether `f` is one of the per-lane helpers of lane groups' cold lanes, which never reach
/// the environment (`memory::pending`).
fn env_free_lane_helper(f: usize) -> bool {
    f == lanefn::h_lanefn_lane as *const () as usize
        || f == round::h_rounded_lane as *const () as usize
}

/// Compile error: the block stays interpreted.
pub type GenResult<T> = Result<T, String>;

/// Whether two exits continue at the same static targets (their conditions may be
/// different values of different blocks).
fn same_targets(a: &crate::ir::Exit, b: &crate::ir::Exit) -> bool {
    use crate::ir::Exit;
    match (a, b) {
        (Exit::Jump(x), Exit::Jump(y)) => x == y,
        (
            Exit::Branch {
                taken: t1,
                not_taken: n1,
                ..
            },
            Exit::Branch {
                taken: t2,
                not_taken: n2,
                ..
            },
        ) => t1 == t2 && n1 == n2,
        _ => false,
    }
}

/// The form a block is compiled in (module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// Runs of lane-local ops as lane-group loops, the other ops in the straight-line form.
    LaneGroups,
    /// Every op once over all the block's lanes.
    StraightLine,
    /// A block looping to itself whose vector part neither feeds its scalar part nor
    /// crosses lanes: the scalar loop first, then all iterations per lane group
    /// ([`iterated`]).
    Iterated,
}

/// Blends of one Cranelift block ([`Gen::blend`]): `(mask, a, b)` → `bitselect(mask, a, b)`.
type BlendMemo = HashMap<(Value, Value, Value), Value>;

/// [`Op::CountVector`] counts not yet added to the counters.
#[derive(Clone, Copy)]
pub(super) struct PendingCounts {
    /// Active lanes of the earlier masks (`I64`), if any.
    lanes: Option<Value>,
    /// The last mask counted (`I64`), and how many times in a row.
    mask: Value,
    times: u64,
    /// Vector instructions counted.
    insts: u64,
}

/// The code generator of one block: its Cranelift function under construction and what it
/// knows about the values emitted so far.
pub struct Gen<'a, 'b> {
    b: FunctionBuilder<'b>,
    block: &'a Block,
    /// The host's C convention, in which helpers are called.
    call_conv: CallConv,
    frontend: TargetFrontendConfig,
    state: Value,
    ctx: Value,
    vals: Vec<JV>,
    /// For vectors made by `Broadcast`: the uniform source.
    splat_src: Vec<Option<Value>>,
    /// Six 512-byte stack buffers for helper operands (64 lanes of 64 bits).
    slots: Vec<StackSlot>,
    /// Lane-mask chunks already expanded from a mask value: `(value, lane bits)` → chunks.
    mask_cache: HashMap<(u32, u32), Vec<Value>>,
    /// Blends emitted in the current Cranelift block ([`Gen::blend`]): the block, and
    /// `(mask, a, b)` → the blend.
    blends: (Option<cranelift_codegen::ir::Block>, BlendMemo),
    /// Current contents of vector registers, as chunks (stores are still emitted at once,
    /// so memory is always up to date; this only saves reloads).
    vreg_cache: HashMap<u16, Vec<Value>>,
    /// In the iterated form's loop: VGPRs read as [`JV::Row`], loaded at each use, and a
    /// zero computed from the iteration index that their addresses add
    /// ([`Gen::iteration_start`]).
    rows_at_use: (Vec<u16>, Option<Value>),
    /// The block's lanes (64, or 32 for wave32): whole-wave values have `lanes / 4` `i32x4`
    /// or `lanes / 2` `i64x2` chunks; the lane-group loop runs `lanes / 4` groups.
    lanes: usize,
    /// Address of the block's two successor links (`jit::Links`: code of the compiled
    /// block at the jump / taken target, then at the not-taken target; 0 = not linked),
    /// when the block may continue in its successor by a tail call (block chaining).
    links: Option<usize>,
    /// The lane group being emitted (its loop index and copy), `None` in the straight-line
    /// form. Vector values are then one group: 1 `i32x4` or 2 `i64x2` chunks.
    group: Option<LaneGroup>,
    /// Vector values that left a lane-group run: their 64-lane stack buffers (lane order,
    /// the helpers' layout; written once, by that run), which helpers that only read a
    /// value take directly instead of a fresh copy.
    escaped: HashMap<u32, StackSlot>,
    /// Later dword pieces of a multi-dword load whose first piece tried them all at once
    /// (`memory::gather`'s `fused_load`): op index → (its result buffer, the flag slot,
    /// non-zero when the fused path loaded it).
    fused: HashMap<usize, (StackSlot, StackSlot)>,
    /// [`Op::CountVector`] counts not yet added to the counters: active lanes (`I64`) and
    /// vector instructions.
    pending_counts: Option<PendingCounts>,
    /// What the analysis found about the block.
    facts: BlockFacts,
    /// How single vector accesses are lowered now: the block's [`BlockFacts::mem`], or
    /// [`MemLowering::Helper`] in the fallback of a multi-dword access.
    mem: MemLowering,
    /// Where blocks of inline memory paths are laid out now.
    layout: PathLayout,
    /// Multi-dword accesses emitted as one (`memory::multi`).
    multi: u32,
    /// The block's loop variant ([`crate::ir::passes::flush::loop_variant`]): the block
    /// rewritten for the VGPRs it lists being denormal-free, which the loop continues in
    /// once they are ([`Gen::emit`]).
    variant: Option<&'a crate::ir::passes::flush::LoopVariant>,
    /// Whether the loop variant's body is being emitted.
    in_variant: bool,
    /// Whether the code being emitted runs with the host's FTZ set ([`fenv`]).
    ftz: bool,
    /// The direction the block runs under as the host's MXCSR.RC ([`fenv::host_round`]):
    /// its directed roundings in that direction are plain host ops.
    rc: Option<crate::ir::Round>,
    /// The frame slot holding the caller's MXCSR while the code runs under another
    /// float environment ([`fenv`]).
    fenv_slot: Option<StackSlot>,
    /// The global window the last scalar load selected: the block the load's code ended
    /// in, and the window (`memory::scalar_mem`: the next scalar load, lowered in that same
    /// block, tries it first).
    sload_window: Option<(cranelift_codegen::ir::Block, memory::WinParts)>,
    /// `I8`: whether `sload_window` is still valid (no call into the environment since
    /// its selection, `memory::pending`).
    sload_valid: Option<cranelift_frontend::Variable>,
    /// Scalar loads of a run whose first load selected their window
    /// ([`memory::sload_run`]): per op index, how to read the dword there.
    sload_ahead: HashMap<usize, memory::Ahead>,
    /// Per root VGPR of the block's lane-affine addresses: lane 0 of its entry value and
    /// whether it is lane-affine (`memory::affine`, tested at the body's start).
    affine_roots: HashMap<u16, (Value, Value)>,
    /// In the iterated form's lane-group loop: the iteration count (`I64`, at least 1).
    iters: Option<Value>,
    /// Emit each lane-group loop once, as its general (slow) copy only: half the code for
    /// Cranelift to compile, for code that runs a few times ([`crate::jit::Tier::Quick`]).
    one_copy: bool,
    /// An exit to the block's own start loops back inside the code; when false it leaves
    /// through the run loop like any exit, so the run loop counts every iteration
    /// ([`crate::jit::Tier::Quick`], whose runs decide when the block is optimised).
    self_loops: bool,
    /// Address of the compiled block's [`WindowHints`], when global window selections
    /// test a hinted window first; and the next hint byte to hand out.
    hints: Option<usize>,
    next_hint: usize,
    /// Load results read through a pointer (`memory::pending`): value → its variable.
    pending: HashMap<u32, memory::Pending>,
    /// The op whose code is being emitted (the latest one started outside lane groups).
    cur_op: usize,
    /// Why the code cannot be right, found where no error could be returned.
    defect: Option<String>,
    /// Stores written from the lane-group loop before them (`memory::direct_store`): op
    /// index → `I8`, whether the loop wrote them.
    direct_stores: HashMap<usize, Value>,
}

impl<'a, 'b> Gen<'a, 'b> {
    /// A code generator for `block` into the function of `b` (whose signature is the
    /// block ABI), calling helpers in `call_conv`; `links` as [`Gen::links`].
    pub fn new(
        mut b: FunctionBuilder<'b>,
        block: &'a Block,
        call_conv: CallConv,
        frontend: TargetFrontendConfig,
        links: Option<usize>,
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
        let facts = BlockFacts::of(block);
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
            blends: (None, HashMap::new()),
            vreg_cache: HashMap::new(),
            rows_at_use: (Vec::new(), None),
            lanes: block.lanes(),
            links,
            group: None,
            escaped: HashMap::new(),
            fused: HashMap::new(),
            pending_counts: None,
            mem: facts.mem,
            facts,
            layout: PathLayout::Cold,
            multi: 0,
            variant: None,
            in_variant: false,
            ftz: false,
            rc: None,
            fenv_slot: None,
            sload_window: None,
            sload_valid: None,
            sload_ahead: HashMap::new(),
            affine_roots: HashMap::new(),
            iters: None,
            one_copy: false,
            self_loops: true,
            hints: None,
            next_hint: 0,
            pending: HashMap::new(),
            cur_op: 0,
            defect: None,
            direct_stores: HashMap::new(),
        }
    }

    /// This generator emitting each lane-group loop once, as the copy that handles every
    /// EXEC mask and NaN in line ([`group`]), without the fast copy: about half the
    /// Cranelift IR of a float-heavy block, for a tier that compiles fast.
    pub fn with_one_loop_copy(mut self) -> Self {
        self.one_copy = true;
        self
    }

    /// This generator ending the block at an exit to its own start like at any other exit
    /// (through the run loop) instead of looping back inside the code.
    pub fn without_self_loops(mut self) -> Self {
        self.self_loops = false;
        self
    }

    /// This generator with global window selections testing first the window they hit
    /// last, kept in `hints` (which must outlive the code).
    pub fn with_window_hints(mut self, hints: &WindowHints) -> Self {
        self.hints = Some(hints.addr());
        self
    }

    /// `bitselect(mask, a, b)` of vector chunks, emitted once per Cranelift block for the
    /// same operands. A lifted write under EXEC is an IR `Select` of the new and old value
    /// (what later ops read) and a `SetVgpr` of the new value under the same mask, whose
    /// blend with the register's current chunks is the same `bitselect`: without
    /// Cranelift's optimiser ([`crate::jit::Tier::Quick`]) both would run. Reuse stays within
    /// one Cranelift block, where an earlier value always dominates a later use.
    fn blend(&mut self, mask: Value, a: Value, b: Value) -> Value {
        let here = self.b.current_block();
        if self.blends.0 != here {
            self.blends.0 = here;
            self.blends.1.clear();
        }
        if let Some(&v) = self.blends.1.get(&(mask, a, b)) {
            return v;
        }
        let v = self.b.ins().bitselect(mask, a, b);
        self.blends.1.insert((mask, a, b), v);
        v
    }

    /// This generator with `block`'s loop variant: the same block rewritten for the VGPRs
    /// and pairs it lists being denormal-free at its start.
    pub fn with_loop_variant(mut self, variant: &'a crate::ir::passes::flush::LoopVariant) -> Self {
        self.variant = Some(variant);
        self
    }

    /// Starts emitting `block` (the loop variant of the one emitted so far) into the same
    /// function: forgets every value and cache of the previous one.
    fn switch_to(&mut self, block: &'a Block) {
        self.block = block;
        self.vals.clear();
        self.splat_src.clear();
        self.mask_cache.clear();
        self.vreg_cache.clear();
        self.escaped.clear();
        self.fused.clear();
        self.pending_counts = None;
        self.group = None;
        self.facts = BlockFacts::of(block);
        self.mem = self.facts.mem;
        self.layout = PathLayout::Cold;
        self.sload_window = None;
        self.sload_ahead.clear();
        self.pending.clear();
        self.cur_op = 0;
        self.direct_stores.clear();
    }

    /// Emits the block body from the credit charge at `head` (the current block) to just
    /// before the exit, in `form`.
    fn body(&mut self, form: Form) -> GenResult<()> {
        self.charge_credit();
        self.affine_root_tests();
        self.count_classes();
        match form {
            Form::LaneGroups => self.emit_grouped()?,
            Form::StraightLine => self.emit_straight()?,
            Form::Iterated => return Err("the iterated form has its own body".into()),
        }
        self.flush_counts();
        Ok(())
    }

    /// Adds one run's instructions by class to the wave's counters.
    fn count_classes(&mut self) {
        let cls = offset_of!(WaveState, counters) + offset_of!(WaveCounters, by_class);
        for (i, n) in self.block.class_counts.iter().enumerate() {
            if *n > 0 {
                let x = self.iconst(types::I64, *n as u64);
                self.add_counter(cls + 8 * i, x);
            }
        }
    }

    /// Where a loop of the general version goes back to when the block has a loop
    /// variant: a test of the variant's registers over the block's lanes, to the variant's
    /// start `variant_head` when none holds an f32 denormal, else to `head`.
    fn variant_check(
        &mut self,
        lv: &crate::ir::passes::flush::LoopVariant,
        head: cranelift_codegen::ir::Block,
        variant_head: cranelift_codegen::ir::Block,
    ) {
        use cranelift_codegen::ir::condcodes::IntCC;
        let (regs, pairs) = (&lv.regs, &lv.pairs);
        let abs = self.splat_const(32, 0x7fff_ffff);
        let one = self.splat_const(32, 1);
        // Denormal: |x| - 1 < 0x7fffff (unsigned; ±0 wraps to the top).
        let span = self.splat_const(32, 0x7f_ffff);
        let mut acc: Option<Value> = None;
        for &r in regs {
            for c in 0..self.lanes / 4 {
                let x = self.b.ins().load(
                    I32X4,
                    trusted(),
                    self.state,
                    WaveState::vgpr_offset(r as usize, 4 * c) as i32,
                );
                let a = self.b.ins().band(x, abs);
                let t = self.b.ins().isub(a, one);
                let d = self.b.ins().icmp(IntCC::UnsignedLessThan, t, span);
                acc = Some(match acc {
                    Some(m) => self.b.ins().bor(m, d),
                    None => d,
                });
            }
        }
        // f64 pairs: exponent field 0 (in the high word) and a non-zero mantissa.
        let exp_hi = self.splat_const(32, 0x7ff0_0000);
        let man_hi = self.splat_const(32, 0x000f_ffff);
        let zero = self.splat_const(32, 0);
        for &p in pairs {
            for c in 0..self.lanes / 4 {
                let mut row = |r: u16| {
                    self.b.ins().load(
                        I32X4,
                        trusted(),
                        self.state,
                        WaveState::vgpr_offset(r as usize, 4 * c) as i32,
                    )
                };
                let (lo, hi) = (row(p), row(p + 1));
                let e = self.b.ins().band(hi, exp_hi);
                let ez = self.b.ins().icmp(IntCC::Equal, e, zero);
                let mh = self.b.ins().band(hi, man_hi);
                let m = self.b.ins().bor(mh, lo);
                let mnz = self.b.ins().icmp(IntCC::NotEqual, m, zero);
                let d = self.b.ins().band(ez, mnz);
                acc = Some(match acc {
                    Some(a) => self.b.ins().bor(a, d),
                    None => d,
                });
            }
        }
        // SGPRs (f32) and SGPR pairs (f64), the same tests on scalars.
        let mut sacc: Option<Value> = None;
        let sgpr = |g: &mut Self, c: u8| {
            if c == crate::wave::sreg::NULL {
                g.iconst(types::I32, 0)
            } else {
                let off = WaveState::sgpr_offset(c as usize) as i32;
                g.b.ins().load(types::I32, trusted(), g.state, off)
            }
        };
        let scalars: Vec<(u8, bool)> = lv
            .sregs
            .iter()
            .map(|&r| (r, false))
            .chain(lv.spairs.iter().map(|&p| (p, true)))
            .collect();
        for (r, pair) in scalars {
            let (hi, lo) = if pair {
                (sgpr(self, r + 1), Some(sgpr(self, r)))
            } else {
                (sgpr(self, r), None)
            };
            let (exp, man) = if pair {
                (0x7ff0_0000, 0x000f_ffff)
            } else {
                (0x7f80_0000, 0x007f_ffff)
            };
            let e = self.b.ins().band_imm_u(hi, exp);
            let ez = self.b.ins().icmp_imm_u(IntCC::Equal, e, 0);
            let mut m = self.b.ins().band_imm_u(hi, man);
            if let Some(lo) = lo {
                m = self.b.ins().bor(m, lo);
            }
            let mnz = self.b.ins().icmp_imm_u(IntCC::NotEqual, m, 0);
            let d = self.b.ins().band(ez, mnz);
            sacc = Some(match sacc {
                Some(a) => self.b.ins().bor(a, d),
                None => d,
            });
        }
        let any = match acc {
            Some(m) => Some(self.b.ins().vany_true(m)),
            None => None,
        };
        let any = match (any, sacc) {
            (Some(a), Some(b)) => Some(self.b.ins().bor(a, b)),
            (a, b) => a.or(b),
        };
        match any {
            Some(any) => {
                self.b.ins().brif(any, head, &[], variant_head, &[]);
            }
            None => {
                self.b.ins().jump(variant_head, &[]);
            }
        }
    }

    /// Emits the whole block in `form`; returns how many multi-dword accesses it emitted as
    /// one.
    pub fn emit(mut self, form: Form) -> GenResult<u32> {
        let blk = self.block;
        // Directed rounding by the host's RC from the entry on, when the block (and its
        // loop variant) qualify for the same direction.
        self.rc = fenv::host_round(blk).filter(|&d| {
            self.variant
                .is_none_or(|lv| fenv::host_round(&lv.block) == Some(d))
        });
        if let Some(d) = self.rc {
            self.fenv_enter(crate::jit::mxcsr::rc_bits(d));
        }
        if form == Form::Iterated && self.variant.is_none() {
            self.emit_iterated()?;
            self.b.seal_all_blocks();
            self.b.finalize(self.frontend);
            return Ok(self.multi);
        }
        // The block body starts here, so that an exit to the block's own start can loop back
        // (`self_loop`); sealed with all blocks at the end.
        let head = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        // With a loop variant, the iterated form is the variant's: the general version
        // runs as lane groups until the variant's registers hold no denormal.
        let general = match form {
            Form::Iterated => Form::LaneGroups,
            f => f,
        };
        if form == Form::Iterated
            && !self
                .variant
                .is_some_and(|lv| same_targets(&lv.block.exit, &blk.exit))
        {
            return Err("the loop variant leaves the block elsewhere".into());
        }
        self.body(general)?;
        match self.variant {
            Some(lv) if same_targets(&lv.block.exit, &blk.exit) => {
                let variant = &lv.block;
                // The loop goes round the general version until the variant's registers
                // hold no denormal, then round the variant (which keeps them so).
                let check = self.b.create_block();
                let variant_head = self.b.create_block();
                self.exit(check)?;
                self.b.switch_to_block(check);
                // With FTZ, the variant is entered through a block that sets it (the loop
                // round the variant stays in FTZ).
                // (Not in the one-copy form: FTZ needs the fast copies' tests.)
                let ftz = general == Form::LaneGroups
                    && !self.one_copy
                    && self.rc.is_none()
                    && crate::jit::mxcsr::AVAILABLE
                    && crate::ir::passes::flush::ftz_ready(variant);
                let enter = if ftz {
                    self.b.create_block()
                } else {
                    variant_head
                };
                self.variant_check(lv, head, enter);
                if ftz {
                    self.b.switch_to_block(enter);
                    self.ftz_switch(true);
                    self.b.ins().jump(variant_head, &[]);
                }
                self.switch_to(variant);
                self.in_variant = true;
                self.ftz = ftz;
                self.b.switch_to_block(variant_head);
                if form == Form::Iterated {
                    self.emit_iterated()?;
                } else {
                    self.body(form)?;
                    self.exit(variant_head)?;
                }
                self.ftz = false;
            }
            _ => self.exit(head)?,
        }
        self.b.seal_all_blocks();
        self.b.finalize(self.frontend);
        Ok(self.multi)
    }

    /// Emits every op in the straight-line form (multi-dword accesses as one).
    fn emit_straight(&mut self) -> GenResult<()> {
        let blk = self.block;
        let mut i = 0;
        while i < blk.ops.len() {
            if let Some(next) = self.try_multi(i)? {
                i = next;
                continue;
            }
            self.straight(i)?;
            i += 1;
        }
        Ok(())
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
        self.group.as_ref().map_or(self.state, |g| g.rows)
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
            JV::Row(reg) => {
                let base = WaveState::vgpr_offset(*reg as usize, 0) as i32;
                let vb = self.vbase();
                let vb = match self.rows_at_use.1 {
                    Some(z) => self.b.ins().iadd(vb, z),
                    None => vb,
                };
                // Read-only in this loop (no store in it writes the row), and it cannot
                // trap: a pure load, placed at its use.
                let flags = trusted().with_readonly().with_can_move();
                return Ok((0..self.nch(32) as i32)
                    .map(|k| self.b.ins().load(I32X4, flags, vb, base + 16 * k))
                    .collect());
            }
            JV::Buf(slot) => {
                let slot = *slot;
                if self.group.is_none() {
                    if let Some(chunks) = self.pending_chunks(v.0) {
                        return Ok(chunks);
                    }
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
        let Some(g) = self.group.as_ref().map(|g| g.g) else {
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
        let (base, flags) = self
            .group
            .as_ref()
            .and_then(|g| g.outer.get(&v.0).copied())
            .ok_or_else(|| format!("operand {v:?} not prepared for the lane group"))?;
        let sh = if bits == 32 { 4 } else { 5 };
        let go = self.b.ins().ishl_imm_u(g, sh);
        let a = self.b.ins().iadd(base, go);
        Ok((0..self.nch(bits))
            .map(|c| self.b.ins().load(vty(bits), flags, a, (16 * c) as i32))
            .collect())
    }

    /// In the slow lane-group loop, a copy of the vector `x` that Cranelift cannot prove
    /// equal to it (ORed with zeros loaded from [`LANE_MASKS`]), else `x`: the slow loop's
    /// splats are then values of their own, hoisted to its entry, so the fast loop keeps
    /// its splats in registers (with shared values the register allocator tends to spill
    /// them for both loops, reloading them in the fast loop every group). The loop
    /// variant's copies (fast and slow) load other zeros ([`VARIANT_ZEROS`]), so they do not
    /// share splats with the general version either. With one loop copy ([`Gen::with_one_loop_copy`]) there is nothing to keep apart.
    fn slow_copy(&mut self, x: Value) -> Value {
        let table = match (self.in_variant, self.in_slow_copy()) {
            _ if self.one_copy => return x,
            (false, false) => return x,
            (false, true) => LANE_MASKS.m32.as_ptr() as u64,
            (true, slow) => VARIANT_ZEROS[slow as usize].as_ptr() as u64,
        };
        let t = self.b.func.dfg.value_type(x);
        let zeros = self.iconst(types::I64, table);
        // A static table: never written, always mapped; the entry read is all zeros.
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
        if let Some(r) = self.facts.rows.get(&v.0).copied() {
            return Ok(self.state_addr(WaveState::vgpr_offset(r as usize, 0)));
        }
        if let Some(slot) = self.escaped.get(&v.0).copied() {
            return Ok(self.b.ins().stack_addr(types::I64, slot, 0));
        }
        if let Some(a) = self.materialise(v.0) {
            return Ok(a);
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

    fn as_f(&mut self, bits: u32, x: Value) -> Value {
        // A pure load (as of a [`JV::Row`]) is loaded again as floats: a bitcast between
        // it and a float op would keep it from folding into that op as a memory operand.
        let dfg = &self.b.func.dfg;
        if let cranelift_codegen::ir::ValueDef::Result(inst, 0) = dfg.value_def(x) {
            if let cranelift_codegen::ir::InstructionData::Load {
                opcode: cranelift_codegen::ir::Opcode::Load,
                offset,
                arg,
                ..
            } = dfg.insts[inst]
            {
                if let Some(f) = dfg.insts[inst].memflags_data(dfg) {
                    if f.readonly() && f.can_move() {
                        return self.b.ins().load(fty(bits), f, arg, offset);
                    }
                }
            }
        }
        self.b.ins().bitcast(fty(bits), le(), x)
    }

    fn as_i(&mut self, bits: u32, x: Value) -> Value {
        self.b.ins().bitcast(vty(bits), le(), x)
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

    fn record(&mut self, op: &Op, v: JV) {
        let src = match (op, &v) {
            (Op::Broadcast(a), JV::V(_)) => self.s(*a).ok(),
            _ => None,
        };
        self.vals.push(v);
        self.splat_src.push(src);
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

    fn need(ty: Option<Ty>) -> GenResult<Ty> {
        ty.ok_or_else(|| "op has a result but no type".to_string())
    }

    /// Emits op `i` (its value, or [`JV::None`]) by its class.
    fn op(&mut self, i: usize, op: &Op, ty: Option<Ty>) -> GenResult<JV> {
        if self.group.is_none() {
            self.cur_op = self.cur_op.max(i);
        }
        if let Some(v) = self.ftz_flushed(i)? {
            return Ok(v);
        }
        if may_leave(op) {
            self.flush_counts();
        }
        match op {
            Op::Const { bits, .. } => {
                let t = Self::need(ty)?;
                if t.is_vector() {
                    return Err("vector Const".into());
                }
                Ok(JV::S(
                    self.iconst(sty(t.bits()), sem::trunc_to(t.bits(), *bits)),
                ))
            }
            Op::Un(u, a) => self.un(*u, *a, Self::need(ty)?),
            Op::Bin(o, a, b) => self.bin(*o, *a, *b, Self::need(ty)?),
            Op::Tern(o, a, b, c) => self.tern(*o, *a, *b, *c, Self::need(ty)?),
            Op::Cmp(c, a, b) => self.cmp(*c, *a, *b),
            // A half of a pair built from two values is that value (the f64 value of two
            // VGPRs written back to them: no shuffles out and back; the SGPR of a pair
            // whose other half changes: the same value in every iteration).
            Op::Conv(c @ (ConvOp::Lo | ConvOp::Hi), a)
                if matches!(self.block.ops.get(a.0 as usize), Some(Op::Pack { .. })) =>
            {
                let half = match self.block.ops.get(a.0 as usize) {
                    Some(Op::Pack { lo, hi }) if self.ty(*lo).ok() == ty => {
                        Some(if *c == ConvOp::Lo { *lo } else { *hi })
                    }
                    _ => None,
                };
                // In a lane group, only a half the group has (a value from before the run
                // is prepared for it only when the run's ops read it).
                let nch = self.nch(32);
                let ready = |g: &Self, h: Val| match g.vals.get(h.0 as usize) {
                    Some(JV::S(_) | JV::Row(_)) => true,
                    Some(JV::V(x)) => g.group.is_none() || x.len() == nch,
                    Some(JV::Buf(_)) => g.group.is_none(),
                    _ => false,
                };
                match half {
                    Some(h) if ready(self, h) => match self.get(h)? {
                        JV::S(x) => Ok(JV::S(*x)),
                        _ => Ok(JV::V(self.v(h)?)),
                    },
                    _ => self.conv(*c, *a, Self::need(ty)?),
                }
            }
            Op::Conv(c, a) => self.conv(*c, *a, Self::need(ty)?),
            Op::LaneConst(_)
            | Op::LaneId
            | Op::Select { .. }
            | Op::Broadcast(_)
            | Op::Pack { .. }
            | Op::ReadLane { .. }
            | Op::WriteLane { .. }
            | Op::Gather { .. }
            | Op::MaskToLanes(_)
            | Op::Lane { .. } => self.lane_op(op, ty),
            Op::GetSgpr(_)
            | Op::SetSgpr(..)
            | Op::GetVgpr(_)
            | Op::SetVgpr { .. }
            | Op::GetVgprDyn { .. }
            | Op::SetVgprDyn { .. }
            | Op::GetScc
            | Op::SetScc(_)
            | Op::GetMode
            | Op::SetMode(_) => self.state_op(i, op),
            Op::Load { .. } => self.load(i, op, ty),
            Op::Store { .. } => self.store(i, op),
            Op::Atomic { .. } => self.atomic(i, op, ty),
            Op::SLoad { .. } | Op::SStore { .. } => self.scalar_mem(i, op),
            Op::Clock
            | Op::InstCount
            | Op::BarrierState
            | Op::CountVector { .. }
            | Op::CountRegion { .. } => self.counter_op(op),
            Op::Matrix(_) => self.matrix(i, op),
        }
    }
}
