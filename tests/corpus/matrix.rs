//! MFMA tile cases (`tests/kernels/src/gfx9/mfma.hip`, built into `tests/kernels/matrix/`):
//! one wave computes D = A * B + C for one tile, each lane loading and storing its share with
//! the register layouts the source writes out from the ISA guide, checked against a host GEMM.
//!
//! Inputs are chosen so every result is exact whatever the summation order: floats are
//! ±(1 + m/8) * 2^e with e in -2..=2 (4 significant bits; exact in FP8, f16 and bf16), C is a
//! multiple of 2^-10 below 4, so each product is a multiple of 2^-10 below 2^6 and every
//! partial sum fits f32's 24-bit significand. The comparison is bitwise.

use super::harness::{Ctx, Rng, POISON};
use half::{bf16, f16};
use wavejit::Arg::Buffer as B;
use wavejit::Kernel;

const MFMA_GFX942: &[u8] = include_bytes!("../kernels/matrix/gfx942/mfma.hsaco");
const MFMA_GFX950: &[u8] = include_bytes!("../kernels/matrix/gfx950/mfma.hsaco");

/// Element encodings of the A and B operands.
#[derive(Clone, Copy)]
enum In {
    F16,
    Bf16,
    /// FP8 E4M3: FNUZ (exponent bias 8) on gfx942, OCP E4M3FN (bias 7) on gfx950.
    Fp8,
    I8,
}

fn kernel(ctx: &Ctx, name: &str) -> Kernel {
    let bytes = match ctx.target {
        "gfx942" => MFMA_GFX942,
        "gfx950" => MFMA_GFX950,
        t => panic!("no {t} build of the MFMA tiles"),
    };
    let module = ctx
        .dev
        .load_module(bytes)
        .unwrap_or_else(|e| panic!("loading mfma ({}): {e}", ctx.target));
    module.kernel(name).unwrap_or_else(|e| panic!("{e}"))
}

/// A random ±(1 + m/8) * 2^e, e in -2..=2, as (value, sign, e, m).
fn small_float(r: &mut Rng) -> (f64, u32, i32, u32) {
    let (s, e, m) = (r.u32() & 1, r.range(-2, 3) as i32, r.u32() & 7);
    let v = (1.0 + m as f64 / 8.0) * 2f64.powi(e);
    (if s == 1 { -v } else { v }, s, e, m)
}

/// Encodes `n` random operand elements of kind `kind` for `target`: (bytes, host values).
fn operand(r: &mut Rng, n: usize, kind: In, target: &str) -> (Vec<u8>, Vec<f64>) {
    let mut bytes = Vec::new();
    let mut vals = Vec::new();
    for _ in 0..n {
        match kind {
            In::I8 => {
                let v = r.u32() as u8;
                bytes.push(v);
                vals.push(v as i8 as f64);
            }
            In::Fp8 => {
                let (v, s, e, m) = small_float(r);
                let bias = if target == "gfx942" { 8 } else { 7 };
                bytes.push((s << 7 | ((e + bias) as u32) << 3 | m) as u8);
                vals.push(v);
            }
            In::F16 => {
                let (v, ..) = small_float(r);
                bytes.extend_from_slice(&f16::from_f64(v).to_le_bytes());
                vals.push(v);
            }
            In::Bf16 => {
                let (v, ..) = small_float(r);
                bytes.extend_from_slice(&bf16::from_f64(v).to_le_bytes());
                vals.push(v);
            }
        }
    }
    (bytes, vals)
}

