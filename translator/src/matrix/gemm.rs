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
}
