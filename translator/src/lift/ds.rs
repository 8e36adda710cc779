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
use crate::isa::generated::DsSem;
use crate::isa::Inst;
use crate::wave::InstClass;

/// What a DS operation does, from its semantic key.
#[derive(Clone, Copy)]
enum Ds {
    Nop,
    /// `ds_append` (`add`) / `ds_consume`.
    Append {
        add: bool,
    },
    /// `ds_read_addtid_b32` / `ds_write_addtid_b32` (RDNA `ds_load/store_addtid_b32`).
    AddTid {
        load: bool,
    },
    /// GFX9 `ds_wrxchg2[st64]_rtn_b32/b64`.
    Xchg2 {
        size: u8,
        stride: u64,
    },
    /// RDNA `ds_storexchg_2addr[_stride64]_rtn_b32/b64`.
    StoreXchg2 {
        size: u8,
        stride64: bool,
    },
    CondXchg32,
    Read2 {
        size: u8,
        stride: u64,
    },
    /// gfx950 `ds_read_b64_tr_b16/b8`.
    ReadTr {
        b16: bool,
    },
    /// gfx950 `ds_read_b64_tr_b4` / `ds_read_b96_tr_b6`.
    ReadTrSubByte {
        b6: bool,
    },
    Read {
        size: u8,
        signed: bool,
    },
    /// `n` dwords.
    ReadN(u64),
    /// 8/16 bits into one half of the VGPR.
    ReadD16 {
        size: u8,
        signed: bool,
        hi: bool,
    },
    Write2 {
        size: u8,
        stride: u64,
    },
    /// `hi`: the high half of the data (`_d16_hi`).
    Write {
        size: u8,
        hi: bool,
    },
    /// `n` dwords.
    WriteN(u16),
    Swizzle,
    Bpermute,
    /// gfx12 `ds_bpermute_fi_b32`.
    BpermuteFi,
    Permute,
    /// `swap`: RDNA `ds_cmpstore` (DATA and DATA2 the other way round from `ds_cmpst`);
    /// `pk16`: packed 16-bit data.
    Atomic {
        op: AtomicOp,
        size: u8,
        rtn: bool,
        swap: bool,
        pk16: bool,
    },
    Unsupported(&'static str),
}

/// The operation of `op`.
fn decode(op: DsSem) -> Ds {
    use AtomicOp as A;
    use Ds::*;
    use DsSem::*;
    let at = |op, size, rtn| Atomic {
        op,
        size,
        rtn,
        swap: false,
        pk16: false,
    };
    let cmpstore = |op, size, rtn| Atomic {
        op,
        size,
        rtn,
        swap: true,
        pk16: false,
    };
    let pk16 = |op, rtn| Atomic {
        op,
        size: 4,
        rtn,
        swap: false,
        pk16: true,
    };
    match op {
        DS_ADD_F32 => at(A::FAdd, 4, false),
        DS_ADD_F64 => at(A::FAdd, 8, false),
        DS_ADD_RTN_F32 => at(A::FAdd, 4, true),
        DS_ADD_RTN_F64 => at(A::FAdd, 8, true),
        DS_ADD_RTN_U32 => at(A::Add, 4, true),
        DS_ADD_RTN_U64 => at(A::Add, 8, true),
        DS_ADD_U32 => at(A::Add, 4, false),
        DS_ADD_U64 => at(A::Add, 8, false),
        DS_AND_B32 => at(A::And, 4, false),
        DS_AND_B64 => at(A::And, 8, false),
        DS_AND_RTN_B32 => at(A::And, 4, true),
        DS_AND_RTN_B64 => at(A::And, 8, true),
        DS_APPEND => Append { add: true },
        DS_BPERMUTE_B32 => Bpermute,
        DS_BPERMUTE_FI_B32 => BpermuteFi,
        DS_CMPST_B32 => at(A::CmpSwap, 4, false),
        DS_CMPST_B64 => at(A::CmpSwap, 8, false),
        DS_CMPST_F32 => at(A::FCmpSwap, 4, false),
        DS_CMPST_F64 => at(A::FCmpSwap, 8, false),
        DS_CMPST_RTN_B32 => at(A::CmpSwap, 4, true),
        DS_CMPST_RTN_B64 => at(A::CmpSwap, 8, true),
        DS_CMPST_RTN_F32 => at(A::FCmpSwap, 4, true),
        DS_CMPST_RTN_F64 => at(A::FCmpSwap, 8, true),
        DS_CMPSTORE_B32 => cmpstore(A::CmpSwap, 4, false),
        DS_CMPSTORE_B64 => cmpstore(A::CmpSwap, 8, false),
        DS_CMPSTORE_F32 => cmpstore(A::FCmpSwap, 4, false),
        DS_CMPSTORE_F64 => cmpstore(A::FCmpSwap, 8, false),
        DS_CMPSTORE_RTN_B32 => cmpstore(A::CmpSwap, 4, true),
        DS_CMPSTORE_RTN_B64 => cmpstore(A::CmpSwap, 8, true),
        DS_CMPSTORE_RTN_F32 => cmpstore(A::FCmpSwap, 4, true),
        DS_CMPSTORE_RTN_F64 => cmpstore(A::FCmpSwap, 8, true),
        DS_COND_SUB_RTN_U32 => at(A::CondSub, 4, true),
        DS_COND_SUB_U32 => at(A::CondSub, 4, false),
        DS_CONDXCHG32_RTN_B64 => CondXchg32,
        DS_CONSUME => Append { add: false },
        DS_DEC_RTN_U32 => at(A::Dec, 4, true),
        DS_DEC_RTN_U64 => at(A::Dec, 8, true),
        DS_DEC_U32 => at(A::Dec, 4, false),
        DS_DEC_U64 => at(A::Dec, 8, false),
        DS_INC_RTN_U32 => at(A::Inc, 4, true),
        DS_INC_RTN_U64 => at(A::Inc, 8, true),
        DS_INC_U32 => at(A::Inc, 4, false),
        DS_INC_U64 => at(A::Inc, 8, false),
        DS_MAX_F32 => at(A::FMax, 4, false),
        DS_MAX_F64 => at(A::FMax, 8, false),
        DS_MAX_I32 => at(A::SMax, 4, false),
        DS_MAX_I64 => at(A::SMax, 8, false),
        DS_MAX_RTN_F32 => at(A::FMax, 4, true),
        DS_MAX_RTN_F64 => at(A::FMax, 8, true),
        DS_MAX_RTN_I32 => at(A::SMax, 4, true),
        DS_MAX_RTN_I64 => at(A::SMax, 8, true),
        DS_MAX_RTN_U32 => at(A::UMax, 4, true),
        DS_MAX_RTN_U64 => at(A::UMax, 8, true),
        DS_MAX_U32 => at(A::UMax, 4, false),
        DS_MAX_U64 => at(A::UMax, 8, false),
        DS_MIN_F32 => at(A::FMin, 4, false),
        DS_MIN_F64 => at(A::FMin, 8, false),
        DS_MIN_I32 => at(A::SMin, 4, false),
        DS_MIN_I64 => at(A::SMin, 8, false),
        DS_MIN_RTN_F32 => at(A::FMin, 4, true),
        DS_MIN_RTN_F64 => at(A::FMin, 8, true),
        DS_MIN_RTN_I32 => at(A::SMin, 4, true),
        DS_MIN_RTN_I64 => at(A::SMin, 8, true),
        DS_MIN_RTN_U32 => at(A::UMin, 4, true),
        DS_MIN_RTN_U64 => at(A::UMin, 8, true),
        DS_MIN_U32 => at(A::UMin, 4, false),
        DS_MIN_U64 => at(A::UMin, 8, false),
        DS_MSKOR_B32 => at(A::MskOr, 4, false),
        DS_MSKOR_B64 => at(A::MskOr, 8, false),
        DS_MSKOR_RTN_B32 => at(A::MskOr, 4, true),
        DS_MSKOR_RTN_B64 => at(A::MskOr, 8, true),
        DS_NOP => Nop,
        DS_OR_B32 => at(A::Or, 4, false),
        DS_OR_B64 => at(A::Or, 8, false),
        DS_OR_RTN_B32 => at(A::Or, 4, true),
        DS_OR_RTN_B64 => at(A::Or, 8, true),
        DS_PERMUTE_B32 => Permute,
        DS_PK_ADD_BF16 => pk16(A::PkAddBf16, false),
        DS_PK_ADD_F16 => pk16(A::PkAddF16, false),
        DS_PK_ADD_RTN_BF16 => pk16(A::PkAddBf16, true),
        DS_PK_ADD_RTN_F16 => pk16(A::PkAddF16, true),
        DS_READ2_B32 => Read2 { size: 4, stride: 1 },
        DS_READ2_B64 => Read2 { size: 8, stride: 1 },
        DS_READ2ST64_B32 => Read2 {
            size: 4,
            stride: 64,
        },
        DS_READ2ST64_B64 => Read2 {
            size: 8,
            stride: 64,
        },
        DS_READ_ADDTID_B32 => AddTid { load: true },
        DS_READ_B128 => ReadN(4),
        DS_READ_B32 => Read {
            size: 4,
            signed: false,
        },
        DS_READ_B64 => ReadN(2),
        DS_READ_B64_TR_B16 => ReadTr { b16: true },
        DS_READ_B64_TR_B4 => ReadTrSubByte { b6: false },
        DS_READ_B64_TR_B8 => ReadTr { b16: false },
        DS_READ_B96 => ReadN(3),
        DS_READ_B96_TR_B6 => ReadTrSubByte { b6: true },
        DS_READ_I16 => Read {
            size: 2,
            signed: true,
        },
        DS_READ_I8 => Read {
            size: 1,
            signed: true,
        },
        DS_READ_I8_D16 => ReadD16 {
            size: 1,
            signed: true,
            hi: false,
        },
        DS_READ_I8_D16_HI => ReadD16 {
            size: 1,
            signed: true,
            hi: true,
        },
        DS_READ_U16 => Read {
            size: 2,
            signed: false,
        },
        DS_READ_U16_D16 => ReadD16 {
            size: 2,
            signed: false,
            hi: false,
        },
        DS_READ_U16_D16_HI => ReadD16 {
            size: 2,
            signed: false,
            hi: true,
        },
        DS_READ_U8 => Read {
            size: 1,
            signed: false,
        },
        DS_READ_U8_D16 => ReadD16 {
            size: 1,
            signed: false,
            hi: false,
        },
        DS_READ_U8_D16_HI => ReadD16 {
            size: 1,
            signed: false,
            hi: true,
        },
        DS_RSUB_RTN_U32 => at(A::RSub, 4, true),
        DS_RSUB_RTN_U64 => at(A::RSub, 8, true),
        DS_RSUB_U32 => at(A::RSub, 4, false),
        DS_RSUB_U64 => at(A::RSub, 8, false),
        DS_STOREXCHG_2ADDR_RTN_B32 => StoreXchg2 {
            size: 4,
            stride64: false,
        },
        DS_STOREXCHG_2ADDR_RTN_B64 => StoreXchg2 {
            size: 8,
            stride64: false,
        },
        DS_STOREXCHG_2ADDR_STRIDE64_RTN_B32 => StoreXchg2 {
            size: 4,
            stride64: true,
        },
        DS_STOREXCHG_2ADDR_STRIDE64_RTN_B64 => StoreXchg2 {
            size: 8,
            stride64: true,
        },
        DS_SUB_CLAMP_RTN_U32 => at(A::SubClamp, 4, true),
        DS_SUB_CLAMP_U32 => at(A::SubClamp, 4, false),
        DS_SUB_RTN_U32 => at(A::Sub, 4, true),
        DS_SUB_RTN_U64 => at(A::Sub, 8, true),
        DS_SUB_U32 => at(A::Sub, 4, false),
        DS_SUB_U64 => at(A::Sub, 8, false),
        DS_SWIZZLE_B32 => Swizzle,
        DS_WRAP_RTN_B32 => at(A::Wrap, 4, true),
        DS_WRITE2_B32 => Write2 { size: 4, stride: 1 },
        DS_WRITE2_B64 => Write2 { size: 8, stride: 1 },
        DS_WRITE2ST64_B32 => Write2 {
            size: 4,
            stride: 64,
        },
        DS_WRITE2ST64_B64 => Write2 {
            size: 8,
            stride: 64,
        },
        DS_WRITE_ADDTID_B32 => AddTid { load: false },
        DS_WRITE_B128 => WriteN(4),
        DS_WRITE_B16 => Write { size: 2, hi: false },
        DS_WRITE_B16_D16_HI => Write { size: 2, hi: true },
        DS_WRITE_B32 => Write { size: 4, hi: false },
        DS_WRITE_B64 => WriteN(2),
        DS_WRITE_B8 => Write { size: 1, hi: false },
        DS_WRITE_B8_D16_HI => Write { size: 1, hi: true },
        DS_WRITE_B96 => WriteN(3),
        DS_WRXCHG2_RTN_B32 => Xchg2 { size: 4, stride: 1 },
        DS_WRXCHG2_RTN_B64 => Xchg2 { size: 8, stride: 1 },
        DS_WRXCHG2ST64_RTN_B32 => Xchg2 {
            size: 4,
            stride: 64,
        },
        DS_WRXCHG2ST64_RTN_B64 => Xchg2 {
            size: 8,
            stride: 64,
        },
        DS_WRXCHG_RTN_B32 => at(A::Swap, 4, true),
        DS_WRXCHG_RTN_B64 => at(A::Swap, 8, true),
        DS_XOR_B32 => at(A::Xor, 4, false),
        DS_XOR_B64 => at(A::Xor, 8, false),
        DS_XOR_RTN_B32 => at(A::Xor, 4, true),
        DS_XOR_RTN_B64 => at(A::Xor, 8, true),
        DS_BVH_STACK_PUSH4_POP1_RTN_B32
        | DS_BVH_STACK_PUSH8_POP1_RTN_B32
        | DS_BVH_STACK_PUSH8_POP2_RTN_B64
        | DS_BVH_STACK_RTN_B32 => Unsupported("BVH stack operations (ray tracing) are not lifted"),
    }
}

/// Lifts a DS instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: DsSem) -> LiftResult {
    let done = |r: R<()>| r.map(|()| (InstClass::Lds, Flow::Next));
    let rdna = l.gpu.family() != Some(crate::isa::Family::Gfx9);
    let d = decode(op);
    // The RDNA forms that count themselves (and check GDS where it applies).
    match d {
        Ds::Nop => return Ok((InstClass::Lds, Flow::Next)),
        Ds::StoreXchg2 { size, stride64 } => return done(storexchg2(l, inst, size, stride64)),
        Ds::Append { add } if rdna => return done(append_passes(l, inst, add)),
        Ds::BpermuteFi => return done(bpermute_fi(l, inst)),
        _ => {}
    }
    if inst.mem.gds {
        return Err("GDS (global data share) is not available off-GPU".into());
    }
    l.count_vector();
    done(lift_inner(l, inst, d))
}

