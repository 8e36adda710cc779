//! Executes one MFMA/SMFMAC on a wave's unified VGPR/AGPR file.
//!
//! Steps: gather A, B and C from the registers into logical row-major matrices (decoding
//! the element formats exactly, applying CBSZ/ABID/BLGP and expanding sparse A), run the
//! host GEMM, then round, clamp and scatter D. All of C, A and B are read before D is
//! written, so overlapping operands behave as on hardware (reads before writes).
//!
//! Numerics (CDNA4 ISA 7.1–7.5, `notes/cdna.md` §5.3, §5.5, §5.7):
//! * f32 accumulation: each output starts at C and takes one fused multiply-add per k in
//!   ascending order, rounded to nearest even. Products of inputs narrower than f32 are
//!   exact, so each step rounds once; the result differs from the exactly rounded dot
//!   product by at most K rounding errors (|err| ≤ K·2⁻²⁴·Σ|c|+|aₖbₖ| ), and it is exact
//!   when every partial sum is an integer below 2²⁴.
//! * Block-scaled forms: per 32-wide K block the partial sum is computed as above from 0,
//!   then `acc = round_f32(acc + partial·2^(sa−127)·2^(sb−127))` (one rounding, f64
//!   intermediate); a scale byte of 0xFF is NaN. With `ABID[0]` = 0 the scales are 1.0.
//! * i32 accumulation: exact products of the sign-extended i8 values, the sum wraps modulo
//!   2³², or saturates when MODE.FP16_OVFL is set.
//! * f64: fused multiply-adds in ascending k, denormals kept; BLGP bits 0/1/2 negate A/B/C.
//! * MODE: `V_MFMA_F32_*_F32` flushes denormal A/B inputs when MODE's f32 "allow input
//!   denormals" bit is clear; other inputs, C and D never flush. With MODE.FP16_OVFL an f32
//!   result that overflowed (all of its inputs finite) becomes ±MAX.
//! * A NaN result is the canonical quiet NaN 0x7FC00000 (f64: 0x7FF8000000000000), so the
//!   result does not depend on which host kernel ran.

use super::formats::Elem;
use super::gemm::{best_isa, gemm_f32, gemm_f64, GemmF32, Isa};
use super::layout::{a_loc, a_source_block, b_loc, blgp_lane, cd_loc};
use super::shape::{Acc, Kind, MatrixOp};
use std::cell::RefCell;
use std::sync::OnceLock;
use thiserror::Error;

/// MODE bit 23: FP16_OVFL, also the MFMA overflow clamp control.
pub const MODE_FP16_OVFL: u32 = 1 << 23;
/// MODE bit 4: f32 "allow input denormals".
pub const MODE_F32_DENORM_IN: u32 = 1 << 4;

/// The C operand: registers, or an inline constant used for every element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CSrc {
    /// First register of C (VGPR/AGPR file index: 0..256 VGPRs, 256.. AGPRs).
    Reg(u16),
    /// The constant's bits (f32 or i32 in the low 32 bits; f64 all 64).
    Imm(u64),
}

/// Register operands of one matrix instruction (register-file indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operands {
    /// First register of D.
    pub d: u16,
    /// First register of A.
    pub a: u16,
    /// First register of B.
    pub b: u16,
    /// C (SMFMAC: ignored, C is D).
    pub c: CSrc,
    /// SMFMAC: the index VGPR.
    pub index: u16,
}

/// Instruction controls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Controls {
    /// CBSZ (F8F6F4: A's format code).
    pub cbsz: u8,
    /// ABID.
    pub abid: u8,
    /// BLGP (F8F6F4: B's format code; f64: negate A/B/C).
    pub blgp: u8,
    /// The wave's MODE register.
    pub mode: u32,
}

/// E8M0 scale bytes of a block-scaled MFMA, per lane, already byte-selected by OP_SEL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scales {
    /// A's scales: lane `i + M·kb` scales row i of K block kb.
    pub a: [u8; 64],
    /// B's scales: lane `j + N·kb` scales column j of K block kb.
    pub b: [u8; 64],
}

/// An operand of a [`Plan`], for [`Plan::slots`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    /// Dense A.
    A,
    /// The stored elements of a sparse A.
    SparseA,
    /// The 2-bit index of each stored sparse A element.
    SparseIndex,
    /// B.
    B,
    /// C (empty for a constant C).
    C,
    /// D.
    D,
}

/// Why a matrix instruction cannot execute.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MatrixError {
    /// An operand's registers run past the register file.
    #[error("matrix operand registers out of range")]
    RegisterRange,
    /// CBSZ/ABID/BLGP values the ISA calls illegal for this opcode.
    #[error("illegal matrix controls cbsz:{cbsz} abid:{abid} blgp:{blgp}")]
    IllegalControls {
        /// CBSZ.
        cbsz: u8,
        /// ABID.
        abid: u8,
        /// BLGP.
        blgp: u8,
    },
    /// Semantics not implemented, with the reason.
    #[error("{0}")]
    Unsupported(&'static str),
}

