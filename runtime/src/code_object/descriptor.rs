//! The 64-byte AMDHSA kernel descriptor (`<kernel>.kd`).
//!
//! Layout and bit fields follow LLVM's `AMDGPUUsage.rst`, section "Kernel Descriptor"
//! (tables "Kernel Descriptor for GFX6-GFX12", "compute_pgm_rsrc1/2/3", "Kernel Code
//! Properties").

/// Size in bytes of a kernel descriptor.
pub const KD_SIZE: usize = 64;

/// A kernel descriptor, the raw 64 bytes decoded into fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KernelDescriptor {
    /// Bytes 0x00..0x04: static LDS bytes.
    pub group_segment_fixed_size: u32,
    /// Bytes 0x04..0x08: static scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// Bytes 0x08..0x0C: kernarg segment size.
    pub kernarg_size: u32,
    /// Bytes 0x10..0x18: byte offset of the entry point from the descriptor's address.
    pub entry_offset: i64,
    /// Bytes 0x2C..0x30: COMPUTE_PGM_RSRC3.
    pub rsrc3: u32,
    /// Bytes 0x30..0x34: COMPUTE_PGM_RSRC1.
    pub rsrc1: u32,
    /// Bytes 0x34..0x38: COMPUTE_PGM_RSRC2.
    pub rsrc2: u32,
    /// Bytes 0x38..0x3A: kernel code properties.
    pub kernel_code_properties: u16,
    /// Bytes 0x3A..0x3C: kernarg preload specification (length 6:0, offset 15:7).
    pub kernarg_preload: u16,
}

