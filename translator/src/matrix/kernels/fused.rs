//! Pre-resolved kernels of the common dense f32-accumulating MFMAs: one `extern "C"`
//! function per shape and element format, chosen when the plan is built, that the JIT calls
//! directly (the function's address is baked into the call, `jit::lower::matrix`): no per-call
//! dispatch, no feature detection, no thread-local scratch, no bounds checks beyond the
//! register-file size (everything else was checked once, in [`Fused::new`]).
//!
//! Served: one block, M = N = 16·V (C/D rows on consecutive lanes, [`super::Rows`]), the
//! shapes 32×32×8, 16×16×16, 16×16×32 and 32×32×16 with f16, bf16 or 8-bit float
//! (FP8/BF8, FNUZ or OCP) A and B, and 16×16×128 and 32×32×64 (gfx950 F8F6F4) with
//! FP8/BF8 A and B (single instructions only: no pairs or groups, their buffers are big). A and B are decoded 16 lanes of a register at a time
//! into stack buffers (A k-major, B row-major), then the k loop runs with R rows of C in
//! host vector registers, as [`super::super::gemm::gemm_f32_rows`] does: each output is C
//! followed by one FMA per k in ascending order, so results are bit-identical to the
//! generic executor (`mfma.rs`). NaN results become 0x7FC00000: an ordered-compare chain
//! over the stored accumulators (one compare per two vectors) tells whether any NaN was
//! written, and only then are the D rows rewritten.
//!
//! Decoding: f16 by one word permute (low halves to the low 256 bits, high halves to the
//! high) and two `vcvtph2ps` (exact); bf16 by a shift and a mask; 8-bit floats by byte
//! tables: every FP8/BF8 value is a bfloat16 (at most 3 mantissa bits, exponents inside
//! bf16's range), so the f32 bits are `hi·2^24 | lo·2^16`, `hi` and `lo` looked up per byte
//! with `vpermi2b` (128-entry halves, picked by the byte's top bit) and spread to dwords by
//! one more byte permute per 16 elements. The tables are the format's own decoding table
//! (`Decode::table`), used only when every entry's low 16 bits are zero.

use super::{Decode, FastF32, Run, LANES};

/// Element formats of a fused kernel (A and B alike).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const F16: u8 = 0;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const BF16: u8 = 1;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const B8: u8 = 2;

/// Largest A or B of a pair of instructions, in elements (32×32, 16×64); a single
/// instruction of those shapes needs half.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const BUF: usize = 1024;

/// A or B of the largest single instructions (F8F6F4: 16×128, 64×32).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const BIG: usize = 2048;

/// 16 lanes at word `src` of the flattened register file (`reg·64 + lane`): element field
/// `p` (bits `[w·p + w − 1 : w·p]`, `w` = 16 or 8) goes to positions `out[p]..out[p] + 16`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Chunk {
    src: u32,
    out: [u32; 4],
}

/// The entry the JIT calls: `(fused, register file)`; the register file holds at least
/// [`Fused::nregs`] registers.
pub type Entry = unsafe extern "C" fn(*const Fused, *mut [u32; 64]);

/// The entry of a group ([`Fused::group`]): `(descriptors, count, register file)`.
pub type GroupEntry = unsafe extern "C" fn(*const [u64; 2], usize, *mut [u32; 64]);

/// The most instructions one group call runs.
pub const MAX_GROUP: usize = 8;

/// The entry of a pair ([`Fused::pair`]): `(first, second, register file)`.
pub type PairEntry = unsafe extern "C" fn(*const Fused, *const Fused, *mut [u32; 64]);

/// A pre-resolved MFMA (see the module documentation). Built only by `Fused::new`, which
/// checks every chunk and row against the register file size `nregs` and the buffers, and
/// the CPU features of the entry.
#[derive(Clone)]
pub struct Fused {
    entry: Entry,
    /// Format, N and K: what `entry` was chosen from.
    key: (u8, usize, usize),
    m: usize,
    nregs: usize,
    a: Vec<Chunk>,
    b: Vec<Chunk>,
    /// C's row offsets (`None`: every element is `c_imm`), D's.
    c_rows: Option<Vec<u32>>,
    c_imm: f32,
    d_rows: Vec<u32>,
    /// 8-bit formats: the low and high bytes of the upper 16 f32 bits of A's and of B's
    /// decoding tables: `[a_lo, a_hi, b_lo, b_hi]`.
    tables: Box<[[u8; 256]; 4]>,
}

