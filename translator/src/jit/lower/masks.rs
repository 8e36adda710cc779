//! Lane masks: a scalar lane mask expanded to all-ones/zero lane vectors (per chunk, from a
//! static table) and back to mask bits, cached per mask value; in a lane group also the masks
//! of the group's compares and of the uniform ops derived from them.

use super::{le, trusted, vty, Gen, GenResult, I32X4};
use crate::ir::{BinOp, Op, Ty, Val};
use cranelift_codegen::ir::{types, InstBuilder, Value};

/// All-ones/zero lane vectors by mask bits: `m32[i]` has 32-bit lane `j` set when bit `j`
/// of `i` is, `m64[i]` the same for 64-bit lanes ([`Gen::lane_mask`]).
#[repr(C, align(16))]
pub(super) struct LaneMaskTable {
    pub m32: [[u32; 4]; 16],
    pub m64: [[u64; 2]; 4],
}

pub(super) static LANE_MASKS: LaneMaskTable = LaneMaskTable {
    m32: {
        let mut t = [[0u32; 4]; 16];
        let mut i = 0;
        while i < 16 {
            let mut j = 0;
            while j < 4 {
                if i >> j & 1 == 1 {
                    t[i][j] = u32::MAX;
                }
                j += 1;
            }
            i += 1;
        }
        t
    },
    m64: [[0, 0], [u64::MAX, 0], [0, u64::MAX], [u64::MAX, u64::MAX]],
};

impl Gen<'_, '_> {
    /// 4 or 2 lanes of the `mask` bits for chunk `k` as an all-ones/zero lane vector: the
    /// chunk's 4 (2) mask bits index [`LANE_MASKS`] (a shift, an AND and one load per chunk,
    /// in lane groups too).
    pub(super) fn lane_mask(&mut self, mask: Value, k: usize, bits: u32) -> Value {
        let per = if bits == 32 { 4 } else { 2 };
        let sh = match self.group.as_ref().map(|g| g.g) {
            // Lanes 4g + per*k ..: shift by 4g + per*k.
            Some(g) => {
                let g4 = self.b.ins().ishl_imm_u(g, 2);
                let amt = self.b.ins().iadd_imm_s(g4, (k * per) as i64);
                self.b.ins().ushr(mask, amt)
            }
            None => self.b.ins().ushr_imm_u(mask, (k * per) as i64),
        };
        let idx = self.b.ins().band_imm_u(sh, (1i64 << per) - 1);
        let off = self.b.ins().ishl_imm_u(idx, 4);
        let table = if bits == 32 {
            LANE_MASKS.m32.as_ptr() as u64
        } else {
            LANE_MASKS.m64.as_ptr() as u64
        };
        let base = self.iconst(types::I64, table);
        let at = self.b.ins().iadd(base, off);
        // A static table: never written, always mapped.
        self.b
            .ins()
            .load(vty(bits), trusted().with_readonly().with_can_move(), at, 0)
    }

    /// The lane bits of an all-ones/zero lane vector chunk `k`, placed in an `i64` mask.
    pub(super) fn mask_bits(&mut self, m: Value, k: usize, bits: u32) -> Value {
        let hb = self.b.ins().vhigh_bits(types::I64, m);
        let per = if bits == 32 { 4 } else { 2 };
        match self.group.as_ref().map(|g| g.g) {
            Some(g) => {
                let g4 = self.b.ins().ishl_imm_u(g, 2);
                let amt = self.b.ins().iadd_imm_s(g4, (k * per) as i64);
                self.b.ins().ishl(hb, amt)
            }
            None => self.b.ins().ishl_imm_u(hb, (k * per) as i64),
        }
    }

    /// All lane-mask chunks of the mask value `m` (cached per value and lane width).
    pub(super) fn lane_masks(&mut self, m: Val, bits: u32) -> GenResult<Vec<Value>> {
        if let Some(c) = self.mask_cache.get(&(m.0, bits)) {
            return Ok(c.clone());
        }
        let group_cmp = self
            .group
            .as_ref()
            .and_then(|g| g.cmp_masks.get(&m.0).cloned());
        if let Some((c, cbits)) = group_cmp {
            // A compare of this lane group: its lane masks, converted to `bits` lanes.
            let v = match (cbits, bits) {
                (a, b) if a == b => c,
                (32, _) => vec![
                    self.b.ins().swiden_low(c[0]),
                    self.b.ins().swiden_high(c[0]),
                ],
                _ => {
                    let r = self.shuffle32(c[0], c[1], [0, 2, 4, 6]);
                    vec![self.b.ins().bitcast(I32X4, le(), r)]
                }
            };
            self.mask_cache.insert((m.0, bits), v.clone());
            return Ok(v);
        }
        let derived = self
            .group
            .as_ref()
            .is_some_and(|g| g.derived.contains(&m.0));
        let v = if derived {
            self.derived_masks(m, bits)?
        } else {
            let mv = self.s_as(m, types::I64)?;
            (0..self.nch(bits))
                .map(|k| self.lane_mask(mv, k, bits))
                .collect()
        };
        self.mask_cache.insert((m.0, bits), v.clone());
        Ok(v)
    }

    /// In a lane group, the lane masks of a uniform op on the run's compare masks whose value
    /// exists only after the loop ([`crate::jit::analysis::runs::group_mask_op`]), from its operands' lane masks.
    pub(super) fn derived_masks(&mut self, m: Val, bits: u32) -> GenResult<Vec<Value>> {
        let op = self
            .block
            .ops
            .get(m.0 as usize)
            .ok_or("mask operand")?
            .clone();
        let mut v: Vec<Value> = match op {
            Op::Bin(o, a, b) => {
                let (x, y) = (self.lane_masks(a, bits)?, self.lane_masks(b, bits)?);
                x.iter()
                    .zip(&y)
                    .map(|(&x, &y)| match o {
                        BinOp::And => self.b.ins().band(x, y),
                        BinOp::Or => self.b.ins().bor(x, y),
                        _ => self.b.ins().bxor(x, y),
                    })
                    .collect()
            }
            Op::Un(_, a) => {
                let x = self.lane_masks(a, bits)?;
                x.iter().map(|&x| self.b.ins().bnot(x)).collect()
            }
            // The zero extension of a 32-lane mask and the low 32 lanes of a mask: the same
            // lanes (lanes 32..63 of a 32-bit result cleared below).
            Op::Conv(_, a) => self.lane_masks(a, bits)?,
            _ => return Err("mask operand not lane-wise".into()),
        };
        // A 32-bit mask has no lanes 32..63 (a mask operand is zero-extended, `lane_masks`):
        // in wave64 groups 8..15 its lanes are cleared.
        if self.lanes == 64 && self.ty(m)? == Ty::S32 {
            let low = self.iconst(types::I64, 0xFFFF_FFFF);
            v = (0..v.len())
                .map(|k| {
                    let lm = self.lane_mask(low, k, bits);
                    self.b.ins().band(v[k], lm)
                })
                .collect();
        }
        Ok(v)
    }
}
