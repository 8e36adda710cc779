//! gfx950 `v_permlane16_swap_b32` / `v_permlane32_swap_b32` in both engines (the support
//! runner checks the JIT against the interpreter). Expected values follow LLVM's definition
//! (AMDGPUUsage, `llvm.amdgcn.permlane{16,32}.swap`), written here as the row loops: permlane16
//! swaps the odd rows of VDST with the even rows of SRC0, permlane32 rows 2-3 of VDST with
//! rows 0-1 of SRC0; a lane is written when active, reading an inactive partner lane gives 0
//! with `bound_ctrl` and leaves the lane unchanged without it, unless `fi` is set. Encodings
//! are from `llvm-mc -mcpu=gfx950 -show-encoding`.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::wave::WaveState;

/// (VDST lane, SRC0 lane) pairs of a swap of lanes `dist` (16 or 32) apart.
fn pairs(dist: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    if dist == 16 {
        for pass in 0..2 {
            for lane in 0..16 {
                v.push((pass * 32 + 16 + lane, pass * 32 + lane));
            }
        }
    } else {
        for lane in 0..32 {
            v.push((32 + lane, lane));
        }
    }
    v
}

/// The expected (VDST, SRC0) after a swap of registers `d` and `s` of `b`.
fn expect(b: &WaveState, d: usize, s: usize, dist: usize, fi: bool, bc: bool) -> [Vec<u32>; 2] {
    let exec = b.exec();
    let on = |l: usize| exec >> l & 1 != 0;
    let mut vd = b.vgpr[d].to_vec();
    let mut vs = b.vgpr[s].to_vec();
    for (a, c) in pairs(dist) {
        // VDST lane a reads SRC0 lane c, SRC0 lane c reads VDST lane a.
        for (dst, lane, src_val, src_lane) in
            [(&mut vd, a, b.vgpr[s][c], c), (&mut vs, c, b.vgpr[d][a], a)]
        {
            if !on(lane) {
                continue;
            }
            if on(src_lane) || fi {
                dst[lane] = src_val;
            } else if bc {
                dst[lane] = 0;
            }
        }
    }
    [vd, vs]
}

fn gfx950() -> Target {
    Target::new(Gpu::GFX950)
}

fn run950(words: &[u32], seed: u64, exec: u64) -> (Box<WaveState>, Box<WaveState>) {
    let code = Code::from_words(words);
    let mut s = random_state(seed, exec);
    let before = clone_state(&s);
    let mut mem = Mem::new(0);
    let r = run_on(&gfx950(), &code, &mut s, &mut mem).expect("program runs");
    assert_eq!(r, wavejit_translator::env::ExitCode::EndPgm);
    (before, s)
}

#[test]
fn swaps_rows_with_exec_fi_and_bound_ctrl() {
    #[rustfmt::skip]
    let words = [
        0x7e02b302, // v_permlane16_swap_b32_e32 v1, v2
        0x7e06b504, // v_permlane32_swap_b32_e32 v3, v4
        0xd1990805, 0x00000106, // v_permlane16_swap_b32_e64 v5, v6 fi:1
        0xd19a1007, 0x00000108, // v_permlane32_swap_b32_e64 v7, v8 bound_ctrl:1
        0xd1991809, 0x0000010a, // v_permlane16_swap_b32_e64 v9, v10 bound_ctrl:1 fi:1
        0x7e16b50b, // v_permlane32_swap_b32_e32 v11, v11
        0xbf810000, // s_endpgm
    ];
    // The JIT compiles the block (so the support runner compares it with the interpreter).
    let code = Code::from_words(&words);
    let s0 = random_state(1, u64::MAX);
    let block = wavejit_translator::lift::lift_block(&gfx950(), &code, s0.pc, s0.mode);
    assert!(!format!("{block}").contains("unsupported"), "{block}");
    let jit = wavejit_translator::jit::Jit::new().expect("JIT for the host");
    assert!(
        jit.compile(&block).is_ok(),
        "the JIT compiles the lane swaps"
    );
    // A full EXEC and a partial one (inactive partners in both directions).
    for (seed, exec) in [
        (3u64, u64::MAX),
        (5, EXEC_PARTIAL),
        (9, 0x8000_00F0_0F0F_0001),
    ] {
        let (b, a) = run950(&words, seed, exec);
        for (d, s, dist, fi, bc) in [
            (1, 2, 16, false, false),
            (3, 4, 32, false, false),
            (5, 6, 16, true, false),
            (7, 8, 32, false, true),
            (9, 10, 16, true, true),
        ] {
            let [vd, vs] = expect(&b, d, s, dist, fi, bc);
            assert_eq!(a.vgpr[d].to_vec(), vd, "v{d} (exec {exec:#x})");
            assert_eq!(a.vgpr[s].to_vec(), vs, "v{s} (exec {exec:#x})");
        }
        // One register as both operands: its two halves trade places (active lanes whose
        // partner is active).
        let mut v11 = b.vgpr[11].to_vec();
        let on = |l: usize| exec >> l & 1 != 0;
        for l in 0..32 {
            if on(l) && on(l + 32) {
                v11[l] = b.vgpr[11][l + 32];
                v11[l + 32] = b.vgpr[11][l];
            }
        }
        assert_eq!(a.vgpr[11].to_vec(), v11, "v11 (exec {exec:#x})");
        // With a full EXEC the swap is a plain exchange (a value from the other operand).
        if exec == u64::MAX {
            assert_eq!(a.vgpr[1][16], b.vgpr[2][0]);
            assert_eq!(a.vgpr[2][32], b.vgpr[1][48]);
            assert_eq!(a.vgpr[3][63], b.vgpr[4][31]);
            assert_eq!(a.vgpr[1][0], b.vgpr[1][0]);
        }
    }
}

#[test]
fn rejects_reserved_modifier_bits() {
    // v_permlane16_swap_b32_e64 v5, v6 with op_sel bit 2 (not fi/bound_ctrl) set.
    let code = Code::from_words(&[0xd1992005, 0x00000106, 0xbf810000]);
    let s = random_state(1, u64::MAX);
    let block = wavejit_translator::lift::lift_block(&gfx950(), &code, s.pc, s.mode);
    let text = format!("{block}");
    assert!(
        text.contains("unsupported modifiers"),
        "a reserved modifier bit must not lift: {text}"
    );
}
