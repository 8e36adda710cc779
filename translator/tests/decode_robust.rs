//! Robustness of the GFX9 decoder and printer: arbitrary bytes never panic, never make the
//! decoder claim more bytes than it was given, and errors name the pc and the bytes.

use proptest::prelude::*;
use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

fn check(target: &Target, bytes: &[u8], pc: u64) {
    match decode(target, bytes, pc) {
        Ok(inst) => {
            assert!(
                inst.size as usize <= bytes.len(),
                "size {} > {} bytes",
                inst.size,
                bytes.len()
            );
            assert!(matches!(inst.size, 4 | 8 | 12 | 16));
            let text = disassemble(target, &inst, pc);
            assert!(!text.is_empty());
        }
        Err(e) => {
            assert_eq!(e.pc, pc);
            assert!(!e.bytes.is_empty());
            let msg = e.to_string();
            assert!(msg.contains(&format!("{pc:#x}")), "{msg}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    /// Any byte string (including short and empty ones).
    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..24), pc in any::<u64>()) {
        for gpu in [Gpu::GFX942, Gpu::GFX950] {
            check(&Target::new(gpu), &bytes, pc);
        }
    }

    /// Words whose top bits select each GFX9 encoding, so every decoder path is reached.
    #[test]
    fn every_encoding(prefix in 0usize..12, w in proptest::collection::vec(any::<u32>(), 1..5)) {
        const TOPS: [(u32, u32); 12] = [
            (0x8000_0000, 0xC000_0000), // SOP2/SOPK/SOP1/SOPC/SOPP
            (0xBE80_0000, 0xFF80_0000), // SOP1
            (0xBF80_0000, 0xFF80_0000), // SOPP
            (0xC000_0000, 0xFC00_0000), // SMEM
            (0x7E00_0000, 0xFE00_0000), // VOP1
            (0x7C00_0000, 0xFE00_0000), // VOPC
            (0xD000_0000, 0xFC00_0000), // VOP3
            (0xD380_0000, 0xFF80_0000), // VOP3P
            (0xD800_0000, 0xFC00_0000), // DS
            (0xDC00_0000, 0xFC00_0000), // FLAT
            (0xE000_0000, 0xFC00_0000), // MUBUF
            (0xE800_0000, 0xFC00_0000), // MTBUF
        ];
        let (top, mask) = TOPS[prefix];
        let mut words = w.clone();
        words[0] = (words[0] & !mask) | top;
        let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
        for len in 0..=bytes.len() {
            check(&Target::new(Gpu::GFX942), &bytes[..len], 0x1000);
        }
    }
}

/// Every oracle instruction, cut short by at least one byte, is a "truncated" error.
#[test]
fn truncated_oracle_cases_are_errors() {
    let target = Target::new(Gpu::GFX942);
    let mut n = 0;
    for line in include_str!("../gen/gfx942_cases.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
    {
        let Some((hex, _)) = line.split_once(" | ") else {
            continue;
        };
        let bytes: Vec<u8> = hex
            .split_whitespace()
            .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
            .collect();
        for len in 0..bytes.len() {
            let e = decode(&target, &bytes[..len], 0x40).expect_err("truncated input decoded");
            assert!(e.reason.contains("truncated"), "{e}");
            n += 1;
        }
    }
    assert!(n > 5000);
}

/// Targets without a decoder give an error, not a panic.
#[test]
fn unsupported_family_is_an_error() {
    // gfx1100/gfx1200 have decoders now (`isa::rdna`); gfx900 is not a wavejit target.
    let target = Target {
        gpu: Gpu { id: 0x900 },
        wave_size: 64,
    };
    let e = decode(&target, &[0, 0, 0x81, 0xBF], 8).unwrap_err();
    assert!(e.reason.contains("gfx900"), "{e}");
}
