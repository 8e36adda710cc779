//! One function per corpus kernel: seeded inputs, poisoned outputs, a launch under the context's
//! engine, and a host reference computed here. Every function records what it read back so the
//! differential test can compare engines.

use super::harness::{groups, Ctx, Rng, POISON};
use half::f16;
use wavejit::Arg::{self, Buffer as B};

fn u32a(v: u32) -> Arg {
    Arg::U32(v)
}

/// `vadd`: c = a + b (f32 add is correctly rounded: exact). n = 1000: 4 workgroups of 256,
/// the last one partial; the slack after n must stay poisoned.
pub fn vadd(ctx: &Ctx) {
    let n = 1000;
    let mut r = Rng::new(1);
    let a: Vec<f32> = (0..n).map(|_| r.f32_mag(-8, 8)).collect();
    let b: Vec<f32> = (0..n).map(|_| r.f32_mag(-8, 8)).collect();
    let k = ctx.kernel("vadd");
    let (ba, bb, bc) = (ctx.input(&a), ctx.input(&b), ctx.output::<f32>(n + 24));
    ctx.launch(
        &k,
        [groups(n, 256), 1, 1],
        [256, 1, 1],
        vec![B(ba), B(bb), B(bc), Arg::I32(n as i32)],
    );
    let got: Vec<u32> = ctx.read("c", bc);
    let mut want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| (x + y).to_bits()).collect();
    want.resize(n + 24, 0xA5A5_A5A5);
    ctx.expect_eq("vadd c", &got, &want);
}

/// `saxpy`: y = fma(alpha, x, y) (the compiler contracts to v_fmac_f32: exact vs mul_add).
pub fn saxpy(ctx: &Ctx) {
    let n = 777;
    let mut r = Rng::new(2);
    let x: Vec<f32> = (0..n).map(|_| r.f32_mag(-6, 6)).collect();
    let y: Vec<f32> = (0..n).map(|_| r.f32_mag(-6, 6)).collect();
    let alpha = 1.703125f32;
    let k = ctx.kernel("saxpy");
    let (bx, by) = (ctx.input(&x), ctx.input(&y));
    ctx.launch(
        &k,
        [groups(n, 128), 1, 1],
        [128, 1, 1],
        vec![Arg::F32(alpha), B(bx), B(by), u32a(n as u32)],
    );
    let got: Vec<f32> = ctx.read("y", by);
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    ctx.expect_eq("saxpy y", &got, &want);
}

