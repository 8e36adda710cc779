//! `libamdhip64.so`: the HIP runtime API over wavejit, so that unmodified HIP programs (built
//! by `scripts/hipcc`, or linked against ROCm's library) run their kernels on the CPU.
//!
//! The program's module constructor registers each translation unit's fat binary, kernels
//! and device variables; the code object for the emulated GPU (`WAVEJIT_GPU`, default
//! gfx942) is picked from each bundle and loaded at first use. Launches, copies and events
//! run synchronously on the calling thread. See `hip/include/hip/` for the API subset and
//! the README's "HIP programs" section for use.

pub mod api;
pub mod error;
pub mod image;
pub mod printf;
pub mod props;
pub mod runtime;
pub mod symbols;
