"""The driver Triton's backend discovery finds (exactly one concrete DriverBase subclass)."""

from wavejit.triton.driver import WavejitDriver  # noqa: F401
