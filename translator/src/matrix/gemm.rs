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
/// is A[i][k], `b[k·n + j]` is B[k][j], `c[i·n + j]` is C[i][j] (row-major). Computes
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
        _ => kmajor(m, n, k, at, b, c),
    }
    true
}

/// Width dispatch of [`gemm_f32_kmajor`] (slice lengths already checked).
#[inline(always)]
fn kmajor(m: usize, n: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    match n {
        4 => kmajor_n::<4>(m, k, at, b, c),
        16 => kmajor_n::<16>(m, k, at, b, c),
        32 => kmajor_n::<32>(m, k, at, b, c),
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

/// [`kmajor`] for width `N`: rows of C in groups of four (four independent FMA chains per
/// column), each row held in registers for the whole k loop.
#[inline(always)]
fn kmajor_n<const N: usize>(m: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    const R: usize = 4;
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
            for r in 0..R {
                for j in 0..N {
                    acc[r][j] = av[r].mul_add(brow[j], acc[r][j]);
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
    kmajor(m, n, k, at, b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn kmajor_avx2(m: usize, n: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    kmajor(m, n, k, at, b, c)
}

#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
fn kmajor_neon(m: usize, n: usize, k: usize, at: &[f32], b: &[f32], c: &mut [f32]) {
    kmajor(m, n, k, at, b, c)
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
