//! Value-dependent validity rules of the RDNA decoder: words llvm-mc-22 rejects ("invalid
//! instruction encoding", checked with `llvm-mc-22 -arch=amdgcn -mcpu=CPU [-mattr=...]
//! --disassemble` when these cases were written; found by `scripts/random_words.py`) must be
//! rejected, and words it accepts only for some field values must print LLVM's text.

use wavejit_translator::isa::{decode, disassemble, Gpu, Target};
use wavejit_translator::lift::coverage::lift_one;

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
    // WMMA's C (8 VGPRs in wave32, 4 in wave64): no SGPR tuple past s105, no special
    // register (random_words.py --count 100000 --seed 31; generated VOP3P X8/X4 maps).
    (
        0x1100,
        32,
        "CC430EB9 21ABB545",
        "v_wmma_bf16_16x16x16_bf16 with C at vcc_lo (s[106:113])",
    ),
    (
        0x1100,
        32,
        "CC434000 03FBB545",
        "v_wmma_bf16_16x16x16_bf16 with C = src_lds_direct",
    ),
    (
        0x1100,
        64,
        "CC434000 01FBB545",
        "v_wmma_bf16_16x16x16_bf16 with C at exec_lo",
    ),
    (0x1200, 32, "7E023600", "v_pipeflush with VDST 1"),
    // OP_SEL[1] of `v_cvt_sr_fp8_f32`: LLVM 22 ignores it in the DPP forms (cases below) but
    // rejects the VOP3 word.
    (
        0x1200,
        32,
        "D76B3017 27B60327",
        "v_cvt_sr_fp8_f32 VOP3 with OP_SEL[1]",
    ),
    (
        0x1201,
        32,
        "E48609DC 0844E4BF 7E2C9F71",
        "VSAMPLE image_msaa_load (no sampler) with SAMP not 0",
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
    // The literal code too, which then reads no literal (generated `*_DPP_RAW`).
    (
        0x1100,
        "D52B0002 0431FEFA FF04E404",
        "v_fmac_f32_e64_dpp v2, v4, 0xff quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf fi:1",
    ),
    (
        0x1200,
        "D5360002 0431FEE9 FAC68804",
        "v_fmac_f16_e64_dpp v2.l, v4.l, 0xff dpp8:[0,1,2,3,4,5,6,7]",
    ),
];

