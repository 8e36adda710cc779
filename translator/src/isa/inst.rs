//! The decoded-instruction model shared by decoders, disassembler and lifter.

pub use super::generated::Op;

/// The encoding an instruction was decoded from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// SOP1.
    Sop1,
    /// SOP2.
    Sop2,
    /// SOPK.
    Sopk,
    /// SOPC.
    Sopc,
    /// SOPP.
    Sopp,
    /// SMEM.
    Smem,
    /// VOP1 (32-bit VALU, one source).
    Vop1,
    /// VOP2 (32-bit VALU, two sources).
    Vop2,
    /// VOPC (32-bit compare, result in VCC).
    Vopc,
    /// VOP3A / VOP3 (64-bit VALU).
    Vop3,
    /// VOP3B / VOP3SD (64-bit VALU with a scalar destination).
    Vop3b,
    /// VOP3P (packed math).
    Vop3p,
    /// VOP3P-MAI (MFMA/SMFMAC, `v_accvgpr_*` on GFX9).
    Mai,
    /// VOPD (GFX11+ dual issue).
    Vopd,
    /// LDS/GDS.
    Ds,
    /// FLAT (generic addresses).
    Flat,
    /// GLOBAL.
    Global,
    /// SCRATCH.
    Scratch,
    /// MUBUF / VBUFFER.
    Mubuf,
    /// MTBUF.
    Mtbuf,
    /// Image instructions.
    Mimg,
    /// Export.
    Exp,
    /// Interpolation (VINTRP/VINTERP/LDSDIR).
    Vinterp,
}

/// An operand in the unified code space of the hardware's 9-bit VALU source field, extended
/// to AGPRs:
///
/// * `0..=255`: scalar source codes of the family's "SGPR operand" table: SGPRs and special
///   registers, inline integer and float constants, `255` = the literal in [`Inst::literal`].
///   The decoder maps GFX11/12 special-register codes onto the GFX9 slot numbers used by
///   [`crate::wave::sreg`] (`vcc_lo` = 106, `m0` = 124, `exec_lo` = 126, `null` = 125) so the
///   lifter sees one numbering; inline constants keep their code (128 = 0, 129..=192 =
///   1..=64, 193..=208 = −1..=−16, 240..=248 float constants).
/// * `256..=511`: `v0..v255`.
/// * `512..=767`: `a0..a255`.
///
/// [`Opnd::NONE`] marks an absent operand. `count` is the number of consecutive 32-bit
/// registers the operand spans (1 for `v0`, 2 for `v[0:1]`, 4 for `s[4:7]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Opnd {
    /// The operand code.
    pub code: u16,
    /// Registers spanned (0 for [`Opnd::NONE`]).
    pub count: u8,
}

impl Opnd {
    /// No operand.
    pub const NONE: Opnd = Opnd {
        code: 0xFFFF,
        count: 0,
    };
    /// Code of the literal constant.
    pub const LITERAL: u16 = 255;
    /// Code of `m0` (GFX9 numbering; the RDNA decoders map RDNA's 125 here).
    pub const M0: u16 = 124;
    /// Code of `null` (GFX11/12: reads as zero, writes are dropped). RDNA encodes it as 124;
    /// the decoders map it to 125, a code GFX9 leaves unused.
    pub const NULL: u16 = 125;
    /// First VGPR code.
    pub const VGPR0: u16 = 256;
    /// First AGPR code.
    pub const AGPR0: u16 = 512;

    /// A scalar-space operand (SGPR, special register or constant) spanning `count` dwords.
    pub const fn scalar(code: u8, count: u8) -> Opnd {
        Opnd {
            code: code as u16,
            count,
        }
    }
    /// `v[reg]` spanning `count` registers.
    pub const fn vgpr(reg: u8, count: u8) -> Opnd {
        Opnd {
            code: Self::VGPR0 + reg as u16,
            count,
        }
    }
    /// `a[reg]` spanning `count` registers.
    pub const fn agpr(reg: u8, count: u8) -> Opnd {
        Opnd {
            code: Self::AGPR0 + reg as u16,
            count,
        }
    }
    /// True unless [`Opnd::NONE`].
    pub const fn is_some(self) -> bool {
        self.code != 0xFFFF
    }
    /// The VGPR/AGPR slot in [`crate::wave::WaveState::vgpr`] (AGPRs at 256..), if a vector register.
    pub const fn vreg(self) -> Option<u16> {
        if self.code >= 256 && self.code < 768 {
            Some(self.code - 256)
        } else {
            None
        }
    }
    /// The scalar slot (0..=127), if an SGPR or special register.
    pub const fn sreg(self) -> Option<u8> {
        if self.code < 128 {
            Some(self.code as u8)
        } else {
            None
        }
    }
}

