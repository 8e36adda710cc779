//! GFX9 disassembler: prints an [`Inst`] in LLVM 22's syntax (as `llvm-objdump-22 -d`).

use super::{Tables, GFX942, GFX950, SADDR_OFF};
use crate::isa::generated::{
    OpInfo, CLASS_MADAK, CLASS_MADMK, CLASS_MAI, MOD_ABS0, MOD_CLAMP, MOD_GDS, MOD_GLC, MOD_LIT16,
    MOD_LITF16, MOD_NEG0, MOD_NEG_HI, MOD_NEG_LO, MOD_OMOD, MOD_OPSEL, MOD_OPSEL4, MOD_OPSEL_HI,
    MOD_OPSEL_HI_DEF1,
};
use crate::isa::syntax::{
    self, bits, constant, dpp_ctrl_common, imm32_code, omod, range, signed_hex, sreg, u16_imm,
    with_mods, List, Ty, F16_INLINE, LIT_MARKED,
};
use crate::isa::{Format, Gpu, Inst, Op, Opnd, Target};
use core::fmt::Write as _;

/// The table entry an instruction was decoded from (looked up again from its first word).
fn info(tb: &Tables, inst: &Inst) -> Option<OpInfo> {
    let w0 = inst.words[0];
    let (table, op) = match inst.format {
        Format::Sop2 => (tb.sop2, (w0 >> 23) & 0x7F),
        Format::Sopk => (tb.sopk, (w0 >> 23) & 0x1F),
        Format::Sop1 => (tb.sop1, (w0 >> 8) & 0xFF),
        Format::Sopc => (tb.sopc, (w0 >> 16) & 0x7F),
        Format::Sopp => (tb.sopp, (w0 >> 16) & 0x7F),
        Format::Smem => (tb.smem, (w0 >> 18) & 0xFF),
        Format::Vop1 => (tb.vop1, (w0 >> 9) & 0xFF),
        Format::Vop2 => (tb.vop2, (w0 >> 25) & 0x3F),
        Format::Vopc => (tb.vopc, (w0 >> 17) & 0xFF),
        Format::Vop3 | Format::Vop3b => (tb.vop3, (w0 >> 16) & 0x3FF),
        // A scaled MFMA's opcode is in its second instruction (words 2-3).
        Format::Mai if inst.mai.scale.is_some() => (tb.vop3p, (inst.words[2] >> 16) & 0x7F),
        Format::Vop3p | Format::Mai => (tb.vop3p, (w0 >> 16) & 0x7F),
        Format::Ds => (tb.ds, (w0 >> 17) & 0xFF),
        Format::Flat => (tb.flat, (w0 >> 18) & 0x7F),
        Format::Global => (tb.global, (w0 >> 18) & 0x7F),
        Format::Scratch => (tb.scratch, (w0 >> 18) & 0x7F),
        Format::Mubuf => (tb.mubuf, (w0 >> 18) & 0x7F),
        Format::Mtbuf => (tb.mtbuf, (w0 >> 15) & 0xF),
        _ => return None,
    };
    table.get(op as usize).copied().flatten()
}

/// The `MOD_LIT16`/`MOD_LITF16` flags of `inst`'s opcode: whether its sources are 16-bit
/// and whether those are f16. The generator finds them by giving the opcode a literal, which
/// gfx942's VOP3 encoding cannot take; there the same VOP3 opcode of gfx950 (same semantic
/// opcode, same operand types) supplies them.
fn lit16_flags(tb: &Tables, inst: &Inst, info: &OpInfo) -> u32 {
    let flags = info.mods & (MOD_LIT16 | MOD_LITF16);
    if flags != 0 || tb.vop3_literal || !matches!(inst.format, Format::Vop3 | Format::Vop3b) {
        return flags;
    }
    match GFX950.vop3.get(((inst.words[0] >> 16) & 0x3FF) as usize) {
        Some(Some(i)) if i.op == info.op => i.mods & (MOD_LIT16 | MOD_LITF16),
        _ => 0,
    }
}

/// Printer-private operand code: a literal read by an f64 operand, whose value is the literal
/// dword in the high half (CDNA ISA 6.2.1, `notes/cdna.md` §3.1); LLVM prints the f64 value
/// when it is an inline constant, else the dword in hex (never `lit()`).
const LIT_F64: u16 = 0xFFFD;

/// Printer-private operand codes: the float inline constants 240..=248 read by a 16-bit
/// integer operand (printed as their f16 bit patterns).
const INT16_FP0: u16 = 0xFF00;

/// Printer-private operand code: the inline constant 1/(2*pi) (248) read by a 64-bit operand,
/// which LLVM prints with the digits of the f64 value (integer operands too).
const INV2PI_64: u16 = 0xFF10;

