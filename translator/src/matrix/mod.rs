//! Matrix instructions as host GEMM: CDNA MFMA/SMFMAC and RDNA WMMA/SWMMAC.
//!
//! * [`shape`]: what an opcode computes (M, N, K, blocks, element and accumulator types),
//!   derived from its LLVM mnemonic.
//! * [`formats`]: exact decoding of f16/bf16/FP8/BF8 (FNUZ and OCP)/FP6/BF6/FP4.
//! * [`layout`]: where each A/B/C/D element lives (lane, item), broadcast controls.
//! * [`gemm`]: the host microkernels (AVX-512F, AVX2+FMA, NEON, portable; bit-identical).
//! * [`kernels`]: the fast paths (run-based gathers): f32- and i32-accumulating MFMAs and
//!   SMFMACs, the 16-block 4×4 forms, block-scaled and f64 MFMAs.
//! * [`mfma`]: executes one instruction on a wave's register file; states the numerics.
//! * [`wmma`]: RDNA WMMA/SWMMAC layouts and modifiers, as [`Plan`]s run by [`mfma`].
//! * [`plans`]: the one owner of every instruction's [`Plan`], named in the IR by a handle.

pub mod formats;
pub mod gemm;
pub mod kernels;
pub mod layout;
pub mod mfma;
pub mod plans;
pub mod shape;
pub mod wmma;

pub use formats::Elem;
pub use mfma::{execute, CSrc, Controls, MatrixError, Operands, Plan, Scales, Which};
pub use shape::{Acc, Kind, MatrixOp, MatrixPrefix, MatrixSpelling, MatrixTok};
