//! IR → Cranelift → host code.
//!
//! [`Jit::compile`] turns one IR [`Block`] into a host function
//! `extern "C" fn(state: *mut WaveState, ctx: *mut JitCtx) -> u32` (an [`ExitCode`]), and
//! [`CompiledBlock::run`] calls it with the same contract as [`crate::interp::run_block`]: the
//! results are bit-identical to the interpreter's (checked by the differential tests).
//! Code generation (lane-group loop form and straight-line form) is in `codegen.rs`; the
//! helper-call ABI in [`helpers`].

mod codegen;
pub mod codes;
pub mod helpers;
pub mod memory;
mod typecheck;
mod uniform;

use crate::env::{ExecFault, ExitCode, WaveEnv};
use crate::ir::{Block, Exit};
use crate::wave::WaveState;
use cranelift_codegen::ir::{types, AbiParam};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;
use helpers::JitCtx;
use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex};

type BlockFn = unsafe extern "C" fn(*mut WaveState, *mut JitCtx<'_>) -> u32;

struct Inner {
    /// Taken (and its code memory freed) only when the [`Holder`] drops.
    module: ManuallyDrop<JITModule>,
    fctx: FunctionBuilderContext,
}

/// Owner of the generated code. Compiled blocks keep it alive, so their code stays mapped.
struct Holder {
    inner: Mutex<Inner>,
}

impl Drop for Holder {
    /// Unmaps the generated code: a dropped `JITModule` keeps its code and data memory
    /// mapped for ever (every translator of every launch leaked its blocks' code).
    fn drop(&mut self) {
        let inner = match self.inner.get_mut() {
            Ok(i) => i,
            Err(poisoned) => poisoned.into_inner(),
        };
        // SAFETY: `module` is taken exactly once, here, and never used again. The holder is
        // dropped only when no `Jit` and no `CompiledBlock` refer to it any more (both hold
        // an `Arc<Holder>`), and the compiled function pointers live only inside
        // `CompiledBlock`s, so no pointer into the freed memory remains.
        unsafe {
            let module = ManuallyDrop::take(&mut inner.module);
            module.free_memory();
        }
    }
}

// SAFETY: `JITModule` holds raw pointers to the code and data it mapped; they are only
// touched under the mutex (compilation) or read-only through finalized function pointers,
// which are plain immutable machine code valid from any thread.
unsafe impl Send for Holder {}
// SAFETY: as above; all mutation goes through the `Mutex`.
unsafe impl Sync for Holder {}

/// The Cranelift JIT for IR blocks. Cheap to clone (shares the code memory).
#[derive(Clone)]
pub struct Jit {
    holder: Arc<Holder>,
    /// Try the lane-group loop form first (else always the straight-line form).
    loop_form: bool,
}

/// A compiled block: host code plus what is needed to report its exit.
pub struct CompiledBlock {
    func: BlockFn,
    /// Reason text when the block ends in [`Exit::Unsupported`].
    unsupported: Option<String>,
    /// Compiled in the lane-group loop form.
    grouped: bool,
    /// Matrix instructions the code points to.
    _matrix: Vec<Arc<crate::ir::MatrixCall>>,
    _holder: Arc<Holder>,
}

impl std::fmt::Debug for CompiledBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledBlock").finish_non_exhaustive()
    }
}

