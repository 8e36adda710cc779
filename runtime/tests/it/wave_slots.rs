//! Reuse of wave state slots and work distribution: a wave whose slot an earlier wave (of
//! this launch or another) used starts from the initial state the descriptor defines; faults
//! and panics in any wave of a reused slot name their workgroup and wave; counters do not
//! depend on the thread count.

use std::sync::Mutex;

use wavejit_runtime::code_object::{self, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::wave_init::{init_wave, WaveInputs, WaveTemplate};
use wavejit_runtime::dispatch::{
    launch, launch_with, ArgValue, Geometry, LaunchError, LaunchParams, DEFAULT_BUDGET,
};
use wavejit_runtime::memory::{CodeImage, DeviceMemory, WaveMemEnv};
use wavejit_translator::env::{ExecFault, ExitCode};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::{
    sreg, InstClass, RegSet, WaveState, AGPR_BASE, MAX_LANES, NUM_VREGS,
};

const ENTRY: u64 = 0x100;
const POISON: u32 = 0xDEAD_BEEF;

/// A kernel using v0..v5 and a0..a2, with workgroup ids x, y and the workgroup info SGPR.
fn kernel() -> KernelInfo {
    KernelInfo {
        name: "slots".into(),
        symbol_addr: ENTRY,
        kd_addr: 0x40,
        entry: ENTRY,
        descriptor: KernelDescriptor {
            // USER_SGPR_COUNT=2, workgroup ids x and y, workgroup info, work-item ids x, y.
            rsrc2: 2 << 1 | 1 << 7 | 1 << 8 | 1 << 10 | 1 << 11,
            kernel_code_properties: 0x0008,
            ..Default::default()
        },
        args: vec![],
        kernarg_size: 0,
        kernarg_align: 8,
        group_segment_fixed_size: 0,
        private_segment_fixed_size: 0,
        wave_size: 64,
        sgpr_count: 8,
        vgpr_count: 6,
        agpr_count: 3,
        max_flat_workgroup_size: 1024,
        uses_dynamic_stack: false,
    }
}

fn code() -> CodeImage {
    // s_endpgm words in the executable range.
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
        args: &[],
        threads,
        budget: DEFAULT_BUDGET,
    }
}

/// What is wrong with `st` as the start of wave `wave` of workgroup (`wx`, `wy`) of a
/// `block`-sized 2-D workgroup of [`kernel`] (computed here from the descriptor's rules,
/// lane by lane), or `None`.
fn wrong_start(st: &WaveState, block: [u32; 2], waves: u32) -> Option<String> {
    let info = st.sgpr[4];
    // The wave index, from lane 0's ids (checked lane by lane below).
    let Some(wave) = (0..waves).find(|&w| {
        let item = w * 64;
        st.vgpr[0][0] == (item % block[0]) | (item / block[0]) << 10
    }) else {
        return Some(format!("v0 lane 0 = {:#x}: no wave's", st.vgpr[0][0]));
    };
    let want_info = if wave == 0 { 1 << 31 } else { 0 } | waves;
    if info != want_info {
        return Some(format!("workgroup info {info:#x}, want {want_info:#x}"));
    }
    let items = block[0] * block[1];
    let mut want_exec = 0u64;
    for lane in 0..MAX_LANES as u32 {
        let item = wave * 64 + lane;
        let want = if item < items {
            want_exec |= 1 << lane;
            (item % block[0]) | (item / block[0]) << 10
        } else {
            0
        };
        if st.vgpr[0][lane as usize] != want {
            return Some(format!(
                "v0 lane {lane}: {:#x}, want {want:#x}",
                st.vgpr[0][lane as usize]
            ));
        }
    }
    if st.exec() != want_exec {
        return Some(format!("exec {:#x}", st.exec()));
    }
    for r in (1..6).chain(AGPR_BASE..AGPR_BASE + 3) {
        if let Some(l) = st.vgpr[r].iter().position(|&v| v != 0) {
            return Some(format!("register {r} lane {l} = {:#x}", st.vgpr[r][l]));
        }
    }
    for (i, &s) in st.sgpr.iter().enumerate() {
        let allowed =
            matches!(i, 0..=4) || i == sreg::EXEC_LO as usize || i == sreg::EXEC_HI as usize;
        if !allowed && s != 0 {
            return Some(format!("s{i} = {s:#x}"));
        }
    }
    if st.scc != 0 || st.status != 0 || st.trapsts != 0 || st.credit != 0 {
        return Some("scc/status/trapsts/credit not cleared".into());
    }
    if st.pc != code().base() + ENTRY {
        return Some(format!("pc {:#x}", st.pc));
    }
    None
}

