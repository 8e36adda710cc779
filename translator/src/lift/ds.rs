//! LDS instructions (DS): reads and writes (incl. `read2`/`write2`/`st64`, sub-dword and
//! `d16` forms, b64/b96/b128), atomics, and the cross-lane `ds_swizzle_b32`/`ds_bpermute_b32`.
//!
//! Addresses are `vaddr + offset` computed in 64 bits (so a sum past 4 GiB is an out-of-range
//! access rather than a wrapped one). GFX9 does not clamp LDS addresses with M0.

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::env::{AtomicOp, Space};
use crate::ir::{ConvOp, Op, Ty, Val};
use crate::isa::Inst;
use crate::wave::InstClass;

/// Lifts a DS instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    let base = name.strip_prefix("ds_").unwrap_or(name);
    if base == "nop" {
        return Ok((InstClass::Lds, Flow::Next));
    }
    l.count_vector();
    lift_inner(l, inst, base)?;
    Ok((InstClass::Lds, Flow::Next))
}

/// `vaddr + off` as a `V64` LDS address.
fn addr(l: &mut Lifter, inst: &Inst, off: u64) -> R<Val> {
    let a = l.v32(inst.src[0], K::B32)?;
    let a = l.conv(ConvOp::ZExt, a);
    Ok(if off != 0 { l.add_imm(a, off) } else { a })
}

fn load(l: &mut Lifter, a: Val, size: u8, signed: bool) -> Val {
    let mask = l.exec();
    let ty = if size == 8 { Ty::V64 } else { Ty::V32 };
    l.push_op(
        Op::Load {
            pc: l.pc,
            space: Space::Lds,
            addr: a,
            size,
            signed,
            mask,
        },
        ty,
    )
}

fn store(l: &mut Lifter, a: Val, size: u8, data: Val) {
    let mask = l.exec();
    l.effect(Op::Store {
        pc: l.pc,
        space: Space::Lds,
        addr: a,
        size,
        data,
        mask,
    });
}

/// Splits a `V64` into its two dwords.
fn halves(l: &mut Lifter, v: Val) -> [Val; 2] {
    [l.lo(v), l.hi(v)]
}

