//! The launch path with scripted waves standing in for the translator: kernarg and SGPR/VGPR
//! inputs as executing code sees them, workgroups over threads, barriers, LDS, counters and
//! fault reports.

use wavejit_runtime::code_object::{ArgInfo, ArgKind, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::{
    launch_with, ArgValue, Geometry, LaunchError, LaunchParams, DEFAULT_BUDGET,
};
use wavejit_runtime::memory::{CodeImage, DeviceMemory, WaveMemEnv};
use wavejit_translator::env::{ExecFault, ExitCode, Space, WaveEnv};
use wavejit_translator::isa::Gpu;
use wavejit_translator::wave::{InstClass, WaveState};

const ENTRY: u64 = 0x100;

fn kernel(lds: u32) -> KernelInfo {
    let a = |name: &str, offset, size, kind| ArgInfo {
        name: Some(name.into()),
        offset,
        size,
        kind,
    };
    KernelInfo {
        name: "fake".into(),
        symbol_addr: ENTRY,
        kd_addr: 0x40,
        entry: ENTRY,
        descriptor: KernelDescriptor {
            // USER_SGPR_COUNT=2, workgroup ids x and y, work-item ids x and y.
            rsrc2: 2 << 1 | 1 << 7 | 1 << 8 | 1 << 11,
            kernel_code_properties: 0x0008,
            ..Default::default()
        },
        args: vec![
            a("out", 0, 8, ArgKind::GlobalBuffer),
            a("n", 8, 4, ArgKind::ByValue),
        ],
        kernarg_size: 16,
        kernarg_align: 8,
        group_segment_fixed_size: lds,
        private_segment_fixed_size: 0,
        wave_size: 64,
        sgpr_count: 8,
        vgpr_count: 4,
        agpr_count: 0,
        max_flat_workgroup_size: 1024,
        uses_dynamic_stack: false,
    }
}

fn code() -> CodeImage {
    // s_endpgm (BF810000) words in the executable range.
    let mut img = vec![0u8; 0x200];
    for w in img[0x100..].chunks_exact_mut(4) {
        w.copy_from_slice(&0xBF81_0000u32.to_le_bytes());
    }
    #[allow(clippy::single_range_in_vec_init)]
    let exec = vec![0x100..0x200];
    CodeImage::new(0x10_0000, img, exec)
}

fn params<'a>(
    k: &'a KernelInfo,
    code: &'a CodeImage,
    args: &'a [ArgValue],
    grid: [u32; 3],
    block: [u32; 3],
    threads: usize,
) -> LaunchParams<'a> {
    LaunchParams {
        kernel: k,
        gpu: Gpu::GFX942,
        code,
        geometry: Geometry {
            grid,
            block,
            dynamic_lds: 0,
        },
        args,
        threads,
        budget: DEFAULT_BUDGET,
    }
}

fn lanes(exec: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |l| exec >> l & 1 == 1)
}

/// Reads the kernarg segment through s[0:1] and stores `3 * gid + 1` at `out[gid]` for the
/// global 2-D index of each active lane (grid width `gw` work-items).
fn store_ids(
    st: &mut WaveState,
    env: &mut WaveMemEnv,
    block: [u32; 2],
    gw: u32,
) -> Result<ExitCode, ExecFault> {
    let mut ka = [0u32; 3];
    env.scalar_load(st.sgpr64(0), &mut ka)?;
    let out = ka[0] as u64 | (ka[1] as u64) << 32;
    let (mut addrs, mut data) = ([0u64; 64], [0u64; 64]);
    for l in lanes(st.exec()) {
        let v = st.vgpr[0][l];
        let x = st.sgpr[2] * block[0] + (v & 0x3ff);
        let y = st.sgpr[3] * block[1] + (v >> 10 & 0x3ff);
        let gid = y * gw + x;
        addrs[l] = out + 4 * gid as u64;
        data[l] = 3 * gid as u64 + 1;
    }
    env.store(Space::Global, &addrs, st.exec(), 4, &data)?;
    st.counters.by_class[InstClass::Vmem as usize] += 1;
    st.counters.by_class[InstClass::Smem as usize] += 1;
    st.counters.vector_insts += 1;
    st.counters.active_lanes += st.exec().count_ones() as u64;
    Ok(ExitCode::EndPgm)
}

