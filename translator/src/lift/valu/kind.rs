//! Which module lifts each vector-ALU operation: [`kind`] names every [`ValuSem`] variant, so
//! an operation the generator adds does not compile until it is placed here.

use crate::isa::generated::ValuSem::{self, *};

/// The module that lifts a vector-ALU operation, or why none does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// `v_nop`: nothing to do.
    Nop,
    /// Moves, lane reads/writes, swaps (`moves`).
    Moves,
    /// 32/64-bit integer and bit operations (`int`).
    Int,
    /// 16-bit integer operations on VGPR halves (`int16`).
    Int16,
    /// f32/f64 arithmetic (`float`).
    Float,
    /// Transcendental and reciprocal f32/f64 operations (`transcend`).
    Transcend,
    /// f16 arithmetic (`f16`).
    F16,
    /// Packed two-element math (`packed`).
    Packed,
    /// Conversions (`convert`).
    Convert,
    /// gfx950 scaled conversions (`scale_cvt`).
    Scaled,
    /// Dot products (`dot`).
    Dot,
    /// Operations GFX9 and RDNA define alike, lifted by one function for both (`media`,
    /// `convert`, `int16`); they count themselves.
    Shared,
    /// GFX9-only operations from the CDNA4 ISA pseudocode (`cdna`); they count themselves.
    Cdna,
    /// Operations only RDNA has (`rdna_only` in `valu`); they count themselves.
    Rdna,
    /// Not lifted, with the reason.
    Unsupported(&'static str),
}