/// Executes `op` on the register file `regs` (VGPRs then AGPRs, `[register][lane]`).
pub fn execute(
    op: &MatrixOp,
    opnds: &Operands,
    ctl: &Controls,
    scales: Option<&Scales>,
    regs: &mut [[u32; 64]],
) -> Result<(), MatrixError> {
    execute_with(best_isa(), op, opnds, ctl, scales, regs)
}

/// [`execute`] with a chosen GEMM kernel variant (for tests and benchmarks).
pub fn execute_with(
    isa: Isa,
    op: &MatrixOp,
    opnds: &Operands,
    ctl: &Controls,
    scales: Option<&Scales>,
    regs: &mut [[u32; 64]],
) -> Result<(), MatrixError> {
    Plan::new(op, opnds, ctl, regs.len())?.run(isa, regs, ctl.mode, scales)
}

/// Where one element lives: register-file slot, lane, and bit offset in the register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Slot {
    pub(super) reg: u16,
    pub(super) lane: u8,
    pub(super) shift: u8,
}

/// A stored element of a sparse A: its slot, the slot of its 2-bit index, and the dense
/// index of its group's first column (`i·K + 4q`), and the index value that drops it
/// (RDNA: idx0 = 3 and idx1 = 0 place nothing, RDNA4 ISA 7.12.3; 4 = never).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SparseSlot {
    pub(super) val: Slot,
    pub(super) idx: Slot,
    pub(super) base: u32,
    pub(super) never: u8,
}

/// One matrix instruction with every element's register location precomputed (CDNA4 ISA
/// 7.1.4–7.1.6, 7.5 through [`super::layout`]), so executing it is table-driven gathers,
/// the host GEMM and a scatter. Built once per instruction and owned by [`super::plans`].
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub(super) op: MatrixOp,
    pub(super) ea: Elem,
    pub(super) eb: Elem,
    /// Dense A in `(b·M + i)·K + k` order, broadcast (CBSZ/ABID) applied.
    pub(super) a: Vec<Slot>,
    /// Sparse A: the stored elements (applied in order; a later one wins a collision).
    pub(super) a_sparse: Vec<SparseSlot>,
    /// B in `(b·K + k)·N + j` order, BLGP applied.
    pub(super) b: Vec<Slot>,
    /// C (empty for a constant C) and D in `(b·M + i)·N + j` order. 16-bit accumulators
    /// (`MatrixOp::d16`) use the 16 bits at the slot's shift.
    pub(super) c: Vec<Slot>,
    pub(super) d: Vec<Slot>,
    /// A constant C.
    pub(super) c_imm: Option<u64>,
    /// f64: BLGP bits 0/1/2 negate A/B/C.
    pub(super) neg: u8,
    /// Block-scaled with ABID[0] = 1 (with ABID[0] = 0 the scales are 1.0, CDNA4 ISA
    /// L3114–3116).
    pub(super) scaled: bool,
    /// RDNA 16-bit inputs: per operand (A, B), bit 0 negates the elements in bits 15:0 of
    /// their register (NEG), bit 1 those in bits 31:16 (NEG_HI) (RDNA4 ISA 7.12, L3224–3236).
    pub(super) neg_ab: [u8; 2],
    /// RDNA float C modifiers: bit 0 negate (NEG[2]), bit 1 absolute value first (NEG_HI[2]).
    pub(super) c_mods: u8,
    /// Integer saturation fixed by the instruction (RDNA CLAMP); `None`: MODE.FP16_OVFL.
    pub(super) sat: Option<bool>,
    /// Whether MODE.FP16_OVFL clamps f32 overflows (MFMA yes, WMMA no).
    pub(super) ovfl_clamp: bool,
    /// The run-based fast path (`super::kernels`): f32-accumulating forms and i8 ones.
    pub(super) fast: Option<super::kernels::FastF32>,
    /// The run-based fast path of the f64 forms (`super::kernels::FastF64`).
    pub(super) fast64: Option<super::kernels::FastF64>,
}

