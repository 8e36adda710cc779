//! Code-object images handed to the runtime: the fat-binary wrapper clang emits for each
//! translation unit, the clang offload bundle inside it, and plain AMDGPU ELF files.
//!
//! Formats: the wrapper is `{ u32 magic = 0x48495046 ("FPIH" little-endian), u32 version,
//! const void *bundle, void *reserved }` (clang `CGCUDANV.cpp`); a bundle is the 24-byte
//! magic `__CLANG_OFFLOAD_BUNDLE__`, a u64 entry count, then per entry u64 offset, u64 size,
//! u64 id length and the id (`hipv4-amdgcn-amd-amdhsa--gfx942`). Neither carries its total
//! length, so it is computed from the headers before any slice is formed.

use wavejit_translator::isa::Gpu;

use crate::error::{HipError, HipResult, INVALID_IMAGE, NO_BINARY_FOR_GPU};

/// Magic of the fat-binary wrapper.
pub const WRAPPER_MAGIC: u32 = 0x4849_5046;
/// Magic of an uncompressed offload bundle.
pub const BUNDLE_MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic of a compressed offload bundle.
pub const COMPRESSED_MAGIC: &[u8; 4] = b"CCOB";
/// ELF magic.
pub const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// Largest image accepted from a raw pointer (a sanity bound on header-derived lengths).
const MAX_IMAGE: u64 = 1 << 32;

/// Reads `N` bytes at `p + off`.
///
/// # Safety
/// `p + off .. p + off + N` must be readable.
unsafe fn read_at<const N: usize>(p: *const u8, off: u64) -> [u8; N] {
    let mut b = [0u8; N];
    // SAFETY: the caller guarantees the range is readable; `b` is a distinct local array.
    unsafe { std::ptr::copy_nonoverlapping(p.add(off as usize), b.as_mut_ptr(), N) };
    b
}

fn bad(msg: impl Into<String>) -> HipError {
    HipError::new(INVALID_IMAGE, msg)
}

/// The length of the offload bundle at `p`, from its entry table.
///
/// # Safety
/// `p` must point to a complete offload bundle (the runtime is handed one by the program's
/// registration code or by `hipModuleLoadData`, whose contract this is).
pub unsafe fn bundle_len(p: *const u8) -> HipResult<u64> {
    // SAFETY: a bundle starts with a 24-byte magic and an 8-byte count.
    let count = u64::from_le_bytes(unsafe { read_at::<8>(p, 24) });
    if count > 4096 {
        return Err(bad(format!("offload bundle claims {count} entries")));
    }
    let mut pos = 32u64;
    let mut end = pos;
    for _ in 0..count {
        // SAFETY: the entry table lies inside the bundle, entry by entry as counted.
        let h = unsafe { read_at::<24>(p, pos) };
        let field = |i: usize| u64::from_le_bytes(h[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
        let (offset, size, id_len) = (field(0), field(1), field(2));
        if id_len > 4096 {
            return Err(bad("offload bundle entry id longer than 4096 bytes"));
        }
        pos += 24 + id_len;
        end = end.max(pos).max(offset.saturating_add(size));
    }
    if end > MAX_IMAGE {
        return Err(bad(format!("offload bundle of {end} bytes")));
    }
    Ok(end)
}

/// The length of the ELF file at `p`: the furthest of its section contents, section header
/// table and program segments.
///
/// # Safety
/// `p` must point to a complete ELF64 file.
pub unsafe fn elf_len(p: *const u8) -> HipResult<u64> {
    // SAFETY: an ELF64 header is 64 bytes.
    let h = unsafe { read_at::<64>(p, 0) };
    if h[4] != 2 || h[5] != 1 {
        return Err(bad("not a 64-bit little-endian ELF file"));
    }
    let u16at = |o: usize| u16::from_le_bytes([h[o], h[o + 1]]) as u64;
    let u64at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8]));
    let (phoff, shoff) = (u64at(&h, 0x20), u64at(&h, 0x28));
    let (phentsize, phnum, shentsize, shnum) = (u16at(0x36), u16at(0x38), u16at(0x3a), u16at(0x3c));
    if (phnum > 0 && phentsize < 56) || (shnum > 0 && shentsize < 64) {
        return Err(bad("ELF header entry sizes are too small"));
    }
    let mut end = 64u64
        .max(phoff.saturating_add(phnum * phentsize))
        .max(shoff.saturating_add(shnum * shentsize));
    if end > MAX_IMAGE {
        return Err(bad("ELF headers point past 4 GiB"));
    }
    for i in 0..phnum {
        // SAFETY: the program header table lies inside the file (bounded above).
        let ph = unsafe { read_at::<56>(p, phoff + i * phentsize) };
        end = end.max(u64at(&ph, 8).saturating_add(u64at(&ph, 32)));
    }
    for i in 0..shnum {
        // SAFETY: the section header table lies inside the file (bounded above).
        let sh = unsafe { read_at::<64>(p, shoff + i * shentsize) };
        let sh_type = u32::from_le_bytes([sh[4], sh[5], sh[6], sh[7]]);
        if sh_type != 8 {
            // Not SHT_NOBITS: the contents are in the file.
            end = end.max(u64at(&sh, 24).saturating_add(u64at(&sh, 32)));
        }
    }
    if end > MAX_IMAGE {
        return Err(bad("ELF sections point past 4 GiB"));
    }
    Ok(end)
}

