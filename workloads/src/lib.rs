//! The workloads wavejit runs for its users and its own measurements, kept out of the
//! `wavejit` library's public API: the bundled kernel corpus ([`corpus`]), the built-in
//! benchmarks of `wavejit bench` and the criterion benches ([`mod@bench`]), and the demonstration
//! of `wavejit demo` ([`demo`]). Every workload checks its results against a host computation.

pub mod bench;
pub mod corpus;
pub mod demo;
