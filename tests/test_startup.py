"""Fast first contact (issue 34): ``import pyclmatch`` and the command line load pyopencl,
mako, scipy and the families only when a call needs them; a call ``auto`` answers on the
host builds no OpenCL program. Each check runs in a fresh interpreter (``sys.modules`` is
the evidence, not a clock)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("pyopencl", "mako", "scipy", "pyclmatch.bipartite", "pyclmatch.weighted",
         "pyclmatch.community", "pyclmatch.engine.devices")


def _loaded(code):
    """The modules of :data:`HEAVY` that ``code`` left imported in a fresh interpreter."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_device_library():
    assert _loaded("import pyclmatch") == []


def test_public_names_load_on_first_use():
    assert _loaded("import pyclmatch\nassert 'louvain' in dir(pyclmatch)\n"
                   "from pyclmatch import InputError, PyclmatchError") == []
    assert "pyclmatch.community" in _loaded("from pyclmatch import louvain")


def test_every_public_name_resolves():
    import pyclmatch
    for name in pyclmatch.__all__:
        assert getattr(pyclmatch, name) is not None
    with pytest.raises(AttributeError):
        pyclmatch.no_such_name


@pytest.mark.parametrize("module", ["pyclmatch.engine.args", "pyclmatch.engine.tuning",
                                    "pyclmatch.engine.limits", "pyclmatch.cli"])
def test_leaf_modules_load_no_device_library(module):
    assert _loaded(f"import {module}") == []


def test_cli_parser_loads_no_family():
    assert _loaded("from pyclmatch.cli import build_parser\n"
                   "build_parser().parse_args(['match', 'A.mtx'])") == []
