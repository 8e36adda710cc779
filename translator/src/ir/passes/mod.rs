//! IR → IR rewrites that keep a block's meaning: each takes a verified block and returns a
//! new one (or `None` when it changes nothing), which the caller verifies again.

pub mod dce;
pub mod flush;
pub mod forward;
pub mod uniform;
