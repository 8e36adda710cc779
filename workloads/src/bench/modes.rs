//! Benchmarks of float modes and cold start (`benches/kernels/src/alu_modes.hip`,
//! `benches/kernels/src/cold_start.hip`): the ALU loop rounding toward zero, the same loop
//! in f64 with denormals kept and flushed, each checked against the host computing the
//! same; and a ~10 k-instruction kernel whose rows report the first launch and the
//! translation time, checked against the interpreter.

use super::*;

/// Builds of the mode and cold-start kernels: (GPU, wave size, `alu_modes`, `cold_start`).
const MODE_TARGETS: &[(&str, u32, &[u8], &[u8])] = &[
    (
        "gfx942",
        64,
        include_bytes!("../../../benches/kernels/gfx942/alu_modes.hsaco"),
        include_bytes!("../../../benches/kernels/gfx942/cold_start.hsaco"),
    ),
    (
        "gfx1100",
        32,
        include_bytes!("../../../benches/kernels/gfx1100/alu_modes.hsaco"),
        include_bytes!("../../../benches/kernels/gfx1100/cold_start.hsaco"),
    ),
    (
        "gfx1100",
        64,
        include_bytes!("../../../benches/kernels/gfx1100w64/alu_modes.hsaco"),
        include_bytes!("../../../benches/kernels/gfx1100w64/cold_start.hsaco"),
    ),
];

/// The chain constants of `alu_fma`: the multiplier and the four addends.
const M: f64 = 0.9990234375;
const K: [f64; 4] = [0.0009765625, 0.001953125, 0.0029296875, 0.00390625];

/// `x` (positive) rounded toward zero to f32.
fn rtz(x: f64) -> f32 {
    let r = x as f32;
    if f64::from(r) > x {
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    }
}

/// `alu_fma_rtz` for work-item `i`: every chain value is positive and below 2^7 with at
/// most 24 significant bits, so `c * m + k` is exact in f64 and `rtz` rounds it once, as
/// the GPU's fused multiply-add rounding toward zero does.
fn alu_rtz_item(i: usize, iters: u32) -> f32 {
    let x = f64::from(i as f32 * 0.0009765625);
    let mut c = [x, x + 0.25, x + 0.5, x + 0.75].map(rtz);
    for _ in 0..iters {
        for (ck, k) in c.iter_mut().zip(K) {
            *ck = rtz(f64::from(*ck) * M + k);
        }
    }
    let a = rtz(f64::from(c[0]) + f64::from(c[1]));
    let b = rtz(f64::from(c[2]) + f64::from(c[3]));
    rtz(f64::from(a) + f64::from(b))
}

/// `alu_fma64` on the host for work-items `first..first + out.len()`, with the FMA
/// instruction where the host has one (`f64::mul_add` compiles to a libm call otherwise).
fn alu_f64_native(out: &mut [f64], first: usize, iters: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: the required CPU features were detected at run time just above.
            unsafe { alu_f64_native_fma(out, first, iters) };
            return;
        }
    }
    alu_f64_native_portable(out, first, iters)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn alu_f64_native_fma(out: &mut [f64], first: usize, iters: u32) {
    alu_f64_native_portable(out, first, iters)
}

/// Eight work-items at a time so the compiler vectorises across them, as the GPU does:
/// `x = i * 2^-10`, chains from `x`, `x + 0.25`, `x + 0.5`, `x + 0.75`, each step
/// `c_k = fma(c_k, M, K[k])`, result `(c0 + c1) + (c2 + c3)`.
#[inline(always)]
fn alu_f64_native_portable(out: &mut [f64], first: usize, iters: u32) {
    const W: usize = 8;
    for (ci, chunk) in out.chunks_mut(W).enumerate() {
        let mut a = [[0f64; W]; 4];
        for l in 0..W {
            let x = (first + ci * W + l) as f64 * 0.0009765625;
            for (k, chain) in a.iter_mut().enumerate() {
                chain[l] = x + 0.25 * k as f64;
            }
        }
        for _ in 0..iters {
            for (chain, k) in a.iter_mut().zip(K) {
                for v in chain.iter_mut() {
                    *v = v.mul_add(M, k);
                }
            }
        }
        for (l, o) in chunk.iter_mut().enumerate() {
            *o = (a[0][l] + a[1][l]) + (a[2][l] + a[3][l]);
        }
    }
}

/// Fills `out[j]` with `f(j)` on `threads` threads.
fn host_items<T: Send>(out: &mut [T], threads: usize, f: impl Fn(usize) -> T + Sync) {
    let per = out.len().div_ceil(host_threads(threads)).max(1);
    std::thread::scope(|s| {
        for (c, part) in out.chunks_mut(per).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (j, o) in part.iter_mut().enumerate() {
                    *o = f(c * per + j);
                }
            });
        }
    });
}

/// Runs the `alu_modes` kernel `name` over `n` items with `bytes` per result; checks the
/// result against `want`; returns the measurement.
fn run_mode_kernel(
    cfg: &BenchConfig,
    object: &[u8],
    name: &str,
    n: usize,
    want: &[u8],
    label: &str,
) -> Result<Measured, Error> {
    let dev = Device::new();
    let kernel = dev.load_module(object)?.kernel(name)?;
    let out = dev.alloc(want.len())?;
    let launch = Launch::new([(n as u32).div_ceil(256), 1, 1], [256, 1, 1])
        .arg(Arg::Buffer(out))
        .arg(Arg::I32(cfg.alu_iters as i32))
        .engine(Engine::Jit)
        .threads(cfg.threads);
    let m = measure(cfg, &dev, &kernel, &launch)?;
    let got = dev.read(out)?;
    if got != want {
        return Err(Error::WrongResult(format!(
            "{name} benchmark ({label}): wavejit result differs from the host"
        )));
    }
    Ok(m)
}

