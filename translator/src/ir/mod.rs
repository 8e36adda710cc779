//! Block-level SSA IR.
//!
//! A [`Block`] is the translation of one basic block of wave code: a list of [`Op`]s in SSA
//! form followed by one [`Exit`]. Every op that produces a value defines [`Val`] equal to its
//! index in [`Block::ops`]; operands always refer to earlier ops.
//!
//! Values have one of four types ([`Ty`]): uniform scalars (`S32`, `S64`, one value for the
//! wave) and lane vectors (`V32`, `V64`, one value per lane). Lane masks are `S64` values with
//! bit *l* for lane *l*.
//!
//! Lanes: a block has [`Block::lanes`] lanes, its wave size (64, or 32 for a wave32 block).
//! In a wave32 block only lanes 0..31 exist: lanes 32..63 of a vector value are unspecified
//! (each engine may compute them or not) and no op observes them. Vector compares give 0 in
//! mask bits 32..63; `ReadLane`, `WriteLane` and `Gather` take lane numbers modulo 32;
//! `SetVgpr`, `SetVgprDyn`, `Load`, `Store` and `Atomic` ignore mask bits 32..63, so lanes
//! 32..63 of the registers are never written and keep what they held (the zeroes of a fresh
//! [`crate::wave::WaveState`], or whatever a caller put there). Uniform ops on masks
//! (`CountVector` included) see the mask as it is.
//!
//! Floating-point ops treat 32-bit values as IEEE binary32 bits and 64-bit values as binary64
//! bits. Unless an op says otherwise, float results are the IEEE-754 round-to-nearest-even
//! results with denormals kept (the default kernel MODE); the lifter emits extra ops for other
//! MODE settings. The interpreter ([`crate::interp`]) is the reference meaning of every op; the
//! JIT must match it bit for bit, including NaN bit patterns.
//!
//! NaN rule (all arithmetic float ops unless the op says otherwise): if an operand is NaN,
//! the result is the first NaN operand in operand order, quieted (top mantissa bit set,
//! payload and sign kept); if no operand is NaN but the result is NaN (`inf - inf`, `0 * inf`,
//! `sqrt(-1)`, ...), the result is the default NaN `0x7FC00000` / `0x7FF8000000000000`.
//! Sign/bit ops (`FNeg`, `FAbs`, `FCopySign`) never quiet. Inactive lanes of `Load` and
//! `Atomic` results are 0.

mod display;
mod operands;
pub mod passes;
mod typecheck;
mod verify;

pub use verify::{verify, VerifyError};

/// An SSA value: the index of the op that defines it in [`Block::ops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Val(pub u32);

/// Value types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// Uniform 32-bit value.
    S32,
    /// Uniform 64-bit value (also lane masks).
    S64,
    /// 32 bits per lane.
    V32,
    /// 64 bits per lane.
    V64,
}

impl Ty {
    /// True for lane-vector types.
    pub fn is_vector(self) -> bool {
        matches!(self, Ty::V32 | Ty::V64)
    }
    /// Bits per element: 32 or 64.
    pub fn bits(self) -> u32 {
        match self {
            Ty::S32 | Ty::V32 => 32,
            Ty::S64 | Ty::V64 => 64,
        }
    }
    /// The vector type with this element width.
    pub fn to_vector(self) -> Ty {
        if self.bits() == 32 {
            Ty::V32
        } else {
            Ty::V64
        }
    }
    /// The scalar type with this element width.
    pub fn to_scalar(self) -> Ty {
        if self.bits() == 32 {
            Ty::S32
        } else {
            Ty::S64
        }
    }
}

/// Unary operations; the result has the operand's type unless noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// Bitwise not.
    Not,
    /// Two's complement negation.
    Neg,
    /// Population count.
    Popcnt,
    /// Count of leading zeros (width when zero).
    Clz,
    /// Count of trailing zeros (width when zero).
    Ctz,
    /// Bit reversal.
    BitReverse,
    /// Float negation (flips the sign bit; NaNs unchanged otherwise).
    FNeg,
    /// Float absolute value (clears the sign bit).
    FAbs,
    /// Correctly rounded square root.
    FSqrt,
    /// Round toward −∞.
    FFloor,
    /// Round toward +∞.
    FCeil,
    /// Round toward zero.
    FTrunc,
    /// Round to nearest, ties to even.
    FRoundEven,
    /// `1 / x`, correctly rounded.
    FRcp,
    /// `1 / sqrt(x)`, the correctly rounded square root followed by a correctly rounded division.
    FRsq,
    /// `x - floor(x)`, clamped below 1.0 (`v_fract`); NaN in, NaN out; ±Inf gives NaN.
    FFract,
    /// Quiets a signalling NaN (sets the top mantissa bit); other values unchanged.
    FQuiet,
}

