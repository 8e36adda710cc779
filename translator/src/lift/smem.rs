//! Scalar memory: `s_load_dword*`, `s_buffer_load_dword*`, `s_store_dword*`,
//! `s_buffer_store_dword*`, scalar atomics (`s_atomic_*`, `s_buffer_atomic_*`), `s_memtime`/
//! `s_memrealtime`, and cache maintenance and probes (no-ops).
//!
//! Off-GPU definitions: the data cache is not modelled, so `s_dcache_inv`/`wb`/`discard`
//! and `s_atc_probe*` (an address-translation-cache probe) have no effect; `s_memtime` and
//! `s_memrealtime` read the environment clock (`WaveEnv::clock`: in the runtime a per-wave
//! counter that advances by 64 per read, deterministic and independent of the host clock).
//!
//! Buffer forms (`s_buffer_*`) take base, stride and `num_records` from the V# in four SGPRs
//! and range-check each dword's byte offset against `max(stride, 1) * num_records`: an
//! out-of-range dword loads 0 without any memory access, and stores and atomics out of range
//! have no effect (an atomic then returns 0).
//!
//! Scalar atomics are performed as a one-lane vector atomic (lane 0) on global memory, so
//! they share the runtime's host atomics and checks; `glc` returns the pre-op value.
//!
//! Scalar scratch (`s_scratch_load_dword*`, `s_scratch_store_dword*`, GFX9): see [`scratch`].

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::env::{AtomicOp, Space};
use crate::ir::{BinOp, CmpOp, ConvOp, Op, Ty, Val};
use crate::isa::generated::SmemSem;
use crate::isa::Inst;
use crate::wave::InstClass;

/// What an SMEM operation does, from its semantic key.
#[derive(Clone, Copy)]
enum Access {
    /// Cache maintenance, cache probes and prefetch hints: no effect here.
    NoEffect,
    /// `s_memtime` / `s_memrealtime`: the environment clock.
    Clock,
    /// `s_load_dword*`: `n` dwords from an address in an SGPR pair.
    Load(u16),
    /// `s_buffer_load_dword*`: `n` dwords through a V#.
    BufferLoad(u16),
    /// gfx12 `s_load_u8/i8/u16/i16`: one extended sub-dword value.
    SmallLoad(ConvOp),
    /// gfx12 `s_buffer_load_u8/i8/u16/i16`.
    BufferSmallLoad(ConvOp),
    /// `s_store_dword*`.
    Store(u16),
    /// `s_buffer_store_dword*`.
    BufferStore(u16),
    /// GFX9 `s_scratch_load_dword*` / `s_scratch_store_dword*` (`true`: store).
    Scratch(bool, u16),
    /// `s_atomic_*` / `s_buffer_atomic_*` (`buffer`), 64-bit when `wide` (`_x2`).
    Atomic {
        op: AtomicOp,
        wide: bool,
        buffer: bool,
    },
}

