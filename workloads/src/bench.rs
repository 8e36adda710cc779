//! Built-in benchmarks (`wavejit bench`): the same workloads the criterion benches use.
//!
//! Each benchmark runs a corpus kernel through wavejit on all host threads and, in the same
//! run, the same computation compiled natively for the host (Rust, multi-threaded, FMA/AVX
//! where the CPU has them) and, for memory-bound work, a host memcpy of the same bytes. The
//! numbers are ratios against those, never absolute claims; tests never assert on them.

use crate::corpus;
use std::time::{Duration, Instant};
use wavejit::{Arg, Buffer, Device, Engine, Error, Kernel, Launch, Report};

mod triton_gemm;
mod triton_rows;

mod modes;

mod timing;
pub use timing::Timing;
use timing::{sample, Sampled};

/// One measured row of the benchmark table (one line of `wavejit bench`, one object of
/// `wavejit bench --json`).
#[derive(Clone, Debug, Default)]
pub struct BenchRow {
    /// Workload name.
    pub name: String,
    /// What was measured: the engine ("wavejit jit") or the host reference ("native host
    /// (Rust)", "host memcpy", "host sgemm (f32)").
    pub what: String,
    /// GPU the kernel was built for (wavejit rows only).
    pub target: Option<String>,
    /// Wave size of the kernel (wavejit rows only).
    pub wave_size: Option<u32>,
    /// Float mode of the kernel where the workload has variants: "ieee" (denormals
    /// preserved) or "flush" (f32 denormals flushed).
    pub mode: Option<String>,
    /// Host threads the row ran on.
    pub threads: usize,
    /// Median wall time over the samples (`spread.median`).
    pub time: Duration,
    /// The samples' median, fastest and slowest wall time.
    pub spread: Timing,
    /// Median wall time of the row's native reference in the same run (the same work done
    /// by host-native code on the same threads).
    pub native_time: Option<Duration>,
    /// Memory-bound rows: the fastest of [`MEMCPY_SAMPLES`] (or more) host memcpys moving the
    /// same bytes: the host's bandwidth limit as this run saw it. The fastest, not the
    /// median, because on a shared host a memcpy's time swings by up to 2× from one process
    /// to the next (a busy sibling hyperthread); the limit is what the host can reach.
    pub memcpy_time: Option<Duration>,
    /// Wall time of the first launch (wavejit rows; includes translation and compilation).
    pub first_launch: Option<Duration>,
    /// Time spent translating and compiling over the warm-up launches (wavejit rows).
    pub translate: Option<Duration>,
    /// Wave instructions executed per second (wavejit rows only).
    pub wave_insts_per_s: Option<f64>,
    /// Lane operations (FMAs, elements; for GEMMs floating-point operations) per second.
    pub lane_ops_per_s: Option<f64>,
    /// Bytes moved per second (memory-bound rows).
    pub bytes_per_s: Option<f64>,
    /// This row's throughput divided by the native row's (`native_time / time`).
    pub ratio_to_native: Option<f64>,
    /// Mean process CPU time per run (all threads; on a shared machine, wall time includes
    /// waiting for a core, CPU time does not).
    pub cpu: Option<Duration>,
    /// The same row's time on one thread divided by its time on `threads` threads (set when
    /// the run measured both).
    pub scaling: Option<f64>,
    /// The same work on one thread, sampled alternately with this row's samples (set when
    /// the run measured scaling).
    pub one_thread: Option<Timing>,
    /// The native reference's median on one thread, sampled the same way.
    pub native_one_thread: Option<Duration>,
    /// The memcpy reference's fastest sample on one thread, sampled the same way.
    pub memcpy_one_thread: Option<Duration>,
    /// Launches before the timed ones (wavejit rows): until a launch translates nothing and
    /// no block awaits its optimised code, within [`WARM_UP_MAX_LAUNCHES`].
    pub warm_up_launches: Option<u64>,
    /// Blocks still waiting for their optimised code when the timing started (wavejit
    /// rows; 0 unless the warm-up hit its limit).
    pub awaiting_optimised: Option<u64>,
}

impl BenchRow {
    /// Throughput relative to a host memcpy of the same bytes (`memcpy_time / time`).
    pub fn ratio_to_memcpy(&self) -> Option<f64> {
        self.memcpy_time
            .map(|m| m.as_secs_f64() / self.time.as_secs_f64())
    }

    /// The engine column of the table: what, target, wave size and mode.
    pub fn label(&self) -> String {
        let mut s = self.what.clone();
        if let Some(t) = &self.target {
            s += &format!(" {t}");
        }
        if let Some(w) = self.wave_size {
            s += &format!(" w{w}");
        }
        if let Some(m) = &self.mode {
            s += &format!(" {m}");
        }
        s
    }

    /// The row as a JSON object (times in milliseconds, rates per second).
    pub fn to_json(&self) -> serde_json::Value {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        serde_json::json!({
            "workload": self.name,
            "engine": self.what,
            "target": self.target,
            "wave_size": self.wave_size,
            "mode": self.mode,
            "threads": self.threads,
            "time_ms": ms(self.time),
            "time_min_ms": ms(self.spread.min),
            "time_max_ms": ms(self.spread.max),
            "samples": self.spread.samples,
            "cpu_ms": self.cpu.map(ms),
            "native_time_ms": self.native_time.map(ms),
            "memcpy_time_ms": self.memcpy_time.map(ms),
            "first_launch_ms": self.first_launch.map(ms),
            "translate_ms": self.translate.map(ms),
            "wave_insts_per_s": self.wave_insts_per_s,
            "lane_ops_per_s": self.lane_ops_per_s,
            "bytes_per_s": self.bytes_per_s,
            "ratio_to_native": self.ratio_to_native,
            "ratio_to_memcpy": self.ratio_to_memcpy(),
            "scaling_1_to_n_threads": self.scaling,
            "time_1_thread_ms": self.one_thread.map(|t| ms(t.median)),
            "time_1_thread_min_ms": self.one_thread.map(|t| ms(t.min)),
            "time_1_thread_max_ms": self.one_thread.map(|t| ms(t.max)),
            "warm_up_launches": self.warm_up_launches,
            "blocks_awaiting_optimised": self.awaiting_optimised,
        })
    }

