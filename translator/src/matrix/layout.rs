//! Where each matrix element lives in the wave's registers (CDNA4 ISA 7.1.4–7.1.6, 7.5;
//! `notes/cdna.md` §5.4–5.6, §5.9, including the corrections recorded there).
//!
//! A location is a lane and an *item*: the index of the element within the lane's run of
//! registers, packed little-endian (64-bit items take a register pair, 32-bit one register,
//! 16/8/4-bit items several per register, 6-bit items densely across 192-bit groups).

use super::formats::Elem;
use super::shape::{Acc, Kind, MatrixOp};

/// A lane and an item index within the operand's registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    /// Lane (0..64).
    pub lane: usize,
    /// Item index within the lane's registers.
    pub item: usize,
}

/// The location of `A[b][i][k]` (for SMFMAC, `k` is the packed column, `< K/2`).
pub fn a_loc(op: &MatrixOp, a: Elem, b: usize, i: usize, k: usize) -> Loc {
    input_loc(op, a, op.m, op.a_per_lane(), op.k_a(), b, i, k)
}

/// The location of `B[b][k][j]`.
pub fn b_loc(op: &MatrixOp, b_elem: Elem, b: usize, k: usize, j: usize) -> Loc {
    input_loc(op, b_elem, op.n, op.b_per_lane(), op.k, b, j, k)
}

/// A[b,r,k] is item `k % K_L` of lane `r + rows·(b + B·⌊k/K_L⌋)` (ISA 7.1.4), except FP8/BF8
/// operands of the F8F6F4 forms, which hold two runs of 16 k per lane: items 0–15 are
/// k = 16g.., items 16–31 are k = K/2 + 16g.. for lane group g (ISA 7.1.5 tables).
#[allow(clippy::too_many_arguments)]
fn input_loc(
    op: &MatrixOp,
    elem: Elem,
    rows: usize,
    per_lane: usize,
    kdim: usize,
    b: usize,
    r: usize,
    k: usize,
) -> Loc {
    if matches!(op.kind, Kind::F8f6f4 | Kind::ScaledF8f6f4) && elem.bits() == 8 {
        let half = kdim / 2;
        let (g, t) = if k < half {
            (k / 16, k % 16)
        } else {
            ((k - half) / 16, 16 + (k - half) % 16)
        };
        return Loc {
            lane: r + rows * g,
            item: t,
        };
    }
    Loc {
        lane: r + rows * (b + op.blocks * (k / per_lane)),
        item: k % per_lane,
    }
}

/// The location of `C[b][i][j]` and `D[b][i][j]` (ISA 7.1.4): with H = 1 for f64 and 4
/// otherwise, `B_I = ⌈64/(N·M/H)⌉`, `M_I = (64/B_I)/N`, `G = M/(H·M_I)`, the element is item
/// `(i%H) + H·(⌊i/(H·M_I)⌋ + G·⌊b/B_I⌋)` of lane `j + N·(⌊i/H⌋%M_I + M_I·(b%B_I))`.
///
/// `V_MFMA_F64_4X4X4_4B_F64` follows AMD's Matrix Instruction Calculator instead
/// (lane `j + 4b + 16i`): the ISA's formula disagrees with it in 48 of 64 entries
/// (`notes/cdna.md` §5.4).
pub fn cd_loc(op: &MatrixOp, b: usize, i: usize, j: usize) -> Loc {
    if op.acc == Acc::F64 && op.m == 4 && op.blocks == 4 {
        return Loc {
            lane: j + 4 * b + 16 * i,
            item: 0,
        };
    }
    let h = if op.acc == Acc::F64 { 1 } else { 4 };
    let per_block = op.n * op.m / h;
    let b_i = 64usize.div_ceil(per_block);
    let m_i = (64 / b_i) / op.n;
    let g = op.m / (h * m_i);
    Loc {
        lane: j + op.n * ((i / h) % m_i + m_i * (b % b_i)),
        item: (i % h) + h * (i / (h * m_i) + g * (b / b_i)),
    }
}

/// The block whose A feeds block `b` under CBSZ/ABID: `⌊b/2^CBSZ⌋·2^CBSZ + ABID`
/// (the Matrix Instruction Calculator's rule; the ISA's general formula is wrong for
/// 0 < CBSZ < log2 B, `notes/cdna.md` §5.6). `None` when the controls are illegal
/// (2^CBSZ > B or ABID ≥ 2^CBSZ).
pub fn a_source_block(blocks: usize, cbsz: u8, abid: u8, b: usize) -> Option<usize> {
    if cbsz == 0 {
        return Some(b);
    }
    let group = 1usize.checked_shl(cbsz as u32)?;
    if group > blocks || abid as usize >= group {
        return None;
    }
    Some(b / group * group + abid as usize)
}

/// The lane B's element for lane `l` is read from under BLGP (ISA Table 29).
pub fn blgp_lane(blgp: u8, l: usize) -> usize {
    match blgp & 7 {
        0 => l,
        1 => l % 32,
        2 => l % 32 + 32,
        3 => (l + 16) % 64,
        4 => l % 16,
        5 => l % 16 + 16,
        6 => l % 16 + 32,
        _ => l % 16 + 48,
    }
}

/// Reads item `item` of `bits` bits from the registers starting at `base` in `lane`.
/// `None` when a register is outside `regs`.
pub fn read_item(
    regs: &[[u32; 64]],
    base: usize,
    lane: usize,
    item: usize,
    bits: u32,
) -> Option<u64> {
    let reg = |r: usize| regs.get(base + r).map(|v| v[lane]);
    Some(match bits {
        64 => reg(2 * item)? as u64 | (reg(2 * item + 1)? as u64) << 32,
        32 => reg(item)? as u64,
        16 | 8 | 4 => {
            let per = 32 / bits as usize;
            let word = reg(item / per)?;
            ((word >> ((item % per) * bits as usize)) & ((1u32 << bits) - 1)) as u64
        }
        6 => {
            // 32 items per 192-bit group of 6 registers, item n at bits [6n+5:6n].
            let bit = 6 * (item % 32);
            let r = 6 * (item / 32) + bit / 32;
            let off = bit % 32;
            let mut v = reg(r)? as u64 >> off;
            if off > 26 {
                v |= (reg(r + 1)? as u64) << (32 - off);
            }
            v & 0x3F
        }
        _ => return None,
    })
}

/// Writes a 32-bit (`bits` = 32) or 64-bit item. `None` when a register is outside `regs`.
pub fn write_item(
    regs: &mut [[u32; 64]],
    base: usize,
    lane: usize,
    item: usize,
    bits: u32,
    v: u64,
) -> Option<()> {
    if bits == 64 {
        regs.get_mut(base + 2 * item)?[lane] = v as u32;
        regs.get_mut(base + 2 * item + 1)?[lane] = (v >> 32) as u32;
    } else {
        regs.get_mut(base + item)?[lane] = v as u32;
    }
    Some(())
}
