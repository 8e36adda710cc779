//! RDNA disassembler: prints an [`Inst`] in LLVM 22's syntax (as `llvm-objdump-22 -d`, with
//! `--mattr=+real-true16` on gfx12 and `--mattr=+wavefrontsize64` for wave64 code).

use super::{dpp_raw, tables, Tables, EXEC, VCC};
use crate::isa::generated::{
    rdna as t, RdnaInfo, CLASS_ATOMIC, CLASS_MADAK, CLASS_MADMK, CLASS_TWO_OFFSETS,
    EXTRA_BYTE_SEL1_SHIFT, EXTRA_BYTE_SEL2_SHIFT, EXTRA_DPP_CTRL_SRC, EXTRA_HEX16_PROBED,
    EXTRA_HEX16_SRC_SHIFT, EXTRA_LITK3_SHIFT, EXTRA_LITK_SHIFT, EXTRA_LIT_MIX, EXTRA_WIDE64_SHIFT,
    EXTRA_WIDE_SHIFT, IMG_A16, IMG_D16, IMG_DIM, IMG_DLC, IMG_DMASK, IMG_GLC, IMG_LWE, IMG_R128,
    IMG_SLC, IMG_TFE, IMG_UNORM, LIT_BF16LO, LIT_INT, LIT_V2BF16, LIT_V2F16, MOD_CLAMP, MOD_GDS,
    MOD_GLC, MOD_HEX16, MOD_LIT16, MOD_LITF16, MOD_NEG_HI, MOD_NEG_LO, MOD_OMOD, MOD_OPSEL,
    MOD_OPSEL_HI, MOD_OPSEL_HI_DEF1, WIDE_B32, WIDE_BF16, WIDE_F16, WIDE_F64,
};
use crate::isa::syntax::{
    self, bits, constant, dpp_ctrl_common, imm32_code, omod, range, signed_hex, sreg, u16_imm,
    with_mods, List, Ty, F16_INLINE, LIT_MARKED,
};
use crate::isa::{Format, Inst, Opnd, Target};
use core::fmt::Write as _;

/// The table entry an instruction was decoded from (looked up again from its words).
fn info(tb: &Tables, inst: &Inst) -> Option<RdnaInfo> {
    let w0 = inst.words[0];
    let (table, op) = match inst.format {
        Format::Sop2 => (tb.sop2, (w0 >> 23) & 0x7F),
        Format::Sopk => (tb.sopk, (w0 >> 23) & 0x1F),
        Format::Sop1 => (tb.sop1, (w0 >> 8) & 0xFF),
        Format::Sopc => (tb.sopc, (w0 >> 16) & 0x7F),
        Format::Sopp => (tb.sopp, (w0 >> 16) & 0x7F),
        Format::Smem if tb.gfx12 => (tb.smem, (w0 >> 13) & 0x3F),
        Format::Smem => (tb.smem, (w0 >> 18) & 0xFF),
        Format::Vop1 => (tb.vop1, (w0 >> 9) & 0xFF),
        Format::Vop2 => (tb.vop2, (w0 >> 25) & 0x3F),
        Format::Vopc => (tb.vopc, (w0 >> 17) & 0xFF),
        Format::Vop3 | Format::Vop3b => (tb.vop3, (w0 >> 16) & 0x3FF),
        Format::Vop3p => (tb.vop3p, (w0 >> 16) & 0x7F),
        Format::Vopd => (tb.vopdx, (w0 >> 22) & 0xF),
        Format::Ds => (tb.ds, (w0 >> 18) & 0xFF),
        Format::Flat | Format::Global | Format::Scratch if tb.gfx12 => {
            let table = match inst.format {
                Format::Flat => tb.flat,
                Format::Global => tb.global,
                _ => tb.scratch,
            };
            (table, (w0 >> 14) & 0xFF)
        }
        Format::Flat => (tb.flat, (w0 >> 18) & 0x7F),
        Format::Global => (tb.global, (w0 >> 18) & 0x7F),
        Format::Scratch => (tb.scratch, (w0 >> 18) & 0x7F),
        Format::Mubuf | Format::Mtbuf if tb.gfx12 => (tb.mubuf, (w0 >> 14) & 0xFF),
        Format::Mubuf => (tb.mubuf, (w0 >> 18) & 0xFF),
        Format::Mtbuf => (tb.mtbuf, (w0 >> 15) & 0xF),
        Format::Vinterp if w0 >> 24 == 0xCE => (tb.ldsdir, (w0 >> 20) & 3),
        Format::Vinterp => (tb.vinterp, (w0 >> 16) & 0x1F),
        Format::Exp => (tb.exp, 0),
        _ => return None,
    };
    table.get(op as usize).copied().flatten()
}

/// True if LLVM would print the literal `v` of an operand of type `ty` as `lit(...)`
/// (`f16`: a 16-bit operand whose literal follows the f16 inline-constant rule).
fn literal_is_inlinable(v: u32, ty: Ty, f16: bool) -> bool {
    let ty = match ty {
        Ty::I16 | Ty::F16 if f16 => Ty::F16,
        Ty::I16 | Ty::F16 => Ty::I16,
        t => t,
    };
    syntax::literal_is_inlinable(v, ty)
}

/// Writes any operand; `lit` is the instruction's literal, `ty` the operand's type.
fn opnd(out: &mut String, o: Opnd, lit: Option<u32>, ty: Ty) {
    let c = o.code;
    match c {
        0..=127 => sreg(out, c, o.count, false),
        255 => {
            let _ = write!(out, "0x{:x}", lit.unwrap_or(0));
        }
        LIT_MARKED => {
            let _ = write!(out, "lit(0x{:x})", lit.unwrap_or(0));
        }
        256..=511 => range(out, "v", (c - 256) as u32, o.count as u32),
        _ if constant(out, c, ty) => {}
        _ => {
            let _ = write!(out, "<opnd{c}>");
        }
    }
}

/// Writes a VGPR with its true16 half (`v1.l`, `v1.h`) when `t16`.
fn opnd16(out: &mut String, o: Opnd, lit: Option<u32>, ty: Ty, t16: bool, hi: bool) {
    opnd(out, o, lit, ty);
    if t16 && o.vreg().is_some() {
        out.push_str(if hi { ".h" } else { ".l" });
    }
}

/// One source operand: value, modifiers and true16 half.
#[derive(Clone, Copy)]
struct Src {
    o: Opnd,
    neg: bool,
    abs: bool,
    t16: bool,
    hi: bool,
    ty: Ty,
}

/// Writes a source with its `neg`/`abs` modifiers.
fn src_mod(out: &mut String, s: Src, lit: Option<u32>) {
    let imm = matches!(s.o.code, 128..=208 | 240..=248 | 255 | LIT_MARKED);
    with_mods(out, s.neg, s.abs, imm, |out| {
        opnd16(out, s.o, lit, s.ty, s.t16, s.hi)
    });
}

/// [`List`] of RDNA operands.
trait Operands {
    /// Writes `o` (if present) as the next operand, a register or inline constant.
    fn op(&mut self, o: Opnd);
}

impl Operands for List<'_> {
    fn op(&mut self, o: Opnd) {
        if o.is_some() {
            let s = self.sep();
            opnd(s, o, None, Ty::B32);
        }
    }
}

