"""The Python examples (examples/python/) run and check their own results."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.parametrize("script,args", [("vadd.py", []), ("triton_softmax.py", ["gfx1201"])])
def test_example_runs(script, args):
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / script), *args],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