#[test]
fn every_work_item_runs_once_with_its_ids() {
    let mem = DeviceMemory::new();
    let k = kernel(0);
    let code = code();
    // 2-D grid 5 x 3 groups of 48 x 2 items (96 items: one full and one partial wave).
    let (grid, block) = ([5, 3, 1], [48, 2, 1]);
    let (gw, gh) = (5 * 48, 3 * 2);
    let n = (gw * gh) as usize;
    let out = mem.alloc(4 * n).unwrap();
    mem.write(out, &vec![0xA5; 4 * n]).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(n as u32)];
    for threads in [1, 3] {
        let run = |_: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, _: &mut u64| {
            store_ids(st, env, [48, 2], gw)
        };
        let r = launch_with(&mem, &run, &params(&k, &code, &args, grid, block, threads)).unwrap();
        assert_eq!(r.workgroups, 15);
        assert_eq!(r.waves, 30);
        assert_eq!(r.counters.vmem, 30);
        assert_eq!(r.counters.wave_insts(), 60);
        assert_eq!(r.counters.active_lanes, n as u64);
        let bytes = mem.read(out, 4 * n).unwrap();
        for (i, w) in bytes.chunks_exact(4).enumerate() {
            assert_eq!(
                u32::from_le_bytes(w.try_into().unwrap()),
                3 * i as u32 + 1,
                "item {i}"
            );
        }
        mem.write(out, &vec![0xA5; 4 * n]).unwrap();
    }
}

#[test]
fn barriers_order_lds_exchange_between_waves() {
    let mem = DeviceMemory::new();
    let k = kernel(512);
    let code = code();
    let out = mem.alloc(4 * 128 * 4).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(512)];
    // Phase 0: lds[tid] = tid + 1000 * wg; barrier. Phase 1: out[gid] = lds[(tid + 64) % 128].
    let run = |_: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, _: &mut u64| {
        let exec = st.exec();
        let (mut a, mut d, mut o) = ([0u64; 64], [0u64; 64], [0u64; 64]);
        let wg = st.sgpr[2] as u64;
        let phase = (st.pc - (0x10_0000 + ENTRY)) / 4;
        for l in lanes(exec) {
            let tid = (st.vgpr[0][l] & 0x3ff) as u64;
            a[l] = 4 * if phase == 0 { tid } else { (tid + 64) % 128 };
            d[l] = tid + 1000 * wg;
        }
        st.pc += 4;
        if phase == 0 {
            env.store(Space::Lds, &a, exec, 4, &d)?;
            return Ok(ExitCode::Barrier);
        }
        env.load(Space::Lds, &a, exec, 4, &mut o)?;
        let mut ka = [0u32; 2];
        env.scalar_load(st.sgpr64(0), &mut ka)?;
        let base = ka[0] as u64 | (ka[1] as u64) << 32;
        for l in lanes(exec) {
            a[l] = base + 4 * (wg * 128 + (st.vgpr[0][l] & 0x3ff) as u64);
        }
        env.store(Space::Global, &a, exec, 4, &o)?;
        Ok(ExitCode::EndPgm)
    };
    launch_with(
        &mem,
        &run,
        &params(&k, &code, &args, [4, 1, 1], [128, 1, 1], 2),
    )
    .unwrap();
    let bytes = mem.read(out, 4 * 512).unwrap();
    for g in 0..4u32 {
        for t in 0..128u32 {
            let i = (g * 128 + t) as usize;
            let v = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(v, (t + 64) % 128 + 1000 * g, "wg {g} item {t}");
        }
    }
}