/// (gpu, wave size, words, LLVM's text) from `random_words.py --count 20000 --seed 7`,
/// checked with `llvm-mc-22 -arch=amdgcn -mcpu=CPU -mattr=+real-true16[,+wavefrontsize64]
/// --disassemble` (gfx1100 without `-mattr`).
const ACCEPTED_RULES: &[(u32, u32, &str, &str)] = &[
    // GFX11 FLAT-segment offsets are unsigned (bit 12 set: 5666, not -2526); the same bits in
    // GLOBAL are signed.
    (
        0x1100,
        32,
        "DC501622 017C0002",
        "flat_load_b32 v1, v[2:3] offset:5666",
    ),
    (
        0x1100,
        32,
        "DC521622 017C0002",
        "global_load_b32 v1, v[2:3], off offset:-2526",
    ),
    // OP_SEL of the tied accumulator (bit 2): LLVM 22 falls back to the fake16 form.
    (
        0x1100,
        32,
        "D5367918 18FD449C",
        "v_fmac_f16_e64 v24, |28|, 34 div:2",
    ),
    // OP_SEL of `v_cndmask_b16`'s lane mask (an SGPR source): the fake16 form too.
    (
        0x1200,
        32,
        "D65D2200 41036733",
        "v_cndmask_b16 v0, v51, -|v179|, s64",
    ),
    // A GFX9 DPP control (wave_ror): decoded, printed as LLVM's comment only.
    (
        0x1200,
        64,
        "7D148EFA 32FF3C8C",
        "v_cmpx_nlg_f16 -|v12.h|, -|v71.l| /* wave_ror is not supported starting from GFX10 */ row_mask:0x3 bank_mask:0x2 bound_ctrl:1 fi:1",
    ),
    // Wave64 `global_load_tr_*` returns half the VGPRs of wave32.
    (
        0x1200,
        64,
        "EED60450 DFBCB09D C5F290FB",
        "global_load_tr_b64 v157, v251, s[80:81] offset:-3804528 th:TH_LOAD_BYPASS scope:SCOPE_SYS",
    ),
    (
        0x1200,
        32,
        "EED60450 DFBCB09D C5F290FB",
        "global_load_tr_b64 v[157:158], v251, s[80:81] offset:-3804528 th:TH_LOAD_BYPASS scope:SCOPE_SYS",
    ),
    (
        0x1200,
        64,
        "EE15E740 23FDE5E4 416BC320",
        "global_load_tr_b128 v[228:229], v32, s[64:65] offset:4287427 scale_offset th:0x7 scope:SCOPE_SYS",
    ),
    (
        0x1200,
        32,
        "EE15E740 23FDE5E4 416BC320",
        "global_load_tr_b128 v[228:231], v32, s[64:65] offset:4287427 scale_offset th:0x7 scope:SCOPE_SYS",
    ),
    // The `s_barrier_*` source class takes `src_lds_direct` (the SALU map does not).
    (0x1200, 32, "BEF551FE", "s_barrier_init src_lds_direct"),
    // A 16-bit literal operand: a VALU shows a marked inline low half with the whole
    // dword; SALU shows the low half, marked only when the high half is zero.
    (0x1100, 32, "64040AFF 12343C00", "v_add_f16_e32 v2.l, lit(0x12343c00), v5.l"),
    (0x1200, 32, "64040AFF 12341234", "v_add_f16_e32 v2.l, 0x1234, v5.l"),
    (0x1200, 32, "D5320002 0001FE02 00010000", "v_add_f16_e64 v2.l, s2, lit(0x10000)"),
    (
        0x1200,
        32,
        "CC204002 180208FF 12343C00",
        "v_fma_mix_f32 v2, lit(0x12343c00), v4, s0 op_sel_hi:[1,1,1]",
    ),
    (0x1200, 32, "BF51B1FF 800A0000", "s_cmp_lt_f16 0x0, 49"),
    // Packed f16: a literal with an inline f16 low half and a zero high half is marked.
    (0x1200, 32, "CC0F4002 180208FF 00003C00", "v_pk_add_f16 v2, lit(0x3c00), v4"),
    (0x1100, 32, "CC0F4002 180208FF 00003800", "v_pk_add_f16 v2, lit(0x3800), v4"),
    (0x1200, 32, "CC0A4002 180208FF 00003C00", "v_pk_add_u16 v2, 0x3c00, v4"),
    (0x1200, 32, "CC0F4002 180208FF 3C003C00", "v_pk_add_f16 v2, 0x3c003c00, v4"),
    // A buffer opcode without operands: SOFFSET and SRSRC are not checked (nor a literal).
    (0x1100, 64, "E0B386EF DF06339F", "buffer_gl1_inv"),
    (0x1100, 32, "E0B00000 001A0000", "buffer_gl1_inv"),
    (0x1100, 32, "E0B00000 FF000000", "buffer_gl1_inv"),
    // gfx12 `v_cndmask_b32_dpp` with abs on both sources: the bars close after VCC.
    (
        0x1200,
        64,
        "034390FA 65A83363",
        "v_cndmask_b32_dpp v161, |v99|, |v200, vcc| quad_perm:[3,0,3,0] row_mask:0x6 bank_mask:0x5 bound_ctrl:1",
    ),
    (
        0x1100,
        32,
        "034390FA 65A83363",
        "v_cndmask_b32_dpp v161, |v99|, |v200|, vcc_lo quad_perm:[3,0,3,0] row_mask:0x6 bank_mask:0x5 bound_ctrl:1",
    ),
    (0x1200, 32, "BF51B1FF 00000040", "s_cmp_lt_f16 lit(0x40), 49"),
    // A VOP3-encoded compare's lane mask (random_words.py --count 20000 --seed 21/22): the
    // `src_*` apertures in wave64, `src_lds_direct` in wave32.
    (
        0x1100,
        64,
        "D42892ED 26586132",
        "v_cmp_u_f64_e64 src_private_base, -v[50:51], |s[48:49]| clamp",
    ),
    (
        0x1200,
        64,
        "D407F0EC 42A42DA6",
        "v_cmp_o_f16_e64 src_shared_limit, v166, -s22 clamp",
    ),
    (
        0x1201,
        32,
        "D41DF1FE 220E4A4F",
        "v_cmp_neq_f32_e64 src_lds_direct, -|s79|, v37 clamp",
    ),
    (0x1100, 64, "D44200E6 00020501", "v_cmp_eq_i32_e64 src_flat_scratch_base_lo, v1, v2"),
    (0x1200, 32, "D44200FE 00020501", "v_cmp_eq_i32_e64 src_lds_direct, v1, v2"),
    // The OP_SEL bits of `v_dot2_{f16,bf16}_*`'s packed sources: accepted, ignored.
    (
        0x1100,
        32,
        "D6671BC5 A687ECE9 897B04DA",
        "v_dot2_bf16_bf16_e64_dpp v197.l, -|v218|, |v246|, -v161.l dpp8:[4,0,4,5,7,2,2,4]",
    ),
    (
        0x1200,
        32,
        "D66752E6 C75F97A4",
        "v_dot2_bf16_bf16 v230.h, v164, -|v203|, -v215.l op_sel:[0,0,0,1]",
    ),
    (
        0x1201,
        32,
        "D6660E70 25EA0A72",
        "v_dot2_f16_f16 v112.l, -ttmp6, |v5|, |v122.l|",
    ),
    // A constant or literal in WMMA's C, shown per opcode and wave size as LLVM does
    // (generated `WIDE_*` kinds): gfx11 wave32 as an f64 high dword, else as the C type.
    (
        0x1100,
        32,
        "CC434002 1BFE5118 3FF00000",
        "v_wmma_bf16_16x16x16_bf16 v[2:9], v[24:31], v[40:47], 1.0",
    ),
    (
        0x1100,
        32,
        "CC434000 03FFB545 00000001",
        "v_wmma_bf16_16x16x16_bf16 v[0:7], v[69:76], v[218:225], 0x1 op_sel_hi:[0,0,1]",
    ),
    (
        0x1100,
        64,
        "CC434000 03E3B545",
        "v_wmma_bf16_16x16x16_bf16 v[0:3], v[69:76], v[218:225], 0.15915494 op_sel_hi:[0,0,1]",
    ),
    (
        0x1100,
        64,
        "CC434000 03FFB545 3F800000",
        "v_wmma_bf16_16x16x16_bf16 v[0:3], v[69:76], v[218:225], lit(0x3f800000) op_sel_hi:[0,0,1]",
    ),
    (
        0x1200,
        32,
        "CC424002 1BFE5118 3FC45F30",
        "v_wmma_f16_16x16x16_f16 v[2:5], v[24:27], v[40:43], 0x5f30",
    ),
    (
        0x1200,
        32,
        "CC404000 1BE21908",
        "v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], 0.15915494",
    ),
    (
        0x1200,
        32,
        "CC434002 1BFE5118 3E22F983",
        "v_wmma_bf16_16x16x16_bf16 v[2:5], v[24:27], v[40:43], 0x3e22f983",
    ),
    (
        0x1200,
        64,
        "CC434002 1BFE5118 12343F80",
        "v_wmma_bf16_16x16x16_bf16 v[2:3], v[24:25], v[40:41], lit(0x12343f80)",
    ),
    // VOP1 `v_nop` and `v_pipeflush` decode with VDST = 0 only (SRC0 is ignored); the
    // generator's VOP1/VOP3 variants now include VDST = 0.
    (0x1100, 32, "7E000000", "v_nop"),
    (0x1200, 64, "7E003765", "v_pipeflush"),
    (0x1100, 32, "D59B0000 00000000", "v_pipeflush"),
    // gfx12 FP8 converts: `byte_sel:N` from the generated OP_SEL bits of each opcode.
    (
        0x1200,
        32,
        "D76B2017 27B602EA E55D7427",
        "v_cvt_sr_fp8_f32_e64_dpp v23, -v39, v1 byte_sel:1 dpp8:[4,6,5,6,5,2,1,7] fi:1",
    ),
    (
        0x1201,
        32,
        "D76B61B1 64E67CE9 8C595844",
        "v_cvt_sr_fp8_f32_e64_dpp v177, -|v68|, v62 byte_sel:3 dpp8:[0,3,5,4,5,0,3,4]",
    ),
    (0x1200, 32, "D5EC0802 04421104", "v_cvt_f32_fp8_e64 v2, v4 byte_sel:2"),
    (0x1200, 64, "D5ED1002 04421104", "v_cvt_f32_bf8_e64 v2, v4 byte_sel:1"),
    // `v_fma_mixlo/mixhi_f16` DPP16: LLVM 22 reads the control as a source code, so
    // 0x80..=0xC0 show as the integer 0..64 (quad_perm:[1,1,0,2] as [1,1,0,0]).
    (
        0x1200,
        32,
        "CC210005 0C0E04FA FF008537",
        "v_fma_mixlo_f16_e64_dpp v5, v55, v2, v3 op_sel_hi:[1,0,0] quad_perm:[1,1,0,0] row_mask:0xf bank_mask:0xf",
    ),
    (
        0x1100,
        64,
        "CC21D33A EEE2CAFA 2922BB65",
        "v_fma_mixlo_f16_e64_dpp v58, -|v101|, -|v101|, -v184 op_sel:[0,1,0] op_sel_hi:[1,0,1] clamp quad_perm:[3,2,3,0] row_mask:0x2 bank_mask:0x9",
    ),
    // The FP8/BF8 WMMAs take NEG_LO/NEG_HI on C only (random_words.py --count 100000
    // --seed 31, gfx1201): generated from each source's bit.
    (
        0x1201,
        32,
        "CC4644FC 1A0E4916",
        "v_wmma_f32_16x16x16_fp8_fp8 v[252:259], v[22:23], v[36:37], 3 neg_hi:[0,0,1]",
    ),
    (
        0x1200,
        32,
        "CC464000 9C0E4916",
        "v_wmma_f32_16x16x16_fp8_fp8 v[0:7], v[22:23], v[36:37], v[3:10] neg_lo:[0,0,1]",
    ),
    // The 32-bit third source of `v_mad_u32_u16` (true16) shows f32 constants.
    (
        0x1100,
        64,
        "D6595DB3 C3E16370",
        "v_mad_u32_u16 v179, v112.h, 49, 0.15915494 op_sel:[1,1,0,1]",
    ),
    (0x1200, 32, "D6590000 03C20501", "v_mad_u32_u16 v0, v1.l, v2.l, 0.5"),
    (0x1200, 32, "D65A0000 03E20501", "v_mad_i32_i16 v0, v1.l, v2.l, 0.15915494"),
    (
        0x1200,
        32,
        "D6590000 03FE0501 3F800000",
        "v_mad_u32_u16 v0, v1.l, v2.l, lit(0x3f800000)",
    ),
    // VOP3 DPP forms have fixed bits of their own (generated `*_DPP_FIX`): OP_SEL[1] of
    // `v_cvt_sr_fp8_f32` is ignored there (random_words.py, gfx1200, seed 21), and SRC0 of
    // `v_movrels_b32` (VGPR-only, bit 8 set in VOP3) holds the DPP code.
    (
        0x1200,
        32,
        "D76B3017 27B602EA E55D7427",
        "v_cvt_sr_fp8_f32_e64_dpp v23, -v39, v1 byte_sel:1 dpp8:[4,6,5,6,5,2,1,7] fi:1",
    ),
    (
        0x1200,
        32,
        "D76B1017 27B602EA E55D7427",
        "v_cvt_sr_fp8_f32_e64_dpp v23, -v39, v1 dpp8:[4,6,5,6,5,2,1,7] fi:1",
    ),
    (
        0x1200,
        32,
        "D76B3017 27B602FA FF00E427",
        "v_cvt_sr_fp8_f32_e64_dpp v23, -v39, v1 byte_sel:1 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf",
    ),
    (
        0x1100,
        32,
        "D5C30002 000000FA FF04E404",
        "v_movrels_b32_e64_dpp v2, v4 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf fi:1",
    ),
    (
        0x1100,
        64,
        "D5C30002 000000E9 FAC68804",
        "v_movrels_b32_e64_dpp v2, v4 dpp8:[0,1,2,3,4,5,6,7]",
    ),
    // Literal marking (llvm-mc-22, gfx1100 and gfx1200 alike): a 16-bit integer source is
    // marked when the whole dword is a 32-bit inline value, and then shown whole.
    (
        0x1100,
        32,
        "D7090002 000210FF 3E22F983",
        "v_max_u16 v2.l, lit(0x3e22f983), v8.l",
    ),
    (0x1200, 32, "D7090002 000210FF 12340040", "v_max_u16 v2.l, 0x40, v8.l"),
    (0x1100, 64, "7E04D2FF FFFFFFF0", "v_not_b16_e32 v2.l, lit(0xfffffff0)"),
    // VOP3P: per source (generated `EXTRA_LITK`): packed f16 marks integers and zero-high
    // f16 constants, not f32 ones; `v_dot2_f32_f16`'s accumulator is an f32 operand.
    (0x1100, 32, "CC0F4002 1C0210FF 3F800000", "v_pk_add_f16 v2, 0x3f800000, v8"),
    (0x1200, 32, "CC0F4002 1C0210FF 0000FFF0", "v_pk_add_f16 v2, 0xfff0, v8"),
    (
        0x1100,
        32,
        "CC134002 1BFE1104 00003C00",
        "v_dot2_f32_f16 v2, v4, v8, 0x3c00",
    ),
    (
        0x1200,
        32,
        "CC1A4002 1C0210FF 00003F80",
        "v_dot2_f32_bf16 v2, lit(0x3f80), v8, v0",
    ),
    (
        0x1100,
        32,
        "CC204002 1C0210FF 00003C00",
        "v_fma_mix_f32 v2, lit(0x3c00), v8, v0 op_sel_hi:[1,1,1]",
    ),
    // ... in a DPP form by the f32 rule as well.
    (
        0x1200,
        32,
        "CC134002 1C31FEFA FF04E404 3F800000",
        "v_dot2_f32_f16_e64_dpp v2, v4, lit(0x3f800000), v12 quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf fi:1",
    ),
    (
        0x1100,
        64,
        "CC134002 1C31FEE9 FAC68804 3F800000",
        "v_dot2_f32_f16_e64_dpp v2, v4, lit(0x3f800000), v12 dpp8:[0,1,2,3,4,5,6,7]",
    ),
    // The packed sources of VOP3 `v_dot2_f16_f16`/`v_dot2_bf16_bf16` (generated
    // `EXTRA_LITK3`).
    (
        0x1100,
        32,
        "D6660002 043210FF 00003C00",
        "v_dot2_f16_f16 v2.l, lit(0x3c00), v8, v12.l",
    ),
    (
        0x1200,
        32,
        "D6660002 043210FF 3F800000",
        "v_dot2_f16_f16 v2.l, 0x3f800000, v8, v12.l",
    ),
    (
        0x1200,
        32,
        "D6670002 043210FF 00003F80",
        "v_dot2_bf16_bf16 v2.l, lit(0x3f80), v8, v12.l",
    ),
    // VOP3 f16 constants per source (generated `EXTRA_HEX16_SRC`): `v_dot2_f16_f16`'s
    // 16-bit accumulator shows 1.0 (its lane is true16, yet not hex).
    (0x1100, 32, "D6660002 03CA1104", "v_dot2_f16_f16 v2.l, v4, v8, 1.0"),
    (0x1200, 32, "D6660002 03CA10F2", "v_dot2_f16_f16 v2.l, 1.0, v8, 1.0"),
    // LLVM reads the DPP16 control of a tied-destination VOP3 opcode as a source code, as
    // for `v_fma_mixlo_f16` (generated `EXTRA_DPP_CTRL_SRC`): quad_perm:[1,1,0,2] (0x85) shows
    // as the integer 5.
    (
        0x1200,
        32,
        "D7690002 043210FA FF008504",
        "v_cvt_pk_fp8_f32_e64_dpp v2.l, v4, v8 quad_perm:[1,1,0,0] row_mask:0xf bank_mask:0xf",
    ),
    // SRC0 of `v_pk_fmac_f16` marks an integer literal only, of `v_dot2acc_f32_f16` an
    // integer or an f16 constant (generated `EXTRA_LITK` of VOP2).
    (
        0x1100,
        32,
        "780410FF 3E22F983",
        "v_pk_fmac_f16 v2, 0x3e22f983, v8",
    ),
    (
        0x1100,
        32,
        "780410FF 3F800000",
        "v_pk_fmac_f16 v2, 0x3f800000, v8",
    ),
    (
        0x1100,
        32,
        "780410FF FFFFFFF0",
        "v_pk_fmac_f16 v2, lit(0xfffffff0), v8",
    ),
    (
        0x1200,
        32,
        "780410FF 3E22F983",
        "v_pk_fmac_f16 v2, 0x3e22f983, v8",
    ),
    (
        0x1200,
        32,
        "780410FF 00003C00",
        "v_pk_fmac_f16 v2, 0x3c00, v8",
    ),
    (
        0x1100,
        32,
        "040410FF 3E22F983",
        "v_dot2acc_f32_f16 v2, 0x3e22f983, v8",
    ),
    (
        0x1100,
        32,
        "040410FF 00003118",
        "v_dot2acc_f32_f16 v2, lit(0x3118), v8",
    ),
    (
        0x1100,
        32,
        "040410FF 00003C00",
        "v_dot2acc_f32_f16 v2, lit(0x3c00), v8",
    ),
    // The same rule in a VOPD half (generated `EXTRA_LITK` of `vopdx`/`vopdy`).
    (
        0x1100,
        32,
        "CB1010FF 02020105 3F800000",
        "v_dual_dot2acc_f32_f16 v2, 0x3f800000, v8 :: v_dual_mov_b32 v3, v5",
    ),
    (
        0x1100,
        32,
        "CA180105 030210FF 00003C00",
        "v_dual_mov_b32 v3, v5 :: v_dual_dot2acc_f32_f16 v2, lit(0x3c00), v8",
    ),
    (
        0x1100,
        32,
        "CA180105 030210FF 3E22F983",
        "v_dual_mov_b32 v3, v5 :: v_dual_dot2acc_f32_f16 v2, 0x3e22f983, v8",
    ),
    (
        0x1200,
        32,
        "CB1010FF 02020105 00003C00",
        "v_dual_dot2acc_f32_f16 v2, lit(0x3c00), v8 :: v_dual_mov_b32 v3, v5",
    ),
    (
        0x1200,
        32,
        "CB1010FF 02020105 3E22F983",
        "v_dual_dot2acc_f32_f16 v2, 0x3e22f983, v8 :: v_dual_mov_b32 v3, v5",
    ),
    (
        0x1100,
        32,
        "CB5010FF 02020105 00003F80",
        "v_dual_dot2acc_f32_bf16 v2, lit(0x3f80), v8 :: v_dual_mov_b32 v3, v5",
    ),
    (
        0x1200,
        32,
        "CB5010FF 02020105 3F800000",
        "v_dual_dot2acc_f32_bf16 v2, 0x3f800000, v8 :: v_dual_mov_b32 v3, v5",
    ),
    // `src_lds_direct` in the VGPR-only SRC0 of `v_readfirstlane_b32` (generated
    // `EXTRA_LDS_DIRECT` of VOP1; random_words.py gfx1100 --count 100000 --seed 11).
    (
        0x1100,
        32,
        "7E3A04FE",
        "v_readfirstlane_b32 s29, src_lds_direct",
    ),
    (
        0x1200,
        64,
        "7E0404FE",
        "v_readfirstlane_b32 s2, src_lds_direct",
    ),
    // The 16-bit bf16 accumulator of `v_dot2_bf16_bf16` shows a literal whole, marked when
    // its low half is an integer or a bf16 constant (generated `LIT_BF16LO`).
    (
        0x1100,
        32,
        "D6670002 03FE1104 12345678",
        "v_dot2_bf16_bf16 v2.l, v4, v8, 0x12345678",
    ),
    (
        0x1100,
        32,
        "D6670002 03FE1104 12343F80",
        "v_dot2_bf16_bf16 v2.l, v4, v8, lit(0x12343f80)",
    ),
    (
        0x1100,
        32,
        "D6670002 03FE1104 3E22F983",
        "v_dot2_bf16_bf16 v2.l, v4, v8, 0x3e22f983",
    ),
    (
        0x1100,
        32,
        "D6670002 03FE1104 FFFFFFF0",
        "v_dot2_bf16_bf16 v2.l, v4, v8, lit(0xfffffff0)",
    ),
    (
        0x1100,
        32,
        "D6670002 03FE1104 00003C00",
        "v_dot2_bf16_bf16 v2.l, v4, v8, 0x3c00",
    ),
    (
        0x1100,
        32,
        "D6670002 03FE1104 00003E22",
        "v_dot2_bf16_bf16 v2.l, v4, v8, lit(0x3e22)",
    ),
    (
        0x1200,
        32,
        "D6670002 03FE1104 12345678",
        "v_dot2_bf16_bf16 v2.l, v4, v8, 0x12345678",
    ),
    (
        0x1200,
        32,
        "D6670002 03FE1104 12343F80",
        "v_dot2_bf16_bf16 v2.l, v4, v8, lit(0x12343f80)",
    ),
    (
        0x1200,
        32,
        "D6670002 03FE1104 3E22F983",
        "v_dot2_bf16_bf16 v2.l, v4, v8, 0x3e22f983",
    ),
    (
        0x1200,
        32,
        "D6670002 03FE1104 FFFFFFF0",
        "v_dot2_bf16_bf16 v2.l, v4, v8, lit(0xfffffff0)",
    ),
    (
        0x1200,
        32,
        "D6670002 03FE1104 00003C00",
        "v_dot2_bf16_bf16 v2.l, v4, v8, 0x3c00",
    ),
    (
        0x1200,
        32,
        "D6670002 03FE1104 00003E22",
        "v_dot2_bf16_bf16 v2.l, v4, v8, lit(0x3e22)",
    ),
    // Data widened from the opcode's one-register default (DMASK 0xb + TFE: 4; LWE alone
    // adds none) while the address keeps the default's four registers past v255.
    (
        0x1150,
        32,
        "F0B51B42 E1683FFE",
        "image_sample_c_b_o v[63:66], v[254:257], s[32:39], s[96:99] dmask:0xb dim:SQ_RSRC_IMG_1D slc a16 tfe lwe",
    ),
    (
        0x1150,
        32,
        "F0B51B42 E1483FFE",
        "image_sample_c_b_o v[63:65], v[254:257], s[32:39], s[96:99] dmask:0xb dim:SQ_RSRC_IMG_1D slc a16 lwe",
    ),
    // VSAMPLE decodes `image_msaa_load` (no sampler) with SAMP 0.
    (
        0x1201,
        32,
        "E48609DC 0044E4BF 7E2C9F71",
        "image_msaa_load v[191:195], v113, ttmp[4:11] dmask:0x2 dim:SQ_RSRC_IMG_1D_ARRAY th:TH_LOAD_NT_RT scope:SCOPE_SE nv r128 a16 tfe",
    ),
];

