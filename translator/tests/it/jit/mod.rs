mod affine;
mod compile;
mod contiguous;
mod gather;
mod memory;
mod store_run;
mod throughput;
mod tiering;
