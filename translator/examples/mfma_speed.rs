//! Matrix-path microbenchmark: blocks of `N` back-to-back MFMA/SMFMAC instructions on one
//! accumulator, lifted from their machine words and run through the JIT (the fused kernel
//! where the instruction has one, two at a time as a pair on the one accumulator, else the
//! helper call, `interp::run_matrix`, the plan and the host GEMM), one thread:
//! `cargo run --release -p wavejit-translator --example mfma_speed -- [FILTER] [N]`
//! (`FILTER` picks the rows whose "target mnemonic" contains it; `N` defaults to 16).
//!
//! Per instruction kind it prints ns per instruction, millions of instructions per second,
//! the effective GFLOP/s (2·M·N·K·blocks per instruction) and their share of the host's f32
//! FMA peak on one core, measured in the same run (`matrix::gemm::fma_peak`); times are the
//! thread's CPU time. Before timing,
//! each block runs once in both engines and the register files must be bit-identical.
//!
//! The words are llvm-mc-22's encodings (`llvm-mc-22 -triple=amdgcn -mcpu=gfx942|gfx950
//! -show-encoding`); the example checks that our disassembler prints the expected mnemonic.
use std::time::Instant;

/// This thread's CPU time in seconds (`/proc/thread-self/schedstat`, first field, ns), so
/// other processes on a shared machine do not count; wall time where unreadable.
struct Clock(Instant);
impl Clock {
    fn start() -> Clock {
        Clock(Instant::now())
    }
    fn cpu_ns() -> Option<u64> {
        let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        s.split_whitespace().next()?.parse().ok()
    }
    fn now(&self) -> f64 {
        match Clock::cpu_ns() {
            Some(ns) => ns as f64 * 1e-9,
            None => self.0.elapsed().as_secs_f64(),
        }
    }
}
use wavejit_translator::env::CodeSource;
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::Op;
use wavejit_translator::isa::{decode, disassemble, Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::matrix::gemm::{best_isa, fma_peak};
use wavejit_translator::matrix::MatrixOp;
use wavejit_translator::wave::WaveState;

/// MODE of HIP kernels: round to nearest, f32/f64 denormals kept (so f32 and xf32 inputs
/// are not flushed), DX10_CLAMP and IEEE set.
const HIP_MODE: u32 = 0x3F0;
const BASE: u64 = 0x1000;
/// D/C = v[0:…], A = v[32:…], B = v[48:…], SMFMAC index = v64, scales v64/v65.
const fn std_word1(smfmac: bool) -> [u8; 4] {
    if smfmac {
        [0x20, 0x61, 0x02, 0x05]
    } else {
        [0x20, 0x61, 0x02, 0x04]
    }
}

/// `(target, mnemonic, instruction bytes)`; the plain forms are `D3xx0000 <word1>`.
fn cases() -> Vec<(Gpu, &'static str, Vec<u8>)> {
    let plain = |gpu, name, opc: u8, smfmac: bool| {
        let mut w = vec![0x00, 0x00, opc, 0xD3];
        w.extend(std_word1(smfmac));
        (gpu, name, w)
    };
    let g2 = Gpu::GFX942;
    let g5 = Gpu::GFX950;
    vec![
        plain(g2, "v_mfma_f32_16x16x16_f16", 0xCD, false),
        plain(g2, "v_mfma_f32_32x32x8_f16", 0xCC, false),
        plain(g2, "v_mfma_f32_16x16x16_bf16", 0xE1, false),
        plain(g2, "v_mfma_f32_32x32x8_bf16", 0xE0, false),
        plain(g2, "v_mfma_f32_16x16x4_f32", 0xC5, false),
        plain(g2, "v_mfma_f32_32x32x2_f32", 0xC4, false),
        plain(g2, "v_mfma_f32_16x16x8_xf32", 0xBE, false),
        plain(g2, "v_mfma_f32_16x16x32_fp8_fp8", 0xF3, false),
        plain(g2, "v_mfma_f32_16x16x32_bf8_fp8", 0xF1, false),
        plain(g2, "v_mfma_f32_32x32x16_fp8_fp8", 0xF7, false),
        plain(g2, "v_mfma_i32_16x16x32_i8", 0xD7, false),
        plain(g2, "v_mfma_i32_32x32x16_i8", 0xD6, false),
        plain(g2, "v_mfma_f32_4x4x4_16b_f16", 0xCA, false),
        plain(g2, "v_mfma_f32_4x4x4_16b_bf16", 0xDF, false),
        plain(g2, "v_mfma_f32_4x4x1_16b_f32", 0xC2, false),
        plain(g2, "v_mfma_f32_16x16x4_4b_f16", 0xC9, false),
        plain(g2, "v_mfma_f64_16x16x4_f64", 0xEE, false),
        plain(g2, "v_mfma_f64_4x4x4_4b_f64", 0xEF, false),
        plain(g2, "v_smfmac_f32_16x16x32_f16", 0xE2, true),
        plain(g2, "v_smfmac_f32_32x32x16_bf16", 0xE8, true),
        plain(g2, "v_smfmac_i32_16x16x64_i8", 0xEA, true),
        plain(g2, "v_smfmac_f32_16x16x64_bf8_fp8", 0xF9, true),
        plain(g5, "v_smfmac_f32_16x16x64_f16", 0xDA, true),
        plain(g5, "v_smfmac_f32_32x32x32_bf16", 0xC6, true),
        plain(g5, "v_smfmac_f32_16x16x128_fp8_fp8", 0xC3, true),
        plain(g5, "v_smfmac_i32_16x16x128_i8", 0xBA, true),
        plain(g5, "v_mfma_f32_16x16x32_f16", 0xD4, false),
        plain(g5, "v_mfma_f32_32x32x16_f16", 0xD5, false),
        plain(g5, "v_mfma_f32_16x16x32_bf16", 0xB5, false),
        plain(g5, "v_mfma_i32_16x16x64_i8", 0xB6, false),
        plain(g5, "v_mfma_f32_16x16x128_f8f6f4", 0xAD, false),
        plain(g5, "v_mfma_f32_32x32x64_f8f6f4", 0xAE, false),
        // cbsz:4 blgp:4 (FP4 A and B).
        (
            g5,
            "v_mfma_f32_16x16x128_f8f6f4",
            vec![0x00, 0x04, 0xAD, 0xD3, 0x20, 0x61, 0x02, 0x84],
        ),
        // v_mfma_scale_f32_16x16x128_f8f6f4 ..., v64, v65 op_sel_hi:[0,0,0].
        (
            g5,
            "v_mfma_scale_f32_16x16x128_f8f6f4",
            vec![
                0x00, 0x00, 0xAC, 0xD3, 0x40, 0x83, 0x02, 0x00, 0x00, 0x08, 0xAD, 0xD3, 0x20, 0x61,
                0x02, 0x04,
            ],
        ),
        // v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[32:39], v[48:55], v[0:15], v64, v65.
        (
            g5,
            "v_mfma_scale_f32_32x32x64_f8f6f4",
            vec![
                0x00, 0x00, 0xAC, 0xD3, 0x40, 0x83, 0x02, 0x00, 0x00, 0x08, 0xAE, 0xD3, 0x20, 0x61,
                0x02, 0x04,
            ],
        ),
    ]
}

struct Code(Vec<u8>);
impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = pc.checked_sub(BASE)? as usize;
        self.0.get(off..).filter(|b| !b.is_empty())
    }
}

