#!/usr/bin/env bash
# Compares wavejit's disassembler with llvm-objdump-22 on every committed code object
# (tests/kernels/**/*.hsaco), instruction by instruction: the instruction text (before the
# `//` comment) and the address and words in the comment. Fails on any difference and prints
# the first ones.
#
#   scripts/check_disasm.sh [FILE.hsaco ...]
#
# DISASM overrides the command that disassembles one file (default: the CLI,
# `cargo run --release -q -- disasm FILE`), e.g.
#   DISASM="cargo run -q -p wavejit-translator --example gfx9_disasm --" scripts/check_disasm.sh
# Without llvm-objdump-22 the check is skipped, or fails when CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

OBJDUMP=${OBJDUMP:-llvm-objdump-22}
if ! command -v "$OBJDUMP" >/dev/null 2>&1; then
    if [ "${CI:-}" = "true" ]; then
        echo "check_disasm: $OBJDUMP not found (required in CI)" >&2
        exit 1
    fi
    echo "check_disasm: $OBJDUMP not found; skipping"
    exit 0
fi

if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(find tests/kernels -name '*.hsaco' | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
    echo "check_disasm: no code objects found" >&2
    exit 1
fi

if [ -z "${DISASM:-}" ]; then
    cargo build --release -q
    DISASM="cargo run --release -q -- disasm"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Instruction lines only: "<text>|<ADDR>: <WORDS>", with the text's padding and any
# `<symbol+offset>` branch annotation after the words removed.
normalize() {
    awk '/^\t/ {
        line = substr($0, 2)
        # The comment starts at "// ADDR:" (llvm-objdump drops the space before it when
        # the text fills the column).
        i = match(line, /\/\/ [0-9A-Fa-f]+:/)
        if (i == 0) { print line "|"; next }
        text = substr(line, 1, i - 1)
        sub(/[ \t]+$/, "", text)
        rest = substr(line, i + 3)
        sub(/ *<[^>]*>$/, "", rest)
        print text "|" toupper(rest)
    }'
}

status=0
total=0
for f in "${files[@]}"; do
    $OBJDUMP -d "$f" | normalize >"$tmp/want"
    if ! $DISASM "$f" >"$tmp/raw" 2>"$tmp/err"; then
        echo "FAIL $f: disassembler failed: $(head -3 "$tmp/err")"
        status=1
        continue
    fi
    normalize <"$tmp/raw" >"$tmp/got"
    n=$(wc -l <"$tmp/want")
    total=$((total + n))
    if [ "$n" -eq 0 ]; then
        echo "FAIL $f: llvm-objdump printed no instructions"
        status=1
    elif ! cmp -s "$tmp/want" "$tmp/got"; then
        echo "FAIL $f: differs from $OBJDUMP (first differences: < llvm, > wavejit)"
        diff "$tmp/want" "$tmp/got" | head -20 || true
        status=1
    fi
done
if [ $status -eq 0 ]; then
    echo "check_disasm: ${#files[@]} code objects, $total instructions identical to $OBJDUMP"
fi
exit $status