/// `index2d`: 100 x 37 elements in 16 x 8 workgroups (partial in both dimensions).
pub fn index2d(ctx: &Ctx) {
    let (w, h) = (100usize, 37usize);
    let mut r = Rng::new(3);
    let input: Vec<u32> = (0..w * h).map(|_| r.u32()).collect();
    let k = ctx.kernel("index2d");
    let (bi, bo) = (ctx.input(&input), ctx.output::<u32>(w * h + 8));
    ctx.launch(
        &k,
        [groups(w, 16), groups(h, 8), 1],
        [16, 8, 1],
        vec![B(bi), B(bo), u32a(w as u32), u32a(h as u32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let mut want = vec![0xA5A5_A5A5u32; w * h + 8];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            want[i] = input[i]
                .wrapping_mul(3)
                .wrapping_add((x as u32) << 16)
                .wrapping_add(y as u32);
        }
    }
    ctx.expect_eq("index2d out", &got, &want);
}

/// `index3d`: 13 x 7 x 5 in 4 x 4 x 2 workgroups; checks global, local and workgroup ids.
pub fn index3d(ctx: &Ctx) {
    let (nx, ny, nz) = (13usize, 7usize, 5usize);
    let block = [4u32, 4, 2];
    let k = ctx.kernel("index3d");
    let bo = ctx.output::<u32>(2 * nx * ny * nz + 8);
    let grid = [
        groups(nx, block[0]),
        groups(ny, block[1]),
        groups(nz, block[2]),
    ];
    ctx.launch(
        &k,
        grid,
        block,
        vec![B(bo), u32a(nx as u32), u32a(ny as u32), u32a(nz as u32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let mut want = vec![0xA5A5_A5A5u32; 2 * nx * ny * nz + 8];
    for z in 0..nz as u32 {
        for y in 0..ny as u32 {
            for x in 0..nx as u32 {
                let i = ((z as usize * ny + y as usize) * nx + x as usize) * 2;
                want[i] = x | (y << 10) | (z << 20);
                let (tx, ty, tz) = (x % block[0], y % block[1], z % block[2]);
                let (bx, by, bz) = (x / block[0], y / block[1], z / block[2]);
                want[i + 1] = tx | (ty << 6) | (tz << 12) | (bx << 16) | (by << 21) | (bz << 26);
            }
        }
    }
    ctx.expect_eq("index3d out", &got, &want);
}

/// `int_ops32`: 16 results per element for every edge-value pair (0, ±1, MIN, MAX, ...) and random
/// pairs; host computation with Rust's wrapping integer ops.
pub fn int_ops32(ctx: &Ctx) {
    let n = 300;
    let mut r = Rng::new(4);
    let gen = |r: &mut Rng| -> i32 {
        match r.u32() % 4 {
            0 => r.range(-100, 100) as i32,
            1 => r.range(-70000, 70000) as i32,
            _ => r.u32() as i32,
        }
    };
    // Edge pairs first (every valid pair of the edge values), then random pairs.
    let edges = [
        0,
        1,
        -1,
        2,
        -2,
        7,
        -7,
        i32::MIN,
        i32::MAX,
        i32::MIN + 1,
        0x10000,
        -0x10000,
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &edges {
        for &y in &edges {
            if y != 0 && !(x == i32::MIN && y == -1) {
                a.push(x);
                b.push(y);
            }
        }
    }
    while a.len() < n {
        a.push(gen(&mut r));
        b.push(loop {
            let v = gen(&mut r);
            if v != 0 && v != -1 {
                break v;
            }
        });
    }
    let k = ctx.kernel("int_ops32");
    let (ba, bb, bo) = (ctx.input(&a), ctx.input(&b), ctx.output::<i32>(16 * n));
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bb), B(bo), u32a(n as u32)],
    );
    let got: Vec<i32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for (&x, &y) in a.iter().zip(&b) {
        let (ux, uy) = (x as u32, y as u32);
        want.extend_from_slice(&[
            x.wrapping_div(y),
            x.wrapping_rem(y),
            (ux / uy) as i32,
            (ux % uy) as i32,
            (ux << (uy & 31)) as i32,
            x >> (uy & 31),
            (ux >> (uy & 31)) as i32,
            x & y,
            x | y,
            x ^ !y,
            ux.count_ones() as i32,
            ux.leading_zeros() as i32,
            ux.wrapping_mul(uy) as i32,
            ((x as i64 * y as i64) >> 32) as i32,
            ((ux as u64 * uy as u64) >> 32) as i32,
            if x < y {
                y.wrapping_sub(x)
            } else {
                x.wrapping_sub(y)
            },
        ]);
    }
    ctx.expect_eq("int_ops32 out", &got, &want);
}

/// `int_ops64`: 10 results per element for edge-value pairs and random pairs (64-bit division is
/// a long compiler expansion).
pub fn int_ops64(ctx: &Ctx) {
    let n = 200;
    let mut r = Rng::new(5);
    let gen = |r: &mut Rng| -> i64 {
        match r.u32() % 4 {
            0 => r.range(-1000, 1000),
            1 => r.range(-(1 << 40), 1 << 40),
            2 => r.u32() as i64,
            _ => r.u64() as i64,
        }
    };
    // Edge pairs first (every valid pair of the edge values), then random pairs.
    let edges = [
        0,
        1,
        -1,
        3,
        -3,
        i64::MIN,
        i64::MAX,
        i64::MIN + 1,
        u32::MAX as i64,
        1 << 32,
        -(1 << 32),
        0x1_0000_0001,
    ];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &edges {
        for &y in &edges {
            if y != 0 && !(x == i64::MIN && y == -1) {
                a.push(x);
                b.push(y);
            }
        }
    }
    while a.len() < n {
        a.push(gen(&mut r));
        b.push(loop {
            let v = gen(&mut r);
            if v != 0 && v != -1 {
                break v;
            }
        });
    }
    let k = ctx.kernel("int_ops64");
    let (ba, bb, bo) = (ctx.input(&a), ctx.input(&b), ctx.output::<i64>(10 * n));
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bb), B(bo), u32a(n as u32)],
    );
    let got: Vec<i64> = ctx.read("out", bo);
    let mut want = Vec::new();
    for (&x, &y) in a.iter().zip(&b) {
        let (ux, uy) = (x as u64, y as u64);
        want.extend_from_slice(&[
            x.wrapping_div(y),
            x.wrapping_rem(y),
            (ux / uy) as i64,
            (ux % uy) as i64,
            (ux << (uy & 63)) as i64,
            x >> (uy & 63),
            (ux >> (uy & 63)) as i64,
            ux.count_ones() as i64,
            ux.leading_zeros() as i64,
            ux.wrapping_mul(uy).wrapping_add(ux ^ (uy >> 7)) as i64,
        ]);
    }
    ctx.expect_eq("int_ops64 out", &got, &want);
}