/// Binary operations. Both operands have the same type, which is also the result type,
/// except the shifts (the amount is taken modulo the width) and as noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// Wrapping add.
    Add,
    /// Wrapping subtract.
    Sub,
    /// Wrapping multiply (low half).
    Mul,
    /// High half of the unsigned product.
    MulHiU,
    /// High half of the signed product.
    MulHiS,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Shift left by `b mod width`.
    Shl,
    /// Logical shift right by `b mod width`.
    LShr,
    /// Arithmetic shift right by `b mod width`.
    AShr,
    /// Unsigned minimum.
    UMin,
    /// Unsigned maximum.
    UMax,
    /// Signed minimum.
    SMin,
    /// Signed maximum.
    SMax,
    /// Unsigned add, 1 if it carries out, else 0 (result type = operand type).
    AddCarry,
    /// Unsigned subtract, 1 if it borrows (`a < b`), else 0.
    SubBorrow,
    /// Float add.
    FAdd,
    /// Float subtract.
    FSub,
    /// Float multiply.
    FMul,
    /// Float divide, correctly rounded.
    FDiv,
    /// IEEE-754-2008 minNum: if exactly one operand is NaN the other is returned; if both are
    /// NaN the result is `a` quieted; −0 < +0.
    FMinNum,
    /// IEEE-754-2008 maxNum, mirror of [`BinOp::FMinNum`].
    FMaxNum,
    /// `a * 2^b` with `b` a signed 32-bit integer in the low 32 bits of the operand (`v_ldexp`).
    FLdexp,
    /// Copy the sign of `b` onto `a`.
    FCopySign,
}

/// Ternary operations on three operands of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TernOp {
    /// Fused multiply-add `a * b + c`, single rounding.
    Fma,
    /// Unsigned bitfield extract: `(a >> (b & (w-1))) & ((1 << (c & (w-1))) - 1)`;
    /// a width of 0 gives 0.
    Bfe,
    /// Signed bitfield extract: as [`TernOp::Bfe`], then sign-extended from the field width.
    SBfe,
    /// Bitfield insert `(a & b) | (!a & c)`.
    Bfi,
    /// Byte permute (`v_perm_b32`, `BYTE_PERMUTE` in the RDNA4 ISA's V_PERM_B32 pseudocode) on the low 32 bits of
    /// each operand: byte `i` of the result is chosen by byte `i` of `c` from the 8 bytes
    /// `{a, b}` (`b` = bytes 0..3): 0..=7 that byte; 8..=11 the sign bit of byte 1/3/5/7
    /// replicated; 12 zero; 13..=255 0xff. 64-bit results are zero-extended.
    Perm,
}

/// Comparisons. Scalar operands give an `S32` 0/1; vector operands give an `S64` lane mask
/// with the result for every lane of the block (the lifter masks it with EXEC; bits 32..63
/// are 0 in a wave32 block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// Integer equal.
    Eq,
    /// Integer not equal.
    Ne,
    /// Unsigned less than.
    ULt,
    /// Unsigned less or equal.
    ULe,
    /// Unsigned greater than.
    UGt,
    /// Unsigned greater or equal.
    UGe,
    /// Signed less than.
    SLt,
    /// Signed less or equal.
    SLe,
    /// Signed greater than.
    SGt,
    /// Signed greater or equal.
    SGe,
    /// Float ordered equal.
    FEq,
    /// Float ordered less than.
    FLt,
    /// Float ordered less or equal.
    FLe,
    /// Float ordered greater than.
    FGt,
    /// Float ordered greater or equal.
    FGe,
    /// Float ordered and not equal (`lg`).
    FLg,
    /// Neither is NaN (`o`).
    FOrd,
    /// Either is NaN (`u`).
    FUno,
    /// Unordered or not equal (`neq`).
    FNeq,
    /// Unordered or not less than (`nlt`).
    FNlt,
    /// Unordered or not less or equal (`nle`).
    FNle,
    /// Unordered or not greater than (`ngt`).
    FNgt,
    /// Unordered or not greater or equal (`nge`).
    FNge,
    /// Unordered or equal (`nlg`).
    FNlg,
    /// `v_cmp_class`: true when `a`'s float class is in the class mask `b`
    /// (bit 0 sNaN, 1 qNaN, 2 −Inf, 3 −normal, 4 −denormal, 5 −0, 6 +0, 7 +denormal,
    /// 8 +normal, 9 +Inf).
    FClass,
}

