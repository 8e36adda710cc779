"""The compiler half of wavejit's Triton backend entry: a backend that supports no target.

Triton pairs every backend entry with a compiler; wavejit compiles with Triton's own AMD (HIP)
backend, so this one never claims a target and ``make_backend`` picks the AMD one.
"""

from triton.backends.compiler import BaseBackend


class WavejitNoCompiler(BaseBackend):
    """Never selected: ``supports_target`` is always false."""

    @staticmethod
    def supports_target(target) -> bool:
        return False

    def hash(self) -> str:
        return "wavejit-no-compiler"

    def parse_options(self, options):
        raise NotImplementedError("wavejit compiles with Triton's AMD backend")

    def add_stages(self, stages, options, language):
        raise NotImplementedError("wavejit compiles with Triton's AMD backend")

    def load_dialects(self, context):
        raise NotImplementedError("wavejit compiles with Triton's AMD backend")

    def get_module_map(self):
        return {}
