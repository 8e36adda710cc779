//! RDNA decoder: GFX11 (gfx1100..gfx1103, gfx1150..gfx1153) and GFX12 (gfx1200, gfx1201)
//! instruction words → [`Inst`]. gfx1150..gfx1153 have tables of their own for the encodings
//! LLVM decodes differently there (the SALU float opcodes: illegal in gfx1100 code).
//!
//! Bit layouts: RDNA4 ISA guide ch. 15 (`shared/isa/003`), checked against llvm-mc-22's
//! encodings; GFX11 differs in SMEM (opcode `[25:18]`, GLC/DLC bits), FLAT (64-bit
//! FLAT/GLOBAL/SCRATCH with the segment in `[17:16]`) and MUBUF/MTBUF (64-bit; GFX12 has the
//! 96-bit VBUFFER, VFLAT/VGLOBAL/VSCRATCH instead). Opcode numbers, operand widths (wave32
//! and wave64), register files, true16 operands and optional syntax come from the tables
//! generated from LLVM 22's disassembler (`isa::generated::rdna`,
//! `translator/gen/gen_tables.py`): decoding is bit extraction and table lookups, without
//! allocation. gfx1201 decodes exactly as gfx1200 (the generator checks it).
//!
//! Conventions on top of the operand roles documented on [`Inst`]:
//! * Scalar codes are mapped into the common code space: RDNA `null` (124) becomes
//!   [`Opnd::NULL`] (125) and `m0` (125) becomes [`Opnd::M0`] (124); the rest is unchanged.
//! * true16 operands (`v1.l`, `v1.h`) name the 32-bit VGPR; the half is in `mods.op_sel`
//!   (bit i = source i, bit 3 = destination), whatever the encoding.
//! * VOP1/VOP2/VOPC: `dst[0]` = VDST (or VCC for `v_cmp_*_e32`, EXEC for `v_cmpx_*_e32`);
//!   the carry forms (`v_add_co_ci_u32_e32`, ...) put VCC in `dst[1]` and `src[2]`,
//!   `v_cndmask_b32_e32` reads VCC as `src[2]`. DPP16/DPP8 replace `src[0]` by the
//!   extension word's VGPR (`dpp` / `dpp8`; DPP8's FI, source code 0xEA, is bit 7 of
//!   `mods.op_sel_hi`).
//! * VOP3SD (`v_add_co_u32`, `v_div_scale_*`, `v_mad_u64_u32`, ...): `dst[1]` = SDST.
//!   VOP3 DPP (`_e64_dpp`) keeps the VOP3 modifiers; `dpp`/`dpp8` as above.
//! * VOPD: `op` is the X opcode, `imm` the Y opcode field (index into the VOPDY table),
//!   `dst` = [VDSTX, VDSTY], `src` = [SRCX0, VSRCX1, SRCY0, VSRCY1]; the K of
//!   `v_dual_fmamk/fmaak` is `literal`.
//! * SMEM: `src[0]` = SBASE, `src[2]` = SOFFSET (absent when NULL), `mem.offset` the signed
//!   immediate; GFX11 `mem.glc`/`mem.dlc`; GFX12 `mem.cpol` = TH | SCOPE << 3 | NV << 5 |
//!   SCALE_OFFSET << 6 (the same in VFLAT/VGLOBAL/VSCRATCH; NV only in VBUFFER and images).
//! * DS: `src[0]` = ADDR, `src[1]` = DATA0, `src[2]` = DATA1; `mem.offset` = OFFSET0 (or the
//!   16-bit offset), `mem.offset1` = OFFSET1.
//! * FLAT/GLOBAL/SCRATCH: `src[0]` = VADDR (NONE for SCRATCH without SVE), `src[1]` = data,
//!   `src[2]` = SADDR (NONE when `off`).
//! * MUBUF/MTBUF/VBUFFER: `src[0]` = VADDR (NONE when neither OFFEN nor IDXEN), `src[1]` =
//!   data (stores/atomics), `src[2]` = SOFFSET, `src[3]` = the resource (SGPR quad).
//! * VINTERP: `dst[0]`, `src[0..3]` with `mods.neg`/`op_sel`/`clamp`; `imm` = WAITEXP.
//! * LDSDIR (GFX11) / VDSDIR (GFX12), format [`Format::Vinterp`] too: `dst[0]` = VDST,
//!   `imm` = ATTR_CHAN | ATTR << 2 | WAIT_VDST (WAIT_VA) << 8 | WAIT_VMVSRC << 12.
//! * EXP: `src[0..4]` = VSRC0..3 (NONE where EN clears it), `imm` = TARGET | EN << 8 |
//!   DONE << 12 | ROW_EN << 13.
//! * Image encodings (MIMG on GFX11, VIMAGE and VSAMPLE on GFX12), format [`Format::Mimg`]:
//!   `dst[0]` = VDATA of loads and returning atomics, `src[1]` = VDATA of stores and atomics,
//!   `src[0]` = the first address operand (the whole tuple without NSA), `src[2]` = the
//!   resource, `src[3]` = the sampler; the other NSA addresses stay in `words`. `imm` packs
//!   DMASK | DIM << 4 | UNORM << 7 | R128 << 8 | A16 << 9 | D16 << 10 | LWE << 11 | NSA << 12
//!   | (address VGPRs) << 16; `mem` has GLC/SLC/DLC (GFX11) or `cpol` (GFX12) and TFE.
//!   Operand sizes follow LLVM's disassembler (generated grids, see `RdnaImage::grid`).
//!   Graphics only: the lifter reports them Unsupported.

pub mod print;

use super::error::DecodeError;
use super::generated::{
    rdna as t, DppFix, DppSrc, Op, RdnaImage, RdnaInfo, CLASS_ATOMIC, CLASS_CMPSWAP, CLASS_MADAK,
    CLASS_MADMK, CLASS_SBUFFER, CLASS_SDST_READ, CLASS_STORE, CLASS_TWO_OFFSETS,
    EXTRA_DPP_CTRL_SRC, EXTRA_FAKE16_OPSEL, EXTRA_LDS_DIRECT, EXTRA_OPSEL_IGN,
    EXTRA_OPSEL_IGN_SHIFT, EXTRA_SREG_ONLY, MOD_ABS0, MOD_CARRY, MOD_CMPX, MOD_DPPMOD0,
    MOD_DPPMOD1, MOD_FAKE16_NOMODS, MOD_IMM32, MOD_NEG0, MOD_NODPP16, MOD_NODPP8, MOD_SD,
    MOD_SENDMSG, MOD_VCCIN,
};
use super::{Dpp, Family, Format, Inst, MaiFields, MemFields, Mods, Opnd, Target};

/// Scalar code of `vcc_lo` (the `vcc` pair starts here).
pub const VCC: u16 = 106;
/// Scalar code of `exec_lo`.
pub const EXEC: u16 = 126;
/// RDNA's encoding of `null` (also `off` in address fields).
const RDNA_NULL: u32 = 124;
/// RDNA's encoding of `m0`.
const RDNA_M0: u32 = 125;
/// Source code that selects the DPP16 extension word.
const SRC_DPP16: u32 = 0xFA;
/// Source codes that select the DPP8 extension word (without / with FI).
const SRC_DPP8: u32 = 0xE9;
const SRC_DPP8_FI: u32 = 0xEA;
/// Source code of `src_lds_direct`.
const SRC_LDS_DIRECT: u32 = 0xFE;

/// One family's opcode tables.
pub(crate) struct Tables {
    pub(crate) gfx12: bool,
    pub(crate) sop2: &'static [Option<RdnaInfo>],
    pub(crate) sopk: &'static [Option<RdnaInfo>],
    pub(crate) sop1: &'static [Option<RdnaInfo>],
    pub(crate) sopc: &'static [Option<RdnaInfo>],
    pub(crate) sopp: &'static [Option<RdnaInfo>],
    pub(crate) smem: &'static [Option<RdnaInfo>],
    pub(crate) vop1: &'static [Option<RdnaInfo>],
    pub(crate) vop2: &'static [Option<RdnaInfo>],
    pub(crate) vopc: &'static [Option<RdnaInfo>],
    pub(crate) vop3: &'static [Option<RdnaInfo>],
    pub(crate) vop3p: &'static [Option<RdnaInfo>],
    pub(crate) vopdx: &'static [Option<RdnaInfo>],
    pub(crate) vopdy: &'static [Option<RdnaInfo>],
    pub(crate) ds: &'static [Option<RdnaInfo>],
    pub(crate) flat: &'static [Option<RdnaInfo>],
    pub(crate) global: &'static [Option<RdnaInfo>],
    pub(crate) scratch: &'static [Option<RdnaInfo>],
    pub(crate) mubuf: &'static [Option<RdnaInfo>],
    pub(crate) mtbuf: &'static [Option<RdnaInfo>],
    pub(crate) vinterp: &'static [Option<RdnaInfo>],
    pub(crate) ldsdir: &'static [Option<RdnaInfo>],
    pub(crate) exp: &'static [Option<RdnaInfo>],
    /// MIMG (GFX11) or VIMAGE (GFX12) opcodes.
    pub(crate) image: &'static [Option<RdnaImage>],
    /// VSAMPLE opcodes (GFX12; empty on GFX11).
    pub(crate) sample: &'static [Option<RdnaImage>],
    /// The image operand grids (`RdnaImage::grid` indexes them).
    pub(crate) img_grids: &'static [u16],
    /// Source codes LLVM accepts (`SRC_*` roles): VOP1/VOP2/VOPC SRC0, VOP3 sources, SALU
    /// sources, the same three as 64-bit operands, VINTERP's 32-bit sources, a VGPR-only
    /// SRC0's special registers, 64-bit SALU SDST, VOP1 SGPR VDST, SALU register-only
    /// sources (32-bit, 64-bit), the SGPR destination of a VOP3-encoded compare (wave32,
    /// wave64), VOP3P sources of 8 and 4 VGPRs.
    pub(crate) src_ok: &'static [[u32; 8]; 16],
    /// Scalar register codes LLVM accepts as the first register of a tuple (`SREG_*` roles).
    pub(crate) sreg_ok: &'static [[u32; 4]; 13],
    /// DPP16 controls LLVM decodes as a control (bit c of word c / 32).
    pub(crate) dpp_ok: &'static [u32; 16],
    /// DPP16 controls LLVM decodes but prints only as a comment (GFX9 controls RDNA does not
    /// have, `wave_shl is not supported starting from GFX10`): the comment's text.
    pub(crate) dpp_notes: &'static [(u16, &'static str)],
    /// VOP3 (0)/VOP3P (1) opcodes whose DPP16 (1)/DPP8 (2) form has other fixed bits than
    /// the VOP3 word: (encoding, opcode, form, mask, value), sorted.
    pub(crate) dpp_fix: &'static [DppFix],
    /// VOP3 (0)/VOP3P (1) DPP forms whose source 1 or 2 takes only some 8-bit codes:
    /// (encoding, opcode, form, source, map), sorted.
    pub(crate) dpp_src: &'static [DppSrc],
    /// VOP3 (0)/VOP3P (1) DPP forms whose source 1 or 2 LLVM shows as its raw field when it
    /// holds a constant (0xff reading no literal): (encoding, opcode, form, source), sorted.
    pub(crate) dpp_raw: &'static [(u8, u16, u8, u8)],
    /// VOP3 opcodes whose sources take no literal (bit i: source i) or no inline constant
    /// (bit 3 + i), LLVM flags it; wave32 in bits 0..5, wave64 in bits 6..11. Sorted.
    pub(crate) vop3_nolit: &'static [(u16, u16)],
}