/// The access of `op`.
fn access(op: SmemSem) -> Access {
    use Access::*;
    use AtomicOp as A;
    use SmemSem::*;
    let atomic = |op, wide, buffer| Atomic { op, wide, buffer };
    match op {
        S_DCACHE_INV | S_DCACHE_WB | S_DCACHE_INV_VOL | S_DCACHE_WB_VOL | S_DCACHE_DISCARD
        | S_DCACHE_DISCARD_X2 | S_ATC_PROBE | S_ATC_PROBE_BUFFER => NoEffect,
        // gfx12 instruction/data prefetches: hints only.
        S_PREFETCH_DATA
        | S_PREFETCH_DATA_PC_REL
        | S_PREFETCH_INST
        | S_PREFETCH_INST_PC_REL
        | S_BUFFER_PREFETCH_DATA => NoEffect,
        S_MEMTIME | S_MEMREALTIME => Clock,
        S_LOAD_DWORD => Load(1),
        S_LOAD_DWORDX2 => Load(2),
        S_LOAD_DWORDX3 => Load(3),
        S_LOAD_DWORDX4 => Load(4),
        S_LOAD_DWORDX8 => Load(8),
        S_LOAD_DWORDX16 => Load(16),
        S_BUFFER_LOAD_DWORD => BufferLoad(1),
        S_BUFFER_LOAD_DWORDX2 => BufferLoad(2),
        S_BUFFER_LOAD_DWORDX3 => BufferLoad(3),
        S_BUFFER_LOAD_DWORDX4 => BufferLoad(4),
        S_BUFFER_LOAD_DWORDX8 => BufferLoad(8),
        S_BUFFER_LOAD_DWORDX16 => BufferLoad(16),
        S_LOAD_U8 => SmallLoad(ConvOp::ZExt8),
        S_LOAD_I8 => SmallLoad(ConvOp::SExt8),
        S_LOAD_U16 => SmallLoad(ConvOp::ZExt16),
        S_LOAD_I16 => SmallLoad(ConvOp::SExt16),
        S_BUFFER_LOAD_U8 => BufferSmallLoad(ConvOp::ZExt8),
        S_BUFFER_LOAD_I8 => BufferSmallLoad(ConvOp::SExt8),
        S_BUFFER_LOAD_U16 => BufferSmallLoad(ConvOp::ZExt16),
        S_BUFFER_LOAD_I16 => BufferSmallLoad(ConvOp::SExt16),
        S_STORE_DWORD => Store(1),
        S_STORE_DWORDX2 => Store(2),
        S_STORE_DWORDX4 => Store(4),
        S_BUFFER_STORE_DWORD => BufferStore(1),
        S_BUFFER_STORE_DWORDX2 => BufferStore(2),
        S_BUFFER_STORE_DWORDX4 => BufferStore(4),
        S_SCRATCH_LOAD_DWORD => Scratch(false, 1),
        S_SCRATCH_LOAD_DWORDX2 => Scratch(false, 2),
        S_SCRATCH_LOAD_DWORDX4 => Scratch(false, 4),
        S_SCRATCH_STORE_DWORD => Scratch(true, 1),
        S_SCRATCH_STORE_DWORDX2 => Scratch(true, 2),
        S_SCRATCH_STORE_DWORDX4 => Scratch(true, 4),
        S_ATOMIC_SWAP => atomic(A::Swap, false, false),
        S_ATOMIC_CMPSWAP => atomic(A::CmpSwap, false, false),
        S_ATOMIC_ADD => atomic(A::Add, false, false),
        S_ATOMIC_SUB => atomic(A::Sub, false, false),
        S_ATOMIC_SMIN => atomic(A::SMin, false, false),
        S_ATOMIC_UMIN => atomic(A::UMin, false, false),
        S_ATOMIC_SMAX => atomic(A::SMax, false, false),
        S_ATOMIC_UMAX => atomic(A::UMax, false, false),
        S_ATOMIC_AND => atomic(A::And, false, false),
        S_ATOMIC_OR => atomic(A::Or, false, false),
        S_ATOMIC_XOR => atomic(A::Xor, false, false),
        S_ATOMIC_INC => atomic(A::Inc, false, false),
        S_ATOMIC_DEC => atomic(A::Dec, false, false),
        S_ATOMIC_SWAP_X2 => atomic(A::Swap, true, false),
        S_ATOMIC_CMPSWAP_X2 => atomic(A::CmpSwap, true, false),
        S_ATOMIC_ADD_X2 => atomic(A::Add, true, false),
        S_ATOMIC_SUB_X2 => atomic(A::Sub, true, false),
        S_ATOMIC_SMIN_X2 => atomic(A::SMin, true, false),
        S_ATOMIC_UMIN_X2 => atomic(A::UMin, true, false),
        S_ATOMIC_SMAX_X2 => atomic(A::SMax, true, false),
        S_ATOMIC_UMAX_X2 => atomic(A::UMax, true, false),
        S_ATOMIC_AND_X2 => atomic(A::And, true, false),
        S_ATOMIC_OR_X2 => atomic(A::Or, true, false),
        S_ATOMIC_XOR_X2 => atomic(A::Xor, true, false),
        S_ATOMIC_INC_X2 => atomic(A::Inc, true, false),
        S_ATOMIC_DEC_X2 => atomic(A::Dec, true, false),
        S_BUFFER_ATOMIC_SWAP => atomic(A::Swap, false, true),
        S_BUFFER_ATOMIC_CMPSWAP => atomic(A::CmpSwap, false, true),
        S_BUFFER_ATOMIC_ADD => atomic(A::Add, false, true),
        S_BUFFER_ATOMIC_SUB => atomic(A::Sub, false, true),
        S_BUFFER_ATOMIC_SMIN => atomic(A::SMin, false, true),
        S_BUFFER_ATOMIC_UMIN => atomic(A::UMin, false, true),
        S_BUFFER_ATOMIC_SMAX => atomic(A::SMax, false, true),
        S_BUFFER_ATOMIC_UMAX => atomic(A::UMax, false, true),
        S_BUFFER_ATOMIC_AND => atomic(A::And, false, true),
        S_BUFFER_ATOMIC_OR => atomic(A::Or, false, true),
        S_BUFFER_ATOMIC_XOR => atomic(A::Xor, false, true),
        S_BUFFER_ATOMIC_INC => atomic(A::Inc, false, true),
        S_BUFFER_ATOMIC_DEC => atomic(A::Dec, false, true),
        S_BUFFER_ATOMIC_SWAP_X2 => atomic(A::Swap, true, true),
        S_BUFFER_ATOMIC_CMPSWAP_X2 => atomic(A::CmpSwap, true, true),
        S_BUFFER_ATOMIC_ADD_X2 => atomic(A::Add, true, true),
        S_BUFFER_ATOMIC_SUB_X2 => atomic(A::Sub, true, true),
        S_BUFFER_ATOMIC_SMIN_X2 => atomic(A::SMin, true, true),
        S_BUFFER_ATOMIC_UMIN_X2 => atomic(A::UMin, true, true),
        S_BUFFER_ATOMIC_SMAX_X2 => atomic(A::SMax, true, true),
        S_BUFFER_ATOMIC_UMAX_X2 => atomic(A::UMax, true, true),
        S_BUFFER_ATOMIC_AND_X2 => atomic(A::And, true, true),
        S_BUFFER_ATOMIC_OR_X2 => atomic(A::Or, true, true),
        S_BUFFER_ATOMIC_XOR_X2 => atomic(A::Xor, true, true),
        S_BUFFER_ATOMIC_INC_X2 => atomic(A::Inc, true, true),
        S_BUFFER_ATOMIC_DEC_X2 => atomic(A::Dec, true, true),
    }
}

