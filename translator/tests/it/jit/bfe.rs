//! `v_bfe_u32` and `v_bfe_i32` in JIT code (`jit::lower::alu`: vector shifts for uniform
//! offsets and widths, lane by lane otherwise) against the interpreter, and against values
//! worked by hand from the RDNA4 guide's pseudocode (`D = (S0 >> S1[4:0]) & ((1 << S2[4:0])
//! − 1)`, for I32 then sign-extended from bit `S2[4:0] − 1`): offsets and widths 0, 1, 31,
//! 32 and beyond (only their low 5 bits count), SGPR, inline-constant and per-lane VGPR
//! operands, wave32 and wave64, full and partial EXEC, all other lanes and registers
//! poisoned.

use wavejit_translator::env::{CodeSource, ExitCode};
use wavejit_translator::exec::{EngineKind, Translator};
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::tier::TierPolicy;
use wavejit_translator::wave::WaveState;

const BASE: u64 = 0x20_0000;

struct Code(Vec<u8>);

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.0.get(off..).filter(|s| !s.is_empty())
    }
}

fn code(words: &[u32]) -> Code {
    Code(words.iter().flat_map(|w| w.to_le_bytes()).collect())
}

/// The block (encodings from `llvm-mc-22 -show-encoding`, gfx1100 / gfx942 opcodes):
/// ```text
/// v_bfe_u32 v1, v0, s4, 9      ; d6100001 02240900 / d1c80001 02240900
/// v_bfe_i32 v2, v0, 21, s5     ; d6110002 00152b00 / d1c90002 00152b00
/// v_bfe_u32 v3, v0, v6, v7     ; d6100003 041e0d00 / d1c80003 041e0d00
/// v_bfe_i32 v8, v0, v6, v7     ; d6110008 041e0d00 / d1c90008 041e0d00
/// v_bfe_i32 v9, v0, 0, 1       ; d6110009 02050100 / d1c90009 02050100
/// v_bfe_u32 v10, v0, 31, 32    ; d610000a 02813f00 / d1c8000a 02813f00
/// v_bfe_i32 v11, v0, 33, 40    ; d611000b 02a14300 / d1c9000b 02a14300
/// v_bfe_u32 v12, v0, s4, s5    ; d610000c 00140900 (gfx1100: two SGPRs)
/// v_bfe_i32 v13, v0, s4, s5    ; d611000d 00140900 (gfx1100)
/// s_endpgm                     ; bfb00000 / bf810000
/// ```
fn program(gfx942: bool) -> Vec<u32> {
    let (u, i) = if gfx942 {
        (0xd1c8_0000, 0xd1c9_0000)
    } else {
        (0xd610_0000, 0xd611_0000)
    };
    let mut w = vec![
        u | 1,
        0x0224_0900,
        i | 2,
        0x0015_2b00,
        u | 3,
        0x041e_0d00,
        i | 8,
        0x041e_0d00,
        i | 9,
        0x0205_0100,
        u | 10,
        0x0281_3f00,
        i | 11,
        0x02a1_4300,
    ];
    if gfx942 {
        w.push(0xbf81_0000);
    } else {
        w.extend([u | 12, 0x0014_0900, i | 13, 0x0014_0900, 0xbfb0_0000]);
    }
    w
}

/// xorshift64*.
fn next(seed: &mut u64) -> u32 {
    *seed ^= *seed >> 12;
    *seed ^= *seed << 25;
    *seed ^= *seed >> 27;
    (seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
}

/// Offsets and widths the SGPR operands take: the edges (0, 1, 31, 32, 33, 63, 64, all
/// ones) and fields that run past bit 31.
const AMOUNTS: [(u32, u32); 12] = [
    (0, 0),
    (0, 1),
    (0, 31),
    (0, 32),
    (31, 1),
    (31, 31),
    (32, 5),
    (5, 33),
    (17, 20),
    (63, 64),
    (u32::MAX, u32::MAX),
    (3, 8),
];

fn wave(seed: u64, wave_size: u32, exec: u64, (s4, s5): (u32, u32)) -> Box<WaveState> {
    let mut r = 0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x1000_0001) | 1;
    let mut s = WaveState::new_boxed(wave_size);
    for reg in 0..16 {
        for l in 0..64 {
            s.vgpr[reg][l] = next(&mut r);
        }
    }
    for g in 0..16 {
        s.sgpr[g] = next(&mut r);
    }
    for l in 0..64 {
        // Per-lane offsets and widths 0..=69 (past 31 too), and some negative and
        // single-bit data.
        s.vgpr[6][l] = next(&mut r) % 70;
        s.vgpr[7][l] = next(&mut r) % 70;
        if l % 5 == 0 {
            s.vgpr[0][l] = 0x8000_0000 >> (l % 32);
        }
    }
    s.sgpr[4] = s4;
    s.sgpr[5] = s5;
    s.pc = BASE;
    s.set_exec(exec);
    s
}

