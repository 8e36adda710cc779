//! Built-in benchmarks (`wavejit bench`): the same workloads the criterion benches use.
//!
//! Each benchmark runs a corpus kernel through wavejit on all host threads and, in the same
//! run, the same computation compiled natively for the host (Rust, multi-threaded, FMA/AVX
//! where the CPU has them) and, for memory-bound work, a host memcpy of the same bytes. The
//! numbers are ratios against those, never absolute claims; tests never assert on them.

use crate::{Arg, Device, Engine, Error, Launch};
use std::time::{Duration, Instant};

/// One measured row of the benchmark table.
#[derive(Clone, Debug)]
pub struct BenchRow {
    /// Workload name.
    pub name: String,
    /// What was measured (e.g. "wavejit jit", "native host", "host memcpy").
    pub what: String,
    /// Best wall time over the samples.
    pub time: Duration,
    /// Wave instructions executed per second (wavejit rows only).
    pub wave_insts_per_s: Option<f64>,
    /// Lane operations (FMAs, elements; for GEMMs floating-point operations) per second.
    pub lane_ops_per_s: Option<f64>,
    /// Bytes moved per second (memory-bound rows).
    pub bytes_per_s: Option<f64>,
    /// This row's throughput divided by the native row's.
    pub ratio_to_native: Option<f64>,
    /// Mean process CPU time per run (all threads; on a shared machine, wall time includes
    /// waiting for a core, CPU time does not).
    pub cpu: Option<Duration>,
}

/// Benchmark sizes.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Elements of the vector-add benchmark.
    pub vadd_elems: usize,
    /// Work-items of the ALU benchmark.
    pub alu_items: usize,
    /// FMA iterations per work-item (each does 4 FMAs).
    pub alu_iters: u32,
    /// Samples per measurement (the best is reported).
    pub samples: usize,
    /// Host threads (0 = all).
    pub threads: usize,
    /// M = N = K of the GEMM benchmarks (a multiple of 256, the largest tiled GEMM's tile).
    pub gemm_size: usize,
    /// Run only the workloads whose name contains this text (all when empty).
    pub only: String,
}

impl BenchConfig {
    /// A small configuration for smoke runs and criterion (seconds, not minutes).
    pub fn quick() -> BenchConfig {
        BenchConfig {
            vadd_elems: 4 << 20,
            alu_items: 16 * 1024,
            alu_iters: 256,
            samples: 3,
            threads: 0,
            gemm_size: 256,
            only: String::new(),
        }
    }
}

impl Default for BenchConfig {
    fn default() -> Self {
        BenchConfig {
            vadd_elems: 64 << 20,
            alu_items: 64 * 1024,
            alu_iters: 2048,
            samples: 3,
            threads: 0,
            gemm_size: 1024,
            only: String::new(),
        }
    }
}

/// Runs `f` `samples` times: the best wall time, its result, and the mean process CPU time
/// per sample (all threads; `None` where the platform does not report it).
fn best_of<T>(
    samples: usize,
    mut f: impl FnMut() -> Result<T, Error>,
) -> Result<(Duration, T, Option<Duration>), Error> {
    let mut best: Option<(Duration, T)> = None;
    let n = samples.max(1);
    let cpu0 = process_cpu();
    for _ in 0..n {
        let t0 = Instant::now();
        let r = f()?;
        let dt = t0.elapsed();
        if best.as_ref().is_none_or(|(b, _)| dt < *b) {
            best = Some((dt, r));
        }
    }
    let cpu = match (cpu0, process_cpu()) {
        (Some(a), Some(b)) => b.checked_sub(a).map(|d| d / n as u32),
        _ => None,
    };
    let (t, r) = best.ok_or_else(|| Error::Usage("no samples".into()))?;
    Ok((t, r, cpu))
}

/// CPU time (user + system) of this process so far: `/proc/self/stat` fields 14 and 15, in
/// Linux's fixed 100 Hz `USER_HZ` ticks. `None` elsewhere or when unreadable.
fn process_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may contain spaces; fields after its ')' are plain.
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

fn host_threads(threads: usize) -> usize {
    if threads > 0 {
        threads
    } else {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    }
}

/// A corpus kernel prepared for repeated launches (inputs allocated, launch built), so a
/// benchmark harness (criterion, `wavejit bench`) times only the launch.
pub struct Workload {
    dev: Device,
    kernel: crate::Kernel,
    launch: Launch,
    /// Lane operations one launch performs (FMAs or elements).
    pub lane_ops: f64,
    /// Bytes one launch moves to and from memory (0 for ALU-bound work).
    pub bytes: f64,
    /// The buffer holding the result (when the workload checks one).
    out: Option<crate::Buffer>,
}