static GFX11: Tables = Tables {
    gfx12: false,
    sop2: &t::GFX1100_SOP2,
    sopk: &t::GFX1100_SOPK,
    sop1: &t::GFX1100_SOP1,
    sopc: &t::GFX1100_SOPC,
    sopp: &t::GFX1100_SOPP,
    smem: &t::GFX1100_SMEM,
    vop1: &t::GFX1100_VOP1,
    vop2: &t::GFX1100_VOP2,
    vopc: &t::GFX1100_VOPC,
    vop3: &t::GFX1100_VOP3,
    vop3p: &t::GFX1100_VOP3P,
    vopdx: &t::GFX1100_VOPDX,
    vopdy: &t::GFX1100_VOPDY,
    ds: &t::GFX1100_DS,
    flat: &t::GFX1100_FLAT,
    global: &t::GFX1100_GLOBAL,
    scratch: &t::GFX1100_SCRATCH,
    mubuf: &t::GFX1100_MUBUF,
    mtbuf: &t::GFX1100_MTBUF,
    vinterp: &t::GFX1100_VINTERP,
    ldsdir: &t::GFX1100_LDSDIR,
    exp: &t::GFX1100_EXP,
    image: &t::GFX1100_MIMG,
    sample: &[],
    img_grids: &t::GFX1100_IMG_GRIDS,
    src_ok: &t::GFX1100_SRC_OK,
    sreg_ok: &t::GFX1100_SREG_OK,
    dpp_ok: &t::GFX1100_DPP_OK,
    dpp_notes: &t::GFX1100_DPP_NOTES,
    dpp_fix: &t::GFX1100_DPP_FIX,
    dpp_src: &t::GFX1100_DPP_SRC,
    dpp_raw: &t::GFX1100_DPP_RAW,
    vop3_nolit: &t::GFX1100_VOP3_NOLIT,
};

static GFX12: Tables = Tables {
    gfx12: true,
    sop2: &t::GFX1200_SOP2,
    sopk: &t::GFX1200_SOPK,
    sop1: &t::GFX1200_SOP1,
    sopc: &t::GFX1200_SOPC,
    sopp: &t::GFX1200_SOPP,
    smem: &t::GFX1200_SMEM,
    vop1: &t::GFX1200_VOP1,
    vop2: &t::GFX1200_VOP2,
    vopc: &t::GFX1200_VOPC,
    vop3: &t::GFX1200_VOP3,
    vop3p: &t::GFX1200_VOP3P,
    vopdx: &t::GFX1200_VOPDX,
    vopdy: &t::GFX1200_VOPDY,
    ds: &t::GFX1200_DS,
    flat: &t::GFX1200_FLAT,
    global: &t::GFX1200_GLOBAL,
    scratch: &t::GFX1200_SCRATCH,
    mubuf: &t::GFX1200_MUBUF,
    mtbuf: &[],
    vinterp: &t::GFX1200_VINTERP,
    ldsdir: &t::GFX1200_LDSDIR,
    exp: &t::GFX1200_EXP,
    image: &t::GFX1200_VIMAGE,
    sample: &t::GFX1200_VSAMPLE,
    img_grids: &t::GFX1200_IMG_GRIDS,
    src_ok: &t::GFX1200_SRC_OK,
    sreg_ok: &t::GFX1200_SREG_OK,
    dpp_ok: &t::GFX1200_DPP_OK,
    dpp_notes: &t::GFX1200_DPP_NOTES,
    dpp_fix: &t::GFX1200_DPP_FIX,
    dpp_src: &t::GFX1200_DPP_SRC,
    dpp_raw: &t::GFX1200_DPP_RAW,
    vop3_nolit: &t::GFX1200_VOP3_NOLIT,
};

/// gfx1150..gfx1153: gfx1100's encodings, with LLVM's gfx1150 tables where they differ (the
/// SALU float opcodes); the generator checks that the image encodings decode alike.
static GFX1150: Tables = Tables {
    gfx12: false,
    sop2: t::GFX1150_SOP2,
    sopk: t::GFX1150_SOPK,
    sop1: t::GFX1150_SOP1,
    sopc: t::GFX1150_SOPC,
    sopp: t::GFX1150_SOPP,
    smem: t::GFX1150_SMEM,
    vop1: t::GFX1150_VOP1,
    vop2: t::GFX1150_VOP2,
    vopc: t::GFX1150_VOPC,
    vop3: t::GFX1150_VOP3,
    vop3p: t::GFX1150_VOP3P,
    vopdx: t::GFX1150_VOPDX,
    vopdy: t::GFX1150_VOPDY,
    ds: t::GFX1150_DS,
    flat: t::GFX1150_FLAT,
    global: t::GFX1150_GLOBAL,
    scratch: t::GFX1150_SCRATCH,
    mubuf: t::GFX1150_MUBUF,
    mtbuf: t::GFX1150_MTBUF,
    vinterp: t::GFX1150_VINTERP,
    ldsdir: t::GFX1150_LDSDIR,
    exp: t::GFX1150_EXP,
    image: &t::GFX1100_MIMG,
    sample: &[],
    img_grids: &t::GFX1100_IMG_GRIDS,
    src_ok: &t::GFX1100_SRC_OK,
    sreg_ok: &t::GFX1100_SREG_OK,
    dpp_ok: &t::GFX1100_DPP_OK,
    dpp_notes: &t::GFX1100_DPP_NOTES,
    dpp_fix: &t::GFX1100_DPP_FIX,
    dpp_src: &t::GFX1100_DPP_SRC,
    dpp_raw: &t::GFX1100_DPP_RAW,
    vop3_nolit: &t::GFX1100_VOP3_NOLIT,
};

/// The tables of `target`'s family (GFX11 or GFX12).
pub(crate) fn tables(target: &Target) -> &'static Tables {
    match target.gpu.family() {
        Some(Family::Gfx12) => &GFX12,
        _ if (0x1150..=0x1153).contains(&target.gpu.id) => &GFX1150,
        _ => &GFX11,
    }
}

/// Per-instruction decoding context.
struct Cx<'a> {
    bytes: &'a [u8],
    pc: u64,
    wave64: bool,
}

impl Cx<'_> {
    #[cold]
    #[inline(never)]
    fn err(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError::new(self.bytes, self.pc, reason)
    }

    /// The little-endian dword `i`.
    fn word(&self, i: usize) -> Result<u32, DecodeError> {
        match self.bytes.get(i * 4..i * 4 + 4) {
            Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            None => Err(self.err(format!(
                "truncated instruction: needs {} bytes",
                (i + 1) * 4
            ))),
        }
    }

    fn lookup(
        &self,
        table: &'static [Option<RdnaInfo>],
        op: u32,
        enc: &str,
    ) -> Result<&'static RdnaInfo, DecodeError> {
        match table.get(op as usize) {
            // Unused operand fields and reserved bits must hold the values LLVM requires
            // (generated `fixmask`/`fixval`): three masked compares.
            Some(Some(info)) if self.fixed_ok(&info.fixmask, &info.fixval) => Ok(info),
            Some(Some(info)) => {
                Err(self.fixed_err(&info.fixmask, &info.fixval, enc, info.mnemonic))
            }
            _ => Err(self.bad_opcode(enc, op)),
        }
    }

    /// [`Cx::lookup`] for VOP1/VOP2/VOPC: a VGPR-only SRC0 (bit 8 a fixed one) also takes
    /// LLVM's special registers (`src_shared_base`, `null`, ...) and the DPP codes.
    fn lookup_vop(
        &self,
        tb: &Tables,
        table: &'static [Option<RdnaInfo>],
        op: u32,
        enc: &str,
    ) -> Result<&'static RdnaInfo, DecodeError> {
        let w0 = self.word(0)?;
        if let Some(Some(info)) = table.get(op as usize) {
            let code = w0 & 0x1FF;
            let vgpr_only = info.fixmask[0] & info.fixval[0] & 0x100 != 0;
            // `src_lds_direct` where the opcode takes it (generated: `v_readfirstlane_b32`).
            let special = matches!(code, SRC_DPP16 | SRC_DPP8 | SRC_DPP8_FI)
                || in_map(&tb.src_ok[SRC_VGPR_ONLY], code)
                || code == SRC_LDS_DIRECT && info.extra & EXTRA_LDS_DIRECT != 0;
            if vgpr_only && code < 0x100 && special {
                let mut val = info.fixval;
                val[0] &= !0x100;
                if self.fixed_ok(&info.fixmask, &val) {
                    return Ok(info);
                }
            }
        }
        self.lookup(table, op, enc)
    }

    /// [`Cx::lookup`] for VOP3 (`enc_id` 0) and VOP3P (1): a DPP16/DPP8 form (SRC0 selects
    /// the extension word) is checked against the fixed bits LLVM requires in that form
    /// where they differ from the VOP3 word's (generated `dpp_fix`: LLVM 22 takes OP_SEL[1]
    /// in `v_cvt_sr_fp8_f32_e64_dpp` but not in VOP3).
    fn lookup_vop3(
        &self,
        tb: &Tables,
        table: &'static [Option<RdnaInfo>],
        op: u32,
        enc: &str,
        enc_id: u8,
    ) -> Result<&'static RdnaInfo, DecodeError> {
        let w1 = self
            .bytes
            .get(4..8)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let form = match w1.map(|w| w & 0x1FF) {
            Some(SRC_DPP16) => 1,
            Some(SRC_DPP8 | SRC_DPP8_FI) => 2,
            _ => 0,
        };
        if let (Some(Some(info)), true) = (table.get(op as usize), form != 0) {
            let key = (enc_id, op as u16, form);
            if let Ok(i) = tb.dpp_fix.binary_search_by_key(&key, |e| (e.0, e.1, e.2)) {
                let (_, _, _, mask, val) = &tb.dpp_fix[i];
                return if self.fixed_ok(mask, val) {
                    Ok(info)
                } else {
                    Err(self.fixed_err(mask, val, enc, info.mnemonic))
                };
            }
        }
        self.lookup(table, op, enc)
    }

    /// Whether the instruction's words hold the required values in the `mask` bits (a word
    /// past the end fails when it has such bits).
    #[inline]
    fn fixed_ok(&self, mask: &[u32; 3], val: &[u32; 3]) -> bool {
        (0..3).all(|i| {
            mask[i] == 0
                || matches!(self.bytes.get(i * 4..i * 4 + 4), Some(b)
                    if u32::from_le_bytes([b[0], b[1], b[2], b[3]]) & mask[i] == val[i])
        })
    }

    #[cold]
    #[inline(never)]
    fn fixed_err(&self, mask: &[u32; 3], val: &[u32; 3], enc: &str, name: &str) -> DecodeError {
        for i in 0..3 {
            if mask[i] != 0 {
                match self.word(i) {
                    Err(e) => return e,
                    Ok(w) if w & mask[i] != val[i] => {
                        return self.err(format!(
                            "invalid {enc} {name}: word {i} bits {:#010x} must be {:#010x}",
                            mask[i], val[i]
                        ))
                    }
                    Ok(_) => {}
                }
            }
        }
        self.err(format!("invalid {enc} {name}"))
    }

    #[cold]
    #[inline(never)]
    fn bad_opcode(&self, enc: &str, op: u32) -> DecodeError {
        self.err(format!("invalid {enc} opcode {op:#x}"))
    }

    /// An image opcode's table entry, with the same fixed-bit check as [`Cx::lookup`].
    fn lookup_img(
        &self,
        table: &'static [Option<RdnaImage>],
        op: u32,
        enc: &str,
    ) -> Result<&'static RdnaImage, DecodeError> {
        match table.get(op as usize) {
            Some(Some(info)) if self.fixed_ok(&info.fixmask, &info.fixval) => Ok(info),
            Some(Some(info)) => {
                Err(self.fixed_err(&info.fixmask, &info.fixval, enc, info.heads[0].trim_end()))
            }
            _ => Err(self.bad_opcode(enc, op)),
        }
    }

    /// Operand widths for this wave size.
    fn widths(&self, info: &RdnaInfo) -> [u8; 4] {
        if self.wave64 {
            info.widths64
        } else {
            info.widths
        }
    }

    /// The lane-mask width in SGPRs (1 in wave32, 2 in wave64).
    fn mask(&self) -> u8 {
        if self.wave64 {
            2
        } else {
            1
        }
    }
}

