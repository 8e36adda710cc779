//! Dispatch: kernarg segments, hidden arguments, the dispatch packet and initial wave state
//! for hand-made kernel descriptors taken from real compiler output (notes/toolchain.md §3.3,
//! values read with llvm-objdump-22 / llvm-readelf-22 --notes).

use wavejit_runtime::code_object::{ArgInfo, ArgKind, HiddenArg, KernelDescriptor, KernelInfo};
use wavejit_runtime::dispatch::kernarg::{build_kernargs, dispatch_packet, ArgValue, Geometry};
use wavejit_runtime::dispatch::wave_init::{init_wave, WaveInputs};
use wavejit_translator::env::{PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};
use wavejit_translator::isa::Gpu;
use wavejit_translator::wave::{sreg, WaveState};

fn arg(name: &str, offset: u32, size: u32, kind: ArgKind) -> ArgInfo {
    ArgInfo {
        name: Some(name.into()),
        offset,
        size,
        kind,
    }
}

/// vadd(float* a, float* b, float* c, int n) as clang-22 emits it for gfx942 (COV5/6).
fn vadd_info(kd: KernelDescriptor, wave_size: u32) -> KernelInfo {
    use HiddenArg::*;
    let h = |o, s, k| arg("", o, s, ArgKind::Hidden(k));
    KernelInfo {
        name: "vadd".into(),
        symbol_addr: 0x1900,
        kd_addr: 0x840,
        entry: 0x1900,
        descriptor: kd,
        args: vec![
            arg("a", 0, 8, ArgKind::GlobalBuffer),
            arg("b", 8, 8, ArgKind::GlobalBuffer),
            arg("c", 16, 8, ArgKind::GlobalBuffer),
            arg("n", 24, 4, ArgKind::ByValue),
            h(32, 4, BlockCount(0)),
            h(36, 4, BlockCount(1)),
            h(40, 4, BlockCount(2)),
            h(44, 2, GroupSize(0)),
            h(46, 2, GroupSize(1)),
            h(48, 2, GroupSize(2)),
            h(50, 2, Remainder(0)),
            h(52, 2, Remainder(1)),
            h(54, 2, Remainder(2)),
            h(72, 8, GlobalOffset(0)),
            h(80, 8, GlobalOffset(1)),
            h(88, 8, GlobalOffset(2)),
            h(96, 2, GridDims),
            h(104, 4, DynamicLdsSize),
            h(112, 4, PrivateBase),
            h(116, 4, SharedBase),
            h(120, 8, HeapV1),
        ],
        kernarg_size: 288,
        kernarg_align: 8,
        group_segment_fixed_size: 0,
        private_segment_fixed_size: 0,
        wave_size,
        sgpr_count: 14,
        vgpr_count: 8,
        agpr_count: 0,
        max_flat_workgroup_size: 1024,
        uses_dynamic_stack: false,
    }
}