/// The literal type of an opcode's sources from its table flags and operand width.
fn lit_ty(info: &RdnaInfo, width: u8) -> Ty {
    if info.mods & MOD_LIT16 != 0 {
        if info.mods & MOD_HEX16 != 0 {
            Ty::I16
        } else {
            Ty::F16
        }
    } else if width >= 2 {
        Ty::B64
    } else {
        Ty::B32
    }
}

/// Prints `inst` as LLVM does. `pc` is the instruction's address (unused: LLVM prints
/// branch offsets, not targets).
pub fn print(target: &Target, inst: &Inst, pc: u64) -> String {
    let _ = pc;
    let tb = tables(target);
    let wave64 = target.wave_size == 64;
    let mut out = String::with_capacity(48);
    if inst.format == Format::Vopd {
        print_vopd(&mut out, tb, inst);
        return out;
    }
    if inst.format == Format::Mimg {
        print_image(&mut out, tb, inst);
        return out;
    }
    let Some(info) = info(tb, inst) else {
        return inst.op.name().to_string();
    };
    match inst.format {
        Format::Sop1 | Format::Sop2 | Format::Sopc => {
            out.push_str(info.mnemonic);
            print_salu(&mut out, tb, inst, &info)
        }
        Format::Sopk => print_sopk(&mut out, tb, inst, &info),
        Format::Sopp => print_sopp(&mut out, tb, inst, &info),
        Format::Smem => print_smem(&mut out, tb, inst, &info),
        Format::Vop1 | Format::Vop2 | Format::Vopc => print_vop(&mut out, tb, inst, &info, wave64),
        Format::Vop3 | Format::Vop3b => print_vop3(&mut out, tb, inst, &info, wave64),
        Format::Vop3p => print_vop3p(&mut out, tb, inst, &info, wave64),
        Format::Ds => print_ds(&mut out, inst, &info),
        Format::Flat | Format::Global | Format::Scratch => print_flat(&mut out, tb, inst, &info),
        Format::Mubuf | Format::Mtbuf => print_buffer(&mut out, tb, inst, &info),
        Format::Vinterp => print_vinterp(&mut out, inst, &info),
        Format::Exp => print_exp(&mut out, tb, inst, &info),
        _ => out.push_str(info.mnemonic),
    }
    out
}

/// A VALU source's literal as LLVM 22 prints it, and the operand code (`lit(...)` marked or
/// not): a 16-bit operand uses the literal's low half, but a low half that is an inline
/// value is marked and printed with the whole dword (`lit(0x12343c00)` for `v_add_f16` with
/// literal 0x12343C00; llvm-mc-22, gfx1100 and gfx1200). A 16-bit integer operand (no
/// f16 literal rule) is marked when the whole dword is a 32-bit inline value instead
/// (`v_max_u16 v2.l, lit(0x3e22f983), ...`, `lit(0xfffffff0)`, but `0x40` for 0x12340040).
fn valu_lit(o: Opnd, lit: Option<u32>, ty: Ty, mods: u32) -> (Opnd, Option<u32>) {
    match ty {
        Ty::I16 if mods & MOD_LITF16 == 0 => {
            let o = mark(o, lit, Ty::B32, mods);
            let shown = if o.code == LIT_MARKED {
                lit
            } else {
                lit.map(|v| v & 0xFFFF)
            };
            (o, shown)
        }
        Ty::F16 | Ty::I16 => {
            let o = mark(o, lit.map(|v| v & 0xFFFF), ty, mods);
            let shown = if o.code == LIT_MARKED {
                lit
            } else {
                lit.map(|v| v & 0xFFFF)
            };
            (o, shown)
        }
        _ => (mark(o, lit, ty, mods), lit),
    }
}

/// Whether LLVM 22 marks literal `v` in 32-bit source `i` of a VOP3P opcode `lit(...)`:
/// the generated per-source rule (`EXTRA_LITK`: an f32, packed f16, packed bf16 or integer
/// operand), or `EXTRA_LIT_MIX` (`v_fma_mix*`: f32 or f16 constants).
fn vop3p_lit_marked(v: u32, info: &RdnaInfo, i: usize) -> bool {
    let int = syntax::literal_is_inlinable(v, Ty::B64);
    let f32c = syntax::literal_is_inlinable(v, Ty::B32);
    let f16c = v >> 16 == 0 && F16_INLINE.contains(&(v as u16));
    if info.extra & EXTRA_LIT_MIX != 0 {
        return f32c || f16c;
    }
    match (info.extra >> (EXTRA_LITK_SHIFT + 2 * i as u32)) & 3 {
        LIT_V2F16 => int || f16c,
        LIT_V2BF16 => int || v >> 16 == 0 && BF16_INLINE.contains(&(v as u16)),
        LIT_INT => int,
        _ => f32c,
    }
}

/// bf16 bit patterns of the float inline constants (0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0,
/// -4.0, 1/(2*pi)): LLVM marks a bf16 literal whose low half is one of them.
const BF16_INLINE: [u16; 9] = [
    0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22,
];

/// The high dwords of the f64 float inline constants and their text (a 64-bit literal is the
/// high dword of its value).
const F64_HI_INLINE: [(u32, &str); 9] = [
    (0, "0"),
    (0x3FE0_0000, "0.5"),
    (0xBFE0_0000, "-0.5"),
    (0x3FF0_0000, "1.0"),
    (0xBFF0_0000, "-1.0"),
    (0x4000_0000, "2.0"),
    (0xC000_0000, "-2.0"),
    (0x4010_0000, "4.0"),
    (0xC010_0000, "-4.0"),
];

/// A constant or literal in a VOP3P source of several VGPRs (WMMA's C), shown as LLVM does
/// for the generated `WIDE_*` kind of the opcode and wave size.
fn wide_constant(out: &mut String, o: Opnd, lit: Option<u32>, kind: u32) {
    let v = lit.unwrap_or(0);
    let lo = v as u16;
    let int16 = (-16..=64).contains(&(lo as i16));
    let text = match kind {
        _ if o.code != Opnd::LITERAL => {
            let ty = if kind == WIDE_F64 { Ty::B64 } else { Ty::B32 };
            opnd(out, o, lit, ty);
            return;
        }
        WIDE_F16 if int16 || syntax::F16_INLINE.contains(&lo) => format!("lit(0x{v:x})"),
        WIDE_F16 => format!("0x{lo:x}"),
        WIDE_BF16 if int16 || BF16_INLINE.contains(&lo) => format!("lit(0x{v:x})"),
        WIDE_F64 => match F64_HI_INLINE.iter().find(|e| e.0 == v) {
            Some(e) => e.1.to_string(),
            None => format!("0x{v:x}"),
        },
        WIDE_B32 if literal_is_inlinable(v, Ty::B32, false) => format!("lit(0x{v:x})"),
        _ => format!("0x{v:x}"),
    };
    out.push_str(&text);
}

/// The literal operand code LLVM shows for `o` of an opcode with table flags `mods`
/// (marks inlinable literals `lit(...)`).
fn mark(o: Opnd, lit: Option<u32>, ty: Ty, mods: u32) -> Opnd {
    match lit {
        Some(v)
            if o.code == Opnd::LITERAL && literal_is_inlinable(v, ty, mods & MOD_LITF16 != 0) =>
        {
            Opnd {
                code: LIT_MARKED,
                count: o.count,
            }
        }
        _ => o,
    }
}

