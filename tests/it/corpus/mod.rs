//! Corpus tests: every bundled kernel (tests/kernels/src/*.hip), in its gfx942 and its gfx950
//! build, run through the public Device API under the interpreter and the JIT, each checked
//! against a host reference, plus a differential test per target requiring bit-identical outputs
//! and identical counters from both engines. The Triton kernels (tests/kernels/triton/, gfx942
//! and gfx950 builds) and the MFMA tiles (tests/kernels/matrix/) run the same way. The RDNA builds (wave32 and wave64) run in
//! `rdna_corpus_correct_or_unsupported`: correct, or a clean unsupported-instruction fault.

mod cases;
mod harness;
mod matrix;
mod rdna;
mod triton;

/// The HIP corpus cases, the MFMA tiles and the Triton kernels, under one path for the macro
/// below.
mod all_cases {
    pub use super::cases::*;
    pub use super::matrix::*;
    pub use super::triton::*;
}

use harness::{Ctx, Outcome};
use std::panic::{catch_unwind, AssertUnwindSafe};
use wavejit::Engine;

macro_rules! corpus_cases {
    ($($case:ident),* $(,)?) => {
        /// Each case under the IR interpreter (gfx942 builds).
        mod interp {
            $(#[test]
            fn $case() {
                super::all_cases::$case(&super::harness::Ctx::new(wavejit::Engine::Interp));
            })*
        }
        /// Each case under the Cranelift JIT (gfx942 builds).
        mod jit {
            $(#[test]
            fn $case() {
                super::all_cases::$case(&super::harness::Ctx::new(wavejit::Engine::Jit));
            })*
        }
        /// Each case's gfx950 (CDNA4) build under the IR interpreter.
        mod interp_gfx950 {
            $(#[test]
            fn $case() {
                super::run_gfx950(stringify!($case), super::all_cases::$case, wavejit::Engine::Interp);
            })*
        }
        /// Each case's gfx950 (CDNA4) build under the Cranelift JIT.
        mod jit_gfx950 {
            $(#[test]
            fn $case() {
                super::run_gfx950(stringify!($case), super::all_cases::$case, wavejit::Engine::Jit);
            })*
        }
        /// Every case, for the differential test.
        const ALL: &[(&str, fn(&Ctx))] = &[$((stringify!($case), all_cases::$case)),*];
    };
}

corpus_cases!(
    vadd,
    saxpy,
    index2d,
    index3d,
    int_ops32,
    int_ops64,
    float_ops,
    float_specials,
    double_ops,
    double_specials,
    convert,
    convert_specials,
    divergent,
    lds_reduce,
    dyn_lds_reverse,
    wave_ops,
    wave_scan,
    atomics,
    private_array,
    private_flat,
    mem_widths,
    block_scan,
    barrier_loop,
    alu_fma,
    triton_add,
    triton_softmax,
    triton_layernorm,
    triton_row_reduce,
    triton_masked_tile,
    triton_matmul,
    mfma_32x32x8_f16,
    mfma_16x16x16_f16,
    mfma_16x16x32_fp8,
    mfma_16x16x32_i8,
    mfma_16x16x32_f16_bf16_gfx950,
);

/// Known gfx950 lifter gaps: (case, the instruction its gfx950 build stops at). Such a case must
/// fault with exactly that unsupported instruction (so it is reported, not skipped); once the
/// instruction lifts, its test fails until the entry is removed and the case runs normally.
const GFX950_GAPS: &[(&str, &str)] = &[];

/// The text of a caught panic.
fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".into())
}

/// Runs `case` on the gfx950 builds under `engine`, or checks its known gap (`GFX950_GAPS`).
fn run_gfx950(name: &str, case: fn(&Ctx), engine: Engine) {
    let ctx = Ctx::on(engine, "gfx950");
    let Some((_, inst)) = GFX950_GAPS.iter().find(|(c, _)| *c == name) else {
        return case(&ctx);
    };
    match catch_unwind(AssertUnwindSafe(|| case(&ctx))) {
        Ok(()) => panic!("{name} now runs on gfx950: remove it from GFX950_GAPS"),
        Err(p) => {
            let msg = panic_text(p);
            assert!(
                msg.contains(&format!("unsupported instruction: {inst}")),
                "{name} on gfx950: expected the known gap {inst}, got: {msg}"
            );
        }
    }
}

/// Runs `case` in differential mode under `engine` on the `target` builds; a panic (launch
/// failure) becomes an error.
fn run_diff(case: fn(&Ctx), engine: Engine, target: &'static str) -> Result<Outcome, String> {
    let ctx = Ctx::differential(engine, target);
    catch_unwind(AssertUnwindSafe(|| case(&ctx))).map_err(panic_text)?;
    Ok(ctx.take())
}