fn lift_inner(l: &mut Lifter, inst: &Inst, base: &str) -> R<()> {
    let off = inst.mem.offset as u16 as u64;
    let exec = l.exec();
    // ---- reads ----
    if let Some(rest) = base
        .strip_prefix("read2st64_")
        .map(|r| (r, 64u64))
        .or_else(|| base.strip_prefix("read2_").map(|r| (r, 1)))
    {
        let (ty, stride) = rest;
        let size: u8 = if ty == "b64" { 8 } else { 4 };
        let unit = size as u64 * stride;
        let a = addr(l, inst, 0)?;
        let a0 = l.add_imm(a, (inst.mem.offset as u8) as u64 * unit);
        let a1 = l.add_imm(a, inst.mem.offset1 as u64 * unit);
        let v0 = load(l, a0, size, false);
        let v1 = load(l, a1, size, false);
        let vals: Vec<Val> = if size == 8 {
            let mut v = halves(l, v0).to_vec();
            v.extend(halves(l, v1));
            v
        } else {
            vec![v0, v1]
        };
        return l.set_vregs(inst.dst[0], &vals, exec);
    }
    if let Some(ty) = base.strip_prefix("read_") {
        let a = addr(l, inst, off)?;
        match ty {
            "b32" | "u8" | "i8" | "u16" | "i16" => {
                let (size, signed) = match ty {
                    "b32" => (4, false),
                    "u8" => (1, false),
                    "i8" => (1, true),
                    "u16" => (2, false),
                    _ => (2, true),
                };
                let v = load(l, a, size, signed);
                return l.set_vregs(inst.dst[0], &[v], exec);
            }
            "b64" | "b96" | "b128" => {
                let n = match ty {
                    "b64" => 2,
                    "b96" => 3,
                    _ => 4,
                };
                let vals: Vec<Val> = (0..n)
                    .map(|i| {
                        let ai = l.add_imm(a, 4 * i);
                        load(l, ai, 4, false)
                    })
                    .collect();
                return l.set_vregs(inst.dst[0], &vals, exec);
            }
            "u8_d16" | "i8_d16" | "u16_d16" | "u8_d16_hi" | "i8_d16_hi" | "u16_d16_hi" => {
                // Loads 16 bits (zero/sign-extended from 8) into one half; the other half is kept.
                let size = if ty.starts_with("u16") { 2 } else { 1 };
                let v = load(l, a, size, ty.starts_with('i'));
                let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
                let old = l.get_vreg(reg)?;
                let v = l.and_imm(v, 0xffff);
                let r = if ty.ends_with("_hi") {
                    let keep = l.and_imm(old, 0xffff);
                    let hi = l.shl_imm(v, 16);
                    l.or(keep, hi)
                } else {
                    let keep = l.and_imm(old, 0xffff_0000);
                    l.or(keep, v)
                };
                return l.set_vreg(reg, r, exec);
            }
            _ => return Err("not supported".into()),
        }
    }
    // ---- writes ----
    if let Some(rest) = base
        .strip_prefix("write2st64_")
        .map(|r| (r, 64u64))
        .or_else(|| base.strip_prefix("write2_").map(|r| (r, 1)))
    {
        let (ty, stride) = rest;
        let size: u8 = if ty == "b64" { 8 } else { 4 };
        let unit = size as u64 * stride;
        let a = addr(l, inst, 0)?;
        let k = if size == 8 { K::B64 } else { K::B32 };
        let (d0, d1) = if size == 8 {
            (l.v64(inst.src[1], k)?, l.v64(inst.src[2], k)?)
        } else {
            (l.v32(inst.src[1], k)?, l.v32(inst.src[2], k)?)
        };
        let a0 = l.add_imm(a, (inst.mem.offset as u8) as u64 * unit);
        let a1 = l.add_imm(a, inst.mem.offset1 as u64 * unit);
        store(l, a0, size, d0);
        store(l, a1, size, d1);
        return Ok(());
    }
    if let Some(ty) = base.strip_prefix("write_") {
        let a = addr(l, inst, off)?;
        match ty {
            "b8" | "b16" | "b32" | "b8_d16_hi" | "b16_d16_hi" => {
                let size = match ty {
                    "b8" | "b8_d16_hi" => 1,
                    "b16" | "b16_d16_hi" => 2,
                    _ => 4,
                };
                let d = l.v32(inst.src[1], K::B32)?;
                let d = if ty.ends_with("_hi") {
                    l.lshr_imm(d, 16)
                } else {
                    d
                };
                store(l, a, size, d);
                return Ok(());
            }
            "b64" | "b96" | "b128" => {
                let n = match ty {
                    "b64" => 2,
                    "b96" => 3,
                    _ => 4,
                };
                let ds = l.get_vregs(inst.src[1], n)?;
                for (i, d) in ds.into_iter().enumerate() {
                    let ai = l.add_imm(a, 4 * i as u64);
                    store(l, ai, 4, d);
                }
                return Ok(());
            }
            _ => return Err("not supported".into()),
        }
    }
    // ---- cross-lane ----
    match base {
        "swizzle_b32" | "bpermute_b32" => {
            // Reading an inactive lane gives 0 (ISA: "EXEC is applied to both the VGPR read
            // and write").
            let v = l.v32(inst.src[if base == "swizzle_b32" { 0 } else { 1 }], K::B32)?;
            let zero = l.cst(v, 0);
            let v = l.select(exec, v, zero);
            let idx = if base == "swizzle_b32" {
                let map = swizzle_map(off as u16);
                l.lane_const(map)
            } else {
                // Lane index = (vaddr + offset) / 4.
                let a = l.v32(inst.src[0], K::B32)?;
                let a = if off != 0 { l.add_imm(a, off) } else { a };
                let idx = l.lshr_imm(a, 2);
                // The lane index is taken modulo the wave size (RDNA ISA, DS_BPERMUTE_B32).
                if l.wave == 32 {
                    l.and_imm(idx, 31)
                } else {
                    idx
                }
            };
            let r = l.gather(v, idx);
            return l.set_vregs(inst.dst[0], &[r], exec);
        }
        "permute_b32" => {
            // Forward permute: each active lane i sends data[i] to lane ((addr[i] + offset)
            // / 4) & 63, in lane order (a later lane wins); lanes nobody writes get 0.
            let d = l.v32(inst.src[1], K::B32)?;
            let a = l.v32(inst.src[0], K::B32)?;
            let a = if off != 0 { l.add_imm(a, off) } else { a };
            let a = l.lshr_imm(a, 2);
            let idx = l.and_imm(a, (l.wave - 1) as u64);
            let z = l.c32(0);
            let mut tmp = l.bcast(z);
            for i in 0..l.wave as u64 {
                let lane = l.c32(i as u32);
                let x = l.read_lane(d, lane);
                let di = l.read_lane(idx, lane);
                let w = l.write_lane(tmp, di, x);
                // All ones when lane i is active.
                let bit = l.lshr_imm(exec, i);
                let bit = l.and_imm(bit, 1);
                let zero = l.c64(0);
                let m = l.bin(crate::ir::BinOp::Sub, zero, bit);
                tmp = l.select(m, w, tmp);
            }
            return l.set_vregs(inst.dst[0], &[tmp], exec);
        }
        _ => {}
    }
    atomic(l, inst, base, off, exec)
}

