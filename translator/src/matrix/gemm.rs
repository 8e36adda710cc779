//! Host GEMM microkernels with runtime CPU dispatch: AVX-512F, AVX2+FMA, NEON, portable.
//!
//! Every variant computes each output as the same chain of fused multiply-adds in
//! ascending k order (`c = fma(a[i][k], b[k][j], c)`); they differ only in how many
//! columns j run side by side. Hence all variants give bit-identical results, which the
//! tests check.

/// Which kernel variant runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Scalar `f32::mul_add`.
    Portable,
    /// x86-64 AVX2 + FMA.
    Avx2,
    /// x86-64 AVX-512F.
    Avx512,
    /// AArch64 NEON.
    Neon,
}

/// The best variant the host supports.
pub fn best_isa() -> Isa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return Isa::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Isa::Avx2;
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if std::arch::is_aarch64_feature_detected!("neon") {
            return Isa::Neon;
        }
    }
    Isa::Portable
}

/// Row-major matrix operands of one f32 GEMM: `c[i][j] = c[i][j] + Σ_k a[i][k]·b[k][j]`.
pub struct GemmF32<'a> {
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// The reduction length.
    pub k: usize,
    /// A, `m` rows of stride `lda`.
    pub a: &'a [f32],
    /// Row stride of A.
    pub lda: usize,
    /// B, `k` rows of stride `ldb`.
    pub b: &'a [f32],
    /// Row stride of B.
    pub ldb: usize,
}

/// Runs `g` into `c` (rows of stride `ldc`) with the variant `isa` (falling back to the
/// portable kernel when the host lacks it). Panics only on slices too short for the shape
/// (a caller bug; the MFMA executor sizes them from the shape).
pub fn gemm_f32(isa: Isa, g: &GemmF32, c: &mut [f32], ldc: usize) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above), the only requirement of
            // the target-feature function; it is otherwise safe Rust.
            unsafe { kernel_avx512(g, c, ldc) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma") =>
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { kernel_avx2(g, c, ldc) }
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon if std::arch::is_aarch64_feature_detected!("neon") => {
            // SAFETY: the CPU supports NEON (checked just above).
            unsafe { kernel_neon(g, c, ldc) }
        }
        _ => kernel(g, c, ldc),
    }
}