    /// The row of the same work on one thread, from the samples taken alternately with this
    /// row's ([`BenchRow::one_thread`]); `None` when there are none.
    pub fn one_thread_row(&self) -> Option<BenchRow> {
        let one = self.one_thread?;
        let s = one.median.as_secs_f64();
        let per_s = |rate: Option<f64>| rate.map(|r| r * self.time.as_secs_f64() / s);
        let native_time = self.native_one_thread.or(self.native_time);
        let memcpy_time = self.memcpy_one_thread.or(self.memcpy_time);
        Some(BenchRow {
            threads: 1,
            time: one.median,
            spread: one,
            native_time,
            memcpy_time,
            wave_insts_per_s: per_s(self.wave_insts_per_s),
            lane_ops_per_s: per_s(self.lane_ops_per_s),
            bytes_per_s: per_s(self.bytes_per_s),
            ratio_to_native: native_time.map(|n| n.as_secs_f64() / s),
            cpu: None,
            scaling: None,
            one_thread: None,
            native_one_thread: None,
            memcpy_one_thread: None,
            ..self.clone()
        })
    }
}

/// The rows as one JSON document: `{"rows": [...]}`, each row as [`BenchRow::to_json`].
pub fn rows_json(rows: &[BenchRow]) -> String {
    let v = serde_json::json!({
        "rows": rows.iter().map(BenchRow::to_json).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&v).unwrap_or_else(|_| "{}".into())
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
    /// Samples per measurement (the median and the spread are reported).
    pub samples: usize,
    /// Also time every row on one thread, alternately with its samples
    /// ([`BenchRow::scaling`]).
    pub scaling: bool,
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
            scaling: false,
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
            samples: 5,
            scaling: false,
            threads: 0,
            gemm_size: 1024,
            only: String::new(),
        }
    }
}

/// Times the host computation `run(threads)` with `cfg`'s samples on `cfg.threads` and, when
/// `cfg.scaling`, alternately on one thread.
fn time_host<T>(
    cfg: &BenchConfig,
    run: impl FnMut(usize) -> Result<T, Error>,
) -> Result<Sampled<T>, Error> {
    sample(cfg.samples, cfg.threads, scales(cfg), run)
}

/// Whether `cfg` asks for one-thread samples next to multi-thread ones.
fn scales(cfg: &BenchConfig) -> bool {
    cfg.scaling && host_threads(cfg.threads) > 1
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
    kernel: Kernel,
    launch: Launch,
    /// Lane operations one launch performs (FMAs or elements).
    pub lane_ops: f64,
    /// Bytes one launch moves to and from memory (0 for ALU-bound work).
    pub bytes: f64,
    /// The buffer holding the result (when the workload checks one).
    out: Option<Buffer>,
}

