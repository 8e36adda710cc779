"""Measures the Python package: per-launch overhead, and the Triton programs next to numpy.

    python python/benchmarks/measure.py [--quick] [--target gfx942]

Run with the venv of scripts/setup_python.sh. Timings are medians of many runs
(``triton.testing.do_bench`` with the wavejit driver's host-clock events) and only printed;
every result is checked against numpy first.
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "python" / "tests"))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import wavejit  # noqa: E402


def per_call_us(f, seconds=1.0):
    """Medians over batches of the per-call wall time and process CPU time of ``f`` (us).

    CPU time counts every thread of the process; on a shared, loaded host it is the steadier
    of the two."""
    f()
    batch, wall, cpu = 100, [], []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(wall) < 5:
        t, c = time.perf_counter(), time.process_time()
        for _ in range(batch):
            f()
        wall.append((time.perf_counter() - t) / batch * 1e6)
        cpu.append((time.process_time() - c) / batch * 1e6)
    return statistics.median(wall), statistics.median(cpu)


def cpu_ms(f, runs=7):
    """Median process CPU time of one call of ``f`` in ms."""
    samples = []
    for _ in range(runs):
        c = time.process_time()
        f()
        samples.append((time.process_time() - c) * 1e3)
    return statistics.median(samples)


def launch_overhead(target, seconds):
    dev = wavejit.Device()
    vadd = dev.load_file(ROOT / "tests" / "kernels" / target / "vadd.hsaco").kernel("vadd")
    wave = vadd.wave_size
    small = [np.zeros(wave, np.float32) for _ in range(3)]
    bufs = [dev.to_device(x) for x in small]
    # n = 0: one wave that compares its index and ends (an "empty" kernel).
    rows = [
        ("null pointers, n=0", lambda: vadd(None, None, None, 0, grid=1, block=wave, threads=1)),
        ("device buffers, n=0", lambda: vadd(*bufs, 0, grid=1, block=wave, threads=1)),
        ("3 numpy arrays staged, n=0", lambda: vadd(*small, 0, grid=1, block=wave, threads=1)),
        (f"3 numpy arrays, n={wave} (one wave adds)", lambda: vadd(*small, wave, grid=1, block=wave, threads=1)),
    ]
    print(f"\nper-launch overhead through Python ({target} vadd, 1 workgroup of {wave}, threads=1)")
    print(f"  {'':42s} {'wall us':>8s} {'CPU us':>8s}")
    for name, f in rows:
        wall, cpu = per_call_us(f, seconds)
        print(f"  {name:42s} {wall:8.1f} {cpu:8.1f}")
    rep = vadd(None, None, None, 0, grid=1, block=wave, threads=1)
    print(f"  (the launch's own elapsed_ns for n=0: {rep['elapsed_ns'] / 1e3:.1f} us)")


def triton_rows(target, quick):
    import triton
    import triton_programs as tp

    import wavejit.triton

    wavejit.triton.activate(target)
    rng = np.random.default_rng(7)
    s = 4 if quick else 1
    n = (1 << 20) // s
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    x = rng.standard_normal((1024 // s, 1024), dtype=np.float32)
    w, bias = rng.standard_normal(1024, dtype=np.float32), rng.standard_normal(1024, dtype=np.float32)
    m = 512 // s
    ma = rng.integers(-4, 5, (m, m)).astype(np.float16)
    mb = rng.integers(-4, 5, (m, m)).astype(np.float16)
    ma32, mb32 = ma.astype(np.float32), mb.astype(np.float32)

    def np_softmax(v):
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def np_layer_norm(v):
        mu = v.mean(axis=1, keepdims=True)
        return (v - mu) / np.sqrt(v.var(axis=1, keepdims=True) + 1e-5) * w + bias

    rows = [
        (f"vector add f32 n={n}", lambda: tp.vector_add(a, b), lambda: a + b, 0),
        (f"softmax f32 {x.shape[0]}x{x.shape[1]}", lambda: tp.softmax(x), lambda: np_softmax(x), 1e-5),
        (f"layer norm f32 {x.shape[0]}x{x.shape[1]}", lambda: tp.layer_norm(x, w, bias)[0],
         lambda: np_layer_norm(x), 1e-4),
        (f"matmul f16->f32 {m}^3", lambda: tp.matmul(ma, mb), lambda: ma32 @ mb32, 0),
    ]
    print(f"\nTriton programs through the wavejit driver ({target}) next to numpy on the same host")
    print("  (do_bench: median wall ms; CPU: median process CPU ms per call, all threads)")
    print(f"  {'program':32s} {'wavejit ms':>11s} {'numpy ms':>10s} {'ratio':>7s}"
          f" {'wavejit CPU':>12s} {'numpy CPU':>10s}")
    for name, run, ref, tol in rows:
        got, want = run(), ref()
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        t_wj = triton.testing.do_bench(run, warmup=20, rep=300 if quick else 1000, return_mode="median")
        t_np = triton.testing.do_bench(ref, warmup=20, rep=300 if quick else 1000, return_mode="median")
        c_wj, c_np = cpu_ms(run), cpu_ms(ref)
        print(f"  {name:32s} {t_wj:11.3f} {t_np:10.3f} {t_wj / t_np:6.1f}x {c_wj:12.3f} {c_np:10.3f}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller sizes, shorter timing")
    p.add_argument("--target", default="gfx942")
    args = p.parse_args()
    print(f"host: {os.cpu_count()} CPUs; numpy {np.__version__}")
    launch_overhead(args.target, 0.3 if args.quick else 1.0)
    triton_rows(args.target, args.quick)


if __name__ == "__main__":
    main()
