//! gfx950 scaled conversions between OCP FP4 (E2M1) / FP6 (E2M3) / BF6 (E3M2) and
//! f32/f16/bf16 (`v_cvt_scalef32_pk_fp4_*`, `_2xpk16_*`, `_pk32_*`), in both engines.
//! Expected values: every code of the format decoded exactly (OCP MX spec: no Inf or NaN), the
//! scaled input rounded to the nearest code by search (ties to the even code), saturated to
//! ±max; a NaN gives ±max (AMD's HIP host emulation); the packing is the CDNA4 pseudocode's
//! (element i in bits 6i+5:6i of the six VGPRs taken as one 192-bit little-endian value).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::mx::*;
use crate::lift_support::*;
use half::{bf16, f16};
use wavejit_translator::env::ExitCode;
use wavejit_translator::isa::{Gpu, Target};

#[rustfmt::skip]
const PROGRAM: [u32; 21] = [
    0xd23d600a, 0x040e0501, // v_cvt_scalef32_pk_fp4_f32 v10, v1, v2, v3 op_sel:[0,0,1,1]
    0xd24c000b, 0x00020704, // v_cvt_scalef32_pk_fp4_f16 v11, v4, v3
    0xd24d200c, 0x00020704, // v_cvt_scalef32_pk_fp4_bf16 v12, v4, v3 op_sel:[0,0,1,0]
    0xd2520078, 0x040ea140, // v_cvt_scalef32_2xpk16_fp6_f32 v[120:125], v[64:79], v[80:95], v3
    0xd253007e, 0x040ea140, // v_cvt_scalef32_2xpk16_bf6_f32 v[126:131], v[64:79], v[80:95], v3
    0xd2580084, 0x00020760, // v_cvt_scalef32_pk32_fp6_f16 v[132:137], v[96:111], v3
    0xd25b008a, 0x00020760, // v_cvt_scalef32_pk32_bf6_bf16 v[138:143], v[96:111], v3
    0xd2560090, 0x00020770, // v_cvt_scalef32_pk32_f32_fp6 v[144:175], v[112:117], v3
    0xd26200b0, 0x00020770, // v_cvt_scalef32_pk32_f16_bf6 v[176:191], v[112:117], v3
    0xd26100c0, 0x00020770, // v_cvt_scalef32_pk32_bf16_fp6 v[192:207], v[112:117], v3
    0xbf810000, // s_endpgm
];

/// f32 → bf16 bits, nearest even.
fn bf16_bits(x: f32) -> u32 {
    u32::from(bf16::from_f32(x).to_bits())
}

/// Values that land on the formats' grids, their midpoints (ties), beyond max, NaN, ±Inf,
/// ±0, before the scale.
fn data(r: &mut Rng) -> f64 {
    let v = r.next();
    let sign = if v & 1 != 0 { -1.0 } else { 1.0 };
    let mag = match v >> 1 & 15 {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => 0.0,
        3 => 40.0 + (v >> 8 & 255) as f64,
        4..=7 => {
            // A midpoint of the FP6 or FP4 grid.
            let fmt = if v & 32 != 0 { FP6 } else { FP4 };
            let c = (v >> 8) as u32 % ((1 << (fmt.ebits + fmt.mbits)) / 2 - 1);
            (fmt.decode(c) + fmt.decode(c + 1)) / 2.0
        }
        8..=9 => {
            let c = (v >> 8) as u32 % 32;
            BF6.decode(c)
        }
        _ => (v >> 16 & 0xffff) as f64 / 2048.0,
    };
    sign * mag
}

