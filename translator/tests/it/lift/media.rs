//! gfx942 media ops and 16-bit-source multiply-adds (one implementation shared with RDNA):
//! `v_mad_u32_u16`/`v_mad_i32_i16` (with op_sel half selects), `v_sad_u8`, `v_sad_hi_u8`,
//! `v_sad_u16`, `v_msad_u8`, `v_lerp_u8`, `v_cvt_off_f32_i4`; gfx950 `v_bitop3_b16` and
//! `v_sat_pk_u8_i16`. Expected values from the ISA definitions computed on the host.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

/// Field `i` of `bits` bits of `x`.
fn field(x: u32, bits: u32, i: u32) -> u32 {
    x >> (bits * i) & ((1 << bits) - 1)
}

/// `Σ |a.e - b.e|` over the `bits`-bit fields, skipping fields where `b.e == 0` with `masked`.
fn sad(a: u32, b: u32, bits: u32, masked: bool) -> u32 {
    (0..32 / bits)
        .map(|i| (field(a, bits, i), field(b, bits, i)))
        .filter(|&(_, y)| !masked || y != 0)
        .map(|(x, y)| x.abs_diff(y))
        .sum()
}

#[test]
fn media_ops() {
    #[rustfmt::skip]
    let words = [
        0xd1f1000a, 0x040e0501, // v_mad_u32_u16 v10, v1, v2, v3
        0xd1f2180b, 0x040e0501, // v_mad_i32_i16 v11, v1, v2, v3 op_sel:[1,1,0,0]
        0xd1d9000c, 0x040e0501, // v_sad_u8 v12, v1, v2, v3
        0xd1da000d, 0x040e0501, // v_sad_hi_u8 v13, v1, v2, v3
        0xd1db000e, 0x040e0501, // v_sad_u16 v14, v1, v2, v3
        0xd1e4000f, 0x040e0501, // v_msad_u8 v15, v1, v2, v3
        0xd1cd0010, 0x040e0501, // v_lerp_u8 v16, v1, v2, v3
        0x7e221d01, // v_cvt_off_f32_i4_e32 v17, v1
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut r = Rng(1717);
    let mut byte = move || -> u32 {
        let v = r.next() as u32;
        match v % 5 {
            0 => 0,
            1 => 0xff,
            _ => v >> 8 & 0xff,
        }
    };
    let mut ins = vec![[0u32; 3]; 64];
    for l in 0..64 {
        for i in 0..3 {
            ins[l][i] = (0..4).fold(0, |acc, k| acc | byte() << (8 * k));
        }
        if l % 4 == 0 {
            // Sums that wrap past 2^32.
            ins[l][2] = 0xffff_fff0 | (l as u32 % 16);
        }
    }
    let (b, a) = run_words(&words, 77, exec, &mut mem, |s| {
        for l in 0..64 {
            for i in 0..3 {
                s.vgpr[1 + i][l] = ins[l][i];
            }
        }
    });
    for l in 0..64 {
        let [x, y, z] = ins[l];
        let want = |reg: usize| -> u32 {
            match reg {
                10 => (x & 0xffff).wrapping_mul(y & 0xffff).wrapping_add(z),
                11 => {
                    let p = i32::from((x >> 16) as u16 as i16) * i32::from((y >> 16) as u16 as i16);
                    (p as u32).wrapping_add(z)
                }
                12 => z.wrapping_add(sad(x, y, 8, false)),
                13 => z.wrapping_add(sad(x, y, 8, false) << 16),
                14 => z.wrapping_add(sad(x, y, 16, false)),
                15 => z.wrapping_add(sad(x, y, 8, true)),
                16 => (0..4).fold(0, |acc, i| {
                    let s = (field(x, 8, i) + field(y, 8, i) + (z >> (8 * i) & 1)) >> 1;
                    acc | s << (8 * i)
                }),
                // The low nibble as a signed 4-bit integer, divided by 16.
                _ => ((((x << 28) as i32 >> 28) as f32) / 16.0).to_bits(),
            }
        };
        for reg in 10..=17 {
            let w = if exec >> l & 1 != 0 {
                want(reg)
            } else {
                b.vgpr[reg][l]
            };
            assert_eq!(a.vgpr[reg][l], w, "v{reg} lane {l}");
        }
    }
    assert!((0..64).any(|l| exec >> l & 1 != 0 && ins[l][1] & 0xff == 0));
}

/// The 3-input truth table `table` applied bitwise: bit i is table bit
/// `{a[i], b[i], c[i]}` (CDNA4 ISA, V_BITOP3).
fn bitop3(table: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |acc, i| {
        let idx = (a >> i & 1) << 2 | (b >> i & 1) << 1 | (c >> i & 1);
        acc | u32::from(table >> idx & 1) << i
    })
}

/// `v_sat_pk_u8_i16`: each signed half clamped to 0..=255, packed into 16 bits.
fn sat_pk(x: u32) -> u32 {
    let s = |h: u32| (h as u16 as i16).clamp(0, 255) as u32;
    s(x & 0xffff) | s(x >> 16) << 8
}