/// Lifts an SMEM instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: SmemSem) -> LiftResult {
    match access(op) {
        Access::NoEffect => {}
        Access::Clock => {
            let c = l.push_op(Op::Clock, Ty::S64);
            l.set_s64(inst.dst[0], c)?;
        }
        Access::Load(n) => load(l, inst, n)?,
        Access::BufferLoad(n) => buffer_load(l, inst, n)?,
        Access::SmallLoad(ext) => sload_small(l, inst, ext)?,
        Access::BufferSmallLoad(ext) => sbuffer_load_small(l, inst, ext)?,
        Access::Store(n) => store(l, inst, n)?,
        Access::BufferStore(n) => buffer_store(l, inst, n)?,
        Access::Scratch(st, n) => scratch(l, inst, st, n)?,
        Access::Atomic { op, wide, buffer } => atomic(l, inst, op, wide, buffer)?,
    }
    Ok((InstClass::Smem, Flow::Next))
}

/// The offset part of the address: the immediate plus the `soffset` SGPR when present.
pub(super) fn offset(l: &mut Lifter, inst: &Inst) -> R<Val> {
    let imm = l.c64(inst.mem.offset as i64 as u64);
    if inst.src[2].is_some() {
        let so = l.s32(inst.src[2], K::B32)?;
        let so = l.conv(ConvOp::ZExt, so);
        Ok(l.add(imm, so))
    } else {
        Ok(imm)
    }
}

/// A V# in SGPRs: `(base S64, limit S64)`. V#: base = {dword1[15:0], dword0}, stride =
/// dword1[29:16], num_records = dword2. A dword at byte offset `o` is out of range when
/// `o >= (stride == 0 ? 1 : stride) * num_records` (ISA "Address and GPR Range Checking").
pub(super) fn vsharp(l: &mut Lifter, inst: &Inst) -> R<(Val, Val)> {
    let sb = inst.src[0]
        .sreg()
        .ok_or("buffer resource is not an SGPR quad")?;
    if sb as u16 + 4 > 128 {
        return Err("V# range leaves the scalar registers".into());
    }
    let d0 = l.get_sreg(sb);
    let d1 = l.get_sreg(sb + 1);
    let d2 = l.get_sreg(sb + 2);
    let hi = l.and_imm(d1, 0xffff);
    let base = l.pack(d0, hi);
    let stride = l.lshr_imm(d1, 16);
    let stride = l.and_imm(stride, 0x3fff);
    let one = l.c32(1);
    let unit = l.bin(BinOp::UMax, stride, one);
    let unit = l.conv(ConvOp::ZExt, unit);
    let nrec = l.conv(ConvOp::ZExt, d2);
    Ok((base, l.bin(BinOp::Mul, unit, nrec)))
}

