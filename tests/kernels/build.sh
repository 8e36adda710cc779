#!/usr/bin/env bash
# Builds the kernel corpus for every target, deterministically, and commits nothing by itself:
#   HIP:    src/*.hip -> <target>/<name>.hsaco for each HIP target below, and the matrix
#           kernels src/gfx9/*.hip (gfx942, gfx950) and src/rdna/*.hip (RDNA targets) ->
#           matrix/<target>/<name>.hsaco (clang-22; relative paths from this directory, no
#           debug info, no CUID)
#   asm:    src/asm/*.s -> asm/<target>/<name>.hsaco for gfx942 and gfx950 (clang-22 as
#           assembler and linker; built with the HIP part)
#   Triton: triton/kernels.py -> triton/<target>/<name>.{hsaco,json} (pinned Triton 3.9.0 from
#           scripts/setup_triton.sh, AOT through triton/build.py, no GPU)
# plus a <dir>/mnemonics.txt inventory per output directory (needs llvm-objdump-22).
#
#   build.sh [--check] [--hip-only | --triton-only]
#     (no flag)   rebuild and replace the committed objects (stale ones are removed)
#     --check     rebuild into a temp dir and fail on any byte difference, missing or stale file
#
# JOBS (default 2) builds in parallel. Without clang-22, or without Triton (it cannot be
# installed), the corresponding part fails when CI=true and is skipped with a notice otherwise.
set -euo pipefail
cd "$(dirname "$0")"

# HIP targets: the five GPUs, and RDNA compiled for wave64 (-mwavefrontsize64) as <gpu>w64.
HIP_TARGETS="gfx942 gfx950 gfx1100 gfx1100w64 gfx1200 gfx1200w64 gfx1201"
# Hand-written GFX9 assembly kernels (src/asm/).
ASM_TARGETS="gfx942 gfx950"
TRITON_TARGETS="gfx942 gfx950 gfx1100 gfx1200 gfx1201"
CLANG=${CLANG:-clang-22}
OBJDUMP=${OBJDUMP:-llvm-objdump-22}
JOBS=${JOBS:-2}

check=0 hip=1 triton=1
for a in "$@"; do
  case "$a" in
    --check) check=1 ;;
    --hip-only) triton=0 ;;
    --triton-only) hip=0 ;;
    *) echo "usage: build.sh [--check] [--hip-only | --triton-only]" >&2; exit 2 ;;
  esac
done

missing() { # what, is-required-in-CI message
  if [ "${CI:-}" = "true" ]; then
    echo "build.sh: $1 (required in CI)" >&2
    exit 1
  fi
  echo "build.sh: $1; skipping that part"
}

if [ $hip = 1 ] && ! command -v "$CLANG" >/dev/null 2>&1; then
  missing "$CLANG not found"
  hip=0
