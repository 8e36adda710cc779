//! Ops on the shape of lane vectors and across lanes: lane constants and ids, selects,
//! broadcasts, packs, lane reads and writes, gathers and per-lane functions.

use super::{le, sty, vty, Gen, GenResult, I32X4, JV};
use crate::ir::{Op, Ty};
use crate::jit::codes::*;
use crate::jit::helpers::kind;
use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Value};

impl Gen<'_, '_> {
    /// Lowers a lane-shape or cross-lane op.
    pub(super) fn lane_op(&mut self, op: &Op, ty: Option<Ty>) -> GenResult<JV> {
        Ok(match op {
            Op::LaneConst(c) => {
                self.whole_wave("this op")?;
                let mut chunks = Vec::new();
                for k in 0..self.lanes / 4 {
                    let mut b = [0u8; 16];
                    for j in 0..4 {
                        b[4 * j..4 * j + 4].copy_from_slice(&c[4 * k + j].to_le_bytes());
                    }
                    chunks.push(self.vconst_bytes(I32X4, b));
                }
                JV::V(chunks)
            }
            Op::LaneId if self.group.is_some() => {
                let g = self.group.as_ref().map(|g| g.g).ok_or("group")?;
                let g4 = self.b.ins().ishl_imm_u(g, 2);
                let g4 = self.b.ins().ireduce(types::I32, g4);
                let sp = self.b.ins().splat(I32X4, g4);
                let mut bytes = [0u8; 16];
                for j in 0..4u32 {
                    bytes[4 * j as usize..4 * j as usize + 4].copy_from_slice(&j.to_le_bytes());
                }
                let base = self.vconst_bytes(I32X4, bytes);
                JV::V(vec![self.b.ins().iadd(sp, base)])
            }
            Op::LaneId => {
                let mut chunks = Vec::new();
                for k in 0..(self.lanes / 4) as u32 {
                    let mut b = [0u8; 16];
                    for j in 0..4u32 {
                        b[4 * j as usize..4 * j as usize + 4]
                            .copy_from_slice(&(4 * k + j).to_le_bytes());
                    }
                    chunks.push(self.vconst_bytes(I32X4, b));
                }
                JV::V(chunks)
            }
            Op::Select { cond, a, b } => {
                let t = Self::need(ty)?;
                // The fast copy of a lane-group loop runs only when its early register-write
                // masks have every lane set: selecting on one of them takes `a`.
                let full = self
                    .fast_copy()
                    .is_some_and(|f| f.full_masks.contains(&cond.0));
                if t.is_vector() && full {
                    JV::V(self.v(*a)?)
                } else if t.is_vector() {
                    let lms = self.lane_masks(*cond, t.bits())?;
                    let (x, y) = (self.v(*a)?, self.v(*b)?);
                    let mut out = Vec::new();
                    for k in 0..self.nch(t.bits()) {
                        out.push(self.blend(lms[k], x[k], y[k]));
                    }
                    JV::V(out)
                } else {
                    let c = self.s_as(*cond, types::I32)?;
                    let (x, y) = (self.s(*a)?, self.s(*b)?);
                    JV::S(self.b.ins().select(c, x, y))
                }
            }
            Op::Broadcast(a) => {
                let t = Self::need(ty)?;
                let mut x = self.s_as(*a, sty(t.bits()))?;
                // In the iterated form's loop, a broadcast of a computed scalar is made in
                // each iteration (plus `k >> 63`, a zero Cranelift cannot hoist): hoisted,
                // it is a vector register live across the whole loop nest, which regalloc2
                // spills and reloads (and stores back) in every iteration.
                let constant = matches!(self.block.ops.get(a.0 as usize), Some(Op::Const { .. }));
                if let (Some(z), false) = (self.rows_at_use.1, constant) {
                    let z = if t.bits() == 64 {
                        z
                    } else {
                        self.b.ins().ireduce(types::I32, z)
                    };
                    x = self.b.ins().iadd(x, z);
                }
                let s = self.b.ins().splat(vty(t.bits()), x);
                let s = self.slow_copy(s);
                JV::V(vec![s; self.nch(t.bits())])
            }
            Op::Pack { lo, hi } => {
                let t = Self::need(ty)?;
                if t.is_vector() {
                    let (l, h) = (self.v(*lo)?, self.v(*hi)?);
                    let mut out = Vec::new();
                    for k in 0..l.len().min(h.len()) {
                        let (a, b) = (l[k], h[k]);
                        out.push(self.shuffle32(a, b, [0, 4, 1, 5]));
                        out.push(self.shuffle32(a, b, [2, 6, 3, 7]));
                    }
                    JV::V(out)
                } else {
                    let l = self.s_as(*lo, types::I64)?;
                    let h = self.s_as(*hi, types::I64)?;
                    let l = self.b.ins().band_imm_u(l, 0xFFFF_FFFF);
                    let h = self.b.ins().ishl_imm_u(h, 32);
                    JV::S(self.b.ins().bor(l, h))
                }
            }
            Op::ReadLane { v, lane } => {
                self.whole_wave("this op")?;
                let chunks = self.v(*v)?;
                let idx = self.s_as(*lane, types::I64)?;
                let base = self.spill(0, &chunks);
                let idx = self.b.ins().band_imm_u(idx, self.lanes as i64 - 1);
                let off = self.b.ins().ishl_imm_u(idx, 2);
                let a = self.b.ins().iadd(base, off);
                JV::S(self.b.ins().load(types::I32, MemFlagsData::new(), a, 0))
            }
            Op::WriteLane { v, lane, x } => {
                self.whole_wave("this op")?;
                let chunks = self.v(*v)?;
                let idx = self.s_as(*lane, types::I64)?;
                let xv = self.s_as(*x, types::I32)?;
                let base = self.spill(0, &chunks);
                let idx = self.b.ins().band_imm_u(idx, self.lanes as i64 - 1);
                let off = self.b.ins().ishl_imm_u(idx, 2);
                let a = self.b.ins().iadd(base, off);
                self.b.ins().store(MemFlagsData::new(), xv, a, 0);
                JV::V(self.unspill(0, 32))
            }
            Op::Gather { v, idx } => match self.block.ops.get(idx.0 as usize) {
                Some(Op::LaneConst(map)) => {
                    self.whole_wave("this op")?;
                    let src = self.v(*v)?;
                    JV::V(self.gather_const(&src, map))
                }
                _ => self.vec_helper(kind::GATHER, 0, 32, &[*v, *idx], 32, false)?,
            },
            Op::MaskToLanes(m) => {
                let lms = self.lane_masks(*m, 32)?;
                let one = self.splat_const(32, 1);
                let mut out = Vec::new();
                for lm in lms {
                    out.push(self.b.ins().band(lm, one));
                }
                JV::V(out)
            }
            Op::Lane { f, args }
                if super::round::inlined(f) && ty.is_some_and(|t| t.is_vector()) =>
            {
                self.rounded_inline(f, args)?
            }
            Op::Lane { f, args }
                if super::lanefn::inlined(f) && ty.is_some_and(|t| t.is_vector()) =>
            {
                self.lanefn_inline(f, args)?
            }
            Op::Lane { f, args } => {
                let t = Self::need(ty)?;
                if args.len() > 4 {
                    return Err("lane function with more than 4 arguments".into());
                }
                let code = lanefn_code(f).ok_or("unknown lane function")?;
                self.vec_helper(kind::LANEFN, code, 32, args, t.bits(), false)?
            }
            _ => return Err("not a lane op".into()),
        })
    }

