"""Triton programs (triton_programs.py) through the wavejit driver, against numpy.

Each test compiles with Triton's AMD backend for the emulated target and launches through
wavejit. One driver per target: Triton caches kernels per device index, one index per target.
"""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import triton

import wavejit
import wavejit.triton
import triton_programs as tp

# CDNA3 (wave64, MFMA) and RDNA3 (wave32, WMMA); the matmul runs on all five targets.
TARGETS = ["gfx942", "gfx1100"]


@pytest.fixture(params=TARGETS)
def target(request):
    wavejit.triton.activate(request.param)
    return request.param


def test_vector_add(target, rng):
    n = 5000  # not a multiple of BLOCK: the last program is masked
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    np.testing.assert_array_equal(tp.vector_add(a, b), a + b)
    rep = triton.runtime.driver.active.last_report
    assert rep["workgroups"] == 5 and rep["kernel"] == "vector_add_kernel"


def test_vector_add_other_block_and_dtype(target, rng):
    n = 3001
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    b = rng.integers(-1000, 1000, n).astype(np.int32)
    np.testing.assert_array_equal(tp.vector_add(a, b, block=256), a + b)


def test_softmax(target, rng):
    x = rng.standard_normal((67, 781), dtype=np.float32) * 4
    y = tp.softmax(x)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    want = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, want, rtol=2e-6, atol=1e-9)
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-5)


def test_softmax_on_a_strided_row_view(target, rng):
    # Every other row of a larger matrix: the row stride is twice the width.
    big = rng.standard_normal((40, 300), dtype=np.float32)
    x = big[::2]
    y = tp.softmax(x)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=2e-6, atol=1e-9)


def test_layer_norm(target, rng):
    x = rng.standard_normal((33, 1500), dtype=np.float32) * 3 + 1
    w = rng.standard_normal(1500, dtype=np.float32)
    b = rng.standard_normal(1500, dtype=np.float32)
    y, mean, rstd = tp.layer_norm(x, w, b, eps=1e-5)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    r = 1 / np.sqrt(x64.var(axis=1) + 1e-5)
    np.testing.assert_allclose(mean, mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, r, rtol=1e-5)
    want = (x64 - mu[:, None]) * r[:, None] * w + b
    np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("arch", ["gfx942", "gfx950", "gfx1100", "gfx1200", "gfx1201"])
def test_matmul_is_exact_on_small_integers(arch, rng):
    wavejit.triton.activate(arch)
    # Small integers in f16: every product and partial sum is exact in f32, so any summation
    # order gives numpy's result exactly.
    m, n, k = 96, 80, 112
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    b = rng.integers(-4, 5, (k, n)).astype(np.float16)
    c = tp.matmul(a, b)
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert triton.runtime.driver.active.last_report["counters"]["matrix"] > 0


def test_matmul_with_a_transposed_operand(target, rng):
    m, n, k = 64, 128, 64
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    bt = rng.integers(-3, 4, (n, k)).astype(np.float16)
    c = tp.matmul(a, bt.T)  # a strided view: column stride k, row stride 1
    np.testing.assert_array_equal(c, a.astype(np.float32) @ bt.T.astype(np.float32))


def test_matmul_random_f16(target, rng):
    m, n, k = 128, 64, 256
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = tp.matmul(a, b)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-3)


def test_out_of_bounds_kernel_raises_a_fault(target):
    src = np.arange(100, dtype=np.float32)
    dst = np.zeros(100, np.float32)
    with pytest.raises(wavejit.KernelFault) as info:
        tp.unmasked_copy_kernel[(1,)](src, dst, BLOCK=1024)
    assert "unmasked_copy_kernel" in str(info.value)
    assert (dst == 0).all()  # nothing copied back after a fault


def test_do_bench_and_the_drivers_benchmarker(target, rng):
    a = rng.standard_normal(4096, dtype=np.float32)
    b = rng.standard_normal(4096, dtype=np.float32)
    ms = triton.testing.do_bench(lambda: tp.vector_add(a, b), warmup=1, rep=20)
    assert 0 < ms < 1000
    bench = triton.runtime.driver.active.get_benchmarker()
    q = bench(lambda: tp.vector_add(a, b), warmup=1, rep=20, quantiles=[0.2, 0.5, 0.8])
    assert len(q) == 3 and 0 < q[0] <= q[1] <= q[2]


def test_autotune_picks_a_config_through_the_driver(target, rng):
    @triton.autotune(configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 512})], key=["n"])
    @triton.jit
    def scaled_copy(src_ptr, dst_ptr, n, BLOCK: triton.language.constexpr):
        idx = triton.language.program_id(0) * BLOCK + triton.language.arange(0, BLOCK)
        m = idx < n
        triton.language.store(dst_ptr + idx, triton.language.load(src_ptr + idx, mask=m) * 2.0, mask=m)

    n = 3000
    src = rng.standard_normal(n, dtype=np.float32)
    dst = np.zeros(n, np.float32)
    scaled_copy[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](src, dst, n)
    np.testing.assert_array_equal(dst, src * 2)
    assert scaled_copy.best_config.kwargs["BLOCK"] in (256, 512)


class TensorLike:
    """What Triton's specialization accepts (dtype, data_ptr) plus, optionally, DLPack: the
    shape of a PyTorch CPU tensor, without PyTorch."""

    def __init__(self, a, dlpack=True):
        self.a, self.dtype = a, a.dtype
        if dlpack:
            self.__dlpack__ = a.__dlpack__
            self.__dlpack_device__ = a.__dlpack_device__

    def data_ptr(self):
        return self.a.ctypes.data


def test_dlpack_objects_are_pointer_arguments(target, rng):
    a = rng.standard_normal(2000, dtype=np.float32)
    b = rng.standard_normal(2000, dtype=np.float32)
    out = np.zeros(2000, np.float32)
    tp.vector_add_kernel[(2,)](TensorLike(a), TensorLike(b), TensorLike(out), 2000, BLOCK=1024)
    np.testing.assert_array_equal(out, a + b)  # written back through the shared memory


def test_bad_targets_and_arguments_raise_clear_errors(target):
    with pytest.raises(wavejit.UsageError, match="unknown target"):
        wavejit.triton.activate("gfx90a")
    with pytest.raises(wavejit.UsageError, match="engine"):
        wavejit.triton.activate(target, engine="gpu")
    wavejit.triton.activate(target)
    x = np.zeros(4, np.float32)
    # Specialized as a pointer by Triton, but no memory wavejit can reach.
    with pytest.raises(wavejit.UsageError, match="pointer"):
        tp.vector_add_kernel[(1,)](x, TensorLike(x, dlpack=False), x, 4, BLOCK=16)
    # Triton's own specialization rejects what it cannot type.
    with pytest.raises(TypeError, match="specialize"):
        tp.vector_add_kernel[(1,)](x, "not an array", x, 4, BLOCK=16)


def test_environment_variable_activates_the_driver_in_an_unmodified_program(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(
        "import numpy as np, triton, triton_programs as tp\n"
        "x = np.arange(3000, dtype=np.float32)\n"
        "y = tp.vector_add(x, x)\n"
        "assert (y == 2 * x).all()\n"
        "print(type(triton.runtime.driver.active).__name__, triton.runtime.driver.active.arch)\n"
    )
    env = dict(os.environ, WAVEJIT_TRITON="gfx1201", PYTHONPATH=str(Path(__file__).parent))
    out = subprocess.run([sys.executable, str(prog)], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["WavejitDriver", "gfx1201"]
