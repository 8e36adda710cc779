//! Kernels compute the same results whatever float state the launching thread has set
//! (flush-to-zero, denormals-are-zero, round toward zero), and the thread's state is
//! restored after the launch. The kernel is tests/kernels/gfx942/vadd.hsaco
//! (`c[i] = a[i] + b[i]` in f32, MODE with f32 denormals kept); the expected sums are the
//! host's IEEE round-to-nearest-even additions.

use std::hint::black_box;
use wavejit_runtime::code_object;
use wavejit_runtime::dispatch::float_env::{
    host_float_mode, set_host_float_mode, HostFloatMode, HostRounding,
};
use wavejit_runtime::dispatch::{launch, ArgValue, Geometry, LaunchParams};
use wavejit_runtime::memory::{CodeImage, DeviceMemory};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::Target;

/// (a, b) pairs: denormal inputs and results, and sums that round differently toward zero.
const PAIRS: &[(u32, u32)] = &[
    (0x0000_0001, 0x0000_0001), // min denormal + itself = 2^-148
    (0x0080_0000, 0x8040_0000), // 2^-126 - 2^-127 = 2^-127, a denormal result
    (0x0012_3457, 0x3f80_0000), // denormal input + 1.0 (1.0 either way)
    (0x0012_3457, 0x0000_00FF), // two denormals
    (0x3f80_0000, 0x33c0_0000), // 1 + 0.75 ulp: 1 + ulp to nearest, 1 toward zero
    (0xbf80_0000, 0xb3c0_0000), // the negative of the above
    (0x4049_0fdb, 0x3400_0001), // pi + a little over half an ulp: up to nearest, down toward 0
    (0x7f7f_ffff, 0x7380_0000), // max + half an ulp: a tie to even gives +inf, toward 0 max
];

fn host_sums() -> Vec<u32> {
    PAIRS
        .iter()
        .map(|&(a, b)| (black_box(f32::from_bits(a)) + black_box(f32::from_bits(b))).to_bits())
        .collect()
}

/// Runs vadd over 64 items (`PAIRS` repeated) and returns c.
fn run_vadd(engine: EngineKind, threads: usize) -> Vec<u32> {
    let mem = DeviceMemory::new();
    let co = code_object::load(
        include_bytes!("../../../tests/kernels/gfx942/vadd.hsaco"),
        None,
    )
    .expect("vadd loads");
    let base = mem.alloc_from(&co.image).expect("code upload");
    let code = CodeImage::new(base, co.image.clone(), co.exec_ranges.clone());
    let n = 64usize;
    let a: Vec<u32> = (0..n).map(|i| PAIRS[i % PAIRS.len()].0).collect();
    let b: Vec<u32> = (0..n).map(|i| PAIRS[i % PAIRS.len()].1).collect();
    let bytes = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let pa = mem.alloc_from(&bytes(&a)).expect("a");
    let pb = mem.alloc_from(&bytes(&b)).expect("b");
    let pc = mem.alloc_from(&bytes(&[0xA5A5_A5A5; 64])).expect("c"); // poisoned
    let k = co.kernel("vadd").expect("vadd kernel");
    let t = Translator::new(
        Target {
            gpu: co.gpu,
            wave_size: k.wave_size,
        },
        engine,
    )
    .expect("translator");
    let args = [
        ArgValue::Pointer(pa),
        ArgValue::Pointer(pb),
        ArgValue::Pointer(pc),
        ArgValue::I32(n as i32),
    ];
    let p = LaunchParams {
        kernel: k,
        gpu: co.gpu,
        code: &code,
        geometry: Geometry {
            grid: [n as u32, 1, 1],
            block: [32, 1, 1],
            dynamic_lds: 0,
        },
        args: &args,
        threads,
        budget: 1 << 30,
    };
    launch(&mem, &t, &p).expect("vadd runs");
    mem.read(pc, 4 * n)
        .expect("c")
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
        .collect()
}

#[test]
fn results_do_not_depend_on_the_callers_float_state() {
    assert_eq!(
        host_float_mode(),
        HostFloatMode::DEFAULT,
        "test thread starts at the default"
    );
    let want_pairs = host_sums();
    let want: Vec<u32> = (0..64).map(|i| want_pairs[i % PAIRS.len()]).collect();
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        assert_eq!(run_vadd(engine, 1), want, "{engine:?}, default state");
    }

    let odd = HostFloatMode {
        rounding: HostRounding::TowardZero,
        flush_to_zero: true,
        denormals_are_zero: true,
    };
    set_host_float_mode(odd);
    // The state is in effect on this thread: the host's own sums change.
    let odd_host = host_sums();
    assert_eq!(host_float_mode(), odd);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        assert_eq!(
            odd_host[0], 0,
            "FTZ/DAZ flushes the denormal sum on the host"
        );
        assert_eq!(odd_host[4], 0x3f80_0000, "round toward zero on the host");
    }
    let mut got = vec![];
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        for threads in [1, 2] {
            got.push((engine, threads, run_vadd(engine, threads)));
            // Every launch gives the caller its state back.
            assert_eq!(
                host_float_mode(),
                odd,
                "{engine:?}/{threads}: state restored"
            );
        }
    }
    set_host_float_mode(HostFloatMode::DEFAULT);
    assert_ne!(odd_host, want_pairs, "the odd state changes host results");
    for (engine, threads, c) in got {
        assert_eq!(c, want, "{engine:?} on {threads} threads under FTZ|DAZ|RZ");
    }
}
