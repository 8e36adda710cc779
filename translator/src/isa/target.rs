//! GPU targets the translator knows.

use core::fmt;

/// Instruction-set family: decides the decoder and the opcode tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// GFX9: CDNA3 (gfx942) and CDNA4 (gfx950).
    Gfx9,
    /// GFX11: RDNA3 (gfx1100..gfx1103, gfx1150..gfx1153).
    Gfx11,
    /// GFX12: RDNA4 (gfx1200, gfx1201).
    Gfx12,
}

/// A concrete GPU, e.g. gfx942.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Gpu {
    /// The number after `gfx`, as in the target name, hexadecimal digits included
    /// (`0x942` for gfx942, `0x1100` for gfx1100).
    pub id: u32,
}

impl Gpu {
    /// gfx942 (CDNA3).
    pub const GFX942: Gpu = Gpu { id: 0x942 };
    /// gfx950 (CDNA4).
    pub const GFX950: Gpu = Gpu { id: 0x950 };
    /// gfx1100 (RDNA3).
    pub const GFX1100: Gpu = Gpu { id: 0x1100 };
    /// gfx1200 (RDNA4).
    pub const GFX1200: Gpu = Gpu { id: 0x1200 };
    /// gfx1201 (RDNA4).
    pub const GFX1201: Gpu = Gpu { id: 0x1201 };

    /// Parses `gfx942`, `gfx1100`, ... (no feature suffixes).
    pub fn from_name(name: &str) -> Option<Gpu> {
        let digits = name.strip_prefix("gfx")?;
        if digits.is_empty() || digits.len() > 4 {
            return None;
        }
        let id = u32::from_str_radix(digits, 16).ok()?;
        let gpu = Gpu { id };
        gpu.family().map(|_| gpu)
    }

    /// The family, or `None` for GPUs wavejit does not support.
    pub fn family(self) -> Option<Family> {
        match self.id {
            0x942 | 0x950 => Some(Family::Gfx9),
            0x1100..=0x1103 | 0x1150..=0x1153 => Some(Family::Gfx11),
            0x1200 | 0x1201 => Some(Family::Gfx12),
            _ => None,
        }
    }
}

impl fmt::Display for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "gfx{:x}", self.id)
    }
}

/// What a decoder needs to know about the code it decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    /// The GPU.
    pub gpu: Gpu,
    /// 32 or 64 (from the kernel descriptor; always 64 on GFX9).
    pub wave_size: u32,
}

impl Target {
    /// A target with the default wave size of its family (64 on GFX9, 32 on RDNA).
    pub fn new(gpu: Gpu) -> Target {
        let wave_size = if gpu.family() == Some(Family::Gfx9) {
            64
        } else {
            32
        };
        Target { gpu, wave_size }
    }
}