impl PartialEq for Fused {
    fn eq(&self, o: &Fused) -> bool {
        // `entry` is a function of `key` (and the host).
        self.key == o.key
            && self.m == o.m
            && self.nregs == o.nregs
            && self.a == o.a
            && self.b == o.b
            && self.c_rows == o.c_rows
            && self.c_imm.to_bits() == o.c_imm.to_bits()
            && self.d_rows == o.d_rows
            && self.tables == o.tables
    }
}

impl std::fmt::Debug for Fused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fused")
            .field("key", &self.key)
            .field("m", &self.m)
            .field("nregs", &self.nregs)
            .finish_non_exhaustive()
    }
}

/// The chunks of `runs` (a `bits`-wide operand) when every run is whole 16-lane pieces of
/// a register field and the pieces of each 16 lanes hold all `32 / bits` fields; their
/// outputs must cover `0..size` exactly once and their sources lie in `nregs` registers.
fn chunks_of(runs: &[Run], bits: u32, size: usize, nregs: usize) -> Option<Vec<Chunk>> {
    let per = (32 / bits) as usize;
    let mut map: std::collections::BTreeMap<(u16, u8), [Option<u32>; 4]> = Default::default();
    for r in runs {
        if r.stride != 1 || r.len % 16 != 0 || u32::from(r.shift) % bits != 0 {
            return None;
        }
        let p = (u32::from(r.shift) / bits) as usize;
        for x in 0..r.len / 16 {
            let lane = r.lane0.checked_add(16 * x)?;
            let slot = map.entry((r.reg, lane)).or_default();
            if slot[p].is_some() {
                return None;
            }
            slot[p] = Some(r.out0 + 16 * u32::from(x));
        }
    }
    let mut seen = vec![false; size];
    let mut list = Vec::with_capacity(map.len());
    for ((reg, lane), outs) in map {
        if usize::from(reg) >= nregs || usize::from(lane) + 16 > LANES {
            return None;
        }
        let mut out = [0u32; 4];
        for p in 0..per {
            let o = outs[p]? as usize;
            let dst = seen.get_mut(o..o + 16)?;
            if dst.iter().any(|&s| s) {
                return None;
            }
            dst.fill(true);
            out[p] = o as u32;
        }
        list.push(Chunk {
            src: u32::from(reg) * LANES as u32 + u32::from(lane),
            out,
        });
    }
    seen.iter().all(|&s| s).then_some(list)
}

/// The byte tables of an 8-bit float format: low and high byte of each entry's upper 16
/// f32 bits, when every entry's low 16 bits are zero.
fn byte_tables(t: &Decode) -> Option<[[u8; 256]; 2]> {
    let tab = t.table.first_chunk::<256>()?;
    let mut lo = [0u8; 256];
    let mut hi = [0u8; 256];
    for (x, v) in tab.iter().enumerate() {
        let bits = v.to_bits();
        if bits & 0xFFFF != 0 {
            return None;
        }
        lo[x] = (bits >> 16) as u8;
        hi[x] = (bits >> 24) as u8;
    }
    Some([lo, hi])
}

/// Whether the CPU has what every fused kernel uses.
#[cfg(target_arch = "x86_64")]
fn host_ok() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512f") && has!("avx512bw") && has!("avx512vbmi") && has!("f16c") && has!("fma")
}

