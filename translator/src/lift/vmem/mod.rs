//! Vector memory: FLAT, GLOBAL, SCRATCH, MUBUF and MTBUF loads, stores and atomics.
//!
//! Addresses (GFX9):
//! * FLAT: `vaddr` (64-bit) + offset, a generic address the runtime resolves by aperture;
//! * GLOBAL: `vaddr` (64-bit) + offset, or `saddr` (64-bit SGPR pair) + `vaddr` (32-bit,
//!   zero-extended) + offset;
//! * SCRATCH: `vaddr` (32-bit, optional) + `saddr` (32-bit SGPR, optional) + offset, a
//!   per-lane offset into the private segment;
//! * MUBUF/MTBUF: V# base + `soffset` + buffer offset, where index = (`idxen`: `vindex`) +
//!   (V# ADD_TID_ENABLE: lane id) and offset = inst offset + (`offen`: `voffset`); linear:
//!   buffer offset = index × stride + offset; swizzled (V# SWIZZLE_EN, dword1[31]):
//!   `(index / IS × stride + offset / ES × ES) × IS + (index % IS) × ES + offset % ES` with
//!   element size ES = 2 << dword3[20:19] and index stride IS = 8 << dword3[22:21]. Range
//!   check against `num_records`: stride 0 → `soffset + buffer offset + size <= num_records`
//!   (checked per dword for multi-dword accesses), otherwise `index < num_records`;
//!   out-of-range lanes load 0 and do not store.
//!
//! Typed accesses (`buffer_*_format_*` with the V#'s DATA_FORMAT dword3[18:15] /
//! NUM_FORMAT dword3[14:12] and DST_SEL_X..W dword3[11:0]; `tbuffer_*` with the
//! instruction's DFMT/NFMT and identity selects) convert per component through
//! [`crate::sem::buf_fmt`]; the element is range-checked as a whole. Stores ignore
//! DST_SEL and write every component of the element (components the instruction does not
//! supply are written as 0; RDNA: they repeat X, ISA 9.3). `d16` forms pack two 16-bit components per VGPR; an odd last
//! component keeps the other half of its VGPR (`d16_hi_x`: the low half).
//! RDNA maps its unified FORMAT onto DFMT/NFMT (`rdna_buffer::typed_dword3`); its d16
//! loads convert f32 to f16 by truncation (RDNA4 ISA 9.3.1).
//!
//! LDS-direct loads (`*_load_lds_*`, MUBUF `lds`) write LDS instead of VGPRs (see
//! `load_to_lds`). Loads of more than 8 bytes are split into dword accesses.

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::env::{AtomicOp, Space};
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Op, Ty, Val};
use crate::isa::generated::VmemSem;
use crate::isa::{Format, Inst};
use crate::wave::InstClass;

mod rdna_buffer;

/// The address segment a vector memory mnemonic names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seg {
    Flat,
    Global,
    Scratch,
    Buffer,
    Tbuffer,
}

impl Seg {
    /// Whether an instruction of `format` can be of this segment.
    fn fits(self, format: Format) -> bool {
        match format {
            Format::Flat => self == Seg::Flat,
            Format::Global => self == Seg::Global,
            Format::Scratch => self == Seg::Scratch,
            Format::Mtbuf => self == Seg::Tbuffer,
            _ => self == Seg::Buffer,
        }
    }
}

/// The data of a load.
#[derive(Clone, Copy)]
enum LoadTy {
    /// A byte or short, zero- or sign-extended to a dword.
    Sub { size: u8, signed: bool },
    /// `n` dwords.
    Dwords(u16),
    /// 8 or 16 bits into one half (`hi`) of the VGPR, the other half kept.
    D16 { size: u8, signed: bool, hi: bool },
}

/// The data of a store.
#[derive(Clone, Copy)]
enum StoreTy {
    /// The low byte or short of the data, or its high half's (`hi`, `_d16_hi`).
    Sub { size: u8, hi: bool },
    /// `n` dwords.
    Dwords(u16),
}

/// The components of a typed (`*_format_*`) access: `x` .. `xyzw`, 16-bit (`d16`) into the
/// low or the high (`hi`) halves.
#[derive(Clone, Copy)]
struct Shape {
    comps: usize,
    d16: bool,
    hi: bool,
}

