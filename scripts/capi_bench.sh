#!/usr/bin/env bash
# Measures the C library as a mock-GPU harness uses it (numbers for the README, not a test):
# per-dispatch overhead of run_asm on an empty kernel, and the ALU loop (gfx1100 wave32, 8
# v_fmac_f32 + 3 scalar instructions per iteration, assembled with llvm-mc-22) through
# run_asm next to the same code object through `wavejit run`, both on one host thread.
#   scripts/capi_bench.sh [ITERS [GROUPS]]
set -euo pipefail
cd "$(dirname "$0")/.."
iters=${1:-20000}
groups=${2:-64}
cargo build --release -p wavejit-cli -p wavejit-capi
tgt=${CARGO_TARGET_DIR:-target}/release
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && trap - EXIT && echo "work files in $work"

{
  echo '.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"'
  echo '.text'
  echo '.globl alu_loop'
  echo '.p2align 8'
  echo '.type alu_loop,@function'
  echo 'alu_loop:'
  echo "  s_mov_b32 s4, $iters"
  for r in 1 2 3 4 5 6 7 8; do echo "  v_cvt_f32_u32 v$r, v0"; done
  echo '  v_mov_b32 v9, 0x3f7fc000'
  echo '  v_mov_b32 v10, 0x3a800000'
  echo '.Lloop:'
  for r in 1 2 3 4 5 6 7 8; do echo "  v_fmac_f32 v$r, v9, v10"; done
  echo '  s_sub_u32 s4, s4, 1'
  echo '  s_cmp_lg_u32 s4, 0'
  echo '  s_cbranch_scc1 .Lloop'
  echo '  s_endpgm'
  echo '.rodata'
  echo '.p2align 6'
  echo '.amdhsa_kernel alu_loop'
  echo '  .amdhsa_next_free_vgpr 16'
  echo '  .amdhsa_next_free_sgpr 16'
  echo '  .amdhsa_user_sgpr_count 15'
  echo '  .amdhsa_user_sgpr_kernarg_segment_ptr 1'
  echo '  .amdhsa_wavefront_size32 1'
  # MODE as clang sets it for HIP kernels and as run_asm starts waves: denormals kept.
  echo '  .amdhsa_float_denorm_mode_32 3'
  echo '  .amdhsa_float_denorm_mode_16_64 3'
  echo '.end_amdhsa_kernel'
  echo '.amdgpu_metadata'
  echo '---'
  echo 'amdhsa.version: [1, 2]'
  echo 'amdhsa.kernels:'
  echo '  - .name: alu_loop'
  echo '    .symbol: alu_loop.kd'
  echo '    .kernarg_segment_size: 0'
  echo '    .kernarg_segment_align: 8'
  echo '    .group_segment_fixed_size: 0'
  echo '    .private_segment_fixed_size: 0'
  echo '    .wavefront_size: 32'
  echo '    .sgpr_count: 16'
  echo '    .vgpr_count: 16'
  echo '    .max_flat_workgroup_size: 1024'
  echo '    .args: []'
  echo '...'
  echo '.end_amdgpu_metadata'
} >"$work/alu_loop.s"
llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx1100 -filetype=obj "$work/alu_loop.s" -o "$work/alu_loop.o"
ld.lld-22 -shared "$work/alu_loop.o" -o "$work/alu_loop.hsaco"
llvm-objcopy-22 -O binary --only-section=.text "$work/alu_loop.hsaco" "$work/alu_loop.bin"

gcc -std=c11 -O2 -Iinclude examples/c/run_asm_bench.c -o "$work/bench" -L"$tgt" \
  -Wl,-rpath,"$(cd "$tgt" && pwd)" -lwavejit
"$work/bench" empty 20000
"$work/bench" loop "$work/alu_loop.bin" "$groups" 5
for i in 1 2 3; do
  "$tgt/wavejit" run "$work/alu_loop.hsaco" --grid "$groups" --block 32 --threads 1 \
    --stats "$work/stats$i.json" >/dev/null
done
python3 - "$work" <<'PY'
import json, sys
best = min((json.load(open(f"{sys.argv[1]}/stats{i}.json")) for i in (1, 2, 3)),
           key=lambda r: r["elapsed_ns"])
c = best["counters"]
n = sum(c[k] for k in ("salu", "valu", "smem", "vmem", "lds", "control", "matrix"))
print(f"wavejit run: {n} wave instructions in {best['elapsed_ns'] / 1e9:.4f} s (best of 3): "
      f"{n / best['elapsed_ns'] * 1e3:.1f} M wave-instr/s")
PY
