//! Loader tests on real code objects built by `tests/fixtures/build.sh` (clang-22).
//!
//! Expected values were read by hand from `llvm-readelf-22 -h -s -l --notes` and
//! `llvm-objdump-22 -s -j .rodata` on the fixtures (the independent oracle), not from the loader.

use wavejit_runtime::code_object::{
    load, ArgKind, CodeObject, HiddenArg, LoadError, TargetFeature,
};
use wavejit_translator::isa::Gpu;

fn fixture(name: &str) -> Vec<u8> {
    let p = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn load_fixture(name: &str) -> CodeObject {
    load(&fixture(name), None).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn gfx942_v6_header_and_kernels() {
    let co = load_fixture("vadd_gfx942_v6.hsaco");
    // readelf -h: ABI Version 4, Flags 0x54c (gfx942, xnack any, sramecc any).
    assert_eq!(co.gpu, Gpu::GFX942);
    assert_eq!(co.version, 6);
    assert_eq!(co.xnack, TargetFeature::Any);
    assert_eq!(co.sramecc, TargetFeature::Any);
    assert_eq!(co.target_id, "amdgcn-amd-amdhsa--gfx942");
    // readelf -l: R E segment at 0x1b00, 0x580 bytes; last RW segment ends at 0x40f1.
    assert_eq!(co.exec_ranges, vec![0x1b00..0x2080]);
    assert_eq!(co.image.len(), 0x40f1);
    assert_eq!(co.kernels.len(), 2);

    let k = co.kernel("vadd").expect("vadd");
    // readelf -s: vadd FUNC 0x1b00, vadd.kd OBJECT 0xa40.
    assert_eq!(k.symbol_addr, 0x1b00);
    assert_eq!(k.kd_addr, 0xa40);
    // objdump .rodata 0xa50: c0100000 → entry offset 0x10c0.
    assert_eq!(k.descriptor.entry_offset, 0x10c0);
    assert_eq!(k.entry, 0x1b00);
    assert_eq!(k.descriptor.rsrc1, 0x00af0040);
    assert_eq!(k.descriptor.rsrc2, 0x84);
    assert_eq!(k.descriptor.rsrc3, 0x1);
    assert_eq!(k.descriptor.kernel_code_properties, 0x8);
    assert_eq!(k.descriptor.user_sgpr_count(), 2);
    assert!(k.descriptor.enable_sgpr_kernarg_segment_ptr());
    assert!(k.descriptor.workgroup_id_enabled(0));
    // readelf --notes.
    assert_eq!(k.kernarg_size, 288);
    assert_eq!(k.kernarg_align, 8);
    assert_eq!(k.group_segment_fixed_size, 0);
    assert_eq!(k.private_segment_fixed_size, 0);
    assert_eq!(k.wave_size, 64);
    assert_eq!(k.sgpr_count, 14);
    assert_eq!(k.vgpr_count, 8);
    assert_eq!(k.agpr_count, 0);
    assert_eq!(k.max_flat_workgroup_size, 1024);
    assert!(!k.uses_dynamic_stack);
    let args: Vec<(u32, u32, ArgKind)> = k
        .args
        .iter()
        .map(|a| (a.offset, a.size, a.kind.clone()))
        .collect();
    use ArgKind::*;
    use HiddenArg::*;
    let expect = vec![
        (0, 8, GlobalBuffer),
        (8, 8, GlobalBuffer),
        (16, 8, GlobalBuffer),
        (24, 4, ByValue),
        (32, 4, Hidden(BlockCount(0))),
        (36, 4, Hidden(BlockCount(1))),
        (40, 4, Hidden(BlockCount(2))),
        (44, 2, Hidden(GroupSize(0))),
        (46, 2, Hidden(GroupSize(1))),
        (48, 2, Hidden(GroupSize(2))),
        (50, 2, Hidden(Remainder(0))),
        (52, 2, Hidden(Remainder(1))),
        (54, 2, Hidden(Remainder(2))),
        (72, 8, Hidden(GlobalOffset(0))),
        (80, 8, Hidden(GlobalOffset(1))),
        (88, 8, Hidden(GlobalOffset(2))),
        (96, 2, Hidden(GridDims)),
    ];
    assert_eq!(args, expect);
    assert_eq!(k.explicit_args().count(), 4);

    let s = co.kernel("scale").expect("scale");
    assert_eq!((s.symbol_addr, s.kd_addr, s.entry), (0x1c00, 0xa80, 0x1c00));
    assert_eq!(s.kernarg_size, 16);
    assert_eq!((s.sgpr_count, s.vgpr_count), (12, 3));
    let sargs: Vec<(u32, u32, ArgKind)> = s
        .args
        .iter()
        .map(|a| (a.offset, a.size, a.kind.clone()))
        .collect();
    assert_eq!(
        sargs,
        vec![(0, 8, GlobalBuffer), (8, 4, ByValue), (12, 4, ByValue)]
    );
    // The kernel's first instruction word is in the image at the entry address; it must be
    // the same bytes as in the file at that segment's offset (0xb00 for vaddr 0x1b00).
    let raw = fixture("vadd_gfx942_v6.hsaco");
    assert_eq!(&co.image[0x1b00..0x1b00 + 16], &raw[0xb00..0xb00 + 16]);
}

#[test]
fn gfx942_v4_and_v5() {
    let v5 = load_fixture("vadd_gfx942_v5.hsaco");
    assert_eq!(v5.version, 5);
    assert_eq!(v5.kernel("vadd").unwrap().kernarg_size, 288);

    let v4 = load_fixture("vadd_gfx942_v4.hsaco");
    assert_eq!(v4.version, 4);
    let k = v4.kernel("vadd").unwrap();
    // readelf -s: vadd 0x1800, vadd.kd 0x780; objdump: entry offset 0x1080, rsrc2 0x88, kcp 0x0a.
    assert_eq!((k.symbol_addr, k.kd_addr, k.entry), (0x1800, 0x780, 0x1800));
    assert_eq!(k.kernarg_size, 28);
    assert_eq!(k.descriptor.rsrc2, 0x88);
    assert_eq!(k.descriptor.user_sgpr_count(), 4);
    assert!(k.descriptor.enable_sgpr_dispatch_ptr());
    assert!(k.descriptor.enable_sgpr_kernarg_segment_ptr());
    // COV4 vadd has no hidden arguments.
    assert_eq!(k.args.len(), 4);
}

#[test]
fn xnack_on_target_id() {
    let co = load_fixture("vadd_gfx942_xnack_on.hsaco");
    // readelf -h: Flags 0x74c, gfx942, xnack+, sramecc (any).
    assert_eq!(co.xnack, TargetFeature::On);
    assert_eq!(co.sramecc, TargetFeature::Any);
    assert_eq!(co.target_id, "amdgcn-amd-amdhsa--gfx942:xnack+");
}

#[test]
fn gfx1100_and_gfx1200() {
    let co = load_fixture("vadd_gfx1100.hsaco");
    // readelf -h: Flags 0x41 (gfx1100, no xnack/sramecc support bits).
    assert_eq!(co.gpu, Gpu::GFX1100);
    assert_eq!(co.xnack, TargetFeature::Unsupported);
    assert_eq!(co.target_id, "amdgcn-amd-amdhsa--gfx1100");
    let k = co.kernel("vadd").unwrap();
    assert_eq!((k.kd_addr, k.entry), (0xa80, 0x1b00));
    assert_eq!(k.wave_size, 32);
    assert!(k.descriptor.wavefront_size32());
    // rsrc2 0x9e: USER_SGPR_COUNT 15 (GFX11 16-SGPR padding), workgroup id x.
    assert_eq!(k.descriptor.user_sgpr_count(), 15);
    assert_eq!(k.descriptor.rsrc1, 0xe0af0000);
    assert_eq!((k.sgpr_count, k.vgpr_count), (18, 6));

    let co = load_fixture("vadd_gfx1200.hsaco");
    assert_eq!(co.gpu, Gpu::GFX1200);
    let k = co.kernel("vadd").unwrap();
    assert_eq!(k.wave_size, 32);
    assert_eq!(k.descriptor.rsrc1, 0xe00f0000);
    assert_eq!(k.descriptor.user_sgpr_count(), 2);
    assert_eq!((k.sgpr_count, k.vgpr_count), (10, 6));
    let s = co.kernel("scale").unwrap();
    assert_eq!((s.kd_addr, s.entry), (0xac0, 0x1c00));
}

#[test]
fn bundles() {
    // clang-offload-bundler-22 --list: host + hipv4-amdgcn-amd-amdhsa--gfx942.
    let b = fixture("vadd_gfx942.bundle");
    let co = load(&b, None).unwrap();
    assert_eq!(co.gpu, Gpu::GFX942);
    assert_eq!(co.version, 6);
    assert_eq!(co.kernels.len(), 2);
    assert_eq!(load(&b, Some(Gpu::GFX942)).unwrap().gpu, Gpu::GFX942);
    let e = load(&b, Some(Gpu::GFX1100)).unwrap_err().to_string();
    assert!(
        e.contains("gfx1100") && e.contains("hipv4-amdgcn-amd-amdhsa--gfx942"),
        "{e}"
    );

    // Two device entries: gfx942 and gfx1100.
    let m = fixture("vadd_multi.bundle");
    assert_eq!(load(&m, Some(Gpu::GFX1100)).unwrap().gpu, Gpu::GFX1100);
    assert_eq!(load(&m, Some(Gpu::GFX942)).unwrap().gpu, Gpu::GFX942);
    let e = load(&m, None).unwrap_err().to_string();
    assert!(
        e.contains("hipv4-amdgcn-amd-amdhsa--gfx942")
            && e.contains("hipv4-amdgcn-amd-amdhsa--gfx1100"),
        "{e}"
    );
}

#[test]
fn wrong_target_for_elf() {
    let e = load(&fixture("vadd_gfx1100.hsaco"), Some(Gpu::GFX942)).unwrap_err();
    assert_eq!(
        e,
        LoadError::TargetMismatch {
            found: "gfx1100".into(),
            want: "gfx942".into()
        }
    );
}

/// Patches a little-endian value into a copy of `bytes`.
fn patched(bytes: &[u8], off: usize, val: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v[off..off + val.len()].copy_from_slice(val);
    v
}

#[test]
fn header_errors() {
    let good = fixture("vadd_gfx942_v6.hsaco");
    assert_eq!(load(b"hello", None).unwrap_err(), LoadError::NotElf);
    assert_eq!(load(&[], None).unwrap_err(), LoadError::NotElf);
    // EI_CLASS = 1 (32-bit).
    assert!(matches!(
        load(&patched(&good, 4, &[1]), None),
        Err(LoadError::WrongMachine(_))
    ));
    // e_machine = 62 (x86-64) at offset 18.
    let e = load(&patched(&good, 18, &62u16.to_le_bytes()), None).unwrap_err();
    assert!(e.to_string().contains("e_machine is 62"), "{e}");
    // EI_ABIVERSION = 1 (code object v3).
    let e = load(&patched(&good, 8, &[1]), None).unwrap_err();
    assert!(
        matches!(e, LoadError::UnsupportedVersion(_)) && e.to_string().contains("v3"),
        "{e}"
    );
    // EI_OSABI = 0.
    assert!(matches!(
        load(&patched(&good, 7, &[0]), None),
        Err(LoadError::UnsupportedVersion(_))
    ));
    // e_flags (offset 48) mach 0x3f = gfx90a.
    let e = load(&patched(&good, 48, &0x53fu32.to_le_bytes()), None).unwrap_err();
    assert!(
        matches!(e, LoadError::UnsupportedTarget(_)) && e.to_string().contains("0x3f"),
        "{e}"
    );
}

#[test]
fn descriptor_metadata_mismatch() {
    let good = fixture("vadd_gfx942_v6.hsaco");
    // vadd.kd is at vaddr 0xa40 = file offset 0xa40 (first segment maps offset 0 at 0).
    // Set ENABLE_WAVEFRONT_SIZE32 (kcp bit 10) in the descriptor: metadata says 64.
    let e = load(
        &patched(&good, 0xa40 + 0x38, &0x0408u16.to_le_bytes()),
        None,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("kernel vadd") && e.to_string().contains("wavefront"),
        "{e}"
    );
    // kernarg_size 0x100 in the descriptor, 288 in the metadata.
    let e = load(&patched(&good, 0xa40 + 8, &0x100u32.to_le_bytes()), None).unwrap_err();
    assert!(e.to_string().contains("kernarg"), "{e}");
    // Entry offset pointing into .rodata (not executable).
    let e = load(&patched(&good, 0xa40 + 0x10, &0u64.to_le_bytes()), None).unwrap_err();
    assert!(
        e.to_string().contains("not in an executable segment"),
        "{e}"
    );
}

#[test]
fn metadata_errors() {
    let good = fixture("vadd_gfx942_v6.hsaco");
    // The note's "amdhsa.version" key is followed by the msgpack array 92 01 02 ([1, 2]).
    let key = good
        .windows(14)
        .position(|w| w == b"amdhsa.version")
        .expect("key");
    assert_eq!(&good[key + 14..key + 17], &[0x92, 0x01, 0x02]);
    let e = load(&patched(&good, key + 15, &[0x02]), None).unwrap_err();
    assert!(e.to_string().contains("amdhsa.version [2, 2]"), "{e}");
    // Renaming the key removes it.
    let e = load(&patched(&good, key, b"amdhsa.versioX"), None).unwrap_err();
    assert_eq!(
        e,
        LoadError::MalformedMetadata("missing amdhsa.version".into())
    );
    // Renaming ".symbol" of both kernels: a missing required field.
    let sym = good
        .windows(8)
        .position(|w| w == b".symbol\xa7")
        .expect(".symbol");
    let e = load(&patched(&good, sym, b".symbox"), None).unwrap_err();
    assert!(e.to_string().contains("missing .symbol"), "{e}");
    // The note type 32 (NT_AMDGPU_METADATA) changed to 33: no metadata.
    let note = good
        .windows(8)
        .position(|w| w == b"AMDGPU\0\0")
        .expect("note owner");
    // Note header: namesz, descsz, type, then the name.
    assert_eq!(&good[note - 4..note], &32u32.to_le_bytes());
    assert_eq!(
        load(&patched(&good, note - 4, &[33]), None).unwrap_err(),
        LoadError::MissingMetadata
    );
}

#[test]
fn truncations_are_errors() {
    // Section headers sit at the end of the file, so every strict prefix is malformed.
    for name in [
        "vadd_gfx942_v6.hsaco",
        "vadd_gfx942.bundle",
        "vadd_gfx1200.hsaco",
    ] {
        let good = fixture(name);
        for n in (0..good.len()).step_by(7) {
            assert!(load(&good[..n], None).is_err(), "{name}: prefix {n} loaded");
        }
    }
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Random byte overwrites and truncation of valid objects: `load` returns, never panics.
        #[test]
        fn mutated_objects_do_not_panic(
            which in 0usize..3,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..16),
            cut in any::<prop::sample::Index>(),
            truncate in any::<bool>(),
        ) {
            let name = ["vadd_gfx942_v6.hsaco", "vadd_gfx942.bundle", "vadd_gfx1100.hsaco"][which];
            let mut b = fixture(name);
            for (i, v) in edits {
                let at = i.index(b.len());
                b[at] = v;
            }
            if truncate {
                let n = cut.index(b.len());
                b.truncate(n);
            }
            let _ = load(&b, None);
        }

        /// Mutations aimed at the ELF/program headers and the descriptor, where structure lives.
        #[test]
        fn mutated_headers_do_not_panic(
            edits in proptest::collection::vec((0usize..0x100, any::<u8>()), 1..8),
            kd_edits in proptest::collection::vec((0usize..64, any::<u8>()), 0..8),
        ) {
            let mut b = fixture("vadd_gfx942_v6.hsaco");
            for (i, v) in edits { b[i] = v; }
            for (i, v) in kd_edits { b[0xa40 + i] = v; }
            let _ = load(&b, None);
        }
    }
}

