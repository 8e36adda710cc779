mod compile;
mod memory;
mod throughput;