/// True if LLVM would print the literal `v` of an operand of `count` dwords as `lit(...)`.
/// `bits16`: the operand is 16 bits wide (`float16`: an f16 operand).
fn literal_is_inlinable(v: u32, count: u8, bits16: bool, float16: bool) -> bool {
    let ty = match (bits16, float16) {
        (true, true) => Ty::F16,
        (true, false) => Ty::I16,
        _ if count >= 2 => Ty::B64,
        _ => Ty::B32,
    };
    syntax::literal_is_inlinable(v, ty)
}

/// [`literal_is_inlinable`] for a gfx950 VOP3P literal (`mnemonic`), as LLVM 22 decides it:
/// `v_fma_mix*` by the low half as an f16 value, packed-f16 opcodes by the packed value
/// (integer inline values, or an f16 inline value in the low half with a zero high half),
/// everything else (packed integers, packed f32) by the 32-bit rules.
fn vop3p_literal_is_inlinable(mnemonic: &str, v: u32) -> Option<bool> {
    let f16 = |h: u32| F16_INLINE.contains(&(h as u16));
    Some(if mnemonic.starts_with("v_fma_mix") {
        (-16..=64).contains(&(v as u16 as i16)) || f16(v & 0xFFFF)
    } else if mnemonic.contains("_f16") && !mnemonic.contains("bf16") {
        (-16..=64).contains(&(v as i32)) || v >> 16 == 0 && f16(v)
    } else {
        syntax::literal_is_inlinable(v, Ty::B32)
    })
}

/// Writes any operand. `lit` is the instruction's literal.
fn opnd(out: &mut String, o: Opnd, lit: Option<u32>) {
    let c = o.code;
    match c {
        0..=127 => sreg(out, c, o.count, true),
        255 => {
            let _ = write!(out, "0x{:x}", lit.unwrap_or(0));
        }
        256..=767 => {
            let p = if c >= 512 { "a" } else { "v" };
            range(out, p, ((c - 256) % 256) as u32, o.count as u32);
        }
        INV2PI_64 => {
            constant(out, 248, Ty::B64);
        }
        INT16_FP0..=0xFF08 => {
            constant(out, 240 + (c - INT16_FP0), Ty::I16);
        }
        LIT_MARKED => {
            let _ = write!(out, "lit(0x{:x})", lit.unwrap_or(0));
        }
        LIT_F64 => match lit.unwrap_or(0) {
            0 => out.push('0'),
            0x3FE0_0000 => out.push_str("0.5"),
            0xBFE0_0000 => out.push_str("-0.5"),
            0x3FF0_0000 => out.push_str("1.0"),
            0xBFF0_0000 => out.push_str("-1.0"),
            0x4000_0000 => out.push_str("2.0"),
            0xC000_0000 => out.push_str("-2.0"),
            0x4010_0000 => out.push_str("4.0"),
            0xC010_0000 => out.push_str("-4.0"),
            v => {
                let _ = write!(out, "0x{v:x}");
            }
        },
        _ if constant(out, c, Ty::B32) => {}
        _ => {
            let _ = write!(out, "<opnd{c}>");
        }
    }
}

/// True for operand codes LLVM's disassembler turns into immediates (inline constants and
/// literals, including the printer-private forms), not registers.
fn is_imm(code: u16) -> bool {
    matches!(
        code,
        128..=208 | 240..=248 | 255 | INT16_FP0..=0xFF08 | INV2PI_64 | LIT_MARKED | LIT_F64
    )
}

/// Writes a source with its `neg`/`abs` modifiers.
fn src_mod(out: &mut String, o: Opnd, lit: Option<u32>, neg: bool, abs: bool) {
    with_mods(out, neg, abs, is_imm(o.code), |out| opnd(out, o, lit));
}

/// [`List`] of GFX9 operands.
trait Operands {
    /// Writes `o` (if present) as the next operand; `lit` is the instruction's literal.
    fn op(&mut self, o: Opnd, lit: Option<u32>);
}

impl Operands for List<'_> {
    fn op(&mut self, o: Opnd, lit: Option<u32>) {
        if o.is_some() {
            let s = self.sep();
            opnd(s, o, lit);
        }
    }
}

