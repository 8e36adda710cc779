#!/usr/bin/env bash
# The project's test command: installs what the tests need (LLVM 22, cbindgen, the Triton and
# Python venvs, the wheel), then runs every test: the Rust tests of the workspace, the C
# library from C, the HIP programs through libamdhip64.so, and the Python package's pytest
# suite (HIP corpus kernels, run_asm, the Triton driver). Arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace "$@"
echo; echo "=== C library (scripts/capi_test.sh)"
bash scripts/capi_test.sh
echo; echo "=== HIP programs (scripts/test_hip.sh)"
bash scripts/test_hip.sh
echo; echo "=== Python package (scripts/setup_python.sh --test)"
bash scripts/setup_python.sh --test