impl Plan {
    /// Checks operands and controls against a register file of `nregs` registers and
    /// computes every element's location.
    pub fn new(
        op: &MatrixOp,
        opnds: &Operands,
        ctl: &Controls,
        nregs: usize,
    ) -> Result<Plan, MatrixError> {
        let illegal = MatrixError::IllegalControls {
            cbsz: ctl.cbsz,
            abid: ctl.abid,
            blgp: ctl.blgp,
        };
        let (ea, eb) = match op.kind {
            Kind::F8f6f4 | Kind::ScaledF8f6f4 => (
                Elem::from_f8f6f4_code(ctl.cbsz).ok_or(illegal.clone())?,
                Elem::from_f8f6f4_code(ctl.blgp).ok_or(illegal.clone())?,
            ),
            _ => (op.a, op.b),
        };
        let fits = |base: u16, n: usize| base as usize + n <= nregs;
        let c_ok = match opnds.c {
            CSrc::Reg(r) => fits(r, op.cd_regs()),
            CSrc::Imm(_) => true,
        };
        let idx_ok = op.kind != Kind::Sparse || fits(opnds.index, 1);
        if !(fits(opnds.a, op.a_regs(ea))
            && fits(opnds.b, op.b_regs(eb))
            && fits(opnds.d, op.cd_regs())
            && c_ok
            && idx_ok)
        {
            return Err(MatrixError::RegisterRange);
        }
        // Broadcast controls apply to the plain dense forms only: F8F6F4 uses CBSZ/BLGP as
        // formats, f64 uses BLGP as negation and ignores CBSZ/ABID, SMFMAC uses CBSZ/ABID to
        // pick an index set.
        let broadcast = op.kind == Kind::Dense && op.acc != Acc::F64;
        let blgp = if broadcast { ctl.blgp } else { 0 };
        let (m, n, k) = (op.m, op.n, op.k);
        let mut plan = Plan {
            op: *op,
            ea,
            eb,
            a: Vec::new(),
            a_sparse: Vec::new(),
            b: Vec::with_capacity(op.blocks * k * n),
            c: Vec::new(),
            d: Vec::with_capacity(op.blocks * m * n),
            c_imm: None,
            neg: if op.acc == Acc::F64 { ctl.blgp & 7 } else { 0 },
            scaled: op.kind == Kind::ScaledF8f6f4 && ctl.abid & 1 == 1,
            neg_ab: [0; 2],
            c_mods: 0,
            sat: None,
            ovfl_clamp: true,
            fast: None,
            fast64: None,
        };
        if matches!(op.kind, Kind::Wmma | Kind::Swmmac) {
            return Err(MatrixError::Unsupported(
                "WMMA/SWMMAC plans are built by matrix::wmma",
            ));
        }
        if op.kind == Kind::Sparse {
            let set_bits = op.sparse_index_bits() as usize;
            let sets = (32 / set_bits).max(1);
            let set = if ctl.cbsz == 0 {
                ctl.abid as usize % sets
            } else {
                0
            };
            for i in 0..m {
                for kp in 0..op.k_a() {
                    let at = a_loc(op, ea, 0, i, kp);
                    plan.a_sparse.push(SparseSlot {
                        val: slot(opnds.a, at.lane, at.item, ea.bits()),
                        idx: Slot {
                            reg: opnds.index,
                            lane: at.lane as u8,
                            shift: (set * set_bits + 2 * at.item) as u8,
                        },
                        // Packed columns 2q and 2q+1 belong to the group of 4 columns q.
                        base: (i * k + 4 * (kp / 2)) as u32,
                        never: 4,
                    });
                }
            }
        } else {
            plan.a.reserve(op.blocks * m * k);
            for b in 0..op.blocks {
                let sb = if broadcast {
                    a_source_block(op.blocks, ctl.cbsz, ctl.abid, b).ok_or(illegal.clone())?
                } else {
                    b
                };
                for i in 0..m {
                    for kk in 0..k {
                        let at = a_loc(op, ea, sb, i, kk);
                        plan.a.push(slot(opnds.a, at.lane, at.item, ea.bits()));
                    }
                }
            }
        }
        for b in 0..op.blocks {
            for kk in 0..k {
                for j in 0..n {
                    let at = b_loc(op, eb, b, kk, j);
                    plan.b
                        .push(slot(opnds.b, blgp_lane(blgp, at.lane), at.item, eb.bits()));
                }
            }
        }
        let acc_bits = if op.acc == Acc::F64 { 64 } else { 32 };
        // SMFMAC accumulates into its destination.
        let c_src = if op.kind == Kind::Sparse {
            CSrc::Reg(opnds.d)
        } else {
            opnds.c
        };
        for b in 0..op.blocks {
            for i in 0..m {
                for j in 0..n {
                    let at = cd_loc(op, b, i, j);
                    plan.d.push(slot(opnds.d, at.lane, at.item, acc_bits));
                    if let CSrc::Reg(r) = c_src {
                        plan.c.push(slot(r, at.lane, at.item, acc_bits));
                    }
                }
            }
        }
        if let CSrc::Imm(v) = c_src {
            plan.c_imm = Some(v);
        }
        if op.acc == Acc::F32 {
            plan.fast = plan.fast_path(nregs);
            if plan.scaled {
                plan.fast = plan.fast.and_then(|f| f.with_scales());
            }
        }
        if op.acc == Acc::I32 && matches!(op.kind, Kind::Dense | Kind::Sparse) {
            plan.fast = plan.fast_path(nregs).and_then(|f| f.with_i32_acc());
        }
        if op.acc == Acc::F64 && op.kind == Kind::Dense {
            plan.fast64 = plan.fast_path64(nregs);
        }
        Ok(plan)
    }

