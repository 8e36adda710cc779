//! The block-scale step of the block-scaled MFMAs (`v_mfma_scale_f32_*_f8f6f4`, gfx950),
//! vectorised.
//!
//! Per 32-wide K block kb the partial product `part` (from 0, the FMA chain of the generic
//! executor) is added to the accumulator as `acc = round_f32(acc + part·2^(sa−127)·
//! 2^(sb−127))` in f64, NaN when either E8M0 scale byte is 0xFF (CDNA4 ISA 7.2; `mfma.rs`,
//! `scaled_gemm`). The product by the power of two is exact in f64 (exponents −403..382),
//! so the f64 multiply, add and narrowing here are the generic executor's operations in the
//! same order, done 8 or 16 lanes at a time; the scale is built from its exponent bits
//! whatever the bytes, and a 0xFF byte selects NaN afterwards (no branch), so the loop
//! vectorises.

use crate::matrix::gemm::Isa;

/// Applies K block `kb`'s scales to an `m×n` accumulator: `sa` (lane `i + M·kb` scales row
/// i) and `sb` (lane `j + N·kb` scales column j), `part` the block's partial products.
#[allow(clippy::too_many_arguments)]
pub(super) fn apply(
    isa: Isa,
    m: usize,
    n: usize,
    kb: usize,
    sa: &[u8; 64],
    sb: &[u8; 64],
    part: &[f32],
    acc: &mut [f32],
) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if std::arch::is_x86_feature_detected!("avx512f") => {
            // SAFETY: the CPU supports AVX-512F (checked just above), the only requirement;
            // the body is safe Rust.
            unsafe { apply_avx512(m, n, kb, sa, sb, part, acc) }
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 if std::arch::is_x86_feature_detected!("avx2") => {
            // SAFETY: the CPU supports AVX2 (checked just above).
            unsafe { apply_avx2(m, n, kb, sa, sb, part, acc) }
        }
        _ => apply_body(m, n, kb, sa, sb, part, acc),
    }
}

/// The body of [`apply`].
#[inline(always)]
fn apply_body(
    m: usize,
    n: usize,
    kb: usize,
    sa: &[u8; 64],
    sb: &[u8; 64],
    part: &[f32],
    acc: &mut [f32],
) {
    // Column scales of this block (n ≤ 64).
    let mut xb = [0u8; 64];
    for (j, x) in xb.iter_mut().enumerate().take(n) {
        *x = sb[(j + n * kb) % 64];
    }
    let xb = &xb[..n];
    for (i, (row, prow)) in acc
        .chunks_exact_mut(n)
        .zip(part.chunks_exact(n))
        .take(m)
        .enumerate()
    {
        let xa = sa[(i + m * kb) % 64];
        for ((o, &p), &xb) in row.iter_mut().zip(prow).zip(xb) {
            // 2^(xa+xb-254), exact (exponent in -254..=254, normal in f64).
            let scale = f64::from_bits((u64::from(xa) + u64::from(xb) + 1023 - 254) << 52);
            let v = (f64::from(*o) + f64::from(p) * scale) as f32;
            *o = if xa == 0xFF || xb == 0xFF {
                f32::NAN
            } else {
                v
            };
        }
    }
}

/// [`apply_body`] compiled for AVX-512F.
///
/// # Safety
/// The CPU supports AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn apply_avx512(
    m: usize,
    n: usize,
    kb: usize,
    sa: &[u8; 64],
    sb: &[u8; 64],
    part: &[f32],
    acc: &mut [f32],
) {
    apply_body(m, n, kb, sa, sb, part, acc)
}

/// [`apply_body`] compiled for AVX2.
///
/// # Safety
/// The CPU supports AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn apply_avx2(
    m: usize,
    n: usize,
    kb: usize,
    sa: &[u8; 64],
    sb: &[u8; 64],
    part: &[f32],
    acc: &mut [f32],
) {
    apply_body(m, n, kb, sa, sb, part, acc)
}