/// Lane mask `1` (lane 0) when `ok` (an `S32`/`S64` boolean), else 0.
fn lane0_if(l: &mut Lifter, ok: Val) -> Val {
    let one = l.c64(1);
    let zero = l.c64(0);
    l.select(ok, one, zero)
}

/// A scalar atomic `op` (`s_atomic_*`, or `s_buffer_atomic_*` when `buffer`), 64-bit when
/// `wide` (`_x2`).
fn atomic(l: &mut Lifter, inst: &Inst, op: AtomicOp, wide: bool, buffer: bool) -> R<()> {
    let size: u8 = if wide { 8 } else { 4 };
    let dw = (size / 4) as u16;
    let sd = inst.src[1]
        .sreg()
        .ok_or("scalar atomic data is not an SGPR")?;
    let ndata = if op == AtomicOp::CmpSwap { 2 * dw } else { dw };
    if sd as u16 + ndata > 128 {
        return Err("data range leaves the scalar registers".into());
    }
    let word = |l: &mut Lifter, r: u8| -> Val {
        if wide {
            let lo = l.get_sreg(r);
            let hi = l.get_sreg(r + 1);
            l.pack(lo, hi)
        } else {
            l.get_sreg(r)
        }
    };
    // cmpswap: DATA[low] is the new value, the next register(s) the compare value.
    let data = word(l, sd);
    let cmp = if op == AtomicOp::CmpSwap {
        let c = word(l, sd + dw as u8);
        Some(l.bcast(c))
    } else {
        None
    };
    let off = offset(l, inst)?;
    let (addr, mask) = if buffer {
        let (base, nrec) = vsharp(l, inst)?;
        let off = l.and_imm(off, 0xffff_ffff);
        let ok = l.cmp(CmpOp::ULt, off, nrec);
        let m = lane0_if(l, ok);
        (l.add(base, off), m)
    } else {
        let base = l.s64(inst.src[0], K::B64)?;
        (l.add(base, off), l.c64(1))
    };
    // The address must be naturally aligned: the low bits are ignored as for loads.
    let addr = l.and_imm(addr, !(size as u64 - 1));
    let va = l.bcast(addr);
    let vd = l.bcast(data);
    let ty = if wide { Ty::V64 } else { Ty::V32 };
    let old = l.push_op(
        Op::Atomic {
            pc: l.pc,
            space: Space::Global,
            op,
            addr: va,
            size,
            data: vd,
            cmp,
            mask,
        },
        ty,
    );
    if inst.dst[0].is_some() {
        let lane0 = l.c32(0);
        if wide {
            let lo = l.lo(old);
            let hi = l.hi(old);
            let lo = l.read_lane(lo, lane0);
            let hi = l.read_lane(hi, lane0);
            l.set_sreg(sd, lo);
            l.set_sreg(sd + 1, hi);
        } else {
            let r = l.read_lane(old, lane0);
            l.set_sreg(sd, r);
        }
    }
    Ok(())
}

/// `s_load_dword*`: `n` dwords from `sbase + offset (+ soffset)`, the two low address bits
/// ignored.
fn load(l: &mut Lifter, inst: &Inst, n: u16) -> R<()> {
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
    Ok(())
}

/// `s_buffer_load_dword*`: `n` dwords through the V#; a dword at or past `num_records` reads 0.
fn buffer_load(l: &mut Lifter, inst: &Inst, n: u16) -> R<()> {
    let (base, nrec) = vsharp(l, inst)?;
    let off = offset(l, inst)?;
    let off = l.and_imm(off, 0xffff_ffff & !3);
    let reg = inst.dst[0]
        .sreg()
        .ok_or("scalar load destination is not an SGPR")?;
    if reg as u16 + n > 128 {
        return Err("destination range leaves the scalar registers".into());
    }
    let mut vals = Vec::with_capacity(n as usize);
    for i in 0..n {
        // Each dword is a one-lane load that takes place only when in range: a dword at
        // or past num_records reads 0 without touching memory.
        let oi = l.add_imm(off, 4 * i as u64);
        let ok = l.cmp(CmpOp::ULt, oi, nrec);
        let mask = lane0_if(l, ok);
        let ai = l.add(base, oi);
        let va = l.bcast(ai);
        let v = l.push_op(
            Op::Load {
                pc: l.pc,
                space: Space::Global,
                addr: va,
                size: 4,
                signed: false,
                mask,
            },
            Ty::V32,
        );
        let lane0 = l.c32(0);
        vals.push(l.read_lane(v, lane0));
    }
    for (i, v) in vals.into_iter().enumerate() {
        l.set_sreg(reg + i as u8, v);
    }
    Ok(())
}