    /// This plan without the run-based fast path (tests compare the two executors).
    #[doc(hidden)]
    pub fn without_fast_path(mut self) -> Plan {
        self.fast = None;
        self.fast64 = None;
        self
    }

    /// Whether the run-based fast path executes this plan (when MODE allows it).
    #[doc(hidden)]
    pub fn has_fast_path(&self) -> bool {
        self.fast.is_some() || self.fast64.is_some()
    }

    /// The run-based executor of this f64 plan (`super::kernels::FastF64`).
    fn fast_path64(&self, nregs: usize) -> Option<super::kernels::FastF64> {
        use super::kernels::{FastF64, Slots64};
        let refs = |v: &[Slot]| {
            v.iter()
                .map(|s| (s.reg, s.lane, s.shift))
                .collect::<Vec<_>>()
        };
        let (a, b, c, d) = (refs(&self.a), refs(&self.b), refs(&self.c), refs(&self.d));
        let op = &self.op;
        let slots = Slots64 {
            a: &a,
            b: &b,
            c: self.c_imm.is_none().then_some(&c[..]),
            d: &d,
        };
        FastF64::new(
            [op.m, op.n, op.k, op.blocks],
            &slots,
            self.c_imm.unwrap_or(0),
            self.neg,
            nregs,
        )
    }

    /// Whether the fast path expands a sparse A in one pass (`kernels::sparse`).
    #[doc(hidden)]
    pub fn has_sparse_pairs(&self) -> bool {
        self.fast.as_ref().is_some_and(|f| f.has_sparse_pairs())
    }

    /// Whether the fast path runs the 16-block 4×4 lane-wise kernel (`kernels::small_blocks`).
    #[doc(hidden)]
    pub fn has_lane_blocks(&self) -> bool {
        self.fast.as_ref().is_some_and(|f| f.has_lane_blocks())
    }

    /// Whether the f64 fast path has the `v_mfma_f64_4x4x4_4b_f64` lane kernel.
    #[doc(hidden)]
    pub fn has_f64_lanes4(&self) -> bool {
        self.fast64.as_ref().is_some_and(|f| f.has_lanes4())
    }

    /// The pre-resolved kernel of this instruction ([`super::kernels::Fused`]) with the MODE
    /// condition under which it computes exactly what [`Plan::run`] does: `mode & mask ==
    /// want` (FP16_OVFL clear, and for f32-input forms the f32 input denormals allowed).
    pub fn fused(&self) -> Option<(&super::kernels::Fused, u32, u32)> {
        if self.op.acc != Acc::F32 || self.scaled {
            return None;
        }
        let f = self.fast.as_ref()?.fused()?;
        let din = if self.op.a.honours_f32_denorm_mode() {
            MODE_F32_DENORM_IN
        } else {
            0
        };
        Some((f, MODE_FP16_OVFL | din, din))
    }

    /// Whether the fast path moves A and B as dword quads for the VNNI kernel (i8).
    #[doc(hidden)]
    pub fn has_int8_quads(&self) -> bool {
        self.fast.as_ref().is_some_and(|f| f.has_int8_quads())
    }

    /// The run-based executor of this f32-accumulating plan (the caller turns it to i32
    /// accumulation for i8, or to block scaling), if its element formats fit it.
    pub(super) fn fast_path(&self, nregs: usize) -> Option<super::kernels::FastF32> {
        use super::kernels::{Decode, FastF32, Slots, SparseRef};
        // Plain f32 C/D and unmodified A/B only (the RDNA modifiers stay generic).
        if self.op.d16.is_some() || self.neg_ab != [0; 2] || self.c_mods != 0 {
            return None;
        }
        let dec = |e: Elem| Decode {
            bits: e.bits(),
            table: if e.bits() < 32 { decoder(e).table } else { &[] },
            f16: e == Elem::F16,
            xf32: e == Elem::Xf32,
            bf16: e == Elem::Bf16,
            i8: e == Elem::I8,
        };
        let refs = |v: &[Slot]| {
            v.iter()
                .map(|s| (s.reg, s.lane, s.shift))
                .collect::<Vec<_>>()
        };
        let (a, b, c, d) = (refs(&self.a), refs(&self.b), refs(&self.c), refs(&self.d));
        let op = &self.op;
        let t = |s: Slot| (s.reg, s.lane, s.shift);
        let k = op.k as u32;
        let sparse: Vec<SparseRef> = self
            .a_sparse
            .iter()
            .map(|e| SparseRef {
                val: t(e.val),
                idx: t(e.idx),
                i: e.base / k,
                k0: e.base % k,
                never: e.never,
            })
            .collect();
        let slots = Slots {
            a: &a,
            b: &b,
            c: self.c_imm.is_none().then_some(&c[..]),
            d: &d,
            sparse_a: (op.kind == Kind::Sparse).then_some(&sparse[..]),
        };
        let c_imm = self.c_imm.unwrap_or(0) as u32;
        FastF32::new(
            [op.m, op.n, op.k, op.blocks],
            &slots,
            c_imm,
            dec(self.ea),
            dec(self.eb),
            nregs,
        )
    }

