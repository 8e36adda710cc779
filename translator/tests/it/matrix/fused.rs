//! The pre-resolved MFMA kernels (`matrix::kernels::Fused`) through the JIT: the compiled
//! block calls the kernel directly when MODE allows it (FP16_OVFL clear) and the helper
//! otherwise; either way the register file must be bit-identical to the generic executor
//! (`Plan::without_fast_path`, itself checked against exact host GEMMs in `matrix_mfma.rs`).
//!
//! The instruction words are llvm-mc-22's encodings (`llvm-mc-22 -triple=amdgcn
//! -mcpu=gfx942|gfx950 -show-encoding`); the test checks that our disassembler prints them
//! back as the same text.

use wavejit_translator::env::{CodeSource, ExitCode};
use wavejit_translator::interp::run_block;
use wavejit_translator::interp::test_env::FlatEnv;
use wavejit_translator::ir::{MatrixCall, Op};
use wavejit_translator::isa::{decode, disassemble, Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::matrix::gemm::Isa;
use wavejit_translator::matrix::{plans, Plan};
use wavejit_translator::wave::WaveState;

const BASE: u64 = 0x1000;
/// MODE of HIP kernels (round to nearest, denormals kept, DX10_CLAMP, IEEE).
const HIP_MODE: u32 = 0x3F0;
/// MODE.FP16_OVFL (the fused kernel does not apply: the helper runs).
const FP16_OVFL: u32 = 1 << 23;

/// The plan of a lifted matrix op, from its owner.
fn plan_of(c: &MatrixCall) -> &'static Plan {
    &plans::get(c.plan).expect("the lifter planned it").plan
}

struct Code(Vec<u8>);
impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.0.get(off..).filter(|b| !b.is_empty())
    }
}

