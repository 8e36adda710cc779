//! Triton corpus cases: the kernels of `tests/kernels/triton/kernels.py`, AOT-compiled by Triton
//! 3.9.0 for the context's target (`tests/kernels/triton/<target>/`), launched as their JSON
//! launch files say, each checked against a host reference computed here.
//!
//! Triton appends two pointer arguments to every kernel (global and profile scratch); these
//! kernels use neither, so they get small poisoned buffers.

use super::harness::{Ctx, Rng, POISON};
use half::f16;
use serde_json::Value;
use wavejit::Arg::{self, Buffer as B};
use wavejit::Kernel;

macro_rules! triton_objects {
    ($($name:literal),* $(,)?) => {
        /// (target, name, code object, launch JSON) of every committed Triton kernel.
        const OBJECTS: &[(&str, &str, &[u8], &str)] = &[$(
            ("gfx942", $name,
             include_bytes!(concat!("../../kernels/triton/gfx942/", $name, ".hsaco")),
             include_str!(concat!("../../kernels/triton/gfx942/", $name, ".json"))),
            ("gfx950", $name,
             include_bytes!(concat!("../../kernels/triton/gfx950/", $name, ".hsaco")),
             include_str!(concat!("../../kernels/triton/gfx950/", $name, ".json"))),
            ("gfx1100", $name,
             include_bytes!(concat!("../../kernels/triton/gfx1100/", $name, ".hsaco")),
             include_str!(concat!("../../kernels/triton/gfx1100/", $name, ".json"))),
            ("gfx1200", $name,
             include_bytes!(concat!("../../kernels/triton/gfx1200/", $name, ".hsaco")),
             include_str!(concat!("../../kernels/triton/gfx1200/", $name, ".json"))),
            ("gfx1201", $name,
             include_bytes!(concat!("../../kernels/triton/gfx1201/", $name, ".hsaco")),
             include_str!(concat!("../../kernels/triton/gfx1201/", $name, ".json"))),
        )*];
    };
}
triton_objects!(
    "add_f32",
    "softmax_f32",
    "layernorm_f32",
    "row_reduce_i32",
    "masked_tile_f32",
    "matmul_f16"
);

/// A loaded Triton kernel with its launch description.
struct Triton {
    kernel: Kernel,
    info: Value,
}

impl Triton {
    /// Loads `name` for the context's target and checks that the launch file describes what
    /// the case assumes: the grid formula and the constexprs.
    fn load(ctx: &Ctx, name: &str, grid: [&str; 3], constexprs: &[(&str, u64)]) -> Triton {
        let (_, _, bytes, json) = OBJECTS
            .iter()
            .find(|(t, n, _, _)| *t == ctx.target && *n == name)
            .unwrap_or_else(|| panic!("no {} build of Triton kernel {name}", ctx.target));
        let info: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{name}.json: {e}"));
        assert_eq!(info["target"], ctx.target, "{name}.json target");
        assert_eq!(info["wave_size"], ctx.wave, "{name}.json wave size");
        assert_eq!(info["grid"], serde_json::json!(grid), "{name}.json grid");
        for (k, v) in constexprs {
            assert_eq!(info["constexprs"][k], *v, "{name}.json constexpr {k}");
        }
        let module = ctx
            .dev
            .load_module(bytes)
            .unwrap_or_else(|e| panic!("loading Triton {name} ({}): {e}", ctx.target));
        let kname = info["kernel"].as_str().expect("kernel name");
        let kernel = module.kernel(kname).unwrap_or_else(|e| panic!("{e}"));
        Triton { kernel, info }
    }

    /// The workgroup size from the launch file (num_warps x wave size).
    fn block(&self) -> [u32; 3] {
        let b = |i: usize| self.info["block"][i].as_u64().expect("block") as u32;
        [b(0), b(1), b(2)]
    }

    /// Launches on `grid` with the launch file's block and dynamic LDS (`shared`), appending
    /// the scratch pointers Triton adds (`trailing_pointer_args`).
    fn launch(&self, ctx: &Ctx, grid: [u32; 3], mut args: Vec<Arg>) {
        let shared = self.info["shared"].as_u64().expect("shared") as u32;
        let trailing = self.info["trailing_pointer_args"]
            .as_u64()
            .expect("trailing args");
        for _ in 0..trailing {
            args.push(B(ctx.output::<u32>(64)));
        }
        ctx.launch_lds(&self.kernel, grid, self.block(), shared, args);
    }
}

