//! The fast path of f32-accumulating MFMAs and SMFMACs: whole-run register gathers and
//! scatters around the k-major GEMM microkernels ([`super::gemm::gemm_f32_kmajor`],
//! [`super::gemm::gemm_f32_rows`]).
//!
//! A [`super::Plan`] lists every element's register slot. MFMA layouts put consecutive lanes
//! of one register field on consecutive rows of A (k-major), rows of B and rows of C/D
//! (CDNA4 ISA 7.1.4), so the slot lists compress into a few `Run`s of up to 64 lanes each:
//! "lanes `l0..l0+len` of register `r`, bits `[shift+w-1:shift]`, go to logical positions
//! `o0, o0+stride, …`". Gathering moves whole runs (16 or 32 lanes for the common shapes)
//! instead of one table lookup per element; the two 16-bit halves of a register decode
//! from one load (`Halves`). Where every C/D row is one register's consecutive lanes
//! (`Rows`), the GEMM loads C and stores D in place: consecutive MFMAs on the same
//! accumulator pay no reshuffling of it. Otherwise C and D move as contiguous runs.
//!
//! Results are bit-identical to the generic executor in `mfma.rs`: the same exact element
//! decoding, the same FMA chain per output (C, then ascending k), the same canonical NaN,
//! the same sparse expansion and block-scale arithmetic. The caller uses this path only
//! where that executor adds nothing more (no FP16_OVFL clamp, no f32 input flushing).
//!
//! i8 MFMAs and SMFMACs run here too ([`FastF32::with_i32_acc`]): their products and sums
//! are integers below 2^24 in magnitude, which the f32 GEMM computes exactly; C is added
//! and D wrapped or saturated in i64, as the generic executor does. Dense i8 MFMAs on a host
//! with AVX-512 VNNI use `int8` instead: whole register dwords in, exact i32 sums.
//!
//! Submodules for the kinds the run model alone left slow: `sparse` (SMFMAC: the 4:2 A
//! expanded in one pass, or straight into i8 quads), `small_blocks` (16 blocks of 4×4 as
//! lane-wise FMA chains), `scaled` (the block-scale step, vectorised) and `fp64` (the f64
//! MFMAs). Each is bit-identical to the generic executor (tests below).

use super::formats::xf32_from_bits;
use super::gemm::{gemm_f32_kmajor, gemm_f32_rows, Isa, RowSet, RowSrc};
use std::cell::RefCell;

mod fp64;
mod fused;
mod int8;
mod scaled;
mod small_blocks;
mod sparse;

pub use fp64::{FastF64, Slots64};

pub use fused::{Entry, Fused, GroupEntry, PairEntry, MAX_GROUP};

/// Lanes per register.
const LANES: usize = 64;

/// A run of consecutive lanes of one register field, mapped to equally spaced positions of
/// a logical matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    reg: u16,
    shift: u8,
    lane0: u8,
    len: u8,
    out0: u32,
    stride: u32,
}

/// How one operand's raw register bits become f32.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decode {
    /// Element width in bits (4, 8, 16 or 32; 32 = the f32 bits themselves).
    pub bits: u32,
    /// Exact decoding table indexed by the raw element (`2^bits` entries; unused for 32).
    pub table: &'static [f32],
    /// The element is IEEE binary16: runs may decode with the host's half-precision
    /// converter (F16C `vcvtph2ps`, exact; it quiets signalling NaNs, which cannot change a
    /// result since every NaN result is canonical).
    pub f16: bool,
    /// The 32-bit element is xf32: its mantissa is truncated on the way in
    /// (`formats::xf32_from_bits`).
    pub xf32: bool,
    /// The 16-bit element is bfloat16 (decoded by a shift, no table).
    pub bf16: bool,
    /// The 8-bit element is a signed integer (decoded by sign extension, no table).
    pub i8: bool,
}

impl Decode {
    /// Raw f32 bits (C of the f32-accumulating forms).
    const F32_BITS: Decode = Decode {
        bits: 32,
        table: &[],
        f16: false,
        xf32: false,
        bf16: false,
        i8: false,
    };

    /// Whether the element width has whole elements per register and the table covers it.
    fn valid(&self) -> bool {
        match self.bits {
            32 => true,
            4 | 8 | 16 => self.table.len() >= 1 << self.bits,
            _ => false,
        }
    }
}

/// One register slot `(register, lane, bit shift)` as the plan lists it.
pub type SlotRef = (u16, u8, u8);

/// Compresses `(slot, logical index)` pairs into runs. Every pair lands in exactly one run.
fn compress(pairs: &mut [(SlotRef, u32)]) -> Vec<Run> {
    pairs.sort_unstable_by_key(|&((reg, lane, shift), out)| (reg, shift, lane, out));
    let mut runs: Vec<Run> = Vec::new();
    for &((reg, lane, shift), out) in pairs.iter() {
        if let Some(r) = runs.last_mut() {
            let same_field = r.reg == reg && r.shift == shift;
            let next_lane = u32::from(r.lane0) + u32::from(r.len) == u32::from(lane);
            let last = i64::from(r.out0) + i64::from(r.stride) * (i64::from(r.len) - 1);
            let step = i64::from(out) - last;
            let fits = if r.len == 1 {
                step > 0
            } else {
                step == i64::from(r.stride)
            };
            if same_field && next_lane && fits && usize::from(r.len) < LANES {
                if r.len == 1 {
                    r.stride = step as u32;
                }
                r.len += 1;
                continue;
            }
        }
        runs.push(Run {
            reg,
            shift,
            lane0: lane,
            len: 1,
            out0: out,
            stride: 1,
        });
    }
    runs
}

/// Whether every run stays inside `nregs` registers and a logical matrix of `size` elements.
fn in_range(runs: &[Run], nregs: usize, size: usize) -> bool {
    runs.iter().all(|r| {
        let end = r.out0 as usize + (usize::from(r.len) - 1) * r.stride as usize;
        usize::from(r.reg) < nregs
            && usize::from(r.lane0) + usize::from(r.len) <= LANES
            && end < size
    })
}

/// An f32-accumulating dense MFMA prepared for the fast path.
#[derive(Clone, Debug, PartialEq)]
pub struct FastF32 {
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    nregs: usize,
    ta: Decode,
    tb: Decode,
    /// A into k-major blocks: position `(blk·K + k)·M + i`.
    a: Vec<Run>,
    /// A's 16-bit runs paired by halves (`None` unless A is f16 or bf16).
    a_halves: Option<Halves>,
    /// B into `(blk·K + k)·N + j`.
    b: Vec<Run>,
    /// B's binary16 runs paired by halves.
    b_halves: Option<Halves>,
    /// C from registers into `(blk·M + i)·N + j`; `None`: every element is `c_imm`.
    c: Option<Vec<Run>>,
    c_imm: u32,
    /// D from the same positions.
    d: Vec<Run>,
    /// Integer accumulation ([`FastF32::with_i32_acc`]): C, D and `c_imm` are i32.
    int_acc: bool,
    /// C and D as whole rows in the register file, when the layout allows it.
    rows: Option<Rows>,
    /// A sparse A (`a` is then empty).
    sparse: Option<Vec<SparseK>>,
    /// The sparse A as pairs for the one-pass expansion ([`sparse::SparsePairs`]), when
    /// its layout allows it.
    pairs: Option<sparse::SparsePairs>,
    /// The 16-block 4×4 form ([`small_blocks::LaneBlocks`]), when the layout allows it.
    lane_blocks: Option<Box<small_blocks::LaneBlocks>>,
    /// Block-scaled ([`FastF32::with_scales`]): runs only through [`FastF32::run_scaled`].
    scaled: bool,
    /// i8 A and B as whole dword quads, for the VNNI kernel (set by
    /// [`FastF32::with_i32_acc`]).
    quads: Option<Box<int8::Quads>>,
    /// The pre-resolved kernel of this shape and format (AVX-512), if there is one.
    fused: Option<Box<Fused>>,
}

/// A 16-bit float operand's runs for the paired moves: `pairs` are two stride-1 runs on the same
/// lanes of one register, bits 15:0 and 31:16 (one load and one shuffle convert both);
/// `rest` are the runs left over.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Halves {
    pairs: Vec<HalfPair>,
    rest: Vec<Run>,
    /// `pairs` cut into 16-lane chunks, when every pair is a multiple of 16 lanes.
    chunks: Option<Chunks>,
}

/// 16 lanes at word `src` of the flattened register file (`reg·64 + lane`): bits 15:0 go
/// to positions `lo..lo+16`, bits 31:16 to `hi..hi+16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct HalfChunk {
    src: u32,
    lo: u32,
    hi: u32,
}

/// The chunks of a [`Halves`] with the bounds they need, so a run checks them once:
/// `words` register-file words and `len` output positions (an invariant: built only by
/// [`Chunks::new`]).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
struct Chunks {
    list: Vec<HalfChunk>,
    words: usize,
    len: usize,
}

impl Chunks {
    /// The chunks of `pairs`, or `None` when a pair is not a multiple of 16 lanes.
    fn new(pairs: &[HalfPair]) -> Option<Chunks> {
        let mut list = Vec::new();
        for p in pairs {
            if p.len % 16 != 0 {
                return None;
            }
            for x in 0..u32::from(p.len) / 16 {
                list.push(HalfChunk {
                    src: u32::from(p.reg) * LANES as u32 + u32::from(p.lane0) + 16 * x,
                    lo: p.lo + 16 * x,
                    hi: p.hi + 16 * x,
                });
            }
        }
        let words = list.iter().map(|c| c.src as usize + 16).max().unwrap_or(0);
        let len = list
            .iter()
            .map(|c| c.lo.max(c.hi) as usize + 16)
            .max()
            .unwrap_or(0);
        Some(Chunks { list, words, len })
    }
}

