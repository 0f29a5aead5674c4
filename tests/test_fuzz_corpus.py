"""The fuzz corpus of issue 34 (tests/fuzz_cases.py, tests/fuzz_builders.py): every case in a
child process (tests/fuzz_harness.py: batched, a crash or hang pinned to its case), one test
per case asserting its exact outcome, and a compact summary by area at the end of the run.

``-m slow`` adds the cases that compile kernel variants the default calls don't use.
``PYCLMATCH_FUZZ_TIMEOUT`` (seconds, default 60) is the limit per case; a case past it is a
"hang"."""
import collections
import os

import pytest

import fuzz_cases
from fuzz_harness import run_cases, triage_class, verdict

fuzz_cases.build()
TIMEOUT = float(os.environ.get("PYCLMATCH_FUZZ_TIMEOUT", "60"))
CASES = fuzz_cases.CASES


@pytest.fixture(scope="session")
def outcomes(request):
    """The outcomes of this run's cases, all run once; the summary is printed at the end."""
    wanted = {item.callspec.params["case"].id for item in request.session.items
              if item.originalname == "test_case" and hasattr(item, "callspec")}
    ids = [c.id for c in CASES if c.id in wanted]
    got = run_cases("fuzz_cases", ids, timeout=TIMEOUT)
    yield got
    _summary(request.config, [c for c in CASES if c.id in got], got)


def _summary(config, cases, got):
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is None:
        return
    table = collections.defaultdict(collections.Counter)
    for c in cases:
        v = verdict(c.expect, got[c.id])
        table[c.area][triage_class(v) if v else "pass"] += 1
    tr.write_line("")
    tr.write_line(f"fuzz corpus: {len(cases)} cases")
    for area, counts in sorted(table.items()):
        tr.write_line(f"  {area:<10} " + ", ".join(f"{k} {n}" for k, n in counts.most_common()))


def _param(c):
    marks = [pytest.mark.slow] if c.slow else []
    return pytest.param(c, id=c.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_case(case, outcomes):
    out = outcomes[case.id]
    why = verdict(case.expect, out)
    assert why is None, f"want {case.expect.text()}; {why}"


def test_corpus_size_and_files():
    """At least 500 cases over every area; every file under tests/data/bad/fuzz/ is read by
    a case."""
    assert len(CASES) >= 500
    assert {c.area for c in CASES} >= {"params", "readers", "semantics", "cli", "other"}
    read = {c.id.split("/", 1)[1] for c in CASES if c.id.startswith("readers/")}
    assert set(os.listdir(fuzz_cases.BAD)) <= read


def test_every_public_function_is_called():
    """Each function of pyclmatch.__all__ appears in some case's call."""
    import inspect
    import pyclmatch
    import fuzz_builders
    source = inspect.getsource(fuzz_builders)
    names = [n for n in pyclmatch.__all__ if inspect.isfunction(getattr(pyclmatch, n))]
    assert [n for n in names if f"{n}(" not in source and f'"{n}"' not in source] == []
