#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time: fuzz/run.sh [SECONDS per target, default 30]
#
# Targets: decode (decoder + printer, all five GPUs), code_object (the loader on arbitrary
# bytes, seeded with the committed corpus objects so libFuzzer mutates real code objects),
# code_object_patch (byte patches on a real object). Installs the pinned cargo-fuzz if it is
# missing. cargo-fuzz wants a nightly compiler for libFuzzer's instrumentation flags; the
# stable toolchain accepts them with RUSTC_BOOTSTRAP=1, and `--sanitizer none` avoids the
# nightly-only AddressSanitizer (the code under test has no unsafe to check). The targets
# are built in the dev profile: overflow checks on, and a shorter build than release.
# FUZZ_RELEASE=1 builds optimised instead. Fails on any crash; the input is left in
# fuzz/artifacts/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
version=0.13.2
if ! cargo fuzz --version 2>/dev/null | grep -qF "$version"; then
    cargo install cargo-fuzz --locked --version "$version"
fi
export RUSTC_BOOTSTRAP=1
mode=(--dev)
if [ "${FUZZ_RELEASE:-}" = 1 ]; then
    mode=(-O)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/decode" "$work/code_object" "$work/code_object_patch"
cp tests/kernels/gfx942/*.hsaco "$work/code_object/"
cargo fuzz build --sanitizer none "${mode[@]}"
for t in decode code_object code_object_patch; do
    echo "--- fuzz $t (${secs} s)"
    status=0
    cargo fuzz run --sanitizer none "${mode[@]}" "$t" "$work/$t" -- \
        -max_total_time="$secs" -print_final_stats=1 >"$work/$t.log" 2>&1 || status=$?
    grep -E "^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)" "$work/$t.log" || true
    if [ "$status" != 0 ]; then
        tail -40 "$work/$t.log" >&2
        echo "fuzz: target $t failed (input in fuzz/artifacts/$t/)" >&2
        exit 1
    fi
done
echo "fuzz: all targets ran ${secs} s without a crash"
