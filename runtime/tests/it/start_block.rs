//! Waves started directly in the compiled entry block (`Translator::run_from`, used by the
//! dispatcher once the entry is compiled): results against the host's, counters and fault
//! reports equal to the interpreter engine's, cache hits equal to the run loop's, for waves
//! that end, wait at barriers or fault.

use wavejit_runtime::code_object::{self, CodeObject};
use wavejit_runtime::dispatch::wave_init::{init_wave, WaveInputs};
use wavejit_runtime::dispatch::{
    launch, launch_with, ArgValue, Geometry, LaunchError, LaunchOutcome, LaunchParams,
};
use wavejit_runtime::memory::{CodeImage, DeviceMemory, WaveMemEnv};
use wavejit_translator::exec::{EngineKind, StartBlockState, Translator};
use wavejit_translator::isa::Target;
use wavejit_translator::wave::WaveState;

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

fn upload(m: &DeviceMemory, v: &[u32]) -> u64 {
    m.alloc_from(&v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>())
        .unwrap()
}

fn words(m: &DeviceMemory, addr: u64, n: usize) -> Vec<u32> {
    m.read(addr, 4 * n)
        .unwrap()
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// How a launch runs its waves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    /// The interpreter engine.
    Interp,
    /// The JIT through the dispatcher's own runner (direct starts once compiled).
    Direct,
    /// The JIT with every wave through the run loop (`Translator::run`).
    RunLoop,
}

/// A translator for `name` (JIT ones compile on first use).
fn translator(l: &Loaded, name: &str, how: How) -> Translator {
    let k = l.co.kernel(name).unwrap();
    let engine = if how == How::Interp {
        EngineKind::Interp
    } else {
        EngineKind::Jit
    };
    Translator::new(
        Target {
            gpu: l.co.gpu,
            wave_size: k.wave_size,
        },
        engine,
    )
    .unwrap()
    .with_hot_threshold(0)
}

#[allow(clippy::too_many_arguments)]
/// Launches `name` twice on one translator with `threads` threads (the second launch
/// starts nearly every wave directly); returns both outcomes (or errors).
fn launch_twice(
    l: &Loaded,
    t: &Translator,
    name: &str,
    how: How,
    grid: u32,
    block: u32,
    args: &[ArgValue],
    threads: usize,
) -> Vec<Result<LaunchOutcome, LaunchError>> {
    let k = l.co.kernel(name).unwrap();
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
    let run_loop = |code: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, b: &mut u64| {
        t.run(code, st, env, b)
    };
    (0..2)
        .map(|_| {
            if how == How::RunLoop {
                let before = t.stats();
                launch_with(&l.mem, &run_loop, &p).map(|mut o| {
                    o.translation = t.stats().since(&before);
                    o
                })
            } else {
                launch(&l.mem, t, &p)
            }
        })
        .collect()
}

/// Whether the entry block of `name` is ready for direct starts on `t`.
fn entry_ready(l: &Loaded, t: &Translator, name: &str, wave_size: u32) -> bool {
    let k = l.co.kernel(name).unwrap();
    let entry = l.code.base() + k.entry;
    // The MODE waves start with (the descriptor's, by the dispatcher's reference).
    let mut st = WaveState::new_boxed(wave_size);
    let inputs = WaveInputs {
        block: [64, 1, 1],
        waves_per_group: 1,
        ..Default::default()
    };
    init_wave(
        &mut st,
        l.co.gpu,
        &k.descriptor,
        &inputs,
        &[],
        [0; 3],
        0,
        entry,
    )
    .unwrap();
    matches!(
        t.start_block(entry, st.mode, wave_size),
        StartBlockState::Ready(_)
    )
}