/// Prints `inst` as LLVM does. `pc` is the instruction's address (unused: LLVM prints
/// branch offsets, not targets).
pub fn print(target: &Target, inst: &Inst, pc: u64) -> String {
    let _ = pc;
    let tb = if target.gpu == Gpu::GFX950 {
        &GFX950
    } else {
        &GFX942
    };
    let Some(info) = info(tb, inst) else {
        return inst.op.name().to_string();
    };
    let mut out = String::with_capacity(48);
    let base = info.mnemonic;
    let full_literal = inst.literal;
    let mut inst = *inst;
    let bits16 = info.mods & MOD_LIT16 != 0;
    if bits16 {
        inst.literal = inst.literal.map(|l| l & 0xFFFF);
    }
    if let Some(v) = full_literal {
        if info.class & (CLASS_MADMK | CLASS_MADAK) == 0 {
            let f16 = info.mods & MOD_LITF16 != 0;
            let marked = if inst.format == Format::Vop3p {
                vop3p_literal_is_inlinable(base, v)
            } else {
                None
            };
            if base.starts_with("v_fma_mix") && marked == Some(false) {
                // Mix sources are f16 or f32 by OP_SEL_HI; LLVM prints a literal that is no
                // f16 inline value by its low half.
                inst.literal = Some(v & 0xFFFF);
            }
            let mai = inst.format == Format::Mai;
            for (i, s) in inst.src.iter_mut().enumerate() {
                if s.code != Opnd::LITERAL {
                    continue;
                }
                // f64 operands: an f64 MFMA's C, sources with float modifiers.
                let f64_src = s.count >= 2
                    && if mai {
                        base.contains("_f64")
                    } else {
                        inst.format != Format::Vop3p
                            && info.mods & ((MOD_ABS0 | MOD_NEG0) << i) != 0
                    };
                if f64_src {
                    s.code = LIT_F64;
                    continue;
                }
                // MFMA C: 32-bit elements.
                let count = if mai { 1 } else { s.count };
                if marked.unwrap_or_else(|| literal_is_inlinable(v, count, bits16, f16)) {
                    s.code = LIT_MARKED;
                    // A marked 16-bit literal is printed whole (`lit(0x12343c00)`).
                    inst.literal = full_literal;
                }
            }
        }
    }
    if lit16_flags(tb, &inst, &info) & (MOD_LIT16 | MOD_LITF16) == MOD_LIT16 {
        // A float inline constant given to a 16-bit integer operand is the f16 bit pattern
        // (ISA "inline constants": 16-bit operands take the f16 value); LLVM prints it in hex.
        // `v_mad_u32_u16`/`v_mad_i32_i16` add a 32-bit SRC2.
        let wide_src2 = matches!(info.op, Op::V_MAD_U32_U16 | Op::V_MAD_I32_I16);
        for (i, s) in inst.src.iter_mut().enumerate() {
            if (240..=248).contains(&s.code) && !(wide_src2 && i == 2) {
                s.code = INT16_FP0 + (s.code - 240);
            }
        }
    }
    // 64-bit operands: two registers, except in packed-f32 VOP3P (two 32-bit lanes), in
    // MFMA (only the C matrix of an f64 MFMA counts) and in `s_movrels_b64`, `s_setpc_b64`
    // and `s_rfe_b64` (whose source LLVM types as a register, printing constants with 32-bit
    // digits and an "Invalid immediate" note).
    for (i, s) in inst.src.iter_mut().enumerate() {
        let elems64 = match inst.format {
            Format::Vop3p => false,
            Format::Mai => i == 2 && base.contains("_f64"),
            _ => !matches!(info.op, Op::S_MOVRELS_B64 | Op::S_SETPC_B64 | Op::S_RFE_B64),
        };
        if s.code == 248 && s.count >= 2 && elems64 {
            s.code = INV2PI_64;
        }
    }
    // Source modifiers LLVM prints for this opcode (integer operands have none).
    let m = info.mods >> 10;
    inst.mods.abs &= (m & 7) as u8;
    inst.mods.neg &= if matches!(inst.format, Format::Vop3p | Format::Mai) {
        0xFF
    } else {
        (m >> 3 & 7) as u8
    };
    let inst = &inst;
    // DPP/SDWA forms replace the `_e32` suffix.
    let stem = base.strip_suffix("_e32").unwrap_or(base);
    if let (Some(rest), Some(_)) = (base.strip_prefix("v_mfma_"), inst.mai.scale) {
        let _ = write!(out, "v_mfma_scale_{rest}");
    } else if inst.dpp.is_some() && info.op != Op::V_NOP {
        // (LLVM prints a DPP v_nop without the suffix.)
        let _ = write!(out, "{stem}_dpp");
    } else if inst.sdwa.is_some() {
        let _ = write!(out, "{stem}_sdwa");
    } else {
        out.push_str(base);
    }
    match inst.format {
        Format::Sop1 | Format::Sop2 => {
            let mut l = List::new(&mut out);
            l.op(inst.dst[0], inst.literal);
            l.op(inst.src[0], inst.literal);
            l.op(inst.src[1], inst.literal);
        }
        Format::Sopc => {
            let mut l = List::new(&mut out);
            l.op(inst.src[0], inst.literal);
            l.op(inst.src[1], inst.literal);
            if info.op == crate::isa::Op::S_SET_GPR_IDX_ON {
                let s = l.sep();
                let mode = inst.imm as u32;
                if mode <= 15 {
                    gpr_idx(s, mode);
                } else {
                    let _ = write!(s, "0x{mode:x}");
                }
            }
        }
        Format::Sopk => print_sopk(&mut out, inst, info),
        Format::Sopp => print_sopp(&mut out, inst, info),
        Format::Smem => print_smem(&mut out, inst, info),
        Format::Vop1 | Format::Vop2 | Format::Vopc => print_vop(&mut out, inst, info, full_literal),
        Format::Vop3 | Format::Vop3b => print_vop3(&mut out, inst, info),
        Format::Vop3p | Format::Mai => print_vop3p(&mut out, inst, info),
        Format::Ds => print_ds(&mut out, inst, info),
        Format::Flat | Format::Global | Format::Scratch => print_flat(&mut out, inst),
        Format::Mubuf | Format::Mtbuf => print_mubuf(&mut out, inst, info),
        _ => {}
    }
    out
}

