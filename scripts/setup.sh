#!/usr/bin/env bash
# Installs what wavejit's checks need beyond the Rust toolchain: LLVM 22 (clang-22, lld-22,
# llvm-22: the AMDGPU assembler/disassembler oracles and the kernel-corpus compiler) and the
# rustfmt/clippy components. Safe to run repeatedly; does nothing when all is present.
set -euo pipefail

need_llvm=0
for t in clang-22 ld.lld-22 llvm-mc-22 llvm-objdump-22 llvm-readelf-22; do
  command -v "$t" >/dev/null 2>&1 || need_llvm=1
done

if [ "$need_llvm" = 1 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "setup: installing clang-22 lld-22 llvm-22 with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang-22 lld-22 llvm-22 >/dev/null
  else
    echo "setup: LLVM 22 (clang-22, lld-22, llvm-22) is missing and apt-get is unavailable;" >&2
    echo "setup: install it by hand, or the LLVM oracle checks will be skipped (outside CI)." >&2
    [ "${CI:-}" = "true" ] && exit 1
  fi
fi

if command -v rustup >/dev/null 2>&1; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi
