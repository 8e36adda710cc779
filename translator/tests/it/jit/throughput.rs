//! JIT throughput probe (ignored by default; no timing assertions):
//! `cargo test --release -p wavejit-translator --test jit_throughput -- --ignored --nocapture`.
//! Also checks the result of the measured block against a host computation.

use std::time::Instant;
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::ir::*;
use wavejit_translator::jit::Jit;
use wavejit_translator::wave::{sreg, InstClass, WaveState};

/// A block of `n` `v_fma_f32 v[k%8], v8, v9, v[k%8]` instructions as the lifter emits them
/// (EXEC read, masked write, vector counter), ending in a jump.
fn fma_block(n: usize) -> Block {
    let mut b = Builder::new(0x100, 64);
    let lo = b.push(Op::GetSgpr(sreg::EXEC_LO), Some(Ty::S32));
    let hi = b.push(Op::GetSgpr(sreg::EXEC_HI), Some(Ty::S32));
    let exec = b.push(Op::Pack { lo, hi }, Some(Ty::S64));
    for k in 0..n {
        let r = (k % 8) as u16;
        let a = b.push(Op::GetVgpr(8), Some(Ty::V32));
        let x = b.push(Op::GetVgpr(9), Some(Ty::V32));
        let c = b.push(Op::GetVgpr(r), Some(Ty::V32));
        let f = b.push(Op::Tern(TernOp::Fma, a, x, c), Some(Ty::V32));
        b.push(
            Op::SetVgpr {
                reg: r,
                val: f,
                mask: exec,
            },
            None,
        );
        b.push(Op::CountVector { mask: exec }, None);
        b.count_inst(InstClass::Valu, 0x100 + 8 * (k as u64 + 1));
    }
    b.finish(Exit::Jump(0x100))
}

fn state() -> Box<WaveState> {
    let mut s = WaveState::new_boxed(64);
    for l in 0..64 {
        for r in 0..8 {
            s.vgpr[r][l] = (l as f32 * 0.01 + r as f32).to_bits();
        }
        s.vgpr[8][l] = 0.999f32.to_bits();
        s.vgpr[9][l] = (1.0 + l as f32 * 1e-3).to_bits();
    }
    s.set_exec(u64::MAX);
    s
}

#[test]
#[ignore = "throughput probe; run with --release --ignored --nocapture"]
fn fma_block_throughput() {
    let n = 64;
    let iters = 20_000u64;
    let block = fma_block(n);
    let jit = Jit::new().expect("host JIT");
    let t0 = Instant::now();
    let cb = jit.compile(&block).expect("compiles");
    let compile = t0.elapsed();
    let mut env = FlatEnv::new(0, 0, 0, 0);

    let mut sj = state();
    let t0 = Instant::now();
    for _ in 0..iters {
        cb.run(&mut sj, &mut env).expect("runs");
    }
    let dt = t0.elapsed().as_secs_f64();
    let insts = (n as u64 * iters) as f64;
    println!(
        "JIT: {n} x v_fma_f32 block, {iters} runs: {:.1} M wave-instructions/s, {:.2} G lane-FMA/s (compile {:?})",
        insts / dt / 1e6,
        insts * 64.0 / dt / 1e9,
        compile
    );

    let mut si = state();
    let iters_i = 200u64;
    let t0 = Instant::now();
    for _ in 0..iters_i {
        run_block(&block, &mut si, &mut env).expect("runs");
    }
    let dt = t0.elapsed().as_secs_f64();
    println!(
        "interpreter: {:.2} M wave-instructions/s",
        (n as u64 * iters_i) as f64 / dt / 1e6
    );

    // Host reference for the JIT result.
    let s0 = state();
    for l in 0..64 {
        let a = f32::from_bits(s0.vgpr[8][l]);
        let x = f32::from_bits(s0.vgpr[9][l]);
        for r in 0..8 {
            let mut c = f32::from_bits(s0.vgpr[r][l]);
            for _ in 0..iters * (n as u64 / 8) {
                c = a.mul_add(x, c);
            }
            assert_eq!(sj.vgpr[r][l], c.to_bits(), "v{r} lane {l}");
        }
    }
    assert_eq!(sj.counters.vector_insts, n as u64 * iters);
}
