//! GFX9 (gfx942, gfx950) decoder: instruction words → [`Inst`].
//!
//! Bit layouts: `notes/cdna.md` §3.2 (checked against LLVM's TableGen encodings). Opcode
//! numbers, operand register counts and register files, the optional syntax of each opcode
//! and its class come from the tables generated from LLVM 22's disassembler
//! (`isa::generated::gfx9`, `translator/gen/gen_tables.py`), so decoding is table lookups and
//! bit extraction, without allocation.
//!
//! Conventions on top of the operand roles documented on [`Inst`]:
//! * An operand that an opcode does not have is [`Opnd::NONE`] (`s_dcache_wb`, `s_endpgm`).
//! * VOP1/VOP2/VOPC: `dst[0]` is VDST (VCC for VOPC, or the SDWA `sdst`); the VOP2 carry
//!   forms put VCC in `dst[1]` and (carry-in, `v_cndmask_b32`) in `src[2]`. DPP/SDWA replace
//!   `src[0]` by the extension word's source; `mods.neg`/`mods.abs` hold its modifiers.
//! * `abs`/`neg` bits of sources that take no modifiers (integer operands) are cleared.
//! * SOPK: `s_cmpk_*` and `s_setreg_*` read the SDST field, so it is `src[0]`; the others
//!   write it (`dst[0]`). SOPC `s_set_gpr_idx_on`: the mode bits are in `imm`.
//! * SMEM: `src[2]` is the SGPR offset (`soffset`, or the OFFSET field when IMM = 0),
//!   `mem.offset` the signed 21-bit immediate; `mem.cpol` bit 0 = NV.
//! * GLOBAL with `saddr`: `src[0]` is the 32-bit VGPR offset, `src[2]` the SGPR pair;
//!   SCRATCH without a VGPR address has `src[0]` = NONE. Returning atomics (GLC/SC0) write
//!   `dst[0]` and read `src[1]`. MUBUF loads to LDS (`lds`) have no data register.
//! * gfx950 `v_bitop3_*`: the truth table is in `imm` (the OMOD/ABS/NEG bits).

pub mod print;

use super::error::DecodeError;
use super::generated::{
    gfx9 as t, Op, OpInfo, CLASS_ACCMOV, CLASS_ATOMIC, CLASS_CMPSWAP, CLASS_MADAK, CLASS_MADMK,
    CLASS_MAI, CLASS_SBUFFER, CLASS_SDST_READ, CLASS_STORE, CLASS_TWO_OFFSETS, MOD_NODPP,
    MOD_NOSDWA,
};
use super::{Dpp, Format, Gpu, Inst, MaiFields, Opnd, Sdwa, Target};

/// Scalar code of `vcc_lo` (the `vcc` pair starts here).
pub const VCC: u16 = 106;
/// Source code that selects the SDWA extension word.
const SRC_SDWA: u16 = 0xF9;
/// Source code that selects the DPP extension word.
const SRC_DPP: u16 = 0xFA;
/// `saddr` value meaning "no scalar address" in GLOBAL/SCRATCH.
const SADDR_OFF: u32 = 0x7F;

struct Tables {
    /// VOP3/MUBUF may take a 32-bit literal (gfx950).
    vop3_literal: bool,
    sop2: &'static [Option<OpInfo>],
    sopk: &'static [Option<OpInfo>],
    sop1: &'static [Option<OpInfo>],
    sopc: &'static [Option<OpInfo>],
    sopp: &'static [Option<OpInfo>],
    smem: &'static [Option<OpInfo>],
    vop1: &'static [Option<OpInfo>],
    vop2: &'static [Option<OpInfo>],
    vopc: &'static [Option<OpInfo>],
    vop3: &'static [Option<OpInfo>],
    vop3p: &'static [Option<OpInfo>],
    ds: &'static [Option<OpInfo>],
    flat: &'static [Option<OpInfo>],
    global: &'static [Option<OpInfo>],
    scratch: &'static [Option<OpInfo>],
    mubuf: &'static [Option<OpInfo>],
    mtbuf: &'static [Option<OpInfo>],
}

static GFX942: Tables = Tables {
    vop3_literal: false,
    sop2: &t::GFX942_SOP2,
    sopk: &t::GFX942_SOPK,
    sop1: &t::GFX942_SOP1,
    sopc: &t::GFX942_SOPC,
    sopp: &t::GFX942_SOPP,
    smem: &t::GFX942_SMEM,
    vop1: &t::GFX942_VOP1,
    vop2: &t::GFX942_VOP2,
    vopc: &t::GFX942_VOPC,
    vop3: &t::GFX942_VOP3,
    vop3p: &t::GFX942_VOP3P,
    ds: &t::GFX942_DS,
    flat: &t::GFX942_FLAT,
    global: &t::GFX942_GLOBAL,
    scratch: &t::GFX942_SCRATCH,
    mubuf: &t::GFX942_MUBUF,
    mtbuf: &t::GFX942_MTBUF,
};

static GFX950: Tables = Tables {
    vop3_literal: true,
    sop2: &t::GFX950_SOP2,
    sopk: &t::GFX950_SOPK,
    sop1: &t::GFX950_SOP1,
    sopc: &t::GFX950_SOPC,
    sopp: &t::GFX950_SOPP,
    smem: &t::GFX950_SMEM,
    vop1: &t::GFX950_VOP1,
    vop2: &t::GFX950_VOP2,
    vopc: &t::GFX950_VOPC,
    vop3: &t::GFX950_VOP3,
    vop3p: &t::GFX950_VOP3P,
    ds: &t::GFX950_DS,
    flat: &t::GFX950_FLAT,
    global: &t::GFX950_GLOBAL,
    scratch: &t::GFX950_SCRATCH,
    mubuf: &t::GFX950_MUBUF,
    mtbuf: &t::GFX950_MTBUF,
};

/// The opcode table entry of `op` in `table`, or an error naming the encoding.
#[inline(always)]
fn lookup(
    table: &'static [Option<OpInfo>],
    op: u32,
    enc: &str,
    bytes: &[u8],
    pc: u64,
) -> Result<&'static OpInfo, DecodeError> {
    match table.get(op as usize) {
        Some(Some(info)) => Ok(info),
        _ => Err(opcode_error(op, enc, bytes, pc)),
    }
}

/// The error of [`lookup`], kept out of line.
#[cold]
#[inline(never)]
fn opcode_error(op: u32, enc: &str, bytes: &[u8], pc: u64) -> DecodeError {
    DecodeError::new(bytes, pc, format!("invalid {enc} opcode {op:#x}"))
}

/// LLVM's encodings fix the fields of operands an opcode does not have (and of modifiers it
/// does not take) to zero, and its disassembler rejects other values; so does this decoder,
/// so that such words are invalid instructions rather than silently different ones.
#[inline(always)]
fn zero_field(v: u32, field: &str, bytes: &[u8], pc: u64) -> Result<(), DecodeError> {
    if v == 0 {
        Ok(())
    } else {
        Err(field_error(v, field, bytes, pc))
    }
}