impl Jit {
    /// A JIT for the host CPU (all its SIMD features), optimising for speed.
    pub fn new() -> Result<Jit, String> {
        let mut flags = settings::builder();
        flags.set("opt_level", "speed").map_err(|e| e.to_string())?;
        flags
            .set("use_colocated_libcalls", "false")
            .map_err(|e| e.to_string())?;
        flags.set("is_pic", "false").map_err(|e| e.to_string())?;
        let isa_builder = cranelift_native::builder().map_err(|e| e.to_string())?;
        let isa = isa_builder
            .finish(settings::Flags::new(flags))
            .map_err(|e| e.to_string())?;
        let builder = JITBuilder::with_isa(isa, cranelift_module::default_libcall_names());
        let module = JITModule::new(builder);
        Ok(Jit {
            holder: Arc::new(Holder {
                inner: Mutex::new(Inner {
                    module: ManuallyDrop::new(module),
                    fctx: FunctionBuilderContext::new(),
                }),
            }),
            loop_form: true,
        })
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
        crate::ir::verify(block).map_err(|e| e.to_string())?;
        typecheck::typecheck(block)?;
        // Uniform chains folded to scalars first (`uniform`); the block as lifted when the
        // folded one fails a check or does not compile.
        let folded = uniform::fold(block)
            .filter(|b| crate::ir::verify(b).is_ok() && typecheck::typecheck(b).is_ok());
        let mut guard = self
            .holder
            .inner
            .lock()
            .map_err(|_| "JIT lock poisoned".to_string())?;
        let inner = &mut *guard;
        let module: &mut JITModule = &mut inner.module;
        let ptr = types::I64;
        let mut sig = module.make_signature();
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(ptr));
        sig.returns.push(AbiParam::new(types::I32));
        let call_conv = sig.call_conv;
        let frontend = module.isa().frontend_config();
        // The lane-group loop form first; the straight-line form when the block does not
        // qualify (or, defensively, when Cranelift rejects the loop form).
        let mut last_err = String::new();
        let mut id = None;
        let mut grouped = false;
        let mut matrix = Vec::new();
        let mut code_size = 0u32;
        let forms = folded
            .iter()
            .chain(std::iter::once(block))
            .flat_map(|b| [(b, true), (b, false)]);
        for (blk, try_loop) in forms {
            if try_loop && !self.loop_form {
                continue;
            }
            let fid = module
                .declare_anonymous_function(&sig)
                .map_err(|e| e.to_string())?;
            let mut ctx = module.make_context();
            ctx.func.signature = sig.clone();
            inner.fctx = FunctionBuilderContext::new();
            let built = {
                let fb = FunctionBuilder::new(&mut ctx.func, &mut inner.fctx);
                let mut g = codegen::Gen::new(fb, blk, call_conv, frontend);
                g.try_loop = try_loop;
                g.emit()
            };
            let r = built.and_then(|keep| {
                module
                    .define_function(fid, &mut ctx)
                    .map_err(|e| format!("{e:?}"))
                    .map(|_| keep)
            });
            if r.is_ok() {
                code_size = ctx
                    .compiled_code()
                    .map(|c| c.code_info().total_size)
                    .unwrap_or(0);
            }
            module.clear_context(&mut ctx);
            match r {
                Ok(keep) => {
                    matrix = keep;
                    id = Some(fid);
                    grouped = try_loop;
                    break;
                }
                Err(e) => last_err = e,
            }
        }
        let id = id.ok_or(last_err)?;
        module.finalize_definitions().map_err(|e| e.to_string())?;
        let code = module.get_finalized_function(id);
        if let Some(map) = perf_map() {
            map.record(code as usize, code_size, block.start_pc, block.end_pc);
        }
        // SAFETY: `code` is the finalized entry of a function we just defined with exactly
        // the signature of `BlockFn` (two pointers in, u32 out, default call convention).
        let func: BlockFn = unsafe { std::mem::transmute::<*const u8, BlockFn>(code) };
        let unsupported = match &block.exit {
            Exit::Unsupported { reason, .. } | Exit::Illegal { reason, .. } => Some(reason.clone()),
            _ => None,
        };
        Ok(CompiledBlock {
            func,
            unsupported,
            grouped,
            _matrix: matrix,
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

fn perf_map() -> Option<&'static PerfMap> {
    static MAP: std::sync::OnceLock<Option<PerfMap>> = std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        std::env::var_os("WAVEJIT_PERF_MAP")?;
        let path = format!("/tmp/perf-{}.map", std::process::id());
        let file = std::fs::File::create(path).ok()?;
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

    /// Runs the block on `state`, with [`crate::interp::run_block`]'s contract, except that a
    /// block exiting to its own start runs again up to [`WaveState::self_loops`] times
    /// (counted down; 0, the default, gives exactly one run).
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
        let mut ctx = JitCtx::new(env);
        let r = self.call(state, &mut ctx);
        (r, ctx.mem_helper_calls)
    }

    fn call(&self, state: &mut WaveState, ctx: &mut JitCtx<'_>) -> Result<ExitCode, ExecFault> {
        // SAFETY: `func` was compiled for exactly this ABI; `state` is a valid exclusive
        // WaveState (the generated code only touches offsets inside it, checked at compile
        // time or, for dynamic VGPR indices, at run time), `ctx` lives across the call, and
        // the code memory is kept alive by `_holder`.
        let code = unsafe { (self.func)(state as *mut WaveState, ctx as *mut JitCtx<'_>) };
        if code == codegen::EXIT_UNSUPPORTED {
            return Err(ExecFault::Unsupported(
                self.unsupported.clone().unwrap_or_default(),
            ));
        }
        if code == codegen::EXIT_ILLEGAL {
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
