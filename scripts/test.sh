#!/usr/bin/env bash
# The project's test command: installs what the tests need, then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo test --workspace "$@"
