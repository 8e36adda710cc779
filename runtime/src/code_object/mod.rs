//! Loading AMDGPU code objects: ELF64 HSA code objects v4, v5 and v6, and clang offload
//! bundles holding them.
//!
//! [`load`] checks the ELF header (class, machine, OS ABI, ABI version, target in
//! `e_flags`), places the loadable segments into one image at their virtual addresses,
//! reads the MessagePack metadata note, and for every kernel in `amdhsa.kernels` decodes the
//! kernel descriptor at its `.kd` symbol and cross-checks it against the metadata.
//! Everything is checked: malformed input gives a [`LoadError`], never a panic.
//!
//! References: LLVM `AMDGPUUsage.rst` ("ELF Code Object", "Code Object Metadata", "Kernel
//! Descriptor"), clang's `OffloadBundler.cpp` for bundles.

mod bundle;
mod descriptor;
mod elf;
mod metadata;

pub use bundle::{BundleEntry, BUNDLE_MAGIC};
pub use descriptor::{KernelDescriptor, KD_SIZE};
pub use metadata::{ArgInfo, ArgKind, HiddenArg};

use std::ops::Range;
use thiserror::Error;
use wavejit_translator::isa::{Family, Gpu};

/// The state of a target feature (xnack, sramecc) in the code object's `e_flags`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TargetFeature {
    /// The code runs with the feature on or off (`e_flags` value 1).
    Any,
    /// Compiled for the feature on (`+`, value 3).
    On,
    /// Compiled for the feature off (`-`, value 2).
    Off,
    /// The target does not have the feature (value 0).
    Unsupported,
}

impl TargetFeature {
    fn from_bits(b: u32) -> TargetFeature {
        match b & 3 {
            0 => TargetFeature::Unsupported,
            1 => TargetFeature::Any,
            2 => TargetFeature::Off,
            _ => TargetFeature::On,
        }
    }

    /// The target-id suffix (`+`/`-`), `None` for `Any` and `Unsupported`.
    pub fn suffix(self) -> Option<char> {
        match self {
            TargetFeature::On => Some('+'),
            TargetFeature::Off => Some('-'),
            _ => None,
        }
    }
}

/// A loaded code object.
#[derive(Clone, Debug)]
pub struct CodeObject {
    /// The GPU the code was compiled for.
    pub gpu: Gpu,
    /// XNACK mode.
    pub xnack: TargetFeature,
    /// SRAMECC mode.
    pub sramecc: TargetFeature,
    /// Code object version: 4, 5 or 6.
    pub version: u32,
    /// For a code object v6 generic target (`gfx9-4-generic`, `gfx11-generic`,
    /// `gfx12-generic`), its name; `gpu` is then the GPU it runs as (the one asked for at
    /// load time, else the family's first: gfx942, gfx1100, gfx1200).
    pub generic: Option<&'static str>,
    /// The full target id, e.g. `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
    pub target_id: String,
    /// All `PT_LOAD` segments placed at their `p_vaddr` (`image[v]` is the byte at virtual
    /// address `v`); bytes past a segment's file size (bss) and gaps are zero.
    pub image: Vec<u8>,
    /// Virtual address ranges of the executable segments.
    pub exec_ranges: Vec<Range<u64>>,
    /// The kernels, in metadata order.
    pub kernels: Vec<KernelInfo>,
    /// Function symbols (`STT_FUNC`) in executable segments, sorted by address: kernels and
    /// any non-inlined device functions. Used to bound code listings.
    pub functions: Vec<FunctionSymbol>,
    /// Every named symbol in an executable segment (kernels, functions and local labels such
    /// as the branch targets of hand-written assembly), sorted by address and then name: from
    /// `.symtab`, or `.dynsym` when there is no `.symtab` (what llvm-objdump uses).
    pub code_symbols: Vec<CodeSymbol>,
}

/// The ELF symbol type of a [`CodeSymbol`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// `STT_NOTYPE`: an assembler label.
    NoType,
    /// `STT_FUNC`: a kernel or function.
    Func,
    /// `STT_OBJECT`: data.
    Object,
    /// Any other type.
    Other,
}

/// A named symbol in an executable segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSymbol {
    /// Symbol name.
    pub name: String,
    /// Virtual address.
    pub addr: u64,
    /// ELF symbol type.
    pub kind: SymbolKind,
}