#[test]
fn direct_starts_match_the_interpreter_and_the_run_loop_for_vadd() {
    let objects: [&[u8]; 3] = [
        include_bytes!("../../../tests/kernels/gfx942/vadd.hsaco"),
        include_bytes!("../../../tests/kernels/gfx1100/vadd.hsaco"),
        include_bytes!("../../../tests/kernels/gfx1100w64/vadd.hsaco"),
    ];
    for bytes in objects {
        let l = load(bytes);
        let ws = l.co.kernel("vadd").unwrap().wave_size;
        let n = 300 * 64 - 20;
        let a: Vec<u32> = (0..n as u32)
            .map(|i| (i as f32 * 0.5 - 7.0).to_bits())
            .collect();
        let b: Vec<u32> = (0..n as u32)
            .map(|i| (3.25 - (i % 53) as f32).to_bits())
            .collect();
        let want: Vec<u32> = (0..n)
            .map(|i| (f32::from_bits(a[i]) + f32::from_bits(b[i])).to_bits())
            .collect();
        let (pa, pb) = (upload(&l.mem, &a), upload(&l.mem, &b));
        let mut seen = vec![];
        for how in [How::Interp, How::Direct, How::RunLoop] {
            let t = translator(&l, "vadd", how);
            let out = upload(&l.mem, &vec![0xA5A5_A5A5; n]);
            let args = [
                ArgValue::Pointer(pa),
                ArgValue::Pointer(pb),
                ArgValue::Pointer(out),
                ArgValue::I32(n as i32),
            ];
            for r in launch_twice(&l, &t, "vadd", how, 300, 64, &args, 1) {
                let r = r.unwrap();
                assert_eq!(words(&l.mem, out, n), want, "{:?} {how:?}", l.co.gpu);
                seen.push((how, r.counters, r.translation.cache_hits));
            }
            assert_eq!(
                entry_ready(&l, &t, "vadd", ws),
                how != How::Interp,
                "{how:?}"
            );
        }
        // Counters: every launch equal to the interpreter's.
        assert!(seen[0].1.vmem > 0);
        for s in &seen {
            assert_eq!(s.1, seen[0].1, "{:?} {:?}", l.co.gpu, s.0);
        }
        // Cache hits (one thread: with more, which thread lifts a block first varies):
        // direct starts count as the run loop's lookups would.
        assert_eq!(seen[2].2, seen[4].2, "{:?} first launch", l.co.gpu);
        assert_eq!(seen[3].2, seen[5].2, "{:?} second launch", l.co.gpu);
        assert!(seen[3].2 >= 300 * 64 / u64::from(ws));
    }
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

/// Waves that leave through barriers (and resume elsewhere than the entry), two threads.
#[test]
fn direct_starts_through_barriers_match_the_interpreter() {
    let l = load(include_bytes!(
        "../../../tests/kernels/gfx942/barrier_loop.hsaco"
    ));
    let (bs, groups, iters) = (200usize, 40u32, 4u32);
    let input: Vec<u32> = (0..bs as u32 * groups)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 5)
        .collect();
    let want = barrier_loop_ref(&input, bs, iters);
    let inb = upload(&l.mem, &input);
    let mut seen = vec![];
    for how in [How::Interp, How::Direct, How::RunLoop] {
        let t = translator(&l, "barrier_loop", how);
        let out = upload(&l.mem, &vec![0xA5A5_A5A5; input.len()]);
        let args = [
            ArgValue::Pointer(inb),
            ArgValue::Pointer(out),
            ArgValue::U32(iters),
        ];
        for r in launch_twice(&l, &t, "barrier_loop", how, groups, bs as u32, &args, 2) {
            let r = r.unwrap();
            assert_eq!(words(&l.mem, out, input.len()), want, "{how:?}");
            assert_eq!(r.waves, u64::from(groups) * 4);
            seen.push((how, r.counters, r.translation.cache_hits));
        }
        assert_eq!(entry_ready(&l, &t, "barrier_loop", 64), how != How::Interp);
    }
    assert!(seen[0].1.wave_insts() > 0);
    for s in &seen {
        assert_eq!(s.1, seen[0].1, "{:?}", s.0);
    }
}

/// A late wave faults after many waves started directly: the same report as the
/// interpreter's, and the workgroups before it stored their sums.
#[test]
fn a_fault_after_direct_starts_is_reported_like_the_interpreters() {
    let l = load(include_bytes!("../../../tests/kernels/gfx942/vadd.hsaco"));
    // Buffers of 6400 floats but n = 9000: workgroup 100 (items 6400..6464) faults on its
    // first lane's load.
    let len = 6400usize;
    let a = upload(&l.mem, &vec![0x3f80_0000; len]); // 1.0
    let mut reports = vec![];
    for how in [How::Interp, How::Direct, How::RunLoop] {
        let t = translator(&l, "vadd", how);
        let c = upload(&l.mem, &vec![0xA5A5_A5A5; len]);
        let args = [
            ArgValue::Pointer(a),
            ArgValue::Pointer(a),
            ArgValue::Pointer(c),
            ArgValue::I32(9000),
        ];
        for r in launch_twice(&l, &t, "vadd", how, 200, 64, &args, 1) {
            let e = r.unwrap_err();
            let LaunchError::Fault(f) = e else {
                panic!("expected a fault, got {e:?}")
            };
            assert_eq!(f.workgroup, [100, 0, 0], "{how:?}");
            assert_eq!((f.wave, f.lane), (0, Some(0)), "{how:?}");
            reports.push(f.to_string());
            // Workgroups 0..100 (all in range, one thread) finished with 2.0.
            let got = words(&l.mem, c, len);
            assert_eq!(got, vec![0x4000_0000; len], "{how:?}");
        }
    }
    assert!(reports[0].contains("out-of-range"), "{}", reports[0]);
    for r in &reports {
        assert_eq!(r, &reports[0]);
    }
}
