//! Robustness of the GFX9 decoder and printer: arbitrary bytes never panic, never make the
//! decoder claim more bytes than it was given, and errors name the pc and the bytes.

use proptest::prelude::*;
use wavejit_translator::isa::{
    decode, decode_into, disassemble, Dpp, Format, Gpu, Inst, MaiFields, MemFields, Mods, Op, Opnd,
    Sdwa, Target,
};

/// An instruction with every field set to something a decoder never starts from.
fn dirty() -> Inst {
    Inst {
        op: Op::V_MFMA_F32_32X32X8_F16,
        format: Format::Mai,
        size: 16,
        words: [0xDEAD_BEEF; 4],
        dst: [Opnd::vgpr(7, 4); 2],
        src: [Opnd::agpr(3, 2); 4],
        literal: Some(0x1234_5678),
        imm: -77,
        mods: Mods {
            abs: 7,
            neg: 7,
            neg_hi: 7,
            op_sel: 15,
            op_sel_hi: 7,
            clamp: true,
            omod: 3,
        },
        dpp: Some(Dpp {
            ctrl: 0x141,
            row_mask: 3,
            bank_mask: 5,
            bound_ctrl: true,
            fi: true,
        }),
        dpp8: Some([7, 6, 5, 4, 3, 2, 1, 0]),
        sdwa: Some(Sdwa {
            dst_sel: 1,
            dst_unused: 2,
            src0_sel: 3,
            src1_sel: 4,
            sext: 3,
        }),
        mem: MemFields {
            offset: -5,
            offset1: 9,
            glc: true,
            slc: true,
            sc1: true,
            cpol: 0x1F,
            offen: true,
            idxen: true,
            lds: true,
            gds: true,
            format: 0x3F,
            dlc: true,
            tfe: true,
        },
        mai: MaiFields {
            cbsz: 4,
            abid: 15,
            blgp: 7,
            scale: Some([Opnd::vgpr(1, 1); 2]),
        },
    }
}

fn check(target: &Target, bytes: &[u8], pc: u64) {
    // `decode_into` over a used `Inst` must give exactly what `decode` gives.
    let mut reused = dirty();
    let into = decode_into(target, bytes, pc, &mut reused);
    let fresh = decode(target, bytes, pc);
    assert_eq!(into.is_ok(), fresh.is_ok());
    if let Ok(inst) = &fresh {
        assert_eq!(*inst, reused);
    }
    match fresh {
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
        for gpu in [Gpu::GFX942, Gpu::GFX950, Gpu::GFX1100, Gpu::GFX1200] {
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
    for line in include_str!("../../../gen/gfx942_cases.txt")
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

/// Words llvm-mc-22 -mcpu=gfx942 rejects ("invalid instruction encoding"), found by
/// `scripts/random_words.py`: each must be a decode error too, with its pc.
#[test]
fn words_llvm_rejects_are_errors() {
    const REJECTED: &[(&str, &str)] = &[
        ("BE8001FA 12345678", "DPP source code as an SALU operand"),
        ("D802AEF0 58340CB1", "ds_sub_u32 with a VDST field"),
        ("7F786AFA 3EF344F6", "v_clrexcp with a VDST field"),
        ("BF83E3B7", "s_wakeup with an immediate"),
        ("BF8A0005", "s_barrier with an immediate"),
        ("C0820000 00000001", "SMEM cache control with IMM set"),
        ("DC500000 00050402", "FLAT with a SADDR field"),
        ("DC502000 00000402", "FLAT with bit 13 set"),
        ("E0710000 03010200", "MUBUF store with the LDS bit"),
        ("E0510000 03810000", "MUBUF load to LDS with ACC"),
        (
            "7CC040F9 EA5E0F1A",
            "v_cmp_f_f64 with SDWA (64-bit operands)",
        ),
        ("D3E20000 242A0D04", "SMFMAC with BLGP"),
        ("D1ED8039 042C0E49", "v_perm_b32 with CLAMP"),
        ("48DEB8FA 2FD0551F", "v_madmk_f16 with DPP"),
    ];
    let target = Target::new(Gpu::GFX942);
    for (words, why) in REJECTED {
        let mut bytes: Vec<u8> = words
            .split_whitespace()
            .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
            .collect();
        bytes.extend_from_slice(&[0; 8]);
        match decode(&target, &bytes, 0x20) {
            Ok(inst) => panic!(
                "{words} ({why}) decoded as {}",
                disassemble(&target, &inst, 0x20)
            ),
            Err(e) => assert_eq!(e.pc, 0x20, "{words}"),
        }
    }
}

/// Scalar register tuples ignore the low code bits as the hardware does; LLVM prints the
/// aligned tuple (texts from llvm-mc-22 -mcpu=gfx942 --disassemble).
#[test]
fn scalar_tuples_are_aligned() {
    let target = Target::new(Gpu::GFX942);
    for (words, want) in [
        ("BE800103", "s_mov_b64 s[0:1], s[2:3]"),
        ("C00A0140 00000000", "s_load_dwordx4 s[4:7], s[0:1], 0x0"),
        ("E0510000 03010000", "buffer_load_dword off, s[4:7], s3 lds"),
    ] {
        let bytes: Vec<u8> = words
            .split_whitespace()
            .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
            .collect();
        let inst = decode(&target, &bytes, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(inst.size as usize, bytes.len());
        assert_eq!(disassemble(&target, &inst, 0), want);
    }
}
