//! Real gfx942 kernels (tests/kernels, built by clang-22) through the dispatcher and the
//! translator: results against host computations, fault reports, and counters that do not
//! depend on the engine or the thread count.

use wavejit_runtime::code_object::{self, CodeObject};
use wavejit_runtime::dispatch::{
    launch, ArgValue, Geometry, LaunchError, LaunchOutcome, LaunchParams,
};
use wavejit_runtime::memory::{CodeImage, DeviceMemory};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::Target;

struct Loaded {
    mem: DeviceMemory,
    co: CodeObject,
    code: CodeImage,
}

fn load(bytes: &[u8]) -> Loaded {
    let mem = DeviceMemory::new();
    let co = code_object::load(bytes, None).unwrap();
    let base = mem.alloc_from(&co.image).unwrap();
    let code = CodeImage::new(base, co.image.clone(), co.exec_ranges.clone());
    Loaded { mem, co, code }
}

fn run(
    l: &Loaded,
    name: &str,
    engine: EngineKind,
    grid: u32,
    block: u32,
    args: &[ArgValue],
    threads: usize,
) -> Result<LaunchOutcome, LaunchError> {
    let k = l.co.kernel(name).unwrap();
    let t = Translator::new(
        Target {
            gpu: l.co.gpu,
            wave_size: k.wave_size,
        },
        engine,
    )
    .unwrap();
    let p = LaunchParams {
        kernel: k,
        gpu: l.co.gpu,
        code: &l.code,
        geometry: Geometry {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dynamic_lds: 0,
        },
        args,
        threads,
        budget: 1 << 30,
    };
    launch(&l.mem, &t, &p)
}

