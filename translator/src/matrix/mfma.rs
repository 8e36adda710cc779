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
//!   intermediate); a scale byte of 0xFF is NaN. With ABID[0] = 0 the scales are 1.0.
//! * i32 accumulation: exact products of the sign-extended i8 values, the sum wraps modulo
//!   2³², or saturates when MODE.FP16_OVFL is set.
//! * f64: fused multiply-adds in ascending k, denormals kept; BLGP bits 0/1/2 negate A/B/C.
//! * MODE: `V_MFMA_F32_*_F32` flushes denormal A/B inputs when MODE's f32 "allow input
//!   denormals" bit is clear; other inputs, C and D never flush. With MODE.FP16_OVFL an f32
//!   result that overflowed (all of its inputs finite) becomes ±MAX.
//! * A NaN result is the canonical quiet NaN 0x7FC00000 (f64: 0x7FF8000000000000), so the
//!   result does not depend on which host kernel ran.

use super::formats::Elem;
use super::gemm::{best_isa, gemm_f32, GemmF32, Isa};
use super::layout::{a_loc, a_source_block, b_loc, blgp_lane, cd_loc, read_item, write_item};
use super::shape::{Acc, Kind, MatrixOp};
use thiserror::Error;

/// MODE bit 23: FP16_OVFL, also the MFMA overflow clamp control.
pub const MODE_FP16_OVFL: u32 = 1 << 23;
/// MODE bit 4: f32 "allow input denormals".
pub const MODE_F32_DENORM_IN: u32 = 1 << 4;

/// Largest logical operand (elements): 32×32×64 and 16×16×128 A/B, 2-block 32×32 C/D.
const MAX_ELEMS: usize = 2048;

/// The C operand: registers, or an inline constant used for every element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CSrc {
    /// First register of C (VGPR/AGPR file index: 0..256 VGPRs, 256.. AGPRs).
    Reg(u16),
    /// The constant's bits (f32 or i32 in the low 32 bits; f64 all 64).
    Imm(u64),
}

/// Register operands of one matrix instruction (register-file indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
    if ea == Elem::Xf32 {
        return Err(MatrixError::Unsupported(
            "xf32 MFMA: the ISA documents no exact rounding of xf32 inputs",
        ));
    }
    let fits = |base: u16, n: usize| base as usize + n <= regs.len();
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
    let mut src_block = [0usize; 16];
    for (b, s) in src_block.iter_mut().enumerate().take(op.blocks) {
        *s = if broadcast {
            a_source_block(op.blocks, ctl.cbsz, ctl.abid, b).ok_or(illegal.clone())?
        } else {
            b
        };
    }
    let blgp = if broadcast { ctl.blgp } else { 0 };
    let dims = Dims {
        op,
        ea,
        eb,
        opnds,
        src_block: &src_block,
        blgp,
        ctl,
    };
    match op.acc {
        Acc::F32 => run_f32(isa, &dims, scales, regs),
        Acc::I32 => run_i32(&dims, regs),
        Acc::F64 => run_f64(&dims, regs),
    }
}

/// What the gather/scatter helpers need.
struct Dims<'a> {
    op: &'a MatrixOp,
    ea: Elem,
    eb: Elem,
    opnds: &'a Operands,
    src_block: &'a [usize; 16],
    blgp: u8,
    ctl: &'a Controls,
}

