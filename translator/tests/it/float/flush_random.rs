//! The JIT against the interpreter under denormal flushing, every round mode and both clamp
//! settings, on random operands mixed with denormals, NaNs (quiet and signalling),
//! infinities and zeros of both signs; `v_cmp_class` with random class masks. `run_words`
//! runs every block in both engines from the same state and fails on any difference; the
//! f32 add is also checked against host arithmetic on flushed operands.

use crate::lift_support::*;

#[rustfmt::skip]
const PROGRAM: [u32; 21] = [
    0x02000501, // v_add_f32_e32 v0, v1, v2
    0x0a060501, // v_mul_f32_e32 v3, v1, v2
    0xd1cb0004, 0x04160501, // v_fma_f32 v4, v1, v2, v5
    0x7c200d01, // v_cmp_class_f32_e32 vcc, v1, v6
    0xd1000007, 0x01a90280, // v_cndmask_b32_e64 v7, 0, 1, vcc
    0xd2800008, 0x0002190a, // v_add_f64 v[8:9], v[10:11], v[12:13]
    0xd0120000, 0x00020d0a, // v_cmp_class_f64_e64 s[0:1], v[10:11], v6
    0xd100000e, 0x00010280, // v_cndmask_b32_e64 v14, 0, 1, s[0:1]
    0x141e0501, // v_min_f32_e32 v15, v1, v2
    0x16200501, // v_max_f32_e32 v16, v1, v2
    0x3e220501, // v_add_f16_e32 v17, v1, v2
    0xd1cc0012, 0x0452190a, // v_fma_f64 v[18:19], v[10:11], v[12:13], v[20:21]
    0x7e2c2101, // v_cvt_f64_f32_e32 v[22:23], v1
    0x7e301f0a, // v_cvt_f32_f64_e32 v24, v[10:11]
    0xbf810000, // s_endpgm
];

/// A random f32 bit pattern, often a special value or a denormal.
fn f32_operand(r: &mut Rng) -> u32 {
    let sign = (r.next() as u32) & 0x8000_0000;
    let mant = r.next() as u32 & 0x7f_ffff;
    sign | match r.next() % 8 {
        0 => mant.max(1),                             // denormal
        1 => 0,                                       // zero
        2 => 0x7f80_0000,                             // infinity
        3 => 0x7fc0_0000 | mant,                      // quiet NaN
        4 => 0x7f80_0000 | (mant & 0x3f_ffff).max(1), // signalling NaN
        5 => 0x0080_0000 | mant, // smallest normals (sums and products go denormal)
        _ => r.next() as u32 & 0x7fff_ffff,
    }
}

/// A random f64 bit pattern, often a special value or a denormal.
fn f64_operand(r: &mut Rng) -> u64 {
    let sign = r.next() & (1 << 63);
    let mant = r.next() & ((1 << 52) - 1);
    sign | match r.next() % 8 {
        0 => mant.max(1),
        1 => 0,
        2 => 0x7ff0 << 48,
        3 => 0x7ff8 << 48 | mant,
        4 => 0x7ff0 << 48 | (mant & ((1 << 51) - 1)).max(1),
        5 => 1 << 52 | mant,
        _ => r.next() & !(1 << 63),
    }
}

fn flush32(x: u32) -> f32 {
    let f = f32::from_bits(x);
    if f.is_subnormal() {
        f32::from_bits(x & 0x8000_0000)
    } else {
        f
    }
}

#[test]
fn jit_matches_interpreter_under_flush_round_and_clamp_modes() {
    let exec = EXEC_PARTIAL;
    let mut checked_adds = 0;
    for seed in 0..48u64 {
        let mut r = Rng((0x5eed_f1a5 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1);
        // FP_ROUND (bits 3:0) nearest even or random, FP_DENORM (7:4) cycling through all 16 settings,
        // DX10_CLAMP and IEEE (bits 8, 9) random.
        let round = if seed % 2 == 0 {
            0
        } else {
            (r.next() & 0xf) as u32
        };
        let denorm = (seed & 0xf) as u32;
        let mode = round | denorm << 4 | ((r.next() & 3) as u32) << 8;
        let mut mem = Mem::new(0);
        let (b, a) = run_words(&PROGRAM, 7000 + seed, exec, &mut mem, |s| {
            s.mode = mode;
            for l in 0..64 {
                s.vgpr[1][l] = f32_operand(&mut r);
                s.vgpr[2][l] = f32_operand(&mut r);
                s.vgpr[5][l] = f32_operand(&mut r);
                s.vgpr[6][l] = r.next() as u32 & 0x3ff;
                for reg in [10, 12, 20] {
                    let d = f64_operand(&mut r);
                    s.vgpr[reg][l] = d as u32;
                    s.vgpr[reg + 1][l] = (d >> 32) as u32;
                }
            }
        });
        // With f32 denormals flushed in and out and round to nearest even, v_add_f32 is
        // the host's add of the flushed operands, flushed (NaN payloads aside).
        if denorm & 3 == 0 && round & 3 == 0 {
            for l in (0..64).filter(|l| exec >> l & 1 != 0) {
                let want = flush32((flush32(b.vgpr[1][l]) + flush32(b.vgpr[2][l])).to_bits());
                let got = f32::from_bits(a.vgpr[0][l]);
                if want.is_nan() {
                    assert!(got.is_nan(), "lane {l}: {got:?}, want NaN");
                } else {
                    assert_eq!(got.to_bits(), want.to_bits(), "lane {l}");
                    checked_adds += 1;
                }
            }
        }
    }
    assert!(
        checked_adds > 100,
        "{checked_adds} adds checked against the host"
    );
}