    /// A gather by lane numbers known at compile time (DPP, `ds_swizzle` and the like): each
    /// result chunk is one shuffle of the one or two source chunks its lanes come from, or
    /// lane inserts when they come from more.
    fn gather_const(&mut self, src: &[Value], map: &[u32; 64]) -> Vec<Value> {
        let mask = self.lanes - 1;
        let mut out = Vec::with_capacity(src.len());
        for k in 0..src.len() {
            let lanes: [usize; 4] = core::array::from_fn(|j| map[4 * k + j] as usize & mask);
            let mut chunks: Vec<usize> = lanes.iter().map(|l| l / 4).collect();
            chunks.dedup();
            chunks.sort_unstable();
            chunks.dedup();
            let r = match chunks[..] {
                [q] if lanes == core::array::from_fn(|j| 4 * q + j) => src[q],
                [q] => {
                    let sel = lanes.map(|l| (l % 4) as u8);
                    self.shuffle_i32(src[q], src[q], sel)
                }
                [q, r] => {
                    let sel = lanes.map(|l| (l % 4 + if l / 4 == r { 4 } else { 0 }) as u8);
                    self.shuffle_i32(src[q], src[r], sel)
                }
                _ => {
                    let mut acc = src[lanes[0] / 4];
                    for (j, &l) in lanes.iter().enumerate() {
                        let x = self.b.ins().extractlane(src[l / 4], (l % 4) as u8);
                        acc = self.b.ins().insertlane(acc, x, j as u8);
                    }
                    acc
                }
            };
            out.push(r);
        }
        out
    }

    /// [`Gen::shuffle32`] as an `i32x4` chunk.
    fn shuffle_i32(&mut self, a: Value, b: Value, lanes: [u8; 4]) -> Value {
        let r = self.shuffle32(a, b, lanes);
        self.b.ins().bitcast(I32X4, le(), r)
    }
}
