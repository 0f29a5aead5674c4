"""The per-user tuning cache and its use as maximum_matching defaults."""
import json
import os

import pytest

import pyclmatch
from pyclmatch import generators
from pyclmatch.engine import tuning


@pytest.fixture
def cache(tmp_path, monkeypatch):
    path = tmp_path / "tuning.json"
    monkeypatch.setenv("PYCLMATCH_TUNING", str(path))
    return path


def test_store_and_read(cache):
    h = pyclmatch.get_device("cpu")
    assert tuning.tuned_params(h, "bipartite") == {}
    tuning.store(h, "bipartite", {"algorithm": "apfb-gpubfs-ct", "work_group_size": 64},
                 {"seconds": 0.1})
    assert tuning.tuned_params(h, "bipartite") == {"algorithm": "apfb-gpubfs-ct",
                                                   "work_group_size": 64}
    data = json.loads(cache.read_text())
    assert tuning.device_key(h) in data and h.name in tuning.device_key(h)
    assert tuning.tuned_params(h, "louvain") == {}


def test_off_and_corrupt(cache, monkeypatch):
    h = pyclmatch.get_device("cpu")
    cache.write_text("{not json")
    assert tuning.tuned_params(h, "bipartite") == {}
    monkeypatch.setenv("PYCLMATCH_TUNING", "off")
    assert not tuning.enabled()
    assert tuning.store(h, "bipartite", {"work_group_size": 64}) is None
    assert tuning.tuned_params(h, "bipartite") == {}


def test_applied_as_default(cache, monkeypatch):
    h = pyclmatch.get_device("cpu")
    A = generators.SMALL_SUITE["kron-10"]()
    ref = pyclmatch.maximum_matching(A, device=h)
    tuning.store(h, "bipartite", {"algorithm": "apsb-gpubfs-wr-mt", "work_group_size": 32})
    r = pyclmatch.maximum_matching(A, device=h)
    assert r.algorithm == "apsb-gpubfs-wr-mt" and r.cardinality == ref.cardinality
    # an explicit algorithm wins
    r2 = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-ct", device=h)
    assert r2.algorithm == "apfb-gpubfs-ct" and r2.cardinality == ref.cardinality
    monkeypatch.setenv("PYCLMATCH_TUNING", "off")
    assert pyclmatch.maximum_matching(A, device=h).algorithm == ref.algorithm


def test_session_cache_is_private():
    """conftest points the tuning cache at a file of this test session: no test reads or
    writes the user's cache, whatever an autotune run stored there."""
    path = tuning.cache_path()
    assert os.path.basename(os.path.dirname(path)).startswith("pyclmatch-test-tuning-")
    assert os.path.realpath(path) != os.path.realpath(
        os.path.join(os.path.expanduser("~"), ".cache", "pyclmatch", "tuning.json"))
