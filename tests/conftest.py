import os
import shutil
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.dirname(__file__))

_TUNING_DIR = None


def pytest_configure(config):
    """Hermetic runs: the per-user tuning cache (pyclmatch.engine.tuning), whose stored values
    are the defaults of later calls, is a fresh empty file in a directory of this session, so
    no test reads what an autotune run left on the machine nor leaves anything there (tests
    of the cache point it elsewhere themselves). Set before any test, subprocesses inherit it."""
    global _TUNING_DIR
    _TUNING_DIR = tempfile.mkdtemp(prefix="pyclmatch-test-tuning-")
    os.environ["PYCLMATCH_TUNING"] = os.path.join(_TUNING_DIR, "tuning.json")
    _device_families_under_auto()


def _device_families_under_auto():
    """``auto`` sends small graphs to the host family (``host-hk``) and races it on larger
    ones (pyclmatch.bipartite.choice); the tests of the device families call ``auto`` on small
    graphs, so the session's cache turns both off for the test device (``"auto"`` entry:
    host_edges = race_edges = 0). The tests of the host family and of the rule name it or set
    the profile themselves."""
    import pyclmatch
    from pyclmatch.engine import tuning
    try:
        h = pyclmatch.get_device(os.environ.get("PYCLMATCH_TEST_DEVICE") or None)
    except pyclmatch.DeviceError:
        return
    tuning.store(h, "auto", {"host_edges": 0, "race_edges": 0})
    # (the one-group Louvain probe, once for the session: a PoCL device's first Louvain call
    # would otherwise pay its child process inside a timed test)
    from pyclmatch.community.louvain import one_group_compiles
    one_group_compiles(h)


def pytest_unconfigure(config):
    if _TUNING_DIR:
        shutil.rmtree(_TUNING_DIR, ignore_errors=True)


@pytest.fixture(scope="session")
def device():
    """The device the default run tests on: $PYCLMATCH_TEST_DEVICE, else 'auto' (PoCL in CI)."""
    import pyclmatch
    return pyclmatch.get_device(os.environ.get("PYCLMATCH_TEST_DEVICE") or None)


@pytest.fixture(scope="session")
def gpu():
    import pyclmatch
    try:
        return pyclmatch.get_device("gpu")
    except pyclmatch.DeviceError as exc:
        pytest.skip(f"no GPU: {exc}")
