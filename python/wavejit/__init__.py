"""wavejit: run AMD GPU code objects (gfx942, gfx950, gfx1100, gfx1200/gfx1201) on the host CPU.

    import numpy as np, wavejit
    dev = wavejit.Device()
    mod = dev.load_module(open("vadd.hsaco", "rb").read())
    vadd = mod.kernel("vadd")
    a, b = np.arange(1000, dtype=np.float32), np.ones(1000, np.float32)
    c = np.empty_like(a)
    report = vadd(a, b, c, 1000, grid=4, block=256)   # c is now a + b
    report["counters"]["valu"]                       # the `wavejit run --stats` counters

Arguments, in the kernel's argument order (``Kernel.args`` lists them):

* pointer arguments take any buffer-protocol object (numpy arrays, bytearray, bytes,
  memoryview, array.array): its bytes are copied to device memory before the launch and back
  after a successful launch when the object is writable. A strided view is staged as the whole
  byte range it spans; overlapping arguments (the same array twice, views of one array) share
  one device buffer. A ``wavejit.Buffer`` (``Device.alloc``, ``Device.to_device``) stays on the
  device and is passed as is; ``None`` is a null pointer.
* by-value arguments take ``wavejit.i32(v)``, ``u32``, ``i64``, ``u64``, ``f32``, ``f64``; or
  a plain ``int`` (two's complement in the argument's size from the code object's metadata:
  up to 4 bytes as i32, or u32 above i32's range; 8 bytes as i64, or u64); or a plain
  ``float`` (f32 for a 4-byte argument, f64 for an 8-byte one); or a numpy scalar whose size
  equals the argument's (its bytes are the value, e.g. ``np.float16(0.5)`` for a half).

``grid`` counts workgroups per dimension (HIP's gridDim), ``block`` is the workgroup size; each
is an int or a tuple of up to three ints. ``dynamic_lds`` adds dynamic LDS bytes, ``engine`` is
``"jit"`` (default) or ``"interp"``, ``threads`` the host threads (0: all).

Errors: ``LoadError`` (a code object that cannot be loaded), ``UsageError`` (bad names,
arguments, geometry), ``KernelFault`` (the kernel faulted; attributes ``kernel``,
``workgroup``, ``wave``, ``lane``, ``pc``, ``instruction``, ``cause``), all subclasses of
``WavejitError``. Device memory is checked: a kernel's wild access is a ``KernelFault``, never a
host crash.

``wavejit.triton`` is a Triton backend driver (``wavejit.triton.activate("gfx942")``).
"""

from ._wavejit import (  # noqa: F401
    Buffer,
    Device,
    Kernel,
    KernelFault,
    LoadError,
    Module,
    Scalar,
    UsageError,
    WavejitError,
    f32,
    f64,
    i32,
    i64,
    u32,
    u64,
)

__all__ = [
    "Buffer",
    "Device",
    "Kernel",
    "KernelFault",
    "LoadError",
    "Module",
    "Scalar",
    "UsageError",
    "WavejitError",
    "f32",
    "f64",
    "i32",
    "i64",
    "u32",
    "u64",
]
