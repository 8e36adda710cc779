//! The runtime's integration tests: one test binary, a module per subject
//! (`cargo test -p wavejit-runtime --test it -- memory::` runs one module).

mod code_object;
mod dispatch;
mod float_env;
mod launch;
mod launch_kernels;
mod leftovers;
mod many_waves;
mod memory;
mod start_block;
mod wave_env;
mod wave_slots;
