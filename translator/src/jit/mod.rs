//! IR → Cranelift → host code.
//!
//! [`Jit::compile`] turns one IR [`Block`] into a host function
//! `fn(state: *mut WaveState, ctx: *mut JitCtx) -> u32` (an [`ExitCode`]) in Cranelift's
//! `tail` calling convention, called through a System V entry trampoline, so that a block
//! can continue in a linked successor by a tail call ([`Links`]). [`CompiledBlock::run`]
//! calls it with the same contract as [`crate::interp::run_block`]: the results are
//! bit-identical to the interpreter's (checked by the differential tests).
//!
//! The pipeline: `analysis` finds the facts about a block that decide its lowering (runs
//! of lane-local ops, memory access shapes, fused matrix units; no Cranelift in it),
//! `lower` emits the Cranelift function (lane-group loop form and straight-line form, by
//! class of op), and `runtime` holds what the generated code runs with: the code memory and
//! the call into it, the [`helpers`] it calls (with [`helpers::JitCtx`], the helper-call
//! ABI) and their direct [`memory`] path. All of the JIT's `unsafe` is in `runtime`.

#![deny(unsafe_code)]

mod analysis;
pub mod codes;
mod lower;
mod runtime;

use crate::env::{ExecFault, ExitCode, WaveEnv};
use crate::ir::passes::forward::Forwarding;
use crate::ir::{Block, Exit};
use crate::wave::{RegSet, WaveState};
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use helpers::JitCtx;
pub use lower::{host_round, lanefn_cold_lanes, rounded_cold_lanes};
use runtime::code::{EntryFn, Holder};
pub use runtime::{helpers, memory, mxcsr};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Attempts to link a successor slot before giving up on it (a successor that never
/// compiles, or is never eligible, stops costing the run loop anything after this). More
/// than the runs a block takes to reach its last tier under the default
/// [`crate::tier::TierPolicy`] (2052 for wave32), so a successor on quick code is still
/// linked once optimised.
const LINK_TRIES: u32 = 4096;

/// The successor links of one compiled block: for its jump (or taken-branch) target and
/// its not-taken target, the code address of the compiled block there (0: not linked;
/// generated code reads it atomically and tail-calls the code when set), and how many times
/// the run loop tried to link it.
pub struct Links {
    code: [AtomicU64; 2],
    tries: [AtomicU32; 2],
    /// The block's global window hints (`lower::memory`), kept with its code.
    hints: lower::WindowHints,
}

/// The Cranelift JIT for IR blocks. Cheap to clone (shares the code memory). Blocks compile
/// in parallel on any number of threads: only placing finished code in the shared code
/// memory takes a lock.
#[derive(Clone)]
pub struct Jit {
    holder: Arc<Holder>,
    /// The code generator of [`Tier::Optimised`].
    optimised: OwnedTargetIsa,
    /// The code generator of [`Tier::Quick`].
    quick: OwnedTargetIsa,
    /// Try the lane-group loop form first (else always the straight-line form).
    loop_form: bool,
    /// Try the iterated form for blocks looping to themselves ([`Jit::with_iterated_loops`]).
    iterated_loops: bool,
}

/// How much work Cranelift puts into a block's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Compile time first: no IR optimisation (`opt_level=none`), single-pass register
    /// allocation, one copy of each lane-group loop and the NaN rule without branches
    /// (`lower`), and no loop inside the code: an exit to the block's own start returns to
    /// the run loop. About five times cheaper to compile than [`Tier::Optimised`] on long
    /// blocks, and several times slower to run: for blocks that run a few times, or until
    /// they prove hot ([`crate::tier`]).
    Quick,
    /// The fastest code: Cranelift's optimiser (`opt_level=speed`) and its backtracking
    /// register allocator.
    Optimised,
}

/// The Cranelift code generator for the host CPU (all its SIMD features) at `tier`.
fn host_isa(tier: Tier) -> Result<OwnedTargetIsa, String> {
    let mut flags = settings::builder();
    let (opt_level, regalloc) = match tier {
        Tier::Quick => ("none", "single_pass"),
        Tier::Optimised => ("speed", "backtracking"),
    };
    let mut set = |name: &str, value: &str| flags.set(name, value).map_err(|e| e.to_string());
    set("opt_level", opt_level)?;
    set("regalloc_algorithm", regalloc)?;
    set("use_colocated_libcalls", "false")?;
    set("is_pic", "false")?;
    // Cranelift's IR verifier on every function costs cold start a good share of the
    // compile time; the code generator's output is verified in debug builds (all the tests)
    // only.
    set(
        "enable_verifier",
        if cfg!(debug_assertions) {
            "true"
        } else {
            "false"
        },
    )?;
    // Cranelift's tail calls (block chaining) need frame pointers.
    set("preserve_frame_pointers", "true")?;
    cranelift_native::builder()
        .map_err(|e| e.to_string())?
        .finish(settings::Flags::new(flags))
        .map_err(|e| e.to_string())
}

