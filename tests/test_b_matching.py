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
    for bad in (-1, np.ones(3, int), 1.5, True, np.ones(30, bool), [1.5] * 30,
                np.full(30, 2**63, np.uint64), np.uint64(2**64 - 1), "2", float("nan")):
        with pytest.raises(InputError) as exc:
            b_matching(g, bad, device=DEV)
        assert exc.value.argument == "b", bad
    with pytest.raises(InputError, match="9223372036854775808"):
        b_matching(g, np.full(30, 2**63, np.uint64), device=DEV)
    with pytest.raises(InputError, match="length n = 30"):
        b_matching(g, np.ones(3, int), device=DEV)
    with pytest.raises(InputError, match="algorithm=.* is not allowed"):
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


def test_reverse_edges_host_and_device_agree():
    # the host (scipy CSR -> CSC) and the device kernel (binary searches, used on GPUs)
    from pyclmatch import get_device
    from pyclmatch.weighted import prepare_graph
    from pyclmatch.weighted.suitor import BSuitorMatcher, DeviceWeighted
    from pyclmatch.engine.scheduler import Scheduler
    g = prepare_graph(hub_graph())
    rev = g.reverse_edges()
    e = np.arange(g.nnz)
    assert np.array_equal(rev[rev], e) and np.array_equal(g.indices[rev], g.src)
    h = get_device(DEV)
    runner = BSuitorMatcher(h, g, np.full(g.n, 2, np.int32))
    dg = DeviceWeighted(h, g)
    sched = Scheduler(h)
    dg.setup(sched, runner)
    import pyopencl.array as cla
    out = cla.empty(h.queue, g.nnz, np.int32)
    sched.launch("t", runner.kernel("reverse_edges"), min(runner.ct_items, g.nnz), runner.wg,
                 dg.xadj.data, dg.adj.data, dg.src.data, np.int32(g.nnz), out.data)
    assert np.array_equal(out.get(), rev)


@pytest.mark.parametrize("n", [1, 7, 64, 1000, 100003])
def test_device_exclusive_scan(n):
    import pyopencl.array as cla
    from pyclmatch import get_device
    from pyclmatch.engine.scheduler import Scheduler
    from pyclmatch.weighted.suitor import BSuitorMatcher
    h = get_device(DEV)
    runner = BSuitorMatcher(h, graph(30, 0.2, 6), 1)
    x = np.random.default_rng(n).integers(0, 5, n).astype(np.int32)
    xd = cla.to_device(h.queue, x)
    out = cla.empty(h.queue, n, np.int32)
    tot = cla.zeros(h.queue, 2, np.int32)
    runner.exclusive_scan(Scheduler(h), "t", xd, out, n, tot)
    ref = np.concatenate([[0], np.cumsum(x)[:-1]])
    assert np.array_equal(out.get(), ref) and int(tot.get()[0]) == int(x.sum())


def test_b_result_layout_and_exact_weight():
    from pyclmatch.weighted.reference import _edge_weights
    g = graph(300, 0.03, 1)
    for b in (1, 3, np.random.default_rng(0).integers(0, 4, g.n)):
        res = b_matching(g, b, device=DEV, verify=False)
        e = res.edges
        assert e.dtype == np.int64 and res.degree.dtype == np.int64
        key = e[:, 0] * g.n + e[:, 1]
        assert (e[:, 0] < e[:, 1]).all() and (np.diff(key) > 0).all()   # lexicographic
        # the same float64 sum, in the same order, as summing the input weights of the edges
        assert res.weight == float(_edge_weights(g, e[:, 0], e[:, 1], np.float64).sum())
        for k in ("prepare", "upload", "setup", "match", "download", "result", "total"):
            assert k in res.timings
        assert as_set(e) == as_set(greedy_b_matching(g, b))