fn words(m: &DeviceMemory, addr: u64, n: usize) -> Vec<u32> {
    m.read(addr, 4 * n)
        .unwrap()
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

fn upload(m: &DeviceMemory, v: &[u32]) -> u64 {
    m.alloc_from(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
        .unwrap()
}

#[test]
fn vadd_out_of_range_names_the_first_bad_lane_and_instruction() {
    let l = load(include_bytes!("../../../tests/kernels/gfx942/vadd.hsaco"));
    // 100 floats per buffer but n = 200: workgroup 1 (items 64..128) faults at item 100,
    // lane 36 of its only wave, on the first global load (llvm-objdump-22: 0x1e60).
    let a = upload(&l.mem, &[0x3f80_0000; 100]); // 1.0
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        let c = upload(&l.mem, &[0xA5A5_A5A5; 100]);
        let args = [
            ArgValue::Pointer(a),
            ArgValue::Pointer(a),
            ArgValue::Pointer(c),
            ArgValue::I32(200),
        ];
        let e = run(&l, "vadd", engine, 4, 64, &args, 1).unwrap_err();
        let LaunchError::Fault(f) = e else {
            panic!("expected a fault, got {e:?}")
        };
        assert_eq!(f.workgroup, [1, 0, 0]);
        assert_eq!((f.wave, f.lane), (0, Some(36)));
        assert_eq!(f.pc, 0x1e60);
        assert_eq!(f.instruction, "global_load_dword v6, v[4:5], off");
        assert!(f.to_string().starts_with(
            "kernel vadd faulted in workgroup (1,0,0) wave 0 lane 36 at pc 0x1e60: global_load_dword v6, v[4:5], off: out-of-range"
        ), "{f}");
        // Workgroup 0 finished (2.0); workgroup 1 faulted before its store and the launch
        // stopped there (one thread), so the rest keeps the poison.
        let got = words(&l.mem, c, 100);
        assert_eq!(got[..64], [0x4000_0000; 64]);
        assert_eq!(got[64..], [0xA5A5_A5A5; 36]);
    }
    assert_eq!(words(&l.mem, a, 100), vec![0x3f80_0000; 100]);
}

/// Host reference of barrier_loop (tests/kernels/src/barrier_loop.hip).
fn barrier_loop_ref(input: &[u32], bs: usize, iters: u32) -> Vec<u32> {
    let mut out = vec![];
    for g in input.chunks(bs) {
        let mut sh = g.to_vec();
        for s in 0..iters {
            let v: Vec<u32> = (0..bs)
                .map(|t| sh[(t + 1) % bs].wrapping_add(sh[t]))
                .collect();
            for t in 0..bs {
                sh[t] = v[t] ^ s;
            }
        }
        out.extend(sh);
    }
    out
}

#[test]
fn barriers_in_a_loop_with_a_partial_wave() {
    let l = load(include_bytes!(
        "../../../tests/kernels/gfx942/barrier_loop.hsaco"
    ));
    // 200 work-items per group: waves of 64, 64, 64 and 8 lanes.
    let (bs, groups, iters) = (200usize, 3u32, 5u32);
    let input: Vec<u32> = (0..bs as u32 * groups)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let want = barrier_loop_ref(&input, bs, iters);
    let inb = upload(&l.mem, &input);
    let mut counters = vec![];
    for (engine, threads) in [
        (EngineKind::Interp, 1),
        (EngineKind::Jit, 1),
        (EngineKind::Jit, 2),
    ] {
        let out = upload(&l.mem, &vec![0xA5A5_A5A5; input.len()]);
        let args = [
            ArgValue::Pointer(inb),
            ArgValue::Pointer(out),
            ArgValue::U32(iters),
        ];
        let r = run(
            &l,
            "barrier_loop",
            engine,
            groups,
            bs as u32,
            &args,
            threads,
        )
        .unwrap();
        assert_eq!(
            words(&l.mem, out, input.len()),
            want,
            "{engine:?} x{threads}"
        );
        assert_eq!((r.workgroups, r.waves), (3, 12));
        counters.push(r.counters);
    }
    assert!(counters[0].wave_insts() > 0);
    assert_eq!(counters[0], counters[1]);
    assert_eq!(counters[1], counters[2]);
}

#[test]
fn private_arrays_through_scratch_and_the_flat_aperture() {
    let l = load(include_bytes!(
        "../../../tests/kernels/gfx942/scratch.hsaco"
    ));
    let n = 150u32;
    let idx: Vec<u32> = (0..n).map(|i| i.wrapping_mul(7919) % 4096).collect();
    let seed = 0x1234_5678u32;
    let want: Vec<u32> = (0..n)
        .map(|i| {
            let mut arr: Vec<u32> = (0..64)
                .map(|k| i.wrapping_mul(k).wrapping_add(seed))
                .collect();
            let j = idx[i as usize];
            for r in 0..8u32 {
                let src = arr[((j.wrapping_mul(3)).wrapping_add(r) & 63) as usize];
                let d = ((j + r * 7) & 63) as usize;
                arr[d] = arr[d].wrapping_add(src);
            }
            arr[(j & 63) as usize] ^ arr[((j >> 6) & 63) as usize]
        })
        .collect();
    let ib = upload(&l.mem, &idx);
    for kernel in ["private_array", "private_flat"] {
        for engine in [EngineKind::Interp, EngineKind::Jit] {
            let out = upload(&l.mem, &vec![0xA5A5_A5A5; n as usize]);
            let args = [
                ArgValue::Pointer(ib),
                ArgValue::Pointer(out),
                ArgValue::U32(seed),
                ArgValue::U32(n),
            ];
            run(&l, kernel, engine, 3, 64, &args, 2).unwrap();
            assert_eq!(words(&l.mem, out, n as usize), want, "{kernel} {engine:?}");
        }
    }
}

#[test]
fn vadd_from_code_object_v4_v5_v6_and_a_bundle() {
    // COV4 reads blockDim from the dispatch packet (s[0:1]); COV5/6 from the hidden
    // group-size argument. 300 items in groups of 128: the last group is partly masked.
    let objects: [(&str, &[u8]); 4] = [
        ("v4", include_bytes!("../fixtures/vadd_gfx942_v4.hsaco")),
        ("v5", include_bytes!("../fixtures/vadd_gfx942_v5.hsaco")),
        ("v6", include_bytes!("../fixtures/vadd_gfx942_v6.hsaco")),
        ("bundle", include_bytes!("../fixtures/vadd_gfx942.bundle")),
    ];
    let n = 300usize;
    let a: Vec<u32> = (0..n).map(|i| (i as f32 * 1.5 - 7.0).to_bits()).collect();
    let b: Vec<u32> = (0..n)
        .map(|i| (1000.0 / (i as f32 + 1.0)).to_bits())
        .collect();
    let want: Vec<u32> = (0..n)
        .map(|i| (f32::from_bits(a[i]) + f32::from_bits(b[i])).to_bits())
        .collect();
    for (what, bytes) in objects {
        let l = load(bytes);
        let (ab, bb) = (upload(&l.mem, &a), upload(&l.mem, &b));
        for engine in [EngineKind::Interp, EngineKind::Jit] {
            let c = upload(&l.mem, &vec![0xA5A5_A5A5; n + 84]);
            let args = [
                ArgValue::Pointer(ab),
                ArgValue::Pointer(bb),
                ArgValue::Pointer(c),
                ArgValue::I32(n as i32),
            ];
            let r = run(&l, "vadd", engine, 3, 128, &args, 2).unwrap();
            assert_eq!((r.workgroups, r.waves), (3, 6), "{what}");
            let got = words(&l.mem, c, n + 84);
            assert_eq!(got[..n], want[..], "{what} {engine:?}");
            assert!(
                got[n..].iter().all(|&w| w == 0xA5A5_A5A5),
                "{what}: wrote past n"
            );
        }
    }
}

#[test]
fn gfx12_barrier_state_and_isfirst_across_the_waves_of_a_workgroup() {
    // barrier_state.hip: each wave stores the work-group barrier's state word before its
    // `s_barrier_signal_isfirst -1`, the SCC it got, and the state after the barrier. The
    // word is `{ signalCnt[22:16], memberCnt[10:4], valid[0] }` (RDNA4 ISA 5.6.2); waves run
    // in index order until they end or wait, so before the signal wave w sees w waves
    // waiting and wave 0 is first; after the release wave 0 runs to its end before wave 1
    // resumes, so the member count drops as the waves end. Both engines, 1 and 2 threads.
    let l = load(include_bytes!("../fixtures/barrier_state_gfx1200.hsaco"));
    let state = |signaled: u32, members: u32| signaled << 16 | members << 4 | 1;
    let want = [
        [state(0, 3), 1, state(0, 3)],
        [state(1, 3), 0, state(0, 2)],
        [state(2, 3), 0, state(0, 1)],
    ]
    .concat();
    for engine in [EngineKind::Interp, EngineKind::Jit] {
        for threads in [1, 2] {
            let out = upload(&l.mem, &[0xA5A5_A5A5; 9]);
            let r = run(
                &l,
                "barrier_state",
                engine,
                1,
                96,
                &[ArgValue::Pointer(out)],
                threads,
            )
            .unwrap();
            assert_eq!(r.waves, 3);
            assert_eq!(words(&l.mem, out, 9), want, "{engine:?} {threads} threads");
        }
    }
    // A work-group of one wave is not in a work-group for the barrier: state 0, SCC 0.
    let out = upload(&l.mem, &[0xA5A5_A5A5; 3]);
    run(
        &l,
        "barrier_state",
        EngineKind::Interp,
        1,
        32,
        &[ArgValue::Pointer(out)],
        1,
    )
    .unwrap();
    assert_eq!(words(&l.mem, out, 3), vec![0, 0, 0]);
}

#[test]
fn rdna_wave32_kernels_run_or_fault_cleanly() {
    // gfx1100 (workgroup id in s15 after USER_SGPR_COUNT padding) and gfx1200 (id in
    // ttmp9). Until the RDNA decoders exist the launch must end in a clean fault report at
    // the kernel's first instruction; once they exist, the results must be right.
    let objects: [(&str, &[u8]); 2] = [
        ("gfx1100", include_bytes!("../fixtures/vadd_gfx1100.hsaco")),
        ("gfx1200", include_bytes!("../fixtures/vadd_gfx1200.hsaco")),
    ];
    let n = 100usize;
    let a: Vec<u32> = (0..n).map(|i| (i as f32).to_bits()).collect();
    let want: Vec<u32> = (0..n).map(|i| (2.0 * i as f32).to_bits()).collect();
    for (what, bytes) in objects {
        let l = load(bytes);
        let k = l.co.kernel("vadd").unwrap();
        assert_eq!(k.wave_size, 32, "{what}");
        let ab = upload(&l.mem, &a);
        let c = upload(&l.mem, &vec![0xA5A5_A5A5; n]);
        let args = [
            ArgValue::Pointer(ab),
            ArgValue::Pointer(ab),
            ArgValue::Pointer(c),
            ArgValue::I32(n as i32),
        ];
        match run(&l, "vadd", EngineKind::Interp, 2, 64, &args, 1) {
            Ok(r) => {
                assert_eq!(r.waves, 4, "{what}");
                assert_eq!(words(&l.mem, c, n), want, "{what}");
            }
            Err(LaunchError::Fault(f)) => {
                assert_eq!((f.workgroup, f.wave), ([0, 0, 0], 0), "{what}: {f}");
                assert_eq!(f.pc, k.entry, "{what}: {f}");
                assert!(
                    f.to_string()
                        .starts_with("kernel vadd faulted in workgroup (0,0,0) wave 0 at pc 0x"),
                    "{f}"
                );
                assert_eq!(words(&l.mem, c, n), vec![0xA5A5_A5A5; n], "{what}");
            }
            Err(e) => panic!("{what}: unexpected {e:?}"),
        }
    }
}

/// The hand-written kernels whose descriptors leave kernarg_size 0 (`fixtures/kernarg0.s`)
/// run with the metadata's kernarg segment, on both engines, and the generic-target build as
/// gfx942. Expected values are the kernels' formulas computed on the host.
#[test]
fn kernels_with_descriptor_kernarg_size_zero_run() {
    for fixture in [
        &include_bytes!("../fixtures/kernarg0_gfx942_v5.hsaco")[..],
        &include_bytes!("../fixtures/kernarg0_gfx9_4_generic.hsaco")[..],
    ] {
        let l = load(fixture);
        for engine in [EngineKind::Interp, EngineKind::Jit] {
            let out = upload(&l.mem, &[0xdead_beef; 64]);
            run(
                &l,
                "fill",
                engine,
                64,
                64,
                &[ArgValue::Pointer(out), ArgValue::U32(1000)],
                1,
            )
            .unwrap();
            let want: Vec<u32> = (0..64).map(|i| 1000 + i).collect();
            assert_eq!(words(&l.mem, out, 64), want, "fill {engine:?}");

            let input: Vec<u32> = (0..64).map(|i| 7 * i + 3).collect();
            let inp = upload(&l.mem, &input);
            let out = upload(&l.mem, &[0xdead_beef; 64]);
            run(
                &l,
                "twice",
                engine,
                64,
                64,
                &[ArgValue::Pointer(out), ArgValue::Pointer(inp)],
                1,
            )
            .unwrap();
            let want: Vec<u32> = input
                .iter()
                .enumerate()
                .map(|(i, &x)| if i < 32 { 2 * x } else { x })
                .collect();
            assert_eq!(words(&l.mem, out, 64), want, "twice {engine:?}");
        }
    }
}
