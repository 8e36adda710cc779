"""The wavejit package on the HIP corpus kernels (tests/kernels/<target>/), against numpy."""

import array
import threading

import numpy as np
import pytest

import wavejit
from conftest import TARGETS, code_object, poisoned

WAVE = {"gfx942": 64, "gfx950": 64, "gfx1100": 32, "gfx1201": 32}


def load(target, name):
    dev = wavejit.Device()
    return dev, dev.load_module(code_object(target, name))


@pytest.mark.parametrize("target", TARGETS)
def test_vadd_matches_numpy_and_leaves_the_tail_alone(target, rng):
    _, mod = load(target, "vadd")
    assert mod.kernel_names == ["vadd", "saxpy"]
    assert mod.gpu == target
    vadd = mod.kernel("vadd")
    n = 1000  # not a multiple of the block: the last workgroup is partly masked
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c = poisoned(n + 24)
    rep = vadd(a, b, c, n, grid=4, block=256)
    np.testing.assert_array_equal(c[:n], a + b)
    assert (c[n:].view(np.uint8) == 0xA5).all(), "wrote past n"
    assert rep["kernel"] == "vadd"
    assert rep["grid"] == [4, 1, 1] and rep["block"] == [256, 1, 1]
    assert rep["workgroups"] == 4
    assert rep["waves"] == 4 * (256 // WAVE[target])
    assert rep["engine"] == "jit"
    assert rep["counters"]["valu"] > 0 and rep["counters"]["vmem"] > 0
    assert set(rep["translation"]) >= {"blocks_lifted", "blocks_compiled", "cache_hits"}


@pytest.mark.parametrize("target", TARGETS)
def test_saxpy_takes_typed_inferred_and_numpy_scalars(target, rng):
    _, mod = load(target, "vadd")
    saxpy = mod.kernel("saxpy")
    assert [a["kind"] for a in saxpy.args] == ["value", "buffer", "buffer", "value"]
    n = 300
    x = rng.standard_normal(n, dtype=np.float32)
    y0 = rng.standard_normal(n, dtype=np.float32)
    for alpha, count in [(wavejit.f32(1.5), wavejit.u32(n)), (1.5, n), (np.float32(1.5), np.uint32(n))]:
        y = y0.copy()
        saxpy.launch([alpha, x, y, count], grid=(5,), block=(64,))
        # HIP contracts alpha * x + y into one fma: compute the reference in f64, round once.
        want = (np.float64(1.5) * x.astype(np.float64) + y0.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("target", TARGETS)
def test_engines_agree_and_counters_are_deterministic(target, rng):
    _, mod = load(target, "vadd")
    vadd = mod.kernel("vadd")
    n = 777
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    c_jit, c_int = poisoned(n), poisoned(n)
    r_jit = vadd(a, b, c_jit, n, grid=13, block=64, engine="jit", threads=2)
    r_int = vadd(a, b, c_int, n, grid=13, block=64, engine="interp", threads=1)
    np.testing.assert_array_equal(c_jit, a + b)
    np.testing.assert_array_equal(c_int, a + b)
    assert r_int["engine"] == "interp"
    assert r_jit["counters"] == r_int["counters"]
    assert r_jit["waves"] == r_int["waves"] == 13 * (64 // WAVE[target])


@pytest.mark.parametrize("target", TARGETS)
def test_index2d_with_a_2d_grid_and_partial_edges(target, rng):
    _, mod = load(target, "indexing")
    k = mod.kernel("index2d")
    w, h = 37, 19
    inp = rng.integers(0, 1 << 20, size=(h, w), dtype=np.uint32)
    out = poisoned(w * h, np.uint32).reshape(h, w)
    k(inp, out, w, h, grid=(5, 3), block=(8, 8))
    y, x = np.mgrid[0:h, 0:w].astype(np.uint32)
    np.testing.assert_array_equal(out, inp * np.uint32(3) + (x << np.uint32(16)) + y)


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_lds(target, rng):
    _, mod = load(target, "dynlds")
    k = mod.kernel("dyn_lds_reverse")
    bs, groups = 128, 3
    inp = rng.integers(0, 1 << 30, size=bs * groups, dtype=np.uint32)
    out = poisoned(bs * groups, np.uint32)
    k(inp, out, grid=groups, block=bs, dynamic_lds=bs * 4)
    t = np.arange(bs, dtype=np.uint32)
    want = np.concatenate([inp[g * bs:(g + 1) * bs][::-1] + (t % 64) * 3 + g for g in range(groups)])
    np.testing.assert_array_equal(out, want.astype(np.uint32))


def test_other_buffer_protocol_objects_and_read_only_inputs():
    _, mod = load("gfx942", "vadd")
    vadd = mod.kernel("vadd")
    n = 64
    a = array.array("f", [i * 0.5 for i in range(n)])
    b = bytes(np.arange(n, dtype=np.float32).tobytes())  # read-only: staged, never written back
    c = bytearray(b"\xa5" * (4 * n))
    vadd(a, b, memoryview(c), n, grid=1, block=64)
    got = np.frombuffer(c, dtype=np.float32)
    np.testing.assert_array_equal(got, np.array(a, dtype=np.float32) + np.arange(n, dtype=np.float32))
    ro = np.arange(n, dtype=np.float32)
    ro.flags.writeable = False
    out = poisoned(n)
    vadd(ro, ro, out, n, grid=1, block=64)
    np.testing.assert_array_equal(out, 2 * np.arange(n, dtype=np.float32))


def test_aliased_arguments_share_one_device_buffer(rng):
    _, mod = load("gfx942", "vadd")
    vadd = mod.kernel("vadd")
    n = 500
    c = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    want = c + b
    vadd(c, b, c, n, grid=8, block=64)  # in place: c += b
    np.testing.assert_array_equal(c, want)
    # Overlapping views of one array, in one wave (its loads all precede its store):
    # x[i] = x[i + 1] + x[i] for i < 63, read and written through one device buffer.
    x = rng.standard_normal(64, dtype=np.float32)
    want = x.copy()
    want[:-1] = x[1:] + x[:-1]
    vadd(x[1:], x[:-1], x[:-1], 63, grid=1, block=64)
    np.testing.assert_array_equal(x, want)


def test_strided_views_pass_their_first_element_and_span():
    _, mod = load("gfx942", "vadd")
    vadd = mod.kernel("vadd")
    base = np.arange(64, dtype=np.float32)
    out = poisoned(32)
    # A view with stride 2: the kernel gets a pointer to its first element and indexes
    # memory contiguously, as a GPU kernel given the view's data pointer would.
    vadd(base[::2], np.zeros(32, np.float32), out, 32, grid=1, block=64)
    np.testing.assert_array_equal(out, base[:32])
    # A reversed view points at the span's last element: reading forward leaves the staged
    # span, which is a fault, not a host read.
    with pytest.raises(wavejit.KernelFault):
        vadd(base[::-1], base, out, 32, grid=1, block=64)


def test_device_buffers_stay_on_the_device(rng):
    dev, mod = load("gfx1100", "vadd")
    vadd = mod.kernel("vadd")
    n = 256
    a = rng.standard_normal(n, dtype=np.float32)
    da = dev.to_device(a)
    dc = dev.alloc(4 * n)
    assert da.nbytes == dc.nbytes == 4 * n
    vadd(da, da, dc, n, grid=8, block=32)
    vadd(dc, da, dc, n, grid=8, block=32)  # dc = 3a, computed on the device
    out = np.empty(n, np.float32)
    dc.copy_to(out)
    np.testing.assert_array_equal(out, (a + a) + a)
    assert dc.read() == out.tobytes()
    dc.write(np.ones(n, np.float32))
    dc.copy_to(out)
    assert (out == 1).all()


def test_launches_from_several_python_threads(rng):
    _, mod = load("gfx942", "vadd")
    vadd = mod.kernel("vadd")
    n = 4096
    inputs = [(rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32))
              for _ in range(4)]
    outs = [poisoned(n) for _ in range(4)]
    errors = []

    def run(i):
        try:
            for _ in range(5):
                vadd(*inputs[i], outs[i], n, grid=16, block=256, threads=1)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for (a, b), c in zip(inputs, outs):
        np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize("target", TARGETS)
def test_out_of_bounds_launch_raises_a_kernel_fault_with_fields(target):
    _, mod = load(target, "vadd")
    vadd = mod.kernel("vadd")
    a = np.ones(64, np.float32)
    c = poisoned(64)
    with pytest.raises(wavejit.KernelFault) as info:
        vadd(a, a, c, 4096, grid=16, block=256)  # n far beyond the 64-element buffers
    e = info.value
    assert isinstance(e, wavejit.WavejitError)
    assert str(e).startswith("kernel vadd faulted in workgroup (")
    assert e.kernel == "vadd"
    assert isinstance(e.workgroup, tuple) and len(e.workgroup) == 3
    assert all(isinstance(x, int) for x in e.workgroup)
    assert str(e).startswith(f"kernel vadd faulted in workgroup ({e.workgroup[0]},{e.workgroup[1]},{e.workgroup[2]}) wave {e.wave}")
    assert isinstance(e.wave, int)
    assert e.lane is None or 0 <= e.lane < WAVE[target]
    assert isinstance(e.pc, int) and e.pc > 0
    assert "load" in e.instruction or "store" in e.instruction, e.instruction
    assert "out-of-range" in e.cause or "out of range" in e.cause, e.cause
    # Outputs are not copied back after a fault; the device survives and runs the next launch.
    assert (c.view(np.uint8) == 0xA5).all()
    vadd(a, a, c, 64, grid=1, block=64)
    assert (c == 2).all()


def test_bad_code_objects_raise_load_errors():
    dev = wavejit.Device()
    with pytest.raises(wavejit.LoadError):
        dev.load_module(b"not an elf at all")
    with pytest.raises(wavejit.LoadError):
        dev.load_module(code_object("gfx942", "vadd")[:100])
    with pytest.raises(wavejit.LoadError):
        dev.load_module(bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8)))
    with pytest.raises(wavejit.LoadError):
        dev.load_file("/nonexistent/k.hsaco")
    with pytest.raises(wavejit.UsageError):
        dev.load_module(12345)


