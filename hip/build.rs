//! Gives libamdhip64.so its soname and the symbol versions ROCm's library exports, so
//! binaries linked against ROCm's libamdhip64 load this one (README, "HIP programs").
fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libamdhip64.so");
    let _ = dir;
}
