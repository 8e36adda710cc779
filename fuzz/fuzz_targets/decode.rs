//! Decoder + printer on arbitrary bytes, for every target: the first input byte picks the
//! GPU (and wave64 for RDNA with bit 7), the rest is code decoded front to back as a
//! disassembler would (an undecodable word skips 4 bytes). Decoding must never panic,
//! never claim more bytes than it was given, and every decoded instruction must print.
//! `decode_into` reuses one `Inst` across the input (what fast loops do) and must agree
//! with `decode` from a fresh one: nothing of the previous instruction may leak through.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wavejit_translator::isa::{decode, decode_into, disassemble, Gpu, Inst, Target};

const GPUS: [Gpu; 5] = [
    Gpu::GFX942,
    Gpu::GFX950,
    Gpu::GFX1100,
    Gpu::GFX1200,
    Gpu::GFX1201,
];

fuzz_target!(|data: &[u8]| {
    let Some((&sel, code)) = data.split_first() else {
        return;
    };
    let mut target = Target::new(GPUS[(sel & 0x7F) as usize % GPUS.len()]);
    if sel & 0x80 != 0 && target.wave_size == 32 {
        target.wave_size = 64;
    }
    let mut off = 0;
    let mut reused = Inst::default();
    while off < code.len() {
        let pc = 0x1000 + off as u64;
        let into = decode_into(&target, &code[off..], pc, &mut reused);
        let fresh = decode(&target, &code[off..], pc);
        assert_eq!(
            into.is_ok(),
            fresh.is_ok(),
            "decode_into and decode disagree"
        );
        match fresh {
            Ok(inst) => {
                assert_eq!(
                    inst, reused,
                    "decode_into kept state of an earlier instruction"
                );
                let n = inst.size as usize;
                assert!(matches!(n, 4 | 8 | 12 | 16), "size {n}");
                assert!(n <= code.len() - off, "size {n} past the input");
                assert!(!disassemble(&target, &inst, pc).is_empty());
                off += n;
            }
            Err(e) => {
                assert_eq!(e.pc, pc);
                off += 4;
            }
        }
    }
});