/// Conversions between types and number formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvOp {
    /// 32 → 64 bits, zero-extending (`S32→S64`, `V32→V64`).
    ZExt,
    /// 32 → 64 bits, sign-extending.
    SExt,
    /// 64 → 32 bits: the low half.
    Lo,
    /// 64 → 32 bits: the high half.
    Hi,
    /// Sign-extend the low 8 bits (same width).
    SExt8,
    /// Sign-extend the low 16 bits (same width).
    SExt16,
    /// Zero-extend the low 8 bits (same width).
    ZExt8,
    /// Zero-extend the low 16 bits (same width).
    ZExt16,
    /// f32 → f64 (32 → 64 bits). NaNs are quieted.
    F32ToF64,
    /// f64 → f32, round to nearest even (64 → 32 bits). NaNs are quieted.
    F64ToF32,
    /// f16 (low 16 bits) → f32.
    F16ToF32,
    /// f32 → f16 in the low 16 bits (high bits 0), round to nearest even.
    F32ToF16,
    /// i32 → f32 (round to nearest even).
    I32ToF32,
    /// u32 → f32.
    U32ToF32,
    /// i32 → f64 (32 → 64 bits).
    I32ToF64,
    /// u32 → f64 (32 → 64 bits).
    U32ToF64,
    /// f32 → i32 toward zero, saturating; NaN gives 0.
    F32ToI32,
    /// f32 → u32 toward zero, saturating; NaN gives 0.
    F32ToU32,
    /// f64 → i32 toward zero, saturating; NaN gives 0 (64 → 32 bits).
    F64ToI32,
    /// f64 → u32 toward zero, saturating; NaN gives 0 (64 → 32 bits).
    F64ToU32,
}

impl ConvOp {
    /// The width of the result of this conversion of a `src_bits`-bit operand.
    pub fn result_bits(self, src_bits: u32) -> u32 {
        match self {
            ConvOp::ZExt
            | ConvOp::SExt
            | ConvOp::F32ToF64
            | ConvOp::I32ToF64
            | ConvOp::U32ToF64 => 64,
            ConvOp::Lo | ConvOp::Hi | ConvOp::F64ToF32 | ConvOp::F64ToI32 | ConvOp::F64ToU32 => 32,
            ConvOp::SExt8 | ConvOp::SExt16 | ConvOp::ZExt8 | ConvOp::ZExt16 => src_bits,
            _ => 32,
        }
    }
}

/// Pure per-lane functions evaluated by Rust code in both engines (the escape hatch for
/// operations too rare or intricate to express in IR; see `lanefn` in the interpreter).
/// Arguments and the result are 32- or 64-bit lanes as documented per function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneFn {
    /// `v_exp_f32`: 2^x (f32).
    Exp2F32,
    /// `v_log_f32`: log2(x) (f32).
    Log2F32,
    /// `v_sin_f32`: sin(2π·x) (f32).
    SinF32,
    /// `v_cos_f32`: cos(2π·x) (f32).
    CosF32,
    /// `v_frexp_mant_f32`.
    FrexpMantF32,
    /// `v_frexp_exp_i32_f32`.
    FrexpExpF32,
    /// `v_div_fixup_f32(a, b, c)`.
    DivFixupF32,
    /// `v_div_fixup_f64(a, b, c)`.
    DivFixupF64,
    /// `v_div_fmas_f32(a, b, c)` with the VCC bit as 4th argument (0/1 per lane).
    DivFmasF32,
    /// `v_div_fmas_f64(a, b, c)`, VCC bit as 4th argument.
    DivFmasF64,
    /// `v_div_scale_f32(a, b, c)`: result value; the VCC bit comes from `DivScaleF32Flag`.
    DivScaleF32,
    /// The VCC output of `v_div_scale_f32` (0/1).
    DivScaleF32Flag,
    /// `v_div_scale_f32(a, b, c)` on RDNA ([`crate::sem::div_scale32_rdna`]).
    DivScaleF32Rdna,
    /// The VCC output of the RDNA `v_div_scale_f32` (0/1).
    DivScaleF32RdnaFlag,
    /// `v_div_scale_f64` result value.
    DivScaleF64,
    /// The VCC output of `v_div_scale_f64` (0/1).
    DivScaleF64Flag,
    /// `v_rcp_iflag_f32`.
    RcpIflagF32,
    /// f32 → f16 bits of two values packed: `lo | hi << 16` (`v_cvt_pkrtz_f16_f32`, round toward zero).
    PkRtzF16F32,
    /// One component of a typed buffer load: `(raw bytes 0..8 V64, raw bytes 8..16 V64,
    /// key V32)` → `V32` ([`crate::sem::buf_fmt::load`]).
    BufFmtLoad,
    /// Eight bytes of a typed buffer store: `(X | Y << 32 V64, Z | W << 32 V64, key V32)` →
    /// `V64` ([`crate::sem::buf_fmt::store`]).
    BufFmtStore,
    /// A float operation rounded once, in the given direction, to its result format; with the
    /// flag set an f16 result that overflows (from finite operands) becomes ±65504 instead of
    /// ±Inf (MODE.FP16_OVFL). Operands and result as documented on [`RoundedOp`]; NaN rule as
    /// for the other float ops (f16 NaNs: quiet bit `0x200`, default NaN `0x7E00`).
    Rounded(RoundedOp, Round, bool),
    /// `v_trig_preop_f64(a, b)`: the 53-bit segment of 2/π selected by `b[4:0]` (and `a`'s
    /// exponent), scaled (`a` f64, `b` 32-bit; result f64).
    TrigPreopF64,
}

