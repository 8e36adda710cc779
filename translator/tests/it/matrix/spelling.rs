//! The semantic key's matrix spellings (`MfmaSem::spelling`, `WmmaSem::spelling`, generated
//! by `gen/gen_sem.py`) against the mnemonic text parser: the lifter reads the key, tools
//! read text, and both must name the same operation on every GPU.

use wavejit_translator::isa::generated::{MfmaSem, WmmaSem};
use wavejit_translator::isa::Gpu;
use wavejit_translator::matrix::*;

const GPUS: [Gpu; 4] = [Gpu::GFX942, Gpu::GFX950, Gpu::GFX1100, Gpu::GFX1200];

/// Checks every `(name, spelling)` on every GPU; returns how many are operations per GPU.
fn check(family: &str, all: &[(&str, Option<MatrixSpelling>)]) -> [usize; 4] {
    let mut some = [0; 4];
    for &(name, sp) in all {
        // The generator's reading of the name is the text parser's.
        assert_eq!(sp, MatrixSpelling::parse(name), "{family} {name}: spelling");
        for (i, &gpu) in GPUS.iter().enumerate() {
            let typed = sp.and_then(|sp| MatrixOp::from_spelling(sp, gpu));
            assert_eq!(typed, MatrixOp::from_mnemonic(name, gpu), "{name} on {gpu}");
            some[i] += typed.is_some() as usize;
        }
    }
    some
}

#[test]
fn mfma_key_spellings_match_mnemonics() {
    let all: Vec<_> = MfmaSem::ALL
        .iter()
        .map(|s| (s.name(), s.spelling()))
        .collect();
    let [g942, g950, g1100, g1200] = check("MfmaSem", &all);
    // MFMA exists on GFX9 only (which opcodes a GFX9 target has is the decoder's business, so
    // every product names an operation on both); all but `v_mfma_ld_scale_b32`.
    assert_eq!(
        (g942, g950),
        (MfmaSem::ALL.len() - 1, MfmaSem::ALL.len() - 1)
    );
    assert_eq!((g1100, g1200), (0, 0));
    // Only the scale prefix spells no product.
    let none: Vec<_> = MfmaSem::ALL
        .iter()
        .filter(|s| s.spelling().is_none())
        .collect();
    assert_eq!(none, [&MfmaSem::V_MFMA_LD_SCALE_B32]);
}

#[test]
fn wmma_key_spellings_match_mnemonics() {
    let all: Vec<_> = WmmaSem::ALL
        .iter()
        .map(|s| (s.name(), s.spelling()))
        .collect();
    let [g942, g950, g1100, g1200] = check("WmmaSem", &all);
    // RDNA3 has the six dense 16x16x16 f16/bf16/iu8/iu4 forms (notes/rdna.md §5.1); RDNA4
    // more.
    assert_eq!((g942, g950), (0, 0));
    assert_eq!(g1100, 6);
    assert!(g1200 > g1100, "gfx1200 {g1200}");
    assert!(WmmaSem::ALL.iter().all(|s| s.spelling().is_some()));
}

#[test]
fn key_spellings_apply_gpu_rules() {
    let sp = MfmaSem::V_MFMA_F32_16X16X32_FP8_FP8.spelling().unwrap();
    assert_eq!(
        (sp.m, sp.n, sp.k, sp.blocks, sp.a, sp.b),
        (16, 16, 32, 1, MatrixTok::Fp8, MatrixTok::Fp8)
    );
    // FNUZ on gfx942 (CDNA3), OCP on gfx950 (CDNA4).
    let a = |gpu| MatrixOp::from_spelling(sp, gpu).map(|op| op.a);
    assert_eq!(a(Gpu::GFX942), Some(Elem::Fp8Fnuz));
    assert_eq!(a(Gpu::GFX950), Some(Elem::Fp8));
    assert_eq!(a(Gpu::GFX1200), None);
    // RDNA4-only FP8 WMMA; IU4 with K = 32 on RDNA4 only.
    let w = WmmaSem::V_WMMA_F32_16X16X16_FP8_FP8.spelling().unwrap();
    assert_eq!(MatrixOp::from_spelling(w, Gpu::GFX1100), None);
    let op = MatrixOp::from_spelling(w, Gpu::GFX1200).unwrap();
    assert_eq!((op.k, op.a, op.kind), (16, Elem::Fp8, Kind::Wmma));
    let iu4 = WmmaSem::V_WMMA_I32_16X16X32_IU4.spelling().unwrap();
    assert_eq!(MatrixOp::from_spelling(iu4, Gpu::GFX1100), None);
    let op = MatrixOp::from_spelling(iu4, Gpu::GFX1200).unwrap();
    assert_eq!((op.k, op.a, op.acc), (32, Elem::U4, Acc::I32));
    // 4 blocks of 16x16x1 f32.
    let b = MfmaSem::V_MFMA_F32_16X16X1_4B_F32.spelling().unwrap();
    assert_eq!((b.k, b.blocks), (1, 4));
}
