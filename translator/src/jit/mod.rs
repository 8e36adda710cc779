//! IR → Cranelift → host code.