impl Workload {
    /// The ALU-bound `alu_fma` kernel at `cfg`'s size, on `engine`.
    pub fn alu_fma(cfg: &BenchConfig, engine: Engine) -> Result<Workload, Error> {
        let n = cfg.alu_items;
        let dev = Device::new();
        let module = dev.load_module(crate::corpus::object("alu_fma"))?;
        let kernel = module.kernel("alu_fma")?;
        let out = dev.alloc(n * 4)?;
        let launch = Launch::new([(n as u32).div_ceil(256), 1, 1], [256, 1, 1])
            .arg(Arg::Buffer(out))
            .arg(Arg::I32(cfg.alu_iters as i32))
            .engine(engine)
            .threads(cfg.threads);
        let lane_ops = n as f64 * cfg.alu_iters as f64 * 4.0;
        Ok(Workload {
            dev,
            kernel,
            launch,
            lane_ops,
            bytes: 0.0,
            out: Some(out),
        })
    }

    /// `vadd` over `cfg.vadd_elems` floats, on `engine`.
    pub fn vadd(cfg: &BenchConfig, engine: Engine) -> Result<Workload, Error> {
        let n = cfg.vadd_elems;
        let dev = Device::new();
        let module = dev.load_module(crate::corpus::object("vadd"))?;
        let kernel = module.kernel("vadd")?;
        let bytes_of =
            |f: &dyn Fn(usize) -> f32| (0..n).flat_map(|i| f(i).to_le_bytes()).collect::<Vec<u8>>();
        let a = dev.alloc_from(&bytes_of(&|i| (i % 1000) as f32 * 0.5))?;
        let b = dev.alloc_from(&bytes_of(&|i| (i % 777) as f32 * 0.25))?;
        let c = dev.alloc(n * 4)?;
        let launch = Launch::new([(n as u32).div_ceil(256), 1, 1], [256, 1, 1])
            .arg(Arg::Buffer(a))
            .arg(Arg::Buffer(b))
            .arg(Arg::Buffer(c))
            .arg(Arg::I32(n as i32))
            .engine(engine)
            .threads(cfg.threads);
        Ok(Workload {
            dev,
            kernel,
            launch,
            lane_ops: n as f64,
            bytes: n as f64 * 12.0,
            out: Some(c),
        })
    }

    /// The 1024³-style f16 MFMA GEMM (`gemm_f16` of the gfx942 `mfma_gemm` object) at
    /// `cfg.gemm_size`, on [`gemm_inputs`]; `lane_ops` counts floating-point operations.
    pub fn gemm_f16(cfg: &BenchConfig, engine: Engine) -> Result<Workload, Error> {
        Self::gemm_f16_on(cfg, engine, &GEMM_BUILDS[0])
    }

    /// The tiled f16 MFMA GEMM ([`TILED_GEMM_64`] of the gfx942 `gemm_tiled` object: 64×64
    /// tiles of 256 work-items through LDS) at `cfg.gemm_size` (a multiple of 64), on
    /// [`gemm_inputs`]; `lane_ops` counts floating-point operations.
    pub fn gemm_f16_tiled(cfg: &BenchConfig, engine: Engine) -> Result<Workload, Error> {
        Self::gemm_f16_on(cfg, engine, &GEMM_BUILDS[2])
    }

    /// The same with [`TILED_GEMM_128`] (128×128 tiles; `cfg.gemm_size` a multiple of 128).
    pub fn gemm_f16_tiled128(cfg: &BenchConfig, engine: Engine) -> Result<Workload, Error> {
        Self::gemm_f16_on(cfg, engine, &GEMM_BUILDS[3])
    }

    /// The f16 GEMM row of `wavejit bench` whose label is `label` (see [`gemm_labels`]), at
    /// `cfg.gemm_size`, on `engine`.
    pub fn gemm_f16_build(
        cfg: &BenchConfig,
        engine: Engine,
        label: &str,
    ) -> Result<Workload, Error> {
        let build = GEMM_BUILDS
            .iter()
            .find(|b| b.label == label)
            .ok_or_else(|| {
                Error::Usage(format!(
                    "no GEMM benchmark `{label}` (one of: {})",
                    gemm_labels().join(", ")
                ))
            })?;
        Self::gemm_f16_on(cfg, engine, build)
    }