/// What a vector memory operation does, from its semantic key.
#[derive(Clone, Copy)]
enum Vm {
    /// Cache write-back/invalidate for fences: memory is coherent here, so no effect.
    NoEffect,
    Load(LoadTy),
    /// `*_load_lds_*` (gfx950): the data goes to LDS.
    LoadLds(LoadTy),
    Store(StoreTy),
    LoadFormat(Shape),
    StoreFormat(Shape),
    Atomic {
        op: AtomicOp,
        size: u8,
    },
    /// gfx12 `global/scratch_{load,store}_block`.
    Block {
        load: bool,
    },
    /// gfx12 `global_{load,store}_addtid_b32`.
    AddTid {
        load: bool,
    },
    /// gfx12 `global_load_tr_b128` (`wide`) / `_b64`.
    LoadTr {
        wide: bool,
    },
    Unsupported(&'static str),
}

/// The segment and operation of `op`.
fn decode(op: VmemSem) -> (Seg, Vm) {
    use AtomicOp as A;
    use Seg::*;
    use Vm::*;
    use VmemSem::*;
    let sub = |size, signed| LoadTy::Sub { size, signed };
    let d16 = |size, signed, hi| LoadTy::D16 { size, signed, hi };
    let shape = |comps, d16, hi| Shape { comps, d16, hi };
    let at = |op, size| Atomic { op, size };
    match op {
        BUFFER_ATOMIC_ADD => (Buffer, at(A::Add, 4)),
        BUFFER_ATOMIC_ADD_F32 => (Buffer, at(A::FAdd, 4)),
        BUFFER_ATOMIC_ADD_F64 => (Buffer, at(A::FAdd, 8)),
        BUFFER_ATOMIC_ADD_X2 => (Buffer, at(A::Add, 8)),
        BUFFER_ATOMIC_AND => (Buffer, at(A::And, 4)),
        BUFFER_ATOMIC_AND_X2 => (Buffer, at(A::And, 8)),
        BUFFER_ATOMIC_CMPSWAP => (Buffer, at(A::CmpSwap, 4)),
        BUFFER_ATOMIC_CMPSWAP_F32 => (Buffer, at(A::FCmpSwap, 4)),
        BUFFER_ATOMIC_CMPSWAP_X2 => (Buffer, at(A::CmpSwap, 8)),
        BUFFER_ATOMIC_COND_SUB_U32 => (Buffer, at(A::CondSub, 4)),
        BUFFER_ATOMIC_CSUB_U32 => (Buffer, at(A::SubClamp, 4)),
        BUFFER_ATOMIC_DEC => (Buffer, at(A::Dec, 4)),
        BUFFER_ATOMIC_DEC_X2 => (Buffer, at(A::Dec, 8)),
        BUFFER_ATOMIC_INC => (Buffer, at(A::Inc, 4)),
        BUFFER_ATOMIC_INC_X2 => (Buffer, at(A::Inc, 8)),
        BUFFER_ATOMIC_MAX_F32 => (Buffer, at(A::FMax, 4)),
        BUFFER_ATOMIC_MAX_F64 => (Buffer, at(A::FMax, 8)),
        BUFFER_ATOMIC_MAX_NUM_F32 => (Buffer, at(A::FMax, 4)),
        BUFFER_ATOMIC_MIN_F32 => (Buffer, at(A::FMin, 4)),
        BUFFER_ATOMIC_MIN_F64 => (Buffer, at(A::FMin, 8)),
        BUFFER_ATOMIC_MIN_NUM_F32 => (Buffer, at(A::FMin, 4)),
        BUFFER_ATOMIC_OR => (Buffer, Atomic { op: A::Or, size: 4 }),
        BUFFER_ATOMIC_OR_X2 => (Buffer, Atomic { op: A::Or, size: 8 }),
        BUFFER_ATOMIC_PK_ADD_BF16 => (Buffer, at(A::PkAddBf16, 4)),
        BUFFER_ATOMIC_PK_ADD_F16 => (Buffer, at(A::PkAddF16, 4)),
        BUFFER_ATOMIC_SMAX => (Buffer, at(A::SMax, 4)),
        BUFFER_ATOMIC_SMAX_X2 => (Buffer, at(A::SMax, 8)),
        BUFFER_ATOMIC_SMIN => (Buffer, at(A::SMin, 4)),
        BUFFER_ATOMIC_SMIN_X2 => (Buffer, at(A::SMin, 8)),
        BUFFER_ATOMIC_SUB => (Buffer, at(A::Sub, 4)),
        BUFFER_ATOMIC_SUB_CLAMP_U32 => (Buffer, at(A::SubClamp, 4)),
        BUFFER_ATOMIC_SUB_X2 => (Buffer, at(A::Sub, 8)),
        BUFFER_ATOMIC_SWAP => (Buffer, at(A::Swap, 4)),
        BUFFER_ATOMIC_SWAP_X2 => (Buffer, at(A::Swap, 8)),
        BUFFER_ATOMIC_UMAX => (Buffer, at(A::UMax, 4)),
        BUFFER_ATOMIC_UMAX_X2 => (Buffer, at(A::UMax, 8)),
        BUFFER_ATOMIC_UMIN => (Buffer, at(A::UMin, 4)),
        BUFFER_ATOMIC_UMIN_X2 => (Buffer, at(A::UMin, 8)),
        BUFFER_ATOMIC_XOR => (Buffer, at(A::Xor, 4)),
        BUFFER_ATOMIC_XOR_X2 => (Buffer, at(A::Xor, 8)),
        BUFFER_INV => (Buffer, NoEffect),
        BUFFER_LOAD_D16_FORMAT_X => (Buffer, LoadFormat(shape(1, true, false))),
        BUFFER_LOAD_D16_FORMAT_XY => (Buffer, LoadFormat(shape(2, true, false))),
        BUFFER_LOAD_D16_FORMAT_XYZ => (Buffer, LoadFormat(shape(3, true, false))),
        BUFFER_LOAD_D16_FORMAT_XYZW => (Buffer, LoadFormat(shape(4, true, false))),
        BUFFER_LOAD_D16_HI_FORMAT_X => (Buffer, LoadFormat(shape(1, true, true))),
        BUFFER_LOAD_DWORD => (Buffer, Load(LoadTy::Dwords(1))),
        BUFFER_LOAD_DWORDX2 => (Buffer, Load(LoadTy::Dwords(2))),
        BUFFER_LOAD_DWORDX3 => (Buffer, Load(LoadTy::Dwords(3))),
        BUFFER_LOAD_DWORDX4 => (Buffer, Load(LoadTy::Dwords(4))),
        BUFFER_LOAD_FORMAT_D16_HI_X => (Buffer, LoadFormat(shape(1, true, true))),
        BUFFER_LOAD_FORMAT_D16_X => (Buffer, LoadFormat(shape(1, true, false))),
        BUFFER_LOAD_FORMAT_D16_XY => (Buffer, LoadFormat(shape(2, true, false))),
        BUFFER_LOAD_FORMAT_D16_XYZ => (Buffer, LoadFormat(shape(3, true, false))),
        BUFFER_LOAD_FORMAT_D16_XYZW => (Buffer, LoadFormat(shape(4, true, false))),
        BUFFER_LOAD_FORMAT_X => (Buffer, LoadFormat(shape(1, false, false))),
        BUFFER_LOAD_FORMAT_XY => (Buffer, LoadFormat(shape(2, false, false))),
        BUFFER_LOAD_FORMAT_XYZ => (Buffer, LoadFormat(shape(3, false, false))),
        BUFFER_LOAD_FORMAT_XYZW => (Buffer, LoadFormat(shape(4, false, false))),
        BUFFER_LOAD_SBYTE => (Buffer, Load(sub(1, true))),
        BUFFER_LOAD_SBYTE_D16 => (Buffer, Load(d16(1, true, false))),
        BUFFER_LOAD_SBYTE_D16_HI => (Buffer, Load(d16(1, true, true))),
        BUFFER_LOAD_SHORT_D16 => (Buffer, Load(d16(2, false, false))),
        BUFFER_LOAD_SHORT_D16_HI => (Buffer, Load(d16(2, false, true))),
        BUFFER_LOAD_SSHORT => (Buffer, Load(sub(2, true))),
        BUFFER_LOAD_UBYTE => (Buffer, Load(sub(1, false))),
        BUFFER_LOAD_UBYTE_D16 => (Buffer, Load(d16(1, false, false))),
        BUFFER_LOAD_UBYTE_D16_HI => (Buffer, Load(d16(1, false, true))),
        BUFFER_LOAD_USHORT => (Buffer, Load(sub(2, false))),
        BUFFER_STORE_BYTE => (Buffer, Store(StoreTy::Sub { size: 1, hi: false })),
        BUFFER_STORE_BYTE_D16_HI => (Buffer, Store(StoreTy::Sub { size: 1, hi: true })),
        BUFFER_STORE_D16_FORMAT_X => (Buffer, StoreFormat(shape(1, true, false))),
        BUFFER_STORE_D16_FORMAT_XY => (Buffer, StoreFormat(shape(2, true, false))),
        BUFFER_STORE_D16_FORMAT_XYZ => (Buffer, StoreFormat(shape(3, true, false))),
        BUFFER_STORE_D16_FORMAT_XYZW => (Buffer, StoreFormat(shape(4, true, false))),
        BUFFER_STORE_D16_HI_FORMAT_X => (Buffer, StoreFormat(shape(1, true, true))),
        BUFFER_STORE_DWORD => (Buffer, Store(StoreTy::Dwords(1))),
        BUFFER_STORE_DWORDX2 => (Buffer, Store(StoreTy::Dwords(2))),
        BUFFER_STORE_DWORDX3 => (Buffer, Store(StoreTy::Dwords(3))),
        BUFFER_STORE_DWORDX4 => (Buffer, Store(StoreTy::Dwords(4))),
        BUFFER_STORE_FORMAT_D16_HI_X => (Buffer, StoreFormat(shape(1, true, true))),
        BUFFER_STORE_FORMAT_D16_X => (Buffer, StoreFormat(shape(1, true, false))),
        BUFFER_STORE_FORMAT_D16_XY => (Buffer, StoreFormat(shape(2, true, false))),
        BUFFER_STORE_FORMAT_D16_XYZ => (Buffer, StoreFormat(shape(3, true, false))),
        BUFFER_STORE_FORMAT_D16_XYZW => (Buffer, StoreFormat(shape(4, true, false))),
        BUFFER_STORE_FORMAT_X => (Buffer, StoreFormat(shape(1, false, false))),
        BUFFER_STORE_FORMAT_XY => (Buffer, StoreFormat(shape(2, false, false))),
        BUFFER_STORE_FORMAT_XYZ => (Buffer, StoreFormat(shape(3, false, false))),
        BUFFER_STORE_FORMAT_XYZW => (Buffer, StoreFormat(shape(4, false, false))),
        BUFFER_STORE_SHORT => (Buffer, Store(StoreTy::Sub { size: 2, hi: false })),
        BUFFER_STORE_SHORT_D16_HI => (Buffer, Store(StoreTy::Sub { size: 2, hi: true })),
        BUFFER_WBL2 => (Buffer, NoEffect),
        FLAT_ATOMIC_ADD => (Flat, at(A::Add, 4)),
        FLAT_ATOMIC_ADD_F32 => (Flat, at(A::FAdd, 4)),
        FLAT_ATOMIC_ADD_F64 => (Flat, at(A::FAdd, 8)),
        FLAT_ATOMIC_ADD_X2 => (Flat, at(A::Add, 8)),
        FLAT_ATOMIC_AND => (Flat, at(A::And, 4)),
        FLAT_ATOMIC_AND_X2 => (Flat, at(A::And, 8)),
        FLAT_ATOMIC_CMPSWAP => (Flat, at(A::CmpSwap, 4)),
        FLAT_ATOMIC_CMPSWAP_F32 => (Flat, at(A::FCmpSwap, 4)),
        FLAT_ATOMIC_CMPSWAP_X2 => (Flat, at(A::CmpSwap, 8)),
        FLAT_ATOMIC_COND_SUB_U32 => (Flat, at(A::CondSub, 4)),
        FLAT_ATOMIC_DEC => (Flat, at(A::Dec, 4)),
        FLAT_ATOMIC_DEC_X2 => (Flat, at(A::Dec, 8)),
        FLAT_ATOMIC_INC => (Flat, at(A::Inc, 4)),
        FLAT_ATOMIC_INC_X2 => (Flat, at(A::Inc, 8)),
        FLAT_ATOMIC_MAX_F32 => (Flat, at(A::FMax, 4)),
        FLAT_ATOMIC_MAX_F64 => (Flat, at(A::FMax, 8)),
        FLAT_ATOMIC_MAX_NUM_F32 => (Flat, at(A::FMax, 4)),
        FLAT_ATOMIC_MIN_F32 => (Flat, at(A::FMin, 4)),
        FLAT_ATOMIC_MIN_F64 => (Flat, at(A::FMin, 8)),
        FLAT_ATOMIC_MIN_NUM_F32 => (Flat, at(A::FMin, 4)),
        FLAT_ATOMIC_OR => (Flat, Atomic { op: A::Or, size: 4 }),
        FLAT_ATOMIC_OR_X2 => (Flat, Atomic { op: A::Or, size: 8 }),
        FLAT_ATOMIC_PK_ADD_BF16 => (Flat, at(A::PkAddBf16, 4)),
        FLAT_ATOMIC_PK_ADD_F16 => (Flat, at(A::PkAddF16, 4)),
        FLAT_ATOMIC_SMAX => (Flat, at(A::SMax, 4)),
        FLAT_ATOMIC_SMAX_X2 => (Flat, at(A::SMax, 8)),
        FLAT_ATOMIC_SMIN => (Flat, at(A::SMin, 4)),
        FLAT_ATOMIC_SMIN_X2 => (Flat, at(A::SMin, 8)),
        FLAT_ATOMIC_SUB => (Flat, at(A::Sub, 4)),
        FLAT_ATOMIC_SUB_CLAMP_U32 => (Flat, at(A::SubClamp, 4)),
        FLAT_ATOMIC_SUB_X2 => (Flat, at(A::Sub, 8)),
        FLAT_ATOMIC_SWAP => (Flat, at(A::Swap, 4)),
        FLAT_ATOMIC_SWAP_X2 => (Flat, at(A::Swap, 8)),
        FLAT_ATOMIC_UMAX => (Flat, at(A::UMax, 4)),
        FLAT_ATOMIC_UMAX_X2 => (Flat, at(A::UMax, 8)),
        FLAT_ATOMIC_UMIN => (Flat, at(A::UMin, 4)),
        FLAT_ATOMIC_UMIN_X2 => (Flat, at(A::UMin, 8)),
        FLAT_ATOMIC_XOR => (Flat, at(A::Xor, 4)),
        FLAT_ATOMIC_XOR_X2 => (Flat, at(A::Xor, 8)),
        FLAT_LOAD_DWORD => (Flat, Load(LoadTy::Dwords(1))),
        FLAT_LOAD_DWORDX2 => (Flat, Load(LoadTy::Dwords(2))),
        FLAT_LOAD_DWORDX3 => (Flat, Load(LoadTy::Dwords(3))),
        FLAT_LOAD_DWORDX4 => (Flat, Load(LoadTy::Dwords(4))),
        FLAT_LOAD_SBYTE => (Flat, Load(sub(1, true))),
        FLAT_LOAD_SBYTE_D16 => (Flat, Load(d16(1, true, false))),
        FLAT_LOAD_SBYTE_D16_HI => (Flat, Load(d16(1, true, true))),
        FLAT_LOAD_SHORT_D16 => (Flat, Load(d16(2, false, false))),
        FLAT_LOAD_SHORT_D16_HI => (Flat, Load(d16(2, false, true))),
        FLAT_LOAD_SSHORT => (Flat, Load(sub(2, true))),
        FLAT_LOAD_UBYTE => (Flat, Load(sub(1, false))),
        FLAT_LOAD_UBYTE_D16 => (Flat, Load(d16(1, false, false))),
        FLAT_LOAD_UBYTE_D16_HI => (Flat, Load(d16(1, false, true))),
        FLAT_LOAD_USHORT => (Flat, Load(sub(2, false))),
        FLAT_STORE_BYTE => (Flat, Store(StoreTy::Sub { size: 1, hi: false })),
        FLAT_STORE_BYTE_D16_HI => (Flat, Store(StoreTy::Sub { size: 1, hi: true })),
        FLAT_STORE_DWORD => (Flat, Store(StoreTy::Dwords(1))),
        FLAT_STORE_DWORDX2 => (Flat, Store(StoreTy::Dwords(2))),
        FLAT_STORE_DWORDX3 => (Flat, Store(StoreTy::Dwords(3))),
        FLAT_STORE_DWORDX4 => (Flat, Store(StoreTy::Dwords(4))),
        FLAT_STORE_SHORT => (Flat, Store(StoreTy::Sub { size: 2, hi: false })),
        FLAT_STORE_SHORT_D16_HI => (Flat, Store(StoreTy::Sub { size: 2, hi: true })),
        GLOBAL_ATOMIC_ADD => (Global, at(A::Add, 4)),
        GLOBAL_ATOMIC_ADD_F32 => (Global, at(A::FAdd, 4)),
        GLOBAL_ATOMIC_ADD_F64 => (Global, at(A::FAdd, 8)),
        GLOBAL_ATOMIC_ADD_X2 => (Global, at(A::Add, 8)),
        GLOBAL_ATOMIC_AND => (Global, at(A::And, 4)),
        GLOBAL_ATOMIC_AND_X2 => (Global, at(A::And, 8)),
        GLOBAL_ATOMIC_CMPSWAP => (Global, at(A::CmpSwap, 4)),
        GLOBAL_ATOMIC_CMPSWAP_F32 => (Global, at(A::FCmpSwap, 4)),
        GLOBAL_ATOMIC_CMPSWAP_X2 => (Global, at(A::CmpSwap, 8)),
        GLOBAL_ATOMIC_COND_SUB_U32 => (Global, at(A::CondSub, 4)),
        GLOBAL_ATOMIC_CSUB_U32 => (Global, at(A::SubClamp, 4)),
        GLOBAL_ATOMIC_DEC => (Global, at(A::Dec, 4)),
        GLOBAL_ATOMIC_DEC_X2 => (Global, at(A::Dec, 8)),
        GLOBAL_ATOMIC_INC => (Global, at(A::Inc, 4)),
        GLOBAL_ATOMIC_INC_X2 => (Global, at(A::Inc, 8)),
        GLOBAL_ATOMIC_MAX_F32 => (Global, at(A::FMax, 4)),
        GLOBAL_ATOMIC_MAX_F64 => (Global, at(A::FMax, 8)),
        GLOBAL_ATOMIC_MAX_NUM_F32 => (Global, at(A::FMax, 4)),
        GLOBAL_ATOMIC_MIN_F32 => (Global, at(A::FMin, 4)),
        GLOBAL_ATOMIC_MIN_F64 => (Global, at(A::FMin, 8)),
        GLOBAL_ATOMIC_MIN_NUM_F32 => (Global, at(A::FMin, 4)),
        GLOBAL_ATOMIC_OR => (Global, Atomic { op: A::Or, size: 4 }),
        GLOBAL_ATOMIC_OR_X2 => (Global, Atomic { op: A::Or, size: 8 }),
        GLOBAL_ATOMIC_PK_ADD_BF16 => (Global, at(A::PkAddBf16, 4)),
        GLOBAL_ATOMIC_PK_ADD_F16 => (Global, at(A::PkAddF16, 4)),
        GLOBAL_ATOMIC_SMAX => (Global, at(A::SMax, 4)),
        GLOBAL_ATOMIC_SMAX_X2 => (Global, at(A::SMax, 8)),
        GLOBAL_ATOMIC_SMIN => (Global, at(A::SMin, 4)),
        GLOBAL_ATOMIC_SMIN_X2 => (Global, at(A::SMin, 8)),
        GLOBAL_ATOMIC_SUB => (Global, at(A::Sub, 4)),
        GLOBAL_ATOMIC_SUB_CLAMP_U32 => (Global, at(A::SubClamp, 4)),
        GLOBAL_ATOMIC_SUB_X2 => (Global, at(A::Sub, 8)),
        GLOBAL_ATOMIC_SWAP => (Global, at(A::Swap, 4)),
        GLOBAL_ATOMIC_SWAP_X2 => (Global, at(A::Swap, 8)),
        GLOBAL_ATOMIC_UMAX => (Global, at(A::UMax, 4)),
        GLOBAL_ATOMIC_UMAX_X2 => (Global, at(A::UMax, 8)),
        GLOBAL_ATOMIC_UMIN => (Global, at(A::UMin, 4)),
        GLOBAL_ATOMIC_UMIN_X2 => (Global, at(A::UMin, 8)),
        GLOBAL_ATOMIC_XOR => (Global, at(A::Xor, 4)),
        GLOBAL_ATOMIC_XOR_X2 => (Global, at(A::Xor, 8)),
        GLOBAL_LOAD_ADDTID_B32 => (Global, AddTid { load: true }),
        GLOBAL_LOAD_BLOCK => (Global, Block { load: true }),
        GLOBAL_LOAD_DWORD => (Global, Load(LoadTy::Dwords(1))),
        GLOBAL_LOAD_DWORDX2 => (Global, Load(LoadTy::Dwords(2))),
        GLOBAL_LOAD_DWORDX3 => (Global, Load(LoadTy::Dwords(3))),
        GLOBAL_LOAD_DWORDX4 => (Global, Load(LoadTy::Dwords(4))),
        GLOBAL_LOAD_LDS_DWORD => (Global, LoadLds(LoadTy::Dwords(1))),
        GLOBAL_LOAD_LDS_DWORDX3 => (Global, LoadLds(LoadTy::Dwords(3))),
        GLOBAL_LOAD_LDS_DWORDX4 => (Global, LoadLds(LoadTy::Dwords(4))),
        GLOBAL_LOAD_LDS_SBYTE => (Global, LoadLds(sub(1, true))),
        GLOBAL_LOAD_LDS_SSHORT => (Global, LoadLds(sub(2, true))),
        GLOBAL_LOAD_LDS_UBYTE => (Global, LoadLds(sub(1, false))),
        GLOBAL_LOAD_LDS_USHORT => (Global, LoadLds(sub(2, false))),
        GLOBAL_LOAD_SBYTE => (Global, Load(sub(1, true))),
        GLOBAL_LOAD_SBYTE_D16 => (Global, Load(d16(1, true, false))),
        GLOBAL_LOAD_SBYTE_D16_HI => (Global, Load(d16(1, true, true))),
        GLOBAL_LOAD_SHORT_D16 => (Global, Load(d16(2, false, false))),
        GLOBAL_LOAD_SHORT_D16_HI => (Global, Load(d16(2, false, true))),
        GLOBAL_LOAD_SSHORT => (Global, Load(sub(2, true))),
        GLOBAL_LOAD_TR_B128 => (Global, LoadTr { wide: true }),
        GLOBAL_LOAD_TR_B64 => (Global, LoadTr { wide: false }),
        GLOBAL_LOAD_UBYTE => (Global, Load(sub(1, false))),
        GLOBAL_LOAD_UBYTE_D16 => (Global, Load(d16(1, false, false))),
        GLOBAL_LOAD_UBYTE_D16_HI => (Global, Load(d16(1, false, true))),
        GLOBAL_LOAD_USHORT => (Global, Load(sub(2, false))),
        GLOBAL_STORE_ADDTID_B32 => (Global, AddTid { load: false }),
        GLOBAL_STORE_BLOCK => (Global, Block { load: false }),
        GLOBAL_STORE_BYTE => (Global, Store(StoreTy::Sub { size: 1, hi: false })),
        GLOBAL_STORE_BYTE_D16_HI => (Global, Store(StoreTy::Sub { size: 1, hi: true })),
        GLOBAL_STORE_DWORD => (Global, Store(StoreTy::Dwords(1))),
        GLOBAL_STORE_DWORDX2 => (Global, Store(StoreTy::Dwords(2))),
        GLOBAL_STORE_DWORDX3 => (Global, Store(StoreTy::Dwords(3))),
        GLOBAL_STORE_DWORDX4 => (Global, Store(StoreTy::Dwords(4))),
        GLOBAL_STORE_SHORT => (Global, Store(StoreTy::Sub { size: 2, hi: false })),
        GLOBAL_STORE_SHORT_D16_HI => (Global, Store(StoreTy::Sub { size: 2, hi: true })),
        SCRATCH_LOAD_BLOCK => (Scratch, Block { load: true }),
        SCRATCH_LOAD_DWORD => (Scratch, Load(LoadTy::Dwords(1))),
        SCRATCH_LOAD_DWORDX2 => (Scratch, Load(LoadTy::Dwords(2))),
        SCRATCH_LOAD_DWORDX3 => (Scratch, Load(LoadTy::Dwords(3))),
        SCRATCH_LOAD_DWORDX4 => (Scratch, Load(LoadTy::Dwords(4))),
        SCRATCH_LOAD_LDS_DWORD => (Scratch, LoadLds(LoadTy::Dwords(1))),
        SCRATCH_LOAD_LDS_SBYTE => (Scratch, LoadLds(sub(1, true))),
        SCRATCH_LOAD_LDS_SSHORT => (Scratch, LoadLds(sub(2, true))),
        SCRATCH_LOAD_LDS_UBYTE => (Scratch, LoadLds(sub(1, false))),
        SCRATCH_LOAD_LDS_USHORT => (Scratch, LoadLds(sub(2, false))),
        SCRATCH_LOAD_SBYTE => (Scratch, Load(sub(1, true))),
        SCRATCH_LOAD_SBYTE_D16 => (Scratch, Load(d16(1, true, false))),
        SCRATCH_LOAD_SBYTE_D16_HI => (Scratch, Load(d16(1, true, true))),
        SCRATCH_LOAD_SHORT_D16 => (Scratch, Load(d16(2, false, false))),
        SCRATCH_LOAD_SHORT_D16_HI => (Scratch, Load(d16(2, false, true))),
        SCRATCH_LOAD_SSHORT => (Scratch, Load(sub(2, true))),
        SCRATCH_LOAD_UBYTE => (Scratch, Load(sub(1, false))),
        SCRATCH_LOAD_UBYTE_D16 => (Scratch, Load(d16(1, false, false))),
        SCRATCH_LOAD_UBYTE_D16_HI => (Scratch, Load(d16(1, false, true))),
        SCRATCH_LOAD_USHORT => (Scratch, Load(sub(2, false))),
        SCRATCH_STORE_BLOCK => (Scratch, Block { load: false }),
        SCRATCH_STORE_BYTE => (Scratch, Store(StoreTy::Sub { size: 1, hi: false })),
        SCRATCH_STORE_BYTE_D16_HI => (Scratch, Store(StoreTy::Sub { size: 1, hi: true })),
        SCRATCH_STORE_DWORD => (Scratch, Store(StoreTy::Dwords(1))),
        SCRATCH_STORE_DWORDX2 => (Scratch, Store(StoreTy::Dwords(2))),
        SCRATCH_STORE_DWORDX3 => (Scratch, Store(StoreTy::Dwords(3))),
        SCRATCH_STORE_DWORDX4 => (Scratch, Store(StoreTy::Dwords(4))),
        SCRATCH_STORE_SHORT => (Scratch, Store(StoreTy::Sub { size: 2, hi: false })),
        SCRATCH_STORE_SHORT_D16_HI => (Scratch, Store(StoreTy::Sub { size: 2, hi: true })),
        TBUFFER_LOAD_D16_FORMAT_X => (Tbuffer, LoadFormat(shape(1, true, false))),
        TBUFFER_LOAD_D16_FORMAT_XY => (Tbuffer, LoadFormat(shape(2, true, false))),
        TBUFFER_LOAD_D16_FORMAT_XYZ => (Tbuffer, LoadFormat(shape(3, true, false))),
        TBUFFER_LOAD_D16_FORMAT_XYZW => (Tbuffer, LoadFormat(shape(4, true, false))),
        TBUFFER_LOAD_FORMAT_D16_X => (Tbuffer, LoadFormat(shape(1, true, false))),
        TBUFFER_LOAD_FORMAT_D16_XY => (Tbuffer, LoadFormat(shape(2, true, false))),
        TBUFFER_LOAD_FORMAT_D16_XYZ => (Tbuffer, LoadFormat(shape(3, true, false))),
        TBUFFER_LOAD_FORMAT_D16_XYZW => (Tbuffer, LoadFormat(shape(4, true, false))),
        TBUFFER_LOAD_FORMAT_X => (Tbuffer, LoadFormat(shape(1, false, false))),
        TBUFFER_LOAD_FORMAT_XY => (Tbuffer, LoadFormat(shape(2, false, false))),
        TBUFFER_LOAD_FORMAT_XYZ => (Tbuffer, LoadFormat(shape(3, false, false))),
        TBUFFER_LOAD_FORMAT_XYZW => (Tbuffer, LoadFormat(shape(4, false, false))),
        TBUFFER_STORE_D16_FORMAT_X => (Tbuffer, StoreFormat(shape(1, true, false))),
        TBUFFER_STORE_D16_FORMAT_XY => (Tbuffer, StoreFormat(shape(2, true, false))),
        TBUFFER_STORE_D16_FORMAT_XYZ => (Tbuffer, StoreFormat(shape(3, true, false))),
        TBUFFER_STORE_D16_FORMAT_XYZW => (Tbuffer, StoreFormat(shape(4, true, false))),
        TBUFFER_STORE_FORMAT_D16_X => (Tbuffer, StoreFormat(shape(1, true, false))),
        TBUFFER_STORE_FORMAT_D16_XY => (Tbuffer, StoreFormat(shape(2, true, false))),
        TBUFFER_STORE_FORMAT_D16_XYZ => (Tbuffer, StoreFormat(shape(3, true, false))),
        TBUFFER_STORE_FORMAT_D16_XYZW => (Tbuffer, StoreFormat(shape(4, true, false))),
        TBUFFER_STORE_FORMAT_X => (Tbuffer, StoreFormat(shape(1, false, false))),
        TBUFFER_STORE_FORMAT_XY => (Tbuffer, StoreFormat(shape(2, false, false))),
        TBUFFER_STORE_FORMAT_XYZ => (Tbuffer, StoreFormat(shape(3, false, false))),
        TBUFFER_STORE_FORMAT_XYZW => (Tbuffer, StoreFormat(shape(4, false, false))),
        GLOBAL_ATOMIC_ORDERED_ADD_B64 => (Global, Unsupported("ordered add (GWS) is not lifted")),
    }
}

/// Lifts a FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: VmemSem) -> LiftResult {
    let (seg, vm) = decode(op);
    let done = |r: R<()>| r.map(|()| (InstClass::Vmem, Flow::Next));
    // The gfx12 forms that count themselves.
    match vm {
        Vm::Block { load } => return done(block_mem(l, inst, seg == Seg::Scratch, load)),
        Vm::AddTid { load } => return done(addtid(l, inst, load)),
        Vm::LoadTr { wide } => return done(load_tr(l, inst, wide)),
        _ => {}
    }
    l.count_vector();
    if let Vm::NoEffect = vm {
        return Ok((InstClass::Vmem, Flow::Next));
    }
    let space = match inst.format {
        Format::Flat => Space::Flat,
        Format::Scratch => Space::Scratch,
        Format::Global => Space::Global,
        _ => Space::Global,
    };
    if !seg.fits(inst.format) {
        return Err("not supported".into());
    }
    let gfx9 = l.gpu.family() == Some(crate::isa::Family::Gfx9);
    let typed = matches!(vm, Vm::LoadFormat(_) | Vm::StoreFormat(_));
    if !gfx9 && (inst.mem.lds || matches!(vm, Vm::LoadLds(_))) {
        // RDNA's LDS-direct loads differ from GFX9's.
        return Err("not supported on this target".into());
    }
    let exec = l.exec();
    if matches!(inst.format, Format::Mubuf | Format::Mtbuf) && !gfx9 {
        // RDNA V# layout and out-of-range modes (`rdna_buffer`).
        let b = rdna_buffer::access(l, inst)?;
        let mask = l.and(exec, b.lanes_ok);
        let a = Access {
            space,
            addr: b.addr,
            mask,
            exec,
            range: Some(b.range),
        };
        if !typed {
            return access_op(l, inst, &a, vm, None);
        }
        // Typed: the GFX9 path on a GFX9-style dword 3 carrying the unified format's
        // DFMT/NFMT and the selects (MTBUF: the instruction's format, identity selects).
        let d3 = rdna_buffer::typed_dword3(l, inst)?;
        let mut mubuf = *inst;
        mubuf.format = Format::Mubuf;
        return access_op(l, &mubuf, &a, vm, Some(d3));
    }
    let buffer = matches!(inst.format, Format::Mubuf | Format::Mtbuf);
    let (addr, range, d3) = if buffer {
        let (addr, range, d3) = buffer_addr(l, inst)?;
        (addr, Some(range), Some(d3))
    } else {
        (flat_addr(l, inst, space)?, None, None)
    };
    let a = Access {
        space,
        addr,
        mask: exec,
        exec,
        range,
    };
    access_op(l, inst, &a, vm, d3)
}