/// Lanes `lane0..lane0+len` (`len` a multiple of 8) of register `reg`: bits 15:0 go to
/// positions `lo..lo+len`, bits 31:16 to `hi..hi+len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HalfPair {
    reg: u16,
    lane0: u8,
    len: u8,
    lo: u32,
    hi: u32,
}

impl Halves {
    /// Pairs the runs of a 16-bit operand (every run lands in `pairs` or `rest`).
    fn new(runs: &[Run]) -> Halves {
        let mut used = vec![false; runs.len()];
        let mut pairs = Vec::new();
        for (x, r) in runs.iter().enumerate() {
            if r.shift != 0 || r.stride != 1 || r.len % 8 != 0 {
                continue;
            }
            let partner = runs.iter().enumerate().position(|(y, h)| {
                !used[y]
                    && h.reg == r.reg
                    && h.shift == 16
                    && h.lane0 == r.lane0
                    && h.len == r.len
                    && h.stride == 1
            });
            if let Some(y) = partner {
                used[x] = true;
                used[y] = true;
                pairs.push(HalfPair {
                    reg: r.reg,
                    lane0: r.lane0,
                    len: r.len,
                    lo: r.out0,
                    hi: runs[y].out0,
                });
            }
        }
        let rest = runs
            .iter()
            .zip(&used)
            .filter(|(_, &u)| !u)
            .map(|(r, _)| *r)
            .collect();
        let chunks = Chunks::new(&pairs);
        Halves {
            pairs,
            rest,
            chunks,
        }
    }
}

/// C and D rows `blk·M + i` as offsets into the flattened register file (`reg·64 + lane`):
/// every row of N elements lies on N consecutive lanes of one register (CDNA4 ISA 7.1.4
/// for N = 16, 32), so the GEMM reads and writes the accumulator in place
/// ([`gemm_f32_rows`]).
#[derive(Clone, Debug, PartialEq)]
struct Rows {
    /// C's rows (`None`: constant C); equal to `d` or in registers `d` does not touch.
    c: Option<RowSet>,
    d: RowSet,
}

/// The offset of each row when every `n` consecutive slots are one register's consecutive
/// lanes (whole 32-bit elements), else `None`.
fn row_offsets(slots: &[SlotRef], n: usize) -> Option<Vec<u32>> {
    if n == 0 || !slots.len().is_multiple_of(n) {
        return None;
    }
    slots
        .chunks_exact(n)
        .map(|row| {
            let (reg, lane0, _) = row[0];
            let whole = row
                .iter()
                .enumerate()
                .all(|(j, &s)| s == (reg, (usize::from(lane0) + j) as u8, 0));
            (whole && usize::from(lane0) + n <= LANES)
                .then_some(u32::from(reg) * LANES as u32 + u32::from(lane0))
        })
        .collect()
}

impl Rows {
    /// The row form of C/D for width `n`, if the layout and the operands allow it.
    fn new(slots: &Slots, n: usize) -> Option<Rows> {
        if !matches!(n, 16 | 32) {
            return None;
        }
        let d = row_offsets(slots.d, n)?;
        let c = match slots.c {
            None => None,
            Some(c) => {
                let c = row_offsets(c, n)?;
                // Rows are read and written a group at a time: C must be D itself or lie
                // in registers D does not write.
                let d_regs: std::collections::HashSet<u32> =
                    d.iter().map(|o| o / LANES as u32).collect();
                if c != d && c.iter().any(|o| d_regs.contains(&(o / LANES as u32))) {
                    return None;
                }
                Some(RowSet::new(c))
            }
        };
        Some(Rows {
            c,
            d: RowSet::new(d),
        })
    }
}

/// The slot lists of one instruction in the generic plan's logical orders.
pub struct Slots<'a> {
    /// A in `(blk·M + i)·K + k` order.
    pub a: &'a [SlotRef],
    /// B in `(blk·K + k)·N + j` order.
    pub b: &'a [SlotRef],
    /// C in `(blk·M + i)·N + j` order (`None` for a constant C).
    pub c: Option<&'a [SlotRef]>,
    /// D in the same order as C.
    pub d: &'a [SlotRef],
    /// A sparse A (SMFMAC, one block) instead of `a` (then empty): the stored elements in
    /// the order they apply (a later one wins a collision).
    pub sparse_a: Option<&'a [SparseRef]>,
}

/// A stored element of a sparse A: its slot, the slot of its 2-bit index, its row `i`, the
/// first column `k0` of its group of four, and the index value that places nothing (4 =
/// none). The element lands in column `k0 + index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SparseRef {
    /// The element's register slot.
    pub val: SlotRef,
    /// The register slot of its 2-bit index.
    pub idx: SlotRef,
    /// Row of A.
    pub i: u32,
    /// First column of its group.
    pub k0: u32,
    /// The index value that drops the element.
    pub never: u8,
}

/// A sparse A element checked against the shape: k-major position `k0·M + i` of index 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SparseK {
    val: SlotRef,
    idx: SlotRef,
    at: u32,
    never: u8,
}

