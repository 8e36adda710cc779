#!/usr/bin/env bash
# Builds libamdhip64.so and the HIP test programs (tests/hip) with scripts/hipcc for gfx942,
# gfx950, gfx1100 and gfx1201 (one fat binary each), runs every program on every emulated
# GPU (WAVEJIT_GPU), and checks exit status and output: "ALL PASS" and no FAIL line; the
# printf program's device lines against the lines it computes on the host; the error
# program's fault report on stderr; a missing code object reported clearly.
# Options: --release (use the release library; default: the test profile with the translator's
# `testkit` feature, i.e. the library `cargo test --workspace` already built),
# --quick (gfx942 and gfx1100 only). Prints the TIME lines (wavejit vs host) at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export HIPCC_PROFILE=test
archs=(gfx942 gfx950 gfx1100 gfx1201)
for a in "$@"; do
  case "$a" in
    --release) export HIPCC_PROFILE=release ;;
    --quick) archs=(gfx942 gfx1100) ;;
    *) echo "test_hip.sh: unknown option $a" >&2; exit 2 ;;
  esac
done
if [[ "${CI:-}" == true ]] || ! command -v clang++-22 >/dev/null; then
  bash scripts/setup.sh
fi
command -v clang++-22 >/dev/null || { echo "test_hip.sh: clang++-22 missing" >&2; exit 1; }

profile_dir=debug features=(-F wavejit-translator/testkit)
[[ "$HIPCC_PROFILE" == release ]] && profile_dir=release features=()
cargo build -q -p wavejit-hip --profile "$HIPCC_PROFILE" "${features[@]}"
export WAVEJIT_HIP_LIB="${CARGO_TARGET_DIR:-$PWD/target}/$profile_dir"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
archflags=()
for a in "${archs[@]}"; do archflags+=("--offload-arch=$a"); done

failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }
times="$out/times.txt"
: >"$times"

# Compiles in the background, two at a time (one hipcc is mostly one clang++ process);
# `built` waits for them all and reports each failure with its compiler output.
build() { # name sources...
  local name="$1"; shift
  while (($(jobs -rp | wc -l) >= 2)); do wait -n || true; done
  scripts/hipcc "${archflags[@]}" -O2 -std=c++17 "$@" -o "$out/$name" >"$out/$name.build" 2>&1 \
    || touch "$out/$name.failed" &
}
built() {
  wait
  local f
  for f in "$out"/*.failed; do
    [[ -e "$f" ]] || continue
    f="${f%.failed}"
    fail "build ${f##*/}"
    sed 's/^/    /' "$f.build" | head -40
  done
}

# run NAME GPU [args]: runs a built program and checks the common PASS/FAIL contract.
run() {
  local name="$1" gpu="$2"; shift 2
  local log="$out/$name.$gpu"
  local rc=0
  WAVEJIT_GPU="$gpu" timeout 300 "$out/$name" "$@" >"$log.out" 2>"$log.err" || rc=$?
  if ((rc != 0)) || ! grep -q "^ALL PASS" "$log.out" || grep -q "^FAIL" "$log.out"; then
    fail "$name on $gpu (exit $rc)"
    sed 's/^/    /' "$log.out" "$log.err" | head -40
    return 1
  fi
  grep "^TIME" "$log.out" | sed "s/^TIME /$gpu $name: /" >>"$times" || true
  echo "ok   $name on $gpu"
}

programs=(vector_ops transpose reduce globals templates streams_events dynamic_shared printf errors launch_overhead)
for p in "${programs[@]}"; do build "$p" "tests/hip/$p.hip"; done
build two_tu tests/hip/two_tu_main.hip tests/hip/two_tu_kernels.hip
build module_api tests/hip/module_api.hip
scripts/hipcc "${archflags[@]}" --genco -O2 tests/hip/module_api_kernels.hip -o "$out/module_api_kernels.co" \
  || fail "build module_api_kernels.co"
built

