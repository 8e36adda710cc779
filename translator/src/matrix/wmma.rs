//! RDNA WMMA and SWMMAC (GFX11 = RDNA3, GFX12 = RDNA4) as [`Plan`]s of the MFMA framework:
//! the same gather → host GEMM → scatter, with RDNA's register layouts and modifiers.
//!
//! Layouts (`notes/rdna.md` §5.3, §7.2; RDNA4 ISA 7.12.2 L3601–3812, RDNA3 ISA 7.9 and the
//! Matrix Instruction Calculator's RDNA3 tables):
//! * RDNA3, both wave sizes: lane `l` holds row `l % 16` of A (column `l % 16` of B) with all
//!   16 k in order, replicated in every 16-lane group; the instruction reads lanes 0–15 here.
//!   C/D (the Calculator's gfx11 output rule): with G = wave/16 lane groups, VGPR r of lane l
//!   holds row `G·r + l/16`, column `l % 16` (wave32: rows 2r, 2r+1; wave64: rows 4r..4r+3).
//!   16-bit C/D are not packed: one element per VGPR, in bits 15:0 or, with `OPSEL[2]`, bits
//!   31:16 (the other half is kept).
//! * RDNA4: no replication; the bit-field tables of ISA 7.12.2 (see the functions below).
//!   16-bit C/D pack two rows per VGPR, even rows in bits 15:0. B with K = 32 of 16/8-bit
//!   elements (SWMMAC) is two 16-row groups in consecutive VGPR ranges (ISA 7.12.3 L3820);
//!   4-bit B with K = 64 likewise two 32-row groups.
//! * SWMMAC index VGPR: 2 bits per packed A element, in the order of the lane's packed A items
//!   ("arranged in the VGPR in the same way that columns are arranged in the A-matrix",
//!   L3818), `2·items` bits per set, the set chosen by `OPSEL[0]` (wave32) / `OPSEL[1:0]` (wave64)
//!   modulo the sets that fit. Packed columns 2q and 2q+1 hold the two non-zeros of group q
//!   (idx0 and idx1); an idx0 of 3 or an idx1 of 0 places nothing and idx0 wins a collision
//!   (the expansion pseudocode, L3826–3840). The ISA's `idxFirstBit` formula does not fit its
//!   own packed layout (`notes/rdna.md` §5.4); this rule follows the per-lane counts instead.
//! * Disputed: a public report of one-hot probes on gfx1201 (The-Monk/llama.cpp,
//!   `ggml-cuda/swmmac24.cuh`) gives SWMMAC 8/16-bit B with K = 32 as lane half `K[4]`, VGPR
//!   `K[3:2]` (8-bit) or `K[3:1]` (16-bit), and packed 16-bit A as lane half `col[3]`, VGPR
//!   `col[2:1]` (under which the ISA's `idxFirstBit` fits). The rules here follow the ISA
//!   text until hardware settles it (ARCHITECTURE.md, `src/matrix/`).
//!
//! Numerics: as MFMA's f32 path (one fused multiply-add per k in ascending order, f32, round
//! to nearest even); 16-bit accumulators accumulate in f32 and round once to f16/bf16; integer
//! forms are exact with wrapping i32 sums, saturating with CLAMP on RDNA3 (RDNA4 ignores
//! CLAMP for WMMA). Input denormals are kept
//! (the formats decode exactly), NaN results are the canonical quiet NaN of the D type,
//! MODE.FP16_OVFL has no effect and EXEC is ignored. The ISA states none of this beyond
//! "fused multiply add" and round-to-nearest-even (`notes/rdna.md` §5.5): unverified on
//! hardware.

use super::formats::Elem;
use super::layout::Loc;
use super::mfma::{slot, CSrc, MatrixError, Operands, Plan, Slot, SparseSlot};
use super::shape::{Acc, Kind, MatrixOp};