/// Writes the poison into every register of the wave (the used ones and beyond), its flags
/// and counters, as a kernel writing all of them would leave its slot.
fn poison(st: &mut WaveState) {
    for r in 0..NUM_VREGS {
        st.vgpr[r] = [POISON; MAX_LANES];
    }
    st.sgpr = [POISON; 128];
    st.scc = 1;
    st.status = POISON;
    st.trapsts = POISON;
    st.credit = 77;
    st.counters.by_class[InstClass::Valu as usize] = 1000;
    st.counters.active_lanes = 1000;
}

/// Poisons the registers of `written` (all lanes), and the scalar state.
fn poison_only(st: &mut WaveState, written: &RegSet) {
    for r in written.vgprs() {
        st.vgpr[r] = [POISON; MAX_LANES];
    }
    for c in written.sgprs() {
        st.sgpr[c] = POISON;
    }
    st.scc = 1;
    st.status = POISON;
    st.trapsts = POISON;
    st.credit = 77;
    st.counters.by_class[InstClass::Valu as usize] = 1000;
    st.counters.active_lanes = 1000;
}

#[test]
fn reused_slots_start_with_used_registers_cleared() {
    let mem = DeviceMemory::new();
    let k = kernel();
    let code = code();
    // 40 groups of 24 x 7 = 168 items: waves of 64, 64 and 40 lanes (v0 wraps in x).
    let (grid, block) = ([8, 5, 1], [24, 7, 1]);
    for threads in [1, 2] {
        let errors = Mutex::new(Vec::new());
        let seen = Mutex::new(Vec::new());
        let run = |_: &CodeImage, st: &mut WaveState, _: &mut WaveMemEnv, _: &mut u64| {
            if let Some(e) = wrong_start(st, [24, 7], 3) {
                errors.lock().unwrap().push(e);
            }
            seen.lock()
                .unwrap()
                .push((st.sgpr[2], st.sgpr[3], st.vgpr[0][0]));
            // The counters as an engine leaves them: one instruction added to what the
            // slot's earlier waves counted (the dispatcher sums each slot once).
            let mut counters = st.counters;
            poison(st);
            counters.by_class[InstClass::Valu as usize] += 1;
            st.counters = counters;
            Ok(ExitCode::EndPgm)
        };
        let r = launch_with(&mem, &run, &params(&k, &code, grid, block, threads)).unwrap();
        // Twice: the second launch gets the slots the first left poisoned.
        let r2 = launch_with(&mem, &run, &params(&k, &code, grid, block, threads)).unwrap();
        let errors = errors.into_inner().unwrap();
        assert!(
            errors.is_empty(),
            "{} waves started wrong, first: {:?}",
            errors.len(),
            &errors[..errors.len().min(3)]
        );
        assert_eq!((r.workgroups, r.waves, r.counters.valu), (40, 120, 120));
        assert_eq!(r.counters, r2.counters);
        let mut seen = seen.into_inner().unwrap();
        seen.sort();
        let mut want: Vec<_> = (0..2)
            .flat_map(|_| (0..5u32).flat_map(|y| (0..8u32).map(move |x| (x, y))))
            .flat_map(|(x, y)| [(x, y, 0), (x, y, 16 | 2 << 10), (x, y, 8 | 5 << 10)])
            .collect();
        want.sort();
        assert_eq!(seen, want, "{threads} threads");
    }
}

#[test]
fn a_fault_in_a_late_wave_of_a_reused_slot_names_it() {
    let mem = DeviceMemory::new();
    let k = kernel();
    let code = code();
    // 300 groups of three waves; wave 2 of group 217 (x 17, y 10) faults.
    let (grid, block) = ([20, 15, 1], [24, 7, 1]);
    for threads in [1, 2, 3] {
        let run = |_: &CodeImage, st: &mut WaveState, _: &mut WaveMemEnv, _: &mut u64| {
            poison(st);
            Ok(ExitCode::EndPgm)
        };
        let faulty = |c: &CodeImage, st: &mut WaveState, e: &mut WaveMemEnv, b: &mut u64| {
            if (st.sgpr[2], st.sgpr[3], st.sgpr[4]) == (17, 10, 3) && st.vgpr[0][0] == 8 | 5 << 10 {
                st.pc += 12;
                return Err(ExecFault::Unsupported("boom".into()));
            }
            run(c, st, e, b)
        };
        let p = params(&k, &code, grid, block, threads);
        let LaunchError::Fault(f) = launch_with(&mem, &faulty, &p).unwrap_err() else {
            panic!()
        };
        assert_eq!(
            (f.workgroup, f.wave, f.pc),
            ([17, 10, 0], 2, ENTRY + 12),
            "{threads}"
        );
        assert!(f.cause.contains("boom"), "{}", f.cause);
        // A panic in the same wave becomes its fault too.
        let panics = |c: &CodeImage, st: &mut WaveState, e: &mut WaveMemEnv, b: &mut u64| {
            if (st.sgpr[2], st.sgpr[3], st.sgpr[4]) == (17, 10, 3) && st.vgpr[0][0] == 8 | 5 << 10 {
                st.pc += 4;
                panic!("scripted");
            }
            run(c, st, e, b)
        };
        let LaunchError::Fault(f) = launch_with(&mem, &panics, &p).unwrap_err() else {
            panic!()
        };
        assert_eq!(
            (f.workgroup, f.wave, f.pc),
            ([17, 10, 0], 2, ENTRY + 4),
            "{threads}"
        );
        assert!(f.cause.contains("panicked: scripted"), "{}", f.cause);
    }
}

