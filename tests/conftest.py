import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


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
