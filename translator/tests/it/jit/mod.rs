mod affine;
mod compile;
mod contiguous;
mod gather;
mod lane_inline;
mod memory;
mod throughput;
mod tiering;