/// The error of [`zero_field`], kept out of line (decoding valid code never gets here).
#[cold]
#[inline(never)]
fn field_error(v: u32, field: &str, bytes: &[u8], pc: u64) -> DecodeError {
    DecodeError::new(bytes, pc, format!("unused {field} field is {v:#x}, not 0"))
}

/// Checks the generated fixed modifier bits of one instruction word (`OpInfo::fixmask`,
/// `sdwa_fix`, `dpp_fix`): `w & mask` must equal `val`, else LLVM rejects the word.
#[inline(always)]
fn fixed_bits(
    w: u32,
    mask: u32,
    val: u32,
    what: &'static str,
    bytes: &[u8],
    pc: u64,
) -> Result<(), DecodeError> {
    if w & mask == val {
        Ok(())
    } else {
        Err(fixed_error((w & mask) ^ val, what, bytes, pc))
    }
}

/// The error of [`fixed_bits`], kept out of line.
#[cold]
#[inline(never)]
fn fixed_error(bits: u32, what: &'static str, bytes: &[u8], pc: u64) -> DecodeError {
    DecodeError::new(
        bytes,
        pc,
        format!("{what} bits {bits:#x} must not differ for this opcode"),
    )
}

/// [`zero_field`] for a slot of width `width` (0 = absent).
#[inline(always)]
fn unused(width: u8, v: u32, field: &str, bytes: &[u8], pc: u64) -> Result<(), DecodeError> {
    if width == 0 {
        zero_field(v, field, bytes, pc)
    } else {
        Ok(())
    }
}

/// A decoding error with a fixed reason, kept out of line (decoding valid code never gets
/// here, and the inlined error formatting would slow the decoder down).
#[cold]
#[inline(never)]
fn fail(bytes: &[u8], pc: u64, reason: &'static str) -> DecodeError {
    DecodeError::new(bytes, pc, reason)
}

/// [`fail`] with a value: "`what` 0x..".
#[cold]
#[inline(never)]
fn fail_hex(bytes: &[u8], pc: u64, what: &'static str, v: u32) -> DecodeError {
    DecodeError::new(bytes, pc, format!("{what} {v:#x}"))
}

/// Reads the little-endian dword `i` of `bytes`.
#[inline(always)]
fn word(bytes: &[u8], i: usize, pc: u64) -> Result<u32, DecodeError> {
    match bytes.get(i * 4..i * 4 + 4) {
        Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        None => Err(truncated(bytes, pc, (i + 1) * 4)),
    }
}

/// The error for an instruction that needs `need` bytes, kept out of line.
#[cold]
#[inline(never)]
fn truncated(bytes: &[u8], pc: u64, need: usize) -> DecodeError {
    DecodeError::new(
        bytes,
        pc,
        format!("truncated instruction: needs {need} bytes"),
    )
}

/// An operand from a 9-bit VALU source field (or an 8-bit scalar field).
fn src9(code: u32, count: u8) -> Opnd {
    Opnd {
        code: code as u16,
        count: count.max(1),
    }
}

/// An operand of an encoding slot: absent if the slot's width is 0.
fn slot(code: u32, width: u8) -> Opnd {
    if width == 0 {
        Opnd::NONE
    } else {
        Opnd {
            code: code as u16,
            count: width,
        }
    }
}

fn vgpr(reg: u32, count: u8) -> Opnd {
    Opnd::vgpr(reg as u8, count.max(1))
}

/// VGPR or AGPR by `acc`.
fn vreg(reg: u32, count: u8, acc: bool) -> Opnd {
    if acc {
        Opnd::agpr(reg as u8, count.max(1))
    } else {
        vgpr(reg, count)
    }
}

/// Decodes one GFX9 instruction into `inst` (see [`super::decode_into`]).
pub fn decode_into(
    target: &Target,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let tables = if target.gpu == Gpu::GFX950 {
        &GFX950
    } else {
        &GFX942
    };
    let w0 = word(bytes, 0, pc)?;
    *inst = Inst::new(Op::S_NOP, Format::Sopp);
    if w0 >> 31 == 0 {
        match w0 >> 25 {
            0x3F => decode_vop1(tables, w0, bytes, pc, inst)?,
            0x3E => decode_vopc(tables, w0, bytes, pc, inst)?,
            _ => decode_vop2(tables, w0, bytes, pc, inst)?,
        }
    } else if w0 >> 30 == 0b10 {
        match w0 >> 23 {
            0x17D => decode_sop1(tables, w0, bytes, pc, inst)?,
            0x17E => decode_sopc(tables, w0, bytes, pc, inst)?,
            0x17F => decode_sopp(tables, w0, bytes, pc, inst)?,
            _ if w0 >> 28 == 0xB => decode_sopk(tables, w0, bytes, pc, inst)?,
            _ => decode_sop2(tables, w0, bytes, pc, inst)?,
        }
    } else {
        match w0 >> 26 {
            0x30 => decode_smem(tables, w0, bytes, pc, inst)?,
            0x34 if (w0 >> 23) & 7 == 7 => decode_vop3p(tables, w0, bytes, pc, inst)?,
            0x34 => decode_vop3(tables, w0, bytes, pc, inst)?,
            0x36 => decode_ds(tables, w0, bytes, pc, inst)?,
            0x37 => decode_flat(tables, w0, bytes, pc, inst)?,
            0x38 => decode_mubuf(tables, w0, bytes, pc, false, inst)?,
            0x3A => decode_mubuf(tables, w0, bytes, pc, true, inst)?,
            e => return Err(fail_hex(bytes, pc, "unknown encoding", e)),
        }
    }
    let n = inst.size as usize;
    let Some(raw) = bytes.get(..n) else {
        return Err(truncated(bytes, pc, n));
    };
    // Word by word (a `memcpy` call costs more than the four loads).
    for (i, w) in inst.words.iter_mut().enumerate() {
        if let Some(b) = raw.get(i * 4..i * 4 + 4) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    // Most operands are single registers or constants: only tuples and the codes 209-254
    // need `fix_operand` (checked first, this keeps decoding fast). One operand at a time:
    // a vector load across the just-written operand fields would stall on store forwarding.
    let needs_fix = inst.dst.iter().chain(inst.src.iter()).any(|o| {
        // Byte-wise: a wider load across `code` and `count` (each just written on its
        // own) would stall on store forwarding.
        let [lo, hi] = o.code.to_le_bytes();
        (o.count >= 2) | (hi == 0) & (lo.wrapping_sub(209) < 46)
    });
    if needs_fix {
        let scalar_only = matches!(
            inst.format,
            Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk | Format::Smem
        );
        for o in inst.dst.iter_mut().chain(inst.src.iter_mut()) {
            if let Err(why) = fix_operand(o, scalar_only) {
                return Err(fail(bytes, pc, why));
            }
        }
    }
    Ok(())
}

/// Checks one operand against the register files and aligns scalar tuples the way the
/// hardware reads them (and LLVM's disassembler prints them): an SGPR/TTMP pair ignores bit 0
/// of its code, a wider tuple bits 1:0 (`s_mov_b64 s[0:1], s[3:4]` reads `s[2:3]`).
///
/// VGPR/AGPR tuples must lie inside the register file. Odd-aligned tuples decode: gfx90a+
/// requires even alignment only for some operand classes (LLVM decodes them all and flags
/// some), and the lifter reads any register index.
fn fix_operand(o: &mut Opnd, scalar_only: bool) -> Result<(), &'static str> {
    if !o.is_some() {
        return Ok(());
    }
    let n = o.count.max(1) as u16;
    match o.code {
        0..=127 if n > 16 => Err("scalar register tuple wider than 16 registers"),
        0..=101 | 108..=123 if n >= 2 => {
            o.code &= if n == 2 { !1 } else { !3 };
            // SGPR tuples reach s103 (s[100:103]); TTMPs are ttmp0..ttmp15.
            let ok = if o.code <= 101 {
                o.code + n <= 104
            } else {
                o.code + n <= 124
            };
            if ok {
                Ok(())
            } else {
                Err("scalar register tuple out of range")
            }
        }
        0..=127 if n >= 2 => match o.code {
            // flat_scratch, xnack_mask, vcc, exec are pairs; null fits any width.
            102 | 104 | 106 | 126 if n == 2 => Ok(()),
            125 => Ok(()),
            _ => Err("special register cannot be a register tuple"),
        },
        209..=229 | 232..=234 | 249 | 250 => Err("reserved operand code"),
        231 if n >= 2 => Err("src_flat_scratch_base_hi cannot be 64-bit"),
        254 if n >= 2 || scalar_only => Err("src_lds_direct is not a scalar operand"),
        256..=767 if n >= 2 => {
            let r = (o.code - 256) % 256;
            if r + n > 256 {
                Err("vector register tuple out of range")
            } else {
                Ok(())
            }
        }
        _ => Ok(()),
    }
}

