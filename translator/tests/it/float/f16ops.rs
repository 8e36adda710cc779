//! f16 VALU ops (rounding, sqrt/rcp/rsq, fract, frexp, ldexp, min3/max3/med3, mac/madak,
//! packed fmac, div_fixup), `v_mul_legacy_f32`, and gfx950's `v_maximum3`/`v_minimum3`
//! (f32 and packed f16), on special values, denormals and normal values, in both engines.
//!
//! Expected values: the `half` crate's conversions of host f64 results (exact before the one
//! rounding to f16, or double rounding that cannot differ: 53 >= 2 * 11 + 2), frexp by
//! repeated scaling, and the pseudocode (min/max, med3, div_fixup, maximum) written out on
//! bits.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;
use half::f16;
use wavejit_translator::env::ExitCode;
use wavejit_translator::interp::run_block;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

const H: [u16; 24] = [
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, // ±0, ±Inf, qNaN, sNaN
    0x0001, 0x83ff, 0x0200, // denormals
    0x3c00, 0xbc00, 0x3e00, 0xc100, 0x4248, 0x3555, 0x2e66, // normals
    0x7bff, 0xfbff, 0x5a00, 0x4d00, 0x3bff, 0xb800, 0x3800, 0x1400,
];

fn v(h: u16) -> f64 {
    f64::from(f16::from_bits(h))
}
fn r16(x: f64) -> u16 {
    f16::from_f64(x).to_bits()
}
fn is_nan(h: u16) -> bool {
    h & 0x7fff > 0x7c00
}
fn is_snan(h: u16) -> bool {
    is_nan(h) && h & 0x200 == 0
}
/// Equal bits, or both NaN.
fn same(got: u32, want: u16) -> bool {
    got == want as u32 || (is_nan(got as u16) && got >> 16 == 0 && is_nan(want))
}

/// V_MIN_F16/V_MAX_F16 with MODE.IEEE = 1 (pseudocode).
fn minmax(max: bool, a: u16, b: u16) -> u16 {
    if is_snan(a) {
        return a | 0x200;
    }
    if is_snan(b) {
        return b | 0x200;
    }
    if is_nan(a) {
        return b;
    }
    if is_nan(b) {
        return a;
    }
    if v(a) == 0.0 && v(b) == 0.0 && a != b {
        return if max { 0 } else { 0x8000 };
    }
    let take_a = if max { v(a) >= v(b) } else { v(a) < v(b) };
    if take_a {
        a
    } else {
        b
    }
}

fn med3(a: u16, b: u16, c: u16) -> u16 {
    if is_nan(a) || is_nan(b) || is_nan(c) {
        return minmax(false, minmax(false, a, b), c);
    }
    let m = minmax(true, minmax(true, a, b), c);
    if v(m) == v(a) {
        minmax(true, b, c)
    } else if v(m) == v(b) {
        minmax(true, a, c)
    } else {
        minmax(true, a, b)
    }
}

/// IEEE 754-2019 maximum/minimum on bits of `nbits` (16 or 32) (v_maximum pseudocode).
fn maximum(max: bool, a: u32, b: u32, f32bits: bool) -> u32 {
    type Ops = (u32, fn(u32) -> bool, fn(u32) -> f64);
    let (quiet, nan, val): Ops = if f32bits {
        (
            1 << 22,
            |x| f32::from_bits(x).is_nan(),
            |x| f64::from(f32::from_bits(x)),
        )
    } else {
        (0x200, |x| is_nan(x as u16), |x| v(x as u16))
    };
    let snan = |x: u32| nan(x) && x & quiet == 0;
    if snan(a) {
        return a | quiet;
    }
    if snan(b) {
        return b | quiet;
    }
    if nan(a) {
        return a;
    }
    if nan(b) {
        return b;
    }
    let (x, y) = (val(a), val(b));
    if x == 0.0 && y == 0.0 && a != b {
        let neg = if f32bits { 0x8000_0000 } else { 0x8000 };
        return if max { 0 } else { neg };
    }
    if (x > y) == max || x == y {
        a
    } else {
        b
    }
}