/// Maps an RDNA scalar/source code (8 or 9 bits) into the common code space.
pub(crate) fn map_src(code: u32) -> u16 {
    match code {
        RDNA_NULL => Opnd::NULL,
        RDNA_M0 => Opnd::M0,
        c => c as u16,
    }
}

/// An operand from a source field: absent if `width` is 0.
fn src(code: u32, width: u8) -> Opnd {
    if width == 0 {
        Opnd::NONE
    } else {
        // An SGPR/TTMP tuple starts at a multiple of 2 (pairs) or 4: LLVM drops the low
        // bits of a misaligned field (its register classes are indexed by code >> shift).
        let code = match width {
            2 if code < 124 => code & !1,
            3.. if code < 124 => code & !3,
            _ => code,
        };
        Opnd {
            code: map_src(code),
            count: width,
        }
    }
}

/// A VGPR operand: absent if `width` is 0.
fn vgpr(reg: u32, width: u8) -> Opnd {
    if width == 0 {
        Opnd::NONE
    } else {
        Opnd::vgpr((reg & 0xFF) as u8, width)
    }
}

/// Register-file slot kinds of the generated tables.
const KIND_SGPR: u8 = 1;
const KIND_T16: u8 = 3;

fn empty(op: Op, format: Format) -> Inst {
    Inst {
        op,
        format,
        size: 4,
        words: [0; 4],
        dst: [Opnd::NONE; 2],
        src: [Opnd::NONE; 4],
        literal: None,
        imm: 0,
        mods: Mods::default(),
        dpp: None,
        dpp8: None,
        sdwa: None,
        mem: MemFields::default(),
        mai: MaiFields::default(),
    }
}

/// Decodes one GFX11/GFX12 instruction into `inst` (see [`super::decode_into`]).
pub fn decode_into(
    target: &Target,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let tb = tables(target);
    let cx = Cx {
        bytes,
        pc,
        wave64: target.wave_size == 64,
    };
    let w0 = cx.word(0)?;
    // Built in place: each per-encoding decoder resets `inst` with `empty` once its opcode
    // is known and fills it (no large moves per layer; `inst` is unspecified on error).
    if w0 >> 31 == 0 {
        match w0 >> 25 {
            0x3F => decode_vop1(tb, &cx, w0, inst)?,
            0x3E => decode_vopc(tb, &cx, w0, inst)?,
            _ => decode_vop2(tb, &cx, w0, inst)?,
        }
    } else if w0 >> 30 == 0b10 {
        match w0 >> 23 {
            0x17D => decode_sop12c(tb, &cx, w0, Format::Sop1, inst)?,
            0x17E => decode_sop12c(tb, &cx, w0, Format::Sopc, inst)?,
            0x17F => decode_sopp(tb, &cx, w0, inst)?,
            _ if w0 >> 28 == 0xB => decode_sopk(tb, &cx, w0, inst)?,
            _ => decode_sop12c(tb, &cx, w0, Format::Sop2, inst)?,
        }
    } else {
        match (w0 >> 24, tb.gfx12) {
            (0xF4..=0xF7, _) => decode_smem(tb, &cx, w0, inst)?,
            (0xD4..=0xD7, _) => decode_vop3(tb, &cx, w0, inst)?,
            (0xCC, _) => decode_vop3p(tb, &cx, w0, inst)?,
            (0xC8..=0xCB, _) => decode_vopd(tb, &cx, w0, inst)?,
            (0xD8..=0xDB, _) => decode_ds(tb, &cx, w0, inst)?,
            (0xDC..=0xDF, false) => decode_flat11(tb, &cx, w0, inst)?,
            (0xEC..=0xEE, true) => decode_flat12(tb, &cx, w0, inst)?,
            (0xE0..=0xE3, false) => decode_mubuf11(tb, &cx, w0, false, inst)?,
            (0xE8..=0xEB, false) => decode_mubuf11(tb, &cx, w0, true, inst)?,
            (0xC4..=0xC7, true) => decode_vbuffer(tb, &cx, w0, inst)?,
            (0xCD, _) => decode_vinterp(tb, &cx, w0, inst)?,
            (0xCE, _) => decode_ldsdir(tb, &cx, w0, inst)?,
            (0xF8..=0xFB, _) => decode_exp(tb, &cx, w0, inst)?,
            (0xF0..=0xF3, false) => decode_mimg(tb, &cx, w0, inst)?,
            (0xD0..=0xD3, true) => decode_vimage(tb, &cx, w0, false, inst)?,
            (0xE4..=0xE7, true) => decode_vimage(tb, &cx, w0, true, inst)?,
            (e, _) => {
                return Err(cx.err(format!("unknown encoding ({:#x})", e >> 2)));
            }
        }
    }
    let n = inst.size as usize;
    let Some(raw) = bytes.get(..n) else {
        // The first missing word gives the same error as reading it.
        let e = cx.word(bytes.len() / 4).err();
        return Err(e.unwrap_or_else(|| cx.err("truncated instruction")));
    };
    // Word by word (a `memcpy` call costs more than the four loads).
    for (i, w) in inst.words.iter_mut().enumerate() {
        if let Some(b) = raw.get(i * 4..i * 4 + 4) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    Ok(())
}

/// Source-code tables of [`Tables::src_ok`]; a 64-bit operand uses the role's table
/// `SRC_WIDE` places further (LLVM rejects `vcc_hi`, `exec_hi`, ... there).
const SRC_VOP: usize = 0;
const SRC_VOP3: usize = 1;
const SRC_SALU: usize = 2;
const SRC_WIDE: usize = 3;
const SRC_VINTERP: usize = 6;
const SRC_VGPR_ONLY: usize = 7;
const SRC_SDST64: usize = 8;
const SRC_VOP1_SDST: usize = 9;
const SRC_SALU_SREG: usize = 10;
const SRC_SALU_SREG64: usize = 11;
/// The lane mask a VOP3-encoded compare writes: wave32 (one SGPR), wave64 (a pair).
const SRC_VOPC_SDST32: usize = 12;
const SRC_VOPC_SDST64: usize = 13;
/// VOP3P sources of 8 and of 4 VGPRs (WMMA's C in wave32, wave64).
const SRC_VOP3P_X8: usize = 14;
const SRC_VOP3P_X4: usize = 15;

/// Roles of [`Tables::sreg_ok`] (generated in this order, `rdna.py` `SREG_MAPS`): SMEM
/// SDATA by register count ([`sdata_role`]), SMEM SBASE pair/quad, GFX12 VBUFFER, BVH and
/// image resources, VSAMPLE sampler, GLOBAL SADDR.
const SREG_SBASE: usize = 6;
const SREG_SBASE_QUAD: usize = 7;
const SREG_VBUFFER: usize = 8;
const SREG_RSRC4: usize = 9;
const SREG_RSRC8: usize = 10;
const SREG_SAMP: usize = 11;
const SREG_SADDR: usize = 12;

/// The [`Tables::sreg_ok`] role of an SMEM SDATA tuple of `n` SGPRs.
fn sdata_role(n: u8) -> Option<usize> {
    match n {
        1 => Some(0),
        2 => Some(1),
        3 => Some(2),
        4 => Some(3),
        8 => Some(4),
        16 => Some(5),
        _ => None,
    }
}

/// Whether a code bitmap (bit c of word c / 32) has bit `code`.
#[inline]
fn in_map<const N: usize>(map: &[u32; N], code: u32) -> bool {
    map.get((code >> 5) as usize)
        .is_some_and(|w| (w >> (code & 31)) & 1 == 1)
}

/// Rejects a reserved source code (table `map`, its 64-bit twin for a `width` 2 operand)
/// and, for a source that may select a DPP extension (`dpp`), a DPP form the opcode does not
/// have: LLVM rejects both words.
#[inline]
fn check_src(
    cx: &Cx,
    tb: &Tables,
    map: usize,
    width: u8,
    code: u32,
    info: &RdnaInfo,
    dpp: bool,
) -> Result<(), DecodeError> {
    // Fast path: a VGPR, or a code the table accepts (the DPP codes are checked per opcode:
    // the tables probe them with a word that is no valid DPP control).
    let dpp_code = matches!(code, SRC_DPP16 | SRC_DPP8 | SRC_DPP8_FI);
    let map = if width == 2 { map + SRC_WIDE } else { map };
    if code >= 256 || !dpp_code && in_map(&tb.src_ok[map], code) {
        return Ok(());
    }
    let no_dpp = match code {
        SRC_DPP16 => info.mods & MOD_NODPP16,
        SRC_DPP8 | SRC_DPP8_FI => info.mods & MOD_NODPP8,
        _ => 0,
    };
    if dpp_code && dpp && no_dpp == 0 {
        return Ok(());
    }
    Err(src_err(cx, code, info, dpp_code, dpp))
}

#[cold]
#[inline(never)]
fn src_err(cx: &Cx, code: u32, info: &RdnaInfo, dpp_code: bool, dpp: bool) -> DecodeError {
    let m = info.mnemonic;
    cx.err(match (dpp_code, dpp) {
        (true, false) => format!("{m}: DPP source code {code:#x} here"),
        (true, true) => format!("{m} has no DPP form"),
        _ => format!("{m}: reserved source code {code:#x}"),
    })
}

/// Whether LLVM decodes DPP16 control `c` (generated: quad_perm, row_shl/shr/ror 1..15,
/// row_mirror, row_half_mirror, row_share, row_xmask, and the GFX9 controls it prints as a
/// "not supported" comment); others it flags as invalid.
fn dpp_ctrl_valid(tb: &Tables, c: u16) -> bool {
    in_map(tb.dpp_ok, c as u32) || dpp_note(tb, c).is_some()
}

/// The comment LLVM prints in place of DPP16 control `c` when it is a GFX9 control the
/// target does not have (`wave_shl is not supported starting from GFX10`).
pub(crate) fn dpp_note(tb: &Tables, c: u16) -> Option<&'static str> {
    tb.dpp_notes.iter().find(|n| n.0 == c).map(|n| n.1)
}

