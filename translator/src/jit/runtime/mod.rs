//! What generated code runs with: the code memory and the call into it ([`code`]), the
//! `extern "C"` helpers it calls ([`helpers`]) and their direct memory path ([`memory`]).
//! All of the JIT's `unsafe` is here (the rest of `jit` denies it), each block with the
//! argument that makes it sound.
#![allow(unsafe_code)]

pub(super) mod code;
pub mod helpers;
pub mod memory;
pub mod mxcsr;