/// Rounding direction, numbered as the MODE.FP_ROUND fields (CDNA3/CDNA4 ISA 3.5: 0 nearest
/// even, 1 toward +∞, 2 toward −∞, 3 toward zero).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Round {
    /// Round to nearest, ties to even.
    NearestEven,
    /// Toward +∞.
    Up,
    /// Toward −∞.
    Down,
    /// Toward zero.
    Zero,
}

impl Round {
    /// All directions in MODE.FP_ROUND order.
    pub const ALL: [Round; 4] = [Round::NearestEven, Round::Up, Round::Down, Round::Zero];

    /// The direction of a 2-bit MODE.FP_ROUND field (higher bits ignored).
    pub fn from_field(x: u32) -> Round {
        Round::ALL[(x & 3) as usize]
    }
}

/// Operations of [`LaneFn::Rounded`]: the exact result rounded once. `F32`/`F64` operands are
/// float bits, `F16` operands the low 16 bits of a lane, integers the low 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoundedOp {
    /// f32 `a + b`.
    AddF32,
    /// f32 `a - b`.
    SubF32,
    /// f32 `a * b`.
    MulF32,
    /// f32 `a * b + c`.
    FmaF32,
    /// f64 `a + b`.
    AddF64,
    /// f64 `a - b`.
    SubF64,
    /// f64 `a * b`.
    MulF64,
    /// f64 `a * b + c`.
    FmaF64,
    /// f16 `a + b`.
    AddF16,
    /// f16 `a - b`.
    SubF16,
    /// f16 `a * b`.
    MulF16,
    /// f16 `a * b + c`.
    FmaF16,
    /// f32 operands, `a * b + c` rounded to f16 (`v_fma_mix{lo,hi}_f16`).
    FmaF32ToF16,
    /// f32 `a * 2^b`, `b` a signed 32-bit integer.
    LdexpF32,
    /// f64 `a * 2^b`, `b` a signed 32-bit integer.
    LdexpF64,
    /// f64 → f32.
    F64ToF32,
    /// i32 → f32.
    I32ToF32,
    /// u32 → f32.
    U32ToF32,
    /// f32 → f16.
    F32ToF16,
    /// i32 → f16.
    I32ToF16,
    /// u32 → f16.
    U32ToF16,
    /// f32 → gfx942 FNUZ FP8 (E4M3, bias 8) in the low byte, nearest even; the flag of
    /// [`LaneFn::Rounded`] saturates overflows to ±max instead of NaN.
    F32ToFp8Fnuz,
    /// f32 → gfx942 FNUZ BF8 (E5M2, bias 16), as [`RoundedOp::F32ToFp8Fnuz`].
    F32ToBf8Fnuz,
    /// f32 → OCP FP8 E4M3FN (gfx950), nearest even; overflow gives NaN, or ±448 with the flag.
    F32ToFp8Ocp,
    /// f32 → OCP BF8 E5M2 (gfx950), nearest even; overflow gives ±Inf, or ±57344 with the flag.
    F32ToBf8Ocp,
    /// Stochastic rounding of f32 `a` to FNUZ FP8 with the random `u32` `b` (`v_cvt_sr_fp8_f32`,
    /// ISA pseudocode): `b`'s top `23 - mantissa bits` bits (`b[31:12]`) are added to the f32
    /// mantissa field, wrapping within its 23 bits, and the sum is truncated to the format.
    SrF32ToFp8Fnuz,
    /// Stochastic rounding to FNUZ BF8.
    SrF32ToBf8Fnuz,
    /// Stochastic rounding to OCP FP8.
    SrF32ToFp8Ocp,
    /// Stochastic rounding to OCP BF8.
    SrF32ToBf8Ocp,
    /// f32 → bf16 (the high 16 bits of an f32) in the low 16 bits; NaNs quieted.
    F32ToBf16,
    /// Stochastic rounding of f32 `a` to f16 with the random `b` (`v_cvt_sr_f16_f32`): `b`'s
    /// low 13 bits are added to the significand (shifted right, truncating, when the result is
    /// subnormal), a carry rounding up, and the sum truncated; the flag is FP16_OVFL.
    SrF32ToF16,
    /// Stochastic rounding of f32 `a` to bf16 with the random `b`, as
    /// [`RoundedOp::SrF32ToF16`] with `b`'s low 16 bits.
    SrF32ToBf16,
    /// `v_dot2_f32_f16`: `a.f16[0] * b.f16[0] + a.f16[1] * b.f16[1] + c.f32` rounded once to
    /// nearest even, denormal inputs and output flushed whatever MODE says (CDNA ISA 6.4);
    /// the direction and flag are ignored.
    Dot2F32F16,
    /// f32 → OCP FP4 E2M1 (gfx950 `v_cvt_scalef32_*fp4*`) in the low 4 bits, nearest even;
    /// overflow and ±Inf saturate to ±6 (CDNA4 ISA 7.3), and a NaN gives ±6 with its sign
    /// (these formats have no NaN; the rule of AMD's HIP host emulation of the gfx950
    /// conversions, `amd_hip_ocp_host.hpp`, whose "NaN" code of E2M1/E2M3/E3M2 is ±max).
    F32ToFp4,
    /// f32 → OCP FP6 E2M3 in the low 6 bits, as [`RoundedOp::F32ToFp4`] (±7.5).
    F32ToFp6,
    /// f32 → OCP BF6 E3M2 in the low 6 bits, as [`RoundedOp::F32ToFp4`] (±28).
    F32ToBf6,
    /// Stochastic rounding of f32 `a` to FP4 E2M1 with the random `u32` `b` (gfx950
    /// `v_cvt_scalef32_sr_*fp4*`): the significand, shifted right (truncating) when the result
    /// is subnormal, gets `b`'s top `23 - 1` bits added below the format's last place, with
    /// the carry rounding up into the exponent, and is truncated; overflow, ±Inf and NaN
    /// saturate to ±max as in [`RoundedOp::F32ToFp4`]. The direction and flag are ignored.
    SrF32ToFp4,
    /// Stochastic rounding to FP6 E2M3 (`b`'s top 20 bits), as [`RoundedOp::SrF32ToFp4`].
    SrF32ToFp6,
    /// Stochastic rounding to BF6 E3M2 (`b`'s top 21 bits), as [`RoundedOp::SrF32ToFp4`].
    SrF32ToBf6,
}

