#!/usr/bin/env bash
# The C library from C: checks that include/wavejit.h is current, builds libwavejit.so with
# the test profile (target/debug, sharing the test build's artifacts) and runs the C harness
# and the C example (capi/tests/c_harness.rs, ignored by a plain `cargo test` because cargo
# does not build cdylibs for integration tests). The translator's `testkit` feature is on as
# in `cargo test --workspace` (the translator's own tests enable it), so that build's
# translator, runtime and API crates are reused instead of compiled again without it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v gcc >/dev/null || { echo "capi_test: gcc is missing" >&2; exit 1; }
bash scripts/capi_header.sh --check
cargo build --profile test -p wavejit-capi -F wavejit-translator/testkit
cargo test -p wavejit-capi -F wavejit-translator/testkit --test c_harness -- --ignored
