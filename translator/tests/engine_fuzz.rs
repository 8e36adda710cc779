//! Differential fuzzing of the interpreter against the JIT on random gfx942 and gfx950
//! instruction programs (`wavejit_translator::difffuzz`): a deterministic bounded run of at
//! least one million executed wave instructions. Any difference in exit, fault, wave state or
//! memory fails with the seed, the shrunk program and the first differing register.
//! Long runs: `cargo run -p wavejit-translator --release --example engine_fuzz -- --seconds N`.

use wavejit_translator::difffuzz::Fuzzer;
use wavejit_translator::isa::Gpu;

/// Executed wave instructions required per target.
const PER_TARGET: u64 = 500_000;

#[test]
fn engines_agree_on_random_programs() {
    let t0 = std::time::Instant::now();
    let mut total = 0;
    let mut failures = Vec::new();
    for (gpu, base) in [(Gpu::GFX942, 0x9420_0000u64), (Gpu::GFX950, 0x9500_0000)] {
        let mut f = Fuzzer::new(gpu);
        assert!(
            f.pool.decode_mismatches.is_empty(),
            "generated words that do not decode back:\n{}",
            f.pool.decode_mismatches.join("\n")
        );
        assert!(
            f.pool.cands.len() > 500,
            "only {} opcodes",
            f.pool.cands.len()
        );
        let mut seed = base;
        while f.totals.insts < PER_TARGET {
            if let Err(finding) = f.run_program(seed) {
                eprintln!("{finding}");
                failures.push(finding);
                if failures.len() >= 5 {
                    break;
                }
            }
            seed += 1;
        }
        assert!(
            f.pool.decode_mismatches.is_empty(),
            "generated words that do not decode back:\n{}",
            f.pool.decode_mismatches.join("\n")
        );
        let t = &f.totals;
        eprintln!(
            "{gpu}: {} opcodes, {} programs, {} instructions executed, {} blocks, {} ended in a fault",
            f.pool.cands.len(),
            t.programs,
            t.insts,
            t.blocks,
            t.faults
        );
        for (k, n) in &t.fault_kinds {
            eprintln!("  {n:>6} {k}");
        }
        total += t.insts;
    }
    assert!(failures.is_empty(), "{} engine differences", failures.len());
    assert!(total >= 1_000_000, "only {total} instructions");
    eprintln!(
        "{total} instructions executed in both engines in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
}