/// The ALU loop rounding toward zero (f32) and in f64 with denormals kept and flushed,
/// next to host code computing the same.
pub(super) fn bench_alu_modes(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.alu_items;
    let iters = cfg.alu_iters;
    let work = Work {
        lane_ops: (n as f64) * iters as f64 * 4.0,
        bytes: 0.0,
    };
    let mut rows = Vec::new();
    // f32, toward zero. The host reference is the round-to-nearest loop (host code has no
    // cheap directed rounding); its result is checked against `alu_rtz_item`.
    let mut native = vec![0f32; n];
    let native_t = time_host(cfg, |threads| {
        alu_fma_host(&mut native, iters, threads);
        Ok(())
    })?;
    let reference = Reference::new::<(), ()>(&native_t, None);
    rows.push(host_row(
        cfg,
        "alu_fma_rtz",
        "native host (Rust, nearest)",
        &native_t,
        work,
        reference,
    ));
    let mut want = vec![0f32; n];
    host_items(&mut want, cfg.threads, |i| alu_rtz_item(i, iters));
    let want = f32_bytes(&want);
    for &(gpu, wave, modes, _) in MODE_TARGETS {
        let label = format!("{gpu} w{wave} rtz");
        let m = run_mode_kernel(cfg, modes, "alu_fma_rtz", n, &want, &label)?;
        rows.push(wavejit_row(
            cfg,
            "alu_fma_rtz",
            (gpu, wave),
            Some("rtz"),
            &m,
            work,
            reference,
        ));
    }
    // f64, denormals kept and flushed (every value is normal: the results are the same).
    let mut native = vec![0f64; n];
    let native_t = time_host(cfg, |threads| {
        let per = n.div_ceil(host_threads(threads)).max(1);
        std::thread::scope(|s| {
            for (c, part) in native.chunks_mut(per).enumerate() {
                s.spawn(move || alu_f64_native(part, c * per, iters));
            }
        });
        Ok(())
    })?;
    let reference = Reference::new::<(), ()>(&native_t, None);
    rows.push(host_row(
        cfg,
        "alu_fma64",
        "native host (Rust)",
        &native_t,
        work,
        reference,
    ));
    let want: Vec<u8> = native.iter().flat_map(|x| x.to_le_bytes()).collect();
    for &(gpu, wave, modes, _) in MODE_TARGETS {
        for (mode, name) in [("ieee", "alu_fma64"), ("flush", "alu_fma64_flush")] {
            let label = format!("{gpu} w{wave} f64 {mode}");
            let m = run_mode_kernel(cfg, modes, name, n, &want, &label)?;
            rows.push(wavejit_row(
                cfg,
                "alu_fma64",
                (gpu, wave),
                Some(mode),
                &m,
                work,
                reference,
            ));
        }
    }
    Ok(rows)
}

/// The ~10 k-instruction `cold_start` kernel on a grid large enough that every block is
/// compiled (256 wave64 or 512 wave32 runs of each straight-line block per launch): its rows
/// report the first launch (translation, the long blocks' quick compiles and runs of their
/// quick code) and the translation time; the optimised recompiles fall in later launches
/// (the loop blocks, which run three times per wave, in the second; the straight-line
/// stages in the fifth: `translator::tier`), which the warm-up launches absorb before the
/// steady samples. The result is checked against the interpreter's.
pub(super) fn bench_cold_start(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = 64 * 256;
    let iters = 3;
    let input: Vec<u8> = (0..n as u32)
        .flat_map(|i| i.wrapping_mul(0x9e37_79b9).rotate_left(7).to_le_bytes())
        .collect();
    let mut rows = Vec::new();
    for &(gpu, wave, _, object) in MODE_TARGETS {
        let run = |engine: Engine, cfg: &BenchConfig| -> Result<(Measured, Vec<u8>), Error> {
            // A fresh device each time: nothing translated before the first launch.
            let dev = Device::new();
            let kernel = dev.load_module(object)?.kernel("cold_start")?;
            let out = dev.alloc(n * 4)?;
            let inp = dev.alloc_from(&input)?;
            let launch = Launch::new([(n as u32) / 256, 1, 1], [256, 1, 1])
                .arg(Arg::Buffer(out))
                .arg(Arg::Buffer(inp))
                .arg(Arg::I32(iters))
                .engine(engine)
                .threads(cfg.threads);
            let m = measure(cfg, &dev, &kernel, &launch)?;
            Ok((m, dev.read(out)?))
        };
        let (m, got) = run(Engine::Jit, cfg)?;
        let reference_run = BenchConfig {
            samples: 1,
            scaling: false,
            ..cfg.clone()
        };
        let (_, want) = run(Engine::Interp, &reference_run)?;
        if got != want {
            return Err(Error::WrongResult(format!(
                "cold_start benchmark ({gpu} w{wave}): the JIT's result differs from the \
                 interpreter's"
            )));
        }
        let work = Work {
            lane_ops: n as f64,
            bytes: 0.0,
        };
        let reference = Reference {
            native: Duration::ZERO,
            memcpy: None,
            native_one: None,
            memcpy_one: None,
        };
        let mut row = wavejit_row(cfg, "cold_start", (gpu, wave), None, &m, work, reference);
        row.native_time = None;
        row.ratio_to_native = None;
        rows.push(row);
    }
    Ok(rows)
}
