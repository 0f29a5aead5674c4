"""PPF (parallel Pothen-Fan, paper 001) against scipy on the shared bipartite cases."""
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import pyclmatch
import pyclmatch.bipartite.ppf  # noqa: F401  (registers "ppf")
from pyclmatch.bipartite import INITS, verify_matching
from pyclmatch.engine.graphs import as_bipartite

from bipartite_cases import (structured_cases, bipartite_matrices, scipy_cardinality, chain,
                             long_paths, permuted_perfect, random_rect)

CASES = structured_cases()


def check(A, res, cover_phases=0):
    assert res.cardinality == scipy_cardinality(A)
    assert res.verified
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    assert res.certificate.size == res.cardinality
    if cover_phases == 0:   # the last PPF iteration gives the cover: no extra search
        assert res.counters.get("cover_phases", 0) == 0


@pytest.mark.parametrize("init", INITS)
def test_structured(init, device):
    for _, A in CASES:
        check(A, pyclmatch.maximum_matching(A, algorithm="ppf", init=init, device=device))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), init=st.sampled_from(INITS),
       wg=st.sampled_from([None, 1, 4, 32]))
def test_random_graphs(A, init, wg, device):
    check(A, pyclmatch.maximum_matching(A, algorithm="ppf", init=init, device=device,
                                        work_group_size=wg))


def test_initial_matching_empty_maximum_perfect(device):
    A = permuted_perfect(300, extra=0)
    res = pyclmatch.maximum_matching(A, algorithm="ppf", init="cheap", device=device)
    check(A, res)
    assert res.initial_cardinality == 300 and res.counters["ppf_iterations"] == 0
    res = pyclmatch.maximum_matching(A, algorithm="ppf", init="none", device=device)
    check(A, res)
    assert res.initial_cardinality == 0
    B = permuted_perfect(2000, extra=2, seed=3)
    check(B, pyclmatch.maximum_matching(B, algorithm="ppf", init="none", device=device))


def test_long_paths(device):
    for A in (chain(3000), long_paths(3000, seed=2)):
        for init in ("cheap", "none"):
            check(A, pyclmatch.maximum_matching(A, algorithm="ppf", init=init, device=device))


def test_stack_too_small_falls_back(device):
    """A stack pool too small for the paths stops the DFS (never overflows), warns, and the
    API's alternating BFS finishes: still maximum and verified."""
    A = long_paths(400, seed=1)
    with pytest.warns(RuntimeWarning, match="stack levels"):
        res = pyclmatch.maximum_matching(A, algorithm="ppf", init="cheap", device=device,
                                         stack_bytes=64, work_items=4, work_group_size=4)
    check(A, res, cover_phases=None)
    assert res.counters["stack_overflows"] >= 1
    assert res.counters["finished_by"] == "apfb-gpubfs-wr-ct"


def test_default_stack_cap_does_not_warn(device, monkeypatch):
    """With the default stack cap (as ``auto`` calls PPF) an overflow is no warning the user
    could act on: the counters say who finished the matching."""
    import warnings
    from pyclmatch.bipartite import ppf
    init = ppf.PothenFanMatcher.__init__

    def small_default(self, *a, **kw):
        init(self, *a, **kw)
        self.stack_bytes = 64                 # (the default cap, made tiny)
    monkeypatch.setattr(ppf.PothenFanMatcher, "__init__", small_default)
    A = long_paths(400, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = pyclmatch.maximum_matching(A, algorithm="ppf", init="cheap", device=device,
                                         work_items=4, work_group_size=4)
    check(A, res, cover_phases=None)
    assert res.counters["finished_by"] == "apfb-gpubfs-wr-ct"


def test_repeated_runs_never_wrong(device):
    """Claims race between work-items; every run must still be maximum and verified."""
    A = random_rect(3000, 3000, 3.0, seed=7)
    want = scipy_cardinality(A)
    for wg in (1, 4, 16, 64, 16, 4):
        res = pyclmatch.maximum_matching(A, algorithm="ppf", init="none", device=device,
                                         work_group_size=wg)
        assert res.cardinality == want and res.verified


@pytest.mark.gpu
def test_gpu_larger(gpu):
    for A in (random_rect(200000, 200000, 3.0, seed=1), long_paths(20000, seed=4)):
        for _ in range(3):
            check(A, pyclmatch.maximum_matching(A, algorithm="ppf", init="karp-sipser",
                                                device=gpu), cover_phases=None)


def test_choose_algorithm(device):
    from pyclmatch.bipartite.registry import algorithms
    from pyclmatch.bipartite.choice import choose_algorithm
    import pyclmatch.bipartite.gpr  # noqa: F401
    for A in (chain(100), random_rect(3000, 3000, 3.0, seed=1)):
        name = choose_algorithm(device, A)
        assert name in algorithms()
        check(A, pyclmatch.maximum_matching(A, algorithm=name, device=device),
              cover_phases=None)
