//! Runs of LDS stores from one address register (`jit::analysis::store_run`), lowered as one
//! access: lifted `ds_store_b8/b16/b32` (and `d16_hi`) sequences, JIT against the
//! interpreter — registers, counters, LDS bytes, exit — with scattered, colliding and
//! unaligned lane addresses, partial and empty EXEC, and an active lane past the end of
//! LDS (the fault, and the stores before it, as the interpreter's).

use super::memory::{env, state, LDS_LEN};
use wavejit_translator::env::CodeSource;
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{Block, Exit, Op};
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::wave::WaveState;

struct Code(Vec<u8>);

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        self.0.get(usize::try_from(pc.checked_sub(0x100)?).ok()?..)
    }
}

/// The block of `words` at 0x100 for `gpu` (it ends at the first `s_endpgm`).
fn lift(gpu: Gpu, words: &[u32]) -> Block {
    let code = Code(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    wavejit_translator::lift::lift_block(&Target::new(gpu), &code, 0x100, 0)
}

/// Two store runs split by a VALU write (`v_add … v7`), from llvm-mc-22 `-show-encoding`:
/// b16, b16_d16_hi +80, `s_nop`, b16 +160; then b8 +3, b32 +200, b8_d16_hi +7, b16 +201
/// (overlapping the b32 before it: order matters), b32 of v7 +400.
#[rustfmt::skip]
const GFX1100: [u32; 20] = [
    0xd87c0000, 0x00000201, // ds_store_b16 v1, v2
    0xda840050, 0x00000201, // ds_store_b16_d16_hi v1, v2 offset:80
    0xbf800000,             // s_nop 0
    0xd87c00a0, 0x00000301, // ds_store_b16 v1, v3 offset:160
    0x4a0e0a81,             // v_add_nc_u32_e32 v7, 1, v5
    0xd8780003, 0x00000401, // ds_store_b8 v1, v4 offset:3
    0xd83400c8, 0x00000501, // ds_store_b32 v1, v5 offset:200
    0xda800007, 0x00000401, // ds_store_b8_d16_hi v1, v4 offset:7
    0xd87c00c9, 0x00000601, // ds_store_b16 v1, v6 offset:201
    0xd8340190, 0x00000701, // ds_store_b32 v1, v7 offset:400
    0xbfb00000, 0xbfb00000, // s_endpgm (twice)
];

/// The same program for gfx942 (`ds_write_*`, `v_add_u32`).
#[rustfmt::skip]
const GFX942: [u32; 20] = [
    0xd83e0000, 0x00000201, // ds_write_b16 v1, v2
    0xd8aa0050, 0x00000201, // ds_write_b16_d16_hi v1, v2 offset:80
    0xbf800000,             // s_nop 0
    0xd83e00a0, 0x00000301, // ds_write_b16 v1, v3 offset:160
    0x680e0a81,             // v_add_u32_e32 v7, 1, v5
    0xd83c0003, 0x00000401, // ds_write_b8 v1, v4 offset:3
    0xd81a00c8, 0x00000501, // ds_write_b32 v1, v5 offset:200
    0xd8a80007, 0x00000401, // ds_write_b8_d16_hi v1, v4 offset:7
    0xd83e00c9, 0x00000601, // ds_write_b16 v1, v6 offset:201
    0xd81a0190, 0x00000701, // ds_write_b32 v1, v7 offset:400
    0xbf810000, 0xbf810000, // s_endpgm (twice)
];

/// Runs `block` from a poisoned state with lane addresses `addr(l)` in v1 and `exec` on both
/// engines and compares everything; returns the JIT's count of accesses compiled as one and
/// of memory helper calls.
fn compare(block: &Block, exec: u64, addr: impl Fn(usize) -> u32) -> (u32, u32) {
    let jit = Jit::new().expect("host JIT");
    let fresh = || {
        let mut s: Box<WaveState> = state();
        s.wave_size = block.wave_size;
        for l in 0..64 {
            s.vgpr[1][l] = addr(l);
            s.vgpr[2][l] = 0xA1B2_C3D4 ^ (l as u32).wrapping_mul(0x0101_0101);
            s.vgpr[3][l] = 0x1F2E_3D4C ^ (l as u32) << 20;
            s.vgpr[4][l] = 0x9C8B_7A69u32.rotate_left(l as u32);
            s.vgpr[5][l] = 0x5A5A_0000 | (l as u32).wrapping_mul(0x3F1);
            s.vgpr[6][l] = 0xC0DE_0000 ^ (l as u32) << 3;
        }
        s.set_exec(exec);
        s
    };
    let (mut si, mut ei) = (fresh(), env());
    let ri = run_block(block, &mut si, &mut ei);
    let cb = jit.compile(block).expect("compiles");
    let (mut sj, mut ej) = (fresh(), env());
    let (rj, helpers) = cb.run_counting(&mut sj, &mut ej);
    let what = format!("exec {exec:#x}\n{block}");
    assert_eq!(ri, rj, "exit, {what}");
    assert_eq!(si.pc, sj.pc, "pc, {what}");
    for r in 0..8 {
        assert_eq!(si.vgpr[r], sj.vgpr[r], "v{r}, {what}");
    }
    assert_eq!(si.sgpr, sj.sgpr, "sgprs, {what}");
    assert_eq!(si.counters, sj.counters, "counters, {what}");
    assert!(ei == ej, "LDS differs, {what}");
    (cb.multi_accesses(), helpers)
}

/// Scattered lanes (a multiplicative pattern), some colliding, odd (unaligned) addresses.
fn scattered(l: usize) -> u32 {
    (((l as u32).wrapping_mul(2654435761) >> 7) % (LDS_LEN as u32 - 420)) | (l as u32 & 1)
}

#[test]
fn lds_store_runs_match_the_interpreter() {
    for (gpu, words) in [(Gpu::GFX1100, &GFX1100), (Gpu::GFX942, &GFX942)] {
        let block = lift(gpu, words);
        assert!(matches!(block.exit, Exit::EndPgm), "{block}");
        let stores = block
            .ops
            .iter()
            .filter(|o| matches!(o, Op::Store { .. }))
            .count();
        assert_eq!(stores, 8, "{block}");
        let lanes = block.wave_size as usize;
        let full = if lanes == 32 { 0xFFFF_FFFF } else { u64::MAX };
        let addrs: [&dyn Fn(usize) -> u32; 5] = [
            &scattered,
            // Lane-affine (the block's root test for v1 passes), overlapping lanes.
            &|l| 300 + l as u32,
            // Every lane at one address: later lanes win.
            &|_| 1000,
            // Consecutive lanes 2 bytes apart (overlapping the wider stores).
            &|l| 2 * l as u32,
            // The last byte of the farthest store at LDS's last byte.
            &|l| (LDS_LEN as u32 - 404) - (l as u32 % 3),
        ];
        for addr in addrs {
            for exec in [full, 0x8000_0001 & full, 0x5A5A_A5A5_0FF0_F00F & full] {
                let (runs, helpers) = compare(&block, exec, addr);
                assert_eq!((runs, helpers), (2, 0), "{gpu:?} exec {exec:#x}\n{block}");
            }
            compare(&block, 0, addr);
        }
    }
}

#[test]
fn a_lane_past_lds_faults_as_in_the_interpreter() {
    for (gpu, words) in [(Gpu::GFX1100, &GFX1100), (Gpu::GFX942, &GFX942)] {
        let block = lift(gpu, words);
        let lanes = block.wave_size as usize;
        let full = if lanes == 32 { 0xFFFF_FFFF } else { u64::MAX };
        // Lane 5's stores from offset 160 on (then 200, 400) end past LDS; inactive, it runs
        // inline.
        let past = |l: usize| {
            if l == 5 {
                LDS_LEN as u32 - 170
            } else {
                scattered(l)
            }
        };
        compare(&block, full, past);
        compare(&block, full & !0x20, past);
        // Far out (a 32-bit address well past the window), a lane in the middle.
        compare(&block, full, |l| {
            if l == 17 {
                0xFFFF_FF00
            } else {
                4 * l as u32
            }
        });
    }
}