    /// Executes the instruction on `regs` (the register file the plan was built for) with
    /// the wave's MODE and, for block-scaled forms, the scale bytes.
    pub fn run(
        &self,
        isa: Isa,
        regs: &mut [[u32; 64]],
        mode: u32,
        scales: Option<&Scales>,
    ) -> Result<(), MatrixError> {
        match self.op.acc {
            Acc::F32 => self.run_f32(isa, regs, mode, scales),
            Acc::I32 => {
                self.run_i32(isa, regs, mode);
                Ok(())
            }
            Acc::F64 => {
                self.run_f64(isa, regs);
                Ok(())
            }
        }
    }

    /// The A/B element types after format selection (F8F6F4) or signedness (RDNA IU8/IU4).
    pub fn elems(&self) -> (Elem, Elem) {
        (self.ea, self.eb)
    }

    /// Where the plan reads or writes each element of `which`, as `(register, lane, bit
    /// offset)`: dense A in `(b·M + i)·K + k` order, B in `(b·K + k)·N + j` order, C and D in
    /// `(b·M + i)·N + j` order; sparse A lists its stored elements with the index bits'
    /// location (`SparseA` gives the value slots, `SparseIndex` the index slots, in the same
    /// order). For tests and tools: the layout as executed.
    pub fn slots(&self, which: Which) -> Vec<(u16, u8, u8)> {
        let t = |s: &Slot| (s.reg, s.lane, s.shift);
        match which {
            Which::A => self.a.iter().map(t).collect(),
            Which::SparseA => self.a_sparse.iter().map(|e| t(&e.val)).collect(),
            Which::SparseIndex => self.a_sparse.iter().map(|e| t(&e.idx)).collect(),
            Which::B => self.b.iter().map(t).collect(),
            Which::C => self.c.iter().map(t).collect(),
            Which::D => self.d.iter().map(t).collect(),
        }
    }

