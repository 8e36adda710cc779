//! ELF64 AMDGPU code objects: header checks, segment image, metadata note, symbols.

use super::descriptor::{KernelDescriptor, KD_SIZE};
use super::metadata::{self, Metadata};
use super::{
    check_kernel, generic_from_mach, gpu_from_mach, target_id, target_id_named, CodeObject,
    CodeSymbol, FunctionSymbol, KernelInfo, LoadError, SymbolKind, TargetFeature, MAX_IMAGE_SIZE,
};
use object::elf::{
    FileHeader64, PF_X, PT_LOAD, SHT_DYNSYM, SHT_NOTE, SHT_SYMTAB, STT_FILE, STT_FUNC, STT_NOTYPE,
    STT_OBJECT, STT_SECTION,
};
use object::read::elf::{ElfFile64, FileHeader, ProgramHeader, SectionHeader, Sym};
use object::LittleEndian;
use std::collections::HashMap;
use std::ops::Range;

/// `e_machine` of AMDGPU code objects.
const EM_AMDGPU: u16 = 224;
/// `EI_OSABI` of HSA code objects.
const ELFOSABI_AMDGPU_HSA: u8 = 64;
/// Note type of the MessagePack metadata (owner "AMDGPU").
const NT_AMDGPU_METADATA: u32 = 32;

/// Code object version from `EI_ABIVERSION` (AMDGPUUsage "ELF Header": 2 = v4, 3 = v5, 4 = v6).
fn version_from_abi(abi: u8) -> Result<u32, LoadError> {
    match abi {
        2 => Ok(4),
        3 => Ok(5),
        4 => Ok(6),
        0 | 1 => Err(LoadError::UnsupportedVersion(format!(
            "EI_ABIVERSION {abi} is code object v{}; wavejit loads v4, v5 and v6",
            abi + 2
        ))),
        _ => Err(LoadError::UnsupportedVersion(format!(
            "unknown EI_ABIVERSION {abi}; wavejit loads v4 (2), v5 (3) and v6 (4)"
        ))),
    }
}

fn malformed(e: impl std::fmt::Display) -> LoadError {
    LoadError::MalformedElf(e.to_string())
}

