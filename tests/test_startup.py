"""Fast first contact (issue 34): ``import pyclmatch`` and the command line load pyopencl,
mako and the device families only when a call needs them (numpy, scipy.sparse and its
csgraph and the host path of ``maximum_matching`` load with the package); a call ``auto``
answers on the host builds no OpenCL program and, once the device cache is written, loads no
pyopencl. Each check runs in a fresh interpreter (``sys.modules`` is the evidence, not a
clock)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEAVY = ("pyopencl", "mako", "pyclmatch.bipartite.apfb", "pyclmatch.bipartite.gpr",
         "pyclmatch.bipartite.ppf", "pyclmatch.bipartite.ptg", "pyclmatch.bipartite.konig",
         "pyclmatch.bipartite.device_path", "pyclmatch.bipartite.dmperm",
         "pyclmatch.weighted", "pyclmatch.community", "pyclmatch.engine.devices")
RAJAT01 = os.path.join(ROOT, "examples", "data", "rajat01.mtx.gz")


def _loaded(code, modules=HEAVY, **env):
    """The modules of ``modules`` that ``code`` left imported in a fresh interpreter
    (``env``: environment variables to set, None to remove)."""
    probe = (f"{code}\nimport sys, json\n"
             f"print(json.dumps([m for m in {tuple(modules)!r} if m in sys.modules]))")
    environ = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for k, v in env.items():
        if v is None:
            environ.pop(k, None)
        else:
            environ[k] = v
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=environ, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_loads_no_device_library():
    assert _loaded("import pyclmatch") == []


def test_import_loads_the_host_path():
    """The documented choice (pyclmatch's docstring): the host answer's libraries and
    modules load with the package, so that its first call waits for no import."""
    host = ("numpy", "scipy.sparse", "scipy.sparse.csgraph", "pyclmatch.bipartite.api",
            "pyclmatch.bipartite.host", "pyclmatch.bipartite.choice")
    assert _loaded("import pyclmatch", host) == list(host)


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
    env["PYCLMATCH_DEVICE"] = "cpu"    # (the CPU device, told to answer on the host:
                                        # _host_profile)
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


def _rajat01_on_host(tuning_file):
    """``import pyclmatch; read_graph(rajat01); maximum_matching(A)`` in a fresh process:
    (where it answered, its cardinality, the modules of :data:`HEAVY` it loaded)."""
    code = ("import json, pyclmatch\n"
            f"A = pyclmatch.read_graph({RAJAT01!r})\n"
            "res = pyclmatch.maximum_matching(A)\n"
            "print(json.dumps([res.device, res.algorithm, res.cardinality]))")
    env = dict(os.environ, PYCLMATCH_TUNING=str(tuning_file),
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env["PYCLMATCH_DEVICE"] = "cpu"    # (the CPU device, told to answer on the host:
                                        # _host_profile)
    probe = (f"{code}\nimport sys\n"
             f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-2]), json.loads(lines[-1])


def _host_profile(monkeypatch, tuning_file):
    """A tuning file whose entry makes the CPU device answer every graph on the host (a
    16-core CPU's or a GPU's own profile may send rajat01 to the device or race it)."""
    import pyclmatch
    from pyclmatch.engine import tuning
    monkeypatch.setenv("PYCLMATCH_TUNING", str(tuning_file))
    tuning.store(pyclmatch.get_device("cpu"), "auto", {"host_edges": 10 ** 9, "race_edges": 0})


def test_host_answer_loads_no_pyopencl_once_devices_are_cached(tmp_path, monkeypatch):
    """The first process enumerates the devices (pyopencl) and writes the device cache next
    to its tuning file; the next answers rajat01 on the host without pyopencl or mako, and
    with scipy's cardinality."""
    import scipy.sparse.csgraph as csgraph
    import pyclmatch
    A = pyclmatch.read_graph(RAJAT01)
    expected = int((csgraph.maximum_bipartite_matching(A.tocsr(), perm_type="column")
                    >= 0).sum())
    tuning_file = tmp_path / "tuning.json"
    _host_profile(monkeypatch, tuning_file)
    first, loaded = _rajat01_on_host(tuning_file)
    assert first == ["host", "host-hk", expected] and "pyopencl" in loaded
    assert (tmp_path / "tuning-devices.json").is_file()
    second, loaded = _rajat01_on_host(tuning_file)
    assert second == ["host", "host-hk", expected] and loaded == []


def test_cli_match_answers_on_the_host_without_pyopencl(tmp_path, monkeypatch):
    """``pyclmatch match rajat01`` once the device cache is written: the host family, no
    pyopencl."""
    tuning = str(tmp_path / "tuning.json")
    _host_profile(monkeypatch, tuning)
    run = ("import sys\nfrom pyclmatch.cli import main\n"
           f"sys.argv = ['pyclmatch', 'match', {RAJAT01!r}, '--json']\nmain()")
    _loaded(run, PYCLMATCH_TUNING=tuning, PYCLMATCH_DEVICE="cpu")
    assert _loaded(run, PYCLMATCH_TUNING=tuning, PYCLMATCH_DEVICE="cpu") == []



def test_device_cache_holds_the_facts_and_follows_the_tuning_cache(device):
    """``candidates`` writes every device's facts; ``host_choice`` then decides from them
    and the tuning cache (the session's entry keeps the test device's calls on it)."""
    import scipy.sparse as sp
    from pyclmatch.bipartite.choice import host_choice
    from pyclmatch.engine import catalog
    from pyclmatch.engine.devices import candidates, list_devices
    from pyclmatch.engine.tuning import device_key
    spec = "%d:%d" % device.index
    candidates("auto")
    cached = catalog.cached_facts()
    assert [f.index for f in cached] == [(p, d) for p, d, _ in list_devices()]
    (facts,) = catalog.cached_candidates(spec)
    assert (facts.index, facts.type, facts.compute_units) == (
        device.index, device.type, device.compute_units)
    assert device_key(facts) == device_key(device)
    assert host_choice(spec, sp.identity(50, format="csr")) is None


def test_device_cache_is_stale_when_the_loader_environment_changes(device, monkeypatch):
    from pyclmatch.engine import catalog
    from pyclmatch.engine.devices import candidates
    candidates("auto")
    assert catalog.cached_facts() is not None
    monkeypatch.setenv("POCL_DEVICES", "pthread pthread")
    assert catalog.cached_facts() is None and catalog.cached_candidates("auto") is None
    monkeypatch.delenv("POCL_DEVICES")
    assert catalog.cached_facts() is not None


def test_device_cache_off_missing_or_corrupt(tmp_path, monkeypatch):
    from pyclmatch.engine import catalog
    facts = [catalog.DeviceFacts((0, 0), "x", "y", ["cpu"], 2, "1")]
    monkeypatch.setenv("PYCLMATCH_TUNING", "off")
    catalog.remember(facts)
    assert catalog.cache_file() is None and catalog.cached_facts() is None
    monkeypatch.setenv("PYCLMATCH_TUNING", str(tmp_path / "t.json"))
    assert catalog.cache_file() == str(tmp_path / "t-devices.json")
    assert catalog.cached_facts() is None
    catalog.remember(facts)
    assert [f.to_json() for f in catalog.cached_facts()] == [facts[0].to_json()]
    (tmp_path / "t-devices.json").write_text("{not json")
    assert catalog.cached_facts() is None