/// The launch's precomputed start state equals [`init_wave`]'s for every wave, for GFX9,
/// GFX11 and GFX12 descriptors, 1-D to 3-D workgroups and partial waves, whatever the slot
/// held before.
#[test]
fn template_start_matches_init_wave() {
    let kds = [
        // gfx942: kernarg ptr, wg ids x y z, info, work-item ids x y z.
        (
            Gpu::GFX942,
            KernelDescriptor {
                rsrc1: 0x00af_0000,
                rsrc2: 2 << 1 | 0b111 << 7 | 1 << 10 | 2 << 11,
                kernel_code_properties: 0x0008,
                ..Default::default()
            },
        ),
        // gfx1100: dispatch ptr + kernarg ptr, padded to 15, wg id x.
        (
            Gpu::GFX1100,
            KernelDescriptor {
                rsrc1: 0xe0af_0000,
                rsrc2: 15 << 1 | 1 << 7 | 1 << 11,
                kernel_code_properties: 0x040A,
                ..Default::default()
            },
        ),
        // gfx1200: ids in TTMPs.
        (
            Gpu::GFX1200,
            KernelDescriptor {
                rsrc1: 0x6000_0000,
                rsrc2: 2 << 1 | 0b111 << 7 | 2 << 11,
                kernel_code_properties: 0x0408,
                ..Default::default()
            },
        ),
    ];
    for (gpu, kd) in kds {
        for ws in [32u32, 64] {
            for block in [[256, 1, 1], [20, 3, 2], [7, 5, 3], [1, 1, 1]] {
                let items: u32 = block.iter().product();
                let waves = items.div_ceil(ws);
                let inputs = WaveInputs {
                    kernarg: 0x7fff_0000_1000,
                    dispatch_ptr: 0x7fff_0000_2000,
                    block,
                    waves_per_group: waves,
                    ..Default::default()
                };
                let entry = 0x55_0100;
                let t = WaveTemplate::new(gpu, &kd, &inputs, &[], ws, (6, 2), &[], entry).unwrap();
                // The registers earlier waves wrote, as a translator reports them.
                let mut written = RegSet::default();
                for r in [1, 2, 5, 9, AGPR_BASE + 1] {
                    written.add_vgpr(r);
                }
                for c in [0, 1, 3, 7, 20, 35, 40, 106, 107, 124, 126, 127] {
                    written.add_sgpr(c);
                }
                let lanes = ws as usize;
                for (plan, what) in [
                    (t.reset_plan(None), "unknown writes"),
                    (t.reset_plan(Some(&written)), "known writes"),
                ] {
                    let mut slot = WaveState::new_boxed(ws);
                    for wg in [[0, 0, 0], [3, 9, 1], [70000, 2, 65000]] {
                        for w in 0..waves {
                            if what == "unknown writes" {
                                poison(&mut slot);
                            } else {
                                poison_only(&mut slot, &written);
                            }
                            let carried = slot.counters;
                            t.start_wave(&mut slot, wg, w as usize, &plan);
                            let mut want = WaveState::new_boxed(ws);
                            init_wave(&mut want, gpu, &kd, &inputs, &[], wg, w, entry).unwrap();
                            let ctx = format!("{gpu:?} w{ws} {block:?} wg {wg:?} wave {w}, {what}");
                            assert_eq!(slot.sgpr, want.sgpr, "{ctx}");
                            // The kernel's registers (6 VGPRs, 2 AGPRs) after unknown
                            // writes, every register after known ones; a wave32 wave's
                            // lanes 0..31.
                            let regs: Vec<usize> = if what == "unknown writes" {
                                (0..6).chain(AGPR_BASE..AGPR_BASE + 2).collect()
                            } else {
                                (0..NUM_VREGS).collect()
                            };
                            for r in regs {
                                assert_eq!(
                                    slot.vgpr[r][..lanes],
                                    want.vgpr[r][..lanes],
                                    "{ctx}: register slot {r}"
                                );
                            }
                            assert_eq!(
                                (slot.mode, slot.pc, slot.wave_size, slot.scc, slot.credit),
                                (want.mode, want.pc, want.wave_size, 0, 0),
                                "{ctx}"
                            );
                            // Carried over: the dispatcher sums them per slot.
                            assert_eq!(slot.counters, carried, "{ctx}");
                        }
                    }
                }
            }
        }
    }
    // The same errors as init_wave's: user SGPRs beyond USER_SGPR_COUNT.
    let bad = KernelDescriptor {
        rsrc2: 1 << 1,
        kernel_code_properties: 0x0008 | 0x0002,
        ..Default::default()
    };
    let inputs = WaveInputs {
        block: [64, 1, 1],
        waves_per_group: 1,
        ..Default::default()
    };
    let e = WaveTemplate::new(Gpu::GFX942, &bad, &inputs, &[], 64, (4, 0), &[], 0)
        .err()
        .unwrap();
    let mut st = WaveState::new_boxed(64);
    let e2 = init_wave(&mut st, Gpu::GFX942, &bad, &inputs, &[], [0; 3], 0, 0).unwrap_err();
    assert_eq!(e, e2);
}

