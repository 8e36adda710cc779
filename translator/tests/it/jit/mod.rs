mod affine;
mod compile;
mod contiguous;
mod gather;
mod iterated;
mod memory;
mod throughput;
mod tiering;