/// The bytes of the image (bundle or ELF) at `p`.
///
/// # Safety
/// `p` must point to a complete offload bundle or ELF file that outlives the returned slice.
pub unsafe fn image_at<'a>(p: *const u8) -> HipResult<&'a [u8]> {
    if p.is_null() {
        return Err(HipError::new(
            crate::error::INVALID_VALUE,
            "null image pointer",
        ));
    }
    // SAFETY: every image format starts with at least 4 magic bytes.
    let head4 = unsafe { read_at::<4>(p, 0) };
    let len = if &head4 == ELF_MAGIC {
        // SAFETY: the caller passes a complete ELF file.
        unsafe { elf_len(p)? }
    } else if &head4 == COMPRESSED_MAGIC {
        return Err(bad(
            "the offload bundle is compressed (--offload-compress); wavejit reads uncompressed bundles: rebuild without it",
        ));
    } else if &head4 == b"__CL" && unsafe { read_at::<24>(p, 0) } == *BUNDLE_MAGIC {
        // SAFETY: the magic says this is a bundle, which the caller passes whole.
        unsafe { bundle_len(p)? }
    } else {
        return Err(bad(
            "neither an AMDGPU ELF code object nor a clang offload bundle",
        ));
    };
    // SAFETY: `len` was derived from the image's own headers; the caller guarantees the image
    // is complete and outlives `'a`.
    Ok(unsafe { std::slice::from_raw_parts(p, len as usize) })
}

/// One device entry of a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Processor name (`gfx942`).
    pub processor: String,
    /// The code object.
    pub data: &'a [u8],
}

