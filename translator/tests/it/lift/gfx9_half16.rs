//! GFX9 16-bit VOP3 results and the high half of the destination: the opcodes that have
//! OPSEL (`v_mad_u16`, `v_mad_i16`, `v_mad_f16`, `v_fma_f16`, `v_div_fixup_f16`) write the
//! half OPSEL[3] selects and keep the other (CDNA4 ISA ch. 12: D[31:16] kept when
//! OPSEL[3] = 0); their GFX8 encodings, named `*_legacy_*` on GFX9, write zeros above the
//! result (LLVM `GCNSubtarget::zeroesHigh16BitsOfDest`: V_MAD_U16_e64 … zero on GFX9, the
//! `_gfx9` opcodes are not listed). Both engines.
//!
//! Expected values: host integer arithmetic and the `half` crate's rounding of exact f64
//! results (f16 products and sums of the moderate values used are exact in f64); the
//! encodings come from `llvm-mc-22 -mcpu=gfx942 -show-encoding`.

use crate::lift_support::*;
use half::f16;

#[rustfmt::skip]
const PROGRAM: [u32; 23] = [
    0xd204000a, 0x040e0501, // v_mad_u16 v10, v1, v2, v3
    0xd204400b, 0x040e0501, // v_mad_u16 v11, v1, v2, v3 op_sel:[0,0,0,1]
    0xd1eb000c, 0x040e0501, // v_mad_legacy_u16 v12, v1, v2, v3
    0xd205000d, 0x040e0501, // v_mad_i16 v13, v1, v2, v3
    0xd1ec000e, 0x040e0501, // v_mad_legacy_i16 v14, v1, v2, v3
    0xd206000f, 0x041a0b04, // v_fma_f16 v15, v4, v5, v6
    0xd1ee0010, 0x041a0b04, // v_fma_legacy_f16 v16, v4, v5, v6
    0xd2030011, 0x041a0b04, // v_mad_f16 v17, v4, v5, v6
    0xd1ea0012, 0x041a0b04, // v_mad_legacy_f16 v18, v4, v5, v6
    0xd1ef0013, 0x041a0b04, // v_div_fixup_legacy_f16 v19, v4, v5, v6
    0xd2034814, 0x041a0b04, // v_mad_f16 v20, v4, v5, v6 op_sel:[1,0,0,1]
    0xbf810000, // s_endpgm
];

/// Moderate normal f16 values (products and sums exact in f64).
const F: [u16; 8] = [
    0x3c00, 0xbc00, 0x3e00, 0xc100, 0x4248, 0x3555, 0x2e66, 0x4d00,
];

fn v(h: u32) -> f64 {
    f64::from(f16::from_bits(h as u16))
}
fn r16(x: f64) -> u32 {
    f16::from_f64(x).to_bits() as u32
}

#[test]
fn gfx9_opsel_forms_keep_the_other_half_legacy_forms_zero_it() {
    let exec = 0xffff_ffff_ffff_fffe; // lane 0 inactive: its registers stay as they were
    let (b, a) = run_words(&PROGRAM, 0x916, exec, &mut Mem::new(0), |s| {
        let mut r = Rng(77);
        for l in 0..64 {
            // f16 operands in the low halves (v4 also in the high half, for op_sel[0]),
            // random high halves elsewhere.
            for reg in [4, 5, 6] {
                let hi = if reg == 4 {
                    F[(r.u32() % 8) as usize] as u32
                } else {
                    r.u32() >> 16
                };
                s.vgpr[reg][l] = hi << 16 | F[(r.u32() % 8) as usize] as u32;
            }
        }
    });
    for l in 1..64 {
        let g = |r: usize| a.vgpr[r][l];
        let old = |r: usize| b.vgpr[r][l];
        let ctx = |r: usize| format!("v{r} lane {l}: got {:#010x} old {:#010x}", g(r), old(r));
        let (x, y, z) = (b.vgpr[1][l], b.vgpr[2][l], b.vgpr[3][l]);
        let mu = (x & 0xffff)
            .wrapping_mul(y & 0xffff)
            .wrapping_add(z & 0xffff)
            & 0xffff;
        let mi = (x as i16 as i32)
            .wrapping_mul(y as i16 as i32)
            .wrapping_add(z as i16 as i32) as u32
            & 0xffff;
        assert_eq!(g(10), old(10) & 0xffff_0000 | mu, "{}", ctx(10));
        assert_eq!(g(11), old(11) & 0xffff | mu << 16, "{}", ctx(11));
        assert_eq!(g(12), mu, "{}", ctx(12));
        assert_eq!(g(13), old(13) & 0xffff_0000 | mi, "{}", ctx(13));
        assert_eq!(g(14), mi, "{}", ctx(14));
        let (p, q, c) = (b.vgpr[4][l], b.vgpr[5][l], b.vgpr[6][l]);
        let fma = r16(v(p) * v(q) + v(c));
        let mad = r16(v(r16(v(p) * v(q))) + v(c));
        assert_eq!(g(15), old(15) & 0xffff_0000 | fma, "{}", ctx(15));
        assert_eq!(g(16), fma, "{}", ctx(16));
        assert_eq!(g(17), old(17) & 0xffff_0000 | mad, "{}", ctx(17));
        assert_eq!(g(18), mad, "{}", ctx(18));
        // V_DIV_FIXUP_F16 on finite non-zero operands: S0 with the sign of S1 ^ S2.
        let fix = (q ^ c) & 0x8000 | p & 0x7fff;
        assert_eq!(g(19), fix, "{}", ctx(19));
        let mad_hi = r16(v(r16(v(p >> 16) * v(q))) + v(c));
        assert_eq!(g(20), old(20) & 0xffff | mad_hi << 16, "{}", ctx(20));
    }
    for r in 10..=20 {
        assert_eq!(a.vgpr[r][0], b.vgpr[r][0], "v{r} lane 0 (inactive)");
    }
}
