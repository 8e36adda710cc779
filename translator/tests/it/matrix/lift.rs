//! Matrix instructions through the lifter and the interpreter: the gfx950 block-scaled MFMA
//! decoded from LLVM's own encoding, the gfx942 xf32 MFMA's input truncation, and matrix
//! instructions inside a block (both engines).
//!
//! Expected values are worked on the host from the ISA's definitions (CDNA4 ISA 7.1.4 output
//! layout: D[i][j] of a 16x16 MFMA is register i%4 of lane j + 16·(i/4); 7.2 block scales:
//! one E8M0 scale per row (A) or column (B) and K block of 32, in lane row + 16·kblock).

use wavejit_translator::env::{CodeSource, ExitCode};
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::{Exit, Op};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
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

/// `v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[20:23], v24, v25`, as
/// llvm-mc-22 -mcpu=gfx950 encodes it (notes/cdna.md §5.7).
const SCALED: [u8; 16] = [
    0x00, 0x00, 0xAC, 0xD3, 0x18, 0x33, 0x02, 0x00, 0x00, 0x08, 0xAD, 0xD3, 0x04, 0x19, 0x52, 0x04,
];

/// A state for [`SCALED`]: A (v[4:11]) FP8 E4M3 (OCP) 1.0 = 0x38 everywhere, B (v[12:19])
/// 2.0 = 0x40 (each K block of 32 sums to 64), C (v[20:23]) 0.5, scales in v24/v25 (byte 0),
/// D (v[0:3]) poisoned.
fn scaled_state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for r in 4..12 {
        s.vgpr[r] = [0x3838_3838; 64];
    }
    for r in 12..20 {
        s.vgpr[r] = [0x4040_4040; 64];
    }
    for r in 20..24 {
        s.vgpr[r] = [0.5f32.to_bits(); 64];
    }
    for l in 0..64 {
        // The scale is byte 0 (no op_sel); the other bytes must be ignored.
        s.vgpr[24][l] = 0xABCD_EF00 | scale_a(l);
        s.vgpr[25][l] = 0x1234_5600 | scale_b(l);
    }
    for r in 0..4 {
        s.vgpr[r] = [0xDEAD_BEEF; 64];
    }
    s
}

fn scale_a(l: usize) -> u32 {
    126 + (l % 3) as u32 // 2^-1 .. 2^1
}

fn scale_b(l: usize) -> u32 {
    125 + (l % 5) as u32 // 2^-2 .. 2^2
}

/// Checks D of [`SCALED`] run on [`scaled_state`] against the host.
fn check_scaled(s: &WaveState) {
    for i in 0..16 {
        for j in 0..16 {
            let mut want = 0.5f64;
            for kb in 0..4 {
                let e = scale_a(i + 16 * kb) as i32 + scale_b(j + 16 * kb) as i32 - 254;
                want += 64.0 * 2f64.powi(e);
            }
            let got = f32::from_bits(s.vgpr[i % 4][j + 16 * (i / 4)]) as f64;
            assert_eq!(got, want, "D[{i}][{j}]");
        }
    }
}

#[test]
fn block_scaled_mfma_applies_each_scale_to_its_k_block() {
    let target = Target::new(Gpu::GFX950);
    let code = Code(SCALED.to_vec());
    let block = lift_block(&target, &code, BASE, 0);
    assert!(
        block.ops.iter().any(|op| matches!(op, Op::Matrix(_))),
        "no matrix op in {block}"
    );
    assert_eq!(block.exit, Exit::Jump(BASE + 16));
    let mut s = scaled_state();
    let exit = run_block(&block, &mut s, &mut FlatEnv::new(0x7000_0000, 64, 64, 16)).expect("runs");
    assert_eq!(exit, ExitCode::Continue);
    check_scaled(&s);
}

#[test]
fn a_matrix_instruction_sees_earlier_writes_and_later_reads_see_it() {
    // v_mov_b32 v4, v31 (A's first register); <scaled mfma>; v_mov_b32 v30, v0; s_endpgm
    let mut bytes = vec![0x1F, 0x03, 0x08, 0x7E];
    bytes.extend(SCALED);
    bytes.extend([0x00, 0x03, 0x3C, 0x7E, 0x00, 0x00, 0x81, 0xBF]);
    let target = Target::new(Gpu::GFX950);
    let code = Code(bytes);
    let block = lift_block(&target, &code, BASE, 0);
    assert_eq!(block.exit, Exit::EndPgm, "{block}");
    assert_eq!(block.inst_count, 4);
    let jit = Jit::new().expect("host JIT");
    let compiled = jit.compile(&block).expect("matrix blocks compile");
    for compiled in [None, Some(&compiled)] {
        let mut s = scaled_state();
        s.set_exec(u64::MAX);
        // Only the moved value gives A = 1.0: the MFMA must see the write before it.
        s.vgpr[4] = [0x4040_4040; 64];
        s.vgpr[31] = [0x3838_3838; 64];
        let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
        let exit = match compiled {
            None => run_block(&block, &mut s, &mut env),
            Some(c) => c.run(&mut s, &mut env),
        };
        assert_eq!(exit, Ok(ExitCode::EndPgm));
        assert_eq!(s.vgpr[4], [0x3838_3838; 64]);
        check_scaled(&s);
        assert_eq!(s.vgpr[30], s.vgpr[0], "v30 = D's first register");
    }
}

/// `v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[8:11]` (gfx942), as llvm-mc-22
/// encodes it, decoded, lifted and interpreted: A = 1 + 2^-11 + 2^-23 and B = 1.5 + 2^-12
/// enter the product truncated to tf32 (1 and 1.5; ROCm/rocm-libraries PR 9176 reports the
/// hardware truncates), so D = C + 8·1.5 exactly. Rounding to nearest would give A = 1 + 2^-10.
#[test]
fn xf32_mfma_truncates_its_inputs_end_to_end() {
    let target = Target::new(Gpu::GFX942);
    let code = Code(vec![0x00, 0x00, 0xBE, 0xD3, 0x04, 0x0D, 0x22, 0x04]);
    let block = lift_block(&target, &code, BASE, 0);
    assert!(
        block.ops.iter().any(|op| matches!(op, Op::Matrix(_))),
        "no matrix op in {block}"
    );
    let mut s = WaveState::new_boxed(64);
    let a = 1.0 + 2f64.powi(-11) + 2f64.powi(-23);
    let b = 1.5 + 2f64.powi(-12);
    for r in 4..6 {
        s.vgpr[r] = [(a as f32).to_bits(); 64];
    }
    for r in 6..8 {
        s.vgpr[r] = [(b as f32).to_bits(); 64];
    }
    for r in 8..12 {
        for l in 0..64 {
            s.vgpr[r][l] = (l as f32 / 4.0 - r as f32).to_bits();
        }
    }
    for r in 0..4 {
        s.vgpr[r] = [0xDEAD_BEEF; 64];
    }
    let exit = run_block(&block, &mut s, &mut FlatEnv::new(0x7000_0000, 64, 64, 16)).expect("runs");
    assert_eq!(exit, ExitCode::Continue);
    for r in 0..4 {
        for l in 0..64 {
            let c = l as f64 / 4.0 - (r + 8) as f64;
            assert_eq!(
                f32::from_bits(s.vgpr[r][l]) as f64,
                c + 12.0,
                "v{r} lane {l}"
            );
        }
    }
}
