//! RDNA WMMA/SWMMAC through the decoder, the lifter and the interpreter, from LLVM's own
//! encodings (llvm-mc-22 `-show-encoding`; the text is in each comment): the instruction
//! modifiers (OPSEL, NEG/NEG_HI, CLAMP, index_key, inline C) must reach the executed plan.
//!
//! The inputs are uniform per operand (or per register half), so the expected values follow
//! from the instruction definitions (RDNA4 ISA 7.12, `notes/rdna.md` §5.2) without any layout:
//! every D element is C + Σ_k A·B over 16 (or, sparse, 16 kept of 32) equal products.

use wavejit_translator::env::{CodeSource, ExitCode};
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::{Exit, Op};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

const BASE: u64 = 0x1000;

struct Code(Vec<u8>);
impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.0.get(off..).filter(|b| !b.is_empty())
    }
}

/// Lifts the one instruction `bytes` for `gpu` in a `wave`-lane wave, runs it on `s`.
fn run(gpu: Gpu, wave: u32, bytes: &[u8], s: &mut WaveState) {
    let target = Target {
        wave_size: wave,
        ..Target::new(gpu)
    };
    let block = lift_block(&target, &Code(bytes.to_vec()), BASE, 0);
    assert!(
        block.ops.iter().any(|op| matches!(op, Op::Matrix(_))),
        "no matrix op in {block}"
    );
    assert_eq!(block.exit, Exit::Jump(BASE + 8));
    let exit = run_block(&block, s, &mut FlatEnv::new(0x7000_0000, 64, 64, 16)).expect("runs");
    assert_eq!(exit, ExitCode::Continue);
}

const F16_1: u32 = 0x3C00;
const F16_HALF: u32 = 0x3800;
const F16_2: u32 = 0x4000;

/// Both halves of a register set to the 16-bit `v`.
fn both(v: u32) -> [u32; 64] {
    [v | v << 16; 64]
}

#[test]
fn rdna3_f16_result_goes_to_the_opsel_half() {
    // v_wmma_f16_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[0:7] op_sel:[0,0,1]
    let bytes = [0x00, 0x60, 0x42, 0xcc, 0x08, 0x21, 0x02, 0x1c];
    let mut s = WaveState::new_boxed(32);
    for r in 8..16 {
        s.vgpr[r] = both(F16_1);
    }
    for r in 16..24 {
        s.vgpr[r] = both(F16_HALF);
    }
    for r in 0..8 {
        // C = 2.0 in the high halves; the low halves must survive.
        s.vgpr[r] = [F16_2 << 16 | 0x1234; 64];
    }
    s.vgpr[40] = [0xCAFE_F00D; 64];
    run(Gpu::GFX1100, 32, &bytes, &mut s);
    for r in 0..8 {
        for l in 0..32 {
            // 2 + 16·(1·0.5) = 10 = f16 0x4900.
            assert_eq!(s.vgpr[r][l], 0x4900 << 16 | 0x1234, "v{r} lane {l}");
        }
    }
    assert_eq!(s.vgpr[40], [0xCAFE_F00D; 64]);
}

#[test]
fn rdna3_neg_and_neg_hi_select_halves_and_c_abs() {
    // v_wmma_f32_16x16x16_f16 v[0:7], v[8:15], v[16:23], v[24:31] neg_lo:[1,0,1] neg_hi:[0,1,1]
    let bytes = [0x00, 0x46, 0x40, 0xcc, 0x08, 0x21, 0x62, 0xbc];
    let mut s = WaveState::new_boxed(32);
    for r in 8..16 {
        s.vgpr[r] = [F16_2 << 16 | F16_1; 64]; // A: 1.0 low (negated), 2.0 high
    }
    for r in 16..24 {
        s.vgpr[r] = [0x4200 << 16 | F16_1; 64]; // B: 1.0 low, 3.0 high (negated)
    }
    for r in 24..32 {
        for l in 0..32 {
            s.vgpr[r][l] = (if (r + l) % 2 == 0 { 5.0f32 } else { -5.0 }).to_bits();
        }
    }
    run(Gpu::GFX1100, 32, &bytes, &mut s);
    // -|C| + 8·(-1·1) + 8·(2·-3) = -5 - 8 - 48.
    for r in 0..8 {
        for l in 0..32 {
            assert_eq!(f32::from_bits(s.vgpr[r][l]), -61.0, "v{r} lane {l}");
        }
    }
}