/// Host frexp by repeated scaling: mantissa in [0.5, 1) and exponent.
fn frexp(x: f64) -> (f64, i32) {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return (x, 0);
    }
    let (mut m, mut e) = (x, 0);
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

/// V_DIV_FIXUP_F16 (pseudocode): quotient S0, denominator S1, numerator S2.
fn div_fixup(q: u16, d: u16, n: u16) -> u16 {
    let sign = (d ^ n) & 0x8000;
    if is_nan(n) {
        return n | 0x200;
    }
    if is_nan(d) {
        return d | 0x200;
    }
    let (dv, nv) = (v(d), v(n));
    if dv == 0.0 && nv == 0.0 {
        return 0xfe00;
    }
    if dv.is_infinite() && nv.is_infinite() {
        return 0xfe00;
    }
    if dv == 0.0 || nv.is_infinite() {
        return sign | 0x7c00;
    }
    if dv.is_infinite() || nv == 0.0 {
        return sign;
    }
    sign | q & 0x7fff
}

#[rustfmt::skip]
const F16OPS: [u32; 25] = [
    0x7e148b01, // v_ceil_f16_e32 v10, v1
    0x7e168901, // v_floor_f16_e32 v11, v1
    0x7e188d01, // v_trunc_f16_e32 v12, v1
    0x7e1a8f01, // v_rndne_f16_e32 v13, v1
    0x7e1c7d01, // v_sqrt_f16_e32 v14, v1
    0x7e1e7b01, // v_rcp_f16_e32 v15, v1
    0x7e209101, // v_fract_f16_e32 v16, v1
    0x7e228501, // v_frexp_mant_f16_e32 v17, v1
    0x7e248701, // v_frexp_exp_i16_f16_e32 v18, v1
    0x66260501, // v_ldexp_f16_e32 v19, v1, v2
    0xd1f70014, 0x040e0501, // v_max3_f16 v20, v1, v2, v3
    0xd1f40015, 0x040e0501, // v_min3_f16 v21, v1, v2, v3
    0xd1fa0016, 0x040e0501, // v_med3_f16 v22, v1, v2, v3
    0x462e0501, // v_mac_f16_e32 v23, v1, v2
    0x4a300501, 0x00004200, // v_madak_f16 v24, v1, v2, 0x4200
    0x78320f06, // v_pk_fmac_f16_e32 v25, v6, v7
    0xd2a1001a, 0x00020b04, // v_mul_legacy_f32 v26, v4, v5
    0xd207001b, 0x040e0501, // v_div_fixup_f16 v27, v1, v2, v3
    0xbf810000, // s_endpgm
];