fn print_salu(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    let lit = inst.literal;
    let mut l = List::new(out);
    l.op(inst.dst[0]);
    for &o in inst.src.iter().take(3) {
        if !o.is_some() {
            continue;
        }
        let s = l.sep();
        if info.class & (CLASS_MADMK | CLASS_MADAK) != 0 && o.code == Opnd::LITERAL {
            // `s_fmamk_f32`/`s_fmaak_f32`: K (and a literal source) printed in full.
            let _ = write!(s, "0x{:x}", lit.unwrap_or(0));
            continue;
        }
        let ty = lit_ty(info, o.count);
        // A 16-bit operand shows the literal's low half; LLVM 22 marks it `lit(...)` only
        // when the high half is zero (`s_cmp_lt_f16 0x40, 49` for literal 0x12340040).
        let (lit, high) = if matches!(ty, Ty::I16 | Ty::F16) {
            (lit.map(|v| v & 0xFFFF), lit.is_some_and(|v| v >> 16 != 0))
        } else {
            (lit, false)
        };
        let o = if high { o } else { mark(o, lit, ty, info.mods) };
        opnd(s, o, lit, ty);
    }
    if info.mnemonic.starts_with("s_sendmsg_rtn") {
        sendmsg(l.sep(), tb, inst.imm as u32 & 0xFF, true);
    }
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
        Ty::B32,
    );
}

fn hwreg(out: &mut String, tb: &Tables, v: u32) {
    let id = v & 0x3F;
    let offset = (v >> 6) & 0x1F;
    let size = ((v >> 11) & 0x1F) + 1;
    let names = if tb.gfx12 {
        &t::GFX1200_HWREG
    } else {
        &t::GFX1100_HWREG
    };
    let name = names[id as usize];
    out.push_str("hwreg(");
    if name.is_empty() {
        let _ = write!(out, "{id}");
    } else {
        out.push_str(name);
    }
    if offset != 0 || size != 32 {
        let _ = write!(out, ", {offset}, {size}");
    }
    out.push(')');
}

fn sendmsg(out: &mut String, tb: &Tables, v: u32, rtn: bool) {
    let names = if tb.gfx12 {
        &t::GFX1200_SENDMSG
    } else {
        &t::GFX1100_SENDMSG
    };
    let id = v & 0xFF;
    let name = names[id as usize];
    let _ = rtn;
    // LLVM 22 names a known message whatever the bits above [7:0]; an unknown one is
    // `sendmsg(id, 0, 0)` if those bits are clear, else the raw number.
    if name.is_empty() && v >> 8 != 0 {
        let _ = write!(out, "{v}");
    } else if name.is_empty() {
        let _ = write!(out, "sendmsg({id}, 0, 0)");
    } else {
        let _ = write!(out, "sendmsg({name})");
    }
}

/// `s_version`'s operand as LLVM 22 prints it: with any of bits [12:8] set the plain
/// number, else the version code (named where LLVM knows it) OR-ed with the W64, W32 and MDP
/// flag names in that order, each OR nested in parentheses (`(77|UC_VERSION_W64_BIT)|...`).
fn version(out: &mut String, v: u32) {
    if v & 0x1F00 != 0 {
        let _ = write!(out, "0x{v:x}");
        return;
    }
    let mut expr = match v & 0xFF {
        0 => "UC_VERSION_GFX7".to_string(),
        4 => "UC_VERSION_GFX10".to_string(),
        6 => "UC_VERSION_GFX11".to_string(),
        9 => "UC_VERSION_GFX12".to_string(),
        code => code.to_string(),
    };
    let flags = [
        (13, "UC_VERSION_W64_BIT"),
        (14, "UC_VERSION_W32_BIT"),
        (15, "UC_VERSION_MDP_BIT"),
    ];
    let mut nested = false;
    for (bit, name) in flags {
        if v >> bit & 1 == 1 {
            if nested {
                expr = format!("({expr})");
            }
            expr.push('|');
            expr.push_str(name);
            nested = true;
        }
    }
    out.push_str(&expr);
}

fn print_sopk(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    let simm = (inst.imm as u32) & 0xFFFF;
    let m = info.mnemonic;
    out.push_str(m);
    let reg = if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[0]
    };
    if m == "s_setreg_imm32_b32" {
        out.push(' ');
        hwreg(out, tb, simm);
        out.push_str(", ");
        imm32(out, inst.literal.unwrap_or(0));
    } else if m.starts_with("s_setreg") {
        out.push(' ');
        hwreg(out, tb, simm);
        out.push_str(", ");
        opnd(out, reg, None, Ty::B32);
    } else if m == "s_version" {
        out.push(' ');
        version(out, simm);
    } else if m.starts_with("s_getreg") {
        out.push(' ');
        opnd(out, reg, None, Ty::B32);
        out.push_str(", ");
        hwreg(out, tb, simm);
    } else {
        let mut l = List::new(out);
        l.op(reg);
        let s = l.sep();
        if m.starts_with("s_call") || m.starts_with("s_subvector") {
            let _ = write!(s, "{simm}");
        } else {
            let _ = write!(s, "0x{simm:x}");
        }
    }
}

/// `s_delay_alu` operand names.
const INSTID: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
const INSTSKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

/// `s_delay_alu`'s fields as LLVM 22 prints them: bits [15:11] are ignored, and a field
/// value without a name prints as `/* invalid ... value */` inside its parentheses.
fn delay_alu(out: &mut String, v: u32) {
    let id0 = v & 0xF;
    let skip = (v >> 4) & 7;
    let id1 = (v >> 7) & 0xF;
    const BAD_ID: &str = "/* invalid instid value */";
    let id = |i: u32| INSTID.get(i as usize).copied().unwrap_or(BAD_ID);
    let mut parts = 0;
    let mut part = |out: &mut String, s: &str, val: &str| {
        if parts > 0 {
            out.push_str(" | ");
        }
        let _ = write!(out, "{s}({val})");
        parts += 1;
    };
    if id0 != 0 {
        part(out, "instid0", id(id0));
    }
    if skip != 0 {
        let name = INSTSKIP.get(skip as usize).copied();
        part(
            out,
            "instskip",
            name.unwrap_or("/* invalid instskip value */"),
        );
    }
    if id1 != 0 {
        part(out, "instid1", id(id1));
    }
    if parts == 0 {
        out.push('0');
    }
}

