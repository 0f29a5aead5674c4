"""The small-graph path of Louvain: a level's whole optimization phase in one work-group
(optimize_level_one_group) gives the same answers as the per-bucket path (a launch per bucket
and sub-round) and valid partitions checked against the host's modularity: random graphs,
graphs right at the size threshold (one level per path), disconnected graphs, isolated
vertices, self-loops, weights, hubs in the global-table bucket, every move rule."""
import importlib
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st, HealthCheck

from pyclmatch.community.api import louvain, modularity
from pyclmatch.errors import InputError

ALL, NONE = 10 ** 9, 0


@pytest.fixture(autouse=True)
def _compiler_takes_the_one_group_kernels(device):
    """(A device whose compiler aborts on these kernels never takes the path: nothing to
    compare there; tests/test_probe.py covers that case.)"""
    from pyclmatch.community.louvain import one_group_compiles
    if not one_group_compiles(device):
        pytest.skip(f"{device.label}'s compiler aborts on the one-group kernels")


def random_graph(n, p, seed, weights="one", loops=False, isolated=0, parts=1):
    """A symmetric CSR matrix: ``parts`` disjoint G(n, p) pieces, ``isolated`` vertices with
    no edge, optional self-loops; weights "one", "int" (1..9) or "float"."""
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(parts):
        U = sp.triu(sp.random(n, n, density=p, random_state=rng, format="csr"), 1)
        blocks.append(U)
    U = sp.block_diag(blocks + [sp.csr_matrix((isolated, isolated))], format="coo")
    w = {"one": np.ones(U.nnz), "int": rng.integers(1, 10, U.nnz).astype(float),
         "float": rng.uniform(0.01, 5.0, U.nnz)}[weights]
    A = sp.coo_matrix((w, (U.row, U.col)), shape=U.shape).tocsr()
    A = (A + A.T).tocsr()
    if loops and A.shape[0]:
        d = rng.integers(0, A.shape[0], max(1, A.shape[0] // 7))
        A = (A + sp.csr_matrix((np.full(d.size, 2.0), (d, d)), shape=A.shape)).tocsr()
    A.sum_duplicates()
    A.sort_indices()
    return A


def both(A, device, **kw):
    """(one-group run, per-bucket run), each verified on the host."""
    small = louvain(A, device=device, one_group_edges=ALL, verify="host", **kw)
    large = louvain(A, device=device, one_group_edges=NONE, verify="host", **kw)
    if A.nnz:       # (no edges: no level runs)
        assert large.counters["path"] == "per-bucket"
        assert small.counters["path"] == "one-group"
        assert small.counters["one_group_levels"] == small.counters["levels"]
    return small, large


def assert_same(small, large):
    """The same partition, levels, iterations and modularity trace on both paths."""
    np.testing.assert_array_equal(small.membership, large.membership)
    for key in ("levels", "iterations", "vertices", "edges", "trace", "moved"):
        assert small.counters.get(key) == large.counters.get(key), key
    assert small.modularity == pytest.approx(large.modularity, abs=1e-12)


def assert_valid(A, r):
    n, res = A.shape[0], r.resolution
    assert r.membership.shape == (n,)
    assert set(np.unique(r.membership)) == set(range(r.n_communities))
    q = modularity(A, r.membership, resolution=res)
    assert r.modularity == pytest.approx(q, abs=1e-9)
    if A.nnz:
        assert q >= modularity(A, np.arange(n), resolution=res) - 1e-12      # never worse than the start


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 90), p=st.floats(0.02, 0.3), seed=st.integers(0, 10 ** 6),
       weights=st.sampled_from(["one", "int", "float"]), loops=st.booleans(),
       isolated=st.integers(0, 3), parts=st.integers(1, 3))
def test_one_group_equals_per_bucket_deterministic(n, p, seed, weights, loops, isolated, parts,
                                                   device):
    """deterministic=True (exact fixed-point sums): the same answer, level by level."""
    A = random_graph(n, p, seed, weights, loops, isolated, parts)
    small, large = both(A, device, deterministic=True)
    assert_same(small, large)
    assert_valid(A, small)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(10, 120), p=st.floats(0.03, 0.2), seed=st.integers(0, 10 ** 6))
