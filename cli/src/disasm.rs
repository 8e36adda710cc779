//! `wavejit disasm`: llvm-objdump-22 `-d` layout, one listing per function symbol.
//!
//! Each symbol of the code (kernels, functions, local labels) gets a blank line,
//! `0000000000001b00 <vadd>:`, then per instruction a tab, the text padded to 59 columns, and
//! `// <12-digit address>: <words>`. A branch to an untyped symbol (a label) prints the label
//! as its operand (`s_cbranch_scc0 L_end0`); other branches keep the number and get
//! llvm-objdump's ` <sym+0xoff>` target annotation. Undecodable words print as
//! `.long 0x........` and listing continues, as llvm-objdump does.

use super::{io_err, load_code_object, CliError, CliResult};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use wavejit_runtime::code_object::{CodeObject, SymbolKind};
use wavejit_translator::isa::{decode, disassemble, Inst, Target};

/// Column (after the leading tab) where the `//` comment starts.
const COMMENT_COLUMN: usize = 59;

/// A listing: one symbol's code, from its address to the next symbol (or the end of the
/// executable segment), decoded with the wave size of the kernel it lies in.
struct Listing {
    /// The name llvm-objdump shows for the address: among several symbols at one address,
    /// the last by name.
    name: String,
    addr: u64,
    end: u64,
    wave_size: u32,
}

/// Listings in address order: one per address holding a symbol of an executable segment
/// (kernels, functions, local labels), plus kernels whose entry has none.
fn listings(co: &CodeObject) -> Vec<Listing> {
    let default_wave = Target::new(co.gpu).wave_size;
    // code_symbols is sorted by (address, name): a later symbol at the same address wins.
    let mut names: BTreeMap<u64, &str> = BTreeMap::new();
    for s in &co.code_symbols {
        names.insert(s.addr, &s.name);
    }
    for k in &co.kernels {
        names.entry(k.entry).or_insert(&k.name);
    }
    let points: Vec<(u64, &str)> = names.into_iter().collect();
    let mut v = Vec::with_capacity(points.len());
    for (i, &(addr, name)) in points.iter().enumerate() {
        let Some(range) = co.exec_ranges.iter().find(|r| r.contains(&addr)) else {
            continue;
        };
        let end = points
            .get(i + 1)
            .map_or(range.end, |&(next, _)| next.min(range.end));
        // The wave size of the kernel whose code this is: the last entry at or before it.
        let wave_size = co
            .kernels
            .iter()
            .filter(|k| k.entry <= addr && range.contains(&k.entry))
            .max_by_key(|k| k.entry)
            .map_or(default_wave, |k| k.wave_size);
        v.push(Listing {
            name: name.to_string(),
            addr,
            end,
            wave_size,
        });
    }
    v
}

/// The labels (`STT_NOTYPE` symbols) a branch operand is printed as, by address: the first
/// by name at each address (LLVM's AMDGPU symbolizer names a branch target only when an
/// untyped symbol sits exactly there).
fn branch_labels(co: &CodeObject) -> HashMap<u64, &str> {
    let mut m = HashMap::new();
    for s in co
        .code_symbols
        .iter()
        .filter(|s| s.kind == SymbolKind::NoType)
    {
        m.entry(s.addr).or_insert(s.name.as_str());
    }
    m
}

/// `<sym>` or `<sym+0xoff>` for a branch target, from the nearest listing at or before it.
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

/// The instruction text with its branch target operand (the last one) replaced by `label`,
/// as llvm-objdump prints a branch to a symbol: `s_cbranch_scc0 L_end0`.
fn symbolise(text: &str, label: &str) -> String {
    match text.rsplit_once(' ') {
        Some((head, _)) => format!("{head} {label}"),
        None => text.to_string(),
    }
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
    labels: &HashMap<u64, &str>,
    l: &Listing,
) -> std::io::Result<()> {
    let target = Target {
        gpu: co.gpu,
        wave_size: l.wave_size,
    };
    let code = co.code_at(l.addr).unwrap_or(&[]);
    let len = usize::try_from(l.end - l.addr).unwrap_or(0).min(code.len());
    let code = &code[..len];
    writeln!(out)?;
    writeln!(out, "{:016x} <{}>:", l.addr, l.name)?;
    let mut off = 0usize;
    while off + 4 <= code.len() {
        let pc = l.addr + off as u64;
        match decode(&target, &code[off..], pc) {
            Ok(inst) if inst.size >= 4 && off + inst.size as usize <= code.len() => {
                let n = inst.size as usize / 4;
                let mut text = disassemble(&target, &inst, pc);
                let mut note = None;
                if let Some(t) = branch_target(&inst, pc) {
                    match labels.get(&t) {
                        Some(label) => text = symbolise(&text, label),
                        None => note = annotate(all, t),
                    }
                }
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
            // The kernel's code up to the next function or kernel: its own label
            // listings included.
            let end = co.code_end(k.entry).unwrap_or(k.entry);
            all.iter()
                .filter(|l| l.addr >= k.entry && l.addr < end.max(k.entry + 1))
                .collect()
        }
    };
    let labels = branch_labels(&co);
    for l in chosen {
        list_one(out, &co, &all, &labels, l).map_err(io_err)?;
    }
    Ok(())
}
