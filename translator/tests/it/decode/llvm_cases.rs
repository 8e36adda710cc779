//! Decodes and prints every case of `translator/gen/gfx942_cases.txt` (instruction words and
//! the text LLVM 22's disassembler printed for them, written by `gen/gen_tables.py`) and
//! requires the same size and the same text.

use wavejit_translator::isa::{decode, disassemble, Gpu, Target};

/// Cases where the printer knowingly differs from LLVM (rare syntax, not emitted by
/// compilers): the words, and why.
const KNOWN: &[(&str, &str)] = &[
    // (none at present; add `("words", "reason")` entries here, never silently)
];

#[test]
fn gfx942_matches_llvm() {
    check(include_str!("../../../gen/gfx942_cases.txt"), Gpu::GFX942);
}

#[test]
fn gfx950_matches_llvm() {
    check(include_str!("../../../gen/gfx950_cases.txt"), Gpu::GFX950);
}

fn check(cases: &str, gpu: Gpu) {
    let target = Target::new(gpu);
    let mut total = 0;
    let mut bad = Vec::new();
    for line in cases.lines().filter(|l| !l.starts_with('#')) {
        let (hex, want) = line.split_once(" | ").expect("case line: words | text");
        let words: Vec<u32> = hex
            .split_whitespace()
            .map(|w| u32::from_str_radix(w, 16).expect("hex word"))
            .collect();
        // Trailing garbage after the instruction must not be consumed.
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
        if got != want && !KNOWN.iter().any(|k| k.0 == hex) {
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

/// Printer and validity cases found by differential fuzzing against llvm-mc-22 (random words
/// and source-field mutations of the oracle cases): target, instruction words (exactly the
/// instruction), and the text `llvm-mc-22 --disassemble` prints for them, or `<invalid>`
/// where LLVM rejects the encoding. `llvm_agrees_with_printer_cases` re-derives every text
/// with llvm-mc-22, so none of them is ours.
const PRINTER_CASES: &[(&str, &str, &str)] = &[
    // 1/(2*pi) on 64-bit operands (integer or float) has the f64 digits.
    (
        "gfx942",
        "D2800000 000204F8",
        "v_add_f64 v[0:1], 0.15915494309189532, v[2:3]",
    ),
    (
        "gfx942",
        "7DEA94F8",
        "v_cmpx_ne_i64_e32 vcc, 0.15915494309189532, v[74:75]",
    ),
    (
        "gfx942",
        "BEA62DF8",
        "s_movreld_b64 s[38:39], 0.15915494309189532",
    ),
    (
        "gfx950",
        "D28F0000 0001F101",
        "v_lshlrev_b64 v[0:1], v1, 0.15915494309189532",
    ),
    (
        "gfx950",
        "D14F0000 000000F8",
        "v_cvt_f32_f64_e64 v0, 0.15915494309189532",
    ),
    (
        "gfx950",
        "D3EE0000 03E20500",
        "v_mfma_f64_16x16x4_f64 v[0:7], v[0:1], v[2:3], 0.15915494309189532",
    ),
    // ... but not on packed f32 or 32-bit MFMA accumulators.
    (
        "gfx942",
        "D3B04000 1BE20500",
        "v_pk_fma_f32 v[0:1], v[0:1], v[2:3], 0.15915494",
    ),
    // Float inline constants on 16-bit integer operands print as f16 bit patterns (VOP3 too).
    (
        "gfx942",
        "D1260000 000202F0",
        "v_add_u16_e64 v0, 0x3800, v1",
    ),
    (
        "gfx942",
        "D1F10000 040A02F0",
        "v_mad_u32_u16 v0, 0x3800, v1, v2",
    ),
    (
        "gfx942",
        "D1F10000 03C20501",
        "v_mad_u32_u16 v0, v1, v2, 0.5",
    ),
    (
        "gfx950",
        "D1790000 000000F0",
        "v_cvt_f16_u16_e64 v0, 0x3800",
    ),
    // neg() on immediates, literals included.
    (
        "gfx950",
        "D1C614A8 EAE42EFF 9199A128",
        "v_cubetc_f32 v168, neg(0x9199a128), -s23, -|57| mul:2",
    ),
    (
        "gfx942",
        "D1C604A8 E2E42EF0",
        "v_cubetc_f32 v168, neg(0.5), -s23, -|57|",
    ),
    // s_sendmsg: ignored bits, numeric and SYSMSG forms.
    ("gfx942", "BF90B881", "s_sendmsg sendmsg(MSG_INTERRUPT)"),
    ("gfx942", "BF90D086", "s_sendmsg sendmsg(MSG_HALT_WAVES)"),
    (
        "gfx942",
        "BF91E81F",
        "s_sendmsghalt sendmsg(MSG_SYSMSG, SYSMSG_OP_ECC_ERR_INTERRUPT)",
    ),
    ("gfx942", "BF91004E", "s_sendmsghalt sendmsg(14, 4, 0)"),
    ("gfx942", "BF90003F", "s_sendmsg sendmsg(15, 3, 0)"),
    ("gfx942", "BF9000BF", "s_sendmsg 191"),
    (
        "gfx950",
        "BF912889",
        "s_sendmsghalt sendmsg(MSG_GS_ALLOC_REQ)",
    ),
    ("gfx950", "BF910101", "s_sendmsghalt sendmsg(1, 0, 1)"),
    (
        "gfx942",
        "BF900008",
        "s_sendmsg sendmsg(MSG_EARLY_PRIM_DEALLOC)",
    ),
    // FP8/BF8 -> f32 SDWA: no dst_sel/dst_unused, OMOD allowed, DST_SEL must be DWORD.
    (
        "gfx942",
        "7E00A8F9 00010601",
        "v_cvt_f32_fp8_sdwa v0, v1 src0_sel:BYTE_1",
    ),
    (
        "gfx942",
        "7E00AAF9 00020601",
        "v_cvt_f32_bf8_sdwa v0, v1 src0_sel:BYTE_2",
    ),
    (
        "gfx942",
        "7E00A8F9 00016E01",
        "v_cvt_f32_fp8_sdwa v0, v1 clamp mul:2 src0_sel:BYTE_1",
    ),
    (
        "gfx950",
        "7E00AEF9 0005E601",
        "v_cvt_pk_f32_bf8_sdwa v[0:1], v1 clamp div:2 src0_sel:WORD_1",
    ),
    ("gfx942", "7E00A8F9 00010001", "<invalid>"),
    ("gfx942", "7E00A8F9 00010701", "<invalid>"),
    // ds_condxchg32_rtn_b64 has one 16-bit offset.
    (
        "gfx950",
        "D8FC9615 1000364F",
        "ds_condxchg32_rtn_b64 v[16:17], v79, v[54:55] offset:38421",
    ),
    // gfx950 VOP3P literals: `lit()` and width by the operand type.
    (
        "gfx950",
        "D3A00000 1C0A02FF 55B1B128",
        "v_fma_mix_f32 v0, 0xb128, v1, v2 op_sel_hi:[1,1,0]",
    ),
    (
        "gfx950",
        "D3A00000 1C0A02FF 12340040",
        "v_fma_mix_f32 v0, lit(0x12340040), v1, v2 op_sel_hi:[1,1,0]",
    ),
    (
        "gfx950",
        "D38F0000 044210FF 00003C00",
        "v_pk_add_f16 v0, lit(0x3c00), v8 op_sel_hi:[0,0]",
    ),
    (
        "gfx950",
        "D38F0000 044210FF 3F800000",
        "v_pk_add_f16 v0, 0x3f800000, v8 op_sel_hi:[0,0]",
    ),
    (
        "gfx950",
        "D38A0000 044210FF 3E22F983",
        "v_pk_add_u16 v0, lit(0x3e22f983), v8 op_sel_hi:[0,0]",
    ),
    (
        "gfx950",
        "D3B00000 044210FF 3F800000",
        "v_pk_fma_f32 v[0:1], lit(0x3f800000), v[8:9], v[16:17] op_sel_hi:[0,0,0]",
    ),
    // Special registers as matrix operands.
    ("gfx942", "D3CD8000 03EE1514", "<invalid>"),
    ("gfx942", "D3E20000 0429F704", "<invalid>"),
    (
        "gfx942",
        "D3E20000 03AE0D04",
        "v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], src_shared_base",
    ),
    (
        "gfx950",
        "D3C20000 040204FB",
        "v_mfma_f32_4x4x1_16b_f32 v[0:3], src_vccz, v2, v[0:3]",
    ),
    // ... allowed up to two registers (an f64 4x4 MFMA's C), rejected as wider A/B.
    (
        "gfx942",
        "D3EF0000 03AE1104",
        "v_mfma_f64_4x4x4_4b_f64 v[0:1], v[4:5], v[8:9], src_shared_base",
    ),
    ("gfx950", "D3B50000 048220EB", "<invalid>"),
    // gfx950 MFMA C takes a literal (f64 MFMAs: the high dword of the f64).
    (
        "gfx950",
        "D3B50000 03FE2104 3F800000",
        "v_mfma_f32_16x16x32_bf16 v[0:3], v[4:7], v[16:19], lit(0x3f800000)",
    ),
    (
        "gfx950",
        "D3EE0000 03FE0D04 3FF00000",
        "v_mfma_f64_16x16x4_f64 v[0:7], v[4:5], v[6:7], 1.0",
    ),
    // f64 literals print as the f64 value when it is an inline constant, else as the dword.
    ("gfx942", "7E004AFF 3FF00000", "v_rcp_f64_e32 v[0:1], 1.0"),
    ("gfx942", "7E004AFF 00000040", "v_rcp_f64_e32 v[0:1], 0x40"),
    (
        "gfx950",
        "D2800000 000204FF BFF00000",
        "v_add_f64 v[0:1], -1.0, v[2:3]",
    ),
    // 16-bit literals: an f16 one whose low half is inlinable prints whole in `lit()`; an
    // integer one is marked only if the whole dword is inlinable.
    (
        "gfx942",
        "7F967CFF C2A9FFFC",
        "v_sqrt_f16_e32 v203, lit(0xc2a9fffc)",
    ),
    ("gfx942", "4C0002FF 12340010", "v_add_u16_e32 v0, 0x10, v1"),
    // Modifiers LLVM accepts: neg/abs of v_cndmask_b32's sources, op_sel of a destination.
    (
        "gfx950",
        "D10001A2 20D838F0",
        "v_cndmask_b32_e64 v162, -|0.5|, s28, s[54:55]",
    ),
    (
        "gfx950",
        "D2484000 00021104",
        "v_cvt_scalef32_pk_f16_fp8 v0, v4, v8 op_sel:[0,0,1]",
    ),
    // VOP1 SDWA: the src1 fields must be 0; VOPC has no DPP form, v_fmac_f32 no SDWA form,
    // v_readfirstlane_b32 no DPP form.
    ("gfx942", "7FFE98F9 42665C91", "<invalid>"),
    ("gfx942", "7C8010FA FF015104", "<invalid>"),
    ("gfx942", "77E2DEF9 E6124825", "<invalid>"),
    ("gfx942", "7E9C04FA E12A4C1D", "<invalid>"),
    // v_pk_fmac_f16 SDWA: NEG/ABS accepted, not printed.
    (
        "gfx942",
        "78000AF9 06360604",
        "v_pk_fmac_f16_sdwa v0, v4, v5 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD",
    ),
    // AGPR returning atomics LLVM lacks: global_atomic_add_f32 (any), f64 ones with SC1.
    ("gfx942", "DD358000 08FF0402", "<invalid>"),
    (
        "gfx942",
        "DD3D8000 08FF0402",
        "global_atomic_add_f64 a[8:9], v[2:3], a[4:5], off sc0",
    ),
    ("gfx950", "DF3D8000 08FF0402", "<invalid>"),
    // Modifier bits LLVM fixes per opcode (the generated `OpInfo::fixmask`/`sdwa_fix`,
    // `translator/gen/gfx9_fix.py`), from random words (seeds 7 and 8, 50k): `abs` of
    // v_cndmask's mask source, `op_sel` of an absent source, a lone v_mfma_ld_scale_b32's
    // NEG_HI, v_accvgpr_read's modifier fields, SDWA reserved bits.
    ("gfx950", "D10065A2 80D838F0", "<invalid>"),
    ("gfx950", "D249144B 22A53080", "<invalid>"),
    ("gfx950", "D245788C A3680344", "<invalid>"),
    ("gfx950", "D23A6881 A1E72778", "<invalid>"),
    ("gfx950", "D24B5E8C A00A593C", "<invalid>"),
    ("gfx950", "D2696AA2 C7668E00", "<invalid>"),
    ("gfx950", "D3AC4204 2B030982", "<invalid>"),
    ("gfx950", "D3D8C158 3A75036E", "<invalid>"),
    ("gfx950", "7C20FEF9 FEF0F5F7", "<invalid>"),
    // v_cmpx SDWA with an explicit SDST: gfx950 rejects it.
    ("gfx950", "7C2B5EF9 1B329755", "<invalid>"),
    // Printer: op_sel of the 16-bit stochastic-rounding converts has one entry per source
    // and the destination's (generated MOD_OPSEL4 only for the byte-select converts).
    (
        "gfx950",
        "D2A71A11 67961E92",
        "v_cvt_sr_bf16_f32 v17, neg(18), v15 op_sel:[1,1,0]",
    ),
    // bitop3 in decimal up to 10, hex above.
    (
        "gfx950",
        "D2340100 44421104",
        "v_bitop3_b32 v0, v4, v8, v16 bitop3:10",
    ),
    (
        "gfx950",
        "D2340100 64421104",
        "v_bitop3_b32 v0, v4, v8, v16 bitop3:0xb",
    ),
    // The lane swaps' VOP3 OP_SEL[1:0] are bound_ctrl and fi.
    (
        "gfx950",
        "D1991800 04421104",
        "v_permlane16_swap_b32_e64 v0, v4 bound_ctrl:1 fi:1",
    ),
    (
        "gfx950",
        "D19A1000 04421104",
        "v_permlane32_swap_b32_e64 v0, v4 bound_ctrl:1",
    ),
    // v_nop with SRC0 = DPP/SDWA: the extension form if the word is valid, else plain v_nop
    // (here the word is the s_nop padding); v_clrexcp has no DPP form.
    (
        "gfx950",
        "7E0000FA FF0AE404",
        "v_nop quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf bound_ctrl:1",
    ),
    ("gfx950", "7E0000F9 00000004", "v_nop"),
    ("gfx942", "7E0000FA", "v_nop"),
    ("gfx942", "7E0000F9", "v_nop"),
    ("gfx950", "7E006AFA", "v_clrexcp"),
    // ... but in the scaled MFMA pair LLVM ignores the prefix's modifier bits.
    (
        "gfx950",
        "D3AC2400 00021104 D3AD0800 04421100",
        "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[0:7], v[8:15], v[16:19], v4, v8 op_sel_hi:[0,0,0]",
    ),
    (
        "gfx950",
        "D3AC0000 80021104 D3AD0800 04421100",
        "v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[0:7], v[8:15], v[16:19], v4, v8 op_sel_hi:[0,0,0]",
    ),
    // An SDWA scalar source cannot be the literal code 255 (S0 or S1 set; random_words.py
    // --count 100000 --seed 41).
    ("gfx942", "7C669CF9 64F4BCFF", "<invalid>"),
    ("gfx950", "0205FEF9 86060604", "<invalid>"),
    ("gfx942", "7C89FEF9 8606BC04", "<invalid>"),
];

/// Decodes `words` for `gpu` and prints it, or `<invalid>`; `None` if the size is wrong.
fn ours(gpu: &str, words: &str) -> String {
    let target = Target::new(Gpu::from_name(gpu).expect("gpu name"));
    let mut bytes: Vec<u8> = words
        .split_whitespace()
        .flat_map(|w| u32::from_str_radix(w, 16).expect("hex").to_le_bytes())
        .collect();
    let n = bytes.len();
    // s_nop padding: nothing past the instruction may be consumed.
    bytes.extend_from_slice(&[0, 0, 0x80, 0xBF, 0, 0, 0x80, 0xBF, 0, 0, 0x80, 0xBF]);
    match decode(&target, &bytes, 0) {
        Ok(inst) if inst.size as usize == n => disassemble(&target, &inst, 0),
        Ok(inst) => format!("<size {} instead of {n}>", inst.size),
        Err(_) => "<invalid>".to_string(),
    }
}

#[test]
fn printer_cases_match_llvm() {
    let bad: Vec<String> = PRINTER_CASES
        .iter()
        .filter_map(|&(gpu, words, want)| {
            let got = ours(gpu, words);
            (got != want).then(|| format!("{gpu} {words}\n  want: {want}\n  got:  {got}"))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The texts of [`PRINTER_CASES`] are LLVM's: disassembles each case's words (followed by
/// `s_nop`s) with llvm-mc-22. Skipped without llvm-mc-22, except in CI (CI=true), where it
/// fails.
#[test]
fn llvm_agrees_with_printer_cases() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let probe = Command::new("llvm-mc-22").arg("--version").output();
    if probe.is_err() {
        assert!(
            std::env::var("CI").ok().as_deref() != Some("true"),
            "llvm-mc-22 not found (required in CI)"
        );
        eprintln!("llvm-mc-22 not found: skipping");
        return;
    }
    for &(gpu, words, want) in PRINTER_CASES {
        let mut bytes = String::new();
        for w in words.split_whitespace().chain(["BF800000"]) {
            let v = u32::from_str_radix(w, 16).expect("hex");
            for b in v.to_le_bytes() {
                bytes.push_str(&format!("0x{b:02x} "));
            }
        }
        let mut child = Command::new("llvm-mc-22")
            .args([
                "-triple=amdgcn-amd-amdhsa",
                &format!("-mcpu={gpu}"),
                "--disassemble",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run llvm-mc-22");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(bytes.as_bytes())
            .expect("write llvm-mc-22 input");
        let out = child.wait_with_output().expect("llvm-mc-22 output");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stdout
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .collect();
        let got = if stderr.contains("invalid instruction encoding") {
            "<invalid>"
        } else {
            lines.first().copied().unwrap_or("<nothing>")
        };
        assert_eq!(got, want, "{gpu} {words}: llvm-mc-22 prints {got:?}");
        if want != "<invalid>" {
            // The instruction is exactly `words`: the s_nop follows it.
            assert_eq!(
                lines.get(1).copied(),
                Some("s_nop 0"),
                "{gpu} {words}: size"
            );
        }
    }
}