fn u32_at(b: &[u8; KD_SIZE], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

fn u16_at(b: &[u8; KD_SIZE], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

impl KernelDescriptor {
    /// Decodes the 64 raw descriptor bytes.
    pub fn parse(b: &[u8; KD_SIZE]) -> KernelDescriptor {
        let lo = u32_at(b, 0x10) as u64;
        let hi = u32_at(b, 0x14) as u64;
        KernelDescriptor {
            group_segment_fixed_size: u32_at(b, 0x00),
            private_segment_fixed_size: u32_at(b, 0x04),
            kernarg_size: u32_at(b, 0x08),
            entry_offset: (lo | (hi << 32)) as i64,
            rsrc3: u32_at(b, 0x2C),
            rsrc1: u32_at(b, 0x30),
            rsrc2: u32_at(b, 0x34),
            kernel_code_properties: u16_at(b, 0x38),
            kernarg_preload: u16_at(b, 0x3A),
        }
    }

    fn kcp(&self, bit: u32) -> bool {
        (self.kernel_code_properties >> bit) & 1 != 0
    }

    /// COMPUTE_PGM_RSRC2.USER_SGPR_COUNT (bits 5:1, same width on GFX9, GFX11 and GFX12):
    /// the number of user SGPRs, padding included; system SGPRs (workgroup ids) follow them.
    pub fn user_sgpr_count(&self) -> u32 {
        (self.rsrc2 >> 1) & 0x1f
    }

    /// COMPUTE_PGM_RSRC2 bit 0: ENABLE_PRIVATE_SEGMENT (GFX9: the private segment wave byte
    /// offset system SGPR is present).
    pub fn enable_private_segment(&self) -> bool {
        self.rsrc2 & 1 != 0
    }

    /// COMPUTE_PGM_RSRC2 bits 7, 8, 9: ENABLE_SGPR_WORKGROUP_ID_X/Y/Z. `dim` > 2 gives false.
    pub fn workgroup_id_enabled(&self, dim: usize) -> bool {
        dim < 3 && (self.rsrc2 >> (7 + dim)) & 1 != 0
    }

    /// COMPUTE_PGM_RSRC2 bit 10: ENABLE_SGPR_WORKGROUP_INFO.
    pub fn workgroup_info(&self) -> bool {
        (self.rsrc2 >> 10) & 1 != 0
    }

    /// COMPUTE_PGM_RSRC2 bits 12:11, ENABLE_VGPR_WORKITEM_ID: 0 = x only, 1 = x and y,
    /// 2 = x, y and z.
    pub fn workitem_id_vgprs(&self) -> u32 {
        (self.rsrc2 >> 11) & 3
    }

    /// COMPUTE_PGM_RSRC2 bits 23:15, GRANULATED_LDS_SIZE (as written by the compiler; the
    /// runtime normally sets the real LDS size).
    pub fn granulated_lds_size(&self) -> u32 {
        (self.rsrc2 >> 15) & 0x1ff
    }

    /// Kernel code properties bit 0: ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER (4 user SGPRs).
    pub fn enable_sgpr_private_segment_buffer(&self) -> bool {
        self.kcp(0)
    }

    /// Kernel code properties bit 1: ENABLE_SGPR_DISPATCH_PTR (2 user SGPRs).
    pub fn enable_sgpr_dispatch_ptr(&self) -> bool {
        self.kcp(1)
    }

    /// Kernel code properties bit 2: ENABLE_SGPR_QUEUE_PTR (2 user SGPRs).
    pub fn enable_sgpr_queue_ptr(&self) -> bool {
        self.kcp(2)
    }

    /// Kernel code properties bit 3: ENABLE_SGPR_KERNARG_SEGMENT_PTR (2 user SGPRs).
    pub fn enable_sgpr_kernarg_segment_ptr(&self) -> bool {
        self.kcp(3)
    }

    /// Kernel code properties bit 4: ENABLE_SGPR_DISPATCH_ID (2 user SGPRs).
    pub fn enable_sgpr_dispatch_id(&self) -> bool {
        self.kcp(4)
    }

    /// Kernel code properties bit 5: ENABLE_SGPR_FLAT_SCRATCH_INIT (2 user SGPRs).
    pub fn enable_sgpr_flat_scratch_init(&self) -> bool {
        self.kcp(5)
    }

    /// Kernel code properties bit 6: ENABLE_SGPR_PRIVATE_SEGMENT_SIZE (1 user SGPR).
    pub fn enable_sgpr_private_segment_size(&self) -> bool {
        self.kcp(6)
    }

    /// Kernel code properties bit 10: ENABLE_WAVEFRONT_SIZE32 (GFX10+).
    pub fn wavefront_size32(&self) -> bool {
        self.kcp(10)
    }

    /// Kernel code properties bit 11: USES_DYNAMIC_STACK.
    pub fn uses_dynamic_stack(&self) -> bool {
        self.kcp(11)
    }

    /// KERNARG_PRELOAD_SPEC_LENGTH (bits 6:0): dwords of kernarg preloaded into user SGPRs.
    pub fn kernarg_preload_length(&self) -> u32 {
        (self.kernarg_preload & 0x7f) as u32
    }

    /// KERNARG_PRELOAD_SPEC_OFFSET (bits 15:7): first preloaded kernarg dword.
    pub fn kernarg_preload_offset(&self) -> u32 {
        (self.kernarg_preload >> 7) as u32
    }

    /// GFX90A+ COMPUTE_PGM_RSRC3.ACCUM_OFFSET (bits 5:0, granule 4): the first AGPR-backed
    /// register of the unified VGPR file, `(field + 1) * 4`.
    pub fn accum_offset(&self) -> u32 {
        ((self.rsrc3 & 0x3f) + 1) * 4
    }

    /// COMPUTE_PGM_RSRC1 bit 23: ENABLE_IEEE_MODE (GFX6-GFX11; reserved on GFX12).
    pub fn ieee_mode(&self) -> bool {
        (self.rsrc1 >> 23) & 1 != 0
    }

    /// COMPUTE_PGM_RSRC1 bit 21: ENABLE_DX10_CLAMP (GFX6-GFX11; WG_RR_EN on GFX12).
    pub fn dx10_clamp(&self) -> bool {
        (self.rsrc1 >> 21) & 1 != 0
    }

    /// COMPUTE_PGM_RSRC1 bits 19:12 (FLOAT_ROUND_MODE_32, FLOAT_ROUND_MODE_16_64,
    /// FLOAT_DENORM_MODE_32, FLOAT_DENORM_MODE_16_64), which the hardware copies into
    /// MODE bits 7:0 (FP_ROUND 3:0, FP_DENORM 7:4) at wave launch.
    pub fn float_mode(&self) -> u32 {
        (self.rsrc1 >> 12) & 0xff
    }

    /// Number of user SGPRs the enable bits ask for (private segment buffer 4, dispatch
    /// ptr 2, queue ptr 2, kernarg ptr 2, dispatch id 2, flat scratch init 2, private
    /// segment size 1) plus the preloaded kernarg dwords. [`Self::user_sgpr_count`] may be
    /// larger (padding, e.g. GFX11's 16-SGPR initialisation rule).
    pub fn enabled_user_sgprs(&self) -> u32 {
        let bits = [
            (self.enable_sgpr_private_segment_buffer(), 4),
            (self.enable_sgpr_dispatch_ptr(), 2),
            (self.enable_sgpr_queue_ptr(), 2),
            (self.enable_sgpr_kernarg_segment_ptr(), 2),
            (self.enable_sgpr_dispatch_id(), 2),
            (self.enable_sgpr_flat_scratch_init(), 2),
            (self.enable_sgpr_private_segment_size(), 1),
        ];
        bits.iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n)
            .sum::<u32>()
            + self.kernarg_preload_length()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gfx942 `vadd.kd` bytes from `/work/shared/notes/toolchain.md` §3.3 (dumped there
    /// with llvm-objdump-22), decoded by hand from AMDGPUUsage's tables.
    #[test]
    fn decodes_gfx942_vadd_descriptor() {
        let words: [u32; 16] = [
            0x00000000, 0x00000000, 0x20010000, 0x00000000, 0xc0100000, 0x00000000, 0x00000000,
            0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x01000000, 0x4000af00, 0x84000000,
            0x08000000, 0x00000000,
        ];
        // objdump prints bytes in memory order grouped by 4: turn each group into bytes.
        let mut b = [0u8; KD_SIZE];
        for (i, w) in words.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&w.to_be_bytes());
        }
        let kd = KernelDescriptor::parse(&b);
        assert_eq!(kd.kernarg_size, 288);
        assert_eq!(kd.entry_offset, 0x10c0);
        assert_eq!(kd.rsrc3, 1);
        assert_eq!(kd.rsrc1, 0x00af0040);
        assert_eq!(kd.rsrc2, 0x84);
        assert_eq!(kd.kernel_code_properties, 8);
        assert_eq!(kd.user_sgpr_count(), 2);
        assert!(kd.workgroup_id_enabled(0));
        assert!(!kd.workgroup_id_enabled(1));
        assert!(!kd.workgroup_id_enabled(7));
        assert!(kd.enable_sgpr_kernarg_segment_ptr());
        assert!(!kd.enable_sgpr_dispatch_ptr());
        assert_eq!(kd.accum_offset(), 8);
        assert!(kd.ieee_mode());
        assert!(kd.dx10_clamp());
        // rsrc1 bits 19:12 = 0xf0: round to nearest, denormals on for all sizes.
        assert_eq!(kd.float_mode(), 0xf0);
        assert_eq!(kd.enabled_user_sgprs(), 2);
        assert!(!kd.wavefront_size32());
    }

    #[test]
    fn preload_fields() {
        let mut b = [0u8; KD_SIZE];
        // length 14, offset 3: 3 << 7 | 14.
        b[0x3A..0x3C].copy_from_slice(&((3u16 << 7) | 14).to_le_bytes());
        let kd = KernelDescriptor::parse(&b);
        assert_eq!(kd.kernarg_preload_length(), 14);
        assert_eq!(kd.kernarg_preload_offset(), 3);
    }
}
