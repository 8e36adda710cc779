//! Instruction semantics: lifting decoded instructions of one basic block to IR.
//!
//! [`lift_block`] decodes instructions from a start address and lifts each one into IR ops
//! through [`ir::Builder`](crate::ir::Builder), one module per instruction class:
//!
//! * `operand`: the lifting context, operand reads (registers, inline constants, literals,
//!   VOP3 modifiers, DPP, SDWA, VGPR indexing) and EXEC-masked writes, shared by every class;
//! * `salu` (SOP1/SOP2/SOPK/SOPC, with the gfx12 float ops and the GCN fork/join branches in
//!   child modules), `control` (SOPP: branches, barriers, waits), `smem` (scalar memory),
//!   `valu` (VOP1/VOP2/VOP3/VOP3P), `vcmp` (VOPC and VOP3 compares), `mai` (MFMA/SMFMAC, and
//!   RDNA WMMA/SWMMAC in `mai::wmma`), `vopd` (RDNA dual issue), `ds` (LDS and cross-lane DS),
//!   `vmem` (FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF, the RDNA V# in `vmem::rdna_buffer`).
//!
//! Instructions are routed by their generated semantic key ([`Sem`], `Op::sem`): its class
//! picks the module, its operation the lifting arm. The `_e32`/`_e64`/`_dpp`/`_sdwa`
//! encodings of one instruction share an `Op`, and RDNA opcodes with a GFX9 equivalent share
//! its key (`translator/gen/rdna_equivalents.txt`), so they share one lifting arm.
//!
//! A block ends at branches (except an `s_cbranch_execz` whose region can run under EXEC,
//! see `region`), `s_endpgm`, `s_barrier`, `s_trap`, `s_setpc`/`s_swappc`,
//! `s_sleep`,
//! writes of MODE (`s_setreg` of MODE, `s_set_gpr_idx_on/off`, `s_setvskip`), after
//! [`MAX_BLOCK_INSTS`] instructions, or before an instruction that cannot be decoded or
//! lifted. Such an instruction starts the next block, whose exit is [`Exit::Unsupported`]
//! naming it, so everything before it still executes.
//!
//! MODE (the `mode` argument, part of the block-cache key) decides: f32 and f64/f16 denormal
//! flushing of inputs and outputs (FP_DENORM), the rounding direction of f32 and of f64/f16
//! results (FP_ROUND: add, sub, mul, fma/mad/mac, packed f32/f16 math, `v_fma_mix*`, ldexp
//! and the conversions to f32 and f16 round once in that direction through
//! [`LaneFn::Rounded`](crate::ir::LaneFn::Rounded)), whether OMOD applies (not under IEEE or
//! with output denormals), NaN through clamp (DX10_CLAMP), sNaN handling of `v_min*`/`v_max*`/
//! `v_med3` (IEEE), ±MAX instead of ±Inf for overflowing f16 results (FP16_OVFL), VGPR
//! indexing (GPR_IDX_EN) and, on GFX9, whether vector instructions are skipped (VSKIP).
//!
//! Documented approximations: `v_rcp_f32`/`v_rsq_f32`/`v_sqrt_f32` (and f64) are computed in
//! round-to-nearest whatever FP_ROUND says (the ISA bounds them to 1 ULP; sqrt and rcp are
//! correctly rounded, rsq is the rounded reciprocal of the rounded square root: within 1 ULP);
//! transcendental ops (f32 and f16) likewise ignore FP_ROUND; the division helpers
//! (`v_div_scale/fmas/fixup`; `v_div_fmas` rounds its scaled FMA once) and
//! `v_cvt_rpi_i32_f32`'s `+ 0.5` round to nearest; `v_cvt_pk_bf16_f32` uses the f32 FP_ROUND
//! field and does not flush; f16 unary ops other than fract round to nearest; f64 `v_fma_f64` under a directed FP_ROUND is exact except when `|a*b|` is
//! above 2^1000 with a non-zero `c` below 2^-900, where `c` only breaks ties;
//! FP8/BF8 conversions use FNUZ on gfx942 and OCP on gfx950; stochastic rounding to FP8/BF8
//! (`v_cvt_sr_{fp8,bf8}_f32`, `v_cvt_scalef32_sr_*`) adds `S1[31:12]` (BF8 `S1[31:11]`) to the
//! f32 mantissa, wrapping within it, then truncates (CDNA4 ISA ch. 12 pseudocode); the f16/bf16
//! forms add the random operand's low `23 - mantissa bits` bits (an open question, see
//! ARCHITECTURE.md), and OCP NaN results are
//! `sign | 0x7f`; min/max follow the GFX9 pseudocode (IEEE mode from MODE.IEEE).