/// `s_waitcnt_depctr` / `s_wait_alu` fields: (name, shift, bits).
const DEPCTR: [(&str, u32, u32); 7] = [
    ("depctr_hold_cnt", 7, 1),
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

fn depctr(out: &mut String, v: u32) {
    let covered: u32 = DEPCTR.iter().map(|&(_, s, b)| ((1 << b) - 1) << s).sum();
    if v & !covered & 0xFFFF != 0 {
        let _ = write!(out, "0x{v:x}");
        return;
    }
    let mut first = true;
    for &(name, shift, bits) in &DEPCTR {
        let max = (1 << bits) - 1;
        let f = (v >> shift) & max;
        if f != max {
            if !first {
                out.push(' ');
            }
            let _ = write!(out, "{name}({f})");
            first = false;
        }
    }
    if first {
        out.push_str("depctr_hold_cnt(1) depctr_sa_sdst(1) depctr_va_vdst(15) depctr_va_sdst(7) depctr_va_ssrc(1) depctr_va_vcc(1) depctr_vm_vsrc(7)");
    }
}

fn print_sopp(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    let simm = (inst.imm as u32) & 0xFFFF;
    let m = info.mnemonic;
    out.push_str(m);
    if info.widths[0] == 0 {
        // No operand printed (`s_endpgm_saved`, `s_code_end`, ...).
        return;
    }
    match m {
        "s_waitcnt" => {
            let exp = simm & 7;
            let lgkm = (simm >> 4) & 0x3F;
            let vm = (simm >> 10) & 0x3F;
            let mut parts = Vec::new();
            if vm != 63 {
                parts.push(format!("vmcnt({vm})"));
            }
            if exp != 7 {
                parts.push(format!("expcnt({exp})"));
            }
            if lgkm != 63 {
                parts.push(format!("lgkmcnt({lgkm})"));
            }
            if parts.is_empty() {
                out.push_str(" vmcnt(63) expcnt(7) lgkmcnt(63)");
            } else {
                out.push(' ');
                out.push_str(&parts.join(" "));
            }
        }
        "s_delay_alu" => {
            out.push(' ');
            delay_alu(out, simm);
        }
        "s_waitcnt_depctr" | "s_wait_alu" => {
            out.push(' ');
            depctr(out, simm);
        }
        "s_endpgm" | "s_wakeup" | "s_barrier" | "s_icache_inv" | "s_ttracedata" => {
            if simm != 0 {
                let _ = write!(out, " {simm}");
            }
        }
        "s_sendmsg" | "s_sendmsghalt" => {
            out.push(' ');
            sendmsg(out, tb, simm, false);
        }
        _ if m.starts_with("s_cbranch") || m == "s_branch" => {
            // LLVM's disassembler prints the raw 16-bit offset field.
            let _ = write!(out, " {simm}");
        }
        "s_nop" | "s_setkill" | "s_sethalt" | "s_sleep" | "s_trap" | "s_setprio"
        | "s_incperflevel" | "s_decperflevel" | "s_denorm_mode" | "s_barrier_wait" => {
            out.push(' ');
            u16_imm(out, simm);
        }
        _ => {
            let _ = write!(out, " 0x{simm:x}");
        }
    }
}

/// GFX12 cache policy (`scale_offset`, `th:`, `scope:`, `nv`) of a load, store or atomic.
fn cpol12(out: &mut String, cpol: u8, store: bool, atomic: bool) {
    if cpol & 0x40 != 0 {
        out.push_str(" scale_offset");
    }
    let th = cpol & 7;
    let scope = (cpol >> 3) & 3;
    let sys = scope == 3;
    if th != 0 {
        out.push_str(" th:");
        let name = if atomic {
            match th {
                1 => "TH_ATOMIC_RETURN",
                2 => "TH_ATOMIC_NT",
                3 => "TH_ATOMIC_NT_RETURN",
                4 | 5 if scope >= 2 => "TH_ATOMIC_CASCADE_RT",
                6 | 7 if scope >= 2 => "TH_ATOMIC_CASCADE_NT",
                _ => "",
            }
        } else if store {
            match th {
                1 => "TH_STORE_NT",
                2 => "TH_STORE_HT",
                3 if sys => "TH_STORE_BYPASS",
                3 => "TH_STORE_WB",
                4 => "TH_STORE_NT_RT",
                5 => "TH_STORE_RT_NT",
                6 => "TH_STORE_NT_HT",
                _ => "TH_STORE_NT_WB",
            }
        } else {
            match th {
                1 => "TH_LOAD_NT",
                2 => "TH_LOAD_HT",
                3 if sys => "TH_LOAD_BYPASS",
                3 => "TH_LOAD_LU",
                4 => "TH_LOAD_NT_RT",
                5 => "TH_LOAD_RT_NT",
                6 => "TH_LOAD_NT_HT",
                _ => "",
            }
        };
        if name.is_empty() {
            if atomic {
                out.push_str("TH_ATOMIC_");
            }
            let _ = write!(out, "0x{th:x}");
        } else {
            out.push_str(name);
        }
    }
    if scope != 0 {
        let _ = write!(
            out,
            " scope:{}",
            ["SCOPE_CU", "SCOPE_SE", "SCOPE_DEV", "SCOPE_SYS"][scope as usize]
        );
    }
    if cpol & 0x20 != 0 {
        out.push_str(" nv");
    }
}

fn print_smem(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    let m = info.mnemonic;
    out.push_str(m);
    let data = if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[1]
    };
    let mut l = List::new(out);
    if m == "s_atc_probe" || m == "s_atc_probe_buffer" {
        u16_imm(l.sep(), (inst.words[0] >> 6) & 0x7F);
    } else if !m.starts_with("s_prefetch") && !m.starts_with("s_buffer_prefetch") {
        l.op(data);
    }
    if m.starts_with("s_prefetch") || m.starts_with("s_buffer_prefetch") {
        // `s_prefetch_data s[2:3], 0x10, s9, 8`: base, offset, soffset (or null), length.
        if info.widths[1] != 0 {
            l.op(inst.src[0]);
        }
        signed_hex(l.sep(), inst.mem.offset);
        let s = l.sep();
        if inst.src[2].is_some() {
            opnd(s, inst.src[2], None, Ty::B32);
        } else {
            s.push_str("null");
        }
        let _ = write!(l.sep(), "{}", (inst.words[0] >> 6) & 0x7F);
        return;
    }
    if info.widths[1] != 0 {
        l.op(inst.src[0]);
        let s = l.sep();
        if inst.src[2].is_some() {
            opnd(s, inst.src[2], None, Ty::B32);
            if inst.mem.offset != 0 {
                s.push_str(" offset:");
                signed_hex(s, inst.mem.offset);
            }
        } else if inst.mem.offset == 0 && !tb.gfx12 {
            // GFX11 shows a zero offset without SOFFSET as the `null` SOFFSET.
            s.push_str("null");
        } else {
            signed_hex(s, inst.mem.offset);
        }
    }
    if (info.widths[0] == 0 && info.widths[1] == 0) || m.starts_with("s_atc_probe") {
        // Cache invalidations and probes print no cache policy.
    } else if tb.gfx12 {
        cpol12(out, inst.mem.cpol, false, false);
    } else {
        if inst.mem.glc && info.mods & MOD_GLC != 0 {
            out.push_str(" glc");
        }
        if inst.mem.dlc {
            out.push_str(" dlc");
        }
    }
}

fn dpp_ctrl(out: &mut String, tb: &Tables, c: u16) {
    if let Some(note) = super::dpp_note(tb, c) {
        // A GFX9 control (`wave_shl`, `row_bcast`): LLVM prints only why it is not one.
        let _ = write!(out, " /* {note} */");
        return;
    }
    let c = c as u32;
    if dpp_ctrl_common(out, c) {
        return;
    }
    match c {
        0x150..=0x15F => {
            let _ = write!(out, " row_share:{}", c & 0xF);
        }
        0x160..=0x16F => {
            let _ = write!(out, " row_xmask:{}", c & 0xF);
        }
        _ => out.push_str(" /* Invalid dpp_ctrl value */"),
    }
}