#[test]
fn f16_ops_against_host_values() {
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut rng = Rng(99);
    let (b, a) = run_words(&F16OPS, 61, exec, &mut mem, |s| {
        for l in 0..64 {
            s.vgpr[1][l] = 0xbeef_0000 | H[l % 24] as u32;
            // v2: f16 operands, and for v_ldexp_f16 the low half as an i16 exponent.
            s.vgpr[2][l] = if l % 3 == 0 {
                ((l as i32 - 32) as u32) & 0xffff
            } else {
                H[(l * 7 + 5) % 24] as u32
            };
            s.vgpr[3][l] = H[(l * 5 + 11) % 24] as u32;
            // v_pk_fmac: moderate normal values (exact in f64 before the single rounding).
            let mut nf = || (0x3000 + (rng.next() % 0x1800) as u32) | (rng.next() as u32 & 0x8000);
            s.vgpr[6][l] = nf() | nf() << 16;
            s.vgpr[7][l] = nf() | nf() << 16;
            s.vgpr[25][l] = nf() | nf() << 16;
            s.vgpr[4][l] = [0u32, 0x8000_0000, 0x7f80_0000, 0x7fc0_0000, 0x3fc0_0000][l % 5];
            s.vgpr[5][l] = [0x7f80_0000u32, 0xffc0_0001, 0, 0x4040_0000, 0xc000_0000][(l / 5) % 5];
        }
    });
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let x = b.vgpr[1][l] as u16;
        let y = b.vgpr[2][l] as u16;
        let z = b.vgpr[3][l] as u16;
        let xv = v(x);
        let ctx = |r: usize| format!("v{r} lane {l} x {x:#06x} y {y:#06x} z {z:#06x}");
        let chk = |r: usize, want: u16| {
            assert!(
                same(a.vgpr[r][l], want),
                "{}: got {:#x} want {want:#x}",
                ctx(r),
                a.vgpr[r][l]
            )
        };
        // Quieted NaN inputs stay NaN (checked as "some NaN" by `same`).
        chk(10, r16(xv.ceil()));
        chk(11, r16(xv.floor()));
        chk(12, r16(xv.trunc()));
        chk(13, r16(xv.round_ties_even()));
        chk(14, r16(xv.sqrt()));
        chk(15, r16(1.0 / xv));
        let fr = if xv.is_infinite() {
            f64::NAN
        } else {
            xv - xv.floor()
        };
        let fr = r16(fr);
        chk(
            16,
            if !is_nan(fr) && v(fr) >= 1.0 {
                0x3bff
            } else {
                fr
            },
        );
        let (m, e) = frexp(xv);
        chk(17, r16(m));
        assert_eq!(a.vgpr[18][l], e as u16 as u32, "{}", ctx(18));
        if l % 3 == 0 {
            let k = y as i16 as i32;
            chk(19, r16(xv * 2f64.powi(k)));
        }
        chk(20, minmax(true, minmax(true, x, y), z));
        chk(21, minmax(false, minmax(false, x, y), z));
        chk(22, med3(x, y, z));
        let mac = r16(v(r16(xv * v(y))) + v(b.vgpr[23][l] as u16));
        chk(23, mac);
        chk(24, r16(v(r16(xv * v(y))) + 3.0));
        let (p, q, c) = (b.vgpr[6][l], b.vgpr[7][l], b.vgpr[25][l]);
        let fma = |h: u32| {
            let f = |w: u32| v((w >> (16 * h)) as u16);
            r16(f(p) * f(q) + f(c)) as u32
        };
        assert_eq!(a.vgpr[25][l], fma(0) | fma(1) << 16, "{}", ctx(25));
        let (f4, f5) = (f32::from_bits(b.vgpr[4][l]), f32::from_bits(b.vgpr[5][l]));
        let want = if f4 == 0.0 || f5 == 0.0 { 0.0 } else { f4 * f5 };
        let got = f32::from_bits(a.vgpr[26][l]);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{}: {got:e} want {want:e}",
            ctx(26)
        );
        // v_div_fixup_f16 (GFX9 opcode 0x207, which has OPSEL) keeps D[31:16] when
        // OPSEL[3] = 0 (CDNA4 ISA ch. 12; LLVM's zeroesHigh16BitsOfDest lists only the GFX8
        // encoding v_div_fixup_legacy_f16 as zeroing): the low half checked, the high kept.
        let (got27, old27) = (a.vgpr[27][l], b.vgpr[27][l]);
        assert_eq!(got27 >> 16, old27 >> 16, "{}: high half kept", ctx(27));
        assert!(
            same(got27 & 0xffff, div_fixup(x, y, z)),
            "{}: got {got27:#x}",
            ctx(27)
        );
    }
}

#[rustfmt::skip]
const MAXIMUM: [u32; 9] = [
    0xd2a9000a, 0x040e0501, // v_maximum3_f32 v10, v1, v2, v3
    0xd2a8000b, 0x040e0501, // v_minimum3_f32 v11, v1, v2, v3
    0xd39c400c, 0x1c1a0b04, // v_pk_maximum3_f16 v12, v4, v5, v6
    0xd39b400d, 0x1c1a0b04, // v_pk_minimum3_f16 v13, v4, v5, v6
    0xbf810000, // s_endpgm
];

