//! Scalar ALU: SOP1, SOP2, SOPK and SOPC (semantics per the ISA's SALU tables; SCC rules in
//! the comments).

use super::operand::{K, R};
use super::{Flow, LiftResult, Lifter};
use crate::ir::{BinOp, CmpOp, ConvOp, Exit, Op, TernOp, Ty, UnOp, Val};
use crate::isa::generated::SaluSem;
use crate::isa::{Family, Inst, Opnd};
use crate::wave::InstClass;
use float::FloatOp;

mod arith;
mod bits;
mod control;
mod float;
mod fork;
mod mode;
mod moves;
mod sopk;

/// Hardware register id of MODE in `s_getreg`/`s_setreg` (`hwreg(HW_REG_MODE)`).
const HWREG_MODE: u32 = 1;

/// True when the operation works on 64-bit values (`_b64`, `_i64`, `_u64` as the last
/// type; `s_bcnt1_i32_b64` and friends read 64 bits but write 32).
fn wide(op: SaluSem) -> bool {
    use SaluSem::*;
    matches!(
        op,
        S_ADD_NC_U64
            | S_AND_B64
            | S_AND_NOT0_WREXEC_B64
            | S_AND_NOT1_WREXEC_B64
            | S_AND_SAVEEXEC_B64
            | S_ANDN1_SAVEEXEC_B64
            | S_ANDN1_WREXEC_B64
            | S_ANDN2_B64
            | S_ANDN2_SAVEEXEC_B64
            | S_ANDN2_WREXEC_B64
            | S_ASHR_I64
            | S_BCNT0_I32_B64
            | S_BCNT1_I32_B64
            | S_BFE_I64
            | S_BFE_U64
            | S_BFM_B64
            | S_BITCMP0_B64
            | S_BITCMP1_B64
            | S_BITSET0_B64
            | S_BITSET1_B64
            | S_BREV_B64
            | S_CALL_B64
            | S_CMOV_B64
            | S_CMP_EQ_U64
            | S_CMP_LG_U64
            | S_CSELECT_B64
            | S_FF0_I32_B64
            | S_FF1_I32_B64
            | S_FLBIT_I32_B64
            | S_FLBIT_I32_I64
            | S_GETPC_B64
            | S_LSHL_B64
            | S_LSHR_B64
            | S_MOV_B64
            | S_MOVRELD_B64
            | S_MOVRELS_B64
            | S_MUL_U64
            | S_NAND_B64
            | S_NAND_SAVEEXEC_B64
            | S_NOR_B64
            | S_NOR_SAVEEXEC_B64
            | S_NOT_B64
            | S_OR_B64
            | S_OR_SAVEEXEC_B64
            | S_ORN1_SAVEEXEC_B64
            | S_ORN2_B64
            | S_ORN2_SAVEEXEC_B64
            | S_QUADMASK_B64
            | S_RFE_B64
            | S_RFE_RESTORE_B64
            | S_SENDMSG_RTN_B64
            | S_SETPC_B64
            | S_SUB_NC_U64
            | S_SWAPPC_B64
            | S_WQM_B64
            | S_XNOR_B64
            | S_XNOR_SAVEEXEC_B64
            | S_XOR_B64
            | S_XOR_SAVEEXEC_B64
    )
}

/// `Flow::Next` after an instruction without a control effect.
fn next(r: R<()>) -> R<Flow> {
    r.map(|()| Flow::Next)
}

fn src(l: &mut Lifter, inst: &Inst, i: usize, k: K) -> R<Val> {
    let o = inst.src[i];
    if k.is64() {
        l.s64(o, k)
    } else {
        l.s32(o, k)
    }
}

fn dst(l: &mut Lifter, inst: &Inst, v: Val) -> R<()> {
    if l.ty(v).bits() == 64 {
        l.set_s64(inst.dst[0], v)
    } else {
        l.set_s32(inst.dst[0], v)
    }
}

/// The SOPK register operand (LLVM prints it first; it may be a source or a destination).
fn sopk_reg(inst: &Inst) -> Opnd {
    if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[0]
    }
}

