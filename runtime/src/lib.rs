//! wavejit-runtime: loading code objects and running their kernels.
//!
//! * [`code_object`]: ELF, kernel descriptors, msgpack metadata, offload bundles.
//! * [`memory`]: checked device memory, LDS, scratch.
//! * [`dispatch`]: grid → workgroups → waves, thread pool, barriers, initial wave state.
//! * [`fault`]: structured fault reports.
//! * [`stats`]: counters and JSON reports.
//!
//! A launch, end to end ([`dispatch::launch`]): the kernarg segment, an AQL dispatch packet
//! and a zeroed queue descriptor are placed in device memory; workgroups are taken from an
//! atomic counter by host threads; each workgroup gets zeroed LDS and per-lane scratch, and
//! its waves (initial state from the kernel descriptor) run cooperatively until they end,
//! with barriers released when every live wave waits. Every memory request of executing
//! code goes through [`memory::WaveMemEnv`], which checks it against the device's
//! allocations; the first fault stops the launch with a [`fault::FaultReport`].
//!
//! Choices worth knowing (details in each module):
//! * device address = host address of a 256-byte aligned allocation; global accesses are
//!   relaxed host atomics, so workgroups on different threads never race in Rust terms;
//! * LDS out of range reads 0 and drops writes (DS rules); scratch out of range faults;
//! * kernarg preloading: the SGPRs are preloaded *and* the wave starts at the kernel entry,
//!   so the compatibility prologue reloads the same values;
//! * `s_memtime`'s clock is a deterministic per-wave counter.

pub mod code_object;
pub mod dispatch;
pub mod fault;
pub mod memory;
pub mod profile;
pub mod stats;