/// `float_ops`: all ten results are correctly rounded (division and sqrt use the compiler's
/// correctly rounded expansions: div_scale/div_fmas/div_fixup, and v_sqrt_f32 with an fma
/// residual correction), so the comparison is exact. Magnitudes in [2^-10, 2^10): no denormals.
pub fn float_ops(ctx: &Ctx) {
    let n = 300;
    let mut r = Rng::new(6);
    let a: Vec<f32> = (0..n).map(|_| r.f32_mag(-10, 10)).collect();
    let b: Vec<f32> = (0..n).map(|_| r.f32_mag(-10, 10)).collect();
    let c: Vec<f32> = (0..n).map(|_| r.f32_mag(-10, 10)).collect();
    let k = ctx.kernel("float_ops");
    let (ba, bb, bc, bo) = (
        ctx.input(&a),
        ctx.input(&b),
        ctx.input(&c),
        ctx.output::<f32>(10 * n),
    );
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bb), B(bc), B(bo), u32a(n as u32)],
    );
    let got: Vec<f32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        want.extend_from_slice(&[
            x / y,
            x.abs().sqrt(),
            x.mul_add(y, z),
            x.min(y),
            x.max(z),
            x.floor(),
            y.ceil(),
            z.trunc(),
            x * y,
            x - z,
        ]);
    }
    ctx.expect_eq("float_ops out", &got, &want);
}

/// `float_ops` on special values: ±0, ±inf, NaN, denormals, extremes, every (x, y) pair.
/// IEEE semantics with denormals (HIP's default f32 mode on gfx942); any NaN matches any NaN
/// (payloads are not specified), and min/max of two zeros may return either sign (IEEE
/// minNum/maxNum).
pub fn float_specials(ctx: &Ctx) {
    let sp = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-40,
        -3e-42,
        f32::MIN_POSITIVE,
        f32::MAX,
        -f32::MAX,
        1.0,
        -2.5,
        1e-30,
        3e38,
    ];
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for (i, x) in sp.iter().enumerate() {
        for (j, y) in sp.iter().enumerate() {
            a.push(*x);
            b.push(*y);
            c.push(sp[(i * 5 + j * 3) % sp.len()]);
        }
    }
    let n = a.len();
    let k = ctx.kernel("float_ops");
    let (ba, bb, bc, bo) = (
        ctx.input(&a),
        ctx.input(&b),
        ctx.input(&c),
        ctx.output::<f32>(10 * n),
    );
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bb), B(bc), B(bo), u32a(n as u32)],
    );
    let got: Vec<f32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for i in 0..n {
        let (x, y, z) = (a[i], b[i], c[i]);
        want.extend_from_slice(&[
            x / y,
            x.abs().sqrt(),
            x.mul_add(y, z),
            x.min(y),
            x.max(z),
            x.floor(),
            y.ceil(),
            z.trunc(),
            x * y,
            x - z,
        ]);
    }
    let mut field = 0usize;
    ctx.expect_close("float_ops specials", &got, &want, |g, w| {
        let f = field % 10;
        field += 1;
        (g.is_nan() && w.is_nan())
            || g.to_bits() == w.to_bits()
            || ((f == 3 || f == 4) && g == 0.0 && w == 0.0)
    });
}

/// `double_ops`: div (v_div_scale/fmas/fixup_f64), fma and floor(x*y) are correctly rounded.
/// sqrt is the compiler's v_rsq_f64 + Newton-Raphson expansion ending in an fma residual
/// correction; measured exact (0 ULP) on these 256 inputs under both engines, so compared
/// exactly (a 1-ULP bound was the initial statement).
pub fn double_ops(ctx: &Ctx) {
    let n = 256;
    let mut r = Rng::new(7);
    let a: Vec<f64> = (0..n).map(|_| r.f64_mag(-20, 20)).collect();
    let b: Vec<f64> = (0..n).map(|_| r.f64_mag(-20, 20)).collect();
    let k = ctx.kernel("double_ops");
    let (ba, bb, bo) = (ctx.input(&a), ctx.input(&b), ctx.output::<f64>(4 * n));
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bb), B(bo), u32a(n as u32)],
    );
    let got: Vec<f64> = ctx.read("out", bo);
    let pick = |v: &[f64], j: usize| v.iter().skip(j).step_by(4).copied().collect::<Vec<f64>>();
    let want_div: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
    let want_sqrt: Vec<f64> = a.iter().map(|x| x.abs().sqrt()).collect();
    let want_fma: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x.mul_add(*y, *x)).collect();
    let want_floor: Vec<f64> = a.iter().zip(&b).map(|(x, y)| (x * y).floor()).collect();
    ctx.expect_eq("double_ops div", &pick(&got, 0), &want_div);
    ctx.expect_eq("double_ops sqrt", &pick(&got, 1), &want_sqrt);
    ctx.expect_eq("double_ops fma", &pick(&got, 2), &want_fma);
    ctx.expect_eq("double_ops floor", &pick(&got, 3), &want_floor);
}