/// The module that lifts `op`.
pub(super) fn kind(op: ValuSem) -> Kind {
    match op {
        V_NOP => Kind::Nop,
        V_SCREEN_PARTITION_4SE_B32 => Kind::Unsupported("graphics-only"),
        V_ACCVGPR_MOV_B32
        | V_ACCVGPR_READ_B32
        | V_ACCVGPR_WRITE_B32
        | V_CLREXCP
        | V_CNDMASK_B32
        | V_MOV_B32
        | V_MOV_B64
        | V_PERMLANE16_SWAP_B32
        | V_PERMLANE32_SWAP_B32
        | V_READFIRSTLANE_B32
        | V_READLANE_B32
        | V_SWAP_B32
        | V_WRITELANE_B32 => Kind::Moves,
        V_ADD3_U32 | V_ADDC_CO_U32 | V_ADD_CO_U32 | V_ADD_I32 | V_ADD_LSHL_U32 | V_ADD_U32
        | V_ALIGNBIT_B32 | V_ALIGNBYTE_B32 | V_AND_B32 | V_AND_OR_B32 | V_ASHRREV_I32
        | V_ASHRREV_I64 | V_BCNT_U32_B32 | V_BFE_I32 | V_BFE_U32 | V_BFI_B32 | V_BFM_B32
        | V_BFREV_B32 | V_BITOP3_B32 | V_FFBH_I32 | V_FFBH_U32 | V_FFBL_B32 | V_LSHLREV_B32
        | V_LSHLREV_B64 | V_LSHL_ADD_U32 | V_LSHL_ADD_U64 | V_LSHL_OR_B32 | V_LSHRREV_B32
        | V_LSHRREV_B64 | V_MAD_I32_I24 | V_MAD_I64_I32 | V_MAD_U32_U24 | V_MAD_U64_U32
        | V_MAX3_I32 | V_MAX3_U32 | V_MAX_I32 | V_MAX_U32 | V_MBCNT_HI_U32_B32
        | V_MBCNT_LO_U32_B32 | V_MED3_I32 | V_MED3_U32 | V_MIN3_I32 | V_MIN3_U32 | V_MIN_I32
        | V_MIN_U32 | V_MUL_HI_I32 | V_MUL_HI_I32_I24 | V_MUL_HI_U32 | V_MUL_HI_U32_U24
        | V_MUL_I32_I24 | V_MUL_LO_U32 | V_MUL_U32_U24 | V_NOT_B32 | V_OR3_B32 | V_OR_B32
        | V_PERM_B32 | V_SAD_U32 | V_SUBBREV_CO_U32 | V_SUBB_CO_U32 | V_SUBREV_CO_U32
        | V_SUBREV_U32 | V_SUB_CO_U32 | V_SUB_I32 | V_SUB_U32 | V_XAD_U32 | V_XNOR_B32
        | V_XOR3_B32 | V_XOR_B32 => Kind::Int,
        V_ADD_I16 | V_ADD_U16 | V_ASHRREV_I16 | V_BITOP3_B16 | V_LSHLREV_B16 | V_LSHRREV_B16
        | V_MAD_I16 | V_MAD_LEGACY_I16 | V_MAD_LEGACY_U16 | V_MAD_U16 | V_MAX3_I16 | V_MAX3_U16
        | V_MAX_I16 | V_MAX_U16 | V_MED3_I16 | V_MED3_U16 | V_MIN3_I16 | V_MIN3_U16 | V_MIN_I16
        | V_MIN_U16 | V_MUL_LO_U16 | V_SAT_PK_U8_I16 | V_SUBREV_U16 | V_SUB_I16 | V_SUB_U16 => {
            Kind::Int16
        }
        V_ADD_F32 | V_ADD_F64 | V_CEIL_F32 | V_CEIL_F64 | V_DIV_FIXUP_F32 | V_DIV_FIXUP_F64
        | V_DIV_FMAS_F32 | V_DIV_FMAS_F64 | V_DIV_SCALE_F32 | V_DIV_SCALE_F64 | V_FLOOR_F32
        | V_FLOOR_F64 | V_FMAAK_F32 | V_FMAC_F32 | V_FMAC_F64 | V_FMAMK_F32 | V_FMA_F32
        | V_FMA_F64 | V_FRACT_F32 | V_FRACT_F64 | V_LDEXP_F32 | V_LDEXP_F64 | V_MAX3_F32
        | V_MAXIMUM3_F32 | V_MAX_F32 | V_MAX_F64 | V_MED3_F32 | V_MIN3_F32 | V_MINIMUM3_F32
        | V_MIN_F32 | V_MIN_F64 | V_MUL_F32 | V_MUL_F64 | V_MUL_LEGACY_F32 | V_RNDNE_F32
        | V_RNDNE_F64 | V_SUBREV_F32 | V_SUB_F32 | V_TRIG_PREOP_F64 | V_TRUNC_F32 | V_TRUNC_F64 => {
            Kind::Float
        }
        V_COS_F32 | V_EXP_F32 | V_EXP_LEGACY_F32 | V_FREXP_EXP_I32_F32 | V_FREXP_EXP_I32_F64
        | V_FREXP_MANT_F32 | V_FREXP_MANT_F64 | V_LOG_F32 | V_LOG_LEGACY_F32 | V_RCP_F32
        | V_RCP_F64 | V_RCP_IFLAG_F32 | V_RSQ_F32 | V_RSQ_F64 | V_SIN_F32 | V_SQRT_F32
        | V_SQRT_F64 => Kind::Transcend,
        V_ADD_F16
        | V_CEIL_F16
        | V_COS_F16
        | V_DIV_FIXUP_F16
        | V_DIV_FIXUP_LEGACY_F16
        | V_EXP_F16
        | V_FLOOR_F16
        | V_FMA_F16
        | V_FMA_LEGACY_F16
        | V_FMA_MIXHI_F16
        | V_FMA_MIXLO_F16
        | V_FMA_MIX_F32
        | V_FRACT_F16
        | V_FREXP_EXP_I16_F16
        | V_FREXP_MANT_F16
        | V_LDEXP_F16
        | V_LOG_F16
        | V_MAC_F16
        | V_MADAK_F16
        | V_MADMK_F16
        | V_MAD_F16
        | V_MAD_LEGACY_F16
        | V_MAX3_F16
        | V_MAX_F16
        | V_MED3_F16
        | V_MIN3_F16
        | V_MIN_F16
        | V_MUL_F16
        | V_PACK_B32_F16
        | V_RCP_F16
        | V_RNDNE_F16
        | V_RSQ_F16
        | V_SIN_F16
        | V_SQRT_F16
        | V_SUBREV_F16
        | V_SUB_F16
        | V_TRUNC_F16 => Kind::F16,
        V_PK_ADD_F16 | V_PK_ADD_F32 | V_PK_ADD_I16 | V_PK_ADD_U16 | V_PK_ASHRREV_I16
        | V_PK_FMAC_F16 | V_PK_FMA_F16 | V_PK_FMA_F32 | V_PK_LSHLREV_B16 | V_PK_LSHRREV_B16
        | V_PK_MAD_I16 | V_PK_MAD_U16 | V_PK_MAXIMUM3_F16 | V_PK_MAX_F16 | V_PK_MAX_I16
        | V_PK_MAX_U16 | V_PK_MINIMUM3_F16 | V_PK_MIN_F16 | V_PK_MIN_I16 | V_PK_MIN_U16
        | V_PK_MOV_B32 | V_PK_MUL_F16 | V_PK_MUL_F32 | V_PK_MUL_LO_U16 | V_PK_SUB_I16
        | V_PK_SUB_U16 => Kind::Packed,
        V_CVT_F16_F32 | V_CVT_F16_I16 | V_CVT_F16_U16 | V_CVT_F32_BF16 | V_CVT_F32_BF8
        | V_CVT_F32_F16 | V_CVT_F32_F64 | V_CVT_F32_FP8 | V_CVT_F32_I32 | V_CVT_F32_U32
        | V_CVT_F32_UBYTE0 | V_CVT_F32_UBYTE1 | V_CVT_F32_UBYTE2 | V_CVT_F32_UBYTE3
        | V_CVT_F64_F32 | V_CVT_F64_I32 | V_CVT_F64_U32 | V_CVT_FLR_I32_F32 | V_CVT_I16_F16
        | V_CVT_I32_F32 | V_CVT_I32_F64 | V_CVT_PKRTZ_F16_F32 | V_CVT_PK_BF16_F32
        | V_CVT_PK_BF8_F32 | V_CVT_PK_F16_F32 | V_CVT_PK_F32_BF8 | V_CVT_PK_F32_FP8
        | V_CVT_PK_FP8_F32 | V_CVT_PK_I16_I32 | V_CVT_PK_U16_U32 | V_CVT_RPI_I32_F32
        | V_CVT_SR_BF16_F32 | V_CVT_SR_BF8_F32 | V_CVT_SR_F16_F32 | V_CVT_SR_FP8_F32
        | V_CVT_U16_F16 | V_CVT_U32_F32 | V_CVT_U32_F64 => Kind::Convert,
        V_CVT_SCALEF32_2XPK16_BF6_F32
        | V_CVT_SCALEF32_2XPK16_FP6_F32
        | V_CVT_SCALEF32_F16_BF8
        | V_CVT_SCALEF32_F16_FP8
        | V_CVT_SCALEF32_F32_BF8
        | V_CVT_SCALEF32_F32_FP8
        | V_CVT_SCALEF32_PK32_BF16_BF6
        | V_CVT_SCALEF32_PK32_BF16_FP6
        | V_CVT_SCALEF32_PK32_BF6_BF16
        | V_CVT_SCALEF32_PK32_BF6_F16
        | V_CVT_SCALEF32_PK32_F16_BF6
        | V_CVT_SCALEF32_PK32_F16_FP6
        | V_CVT_SCALEF32_PK32_F32_BF6
        | V_CVT_SCALEF32_PK32_F32_FP6
        | V_CVT_SCALEF32_PK32_FP6_BF16
        | V_CVT_SCALEF32_PK32_FP6_F16
        | V_CVT_SCALEF32_PK_BF16_BF8
        | V_CVT_SCALEF32_PK_BF16_FP4
        | V_CVT_SCALEF32_PK_BF16_FP8
        | V_CVT_SCALEF32_PK_BF8_BF16
        | V_CVT_SCALEF32_PK_BF8_F16
        | V_CVT_SCALEF32_PK_BF8_F32
        | V_CVT_SCALEF32_PK_F16_BF8
        | V_CVT_SCALEF32_PK_F16_FP4
        | V_CVT_SCALEF32_PK_F16_FP8
        | V_CVT_SCALEF32_PK_F32_BF8
        | V_CVT_SCALEF32_PK_F32_FP4
        | V_CVT_SCALEF32_PK_F32_FP8
        | V_CVT_SCALEF32_PK_FP4_BF16
        | V_CVT_SCALEF32_PK_FP4_F16
        | V_CVT_SCALEF32_PK_FP4_F32
        | V_CVT_SCALEF32_PK_FP8_BF16
        | V_CVT_SCALEF32_PK_FP8_F16
        | V_CVT_SCALEF32_PK_FP8_F32
        | V_CVT_SCALEF32_SR_BF8_BF16
        | V_CVT_SCALEF32_SR_BF8_F16
        | V_CVT_SCALEF32_SR_BF8_F32
        | V_CVT_SCALEF32_SR_FP8_BF16
        | V_CVT_SCALEF32_SR_FP8_F16
        | V_CVT_SCALEF32_SR_FP8_F32
        | V_CVT_SCALEF32_SR_PK32_BF6_BF16
        | V_CVT_SCALEF32_SR_PK32_BF6_F16
        | V_CVT_SCALEF32_SR_PK32_BF6_F32
        | V_CVT_SCALEF32_SR_PK32_FP6_BF16
        | V_CVT_SCALEF32_SR_PK32_FP6_F16
        | V_CVT_SCALEF32_SR_PK32_FP6_F32
        | V_CVT_SCALEF32_SR_PK_FP4_BF16
        | V_CVT_SCALEF32_SR_PK_FP4_F16
        | V_CVT_SCALEF32_SR_PK_FP4_F32 => Kind::Scaled,
        V_DOT2C_F32_F16 | V_DOT2C_I32_I16 | V_DOT2_F32_F16 | V_DOT2_I32_I16 | V_DOT2_U32_U16
        | V_DOT4C_I32_I8 | V_DOT4_I32_I8 | V_DOT4_U32_U8 | V_DOT8C_I32_I4 | V_DOT8_I32_I4
        | V_DOT8_U32_U4 => Kind::Dot,
        V_CVT_NORM_I16_F16 | V_CVT_NORM_U16_F16 | V_CVT_OFF_F32_I4 | V_CVT_PKNORM_I16_F16
        | V_CVT_PKNORM_I16_F32 | V_CVT_PKNORM_U16_F16 | V_CVT_PKNORM_U16_F32 | V_CVT_PK_U8_F32
        | V_LERP_U8 | V_MAD_I32_I16 | V_MAD_U32_U16 | V_MQSAD_PK_U16_U8 | V_MQSAD_U32_U8
        | V_MSAD_U8 | V_QSAD_PK_U16_U8 | V_SAD_HI_U8 | V_SAD_U16 | V_SAD_U8 => Kind::Shared,
        V_ASHR_PK_I8_I32 | V_ASHR_PK_U8_I32 | V_CUBEID_F32 | V_CUBEMA_F32 | V_CUBESC_F32
        | V_CUBETC_F32 | V_CVT_PKACCUM_U8_F32 | V_DOT2C_F32_BF16 | V_DOT2_F32_BF16 | V_PRNG_B32 => {
            Kind::Cdna
        }
        V_AND_B16
        | V_CNDMASK_B16
        | V_CVT_I32_I16
        | V_CVT_PK_I16_F32
        | V_CVT_PK_NORM_I16_F16
        | V_CVT_PK_NORM_I16_F32
        | V_CVT_PK_NORM_U16_F16
        | V_CVT_PK_NORM_U16_F32
        | V_CVT_PK_U16_F32
        | V_CVT_U32_U16
        | V_DOT2_BF16_BF16
        | V_DOT2_F16_F16
        | V_DOT2ACC_F32_F16
        | V_DOT4_F32_BF8_BF8
        | V_DOT4_F32_BF8_FP8
        | V_DOT4_F32_FP8_BF8
        | V_DOT4_F32_FP8_FP8
        | V_DOT4_I32_IU8
        | V_DOT8_I32_IU4
        | V_FMA_DX9_ZERO_F32
        | V_FMAAK_F16
        | V_FMAC_DX9_ZERO_F32
        | V_FMAC_F16
        | V_FMAMK_F16
        | V_MAX3_NUM_F16
        | V_MAX3_NUM_F32
        | V_MAX_NUM_F16
        | V_MAX_NUM_F64
        | V_MAXIMUM3_F16
        | V_MAXIMUM_F16
        | V_MAXIMUM_F32
        | V_MAXIMUM_F64
        | V_MAXIMUMMINIMUM_F16
        | V_MAXIMUMMINIMUM_F32
        | V_MAXMIN_F16
        | V_MAXMIN_F32
        | V_MAXMIN_I32
        | V_MAXMIN_NUM_F16
        | V_MAXMIN_NUM_F32
        | V_MAXMIN_U32
        | V_MED3_NUM_F16
        | V_MED3_NUM_F32
        | V_MIN3_NUM_F16
        | V_MIN3_NUM_F32
        | V_MIN_NUM_F16
        | V_MIN_NUM_F64
        | V_MINIMUM3_F16
        | V_MINIMUM_F16
        | V_MINIMUM_F32
        | V_MINIMUM_F64
        | V_MINIMUMMAXIMUM_F16
        | V_MINIMUMMAXIMUM_F32
        | V_MINMAX_F16
        | V_MINMAX_F32
        | V_MINMAX_I32
        | V_MINMAX_NUM_F16
        | V_MINMAX_NUM_F32
        | V_MINMAX_U32
        | V_MOV_B16
        | V_MOVRELD_B32
        | V_MOVRELS_B32
        | V_MOVRELSD_2_B32
        | V_MOVRELSD_B32
        | V_MUL_DX9_ZERO_F32
        | V_MULLIT_F32
        | V_NOT_B16
        | V_OR_B16
        | V_PERMLANE16_B32
        | V_PERMLANE16_VAR_B32
        | V_PERMLANE64_B32
        | V_PERMLANEX16_B32
        | V_PERMLANEX16_VAR_B32
        | V_PK_MAX_NUM_F16
        | V_PK_MAXIMUM_F16
        | V_PK_MIN_NUM_F16
        | V_PK_MINIMUM_F16
        | V_S_EXP_F16
        | V_S_EXP_F32
        | V_S_LOG_F16
        | V_S_LOG_F32
        | V_S_RCP_F16
        | V_S_RCP_F32
        | V_S_RSQ_F16
        | V_S_RSQ_F32
        | V_S_SQRT_F16
        | V_S_SQRT_F32
        | V_SWAP_B16
        | V_SWAPREL_B32
        | V_XOR_B16 => Kind::Rdna,
    }
}
