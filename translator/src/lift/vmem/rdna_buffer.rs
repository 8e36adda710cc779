//! RDNA (GFX11/GFX12) buffer addressing: the V# fields, linear and swizzled addresses and
//! the four out-of-range modes (RDNA4 ISA 9.4, 9.6; GFX11 has the same fields except
//! STRIDE_SCALE, whose bits belong to its 7-bit FORMAT).
//!
//! V#: `[47:0]` base, `[61:48]` stride, `[63:62]` swizzle enable (0 off, 1 4-byte elements,
//! 3 16-byte elements; 2 is reserved and treated as 16), `[95:64]` num_records,
//! `[115:114]` stride scale (gfx12: ×1, ×4, ×8, ×32), `[118:117]` index stride (8 << n),
//! `[119]` add thread id, `[125:124]` OOB_SELECT. The V# lives in SGPRs, so every field is a
//! run-time value and the modes are selected in the IR.
//!
//! Out of range (Table 56), per DWORD for multi-DWORD accesses (the caller checks each
//! piece):
//! * 0: `index >= num_records || offset + payload > stride` (structured);
//! * 1: `index >= num_records` (raw);
//! * 2: `num_records == 0` (no check otherwise);
//! * 3: swizzled with stride ≠ 0 as mode 0, else `offset + payload > num_records` where the
//!   offset is VGPR offset + instruction offset (num_records "reduced by sgpr_offset": the
//!   SGPR offset counts too).
//!
//! Typed accesses (`buffer_*_format_*`, `tbuffer_*`) take the unified FORMAT and DST_SEL
//! through [`typed_dword3`] into `vmem`'s GFX9 typed path; the element is checked as a whole.
//!
//! Not modelled: the DWORD alignment of the address (SH_MEM_CONFIG alignment mode), DST_SEL
//! of untyped loads (a `SEL_1` component does not load 1).

use super::super::operand::{K, R};
use super::super::Lifter;
use crate::ir::{BinOp, CmpOp, ConvOp, Val};
use crate::isa::{Family, Format, Inst};

/// What the caller needs for one buffer access.
pub(super) struct BufferAccess {
    /// Per-lane byte address (`V64`).
    pub addr: Val,
    /// Lanes not out of range by their index (`S64`, to be ANDed with EXEC).
    pub lanes_ok: Val,
    /// Offset range check `(offset V64, limit V64, 1 (S32), unused S64)`: a piece of `size`
    /// bytes at `piece` is in range when `offset + piece + size <= limit` (the tuple layout
    /// of `vmem`'s range check with its "stride 0" selector fixed to the offset check).
    pub range: (Val, Val, Val, Val),
}

/// Computes the address and range checks of an RDNA MUBUF/VBUFFER instruction.
/// The four V# dwords of buffer instruction `inst`: an SGPR quad (within s0..s105), a TTMP
/// quad (ttmp0..ttmp15, which user code may read: gfx12 kernels read their workgroup ids
/// from ttmp7/ttmp9), or `null`, four zero dwords (RDNA4 ISA 3.3 operand 124: "Reads return
/// zero"), which puts every access out of range.
fn vsharp_dwords(l: &mut Lifter, inst: &Inst) -> R<[Val; 4]> {
    let sb = inst.src[3]
        .sreg()
        .ok_or("buffer resource is not an SGPR quad")?;
    if sb == crate::wave::sreg::NULL {
        let z = l.c32(0);
        return Ok([z; 4]);
    }
    let sgprs = sb as u16 + 4 <= 106;
    let ttmps = sb >= crate::wave::sreg::TTMP0 && sb as u16 + 4 <= 124;
    if !sgprs && !ttmps {
        return Err("V# range leaves the SGPRs".into());
    }
    Ok([0, 1, 2, 3].map(|k| l.get_sreg(sb + k)))
}