/// Loads an ELF code object.
pub(super) fn load_elf(bytes: &[u8]) -> Result<CodeObject, LoadError> {
    if !bytes.starts_with(b"\x7fELF") {
        return Err(LoadError::NotElf);
    }
    if bytes.len() < 64 {
        return Err(malformed(format!(
            "file is {} bytes, shorter than an ELF64 header",
            bytes.len()
        )));
    }
    // e_ident: [4] class, [5] data encoding, [7] OS ABI, [8] ABI version.
    if bytes[4] != 2 {
        return Err(LoadError::WrongMachine("not a 64-bit ELF file".into()));
    }
    if bytes[5] != 1 {
        return Err(LoadError::WrongMachine(
            "not a little-endian ELF file".into(),
        ));
    }
    let file = ElfFile64::<LittleEndian>::parse(bytes).map_err(malformed)?;
    let endian = LittleEndian;
    let hdr: &FileHeader64<LittleEndian> = file.elf_header();
    let machine = hdr.e_machine(endian).0;
    if machine != EM_AMDGPU {
        return Err(LoadError::WrongMachine(format!(
            "e_machine is {machine}, not EM_AMDGPU (224)"
        )));
    }
    if bytes[7] != ELFOSABI_AMDGPU_HSA {
        return Err(LoadError::UnsupportedVersion(format!(
            "EI_OSABI is {}, not ELFOSABI_AMDGPU_HSA (64)",
            bytes[7]
        )));
    }
    let version = version_from_abi(bytes[8])?;
    let flags = hdr.e_flags(endian).0;
    let mach = flags & 0xff;
    let generic = generic_from_mach(mach);
    let gpu = gpu_from_mach(mach)
        .or(generic.map(|(_, g)| g))
        .ok_or_else(|| {
            LoadError::UnsupportedTarget(format!(
                "with EF_AMDGPU_MACH {mach:#x} (e_flags {flags:#x})"
            ))
        })?;
    // e_flags bits 9:8 XNACK, 11:10 SRAMECC (v4+ encoding).
    let xnack = TargetFeature::from_bits(flags >> 8);
    let sramecc = TargetFeature::from_bits(flags >> 10);

    let (image, exec_ranges) = build_image(&file, bytes)?;
    let meta = read_metadata(&file, bytes)?;
    // amdhsa.version is [1, 1] for code object v4 and [1, 2] for v5/v6; another major
    // version means a metadata layout this loader does not know.
    if meta.version.first() != Some(&1) {
        return Err(LoadError::MalformedMetadata(format!(
            "unsupported amdhsa.version {:?} (expected major version 1)",
            meta.version
        )));
    }
    let tid = match generic {
        Some((name, _)) => target_id_named(name, sramecc, xnack),
        None => target_id(gpu, sramecc, xnack),
    };
    let proc_name = generic.map_or_else(|| gpu.to_string(), |(n, _)| n.to_string());
    if let Some(t) = &meta.target {
        let base = t.split(':').next().unwrap_or(t);
        // Newer LLVM (the one inside Triton 3.9) spells the target triple
        // `amdgpuMAJ.MIN-amd-amdhsa-unknown-<gpu>`, e.g. `amdgpu9.42-amd-amdhsa-unknown-gfx942`.
        let new_spelling = base
            .strip_prefix("amdgpu")
            .and_then(|r| r.split_once("-amd-amdhsa-unknown-"))
            .is_some_and(|(_, g)| g == proc_name);
        if base != format!("amdgcn-amd-amdhsa--{proc_name}") && !new_spelling {
            return Err(LoadError::MalformedMetadata(format!(
                "amdhsa.target {t} does not match the ELF header's target {tid}"
            )));
        }
    }
    let symbols = read_symbols(&file, bytes)?;
    let mut kernels = Vec::with_capacity(meta.kernels.len());
    for km in meta.kernels {
        let k = kernel_info(km, &symbols, &image)?;
        check_kernel(&k, gpu, &exec_ranges)?;
        kernels.push(k);
    }
    let mut functions: Vec<FunctionSymbol> = symbols
        .iter()
        .filter(|(_, s)| s.func && exec_ranges.iter().any(|r| r.contains(&s.value)))
        .map(|(name, s)| FunctionSymbol {
            name: name.clone(),
            addr: s.value,
            size: s.size,
        })
        .collect();
    functions.sort_by(|a, b| (a.addr, &a.name).cmp(&(b.addr, &b.name)));
    let code_symbols = read_code_symbols(&file, bytes, &exec_ranges)?;
    Ok(CodeObject {
        functions,
        code_symbols,
        gpu,
        xnack,
        sramecc,
        version,
        generic: generic.map(|(n, _)| n),
        target_id: tid,
        image,
        exec_ranges,
        kernels,
    })
}