/// Target and instruction modifiers of one WMMA/SWMMAC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wmma {
    /// RDNA4 (GFX12) layouts; else RDNA3 (GFX11).
    pub rdna4: bool,
    /// Wave size, 32 or 64.
    pub wave: usize,
    /// VOP3P NEG: f16/bf16 negate the low halves of A (bit 0) and B (bit 1), bit 2 negates C;
    /// IU8/IU4: bit 0 = A signed, bit 1 = B signed.
    pub neg: u8,
    /// VOP3P NEG_HI: f16/bf16 negate the high halves of A/B; bit 2 = absolute value of C.
    pub neg_hi: u8,
    /// OPSEL: RDNA3 16-bit C/D half (bit 2); SWMMAC index set.
    pub opsel: u8,
    /// CLAMP: saturate integer results (RDNA3; RDNA4 ignores it for WMMA).
    pub clamp: bool,
}

/// The location of `A[i][k]` (`k` < K as stored, i.e. packed for SWMMAC).
pub fn a_loc(op: &MatrixOp, w: &Wmma, bits: u32, i: usize, k: usize) -> Loc {
    if !w.rdna4 {
        return Loc { lane: i, item: k };
    }
    input_loc(w.wave, bits, op.k_a(), i, k)
}

/// The location of `B[k][j]`.
pub fn b_loc(op: &MatrixOp, w: &Wmma, bits: u32, k: usize, j: usize) -> Loc {
    if !w.rdna4 {
        return Loc { lane: j, item: k };
    }
    input_loc(w.wave, bits, op.k, j, k)
}

/// Bit `n` of `x`.
fn bit(x: usize, n: u32) -> usize {
    (x >> n) & 1
}

/// RDNA4 A (row `r` = m) and B (row `r` = n) element `k` of a K = `kdim` operand
/// (ISA 7.12.2 tables: lane, VGPR and startPosn as bit fields of m/n and k).
fn input_loc(wave: usize, bits: u32, kdim: usize, r: usize, k: usize) -> Loc {
    let per = 32 / bits as usize;
    let at = |lane: usize, vgpr: usize, pos: usize| Loc {
        lane,
        item: vgpr * per + pos,
    };
    let w64 = wave == 64;
    // Longer K than the tables cover: two groups of the shorter layout in consecutive VGPRs.
    let table_k = if bits == 4 { 32 } else { 16 };
    if kdim > table_k {
        let half = kdim / 2;
        let group_regs = (16 * half * bits as usize).div_ceil(32 * wave);
        let l = input_loc(wave, bits, half, r, k % half);
        return Loc {
            lane: l.lane,
            item: l.item + (k / half) * group_regs * per,
        };
    }
    match (bits, kdim, w64) {
        (16, _, false) => at(bit(k, 2) << 4 | r, bit(k, 3) << 1 | bit(k, 1), k & 1),
        (16, _, true) => at((k >> 2 & 3) << 4 | r, bit(k, 1), k & 1),
        (8, _, false) => at(bit(k, 3) << 4 | r, bit(k, 2), k & 3),
        (8, _, true) => at(bit(k, 2) << 5 | bit(k, 3) << 4 | r, 0, k & 3),
        // 4-bit 16x16: lanes 0..31 only, also in wave64.
        (_, 16, _) => at(bit(k, 3) << 4 | r, 0, k & 7),
        (_, _, false) => at(bit(k, 4) << 4 | r, bit(k, 3), k & 7),
        (_, _, true) => at(bit(k, 3) << 5 | bit(k, 4) << 4 | r, 0, k & 7),
    }
}

