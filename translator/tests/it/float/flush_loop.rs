//! A block that loops to itself under f32 denormal flushing, run with the JIT chaining the
//! loop in its own code (so it goes round the loop variant of `ir::passes::flush` once the
//! inputs hold no denormal) against the interpreter block by block. The inputs start clean
//! or with denormals in a register the loop only reads, in one it rewrites, or in a lane
//! outside EXEC; products shrink into the denormal range on the way, so flushed outputs
//! feed the next round.

use crate::lift_support::*;
use wavejit_translator::env::ExitCode;
use wavejit_translator::interp::run_block;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

/// The loop for gfx942 (`gfx9`) or gfx1100 (the encodings differ in opcodes only):
/// `v_fma_f32 v0, v0, v1, v2; v_mul_f32 v3, v3, v4; v_add_f32 v5, v5, v1;
/// v_mov_b32 v6, 5 (an f32 denormal); v_fma_f32 v7, v6, v1, v7; s_sub_u32 s0, s0, 1;
/// s_cmp_lg_u32 s0, 0; s_cbranch_scc1 loop; s_endpgm`.
fn program(gfx9: bool) -> Vec<u32> {
    let (fma, mul, add, br, end) = if gfx9 {
        (
            0xd1cb_0000u32,
            0x0a06_0903u32,
            0x020a_0305u32,
            0xbf85_fff6u32,
            0xbf81_0000u32,
        )
    } else {
        (
            0xd613_0000,
            0x1006_0903,
            0x060a_0305,
            0xbfa2_fff6,
            0xbfb0_0000,
        )
    };
    vec![
        fma,
        0x040a_0300,
        mul,
        add,
        0x7e0c_0285,
        fma | 7,
        0x041e_0306,
        0x8080_8100,
        0xbf07_8000,
        br,
        end,
    ]
}

/// MODE: round to nearest, f32 denormals flushed, f64/f16 kept, DX10_CLAMP and IEEE set.
const FLUSH_F32: u32 = 0x3c0;

/// Runs the program to `s_endpgm`: in the interpreter (`jit` None), or compiled, each
/// block run with a credit that lets the loop go round in the compiled code.
fn run(t: &Target, code: &Code, s: &mut WaveState, mem: &mut Mem, jit: Option<&Jit>) {
    for _ in 0..1000 {
        let block = lift_block(t, code, s.pc, s.mode);
        let r = match jit {
            None => run_block(&block, s, mem),
            Some(j) => {
                let c = j.compile(&block).expect("the block compiles");
                s.credit = 1 << 20;
                c.run_chained(s, mem)
            }
        };
        if r.expect("block runs") == ExitCode::EndPgm {
            return;
        }
    }
    panic!("program did not end");
}

/// A normal f32 of magnitude about 2^e with a random sign and mantissa.
fn normal(r: &mut Rng, e: i32) -> u32 {
    (r.next() as u32 & 0x8000_0000) | ((127 + e) as u32) << 23 | (r.next() as u32 & 0x7f_ffff)
}

#[test]
fn self_loop_under_flush_matches_the_interpreter() {
    for (gpu, wave) in [(Gpu::GFX942, 64u32), (Gpu::GFX1100, 32), (Gpu::GFX1100, 64)] {
        let t = Target {
            gpu,
            wave_size: wave,
        };
        let code = Code::from_words(&program(gpu == Gpu::GFX942));
        let jit = Jit::new().expect("JIT");
        // Where a denormal starts: nowhere, in v1 (read only) in a middle lane, in v0
        // (rewritten every round), in v1 in the wave's last lane, or in v1 in a lane
        // outside EXEC.
        for (case, exec) in [
            (0, u64::MAX),
            (1, u64::MAX),
            (2, u64::MAX),
            (3, u64::MAX),
            (4, 0x0fff_ffff_ffff_fff0u64),
        ] {
            let mut r = Rng(0xf1a5_0000 + case * 77 + wave as u64);
            let mut s = WaveState::new_boxed(wave);
            for reg in s.vgpr.iter_mut() {
                for v in reg.iter_mut() {
                    *v = r.next() as u32; // poison
                }
            }
            s.set_exec(exec);
            s.mode = FLUSH_F32;
            s.pc = CODE_BASE;
            s.sgpr[0] = 40; // rounds
            for l in 0..64 {
                s.vgpr[0][l] = normal(&mut r, -100);
                s.vgpr[1][l] = normal(&mut r, -3);
                s.vgpr[2][l] = normal(&mut r, -120);
                s.vgpr[3][l] = normal(&mut r, -110);
                s.vgpr[4][l] = 0x3e80_0000 | (r.next() as u32 & 0xff); // ~0.25
                                                                       // Smallest normals: a denormal v1 added unflushed would change them.
                s.vgpr[5][l] = normal(&mut r, -126);
                s.vgpr[7][l] = normal(&mut r, -125);
            }
            let lane = 3 + (r.next() % 20) as usize;
            match case {
                1 => s.vgpr[1][lane] = 0x0000_1234,
                2 => s.vgpr[0][lane] = 0x8001_0000,
                3 => s.vgpr[1][wave as usize - 1] = 0x8000_0777,
                4 => s.vgpr[1][1] = 0x0000_0042,
                _ => {}
            }
            let mut want = clone_state(&s);
            let mut got = clone_state(&s);
            let (mut m1, mut m2) = (Mem::new(0), Mem::new(0));
            run(&t, &code, &mut want, &mut m1, None);
            run(&t, &code, &mut got, &mut m2, Some(&jit));
            // Products of about 2^-110 shrink by 4 per round: denormal within a few rounds.
            let flushed = (0..wave as usize)
                .filter(|&l| want.vgpr[3][l] & 0x7fff_ffff == 0)
                .count();
            assert!(
                flushed > 0,
                "{gpu:?} w{wave} case {case}: no product flushed to zero"
            );
            for reg in 0..8 {
                assert_eq!(
                    got.vgpr[reg], want.vgpr[reg],
                    "{gpu:?} w{wave} case {case}: v{reg} differs"
                );
            }
            assert_eq!(got.sgpr[0], 0);
            assert_eq!(got.counters, want.counters, "{gpu:?} w{wave} case {case}");
        }
    }
}
