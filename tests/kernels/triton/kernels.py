"""Triton kernel sources of the Triton corpus (built by build.py, AOT, for every target).

Each kernel is launched by the runtime corpus tests (tests/it/corpus/) with the arguments that
build.py records in the kernel's JSON file; the host references live in those tests.
"""

import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out[i] = x[i] + y[i] for i < n; one program per BLOCK elements."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    """Row-wise softmax of an (rows x n_cols) f32 matrix; one program per row."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(in_ptr + row * in_stride + offs, mask=m, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * out_stride + offs, e / tl.sum(e, axis=0), mask=m)


@triton.jit
def layernorm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    """y = (x - mean) / sqrt(var + eps) * w + b over each row (biased variance); one program per row."""
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n_cols
    x = tl.load(x_ptr + row * stride + offs, mask=m, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * stride + offs, d * rstd * w + b, mask=m)


@triton.jit
def row_reduce_kernel(x_ptr, sum_ptr, max_ptr, stride, n_cols, BLOCK: tl.constexpr):
    """Per row of an i32 matrix: sum_ptr[row] = wrapping sum, max_ptr[row] = signed max.

    Loops over the row in BLOCK-wide chunks (a loop-carried reduction).
    """
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.int32)
    mx = tl.full((BLOCK,), -2147483648, dtype=tl.int32)
    for start in range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=m, other=0)
        acc += x
        mx = tl.maximum(mx, tl.where(m, x, -2147483648))
    tl.store(sum_ptr + row, tl.sum(acc, axis=0))
    tl.store(max_ptr + row, tl.max(mx, axis=0))


@triton.jit
def masked_tile_kernel(x_ptr, out_ptr, M, N, stride, fill, BM: tl.constexpr, BN: tl.constexpr):
    """2-D masked tiles: for i < M, j < N: out[i, j] = 2 * x[i, j] + 1 where x[i, j] > 0, else fill.

    Elements outside the M x N matrix are neither loaded nor stored (row and column masks);
    grid = (cdiv(M, BM), cdiv(N, BN)).
    """
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rows = pm * BM + tl.arange(0, BM)
    cols = pn * BN + tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    ptrs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + ptrs, mask=m, other=-1.0)
    y = tl.where(x > 0, 2.0 * x + 1.0, fill)
    tl.store(out_ptr + ptrs, y, mask=m)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """C = A @ B, f16 inputs, f32 accumulation (MFMA/WMMA), f16 output; row-major, unit inner strides."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < K - k * BLOCK_K), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < K - k * BLOCK_K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