/// DPP16 checks after the extension word was read: a valid control, and in a 32-bit
/// encoding no source modifier bit (DPP word bits 20..23: neg/abs of src0, src1) LLVM
/// rejects for the opcode (generated `MOD_DPPMOD0`/`MOD_DPPMOD1`).
///
/// LLVM 22 reads the DPP16 control of some VOP3/VOP3P opcodes (tied destinations: generated
/// `EXTRA_DPP_CTRL_SRC`) as a source code: the constants other than 0..64 make it an invalid
/// control.
fn check_dpp(tb: &Tables, cx: &Cx, inst: &Inst, info: &RdnaInfo) -> Result<(), DecodeError> {
    let Some(d) = inst.dpp else {
        return Ok(());
    };
    if !dpp_ctrl_valid(tb, d.ctrl) {
        return Err(cx.err(format!("invalid DPP control {:#x}", d.ctrl)));
    }
    if info.extra & EXTRA_DPP_CTRL_SRC != 0
        && matches!(inst.format, Format::Vop3 | Format::Vop3b | Format::Vop3p)
        && matches!(d.ctrl, 0xC1..=0xD0 | 0xF0..=0xF8 | 0xFF)
    {
        return Err(cx.err(format!(
            "{}: DPP control {:#x} read as a constant",
            info.mnemonic, d.ctrl
        )));
    }
    if matches!(inst.format, Format::Vop1 | Format::Vop2 | Format::Vopc) {
        for (i, ok) in [MOD_DPPMOD0, MOD_DPPMOD1].into_iter().enumerate() {
            if (inst.mods.neg | inst.mods.abs) >> i & 1 == 1 && info.mods & ok == 0 {
                return Err(cx.err(format!("{}: no source modifiers on src{i}", info.mnemonic)));
            }
        }
    }
    Ok(())
}

/// In a VOP3 (`enc_id` 0) or VOP3P (1) DPP form, sources 1 and 2 take only the codes LLVM
/// accepts there without flagging them (generated `dpp_src`: `v_fma_mix*` SRC1 is a VGPR,
/// the lane mask of `v_cndmask_b32_e64_dpp` no constant); LLVM flags the others
/// (`/*Invalid immediate*/`) and we reject them.
fn check_dpp_srcs(
    tb: &Tables,
    cx: &Cx,
    inst: &Inst,
    info: &RdnaInfo,
    enc_id: u8,
    op: u32,
    codes: &[u32; 3],
) -> Result<(), DecodeError> {
    let form = match (inst.dpp, inst.dpp8) {
        (Some(_), _) => 1,
        (_, Some(_)) => 2,
        _ => return Ok(()),
    };
    for slot in 1..3u8 {
        let c = codes[slot as usize];
        if c >= 256 {
            continue;
        }
        let key = (enc_id, op as u16, form, slot);
        if let Ok(i) = tb
            .dpp_src
            .binary_search_by_key(&key, |e| (e.0, e.1, e.2, e.3))
        {
            if !in_map(&tb.dpp_src[i].4, c) {
                return Err(cx.err(format!(
                    "{}: source code {c:#x} in src{slot} of a DPP form",
                    info.mnemonic
                )));
            }
        }
    }
    Ok(())
}

/// Whether LLVM 22 shows a constant in source `slot` (1 or 2) of this VOP3/VOP3P DPP form
/// as its raw field (`v_fmac_f32_e64_dpp v2, v4, 0x80`), the literal code 0xff too, without
/// reading a literal (generated `dpp_raw`). `op` is the VOP3/VOP3P opcode field.
pub(crate) fn dpp_raw(tb: &Tables, inst: &Inst, op: u32, slot: u8) -> bool {
    let form = match (inst.dpp, inst.dpp8) {
        (Some(_), _) => 1,
        (_, Some(_)) => 2,
        _ => return false,
    };
    let enc = match inst.format {
        Format::Vop3 | Format::Vop3b => 0,
        Format::Vop3p => 1,
        _ => return false,
    };
    tb.dpp_raw
        .binary_search(&(enc, op as u16, form, slot))
        .is_ok()
}

/// Whether `n` scalar registers from code `c` stay within the SGPRs (s0..s105) or within the
/// TTMPs (ttmp0..ttmp15): LLVM rejects a resource tuple that runs past either.
fn sgpr_tuple_ok(c: u32, n: u32) -> bool {
    c + n <= 106 || (108..=123).contains(&c) && c + n <= 124 || c == RDNA_NULL
}

/// Reads the literal dword at `inst.size` if any source is the literal code.
fn take_literal(cx: &Cx, inst: &mut Inst) -> Result<(), DecodeError> {
    if inst.src.iter().any(|s| s.code == Opnd::LITERAL) {
        inst.literal = Some(cx.word(inst.size as usize / 4)?);
        inst.size += 4;
    }
    Ok(())
}

/// Rejects a 64-bit SDST LLVM does not accept (`vcc_hi`, `m0`, `exec_hi`: generated map).
fn check_sdst(
    cx: &Cx,
    tb: &Tables,
    info: &RdnaInfo,
    code: u32,
    width: u8,
) -> Result<(), DecodeError> {
    if width == 2 && !in_map(&tb.src_ok[SRC_SDST64], code) {
        return Err(cx.err(format!(
            "{}: invalid 64-bit SDST code {code}",
            info.mnemonic
        )));
    }
    Ok(())
}

fn decode_sop12c(
    tb: &Tables,
    cx: &Cx,
    w0: u32,
    format: Format,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let (table, op, name) = match format {
        Format::Sop1 => (tb.sop1, (w0 >> 8) & 0xFF, "SOP1"),
        Format::Sopc => (tb.sopc, (w0 >> 16) & 0x7F, "SOPC"),
        _ => (tb.sop2, (w0 >> 23) & 0x7F, "SOP2"),
    };
    let info = cx.lookup(table, op, name)?;
    let w = info.widths;
    // Source slots: SOP1 (SSRC0), SOPC (SSRC0, SSRC1), SOP2 (SSRC0, SSRC1).
    let srcs = match format {
        Format::Sop1 => [(w0 & 0xFF, w[1]), (0, 0)],
        Format::Sopc => [(w0 & 0xFF, w[0]), ((w0 >> 8) & 0xFF, w[1])],
        _ => [(w0 & 0xFF, w[1]), ((w0 >> 8) & 0xFF, w[2])],
    };
    for (code, width) in srcs {
        if width == 0 || info.mods & MOD_SENDMSG != 0 {
            continue;
        }
        if info.extra & EXTRA_SREG_ONLY != 0 {
            // A register-only source class (no constants): its own generated maps.
            let map = if width == 2 {
                SRC_SALU_SREG64
            } else {
                SRC_SALU_SREG
            };
            check_src(cx, tb, map, 1, code, info, false)?;
        } else if !(code == SRC_LDS_DIRECT && info.extra & EXTRA_LDS_DIRECT != 0) {
            check_src(cx, tb, SRC_SALU, width, code, info, false)?;
        }
    }
    if format != Format::Sopc {
        check_sdst(cx, tb, info, (w0 >> 16) & 0x7F, w[0])?;
    }
    *inst = empty(info.op, format);
    match format {
        Format::Sop1 => {
            inst.dst[0] = src((w0 >> 16) & 0x7F, w[0]);
            inst.src[0] = src(w0 & 0xFF, w[1]);
        }
        Format::Sopc => {
            inst.src[0] = src(w0 & 0xFF, w[0]);
            inst.src[1] = src((w0 >> 8) & 0xFF, w[1]);
        }
        _ => {
            inst.dst[0] = src((w0 >> 16) & 0x7F, w[0]);
            inst.src[0] = src(w0 & 0xFF, w[1]);
            inst.src[1] = src((w0 >> 8) & 0xFF, w[2]);
            if info.class & (CLASS_MADMK | CLASS_MADAK) != 0 {
                // `s_fmamk_f32`/`s_fmaak_f32`: the K literal is always there (a literal
                // source shares it).
                let kop = Opnd::scalar(Opnd::LITERAL as u8, 1);
                if info.class & CLASS_MADMK != 0 {
                    inst.src[2] = inst.src[1];
                    inst.src[1] = kop;
                } else {
                    inst.src[2] = kop;
                }
            }
        }
    }
    if format == Format::Sop1 && info.mods & MOD_SENDMSG != 0 {
        // The SSRC0 field holds the message id (`sendmsg(...)`), not a register.
        inst.imm = (w0 & 0xFF) as i32;
    }
    take_literal(cx, inst)?;
    Ok(())
}

fn decode_sopk(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup(tb.sopk, (w0 >> 23) & 0x1F, "SOPK")?;
    check_sdst(cx, tb, info, (w0 >> 16) & 0x7F, info.widths[0])?;
    *inst = empty(info.op, Format::Sopk);
    let reg = src((w0 >> 16) & 0x7F, info.widths[0]);
    if info.class & CLASS_SDST_READ != 0 {
        inst.src[0] = reg;
    } else {
        inst.dst[0] = reg;
    }
    inst.imm = (w0 & 0xFFFF) as u16 as i16 as i32;
    if info.mods & MOD_IMM32 != 0 {
        inst.literal = Some(cx.word(1)?);
        inst.size = 8;
    }
    Ok(())
}