/// A wave whose registers hold moderate, lane-varying values of every format (no
/// all-zero data; accumulators stay finite over many runs).
fn state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for (r, reg) in s.vgpr.iter_mut().enumerate().take(128) {
        for (l, w) in reg.iter_mut().enumerate() {
            let b = 0x30 + ((r * 7 + l * 3) % 13) as u32;
            *w = b | b << 8 | b << 16 | b << 24;
        }
    }
    for l in 0..64 {
        // Block scales 2^0 (E8M0 127) in v64/v65; SMFMAC indices (any 2-bit values).
        s.vgpr[65][l] = 0x7F7F_7F7F;
    }
    s.set_exec(u64::MAX);
    s.mode = HIP_MODE;
    s
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.first().cloned().unwrap_or_default();
    let n: usize = match args.get(1) {
        Some(a) => a.parse().map_err(|e| format!("N: {e}"))?,
        None => 16,
    };
    let isa = best_isa();
    let iters = 20_000_000;
    let clock = Clock::start();
    let t0 = clock.now();
    let (flops, sum) = fma_peak(isa, iters);
    let peak = flops / (clock.now() - t0) / 1e9;
    println!("host f32 FMA peak ({isa:?}, one core): {peak:.1} GFLOP/s (checksum {sum:.1})");
    println!(
        "{:<6} {:<36} {:>9} {:>9} {:>9} {:>7}",
        "target", "instruction", "ns/inst", "Minst/s", "GFLOP/s", "% peak"
    );
    let jit = Jit::new().map_err(|e| format!("host JIT: {e}"))?;
    for (gpu, name, word) in cases() {
        if !format!("{gpu} {name}").contains(&filter) {
            continue;
        }
        let target = Target::new(gpu);
        let inst = decode(&target, &word, BASE).map_err(|e| format!("{name}: {e}"))?;
        let text = disassemble(&target, &inst, BASE);
        if !text.starts_with(name) {
            return Err(format!("{name}: the words decode as {text}"));
        }
        let mut bytes: Vec<u8> = word.iter().copied().cycle().take(n * word.len()).collect();
        bytes.extend([0x00, 0x00, 0x81, 0xBF]); // s_endpgm
        let code = Code(bytes);
        let block = lift_block(&target, &code, BASE, HIP_MODE);
        let count = block
            .ops
            .iter()
            .filter(|o| matches!(o, Op::Matrix(_)))
            .count();
        if count != n {
            return Err(format!("{name}: {count} of {n} lifted: {block}"));
        }
        let compiled = jit.compile(&block).map_err(|e| format!("{name}: {e}"))?;
        let mut env = FlatEnv::new(0x7000_0000, 64, 64, 16);
        // Both engines, once, bit for bit.
        let (mut si, mut sj) = (state(), state());
        run_block(&block, &mut si, &mut env).map_err(|e| format!("{name}: {e:?}"))?;
        compiled
            .run(&mut sj, &mut env)
            .map_err(|e| format!("{name}: {e:?}"))?;
        if si.vgpr[..] != sj.vgpr[..] {
            return Err(format!("{name}: the JIT differs from the interpreter"));
        }
        let mut runs = 0u64;
        let t0 = clock.now();
        while clock.now() - t0 < 0.3 {
            for _ in 0..64 {
                compiled
                    .run(&mut sj, &mut env)
                    .map_err(|e| format!("{name}: {e:?}"))?;
            }
            runs += 64;
        }
        let dt = (clock.now() - t0) / (runs * n as u64) as f64;
        // The block-scaled form has its F8F6F4 MFMA's shape.
        let op = MatrixOp::from_mnemonic(&name.replace("_scale_", "_"), gpu)
            .ok_or(format!("{name}: no shape"))?;
        let f = 2.0 * (op.m * op.n * op.k * op.blocks) as f64 / dt / 1e9;
        let ctl = if word[1] == 0x04 { " cbsz4" } else { "" };
        println!(
            "{:<6} {:<36} {:>9.1} {:>9.2} {:>9.2} {:>6.1}%",
            gpu.to_string(),
            format!("{name}{ctl}"),
            dt * 1e9,
            1e-6 / dt,
            f,
            100.0 * f / peak
        );
    }
    Ok(())
}