impl Dims<'_> {
    /// Calls `f(index, raw)` for every logical A element (dense, `(b·M + i)·K + k`).
    /// Sparse A: only the stored elements, at their unpacked column.
    fn for_a(&self, regs: &[[u32; 64]], mut f: impl FnMut(usize, u64)) {
        let op = self.op;
        let base = self.opnds.a as usize;
        let bits = self.ea.bits();
        if op.kind == Kind::Sparse {
            let set_bits = op.sparse_index_bits();
            let sets = (32 / set_bits).max(1);
            let set = if self.ctl.cbsz == 0 {
                self.ctl.abid as u32 % sets
            } else {
                0
            };
            for i in 0..op.m {
                for kp in 0..op.k_a() {
                    let at = a_loc(op, self.ea, 0, i, kp);
                    let raw = read_item(regs, base, at.lane, at.item, bits).unwrap_or(0);
                    let idx = regs[self.opnds.index as usize][at.lane];
                    let pos = (idx >> (set * set_bits + 2 * at.item as u32)) & 3;
                    // Packed columns 2q and 2q+1 belong to the group of 4 columns q.
                    let k = 4 * (kp / 2) + pos as usize;
                    f(i * op.k + k, raw);
                }
            }
            return;
        }
        for b in 0..op.blocks {
            let sb = self.src_block[b];
            for i in 0..op.m {
                for k in 0..op.k {
                    let at = a_loc(op, self.ea, sb, i, k);
                    let raw = read_item(regs, base, at.lane, at.item, bits).unwrap_or(0);
                    f((b * op.m + i) * op.k + k, raw);
                }
            }
        }
    }

    /// Calls `f(index, raw)` for every B element (`(b·K + k)·N + j`).
    fn for_b(&self, regs: &[[u32; 64]], mut f: impl FnMut(usize, u64)) {
        let op = self.op;
        let base = self.opnds.b as usize;
        let bits = self.eb.bits();
        for b in 0..op.blocks {
            for k in 0..op.k {
                for j in 0..op.n {
                    let at = b_loc(op, self.eb, b, k, j);
                    let lane = blgp_lane(self.blgp, at.lane);
                    let raw = read_item(regs, base, lane, at.item, bits).unwrap_or(0);
                    f((b * op.k + k) * op.n + j, raw);
                }
            }
        }
    }

    /// Calls `f(index, raw)` for every C element (`(b·M + i)·N + j`); SMFMAC reads D.
    fn for_c(&self, regs: &[[u32; 64]], bits: u32, mut f: impl FnMut(usize, u64)) {
        let op = self.op;
        let src = if op.kind == Kind::Sparse {
            CSrc::Reg(self.opnds.d)
        } else {
            self.opnds.c
        };
        for b in 0..op.blocks {
            for i in 0..op.m {
                for j in 0..op.n {
                    let raw = match src {
                        CSrc::Imm(v) => v,
                        CSrc::Reg(r) => {
                            let at = cd_loc(op, b, i, j);
                            read_item(regs, r as usize, at.lane, at.item, bits).unwrap_or(0)
                        }
                    };
                    f((b * op.m + i) * op.n + j, raw);
                }
            }
        }
    }

    /// Writes every D element from `get(index)`.
    fn store_d(&self, regs: &mut [[u32; 64]], bits: u32, get: impl Fn(usize) -> u64) {
        let op = self.op;
        for b in 0..op.blocks {
            for i in 0..op.m {
                for j in 0..op.n {
                    let at = cd_loc(op, b, i, j);
                    let v = get((b * op.m + i) * op.n + j);
                    // In range: checked against the shape's register count before.
                    let _ = write_item(regs, self.opnds.d as usize, at.lane, at.item, bits, v);
                }
            }
        }
    }
}