fn decode_sopp(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup(tb.sopp, (w0 >> 16) & 0x7F, "SOPP")?;
    *inst = empty(info.op, Format::Sopp);
    inst.imm = (w0 & 0xFFFF) as u16 as i16 as i32;
    Ok(())
}

fn decode_smem(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let w1 = cx.word(1)?;
    let (op, offset) = if tb.gfx12 {
        ((w0 >> 13) & 0x3F, ((w1 & 0xFF_FFFF) << 8) as i32 >> 8)
    } else {
        ((w0 >> 18) & 0xFF, ((w1 & 0x1F_FFFF) << 11) as i32 >> 11)
    };
    let info = cx.lookup(tb.smem, op, "SMEM")?;
    let w = info.widths;
    // SDATA and SBASE tuples LLVM accepts (past s105 or the TTMPs, `exec` as data, ... not).
    let sdata_ok = match sdata_role(w[0]) {
        Some(role) if info.kinds[0] == KIND_SGPR => in_map(&tb.sreg_ok[role], (w0 >> 6) & 0x7F),
        _ => true,
    };
    let sbase_role = if info.class & CLASS_SBUFFER != 0 {
        SREG_SBASE_QUAD
    } else {
        SREG_SBASE
    };
    if !sdata_ok || w[1] != 0 && !in_map(&tb.sreg_ok[sbase_role], (w0 & 0x3F) << 1) {
        return Err(cx.err(format!(
            "{}: invalid SDATA or SBASE register",
            info.mnemonic
        )));
    }
    *inst = empty(info.op, Format::Smem);
    inst.size = 8;
    let sdata = src((w0 >> 6) & 0x7F, w[0]);
    if info.class & CLASS_STORE != 0 {
        inst.src[1] = sdata;
    } else {
        inst.dst[0] = sdata;
    }
    if w[1] != 0 {
        // SBASE omits the register number's LSB; a buffer resource is a quad (LLVM shows
        // the quad containing the pair).
        inst.src[0] = if info.class & CLASS_SBUFFER != 0 {
            src(((w0 & 0x3F) << 1) & !3, 4)
        } else {
            src((w0 & 0x3F) << 1, 2)
        };
    }
    let soff = w1 >> 25;
    if soff != RDNA_NULL {
        inst.src[2] = src(soff, 1);
    }
    inst.mem.offset = offset;
    if tb.gfx12 {
        // TH, SCOPE; NV (bit 20) and SCALE_OFFSET (bit 56), which LLVM 22 prints on gfx12.
        inst.mem.cpol = (((w0 >> 23) & 3)
            | (((w0 >> 21) & 3) << 3)
            | (((w0 >> 20) & 1) << 5)
            | (((w1 >> 24) & 1) << 6)) as u8;
    } else {
        inst.mem.glc = (w0 >> 14) & 1 == 1;
        inst.mem.dlc = (w0 >> 13) & 1 == 1;
    }
    Ok(())
}

/// A true16-capable VGPR field of a 32-bit encoding: bit 7 selects the high half when the
/// slot is 16-bit. Returns the operand and whether it is `.h`.
fn vreg16(reg: u32, width: u8, kind: u8) -> (Opnd, bool) {
    if kind == KIND_T16 {
        (vgpr(reg & 0x7F, width), reg & 0x80 != 0)
    } else {
        (vgpr(reg, width), false)
    }
}

/// A 9-bit source of a 32-bit VALU encoding (true16 aware).
fn src9_16(code: u32, width: u8, kind: u8) -> (Opnd, bool) {
    if code >= 256 {
        vreg16(code - 256, width, kind)
    } else {
        (src(code, width), false)
    }
}

/// Reads the DPP16/DPP8 extension word `i` when `src0` selects one; returns the real src0.
fn vop_ext(
    cx: &Cx,
    inst: &mut Inst,
    code: u32,
    i: usize,
    width: u8,
    kind: u8,
) -> Result<Option<(Opnd, bool)>, DecodeError> {
    match code {
        SRC_DPP16 => {
            let e = cx.word(i)?;
            inst.dpp = Some(Dpp {
                ctrl: ((e >> 8) & 0x1FF) as u16,
                row_mask: (e >> 28) as u8,
                bank_mask: ((e >> 24) & 0xF) as u8,
                bound_ctrl: (e >> 19) & 1 == 1,
                fi: (e >> 18) & 1 == 1,
            });
            inst.size += 4;
            if !matches!(inst.format, Format::Vop3 | Format::Vop3b | Format::Vop3p) {
                // DPP16 of a 32-bit encoding: the source modifiers are in the DPP word.
                inst.mods.neg |= (((e >> 20) & 1) | (((e >> 22) & 1) << 1)) as u8;
                inst.mods.abs |= (((e >> 21) & 1) | (((e >> 23) & 1) << 1)) as u8;
            }
            Ok(Some(vreg16(e & 0xFF, width, kind)))
        }
        SRC_DPP8 | SRC_DPP8_FI => {
            let e = cx.word(i)?;
            let mut sel = [0u8; 8];
            for (k, s) in sel.iter_mut().enumerate() {
                *s = ((e >> (8 + 3 * k)) & 7) as u8;
            }
            inst.dpp8 = Some(sel);
            if code == SRC_DPP8_FI {
                inst.mods.op_sel_hi |= 0x80;
            }
            inst.size += 4;
            Ok(Some(vreg16(e & 0xFF, width, kind)))
        }
        _ => Ok(None),
    }
}

fn decode_vop1(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup_vop(tb, tb.vop1, (w0 >> 9) & 0xFF, "VOP1")?;
    let w = cx.widths(info);
    let k = info.kinds;
    *inst = empty(info.op, Format::Vop1);
    let vd = (w0 >> 17) & 0xFF;
    if k[0] == KIND_SGPR {
        if !in_map(&tb.src_ok[SRC_VOP1_SDST], vd) {
            return Err(cx.err(format!("{}: invalid SGPR VDST code {vd}", info.mnemonic)));
        }
        inst.dst[0] = src(vd, w[0]);
    } else {
        let (d, hi) = vreg16(vd, w[0], k[0]);
        inst.dst[0] = d;
        inst.mods.op_sel |= (hi as u8) << 3;
    }
    let code = w0 & 0x1FF;
    if w[1] != 0 {
        check_src(cx, tb, SRC_VOP, w[1], code, info, true)?;
    }
    let (s0, hi) = match vop_ext(cx, inst, code, 1, w[1], k[1])? {
        Some(r) => r,
        None => src9_16(code, w[1], k[1]),
    };
    inst.src[0] = s0;
    inst.mods.op_sel |= hi as u8;
    check_dpp(tb, cx, inst, info)?;
    take_literal(cx, inst)?;
    Ok(())
}

fn decode_vop2(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup_vop(tb, tb.vop2, (w0 >> 25) & 0x3F, "VOP2")?;
    let w = cx.widths(info);
    let k = info.kinds;
    *inst = empty(info.op, Format::Vop2);
    let (d, dhi) = vreg16((w0 >> 17) & 0xFF, w[0], k[0]);
    inst.dst[0] = d;
    let code = w0 & 0x1FF;
    if w[1] != 0 {
        check_src(cx, tb, SRC_VOP, w[1], code, info, true)?;
    }
    let (s0, hi0) = match vop_ext(cx, inst, code, 1, w[1], k[1])? {
        Some(r) => r,
        None => src9_16(code, w[1], k[1]),
    };
    let (s1, hi1) = vreg16((w0 >> 9) & 0xFF, w[2], k[2]);
    inst.src[0] = s0;
    inst.src[1] = s1;
    inst.mods.op_sel |= (hi0 as u8) | (hi1 as u8) << 1 | (dhi as u8) << 3;
    let vcc = Opnd::scalar(VCC as u8, cx.mask());
    if info.mods & MOD_CARRY != 0 {
        inst.dst[1] = vcc;
        inst.src[2] = vcc;
    } else if info.mods & MOD_VCCIN != 0 {
        inst.src[2] = vcc;
    }
    if info.class & (CLASS_MADMK | CLASS_MADAK) != 0 {
        // The K constant: `fmamk` multiplies by it (src1 slot), `fmaak` adds it (src2).
        let kk = cx.word(inst.size as usize / 4)?;
        inst.size += 4;
        let kop = Opnd::scalar(Opnd::LITERAL as u8, 1);
        if info.class & CLASS_MADMK != 0 {
            inst.src[2] = inst.src[1];
            inst.src[1] = kop;
        } else {
            inst.src[2] = kop;
        }
        // A literal src0 is the same dword as K.
        inst.literal = Some(kk);
        return Ok(());
    }
    check_dpp(tb, cx, inst, info)?;
    take_literal(cx, inst)?;
    Ok(())
}

fn decode_vopc(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup_vop(tb, tb.vopc, (w0 >> 17) & 0xFF, "VOPC")?;
    let w = cx.widths(info);
    let k = info.kinds;
    *inst = empty(info.op, Format::Vopc);
    inst.dst[0] = if info.mods & MOD_CMPX != 0 {
        Opnd::scalar(EXEC as u8, cx.mask())
    } else {
        Opnd::scalar(VCC as u8, cx.mask())
    };
    let code = w0 & 0x1FF;
    if w[0] != 0 {
        check_src(cx, tb, SRC_VOP, w[0], code, info, true)?;
    }
    let (s0, hi0) = match vop_ext(cx, inst, code, 1, w[0], k[0])? {
        Some(r) => r,
        None => src9_16(code, w[0], k[0]),
    };
    let (s1, hi1) = vreg16((w0 >> 9) & 0xFF, w[1], k[1]);
    inst.src[0] = s0;
    inst.src[1] = s1;
    inst.mods.op_sel |= (hi0 as u8) | (hi1 as u8) << 1;
    check_dpp(tb, cx, inst, info)?;
    take_literal(cx, inst)?;
    Ok(())
}

