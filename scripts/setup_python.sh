#!/usr/bin/env bash
# Builds the wavejit Python package (python/: PyO3 + maturin, one abi3 wheel for CPython >= 3.11)
# and installs it, with numpy and pytest, into a venv; prints that venv's python path on stdout.
# Safe to run repeatedly: the venv and its packages are reused, the wheel is rebuilt
# (incrementally, by cargo) and reinstalled.
#
#   scripts/setup_python.sh            # build + install, print the python path
#   scripts/setup_python.sh --test     # then run the package's pytest tests (python/tests/)
#
# The venv also sees the pinned Triton of scripts/setup_triton.sh (a .pth file naming that
# venv's site-packages), which the Triton driver tests need. Cache dir: $WAVEJIT_CACHE_DIR,
# else $XDG_CACHE_HOME/wavejit, else ~/.cache/wavejit. Every failure is an error (no skipping).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")

run_tests=0
for a in "$@"; do
    case "$a" in
        --test) run_tests=1 ;;
        *) echo "usage: setup_python.sh [--test]" >&2; exit 2 ;;
    esac
done

cache=${WAVEJIT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wavejit}
venv=$cache/python-venv
py=$venv/bin/python

if ! [ -x "$py" ]; then
    echo "setup_python: creating $venv" >&2
    mkdir -p "$cache"
    python3 -m venv "$venv" >&2
fi
if ! "$py" -c "import maturin, numpy, pytest" 2>/dev/null; then
    echo "setup_python: installing maturin, numpy, pytest" >&2
    "$py" -m pip install -q -r "$here/python-requirements.txt" >&2
fi

# Triton (pinned, in its own venv) made importable here.
triton_py=$(bash "$here/setup_triton.sh")
triton_site=$("$triton_py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
site=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$triton_site" >"$site/wavejit-triton.pth"

echo "setup_python: building the wheel" >&2
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
# --compatibility linux: a wheel for this machine (no manylinux audit; it is not published).
"$venv/bin/maturin" build --release --quiet --compatibility linux \
    -m "$root/python/Cargo.toml" -i "$py" -o "$wheels" >&2
wheel=$(ls "$wheels"/wavejit-*.whl)
"$py" -m pip install -q --force-reinstall --no-deps "$wheel" >&2
"$py" -c "import wavejit, wavejit.triton" >&2

if [ $run_tests = 1 ]; then
    # The pytest script, not `python -m pytest`: the latter puts the working directory on
    # sys.path, where python/wavejit (without the extension module) would shadow the wheel.
    "$venv/bin/pytest" -q "$root/python/tests" >&2
fi
echo "$py"
