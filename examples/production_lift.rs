//! Loads code objects and decodes and lifts every instruction of their code, for the
//! production-kernel check (`scripts/production.py`):
//! `cargo run --release --example production_lift -- FILE...`
//!
//! Prints one tab-separated line per file:
//! `FILE  status  target  kernels  instructions  undecoded  unlifted  failures`
//! where status is `ok` or `load-error: <message>`, undecoded counts 4-byte words that do not
//! decode, unlifted the instructions the lifter refuses, and failures lists
//! `mnemonic=count` (unlifted) and `.long=count` (undecoded), most frequent first.
//!
//! Code is walked as `wavejit disasm` lists it: from every symbol of an executable segment
//! (kernels, functions, labels) to the next one, decoding with the wave size of the kernel the
//! code belongs to. Each instruction is lifted alone (`lift::coverage::lift_one`: a block of
//! that one instruction), so its lift does not depend on what follows.
use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use wavejit_runtime::code_object::{self, CodeObject};
use wavejit_translator::isa::{decode, Target};
use wavejit_translator::lift::coverage::lift_one;

/// Counts of one code object.
#[derive(Default)]
struct Counts {
    instructions: u64,
    undecoded: u64,
    unlifted: u64,
    failures: HashMap<String, u64>,
}

/// Every listing start: symbol addresses and kernel entries, in address order.
fn starts(co: &CodeObject) -> Vec<u64> {
    let s: BTreeSet<u64> = co
        .code_symbols
        .iter()
        .map(|s| s.addr)
        .chain(co.kernels.iter().map(|k| k.entry))
        .filter(|&a| co.is_executable(a))
        .collect();
    s.into_iter().collect()
}

fn check(co: &CodeObject) -> Counts {
    let mut c = Counts::default();
    let starts = starts(co);
    let default_wave = Target::new(co.gpu).wave_size;
    for (i, &addr) in starts.iter().enumerate() {
        let Some(range) = co.exec_ranges.iter().find(|r| r.contains(&addr)) else {
            continue;
        };
        let end = starts.get(i + 1).map_or(range.end, |&n| n.min(range.end));
        let wave_size = co
            .kernels
            .iter()
            .filter(|k| k.entry <= addr && range.contains(&k.entry))
            .max_by_key(|k| k.entry)
            .map_or(default_wave, |k| k.wave_size);
        let target = Target {
            gpu: co.gpu,
            wave_size,
        };
        let code = co.code_at(addr).unwrap_or(&[]);
        let code = &code[..usize::try_from(end - addr).unwrap_or(0).min(code.len())];
        let mut off = 0usize;
        while off + 4 <= code.len() {
            let pc = addr + off as u64;
            match decode(&target, &code[off..], pc) {
                Ok(inst) if inst.size >= 4 && off + inst.size as usize <= code.len() => {
                    let n = inst.size as usize;
                    c.instructions += 1;
                    if lift_one(&target, &code[off..off + n]).is_err() {
                        c.unlifted += 1;
                        *c.failures.entry(inst.op.name().to_string()).or_default() += 1;
                    }
                    off += n;
                }
                _ => {
                    c.instructions += 1;
                    c.undecoded += 1;
                    *c.failures.entry(".long".to_string()).or_default() += 1;
                    off += 4;
                }
            }
        }
    }
    c
}

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for path in std::env::args().skip(1) {
        let line = match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| code_object::load(&b, None).map_err(|e| e.to_string()))
        {
            Err(e) => format!("{path}\tload-error: {e}\t-\t0\t0\t0\t0\t"),
            Ok(co) => {
                let c = check(&co);
                let mut f: Vec<(String, u64)> = c.failures.into_iter().collect();
                f.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
                let f: Vec<String> = f.iter().map(|(m, n)| format!("{m}={n}")).collect();
                format!(
                    "{path}\tok\t{}\t{}\t{}\t{}\t{}\t{}",
                    co.generic
                        .map_or_else(|| co.gpu.to_string(), str::to_string),
                    co.kernels.len(),
                    c.instructions,
                    c.undecoded,
                    c.unlifted,
                    f.join(",")
                )
            }
        };
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}