    /// The 1024³-style f16 GEMM of one build (`GEMM_BUILDS`), on `engine`.
    fn gemm_f16_on(
        cfg: &BenchConfig,
        engine: Engine,
        build: &GemmBuild,
    ) -> Result<Workload, Error> {
        let n = cfg.gemm_size;
        let (a, b) = gemm_inputs(n);
        let dev = Device::new();
        let module = dev.load_module(build.object)?;
        let f16_bytes = |v: &[f32]| {
            v.iter()
                .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
                .collect::<Vec<u8>>()
        };
        let ba = dev.alloc_from(&f16_bytes(&a))?;
        let bb = dev.alloc_from(&f16_bytes(&b))?;
        let (kernel, launch, bc) = match build.kind {
            GemmKind::OneWave { wave } => {
                let bc = dev.alloc(n * n * 4)?;
                let tiles = (n as u32).div_ceil(16);
                let launch = Launch::new([tiles, tiles, 1], [wave, 1, 1])
                    .arg(Arg::Buffer(ba))
                    .arg(Arg::Buffer(bb))
                    .arg(Arg::Buffer(bc))
                    .arg(Arg::I32(n as i32))
                    .arg(Arg::I32(n as i32))
                    .arg(Arg::I32(n as i32));
                (module.kernel("gemm_f16")?, launch, bc)
            }
            GemmKind::Tiled(t) => {
                let bc = dev.alloc(n * n * 4)?;
                let launch = t.launch(n, n, n, ba, bb, bc)?;
                (module.kernel(t.kernel)?, launch, bc)
            }
            GemmKind::Triton { json } => {
                let t = TritonMatmul::parse(json)?;
                let bc = dev.alloc(n * n * 2)?;
                let mut launch = Launch::new(
                    [
                        (n as u32).div_ceil(t.block_m),
                        (n as u32).div_ceil(t.block_n),
                        1,
                    ],
                    [t.block, 1, 1],
                )
                .dynamic_lds(t.shared);
                for arg in [ba, bb, bc] {
                    launch = launch.arg(Arg::Buffer(arg));
                }
                // M, N, K, then the row strides of A, B and C (all n), then Triton's scratch
                // pointers (unused by this kernel).
                for _ in 0..6 {
                    launch = launch.arg(Arg::I32(n as i32));
                }
                for _ in 0..t.trailing {
                    launch = launch.arg(Arg::Buffer(dev.alloc(256)?));
                }
                (module.kernel(&t.kernel)?, launch, bc)
            }
        };
        let launch = launch.engine(engine).threads(cfg.threads);
        Ok(Workload {
            dev,
            kernel,
            launch,
            lane_ops: 2.0 * (n as f64).powi(3),
            bytes: 0.0,
            out: Some(bc),
        })
    }

    /// Launches the kernel until a launch translates nothing (at most 4 times), so timed
    /// launches run compiled code: a block is compiled after 64 runs, which a small grid
    /// may not reach in one launch.
    pub fn warm_up(&self) -> Result<(), Error> {
        for _ in 0..4 {
            let t = self.run()?.translation;
            if t.blocks_lifted == 0 && t.blocks_compiled == 0 {
                break;
            }
        }
        Ok(())
    }

    /// Launches the kernel once.
    pub fn run(&self) -> Result<crate::Report, Error> {
        self.dev.launch(&self.kernel, &self.launch)
    }

    /// The bytes of the result buffer (empty when the workload has none).
    pub fn output(&self) -> Result<Vec<u8>, Error> {
        match self.out {
            Some(b) => self.dev.read(b),
            None => Ok(Vec::new()),
        }
    }
}

/// The GEMM benchmark's n×n inputs A and B (row-major): small integers / 8, so every
/// product and sum of the GEMM is exact in f32 and any summation order gives the same bits.
pub fn gemm_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let val = |i: usize| ((i * 7 + 3) % 17) as f32 / 8.0 - 1.0;
    let a = (0..n * n).map(val).collect();
    let b = (0..n * n).map(|i| val(i * 13 + 5)).collect();
    (a, b)
}

