mod compile;
mod contiguous;
mod memory;
mod throughput;