#[test]
fn operand_rules_print_as_llvm() {
    let mut bad = Vec::new();
    for &(gpu, wave, words, want) in ACCEPTED_RULES {
        let t = target(gpu, wave);
        match decode(&t, &bytes(words), 0) {
            Ok(inst) => {
                let text = disassemble(&t, &inst, 0);
                let size = words.split_whitespace().count() * 4;
                // Lifting an accepted word must not panic (it may be unsupported).
                let _ = lift_one(&t, &bytes(words));
                if text != want || inst.size as usize != size {
                    bad.push(format!(
                        "gfx{gpu:x} w{wave} {words}: {text} (size {}), LLVM: {want} (size {size})",
                        inst.size
                    ));
                }
            }
            Err(e) => bad.push(format!("gfx{gpu:x} w{wave} {words}: {e}")),
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// (gpu, words, LLVM's text): LLVM decodes these but flags the operand (`/*Invalid
/// immediate*/`: a register-only operand class) or prints a register past v255; the decoder
/// rejects them.
const FLAGGED: &[(u32, &str, &str)] = &[
    // A `v_fma_mixlo_f16` DPP16 control LLVM reads as the constant -1.
    (
        0x1200,
        "CC210005 0C0E04FA FF00C137",
        "v_fma_mixlo_f16_e64_dpp v5, v55, v2, v3 op_sel_hi:[1,0,0] /* Invalid dpp_ctrl value */ row_mask:0xf bank_mask:0xf",
    ),
    (
        0x1150,
        "F186DF6C 3E1CFF00",
        "image_gather4_b_cl v[255:256], v[0:4], ttmp[4:11], s[60:63] dmask:0xf dim:SQ_RSRC_IMG_CUBE glc slc r128 d16",
    ),
    (
        0x1100,
        "BE8841F8",
        "s_movrels_b64 s[8:9], 0.15915494/*Invalid immediate*/",
    ),
    (
        0x1200,
        "BEA441FF 3E22F983",
        "s_movrels_b64 s[36:37], 0.15915494/*Invalid immediate*/",
    ),
    (
        0x1200,
        "7F9ACCF2",
        "v_swap_b16 v77.h, 1.0/*Invalid immediate*/",
    ),
    // A constant where a VOP3/VOP3P DPP form takes only registers (generated `*_DPP_SRC`):
    // `v_fma_mix*` SRC1, the lane mask of `v_cndmask_b32_e64_dpp`. Accepted, the second
    // comment (the GFX9 control's) was printed without the first (random_words.py,
    // gfx1100w64, --count 100000 --seed 41).
    (
        0x1100,
        "CC22AC10 545146FA 1A953866",
        "v_fma_mixhi_f16_e64_dpp v16, v102, neg(35/*Invalid immediate*/), |v20| op_sel:[1,0,1] op_sel_hi:[0,1,0] clamp /* wave_shr is not supported starting from GFX10 */ row_mask:0x1 bank_mask:0xa fi:1",
    ),
    (
        0x1100,
        "CC22AC10 545146E9 1A953866",
        "v_fma_mixhi_f16_e64_dpp v16, v102, neg(35/*Invalid immediate*/), |v20| op_sel:[1,0,1] op_sel_hi:[0,1,0] clamp dpp8:[0,7,4,2,1,5,6,0]",
    ),
    (
        0x1200,
        "CC22AC10 545146FA 1A953866",
        "v_fma_mixhi_f16_e64_dpp v16, v102, neg(35/*Invalid immediate*/), |v20| op_sel:[1,0,1] op_sel_hi:[0,1,0] clamp /* wave_shr is not supported starting from GFX10 */ row_mask:0x1 bank_mask:0xa fi:1",
    ),
    (
        0x1200,
        "D5010002 020210FA FF013804",
        "v_cndmask_b32_e64_dpp v2, v4, v8, 0/*Invalid immediate*/ /* wave_shr is not supported starting from GFX10 */ row_mask:0xf bank_mask:0xf",
    ),
    // `src_lds_direct` in a VGPR-only SRC0 that does not take it.
    (
        0x1100,
        "7E0486FE",
        "v_movrels_b32_e32 v2, src_lds_direct/*Invalid register, operand has 'VGPR_32' register class*/",
    ),
    // A literal in a VOP3 source that takes none (generated `*_VOP3_NOLIT`): a lane mask, a
    // VGPR-only source.
    (
        0x1100,
        "D5010002 03FE1104 3F800000",
        "v_cndmask_b32_e64 v2, v4, v8, 1.0/*Invalid immediate*/",
    ),
    (
        0x1100,
        "D5200002 03FE1104 12345678",
        "v_add_co_ci_u32_e64 v2, s0, v4, v8, 0x12345678/*Invalid immediate*/",
    ),
    (
        0x1200,
        "D5C30002 043210FF 3F800000",
        "v_movrels_b32_e64 v2, 1.0/*Invalid immediate*/",
    ),
    (
        0x1200,
        "D65D0002 03FE1104 3F800000",
        "v_cndmask_b16 v2.l, v4.l, v8.l, 1.0/*Invalid immediate*/",
    ),
];

/// (gpu, wave size, words, LLVM's text): an inline constant where LLVM flags every one
/// (the lane mask of `v_cndmask_*`/`v_*_co_ci_u32_e64`, a VGPR-only source; generated
/// `*_VOP3_NOLIT`, per wave size). In wave64 we printed the mask's 1/(2*pi) as the f64 value.
const FLAGGED_CONSTANTS: &[(u32, u32, &str, &str)] = &[
    (
        0x1100,
        64,
        "D5010002 03E21104",
        "v_cndmask_b32_e64 v2, v4, v8, 0.15915494/*Invalid immediate*/",
    ),
    (
        0x1200,
        64,
        "D5010002 03E21104",
        "v_cndmask_b32_e64 v2, v4, v8, 0.15915494/*Invalid immediate*/",
    ),
    (
        0x1100,
        64,
        "D5200002 03E21104",
        "v_add_co_ci_u32_e64 v2, s[0:1], v4, v8, 0.15915494/*Invalid immediate*/",
    ),
    (
        0x1200,
        64,
        "D5220002 03061104",
        "v_subrev_co_ci_u32_e64 v2, s[0:1], v4, v8, -1/*Invalid immediate*/",
    ),
    (
        0x1100,
        32,
        "D5010002 02021104",
        "v_cndmask_b32_e64 v2, v4, v8, 0/*Invalid immediate*/",
    ),
    (
        0x1200,
        32,
        "D5010002 03061104",
        "v_cndmask_b32_e64 v2, v4, v8, -1/*Invalid immediate*/",
    ),
    (
        0x1200,
        64,
        "D65D0002 03E21104",
        "v_cndmask_b16 v2.l, v4.l, v8.l, 0.15915494/*Invalid immediate*/",
    ),
    (
        0x1200,
        32,
        "D5C30002 000000F0",
        "v_movrels_b32_e64 v2, 0.5/*Invalid immediate*/",
    ),
    (
        0x1100,
        64,
        "D5C30002 000000F0",
        "v_movrels_b32_e64 v2, 0.5/*Invalid immediate*/",
    ),
];

/// (gpu, wave size, words, LLVM's text): the register forms of the same sources.
const LANE_MASK_REGISTERS: &[(u32, u32, &str, &str)] = &[
    (
        0x1100,
        64,
        "D5010002 00121104",
        "v_cndmask_b32_e64 v2, v4, v8, s[4:5]",
    ),
    (
        0x1200,
        64,
        "D5200002 01AA1104",
        "v_add_co_ci_u32_e64 v2, s[0:1], v4, v8, vcc",
    ),
    (
        0x1100,
        32,
        "D5010002 01AA1104",
        "v_cndmask_b32_e64 v2, v4, v8, vcc_lo",
    ),
];

#[test]
fn lane_mask_constants_are_rejected() {
    for &(gpu, wave, words, llvm) in FLAGGED_CONSTANTS {
        let t = target(gpu, wave);
        if let Ok(inst) = decode(&t, &bytes(words), 0) {
            panic!(
                "gfx{gpu:x} w{wave} {words} (LLVM: {llvm}): decoded as {}",
                disassemble(&t, &inst, 0)
            );
        }
    }
    for &(gpu, wave, words, llvm) in LANE_MASK_REGISTERS {
        let t = target(gpu, wave);
        let inst = decode(&t, &bytes(words), 0).expect("LLVM accepts it");
        assert_eq!(
            disassemble(&t, &inst, 0),
            llvm,
            "gfx{gpu:x} w{wave} {words}"
        );
    }
}

#[test]
fn llvm_flagged_constants_are_rejected() {
    for &(gpu, words, llvm) in FLAGGED {
        let t = target(gpu, 32);
        if let Ok(inst) = decode(&t, &bytes(words), 0) {
            panic!(
                "gfx{gpu:x} {words} (LLVM: {llvm}): decoded as {}",
                disassemble(&t, &inst, 0)
            );
        }
    }
    // The register forms of the same opcodes stay valid (`s_movrels_b64 s[8:9], s[4:5]`,
    // `v_swap_b16 v2.l, null`).
    for (gpu, w) in [(0x1100, 0xBE88_4104u32), (0x1200, 0x7E04_CC7C)] {
        assert!(decode(&target(gpu, 32), &bytes(&format!("{w:08X}")), 0).is_ok());
    }
    // ... and the VGPR/SGPR ones of the DPP forms (`..., v163, ...`, `..., v4, v8, s0 ...`).
    for (gpu, w) in [
        (0x1100, "CC22AC10 545346FA 1A953866"),
        (0x1200, "D5010002 000210FA FF013804"),
    ] {
        assert!(decode(&target(gpu, 32), &bytes(w), 0).is_ok(), "{w}");
    }
}

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

/// The GFX9 DPP16 controls RDNA does not have (wave shifts/rotates, row broadcasts): LLVM
/// decodes `v_mov_b32_dpp` with them and prints only a comment (`llvm-mc-22 -mcpu=gfx1100`
/// and `gfx1200 -mattr=+real-true16` print the same); the decoder does the same and the
/// lifter reports the instruction as unsupported instead of executing it.
#[test]
fn gfx9_dpp_controls_decode_but_do_not_lift() {
    let notes = [
        (0x130, "wave_shl"),
        (0x134, "wave_rol"),
        (0x138, "wave_shr"),
        (0x13C, "wave_ror"),
        (0x142, "row_bcast"),
        (0x143, "row_bcast"),
    ];
    for gpu in [0x1100, 0x1200] {
        let t = target(gpu, 32);
        for (ctrl, name) in notes {
            let words = format!("7E0402FA {:08X}", 0xFF00_0004u32 | ctrl << 8);
            let inst = decode(&t, &bytes(&words), 0).expect("LLVM decodes it");
            assert_eq!(
                disassemble(&t, &inst, 0),
                format!("v_mov_b32_dpp v2, v4 /* {name} is not supported starting from GFX10 */ row_mask:0xf bank_mask:0xf")
            );
            let err = lift_one(&t, &bytes(&words)).expect_err("not an RDNA control");
            assert!(err.contains("not an RDNA control"), "{err}");
        }
        // quad_perm:[0,1,2,3] lifts.
        assert_eq!(lift_one(&t, &bytes("7E0402FA FF00E404")), Ok(()));
    }
}