#[test]
fn function_symbols_and_code_bounds() {
    let co = load_fixture("vadd_gfx942_v6.hsaco");
    // readelf -s: vadd FUNC 0x1b00 size 140, scale FUNC 0x1c00 size 84; .text ends at 0x2080.
    let f: Vec<(&str, u64, u64)> = co
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.addr, f.size))
        .collect();
    assert_eq!(f, vec![("vadd", 0x1b00, 140), ("scale", 0x1c00, 84)]);
    assert_eq!(co.code_end(0x1b00), Some(0x1c00));
    assert_eq!(co.code_end(0x1c00), Some(0x2080));
    assert_eq!(co.code_end(0xa40), None);
    assert_eq!(co.code_at(0x2070).map(<[u8]>::len), Some(0x10));
}

#[test]
fn gfx9_wave32_is_rejected() {
    let good = fixture("vadd_gfx942_v6.hsaco");
    // First kernel's metadata ".wavefront_size" (msgpack fixstr) is followed by fixint 64.
    let key = good
        .windows(15)
        .position(|w| w == b".wavefront_size")
        .expect("key");
    assert_eq!(good[key + 15], 64);
    let mut b = patched(&good, key + 15, &[32]);
    // And its descriptor (vadd.kd at 0xa40) asks for wave32: consistent, but not for gfx942.
    b[0xa40 + 0x38..0xa40 + 0x3a].copy_from_slice(&0x0408u16.to_le_bytes());
    let e = load(&b, None).unwrap_err().to_string();
    assert!(
        e.contains("kernel vadd") && e.contains("gfx942 only runs wave64"),
        "{e}"
    );
}