mod control;
pub mod coverage;
mod ds;
mod fmode;
mod mai;
mod operand;
mod region;
mod salu;
mod smem;
mod valu;
mod vcmp;
mod vmem;
mod vopd;

#[cfg(test)]
mod tests;

use crate::env::CodeSource;
use crate::ir::{Block, Builder, Exit, Op};
use crate::isa::generated::{Sem, SoppSem};
use crate::isa::{Format, Inst, Target};
use crate::wave::InstClass;

pub(crate) use operand::Lifter;

/// Longest block the lifter forms, in wave instructions; a longer straight-line run continues
/// in the next block.
pub const MAX_BLOCK_INSTS: u32 = 512;

/// What follows a lifted instruction.
pub(crate) enum Flow {
    /// Continue with the next instruction of the block.
    Next,
    /// The block ends after this instruction with the given exit.
    End(Exit),
}

/// Result of lifting one instruction: its counter class and what follows, or the reason it
/// cannot be lifted (the text becomes part of [`Exit::Unsupported`]).
pub(crate) type LiftResult = Result<(InstClass, Flow), String>;

/// Outcome of one pass over a block.
enum Pass {
    /// The block is complete.
    Done(Block),
    /// Instruction number `index` (at `pc`) cannot be lifted.
    Failed { index: u32, pc: u64, reason: String },
}

/// Decodes and lifts the basic block starting at `pc`, for a wave whose MODE register is
/// `mode` (translation may depend on the float modes).
///
/// Never fails: an instruction that cannot be decoded or lifted ends the block just before
/// it (exit [`Exit::Jump`] to its address); a block that would start with such an instruction
/// is empty and exits with [`Exit::Unsupported`] naming it.
pub fn lift_block(target: &Target, code: &dyn CodeSource, pc: u64, mode: u32) -> Block {
    lift_block_limited(target, code, pc, mode, MAX_BLOCK_INSTS)
}

/// [`lift_block`] forming blocks of at most `max_insts` (≥ 1) instructions. With 1 every
/// instruction is its own block (profiling, `crate::profile`): no `s_cbranch_execz` region
/// is kept in the branch's block, so the branch runs as written.
pub fn lift_block_limited(
    target: &Target,
    code: &dyn CodeSource,
    pc: u64,
    mode: u32,
    max_insts: u32,
) -> Block {
    match lift_pass(target, code, pc, mode, max_insts.max(1)) {
        Pass::Done(block) => block,
        Pass::Failed {
            index: 0,
            pc: bad_pc,
            reason,
        } => Builder::new(pc, target.wave_size).finish(Exit::Unsupported { pc: bad_pc, reason }),
        // Re-lift only the instructions before the failing one (lifting is deterministic, so
        // this pass succeeds); the failing instruction starts the next block.
        Pass::Failed {
            index,
            pc: bad_pc,
            reason,
        } => match lift_pass(target, code, pc, mode, index) {
            Pass::Done(block) => block,
            Pass::Failed { .. } => {
                Builder::new(pc, target.wave_size).finish(Exit::Unsupported { pc: bad_pc, reason })
            }
        },
    }
}

/// Decodes the instruction at `pc` from `code`.
fn decode_at(target: &Target, code: &dyn CodeSource, pc: u64) -> Result<Inst, String> {
    let Some(bytes) = code.bytes_at(pc) else {
        return Err(format!("pc {pc:#x} is outside the executable code"));
    };
    if bytes.len() < 4 {
        return Err(format!(
            "truncated instruction at {pc:#x}: {} bytes before the end of the code",
            bytes.len()
        ));
    }
    crate::isa::decode(target, bytes, pc).map_err(|e| e.to_string())
}

/// Lifts at most `limit` instructions from `pc`.
fn lift_pass(target: &Target, code: &dyn CodeSource, start: u64, mode: u32, limit: u32) -> Pass {
    lift_from(target, start, mode, limit, &mut |pc| {
        decode_at(target, code, pc)
    })
}