fn decode_vop3(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup_vop3(tb, tb.vop3, (w0 >> 16) & 0x3FF, "VOP3", 0)?;
    let w1 = cx.word(1)?;
    let w = cx.widths(info);
    let k = info.kinds;
    let sd = info.mods & MOD_SD != 0;
    *inst = empty(info.op, if sd { Format::Vop3b } else { Format::Vop3 });
    inst.size = 8;
    let vd = w0 & 0xFF;
    // SGPR destinations (VOPC's lane mask, `v_readlane_b32`; VOP3SD's SDST) LLVM accepts:
    // codes 128.. only where `v_readfirstlane_b32` takes them (it flags `m0`, VOPC not).
    // A compare (VOP3 opcodes 0..255 are the VOPC ones, RDNA4 ISA 16.9.1) has its own
    // generated maps: `src_lds_direct` in wave32, the `src_*` apertures in wave64.
    let vopc = (w0 >> 16) & 0x3FF < 0x100;
    let sdst_bad = |code: u32, width: u8| match width {
        1 if vopc => !in_map(&tb.src_ok[SRC_VOPC_SDST32], code),
        1 => code >= 128 && !in_map(&tb.src_ok[SRC_VOP1_SDST], code),
        2 if vopc => !in_map(&tb.src_ok[SRC_VOPC_SDST64], code),
        2 => !in_map(&tb.src_ok[SRC_SDST64], code),
        _ => false,
    };
    if k[0] == KIND_SGPR && sdst_bad(vd, w[0]) || sd && sdst_bad((w0 >> 8) & 0x7F, cx.mask()) {
        return Err(cx.err(format!("{}: invalid SGPR destination", info.mnemonic)));
    }
    inst.dst[0] = if k[0] == KIND_SGPR {
        src(vd, w[0])
    } else {
        vgpr(vd, w[0])
    };
    if sd {
        inst.dst[1] = src((w0 >> 8) & 0x7F, cx.mask());
    } else {
        inst.mods.abs = ((w0 >> 8) & 7) as u8;
        // OP_SEL bits LLVM decodes but ignores (generated) are dropped.
        let ign = (info.extra & EXTRA_OPSEL_IGN) >> EXTRA_OPSEL_IGN_SHIFT;
        inst.mods.op_sel = ((w0 >> 11) & 0xF & !ign) as u8;
    }
    inst.mods.clamp = (w0 >> 15) & 1 == 1;
    inst.mods.omod = ((w1 >> 27) & 3) as u8;
    inst.mods.neg = ((w1 >> 29) & 7) as u8;
    let codes = [w1 & 0x1FF, (w1 >> 9) & 0x1FF, (w1 >> 18) & 0x1FF];
    for (i, &c) in codes.iter().enumerate() {
        if w[i + 1] != 0 {
            check_src(cx, tb, SRC_VOP3, w[i + 1], c, info, i == 0)?;
        }
        inst.src[i] = src(c, w[i + 1]);
    }
    if let Some((s0, _)) = vop_ext(cx, inst, codes[0], 2, w[1], 0)? {
        inst.src[0] = s0;
    }
    check_dpp_srcs(tb, cx, inst, info, 0, (w0 >> 16) & 0x3FF, &codes)?;
    if info.mods & MOD_FAKE16_NOMODS != 0 && vop3_fake16(inst, info) {
        for i in 0..3 {
            let m = inst.mods.abs >> i & 1 == 1 && info.mods & (MOD_ABS0 << i) == 0
                || inst.mods.neg >> i & 1 == 1 && info.mods & (MOD_NEG0 << i) == 0;
            if m && inst.src[i].is_some() {
                return Err(cx.err(format!(
                    "{}: fake16 form without modifiers on src{i}",
                    info.mnemonic
                )));
            }
        }
    }
    check_dpp(tb, cx, inst, info)?;
    // A literal or an inline constant (codes 128..=208, 240..=248; RDNA4 ISA 7.1) where LLVM
    // flags it (`/*Invalid immediate*/`: a lane mask, a VGPR-only source; generated
    // `vop3_nolit`, per wave size).
    let consts = codes.iter().enumerate().fold(0u16, |m, (i, &c)| {
        let inline = matches!(c, 128..=208 | 240..=248);
        m | u16::from(c == Opnd::LITERAL as u32) << i | u16::from(inline) << (3 + i)
    });
    if consts != 0 {
        let op = ((w0 >> 16) & 0x3FF) as u16;
        if let Ok(i) = tb.vop3_nolit.binary_search_by_key(&op, |e| e.0) {
            let bits = tb.vop3_nolit[i].1 >> if cx.wave64 { 6 } else { 0 };
            if consts & bits != 0 {
                return Err(cx.err(format!(
                    "{}: a literal or constant source here",
                    info.mnemonic
                )));
            }
        }
    }
    // A raw-field source 1 (LLVM: `v_fmac_f32_e64_dpp ..., 0xff`) reads no literal.
    let raw_lit = codes[1] == Opnd::LITERAL as u32
        && codes[2] != Opnd::LITERAL as u32
        && dpp_raw(tb, inst, (w0 >> 16) & 0x3FF, 1);
    if !raw_lit {
        take_literal(cx, inst)?;
    }
    Ok(())
}

/// The number of sources of a VOP3 opcode (`v_fmac_*`'s accumulator is a tied third source
/// with its own op_sel bit).
pub(crate) fn vop3_nsrc(info: &RdnaInfo) -> usize {
    if info.mnemonic.starts_with("v_fmac") {
        3
    } else {
        (0..3).filter(|&i| info.widths[i + 1] != 0).count()
    }
}

/// Whether LLVM 22 decodes this VOP3 true16 instruction in its fake16 form: its real-true16
/// tables reject OP_SEL bits of operands the true16 form does not have (a missing source or
/// destination, `v_fmac_f16`'s tied accumulator, `v_cndmask_b16`'s lane mask: generated
/// `EXTRA_FAKE16_OPSEL`), and it then falls back to the fake16 form (printed without
/// `.l`/`.h` and `op_sel`; neg/abs bits of a source without modifiers become invalid there).
pub(crate) fn vop3_fake16(inst: &Inst, info: &RdnaInfo) -> bool {
    inst.format == Format::Vop3
        && u32::from(inst.mods.op_sel) & info.extra & EXTRA_FAKE16_OPSEL != 0
}

fn decode_vop3p(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup_vop3(tb, tb.vop3p, (w0 >> 16) & 0x7F, "VOP3P", 1)?;
    let w1 = cx.word(1)?;
    let w = cx.widths(info);
    *inst = empty(info.op, Format::Vop3p);
    inst.size = 8;
    inst.dst[0] = vgpr(w0 & 0xFF, w[0]);
    inst.mods.neg_hi = ((w0 >> 8) & 7) as u8;
    inst.mods.op_sel = ((w0 >> 11) & 7) as u8;
    inst.mods.op_sel_hi = (((w1 >> 27) & 3) | (((w0 >> 14) & 1) << 2)) as u8;
    inst.mods.clamp = (w0 >> 15) & 1 == 1;
    inst.mods.neg = ((w1 >> 29) & 7) as u8;
    let codes = [w1 & 0x1FF, (w1 >> 9) & 0x1FF, (w1 >> 18) & 0x1FF];
    for (i, &c) in codes.iter().enumerate() {
        let map = match w[i + 1] {
            8 => SRC_VOP3P_X8,
            4 => SRC_VOP3P_X4,
            _ => SRC_VOP3,
        };
        if w[i + 1] != 0 {
            check_src(cx, tb, map, w[i + 1], c, info, i == 0)?;
        }
        inst.src[i] = src(c, w[i + 1]);
    }
    if let Some((s0, _)) = vop_ext(cx, inst, codes[0], 2, w[1], 0)? {
        inst.src[0] = s0;
    }
    check_dpp_srcs(tb, cx, inst, info, 1, (w0 >> 16) & 0x7F, &codes)?;
    check_dpp(tb, cx, inst, info)?;
    take_literal(cx, inst)?;
    Ok(())
}

fn decode_vopd(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let w1 = cx.word(1)?;
    let opx = (w0 >> 22) & 0xF;
    let opy = (w0 >> 17) & 0x1F;
    let x = cx.lookup(tb.vopdx, opx, "VOPD X")?;
    let y = cx.lookup(tb.vopdy, opy, "VOPD Y")?;
    if cx.wave64 {
        // RDNA3/4 guides: VOPD (dual issue) exists in wave32 only.
        return Err(cx.err("VOPD is not available in wave64 code"));
    }
    // A one-source half (`v_dual_mov_b32`) has VSRC1 = 0; sources use the VOP1 code table.
    if x.widths[2] == 0 && (w0 >> 9) & 0xFF != 0 || y.widths[2] == 0 && (w1 >> 9) & 0xFF != 0 {
        return Err(cx.err("VOPD: VSRC1 of a one-source opcode must be 0"));
    }
    check_src(cx, tb, SRC_VOP, 1, w0 & 0x1FF, x, false)?;
    check_src(cx, tb, SRC_VOP, 1, w1 & 0x1FF, y, false)?;
    *inst = empty(x.op, Format::Vopd);
    inst.size = 8;
    inst.imm = opy as i32;
    let vdx = w1 >> 24;
    let vdy = (((w1 >> 17) & 0x7F) << 1) | (!vdx & 1);
    inst.dst[0] = vgpr(vdx, 1);
    inst.dst[1] = vgpr(vdy, 1);
    inst.src[0] = src(w0 & 0x1FF, 1);
    inst.src[1] = vgpr((w0 >> 9) & 0xFF, x.widths[2]);
    inst.src[2] = src(w1 & 0x1FF, 1);
    inst.src[3] = vgpr((w1 >> 9) & 0xFF, y.widths[2]);
    let k = (x.class | y.class) & (CLASS_MADMK | CLASS_MADAK) != 0;
    if k || inst.src[0].code == Opnd::LITERAL || inst.src[2].code == Opnd::LITERAL {
        inst.literal = Some(cx.word(2)?);
        inst.size = 12;
    }
    Ok(())
}

fn decode_ds(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup(tb.ds, (w0 >> 18) & 0xFF, "DS")?;
    let w1 = cx.word(1)?;
    let w = info.widths;
    *inst = empty(info.op, Format::Ds);
    inst.size = 8;
    inst.dst[0] = vgpr(w1 >> 24, w[0]);
    inst.src[0] = vgpr(w1 & 0xFF, w[1]);
    inst.src[1] = vgpr((w1 >> 8) & 0xFF, w[2]);
    inst.src[2] = vgpr((w1 >> 16) & 0xFF, w[3]);
    // As on GFX9 (`isa::MemFields`): two 8-bit offsets for the two-address forms, else one
    // 16-bit offset in `offset`.
    if info.class & CLASS_TWO_OFFSETS != 0 {
        inst.mem.offset = (w0 & 0xFF) as i32;
        inst.mem.offset1 = ((w0 >> 8) & 0xFF) as u8;
    } else {
        inst.mem.offset = (w0 & 0xFFFF) as i32;
    }
    if !tb.gfx12 {
        inst.mem.gds = (w0 >> 17) & 1 == 1;
    }
    Ok(())
}

