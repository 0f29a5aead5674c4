"""Half-approximate weighted matching (GPU-Suitor variants and LD) against the exact greedy
oracle, networkx's optimum, and the input checks."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st, HealthCheck

from pyclmatch.errors import InputError, VerificationError
from pyclmatch.weighted import (ALGORITHMS, as_weighted_graph, greedy_matching,
                                greedy_matching_sequential, matching_weight,
                                verify_weighted_matching,
                                weighted_matching)

#: the device of the default (PoCL) run; PYCLMATCH_TEST_DEVICE=gpu runs every case on a GPU
DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")


def sym_graph(n, density, seed, weights="uniform"):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=seed, format="coo")
    u, v = A.row, A.col
    keep = u != v
    u, v = u[keep], v[keep]
    if weights == "uniform":
        w = rng.random(u.size) + 1e-3
    elif weights == "ties":
        w = rng.integers(1, 4, u.size).astype(float)
    else:
        w = np.ones(u.size)
    return _graph_from(u, v, w, n)


def _graph_from(u, v, w, n):
    a, b = np.minimum(u, v), np.maximum(u, v)
    key = a * n + b
    _, first = np.unique(key, return_index=True)
    return as_weighted_graph((a[first], b[first], w[first], n))


GRAPHS = {
    "random": lambda: sym_graph(400, 0.02, 1),
    "ties": lambda: sym_graph(300, 0.03, 2, "ties"),
    "all-equal": lambda: sym_graph(200, 0.05, 3, "ones"),
    "star+path": lambda: _star_path(),
    "dense-small": lambda: sym_graph(40, 0.6, 4, "ties"),
}


def _star_path():
    # a hub of degree 300 (longer than any group of lanes) plus a path of equal weights
    n = 700
    hub_u = np.zeros(300, np.int64)
    hub_v = np.arange(1, 301)
    pu = np.arange(301, n - 1)
    pv = pu + 1
    u = np.concatenate([hub_u, pu])
    v = np.concatenate([hub_v, pv])
    w = np.concatenate([np.linspace(0.1, 0.9, 300), np.full(pu.size, 0.5)])
    return as_weighted_graph((u, v, w, n))


@pytest.mark.parametrize("gname", list(GRAPHS))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_exact_greedy(gname, algorithm):
    g = GRAPHS[gname]()
    ref = greedy_matching_sequential(g)
    res = weighted_matching(g, algorithm=algorithm, device=DEV)
    assert np.array_equal(res.mate, ref)
    assert res.verified
    assert res.cardinality == int((ref >= 0).sum()) // 2
    w = sum(g.csr[a, b] for a, b in res.edges)
    assert res.weight == pytest.approx(w)
    # computed on the host from the matched pairs' CSR positions: bit-identical to the sum of
    # the input weights of the pairs in increasing order
    assert res.mate.dtype == np.int64
    assert res.weight == matching_weight(g, res.mate)


@pytest.mark.parametrize("vpg,tpv,wg", [(1, 1, 32), (3, 4, 32), (8, 32, 64), (16, 8, 64),
                                        (8, 2, 16)])
@pytest.mark.parametrize("variant", ["nosync", "synclb", "hybrid"])
def test_group_geometry(vpg, tpv, wg, variant):
    g = sym_graph(500, 0.015, 7, "ties")
    ref = greedy_matching_sequential(g)
    res = weighted_matching(g, device=DEV, variant=variant, vertices_per_group=vpg,
                            threads_per_vertex=tpv, work_group_size=wg, lb_rounds=2)
    assert np.array_equal(res.mate, ref)
    assert res.counters["proposals"] >= res.cardinality * 2 - 0


def test_numpy_greedy_matches_sequential():
    for seed in range(4):
        g = sym_graph(300, 0.03, seed, "ties" if seed % 2 else "uniform")
        assert np.array_equal(greedy_matching(g), greedy_matching_sequential(g))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 60).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                       st.sampled_from([0.5, 1.0, 2.0, 3.0, 1e-3, 7.25])), max_size=200))),
       st.sampled_from(ALGORITHMS))
def test_hypothesis_exact(data, algorithm):
    n, edges = data
    if edges:
        u, v, w = (np.array(x) for x in zip(*edges))
        g = _graph_from(u, v, w, n)
    else:
        g = as_weighted_graph((np.zeros(0, int), np.zeros(0, int), np.zeros(0), n))
    res = weighted_matching(g, algorithm=algorithm, device=DEV)
    assert np.array_equal(res.mate, greedy_matching_sequential(g))


def test_half_approximation_vs_networkx():
    nx = pytest.importorskip("networkx")
    ratios = []
    for seed in range(6):
        G = nx.gnm_random_graph(60, 240, seed=seed)
        rng = np.random.default_rng(seed)
        for a, b in G.edges():
            G[a][b]["weight"] = float(rng.random() + 0.01)
        res = weighted_matching(G, device=DEV)
        opt = nx.max_weight_matching(G)
        w_opt = sum(G[a][b]["weight"] for a, b in opt)
        ratios.append(res.weight / w_opt)
        assert res.weight >= 0.5 * w_opt
        # node pairs are real edges of G
        assert all(G.has_edge(a, b) for a, b in res.node_pairs())
    assert np.median(ratios) > 0.85     # typical ratio measured: about 0.9


def test_networkx_nodes_and_default_weight():
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_edge("a", "b", weight=3.0)
    G.add_edge("b", "c", weight=5.0)
    G.add_edge("c", "d")                 # no attribute: weight 1
    res = weighted_matching(G, device=DEV)
    assert sorted(map(sorted, res.node_pairs())) == [["b", "c"]]
    D = nx.DiGraph([(0, 1)])
    with pytest.raises(InputError, match="directed"):
        weighted_matching(D, device=DEV)
    assert weighted_matching(D, device=DEV, symmetrize=True).cardinality == 1


def test_input_forms_agree():
    g = sym_graph(80, 0.1, 5)
    ref = greedy_matching_sequential(g)
    dense = g.csr.toarray()
    assert np.array_equal(weighted_matching(dense, device=DEV).mate, ref)
    assert np.array_equal(weighted_matching(sp.csr_array(g.csr), device=DEV).mate, ref)
    coo = g.csr.tocoo()
    # edge arrays with both directions given (same weight) are accepted
    assert np.array_equal(weighted_matching((coo.row, coo.col, coo.data), device=DEV).mate,
                          ref)


@pytest.mark.parametrize("bad,what", [(0.0, "zero"), (-1.0, "negative"), (np.nan, "NaN"),
                                      (np.inf, "infinite"), (1e300, "float32")])
def test_invalid_weights(bad, what):
    u, v, w = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, bad, 2.0])
    # 1e300 is a float64 weight (the default precision) but overflows float32
    opts = {"precision": "float32"} if what == "float32" else {}
    with pytest.raises(InputError, match=what):
        weighted_matching((u, v, w), device=DEV, **opts)
    res = weighted_matching((u, v, w), device=DEV, drop_invalid=True, **opts)
    assert sorted(map(tuple, res.edges)) == [(0, 1), (2, 3)]
    if opts:
        for G in ((u, v, w), sp.csr_matrix((np.r_[w, w], (np.r_[u, v], np.r_[v, u])))):
            res = weighted_matching(G, device=DEV)
            assert res.precision == "float64" and res.counters["weights"] == "float64"
            assert sorted(map(tuple, res.edges)) == [(1, 2)]
            with pytest.raises(InputError, match="float32"):
                weighted_matching(G, device=DEV, precision="float32")


def test_invalid_weights_sparse():
    A = sp.csr_matrix(np.array([[0, 1.0, 0], [1.0, 0, -2.0], [0, -2.0, 0]]))
    with pytest.raises(InputError, match="negative"):
        weighted_matching(A, device=DEV)
    A = sp.csr_matrix((np.array([0.0, 0.0]), (np.array([0, 1]), np.array([1, 0]))),
                      shape=(2, 2))
    with pytest.raises(InputError, match="zero"):
        weighted_matching(A, device=DEV)
    assert weighted_matching(A, device=DEV, drop_invalid=True).cardinality == 0


def test_asymmetric():
    A = sp.csr_matrix(np.array([[0, 2.0, 0], [1.0, 0, 3.0], [0, 0, 0]]))
    with pytest.raises(InputError, match="not symmetric"):
        weighted_matching(A, device=DEV)
    res = weighted_matching(A, device=DEV, symmetrize=True)
    assert sorted(map(tuple, res.edges)) == [(1, 2)]


def test_diagonal_ignored_and_isolated():
    A = sp.csr_matrix(np.array([[5.0, 1.0, 0, 0], [1.0, 9.0, 0, 0], [0, 0, 4.0, 0],
                                [0, 0, 0, 0]]))
    res = weighted_matching(A, device=DEV)
    assert list(res.mate) == [1, 0, -1, -1]


def test_other_errors():
    with pytest.raises(InputError, match="square"):
        weighted_matching(sp.csr_matrix((3, 4)), device=DEV)
    with pytest.raises(InputError, match="algorithm=.* is not allowed"):
        weighted_matching(sp.csr_matrix((3, 3)), algorithm="blossom", device=DEV)
    with pytest.raises(InputError, match="unknown parameter"):
        weighted_matching(sp.csr_matrix((3, 3)), device=DEV, warp=3)
    with pytest.raises(InputError, match="different weights"):
        weighted_matching((np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2.0])),
                          device=DEV)
    with pytest.raises(InputError, match="local memory") as exc:
        weighted_matching(sym_graph(20, 0.3, 1), device=DEV, vertices_per_group=10 ** 6)
    assert exc.value.argument == "vertices_per_group"
    with pytest.raises(InputError, match="between 1 and 1048576") as exc:
        weighted_matching(sym_graph(20, 0.3, 1), device=DEV, vertices_per_group=10 ** 9)
    assert exc.value.argument == "vertices_per_group"
    with pytest.raises(InputError, match="power of two"):
        weighted_matching(sym_graph(20, 0.3, 1), device=DEV, threads_per_vertex=3)
    with pytest.raises(InputError, match="u holds -1 at position 0") as exc:
        weighted_matching((np.array([-1]), np.array([1]), np.array([1.0])), device=DEV)
    assert exc.value.argument == "G"


def test_single_edge_all_algorithms():
    for alg in ALGORITHMS:
        res = weighted_matching((np.array([0]), np.array([1]), np.array([2.0])),
                                algorithm=alg, device=DEV)
        assert list(res.mate) == [1, 0] and res.weight == 2.0


def test_empty_graph():
    res = weighted_matching(sp.csr_matrix((5, 5)), device=DEV)
    assert list(res.mate) == [-1] * 5 and res.cardinality == 0 and res.weight == 0.0


def test_verifier_rejects_wrong_matchings():
    g = sym_graph(100, 0.08, 9)
    mate = greedy_matching_sequential(g)
    verify_weighted_matching(g, mate)
    matched = np.flatnonzero(mate >= 0)
    bad = mate.copy()                      # drop one matched edge: it becomes blocking
    a = matched[0]
    bad[a], bad[mate[a]] = -1, -1
    with pytest.raises(VerificationError):
        verify_weighted_matching(g, bad)
    bad = mate.copy()                      # asymmetric
    bad[a] = (a + 1) % g.n if (a + 1) % g.n != mate[a] else (a + 2) % g.n
    with pytest.raises(VerificationError):
        verify_weighted_matching(g, bad)
    nonedge = np.full(g.n, -1)
    x, y = 0, 1
    while g.csr[x, y] != 0 or x == y:
        y += 1
    nonedge[x], nonedge[y] = y, x
    with pytest.raises(VerificationError, match="not an edge"):
        verify_weighted_matching(g, nonedge)


def test_result_reports_timings_and_counters():
    res = weighted_matching(sym_graph(200, 0.05, 11), device=DEV)
    for k in ("prepare", "upload", "setup", "build", "match", "download", "verify", "result",
              "total"):
        assert k in res.timings
    steps = sum(v for k, v in res.timings.items()
                if not k.startswith("kernel:") and k not in ("readback", "total"))
    assert steps <= res.timings["total"] + 1e-6
    assert any(k.startswith("kernel:") for k in res.timings)
    assert res.counters["proposals"] > 0 and res.counters["readbacks"] >= 1


def test_keep_on_device_reuses_the_upload():
    from pyclmatch.weighted import prepare_graph, release_device_graph, b_matching
    g = prepare_graph(sym_graph(300, 0.03, 12, "ties"))
    ref = greedy_matching_sequential(g)
    r1 = weighted_matching(g, device=DEV, keep_on_device=True)
    r2 = weighted_matching(g, algorithm="ld", device=DEV, keep_on_device=True)
    r3 = weighted_matching(g, algorithm="suitor-synclb", device=DEV)
    assert "upload" in r1.timings and "upload" not in r2.timings
    assert "upload" not in r3.timings
    for r in (r1, r2, r3):
        assert np.array_equal(r.mate, ref)
    assert b_matching(g, 2, device=DEV).verified
    release_device_graph(g)
    assert "upload" in weighted_matching(g, device=DEV).timings


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_larger_exact(algorithm):
    g = sym_graph(20000, 0.0005, 13, "ties")
    assert np.array_equal(weighted_matching(g, algorithm=algorithm, device=DEV).mate,
                          greedy_matching(g))


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_gpu_exact(algorithm):
    from pyclmatch import generators
    from pyclmatch.weighted.graph import with_random_weights
    for A in (generators.kron(16), generators.uniform(1 << 18, 4), generators.grid(512),
              generators.delaunay(16)):
        g = with_random_weights(A, seed=0)
        ref = greedy_matching(g)
        for tpv in ("auto", 32):
            extra = {} if algorithm == "ld" else {"threads_per_vertex": tpv}
            res = weighted_matching(g, algorithm=algorithm, device="gpu", **extra)
            assert np.array_equal(res.mate, ref)


def test_with_random_weights():
    from pyclmatch.weighted import with_random_weights
    A = sp.random(50, 50, density=0.1, random_state=3, format="csr")   # not symmetric
    g1, g2 = with_random_weights(A, seed=0), with_random_weights(A, seed=0)
    assert np.array_equal(g1.w64, g2.w64) and (g1.w64 > 0).all() and (g1.w64 < 1).all()
    S = g1.csr
    assert abs(S - S.T).max() == 0 and S.diagonal().sum() == 0
    P = ((A + A.T) != 0).astype(int)
    P.setdiag(0)
    P.eliminate_zeros()
    assert S.nnz == P.nnz
    assert not np.array_equal(with_random_weights(A, seed=1).w64, g1.w64)


def test_weight_is_summed_on_first_access_and_pickles():
    import pickle
    g = sym_graph(300, 0.03, 14)
    res = weighted_matching(g, device=DEV, verify=False)
    assert "_weight" in res.__dict__ and not isinstance(res.__dict__["_weight"], float)
    w = res.weight
    assert isinstance(w, float) and res.__dict__["_weight"] == w == matching_weight(g, res.mate)
    res2 = weighted_matching(g, device=DEV, verify=False)
    back = pickle.loads(pickle.dumps(res2))
    assert back.weight == w and isinstance(back.__dict__["_weight"], float)
    assert res.summary()["weight"] == w


def test_repeated_calls_reuse_pooled_buffers():
    from pyclmatch import get_device
    g = sym_graph(2000, 0.004, 15)
    ref = weighted_matching(g, device=DEV).mate
    handle = get_device(DEV)
    pool = handle.pool
    active = pool.active_blocks            # e.g. graphs other tests keep on the device
    for _ in range(3):
        assert np.array_equal(weighted_matching(g, device=DEV, verify=False).mate, ref)
    assert pool.active_blocks == active and pool.held_blocks > 0
    handle.trim_pool(keep_fraction=0)
    assert pool.held_blocks == 0


def test_prepare_graph_staged_for_a_device():
    """prepare_graph(device=...) stages pinned copies on GPUs (nothing on CPU devices); the
    answer is the same and the staged graph still pickles."""
    import pickle
    from pyclmatch.weighted import prepare_graph
    g0 = sym_graph(1500, 0.005, 3)
    g = prepare_graph(g0, device=DEV)
    assert np.array_equal(weighted_matching(g, device=DEV).mate, greedy_matching(g0))
    back = pickle.loads(pickle.dumps(g))
    assert back._staged == {} and np.array_equal(back.indices, g.indices)