#!/usr/bin/env bash
# Compares wavejit's disassembler with llvm-objdump-22 on the committed code objects
# (tests/kernels/**/*.hsaco, HIP and Triton), instruction by instruction: the instruction text
# (before the `//` comment) and the address and words in the comment. Fails on any difference
# and prints the first ones; reports per target the objects and instructions compared.
#
#   scripts/check_disasm.sh [FILE.hsaco ...]
#
# Each object's target comes from the ELF header (e_flags), plus "w64" for RDNA code whose
# metadata says wavefront_size 64 (e.g. gfx1100w64). llvm-objdump-22 gets the flags that target
# needs: --mattr=+real-true16 for gfx12 (else it cannot decode the True16 forms Triton emits),
# --mattr=+wavefrontsize64 for RDNA wave64 (vcc/exec instead of vcc_lo/exec_lo).
#
# CHECK_TARGETS selects what is compared (default: all): target names (gfx942 gfx950 gfx1100
# gfx1100w64 gfx1200 gfx1200w64 gfx1201) or families (gfx9, gfx11, gfx12, all). Objects of the
# other targets are counted and listed as "not compared".
#
# DIFF_LINES (default 20) caps the diff lines printed per differing object.
# DISASM overrides the command that disassembles one file (default: the CLI built by
# `cargo build --release`, `target/release/wavejit disasm FILE`), e.g.
#   DISASM="cargo run -q -p wavejit-translator --example disasm --" scripts/check_disasm.sh
# Without llvm-objdump-22 the check is skipped, or fails when CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."

OBJDUMP=${OBJDUMP:-llvm-objdump-22}
READELF=${READELF:-llvm-readelf-22}
for tool in "$OBJDUMP" "$READELF"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        if [ "${CI:-}" = "true" ]; then
            echo "check_disasm: $tool not found (required in CI)" >&2
            exit 1
        fi
        echo "check_disasm: $tool not found; skipping"
        exit 0
    fi
done

ALL_TARGETS="gfx942 gfx950 gfx1100 gfx1100w64 gfx1200 gfx1200w64 gfx1201"
selected=" "
for t in ${CHECK_TARGETS:-all}; do
    case "$t" in
        all) selected+="$ALL_TARGETS " ;;
        gfx9) selected+="gfx942 gfx950 " ;;
        gfx11) selected+="gfx1100 gfx1100w64 " ;;
        gfx12) selected+="gfx1200 gfx1200w64 gfx1201 " ;;
        gfx942 | gfx950 | gfx1100 | gfx1100w64 | gfx1200 | gfx1200w64 | gfx1201) selected+="$t " ;;
        *) echo "check_disasm: unknown target '$t' in CHECK_TARGETS (known: $ALL_TARGETS gfx9 gfx11 gfx12 all)" >&2; exit 2 ;;
    esac
done

if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(find tests/kernels -name '*.hsaco' | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
    echo "check_disasm: no code objects found" >&2
    exit 1
fi

# Target name of one code object: the GPU from e_flags, "w64" appended for RDNA wave64.
target_of() {
    local gpu
    gpu=$($READELF -h "$1" | awk '/Flags:/ { for (i = 1; i <= NF; i++) if ($i ~ /^gfx[0-9]+,?$/) { sub(/,/, "", $i); print $i; exit } }')
    [ -n "$gpu" ] || { echo "unknown"; return; }
    case "$gpu" in
        gfx9*) echo "$gpu" ;;
        *) # (no grep -q: with pipefail, readelf's SIGPIPE would read as "no match")
           if [ "$($READELF --notes "$1" | grep -c '\.wavefront_size: *64')" != 0 ]; then
               echo "${gpu}w64"
           else
               echo "$gpu"
           fi ;;
    esac
}

mattr_of() {
    local m=()
    case "$1" in gfx12*) m+=(+real-true16) ;; esac
    case "$1" in *w64) m+=(+wavefrontsize64) ;; esac
    local IFS=,
    [ ${#m[@]} -gt 0 ] && echo "--mattr=${m[*]}"
    return 0
}

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

declare -A nobj ninst skipped
status=0
built=0
for f in "${files[@]}"; do
    t=$(target_of "$f")
    if [[ "$selected" != *" $t "* ]]; then
        skipped[$t]=$((${skipped[$t]:-0} + 1))
        continue
    fi
    if [ $built = 0 ]; then
        built=1
        if [ -z "${DISASM:-}" ]; then
            cargo build --release -q
            # The binary itself: `cargo run` would add cargo's start-up to every object.
            DISASM="${CARGO_TARGET_DIR:-target}/release/wavejit disasm"
        fi
    fi
    # shellcheck disable=SC2046
    $OBJDUMP -d $(mattr_of "$t") "$f" | normalize >"$tmp/want"
    nobj[$t]=$((${nobj[$t]:-0} + 1))
    if ! $DISASM "$f" >"$tmp/raw" 2>"$tmp/err"; then
        echo "FAIL [$t] $f: disassembler failed: $(head -3 "$tmp/err")"
        status=1
        continue
    fi
    normalize <"$tmp/raw" >"$tmp/got"
    n=$(wc -l <"$tmp/want")
    ninst[$t]=$((${ninst[$t]:-0} + n))
    if [ "$n" -eq 0 ]; then
        echo "FAIL [$t] $f: llvm-objdump printed no instructions"
        status=1
    elif grep -q '^\.long' "$tmp/want"; then
        echo "FAIL [$t] $f: llvm-objdump could not decode some words (wrong --mattr?)"
        status=1
    elif ! cmp -s "$tmp/want" "$tmp/got"; then
        echo "FAIL [$t] $f: differs from $OBJDUMP (first differences: < llvm, > wavejit)"
        diff "$tmp/want" "$tmp/got" | head -"${DIFF_LINES:-20}" || true
        status=1
    fi
done

echo "check_disasm: per target (objects, instructions compared with $OBJDUMP):"
total_o=0 total_i=0
for t in $ALL_TARGETS unknown; do
    if [ -n "${nobj[$t]:-}" ]; then
        printf '  %-11s %4d objects %8d instructions\n' "$t" "${nobj[$t]}" "${ninst[$t]:-0}"
        total_o=$((total_o + nobj[$t]))
        total_i=$((total_i + ${ninst[$t]:-0}))
    fi
done
for t in $ALL_TARGETS unknown; do
    if [ -n "${skipped[$t]:-}" ]; then
        printf '  %-11s %4d objects NOT COMPARED (not in CHECK_TARGETS)\n' "$t" "${skipped[$t]}"
    fi
done
if [ $total_o -eq 0 ]; then
    echo "check_disasm: no code object of the selected targets (${CHECK_TARGETS:-all})" >&2
    exit 1
fi
if [ $status -eq 0 ]; then
    echo "check_disasm: $total_o code objects, $total_i instructions identical to $OBJDUMP"
fi
exit $status