#[test]
fn out_of_range_store_reports_workgroup_wave_and_lane() {
    let mem = DeviceMemory::new();
    let k = kernel(0);
    let code = code();
    // Room for 100 of the 4 * 64 items: workgroup 1 (items 64..128) faults at item 100,
    // which is wave 0 lane 36 of that group.
    let out = mem.alloc(400).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(100)];
    let run = |_: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, _: &mut u64| {
        store_ids(st, env, [64, 1], 4 * 64)
    };
    let e = launch_with(
        &mem,
        &run,
        &params(&k, &code, &args, [4, 1, 1], [64, 1, 1], 1),
    )
    .unwrap_err();
    let LaunchError::Fault(f) = e else {
        panic!("expected a fault, got {e:?}")
    };
    assert_eq!(f.kernel, "fake");
    assert_eq!(f.workgroup, [1, 0, 0]);
    assert_eq!((f.wave, f.lane), (0, Some(36)));
    assert_eq!(f.pc, ENTRY);
    assert!(f.cause.contains("out-of-range"), "{}", f.cause);
    let text = f.to_string();
    assert!(
        text.starts_with("kernel fake faulted in workgroup (1,0,0) wave 0 lane 36 at pc 0x100: "),
        "{text}"
    );
    // Several threads: still a fault, in a workgroup at or after the first bad one.
    let e = launch_with(
        &mem,
        &run,
        &params(&k, &code, &args, [64, 1, 1], [64, 1, 1], 4),
    )
    .unwrap_err();
    let LaunchError::Fault(f) = e else {
        panic!("expected a fault")
    };
    assert!(f.workgroup[0] >= 1);
}

#[test]
fn runaway_waves_and_traps_are_faults() {
    let mem = DeviceMemory::new();
    let k = kernel(0);
    let code = code();
    let out = mem.alloc(64).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(1)];
    let spin = |_: &CodeImage, _: &mut WaveState, _: &mut WaveMemEnv, b: &mut u64| {
        if *b == 0 {
            return Err(ExecFault::Runaway(1000));
        }
        *b -= 1;
        Ok(ExitCode::Yield)
    };
    let mut p = params(&k, &code, &args, [1, 1, 1], [64, 1, 1], 1);
    p.budget = 1000;
    let LaunchError::Fault(f) = launch_with(&mem, &spin, &p).unwrap_err() else {
        panic!()
    };
    assert!(f.cause.contains("budget of 1000"), "{}", f.cause);
    let trap = |_: &CodeImage, st: &mut WaveState, _: &mut WaveMemEnv, _: &mut u64| {
        st.pc += 8;
        Ok(ExitCode::Trap)
    };
    let LaunchError::Fault(f) = launch_with(&mem, &trap, &p).unwrap_err() else {
        panic!()
    };
    assert_eq!((f.pc, f.lane), (ENTRY + 8, None));
    assert!(f.cause.contains("s_trap"));
}

#[test]
fn usage_errors_name_the_kernel() {
    let mem = DeviceMemory::new();
    let code = code();
    let out = mem.alloc(64).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(1)];
    let never = |_: &CodeImage,
                 _: &mut WaveState,
                 _: &mut WaveMemEnv,
                 _: &mut u64|
     -> Result<ExitCode, ExecFault> { panic!("must not run") };
    let k = kernel(0);
    let usage = |p: LaunchParams| match launch_with(&mem, &never, &p) {
        Err(LaunchError::Usage(m)) => m,
        other => panic!("expected a usage error, got {other:?}"),
    };
    let m = usage(params(&k, &code, &args, [1, 1, 1], [1025, 1, 1], 1));
    assert!(m.starts_with("kernel fake: workgroup of 1025"), "{m}");
    assert!(usage(params(&k, &code, &args, [0, 1, 1], [64, 1, 1], 1)).contains("at least 1"));
    let big = kernel(60 * 1024);
    let mut p = params(&big, &code, &args, [1, 1, 1], [64, 1, 1], 1);
    p.geometry.dynamic_lds = 8 * 1024;
    assert!(usage(p).contains("LDS"));
    let m = usage(params(&k, &code, &args[..1], [1, 1, 1], [64, 1, 1], 1));
    assert!(
        m.contains("expects 2 arguments (out: buffer 8, n: value 4), got 1"),
        "{m}"
    );
    // No temporary allocations are left behind.
    assert_eq!(mem.allocation_count(), 1);
}

