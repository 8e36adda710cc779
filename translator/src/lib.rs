//! wavejit-translator: everything from instruction bytes to executable host code.
//!
//! * [`isa`]: per-family decoders, generated opcode tables, the instruction model and the
//!   LLVM-syntax disassembler.
//! * [`ir`]: the block-level SSA IR (scalar and lane-vector values).
//! * [`lift`]: instruction semantics, one function per instruction family, emitting IR.
//! * [`sem`]: the reference semantics of the IR ops, one element at a time, which both
//!   engines and the lifter use.
//! * [`interp`]: the IR interpreter (slow path, oracle for the JIT).
//! * [`jit`]: IR → Cranelift → host code, and the block cache.
//! * [`wave`]: the wave-state layout that generated code reads and writes.
//! * [`mod@env`]: the interface through which executing code reaches memory owned by the runtime.
//! * `difffuzz` (feature `testkit`): random instruction programs run through both engines
//!   (differential fuzzing), with `interp::test_env`, a byte-array memory for tests.
//!
//! The translator knows nothing of threads or allocations: the runtime implements
//! [`env::WaveEnv`] and owns the [`wave::WaveState`]s.

pub mod cost;
#[cfg(any(test, feature = "testkit"))]
pub mod difffuzz;
pub mod env;
pub mod exec;
pub mod interp;
pub mod ir;
pub mod isa;
pub mod jit;
pub mod lift;
pub mod matrix;
pub mod profile;
pub mod sem;
pub mod tier;
pub mod wave;