/// A 32-bit immediate as LLVM prints it: inline-constant values by their value, else hex.
fn imm32(out: &mut String, v: u32) {
    opnd(
        out,
        Opnd {
            code: imm32_code(v),
            count: 1,
        },
        Some(v),
    );
}

fn gpr_idx(out: &mut String, mode: u32) {
    out.push_str("gpr_idx(");
    let mut first = true;
    for (i, n) in ["SRC0", "SRC1", "SRC2", "DST"].iter().enumerate() {
        if mode >> i & 1 == 1 {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(n);
        }
    }
    out.push(')');
}

fn hwreg(out: &mut String, v: u32) {
    let id = v & 0x3F;
    let offset = (v >> 6) & 0x1F;
    let size = ((v >> 11) & 0x1F) + 1;
    let name = match id {
        1 => "HW_REG_MODE",
        2 => "HW_REG_STATUS",
        3 => "HW_REG_TRAPSTS",
        4 => "HW_REG_HW_ID",
        5 => "HW_REG_GPR_ALLOC",
        6 => "HW_REG_LDS_ALLOC",
        7 => "HW_REG_IB_STS",
        15 => "HW_REG_SH_MEM_BASES",
        16 => "HW_REG_TBA_LO",
        17 => "HW_REG_TBA_HI",
        18 => "HW_REG_TMA_LO",
        19 => "HW_REG_TMA_HI",
        // gfx940+ (probed from llvm-mc-22 -mcpu=gfx942/gfx950).
        20 => "HW_REG_XCC_ID",
        21 => "HW_REG_SQ_PERF_SNAPSHOT_DATA",
        22 => "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
        23 => "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
        24 => "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
        _ => "",
    };
    out.push_str("hwreg(");
    if name.is_empty() {
        let _ = write!(out, "{id}");
    } else {
        out.push_str(name);
    }
    if !(offset == 0 && size == 32) {
        let _ = write!(out, ", {offset}, {size}");
    }
    out.push(')');
}

fn print_sopk(out: &mut String, inst: &Inst, info: OpInfo) {
    let simm = (inst.imm as u32) & 0xFFFF;
    let m = info.mnemonic;
    let reg = if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[0]
    };
    if m == "s_setreg_imm32_b32" {
        out.push(' ');
        hwreg(out, simm);
        out.push_str(", ");
        imm32(out, inst.literal.unwrap_or(0));
    } else if m.starts_with("s_setreg") {
        out.push(' ');
        hwreg(out, simm);
        out.push_str(", ");
        opnd(out, reg, None);
    } else if m.starts_with("s_getreg") {
        out.push(' ');
        opnd(out, reg, None);
        out.push_str(", ");
        hwreg(out, simm);
    } else {
        let mut l = List::new(out);
        l.op(reg, None);
        let s = l.sep();
        if m.starts_with("s_call") || m.starts_with("s_cbranch") {
            let _ = write!(s, "{simm}");
        } else {
            let _ = write!(s, "0x{simm:x}");
        }
    }
}

fn print_sopp(out: &mut String, inst: &Inst, info: OpInfo) {
    let simm = (inst.imm as u32) & 0xFFFF;
    let m = info.mnemonic;
    match m {
        "s_waitcnt" => {
            let vm = (simm & 0xF) | ((simm >> 10) & 0x30);
            let exp = (simm >> 4) & 7;
            let lgkm = (simm >> 8) & 0xF;
            let mut parts = Vec::new();
            if vm != 63 {
                parts.push(format!("vmcnt({vm})"));
            }
            if exp != 7 {
                parts.push(format!("expcnt({exp})"));
            }
            if lgkm != 15 {
                parts.push(format!("lgkmcnt({lgkm})"));
            }
            if parts.is_empty() {
                let _ = write!(out, " vmcnt(63) expcnt(7) lgkmcnt(15)");
            } else {
                out.push(' ');
                out.push_str(&parts.join(" "));
            }
        }
        "s_endpgm"
        | "s_endpgm_saved"
        | "s_wakeup"
        | "s_barrier"
        | "s_icache_inv"
        | "s_ttracedata"
        | "s_set_gpr_idx_off"
        | "s_endpgm_ordered_ps_done" => {
            if simm != 0 {
                let _ = write!(out, " {simm}");
            }
        }
        "s_set_gpr_idx_mode" if simm <= 15 => {
            out.push(' ');
            gpr_idx(out, simm);
        }
        "s_sendmsg" | "s_sendmsghalt" => {
            out.push(' ');
            sendmsg(out, simm);
        }
        _ if m.starts_with("s_cbranch") || m == "s_branch" => {
            // LLVM's disassembler prints the raw 16-bit offset field.
            let _ = write!(out, " {simm}");
        }
        _ => {
            out.push(' ');
            u16_imm(out, simm);
        }
    }
}

