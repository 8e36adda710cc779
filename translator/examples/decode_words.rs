//! Decodes instruction words given as hex text, one candidate per line, and prints one result
//! line per input line: `OK <size> <text>` (text as `llvm-objdump-22 -d` prints it) or
//! `ERR <reason>`.
//!
//! The oracle side of `scripts/random_words.py`:
//! `cargo run -p wavejit-translator --example decode_words -- gfx942 < words.txt`, where each
//! input line holds little-endian 32-bit words in hex (`7E000280 00000000`). Only the first
//! instruction of each line is decoded; the remaining words are what it may consume.

use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;
use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(gpu) = args.first().and_then(|n| Gpu::from_name(n)) else {
        eprintln!("usage: decode_words gfx942|gfx950|gfx1100|gfx1200|gfx1201 [wave64] < words");
        return ExitCode::from(2);
    };
    let mut target = Target::new(gpu);
    if args.get(1).is_some_and(|a| a == "wave64") {
        target.wave_size = 64;
    }
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (n, line) in stdin.lock().lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("stdin: {e}");
                return ExitCode::from(1);
            }
        };
        let mut bytes = Vec::with_capacity(16);
        for w in line.split_whitespace() {
            match u32::from_str_radix(w, 16) {
                Ok(v) => bytes.extend_from_slice(&v.to_le_bytes()),
                Err(_) => {
                    eprintln!("line {}: not a hex word: {w:?}", n + 1);
                    return ExitCode::from(1);
                }
            }
        }
        let res = match decode(&target, &bytes, 0) {
            Ok(inst) => writeln!(out, "OK {} {}", inst.size, disassemble(&target, &inst, 0)),
            Err(e) => writeln!(out, "ERR {}", e.reason),
        };
        if let Err(e) = res {
            eprintln!("stdout: {e}");
            return ExitCode::from(1);
        }
    }
    if out.flush().is_err() {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