/// DPP16/DPP8 controls after the operands.
fn print_dpp(out: &mut String, tb: &Tables, inst: &Inst) {
    print_dpp_as(out, tb, inst, false);
}

/// [`print_dpp`]; `ctrl_src`: the opcode's DPP16 control is shown as LLVM 22 reads it for
/// the generated `EXTRA_DPP_CTRL_SRC` opcodes, as a source code (128..=192: the integer).
fn print_dpp_as(out: &mut String, tb: &Tables, inst: &Inst, ctrl_src: bool) {
    if let Some(d) = inst.dpp {
        let ctrl = match d.ctrl {
            0x80..=0xC0 if ctrl_src => d.ctrl - 0x80,
            c => c,
        };
        dpp_ctrl(out, tb, ctrl);
        let _ = write!(
            out,
            " row_mask:0x{:x} bank_mask:0x{:x}",
            d.row_mask, d.bank_mask
        );
        if d.bound_ctrl {
            out.push_str(" bound_ctrl:1");
        }
        if d.fi {
            out.push_str(" fi:1");
        }
    } else if let Some(sel) = inst.dpp8 {
        out.push_str(" dpp8:[");
        for (i, s) in sel.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{s}");
        }
        out.push(']');
        if inst.mods.op_sel_hi & 0x80 != 0 {
            out.push_str(" fi:1");
        }
    }
}

/// Source `i` of a VALU instruction with the table's slot `slot`.
fn vsrc(inst: &Inst, info: &RdnaInfo, i: usize, slot: usize) -> Src {
    let m = info.mods >> 10;
    let mut s = Src {
        o: inst.src[i],
        neg: inst.mods.neg >> i & 1 == 1 && (m >> 3 >> i) & 1 == 1,
        abs: inst.mods.abs >> i & 1 == 1 && (m >> i) & 1 == 1,
        t16: info.kinds[slot] == 3,
        hi: inst.mods.op_sel >> i & 1 == 1,
        // A 16-bit source of an opcode with 32-bit sources (`v_alignbyte_b32`'s third).
        ty: if info.kinds[slot] == 3 && info.mods & MOD_LIT16 == 0 {
            Ty::I16
        } else if info.kinds[slot] == 0
            && inst.src[i].count == 1
            && info.mods & MOD_LIT16 != 0
            && info.kinds[1..].contains(&3)
        {
            // A 32-bit source of a true16 opcode with 16-bit ones (`v_mad_u32_u16`'s third).
            Ty::B32
        } else {
            lit_ty(info, inst.src[i].count)
        },
    };
    // A VOP3 16-bit source shows f16 constants as LLVM does there (generated per source:
    // `v_dot2_f16_f16 v2.l, 0x3c00, v8, 1.0`).
    if matches!(inst.format, Format::Vop3 | Format::Vop3b)
        && info.extra & EXTRA_HEX16_PROBED != 0
        && matches!(s.ty, Ty::I16 | Ty::F16)
    {
        s.ty = if info.extra >> (EXTRA_HEX16_SRC_SHIFT + i as u32) & 1 == 1 {
            Ty::I16
        } else {
            Ty::F16
        };
    }
    s
}

fn print_vop(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo, wave64: bool) {
    let gfx12 = tb.gfx12;
    let base = info.mnemonic;
    let stem = base.strip_suffix("_e32").unwrap_or(base);
    if inst.format == Format::Vopc && (inst.dpp.is_some() || inst.dpp8.is_some()) {
        // VOPC DPP prints the bare mnemonic.
        out.push_str(stem);
    } else if inst.dpp.is_some() || inst.dpp8.is_some() {
        let _ = write!(out, "{stem}_dpp");
    } else {
        out.push_str(base);
    }
    let k = if info.class & CLASS_MADMK != 0 {
        1
    } else if info.class & CLASS_MADAK != 0 {
        2
    } else {
        9
    };
    let vcc = Opnd::scalar(VCC as u8, if wave64 { 2 } else { 1 });
    // gfx12 `v_cndmask_b32_dpp` with `abs` on src1 (src0 may have it too): LLVM 22 closes
    // the bars after the implicit VCC (`|v1, vcc_lo|`).
    let m = info.mods >> 10;
    let quirk = gfx12
        && inst.dpp.is_some()
        && matches!(inst.src[2].code, VCC | EXEC)
        && k != 2
        && inst.mods.abs & 2 != 0
        && m & 2 != 0;
    let mut l = List::new(out);
    let s0slot = if inst.format == Format::Vopc { 0 } else { 1 };
    if inst.format == Format::Vopc {
        if !base.starts_with("v_cmpx") {
            l.op(vcc);
        }
    } else if info.widths[0] != 0 {
        let s = l.sep();
        let t16 = info.kinds[0] == 3;
        opnd16(
            s,
            inst.dst[0],
            None,
            Ty::B32,
            t16,
            inst.mods.op_sel >> 3 & 1 == 1,
        );
        if inst.dst[1].is_some() {
            l.op(inst.dst[1]);
        }
    }
    for i in 0..3 {
        let o = inst.src[i];
        if !o.is_some() {
            continue;
        }
        if i == 2 && (o.code == VCC || o.code == EXEC) && k != 2 {
            l.op(o);
            if quirk {
                // LLVM closes src1's `|` after the implicit VCC (`|v1, vcc_lo|`).
                l.out.push('|');
            }
            continue;
        }
        let s = l.sep();
        if i == k {
            // The K constant: printed in full.
            let _ = write!(s, "0x{:x}", inst.literal.unwrap_or(0));
            continue;
        }
        let slot = if i == 0 { s0slot } else { s0slot + 1 };
        let mut src = vsrc(inst, info, i, slot.min(3));
        let vcc_in = quirk && i == 1;
        if i == 2 {
            // `fmamk`'s third source is the VSRC1 field.
            src.t16 = k == 1 && info.kinds[2] == 3;
            src.hi = k == 1 && inst.mods.op_sel & 2 != 0;
        }
        let (mut o, lit) = valu_lit(src.o, inst.literal, src.ty, info.mods);
        let rule = info.extra >> EXTRA_LITK_SHIFT & 3;
        if i == 0 && rule != 0 && src.o.code == Opnd::LITERAL {
            // SRC0 with a packed or integer literal rule (generated `EXTRA_LITK`:
            // `v_pk_fmac_f16 v2, 0x3f800000, v8` but `lit(0x40)`).
            o.code = if inst.literal.is_some_and(|v| vop3p_lit_marked(v, info, 0)) {
                LIT_MARKED
            } else {
                Opnd::LITERAL
            };
        }
        src.o = o;
        if vcc_in && src.abs {
            // `|v1, vcc_lo|`: the closing bar comes after the implicit VCC.
            if src.neg {
                s.push('-');
            }
            s.push('|');
            opnd16(s, src.o, lit, src.ty, src.t16, src.hi);
            continue;
        }
        src_mod(s, src, lit);
    }
    print_dpp(out, tb, inst);
}