    fn run_f32(
        &self,
        isa: Isa,
        regs: &mut [[u32; 64]],
        mode: u32,
        scales: Option<&Scales>,
    ) -> Result<(), MatrixError> {
        let op = &self.op;
        let (m, n, k, nb) = (op.m, op.n, op.k, op.blocks);
        let scaled = self.scaled;
        if scaled && scales.is_none() {
            return Err(MatrixError::Unsupported(
                "block-scaled MFMA without its scale operands",
            ));
        }
        if let Some(f) = &self.fast {
            // The fast path computes exactly what follows minus the input flush and the
            // overflow clamp, so it runs only when neither applies.
            let flush_in = op.a.honours_f32_denorm_mode() && mode & MODE_F32_DENORM_IN == 0;
            if !flush_in && mode & MODE_FP16_OVFL == 0 {
                let done = match scales {
                    Some(s) if scaled => f.run_scaled(isa, regs, &s.a, &s.b),
                    _ => f.run(isa, regs),
                };
                if done {
                    return Ok(());
                }
            }
        }
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let Scratch { a, b, acc, c_in } = &mut *s;
            a.clear();
            a.resize(nb * m * k, 0.0);
            b.clear();
            b.resize(nb * k * n, 0.0);
            // MODE.FP_DENORM "allow input denormals" for f32 (CDNA4 ISA 7.4): only the
            // f32-input MFMAs (xf32 included: its inputs are f32 registers; an assumption,
            // no text covers it) honour it; narrower inputs and C/D never flush.
            let flush_in = op.a.honours_f32_denorm_mode() && mode & MODE_F32_DENORM_IN == 0;
            if matches!(op.kind, Kind::Sparse | Kind::Swmmac) {
                let t = decoder(self.ea);
                for e in &self.a_sparse {
                    let pos = (regs[e.idx.reg as usize][e.idx.lane as usize] >> e.idx.shift) & 3;
                    if pos != e.never as u32 {
                        let v = t.get(raw(regs, e.val, self.ea.bits()));
                        a[e.base as usize + pos as usize] = negated(v, e.val, self.neg_ab[0]);
                    }
                }
            } else {
                gather_f32(&self.a, regs, self.ea, a);
                negate_halves(&self.a, a, self.neg_ab[0]);
            }
            gather_f32(&self.b, regs, self.eb, b);
            negate_halves(&self.b, b, self.neg_ab[1]);
            if flush_in {
                for v in a.iter_mut().chain(b.iter_mut()) {
                    if v.is_subnormal() {
                        *v = 0.0f32.copysign(*v);
                    }
                }
            }
            acc.clear();
            let c16 = op.d16;
            match (self.c_imm, c16) {
                (Some(v), None) => acc.resize(nb * m * n, f32::from_bits(v as u32)),
                (Some(v), Some(e)) => acc.resize(nb * m * n, e.to_f32(v as u32 & 0xFFFF)),
                (None, None) => acc.extend(
                    self.c
                        .iter()
                        .map(|s| f32::from_bits(regs[s.reg as usize][s.lane as usize])),
                ),
                (None, Some(e)) => acc.extend(self.c.iter().map(|s| e.to_f32(raw(regs, *s, 16)))),
            }
            if self.c_mods & 2 != 0 {
                acc.iter_mut().for_each(|v| *v = v.abs());
            }
            if self.c_mods & 1 != 0 {
                acc.iter_mut().for_each(|v| *v = -*v);
            }
            let clamp = self.ovfl_clamp && mode & MODE_FP16_OVFL != 0;
            if clamp {
                c_in.clear();
                c_in.extend_from_slice(acc);
            }
            for blk in 0..nb {
                let ab = &a[blk * m * k..];
                let bb = &b[blk * k * n..];
                let cb = &mut acc[blk * m * n..(blk + 1) * m * n];
                match scales {
                    Some(s) if scaled => scaled_gemm(isa, op, ab, bb, cb, s),
                    _ => gemm_f32(
                        isa,
                        &GemmF32 {
                            m,
                            n,
                            k,
                            a: ab,
                            lda: k,
                            b: bb,
                            ldb: n,
                        },
                        cb,
                        n,
                    ),
                }
            }
            if clamp {
                // FP16_OVFL: an overflow (not a true infinity input) becomes ±MAX.
                for blk in 0..nb {
                    for i in 0..m {
                        let row = &a[(blk * m + i) * k..(blk * m + i + 1) * k];
                        let row_finite = row.iter().all(|v| v.is_finite());
                        for j in 0..n {
                            let x = (blk * m + i) * n + j;
                            if acc[x].is_infinite()
                                && row_finite
                                && c_in[x].is_finite()
                                && (0..k).all(|kk| b[(blk * k + kk) * n + j].is_finite())
                            {
                                acc[x] = f32::MAX.copysign(acc[x]);
                            }
                        }
                    }
                }
            }
            match c16 {
                None => {
                    for (v, s) in acc.iter().zip(&self.d) {
                        regs[s.reg as usize][s.lane as usize] =
                            if v.is_nan() { 0x7FC0_0000 } else { v.to_bits() };
                    }
                }
                Some(e) => {
                    // One rounding (to nearest even) of the f32 result; the other half of
                    // the register keeps its value.
                    for (v, s) in acc.iter().zip(&self.d) {
                        let h = match (e, v.is_nan()) {
                            (Elem::F16, true) => 0x7E00,
                            (Elem::F16, false) => half::f16::from_f32(*v).to_bits(),
                            (_, true) => 0x7FC0,
                            (_, false) => half::bf16::from_f32(*v).to_bits(),
                        } as u32;
                        let w = &mut regs[s.reg as usize][s.lane as usize];
                        *w = (*w & !(0xFFFF << s.shift)) | h << s.shift;
                    }
                }
            }
            Ok(())
        })
    }

    fn run_i32(&self, isa: Isa, regs: &mut [[u32; 64]], mode: u32) {
        let op = &self.op;
        let saturate = self.sat.unwrap_or(mode & MODE_FP16_OVFL != 0);
        if self
            .fast
            .as_ref()
            .is_some_and(|f| f.run_i32(isa, regs, saturate))
        {
            return;
        }
        let (m, n, k) = (op.m, op.n, op.k);
        let (ea, eb) = (self.ea, self.eb);
        let mut a = vec![0i64; op.blocks * m * k];
        if !self.a_sparse.is_empty() {
            for e in &self.a_sparse {
                let pos = (regs[e.idx.reg as usize][e.idx.lane as usize] >> e.idx.shift) & 3;
                if pos != e.never as u32 {
                    a[e.base as usize + pos as usize] = ea.int_value(raw(regs, e.val, ea.bits()));
                }
            }
        } else {
            for (v, s) in a.iter_mut().zip(&self.a) {
                *v = ea.int_value(raw(regs, *s, ea.bits()));
            }
        }
        let b: Vec<i64> = self
            .b
            .iter()
            .map(|s| eb.int_value(raw(regs, *s, eb.bits())))
            .collect();
        let c: Vec<i64> = match self.c_imm {
            Some(v) => vec![v as u32 as i32 as i64; op.blocks * m * n],
            None => self
                .c
                .iter()
                .map(|s| regs[s.reg as usize][s.lane as usize] as i32 as i64)
                .collect(),
        };
        // i-k-j order over contiguous rows (vectorises); exact in i64.
        let mut acc = c;
        for blk in 0..op.blocks {
            for i in 0..m {
                let row = &mut acc[(blk * m + i) * n..(blk * m + i + 1) * n];
                for kk in 0..k {
                    let x = a[(blk * m + i) * k + kk];
                    let brow = &b[(blk * k + kk) * n..(blk * k + kk + 1) * n];
                    for (r, &y) in row.iter_mut().zip(brow) {
                        *r += x * y;
                    }
                }
            }
        }
        for (v, s) in acc.iter().zip(&self.d) {
            let r = if saturate {
                (*v).clamp(i32::MIN as i64, i32::MAX as i64) as i32
            } else {
                *v as i32
            };
            regs[s.reg as usize][s.lane as usize] = r as u32;
        }
    }

    fn run_f64(&self, isa: Isa, regs: &mut [[u32; 64]]) {
        if self.fast64.as_ref().is_some_and(|f| f.run(isa, regs)) {
            return;
        }
        let op = &self.op;
        let (m, n, k) = (op.m, op.n, op.k);
        let sign = |bit: u8| if self.neg & bit != 0 { -1.0 } else { 1.0 };
        let get = |regs: &[[u32; 64]], s: &Slot| {
            f64::from_bits(
                regs[s.reg as usize][s.lane as usize] as u64
                    | (regs[s.reg as usize + 1][s.lane as usize] as u64) << 32,
            )
        };
        SCRATCH_F64.with(|cell| {
            let mut s = cell.borrow_mut();
            let (a, b, acc) = &mut *s;
            let (sa, sb, sc) = (sign(1), sign(2), sign(4));
            a.clear();
            a.extend(self.a.iter().map(|s| sa * get(regs, s)));
            b.clear();
            b.extend(self.b.iter().map(|s| sb * get(regs, s)));
            acc.clear();
            match self.c_imm {
                Some(v) => acc.resize(op.blocks * m * n, sc * f64::from_bits(v)),
                None => acc.extend(self.c.iter().map(|s| sc * get(regs, s))),
            }
            // Per output: fused multiply-adds in ascending k.
            for blk in 0..op.blocks {
                let done = gemm_f64(
                    isa,
                    m,
                    n,
                    k,
                    &a[blk * m * k..],
                    &b[blk * k * n..],
                    &mut acc[blk * m * n..(blk + 1) * m * n],
                );
                debug_assert!(done, "buffers sized from the shape");
            }
            for (v, s) in acc.iter().zip(&self.d) {
                let bits = if v.is_nan() {
                    0x7FF8_0000_0000_0000
                } else {
                    v.to_bits()
                };
                regs[s.reg as usize][s.lane as usize] = bits as u32;
                regs[s.reg as usize + 1][s.lane as usize] = (bits >> 32) as u32;
            }
        })
    }
}

