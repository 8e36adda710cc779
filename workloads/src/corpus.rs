//! The bundled kernel corpus: code objects built from `tests/kernels/src/*.hip` by
//! `tests/kernels/build.sh` and embedded in the binary, so `wavejit demo` and `wavejit bench`
//! need no files or compiler at run time. Each object is embedded in its gfx942 (CDNA3) and
//! gfx950 (CDNA4) builds; the RDNA builds stay in `tests/kernels/<target>/`.

/// One bundled code object (one HIP source file, one or more kernels).
#[derive(Clone, Copy, Debug)]
pub struct CorpusObject {
    /// Object name: the source file's stem (`vadd` for `tests/kernels/src/vadd.hip`).
    pub name: &'static str,
    /// The kernels the object defines, in source order.
    pub kernels: &'static [&'static str],
    /// One-line description of what the object exercises.
    pub about: &'static str,
    /// The ELF code object (gfx942, code object v6).
    pub bytes: &'static [u8],
    /// The same source built for gfx950 (code object v6).
    pub gfx950: &'static [u8],
}

impl CorpusObject {
    /// The object's build for `target` (`"gfx942"` or `"gfx950"`), if bundled.
    pub fn for_target(&self, target: &str) -> Option<&'static [u8]> {
        match target {
            "gfx942" => Some(self.bytes),
            "gfx950" => Some(self.gfx950),
            _ => None,
        }
    }
}

/// The targets whose builds are bundled, in `CorpusObject::for_target` spelling.
pub const TARGETS: &[&str] = &["gfx942", "gfx950"];

macro_rules! obj {
    ($name:literal, [$($k:literal),+], $about:literal) => {
        CorpusObject {
            name: $name,
            kernels: &[$($k),+],
            about: $about,
            bytes: include_bytes!(concat!("../../tests/kernels/gfx942/", $name, ".hsaco")),
            gfx950: include_bytes!(concat!("../../tests/kernels/gfx950/", $name, ".hsaco")),
        }
    };
}

/// Every bundled object, sorted by name.
pub const OBJECTS: &[CorpusObject] = &[
    obj!(
        "alu_fma",
        ["alu_fma"],
        "ALU-bound benchmark: 4 f32 FMA chains per lane (packed FMA)"
    ),
    obj!(
        "atomics",
        ["atomics"],
        "global atomics: add/min/max/and/or/xor, cmpswap loop, f32 add"
    ),
    obj!(
        "barrier_loop",
        ["barrier_loop"],
        "two s_barrier per loop iteration over an LDS ring"
    ),
    obj!(
        "control",
        ["divergent"],
        "nested if/else, per-lane loops, break, early return"
    ),
    obj!(
        "dynlds",
        ["dyn_lds_reverse"],
        "dynamic LDS (extern __shared__) after a static LDS array"
    ),
    obj!(
        "floatmath",
        ["float_ops", "double_ops", "convert"],
        "f32/f64 div, sqrt, fma, min/max, rounding; f16/f32/f64/int conversions"
    ),
    obj!(
        "indexing",
        ["index2d", "index3d"],
        "2D/3D indexing with partial edge workgroups"
    ),
    obj!(
        "intops",
        ["int_ops32", "int_ops64"],
        "32/64-bit signed/unsigned div/rem, shifts, bit ops, popcount, clz"
    ),
    obj!(
        "memwidth",
        ["mem_widths"],
        "8-, 16- and 64-bit loads and stores"
    ),
    obj!(
        "reduce",
        ["lds_reduce", "wave_ops", "wave_scan"],
        "LDS tree reduction (4 waves); DPP, ds_swizzle, ds_bpermute, readlane"
    ),
    obj!(
        "scan",
        ["block_scan"],
        "workgroup inclusive prefix sum in LDS"
    ),
    obj!(
        "scratch",
        ["private_array", "private_flat"],
        "private arrays with dynamic indexing (scratch_ and flat-to-private)"
    ),
    obj!("vadd", ["vadd", "saxpy"], "f32 vector add and saxpy"),
];

/// The bundled object called `name`, if any.
pub fn find(name: &str) -> Option<&'static CorpusObject> {
    OBJECTS.iter().find(|o| o.name == name)
}

/// The bytes of the bundled object called `name`; empty (which no loader accepts) if there is
/// no such object.
pub fn object(name: &str) -> &'static [u8] {
    find(name).map_or(&[], |o| o.bytes)
}

/// The bundled object that defines the kernel `kernel`, if any.
pub fn object_for_kernel(kernel: &str) -> Option<&'static CorpusObject> {
    OBJECTS.iter().find(|o| o.kernels.contains(&kernel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_object_is_an_amdgpu_elf_naming_its_kernels() {
        // EF_AMDGPU_MACH (e_flags bits 0-7): 0x4c = gfx942, 0x4f = gfx950 (LLVM AMDGPUUsage).
        for (o, target, mach) in OBJECTS
            .iter()
            .flat_map(|o| [(o, "gfx942", 0x4c), (o, "gfx950", 0x4f)])
        {
            let bytes = o.for_target(target).unwrap();
            assert_eq!(bytes[48], mach, "{} {target}: e_flags mach", o.name);
            let o = CorpusObject { bytes, ..*o };
            assert_eq!(&o.bytes[..4], b"\x7fELF", "{}", o.name);
            assert_eq!(
                u16::from_le_bytes([o.bytes[18], o.bytes[19]]),
                224,
                "{}: EM_AMDGPU",
                o.name
            );
            for k in o.kernels {
                // Each kernel has a `<name>.kd` descriptor symbol in the string table.
                let kd = format!("{k}.kd\0");
                assert!(
                    o.bytes.windows(kd.len()).any(|w| w == kd.as_bytes()),
                    "{}: {k}",
                    o.name
                );
            }
        }
    }

    #[test]
    fn lookups() {
        assert_eq!(
            object_for_kernel("wave_ops").map(|o| o.name),
            Some("reduce")
        );
        assert!(object("no_such_object").is_empty());
        assert!(find("vadd").is_some_and(|o| o.for_target("gfx1100").is_none()));
        assert_ne!(
            find("vadd").map(|o| o.bytes),
            find("vadd").map(|o| o.gfx950)
        );
        assert!(find("vadd").is_some_and(|o| o.kernels == ["vadd", "saxpy"]));
    }
}