/// `s_sendmsg`/`s_sendmsghalt` operands as LLVM prints them (GFX9 message table): MSG_ID is
/// bits 3:0, OP bits 6:4, STREAM bits 9:8; other bits are ignored for the symbolic form. A
/// message LLVM cannot name, or an invalid op/stream, prints as `sendmsg(id, op, stream)` if
/// those three fields are all the bits set, else as the plain number.
fn sendmsg(out: &mut String, v: u32) {
    let id = v & 0xF;
    let op = (v >> 4) & 7;
    let stream = (v >> 8) & 3;
    let gs_ops = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
    let sys_ops = [
        "",
        "SYSMSG_OP_ECC_ERR_INTERRUPT",
        "SYSMSG_OP_REG_RD",
        "",
        "SYSMSG_OP_TTRACE_PC",
    ];
    let plain = match id {
        1 => Some("MSG_INTERRUPT"),
        4 => Some("MSG_SAVEWAVE"),
        5 => Some("MSG_STALL_WAVE_GEN"),
        6 => Some("MSG_HALT_WAVES"),
        7 => Some("MSG_ORDERED_PS_DONE"),
        8 => Some("MSG_EARLY_PRIM_DEALLOC"),
        9 => Some("MSG_GS_ALLOC_REQ"),
        10 => Some("MSG_GET_DOORBELL"),
        _ => None,
    };
    match id {
        // MSG_GS needs an op other than NOP; both take a stream with an op.
        2 | 3 if op < 4 && (op != 0 || id == 3) && (op != 0 || stream == 0) => {
            let name = if id == 2 { "MSG_GS" } else { "MSG_GS_DONE" };
            if op == 0 {
                let _ = write!(out, "sendmsg({name}, {})", gs_ops[0]);
            } else {
                let _ = write!(out, "sendmsg({name}, {}, {stream})", gs_ops[op as usize]);
            }
        }
        // SYSMSG_OP_HOST_TRAP_ACK (3) has no name on GFX9.
        15 if matches!(op, 1 | 2 | 4) && stream == 0 => {
            let _ = write!(out, "sendmsg(MSG_SYSMSG, {})", sys_ops[op as usize]);
        }
        _ if plain.is_some() && op == 0 && stream == 0 => {
            let _ = write!(out, "sendmsg({})", plain.unwrap_or_default());
        }
        _ if v & !0x37F == 0 => {
            let _ = write!(out, "sendmsg({id}, {op}, {stream})");
        }
        _ => {
            let _ = write!(out, "{v}");
        }
    }
}

fn print_smem(out: &mut String, inst: &Inst, info: OpInfo) {
    let imm = (inst.words[0] >> 17) & 1 == 1;
    let soe = (inst.words[0] >> 14) & 1 == 1;
    let data = if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[1]
    };
    let mut l = List::new(out);
    if info.mnemonic == "s_atc_probe" || info.mnemonic == "s_atc_probe_buffer" {
        // The SDATA field holds the probe mode, printed as an immediate.
        u16_imm(l.sep(), (inst.words[0] >> 6) & 0x7F);
    } else {
        l.op(data, None);
    }
    if info.widths[1] != 0 || info.widths[2] != 0 {
        l.op(inst.src[0], None);
        let s = l.sep();
        if imm && soe {
            opnd(s, inst.src[2], None);
            s.push_str(" offset:");
            signed_hex(s, inst.mem.offset);
        } else if imm {
            signed_hex(s, inst.mem.offset);
        } else {
            opnd(s, inst.src[2], None);
        }
    }
    if inst.mem.glc && info.mods & MOD_GLC != 0 {
        out.push_str(" glc");
    }
}

const SEL: [&str; 8] = [
    "BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "INVALID",
];