fi
TRITON_PY=${TRITON_PYTHON:-}
if [ $triton = 1 ] && [ -z "$TRITON_PY" ]; then
  if ! TRITON_PY=$(bash ../../scripts/setup_triton.sh); then
    missing "Triton 3.9.0 could not be installed (scripts/setup_triton.sh)"
    triton=0
  fi
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# One job per line: "hip TARGET SOURCE OUTDIR" or "triton TARGET".
jobs=$out/jobs.txt
: >"$jobs"
dirs=()
if [ $hip = 1 ]; then
  for t in $HIP_TARGETS; do
    dirs+=("$t" "matrix/$t")
    mkdir -p "$out/$t" "$out/matrix/$t"
    for src in src/*.hip; do echo "hip $t $src $t" >>"$jobs"; done
    # Matrix sources, by family: src/gfx9/ (MFMA) for CDNA, src/rdna/ (WMMA/SWMMAC) for RDNA,
    # into matrix/<target>/ (kept apart: the translator's lift tests take <target>/ as their
    # corpus; the matrix kernels have their own tests).
    case "$t" in gfx9*) fam=gfx9 ;; *) fam=rdna ;; esac
    for src in src/$fam/*.hip; do echo "hip $t $src matrix/$t" >>"$jobs"; done
  done
  for t in $ASM_TARGETS; do
    dirs+=("asm/$t")
    mkdir -p "$out/asm/$t"
    for src in src/asm/*.s; do echo "asm $t $src asm/$t" >>"$jobs"; done
  done
fi
if [ $triton = 1 ]; then
  for t in $TRITON_TARGETS; do
    dirs+=("triton/$t")
    echo "triton $t" >>"$jobs"
  done
fi

build_one() { # hip TARGET SOURCE OUTDIR | asm TARGET SOURCE OUTDIR | triton TARGET
  local kind=$1 t=$2
  if [ "$kind" = asm ]; then
    "$CLANG" -target amdgcn-amd-amdhsa -mcpu="$t" -x assembler \
      -o "$OUT/$4/$(basename "$3" .s).hsaco" "$3"
  elif [ "$kind" = hip ]; then
    local gpu=${t%w64} extra=()
    # WAVE64 lets a source pick the wave64 matrix builtins (src/rdna/wmma.hip).
    [ "$gpu" != "$t" ] && extra=(-mwavefrontsize64 -DWAVE64)
    "$CLANG" -x hip --offload-arch="$gpu" "${extra[@]}" --cuda-device-only --no-gpu-bundle-output \
      -nogpulib -nogpuinc -O3 -fuse-cuid=none -g0 \
      -o "$OUT/$4/$(basename "$3" .hip).hsaco" "$3"
  else
    "$TRITON_PY" triton/build.py "$t" "$OUT/triton/$t"
  fi
}
export -f build_one
export CLANG TRITON_PY OUT=$out
if ! xargs -P "$JOBS" -L 1 bash -c 'build_one "$@" || { echo "build.sh: failed: $*" >&2; exit 255; }' _ <"$jobs"; then
  echo "build.sh: build failed" >&2
  exit 1
fi
rm -f "$jobs"

# llvm-objdump flags per output directory: gfx12 needs real-true16 to decode the True16 forms
# that Triton emits, RDNA wave64 code prints vcc/exec only with +wavefrontsize64.
objdump_mattr() {
  local d=$1 m=()
  case "$d" in *gfx12*) m+=(+real-true16) ;; esac
  case "$d" in *w64) m+=(+wavefrontsize64) ;; esac
  local IFS=,
  [ ${#m[@]} -gt 0 ] && echo "--mattr=${m[*]}"
  return 0
}

# Instruction inventory: how often each mnemonic occurs in each directory.
if command -v "$OBJDUMP" >/dev/null 2>&1; then
  for d in "${dirs[@]}"; do
    for f in "$out/$d"/*.hsaco; do
      # shellcheck disable=SC2046
      "$OBJDUMP" -d --no-show-raw-insn --no-leading-addr $(objdump_mattr "$d") "$f"
    done | awk '/^\t[a-z]/ { print $1 }' | LC_ALL=C sort | uniq -c |
      awk '{ printf "%6d %s\n", $1, $2 }' >"$out/$d/mnemonics.txt"
  done
fi

# Generated files in one output directory (objects, Triton launch JSON, inventory).
generated() { (cd "$1" 2>/dev/null && ls -1 -- *.hsaco *.json mnemonics.txt 2>/dev/null) || true; }

if [ $check = 1 ]; then
  status=0 nfiles=0
  for d in "${dirs[@]}"; do
    for f in $(generated "$out/$d"); do
      nfiles=$((nfiles + 1))
      if ! cmp -s "$out/$d/$f" "$d/$f"; then
        echo "build.sh --check: $d/$f differs from a fresh build (or is missing)" >&2
        status=1
      fi
    done
    for f in $(generated "$d"); do
      [ -e "$out/$d/$f" ] || { echo "build.sh --check: stale $d/$f (not built any more)" >&2; status=1; }
    done
  done
  [ $status = 0 ] && echo "build.sh --check: all $nfiles files match in: ${dirs[*]}"
  exit $status
fi

for d in "${dirs[@]}"; do
  mkdir -p "$d"
  for f in $(generated "$d"); do rm -f "$d/$f"; done
  cp "$out/$d"/* "$d/"
  echo "built $(ls "$d"/*.hsaco | wc -l) objects into tests/kernels/$d"
done
