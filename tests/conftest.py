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