/// Reads the literal dword after the first `inst.size` bytes if any source is the literal code.
fn take_literal(inst: &mut Inst, bytes: &[u8], pc: u64) -> Result<(), DecodeError> {
    if inst.src.iter().any(|s| s.code == Opnd::LITERAL) {
        let i = inst.size as usize / 4;
        inst.literal = Some(word(bytes, i, pc)?);
        inst.size += 4;
    }
    Ok(())
}

fn decode_sop2(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.sop2, (w0 >> 23) & 0x7F, "SOP2", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Sop2;
    let w = info.widths;
    inst.dst[0] = slot((w0 >> 16) & 0x7F, w[0]);
    inst.src[0] = slot(w0 & 0xFF, w[1]);
    inst.src[1] = slot((w0 >> 8) & 0xFF, w[2]);
    take_literal(inst, bytes, pc)?;
    Ok(())
}

fn decode_sopk(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.sopk, (w0 >> 23) & 0x1F, "SOPK", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Sopk;
    let sdst = slot((w0 >> 16) & 0x7F, info.widths[0]);
    // s_cmpk_* and s_setreg_* read the SDST field; everything else writes it.
    if info.class & CLASS_SDST_READ != 0 {
        inst.src[0] = sdst;
    } else {
        inst.dst[0] = sdst;
    }
    inst.imm = (w0 & 0xFFFF) as u16 as i16 as i32;
    if info.op == Op::S_SETREG_IMM32_B32 {
        inst.literal = Some(word(bytes, 1, pc)?);
        inst.size = 8;
    }
    Ok(())
}

fn decode_sop1(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.sop1, (w0 >> 8) & 0xFF, "SOP1", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Sop1;
    inst.dst[0] = slot((w0 >> 16) & 0x7F, info.widths[0]);
    inst.src[0] = slot(w0 & 0xFF, info.widths[1]);
    take_literal(inst, bytes, pc)?;
    Ok(())
}

fn decode_sopc(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.sopc, (w0 >> 16) & 0x7F, "SOPC", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Sopc;
    inst.src[0] = slot(w0 & 0xFF, info.widths[0]);
    if info.op == Op::S_SET_GPR_IDX_ON {
        // SSRC1 is the 4-bit gpr_idx mode mask, not an operand.
        inst.imm = ((w0 >> 8) & 0xFF) as i32;
    } else {
        inst.src[1] = slot((w0 >> 8) & 0xFF, info.widths[1]);
    }
    take_literal(inst, bytes, pc)?;
    Ok(())
}

fn decode_sopp(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.sopp, (w0 >> 16) & 0x7F, "SOPP", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Sopp;
    unused(info.widths[0], w0 & 0xFFFF, "SIMM16", bytes, pc)?;
    inst.imm = (w0 & 0xFFFF) as u16 as i16 as i32;
    Ok(())
}

fn decode_smem(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.smem, (w0 >> 18) & 0xFF, "SMEM", bytes, pc)?;
    let w1 = word(bytes, 1, pc)?;
    inst.op = info.op;
    inst.format = Format::Smem;
    inst.size = 8;
    let w = info.widths;
    let sdata = slot((w0 >> 6) & 0x7F, w[0]);
    let is_store = info.class & CLASS_STORE != 0;
    let is_atomic = info.class & CLASS_ATOMIC != 0;
    if is_store || is_atomic {
        inst.src[1] = sdata;
        if is_atomic && (w0 >> 16) & 1 == 1 {
            inst.dst[0] = sdata; // returning atomics (glc) write the old value back
        }
    } else {
        inst.dst[0] = sdata;
    }
    if w[1] != 0 || w[2] != 0 {
        let quad = info.class & CLASS_SBUFFER != 0;
        inst.src[0] = Opnd::scalar(((w0 & 0x3F) << 1) as u8, if quad { 4 } else { 2 });
    }
    let imm = (w0 >> 17) & 1 == 1;
    let soe = (w0 >> 14) & 1 == 1;
    if w[1] == 0 && w[2] == 0 {
        zero_field(imm as u32, "SMEM IMM", bytes, pc)?;
    }
    if w[1] != 0 || w[2] != 0 {
        if imm {
            // 21-bit signed byte offset (GFX9+).
            inst.mem.offset = ((w1 & 0x1F_FFFF) << 11) as i32 >> 11;
            if soe {
                inst.src[2] = Opnd::scalar((w1 >> 25) as u8, 1);
            }
        } else if soe {
            inst.src[2] = Opnd::scalar((w1 >> 25) as u8, 1);
        } else {
            inst.src[2] = Opnd::scalar((w1 & 0x7F) as u8, 1);
        }
    }
    inst.mem.glc = (w0 >> 16) & 1 == 1;
    inst.mem.cpol = ((w0 >> 15) & 1) as u8; // NV
    Ok(())
}