impl Links {
    /// Links `slot` to `next`'s code (tail-called by the block's exit from now on).
    /// `next` must have been compiled by the same [`Jit`] as the block owning these links,
    /// for the MODE and wave size that block runs with, and be a chain target
    /// ([`CompiledBlock::is_chain_target`]).
    pub fn link(&self, slot: usize, next: &CompiledBlock) {
        if let Some(c) = self.code.get(slot) {
            c.store(next.code as u64, Ordering::Release);
        }
    }
}

/// A compiled block: host code plus what is needed to report its exit.
pub struct CompiledBlock {
    /// The block's code (`tail` calling convention; called through the holder's entry).
    code: usize,
    entry: EntryFn,
    /// Instructions the block charges to [`WaveState::credit`].
    cost: u64,
    /// The static successors (jump or taken target, not-taken target) the block may be
    /// linked to; `None` where it never chains (its own start, indirect jumps, program
    /// ends, blocks that write MODE).
    targets: [Option<u64>; 2],
    links: Arc<Links>,
    /// The block writes MODE (so it is never chained to, nor from).
    writes_mode: bool,
    /// Reason text when the block ends in [`Exit::Unsupported`].
    unsupported: Option<String>,
    /// Compiled in the lane-group loop form.
    grouped: bool,
    /// Compiled in the iterated form (`lower::iterated`).
    iterated: bool,
    /// Multi-dword accesses compiled as one (`lower::memory::multi`).
    multi: u32,
    /// The registers the code may write ([`CompiledBlock::writes`]).
    writes: RegSet,
    /// Set once `writes` has been added to the translator's set ([`CompiledBlock::writes`]).
    writes_published: AtomicBool,
    _holder: Arc<Holder>,
}

impl std::fmt::Debug for CompiledBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledBlock").finish_non_exhaustive()
    }
}

impl Jit {
    /// A JIT for the host CPU (all its SIMD features), optimising for speed (and, for
    /// [`Tier::Quick`], for compile time).
    pub fn new() -> Result<Jit, String> {
        let optimised = host_isa(Tier::Optimised)?;
        let quick = host_isa(Tier::Quick)?;
        let builder =
            JITBuilder::with_isa(optimised.clone(), cranelift_module::default_libcall_names());
        let module = JITModule::new(builder);
        Ok(Jit {
            holder: Arc::new(Holder::new(module)?),
            optimised,
            quick,
            loop_form: true,
            iterated_loops: true,
        })
    }

    /// This JIT trying the iterated form (`lower::iterated`) for blocks that loop to
    /// themselves, or not. On by default: it runs fewer host instructions than the
    /// lane-group form, two lane groups per trip so that their dependency chains overlap.
    pub fn with_iterated_loops(mut self, on: bool) -> Jit {
        self.iterated_loops = on;
        self
    }

    /// This JIT compiling every block in the straight-line form, never the lane-group loop
    /// form (for differential tests of the two forms).
    pub fn without_loop_form(mut self) -> Jit {
        self.loop_form = false;
        self
    }

    /// Compiles `block`. An error means the block cannot be compiled (malformed IR, or an op
    /// the code generator rejects); the caller keeps interpreting it.
    pub fn compile(&self, block: &Block) -> Result<CompiledBlock, String> {
        self.compile_at(block, Tier::Optimised)
    }

    /// Compiles `block` at `tier` (see [`Jit::compile`]). Any number of threads may compile
    /// at once; the shared code memory is locked only to place the finished code.
    pub fn compile_at(&self, block: &Block, tier: Tier) -> Result<CompiledBlock, String> {
        self.compile_with(block, tier, Forwarding::default())
    }

