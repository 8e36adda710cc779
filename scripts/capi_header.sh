#!/usr/bin/env bash
# Generates the C header include/wavejit.h from the C library's Rust source (capi/src) with
# cbindgen (Debian's cbindgen 0.24, installed here with apt-get when missing).
#   scripts/capi_header.sh          regenerate include/wavejit.h
#   scripts/capi_header.sh --check  fail when the checked-in header differs from a fresh one
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cbindgen >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "capi_header: installing cbindgen with apt-get" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq cbindgen >/dev/null
  else
    echo "capi_header: cbindgen is missing and apt-get is unavailable" >&2
    exit 1
  fi
fi

out=include/wavejit.h
if [ "${1:-}" = "--check" ]; then
  tmp=$(mktemp)
  trap 'rm -f "$tmp"' EXIT
  cbindgen --quiet --config capi/cbindgen.toml --output "$tmp" capi
  if ! diff -u "$out" "$tmp"; then
    echo "capi_header: $out is out of date; run scripts/capi_header.sh" >&2
    exit 1
  fi
  echo "capi_header: $out is up to date"
else
  cbindgen --quiet --config capi/cbindgen.toml --output "$out" capi
  echo "capi_header: wrote $out"
fi
