"""A Triton program run on an emulated GPU: row-wise softmax on numpy arrays.

    python examples/python/triton_softmax.py [gfx942|gfx950|gfx1100|gfx1200|gfx1201]

The kernel and its host code are plain Triton; only the `activate` line is wavejit's.
"""

import sys

import numpy as np
import triton
import triton.language as tl

import wavejit.triton

wavejit.triton.activate(sys.argv[1] if len(sys.argv) > 1 else "gfx942")


@triton.jit
def softmax_rows(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < n_cols)


x = np.random.default_rng(0).standard_normal((128, 300), dtype=np.float32)
y = np.empty_like(x)
softmax_rows[(x.shape[0],)](x, y, x.shape[1], x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
want = np.exp(x - x.max(axis=1, keepdims=True))
want /= want.sum(axis=1, keepdims=True)
assert np.allclose(y, want, rtol=1e-5, atol=1e-7)
ms = triton.testing.do_bench(
    lambda: softmax_rows[(x.shape[0],)](x, y, x.shape[1], x.shape[1], BLOCK=512), warmup=5, rep=50)
print(f"softmax of {x.shape[0]}x{x.shape[1]} on {triton.runtime.driver.active.arch}: {ms:.2f} ms per launch")
