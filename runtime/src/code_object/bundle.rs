//! Clang offload bundles (`clang-offload-bundler` binary format).
//!
//! Layout (clang's `OffloadBundler.cpp`): the 24-byte magic `__CLANG_OFFLOAD_BUNDLE__`, a
//! little-endian u64 entry count, then per entry: u64 offset, u64 size, u64 id length and
//! the id bytes (e.g. `hipv4-amdgcn-amd-amdhsa--gfx942:xnack-`). Offsets are from the start
//! of the file.

use super::LoadError;
use wavejit_translator::isa::Gpu;

/// Magic at the start of an uncompressed bundle.
pub const BUNDLE_MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
/// Magic at the start of a compressed bundle (not supported).
pub const COMPRESSED_MAGIC: &[u8] = b"CCOB";

/// One bundle entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BundleEntry<'a> {
    /// The entry id, e.g. `hipv4-amdgcn-amd-amdhsa--gfx942:sramecc+`.
    pub id: String,
    /// The entry's bytes.
    pub data: &'a [u8],
}

impl BundleEntry<'_> {
    /// The target id part (`gfx942:sramecc+`) of an AMDGPU device entry, `None` for others
    /// (host entries).
    pub fn amdgpu_target(&self) -> Option<&str> {
        let rest = self.id.split_once("amdgcn-amd-amdhsa-")?.1;
        // The environment component may be empty (`--gfx942`) or present (`-unknown-gfx942`).
        // Features (`:xnack-`) may contain '-', so look for the separator before the first ':'.
        let proc_end = rest.find(':').unwrap_or(rest.len());
        let start = rest[..proc_end].rfind('-').map_or(0, |i| i + 1);
        let target = &rest[start..];
        (!target.is_empty()).then_some(target)
    }

    /// The processor name (`gfx942`) of an AMDGPU device entry.
    pub fn processor(&self) -> Option<&str> {
        self.amdgpu_target()
            .map(|t| t.split(':').next().unwrap_or(t))
    }
}

fn read_u64(b: &[u8], off: usize) -> Option<u64> {
    let s = b.get(off..off.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

/// Parses every entry of an uncompressed offload bundle.
pub fn parse(bytes: &[u8]) -> Result<Vec<BundleEntry<'_>>, LoadError> {
    let bad = |what: &str| LoadError::MalformedBundle(what.to_string());
    if !bytes.starts_with(BUNDLE_MAGIC) {
        return Err(bad("missing __CLANG_OFFLOAD_BUNDLE__ magic"));
    }
    let mut pos = BUNDLE_MAGIC.len();
    let count = read_u64(bytes, pos).ok_or_else(|| bad("truncated entry count"))?;
    pos += 8;
    // Each entry header is at least 24 bytes: reject absurd counts before allocating.
    if count > (bytes.len() / 24) as u64 {
        return Err(bad(&format!(
            "entry count {count} does not fit in the file"
        )));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for i in 0..count {
        let field = |p: usize, name: &str| {
            read_u64(bytes, p).ok_or_else(|| bad(&format!("entry {i}: truncated {name}")))
        };
        let offset = field(pos, "offset")?;
        let size = field(pos + 8, "size")?;
        let id_len = field(pos + 16, "id length")?;
        pos += 24;
        let id_end = usize::try_from(id_len)
            .ok()
            .and_then(|l| pos.checked_add(l))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| bad(&format!("entry {i}: id runs past the end of the file")))?;
        let id = String::from_utf8_lossy(&bytes[pos..id_end]).into_owned();
        pos = id_end;
        let data = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, s)| bytes.get(o..o.checked_add(s)?))
            .ok_or_else(|| {
                bad(&format!(
                    "entry {i} ({id}): data range {offset}+{size} is outside the file"
                ))
            })?;
        entries.push(BundleEntry { id, data });
    }
    Ok(entries)
}

/// Picks the AMDGPU entry for `want` (matching processor name), else the only AMDGPU entry.
pub fn select<'a>(entries: &[BundleEntry<'a>], want: Option<Gpu>) -> Result<&'a [u8], LoadError> {
    let device: Vec<&BundleEntry<'a>> = entries
        .iter()
        .filter(|e| e.amdgpu_target().is_some() && !e.data.is_empty())
        .collect();
    let list = || {
        entries
            .iter()
            .map(|e| e.id.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(g) = want {
        let name = g.to_string();
        if let Some(e) = device.iter().find(|e| e.processor() == Some(name.as_str())) {
            return Ok(e.data);
        }
        return Err(LoadError::BundleTarget(format!(
            "no entry for {name}; the bundle has: {}",
            list()
        )));
    }
    match device.as_slice() {
        [only] => Ok(only.data),
        [] => Err(LoadError::BundleTarget(format!(
            "no AMDGPU device entry; the bundle has: {}",
            list()
        ))),
        _ => Err(LoadError::BundleTarget(format!(
            "several AMDGPU device entries, choose a target; the bundle has: {}",
            list()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut hdr = BUNDLE_MAGIC.to_vec();
        hdr.extend((entries.len() as u64).to_le_bytes());
        let hdr_len = hdr.len() + entries.iter().map(|(id, _)| 24 + id.len()).sum::<usize>();
        let mut off = hdr_len;
        let mut body: Vec<u8> = Vec::new();
        for (id, data) in entries {
            hdr.extend((off as u64).to_le_bytes());
            hdr.extend((data.len() as u64).to_le_bytes());
            hdr.extend((id.len() as u64).to_le_bytes());
            hdr.extend(id.as_bytes());
            body.extend(*data);
            off += data.len();
        }
        hdr.extend(body);
        hdr
    }

    #[test]
    fn selects_by_target_or_only_entry() {
        let b = build(&[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx942:xnack-", b"AAAA"),
            ("hipv4-amdgcn-amd-amdhsa--gfx1100", b"BBB"),
        ]);
        let e = parse(&b).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e[1].amdgpu_target(), Some("gfx942:xnack-"));
        assert_eq!(e[2].processor(), Some("gfx1100"));
        assert_eq!(e[0].amdgpu_target(), None);
        assert_eq!(select(&e, Some(Gpu::GFX942)).unwrap(), b"AAAA");
        assert_eq!(select(&e, Some(Gpu::GFX1100)).unwrap(), b"BBB");
        let err = select(&e, Some(Gpu::GFX1200)).unwrap_err().to_string();
        assert!(
            err.contains("gfx1200") && err.contains("hipv4-amdgcn-amd-amdhsa--gfx1100"),
            "{err}"
        );
        let err = select(&e, None).unwrap_err().to_string();
        assert!(err.contains("several"), "{err}");
        let one = build(&[
            ("host-x86_64-unknown-linux-gnu-", b""),
            ("hipv4-amdgcn-amd-amdhsa--gfx942", b"C"),
        ]);
        assert_eq!(select(&parse(&one).unwrap(), None).unwrap(), b"C");
    }

    #[test]
    fn rejects_truncated_bundles() {
        let b = build(&[("hipv4-amdgcn-amd-amdhsa--gfx942", b"AAAA")]);
        for n in 0..b.len() - 1 {
            assert!(parse(&b[..n]).is_err(), "prefix {n} accepted");
        }
        assert!(parse(&b).is_ok());
    }
}
