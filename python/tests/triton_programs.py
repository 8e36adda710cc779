"""Triton programs written as for a GPU, with numpy arrays where a GPU program has tensors.

Nothing here knows about wavejit: the tests activate the driver, then call these functions.
Each host function allocates its output, computes the grid from the kernel's meta-parameters
and launches the kernel; strides are passed in elements.
"""

import numpy as np
import triton
import triton.language as tl


@triton.jit
def vector_add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    inside = idx < n
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(out_ptr + idx, a + b, mask=inside)


def vector_add(a, b, block=1024):
    out = np.empty_like(a)
    n = a.size
    vector_add_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](a, b, out, n, BLOCK=block)
    return out


@triton.jit
def softmax_kernel(x_ptr, y_ptr, x_row_stride, y_row_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=valid, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    e = tl.exp(shifted)
    tl.store(y_ptr + row * y_row_stride + cols, e / tl.sum(e, axis=0), mask=valid)


def softmax(x):
    rows, cols = x.shape
    y = np.empty_like(x)
    block = triton.next_power_of_2(cols)
    warps = 8 if block >= 2048 else 4
    softmax_kernel[(rows,)](x, y, x.strides[0] // x.itemsize, y.strides[0] // y.itemsize, cols,
                            BLOCK=block, num_warps=warps)
    return y


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n_cols, eps,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    # Two passes over the row in BLOCK-wide chunks: the mean, then the variance.
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        valid = cols < n_cols
        x = tl.load(x_row + cols, mask=valid, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=valid)
        b = tl.load(b_ptr + cols, mask=valid)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=valid)


def layer_norm(x, weight, bias, eps=1e-5):
    rows, cols = x.shape
    y = np.empty_like(x)
    mean = np.empty(rows, np.float32)
    rstd = np.empty(rows, np.float32)
    block = min(1024, triton.next_power_of_2(cols))
    layer_norm_kernel[(rows,)](x, y, weight, bias, mean, rstd, x.strides[0] // x.itemsize, cols, eps,
                               BLOCK=block, num_warps=4)
    return y, mean, rstd


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    # Programs walk C in groups of GROUP rows of tiles (tiles of one group share B columns).
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    group_rows = min(tiles_m - first_m, GROUP)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak
    b_tile = b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_tile, mask=(rm[:, None] < M) & (rk[None, :] + k0 < K), other=0.0)
        b = tl.load(b_tile, mask=(rk[:, None] + k0 < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_tile += BK * s_ak
        b_tile += BK * s_bk
    c = c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn
    tl.store(c, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, bm=64, bn=64, bk=32, group=4):
    """C = A @ B: f16 inputs (any strides), f32 accumulation and output."""
    (m, k), (k2, n) = a.shape, b.shape
    assert k == k2
    c = np.empty((m, n), np.float32)
    e = lambda x, d: x.strides[d] // x.itemsize  # noqa: E731
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    matmul_kernel[grid](a, b, c, m, n, k, e(a, 0), e(a, 1), e(b, 0), e(b, 1), e(c, 0), e(c, 1),
                        BM=bm, BN=bn, BK=bk, GROUP=group, num_warps=4)
    return c


@triton.jit
def unmasked_copy_kernel(src_ptr, dst_ptr, BLOCK: tl.constexpr):
    """Copies BLOCK elements with no mask: out of bounds when the arrays are shorter."""
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + idx, tl.load(src_ptr + idx))
