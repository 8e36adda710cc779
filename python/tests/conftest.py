"""Shared fixtures: the repository's kernel corpus (tests/kernels/) and seeded random data."""

from pathlib import Path

import numpy as np
import pytest

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