#[test]
fn a_panicking_runner_becomes_a_fault() {
    let mem = DeviceMemory::new();
    let k = kernel(0);
    let code = code();
    let out = mem.alloc(64).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(1)];
    let boom = |_: &CodeImage,
                _: &mut WaveState,
                _: &mut WaveMemEnv,
                _: &mut u64|
     -> Result<ExitCode, ExecFault> { panic!("lifter bug") };
    let e = launch_with(
        &mem,
        &boom,
        &params(&k, &code, &args, [2, 1, 1], [64, 1, 1], 2),
    )
    .unwrap_err();
    let LaunchError::Fault(f) = e else {
        panic!("expected a fault")
    };
    assert!(
        f.cause.contains("translator panicked: lifter bug"),
        "{}",
        f.cause
    );
    // Huge private segments are a usage error, not an allocation failure.
    let mut big = kernel(0);
    big.private_segment_fixed_size = 1 << 20;
    let never =
        |_: &CodeImage, _: &mut WaveState, _: &mut WaveMemEnv, _: &mut u64| Ok(ExitCode::EndPgm);
    let e = launch_with(
        &mem,
        &never,
        &params(&big, &code, &args, [1, 1, 1], [1024, 1, 1], 1),
    )
    .unwrap_err();
    assert!(
        matches!(e, LaunchError::Usage(ref m) if m.contains("scratch")),
        "{e:?}"
    );
}

#[test]
fn dispatch_packet_and_queue_are_readable_device_memory() {
    use wavejit_runtime::code_object::HiddenArg;
    let mem = DeviceMemory::new();
    let code = code();
    let mut k = kernel(0);
    // COV4 style: dispatch ptr s[0:1], kernarg ptr s[2:3]; plus a hidden queue pointer.
    k.descriptor.kernel_code_properties = 0x000a;
    k.descriptor.rsrc2 = 4 << 1 | 1 << 7;
    k.args.push(ArgInfo {
        name: None,
        offset: 16,
        size: 8,
        kind: ArgKind::Hidden(HiddenArg::QueuePtr),
    });
    k.kernarg_size = 24;
    let out = mem.alloc(64).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(1)];
    let run = |_: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, _: &mut u64| {
        let mut pkt = [0u32; 16];
        env.scalar_load(st.sgpr64(0), &mut pkt)?;
        let mut ka = [0u32; 6];
        env.scalar_load(st.sgpr64(2), &mut ka)?;
        let queue = ka[4] as u64 | (ka[5] as u64) << 32;
        let mut q = [1u32; 64];
        env.scalar_load(queue, &mut q)?;
        let outp = ka[0] as u64 | (ka[1] as u64) << 32;
        // Record: workgroup size x/y (packet bytes 4..8), grid size x (bytes 12..16),
        // kernarg address (bytes 40..48) == s[2:3], queue all zero, workgroup id.
        let kernarg_ok = (pkt[10] as u64 | (pkt[11] as u64) << 32) == st.sgpr64(2);
        let vals = [
            pkt[1],
            pkt[3],
            kernarg_ok as u32,
            q.iter().all(|&w| w == 0) as u32,
            st.sgpr[4],
        ];
        let a = addrs4(outp + 20 * st.sgpr[4] as u64);
        let d = std::array::from_fn(|l| if l < 5 { vals[l] as u64 } else { 0 });
        env.store(Space::Global, &a, 0b11111, 4, &d)?;
        Ok(ExitCode::EndPgm)
    };
    launch_with(
        &mem,
        &run,
        &params(&k, &code, &args, [2, 1, 1], [48, 1, 1], 1),
    )
    .unwrap();
    let b = mem.read(out, 40).unwrap();
    let w: Vec<u32> = b
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // workgroup_size_x = 48, y = 1 -> 0x0001_0030; grid_size_x = 96 work-items.
    assert_eq!(&w[0..5], &[0x0001_0030, 96, 1, 1, 0]);
    assert_eq!(&w[5..10], &[0x0001_0030, 96, 1, 1, 1]);
}

