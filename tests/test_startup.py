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


def test_host_answered_call_opens_no_device(tmp_path):
    """``auto`` on a graph that every candidate device's profile sends to the host family:
    no handle (context, queue) and no compiler check (a program build) in the process."""
    code = ("import json, scipy.sparse as sp, pyclmatch\n"
            "from pyclmatch.engine import devices\n"
            "res = pyclmatch.maximum_matching(sp.identity(50, format='csr'))\n"
            "print(json.dumps([res.algorithm, res.device, res.choice['rule'], res.cardinality,"
            " len(devices._handles), len(devices._probe_results)]))")
    env = dict(os.environ, PYCLMATCH_TUNING=str(tmp_path / "tuning.json"),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYCLMATCH_DEVICE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["host-hk", "host", 1, 50, 0, 0]


def test_host_choice_follows_the_tuning_cache(device):
    """The session's tuning entry turns host answers off for the test device
    (tests/conftest.py): no shortcut then, and the call runs on the device."""
    import scipy.sparse as sp
    import pyclmatch
    from pyclmatch.bipartite.choice import host_choice
    spec = "%d:%d" % device.index
    A = sp.identity(50, format="csr")
    assert host_choice(spec, A) is None
    res = pyclmatch.maximum_matching(A, device=spec)
    assert res.device != "host" and res.cardinality == 50


def test_candidates_are_the_devices_a_name_may_select(device):
    from pyclmatch.engine.devices import candidates, list_devices
    spec = "%d:%d" % device.index
    assert [info.index for info in candidates(spec)] == [device.index]
    assert {info.index for info in candidates("auto")} == {(p, d) for p, d, _ in list_devices()}
    assert candidates(device) is None and candidates("no such device") == []
    assert candidates(spec)[0].type == device.type