/// The AMDGPU entries of an uncompressed bundle (bounds-checked).
pub fn bundle_entries(b: &[u8]) -> HipResult<Vec<Entry<'_>>> {
    let u64at = |o: usize| -> HipResult<u64> {
        b.get(o..o + 8)
            .map(|s| u64::from_le_bytes(s.try_into().unwrap_or([0; 8])))
            .ok_or_else(|| bad("truncated offload bundle"))
    };
    if !b.starts_with(BUNDLE_MAGIC) {
        return Err(bad("missing __CLANG_OFFLOAD_BUNDLE__ magic"));
    }
    let count = u64at(24)?;
    let mut pos = 32usize;
    let mut out = Vec::new();
    for _ in 0..count.min(4096) {
        let (offset, size, id_len) = (u64at(pos)?, u64at(pos + 8)?, u64at(pos + 16)? as usize);
        let id = b
            .get(pos + 24..pos + 24 + id_len)
            .ok_or_else(|| bad("truncated offload bundle entry id"))?;
        pos += 24 + id_len;
        let id = String::from_utf8_lossy(id);
        let Some(rest) = id.split_once("amdgcn-amd-amdhsa-").map(|(_, r)| r) else {
            continue; // the host entry
        };
        // `-gfx942` or `-unknown-gfx942`, then `:feature±` suffixes.
        // Features may contain '-', so the separator is the last '-' before the first ':'.
        let proc_end = rest.find(':').unwrap_or(rest.len());
        let start = rest[..proc_end].rfind('-').map_or(0, |i| i + 1);
        let processor = rest[start..proc_end].to_string();
        let data = b
            .get(offset as usize..(offset as usize).saturating_add(size as usize))
            .ok_or_else(|| bad(format!("bundle entry {id} lies outside the bundle")))?;
        if !data.is_empty() {
            out.push(Entry { processor, data });
        }
    }
    Ok(out)
}

/// The code object for `gpu` in `image` (a bundle, or an ELF returned as it is).
pub fn select(image: &[u8], gpu: Gpu) -> HipResult<&[u8]> {
    if image.starts_with(ELF_MAGIC) {
        return Ok(image);
    }
    let entries = bundle_entries(image)?;
    let want = gpu.to_string();
    if let Some(e) = entries.iter().find(|e| e.processor == want) {
        return Ok(e.data);
    }
    let have: Vec<&str> = entries.iter().map(|e| e.processor.as_str()).collect();
    Err(HipError::new(
        NO_BINARY_FOR_GPU,
        format!(
            "the program has no code object for {want} (the emulated GPU, WAVEJIT_GPU); it has: {}. \
             Rebuild with --offload-arch={want} or set WAVEJIT_GPU to one of those",
            if have.is_empty() { "none".to_string() } else { have.join(", ") }
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut head = BUNDLE_MAGIC.to_vec();
        head.extend((entries.len() as u64).to_le_bytes());
        let table: usize = entries.iter().map(|(id, _)| 24 + id.len()).sum();
        let mut off = (32 + table) as u64;
        let mut data: Vec<u8> = Vec::new();
        for (id, d) in entries {
            head.extend(off.to_le_bytes());
            head.extend((d.len() as u64).to_le_bytes());
            head.extend((id.len() as u64).to_le_bytes());
            head.extend(id.as_bytes());
            data.extend(*d);
            off += d.len() as u64;
        }
        head.extend(data);
        head
    }

    #[test]
    fn bundles_are_measured_and_selected_by_processor() {
        let b = bundle(&[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", b"AAAA"),
            ("hipv4-amdgcn-amd-amdhsa--gfx1100", b"BBBBBB"),
        ]);
        // SAFETY: `b` is a complete bundle.
        let len = unsafe { bundle_len(b.as_ptr()) }.unwrap();
        assert_eq!(len as usize, b.len());
        // SAFETY: as above.
        let img = unsafe { image_at(b.as_ptr()) }.unwrap();
        assert_eq!(img.len(), b.len());
        assert_eq!(select(img, Gpu::GFX942).unwrap(), b"AAAA");
        assert_eq!(select(img, Gpu::GFX1100).unwrap(), b"BBBBBB");
        let e = select(img, Gpu::GFX1201).unwrap_err();
        assert_eq!(e.code, NO_BINARY_FOR_GPU);
        assert!(e.message.contains("gfx942, gfx1100"), "{}", e.message);
    }

    #[test]
    fn truncated_bundles_are_rejected() {
        let mut b = bundle(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"AAAA")]);
        b.truncate(b.len() - 2);
        assert!(select(&b, Gpu::GFX942).is_err());
        assert!(bundle_entries(&b[..30]).is_err());
    }
}
