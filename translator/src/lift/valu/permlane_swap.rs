//! gfx950 `v_permlane16_swap_b32` / `v_permlane32_swap_b32`: exchange lanes between the two
//! VGPR operands, both of which are read and written.
//!
//! LLVM (AMDGPUUsage, `llvm.amdgcn.permlane{16,32}.swap`): permlane16 swaps the odd rows of
//! the first operand (VDST) with the even rows of the second (SRC0); permlane32 swaps rows 2
//! and 3 of VDST with rows 0 and 1 of SRC0 (a row is 16 lanes). So VDST lane `a` (odd row /
//! upper half) pairs with SRC0 lane `a ^ 16` (resp. `a ^ 32`).
//!
//! EXEC, `fi` and `bound_ctrl` (the VOP3 form's op_sel bits 0 and 1, as LLVM encodes them)
//! follow the DPP convention: a lane is written only when it is active in EXEC; its partner
//! lane's value is used when the partner is active or `fi` is set, otherwise the lane gets 0
//! under `bound_ctrl` and is left unchanged without it.

use crate::isa::generated::ValuSem::{self, *};
use crate::isa::Inst;
use crate::lift::operand::R;
use crate::lift::Lifter;

/// Lanes of rows 1 and 3 (the VDST side of permlane16).
const ODD_ROWS: u64 = 0xFFFF_0000_FFFF_0000;
/// Lanes 32..63 (the VDST side of permlane32).
const HIGH_HALF: u64 = 0xFFFF_FFFF_0000_0000;

/// Lifts `v_permlane16_swap_b32` (`op` says which) or `v_permlane32_swap_b32`.
pub(super) fn lift(l: &mut Lifter, inst: &Inst, op: ValuSem) -> R<()> {
    let (dist, dst_side) = match op {
        V_PERMLANE16_SWAP_B32 => (16u32, ODD_ROWS),
        V_PERMLANE32_SWAP_B32 => (32u32, HIGH_HALF),
        _ => return Err(format!("{} is not a lane swap", op.name())),
    };
    let m = &inst.mods;
    if m.abs != 0 || m.neg != 0 || m.clamp || m.omod != 0 || m.op_sel & !3 != 0 {
        return Err(format!("{}: unsupported modifiers", op.name()));
    }
    if inst.dpp.is_some() || inst.sdwa.is_some() || inst.dpp8.is_some() {
        return Err(format!("{}: DPP/SDWA forms do not exist", op.name()));
    }
    let fi = m.op_sel & 1 != 0;
    let bound_ctrl = m.op_sel & 2 != 0;
    let d = inst.dst[0]
        .vreg()
        .ok_or_else(|| format!("{} destination is not a VGPR", op.name()))?;
    let s = inst.src[0]
        .vreg()
        .ok_or_else(|| format!("{} source is not a VGPR", op.name()))?;

    let mut partner = [0u32; 64];
    for (lane, p) in partner.iter_mut().enumerate() {
        *p = lane as u32 ^ dist;
    }
    let idx = l.lane_const(partner);
    let old_d = l.get_vreg(d)?;
    let old_s = l.get_vreg(s)?;
    let new_d = l.gather(old_s, idx);
    let new_s = l.gather(old_d, idx);
    let exec = l.exec();
    // Lanes whose partner's value may be read.
    let ok = if fi {
        l.c64(u64::MAX)
    } else {
        let ex_lanes = l.mask_to_lanes(exec);
        let on = l.gather(ex_lanes, idx);
        l.lanes_to_mask(on)
    };
    let (new_d, new_s, wm) = if bound_ctrl {
        let zd = l.cst(new_d, 0);
        let zs = l.cst(new_s, 0);
        let nd = l.select(ok, new_d, zd);
        let ns = l.select(ok, new_s, zs);
        (nd, ns, exec)
    } else {
        let wm = l.and(exec, ok);
        (new_d, new_s, wm)
    };
    let dm = l.c64(dst_side);
    let sm = l.c64(!dst_side);
    let dmask = l.and(wm, dm);
    let smask = l.and(wm, sm);
    // The two write sets are disjoint lanes, so VDST = SRC0 (one register) is a row swap.
    l.set_vreg(d, new_d, dmask)?;
    l.set_vreg(s, new_s, smask)
}
