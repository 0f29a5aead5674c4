"""The runnable examples of docs/*.rst and README.md run as written, and the README keeps its
promises: at most 6 KB, the test command that .ci/run runs, every results folder it links
present (the docs build itself, with warnings as errors, is a step of .ci/run)."""
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
README = os.path.join(ROOT, "README.md")
BLOCK = re.compile(r"^\.\. code-block:: python\n\n((?:(?:   .*)?\n)+)", re.M)


def _readme():
    with open(README, encoding="utf-8") as f:
        return f.read()


def _examples():
    for i, m in enumerate(re.finditer(r"^```python\n(.*?)^```", _readme(), re.M | re.S)):
        yield pytest.param(m.group(1), id=f"README.md-{i}")
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


def test_readme_size():
    assert os.path.getsize(README) <= 6 * 1024


def test_readme_test_command_is_ci_s():
    """The README's test command is the one .ci/run runs, byte for byte."""
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    m = re.search(r'^python3 -m pip install -q -e "(\.\[[^\]]*\])".*\n', ci, re.M)
    assert m, "no install line in .ci/run"
    assert re.search(r"^python3 -m pytest -q$", ci, re.M)
    command = f'python3 -m pip install -e "{m.group(1)}" && python3 -m pytest -q'
    assert f"\n{command}\n" in _readme()


def test_readme_links_exist():
    links = re.findall(r"\]\(([^)#]+)\)", _readme())
    assert any(link.startswith("benchmarks/results/") for link in links)
    for link in links:
        if "://" not in link:
            assert os.path.exists(os.path.join(ROOT, link)), link