/// `(target, llvm-mc-22 text, encoding)`.
const CASES: &[(Gpu, &str, [u8; 8])] = &[
    (
        Gpu::GFX942,
        "v_mfma_f32_32x32x8_f16 v[0:15], v[32:33], v[48:49], v[0:15]",
        [0x00, 0x00, 0xcc, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_32x32x8_f16 a[0:15], v[32:33], v[48:49], a[0:15]",
        [0x00, 0x80, 0xcc, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_16x16x16_f16 v[0:3], v[32:33], v[48:49], v[8:11]",
        [0x00, 0x00, 0xcd, 0xd3, 0x20, 0x61, 0x22, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_32x32x8_bf16 v[0:15], v[32:33], v[48:49], 0",
        [0x00, 0x00, 0xe0, 0xd3, 0x20, 0x61, 0x02, 0x02],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_16x16x16_bf16 v[0:3], v[32:33], v[48:49], 1.0",
        [0x00, 0x00, 0xe1, 0xd3, 0x20, 0x61, 0xca, 0x03],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[32:33], v[48:49], v[0:3]",
        [0x00, 0x00, 0xf3, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_16x16x32_bf8_fp8 v[4:7], v[32:33], v[48:49], v[4:7]",
        [0x04, 0x00, 0xf1, 0xd3, 0x20, 0x61, 0x12, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_16x16x32_fp8_bf8 v[0:3], v[34:35], v[50:51], v[12:15]",
        [0x00, 0x00, 0xf2, 0xd3, 0x22, 0x65, 0x32, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_16x16x32_bf8_bf8 v[0:3], v[32:33], v[48:49], v[0:3]",
        [0x00, 0x00, 0xf0, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_32x32x16_fp8_fp8 v[0:15], v[32:33], v[48:49], v[0:15]",
        [0x00, 0x00, 0xf7, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_32x32x16_bf8_bf8 v[16:31], v[32:33], v[48:49], v[16:31]",
        [0x10, 0x00, 0xf4, 0xd3, 0x20, 0x61, 0x42, 0x04],
    ),
    (
        Gpu::GFX942,
        "v_mfma_f32_32x32x8_f16 v[0:15], v[32:33], v[48:49], v[0:15] blgp:3",
        [0x00, 0x00, 0xcc, 0xd3, 0x20, 0x61, 0x02, 0x64],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_16x16x32_f16 v[0:3], v[32:35], v[48:51], v[0:3]",
        [0x00, 0x00, 0xd4, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_32x32x16_f16 v[0:15], v[32:35], v[48:51], v[0:15]",
        [0x00, 0x00, 0xd5, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_16x16x32_bf16 v[0:3], v[32:35], v[48:51], v[8:11]",
        [0x00, 0x00, 0xb5, 0xd3, 0x20, 0x61, 0x22, 0x04],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_32x32x16_bf16 a[0:15], v[32:35], v[48:51], a[0:15]",
        [0x00, 0x80, 0xb7, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[32:33], v[48:49], v[0:3]",
        [0x00, 0x00, 0xf3, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_32x32x16_bf8_fp8 v[0:15], v[32:33], v[48:49], v[0:15]",
        [0x00, 0x00, 0xf5, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    // F8F6F4 with FP8 (cbsz/blgp 0) and BF8 (1) A and B.
    (
        Gpu::GFX950,
        "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[32:39], v[48:55], v[0:3]",
        [0x00, 0x00, 0xad, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[32:39], v[48:55], v[8:11] cbsz:1 blgp:1",
        [0x00, 0x01, 0xad, 0xd3, 0x20, 0x61, 0x22, 0x24],
    ),
    (
        Gpu::GFX950,
        "v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[32:39], v[48:55], v[0:15] blgp:1",
        [0x00, 0x00, 0xae, 0xd3, 0x20, 0x61, 0x02, 0x24],
    ),
];

/// Whether this host has what the fused kernels need (AVX-512F/BW/VBMI, F16C, FMA).
fn host_has_fused() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        has!("avx512f") && has!("avx512bw") && has!("avx512vbmi") && has!("f16c") && has!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A wave with random registers: moderate values in every 16-bit half and byte, and with
/// `specials` some f32/f16/bf16/FP8 NaNs (with payloads), infinities and denormals.
fn state(seed: u64, specials: bool, mode: u32) -> Box<WaveState> {
    let mut x = seed;
    let mut s = WaveState::new_boxed(64);
    for reg in s.vgpr.iter_mut() {
        for w in reg.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let moderate = (x >> 8) as u32 & 0x3DFF_3DFF;
            *w = match (specials, x % 41) {
                (true, 0) => 0x7FC0_1234, // f32 NaN with payload; bf16 NaN high half
                (true, 1) => 0xFF80_0000, // f32 -inf
                (true, 2) => 0x7C00_0001, // f16 +inf high, denormal low
                (true, 3) => 0x8000_7E01, // f16 NaN low; FP8 FNUZ NaN byte 3
                (true, 4) => 0x7F7C_FF01, // OCP FP8 NaN / BF8 inf bytes
                (true, 5) => 0x0000_0001, // f32 denormal
                _ => moderate,
            };
        }
    }
    s.set_exec(u64::MAX);
    s.mode = mode;
    s
}

/// Every case, alone and as a chain of three (the second and third accumulate the first's
/// D when C is D), compiled, against the generic executor, in a MODE where the fused kernel
/// runs and in one where the helper runs.
#[test]
fn fused_kernels_match_the_generic_executor_through_the_jit() {
    let jit = Jit::new().expect("host JIT");
    let mut fused = 0;
    for (n, &(gpu, text, word)) in CASES.iter().enumerate() {
        let target = Target::new(gpu);
        let inst = decode(&target, &word, BASE).expect("decodes");
        assert_eq!(disassemble(&target, &inst, BASE), text);
        for count in [1usize, 2, 3] {
            let mut bytes: Vec<u8> = word.iter().copied().cycle().take(8 * count).collect();
            bytes.extend([0x00, 0x00, 0x81, 0xBF]); // s_endpgm
            let code = Code(bytes);
            for mode in [HIP_MODE, HIP_MODE | FP16_OVFL] {
                let block = lift_block(&target, &code, BASE, mode);
                let calls: Vec<_> = block
                    .ops
                    .iter()
                    .filter_map(|o| match o {
                        Op::Matrix(c) => Some(c),
                        _ => None,
                    })
                    .collect();
                assert_eq!(calls.len(), count, "{text}: {block}");
                let has = plan_of(calls[0]).fused().is_some();
                assert_eq!(has, host_has_fused(), "{text}: fused kernel present");
                fused += usize::from(has && mode == HIP_MODE);
                let compiled = jit.compile(&block).expect("compiles");
                for specials in [false, true] {
                    let seed = 0x9E37_79B9_7F4A_7C15 ^ (n as u64) << 8 ^ count as u64;
                    let mut got = state(seed, specials, mode);
                    let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
                    assert_eq!(compiled.run(&mut got, &mut env), Ok(ExitCode::EndPgm));
                    let mut want = state(seed, specials, mode);
                    for c in &calls {
                        let generic = plan_of(c).clone().without_fast_path();
                        generic
                            .run(Isa::Portable, &mut want.vgpr, mode, None)
                            .expect("generic runs");
                    }
                    for (r, (g, w)) in got.vgpr.iter().zip(want.vgpr.iter()).enumerate() {
                        assert!(
                            g == w,
                            "{text} x{count} mode {mode:#x} specials {specials}: register {r} \
                             differs\n got {g:08x?}\nwant {w:08x?}"
                        );
                    }
                }
            }
        }
    }
    if host_has_fused() {
        assert_eq!(fused, 3 * CASES.len(), "every case ran its fused kernel");
    }
}

/// gfx942 instructions for [`chains_of_matrix_instructions_pair_exactly`] (llvm-mc-22).
const CHAIN942: &[(&str, [u8; 8])] = &[
    (
        "v_mfma_f32_32x32x8_f16 v[0:15], v[32:33], v[48:49], v[0:15]",
        [0x00, 0x00, 0xcc, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[0:15], v[34:35], v[50:51], v[0:15]",
        [0x00, 0x00, 0xcc, 0xd3, 0x22, 0x65, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[0:15], v[36:37], v[52:53], v[0:15]",
        [0x00, 0x00, 0xcc, 0xd3, 0x24, 0x69, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_f16 a[0:15], v[32:33], v[48:49], a[0:15]",
        [0x00, 0x80, 0xcc, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_f16 a[0:15], v[34:35], v[50:51], a[0:15]",
        [0x00, 0x80, 0xcc, 0xd3, 0x22, 0x65, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_f16 a[16:31], v[32:33], v[52:53], a[16:31]",
        [0x10, 0x80, 0xcc, 0xd3, 0x20, 0x69, 0x42, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_f16 a[16:31], v[34:35], v[54:55], a[16:31]",
        [0x10, 0x80, 0xcc, 0xd3, 0x22, 0x6d, 0x42, 0x04],
    ),
    (
        "v_mfma_f32_16x16x16_f16 v[0:3], v[32:33], v[48:49], v[0:3]",
        [0x00, 0x00, 0xcd, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_16x16x16_f16 v[0:3], v[0:1], v[50:51], v[0:3]",
        [0x00, 0x00, 0xcd, 0xd3, 0x00, 0x65, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x8_bf16 v[0:15], v[32:33], v[48:49], 0",
        [0x00, 0x00, 0xe0, 0xd3, 0x20, 0x61, 0x02, 0x02],
    ),
    (
        "v_mfma_f32_32x32x8_bf16 v[0:15], v[34:35], v[50:51], v[0:15]",
        [0x00, 0x00, 0xe0, 0xd3, 0x22, 0x65, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_16x16x32_fp8_fp8 v[0:3], v[32:33], v[48:49], v[0:3]",
        [0x00, 0x00, 0xf3, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_16x16x32_bf8_bf8 v[0:3], v[34:35], v[50:51], v[0:3]",
        [0x00, 0x00, 0xf0, 0xd3, 0x22, 0x65, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_16x16x16_f16 v[4:7], v[34:35], v[50:51], v[0:3]",
        [0x04, 0x00, 0xcd, 0xd3, 0x22, 0x65, 0x02, 0x04],
    ),
];

/// gfx950 instructions for [`chains_of_matrix_instructions_pair_exactly`] (llvm-mc-22).
const CHAIN950: &[(&str, [u8; 8])] = &[
    (
        "v_mfma_f32_32x32x16_f16 v[0:15], v[32:35], v[48:51], v[0:15]",
        [0x00, 0x00, 0xd5, 0xd3, 0x20, 0x61, 0x02, 0x04],
    ),
    (
        "v_mfma_f32_32x32x16_f16 v[0:15], v[36:39], v[52:55], v[0:15]",
        [0x00, 0x00, 0xd5, 0xd3, 0x24, 0x69, 0x02, 0x04],
    ),
];

/// Blocks of consecutive matrix instructions, some of which the JIT runs as one pair kernel
/// (`Fused::pair`: the second accumulates onto the first's D and reads none of its
/// registers): whether each neighbour pairs follows that rule, and the compiled block
/// leaves the registers bit-identical to the generic executor run instruction by
/// instruction, with and without FP16_OVFL (which turns the fused kernels off).
#[test]
fn chains_of_matrix_instructions_pair_exactly() {
    // (target, instruction indices, whether each neighbour pairs).
    let chains: &[(Gpu, &[usize], &[bool])] = &[
        (Gpu::GFX942, &[0, 1, 2], &[true, true]),
        (Gpu::GFX942, &[3, 4, 5, 6], &[true, false, true]),
        // The second reads the first's D as A.
        (Gpu::GFX942, &[7, 8], &[false]),
        // A constant C, then accumulation.
        (Gpu::GFX942, &[9, 10], &[true]),
        // Different 8-bit formats (each decodes with its own tables).
        (Gpu::GFX942, &[11, 12], &[true]),
        // The second writes another D.
        (Gpu::GFX942, &[7, 13], &[false]),
        (Gpu::GFX950, &[0, 1], &[true]),
    ];
    let jit = Jit::new().expect("host JIT");
    for (n, &(gpu, idx, pairs)) in chains.iter().enumerate() {
        let table = if gpu == Gpu::GFX942 {
            CHAIN942
        } else {
            CHAIN950
        };
        let target = Target::new(gpu);
        let mut bytes = Vec::new();
        for &x in idx {
            let (text, word) = table[x];
            let inst = decode(&target, &word, BASE).expect("decodes");
            assert_eq!(disassemble(&target, &inst, BASE), text);
            bytes.extend(word);
        }
        bytes.extend([0x00, 0x00, 0x81, 0xBF]); // s_endpgm
        let code = Code(bytes);
        for mode in [HIP_MODE, HIP_MODE | FP16_OVFL] {
            let block = lift_block(&target, &code, BASE, mode);
            let calls: Vec<_> = block
                .ops
                .iter()
                .filter_map(|o| match o {
                    Op::Matrix(c) => Some(c),
                    _ => None,
                })
                .collect();
            assert_eq!(calls.len(), idx.len(), "{block}");
            if host_has_fused() {
                for (w, &want) in calls.windows(2).zip(pairs) {
                    let f = plan_of(w[0]).fused().expect("fused").0;
                    let g = plan_of(w[1]).fused().expect("fused").0;
                    assert_eq!(f.pair(g).is_some(), want, "chain {n}: {idx:?}");
                }
            }
            let compiled = jit.compile(&block).expect("compiles");
            for specials in [false, true] {
                let seed = 0x2545_F491_4F6C_DD1D ^ (n as u64) << 4;
                let mut got = state(seed, specials, mode);
                let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
                assert_eq!(compiled.run(&mut got, &mut env), Ok(ExitCode::EndPgm));
                let mut want = state(seed, specials, mode);
                for c in &calls {
                    let generic = plan_of(c).clone().without_fast_path();
                    generic
                        .run(Isa::Portable, &mut want.vgpr, mode, None)
                        .expect("generic runs");
                }
                for (r, (g, w)) in got.vgpr.iter().zip(want.vgpr.iter()).enumerate() {
                    assert!(
                        g == w,
                        "chain {n} {idx:?} mode {mode:#x} specials {specials}: register {r} \
                         differs\n got {g:08x?}\nwant {w:08x?}"
                    );
                }
            }
        }
    }
}

/// The 16 MFMAs of one K step of `gemm_f16_tiled256` (gfx942), as llvm-objdump-22 shows
/// them in `tests/kernels/matrix/gfx942/gemm_tiled.hsaco` (dwords, low first): 8
/// accumulators, each A register pair used by two neighbours, each B pair by every other.
const TILED: &[(&str, [u32; 2])] = &[
    (
        "v_mfma_f32_32x32x8_f16 v[114:129], v[138:139], v[142:143], v[114:129]",
        [0xD3CC0072, 0x05CB1D8A],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[98:113], v[138:139], v[154:155], v[98:113]",
        [0xD3CC0062, 0x058B358A],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[82:97], v[162:163], v[142:143], v[82:97]",
        [0xD3CC0052, 0x054B1DA2],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[66:81], v[162:163], v[154:155], v[66:81]",
        [0xD3CC0042, 0x050B35A2],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[50:65], v[170:171], v[142:143], v[50:65]",
        [0xD3CC0032, 0x04CB1DAA],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[34:49], v[170:171], v[154:155], v[34:49]",
        [0xD3CC0022, 0x048B35AA],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[18:33], v[178:179], v[142:143], v[18:33]",
        [0xD3CC0012, 0x044B1DB2],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[2:17], v[178:179], v[154:155], v[2:17]",
        [0xD3CC0002, 0x040B35B2],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[114:129], v[140:141], v[144:145], v[114:129]",
        [0xD3CC0072, 0x05CB218C],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[98:113], v[140:141], v[156:157], v[98:113]",
        [0xD3CC0062, 0x058B398C],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[82:97], v[164:165], v[144:145], v[82:97]",
        [0xD3CC0052, 0x054B21A4],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[66:81], v[164:165], v[156:157], v[66:81]",
        [0xD3CC0042, 0x050B39A4],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[50:65], v[172:173], v[144:145], v[50:65]",
        [0xD3CC0032, 0x04CB21AC],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[34:49], v[172:173], v[156:157], v[34:49]",
        [0xD3CC0022, 0x048B39AC],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[18:33], v[180:181], v[144:145], v[18:33]",
        [0xD3CC0012, 0x044B21B4],
    ),
    (
        "v_mfma_f32_32x32x8_f16 v[2:17], v[180:181], v[156:157], v[2:17]",
        [0xD3CC0002, 0x040B39B4],
    ),
];

/// The tiled GEMM's K step runs as two groups of 8 (`Fused::group`): each group decodes
/// its 4 A and 2 B register pairs once (the reuse worked out from the operands above),
/// and the compiled block matches the generic executor instruction by instruction. A
/// third case puts an MFMA that reads the first one's D as its A after two of them: the
/// group must stop before it.
#[test]
fn tiled_gemm_step_runs_as_groups_that_share_operands() {
    use wavejit_translator::matrix::kernels::Fused;
    let target = Target::new(Gpu::GFX942);
    let word = |x: usize| -> Vec<u8> {
        let (text, [lo, hi]) = TILED[x];
        let mut w = lo.to_le_bytes().to_vec();
        w.extend(hi.to_le_bytes());
        let inst = decode(&target, &w, BASE).expect("decodes");
        assert_eq!(disassemble(&target, &inst, BASE), text);
        w
    };
    // v_mfma_f32_32x32x8_f16 v[98:113], v[114:115], v[154:155], v[98:113] (llvm-mc-22).
    let reads_d = vec![0x62, 0x00, 0xcc, 0xd3, 0x72, 0x35, 0x8b, 0x05];
    let inst = decode(&target, &reads_d, BASE).expect("decodes");
    assert_eq!(
        disassemble(&target, &inst, BASE),
        "v_mfma_f32_32x32x8_f16 v[98:113], v[114:115], v[154:155], v[98:113]"
    );
    let step: Vec<u8> = (0..16).flat_map(word).collect();
    let hazard: Vec<u8> = word(0).into_iter().chain(word(2)).chain(reads_d).collect();
    let jit = Jit::new().expect("host JIT");
    for (case, mut bytes) in [step, hazard].into_iter().enumerate() {
        bytes.extend([0x00, 0x00, 0x81, 0xBF]); // s_endpgm
        let code = Code(bytes);
        for mode in [HIP_MODE, HIP_MODE | FP16_OVFL] {
            let block = lift_block(&target, &code, BASE, mode);
            let calls: Vec<_> = block
                .ops
                .iter()
                .filter_map(|o| match o {
                    Op::Matrix(c) => Some(c),
                    _ => None,
                })
                .collect();
            if host_has_fused() {
                let fused: Vec<&Fused> = calls
                    .iter()
                    .map(|c| plan_of(c).fused().expect("fused").0)
                    .collect();
                if case == 0 {
                    let (_, desc) = Fused::group(&fused[..8]).expect("a group of 8");
                    let from: Vec<(u64, u64)> = desc
                        .iter()
                        .map(|d| (d[1] & 0xFFFF_FFFF, d[1] >> 32))
                        .collect();
                    let want = [
                        (0, 0),
                        (0, 1),
                        (2, 0),
                        (2, 1),
                        (4, 0),
                        (4, 1),
                        (6, 0),
                        (6, 1),
                    ];
                    assert_eq!(from, want);
                    assert!(Fused::group(&fused[..9]).is_none(), "at most 8");
                    assert!(Fused::group(&fused[8..]).is_some());
                } else {
                    assert!(Fused::group(&fused[..2]).is_some());
                    assert!(
                        Fused::group(&fused).is_none(),
                        "the third reads the first's D"
                    );
                }
            }
            let compiled = jit.compile(&block).expect("compiles");
            for specials in [false, true] {
                let seed = 0x5851_F42D_4C95_7F2D ^ case as u64;
                let mut got = state(seed, specials, mode);
                let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
                assert_eq!(compiled.run(&mut got, &mut env), Ok(ExitCode::EndPgm));
                let mut want = state(seed, specials, mode);
                for c in &calls {
                    let generic = plan_of(c).clone().without_fast_path();
                    generic
                        .run(Isa::Portable, &mut want.vgpr, mode, None)
                        .expect("generic runs");
                }
                for (r, (g, w)) in got.vgpr.iter().zip(want.vgpr.iter()).enumerate() {
                    assert!(
                        g == w,
                        "case {case} mode {mode:#x} specials {specials}: register {r} \
                         differs\n got {g:08x?}\nwant {w:08x?}"
                    );
                }
            }
        }
    }
}

/// Compiled code needs nothing but the plans' owner (`matrix::plans`): a block of fused
/// MFMAs (pairs and groups, whose descriptors point into neighbouring instructions' plans)
/// is compiled from a copy, every IR copy is dropped and its memory handed out again, and
/// the code still computes what the interpreter computes on a block lifted afresh, which
/// gets the same plan handles (one plan per distinct instruction). Both a MODE where the
/// fused kernels run and one where the helper runs; random registers with specials.
#[test]
fn compiled_matrix_code_needs_no_ir_alive() {
    let target = Target::new(Gpu::GFX942);
    let mut bytes: Vec<u8> = (0..16)
        .flat_map(|x| {
            let [lo, hi] = TILED[x].1;
            lo.to_le_bytes().into_iter().chain(hi.to_le_bytes())
        })
        .collect();
    bytes.extend([0x00, 0x00, 0x81, 0xBF]); // s_endpgm
    let code = Code(bytes);
    let jit = Jit::new().expect("host JIT");
    let ids = |b: &wavejit_translator::ir::Block| -> Vec<_> {
        b.ops
            .iter()
            .filter_map(|o| match o {
                Op::Matrix(c) => Some(c.plan),
                _ => None,
            })
            .collect()
    };
    for mode in [HIP_MODE, HIP_MODE | FP16_OVFL] {
        let block = lift_block(&target, &code, BASE, mode);
        let handles = ids(&block);
        assert_eq!(handles.len(), 16);
        let copy = block.clone();
        let compiled = jit.compile(&copy).expect("compiles");
        drop(copy);
        drop(block);
        // Hand the freed memory out again, filled with other bytes.
        let junk: Vec<Vec<u8>> = (0..256).map(|i| vec![0xA5; 64 + 64 * (i % 64)]).collect();
        let seed = 0x2545_F491_4F6C_DD1D ^ u64::from(mode);
        let mut got = state(seed, true, mode);
        let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
        assert_eq!(compiled.run(&mut got, &mut env), Ok(ExitCode::EndPgm));
        drop(junk);
        let fresh = lift_block(&target, &code, BASE, mode);
        assert_eq!(ids(&fresh), handles, "one plan per distinct instruction");
        let mut want = state(seed, true, mode);
        let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
        assert_eq!(run_block(&fresh, &mut want, &mut env), Ok(ExitCode::EndPgm));
        assert!(
            want.vgpr != state(seed, true, mode).vgpr,
            "the block wrote registers"
        );
        for (r, (g, w)) in got.vgpr.iter().zip(want.vgpr.iter()).enumerate() {
            assert!(g == w, "mode {mode:#x}: v{r} differs from the interpreter");
        }
    }
}
