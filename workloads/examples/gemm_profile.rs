//! Runs one `wavejit bench` f16 GEMM alone, for profiling:
//! `cargo run --release --example gemm_profile -- [SIZE] [RUNS] [THREADS] [BUILD]`
//! (defaults 1024, 3, 1, "MFMA gfx942": `gemm_f16`, one wave per 16x16 tile; BUILD is the
//! label of any `wavejit bench` GEMM row, e.g. "tiled 128 MFMA gfx942"). Prints per-run wall
//! and process CPU time, GFLOP/s and the translation statistics (blocks lifted vs compiled:
//! the difference stays interpreted).
use std::time::Instant;
use wavejit::Engine;
use wavejit_workloads::bench::{BenchConfig, Workload};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let all: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<usize> = all
        .iter()
        .take(3)
        .map(|a| a.parse())
        .collect::<Result<_, _>>()?;
    let build = all.get(3).map_or("MFMA gfx942", |s| s.as_str());
    let arg = |i: usize, d: usize| args.get(i).copied().unwrap_or(d);
    let cfg = BenchConfig {
        gemm_size: arg(0, 1024),
        threads: arg(2, 1),
        ..BenchConfig::default()
    };
    let n = cfg.gemm_size as f64;
    let w = Workload::gemm_f16_build(&cfg, Engine::Jit, build)?;
    w.warm_up()?;
    for _ in 0..arg(1, 3) {
        let (t0, c0) = (Instant::now(), cpu_s());
        let r = w.run()?;
        let (s, c) = (t0.elapsed().as_secs_f64(), cpu_s() - c0);
        println!(
            "wall {:.1} ms, cpu {:.0} ms, {:.3} GFLOP/s per CPU second, {} wave insts, {:?}",
            s * 1e3,
            c * 1e3,
            2.0 * n * n * n / c / 1e9,
            r.counters.wave_insts(),
            r.translation
        );
    }
    Ok(())
}

/// Process CPU seconds (user + system, `/proc/self/stat` fields 14 and 15 in 100 Hz ticks;
/// 0 where unreadable).
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let t: Vec<f64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|f| f.parse().ok())
        .collect();
    t.iter().sum::<f64>() / 100.0
}