impl FastF32 {
    /// Prepares the fast path for an `m×n×k` MFMA of `blocks` blocks over a register file of
    /// `nregs` registers; `c_imm` is the f32 bits of a constant C. `None` when the operands
    /// do not fit the fast path (then the generic executor runs).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        [m, n, k, blocks]: [usize; 4],
        slots: &Slots,
        c_imm: u32,
        ta: Decode,
        tb: Decode,
        nregs: usize,
    ) -> Option<FastF32> {
        let (sa, sb, sc) = (blocks * m * k, blocks * k * n, blocks * m * n);
        if m == 0 || n == 0 || k == 0 || blocks == 0 || !ta.valid() || !tb.valid() {
            return None;
        }
        let sparse = match slots.sparse_a {
            None => None,
            Some(sp) => {
                // One block, 8- or 16-bit elements (whole items in a register), every
                // element inside the register file and the matrix.
                let ok = blocks == 1
                    && slots.a.is_empty()
                    && matches!(ta.bits, 8 | 16)
                    && sp.iter().all(|e| {
                        usize::from(e.val.0) < nregs
                            && usize::from(e.idx.0) < nregs
                            && usize::from(e.val.1) < LANES
                            && usize::from(e.idx.1) < LANES
                            && u32::from(e.val.2) + ta.bits <= 32
                            && e.idx.2 <= 30
                            && (e.i as usize) < m
                            && e.k0 as usize + 3 < k
                    });
                if !ok {
                    return None;
                }
                Some(
                    sp.iter()
                        .map(|e| SparseK {
                            val: e.val,
                            idx: e.idx,
                            at: e.k0 * m as u32 + e.i,
                            never: e.never,
                        })
                        .collect::<Vec<_>>(),
                )
            }
        };
        if (sparse.is_none() && slots.a.len() != sa)
            || slots.b.len() != sb
            || slots.d.len() != sc
            || slots.c.is_some_and(|c| c.len() != sc)
        {
            return None;
        }
        let mut pa: Vec<(SlotRef, u32)> = slots
            .a
            .iter()
            .enumerate()
            .map(|(p, &s)| {
                let (blk, r) = (p / (m * k), p % (m * k));
                let (i, kk) = (r / k, r % k);
                (s, (blk * m * k + kk * m + i) as u32)
            })
            .collect();
        let indexed = |v: &[SlotRef]| -> Vec<(SlotRef, u32)> {
            v.iter().enumerate().map(|(p, &s)| (s, p as u32)).collect()
        };
        let a = compress(&mut pa);
        let b = compress(&mut indexed(slots.b));
        let c = slots.c.map(|c| compress(&mut indexed(c)));
        let d = compress(&mut indexed(slots.d));
        let ok = in_range(&a, nregs, sa)
            && in_range(&b, nregs, sb)
            && c.as_ref().is_none_or(|c| in_range(c, nregs, sc))
            && in_range(&d, nregs, sc);
        let rows = Rows::new(slots, n).filter(|r| {
            let fits = |v: &RowSet| v.offsets().iter().all(|&o| o as usize + n <= nregs * LANES);
            fits(&r.d) && r.c.as_ref().is_none_or(fits)
        });
        let halves = |t: &Decode, runs: &[Run]| (t.f16 || t.bf16).then(|| Halves::new(runs));
        let pairs = sparse
            .as_ref()
            .and_then(|sp| sparse::SparsePairs::new(sp, m, k, nregs, ta.f16 || ta.bf16));
        let lane_blocks = small_blocks::LaneBlocks::new(
            [m, n, k, blocks],
            slots,
            nregs,
            ta.f16 || ta.bf16,
            tb.f16 || tb.bf16,
        )
        .map(Box::new);
        let mut fast = ok.then_some(FastF32 {
            m,
            n,
            k,
            blocks,
            nregs,
            ta,
            tb,
            a_halves: halves(&ta, &a),
            b_halves: halves(&tb, &b),
            a,
            b,
            c,
            c_imm,
            d,
            int_acc: false,
            quads: None,
            rows,
            sparse,
            pairs,
            lane_blocks,
            scaled: false,
            fused: None,
        })?;
        fast.fused = Fused::new(&fast).map(Box::new);
        Some(fast)
    }

    /// The pre-resolved kernel of this plan ([`Fused`]), if there is one.
    pub fn fused(&self) -> Option<&Fused> {
        self.fused.as_deref()
    }

    /// This plan with i32 accumulation, for integer A/B decoded by their tables to exact
    /// values: `D = C + A·B` with the product in the f32 GEMM (exact while K·max|A|·max|B| <
    /// 2^24) and the sum with C in i64. `None` when the bound does not hold.
    pub fn with_i32_acc(mut self) -> Option<FastF32> {
        let max = |t: &Decode| t.table.iter().fold(0f64, |m, v| m.max(v.abs() as f64));
        let exact = self.ta.bits < 32
            && self.tb.bits < 32
            && self.k as f64 * max(&self.ta) * max(&self.tb) < (1u32 << 24) as f64;
        self.int_acc = true;
        self.rows = None;
        self.fused = None;
        if self.ta.i8 && self.tb.i8 && self.sparse.is_none() {
            let shape = [self.m, self.n, self.k, self.blocks];
            self.quads = int8::Quads::new(shape, &self.a, &self.b).map(Box::new);
        } else if self.ta.i8 && self.tb.i8 && self.pairs.is_some() && self.blocks == 1 {
            let shape = [self.m, self.n, self.k];
            self.quads = int8::Quads::with_sparse_a(shape, &self.b).map(Box::new);
        }
        exact.then_some(self)
    }

    /// Whether a sparse A expands in one pass (`sparse::SparsePairs`).
    pub fn has_sparse_pairs(&self) -> bool {
        self.pairs.is_some()
    }

    /// Whether the 16-block 4×4 kernel runs (`small_blocks::LaneBlocks`).
    pub fn has_lane_blocks(&self) -> bool {
        self.lane_blocks.is_some() && !self.int_acc && !self.scaled
    }

    /// Whether A and B move as dword quads for the VNNI kernel (`int8::Quads`).
    pub fn has_int8_quads(&self) -> bool {
        self.quads.is_some()
    }

    /// Executes the instruction on `regs` with GEMM variant `isa`. Returns `false`, having
    /// changed nothing, when `regs` is smaller than the register file the plan was made for
    /// or the plan accumulates in i32 ([`FastF32::run_i32`]).
    pub fn run(&self, isa: Isa, regs: &mut [[u32; 64]]) -> bool {
        if regs.len() < self.nregs || self.int_acc || self.scaled {
            return false;
        }
        if let Some(f) = self.fused.as_deref().filter(|_| isa == Isa::Avx512) {
            return f.run(regs);
        }
        if let Some(rows) = &self.rows {
            return self.run_rows(isa, rows, regs);
        }
        if let Some(lb) = &self.lane_blocks {
            lb.run(isa, simd_moves(isa), regs, (self.ta, self.tb), self.c_imm);
            return true;
        }
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let Scratch { a, b, acc, .. } = &mut *s;
            let simd = simd_moves(isa);
            acc.resize(self.blocks * self.m * self.n, 0.0);
            match &self.c {
                Some(c) => gather(
                    simd,
                    c,
                    None,
                    regs,
                    Decode {
                        bits: 32,
                        table: &[],
                        f16: false,
                        xf32: false,
                        bf16: false,
                        i8: false,
                    },
                    acc,
                ),
                None => acc.fill(f32::from_bits(self.c_imm)),
            }
            self.multiply(isa, simd, regs, a, b, acc);
            scatter(simd, &self.d, acc, regs);
        });
        true
    }

    /// This plan as a block-scaled MFMA (one block, K a multiple of 32): run it with
    /// [`FastF32::run_scaled`]. `None` for other shapes.
    pub fn with_scales(mut self) -> Option<FastF32> {
        self.scaled = true;
        self.fused = None;
        (self.blocks == 1 && self.k.is_multiple_of(32) && !self.int_acc && self.sparse.is_none())
            .then_some(self)
    }

    /// Executes a block-scaled plan ([`FastF32::with_scales`]) with the E8M0 scale bytes
    /// `sa` (lane `i + M·kb` scales row i of K block kb) and `sb` (lane `j + N·kb`, column
    /// j): per 32-wide K block the partial product is computed from 0 in the k-major GEMM
    /// (the FMA chain of the generic executor), then `acc = round_f32(acc +
    /// partial·2^(sa−127)·2^(sb−127))` in f64, NaN for a scale byte 0xFF (CDNA4 ISA 7.2; the
    /// generic executor's `scaled_gemm`). Returns `false`, having changed nothing, when the
    /// plan is not block-scaled or `regs` is smaller than its register file.
    pub fn run_scaled(
        &self,
        isa: Isa,
        regs: &mut [[u32; 64]],
        sa: &[u8; 64],
        sb: &[u8; 64],
    ) -> bool {
        if regs.len() < self.nregs || !self.scaled {
            return false;
        }
        let (m, n, k) = (self.m, self.n, self.k);
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let Scratch {
                a, b, acc, part, ..
            } = &mut *s;
            let simd = simd_moves(isa);
            acc.resize(m * n, 0.0);
            match &self.c {
                Some(c) => gather(simd, c, None, regs, Decode::F32_BITS, acc),
                None => acc.fill(f32::from_bits(self.c_imm)),
            }
            self.gather_ab(isa, simd, regs, a, b);
            part.resize(m * n, 0.0);
            let mut done = true;
            for kb in 0..k / 32 {
                part.fill(0.0);
                done &= gemm_f32_kmajor(isa, m, n, 32, &a[kb * 32 * m..], &b[kb * 32 * n..], part);
                scaled::apply(isa, m, n, kb, sa, sb, part, acc);
            }
            debug_assert!(done, "scratch sized from the shape");
            scatter(simd, &self.d, acc, regs);
            true
        })
    }

    /// [`FastF32::run`] with the accumulator read and written in place ([`Rows`]).
    fn run_rows(&self, isa: Isa, rows: &Rows, regs: &mut [[u32; 64]]) -> bool {
        let (m, n, k) = (self.m, self.n, self.k);
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let Scratch { a, b, .. } = &mut *s;
            self.gather_ab(isa, simd_moves(isa), regs, a, b);
            let flat = regs.as_flattened_mut();
            let mut done = true;
            for blk in 0..self.blocks {
                let c = match &rows.c {
                    Some(c) => RowSrc::Rows(c.from(blk * m)),
                    None => RowSrc::Imm(f32::from_bits(self.c_imm)),
                };
                done &= gemm_f32_rows(
                    isa,
                    m,
                    n,
                    k,
                    &a[blk * m * k..],
                    &b[blk * k * n..],
                    c,
                    rows.d.from(blk * m),
                    flat,
                );
            }
            debug_assert!(done, "rows and scratch checked against the shape");
            done
        })
    }

    /// Gathers A and B into `a` and `b` (sized here; with the moves `mv` of GEMM variant
    /// `isa`).
    fn gather_ab(
        &self,
        isa: Isa,
        mv: Moves,
        regs: &[[u32; 64]],
        a: &mut Vec<f32>,
        b: &mut Vec<f32>,
    ) {
        a.resize(self.blocks * self.m * self.k, 0.0);
        b.resize(self.blocks * self.k * self.n, 0.0);
        if let Some(p) = &self.pairs {
            p.expand(isa, mv, regs, self.ta, a);
        } else if let Some(sp) = &self.sparse {
            // Unplaced elements are zero; each stored element goes to column k0 + index.
            a.fill(0.0);
            let conv = Conv::of(&self.ta);
            let m = self.m;
            for e in sp {
                let pos = (regs[usize::from(e.idx.0)][usize::from(e.idx.1)] >> e.idx.2) & 3;
                if pos != u32::from(e.never) {
                    let w = regs[usize::from(e.val.0)][usize::from(e.val.1)];
                    a[e.at as usize + pos as usize * m] = conv.one(w, u32::from(e.val.2));
                }
            }
        }
        gather(mv, &self.a, self.a_halves.as_ref(), regs, self.ta, a);
        gather(mv, &self.b, self.b_halves.as_ref(), regs, self.tb, b);
    }

    /// Executes an i32-accumulating plan ([`FastF32::with_i32_acc`]) on `regs`: D wraps, or
    /// saturates when `saturate` (MODE.FP16_OVFL). Returns `false`, having changed nothing,
    /// when `regs` is smaller than the plan's register file or the plan accumulates in f32.
    pub fn run_i32(&self, isa: Isa, regs: &mut [[u32; 64]], saturate: bool) -> bool {
        if regs.len() < self.nregs || !self.int_acc {
            return false;
        }
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let Scratch {
                a,
                b,
                acc,
                c_raw,
                aq,
                bq,
                acc_i,
                ..
            } = &mut *s;
            let size = self.blocks * self.m * self.n;
            c_raw.resize(size, 0);
            match &self.c {
                Some(c) => gather_raw(c, regs, c_raw),
                None => c_raw.fill(self.c_imm),
            }
            acc_i.resize(size, 0);
            let done = self.quads.as_ref().is_some_and(|q| {
                int8::gemm_quads(isa, q, regs, aq, bq, acc_i)
                    || self
                        .pairs
                        .as_ref()
                        .is_some_and(|p| int8::gemm_quads_sparse(isa, q, p, regs, aq, bq, acc_i))
            });
            let mv = simd_moves(isa);
            if !done {
                acc.resize(size, 0.0);
                acc.fill(0.0);
                self.multiply(isa, mv, regs, a, b, acc);
                // Exact: `with_i32_acc` bounds every sum below 2^24.
                for (o, &v) in acc_i.iter_mut().zip(acc.iter()) {
                    *o = v as i32;
                }
            }
            #[cfg(target_arch = "x86_64")]
            if mv == Moves::Avx512 {
                // SAFETY: `simd_moves` found AVX-512F on this CPU, the only requirement.
                unsafe { i32_out_avx512(saturate, &self.d, c_raw, acc_i, regs) };
                return;
            }
            i32_out_body(saturate, &self.d, c_raw, acc_i, regs);
        });
        true
    }

    /// Gathers A and B into `a` and `b` (with the moves `mv`, see [`simd_moves`]) and adds every block's A·B to `acc` (sized).
    fn multiply(
        &self,
        isa: Isa,
        mv: Moves,
        regs: &[[u32; 64]],
        a: &mut Vec<f32>,
        b: &mut Vec<f32>,
        acc: &mut [f32],
    ) {
        let (m, n, k) = (self.m, self.n, self.k);
        self.gather_ab(isa, mv, regs, a, b);
        for blk in 0..self.blocks {
            let done = gemm_f32_kmajor(
                isa,
                m,
                n,
                k,
                &a[blk * m * k..],
                &b[blk * k * n..],
                &mut acc[blk * m * n..(blk + 1) * m * n],
            );
            debug_assert!(done, "scratch sized from the shape");
        }
    }
}