impl Workload {
    /// The ALU-bound `alu_fma` kernel at `cfg`'s size, on `engine`.
    pub fn alu_fma(cfg: &BenchConfig, engine: Engine) -> Result<Workload, Error> {
        let n = cfg.alu_items;
        let dev = Device::new();
        let module = dev.load_module(corpus::object("alu_fma"))?;
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
        let module = dev.load_module(corpus::object("vadd"))?;
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
        let build = all_gemm_builds()
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

    /// Launches the kernel until its translation is steady (`warm_up`), so timed launches
    /// run each block's last code.
    pub fn warm_up(&self) -> Result<(), Error> {
        warm_up(self.run()?, || self.run()).map(|_| ())
    }

    /// Launches the kernel once.
    pub fn run(&self) -> Result<Report, Error> {
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

/// A build of the ALU and memory-bound kernels to benchmark: CDNA3 in wave64 next to RDNA3 in
/// wave32 and wave64.
struct BenchTarget {
    /// GPU name.
    gpu: &'static str,
    /// Wave size of the build.
    wave: u32,
    /// `alu_fma` object (f32 denormals preserved, IEEE mode).
    alu_fma: &'static [u8],
    /// The same source built with f32 denormals flushed (`benches/kernels/build.sh`).
    alu_flush: &'static [u8],
    /// `vadd` object.
    vadd: &'static [u8],
    /// `triad` and `reduce_sum` (`benches/kernels/src/bench.hip`).
    bench: &'static [u8],
}

macro_rules! bench_target {
    ($gpu:literal, $dir:literal, $wave:literal) => {
        BenchTarget {
            gpu: $gpu,
            wave: $wave,
            alu_fma: include_bytes!(concat!("../../tests/kernels/", $dir, "/alu_fma.hsaco")),
            alu_flush: include_bytes!(concat!("../../benches/kernels/", $dir, "/alu_flush.hsaco")),
            vadd: include_bytes!(concat!("../../tests/kernels/", $dir, "/vadd.hsaco")),
            bench: include_bytes!(concat!("../../benches/kernels/", $dir, "/bench.hsaco")),
        }
    };
}

const BENCH_TARGETS: &[BenchTarget] = &[
    bench_target!("gfx942", "gfx942", 64),
    bench_target!("gfx1100", "gfx1100", 32),
    bench_target!("gfx1100", "gfx1100w64", 64),
];

/// The workloads `wavejit bench` knows (`--only` selects those whose name contains its text).
pub const WORKLOADS: &[&str] = &[
    "alu_fma",
    "alu_fma_rtz",
    "alu_fma64",
    "vadd",
    "triad",
    "reduce",
    "softmax",
    "layernorm",
    "gemm_f16",
    "cold_start",
];

/// Runs every built-in benchmark selected by `cfg.only` on `cfg.threads` and returns the
/// table rows.
pub fn run_all(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let mut rows = Vec::new();
    let want = |name: &str| name.contains(cfg.only.as_str());
    if want("alu_fma") {
        rows.extend(bench_alu(cfg)?);
    }
    if want("alu_fma_rtz") || want("alu_fma64") {
        rows.extend(modes::bench_alu_modes(cfg)?);
    }
    if want("vadd") {
        rows.extend(bench_vadd(cfg)?);
    }
    if want("triad") {
        rows.extend(bench_triad(cfg)?);
    }
    if want("reduce") {
        rows.extend(bench_reduce(cfg)?);
    }
    if want("softmax") {
        rows.extend(triton_rows::bench_softmax(cfg)?);
    }
    if want("layernorm") {
        rows.extend(triton_rows::bench_layernorm(cfg)?);
    }
    if want("gemm_f16") {
        rows.extend(bench_mfma_gemm(cfg)?);
    }
    if want("cold_start") {
        rows.extend(modes::bench_cold_start(cfg)?);
    }
    Ok(rows)
}

/// [`run_all`] on `cfg.threads`, every row also sampled on one thread when that is more
/// than one thread: the rows, each multi-thread row with its [`BenchRow::scaling`], followed
/// by the one-thread rows ([`BenchRow::one_thread_row`]).
///
/// The one-thread samples alternate with the multi-thread ones on the same warm device, so
/// both measure the same steady state under the same load.
pub fn run_with_scaling(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let mut rows = run_all(&BenchConfig {
        scaling: true,
        ..cfg.clone()
    })?;
    for r in &mut rows {
        r.scaling = r
            .one_thread
            .map(|o| o.median.as_secs_f64() / r.time.as_secs_f64());
    }
    let one: Vec<BenchRow> = rows.iter().filter_map(BenchRow::one_thread_row).collect();
    rows.extend(one);
    Ok(rows)
}

/// Formats rows as a fixed-width table.
pub fn format_table(rows: &[BenchRow]) -> String {
    let mut s = format!(
        "{:<9} {:<38} {:>3} {:>9} {:>9} {:>9} {:>9} {:>13} {:>13} {:>8} {:>9} {:>9} {:>7} {:>8}\n",
        "workload",
        "engine",
        "thr",
        "median ms",
        "min ms",
        "max ms",
        "cpu ms",
        "wave-inst/s",
        "lane-ops/s",
        "GB/s",
        "vs native",
        "vs memcpy",
        "scaling",
        "1st ms"
    );
    let g = |v: Option<f64>, scale: f64, digits: usize| {
        v.map(|x| format!("{:.*}", digits, x / scale))
            .unwrap_or_else(|| "-".into())
    };
    let ms = |d: Option<Duration>| g(d.map(|d| d.as_secs_f64()), 1e-3, 1);
    for r in rows {
        s += &format!(
            "{:<9} {:<38} {:>3} {:>9.2} {:>9.2} {:>9.2} {:>9} {:>12}M {:>12}G {:>8} {:>9} {:>9} {:>7} {:>8}\n",
            r.name,
            r.label(),
            r.threads,
            r.time.as_secs_f64() * 1e3,
            r.spread.min.as_secs_f64() * 1e3,
            r.spread.max.as_secs_f64() * 1e3,
            ms(r.cpu),
            g(r.wave_insts_per_s, 1e6, 1),
            g(r.lane_ops_per_s, 1e9, 3),
            g(r.bytes_per_s, 1e9, 2),
            g(r.ratio_to_native, 1.0, 4),
            g(r.ratio_to_memcpy(), 1.0, 4),
            g(r.scaling, 1.0, 2),
            ms(r.first_launch),
        );
    }
    s
}

/// A wavejit launch measured: its samples, the report of the last timed launch, the first
/// launch's wall time and the translation time of the warm-up launches.
struct Measured {
    timing: Timing,
    /// The same launch on one thread, sampled alternately (when the run measures scaling).
    one_thread: Option<Timing>,
    report: Report,
    cpu: Option<Duration>,
    first_launch: Duration,
    translate: Duration,
    /// Launches before the timed ones, the first included.
    warm_up_launches: u64,
    /// Blocks awaiting their optimised code when the timing started.
    awaiting_optimised: u64,
    /// Launches done (warm-up and timed, on either thread count).
    launches: u64,
}

/// Most launches `warm_up` makes (the first included).
pub const WARM_UP_MAX_LAUNCHES: u64 = 16;

/// Time after which [`warm_up`] stops launching even if the translation is not steady.
const WARM_UP_MAX_TIME: Duration = Duration::from_secs(10);

/// Launches with `launch` after `first` (a launch's report) until the translation is steady:
/// a launch lifts and compiles nothing and no block awaits its optimised code (a long block
/// runs quick code until it has run about a thousand times, [`wavejit_translator`]'s tier-up),
/// or [`WARM_UP_MAX_LAUNCHES`] or [`WARM_UP_MAX_TIME`] is reached. Returns the launches made
/// (the first included), the translation time over all of them, and the blocks still
/// awaiting their optimised code at the end.
fn warm_up(
    first: Report,
    mut launch: impl FnMut() -> Result<Report, Error>,
) -> Result<(u64, u64, u64), Error> {
    let t0 = Instant::now();
    let mut t = first.translation;
    let mut translate = t.translate_ns;
    let mut launches = 1;
    let steady = |t: &wavejit::TranslationStats| {
        t.blocks_lifted == 0 && t.blocks_compiled == 0 && t.blocks_awaiting_optimised == 0
    };
    while !steady(&t) && launches < WARM_UP_MAX_LAUNCHES && t0.elapsed() < WARM_UP_MAX_TIME {
        t = launch()?.translation;
        translate += t.translate_ns;
        launches += 1;
    }
    Ok((launches, translate, t.blocks_awaiting_optimised))
}

/// Launches `kernel` once (timed: the first launch), warms up until the translation is steady
/// ([`warm_up`]), then takes `cfg.samples` timed launches on `launch`'s threads and, when `cfg`
/// measures scaling, as many on one thread, alternately.
fn measure(
    cfg: &BenchConfig,
    dev: &Device,
    kernel: &Kernel,
    launch: &Launch,
) -> Result<Measured, Error> {
    let t0 = Instant::now();
    let first = dev.launch(kernel, launch)?;
    let first_launch = t0.elapsed();
    let (warm, translate, awaiting) = warm_up(first, || dev.launch(kernel, launch))?;
    let single = launch.clone().threads(1);
    let s = sample(cfg.samples, cfg.threads, scales(cfg), |threads| {
        dev.launch(kernel, if threads == 1 { &single } else { launch })
    })?;
    Ok(Measured {
        timing: s.timing,
        one_thread: s.one_thread,
        report: s.last,
        cpu: s.cpu,
        first_launch,
        translate: Duration::from_nanos(translate),
        warm_up_launches: warm,
        awaiting_optimised: awaiting,
        launches: warm + s.runs,
    })
}

/// The host references of one workload in one run: the native computation's median and the
/// memcpy's fastest sample ([`BenchRow::memcpy_time`]).
#[derive(Clone, Copy)]
struct Reference {
    native: Duration,
    memcpy: Option<Duration>,
    /// The same on one thread (when the run measures scaling).
    native_one: Option<Duration>,
    memcpy_one: Option<Duration>,
}

impl Reference {
    /// The reference of a workload whose native computation was timed as `native` and,
    /// for memory-bound work, a memcpy as `memcpy`.
    fn new<T, U>(native: &Sampled<T>, memcpy: Option<&Sampled<U>>) -> Reference {
        Reference {
            native: native.timing.median,
            memcpy: memcpy.map(|m| m.timing.min),
            native_one: native.one_thread.map(|t| t.median),
            memcpy_one: memcpy.and_then(|m| m.one_thread).map(|t| t.min),
        }
    }
}

/// The work one launch does: lane operations and bytes moved (0 for ALU-bound work).
#[derive(Clone, Copy)]
struct Work {
    lane_ops: f64,
    bytes: f64,
}

/// A host reference row (native code or memcpy) of `name`.
fn host_row<T>(
    cfg: &BenchConfig,
    name: &str,
    what: &str,
    timed: &Sampled<T>,
    work: Work,
    reference: Reference,
) -> BenchRow {
    let time = timed.timing.median;
    let s = time.as_secs_f64();
    BenchRow {
        name: name.into(),
        what: what.into(),
        threads: host_threads(cfg.threads),
        time,
        spread: timed.timing,
        one_thread: timed.one_thread,
        native_one_thread: reference.native_one,
        memcpy_one_thread: reference.memcpy_one,
        native_time: Some(reference.native),
        memcpy_time: reference.memcpy,
        lane_ops_per_s: Some(work.lane_ops / s),
        bytes_per_s: (work.bytes > 0.0).then(|| work.bytes / s),
        ratio_to_native: Some(reference.native.as_secs_f64() / s),
        cpu: timed.cpu,
        ..Default::default()
    }
}

/// The wavejit row of `name` for a kernel of `(gpu, wave size)`.
fn wavejit_row(
    cfg: &BenchConfig,
    name: &str,
    (gpu, wave): (&str, u32),
    mode: Option<&str>,
    m: &Measured,
    work: Work,
    reference: Reference,
) -> BenchRow {
    let s = m.timing.median.as_secs_f64();
    BenchRow {
        name: name.into(),
        what: "wavejit jit".into(),
        target: Some(gpu.into()),
        wave_size: Some(wave),
        mode: mode.map(Into::into),
        threads: host_threads(cfg.threads),
        time: m.timing.median,
        spread: m.timing,
        one_thread: m.one_thread,
        native_one_thread: reference.native_one,
        memcpy_one_thread: reference.memcpy_one,
        warm_up_launches: Some(m.warm_up_launches),
        awaiting_optimised: Some(m.awaiting_optimised),
        native_time: Some(reference.native),
        memcpy_time: reference.memcpy,
        first_launch: Some(m.first_launch),
        translate: Some(m.translate),
        wave_insts_per_s: Some(m.report.counters.wave_insts() as f64 / s),
        lane_ops_per_s: Some(work.lane_ops / s),
        bytes_per_s: (work.bytes > 0.0).then(|| work.bytes / s),
        ratio_to_native: Some(reference.native.as_secs_f64() / s),
        cpu: m.cpu,
        scaling: None,
    }
}

/// Fewest samples of the memcpy reference: it is cheap (tens of milliseconds) and its
/// fastest sample is the reference, so more samples make the reference steadier.
pub const MEMCPY_SAMPLES: usize = 9;

/// Times a host memcpy of `bytes` bytes (half read, half written) on `cfg.threads`, at least
/// [`MEMCPY_SAMPLES`] times.
fn time_memcpy(cfg: &BenchConfig, bytes: usize) -> Result<Sampled<()>, Error> {
    let src = vec![1u8; bytes / 2];
    let mut dst = vec![0u8; bytes / 2];
    // Touch the destination once so the timed copies do not pay its page faults.
    memcpy_host(&src, &mut dst, cfg.threads);
    let samples = cfg.samples.max(MEMCPY_SAMPLES);
    sample(samples, cfg.threads, scales(cfg), |threads| {
        memcpy_host(&src, &mut dst, threads);
        Ok(())
    })
}

/// Runs `f` on `threads` threads (0 = all), each on its share of the index range `0..n`.
fn host_parallel(n: usize, threads: usize, f: impl Fn(std::ops::Range<usize>) + Sync) {
    let per = n.div_ceil(host_threads(threads)).max(1);
    std::thread::scope(|s| {
        for start in (0..n).step_by(per) {
            let f = &f;
            s.spawn(move || f(start..(start + per).min(n)));
        }
    });
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
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

fn bench_alu(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.alu_items;
    let block = 256u32;
    let work = Work {
        lane_ops: (n as f64) * cfg.alu_iters as f64 * 4.0,
        bytes: 0.0,
    };
    let mut native = vec![0f32; n];
    let native_t = time_host(cfg, |threads| {
        alu_fma_host(&mut native, cfg.alu_iters, threads);
        Ok(())
    })?;
    let reference = Reference::new::<(), ()>(&native_t, None);
    let mut rows = vec![host_row(
        cfg,
        "alu_fma",
        "native host (Rust)",
        &native_t,
        work,
        reference,
    )];
    // Every intermediate value is a normal f32, so flushing denormals changes no bit.
    let want = f32_bytes(&native);
    for t in BENCH_TARGETS {
        for (mode, object) in [("ieee", t.alu_fma), ("flush", t.alu_flush)] {
            let dev = Device::new();
            let kernel = dev.load_module(object)?.kernel("alu_fma")?;
            let out = dev.alloc(n * 4)?;
            let launch = Launch::new([(n as u32).div_ceil(block), 1, 1], [block, 1, 1])
                .arg(Arg::Buffer(out))
                .arg(Arg::I32(cfg.alu_iters as i32))
                .engine(Engine::Jit)
                .threads(cfg.threads);
            let m = measure(cfg, &dev, &kernel, &launch)?;
            let got = dev.read(out)?;
            if let Some(i) = (0..n).find(|&i| got[4 * i..4 * i + 4] != want[4 * i..4 * i + 4]) {
                return Err(Error::WrongResult(format!(
                    "alu_fma benchmark ({} w{} {mode}): wavejit result differs from the host \
                     at item {i}",
                    t.gpu, t.wave
                )));
            }
            rows.push(wavejit_row(
                cfg,
                "alu_fma",
                (t.gpu, t.wave),
                Some(mode),
                &m,
                work,
                reference,
            ));
        }
    }
    Ok(rows)
}

// ---------------------------------------------------------------------------------------
// Memory-bound: vadd and triad over cfg.vadd_elems floats (8 bytes read, 4 written per
// element), a reduction (4 bytes read per element).

/// The host rows of the memory-bound workload `name`: its native computation (timed by the
/// caller) and a host memcpy of the same bytes, with the reference they give its wavejit rows.
fn memory_host_rows(
    cfg: &BenchConfig,
    name: &str,
    native: &Sampled<()>,
    work: Work,
) -> Result<(Vec<BenchRow>, Reference), Error> {
    let memcpy = time_memcpy(cfg, work.bytes as usize)?;
    let reference = Reference::new(native, Some(&memcpy));
    let rows = vec![
        host_row(cfg, name, "native host (Rust)", native, work, reference),
        host_row(cfg, name, "host memcpy", &memcpy, work, reference),
    ];
    Ok((rows, reference))
}

/// The wavejit rows of workload `name`, one per bench target: `prepare` loads the target's
/// kernel and inputs onto a fresh device and returns the kernel, its launch (engine and threads
/// are set here) and the output buffer; after the measured launches `check` compares that
/// buffer's bytes with the host's result, given how many launches ran.
fn target_rows(
    cfg: &BenchConfig,
    name: &str,
    work: Work,
    reference: Reference,
    prepare: impl Fn(&BenchTarget, &Device) -> Result<(Kernel, Launch, Buffer), Error>,
    check: impl Fn(&[u8], u64) -> bool,
) -> Result<Vec<BenchRow>, Error> {
    let mut rows = Vec::new();
    for t in BENCH_TARGETS {
        let dev = Device::new();
        let (kernel, launch, out) = prepare(t, &dev)?;
        let launch = launch.engine(Engine::Jit).threads(cfg.threads);
        let m = measure(cfg, &dev, &kernel, &launch)?;
        if !check(&dev.read(out)?, m.launches) {
            return Err(Error::WrongResult(format!(
                "{name} benchmark ({} w{}): wavejit result differs from the host",
                t.gpu, t.wave
            )));
        }
        rows.push(wavejit_row(
            cfg,
            name,
            (t.gpu, t.wave),
            None,
            &m,
            work,
            reference,
        ));
    }
    Ok(rows)
}

fn bench_vadd(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.vadd_elems;
    let work = Work {
        lane_ops: n as f64,
        bytes: (n * 12) as f64,
    };
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.25).collect();
    let mut c = vec![0f32; n];
    vadd_host(&a, &b, &mut c, cfg.threads);
    let native_t = time_host(cfg, |threads| {
        vadd_host(&a, &b, &mut c, threads);
        Ok(())
    })?;
    let (mut rows, reference) = memory_host_rows(cfg, "vadd", &native_t, work)?;
    let want = f32_bytes(&c);
    let (a, b) = (f32_bytes(&a), f32_bytes(&b));
    let prepare = |t: &BenchTarget, dev: &Device| {
        let kernel = dev.load_module(t.vadd)?.kernel("vadd")?;
        let (ba, bb, bc) = (dev.alloc_from(&a)?, dev.alloc_from(&b)?, dev.alloc(n * 4)?);
        let launch = Launch::new([(n as u32).div_ceil(256), 1, 1], [256, 1, 1])
            .arg(Arg::Buffer(ba))
            .arg(Arg::Buffer(bb))
            .arg(Arg::Buffer(bc))
            .arg(Arg::I32(n as i32));
        Ok((kernel, launch, bc))
    };
    rows.extend(target_rows(
        cfg,
        "vadd",
        work,
        reference,
        prepare,
        |got, _| got == want,
    )?);
    Ok(rows)
}

/// The triad's scalar (every product and sum of the benchmark's data is exact in f32, so a
/// fused and an unfused multiply-add give the same bits).
const TRIAD_SCALE: f32 = 3.0;

fn bench_triad(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.vadd_elems;
    let work = Work {
        lane_ops: n as f64,
        bytes: (n * 12) as f64,
    };
    let b: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let c: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.25).collect();
    let mut a = vec![0f32; n];
    let triad = |a: &mut [f32], threads: usize| {
        let per = n.div_ceil(host_threads(threads)).max(1);
        std::thread::scope(|s| {
            for ((aa, bb), cc) in a.chunks_mut(per).zip(b.chunks(per)).zip(c.chunks(per)) {
                s.spawn(move || {
                    for ((o, x), y) in aa.iter_mut().zip(bb).zip(cc) {
                        *o = x + TRIAD_SCALE * y;
                    }
                });
            }
        });
    };
    triad(&mut a, cfg.threads);
    let native_t = time_host(cfg, |threads| {
        triad(&mut a, threads);
        Ok(())
    })?;
    let (mut rows, reference) = memory_host_rows(cfg, "triad", &native_t, work)?;
    let want = f32_bytes(&a);
    let (b, c) = (f32_bytes(&b), f32_bytes(&c));
    let prepare = |t: &BenchTarget, dev: &Device| {
        let kernel = dev.load_module(t.bench)?.kernel("triad")?;
        let (ba, bb, bc) = (dev.alloc(n * 4)?, dev.alloc_from(&b)?, dev.alloc_from(&c)?);
        let launch = Launch::new([(n as u32).div_ceil(256), 1, 1], [256, 1, 1])
            .arg(Arg::Buffer(ba))
            .arg(Arg::Buffer(bb))
            .arg(Arg::Buffer(bc))
            .arg(Arg::F32(TRIAD_SCALE))
            .arg(Arg::U32(n as u32));
        Ok((kernel, launch, ba))
    };
    rows.extend(target_rows(
        cfg,
        "triad",
        work,
        reference,
        prepare,
        |got, _| got == want,
    )?);
    Ok(rows)
}

/// Elements each work-item of the reduction sums before the workgroup reduces through LDS.
const REDUCE_PER_ITEM: usize = 16;

fn bench_reduce(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.vadd_elems;
    let work = Work {
        lane_ops: n as f64,
        bytes: (n * 4) as f64,
    };
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let sum_host = |threads: usize| {
        let partial = std::sync::Mutex::new(0u32);
        host_parallel(n, threads, |r| {
            let s = input[r].iter().fold(0u32, |a, &x| a.wrapping_add(x));
            let mut p = partial.lock().unwrap_or_else(|e| e.into_inner());
            *p = p.wrapping_add(s);
        });
        partial.into_inner().unwrap_or_else(|e| e.into_inner())
    };
    let want = sum_host(cfg.threads);
    let native_t = time_host(cfg, |threads| {
        std::hint::black_box(sum_host(threads));
        Ok(())
    })?;
    let (mut rows, reference) = memory_host_rows(cfg, "reduce", &native_t, work)?;
    let bytes: Vec<u8> = input.iter().flat_map(|x| x.to_le_bytes()).collect();
    let groups = n.div_ceil(256 * REDUCE_PER_ITEM) as u32;
    let prepare = |t: &BenchTarget, dev: &Device| {
        let kernel = dev.load_module(t.bench)?.kernel("reduce_sum")?;
        let (bin, bsum) = (dev.alloc_from(&bytes)?, dev.alloc(4)?);
        let launch = Launch::new([groups, 1, 1], [256, 1, 1])
            .arg(Arg::Buffer(bin))
            .arg(Arg::Buffer(bsum))
            .arg(Arg::U32(n as u32));
        Ok((kernel, launch, bsum))
    };
    // Every launch added the whole sum to the same word.
    let check = |got: &[u8], launches: u64| got == want.wrapping_mul(launches as u32).to_le_bytes();
    rows.extend(target_rows(cfg, "reduce", work, reference, prepare, check)?);
    Ok(rows)
}

// ---------------------------------------------------------------------------------------
// Matrix cores: f16 GEMMs (f32 accumulation) against a tuned host f32 GEMM (matrixmultiply,
// all threads): the one-wave-per-16×16-tile kernels (tests/kernels/src/gfx9/mfma_gemm.hip,
// src/rdna/wmma_gemm.hip), the tiled ones written like a real GEMM (src/gfx9/gemm_tiled.hip,
// src/rdna/gemm_tiled.hip) and Triton's matmul_f16 (triton/kernels.py).

/// The gfx942 build of the MFMA GEMM kernels.
const MFMA_GEMM_GFX942: &[u8] = include_bytes!("../../tests/kernels/matrix/gfx942/mfma_gemm.hsaco");

/// The gfx942 build of the tiled GEMM kernels.
const TILED_GEMM_GFX942: &[u8] =
    include_bytes!("../../tests/kernels/matrix/gfx942/gemm_tiled.hsaco");

/// A tiled f16 GEMM kernel of the `gemm_tiled` objects (`tests/kernels/src/*/gemm_tiled.hip`):
/// `kernel(A, B, C, M, N, K)` with row-major `A[M][K]` and `B[K][N]` in f16, `C[M][N]` in f32, one
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
        a: Buffer,
        b: Buffer,
        c: Buffer,
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
        let need =
            |what: &str, buf: Buffer, elems: usize, size: usize| match elems.checked_mul(size) {
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
    /// The kernel's kind in the engine column (the label without target and wave size).
    kind_label: &'static str,
    /// GPU the object is built for.
    gpu: &'static str,
    /// Wave size of the kernel.
    wave: u32,
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
        kind_label: "MFMA",
        gpu: "gfx942",
        wave: 64,
        object: MFMA_GEMM_GFX942,
        kind: GemmKind::OneWave { wave: 64 },
    },
    GemmBuild {
        label: "WMMA gfx1100 w32",
        kind_label: "WMMA",
        gpu: "gfx1100",
        wave: 32,
        object: include_bytes!("../../tests/kernels/matrix/gfx1100/wmma_gemm.hsaco"),
        kind: GemmKind::OneWave { wave: 32 },
    },
    GemmBuild {
        label: "tiled 64 MFMA gfx942",
        kind_label: "tiled 64 MFMA",
        gpu: "gfx942",
        wave: 64,
        object: TILED_GEMM_GFX942,
        kind: GemmKind::Tiled(TILED_GEMM_64),
    },
    GemmBuild {
        label: "tiled 128 MFMA gfx942",
        kind_label: "tiled 128 MFMA",
        gpu: "gfx942",
        wave: 64,
        object: TILED_GEMM_GFX942,
        kind: GemmKind::Tiled(TILED_GEMM_128),
    },
    GemmBuild {
        label: "tiled 256x128 MFMA gfx942",
        kind_label: "tiled 256x128 MFMA",
        gpu: "gfx942",
        wave: 64,
        object: TILED_GEMM_GFX942,
        kind: GemmKind::Tiled(TILED_GEMM_256),
    },
    GemmBuild {
        label: "tiled 64 WMMA gfx1100 w32",
        kind_label: "tiled 64 WMMA",
        gpu: "gfx1100",
        wave: 32,
        object: include_bytes!("../../tests/kernels/matrix/gfx1100/gemm_tiled.hsaco"),
        kind: GemmKind::Tiled(TILED_GEMM_64),
    },
    GemmBuild {
        label: "Triton gfx942",
        kind_label: "Triton",
        gpu: "gfx942",
        wave: 64,
        object: include_bytes!("../../tests/kernels/triton/gfx942/matmul_f16.hsaco"),
        kind: GemmKind::Triton {
            json: include_str!("../../tests/kernels/triton/gfx942/matmul_f16.json"),
        },
    },
];

/// The labels of the f16 GEMM builds `wavejit bench` measures (its `gemm_f16` rows).
pub fn gemm_labels() -> Vec<&'static str> {
    all_gemm_builds().map(|b| b.label).collect()
}

