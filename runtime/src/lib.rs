//! wavejit-runtime: loading code objects and running their kernels.
//!
//! * [`code_object`]: ELF, kernel descriptors, msgpack metadata, offload bundles.
//! * [`memory`]: checked device memory, LDS, scratch.
//! * [`dispatch`]: grid → workgroups → waves, thread pool, barriers, initial wave state.
//! * [`fault`]: structured fault reports.
//! * [`stats`]: counters and JSON reports.

pub mod code_object;
pub mod dispatch;
pub mod fault;
pub mod memory;
pub mod stats;
