"""Runs the corpus vector add (a HIP kernel built for gfx942) from Python and checks it.

    python examples/python/vadd.py        (with the venv of scripts/setup_python.sh)
"""

from pathlib import Path

import numpy as np

import wavejit

root = Path(__file__).resolve().parents[2]
dev = wavejit.Device()
module = dev.load_file(root / "tests" / "kernels" / "gfx942" / "vadd.hsaco")
print(module, module.kernel("vadd").args)

n = 10_000
a = np.linspace(-1, 1, n, dtype=np.float32)
b = np.full(n, 0.5, dtype=np.float32)
c = np.empty_like(a)
report = module.kernel("vadd")(a, b, c, n, grid=(n + 255) // 256, block=256)
assert (c == a + b).all()
print(f"vadd of {n} floats: {report['waves']} waves, "
      f"{sum(report['counters'][k] for k in ('salu', 'valu', 'smem', 'vmem', 'lds', 'control', 'matrix'))} "
      f"wave instructions, {report['elapsed_ns'] / 1e3:.0f} us")

# A kernel that reads past its buffers faults with a report instead of touching host memory.
try:
    module.kernel("vadd")(a[:64], b[:64], c[:64], n, grid=4, block=256)
except wavejit.KernelFault as e:
    print(f"fault in workgroup {e.workgroup} wave {e.wave} lane {e.lane}: {e.instruction}: {e.cause}")