fn print_vop(out: &mut String, inst: &Inst, info: OpInfo, full_literal: Option<u32>) {
    // The K constant of madmk/madak/fmamk/fmaak is always printed in full.
    let k = if info.class & CLASS_MADMK != 0 {
        1
    } else if info.class & CLASS_MADAK != 0 {
        2
    } else {
        9
    };
    let neg = inst.mods.neg;
    let abs = inst.mods.abs;
    let sext = inst.sdwa.map_or(0, |s| s.sext);
    {
        let mut l = List::new(out);
        // Destinations: VOPC's VCC/SDST, VOP1/2's VDST, VOP2 carry-out.
        if inst.format == Format::Vopc || info.widths[0] != 0 {
            l.op(inst.dst[0], None);
        }
        l.op(inst.dst[1], None);
        for i in 0..3 {
            let o = inst.src[i];
            if !o.is_some() {
                continue;
            }
            let s = l.sep();
            let (n, a, x) = if i < 2 {
                (neg >> i & 1 == 1, abs >> i & 1 == 1, sext >> i & 1 == 1)
            } else {
                (false, false, false)
            };
            if x {
                s.push_str("sext(");
            }
            let lit = if i == k { full_literal } else { inst.literal };
            src_mod(s, o, lit, n, a);
            if x {
                s.push(')');
            }
        }
    }
    if let Some(sd) = inst.sdwa {
        if inst.mods.clamp {
            out.push_str(" clamp");
        }
        omod(out, inst.mods.omod);
        // The FP8/BF8 -> f32 converts have no DST_SEL/DST_UNUSED operands in LLVM (their
        // result is a whole f32 or f32 pair).
        if inst.format != Format::Vopc && !super::fp8_cvt(info.op) {
            let _ = write!(
                out,
                " dst_sel:{} dst_unused:{}",
                SEL[sd.dst_sel as usize & 7],
                ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"]
                    [sd.dst_unused as usize & 3]
            );
        }
        let _ = write!(out, " src0_sel:{}", SEL[sd.src0_sel as usize & 7]);
        if inst.src[1].is_some() {
            let _ = write!(out, " src1_sel:{}", SEL[sd.src1_sel as usize & 7]);
        }
    }
    if let Some(d) = inst.dpp {
        dpp_ctrl(out, d.ctrl);
        let _ = write!(
            out,
            " row_mask:0x{:x} bank_mask:0x{:x}",
            d.row_mask, d.bank_mask
        );
        if d.bound_ctrl {
            out.push_str(" bound_ctrl:1");
        }
    }
}

fn dpp_ctrl(out: &mut String, c: u16) {
    let c = c as u32;
    if dpp_ctrl_common(out, c) {
        return;
    }
    match c {
        0x130 => out.push_str(" wave_shl:1"),
        0x134 => out.push_str(" wave_rol:1"),
        0x138 => out.push_str(" wave_shr:1"),
        0x13C => out.push_str(" wave_ror:1"),
        0x142 => out.push_str(" row_bcast:15"),
        0x143 => out.push_str(" row_bcast:31"),
        0x150..=0x15F => {
            let _ = write!(out, " row_newbcast:{}", c & 0xF);
        }
        _ => out.push_str(" /* Invalid dpp_ctrl value */"),
    }
}

fn print_vop3(out: &mut String, inst: &Inst, info: OpInfo) {
    let nsrc = inst.src.iter().take(3).filter(|s| s.is_some()).count();
    {
        let mut l = List::new(out);
        l.op(inst.dst[0], None);
        l.op(inst.dst[1], None);
        for i in 0..3 {
            let o = inst.src[i];
            if o.is_some() {
                let s = l.sep();
                src_mod(
                    s,
                    o,
                    inst.literal,
                    inst.mods.neg >> i & 1 == 1,
                    inst.mods.abs >> i & 1 == 1,
                );
            }
        }
    }
    let bitop3 = matches!(
        info.op,
        crate::isa::Op::V_BITOP3_B16 | crate::isa::Op::V_BITOP3_B32
    );
    if bitop3 && inst.imm != 0 {
        // LLVM prints the truth table in decimal up to 10, in hex above (`bitop3:10`,
        // `bitop3:0xb`).
        if inst.imm <= 10 {
            let _ = write!(out, " bitop3:{}", inst.imm);
        } else {
            let _ = write!(out, " bitop3:0x{:x}", inst.imm);
        }
    }
    if matches!(
        info.op,
        Op::V_PERMLANE16_SWAP_B32 | Op::V_PERMLANE32_SWAP_B32
    ) {
        // VOP3 OP_SEL[1:0] of the lane swaps are LLVM's `bound_ctrl` and `fi`.
        if inst.mods.op_sel & 2 != 0 {
            out.push_str(" bound_ctrl:1");
        }
        if inst.mods.op_sel & 1 != 0 {
            out.push_str(" fi:1");
        }
    }
    if inst.mods.op_sel != 0 && info.mods & MOD_OPSEL != 0 {
        // op_sel lists the sources, then the destination.
        if info.mods & MOD_OPSEL4 != 0 {
            // The byte-select conversions (stochastic-rounding FP8, FP4) print all four
            // bits (generated flag).
            bits(out, "op_sel", inst.mods.op_sel, 4);
        } else {
            let v = (inst.mods.op_sel & ((1 << nsrc) - 1)) | ((inst.mods.op_sel >> 3 & 1) << nsrc);
            bits(out, "op_sel", v, nsrc + 1);
        }
    }
    if inst.mods.clamp && info.mods & MOD_CLAMP != 0 {
        out.push_str(" clamp");
    }
    if info.mods & MOD_OMOD != 0 {
        omod(out, inst.mods.omod);
    }
}

