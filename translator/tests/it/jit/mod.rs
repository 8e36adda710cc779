mod affine;
mod compile;
mod contiguous;
mod gather;
mod memory;
mod throughput;
mod tiering;
