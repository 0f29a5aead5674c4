"""The runnable examples of docs/*.rst run as written (the build itself, with warnings as
errors, is a step of .ci/run)."""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", re.M)


def _examples():
    for name in sorted(os.listdir(DOCS)):
        if name.endswith(".rst"):
            with open(os.path.join(DOCS, name), encoding="utf-8") as f:
                for i, m in enumerate(BLOCK.finditer(f.read())):
                    code = "\n".join(line[3:] for line in m.group(1).splitlines())
                    yield pytest.param(code, id=f"{name}-{i}")


@pytest.mark.parametrize("code", list(_examples()))
def test_docs_example_runs(code, monkeypatch, capsys):
    if "backend=" in code:
        import networkx as nx
        if "pyclmatch" not in nx.utils.backends.backends:
            pytest.skip("package not installed (pip install -e .): no networkx entry point")
    monkeypatch.chdir(ROOT)
    if os.environ.get("PYCLMATCH_TEST_DEVICE"):      # the device the suite runs on
        monkeypatch.setenv("PYCLMATCH_DEVICE", os.environ["PYCLMATCH_TEST_DEVICE"])
    exec(compile(code, "<docs example>", "exec"), {})