/// The load, store or atomic `vm` at `a`; `d3` is the GFX9 buffer resource's dword 3 (typed
/// access formats), `None` outside GFX9 MUBUF/MTBUF.
fn access_op(l: &mut Lifter, inst: &Inst, a: &Access, vm: Vm, d3: Option<Val>) -> LiftResult {
    if inst.mem.lds {
        match (vm, d3) {
            // The converted X component goes to LDS like a dword load's data.
            (Vm::LoadFormat(s), Some(d3)) if s.comps == 1 && !s.d16 => {
                let x = format_comps(l, inst, a, s, d3)?;
                lds_store_lanes(l, inst, a, x);
            }
            (Vm::Load(t) | Vm::LoadLds(t), _) => load_to_lds(l, inst, a, t)?,
            _ => return Err("not supported with lds".into()),
        }
    } else {
        match (vm, d3) {
            (Vm::LoadLds(t), _) => load_to_lds(l, inst, a, t)?,
            (Vm::LoadFormat(s), Some(d3)) => load_format(l, inst, a, s, d3)?,
            (Vm::StoreFormat(s), Some(d3)) => store_format(l, inst, a, s, d3)?,
            (Vm::Load(t), _) => load(l, inst, a, t)?,
            (Vm::Store(t), _) => store(l, inst, a, t)?,
            (Vm::Atomic { op, size }, _) => atomic(l, inst, a, op, size)?,
            (Vm::Unsupported(why), _) => return Err(why.into()),
            _ => return Err("not supported".into()),
        }
    }
    Ok((InstClass::Vmem, Flow::Next))
}