/// gfx942 vadd.kd: rsrc1=0x00af0040 rsrc2=0x84 kernel_code_properties=0x0008.
fn gfx942_kd() -> KernelDescriptor {
    KernelDescriptor {
        kernarg_size: 288,
        entry_offset: 0x10c0,
        rsrc3: 1,
        rsrc1: 0x00af_0040,
        rsrc2: 0x84,
        kernel_code_properties: 0x0008,
        ..Default::default()
    }
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes(b[o..o + 2].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}

#[test]
fn kernarg_segment_has_explicit_and_hidden_args() {
    let k = vadd_info(gfx942_kd(), 64);
    let geo = Geometry {
        grid: [40, 3, 1],
        block: [256, 2, 1],
        dynamic_lds: 512,
    };
    let args = [
        ArgValue::Pointer(0x7000_1000),
        ArgValue::Pointer(0x7000_2000),
        ArgValue::Pointer(0x7000_3000),
        ArgValue::I32(-5),
    ];
    let seg = build_kernargs(&k, &args, &geo).unwrap();
    assert_eq!(seg.len(), 288);
    assert_eq!(u64_at(&seg, 0), 0x7000_1000);
    assert_eq!(u64_at(&seg, 8), 0x7000_2000);
    assert_eq!(u64_at(&seg, 16), 0x7000_3000);
    assert_eq!(u32_at(&seg, 24), (-5i32) as u32);
    assert_eq!(
        (u32_at(&seg, 32), u32_at(&seg, 36), u32_at(&seg, 40)),
        (40, 3, 1)
    );
    assert_eq!(
        (u16_at(&seg, 44), u16_at(&seg, 46), u16_at(&seg, 48)),
        (256, 2, 1)
    );
    assert_eq!(
        (u16_at(&seg, 50), u16_at(&seg, 52), u16_at(&seg, 54)),
        (0, 0, 0)
    );
    assert_eq!(
        (u64_at(&seg, 72), u64_at(&seg, 80), u64_at(&seg, 88)),
        (0, 0, 0)
    );
    assert_eq!(u16_at(&seg, 96), 2); // y is the highest dimension > 1
    assert_eq!(u32_at(&seg, 104), 512);
    assert_eq!(u32_at(&seg, 112) as u64, PRIVATE_APERTURE_BASE >> 32);
    assert_eq!(u32_at(&seg, 116) as u64, SHARED_APERTURE_BASE >> 32);
    assert_eq!(u64_at(&seg, 120), 0);
    // Padding between explicit and hidden args stays zero.
    assert_eq!(u32_at(&seg, 28), 0);
}

/// A buffer and an address pass the same pointer bits; the printf buffer (last) fills the
/// hidden printf-buffer argument and nothing else, which stays null without it.
#[test]
fn buffers_pointers_and_the_printf_buffer() {
    use wavejit_runtime::memory::Buffer;
    let mut k = vadd_info(gfx942_kd(), 64);
    k.args
        .push(arg("", 128, 8, ArgKind::Hidden(HiddenArg::PrintfBuffer)));
    let geo = Geometry {
        grid: [1; 3],
        block: [64, 1, 1],
        dynamic_lds: 0,
    };
    let a = ArgValue::Buffer(Buffer {
        addr: 0x7000_1000,
        len: 64,
    });
    let printf = ArgValue::PrintfBuffer(Buffer {
        addr: 0x7100_0000,
        len: 4096,
    });
    let explicit = [
        a,
        ArgValue::Pointer(0x7000_2008),
        ArgValue::Pointer(0),
        ArgValue::I32(3),
    ];
    let seg = build_kernargs(&k, &[&explicit[..], &[printf]].concat(), &geo).unwrap();
    assert_eq!(
        (u64_at(&seg, 0), u64_at(&seg, 8), u64_at(&seg, 16)),
        (0x7000_1000, 0x7000_2008, 0)
    );
    assert_eq!(u32_at(&seg, 24), 3);
    assert_eq!(u64_at(&seg, 128), 0x7100_0000);
    let without = build_kernargs(&k, &explicit, &geo).unwrap();
    assert_eq!(u64_at(&without, 128), 0);
    assert_eq!(seg[..128], without[..128]);
    let e = build_kernargs(&k, &[a, printf, a, ArgValue::I32(3)], &geo).unwrap_err();
    assert!(e.contains("may only end the argument list"), "{e}");
    let e = build_kernargs(&k, &[a, a, a, a], &geo).unwrap_err();
    assert!(
        e.contains("argument 3 (n) expects a 4-byte value, got buffer"),
        "{e}"
    );
}

#[test]
fn argument_errors_list_the_expected_arguments() {
    let k = vadd_info(gfx942_kd(), 64);
    let geo = Geometry {
        grid: [1; 3],
        block: [64, 1, 1],
        dynamic_lds: 0,
    };
    let b = ArgValue::Pointer(0x1000);
    let e = build_kernargs(&k, &[b, b, b], &geo).unwrap_err();
    assert!(e.contains("expects 4 arguments"), "{e}");
    assert!(
        e.contains("a: buffer 8, b: buffer 8, c: buffer 8, n: value 4"),
        "{e}"
    );
    let e = build_kernargs(&k, &[b, ArgValue::U64(3), b, ArgValue::I32(1)], &geo).unwrap_err();
    assert!(e.contains("argument 1 (b) expects a buffer"), "{e}");
    let e = build_kernargs(&k, &[b, b, b, ArgValue::I64(1)], &geo).unwrap_err();
    assert!(
        e.contains("argument 3 (n) expects a 4-byte value, got i64"),
        "{e}"
    );
    let e = build_kernargs(&k, &[b, b, b, b], &geo).unwrap_err();
    assert!(e.contains("got pointer"), "{e}");
    // Narrow by-value args accept a fitting 32-bit integer only.
    let mut k2 = k.clone();
    k2.args[3].size = 1;
    let seg = build_kernargs(&k2, &[b, b, b, ArgValue::U32(200)], &geo).unwrap();
    assert_eq!(&seg[24..28], &[200, 0, 0, 0]);
    assert!(build_kernargs(&k2, &[b, b, b, ArgValue::U32(300)], &geo).is_err());
    // A kind wavejit cannot pass.
    k2.args[3].kind = ArgKind::Other("image".into());
    let e = build_kernargs(&k2, &[b, b, b, ArgValue::U32(1)], &geo).unwrap_err();
    assert!(e.contains("cannot pass"), "{e}");
}

#[test]
fn gfx942_initial_state() {
    let kd = gfx942_kd();
    let mut st = WaveState::new_boxed(64);
    let inputs = WaveInputs {
        kernarg: 0x7fff_1234_5600,
        block: [100, 1, 1],
        waves_per_group: 2,
        ..Default::default()
    };
    init_wave(
        &mut st,
        Gpu::GFX942,
        &kd,
        &inputs,
        &[],
        [7, 0, 0],
        1,
        0xAB_1900,
    )
    .unwrap();
    assert_eq!(st.sgpr64(0), 0x7fff_1234_5600); // s[0:1] kernarg
    assert_eq!(st.sgpr[2], 7); // s2 workgroup id x (USER_SGPR_COUNT = 2)
    assert_eq!(st.sgpr[3], 0);
    // Wave 1 of a 100-item group: lanes 0..36 hold items 64..100.
    assert_eq!(st.exec(), (1u64 << 36) - 1);
    assert_eq!(st.vgpr[0][0], 64);
    assert_eq!(st.vgpr[0][35], 99);
    assert_eq!(st.vgpr[0][36], 0);
    // rsrc1 FLOAT_MODE=0xF0 (denorms on), DX10_CLAMP (bit 21) and IEEE (bit 23) set.
    assert_eq!(st.mode, 0xF0 | 1 << 8 | 1 << 9);
    assert_eq!(st.pc, 0xAB_1900);
}

#[test]
fn gfx1100_pads_user_sgprs_to_15() {
    // gfx1100 vadd.kd: rsrc1=0xe0af0000 rsrc2=0x9e (USER_SGPR_COUNT=15, wg id x),
    // kernel_code_properties=0x0408 (kernarg ptr, wave32).
    let kd = KernelDescriptor {
        rsrc1: 0xe0af_0000,
        rsrc2: 0x9e,
        kernel_code_properties: 0x0408,
        ..Default::default()
    };
    let mut st = WaveState::new_boxed(32);
    let inputs = WaveInputs {
        kernarg: 0x5555_0000,
        block: [32, 1, 1],
        waves_per_group: 1,
        ..Default::default()
    };
    st.sgpr[5] = 0xdead; // stale value: padding must clear it
    init_wave(
        &mut st,
        Gpu::GFX1100,
        &kd,
        &inputs,
        &[],
        [9, 0, 0],
        0,
        0x1000,
    )
    .unwrap();
    assert_eq!(st.sgpr64(0), 0x5555_0000);
    assert!(st.sgpr[2..15].iter().all(|&s| s == 0));
    assert_eq!(st.sgpr[15], 9); // the workgroup id lands in s15
    assert_eq!(st.exec(), 0xFFFF_FFFF);
    assert_eq!(st.sgpr[sreg::EXEC_HI as usize], 0);
}

#[test]
fn gfx1200_wave_id_in_ttmp8() {
    // A 128-item workgroup of wave32: the fourth wave (index 3) finds 3 in ttmp8[29:25].
    let kd = KernelDescriptor {
        rsrc1: 0xe00f_0000,
        rsrc2: 0x84,
        kernel_code_properties: 0x0408,
        ..Default::default()
    };
    let mut st = WaveState::new_boxed(32);
    let inputs = WaveInputs {
        kernarg: 0x10,
        block: [128, 1, 1],
        waves_per_group: 4,
        ..Default::default()
    };
    init_wave(&mut st, Gpu::GFX1200, &kd, &inputs, &[], [0, 0, 0], 3, 0).unwrap();
    assert_eq!(st.sgpr[sreg::TTMP0 as usize + 8], 3 << 25);
    assert_eq!(st.vgpr[0][0], 96, "first work-item of wave 3");
}

#[test]
fn gfx1200_workgroup_ids_in_ttmp() {
    // gfx1200 vadd.kd: rsrc1=0xe00f0000 rsrc2=0x84: ids are architected (ttmp9, ttmp7).
    let kd = KernelDescriptor {
        rsrc1: 0xe00f_0000,
        rsrc2: 0x84 | 3 << 8 | 2 << 11, // + wg id y, z; work-item ids x, y, z
        kernel_code_properties: 0x0408,
        ..Default::default()
    };
    let mut st = WaveState::new_boxed(32);
    let inputs = WaveInputs {
        kernarg: 0x10,
        block: [4, 2, 3],
        waves_per_group: 1,
        ..Default::default()
    };
    init_wave(&mut st, Gpu::GFX1200, &kd, &inputs, &[], [5, 6, 7], 0, 0).unwrap();
    assert_eq!(st.sgpr[2], 0);
    assert_eq!(st.sgpr[sreg::TTMP0 as usize + 9], 5);
    assert_eq!(st.sgpr[sreg::TTMP0 as usize + 7], 6 | 7 << 16);
    // ttmp8[29:25] = waveIDinGroup (RDNA4 ISA L1465): 0 for the first wave.
    assert_eq!(st.sgpr[sreg::TTMP0 as usize + 8] >> 25 & 0x1f, 0);
    // 24 work-items: lane 23 is (x=3, y=1, z=2).
    assert_eq!(st.exec(), (1 << 24) - 1);
    assert_eq!(st.vgpr[0][23], 3 | 1 << 10 | 2 << 20);
    assert_eq!(st.vgpr[0][5], 1 | 1 << 10);
    // GFX12: no DX10_CLAMP/IEEE bits from rsrc1.
    assert_eq!(st.mode, 0xF0);
}

#[test]
fn triton_kernarg_preload_and_two_workgroup_ids() {
    // Triton gfx942 matmul: rsrc2=0x1a0 (USER_SGPR_COUNT=16, wg id x, y),
    // kernel_code_properties=0x0008, kernarg_preload=0x000e (14 dwords from offset 0).
    let kd = KernelDescriptor {
        rsrc2: 0x1a0,
        kernel_code_properties: 0x0008,
        kernarg_preload: 0x000e,
        ..Default::default()
    };
    let kernarg: Vec<u8> = (0..64u32).flat_map(|i| (0x100 + i).to_le_bytes()).collect();
    let mut st = WaveState::new_boxed(64);
    let inputs = WaveInputs {
        kernarg: 0xCAFE_0000,
        block: [256, 1, 1],
        waves_per_group: 4,
        ..Default::default()
    };
    init_wave(
        &mut st,
        Gpu::GFX942,
        &kd,
        &inputs,
        &kernarg,
        [2, 3, 0],
        0,
        0,
    )
    .unwrap();
    assert_eq!(st.sgpr64(0), 0xCAFE_0000);
    for i in 0..14 {
        assert_eq!(st.sgpr[2 + i], 0x100 + i as u32);
    }
    assert_eq!((st.sgpr[16], st.sgpr[17]), (2, 3));
    assert_eq!(st.sgpr[18], 0);
    // Preload offset 2 dwords (offset field in bits 15:7).
    let kd2 = KernelDescriptor {
        kernarg_preload: 2 | 2 << 7,
        rsrc2: 2 << 1 | 4 << 1,
        ..kd
    };
    let mut st2 = WaveState::new_boxed(64);
    init_wave(&mut st2, Gpu::GFX942, &kd2, &inputs, &kernarg, [0; 3], 0, 0).unwrap();
    assert_eq!((st2.sgpr[2], st2.sgpr[3]), (0x102, 0x103));
}

#[test]
fn code_object_v4_dispatch_packet_and_sgprs() {
    // COV4: dispatch ptr in s[0:1], kernarg ptr in s[2:3] (kernel_code_properties 0x000a).
    let kd = KernelDescriptor {
        rsrc2: 4 << 1 | 1 << 7,
        kernel_code_properties: 0x000a,
        ..Default::default()
    };
    let geo = Geometry {
        grid: [10, 2, 1],
        block: [64, 4, 1],
        dynamic_lds: 0,
    };
    let p = dispatch_packet(&geo, 48, 1024, 0x9000, 0xA000).unwrap();
    assert_eq!(u16_at(&p, 0), 2); // HSA_PACKET_TYPE_KERNEL_DISPATCH
    assert_eq!(u16_at(&p, 2), 2); // dimensions
    assert_eq!((u16_at(&p, 4), u16_at(&p, 6), u16_at(&p, 8)), (64, 4, 1));
    assert_eq!(
        (u32_at(&p, 12), u32_at(&p, 16), u32_at(&p, 20)),
        (640, 8, 1)
    );
    assert_eq!((u32_at(&p, 24), u32_at(&p, 28)), (48, 1024));
    assert_eq!((u64_at(&p, 32), u64_at(&p, 40)), (0x9000, 0xA000));
    let mut st = WaveState::new_boxed(64);
    let inputs = WaveInputs {
        kernarg: 0xA000,
        dispatch_ptr: 0xD000,
        block: [64, 4, 1],
        waves_per_group: 4,
        ..Default::default()
    };
    init_wave(&mut st, Gpu::GFX942, &kd, &inputs, &[], [4, 1, 0], 0, 0).unwrap();
    assert_eq!(
        (st.sgpr64(0), st.sgpr64(2), st.sgpr[4]),
        (0xD000, 0xA000, 4)
    );
    // Work-item id y not enabled (rsrc2 bits 12:11 = 0): v0 holds x only.
    assert_eq!(st.vgpr[0][63], 63);
    let too_big = Geometry {
        grid: [u32::MAX, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 0,
    };
    assert!(dispatch_packet(&too_big, 0, 0, 0, 0).is_err());
}

#[test]
fn inconsistent_descriptor_is_an_error() {
    // Private segment buffer (4) + kernarg ptr (2) but USER_SGPR_COUNT = 2.
    let kd = KernelDescriptor {
        rsrc2: 2 << 1,
        kernel_code_properties: 0x0009,
        ..Default::default()
    };
    let mut st = WaveState::new_boxed(64);
    let inputs = WaveInputs {
        block: [1, 1, 1],
        waves_per_group: 1,
        ..Default::default()
    };
    let e = init_wave(&mut st, Gpu::GFX942, &kd, &inputs, &[], [0; 3], 0, 0).unwrap_err();
    assert!(e.contains("USER_SGPR_COUNT is 2"), "{e}");
}

/// Packed work-item ids of every wave against a host formula, for blocks whose waves do
/// and do not wrap in x (the two code paths of `init_wave`), with x, y and z enabled.
#[test]
fn workitem_ids_match_host_formula() {
    let kd = KernelDescriptor {
        rsrc2: 2 << 11, // ENABLE_VGPR_WORKITEM_ID = 2: x, y and z
        ..Default::default()
    };
    for block in [
        [10u32, 3, 5],
        [128, 2, 3],
        [64, 1, 1],
        [96, 2, 1],
        [7, 1, 1],
    ] {
        let total = block.iter().product::<u32>() as u64;
        let waves = total.div_ceil(64) as u32;
        for w in 0..waves {
            let mut st = WaveState::new_boxed(64);
            st.vgpr[0] = [0xDEAD_BEEF; 64];
            let inputs = WaveInputs {
                block,
                waves_per_group: waves,
                ..Default::default()
            };
            init_wave(&mut st, Gpu::GFX942, &kd, &inputs, &[], [0; 3], w, 0).unwrap();
            let mut exec = 0u64;
            for lane in 0..64u64 {
                let item = w as u64 * 64 + lane;
                if item >= total {
                    assert_eq!(st.vgpr[0][lane as usize], 0xDEAD_BEEF);
                    continue;
                }
                exec |= 1 << lane;
                let (bx, by) = (block[0] as u64, block[1] as u64);
                let want = (item % bx) | ((item / bx) % by) << 10 | (item / (bx * by)) << 20;
                assert_eq!(
                    st.vgpr[0][lane as usize] as u64, want,
                    "{block:?} wave {w} lane {lane}"
                );
            }
            assert_eq!(st.exec(), exec, "{block:?} wave {w}");
        }
    }
}

#[test]
fn gfx1100_wave64_three_workgroup_ids_after_padding_and_packed_ids() {
    // USER_SGPR_COUNT = 13 (kernarg pointer in s[0:1], then padding), workgroup ids x, y, z
    // enabled (rsrc2 bits 7..9), work-item ids x, y, z (rsrc2[12:11] = 2); wave64 (no
    // wave32 bit in kernel_code_properties).
    let kd = KernelDescriptor {
        rsrc1: 0xe0af_0000,
        rsrc2: 13 << 1 | 1 << 7 | 1 << 8 | 1 << 9 | 2 << 11,
        kernel_code_properties: 0x0008,
        ..Default::default()
    };
    let mut st = WaveState::new_boxed(64);
    let inputs = WaveInputs {
        kernarg: 0x7000_0040,
        block: [8, 4, 4],
        waves_per_group: 2,
        ..Default::default()
    };
    st.sgpr[12] = 0xdead; // stale value in the padding
    init_wave(&mut st, Gpu::GFX1100, &kd, &inputs, &[], [3, 4, 5], 1, 0).unwrap();
    assert_eq!(st.sgpr64(0), 0x7000_0040);
    assert!(st.sgpr[2..13].iter().all(|&s| s == 0));
    assert_eq!(&st.sgpr[13..16], &[3, 4, 5]);
    // Wave 1 holds items 64..127 of the 8x4x4 group: item i is (i % 8, i / 8 % 4, i / 32).
    assert_eq!(st.exec(), u64::MAX);
    for lane in 0..64u32 {
        let i = 64 + lane;
        let want = (i % 8) | (i / 8 % 4) << 10 | (i / 32) << 20;
        assert_eq!(st.vgpr[0][lane as usize], want, "lane {lane}");
    }
    // GFX11 keeps DX10_CLAMP and IEEE from rsrc1 (bits 21 and 23 of 0xe0af0000).
    assert_eq!(st.mode, 0xF0 | 1 << 8 | 1 << 9);
}

#[test]
fn gfx1200_wave64_partial_last_wave() {
    // gfx1200 wave64: a 100-item 1-D group; wave 1 has 36 lanes, wave id 1 in ttmp8, the
    // workgroup id in ttmp9 only (no SGPR after the user SGPRs).
    let kd = KernelDescriptor {
        rsrc1: 0xe00f_0000,
        rsrc2: 0x84,
        kernel_code_properties: 0x0008,
        ..Default::default()
    };
    let mut st = WaveState::new_boxed(64);
    let inputs = WaveInputs {
        kernarg: 0x20,
        block: [100, 1, 1],
        waves_per_group: 2,
        ..Default::default()
    };
    init_wave(&mut st, Gpu::GFX1200, &kd, &inputs, &[], [11, 0, 0], 1, 0).unwrap();
    assert_eq!(st.sgpr64(0), 0x20);
    assert_eq!(st.sgpr[2], 0, "no SGPR workgroup id on GFX12");
    assert_eq!(st.sgpr[sreg::TTMP0 as usize + 9], 11);
    assert_eq!(st.sgpr[sreg::TTMP0 as usize + 8] >> 25 & 0x1f, 1);
    assert_eq!(st.exec(), (1u64 << 36) - 1);
    assert_eq!(st.vgpr[0][0], 64);
    assert_eq!(st.vgpr[0][35], 99);
}