    /// Compiles `block` at `tier` ([`Jit::compile_at`]) knowing `how` its register writes may
    /// be treated ([`Forwarding`]: e.g. that nothing reads the wave's registers after it ends).
    pub fn compile_with(
        &self,
        block: &Block,
        tier: Tier,
        how: Forwarding,
    ) -> Result<CompiledBlock, String> {
        crate::ir::verify(block).map_err(|e| e.to_string())?;
        // Register reads of values the block wrote forwarded (`ir::passes::forward`).
        let forwarded = crate::ir::passes::forward::forward(block, how)
            .filter(|b| crate::ir::verify(b).is_ok());
        let lifted = block;
        let block = forwarded.as_ref().unwrap_or(block);
        // Denormal flushes as bit operations (`ir::passes::flush`), then uniform chains
        // folded to scalars (`ir::passes::uniform`); the block as lifted when a rewritten
        // one fails verification or does not compile.
        let flushed =
            crate::ir::passes::flush::rewrite(block).filter(|b| crate::ir::verify(b).is_ok());
        let base = flushed.as_ref().unwrap_or(block);
        let folded = crate::ir::passes::uniform::fold(base)
            .filter(|b| crate::ir::verify(b).is_ok())
            .or(flushed.clone());
        let isa = match tier {
            Tier::Quick => &self.quick,
            Tier::Optimised => &self.optimised,
        };
        let sig = Holder::block_sig(isa.pointer_type());
        // Helpers are called in the host's C convention.
        let call_conv = isa.default_call_conv();
        // Chaining: blocks ending in a static jump or branch, unless they write MODE (the
        // successor's code is the one compiled for the MODE the block started with).
        let links = Arc::new(Links {
            code: [AtomicU64::new(0), AtomicU64::new(0)],
            tries: [AtomicU32::new(0), AtomicU32::new(0)],
            hints: lower::WindowHints::new(),
        });
        let writes_mode = block
            .ops
            .iter()
            .any(|o| matches!(o, crate::ir::Op::SetMode(_)));
        let start = block.start_pc;
        let targets = match block.exit {
            _ if writes_mode => [None, None],
            Exit::Jump(t) => [Some(t), None],
            // Both ways to one target: one link (`lower` uses the first cell for both).
            Exit::Branch {
                taken, not_taken, ..
            } if taken == not_taken => [Some(taken), None],
            Exit::Branch {
                taken, not_taken, ..
            } => [Some(taken), Some(not_taken)],
            _ => [None, None],
        }
        .map(|t| t.filter(|&t| t != start));
        let links_addr = (targets != [None, None]).then(|| links.code.as_ptr() as usize);
        let frontend = isa.frontend_config();
        // The lane-group loop form first; the straight-line form when the block does not
        // qualify (or, defensively, when Cranelift rejects the loop form).
        let mut last_err = String::new();
        let mut code = None;
        let mut grouped = false;
        let mut multi = 0;
        let mut writes = RegSet::default();
        let mut code_size = 0u32;
        let mut dump_text = None;
        // A block looping to itself in a flushing MODE continues round a version without
        // the input flushes of registers that hold no denormals (`flush::loop_variant`);
        // used with the rewritten block only.
        // Quick code leaves at every exit to its own start (below), so it has no use for it.
        let variant = (tier == Tier::Optimised)
            .then(|| crate::ir::passes::flush::loop_variant(block))
            .flatten()
            .map(|mut v| {
                if let Some(f) = crate::ir::passes::uniform::fold(&v.block)
                    .filter(|f| crate::ir::verify(f).is_ok())
                {
                    v.block = f;
                }
                v
            })
            .filter(|v| crate::ir::verify(&v.block).is_ok());
        // The block as lifted keeps its lane-group form when the forwarded one has none.
        let unforwarded = forwarded.as_ref().map(|_| (lifted, true));
        let forms: Vec<(&Block, bool)> = folded
            .iter()
            .chain(std::iter::once(block))
            .flat_map(|b| [(b, true), (b, false)])
            .flat_map(|f| {
                if f.1 || !std::ptr::eq(f.0, block) {
                    vec![f]
                } else {
                    unforwarded.into_iter().chain(std::iter::once(f)).collect()
                }
            })
            .collect();
        // A block looping to itself first tries the iterated form (`lower::iterated`) when
        // enabled, in the optimised tier (with a loop variant, the variant's).
        let iterated: Vec<(&Block, lower::Form)> = if self.iterated_loops && tier == Tier::Optimised
        {
            folded
                .iter()
                .chain(std::iter::once(block))
                .map(|b| (b, lower::Form::Iterated))
                .collect()
        } else {
            Vec::new()
        };
        let forms = iterated.into_iter().chain(forms.into_iter().map(|(b, l)| {
            let form = if l {
                lower::Form::LaneGroups
            } else {
                lower::Form::StraightLine
            };
            (b, form)
        }));
        let mut iterated_form = false;
        for (blk, form) in forms {
            let try_loop = form != lower::Form::StraightLine;
            if try_loop && !self.loop_form {
                continue;
            }
            let mut ctx = cranelift_codegen::Context::new();
            ctx.func.signature = sig.clone();
            let mut fctx = FunctionBuilderContext::new();
            let built = {
                let fb = FunctionBuilder::new(&mut ctx.func, &mut fctx);
                let g = lower::Gen::new(fb, blk, call_conv, frontend, links_addr)
                    .with_window_hints(&links.hints);
                // Quick code runs a few hundred times at most: one copy of each lane-group
                // loop halves what Cranelift compiles. Its exits to the block's own start
                // pass the run loop, which counts each as a run (`tier`).
                let g = match tier {
                    Tier::Quick => g.with_one_loop_copy().without_self_loops(),
                    Tier::Optimised => g,
                };
                match &variant {
                    Some(v) if !std::ptr::eq(blk, block) && !std::ptr::eq(blk, lifted) => {
                        g.with_loop_variant(v)
                    }
                    _ => g,
                }
                .emit(form)
            };
            let dump = jit_dump();
            if dump.is_some() {
                ctx.set_disasm(true);
            }
            // Cranelift's work, outside any lock; then the code is placed in the module.
            let r = built.and_then(|n| {
                ctx.compile(&**isa, &mut ControlPlane::default())
                    .map_err(|e| format!("{:?}", e.inner))?;
                Ok((n, self.holder.place(&ctx)?))
            });
            if r.is_ok() {
                code_size = ctx
                    .compiled_code()
                    .map(|c| c.code_info().total_size)
                    .unwrap_or(0);
                if dump.is_some() {
                    let vcode = ctx.compiled_code().and_then(|c| c.vcode.clone());
                    let bytes = ctx.compiled_code().map(|c| c.code_buffer().to_vec());
                    let loop_variant = match &variant {
                        Some(v) if !std::ptr::eq(blk, block) && !std::ptr::eq(blk, lifted) => {
                            format!(
                                "---- loop variant (f32 v{:?} s{:?}, f64 pairs v{:?} s{:?} denormal-free{})\n{}\n",
                                v.regs,
                                v.sregs,
                                v.pairs,
                                v.spairs,
                                if crate::ir::passes::flush::ftz_ready(&v.block) {
                                    "; host FTZ"
                                } else {
                                    ""
                                },
                                v.block
                            )
                        }
                        _ => String::new(),
                    };
                    dump_text = Some((
                        format!("{blk}\n{loop_variant}---- clif\n{}", ctx.func.display()),
                        form,
                        vcode.unwrap_or_default(),
                        bytes.unwrap_or_default(),
                    ));
                }
            }
            match r {
                Ok((n, placed)) => {
                    writes = crate::exec::block_writes(blk);
                    if let Some(v) = variant
                        .as_ref()
                        .filter(|_| !std::ptr::eq(blk, block) && !std::ptr::eq(blk, lifted))
                    {
                        writes.add(&crate::exec::block_writes(&v.block));
                    }
                    multi = n;
                    code = Some(placed);
                    grouped = try_loop;
                    iterated_form = form == lower::Form::Iterated;
                    break;
                }
                Err(e) => last_err = e,
            }
        }
        let code = code.ok_or(last_err)?;
        if let Some(map) = perf_map() {
            map.record(code, code_size, block.start_pc, block.end_pc);
        }
        if let (Some(d), Some(t)) = (jit_dump(), dump_text) {
            d.record(code, block, t);
        }
        let unsupported = match &block.exit {
            Exit::Unsupported { reason, .. } | Exit::Illegal { reason, .. } => Some(reason.clone()),
            _ => None,
        };
        Ok(CompiledBlock {
            writes,
            writes_published: AtomicBool::new(false),
            code,
            entry: self.holder.entry,
            cost: u64::from(block.inst_count).max(1),
            targets,
            links,
            writes_mode,
            unsupported,
            grouped,
            iterated: iterated_form,
            multi,
            _holder: self.holder.clone(),
        })
    }
}