impl RoundedOp {
    /// Every rounded op (the JIT numbers lane functions from this list).
    pub const ALL: [RoundedOp; 39] = [
        RoundedOp::AddF32,
        RoundedOp::SubF32,
        RoundedOp::MulF32,
        RoundedOp::FmaF32,
        RoundedOp::AddF64,
        RoundedOp::SubF64,
        RoundedOp::MulF64,
        RoundedOp::FmaF64,
        RoundedOp::AddF16,
        RoundedOp::SubF16,
        RoundedOp::MulF16,
        RoundedOp::FmaF16,
        RoundedOp::FmaF32ToF16,
        RoundedOp::LdexpF32,
        RoundedOp::LdexpF64,
        RoundedOp::F64ToF32,
        RoundedOp::I32ToF32,
        RoundedOp::U32ToF32,
        RoundedOp::F32ToF16,
        RoundedOp::I32ToF16,
        RoundedOp::U32ToF16,
        RoundedOp::F32ToFp8Fnuz,
        RoundedOp::F32ToBf8Fnuz,
        RoundedOp::F32ToFp8Ocp,
        RoundedOp::F32ToBf8Ocp,
        RoundedOp::SrF32ToFp8Fnuz,
        RoundedOp::SrF32ToBf8Fnuz,
        RoundedOp::SrF32ToFp8Ocp,
        RoundedOp::SrF32ToBf8Ocp,
        RoundedOp::F32ToBf16,
        RoundedOp::SrF32ToF16,
        RoundedOp::SrF32ToBf16,
        RoundedOp::Dot2F32F16,
        RoundedOp::F32ToFp4,
        RoundedOp::F32ToFp6,
        RoundedOp::F32ToBf6,
        RoundedOp::SrF32ToFp4,
        RoundedOp::SrF32ToFp6,
        RoundedOp::SrF32ToBf6,
    ];

