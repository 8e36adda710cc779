mod affine;
mod compile;
mod contiguous;
mod memory;
mod throughput;