/// Interpreter and JIT (both single-threaded, so waves run in the same order) must produce
/// bit-identical output memory and identical counters for every kernel.
#[test]
fn differential_interp_vs_jit() {
    differential("gfx942");
}

/// The differential test on the gfx950 builds.
#[test]
fn differential_interp_vs_jit_gfx950() {
    differential("gfx950");
}

fn differential(target: &'static str) {
    let mut failures = Vec::new();
    for (name, case) in ALL {
        if target == "gfx950" && GFX950_GAPS.iter().any(|(c, _)| c == name) {
            continue; // checked by the jit_gfx950/interp_gfx950 tests
        }
        let (i, j) = match (
            run_diff(*case, Engine::Interp, target),
            run_diff(*case, Engine::Jit, target),
        ) {
            (Ok(i), Ok(j)) => (i, j),
            (i, j) => {
                failures.push(format!("{name}: interp {:?} / jit {:?}", i.err(), j.err()));
                continue;
            }
        };
        for ((label, a), (_, b)) in i.outputs.iter().zip(&j.outputs) {
            if a != b {
                let at = a
                    .iter()
                    .zip(b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                failures.push(format!("{name}: output {label} differs first at byte {at}"));
            }
        }
        if i.counters != j.counters {
            failures.push(format!(
                "{name}: counters differ: interp {:?} jit {:?}",
                i.counters, j.counters
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{target}: {} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Profiling (one-instruction blocks, every execution counted) changes no output and no
/// counter of any kernel (JIT, gfx942 and gfx1100 wave32 builds; the profile's counts sum to the
/// wave-instruction counter, checked by the harness).
#[test]
fn profiled_equals_plain() {
    let (mut failures, mut skipped) = (Vec::new(), Vec::new());
    for target in ["gfx942", "gfx1100"] {
        for (name, case) in ALL {
            let run = |profile: bool| -> Result<Outcome, String> {
                let mut ctx = Ctx::differential(Engine::Jit, target);
                ctx.profile = profile;
                catch_unwind(AssertUnwindSafe(|| case(&ctx))).map_err(panic_text)?;
                Ok(ctx.take())
            };
            match (run(false), run(true)) {
                (Ok(a), Ok(b)) => {
                    if a.outputs != b.outputs || a.counters != b.counters {
                        failures.push(format!("{target} {name}: profiled run differs"));
                    }
                }
                // Cases without a build for gfx1100 (the MFMA ones) fail both ways alike.
                (Err(_), Err(_)) if target != "gfx942" => skipped.push(*name),
                (a, b) => failures.push(format!(
                    "{target} {name}: plain {:?} / profiled {:?}",
                    a.err(),
                    b.err()
                )),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Only the MFMA cases have no gfx1100 build; every other case ran on both targets.
    assert!(skipped.iter().all(|n| n.starts_with("mfma")), "{skipped:?}");
}

/// A kernel launched with the wrong arguments is a usage error naming the kernel, not a crash.
#[test]
fn wrong_arguments_are_usage_errors() {
    let ctx = Ctx::new(Engine::Interp);
    let k = ctx.kernel("vadd");
    let l = wavejit::Launch::new([1, 1, 1], [64, 1, 1]).arg(wavejit::Arg::U32(1));
    match ctx.dev.launch(&k, &l) {
        Err(wavejit::Error::Usage(msg)) => assert!(msg.contains("vadd"), "{msg}"),
        other => panic!("expected a usage error, got {other:?}"),
    }
}

/// Every bundled object (each bundled target's build) loads and exposes exactly the kernels
/// the registry lists.
#[test]
fn bundled_objects_load() {
    let dev = wavejit::Device::new();
    for (o, t) in wavejit_workloads::corpus::OBJECTS.iter().flat_map(|o| {
        wavejit_workloads::corpus::TARGETS
            .iter()
            .map(move |t| (o, *t))
    }) {
        let bytes = o.for_target(t).unwrap();
        let m = dev
            .load_module(bytes)
            .unwrap_or_else(|e| panic!("{} {t}: {e}", o.name));
        let mut names = m.kernel_names();
        names.sort();
        let mut want: Vec<String> = o.kernels.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(names, want, "{} {t}", o.name);
    }
}

/// A real kernel reading past its buffers faults with a message naming the kernel, the
/// workgroup and the faulting instruction, under both engines.
#[test]
fn out_of_bounds_access_faults() {
    for engine in [Engine::Interp, Engine::Jit] {
        let ctx = Ctx::new(engine);
        let k = ctx.kernel("vadd");
        let small = ctx.input(&[1.5f32; 64]);
        let out = ctx.output::<f32>(64);
        let l = wavejit::Launch::new([4, 1, 1], [256, 1, 1])
            .engine(engine)
            .arg(wavejit::Arg::Buffer(small))
            .arg(wavejit::Arg::Buffer(small))
            .arg(wavejit::Arg::Buffer(out))
            .arg(wavejit::Arg::I32(1000));
        match ctx.dev.launch(&k, &l) {
            Err(wavejit::Error::Fault(f)) => {
                assert_eq!(f.kernel, "vadd", "{f}");
                assert!(f.lane.is_some(), "{f}");
                assert!(f.instruction.starts_with("global_load_dword"), "{f}");
                let msg = f.to_string();
                assert!(msg.contains("vadd") && msg.contains("workgroup"), "{msg}");
            }
            other => panic!("{engine:?}: expected a fault, got {other:?}"),
        }
    }
}

/// Triton's objects name their target in the newer LLVM spelling
/// (`amdgpu9.42-amd-amdhsa-unknown-gfx942`): accepted when it names the ELF header's GPU, and a
/// load error when it names another one (the same bytes with the GPU name patched).
#[test]
fn triton_target_spelling_is_checked() {
    let dev = wavejit::Device::new();
    let ok = include_bytes!("../../kernels/triton/gfx942/add_f32.hsaco");
    assert!(dev.load_module(ok).is_ok());
    let needle = b"amdgpu9.42-amd-amdhsa-unknown-gfx942";
    let at = ok
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the metadata names the target");
    let mut bad = ok.to_vec();
    bad[at + needle.len() - 3..at + needle.len()].copy_from_slice(b"950");
    match dev.load_module(&bad) {
        Err(wavejit::Error::Load(e)) => assert!(e.to_string().contains("gfx950"), "{e}"),
        other => panic!("expected a load error, got {:?}", other.err()),
    }
}

/// A corpus case: runs under the context's engine and target, panics on a mismatch.
type Case = fn(&Ctx);

/// Cases of the RDNA builds only (the WMMA tiles), for the RDNA status test.
const RDNA_ONLY: &[(&str, Case)] = &[
    ("wmma_f16", matrix::wmma_f16),
    ("wmma_bf16", matrix::wmma_bf16),
    ("wmma_iu8", matrix::wmma_iu8),
    ("wmma_fp8", matrix::wmma_fp8),
];

/// Cases whose host reference assumes 64-lane waves (`wave_ops` reads lanes 32..63 and sums
/// whole wave64s): not run on the RDNA wave32 builds.
const WAVE64_ONLY: &[&str] = &["wave_ops"];

/// The RDNA builds of every case (the gfx1100/gfx1200/gfx1201 Triton kernels, the WMMA tiles) under both
/// engines: each must match its host reference; a clean "unsupported instruction" stop, a
/// wrong result, another error or a crash fails. Prints per target how many pass and, per
/// mnemonic, how many runs stopped at an unsupported instruction.
#[test]
fn rdna_corpus_correct_or_unsupported() {
    // The expected faults would each print a panic message: silence this test's thread only.
    let me = std::thread::current().name().map(str::to_string);
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name().map(str::to_string) != me {
            default(info);
        }
    }));
    let mut failures = Vec::new();
    for &target in rdna::TARGETS {
        let mut passed = 0;
        let mut unsupported: std::collections::BTreeMap<String, usize> = Default::default();
        for engine in [Engine::Interp, Engine::Jit] {
            for (name, case) in ALL.iter().chain(RDNA_ONLY) {
                let wave32 = !target.ends_with("w64");
                let triton = name.starts_with("triton_");
                // The MFMA tiles are CDNA code (RDNA's WMMA tiles are not run yet).
                if (wave32 && WAVE64_ONLY.contains(name))
                    || (*name == "wmma_fp8" && target.starts_with("gfx11"))
                    || (triton && !wave32)
                    || name.starts_with("mfma_")
                {
                    continue;
                }
                let ctx = Ctx::on(engine, target);
                let msg = match catch_unwind(AssertUnwindSafe(|| case(&ctx))) {
                    Ok(()) => {
                        passed += 1;
                        continue;
                    }
                    Err(p) => panic_text(p),
                };
                match msg.split_once("unsupported instruction: ") {
                    Some((_, rest)) if msg.contains("launch failed") => {
                        let inst = rest.split_whitespace().next().unwrap_or(rest).to_string();
                        // Every RDNA corpus kernel runs now: a stop is a regression.
                        failures.push(format!("{target} {engine:?} {name}: unsupported {inst}"));
                        *unsupported.entry(inst).or_default() += 1;
                    }
                    _ => failures.push(format!("{target} {engine:?} {name}: {msg}")),
                }
            }
        }
        println!(
            "{target}: {passed} case runs match the host reference; unsupported: {unsupported:?}"
        );
    }
    let _ = std::panic::take_hook();
    assert!(
        failures.is_empty(),
        "{} RDNA case runs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