/// `/tmp/perf-<pid>.map` for `perf report`, written when the environment variable
/// `WAVEJIT_PERF_MAP` is set: one line per compiled block, named by its code addresses.
struct PerfMap {
    file: Mutex<std::fs::File>,
}

impl PerfMap {
    fn record(&self, addr: usize, size: u32, start_pc: u64, end_pc: u64) {
        use std::io::Write;
        if let Ok(mut f) = self.file.lock() {
            // Best effort: a profiling aid must never fail a compile.
            let _ = writeln!(f, "{addr:x} {size:x} block_{start_pc:x}_{end_pc:x}");
        }
    }
}

/// The code-generation dump written when the environment variable `WAVEJIT_JIT_DUMP`
/// names a file: per compiled block its IR, its optimised Cranelift IR, and the host code
/// as Cranelift's register-allocated listing (a debugging aid for the code generator).
struct JitDump {
    path: std::ffi::OsString,
    file: Mutex<std::fs::File>,
}

impl JitDump {
    /// Writes one block: its IR and Cranelift IR, the listing, and its code bytes to
    /// `<dump>.<address>.bin` (for `objdump -D -b binary -mi386:x86-64`, and to place
    /// `perf script` addresses).
    fn record(&self, addr: usize, blk: &Block, (text, form, vcode, bytes): DumpText) {
        use std::io::Write;
        let mut bin = self.path.clone();
        bin.push(format!(".{addr:x}.bin"));
        // Best effort, like the perf map.
        let _ = std::fs::write(bin, bytes);
        if let Ok(mut f) = self.file.lock() {
            let form = match form {
                lower::Form::LaneGroups => "lane-group",
                lower::Form::StraightLine => "straight-line",
                lower::Form::Iterated => "iterated",
            };
            let _ = writeln!(
                f,
                "==== block {:#x}..{:#x} at {addr:#x} ({form} form)\n{text}\n---- code\n{vcode}",
                blk.start_pc, blk.end_pc,
            );
        }
    }
}