/// Data width of a FLAT/buffer data slot: TFE adds one dword to loads.
fn data_width(info: &RdnaInfo, slot: usize, tfe: bool) -> u8 {
    let w = info.widths[slot];
    if tfe && w != 0 {
        w + 1
    } else {
        w
    }
}

/// The register count an atomic returns (`cmpswap` returns half its data).
fn atomic_ret_width(info: &RdnaInfo, data: u8) -> u8 {
    if info.class & CLASS_CMPSWAP != 0 {
        (data / 2).max(1)
    } else {
        data
    }
}

/// FLAT/GLOBAL/SCRATCH operands common to both families. `ret`: the opcode is an atomic
/// that returns the old value (GFX11 GLC, GFX12 TH bit 0).
#[allow(clippy::too_many_arguments)]
fn flat_common(
    tb: &Tables,
    cx: &Cx,
    info: &RdnaInfo,
    format: Format,
    vdst: u32,
    vaddr: u32,
    vdata: u32,
    saddr: u32,
    sve: bool,
    ret: bool,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    // Wave64 `global_load_tr_b64`/`b128` return half the VGPRs of wave32 (generated).
    let w = cx.widths(info);
    *inst = empty(info.op, format);
    inst.dst[0] = vgpr(vdst, w[0]);
    inst.src[1] = vgpr(vdata, w[2]);
    if ret && info.class & CLASS_ATOMIC != 0 {
        inst.dst[0] = vgpr(vdst, atomic_ret_width(info, w[2]));
    }
    let has_saddr = saddr != RDNA_NULL;
    if format == Format::Global && has_saddr && !in_map(&tb.sreg_ok[SREG_SADDR], saddr) {
        return Err(cx.err(format!("{}: invalid SADDR register", info.mnemonic)));
    }
    match format {
        Format::Scratch => {
            if sve {
                inst.src[0] = vgpr(vaddr, 1);
            }
            if has_saddr {
                inst.src[2] = src(saddr, 1);
            }
        }
        Format::Global if has_saddr => {
            inst.src[0] = vgpr(vaddr, w[1].min(1));
            inst.src[2] = src(saddr, 2);
        }
        _ if w[1] != 0 => inst.src[0] = vgpr(vaddr, w[1].max(2)),
        _ => {}
    }
    Ok(())
}

fn decode_flat11(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let w1 = cx.word(1)?;
    let op = (w0 >> 18) & 0x7F;
    let (table, format, name) = match (w0 >> 16) & 3 {
        0 => (tb.flat, Format::Flat, "FLAT"),
        1 => (tb.scratch, Format::Scratch, "SCRATCH"),
        2 => (tb.global, Format::Global, "GLOBAL"),
        _ => return Err(cx.err("invalid FLAT segment 3")),
    };
    let info = cx.lookup(table, op, name)?;
    flat_common(
        tb,
        cx,
        info,
        format,
        w1 >> 24,
        w1 & 0xFF,
        (w1 >> 8) & 0xFF,
        (w1 >> 16) & 0x7F,
        (w1 >> 23) & 1 == 1,
        (w0 >> 14) & 1 == 1,
        inst,
    )?;
    inst.size = 8;
    // The FLAT segment's offset is unsigned before GFX12 (llvm-mc-22 assembles 0..4095 and
    // prints the 13-bit field unsigned), as on GFX9; GLOBAL/SCRATCH offsets are signed.
    inst.mem.offset = if format == Format::Flat {
        (w0 & 0x1FFF) as i32
    } else {
        ((w0 & 0x1FFF) << 19) as i32 >> 19
    };
    inst.mem.dlc = (w0 >> 13) & 1 == 1;
    inst.mem.glc = (w0 >> 14) & 1 == 1;
    inst.mem.slc = (w0 >> 15) & 1 == 1;
    Ok(())
}

fn decode_flat12(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let w1 = cx.word(1)?;
    let w2 = cx.word(2)?;
    let op = (w0 >> 14) & 0xFF;
    let (table, format, name) = match (w0 >> 24) & 3 {
        0 => (tb.flat, Format::Flat, "VFLAT"),
        1 => (tb.scratch, Format::Scratch, "VSCRATCH"),
        _ => (tb.global, Format::Global, "VGLOBAL"),
    };
    let info = cx.lookup(table, op, name)?;
    flat_common(
        tb,
        cx,
        info,
        format,
        w1 & 0xFF,
        w2 & 0xFF,
        (w1 >> 23) & 0xFF,
        w0 & 0x7F,
        (w1 >> 17) & 1 == 1,
        (w1 >> 20) & 1 == 1,
        inst,
    )?;
    inst.size = 12;
    inst.mem.offset = w2 as i32 >> 8;
    // TH, SCOPE, NV (bit 7), SCALE_OFFSET (bit 48).
    inst.mem.cpol = (((w1 >> 20) & 7)
        | (((w1 >> 18) & 3) << 3)
        | (((w0 >> 7) & 1) << 5)
        | (((w1 >> 16) & 1) << 6)) as u8;
    Ok(())
}

/// MUBUF/MTBUF/VBUFFER operands common to both families.
/// `regs` = (VDATA, VADDR, RSRC, SOFFSET); `ret`: an atomic that returns the old value
/// into the data registers.
fn buffer_common(inst: &mut Inst, info: &RdnaInfo, regs: (u32, u32, u32, u32), ret: bool) {
    let (vdata, vaddr, rsrc, soff) = regs;
    let m = &mut inst.mem;
    let tfe = m.tfe;
    let data = vgpr(vdata, data_width(info, 0, tfe));
    if info.class & CLASS_ATOMIC != 0 {
        inst.src[1] = data;
        if ret {
            inst.dst[0] = vgpr(vdata, atomic_ret_width(info, data.count));
        }
    } else if info.class & CLASS_STORE != 0 {
        inst.src[1] = data;
    } else {
        inst.dst[0] = data;
    }
    let na = m.offen as u8 + m.idxen as u8;
    if na > 0 {
        inst.src[0] = vgpr(vaddr, na);
    }
    inst.src[2] = src(soff, 1);
    inst.src[3] = src(rsrc, 4);
}

fn decode_mubuf11(
    tb: &Tables,
    cx: &Cx,
    w0: u32,
    mtbuf: bool,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let w1 = cx.word(1)?;
    let info = if mtbuf {
        cx.lookup(tb.mtbuf, (w0 >> 15) & 0xF, "MTBUF")?
    } else {
        cx.lookup(tb.mubuf, (w0 >> 18) & 0xFF, "MUBUF")?
    };
    if info.widths == [0; 4] {
        // No operands (`buffer_gl0_inv`, `buffer_gl1_inv`): LLVM ignores the SOFFSET and
        // SRSRC fields (a literal SOFFSET code takes no literal).
        *inst = empty(info.op, Format::Mubuf);
        inst.size = 8;
        return Ok(());
    }
    check_src(cx, tb, SRC_SALU, 1, w1 >> 24, info, false)?;
    if !sgpr_tuple_ok(((w1 >> 16) & 0x1F) << 2, 4) {
        return Err(cx.err("buffer resource runs past the SGPRs"));
    }
    *inst = empty(info.op, if mtbuf { Format::Mtbuf } else { Format::Mubuf });
    inst.size = 8;
    inst.mem.offset = (w0 & 0xFFF) as i32;
    inst.mem.slc = (w0 >> 12) & 1 == 1;
    inst.mem.dlc = (w0 >> 13) & 1 == 1;
    inst.mem.glc = (w0 >> 14) & 1 == 1;
    if mtbuf {
        inst.mem.format = ((w0 >> 19) & 0x7F) as u8;
    }
    inst.mem.tfe = (w1 >> 21) & 1 == 1;
    inst.mem.offen = (w1 >> 22) & 1 == 1;
    inst.mem.idxen = (w1 >> 23) & 1 == 1;
    let ret = inst.mem.glc;
    let regs = (
        (w1 >> 8) & 0xFF,
        w1 & 0xFF,
        ((w1 >> 16) & 0x1F) << 2,
        w1 >> 24,
    );
    buffer_common(inst, info, regs, ret);
    // SOFFSET may be the literal constant.
    take_literal(cx, inst)?;
    Ok(())
}

fn decode_vbuffer(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let w1 = cx.word(1)?;
    let w2 = cx.word(2)?;
    if !in_map(&tb.sreg_ok[SREG_VBUFFER], (w1 >> 9) & 0x1FF) {
        return Err(cx.err("invalid buffer resource register"));
    }
    let op = (w0 >> 14) & 0xFF;
    let info = cx.lookup(tb.mubuf, op, "VBUFFER")?;
    *inst = empty(
        info.op,
        if op >= 0x80 {
            Format::Mtbuf
        } else {
            Format::Mubuf
        },
    );
    inst.size = 12;
    inst.mem.offset = w2 as i32 >> 8;
    inst.mem.tfe = (w0 >> 22) & 1 == 1;
    inst.mem.cpol = (((w1 >> 20) & 7) | (((w1 >> 18) & 3) << 3) | (((w0 >> 7) & 1) << 5)) as u8;
    inst.mem.format = ((w1 >> 23) & 0x7F) as u8;
    inst.mem.offen = (w1 >> 30) & 1 == 1;
    inst.mem.idxen = (w1 >> 31) & 1 == 1;
    let ret = (w1 >> 20) & 1 == 1;
    let regs = (w1 & 0xFF, w2 & 0xFF, (w1 >> 9) & 0x1FF, w0 & 0x7F);
    buffer_common(inst, info, regs, ret);
    Ok(())
}

fn decode_vinterp(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup(tb.vinterp, (w0 >> 16) & 0x1F, "VINTERP")?;
    let w1 = cx.word(1)?;
    let w = info.widths;
    *inst = empty(info.op, Format::Vinterp);
    inst.size = 8;
    inst.dst[0] = vgpr(w0 & 0xFF, w[0]);
    inst.imm = ((w0 >> 8) & 7) as i32;
    inst.mods.op_sel = ((w0 >> 11) & 0xF) as u8;
    inst.mods.clamp = (w0 >> 15) & 1 == 1;
    inst.mods.neg = ((w1 >> 29) & 7) as u8;
    for i in 0..3 {
        let code = (w1 >> (9 * i)) & 0x1FF;
        // LLVM reads the 16-bit sources of the f16 forms as VGPRs whatever bit 8 says; a
        // 32-bit source below v0 is one of the special registers it accepts (`null`,
        // `src_shared_base`, `src_vccz`, ...; it flags the rest).
        inst.src[i] = if info.kinds[i + 1] == KIND_T16 {
            vgpr(code & 0xFF, w[i + 1])
        } else if code < 256 && w[i + 1] != 0 && !in_map(&tb.src_ok[SRC_VINTERP], code) {
            return Err(cx.err(format!("{}: source code {code:#x} here", info.mnemonic)));
        } else {
            src(code, w[i + 1])
        };
    }
    Ok(())
}

