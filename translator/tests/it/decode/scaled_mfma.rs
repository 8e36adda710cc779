//! gfx950 block-scaled MFMA: the `v_mfma_ld_scale_b32` prefix followed by an F8F6F4 MFMA with
//! ABID = 1 decodes as ONE 16-byte instruction, printed as LLVM prints it
//! (`v_mfma_scale_f32_*`), with the scale sources in `Inst::mai.scale` and their byte
//! selects in `Inst::mods.op_sel`/`op_sel_hi`.
//!
//! The cases were made by llvm-mc-22 -mcpu=gfx950 -show-encoding from the assembly text
//! (LLVM's assembler gives the words, its printer the expected text).

use wavejit_translator::isa::{decode, disassemble, Format, Gpu, Inst, Op, Opnd, Target};

/// (words, text) pairs from LLVM 22's assembler.
const CASES: &[(&str, &str)] = &[
    ("D3AC0000 00022B14 D3AD0800 04021904", "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel_hi:[0,0,0]"),
    ("D3AC0800 10022B14 D3AD0800 04021904", "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21 op_sel:[1,0,0] op_sel_hi:[0,1,0]"),
    ("D3AC1000 180201FF D3AD8B00 94021904", "v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[4:9], a[12:15], a[0:3], v255, v0 op_sel:[0,1,0] op_sel_hi:[1,1,0] cbsz:3 blgp:4"),
    ("D3AC0000 00020501 D3AD0C04 42021908", "v_mfma_scale_f32_16x16x128_f8f6f4 v[4:7], v[8:11], v[12:17], 0, v1, v2 op_sel_hi:[0,0,0] cbsz:4 blgp:2"),
    ("D3AC0000 08024320 D3AE0900 24023110", "v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:31], v[0:15], v32, v33 op_sel_hi:[1,0,0] cbsz:1 blgp:1"),
    ("D3AC1800 18020702 D3AE8900 2BCA3110", "v_mfma_scale_f32_32x32x64_f8f6f4 a[0:15], a[16:23], v[24:31], 1.0, v2, v3 op_sel:[1,1,0] op_sel_hi:[1,1,0] cbsz:1 blgp:1"),
    ("D3AC0000 0002CB64 D3AE8A10 7C421100", "v_mfma_scale_f32_32x32x64_f8f6f4 a[16:31], a[0:5], a[8:13], a[16:31], v100, v101 op_sel_hi:[0,0,0] cbsz:2 blgp:3"),
    ("D3AC4000 18022B14", "v_mfma_ld_scale_b32 v20, v21"),
    ("D3AC4800 10020501", "v_mfma_ld_scale_b32 v1, v2 op_sel:[1,0] op_sel_hi:[0,1]"),
    ("D3AD0200 84021904", "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:15], v[0:3] cbsz:2 blgp:4"),
    ("D3AE8400 24021904", "v_mfma_f32_32x32x64_f8f6f4 a[0:15], v[4:7], v[12:19], a[0:15] cbsz:4 blgp:1"),
];

fn bytes(words: &str) -> Vec<u8> {
    words
        .split_whitespace()
        .flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes())
        .collect()
}

fn gfx950() -> Target {
    Target::new(Gpu::GFX950)
}

fn dec(b: &[u8]) -> Inst {
    decode(&gfx950(), b, 0x100).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn llvm_text_and_size() {
    for (words, want) in CASES {
        let mut b = bytes(words);
        let n = b.len();
        // Poison after the instruction: it must not be consumed.
        b.extend_from_slice(&[0x5A; 8]);
        let inst = dec(&b);
        assert_eq!(inst.size as usize, n, "{words}");
        assert_eq!(disassemble(&gfx950(), &inst, 0x100), *want, "{words}");
    }
}

#[test]
fn pair_fields() {
    // v_mfma_scale_f32_16x16x128_f8f6f4 a[0:3], v[4:9], a[12:15], a[0:3], v255, v0
    //   op_sel:[0,1,0] op_sel_hi:[1,1,0] cbsz:3 blgp:4
    let inst = dec(&bytes(CASES[2].0));
    assert_eq!(inst.op, Op::V_MFMA_F32_16X16X128_F8F6F4);
    assert_eq!(inst.format, Format::Mai);
    assert_eq!(inst.size, 16);
    assert_eq!(inst.words, [0xD3AC1000, 0x180201FF, 0xD3AD8B00, 0x94021904]);
    assert_eq!(inst.dst[0], Opnd::agpr(0, 4));
    assert_eq!(inst.src[0], Opnd::vgpr(4, 6)); // FP6 A: 6 registers
    assert_eq!(inst.src[1], Opnd::agpr(12, 4)); // FP4 B: 4 registers
    assert_eq!(inst.src[2], Opnd::agpr(0, 4));
    assert_eq!(inst.mai.scale, Some([Opnd::vgpr(255, 1), Opnd::vgpr(0, 1)]));
    assert_eq!((inst.mai.cbsz, inst.mai.blgp, inst.mai.abid), (3, 4, 1));
    assert_eq!(inst.mods.op_sel, 0b10);
    assert_eq!(inst.mods.op_sel_hi, 0b11);
    // The unscaled form carries no scale.
    let plain = dec(&bytes(CASES[9].0));
    assert_eq!(plain.mai.scale, None);
    assert_eq!(plain.src[0].count, 6);
    assert_eq!(plain.src[1].count, 4);
}

#[test]
fn prefix_alone_when_the_pair_is_cut_or_broken() {
    let pair = bytes(CASES[0].0);
    // Fewer than 16 bytes: LLVM decodes the prefix on its own (8 bytes).
    for len in 8..16 {
        let inst = dec(&pair[..len]);
        assert_eq!(inst.op, Op::V_MFMA_LD_SCALE_B32, "len {len}");
        assert_eq!(inst.size, 8);
        assert_eq!(inst.mai.scale, None);
    }
    // Second instruction with ABID = 3, or not an F8F6F4 MFMA: the prefix stands alone.
    for second in [
        "D3AD1800 04021904",
        "D3AD4800 04021904",
        "D3B50000 04021104",
    ] {
        let mut b = pair[..8].to_vec();
        b.extend(bytes(second));
        let inst = dec(&b);
        assert_eq!(inst.op, Op::V_MFMA_LD_SCALE_B32, "{second}");
        assert_eq!(inst.size, 8);
    }
    // A scale source that is not a VGPR (s5): not a scaled pair either.
    let inst = dec(&bytes("D3AC0000 00020A05 D3AD0800 04021904"));
    assert_eq!(inst.size, 8);
}

#[test]
fn abid_without_prefix_is_an_error() {
    // LLVM: "invalid instruction encoding" for the MFMA half on its own (ABID is one of
    // its generated fixed bits).
    let e = decode(&gfx950(), &bytes("D3AD0800 04021904"), 0x40).unwrap_err();
    assert_eq!(e.pc, 0x40);
    assert!(e.reason.contains("VOP3P bits 0x800"), "{e}");
}

#[test]
fn no_scaled_mfma_on_gfx942() {
    let t = Target::new(Gpu::GFX942);
    assert!(decode(&t, &bytes(CASES[0].0), 0).is_err());
}