fn print_vop3(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo, wave64: bool) {
    let base = info.mnemonic;
    let dpp = inst.dpp.is_some() || inst.dpp8.is_some();
    out.push_str(base);
    if dpp {
        out.push_str(if base.ends_with("_e64") {
            "_dpp"
        } else {
            "_e64_dpp"
        });
    }
    let nsrc = super::vop3_nsrc(info);
    let sgpr_dst = info.kinds[0] == 1;
    let fake16 = super::vop3_fake16(inst, info);
    {
        let mut l = List::new(out);
        if inst.dst[0].is_some() {
            let s = l.sep();
            let t = info.kinds[0] == 3 && !fake16;
            opnd16(
                s,
                inst.dst[0],
                None,
                Ty::B32,
                t,
                inst.mods.op_sel >> 3 & 1 == 1,
            );
        }
        if inst.format == Format::Vop3b {
            let d = inst.dst[1];
            l.op(Opnd {
                code: d.code,
                count: if wave64 { 2 } else { 1 },
            });
        }
        for i in 0..3 {
            if !inst.src[i].is_some() {
                continue;
            }
            let s = l.sep();
            let mut src = vsrc(inst, info, i, i + 1);
            if inst.format == Format::Vop3b {
                src.abs = false;
                src.hi = false;
            }
            if fake16 {
                src.t16 = false;
            }
            if i > 0
                && matches!(src.o.code, 128..=255)
                && dpp_raw(tb, inst, (inst.words[0] >> 16) & 0x3FF, i as u8)
            {
                // LLVM 22 shows a constant src1 of `v_fmac_*_e64_dpp` as its raw field (inside
                // its modifiers; generated `dpp_raw`).
                let (neg, bar) = (
                    if src.neg { "-" } else { "" },
                    if src.abs { "|" } else { "" },
                );
                let _ = write!(s, "{neg}{bar}0x{:x}{bar}", src.o.code);
                continue;
            }
            let packed = info.extra >> (EXTRA_LITK3_SHIFT + 2 * i as u32) & 3;
            let (o, lit) = if packed == LIT_BF16LO && src.o.code == Opnd::LITERAL {
                // A 16-bit bf16 source (generated `LIT_BF16LO`): the whole dword, marked when
                // its low half is an integer or a bf16 constant (`v_dot2_bf16_bf16 ...,
                // lit(0x12343f80)` but `0x3e22f983`).
                let mut o = src.o;
                let lo = inst.literal.unwrap_or(0) as u16;
                if (-16..=64).contains(&(lo as i16)) || BF16_INLINE.contains(&lo) {
                    o.code = LIT_MARKED;
                }
                (o, inst.literal)
            } else if packed != 0 && src.o.code == Opnd::LITERAL {
                // A packed source (generated `EXTRA_LITK3`): the whole dword, marked by the
                // packed rule (`v_dot2_f16_f16 v2.l, lit(0x3c00), ...`), in a DPP form by the
                // f32 rule too (checked by the generator).
                let f = |v: u32| {
                    let c = v as u16;
                    dpp && syntax::literal_is_inlinable(v, Ty::B32)
                        || syntax::literal_is_inlinable(v, Ty::B64)
                        || v >> 16 == 0
                            && if packed == LIT_V2BF16 {
                                BF16_INLINE.contains(&c)
                            } else {
                                F16_INLINE.contains(&c)
                            }
                };
                let mut o = src.o;
                if inst.literal.is_some_and(f) {
                    o.code = LIT_MARKED;
                }
                (o, inst.literal)
            } else {
                valu_lit(src.o, inst.literal, src.ty, info.mods)
            };
            src.o = o;
            src_mod(s, src, lit);
        }
    }
    if inst.format != Format::Vop3b
        && !fake16
        && inst.mods.op_sel != 0
        && info.mods & MOD_OPSEL != 0
    {
        // op_sel lists the sources, then the destination (not for the SGPR destination of
        // a VOPC DPP form).
        let mut n = nsrc + (inst.dst[0].is_some() && !(dpp && sgpr_dst)) as usize;
        if base.starts_with("v_permlane") {
            // `v_permlane16_b32`/`v_permlanex16_b32`: op_sel is [FI, BOUND_CTRL].
            n = 2;
        }
        let v = (inst.mods.op_sel & ((1 << nsrc) - 1)) | ((inst.mods.op_sel >> 3 & 1) << nsrc);
        bits(out, "op_sel", v, n);
    }
    if inst.mods.clamp && info.mods & MOD_CLAMP != 0 {
        out.push_str(" clamp");
    }
    if info.mods & MOD_OMOD != 0 {
        omod(out, inst.mods.omod);
    }
    // `byte_sel:N` (gfx12 FP8 converts): the generated OP_SEL bits that make up N.
    let opsel = u32::from(inst.mods.op_sel);
    let byte_sel = u32::from(opsel & (info.extra >> EXTRA_BYTE_SEL1_SHIFT) & 0xF != 0)
        | u32::from(opsel & (info.extra >> EXTRA_BYTE_SEL2_SHIFT) & 0xF != 0) << 1;
    if byte_sel != 0 {
        let _ = write!(out, " byte_sel:{byte_sel}");
    }
    print_dpp_as(out, tb, inst, info.extra & EXTRA_DPP_CTRL_SRC != 0);
}

