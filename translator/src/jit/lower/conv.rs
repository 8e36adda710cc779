//! Conversions (`Conv`).

use super::{le, Gen, GenResult, I32X4, JV};
use crate::interp::sem;
use crate::ir::{ConvOp, Ty, Val};
use crate::jit::codes::*;
use crate::jit::helpers::kind;
use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder};

impl Gen<'_, '_> {
    pub(super) fn conv(&mut self, c: ConvOp, a: Val, t: Ty) -> GenResult<JV> {
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