pub(super) fn access(l: &mut Lifter, inst: &Inst) -> R<BufferAccess> {
    let gfx12 = l.gpu.family() == Some(Family::Gfx12);
    let [d0, d1, d2, d3] = vsharp_dwords(l, inst)?;
    let bhi = l.and_imm(d1, 0xffff);
    let base = l.pack(d0, bhi);
    let stride = l.lshr_imm(d1, 16);
    let mut stride = l.and_imm(stride, 0x3fff);
    if gfx12 {
        // Stride scale: shift by 0, 2, 3 or 5.
        let sc = l.lshr_imm(d3, 18);
        let sc = l.and_imm(sc, 3);
        let mut shift = l.c32(0);
        for (v, s) in [(1u64, 2u64), (2, 3), (3, 5)] {
            let c = l.c32(v as u32);
            let is = l.cmp(CmpOp::Eq, sc, c);
            let sv = l.c32(s as u32);
            shift = l.select(is, sv, shift);
        }
        stride = l.bin(BinOp::Shl, stride, shift);
    }
    let swz = l.lshr_imm(d1, 30);
    let swz_on = l.ne0(swz);
    let one = l.c32(1);
    let swz4 = l.cmp(CmpOp::Eq, swz, one);
    let nrec = d2;
    let istride_log = l.lshr_imm(d3, 21);
    let istride_log = l.and_imm(istride_log, 3);
    let istride_log = l.add_imm(istride_log, 3);
    let add_tid = l.lshr_imm(d3, 23);
    let add_tid = l.and_imm(add_tid, 1);
    let oob = l.lshr_imm(d3, 28);
    let oob = l.and_imm(oob, 3);

    // Per-lane index and offset.
    let (vindex, voff) = match (inst.mem.idxen, inst.mem.offen) {
        (false, false) => (None, None),
        (true, false) => (Some(l.v32(inst.src[0], K::B32)?), None),
        (false, true) => (None, Some(l.v32(inst.src[0], K::B32)?)),
        (true, true) => {
            let r = inst.src[0].vreg().ok_or("buffer vaddr is not a VGPR")?;
            (Some(l.get_vreg(r)?), Some(l.get_vreg(r + 1)?))
        }
    };
    let mut lid = [0u32; 64];
    for (i, x) in lid.iter_mut().enumerate() {
        *x = i as u32;
    }
    let lane_id = l.lane_const(lid);
    let tid_v = l.bcast(add_tid);
    let tid = l.bin(BinOp::Mul, lane_id, tid_v);
    let index = match vindex {
        Some(ix) => l.add(ix, tid),
        None => tid,
    };
    let soff = if inst.src[2].is_some() {
        l.s32(inst.src[2], K::B32)?
    } else {
        l.c32(0)
    };
    // VGPR offset + instruction offset (IOFFSET is unsigned, 24 bits on gfx12).
    let ioff = inst.mem.offset as u32 as u64 & 0xff_ffff;
    let ioff_v = l.c32(ioff as u32);
    let ioff_v = l.bcast(ioff_v);
    let inner = match voff {
        Some(v) => l.add(v, ioff_v),
        None => ioff_v,
    };
    let soff_v = l.bcast(soff);
    // The swizzle formula's total offset wraps at 32 bits.
    let total = l.add(inner, soff_v);

    // Linear: index * stride + total offset (64-bit).
    let stride_v = l.bcast(stride);
    let index64 = l.conv(ConvOp::ZExt, index);
    let stride64 = l.conv(ConvOp::ZExt, stride_v);
    let rec = l.bin(BinOp::Mul, index64, stride64);
    let total64 = l.conv(ConvOp::ZExt, total);
    let linear = l.add(rec, total64);

    // Swizzled: ((index >> is) * stride + (total >> es << es)) << is
    //           + (index & (2^is - 1)) << es + (total & (2^es - 1)).
    let es = {
        let two = l.c32(2);
        let four = l.c32(4);
        l.select(swz4, two, four)
    };
    let es_v = l.bcast(es);
    let is_v = l.bcast(istride_log);
    let es64 = l.conv(ConvOp::ZExt, es_v);
    let is64 = l.conv(ConvOp::ZExt, is_v);
    let imsb = l.bin(BinOp::LShr, index64, is64);
    let a = l.bin(BinOp::Mul, imsb, stride64);
    let omsb = l.bin(BinOp::LShr, total64, es64);
    let omsb = l.bin(BinOp::Shl, omsb, es64);
    let a = l.add(a, omsb);
    let a = l.bin(BinOp::Shl, a, is64);
    let one64 = l.cst(index64, 1);
    let imask = l.bin(BinOp::Shl, one64, is64);
    let imask = l.bin(BinOp::Sub, imask, one64);
    let ilsb = l.and(index64, imask);
    let ilsb = l.bin(BinOp::Shl, ilsb, es64);
    let emask = l.bin(BinOp::Shl, one64, es64);
    let emask = l.bin(BinOp::Sub, emask, one64);
    let olsb = l.and(total64, emask);
    let b = l.add(ilsb, olsb);
    let swizzled = l.add(a, b);
    // A vector select takes a lane mask: all lanes or none.
    let all = l.c64(!0);
    let none = l.c64(0);
    let swz_lanes = l.select(swz_on, all, none);
    let off = l.select(swz_lanes, swizzled, linear);
    let base_v = l.bcast(base);
    let addr = l.add(base_v, off);

    // Range modes.
    let c = |l: &mut Lifter, v: u32| {
        let k = l.c32(v);
        l.cmp(CmpOp::Eq, oob, k)
    };
    let (m0, m1, m2, m3) = (c(l, 0), c(l, 1), c(l, 2), c(l, 3));
    let stride_nz = l.ne0(stride);
    let structured3 = l.and(swz_on, stride_nz);
    let structured3 = l.and(structured3, m3);
    let structured = l.or(m0, structured3);
    let zero = l.c32(0);
    let raw3 = l.select(structured3, zero, m3);
    let nrec_v = l.bcast(nrec);
    let idx_in = l.cmp(CmpOp::ULt, index, nrec_v);
    let nrec_nz = l.ne0(nrec);
    let nonempty = l.select(nrec_nz, all, none);
    let by_index = l.or(structured, m1);
    let lanes_ok = l.select(m2, nonempty, all);
    let lanes_ok = l.select(by_index, idx_in, lanes_ok);
    // Offset check: structured → in-record offset against the stride; raw mode 3 → total
    // offset against num_records; otherwise never out of range.
    let nrec64 = l.conv(ConvOp::ZExt, nrec);
    let stride_s64 = l.conv(ConvOp::ZExt, stride);
    let unlimited = l.c64(u64::MAX);
    let limit = l.select(raw3, nrec64, unlimited);
    let limit = l.select(structured, stride_s64, limit);
    let limit = l.bcast(limit);
    let sel = l.c32(1);
    Ok(BufferAccess {
        addr,
        lanes_ok,
        range: (total64, limit, sel, all),
    })
}

