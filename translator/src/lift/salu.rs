//! Scalar ALU: SOP1, SOP2, SOPK and SOPC (semantics per the ISA's SALU tables; SCC rules in
//! the comments).

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::ir::{BinOp, CmpOp, ConvOp, Exit, Op, TernOp, Ty, UnOp, Val};
use crate::isa::{Inst, Opnd};
use crate::wave::InstClass;

/// Hardware register id of MODE in `s_getreg`/`s_setreg` (`hwreg(HW_REG_MODE)`).
const HWREG_MODE: u32 = 1;

/// Lifts a SALU instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    // The fork/join branches (SOP2, SOPK, SOP1 encodings) are program control.
    match name {
        "s_cbranch_g_fork" | "s_cbranch_i_fork" => return super::control::fork(l, inst, name),
        "s_cbranch_join" => return super::control::join(l, inst),
        _ => {}
    }
    let flow = lift_inner(l, inst, name)?;
    Ok((InstClass::Salu, flow))
}

/// True when the mnemonic operates on 64-bit values (`_b64`, `_i64`, `_u64` as the last
/// type; `s_bcnt1_i32_b64` and friends read 64 bits but write 32).
fn wide(name: &str) -> bool {
    name.ends_with("64")
}

fn src(l: &mut Lifter, inst: &Inst, i: usize, k: K) -> R<Val> {
    let o = inst.src[i];
    if k.is64() {
        l.s64(o, k)
    } else {
        l.s32(o, k)
    }
}

fn dst(l: &mut Lifter, inst: &Inst, v: Val) -> R<()> {
    if l.ty(v).bits() == 64 {
        l.set_s64(inst.dst[0], v)
    } else {
        l.set_s32(inst.dst[0], v)
    }
}

/// The SOPK register operand (LLVM prints it first; it may be a source or a destination).
fn sopk_reg(inst: &Inst) -> Opnd {
    if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[0]
    }
}