/// Fills a 32-bit VOP instruction's SDWA or DPP extension word when SRC0 selects one, else
/// its literal. `src0w` is src0's register count.
fn vop_ext(
    inst: &mut Inst,
    bytes: &[u8],
    pc: u64,
    vopc: bool,
    info: &OpInfo,
) -> Result<(), DecodeError> {
    let mods = info.mods;
    let code = inst.src[0].code;
    if matches!(code, SRC_DPP | SRC_SDWA) && no_ext_form(info, code == SRC_SDWA) {
        return Err(fail(bytes, pc, "no DPP/SDWA form of this opcode"));
    }
    if code == SRC_DPP {
        if vopc {
            // LLVM 22 has no VOPC DPP form on GFX9 (it rejects every such word).
            return Err(fail(bytes, pc, "no DPP form of VOPC"));
        }
        let e = word(bytes, 1, pc)?;
        fixed_bits(e, info.dpp_fix[0], info.dpp_fix[1], "DPP", bytes, pc)?;
        inst.size = 8;
        let ctrl = (e >> 8) & 0x1FF;
        let wide = inst.src[0].count >= 2 || inst.dst[0].count >= 2;
        if !dpp_ctrl_valid(ctrl) || wide && !(0x150..=0x15F).contains(&ctrl) {
            // gfx90a+ 64-bit DPP (DP ALU) takes row_newbcast only.
            return Err(fail_hex(bytes, pc, "invalid DPP control", ctrl));
        }
        inst.src[0] = vgpr(e & 0xFF, inst.src[0].count);
        inst.dpp = Some(Dpp {
            ctrl: ((e >> 8) & 0x1FF) as u16,
            row_mask: (e >> 28) as u8,
            bank_mask: ((e >> 24) & 0xF) as u8,
            bound_ctrl: (e >> 19) & 1 == 1,
            fi: false,
        });
        inst.mods.neg = (((e >> 20) & 1) | ((e >> 21) & 2)) as u8;
        inst.mods.abs = (((e >> 21) & 1) | ((e >> 22) & 2)) as u8;
    } else if code == SRC_SDWA {
        let e = word(bytes, 1, pc)?;
        fixed_bits(e, info.sdwa_fix[0], info.sdwa_fix[1], "SDWA", bytes, pc)?;
        inst.size = 8;
        // ... except the packed FP8/BF8 → f32 converts, whose 64-bit destination LLVM
        // accepts in SDWA (the byte pair is chosen by SRC0_SEL, CDNA3 ISA Table 31).
        let pk_f32 = matches!(info.op, Op::V_CVT_PK_F32_FP8 | Op::V_CVT_PK_F32_BF8);
        if inst.src[0].count >= 2
            || inst.src[1].count >= 2
            || !vopc && !pk_f32 && inst.dst[0].count >= 2
        {
            return Err(fail(bytes, pc, "SDWA has no 64-bit operands"));
        }
        let s0 = e & 0xFF;
        inst.src[0] = if (e >> 23) & 1 == 1 {
            src9(s0, inst.src[0].count)
        } else {
            vgpr(s0, inst.src[0].count)
        };
        if (256..512).contains(&inst.src[1].code) && (e >> 31) & 1 == 1 {
            // S1: src1 is a scalar operand (its 8-bit code is in the VSRC1 field).
            inst.src[1].code -= Opnd::VGPR0;
        }
        // An SDWA instruction has no literal dword: LLVM 22 rejects code 255 as a scalar
        // SRC0 (S0) or SRC1 (S1).
        if inst.src[0].code == Opnd::LITERAL || inst.src[1].code == Opnd::LITERAL {
            return Err(fail(bytes, pc, "SDWA source cannot be a literal"));
        }
        inst.sdwa = Some(Sdwa {
            dst_sel: ((e >> 8) & 7) as u8,
            dst_unused: ((e >> 11) & 3) as u8,
            src0_sel: ((e >> 16) & 7) as u8,
            src1_sel: ((e >> 24) & 7) as u8,
            sext: (((e >> 19) & 1) | ((e >> 26) & 2)) as u8,
        });
        if info.op != Op::V_PK_FMAC_F16 {
            // LLVM accepts but ignores (and does not print) the NEG/ABS bits of the packed
            // v_pk_fmac_f16 in SDWA (it prints them in DPP).
            inst.mods.neg = (((e >> 20) & 1) | ((e >> 27) & 2)) as u8;
            inst.mods.abs = (((e >> 21) & 1) | ((e >> 28) & 2)) as u8;
        }
        let sels = [(e >> 8) & 7, (e >> 16) & 7, (e >> 24) & 7];
        if fp8_cvt(info.op) {
            // No DST_SEL/DST_UNUSED operands: LLVM's encoding fixes DST_SEL to DWORD (a
            // generated fixed field) and ignores DST_UNUSED; the result is the whole dword.
            inst.sdwa = inst.sdwa.map(|s| Sdwa {
                dst_sel: 6,
                dst_unused: 0,
                ..s
            });
        } else if !vopc && sels[0] == 7 {
            return Err(fail(bytes, pc, "reserved SDWA select 7"));
        }
        if sels[1] == 7 || sels[2] == 7 {
            return Err(fail(bytes, pc, "reserved SDWA select 7"));
        }
        if vopc {
            // SDWAB: SD selects an explicit SDST instead of VCC.
            if (e >> 15) & 1 == 1 {
                inst.dst[0] = Opnd::scalar(((e >> 8) & 0x7F) as u8, 2);
            }
            inst.sdwa = inst.sdwa.map(|s| Sdwa {
                dst_sel: 6,
                dst_unused: 0,
                ..s
            });
        } else {
            inst.mods.clamp = (e >> 13) & 1 == 1;
            inst.mods.omod = ((e >> 14) & 3) as u8;
        }
    } else {
        take_literal(inst, bytes, pc)?;
    }
    mask_src_mods(inst, mods);
    Ok(())
}

/// VOP1/VOP2/VOPC opcodes LLVM 22 has no SDWA (`sdwa`) or DPP form of on this target (the
/// generated `MOD_NOSDWA`/`MOD_NODPP`: e.g. the SDWA forms of v_mac/v_fmac/v_dot*c, which
/// accumulate into their destination, VOPC DPP, 64-bit operands in SDWA, and the lane and
/// register moves v_readfirstlane_b32, v_swap_b32, v_accvgpr_mov_b32, v_permlane*_swap).
pub(crate) fn no_ext_form(info: &OpInfo, sdwa: bool) -> bool {
    info.mods & if sdwa { MOD_NOSDWA } else { MOD_NODPP } != 0
}

/// DS opcodes with `offset0`/`offset1` (8 bits each) rather than one 16-bit offset. The
/// generator's class takes `ds_condxchg32_rtn_b64` for one (the "2_" of "32_"); LLVM gives
/// it a single offset.
pub(crate) fn two_offsets(info: &OpInfo) -> bool {
    info.class & CLASS_TWO_OFFSETS != 0 && info.op != Op::DS_CONDXCHG32_RTN_B64
}

