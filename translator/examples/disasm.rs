//! Disassembles the `.text` section of an AMDGPU code object (gfx942, gfx950, gfx1100-gfx1103,
//! gfx1150-gfx1153, gfx1200, gfx1201) with wavejit's decoder, in llvm-objdump-22's
//! instruction-line layout (`\t<text> // <ADDR>: <WORDS>`).
//!
//! A development tool for `scripts/check_disasm.sh` (the `wavejit disasm` CLI is the real
//! interface): `cargo run -p wavejit-translator --example disasm -- [--bench] FILE.hsaco`.
//! The GPU comes from the ELF header's `e_flags`; the wave size from the first kernel
//! descriptor (`*.kd`: `kernel_code_properties` bit 10, wave32) unless `--wave32` or
//! `--wave64` is given. With `--bench`, it measures decode throughput over the section
//! (one thread, for one second; also per CPU second of the thread) instead.

use std::process::ExitCode;
use wavejit_translator::isa::{decode_into, disassemble, Family, Gpu, Inst, Target};

/// A section header: (name, type, address, file offset, size, link).
type Section = (String, u64, u64, usize, usize, usize);

/// A minimal little-endian ELF64 reader: sections and symbols.
struct Elf<'a> {
    b: &'a [u8],
}

impl<'a> Elf<'a> {
    fn u16(&self, o: usize) -> Result<u64, String> {
        self.b
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]) as u64)
            .ok_or_else(|| "truncated ELF".to_string())
    }
    fn u32(&self, o: usize) -> Result<u64, String> {
        self.b
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64)
            .ok_or_else(|| "truncated ELF".to_string())
    }
    fn u64(&self, o: usize) -> Result<u64, String> {
        Ok(self.u32(o)? | self.u32(o + 4)? << 32)
    }
    /// Section headers: (name, type, address, offset, size, link).
    fn sections(&self) -> Result<Vec<Section>, String> {
        let shoff = self.u64(0x28)? as usize;
        let shentsize = self.u16(0x3A)? as usize;
        let shnum = self.u16(0x3C)? as usize;
        let shstrndx = self.u16(0x3E)? as usize;
        let sh = |i: usize| shoff.saturating_add(i.saturating_mul(shentsize));
        let strtab = self.u64(sh(shstrndx) + 0x18)? as usize;
        let mut out = Vec::new();
        for i in 0..shnum {
            let name = self.cstr(strtab.saturating_add(self.u32(sh(i))? as usize));
            out.push((
                name,
                self.u32(sh(i) + 4)?,
                self.u64(sh(i) + 0x10)?,
                self.u64(sh(i) + 0x18)? as usize,
                self.u64(sh(i) + 0x20)? as usize,
                self.u32(sh(i) + 0x28)? as usize,
            ));
        }
        Ok(out)
    }
    fn cstr(&self, o: usize) -> String {
        let s = self.b.get(o..).unwrap_or(&[]);
        let n = s.iter().position(|&c| c == 0).unwrap_or(s.len());
        String::from_utf8_lossy(&s[..n]).into_owned()
    }
    /// The byte at virtual address `addr`, through the section table.
    fn at(&self, secs: &[Section], addr: u64) -> Option<u8> {
        secs.iter()
            .filter(|s| s.1 != 8 && s.2 != 0 && addr >= s.2 && addr < s.2 + s.4 as u64)
            .find_map(|s| self.b.get(s.3 + (addr - s.2) as usize).copied())
    }
}

/// The GPU of an AMDGPU ELF from `e_flags` (EF_AMDGPU_MACH).
fn gpu_of(elf: &Elf) -> Result<Gpu, String> {
    let mach = elf.u32(0x30)? & 0xFF;
    Ok(match mach {
        0x4C => Gpu::GFX942,
        0x4F => Gpu::GFX950,
        0x41 => Gpu::GFX1100,
        0x48 => Gpu::GFX1200,
        0x4E => Gpu::GFX1201,
        m => return Err(format!("unsupported EF_AMDGPU_MACH {m:#x}")),
    })
}

/// The wave size of the first kernel descriptor, if any.
fn wave_of(elf: &Elf, secs: &[Section]) -> Option<u32> {
    let symtab = secs.iter().find(|s| s.1 == 2)?;
    let strtab = secs.get(symtab.5)?;
    let n = symtab.4 / 24;
    for i in 0..n {
        let o = symtab.3 + i * 24;
        let name = elf.cstr(strtab.3 + elf.u32(o).ok()? as usize);
        if name.ends_with(".kd") {
            let value = elf.u64(o + 8).ok()?;
            let props = elf.at(secs, value + 0x39)?;
            return Some(if props & 0x04 != 0 { 32 } else { 64 });
        }
    }
    None
}

/// CPU time this thread has run, in ns (Linux `/proc/thread-self/schedstat`), so the
/// benchmark is meaningful on a shared machine.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("disasm: {e}");
            ExitCode::from(1)
        }
    }
}

fn run() -> Result<(), String> {
    let mut bench = false;
    let mut wave = None;
    let mut path = None;
    for a in std::env::args().skip(1) {
        match a.as_str() {
            "--bench" => bench = true,
            "--wave32" => wave = Some(32),
            "--wave64" => wave = Some(64),
            _ if path.is_none() => path = Some(a),
            _ => return Err("usage: disasm [--bench] [--wave32|--wave64] FILE.hsaco".into()),
        }
    }
    let path = path.ok_or("usage: disasm [--bench] [--wave32|--wave64] FILE.hsaco")?;
    let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let elf = Elf { b: &bytes };
    if bytes.get(0..5) != Some(b"\x7fELF\x02") {
        return Err(format!("{path}: not an ELF64 file"));
    }
    let gpu = gpu_of(&elf)?;
    let secs = elf.sections()?;
    let text = secs
        .iter()
        .find(|s| s.0 == ".text")
        .ok_or("no .text section")?;
    let addr = text.2;
    let code = bytes
        .get(text.3..text.3.saturating_add(text.4))
        .ok_or("section outside the file")?;
    let mut target = Target::new(gpu);
    if gpu.family() != Some(Family::Gfx9) {
        target.wave_size = wave.or_else(|| wave_of(&elf, &secs)).unwrap_or(32);
    }
    if bench {
        let cpu0 = cpu_ns();
        let start = std::time::Instant::now();
        let mut n = 0u64;
        let mut sizes = 0u64;
        let mut inst = Inst::default();
        while start.elapsed().as_secs_f64() < 1.0 {
            let mut off = 0;
            while off < code.len() {
                match decode_into(&target, &code[off..], addr + off as u64, &mut inst) {
                    Ok(()) => {
                        sizes += inst.size as u64;
                        off += inst.size as usize;
                    }
                    Err(_) => off += 4,
                }
                n += 1;
            }
        }
        let s = start.elapsed().as_secs_f64();
        let cpu = match (cpu0, cpu_ns()) {
            (Some(a), Some(b)) if b > a => {
                format!(
                    ", {:.1} M inst/s per CPU second",
                    n as f64 / ((b - a) as f64 / 1e3)
                )
            }
            _ => String::new(),
        };
        println!(
            "{gpu} wave{}: {:.1} M inst/s wall{cpu} ({n} decodes, {sizes} bytes)",
            target.wave_size,
            n as f64 / s / 1e6
        );
        return Ok(());
    }
    let mut off = 0;
    let mut inst = Inst::default();
    while off < code.len() {
        let pc = addr + off as u64;
        match decode_into(&target, &code[off..], pc, &mut inst) {
            Ok(()) => {
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
    Ok(())
}