/// Writes `D = C + A·B` of an i32-accumulating plan to the registers of `runs`: C's raw
/// i32 in `c_raw`, the exact integer A·B in `acc`, wrapped or saturated (`saturate`): the
/// i32 wrapping/saturating sum equals the i64 sum wrapped or clamped.
#[inline(always)]
fn i32_out_body(saturate: bool, runs: &[Run], c_raw: &[u32], acc: &[i32], regs: &mut [[u32; 64]]) {
    let add = |c: u32, a: i32| -> u32 {
        if saturate {
            (c as i32).saturating_add(a) as u32
        } else {
            (c as i32).wrapping_add(a) as u32
        }
    };
    for r in runs {
        let len = usize::from(r.len);
        let lanes = &mut regs[usize::from(r.reg)][usize::from(r.lane0)..][..len];
        let o0 = r.out0 as usize;
        if r.stride == 1 {
            let (c, a) = (&c_raw[o0..o0 + len], &acc[o0..o0 + len]);
            for ((w, &c), &a) in lanes.iter_mut().zip(c).zip(a) {
                *w = add(c, a);
            }
        } else {
            for (x, w) in lanes.iter_mut().enumerate() {
                let p = o0 + x * r.stride as usize;
                *w = add(c_raw[p], acc[p]);
            }
        }
    }
}

/// [`i32_out_body`] with AVX-512F, 16 lanes at a time where a run allows it (stride 1, a
/// multiple of 16 lanes): an i32 add, and for
/// saturation the overflow test `((c ^ s) & (a ^ s)) < 0` replacing an overflowed sum by
/// `i32::MAX` or `i32::MIN` after C's sign (an overflow needs C and A·B of one sign).
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn i32_out_avx512(
    saturate: bool,
    runs: &[Run],
    c_raw: &[u32],
    acc: &[i32],
    regs: &mut [[u32; 64]],
) {
    use std::arch::x86_64::*;
    let max = _mm512_set1_epi32(i32::MAX);
    let zero = _mm512_setzero_si512();
    for r in runs {
        let len = usize::from(r.len);
        if r.stride != 1 || len % 16 != 0 {
            i32_out_body(saturate, std::slice::from_ref(r), c_raw, acc, regs);
            continue;
        }
        let lanes = &mut regs[usize::from(r.reg)][usize::from(r.lane0)..][..len];
        let o0 = r.out0 as usize;
        let (c, a) = (&c_raw[o0..o0 + len], &acc[o0..o0 + len]);
        for ((w, c), a) in lanes
            .chunks_exact_mut(16)
            .zip(c.chunks_exact(16))
            .zip(a.chunks_exact(16))
        {
            // SAFETY: `w`, `c` and `a` are 16 elements (64 bytes) each; unaligned loads
            // and stores are allowed.
            unsafe {
                let av = _mm512_loadu_si512(a.as_ptr().cast());
                let cv = _mm512_loadu_si512(c.as_ptr().cast());
                let mut sum = _mm512_add_epi32(cv, av);
                if saturate {
                    let ov = _mm512_and_si512(_mm512_xor_si512(cv, sum), _mm512_xor_si512(av, sum));
                    let over = _mm512_cmplt_epi32_mask(ov, zero);
                    let limit = _mm512_xor_si512(_mm512_srai_epi32::<31>(cv), max);
                    sum = _mm512_mask_mov_epi32(sum, over, limit);
                }
                _mm512_storeu_si512(w.as_mut_ptr().cast(), sum);
            }
        }
    }
}

/// Copies the raw 32-bit elements of `runs` into `out`.
fn gather_raw(runs: &[Run], regs: &[[u32; 64]], out: &mut [u32]) {
    for r in runs {
        let lanes = &regs[usize::from(r.reg)][usize::from(r.lane0)..][..usize::from(r.len)];
        if r.stride == 1 {
            out[r.out0 as usize..][..lanes.len()].copy_from_slice(lanes);
            continue;
        }
        for (x, &w) in lanes.iter().enumerate() {
            out[r.out0 as usize + x * r.stride as usize] = w;
        }
    }
}

/// Per-thread operand buffers (no allocation per instruction).
struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    acc: Vec<f32>,
    c_raw: Vec<u32>,
    /// Block-scaled partial sums.
    part: Vec<f32>,
    /// i8 A and B as dword quads for the VNNI kernel ([`int8::Quads`]).
    aq: Vec<u32>,
    bq: Vec<u32>,
    /// Integer sums A·B.
    acc_i: Vec<i32>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = const {
        RefCell::new(Scratch {
            a: Vec::new(),
            b: Vec::new(),
            acc: Vec::new(),
            c_raw: Vec::new(),
            part: Vec::new(),
            aq: Vec::new(),
            bq: Vec::new(),
            acc_i: Vec::new(),
        })
    };
}

/// Which variant of the operand moves ([`gather`], [`scatter`]) runs, decided once per
/// instruction so the moves compile as one target-feature function each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
enum Moves {
    /// Plain Rust.
    Scalar,
    /// AVX2 + F16C: the F16C conversion inlined into the run loops.
    Avx2,
    /// [`Moves::Avx2`], and the paired 16-bit halves 16 lanes at a time with AVX-512F.
    Avx512,
}

impl Moves {
    /// Whether the AVX2 + F16C moves run (an x86 vector variant on a host with both).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn simd(self) -> bool {
        self != Moves::Scalar
    }
}

/// The moves for GEMM variant `isa`: [`Moves::Avx2`] for an x86 vector variant on a host
/// with AVX2 and F16C, [`Moves::Avx512`] when the variant is AVX-512 and the host has
/// AVX-512F too.
fn simd_moves(isa: Isa) -> Moves {
    #[cfg(target_arch = "x86_64")]
    {
        let simd = matches!(isa, Isa::Avx512 | Isa::Avx2)
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c");
        if simd && isa == Isa::Avx512 && std::arch::is_x86_feature_detected!("avx512f") {
            Moves::Avx512
        } else if simd {
            Moves::Avx2
        } else {
            Moves::Scalar
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        Moves::Scalar
    }
}

/// Decodes the elements of `runs` into `out` (ranges checked when the runs were built);
/// `mv` from [`simd_moves`].
fn gather(
    mv: Moves,
    runs: &[Run],
    halves: Option<&Halves>,
    regs: &[[u32; 64]],
    t: Decode,
    out: &mut [f32],
) {
    // Paired halves: bf16 everywhere, f16 with the F16C moves; 16 lanes at a time with
    // AVX-512F.
    let runs = match halves {
        #[cfg(target_arch = "x86_64")]
        Some(h) if mv == Moves::Avx512 && (t.f16 || t.bf16) => {
            match &h.chunks {
                Some(c) if c.words <= regs.len() * LANES && c.len <= out.len() => {
                    // SAFETY: `simd_moves` found AVX-512F and F16C on this CPU; the chunks
                    // lie inside `regs` and `out` (checked just above).
                    unsafe {
                        if t.f16 {
                            half_chunks_avx512::<false>(c, regs, out)
                        } else {
                            half_chunks_avx512::<true>(c, regs, out)
                        }
                    }
                }
                // SAFETY: `simd_moves` found AVX-512F and F16C on this CPU, the only
                // requirements.
                _ => unsafe {
                    if t.f16 {
                        half_pairs_avx512::<false>(&h.pairs, regs, out)
                    } else {
                        half_pairs_avx512::<true>(&h.pairs, regs, out)
                    }
                },
            }
            &h.rest[..]
        }
        Some(h) if t.bf16 => {
            bf16_pairs(&h.pairs, regs, out);
            &h.rest[..]
        }
        #[cfg(target_arch = "x86_64")]
        Some(h) if mv.simd() && t.f16 => {
            // SAFETY: `simd_moves` found AVX2 and F16C on this CPU, the only requirement.
            unsafe { f16_pairs_f16c(&h.pairs, regs, out) };
            &h.rest[..]
        }
        _ => runs,
    };
    if runs.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if mv == Moves::Avx512 {
        // The table of the format in 256 entries (4-bit: the first 16; i8: none).
        let mut t16 = [0f32; 256];
        let narrow = match (t.bits, t.i8) {
            (8, true) => Some(NARROW_I8),
            (8, false) => t.table.first_chunk::<256>().map(|_| NARROW_TABLE8),
            (4, _) => t.table.first_chunk::<16>().map(|tab| {
                t16[..16].copy_from_slice(tab);
                NARROW_TABLE4
            }),
            _ => None,
        };
        if let Some(kind) = narrow {
            let tab = match t.table.first_chunk::<256>() {
                Some(tab) if kind == NARROW_TABLE8 => tab,
                _ => &t16,
            };
            // SAFETY: `simd_moves` found AVX-512F, AVX2 and F16C on this CPU, the only
            // requirements.
            unsafe {
                match kind {
                    NARROW_I8 => narrow_avx512::<NARROW_I8>(runs, regs, tab, t, out),
                    NARROW_TABLE4 => narrow_avx512::<NARROW_TABLE4>(runs, regs, tab, t, out),
                    _ => narrow_avx512::<NARROW_TABLE8>(runs, regs, tab, t, out),
                }
            }
            return;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if mv.simd() {
        // SAFETY: `simd_moves` found AVX2 and F16C on this CPU, the only requirement.
        unsafe { gather_avx2(runs, regs, t, out) };
        return;
    }
    let _ = mv;
    // SAFETY: without F16C the body uses no target-specific instruction.
    unsafe { gather_body::<false>(runs, regs, t, out) }
}

/// [`half_pairs_avx512`] over precomputed 16-lane chunks, without a bounds check per
/// chunk (the bounds were checked once by the caller).
///
/// # Safety
/// The CPU supports AVX-512F and F16C; `c.words <= 64·regs.len()` and `c.len <= out.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,f16c")]
unsafe fn half_chunks_avx512<const BF16: bool>(c: &Chunks, regs: &[[u32; 64]], out: &mut [f32]) {
    use std::arch::x86_64::*;
    let high = _mm512_set1_epi32(0xFFFF_0000u32 as i32);
    let src = regs.as_ptr().cast::<u32>();
    let dst = out.as_mut_ptr();
    for ch in &c.list {
        // SAFETY: `src + 16 <= c.words <= 64·regs.len()` words of the contiguous register
        // file, `lo + 16` and `hi + 16 <= c.len <= out.len()` (`Chunks` invariant and the
        // contract); `regs` and `out` do not overlap (a shared and an exclusive borrow).
        unsafe {
            let w = _mm512_loadu_si512(src.add(ch.src as usize).cast());
            let (l, h) = if BF16 {
                (
                    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(w)),
                    _mm512_castsi512_ps(_mm512_and_si512(w, high)),
                )
            } else {
                (
                    _mm512_cvtph_ps(_mm512_cvtepi32_epi16(w)),
                    _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(w))),
                )
            };
            _mm512_storeu_ps(dst.add(ch.lo as usize), l);
            _mm512_storeu_ps(dst.add(ch.hi as usize), h);
        }
    }
}