/// Lifts a SALU instruction.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: SaluSem) -> LiftResult {
    use SaluSem::*;
    let k = if wide(op) { K::B64 } else { K::B32 };
    let rdna = l.gpu.family() != Some(Family::Gfx9);
    let flow = match op {
        // The fork/join branches (SOP2, SOPK, SOP1 encodings) are program control.
        S_CBRANCH_G_FORK | S_CBRANCH_I_FORK => return fork::fork(l, inst, op == S_CBRANCH_G_FORK),
        S_CBRANCH_JOIN => return fork::join(l, inst),

        // ---- SOPK ----
        S_MOVK_I32 => sopk::movk(l, inst)?,
        S_CMOVK_I32 => sopk::cmovk(l, inst)?,
        S_ADDK_I32 => sopk::addk(l, inst)?,
        S_CALL_B64 => sopk::call(l, inst)?,
        S_MULK_I32 => sopk::mulk(l, inst)?,
        // S_CMPK compares with simm16, zero-extended for U32, sign-extended for I32.
        S_CMPK_EQ_I32 => cmpk(l, inst, CmpOp::Eq, true)?,
        S_CMPK_LG_I32 => cmpk(l, inst, CmpOp::Ne, true)?,
        S_CMPK_GT_I32 => cmpk(l, inst, CmpOp::SGt, true)?,
        S_CMPK_GE_I32 => cmpk(l, inst, CmpOp::SGe, true)?,
        S_CMPK_LT_I32 => cmpk(l, inst, CmpOp::SLt, true)?,
        S_CMPK_LE_I32 => cmpk(l, inst, CmpOp::SLe, true)?,
        S_CMPK_EQ_U32 => cmpk(l, inst, CmpOp::Eq, false)?,
        S_CMPK_LG_U32 => cmpk(l, inst, CmpOp::Ne, false)?,
        S_CMPK_GT_U32 => cmpk(l, inst, CmpOp::UGt, false)?,
        S_CMPK_GE_U32 => cmpk(l, inst, CmpOp::UGe, false)?,
        S_CMPK_LT_U32 => cmpk(l, inst, CmpOp::ULt, false)?,
        S_CMPK_LE_U32 => cmpk(l, inst, CmpOp::ULe, false)?,
        // MODE (id 1) on every family; RDNA's other registers in `getreg`.
        S_GETREG_B32 if rdna && inst.imm as u32 & 0x3f != HWREG_MODE => getreg(l, inst)?,
        S_GETREG_B32 => mode::getreg_mode(l, inst)?,
        S_SETREG_B32 | S_SETREG_IMM32_B32 => mode::setreg(l, inst, op == S_SETREG_IMM32_B32)?,

        // ---- VGPR indexing (ISA "VGPR indexing"): M0[7:0] = index, M0[15:12] = operand
        // mask, MODE.GPR_IDX_EN (bit 27). Writing MODE ends the block, so the blocks in
        // between are lifted with indexing on. ----
        S_SET_GPR_IDX_ON => mode::set_gpr_idx_on(l, inst)?,
        // VSKIP = S0[S1[4:0]] (GCN3/Vega ISA S_SETVSKIP; CDNA4 ISA 4.1: "Set a bit that
        // causes all vector instructions to be ignored"). VSKIP is MODE bit 28 (CDNA4 ISA
        // 3.4; 4.5: "SET_VSKIP ... Reads VSKIP from MODE"), so the block ends here.
        S_SETVSKIP => mode::setvskip(l, inst)?,
        S_SET_GPR_IDX_IDX => mode::set_gpr_idx_idx(l, inst)?,

        // ---- SOPC ----
        S_CMP_EQ_I32 | S_CMP_EQ_U32 | S_CMP_EQ_U64 => cmp(l, inst, CmpOp::Eq, k)?,
        S_CMP_LG_I32 | S_CMP_LG_U32 | S_CMP_LG_U64 => cmp(l, inst, CmpOp::Ne, k)?,
        S_CMP_GT_I32 => cmp(l, inst, CmpOp::SGt, k)?,
        S_CMP_GE_I32 => cmp(l, inst, CmpOp::SGe, k)?,
        S_CMP_LT_I32 => cmp(l, inst, CmpOp::SLt, k)?,
        S_CMP_LE_I32 => cmp(l, inst, CmpOp::SLe, k)?,
        S_CMP_GT_U32 => cmp(l, inst, CmpOp::UGt, k)?,
        S_CMP_GE_U32 => cmp(l, inst, CmpOp::UGe, k)?,
        S_CMP_LT_U32 => cmp(l, inst, CmpOp::ULt, k)?,
        S_CMP_LE_U32 => cmp(l, inst, CmpOp::ULe, k)?,
        S_BITCMP0_B32 | S_BITCMP0_B64 | S_BITCMP1_B32 | S_BITCMP1_B64 => {
            bits::bitcmp(l, inst, k, matches!(op, S_BITCMP0_B32 | S_BITCMP0_B64))?
        }

        // ---- SOP1 / SOP2 ----
        // D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
        S_AND_SAVEEXEC_B32 | S_AND_SAVEEXEC_B64 => saveexec(l, inst, Logic::And)?,
        S_OR_SAVEEXEC_B32 | S_OR_SAVEEXEC_B64 => saveexec(l, inst, Logic::Or)?,
        S_XOR_SAVEEXEC_B32 | S_XOR_SAVEEXEC_B64 => saveexec(l, inst, Logic::Xor)?,
        S_ANDN2_SAVEEXEC_B32 | S_ANDN2_SAVEEXEC_B64 => saveexec(l, inst, Logic::Andn2)?,
        S_ORN2_SAVEEXEC_B32 | S_ORN2_SAVEEXEC_B64 => saveexec(l, inst, Logic::Orn2)?,
        S_ANDN1_SAVEEXEC_B32 | S_ANDN1_SAVEEXEC_B64 => saveexec(l, inst, Logic::Andn1)?,
        S_ORN1_SAVEEXEC_B32 | S_ORN1_SAVEEXEC_B64 => saveexec(l, inst, Logic::Orn1)?,
        S_NAND_SAVEEXEC_B32 | S_NAND_SAVEEXEC_B64 => saveexec(l, inst, Logic::Nand)?,
        S_NOR_SAVEEXEC_B32 | S_NOR_SAVEEXEC_B64 => saveexec(l, inst, Logic::Nor)?,
        S_XNOR_SAVEEXEC_B32 | S_XNOR_SAVEEXEC_B64 => saveexec(l, inst, Logic::Xnor)?,
        S_ANDN1_WREXEC_B64 | S_ANDN2_WREXEC_B64 => {
            moves::andn_wrexec(l, inst, op == S_ANDN1_WREXEC_B64)?
        }
        S_AND_NOT0_WREXEC_B32 | S_AND_NOT0_WREXEC_B64 => next(wrexec(l, inst, true))?,
        S_AND_NOT1_WREXEC_B32 | S_AND_NOT1_WREXEC_B64 => next(wrexec(l, inst, false))?,
        S_MOV_B32 | S_MOV_B64 => moves::mov(l, inst, k)?,
        S_CMOV_B32 | S_CMOV_B64 => moves::cmov(l, inst, k)?,
        S_CSELECT_B32 | S_CSELECT_B64 => moves::cselect(l, inst, k)?,
        S_NOT_B32 | S_NOT_B64 => bits::not(l, inst, k)?,
        S_AND_B32 | S_AND_B64 => logic2(l, inst, Logic::And, k)?,
        S_OR_B32 | S_OR_B64 => logic2(l, inst, Logic::Or, k)?,
        S_XOR_B32 | S_XOR_B64 => logic2(l, inst, Logic::Xor, k)?,
        S_ANDN2_B32 | S_ANDN2_B64 => logic2(l, inst, Logic::Andn2, k)?,
        S_ORN2_B32 | S_ORN2_B64 => logic2(l, inst, Logic::Orn2, k)?,
        S_NAND_B32 | S_NAND_B64 => logic2(l, inst, Logic::Nand, k)?,
        S_NOR_B32 | S_NOR_B64 => logic2(l, inst, Logic::Nor, k)?,
        S_XNOR_B32 | S_XNOR_B64 => logic2(l, inst, Logic::Xnor, k)?,
        // Shift by S1[4:0] ([5:0] for 64 bits); SCC = result != 0.
        S_LSHL_B32 | S_LSHL_B64 => shift(l, inst, BinOp::Shl, k)?,
        S_LSHR_B32 | S_LSHR_B64 => shift(l, inst, BinOp::LShr, k)?,
        S_ASHR_I32 | S_ASHR_I64 => shift(l, inst, BinOp::AShr, k)?,
        // gfx12 64-bit scalar arithmetic: wrapping, SCC unchanged (RDNA4 ISA, SOP2).
        S_ADD_NC_U64 => arith::wide_arith(l, inst, BinOp::Add)?,
        S_SUB_NC_U64 => arith::wide_arith(l, inst, BinOp::Sub)?,
        S_MUL_U64 => arith::wide_arith(l, inst, BinOp::Mul)?,
        S_ADD_U32 | S_SUB_U32 => arith::add_sub_u32(l, inst, op == S_ADD_U32)?,
        S_ADDC_U32 | S_SUBB_U32 => arith::addc_subb(l, inst, op == S_ADDC_U32)?,
        S_ADD_I32 | S_SUB_I32 => arith::add_sub_i32(l, inst, op == S_ADD_I32)?,
        S_MUL_I32 => next(bin2(l, inst, BinOp::Mul))?,
        S_MUL_HI_U32 => next(bin2(l, inst, BinOp::MulHiU))?,
        S_MUL_HI_I32 => next(bin2(l, inst, BinOp::MulHiS))?,
        // SCC = 1 when S0 is the result (S0 < S1 for min, S0 > S1 for max).
        S_MIN_I32 => int_minmax(l, inst, BinOp::SMin, CmpOp::SLt)?,
        S_MIN_U32 => int_minmax(l, inst, BinOp::UMin, CmpOp::ULt)?,
        S_MAX_I32 => int_minmax(l, inst, BinOp::SMax, CmpOp::SGt)?,
        S_MAX_U32 => int_minmax(l, inst, BinOp::UMax, CmpOp::UGt)?,
        S_ABS_I32 => arith::abs(l, inst)?,
        S_ABSDIFF_I32 => arith::absdiff(l, inst)?,
        S_LSHL1_ADD_U32 => lshl_add(l, inst, 1)?,
        S_LSHL2_ADD_U32 => lshl_add(l, inst, 2)?,
        S_LSHL3_ADD_U32 => lshl_add(l, inst, 3)?,
        S_LSHL4_ADD_U32 => lshl_add(l, inst, 4)?,
        S_BFE_U32 | S_BFE_U64 | S_BFE_I32 | S_BFE_I64 => {
            bits::bit_extract(l, inst, k, matches!(op, S_BFE_I32 | S_BFE_I64))?
        }
        S_BFM_B32 | S_BFM_B64 => bits::bfm(l, inst, k)?,
        S_BREV_B32 | S_BREV_B64 => bits::brev(l, inst, k)?,
        S_BCNT0_I32_B32 | S_BCNT0_I32_B64 | S_BCNT1_I32_B32 | S_BCNT1_I32_B64 => {
            bits::bcnt(l, inst, k, matches!(op, S_BCNT0_I32_B32 | S_BCNT0_I32_B64))?
        }
        S_FF0_I32_B32 | S_FF0_I32_B64 | S_FF1_I32_B32 | S_FF1_I32_B64 => {
            bits::ff(l, inst, k, matches!(op, S_FF0_I32_B32 | S_FF0_I32_B64))?
        }
        S_FLBIT_I32_B32 | S_FLBIT_I32_B64 => bits::flbit(l, inst, k)?,
        S_FLBIT_I32 | S_FLBIT_I32_I64 => bits::flbit_signed(l, inst, k)?,
        S_SEXT_I32_I8 | S_SEXT_I32_I16 => bits::sext(l, inst, op == S_SEXT_I32_I8)?,
        S_BITSET0_B32 | S_BITSET0_B64 | S_BITSET1_B32 | S_BITSET1_B64 => {
            bits::bitset(l, inst, k, matches!(op, S_BITSET0_B32 | S_BITSET0_B64))?
        }
        // D = {S1 half, S0 half}: low (L) or high (H) halves, S0's named first.
        S_PACK_LL_B32_B16 => pack(l, inst, false, false)?,
        S_PACK_LH_B32_B16 => pack(l, inst, false, true)?,
        S_PACK_HL_B32_B16 => pack(l, inst, true, false)?,
        S_PACK_HH_B32_B16 => pack(l, inst, true, true)?,
        S_QUADMASK_B32 | S_QUADMASK_B64 => bits::quadmask(l, inst, k)?,
        S_WQM_B32 | S_WQM_B64 => bits::wqm(l, inst, k)?,
        S_BITREPLICATE_B64_B32 => bits::bitreplicate(l, inst)?,
        S_MOVRELS_B32 | S_MOVRELS_B64 => next(movrel(l, inst, Movrel::Source, k.is64()))?,
        S_MOVRELD_B32 | S_MOVRELD_B64 => next(movrel(l, inst, Movrel::Dest, k.is64()))?,
        S_MOVRELSD_2_B32 => next(movrel(l, inst, Movrel::Both, false))?,
        S_GETPC_B64 => control::getpc(l, inst)?,
        S_SETPC_B64 => control::setpc(l, inst)?,
        S_SWAPPC_B64 => control::swappc(l, inst)?,

        // ---- RDNA ----
        // Sleeps give other waves a turn, as `s_sleep` does.
        S_SLEEP_VAR => Flow::End(Exit::Yield { next: l.next_pc }),
        S_ALLOC_VGPR => next(alloc_vgpr(l, inst))?,
        S_SENDMSG_RTN_B32 => next(sendmsg_rtn(l, inst, false))?,
        S_SENDMSG_RTN_B64 => next(sendmsg_rtn(l, inst, true))?,
        // gfx12 `s_barrier_signal -1` (SOP1): the work-group barrier (`s_barrier_wait` then
        // has nothing left to do: a valid schedule, every wave signals before it waits); -2
        // (the trap barrier: waves here are never privileged) and 0 are no-ops (RDNA4 ISA,
        // S_BARRIER_SIGNAL). M0 and other ids name barriers RDNA4 does not have.
        S_BARRIER_SIGNAL if rdna => return control::barrier_signal(l, inst),
        // `s_barrier_signal_isfirst -1`: SCC = 1 for the first wave to signal the work-group
        // barrier in this phase (signalCnt == 0 before its signal), 0 when the wave is not in
        // a multi-wave work-group (RDNA4 ISA 16.3, S_BARRIER_SIGNAL_ISFIRST); then the wave
        // waits at the barrier as for `s_barrier_signal -1`.
        S_BARRIER_SIGNAL_ISFIRST if rdna && inst.src[0].code == 193 => {
            return control::barrier_isfirst(l)
        }
        // Barrier -2 (the trap barrier; waves here are never privileged) and 0 do nothing
        // and return SCC = 0 (RDNA4 ISA, S_BARRIER_SIGNAL_ISFIRST).
        S_BARRIER_SIGNAL_ISFIRST if matches!(inst.src[0].code, 128 | 194) => {
            control::barrier_isfirst_noop(l)?
        }
        S_GET_BARRIER_STATE => next(get_barrier_state(l, inst))?,
        // gfx12 SALU float (`float`).
        S_ADD_F32 => next(float::lift(l, inst, FloatOp::Add, K::F32))?,
        S_SUB_F32 => next(float::lift(l, inst, FloatOp::Sub, K::F32))?,
        S_MUL_F32 => next(float::lift(l, inst, FloatOp::Mul, K::F32))?,
        S_MIN_NUM_F32 => next(float::lift(l, inst, FloatOp::MinNum, K::F32))?,
        S_MAX_NUM_F32 => next(float::lift(l, inst, FloatOp::MaxNum, K::F32))?,
        S_MINIMUM_F32 => next(float::lift(l, inst, FloatOp::Minimum, K::F32))?,
        S_MAXIMUM_F32 => next(float::lift(l, inst, FloatOp::Maximum, K::F32))?,
        S_FMAC_F32 => next(float::lift(l, inst, FloatOp::Fmac, K::F32))?,
        S_FMAAK_F32 => next(float::lift(l, inst, FloatOp::Fmaak, K::F32))?,
        S_FMAMK_F32 => next(float::lift(l, inst, FloatOp::Fmamk, K::F32))?,
        S_CEIL_F32 => next(float::lift(l, inst, FloatOp::Ceil, K::F32))?,
        S_FLOOR_F32 => next(float::lift(l, inst, FloatOp::Floor, K::F32))?,
        S_TRUNC_F32 => next(float::lift(l, inst, FloatOp::Trunc, K::F32))?,
        S_RNDNE_F32 => next(float::lift(l, inst, FloatOp::Rndne, K::F32))?,
        S_ADD_F16 => next(float::lift(l, inst, FloatOp::Add, K::F16))?,
        S_SUB_F16 => next(float::lift(l, inst, FloatOp::Sub, K::F16))?,
        S_MUL_F16 => next(float::lift(l, inst, FloatOp::Mul, K::F16))?,
        S_MIN_NUM_F16 => next(float::lift(l, inst, FloatOp::MinNum, K::F16))?,
        S_MAX_NUM_F16 => next(float::lift(l, inst, FloatOp::MaxNum, K::F16))?,
        S_MINIMUM_F16 => next(float::lift(l, inst, FloatOp::Minimum, K::F16))?,
        S_MAXIMUM_F16 => next(float::lift(l, inst, FloatOp::Maximum, K::F16))?,
        S_FMAC_F16 => next(float::lift(l, inst, FloatOp::Fmac, K::F16))?,
        S_CEIL_F16 => next(float::lift(l, inst, FloatOp::Ceil, K::F16))?,
        S_FLOOR_F16 => next(float::lift(l, inst, FloatOp::Floor, K::F16))?,
        S_TRUNC_F16 => next(float::lift(l, inst, FloatOp::Trunc, K::F16))?,
        S_RNDNE_F16 => next(float::lift(l, inst, FloatOp::Rndne, K::F16))?,
        S_CVT_F32_I32 => next(float::lift(l, inst, FloatOp::CvtF32I32, K::F32))?,
        S_CVT_F32_U32 => next(float::lift(l, inst, FloatOp::CvtF32U32, K::F32))?,
        S_CVT_I32_F32 => next(float::lift(l, inst, FloatOp::CvtI32F32, K::F32))?,
        S_CVT_U32_F32 => next(float::lift(l, inst, FloatOp::CvtU32F32, K::F32))?,
        S_CVT_F32_F16 => next(float::lift(l, inst, FloatOp::CvtF32F16, K::F16))?,
        S_CVT_HI_F32_F16 => next(float::lift(l, inst, FloatOp::CvtHiF32F16, K::F16))?,
        S_CVT_F16_F32 => next(float::lift(l, inst, FloatOp::CvtF16F32, K::F32))?,
        S_CVT_PK_RTZ_F16_F32 => next(float::lift(l, inst, FloatOp::CvtPkRtzF16F32, K::F32))?,
        S_CMP_EQ_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FEq), K::F32))?,
        S_CMP_LG_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FLg), K::F32))?,
        S_CMP_GT_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FGt), K::F32))?,
        S_CMP_GE_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FGe), K::F32))?,
        S_CMP_LT_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FLt), K::F32))?,
        S_CMP_LE_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FLe), K::F32))?,
        S_CMP_O_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FOrd), K::F32))?,
        S_CMP_U_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FUno), K::F32))?,
        S_CMP_NGE_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNge), K::F32))?,
        S_CMP_NLG_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNlg), K::F32))?,
        S_CMP_NGT_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNgt), K::F32))?,
        S_CMP_NLE_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNle), K::F32))?,
        S_CMP_NEQ_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNeq), K::F32))?,
        S_CMP_NLT_F32 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNlt), K::F32))?,
        S_CMP_EQ_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FEq), K::F16))?,
        S_CMP_LG_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FLg), K::F16))?,
        S_CMP_GT_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FGt), K::F16))?,
        S_CMP_GE_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FGe), K::F16))?,
        S_CMP_LT_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FLt), K::F16))?,
        S_CMP_LE_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FLe), K::F16))?,
        S_CMP_O_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FOrd), K::F16))?,
        S_CMP_U_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FUno), K::F16))?,
        S_CMP_NGE_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNge), K::F16))?,
        S_CMP_NLG_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNlg), K::F16))?,
        S_CMP_NGT_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNgt), K::F16))?,
        S_CMP_NLE_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNle), K::F16))?,
        S_CMP_NEQ_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNeq), K::F16))?,
        S_CMP_NLT_F16 => next(float::lift(l, inst, FloatOp::Cmp(CmpOp::FNlt), K::F16))?,

        // ---- Not lifted ----
        // gfx1150's `s_min/max_f32/f16` (replaced by the `_num` forms in gfx12).
        S_MIN_F32 | S_MAX_F32 | S_MIN_F16 | S_MAX_F16 => {
            return Err("gfx1150 SALU float min/max: not lifted".into())
        }
        S_RFE_B64 | S_RFE_RESTORE_B64 => {
            return Err("return from exception: trap-handler only".into())
        }
        S_BARRIER_SIGNAL | S_BARRIER_SIGNAL_ISFIRST | S_BARRIER_INIT | S_BARRIER_JOIN => {
            return Err("named barriers are not in the RDNA4 ISA".into())
        }
        S_SUBVECTOR_LOOP_BEGIN | S_SUBVECTOR_LOOP_END => {
            return Err("no pseudocode for the RDNA3 subvector loops".into())
        }
    };
    Ok((InstClass::Salu, flow))
}

