"""b-Suitor against the exact sequential greedy b-matching, and the input checks."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st, HealthCheck

from pyclmatch.errors import InputError, VerificationError
from pyclmatch.weighted import (as_weighted_graph, b_matching, greedy_b_matching,
                                verify_b_matching, weighted_matching)

#: the device of the default (PoCL) run; PYCLMATCH_TEST_DEVICE=gpu runs every case on a GPU
DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")


def graph(n, density, seed, ties=False):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=seed, format="coo")
    a, b = np.minimum(A.row, A.col), np.maximum(A.row, A.col)
    keep = a != b
    a, b = a[keep], b[keep]
    _, first = np.unique(a * n + b, return_index=True)
    a, b = a[first], b[first]
    w = rng.integers(1, 4, a.size).astype(float) if ties else rng.random(a.size) + 1e-3
    return as_weighted_graph((a, b, w, n))


def as_set(edges):
    return set(map(tuple, np.sort(np.asarray(edges).reshape(-1, 2), axis=1)))


def hub_graph():
    # a hub adjacent to everything (degree far above b) plus a ring, equal weights on the ring
    n = 200
    u = np.concatenate([np.zeros(n - 1, int), np.arange(1, n - 1)])
    v = np.concatenate([np.arange(1, n), np.arange(2, n)])
    w = np.concatenate([np.linspace(0.2, 0.8, n - 1), np.full(n - 2, 0.5)])
    return as_weighted_graph((u, v, w, n))


GRAPHS = {"random": lambda: graph(300, 0.03, 1), "ties": lambda: graph(250, 0.04, 2, True),
          "hub": hub_graph, "dense": lambda: graph(40, 0.7, 3, True)}


@pytest.mark.parametrize("gname", list(GRAPHS))
@pytest.mark.parametrize("b", [1, 2, 3, 5, "array"])
def test_exact_greedy_b(gname, b):
    g = GRAPHS[gname]()
    if b == "array":
        b = np.random.default_rng(4).integers(0, 5, g.n)
    res = b_matching(g, b, device=DEV)
    ref = greedy_b_matching(g, b)
    assert as_set(res.edges) == as_set(ref)
    assert res.verified and res.cardinality == len(ref)
    assert (res.edges[:, 0] < res.edges[:, 1]).all()
    bb = np.broadcast_to(np.asarray(b), (g.n,))
    assert (res.degree <= bb).all()
    assert np.array_equal(res.degree, np.bincount(res.edges.ravel(), minlength=g.n))
    assert res.weight == pytest.approx(sum(g.csr[x, y] for x, y in res.edges))


def test_b1_is_the_suitor_matching():
    g = graph(400, 0.02, 5, True)
    m = weighted_matching(g, device=DEV)
    assert as_set(b_matching(g, 1, device=DEV).edges) == as_set(m.edges)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                       st.sampled_from([1.0, 2.0, 0.25, 9.0])), max_size=150),
    st.lists(st.integers(0, 4), min_size=n, max_size=n))))
def test_hypothesis_exact(data):
    n, edges, b = data
    if edges:
        u, v, w = (np.array(x) for x in zip(*edges))
        a, c = np.minimum(u, v), np.maximum(u, v)
        _, first = np.unique(a * n + c, return_index=True)
        g = as_weighted_graph((a[first], c[first], w[first], n))
    else:
        g = as_weighted_graph((np.zeros(0, int), np.zeros(0, int), np.zeros(0), n))
    res = b_matching(g, np.array(b), device=DEV)
    assert as_set(res.edges) == as_set(greedy_b_matching(g, np.array(b)))


def test_b_errors():
    g = graph(30, 0.2, 6)
    with pytest.raises(InputError, match="non-negative"):
        b_matching(g, -1, device=DEV)
    with pytest.raises(InputError, match="length"):
        b_matching(g, np.ones(3, int), device=DEV)
    with pytest.raises(InputError, match="integers"):
        b_matching(g, 1.5, device=DEV)
    with pytest.raises(InputError, match="unknown algorithm"):
        b_matching(g, 2, algorithm="exact", device=DEV)
    with pytest.raises(InputError, match="negative"):
        b_matching((np.array([0]), np.array([1]), np.array([-1.0])), 1, device=DEV)


def test_b_zero_and_empty():
    g = graph(30, 0.2, 7)
    res = b_matching(g, 0, device=DEV)
    assert res.cardinality == 0 and res.degree.sum() == 0
    res = b_matching(sp.csr_matrix((4, 4)), 2, device=DEV)
    assert res.cardinality == 0


def test_b_large_covers_everything():
    g = graph(60, 0.2, 8)
    res = b_matching(g, 10 ** 6, device=DEV)
    assert res.cardinality == g.m


def test_verifier_rejects_wrong_b_matchings():
    g = graph(80, 0.1, 9)
    ref = greedy_b_matching(g, 2)
    verify_b_matching(g, 2, ref)
    with pytest.raises(VerificationError):
        verify_b_matching(g, 2, ref[1:])                 # a dropped edge blocks
    with pytest.raises(VerificationError, match="twice"):
        verify_b_matching(g, 2, np.vstack([ref, ref[:1]]))
    with pytest.raises(VerificationError, match="b ="):
        verify_b_matching(g, 1, ref)


@pytest.mark.gpu
@pytest.mark.parametrize("b", [1, 3])
def test_gpu_b_matching(b):
    from pyclmatch import generators
    from pyclmatch.weighted.graph import with_random_weights
    g = with_random_weights(generators.kron(12), seed=0)
    assert as_set(b_matching(g, b, device="gpu").edges) == as_set(greedy_b_matching(g, b))