/// `c = a·b` for n×n row-major f32 matrices with the tuned host GEMM (matrixmultiply; its
/// thread count comes from `MATMUL_NUM_THREADS`, default every physical core). Does nothing
/// when a slice is shorter than n².
pub fn sgemm_host(n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    let nn = n * n;
    if a.len() < nn || b.len() < nn || c.len() < nn {
        return;
    }
    // SAFETY: a, b and c hold at least n×n f32 (checked above), read and written as
    // row-major matrices with row stride n and column stride 1; c does not alias a or b
    // (a `&mut` slice).
    unsafe {
        matrixmultiply::sgemm(
            n,
            n,
            n,
            1.0,
            a.as_ptr(),
            n as isize,
            1,
            b.as_ptr(),
            n as isize,
            1,
            0.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

/// The host-native `alu_fma` over `out.len()` work-items on `threads` threads (0 = all).
pub fn alu_fma_host(out: &mut [f32], iters: u32, threads: usize) {
    let per = out.len().div_ceil(host_threads(threads)).max(1);
    std::thread::scope(|s| {
        for (i, part) in out.chunks_mut(per).enumerate() {
            s.spawn(move || alu_fma_native(part, i * per, iters));
        }
    });
}

/// Host-native `c = a + b` on `threads` threads (0 = all).
pub fn vadd_host(a: &[f32], b: &[f32], c: &mut [f32], threads: usize) {
    let per = c.len().div_ceil(host_threads(threads)).max(1);
    std::thread::scope(|s| {
        for ((cc, aa), bb) in c.chunks_mut(per).zip(a.chunks(per)).zip(b.chunks(per)) {
            s.spawn(move || {
                for ((o, x), y) in cc.iter_mut().zip(aa).zip(bb) {
                    *o = x + y;
                }
            });
        }
    });
}

/// Host memcpy of `src` into `dst` on `threads` threads (0 = all).
pub fn memcpy_host(src: &[u8], dst: &mut [u8], threads: usize) {
    let per = dst.len().div_ceil(host_threads(threads)).max(1);
    std::thread::scope(|s| {
        for (d, sr) in dst.chunks_mut(per).zip(src.chunks(per)) {
            s.spawn(move || d.copy_from_slice(sr));
        }
    });
}

/// A build of the ALU and vector-add corpus kernels to benchmark: CDNA3 in wave64 next to
/// RDNA3 in wave32, side by side.
struct BenchTarget {
    /// Row label.
    label: &'static str,
    /// `alu_fma` object.
    alu_fma: &'static [u8],
    /// `vadd` object.
    vadd: &'static [u8],
}

const BENCH_TARGETS: &[BenchTarget] = &[
    BenchTarget {
        label: "gfx942 w64",
        alu_fma: include_bytes!("../tests/kernels/gfx942/alu_fma.hsaco"),
        vadd: include_bytes!("../tests/kernels/gfx942/vadd.hsaco"),
    },
    BenchTarget {
        label: "gfx1100 w32",
        alu_fma: include_bytes!("../tests/kernels/gfx1100/alu_fma.hsaco"),
        vadd: include_bytes!("../tests/kernels/gfx1100/vadd.hsaco"),
    },
];

/// Runs every built-in benchmark and returns the table rows.
pub fn run_all(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let mut rows = Vec::new();
    let want = |name: &str| name.contains(cfg.only.as_str());
    if want("alu_fma") {
        for t in BENCH_TARGETS {
            rows.extend(bench_alu(cfg, t)?);
        }
    }
    if want("vadd") {
        for t in BENCH_TARGETS {
            rows.extend(bench_vadd(cfg, t)?);
        }
    }
    if want("gemm_f16") {
        rows.extend(bench_mfma_gemm(cfg)?);
    }
    Ok(rows)
}

/// Formats rows as a fixed-width table.
pub fn format_table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<10} {:<38} {:>10} {:>10} {:>14} {:>14} {:>10} {:>9}\n",
        "workload", "engine", "time ms", "cpu ms", "wave-inst/s", "lane-ops/s", "GB/s", "vs native"
    );
    let g = |v: Option<f64>, scale: f64| {
        v.map(|x| format!("{:.3}", x / scale))
            .unwrap_or_else(|| "-".into())
    };
    for r in rows {
        s += &format!(
            "{:<10} {:<38} {:>10.2} {:>10} {:>13}M {:>13}G {:>10} {:>9}\n",
            r.name,
            r.what,
            r.time.as_secs_f64() * 1e3,
            r.cpu
                .map(|c| format!("{:.0}", c.as_secs_f64() * 1e3))
                .unwrap_or_else(|| "-".into()),
            g(r.wave_insts_per_s, 1e6),
            g(r.lane_ops_per_s, 1e9),
            g(r.bytes_per_s, 1e9),
            r.ratio_to_native
                .map(|x| format!("{x:.4}"))
                .unwrap_or_else(|| "-".into()),
        );
    }
    s
}

// ---------------------------------------------------------------------------------------
// ALU-bound: tests/kernels/src/alu_fma.hip

/// The host version of `alu_fma` for work-items `first..first + out.len()`.
fn alu_fma_native(out: &mut [f32], first: usize, iters: u32) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: the required CPU features were detected at run time just above.
            unsafe { alu_fma_native_fma(out, first, iters) };
            return;
        }
    }
    alu_fma_native_portable(out, first, iters)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma,avx2")]
fn alu_fma_native_fma(out: &mut [f32], first: usize, iters: u32) {
    alu_fma_native_portable(out, first, iters)
}

#[inline(always)]
fn alu_fma_native_portable(out: &mut [f32], first: usize, iters: u32) {
    // Eight work-items at a time so the compiler vectorises across them, as the GPU does.
    const W: usize = 8;
    // m = 1 - 2^-10 and c_k = k * 2^-10, all exact in f32 (tests/kernels/src/alu_fma.hip).
    const STEP: f32 = 1.0 / 1024.0;
    let m = 1.0 - STEP;
    let c = [STEP, 2.0 * STEP, 3.0 * STEP, 4.0 * STEP];
    for (ci, chunk) in out.chunks_mut(W).enumerate() {
        let mut a = [[0f32; W]; 4];
        for l in 0..W {
            let x = (first + ci * W + l) as u32 as f32 * STEP;
            for (k, chain) in a.iter_mut().enumerate() {
                chain[l] = x + 0.25 * k as f32;
            }
        }
        for _ in 0..iters {
            for (chain, ck) in a.iter_mut().zip(c) {
                for v in chain.iter_mut() {
                    *v = v.mul_add(m, ck);
                }
            }
        }
        for (l, o) in chunk.iter_mut().enumerate() {
            *o = (a[0][l] + a[1][l]) + (a[2][l] + a[3][l]);
        }
    }
}