/// Per nibble of `a`: bit 0 of the nibble = OR of its four bits (other bits: garbage).
fn quad_or(l: &mut Lifter, a: Val) -> Val {
    let mut q = a;
    for s in 1..4 {
        let t = l.lshr_imm(a, s);
        q = l.or(q, t);
    }
    q
}

/// All ones of the operand width.
fn mask_of(k: K) -> u64 {
    if k.is64() {
        u64::MAX
    } else {
        0xffff_ffff
    }
}

/// SGPRs addressable by `s_movrels`/`s_movreld`: s0..s101 on GFX9, s0..s105 on RDNA (an
/// index past them reads 0 and writes nothing).
fn movrel_sgprs(l: &Lifter) -> u8 {
    if l.gpu.family() == Some(crate::isa::Family::Gfx9) {
        102
    } else {
        106
    }
}

/// `s_movrels` (`D = SGPR[S0 + M0]`), `s_movreld` (`SGPR[D + M0] = S0`), 32 or 64 bits, and
/// RDNA's `s_movrelsd_2_b32` (`SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]]`, RDNA4 ISA 16.3
/// S_MOVRELSD_2_B32). ISA: M0 is the unsigned dword index; 64-bit forms move the pair at that
/// index. The index is dynamic, so reads select among every SGPR and writes update every SGPR
/// whose number matches.
/// Which operands of `s_movrel*` M0 indexes.
#[derive(Clone, Copy)]
enum Movrel {
    /// `s_movrels`: the source.
    Source,
    /// `s_movreld`: the destination.
    Dest,
    /// `s_movrelsd_2`: the source by M0[9:0], the destination by M0[25:16].
    Both,
}