/// The FP8/BF8 -> f32 converts: in SDWA they take CLAMP and OMOD but no source modifiers,
/// and LLVM gives them no DST_SEL/DST_UNUSED operands.
pub(crate) fn fp8_cvt(op: Op) -> bool {
    matches!(
        op,
        Op::V_CVT_F32_FP8 | Op::V_CVT_F32_BF8 | Op::V_CVT_PK_F32_FP8 | Op::V_CVT_PK_F32_BF8
    )
}

/// Clears `abs`/`neg` bits of sources that take no modifiers (integer operands): the ISA
/// defines them for floating-point inputs only, and LLVM does not print them.
fn mask_src_mods(inst: &mut Inst, mods: u32) {
    let m = mods >> 10;
    inst.mods.abs &= (m & 7) as u8;
    inst.mods.neg &= (m >> 3 & 7) as u8;
}

/// The DPP_CTRL values GFX9 defines (gfx90a+: with row_newbcast).
fn dpp_ctrl_valid(c: u32) -> bool {
    matches!(c,
        0x000..=0x0FF | 0x101..=0x10F | 0x111..=0x11F | 0x121..=0x12F
        | 0x130 | 0x134 | 0x138 | 0x13C | 0x140..=0x143 | 0x150..=0x15F)
}

fn decode_vop1(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.vop1, (w0 >> 9) & 0xFF, "VOP1", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Vop1;
    let w = info.widths;
    let d = (w0 >> 17) & 0xFF;
    unused(w[0], d, "VDST", bytes, pc)?;
    if w[0] != 0 {
        inst.dst[0] = if info.kinds[0] == 1 {
            Opnd::scalar(d as u8, w[0])
        } else {
            vreg(d, w[0], info.kinds[0] == 2)
        };
    }
    if w[1] != 0 {
        inst.src[0] = src9(w0 & 0x1FF, w[1]);
        if info.kinds[1] == 2 && inst.src[0].code >= 256 {
            inst.src[0].code += 256;
        }
    }
    // v_nop and v_clrexcp have no SRC0 operand, but LLVM still decodes SRC0 = DPP/SDWA with
    // an extension word valid for the opcode as an 8-byte DPP/SDWA form (printed `v_nop
    // quad_perm:...`, and a bare `v_nop` for SDWA; the word's SRC0 and selects ignored),
    // and anything else as the 4-byte plain form (it tries the extension forms first).
    let code = (w0 & 0x1FF) as u16;
    if w[1] == 0 && matches!(code, SRC_DPP | SRC_SDWA) && bytes.len() >= 8 {
        let e = word(bytes, 1, pc)?;
        let ctrl = (e >> 8) & 0x1FF;
        let sdwa = code == SRC_SDWA;
        let ok = if sdwa {
            e & info.sdwa_fix[0] == info.sdwa_fix[1]
        } else {
            e & info.dpp_fix[0] == info.dpp_fix[1] && dpp_ctrl_valid(ctrl)
        };
        if ok && !no_ext_form(info, sdwa) {
            inst.size = 8;
            if !sdwa {
                inst.dpp = Some(Dpp {
                    ctrl: ctrl as u16,
                    row_mask: (e >> 28) as u8,
                    bank_mask: ((e >> 24) & 0xF) as u8,
                    bound_ctrl: (e >> 19) & 1 == 1,
                    fi: false,
                });
            }
            return Ok(());
        }
    }
    vop_ext(inst, bytes, pc, false, info)?;
    Ok(())
}

/// True for the VOP2/VOP3 carry forms that write a carry-out (VCC in VOP2).
fn carry_out(op: Op) -> bool {
    matches!(
        op,
        Op::V_ADD_CO_U32
            | Op::V_SUB_CO_U32
            | Op::V_SUBREV_CO_U32
            | Op::V_ADDC_CO_U32
            | Op::V_SUBB_CO_U32
            | Op::V_SUBBREV_CO_U32
    )
}

/// True for the VOP2 forms that read VCC implicitly (carry-in or select mask).
fn vcc_in(op: Op) -> bool {
    matches!(
        op,
        Op::V_ADDC_CO_U32 | Op::V_SUBB_CO_U32 | Op::V_SUBBREV_CO_U32 | Op::V_CNDMASK_B32
    )
}

fn decode_vop2(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.vop2, (w0 >> 25) & 0x3F, "VOP2", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Vop2;
    let w = info.widths;
    inst.dst[0] = vgpr((w0 >> 17) & 0xFF, w[0]);
    inst.src[0] = src9(w0 & 0x1FF, w[1]);
    inst.src[1] = vgpr((w0 >> 9) & 0xFF, w[2]);
    if carry_out(info.op) {
        inst.dst[1] = Opnd::scalar(VCC as u8, 2);
    }
    if vcc_in(info.op) {
        inst.src[2] = Opnd::scalar(VCC as u8, 2);
    }
    if info.class & (CLASS_MADMK | CLASS_MADAK) != 0
        && matches!(inst.src[0].code, SRC_DPP | SRC_SDWA)
    {
        return Err(fail(bytes, pc, "no DPP/SDWA form with a K constant"));
    }
    if info.class & CLASS_MADMK != 0 {
        // D = S0 * K + S1: LLVM prints src0, K, vsrc1.
        inst.src[2] = inst.src[1];
        inst.src[1] = Opnd::scalar(Opnd::LITERAL as u8, 1);
    } else if info.class & CLASS_MADAK != 0 {
        inst.src[2] = Opnd::scalar(Opnd::LITERAL as u8, 1);
    }
    vop_ext(inst, bytes, pc, false, info)?;
    Ok(())
}

fn decode_vopc(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.vopc, (w0 >> 17) & 0xFF, "VOPC", bytes, pc)?;
    inst.op = info.op;
    inst.format = Format::Vopc;
    let w = info.widths;
    inst.dst[0] = Opnd::scalar(VCC as u8, 2);
    inst.src[0] = src9(w0 & 0x1FF, w[0]);
    inst.src[1] = vgpr((w0 >> 9) & 0xFF, w[1]);
    vop_ext(inst, bytes, pc, true, info)?;
    Ok(())
}

/// True for the VOP3B opcodes (scalar second destination in bits [14:8]).
fn is_vop3b(op: Op) -> bool {
    carry_out(op)
        || matches!(
            op,
            Op::V_DIV_SCALE_F32 | Op::V_DIV_SCALE_F64 | Op::V_MAD_U64_U32 | Op::V_MAD_I64_I32
        )
}

fn vop3_src(code: u32, width: u8, kind: u8) -> Opnd {
    if width == 0 {
        return Opnd::NONE;
    }
    let mut o = src9(code, width);
    if kind == 2 && o.vreg().is_some() {
        o.code += 256;
    }
    o
}