/// Lifts and runs `code` on `gpu` in the interpreter and the JIT (which must agree).
fn run_on(gpu: Gpu, code: &Code, state: &mut WaveState, mem: &mut Mem) {
    let t = Target::new(gpu);
    let jit = Jit::new().expect("JIT for the host");
    for _ in 0..100 {
        let block = lift_block(&t, code, state.pc, state.mode);
        let mut js = clone_state(state);
        let mut jm = mem.clone();
        let r = run_block(&block, state, mem);
        if let Ok(compiled) = jit.compile(&block) {
            let jr = compiled.run(&mut js, &mut jm);
            assert!(
                jr == r && js.vgpr == state.vgpr && js.sgpr == state.sgpr,
                "JIT and interpreter differ on block:\n{block}"
            );
        }
        match r.expect("runs") {
            ExitCode::EndPgm => return,
            ExitCode::Continue => {}
            other => panic!("unexpected exit {other:?}"),
        }
    }
    panic!("program did not end");
}

#[test]
fn gfx950_maximum3_minimum3() {
    const F: [u32; 12] = [
        0x7fc0_0012,
        0xff80_0003,
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x3f80_0000,
        0xbf80_0000,
        0x0000_0005,
        0x4120_0000,
        0x7fc0_0000,
        0xc2c8_0000,
    ];
    let code = Code::from_words(&MAXIMUM);
    let mut mem = Mem::new(0);
    let mut s = random_state(0x950, u64::MAX);
    for l in 0..64 {
        s.vgpr[1][l] = F[l % 12];
        s.vgpr[2][l] = F[(l * 5 + 1) % 12];
        s.vgpr[3][l] = F[(l * 7 + 4) % 12];
        s.vgpr[4][l] = H[l % 24] as u32 | (H[(l + 3) % 24] as u32) << 16;
        s.vgpr[5][l] = H[(l * 5 + 1) % 24] as u32 | (H[(l * 3) % 24] as u32) << 16;
        s.vgpr[6][l] = H[(l * 7 + 2) % 24] as u32 | (H[(l * 11 + 5) % 24] as u32) << 16;
    }
    let b = clone_state(&s);
    run_on(Gpu::GFX950, &code, &mut s, &mut mem);
    for l in 0..64 {
        let (x, y, z) = (b.vgpr[1][l], b.vgpr[2][l], b.vgpr[3][l]);
        let m3 =
            |max: bool, a: u32, b: u32, c: u32, f: bool| maximum(max, maximum(max, a, b, f), c, f);
        assert_eq!(s.vgpr[10][l], m3(true, x, y, z, true), "maximum3 lane {l}");
        assert_eq!(s.vgpr[11][l], m3(false, x, y, z, true), "minimum3 lane {l}");
        let (p, q, r) = (b.vgpr[4][l], b.vgpr[5][l], b.vgpr[6][l]);
        let pk = |max: bool| {
            let h = |w: u32, i: u32| w >> (16 * i) & 0xffff;
            m3(max, h(p, 0), h(q, 0), h(r, 0), false)
                | m3(max, h(p, 1), h(q, 1), h(r, 1), false) << 16
        };
        assert_eq!(s.vgpr[12][l], pk(true), "pk_maximum3 lane {l}");
        assert_eq!(s.vgpr[13][l], pk(false), "pk_minimum3 lane {l}");
    }
}

#[rustfmt::skip]
const DOT2: [u32; 10] = [
    0xd3a34000, 0x1c0e0501, // v_dot2_f32_f16 v0, v1, v2, v3
    0x6e080501, // v_dot2c_f32_f16_e32 v4, v1, v2
    0xd3a34205, 0x3c0e0501, // v_dot2_f32_f16 v5, v1, v2, v3 neg_lo:[1,0,0] neg_hi:[0,1,0]
    0xd3a34006, 0x9c0e0501, // v_dot2_f32_f16 v6, v1, v2, v3 neg_lo:[0,0,1]
    0xd3a3c007, 0x1c0e0501, // v_dot2_f32_f16 v7, v1, v2, v3 clamp
    0xbf810000, // s_endpgm
];

