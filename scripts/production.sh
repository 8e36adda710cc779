#!/usr/bin/env bash
# CI step for the production-kernel corpus (AMD aiter's assembly kernels, the pinned
# amd-aiter wheel from PyPI, cached outside git): fetch, check a deterministic sample (every
# 10th code object plus every family with fewer than 10, about 290 of 2,501: each loads,
# disassembles exactly as llvm-objdump-22, and every instruction decodes and lifts), then run
# the representative kernels against host references (tests/it/production.rs).
#   PRODUCTION_SAMPLE=1 scripts/production.sh   checks every code object (about 10x longer)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/production.py fetch
python3 scripts/production.py check --sample "${PRODUCTION_SAMPLE:-10}"
cargo test --release -p wavejit --test it -- --ignored production::
