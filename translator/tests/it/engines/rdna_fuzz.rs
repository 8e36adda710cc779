//! Differential fuzzing of the interpreter against the JIT on random RDNA programs
//! (`wavejit_translator::difffuzz::rdna`): gfx1100 and gfx1200, wave32 and wave64, a bounded
//! deterministic run per configuration. Any difference in exit, fault, wave state or memory
//! fails with the seed, the program and the first differing register.

use wavejit_translator::difffuzz::rdna::RdnaFuzzer;
use wavejit_translator::isa::{Gpu, Op};

/// Programs per configuration (each compiles its blocks in the JIT: about 0.2 s per program
/// on a loaded 2-core machine, so the four configurations take about 25 s). Longer runs:
/// `WAVEJIT_RDNA_FUZZ_PROGRAMS=N cargo test -p wavejit-translator --release --test rdna_fuzz`.
const PER_CONFIG: u64 = 30;

#[test]
fn engines_agree_on_random_rdna_programs() {
    let t0 = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut workgroups = 0;
    for (gpu, wave, base) in [
        (Gpu::GFX1100, 32, 0x1100_3200_0000u64),
        (Gpu::GFX1100, 64, 0x1100_6400_0000),
        (Gpu::GFX1200, 32, 0x1200_3200_0000),
        (Gpu::GFX1200, 64, 0x1200_6400_0000),
    ] {
        let mut f = RdnaFuzzer::new(gpu, wave);
        assert!(
            f.pool.len() > 300,
            "{gpu} wave{wave}: only {} pool instructions",
            f.pool.len()
        );
        // The hardware-register reads added to the oracle's instructions lift and are in the
        // pool: STATUS and the cycle counter (its low half on gfx12).
        for word in [
            0xb88af802u32,
            if gpu == Gpu::GFX1200 {
                0xb88ff81d
            } else {
                0xb88e981d
            },
        ] {
            assert!(
                f.pool.iter().any(|p| p.bytes == word.to_le_bytes()),
                "{gpu} wave{wave}: s_getreg_b32 {word:#x} not in the pool"
            );
        }
        let mut seed = base;
        let programs = std::env::var("WAVEJIT_RDNA_FUZZ_PROGRAMS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(PER_CONFIG);
        while f.programs < programs && failures.len() < 5 {
            if let Err(e) = f.run_program(seed) {
                eprintln!("{e}");
                failures.push(e);
            }
            seed += 1;
        }
        eprintln!(
            "{gpu} wave{wave}: {} pool instructions, {} programs ({} workgroups), {} instructions, {} distinct opcodes, {} faulted",
            f.pool.len(),
            f.programs,
            f.workgroups,
            f.insts,
            f.opcodes.len(),
            f.faults
        );
        workgroups += f.workgroups;
        // Most programs run to the end (a fault would hide the rest of the program).
        assert!(
            f.faults * 10 <= f.programs,
            "{} of {} programs faulted",
            f.faults,
            f.programs
        );
        assert!(
            programs < PER_CONFIG || f.opcodes.len() > 150,
            "only {} opcodes executed",
            f.opcodes.len()
        );
        // Memory and matrix instructions are in the pool and in the programs.
        let n = |set: &mut dyn Iterator<Item = Op>, p: &str| {
            set.filter(|o| o.name().starts_with(p)).count()
        };
        // (SWMMAC is RDNA4's.)
        let swmmac = if gpu == Gpu::GFX1200 {
            "v_swmmac"
        } else {
            "v_wmma"
        };
        // Buffer accesses (each with V#s in all four out-of-range modes), scalar buffer loads
        // (V#s with all, some or no dwords in range), ADDTID and (RDNA4) transposing loads.
        let tr = if gpu == Gpu::GFX1200 {
            "global_load_tr"
        } else {
            "global_load_addtid"
        };
        for p in [
            "s_load_",
            "s_buffer_load_",
            "ds_",
            "global_",
            "flat_",
            "scratch_",
            "v_wmma",
            swmmac,
            "buffer_load",
            "buffer_store",
            "buffer_atomic",
            "tbuffer_",
            "global_load_addtid",
            "global_store_addtid",
            tr,
        ] {
            let in_pool = n(&mut f.pool.iter().map(|i| i.op), p);
            assert!(
                in_pool > 0,
                "{gpu} wave{wave}: no {p} instructions in the pool"
            );
        }
        let mem = ["s_load_", "ds_", "global_", "flat_", "scratch_", "buffer_"]
            .iter()
            .map(|p| n(&mut f.opcodes.iter().copied(), p))
            .sum::<usize>();
        assert!(
            programs < PER_CONFIG || mem > 20,
            "{mem} memory opcodes executed"
        );
        // Branches, loops and calls are laid out right: no bad jumps or runaway loops.
        assert_eq!(
            f.layout_faults, 0,
            "{gpu} wave{wave}: bad jumps or runaways"
        );
        for op in [
            Op::S_CALL_B64,
            Op::S_SWAPPC_B64,
            Op::S_SETPC_B64,
            Op::S_GETPC_B64,
            Op::S_BRANCH,
            Op::S_CBRANCH_SCC1,
            Op::S_CBRANCH_EXECZ,
        ] {
            assert!(
                programs < PER_CONFIG || f.opcodes.contains(&op),
                "no {}",
                op.name()
            );
        }
    }
    assert!(failures.is_empty(), "{} engine differences", failures.len());
    // Some programs ran as multi-wave workgroups (an eighth of them).
    assert!(workgroups >= 4, "{workgroups} workgroup programs");
    eprintln!("done in {:.1} s", t0.elapsed().as_secs_f64());
}
