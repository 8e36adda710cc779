//! Criterion benchmark of the instruction decoder (issue #3: at least 50 M instructions/s on
//! one core): decodes the executable segments of every committed corpus code object
//! (`tests/kernels/**/*.hsaco`), one benchmark per GPU, and reports instructions per second.
//! Decode only (no printing); undecodable words are skipped 4 bytes at a time, as a
//! disassembler would.
//!
//! `cargo bench --bench decode` (add `-- --quick` for a short run).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wavejit_runtime::code_object;
use wavejit_translator::isa::{decode, decode_into, Inst, Target};

/// Code of one GPU: (target, [(address, bytes)]).
type Corpus = BTreeMap<String, (Target, Vec<(u64, Vec<u8>)>)>;

fn hsaco_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            hsaco_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "hsaco") {
            out.push(p);
        }
    }
}

fn corpus() -> Corpus {
    let mut files = Vec::new();
    hsaco_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels"),
        &mut files,
    );
    files.sort();
    let mut out = Corpus::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else {
            continue;
        };
        let Ok(co) = code_object::load(&bytes, None) else {
            continue;
        };
        let target = Target::new(co.gpu);
        let entry = &mut out
            .entry(co.gpu.to_string())
            .or_insert_with(|| (target, Vec::new()))
            .1;
        for r in &co.exec_ranges {
            if let Some(code) = co.code_at(r.start) {
                entry.push((r.start, code.to_vec()));
            }
        }
    }
    // Only GPUs the decoder handles (some word decodes).
    out.retain(|_, (target, code)| {
        code.iter()
            .any(|(a, c)| decode(target, c, *a).is_ok() && !c.is_empty())
    });
    out
}

/// Decodes every section once, into one reused [`Inst`] as a disassembler loop does;
/// returns the number of instructions.
fn decode_all(target: &Target, code: &[(u64, Vec<u8>)]) -> u64 {
    let mut n = 0;
    let mut inst = Inst::default();
    for (addr, bytes) in code {
        let mut off = 0;
        while off < bytes.len() {
            match decode_into(target, &bytes[off..], addr + off as u64, &mut inst) {
                Ok(()) => off += black_box(&inst).size as usize,
                Err(_) => off += 4,
            }
            n += 1;
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let corpus = corpus();
    assert!(!corpus.is_empty(), "no decodable corpus code objects");
    let mut g = c.benchmark_group("decode");
    for (gpu, (target, code)) in &corpus {
        let n = decode_all(target, code);
        g.throughput(Throughput::Elements(n));
        g.bench_function(format!("{gpu}_{n}_inst"), |b| {
            b.iter(|| decode_all(target, code))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