    /// True when the result is 64 bits wide (f64 results); all others are 32-bit lanes.
    pub fn wide_result(self) -> bool {
        matches!(
            self,
            RoundedOp::AddF64
                | RoundedOp::SubF64
                | RoundedOp::MulF64
                | RoundedOp::FmaF64
                | RoundedOp::LdexpF64
        )
    }
}

/// One IR operation.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A uniform constant (`S32` or `S64`).
    Const { ty: Ty, bits: u64 },
    /// A per-lane constant vector (`V32`).
    LaneConst(Box<[u32; 64]>),
    /// The lane number (`V32`: 0, 1, 2, ...).
    LaneId,
    /// Reads scalar slot `code` (`S32`).
    GetSgpr(u8),
    /// Writes scalar slot `code`. Writes to [`crate::wave::sreg::NULL`] are dropped.
    SetSgpr(u8, Val),
    /// Reads VGPR/AGPR slot `reg` (`V32`).
    GetVgpr(u16),
    /// Writes `val` (`V32`) to VGPR/AGPR slot `reg` in the lanes whose bit is set in `mask`.
    SetVgpr { reg: u16, val: Val, mask: Val },
    /// Reads the slot whose index is the uniform `S32` `index` + `base` (s_movrel*, VGPR
    /// indexing); the lifter has already range-checked the index.
    GetVgprDyn { base: u16, index: Val },
    /// Masked write of a dynamically indexed VGPR.
    SetVgprDyn {
        base: u16,
        index: Val,
        val: Val,
        mask: Val,
    },
    /// Reads SCC (`S32`, 0 or 1).
    GetScc,
    /// Writes SCC from the low bit of an `S32`.
    SetScc(Val),
    /// Reads MODE (`S32`).
    GetMode,
    /// Writes MODE (`S32`). The block must end after it, since translation depends on MODE.
    SetMode(Val),
    /// Unary operation.
    Un(UnOp, Val),
    /// Binary operation.
    Bin(BinOp, Val, Val),
    /// Ternary operation.
    Tern(TernOp, Val, Val, Val),
    /// Comparison.
    Cmp(CmpOp, Val, Val),
    /// `cond ? a : b`: with scalar `a`/`b`, `cond` is an `S32` tested for non-zero; with
    /// vector `a`/`b`, `cond` is an `S64` lane mask (bit set = take `a`).
    Select { cond: Val, a: Val, b: Val },
    /// Uniform → every lane (`S32→V32`, `S64→V64`).
    Broadcast(Val),
    /// Conversion.
    Conv(ConvOp, Val),
    /// `lo | hi << 32` (`S32,S32→S64`, `V32,V32→V64`).
    Pack { lo: Val, hi: Val },
    /// Lane `lane & 63` (wave32: `lane & 31`) of a `V32` (`S32`).
    ReadLane { v: Val, lane: Val },
    /// `v` (`V32`) with lane `lane & 63` (wave32: `lane & 31`) replaced by the `S32` `x`.
    WriteLane { v: Val, lane: Val, x: Val },
    /// Cross-lane gather: lane *l* of the result is lane `idx[l] & 63` (wave32: `& 31`) of
    /// `v` (`V32`).
    Gather { v: Val, idx: Val },
    /// Lane *l* of the result is 1 if bit *l* of the `S64` mask is set, else 0 (`V32`).
    MaskToLanes(Val),
    /// Per-lane Rust function of up to four `V32`/`V64` arguments.
    Lane { f: LaneFn, args: Vec<Val> },
    /// Vector memory load: per lane, `size` bytes at `addr` (`V64`) in `space`; lanes not in
    /// `mask` (`S64`) read nothing and give 0. Result `V32` (size ≤ 4, zero-extended, or
    /// sign-extended when `signed`) or `V64` (size 8).
    Load {
        /// Address of the instruction (reported when the access faults).
        pc: u64,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        signed: bool,
        mask: Val,
    },
    /// Vector memory store of the low `size` bytes of `data` (`V32` or `V64`) per active lane.
    Store {
        /// Address of the instruction (reported when the access faults).
        pc: u64,
        space: crate::env::Space,
        addr: Val,
        size: u8,
        data: Val,
        mask: Val,
    },
    /// Vector atomic; returns the pre-update value per lane (`V32`/`V64` by `size`).
    Atomic {
        /// Address of the instruction (reported when the access faults).
        pc: u64,
        space: crate::env::Space,
        op: crate::env::AtomicOp,
        addr: Val,
        size: u8,
        data: Val,
        cmp: Option<Val>,
        mask: Val,
    },
    /// Scalar load of one dword at the `S64` address (`S32`); `pc` is the instruction's address.
    SLoad { pc: u64, addr: Val },
    /// Scalar store of one dword (`S32`) at the `S64` address; `pc` is the instruction's address.
    SStore { pc: u64, addr: Val, data: Val },
    /// The environment clock (`S64`).
    Clock,
    /// The wave's executed instructions so far (`S64`): the sum of
    /// [`crate::wave::WaveCounters::by_class`]. A block adds its own instructions when it
    /// starts and a region's [`Op::CountRegion`] when it runs, so a block that ends right
    /// after this op (the lifter ends it) reads every instruction up to and including its own.
    InstCount,
    /// The work-group barrier's state word (`S32`, [`crate::env::WaveEnv::barrier_state`]).
    BarrierState,
    /// Adds `active` (`S64` lane mask popcount) and one instruction to the vector counters.
    CountVector { mask: Val },
    /// Counts an if-converted region (instructions an `s_cbranch_execz` would skip, run
    /// under EXEC instead, see `lift`): when the `S64` `exec` is non-zero, adds
    /// `counts.classes` to the per-class instruction counters, `counts.vector` to the vector
    /// instructions and `counts.vector * popcount(exec)` to the active lanes; when it is zero
    /// (the branch would have skipped the region), nothing.
    CountRegion {
        exec: Val,
        counts: Box<RegionCounts>,
    },
    /// One MFMA/SMFMAC (CDNA ISA 7) or WMMA/SWMMAC (RDNA) on the register file: reads A, B
    /// and C, writes D, ignores EXEC. The IR does not look inside: both engines resolve the
    /// call's [`PlanId`] with the plans' owner and run it with the wave's MODE, after every
    /// earlier register write of the block.
    Matrix(MatrixCall),
}

