//! Moves and lane operations: `v_mov`, AGPR moves, `v_readlane`/`v_readfirstlane`/
//! `v_writelane`, `v_swap_b32`, the gfx950 permlane swaps, `v_cndmask_b32`, `v_clrexcp`.

use super::common::*;
use crate::ir::UnOp;
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;

/// Lifts `base` (the mnemonic without `v_`) when it is one of this module's instructions;
/// `Ok(false)` when it is not.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, base: &str) -> R<bool> {
    match base {
        "mov_b32" | "accvgpr_read_b32" | "accvgpr_write_b32" | "accvgpr_mov_b32" => {
            let a = l.src(0, K::B32)?;
            l.vdst32(a)
        }
        "mov_b64" => {
            let a = l.src(0, K::B64)?;
            l.vdst64(a)
        }
        "readfirstlane_b32" => {
            // The first active lane (lane 0 when EXEC is 0).
            let v = l.src(0, K::B32)?;
            let e = l.exec();
            let t = l.un(UnOp::Ctz, e);
            let lane = l.lo(t);
            let r = l.read_lane(v, lane);
            l.set_s32(inst.dst[0], r)
        }
        "readlane_b32" => {
            let v = l.src(0, K::B32)?;
            let lane = l.s32(vop3_src_or(inst, 1), K::B32)?;
            let lane = l.and_imm(lane, (l.wave - 1) as u64);
            let r = l.read_lane(v, lane);
            l.set_s32(inst.dst[0], r)
        }
        "writelane_b32" => {
            // Writes one lane regardless of EXEC.
            let x = l.s32(vop3_src_or(inst, 0), K::B32)?;
            let lane = l.s32(vop3_src_or(inst, 1), K::B32)?;
            let lane = l.and_imm(lane, (l.wave - 1) as u64);
            let reg = inst.dst[0]
                .vreg()
                .ok_or("writelane destination is not a VGPR")?;
            let old = l.get_vreg(reg)?;
            let r = l.write_lane(old, lane, x);
            let all = l.c64(u64::MAX);
            l.set_vreg(reg, r, all)
        }

        "clrexcp" => {
            // Clears the SIMD's float exception state: wavejit records none (TRAPSTS.EXCP is
            // never set), so nothing observable changes.
            Ok(())
        }
        "cndmask_b32" => {
            // D = VCC[lane] ? S1 : S0 (mask from src2); abs/neg act on the bits, no flushing.
            l.no_flush = true;
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let m = l.mask_opnd(inst.src[2])?;
            let r = l.select(m, b, a);
            l.vdst32(r)
        }

        "permlane16_swap_b32" | "permlane32_swap_b32" => super::permlane_swap::lift(l, inst, base),
        "swap_b32" => {
            // Exchanges two VGPRs in the active lanes.
            let d = inst.dst[0]
                .vreg()
                .ok_or("v_swap_b32 destination is not a VGPR")?;
            let s = inst.src[0]
                .vreg()
                .ok_or("v_swap_b32 source is not a VGPR")?;
            let a = l.get_vreg(d)?;
            let b = l.get_vreg(s)?;
            let m = l.exec();
            l.set_vreg(d, b, m)?;
            l.set_vreg(s, a, m)
        }
        _ => return Ok(false),
    }?;
    Ok(true)
}