/// A function symbol of the code object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionSymbol {
    /// Symbol name.
    pub name: String,
    /// Virtual address.
    pub addr: u64,
    /// `st_size` (may be 0).
    pub size: u64,
}

impl CodeObject {
    /// The kernel called `name`.
    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// True when `addr` lies in an executable segment.
    pub fn is_executable(&self, addr: u64) -> bool {
        self.exec_ranges.iter().any(|r| r.contains(&addr))
    }

    /// The code bytes from `addr` to the end of its executable segment, `None` when `addr`
    /// is not executable.
    pub fn code_at(&self, addr: u64) -> Option<&[u8]> {
        let r = self.exec_ranges.iter().find(|r| r.contains(&addr))?;
        self.image
            .get(usize::try_from(addr).ok()?..usize::try_from(r.end).ok()?)
    }

    /// Where the code starting at `addr` ends: the next function symbol or kernel entry
    /// after it, or the end of its executable segment (what llvm-objdump lists under one
    /// symbol).
    pub fn code_end(&self, addr: u64) -> Option<u64> {
        let seg_end = self.exec_ranges.iter().find(|r| r.contains(&addr))?.end;
        let next = self
            .functions
            .iter()
            .map(|f| f.addr)
            .chain(self.kernels.iter().map(|k| k.entry))
            .filter(|&a| a > addr && a < seg_end)
            .min();
        Some(next.unwrap_or(seg_end))
    }
}

/// One kernel: metadata, descriptor and addresses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    /// Kernel name (`.name`).
    pub name: String,
    /// Address of the kernel's code symbol (equal to `entry` for compiler output; `entry`
    /// when the object has no such symbol).
    pub symbol_addr: u64,
    /// Address of the kernel descriptor (`.symbol`, `<name>.kd`).
    pub kd_addr: u64,
    /// Virtual address of the first instruction: `kd_addr + descriptor.entry_offset`.
    pub entry: u64,
    /// The decoded kernel descriptor.
    pub descriptor: KernelDescriptor,
    /// Kernel arguments, explicit and hidden, in metadata order.
    pub args: Vec<ArgInfo>,
    /// Kernarg segment size in bytes.
    pub kernarg_size: u32,
    /// Kernarg segment alignment in bytes.
    pub kernarg_align: u32,
    /// Static LDS bytes.
    pub group_segment_fixed_size: u32,
    /// Static scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// 32 or 64.
    pub wave_size: u32,
    /// SGPRs used (metadata `.sgpr_count`).
    pub sgpr_count: u32,
    /// VGPRs used (metadata `.vgpr_count`).
    pub vgpr_count: u32,
    /// AGPRs used (metadata `.agpr_count`, 0 if absent).
    pub agpr_count: u32,
    /// Largest work-group size the kernel supports.
    pub max_flat_workgroup_size: u32,
    /// The kernel needs a dynamically sized stack.
    pub uses_dynamic_stack: bool,
}

impl KernelInfo {
    /// The explicit (caller-supplied) arguments, in order.
    pub fn explicit_args(&self) -> impl Iterator<Item = &ArgInfo> {
        self.args.iter().filter(|a| a.kind.is_explicit())
    }
}

