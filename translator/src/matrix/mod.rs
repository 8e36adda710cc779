//! Matrix instructions as host GEMM: CDNA MFMA/SMFMAC (issue 5; RDNA WMMA/SWMMAC is issue 6).
//!
//! * [`shape`]: what an opcode computes (M, N, K, blocks, element and accumulator types),
//!   derived from its LLVM mnemonic.
//! * [`formats`]: exact decoding of f16/bf16/FP8/BF8 (FNUZ and OCP)/FP6/BF6/FP4.
//! * [`layout`]: where each A/B/C/D element lives (lane, item), broadcast controls.
//! * [`gemm`]: the host microkernels (AVX-512F, AVX2+FMA, NEON, portable; bit-identical).
//! * [`kernels`]: the fast path of f32-accumulating dense MFMAs (run-based gathers).
//! * [`mfma`]: executes one instruction on a wave's register file; states the numerics.

pub mod formats;
pub mod gemm;
pub mod kernels;
pub mod layout;
pub mod mfma;
pub mod shape;

pub use formats::Elem;
pub use mfma::{execute, CSrc, Controls, MatrixError, Operands, Plan, Scales};
pub use shape::{Acc, Kind, MatrixOp};