#[test]
fn bitop3_b16_and_sat_pk_u8() {
    #[rustfmt::skip]
    let words = [
        0xd233020a, 0xd40e0501, // v_bitop3_b16 v10, v1, v2, v3 bitop3:0x96
        0xd2336d0b, 0x1c0e0501, // v_bitop3_b16 v11, v1, v2, v3 bitop3:0xe8 op_sel:[1,0,1,1]
        0xd233130c, 0x840e0501, // v_bitop3_b16 v12, v1, v2, v3 bitop3:0x1c op_sel:[0,1,0,0]
        0x7e1a9f01, // v_sat_pk_u8_i16_e32 v13, v1
        0xd18f000e, 0x00000102, // v_sat_pk_u8_i16_e64 v14, v2
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut r = Rng(99);
    let code = Code::from_words(&words);
    let mut s = random_state(5, exec);
    let edges = [0u32, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x00fe, 0xff00];
    for l in 0..64 {
        for reg in 1..=3 {
            let v = r.next();
            s.vgpr[reg][l] = if l % 2 == 0 {
                edges[v as usize % 8] | edges[(v >> 8) as usize % 8] << 16
            } else {
                v as u32
            };
        }
    }
    let b = clone_state(&s);
    let mut mem = Mem::new(0);
    let t = wavejit_translator::isa::Target::new(wavejit_translator::isa::Gpu::GFX950);
    let exit = run_on(&t, &code, &mut s, &mut mem).expect("runs");
    assert_eq!(exit, wavejit_translator::env::ExitCode::EndPgm);
    for l in 0..64 {
        let v = |reg: usize| b.vgpr[reg][l];
        let (lo, hi) = (|x: u32| x & 0xffff, |x: u32| x >> 16);
        let want = [
            (10, lo(bitop3(0x96, v(1), v(2), v(3)))),
            (
                11,
                v(11) & 0xffff | lo(bitop3(0xe8, hi(v(1)), lo(v(2)), hi(v(3)))) << 16,
            ),
            (12, lo(bitop3(0x1c, lo(v(1)), hi(v(2)), lo(v(3))))),
            (13, sat_pk(v(1))),
            (14, sat_pk(v(2))),
        ];
        for (reg, w) in want {
            let w = if exec >> l & 1 != 0 { w } else { v(reg) };
            assert_eq!(s.vgpr[reg][l], w, "v{reg} lane {l}");
        }
    }
}

/// `v_clrexcp` clears SIMD exception state, which wavejit does not record: registers, SCC
/// and MODE are unchanged (the operand fields are ignored).
#[test]
fn clrexcp_changes_no_register() {
    #[rustfmt::skip]
    let words = [
        0x7e006b04, // v_clrexcp (src0 field v4, ignored)
        0xd1750000, 0x04421104, // v_clrexcp_e64 (source fields set, ignored)
        0xbf810000, // s_endpgm
    ];
    let mut mem = Mem::new(0);
    let (b, a) = run_words(&words, 9, EXEC_PARTIAL, &mut mem, |_| {});
    assert!(a.vgpr == b.vgpr && a.sgpr == b.sgpr);
    assert_eq!((a.scc, a.mode, a.trapsts), (b.scc, b.mode, b.trapsts));
}

/// `v_perm_b32` worked from the RDNA4 ISA's V_PERM_B32 pseudocode (`BYTE_PERMUTE`): the
/// 8 bytes `{S0, S1}` (S1 low), selector 8..=11 the top bit of byte 1/3/5/7 replicated,
/// 12 zero, 13 and above 0xff.
fn perm_ref(s0: u32, s1: u32, sel: u32) -> u32 {
    let bytes: Vec<u32> = (0..4)
        .map(|i| s1 >> (8 * i) & 0xff)
        .chain((0..4).map(|i| s0 >> (8 * i) & 0xff))
        .collect();
    (0..4).fold(0, |acc, i| {
        let s = sel >> (8 * i) & 0xff;
        let b = match s {
            0..=7 => bytes[s as usize],
            8..=11 => (bytes[2 * (s as usize - 8) + 1] >> 7) * 0xff,
            12 => 0,
            _ => 0xff,
        };
        acc | b << (8 * i)
    })
}

/// `v_perm_b32` with a per-lane selector (every selector byte value 0..=15 and large
/// ones) and with a uniform SGPR selector; both engines (the lift support compares the
/// JIT with the interpreter) and the block must compile.
#[test]
fn perm_b32() {
    #[rustfmt::skip]
    let words = [
        0xd1ed000a, 0x040e0501, // v_perm_b32 v10, v1, v2, v3
        0xd1ed000b, 0x00120501, // v_perm_b32 v11, v1, v2, s4
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0);
    let mut r = Rng(4242);
    let mut ins = vec![[0u32; 3]; 64];
    for (l, v) in ins.iter_mut().enumerate() {
        v[0] = r.next() as u32;
        v[1] = r.next() as u32;
        // Selector bytes: lane-dependent 0..=15 in three bytes, a random byte in one.
        let b = |k: usize| ((l * 4 + k) % 16) as u32;
        v[2] = b(0) | b(1) << 8 | b(2) << 16 | (r.next() as u32 & 0xff) << 24;
    }
    let sel_s = 0x0a0c_0905;
    let (b, a) = run_words(&words, 91, exec, &mut mem, |s| {
        for (l, v) in ins.iter().enumerate() {
            s.vgpr[1][l] = v[0];
            s.vgpr[2][l] = v[1];
            s.vgpr[3][l] = v[2];
        }
        s.sgpr[4] = sel_s;
    });
    for (l, v) in ins.iter().enumerate() {
        check_lane(&b, &a, 10, l, exec, perm_ref(v[0], v[1], v[2]));
        check_lane(&b, &a, 11, l, exec, perm_ref(v[0], v[1], sel_s));
    }
    // The block compiles (so the JIT was compared, not skipped).
    let code = Code::from_words(&words);
    let st = random_state(1, exec);
    let block = wavejit_translator::lift::lift_block(&target(), &code, st.pc, st.mode);
    let jit = wavejit_translator::jit::Jit::new().expect("host JIT");
    assert!(jit.compile(&block).is_ok(), "v_perm_b32 block not compiled");
}