/// Why a code object could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LoadError {
    /// Neither an ELF file nor an offload bundle.
    #[error(
        "not an AMDGPU code object: the file is neither an ELF file nor a clang offload bundle"
    )]
    NotElf,
    /// The ELF header is not a 64-bit little-endian AMDGPU one.
    #[error("not an AMDGPU code object: {0}")]
    WrongMachine(String),
    /// The ELF OS ABI or ABI version is not HSA code object v4, v5 or v6.
    #[error("unsupported code object version: {0}")]
    UnsupportedVersion(String),
    /// The `e_flags` target is not one wavejit runs.
    #[error("unsupported target {0}: wavejit runs gfx942, gfx950, gfx1100-gfx1103, gfx1150-gfx1153, gfx1200 and gfx1201")]
    UnsupportedTarget(String),
    /// The bundle's target does not match the requested one.
    #[error("the code object is for {found}, not {want}")]
    TargetMismatch {
        /// What the code object holds.
        found: String,
        /// What the caller asked for.
        want: String,
    },
    /// Structural ELF error (headers, segments, sections, symbols).
    #[error("malformed ELF: {0}")]
    MalformedElf(String),
    /// No `NT_AMDGPU_METADATA` note.
    #[error("missing metadata: the code object has no NT_AMDGPU_METADATA note (owner \"AMDGPU\")")]
    MissingMetadata,
    /// The note exists but is not valid metadata.
    #[error("malformed metadata note: {0}")]
    MalformedMetadata(String),
    /// A kernel's descriptor symbol is missing or outside the image.
    #[error("kernel descriptor: {0}")]
    Descriptor(String),
    /// Metadata and descriptor disagree, or the kernel cannot run.
    #[error("kernel {kernel}: {reason}")]
    Kernel {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// A malformed offload bundle.
    #[error("malformed offload bundle: {0}")]
    MalformedBundle(String),
    /// The bundle has no usable entry for the target.
    #[error("offload bundle: {0}")]
    BundleTarget(String),
    /// A compressed offload bundle.
    #[error("compressed offload bundles (CCOB) are not supported; unbundle with clang-offload-bundler first")]
    CompressedBundle,
}

/// Largest image (highest segment end address) accepted, to bound allocations on
/// malformed input.
pub const MAX_IMAGE_SIZE: u64 = 256 << 20;

/// `e_flags` EF_AMDGPU_MACH values (bits 7:0), from LLVM's `ELF.h` and checked with
/// llvm-readelf-22 on objects built for each target (see `runtime/tests/fixtures`).
const MACHS: &[(u32, Gpu)] = &[
    (0x4c, Gpu::GFX942),
    (0x4f, Gpu::GFX950),
    (0x41, Gpu { id: 0x1100 }),
    (0x46, Gpu { id: 0x1101 }),
    (0x47, Gpu { id: 0x1102 }),
    (0x44, Gpu { id: 0x1103 }),
    (0x43, Gpu { id: 0x1150 }),
    (0x4a, Gpu { id: 0x1151 }),
    (0x55, Gpu { id: 0x1152 }),
    (0x58, Gpu { id: 0x1153 }),
    (0x48, Gpu::GFX1200),
    (0x4e, Gpu::GFX1201),
];

/// The GPU for an `EF_AMDGPU_MACH` value.
pub fn gpu_from_mach(mach: u32) -> Option<Gpu> {
    MACHS.iter().find(|(m, _)| *m == mach).map(|(_, g)| *g)
}

/// Code object v6 generic targets: `EF_AMDGPU_MACH` value (checked with llvm-readelf-22 on
/// objects assembled by llvm-mc-22 for each), name, and the GPU run by default. A generic
/// object runs on every GPU of that GPU's family (LLVM `AMDGPUUsage.rst`, "Generic
/// Processors": gfx9-4-generic covers gfx942 and gfx950, gfx11-generic gfx1100-gfx1103 and
/// gfx1150-gfx1153, gfx12-generic gfx1200 and gfx1201).
const GENERIC_MACHS: &[(u32, &str, Gpu)] = &[
    (0x5f, "gfx9-4-generic", Gpu::GFX942),
    (0x54, "gfx11-generic", Gpu::GFX1100),
    (0x59, "gfx12-generic", Gpu::GFX1200),
];

/// The generic target name and default GPU for an `EF_AMDGPU_MACH` value.
pub fn generic_from_mach(mach: u32) -> Option<(&'static str, Gpu)> {
    GENERIC_MACHS
        .iter()
        .find(|(m, _, _)| *m == mach)
        .map(|(_, n, g)| (*n, *g))
}

/// Loads a code object (ELF or clang offload bundle). With `want`, a bundle entry for that
/// GPU is chosen and an ELF for another GPU is rejected; without it, a bundle must hold
/// exactly one AMDGPU entry.
pub fn load(bytes: &[u8], want: Option<Gpu>) -> Result<CodeObject, LoadError> {
    let elf_bytes = if bytes.starts_with(BUNDLE_MAGIC) {
        let entries = bundle::parse(bytes)?;
        bundle::select(&entries, want)?
    } else if bytes.starts_with(bundle::COMPRESSED_MAGIC) {
        return Err(LoadError::CompressedBundle);
    } else {
        bytes
    };
    let mut co = elf::load_elf(elf_bytes)?;
    if let Some(w) = want {
        // A generic object runs as any GPU of its family.
        if co.generic.is_some() && w.family().is_some() && w.family() == co.gpu.family() {
            co.gpu = w;
        } else if w != co.gpu {
            return Err(LoadError::TargetMismatch {
                found: co
                    .generic
                    .map_or_else(|| co.gpu.to_string(), str::to_string),
                want: w.to_string(),
            });
        }
    }
    Ok(co)
}