fn movrel(l: &mut Lifter, inst: &Inst, which: Movrel, w64: bool) -> R<()> {
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let (sidx, didx) = match which {
        Movrel::Both => {
            let s = l.and_imm(m0, 0x3ff);
            let d = l.lshr_imm(m0, 16);
            let d = l.and_imm(d, 0x3ff);
            (Some(s), Some(d))
        }
        Movrel::Source => (Some(m0), None),
        Movrel::Dest => (None, Some(m0)),
    };
    let n = if w64 { 2 } else { 1 };
    let limit = movrel_sgprs(l);
    let data = match sidx {
        Some(sidx) => {
            let sbase = inst.src[0]
                .sreg()
                .filter(|&r| r < limit)
                .ok_or("s_movrel source is not an SGPR")?;
            let idx = l.add_imm(sidx, sbase as u64);
            let mut out = Vec::with_capacity(n);
            for j in 0..n as u64 {
                let ij = l.add_imm(idx, j);
                let mut v = l.c32(0);
                for r in 0..limit {
                    let rc = l.c32(r as u32);
                    let hit = l.cmp(CmpOp::Eq, ij, rc);
                    let x = l.get_sreg(r);
                    v = l.select(hit, x, v);
                }
                out.push(v);
            }
            out
        }
        None if w64 => {
            let v = l.s64(inst.src[0], K::B64)?;
            vec![l.lo(v), l.hi(v)]
        }
        None => vec![l.s32(inst.src[0], K::B32)?],
    };
    let Some(didx) = didx else {
        let d = inst.dst[0]
            .sreg()
            .ok_or("s_movrels destination is not an SGPR")?;
        if d as u16 + n as u16 > 128 {
            return Err("destination range leaves the scalar registers".into());
        }
        for (j, v) in data.into_iter().enumerate() {
            l.set_sreg(d + j as u8, v);
        }
        return Ok(());
    };
    let dbase = inst.dst[0]
        .sreg()
        .filter(|&r| r < limit)
        .ok_or("s_movrel destination is not an SGPR")?;
    let idx = l.add_imm(didx, dbase as u64);
    for r in 0..limit {
        let mut v = l.get_sreg(r);
        for (j, d) in data.iter().enumerate() {
            let ij = l.add_imm(idx, j as u64);
            let rc = l.c32(r as u32);
            let hit = l.cmp(CmpOp::Eq, ij, rc);
            v = l.select(hit, *d, v);
        }
        l.set_sreg(r, v);
    }
    Ok(())
}

