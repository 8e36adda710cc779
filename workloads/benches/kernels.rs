//! Criterion benchmarks: corpus kernels through wavejit next to the same computation compiled
//! natively for the host, in the same run (issue #2: ALU-bound FMA loop, vector add; issue
//! #5: the f16 MFMA GEMM against a tuned host f32 GEMM).
//! Sizes are the quick configuration so `cargo bench` stays short; `wavejit bench` runs the
//! full 64 Mi-element vector add.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use wavejit::Engine;
use wavejit_workloads::bench::{
    alu_fma_host, gemm_inputs, memcpy_host, sgemm_host, vadd_host, BenchConfig, Workload,
};

fn alu(c: &mut Criterion) {
    let cfg = BenchConfig::quick();
    let mut g = c.benchmark_group("alu_fma");
    g.sample_size(10);
    g.throughput(Throughput::Elements(
        (cfg.alu_items as u64) * cfg.alu_iters as u64 * 4,
    ));
    let w = Workload::alu_fma(&cfg, Engine::Jit).expect("alu_fma workload");
    w.run().expect("warm-up launch");
    g.bench_function("wavejit_jit", |b| b.iter(|| w.run().expect("launch")));
    let mut out = vec![0f32; cfg.alu_items];
    g.bench_function("native_host", |b| {
        b.iter(|| alu_fma_host(&mut out, cfg.alu_iters, 0))
    });
    g.finish();
}

fn vadd(c: &mut Criterion) {
    let cfg = BenchConfig::quick();
    let n = cfg.vadd_elems;
    let mut g = c.benchmark_group("vadd");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(n as u64 * 12));
    let w = Workload::vadd(&cfg, Engine::Jit).expect("vadd workload");
    w.run().expect("warm-up launch");
    g.bench_function("wavejit_jit", |b| b.iter(|| w.run().expect("launch")));
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let bb: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut out = vec![0f32; n];
    g.bench_function("native_host", |b| {
        b.iter(|| vadd_host(&a, &bb, &mut out, 0))
    });
    let src = vec![1u8; n * 6];
    let mut dst = vec![0u8; n * 6];
    g.bench_function("host_memcpy_same_bytes", |b| {
        b.iter(|| memcpy_host(&src, &mut dst, 0))
    });
    g.finish();
}

fn gemm(c: &mut Criterion) {
    let cfg = BenchConfig::quick();
    let n = cfg.gemm_size;
    let mut g = c.benchmark_group("gemm_f16");
    g.sample_size(10);
    // Elements = floating-point operations (2·n³).
    g.throughput(Throughput::Elements(2 * (n as u64).pow(3)));
    let w = Workload::gemm_f16(&cfg, Engine::Jit).expect("gemm_f16 workload");
    w.warm_up().expect("warm-up launch");
    g.bench_function("wavejit_jit_mfma", |b| b.iter(|| w.run().expect("launch")));
    let tiled = Workload::gemm_f16_tiled(&cfg, Engine::Jit).expect("gemm_f16_tiled workload");
    tiled.warm_up().expect("warm-up launch");
    g.bench_function("wavejit_jit_mfma_tiled", |b| {
        b.iter(|| tiled.run().expect("launch"))
    });
    let (a, bm) = gemm_inputs(n);
    let mut out = vec![0f32; n * n];
    g.bench_function("native_sgemm_f32", |b| {
        b.iter(|| sgemm_host(n, &a, &bm, &mut out))
    });
    let want: Vec<u8> = out.iter().flat_map(|x| x.to_le_bytes()).collect();
    assert!(
        w.output().unwrap() == want,
        "wavejit GEMM differs from the host GEMM"
    );
    assert!(
        tiled.output().unwrap() == want,
        "wavejit tiled GEMM differs from the host GEMM"
    );
    g.finish();
}

criterion_group!(benches, alu, vadd, gemm);
criterion_main!(benches);