thread_local! {
    /// A, B and the accumulator of the f64 path (no allocation per instruction).
    static SCRATCH_F64: RefCell<(Vec<f64>, Vec<f64>, Vec<f64>)> =
        const { RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

/// The register slot of item `item` (`bits` wide) of an operand starting at `base` in
/// `lane`: items are packed little-endian (64-bit items take a register pair, 6-bit items
/// run densely across 192-bit groups of 6 registers, bits [6n+5:6n]).
pub(super) fn slot(base: u16, lane: usize, item: usize, bits: u32) -> Slot {
    let (reg, shift) = match bits {
        64 => (2 * item, 0),
        32 => (item, 0),
        6 => {
            let bit = 6 * (item % 32);
            (6 * (item / 32) + bit / 32, bit % 32)
        }
        _ => {
            let per = 32 / bits as usize;
            (item / per, (item % per) * bits as usize)
        }
    };
    Slot {
        reg: base + reg as u16,
        lane: lane as u8,
        shift: shift as u8,
    }
}

/// `v` negated when `neg` (bit 0: low half, bit 1: high half) selects the half of its
/// register that `s` names.
#[inline]
fn negated(v: f32, s: Slot, neg: u8) -> f32 {
    let bit = if s.shift >= 16 { 2 } else { 1 };
    if neg & bit != 0 {
        -v
    } else {
        v
    }
}

/// Applies RDNA's per-half NEG/NEG_HI input modifiers to gathered 16-bit elements.
fn negate_halves(slots: &[Slot], vals: &mut [f32], neg: u8) {
    if neg != 0 {
        for (v, s) in vals.iter_mut().zip(slots) {
            *v = negated(*v, *s, neg);
        }
    }
}

/// Per-thread buffers of the f32 path (no allocation per instruction).
struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    acc: Vec<f32>,
    c_in: Vec<f32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch { a: Vec::new(), b: Vec::new(), acc: Vec::new(), c_in: Vec::new() })
    };
}

