"""The wavejit Triton driver (see the package docs of ``wavejit.triton``).

Importable while Triton itself is being imported (its backend discovery imports this module
through the ``triton.backends`` entry point): it touches only ``triton.backends.*`` at import
time, and the rest of ``triton`` when called.
"""


from __future__ import annotations

import os
import time

import numpy as np
import triton
from triton.backends.compiler import GPUTarget
from triton.backends.driver import DriverBase

import wavejit

# Targets Triton's AMD backend compiles for and wavejit runs, with their wave size.
TARGETS = {"gfx942": 64, "gfx950": 64, "gfx1100": 32, "gfx1200": 32, "gfx1201": 32}
# LDS per workgroup (bytes): 160 KiB on CDNA4, 64 KiB elsewhere.
_MAX_LDS = {"gfx950": 163840}
# do_bench's cache flush buffer (bytes): larger than a host last-level cache slice.
FLUSH_BYTES = 64 << 20
# Environment variable that activates the driver through Triton's backend discovery.
ENV = "WAVEJIT_TRITON"

_specialization_installed = False
# One driver (and wavejit device) per target: the kernels Triton caches for a target's device
# index stay loaded in that driver's device.
_drivers: dict[str, "WavejitDriver"] = {}


def activate(arch: str | None = None, *, engine: str = "jit", threads: int = 0) -> "WavejitDriver":
    """Makes wavejit Triton's active driver for ``arch`` (default ``$WAVEJIT_TRITON`` or gfx942).

    ``engine`` ("jit" or "interp") and ``threads`` (host threads, 0: all) apply to later launches.
    """
    arch = arch or os.environ.get(ENV) or "gfx942"
    drv = _drivers.get(arch) or WavejitDriver(arch)
    drv.configure(engine=engine, threads=threads)
    triton.runtime.driver.set_active(drv)
    return drv


def _install_numpy_specialization():
    """Lets Triton's argument specialization accept numpy arrays.

    Triton specializes a pointer argument through ``native_specialize_impl``, which knows
    tensors (objects with ``data_ptr()`` and ``dtype``) but not numpy arrays. The binder each
    JIT function builds on its first launch looks the function up in ``triton.runtime.jit``;
    this wraps it so a numpy array is presented as such a tensor (same dtype, its data
    pointer, its byte range).
    """
    global _specialization_installed
    if _specialization_installed:
        return
    from triton.runtime import jit

    native = jit.native_specialize_impl
    ndarray = np.ndarray

    def specialize(backend, arg, is_const=False, specialize_value=True, align=True):
        if isinstance(arg, ndarray):
            arg = _ArrayView(arg)
        return native(backend, arg, is_const, specialize_value, align)

    jit.native_specialize_impl = specialize
    _specialization_installed = True


class _ArrayView:
    """A numpy array as Triton's specialization sees a tensor."""

    __slots__ = ("dtype", "_ptr", "_range")

    def __init__(self, a: np.ndarray):
        self.dtype = a.dtype
        self._ptr = a.__array_interface__["data"][0]
        self._range = a.nbytes

    def data_ptr(self) -> int:
        return self._ptr

    def ptr_range(self) -> int:
        # The AMD backend marks pointers into < 2 GiB objects for buffer instructions.
        return self._range


def _pointer(v):
    if v is None or isinstance(v, (np.ndarray, wavejit.Buffer)):
        return v
    try:
        memoryview(v).release()
        return v
    except TypeError:
        pass
    if hasattr(v, "__dlpack__"):
        return np.from_dlpack(v)
    raise wavejit.UsageError(
        f"a Triton pointer argument takes a numpy array, a buffer-protocol object, a "
        f"wavejit.Buffer or None, not {type(v).__name__}")


def _bf16_bits(v) -> np.uint16:
    """The bfloat16 bits of ``v`` (round to nearest even), as a 2-byte numpy scalar."""
    b = int(np.array(v, dtype=np.float32).view(np.uint32))
    if (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF):
        return np.uint16((b >> 16) | 0x40)  # NaN stays NaN
    b += 0x7FFF + ((b >> 16) & 1)
    return np.uint16((b >> 16) & 0xFFFF)


def _converter(ty: str):
    """How a Python value becomes the kernel argument of Triton type ``ty``."""
    if ty.startswith("*"):
        return _pointer
    if ty in ("i1", "u1"):
        return lambda v: int(bool(v))
    if ty in ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"):
        return int
    if ty in ("fp32", "f32", "fp64"):
        return float
    if ty == "fp16":
        return np.float16
    if ty == "bf16":
        return _bf16_bits
    return None


def _flatten(sig, vals, out_types, out_vals):
    for ty, v in zip(sig, vals):
        if isinstance(ty, tuple):
            _flatten(ty, v, out_types, out_vals)
        else:
            out_types.append(ty)
            out_vals.append(v)


