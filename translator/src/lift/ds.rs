//! LDS instructions (DS): reads and writes (incl. `read2`/`write2`/`st64`, sub-dword and
//! `d16` forms, b64/b96/b128, `addtid`), atomics (incl. `rsub`, `mskor`, `wrap`, packed
//! f16/bf16 adds, `wrxchg2`, `condxchg32`), `ds_append`/`ds_consume`, and the cross-lane
//! `ds_swizzle_b32`/`ds_permute_b32`/`ds_bpermute_b32`, and gfx950's transposing
//! `ds_read_b64_tr_b16`/`_b8`/`_b4` and `ds_read_b96_tr_b6` (see `read_transposed`,
//! `read_transposed_sub_byte`).
//!
//! Addresses are `vaddr + offset` computed in 64 bits (so a sum past 4 GiB is an out-of-range
//! access rather than a wrapped one). GFX9 does not clamp LDS addresses with M0.
//! Atomics act lane by lane in ascending lane order (the runtime's contract), so lanes that
//! hit one address see each other's updates.
//!
//! Off-GPU definitions:
//! * GDS (the `gds` bit) does not exist here: such instructions are not lifted.
//! * `ds_append`/`ds_consume` (LDS form) keep their counter in LDS at byte address
//!   `M0 + offset` (LLVM passes the counter's LDS pointer in M0): one atomic add/subtract of
//!   `popcount(EXEC)` by the first active lane, the pre-op value returned to every active lane.
//! * `ds_read_addtid_b32`/`ds_write_addtid_b32` address `offset + M0[15:0] + 4 * lane`
//!   (ISA pseudocode).

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::env::{AtomicOp, Space};
use crate::ir::{BinOp, ConvOp, Op, Ty, UnOp, Val};
use crate::isa::Inst;
use crate::wave::InstClass;

