//! IR → Cranelift → host code, and the block cache.