/// Every GEMM build: [`GEMM_BUILDS`], then the other targets' Triton matmuls.
fn all_gemm_builds() -> impl Iterator<Item = &'static GemmBuild> {
    GEMM_BUILDS.iter().chain(triton_gemm::TRITON_GEMM_BUILDS)
}

fn bench_mfma_gemm(cfg: &BenchConfig) -> Result<Vec<BenchRow>, Error> {
    let n = cfg.gemm_size;
    let flops = 2.0 * (n as f64).powi(3);
    let (a, b) = gemm_inputs(n);
    let mut c = vec![0f32; n * n];
    // The host GEMM's threads are fixed at its first use (`MATMUL_NUM_THREADS`, set by
    // `main`): no one-thread samples, the one-thread rows compare against it as it is.
    let native_t = sample(cfg.samples, cfg.threads, false, |_| {
        sgemm_host(n, &a, &b, &mut c);
        Ok(())
    })?;

    let work = Work {
        lane_ops: flops,
        bytes: 0.0,
    };
    let reference = Reference::new::<(), ()>(&native_t, None);
    let mut rows = vec![host_row(
        cfg,
        "gemm_f16",
        "host sgemm (f32)",
        &native_t,
        work,
        reference,
    )];
    // The inputs make every sum exact in f32, so C must equal the host's bit for bit (f16 C:
    // the host's f32 result rounded to nearest even, as Triton's `acc.to(float16)` rounds).
    let want: Vec<u8> = c.iter().flat_map(|x| x.to_le_bytes()).collect();
    let want_f16: Vec<u8> = c
        .iter()
        .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
        .collect();
    for build in all_gemm_builds() {
        let w = Workload::gemm_f16_on(cfg, Engine::Jit, build)?;
        let m = measure(cfg, &w.dev, &w.kernel, &w.launch)?;
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
        let target = (build.gpu, build.wave);
        let mut row = wavejit_row(cfg, "gemm_f16", target, None, &m, work, reference);
        row.what = format!("wavejit jit {}", build.kind_label);
        rows.push(row);
    }
    Ok(rows)
}

