//! Scalar memory: `s_load_dword*`, `s_buffer_load_dword*`, `s_store_dword*`, `s_memtime`,
//! and cache maintenance (no-ops).

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::ir::{CmpOp, ConvOp, Op, Ty, Val};
use crate::isa::Inst;
use crate::wave::InstClass;

/// Dwords moved by a `..._dword`, `_dwordx2`, ... mnemonic.
pub(super) fn dwords(name: &str) -> Option<u16> {
    if name.ends_with("dword") {
        return Some(1);
    }
    let n = name.rsplit_once("dwordx")?.1;
    n.parse().ok()
}

/// Lifts an SMEM instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    lift_inner(l, inst, name)?;
    Ok((InstClass::Smem, Flow::Next))
}

/// The offset part of the address: the immediate plus the `soffset` SGPR when present.
fn offset(l: &mut Lifter, inst: &Inst) -> R<Val> {
    let imm = l.c64(inst.mem.offset as i64 as u64);
    if inst.src[2].is_some() {
        let so = l.s32(inst.src[2], K::B32)?;
        let so = l.conv(ConvOp::ZExt, so);
        Ok(l.add(imm, so))
    } else {
        Ok(imm)
    }
}

fn lift_inner(l: &mut Lifter, inst: &Inst, name: &str) -> R<()> {
    match name {
        "s_dcache_inv" | "s_dcache_wb" | "s_dcache_inv_vol" | "s_dcache_wb_vol" => return Ok(()),
        "s_memtime" | "s_memrealtime" => {
            let c = l.push_op(Op::Clock, Ty::S64);
            return l.set_s64(inst.dst[0], c);
        }
        _ => {}
    }
    let n = dwords(name).ok_or("not supported")?;
    if let Some(kind) = name.strip_prefix("s_load_") {
        let _ = kind;
        let base = l.s64(inst.src[0], K::B64)?;
        let off = offset(l, inst)?;
        let a = l.add(base, off);
        // The two low address bits are ignored.
        let a = l.and_imm(a, !3);
        let reg = inst.dst[0]
            .sreg()
            .ok_or("scalar load destination is not an SGPR")?;
        if reg as u16 + n > 128 {
            return Err("destination range leaves the scalar registers".into());
        }
        // Load all dwords before writing any, so a destination overlapping sbase is safe.
        let mut vals = Vec::with_capacity(n as usize);
        for i in 0..n {
            let ai = l.add_imm(a, 4 * i as u64);
            vals.push(l.push_op(Op::SLoad { pc: l.pc, addr: ai }, Ty::S32));
        }
        for (i, v) in vals.into_iter().enumerate() {
            l.set_sreg(reg + i as u8, v);
        }
        return Ok(());
    }
    if name.starts_with("s_buffer_load_") {
        // V#: base = {dword1[15:0], dword0}, stride = dword1[31:16], num_records = dword2.
        // S_BUFFER loads check the offset against num_records (the stride only decides the
        // size unit); out-of-range dwords read 0.
        let sb = inst.src[0]
            .sreg()
            .ok_or("s_buffer_load base is not an SGPR quad")?;
        if sb as u16 + 4 > 128 {
            return Err("V# range leaves the scalar registers".into());
        }
        let d0 = l.get_sreg(sb);
        let d1 = l.get_sreg(sb + 1);
        let d2 = l.get_sreg(sb + 2);
        let hi = l.and_imm(d1, 0xffff);
        let base = l.pack(d0, hi);
        let off = offset(l, inst)?;
        let off = l.and_imm(off, 0xffff_ffff & !3);
        let nrec = l.conv(ConvOp::ZExt, d2);
        let reg = inst.dst[0]
            .sreg()
            .ok_or("scalar load destination is not an SGPR")?;
        if reg as u16 + n > 128 {
            return Err("destination range leaves the scalar registers".into());
        }
        let zero = l.c32(0);
        let mut vals = Vec::with_capacity(n as usize);
        for i in 0..n {
            let oi = l.add_imm(off, 4 * i as u64);
            let ok = l.cmp(CmpOp::ULt, oi, nrec);
            // Out-of-range dwords load from the base instead (then read as 0), so the access
            // itself never leaves the buffer.
            let oz = l.c64(0);
            let eff = l.select(ok, oi, oz);
            let ai = l.add(base, eff);
            let v = l.push_op(Op::SLoad { pc: l.pc, addr: ai }, Ty::S32);
            vals.push(l.select(ok, v, zero));
        }
        for (i, v) in vals.into_iter().enumerate() {
            l.set_sreg(reg + i as u8, v);
        }
        return Ok(());
    }
    if name.starts_with("s_store_") {
        let base = l.s64(inst.src[0], K::B64)?;
        let off = offset(l, inst)?;
        let a = l.add(base, off);
        let a = l.and_imm(a, !3);
        let data = if inst.src[1].is_some() {
            inst.src[1]
        } else {
            inst.dst[0]
        };
        let reg = data.sreg().ok_or("scalar store data is not an SGPR")?;
        if reg as u16 + n > 128 {
            return Err("data range leaves the scalar registers".into());
        }
        for i in 0..n {
            let ai = l.add_imm(a, 4 * i as u64);
            let d = l.get_sreg(reg + i as u8);
            l.effect(Op::SStore {
                pc: l.pc,
                addr: ai,
                data: d,
            });
        }
        return Ok(());
    }
    Err("not supported".into())
}
