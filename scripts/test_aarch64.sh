#!/usr/bin/env bash
# The matrix microkernels' NEON variants and the JIT's aarch64 code, tested on an x86 host:
# the translator's unit tests (every GEMM variant bit-identical to the portable kernel, the
# MFMA fast paths equal to the generic executor) and the MFMA integration tests, built for
# aarch64-unknown-linux-gnu with warnings as errors and run under qemu-user.
# Installs the Rust target, the cross linker and qemu with rustup/apt when missing; outside
# CI a machine without them skips with a message, under CI=true that is a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
sysroot=/usr/aarch64-linux-gnu

missing() {
  ! command -v qemu-aarch64 >/dev/null 2>&1 || ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 \
    || [ ! -d "$sysroot/lib" ] \
    || ! rustup target list --installed 2>/dev/null | grep -qx "$target"
}

if missing; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if command -v apt-get >/dev/null 2>&1 && command -v rustup >/dev/null 2>&1; then
    echo "test_aarch64: installing qemu-user, gcc-aarch64-linux-gnu and the $target Rust target" >&2
    if ! command -v qemu-aarch64 >/dev/null 2>&1 || ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 \
      || [ ! -d "$sysroot/lib" ]; then
      $sudo apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq qemu-user gcc-aarch64-linux-gnu \
        libc6-dev-arm64-cross >/dev/null
    fi
    rustup target list --installed | grep -qx "$target" || rustup target add "$target"
  fi
fi
if missing; then
  echo "test_aarch64: qemu-aarch64, aarch64-linux-gnu-gcc or the $target Rust target is missing" >&2
  if [ "${CI:-}" = "true" ]; then exit 1; fi
  echo "test_aarch64: skipped (not in CI)" >&2
  exit 0
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L $sysroot"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-D warnings"
cargo test -p wavejit-translator --target "$target" --lib
# The MFMA tests of the integration-test binary (its modules matrix::mfma and matrix::lift).
cargo test -p wavejit-translator --target "$target" --test it -- matrix::mfma:: matrix::lift::
