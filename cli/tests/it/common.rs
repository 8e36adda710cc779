//! Helpers the command-line tests share: the repository's kernel folders, scratch folders and
//! running the `wavejit` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root (the CLI package is `cli/`).
pub fn repo_root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The kernel corpus (`tests/kernels/`).
pub fn kernels_dir() -> PathBuf {
    repo_root().join("tests/kernels")
}

/// A loader fixture (`runtime/tests/fixtures/NAME`, built with clang-22), as an argument.
pub fn fixture(name: &str) -> String {
    repo_root()
        .join("runtime/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// A fresh scratch folder for one test's files, named by module and test.
pub fn scratch(module: &str, test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wavejit-{module}-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Runs the `wavejit` binary with `args` to completion.
pub fn wavejit<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wavejit"))
        .args(args)
        .output()
        .expect("wavejit runs")
}
