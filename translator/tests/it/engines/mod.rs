mod diff_kernels;
mod diff_random;
mod engine_fuzz;
mod exec_loop;
mod interp_ops;
mod profile;
mod rdna_fuzz;
