//! The memory environment follows the wave in a run of waves: when the dispatcher runs a
//! workgroup's waves back to back in the compiled entry block (one JIT context for all of
//! them), each wave still gets its own environment state (the clock starts again from
//! zero, its scratch and barrier view are its own). The kernel reads the clock in its entry
//! block, in 2-D workgroups whose last wave is partial, for wave64 (gfx942) and wave32
//! (gfx1100) on one and two threads.

use wavejit_runtime::code_object::{ArgInfo, ArgKind, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::{
    launch, ArgValue, Geometry, LaunchOutcome, LaunchParams, DEFAULT_BUDGET,
};
use wavejit_runtime::memory::{CodeImage, DeviceMemory};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::{Gpu, Target};

const ENTRY: u64 = 0x100;
const GROUPS: u32 = 64;
/// 168 work-items: waves of 64, 64 and 40 lanes (wave64), 5 of 32 and one of 8 (wave32).
const BLOCK: [u32; 3] = [24, 7, 1];
const ITEMS: u32 = 24 * 7;
/// The environment clock's first reading in a wave (`WaveMemEnv::clock`: 64 per reading,
/// from zero at the wave's start).
const FIRST_CLOCK: u32 = 64;

/// The kernel for gfx942 (wave64), encoded by `llvm-mc-22 -mcpu=gfx942` (offsets from
/// `llvm-objdump-22`). Argument: `out`. Work-item `(x, y)` of workgroup `wg` (v0 packed
/// `x | y << 10`) stores `clock + v0` at `out + 4 (wg * 168 + y * 24 + x)`, `clock` being
/// the low dword of the wave's first clock reading.
#[rustfmt::skip]
const GFX942: &[u8] = &[
    0x00, 0x01, 0x06, 0xc0, 0x00, 0x00, 0x00, 0x00, // 0x0: s_load_dwordx2 s[4:5], s[0:1], 0x0
    0x80, 0x01, 0x90, 0xc0, 0x00, 0x00, 0x00, 0x00, // 0x8: s_memtime s[6:7]
    0x02, 0xff, 0x08, 0x92, 0xa8, 0x00, 0x00, 0x00, // 0x10: s_mul_i32 s8, s2, 0xa8
    0xff, 0x00, 0x02, 0x26, 0xff, 0x03, 0x00, 0x00, // 0x18: v_and_b32_e32 v1, 0x3ff, v0
    0x02, 0x00, 0xc8, 0xd1, 0x00, 0x15, 0x29, 0x02, // 0x20: v_bfe_u32 v2, v0, 10, 10
    0x01, 0x00, 0xc3, 0xd1, 0x02, 0x31, 0x05, 0x04, // 0x28: v_mad_u32_u24 v1, v2, 24, v1
    0x08, 0x02, 0x02, 0x68, // 0x30: v_add_u32_e32 v1, s8, v1
    0x82, 0x02, 0x02, 0x24, // 0x34: v_lshlrev_b32_e32 v1, 2, v1
    0x7f, 0xc0, 0x8c, 0xbf, // 0x38: s_waitcnt lgkmcnt(0)
    0x06, 0x00, 0x04, 0x68, // 0x3c: v_add_u32_e32 v2, s6, v0
    0x05, 0x02, 0x06, 0x7e, // 0x40: v_mov_b32_e32 v3, s5
    0x04, 0x02, 0x08, 0x32, // 0x44: v_add_co_u32_e32 v4, vcc, s4, v1
    0x80, 0x06, 0x0a, 0x38, // 0x48: v_addc_co_u32_e32 v5, vcc, 0, v3, vcc
    0x00, 0x80, 0x70, 0xdc, 0x04, 0x02, 0x7f, 0x00, // 0x4c: global_store_dword v[4:5], v2, off
    0x00, 0x00, 0x81, 0xbf, // 0x54: s_endpgm
];

/// The kernel for gfx1100 (wave32), encoded by `llvm-mc-22 -mcpu=gfx1100`; the clock is
/// `s_sendmsg_rtn_b64 GET_REALTIME`.
#[rustfmt::skip]
const GFX1100: &[u8] = &[
    0x00, 0x01, 0x04, 0xf4, 0x00, 0x00, 0x00, 0xf8, // 0x0: s_load_b64 s[4:5], s[0:1], null
    0x83, 0x4d, 0x86, 0xbe, // 0x8: s_sendmsg_rtn_b64 s[6:7], sendmsg(MSG_RTN_GET_REALTIME)
    0x02, 0xff, 0x08, 0x96, 0xa8, 0x00, 0x00, 0x00, // 0xc: s_mul_i32 s8, s2, 0xa8
    0xff, 0x00, 0x02, 0x36, 0xff, 0x03, 0x00, 0x00, // 0x14: v_and_b32_e32 v1, 0x3ff, v0
    0x02, 0x00, 0x10, 0xd6, 0x00, 0x15, 0x29, 0x02, // 0x1c: v_bfe_u32 v2, v0, 10, 10
    0x01, 0x00, 0x0b, 0xd6, 0x02, 0x31, 0x05, 0x04, // 0x24: v_mad_u32_u24 v1, v2, 24, v1
    0x08, 0x02, 0x02, 0x4a, // 0x2c: v_add_nc_u32_e32 v1, s8, v1
    0x82, 0x02, 0x02, 0x30, // 0x30: v_lshlrev_b32_e32 v1, 2, v1
    0x07, 0xfc, 0x89, 0xbf, // 0x34: s_waitcnt lgkmcnt(0)
    0x06, 0x00, 0x04, 0x4a, // 0x38: v_add_nc_u32_e32 v2, s6, v0
    0x05, 0x02, 0x06, 0x7e, // 0x3c: v_mov_b32_e32 v3, s5
    0x04, 0x6a, 0x00, 0xd7, 0x04, 0x02, 0x02, 0x00, // 0x40: v_add_co_u32 v4, vcc_lo, s4, v1
    0x80, 0x06, 0x0a, 0x40, // 0x48: v_add_co_ci_u32_e32 v5, vcc_lo, 0, v3, vcc_lo
    0x00, 0x00, 0x6a, 0xdc, 0x04, 0x02, 0x7c, 0x00, // 0x4c: global_store_b32 v[4:5], v2, off
    0x00, 0x00, 0xb0, 0xbf, // 0x54: s_endpgm
];

fn cases() -> [(Target, &'static [u8]); 2] {
    [
        (
            Target {
                gpu: Gpu::GFX942,
                wave_size: 64,
            },
            GFX942,
        ),
        (
            Target {
                gpu: Gpu::GFX1100,
                wave_size: 32,
            },
            GFX1100,
        ),
    ]
}

fn kernel(wave_size: u32) -> KernelInfo {
    KernelInfo {
        name: "wave_env".into(),
        symbol_addr: ENTRY,
        kd_addr: 0x40,
        entry: ENTRY,
        descriptor: KernelDescriptor {
            // USER_SGPR_COUNT=2 (the kernarg pointer), workgroup id x; work-item ids x and
            // y (ENABLE_VGPR_WORKITEM_ID = 1).
            rsrc2: 2 << 1 | 1 << 7 | 1 << 11,
            // Kernarg pointer; wave32 (ENABLE_WAVEFRONT_SIZE32, bit 10) on gfx1100.
            kernel_code_properties: 0x0008 | if wave_size == 32 { 0x0400 } else { 0 },
            ..Default::default()
        },
        args: vec![ArgInfo {
            name: Some("out".into()),
            offset: 0,
            size: 8,
            kind: ArgKind::GlobalBuffer,
        }],
        kernarg_size: 8,
        kernarg_align: 8,
        group_segment_fixed_size: 0,
        private_segment_fixed_size: 0,
        wave_size,
        sgpr_count: 16,
        vgpr_count: 6,
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

/// One launch into a poisoned output; the outcome and the output.
fn run(
    mem: &DeviceMemory,
    t: &Translator,
    target: Target,
    code: &CodeImage,
    threads: usize,
) -> (LaunchOutcome, Vec<u32>) {
    let len = 4 * GROUPS * ITEMS;
    let out = mem.alloc_from(&vec![0xA5; len as usize]).unwrap();
    let kinfo = kernel(target.wave_size);
    let p = LaunchParams {
        kernel: &kinfo,
        gpu: target.gpu,
        code,
        geometry: Geometry {
            grid: [GROUPS, 1, 1],
            block: BLOCK,
            dynamic_lds: 0,
        },
        args: &[ArgValue::Pointer(out)],
        threads,
        budget: DEFAULT_BUDGET,
    };
    let r = launch(mem, t, &p).unwrap_or_else(|e| panic!("{:?}: {e}", target.gpu));
    let bytes = mem.read(out, len as usize).unwrap();
    mem.free(out);
    let words = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (r, words)
}

/// Every work-item stores its wave's first clock reading (the host's: the clock restarts
/// with each wave) plus its packed ids; the counters equal the interpreter engine's. JIT
/// translators compiling the entry once hot and on first use, one and two threads, a first
/// launch (the entry compiled during it) and a second.
#[test]
fn each_wave_of_a_run_starts_its_own_environment() {
    for (target, bytes) in cases() {
        let code = code(bytes);
        let mem = DeviceMemory::new();
        let interp = Translator::new(target, EngineKind::Interp).unwrap();
        let (reference, ref_out) = run(&mem, &interp, target, &code, 1);
        let translators = [
            ("jit", Translator::new(target, EngineKind::Jit).unwrap()),
            (
                "jit hot 0",
                Translator::new(target, EngineKind::Jit)
                    .unwrap()
                    .with_hot_threshold(0),
            ),
        ];
        for (name, t) in translators {
            let t = t.final_state_unread();
            for threads in [1, 2] {
                for launch_no in 0..2 {
                    let at = format!(
                        "{:?} {name}, {threads} threads, launch {launch_no}",
                        target.gpu
                    );
                    let (r, out) = run(&mem, &t, target, &code, threads);
                    for (g, &w) in out.iter().enumerate() {
                        let item = g as u32 % ITEMS;
                        let (x, y) = (item % BLOCK[0], item / BLOCK[0]);
                        assert_eq!(w, FIRST_CLOCK + (x | y << 10), "{at}: item {g}");
                    }
                    assert_eq!(out, ref_out, "{at}");
                    assert_eq!(r.waves, reference.waves, "{at}");
                    assert_eq!(r.counters, reference.counters, "{at}");
                }
            }
        }
    }
}
