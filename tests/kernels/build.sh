#!/usr/bin/env bash
# Builds every tests/kernels/src/*.hip into tests/kernels/gfx942/<name>.hsaco, deterministically
# (relative paths from this directory, no debug info, no CUID).
#   build.sh           rebuild the committed objects (and gfx942/mnemonics.txt, an inventory)
#   build.sh --check   build into a temp dir and fail on any byte difference with the committed ones
# Without LLVM 22: fails when CI=true, otherwise prints a skip notice and exits 0.
set -euo pipefail
cd "$(dirname "$0")"

CLANG=${CLANG:-clang-22}
ARCH=gfx942
if ! command -v "$CLANG" >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    echo "build.sh: $CLANG not found (required in CI)" >&2
    exit 1
  fi
  echo "build.sh: $CLANG not found; skipping kernel build/check"
  exit 0
fi

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
elif [ $# -gt 0 ]; then
  echo "usage: build.sh [--check]" >&2
  exit 2
fi

if [ $check = 1 ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  out=$ARCH
  mkdir -p "$out"
fi

for src in src/*.hip; do
  name=$(basename "$src" .hip)
  "$CLANG" -x hip --offload-arch=$ARCH --cuda-device-only --no-gpu-bundle-output \
    -nogpulib -nogpuinc -O3 -fuse-cuid=none -g0 \
    -o "$out/$name.hsaco" "$src"
done

# Instruction inventory: how often each mnemonic occurs in the corpus (needs llvm-objdump-22).
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
if command -v "$OBJDUMP" >/dev/null 2>&1; then
  for f in "$out"/*.hsaco; do
    "$OBJDUMP" -d --no-show-raw-insn --no-leading-addr "$f"
  done | awk '/^\t[a-z]/ { print $1 }' | LC_ALL=C sort | uniq -c |
    awk '{ printf "%6d %s\n", $1, $2 }' >"$out/mnemonics.txt"
fi

if [ $check = 1 ]; then
  status=0
  if [ -e "$out/mnemonics.txt" ] && ! cmp -s "$out/mnemonics.txt" "$ARCH/mnemonics.txt"; then
    echo "build.sh --check: $ARCH/mnemonics.txt differs from a fresh build" >&2
    status=1
  fi
  for f in "$out"/*.hsaco; do
    name=$(basename "$f")
    if ! cmp -s "$f" "$ARCH/$name"; then
      echo "build.sh --check: $ARCH/$name differs from a fresh build (or is missing)" >&2
      status=1
    fi
  done
  for f in "$ARCH"/*.hsaco; do
    [ -e "$out/$(basename "$f")" ] || { echo "build.sh --check: stale $f (no source)" >&2; status=1; }
  done
  [ $status = 0 ] && echo "build.sh --check: all objects match"
  exit $status
fi
echo "built $(ls "$out"/*.hsaco | wc -l) objects into tests/kernels/$out"
