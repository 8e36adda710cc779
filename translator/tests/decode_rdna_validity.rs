//! Value-dependent validity rules of the RDNA decoder: words llvm-mc-22 rejects ("invalid
//! instruction encoding", checked with `llvm-mc-22 -arch=amdgcn -mcpu=CPU [-mattr=...]
//! --disassemble` when these cases were written; found by `scripts/random_words.py`) must be
//! rejected, and words it accepts only for some field values must print LLVM's text.

use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

fn target(gpu: u32, wave_size: u32) -> Target {
    Target {
        gpu: Gpu { id: gpu },
        wave_size,
    }
}

/// The hex words, followed by `s_nop 0`s (a wrongly accepted instruction must not fail for
/// lack of bytes).
fn bytes(words: &str) -> Vec<u8> {
    let mut b: Vec<u8> = words
        .split_whitespace()
        .flat_map(|w| u32::from_str_radix(w, 16).expect("hex word").to_le_bytes())
        .collect();
    for _ in 0..3 {
        b.extend_from_slice(&0xBF80_0000u32.to_le_bytes());
    }
    b
}

/// (gpu, wave size, words, the rule that makes LLVM reject them).
const REJECTED: &[(u32, u32, &str, &str)] = &[
    (0x1100, 32, "F481BE5D EC1FB0D5", "s_gl1_inv with DLC set"),
    (
        0x1100,
        64,
        "F48DB5DC 9C7B00DD",
        "s_atc_probe_buffer with DLC set",
    ),
    (
        0x1100,
        32,
        "7F66C2FA F88C62E6",
        "v_cos_f16 DPP16 with src1 abs",
    ),
    (
        0x1200,
        32,
        "7E9EBEFA B98EC314",
        "v_fract_f16 DPP16 with src1 abs",
    ),
    (
        0x1100,
        32,
        "7D55686B",
        "v_cmpx_nlg_f64_e32 with vcc_hi as a 64-bit source",
    ),
    (
        0x1100,
        64,
        "7D55686B",
        "v_cmpx_nlg_f64_e32 with vcc_hi as a 64-bit source",
    ),
    (
        0x1100,
        64,
        "98C5E7B5",
        "s_cselect_b64 with code 0xe7 as a 64-bit source",
    ),
    (
        0x1150,
        32,
        "DD1293F9 B36B070A",
        "global atomic with vcc_hi as SADDR",
    ),
    (
        0x1150,
        32,
        "D5D0111F 11CE42EA 3C72D39B",
        "fake16 v_cvt_f16_u16 with abs",
    ),
    (
        0x1200,
        32,
        "F4250A06 9EF853C1",
        "s_prefetch_data_pc_rel with SDATA 40",
    ),
    (
        0x1200,
        32,
        "E58BF4BB 9F957A7A F2F51EA2",
        "image resource code 0xbd",
    ),
    (
        0x1200,
        64,
        "F6805A5C E302BBDA",
        "s_load_b128 into s[104:107]",
    ),
    (
        0x1200,
        64,
        "F42B147F F52FBD0E",
        "s_buffer_load with exec as SBASE",
    ),
    (
        0x1200,
        32,
        "EE0B01FB 69D874D3 8973D95F",
        "global_wb with an SADDR",
    ),
    (
        0x1200,
        64,
        "D1C05AB5 78BC2BD0 84767433",
        "image_load_mip with VADDR4 set",
    ),
    (
        0x1200,
        32,
        "7FB005C1",
        "v_readfirstlane_b32 with SGPR VDST code 216",
    ),
    (0x1200, 32, "BA6B94FF", "s_call_b64 with vcc_hi as SDST"),
    (0x1100, 32, "BEFD2136", "s_and_saveexec_b64 with m0 as SDST"),
    (0x1100, 32, "947D5E4B", "s_bfe_u64 with m0 as SDST"),
    (
        0x1100,
        64,
        "D4064AE3 63C4AA01",
        "v_cmp_ge_f16_e64 with SDST code 227",
    ),
    (
        0x1200,
        64,
        "D6FDFFFD 59EC3893",
        "v_div_scale_f64 with exec_hi as a wave64 SDST",
    ),
    (
        0x1100,
        64,
        "D4B538BA 2028474E",
        "fake16 v_cmpx_ne_i16_e64 with neg",
    ),
];

#[test]
fn llvm_rejected_words_are_rejected() {
    let mut bad = Vec::new();
    for &(gpu, wave, words, why) in REJECTED {
        let t = target(gpu, wave);
        if let Ok(inst) = decode(&t, &bytes(words), 0) {
            let text = disassemble(&t, &inst, 0);
            bad.push(format!(
                "gfx{gpu:x} w{wave} {words} ({why}): decoded as {text}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// (gpu, words, LLVM's text): accepted for these field values only.
const ACCEPTED: &[(u32, &str, &str)] = &[
    // A 32-bit VINTERP source below v0 is valid for LLVM's special registers only.
    (
        0x1100,
        "CD0572C8 27B1D913",
        "v_interp_p2_rtz_f16_f32 v200.h, -v19.l, src_shared_limit, v236 op_sel:[0,1,1,1] wait_exp:2",
    ),
    (
        0x1201,
        "CDE3C7E0 7BEE923E",
        "v_interp_p2_f16_f32 v224.h, -v62.l, -v73, src_vccz clamp op_sel:[0,0,0,1] wait_exp:7",
    ),
    // So is a VGPR-only SRC0, which also takes the DPP codes.
    (0x1200, "7F72CAE7", "v_swap_b32 v185, src_flat_scratch_base_hi"),
    (0x1100, "7F74CEFC", "v_permlane64_b32 v186, src_execz"),
    (0x1100, "7EDE88E9 D408EDDF", "v_movrelsd_b32_dpp v111, v223 dpp8:[5,5,3,4,0,0,5,6]"),
    // `v_fmac_*_e64_dpp`'s constant src1 prints as its raw field, inside its modifiers.
    (
        0x1201,
        "D5368206 23212EEA 5C73C7D4",
        "v_fmac_f16_e64_dpp v6.l, -v212.l, |0x97| clamp dpp8:[7,0,7,1,7,0,7,2] fi:1",
    ),
];

#[test]
fn special_sources_print_as_llvm() {
    for &(gpu, words, want) in ACCEPTED {
        let t = target(gpu, 32);
        let inst = decode(&t, &bytes(words), 0).expect("LLVM accepts it");
        assert_eq!(inst.size as usize, words.split_whitespace().count() * 4);
        assert_eq!(disassemble(&t, &inst, 0), want);
    }
    // `s5` as a 32-bit VINTERP source: LLVM flags it as an invalid register; rejected.
    let s5 = format!("CD000002 {:08X}", 5 | (264 << 9) | (272 << 18));
    assert!(decode(&target(0x1100, 32), &bytes(&s5), 0).is_err());
}