fn run_f32(
    isa: Isa,
    d: &Dims,
    scales: Option<&Scales>,
    regs: &mut [[u32; 64]],
) -> Result<(), MatrixError> {
    let op = d.op;
    let (m, n, k, nb) = (op.m, op.n, op.k, op.blocks);
    let mut a = [0f32; MAX_ELEMS];
    let mut b = [0f32; MAX_ELEMS];
    let mut acc = [0f32; MAX_ELEMS];
    let flush_in = op.a == Elem::F32 && d.ctl.mode & MODE_F32_DENORM_IN == 0;
    let decode = |e: Elem, raw: u64| -> f32 {
        let v = e.to_f32(raw as u32);
        if flush_in && v.is_subnormal() {
            0.0f32.copysign(v)
        } else {
            v
        }
    };
    d.for_a(regs, |x, raw| a[x] = decode(d.ea, raw));
    d.for_b(regs, |x, raw| b[x] = decode(d.eb, raw));
    d.for_c(regs, 32, |x, raw| acc[x] = f32::from_bits(raw as u32));
    let c_in = acc;

    let scaled = op.kind == Kind::ScaledF8f6f4 && d.ctl.abid & 1 == 1;
    for blk in 0..nb {
        let ab = &a[blk * m * k..];
        let bb = &b[blk * k * n..];
        let cb = &mut acc[blk * m * n..(blk + 1) * m * n];
        match (scaled, scales) {
            (true, Some(s)) => scaled_gemm(isa, op, ab, bb, cb, s),
            (true, None) => {
                return Err(MatrixError::Unsupported(
                    "block-scaled MFMA without its scale operands",
                ))
            }
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

    let clamp = d.ctl.mode & MODE_FP16_OVFL != 0;
    if clamp {
        for blk in 0..nb {
            for i in 0..m {
                let row_finite = a[(blk * m + i) * k..(blk * m + i + 1) * k]
                    .iter()
                    .all(|v| v.is_finite());
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
    d.store_d(regs, 32, |x| {
        let v = acc[x];
        if v.is_nan() {
            0x7FC0_0000
        } else {
            v.to_bits() as u64
        }
    });
    Ok(())
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
                    let scale = 2f64.powi(sa as i32 + sb as i32 - 254);
                    (acc[x] as f64 + part[x] as f64 * scale) as f32
                };
            }
        }
    }
}

fn run_i32(d: &Dims, regs: &mut [[u32; 64]]) -> Result<(), MatrixError> {
    let op = d.op;
    let (m, n, k) = (op.m, op.n, op.k);
    let mut a = [0i32; MAX_ELEMS];
    let mut b = [0i32; MAX_ELEMS];
    let mut acc = [0i64; MAX_ELEMS];
    d.for_a(regs, |x, raw| a[x] = raw as u8 as i8 as i32);
    d.for_b(regs, |x, raw| b[x] = raw as u8 as i8 as i32);
    d.for_c(regs, 32, |x, raw| acc[x] = raw as u32 as i32 as i64);
    for blk in 0..op.blocks {
        for i in 0..m {
            for j in 0..n {
                let x = (blk * m + i) * n + j;
                let dot: i64 = (0..k)
                    .map(|kk| a[(blk * m + i) * k + kk] as i64 * b[(blk * k + kk) * n + j] as i64)
                    .sum();
                acc[x] += dot;
            }
        }
    }
    let saturate = d.ctl.mode & MODE_FP16_OVFL != 0;
    d.store_d(regs, 32, |x| {
        let v = acc[x];
        let r = if saturate {
            v.clamp(i32::MIN as i64, i32::MAX as i64) as i32
        } else {
            v as i32
        };
        r as u32 as u64
    });
    Ok(())
}

fn run_f64(d: &Dims, regs: &mut [[u32; 64]]) -> Result<(), MatrixError> {
    let op = d.op;
    let (m, n, k) = (op.m, op.n, op.k);
    let sign = |bit: u8| if d.ctl.blgp & bit != 0 { -1.0 } else { 1.0 };
    let (na, nbv, nc) = (sign(1), sign(2), sign(4));
    let mut a = vec![0f64; op.blocks * m * k];
    let mut b = vec![0f64; op.blocks * k * n];
    let mut acc = vec![0f64; op.blocks * m * n];
    d.for_a(regs, |x, raw| a[x] = na * f64::from_bits(raw));
    d.for_b(regs, |x, raw| b[x] = nbv * f64::from_bits(raw));
    d.for_c(regs, 64, |x, raw| acc[x] = nc * f64::from_bits(raw));
    for blk in 0..op.blocks {
        for i in 0..m {
            for j in 0..n {
                let x = (blk * m + i) * n + j;
                let mut s = acc[x];
                for kk in 0..k {
                    s = a[(blk * m + i) * k + kk].mul_add(b[(blk * k + kk) * n + j], s);
                }
                acc[x] = s;
            }
        }
    }
    d.store_d(regs, 64, |x| {
        let v = acc[x];
        if v.is_nan() {
            0x7FF8_0000_0000_0000
        } else {
            v.to_bits()
        }
    });
    Ok(())
}