#[test]
fn fp4_fp6_bf6_scaled_conversions() {
    let exec = EXEC_PARTIAL;
    let code = Code::from_words(&PROGRAM);
    let mut r = Rng(2026);
    let mut s = random_state(8, exec);
    let mut scale = [0i32; 64];
    for l in 0..64 {
        let k = (r.next() % 15) as i32 - 7;
        scale[l] = k;
        // The scale's sign and mantissa are ignored.
        s.vgpr[3][l] = ((127 + k) as u32) << 23 | (r.next() as u32 & 0x807f_ffff);
        let sc = |x: f64| (x * 2f64.powi(k)) as f32;
        s.vgpr[1][l] = sc(data(&mut r)).to_bits();
        s.vgpr[2][l] = sc(data(&mut r)).to_bits();
        let h = |x: f32| u32::from(f16::from_f32(x).to_bits());
        s.vgpr[4][l] = h(sc(data(&mut r))) | h(sc(data(&mut r))) << 16;
        for reg in 64..96 {
            s.vgpr[reg][l] = sc(data(&mut r)).to_bits();
        }
        for reg in 96..112 {
            // f16 pairs for pk32_fp6_f16 and, read as bf16, for pk32_bf6_bf16.
            s.vgpr[reg][l] = if l % 2 == 0 {
                h(sc(data(&mut r))) | h(sc(data(&mut r))) << 16
            } else {
                bf16_bits(sc(data(&mut r))) | bf16_bits(sc(data(&mut r))) << 16
            };
        }
        for reg in 112..118 {
            s.vgpr[reg][l] = r.next() as u32;
        }
    }
    let b = clone_state(&s);
    let mut mem = Mem::new(0);
    let res = run_on(&Target::new(Gpu::GFX950), &code, &mut s, &mut mem).expect("runs");
    assert_eq!(res, ExitCode::EndPgm);
    let a = &s;
    for l in 0..64 {
        let k = scale[l];
        let v = |reg: usize| b.vgpr[reg][l];
        let down = |fmt: Mx, x: f64| fmt.encode(x / 2f64.powi(k));
        let f32v = |bits: u32| f64::from(f32::from_bits(bits));
        let f16v = |bits: u32| f16::from_bits(bits as u16).to_f64();
        let bf16v = |bits: u32| f64::from(f32::from_bits((bits & 0xffff) << 16));
        // pk_fp4_f32 into byte 3, pk_fp4_f16 into byte 0, pk_fp4_bf16 into byte 1.
        let byte = |lo: u32, hi: u32, old: u32, n: u32| {
            old & !(0xff << (8 * n)) | (lo | hi << 4) << (8 * n)
        };
        let fp4_f32 = byte(down(FP4, f32v(v(1))), down(FP4, f32v(v(2))), v(10), 3);
        check_lane(&b, a, 10, l, exec, fp4_f32);
        let fp4_f16 = byte(down(FP4, f16v(v(4))), down(FP4, f16v(v(4) >> 16)), v(11), 0);
        check_lane(&b, a, 11, l, exec, fp4_f16);
        let fp4_bf16 = byte(
            down(FP4, bf16v(v(4))),
            down(FP4, bf16v(v(4) >> 16)),
            v(12),
            1,
        );
        check_lane(&b, a, 12, l, exec, fp4_bf16);
        if exec >> l & 1 == 0 {
            for reg in 120..208 {
                assert_eq!(a.vgpr[reg][l], b.vgpr[reg][l], "v{reg} lane {l} inactive");
            }
            continue;
        }
        let regs =
            |first: usize| -> Vec<u32> { (first..first + 6).map(|r| a.vgpr[r][l]).collect() };
        for (first, fmt) in [(120, FP6), (126, BF6)] {
            let out = regs(first);
            for i in 0..32 {
                let src = if i % 2 == 0 { 64 + i / 2 } else { 80 + i / 2 };
                let want = down(fmt, f32v(v(src)));
                assert_eq!(
                    field6(&out, i),
                    want,
                    "2xpk16 v{first} lane {l} element {i}: x = {} k = {k} out = {out:x?}",
                    f32v(v(src))
                );
            }
        }
        for (first, fmt, is_bf16) in [(132, FP6, false), (138, BF6, true)] {
            let out = regs(first);
            for i in 0..32 {
                let w = v(96 + i / 2) >> (16 * (i % 2));
                let x = if is_bf16 { bf16v(w) } else { f16v(w) };
                assert_eq!(
                    field6(&out, i),
                    down(fmt, x),
                    "pk32 v{first} lane {l} element {i}"
                );
            }
        }
        let src: Vec<u32> = (112..118).map(v).collect();
        let up = |fmt: Mx, i: usize| fmt.decode(field6(&src, i)) * 2f64.powi(k);
        for i in 0..32 {
            let want = (up(FP6, i) as f32).to_bits();
            assert_eq!(
                a.vgpr[144 + i][l],
                want,
                "pk32_f32_fp6 lane {l} element {i}"
            );
            let half = |x: f64| u32::from(f16::from_f64(x).to_bits());
            let got16 = a.vgpr[176 + i / 2][l] >> (16 * (i % 2)) & 0xffff;
            assert_eq!(got16, half(up(BF6, i)), "pk32_f16_bf6 lane {l} element {i}");
            let gotb = a.vgpr[192 + i / 2][l] >> (16 * (i % 2)) & 0xffff;
            assert_eq!(
                gotb,
                bf16_bits(up(FP6, i) as f32),
                "pk32_bf16_fp6 lane {l} element {i}"
            );
        }
    }
    // The data reach NaN, saturation and ties in active lanes.
    let active: Vec<usize> = (0..64).filter(|&l| exec >> l & 1 != 0).collect();
    assert!(active
        .iter()
        .any(|&l| f32::from_bits(b.vgpr[1][l]).is_nan()));
    assert!(active
        .iter()
        .any(|&l| (64..96).any(|r| f32::from_bits(b.vgpr[r][l]).is_infinite())));
}