#[test]
fn rdna3_iu8_signedness_and_clamp() {
    // v_wmma_i32_16x16x16_iu8 v[0:7], v[8:11], v[12:15], v[0:7] neg_lo:[1,1,0] clamp
    let bytes = [0x00, 0xc0, 0x44, 0xcc, 0x08, 0x19, 0x02, 0x7c];
    let mut s = WaveState::new_boxed(32);
    for r in 8..16 {
        s.vgpr[r] = [0x8080_8080; 64]; // -128 as signed bytes
    }
    for r in 0..8 {
        for l in 0..32 {
            s.vgpr[r][l] = if l % 2 == 0 { i32::MAX - 100_000 } else { 5 } as u32;
        }
    }
    run(Gpu::GFX1100, 32, &bytes, &mut s);
    for r in 0..8 {
        for l in 0..32 {
            // 16 · (-128)² = 262144 on top of C, saturating.
            let want = if l % 2 == 0 { i32::MAX } else { 262_149 };
            assert_eq!(s.vgpr[r][l] as i32, want, "v{r} lane {l}");
        }
    }
}

#[test]
fn rdna4_swmmac_reads_the_index_set_named_by_index_key() {
    // v_swmmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 index_key:1 (wave64)
    let bytes = [0x00, 0x48, 0x50, 0xcc, 0x04, 0x0d, 0x2a, 0x1c];
    let mut s = WaveState::new_boxed(64);
    for r in 4..10 {
        s.vgpr[r] = both(F16_1);
    }
    // Wave64: 4 sets of 8 bits. Set 1 keeps positions (0, 1) of every group (0b0100 per pair
    // of indices); the other sets hold idx0 = 3, idx1 = 0, which place nothing (ISA 7.12.3).
    let set_nothing = 0b0011u32 | 0b0011 << 4;
    let set_keep = 0b0100u32 | 0b0100 << 4;
    s.vgpr[10] = [set_nothing | set_keep << 8 | set_nothing << 16 | set_nothing << 24; 64];
    for r in 0..4 {
        s.vgpr[r] = [0.25f32.to_bits(); 64];
    }
    run(Gpu::GFX1200, 64, &bytes, &mut s);
    for r in 0..4 {
        for l in 0..64 {
            // 0.25 + 16 kept ones times B = 1.
            assert_eq!(f32::from_bits(s.vgpr[r][l]), 16.25, "v{r} lane {l}");
        }
    }
}

#[test]
fn rdna4_inline_constant_c() {
    // v_wmma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], 1.0 (wave64)
    let bytes = [0x00, 0x40, 0x40, 0xcc, 0x04, 0x0d, 0xca, 0x1b];
    let mut s = WaveState::new_boxed(64);
    s.vgpr[4] = both(F16_1);
    s.vgpr[5] = both(F16_1);
    s.vgpr[6] = both(F16_2);
    s.vgpr[7] = both(F16_2);
    run(Gpu::GFX1200, 64, &bytes, &mut s);
    for r in 0..4 {
        assert_eq!(s.vgpr[r], [33.0f32.to_bits(); 64], "v{r}");
    }
}

#[test]
fn rdna4_bf16_result_is_packed() {
    // v_wmma_bf16_16x16x16_bf16 v[0:1], v[2:3], v[4:5], v[0:1] (wave64)
    let bytes = [0x00, 0x40, 0x43, 0xcc, 0x02, 0x09, 0x02, 0x1c];
    let mut s = WaveState::new_boxed(64);
    s.vgpr[2] = both(0x3F80); // bf16 1.0
    s.vgpr[3] = both(0x3F80);
    s.vgpr[4] = both(0x3F00); // bf16 0.5
    s.vgpr[5] = both(0x3F00);
    s.vgpr[0] = both(0x3F80);
    s.vgpr[1] = both(0x3F80);
    run(Gpu::GFX1200, 64, &bytes, &mut s);
    // 1 + 16·0.5 = 9 = bf16 0x4110, in both halves (two rows per register).
    assert_eq!(s.vgpr[0], both(0x4110));
    assert_eq!(s.vgpr[1], both(0x4110));
}

#[test]
fn rdna4_ignores_clamp_on_wmma() {
    // v_wmma_i32_16x16x16_iu8 v[0:7], v[8:9], v[10:11], v[0:7] neg_lo:[1,1,0] clamp (wave32):
    // RDNA4 ISA 7.2.3 lists WMMA among the ops whose clamp bit is ignored, so the sum wraps.
    let bytes = [0x00, 0xc0, 0x44, 0xcc, 0x08, 0x15, 0x02, 0x7c];
    let mut s = WaveState::new_boxed(32);
    for r in 8..12 {
        s.vgpr[r] = [0x8080_8080; 64]; // -128 as signed bytes
    }
    for r in 0..8 {
        s.vgpr[r] = [(i32::MAX - 100_000) as u32; 64];
    }
    run(Gpu::GFX1200, 32, &bytes, &mut s);
    let want = (i32::MAX - 100_000).wrapping_add(262_144);
    for r in 0..8 {
        for l in 0..32 {
            assert_eq!(s.vgpr[r][l] as i32, want, "v{r} lane {l}");
        }
    }
}
