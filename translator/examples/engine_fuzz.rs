//! Long differential fuzzing runs of the interpreter against the JIT on random gfx942/gfx950
//! instruction programs (see `wavejit_translator::difffuzz`).
//!
//! ```sh
//! cargo run -p wavejit-translator --release --example engine_fuzz -- --seconds 600 --seed 7
//! cargo run -p wavejit-translator --release --example engine_fuzz -- --replay 0x94200012 --target gfx942
//! cargo run -p wavejit-translator --release --example engine_fuzz -- --rdna --seconds 300 --seed 7
//! ```
//!
//! `--rdna` runs the RDNA fuzzer (`difffuzz::rdna`) instead: gfx1100 and gfx1200, wave32 and
//! wave64 in turn (`--replay` with `--rdna` replays a seed on all four).
//!
//! `--dump` prints the generated instructions of `--programs N` programs (default 200) as
//! `bytes<TAB>our disassembly` lines: the first column feeds
//! `llvm-mc-22 -arch=amdgcn -mcpu=gfx942 -disassemble` for a check of the encodings and of the
//! disassembler against LLVM's.
//!
//! Prints every difference (seed, shrunk program, first differing register) and the totals;
//! exits with status 1 when the engines differed.

use std::time::{Duration, Instant};
use wavejit_translator::difffuzz::Fuzzer;
use wavejit_translator::isa::Gpu;

fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: engine_fuzz [--seconds N] [--seed S] [--programs N] [--target gfx942|gfx950|both] \
         [--replay SEED] [--verbose] [--show-faults] [--mix] [--dump] [--rdna]"
    );
    std::process::exit(2)
}

fn main() {
    let mut seconds = 60u64;
    let mut seed = 1u64;
    let mut programs = u64::MAX;
    let mut targets = vec![Gpu::GFX942, Gpu::GFX950];
    let mut replay = None;
    let mut verbose = false;
    let mut show_faults = false;
    let mut mix = false;
    let mut dump = false;
    let mut rdna = false;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let val = |i: usize| args.get(i + 1).and_then(|s| parse_u64(s));
        match args[i].as_str() {
            "--seconds" => seconds = val(i).unwrap_or_else(|| usage()),
            "--seed" => seed = val(i).unwrap_or_else(|| usage()),
            "--programs" => programs = val(i).unwrap_or_else(|| usage()),
            "--replay" => replay = Some(val(i).unwrap_or_else(|| usage())),
            "--target" => {
                targets = match args.get(i + 1).map(String::as_str) {
                    Some("gfx942") => vec![Gpu::GFX942],
                    Some("gfx950") => vec![Gpu::GFX950],
                    Some("both") => vec![Gpu::GFX942, Gpu::GFX950],
                    _ => usage(),
                }
            }
            "--rdna" => {
                rdna = true;
                i += 1;
                continue;
            }
            "--dump" => {
                dump = true;
                i += 1;
                continue;
            }
            "--mix" => {
                mix = true;
                i += 1;
                continue;
            }
            "--show-faults" => {
                show_faults = true;
                i += 1;
                continue;
            }
            "--verbose" => {
                verbose = true;
                i += 1;
                continue;
            }
            _ => usage(),
        }
        i += 2;
    }
    if rdna {
        run_rdna(seconds, seed, programs, replay);
    }
    let mut fuzzers: Vec<Fuzzer> = targets.iter().map(|g| Fuzzer::new(*g)).collect();
    for f in &mut fuzzers {
        f.show_faults = show_faults;
    }
    for f in &fuzzers {
        eprintln!(
            "{}: {} opcodes in the pool",
            f.pool.target.gpu,
            f.pool.cands.len()
        );
        for m in &f.pool.decode_mismatches {
            eprintln!("  does not decode back: {m}");
        }
    }
    let mut found = 0;
    if dump {
        for f in &mut fuzzers {
            dump_insts(f, seed, programs.min(200));
        }
        return;
    }
    if mix {
        for f in &mut fuzzers {
            print_mix(f, seed, programs.min(200));
        }
        return;
    }
    if let Some(s) = replay {
        for f in &mut fuzzers {
            if verbose {
                let (items, _, _) = f.generate(s);
                let words = f.pool.layout(&items);
                eprint!(
                    "{}",
                    wavejit_translator::difffuzz::disassemble_words(&f.pool.target, &words)
                );
            }
            match f.run_program(s) {
                Ok(()) => eprintln!("{}: seed {s:#x}: engines agree", f.pool.target.gpu),
                Err(e) => {
                    found += 1;
                    eprintln!("{e}");
                }
            }
        }
        std::process::exit(i32::from(found > 0));
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let mut n = 0u64;
    let mut last_report = Instant::now();
    while Instant::now() < deadline && n < programs {
        for (k, f) in fuzzers.iter_mut().enumerate() {
            let s = seed
                .wrapping_mul(0x1_0000_0000)
                .wrapping_add(n * 2 + k as u64);
            if verbose {
                eprintln!("program {s:#x}");
            }
            if let Err(e) = f.run_program(s) {
                found += 1;
                eprintln!("{e}");
            }
        }
        n += 1;
        if last_report.elapsed() > Duration::from_secs(30) {
            last_report = Instant::now();
            let insts: u64 = fuzzers.iter().map(|f| f.totals.insts).sum();
            eprintln!(
                "{:>6.0}s: {} programs, {insts} instructions, {found} differences",
                start.elapsed().as_secs_f64(),
                n * fuzzers.len() as u64
            );
        }
    }
    let mut insts = 0;
    for f in &fuzzers {
        let t = &f.totals;
        insts += t.insts;
        println!(
            "{}: {} programs, {} instructions executed, {} blocks, {} ended in a fault",
            f.pool.target.gpu, t.programs, t.insts, t.blocks, t.faults
        );
        for (k, n) in &t.fault_kinds {
            println!("  {n:>6} {k}");
        }
    }
    println!(
        "total: {insts} instructions in {:.0} s, {found} differences",
        start.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(found > 0));
}