for gpu in "${archs[@]}"; do
  for p in vector_ops transpose reduce globals templates streams_events dynamic_shared two_tu; do
    [[ -x "$out/$p" ]] && run "$p" "$gpu" || true
  done
  [[ -x "$out/module_api" ]] && run module_api "$gpu" "$out/module_api_kernels.co" || true
  [[ -x "$out/launch_overhead" ]] && run launch_overhead "$gpu" 300 || true

  # printf: the device's lines must be exactly the lines the host computed (any order).
  if [[ -x "$out/printf" ]] && run printf "$gpu"; then
    grep '^dev: ' "$out/printf.$gpu.out" | sort >"$out/got.txt"
    sed -n 's/^EXPECT //p' "$out/printf.$gpu.err" | sort >"$out/want.txt"
    if [[ ! -s "$out/want.txt" ]] || ! diff -u "$out/want.txt" "$out/got.txt"; then
      fail "printf output on $gpu differs from the host's"
    fi
  fi

  # errors: the fault report names the kernel and workgroup on stderr.
  if [[ -x "$out/errors" ]] && run errors "$gpu"; then
    grep -q "kernel _Z5touchPil faulted in workgroup (0,0,0)" "$out/errors.$gpu.err" \
      || { fail "errors on $gpu: no fault report on stderr"; sed 's/^/    /' "$out/errors.$gpu.err"; }
  fi
done

# A program without code for the emulated GPU: a clear error at the first launch.
scripts/hipcc --offload-arch=gfx1100 -O1 tests/hip/vector_ops.hip -o "$out/only1100" || fail "build only1100"
rc=0
WAVEJIT_GPU=gfx942 "$out/only1100" >"$out/only.out" 2>"$out/only.err" || rc=$?
if ((rc == 0)) || ! grep -q "hipErrorNoBinaryForGpu" "$out/only.out" \
  || ! grep -q "no code object for gfx942.*gfx1100" "$out/only.err"; then
  fail "missing code object not reported"
  sed 's/^/    /' "$out/only.out" "$out/only.err" | head
else
  echo "ok   missing code object reported: $(grep -o 'no code object for[^.]*' "$out/only.err" | head -1)"
fi

# A binary linked against ROCm's libamdhip64.so.5 (Debian's libamdhip64-5, fetched as a
# .deb, never installed) runs with wavejit's library through LD_LIBRARY_PATH.
rocm="$out/rocm"
mkdir -p "$rocm"
if (cd "$rocm" && apt-get download -q libamdhip64-5 >/dev/null 2>&1) && dpkg -x "$rocm"/libamdhip64-5_*.deb "$rocm/x"; then
  ln -sf "$(find "$rocm/x" -name 'libamdhip64.so.5' | head -1)" "$rocm/libamdhip64.so"
  scripts/hipcc -c --offload-arch=gfx942 -O2 tests/hip/reduce.hip -o "$rocm/reduce.o"
  clang++-22 "$rocm/reduce.o" -L"$rocm" -lamdhip64 -Wl,--allow-shlib-undefined -o "$rocm/reduce_rocm"
  if readelf -d "$rocm/reduce_rocm" | grep -q 'NEEDED.*libamdhip64.so.5' \
    && LD_LIBRARY_PATH="$(scripts/hipcc --wavejit-libdir)" "$rocm/reduce_rocm" 2>/dev/null | grep -q '^ALL PASS'; then
    echo "ok   a binary linked against ROCm's libamdhip64.so.5 runs on wavejit's library"
  else
    fail "ROCm-linked binary"
  fi
elif [[ "${CI:-}" == true ]]; then
  fail "cannot fetch Debian's libamdhip64-5 for the ROCm-linked binary test"
else
  echo "note: libamdhip64-5 not fetched (apt-get download failed); ROCm-linked binary not tried"
fi

echo
echo "Run times (kernel on wavejit, same computation on the host):"
cat "$times"
if ((failures)); then
  echo "test_hip.sh: $failures failure(s)"
  exit 1
fi
echo "test_hip.sh: all HIP programs pass"