/// Decodes the 16-bit halves of each pair into `out` (positions checked when the runs were
/// built), up to 16 lanes at a time: one load, then for binary16 a truncating pack of each
/// half to 16 bits (`vpmovdw`) and a conversion (`vcvtph2ps`; exact, see [`gather_body`]),
/// for bfloat16 a shift or a mask (exact: the upper half of the f32 bits).
///
/// # Safety
/// The CPU supports AVX-512F and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,f16c")]
unsafe fn half_pairs_avx512<const BF16: bool>(
    pairs: &[HalfPair],
    regs: &[[u32; 64]],
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    let high = _mm512_set1_epi32(0xFFFF_0000u32 as i32);
    for p in pairs {
        let len = usize::from(p.len);
        let lanes = &regs[usize::from(p.reg)][usize::from(p.lane0)..][..len];
        let (lo, hi) = (p.lo as usize, p.hi as usize);
        for (x, src) in lanes.chunks(16).enumerate() {
            // 16 lanes, or the last 8 (pairs are multiples of 8 lanes). Whole chunks use
            // plain loads and stores: a masked load cannot take its data from the store
            // buffer, and the registers were usually just written.
            let full = src.len() == 16;
            let mask: __mmask16 = if full { 0xFFFF } else { 0xFF };
            // SAFETY: the load reads `src.len()` elements (16, or 8 under `mask`), all inside
            // `src`.
            let w = unsafe {
                if full {
                    _mm512_loadu_si512(src.as_ptr().cast())
                } else {
                    _mm512_maskz_loadu_epi32(mask, src.as_ptr().cast())
                }
            };
            let (l, h) = if BF16 {
                (
                    _mm512_castsi512_ps(_mm512_slli_epi32::<16>(w)),
                    _mm512_castsi512_ps(_mm512_and_si512(w, high)),
                )
            } else {
                (
                    _mm512_cvtph_ps(_mm512_cvtepi32_epi16(w)),
                    _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_srli_epi32::<16>(w))),
                )
            };
            for (at, v) in [(lo, l), (hi, h)] {
                let dst = &mut out[at + 16 * x..at + 16 * x + src.len()];
                // SAFETY: the store writes `src.len()` elements (16, or 8 under `mask`), all
                // inside `dst`.
                unsafe {
                    if full {
                        _mm512_storeu_ps(dst.as_mut_ptr(), v)
                    } else {
                        _mm512_mask_storeu_ps(dst.as_mut_ptr(), mask, v)
                    }
                }
            }
        }
    }
}

/// [`narrow_avx512`] kinds: an 8-bit table, signed 8-bit integers, a 4-bit table.
#[cfg(target_arch = "x86_64")]
const NARROW_TABLE8: u8 = 0;
#[cfg(target_arch = "x86_64")]
const NARROW_I8: u8 = 1;
#[cfg(target_arch = "x86_64")]
const NARROW_TABLE4: u8 = 2;

/// [`gather`] for 8- and 4-bit elements, 16 lanes at a time where a run allows it (stride
/// 1, a multiple of 16 lanes); other runs take [`gather_body`]. An 8-bit table
/// (`NARROW_TABLE8`) sits in 16 vector registers and each element's entry is picked by
/// two-table permutes (`vpermt2ps`, index bits 4:0) and blends on index bits 5, 6 and 7; a
/// 4-bit table (`NARROW_TABLE4`, the first 16 entries of `tab`) by one permute; so the
/// values are the table's own. Signed 8-bit integers (`NARROW_I8`) sign-extend by shifts
/// and convert exactly.
///
/// # Safety
/// The CPU supports AVX-512F, AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,f16c")]
unsafe fn narrow_avx512<const KIND: u8>(
    runs: &[Run],
    regs: &[[u32; 64]],
    tab: &[f32; 256],
    t: Decode,
    out: &mut [f32],
) {
    use std::arch::x86_64::*;
    // SAFETY: each load reads 16 of the table's 256 entries.
    let tv: [__m512; 16] =
        core::array::from_fn(|x| unsafe { _mm512_loadu_ps(tab.as_ptr().add(16 * x)) });
    let mask = _mm512_set1_epi32(if KIND == NARROW_TABLE4 { 0xF } else { 0xFF });
    let (b5, b6, b7) = (
        _mm512_set1_epi32(1 << 5),
        _mm512_set1_epi32(1 << 6),
        _mm512_set1_epi32(1 << 7),
    );
    for r in runs {
        let len = usize::from(r.len);
        if r.stride != 1 || len % 16 != 0 {
            // SAFETY: this function's features are the body's requirement for `F16C`.
            unsafe { gather_body::<true>(std::slice::from_ref(r), regs, t, out) };
            continue;
        }
        let lanes = &regs[usize::from(r.reg)][usize::from(r.lane0)..][..len];
        let o0 = r.out0 as usize;
        let cnt = _mm_cvtsi32_si128(i32::from(r.shift));
        for (src, dst) in lanes
            .chunks_exact(16)
            .zip(out[o0..o0 + len].chunks_exact_mut(16))
        {
            // SAFETY: `src` and `dst` are 16 elements (64 bytes) each; unaligned loads and
            // stores are allowed.
            unsafe {
                let w = _mm512_loadu_si512(src.as_ptr().cast());
                let idx = _mm512_and_si512(_mm512_srl_epi32(w, cnt), mask);
                let v = match KIND {
                    NARROW_I8 => {
                        _mm512_cvtepi32_ps(_mm512_srai_epi32::<24>(_mm512_slli_epi32::<24>(idx)))
                    }
                    NARROW_TABLE4 => _mm512_permutexvar_ps(idx, tv[0]),
                    _ => {
                        let q: [__m512; 8] = core::array::from_fn(|x| {
                            _mm512_permutex2var_ps(tv[2 * x], idx, tv[2 * x + 1])
                        });
                        let m5 = _mm512_test_epi32_mask(idx, b5);
                        let h: [__m512; 4] = core::array::from_fn(|x| {
                            _mm512_mask_mov_ps(q[2 * x], m5, q[2 * x + 1])
                        });
                        let m6 = _mm512_test_epi32_mask(idx, b6);
                        let lo = _mm512_mask_mov_ps(h[0], m6, h[1]);
                        let hi = _mm512_mask_mov_ps(h[2], m6, h[3]);
                        let m7 = _mm512_test_epi32_mask(idx, b7);
                        _mm512_mask_mov_ps(lo, m7, hi)
                    }
                };
                _mm512_storeu_ps(dst.as_mut_ptr(), v);
            }
        }
    }
}

/// [`gather`] compiled for AVX2 + F16C.
///
/// # Safety
/// The CPU supports AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn gather_avx2(runs: &[Run], regs: &[[u32; 64]], t: Decode, out: &mut [f32]) {
    // SAFETY: this function's features are the body's requirement for `F16C`.
    unsafe { gather_body::<true>(runs, regs, t, out) }
}