/// Lane `l` addresses `base + 4 * l`.
fn addrs4(base: u64) -> [u64; 64] {
    std::array::from_fn(|l| base + 4 * l as u64)
}

#[test]
fn lds_is_static_plus_dynamic_bytes_and_zeroed_per_group() {
    let mem = DeviceMemory::new();
    let code = code();
    let k = kernel(256);
    let out = mem.alloc(4 * 3 * 4).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(0)];
    // Each group: read the last in-range word (must be 0: LDS is zeroed per group), write
    // it, read it back, and read the first out-of-range word (0 although written).
    let run = |_: &CodeImage, st: &mut WaveState, env: &mut WaveMemEnv, _: &mut u64| {
        let last = 256 + 1024 - 4;
        let a = std::array::from_fn(|l| if l == 0 { last } else { last + 4 });
        let mut before = [9u64; 64];
        env.load(Space::Lds, &a, 0b11, 4, &mut before)?;
        env.store(Space::Lds, &a, 0b11, 4, &[0x5151u64; 64])?;
        let mut after = [9u64; 64];
        env.load(Space::Lds, &a, 0b11, 4, &mut after)?;
        let mut ka = [0u32; 2];
        env.scalar_load(st.sgpr64(0), &mut ka)?;
        let o = (ka[0] as u64 | (ka[1] as u64) << 32) + 16 * st.sgpr[2] as u64;
        let vals = [before[0], after[0], before[1], after[1]];
        let d = std::array::from_fn(|l| if l < 4 { vals[l] } else { 0 });
        env.store(Space::Global, &addrs4(o), 0b1111, 4, &d)?;
        Ok(ExitCode::EndPgm)
    };
    let mut p = params(&k, &code, &args, [3, 1, 1], [64, 1, 1], 1);
    p.geometry.dynamic_lds = 1024;
    launch_with(&mem, &run, &p).unwrap();
    let b = mem.read(out, 48).unwrap();
    let w: Vec<u32> = b
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w, [0, 0x5151, 0, 0].repeat(3));
}

#[test]
fn a_fault_stops_long_running_workgroups_on_other_threads() {
    let mem = DeviceMemory::new();
    let k = kernel(0);
    let code = code();
    let out = mem.alloc(64).unwrap();
    let args = [ArgValue::Pointer(out), ArgValue::U32(1)];
    // Workgroup 0 faults at once; every other workgroup would spin for 2^40 instructions.
    let run = |_: &CodeImage, st: &mut WaveState, _: &mut WaveMemEnv, b: &mut u64| {
        if st.sgpr[2] == 0 {
            return Err(ExecFault::Unsupported("first".into()));
        }
        loop {
            if *b == 0 {
                return Err(ExecFault::Runaway(0));
            }
            *b -= 1;
        }
    };
    let mut p = params(&k, &code, &args, [2, 1, 1], [64, 1, 1], 2);
    p.budget = 1 << 40;
    let t = std::time::Instant::now();
    let LaunchError::Fault(f) = launch_with(&mem, &run, &p).unwrap_err() else {
        panic!()
    };
    assert_eq!(f.workgroup, [0, 0, 0]);
    assert!(f.cause.contains("first"));
    // Not a timing assertion on speed: 2^40 steps would take hours; this only checks that
    // the spinning group was stopped at all.
    assert!(t.elapsed().as_secs() < 600);
    // A single wave that really exceeds its budget reports the configured budget.
    p.budget = 3 << 24;
    let spin = |_: &CodeImage, _: &mut WaveState, _: &mut WaveMemEnv, b: &mut u64| loop {
        if *b == 0 {
            return Err(ExecFault::Runaway(0));
        }
        *b -= 1;
    };
    p.geometry.grid = [1, 1, 1];
    let LaunchError::Fault(f) = launch_with(&mem, &spin, &p).unwrap_err() else {
        panic!()
    };
    assert!(
        f.cause.contains(&format!("budget of {}", 3u64 << 24)),
        "{}",
        f.cause
    );
}