/// Builds the target id (`amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`); features are listed
/// in LLVM's order (sramecc, then xnack) and only when not `Any`/`Unsupported`.
pub fn target_id(gpu: Gpu, sramecc: TargetFeature, xnack: TargetFeature) -> String {
    target_id_named(&gpu.to_string(), sramecc, xnack)
}

/// [`target_id`] for a processor given by name (a generic target such as `gfx11-generic`).
pub fn target_id_named(proc_name: &str, sramecc: TargetFeature, xnack: TargetFeature) -> String {
    let mut s = format!("amdgcn-amd-amdhsa--{proc_name}");
    for (name, f) in [("sramecc", sramecc), ("xnack", xnack)] {
        if let Some(c) = f.suffix() {
            s.push(':');
            s.push_str(name);
            s.push(c);
        }
    }
    s
}

/// Cross-checks one kernel's metadata against its descriptor and the target.
fn check_kernel(k: &KernelInfo, gpu: Gpu, co_exec: &[Range<u64>]) -> Result<(), LoadError> {
    let fail = |reason: String| {
        Err(LoadError::Kernel {
            kernel: k.name.clone(),
            reason,
        })
    };
    let kd = &k.descriptor;
    let kd_wave = if kd.wavefront_size32() { 32 } else { 64 };
    if k.wave_size != kd_wave {
        return fail(format!(
            "metadata wavefront size {} but the descriptor says {kd_wave}",
            k.wave_size
        ));
    }
    if gpu.family() == Some(Family::Gfx9) && kd_wave != 64 {
        return fail(format!(
            "{gpu} only runs wave64, the descriptor asks for wave32"
        ));
    }
    // The ROCm runtime takes these sizes from the metadata and never reads them from the
    // descriptor; hand-written and Tensile kernels leave the descriptor's fields at the
    // assembler's default of 0. So 0 means "see the metadata", and only a non-zero value
    // that disagrees is an error (a deliberate difference: docs/loader.md).
    let sizes = [
        (
            "group segment",
            k.group_segment_fixed_size,
            kd.group_segment_fixed_size,
        ),
        (
            "private segment",
            k.private_segment_fixed_size,
            kd.private_segment_fixed_size,
        ),
        ("kernarg segment", k.kernarg_size, kd.kernarg_size),
    ];
    for (what, meta, desc) in sizes {
        if desc != 0 && desc != meta {
            return fail(format!(
                "metadata {what} size {meta} but the descriptor says {desc}"
            ));
        }
    }
    if !co_exec.iter().any(|r| r.contains(&k.entry)) {
        return fail(format!(
            "entry point {:#x} is not in an executable segment",
            k.entry
        ));
    }
    if !k.entry.is_multiple_of(4) {
        return fail(format!("entry point {:#x} is not 4-byte aligned", k.entry));
    }
    if kd.user_sgpr_count() < kd.enabled_user_sgprs() {
        return fail(format!(
            "descriptor USER_SGPR_COUNT {} is less than the {} user SGPRs its enable bits ask for",
            kd.user_sgpr_count(),
            kd.enabled_user_sgprs()
        ));
    }
    if !k.kernarg_align.is_power_of_two() {
        return fail(format!(
            "kernarg segment alignment {} is not a power of two",
            k.kernarg_align
        ));
    }
    for (i, a) in k.args.iter().enumerate() {
        let end = a.offset as u64 + a.size as u64;
        if end > k.kernarg_size as u64 {
            return fail(format!(
                "argument {i} ({}) at offset {} size {} runs past the kernarg segment ({} bytes)",
                a.name.as_deref().unwrap_or("unnamed"),
                a.offset,
                a.size,
                k.kernarg_size
            ));
        }
    }
    Ok(())
}