fn print_vop3p(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo, wave64: bool) {
    let nsrc = (0..3).filter(|&i| info.widths[i + 1] != 0).count();
    let wide = (info.extra
        >> if wave64 {
            EXTRA_WIDE64_SHIFT
        } else {
            EXTRA_WIDE_SHIFT
        })
        & 7;
    let mix = info.mnemonic.starts_with("v_fma_mix");
    out.push_str(info.mnemonic);
    if inst.dpp.is_some() || inst.dpp8.is_some() {
        out.push_str("_e64_dpp");
    }
    {
        let mut l = List::new(out);
        l.op(inst.dst[0]);
        for i in 0..3 {
            if !inst.src[i].is_some() {
                continue;
            }
            let s = l.sep();
            if wide != 0 && inst.src[i].count >= 2 && inst.src[i].vreg().is_none() {
                wide_constant(s, inst.src[i], inst.literal, wide);
                continue;
            }
            let ty = lit_ty(info, inst.src[i].count);
            let (o, lit) = if info.mods & MOD_LIT16 == 0 && inst.src[i].count == 1 {
                // The whole dword, marked by the source's generated rule (in a DPP form by
                // the f32 rule too: checked by the generator).
                let mut o = inst.src[i];
                let dpp = inst.dpp.is_some() || inst.dpp8.is_some();
                if o.code == Opnd::LITERAL
                    && inst.literal.is_some_and(|v| {
                        vop3p_lit_marked(v, info, i)
                            || dpp && syntax::literal_is_inlinable(v, Ty::B32)
                    })
                {
                    o.code = LIT_MARKED;
                }
                (o, inst.literal)
            } else {
                valu_lit(inst.src[i], inst.literal, ty, info.mods)
            };
            let src = Src {
                o,
                neg: mix && inst.mods.neg >> i & 1 == 1,
                abs: mix && inst.mods.neg_hi >> i & 1 == 1,
                t16: false,
                hi: false,
                ty,
            };
            src_mod(s, src, lit);
        }
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
    print_dpp_as(out, tb, inst, info.extra & EXTRA_DPP_CTRL_SRC != 0);
}

fn print_vopd(out: &mut String, tb: &Tables, inst: &Inst) {
    let x = tb.vopdx.get(((inst.words[0] >> 22) & 0xF) as usize);
    let y = tb.vopdy.get((inst.imm & 0x1F) as usize);
    let (Some(Some(x)), Some(Some(y))) = (x, y) else {
        out.push_str(inst.op.name());
        return;
    };
    let half = |out: &mut String, info: &RdnaInfo, d: Opnd, s0: Opnd, s1: Opnd| {
        out.push_str(info.mnemonic);
        let mut l = List::new(out);
        l.op(d);
        let s = l.sep();
        let mut s0 = mark(s0, inst.literal, Ty::B32, info.mods);
        if info.extra >> EXTRA_LITK_SHIFT & 3 != 0 && matches!(s0.code, Opnd::LITERAL | LIT_MARKED)
        {
            // SRC0 with a packed or integer literal rule (generated `EXTRA_LITK`:
            // `v_dual_dot2acc_f32_f16 v2, lit(0x3c00), v8`).
            s0.code = if inst.literal.is_some_and(|v| vop3p_lit_marked(v, info, 0)) {
                LIT_MARKED
            } else {
                Opnd::LITERAL
            };
        }
        opnd(s, s0, inst.literal, Ty::B32);
        let lit = inst.literal.unwrap_or(0);
        if info.class & CLASS_MADMK != 0 {
            let _ = write!(l.sep(), "0x{lit:x}");
        }
        if info.widths[2] != 0 {
            l.op(s1);
        }
        if info.class & CLASS_MADAK != 0 {
            let _ = write!(l.sep(), "0x{lit:x}");
        }
    };
    half(out, x, inst.dst[0], inst.src[0], inst.src[1]);
    out.push_str(" :: ");
    half(out, y, inst.dst[1], inst.src[2], inst.src[3]);
}

fn print_ds(out: &mut String, inst: &Inst, info: &RdnaInfo) {
    out.push_str(info.mnemonic);
    {
        let mut l = List::new(out);
        l.op(inst.dst[0]);
        l.op(inst.src[0]);
        l.op(inst.src[1]);
        l.op(inst.src[2]);
    }
    let o0 = inst.mem.offset as u32;
    let o1 = inst.mem.offset1 as u32;
    if info.mnemonic == "ds_swizzle_b32" {
        swizzle(out, o0);
    } else if info.class & CLASS_TWO_OFFSETS != 0 {
        if o0 != 0 {
            let _ = write!(out, " offset0:{o0}");
        }
        if o1 != 0 {
            let _ = write!(out, " offset1:{o1}");
        }
    } else if o0 != 0 {
        let _ = write!(out, " offset:{o0}");
    }
    if inst.mem.gds && info.mods & MOD_GDS != 0 {
        out.push_str(" gds");
    }
}

fn print_flat(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    out.push_str(info.mnemonic);
    if info.widths == [0; 4] {
        // `global_inv`, `global_wb`, `global_wbinv`: no operands, a scope on GFX12.
        if tb.gfx12 {
            cpol12(out, inst.mem.cpol, false, false);
        }
        return;
    }
    let atomic = info.class & CLASS_ATOMIC != 0;
    let store = info.class & crate::isa::generated::CLASS_STORE != 0;
    {
        let mut l = List::new(out);
        // Loads' and returning atomics' destination.
        l.op(inst.dst[0]);
        if inst.src[0].is_some() {
            l.op(inst.src[0]);
        } else if info.widths[1] != 0 || inst.format == Format::Scratch {
            l.sep().push_str("off");
        }
        l.op(inst.src[1]);
        if inst.format != Format::Flat {
            if inst.src[2].is_some() {
                l.op(inst.src[2]);
            } else {
                l.sep().push_str("off");
            }
        }
    }
    if inst.mem.offset != 0 {
        let _ = write!(out, " offset:{}", inst.mem.offset);
    }
    if tb.gfx12 {
        cpol12(out, inst.mem.cpol, store, atomic);
    } else {
        if inst.mem.glc {
            out.push_str(" glc");
        }
        if inst.mem.slc {
            out.push_str(" slc");
        }
        if inst.mem.dlc {
            out.push_str(" dlc");
        }
    }
}

fn print_buffer(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    out.push_str(info.mnemonic);
    if info.widths == [0; 4] {
        // `buffer_gl0_inv`, `buffer_gl1_inv`: no operands.
        return;
    }
    let atomic = info.class & CLASS_ATOMIC != 0;
    let store = info.class & crate::isa::generated::CLASS_STORE != 0;
    {
        let mut l = List::new(out);
        // The data registers (a returning atomic's result overlaps them).
        let data = if atomic || store {
            inst.src[1]
        } else {
            inst.dst[0]
        };
        l.op(data);
        if inst.src[0].is_some() {
            l.op(inst.src[0]);
        } else {
            l.sep().push_str("off");
        }
        l.op(inst.src[3]);
        let s = l.sep();
        opnd(
            s,
            mark(inst.src[2], inst.literal, Ty::B32, 0),
            inst.literal,
            Ty::B32,
        );
    }
    if inst.format == Format::Mtbuf {
        let names = if tb.gfx12 {
            &t::GFX1200_BUFFMT
        } else {
            &t::GFX1100_BUFFMT
        };
        let name = names[inst.mem.format as usize & 0x7F];
        if !name.is_empty() {
            let _ = write!(out, " format:{name}");
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
    if tb.gfx12 {
        cpol12(out, inst.mem.cpol, store, atomic);
    } else {
        if inst.mem.glc {
            out.push_str(" glc");
        }
        if inst.mem.slc {
            out.push_str(" slc");
        }
        if inst.mem.dlc {
            out.push_str(" dlc");
        }
    }
    if inst.mem.tfe {
        out.push_str(" tfe");
    }
}

fn print_vinterp(out: &mut String, inst: &Inst, info: &RdnaInfo) {
    out.push_str(info.mnemonic);
    let v = inst.imm as u32;
    if inst.words[0] >> 24 == 0xCE {
        // LDSDIR / VDSDIR.
        let mut l = List::new(out);
        l.op(inst.dst[0]);
        if info.mnemonic.ends_with("param_load") {
            let chan = ["x", "y", "z", "w"][(v & 3) as usize];
            let _ = write!(l.sep(), "attr{}.{chan}", (v >> 2) & 0x3F);
        }
        let wait = (v >> 8) & 0xF;
        if info.mnemonic.starts_with("lds_") {
            let _ = write!(out, " wait_vdst:{wait}");
        } else {
            let _ = write!(out, " wait_va_vdst:{wait} wait_vm_vsrc:{}", (v >> 12) & 1);
        }
        return;
    }
    {
        let mut l = List::new(out);
        let t16 = info.kinds[0] == 3;
        opnd16(
            l.sep(),
            inst.dst[0],
            None,
            Ty::B32,
            t16,
            inst.mods.op_sel >> 3 & 1 == 1,
        );
        for i in 0..3 {
            if inst.src[i].is_some() {
                let src = vsrc(inst, info, i, i + 1);
                src_mod(l.sep(), src, None);
            }
        }
    }
    if inst.mods.clamp && info.mods & MOD_CLAMP != 0 {
        out.push_str(" clamp");
    }
    if inst.mods.op_sel != 0 && info.mods & MOD_OPSEL != 0 {
        bits(out, "op_sel", inst.mods.op_sel, 4);
    }
    let _ = write!(out, " wait_exp:{}", v & 7);
}

fn print_exp(out: &mut String, tb: &Tables, inst: &Inst, info: &RdnaInfo) {
    out.push_str(info.mnemonic);
    let v = inst.imm as u32;
    let names = if tb.gfx12 {
        &t::GFX1200_EXPTGT
    } else {
        &t::GFX1100_EXPTGT
    };
    let name = names[(v & 0x3F) as usize];
    if name.is_empty() {
        let _ = write!(out, " invalid_target_{}", v & 0x3F);
    } else {
        let _ = write!(out, " {name}");
    }
    for i in 0..4 {
        out.push_str(if i == 0 { " " } else { ", " });
        if inst.src[i].is_some() {
            opnd(out, inst.src[i], None, Ty::B32);
        } else {
            out.push_str("off");
        }
    }
    if v >> 12 & 1 == 1 {
        out.push_str(" done");
    }
    if v >> 13 & 1 == 1 {
        out.push_str(" row_en");
    }
}

/// `ds_swizzle_b32`'s offset in LLVM's `swizzle(...)` syntax (ISA §12 "lane permute").
fn swizzle(out: &mut String, imm: u32) {
    if imm == 0 {
        return;
    }
    out.push_str(" offset:swizzle(");
    if imm & 0xFF00 == 0x8000 {
        let _ = write!(
            out,
            "QUAD_PERM,{},{},{},{}",
            imm & 3,
            (imm >> 2) & 3,
            (imm >> 4) & 3,
            (imm >> 6) & 3
        );
    } else if imm & 0x8000 == 0 {
        // BITMASK_PERM: lane = ((lane & AND) | OR) ^ XOR within groups of 32.
        let and = imm & 0x1F;
        let or = (imm >> 5) & 0x1F;
        let xor = (imm >> 10) & 0x1F;
        let group = 0x20 - and;
        if and == 0x1F && or == 0 && xor.count_ones() == 1 {
            let _ = write!(out, "SWAP,{xor}");
        } else if and == 0x1F && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
            let _ = write!(out, "REVERSE,{}", xor + 1);
        } else if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
            let _ = write!(out, "BROADCAST,{group},{or}");
        } else {
            out.push_str("BITMASK_PERM,\"");
            for bit in (0..5).rev() {
                let (a, o, x) = (and >> bit & 1, or >> bit & 1, xor >> bit & 1);
                out.push(match (a, o, x) {
                    (0, 0, 0) | (0, 1, 1) => '0',
                    (0, 1, 0) | (0, 0, 1) => '1',
                    (_, _, 0) => 'p',
                    _ => 'i',
                });
            }
            out.push('"');
        }
    } else if imm & 0xE000 == 0xE000 {
        let _ = write!(out, "FFT,{}", imm & 0x1F);
    } else if imm & 0xC000 == 0xC000 {
        let _ = write!(out, "ROTATE,{},{}", (imm >> 10) & 1, (imm >> 5) & 0x1F);
    } else {
        out.truncate(out.len() - "swizzle(".len());
        let _ = write!(out, "{imm}");
        return;
    }
    out.push(')');
}

/// `dim:` names by DIM value.
const DIMS: [&str; 8] = [
    "1D",
    "2D",
    "3D",
    "CUBE",
    "1D_ARRAY",
    "2D_ARRAY",
    "2D_MSAA",
    "2D_MSAA_ARRAY",
];

/// MIMG / VIMAGE / VSAMPLE (decoded fields: see `isa::rdna`).
fn print_image(out: &mut String, tb: &Tables, inst: &Inst) {
    let w = inst.words;
    let (table, op) = if !tb.gfx12 {
        (tb.image, (w[0] >> 18) & 0xFF)
    } else if w[0] >> 26 == 0x39 {
        (tb.sample, (w[0] >> 14) & 0xFF)
    } else {
        (tb.image, (w[0] >> 14) & 0xFF)
    };
    let Some(Some(info)) = table.get(op as usize).copied() else {
        out.push_str(inst.op.name());
        return;
    };
    let imm = inst.imm as u32;
    let va = imm >> 16;
    let a16 = (imm >> 9) & 1 == 1;
    let groups = super::image_groups(&info, tb.gfx12, (imm >> 12) & 1 != 0, a16, va);
    let n = groups.iter().filter(|&&g| g != 0).count();
    let reg = |i: usize| -> u32 {
        match (tb.gfx12, i) {
            (false, 0) => w[1] & 0xFF,
            (false, _) => (w[2] >> (8 * (i - 1))) & 0xFF,
            (true, 4) => w[1] >> 24,
            (true, _) => (w[2] >> (8 * i)) & 0xFF,
        }
    };
    out.push_str(info.heads[(n > 1) as usize]);
    let data = if inst.dst[0].is_some() {
        inst.dst[0]
    } else {
        inst.src[1]
    };
    range(out, "v", data.code as u32 - 256, data.count as u32);
    out.push_str(", ");
    if n > 1 {
        out.push('[');
        for (i, &g) in groups.iter().take(n).enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            range(out, "v", reg(i), g);
        }
        out.push(']');
    } else {
        range(out, "v", reg(0), groups[0]);
    }
    out.push_str(", ");
    opnd(out, inst.src[2], None, Ty::B32);
    if inst.src[3].is_some() {
        out.push_str(", ");
        opnd(out, inst.src[3], None, Ty::B32);
    }
    let m = info.mods;
    let flag = |bit: u32| (imm >> bit) & 1 == 1;
    let dmask = imm & 0xF;
    if m & IMG_DMASK != 0 && dmask != 0 {
        let _ = write!(out, " dmask:0x{dmask:x}");
    }
    if m & IMG_DIM != 0 {
        let _ = write!(out, " dim:SQ_RSRC_IMG_{}", DIMS[((imm >> 4) & 7) as usize]);
    }
    let mut opt = |on: bool, name: &str| {
        if on {
            out.push(' ');
            out.push_str(name);
        }
    };
    opt(m & IMG_UNORM != 0 && flag(7), "unorm");
    opt(m & IMG_GLC != 0 && inst.mem.glc, "glc");
    opt(m & IMG_SLC != 0 && inst.mem.slc, "slc");
    opt(m & IMG_DLC != 0 && inst.mem.dlc, "dlc");
    if tb.gfx12 {
        let atomic = info.class & CLASS_ATOMIC != 0;
        let store = info.class & crate::isa::generated::CLASS_STORE != 0;
        cpol12(out, inst.mem.cpol, store, atomic);
    }
    let mut opt = |on: bool, name: &str| {
        if on {
            out.push(' ');
            out.push_str(name);
        }
    };
    opt(m & IMG_R128 != 0 && flag(8), "r128");
    opt(m & IMG_A16 != 0 && a16, "a16");
    opt(m & IMG_TFE != 0 && inst.mem.tfe, "tfe");
    opt(m & IMG_LWE != 0 && flag(11), "lwe");
    opt(m & IMG_D16 != 0 && flag(10), "d16");
}