fn bench_alu(cfg: &BenchConfig, target: &BenchTarget) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.alu_items;
    let block = 256u32;
    let lane_ops = (n as f64) * cfg.alu_iters as f64 * 4.0;
    let threads = host_threads(cfg.threads);

    let mut native = vec![0f32; n];
    let (t_native, (), cpu_native) = best_of(cfg.samples, || {
        let per = n.div_ceil(threads);
        std::thread::scope(|s| {
            for (i, part) in native.chunks_mut(per).enumerate() {
                s.spawn(move || alu_fma_native(part, i * per, cfg.alu_iters));
            }
        });
        Ok(())
    })?;
    let native_rate = lane_ops / t_native.as_secs_f64();

    let dev = Device::new();
    let module = dev.load_module(target.alu_fma)?;
    let kernel = module.kernel("alu_fma")?;
    let out = dev.alloc(n * 4)?;
    let launch = Launch::new([(n as u32).div_ceil(block), 1, 1], [block, 1, 1])
        .arg(Arg::Buffer(out))
        .arg(Arg::I32(cfg.alu_iters as i32))
        .engine(Engine::Jit)
        .threads(cfg.threads);
    dev.launch(&kernel, &launch)?; // warm-up: translation happens here
    let (t, report, cpu) = best_of(cfg.samples, || dev.launch(&kernel, &launch))?;
    let got = dev.read(out)?;
    let mismatch = got
        .chunks_exact(4)
        .zip(&native)
        .position(|(g, w)| g != w.to_le_bytes());
    if let Some(i) = mismatch {
        return Err(Error::WrongResult(format!(
            "alu_fma benchmark ({}): wavejit result differs from the host at item {i}",
            target.label
        )));
    }
    let rate = lane_ops / t.as_secs_f64();
    Ok(vec![
        BenchRow {
            name: "alu_fma".into(),
            what: "native host (Rust)".into(),
            time: t_native,
            wave_insts_per_s: None,
            lane_ops_per_s: Some(native_rate),
            bytes_per_s: None,
            ratio_to_native: Some(1.0),
            cpu: cpu_native,
        },
        BenchRow {
            name: "alu_fma".into(),
            what: format!("wavejit jit {}", target.label),
            time: t,
            wave_insts_per_s: Some(report.counters.wave_insts() as f64 / t.as_secs_f64()),
            lane_ops_per_s: Some(rate),
            bytes_per_s: None,
            ratio_to_native: Some(rate / native_rate),
            cpu,
        },
    ])
}

// ---------------------------------------------------------------------------------------
// Memory-bound: vadd over cfg.vadd_elems floats (reads 8 bytes, writes 4 per element).

fn bench_vadd(cfg: &BenchConfig, target: &BenchTarget) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.vadd_elems;
    let bytes = (n * 12) as f64;
    let threads = host_threads(cfg.threads);
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.25).collect();

    let mut c = vec![0f32; n];
    let per = n.div_ceil(threads);
    let (t_native, (), cpu_native) = best_of(cfg.samples, || {
        std::thread::scope(|s| {
            for ((cc, aa), bb) in c.chunks_mut(per).zip(a.chunks(per)).zip(b.chunks(per)) {
                s.spawn(move || {
                    for ((o, x), y) in cc.iter_mut().zip(aa).zip(bb) {
                        *o = x + y;
                    }
                });
            }
        });
        Ok(())
    })?;

    // memcpy of the same traffic: copy n*6 bytes (n*6 read + n*6 written = n*12 bytes moved).
    let src = vec![1u8; n * 6];
    let mut dst = vec![0u8; n * 6];
    let per_b = (n * 6).div_ceil(threads);
    let (t_memcpy, (), cpu_memcpy) = best_of(cfg.samples, || {
        std::thread::scope(|s| {
            for (d, sr) in dst.chunks_mut(per_b).zip(src.chunks(per_b)) {
                s.spawn(move || d.copy_from_slice(sr));
            }
        });
        Ok(())
    })?;
    drop((src, dst));

    let dev = Device::new();
    let module = dev.load_module(target.vadd)?;
    let kernel = module.kernel("vadd")?;
    let as_bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let ba = dev.alloc_from(&as_bytes(&a))?;
    let bb = dev.alloc_from(&as_bytes(&b))?;
    let bc = dev.alloc(n * 4)?;
    let block = 256u32;
    let launch = Launch::new([(n as u32).div_ceil(block), 1, 1], [block, 1, 1])
        .arg(Arg::Buffer(ba))
        .arg(Arg::Buffer(bb))
        .arg(Arg::Buffer(bc))
        .arg(Arg::I32(n as i32))
        .engine(Engine::Jit)
        .threads(cfg.threads);
    dev.launch(&kernel, &launch)?;
    let (t, report, cpu) = best_of(cfg.samples, || dev.launch(&kernel, &launch))?;
    let got = dev.read(bc)?;
    if got != as_bytes(&c) {
        return Err(Error::WrongResult(format!(
            "vadd benchmark ({}): wavejit result differs from the host",
            target.label
        )));
    }
    let rate = bytes / t.as_secs_f64();
    let native_rate = bytes / t_native.as_secs_f64();
    let row = |what: &str, time: Duration, wi: Option<f64>, r: f64, cpu| BenchRow {
        name: "vadd".into(),
        what: what.into(),
        time,
        wave_insts_per_s: wi,
        lane_ops_per_s: Some(n as f64 / time.as_secs_f64()),
        bytes_per_s: Some(r),
        ratio_to_native: Some(r / native_rate),
        cpu,
    };
    Ok(vec![
        row(
            "native host (Rust)",
            t_native,
            None,
            native_rate,
            cpu_native,
        ),
        row(
            "host memcpy",
            t_memcpy,
            None,
            bytes / t_memcpy.as_secs_f64(),
            cpu_memcpy,
        ),
        row(
            &format!("wavejit jit {}", target.label),
            t,
            Some(report.counters.wave_insts() as f64 / t.as_secs_f64()),
            rate,
            cpu,
        ),
    ])
}

