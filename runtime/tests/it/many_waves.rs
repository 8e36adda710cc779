//! Many waves run back to back on one thread (the dispatcher's first round without the
//! scheduler, waves started in the compiled entry block with the memory windows carried
//! from wave to wave): a barrier, a fault and a budget exhaustion in one workgroup in the
//! middle of a launch give the host's results, and the interpreter engine's counters and
//! fault reports (workgroup, wave, lane, pc, cause), on one and two threads, for wave64
//! (gfx942) and wave32 (gfx1100).

use wavejit_runtime::code_object::{ArgInfo, ArgKind, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::{
    launch, ArgValue, Geometry, LaunchError, LaunchOutcome, LaunchParams, DEFAULT_BUDGET,
};
use wavejit_runtime::fault::FaultReport;
use wavejit_runtime::memory::{CodeImage, DeviceMemory};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::{Gpu, Target};

const ENTRY: u64 = 0x100;
const BLOCK: u32 = 256;
const GROUPS: u32 = 96;
/// The loop count of workgroup `k` (every other workgroup loops once).
const LONG: u32 = 40;

/// The kernel for gfx942 (wave64), encoded by `llvm-mc-22 -mcpu=gfx942` (offsets from
/// `llvm-objdump-22`). Arguments: `out`, `k`, `f`, `shift`. Work-item `g = s2 * 256 + v0`
/// computes `v = 3`, then `n` times `v += v0 + i` for `i = n..1` (`n` = 40 in workgroup
/// `k`, which also waits at a barrier in every iteration, else 1), and stores `v` at
/// `out + 4 g`, plus `shift` bytes in workgroup `f`.
#[rustfmt::skip]
const GFX942: &[u8] = &[
    0x00, 0x01, 0x0a, 0xc0, 0x00, 0x00, 0x00, 0x00, // 0x0: s_load_dwordx4 s[4:7], s[0:1], 0x0
    0x80, 0x02, 0x02, 0xc0, 0x10, 0x00, 0x00, 0x00, // 0x8: s_load_dword s10, s[0:1], 0x10
    0x02, 0x88, 0x08, 0x8e, // 0x10: s_lshl_b32 s8, s2, 8
    0x08, 0x00, 0x04, 0x68, // 0x14: v_add_u32_e32 v2, s8, v0
    0x82, 0x04, 0x04, 0x24, // 0x18: v_lshlrev_b32_e32 v2, 2, v2
    0x81, 0x00, 0x8b, 0xbe, // 0x1c: s_mov_b32 s11, 1
    0x83, 0x02, 0x02, 0x7e, // 0x20: v_mov_b32_e32 v1, 3
    0x7f, 0xc0, 0x8c, 0xbf, // 0x24: s_waitcnt lgkmcnt(0)
    0x02, 0x06, 0x07, 0xbf, // 0x28: s_cmp_lg_u32 s2, s6
    0x01, 0x00, 0x85, 0xbf, // 0x2c: s_cbranch_scc1 1
    0xa8, 0x00, 0x8b, 0xbe, // 0x30: s_mov_b32 s11, 40
    0x01, 0x00, 0xff, 0xd1, 0x01, 0x01, 0x2e, 0x00, // 0x34: v_add3_u32 v1, v1, v0, s11
    0x02, 0x06, 0x07, 0xbf, // 0x3c: s_cmp_lg_u32 s2, s6
    0x01, 0x00, 0x85, 0xbf, // 0x40: s_cbranch_scc1 1
    0x00, 0x00, 0x8a, 0xbf, // 0x44: s_barrier
    0x0b, 0x81, 0x8b, 0x80, // 0x48: s_sub_u32 s11, s11, 1
    0x0b, 0x80, 0x07, 0xbf, // 0x4c: s_cmp_lg_u32 s11, 0
    0xf8, 0xff, 0x85, 0xbf, // 0x50: s_cbranch_scc1 65528
    0x02, 0x07, 0x06, 0xbf, // 0x54: s_cmp_eq_u32 s2, s7
    0x0a, 0x80, 0x0a, 0x85, // 0x58: s_cselect_b32 s10, s10, 0
    0x0a, 0x04, 0x04, 0x68, // 0x5c: v_add_u32_e32 v2, s10, v2
    0x05, 0x02, 0x06, 0x7e, // 0x60: v_mov_b32_e32 v3, s5
    0x04, 0x04, 0x04, 0x32, // 0x64: v_add_co_u32_e32 v2, vcc, s4, v2
    0x80, 0x06, 0x06, 0x38, // 0x68: v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
    0x00, 0x80, 0x70, 0xdc, 0x02, 0x01, 0x7f, 0x00, // 0x6c: global_store_dword v[2:3], v1, off
    0x00, 0x00, 0x81, 0xbf, // 0x74: s_endpgm
];

/// The kernel for gfx1100 (wave32), encoded by `llvm-mc-22 -mcpu=gfx1100`.
#[rustfmt::skip]
const GFX1100: &[u8] = &[
    0x00, 0x01, 0x08, 0xf4, 0x00, 0x00, 0x00, 0xf8, // 0x0: s_load_b128 s[4:7], s[0:1], null
    0x80, 0x02, 0x00, 0xf4, 0x10, 0x00, 0x00, 0xf8, // 0x8: s_load_b32 s10, s[0:1], 0x10
    0x02, 0x88, 0x08, 0x84, // 0x10: s_lshl_b32 s8, s2, 8
    0x08, 0x00, 0x04, 0x4a, // 0x14: v_add_nc_u32_e32 v2, s8, v0
    0x82, 0x04, 0x04, 0x30, // 0x18: v_lshlrev_b32_e32 v2, 2, v2
    0x81, 0x00, 0x8b, 0xbe, // 0x1c: s_mov_b32 s11, 1
    0x83, 0x02, 0x02, 0x7e, // 0x20: v_mov_b32_e32 v1, 3
    0x07, 0xfc, 0x89, 0xbf, // 0x24: s_waitcnt lgkmcnt(0)
    0x02, 0x06, 0x07, 0xbf, // 0x28: s_cmp_lg_u32 s2, s6
    0x01, 0x00, 0xa2, 0xbf, // 0x2c: s_cbranch_scc1 1
    0xa8, 0x00, 0x8b, 0xbe, // 0x30: s_mov_b32 s11, 40
    0x01, 0x00, 0x55, 0xd6, 0x01, 0x01, 0x2e, 0x00, // 0x34: v_add3_u32 v1, v1, v0, s11
    0x02, 0x06, 0x07, 0xbf, // 0x3c: s_cmp_lg_u32 s2, s6
    0x01, 0x00, 0xa2, 0xbf, // 0x40: s_cbranch_scc1 1
    0x00, 0x00, 0xbd, 0xbf, // 0x44: s_barrier
    0x0b, 0x81, 0x8b, 0x80, // 0x48: s_sub_u32 s11, s11, 1
    0x0b, 0x80, 0x07, 0xbf, // 0x4c: s_cmp_lg_u32 s11, 0
    0xf8, 0xff, 0xa2, 0xbf, // 0x50: s_cbranch_scc1 65528
    0x02, 0x07, 0x06, 0xbf, // 0x54: s_cmp_eq_u32 s2, s7
    0x0a, 0x80, 0x0a, 0x98, // 0x58: s_cselect_b32 s10, s10, 0
    0x0a, 0x04, 0x04, 0x4a, // 0x5c: v_add_nc_u32_e32 v2, s10, v2
    0x05, 0x02, 0x06, 0x7e, // 0x60: v_mov_b32_e32 v3, s5
    0x02, 0x6a, 0x00, 0xd7, 0x04, 0x04, 0x02, 0x00, // 0x64: v_add_co_u32 v2, vcc_lo, s4, v2
    0x80, 0x06, 0x06, 0x40, // 0x6c: v_add_co_ci_u32_e32 v3, vcc_lo, 0, v3, vcc_lo
    0x00, 0x00, 0x6a, 0xdc, 0x02, 0x01, 0x7c, 0x00, // 0x70: global_store_b32 v[2:3], v1, off
    0x00, 0x00, 0xb0, 0xbf, // 0x78: s_endpgm
];

/// The kernels, with their targets and the offset of their `global_store`.
fn cases() -> [(Target, &'static [u8], u64); 2] {
    [
        (
            Target {
                gpu: Gpu::GFX942,
                wave_size: 64,
            },
            GFX942,
            0x6c,
        ),
        (
            Target {
                gpu: Gpu::GFX1100,
                wave_size: 32,
            },
            GFX1100,
            0x70,
        ),
    ]
}

fn kernel(wave_size: u32) -> KernelInfo {
    let arg = |name: &str, offset, size, kind| ArgInfo {
        name: Some(name.into()),
        offset,
        size,
        kind,
    };
    KernelInfo {
        name: "many_waves".into(),
        symbol_addr: ENTRY,
        kd_addr: 0x40,
        entry: ENTRY,
        descriptor: KernelDescriptor {
            // USER_SGPR_COUNT=2 (the kernarg pointer), workgroup id x; work-item id x.
            rsrc2: 2 << 1 | 1 << 7,
            // Kernarg pointer; wave32 (ENABLE_WAVEFRONT_SIZE32, bit 10) on gfx1100.
            kernel_code_properties: 0x0008 | if wave_size == 32 { 0x0400 } else { 0 },
            ..Default::default()
        },
        args: vec![
            arg("out", 0, 8, ArgKind::GlobalBuffer),
            arg("k", 8, 4, ArgKind::ByValue),
            arg("f", 12, 4, ArgKind::ByValue),
            arg("shift", 16, 4, ArgKind::ByValue),
        ],
        kernarg_size: 20,
        kernarg_align: 8,
        group_segment_fixed_size: 0,
        private_segment_fixed_size: 0,
        wave_size,
        sgpr_count: 16,
        vgpr_count: 4,
        agpr_count: 0,
        max_flat_workgroup_size: 1024,
        uses_dynamic_stack: false,
    }
}

fn code(kernel: &[u8]) -> CodeImage {
    let mut img = vec![0u8; 0x200];
    img[ENTRY as usize..ENTRY as usize + kernel.len()].copy_from_slice(kernel);
    #[allow(clippy::single_range_in_vec_init)]
    let exec = vec![0x100..0x200];
    CodeImage::new(0x10_0000, img, exec)
}

/// What work-item `v0` of workgroup `wg` stores (host computation of the kernel).
fn expected(wg: u32, v0: u32, k: u32) -> u32 {
    let n = if wg == k { LONG } else { 1 };
    (1..=n).fold(3u32, |v, i| v.wrapping_add(v0).wrapping_add(i))
}

/// One launch: workgroup `k` loops with barriers; work-items of workgroup `f` from its
/// item `fault_item` on store past the end of the (poisoned) output. Returns the outcome
/// (a fault's cause with the address past the output's end written `END`) and the output.
fn run(
    mem: &DeviceMemory,
    t: &Translator,
    target: Target,
    code: &CodeImage,
    (k, f, fault_item): (u32, u32, u32),
    threads: usize,
    budget: u64,
) -> (Result<LaunchOutcome, LaunchError>, Vec<u32>) {
    let items = GROUPS * BLOCK;
    let len = 4 * items;
    let out = mem.alloc_from(&vec![0xA5; len as usize]).unwrap();
    // Item `fault_item` of workgroup `f` stores at `out + len`, the first byte past the end.
    let shift = len.wrapping_sub(4u32.wrapping_mul(f.wrapping_mul(BLOCK) + fault_item));
    let args = [
        ArgValue::Pointer(out),
        ArgValue::U32(k),
        ArgValue::U32(f),
        ArgValue::U32(shift),
    ];
    let kinfo = kernel(target.wave_size);
    let p = LaunchParams {
        kernel: &kinfo,
        gpu: target.gpu,
        code,
        geometry: Geometry {
            grid: [GROUPS, 1, 1],
            block: [BLOCK, 1, 1],
            dynamic_lds: 0,
        },
        args: &args,
        threads,
        budget,
    };
    let end = format!("{:#x}", out + len as u64);
    let r = launch(mem, t, &p).map_err(|e| match e {
        LaunchError::Fault(mut f) => {
            f.cause = f.cause.replace(&end, "END");
            LaunchError::Fault(f)
        }
        e => e,
    });
    let bytes = mem.read(out, len as usize).unwrap();
    mem.free(out);
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (r, words)
}

/// The JIT translators as the runtime makes them (final writes elided), compiling blocks
/// once hot or on first use, with a name for messages.
fn jits(target: Target) -> Vec<(&'static str, Translator)> {
    vec![
        (
            "jit",
            Translator::new(target, EngineKind::Jit)
                .unwrap()
                .final_state_unread(),
        ),
        (
            "jit hot 0",
            Translator::new(target, EngineKind::Jit)
                .unwrap()
                .with_hot_threshold(0)
                .final_state_unread(),
        ),
    ]
}

fn interp(target: Target) -> Translator {
    Translator::new(target, EngineKind::Interp).unwrap()
}

/// A workgroup in the middle of the launch waits at a barrier 40 times: every work-item
/// stores what the host computes, and the counters equal the interpreter's for one and two
/// threads, in a first launch (the entry compiled during it) and a second.
#[test]
fn barrier_mid_run_gives_host_results_and_interpreter_counters() {
    let k = 37;
    for (target, bytes, _) in cases() {
        let code = code(bytes);
        let mem = DeviceMemory::new();
        let no_fault = (k, u32::MAX, 0);
        let (reference, _) = run(
            &mem,
            &interp(target),
            target,
            &code,
            no_fault,
            1,
            DEFAULT_BUDGET,
        );
        let reference = reference.unwrap();
        let waves_per_group = BLOCK.div_ceil(target.wave_size) as u64;
        assert_eq!(reference.waves, GROUPS as u64 * waves_per_group);
        // Workgroup k's waves ran their loop: 40 barriers each (the kernel's only control
        // instructions apart from branches and s_endpgm).
        assert!(
            reference.counters.control >= 40 * waves_per_group,
            "{reference:?}"
        );
        for (name, t) in jits(target) {
            for threads in [1, 2] {
                for launch_no in 0..2 {
                    let at = format!(
                        "{:?} {name}, {threads} threads, launch {launch_no}",
                        target.gpu
                    );
                    let (r, out) = run(&mem, &t, target, &code, no_fault, threads, DEFAULT_BUDGET);
                    let r = r.unwrap_or_else(|e| panic!("{at}: {e}"));
                    for (g, &w) in out.iter().enumerate() {
                        let (wg, v0) = (g as u32 / BLOCK, g as u32 % BLOCK);
                        assert_eq!(w, expected(wg, v0, k), "{at}: item {g}");
                    }
                    assert_eq!(r.waves, reference.waves, "{at}");
                    assert_eq!(r.counters, reference.counters, "{at}");
                }
            }
        }
    }
}

/// The fault a launch reported.
fn fault_of(r: Result<LaunchOutcome, LaunchError>, at: &str) -> FaultReport {
    match r {
        Err(LaunchError::Fault(f)) => *f,
        other => panic!("{at}: expected a fault, got {other:?}"),
    }
}

/// Work-item 165 of workgroup 50 (wave64: wave 2, lane 37; wave32: wave 5, lane 5) stores
/// out of bounds after the waves before it in its workgroup, and 50 workgroups before
/// those, ran to their end: JIT and interpreter report the same fault, the one the host
/// expects (workgroup, wave, lane, the store's pc).
#[test]
fn fault_mid_run_reports_what_the_interpreter_reports() {
    let (f, item) = (50, 165);
    for (target, bytes, store) in cases() {
        let code = code(bytes);
        let mem = DeviceMemory::new();
        let ws = target.wave_size;
        let case = (7, f, item);
        let (r, _) = run(
            &mem,
            &interp(target),
            target,
            &code,
            case,
            1,
            DEFAULT_BUDGET,
        );
        let reference = fault_of(r, "interpreter");
        assert_eq!(reference.workgroup, [f, 0, 0], "{reference:?}");
        assert_eq!(reference.wave, item / ws, "{reference:?}");
        assert_eq!(reference.lane, Some(item % ws), "{reference:?}");
        assert_eq!(reference.pc, ENTRY + store, "{reference:?}");
        assert!(reference.cause.contains("at END"), "{reference:?}");
        for (name, t) in jits(target) {
            for threads in [1, 2] {
                for launch_no in 0..2 {
                    let at = format!(
                        "{:?} {name}, {threads} threads, launch {launch_no}",
                        target.gpu
                    );
                    let (r, _) = run(&mem, &t, target, &code, case, threads, DEFAULT_BUDGET);
                    assert_eq!(fault_of(r, &at), reference, "{at}");
                }
            }
        }
    }
}

/// Workgroup 37's loop needs more than the per-wave budget of 100 instructions, which the
/// other workgroups' waves (about 30 instructions each) stay within: JIT and interpreter
/// report the same exhaustion (workgroup 37, wave 0, the same pc).
#[test]
fn budget_exhaustion_mid_run_reports_what_the_interpreter_reports() {
    let k = 37;
    for (target, bytes, _) in cases() {
        let code = code(bytes);
        let mem = DeviceMemory::new();
        let case = (k, u32::MAX, 0);
        let (r, _) = run(&mem, &interp(target), target, &code, case, 1, 100);
        let reference = fault_of(r, "interpreter");
        assert_eq!(reference.workgroup, [k, 0, 0], "{reference:?}");
        assert_eq!(reference.wave, 0, "{reference:?}");
        assert!(reference.cause.contains("100"), "{reference:?}");
        for (name, t) in jits(target) {
            for threads in [1, 2] {
                for launch_no in 0..2 {
                    let at = format!(
                        "{:?} {name}, {threads} threads, launch {launch_no}",
                        target.gpu
                    );
                    let (r, _) = run(&mem, &t, target, &code, case, threads, 100);
                    assert_eq!(fault_of(r, &at), reference, "{at}");
                }
            }
        }
    }
}
