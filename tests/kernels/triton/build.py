"""AOT-compiles the Triton corpus (kernels.py) for one AMD target without a GPU.

usage: python build.py TARGET OUTDIR     (TARGET: gfx942 gfx950 gfx1100 gfx1200 gfx1201)

Writes OUTDIR/<name>.hsaco and OUTDIR/<name>.json per kernel. The JSON tells a test how to
launch the kernel: the explicit arguments in order (Triton appends hidden pointer arguments,
listed in the code object's metadata note), the constexprs baked in, the workgroup size, the
grid as a formula of the arguments, and the dynamic LDS bytes (`shared`) to allocate.
Run it through tests/kernels/build.sh, which uses the pinned Triton from scripts/setup_triton.sh.
"""

import json
import os
import sys
import tempfile

# Keep Triton's cache out of $HOME and never reuse an earlier result: a fresh cache per run.
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="wavejit-triton-cache-")
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
# No line info: it embeds the absolute path of kernels.py, which would make the objects
# depend on where the repository is checked out (CI rebuilds in a fresh clone).
os.environ["TRITON_DISABLE_LINE_INFO"] = "1"

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402

TRITON_VERSION = "3.9.0"

# name -> (kernel, explicit args [(name, type)], constexprs, options, grid formula)
# Pointer arguments carry tt.divisibility 16 (what Triton's JIT assumes for 16-byte aligned
# buffers), which lets it emit vector loads; the tests allocate such buffers. Integer arguments
# listed in DIVISIBLE get the same hint (Triton's JIT does so for values divisible by 16): the
# launch must pass multiples of 16 (recorded as "divisible_by_16" in the JSON).
DIVISIBLE = {"add_f32": ["n"]}
JOBS = {
    "add_f32": (
        kernels.add_kernel,
        [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n", "i32")],
        {"BLOCK": 1024},
        {"num_warps": 4},
        ["cdiv(n, BLOCK)", "1", "1"],
    ),
    "softmax_f32": (
        kernels.softmax_kernel,
        [("out_ptr", "*fp32"), ("in_ptr", "*fp32"), ("in_stride", "i32"),
         ("out_stride", "i32"), ("n_cols", "i32")],
        {"BLOCK": 256},
        {"num_warps": 4},
        ["rows", "1", "1"],
    ),
    "layernorm_f32": (
        kernels.layernorm_kernel,
        [("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("w_ptr", "*fp32"), ("b_ptr", "*fp32"),
         ("stride", "i32"), ("n_cols", "i32"), ("eps", "fp32")],
        {"BLOCK": 512},
        {"num_warps": 4},
        ["rows", "1", "1"],
    ),
    "row_reduce_i32": (
        kernels.row_reduce_kernel,
        [("x_ptr", "*i32"), ("sum_ptr", "*i32"), ("max_ptr", "*i32"), ("stride", "i32"),
         ("n_cols", "i32")],
        {"BLOCK": 128},
        {"num_warps": 2},
        ["rows", "1", "1"],
    ),
    "masked_tile_f32": (
        kernels.masked_tile_kernel,
        [("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("M", "i32"), ("N", "i32"),
         ("stride", "i32"), ("fill", "fp32")],
        {"BM": 16, "BN": 32},
        {"num_warps": 4},
        ["cdiv(M, BM)", "cdiv(N, BN)", "1"],
    ),
    "matmul_f16": (
        kernels.matmul_kernel,
        [("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", "i32"), ("N", "i32"),
         ("K", "i32"), ("stride_am", "i32"), ("stride_bk", "i32"), ("stride_cm", "i32")],
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
        {"num_warps": 4, "num_stages": 2},
        ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", "1"],
    ),
    # The same matmul on bf16 and on FP8 E4M3 inputs (f32 accumulation, f16 output).
    "matmul_bf16": (
        kernels.matmul_kernel,
        [("a_ptr", "*bf16"), ("b_ptr", "*bf16"), ("c_ptr", "*fp16"), ("M", "i32"), ("N", "i32"),
         ("K", "i32"), ("stride_am", "i32"), ("stride_bk", "i32"), ("stride_cm", "i32")],
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
        {"num_warps": 4, "num_stages": 2},
        ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", "1"],
    ),
    "matmul_fp8": (
        kernels.matmul_kernel,
        [("a_ptr", "*fp8"), ("b_ptr", "*fp8"), ("c_ptr", "*fp16"), ("M", "i32"), ("N", "i32"),
         ("K", "i32"), ("stride_am", "i32"), ("stride_bk", "i32"), ("stride_cm", "i32")],
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
        {"num_warps": 4, "num_stages": 2},
        ["cdiv(M, BLOCK_M)", "cdiv(N, BLOCK_N)", "1"],
    ),
}

# "*fp8" above is the target's FP8 E4M3: FNUZ on gfx942 (CDNA3), OCP on gfx950 (CDNA4) and
# RDNA4; RDNA3 has no FP8 matrix instructions, so jobs with "*fp8" are skipped there.
FP8 = {"gfx942": "*fp8e4b8", "gfx950": "*fp8e4nv", "gfx1200": "*fp8e4nv", "gfx1201": "*fp8e4nv"}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: build.py TARGET OUTDIR")
    arch, out = sys.argv[1], sys.argv[2]
    if triton.__version__ != TRITON_VERSION:
        sys.exit(f"build.py: need triton {TRITON_VERSION}, found {triton.__version__}")
    wave = 64 if arch.startswith("gfx9") else 32
    target = GPUTarget("hip", arch, wave)
    os.makedirs(out, exist_ok=True)
    for name, (fn, args, consts, opts, grid) in JOBS.items():
        args = [(a, FP8.get(arch) if t == "*fp8" else t) for a, t in args]
        if any(t is None for _, t in args):
            continue
        sig = dict(args)
        sig.update({c: "constexpr" for c in consts})
        div = DIVISIBLE.get(name, [])
        attrs = {(i,): [["tt.divisibility", 16]] for i, (a, t) in enumerate(args)
                 if t.startswith("*") or a in div}
        k = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs),
                           target=target, options=opts)
        md = k.metadata
        info = {
            "kernel": md.name,
            "source": f"kernels.py:{fn.__name__}",
            "target": arch,
            "triton": TRITON_VERSION,
            "wave_size": wave,
            "num_warps": md.num_warps,
            "block": [md.num_warps * wave, 1, 1],
            "shared": md.shared,
            "args": [{"name": a, "type": t} for a, t in args],
            # Triton 3.9 appends global-scratch and profile-scratch pointers after the
            # explicit arguments (global_buffer entries in the metadata note).
            "trailing_pointer_args": 2,
            "constexprs": consts,
            "divisible_by_16": [a for a, t in args if t.startswith("*") or a in div],
            "grid": grid,
            "options": opts,
        }
        with open(os.path.join(out, name + ".hsaco"), "wb") as f:
            f.write(k.asm["hsaco"])
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(info, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
