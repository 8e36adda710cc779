//! Calls of the runtime helpers ([`crate::jit::helpers`]) from generated code: the call
//! itself and the generic vector and scalar fallbacks of ops the lowering does not inline.

use super::{Gen, GenResult, JV};
use crate::ir::Val;
use crate::jit::helpers;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, Signature, Type, Value};

impl Gen<'_, '_> {
    pub(super) fn sig(&self, params: &[Type], ret: Option<Type>) -> Signature {
        let mut s = Signature::new(self.call_conv);
        s.params.extend(params.iter().map(|t| AbiParam::new(*t)));
        if let Some(r) = ret {
            s.returns.push(AbiParam::new(r));
        }
        s
    }

    /// Calls the helper at `f` with the given argument values (under the caller's MXCSR
    /// when the code runs under another float environment, [`super::fenv`]).
    pub(super) fn call(
        &mut self,
        f: usize,
        params: &[Type],
        ret: Option<Type>,
        args: &[Value],
    ) -> Option<Value> {
        self.before_call(f);
        let sig = self.sig(params, ret);
        let sigref = self.b.import_signature(sig);
        let callee = self.iconst(types::I64, f as u64);
        let env = self.fenv_bits();
        if env != 0 {
            self.fenv_leave();
        }
        let inst = self.b.ins().call_indirect(sigref, callee, args);
        let r = self.b.inst_results(inst).first().copied();
        if env != 0 {
            self.fenv_enter(env);
        }
        r
    }

    /// Generic vector fallback through [`helpers::h_vector`].
    pub(super) fn vec_helper(
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
    pub(super) fn scalar_helper(
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
}
