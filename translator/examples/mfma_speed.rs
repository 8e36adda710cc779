//! Times one matrix instruction through `matrix::Plan` (the lifted form) for a few shapes:
//! `cargo run --release -p wavejit-translator --example mfma_speed`.
use std::time::Instant;
use wavejit_translator::isa::Gpu;
use wavejit_translator::matrix::gemm::best_isa;
use wavejit_translator::matrix::*;

/// MODE of HIP kernels: round to nearest, f32/f64 denormals kept (so f32 and xf32 inputs
/// are not flushed and the fast path applies), DX10_CLAMP and IEEE set.
const HIP_MODE: u32 = 0x3F0;

fn main() {
    for name in [
        "v_mfma_f32_16x16x16_f16",
        "v_mfma_f32_32x32x8_f16",
        "v_mfma_f32_16x16x32_fp8_fp8",
        "v_mfma_f32_16x16x4_f32",
        "v_mfma_f32_16x16x8_xf32",
        "v_mfma_f32_32x32x4_xf32",
        "v_smfmac_f32_16x16x32_f16",
        "v_smfmac_f32_32x32x16_bf16",
        "v_mfma_i32_16x16x32_i8",
        "v_mfma_f64_16x16x4_f64",
        "v_smfmac_i32_16x16x64_i8",
    ] {
        let Some(op) = MatrixOp::from_mnemonic(name, Gpu::GFX942) else {
            continue;
        };
        let mut regs = vec![[0x3C00_3C00u32; 64]; 512];
        let ops = Operands {
            d: 100,
            a: 0,
            b: 8,
            c: CSrc::Reg(100),
            index: 0,
        };
        let plan = Plan::new(&op, &ops, &Controls::default(), 512).expect("plan");
        let n = 20000;
        let t = Instant::now();
        for _ in 0..n {
            plan.run(best_isa(), &mut regs, HIP_MODE, None)
                .expect("runs");
        }
        let dt = t.elapsed().as_secs_f64() / n as f64;
        let flops = 2.0 * (op.m * op.n * op.k * op.blocks) as f64;
        println!(
            "{name}: {:.2} us per instruction, {:.2} GFLOP/s",
            dt * 1e6,
            flops / dt / 1e9
        );
    }
}