fn decode_vop3(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let opc = (w0 >> 16) & 0x3FF;
    let info = lookup(tb.vop3, opc, "VOP3", bytes, pc)?;
    let w1 = word(bytes, 1, pc)?;
    fixed_bits(w0, info.fixmask[0], info.fixval[0], "VOP3", bytes, pc)?;
    fixed_bits(w1, info.fixmask[1], info.fixval[1], "VOP3", bytes, pc)?;
    let vop3b = is_vop3b(info.op);
    inst.op = info.op;
    inst.format = if vop3b { Format::Vop3b } else { Format::Vop3 };
    inst.size = 8;
    let w = info.widths;
    let k = info.kinds;
    let d = w0 & 0xFF;
    unused(w[0], d, "VDST", bytes, pc)?;
    if w[0] != 0 {
        inst.dst[0] = if k[0] == 1 {
            Opnd::scalar(d as u8, w[0])
        } else {
            vreg(d, w[0], k[0] == 2)
        };
    }
    for i in 0..3 {
        inst.src[i] = vop3_src((w1 >> (9 * i)) & 0x1FF, w[i + 1], k[i + 1]);
    }
    if vop3b {
        inst.dst[1] = Opnd::scalar(((w0 >> 8) & 0x7F) as u8, 2);
    } else {
        inst.mods.abs = ((w0 >> 8) & 7) as u8;
        inst.mods.op_sel = ((w0 >> 11) & 0xF) as u8;
    }
    inst.mods.clamp = (w0 >> 15) & 1 == 1;
    inst.mods.omod = ((w1 >> 27) & 3) as u8;
    inst.mods.neg = (w1 >> 29) as u8;
    if info.op == Op::V_BITOP3_B16 || info.op == Op::V_BITOP3_B32 {
        // gfx950 BITOP3: the truth table sits in the OMOD, ABS and NEG fields.
        inst.imm =
            (inst.mods.omod as i32) << 6 | (inst.mods.abs as i32) << 3 | inst.mods.neg as i32;
        inst.mods.omod = 0;
        inst.mods.abs = 0;
        inst.mods.neg = 0;
    }
    mask_src_mods(inst, info.mods);
    if inst.src.iter().any(|s| s.code == Opnd::LITERAL) {
        if !tb.vop3_literal {
            return Err(fail(bytes, pc, "VOP3 cannot take a literal on gfx942"));
        }
        take_literal(inst, bytes, pc)?;
    }
    Ok(())
}

/// The gfx950 block-scaled MFMA: a `v_mfma_ld_scale_b32` whose next instruction is an F8F6F4
/// MFMA with ABID = 1 is one 16-byte instruction, as LLVM decodes and prints it
/// (`v_mfma_scale_f32_16x16x128_f8f6f4 vdst, a, b, c, scale_a, scale_b op_sel_hi:[..]`).
/// `None` when the words are anything else (the prefix then decodes on its own).
fn decode_scaled_mfma(tb: &Tables, w0: u32, bytes: &[u8], pc: u64) -> Option<Inst> {
    if (w0 >> 16) & 0x7F != 0x2C || !tb.vop3_literal || bytes.len() < 16 {
        return None;
    }
    let mut prefix = Inst::new(Op::S_NOP, Format::Sopp);
    // LLVM ignores the prefix's modifier bits in the pair (it rejects some of them in a
    // lone v_mfma_ld_scale_b32), so its fixed bits are not checked.
    decode_vop3p_one(tb, w0, bytes, pc, &mut prefix, false).ok()?;
    if prefix.op != Op::V_MFMA_LD_SCALE_B32 {
        return None;
    }
    let m0 = word(bytes, 2, pc).ok()?;
    // The MFMA word: VOP3P, an F8F6F4 opcode, ABID = 1 (bits 14:11 = 0b0001).
    if m0 >> 23 != 0x1A7 || (m0 >> 11) & 0xF != 1 || !matches!((m0 >> 16) & 0x7F, 0x2D | 0x2E) {
        return None;
    }
    let mut m = bytes[8..16].to_vec();
    m[1] &= !0x08; // decode the MFMA half with ABID = 0, then mark it scaled
    let mut inst = Inst::new(Op::S_NOP, Format::Sopp);
    decode_vop3p_one(
        tb,
        u32::from_le_bytes([m[0], m[1], m[2], m[3]]),
        &m,
        pc,
        &mut inst,
        true,
    )
    .ok()?;
    let p1 = word(bytes, 1, pc).ok()?;
    inst.mai.abid = 1;
    inst.mai.scale = Some([prefix.src[0], prefix.src[1]]);
    // Scale sources are VGPRs (LLVM flags anything else).
    if inst
        .mai
        .scale?
        .iter()
        .any(|o| !(256..512).contains(&o.code))
    {
        return None;
    }
    inst.mods.op_sel = ((w0 >> 11) & 3) as u8;
    inst.mods.op_sel_hi = ((p1 >> 27) & 3) as u8;
    inst.size = 16;
    Some(inst)
}

fn decode_vop3p(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    if (w0 >> 16) & 0x7F == 0x2C {
        if let Some(pair) = decode_scaled_mfma(tb, w0, bytes, pc) {
            *inst = pair;
            return Ok(());
        }
    }
    decode_vop3p_one(tb, w0, bytes, pc, inst, true)
}

