//! Nothing of a finished wave leaks into the next wave of its slot: a kernel that reads
//! registers it never wrote (a VGPR pair, an SGPR beyond its inputs, SCC) and then poisons
//! them, run over many workgroups with reused slots (one memory environment per thread,
//! waves started one after the other), must see the initial state the descriptor defines in
//! every wave — the state a wave run alone in a fresh launch sees — under the JIT and the
//! interpreter, on one and two threads, in a first and a second launch.

use wavejit_runtime::code_object::{ArgInfo, ArgKind, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::{launch, ArgValue, Geometry, LaunchParams, DEFAULT_BUDGET};
use wavejit_runtime::memory::{CodeImage, DeviceMemory};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::isa::{Gpu, Target};

const ENTRY: u64 = 0x100;
const BLOCK: u32 = 200;

/// The kernel (gfx942, wave64), encoded by `llvm-mc-22 -mcpu=gfx942 -show-encoding`; work-item
/// `g = s2 * 200 + v0` stores four dwords at `out + 16 g`: the never-written `s20`, `s21`
/// selected by the initial SCC (7 if set, 9 if clear) and the never-written `v6`, `v7`.
/// Then it overwrites `v6`, `v7`, `v10`, `s20` and sets SCC, in a block that does not end the
/// program (so the JIT's final-write elision cannot drop the poison).
const KERNEL: &[[u8; 4]] = &[
    [0x00, 0x01, 0x06, 0xc0], // s_load_dwordx2 s[4:5], s[0:1], 0x0
    [0x00, 0x00, 0x00, 0x00],
    [0x02, 0xff, 0x06, 0x92], // s_mul_i32 s6, s2, 200
    [0xc8, 0x00, 0x00, 0x00],
    [0x06, 0x00, 0x04, 0x68], // v_add_u32_e32 v2, s6, v0
    [0x84, 0x04, 0x04, 0x24], // v_lshlrev_b32_e32 v2, 4, v2
    [0x7f, 0xc0, 0x8c, 0xbf], // s_waitcnt lgkmcnt(0)
    [0x05, 0x02, 0x06, 0x7e], // v_mov_b32_e32 v3, s5
    [0x04, 0x04, 0x04, 0x32], // v_add_co_u32_e32 v2, vcc, s4, v2
    [0x80, 0x06, 0x06, 0x38], // v_addc_co_u32_e32 v3, vcc, 0, v3, vcc
    [0x14, 0x02, 0x08, 0x7e], // v_mov_b32_e32 v4, s20
    [0x87, 0x89, 0x15, 0x85], // s_cselect_b32 s21, 7, 9
    [0x15, 0x02, 0x0a, 0x7e], // v_mov_b32_e32 v5, s21
    [0x00, 0x80, 0x7c, 0xdc], // global_store_dwordx4 v[2:3], v[4:7], off
    [0x02, 0x04, 0x7f, 0x00],
    [0xff, 0x02, 0x0c, 0x7e], // v_mov_b32_e32 v6, 0x5eed
    [0xed, 0x5e, 0x00, 0x00],
    [0xff, 0x02, 0x0e, 0x7e], // v_mov_b32_e32 v7, 0x5eed
    [0xed, 0x5e, 0x00, 0x00],
    [0xff, 0x02, 0x14, 0x7e], // v_mov_b32_e32 v10, 0x5eed
    [0xed, 0x5e, 0x00, 0x00],
    [0xff, 0x00, 0x94, 0xbe], // s_mov_b32 s20, 0x5eed
    [0xed, 0x5e, 0x00, 0x00],
    [0x14, 0xff, 0x06, 0xbf], // s_cmp_eq_u32 s20, 0x5eed
    [0xed, 0x5e, 0x00, 0x00],
    [0x00, 0x00, 0x82, 0xbf], // s_branch 0 (to the next instruction)
    [0x00, 0x00, 0x81, 0xbf], // s_endpgm
];

fn kernel() -> KernelInfo {
    KernelInfo {
        name: "leftovers".into(),
        symbol_addr: ENTRY,
        kd_addr: 0x40,
        entry: ENTRY,
        descriptor: KernelDescriptor {
            // USER_SGPR_COUNT=2 (the kernarg pointer), workgroup id x; work-item id x.
            rsrc2: 2 << 1 | 1 << 7,
            kernel_code_properties: 0x0008,
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
        wave_size: 64,
        sgpr_count: 24,
        vgpr_count: 11,
        agpr_count: 0,
        max_flat_workgroup_size: 1024,
        uses_dynamic_stack: false,
    }
}

fn code() -> CodeImage {
    let mut img = vec![0u8; 0x200];
    for (w, bytes) in img[ENTRY as usize..].chunks_exact_mut(4).zip(KERNEL) {
        w.copy_from_slice(bytes);
    }
    #[allow(clippy::single_range_in_vec_init)]
    let exec = vec![0x100..0x200];
    CodeImage::new(0x10_0000, img, exec)
}

/// Runs the kernel over `groups` workgroups of [`BLOCK`] items (waves of 64, 64, 64 and 8
/// lanes) and returns the four dwords each work-item stored.
fn run(
    mem: &DeviceMemory,
    t: &Translator,
    code: &CodeImage,
    groups: u32,
    threads: usize,
) -> Vec<[u32; 4]> {
    let items = (groups * BLOCK) as usize;
    // Poisoned output: a work-item that stores nothing shows 0xA5A5A5A5.
    let out = mem.alloc_from(&vec![0xA5; 16 * items]).unwrap();
    let k = kernel();
    let args = [ArgValue::Pointer(out)];
    let p = LaunchParams {
        kernel: &k,
        gpu: Gpu::GFX942,
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
    assert_eq!(r.waves, groups as u64 * 4);
    let bytes = mem.read(out, 16 * items).unwrap();
    mem.free(out);
    bytes
        .chunks_exact(16)
        .map(|c| {
            std::array::from_fn(|i| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()))
        })
        .collect()
}

#[test]
fn waves_never_see_registers_a_previous_wave_left() {
    let code = code();
    let target = Target {
        gpu: Gpu::GFX942,
        wave_size: 64,
    };
    // The state a wave run alone sees: one workgroup, one launch, nothing run before.
    let mem = DeviceMemory::new();
    let alone = Translator::new(target, EngineKind::Interp).unwrap();
    let first = run(&mem, &alone, &code, 1, 1);
    // Unwritten SGPR and VGPRs read 0, SCC starts clear (ISA: the initial wave state the
    // dispatcher defines; wavejit clears everything the descriptor does not set).
    assert!(
        first.iter().all(|&w| w == [0, 9, 0, 0]),
        "{:?}",
        &first[..4]
    );
    for engine in [EngineKind::Jit, EngineKind::Interp] {
        for threads in [1, 2] {
            // As the runtime configures it: compiled on first use, final writes of ending
            // blocks elided.
            let t = Translator::new(target, engine)
                .unwrap()
                .with_hot_threshold(0)
                .final_state_unread();
            for launch_no in 0..2 {
                let got = run(&mem, &t, &code, 150, threads);
                for (i, w) in got.iter().enumerate() {
                    assert_eq!(
                        *w,
                        first[i % BLOCK as usize],
                        "{engine:?}, {threads} threads, launch {launch_no}: item {i} \
                         (workgroup {}, wave {})",
                        i / BLOCK as usize,
                        (i % BLOCK as usize) / 64
                    );
                }
            }
        }
    }
}
