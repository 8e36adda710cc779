//! DPP (data-parallel primitives) source permutations: GFX9's DPP16 controls with the
//! row/bank masks and BOUND_CTRL, RDNA's DPP16 (`row_share`, `row_xmask`, the BC/FI table)
//! and DPP8. Each records the write mask it implies in [`Lifter::dpp_wmask`].

use super::{Lifter, R};
use crate::ir::Val;

impl Lifter<'_> {
    /// Applies a DPP16 permutation to `v` (src0) and records the write mask it implies.
    pub(super) fn dpp(&mut self, v: Val, d: crate::isa::Dpp) -> R<Val> {
        if self.gpu.family() != Some(crate::isa::Family::Gfx9) {
            // RDNA controls, FI and the BC/FI table ([`dpp16`]).
            return dpp16(self, v, d);
        }
        let (map, invalid) =
            dpp_map(d.ctrl).ok_or_else(|| format!("reserved DPP control {:#x}", d.ctrl))?;
        let idx = self.lane_const(map);
        let exec = self.exec();
        let mut rowbank = 0u64;
        for l in 0..64u64 {
            let row = l / 16;
            let bank = (l % 16) / 4;
            if d.row_mask >> row & 1 != 0 && d.bank_mask >> bank & 1 != 0 {
                rowbank |= 1 << l;
            }
        }
        // GFX9 has no FI bit: a source lane disabled in EXEC is invalid like an out-of-range
        // one (ISA DPP: "if the source lane is disabled ... use BOUND_CTRL").
        if d.bound_ctrl {
            let rb = self.c64(rowbank);
            let base = self.and(exec, rb);
            self.dpp_wmask = Some(base);
            return Ok(bound_gather(self, v, exec, idx, invalid));
        }
        let ex_lanes = self.mask_to_lanes(exec);
        let src_on = self.gather(ex_lanes, idx);
        let src_ok = self.lanes_to_mask(src_on);
        let static_ok = self.c64(!invalid);
        let ok = self.and(src_ok, static_ok);
        let permuted = self.gather(v, idx);
        let rb = self.c64(rowbank);
        let base = self.and(exec, rb);
        let m = self.and(base, ok);
        self.dpp_wmask = Some(m);
        Ok(permuted)
    }
}

/// The gather of `v` by `idx` in which a lane reads 0 where its source lane is disabled in
/// `exec` or out of range (`invalid`, a mask of result lanes): `v`'s disabled lanes are
/// zeroed before the permutation, so no mask of source lanes has to be permuted.
fn bound_gather(l: &mut Lifter, v: Val, exec: Val, idx: Val, invalid: u64) -> Val {
    let zero = l.cst(v, 0);
    let v_on = l.select(exec, v, zero);
    let permuted = l.gather(v_on, idx);
    if invalid == 0 {
        return permuted;
    }
    let ok = l.c64(!invalid);
    let zero = l.cst(permuted, 0);
    l.select(ok, permuted, zero)
}

/// DPP16 lane mapping of a GFX9 `DPP_CTRL`: for each lane, the source lane, and the mask of
/// lanes whose source is out of range. `None` for reserved controls.
fn dpp_map(ctrl: u16) -> Option<([u32; 64], u64)> {
    let mut idx = [0u32; 64];
    let mut invalid = 0u64;
    for (l, slot) in idx.iter_mut().enumerate() {
        let row = l & !15;
        let r = l & 15;
        let src: Option<usize> = match ctrl {
            0x000..=0x0ff => Some((l & !3) + ((ctrl as usize >> (2 * (l & 3))) & 3)),
            0x101..=0x10f => {
                let n = (ctrl & 15) as usize;
                (r + n < 16).then_some(l + n)
            }
            0x111..=0x11f => {
                let n = (ctrl & 15) as usize;
                (r >= n).then(|| l - n)
            }
            0x121..=0x12f => {
                let n = (ctrl & 15) as usize;
                Some(row + ((r + 16 - n) & 15))
            }
            0x130 => (l < 63).then_some(l + 1),
            0x134 => Some((l + 1) & 63),
            0x138 => (l > 0).then(|| l - 1),
            0x13c => Some((l + 63) & 63),
            0x140 => Some(row + 15 - r),
            0x141 => Some((l & !7) + 7 - (l & 7)),
            // row_bcast:15: the last lane of the previous row (row 0 has no source).
            0x142 => (row > 0).then(|| row - 1),
            // row_bcast:31: lane 31 to the upper half.
            0x143 => (l >= 32).then_some(31),
            // gfx90a+ row_newbcast:n: lane n of each row to the whole row (LLVM
            // AMDGPUModifierSyntax; the same field values and mapping as RDNA's row_share).
            0x150..=0x15f => Some(row + (ctrl & 15) as usize),
            _ => return None,
        };
        match src {
            Some(s) => *slot = s as u32,
            None => {
                *slot = l as u32;
                invalid |= 1 << l;
            }
        }
    }
    Some((idx, invalid))
}