/// Source modifiers and output controls of VOP3/VOP3P/DPP/SDWA forms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    /// `abs` per source (bit i = src i).
    pub abs: u8,
    /// `neg` per source (VOP3P: negate the low halves).
    pub neg: u8,
    /// VOP3P `neg_hi` per source.
    pub neg_hi: u8,
    /// `op_sel` bits (VOP3: bit i = src i, bit 3 = destination; VOP3P: low-half select).
    /// GFX11/12 true16 operands (`v1.l`/`v1.h`): the bit set means the high half `.h`, in
    /// every encoding (the RDNA decoders move bit 7 of a 16-bit VOP1/VOP2/VOPC/DPP register
    /// field here, so the operand's register number is always the 32-bit VGPR).
    pub op_sel: u8,
    /// VOP3P `op_sel_hi` bits (defaults to all ones where not encoded).
    pub op_sel_hi: u8,
    /// Clamp the result.
    pub clamp: bool,
    /// Output modifier: 0 none, 1 ×2, 2 ×4, 3 ÷2.
    pub omod: u8,
}

/// DPP16 controls (GFX9 DPP, GFX11/12 DPP16).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dpp {
    /// DPP_CTRL (9 bits).
    pub ctrl: u16,
    /// ROW_MASK.
    pub row_mask: u8,
    /// BANK_MASK.
    pub bank_mask: u8,
    /// BOUND_CTRL: write 0 for invalid source lanes.
    pub bound_ctrl: bool,
    /// FI (fetch inactive, GFX10+).
    pub fi: bool,
}

/// SDWA controls (GFX9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Sdwa {
    /// DST_SEL: 0 BYTE_0 .. 3 BYTE_3, 4 WORD_0, 5 WORD_1, 6 DWORD.
    pub dst_sel: u8,
    /// DST_UNUSED: 0 pad with zeros, 1 sign-extend, 2 preserve.
    pub dst_unused: u8,
    /// SRC0_SEL (same codes as `dst_sel`).
    pub src0_sel: u8,
    /// SRC1_SEL.
    pub src1_sel: u8,
    /// Sign-extend per source (bit i = src i).
    pub sext: u8,
}

/// Memory-instruction fields (SMEM, DS, FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MemFields {
    /// Immediate byte offset (sign-extended where the encoding's offset is signed);
    /// DS: `offset0` (or the 16-bit offset of single-address forms).
    pub offset: i32,
    /// DS `offset1`.
    pub offset1: u8,
    /// GLC / SC0.
    pub glc: bool,
    /// SLC / NT (GFX9 `slc`; gfx940 `nt`).
    pub slc: bool,
    /// gfx940 SC1 / MUBUF `scc`.
    pub sc1: bool,
    /// GFX9 `nv` or other cache-policy bits (GFX12: `th | scope << 3`, the TH and SCOPE
    /// fields of SMEM/VBUFFER/VFLAT).
    pub cpol: u8,
    /// MUBUF OFFEN.
    pub offen: bool,
    /// MUBUF IDXEN.
    pub idxen: bool,
    /// Load to LDS (MUBUF `lds`, GLOBAL `_lds` forms).
    pub lds: bool,
    /// GDS.
    pub gds: bool,
    /// MTBUF data/number format.
    pub format: u8,
    /// GFX11 DLC (device-level coherent).
    pub dlc: bool,
    /// TFE (texture fail enable: one more data VGPR receives the fault status).
    pub tfe: bool,
}