// ---------------------------------------------------------------------------------------
// Matrix cores: f16 GEMMs (f32 accumulation) against a tuned host f32 GEMM (matrixmultiply,
// all threads): the one-wave-per-16×16-tile kernels (tests/kernels/src/gfx9/mfma_gemm.hip,
// src/rdna/wmma_gemm.hip), the tiled ones written like a real GEMM (src/gfx9/gemm_tiled.hip,
// src/rdna/gemm_tiled.hip) and Triton's matmul_f16 (triton/kernels.py).

/// The gfx942 build of the MFMA GEMM kernels.
const MFMA_GEMM_GFX942: &[u8] = include_bytes!("../tests/kernels/matrix/gfx942/mfma_gemm.hsaco");

/// The gfx942 build of the tiled GEMM kernels.
const TILED_GEMM_GFX942: &[u8] = include_bytes!("../tests/kernels/matrix/gfx942/gemm_tiled.hsaco");

/// A tiled f16 GEMM kernel of the `gemm_tiled` objects (`tests/kernels/src/*/gemm_tiled.hip`):
/// `kernel(A, B, C, M, N, K)` with row-major A[M][K] and B[K][N] in f16, C[M][N] in f32, one
/// workgroup of [`TiledGemm::BLOCK`] work-items per tile of C, A and B staged through LDS.
#[derive(Clone, Copy, Debug)]
pub struct TiledGemm {
    /// The kernel's name.
    pub kernel: &'static str,
    /// Rows and columns of the C tile one workgroup computes, and the K step: M, N and K
    /// must be multiples of them (the kernel has no edge handling).
    pub tile: [usize; 3],
}

/// 64×64 tiles, K step 32: every build (gfx942, gfx950, the RDNA builds).
pub const TILED_GEMM_64: TiledGemm = TiledGemm {
    kernel: "gemm_f16_tiled",
    tile: [64, 64, 32],
};

/// 128×128 tiles, K step 32: the CDNA builds (gfx942, gfx950) only.
pub const TILED_GEMM_128: TiledGemm = TiledGemm {
    kernel: "gemm_f16_tiled128",
    tile: [128, 128, 32],
};

/// 256×128 tiles (each wave 128×64 in 4×2 accumulators), K step 32: the CDNA builds only.
pub const TILED_GEMM_256: TiledGemm = TiledGemm {
    kernel: "gemm_f16_tiled256",
    tile: [256, 128, 32],
};

impl TiledGemm {
    /// Work-items per workgroup.
    pub const BLOCK: u32 = 256;

