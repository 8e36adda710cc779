//! The code of a loaded code object, as [`CodeSource`] for the translator.
//!
//! A code object's image is copied into a device allocation at `base` (so pc-relative data
//! accesses of the kernel reach it), and kernel pcs are `base + vaddr`. The translator reads
//! instructions from an immutable host copy kept here, so instruction fetch never races with
//! kernel stores; a kernel that rewrites its own code is not seen (documented limitation).

use std::ops::Range;

use wavejit_translator::env::CodeSource;

/// Immutable code bytes of one loaded code object, addressed by device pc.
#[derive(Clone, Debug)]
pub struct CodeImage {
    base: u64,
    bytes: Vec<u8>,
    exec: Vec<Range<u64>>,
}

impl CodeImage {
    /// The image `bytes` (byte `v` at vaddr `v`) loaded at device address `base`; only the
    /// vaddr ranges in `exec` are executable.
    pub fn new(base: u64, bytes: Vec<u8>, exec: Vec<Range<u64>>) -> CodeImage {
        CodeImage { base, bytes, exec }
    }

    /// Device address of vaddr 0.
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The vaddr of device address `pc` (for reports), when it lies inside the image.
    pub fn vaddr(&self, pc: u64) -> Option<u64> {
        pc.checked_sub(self.base)
            .filter(|&v| v < self.bytes.len() as u64)
    }
}

impl CodeSource for CodeImage {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let v = pc.checked_sub(self.base)?;
        let r = self.exec.iter().find(|r| r.contains(&v))?;
        let end = r.end.min(self.bytes.len() as u64);
        self.bytes
            .get(usize::try_from(v).ok()?..usize::try_from(end).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_executable_ranges_are_served() {
        let bytes: Vec<u8> = (0..64u8).collect();
        let img = CodeImage::new(0x1000, bytes, vec![16..32, 40..100]);
        assert_eq!(
            img.bytes_at(0x1000 + 16),
            Some(&(16u8..32).collect::<Vec<_>>()[..])
        );
        assert_eq!(img.bytes_at(0x1000 + 30), Some(&[30u8, 31][..]));
        assert_eq!(img.bytes_at(0x1000 + 32), None);
        assert_eq!(img.bytes_at(0x1000 + 8), None);
        assert_eq!(img.bytes_at(0xFFF), None);
        // A range that claims more than the image is cut at the image's end.
        assert_eq!(img.bytes_at(0x1000 + 62), Some(&[62u8, 63][..]));
        assert_eq!(img.bytes_at(0x1000 + 70), None);
        assert_eq!(img.vaddr(0x1000 + 5), Some(5));
        assert_eq!(img.vaddr(0x1000 + 64), None);
    }
}