/// The instructions of an if-converted region, for [`Op::CountRegion`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegionCounts {
    /// Wave instructions by [`crate::wave::InstClass`] (index = class as usize).
    pub classes: [u32; crate::wave::InstClass::COUNT],
    /// Vector instructions (each counts the region's EXEC as its active lanes).
    pub vector: u32,
}

/// An [`Op::Matrix`]: the instruction's address and its plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatrixCall {
    /// Address of the instruction (reported when it faults).
    pub pc: u64,
    /// The instruction's precomputed form (shape, types, every element's register
    /// location, modifiers), built once when lifting and owned outside the IR.
    pub plan: PlanId,
}

/// A handle to the precomputed form of one MFMA/WMMA instruction. Plans have one owner,
/// which hands out these handles when the lifter plans an instruction and resolves them
/// for the engines; the IR only carries them (copying or dropping a block keeps nothing
/// alive and frees nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PlanId(pub u32);

impl Op {
    /// True when the op produces a value.
    pub fn has_result(&self) -> bool {
        !matches!(
            self,
            Op::SetSgpr(..)
                | Op::SetVgpr { .. }
                | Op::SetVgprDyn { .. }
                | Op::SetScc(_)
                | Op::SetMode(_)
                | Op::Store { .. }
                | Op::SStore { .. }
                | Op::CountVector { .. }
                | Op::CountRegion { .. }
                | Op::Matrix(_)
        )
    }
}

