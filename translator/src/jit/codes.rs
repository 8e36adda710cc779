//! Numeric codes for IR enums, as passed from generated code to the Rust helpers.

use crate::env::{AtomicOp, Space};
use crate::ir::{BinOp, CmpOp, ConvOp, LaneFn, Round, RoundedOp, TernOp, UnOp};

/// All unary ops, indexed by code.
pub const UNOPS: [UnOp; 17] = [
    UnOp::Not,
    UnOp::Neg,
    UnOp::Popcnt,
    UnOp::Clz,
    UnOp::Ctz,
    UnOp::BitReverse,
    UnOp::FNeg,
    UnOp::FAbs,
    UnOp::FSqrt,
    UnOp::FFloor,
    UnOp::FCeil,
    UnOp::FTrunc,
    UnOp::FRoundEven,
    UnOp::FRcp,
    UnOp::FRsq,
    UnOp::FFract,
    UnOp::FQuiet,
];

/// All binary ops, indexed by code.
pub const BINOPS: [BinOp; 25] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::MulHiU,
    BinOp::MulHiS,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
    BinOp::UMin,
    BinOp::UMax,
    BinOp::SMin,
    BinOp::SMax,
    BinOp::AddCarry,
    BinOp::SubBorrow,
    BinOp::FAdd,
    BinOp::FSub,
    BinOp::FMul,
    BinOp::FDiv,
    BinOp::FMinNum,
    BinOp::FMaxNum,
    BinOp::FLdexp,
    BinOp::FCopySign,
];

/// All ternary ops, indexed by code.
pub const TERNOPS: [TernOp; 5] = [
    TernOp::Fma,
    TernOp::Bfe,
    TernOp::SBfe,
    TernOp::Bfi,
    TernOp::Perm,
];

/// All comparisons, indexed by code.
pub const CMPOPS: [CmpOp; 25] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::ULt,
    CmpOp::ULe,
    CmpOp::UGt,
    CmpOp::UGe,
    CmpOp::SLt,
    CmpOp::SLe,
    CmpOp::SGt,
    CmpOp::SGe,
    CmpOp::FEq,
    CmpOp::FLt,
    CmpOp::FLe,
    CmpOp::FGt,
    CmpOp::FGe,
    CmpOp::FLg,
    CmpOp::FOrd,
    CmpOp::FUno,
    CmpOp::FNeq,
    CmpOp::FNlt,
    CmpOp::FNle,
    CmpOp::FNgt,
    CmpOp::FNge,
    CmpOp::FNlg,
    CmpOp::FClass,
];

/// All conversions, indexed by code.
pub const CONVOPS: [ConvOp; 20] = [
    ConvOp::ZExt,
    ConvOp::SExt,
    ConvOp::Lo,
    ConvOp::Hi,
    ConvOp::SExt8,
    ConvOp::SExt16,
    ConvOp::ZExt8,
    ConvOp::ZExt16,
    ConvOp::F32ToF64,
    ConvOp::F64ToF32,
    ConvOp::F16ToF32,
    ConvOp::F32ToF16,
    ConvOp::I32ToF32,
    ConvOp::U32ToF32,
    ConvOp::I32ToF64,
    ConvOp::U32ToF64,
    ConvOp::F32ToI32,
    ConvOp::F32ToU32,
    ConvOp::F64ToI32,
    ConvOp::F64ToU32,
];

/// All lane functions, indexed by code.
pub const LANEFNS: [LaneFn; 21] = [
    LaneFn::Exp2F32,
    LaneFn::Log2F32,
    LaneFn::SinF32,
    LaneFn::CosF32,
    LaneFn::FrexpMantF32,
    LaneFn::FrexpExpF32,
    LaneFn::DivFixupF32,
    LaneFn::DivFixupF64,
    LaneFn::DivFmasF32,
    LaneFn::DivFmasF64,
    LaneFn::DivScaleF32,
    LaneFn::DivScaleF32Flag,
    LaneFn::DivScaleF64,
    LaneFn::DivScaleF64Flag,
    LaneFn::RcpIflagF32,
    LaneFn::PkRtzF16F32,
    LaneFn::BufFmtLoad,
    LaneFn::BufFmtStore,
    LaneFn::TrigPreopF64,
    LaneFn::DivScaleF32Rdna,
    LaneFn::DivScaleF32RdnaFlag,
];

/// Code of the first [`LaneFn::Rounded`]: `ROUNDED_BASE + (op * 4 + round) * 2 + ovfl`,
/// with `op` the index in [`RoundedOp::ALL`] and `round` in [`Round::ALL`].
pub const ROUNDED_BASE: u32 = 0x1000;

/// The helper code of a lane function ([`LANEFNS`] index, or the rounded-op numbering).
pub fn lanefn_code(f: &LaneFn) -> Option<u32> {
    if let LaneFn::Rounded(op, rm, ovfl) = f {
        let o = code_of(&RoundedOp::ALL, op)?;
        let r = code_of(&Round::ALL, rm)?;
        return Some(ROUNDED_BASE + (o * 4 + r) * 2 + *ovfl as u32);
    }
    code_of(&LANEFNS, f)
}

/// The lane function of a helper code (inverse of [`lanefn_code`]).
pub fn lanefn_of(code: u32) -> Option<LaneFn> {
    if code >= ROUNDED_BASE {
        let i = code - ROUNDED_BASE;
        let op = *RoundedOp::ALL.get((i / 8) as usize)?;
        let rm = Round::ALL[(i / 2 % 4) as usize];
        return Some(LaneFn::Rounded(op, rm, i & 1 == 1));
    }
    LANEFNS.get(code as usize).copied()
}

/// Address spaces, indexed by code.
pub const SPACES: [Space; 4] = [Space::Global, Space::Flat, Space::Lds, Space::Scratch];

/// Atomic ops, indexed by code.
pub const ATOMICS: [AtomicOp; 24] = [
    AtomicOp::Swap,
    AtomicOp::CmpSwap,
    AtomicOp::Add,
    AtomicOp::Sub,
    AtomicOp::SMin,
    AtomicOp::UMin,
    AtomicOp::SMax,
    AtomicOp::UMax,
    AtomicOp::And,
    AtomicOp::Or,
    AtomicOp::Xor,
    AtomicOp::Inc,
    AtomicOp::Dec,
    AtomicOp::FAdd,
    AtomicOp::FMin,
    AtomicOp::FMax,
    AtomicOp::RSub,
    AtomicOp::MskOr,
    AtomicOp::Wrap,
    AtomicOp::PkAddF16,
    AtomicOp::PkAddBf16,
    AtomicOp::CondSub,
    AtomicOp::SubClamp,
    AtomicOp::FCmpSwap,
];

/// The code of `x` in `table`, or `None` when the table lacks it (a new IR variant that the
/// JIT does not know yet: the block then stays interpreted).
pub fn code_of<T: PartialEq>(table: &[T], x: &T) -> Option<u32> {
    table.iter().position(|t| t == x).map(|i| i as u32)
}
