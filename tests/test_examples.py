"""The Examples sections of pyclmatch's docstrings run as doctests, on the test device."""
import doctest
import importlib
import os

import pytest

from test_layout import MODULES

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


#: modules that run something when imported
SCRIPTS = ("pyclmatch.__main__",)


@pytest.mark.parametrize("name", sorted(set(MODULES) - set(SCRIPTS)))
def test_docstring_examples(name, monkeypatch):
    if os.environ.get("PYCLMATCH_TEST_DEVICE"):      # the device the suite runs on
        monkeypatch.setenv("PYCLMATCH_DEVICE", os.environ["PYCLMATCH_TEST_DEVICE"])
    try:
        module = importlib.import_module(name)
    except ImportError as exc:                    # an optional dependency (the dask extra)
        pytest.skip(f"{name}: {exc}")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder(exclude_empty=True).find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed"
