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

fn bytes(words: &[u32]) -> Vec<u8> {
    // Trailing `s_nop 0`s: a wrongly accepted instruction must not fail for lack of bytes.
    let mut b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    for _ in 0..3 {
        b.extend_from_slice(&0xBF80_0000u32.to_le_bytes());
    }
    b
}

/// (gpu, wave size, words, the rule that makes LLVM reject them).
const REJECTED: &[(u32, u32, &[u32], &str)] = &[
    (
        0x1100,
        32,
        &[0xF481_BE5D, 0xEC1F_B0D5],
        "s_gl1_inv with DLC set",
    ),
    (
        0x1100,
        64,
        &[0xF48D_B5DC, 0x9C7B_00DD],
        "s_atc_probe_buffer with DLC set",
    ),
    (
        0x1100,
        32,
        &[0x7F66_C2FA, 0xF88C_62E6],
        "v_cos_f16 DPP16 with src1 abs",
    ),
    (
        0x1200,
        32,
        &[0x7E9E_BEFA, 0xB98E_C314],
        "v_fract_f16 DPP16 with src1 abs",
    ),
    (
        0x1100,
        32,
        &[0x7D55_686B],
        "v_cmpx_nlg_f64_e32 with vcc_hi as a 64-bit source",
    ),
    (
        0x1100,
        64,
        &[0x7D55_686B],
        "v_cmpx_nlg_f64_e32 with vcc_hi as a 64-bit source",
    ),
    (
        0x1100,
        64,
        &[0x98C5_E7B5],
        "s_cselect_b64 with code 0xe7 as a 64-bit source",
    ),
    (
        0x1150,
        32,
        &[0xDD12_93F9, 0xB36B_070A],
        "global atomic with vcc_hi as SADDR",
    ),
    (
        0x1150,
        32,
        &[0xD5D0_111F, 0x11CE_42EA, 0x3C72_D39B],
        "fake16 v_cvt_f16_u16 with abs",
    ),
    (
        0x1200,
        32,
        &[0xF425_0A06, 0x9EF8_53C1],
        "s_prefetch_data_pc_rel with SDATA 40",
    ),
    (
        0x1200,
        32,
        &[0xE58B_F4BB, 0x9F95_7A7A, 0xF2F5_1EA2],
        "image resource code 0xbd",
    ),
    (
        0x1200,
        64,
        &[0xF680_5A5C, 0xE302_BBDA],
        "s_load_b128 into s[104:107]",
    ),
    (
        0x1200,
        64,
        &[0xF42B_147F, 0xF52F_BD0E],
        "s_buffer_load with exec as SBASE",
    ),
    (
        0x1200,
        32,
        &[0xEE0B_01FB, 0x69D8_74D3, 0x8973_D95F],
        "global_wb with an SADDR",
    ),
];

#[test]
fn llvm_rejected_words_are_rejected() {
    let mut bad = Vec::new();
    for &(gpu, wave, words, why) in REJECTED {
        if let Ok(inst) = decode(&target(gpu, wave), &bytes(words), 0) {
            let text = disassemble(&target(gpu, wave), &inst, 0);
            bad.push(format!(
                "gfx{gpu:x} w{wave} {words:08X?} ({why}): decoded as {text}"
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn vinterp_special_sources_print_as_llvm() {
    // A 32-bit VINTERP source below v0 is valid for LLVM's special registers only.
    let cases: [(u32, &[u32], &str); 2] = [
        (
            0x1100,
            &[0xCD05_72C8, 0x27B1_D913],
            "v_interp_p2_rtz_f16_f32 v200.h, -v19.l, src_shared_limit, v236 op_sel:[0,1,1,1] wait_exp:2",
        ),
        (
            0x1201,
            &[0xCDE3_C7E0, 0x7BEE_923E],
            "v_interp_p2_f16_f32 v224.h, -v62.l, -v73, src_vccz clamp op_sel:[0,0,0,1] wait_exp:7",
        ),
    ];
    for (gpu, words, want) in cases {
        let t = target(gpu, 32);
        let inst = decode(&t, &bytes(words), 0).expect("LLVM accepts it");
        assert_eq!(inst.size, 8);
        assert_eq!(disassemble(&t, &inst, 0), want);
    }
    // `s5` there is an invalid register for LLVM (it flags it): rejected.
    let s5 = [0xCD00_0002u32, 5 | (264 << 9) | (272 << 18)];
    assert!(decode(&target(0x1100, 32), &bytes(&s5), 0).is_err());
}
