"""A Triton backend driver: ``@triton.jit`` kernels compile with Triton's AMD (HIP) backend for
an emulated GPU and run through wavejit on numpy arrays.

    import wavejit.triton
    wavejit.triton.activate("gfx942")      # or run with WAVEJIT_TRITON=gfx942 in the environment
    add_kernel[grid](x, y, out, n, BLOCK=1024)   # x, y, out: numpy arrays; out is written

Activate before the first launch of a kernel (Triton builds its per-device argument binder on
the first launch). Each target has its own device index, so kernels compiled for one target are
not reused for another.

Arguments: pointer parameters take numpy arrays (staged in wavejit's checked device memory for
the launch and copied back afterwards), other buffer-protocol objects, objects with
``__dlpack__`` on the CPU (such as PyTorch CPU tensors, through ``numpy.from_dlpack``),
``wavejit.Buffer`` or ``None``. Scalars follow the kernel's Triton signature. Launches are
synchronous. ``triton.testing.do_bench`` works: the driver's device interface times with the
host clock and its cache flush overwrites a buffer larger than the host's last-level cache.
"""

# Import Triton first: its backend discovery imports wavejit.triton.driver (the entry point
# in wavejit.triton.backend), which must not find this package half-initialised.
import triton  # noqa: F401, E402

from .driver import (  # noqa: E402
    ENV,
    FLUSH_BYTES,
    TARGETS,
    WavejitDriver,
    WavejitLauncher,
    activate,
)

__all__ = ["ENV", "FLUSH_BYTES", "TARGETS", "WavejitDriver", "WavejitLauncher", "activate"]