/// The RDNA fuzzer on gfx1100/gfx1200 in wave32 and wave64, round robin until the deadline
/// (or one `replay` seed on each); exits with status 1 when the engines differed.
fn run_rdna(seconds: u64, seed: u64, programs: u64, replay: Option<u64>) -> ! {
    use wavejit_translator::difffuzz::rdna::RdnaFuzzer;
    let mut fuzzers: Vec<RdnaFuzzer> = [(Gpu::GFX1100, 32), (Gpu::GFX1100, 64)]
        .into_iter()
        .chain([(Gpu::GFX1200, 32), (Gpu::GFX1200, 64)])
        .map(|(g, w)| RdnaFuzzer::new(g, w))
        .collect();
    let mut found = 0;
    if let Some(s) = replay {
        for f in &mut fuzzers {
            match f.run_program(s) {
                Ok(()) => eprintln!(
                    "{} wave{}: seed {s:#x}: engines agree",
                    f.target.gpu, f.target.wave_size
                ),
                Err(e) => {
                    found += 1;
                    eprintln!("{e}");
                }
            }
        }
        std::process::exit(i32::from(found > 0));
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs(seconds);
    let mut n = 0u64;
    while Instant::now() < deadline && n < programs {
        for (k, f) in fuzzers.iter_mut().enumerate() {
            let s = seed
                .wrapping_mul(0x1_0000_0000)
                .wrapping_add(n * 4 + k as u64);
            if let Err(e) = f.run_program(s) {
                found += 1;
                eprintln!("{e}");
            }
        }
        n += 1;
    }
    let mut insts = 0;
    for f in &fuzzers {
        insts += f.insts;
        println!(
            "{} wave{}: {} pool instructions, {} programs, {} instructions executed, {} distinct opcodes, {} ended in a fault",
            f.target.gpu,
            f.target.wave_size,
            f.pool.len(),
            f.programs,
            f.insts,
            f.opcodes.len(),
            f.faults
        );
        if !f.fault_kinds.is_empty() {
            println!("  faults: {:?}", f.fault_kinds);
        }
    }
    println!(
        "total: {insts} instructions in {:.0} s, {found} differences",
        start.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(found > 0))
}

/// Prints the static instruction mix of `n` generated programs: counts by encoding form.
fn print_mix(f: &mut Fuzzer, seed: u64, n: u64) {
    use std::collections::BTreeMap;
    let mut forms: BTreeMap<String, u64> = BTreeMap::new();
    let mut ops = std::collections::BTreeSet::new();
    let mut total = 0;
    for k in 0..n {
        let (items, _, _) = f.generate(seed.wrapping_add(k));
        let words = f.pool.layout(&items);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut off = 0;
        while off < bytes.len() {
            let Ok(i) = wavejit_translator::isa::decode(&f.pool.target, &bytes[off..], 0) else {
                off += 4;
                continue;
            };
            let ext = if i.dpp.is_some() {
                " dpp"
            } else if i.sdwa.is_some() {
                " sdwa"
            } else if i.literal.is_some() {
                " literal"
            } else {
                ""
            };
            *forms.entry(format!("{:?}{ext}", i.format)).or_default() += 1;
            ops.insert(i.op);
            total += 1;
            off += i.size.max(4) as usize;
        }
    }
    println!(
        "{}: {total} instructions in {n} programs, {} distinct opcodes",
        f.pool.target.gpu,
        ops.len()
    );
    for (k, v) in forms {
        println!("  {v:>7} {k}");
    }
}

/// Prints the generated instructions of `n` programs: `0x..,0x..<TAB>disassembly` per line.
fn dump_insts(f: &mut Fuzzer, seed: u64, n: u64) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    for k in 0..n {
        let (items, _, _) = f.generate(seed.wrapping_add(k));
        let words = f.pool.layout(&items);
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let mut off = 0;
        while off < bytes.len() {
            let pc = 0x1_0000 + off as u64;
            let Ok(i) = wavejit_translator::isa::decode(&f.pool.target, &bytes[off..], pc) else {
                off += 4;
                continue;
            };
            let end = (off + i.size as usize).min(bytes.len());
            let hex: Vec<String> = bytes[off..end]
                .iter()
                .map(|b| format!("{b:#04x}"))
                .collect();
            let text = wavejit_translator::isa::disassemble(&f.pool.target, &i, pc);
            // Stop quietly when the reader goes away (`| head`).
            if writeln!(out, "{}\t{text}", hex.join(",")).is_err() {
                return;
            }
            off += (i.size as usize).max(4);
        }
    }
}