/// `s_buffer_store_dword*`: `n` dwords through the V#; out-of-range dwords are not stored.
fn buffer_store(l: &mut Lifter, inst: &Inst, n: u16) -> R<()> {
    let (base, nrec) = vsharp(l, inst)?;
    let off = offset(l, inst)?;
    let off = l.and_imm(off, 0xffff_ffff & !3);
    let reg = inst.src[1]
        .sreg()
        .ok_or("scalar store data is not an SGPR")?;
    if reg as u16 + n > 128 {
        return Err("data range leaves the scalar registers".into());
    }
    for i in 0..n {
        let oi = l.add_imm(off, 4 * i as u64);
        let ok = l.cmp(CmpOp::ULt, oi, nrec);
        let mask = lane0_if(l, ok);
        let ai = l.add(base, oi);
        let va = l.bcast(ai);
        let d = l.get_sreg(reg + i as u8);
        let vd = l.bcast(d);
        l.effect(Op::Store {
            pc: l.pc,
            space: Space::Global,
            addr: va,
            size: 4,
            data: vd,
            mask,
        });
    }
    Ok(())
}

/// `s_store_dword*`: `n` dwords to `sbase + offset (+ soffset)`.
fn store(l: &mut Lifter, inst: &Inst, n: u16) -> R<()> {
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
    Ok(())
}

/// Lanes whose dwords the wave's swizzled scratch interleaves: wave byte address `w` holds
/// byte `w % 4` of lane `(w / 4) % 64`'s dword at private offset `(w / 256) * 4`.
const SCRATCH_LANES: u64 = 64;

/// `s_scratch_load_dword*` / `s_scratch_store_dword*` (GFX9 SMEM): `n` dwords at the wave
/// scratch address `ADDR = SGPR[base] + inst_offset + {M0 | SGPR[soffset] | 0} * 64`, the two
/// low bits ignored (CDNA4 ISA 8.2.1.1 "Scalar Memory Addressing").
///
/// `ADDR` addresses the wave's scratch as the hardware lays it out: swizzled with 4-byte
/// elements and an index stride of 64 lanes (each lane's consecutive dwords are 256 bytes
/// apart; CDNA3 ISA 9.1.5.2 "Swizzled Buffer Addressing", the layout the private segment
/// and `scratch_*` use, as gem5 found against MI300 hardware: "each dword is interleaved 64
/// lanes * 4 bytes away"). That is why the register offset, a per-lane byte offset, is
/// multiplied by 64. wavejit stores the private segment per lane and gives every wave a
/// scratch base of 0 (the private segment buffer V# and the flat-scratch init SGPRs hold
/// base 0, see `runtime::dispatch::wave_init`), so `ADDR` is an offset in the wave's scratch: dword `i`
/// at `a = ADDR + 4i` is lane `(a >> 2) % 64`'s dword at private offset `(a >> 8) * 4`. Each
/// dword is a one-lane scratch access (EXEC does not apply: a scalar access), range-checked
/// and faulting as a vector scratch access of that lane (`MemError::OutOfRange` beyond the
/// lane's private size; an `ADDR` that wraps below 0 is far out of range).
fn scratch(l: &mut Lifter, inst: &Inst, store: bool, n: u16) -> R<()> {
    let base = l.s64(inst.src[0], K::B64)?;
    let mut a = l.add_imm(base, inst.mem.offset as i64 as u64);
    if inst.src[2].is_some() {
        let so = l.s32(inst.src[2], K::B32)?;
        let so = l.conv(ConvOp::ZExt, so);
        let k = l.c64(SCRATCH_LANES);
        let so = l.bin(BinOp::Mul, so, k);
        a = l.add(a, so);
    }
    let a = l.and_imm(a, !3);
    let (reg, what) = if store {
        (inst.src[1], "scalar scratch store data")
    } else {
        (inst.dst[0], "scalar scratch load destination")
    };
    let reg = reg.sreg().ok_or(format!("{what} is not an SGPR"))?;
    if reg as u16 + n > 128 {
        return Err(format!("{what} range leaves the scalar registers"));
    }
    let one = l.c64(1);
    let mut vals = Vec::with_capacity(n as usize);
    for i in 0..n {
        let ai = l.add_imm(a, 4 * i as u64);
        let lane = l.lshr_imm(ai, 2);
        let lane = l.and_imm(lane, SCRATCH_LANES - 1);
        let row = l.lshr_imm(ai, 8);
        let off = l.shl_imm(row, 2);
        let addr = l.bcast(off);
        let mask = l.bin(BinOp::Shl, one, lane);
        let lane32 = l.lo(lane);
        if store {
            let d = l.get_sreg(reg + i as u8);
            let data = l.bcast(d);
            l.effect(Op::Store {
                pc: l.pc,
                space: Space::Scratch,
                addr,
                size: 4,
                data,
                mask,
            });
        } else {
            let v = l.push_op(
                Op::Load {
                    pc: l.pc,
                    space: Space::Scratch,
                    addr,
                    size: 4,
                    signed: false,
                    mask,
                },
                Ty::V32,
            );
            vals.push(l.read_lane(v, lane32));
        }
    }
    // Load every dword before writing any, so a destination overlapping the base is safe.
    for (i, v) in vals.into_iter().enumerate() {
        l.set_sreg(reg + i as u8, v);
    }
    Ok(())
}

