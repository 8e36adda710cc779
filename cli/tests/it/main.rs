//! The command line's integration tests: one test binary, modules by subject
//! (`cargo test -p wavejit-cli --test it -- profile::` runs one module). Each runs the built
//! `wavejit` binary as a user would.

mod common;

mod asm_kernels;
mod cli;
mod profile;
