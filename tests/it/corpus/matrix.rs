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
use wavejit::Arg::{self, Buffer as B};
use wavejit::Kernel;

const MFMA_GFX942: &[u8] = include_bytes!("../../kernels/matrix/gfx942/mfma.hsaco");
const MFMA_GFX950: &[u8] = include_bytes!("../../kernels/matrix/gfx950/mfma.hsaco");

/// The WMMA/SWMMAC tiles (`tests/kernels/src/rdna/wmma.hip`) per RDNA target.
const WMMA: &[(&str, &[u8])] = &[
    (
        "gfx1100",
        include_bytes!("../../kernels/matrix/gfx1100/wmma.hsaco"),
    ),
    (
        "gfx1100w64",
        include_bytes!("../../kernels/matrix/gfx1100w64/wmma.hsaco"),
    ),
    (
        "gfx1200",
        include_bytes!("../../kernels/matrix/gfx1200/wmma.hsaco"),
    ),
    (
        "gfx1200w64",
        include_bytes!("../../kernels/matrix/gfx1200w64/wmma.hsaco"),
    ),
    (
        "gfx1201",
        include_bytes!("../../kernels/matrix/gfx1201/wmma.hsaco"),
    ),
];

/// Element encodings of the A and B operands.
#[derive(Clone, Copy)]
enum In {
    F16,
    Bf16,
    /// FP8 E4M3: FNUZ (exponent bias 8) on gfx942, OCP E4M3FN (bias 7) on gfx950 and RDNA4.
    Fp8,
    /// BF8 E5M2, OCP (bias 15; RDNA4): values with two fraction bits.
    Bf8,
    I8,
    U8,
}