    /// The launch for M×N×K on buffers `a`, `b`, `c`: grid (N / tile columns, M / tile rows).
    /// Rejects M, N or K off the tile, zero or over-`i32` sizes, and buffers too small for
    /// the matrices.
    pub fn launch(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: crate::Buffer,
        b: crate::Buffer,
        c: crate::Buffer,
    ) -> Result<Launch, Error> {
        let [tm, tn, tk] = self.tile;
        let fits = |x: usize| x > 0 && i32::try_from(x).is_ok();
        let on_tile = m.is_multiple_of(tm) && n.is_multiple_of(tn) && k.is_multiple_of(tk);
        if !(fits(m) && fits(n) && fits(k) && on_tile) {
            return Err(Error::Usage(format!(
                "{} {m}x{n}x{k}: M must be a positive multiple of {tm}, N of {tn}, K of {tk} \
                 (the kernel has no edge handling)",
                self.kernel
            )));
        }
        let need = |what: &str, buf: crate::Buffer, elems: usize, size: usize| match elems
            .checked_mul(size)
        {
            Some(bytes) if buf.len >= bytes => Ok(()),
            _ => Err(Error::Usage(format!(
                "{} {m}x{n}x{k}: buffer {what} has {} bytes, needs {elems} elements of \
                     {size} bytes",
                self.kernel, buf.len
            ))),
        };
        need("A", a, m * k, 2)?;
        need("B", b, k * n, 2)?;
        need("C", c, m * n, 4)?;
        let grid = |x: usize, t: usize| u32::try_from(x / t).unwrap_or(u32::MAX);
        Ok(
            Launch::new([grid(n, tn), grid(m, tm), 1], [Self::BLOCK, 1, 1])
                .arg(Arg::Buffer(a))
                .arg(Arg::Buffer(b))
                .arg(Arg::Buffer(c))
                .arg(Arg::I32(m as i32))
                .arg(Arg::I32(n as i32))
                .arg(Arg::I32(k as i32)),
        )
    }
}

/// What a Triton `matmul_f16` launch file says (`tests/kernels/triton/<target>/*.json`).
struct TritonMatmul {
    kernel: String,
    block: u32,
    shared: u32,
    trailing: u64,
    block_m: u32,
    block_n: u32,
}

impl TritonMatmul {
    fn parse(json: &str) -> Result<TritonMatmul, Error> {
        let bad = |what: &str| Error::Usage(format!("Triton matmul_f16 launch file: no {what}"));
        let v: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| Error::Usage(format!("Triton matmul_f16 launch file: {e}")))?;
        let num = |x: &serde_json::Value, what: &str| {
            x.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| bad(what))
        };
        Ok(TritonMatmul {
            kernel: v["kernel"].as_str().ok_or_else(|| bad("kernel"))?.into(),
            block: num(&v["block"][0], "block")?,
            shared: num(&v["shared"], "shared")?,
            trailing: v["trailing_pointer_args"]
                .as_u64()
                .ok_or_else(|| bad("trailing_pointer_args"))?,
            block_m: num(&v["constexprs"]["BLOCK_M"], "BLOCK_M")?,
            block_n: num(&v["constexprs"]["BLOCK_N"], "BLOCK_N")?,
        })
    }
}

/// Which f16 GEMM kernel a build holds, and how it is launched.
#[derive(Clone, Copy)]
enum GemmKind {
    /// `gemm_f16`: one wave of `wave` work-items per 16×16 tile of C, any size.
    OneWave { wave: u32 },
    /// A tiled kernel ([`TiledGemm`]).
    Tiled(TiledGemm),
    /// Triton `matmul_f16` (f16 C) with its launch file.
    Triton { json: &'static str },
}

/// A build of an f16 GEMM kernel (f32 accumulation) that `wavejit bench` measures.
pub struct GemmBuild {
    /// Row label.
    label: &'static str,
    /// The code object.
    object: &'static [u8],
    /// The kernel and its launch.
    kind: GemmKind,
}

/// The GEMM builds `wavejit bench` measures: CDNA3 MFMA and RDNA3 wave32 WMMA, one wave per
/// 16×16 tile and tiled through LDS (64×64 and, CDNA3, 128×128 and 256×128 tiles), and Triton's
/// 64×64×32-block matmul on CDNA3. Indices 0, 2 and 3 are [`Workload::gemm_f16`],
/// [`Workload::gemm_f16_tiled`] and [`Workload::gemm_f16_tiled128`].
const GEMM_BUILDS: &[GemmBuild] = &[
    GemmBuild {
        label: "MFMA gfx942",
        object: MFMA_GEMM_GFX942,
        kind: GemmKind::OneWave { wave: 64 },
    },
    GemmBuild {
        label: "WMMA gfx1100 w32",
        object: include_bytes!("../tests/kernels/matrix/gfx1100/wmma_gemm.hsaco"),
        kind: GemmKind::OneWave { wave: 32 },
    },
    GemmBuild {
        label: "tiled 64 MFMA gfx942",
        object: TILED_GEMM_GFX942,
        kind: GemmKind::Tiled(TILED_GEMM_64),
    },
    GemmBuild {
        label: "tiled 128 MFMA gfx942",
        object: TILED_GEMM_GFX942,
        kind: GemmKind::Tiled(TILED_GEMM_128),
    },
    GemmBuild {
        label: "tiled 256x128 MFMA gfx942",
        object: TILED_GEMM_GFX942,
        kind: GemmKind::Tiled(TILED_GEMM_256),
    },
    GemmBuild {
        label: "tiled 64 WMMA gfx1100 w32",
        object: include_bytes!("../tests/kernels/matrix/gfx1100/gemm_tiled.hsaco"),
        kind: GemmKind::Tiled(TILED_GEMM_64),
    },
    GemmBuild {
        label: "Triton gfx942",
        object: include_bytes!("../tests/kernels/triton/gfx942/matmul_f16.hsaco"),
        kind: GemmKind::Triton {
            json: include_str!("../tests/kernels/triton/gfx942/matmul_f16.json"),
        },
    },
];

/// The labels of the f16 GEMM builds `wavejit bench` measures (its `gemm_f16` rows).
pub fn gemm_labels() -> Vec<&'static str> {
    GEMM_BUILDS.iter().map(|b| b.label).collect()
}