/// vadd over many more workgroups than threads (so the workgroups are handed out in chunks
/// and every slot is reused): the sums against the host's, and counters identical for 1, 2
/// and 3 threads, for wave64 (gfx942) and wave32 (gfx1100).
#[test]
fn vadd_counters_do_not_depend_on_the_thread_count() {
    let objects: [&[u8]; 2] = [
        include_bytes!("../../../tests/kernels/gfx942/vadd.hsaco"),
        include_bytes!("../../../tests/kernels/gfx1100/vadd.hsaco"),
    ];
    for bytes in objects {
        let mem = DeviceMemory::new();
        let co = code_object::load(bytes, None).unwrap();
        let base = mem.alloc_from(&co.image).unwrap();
        let code = CodeImage::new(base, co.image.clone(), co.exec_ranges.clone());
        let k = co.kernel("vadd").unwrap();
        // 777 groups of 96 items minus a partial tail: n is not a multiple of the block.
        let n = 777 * 96 - 50;
        let a: Vec<f32> = (0..n).map(|i| (i as f32) * 0.25 - 3.0).collect();
        let b: Vec<f32> = (0..n).map(|i| 1.5 - (i % 97) as f32).collect();
        let bytes_of = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>();
        let (pa, pb) = (
            mem.alloc_from(&bytes_of(&a)).unwrap(),
            mem.alloc_from(&bytes_of(&b)).unwrap(),
        );
        let mut counters = vec![];
        for threads in [1, 2, 3] {
            let t = Translator::new(
                Target {
                    gpu: co.gpu,
                    wave_size: k.wave_size,
                },
                EngineKind::Jit,
            )
            .unwrap()
            .with_hot_threshold(2);
            let pc = mem.alloc_from(&vec![0xA5; 4 * n]).unwrap();
            let args = [
                ArgValue::Pointer(pa),
                ArgValue::Pointer(pb),
                ArgValue::Pointer(pc),
                ArgValue::U32(n as u32),
            ];
            let p = LaunchParams {
                kernel: k,
                gpu: co.gpu,
                code: &code,
                geometry: Geometry {
                    grid: [777, 1, 1],
                    block: [96, 1, 1],
                    dynamic_lds: 0,
                },
                args: &args,
                threads,
                budget: 1 << 30,
            };
            let r = launch(&mem, &t, &p).unwrap();
            let out = mem.read(pc, 4 * n).unwrap();
            for (i, w) in out.chunks_exact(4).enumerate() {
                let got = f32::from_le_bytes(w.try_into().unwrap());
                assert_eq!(
                    got.to_bits(),
                    (a[i] + b[i]).to_bits(),
                    "{:?} item {i}",
                    co.gpu
                );
            }
            assert_eq!(r.workgroups, 777);
            assert!(r.translation.blocks_compiled > 0);
            counters.push(r.counters);
        }
        assert!(counters[0].vmem > 0);
        assert_eq!(counters[0], counters[1], "{:?}", co.gpu);
        assert_eq!(counters[0], counters[2], "{:?}", co.gpu);
    }
}