/// Places every `PT_LOAD` segment at its virtual address.
fn build_image(
    file: &ElfFile64<'_, LittleEndian>,
    bytes: &[u8],
) -> Result<(Vec<u8>, Vec<Range<u64>>), LoadError> {
    let endian = LittleEndian;
    let mut end = 0u64;
    let mut loads = Vec::new();
    for (i, ph) in file.elf_program_headers().iter().enumerate() {
        if ph.p_type(endian) != PT_LOAD {
            continue;
        }
        let vaddr = ph.p_vaddr(endian);
        let memsz = ph.p_memsz(endian);
        let filesz = ph.p_filesz(endian);
        if filesz > memsz {
            return Err(malformed(format!(
                "segment {i}: file size {filesz:#x} exceeds memory size {memsz:#x}"
            )));
        }
        let seg_end = vaddr
            .checked_add(memsz)
            .filter(|&e| e <= MAX_IMAGE_SIZE)
            .ok_or_else(|| malformed(format!("segment {i}: {vaddr:#x}+{memsz:#x} exceeds the {MAX_IMAGE_SIZE:#x}-byte image limit")))?;
        let data = ph
            .data(endian, bytes)
            .map_err(|()| malformed(format!("segment {i}: file range is outside the file")))?;
        end = end.max(seg_end);
        let exec = ph.p_flags(endian).0 & PF_X.0 != 0;
        loads.push((vaddr, seg_end, data, exec));
    }
    if loads.is_empty() {
        return Err(malformed("no PT_LOAD segment"));
    }
    // end <= MAX_IMAGE_SIZE, so the conversions below cannot truncate.
    let mut image = vec![0u8; end as usize];
    let mut exec_ranges = Vec::new();
    for (vaddr, seg_end, data, exec) in loads {
        let start = vaddr as usize;
        image[start..start + data.len()].copy_from_slice(data);
        if exec && seg_end > vaddr {
            exec_ranges.push(vaddr..seg_end);
        }
    }
    Ok((image, exec_ranges))
}

/// Finds and decodes the NT_AMDGPU_METADATA note, in note segments or else note sections.
fn read_metadata(file: &ElfFile64<'_, LittleEndian>, bytes: &[u8]) -> Result<Metadata, LoadError> {
    let endian = LittleEndian;
    let note_err =
        |e: object::read::Error| LoadError::MalformedMetadata(format!("bad ELF note: {e}"));
    let mut iters = Vec::new();
    for ph in file.elf_program_headers() {
        if let Some(it) = ph.notes(endian, bytes).map_err(note_err)? {
            iters.push(it);
        }
    }
    if iters.is_empty() {
        for sh in file.elf_section_table().iter() {
            if sh.sh_type(endian) == SHT_NOTE {
                if let Some(it) = sh.notes(endian, bytes).map_err(note_err)? {
                    iters.push(it);
                }
            }
        }
    }
    for mut it in iters {
        while let Some(note) = it.next().map_err(note_err)? {
            if note.name() == b"AMDGPU" && note.n_type(endian).0 == NT_AMDGPU_METADATA {
                return metadata::parse(note.desc());
            }
        }
    }
    Err(LoadError::MissingMetadata)
}

/// A defined symbol: value, size, is a function.
#[derive(Clone, Copy)]
struct SymInfo {
    value: u64,
    size: u64,
    func: bool,
}

/// Defined symbols of `.dynsym` and `.symtab` by name (the first definition wins).
fn read_symbols(
    file: &ElfFile64<'_, LittleEndian>,
    bytes: &[u8],
) -> Result<HashMap<String, SymInfo>, LoadError> {
    let endian = LittleEndian;
    let mut map = HashMap::new();
    for kind in [SHT_DYNSYM, SHT_SYMTAB] {
        let table = file
            .elf_section_table()
            .symbols(endian, bytes, kind)
            .map_err(malformed)?;
        let strings = table.strings();
        for sym in table.iter() {
            if sym.is_undefined(endian) {
                continue;
            }
            let Ok(name) = sym.name(endian, strings) else {
                continue;
            };
            let Ok(name) = std::str::from_utf8(name) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            map.entry(name.to_string()).or_insert(SymInfo {
                value: sym.st_value(endian),
                size: sym.st_size(endian),
                func: sym.st_type() == STT_FUNC,
            });
        }
    }
    Ok(map)
}