/// `double_ops` on special values (±0, ±inf, NaN, denormals, extremes), every (x, y) pair;
/// any NaN matches any NaN.
pub fn double_specials(ctx: &Ctx) {
    let sp = [
        0.0f64,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-310,
        -4e-320,
        f64::MIN_POSITIVE,
        f64::MAX,
        -f64::MAX,
        1.0,
        -2.5,
        1e-300,
        1e300,
    ];
    let a: Vec<f64> = sp.iter().flat_map(|x| sp.iter().map(move |_| *x)).collect();
    let b: Vec<f64> = sp.iter().flat_map(|_| sp.iter().copied()).collect();
    let n = a.len();
    let k = ctx.kernel("double_ops");
    let (ba, bb, bo) = (ctx.input(&a), ctx.input(&b), ctx.output::<f64>(4 * n));
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bb), B(bo), u32a(n as u32)],
    );
    let got: Vec<f64> = ctx.read("out", bo);
    let want: Vec<f64> = a
        .iter()
        .zip(&b)
        .flat_map(|(x, y)| [x / y, x.abs().sqrt(), x.mul_add(*y, *x), (x * y).floor()])
        .collect();
    ctx.expect_close("double_ops specials", &got, &want, |g, w| {
        (g.is_nan() && w.is_nan()) || g.to_bits() == w.to_bits()
    });
}

/// `convert`: conversions among f16/f32/f64/i32/u32; all exact (RNE or truncation), host via
/// Rust `as` casts and the `half` crate.
pub fn convert(ctx: &Ctx) {
    let n = 300;
    let mut r = Rng::new(8);
    let a: Vec<f32> = (0..n)
        .map(|i| match i % 3 {
            0 => r.f32_mag(-14, 16),  // f16-representable range, rounding matters
            1 => r.f32_mag(-24, -14), // f16 denormal range
            _ => r.f32_mag(16, 28),   // beyond f16 max: inf
        })
        .collect();
    let d: Vec<f64> = (0..n).map(|_| r.f64_mag(-100, 100)).collect();
    let h: Vec<u16> = (0..n)
        .map(|_| loop {
            let v = r.u32() as u16;
            if v & 0x7C00 != 0x7C00 {
                break v; // finite (no inf/NaN)
            }
        })
        .collect();
    let k = ctx.kernel("convert");
    let (ba, bd, bh, bo) = (
        ctx.input(&a),
        ctx.input(&d),
        ctx.input(&h),
        ctx.output::<u32>(8 * n),
    );
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bd), B(bh), B(bo), u32a(n as u32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for i in 0..n {
        let (x, y, hv) = (a[i], d[i], f16::from_bits(h[i]));
        let o3 = (x as i32) as u32;
        let w = x as f64 * 3.0 + (o3 as i32) as f64;
        want.extend_from_slice(&[
            f16::from_f32(x).to_bits() as u32,
            hv.to_f32().to_bits(),
            (y as f32).to_bits(),
            o3,
            ((o3.wrapping_mul(7) as i32) as f32).to_bits(),
            (o3.wrapping_mul(13) as f32).to_bits(),
            (w as i32) as u32,
            f16::from_f32(hv.to_f32() * 3.0).to_f32().to_bits(),
        ]);
    }
    ctx.expect_eq("convert out", &got, &want);
}