/// Reads the destination register's current value (for ops that update D in place).
fn src_of_dst(l: &mut Lifter, inst: &Inst, k: K) -> R<Val> {
    if k.is64() {
        l.s64(inst.dst[0], K::B64)
    } else {
        l.s32(inst.dst[0], K::B32)
    }
}

fn bin2(l: &mut Lifter, inst: &Inst, op: BinOp) -> R<()> {
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let r = l.bin(op, a, b);
    dst(l, inst, r)
}

/// A bitwise operation of two operands (`n1`/`n2`: that operand inverted).
#[derive(Clone, Copy)]
enum Logic {
    And,
    Or,
    Xor,
    Andn2,
    Orn2,
    Andn1,
    Orn1,
    Nand,
    Nor,
    Xnor,
}

/// `a op b`.
fn logic(l: &mut Lifter, op: Logic, a: Val, b: Val) -> Val {
    match op {
        Logic::And => l.and(a, b),
        Logic::Or => l.or(a, b),
        Logic::Xor => l.xor(a, b),
        Logic::Andn2 => {
            let n = l.not(b);
            l.and(a, n)
        }
        Logic::Orn2 => {
            let n = l.not(b);
            l.or(a, n)
        }
        Logic::Andn1 => {
            let n = l.not(a);
            l.and(n, b)
        }
        Logic::Orn1 => {
            let n = l.not(a);
            l.or(n, b)
        }
        Logic::Nand => {
            let t = l.and(a, b);
            l.not(t)
        }
        Logic::Nor => {
            let t = l.or(a, b);
            l.not(t)
        }
        Logic::Xnor => {
            let t = l.xor(a, b);
            l.not(t)
        }
    }
}