def test_one_group_float_weights_valid_and_as_good(n, p, seed, device):
    """Float weights, default mode (float atomics, order-dependent rounding): valid answers of
    the same quality on both paths."""
    A = random_graph(n, p, seed, "float", parts=2)
    small, large = both(A, device)
    assert_valid(A, small)
    assert_valid(A, large)
    assert small.modularity >= large.modularity - 0.03


@pytest.mark.parametrize("kw", [dict(threshold="paper", moves="paper"),
                                dict(moves="paper"), dict(subrounds=1), dict(subrounds=3),
                                dict(subrounds=64), dict(threshold=(1e-3, 1e-7)),
                                dict(resolution=0.5), dict(seed=3), dict(max_level=1)])
def test_every_move_and_stop_rule_same_on_both_paths(kw, device):
    """The paper's moves and singleton rule, sub-round counts that are no power of two or
    above 32 (the filtered ranges), the absolute stop rule, resolution, seed, max_level."""
    A = random_graph(70, 0.08, 11, "int", loops=True, isolated=2, parts=2)
    small, large = both(A, device, deterministic=True, **kw)
    assert_same(small, large)
    assert_valid(A, small)


def test_hub_in_the_global_table_bucket(device):
    """A hub of degree above the last local bucket (its table in global memory)."""
    rng = np.random.default_rng(5)
    n = 700
    A = random_graph(n, 0.004, 7, "int").tolil()
    for v in rng.choice(np.arange(1, n), 450, replace=False):
        A[0, v] = A[v, 0] = 1.0
    A = A.tocsr()
    A.sort_indices()
    assert np.diff(A.indptr).max() > 319
    small, large = both(A, device, deterministic=True)
    assert_same(small, large)
    assert_valid(A, small)


def test_size_threshold(device):
    """Levels at most one_group_edges (stored entries, and vertices) run in one work-group:
    the input level right at the bound does, one entry below the bound it runs per bucket and
    the smaller levels after it in one work-group, with the same answer every way."""
    A = random_graph(150, 0.05, 2, "one", parts=2)
    at = louvain(A, one_group_edges=A.nnz, device=device, deterministic=True)
    below = louvain(A, one_group_edges=A.nnz - 1, device=device, deterministic=True)
    large = louvain(A, one_group_edges=0, device=device, deterministic=True)
    assert at.counters["path"] == "one-group"
    assert below.counters["path"] == "per-bucket+one-group"
    assert below.counters["one_group_levels"] == below.counters["levels"] - 1
    assert_same(at, large)
    assert_same(below, large)
    # vertices count too: a graph with more vertices than entries
    B = random_graph(20, 0.2, 4, "one", isolated=200)
    r = louvain(B, one_group_edges=B.nnz, device=device)
    assert B.shape[0] > B.nnz and r.counters["path"] == "per-bucket"


def test_default_runs_small_graphs_in_few_launches(device):
    """The device profile's default takes a small graph whole: a handful of launches per level
    and one read-back per level for the optimization."""
    A = random_graph(300, 0.03, 9, "one", parts=3)
    r = louvain(A, device=device)
    large = louvain(A, device=device, one_group_edges=0)
    assert r.counters["path"] == "one-group"
    assert r.counters["launches"] < large.counters["launches"] / 3
    assert r.counters["readbacks"] < large.counters["readbacks"]
    assert_same(r, large)


def test_one_group_rejects_a_directed_graph(device):
    A = sp.csr_matrix(np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=float))
    with pytest.raises(InputError, match="not symmetric"):
        louvain(A, device=device, one_group_edges=ALL)


def test_aggregation_table_regions_fit():
    """aggregate_level_one_group gives community c the table region 2 edgePos[c] + 16 c: a
    table of table_size(d) slots must fit in 2 d + 16."""
    from pyclmatch.community.hashing import table_size
    assert all(table_size(d) <= 2 * d + 16 for d in range(0, 200_000))
    assert all(table_size(d) <= 2 * d + 16 for d in range(200_000, 1 << 26, 9973))