fn translator(gpu: Gpu, wave: u32, engine: EngineKind) -> Translator {
    Translator::new(
        Target {
            gpu,
            wave_size: wave,
        },
        engine,
    )
    .expect("translator")
    .with_tiers(TierPolicy::single(0))
    .with_jit(Jit::new().expect("JIT"))
}

fn run(t: &Translator, code: &Code, mut s: Box<WaveState>) -> Box<WaveState> {
    let mut env = FlatEnv::new(0x2000_0000, 256, 0, 0);
    let mut left = 1_000_000;
    assert_eq!(
        t.run(code, &mut s, &mut env, &mut left),
        Ok(ExitCode::EndPgm)
    );
    s
}

/// The RDNA4 pseudocode: `S0 >> S1[4:0]` (arithmetic for I32, so a field reaching past
/// bit 31 reads copies of the sign), masked to `S2[4:0]` bits, sign-extended for I32.
fn by_hand(signed: bool, x: u32, off: u32, width: u32) -> u32 {
    let (off, width) = (off & 31, width & 31);
    if width == 0 {
        return 0;
    }
    let shifted = if signed {
        ((x as i32) >> off) as u32
    } else {
        x >> off
    };
    let mask = ((1u64 << width) - 1) as u32;
    let field = shifted & mask;
    if signed && field >> (width - 1) & 1 == 1 {
        field | !mask
    } else {
        field
    }
}

#[test]
fn bitfield_extracts_match_the_interpreter_and_the_pseudocode() {
    let partial = 0xF0F0_1234_FFFF_8001u64;
    for (gpu, wave_size) in [(Gpu::GFX1100, 32), (Gpu::GFX1100, 64), (Gpu::GFX942, 64)] {
        let gfx942 = gpu == Gpu::GFX942;
        let code = code(&program(gfx942));
        let target = Target { gpu, wave_size };
        let blk = lift_block(&target, &code, BASE, 0xF0);
        Jit::new()
            .expect("JIT")
            .compile(&blk)
            .expect("the block compiles");
        let jit = translator(gpu, wave_size, EngineKind::Jit);
        let interp = translator(gpu, wave_size, EngineKind::Interp);
        let mut seed = 0;
        for amounts in AMOUNTS {
            for exec in [u64::MAX, partial] {
                seed += 1;
                let what = format!("{gpu:?} w{wave_size}, s4/s5 {amounts:?}, exec {exec:#x}");
                let mk = || wave(seed, wave_size, exec, amounts);
                let want = run(&interp, &code, mk());
                let got = run(&jit, &code, mk());
                for reg in 0..16 {
                    assert_eq!(got.vgpr[reg], want.vgpr[reg], "{what}: v{reg}");
                }
                let before = mk();
                let lanes = (0..wave_size as usize).filter(|&l| exec >> l & 1 == 1);
                for l in lanes {
                    let x = before.vgpr[0][l];
                    let (s4, s5) = amounts;
                    let mut hand = vec![
                        (9, by_hand(true, x, 0, 1)),
                        (10, by_hand(false, x, 31, 32)),
                        (11, by_hand(true, x, 33, 40)),
                    ];
                    hand.push((1, by_hand(false, x, s4, 9)));
                    hand.push((2, by_hand(true, x, 21, s5)));
                    let (o, w) = (before.vgpr[6][l], before.vgpr[7][l]);
                    hand.push((3, by_hand(false, x, o, w)));
                    hand.push((8, by_hand(true, x, o, w)));
                    if !gfx942 {
                        hand.push((12, by_hand(false, x, s4, s5)));
                        hand.push((13, by_hand(true, x, s4, s5)));
                    }
                    for (reg, v) in hand {
                        assert_eq!(got.vgpr[reg][l], v, "{what}: v{reg} lane {l}, x {x:#x}");
                    }
                }
            }
        }
    }
}