fn print_vop3p(out: &mut String, inst: &Inst, info: OpInfo) {
    let nsrc = inst.src.iter().take(3).filter(|s| s.is_some()).count();
    let mix = info.mnemonic.starts_with("v_fma_mix") || info.mnemonic.starts_with("v_mad_mix");
    let mut l = List::new(out);
    l.op(inst.dst[0], None);
    for i in 0..3 {
        let o = inst.src[i];
        if o.is_some() && mix {
            // The mix opcodes use NEG_HI as `abs`.
            let s = l.sep();
            src_mod(
                s,
                o,
                inst.literal,
                inst.mods.neg >> i & 1 == 1,
                inst.mods.neg_hi >> i & 1 == 1,
            );
        } else {
            l.op(o, inst.literal);
        }
    }
    if inst.format == Format::Mai {
        if let Some(scale) = inst.mai.scale {
            // Scale sources, then the prefix's byte selects: op_sel when set, op_sel_hi
            // always (LLVM prints three bits, the third always 0).
            l.op(scale[0], None);
            l.op(scale[1], None);
            if inst.mods.op_sel & 3 != 0 {
                bits(out, "op_sel", inst.mods.op_sel & 3, 3);
            }
            bits(out, "op_sel_hi", inst.mods.op_sel_hi & 3, 3);
        }
        if info.class & CLASS_MAI != 0 {
            let m = inst.mai;
            if m.cbsz != 0 {
                let _ = write!(out, " cbsz:{}", m.cbsz);
            }
            if m.abid != 0 && m.scale.is_none() {
                let _ = write!(out, " abid:{}", m.abid);
            }
            if m.blgp != 0 {
                if info.mnemonic.starts_with("v_mfma_f64") {
                    // The f64 MFMAs use the BLGP bits as `neg`.
                    bits(out, "neg", m.blgp, 3);
                } else {
                    let _ = write!(out, " blgp:{}", m.blgp);
                }
            }
        }
        return;
    }
    let full = (1u8 << nsrc) - 1;
    let f = info.mods;
    if inst.mods.op_sel & full != 0 && f & MOD_OPSEL != 0 {
        bits(out, "op_sel", inst.mods.op_sel, nsrc);
    }
    let hi_default = if f & MOD_OPSEL_HI_DEF1 != 0 { full } else { 0 };
    if inst.mods.op_sel_hi & full != hi_default && f & MOD_OPSEL_HI != 0 {
        bits(out, "op_sel_hi", inst.mods.op_sel_hi, nsrc);
    }
    if inst.mods.neg & full != 0 && f & MOD_NEG_LO != 0 && !mix {
        bits(out, "neg_lo", inst.mods.neg, nsrc);
    }
    if inst.mods.neg_hi & full != 0 && f & MOD_NEG_HI != 0 && !mix {
        bits(out, "neg_hi", inst.mods.neg_hi, nsrc);
    }
    if inst.mods.clamp && f & MOD_CLAMP != 0 {
        out.push_str(" clamp");
    }
}

fn print_ds(out: &mut String, inst: &Inst, info: OpInfo) {
    {
        let mut l = List::new(out);
        l.op(inst.dst[0], None);
        l.op(inst.src[0], None);
        l.op(inst.src[1], None);
        l.op(inst.src[2], None);
    }
    if info.op == crate::isa::Op::DS_SWIZZLE_B32 {
        swizzle(out, inst.mem.offset as u32);
    } else if super::two_offsets(&info) {
        if inst.mem.offset != 0 {
            let _ = write!(out, " offset0:{}", inst.mem.offset);
        }
        if inst.mem.offset1 != 0 {
            let _ = write!(out, " offset1:{}", inst.mem.offset1);
        }
    } else if inst.mem.offset != 0 {
        let _ = write!(out, " offset:{}", inst.mem.offset);
    }
    if inst.mem.gds && info.mods & MOD_GDS != 0 {
        out.push_str(" gds");
    }
}

/// `ds_swizzle_b32`'s offset in LLVM's symbolic form (AMDGPUInstPrinter::printSwizzle).
fn swizzle(out: &mut String, imm: u32) {
    if imm == 0 {
        return;
    }
    out.push_str(" offset:");
    if imm & 0xFF00 == 0x8000 {
        let _ = write!(
            out,
            "swizzle(QUAD_PERM,{},{},{},{})",
            imm & 3,
            (imm >> 2) & 3,
            (imm >> 4) & 3,
            (imm >> 6) & 3
        );
    } else if imm & 0x8000 == 0 {
        let and = imm & 0x1F;
        let or = (imm >> 5) & 0x1F;
        let xor = (imm >> 10) & 0x1F;
        let group = 0x1F - and + 1;
        if and == 0x1F && or == 0 && xor.count_ones() == 1 {
            let _ = write!(out, "swizzle(SWAP,{xor})");
        } else if and == 0x1F && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
            let _ = write!(out, "swizzle(REVERSE,{})", xor + 1);
        } else if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
            let _ = write!(out, "swizzle(BROADCAST,{group},{or})");
        } else {
            let p0 = or ^ xor;
            let p1 = (0x1F & and | or) ^ xor;
            out.push_str("swizzle(BITMASK_PERM,\"");
            for bit in (0..5).rev() {
                let (a, b) = (p0 >> bit & 1 == 1, p1 >> bit & 1 == 1);
                out.push(match (a, b) {
                    (true, true) => '1',
                    (false, false) => '0',
                    (false, true) => 'p',
                    (true, false) => 'i',
                });
            }
            out.push_str("\")");
        }
    } else {
        let _ = write!(out, "{imm}");
    }
}