def test_one_group_aggregate_is_the_community_quotient(device):
    """Each level's new graph built in one work-group is the quotient of the previous one by
    its communities (the per-bucket path's graphs, up to the order of each row's entries)."""
    drv = importlib.import_module("pyclmatch.community.louvain")
    A = random_graph(120, 0.06, 3, "int", loops=True, parts=3)
    graphs = {}
    for og in (ALL, NONE):
        orig = drv.DeviceLouvain.__init__

        def init(self, *a, **kw):
            orig(self, *a, **kw)
            self.debug = True
        drv.DeviceLouvain.__init__ = init
        try:
            r = louvain(A, device=device, deterministic=True, one_group_edges=og)
        finally:
            drv.DeviceLouvain.__init__ = orig
        graphs[og] = r.counters["graphs"]
    assert len(graphs[ALL]) == len(graphs[NONE]) >= 1
    for (v1, e1, w1, k1), (v2, e2, w2, k2) in zip(graphs[ALL], graphs[NONE]):
        np.testing.assert_array_equal(v1, v2)
        np.testing.assert_array_equal(k1, k2)
        n = v1.size - 1
        M1 = sp.csr_matrix((w1, e1, v1), shape=(n, n))
        M2 = sp.csr_matrix((w2[:v2[-1]], e2[:v2[-1]], v2), shape=(n, n))
        assert (M1 != M2).nnz == 0


def test_profile_bounds_documented_and_tunable(device, tmp_path, monkeypatch):
    """The device-type bounds are the ones louvain's docstring states, and a tuning-cache
    entry for the device overrides them."""
    drv = importlib.import_module("pyclmatch.community.louvain")
    from pyclmatch.engine import tuning
    doc = " ".join(louvain.__doc__.split())
    for kind, what in (("cpu", "on CPUs"), ("gpu", "on GPUs")):
        e = drv.ONE_GROUP_EDGES[kind].bit_length() - 1
        v = drv.ONE_GROUP_VERTICES[kind].bit_length() - 1
        text = (f"2**{e} entries and vertices {what}" if e == v
                else f"2**{e} entries and 2**{v} vertices {what}")
        assert text in doc, text
    monkeypatch.setenv("PYCLMATCH_TUNING", str(tmp_path / "tuning.json"))
    A = random_graph(60, 0.1, 1, "one")
    assert louvain(A, device=device).counters["path"] == "one-group"
    tuning.store(device, "louvain", {"one_group_edges": 0, "one_group_vertices": 0})
    assert drv.one_group_default(device) == (0, 0)
    assert louvain(A, device=device).counters["path"] == "per-bucket"


@pytest.mark.parametrize("method", ["louvain", "leiden"])
def test_small_levels_map_a_short_map(device, monkeypatch, method):
    """Small levels after a much larger input map a short map of the first small level's
    vertices, composed with the input's membership when it is read (SHORT_MAP_RATIO): the
    same levels and answer as mapping every input vertex at every small level."""
    import pyclmatch
    from pyclmatch.community import louvain as L
    A = random_graph(400, 0.02, 3, "one", parts=3)
    kw = dict(device=device, deterministic=True, one_group_edges=A.nnz // 8,
              return_levels=True)
    run = getattr(pyclmatch, method)
    short = run(A, **kw)
    monkeypatch.setattr(L, "SHORT_MAP_RATIO", 10 ** 9)
    whole = run(A, **kw)
    assert short.counters["path"] == whole.counters["path"] == "per-bucket+one-group"
    assert short.counters["launches"] > whole.counters["launches"]     # (arange, take)
    np.testing.assert_array_equal(short.membership, whole.membership)
    assert len(short.levels) == len(whole.levels)
    for a, b in zip(short.levels, whole.levels):
        np.testing.assert_array_equal(a, b)
