"""Mock-GPU dispatches through run_asm / run_asm2: code bytes at an arbitrary host address,
kernarg and buffers in host memory, the dispatch registers from the kernel descriptor."""

import numpy as np
import pytest

import wavejit
from conftest import TARGETS, code_object, poisoned


def placed(code: bytes, shift: int):
    """The code at an arbitrary (4-byte aligned) host address inside a larger buffer."""
    buf = bytearray(len(code) + 4 * shift + 64)
    buf[4 * shift:4 * shift + len(code)] = code
    return memoryview(buf)[4 * shift:4 * shift + len(code)]


def vadd_case(target, rng, n=1000, block=256):
    k = wavejit.Device().load_module(code_object(target, "vadd")).kernel("vadd")
    a = rng.standard_normal(n + 64, dtype=np.float32)
    b = rng.standard_normal(n + 64, dtype=np.float32)
    c = poisoned(n + 64)
    grid = (n + block - 1) // block
    kernarg = np.frombuffer(bytearray(k.kernarg([a, b, c, n], grid=grid, block=block)), np.uint8)
    return k, a, b, c, kernarg, grid


@pytest.mark.parametrize("target", TARGETS)
def test_run_asm2_replays_a_dispatch_from_the_descriptor(target, rng):
    n, block = 1000, 256
    k, a, b, c, kernarg, grid = vadd_case(target, rng, n, block)
    rsrc1, rsrc2, rsrc3 = k.rsrc
    rep = wavejit.run_asm2(placed(k.code, 3), grid, 1, 1, block, 1, 1, kernarg, rsrc2, 0, target,
                           memory=[a, b, c], rsrc1=rsrc1, rsrc3=rsrc3)
    np.testing.assert_array_equal(c[:n], a[:n] + b[:n])
    assert (c[n:].view(np.uint8) == 0xA5).all()
    assert rep["workgroups"] == grid


def test_run_asm_has_remus_conventions(rng):
    n, block = 777, 128
    k, a, b, c, kernarg, grid = vadd_case("gfx1100", rng, n, block)
    wavejit.run_asm(placed(k.code, 1), grid, 1, 1, block, 1, 1, kernarg, memory=[a, b, c])
    np.testing.assert_array_equal(c[:n], a[:n] + b[:n])


def test_same_bytes_at_two_addresses_and_two_kernels_at_one_address(rng):
    n = 500
    for shift in (0, 9):
        k, a, b, c, kernarg, grid = vadd_case("gfx1100", rng, n, 64)
        wavejit.run_asm(placed(k.code, shift), grid, 1, 1, 64, 1, 1, kernarg, memory=[a, b, c])
        np.testing.assert_array_equal(c[:n], a[:n] + b[:n])
    # vadd, then saxpy's code in the same buffer (same address).
    mod = wavejit.Device().load_module(code_object("gfx1100", "vadd"))
    vadd, saxpy = mod.kernel("vadd"), mod.kernel("saxpy")
    size = max(len(vadd.code), len(saxpy.code))
    buf = bytearray(size)
    buf[:len(vadd.code)] = vadd.code
    k, a, b, c, kernarg, grid = vadd_case("gfx1100", rng, n, 64)
    wavejit.run_asm(buf, grid, 1, 1, 64, 1, 1, kernarg, memory=[a, b, c])
    np.testing.assert_array_equal(c[:n], a[:n] + b[:n])
    buf[:] = bytes(size)
    buf[:len(saxpy.code)] = saxpy.code
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    y0 = y.copy()
    ka = np.frombuffer(bytearray(saxpy.kernarg([2.0, x, y, n], grid=grid, block=64)), np.uint8)
    wavejit.run_asm(buf, grid, 1, 1, 64, 1, 1, ka, memory=[x, y])
    want = (2.0 * x.astype(np.float64) + y0.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(y, want)


def test_undefined_code_raises_and_the_process_lives_on():
    words = np.full(4, 0xFFFFFFFF, np.uint32).tobytes()
    args = np.zeros(2, np.uint64)
    with pytest.raises(wavejit.KernelFault) as info:
        wavejit.run_asm(words, 1, 1, 1, 32, 1, 1, args)
    e = info.value
    assert e.kernel == "run_asm" and e.pc == 0 and e.wave == 0
    assert "FFFFFFFF" in e.instruction, e.instruction


def test_unregistered_memory_is_a_fault_not_a_host_write(rng):
    n = 256
    k, a, b, c, kernarg, grid = vadd_case("gfx1100", rng, n, 64)
    with pytest.raises(wavejit.KernelFault) as info:
        wavejit.run_asm(k.code, grid, 1, 1, 64, 1, 1, kernarg, memory=[a, b])  # c not listed
    assert "store" in info.value.instruction, info.value.instruction
    assert (c.view(np.uint8) == 0xA5).all()


def test_bad_raw_arguments_raise_usage_errors(rng):
    k, a, b, c, kernarg, grid = vadd_case("gfx1100", rng, 64, 64)
    with pytest.raises(wavejit.UsageError, match="arch"):
        wavejit.run_asm2(k.code, 1, 1, 1, 64, 1, 1, kernarg, k.rsrc[1], 0, "gfx90a", memory=[a, b, c])
    with pytest.raises(wavejit.UsageError, match="writable"):
        wavejit.run_asm(k.code, 1, 1, 1, 64, 1, 1, kernarg, memory=[bytes(16)])
    with pytest.raises(wavejit.UsageError, match="lib"):
        wavejit.run_asm(5, 1, 1, 1, 64, 1, 1, kernarg)
    with pytest.raises(wavejit.UsageError, match="engine"):
        wavejit.run_asm(k.code, 1, 1, 1, 64, 1, 1, kernarg, engine="gpu")