/// Runs the tile kernel `name` (M x N x K) and compares D with the host GEMM, bitwise.
fn tile(ctx: &Ctx, name: &str, (m, n, k): (usize, usize, usize), kind: In, seed: u64) {
    let mut r = Rng::new(seed);
    let (a, av) = operand(&mut r, m * k, kind, ctx.target);
    let (b, bv) = operand(&mut r, k * n, kind, ctx.target);
    let kern = kernel(ctx, name);
    let (ba, bb) = (ctx.dev.alloc_from(&a), ctx.dev.alloc_from(&b));
    let bd = ctx.output::<u32>(m * n + 16);
    if let In::I8 = kind {
        let c: Vec<i32> = (0..m * n)
            .map(|_| r.range(-100_000, 100_000) as i32)
            .collect();
        let bc = ctx.input(&c);
        ctx.launch(
            &kern,
            [1, 1, 1],
            [64, 1, 1],
            vec![B(ba), B(bb), B(bc), B(bd)],
        );
        let mut want: Vec<i32> = (0..m * n)
            .map(|ij| {
                let (i, j) = (ij / n, ij % n);
                (0..k).fold(c[ij], |s, t| {
                    s.wrapping_add(av[i * k + t] as i32 * bv[t * n + j] as i32)
                })
            })
            .collect();
        want.resize(m * n + 16, i32::from_ne_bytes([POISON; 4]));
        let got: Vec<i32> = ctx.read("d", bd);
        ctx.expect_eq(&format!("{name} d"), &got, &want);
    } else {
        let c: Vec<f32> = (0..m * n)
            .map(|_| r.range(-4096, 4096) as f32 / 1024.0)
            .collect();
        let bc = ctx.input(&c);
        ctx.launch(
            &kern,
            [1, 1, 1],
            [64, 1, 1],
            vec![B(ba), B(bb), B(bc), B(bd)],
        );
        let mut want: Vec<u32> = (0..m * n)
            .map(|ij| {
                let (i, j) = (ij / n, ij % n);
                let s = (0..k).fold(c[ij] as f64, |s, t| s + av[i * k + t] * bv[t * n + j]);
                // Exact by construction (see the module comment), so the cast does not round.
                assert_eq!(s as f32 as f64, s, "{name}: reference not exact");
                (s as f32).to_bits()
            })
            .collect();
        want.resize(m * n + 16, u32::from_ne_bytes([POISON; 4]));
        let got: Vec<u32> = ctx.read("d", bd);
        ctx.expect_eq(&format!("{name} d"), &got, &want);
    }
}

/// `v_mfma_f32_32x32x8_f16` tile.
pub fn mfma_32x32x8_f16(ctx: &Ctx) {
    tile(ctx, "mfma_f32_32x32x8_f16", (32, 32, 8), In::F16, 201);
}

/// `v_mfma_f32_16x16x16_f16` tile.
pub fn mfma_16x16x16_f16(ctx: &Ctx) {
    tile(ctx, "mfma_f32_16x16x16_f16", (16, 16, 16), In::F16, 202);
}

/// `v_mfma_f32_16x16x32_fp8_fp8` tile (FNUZ on gfx942, OCP on gfx950).
pub fn mfma_16x16x32_fp8(ctx: &Ctx) {
    tile(ctx, "mfma_f32_16x16x32_fp8", (16, 16, 32), In::Fp8, 203);
}

/// `v_mfma_i32_16x16x32_i8` tile (full-range signed bytes, wrapping i32 accumulation).
pub fn mfma_16x16x32_i8(ctx: &Ctx) {
    tile(ctx, "mfma_i32_16x16x32_i8", (16, 16, 32), In::I8, 204);
}

/// gfx950 only: `v_mfma_f32_16x16x32_f16` and `_bf16` tiles (the kernels exist only in the
/// gfx950 build; on gfx942 the object must not define them).
pub fn mfma_16x16x32_f16_bf16_gfx950(ctx: &Ctx) {
    if ctx.target == "gfx950" {
        tile(ctx, "mfma_f32_16x16x32_f16", (16, 16, 32), In::F16, 205);
        tile(ctx, "mfma_f32_16x16x32_bf16", (16, 16, 32), In::Bf16, 206);
    } else {
        let m = ctx.dev.load_module(MFMA_GFX942).expect("gfx942 mfma loads");
        assert!(m.kernel("mfma_f32_16x16x32_f16").is_err());
    }
}
