#!/usr/bin/env bash
# Builds the benchmark-only kernels (clang-22, deterministic) into benches/kernels/<target>/:
#   bench.hsaco       src/bench.hip (triad, reduce_sum)
#   alu_flush.hsaco   tests/kernels/src/alu_fma.hip with f32 denormals flushed
#                     (-fgpu-flush-denormals-to-zero: FLOAT_DENORM_MODE_32 = 0), the
#                     flush-mode twin of tests/kernels/<target>/alu_fma.hsaco
#   alu_modes.hsaco   src/alu_modes.hip (the ALU loop rounding toward zero; f64 chains with
#                     denormals kept and flushed)
#   cold_start.hsaco  src/cold_start.hip (~10 k instructions, for the first-launch time)
# for gfx942, gfx1100 (wave32) and gfx1100w64 (wave64).
#   build.sh [--check]   (--check: rebuild into a temp dir, fail on any difference)
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-22}
command -v "$CLANG" >/dev/null || { echo "build.sh: $CLANG not found (scripts/setup.sh)" >&2; exit 1; }
check=0
[ "${1:-}" = --check ] && check=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for t in gfx942 gfx1100 gfx1100w64; do
  gpu=${t%w64} extra=()
  [ "$gpu" != "$t" ] && extra=(-mwavefrontsize64)
  mkdir -p "$out/$t"
  hip() { # OUT SRC FLAGS...
    local o=$1 s=$2
    shift 2
    "$CLANG" -x hip --offload-arch="$gpu" "${extra[@]}" "$@" --cuda-device-only \
      --no-gpu-bundle-output -nogpulib -nogpuinc -O3 -fuse-cuid=none -g0 -o "$out/$t/$o" "$s"
  }
  hip bench.hsaco src/bench.hip
  hip alu_flush.hsaco ../../tests/kernels/src/alu_fma.hip -fgpu-flush-denormals-to-zero
  hip alu_modes.hsaco src/alu_modes.hip
  hip cold_start.hsaco src/cold_start.hip
done
status=0
for t in gfx942 gfx1100 gfx1100w64; do
  for f in "$out/$t"/*.hsaco; do
    d=$t/$(basename "$f")
    if [ $check = 1 ]; then
      cmp -s "$f" "$d" || { echo "build.sh --check: $d differs from a fresh build" >&2; status=1; }
    else
      mkdir -p "$t" && cp "$f" "$d"
    fi
  done
done
[ $check = 1 ] && [ $status = 0 ] && echo "build.sh --check: benches/kernels match"
exit $status