fn bench_mfma_gemm(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.gemm_size;
    let flops = 2.0 * (n as f64).powi(3);
    let (a, b) = gemm_inputs(n);
    let mut c = vec![0f32; n * n];
    let (t_native, (), cpu_native) = best_of(cfg.samples, || {
        sgemm_host(n, &a, &b, &mut c);
        Ok(())
    })?;
    let native_rate = flops / t_native.as_secs_f64();

    let mut rows = vec![BenchRow {
        name: "gemm_f16".into(),
        what: "host sgemm (f32)".into(),
        time: t_native,
        wave_insts_per_s: None,
        lane_ops_per_s: Some(native_rate),
        bytes_per_s: None,
        ratio_to_native: Some(1.0),
        cpu: cpu_native,
    }];
    // The inputs make every sum exact in f32, so C must equal the host's bit for bit (f16 C:
    // the host's f32 result rounded to nearest even, as Triton's `acc.to(float16)` rounds).
    let want: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
    let want_f16: Vec<u8> = c
        .iter()
        .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
        .collect();
    for build in GEMM_BUILDS {
        let w = Workload::gemm_f16_on(cfg, Engine::Jit, build)?;
        w.warm_up()?;
        let (t, report, cpu) = best_of(cfg.samples, || w.run())?;
        let expected = match build.kind {
            GemmKind::Triton { .. } => &want_f16,
            _ => &want,
        };
        if w.output()? != *expected {
            return Err(Error::WrongResult(format!(
                "gemm_f16 benchmark ({}): wavejit result differs from the host GEMM",
                build.label
            )));
        }
        let rate = flops / t.as_secs_f64();
        rows.push(BenchRow {
            name: "gemm_f16".into(),
            what: format!("wavejit jit {}", build.label),
            time: t,
            wave_insts_per_s: Some(report.counters.wave_insts() as f64 / t.as_secs_f64()),
            lane_ops_per_s: Some(rate),
            bytes_per_s: None,
            ratio_to_native: Some(rate / native_rate),
            cpu,
        });
    }
    Ok(rows)
}

/// `wavejit bench [--quick] [--threads N] [--samples N] [--gemm-size N] [--only NAME]`: runs
/// the built-in benchmarks (those whose name contains NAME) and returns the result table.
pub fn main(args: &[String]) -> Result<String, Error> {
    let mut cfg = BenchConfig::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = |what: &str| -> Result<usize, Error> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| Error::Usage(format!("`wavejit bench {what}` needs a number")))
        };
        match a.as_str() {
            "--quick" => {
                // The small sizes; --threads, --samples and --only keep their values.
                let quick = BenchConfig::quick();
                cfg.vadd_elems = quick.vadd_elems;
                cfg.alu_items = quick.alu_items;
                cfg.alu_iters = quick.alu_iters;
                cfg.gemm_size = quick.gemm_size;
            }
            "--threads" => cfg.threads = num("--threads")?,
            "--samples" => cfg.samples = num("--samples")?,
            "--gemm-size" => {
                let n = num("--gemm-size")?;
                // 256: the largest tiled GEMM's tile (`TILED_GEMM_256`).
                if n == 0 || n % 256 != 0 {
                    return Err(Error::Usage(
                        "`wavejit bench --gemm-size` needs a positive multiple of 256".into(),
                    ));
                }
                cfg.gemm_size = n;
            }
            "--only" => {
                cfg.only = it.next().cloned().ok_or_else(|| {
                    Error::Usage("`wavejit bench --only` needs a workload name".into())
                })?
            }
            other => {
                return Err(Error::Usage(format!(
                    "`wavejit bench`: unknown option `{other}` (expected --quick, --threads N, \
                     --samples N, --gemm-size N, --only NAME)"
                )))
            }
        }
    }
    if cfg.threads > 0 && std::env::var_os("MATMUL_NUM_THREADS").is_none() {
        // matrixmultiply reads its thread count once, on first use, from this variable
        // (default: every physical core): the native GEMM gets the same threads as wavejit.
        // Set before any benchmark starts a thread.
        std::env::set_var("MATMUL_NUM_THREADS", cfg.threads.to_string());
    }
    let rows = run_all(&cfg)?;
    Ok(format_table(&rows))
}
