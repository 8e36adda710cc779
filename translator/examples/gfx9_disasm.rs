//! Disassembles the `.text` section of a gfx942 code object with wavejit's decoder, in
//! llvm-objdump-22's instruction-line layout (`\t<text> // <ADDR>: <WORDS>`).
//!
//! A development tool for `scripts/check_disasm.sh` (the `wavejit disasm` CLI is the real
//! interface): `cargo run -p wavejit-translator --example gfx9_disasm -- FILE.hsaco`.
//! With `--bench` first, it measures decode throughput over the section instead.

use std::process::ExitCode;
use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

/// The `.text` section of an ELF64 little-endian file: (address, bytes).
fn text_section(elf: &[u8]) -> Result<(u64, &[u8]), String> {
    let u16_at = |o: usize| -> Result<u64, String> {
        elf.get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as u64)
            .ok_or_else(|| "truncated ELF".to_string())
    };
    let u32_at = |o: usize| -> Result<u64, String> {
        elf.get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
            .ok_or_else(|| "truncated ELF".to_string())
    };
    let u64_at = |o: usize| -> Result<u64, String> { Ok(u32_at(o)? | u32_at(o + 4)? << 32) };
    if elf.get(0..5) != Some(b"\x7fELF\x02") {
        return Err("not an ELF64 file".into());
    }
    let shoff = u64_at(0x28)? as usize;
    let shentsize = u16_at(0x3A)? as usize;
    let shnum = u16_at(0x3C)? as usize;
    let shstrndx = u16_at(0x3E)? as usize;
    let sh = |i: usize| shoff + i * shentsize;
    let strtab = u64_at(sh(shstrndx) + 0x18)? as usize;
    for i in 0..shnum {
        let name_off = strtab + u32_at(sh(i))? as usize;
        let name = elf.get(name_off..name_off + 6);
        if name == Some(b".text\0") {
            let addr = u64_at(sh(i) + 0x10)?;
            let off = u64_at(sh(i) + 0x18)? as usize;
            let size = u64_at(sh(i) + 0x20)? as usize;
            let bytes = elf
                .get(off..off.saturating_add(size))
                .ok_or("section outside the file")?;
            return Ok((addr, bytes));
        }
    }
    Err("no .text section".into())
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.first().is_some_and(|a| a == "--bench");
    if bench {
        args.remove(0);
    }
    let Some(path) = args.first().cloned() else {
        eprintln!("usage: gfx9_disasm [--bench] FILE.hsaco");
        return ExitCode::from(2);
    };
    let elf = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
    };
    let (addr, text) = match text_section(&elf) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
    };
    let target = Target::new(Gpu::GFX942);
    if bench {
        let start = std::time::Instant::now();
        let mut n = 0u64;
        let mut sizes = 0u64;
        while start.elapsed().as_secs_f64() < 1.0 {
            let mut off = 0;
            while off < text.len() {
                match decode(&target, &text[off..], addr + off as u64) {
                    Ok(inst) => {
                        sizes += inst.size as u64;
                        off += inst.size as usize;
                    }
                    Err(_) => off += 4,
                }
                n += 1;
            }
        }
        let s = start.elapsed().as_secs_f64();
        println!(
            "{:.1} M inst/s ({n} decodes, {sizes} bytes)",
            n as f64 / s / 1e6
        );
        return ExitCode::SUCCESS;
    }
    let mut off = 0;
    while off < text.len() {
        let pc = addr + off as u64;
        match decode(&target, &text[off..], pc) {
            Ok(inst) => {
                let words: Vec<String> = inst.words[..inst.size as usize / 4]
                    .iter()
                    .map(|w| format!("{w:08X}"))
                    .collect();
                let txt = disassemble(&target, &inst, pc);
                println!("\t{txt:<59} // {pc:012X}: {}", words.join(" "));
                off += inst.size as usize;
            }
            Err(e) => {
                println!("\t<{e}>");
                off += 4;
            }
        }
    }
    ExitCode::SUCCESS
}