fn decode_ldsdir(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup(tb.ldsdir, (w0 >> 20) & 3, "LDSDIR")?;
    *inst = empty(info.op, Format::Vinterp);
    inst.dst[0] = vgpr(w0 & 0xFF, info.widths[0]);
    inst.imm = (((w0 >> 8) & 0xFF) | (((w0 >> 16) & 0xF) << 8) | (((w0 >> 23) & 1) << 12)) as i32;
    Ok(())
}

fn decode_exp(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup(tb.exp, 0, "EXP")?;
    let w1 = cx.word(1)?;
    *inst = empty(info.op, Format::Exp);
    inst.size = 8;
    let en = w0 & 0xF;
    for i in 0..4 {
        if en >> i & 1 == 1 {
            inst.src[i] = vgpr((w1 >> (8 * i)) & 0xFF, 1);
        }
    }
    inst.imm =
        (((w0 >> 4) & 0x3F) | (en << 8) | (((w0 >> 11) & 1) << 12) | (((w0 >> 13) & 1) << 13))
            as i32;
    Ok(())
}

/// Image fields common to MIMG, VIMAGE and VSAMPLE.
struct ImageFields {
    dmask: u32,
    dim: u32,
    a16: u32,
    d16: u32,
    tfe: u32,
    nsa: u32,
    vdata: u32,
    /// VADDR0..4 (NSA address registers; VADDR0 alone without NSA).
    addrs: [u32; 5],
    rsrc: u32,
    samp: u32,
}

/// Address operands as LLVM prints them: registers per operand (zeros after the last).
/// BVH opcodes have fixed groups; an NSA list has one register per operand except the last,
/// which takes the rest ("partial NSA": GFX11 has 5 address fields, GFX12 VSAMPLE and
/// non-BVH VIMAGE 4); without NSA one tuple.
pub(crate) fn image_groups(
    info: &RdnaImage,
    gfx12: bool,
    nsa: bool,
    a16: bool,
    va: u32,
) -> [u32; 5] {
    let mut g = [0u32; 5];
    if !(gfx12 || nsa) {
        g[0] = va;
    } else if info.groups[0][0] != 0 {
        for (x, &n) in g.iter_mut().zip(info.groups[a16 as usize].iter()) {
            *x = n as u32;
        }
    } else {
        let k = va.clamp(1, if gfx12 { 4 } else { 5 }) as usize;
        g[..k].fill(1);
        g[k - 1] = va + 1 - k as u32;
    }
    g
}

/// Looks the operand sizes up in the opcode's grid and fills `inst` (see the module doc);
/// returns the number of address VGPRs. `ret`: an atomic that returns the pre-op value.
fn image_common(
    tb: &Tables,
    cx: &Cx,
    info: &RdnaImage,
    f: &ImageFields,
    ret: bool,
    inst: &mut Inst,
) -> Result<u32, DecodeError> {
    let pc = f.dmask.count_ones().max(1);
    let cell =
        (((((f.nsa * 4 + pc - 1) * 2 + f.d16) * 2 + f.tfe) * 2 + f.a16) * 8 + f.dim) as usize;
    let mut g = tb
        .img_grids
        .get(info.grid as usize + cell)
        .copied()
        .unwrap_or(0) as u32;
    if g == 0 {
        return Err(cx.err(format!(
            "invalid {} operands (dmask {:#x}, dim {}, a16 {}, d16 {}, tfe {})",
            info.heads[0].trim_end(),
            f.dmask,
            f.dim,
            f.a16,
            f.d16,
            f.tfe
        )));
    }
    // Where the data or the (last) address tuple would run past v255, LLVM keeps the sizes
    // of the opcode's first-decoded form (`defaults`); it only widens, and so only checks,
    // the operands whose size differs from that form's (llvm-mc-22: data v[63:66] from a
    // one-register default stays widened with an unchanged four-register address v[254:257]).
    let def = info.defaults[(f.nsa != 0) as usize] as u32;
    let past = |g: u32| {
        let groups = image_groups(info, tb.gfx12, f.nsa != 0, f.a16 != 0, g >> 4);
        let last = groups.iter().rposition(|&n| n != 0).unwrap_or(0);
        ((g & 15) != (def & 15) && f.vdata + (g & 15) > 256)
            || (info.groups[0][0] == 0 && g >> 4 != def >> 4 && f.addrs[last] + groups[last] > 256)
    };
    if past(g) {
        g = def;
    }
    if f.vdata + (g & 15) > 256 {
        // Data past v255 even so (the default size): LLVM prints (and flags) a data tuple
        // past v255. Rejected here.
        return Err(cx.err(format!(
            "{}: data registers run past v255",
            info.heads[0].trim_end()
        )));
    }
    let (vd, va) = ((g & 15) as u8, g >> 4);
    // The resource and sampler are SGPR tuples LLVM accepts (GFX12: generated maps of its
    // 9-bit fields; GFX11: 5-bit quad indices).
    let regs_ok = if tb.gfx12 {
        let role = if info.rsrc == 4 {
            SREG_RSRC4
        } else {
            SREG_RSRC8
        };
        in_map(&tb.sreg_ok[role], f.rsrc)
            && (!info.sampler || in_map(&tb.sreg_ok[SREG_SAMP], f.samp))
    } else {
        sgpr_tuple_ok(f.rsrc, info.rsrc as u32) && (!info.sampler || sgpr_tuple_ok(f.samp, 4))
    };
    if !regs_ok {
        return Err(cx.err("invalid image resource or sampler register"));
    }
    *inst = empty(info.op, Format::Mimg);
    let data = vgpr(f.vdata, vd);
    if info.class & CLASS_ATOMIC != 0 {
        inst.src[1] = data;
        if ret {
            inst.dst[0] = data;
        }
    } else if info.class & CLASS_STORE != 0 {
        inst.src[1] = data;
    } else {
        inst.dst[0] = data;
    }
    let groups = image_groups(info, tb.gfx12, f.nsa != 0, f.a16 != 0, va);
    inst.src[0] = vgpr(f.addrs[0], groups[0] as u8);
    inst.src[2] = src(f.rsrc, info.rsrc);
    if info.sampler {
        inst.src[3] = src(f.samp, 4);
    }
    inst.mem.tfe = f.tfe != 0;
    Ok(va)
}

fn decode_mimg(tb: &Tables, cx: &Cx, w0: u32, inst: &mut Inst) -> Result<(), DecodeError> {
    let info = cx.lookup_img(tb.image, (w0 >> 18) & 0xFF, "MIMG")?;
    let w1 = cx.word(1)?;
    // NSA: VADDR1..4 in a third dword.
    let w2 = if w0 & 1 != 0 { cx.word(2)? } else { 0 };
    // NSA[0] DIM[4:2] UNORM[7] DMASK[11:8] SLC[12] DLC[13] GLC[14] R128[15] A16[16] D16[17];
    // VADDR[7:0] VDATA[15:8] SRSRC[20:16] TFE[21] LWE[22] SSAMP[30:26] (llvm-mc-22 encodings).
    let f = ImageFields {
        dmask: (w0 >> 8) & 0xF,
        dim: (w0 >> 2) & 7,
        a16: (w0 >> 16) & 1,
        d16: (w0 >> 17) & 1,
        tfe: (w1 >> 21) & 1,
        nsa: w0 & 1,
        vdata: (w1 >> 8) & 0xFF,
        addrs: [
            w1 & 0xFF,
            w2 & 0xFF,
            (w2 >> 8) & 0xFF,
            (w2 >> 16) & 0xFF,
            w2 >> 24,
        ],
        rsrc: ((w1 >> 16) & 0x1F) << 2,
        samp: ((w1 >> 26) & 0x1F) << 2,
    };
    let glc = (w0 >> 14) & 1 == 1;
    let va = image_common(tb, cx, info, &f, glc, inst)?;
    inst.size = if f.nsa != 0 { 12 } else { 8 };
    inst.mem.slc = (w0 >> 12) & 1 == 1;
    inst.mem.dlc = (w0 >> 13) & 1 == 1;
    inst.mem.glc = glc;
    let lwe = (w1 >> 22) & 1;
    inst.imm = (f.dmask
        | f.dim << 4
        | ((w0 >> 7) & 1) << 7
        | ((w0 >> 15) & 1) << 8
        | f.a16 << 9
        | f.d16 << 10
        | lwe << 11
        | f.nsa << 12
        | va << 16) as i32;
    Ok(())
}

fn decode_vimage(
    tb: &Tables,
    cx: &Cx,
    w0: u32,
    sample: bool,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let op = (w0 >> 14) & 0xFF;
    let info = if sample {
        cx.lookup_img(tb.sample, op, "VSAMPLE")?
    } else {
        cx.lookup_img(tb.image, op, "VIMAGE")?
    };
    let w1 = cx.word(1)?;
    let w2 = cx.word(2)?;
    // RDNA4 guide 15.13: DIM[2:0] (VSAMPLE TFE[3]) R128[4] D16[5] A16[6] (VSAMPLE UNRM[13])
    // OP[21:14] DMASK[25:22]; VDATA[39:32] (VSAMPLE LWE[40]) RSRC[49:41] SCOPE[51:50]
    // TH[54:52] (VIMAGE TFE[55], VADDR4[63:56]; VSAMPLE SAMP[63:55]); VADDR0..3[95:64].
    let (tfe, unorm, lwe) = if sample {
        ((w0 >> 3) & 1, (w0 >> 13) & 1, (w1 >> 8) & 1)
    } else {
        ((w1 >> 23) & 1, 0, 0)
    };
    let f = ImageFields {
        dmask: (w0 >> 22) & 0xF,
        dim: w0 & 7,
        a16: (w0 >> 6) & 1,
        d16: (w0 >> 5) & 1,
        tfe,
        nsa: 0,
        vdata: w1 & 0xFF,
        addrs: [
            w2 & 0xFF,
            (w2 >> 8) & 0xFF,
            (w2 >> 16) & 0xFF,
            w2 >> 24,
            w1 >> 24,
        ],
        rsrc: (w1 >> 9) & 0x1FF,
        samp: (w1 >> 23) & 0x1FF,
    };
    let va = image_common(tb, cx, info, &f, (w1 >> 20) & 1 == 1, inst)?;
    inst.size = 12;
    inst.mem.cpol = (((w1 >> 20) & 7) | (((w1 >> 18) & 3) << 3) | (((w0 >> 7) & 1) << 5)) as u8;
    inst.imm = (f.dmask
        | f.dim << 4
        | unorm << 7
        | ((w0 >> 4) & 1) << 8
        | f.a16 << 9
        | f.d16 << 10
        | lwe << 11
        | va << 16) as i32;
    Ok(())
}