/// `vaddr + off` as a `V64` LDS address.
fn addr(l: &mut Lifter, inst: &Inst, off: u64) -> R<Val> {
    let a = l.v32(inst.src[0], K::B32)?;
    let a = l.conv(ConvOp::ZExt, a);
    Ok(if off != 0 { l.add_imm(a, off) } else { a })
}

fn load_lds(l: &mut Lifter, a: Val, size: u8, signed: bool) -> Val {
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

fn lift_inner(l: &mut Lifter, inst: &Inst, d: Ds) -> R<()> {
    let off = inst.mem.offset as u16 as u64;
    let exec = l.exec();
    match d {
        // ---- counters, thread-id addressing, exchanges ----
        Ds::Append { add } => append(l, inst, add, off, exec),
        Ds::AddTid { load } => {
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
            if load {
                let v = load_lds(l, a, 4, false);
                return l.set_vregs(inst.dst[0], &[v], exec);
            }
            let d = l.v32(inst.src[1], K::B32)?;
            store(l, a, 4, d);
            Ok(())
        }
        Ds::Xchg2 { size, stride } => {
            // Two swaps at vaddr + offset0/1 × (size × stride); returns {tmp1, tmp2}.
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
            l.set_vregs(inst.dst[0], &vals, exec)
        }
        Ds::CondXchg32 => {
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
            l.set_vregs(inst.dst[0], &rets, exec)
        }
        // ---- reads ----
        Ds::Read2 { size, stride } => {
            let unit = size as u64 * stride;
            let a = addr(l, inst, 0)?;
            let a0 = l.add_imm(a, (inst.mem.offset as u8) as u64 * unit);
            let a1 = l.add_imm(a, inst.mem.offset1 as u64 * unit);
            let v0 = load_lds(l, a0, size, false);
            let v1 = load_lds(l, a1, size, false);
            let vals: Vec<Val> = if size == 8 {
                let mut v = halves(l, v0).to_vec();
                v.extend(halves(l, v1));
                v
            } else {
                vec![v0, v1]
            };
            l.set_vregs(inst.dst[0], &vals, exec)
        }
        Ds::ReadTr { b16 } => read_transposed(l, inst, b16, off, exec),
        Ds::ReadTrSubByte { b6 } => read_transposed_sub_byte(l, inst, b6, off, exec),
        Ds::Read { size, signed } => {
            let a = addr(l, inst, off)?;
            let v = load_lds(l, a, size, signed);
            l.set_vregs(inst.dst[0], &[v], exec)
        }
        Ds::ReadN(n) => {
            let a = addr(l, inst, off)?;
            let vals: Vec<Val> = (0..n)
                .map(|i| {
                    let ai = l.add_imm(a, 4 * i);
                    load_lds(l, ai, 4, false)
                })
                .collect();
            l.set_vregs(inst.dst[0], &vals, exec)
        }
        Ds::ReadD16 { size, signed, hi } => {
            // Loads 16 bits (zero/sign-extended from 8) into one half; the other half is kept.
            let a = addr(l, inst, off)?;
            let v = load_lds(l, a, size, signed);
            let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
            let old = l.get_vreg(reg)?;
            let v = l.and_imm(v, 0xffff);
            let r = if hi {
                let keep = l.and_imm(old, 0xffff);
                let hi = l.shl_imm(v, 16);
                l.or(keep, hi)
            } else {
                let keep = l.and_imm(old, 0xffff_0000);
                l.or(keep, v)
            };
            l.set_vreg(reg, r, exec)
        }
        // ---- writes ----
        Ds::Write2 { size, stride } => {
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
            Ok(())
        }
        Ds::Write { size, hi } => {
            let a = addr(l, inst, off)?;
            let d = l.v32(inst.src[1], K::B32)?;
            let d = if hi { l.lshr_imm(d, 16) } else { d };
            store(l, a, size, d);
            Ok(())
        }
        Ds::WriteN(n) => {
            let a = addr(l, inst, off)?;
            let ds = l.get_vregs(inst.src[1], n)?;
            for (i, d) in ds.into_iter().enumerate() {
                let ai = l.add_imm(a, 4 * i as u64);
                store(l, ai, 4, d);
            }
            Ok(())
        }
        // ---- cross-lane ----
        Ds::Swizzle | Ds::Bpermute => {
            // Reading an inactive lane gives 0 (ISA: "EXEC is applied to both the VGPR read
            // and write").
            let swizzle = matches!(d, Ds::Swizzle);
            let v = l.v32(inst.src[if swizzle { 0 } else { 1 }], K::B32)?;
            let zero = l.cst(v, 0);
            let v = l.select(exec, v, zero);
            let idx = if swizzle {
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
            l.set_vregs(inst.dst[0], &[r], exec)
        }
        Ds::Permute => {
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
            l.set_vregs(inst.dst[0], &[tmp], exec)
        }
        Ds::Atomic {
            op,
            size,
            rtn,
            swap,
            pk16,
        } => {
            if swap {
                let mut swapped = *inst;
                swapped.src.swap(1, 2);
                atomic(l, &swapped, op, size, rtn, pk16, off, exec)
            } else {
                atomic(l, inst, op, size, rtn, pk16, off, exec)
            }
        }
        Ds::Unsupported(why) => Err(why.into()),
        // Lifted before the GDS check (`lift`).
        Ds::Nop | Ds::StoreXchg2 { .. } | Ds::BpermuteFi => Ok(()),
    }
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

/// A DS atomic `op` on `size`-byte data, returning the pre-op value when `rtn`; `pk16`:
/// packed 16-bit data (`ds_pk_add_f16/bf16`).
#[allow(clippy::too_many_arguments)]
fn atomic(
    l: &mut Lifter,
    inst: &Inst,
    op: AtomicOp,
    size: u8,
    rtn: bool,
    pk16: bool,
    off: u64,
    exec: Val,
) -> R<()> {
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
    if pk16 && inst.src[1].vreg().is_none() {
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
        elems.push(load_lds(l, a, size, false));
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
        let lo = load_lds(l, a, 4, false);
        let a4 = l.add_imm(a, 4);
        let hi = load_lds(l, a4, 4, false);
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

// ---- RDNA ---------------------------------------------------------------------------------

/// `ds_append` / `ds_consume` on RDNA: GFX9's rule (the counter at LDS `M0 + offset` changes
/// by the number of active lanes, which all receive the pre-op value; LLVM sets M0 to the
/// base on every target, `AMDGPUISelDAGToDAG::SelectDSAppendConsume`) once per pass: a wave64
/// LDS instruction executes as two passes, lanes 0-31 then 32-63 (RDNA4 ISA 2.1), so the
/// upper half counts on from the lower half's result.
fn append_passes(l: &mut Lifter, inst: &Inst, add: bool) -> R<()> {
    if inst.mem.gds {
        return Err("GDS (global data share) is not available off-GPU".into());
    }
    l.count_vector();
    let off = inst.mem.offset as u16 as u64;
    let exec = l.exec();
    let halves: &[u64] = if l.wave == 32 {
        &[!0]
    } else {
        &[0xffff_ffff, 0xffff_ffff_0000_0000]
    };
    for &half in halves {
        let h = l.c64(half);
        let m = l.and(exec, h);
        append(l, inst, add, off, m)?;
    }
    Ok(())
}

/// gfx12 `ds_bpermute_fi_b32`: `ds_bpermute_b32` that also reads disabled source lanes
/// ("fetch inactive"); the lane index is `(addr + offset) / 4` modulo the wave size.
fn bpermute_fi(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let exec = l.exec();
    let v = l.v32(inst.src[1], K::B32)?;
    let a = l.v32(inst.src[0], K::B32)?;
    let off = (inst.mem.offset as u32 & 0xffff) as u64;
    let a = if off != 0 { l.add_imm(a, off) } else { a };
    let idx = l.lshr_imm(a, 2);
    let idx = l.and_imm(idx, (l.wave - 1) as u64);
    let r = l.gather(v, idx);
    l.set_vregs(inst.dst[0], &[r], exec)
}

/// `ds_storexchg_2addr[_stride64]_rtn_b32/b64`: two exchanges at `ADDR + OFFSET0 * size`
/// and `ADDR + OFFSET1 * size` (×64 for the stride64 forms) with DATA0 and DATA1, the old
/// values returned in consecutive destination registers (RDNA4 ISA, DS_STOREXCHG_2ADDR_RTN_B32).
fn storexchg2(l: &mut Lifter, inst: &Inst, ty: u8, stride64: bool) -> R<()> {
    l.count_vector();
    let exec = l.exec();
    let unit = ty as u64 * if stride64 { 64 } else { 1 };
    let a = l.v32(inst.src[0], K::B32)?;
    let a = l.conv(ConvOp::ZExt, a);
    let mut old = Vec::new();
    for (i, off) in [
        (1usize, inst.mem.offset as u8 as u64),
        (2, inst.mem.offset1 as u64),
    ] {
        let addr = l.add_imm(a, off * unit);
        let data = if ty == 8 {
            l.v64(inst.src[i], K::B64)?
        } else {
            l.v32(inst.src[i], K::B32)?
        };
        let r = l.push_op(
            crate::ir::Op::Atomic {
                pc: l.pc,
                space: crate::env::Space::Lds,
                op: crate::env::AtomicOp::Swap,
                addr,
                size: ty,
                data,
                cmp: None,
                mask: exec,
            },
            if ty == 8 { Ty::V64 } else { Ty::V32 },
        );
        if ty == 8 {
            old.push(l.lo(r));
            old.push(l.hi(r));
        } else {
            old.push(r);
        }
    }
    l.set_vregs(inst.dst[0], &old, exec)
}