// ---- RDNA ---------------------------------------------------------------------------------

/// gfx12 `s_load_u8/i8/u16/i16` (RDNA4 ISA 8.1.3): 8 or 16 bits (16-bit loads 2-byte
/// aligned) at `sbase + offset (+ soffset)`, zero- or sign-extended into one SGPR. The
/// containing dword is loaded and the field extracted.
fn sload_small(l: &mut Lifter, inst: &Inst, ext: ConvOp) -> R<()> {
    let base = l.s64(inst.src[0], K::B64)?;
    let v = small_load_at(l, inst, ext, base, None)?;
    let reg = inst.dst[0]
        .sreg()
        .ok_or("scalar load destination is not an SGPR")?;
    l.set_sreg(reg, v);
    Ok(())
}

/// gfx12 `s_buffer_load_u8/i8/u16/i16`: as `s_load_*` from the V# base; an offset at or
/// past `num_records * max(stride, 1)` reads 0 (RDNA4 ISA 9.4.1.4; the access then uses
/// offset 0, inside the buffer).
fn sbuffer_load_small(l: &mut Lifter, inst: &Inst, ext: ConvOp) -> R<()> {
    let (base, limit) = vsharp(l, inst)?;
    let v = small_load_at(l, inst, ext, base, Some(limit))?;
    let reg = inst.dst[0]
        .sreg()
        .ok_or("scalar load destination is not an SGPR")?;
    l.set_sreg(reg, v);
    Ok(())
}

/// The 8/16-bit scalar load at `base + offset (+ soffset)`, zero- or sign-extended;
/// with `limit`, an offset at or past it reads 0.
fn small_load_at(
    l: &mut Lifter,
    inst: &Inst,
    ext: ConvOp,
    base: Val,
    limit: Option<Val>,
) -> R<Val> {
    let off = offset(l, inst)?;
    let (off, ok) = match limit {
        Some(lim) => {
            let ok = l.cmp(CmpOp::ULt, off, lim);
            let z = l.c64(0);
            (l.select(ok, off, z), Some(ok))
        }
        None => (off, None),
    };
    let a = l.add(base, off);
    let wide = matches!(ext, ConvOp::ZExt16 | ConvOp::SExt16);
    // A 16-bit load ignores address bit 0 (it must be aligned).
    let a = if wide { l.and_imm(a, !1) } else { a };
    let dword = l.and_imm(a, !3);
    let w = l.push_op(
        crate::ir::Op::SLoad {
            pc: l.pc,
            addr: dword,
        },
        Ty::S32,
    );
    let sh = l.and_imm(a, 3);
    let sh = l.conv(ConvOp::Lo, sh);
    let sh = l.shl_imm(sh, 3);
    let v = l.bin(BinOp::LShr, w, sh);
    let v = l.conv(ext, v);
    Ok(match ok {
        Some(ok) => {
            let z = l.c32(0);
            l.select(ok, v, z)
        }
        None => v,
    })
}