/// The one kernel body; each variant is this function compiled with more target features,
/// so the compiler vectorises the j loop with the host's FMA instructions.
#[inline(always)]
fn kernel(g: &GemmF32, c: &mut [f32], ldc: usize) {
    for i in 0..g.m {
        let crow = &mut c[i * ldc..i * ldc + g.n];
        let arow = &g.a[i * g.lda..i * g.lda + g.k];
        for (kk, &av) in arow.iter().enumerate() {
            let brow = &g.b[kk * g.ldb..kk * g.ldb + g.n];
            for (cj, &bj) in crow.iter_mut().zip(brow) {
                *cj = av.mul_add(bj, *cj);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn kernel_avx512(g: &GemmF32, c: &mut [f32], ldc: usize) {
    kernel(g, c, ldc)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn kernel_avx2(g: &GemmF32, c: &mut [f32], ldc: usize) {
    kernel(g, c, ldc)
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
fn kernel_neon(g: &GemmF32, c: &mut [f32], ldc: usize) {
    kernel(g, c, ldc)
}

/// One block of an MFMA-shaped f32 GEMM with A stored k-major (transposed): `at[k·m + i]`
/// is `A[i][k]`, `b[k·n + j]` is `B[k][j]`, `c[i·n + j]` is `C[i][j]` (row-major). Computes
/// `c[i][j] = fma(A[i][k], B[k][j], c[i][j])` for k = 0, 1, …, k−1 in that order: the same
/// chain per output as [`gemm_f32`], so the results are bit-identical to it.
///
/// k-major A is how MFMA registers hold A (lanes run along i), so the operand gather writes
/// contiguous runs. The widths of the matrix cores (n = 4, 16, 32) have kernels that keep
/// four rows of C in registers across the whole k loop; other widths use a generic loop.
/// Returns `false` (doing nothing) when a slice is shorter than the shape needs.
pub fn gemm_f32_kmajor(
    isa: Isa,
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: &mut [f32],
) -> bool {
    if at.len() < m * k || b.len() < k * n || c.len() < m * n {
        return false;
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above), the only requirement of
            // the target-feature function; it is otherwise safe Rust.
            unsafe { kmajor_avx512(m, n, k, at, b, c) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma") =>
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { kmajor_avx2(m, n, k, at, b, c) }
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon if std::arch::is_aarch64_feature_detected!("neon") => {
            // SAFETY: the CPU supports NEON (checked just above).
            unsafe { kmajor_neon(m, n, k, at, b, c) }
        }
        _ => kmajor::<4, 2>(m, n, k, at, b, c),
    }
    true
}

/// Row offsets into a flattened register file (`reg·64 + lane`) with their maximum,
/// computed once so [`gemm_f32_rows`] checks a whole set of rows in constant time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSet {
    offs: Vec<u32>,
    max: u32,
}

impl RowSet {
    /// The set of `offs` (row x starts at word `offs[x]`).
    pub fn new(offs: Vec<u32>) -> RowSet {
        let max = offs.iter().copied().max().unwrap_or(0);
        RowSet { offs, max }
    }

    /// The offsets.
    pub fn offsets(&self) -> &[u32] {
        &self.offs
    }

    /// The rows from `start` on (none when `start` is past the end); their bound is the
    /// whole set's maximum.
    pub fn from(&self, start: usize) -> RowsRef<'_> {
        RowsRef {
            offs: self.offs.get(start..).unwrap_or(&[]),
            max: self.max,
        }
    }
}

/// Borrowed row offsets with an upper bound of every offset (an invariant of the type:
/// built only by [`RowsRef::new`] and [`RowSet::from`]).
#[derive(Clone, Copy, Debug)]
pub struct RowsRef<'a> {
    offs: &'a [u32],
    max: u32,
}

impl<'a> RowsRef<'a> {
    /// The rows `offs` (their maximum is computed here).
    pub fn new(offs: &'a [u32]) -> RowsRef<'a> {
        RowsRef {
            offs,
            max: offs.iter().copied().max().unwrap_or(0),
        }
    }

    /// Whether the first `m` rows exist and rows of `n` words fit in `len` words.
    fn fit(&self, m: usize, n: usize, len: usize) -> bool {
        self.offs.len() >= m && self.max as usize + n <= len
    }
}

/// Where [`gemm_f32_rows`] takes C from.
#[derive(Clone, Copy, Debug)]
pub enum RowSrc<'a> {
    /// Every element of C is this value.
    Imm(f32),
    /// Row i of C is the `n` f32 bit patterns at `regs[rows[i]..]`.
    Rows(RowsRef<'a>),
}

/// [`gemm_f32_kmajor`] with C read from and D written to the register file directly: row i
/// of C is `n` consecutive words of `regs` (the flattened `[register][lane]` file) at
/// `c`'s offset, row i of D likewise at `d[i]`, written as f32 bits with every NaN as the
/// canonical 0x7FC00000. MFMA layouts put a C/D row on consecutive lanes of one register
/// (CDNA4 ISA 7.1.4), so the accumulator needs no reshuffling: it is loaded into host
/// vector registers, takes the whole k loop there and is stored back once. Same FMA chain
/// per output as [`gemm_f32`], so bit-identical to it.
///
/// C and D rows may coincide (C is D) but must not otherwise overlap each other (the caller
/// checks). Only widths 16 and 32 are served; returns `false` (doing nothing) for other
/// widths or when a slice or an offset does not fit (checked in constant time: the row
/// sets carry their maximum).
#[allow(clippy::too_many_arguments)]
pub fn gemm_f32_rows(
    isa: Isa,
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: RowsRef,
    regs: &mut [u32],
) -> bool {
    if !matches!(n, 16 | 32)
        || at.len() < m * k
        || b.len() < k * n
        || !d.fit(m, n, regs.len())
        || matches!(c, RowSrc::Rows(r) if !r.fit(m, n, regs.len()))
    {
        return false;
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above); the slices and rows
            // were checked against the shape just above.
            unsafe {
                match (n, k) {
                    // The shapes of the f16/bf16 (32x32x8, 16x16x16) and f32 (32x32x2,
                    // 16x16x4) MFMAs: B is at most 16 vector registers.
                    (32, 8) => rows_const_k_avx512::<2, 8, 4>(m, at, b, c, d, regs),
                    (16, 16) => rows_const_k_avx512::<1, 16, 8>(m, at, b, c, d, regs),
                    (32, 2) => rows_const_k_avx512::<2, 2, 4>(m, at, b, c, d, regs),
                    (16, 4) => rows_const_k_avx512::<1, 4, 8>(m, at, b, c, d, regs),
                    // gfx950's f16/bf16 (16x16x32, 32x32x16) and the FP8 (16x16x32,
                    // 32x32x16) MFMAs: B is read from memory per k.
                    (16, 32) => rows_const_k_avx512::<1, 32, 8>(m, at, b, c, d, regs),
                    (32, 16) => rows_const_k_avx512::<2, 16, 4>(m, at, b, c, d, regs),
                    _ => rows_avx512(m, n, k, at, b, c, d.offs, regs),
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma") =>
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { rows_avx2(m, n, k, at, b, c, d.offs, regs) }
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon if std::arch::is_aarch64_feature_detected!("neon") => {
            // SAFETY: the CPU supports NEON (checked just above).
            unsafe { rows_neon(m, n, k, at, b, c, d.offs, regs) }
        }
        _ => rows::<false, 2>(m, n, k, at, b, c, d.offs, regs),
    }
    true
}

/// [`gemm_f32_rows`] for width `16·V` and a constant depth `K` on AVX-512F (B's `K·V`
/// vectors stay in registers where the compiler unrolls k): `R` rows of C at a time (`R·V` independent FMA chains,
/// 8 covering the FMA latency) take the whole k loop with A broadcast from `at`; rows left
/// over go one at a time. Same FMA chain per output (C, then ascending k) as [`gemm_f32`].
///
/// # Safety
/// The CPU supports AVX-512F and FMA; `at` holds `m·K` elements, `b` `K·16·V`; `d` and C's
/// rows (if any) have `m` entries and rows of `16·V` words at their maximum fit in `regs`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn rows_const_k_avx512<const V: usize, const K: usize, const R: usize>(
    m: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: RowsRef,
    regs: &mut [u32],
) {
    use std::arch::x86_64::*;
    let n = 16 * V;
    // Row kk of B, read where it is used: the compiler keeps B in registers where they
    // suffice (a local copy of B became a memcpy per call).
    let brow = |kk: usize| -> [__m512; V] {
        // SAFETY: `kk·n + 16v + 16 <= K·n <= b.len()` for kk < K, v < V (contract).
        core::array::from_fn(|v| unsafe { _mm512_loadu_ps(b.as_ptr().add(kk * n + 16 * v)) })
    };
    let canon = _mm512_set1_epi32(0x7FC0_0000);
    let base = regs.as_mut_ptr();
    let load = |i: usize| -> [__m512; V] {
        core::array::from_fn(|v| match c {
            RowSrc::Imm(x) => _mm512_set1_ps(x),
            // SAFETY: row i < m of C starts at most at the set's maximum, and a row of n
            // words there fits in `regs` (contract).
            RowSrc::Rows(r) => unsafe {
                _mm512_loadu_ps(base.add(*r.offs.get_unchecked(i) as usize + 16 * v).cast())
            },
        })
    };
    let store = |i: usize, row: &[__m512; V]| {
        for (v, &x) in row.iter().enumerate() {
            let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
            let bits = _mm512_mask_mov_epi32(_mm512_castps_si512(x), nan, canon);
            // SAFETY: as for C's rows, with `d` (contract); no reference into `regs` is
            // alive (C's rows were read through the same raw pointer).
            unsafe {
                _mm512_storeu_si512(
                    base.add(*d.offs.get_unchecked(i) as usize + 16 * v).cast(),
                    bits,
                )
            };
        }
    };
    let mut i = 0;
    while i + R <= m {
        let mut acc: [[__m512; V]; R] = core::array::from_fn(|r| load(i + r));
        for kk in 0..K {
            let bk = brow(kk);
            for (r, row) in acc.iter_mut().enumerate() {
                // SAFETY: `kk·m + i + r < K·m <= at.len()` (contract).
                let a = _mm512_set1_ps(unsafe { *at.get_unchecked(kk * m + i + r) });
                for (x, &bj) in row.iter_mut().zip(&bk) {
                    *x = _mm512_fmadd_ps(a, bj, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            store(i + r, row);
        }
        i += R;
    }
    for i in i..m {
        let mut row = load(i);
        for kk in 0..K {
            // SAFETY: as above.
            let a = _mm512_set1_ps(unsafe { *at.get_unchecked(kk * m + i) });
            for (x, &bj) in row.iter_mut().zip(&brow(kk)) {
                *x = _mm512_fmadd_ps(a, bj, *x);
            }
        }
        store(i, &row);
    }
}

/// Width dispatch of [`gemm_f32_rows`] (checked): width 16 in groups of 4 rows (two groups
/// side by side with `PAIR16`), width 32 in groups of `R32` rows.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn rows<const PAIR16: bool, const R32: usize>(
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: &[u32],
    regs: &mut [u32],
) {
    match n {
        16 => rows_n::<16, 4, PAIR16>(m, k, at, b, c, d, regs),
        _ => rows_n::<32, R32, false>(m, k, at, b, c, d, regs),
    }
}

/// [`rows`] for width `N`: `R` rows of C per group held in registers for the whole k loop
/// (`R` independent FMA chains per column, enough to cover the FMA latency), then a
/// single row at a time for the rest.
#[inline(always)]
fn rows_n<const N: usize, const R: usize, const PAIR: bool>(
    m: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: &[u32],
    regs: &mut [u32],
) {
    #[inline(always)]
    fn load<const N: usize>(c: RowSrc, i: usize, regs: &[u32]) -> [f32; N] {
        match c {
            RowSrc::Imm(v) => [v; N],
            RowSrc::Rows(rows) => {
                let o = rows.offs[i] as usize;
                let mut row = [0f32; N];
                for (x, &w) in row.iter_mut().zip(&regs[o..o + N]) {
                    *x = f32::from_bits(w);
                }
                row
            }
        }
    }
    #[inline(always)]
    fn store<const N: usize>(row: &[f32; N], o: usize, regs: &mut [u32]) {
        for (w, &v) in regs[o..o + N].iter_mut().zip(row) {
            *w = if v.is_nan() { 0x7FC0_0000 } else { v.to_bits() };
        }
    }
    let mut i = 0;
    // Two groups of R rows side by side (2R chains), as separate arrays so the compiler
    // keeps each row in vector registers.
    while PAIR && i + 2 * R <= m {
        let mut acc0 = [[0f32; N]; R];
        let mut acc1 = [[0f32; N]; R];
        for r in 0..R {
            acc0[r] = load::<N>(c, i + r, regs);
            acc1[r] = load::<N>(c, i + R + r, regs);
        }
        for kk in 0..k {
            let Some(brow) = b[kk * N..].first_chunk::<N>() else {
                return;
            };
            let Some(av0) = at[kk * m + i..].first_chunk::<R>() else {
                return;
            };
            let Some(av1) = at[kk * m + i + R..].first_chunk::<R>() else {
                return;
            };
            for (row, &a) in acc0.iter_mut().zip(av0) {
                for (x, &bj) in row.iter_mut().zip(brow) {
                    *x = a.mul_add(bj, *x);
                }
            }
            for (row, &a) in acc1.iter_mut().zip(av1) {
                for (x, &bj) in row.iter_mut().zip(brow) {
                    *x = a.mul_add(bj, *x);
                }
            }
        }
        for r in 0..R {
            store::<N>(&acc0[r], d[i + r] as usize, regs);
            store::<N>(&acc1[r], d[i + R + r] as usize, regs);
        }
        i += 2 * R;
    }
    while i + R <= m {
        let mut acc = [[0f32; N]; R];
        for (r, row) in acc.iter_mut().enumerate() {
            *row = load::<N>(c, i + r, regs);
        }
        for kk in 0..k {
            let Some(brow) = b[kk * N..].first_chunk::<N>() else {
                return;
            };
            let Some(av) = at[kk * m + i..].first_chunk::<R>() else {
                return;
            };
            for (row, &a) in acc.iter_mut().zip(av) {
                for (x, &bj) in row.iter_mut().zip(brow) {
                    *x = a.mul_add(bj, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            store::<N>(row, d[i + r] as usize, regs);
        }
        i += R;
    }
    for i in i..m {
        let mut row = load::<N>(c, i, regs);
        for kk in 0..k {
            let av = at[kk * m + i];
            for j in 0..N {
                row[j] = av.mul_add(b[kk * N + j], row[j]);
            }
        }
        store::<N>(&row, d[i] as usize, regs);
    }
}

/// [`rows`] compiled for AVX-512F and FMA.
///
/// # Safety
/// The CPU supports AVX-512F and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn rows_avx512(
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: &[u32],
    regs: &mut [u32],
) {
    // 16 columns are one 512-bit vector: two groups of 4 rows give 8 independent chains
    // (one group of 8 rows compiles to gathers); 32 columns are two, so 4 rows give 8.
    rows::<true, 4>(m, n, k, at, b, c, d, regs)
}

/// [`rows`] compiled for AVX2 and FMA.
///
/// # Safety
/// The CPU supports AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn rows_avx2(
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: &[u32],
    regs: &mut [u32],
) {
    // 8 accumulators of 256 bits either way (16 registers in all).
    rows::<false, 2>(m, n, k, at, b, c, d, regs)
}

/// [`rows`] compiled for NEON.
///
/// # Safety
/// The CPU supports NEON.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
#[allow(clippy::too_many_arguments)]
unsafe fn rows_neon(
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: RowSrc,
    d: &[u32],
    regs: &mut [u32],
) {
    rows::<false, 2>(m, n, k, at, b, c, d, regs)
}

/// Width dispatch of [`gemm_f32_kmajor`] (slice lengths already checked); `R16`/`R32` rows
/// per group at width 16/32.
#[inline(always)]
fn kmajor<const R16: usize, const R32: usize>(
    m: usize,
    n: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: &mut [f32],
) {
    match n {
        4 => kmajor_n::<4, 4>(m, k, at, b, c),
        16 => kmajor_n::<16, R16>(m, k, at, b, c),
        32 => kmajor_n::<32, R32>(m, k, at, b, c),
        _ => {
            for i in 0..m {
                let crow = &mut c[i * n..(i + 1) * n];
                for kk in 0..k {
                    let av = at[kk * m + i];
                    for (cj, &bj) in crow.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                        *cj = av.mul_add(bj, *cj);
                    }
                }
            }
        }
    }
}

/// [`kmajor`] for width `N`: rows of C in groups of `R` (`R` independent FMA chains per
/// column), each row held in registers for the whole k loop.
#[inline(always)]
fn kmajor_n<const N: usize, const R: usize>(
    m: usize,
    k: usize,
    at: &[f32],
    b: &[f32],
    c: &mut [f32],
) {
    let mut i = 0;
    while i + R <= m {
        let mut acc = [[0f32; N]; R];
        for (r, row) in acc.iter_mut().enumerate() {
            row.copy_from_slice(&c[(i + r) * N..(i + r + 1) * N]);
        }
        for kk in 0..k {
            let Some(brow) = b[kk * N..].first_chunk::<N>() else {
                return;
            };
            let Some(av) = at[kk * m + i..].first_chunk::<R>() else {
                return;
            };
            for (row, &a) in acc.iter_mut().zip(av) {
                for (x, &bj) in row.iter_mut().zip(brow) {
                    *x = a.mul_add(bj, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            c[(i + r) * N..(i + r + 1) * N].copy_from_slice(row);
        }
        i += R;
    }
    for i in i..m {
        let mut row = [0f32; N];
        row.copy_from_slice(&c[i * N..(i + 1) * N]);
        for kk in 0..k {
            let av = at[kk * m + i];
            for j in 0..N {
                row[j] = av.mul_add(b[kk * N + j], row[j]);
            }
        }
        c[i * N..(i + 1) * N].copy_from_slice(&row);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
fn kmajor_avx512(m: usize, n: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    kmajor::<4, 4>(m, n, k, at, b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn kmajor_avx2(m: usize, n: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    kmajor::<4, 2>(m, n, k, at, b, c)
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
fn kmajor_neon(m: usize, n: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    kmajor::<4, 2>(m, n, k, at, b, c)
}

/// Row-major f64 GEMM for the f64 MFMAs: `acc[i][j] = fma(a[i][k], b[k][j], acc[i][j])` for
/// k = 0, 1, …, k−1 in that order (`a` is m×k, `b` k×n, `acc` m×n). Each fused multiply-add
/// is exact-then-rounded whichever variant runs, so all variants give the same bits; the
/// vector variants use the host's FMA instructions instead of the library call that
/// `f64::mul_add` becomes without them. Returns `false` (doing nothing) when a slice is
/// shorter than the shape needs.
pub fn gemm_f64(
    isa: Isa,
    m: usize,
    n: usize,
    k: usize,
    a: &[f64],
    b: &[f64],
    acc: &mut [f64],
) -> bool {
    if a.len() < m * k || b.len() < k * n || acc.len() < m * n {
        return false;
    }
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            unsafe { f64_avx512(m, n, k, a, b, acc) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma") =>
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            unsafe { f64_avx2(m, n, k, a, b, acc) }
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon if std::arch::is_aarch64_feature_detected!("neon") => {
            // SAFETY: the CPU supports NEON (checked just above).
            unsafe { f64_neon(m, n, k, a, b, acc) }
        }
        _ => f64_body(m, n, k, a, b, acc),
    }
    true
}

/// The body of [`gemm_f64`] (lengths checked): i-k-j over contiguous rows.
#[inline(always)]
fn f64_body(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], acc: &mut [f64]) {
    for i in 0..m {
        let row = &mut acc[i * n..(i + 1) * n];
        for kk in 0..k {
            let x = a[i * k + kk];
            for (r, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *r = x.mul_add(y, *r);
            }
        }
    }
}

/// [`f64_body`] for AVX-512F.
///
/// # Safety
/// The CPU supports AVX-512F and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn f64_avx512(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], acc: &mut [f64]) {
    f64_body(m, n, k, a, b, acc)
}

/// [`f64_body`] for AVX2 and FMA.
///
/// # Safety
/// The CPU supports AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn f64_avx2(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], acc: &mut [f64]) {
    f64_body(m, n, k, a, b, acc)
}

/// [`f64_body`] for NEON.
///
/// # Safety
/// The CPU supports NEON.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
unsafe fn f64_neon(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], acc: &mut [f64]) {
    f64_body(m, n, k, a, b, acc)
}

/// A host FMA throughput probe for benchmarks: `iters` rounds of independent fused
/// multiply-add chains (12 vectors of 16 lanes with AVX-512F, 10 of 8 with AVX2+FMA, 8 of 4
/// otherwise, so the chains cover the FMA latency). Returns the floating-point operations
/// done (2 per FMA) and a checksum that keeps the work observable. Time it to get the
/// host's f32 FMA peak per core, the yardstick of the matrix microbenchmark.
pub fn fma_peak(isa: Isa, iters: usize) -> (f64, f32) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above).
            (flops::<12, 16>(iters), unsafe { peak_avx512(iters) })
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma") =>
        {
            // SAFETY: the CPU supports AVX2 and FMA (checked just above).
            (flops::<10, 8>(iters), unsafe { peak_avx2(iters) })
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon if std::arch::is_aarch64_feature_detected!("neon") => {
            // SAFETY: the CPU supports NEON (checked just above).
            (flops::<8, 4>(iters), unsafe { peak_neon(iters) })
        }
        _ => (flops::<8, 4>(iters), peak_body::<8, 4>(iters)),
    }
}

/// Operations of [`peak_body`]`::<R, W>`.
fn flops<const R: usize, const W: usize>(iters: usize) -> f64 {
    2.0 * (R * W) as f64 * iters as f64
}

/// `R` independent chains of `W`-lane FMAs, `acc = x·acc + y` (converges, no overflow).
#[inline(always)]
fn peak_body<const R: usize, const W: usize>(iters: usize) -> f32 {
    let x = std::hint::black_box(0.999_9f32);
    let y = std::hint::black_box(0.5f32);
    let mut acc = [[0f32; W]; R];
    for _ in 0..iters {
        for row in acc.iter_mut() {
            for v in row.iter_mut() {
                *v = x.mul_add(*v, y);
            }
        }
    }
    acc.iter().flatten().sum()
}

// The x86 probes use the FMA intrinsics on named vectors: [`peak_body`] compiled for
// AVX-512F/AVX2 (rustc 1.95) became gathers and scatters through the stack per FMA and
// measured about a tenth of the real peak.

/// 12 chains of 16-lane FMAs in zmm registers.
///
/// # Safety
/// The CPU supports the enabled features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,fma")]
unsafe fn peak_avx512(iters: usize) -> f32 {
    use std::arch::x86_64::*;
    let x = _mm512_set1_ps(std::hint::black_box(0.999_9f32));
    let y = _mm512_set1_ps(std::hint::black_box(0.5f32));
    let mut acc = [_mm512_setzero_ps(); 12];
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = _mm512_fmadd_ps(x, *a, y);
        }
    }
    acc.iter().map(|&a| _mm512_reduce_add_ps(a)).sum()
}

/// 10 chains of 8-lane FMAs in ymm registers.
///
/// # Safety
/// The CPU supports the enabled features.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn peak_avx2(iters: usize) -> f32 {
    use std::arch::x86_64::*;
    let x = _mm256_set1_ps(std::hint::black_box(0.999_9f32));
    let y = _mm256_set1_ps(std::hint::black_box(0.5f32));
    let mut acc = [_mm256_setzero_ps(); 10];
    for _ in 0..iters {
        for a in acc.iter_mut() {
            *a = _mm256_fmadd_ps(x, *a, y);
        }
    }
    let mut sum = 0.0;
    for a in acc {
        let mut lanes = [0f32; 8];
        // SAFETY: `lanes` is 8 f32 (32 bytes); unaligned stores are allowed.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), a) };
        sum += lanes.iter().sum::<f32>();
    }
    sum
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
/// # Safety
/// The CPU supports the enabled features.
unsafe fn peak_neon(iters: usize) -> f32 {
    peak_body::<8, 4>(iters)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant the host has gives the portable kernel's bits, including on values
    /// that round differently under mul-then-add than under fma.
    #[test]
    fn variants_are_bit_identical() {
        let mut seed = 0x1234_5678_9ABC_DEF0u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (m, n, k) = (7, 37, 19);
        let specials = [
            0.0,
            -0.0,
            1e-40,
            -1e-45,
            f32::MAX,
            f32::INFINITY,
            f32::NAN,
            3.0e38,
        ];
        let mut rand = |i: usize| -> f32 {
            let r = next();
            if r % 17 == 0 {
                specials[i % specials.len()]
            } else {
                f32::from_bits(0x3000_0000 + (r as u32 % 0x1800_0000))
                    * if r & (1 << 40) != 0 { -1.0 } else { 1.0 }
            }
        };
        let a: Vec<f32> = (0..m * k).map(&mut rand).collect();
        let b: Vec<f32> = (0..k * n).map(&mut rand).collect();
        let c0: Vec<f32> = (0..m * n).map(&mut rand).collect();
        let g = GemmF32 {
            m,
            n,
            k,
            a: &a,
            lda: k,
            b: &b,
            ldb: n,
        };
        let mut want = c0.clone();
        gemm_f32(Isa::Portable, &g, &mut want, n);
        // Portable is the definition: check it against a plain per-element loop first.
        for i in 0..m {
            for j in 0..n {
                let mut acc = c0[i * n + j];
                for kk in 0..k {
                    acc = a[i * k + kk].mul_add(b[kk * n + j], acc);
                }
                assert_eq!(acc.to_bits(), want[i * n + j].to_bits());
            }
        }
        for isa in [Isa::Avx2, Isa::Avx512, Isa::Neon, best_isa()] {
            let mut got = c0.clone();
            gemm_f32(isa, &g, &mut got, n);
            let same = got
                .iter()
                .zip(&want)
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
            assert!(same, "{isa:?} differs from the portable kernel");
        }
    }

    /// The k-major kernels (every width, every variant) give [`gemm_f32`]'s bits on the same
    /// matrices, with A transposed.
    #[test]
    fn kmajor_matches_row_major() {
        let mut seed = 0x0F1E_2D3C_4B5A_6978u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for &(m, n, k) in &[
            (16, 16, 16),
            (32, 32, 8),
            (4, 4, 4),
            (16, 16, 128),
            (5, 7, 9),
            (32, 16, 4),
            (7, 32, 3),
            // The fixed shapes of the AVX-512 row kernel, with rows left over (m % R).
            (32, 32, 2),
            (16, 16, 4),
            (7, 32, 8),
            (13, 16, 16),
            (64, 32, 8),
            (11, 32, 2),
            (9, 16, 4),
            (16, 16, 32),
            (32, 32, 16),
            (21, 16, 32),
            (6, 32, 16),
        ] {
            let mut rand = || -> f32 {
                let r = next();
                match r % 23 {
                    0 => f32::NAN,
                    1 => f32::INFINITY,
                    2 => 1e-40,
                    _ => {
                        f32::from_bits(0x3000_0000 + (r as u32 % 0x1800_0000))
                            * if r & (1 << 40) != 0 { -1.0 } else { 1.0 }
                    }
                }
            };
            let a: Vec<f32> = (0..m * k).map(|_| rand()).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rand()).collect();
            let c0: Vec<f32> = (0..m * n).map(|_| rand()).collect();
            let mut at = vec![0f32; m * k];
            for i in 0..m {
                for kk in 0..k {
                    at[kk * m + i] = a[i * k + kk];
                }
            }
            let g = GemmF32 {
                m,
                n,
                k,
                a: &a,
                lda: k,
                b: &b,
                ldb: n,
            };
            let mut want = c0.clone();
            gemm_f32(Isa::Portable, &g, &mut want, n);
            for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon] {
                let mut got = c0.clone();
                assert!(gemm_f32_kmajor(isa, m, n, k, &at, &b, &mut got));
                let same = got
                    .iter()
                    .zip(&want)
                    .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
                assert!(same, "{isa:?} {m}x{n}x{k} differs");
            }
            if matches!(n, 16 | 32) {
                // Rows in the register file: row i at lane offset (m-1-i)·64 + 7 (C is D),
                // and with C in separate rows and a constant C.
                let canon = |v: f32| if v.is_nan() { 0x7FC0_0000 } else { v.to_bits() };
                let rows: Vec<u32> = (0..m).map(|i| ((m - 1 - i) * 64 + 7) as u32).collect();
                let other: Vec<u32> = rows.iter().map(|o| o + (m * 64) as u32).collect();
                let mut want_imm = vec![0.75f32; m * n];
                gemm_f32(Isa::Portable, &g, &mut want_imm, n);
                for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon] {
                    for (c_rows, imm) in [(&rows, false), (&other, false), (&rows, true)] {
                        let mut regs = vec![0xDEAD_BEEFu32; 2 * m * 64];
                        for i in 0..m {
                            for j in 0..n {
                                regs[c_rows[i] as usize + j] = c0[i * n + j].to_bits();
                            }
                        }
                        let src = if imm {
                            RowSrc::Imm(0.75)
                        } else {
                            RowSrc::Rows(RowsRef::new(c_rows))
                        };
                        let d = RowsRef::new(&rows);
                        assert!(gemm_f32_rows(isa, m, n, k, &at, &b, src, d, &mut regs));
                        let exp = if imm { &want_imm } else { &want };
                        for i in 0..m {
                            for j in 0..n {
                                assert_eq!(
                                    regs[rows[i] as usize + j],
                                    canon(exp[i * n + j]),
                                    "{isa:?} {m}x{n}x{k} rows, imm {imm}"
                                );
                            }
                        }
                    }
                }
                // Rows past the register file, or too few rows: refused, nothing written.
                for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512, Isa::Neon] {
                    let mut regs = vec![0u32; m * 64];
                    let imm = RowSrc::Imm(0.0);
                    let (past, few) = (RowsRef::new(&other), RowsRef::new(&rows[1..]));
                    assert!(!gemm_f32_rows(isa, m, n, k, &at, &b, imm, past, &mut regs));
                    let src = RowSrc::Rows(few);
                    let d = RowsRef::new(&rows);
                    assert!(!gemm_f32_rows(isa, m, n, k, &at, &b, src, d, &mut regs));
                    assert!(regs.iter().all(|&w| w == 0));
                }
            }
            let mut short = c0.clone();
            assert!(!gemm_f32_kmajor(
                Isa::Portable,
                m,
                n,
                k,
                &at[1..],
                &b,
                &mut short
            ));
            assert!(short
                .iter()
                .zip(&c0)
                .all(|(x, y)| x.to_bits() == y.to_bits()));
        }
    }
}