/// One VOP3P instruction (the scaled-MFMA pair is [`decode_scaled_mfma`]); `check_fixed`:
/// reject words whose generated fixed modifier bits differ.
fn decode_vop3p_one(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
    check_fixed: bool,
) -> Result<(), DecodeError> {
    let info = lookup(tb.vop3p, (w0 >> 16) & 0x7F, "VOP3P", bytes, pc)?;
    let w1 = word(bytes, 1, pc)?;
    if check_fixed {
        fixed_bits(w0, info.fixmask[0], info.fixval[0], "VOP3P", bytes, pc)?;
        fixed_bits(w1, info.fixmask[1], info.fixval[1], "VOP3P", bytes, pc)?;
    }
    let w = info.widths;
    let k = info.kinds;
    let mai = info.class & CLASS_MAI != 0;
    let acc_mov = info.class & CLASS_ACCMOV != 0;
    inst.op = info.op;
    inst.format = if mai || acc_mov {
        Format::Mai
    } else {
        Format::Vop3p
    };
    inst.size = 8;
    let d = w0 & 0xFF;
    if mai {
        let acc_cd = (w0 >> 15) & 1 == 1;
        if w[0] != 0 {
            inst.dst[0] = vreg(d, w[0], acc_cd);
        }
        let acc = (w1 >> 27) & 3;
        // SMFMAC: SRC2 is the sparsity index, always a VGPR; there is no BLGP.
        let smfmac = info.mnemonic.starts_with("v_smfmac");
        for i in 0..3 {
            let a = if i == 2 {
                acc_cd && !smfmac
            } else {
                (acc >> i) & 1 == 1
            };
            let mut o = vop3_src((w1 >> (9 * i)) & 0x1FF, w[i + 1], 0);
            if a && o.vreg().is_some() {
                o.code += 256;
            }
            inst.src[i] = o;
        }
        // LLVM rejects the `src_*` special registers as a matrix operand of more than two
        // registers (it takes them as 32- and 64-bit A/B/C and as the SMFMAC index).
        let special = |o: &Opnd| o.count > 2 && matches!(o.code, 230..=239 | 251..=254);
        if inst.src.iter().any(special) {
            return Err(fail(bytes, pc, "special register as a matrix operand"));
        }
        inst.mai = MaiFields {
            cbsz: ((w0 >> 8) & 7) as u8,
            abid: ((w0 >> 11) & 0xF) as u8,
            blgp: (w1 >> 29) as u8,
            scale: None,
        };
        if matches!(
            info.op,
            Op::V_MFMA_F32_16X16X128_F8F6F4 | Op::V_MFMA_F32_32X32X64_F8F6F4
        ) {
            // CBSZ/BLGP give A's/B's element format (CDNA4 ISA, F8F6F4 MFMA): FP8/BF8 take 8
            // registers, FP6/BF6 6, FP4 4 (LLVM keeps 8 for the reserved codes 5-7).
            let regs = |fmt: u8| match fmt {
                2 | 3 => 6,
                4 => 4,
                _ => 8,
            };
            inst.src[0].count = regs(inst.mai.cbsz);
            inst.src[1].count = regs(inst.mai.blgp);
            // LLVM flags a constant as A or B (`/*Invalid immediate*/`) and, for FP6/FP4,
            // prints another value than the operand code's (or crashes).
            if (128..256).contains(&inst.src[0].code) || (128..256).contains(&inst.src[1].code) {
                return Err(fail(bytes, pc, "constant A/B operand of an F8F6F4 MFMA"));
            }
            // ABID = 1 marks the second half of a scaled pair (see `decode_scaled_mfma`): a
            // generated fixed bit of the MFMA on its own.
        }
    } else {
        if w[0] != 0 {
            inst.dst[0] = vreg(d, w[0], k[0] == 2);
        }
        for i in 0..3 {
            inst.src[i] = vop3_src((w1 >> (9 * i)) & 0x1FF, w[i + 1], k[i + 1]);
        }
        inst.mods.neg_hi = ((w0 >> 8) & 7) as u8;
        inst.mods.op_sel = ((w0 >> 11) & 7) as u8;
        inst.mods.op_sel_hi = (((w1 >> 27) & 3) | ((w0 >> 12) & 4)) as u8;
        inst.mods.clamp = (w0 >> 15) & 1 == 1;
        inst.mods.neg = (w1 >> 29) as u8;
    }
    if inst.src.iter().any(|s| s.code == Opnd::LITERAL) {
        // gfx950 VOP3P takes a 32-bit literal; of the matrix opcodes only an MFMA's C does
        // (LLVM flags one as A/B or an SMFMAC operand).
        let mfma_c = mai
            && !info.mnemonic.starts_with("v_smfmac")
            && inst.src[0].code != Opnd::LITERAL
            && inst.src[1].code != Opnd::LITERAL;
        let matrix = inst.format == Format::Mai || info.op == Op::V_MFMA_LD_SCALE_B32;
        if !tb.vop3_literal || matrix && !mfma_c {
            return Err(fail(bytes, pc, "no literal operand for this VOP3P opcode"));
        }
        take_literal(inst, bytes, pc)?;
    }
    Ok(())
}

fn decode_ds(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = lookup(tb.ds, (w0 >> 17) & 0xFF, "DS", bytes, pc)?;
    let w1 = word(bytes, 1, pc)?;
    inst.op = info.op;
    inst.format = Format::Ds;
    inst.size = 8;
    let w = info.widths;
    unused(w[0], w1 >> 24, "VDST", bytes, pc)?;
    unused(w[1], w1 & 0xFF, "ADDR", bytes, pc)?;
    unused(w[2], (w1 >> 8) & 0xFF, "DATA0", bytes, pc)?;
    unused(w[3], (w1 >> 16) & 0xFF, "DATA1", bytes, pc)?;
    let acc = (w0 >> 25) & 1 == 1;
    if w[0] != 0 {
        inst.dst[0] = vreg(w1 >> 24, w[0], acc);
    }
    if w[1] != 0 {
        inst.src[0] = vgpr(w1 & 0xFF, w[1]);
    }
    if w[2] != 0 {
        inst.src[1] = vreg((w1 >> 8) & 0xFF, w[2], acc);
    }
    if w[3] != 0 {
        inst.src[2] = vreg((w1 >> 16) & 0xFF, w[3], acc);
    }
    if two_offsets(info) {
        inst.mem.offset = (w0 & 0xFF) as i32;
        inst.mem.offset1 = ((w0 >> 8) & 0xFF) as u8;
    } else {
        inst.mem.offset = (w0 & 0xFFFF) as i32;
    }
    inst.mem.gds = (w0 >> 16) & 1 == 1;
    Ok(())
}

fn decode_flat(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let seg = (w0 >> 14) & 3;
    let opc = (w0 >> 18) & 0x7F;
    let (info, format) = match seg {
        0 => (lookup(tb.flat, opc, "FLAT", bytes, pc)?, Format::Flat),
        1 => (
            lookup(tb.scratch, opc, "SCRATCH", bytes, pc)?,
            Format::Scratch,
        ),
        2 => (lookup(tb.global, opc, "GLOBAL", bytes, pc)?, Format::Global),
        _ => return Err(fail(bytes, pc, "FLAT segment 3 is reserved")),
    };
    let w1 = word(bytes, 1, pc)?;
    inst.op = info.op;
    inst.format = format;
    inst.size = 8;
    let w = info.widths;
    let acc = (w1 >> 23) & 1 == 1;
    let saddr = (w1 >> 16) & 0x7F;
    match format {
        // Bit 13 is SVE for SCRATCH only; FLAT has no SADDR (LLVM's encodings fix both to 0).
        Format::Flat => {
            zero_field((w0 >> 13) & 1, "LDS", bytes, pc)?;
            zero_field(saddr, "SADDR", bytes, pc)?;
        }
        Format::Global => zero_field((w0 >> 13) & 1, "LDS", bytes, pc)?,
        _ => {}
    }
    if w[0] != 0 {
        inst.dst[0] = vreg(w1 >> 24, w[0], acc);
    }
    let sve = (w0 >> 13) & 1 == 1;
    match format {
        Format::Global => {
            if saddr != SADDR_OFF {
                inst.src[0] = vgpr(w1 & 0xFF, 1);
                inst.src[2] = Opnd::scalar(saddr as u8, 2);
            } else {
                inst.src[0] = vgpr(w1 & 0xFF, 2);
            }
        }
        Format::Scratch => {
            if sve {
                inst.src[0] = vgpr(w1 & 0xFF, 1);
            }
            if saddr != SADDR_OFF {
                inst.src[2] = Opnd::scalar(saddr as u8, 1);
            }
        }
        _ => inst.src[0] = vgpr(w1 & 0xFF, 2),
    }
    if acc && (w0 >> 16) & 1 == 1 && no_agpr_return(info.op, format, (w0 >> 25) & 1 == 1) {
        return Err(fail(bytes, pc, "no AGPR returning form of this atomic"));
    }
    if w[2] != 0 {
        inst.src[1] = vreg((w1 >> 8) & 0xFF, w[2], acc);
        if w[0] == 0 && (w0 >> 16) & 1 == 1 && info.class & CLASS_ATOMIC != 0 {
            // Returning atomics (GLC/SC0): VDST gets the old value (half of a cmpswap's data).
            let n = if info.class & CLASS_CMPSWAP != 0 {
                (w[2] / 2).max(1)
            } else {
                w[2]
            };
            inst.dst[0] = vreg(w1 >> 24, n, acc);
        }
    }
    inst.mem.offset = if format == Format::Flat {
        (w0 & 0x1FFF) as i32
    } else {
        ((w0 & 0x1FFF) << 19) as i32 >> 19
    };
    inst.mem.glc = (w0 >> 16) & 1 == 1;
    inst.mem.slc = (w0 >> 17) & 1 == 1;
    inst.mem.sc1 = (w0 >> 25) & 1 == 1;
    // `global_load_lds_*`, `scratch_load_lds_*`: the data goes to LDS at M0, not to
    // registers, so LLVM's encodings fix their ACC bit to 0.
    inst.mem.lds = format != Format::Flat && info.mnemonic.contains("_lds_");
    if inst.mem.lds {
        zero_field(acc as u32, "ACC", bytes, pc)?;
    }
    Ok(())
}