/// `ds_swizzle_b32` source lane of every lane for a swizzle offset: QDMode
/// (`offset[15]`: lane = quad base + `offset[2i+1:2i]`) or BitMode within 32-lane halves
/// (`((lane & and) | or) ^ xor` with the masks at offset bits 0, 5 and 10).
pub(crate) fn swizzle_map(off: u16) -> [u32; 64] {
    let mut m = [0u32; 64];
    for (l, slot) in m.iter_mut().enumerate() {
        let l = l as u32;
        *slot = if off & 0x8000 != 0 {
            (l & !3) + ((off as u32 >> (2 * (l & 3))) & 3)
        } else {
            let and = off as u32 & 0x1f;
            let or = (off as u32 >> 5) & 0x1f;
            let xor = (off as u32 >> 10) & 0x1f;
            (l & 32) | ((((l & 31) & and) | or) ^ xor)
        };
    }
    m
}

/// DS atomics (`ds_<op>[_rtn]_<type>`).
fn atomic(l: &mut Lifter, inst: &Inst, base: &str, off: u64, exec: Val) -> R<()> {
    let (head, ty) = base.rsplit_once('_').ok_or("not supported")?;
    let (op_name, rtn) = match head.strip_suffix("_rtn") {
        Some(h) => (h, true),
        None => (head, false),
    };
    let size: u8 = match ty {
        "u32" | "i32" | "b32" | "f32" => 4,
        "u64" | "i64" | "b64" | "f64" => 8,
        _ => return Err("not supported".into()),
    };
    let op = match op_name {
        "add" if ty.starts_with('f') => AtomicOp::FAdd,
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "min" if ty.starts_with('f') => AtomicOp::FMin,
        "max" if ty.starts_with('f') => AtomicOp::FMax,
        "min" if ty.starts_with('i') => AtomicOp::SMin,
        "max" if ty.starts_with('i') => AtomicOp::SMax,
        "min" => AtomicOp::UMin,
        "max" => AtomicOp::UMax,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "wrxchg" => AtomicOp::Swap,
        "cmpst" => AtomicOp::CmpSwap,
        _ => return Err("not supported".into()),
    };
    let k = if size == 8 { K::B64 } else { K::B32 };
    let a = addr(l, inst, off)?;
    let rd = |l: &mut Lifter, i: usize| -> R<Val> {
        if size == 8 {
            l.v64(inst.src[i], k)
        } else {
            l.v32(inst.src[i], k)
        }
    };
    // ds_cmpst: data0 is the compare value, data1 the new value.
    let (data, cmp) = if op == AtomicOp::CmpSwap {
        (rd(l, 2)?, Some(rd(l, 1)?))
    } else {
        (rd(l, 1)?, None)
    };
    let ty_ = if size == 8 { Ty::V64 } else { Ty::V32 };
    let old = l.push_op(
        Op::Atomic {
            pc: l.pc,
            space: Space::Lds,
            op,
            addr: a,
            size,
            data,
            cmp,
            mask: exec,
        },
        ty_,
    );
    if rtn {
        let vals: Vec<Val> = if size == 8 {
            halves(l, old).to_vec()
        } else {
            vec![old]
        };
        l.set_vregs(inst.dst[0], &vals, exec)?;
    }
    Ok(())
}