/// `v_dot2_f32_f16` / `v_dot2c_f32_f16`: the exact `a0*b0 + a1*b1 + c` rounded once (host: the
/// data keep it exact in f64, and `as f32` rounds once), f16 and f32 denormal inputs flushed
/// whatever MODE says, neg_lo/neg_hi/clamp; worked by hand: 1*1 + 2^-12*2^-12 + 2^-40 =
/// 1 + 2^-24 + 2^-40 is just above the tie, so 1 + 2^-23 (0x3f800001), where rounding the
/// products' sum first would reach the tie and give 1.0.
#[test]
fn dot2_f32_f16_rounds_once() {
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut rng = Rng(2024);
    let (b, a) = run_words(&DOT2, 62, exec, &mut mem, |s| {
        s.mode = DEFAULT_MODE; // denormals allowed by MODE: v_dot2 flushes anyway
        for l in 0..64 {
            // f16 normals in [2^-6, 2^6), f32 in [2^-10, 2^10): the exact sum fits an f64.
            let mut h = || (((rng.next() % 13) as u32 + 9) << 10) | (rng.next() as u32 & 0x83ff);
            let (a0, a1, b0, b1) = (h(), h(), h(), h());
            let ce = (rng.next() % 21) as u32 + 117;
            let mut c = ce << 23 | (rng.next() as u32 & 0x807f_ffff);
            let (mut x, mut y) = (a0 | a1 << 16, b0 | b1 << 16);
            match l % 8 {
                1 => {
                    (x, y, c) = (0x0c00_3c00, 0x0c00_3c00, 0x2b80_0000); // the worked case
                }
                2 => {
                    x = (x & 0xffff_0000) | 0x0200; // f16 denormal: flushed
                    c = 0x0000_0100 | (c & 0x8000_0000); // f32 denormal: flushed
                }
                3 => c = 0x6780_0000,                // 2^80 dwarfs the products
                4 => x = (x & 0xffff) | 0x7e00_0000, // NaN half
                5 => x = (x & 0xffff) | 0x7c00_0000, // Inf * finite
                6 => (x, y) = (0x7c00_3c00, 0x0000_3c00), // Inf * 0 → NaN
                _ => {}
            }
            s.vgpr[1][l] = x;
            s.vgpr[2][l] = y;
            s.vgpr[3][l] = c;
            s.vgpr[4][l] = c ^ 0x0040_0000; // v_dot2c's accumulator: moderate too
        }
    });
    let flush16 = |h: u32| if h & 0x7c00 == 0 { h & 0x8000 } else { h };
    let hv = |w: u32, i: u32| v(flush16(w >> (16 * i) & 0xffff) as u16);
    let fl32 = |x: u32| {
        if x & 0x7f80_0000 == 0 {
            x & 0x8000_0000
        } else {
            x
        }
    };
    let dot = |x: u32, y: u32, c: u32| -> f32 {
        let cv = f64::from(f32::from_bits(fl32(c)));
        let r = (hv(x, 0) * hv(y, 0) + hv(x, 1) * hv(y, 1) + cv) as f32;
        f32::from_bits(fl32(r.to_bits()))
    };
    for l in 0..64 {
        if exec >> l & 1 == 0 {
            continue;
        }
        let (x, y, c) = (b.vgpr[1][l], b.vgpr[2][l], b.vgpr[3][l]);
        let chk = |r: usize, want: f32| {
            let got = f32::from_bits(a.vgpr[r][l]);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "v{r} lane {l}: got {got:e} want {want:e} ({x:#x} {y:#x} {c:#x})"
            );
        };
        chk(0, dot(x, y, c));
        chk(4, dot(x, y, b.vgpr[4][l]));
        chk(5, dot(x ^ 0x8000, y ^ 0x8000_0000, c));
        chk(6, dot(x, y, c ^ 0x8000_0000));
        let cl = dot(x, y, c);
        chk(7, if cl.is_nan() { 0.0 } else { cl.clamp(0.0, 1.0) });
        if l % 8 == 1 {
            assert_eq!(a.vgpr[0][l], 0x3f80_0001, "worked case lane {l}");
        }
    }
}
