//! The library's integration tests: one test binary, modules by subject
//! (`cargo test -p wavejit --test it -- corpus::` runs one module). The command line's tests
//! are in `cli/tests/it/`.
//!
//! * `corpus`: every corpus kernel through the public API under both engines, against host
//!   references, and the interpreter-vs-JIT differential;
//! * `matrix_kernels`: MFMA/SMFMAC/WMMA GEMM kernels at odd sizes and (ignored, release) at
//!   1024³;
//! * `production`: production kernels (aiter) against host references (ignored: they need the
//!   wheel `scripts/production.sh` fetches).

mod corpus;
mod matrix_kernels;
mod production;
