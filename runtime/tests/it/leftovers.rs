//! Nothing of a finished wave leaks into the next wave of its slot: a kernel that reads
//! registers it never wrote (a VGPR pair, an SGPR beyond its inputs, SCC) and then poisons
//! them, run over many workgroups with reused slots (one memory environment per thread,
//! waves started one after the other), must see the initial state the descriptor defines in
//! every wave — the state a wave run alone in a fresh launch sees — under the JIT and the
//! interpreter, on one and two threads, in a first and a second launch, for wave64 (gfx942)
//! and wave32 (gfx1100). Part of the poison is written only by workgroups from 75 on,
//! in a block first translated mid-launch: the dispatcher resets what the translator's
//! blocks may write, a set that grows while the launch runs.

use wavejit_runtime::code_object::{ArgInfo, ArgKind, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::wave_init::{WaveInputs, WaveTemplate};
use wavejit_runtime::dispatch::{launch, ArgValue, Geometry, LaunchParams, DEFAULT_BUDGET};
use wavejit_runtime::memory::{CodeImage, DeviceMemory, ScratchLayout, WaveMemEnv};
use wavejit_translator::env::ExitCode;
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::{WaveState, NUM_SREGS, NUM_VREGS};

const ENTRY: u64 = 0x100;
const BLOCK: u32 = 200;

/// The kernel for gfx942 (wave64), encoded by `llvm-mc-22 -mcpu=gfx942 -show-encoding`:
/// work-item `g = s2 * 200 + v0` stores four dwords at `out + 16 g`: the never-written
/// `s20`, `s21` selected by the initial SCC (7 if set, 9 if clear) and the never-written
/// `v6`, `v7`. Then workgroups from 75 on overwrite `v7`, and all overwrite `v6`,
/// `v10`, `s20` and set SCC, in blocks that do not end the program (so the JIT's
/// final-write elision cannot drop the poison).
#[rustfmt::skip]
const GFX942: &[u8] = &[
    0x00, 0x01, 0x06, 0xc0, 0x00, 0x00, 0x00, 0x00, // s_load_dwordx2 s[4:5], s[0:1], 0x0
    0x02, 0xff, 0x06, 0x92, 0xc8, 0x00, 0x00, 0x00, // s_mul_i32 s6, s2, 0xc8
    0x06, 0x00, 0x04, 0x68, // v_add_u32_e32 v2, s6, v0
    0x84, 0x04, 0x04, 0x24, // v_lshlrev_b32_e32 v2, 4, v2
    0x7f, 0xc0, 0x8c, 0xbf, // s_waitcnt lgkmcnt(0)
    0x05, 0x02, 0x06, 0x7e, // v_mov_b32_e32 v3, s5
    0x04, 0x04, 0x04, 0x32, // v_add_co_u32_e32 v2, vcc, s4, v2
    0x80, 0x06, 0x06, 0x38, // v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
    0x14, 0x02, 0x08, 0x7e, // v_mov_b32_e32 v4, s20
    0x87, 0x89, 0x15, 0x85, // s_cselect_b32 s21, 7, 9
    0x15, 0x02, 0x0a, 0x7e, // v_mov_b32_e32 v5, s21
    0x00, 0x80, 0x7c, 0xdc, 0x02, 0x04, 0x7f, 0x00, // global_store_dwordx4 v[2:3], v[4:7], off
    0x02, 0xff, 0x0a, 0xbf, 0x4b, 0x00, 0x00, 0x00, // s_cmp_lt_u32 s2, 0x4b
    0x02, 0x00, 0x85, 0xbf, // s_cbranch_scc1 2
    0xff, 0x02, 0x0e, 0x7e, 0xed, 0x5e, 0x00, 0x00, // v_mov_b32_e32 v7, 0x5eed
    0xff, 0x02, 0x0c, 0x7e, 0xed, 0x5e, 0x00, 0x00, // v_mov_b32_e32 v6, 0x5eed
    0xff, 0x02, 0x14, 0x7e, 0xed, 0x5e, 0x00, 0x00, // v_mov_b32_e32 v10, 0x5eed
    0xff, 0x00, 0x94, 0xbe, 0xed, 0x5e, 0x00, 0x00, // s_mov_b32 s20, 0x5eed
    0x14, 0xff, 0x06, 0xbf, 0xed, 0x5e, 0x00, 0x00, // s_cmp_eq_u32 s20, 0x5eed
    0x00, 0x00, 0x82, 0xbf, // s_branch 0
    0x00, 0x00, 0x81, 0xbf, // s_endpgm
];

/// The same kernel for gfx1100 (wave32), encoded by `llvm-mc-22 -mcpu=gfx1100
/// -show-encoding`.
#[rustfmt::skip]
const GFX1100: &[u8] = &[
    0x00, 0x01, 0x04, 0xf4, 0x00, 0x00, 0x00, 0xf8, // s_load_b64 s[4:5], s[0:1], 0x0
    0x02, 0xff, 0x06, 0x96, 0xc8, 0x00, 0x00, 0x00, // s_mul_i32 s6, s2, 0xc8
    0x06, 0x00, 0x04, 0x4a, // v_add_nc_u32_e32 v2, s6, v0
    0x84, 0x04, 0x04, 0x30, // v_lshlrev_b32_e32 v2, 4, v2
    0x07, 0xfc, 0x89, 0xbf, // s_waitcnt lgkmcnt(0)
    0x05, 0x02, 0x06, 0x7e, // v_mov_b32_e32 v3, s5
    0x02, 0x6a, 0x00, 0xd7, 0x04, 0x04, 0x02, 0x00, // v_add_co_u32 v2, vcc_lo, s4, v2
    0x80, 0x06, 0x06, 0x40, // v_add_co_ci_u32_e32 v3, vcc_lo, 0, v3, vcc_lo
    0x14, 0x02, 0x08, 0x7e, // v_mov_b32_e32 v4, s20
    0x87, 0x89, 0x15, 0x98, // s_cselect_b32 s21, 7, 9
    0x15, 0x02, 0x0a, 0x7e, // v_mov_b32_e32 v5, s21
    0x00, 0x00, 0x76, 0xdc, 0x02, 0x04, 0x7c, 0x00, // global_store_b128 v[2:3], v[4:7], off
    0x02, 0xff, 0x0a, 0xbf, 0x4b, 0x00, 0x00, 0x00, // s_cmp_lt_u32 s2, 0x4b
    0x02, 0x00, 0xa2, 0xbf, // s_cbranch_scc1 2
    0xff, 0x02, 0x0e, 0x7e, 0xed, 0x5e, 0x00, 0x00, // v_mov_b32_e32 v7, 0x5eed
    0xff, 0x02, 0x0c, 0x7e, 0xed, 0x5e, 0x00, 0x00, // v_mov_b32_e32 v6, 0x5eed
    0xff, 0x02, 0x14, 0x7e, 0xed, 0x5e, 0x00, 0x00, // v_mov_b32_e32 v10, 0x5eed
    0xff, 0x00, 0x94, 0xbe, 0xed, 0x5e, 0x00, 0x00, // s_mov_b32 s20, 0x5eed
    0x14, 0xff, 0x06, 0xbf, 0xed, 0x5e, 0x00, 0x00, // s_cmp_eq_u32 s20, 0x5eed
    0x00, 0x00, 0xa0, 0xbf, // s_branch 0
    0x00, 0x00, 0xb0, 0xbf, // s_endpgm
];

fn kernel(wave_size: u32) -> KernelInfo {
    KernelInfo {
        name: "leftovers".into(),
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
        sgpr_count: 24,
        vgpr_count: 11,
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

/// Runs the kernel over `groups` workgroups of [`BLOCK`] items (wave64: waves of 64, 64,
/// 64 and 8 lanes; wave32: six of 32 and one of 8) and returns the four dwords each
/// work-item stored.
fn run(
    mem: &DeviceMemory,
    t: &Translator,
    target: Target,
    code: &CodeImage,
    groups: u32,
    threads: usize,
) -> Vec<[u32; 4]> {
    let items = (groups * BLOCK) as usize;
    // Poisoned output: a work-item that stores nothing shows 0xA5A5A5A5.
    let out = mem.alloc_from(&vec![0xA5; 16 * items]).unwrap();
    let k = kernel(target.wave_size);
    let args = [ArgValue::Pointer(out)];
    let p = LaunchParams {
        kernel: &k,
        gpu: target.gpu,
        code,
        geometry: Geometry {
            grid: [groups, 1, 1],
            block: [BLOCK, 1, 1],
            dynamic_lds: 0,
        },
        args: &args,
        threads,
        budget: DEFAULT_BUDGET,
    };
    let r = launch(mem, t, &p).unwrap();
    assert_eq!(
        r.waves,
        groups as u64 * BLOCK.div_ceil(target.wave_size) as u64
    );
    let bytes = mem.read(out, 16 * items).unwrap();
    mem.free(out);
    bytes
        .chunks_exact(16)
        .map(|c| {
            std::array::from_fn(|i| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()))
        })
        .collect()
}

/// The kernels, with their targets.
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

#[test]
fn waves_never_see_registers_a_previous_wave_left() {
    for (target, kernel) in cases() {
        let code = code(kernel);
        let ws = target.wave_size as usize;
        // The state a wave run alone sees: one workgroup, one launch, nothing run before.
        let mem = DeviceMemory::new();
        let alone = Translator::new(target, EngineKind::Interp).unwrap();
        let first = run(&mem, &alone, target, &code, 1, 1);
        // Unwritten SGPR and VGPRs read 0, SCC starts clear (ISA: the initial wave state
        // the dispatcher defines; wavejit clears everything the descriptor does not set).
        assert!(
            first.iter().all(|&w| w == [0, 9, 0, 0]),
            "{:?}: {:?}",
            target.gpu,
            &first[..4]
        );
        for engine in [EngineKind::Jit, EngineKind::Interp] {
            for threads in [1, 2] {
                // As the runtime configures it: compiled on first use, final writes of
                // ending blocks elided.
                let t = Translator::new(target, engine)
                    .unwrap()
                    .with_hot_threshold(0)
                    .final_state_unread();
                for launch_no in 0..2 {
                    let got = run(&mem, &t, target, &code, 150, threads);
                    for (i, w) in got.iter().enumerate() {
                        assert_eq!(
                            *w,
                            first[i % BLOCK as usize],
                            "{:?} {engine:?}, {threads} threads, launch {launch_no}: item {i} \
                             (workgroup {}, wave {})",
                            target.gpu,
                            i / BLOCK as usize,
                            (i % BLOCK as usize) / ws
                        );
                    }
                }
            }
        }
    }
}

/// What the dispatcher's resets rely on: every register a wave changes is in the
/// translator's [`Translator::registers_written`] afterwards. Waves of workgroups 0..100
/// (so both sides of the kernel's branch at 75) run one by one from the initial state,
/// compared register by register (their lanes) with a freshly started state, for the JIT
/// (compiled on first use, or interpreted first and compiled once hot; final writes elided
/// or not) and the interpreter.
#[test]
fn registers_written_covers_every_register_a_wave_changes() {
    for (target, bytes) in cases() {
        let code = code(bytes);
        let ws = target.wave_size;
        let lanes = ws as usize;
        let k = kernel(ws);
        let mem = DeviceMemory::new();
        let out = mem.alloc_from(&vec![0xA5; 16 * 200 * 100]).unwrap();
        let kernarg = out.to_le_bytes().to_vec();
        let ka = mem.alloc_from(&kernarg).unwrap();
        let inputs = WaveInputs {
            kernarg: ka,
            block: [BLOCK, 1, 1],
            waves_per_group: BLOCK.div_ceil(ws),
            ..Default::default()
        };
        let entry = code.base() + ENTRY;
        let template = WaveTemplate::new(
            target.gpu,
            &k.descriptor,
            &inputs,
            &kernarg,
            ws,
            (0, 0),
            &[],
            entry,
        )
        .unwrap();
        let full = template.reset_plan(None);
        let translators = [
            Translator::new(target, EngineKind::Jit)
                .unwrap()
                .with_hot_threshold(0)
                .final_state_unread(),
            Translator::new(target, EngineKind::Jit)
                .unwrap()
                .final_state_unread(),
            Translator::new(target, EngineKind::Jit).unwrap(),
            Translator::new(target, EngineKind::Interp).unwrap(),
        ];
        for (n, t) in translators.iter().enumerate() {
            let (mut lds, mut scratch) = (vec![], vec![]);
            let _launch = mem.begin_launch();
            let mut env = WaveMemEnv::new(&mem, &mut lds, &mut scratch, ScratchLayout::default());
            let mut st = WaveState::new_boxed(ws);
            let mut fresh = WaveState::new_boxed(ws);
            for wg in 0..100u32 {
                for w in 0..inputs.waves_per_group as usize {
                    template.start_wave(&mut st, [wg, 0, 0], w, &full);
                    template.start_wave(&mut fresh, [wg, 0, 0], w, &full);
                    let mut budget = 1 << 20;
                    let exit = t.run(&code, &mut st, &mut env, &mut budget).unwrap();
                    assert_eq!(exit, ExitCode::EndPgm);
                    let written = t.registers_written();
                    let at = format!("{:?} translator {n}, workgroup {wg} wave {w}", target.gpu);
                    for r in 0..NUM_VREGS {
                        if st.vgpr[r][..lanes] != fresh.vgpr[r][..lanes] {
                            assert!(
                                written.has_vgpr(r) || written.vgpr_unknown,
                                "{at}: v{r} changed, not in {written:?}"
                            );
                        }
                    }
                    for c in 0..NUM_SREGS {
                        if st.sgpr[c] != fresh.sgpr[c] {
                            assert!(
                                written.has_sgpr(c),
                                "{at}: scalar slot {c} changed, not in {written:?}"
                            );
                        }
                    }
                }
            }
            // The poison block ran: the set is not trivially empty.
            let written = t.registers_written();
            assert!(written.has_vgpr(7) && written.has_sgpr(20), "{written:?}");
        }
        mem.free(out);
        mem.free(ka);
    }
}
