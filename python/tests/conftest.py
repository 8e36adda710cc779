"""Shared fixtures: the repository's kernel corpus (tests/kernels/) and seeded random data."""

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest

# Triton (test_triton.py): a fresh kernel cache per session, so every run compiles what it
# launches; FP fusion on, as Triton 3.9 defaults to (set explicitly to silence its warning).
_TRITON_CACHE = None
if "TRITON_CACHE_DIR" not in os.environ:
    _TRITON_CACHE = tempfile.mkdtemp(prefix="wavejit-pytest-triton-")
    os.environ["TRITON_CACHE_DIR"] = _TRITON_CACHE
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "tests" / "kernels"
# The HIP targets the package tests run on (HIP-built code objects in tests/kernels/<target>/).
TARGETS = ["gfx942", "gfx950", "gfx1100", "gfx1201"]


def code_object(target: str, name: str) -> bytes:
    return (KERNELS / target / f"{name}.hsaco").read_bytes()


@pytest.fixture
def rng():
    return np.random.default_rng(20261128)


def poisoned(n: int, dtype=np.float32) -> np.ndarray:
    """An array filled with the byte 0xA5 (a value no test result has)."""
    return np.full(n * np.dtype(dtype).itemsize, 0xA5, dtype=np.uint8).view(dtype)


def pytest_sessionfinish(session, exitstatus):
    if _TRITON_CACHE:
        shutil.rmtree(_TRITON_CACHE, ignore_errors=True)
