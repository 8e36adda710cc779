//! What the runtime reads from a code object beyond what the loader parses: the data
//! symbols (`__device__`/`__constant__` variables) and the printf format strings of clang's
//! buffered printf (metadata key `amdhsa.printf`: `"<id>:<sizes>:<md5 low 64 bits hex>,<format>"`).

use std::collections::HashMap;

use object::elf::{FileHeader64, SHT_DYNSYM, SHT_SYMTAB, STT_OBJECT};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::Endianness;

/// A data symbol: code-object virtual address and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataSymbol {
    /// Virtual address.
    pub vaddr: u64,
    /// Size in bytes.
    pub size: u64,
}

/// Data symbols and printf formats of one code object.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// `STT_OBJECT` symbols by name.
    pub data: HashMap<String, DataSymbol>,
    /// Printf format strings by their hash.
    pub printf: HashMap<u64, String>,
}

/// `NT_AMDGPU_METADATA`.
const NT_AMDGPU_METADATA: u32 = 32;

/// Reads the data symbols and printf formats of `elf` (errors name what is malformed).
pub fn read(elf: &[u8]) -> Result<Extras, String> {
    let header = FileHeader64::<Endianness>::parse(elf).map_err(|e| e.to_string())?;
    let endian = header.endian().map_err(|e| e.to_string())?;
    let sections = header.sections(endian, elf).map_err(|e| e.to_string())?;
    let mut out = Extras::default();
    for kind in [SHT_SYMTAB, SHT_DYNSYM] {
        let table = sections
            .symbols(endian, elf, kind)
            .map_err(|e| e.to_string())?;
        for sym in table.iter() {
            if sym.st_type() != STT_OBJECT {
                continue;
            }
            let Ok(name) = table.symbol_name(endian, sym) else {
                continue;
            };
            out.data
                .entry(String::from_utf8_lossy(name).into_owned())
                .or_insert(DataSymbol {
                    vaddr: sym.st_value(endian),
                    size: sym.st_size(endian),
                });
        }
    }
    for s in sections.iter() {
        let Ok(Some(mut notes)) = s.notes(endian, elf) else {
            continue;
        };
        while let Ok(Some(note)) = notes.next() {
            if note.name() == b"AMDGPU"
                && note.n_type(endian) == object::elf::NoteType(NT_AMDGPU_METADATA)
            {
                out.printf = printf_formats(note.desc());
            }
        }
    }
    Ok(out)
}

/// The `amdhsa.printf` entries of a metadata note, by hash.
fn printf_formats(desc: &[u8]) -> HashMap<u64, String> {
    let mut map = HashMap::new();
    let Ok(value) = rmpv::decode::read_value(&mut &desc[..]) else {
        return map;
    };
    let Some(entries) = value.as_map() else {
        return map;
    };
    for (k, v) in entries {
        if k.as_str() != Some("amdhsa.printf") {
            continue;
        }
        for item in v.as_array().into_iter().flatten() {
            let Some(s) = item.as_str() else { continue };
            // "0:0:<hash>,<format>": the format may itself contain ':' and ','.
            let mut parts = s.splitn(3, ':');
            let (_, _, rest) = (parts.next(), parts.next(), parts.next().unwrap_or(""));
            if let Some((hash, fmt)) = rest.split_once(',') {
                if let Ok(h) = u64::from_str_radix(hash, 16) {
                    map.insert(h, fmt.to_string());
                }
            }
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_entries_are_keyed_by_hash() {
        let meta = rmpv::Value::Map(vec![(
            "amdhsa.printf".into(),
            rmpv::Value::Array(vec!["0:0:78c8af3e86f8c4f6,a:%d, b\n".into(), "junk".into()]),
        )]);
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &meta).unwrap();
        let m = printf_formats(&bytes);
        assert_eq!(m.len(), 1);
        assert_eq!(m[&0x78c8_af3e_86f8_c4f6], "a:%d, b\n");
    }
}