/// Lifts a DS instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, name: &str) -> LiftResult {
    let base = name.strip_prefix("ds_").unwrap_or(name);
    if base == "nop" {
        return Ok((InstClass::Lds, Flow::Next));
    }
    if inst.mem.gds {
        return Err("GDS (global data share) is not available off-GPU".into());
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
    // ---- counters, thread-id addressing, exchanges ----
    match base {
        "append" | "consume" if l.gpu.family() == Some(crate::isa::Family::Gfx9) => {
            return append(l, inst, base == "append", off, exec);
        }
        "read_addtid_b32" | "write_addtid_b32" => {
            // offset + M0[15:0] + 4 * lane.
            let m0 = l.get_sreg(124);
            let m0 = l.and_imm(m0, 0xffff);
            let m0 = l.add_imm(m0, off);
            let m0 = l.conv(ConvOp::ZExt, m0);
            let lane = l.push_op(Op::LaneId, Ty::V32);
            let lane = l.shl_imm(lane, 2);
            let lane = l.conv(ConvOp::ZExt, lane);
            let b = l.bcast(m0);
            let a = l.add(b, lane);
            if base == "read_addtid_b32" {
                let v = load(l, a, 4, false);
                return l.set_vregs(inst.dst[0], &[v], exec);
            }
            let d = l.v32(inst.src[1], K::B32)?;
            store(l, a, 4, d);
            return Ok(());
        }
        "wrxchg2_rtn_b32" | "wrxchg2_rtn_b64" | "wrxchg2st64_rtn_b32" | "wrxchg2st64_rtn_b64" => {
            // Two swaps at vaddr + offset0/1 × (size × stride); returns {tmp1, tmp2}.
            let size: u8 = if base.ends_with("b64") { 8 } else { 4 };
            let stride = if base.contains("st64") { 64 } else { 1 };
            let unit = size as u64 * stride;
            let a = addr(l, inst, 0)?;
            let a0 = l.add_imm(a, (inst.mem.offset as u8) as u64 * unit);
            let a1 = l.add_imm(a, inst.mem.offset1 as u64 * unit);
            let k = if size == 8 { K::B64 } else { K::B32 };
            let (d0, d1) = if size == 8 {
                (l.v64(inst.src[1], k)?, l.v64(inst.src[2], k)?)
            } else {
                (l.v32(inst.src[1], k)?, l.v32(inst.src[2], k)?)
            };
            let t0 = lds_atomic(l, AtomicOp::Swap, a0, size, d0, None, exec);
            let t1 = lds_atomic(l, AtomicOp::Swap, a1, size, d1, None, exec);
            let vals: Vec<Val> = if size == 8 {
                let mut v = halves(l, t0).to_vec();
                v.extend(halves(l, t1));
                v
            } else {
                vec![t0, t1]
            };
            return l.set_vregs(inst.dst[0], &vals, exec);
        }
        "condxchg32_rtn_b64" => {
            // ISA: ADDR0 = (vaddr + offset) & 0xfff8, ADDR1 = ADDR0 + 4; each dword i returns
            // LDS[ADDRi] and, when DATA[32i+31] is set, stores {0, DATA[32i+30:32i]}. Each
            // conditional write is one masked-or atomic: mask all-ones and value when the
            // bit is set, else mask 0 and value 0 (memory unchanged).
            let a = l.v32(inst.src[0], K::B32)?;
            let a = if off != 0 { l.add_imm(a, off) } else { a };
            let a = l.and_imm(a, 0xfff8);
            let a = l.conv(ConvOp::ZExt, a);
            let d = l.get_vregs(inst.src[1], 2)?;
            let mut rets = Vec::with_capacity(2);
            for (i, di) in d.into_iter().enumerate() {
                let ai = if i == 0 { a } else { l.add_imm(a, 4) };
                let set = l.ashr_imm(di, 31); // all ones when bit 31 is set
                let val = l.and_imm(di, 0x7fff_ffff);
                let val = l.and(val, set);
                rets.push(lds_atomic(l, AtomicOp::MskOr, ai, 4, set, Some(val), exec));
            }
            return l.set_vregs(inst.dst[0], &rets, exec);
        }
        _ => {}
    }
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
    if base == "read_b64_tr_b16" || base == "read_b64_tr_b8" {
        return read_transposed(l, inst, base.ends_with("b16"), off, exec);
    }
    if base == "read_b64_tr_b4" || base == "read_b96_tr_b6" {
        return read_transposed_sub_byte(l, inst, base.ends_with("b6"), off, exec);
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
                let m = l.bin(BinOp::Sub, zero, bit);
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
        "u32" | "i32" | "b32" | "f32" | "f16" | "bf16" => 4,
        "u64" | "i64" | "b64" | "f64" => 8,
        _ => return Err("not supported".into()),
    };
    let op = match op_name {
        "pk_add" if ty == "f16" => AtomicOp::PkAddF16,
        "pk_add" if ty == "bf16" => AtomicOp::PkAddBf16,
        "rsub" => AtomicOp::RSub,
        "mskor" => AtomicOp::MskOr,
        "wrap" if ty == "b32" => AtomicOp::Wrap,
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
        // DS_CMPST_F32/F64 compare as floats (ISA: `tmp == cmp` on `.f32`/`.f64`).
        "cmpst" if ty.starts_with('f') => AtomicOp::FCmpSwap,
        "cmpst" => AtomicOp::CmpSwap,
        // RDNA4 (DS_COND_SUB_U32, DS_SUB_CLAMP_U32).
        "cond_sub" => AtomicOp::CondSub,
        "sub_clamp" => AtomicOp::SubClamp,
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
    // ds_cmpst: data0 is the compare value, data1 the new value. mskor/wrap: DATA2 (data1)
    // travels as the atomic's second operand.
    let (data, cmp) = match op {
        AtomicOp::CmpSwap | AtomicOp::FCmpSwap => (rd(l, 2)?, Some(rd(l, 1)?)),
        AtomicOp::MskOr | AtomicOp::Wrap => (rd(l, 1)?, Some(rd(l, 2)?)),
        _ => (rd(l, 1)?, None),
    };
    if op_name == "pk_add" && ty.ends_with("16") && inst.src[1].vreg().is_none() {
        return Err("packed add data is not a VGPR".into());
    }
    let old = lds_atomic(l, op, a, size, data, cmp, exec);
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

/// One LDS atomic over the lanes of `mask`; returns the pre-op values.
fn lds_atomic(
    l: &mut Lifter,
    op: AtomicOp,
    addr: Val,
    size: u8,
    data: Val,
    cmp: Option<Val>,
    mask: Val,
) -> Val {
    let ty = if size == 8 { Ty::V64 } else { Ty::V32 };
    l.push_op(
        Op::Atomic {
            pc: l.pc,
            space: Space::Lds,
            op,
            addr,
            size,
            data,
            cmp,
            mask,
        },
        ty,
    )
}

/// `ds_append` (`add`) / `ds_consume`: the counter at LDS byte address `M0 + offset` changes
/// by `popcount(EXEC)` in one atomic of the first active lane; every active lane receives
/// the pre-op value. With EXEC = 0 nothing happens.
pub(super) fn append(l: &mut Lifter, inst: &Inst, add: bool, off: u64, exec: Val) -> R<()> {
    let m0 = l.get_sreg(124);
    let a = l.conv(ConvOp::ZExt, m0);
    let a = l.add_imm(a, off);
    let a = l.bcast(a);
    let n = l.un(UnOp::Popcnt, exec);
    let n = l.conv(ConvOp::Lo, n);
    let n = l.bcast(n);
    // The lowest set bit of EXEC: exec & -exec.
    let zero = l.c64(0);
    let neg = l.bin(BinOp::Sub, zero, exec);
    let first = l.and(exec, neg);
    let op = if add { AtomicOp::Add } else { AtomicOp::Sub };
    let old = lds_atomic(l, op, a, 4, n, None, first);
    let lane = l.un(UnOp::Ctz, exec);
    let lane = l.conv(ConvOp::Lo, lane);
    let lane = l.and_imm(lane, 63);
    let v = l.read_lane(old, lane);
    let v = l.bcast(v);
    l.set_vregs(inst.dst[0], &[v], exec)
}

/// gfx950 `ds_read_b64_tr_b16` / `ds_read_b64_tr_b8`: within each group of 16 lanes, every
/// lane addresses 64 bits (`vaddr + offset`) holding 4 b16 (8 b8) consecutive elements of a
/// 16-lane × 64-bit tile, and receives the transposed tile: with `i` the lane's index in its
/// group, element `k` of the result is element `i % n` (n = 4 or 8 elements per lane) of the
/// 64 bits addressed by group lane `i / n + k × (16 / n)`. For b16 this is the 16 × 4 base
/// unit of LLVM/Triton's description (each of 4 lanes holds 4 consecutive elements of one
/// column; afterwards lane `i` holds row `i`); for b8, two interleaved 8 × 8 byte transposes
/// (even lanes → lanes 0-7, odd lanes → lanes 8-15).
fn read_transposed(l: &mut Lifter, inst: &Inst, b16: bool, off: u64, exec: Val) -> R<()> {
    let (n, size) = if b16 { (4u32, 2u8) } else { (8, 1) };
    let va = l.v32(inst.src[0], K::B32)?;
    let va = if off != 0 { l.add_imm(va, off) } else { va };
    let mut elems = Vec::with_capacity(n as usize);
    for k in 0..n {
        let mut src = [0u32; 64];
        let mut byte = [0u32; 64];
        for i in 0..64u32 {
            let g = i % 16;
            src[i as usize] = (i - g) + g / n + k * (16 / n);
            byte[i as usize] = (g % n) * size as u32;
        }
        let idx = l.lane_const(src);
        let a = l.gather(va, idx);
        let bo = l.lane_const(byte);
        let a = l.add(a, bo);
        let a = l.conv(ConvOp::ZExt, a);
        elems.push(load(l, a, size, false));
    }
    let per = 32 / (8 * size as u32); // elements per dword
    let mut dws = Vec::with_capacity(2);
    for d in elems.chunks(per as usize) {
        let mut v = d[0];
        for (j, e) in d.iter().enumerate().skip(1) {
            let t = l.shl_imm(*e, (8 * size as u64) * j as u64);
            v = l.or(v, t);
        }
        dws.push(v);
    }
    l.set_vregs(inst.dst[0], &dws, exec)
}

/// gfx950 `ds_read_b64_tr_b4` / `ds_read_b96_tr_b6`: within each group of 16 lanes, every
/// lane addresses 64 (96) bits (`vaddr + offset`) holding 16 4-bit (6-bit) elements, element
/// e in bits `e·w + w-1 : e·w` (nibbles low first; 6-bit values densely, as the FP4/FP6 MFMA
/// operands), and receives the transposed 16 × 16 tile: with `i` the lane's index in its
/// group, element `k` of the result (same packing across the 2 or 3 destination VGPRs) is
/// element `i` of the bits addressed by group lane `k` — the `read_transposed` rule with 16
/// elements per lane. Source: AMD's rocRoller hardware test of these instructions
/// (`TransposeLoadsTest`, gfx950: `data[(4t+2z+w)·256 + 16x + y] == result[(4w+2t+z)·256 +
/// 16y + x]` for b6, the b4/b8/b16 check likewise; it also gives b8 the `read_transposed`
/// mapping). The ISA text (CDNA4 12.x) only says "transpose". rocRoller pads b6 rows to
/// 128-bit aligned addresses ("DS_READ_B96_TR_B6 requires 128b-aligned addresses"); the 12
/// bytes at any address are read here.
fn read_transposed_sub_byte(l: &mut Lifter, inst: &Inst, b6: bool, off: u64, exec: Val) -> R<()> {
    let (bits, dwords) = if b6 { (6u32, 3usize) } else { (4, 2) };
    let va = l.v32(inst.src[0], K::B32)?;
    let va = if off != 0 { l.add_imm(va, off) } else { va };
    // Per lane (index i in its group): the first dword of the 64 bits holding element i, and
    // the element's shift within them (b6: dword 1 from element 6 on, so the 64 bits read
    // stay inside the 96).
    let mut first = [0u32; 64];
    let mut shift = [0u32; 64];
    for (lane, (f, s)) in first.iter_mut().zip(shift.iter_mut()).enumerate() {
        let bit = bits * (lane as u32 % 16);
        *f = if bit >= 32 && b6 { 4 } else { 0 };
        *s = bit - 8 * *f;
    }
    let first = l.lane_const(first);
    let shift = l.lane_const(shift);
    let shift = l.conv(ConvOp::ZExt, shift);
    let mut elems = Vec::with_capacity(16);
    for k in 0..16u32 {
        let mut src = [0u32; 64];
        for (i, s) in src.iter_mut().enumerate() {
            *s = (i as u32 & !15) + k;
        }
        let idx = l.lane_const(src);
        let a = l.gather(va, idx);
        let a = l.add(a, first);
        let a = l.conv(ConvOp::ZExt, a);
        let lo = load(l, a, 4, false);
        let a4 = l.add_imm(a, 4);
        let hi = load(l, a4, 4, false);
        let v = l.pack(lo, hi);
        let v = l.bin(BinOp::LShr, v, shift);
        let v = l.conv(ConvOp::Lo, v);
        elems.push(l.and_imm(v, (1 << bits) - 1));
    }
    // Element k at bits k·w of the 64/96-bit result.
    let mut out: Vec<Option<Val>> = vec![None; dwords];
    for (k, &e) in elems.iter().enumerate() {
        let bit = bits as usize * k;
        let (w, s) = (bit / 32, (bit % 32) as u64);
        let mut parts = vec![(w, l.shl_imm(e, s))];
        if s + bits as u64 > 32 {
            parts.push((w + 1, l.lshr_imm(e, 32 - s)));
        }
        for (w, p) in parts {
            out[w] = Some(match out[w] {
                Some(acc) => l.or(acc, p),
                None => p,
            });
        }
    }
    let vals: Vec<Val> = out
        .into_iter()
        .map(|v| v.unwrap_or_else(|| l.cst(elems[0], 0)))
        .collect();
    l.set_vregs(inst.dst[0], &vals, exec)
}