/// `D = S0 op S1`; SCC = D != 0.
fn logic2(l: &mut Lifter, inst: &Inst, op: Logic, k: K) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let b = src(l, inst, 1, k)?;
    let r = logic(l, op, a, b);
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_<op>_saveexec_b32/b64`: D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
fn saveexec(l: &mut Lifter, inst: &Inst, op: Logic) -> R<Flow> {
    let s0 = if l.wave == 64 {
        l.s64(inst.src[0], K::B64)?
    } else {
        let v = l.s32(inst.src[0], K::B32)?;
        l.conv(ConvOp::ZExt, v)
    };
    let e = l.exec();
    let new = logic(l, op, s0, e);
    l.set_mask_opnd(inst.dst[0], e)?;
    l.set_exec(new);
    let scc = l.ne0(new);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// Shift by S1[4:0] ([5:0] for 64 bits); SCC = result != 0.
fn shift(l: &mut Lifter, inst: &Inst, op: BinOp, k: K) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let b = l.s32(inst.src[1], K::B32)?;
    let b = if k.is64() { l.conv(ConvOp::ZExt, b) } else { b };
    let r = l.bin(op, a, b);
    dst(l, inst, r)?;
    let scc = l.ne0(r);
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// SOPC integer compare: SCC = S0 `c` S1.
fn cmp(l: &mut Lifter, inst: &Inst, c: CmpOp, k: K) -> R<Flow> {
    let a = src(l, inst, 0, k)?;
    let b = src(l, inst, 1, k)?;
    let r = l.cmp(c, a, b);
    l.set_scc(r);
    Ok(Flow::Next)
}

/// SOPK compare with SIMM16, sign-extended (`signed`) or zero-extended: SCC = reg `c` imm.
fn cmpk(l: &mut Lifter, inst: &Inst, c: CmpOp, signed: bool) -> R<Flow> {
    let a = l.s32(sopk_reg(inst), K::B32)?;
    let imm = if signed {
        inst.imm as u32
    } else {
        inst.imm as u32 & 0xffff
    };
    let b = l.c32(imm);
    let r = l.cmp(c, a, b);
    l.set_scc(r);
    Ok(Flow::Next)
}

/// 32-bit integer min/max `op`; SCC = 1 when S0 is the result (S0 `c` S1).
fn int_minmax(l: &mut Lifter, inst: &Inst, op: BinOp, c: CmpOp) -> R<Flow> {
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let r = l.bin(op, a, b);
    let scc = l.cmp(c, a, b);
    dst(l, inst, r)?;
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_lshl<n>_add_u32`: D = (S0 << n) + S1; SCC = carry out of the 32-bit result (incl.
/// shifted-out bits).
fn lshl_add(l: &mut Lifter, inst: &Inst, n: u64) -> R<Flow> {
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let a64 = l.conv(ConvOp::ZExt, a);
    let b64 = l.conv(ConvOp::ZExt, b);
    let s = l.shl_imm(a64, n);
    let t = l.add(s, b64);
    let r = l.lo(t);
    let h = l.hi(t);
    let scc = l.ne0(h);
    dst(l, inst, r)?;
    l.set_scc(scc);
    Ok(Flow::Next)
}

/// `s_pack_{l,h}{l,h}_b32_b16`: D = {S1 half, S0 half}, the high half of S0 when `a_hi`, of
/// S1 when `b_hi`, else the low half.
fn pack(l: &mut Lifter, inst: &Inst, a_hi: bool, b_hi: bool) -> R<Flow> {
    let a = src(l, inst, 0, K::B32)?;
    let b = src(l, inst, 1, K::B32)?;
    let lo = if a_hi {
        l.lshr_imm(a, 16)
    } else {
        l.and_imm(a, 0xffff)
    };
    let hi = if b_hi {
        l.and_imm(b, 0xffff_0000)
    } else {
        l.shl_imm(b, 16)
    };
    let r = l.or(lo, hi);
    dst(l, inst, r)?;
    Ok(Flow::Next)
}

/// Signed overflow of `r = a + b` as `S32` 0/1: operands of equal sign, result of the other.
fn signed_add_overflow(l: &mut Lifter, a: Val, b: Val, r: Val) -> Val {
    let x1 = l.xor(a, r);
    let x2 = l.xor(b, r);
    let t = l.and(x1, x2);
    l.lshr_imm(t, 31)
}

/// Bitfield extract with a width that may reach or exceed the operand width (the IR
/// [`TernOp::Bfe`] takes the width modulo the operand width).
fn bfe(l: &mut Lifter, a: Val, off: Val, w: Val, signed: bool) -> R<Val> {
    let bits = l.ty(a).bits() as u64;
    let (off, w) = if bits == 64 {
        (l.conv(ConvOp::ZExt, off), l.conv(ConvOp::ZExt, w))
    } else {
        (off, w)
    };
    let op = if signed { TernOp::SBfe } else { TernOp::Bfe };
    let narrow = l.tern(op, a, off, w);
    // width >= operand width: the whole shifted value.
    let sh_op = if signed { BinOp::AShr } else { BinOp::LShr };
    let whole = l.bin(sh_op, a, off);
    let lim = l.cst(w, bits);
    let big = l.cmp(CmpOp::UGe, w, lim);
    Ok(l.select(big, whole, narrow))
}

/// `(id, offset, size)` of a `hwreg` immediate: id[5:0], offset[10:6], size-1[15:11].
fn hwreg(imm: u32) -> (u32, u32, u32) {
    (imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1)
}

/// Bits `off..off+size` of `v`.
fn field(l: &mut Lifter, v: Val, off: u32, size: u32) -> Val {
    let s = l.lshr_imm(v, off as u64);
    if size >= 32 {
        s
    } else {
        l.and_imm(s, (1u64 << size) - 1)
    }
}

// ---- RDNA ---------------------------------------------------------------------------------

/// `s_get_barrier_state`: `D = BARRIER_STATE[id & 63]` with `id = IsM0(S0) ? M0[4:0] : S0.i32`
/// (RDNA4 ISA 16.3, S_GET_BARRIER_STATE). Entry 63 (id -1) is the work-group barrier, whose
/// state the environment gives; RDNA4 has no other barrier a wave here can signal (the trap
/// barrier -2 is never used off-GPU, named barriers do not exist), so every other entry
/// reads as 0 (not valid).
fn get_barrier_state(l: &mut Lifter, inst: &Inst) -> R<()> {
    let id = if inst.src[0].code == crate::wave::sreg::M0 as u16 {
        let m0 = l.get_sreg(crate::wave::sreg::M0);
        l.and_imm(m0, 0x1f)
    } else {
        l.s32(inst.src[0], K::B32)?
    };
    let idx = l.and_imm(id, 63);
    let wg = l.c32(63);
    let is_wg = l.cmp(CmpOp::Eq, idx, wg);
    let st = l.push_op(crate::ir::Op::BarrierState, Ty::S32);
    let zero = l.c32(0);
    let r = l.select(is_wg, st, zero);
    l.set_s32(inst.dst[0], r)
}

/// `s_getreg_b32` of an RDNA hardware register other than MODE (RDNA4 ISA 3.4; SIMM16 =
/// `{size-1[15:11], offset[10:6], id[5:0]}`, 16.2 S_GETREG_B32), built from the state wavejit
/// models; fields it does not model read 0:
/// - STATUS (2). gfx12 (RDNA4 Table 5): EXECZ 9, VCCZ 10 (wave32: the low 32 bits of
///   EXEC/VCC, 3.4.7), IN_WG 11 (a work-group of more than one wave: the barrier state's
///   valid bit, [`crate::env::workgroup_barrier_state`]), VALID 16 = 1, WAVE64 29. gfx11: the
///   GCN layout (the RDNA3 guide is not at hand; CDNA4 ISA 3.4 and ROCdbgapi's gfx9–gfx11
///   masks agree on SCC 0, EXECZ 9, VCCZ 10, and CDNA4 has IN_TG 11 and VALID 16): SCC 0,
///   EXECZ 9, VCCZ 10, IN_TG 11, VALID 16. PRIV and TRAP_EN are 0: no trap handler runs
///   off-GPU (as `s_sendmsg_rtn` GET_TBA says), and no priority, halt, debug or export state.
/// - STATE_PRIV (4, gfx12): SCC 9 (RDNA4 Table 6); the rest 0 (SCRATCH_EN included).
/// - FLAT_SCR_LO/HI (20/21, gfx11) and SCRATCH_BASE_LO/HI (20/21, gfx12): 0, the private
///   segment base as the runtime models it (each lane's scratch is its own segment at
///   offset 0; the wave's initial SGPRs say the same, `runtime::dispatch::wave_init`).
/// - SHADER_CYCLES (29, gfx11) and SHADER_CYCLES_LO/HI (29/30, gfx12): not a clock but the
///   wave's executed instructions up to and including this one (`Op::InstCount`; the block
///   ends after it so that the count is exact), deterministic in both engines and across
///   runs. gfx11 keeps its low 20 bits: LLVM 22 reads the gfx11 counter as
///   `hwreg(HW_REG_SHADER_CYCLES, 0, 20)` and gfx12's as HI, LO, HI.
/// - HW_ID1/HW_ID2 (23/24): 0 ("debug only - not predictable values", RDNA4 3.4).
/// - TRAP_CTRL (19, gfx12): 0, no exception traps enabled (wavejit takes none).
///
/// Other registers (trap status and exception flags, allocation, performance snapshots) are
/// not supported.
fn getreg(l: &mut Lifter, inst: &Inst) -> R<Flow> {
    use crate::wave::sreg;
    let imm = inst.imm as u32;
    let (id, off, size) = (imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11 & 0x1f) + 1);
    let gfx12 = l.gpu.family() == Some(crate::isa::Family::Gfx12);
    let mut end = false;
    let v = match (id, gfx12) {
        (2, _) => {
            let e = l.exec();
            let execz = l.eq0(e);
            let vcc = l.mask_opnd(crate::isa::Opnd::scalar(sreg::VCC_LO, 2))?;
            let vccz = l.eq0(vcc);
            let bs = l.push_op(crate::ir::Op::BarrierState, Ty::S32);
            let in_wg = l.and_imm(bs, 1);
            let mut fixed = 1 << 16;
            if gfx12 && l.wave == 64 {
                fixed |= 1 << 29;
            }
            let mut r = l.c32(fixed);
            for (bit, x) in [(9, execz), (10, vccz), (11, in_wg)] {
                let t = l.shl_imm(x, bit);
                r = l.or(r, t);
            }
            if !gfx12 {
                let scc = l.get_scc();
                r = l.or(r, scc);
            }
            r
        }
        (4, true) => {
            let scc = l.get_scc();
            l.shl_imm(scc, 9)
        }
        (20 | 21 | 23 | 24, _) | (19, true) => l.c32(0),
        (29, false) | (29 | 30, true) => {
            end = true;
            let n = l.push_op(crate::ir::Op::InstCount, Ty::S64);
            if id == 30 {
                l.hi(n)
            } else if gfx12 {
                l.lo(n)
            } else {
                let lo = l.lo(n);
                l.and_imm(lo, 0xf_ffff)
            }
        }
        _ => return Err(format!("hardware register {id} is not supported")),
    };
    let r = l.lshr_imm(v, off as u64);
    let r = if size >= 32 {
        r
    } else {
        l.and_imm(r, (1u64 << size) - 1)
    };
    let d = if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[0]
    };
    l.set_s32(d, r)?;
    Ok(if end {
        Flow::End(Exit::Jump(l.next_pc))
    } else {
        Flow::Next
    })
}

