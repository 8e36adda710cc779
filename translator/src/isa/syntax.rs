//! Pieces of LLVM 22's AMDGPU assembly syntax shared by the GFX9 and RDNA printers
//! (`gfx9::print`, `rdna::print`): register and constant names, literal marking, source
//! modifiers, operand lists, small immediates and the DPP controls both families have.

use super::Opnd;
use core::fmt::Write as _;

/// Printer-private operand code: a literal whose value an inline constant could encode,
/// which LLVM prints as `lit(0x...)`.
pub(crate) const LIT_MARKED: u16 = 0xFFFE;

/// The f16 bit patterns of the float inline constants 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0,
/// -4.0, 1/(2*pi) (operand codes 240..=248).
pub(crate) const F16_INLINE: [u16; 9] = [
    0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118,
];

/// The f32 bit patterns of the same constants.
const F32_INLINE: [u32; 9] = [
    0x3F00_0000,
    0xBF00_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x4000_0000,
    0xC000_0000,
    0x4080_0000,
    0xC080_0000,
    0x3E22_F983,
];

/// How a literal or float inline constant of an operand is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// 32-bit (or integer) operand.
    B32,
    /// 64-bit operand: inline floats print in double precision.
    B64,
    /// 16-bit integer operand: float inline constants print as f16 bit patterns.
    I16,
    /// 16-bit float operand.
    F16,
}

/// True if LLVM would print the literal `v` of an operand of type `ty` as `lit(...)`: the
/// value is one an inline constant could encode (an f16 operand judged by the low half of
/// the literal dword, a 16-bit integer one by the whole dword).
pub(crate) fn literal_is_inlinable(v: u32, ty: Ty) -> bool {
    let int = |x: i64| (-16..=64).contains(&x);
    match ty {
        Ty::F16 => int(v as u16 as i16 as i64) || F16_INLINE.contains(&(v as u16)),
        Ty::I16 => v <= 64,
        Ty::B64 => int(v as i32 as i64),
        Ty::B32 => int(v as i32 as i64) || F32_INLINE.contains(&v),
    }
}

/// Writes `p{lo}` for one register, `p[lo:hi]` for `n` of them.
pub(crate) fn range(out: &mut String, p: &str, lo: u32, n: u32) {
    if n <= 1 {
        let _ = write!(out, "{p}{lo}");
    } else {
        let _ = write!(out, "{p}[{lo}:{}]", lo + n - 1);
    }
}

/// Writes a scalar-space register name (`s4`, `s[4:5]`, `vcc`, `ttmp[0:1]`, `m0`, ...) of
/// `count` registers. `gfx9`: codes 102-105 are `flat_scratch` and `xnack_mask` (RDNA: SGPRs).
pub(crate) fn sreg(out: &mut String, code: u16, count: u8, gfx9: bool) {
    let c = code as u32;
    let n = count.max(1) as u32;
    match c {
        0..=101 => range(out, "s", c, n),
        102..=105 if !gfx9 => range(out, "s", c, n),
        102 | 104 if n == 2 => out.push_str(if c == 102 {
            "flat_scratch"
        } else {
            "xnack_mask"
        }),
        102..=105 => out.push_str(
            [
                "flat_scratch_lo",
                "flat_scratch_hi",
                "xnack_mask_lo",
                "xnack_mask_hi",
            ][(c - 102) as usize],
        ),
        106 if n == 2 => out.push_str("vcc"),
        126 if n == 2 => out.push_str("exec"),
        106 => out.push_str("vcc_lo"),
        107 => out.push_str("vcc_hi"),
        108..=123 => range(out, "ttmp", c - 108, n),
        124 => out.push_str("m0"),
        125 => out.push_str("null"),
        126 => out.push_str("exec_lo"),
        127 => out.push_str("exec_hi"),
        _ => {
            let _ = write!(out, "<reg{c}>");
        }
    }
}

/// Writes the name of an operand code that is neither a register nor a literal: an integer
/// or float inline constant (f16 bit patterns for `Ty::I16`, the f64 digits of 1/(2*pi) for
/// `Ty::B64`) or a `src_*` special register. False (nothing written) for other codes.
pub(crate) fn constant(out: &mut String, code: u16, ty: Ty) -> bool {
    match code {
        128..=192 => {
            let _ = write!(out, "{}", code - 128);
        }
        193..=208 => {
            let _ = write!(out, "-{}", code - 192);
        }
        230 => out.push_str("src_flat_scratch_base_lo"),
        231 => out.push_str("src_flat_scratch_base_hi"),
        235 => out.push_str("src_shared_base"),
        236 => out.push_str("src_shared_limit"),
        237 => out.push_str("src_private_base"),
        238 => out.push_str("src_private_limit"),
        239 => out.push_str("src_pops_exiting_wave_id"),
        240..=248 if ty == Ty::I16 => {
            let _ = write!(out, "0x{:x}", F16_INLINE[(code - 240) as usize]);
        }
        240..=247 => out.push_str(
            ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"][(code - 240) as usize],
        ),
        248 => out.push_str(if ty == Ty::B64 {
            "0.15915494309189532"
        } else {
            "0.15915494"
        }),
        251 => out.push_str("src_vccz"),
        252 => out.push_str("src_execz"),
        253 => out.push_str("src_scc"),
        254 => out.push_str("src_lds_direct"),
        _ => return false,
    }
    true
}