fn kernel(ctx: &Ctx, name: &str) -> Kernel {
    let bytes = match ctx.target {
        "gfx942" => MFMA_GFX942,
        "gfx950" => MFMA_GFX950,
        t => WMMA
            .iter()
            .find(|(w, _)| *w == t)
            .map(|(_, b)| *b)
            .unwrap_or_else(|| panic!("no {t} build of the matrix tiles")),
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
            In::I8 | In::U8 => {
                let v = r.u32() as u8;
                bytes.push(v);
                vals.push(if let In::I8 = kind {
                    v as i8 as f64
                } else {
                    v as f64
                });
            }
            In::Fp8 => {
                let (v, s, e, m) = small_float(r);
                let bias = if target == "gfx942" { 8 } else { 7 };
                bytes.push((s << 7 | ((e + bias) as u32) << 3 | m) as u8);
                vals.push(v);
            }
            In::Bf8 => {
                let (v, s, e, m) = small_float(r);
                // Round the 3-bit fraction down to E5M2's two bits (exact by construction).
                let v = v.signum() * (1.0 + (m & 6) as f64 / 8.0) * 2f64.powi(e);
                bytes.push((s << 7 | ((e + 15) as u32) << 2 | (m >> 1)) as u8);
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

/// Runs the tile kernel `name` (M x N x K, one wave) with both operands of `kind` and compares
/// D with the host GEMM, bitwise.
fn tile(ctx: &Ctx, name: &str, mnk: (usize, usize, usize), kind: In, seed: u64) {
    tile2(ctx, name, mnk, (kind, kind), seed);
}

/// `tile` with separate A and B element kinds (integer kinds give an i32 D).
fn tile2(ctx: &Ctx, name: &str, (m, n, k): (usize, usize, usize), kinds: (In, In), seed: u64) {
    let (kind, kind_b) = kinds;
    let mut r = Rng::new(seed);
    let (a, av) = operand(&mut r, m * k, kind, ctx.target);
    let (b, bv) = operand(&mut r, k * n, kind_b, ctx.target);
    let block = [ctx.wave, 1, 1];
    let kern = kernel(ctx, name);
    let (ba, bb) = (
        ctx.dev.alloc_from(&a).unwrap(),
        ctx.dev.alloc_from(&b).unwrap(),
    );
    let bd = ctx.output::<u32>(m * n + 16);
    if let In::I8 | In::U8 = kind {
        let c: Vec<i32> = (0..m * n)
            .map(|_| r.range(-100_000, 100_000) as i32)
            .collect();
        let bc = ctx.input(&c);
        ctx.launch(&kern, [1, 1, 1], block, vec![B(ba), B(bb), B(bc), B(bd)]);
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
        ctx.launch(&kern, [1, 1, 1], block, vec![B(ba), B(bb), B(bc), B(bd)]);
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

/// RDNA `v_wmma_f32_16x16x16_f16` tile.
pub fn wmma_f16(ctx: &Ctx) {
    tile(ctx, "wmma_f32_f16", (16, 16, 16), In::F16, 211);
}

/// RDNA `v_wmma_f32_16x16x16_bf16` tile.
pub fn wmma_bf16(ctx: &Ctx) {
    tile(ctx, "wmma_f32_bf16", (16, 16, 16), In::Bf16, 212);
}

/// RDNA `v_wmma_i32_16x16x16_iu8` tile, A signed and B unsigned (`neg_lo:[1,0,0]`).
pub fn wmma_iu8(ctx: &Ctx) {
    tile2(ctx, "wmma_i32_iu8", (16, 16, 16), (In::I8, In::U8), 213);
}

/// RDNA4 `v_wmma_f32_16x16x16_fp8_bf8` tile: A FP8 E4M3, B BF8 E5M2 (OCP).
pub fn wmma_fp8_bf8(ctx: &Ctx) {
    tile2(
        ctx,
        "wmma_f32_fp8_bf8",
        (16, 16, 16),
        (In::Fp8, In::Bf8),
        219,
    );
}

/// RDNA4 `v_swmmac_i32_16x16x32_iu8` tile: signed 2:4-sparse A (packed 16 x 16, one byte per
/// dword in memory), unsigned dense 32 x 16 B, index set 0 (the index of lane l's packed item
/// e at bits 2e; item e is packed column `k8(l, e)` of RDNA4's 8-bit layout), full-range C
/// with wrapping i32 sums, bitwise.
pub fn swmmac_iu8(ctx: &Ctx) {
    let (m, n, k) = (16usize, 16usize, 32usize);
    let mut r = Rng::new(220);
    let ap: Vec<u32> = (0..m * k / 2).map(|_| r.u32()).collect();
    let b: Vec<u32> = (0..k * n).map(|_| r.u32()).collect();
    const PAIRS: [(u32, u32); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let pick: Vec<(u32, u32)> = (0..m * k / 4)
        .map(|_| PAIRS[r.range(0, 6) as usize])
        .collect();
    // Wave32: k = {l/16, e} with e = 0..8; wave64: k = {l[4], l[5], e} with e = 0..4.
    let k8 = |l: usize, e: usize| -> usize {
        if ctx.wave == 64 {
            (l >> 4 & 1) << 3 | (l >> 5 & 1) << 2 | e
        } else {
            (l >> 4) * 8 + e
        }
    };
    let items = if ctx.wave == 64 { 4 } else { 8 };
    let idx: Vec<u32> = (0..ctx.wave as usize)
        .map(|l| {
            (0..items).fold(0u32, |w, e| {
                let kp = k8(l, e);
                let (i0, i1) = pick[(l % 16) * (k / 4) + kp / 2];
                w | (if kp % 2 == 0 { i0 } else { i1 }) << (2 * e)
            })
        })
        .collect();
    let mut a = vec![0i64; m * k];
    for i in 0..m {
        for kp in 0..k / 2 {
            let (i0, i1) = pick[i * (k / 4) + kp / 2];
            let pos = if kp % 2 == 0 { i0 } else { i1 };
            a[i * k + 4 * (kp / 2) + pos as usize] = ap[i * (k / 2) + kp] as u8 as i8 as i64;
        }
    }
    let c: Vec<i32> = (0..m * n).map(|_| r.u32() as i32).collect();
    let kern = kernel(ctx, "swmmac_i32_iu8");
    let bd = ctx.output::<i32>(m * n + 16);
    let args = vec![
        B(ctx.input(&ap)),
        B(ctx.input(&b)),
        B(ctx.input(&idx)),
        B(ctx.input(&c)),
        B(bd),
    ];
    ctx.launch(&kern, [1, 1, 1], [ctx.wave, 1, 1], args);
    let mut want: Vec<i32> = (0..m * n)
        .map(|ij| {
            let (i, j) = (ij / n, ij % n);
            (0..k).fold(c[ij], |s, t| {
                s.wrapping_add((a[i * k + t] * (b[t * n + j] & 0xFF) as i64) as i32)
            })
        })
        .collect();
    want.resize(m * n + 16, i32::from_ne_bytes([POISON; 4]));
    let got: Vec<i32> = ctx.read("d", bd);
    ctx.expect_eq("swmmac_i32_iu8 d", &got, &want);
}

/// RDNA4 `v_wmma_f32_16x16x16_fp8_fp8` tile (OCP E4M3); the gfx11 builds have no such kernel.
pub fn wmma_fp8(ctx: &Ctx) {
    tile(ctx, "wmma_f32_fp8", (16, 16, 16), In::Fp8, 214);
}

/// RDNA4 `v_swmmac_f32_16x16x32_f16` tile: a 2:4-sparse A (16 x 32, stored packed 16 x 16),
/// dense 32 x 16 B. Each lane passes one index dword (set 0): the 2-bit index of the lane's
/// packed item e at bits 2e (`matrix::wmma`); the kernel loads item e of lane l from packed
/// column `k16(l, e)` (the RDNA4 16-bit A layout of `wmma.hip`). The gfx11 builds have no such
/// kernel.
pub fn swmmac_f16(ctx: &Ctx) {
    let (m, n, k) = (16usize, 16usize, 32usize);
    let mut r = Rng::new(215);
    let (ap, apv) = operand(&mut r, m * k / 2, In::F16, ctx.target);
    let (b, bv) = operand(&mut r, k * n, In::F16, ctx.target);
    // Positions (idx0 < idx1) of the two kept values of every group of four k, per row.
    const PAIRS: [(u32, u32); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];
    let pick: Vec<(u32, u32)> = (0..m * k / 4)
        .map(|_| PAIRS[r.range(0, 6) as usize])
        .collect();
    // The packed column of lane l's item e (wave32: k = {k[3], l/16, e[1:0]} with e = 0..8;
    // wave64: k = {l/16, e[1:0]} with e = 0..4).
    let k16 = |l: usize, e: usize| -> usize {
        if ctx.wave == 64 {
            (l >> 4) << 2 | e
        } else {
            (e >> 2 & 1) << 3 | (l >> 4 & 1) << 2 | (e & 3)
        }
    };
    let items = if ctx.wave == 64 { 4 } else { 8 };
    let idx: Vec<u32> = (0..ctx.wave as usize)
        .map(|l| {
            (0..items).fold(0u32, |w, e| {
                let kp = k16(l, e);
                let (i0, i1) = pick[(l % 16) * (k / 4) + kp / 2];
                w | (if kp % 2 == 0 { i0 } else { i1 }) << (2 * e)
            })
        })
        .collect();
    // The expanded A: packed column kp of group q = kp / 2 lands at 4q + its index.
    let mut a = vec![0.0f64; m * k];
    for i in 0..m {
        for kp in 0..k / 2 {
            let (i0, i1) = pick[i * (k / 4) + kp / 2];
            let pos = if kp % 2 == 0 { i0 } else { i1 };
            a[i * k + 4 * (kp / 2) + pos as usize] = apv[i * (k / 2) + kp];
        }
    }
    let c: Vec<f32> = (0..m * n)
        .map(|_| r.range(-4096, 4096) as f32 / 1024.0)
        .collect();
    let kern = kernel(ctx, "swmmac_f32_f16");
    let (bap, bb) = (
        ctx.dev.alloc_from(&ap).unwrap(),
        ctx.dev.alloc_from(&b).unwrap(),
    );
    let (bi, bc) = (ctx.input(&idx), ctx.input(&c));
    let bd = ctx.output::<u32>(m * n + 16);
    ctx.launch(
        &kern,
        [1, 1, 1],
        [ctx.wave, 1, 1],
        vec![B(bap), B(bb), B(bi), B(bc), B(bd)],
    );
    let mut want: Vec<u32> = (0..m * n)
        .map(|ij| {
            let (i, j) = (ij / n, ij % n);
            let s = (0..k).fold(c[ij] as f64, |s, t| s + a[i * k + t] * bv[t * n + j]);
            assert_eq!(s as f32 as f64, s, "swmmac: reference not exact");
            (s as f32).to_bits()
        })
        .collect();
    want.resize(m * n + 16, u32::from_ne_bytes([POISON; 4]));
    let got: Vec<u32> = ctx.read("d", bd);
    ctx.expect_eq("swmmac_f32_f16 d", &got, &want);
}

/// RDNA `v_wmma_f16_16x16x16_f16` and `v_wmma_bf16_16x16x16_bf16` tiles: 16-bit A, B, C and
/// D (RDNA3: also the OPSEL[2] = 1 forms, `*_hi`, C and D in the high halves). Inputs as in `tile`; C is a multiple of 2^-6 below
/// 4 (exact in f16); the f32 sum is exact, so D is the host's round-to-nearest-even f16 of the
/// exact sum, bitwise.
pub fn wmma_f16_acc(ctx: &Ctx) {
    let mut names = vec![("wmma_f16_f16", In::F16), ("wmma_bf16_bf16", In::Bf16)];
    if ctx.target.starts_with("gfx11") {
        names.extend([
            ("wmma_f16_f16_hi", In::F16),
            ("wmma_bf16_bf16_hi", In::Bf16),
        ]);
    }
    let enc = |kind: In, v: f64| match kind {
        In::F16 => f16::from_f64(v).to_bits(),
        _ => bf16::from_f64(v).to_bits(),
    };
    for (s, (name, kind)) in names.into_iter().enumerate() {
        let mut r = Rng::new(216 + s as u64);
        let (a, av) = operand(&mut r, 256, kind, ctx.target);
        let (b, bv) = operand(&mut r, 256, kind, ctx.target);
        let c: Vec<f64> = (0..256).map(|_| r.range(-256, 256) as f64 / 64.0).collect();
        let cb: Vec<u16> = c.iter().map(|&v| enc(kind, v)).collect();
        let kern = kernel(ctx, name);
        let (ba, bb, bc) = (
            ctx.dev.alloc_from(&a).unwrap(),
            ctx.dev.alloc_from(&b).unwrap(),
            ctx.input(&cb),
        );
        let bd = ctx.output::<u16>(256 + 16);
        ctx.launch(
            &kern,
            [1, 1, 1],
            [ctx.wave, 1, 1],
            vec![B(ba), B(bb), B(bc), B(bd)],
        );
        let mut want: Vec<u16> = (0..256)
            .map(|ij| {
                let (i, j) = (ij / 16, ij % 16);
                let s = (0..16).fold(c[ij], |s, t| s + av[i * 16 + t] * bv[t * 16 + j]);
                assert_eq!(s as f32 as f64, s, "{name}: reference not exact");
                enc(kind, s)
            })
            .collect();
        want.resize(256 + 16, u16::from_ne_bytes([POISON; 2]));
        let got: Vec<u16> = ctx.read("d", bd);
        ctx.expect_eq(&format!("{name} d"), &got, &want);
    }
}

/// RDNA `v_wmma_i32_16x16x16_iu4` tile, A signed and B unsigned (`neg_lo:[1,0,0]`), every
/// 4-bit value, one per dword in memory (the upper bits are junk the kernel masks off);
/// wrapping i32 accumulation of full-range C, bitwise.
pub fn wmma_iu4(ctx: &Ctx) {
    let mut r = Rng::new(218);
    let mut nibbles = |signed: bool| -> (Vec<u32>, Vec<i64>) {
        (0..256)
            .map(|_| {
                let v = r.u32() & 0xF;
                let x = if signed {
                    (v as i32) << 28 >> 28
                } else {
                    v as i32
                };
                (v | 0x5A5A_5A50, x as i64)
            })
            .unzip()
    };
    let (a, av) = nibbles(true);
    let (b, bv) = nibbles(false);
    let c: Vec<i32> = (0..256).map(|_| r.u32() as i32).collect();
    let kern = kernel(ctx, "wmma_i32_iu4");
    let (ba, bb, bc) = (ctx.input(&a), ctx.input(&b), ctx.input(&c));
    let bd = ctx.output::<i32>(256 + 16);
    ctx.launch(
        &kern,
        [1, 1, 1],
        [ctx.wave, 1, 1],
        vec![B(ba), B(bb), B(bc), B(bd)],
    );
    let mut want: Vec<i32> = (0..256)
        .map(|ij| {
            let (i, j) = (ij / 16, ij % 16);
            (0..16).fold(c[ij], |s, t| {
                s.wrapping_add((av[i * 16 + t] * bv[t * 16 + j]) as i32)
            })
        })
        .collect();
    want.resize(256 + 16, i32::from_ne_bytes([POISON; 4]));
    let got: Vec<i32> = ctx.read("d", bd);
    ctx.expect_eq("wmma_i32_iu4 d", &got, &want);
}

/// Every WMMA/SWMMAC tile on every RDNA build (wave32 and wave64), under both engines, must
/// match the host GEMM bitwise (the RDNA status test also accepts "unsupported"; this one
/// does not).
#[test]
fn wmma_tiles_on_every_rdna_build() {
    for &(target, _) in WMMA {
        for engine in [wavejit::Engine::Interp, wavejit::Engine::Jit] {
            let ctx = Ctx::on(engine, target);
            wmma_f16(&ctx);
            wmma_bf16(&ctx);
            wmma_iu8(&ctx);
            wmma_f16_acc(&ctx);
            wmma_iu4(&ctx);
            if target.starts_with("gfx12") {
                wmma_fp8(&ctx);
                wmma_fp8_bf8(&ctx);
                swmmac_f16(&ctx);
                swmmac_iu8(&ctx);
            } else {
                let m = ctx.dev.load_module(WMMA[0].1).expect("gfx1100 wmma loads");
                assert!(m.kernel("swmmac_f32_f16").is_err());
            }
        }
    }
}

/// The Triton matmuls on bf16 and FP8 inputs (`tests/kernels/triton/`, `matmul_kernel` of
/// kernels.py, 64 x 64 x 32 blocks, f32 accumulation, f16 output): (target, name, object,
/// launch JSON). FP8 is E4M3 FNUZ on gfx942, OCP on gfx950 and RDNA4; gfx1100 has none.
const TRITON_MATMULS: &[(&str, &str, &[u8], &str)] = &[
    (
        "gfx942",
        "matmul_bf16",
        include_bytes!("../../kernels/triton/gfx942/matmul_bf16.hsaco"),
        include_str!("../../kernels/triton/gfx942/matmul_bf16.json"),
    ),
    (
        "gfx942",
        "matmul_fp8",
        include_bytes!("../../kernels/triton/gfx942/matmul_fp8.hsaco"),
        include_str!("../../kernels/triton/gfx942/matmul_fp8.json"),
    ),
    (
        "gfx950",
        "matmul_bf16",
        include_bytes!("../../kernels/triton/gfx950/matmul_bf16.hsaco"),
        include_str!("../../kernels/triton/gfx950/matmul_bf16.json"),
    ),
    (
        "gfx950",
        "matmul_fp8",
        include_bytes!("../../kernels/triton/gfx950/matmul_fp8.hsaco"),
        include_str!("../../kernels/triton/gfx950/matmul_fp8.json"),
    ),
    (
        "gfx1100",
        "matmul_bf16",
        include_bytes!("../../kernels/triton/gfx1100/matmul_bf16.hsaco"),
        include_str!("../../kernels/triton/gfx1100/matmul_bf16.json"),
    ),
    (
        "gfx1200",
        "matmul_bf16",
        include_bytes!("../../kernels/triton/gfx1200/matmul_bf16.hsaco"),
        include_str!("../../kernels/triton/gfx1200/matmul_bf16.json"),
    ),
    (
        "gfx1200",
        "matmul_fp8",
        include_bytes!("../../kernels/triton/gfx1200/matmul_fp8.hsaco"),
        include_str!("../../kernels/triton/gfx1200/matmul_fp8.json"),
    ),
    (
        "gfx1201",
        "matmul_bf16",
        include_bytes!("../../kernels/triton/gfx1201/matmul_bf16.hsaco"),
        include_str!("../../kernels/triton/gfx1201/matmul_bf16.json"),
    ),
    (
        "gfx1201",
        "matmul_fp8",
        include_bytes!("../../kernels/triton/gfx1201/matmul_fp8.hsaco"),
        include_str!("../../kernels/triton/gfx1201/matmul_fp8.json"),
    ),
];

/// One Triton matmul: C = A @ B with A 80 x 48, B 48 x 72 (partial 64 x 64 tiles, the second
/// BLOCK_K = 32 step masked), row strides 56, 80 and 88 elements. Inputs ±(1 + m/4)·2^e,
/// e in -2..=2, are exact in bf16 and both FP8 E4M3 flavours and keep every f32 partial sum
/// exact, so C is the host's round-to-nearest-even f16 of the exact sum; bitwise. Elements
/// outside C stay poisoned. `Err` carries the launch error text.
fn triton_matmul_typed(ctx: &Ctx, obj: &[u8], json: &str, name: &str) -> Result<(), String> {
    let info: serde_json::Value = serde_json::from_str(json).expect("launch JSON");
    assert_eq!(info["target"], ctx.target, "{name}.json target");
    assert_eq!(info["wave_size"], ctx.wave, "{name}.json wave size");
    for (k, v) in [("BLOCK_M", 64), ("BLOCK_N", 64), ("BLOCK_K", 32)] {
        assert_eq!(info["constexprs"][k], v, "{name}.json {k}");
    }
    let ty = info["args"][0]["type"]
        .as_str()
        .expect("a_ptr type")
        .to_string();
    let (m, n, k) = (80usize, 72usize, 48usize);
    let (sa, sb, sc) = (56usize, 80usize, 88usize);
    let mut r = Rng::new(if ty == "*bf16" { 107 } else { 108 });
    // (value, code): sign, exponent e in -2..=2, 2 fraction bits f.
    let mut elem = || -> (f64, Vec<u8>) {
        let (s, e, f) = (r.u32() & 1, r.range(-2, 3) as i32, r.u32() & 3);
        let v = (1.0 + f as f64 / 4.0) * 2f64.powi(e) * if s == 1 { -1.0 } else { 1.0 };
        let bias = match ty.as_str() {
            "*bf16" => return (v, bf16::from_f64(v).to_le_bytes().to_vec()),
            "*fp8e4b8" => 8,
            "*fp8e4nv" => 7,
            t => panic!("{name}: unexpected element type {t}"),
        };
        (v, vec![(s << 7 | ((e + bias) as u32) << 3 | f << 1) as u8])
    };
    let mut operand = |rows: usize, stride: usize| {
        let (mut vals, mut bytes) = (Vec::new(), Vec::new());
        for _ in 0..rows * stride {
            let (v, b) = elem();
            vals.push(v);
            bytes.extend(b);
        }
        (vals, bytes)
    };
    let (a, ab) = operand(m, sa);
    let (b, bb) = operand(k, sb);
    let bc = ctx.output::<u16>(m * sc);
    let module = ctx.dev.load_module(obj).map_err(|e| e.to_string())?;
    let kernel = module
        .kernel(info["kernel"].as_str().expect("kernel name"))
        .map_err(|e| e.to_string())?;
    let block = [info["block"][0].as_u64().expect("block") as u32, 1, 1];
    let mut l = wavejit::Launch::new([m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1], block)
        .dynamic_lds(info["shared"].as_u64().expect("shared") as u32)
        .engine(ctx.engine);
    let mut args = vec![
        B(ctx.dev.alloc_from(&ab).unwrap()),
        B(ctx.dev.alloc_from(&bb).unwrap()),
        B(bc),
        Arg::I32(m as i32),
        Arg::I32(n as i32),
        Arg::I32(k as i32),
        Arg::I32(sa as i32),
        Arg::I32(sb as i32),
        Arg::I32(sc as i32),
    ];
    for _ in 0..info["trailing_pointer_args"]
        .as_u64()
        .expect("trailing args")
    {
        args.push(B(ctx.output::<u32>(64)));
    }
    for x in args {
        l = l.arg(x);
    }
    ctx.dev.launch(&kernel, &l).map_err(|e| e.to_string())?;
    let got: Vec<u16> = ctx.read("c", bc);
    let want: Vec<u16> = (0..m * sc)
        .map(|ij| {
            let (i, j) = (ij / sc, ij % sc);
            if j >= n {
                return u16::from_ne_bytes([POISON; 2]);
            }
            let s: f64 = (0..k).map(|t| a[i * sa + t] * b[t * sb + j]).sum();
            assert_eq!(s as f32 as f64, s, "reference not exact");
            f16::from_f64(s).to_bits()
        })
        .collect();
    ctx.expect_eq(&format!("triton {name} c ({})", ctx.target), &got, &want);
    Ok(())
}

/// Every Triton bf16/FP8 matmul build (gfx950's epilogue uses `v_permlane32_swap_b32`) under
/// both engines: correct.
#[test]
fn triton_bf16_and_fp8_matmuls() {
    let mut ran = 0;
    for &(target, name, obj, json) in TRITON_MATMULS {
        for engine in [wavejit::Engine::Interp, wavejit::Engine::Jit] {
            let ctx = Ctx::on(engine, target);
            match triton_matmul_typed(&ctx, obj, json, name) {
                Ok(()) => ran += 1,
                Err(e) => panic!("{target} {name} {engine:?}: {e}"),
            }
        }
    }
    // Every build (gfx950's included), both engines.
    assert_eq!(
        ran,
        2 * TRITON_MATMULS.len(),
        "Triton matmul runs completed"
    );
}
