//! Robustness of the RDNA (GFX11, GFX12) decoder and printer: arbitrary bytes never panic,
//! never make the decoder claim more bytes than it was given, and errors name the pc and
//! the bytes. Wave32 and wave64.

use proptest::prelude::*;
use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

const GPUS: [Gpu; 3] = [Gpu::GFX1100, Gpu::GFX1200, Gpu::GFX1201];

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

fn targets() -> impl Iterator<Item = Target> {
    GPUS.into_iter().flat_map(|gpu| {
        [32, 64]
            .into_iter()
            .map(move |wave_size| Target { gpu, wave_size })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    /// Any byte string (including short and empty ones).
    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..24), pc in any::<u64>()) {
        for t in targets() {
            check(&t, &bytes, pc);
        }
    }

    /// Words whose top bits select each RDNA encoding, so every decoder path is reached,
    /// with the instruction cut at every length.
    #[test]
    fn every_encoding(prefix in 0usize..16, w in proptest::collection::vec(any::<u32>(), 1..5), cut in 0usize..20) {
        const TOPS: [(u32, u32); 16] = [
            (0x8000_0000, 0xC000_0000), // SOP2/SOPK/SOP1/SOPC/SOPP
            (0xBE80_0000, 0xFF80_0000), // SOP1
            (0xBF80_0000, 0xFF80_0000), // SOPP
            (0xF400_0000, 0xFC00_0000), // SMEM
            (0x7E00_0000, 0xFE00_0000), // VOP1
            (0x7C00_0000, 0xFE00_0000), // VOPC
            (0x0000_0000, 0x8000_0000), // VOP2
            (0xD400_0000, 0xFC00_0000), // VOP3
            (0xCC00_0000, 0xFF00_0000), // VOP3P
            (0xC800_0000, 0xFC00_0000), // VOPD
            (0xD800_0000, 0xFC00_0000), // DS
            (0xDC00_0000, 0xFC00_0000), // GFX11 FLAT
            (0xEC00_0000, 0xFC00_0000), // GFX12 VFLAT/VGLOBAL/VSCRATCH
            (0xE000_0000, 0xF400_0000), // GFX11 MUBUF/MTBUF
            (0xC400_0000, 0xFC00_0000), // GFX12 VBUFFER
            (0xF000_0000, 0xF000_0000), // MIMG/EXP and the rest
        ];
        let (top, mask) = TOPS[prefix];
        let mut words = w.clone();
        words[0] = (words[0] & !mask) | top;
        let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
        for t in targets() {
            check(&t, &bytes, 0x1000);
            check(&t, &bytes[..cut.min(bytes.len())], 0x2000);
        }
    }
}

/// An undecodable word is an error with the address and the word, on every RDNA target.
#[test]
fn invalid_word_is_an_error_with_pc_and_bytes() {
    for t in targets() {
        // SOPP opcode 0x7F does not exist on GFX11 or GFX12.
        let e = decode(&t, &0xBFFF_0000u32.to_le_bytes(), 0x1234).unwrap_err();
        assert_eq!(e.pc, 0x1234);
        assert_eq!(e.bytes, "BFFF0000");
        // A VOP3 word without its second dword.
        let e = decode(&t, &0xD503_0001u32.to_le_bytes(), 0x40).unwrap_err();
        assert!(e.to_string().contains("truncated"), "{e}");
        assert!(decode(&t, &[], 0).is_err());
    }
}