/// `wavejit bench [--quick] [--threads N] [--samples N] [--gemm-size N] [--only NAME]
/// [--no-scaling] [--json FILE]`: runs the built-in benchmarks (those whose name contains
/// NAME) on N threads and, unless `--no-scaling` or N is 1, again on one thread; returns the
/// result table and, with `--json`, writes every row to FILE ([`rows_json`]).
pub fn main(args: &[String]) -> Result<String, Error> {
    let mut cfg = BenchConfig::default();
    let mut json: Option<String> = None;
    let mut scaling = true;
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
                let name = it.next().cloned().ok_or_else(|| {
                    Error::Usage("`wavejit bench --only` needs a workload name".into())
                })?;
                if !WORKLOADS.iter().any(|w| w.contains(name.as_str())) {
                    return Err(Error::Usage(format!(
                        "`wavejit bench --only {name}` selects nothing (workloads: {})",
                        WORKLOADS.join(", ")
                    )));
                }
                cfg.only = name;
            }
            "--no-scaling" => scaling = false,
            "--json" => {
                json = Some(it.next().cloned().ok_or_else(|| {
                    Error::Usage("`wavejit bench --json` needs a file name".into())
                })?)
            }
            other => {
                return Err(Error::Usage(format!(
                    "`wavejit bench`: unknown option `{other}` (expected --quick, --threads N, \
                     --samples N, --gemm-size N, --only NAME, --no-scaling, --json FILE)"
                )))
            }
        }
    }
    if cfg.threads > 0 && std::env::var_os("MATMUL_NUM_THREADS").is_none() {
        // matrixmultiply reads its thread count once, on first use, from this variable
        // (default: every physical core): the native GEMM gets the same threads as wavejit.
        // Set before any benchmark starts a thread. (The one-thread scaling run therefore
        // compares against a GEMM on these threads too.)
        std::env::set_var("MATMUL_NUM_THREADS", cfg.threads.to_string());
    }
    let rows = if scaling {
        run_with_scaling(&cfg)?
    } else {
        run_all(&cfg)?
    };
    if let Some(path) = json {
        std::fs::write(&path, rows_json(&rows))
            .map_err(|e| Error::Usage(format!("cannot write {path}: {e}")))?;
    }
    Ok(format_table(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wavejit bench --json` on a tiny vector add: every row is in the file with its fields,
    /// and each ratio is the native reference's time over the row's time.
    #[test]
    fn json_rows_have_fields_and_consistent_ratios() {
        let path = std::env::temp_dir().join(format!("wavejit-bench-{}.json", std::process::id()));
        let args: Vec<String> = [
            "--quick",
            "--samples",
            "1",
            "--threads",
            "2",
            "--only",
            "vadd",
            "--json",
            path.to_str().expect("utf-8 temp path"),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let table = main(&args).expect("bench runs");
        let text = std::fs::read_to_string(&path).expect("json written");
        let _ = std::fs::remove_file(&path);
        let v: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let rows = v["rows"].as_array().expect("rows array");
        // Native, memcpy and three wavejit targets, on 2 threads and again on 1.
        assert_eq!(rows.len(), 10, "{text}");
        assert_eq!(table.lines().count(), rows.len() + 1);
        let num = |r: &serde_json::Value, k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        let mut targets = std::collections::BTreeSet::new();
        for r in rows {
            assert_eq!(r["workload"], "vadd");
            let time = num(r, "time_ms");
            let native = num(r, "native_time_ms");
            assert!(time > 0.0 && native > 0.0, "{r}");
            let ratio = num(r, "ratio_to_native");
            assert!((ratio - native / time).abs() <= 1e-9 * ratio, "{r}");
            let memcpy = num(r, "memcpy_time_ms");
            assert!((num(r, "ratio_to_memcpy") - memcpy / time).abs() <= 1e-9 * memcpy / time);
            // 12 bytes per element moved.
            let gbs = num(r, "bytes_per_s");
            let want = (4 << 20) as f64 * 12.0 / (time / 1e3);
            assert!((gbs - want).abs() <= 1e-6 * want, "{r}");
            let threads = r["threads"].as_u64().expect("threads");
            assert!(threads == 1 || threads == 2, "{r}");
            // Scaling is reported on the 2-thread rows only, from their one-thread samples,
            // which are also the time of the matching one-thread row.
            assert_eq!(r["scaling_1_to_n_threads"].is_number(), threads == 2, "{r}");
            assert_eq!(r["time_1_thread_ms"].is_number(), threads == 2, "{r}");
            if threads == 2 {
                let one = num(r, "time_1_thread_ms");
                let scaling = num(r, "scaling_1_to_n_threads");
                assert!((scaling - one / time).abs() <= 1e-9 * scaling, "{r}");
                let same = |o: &&serde_json::Value| {
                    o["threads"] == 1
                        && o["engine"] == r["engine"]
                        && o["target"] == r["target"]
                        && o["wave_size"] == r["wave_size"]
                };
                let row1 = rows.iter().find(same).expect("one-thread row");
                assert_eq!(num(row1, "time_ms"), one, "{row1}");
            }
            // Median and spread of the samples. The memcpy reference takes at least
            // MEMCPY_SAMPLES samples, and every row's memcpy time is its fastest one.
            if r["engine"] == "host memcpy" {
                assert_eq!(r["samples"], MEMCPY_SAMPLES as u64, "{r}");
                assert_eq!(num(r, "memcpy_time_ms"), num(r, "time_min_ms"), "{r}");
                let mut others = rows.iter().filter(|o| o["threads"] == r["threads"]);
                assert!(others.all(|o| num(o, "memcpy_time_ms") == memcpy), "{r}");
            } else {
                assert_eq!(r["samples"], 1, "{r}");
            }
            assert!(
                num(r, "time_min_ms") <= time && time <= num(r, "time_max_ms"),
                "{r}"
            );
            if r["engine"] == "wavejit jit" {
                targets.insert((
                    r["target"].as_str().expect("target").to_string(),
                    r["wave_size"].as_u64().expect("wave size"),
                ));
                assert!(num(r, "first_launch_ms") > 0.0, "{r}");
                assert!(num(r, "translate_ms") > 0.0, "{r}");
                assert!(num(r, "wave_insts_per_s") > 0.0, "{r}");
                assert!(num(r, "warm_up_launches") >= 1.0, "{r}");
                assert!(r["blocks_awaiting_optimised"].is_u64(), "{r}");
            } else {
                assert!(
                    r["target"].is_null() && r["first_launch_ms"].is_null(),
                    "{r}"
                );
            }
        }
        let want: std::collections::BTreeSet<_> =
            [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)]
                .iter()
                .map(|&(g, w)| (g.to_string(), w))
                .collect();
        assert_eq!(targets, want);
    }

    #[test]
    fn unknown_workload_is_a_usage_error() {
        let args = vec!["--only".to_string(), "nosuch".to_string()];
        assert!(matches!(main(&args), Err(Error::Usage(_))));
    }
}