/// How a block ends.
#[derive(Clone, Debug, PartialEq)]
pub enum Exit {
    /// Continue at a fixed address.
    Jump(u64),
    /// `if cond (S32 ≠ 0) goto taken else goto not_taken`.
    Branch {
        cond: Val,
        taken: u64,
        not_taken: u64,
    },
    /// Continue at the `S64` address in `target` (s_setpc, s_swappc).
    JumpIndirect(Val),
    /// `s_endpgm`.
    EndPgm,
    /// Workgroup barrier; resume at `next`.
    Barrier { next: u64 },
    /// `s_trap`; `pc` is the trapping instruction.
    Trap { pc: u64, code: u8 },
    /// Scheduling hint (`s_sleep`); resume at `next`.
    Yield { next: u64 },
    /// The instruction at `pc` cannot be executed; `reason` names it and why.
    Unsupported { pc: u64, reason: String },
    /// The instruction at `pc` is an illegal instruction on the hardware (an exception that
    /// halts the wave when there is no trap handler, as here); `reason` names it.
    Illegal { pc: u64, reason: String },
}

/// One translated basic block.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// Address of the first instruction.
    pub start_pc: u64,
    /// Address just past the last instruction.
    pub end_pc: u64,
    /// Number of wave instructions translated into this block (what the run loop charges to
    /// the instruction budget, including if-converted regions whether they run or not).
    pub inst_count: u32,
    /// The same instructions by [`crate::wave::InstClass`] (index = class as usize), except
    /// those of if-converted regions, which [`Op::CountRegion`] counts.
    pub class_counts: [u32; crate::wave::InstClass::COUNT],
    /// Wave size the block was translated for (32 or 64).
    pub wave_size: u32,
    /// The ops; `Val(i)` is the value defined by `ops[i]`.
    pub ops: Vec<Op>,
    /// Type of each op's result (`None` for ops without one).
    pub types: Vec<Option<Ty>>,
    /// The terminator.
    pub exit: Exit,
}

impl Block {
    /// The lanes the block computes: 32 for a wave32 block, else 64 (see the module doc).
    pub fn lanes(&self) -> usize {
        if self.wave_size == 32 {
            32
        } else {
            64
        }
    }

    /// The mask of the lanes that exist: `0xFFFF_FFFF` for wave32, else all ones.
    pub fn lane_mask(&self) -> u64 {
        if self.wave_size == 32 {
            0xFFFF_FFFF
        } else {
            u64::MAX
        }
    }
}

/// Builds a [`Block`], assigning value numbers and checking operand types as ops are added.
#[derive(Debug)]
pub struct Builder {
    block: Block,
}

impl Builder {
    /// Starts a block at `start_pc` for a wave of `wave_size` lanes.
    pub fn new(start_pc: u64, wave_size: u32) -> Builder {
        Builder {
            block: Block {
                start_pc,
                end_pc: start_pc,
                inst_count: 0,
                class_counts: [0; crate::wave::InstClass::COUNT],
                wave_size,
                ops: Vec::new(),
                types: Vec::new(),
                exit: Exit::EndPgm,
            },
        }
    }

    /// Type of a value defined earlier.
    ///
    /// # Panics
    /// If `v` does not name an earlier op with a result (a lifter bug, not an input error).
    pub fn ty(&self, v: Val) -> Ty {
        self.block.types[v.0 as usize].expect("value has a type")
    }

    /// Appends an op whose result type is `ty` (or `None`) and returns its value.
    pub fn push(&mut self, op: Op, ty: Option<Ty>) -> Val {
        let v = Val(self.block.ops.len() as u32);
        self.block.ops.push(op);
        self.block.types.push(ty);
        v
    }

    /// Current number of ops.
    pub fn len(&self) -> usize {
        self.block.ops.len()
    }

    /// True when no ops were added.
    pub fn is_empty(&self) -> bool {
        self.block.ops.is_empty()
    }

    /// Records that one more wave instruction of `class` was translated, ending at `end_pc`.
    pub fn count_inst(&mut self, class: crate::wave::InstClass, end_pc: u64) {
        self.block.inst_count += 1;
        self.block.class_counts[class as usize] += 1;
        self.block.end_pc = end_pc;
    }

    /// Records a wave instruction ending at `end_pc` whose class is counted by an
    /// [`Op::CountRegion`] instead of [`Block::class_counts`] (the budget still charges it).
    pub fn count_region_inst(&mut self, end_pc: u64) {
        self.block.inst_count += 1;
        self.block.end_pc = end_pc;
    }

    /// The ops added so far.
    pub fn ops(&self) -> &[Op] {
        &self.block.ops
    }

    /// Finishes the block with `exit`.
    pub fn finish(mut self, exit: Exit) -> Block {
        self.block.exit = exit;
        self.block
    }
}