fn lift_inner(l: &mut Lifter, inst: &Inst, name: &str) -> R<Flow> {
    let k = if wide(name) { K::B64 } else { K::B32 };
    // ---- SOPK ----
    match name {
        "s_movk_i32" => {
            let v = l.c32(inst.imm as u32);
            l.set_s32(sopk_reg(inst), v)?;
            return Ok(Flow::Next);
        }
        "s_cmovk_i32" => {
            let o = sopk_reg(inst);
            let old = l.s32(o, K::B32)?;
            let v = l.c32(inst.imm as u32);
            let scc = l.get_scc();
            let r = l.select(scc, v, old);
            l.set_s32(o, r)?;
            return Ok(Flow::Next);
        }
        "s_addk_i32" => {
            let o = sopk_reg(inst);
            let a = l.s32(o, K::B32)?;
            let b = l.c32(inst.imm as u32);
            let r = l.add(a, b);
            let ov = signed_add_overflow(l, a, b, r);
            l.set_s32(o, r)?;
            l.set_scc(ov);
            return Ok(Flow::Next);
        }
        "s_call_b64" => {
            // D = PC + 4; PC = PC + 4 + SIMM16 * 4.
            let ret = l.c64(l.next_pc);
            l.set_s64(sopk_reg(inst), ret)?;
            let t = l.next_pc.wrapping_add((inst.imm as i16 as i64 * 4) as u64);
            return Ok(Flow::End(Exit::Jump(t)));
        }
        "s_mulk_i32" => {
            let o = sopk_reg(inst);
            let a = l.s32(o, K::B32)?;
            let b = l.c32(inst.imm as u32);
            let r = l.bin(BinOp::Mul, a, b);
            l.set_s32(o, r)?;
            return Ok(Flow::Next);
        }
        _ => {}
    }
    if let Some(rest) = name.strip_prefix("s_cmpk_") {
        // S_CMPK compares with simm16, zero-extended for U32, sign-extended for I32.
        let a = l.s32(sopk_reg(inst), K::B32)?;
        let imm = if rest.ends_with("u32") {
            inst.imm as u32 & 0xffff
        } else {
            inst.imm as u32
        };
        let b = l.c32(imm);
        let c = int_cmp(rest).ok_or("not supported")?;
        let r = l.cmp(c, a, b);
        l.set_scc(r);
        return Ok(Flow::Next);
    }
    match name {
        "s_getreg_b32" => {
            let (id, off, size) = hwreg(inst.imm as u32);
            if id != HWREG_MODE {
                return Err(format!("hardware register {id} is not supported"));
            }
            let m = l.push_op(Op::GetMode, Ty::S32);
            let r = field(l, m, off, size);
            l.set_s32(sopk_reg(inst), r)?;
            return Ok(Flow::Next);
        }
        "s_setreg_b32" | "s_setreg_imm32_b32" => {
            let (id, off, size) = hwreg(inst.imm as u32);
            if id != HWREG_MODE {
                return Err(format!("hardware register {id} is not supported"));
            }
            let v = if name == "s_setreg_imm32_b32" {
                let lit = inst
                    .literal
                    .ok_or("s_setreg_imm32_b32 without its constant")?;
                l.c32(lit)
            } else {
                let o = if inst.src[0].is_some() {
                    inst.src[0]
                } else {
                    inst.dst[0]
                };
                l.s32(o, K::B32)?
            };
            let old = l.push_op(Op::GetMode, Ty::S32);
            let fmask = if size >= 32 {
                u32::MAX
            } else {
                ((1u32 << size) - 1) << off
            };
            let ins = l.shl_imm(v, off as u64);
            let ins = l.and_imm(ins, fmask as u64);
            let kept = l.and_imm(old, !fmask as u64);
            let new = l.or(kept, ins);
            l.effect(Op::SetMode(new));
            // Translation depends on MODE: end the block.
            return Ok(Flow::End(Exit::Jump(l.next_pc)));
        }
        _ => {}
    }

    // ---- VGPR indexing (ISA "VGPR indexing"): M0[7:0] = index, M0[15:12] = operand
    // mask, MODE.GPR_IDX_EN (bit 27). Writing MODE ends the block, so the blocks in
    // between are lifted with indexing on. ----
    match name {
        "s_set_gpr_idx_on" => {
            let s0 = l.s32(inst.src[0], K::B32)?;
            let m0 = l.get_sreg(crate::wave::sreg::M0);
            let keep = l.and_imm(m0, !0xf0ffu32 as u64);
            let idx = l.and_imm(s0, 0xff);
            let t = l.or(keep, idx);
            let bits = l.c32(((inst.imm as u32) & 0xf) << 12);
            let nm0 = l.or(t, bits);
            l.set_sreg(crate::wave::sreg::M0, nm0);
            let mode = l.push_op(Op::GetMode, Ty::S32);
            let on = l.c32(1 << 27);
            let nm = l.or(mode, on);
            l.effect(Op::SetMode(nm));
            return Ok(Flow::End(Exit::Jump(l.next_pc)));
        }
        // VSKIP = S0[S1[4:0]] (GCN3/Vega ISA S_SETVSKIP; CDNA4 ISA 4.1: "Set a bit that
        // causes all vector instructions to be ignored"). VSKIP is MODE bit 28 (CDNA4 ISA
        // 3.4; 4.5: "SET_VSKIP ... Reads VSKIP from MODE"), so the block ends here.
        "s_setvskip" => {
            let s0 = l.s32(inst.src[0], K::B32)?;
            let s1 = l.s32(inst.src[1], K::B32)?;
            let sh = l.and_imm(s1, 31);
            let bit = l.bin(BinOp::LShr, s0, sh);
            let bit = l.and_imm(bit, 1);
            let bit = l.shl_imm(bit, 28);
            let mode = l.push_op(Op::GetMode, Ty::S32);
            let kept = l.and_imm(mode, !(1u64 << 28) & 0xffff_ffff);
            let nm = l.or(kept, bit);
            l.effect(Op::SetMode(nm));
            return Ok(Flow::End(Exit::Jump(l.next_pc)));
        }
        "s_set_gpr_idx_idx" => {
            let s0 = l.s32(inst.src[0], K::B32)?;
            let m0 = l.get_sreg(crate::wave::sreg::M0);
            let keep = l.and_imm(m0, !0xffu32 as u64);
            let idx = l.and_imm(s0, 0xff);
            let nm0 = l.or(keep, idx);
            l.set_sreg(crate::wave::sreg::M0, nm0);
            return Ok(Flow::Next);
        }
        _ => {}
    }

    // ---- SOPC ----
    if let Some(rest) = name.strip_prefix("s_cmp_") {
        let c = int_cmp(rest).ok_or("not supported")?;
        let a = src(l, inst, 0, k)?;
        let b = src(l, inst, 1, k)?;
        let r = l.cmp(c, a, b);
        l.set_scc(r);
        return Ok(Flow::Next);
    }
    if let Some(rest) = name.strip_prefix("s_bitcmp") {
        // s_bitcmp{0,1}_b{32,64}: SCC = S0[S1] == {0,1}.
        let a = src(l, inst, 0, k)?;
        let b = l.s32(inst.src[1], K::B32)?;
        let b = if k.is64() { l.conv(ConvOp::ZExt, b) } else { b };
        let sh = l.bin(BinOp::LShr, a, b);
        let bit = l.and_imm(sh, 1);
        let bit = if k.is64() { l.lo(bit) } else { bit };
        let r = if rest.starts_with('0') {
            l.eq0(bit)
        } else {
            bit
        };
        l.set_scc(r);
        return Ok(Flow::Next);
    }

    // ---- SOP1 / SOP2 ----
    if let Some(op) = name
        .strip_suffix("_saveexec_b64")
        .or_else(|| name.strip_suffix("_saveexec_b32"))
    {
        // D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
        let s0 = if l.wave == 64 {
            l.s64(inst.src[0], K::B64)?
        } else {
            let v = l.s32(inst.src[0], K::B32)?;
            l.conv(ConvOp::ZExt, v)
        };
        let e = l.exec();
        let new = logic(l, op.trim_start_matches("s_"), s0, e)?;
        l.set_mask_opnd(inst.dst[0], e)?;
        l.set_exec(new);
        let scc = l.ne0(new);
        l.set_scc(scc);
        return Ok(Flow::Next);
    }
    if name == "s_andn1_wrexec_b64" || name == "s_andn2_wrexec_b64" {
        // EXEC = D = ~S0 & EXEC (andn1) or S0 & ~EXEC (andn2); SCC = EXEC != 0.
        let s0 = l.s64(inst.src[0], K::B64)?;
        let e = l.exec();
        let new = if name == "s_andn1_wrexec_b64" {
            let n = l.not(s0);
            l.and(n, e)
        } else {
            let n = l.not(e);
            l.and(s0, n)
        };
        l.set_exec(new);
        l.set_mask_opnd(inst.dst[0], new)?;
        let scc = l.ne0(new);
        l.set_scc(scc);
        return Ok(Flow::Next);
    }
    let base = name.trim_start_matches("s_");
    let op = base.split('_').next().unwrap_or("");
    match base {
        "mov_b32" | "mov_b64" => {
            let v = src(l, inst, 0, k)?;
            dst(l, inst, v)?;
        }
        "cmov_b32" | "cmov_b64" => {
            let v = src(l, inst, 0, k)?;
            let old = src_of_dst(l, inst, k)?;
            let scc = l.get_scc();
            let r = l.select(scc, v, old);
            dst(l, inst, r)?;
        }
        "cselect_b32" | "cselect_b64" => {
            let a = src(l, inst, 0, k)?;
            let b = src(l, inst, 1, k)?;
            let scc = l.get_scc();
            let r = l.select(scc, a, b);
            dst(l, inst, r)?;
        }
        "not_b32" | "not_b64" => {
            let a = src(l, inst, 0, k)?;
            let r = l.not(a);
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "and_b32" | "and_b64" | "or_b32" | "or_b64" | "xor_b32" | "xor_b64" | "andn2_b32"
        | "andn2_b64" | "orn2_b32" | "orn2_b64" | "nand_b32" | "nand_b64" | "nor_b32"
        | "nor_b64" | "xnor_b32" | "xnor_b64" => {
            let a = src(l, inst, 0, k)?;
            let b = src(l, inst, 1, k)?;
            let r = logic(l, op, a, b)?;
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "lshl_b32" | "lshl_b64" | "lshr_b32" | "lshr_b64" | "ashr_i32" | "ashr_i64" => {
            // Shift by S1[4:0] ([5:0] for 64 bits); SCC = result != 0.
            let a = src(l, inst, 0, k)?;
            let b = l.s32(inst.src[1], K::B32)?;
            let b = if k.is64() { l.conv(ConvOp::ZExt, b) } else { b };
            let bop = match op {
                "lshl" => BinOp::Shl,
                "lshr" => BinOp::LShr,
                _ => BinOp::AShr,
            };
            let r = l.bin(bop, a, b);
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "add_nc_u64" | "sub_nc_u64" | "mul_u64" => {
            // gfx12 64-bit scalar arithmetic: wrapping, SCC unchanged (RDNA4 ISA, SOP2).
            let a = src(l, inst, 0, K::B64)?;
            let b = src(l, inst, 1, K::B64)?;
            let bop = match op {
                "add" => BinOp::Add,
                "sub" => BinOp::Sub,
                _ => BinOp::Mul,
            };
            let r = l.bin(bop, a, b);
            dst(l, inst, r)?;
        }
        "add_u32" | "sub_u32" => {
            // SCC = unsigned carry / borrow.
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let (r, c) = if op == "add" {
                (l.add(a, b), l.bin(BinOp::AddCarry, a, b))
            } else {
                (l.bin(BinOp::Sub, a, b), l.bin(BinOp::SubBorrow, a, b))
            };
            dst(l, inst, r)?;
            l.set_scc(c);
        }
        "addc_u32" | "subb_u32" => {
            // D = S0 ± S1 ± SCC; SCC = carry/borrow out of the whole operation.
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let cin = l.get_scc();
            let (r, c) = if op == "addc" {
                let t = l.add(a, b);
                let c1 = l.bin(BinOp::AddCarry, a, b);
                let r = l.add(t, cin);
                let c2 = l.bin(BinOp::AddCarry, t, cin);
                (r, l.or(c1, c2))
            } else {
                let t = l.bin(BinOp::Sub, a, b);
                let c1 = l.bin(BinOp::SubBorrow, a, b);
                let r = l.bin(BinOp::Sub, t, cin);
                let c2 = l.bin(BinOp::SubBorrow, t, cin);
                (r, l.or(c1, c2))
            };
            dst(l, inst, r)?;
            l.set_scc(c);
        }
        "add_i32" | "sub_i32" => {
            // SCC = signed overflow.
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let (r, ov) = if op == "add" {
                let r = l.add(a, b);
                (r, signed_add_overflow(l, a, b, r))
            } else {
                let r = l.bin(BinOp::Sub, a, b);
                // Overflow when the operands' signs differ and the result's sign differs from a.
                let x1 = l.xor(a, b);
                let x2 = l.xor(a, r);
                let t = l.and(x1, x2);
                (r, l.lshr_imm(t, 31))
            };
            dst(l, inst, r)?;
            l.set_scc(ov);
        }
        "mul_i32" => bin2(l, inst, BinOp::Mul)?,
        "mul_hi_u32" => bin2(l, inst, BinOp::MulHiU)?,
        "mul_hi_i32" => bin2(l, inst, BinOp::MulHiS)?,
        "min_i32" | "min_u32" | "max_i32" | "max_u32" => {
            // SCC = 1 when S0 is the result (S0 < S1 for min, S0 > S1 for max).
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let (bop, c) = match base {
                "min_i32" => (BinOp::SMin, CmpOp::SLt),
                "min_u32" => (BinOp::UMin, CmpOp::ULt),
                "max_i32" => (BinOp::SMax, CmpOp::SGt),
                _ => (BinOp::UMax, CmpOp::UGt),
            };
            let r = l.bin(bop, a, b);
            let scc = l.cmp(c, a, b);
            dst(l, inst, r)?;
            l.set_scc(scc);
        }
        "abs_i32" => {
            let a = src(l, inst, 0, K::B32)?;
            let n = l.un(UnOp::Neg, a);
            let r = l.bin(BinOp::SMax, a, n);
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "absdiff_i32" => {
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let d1 = l.bin(BinOp::Sub, a, b);
            let d2 = l.bin(BinOp::Sub, b, a);
            let gt = l.cmp(CmpOp::SGt, a, b);
            let r = l.select(gt, d1, d2);
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "lshl1_add_u32" | "lshl2_add_u32" | "lshl3_add_u32" | "lshl4_add_u32" => {
            // D = (S0 << n) + S1; SCC = carry out of the 32-bit result (incl. shifted-out bits).
            let n = base.as_bytes()[4] - b'0';
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let a64 = l.conv(ConvOp::ZExt, a);
            let b64 = l.conv(ConvOp::ZExt, b);
            let s = l.shl_imm(a64, n as u64);
            let t = l.add(s, b64);
            let r = l.lo(t);
            let h = l.hi(t);
            let scc = l.ne0(h);
            dst(l, inst, r)?;
            l.set_scc(scc);
        }
        "bfe_u32" | "bfe_i32" | "bfe_u64" | "bfe_i64" => {
            // S1[5:0] = offset, S1[22:16] = width; SCC = result != 0.
            let a = src(l, inst, 0, k)?;
            let b = l.s32(inst.src[1], K::B32)?;
            let off = l.and_imm(b, 0x3f);
            let w = l.lshr_imm(b, 16);
            let w = l.and_imm(w, 0x7f);
            let r = bfe(l, a, off, w, op == "bfe" && base.contains("_i"))?;
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "bfm_b32" | "bfm_b64" => {
            // ((1 << S0[4:0]) - 1) << S1[4:0] (5:0 for 64 bits).
            let a = l.s32(inst.src[0], K::B32)?;
            let b = l.s32(inst.src[1], K::B32)?;
            let (a, b) = if k.is64() {
                (l.conv(ConvOp::ZExt, a), l.conv(ConvOp::ZExt, b))
            } else {
                (a, b)
            };
            let one = l.cst(a, 1);
            let m = l.bin(BinOp::Shl, one, a);
            let m = l.bin(BinOp::Sub, m, one);
            let r = l.bin(BinOp::Shl, m, b);
            dst(l, inst, r)?;
        }
        "brev_b32" | "brev_b64" => {
            let a = src(l, inst, 0, k)?;
            let r = l.un(UnOp::BitReverse, a);
            dst(l, inst, r)?;
        }
        "bcnt0_i32_b32" | "bcnt0_i32_b64" | "bcnt1_i32_b32" | "bcnt1_i32_b64" => {
            let a = src(l, inst, 0, k)?;
            let a = if op == "bcnt0" { l.not(a) } else { a };
            let c = l.un(UnOp::Popcnt, a);
            let r = if k.is64() { l.lo(c) } else { c };
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "ff0_i32_b32" | "ff0_i32_b64" | "ff1_i32_b32" | "ff1_i32_b64" => {
            // Index of the first 0/1 bit from the LSB; -1 if none.
            let a = src(l, inst, 0, k)?;
            let a = if op == "ff0" { l.not(a) } else { a };
            let z = l.eq0(a);
            let c = l.un(UnOp::Ctz, a);
            let c = if k.is64() { l.lo(c) } else { c };
            let m1 = l.c32(u32::MAX);
            let r = l.select(z, m1, c);
            dst(l, inst, r)?;
        }
        "flbit_i32_b32" | "flbit_i32_b64" => {
            // Leading zeros; -1 if zero.
            let a = src(l, inst, 0, k)?;
            let z = l.eq0(a);
            let c = l.un(UnOp::Clz, a);
            let c = if k.is64() { l.lo(c) } else { c };
            let m1 = l.c32(u32::MAX);
            let r = l.select(z, m1, c);
            dst(l, inst, r)?;
        }
        "flbit_i32" | "flbit_i32_i64" => {
            // Leading bits equal to the sign bit; -1 for 0 and -1.
            let kk = if base == "flbit_i32_i64" {
                K::B64
            } else {
                K::B32
            };
            let a = src(l, inst, 0, kk)?;
            let bits = l.ty(a).bits() as u64;
            let s = l.ashr_imm(a, bits - 1);
            let x = l.xor(a, s);
            let z = l.eq0(x);
            let c = l.un(UnOp::Clz, x);
            let c = if kk.is64() { l.lo(c) } else { c };
            let m1 = l.c32(u32::MAX);
            let r = l.select(z, m1, c);
            dst(l, inst, r)?;
        }
        "sext_i32_i8" | "sext_i32_i16" => {
            let a = src(l, inst, 0, K::B32)?;
            let c = if base.ends_with("i8") {
                ConvOp::SExt8
            } else {
                ConvOp::SExt16
            };
            let r = l.conv(c, a);
            dst(l, inst, r)?;
        }
        "bitset0_b32" | "bitset0_b64" | "bitset1_b32" | "bitset1_b64" => {
            // D[S0[4:0]] = 0/1 (other bits of D kept).
            let old = src_of_dst(l, inst, k)?;
            let b = l.s32(inst.src[0], K::B32)?;
            let b = if k.is64() { l.conv(ConvOp::ZExt, b) } else { b };
            let one = l.cst(old, 1);
            let bit = l.bin(BinOp::Shl, one, b);
            let r = if op == "bitset0" {
                let n = l.not(bit);
                l.and(old, n)
            } else {
                l.or(old, bit)
            };
            dst(l, inst, r)?;
        }
        "pack_ll_b32_b16" | "pack_lh_b32_b16" | "pack_hh_b32_b16" => {
            let a = src(l, inst, 0, K::B32)?;
            let b = src(l, inst, 1, K::B32)?;
            let sel = &base[5..7];
            let lo = if sel.starts_with('l') {
                l.and_imm(a, 0xffff)
            } else {
                l.lshr_imm(a, 16)
            };
            let hi = if sel.ends_with('l') {
                l.shl_imm(b, 16)
            } else {
                l.and_imm(b, 0xffff_0000)
            };
            let r = l.or(lo, hi);
            dst(l, inst, r)?;
        }
        "quadmask_b32" | "quadmask_b64" => {
            // D bit i = OR of S0 bits [4i+3:4i]; SCC = D != 0.
            let a = src(l, inst, 0, k)?;
            let q = quad_or(l, a);
            let n = if k.is64() { 16 } else { 8 };
            let mut r = l.cst(a, 0);
            for i in 0..n {
                let b = l.lshr_imm(q, 4 * i);
                let b = l.and_imm(b, 1);
                let b = l.shl_imm(b, i);
                r = l.or(r, b);
            }
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "wqm_b32" | "wqm_b64" => {
            // Whole quad mode: every quad with any bit set becomes all ones; SCC = D != 0.
            let a = src(l, inst, 0, k)?;
            let q = quad_or(l, a);
            let q = l.and_imm(q, 0x1111_1111_1111_1111 & mask_of(k));
            let mut r = q;
            for s in 1..4 {
                let t = l.shl_imm(q, s);
                r = l.or(r, t);
            }
            dst(l, inst, r)?;
            let scc = l.ne0(r);
            l.set_scc(scc);
        }
        "bitreplicate_b64_b32" => {
            // D[2i+1:2i] = S0[i] twice (SCC unchanged): spread the bits, then double them.
            let a = src(l, inst, 0, K::B32)?;
            let mut x = l.conv(ConvOp::ZExt, a);
            for (sh, m) in [
                (16, 0x0000_ffff_0000_ffffu64),
                (8, 0x00ff_00ff_00ff_00ff),
                (4, 0x0f0f_0f0f_0f0f_0f0f),
                (2, 0x3333_3333_3333_3333),
                (1, 0x5555_5555_5555_5555),
            ] {
                let t = l.shl_imm(x, sh);
                let t = l.or(x, t);
                x = l.and_imm(t, m);
            }
            let t = l.shl_imm(x, 1);
            let r = l.or(x, t);
            l.set_s64(inst.dst[0], r)?;
        }
        "movrels_b32" | "movrels_b64" | "movreld_b32" | "movreld_b64" | "movrelsd_2_b32" => {
            movrel(l, inst, base, k.is64())?;
        }
        "getpc_b64" => {
            // The address of the next instruction.
            let v = l.c64(l.next_pc);
            l.set_s64(inst.dst[0], v)?;
        }
        "setpc_b64" => {
            let t = l.s64(inst.src[0], K::B64)?;
            return Ok(Flow::End(Exit::JumpIndirect(t)));
        }
        "swappc_b64" => {
            let t = l.s64(inst.src[0], K::B64)?;
            let ret = l.c64(l.next_pc);
            l.set_s64(inst.dst[0], ret)?;
            return Ok(Flow::End(Exit::JumpIndirect(t)));
        }
        _ => return Err("not supported".into()),
    }
    Ok(Flow::Next)
}

/// Per nibble of `a`: bit 0 of the nibble = OR of its four bits (other bits: garbage).
fn quad_or(l: &mut Lifter, a: Val) -> Val {
    let mut q = a;
    for s in 1..4 {
        let t = l.lshr_imm(a, s);
        q = l.or(q, t);
    }
    q
}

/// All ones of the operand width.
fn mask_of(k: K) -> u64 {
    if k.is64() {
        u64::MAX
    } else {
        0xffff_ffff
    }
}

/// SGPRs addressable by `s_movrels`/`s_movreld`: s0..s101 on GFX9, s0..s105 on RDNA (an
/// index past them reads 0 and writes nothing).
fn movrel_sgprs(l: &Lifter) -> u8 {
    if l.gpu.family() == Some(crate::isa::Family::Gfx9) {
        102
    } else {
        106
    }
}

/// `s_movrels` (`D = SGPR[S0 + M0]`), `s_movreld` (`SGPR[D + M0] = S0`), 32 or 64 bits, and
/// RDNA's `s_movrelsd_2_b32` (`SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]]`, RDNA4 ISA 16.3
/// S_MOVRELSD_2_B32). ISA: M0 is the unsigned dword index; 64-bit forms move the pair at that
/// index. The index is dynamic, so reads select among every SGPR and writes update every SGPR
/// whose number matches.
fn movrel(l: &mut Lifter, inst: &Inst, base: &str, w64: bool) -> R<()> {
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let (sidx, didx) = match base {
        "movrelsd_2_b32" => {
            let s = l.and_imm(m0, 0x3ff);
            let d = l.lshr_imm(m0, 16);
            let d = l.and_imm(d, 0x3ff);
            (Some(s), Some(d))
        }
        _ if base.starts_with("movrels") => (Some(m0), None),
        _ => (None, Some(m0)),
    };
    let n = if w64 { 2 } else { 1 };
    let limit = movrel_sgprs(l);
    let data = match sidx {
        Some(sidx) => {
            let sbase = inst.src[0]
                .sreg()
                .filter(|&r| r < limit)
                .ok_or("s_movrel source is not an SGPR")?;
            let idx = l.add_imm(sidx, sbase as u64);
            let mut out = Vec::with_capacity(n);
            for j in 0..n as u64 {
                let ij = l.add_imm(idx, j);
                let mut v = l.c32(0);
                for r in 0..limit {
                    let rc = l.c32(r as u32);
                    let hit = l.cmp(CmpOp::Eq, ij, rc);
                    let x = l.get_sreg(r);
                    v = l.select(hit, x, v);
                }
                out.push(v);
            }
            out
        }
        None if w64 => {
            let v = l.s64(inst.src[0], K::B64)?;
            vec![l.lo(v), l.hi(v)]
        }
        None => vec![l.s32(inst.src[0], K::B32)?],
    };
    let Some(didx) = didx else {
        let d = inst.dst[0]
            .sreg()
            .ok_or("s_movrels destination is not an SGPR")?;
        if d as u16 + n as u16 > 128 {
            return Err("destination range leaves the scalar registers".into());
        }
        for (j, v) in data.into_iter().enumerate() {
            l.set_sreg(d + j as u8, v);
        }
        return Ok(());
    };
    let dbase = inst.dst[0]
        .sreg()
        .filter(|&r| r < limit)
        .ok_or("s_movrel destination is not an SGPR")?;
    let idx = l.add_imm(didx, dbase as u64);
    for r in 0..limit {
        let mut v = l.get_sreg(r);
        for (j, d) in data.iter().enumerate() {
            let ij = l.add_imm(idx, j as u64);
            let rc = l.c32(r as u32);
            let hit = l.cmp(CmpOp::Eq, ij, rc);
            v = l.select(hit, *d, v);
        }
        l.set_sreg(r, v);
    }
    Ok(())
}

/// Reads the destination register's current value (for ops that update D in place).
fn src_of_dst(l: &mut Lifter, inst: &Inst, k: K) -> R<Val> {
    if k.is64() {
        l.s64(inst.dst[0], K::B64)
    } else {
        l.s32(inst.dst[0], K::B32)
    }
}

fn bin2(l: &mut Lifter, inst: &Inst, op: BinOp) -> R<()> {
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let r = l.bin(op, a, b);
    dst(l, inst, r)
}

/// `and/or/xor/andn2/orn2/nand/nor/xnor/andn1/orn1` of `a` (S0) and `b`.
pub(super) fn logic(l: &mut Lifter, op: &str, a: Val, b: Val) -> R<Val> {
    Ok(match op {
        "and" => l.and(a, b),
        "or" => l.or(a, b),
        "xor" => l.xor(a, b),
        "andn2" => {
            let n = l.not(b);
            l.and(a, n)
        }
        "orn2" => {
            let n = l.not(b);
            l.or(a, n)
        }
        "andn1" => {
            let n = l.not(a);
            l.and(n, b)
        }
        "orn1" => {
            let n = l.not(a);
            l.or(n, b)
        }
        "nand" => {
            let t = l.and(a, b);
            l.not(t)
        }
        "nor" => {
            let t = l.or(a, b);
            l.not(t)
        }
        "xnor" => {
            let t = l.xor(a, b);
            l.not(t)
        }
        _ => return Err(format!("unknown logic op {op}")),
    })
}

/// Integer comparison named by the suffix `eq_u32`, `lg_i32`, `lt_u64`, ...
fn int_cmp(rest: &str) -> Option<CmpOp> {
    let (c, t) = rest.split_once('_')?;
    let signed = t.starts_with('i');
    Some(match (c, signed) {
        ("eq", _) => CmpOp::Eq,
        ("lg", _) | ("ne", _) => CmpOp::Ne,
        ("lt", false) => CmpOp::ULt,
        ("le", false) => CmpOp::ULe,
        ("gt", false) => CmpOp::UGt,
        ("ge", false) => CmpOp::UGe,
        ("lt", true) => CmpOp::SLt,
        ("le", true) => CmpOp::SLe,
        ("gt", true) => CmpOp::SGt,
        ("ge", true) => CmpOp::SGe,
        _ => return None,
    })
}

/// Signed overflow of `r = a + b` as `S32` 0/1: operands of equal sign, result of the other.
fn signed_add_overflow(l: &mut Lifter, a: Val, b: Val, r: Val) -> Val {
    let x1 = l.xor(a, r);
    let x2 = l.xor(b, r);
    let t = l.and(x1, x2);
    l.lshr_imm(t, 31)
}

/// Bitfield extract with a width that may reach or exceed the operand width (the IR
/// [`TernOp::Bfe`] takes the width modulo the operand width).
fn bfe(l: &mut Lifter, a: Val, off: Val, w: Val, signed: bool) -> R<Val> {
    let bits = l.ty(a).bits() as u64;
    let (off, w) = if bits == 64 {
        (l.conv(ConvOp::ZExt, off), l.conv(ConvOp::ZExt, w))
    } else {
        (off, w)
    };
    let op = if signed { TernOp::SBfe } else { TernOp::Bfe };
    let narrow = l.tern(op, a, off, w);
    // width >= operand width: the whole shifted value.
    let sh_op = if signed { BinOp::AShr } else { BinOp::LShr };
    let whole = l.bin(sh_op, a, off);
    let lim = l.cst(w, bits);
    let big = l.cmp(CmpOp::UGe, w, lim);
    Ok(l.select(big, whole, narrow))
}

/// `(id, offset, size)` of a `hwreg` immediate: id[5:0], offset[10:6], size-1[15:11].
fn hwreg(imm: u32) -> (u32, u32, u32) {
    (imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1)
}

/// Bits `off..off+size` of `v`.
fn field(l: &mut Lifter, v: Val, off: u32, size: u32) -> Val {
    let s = l.lshr_imm(v, off as u64);
    if size >= 32 {
        s
    } else {
        l.and_imm(s, (1u64 << size) - 1)
    }
}