class WavejitLauncher:
    """Triton's launcher for one compiled kernel: packs the arguments from the kernel's
    signature and launches it through wavejit."""

    def __init__(self, src, metadata):
        drv = triton.runtime.driver.active
        if not isinstance(drv, WavejitDriver):
            raise wavejit.UsageError("the wavejit launcher needs the wavejit driver active")
        self.driver = drv
        if getattr(metadata, "tensordesc_meta", None):
            raise wavejit.UsageError("tensor descriptors are not supported by the wavejit driver")
        self.signature = tuple(src.signature.values())
        self.nested = any(isinstance(t, tuple) for t in self.signature)
        flat = []
        _flatten(self.signature, self.signature, flat, [])
        self.converters = []
        for ty in flat:
            if ty == "constexpr":
                self.converters.append(None)
                continue
            conv = _converter(ty)
            if conv is None:
                raise wavejit.UsageError(f"Triton argument type {ty!r} is not supported by the wavejit driver")
            self.converters.append(conv)
        self.block = metadata.num_warps * metadata.warp_size
        self.shared = metadata.shared
        self.global_scratch = getattr(metadata, "global_scratch_size", 0) or 0

    def __call__(self, gridX, gridY, gridZ, stream, function, kernel_metadata, launch_metadata,
                 launch_enter_hook, launch_exit_hook, *args):
        if self.nested:
            types, vals = [], []
            _flatten(self.signature, args, types, vals)
            args = vals
        kargs = [conv(v) for conv, v in zip(self.converters, args) if conv is not None]
        grid = (gridX, gridY, gridZ)
        if 0 in grid:
            return
        scratch = None
        if self.global_scratch > 0:
            scratch = self.driver.device.alloc(gridX * gridY * gridZ * self.global_scratch)
        # Triton appends the global and profile scratch pointers to every kernel.
        kargs.append(scratch)
        kargs.append(None)
        if launch_enter_hook is not None:
            launch_enter_hook(launch_metadata)
        self.driver.last_report = function.launch(kargs, grid=grid, block=self.block,
                                                  dynamic_lds=self.shared, engine=self.driver.engine,
                                                  threads=self.driver.threads)
        if launch_exit_hook is not None:
            launch_exit_hook(launch_metadata)


class _Utils:
    """``driver.utils``: loading code objects and device properties."""

    def __init__(self, drv: "WavejitDriver"):
        self.driver = drv

    def load_binary(self, name, kernel, shared, device):
        module = self.driver.device.load_module(kernel)
        function = module.kernel(name)
        return module, function, 0, 0, function.max_block_size

    def unload_module(self, module):
        pass  # freed with the module object

    def get_device_properties(self, device):
        d = self.driver
        return {
            "arch": d.arch,
            "warpSize": d.wave_size,
            "max_shared_mem": _MAX_LDS.get(d.arch, 65536),
            "multiprocessor_count": os.cpu_count() or 1,
            "cooperativeLaunch": False,
        }


class _Event:
    """A timing event on the host clock (launches are synchronous)."""

    def __init__(self, enable_timing: bool = True):
        self.t = None

    def record(self, stream=None):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end: "_Event") -> float:
        """Milliseconds from this event to ``end``."""
        return (end.t - self.t) * 1e3


class _DeviceInterface:
    """The subset of ``torch.cuda`` Triton's benchmarking uses."""

    Event = _Event

    @staticmethod
    def synchronize(device=None):
        pass

    @staticmethod
    def current_device():
        return 0

    @staticmethod
    def device_count():
        return 1


class WavejitDriver(DriverBase):
    """Triton driver running kernels on a wavejit device (see the module docs)."""

    def __init__(self, arch: str | None = None, *, engine: str = "jit", threads: int = 0):
        super().__init__()
        arch = arch or os.environ.get(ENV) or "gfx942"
        if arch not in TARGETS:
            raise wavejit.UsageError(f"unknown target {arch!r}; the wavejit Triton driver runs {', '.join(TARGETS)}")
        self.arch = arch
        self.wave_size = TARGETS[arch]
        self.configure(engine=engine, threads=threads)
        self.target = GPUTarget("hip", arch, self.wave_size)
        # Triton caches compiled kernels per device index: one index per target.
        self.device_index = list(TARGETS).index(arch)
        self.device = wavejit.Device()
        self.utils = _Utils(self)
        self.launcher_cls = WavejitLauncher
        # The report (a dict) of the latest launch through this driver.
        self.last_report = None
        _install_numpy_specialization()
        _drivers.setdefault(arch, self)

    def configure(self, *, engine: str = "jit", threads: int = 0):
        """Sets the engine ("jit" or "interp") and host threads (0: all) of later launches."""
        if engine not in ("jit", "interp"):
            raise wavejit.UsageError(f'engine must be "jit" or "interp", not {engine!r}')
        self.engine = engine
        self.threads = threads

    @classmethod
    def is_active(cls) -> bool:
        return bool(os.environ.get(ENV))

    def map_python_to_cpp_type(self, ty: str) -> str:
        from triton.backends.amd.driver import ty_to_cpp

        return ty_to_cpp(ty)

    def get_current_target(self):
        return self.target

    def get_current_device(self) -> int:
        return self.device_index

    def set_current_device(self, device: int):
        if device != self.device_index:
            raise wavejit.UsageError(f"the wavejit driver has one device ({self.device_index})")

    def get_current_stream(self, device=None) -> int:
        return 0

    def get_active_torch_device(self):
        try:
            import torch
        except ImportError:
            return "cpu"
        return torch.device("cpu")

    def get_device_interface(self):
        return _DeviceInterface

    def get_benchmarker(self):
        from triton.testing import do_bench

        return do_bench

    def get_empty_cache_for_benchmark(self):
        return np.empty(FLUSH_BYTES // 4, dtype=np.int32)

    def clear_cache(self, cache):
        cache.fill(0)

    def allocate_default_profile_scratch(self, size: int, alignment: int, stream):
        return None