/// `s_sendmsg_rtn_b32/b64` (RDNA4 ISA 5.4, Table 22; the message id is SSRC0's field):
/// what a wave can get off-GPU. GET_REALTIME reads the environment clock (as
/// `s_memrealtime`: deterministic, see `smem`); there is no doorbell, dispatch id, trap
/// handler or shader-engine layout, so GET_DOORBELL, GET_DDID, GET_TMA, GET_TBA (bit 63
/// clear: no trap handler present) and GET_SE_HW_ID return 0. SAVE_WAVE (trap handler only),
/// ILLEGAL and reserved ids are unsupported. The b32 form writes the low 32 bits.
fn sendmsg_rtn(l: &mut Lifter, inst: &Inst, b64: bool) -> R<()> {
    let msg = inst.imm as u32 & 0xff;
    let v = match msg {
        0x83 => l.push_op(crate::ir::Op::Clock, Ty::S64),
        0x80 | 0x81 | 0x82 | 0x85 | 0x87 => l.c64(0),
        _ => {
            return Err(format!(
                "s_sendmsg_rtn message {msg:#x} is not available off-GPU"
            ))
        }
    };
    if b64 {
        l.set_s64(inst.dst[0], v)
    } else {
        let lo = l.conv(ConvOp::Lo, v);
        l.set_s32(inst.dst[0], lo)
    }
}