/// How [`gather_body`] turns one raw element into f32 (chosen once per operand).
#[derive(Clone, Copy)]
enum Conv<'a> {
    /// f32 bits.
    F32,
    /// xf32 bits (mantissa truncated).
    Xf32,
    /// bfloat16: the upper half of the f32 bits (exact, `formats::Elem::Bf16`).
    Bf16,
    /// An 8-bit format through its full table (no bounds check per element).
    Table8(&'a [f32; 256]),
    /// Signed 8-bit integers (exact in f32).
    I8,
    /// Any other width through its table, masked.
    Table(&'a [f32], u32),
}

impl Conv<'_> {
    fn of(t: &Decode) -> Conv<'_> {
        match t.bits {
            32 if t.xf32 => Conv::Xf32,
            32 => Conv::F32,
            16 if t.bf16 => Conv::Bf16,
            8 if t.i8 => Conv::I8,
            8 => match t.table.first_chunk::<256>() {
                Some(tab) => Conv::Table8(tab),
                None => Conv::Table(t.table, 0xFF),
            },
            b => Conv::Table(t.table, (1u32 << b) - 1),
        }
    }

    /// The element at bits `[sh+w-1:sh]` of `w`.
    #[inline(always)]
    fn one(self, w: u32, sh: u32) -> f32 {
        match self {
            Conv::F32 => f32::from_bits(w),
            Conv::Xf32 => xf32_from_bits(w),
            Conv::Bf16 => f32::from_bits((w >> sh) << 16),
            Conv::Table8(t) => t[usize::from((w >> sh) as u8)],
            Conv::I8 => f32::from((w >> sh) as u8 as i8),
            Conv::Table(t, mask) => t[((w >> sh) & mask) as usize],
        }
    }

    /// Decodes `lanes` into `dst` (equal lengths), one loop per format so each vectorises.
    #[inline(always)]
    fn run(self, lanes: &[u32], sh: u32, dst: &mut [f32]) {
        match self {
            Conv::F32 => {
                for (o, &w) in dst.iter_mut().zip(lanes) {
                    *o = f32::from_bits(w);
                }
            }
            Conv::Xf32 => {
                for (o, &w) in dst.iter_mut().zip(lanes) {
                    *o = xf32_from_bits(w);
                }
            }
            Conv::Bf16 => {
                for (o, &w) in dst.iter_mut().zip(lanes) {
                    *o = f32::from_bits((w >> sh) << 16);
                }
            }
            Conv::Table8(t) => {
                for (o, &w) in dst.iter_mut().zip(lanes) {
                    *o = t[usize::from((w >> sh) as u8)];
                }
            }
            Conv::I8 => {
                for (o, &w) in dst.iter_mut().zip(lanes) {
                    *o = f32::from((w >> sh) as u8 as i8);
                }
            }
            Conv::Table(t, mask) => {
                for (o, &w) in dst.iter_mut().zip(lanes) {
                    *o = t[((w >> sh) & mask) as usize];
                }
            }
        }
    }
}

/// The body of [`gather`]; with `F16C`, binary16 runs of a multiple of 8 lanes convert
/// with [`f16_run_f16c`] (exact; it quiets signalling NaNs, which cannot change a result
/// since every NaN result is canonical).
///
/// # Safety
/// With `F16C`, the CPU supports AVX2 and F16C.
#[inline(always)]
unsafe fn gather_body<const F16C: bool>(
    runs: &[Run],
    regs: &[[u32; 64]],
    t: Decode,
    out: &mut [f32],
) {
    let conv = Conv::of(&t);
    for r in runs {
        let lanes = &regs[usize::from(r.reg)][usize::from(r.lane0)..][..usize::from(r.len)];
        let o0 = r.out0 as usize;
        let sh = u32::from(r.shift);
        if r.stride == 1 {
            let dst = &mut out[o0..o0 + lanes.len()];
            #[cfg(target_arch = "x86_64")]
            if F16C && t.f16 && lanes.len().is_multiple_of(8) {
                // SAFETY: the caller guarantees AVX2 and F16C; `lanes` and `dst` have equal
                // lengths, a multiple of 8.
                unsafe { f16_run_f16c(lanes, sh, dst) };
                continue;
            }
            conv.run(lanes, sh, dst);
        } else {
            let st = r.stride as usize;
            for (x, &w) in lanes.iter().enumerate() {
                out[o0 + x * st] = conv.one(w, sh);
            }
        }
    }
}

/// Decodes the bfloat16 halves of each pair into `out` (exact: the upper half of the f32
/// bits; positions checked when the runs were built).
fn bf16_pairs(pairs: &[HalfPair], regs: &[[u32; 64]], out: &mut [f32]) {
    for p in pairs {
        let len = usize::from(p.len);
        let lanes = &regs[usize::from(p.reg)][usize::from(p.lane0)..][..len];
        let (lo, hi) = (p.lo as usize, p.hi as usize);
        for (o, &w) in out[lo..lo + len].iter_mut().zip(lanes) {
            *o = f32::from_bits(w << 16);
        }
        for (o, &w) in out[hi..hi + len].iter_mut().zip(lanes) {
            *o = f32::from_bits(w & 0xFFFF_0000);
        }
    }
}

/// Decodes the binary16 halves of each pair into `out` (positions checked when the runs
/// were built), 8 lanes at a time: one load, a byte shuffle that gathers the low and the
/// high halves, and two conversions (`vcvtph2ps`; exact, see [`gather_body`]).
///
/// # Safety
/// The CPU supports AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn f16_pairs_f16c(pairs: &[HalfPair], regs: &[[u32; 64]], out: &mut [f32]) {
    use std::arch::x86_64::*;
    // Per 128-bit lane: bytes of the four low halves, then of the four high halves.
    let split = _mm256_setr_epi8(
        0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7,
        10, 11, 14, 15,
    );
    for p in pairs {
        let len = usize::from(p.len);
        let lanes = &regs[usize::from(p.reg)][usize::from(p.lane0)..][..len];
        let (lo, hi) = (p.lo as usize, p.hi as usize);
        for (x, src) in lanes.chunks_exact(8).enumerate() {
            // SAFETY: `src` is 8 elements (32 bytes); unaligned loads are allowed.
            let w = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
            // [lo0..3 hi0..3 | lo4..7 hi4..7] → qwords 0,2,1,3: [lo0..7 | hi0..7].
            let s = _mm256_shuffle_epi8(w, split);
            let q = _mm256_permute4x64_epi64(s, 0b11_01_10_00);
            let l = _mm256_cvtph_ps(_mm256_castsi256_si128(q));
            let h = _mm256_cvtph_ps(_mm256_extracti128_si256(q, 1));
            let dst = &mut out[lo + 8 * x..lo + 8 * x + 8];
            // SAFETY: `dst` is 8 elements (32 bytes); unaligned stores are allowed.
            unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), l) };
            let dst = &mut out[hi + 8 * x..hi + 8 * x + 8];
            // SAFETY: as above.
            unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), h) };
        }
    }
}

/// Decodes the binary16 values at bits `[sh+15:sh]` of `lanes` into `out`, 8 lanes at a
/// time: shift, mask to 16 bits, pack to halves, convert (`vcvtph2ps`).
///
/// # Safety
/// The CPU supports AVX2 and F16C; `lanes.len() == out.len()`, a multiple of 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn f16_run_f16c(lanes: &[u32], sh: u32, out: &mut [f32]) {
    use std::arch::x86_64::*;
    let cnt = _mm_cvtsi32_si128(sh as i32);
    let low16 = _mm256_set1_epi32(0xFFFF);
    for (src, dst) in lanes.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        // SAFETY: `src` and `dst` are 8 elements (32 bytes) each; unaligned loads and
        // stores are allowed.
        unsafe {
            let w = _mm256_loadu_si256(src.as_ptr().cast());
            let w = _mm256_and_si256(_mm256_srl_epi32(w, cnt), low16);
            // Per 128-bit half: [w0..w3 w0..w3 | w4..w7 w4..w7] (no saturation: ≤ 0xFFFF);
            // qwords 0 and 2 are the eight halves in order.
            let p = _mm256_permute4x64_epi64(_mm256_packus_epi32(w, w), 0b10_00_10_00);
            _mm256_storeu_ps(dst.as_mut_ptr(), _mm256_cvtph_ps(_mm256_castsi256_si128(p)));
        }
    }
}

/// Writes `acc` to the registers of `runs`, NaN as the canonical 0x7FC00000; `mv` from
/// [`simd_moves`].
fn scatter(mv: Moves, runs: &[Run], acc: &[f32], regs: &mut [[u32; 64]]) {
    #[cfg(target_arch = "x86_64")]
    if mv.simd() {
        // SAFETY: `simd_moves` found AVX2 on this CPU, the only requirement.
        unsafe { scatter_avx2(runs, acc, regs) };
        return;
    }
    let _ = mv;
    scatter_body(runs, acc, regs)
}

/// [`scatter`] compiled for AVX2 (the NaN canonicalisation vectorises).
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scatter_avx2(runs: &[Run], acc: &[f32], regs: &mut [[u32; 64]]) {
    scatter_body(runs, acc, regs)
}