/// The named symbols in executable segments, from `.symtab` (or `.dynsym` without one),
/// sorted by address and name.
fn read_code_symbols(
    file: &ElfFile64<'_, LittleEndian>,
    bytes: &[u8],
    exec: &[Range<u64>],
) -> Result<Vec<CodeSymbol>, LoadError> {
    let endian = LittleEndian;
    let sections = file.elf_section_table();
    let mut table = sections
        .symbols(endian, bytes, SHT_SYMTAB)
        .map_err(malformed)?;
    if table.is_empty() {
        table = sections
            .symbols(endian, bytes, SHT_DYNSYM)
            .map_err(malformed)?;
    }
    let strings = table.strings();
    let mut out = Vec::new();
    for sym in table.iter() {
        let addr = sym.st_value(endian);
        if sym.is_undefined(endian)
            || sym.st_type() == STT_SECTION
            || sym.st_type() == STT_FILE
            || !exec.iter().any(|r| r.contains(&addr))
        {
            continue;
        }
        let Some(name) = sym
            .name(endian, strings)
            .ok()
            .and_then(|n| std::str::from_utf8(n).ok())
            .filter(|n| !n.is_empty())
        else {
            continue;
        };
        let kind = match sym.st_type() {
            STT_NOTYPE => SymbolKind::NoType,
            STT_FUNC => SymbolKind::Func,
            STT_OBJECT => SymbolKind::Object,
            _ => SymbolKind::Other,
        };
        out.push(CodeSymbol {
            name: name.to_string(),
            addr,
            kind,
        });
    }
    out.sort_by(|a, b| (a.addr, &a.name).cmp(&(b.addr, &b.name)));
    Ok(out)
}

fn kernel_info(
    km: metadata::KernelMeta,
    symbols: &HashMap<String, SymInfo>,
    image: &[u8],
) -> Result<KernelInfo, LoadError> {
    let kd_sym = symbols.get(&km.symbol).ok_or_else(|| {
        LoadError::Descriptor(format!(
            "kernel {}: descriptor symbol {} not found",
            km.name, km.symbol
        ))
    })?;
    if kd_sym.size != 0 && kd_sym.size != KD_SIZE as u64 {
        return Err(LoadError::Descriptor(format!(
            "kernel {}: descriptor symbol {} is {} bytes, not {KD_SIZE}",
            km.name, km.symbol, kd_sym.size
        )));
    }
    let kd_addr = kd_sym.value;
    let raw: &[u8; KD_SIZE] = usize::try_from(kd_addr)
        .ok()
        .and_then(|a| image.get(a..a.checked_add(KD_SIZE)?))
        .and_then(|s| s.try_into().ok())
        .ok_or_else(|| {
            LoadError::Descriptor(format!(
                "kernel {}: descriptor {} at {kd_addr:#x} is outside the loaded image ({:#x} bytes)",
                km.name,
                km.symbol,
                image.len()
            ))
        })?;
    let descriptor = KernelDescriptor::parse(raw);
    let entry = (kd_addr as i64)
        .checked_add(descriptor.entry_offset)
        .and_then(|e| u64::try_from(e).ok())
        .ok_or_else(|| {
            LoadError::Descriptor(format!(
                "kernel {}: entry offset {:#x} from descriptor {kd_addr:#x} overflows",
                km.name, descriptor.entry_offset
            ))
        })?;
    let symbol_addr = symbols
        .get(&km.name)
        .filter(|s| s.func)
        .map(|s| s.value)
        .unwrap_or(entry);
    Ok(KernelInfo {
        name: km.name,
        symbol_addr,
        kd_addr,
        entry,
        descriptor,
        args: km.args,
        kernarg_size: km.kernarg_size,
        kernarg_align: km.kernarg_align,
        group_segment_fixed_size: km.group_segment_fixed_size,
        private_segment_fixed_size: km.private_segment_fixed_size,
        wave_size: km.wave_size,
        sgpr_count: km.sgpr_count,
        vgpr_count: km.vgpr_count,
        agpr_count: km.agpr_count,
        max_flat_workgroup_size: km.max_flat_workgroup_size,
        uses_dynamic_stack: km.uses_dynamic_stack,
    })
}
