#!/usr/bin/env bash
# Installs the pinned Triton used to build the Triton kernel corpus (tests/kernels/triton/) into a
# venv under a cache dir, and prints that venv's python path on stdout. Safe to run repeatedly:
# an existing venv with the pinned version is reused.
#
#   scripts/setup_triton.sh            # install if needed, print the python path
#
# Cache dir: $WAVEJIT_CACHE_DIR, else $XDG_CACHE_HOME/wavejit, else ~/.cache/wavejit.
# The wheel is pinned by version and sha256 (scripts/triton-requirements.txt, --require-hashes);
# Triton 3.9.0 has no runtime dependencies for AOT compilation (no torch, no GPU, no ROCm).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

TRITON_VERSION=3.9.0
cache=${WAVEJIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wavejit}
venv=$cache/triton-$TRITON_VERSION-venv
py=$venv/bin/python

installed() {
    [ -x "$py" ] && "$py" -c "import triton, sys; sys.exit(triton.__version__ != '$TRITON_VERSION')" 2>/dev/null
}

if ! installed; then
    echo "setup_triton: installing triton==$TRITON_VERSION into $venv" >&2
    mkdir -p "$cache"
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$py" -m pip install -q --no-deps --require-hashes -r "$here/triton-requirements.txt" >&2
    installed || { echo "setup_triton: triton $TRITON_VERSION not importable after install" >&2; exit 1; }
fi
echo "$py"
