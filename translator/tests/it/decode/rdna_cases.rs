//! Decodes and prints every case of `translator/gen/gfx1100_cases.txt` and
//! `gfx1200_cases.txt` (instruction words and the text LLVM 22's disassembler printed for
//! them, `+real-true16`, wave32; written by `gen/gen_tables.py`) and requires the same size
//! and the same text; the `*_w64_cases.txt` files hold VALU cases disassembled with
//! `+wavefrontsize64` (lane masks print as `vcc`, `s[0:1]`). gfx1201 is checked against the
//! gfx1200 cases: the generator verifies that LLVM decodes both identically. Image
//! instructions (MIMG, VIMAGE, VSAMPLE) are at the end of the gfx1100/gfx1200 files.

use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

#[test]
fn gfx1100_matches_llvm() {
    check(include_str!("../../../gen/gfx1100_cases.txt"), Gpu::GFX1100);
}

#[test]
fn gfx1200_matches_llvm() {
    check(include_str!("../../../gen/gfx1200_cases.txt"), Gpu::GFX1200);
}

#[test]
fn gfx1201_matches_llvm() {
    check(include_str!("../../../gen/gfx1200_cases.txt"), Gpu::GFX1201);
}

/// gfx1150 decodes SOP1/SOP2/SOPC with its own tables (the SALU float opcodes); its cases
/// cover those encodings (and VOPD pairs), disassembled by LLVM as gfx1150.
#[test]
fn gfx1150_matches_llvm() {
    check_wave(
        include_str!("../../../gen/gfx1150_cases.txt"),
        Gpu { id: 0x1150 },
        32,
    );
}

/// The SALU float opcodes exist on gfx1150..gfx1153 only: in gfx1100..gfx1103 code they are
/// illegal instructions (LLVM 22 rejects the words there).
#[test]
fn salu_float_is_gfx1150_only() {
    // `s_add_f32 s8, s2, s4` (SOP2 opcode 0x40) and `s_ceil_f32 s8, s4` (SOP1 0x60).
    for w in [0xA008_0402u32, 0xBE88_6004] {
        for id in [0x1100, 0x1101, 0x1102, 0x1103] {
            assert!(decode(&Target::new(Gpu { id }), &w.to_le_bytes(), 0).is_err());
        }
        for id in [0x1150, 0x1151, 0x1152, 0x1153] {
            let t = Target::new(Gpu { id });
            let inst = decode(&t, &w.to_le_bytes(), 0).expect("decodes on gfx115x");
            assert!(disassemble(&t, &inst, 0).starts_with(if w == 0xA008_0402 {
                "s_add_f32 s8, s2, s4"
            } else {
                "s_ceil_f32 s8, s4"
            }));
        }
    }
}

fn check(cases: &str, gpu: Gpu) {
    check_wave(cases, gpu, 32);
}

/// Every case of `cases` on `gpu` with the given wave size.
fn check_wave(cases: &str, gpu: Gpu, wave_size: u32) {
    let target = Target { gpu, wave_size };
    let mut total = 0;
    let mut bad = Vec::new();
    for line in cases.lines().filter(|l| !l.starts_with('#')) {
        let (hex, want) = line.split_once(" | ").expect("case line: words | text");
        let words: Vec<u32> = hex
            .split_whitespace()
            .map(|w| u32::from_str_radix(w, 16).expect("hex word"))
            .collect();
        // Trailing bytes after the instruction must not be consumed.
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        bytes.extend_from_slice(&[0xAB; 8]);
        total += 1;
        let got = match decode(&target, &bytes, 0x1000) {
            Ok(inst) if inst.size as usize == words.len() * 4 => {
                disassemble(&target, &inst, 0x1000)
            }
            Ok(inst) => format!("<size {} instead of {}>", inst.size, words.len() * 4),
            Err(e) => format!("<{e}>"),
        };
        if got != want {
            bad.push(format!("{hex}\n  want: {want}\n  got:  {got}"));
        }
    }
    assert!(total > 1000, "too few cases: {total}");
    if !bad.is_empty() {
        let n = bad.len();
        let max = std::env::var("DECODE_CASES_SHOW")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(40);
        bad.truncate(max);
        panic!("{n} of {total} cases differ from LLVM:\n{}", bad.join("\n"));
    }
}

#[test]
fn gfx1100_wave64_matches_llvm() {
    check_wave(
        include_str!("../../../gen/gfx1100_w64_cases.txt"),
        Gpu::GFX1100,
        64,
    );
}

#[test]
fn gfx1200_wave64_matches_llvm() {
    check_wave(
        include_str!("../../../gen/gfx1200_w64_cases.txt"),
        Gpu::GFX1200,
        64,
    );
}
