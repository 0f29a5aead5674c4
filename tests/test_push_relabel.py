"""G-PR push-relabel (paper 003: G-PR-First, G-PR-NoShr, G-PR-Shr) against scipy, on the shared
bipartite cases of tests/bipartite_cases.py."""
import pytest
from hypothesis import given, settings, HealthCheck, strategies as st

import pyclmatch
import pyclmatch.bipartite.gpr  # noqa: F401  (registers the gpr* names)
from pyclmatch.bipartite import INITS, verify_matching
from pyclmatch.engine.graphs import as_bipartite

from bipartite_cases import (structured_cases, bipartite_matrices, scipy_cardinality, chain,
                             long_paths, permuted_perfect, random_rect)

NAMES = ("gpr", "gpr-shr", "gpr-noshr", "gpr-first")
CASES = structured_cases()


def check(A, res):
    assert res.cardinality == scipy_cardinality(A)
    assert res.verified
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    assert res.certificate.size == res.cardinality
    # the labels of the last global relabel give the cover: no extra alternating search
    assert res.counters.get("cover_phases", 0) == 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("init", INITS)
def test_structured(name, init, device):
    for _, A in CASES:
        check(A, pyclmatch.maximum_matching(A, algorithm=name, init=init, device=device))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), name=st.sampled_from(NAMES), init=st.sampled_from(INITS))
def test_random_graphs(A, name, init, device):
    check(A, pyclmatch.maximum_matching(A, algorithm=name, init=init, device=device))


@pytest.mark.parametrize("name", NAMES)
def test_initial_matching_empty_maximum_perfect(name, device):
    A = permuted_perfect(300, extra=0)
    res = pyclmatch.maximum_matching(A, algorithm=name, init="cheap", device=device)
    check(A, res)
    assert res.initial_cardinality == 300 and not any(res.counters["active_columns"])
    res = pyclmatch.maximum_matching(A, algorithm=name, init="none", device=device)
    check(A, res)
    assert res.initial_cardinality == 0
    B = permuted_perfect(400, extra=2, seed=3)
    check(B, pyclmatch.maximum_matching(B, algorithm=name, init="none", device=device))


@pytest.mark.parametrize("name", NAMES)
def test_long_paths(name, device):
    for A in (chain(500), long_paths(500, seed=2)):
        check(A, pyclmatch.maximum_matching(A, algorithm=name, init="cheap", device=device))


@pytest.mark.parametrize("params", [dict(relabel="fixed", k=3), dict(relabel="adaptive", k=0.3),
                                    dict(shrink_threshold=1, batch=1),
                                    dict(batch=16, batch_levels=2, work_group_size=16)])
def test_parameters(params, device):
    A = random_rect(800, 700, 2.5, seed=11)
    res = pyclmatch.maximum_matching(A, algorithm="gpr", init="none", device=device, **params)
    check(A, res)
    c = res.counters
    assert c["global_relabels"] >= 1 and c["max_level"] >= 2
    assert len(c["active_columns"]) == c["pr_launches"]
    if params.get("shrink_threshold") == 1:
        assert c["shrinks"] >= 1


def test_bad_parameters(device):
    A = chain(10)
    with pytest.raises(pyclmatch.InputError):
        pyclmatch.maximum_matching(A, algorithm="gpr", relabel="sometimes", device=device)
    with pytest.raises(pyclmatch.InputError):
        pyclmatch.maximum_matching(A, algorithm="gpr", k=0, device=device)


def test_repeated_runs_never_wrong(device):
    """Concurrent pushes race; every run must still be maximum and verified."""
    A = random_rect(1500, 1500, 3.0, seed=7)
    want = scipy_cardinality(A)
    for i in range(6):
        name = NAMES[i % len(NAMES)]
        res = pyclmatch.maximum_matching(A, algorithm=name, init="none", device=device)
        assert res.cardinality == want and res.verified


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_gpu_larger(name, gpu):
    for A in (random_rect(200000, 200000, 3.0, seed=1), long_paths(20000, seed=4)):
        for _ in range(3):
            check(A, pyclmatch.maximum_matching(A, algorithm=name, init="karp-sipser",
                                                device=gpu))
