//! The translator's integration tests: one test binary, modules by subject
//! (`cargo test -p wavejit-translator --test it -- lift::ds` runs one module).

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

mod lift_support;

mod coverage;
mod decode;
mod engines;
mod float;
mod jit;
mod lift;
mod matrix;
mod rdna;
mod wave32_lanes;
