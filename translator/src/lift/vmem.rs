//! Vector memory: FLAT, GLOBAL, SCRATCH and MUBUF loads, stores and atomics.
//!
//! Addresses (GFX9):
//! * FLAT: `vaddr` (64-bit) + offset, a generic address the runtime resolves by aperture;
//! * GLOBAL: `vaddr` (64-bit) + offset, or `saddr` (64-bit SGPR pair) + `vaddr` (32-bit,
//!   zero-extended) + offset;
//! * SCRATCH: `vaddr` (32-bit, optional) + `saddr` (32-bit SGPR, optional) + offset, a
//!   per-lane offset into the private segment;
//! * MUBUF: V# base + `soffset` + offset + (`offen`: `vaddr`) + (`idxen`: index × stride),
//!   range-checked against `num_records` (bytes for stride 0, records otherwise); lanes out of
//!   range load 0 and do not store.
//!
//! Loads of more than 8 bytes are split into dword accesses.

use super::operand::{K, R};
use super::smem::dwords;
use super::{Flow, LiftResult, Lifter};
use crate::env::{AtomicOp, Space};
use crate::ir::{BinOp, CmpOp, ConvOp, Op, Ty, Val};
use crate::isa::{Format, Inst};
use crate::wave::InstClass;

/// Lifts a FLAT/GLOBAL/SCRATCH/MUBUF instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    if inst.mem.lds {
        return Err("loads to LDS are not supported".into());
    }
    l.count_vector();
    if matches!(
        name,
        "buffer_wbl2" | "buffer_inv" | "buffer_wbinvl1" | "buffer_wbinvl1_vol"
    ) {
        // Cache write-back/invalidate for fences: memory is coherent here, so no effect.
        return Ok((InstClass::Vmem, Flow::Next));
    }
    let (space, op) = match inst.format {
        Format::Flat => (Space::Flat, name.strip_prefix("flat_")),
        Format::Global => (Space::Global, name.strip_prefix("global_")),
        Format::Scratch => (Space::Scratch, name.strip_prefix("scratch_")),
        _ => (Space::Global, name.strip_prefix("buffer_")),
    };
    let op = op.ok_or("not supported")?;
    let exec = l.exec();
    if inst.format == Format::Mubuf && l.gpu.family() != Some(crate::isa::Family::Gfx9) {
        // RDNA V# layout and out-of-range modes (`rdna_buffer`).
        let b = super::rdna_buffer::access(l, inst)?;
        let mask = l.and(exec, b.lanes_ok);
        let a = Access {
            space,
            addr: b.addr,
            mask,
            exec,
            range: Some(b.range),
        };
        return access_op(l, inst, &a, op);
    }
    let (addr, range) = if inst.format == Format::Mubuf {
        let (addr, range) = buffer_addr(l, inst)?;
        (addr, Some(range))
    } else {
        (flat_addr(l, inst, space)?, None)
    };
    let a = Access {
        space,
        addr,
        mask: exec,
        exec,
        range,
    };
    access_op(l, inst, &a, op)
}

/// The load, store or atomic `op` (the mnemonic without its segment prefix) at `a`.
fn access_op(l: &mut Lifter, inst: &Inst, a: &Access, op: &str) -> LiftResult {
    if let Some(ty) = op.strip_prefix("load_") {
        load(l, inst, a, ty)?;
    } else if let Some(ty) = op.strip_prefix("store_") {
        store(l, inst, a, ty)?;
    } else if let Some(rest) = op.strip_prefix("atomic_") {
        atomic(l, inst, a, rest)?;
    } else {
        return Err("not supported".into());
    }
    Ok((InstClass::Vmem, Flow::Next))
}

/// A computed vector access.
struct Access {
    space: Space,
    /// `V64` per-lane addresses.
    addr: Val,
    /// Lanes that access memory.
    mask: Val,
    /// Lanes whose destination registers are written.
    exec: Val,
    /// MUBUF range check: `(offset V64, num_records V64, stride == 0 (S32), index-in-range
    /// mask S64)`.
    range: Option<(Val, Val, Val, Val)>,
}

/// The lanes that access `size` bytes at `piece` bytes past the address: `mask`, narrowed
/// for MUBUF by the range check (stride 0: `offset + piece + size <= num_records`; otherwise
/// `index < num_records`). Out-of-range lanes load 0 and store nothing.
fn piece_mask(l: &mut Lifter, a: &Access, piece: u64, size: u64) -> Val {
    let Some((off, nrec, stride0, idx_ok)) = a.range else {
        return a.mask;
    };
    let end = l.add_imm(off, piece + size);
    let by_off = l.cmp(CmpOp::ULe, end, nrec);
    let ok = l.select(stride0, by_off, idx_ok);
    l.and(a.mask, ok)
}