impl Fused {
    /// The fused kernel of the fast-path plan `f`, if its shape and formats are served and
    /// the host has AVX-512F/BW/VBMI, F16C and FMA.
    pub(super) fn new(f: &FastF32) -> Option<Fused> {
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (f, chunks_of, byte_tables);
            None
        }
        #[cfg(target_arch = "x86_64")]
        {
            let rows = f.rows.as_ref()?;
            if f.blocks != 1
                || f.m != f.n
                || f.int_acc
                || f.scaled
                || f.sparse.is_some()
                || f.quads.is_some()
                || !host_ok()
            {
                return None;
            }
            let (ta, tb) = (&f.ta, &f.tb);
            let (fmt, bits) = if ta.f16 && tb.f16 {
                (F16, 16)
            } else if ta.bf16 && tb.bf16 {
                (BF16, 16)
            } else if ta.bits == 8 && tb.bits == 8 && !ta.i8 && !tb.i8 {
                (B8, 8)
            } else {
                return None;
            };
            let tables = if fmt == B8 {
                let [a_lo, a_hi] = byte_tables(ta)?;
                let [b_lo, b_hi] = byte_tables(tb)?;
                Box::new([a_lo, a_hi, b_lo, b_hi])
            } else {
                Box::new([[0u8; 256]; 4])
            };
            let (m, n, k) = (f.m, f.n, f.k);
            let entry = entry_for(fmt, n, k)?;
            let cap = if k >= 64 { BIG } else { BUF / 2 };
            if m * k > cap || k * n > cap {
                return None;
            }
            let a = chunks_of(&f.a, bits, m * k, f.nregs)?;
            let b = chunks_of(&f.b, bits, k * n, f.nregs)?;
            let fits = |offs: &[u32]| {
                offs.len() == m && offs.iter().all(|&o| o as usize + n <= f.nregs * LANES)
            };
            let d_rows = rows.d.offsets().to_vec();
            let c_rows = rows.c.as_ref().map(|c| c.offsets().to_vec());
            if !fits(&d_rows) || c_rows.as_deref().is_some_and(|c| !fits(c)) {
                return None;
            }
            Some(Fused {
                entry,
                key: (fmt, n, k),
                m,
                nregs: f.nregs,
                a,
                b,
                c_rows,
                c_imm: f32::from_bits(f.c_imm),
                d_rows,
                tables,
            })
        }
    }

    /// The function the JIT calls with this `Fused` and the register file.
    pub fn entry(&self) -> Entry {
        self.entry
    }

    /// The register-file size the entry needs.
    pub fn nregs(&self) -> usize {
        self.nregs
    }

    /// The kernel that runs `self` and then `next` as one GEMM of twice the depth, when
    /// `next` accumulates onto `self`'s result (same shape and formats, C and D both
    /// `self`'s D) and reads no register `self` writes. Bit-identical to running the two:
    /// each output is one FMA chain from C over the first instruction's k and then the
    /// second's, and the first's result is not stored in between, which differs only where
    /// it is NaN (stored canonical), and there the second's result is NaN as well.
    pub fn pair(&self, next: &Fused) -> Option<PairEntry> {
        let d_regs: std::collections::BTreeSet<u32> =
            self.d_rows.iter().map(|o| o / LANES as u32).collect();
        let reads_d = next
            .a
            .iter()
            .chain(&next.b)
            .any(|c| d_regs.contains(&(c.src / LANES as u32)));
        let ok = self.key == next.key
            && 2 * self.m * self.key.2 <= BUF
            && 2 * self.key.2 * self.key.1 <= BUF
            && self.nregs == next.nregs
            && next.c_rows.as_ref() == Some(&self.d_rows)
            && next.d_rows == self.d_rows
            && !reads_d;
        if !ok {
            return None;
        }
        #[cfg(target_arch = "x86_64")]
        {
            pair_for(self.key.0, self.key.1, self.key.2)
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// The kernel that runs consecutive instructions `list` (2..=[`MAX_GROUP`], one shape and
    /// format) as one call, and for each its descriptor `[address, a | b << 32]`: `a` (`b`)
    /// is the first instruction of the list with the same A (B) registers and decoding, whose
    /// decoded operand it reuses (decided here, once, so a run pays no reuse check). `None`
    /// unless no instruction reads A or B from a register an earlier one in the list writes
    /// (operands are decoded before the first GEMM; C is read in order).
    pub fn group(list: &[&Fused]) -> Option<(GroupEntry, Vec<[u64; 2]>)> {
        let f = list.first()?;
        if !(2..=MAX_GROUP).contains(&list.len())
            || f.m * f.key.2 > BUF / 2
            || f.key.2 * f.key.1 > BUF / 2
            || list.iter().any(|g| g.key != f.key || g.nregs != f.nregs)
        {
            return None;
        }
        let mut written = std::collections::BTreeSet::new();
        let mut desc = Vec::with_capacity(list.len());
        for (x, g) in list.iter().enumerate() {
            if g.a
                .iter()
                .chain(&g.b)
                .any(|c| written.contains(&(c.src / LANES as u32)))
            {
                return None;
            }
            written.extend(g.d_rows.iter().map(|o| o / LANES as u32));
            let a = list[..x]
                .iter()
                .position(|h| h.a == g.a && h.tables[..2] == g.tables[..2])
                .unwrap_or(x);
            let b = list[..x]
                .iter()
                .position(|h| h.b == g.b && h.tables[2..] == g.tables[2..])
                .unwrap_or(x);
            desc.push([*g as *const Fused as u64, a as u64 | (b as u64) << 32]);
        }
        #[cfg(target_arch = "x86_64")]
        {
            Some((group_for(f.key.0, f.key.1, f.key.2)?, desc))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = desc;
            None
        }
    }

    /// Runs `list` on `regs` by the [`Fused::group`] kernel; `false` (nothing changed) when
    /// they do not form a group or `regs` is smaller than their register file.
    pub fn run_group(list: &[&Fused], regs: &mut [[u32; 64]]) -> bool {
        let Some((entry, desc)) = Fused::group(list) else {
            return false;
        };
        if regs.len() < list[0].nregs {
            return false;
        }
        // SAFETY: as in `run`; `group` produced `desc` for these live `Fused`s (one register
        // file size).
        unsafe { entry(desc.as_ptr(), desc.len(), regs.as_mut_ptr()) };
        true
    }

    /// Runs `self` and then `next` on `regs` by the [`Fused::pair`] kernel; `false` (nothing
    /// changed) when they do not pair or `regs` is smaller than their register file.
    pub fn run_pair(&self, next: &Fused, regs: &mut [[u32; 64]]) -> bool {
        let Some(entry) = self.pair(next) else {
            return false;
        };
        if regs.len() < self.nregs {
            return false;
        }
        // SAFETY: as in `run`; `pair` accepted the two (same register file size).
        unsafe { entry(self, next, regs.as_mut_ptr()) };
        true
    }

    /// Runs the kernel on `regs`; `false` (nothing changed) when `regs` is smaller than the
    /// register file the plan was made for.
    pub fn run(&self, regs: &mut [[u32; 64]]) -> bool {
        if regs.len() < self.nregs {
            return false;
        }
        // SAFETY: `Fused::new` chose `entry` only on a CPU with its features and checked
        // every chunk and row against `nregs` registers, which `regs` holds (just checked).
        unsafe { (self.entry)(self, regs.as_mut_ptr()) };
        true
    }
}

/// Byte permutes of the 8-bit decode: for field p, bytes 2 and 3 of output dword x take
/// byte 4x + p of the low-byte and of the high-byte lookups (the second source: index
/// bit 6); bytes 0 and 1 are zeroed by the mask.
#[cfg(target_arch = "x86_64")]
static SPREAD: [[u8; 64]; 4] = {
    let mut t = [[0u8; 64]; 4];
    let mut p = 0;
    while p < 4 {
        let mut x = 0;
        while x < 16 {
            t[p][4 * x + 2] = (4 * x + p) as u8;
            t[p][4 * x + 3] = (64 + 4 * x + p) as u8;
            x += 1;
        }
        p += 1;
    }
    t
};

/// The entry of format `fmt` for width `n` (= M) and depth `k`, with `R` rows of C at a
/// time (16 or 32 columns: 8 independent FMA chains either way).
#[cfg(target_arch = "x86_64")]
fn entry_for(fmt: u8, n: usize, k: usize) -> Option<Entry> {
    Some(match (fmt, n, k) {
        (F16, 32, 8) => entry::<F16, 2, 8, 4, 512>,
        (F16, 16, 16) => entry::<F16, 1, 16, 8, 512>,
        (F16, 16, 32) => entry::<F16, 1, 32, 8, 512>,
        (F16, 32, 16) => entry::<F16, 2, 16, 4, 512>,
        (BF16, 32, 8) => entry::<BF16, 2, 8, 4, 512>,
        (BF16, 16, 16) => entry::<BF16, 1, 16, 8, 512>,
        (BF16, 16, 32) => entry::<BF16, 1, 32, 8, 512>,
        (BF16, 32, 16) => entry::<BF16, 2, 16, 4, 512>,
        (B8, 16, 32) => entry::<B8, 1, 32, 8, 512>,
        (B8, 32, 16) => entry::<B8, 2, 16, 4, 512>,
        // gfx950's F8F6F4 with FP8/BF8 A and B (16×16×128, 32×32×64): singles only.
        (B8, 16, 128) => entry::<B8, 1, 128, 8, BIG>,
        (B8, 32, 64) => entry::<B8, 2, 64, 4, BIG>,
        _ => return None,
    })
}

/// [`entry_for`] for a pair of instructions.
#[cfg(target_arch = "x86_64")]
fn pair_for(fmt: u8, n: usize, k: usize) -> Option<PairEntry> {
    Some(match (fmt, n, k) {
        (F16, 32, 8) => pair::<F16, 2, 8, 4>,
        (F16, 16, 16) => pair::<F16, 1, 16, 8>,
        (F16, 16, 32) => pair::<F16, 1, 32, 8>,
        (F16, 32, 16) => pair::<F16, 2, 16, 4>,
        (BF16, 32, 8) => pair::<BF16, 2, 8, 4>,
        (BF16, 16, 16) => pair::<BF16, 1, 16, 8>,
        (BF16, 16, 32) => pair::<BF16, 1, 32, 8>,
        (BF16, 32, 16) => pair::<BF16, 2, 16, 4>,
        (B8, 16, 32) => pair::<B8, 1, 32, 8>,
        (B8, 32, 16) => pair::<B8, 2, 16, 4>,
        _ => return None,
    })
}

/// [`entry_for`] for a group of instructions.
#[cfg(target_arch = "x86_64")]
fn group_for(fmt: u8, n: usize, k: usize) -> Option<GroupEntry> {
    Some(match (fmt, n, k) {
        (F16, 32, 8) => group::<F16, 2, 8, 4>,
        (F16, 16, 16) => group::<F16, 1, 16, 8>,
        (F16, 16, 32) => group::<F16, 1, 32, 8>,
        (F16, 32, 16) => group::<F16, 2, 16, 4>,
        (BF16, 32, 8) => group::<BF16, 2, 8, 4>,
        (BF16, 16, 16) => group::<BF16, 1, 16, 8>,
        (BF16, 16, 32) => group::<BF16, 1, 32, 8>,
        (BF16, 32, 16) => group::<BF16, 2, 16, 4>,
        (B8, 16, 32) => group::<B8, 1, 32, 8>,
        (B8, 32, 16) => group::<B8, 2, 16, 4>,
        _ => return None,
    })
}

/// One instruction.
///
/// # Safety
/// As [`body`] with `f` for both.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
unsafe extern "C" fn entry<
    const FMT: u8,
    const V: usize,
    const K: usize,
    const R: usize,
    const BS: usize,
>(
    f: *const Fused,
    regs: *mut [u32; 64],
) {
    // SAFETY: see the function contract.
    unsafe {
        let f = &*f;
        body::<FMT, V, K, R, 1, BS>(f, f, regs)
    }
}

/// Two instructions ([`Fused::pair`]).
///
/// # Safety
/// As [`body`]; `Fused::pair` accepted `(f, g)`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
unsafe extern "C" fn pair<const FMT: u8, const V: usize, const K: usize, const R: usize>(
    f: *const Fused,
    g: *const Fused,
    regs: *mut [u32; 64],
) {
    // SAFETY: see the function contract.
    unsafe { body::<FMT, V, K, R, 2, BUF>(&*f, &*g, regs) }
}

/// The kernel: decode A and B, then the rows GEMM (see the module documentation). With
/// `P = 2` it runs `f` and then `g` ([`Fused::pair`]): `g`'s A and B follow `f`'s along k.
///
/// # Safety
/// `f` and `g` were built by [`Fused::new`] (so the CPU has the features enabled here, and
/// the chunks, rows and shape match `<FMT, V, K, R>`); `regs` points to at least `f.nregs`
/// registers, not otherwise borrowed during the call.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
#[inline]
unsafe fn body<
    const FMT: u8,
    const V: usize,
    const K: usize,
    const R: usize,
    const P: usize,
    const BS: usize,
>(
    f: &Fused,
    g: &Fused,
    regs: *mut [u32; 64],
) {
    use std::mem::MaybeUninit;
    let src = regs.cast::<u32>();
    let mut at = [MaybeUninit::<f32>::uninit(); BS];
    let mut bt = [MaybeUninit::<f32>::uninit(); BS];
    let (ap, bp) = (at.as_mut_ptr().cast::<f32>(), bt.as_mut_ptr().cast::<f32>());
    // SAFETY: chunk sources lie in `nregs` registers, their outputs cover the first M·K
    // (A) and K·N (B) elements of the buffers exactly once (`Fused::new` checked them
    // against `BS`; `g`'s the next M·K and K·N: `Fused::pair` checked 2·M·K and 2·K·N),
    // so every element the GEMM reads is written first; rows as `gemm_rows` needs.
    unsafe {
        decode::<FMT>(&f.a, &f.tables[0], &f.tables[1], src, ap);
        decode::<FMT>(&f.b, &f.tables[2], &f.tables[3], src, bp);
        if P == 2 {
            decode::<FMT>(&g.a, &g.tables[0], &g.tables[1], src, ap.add(K * f.m));
            decode::<FMT>(&g.b, &g.tables[2], &g.tables[3], src, bp.add(K * 16 * V));
        }
        if gemm_rows::<V, K, R, P>(f, ap, bp, src) != 0xFFFF {
            canonical_nans::<V>(&f.d_rows, src);
        }
    }
}

/// A group of instructions ([`Fused::group`]): `desc[x]` is instruction x's `Fused` address
/// and `a | b << 32`, the instructions whose decoded A and B it uses (itself or an earlier
/// one with the same operand). Every distinct operand is decoded once, then the GEMMs run
/// in order.
///
/// # Safety
/// `desc` holds `n <= MAX_GROUP` entries that `Fused::group` produced for live `Fused`s of
/// format and shape `<FMT, V, K, R>`; `regs` as in [`body`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
unsafe extern "C" fn group<const FMT: u8, const V: usize, const K: usize, const R: usize>(
    desc: *const [u64; 2],
    n: usize,
    regs: *mut [u32; 64],
) {
    use std::mem::MaybeUninit;
    const SLOT: usize = BUF / 2;
    let src = regs.cast::<u32>();
    let mut abuf = [MaybeUninit::<f32>::uninit(); MAX_GROUP * SLOT];
    let mut bbuf = [MaybeUninit::<f32>::uninit(); MAX_GROUP * SLOT];
    let (ap, bp) = (
        abuf.as_mut_ptr().cast::<f32>(),
        bbuf.as_mut_ptr().cast::<f32>(),
    );
    let n = n.min(MAX_GROUP);
    // SAFETY: see the function contract: the addresses are live `Fused`s.
    let item = |x: usize| unsafe {
        let [fp, from] = *desc.add(x);
        (
            &*(fp as *const Fused),
            (from as u32) as usize,
            (from >> 32) as usize,
        )
    };
    let mut ordered = 0xFFFF;
    // SAFETY: as in `body`, each instruction's operands in its own slot of `SLOT >= M·K,
    // K·N` elements (`Fused::new` checked 2·M·K and 2·K·N against `BUF`); an instruction
    // using another's slot (a, b < n) has the same operand registers and decoding, and no
    // instruction in between writes them (`Fused::group`), so the slot holds its values.
    unsafe {
        for x in 0..n {
            let (f, a, b) = item(x);
            if a == x {
                decode::<FMT>(&f.a, &f.tables[0], &f.tables[1], src, ap.add(x * SLOT));
            }
            if b == x {
                decode::<FMT>(&f.b, &f.tables[2], &f.tables[3], src, bp.add(x * SLOT));
            }
        }
        for x in 0..n {
            let (f, a, b) = item(x);
            ordered &= gemm_rows::<V, K, R, 1>(f, ap.add(a * SLOT), bp.add(b * SLOT), src);
        }
        if ordered != 0xFFFF {
            // Canonical NaNs in every D (a later D over an earlier one is already written,
            // and canonicalising twice changes nothing).
            for x in 0..n {
                canonical_nans::<V>(&item(x).0.d_rows, src);
            }
        }
    }
}

/// The rows GEMM of `f` over `P·K` steps of the decoded A (`ap`, k-major) and B (`bp`,
/// row-major), C and D in the register file at `src`; D is stored as computed. Returns a
/// mask that is all-ones unless a stored value is NaN.
///
/// # Safety
/// `ap` and `bp` hold `P·K·M` and `P·K·N` written elements; `f` was built by
/// [`Fused::new`] for `<V, K, R>` and `src` holds its `nregs` registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
#[inline]
unsafe fn gemm_rows<const V: usize, const K: usize, const R: usize, const P: usize>(
    f: &Fused,
    ap: *const f32,
    bp: *const f32,
    src: *mut u32,
) -> u16 {
    use std::arch::x86_64::*;
    let m = f.m;
    let n = 16 * V;
    // Hoisted: stores into the register file could alias them as far as the compiler knows.
    let (c_rows, c_imm) = (f.c_rows.as_deref(), f.c_imm);
    let d_rows = &f.d_rows[..];
    // Row kk of B, read where it is used (the compiler keeps it in registers where they
    // suffice).
    let brow = |kk: usize| -> [__m512; V] {
        // SAFETY: `kk·n + 16v + 16 <= P·K·n` (contract).
        core::array::from_fn(|v| unsafe { _mm512_loadu_ps(bp.add(kk * n + 16 * v)) })
    };
    let load = |i: usize| -> [__m512; V] {
        core::array::from_fn(|v| match c_rows {
            None => _mm512_set1_ps(c_imm),
            // SAFETY: row i < m starts at an offset with `o + n <= 64·nregs` (`Fused::new`).
            Some(c) => unsafe {
                _mm512_loadu_ps(src.add(*c.get_unchecked(i) as usize + 16 * v).cast())
            },
        })
    };
    // All-ones while every pair of stored accumulators is ordered (no NaN).
    let mut ordered: __mmask16 = 0xFFFF;
    let mut i = 0;
    while i + R <= m {
        let mut acc: [[__m512; V]; R] = core::array::from_fn(|r| load(i + r));
        for kk in 0..P * K {
            let bk = brow(kk);
            for (r, row) in acc.iter_mut().enumerate() {
                // SAFETY: `kk·m + i + r < P·K·m` (contract).
                let a = _mm512_set1_ps(unsafe { *ap.add(kk * m + i + r) });
                for (x, &bj) in row.iter_mut().zip(&bk) {
                    *x = _mm512_fmadd_ps(a, bj, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            // SAFETY: as for C's rows, with D's (`Fused::new`); C is D or lies in other
            // registers, so later groups still read their C.
            let o = unsafe { *d_rows.get_unchecked(i + r) } as usize;
            for (v, &x) in row.iter().enumerate() {
                // SAFETY: see above.
                unsafe { _mm512_storeu_ps(src.add(o + 16 * v).cast(), x) };
            }
        }
        let flat = acc.as_flattened();
        for p in flat.chunks_exact(2) {
            ordered = _mm512_mask_cmp_ps_mask::<_CMP_ORD_Q>(ordered, p[0], p[1]);
        }
        if flat.len() % 2 == 1 {
            let x = flat[flat.len() - 1];
            ordered = _mm512_mask_cmp_ps_mask::<_CMP_ORD_Q>(ordered, x, x);
        }
        i += R;
    }
    ordered
}

/// Rewrites every NaN in the rows `d_rows` (16·V words each) of `src` as 0x7FC00000.
///
/// # Safety
/// The rows lie in the register file at `src` (checked by [`Fused::new`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
#[inline]
unsafe fn canonical_nans<const V: usize>(d_rows: &[u32], src: *mut u32) {
    use std::arch::x86_64::*;
    let canon = _mm512_set1_epi32(0x7FC0_0000);
    for &o in d_rows {
        for v in 0..V {
            // SAFETY: see the function contract.
            unsafe {
                let p = src.add(o as usize + 16 * v);
                let x = _mm512_loadu_ps(p.cast());
                let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
                let bits = _mm512_mask_mov_epi32(_mm512_castps_si512(x), nan, canon);
                _mm512_storeu_si512(p.cast(), bits);
            }
        }
    }
}

/// Decodes `chunks` of the register file at `src` into `dst` (`lo`/`hi`: byte tables of an
/// 8-bit format).
///
/// # Safety
/// The CPU has the features enabled here; every chunk's 16 source words lie at `src`, its
/// outputs (`32 / w` fields of 16 elements) inside `dst`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,f16c,fma")]
#[inline]
unsafe fn decode<const FMT: u8>(
    chunks: &[Chunk],
    lo: &[u8; 256],
    hi: &[u8; 256],
    src: *const u32,
    dst: *mut f32,
) {
    use std::arch::x86_64::*;
    match FMT {
        F16 => {
            // Words 0, 2, …, 30 (the low halves) then 1, 3, …, 31.
            let split = _mm512_set_epi16(
                31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1, 30, 28, 26, 24, 22, 20,
                18, 16, 14, 12, 10, 8, 6, 4, 2, 0,
            );
            for c in chunks {
                // SAFETY: see the function contract.
                unsafe {
                    let w = _mm512_loadu_si512(src.add(c.src as usize).cast());
                    let s = _mm512_permutexvar_epi16(split, w);
                    let l = _mm512_cvtph_ps(_mm512_castsi512_si256(s));
                    let h = _mm512_cvtph_ps(_mm512_extracti64x4_epi64::<1>(s));
                    _mm512_storeu_ps(dst.add(c.out[0] as usize), l);
                    _mm512_storeu_ps(dst.add(c.out[1] as usize), h);
                }
            }
        }
        BF16 => {
            let high = _mm512_set1_epi32(0xFFFF_0000u32 as i32);
            for c in chunks {
                // SAFETY: see the function contract.
                unsafe {
                    let w = _mm512_loadu_si512(src.add(c.src as usize).cast());
                    let l = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(w));
                    let h = _mm512_castsi512_ps(_mm512_and_si512(w, high));
                    _mm512_storeu_ps(dst.add(c.out[0] as usize), l);
                    _mm512_storeu_ps(dst.add(c.out[1] as usize), h);
                }
            }
        }
        _ => {
            // SAFETY: each load reads 64 of the 256 bytes.
            let t = |tab: &[u8; 256], q: usize| unsafe {
                _mm512_loadu_si512(tab.as_ptr().add(64 * q).cast())
            };
            let (l0, l1, l2, l3) = (t(lo, 0), t(lo, 1), t(lo, 2), t(lo, 3));
            let (h0, h1, h2, h3) = (t(hi, 0), t(hi, 1), t(hi, 2), t(hi, 3));
            // SAFETY: each load reads the 64 bytes of one index vector.
            let spread: [__m512i; 4] =
                core::array::from_fn(|p| unsafe { _mm512_loadu_si512(SPREAD[p].as_ptr().cast()) });
            let upper: __mmask64 = 0xCCCC_CCCC_CCCC_CCCC;
            for c in chunks {
                // SAFETY: see the function contract.
                unsafe {
                    let w = _mm512_loadu_si512(src.add(c.src as usize).cast());
                    // Entries 0..127 from tables 0/1, 128..255 from 2/3, by the top bit.
                    let top = _mm512_movepi8_mask(w);
                    let l = _mm512_mask_blend_epi8(
                        top,
                        _mm512_permutex2var_epi8(l0, w, l1),
                        _mm512_permutex2var_epi8(l2, w, l3),
                    );
                    let h = _mm512_mask_blend_epi8(
                        top,
                        _mm512_permutex2var_epi8(h0, w, h1),
                        _mm512_permutex2var_epi8(h2, w, h3),
                    );
                    for (p, s) in spread.iter().enumerate() {
                        let v = _mm512_maskz_permutex2var_epi8(upper, l, *s, h);
                        _mm512_storeu_si512(dst.add(c.out[p] as usize).cast(), v);
                    }
                }
            }
        }
    }
}