#[test]
fn compressed_bundles_are_reported() {
    let e = load(b"CCOB\x01\x00\x02\x00rest", None).unwrap_err();
    assert_eq!(e, LoadError::CompressedBundle);
    assert!(e.to_string().contains("clang-offload-bundler"));
}

/// Hand-written kernels (`kernarg0.s`, llvm-mc-22 + ld.lld-22) whose descriptors leave the
/// kernarg and group segment sizes at 0: the loader takes the sizes from the metadata, as the
/// ROCm runtime does. Expected values from `llvm-readelf-22 -h -s --notes` and
/// `llvm-objdump-22 -s -j .rodata` on the fixtures.
#[test]
fn descriptor_sizes_left_zero_come_from_the_metadata() {
    for (name, version) in [
        ("kernarg0_gfx942_v4.hsaco", 4),
        ("kernarg0_gfx942_v5.hsaco", 5),
        ("kernarg0_gfx942_v6.hsaco", 6),
    ] {
        let co = load_fixture(name);
        assert_eq!(co.version, version, "{name}");
        assert_eq!(co.gpu, Gpu::GFX942);
        assert_eq!(co.generic, None);
        assert_eq!(co.kernels.len(), 3, "{name}");
        let fill = co.kernel("fill").expect("fill");
        // readelf -s: fill FUNC 0x1900, fill.kd 0x780; twice 0x1a00, twice.kd 0x7c0.
        assert_eq!((fill.entry, fill.kd_addr), (0x1900, 0x780));
        assert_eq!(fill.descriptor.kernarg_size, 0);
        assert_eq!(fill.descriptor.group_segment_fixed_size, 0);
        assert_eq!(fill.kernarg_size, 16);
        assert_eq!(fill.group_segment_fixed_size, 256);
        let twice = co.kernel("twice").expect("twice");
        assert_eq!((twice.entry, twice.kd_addr), (0x1a00, 0x7c0));
        assert_eq!(twice.descriptor.kernarg_size, 0);
        assert_eq!(twice.kernarg_size, 16);
        assert_eq!(twice.explicit_args().count(), 2);
    }
}

