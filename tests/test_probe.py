"""engine.probe: a path is tried in a child process on PoCL devices before this process takes
it; a child that aborts (as PoCL 5.0's compiler does on Louvain's one-group kernels) makes
the caller take another path, warns once, and is remembered per device and driver."""
import importlib
import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch.engine import probe, tuning

driver = importlib.import_module("pyclmatch.community.louvain")     # (monkeypatched below)


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    monkeypatch.setenv("PYCLMATCH_TUNING", str(tmp_path / "tuning.json"))
    monkeypatch.delenv(probe.IN_PROBE, raising=False)
    monkeypatch.setattr(probe, "_known", {})


def _pocl(device):
    if "portable computing language" not in device.device.platform.name.lower():
        pytest.skip("probes run on PoCL devices only")


def test_a_surviving_path_is_probed_once(device, fresh):
    _pocl(device)
    assert probe.survives(device, "trivial", "import sys; assert DEVICE")
    assert tuning.tuned_params(device, "probe") == {"trivial": True}
    probe._known.clear()               # (a new process: the stored answer is read)
    assert probe.survives(device, "trivial", "raise SystemExit(3)")


def test_an_aborting_child_sends_louvain_per_bucket(device, fresh, monkeypatch):
    _pocl(device)
    monkeypatch.setattr(driver, "ONE_GROUP_PROBE", "import os\nos.abort()")
    A = sp.csr_matrix(pyclmatch.generators.grid(16))
    S = ((A + A.T) > 0).astype(np.float64)
    with pytest.warns(RuntimeWarning, match="louvain one-group kernels.*failed"):
        # (a work-group of 32: the one-work-item kernels of the default need no probe)
        res = pyclmatch.louvain(S, device=device, work_group_size=32)
    assert res.counters.get("one_group_levels", 0) == 0
    assert tuning.tuned_params(device, "probe") == {"louvain one-group kernels": False}
    ref = pyclmatch.louvain(S, device=device, one_group_edges=0)
    assert res.modularity == pytest.approx(ref.modularity, abs=0.05)


def test_the_shipped_probe_answers_and_is_kept(device, fresh):
    """(True with CI's PoCL, whose tests of the one-group path then run; False with PoCL
    5.0, whose compiler aborts on those kernels.)"""
    _pocl(device)
    ok = driver.one_group_compiles(device)
    assert tuning.tuned_params(device, "probe") == {"louvain one-group kernels": ok}


def test_one_work_item_kernels_are_not_probed(device, fresh, monkeypatch):
    """The default one-group work-group of CPU devices is one work-item (no barriers left in
    the kernels): no child process, and the one-group path runs."""
    _pocl(device)
    if not device.is_cpu:
        pytest.skip("CPU devices only")
    monkeypatch.setattr(driver, "ONE_GROUP_PROBE", "import os\nos.abort()")
    A = sp.csr_matrix(pyclmatch.generators.grid(16))
    S = ((A + A.T) > 0).astype(np.float64)
    res = pyclmatch.louvain(S, device=device)
    assert res.counters["path"] == "one-group"
    assert tuning.tuned_params(device, "probe") == {}