fn flat_addr(l: &mut Lifter, inst: &Inst, space: Space) -> R<Val> {
    let off = inst.mem.offset as i64 as u64;
    let a = match space {
        Space::Scratch => {
            let mut a: Option<Val> = None;
            if inst.src[0].is_some() {
                let v = l.v32(inst.src[0], K::B32)?;
                a = Some(l.conv(ConvOp::ZExt, v));
            }
            if inst.src[2].is_some() {
                let s = l.s32(inst.src[2], K::B32)?;
                let s = l.conv(ConvOp::ZExt, s);
                let s = l.bcast(s);
                a = Some(match a {
                    Some(x) => l.add(x, s),
                    None => s,
                });
            }
            match a {
                Some(x) => x,
                None => {
                    let z = l.c64(0);
                    l.bcast(z)
                }
            }
        }
        _ if inst.src[2].is_some() => {
            let s = l.s64(inst.src[2], K::B64)?;
            let s = l.bcast(s);
            let v = l.v32(inst.src[0], K::B32)?;
            let v = l.conv(ConvOp::ZExt, v);
            l.add(s, v)
        }
        _ => l.v64(inst.src[0], K::B64)?,
    };
    Ok(if off != 0 { l.add_imm(a, off) } else { a })
}

/// MUBUF address and the range-check inputs (see [`piece_mask`]).
fn buffer_addr(l: &mut Lifter, inst: &Inst) -> R<(Val, (Val, Val, Val, Val))> {
    let sb = inst.src[3]
        .sreg()
        .ok_or("buffer resource is not an SGPR quad")?;
    if sb as u16 + 4 > 128 {
        return Err("V# range leaves the scalar registers".into());
    }
    // V#: dword0 = base[31:0], dword1[15:0] = base[47:32], dword1[29:16] = stride,
    // dword2 = num_records.
    let d0 = l.get_sreg(sb);
    let d1 = l.get_sreg(sb + 1);
    let d2 = l.get_sreg(sb + 2);
    let bhi = l.and_imm(d1, 0xffff);
    let base = l.pack(d0, bhi);
    let stride = l.lshr_imm(d1, 16);
    let stride = l.and_imm(stride, 0x3fff);
    let nrec = l.bcast(d2);
    let so = if inst.src[2].is_some() {
        l.s32(inst.src[2], K::B32)?
    } else {
        l.c32(0)
    };
    let so = l.conv(ConvOp::ZExt, so);
    let so = l.add_imm(so, inst.mem.offset as u32 as u64);
    let mut off = l.bcast(so);
    let (vindex, voff) = match (inst.mem.idxen, inst.mem.offen) {
        (false, false) => (None, None),
        (true, false) => (Some(l.v32(inst.src[0], K::B32)?), None),
        (false, true) => (None, Some(l.v32(inst.src[0], K::B32)?)),
        (true, true) => {
            let r = inst.src[0].vreg().ok_or("buffer vaddr is not a VGPR")?;
            (Some(l.get_vreg(r)?), Some(l.get_vreg(r + 1)?))
        }
    };
    if let Some(v) = voff {
        let v = l.conv(ConvOp::ZExt, v);
        off = l.add(off, v);
    }
    let idx_ok = match vindex {
        Some(ix) => {
            let sv = l.bcast(stride);
            let scaled = l.bin(BinOp::Mul, ix, sv);
            let scaled = l.conv(ConvOp::ZExt, scaled);
            off = l.add(off, scaled);
            l.cmp(CmpOp::ULt, ix, nrec)
        }
        None => {
            // Without an index, the index is 0.
            let z = l.c32(0);
            let zv = l.bcast(z);
            l.cmp(CmpOp::ULt, zv, nrec)
        }
    };
    let stride0 = l.eq0(stride);
    let nrec64 = l.conv(ConvOp::ZExt, nrec);
    let bv = l.bcast(base);
    let addr = l.add(bv, off);
    Ok((addr, (off, nrec64, stride0, idx_ok)))
}

fn ld(l: &mut Lifter, a: &Access, off: u64, size: u8, signed: bool) -> Val {
    let mask = piece_mask(l, a, off, size as u64);
    let addr = if off != 0 {
        l.add_imm(a.addr, off)
    } else {
        a.addr
    };
    let ty = if size == 8 { Ty::V64 } else { Ty::V32 };
    l.push_op(
        Op::Load {
            pc: l.pc,
            space: a.space,
            addr,
            size,
            signed,
            mask,
        },
        ty,
    )
}

fn st(l: &mut Lifter, a: &Access, off: u64, size: u8, data: Val) {
    let mask = piece_mask(l, a, off, size as u64);
    let addr = if off != 0 {
        l.add_imm(a.addr, off)
    } else {
        a.addr
    };
    l.effect(Op::Store {
        pc: l.pc,
        space: a.space,
        addr,
        size,
        data,
        mask,
    });
}

