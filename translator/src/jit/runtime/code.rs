//! The JIT's code memory and the call into generated code: the [`Holder`] owning the
//! Cranelift module (unmapping it when the last compiled block is gone) and the entry
//! trampoline through which [`enter`] runs a compiled block.

use super::helpers::JitCtx;
use crate::jit::CompiledBlock;
use crate::wave::WaveState;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Type};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{Module, ModuleReloc};
use std::mem::ManuallyDrop;
use std::sync::Mutex;

/// The entry trampoline: a System V function calling the block code (third argument, in
/// Cranelift's `tail` convention, so blocks can tail-call their successors) with the state
/// and context.
pub(in crate::jit) type EntryFn =
    unsafe extern "C" fn(*mut WaveState, *mut JitCtx<'_>, *const u8) -> u32;

/// The module of a [`Holder`] (used under its lock).
pub(in crate::jit) struct Inner {
    /// Taken (and its code memory freed) only when the [`Holder`] drops.
    pub module: ManuallyDrop<JITModule>,
}

/// Owner of the generated code. Compiled blocks keep it alive, so their code stays mapped.
pub(in crate::jit) struct Holder {
    /// The module, locked while a compiled block's code is placed in its memory.
    pub inner: Mutex<Inner>,
    /// The entry trampoline (compiled into the module when it is created).
    pub entry: EntryFn,
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

impl Holder {
    /// The holder of `module`, with the entry trampoline compiled into it.
    pub(in crate::jit) fn new(mut module: JITModule) -> Result<Holder, String> {
        let mut fctx = FunctionBuilderContext::new();
        let entry = Self::entry_trampoline(&mut module, &mut fctx)?;
        Ok(Holder {
            inner: Mutex::new(Inner {
                module: ManuallyDrop::new(module),
            }),
            entry,
        })
    }

    /// The signature of block code: `(state, ctx) -> exit code` in the `tail` convention
    /// (`pointer`: the host's pointer type, 64 bits).
    pub(in crate::jit) fn block_sig(pointer: Type) -> cranelift_codegen::ir::Signature {
        let mut sig = cranelift_codegen::ir::Signature::new(CallConv::Tail);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I32));
        debug_assert_eq!(pointer, types::I64);
        sig
    }

    /// Places the code `ctx` holds (compiled by [`cranelift_codegen::Context::compile`],
    /// outside the lock, for any code generator of this host) in the module's executable
    /// memory; returns its address.
    pub(in crate::jit) fn place(&self, ctx: &cranelift_codegen::Context) -> Result<usize, String> {
        let compiled = ctx
            .compiled_code()
            .ok_or_else(|| "no compiled code to place".to_string())?;
        let mut inner = self
            .inner
            .lock()
            .map_err(|_| "JIT lock poisoned".to_string())?;
        let module = &mut *inner.module;
        let id = module
            .declare_anonymous_function(&ctx.func.signature)
            .map_err(|e| e.to_string())?;
        let relocs: Vec<ModuleReloc> = compiled
            .buffer
            .relocs()
            .iter()
            .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, id))
            .collect();
        module
            .define_function_bytes(
                id,
                u64::from(compiled.buffer.alignment),
                compiled.code_buffer(),
                &relocs,
            )
            .map_err(|e| e.to_string())?;
        module.finalize_definitions().map_err(|e| e.to_string())?;
        Ok(module.get_finalized_function(id) as usize)
    }

    /// Compiles [`EntryFn`]: `(state, ctx, code) -> code(state, ctx)`, from the host's C
    /// convention into the blocks' `tail` convention.
    fn entry_trampoline(
        module: &mut JITModule,
        fctx: &mut FunctionBuilderContext,
    ) -> Result<EntryFn, String> {
        let ptr = types::I64;
        let mut sig = module.make_signature();
        sig.params
            .extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(ptr)]);
        sig.returns.push(AbiParam::new(types::I32));
        let fid = module
            .declare_anonymous_function(&sig)
            .map_err(|e| e.to_string())?;
        let mut ctx = module.make_context();
        ctx.func.signature = sig;
        {
            let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
            let blk = b.create_block();
            b.append_block_params_for_function_params(blk);
            b.switch_to_block(blk);
            b.seal_block(blk);
            let p = b.block_params(blk).to_vec();
            let sigref = b.import_signature(Holder::block_sig(module.isa().pointer_type()));
            let call = b.ins().call_indirect(sigref, p[2], &[p[0], p[1]]);
            let r = b.inst_results(call)[0];
            b.ins().return_(&[r]);
            b.finalize(module.isa().frontend_config());
        }
        module
            .define_function(fid, &mut ctx)
            .map_err(|e| format!("{e:?}"))?;
        module.clear_context(&mut ctx);
        module.finalize_definitions().map_err(|e| e.to_string())?;
        let code = module.get_finalized_function(fid);
        // SAFETY: `code` is the finalized entry of the function just defined with exactly
        // the signature of `EntryFn` (three pointers in, u32 out, the host C convention).
        Ok(unsafe { std::mem::transmute::<*const u8, EntryFn>(code) })
    }
}

/// Runs `block`'s code on `state` with the context `ctx`; returns its exit code.
#[inline]
pub(in crate::jit) fn enter(
    block: &CompiledBlock,
    state: &mut WaveState,
    ctx: &mut JitCtx<'_>,
) -> u32 {
    // SAFETY: `entry` calls `code`, which was compiled for exactly the block ABI, and
    // both live in the module kept alive by `_holder`; `state` is a valid exclusive
    // WaveState (the generated code only touches offsets inside it, checked at compile
    // time or, for dynamic VGPR indices, at run time), `ctx` lives across the call. A
    // linked successor's code lies in the same module (links are only made between
    // blocks of one translator, whose `Jit` compiled them all) and its `CompiledBlock`
    // (which keeps its matrix instructions alive) lives in the translator's block
    // cache as long as the translator, which runs this call.
    unsafe {
        (block.entry)(
            state as *mut WaveState,
            ctx as *mut JitCtx<'_>,
            block.code as *const u8,
        )
    }
}