/// What [`JitDump::record`] writes: IR and Cranelift IR text, the form, the listing, the
/// code bytes.
type DumpText = (String, lower::Form, String, Vec<u8>);

fn jit_dump() -> Option<&'static JitDump> {
    static DUMP: std::sync::OnceLock<Option<JitDump>> = std::sync::OnceLock::new();
    DUMP.get_or_init(|| {
        let path = std::env::var_os("WAVEJIT_JIT_DUMP")?;
        let file = std::fs::File::create(&path).ok()?;
        Some(JitDump {
            path,
            file: Mutex::new(file),
        })
    })
    .as_ref()
}

fn perf_map() -> Option<&'static PerfMap> {
    static MAP: std::sync::OnceLock<Option<PerfMap>> = std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        std::env::var_os("WAVEJIT_PERF_MAP")?;
        let path = format!("/tmp/perf-{}.map", std::process::id());
        let file = std::fs::File::create(&path).ok()?;
        Some(PerfMap {
            file: Mutex::new(file),
        })
    })
    .as_ref()
}

impl CompiledBlock {
    /// True when the block was compiled in the lane-group loop form (all vector work in one
    /// loop over groups of 4 lanes), false for the straight-line form.
    pub fn is_grouped(&self) -> bool {
        self.grouped
    }

    /// Whether the block was compiled in the iterated form: a block looping to itself, all
    /// its iterations run per lane group (`lower::iterated`).
    pub fn is_iterated(&self) -> bool {
        self.iterated
    }

    /// Runs the block once on `state`, with [`crate::interp::run_block`]'s contract (an
    /// exit to its own start returns `Continue`, and it never continues in a successor).
    pub fn run(&self, state: &mut WaveState, env: &mut dyn WaveEnv) -> Result<ExitCode, ExecFault> {
        self.run_counting(state, env).0
    }

    /// [`CompiledBlock::run`], also returning how many times the code called a memory
    /// helper (a vector load or store, or a scalar load, that did not take the inline path).
    pub fn run_counting(
        &self,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
    ) -> (Result<ExitCode, ExecFault>, u32) {
        // Exactly this block's credit: a loop back or a linked successor finds none and
        // returns `Continue` at its start.
        let saved = std::mem::replace(&mut state.credit, self.cost);
        let mut ctx = JitCtx::new(env);
        let r = self.call(state, &mut ctx);
        state.credit = saved;
        (r, ctx.mem_helper_calls)
    }