/// The atomics LLVM 22 has no AGPR returning form of (ACC with SC0; `sc1`: SC1 set too),
/// on gfx942 and gfx950 alike: the GLOBAL f32/packed-f16 adds, and the FLAT/GLOBAL f64
/// add/min/max with SC1.
pub(crate) fn no_agpr_return(op: Op, format: Format, sc1: bool) -> bool {
    match op {
        Op::GLOBAL_ATOMIC_ADD_F32 | Op::GLOBAL_ATOMIC_PK_ADD_F16 => format == Format::Global,
        Op::FLAT_ATOMIC_ADD_F64
        | Op::FLAT_ATOMIC_MIN_F64
        | Op::FLAT_ATOMIC_MAX_F64
        | Op::GLOBAL_ATOMIC_ADD_F64
        | Op::GLOBAL_ATOMIC_MIN_F64
        | Op::GLOBAL_ATOMIC_MAX_F64 => sc1,
        _ => false,
    }
}

/// The MUBUF loads that take the LDS bit (LLVM's `_LDS` forms; gfx950 adds x3/x4).
fn mubuf_lds_ok(tb: &Tables, op: Op) -> bool {
    match op {
        Op::BUFFER_LOAD_FORMAT_X
        | Op::BUFFER_LOAD_UBYTE
        | Op::BUFFER_LOAD_SBYTE
        | Op::BUFFER_LOAD_USHORT
        | Op::BUFFER_LOAD_SSHORT
        | Op::BUFFER_LOAD_DWORD => true,
        Op::BUFFER_LOAD_DWORDX3 | Op::BUFFER_LOAD_DWORDX4 => tb.vop3_literal,
        _ => false,
    }
}

fn decode_mubuf(
    tb: &Tables,
    w0: u32,
    bytes: &[u8],
    pc: u64,
    mtbuf: bool,
    inst: &mut Inst,
) -> Result<(), DecodeError> {
    let info = if mtbuf {
        lookup(tb.mtbuf, (w0 >> 15) & 0xF, "MTBUF", bytes, pc)?
    } else {
        lookup(tb.mubuf, (w0 >> 18) & 0x7F, "MUBUF", bytes, pc)?
    };
    let w1 = word(bytes, 1, pc)?;
    inst.op = info.op;
    inst.format = if mtbuf { Format::Mtbuf } else { Format::Mubuf };
    inst.size = 8;
    inst.mem.lds = !mtbuf && (w0 >> 16) & 1 == 1;
    let w = info.widths;
    if w == [0; 4] || inst.mem.lds {
        // No address (cache controls), or LDS as the destination: LLVM's encodings fix the
        // ACC bit (and for cache controls OFFEN/IDXEN/LDS) to zero.
        zero_field((w1 >> 23) & 1, "ACC", bytes, pc)?;
    }
    if inst.mem.lds && !mubuf_lds_ok(tb, info.op) {
        return Err(fail(bytes, pc, "MUBUF opcode cannot load to LDS"));
    }
    if w == [0; 4] {
        zero_field((w0 >> 12) & 0x13, "OFFEN/IDXEN/LDS", bytes, pc)?;
        // Cache controls (`buffer_wbl2`, `buffer_inv`): no operands.
        inst.mem.glc = (w0 >> 14) & 1 == 1;
        inst.mem.sc1 = (w0 >> 15) & 1 == 1;
        inst.mem.lds = (w0 >> 16) & 1 == 1;
        return Ok(());
    }
    let acc = (w1 >> 23) & 1 == 1;
    let offen = (w0 >> 12) & 1 == 1;
    let idxen = (w0 >> 13) & 1 == 1;
    let nvaddr = offen as u8 + idxen as u8;
    if nvaddr > 0 {
        inst.src[0] = vgpr(w1 & 0xFF, nvaddr);
    }
    if w[0] != 0 && !inst.mem.lds {
        let data = vreg((w1 >> 8) & 0xFF, w[0], acc);
        if info.class & (CLASS_STORE | CLASS_ATOMIC) != 0 {
            inst.src[1] = data;
            if info.class & CLASS_ATOMIC != 0 && (w0 >> 14) & 1 == 1 {
                inst.dst[0] = data;
            }
        } else {
            inst.dst[0] = data;
        }
    }
    inst.src[2] = Opnd::scalar((w1 >> 24) as u8, 1);
    if tb.vop3_literal {
        take_literal(inst, bytes, pc)?;
    }
    inst.src[3] = Opnd::scalar((((w1 >> 16) & 0x1F) << 2) as u8, 4);
    inst.mem.offset = (w0 & 0xFFF) as i32;
    inst.mem.offen = offen;
    inst.mem.idxen = idxen;
    inst.mem.glc = (w0 >> 14) & 1 == 1;
    if mtbuf {
        inst.mem.sc1 = (w1 >> 21) & 1 == 1;
        inst.mem.slc = (w1 >> 22) & 1 == 1;
        inst.mem.format = ((w0 >> 19) & 0x7F) as u8;
    } else {
        inst.mem.sc1 = (w0 >> 15) & 1 == 1;
        inst.mem.lds = (w0 >> 16) & 1 == 1;
        inst.mem.slc = (w0 >> 17) & 1 == 1;
    }
    Ok(())
}