/// The block-forming loop over instructions supplied by `next` (address → instruction).
fn lift_from(
    target: &Target,
    start: u64,
    mode: u32,
    limit: u32,
    next: &mut dyn FnMut(u64) -> Result<Inst, String>,
) -> Pass {
    let mut l = Lifter::new(target, start, mode);
    let mut pc = start;
    let mut index = 0u32;
    // End of the if-converted region being lifted (see `region`).
    let mut region_end = None;
    loop {
        if region_end == Some(pc) {
            region_end = None;
            l.in_region = false;
            l.region_live = None;
        }
        if index == limit {
            return Pass::Done(l.finish(Exit::Jump(pc)));
        }
        let inst = match next(pc) {
            Ok(inst) => inst,
            Err(reason) => return Pass::Failed { index, pc, reason },
        };
        let next_pc = pc.wrapping_add(inst.size.max(4) as u64);
        l.begin(&inst, pc, next_pc);
        match lift_inst(&mut l, &inst) {
            Ok((class, flow)) => {
                if l.in_region {
                    l.b.count_region_inst(next_pc);
                } else {
                    l.b.count_inst(class, next_pc);
                }
                index += 1;
                match flow {
                    Flow::Next => {}
                    // A guarded region that can run under EXEC continues the block.
                    Flow::End(exit @ Exit::Branch { taken, .. })
                        if inst.op.sem() == Sem::Sopp(SoppSem::S_CBRANCH_EXECZ) && !l.in_region =>
                    {
                        match region::scan(target, mode, next_pc, taken, limit - index, next) {
                            Some(r) => {
                                let exec = l.exec();
                                l.effect(Op::CountRegion {
                                    exec,
                                    counts: Box::new(r),
                                });
                                let live = l.ne0(exec);
                                l.in_region = true;
                                l.region_live = Some(live);
                                region_end = Some(taken);
                            }
                            None => return Pass::Done(l.finish(exit)),
                        }
                    }
                    Flow::End(exit) => return Pass::Done(l.finish(exit)),
                }
            }
            Err(why) => {
                let text = crate::isa::disassemble(target, &inst, pc);
                return Pass::Failed {
                    index,
                    pc,
                    reason: format!("{text}: {why}"),
                };
            }
        }
        pc = next_pc;
    }
}

/// Whether instructions of `format` are vector instructions (VALU, matrix, vector memory,
/// LDS), the ones MODE.VSKIP skips.
fn is_vector(format: Format) -> bool {
    matches!(
        format,
        Format::Vop1
            | Format::Vop2
            | Format::Vop3
            | Format::Vop3b
            | Format::Vop3p
            | Format::Vopc
            | Format::Mai
            | Format::Ds
            | Format::Flat
            | Format::Global
            | Format::Scratch
            | Format::Mubuf
            | Format::Mtbuf
    )
}

/// Lifts one instruction: routes its semantic key ([`Sem`]) to the module of its class.
fn lift_inst(l: &mut Lifter, inst: &Inst) -> LiftResult {
    let gfx9 = l.gpu.family() == Some(crate::isa::Family::Gfx9);
    // MODE.VSKIP (GFX9 MODE bit 28, CDNA4 ISA 3.4): "1 = skip (do not execute) any vector
    // instructions: valu, vmem, lds". A skipped instruction only moves the PC; it is counted
    // as program control, not as the work it names.
    if gfx9 && l.mode >> 28 & 1 != 0 && is_vector(inst.format) {
        return Ok((InstClass::Control, Flow::Next));
    }
    let sem = inst.op.sem();
    match sem {
        Sem::Salu(op) => salu::lift(l, inst, op),
        Sem::Sopp(op) => control::lift(l, inst, op),
        Sem::Smem(op) => smem::lift(l, inst, op),
        Sem::Valu(op) => valu::lift(l, inst, op),
        Sem::Vcmp(op) => vcmp::lift(l, inst, op),
        Sem::Mfma(op) => mai::lift(l, inst, op),
        Sem::Wmma(op) => mai::wmma::lift(l, inst, op),
        Sem::Dual(_) => vopd::lift(l, inst),
        Sem::Ds(op) => ds::lift(l, inst, op),
        Sem::Vmem(op) => vmem::lift(l, inst, op),
        Sem::Graphics(_) => Err(format!("{:?} instructions are not supported", inst.format)),
    }
}