/// `s_alloc_vgpr n` (RDNA4 ISA, S_ALLOC_VGPR): a wave here always owns the full register
/// file, so a request for at most 256 VGPRs (`S0[8:0]`) succeeds (SCC = 1) and changes
/// nothing; a larger one fails (SCC = 0).
fn alloc_vgpr(l: &mut Lifter, inst: &Inst) -> R<()> {
    let n = l.s32(inst.src[0], K::B32)?;
    let n = l.and_imm(n, 0x1ff);
    let max = l.c32(256);
    let ok = l.cmp(CmpOp::ULe, n, max);
    l.set_scc(ok);
    Ok(())
}

/// `s_and_not0_wrexec` (EXEC = D = ~S0 & EXEC) and `s_and_not1_wrexec` (EXEC = D = S0 &
/// ~EXEC), both widths; SCC = EXEC != 0.
fn wrexec(l: &mut Lifter, inst: &Inst, not0: bool) -> R<()> {
    let s0 = l.mask_opnd(inst.src[0])?;
    let e = l.exec();
    let new = if not0 {
        let n = l.not(s0);
        l.and(n, e)
    } else {
        let n = l.not(e);
        l.and(s0, n)
    };
    let new = if l.wave == 32 {
        l.and_imm(new, 0xffff_ffff)
    } else {
        new
    };
    l.set_exec(new);
    l.set_mask_opnd(inst.dst[0], new)?;
    let scc = l.ne0(new);
    l.set_scc(scc);
    Ok(())
}