/// DPP16 lane mapping of an RDNA `DPP_CTRL` (RDNA4 ISA 7.9.1): for each lane the source
/// lane, and the mask of lanes whose source is out of range (outside its row of 16).
/// GFX9's wave shifts, rotates and row broadcasts do not exist; `row_share` and
/// `row_xmask` are new. `None` for reserved controls.
fn dpp16_map(ctrl: u16) -> Option<([u32; 64], u64)> {
    let mut idx = [0u32; 64];
    let mut invalid = 0u64;
    for (l, slot) in idx.iter_mut().enumerate() {
        let row = l & !15;
        let r = l & 15;
        let n = (ctrl & 15) as usize;
        let src: Option<usize> = match ctrl {
            0x000..=0x0ff => Some((l & !3) + ((ctrl as usize >> (2 * (l & 3))) & 3)),
            0x101..=0x10f => (r + n < 16).then_some(l + n),
            0x111..=0x11f => (r >= n).then(|| l - n),
            0x121..=0x12f => Some(row + ((r + 16 - n) & 15)),
            0x140 => Some(row + 15 - r),
            0x141 => Some((l & !7) + 7 - (l & 7)),
            0x150..=0x15f => Some(row + n),
            0x160..=0x16f => Some(row + (r ^ n)),
            _ => return None,
        };
        match src {
            Some(s) => *slot = s as u32,
            None => {
                *slot = l as u32;
                invalid |= 1 << l;
            }
        }
    }
    Some((idx, invalid))
}

/// Applies an RDNA DPP16 control to `v` (src0) and records the write mask, following the
/// BC/FI table (RDNA4 ISA 7.9.1, Table 39): with FI = 0 a disabled source lane is invalid
/// like an out-of-range one; an invalid source disables the write (BC = 0) or reads 0
/// (BC = 1); with FI = 1 an out-of-range source reads 0 (BC = 0) or its own lane (BC = 1).
fn dpp16(l: &mut Lifter, v: Val, d: crate::isa::Dpp) -> R<Val> {
    let (map, out_of_range) = dpp16_map(d.ctrl).ok_or_else(|| {
        let target = crate::isa::Target {
            gpu: l.gpu,
            wave_size: l.wave,
        };
        // The GFX9 controls the decoder accepts as LLVM does (generated notes, e.g.
        // `wave_shl is not supported starting from GFX10`) have no RDNA meaning.
        match crate::isa::rdna::dpp_note(crate::isa::rdna::tables(&target), d.ctrl) {
            Some(note) => format!("DPP control {:#x} is not an RDNA control ({note})", d.ctrl),
            None => format!("reserved DPP control {:#x}", d.ctrl),
        }
    })?;
    let idx = l.lane_const(map);
    let exec = l.exec();
    let mut rowbank = 0u64;
    for lane in 0..64u64 {
        let row = lane / 16;
        let bank = (lane % 16) / 4;
        if d.row_mask >> row & 1 != 0 && d.bank_mask >> bank & 1 != 0 {
            rowbank |= 1 << lane;
        }
    }
    let rb = l.c64(rowbank);
    let base = l.and(exec, rb);
    if d.bound_ctrl && !d.fi {
        l.dpp_wmask = Some(base);
        return Ok(bound_gather(l, v, exec, idx, out_of_range));
    }
    let permuted = l.gather(v, idx);
    let in_range = l.c64(!out_of_range);
    if d.fi {
        l.dpp_wmask = Some(base);
        if d.bound_ctrl {
            return Ok(permuted);
        }
        let zero = l.cst(permuted, 0);
        return Ok(l.select(in_range, permuted, zero));
    }
    let on = l.mask_to_lanes(exec);
    let src_on = l.gather(on, idx);
    let src_on = l.lanes_to_mask(src_on);
    let ok = l.and(src_on, in_range);
    let m = l.and(base, ok);
    l.dpp_wmask = Some(m);
    Ok(permuted)
}

/// Applies DPP8 lane selects to `v` (src0): lane `l` reads lane `(l & !7) + sel[l & 7]`;
/// a disabled source lane reads 0 unless FI (DPP8FI, `mods.op_sel_hi` bit 7) (RDNA4 ISA
/// 7.9.2). Writes follow EXEC.
pub(in crate::lift) fn dpp8(l: &mut Lifter, v: Val, sel: [u8; 8]) -> R<Val> {
    let fi = l.inst()?.mods.op_sel_hi & 0x80 != 0;
    let idx = l.lanes(|i| (i & !7) + (sel[(i & 7) as usize] & 7) as u32);
    if fi {
        return Ok(l.gather(v, idx));
    }
    let exec = l.exec();
    Ok(bound_gather(l, v, exec, idx, 0))
}