fn load(l: &mut Lifter, inst: &Inst, a: &Access, ty: &str) -> R<()> {
    let sub = match ty {
        "ubyte" => Some((1, false)),
        "sbyte" => Some((1, true)),
        "ushort" => Some((2, false)),
        "sshort" => Some((2, true)),
        _ => None,
    };
    if let Some((size, signed)) = sub {
        let v = ld(l, a, 0, size, signed);
        return l.set_vregs(inst.dst[0], &[v], a.exec);
    }
    if let Some(n) = dwords(ty) {
        let vals: Vec<Val> = (0..n as u64).map(|i| ld(l, a, 4 * i, 4, false)).collect();
        return l.set_vregs(inst.dst[0], &vals, a.exec);
    }
    let (size, signed, hi) = match ty {
        "ubyte_d16" => (1, false, false),
        "ubyte_d16_hi" => (1, false, true),
        "sbyte_d16" => (1, true, false),
        "sbyte_d16_hi" => (1, true, true),
        "short_d16" => (2, false, false),
        "short_d16_hi" => (2, false, true),
        _ => return Err("not supported".into()),
    };
    // d16: 16 bits into one half of the VGPR; the other half is kept.
    let v = ld(l, a, 0, size, signed);
    let v = l.and_imm(v, 0xffff);
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    let old = l.get_vreg(reg)?;
    let r = if hi {
        let keep = l.and_imm(old, 0xffff);
        let h = l.shl_imm(v, 16);
        l.or(keep, h)
    } else {
        let keep = l.and_imm(old, 0xffff_0000);
        l.or(keep, v)
    };
    l.set_vreg(reg, r, a.exec)
}

fn store(l: &mut Lifter, inst: &Inst, a: &Access, ty: &str) -> R<()> {
    let data = inst.src[1];
    let (size, hi) = match ty {
        "byte" => (1, false),
        "short" => (2, false),
        "byte_d16_hi" => (1, true),
        "short_d16_hi" => (2, true),
        _ => {
            let n = dwords(ty).ok_or("not supported")?;
            let ds = l.get_vregs(data, n)?;
            for (i, d) in ds.into_iter().enumerate() {
                st(l, a, 4 * i as u64, 4, d);
            }
            return Ok(());
        }
    };
    let d = l.v32(data, K::B32)?;
    let d = if hi { l.lshr_imm(d, 16) } else { d };
    st(l, a, 0, size, d);
    Ok(())
}

fn atomic(l: &mut Lifter, inst: &Inst, a: &Access, rest: &str) -> R<()> {
    let (opn, wide) = match rest.strip_suffix("_x2") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (op, size) = match opn {
        "swap" => (AtomicOp::Swap, 4),
        "cmpswap" => (AtomicOp::CmpSwap, 4),
        "add" => (AtomicOp::Add, 4),
        "sub" => (AtomicOp::Sub, 4),
        "smin" => (AtomicOp::SMin, 4),
        "umin" => (AtomicOp::UMin, 4),
        "smax" => (AtomicOp::SMax, 4),
        "umax" => (AtomicOp::UMax, 4),
        "and" => (AtomicOp::And, 4),
        "or" => (AtomicOp::Or, 4),
        "xor" => (AtomicOp::Xor, 4),
        "inc" => (AtomicOp::Inc, 4),
        "dec" => (AtomicOp::Dec, 4),
        "add_f32" => (AtomicOp::FAdd, 4),
        "add_f64" => (AtomicOp::FAdd, 8),
        "min_f64" => (AtomicOp::FMin, 8),
        // RDNA f32 min/max atomics (gfx11 `min_f32`, gfx12 `min_num_f32`): minNum/maxNum
        // style, as every memory atomic (RDNA4 ISA 13.3).
        "min_f32" | "min_num_f32" => (AtomicOp::FMin, 4),
        "max_f32" | "max_num_f32" => (AtomicOp::FMax, 4),
        "max_f64" => (AtomicOp::FMax, 8),
        _ => return Err("not supported".into()),
    };
    let size: u8 = if wide { 8 } else { size };
    // cmpswap data is {new, cmp} in consecutive registers.
    let (data, cmp) = if size == 8 {
        let d = l.get_vregs(inst.src[1], if op == AtomicOp::CmpSwap { 4 } else { 2 })?;
        let v = l.pack(d[0], d[1]);
        let c = if op == AtomicOp::CmpSwap {
            Some(l.pack(d[2], d[3]))
        } else {
            None
        };
        (v, c)
    } else {
        let d = l.get_vregs(inst.src[1], if op == AtomicOp::CmpSwap { 2 } else { 1 })?;
        (d[0], d.get(1).copied())
    };
    let ty = if size == 8 { Ty::V64 } else { Ty::V32 };
    let mask = piece_mask(l, a, 0, size as u64);
    let old = l.push_op(
        Op::Atomic {
            pc: l.pc,
            space: a.space,
            op,
            addr: a.addr,
            size,
            data,
            cmp,
            mask,
        },
        ty,
    );
    // Returning atomics (GLC/SC0) write the pre-op value to VDST (FLAT word 1 bits [31:24]);
    // take it from the instruction word when the decoder leaves the destination out.
    let ret = if inst.dst[0].is_some() {
        Some(inst.dst[0])
    } else if inst.mem.glc && inst.format != Format::Mubuf {
        Some(crate::isa::Opnd::vgpr((inst.words[1] >> 24) as u8, 1))
    } else {
        None
    };
    if let Some(vd) = ret {
        let vals = if size == 8 {
            vec![l.lo(old), l.hi(old)]
        } else {
            vec![old]
        };
        l.set_vregs(vd, &vals, a.exec)?;
    }
    Ok(())
}