/// The body of [`scatter`].
#[inline(always)]
fn scatter_body(runs: &[Run], acc: &[f32], regs: &mut [[u32; 64]]) {
    let bits = |v: f32| if v.is_nan() { 0x7FC0_0000 } else { v.to_bits() };
    for r in runs {
        let lanes = &mut regs[usize::from(r.reg)][usize::from(r.lane0)..][..usize::from(r.len)];
        let o0 = r.out0 as usize;
        if r.stride == 1 {
            for (w, &v) in lanes.iter_mut().zip(&acc[o0..o0 + usize::from(r.len)]) {
                *w = bits(v);
            }
        } else {
            let st = r.stride as usize;
            for (x, w) in lanes.iter_mut().enumerate() {
                *w = bits(acc[o0 + x * st]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matrix::gemm::best_isa;
    use crate::matrix::{CSrc, Operands};

    /// The operand placements the fast-path tests run: 0 C = D in place, 1 D over A, 2 a
    /// constant C (`c_imm`), 3 C overlapping D one register off (D must not clobber C early).
    fn operand_set(set: usize, c_imm: u64) -> Operands {
        let (d, a, c) = match set {
            0 => (300, 0, CSrc::Reg(300)),
            1 => (0, 0, CSrc::Reg(100)),
            2 => (200, 8, CSrc::Imm(c_imm)),
            _ => (301, 8, CSrc::Reg(300)),
        };
        Operands {
            d,
            a,
            b: 40,
            c,
            index: 0,
        }
    }

    /// Runs cover every pair exactly once and follow the lanes and strides they claim.
    #[test]
    fn compress_keeps_every_pair() {
        // Lanes 0..16 → stride 16; lane 16 starts a new run; a repeated lane starts another;
        // a different shift is another field.
        let mut pairs: Vec<(SlotRef, u32)> = (0..20u8)
            .map(|l| ((3, l, 0), u32::from(l % 16) * 16 + u32::from(l / 16)))
            .chain([((3, 19, 0), 999), ((3, 0, 16), 7)])
            .collect();
        let want: std::collections::BTreeSet<_> = pairs.iter().copied().collect();
        let runs = compress(&mut pairs);
        let mut got = std::collections::BTreeSet::new();
        for r in &runs {
            for x in 0..r.len {
                let p = (
                    (r.reg, r.lane0 + x, r.shift),
                    r.out0 + r.stride * u32::from(x),
                );
                assert!(got.insert(p), "{p:?} twice");
            }
        }
        assert_eq!(got, want);
        assert_eq!(runs[0].len, 16);
        assert_eq!(runs[0].stride, 16);
        assert_eq!(runs.len(), 4, "{runs:?}");
    }

    /// The paired 16-bit moves of every variant the host has (AVX-512F 16-lane chunks
    /// and 8-lane tails, AVX2+F16C, plain) decode both halves of each lane to the exact
    /// values of `Elem::to_f32` (a NaN as some NaN: the converters quiet signalling NaNs),
    /// and leave every other position alone; lengths 8 to 64 lanes.
    #[test]
    fn paired_halves_decode_exactly() {
        use crate::matrix::formats::Elem;
        let mut seed = 0x5DEE_CE66_D1CE_4E5Bu64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // Halves with every exponent, signalling and quiet NaNs, infinities, denormals.
        let specials = [
            0x7C01u32, 0xFE00, 0x7C00, 0x8001, 0x03FF, 0x8000, 0x7F81, 0xFF80,
        ];
        let regs: Vec<[u32; 64]> = (0..4)
            .map(|_| {
                core::array::from_fn(|_| {
                    let x = next();
                    let half = |y: u64| match y % 11 {
                        0 => specials[(y / 11 % 8) as usize],
                        _ => (y >> 8) as u32 & 0xFFFF,
                    };
                    half(x) | half(x >> 24) << 16
                })
            })
            .collect();
        let pairs = [
            HalfPair {
                reg: 0,
                lane0: 0,
                len: 8,
                lo: 0,
                hi: 8,
            },
            HalfPair {
                reg: 1,
                lane0: 8,
                len: 24,
                lo: 16,
                hi: 100,
            },
            HalfPair {
                reg: 2,
                lane0: 0,
                len: 64,
                lo: 130,
                hi: 200,
            },
            HalfPair {
                reg: 3,
                lane0: 40,
                len: 16,
                lo: 264,
                hi: 280,
            },
        ];
        let poison = f32::from_bits(0x7F80_DEAD);
        for (elem, t) in [
            (
                Elem::F16,
                Decode {
                    bits: 16,
                    table: &[],
                    f16: true,
                    xf32: false,
                    bf16: false,
                    i8: false,
                },
            ),
            (
                Elem::Bf16,
                Decode {
                    bits: 16,
                    table: &[],
                    f16: false,
                    xf32: false,
                    bf16: true,
                    i8: false,
                },
            ),
        ] {
            // All pairs (the pair loop), and those of whole 16-lane chunks (the chunk list).
            let whole: Vec<HalfPair> = pairs.iter().filter(|p| p.len % 16 == 0).copied().collect();
            assert_eq!(whole.len(), 2);
            for set in [&pairs[..], &whole[..]] {
                let mut want = vec![poison; 300];
                for p in set {
                    for x in 0..usize::from(p.len) {
                        let w = regs[usize::from(p.reg)][usize::from(p.lane0) + x];
                        want[p.lo as usize + x] = elem.to_f32(w & 0xFFFF);
                        want[p.hi as usize + x] = elem.to_f32(w >> 16);
                    }
                }
                let h = Halves {
                    pairs: set.to_vec(),
                    rest: Vec::new(),
                    chunks: Chunks::new(set),
                };
                assert_eq!(h.chunks.is_some(), set.len() == 2);
                for isa in [Isa::Portable, Isa::Avx2, best_isa()] {
                    let mv = simd_moves(isa);
                    if elem == Elem::F16 && mv == Moves::Scalar {
                        continue; // Unpaired f16 runs take the table path instead.
                    }
                    let mut got = vec![poison; 300];
                    gather(mv, &[], Some(&h), &regs, t, &mut got);
                    for (x, (g, w)) in got.iter().zip(&want).enumerate() {
                        let same = g.to_bits() == w.to_bits()
                            || (g.is_nan() && w.is_nan() && w.to_bits() != poison.to_bits());
                        assert!(same, "{elem:?} {mv:?} position {x}: {g:?} vs {w:?}");
                    }
                }
            }
        }
    }

    /// The 8- and 4-bit moves of every variant the host has decode every code at every
    /// field position to `Elem::to_f32`'s bits (i8: the integer): 16-lane runs (the AVX-512F
    /// permutes), an 8-lane run and a strided run (the per-element path), and leave other
    /// positions alone.
    #[test]
    fn narrow_moves_decode_every_code() {
        use crate::matrix::formats::Elem;
        for elem in [Elem::Fp8Fnuz, Elem::Bf8, Elem::Fp8, Elem::I8, Elem::Fp4] {
            let bits = elem.bits();
            let value = |c: u32| {
                if elem == Elem::I8 {
                    f32::from(c as u8 as i8)
                } else {
                    elem.to_f32(c)
                }
            };
            let table: &'static [f32] = Box::leak((0..1u32 << bits).map(value).collect());
            let t = Decode {
                bits,
                table,
                f16: false,
                xf32: false,
                bf16: false,
                i8: elem == Elem::I8,
            };
            // Register r, lane l holds four different codes; 4 registers cover all 256 codes
            // at every byte position.
            let regs: Vec<[u32; 64]> = (0..4u32)
                .map(|r| {
                    core::array::from_fn(|l| {
                        let c = |b: u32| (l as u32 + 64 * ((r + b) % 4)) & 0xFF;
                        c(0) | c(1) << 8 | c(2) << 16 | c(3) << 24
                    })
                })
                .collect();
            // (4-bit fields: the low and the high nibbles of the bytes take all 16 values.)
            let mut runs = Vec::new();
            for reg in 0..4u16 {
                for shift in (0..32u8).step_by(bits as usize) {
                    let out0 = u32::from(reg) * 512 + u32::from(shift) * 16;
                    runs.push(Run {
                        reg,
                        shift,
                        lane0: 0,
                        len: 64,
                        out0,
                        stride: 1,
                    });
                }
            }
            runs.push(Run {
                reg: 1,
                shift: 8,
                lane0: 3,
                len: 8,
                out0: 2048,
                stride: 1,
            });
            runs.push(Run {
                reg: 2,
                shift: 24,
                lane0: 16,
                len: 16,
                out0: 2056,
                stride: 3,
            });
            let poison = f32::from_bits(0x7F80_DEAD);
            let mut want = vec![poison; 2200];
            for r in &runs {
                for x in 0..usize::from(r.len) {
                    let w = regs[usize::from(r.reg)][usize::from(r.lane0) + x];
                    let code = (w >> r.shift) & ((1 << bits) - 1);
                    want[r.out0 as usize + x * r.stride as usize] = value(code);
                }
            }
            for isa in [Isa::Portable, Isa::Avx2, best_isa()] {
                let mv = simd_moves(isa);
                let mut got = vec![poison; 2200];
                gather(mv, &runs, None, &regs, t, &mut got);
                for (x, (g, w)) in got.iter().zip(&want).enumerate() {
                    assert_eq!(g.to_bits(), w.to_bits(), "{elem:?} {mv:?} position {x}");
                }
            }
        }
    }

    /// Every f32-accumulating MFMA/SMFMAC and every i8 MFMA/SMFMAC of gfx942 and gfx950 (random
    /// sparse indices included), with broadcast controls,
    /// F8F6F4 formats, register, overlapping and constant C, under MODE values with and
    /// without the fast path: the fast executor leaves the register file bit-identical to
    /// the generic one on random registers (NaN, infinity and denormal patterns included).
    #[test]
    fn fast_path_matches_generic_executor() {
        use crate::isa::{Gpu, Op};
        use crate::matrix::mfma::{MODE_F32_DENORM_IN, MODE_FP16_OVFL};
        use crate::matrix::{Acc, Controls, Kind, MatrixOp, Plan, Scales};
        const NREGS: usize = 512;
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut covered, mut scaled_covered, mut quads_covered) = (0, 0, 0);
        let (mut pairs_covered, mut blocks_covered) = (0, 0);
        for gpu in [Gpu::GFX942, Gpu::GFX950] {
            for o in Op::ALL {
                let Some(op) = MatrixOp::from_mnemonic(o.name(), gpu) else {
                    continue;
                };
                let int = op.acc == Acc::I32 && matches!(op.kind, Kind::Dense | Kind::Sparse);
                if !(op.acc == Acc::F32 || int) {
                    continue;
                }
                let f8 = matches!(op.kind, Kind::F8f6f4 | Kind::ScaledF8f6f4);
                // F8F6F4 also as the block-scaled MFMA (ABID[0] = 1 turns the scales on).
                let scaled_op = MatrixOp {
                    kind: Kind::ScaledF8f6f4,
                    ..op
                };
                let variants = if f8 { vec![op, scaled_op] } else { vec![op] };
                for op in variants {
                    let scaled = op.kind == Kind::ScaledF8f6f4;
                    let ctls: Vec<(u8, u8, u8)> = if f8 {
                        vec![(0, 0, 0), (1, 0, 4), (4, 0, 1), (0, 0, 2)]
                    } else if op.kind == Kind::Sparse {
                        // CBSZ = 0: ABID picks the index set.
                        vec![(0, 0, 0), (0, 1, 0), (0, 3, 0), (1, 1, 0)]
                    } else {
                        vec![(0, 0, 0), (0, 0, 3), (1, 1, 0), (2, 3, 5)]
                    };
                    // Operand sets 0-2 in turn, and sets 3 (C overlapping D) and 2 (constant C)
                    // with plain controls.
                    let cases = ctls
                        .iter()
                        .enumerate()
                        .map(|(ci, &c)| (ci % 3, c))
                        .chain([(3, ctls[0]), (2, ctls[0])]);
                    for (set, (cbsz, abid, blgp)) in cases {
                        let opnds = operand_set(set, 0x3FC0_0000);
                        let ctl = Controls {
                            cbsz,
                            abid: if scaled { 1 } else { abid },
                            blgp,
                            mode: 0,
                        };
                        let Ok(plan) = Plan::new(&op, &opnds, &ctl, NREGS) else {
                            continue;
                        };
                        let fast = plan.has_fast_path();
                        // Every dense i8 MFMA's A and B are whole dword quads (ISA 7.1.4).
                        // So are an i8 SMFMAC's B and its A's 4:2 groups (K ≤ 128).
                        if op.acc == Acc::I32 && fast && (op.kind == Kind::Dense || op.k <= 128) {
                            assert!(plan.has_int8_quads(), "{} without quads", o.name());
                            quads_covered += 1;
                        }
                        // Every SMFMAC expands its sparse A in one pass; every 16-block 4×4
                        // f32 MFMA without broadcast controls runs lane-wise.
                        if op.kind == Kind::Sparse {
                            assert!(fast && plan.has_sparse_pairs(), "{} pairs", o.name());
                            pairs_covered += 1;
                        }
                        if op.m == 4 && op.blocks == 16 && op.acc == Acc::F32 && cbsz + blgp == 0 {
                            assert!(fast && plan.has_lane_blocks(), "{} lane blocks", o.name());
                            blocks_covered += 1;
                        }
                        let generic = plan.clone().without_fast_path();
                        for mode in [MODE_F32_DENORM_IN, 0, MODE_FP16_OVFL | MODE_F32_DENORM_IN] {
                            let regs: Vec<[u32; 64]> = (0..NREGS)
                                .map(|_| {
                                    let mut r = [0u32; 64];
                                    for w in r.iter_mut() {
                                        let x = next();
                                        *w = match x % 31 {
                                            // -0 as f32, and in both 16-bit halves.
                                            29 => 0x8000_0000,
                                            30 => 0x8000_8000,
                                            0 => 0x7FC0_1234,
                                            1 => 0xFF80_0000,
                                            2 => 0x0000_7C01,
                                            3 => 0x8000_0001,
                                            // i32 C near the limits: i8 MFMAs saturate or wrap.
                                            4 => 0x7FFF_FF00,
                                            5 => 0x8000_00FF,
                                            // Moderate magnitudes in every 16-bit half.
                                            _ => (x >> 8) as u32 & 0x3DFF_3DFF,
                                        };
                                    }
                                    r
                                })
                                .collect();
                            // E8M0 scales: 2^-8..2^7, with 0, 254 and NaN (0xFF) among them.
                            let mut byte = || match next() % 23 {
                                0 => 0xFF,
                                1 => 0,
                                2 => 254,
                                x => 119 + (x % 16) as u8,
                            };
                            let sc = Scales {
                                a: core::array::from_fn(|_| byte()),
                                b: core::array::from_fn(|_| byte()),
                            };
                            let sc = scaled.then_some(&sc);
                            for isa in [Isa::Portable, Isa::Avx2, best_isa()] {
                                let mut want = regs.clone();
                                generic.run(isa, &mut want, mode, sc).expect("generic runs");
                                let mut got = regs.clone();
                                plan.run(isa, &mut got, mode, sc).expect("fast runs");
                                assert!(
                                    want == got,
                                    "{} on {gpu:?} ctl {ctl:?} mode {mode:#x} {isa:?}",
                                    o.name()
                                );
                            }
                        }
                        covered += usize::from(fast);
                        scaled_covered += usize::from(fast && scaled);
                    }
                }
            }
        }
        assert!(
            scaled_covered > 4,
            "only {scaled_covered} block-scaled cases"
        );
        assert!(covered > 40, "only {covered} fast-path cases");
        // gfx942: 4x4x4, 16x16x16 (4 blocks), 32x32x8 (2), 16x16x32, 32x32x16; gfx950 adds
        // 16x16x64 and 32x32x32; several operand sets each.
        assert!(quads_covered >= 20, "only {quads_covered} i8 quad cases");
        // Every SMFMAC of both targets, several operand sets and index sets each.
        assert!(
            pairs_covered >= 100,
            "only {pairs_covered} sparse pair cases"
        );
        // 4x4x1 f32, 4x4x4 f16 and bf16 on both targets, operand sets 0, 2 and 3.
        assert!(
            blocks_covered >= 18,
            "only {blocks_covered} lane-block cases"
        );
    }

    /// Every f64 MFMA of gfx942 and gfx950 takes the f64 fast path and leaves the register
    /// file bit-identical to the generic executor: random registers with f64 specials (NaN,
    /// ±infinity, denormals, ±0), every BLGP negation, register, overlapping and constant C,
    /// every GEMM variant.
    #[test]
    fn f64_fast_path_matches_generic_executor() {
        use crate::isa::{Gpu, Op};
        use crate::matrix::{Acc, Controls, MatrixOp, Plan};
        const NREGS: usize = 512;
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut covered = 0;
        for gpu in [Gpu::GFX942, Gpu::GFX950] {
            for o in Op::ALL {
                let Some(op) = MatrixOp::from_mnemonic(o.name(), gpu) else {
                    continue;
                };
                if op.acc != Acc::F64 {
                    continue;
                }
                for set in 0..4 {
                    // Set 2's constant C is -1.5; in set 3 C overlaps D one register off
                    // (half of one pair, half of the next).
                    let opnds = operand_set(set, 0xBFF8_0000_0000_0000);
                    for blgp in 0..8 {
                        let ctl = Controls {
                            blgp,
                            ..Controls::default()
                        };
                        let plan = Plan::new(&op, &opnds, &ctl, NREGS).expect("f64 plan");
                        assert!(plan.has_fast_path(), "{} without the fast path", o.name());
                        // The 4x4x4 4-block form has its lane kernel (AVX-512F hosts).
                        assert_eq!(plan.has_f64_lanes4(), op.m == 4, "{}", o.name());
                        let generic = plan.clone().without_fast_path();
                        // Registers in pairs: f64 specials, small integers (exact sums and
                        // cancellations to ±0) and moderate random values.
                        let mut regs = vec![[0u32; 64]; NREGS];
                        for pair in regs.chunks_exact_mut(2) {
                            let (lo, hi) = pair.split_at_mut(1);
                            for (wl, wh) in lo[0].iter_mut().zip(hi[0].iter_mut()) {
                                let x = next();
                                let v: u64 = match x % 19 {
                                    0 => 0x7FF8_0000_0000_1234,
                                    1 => 0xFFF0_0000_0000_0000,
                                    2 => 0x7FF0_0000_0000_0000,
                                    3 => 0x000F_FFFF_FFFF_FFFF,
                                    4 => 0x8000_0000_0000_0001,
                                    5 => 0x8000_0000_0000_0000,
                                    6 => 0,
                                    7 => 0x7FEF_FFFF_FFFF_FFFF,
                                    8..=11 => (((x >> 8) % 7) as f64 - 3.0).to_bits(),
                                    // Magnitudes 2^-63..2^64, either sign.
                                    _ => {
                                        x & 0x800F_FFFF_FFFF_FFFF | (0x3C0 + (x >> 20) % 128) << 52
                                    }
                                };
                                *wl = v as u32;
                                *wh = (v >> 32) as u32;
                            }
                        }
                        for isa in [Isa::Portable, Isa::Avx2, best_isa()] {
                            let mut want = regs.clone();
                            generic.run(isa, &mut want, 0, None).expect("generic runs");
                            let mut got = regs.clone();
                            plan.run(isa, &mut got, 0, None).expect("fast runs");
                            assert!(
                                want == got,
                                "{} on {gpu:?} blgp {blgp} set {set} {isa:?}",
                                o.name()
                            );
                            assert!(want != regs, "{}: D unchanged", o.name());
                        }
                        covered += 1;
                    }
                }
            }
        }
        // v_mfma_f64_16x16x4_f64 and v_mfma_f64_4x4x4_4b_f64 on both targets.
        assert!(covered >= 4 * 4 * 8, "only {covered} f64 cases");
    }
}