/// The raw bits of the element at `s` (`bits` wide; 6-bit items may straddle registers).
#[inline]
fn raw(regs: &[[u32; 64]], s: Slot, bits: u32) -> u32 {
    let w = regs[s.reg as usize][s.lane as usize];
    match bits {
        32 => w,
        6 if s.shift > 26 => {
            let hi = regs[s.reg as usize + 1][s.lane as usize];
            ((w >> s.shift) | (hi << (32 - s.shift))) & 0x3F
        }
        _ => (w >> s.shift) & ((1u32 << bits) - 1),
    }
}

/// Exact decoding of a narrow float format through a lookup table.
struct Decoder {
    table: &'static [f32],
}

impl Decoder {
    #[inline]
    fn get(&self, raw: u32) -> f32 {
        self.table[raw as usize]
    }
}

/// The decoding table of `e` (up to 16 bits wide; f32 decodes without one).
fn decoder(e: Elem) -> Decoder {
    static TABLES: [OnceLock<Box<[f32]>>; 16] = [const { OnceLock::new() }; 16];
    let all = [
        Elem::F32,
        Elem::Xf32,
        Elem::F16,
        Elem::Bf16,
        Elem::I8,
        Elem::F64,
        Elem::Fp8Fnuz,
        Elem::Bf8Fnuz,
        Elem::Fp8,
        Elem::Bf8,
        Elem::Fp6,
        Elem::Bf6,
        Elem::Fp4,
        Elem::U8,
        Elem::I4,
        Elem::U4,
    ];
    let i = all.iter().position(|&x| x == e).unwrap_or(0);
    let bits = e.bits().min(16);
    let table = TABLES[i].get_or_init(|| (0..1u32 << bits).map(|r| e.to_f32(r)).collect());
    Decoder { table }
}

/// Gathers and decodes the elements at `slots` into `out`.
fn gather_f32(slots: &[Slot], regs: &[[u32; 64]], e: Elem, out: &mut [f32]) {
    match e.bits() {
        32 => {
            let dec = if e == Elem::Xf32 {
                super::formats::xf32_from_bits
            } else {
                f32::from_bits
            };
            for (o, s) in out.iter_mut().zip(slots) {
                *o = dec(regs[s.reg as usize][s.lane as usize]);
            }
        }
        bits => {
            let t = decoder(e);
            for (o, s) in out.iter_mut().zip(slots) {
                *o = t.get(raw(regs, *s, bits));
            }
        }
    }
}

/// `acc += Σ_kb 2^(sa−127)·2^(sb−127)·(Σ_{k∈kb} A·B)` over 32-wide K blocks.
fn scaled_gemm(isa: Isa, op: &MatrixOp, a: &[f32], b: &[f32], acc: &mut [f32], s: &Scales) {
    let (m, n, k) = (op.m, op.n, op.k);
    let mut part = [0f32; 1024];
    for kb in 0..k / 32 {
        part[..m * n].fill(0.0);
        gemm_f32(
            isa,
            &GemmF32 {
                m,
                n,
                k: 32,
                a: &a[kb * 32..],
                lda: k,
                b: &b[kb * 32 * n..],
                ldb: n,
            },
            &mut part,
            n,
        );
        for i in 0..m {
            let sa = s.a[(i + m * kb) % 64];
            for j in 0..n {
                let sb = s.b[(j + n * kb) % 64];
                let x = i * n + j;
                acc[x] = if sa == 0xFF || sb == 0xFF {
                    f32::NAN
                } else {
                    // 2^(sa+sb-254), exact: the exponent lies in -254..=254, normal in f64.
                    let scale = f64::from_bits(((sa as u64 + sb as u64 + 1023) - 254) << 52);
                    (acc[x] as f64 + part[x] as f64 * scale) as f32
                };
            }
        }
    }
}