/// Unified buffer format (RDNA4 ISA Table 62; gfx11 numbers its buffer formats 0..63 the
/// same way, checked against `llvm-mc-22`) → GFX9 `DFMT | NFMT << 4`, 0 when not a buffer
/// format. GFX9 DFMT 1 = 8, 2 = 16, 3 = 8_8, 4 = 32, 5 = 16_16, 6 = 10_11_11, 7 = 11_11_10,
/// 8 = 10_10_10_2, 9 = 2_10_10_10, 10 = 8_8_8_8, 11 = 32_32, 12 = 16_16_16_16, 13 = 32_32_32,
/// 14 = 32_32_32_32; NFMT 0 UNORM, 1 SNORM, 2 USCALED, 3 SSCALED, 4 UINT, 5 SINT, 7 FLOAT.
fn unified_format_table() -> [u32; 64] {
    // (first unified code, DFMT, NFMTs of the consecutive codes).
    const RUNS: [(usize, u32, &[u32]); 14] = [
        (1, 1, &[0, 1, 2, 3, 4, 5]),
        (7, 2, &[0, 1, 2, 3, 4, 5, 7]),
        (14, 3, &[0, 1, 2, 3, 4, 5]),
        (20, 4, &[4, 5, 7]),
        (23, 5, &[0, 1, 2, 3, 4, 5, 7]),
        (30, 6, &[7]),
        (31, 7, &[7]),
        (32, 8, &[0, 1, 4, 5]),
        (36, 9, &[0, 1, 2, 3, 4, 5]),
        (42, 10, &[0, 1, 2, 3, 4, 5]),
        (48, 11, &[4, 5, 7]),
        (51, 12, &[0, 1, 2, 3, 4, 5, 7]),
        (58, 13, &[4, 5, 7]),
        (61, 14, &[4, 5, 7]),
    ];
    let mut t = [0u32; 64];
    for (first, dfmt, nfmts) in RUNS {
        for (i, nf) in nfmts.iter().enumerate() {
            t[first + i] = dfmt | nf << 4;
        }
    }
    t
}

/// A GFX9-style V# dword 3 for the typed (`*_format_*`) path of `vmem`: DST_SEL_X..W in
/// `[11:0]` (the V#'s, or the identity X, Y, Z, W for MTBUF), NUM_FORMAT in `[14:12]`,
/// DATA_FORMAT in `[18:15]`, from the unified FORMAT (V# `[113:108]` on gfx12, `[114:108]`
/// on gfx11; MTBUF: the instruction's FORMAT field).
pub(super) fn typed_dword3(l: &mut Lifter, inst: &Inst) -> R<Val> {
    let d3 = vsharp_dwords(l, inst)?[3];
    let (fmt, sel) = if inst.format == Format::Mtbuf {
        // Identity selects: 4 | 5 << 3 | 6 << 6 | 7 << 9.
        (l.c32(inst.mem.format as u32 & 0x7f), l.c32(0xfac))
    } else {
        let bits = if l.gpu.family() == Some(Family::Gfx12) {
            0x3f
        } else {
            0x7f
        };
        let f = l.lshr_imm(d3, 12);
        (l.and_imm(f, bits), l.and_imm(d3, 0xfff))
    };
    // The table lookup as two 32-lane gathers (a wave32 block has 32 lanes: IR module doc),
    // codes 0..31 and 32..63, the half chosen by bit 5.
    let table = unified_format_table();
    let half = |h: usize| -> [u32; 64] { core::array::from_fn(|i| table[32 * h + i % 32]) };
    let (t_lo, t_hi) = (l.lane_const(half(0)), l.lane_const(half(1)));
    let low = l.and_imm(fmt, 31);
    let lv = l.bcast(low);
    let zero = l.c32(0);
    let k_lo = l.gather(t_lo, lv);
    let k_lo = l.read_lane(k_lo, zero);
    let k_hi = l.gather(t_hi, lv);
    let k_hi = l.read_lane(k_hi, zero);
    let upper = l.and_imm(fmt, 32);
    let key = l.select(upper, k_hi, k_lo);
    let c64 = l.c32(64);
    let in_table = l.cmp(CmpOp::ULt, fmt, c64);
    let key = l.select(in_table, key, zero);
    let df = l.and_imm(key, 15);
    let df = l.shl_imm(df, 15);
    let nf = l.lshr_imm(key, 4);
    let nf = l.shl_imm(nf, 12);
    let d = l.or(df, nf);
    Ok(l.or(d, sel))
}
