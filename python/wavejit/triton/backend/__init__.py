"""Triton backend entry point (``triton.backends`` group): registers the wavejit driver, which
is active when ``WAVEJIT_TRITON`` names a target. Compilation stays with Triton's AMD backend."""
