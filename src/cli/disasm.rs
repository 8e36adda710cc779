//! `wavejit disasm`: llvm-objdump-22 `-d` layout, one listing per function symbol.
//!
//! Each symbol gets a blank line, `0000000000001b00 <vadd>:`, then per instruction a tab,
//! the text padded to 59 columns, and `// <12-digit address>: <words>`; branches get
//! llvm-objdump's ` <sym+0xoff>` target annotation. Undecodable words print as
//! `.long 0x........` and listing continues, as llvm-objdump does.

use super::{io_err, load_code_object, CliError, CliResult};
use std::io::Write;
use std::path::Path;
use wavejit_runtime::code_object::CodeObject;
use wavejit_translator::isa::{decode, disassemble, Inst, Target};

/// Column (after the leading tab) where the `//` comment starts.
const COMMENT_COLUMN: usize = 59;

/// A listing: name, start address, the wave size to decode with.
struct Listing {
    name: String,
    addr: u64,
    wave_size: u32,
}

/// Listings in address order: every function symbol, plus kernels whose entry has none.
fn listings(co: &CodeObject) -> Vec<Listing> {
    let default_wave = Target::new(co.gpu).wave_size;
    let wave_at = |addr: u64| {
        co.kernels
            .iter()
            .find(|k| k.entry == addr)
            .map_or(default_wave, |k| k.wave_size)
    };
    let mut v: Vec<Listing> = co
        .functions
        .iter()
        .map(|f| Listing {
            name: f.name.clone(),
            addr: f.addr,
            wave_size: wave_at(f.addr),
        })
        .collect();
    for k in &co.kernels {
        if !v.iter().any(|l| l.addr == k.entry) {
            v.push(Listing {
                name: k.name.clone(),
                addr: k.entry,
                wave_size: k.wave_size,
            });
        }
    }
    v.sort_by_key(|l| l.addr);
    v
}

/// `<sym>` or `<sym+0xoff>` for a branch target, from the nearest symbol at or before it.
fn annotate(all: &[Listing], target: u64) -> Option<String> {
    let l = all.iter().rev().find(|l| l.addr <= target)?;
    let off = target - l.addr;
    Some(if off == 0 {
        format!("<{}>", l.name)
    } else {
        format!("<{}+{off:#x}>", l.name)
    })
}

/// The branch target of SOPP branches (`pc + 4 + simm16 * 4`, ISA "SOPP" encoding).
fn branch_target(inst: &Inst, pc: u64) -> Option<u64> {
    let n = inst.op.name();
    (n == "s_branch" || n.starts_with("s_cbranch_"))
        .then(|| pc.wrapping_add(4).wrapping_add_signed(inst.imm as i64 * 4))
}

fn line(
    out: &mut dyn Write,
    text: &str,
    pc: u64,
    words: &[u32],
    note: Option<String>,
) -> std::io::Result<()> {
    let words: Vec<String> = words.iter().map(|w| format!("{w:08X}")).collect();
    write!(
        out,
        "\t{text:<COMMENT_COLUMN$}// {pc:012X}: {}",
        words.join(" ")
    )?;
    match note {
        Some(n) => writeln!(out, " {n}"),
        None => writeln!(out),
    }
}

fn list_one(
    out: &mut dyn Write,
    co: &CodeObject,
    all: &[Listing],
    l: &Listing,
) -> std::io::Result<()> {
    let target = Target {
        gpu: co.gpu,
        wave_size: l.wave_size,
    };
    let end = co.code_end(l.addr).unwrap_or(l.addr);
    let code = co.code_at(l.addr).unwrap_or(&[]);
    let len = usize::try_from(end - l.addr).unwrap_or(0).min(code.len());
    let code = &code[..len];
    writeln!(out)?;
    writeln!(out, "{:016x} <{}>:", l.addr, l.name)?;
    let mut off = 0usize;
    while off + 4 <= code.len() {
        let pc = l.addr + off as u64;
        match decode(&target, &code[off..], pc) {
            Ok(inst) if inst.size >= 4 && off + inst.size as usize <= code.len() => {
                let n = inst.size as usize / 4;
                let text = disassemble(&target, &inst, pc);
                let note = branch_target(&inst, pc).and_then(|t| annotate(all, t));
                line(out, &text, pc, &inst.words[..n.min(4)], note)?;
                off += inst.size as usize;
            }
            _ => {
                let w =
                    u32::from_le_bytes([code[off], code[off + 1], code[off + 2], code[off + 3]]);
                line(out, &format!(".long 0x{w:08x}"), pc, &[w], None)?;
                off += 4;
            }
        }
    }
    Ok(())
}

/// Disassembles every function (or only `kernel`) of the code object at `path`.
pub fn disasm(path: &Path, kernel: Option<&str>, out: &mut dyn Write) -> CliResult {
    let co = load_code_object(path)?;
    let all = listings(&co);
    let chosen: Vec<&Listing> = match kernel {
        None => all.iter().collect(),
        Some(name) => {
            let k = co.kernel(name).ok_or_else(|| {
                let names: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
                CliError(format!(
                    "{}: no kernel named `{name}`; kernels: {}",
                    path.display(),
                    names.join(", ")
                ))
            })?;
            all.iter().filter(|l| l.addr == k.entry).take(1).collect()
        }
    };
    for l in chosen {
        list_one(out, &co, &all, l).map_err(io_err)?;
    }
    Ok(())
}