/// Matrix-core controls (GFX9 MAI).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MaiFields {
    /// CBSZ.
    pub cbsz: u8,
    /// ABID.
    pub abid: u8,
    /// BLGP.
    pub blgp: u8,
    /// gfx950 block-scaled MFMA (`v_mfma_scale_f32_*_f8f6f4`: the 16-byte pair of a
    /// `v_mfma_ld_scale_b32` prefix and an F8F6F4 MFMA with ABID = 1, decoded as one
    /// instruction with the MFMA's [`Op`]): the scale sources of A and B (the prefix's SRC0
    /// and SRC1). Their byte selects are the prefix's OP_SEL/OP_SEL_HI, kept in
    /// [`Mods::op_sel`] / [`Mods::op_sel_hi`] (bit 0 = A's scale, bit 1 = B's).
    pub scale: Option<[Opnd; 2]>,
}

/// One decoded instruction.
///
/// Operand roles follow LLVM's operand order for the mnemonic:
/// * `dst[0]` the main destination (VGPR, SGPR, or the SMEM/DS/FLAT/MUBUF data destination
///   of loads), `dst[1]` a second destination (VOP3B `sdst`, the VCC carry-out of VOP2
///   carry forms, the VOPC/VOP3 compare destination goes to `dst[0]`).
/// * `src[0..]` sources in the order LLVM prints them; for memory instructions:
///   `src[0]` = address (VGPR `vaddr`/`addr`, or the SMEM `sbase` pair), `src[1]` = data
///   (stores/atomics; `data0` for DS), `src[2]` = DS `data1` / SMEM or MUBUF `soffset` /
///   GLOBAL `saddr`, `src[3]` = MUBUF/MTBUF `srsrc`.
///   Implicit operands (VCC of `v_cndmask_b32_e32`, `v_addc_co_u32_e32`) appear explicitly.
/// * SOPP/SOPK immediates in `imm` (sign-extended `simm16`); branch targets are
///   `pc + 4 + imm * 4`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// Semantic opcode.
    pub op: Op,
    /// Encoding it was decoded from.
    pub format: Format,
    /// Size in bytes (4, 8, 12 or 16), literal and DPP/SDWA words included.
    pub size: u8,
    /// The raw instruction words (unused words are 0).
    pub words: [u32; 4],
    /// Destinations.
    pub dst: [Opnd; 2],
    /// Sources.
    pub src: [Opnd; 4],
    /// The 32-bit literal, when an operand is [`Opnd::LITERAL`] (or a `madmk`/`fmaak` K).
    pub literal: Option<u32>,
    /// SOPP/SOPK 16-bit immediate, sign-extended; `s_setreg_imm32` keeps its imm32 in `literal`.
    pub imm: i32,
    /// VOP3/VOP3P/SDWA/DPP modifiers.
    pub mods: Mods,
    /// DPP16 controls, for `_dpp` forms.
    pub dpp: Option<Dpp>,
    /// DPP8 lane selects, for GFX11/12 `_dpp8` forms.
    pub dpp8: Option<[u8; 8]>,
    /// SDWA controls, for `_sdwa` forms.
    pub sdwa: Option<Sdwa>,
    /// Memory fields.
    pub mem: MemFields,
    /// Matrix-core fields.
    pub mai: MaiFields,
}

impl Inst {
    /// An instruction of opcode `op` in `format` with no operands, modifiers or words
    /// (4 bytes long): the state decoders start from.
    pub const fn new(op: Op, format: Format) -> Inst {
        Inst {
            op,
            format,
            size: 4,
            words: [0; 4],
            dst: [Opnd::NONE; 2],
            src: [Opnd::NONE; 4],
            literal: None,
            imm: 0,
            mods: Mods {
                abs: 0,
                neg: 0,
                neg_hi: 0,
                op_sel: 0,
                op_sel_hi: 0,
                clamp: false,
                omod: 0,
            },
            dpp: None,
            dpp8: None,
            sdwa: None,
            mem: MemFields {
                offset: 0,
                offset1: 0,
                glc: false,
                slc: false,
                sc1: false,
                cpol: 0,
                offen: false,
                idxen: false,
                lds: false,
                gds: false,
                format: 0,
                dlc: false,
                tfe: false,
            },
            mai: MaiFields {
                cbsz: 0,
                abid: 0,
                blgp: 0,
                scale: None,
            },
        }
    }
}

impl Default for Inst {
    /// `s_nop 0`-like empty instruction ([`Inst::new`] with `S_NOP`, SOPP).
    fn default() -> Inst {
        Inst::new(Op::S_NOP, Format::Sopp)
    }
}