/// The location of `C[i][j]` and `D[i][j]`: for 32-bit elements the item is the VGPR, for 16-bit
/// ones the 16-bit half (RDNA3: VGPR·2 + `OPSEL[2]`).
pub fn cd_loc(w: &Wmma, sixteen: bool, i: usize, j: usize) -> Loc {
    if w.rdna4 {
        // ISA L3755–3773: wave32 lane (i/8)·16 + j, VGPR i%8; wave64 lane
        // ((i/4)%2)·32 + (i/8)·16 + j, VGPR i%4. 16-bit: the same item, two per VGPR.
        let (lane, item) = if w.wave == 32 {
            ((i >> 3) << 4 | j, i & 7)
        } else {
            (bit(i, 2) << 5 | bit(i, 3) << 4 | j, i & 3)
        };
        return Loc { lane, item };
    }
    let groups = w.wave / 16;
    let (reg, lane) = (i / groups, j + 16 * (i % groups));
    let item = if sixteen {
        2 * reg + (w.opsel as usize >> 2 & 1)
    } else {
        reg
    };
    Loc { lane, item }
}

/// Builds the [`Plan`] of one WMMA/SWMMAC (`op` from
/// [`MatrixOp::from_spelling`](super::shape::MatrixOp::from_spelling) for an RDNA target)
/// against a register file of `nregs` registers. For SWMMAC, C is D and `opnds.index` is the
/// index VGPR.
pub fn plan(op: &MatrixOp, w: &Wmma, opnds: &Operands, nregs: usize) -> Result<Plan, MatrixError> {
    if !matches!(op.kind, Kind::Wmma | Kind::Swmmac) || !(w.wave == 32 || w.wave == 64) {
        return Err(MatrixError::Unsupported(
            "not a WMMA/SWMMAC for a 32/64-lane wave",
        ));
    }
    let sparse = op.kind == Kind::Swmmac;
    let int = op.acc == Acc::I32;
    let (mut ea, mut eb) = (op.a, op.b);
    if int {
        // NEG[0]/NEG[1] select signed A/B; NEG[2] and NEG_HI must be 0 (ISA L3224–3236).
        if w.neg & 4 != 0 || w.neg_hi != 0 {
            return Err(MatrixError::Unsupported(
                "integer WMMA: NEG[2] and NEG_HI must be zero",
            ));
        }
        let signed = |e: Elem| match e {
            Elem::U8 => Elem::I8,
            _ => Elem::I4,
        };
        if w.neg & 1 != 0 {
            ea = signed(ea);
        }
        if w.neg & 2 != 0 {
            eb = signed(eb);
        }
    } else if ea.bits() == 8 && (w.neg | w.neg_hi) & 3 != 0 {
        return Err(MatrixError::Unsupported(
            "FP8/BF8 WMMA: NEG must be zero for A and B",
        ));
    }
    let sixteen = op.d16.is_some();
    let mut err = None;
    let mut at = |base: u16, loc: Loc, bits: u32| -> Slot {
        let s = slot(0, loc.lane, loc.item, bits);
        let reg = base as usize + s.reg as usize;
        if reg >= nregs || loc.lane >= w.wave {
            err = Some(MatrixError::RegisterRange);
            return Slot { reg: 0, ..s };
        }
        Slot {
            reg: reg as u16,
            ..s
        }
    };
    let (m, n, k) = (op.m, op.n, op.k);
    let mut a = Vec::new();
    let mut a_sparse = Vec::new();
    if sparse {
        let ka = op.k_a();
        let locs: Vec<Loc> = (0..m * ka)
            .map(|x| a_loc(op, w, ea.bits(), x / ka, x % ka))
            .collect();
        let items = locs.iter().map(|l| l.item).max().unwrap_or(0) + 1;
        let set_bits = 2 * items;
        let sets = (32 / set_bits).max(1);
        let sel = if w.wave == 32 {
            w.opsel & 1
        } else {
            w.opsel & 3
        };
        let set = sel as usize % sets;
        for i in 0..m {
            // The odd column (idx1) first, so that idx0 wins a collision.
            for q in 0..ka / 2 {
                for kp in [2 * q + 1, 2 * q] {
                    let loc = locs[i * ka + kp];
                    let val = at(opnds.a, loc, ea.bits());
                    let idx = at(
                        opnds.index,
                        Loc {
                            lane: loc.lane,
                            item: 0,
                        },
                        32,
                    );
                    a_sparse.push(SparseSlot {
                        val,
                        idx: Slot {
                            shift: (set * set_bits + 2 * loc.item) as u8,
                            ..idx
                        },
                        base: (i * k + 4 * q) as u32,
                        never: if kp % 2 == 0 { 3 } else { 0 },
                    });
                }
            }
        }
    } else {
        for i in 0..m {
            for kk in 0..k {
                a.push(at(opnds.a, a_loc(op, w, ea.bits(), i, kk), ea.bits()));
            }
        }
    }
    let mut b = Vec::with_capacity(k * n);
    for kk in 0..k {
        for j in 0..n {
            b.push(at(opnds.b, b_loc(op, w, eb.bits(), kk, j), eb.bits()));
        }
    }
    let cd_bits = if sixteen { 16 } else { 32 };
    let c_src = if sparse { CSrc::Reg(opnds.d) } else { opnds.c };
    let mut c = Vec::new();
    let mut d = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let loc = cd_loc(w, sixteen, i, j);
            d.push(at(opnds.d, loc, cd_bits));
            if let CSrc::Reg(r) = c_src {
                c.push(at(r, loc, cd_bits));
            }
        }
    }
    if let Some(e) = err {
        return Err(e);
    }
    let float16_in = matches!(ea, Elem::F16 | Elem::Bf16);
    let mut p = Plan {
        op: *op,
        ea,
        eb,
        a,
        a_sparse,
        b,
        c,
        d,
        c_imm: match c_src {
            CSrc::Imm(v) => Some(v),
            CSrc::Reg(_) => None,
        },
        neg: 0,
        scaled: false,
        neg_ab: if float16_in {
            [
                (w.neg & 1) | (w.neg_hi & 1) << 1,
                (w.neg >> 1 & 1) | (w.neg_hi >> 1 & 1) << 1,
            ]
        } else {
            [0; 2]
        },
        c_mods: if int {
            0
        } else {
            (w.neg >> 2 & 1) | (w.neg_hi >> 2 & 1) << 1
        },
        // CLAMP saturates integer results on RDNA3 (Matrix Instruction Calculator, VOP3P
        // fields); RDNA4 ignores it for WMMA (RDNA4 ISA 7.2.3, "Output Clamping").
        sat: Some(int && w.clamp && !w.rdna4),
        ovfl_clamp: false,
        fast: None,
        fast64: None,
    };
    // Plain f32-accumulating dense forms (no 16-bit D, no input or C modifiers) can use the
    // MFMA run-based fast path; it accepts the slots only when they fit its run model.
    if op.acc == Acc::F32 && !sixteen && !sparse && p.neg_ab == [0; 2] && p.c_mods == 0 {
        p.fast = p.fast_path(nregs);
    }
    Ok(p)
}

/// Registers spanned by D, A, B and src2 (C, or SWMMAC's index VGPR) of `op` under `w`
/// (LLVM's operand widths; a register counts when the plan touches any lane of it).
pub fn operand_regs(op: &MatrixOp, w: &Wmma) -> Result<[usize; 4], MatrixError> {
    use super::mfma::Which;
    let opnds = Operands {
        d: 0,
        a: 100,
        b: 200,
        c: CSrc::Reg(300),
        index: 300,
    };
    let p = plan(op, w, &opnds, 512)?;
    let span = |v: Vec<(u16, u8, u8)>, base: u16| {
        v.iter()
            .map(|s| (s.0 - base) as usize + 1)
            .max()
            .unwrap_or(0)
    };
    let sparse = op.kind == Kind::Swmmac;
    let a = if sparse {
        span(p.slots(Which::SparseA), 100)
    } else {
        span(p.slots(Which::A), 100)
    };
    let c = if sparse {
        span(p.slots(Which::SparseIndex), 300)
    } else {
        span(p.slots(Which::C), 300)
    };
    Ok([
        span(p.slots(Which::D), 0),
        a,
        span(p.slots(Which::B), 200),
        c,
    ])
}