/// A non-zero descriptor size that disagrees with the metadata is still an error.
#[test]
fn nonzero_descriptor_size_mismatch_is_an_error() {
    let bytes = fixture("kernarg0_gfx942_v6.hsaco");
    // fill.kd at vaddr 0x780 = file offset 0x780 (first LOAD maps offset 0 at 0); kernarg_size
    // at +8, group segment size at +0. The metadata says 16 and 256.
    for (off, what) in [(0x788, "kernarg segment"), (0x780, "group segment")] {
        let e = load(&patched(&bytes, off, &8u32.to_le_bytes()), None).unwrap_err();
        assert!(
            matches!(&e, LoadError::Kernel { kernel, .. } if kernel == "fill"),
            "{e}"
        );
        assert!(e.to_string().contains(what), "{e}");
        assert!(e.to_string().contains("descriptor says 8"), "{e}");
    }
    // The matching non-zero value loads.
    let ok = load(&patched(&bytes, 0x788, &16u32.to_le_bytes()), None).unwrap();
    assert_eq!(ok.kernel("fill").unwrap().descriptor.kernarg_size, 16);
}

/// A code object v6 generic target (e_flags 0x100055f, gfx9-4-generic) runs as gfx942 by
/// default, as any GPU of its family when one is asked for, and not as another family.
#[test]
fn generic_target_runs_on_its_family() {
    let bytes = fixture("kernarg0_gfx9_4_generic.hsaco");
    let co = load(&bytes, None).unwrap();
    assert_eq!(co.generic, Some("gfx9-4-generic"));
    assert_eq!(co.gpu, Gpu::GFX942);
    assert_eq!(co.version, 6);
    assert_eq!(co.target_id, "amdgcn-amd-amdhsa--gfx9-4-generic");
    assert_eq!(co.kernels.len(), 3);
    assert_eq!(load(&bytes, Some(Gpu::GFX950)).unwrap().gpu, Gpu::GFX950);
    let e = load(&bytes, Some(Gpu::GFX1100)).unwrap_err();
    assert_eq!(
        e,
        LoadError::TargetMismatch {
            found: "gfx9-4-generic".into(),
            want: "gfx1100".into()
        }
    );
}

/// The symbols of the code, labels included, sorted by address and name
/// (`llvm-readelf-22 -s kernarg0_gfx942_v6.hsaco`: `.symtab` entries in section 7).
#[test]
fn code_symbols_include_local_labels() {
    use wavejit_runtime::code_object::SymbolKind::{Func, NoType};
    let co = load_fixture("kernarg0_gfx942_v6.hsaco");
    let got: Vec<(u64, &str, _)> = co
        .code_symbols
        .iter()
        .map(|s| (s.addr, s.name.as_str(), s.kind))
        .collect();
    assert_eq!(
        got,
        vec![
            (0x1900, "fill", Func),
            (0x1a00, "twice", Func),
            (0x1a2c, "L_skip", NoType),
            (0x1b00, "labels", Func),
            (0x1b00, "z_entry", NoType),
            (0x1b18, "L_a", NoType),
            (0x1b20, "G_b", NoType),
            (0x1b20, "L_c", NoType),
        ]
    );
}
