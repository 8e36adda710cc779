#!/usr/bin/env bash
# The C library from C: checks that include/wavejit.h is current, builds libwavejit.so with
# the test profile (target/debug, sharing the test build's artifacts) and runs the C harness
# and the C example (capi/tests/c_harness.rs, ignored by a plain `cargo test` because cargo
# does not build cdylibs for integration tests).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v gcc >/dev/null || { echo "capi_test: gcc is missing" >&2; exit 1; }
bash scripts/capi_header.sh --check
cargo build --profile test -p wavejit-capi
cargo test -p wavejit-capi --test c_harness -- --ignored