/// The operand code LLVM gives a 32-bit immediate: its inline constant, else the literal.
pub(crate) fn imm32_code(v: u32) -> u16 {
    match v as i32 {
        0..=64 => 128 + v as u16,
        -16..=-1 => (192 - v as i32) as u16,
        _ => match F32_INLINE.iter().position(|&f| f == v) {
            Some(i) => 240 + i as u16,
            None => Opnd::LITERAL,
        },
    }
}

/// Writes an operand (`body`) with its `neg`/`abs` modifiers: `-|x|`, or `neg(x)` for an
/// immediate `x` without `abs` (`-5` would read as the inline constant -5, `-0x1` as a
/// literal).
pub(crate) fn with_mods(
    out: &mut String,
    neg: bool,
    abs: bool,
    imm: bool,
    body: impl FnOnce(&mut String),
) {
    if neg && !abs && imm {
        out.push_str("neg(");
        body(out);
        out.push(')');
        return;
    }
    if neg {
        out.push('-');
    }
    if abs {
        out.push('|');
    }
    body(out);
    if abs {
        out.push('|');
    }
}

/// Appends `, ` between operands (a space before the first).
pub(crate) struct List<'a> {
    pub(crate) out: &'a mut String,
    first: bool,
}

impl<'a> List<'a> {
    /// An empty operand list written to `out`.
    pub(crate) fn new(out: &'a mut String) -> Self {
        List { out, first: true }
    }

    /// Writes the separator before the next operand and returns the output.
    pub(crate) fn sep(&mut self) -> &mut String {
        if self.first {
            self.out.push(' ');
            self.first = false;
        } else {
            self.out.push_str(", ");
        }
        self.out
    }
}

/// LLVM's 16-bit immediates: decimal up to 64 (the inline-constant range), else hex.
pub(crate) fn u16_imm(out: &mut String, v: u32) {
    if v <= 64 {
        let _ = write!(out, "{v}");
    } else {
        let _ = write!(out, "0x{v:x}");
    }
}

/// Writes a signed value in hex (`-0x10`, `0x10`).
pub(crate) fn signed_hex(out: &mut String, v: i32) {
    if v < 0 {
        let _ = write!(out, "-0x{:x}", -(v as i64));
    } else {
        let _ = write!(out, "0x{v:x}");
    }
}

/// Writes the output modifier (`mul:2`, `mul:4`, `div:2`; nothing for 0).
pub(crate) fn omod(out: &mut String, o: u8) {
    match o {
        1 => out.push_str(" mul:2"),
        2 => out.push_str(" mul:4"),
        3 => out.push_str(" div:2"),
        _ => {}
    }
}

/// Writes ` name:[b0,b1,...]`, the low `n` bits of `v`.
pub(crate) fn bits(out: &mut String, name: &str, v: u8, n: usize) {
    let _ = write!(out, " {name}:[");
    for i in 0..n {
        if i > 0 {
            out.push(',');
        }
        out.push(if v >> i & 1 == 1 { '1' } else { '0' });
    }
    out.push(']');
}

/// Writes the DPP controls GFX9 and RDNA share (`quad_perm`, `row_shl`, `row_shr`,
/// `row_ror`, `row_mirror`, `row_half_mirror`); false (nothing written) for other values.
pub(crate) fn dpp_ctrl_common(out: &mut String, c: u32) -> bool {
    match c {
        0x000..=0x0FF => {
            let _ = write!(
                out,
                " quad_perm:[{},{},{},{}]",
                c & 3,
                (c >> 2) & 3,
                (c >> 4) & 3,
                (c >> 6) & 3
            );
        }
        0x101..=0x10F => {
            let _ = write!(out, " row_shl:{}", c & 0xF);
        }
        0x111..=0x11F => {
            let _ = write!(out, " row_shr:{}", c & 0xF);
        }
        0x121..=0x12F => {
            let _ = write!(out, " row_ror:{}", c & 0xF);
        }
        0x140 => out.push_str(" row_mirror"),
        0x141 => out.push_str(" row_half_mirror"),
        _ => return false,
    }
    true
}