/// |got - want| <= atol + rtol * |want|, NaN never close.
fn close(got: f32, want: f64, rtol: f64, atol: f64) -> bool {
    ((got as f64) - want).abs() <= atol + rtol * want.abs()
}

/// `add_f32`: out = x + y over n = 2512 elements, BLOCK 1024 (3 programs, the last partial);
/// f32 addition is correctly rounded, so exact; the slack after n stays poisoned. The kernel
/// was compiled with n divisible by 16 (vector loads), so n is a multiple of 16.
pub fn triton_add(ctx: &Ctx) {
    let t = Triton::load(
        ctx,
        "add_f32",
        ["cdiv(n, BLOCK)", "1", "1"],
        &[("BLOCK", 1024)],
    );
    assert_eq!(t.info["divisible_by_16"][3], "n", "add_f32.json");
    let n = 2512;
    let mut r = Rng::new(101);
    let x: Vec<f32> = (0..n).map(|_| r.f32_mag(-10, 10)).collect();
    let y: Vec<f32> = (0..n).map(|_| r.f32_mag(-10, 10)).collect();
    let (bx, by, bo) = (ctx.input(&x), ctx.input(&y), ctx.output::<f32>(n + 36));
    t.launch(
        ctx,
        [n.div_ceil(1024) as u32, 1, 1],
        vec![B(bx), B(by), B(bo), Arg::I32(n as i32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let mut want: Vec<u32> = x.iter().zip(&y).map(|(a, b)| (a + b).to_bits()).collect();
    want.resize(n + 36, u32::from_ne_bytes([POISON; 4]));
    ctx.expect_eq("triton add_f32 out", &got, &want);
}

/// `softmax_f32`: 6 rows of 200 columns (BLOCK 256: masked tail), row strides 203 (in) and 210
/// (out); host reference in f64. The gaps between output rows stay poisoned.
pub fn triton_softmax(ctx: &Ctx) {
    let t = Triton::load(ctx, "softmax_f32", ["rows", "1", "1"], &[("BLOCK", 256)]);
    let (rows, cols, si, so) = (6usize, 200usize, 203usize, 210usize);
    let mut r = Rng::new(102);
    let x: Vec<f32> = (0..rows * si)
        .map(|i| (r.range(-6000, 6000) as f32) / 1000.0 + (i / si) as f32 * 3.0)
        .collect();
    let (bi, bo) = (ctx.input(&x), ctx.output::<f32>(rows * so));
    t.launch(
        ctx,
        [rows as u32, 1, 1],
        vec![
            B(bo),
            B(bi),
            Arg::I32(si as i32),
            Arg::I32(so as i32),
            Arg::I32(cols as i32),
        ],
    );
    let got: Vec<f32> = ctx.read("out", bo);
    let poison = f32::from_ne_bytes([POISON; 4]);
    let mut want = vec![f64::from(poison); rows * so];
    for row in 0..rows {
        let xs = &x[row * si..row * si + cols];
        let m = xs.iter().fold(f64::NEG_INFINITY, |a, &v| a.max(v as f64));
        let s: f64 = xs.iter().map(|&v| (v as f64 - m).exp()).sum();
        for c in 0..cols {
            want[row * so + c] = (xs[c] as f64 - m).exp() / s;
        }
    }
    let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
    let mut i = 0;
    ctx.expect_close("triton softmax_f32 out", &got, &want32, |g, w| {
        let ok = if (i % so) < cols {
            close(g, want[i], 2e-5, 1e-9)
        } else {
            g.to_bits() == w.to_bits()
        };
        i += 1;
        ok
    });
}

/// `layernorm_f32`: 4 rows of 300 columns (BLOCK 512), stride 320, eps 1e-5, with per-column
/// weight and bias; host reference in f64 (biased variance, as the kernel computes it).
pub fn triton_layernorm(ctx: &Ctx) {
    let t = Triton::load(ctx, "layernorm_f32", ["rows", "1", "1"], &[("BLOCK", 512)]);
    let (rows, cols, stride, eps) = (4usize, 300usize, 320usize, 1e-5f32);
    let mut r = Rng::new(103);
    let x: Vec<f32> = (0..rows * stride)
        .map(|i| (r.range(-4000, 4000) as f32) / 1000.0 * (1 + i / stride) as f32 + 2.0)
        .collect();
    let w: Vec<f32> = (0..cols)
        .map(|_| (r.range(500, 1500) as f32) / 1000.0)
        .collect();
    let b: Vec<f32> = (0..cols)
        .map(|_| (r.range(-1000, 1000) as f32) / 1000.0)
        .collect();
    let (bx, bw, bb) = (ctx.input(&x), ctx.input(&w), ctx.input(&b));
    let by = ctx.output::<f32>(rows * stride);
    t.launch(
        ctx,
        [rows as u32, 1, 1],
        vec![
            B(bx),
            B(by),
            B(bw),
            B(bb),
            Arg::I32(stride as i32),
            Arg::I32(cols as i32),
            Arg::F32(eps),
        ],
    );
    let got: Vec<f32> = ctx.read("y", by);
    let poison = f32::from_ne_bytes([POISON; 4]);
    let mut want = vec![f64::from(poison); rows * stride];
    for row in 0..rows {
        let xs: Vec<f64> = x[row * stride..row * stride + cols]
            .iter()
            .map(|&v| v as f64)
            .collect();
        let mean = xs.iter().sum::<f64>() / cols as f64;
        let var = xs.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + eps as f64).sqrt();
        for c in 0..cols {
            want[row * stride + c] = (xs[c] - mean) * rstd * w[c] as f64 + b[c] as f64;
        }
    }
    let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
    let mut i = 0;
    ctx.expect_close("triton layernorm_f32 y", &got, &want32, |g, w| {
        let ok = if (i % stride) < cols {
            close(g, want[i], 1e-4, 1e-5)
        } else {
            g.to_bits() == w.to_bits()
        };
        i += 1;
        ok
    });
}

/// `row_reduce_i32`: 6 rows of 1000 full-range i32 (8 loop iterations of BLOCK 128, the last
/// masked), stride 1003: wrapping sum and signed max per row; exact.
pub fn triton_row_reduce(ctx: &Ctx) {
    let t = Triton::load(ctx, "row_reduce_i32", ["rows", "1", "1"], &[("BLOCK", 128)]);
    let (rows, cols, stride) = (6usize, 1000usize, 1003usize);
    let mut r = Rng::new(104);
    let mut x: Vec<i32> = (0..rows * stride).map(|_| r.u32() as i32).collect();
    // Row 2 is all negative (the max must not come from masked lanes or the padding).
    for v in &mut x[2 * stride..3 * stride] {
        *v = -(*v & 0x7FFF_FFFF) - 1;
    }
    // The padding after each row holds the largest values: reading it is a visible bug.
    for row in 0..rows {
        for v in &mut x[row * stride + cols..(row + 1) * stride] {
            *v = i32::MAX;
        }
    }
    let (bx, bs, bm) = (
        ctx.input(&x),
        ctx.output::<i32>(rows + 2),
        ctx.output::<i32>(rows + 2),
    );
    t.launch(
        ctx,
        [rows as u32, 1, 1],
        vec![
            B(bx),
            B(bs),
            B(bm),
            Arg::I32(stride as i32),
            Arg::I32(cols as i32),
        ],
    );
    let poison = i32::from_ne_bytes([POISON; 4]);
    let mut want_s = vec![poison; rows + 2];
    let mut want_m = vec![poison; rows + 2];
    for row in 0..rows {
        let xs = &x[row * stride..row * stride + cols];
        want_s[row] = xs.iter().fold(0i32, |a, &v| a.wrapping_add(v));
        want_m[row] = *xs.iter().max().unwrap();
    }
    let got_s: Vec<i32> = ctx.read("sum", bs);
    let got_m: Vec<i32> = ctx.read("max", bm);
    ctx.expect_eq("triton row_reduce_i32 sum", &got_s, &want_s);
    ctx.expect_eq("triton row_reduce_i32 max", &got_m, &want_m);
}

/// `masked_tile_f32`: a 37 x 70 matrix with row stride 75 in 16 x 32 tiles (grid 3 x 3, edge
/// tiles partial in both dimensions): 2x + 1 where x > 0, else `fill`; exact (2x is exact).
/// Columns 70..75 of every row are outside the matrix and stay poisoned.
pub fn triton_masked_tile(ctx: &Ctx) {
    let t = Triton::load(
        ctx,
        "masked_tile_f32",
        ["cdiv(M, BM)", "cdiv(N, BN)", "1"],
        &[("BM", 16), ("BN", 32)],
    );
    let (m, n, stride, fill) = (37usize, 70usize, 75usize, -7.5f32);
    let mut r = Rng::new(105);
    let x: Vec<f32> = (0..m * stride).map(|_| r.f32_mag(-12, 12)).collect();
    let (bx, bo) = (ctx.input(&x), ctx.output::<f32>(m * stride));
    t.launch(
        ctx,
        [m.div_ceil(16) as u32, n.div_ceil(32) as u32, 1],
        vec![
            B(bx),
            B(bo),
            Arg::I32(m as i32),
            Arg::I32(n as i32),
            Arg::I32(stride as i32),
            Arg::F32(fill),
        ],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let want: Vec<u32> = (0..m * stride)
        .map(|i| {
            if i % stride >= n {
                u32::from_ne_bytes([POISON; 4])
            } else if x[i] > 0.0 {
                (2.0 * x[i] + 1.0).to_bits()
            } else {
                fill.to_bits()
            }
        })
        .collect();
    ctx.expect_eq("triton masked_tile_f32 out", &got, &want);
}

/// `matmul_f16`: C = A @ B with A 80 x 48, B 48 x 72 (partial 64 x 64 tiles in M and N, two
/// BLOCK_K = 32 steps, the second masked), row strides 56, 80 and 88. Inputs are
/// ±(1 + m/8) * 2^e, e in -2..=2, so the f32 sums are exact in any order and the f16 result is
/// the host's round-to-nearest-even of the exact sum; bitwise. Elements outside C stay poisoned.
pub fn triton_matmul(ctx: &Ctx) {
    let t = Triton::load(
        ctx,
        "matmul_f16",
        ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", "1"],
        &[("BLOCK_M", 64), ("BLOCK_N", 64), ("BLOCK_K", 32)],
    );
    let (m, n, k) = (80usize, 72usize, 48usize);
    let (sa, sb, sc) = (56usize, 80usize, 88usize);
    let mut r = Rng::new(106);
    let mut small = || {
        let e = r.range(-2, 3) as i32;
        let v = (1.0 + (r.u32() & 7) as f32 / 8.0) * 2f32.powi(e);
        if r.u32() & 1 == 1 {
            -v
        } else {
            v
        }
    };
    let a: Vec<f16> = (0..m * sa).map(|_| f16::from_f32(small())).collect();
    let b: Vec<f16> = (0..k * sb).map(|_| f16::from_f32(small())).collect();
    let bits = |v: &[f16]| v.iter().map(|x| x.to_bits()).collect::<Vec<u16>>();
    let (ba, bb) = (ctx.input(&bits(&a)), ctx.input(&bits(&b)));
    let bc = ctx.output::<u16>(m * sc);
    t.launch(
        ctx,
        [m.div_ceil(64) as u32, n.div_ceil(64) as u32, 1],
        vec![
            B(ba),
            B(bb),
            B(bc),
            Arg::I32(m as i32),
            Arg::I32(n as i32),
            Arg::I32(k as i32),
            Arg::I32(sa as i32),
            Arg::I32(sb as i32),
            Arg::I32(sc as i32),
        ],
    );
    let got: Vec<u16> = ctx.read("c", bc);
    let want: Vec<u16> = (0..m * sc)
        .map(|ij| {
            let (i, j) = (ij / sc, ij % sc);
            if j >= n {
                return u16::from_ne_bytes([POISON; 2]);
            }
            let s: f64 = (0..k)
                .map(|t| a[i * sa + t].to_f64() * b[t * sb + j].to_f64())
                .sum();
            assert_eq!(s as f32 as f64, s, "reference not exact");
            f16::from_f32(s as f32).to_bits()
        })
        .collect();
    ctx.expect_eq("triton matmul_f16 c", &got, &want);
}