/// MUBUF range-check inputs: `(offset V64, num_records V64, stride == 0 (S32),
/// index-in-range mask S64)`.
type Range = (Val, Val, Val, Val);

/// A computed vector access.
struct Access {
    space: Space,
    /// `V64` per-lane addresses.
    addr: Val,
    /// Lanes that access memory.
    mask: Val,
    /// Lanes whose destination registers are written.
    exec: Val,
    /// MUBUF range check.
    range: Option<Range>,
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

/// MUBUF/MTBUF address, the range-check inputs (see [`piece_mask`]) and V# dword3.
fn buffer_addr(l: &mut Lifter, inst: &Inst) -> R<(Val, Range, Val)> {
    let sb = inst.src[3]
        .sreg()
        .ok_or("buffer resource is not an SGPR quad")?;
    if sb as u16 + 4 > 128 {
        return Err("V# range leaves the scalar registers".into());
    }
    // V#: dword0 = base[31:0], dword1[15:0] = base[47:32], dword1[29:16] = stride,
    // dword1[31] = SWIZZLE_EN, dword2 = num_records, dword3[20:19] = ELEMENT_SIZE,
    // dword3[22:21] = INDEX_STRIDE, dword3[23] = ADD_TID_ENABLE.
    let d0 = l.get_sreg(sb);
    let d1 = l.get_sreg(sb + 1);
    let d2 = l.get_sreg(sb + 2);
    let d3 = l.get_sreg(sb + 3);
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
    let (vindex, voff): (Option<Val>, Option<Val>) = match (inst.mem.idxen, inst.mem.offen) {
        (false, false) => (None, None),
        (true, false) => (Some(l.v32(inst.src[0], K::B32)?), None),
        (false, true) => (None, Some(l.v32(inst.src[0], K::B32)?)),
        (true, true) => {
            let r = inst.src[0].vreg().ok_or("buffer vaddr is not a VGPR")?;
            (Some(l.get_vreg(r)?), Some(l.get_vreg(r + 1)?))
        }
    };
    // offset = inst offset + voffset; index = vindex + (ADD_TID_ENABLE ? lane : 0). The
    // linear sum is formed in 64 bits (a voffset near 4 GiB is out of range, not wrapped).
    let ioff = l.c32(inst.mem.offset as u32);
    let ioff = l.bcast(ioff);
    let gfx9 = l.gpu.family() == Some(crate::isa::Family::Gfx9);
    let index = if gfx9 {
        let tid_en = l.lshr_imm(d3, 23);
        let tid_en = l.and_imm(tid_en, 1);
        let tid_en = l.bcast(tid_en);
        let lane = l.push_op(Op::LaneId, Ty::V32);
        let tid = l.bin(BinOp::Mul, lane, tid_en);
        match vindex {
            Some(ix) => l.add(ix, tid),
            None => tid,
        }
    } else {
        // RDNA V#s place these fields differently; indexing there is vindex only.
        match vindex {
            Some(ix) => ix,
            None => {
                let z = l.c32(0);
                l.bcast(z)
            }
        }
    };
    let sv = l.bcast(stride);
    let scaled = l.bin(BinOp::Mul, index, sv);
    let scaled = l.conv(ConvOp::ZExt, scaled);
    let io64 = l.conv(ConvOp::ZExt, ioff);
    let mut linear = l.add(scaled, io64);
    if let Some(v) = voff {
        let v = l.conv(ConvOp::ZExt, v);
        linear = l.add(linear, v);
    }
    let buf_off = if gfx9 {
        // Swizzled (dword1[31]): ES = 2 << dword3[20:19], IS = 8 << dword3[22:21], as shifts;
        // 32-bit arithmetic.
        let offset = match voff {
            Some(v) => l.add(ioff, v),
            None => ioff,
        };
        let es = l.lshr_imm(d3, 19);
        let es = l.and_imm(es, 3);
        let es = l.add_imm(es, 1);
        let es = l.bcast(es);
        let is = l.lshr_imm(d3, 21);
        let is = l.and_imm(is, 3);
        let is = l.add_imm(is, 3);
        let is = l.bcast(is);
        let i_msb = l.bin(BinOp::LShr, index, is);
        let t = l.bin(BinOp::Shl, i_msb, is);
        let i_lsb = l.bin(BinOp::Sub, index, t);
        let o_msb = l.bin(BinOp::LShr, offset, es);
        let o_msb = l.bin(BinOp::Shl, o_msb, es);
        let o_lsb = l.bin(BinOp::Sub, offset, o_msb);
        let hi = l.bin(BinOp::Mul, i_msb, sv);
        let hi = l.add(hi, o_msb);
        let hi = l.bin(BinOp::Shl, hi, is);
        let lo = l.bin(BinOp::Shl, i_lsb, es);
        let swz = l.add(hi, lo);
        let swz = l.add(swz, o_lsb);
        let swz = l.conv(ConvOp::ZExt, swz);
        let swz_en = l.lshr_imm(d1, 31);
        let all = l.c64(u64::MAX);
        let none = l.c64(0);
        let swz_en = l.select(swz_en, all, none);
        l.select(swz_en, swz, linear)
    } else {
        linear
    };
    let sov = l.bcast(so);
    let off = l.add(sov, buf_off);
    let idx_ok = l.cmp(CmpOp::ULt, index, nrec);
    let stride0 = l.eq0(stride);
    let nrec64 = l.conv(ConvOp::ZExt, nrec);
    let bv = l.bcast(base);
    let addr = l.add(bv, off);
    Ok((addr, (off, nrec64, stride0, idx_ok), d3))
}

/// Bytes per element of each DFMT, indexed by DFMT (lanes 16.. unused).
fn elem_bytes_table() -> [u32; 64] {
    let mut t = [0u32; 64];
    for (d, slot) in t.iter_mut().enumerate().take(16) {
        *slot = crate::sem::buf_fmt::elem_bytes(d as u32);
    }
    t
}

/// The typed-access format key (`DFMT | NFMT << 4`, `S32`): the instruction's for MTBUF,
/// the V#'s (dword3 DATA_FORMAT/NUM_FORMAT) for MUBUF; and the element size in bytes (`S32`).
fn format_key(l: &mut Lifter, inst: &Inst, d3: Val) -> (Val, Val) {
    let key = if inst.format == Format::Mtbuf {
        l.c32(inst.mem.format as u32 & 0x7f)
    } else {
        let df = l.lshr_imm(d3, 15);
        let df = l.and_imm(df, 15);
        let nf = l.lshr_imm(d3, 12);
        let nf = l.and_imm(nf, 7);
        let nf = l.shl_imm(nf, 4);
        l.or(df, nf)
    };
    let df = l.and_imm(key, 15);
    let table = l.lane_const(elem_bytes_table());
    let dv = l.bcast(df);
    let sz = l.gather(table, dv);
    let zero = l.c32(0);
    let size = l.read_lane(sz, zero);
    (key, size)
}

/// Lanes of `a` that access the whole element of `size` bytes (`S32`, dynamic) and, when
/// `cond` (`S32`) is false, none.
fn elem_mask(l: &mut Lifter, a: &Access, size: Val, cond: Val) -> Val {
    let m = match a.range {
        None => a.mask,
        Some((off, nrec, stride0, idx_ok)) => {
            let s64 = l.conv(ConvOp::ZExt, size);
            let sv = l.bcast(s64);
            let end = l.add(off, sv);
            let by_off = l.cmp(CmpOp::ULe, end, nrec);
            let ok = l.select(stride0, by_off, idx_ok);
            l.and(a.mask, ok)
        }
    };
    let zero = l.c64(0);
    l.select(cond, m, zero)
}

/// The element's bytes as two `V64` (bytes 0..8, 8..16): each possible access size is
/// loaded under a mask that is empty unless the element has that size.
fn load_element(l: &mut Lifter, a: &Access, size: Val) -> (Val, Val) {
    let ld_if = |l: &mut Lifter, cond: Val, off: u64, sz: u8| -> Val {
        let mask = elem_mask(l, a, size, cond);
        let addr = if off != 0 {
            l.add_imm(a.addr, off)
        } else {
            a.addr
        };
        l.push_op(
            Op::Load {
                pc: l.pc,
                space: a.space,
                addr,
                size: sz,
                signed: false,
                mask,
            },
            Ty::V32,
        )
    };
    let c1 = l.c32(1);
    let c2 = l.c32(2);
    let is1 = l.cmp(CmpOp::Eq, size, c1);
    let is2 = l.cmp(CmpOp::Eq, size, c2);
    let b1 = ld_if(l, is1, 0, 1);
    let b2 = ld_if(l, is2, 0, 2);
    let mut dw = Vec::with_capacity(4);
    for k in 0..4u32 {
        let lim = l.c32(4 * (k + 1));
        let has = l.cmp(CmpOp::UGe, size, lim);
        dw.push(ld_if(l, has, 4 * k as u64, 4));
    }
    let low = l.or(b1, b2);
    let low = l.or(low, dw[0]);
    (l.pack(low, dw[1]), l.pack(dw[2], dw[3]))
}

/// `a | imm` for an `S32`.
fn or_imm(l: &mut Lifter, a: Val, imm: u32) -> Val {
    let c = l.c32(imm);
    l.or(a, c)
}

fn load_format(l: &mut Lifter, inst: &Inst, a: &Access, s: Shape, d3: Val) -> R<()> {
    let (n, d16, hi) = (s.comps, s.d16, s.hi);
    let comps = format_comps(l, inst, a, s, d3)?;
    if !d16 {
        return l.set_vregs(inst.dst[0], &comps, a.exec);
    }
    let reg = inst.dst[0].vreg().ok_or("destination is not a VGPR")?;
    if hi {
        let old = l.get_vreg(reg)?;
        let keep = l.and_imm(old, 0xffff);
        let h = l.shl_imm(comps[0], 16);
        let r = l.or(keep, h);
        return l.set_vreg(reg, r, a.exec);
    }
    let mut vals = Vec::with_capacity(n.div_ceil(2));
    for (j, pair) in comps.chunks(2).enumerate() {
        let v = if let [x, y] = pair {
            let y = l.shl_imm(*y, 16);
            l.or(*x, y)
        } else {
            let old = l.get_vreg(reg + j as u16)?;
            let keep = l.and_imm(old, 0xffff_0000);
            l.or(keep, pair[0])
        };
        vals.push(v);
    }
    let dst = crate::isa::Opnd::vgpr(reg as u8, vals.len() as u8);
    l.set_vregs(dst, &vals, a.exec)
}

/// The converted components of a typed load (`rest`: `x`, `xy`, ..., `d16_*`), one `V32` each
/// (f16 bits in the low half for d16).
fn format_comps(l: &mut Lifter, inst: &Inst, a: &Access, s: Shape, d3: Val) -> R<Vec<Val>> {
    let (n, d16) = (s.comps, s.d16);
    let (key, size) = format_key(l, inst, d3);
    let (raw_lo, raw_hi) = load_element(l, a, size);
    let mut comps = Vec::with_capacity(n);
    for i in 0..n {
        // DST_SEL_X..W (dword3[3i+2:3i]) for MUBUF; the identity (X..W = 4..7) for MTBUF.
        let sel = if inst.format == Format::Mtbuf {
            l.c32(4 + i as u32)
        } else {
            let s = l.lshr_imm(d3, 3 * i as u64);
            l.and_imm(s, 7)
        };
        let sel = l.shl_imm(sel, 8);
        let k = l.or(key, sel);
        let k = if d16 {
            or_imm(l, k, crate::sem::buf_fmt::KEY_D16)
        } else {
            k
        };
        // RDNA: f32 → f16 by truncation (RDNA4 ISA 9.3.1).
        let k = if d16 && l.gpu.family() != Some(crate::isa::Family::Gfx9) {
            or_imm(l, k, crate::sem::buf_fmt::KEY_F32_RTZ)
        } else {
            k
        };
        let kv = l.bcast(k);
        comps.push(l.lane_fn(LaneFn::BufFmtLoad, vec![raw_lo, raw_hi, kv], Ty::V32));
    }
    Ok(comps)
}

fn store_format(l: &mut Lifter, inst: &Inst, a: &Access, s: Shape, d3: Val) -> R<()> {
    let (n, d16, hi) = (s.comps, s.d16, s.hi);
    let (key, size) = format_key(l, inst, d3);
    let nregs = if d16 { n.div_ceil(2) } else { n };
    let regs = l.get_vregs(inst.src[1], nregs as u16)?;
    let z = l.c32(0);
    let zero = l.bcast(z);
    let mut c = [zero; 4];
    if d16 {
        for i in 0..n {
            let r = regs[i / 2];
            let h = if hi || i % 2 == 1 {
                l.lshr_imm(r, 16)
            } else {
                r
            };
            c[i] = l.and_imm(h, 0xffff);
        }
    } else {
        c[..n].copy_from_slice(&regs[..n]);
    }
    if l.gpu.family() != Some(crate::isa::Family::Gfx9) {
        // RDNA: components the shader does not supply repeat X (RDNA4 ISA 9.3: "XYXX").
        for i in n..4 {
            c[i] = c[0];
        }
    }
    let xy = l.pack(c[0], c[1]);
    let zw = l.pack(c[2], c[3]);
    let mut parts = Vec::with_capacity(2);
    for part in 0..2u64 {
        let mut k = or_imm(l, key, (part as u32) << 12);
        if d16 {
            k = or_imm(l, k, crate::sem::buf_fmt::KEY_D16);
        }
        let kv = l.bcast(k);
        parts.push(l.lane_fn(LaneFn::BufFmtStore, vec![xy, zw, kv], Ty::V64));
    }
    let words = [
        l.lo(parts[0]),
        l.hi(parts[0]),
        l.lo(parts[1]),
        l.hi(parts[1]),
    ];
    let st_if = |l: &mut Lifter, cond: Val, off: u64, sz: u8, data: Val| {
        let mask = elem_mask(l, a, size, cond);
        let addr = if off != 0 {
            l.add_imm(a.addr, off)
        } else {
            a.addr
        };
        l.effect(Op::Store {
            pc: l.pc,
            space: a.space,
            addr,
            size: sz,
            data,
            mask,
        });
    };
    let c1 = l.c32(1);
    let c2 = l.c32(2);
    let is1 = l.cmp(CmpOp::Eq, size, c1);
    let is2 = l.cmp(CmpOp::Eq, size, c2);
    st_if(l, is1, 0, 1, words[0]);
    st_if(l, is2, 0, 2, words[0]);
    for (k, w) in words.into_iter().enumerate() {
        let lim = l.c32(4 * (k as u32 + 1));
        let has = l.cmp(CmpOp::UGe, size, lim);
        st_if(l, has, 4 * k as u64, 4, w);
    }
    Ok(())
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

/// LDS-direct loads (`global_load_lds_*`, `scratch_load_lds_*`, MUBUF loads with `lds`):
/// each active lane's data goes to LDS at `M0[17:0] + inst_offset + lane × size`, where size
/// is 4 for dword and sub-dword types (bytes and shorts are zero/sign-extended to a dword)
/// and 12/16 for `dwordx3`/`dwordx4`; no VGPR is written. M0 holds the LDS base (LLVM's
/// `*.load.lds` intrinsics pass the LDS pointer there; the instruction offset applies to
/// both addresses). Out-of-range buffer lanes write 0s.
fn load_to_lds(l: &mut Lifter, inst: &Inst, a: &Access, ty: LoadTy) -> R<()> {
    let (n, sub): (u64, Option<(u8, bool)>) = match ty {
        LoadTy::Sub { size, signed } => (1, Some((size, signed))),
        LoadTy::Dwords(n @ (1 | 3 | 4)) => (n as u64, None),
        LoadTy::Dwords(_) | LoadTy::D16 { .. } => return Err("not supported".into()),
    };
    let vals: Vec<Val> = match sub {
        Some((size, signed)) => vec![ld(l, a, 0, size, signed)],
        None => (0..n).map(|i| ld(l, a, 4 * i, 4, false)).collect(),
    };
    lds_store_lanes(l, inst, a, vals);
    Ok(())
}

/// Stores each lane's dwords `vals` to LDS at `M0[17:0] + inst_offset + lane × 4 × vals.len()`
/// (see [`load_to_lds`]).
fn lds_store_lanes(l: &mut Lifter, inst: &Inst, a: &Access, vals: Vec<Val>) {
    let n = vals.len() as u64;
    let m0 = l.get_sreg(124);
    let m0 = l.and_imm(m0, 0x3_ffff);
    let off = l.c32(inst.mem.offset as u32);
    let m0 = l.add(m0, off);
    let m0 = l.conv(ConvOp::ZExt, m0);
    let lane = l.push_op(Op::LaneId, Ty::V32);
    let per = l.c32(4 * n as u32);
    let per = l.bcast(per);
    let lo = l.bin(BinOp::Mul, lane, per);
    let lo = l.conv(ConvOp::ZExt, lo);
    let b = l.bcast(m0);
    let base = l.add(b, lo);
    for (i, v) in vals.into_iter().enumerate() {
        let addr = l.add_imm(base, 4 * i as u64);
        l.effect(Op::Store {
            pc: l.pc,
            space: Space::Lds,
            addr,
            size: 4,
            data: v,
            mask: a.exec,
        });
    }
}

fn load(l: &mut Lifter, inst: &Inst, a: &Access, ty: LoadTy) -> R<()> {
    let (size, signed, hi) = match ty {
        LoadTy::Sub { size, signed } => {
            let v = ld(l, a, 0, size, signed);
            return l.set_vregs(inst.dst[0], &[v], a.exec);
        }
        LoadTy::Dwords(n) => {
            let vals: Vec<Val> = (0..n as u64).map(|i| ld(l, a, 4 * i, 4, false)).collect();
            return l.set_vregs(inst.dst[0], &vals, a.exec);
        }
        LoadTy::D16 { size, signed, hi } => (size, signed, hi),
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

fn store(l: &mut Lifter, inst: &Inst, a: &Access, ty: StoreTy) -> R<()> {
    let data = inst.src[1];
    let (size, hi) = match ty {
        StoreTy::Sub { size, hi } => (size, hi),
        StoreTy::Dwords(n) => {
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

/// A vector memory atomic `op` on `size`-byte data (RDNA's f32 min/max atomics, gfx11
/// `min_f32` and gfx12 `min_num_f32`, are minNum/maxNum style, as every memory atomic:
/// RDNA4 ISA 13.3; gfx11 `csub` is gfx12 `sub_clamp`, RDNA4 ISA Table 49).
fn atomic(l: &mut Lifter, inst: &Inst, a: &Access, op: AtomicOp, size: u8) -> R<()> {
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
        let two = matches!(op, AtomicOp::CmpSwap | AtomicOp::FCmpSwap);
        let d = l.get_vregs(inst.src[1], if two { 2 } else { 1 })?;
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
    } else if inst.mem.glc && !matches!(inst.format, Format::Mubuf | Format::Mtbuf) {
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

// ---- RDNA ---------------------------------------------------------------------------------

/// gfx12 `global_load_tr_b128` (16-bit elements) and `global_load_tr_b64` (8-bit) (RDNA4
/// ISA 11.6): lanes 0..31 each load 16 (8) contiguous bytes, the column of 8 elements
/// `A[M0..M0+8][K]` of a 16x16 A-matrix stored column-major, with `K = (lane >> 3) * 4 +
/// (lane & 3)` and `M0 = 8 * ((lane >> 2) & 1)` (the lane figure of 11.6.2); the elements
/// are then written in the WMMA A-matrix VGPR layout (ISA 7.12.2: 16-bit wave32: lane
/// `{K[2], M}`, VGPR `{K[3], K[1]}`, half `K[0]`; wave64: lane `{K[3:2], M}`, VGPR `K[1]`;
/// 8-bit wave32: lane `{K[3], M}`, VGPR `K[2]`, byte `K[1:0]`; wave64: lane `{K[2], K[3],
/// M}`, byte `K[1:0]`). In wave64 the addresses of lanes 32..63 are not used. EXEC must be
/// all ones (otherwise undefined); the loads and writes follow EXEC here.
fn load_tr(l: &mut Lifter, inst: &Inst, wide: bool) -> R<()> {
    l.count_vector();
    let esize: u32 = if wide { 16 } else { 8 };
    let ndw: u16 = if wide { 4 } else { 2 };
    let wave = l.wave;
    let addr = seg_addr(l, inst, false, 0)?;
    let exec = l.exec();
    let lanes32 = l.c64(0xffff_ffff);
    let lmask = l.and(exec, lanes32);
    let mut loaded = Vec::new();
    for i in 0..ndw as u64 {
        let a = l.add_imm(addr, 4 * i);
        loaded.push(l.push_op(
            crate::ir::Op::Load {
                pc: l.pc,
                space: crate::env::Space::Global,
                addr: a,
                size: 4,
                signed: false,
                mask: lmask,
            },
            Ty::V32,
        ));
    }
    // Destination (lane d, register j, part p) → (M, K).
    let parts = 32 / esize;
    let nregs: u32 = match (wide, wave) {
        (true, 32) => 4,
        (true, _) => 2,
        (false, 32) => 2,
        (false, _) => 1,
    };
    let mk = |d: u32, j: u32, p: u32| -> (u32, u32) {
        let m = d & 15;
        let k = match (wide, wave) {
            (true, 32) => (d >> 4 & 1) << 2 | (j >> 1) << 3 | (j & 1) << 1 | p,
            (true, _) => (d >> 4 & 3) << 2 | j << 1 | p,
            (false, 32) => (d >> 4 & 1) << 3 | j << 2 | p,
            (false, _) => (d >> 5 & 1) << 2 | (d >> 4 & 1) << 3 | p,
        };
        (m, k)
    };
    let dst = inst.dst[0].vreg().ok_or("load destination is not a VGPR")?;
    for j in 0..nregs {
        let mut acc: Option<Val> = None;
        for p in 0..parts {
            // Source lane and element of every destination lane.
            let mut src = [0u32; 64];
            let mut elem = [0u32; 64];
            for d in 0..64u32 {
                let (m, k) = mk(d, j, p);
                src[d as usize] = (k >> 2) << 3 | (k & 3) | (m >> 3) << 2;
                elem[d as usize] = m & 7;
            }
            let idx = l.lane_const(src);
            let per_dword = 32 / esize;
            let mut val: Option<Val> = None;
            for (w, &dw) in loaded.iter().enumerate() {
                let g = l.gather(dw, idx);
                let mut m = 0u64;
                for (d, &e) in elem.iter().enumerate() {
                    if e / per_dword == w as u32 {
                        m |= 1 << d;
                    }
                }
                val = Some(match val {
                    None => g,
                    Some(v) => {
                        let mv = l.c64(m);
                        l.select(mv, g, v)
                    }
                });
            }
            let v = val.ok_or("no loaded data")?;
            let shifts = l.lanes(|d| esize * (elem[d as usize] % per_dword));
            let v = l.bin(BinOp::LShr, v, shifts);
            let v = l.and_imm(v, (1u64 << esize) - 1);
            let v = if p > 0 {
                l.shl_imm(v, (esize * p) as u64)
            } else {
                v
            };
            acc = Some(match acc {
                None => v,
                Some(a) => l.or(a, v),
            });
        }
        let r = acc.ok_or("no parts")?;
        l.set_vreg(dst + j as u16, r, exec)?;
    }
    Ok(())
}

/// The per-lane address of a GLOBAL (`SADDR + zext(VADDR)` or the 64-bit VADDR) or SCRATCH
/// (`VADDR + SADDR`, each optional: a per-lane offset in private memory) instruction, plus
/// `extra` bytes.
fn seg_addr(l: &mut Lifter, inst: &Inst, scratch: bool, extra: i64) -> R<Val> {
    let a = if scratch {
        let mut a = l.c64(0);
        a = l.bcast(a);
        if inst.src[0].is_some() {
            let v = l.v32(inst.src[0], K::B32)?;
            let v = l.conv(ConvOp::ZExt, v);
            a = l.add(a, v);
        }
        if inst.src[2].is_some() {
            let s = l.s32(inst.src[2], K::B32)?;
            let s = l.conv(ConvOp::ZExt, s);
            let s = l.bcast(s);
            a = l.add(a, s);
        }
        a
    } else if inst.src[2].is_some() {
        let sb = l.s64(inst.src[2], K::B64)?;
        let sb = l.bcast(sb);
        let v = l.v32(inst.src[0], K::B32)?;
        let v = l.conv(ConvOp::ZExt, v);
        l.add(sb, v)
    } else {
        l.v64(inst.src[0], K::B64)?
    };
    Ok(l.add_imm(a, (inst.mem.offset as i64 + extra) as u64))
}

/// gfx12 `global/scratch_{load,store}_block` (RDNA4 ISA 11.5): up to 32 consecutive VGPRs
/// to or from consecutive dwords per lane; bit `n` of M0 selects VGPR `n` (a skipped VGPR
/// still advances the offset by 4). Destination VGPRs past v255 are ignored; sources past
/// v255 read v0.
fn block_mem(l: &mut Lifter, inst: &Inst, scratch: bool, load: bool) -> R<()> {
    l.count_vector();
    let space = if scratch {
        crate::env::Space::Scratch
    } else {
        crate::env::Space::Global
    };
    let data = if load { inst.dst[0] } else { inst.src[1] };
    let reg = data.vreg().ok_or("block data is not a VGPR")?;
    let addr = seg_addr(l, inst, scratch, 0)?;
    let exec = l.exec();
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let all = l.c64(!0);
    let none = l.c64(0);
    for n in 0..32u16 {
        let bit = l.lshr_imm(m0, n as u64);
        let bit = l.and_imm(bit, 1);
        let sel = l.select(bit, all, none);
        let mask = l.and(exec, sel);
        let a = l.add_imm(addr, 4 * n as u64);
        let r = reg + n;
        if load {
            let v = l.push_op(
                crate::ir::Op::Load {
                    pc: l.pc,
                    space,
                    addr: a,
                    size: 4,
                    signed: false,
                    mask,
                },
                Ty::V32,
            );
            if r < 256 {
                l.set_vreg(r, v, mask)?;
            }
        } else {
            let d = l.get_vreg(if r < 256 { r } else { 0 })?;
            l.effect(crate::ir::Op::Store {
                pc: l.pc,
                space,
                addr: a,
                size: 4,
                data: d,
                mask,
            });
        }
    }
    Ok(())
}

/// `global_{load,store}_addtid_b32` (RDNA4 ISA 11.1.2): no VGPR address; lane `i` accesses
/// the dword at `SADDR + offset + 4 * i` (SADDR 0 for `off`).
fn addtid(l: &mut Lifter, inst: &Inst, load: bool) -> R<()> {
    l.count_vector();
    let base = if inst.src[2].is_some() {
        l.s64(inst.src[2], K::B64)?
    } else {
        l.c64(0)
    };
    let off = inst.mem.offset as i64 as u64;
    let base = l.add_imm(base, off);
    let base = l.bcast(base);
    let tid = l.lanes(|i| 4 * i);
    let tid = l.conv(ConvOp::ZExt, tid);
    let addr = l.add(base, tid);
    let space = crate::env::Space::Global;
    let exec = l.exec();
    if load {
        let v = l.push_op(
            crate::ir::Op::Load {
                pc: l.pc,
                space,
                addr,
                size: 4,
                signed: false,
                mask: exec,
            },
            Ty::V32,
        );
        l.set_vregs(inst.dst[0], &[v], exec)
    } else {
        let data = l.v32(inst.src[1], K::B32)?;
        l.effect(crate::ir::Op::Store {
            pc: l.pc,
            space,
            addr,
            size: 4,
            data,
            mask: exec,
        });
        Ok(())
    }
}