/// gfx940 cache-policy bits in LLVM's order: `sc0 nt sc1` (GLC, SLC, SC1).
fn cpol(out: &mut String, inst: &Inst) {
    if inst.mem.glc {
        out.push_str(" sc0");
    }
    if inst.mem.slc {
        out.push_str(" nt");
    }
    if inst.mem.sc1 {
        out.push_str(" sc1");
    }
}

fn print_flat(out: &mut String, inst: &Inst) {
    let saddr = (inst.words[1] >> 16) & 0x7F;
    {
        let mut l = List::new(out);
        l.op(inst.dst[0], None);
        match inst.format {
            Format::Scratch if !inst.src[0].is_some() => l.sep().push_str("off"),
            _ => l.op(inst.src[0], None),
        }
        l.op(inst.src[1], None);
        if inst.format != Format::Flat {
            if saddr == SADDR_OFF {
                l.sep().push_str("off");
            } else {
                l.op(inst.src[2], None);
            }
        }
    }
    if inst.mem.offset != 0 {
        let _ = write!(out, " offset:{}", inst.mem.offset);
    }
    cpol(out, inst);
}

fn print_mubuf(out: &mut String, inst: &Inst, info: OpInfo) {
    if info.widths == [0; 4] && !inst.mem.lds {
        // Cache control (`buffer_wbl2`, `buffer_inv`, ...): no operands, only SC bits.
        if inst.mem.glc {
            out.push_str(" sc0");
        }
        if inst.mem.sc1 {
            out.push_str(" sc1");
        }
        return;
    }
    {
        let mut l = List::new(out);
        let data = if inst.dst[0].is_some() {
            inst.dst[0]
        } else {
            inst.src[1]
        };
        if !inst.mem.lds {
            // Loads to LDS have no VGPR data operand.
            l.op(data, None);
        }
        if inst.src[0].is_some() {
            l.op(inst.src[0], None);
        } else {
            l.sep().push_str("off");
        }
        l.op(inst.src[3], None);
        l.op(inst.src[2], inst.literal);
    }
    if inst.format == Format::Mtbuf {
        let f = inst.mem.format as u32;
        let dfmt = f & 0xF;
        let nfmt = f >> 4;
        // Default fields (dfmt 1, nfmt 0) are left out.
        let (d, n) = (DFMT[dfmt as usize], NFMT[nfmt as usize & 7]);
        match (dfmt != 1, nfmt != 0) {
            (true, true) => {
                let _ = write!(out, " format:[{d},{n}]");
            }
            (true, false) => {
                let _ = write!(out, " format:[{d}]");
            }
            (false, true) => {
                let _ = write!(out, " format:[{n}]");
            }
            (false, false) => {}
        }
    }
    if inst.mem.idxen {
        out.push_str(" idxen");
    }
    if inst.mem.offen {
        out.push_str(" offen");
    }
    if inst.mem.offset != 0 {
        let _ = write!(out, " offset:{}", inst.mem.offset);
    }
    // MUBUF prints SC1 (the old SCC bit) after the cache-policy operand.
    if inst.mem.glc {
        out.push_str(" sc0");
    }
    if inst.mem.slc {
        out.push_str(" nt");
    }
    if inst.mem.sc1 {
        out.push_str(" sc1");
    }
    if inst.mem.lds {
        out.push_str(" lds");
    }
}

const DFMT: [&str; 16] = [
    "BUF_DATA_FORMAT_INVALID",
    "BUF_DATA_FORMAT_8",
    "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8",
    "BUF_DATA_FORMAT_32",
    "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11",
    "BUF_DATA_FORMAT_11_11_10",
    "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10",
    "BUF_DATA_FORMAT_8_8_8_8",
    "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16",
    "BUF_DATA_FORMAT_32_32_32",
    "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15",
];

const NFMT: [&str; 8] = [
    "BUF_NUM_FORMAT_UNORM",
    "BUF_NUM_FORMAT_SNORM",
    "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED",
    "BUF_NUM_FORMAT_UINT",
    "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6",
    "BUF_NUM_FORMAT_FLOAT",
];