def test_bad_launches_raise_usage_errors():
    dev, mod = load("gfx942", "vadd")
    with pytest.raises(wavejit.UsageError, match="vadd, saxpy"):
        mod.kernel("vsub")
    vadd = mod.kernel("vadd")
    a = np.ones(64, np.float32)
    cases = [
        (lambda: vadd(a, a, a, grid=1, block=64), "expects 4 arguments"),
        (lambda: vadd(a, a, a, 64, 1, grid=1, block=64), "expects 4 arguments"),
        (lambda: vadd("a", a, a, 64, grid=1, block=64), "pointer"),
        (lambda: vadd(a, a, a, a, grid=1, block=64), "4-byte value"),
        (lambda: vadd(a, a, a, 1 << 40, grid=1, block=64), "does not fit"),
        (lambda: vadd(a, a, a, np.int64(64), grid=1, block=64), "4-byte value"),
        (lambda: vadd(a, a, a, 64, grid=-1, block=64), "grid"),
        (lambda: vadd(a, a, a, 64, grid=(1, 1, 1, 1), block=64), "grid"),
        (lambda: vadd(a, a, a, 64, grid=1, block="x"), "block"),
        (lambda: vadd(a, a, a, 64, grid=1, block=64, engine="gpu"), "engine"),
        (lambda: vadd(a, a, a, 64, grid=1, block=100000), "exceeds the kernel's maximum"),
        (lambda: vadd(a, a, a, 64, grid=0, block=64), "at least 1"),
        (lambda: vadd.launch(5, grid=1, block=64), "sequence"),
        (lambda: wavejit.i32(1 << 31), "does not fit"),
        (lambda: wavejit.u32(-1), "does not fit"),
        (lambda: wavejit.f32("x"), "number"),
    ]
    for f, text in cases:
        with pytest.raises(wavejit.UsageError, match=text):
            f()
    assert repr(wavejit.i32(-5)) == "wavejit.i32(-5)"
    assert wavejit.f32(0.1).value == float(np.float32(0.1))


def test_null_pointer_arguments_fault_cleanly():
    _, mod = load("gfx942", "vadd")
    vadd = mod.kernel("vadd")
    a = np.ones(64, np.float32)
    with pytest.raises(wavejit.KernelFault):
        vadd(None, a, a, 64, grid=1, block=64)