/// `convert` on special values: f32 -> f16, f16 -> f32, f64 -> f32 and the f16 multiply for
/// ±0, ±inf, NaN, denormals, overflow and rounding boundaries. Only those fields are compared
/// (the float -> int fields are undefined in C for these inputs); any NaN matches any NaN.
pub fn convert_specials(ctx: &Ctx) {
    let fa = [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        65504.0,
        65520.0, // rounds to f16 inf
        65519.996,
        -1e-8,  // f16 underflow to -0
        6.0e-8, // near the smallest f16 denormal
        2.98e-8,
        1e-40,
        1.0 + 1.0 / 1024.0, // exactly representable in f16
        1.0 + 1.0 / 2048.0, // a tie in f16: rounds to even
    ];
    let fd = [
        0.0f64,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e300,
        -1e-300,
        3.4028235677973366e38, // just above f32::MAX: rounds to f32::MAX or inf
        3.40282357e38,
        1e-45,
        7e-46,
        1.0000000596046448, // 1 + 2^-24: a tie
        -2.5,
        f64::MIN_POSITIVE,
    ];
    let fh: [u16; 14] = [
        0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0x0001, 0x83FF, 0x7BFF, 0x5800, 0x3C00,
        0xFBFF, 0x0400, 0x2E66,
    ];
    let n = fa.len();
    let k = ctx.kernel("convert");
    let (ba, bd, bh, bo) = (
        ctx.input(&fa),
        ctx.input(&fd),
        ctx.input(&fh),
        ctx.output::<u32>(8 * n),
    );
    ctx.launch(
        &k,
        [1, 1, 1],
        [64, 1, 1],
        vec![B(ba), B(bd), B(bh), B(bo), u32a(n as u32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let nan16 = |b: u32| b & 0x7C00 == 0x7C00 && b & 0x3FF != 0;
    let nan32 = |b: u32| f32::from_bits(b).is_nan();
    for i in 0..n {
        let hv = f16::from_bits(fh[i]);
        let fields = [
            (0, f16::from_f32(fa[i]).to_bits() as u32, true),
            (1, hv.to_f32().to_bits(), false),
            (2, (fd[i] as f32).to_bits(), false),
            (
                7,
                f16::from_f32(hv.to_f32() * 3.0).to_f32().to_bits(),
                false,
            ),
        ];
        for (f, want, is16) in fields {
            let g = got[8 * i + f];
            let same_nan = if is16 {
                nan16(g) && nan16(want)
            } else {
                nan32(g) && nan32(want)
            };
            ctx.expect_eq(
                &format!("convert specials element {i} field {f}"),
                &[if same_nan { want } else { g }],
                &[want],
            );
        }
    }
}

/// Host model of `divergent` for one element: (out[2i], Some(out[2i+1]) unless early return).
fn divergent_ref(v: i32) -> (i32, Option<i32>) {
    let u = v as u32;
    let mut acc = if v & 1 != 0 {
        if v & 2 != 0 {
            u.wrapping_mul(3)
        } else {
            u.wrapping_sub(7)
        }
    } else if v & 4 != 0 {
        u ^ 0x55
    } else {
        0u32.wrapping_sub(u)
    };
    let trip = (v >> 3) & 15;
    for k in 0..trip {
        acc = acc.wrapping_mul(5).wrapping_add(k as u32);
        if acc & 0xff == 0x3c {
            break;
        }
    }
    let mut c = (u & 0x3ff) + 1;
    let mut steps = 0i32;
    while c != 1 && steps < 200 {
        c = if c & 1 != 0 { 3 * c + 1 } else { c / 2 };
        steps += 1;
    }
    let first = acc.wrapping_add(steps as u32) as i32;
    if v < 0 && (v & 0x30) == 0x30 {
        return (first, None);
    }
    (first, Some(steps * 1000 + (acc & 0xfff) as i32))
}

/// `divergent`: nested branches, per-lane loops with break, early return (lanes that return
/// early leave out[2i+1] poisoned).
pub fn divergent(ctx: &Ctx) {
    let n = 500;
    let mut r = Rng::new(9);
    let input: Vec<i32> = (0..n).map(|_| r.u32() as i32).collect();
    let k = ctx.kernel("divergent");
    let (bi, bo) = (ctx.input(&input), ctx.output::<i32>(2 * n));
    ctx.launch(
        &k,
        [groups(n, 128), 1, 1],
        [128, 1, 1],
        vec![B(bi), B(bo), u32a(n as u32)],
    );
    let got: Vec<i32> = ctx.read("out", bo);
    let mut want = Vec::new();
    let mut early = 0;
    for &v in &input {
        let (a, b) = divergent_ref(v);
        early += b.is_none() as usize;
        want.push(a);
        want.push(b.unwrap_or(0xA5A5_A5A5u32 as i32));
    }
    assert!(
        early > 10 && early < n / 2,
        "input should exercise the early return ({early})"
    );
    ctx.expect_eq("divergent out", &got, &want);
}

/// `lds_reduce`: per-workgroup wrapping sums over 256 threads (4 waves, LDS tree + barriers).
pub fn lds_reduce(ctx: &Ctx) {
    let n = 1000;
    let mut r = Rng::new(10);
    let input: Vec<u32> = (0..n).map(|_| r.u32()).collect();
    let g = groups(n, 256) as usize;
    let k = ctx.kernel("lds_reduce");
    let (bi, bo) = (ctx.input(&input), ctx.output::<u32>(g + 2));
    ctx.launch(
        &k,
        [g as u32, 1, 1],
        [256, 1, 1],
        vec![B(bi), B(bo), u32a(n as u32)],
    );
    let got: Vec<u32> = ctx.read("sums", bo);
    let mut want: Vec<u32> = input
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |s, v| s.wrapping_add(*v)))
        .collect();
    want.extend_from_slice(&[0xA5A5_A5A5; 2]);
    ctx.expect_eq("lds_reduce sums", &got, &want);
}

/// `dyn_lds_reverse`: 3 workgroups of 200 threads with 800 bytes of dynamic LDS after the
/// kernel's 256 static bytes; each block reverses its slice through the dynamic array.
pub fn dyn_lds_reverse(ctx: &Ctx) {
    let (bs, g) = (200usize, 3usize);
    let mut r = Rng::new(19);
    let input: Vec<u32> = (0..bs * g).map(|_| r.u32()).collect();
    let k = ctx.kernel("dyn_lds_reverse");
    let (bi, bo) = (ctx.input(&input), ctx.output::<u32>(bs * g));
    let lds = (bs * 4) as u32;
    ctx.launch_lds(
        &k,
        [g as u32, 1, 1],
        [bs as u32, 1, 1],
        lds,
        vec![B(bi), B(bo)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let want: Vec<u32> = (0..bs * g)
        .map(|i| {
            let (blk, t) = (i / bs, i % bs);
            let stat = (t % 64) as u32 * 3 + blk as u32;
            input[blk * bs + bs - 1 - t].wrapping_add(stat)
        })
        .collect();
    ctx.expect_eq("dyn_lds_reverse out", &got, &want);
}

/// `wave_ops`: cross-lane operations in 4 waves (2 workgroups of 128). Lane semantics from the
/// GFX9 DPP table (cdna.md; row = 16 lanes): quad_perm [1,0,3,2] reads lane^1; row_shr:1 reads
/// row lane j-1, lane 0 of a row is invalid and keeps `old`; row_ror:4 reads row lane (j-4)
/// mod 16; row_mirror reads 15-j. ds_swizzle bitmask mode xor k reads lane^k within 32 lanes.
pub fn wave_ops(ctx: &Ctx) {
    let n = 256;
    let sel = 37u32;
    let mut r = Rng::new(11);
    let x: Vec<i32> = (0..n)
        .map(|_| r.range(-1_000_000, 1_000_000) as i32)
        .collect();
    let k = ctx.kernel("wave_ops");
    let (bi, bo) = (ctx.input(&x), ctx.output::<i32>(8 * n));
    ctx.launch(&k, [2, 1, 1], [128, 1, 1], vec![B(bi), B(bo), u32a(sel)]);
    let got: Vec<i32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for i in 0..n {
        let (base, l) = (i & !63, i & 63);
        let (row, j) = (l & !15, l & 15);
        let wave = &x[base..base + 64];
        let sum = wave.iter().fold(0i32, |s, v| s.wrapping_add(*v));
        want.extend_from_slice(&[
            wave[l ^ 1],
            if j == 0 { 0x1234 } else { wave[l - 1] },
            wave[row + (j + 12) % 16],
            wave[row + 15 - j],
            sum,
            wave[(sel & 63) as usize],
            wave[0],
            wave[(l * 5 + sel as usize) & 63],
        ]);
    }
    ctx.expect_eq("wave_ops out", &got, &want);
}

/// `wave_scan`: the DPP sequence computes each wave's inclusive prefix sum (32-lane waves on
/// the RDNA wave32 builds, whose variant replaces row_bcast by ds_bpermute).
pub fn wave_scan(ctx: &Ctx) {
    let n = 320;
    let mut r = Rng::new(12);
    let x: Vec<i32> = (0..n).map(|_| r.range(-50_000, 50_000) as i32).collect();
    let k = ctx.kernel("wave_scan");
    let (bi, bo) = (ctx.input(&x), ctx.output::<i32>(n));
    ctx.launch(&k, [5, 1, 1], [64, 1, 1], vec![B(bi), B(bo)]);
    let got: Vec<i32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for wave in x.chunks(ctx.wave as usize) {
        let mut s = 0i32;
        for v in wave {
            s = s.wrapping_add(*v);
            want.push(s);
        }
    }
    ctx.expect_eq("wave_scan out", &got, &want);
}

/// `atomics`: 1000 work-items in 8 workgroups of 128 (last wave partial). Integer results are
/// order-independent; tickets are a permutation; the f32 sum is exact (integer partial sums
/// below 2^24).
pub fn atomics(ctx: &Ctx) {
    let n = 1000;
    let mut r = Rng::new(13);
    let v: Vec<i32> = (0..n).map(|_| r.u32() as i32).collect();
    let init: [i32; 10] = [12345, i32::MAX, i32::MIN, -1, 0, -1, 0, 0x1357_9BDF, 5, 100];
    let k = ctx.kernel("atomics");
    let (bi, bc) = (ctx.input(&v), ctx.input(&init));
    let (bt, bf) = (ctx.output::<u32>(n), ctx.input(&[0.5f32]));
    ctx.launch(
        &k,
        [groups(n, 128), 1, 1],
        [128, 1, 1],
        vec![B(bi), B(bc), B(bt), B(bf), u32a(n as u32)],
    );
    let got_c: Vec<i32> = ctx.read("counters", bc);
    let tickets: Vec<u32> = ctx.read("tickets", bt);
    let got_f: Vec<f32> = ctx.read("fsum", bf);
    let want_c = [
        v.iter().fold(init[0], |s, x| s.wrapping_add(*x)),
        *v.iter().min().unwrap(),
        *v.iter().max().unwrap(),
        v.iter().map(|x| *x as u32).min().unwrap() as i32,
        v.iter().map(|x| *x as u32).max().unwrap() as i32,
        v.iter().fold(-1, |s, x| s & (x | 0x0f0f_0f0f)),
        v.iter().fold(0, |s, x| s | (x & 0x00ff_00ff)),
        v.iter().fold(init[7], |s, x| s ^ x),
        v.iter().fold(init[8], |s, x| s + (x & 7)),
        100 + n as i32,
    ];
    ctx.expect_eq("atomics counters", &got_c, &want_c);
    let mut sorted = tickets.clone();
    sorted.sort_unstable();
    let want_t: Vec<u32> = (100..100 + n as u32).collect();
    ctx.expect_eq("atomics tickets (sorted)", &sorted, &want_t);
    let want_f = 0.5 + v.iter().map(|x| (x & 0xff) as f32).sum::<f32>();
    ctx.expect_eq("atomics fsum", &got_f, &[want_f]);
}

/// Host model of `private_array` / `private_flat` for work-item `i`.
fn private_ref(i: u32, j: u32, seed: u32) -> u32 {
    let mut arr: Vec<u32> = (0..64)
        .map(|k| i.wrapping_mul(k).wrapping_add(seed))
        .collect();
    for rr in 0..8u32 {
        let src = arr[(j.wrapping_mul(3).wrapping_add(rr) & 63) as usize];
        let d = (j.wrapping_add(rr * 7) & 63) as usize;
        arr[d] = arr[d].wrapping_add(src);
    }
    arr[(j & 63) as usize] ^ arr[((j >> 6) & 63) as usize]
}

fn private_case(ctx: &Ctx, kernel: &str, seed: u64) {
    let n = 300;
    let s = 0x9E37_0001u32;
    let mut r = Rng::new(seed);
    let idx: Vec<u32> = (0..n).map(|_| r.u32()).collect();
    let k = ctx.kernel(kernel);
    let (bi, bo) = (ctx.input(&idx), ctx.output::<u32>(n + 4));
    ctx.launch(
        &k,
        [groups(n, 64), 1, 1],
        [64, 1, 1],
        vec![B(bi), B(bo), u32a(s), u32a(n as u32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let mut want: Vec<u32> = (0..n).map(|i| private_ref(i as u32, idx[i], s)).collect();
    want.extend_from_slice(&[0xA5A5_A5A5; 4]);
    ctx.expect_eq(kernel, &got, &want);
}

/// `private_array`: a 64-word private array with dynamic indices (scratch_load/scratch_store).
pub fn private_array(ctx: &Ctx) {
    private_case(ctx, "private_array", 14)
}

/// `private_flat`: the same on a volatile array (flat instructions through the private aperture).
pub fn private_flat(ctx: &Ctx) {
    private_case(ctx, "private_flat", 15)
}

/// `mem_widths`: byte/short/dwordx2 loads and stores, sign extension; slack after each
/// output must stay poisoned (no over-wide stores).
pub fn mem_widths(ctx: &Ctx) {
    let n = 333;
    let slack = 16;
    let mut r = Rng::new(16);
    let b8: Vec<u8> = (0..n).map(|_| r.u32() as u8).collect();
    let h16: Vec<u16> = (0..n).map(|_| r.u32() as u16).collect();
    let d64: Vec<u64> = (0..n).map(|_| r.u64()).collect();
    let sb8: Vec<i8> = (0..n).map(|_| r.u32() as i8).collect();
    let sh16: Vec<i16> = (0..n).map(|_| r.u32() as i16).collect();
    let k = ctx.kernel("mem_widths");
    let ins = [
        ctx.input(&b8),
        ctx.input(&h16),
        ctx.input(&d64),
        ctx.input(&sb8),
        ctx.input(&sh16),
    ];
    let (o8, o16) = (ctx.output::<u8>(n + slack), ctx.output::<u16>(n + slack));
    let (o64, oi) = (
        ctx.output::<u64>(n + slack),
        ctx.output::<i32>(2 * n + slack),
    );
    let mut args: Vec<Arg> = ins.iter().map(|b| B(*b)).collect();
    args.extend([B(o8), B(o16), B(o64), B(oi), u32a(n as u32)]);
    ctx.launch(&k, [groups(n, 64), 1, 1], [64, 1, 1], args);
    let g8: Vec<u8> = ctx.read("o8", o8);
    let g16: Vec<u16> = ctx.read("o16", o16);
    let g64: Vec<u64> = ctx.read("o64", o64);
    let gi: Vec<i32> = ctx.read("oi", oi);
    let mut w8: Vec<u8> = (0..n).map(|i| b8[n - 1 - i] ^ 0x5a).collect();
    w8.resize(n + slack, POISON);
    let mut w16: Vec<u16> = h16.iter().map(|h| (*h as u32 * 3 + 1) as u16).collect();
    w16.resize(n + slack, 0xA5A5);
    let mut w64: Vec<u64> = d64
        .iter()
        .map(|d| d.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(d >> 17))
        .collect();
    w64.resize(n + slack, 0xA5A5_A5A5_A5A5_A5A5);
    let mut wi: Vec<i32> = (0..n)
        .flat_map(|i| [sb8[i] as i32, sh16[i] as i32])
        .collect();
    wi.resize(2 * n + slack, 0xA5A5_A5A5u32 as i32);
    ctx.expect_eq("mem_widths o8", &g8, &w8);
    ctx.expect_eq("mem_widths o16", &g16, &w16);
    ctx.expect_eq("mem_widths o64", &g64, &w64);
    ctx.expect_eq("mem_widths oi", &gi, &wi);
}

/// `block_scan`: inclusive prefix sums per 256-thread workgroup (n = 700: last block partial).
pub fn block_scan(ctx: &Ctx) {
    let n = 700;
    let mut r = Rng::new(17);
    let input: Vec<u32> = (0..n).map(|_| r.u32()).collect();
    let g = groups(n, 256) as usize;
    let k = ctx.kernel("block_scan");
    let (bi, bo, bt) = (
        ctx.input(&input),
        ctx.output::<u32>(n + 4),
        ctx.output::<u32>(g),
    );
    ctx.launch(
        &k,
        [g as u32, 1, 1],
        [256, 1, 1],
        vec![B(bi), B(bo), B(bt), u32a(n as u32)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let totals: Vec<u32> = ctx.read("totals", bt);
    let mut want = Vec::new();
    let mut want_t = Vec::new();
    for c in input.chunks(256) {
        let mut s = 0u32;
        for v in c {
            s = s.wrapping_add(*v);
            want.push(s);
        }
        want_t.push(s);
    }
    want.extend_from_slice(&[0xA5A5_A5A5; 4]);
    ctx.expect_eq("block_scan out", &got, &want);
    ctx.expect_eq("block_scan totals", &totals, &want_t);
}

/// `barrier_loop`: 3 workgroups of 96 work-items (one full and one half wave each), 5 steps of
/// an LDS ring rotation with two barriers per step.
pub fn barrier_loop(ctx: &Ctx) {
    let (bs, g, iters) = (96usize, 3usize, 5u32);
    let mut r = Rng::new(18);
    let input: Vec<u32> = (0..bs * g).map(|_| r.u32()).collect();
    let k = ctx.kernel("barrier_loop");
    let (bi, bo) = (ctx.input(&input), ctx.output::<u32>(bs * g));
    ctx.launch(
        &k,
        [g as u32, 1, 1],
        [bs as u32, 1, 1],
        vec![B(bi), B(bo), u32a(iters)],
    );
    let got: Vec<u32> = ctx.read("out", bo);
    let mut want = Vec::new();
    for c in input.chunks(bs) {
        let mut sh = c.to_vec();
        for s in 0..iters {
            let v: Vec<u32> = (0..bs)
                .map(|t| sh[(t + 1) % bs].wrapping_add(sh[t]))
                .collect();
            sh = v.iter().map(|x| x ^ s).collect();
        }
        want.extend(sh);
    }
    ctx.expect_eq("barrier_loop out", &got, &want);
}

/// `alu_fma`: 4 FMA chains per lane (exact: host uses mul_add; the kernel's x + k is an fma of
/// an exactly scaled i, equal to the host's add). No bounds check in the kernel: the buffer
/// covers the whole grid.
pub fn alu_fma(ctx: &Ctx) {
    let (items, iters) = (512usize, 50);
    let k = ctx.kernel("alu_fma");
    let bo = ctx.output::<f32>(items);
    ctx.launch(
        &k,
        [groups(items, 128), 1, 1],
        [128, 1, 1],
        vec![B(bo), Arg::I32(iters)],
    );
    let got: Vec<f32> = ctx.read("out", bo);
    let m = 1.0f32 - 1.0 / 1024.0; // 0.9990234375, exact
    let consts = [
        0.000_976_562_5f32,
        0.001_953_125,
        0.002_929_687_5,
        0.003_906_25,
    ];
    let want: Vec<f32> = (0..items)
        .map(|i| {
            let x = i as f32 * 0.000_976_562_5;
            let mut c = [x, x + 0.25, x + 0.5, x + 0.75];
            for _ in 0..iters {
                for (ck, a) in c.iter_mut().zip(consts) {
                    *ck = ck.mul_add(m, a);
                }
            }
            (c[0] + c[1]) + (c[2] + c[3])
        })
        .collect();
    ctx.expect_eq("alu_fma out", &got, &want);
}