    /// Runs the block with the instruction credit in [`WaveState::credit`]: it loops to its
    /// own start and continues in linked successors ([`CompiledBlock::link_slot`]) while the
    /// credit lasts, each block charging its instructions; returns when a block exits
    /// otherwise, the credit is short at a block's start (`Continue` at that start), or the
    /// next block is not linked (`Continue` there).
    pub fn run_chained(
        &self,
        state: &mut WaveState,
        env: &mut dyn WaveEnv,
    ) -> Result<ExitCode, ExecFault> {
        let mut ctx = JitCtx::new(env);
        self.call(state, &mut ctx)
    }

    /// [`CompiledBlock::run_chained`] in two halves for a caller that inlines them (the
    /// run of many waves, [`crate::exec::FreshStart::run_waves`]): runs the code with the
    /// context `ctx` and returns its raw exit code, for [`CompiledBlock::exit_of`].
    #[inline]
    pub fn enter(&self, state: &mut WaveState, ctx: &mut JitCtx<'_>) -> u32 {
        runtime::code::enter(self, state, ctx)
    }

    /// How many multi-dword accesses (the dword loads or stores of one
    /// `global_load_dwordx4`, `ds_write_b128`, `ds_read2_b32`, ...) the code does as one:
    /// every lane's bytes tested first, loads written straight to their registers.
    pub fn multi_accesses(&self) -> u32 {
        self.multi
    }

    /// The register slots the code may write: those of the IR it was compiled from (after
    /// the JIT's own passes, so without the writes they removed), and whether its writes
    /// have been recorded elsewhere already (see [`crate::exec::Translator::registers_written`]:
    /// a caller records them, then marks them recorded with [`CompiledBlock::writes_recorded`],
    /// before the code first runs).
    pub fn writes(&self) -> (&RegSet, bool) {
        (&self.writes, self.writes_published.load(Ordering::Acquire))
    }

    /// Marks [`CompiledBlock::writes`] as recorded.
    pub fn writes_recorded(&self) {
        self.writes_published.store(true, Ordering::Release);
    }

    /// Instructions the block charges (its instruction count, at least 1).
    pub fn cost(&self) -> u64 {
        self.cost
    }

    /// When the block just exited to `pc` and may be linked to the block there but is not
    /// yet: the slot to link (with [`Links::link`]) once the successor's code is known.
    /// `None` when there is nothing to link, or after `LINK_TRIES` attempts.
    pub fn link_slot(&self, pc: u64) -> Option<(Arc<Links>, usize)> {
        let slot = self.targets.iter().position(|&t| t == Some(pc))?;
        if self.links.code[slot].load(Ordering::Relaxed) != 0 {
            return None;
        }
        let tries = self.links.tries[slot].fetch_add(1, Ordering::Relaxed);
        (tries < LINK_TRIES).then(|| (self.links.clone(), slot))
    }

    /// Whether other blocks may continue in this one by a tail call: every exit of it is
    /// reported by its exit code alone (not `Unsupported`/`Illegal`, whose reason text
    /// belongs to the block the run loop called), and it does not write MODE. So the
    /// blocks of a chain all run under the MODE of its first block, and a block continuing
    /// at one of its targets always continues in the block cached for that MODE.
    pub fn is_chain_target(&self) -> bool {
        self.unsupported.is_none() && !self.writes_mode
    }

    fn call(&self, state: &mut WaveState, ctx: &mut JitCtx<'_>) -> Result<ExitCode, ExecFault> {
        let code = runtime::code::enter(self, state, ctx);
        self.exit_of(code, ctx)
    }

    /// The result of the exit code `code` the block's code returned
    /// ([`CompiledBlock::enter`]) with the context `ctx`.
    pub fn exit_of(&self, code: u32, ctx: &mut JitCtx<'_>) -> Result<ExitCode, ExecFault> {
        if code == lower::EXIT_UNSUPPORTED {
            return Err(ExecFault::Unsupported(
                self.unsupported.clone().unwrap_or_default(),
            ));
        }
        if code == lower::EXIT_ILLEGAL {
            return Err(ExecFault::Illegal(
                self.unsupported.clone().unwrap_or_default(),
            ));
        }
        match ExitCode::from_u32(code) {
            Some(ExitCode::Fault) => Err(ctx
                .fault
                .take()
                .unwrap_or_else(|| ExecFault::Unsupported("JIT fault without a cause".into()))),
            Some(c) => Ok(c),
            None => Err(ExecFault::Unsupported(format!(
                "JIT returned bad exit code {code}"
            ))),
        }
    }
}
