//! Moves and lane operations: `v_mov`, AGPR moves, `v_readlane`/`v_readfirstlane`/
//! `v_writelane`, `v_swap_b32`, the gfx950 permlane swaps, `v_cndmask_b32`, `v_clrexcp`.

use super::common::*;
use crate::ir::{BinOp, CmpOp, ConvOp, Ty, UnOp, Val};
use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::{K, R};
use crate::lift::Lifter;

/// Lifts `op`, one of this module's operations ([`super::kind`]).
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    match op {
        V_MOV_B32 | V_ACCVGPR_READ_B32 | V_ACCVGPR_WRITE_B32 | V_ACCVGPR_MOV_B32 => {
            let a = l.src(0, K::B32)?;
            l.vdst32(a)
        }
        V_MOV_B64 => {
            let a = l.src(0, K::B64)?;
            l.vdst64(a)
        }
        V_READFIRSTLANE_B32 => {
            // The first active lane (lane 0 when EXEC is 0).
            let v = l.src(0, K::B32)?;
            let e = l.exec();
            let t = l.un(UnOp::Ctz, e);
            let lane = l.lo(t);
            let r = l.read_lane(v, lane);
            l.set_s32(inst.dst[0], r)
        }
        V_READLANE_B32 => {
            let v = l.src(0, K::B32)?;
            let lane = l.s32(vop3_src_or(inst, 1), K::B32)?;
            let lane = l.and_imm(lane, (l.wave - 1) as u64);
            let r = l.read_lane(v, lane);
            l.set_s32(inst.dst[0], r)
        }
        V_WRITELANE_B32 => {
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

        V_CLREXCP => {
            // Clears the SIMD's float exception state: wavejit records none (TRAPSTS.EXCP is
            // never set), so nothing observable changes.
            Ok(())
        }
        V_CNDMASK_B32 => {
            // D = VCC[lane] ? S1 : S0 (mask from src2); abs/neg act on the bits, no flushing.
            l.no_flush = true;
            let a = l.src(0, K::F32)?;
            let b = l.src(1, K::F32)?;
            let m = l.mask_opnd(inst.src[2])?;
            let r = l.select(m, b, a);
            l.vdst32(r)
        }

        V_PERMLANE16_SWAP_B32 | V_PERMLANE32_SWAP_B32 => super::permlane_swap::lift(l, inst, op),
        V_SWAP_B32 => {
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
        _ => Err("not supported".into()),
    }
}

/// `v_permlane16_b32`, `v_permlanex16_b32` (lane selects from `{S2, S1}`, four bits per lane
/// of a row) and the gfx12 `_var` forms (the select in bits [3:0] of a VGPR): lane
/// `row * 16 + i` reads lane `sel(i)` of its own row (`x16`: of the other row of its pair).
/// `op_sel[0]` is FI (read disabled lanes), `op_sel[1]` BOUND_CTRL (a disabled source lane
/// writes 0 instead of nothing) (RDNA4 ISA, V_PERMLANE16_B32).
pub(in crate::lift) fn permlane16(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.abs != 0 || inst.mods.neg != 0 || inst.mods.omod != 0 || inst.mods.clamp {
        return Err("source or output modifiers on a lane permute".into());
    }
    l.count_vector();
    let v = l.src(0, K::B32)?;
    let sel = if matches!(op, V_PERMLANE16_VAR_B32 | V_PERMLANEX16_VAR_B32) {
        let s = l.src(1, K::B32)?;
        l.and_imm(s, 15)
    } else {
        let s1 = l.s32(inst.src[1], K::B32)?;
        let s2 = l.s32(inst.src[2], K::B32)?;
        let both = l.pack(s1, s2);
        let both = l.bcast(both);
        let shift = l.lanes(|i| 4 * (i % 16));
        let shift = l.conv(ConvOp::ZExt, shift);
        let s = l.bin(BinOp::LShr, both, shift);
        let s = l.conv(ConvOp::Lo, s);
        l.and_imm(s, 15)
    };
    let cross = matches!(op, V_PERMLANEX16_B32 | V_PERMLANEX16_VAR_B32);
    // The first lane of the row read: its own row, or the other row of its pair.
    let row = l.lanes(|i| if cross { (i & !15) ^ 16 } else { i & !15 });
    let idx = l.add(row, sel);
    let exec = l.exec();
    let permuted = l.gather(v, idx);
    let fi = inst.mods.op_sel & 1 != 0;
    let bound_ctrl = inst.mods.op_sel & 2 != 0;
    let ok = if fi {
        l.c64(!0)
    } else {
        let on = l.mask_to_lanes(exec);
        let src_on = l.gather(on, idx);
        l.lanes_to_mask(src_on)
    };
    let reg = inst.dst[0]
        .vreg()
        .ok_or("permute destination is not a VGPR")?;
    if bound_ctrl {
        let zero = l.cst(permuted, 0);
        let r = l.select(ok, permuted, zero);
        l.set_vreg(reg, r, exec)
    } else {
        let m = l.and(exec, ok);
        l.set_vreg(reg, permuted, m)
    }
}

/// `v_permlane64_b32`: wave64 lanes read the other half (`lane ^ 32`), disabled source lanes
/// included; a no-op in wave32 (RDNA4 ISA, V_PERMLANE64_B32).
pub(in crate::lift) fn permlane64(l: &mut Lifter, inst: &Inst) -> R<()> {
    if l.wave == 32 {
        return Ok(());
    }
    l.count_vector();
    let v = l.src(0, K::B32)?;
    let idx = l.lanes(|i| i ^ 32);
    let r = l.gather(v, idx);
    let reg = inst.dst[0]
        .vreg()
        .ok_or("permute destination is not a VGPR")?;
    let exec = l.exec();
    l.set_vreg(reg, r, exec)
}

/// `v_movrels_b32` (`D = VGPR[src + M0]`), `v_movreld_b32` (`VGPR[dst + M0] = S0`),
/// `v_movrelsd_b32` (both indexed by M0) and `v_movrelsd_2_b32` (source by M0[9:0],
/// destination by M0[25:16]) (RDNA4 ISA, V_MOVRELS_B32). Out of range (index > 255 or
/// register + index past v255, ISA 3.3.2.2): a source reads v0, a destination makes the
/// instruction a no-op.
pub(in crate::lift) fn movrel(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    if inst.mods.abs != 0 || inst.mods.neg != 0 || inst.mods.omod != 0 || inst.mods.clamp {
        return Err("modifiers on a relative move".into());
    }
    l.count_vector();
    let m0 = l.get_sreg(crate::wave::sreg::M0);
    let (sidx, didx) = if op == V_MOVRELSD_2_B32 || op == V_SWAPREL_B32 {
        let s = l.and_imm(m0, 0x3ff);
        let d = l.lshr_imm(m0, 16);
        let d = l.and_imm(d, 0x3ff);
        (s, d)
    } else {
        (m0, m0)
    };
    // Register + index, and whether it is in range (index <= 255, sum <= 255).
    let rel = |l: &mut Lifter, reg: u16, idx: Val| {
        let max_idx = l.c32(255);
        let idx_ok = l.cmp(CmpOp::ULe, idx, max_idx);
        let limit = l.c32(255 - reg as u32);
        let sum_ok = l.cmp(CmpOp::ULe, idx, limit);
        let ok = l.and(idx_ok, sum_ok);
        let r = l.add_imm(idx, reg as u64);
        let zero = l.c32(0);
        (l.select(ok, r, zero), ok)
    };
    if op == V_SWAPREL_B32 {
        // VGPR[dst + M0[25:16]] <-> VGPR[src + M0[9:0]]; either out of range: no effect.
        let d = inst.dst[0].vreg().filter(|&r| r < 256);
        let s0 = inst.src[0].vreg().filter(|&r| r < 256);
        let (Some(d), Some(s0)) = (d, s0) else {
            return Err("relative swap operands are not VGPRs".into());
        };
        let (di, dok) = rel(l, d, didx);
        let (si, sok) = rel(l, s0, sidx);
        let ok = l.and(dok, sok);
        let dv = l.push_op(crate::ir::Op::GetVgprDyn { base: 0, index: di }, Ty::V32);
        let sv = l.push_op(crate::ir::Op::GetVgprDyn { base: 0, index: si }, Ty::V32);
        let exec = l.exec();
        let none = l.c64(0);
        let mask = l.select(ok, exec, none);
        l.effect(crate::ir::Op::SetVgprDyn {
            base: 0,
            index: di,
            val: sv,
            mask,
        });
        l.effect(crate::ir::Op::SetVgprDyn {
            base: 0,
            index: si,
            val: dv,
            mask,
        });
        return Ok(());
    }
    let src_rel = op != V_MOVRELD_B32;
    let dst_rel = op != V_MOVRELS_B32;
    let v = if src_rel {
        let reg = inst.src[0]
            .vreg()
            .ok_or("relative move source is not a VGPR")?;
        if reg >= 256 {
            return Err("relative move source is not a VGPR".into());
        }
        let (index, _) = rel(l, reg, sidx);
        l.push_op(crate::ir::Op::GetVgprDyn { base: 0, index }, Ty::V32)
    } else {
        l.src(0, K::B32)?
    };
    let exec = l.exec();
    if dst_rel {
        let reg = inst.dst[0]
            .vreg()
            .ok_or("relative move destination is not a VGPR")?;
        if reg >= 256 {
            return Err("relative move destination is not a VGPR".into());
        }
        let (index, ok) = rel(l, reg, didx);
        let none = l.c64(0);
        let mask = l.select(ok, exec, none);
        l.effect(crate::ir::Op::SetVgprDyn {
            base: 0,
            index,
            val: v,
            mask,
        });
        Ok(())
    } else {
        l.vdst32(v)
    }
}

/// `v_cndmask_b16`: `D.u16 = VCC[lane] ? S1.u16 : S0.u16` (the mask is `src[2]`); float
/// modifiers apply as to f16 values.
pub(in crate::lift) fn cndmask16(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    l.no_flush = true;
    let a = l.src(0, K::F16)?;
    let b = l.src(1, K::F16)?;
    let m = l.mask_opnd(inst.src[2])?;
    let r = l.select(m, b, a);
    write16(l, inst, r)
}

/// `v_swap_b16`: exchanges the 16-bit halves named by the destination and `src0`.
pub(in crate::lift) fn swap16(l: &mut Lifter, inst: &Inst) -> R<()> {
    l.count_vector();
    let d = inst.dst[0].vreg().ok_or("swap destination is not a VGPR")?;
    let s = inst.src[0].vreg().ok_or("swap source is not a VGPR")?;
    let (dhi, shi) = (inst.mods.op_sel & 8 != 0, inst.mods.op_sel & 1 != 0);
    let dv = l.get_vreg(d)?;
    let sv = l.get_vreg(s)?;
    let half = |l: &mut Lifter, v: Val, hi: bool| {
        if hi {
            l.lshr_imm(v, 16)
        } else {
            l.and_imm(v, 0xffff)
        }
    };
    let dval = half(l, dv, dhi);
    let sval = half(l, sv, shi);
    let put = insert16;
    let exec = l.exec();
    if d == s {
        // Both halves of one register (or a no-op when they are the same half).
        let t = put(l, dv, sval, dhi);
        let t = put(l, t, dval, shi);
        return l.set_vreg(d, t, exec);
    }
    let nd = put(l, dv, sval, dhi);
    let ns = put(l, sv, dval, shi);
    l.set_vreg(d, nd, exec)?;
    l.set_vreg(s, ns, exec)
}
