"""Louvain community detection on the device (Paper III): modularity checks against networkx,
planted partitions, quality against networkx's louvain_communities, determinism, bad input."""
import importlib
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

nx = pytest.importorskip("networkx")
from hypothesis import given, settings, strategies as st, HealthCheck

from pyclmatch.community.api import louvain, modularity, LouvainResult
from pyclmatch.community.hashing import TABLE_PRIMES, table_size, bucket_specs, \
    PAPER_MOVE_BUCKETS, CPU_MOVE_BUCKETS
from pyclmatch.errors import InputError

_HERE = os.path.dirname(os.path.abspath(__file__))
DATA = next((d for d in (os.path.join(os.environ.get("PYCLMATCH_SHARED", "/nonexistent"),
                                      "data", "graphs"),
                         os.path.join(_HERE, "..", "..", "shared", "data", "graphs"),
                         os.path.join(_HERE, "..", "shared", "data", "graphs"),
                         "/work/shared/data/graphs") if os.path.isdir(d)), None)


def nx_q(G, result, resolution=1.0):
    return nx.community.modularity(G, result.communities, resolution=resolution)


def nx_louvain_q(G, seeds=range(3), resolution=1.0):
    return float(np.median([nx.community.modularity(
        G, nx.community.louvain_communities(G, seed=s, resolution=resolution),
        resolution=resolution) for s in seeds]))


def mtx_graph(name):
    if DATA is None:
        pytest.skip("the shared graphs (shared/data/graphs) are not here")
    A = scipy.io.mmread(os.path.join(DATA, name)).tocsr()
    A = abs(A) + abs(A).T
    A.data[:] = 1
    A.setdiag(0)
    A.eliminate_zeros()
    return A


# ------------------------------------------------------------------ hashing helpers
def test_table_sizes_are_listed_primes_above_one_and_a_half_degree():
    for d in list(range(0, 600)) + [10 ** 5, 3 * 10 ** 7]:
        p = table_size(d)
        assert p in TABLE_PRIMES and 2 * p > 3 * d
    assert all(all(p % f for f in range(2, int(p ** 0.5) + 1)) for p in TABLE_PRIMES[:300])
    assert [b[:2] for b in CPU_MOVE_BUCKETS] == [b[:2] for b in PAPER_MOVE_BUCKETS]
    specs = bucket_specs(PAPER_MOVE_BUCKETS, 128)
    assert [s[2] for s in specs] == [4, 8, 16, 32, 32, 128, 128]
    assert specs[-1][3] == 0 and specs[5][3] == table_size(319)


# ------------------------------------------------------------------ modularity = networkx's
@pytest.mark.parametrize("graph", ["karate", "lesmis"])
def test_modularity_matches_networkx(graph):
    G = nx.karate_club_graph() if graph == "karate" else nx.les_miserables_graph()
    r = louvain(G)
    assert isinstance(r, LouvainResult)
    assert r.membership.shape == (G.number_of_nodes(),)
    assert set(np.unique(r.membership)) == set(range(r.n_communities))
    assert r.modularity == pytest.approx(nx_q(G, r), abs=1e-9)
    assert r.device_modularity == pytest.approx(r.modularity, abs=1e-5)
    # quality: within 2% of networkx's louvain_communities (median of 3 seeds)
    assert r.modularity >= 0.98 * nx_louvain_q(G)


def test_resolution_matches_networkx():
    G = nx.les_miserables_graph()
    for res in (0.5, 2.0):
        r = louvain(G, resolution=res)
        assert r.modularity == pytest.approx(nx_q(G, r, res), abs=1e-9)
        assert r.modularity >= 0.98 * nx_louvain_q(G, resolution=res)
    assert louvain(G, resolution=2.0).n_communities > louvain(G, resolution=0.5).n_communities


@pytest.mark.parametrize("name", ["bcsstk13.mtx", "rajat01.mtx"])
def test_matrix_market_within_two_percent_of_networkx(name):
    A = mtx_graph(name)
    r = louvain(A)
    G = nx.from_scipy_sparse_array(A)
    assert r.modularity == pytest.approx(nx_q(G, r), abs=1e-9)
    assert r.modularity >= 0.98 * nx_louvain_q(G, seeds=[0])


# ------------------------------------------------------------------ planted partitions
@pytest.mark.parametrize("sizes,p_in,p_out,seed", [
    ([40] * 5, 0.5, 0.01, 0), ([60, 30, 90, 20], 0.4, 0.005, 1), ([25] * 12, 0.7, 0.01, 2)])
def test_planted_partition_recovered(sizes, p_in, p_out, seed):
    k = len(sizes)
    P = np.full((k, k), p_out)
    np.fill_diagonal(P, p_in)
    G = nx.stochastic_block_model(sizes, P.tolist(), seed=seed)
    planted = np.repeat(np.arange(k), sizes)
    r = louvain(G)
    # the same partition up to renaming: a bijection between blocks and communities
    pairs = set(zip(planted.tolist(), r.membership.tolist()))
    assert len(pairs) == k and r.n_communities == k
    assert r.modularity == pytest.approx(nx_q(G, r), abs=1e-9)


def test_disconnected_cliques_and_isolated_vertices_and_self_loops():
    G = nx.disjoint_union_all([nx.complete_graph(6) for _ in range(5)])
    G.add_nodes_from(range(30, 35))                   # isolated vertices
    G.add_edge(3, 3, weight=2.0)                      # a self-loop
    r = louvain(G)
    memb = r.membership
    for c in range(5):
        assert len(set(memb[6 * c:6 * c + 6])) == 1
    assert len(set(memb[:30])) == 5
    assert len(set(memb[30:])) == 5                   # isolated: alone
    assert r.modularity == pytest.approx(nx_q(G, r), abs=1e-9)


# ------------------------------------------------------------------ computeMove = host oracle
@pytest.mark.parametrize("wtype,paper,updown", [("float", False, 0), ("int", True, 0),
                                                ("float", False, 1), ("int", True, 2)])
def test_compute_move_matches_host_oracle(wtype, paper, updown):
    """Every bucket kernel of Algorithm 2 (local tables and the global-table bucket 7: R-MAT
    hubs of degree > 319) picks the community of largest Eq. (2) gain, ties to the lowest id,
    for a random partition, as a host oracle does; with the up/down rule (1: down, 2: up) the
    vertex takes it only if its id is lower (higher) than its own community's."""
    import pyopencl.array as cla
    from pyclmatch import generators, get_device
    from pyclmatch.community.louvain import DeviceLouvain
    A = generators.kron(12).astype(np.float32 if wtype == "float" else np.int32)
    A.data[:] = 1
    n = A.shape[0]
    h = get_device()
    q = h.queue
    dl = DeviceLouvain(h, wtype, **(dict(work_group_size=128, move_buckets=PAPER_MOVE_BUCKETS)
                                    if paper else {}))
    rng = np.random.default_rng(0)
    C = rng.integers(0, 40, n).astype(np.int32)
    k = np.asarray(A.sum(1)).ravel().astype(dl.wdt)
    m2 = float(k.sum())
    ac = np.bincount(C, weights=k, minlength=n).astype(np.int32)
    cs = np.bincount(C, minlength=n).astype(np.int32)
    dev = [cla.to_device(q, x) for x in (A.indptr.astype(np.int32), A.indices, A.data, C, k,
                                         k.astype(np.int32), ac, cs)]
    vp, e, w, dC, dk, dkq, dac, dcs = dev
    newc = cla.to_device(q, C.copy())
    deg = np.diff(A.indptr)
    assert deg.max() > 319
    keep = []
    for b, (lo, hi, T, L) in enumerate(dl.move):
        ids = np.flatnonzero((deg >= lo) & ((deg <= hi) if hi else True)).astype(np.int32)
        if not len(ids):
            continue
        vs = cla.to_device(q, ids)
        flags = cla.zeros(q, 8, np.int32)
        if L:
            gk = gv = flags
            cap, groups = 0, dl._local_groups(len(ids), T)
        else:
            cap = table_size(int(deg.max()))
            groups, (gk, gv) = dl._global_tables(cap, len(ids))
        dl.kernel(f"compute_move_b{b}")(
            q, (groups * dl.wg,), (dl.wg,), vs.data, np.int32(0), np.int32(len(ids)), vp.data,
            e.data, w.data, dC.data, dk.data, dkq.data, dac.data, np.float64(1.0), dcs.data,
            newc.data, np.float64(m2), np.float64(1.0), gk.data, gv.data, np.int32(cap),
            np.uint32(1), np.uint32(0), np.int32(0), np.int32(updown))
        keep.append((vs, flags))
    got = newc.get()
    for i in np.flatnonzero(deg):
        row = A.indices[A.indptr[i]:A.indptr[i + 1]]
        ev = {}
        for j in row:
            if j != i:
                ev[C[j]] = ev.get(C[j], 0) + 1
        ci = C[i]
        own = m2 * ev.get(ci, 0) - float(k[i]) * (float(ac[ci]) - float(k[i]))
        cand = [(m2 * v - float(k[i]) * float(ac[c]), -c) for c, v in ev.items() if c != ci]
        exp = ci
        if cand:
            sc, c = max(cand)
            if sc > own and (updown != 1 or -c < ci) and (updown != 2 or -c > ci):
                exp = -c
        assert got[i] == exp, (i, deg[i])


# ------------------------------------------------------------------ degree partition
def test_degree_partition_bins_every_vertex_by_its_bounds(monkeypatch):
    """Alg. 1 lines 4-5 on the device: the vertices sorted by degree key (bin and octave) put
    each degree bucket and part (the bounds, KEY_MAX's open end included) in its own range of
    vset, with the ends the host counts; within a bin the octaves rise."""
    drv = importlib.import_module("pyclmatch.community.louvain")
    seen = []
    orig = drv.DeviceLouvain.partition

    def partition(self):
        orig(self)
        seen.append((self.vertices.get(), self.vset.get(), self.ends.copy(), list(self.mb)))
    monkeypatch.setattr(drv.DeviceLouvain, "partition", partition)
    rng = np.random.default_rng(3)
    hubs, n = (0, 1, 2), 70_200            # hub degrees 300, 5000 and 70000 (> KEY_MAX)
    rows = [np.full(d, h) for h, d in zip(hubs, (300, 5000, 70_000))]
    cols = [rng.choice(np.arange(3, n), d, replace=False) for d in (300, 5000, 70_000)]
    u, v = rng.integers(3, n, 40_000), rng.integers(3, n, 40_000)
    U = sp.coo_matrix((np.ones(40_000 + 75_300), (np.concatenate(rows + [u]),
                                                   np.concatenate(cols + [v]))), shape=(n, n))
    A = ((U + U.T) > 0).astype(float).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    louvain(A, max_level=1, one_group_edges=0, verify="host")
    vp, vset, ends, bounds = seen[0]
    deg = np.minimum(np.diff(vp), bounds[-1])
    assert sorted(vset.tolist()) == list(range(n))
    for b, bound in enumerate(bounds):
        assert ends[b] == np.count_nonzero(deg <= bound), (b, bound)
        lo = ends[b - 1] if b else 0
        part = deg[vset[lo:ends[b]]]
        assert part.size == 0 or (part.max() <= bound and (b == 0 or part.min() > bounds[b - 1]))
        octave = np.floor(np.log2(np.maximum(part, 1))).astype(int)
        assert (np.diff(np.minimum(octave, 15)) >= 0).all()
    assert np.diff(vp).max() > bounds[-1]


# ------------------------------------------------------------------ aggregation = M^T A M
@pytest.mark.parametrize("det,giants,weight", [
    (False, "batches", 1.0), (True, "batches", 1.0), (False, "one group each", 1.0),
    (True, "one batch", 1.0), (False, "one batch", 0.5), (False, "one group each", 0.5)])
def test_aggregated_graph_is_the_community_quotient(monkeypatch, det, giants, weight):
    """Algorithm 3 on the device (all three mergeCommunity buckets, global tables included:
    R-MAT hubs) gives the quotient graph M^T A M, self-loops (kept doubled) included; the
    giant communities merged by all work-groups together (in batches of 2, or one batch) or
    by one work-group each; integer weights (exact int sums) and halves (float atomics, exact
    sums in float32 at this size)."""
    drv = importlib.import_module("pyclmatch.community.louvain")
    from pyclmatch import generators
    orig = drv.DeviceLouvain.__init__

    def init(self, *a, **k):
        orig(self, *a, **k)
        self.debug = True
        if giants == "one group each":
            self.giant_max = 0
    monkeypatch.setattr(drv.DeviceLouvain, "__init__", init)
    monkeypatch.setattr(drv, "GLOBAL_SPLITS", (400, 700))   # split the global buckets here
    if giants == "batches":
        monkeypatch.setattr(drv, "GIANT_BATCH", 2)
    A = generators.kron(11).astype(np.float64)
    A = (A + sp.diags((np.arange(A.shape[0]) % 7 == 0).astype(float))).tocsr()  # loops
    A.data[:] = weight
    r = louvain(A, return_levels=True, max_level=2, deterministic=det, threshold=1e-3,
                one_group_edges=0)       # (the per-bucket path; test_louvain_one_group.py)
    assert r.counters["weights"] == ("int" if det or weight == 1.0 else "float")
    m0 = r.levels[0]
    k = int(m0.max()) + 1
    M = sp.csr_matrix((np.ones(m0.size), (np.arange(m0.size), m0)), shape=(m0.size, k))
    Agg = (M.T @ (A + sp.diags(A.diagonal())) @ M).toarray()
    assert (r.counters.get("giant_communities", 0) > 0) == (giants != "one group each")
    vp, e, w, kk = r.counters["graphs"][0]
    assert max(np.diff(vp)) > 479 or (np.bincount(m0) > 1).any()
    D = np.zeros((k, k))
    for u in range(k):
        np.add.at(D[u], e[vp[u]:vp[u + 1]], w[vp[u]:vp[u + 1]])
        assert len(set(e[vp[u]:vp[u + 1]].tolist())) == vp[u + 1] - vp[u]   # merged edges
    assert np.array_equal(D, Agg)
    assert np.allclose(kk, Agg.sum(1))


# ------------------------------------------------------------------ hierarchy, options
def test_levels_and_max_level():
    G = nx.les_miserables_graph()
    r = louvain(G, return_levels=True)
    assert len(r.levels) == r.counters["levels"] >= 2
    assert np.array_equal(r.levels[-1], r.membership)
    counts = [lv.max() + 1 for lv in r.levels]
    assert counts == sorted(counts, reverse=True)
    A = nx.to_scipy_sparse_array(G)
    qs = [modularity(A, lv) for lv in r.levels]
    assert all(b >= a - 1e-12 for a, b in zip(qs, qs[1:]))
    one = louvain(G, max_level=1)
    assert one.counters["levels"] == 1
    assert np.array_equal(one.membership, r.levels[0])
    # every level refines into the next
    for a, b in zip(r.levels, r.levels[1:]):
        assert len(set(zip(a.tolist(), b.tolist()))) == a.max() + 1
    assert "optimize:level0" in r.timings and r.first_phase_rate > 0


def test_thresholds_and_seed():
    G = nx.karate_club_graph()
    coarse = louvain(G, threshold=0.5)
    assert coarse.counters["levels"] == 1
    fine = louvain(G, threshold=(1e-2, 1e-7))
    assert fine.modularity >= coarse.modularity
    paper = louvain(G, threshold="paper", moves="paper")
    assert paper.modularity >= 0.98 * nx_louvain_q(G)
    rel = louvain(G, threshold=("relative", 0.5, 0.5))
    assert rel.modularity == pytest.approx(nx_q(G, rel), abs=1e-9)
    with pytest.raises(InputError):
        louvain(G, threshold="fast")
    with pytest.raises(InputError):
        louvain(G, moves="sideways")
    a, b = louvain(G, seed=3), louvain(G, seed=3)
    assert np.array_equal(a.membership, b.membership)
    assert a.modularity == pytest.approx(nx_q(G, a), abs=1e-9)


@pytest.mark.parametrize("family", ["kron", pytest.param("uniform", marks=pytest.mark.slow)])
def test_large_graph_regime_quality(family):
    """With bin_limit scaled down, a small graph runs in the regime of the reference graphs
    (millions of vertices: t_bin, fully parallel moves). The default stop and move rules stay
    within 2% of networkx's louvain_communities; the paper's absolute t_bin = 1e-2 stops the
    first phases after a few iterations and loses 5-10% (R-MAT: 0.91, uniform: 0.95)."""
    from pyclmatch import generators
    A = generators.kron(12) if family == "kron" else generators.uniform(1 << 13, 4)
    A = (A + A.T).tocsr().astype(np.float32)
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1
    G = nx.from_scipy_sparse_array(A)
    ref = nx_louvain_q(G, seeds=[0])
    r = louvain(A, bin_limit=200)
    assert r.modularity >= 0.98 * ref
    paper = louvain(A, bin_limit=200, threshold="paper", moves="paper")
    assert paper.modularity < r.modularity


def test_empty_and_edgeless_graphs():
    r = louvain(sp.csr_matrix((5, 5)))
    assert np.array_equal(r.membership, np.arange(5)) and r.modularity == 0.0
    r = louvain(sp.csr_matrix((0, 0)))
    assert r.membership.size == 0


def test_tuned_buckets_and_work_group_sizes_give_valid_results():
    A = mtx_graph("bcsstk13.mtx")
    base = louvain(A)
    for kw in (dict(move_buckets=((1, 16, 16), (17, 64, 32), (65, None, None))),
               dict(subrounds=1), dict(subrounds=16)):
        r = louvain(A, **kw)
        assert r.modularity >= 0.97 * base.modularity
        assert r.modularity == pytest.approx(r.device_modularity, abs=1e-4)


# ------------------------------------------------------------------ determinism
def test_deterministic_same_answer_every_run_and_geometry():
    G = nx.stochastic_block_model([30] * 20, (np.full((20, 20), 0.01)
                                              + 0.3 * np.eye(20)).tolist(), seed=4)
    A = nx.to_scipy_sparse_array(G, format="csr")
    rng = np.random.default_rng(5)
    W = sp.triu(A, 1).tocsr()
    W.data = rng.random(W.nnz) * 3 + 0.01             # non-integer weights
    W = (W + W.T).tocsr()
    for graph in (A, W):
        ref = louvain(graph, deterministic=True)
        assert ref.deterministic
        # the GPU geometry (work-group 128, the paper's work-items per vertex) on this device
        for kw in ({}, {"work_group_size": 128, "move_buckets": PAPER_MOVE_BUCKETS}):
            r = louvain(graph, deterministic=True, **kw)
            assert np.array_equal(r.membership, ref.membership), kw
            assert r.device_modularity == ref.device_modularity
    with pytest.raises(InputError, match="bounds"):
        louvain(A, deterministic=True, move_buckets=((1, None, None),))


def test_builds_ahead_meet_the_run(monkeypatch):
    """The background builds of a per-bucket run (DeviceHandle.ahead, GPU devices only) race
    the run's own first builds on a fresh handle: each program and helper is built once and
    the answer is the one built without them."""
    from pyclmatch.engine import devices
    G = nx.stochastic_block_model([40] * 10, (np.full((10, 10), 0.01)
                                              + 0.3 * np.eye(10)).tolist(), seed=7)
    A = nx.to_scipy_sparse_array(G, format="csr")
    ref = louvain(A, deterministic=True, one_group_edges=0,
                  device=os.environ.get("PYCLMATCH_TEST_DEVICE") or None)
    started = []

    def ahead(self, *builds):       # (as on a GPU: CPU devices build nothing ahead)
        started.append(devices.start_ahead(self.label, builds))
        return started[-1]
    monkeypatch.setattr(devices.DeviceHandle, "ahead", ahead)
    fresh = devices.DeviceHandle(devices.get_device(
        os.environ.get("PYCLMATCH_TEST_DEVICE") or None).device)
    r = louvain(A, deterministic=True, one_group_edges=0, device=fresh)
    assert len(started) == 1 and not started[0].is_alive()
    assert np.array_equal(r.membership, ref.membership)
    assert r.device_modularity == ref.device_modularity
    assert {k for k in fresh._memo if k[0] == "louvain"} >= {
        ("louvain", "sort"), ("louvain", "scan"), ("louvain", "imax")}


def test_deterministic_quality():
    G = nx.les_miserables_graph()
    r = louvain(G, deterministic=True)
    assert r.modularity == pytest.approx(nx_q(G, r), abs=1e-9)
    assert r.modularity >= 0.98 * nx_louvain_q(G)


# ------------------------------------------------------------------ property test
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 120), p=st.floats(0.01, 0.3), seed=st.integers(0, 10 ** 6),
       weighted=st.booleans(), det=st.booleans())
def test_random_graphs_valid_partitions(n, p, seed, weighted, det):
    G = nx.gnp_random_graph(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    if weighted:
        for u, v in G.edges:
            G[u][v]["weight"] = float(rng.integers(1, 5))
    r = louvain(G, deterministic=det)
    assert r.membership.shape == (n,)
    if n:
        assert set(np.unique(r.membership)) == set(range(r.n_communities))
    if G.number_of_edges():
        q = nx_q(G, r)
        assert r.modularity == pytest.approx(q, abs=1e-9)
        singletons = nx.community.modularity(G, [{v} for v in G])
        assert q >= singletons - 1e-12                  # never worse than the start
        # (a community need not have an edge inside: vertices moving at the same time can
        # swap sides of a bipartite piece, e.g. gnp(76, 0.0151, seed=0) weighted)


# ------------------------------------------------------------------ verification
from pyclmatch.community.verify import check_answer  # noqa: E402 (the verification's test hook)
from pyclmatch.errors import VerificationError  # noqa: E402


def _graph(n, p, seed, kind, loops):
    """A random symmetric CSR matrix with weights of ``kind`` and optional self-loops."""
    rng = np.random.default_rng(seed)
    U = sp.random(n, n, density=p, random_state=rng, format="coo")
    if kind == "float":
        w = rng.uniform(0.01, 10.0, U.nnz)
    elif kind == "tiny":
        w = rng.uniform(1e-9, 1e-6, U.nnz)
    else:
        w = rng.integers(1, 100, U.nnz)
    A = sp.coo_matrix((w, (U.row, U.col)), shape=(n, n)).tocsr()
    A = sp.triu(A, 1)
    A = (A + A.T).tocsr()
    if loops:
        d = rng.integers(0, n, max(1, n // 5))
        A = (A + sp.csr_matrix((np.ones(d.size) * (3 if kind == "int" else 0.5), (d, d)),
                               shape=(n, n))).tocsr()
    A.sum_duplicates()
    A.sort_indices()
    return A


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 90), p=st.floats(0.0, 0.3), seed=st.integers(0, 10 ** 6),
       kind=st.sampled_from(["int", "float", "tiny"]), loops=st.booleans(),
       labels=st.integers(1, 12), resolution=st.sampled_from([1.0, 0.3, 2.5]),
       dtype=st.sampled_from(["int8", "uint8", "int16", "int32", "int64", "float32",
                              "float64", "bool"]),
       lanes=st.sampled_from([None, 8]))
def test_device_verification_equals_host(n, p, seed, kind, loops, labels, resolution, dtype,
                                         lanes, device):
    """The device recomputation of Eq. (1) (kernels/modularity.cl.mako) equals the host's
    (float64 numpy) for any valid membership: integer (int64 sums) and float (double sums)
    weights of every dtype, self-loops, resolutions other than 1, one or 8 work-items per
    row. With integer weights both are exact up to the final divisions."""
    A = _graph(n, p, seed, kind, loops)
    if dtype == "bool" or (np.dtype(dtype).kind in "iu" and kind != "int"):
        A.data = np.ones_like(A.data)
    A = A.astype(dtype)
    if dtype in ("int8", "uint8"):
        A.data = np.minimum(A.data, 7).astype(dtype)
    A.eliminate_zeros()
    if A.nnz == 0:
        return
    rng = np.random.default_rng(seed + 1)
    memb = rng.permutation(np.arange(n) % min(labels, n))    # 0..k-1, none empty
    q_host = modularity(A, memb, resolution)
    # (int64 weights: int64 sums with the driver's weight total, double sums without it)
    hint = {"m2_hint": float(A.sum() + A.diagonal().sum())} if dtype == "int64" and seed % 2 \
        else {}
    for mode, kw in (("host", {}), ("device", dict(handle=device, row_lanes=lanes, **hint))):
        q, k = check_answer(mode, memb, q_host, resolution, True, A=A, **kw)
        assert k == min(labels, n)
        assert q == pytest.approx(q_host, rel=1e-12, abs=1e-13), mode
    assert q_host == pytest.approx(nx.community.modularity(
        nx.from_scipy_sparse_array(A.astype(np.float64)),
        [set(np.flatnonzero(memb == c).tolist()) for c in range(k)], resolution=resolution),
        abs=1e-9)


@pytest.mark.parametrize("mode", ["device", "host"])
def test_verification_rejects_corrupted_answers(mode, device):
    """Both verifications accept the answer (and the same answer with two communities'
    labels exchanged: the same partition) and reject a vertex moved to another community, a
    label out of range (n, -1), a gap in the numbering and a wrong reported modularity."""
    G = nx.les_miserables_graph()
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, format="csr", dtype=np.float64))
    for det, B in ((False, A), (True, A.astype(np.int32))):
        r = louvain(B, deterministic=det, device=device)
        n, k = B.shape[0], r.n_communities
        exact = det and r.counters.get("fixed_point_scale") == 1.0
        assert exact == det
        kw = dict(A=B, handle=device) if mode == "device" else dict(A=B)

        def check(memb, q=r.device_modularity):
            return check_answer(mode, memb, q, 1.0, exact, **kw)

        q, kk = check(r.membership)
        assert kk == k and q == pytest.approx(r.modularity, abs=1e-12)
        swapped = r.membership.copy()
        swapped[r.membership == 0], swapped[r.membership == 1] = 1, 0
        assert check(swapped)[0] == pytest.approx(q, abs=1e-12)
        moved = r.membership.copy()
        v = int(np.argmax(np.diff(B.indptr)))                # the largest degree
        moved[v] = (moved[v] + 1) % k
        assert abs(modularity(B, moved) - q) > 1e-3
        bad = {"moved": moved}
        for name, value in (("label n", n), ("label -1", -1)):
            m = r.membership.copy()
            m[v] = value
            bad[name] = m
        gap = r.membership.copy()
        gap[gap == k - 1] = k
        bad["gap"] = gap
        for name, m in bad.items():
            with pytest.raises(VerificationError):
                check(m)
        with pytest.raises(VerificationError, match="differs"):
            check(r.membership, r.device_modularity + (1e-5 if exact else 1e-3))


def test_louvain_verify_modes_and_a_corrupted_run(monkeypatch, device):
    """``verify="device"`` checks on the device (as ``True`` does but for small graphs on a
    CPU device), ``"host"`` on the host, ``False`` not at all; a run whose membership is
    corrupted after the algorithm (on the host and on the device) is rejected by every
    check; ``timings["total"]`` is the whole call."""
    drv = importlib.import_module("pyclmatch.community.louvain")
    G = nx.karate_club_graph()
    runs = {v: louvain(G, verify=v, device=device) for v in ("device", "host", False)}
    for v, r in runs.items():
        assert r.modularity == pytest.approx(nx_q(G, r), abs=1e-9)
        assert r.timings["total"] >= r.timings.get("verify", 0.0)
        assert ("verify" in r.timings) == (v is not False)
    assert runs["device"].timings["kernel:verify"] > 0
    assert ("kernel:verify" in louvain(G, device=device).timings) == (not device.is_cpu)
    assert runs[False].modularity == runs[False].device_modularity
    with pytest.raises(InputError, match="verify"):
        louvain(G, verify="gpu")
    orig = drv.DeviceLouvain.run

    def corrupted(self, *args, **kwargs):
        memb, q, levels, stats = orig(self, *args, **kwargs)
        memb = memb.copy()
        memb[0] = memb.max() + 1          # a vertex moved to a new community
        if self.kept is not None:
            self.kept[1][0:1].fill(int(memb[0]))
        return memb, q, levels, stats
    monkeypatch.setattr(drv.DeviceLouvain, "run", corrupted)
    for v in (True, "device", "host"):
        with pytest.raises(VerificationError):
            louvain(G, verify=v, device=device)
    louvain(G, verify=False, device=device)


# ------------------------------------------------------------------ input forms (device checks)
def test_input_forms_give_the_same_answer():
    """The host passes the CSR arrays as they are; the device checks and converts them. Every
    weight dtype, unsorted rows, duplicates and explicit zeros give the answer of the
    canonical float64 matrix (deterministic mode: identical memberships)."""
    G = nx.les_miserables_graph()
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, format="csr", dtype=np.float64))
    ref = louvain(A, deterministic=True)
    variants = {}
    for dt in (np.float32, np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64):
        B = A.copy()
        B.data = B.data.astype(dt)
        variants[np.dtype(dt).name] = B
    U = A.copy()                                     # unsorted rows (reversed)
    for i in range(U.shape[0]):
        s, e = U.indptr[i], U.indptr[i + 1]
        U.indices[s:e] = U.indices[s:e][::-1].copy()
        U.data[s:e] = U.data[s:e][::-1].copy()
    variants["unsorted"] = sp.csr_matrix((U.data, U.indices, U.indptr), shape=A.shape)
    variants["duplicates"] = sp.csr_matrix(         # every entry twice, half the weight
        (np.repeat(A.data / 2, 2), np.repeat(A.indices, 2), A.indptr * 2), shape=A.shape)
    C = A.tocoo()
    Z = sp.csr_matrix((np.r_[C.data, 0.0, 0.0], (np.r_[C.row, 0, 5], np.r_[C.col, 5, 0])),
                      shape=A.shape)
    assert (Z.data == 0).sum() == 2
    variants["explicit zeros"] = sp.csr_matrix((Z.data, Z.indices, Z.indptr), shape=A.shape)
    for name, B in variants.items():
        r = louvain(B, deterministic=True)
        assert np.array_equal(r.membership, ref.membership), name
        assert r.counters["input_edges"] == 254, name
        # repaired on the host after the device found them (scipy had not checked)
        assert r.counters.get("input_repaired", 0) == (name in ("unsorted", "duplicates",
                                                                 "explicit zeros")), name
    # self-loops (doubled in k_i, as networkx), weights far from 1 (rescaled on the device)
    L = A.tolil()
    L[3, 3] = 2.5
    L[10, 10] = 1.0
    L = L.tocsr()
    for det in (False, True):
        r = louvain(L, deterministic=det)
        assert r.counters["input_edges"] == 256
        assert r.modularity == pytest.approx(modularity(L, r.membership), abs=1e-12)
    for s in (1e35, 1e-35, 1e300):
        r = louvain(A * s)
        assert r.modularity == pytest.approx(ref.modularity, abs=1e-6)


# ------------------------------------------------------------------ bad input
def test_bad_input():
    D = nx.DiGraph([(0, 1), (1, 2)])
    with pytest.raises(InputError, match="directed"):
        louvain(D)
    A = sp.csr_matrix(np.array([[0, 1.0], [0, 0]]))
    with pytest.raises(InputError, match="symmetric"):
        louvain(A)
    with pytest.raises(InputError, match="negative"):
        louvain(sp.csr_matrix(np.array([[0, -1.0], [-1.0, 0]])))
    with pytest.raises(InputError, match="NaN"):
        louvain(sp.csr_matrix(np.array([[0, np.nan], [np.nan, 0]])))
    with pytest.raises(InputError, match="infinite"):
        louvain(np.array([[0, np.inf], [np.inf, 0]]))
    with pytest.raises(InputError, match="negative"):
        louvain(sp.csr_matrix(np.array([[0, -1], [-1, 0]], np.int8)))
    with pytest.raises(InputError, match="out of range"):
        louvain(sp.csr_matrix((np.ones(2), np.array([1, 5]), np.array([0, 1, 2])),
                              shape=(2, 2)))
    with pytest.raises(InputError, match="overflows"):
        louvain(sp.csr_matrix(np.array([[0, 1e308], [1e308, 0]])))
    with pytest.raises(InputError, match="symmetric"):      # same pattern, other weights
        louvain(sp.csr_matrix(np.array([[0, 1.0], [2.0, 0]])))
    r = louvain(sp.csr_matrix((np.zeros(2), np.array([1, 0]), np.array([0, 1, 2])),
                              shape=(2, 2)))                 # only zero weights: no edges
    assert np.array_equal(r.membership, [0, 1]) and r.modularity == 0.0
    with pytest.raises(InputError, match="square"):
        louvain(sp.csr_matrix(np.ones((2, 3))))
    with pytest.raises(InputError):
        louvain(nx.karate_club_graph(), resolution=-1)
    with pytest.raises(InputError):
        louvain(nx.karate_club_graph(), threshold=float("nan"))
    with pytest.raises(InputError):
        louvain(nx.karate_club_graph(), max_level=0)
    with pytest.raises(InputError):
        louvain("not a graph")
    with pytest.raises(ValueError):                    # InputError is a ValueError
        louvain(sp.csr_matrix(np.ones((2, 3))))


# ------------------------------------------------------------------ heavier cases
@pytest.mark.slow
def test_delaunay_n16_within_two_percent():
    A = mtx_graph("delaunay_n16.mtx")
    r = louvain(A)
    G = nx.from_scipy_sparse_array(A)
    assert r.modularity >= 0.98 * nx_louvain_q(G, seeds=[0])


@pytest.mark.slow
def test_input_kernels_with_the_gpu_row_lanes(monkeypatch):
    """The input kernels as GPUs run them (8 work-items per row, reductions over the lanes)
    give the same answer here (R-MAT hubs, self-loops)."""
    drv = importlib.import_module("pyclmatch.community.louvain")
    from pyclmatch import generators
    A = generators.kron(11).astype(np.float64)
    A.data[:] = 1
    A = (A + sp.diags((np.arange(A.shape[0]) % 7 == 0).astype(float))).tocsr()
    refs = [louvain(A, deterministic=d) for d in (False, True)]
    orig = drv.DeviceLouvain.__init__

    def init(self, *a, **k):
        orig(self, *a, **k)
        self.values["row_lanes"] = 8
    monkeypatch.setattr(drv.DeviceLouvain, "__init__", init)
    for det, ref in zip((False, True), refs):
        r = louvain(A, deterministic=det)
        assert np.array_equal(r.membership, ref.membership)
        assert r.counters["input_edges"] == ref.counters["input_edges"]


@pytest.mark.gpu
@pytest.mark.parametrize("det", [False, True])
def test_gpu_large_sbm_and_mtx(det):
    rng = np.random.default_rng(0)
    sizes = rng.integers(50, 400, 400)
    k = len(sizes)
    n = int(sizes.sum())
    block = np.repeat(np.arange(k), sizes)
    # sparse planted partition: ~12 intra and ~1 inter edges per vertex
    m_in, m_out = 6 * n, n // 2
    r_in = rng.integers(0, n, m_in)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    c_in = starts[block[r_in]] + (rng.random(m_in) * sizes[block[r_in]]).astype(int)
    r_out, c_out = rng.integers(0, n, m_out), rng.integers(0, n, m_out)
    r = np.concatenate([r_in, r_out])
    c = np.concatenate([c_in, c_out])
    A = sp.csr_matrix((np.ones(r.size), (r, c)), shape=(n, n))
    A = A + A.T
    A.data[:] = 1
    A.setdiag(0)
    A.eliminate_zeros()
    res = louvain(A, device="gpu", deterministic=det)
    assert res.modularity > 0.8
    assert res.modularity == pytest.approx(res.device_modularity, abs=1e-4)
    other = louvain(A, device="gpu", deterministic=det, work_group_size=64)
    assert other.modularity >= 0.99 * res.modularity
    if det:                       # another geometry, and runs repeat exactly
        assert np.array_equal(res.membership, other.membership)
        again = louvain(A, device="gpu", deterministic=True)
        assert np.array_equal(res.membership, again.membership)
    try:
        from pyclmatch import get_device
        get_device("cpu")
    except Exception:             # no CPU OpenCL driver on this host
        cpu = None
    else:
        cpu = louvain(A, device="cpu", deterministic=det)
    if cpu is not None:
        assert res.modularity >= 0.99 * cpu.modularity
        if det:                   # the same answer on the GPU and on the CPU
            assert np.array_equal(res.membership, cpu.membership)
            assert res.device_modularity == cpu.device_modularity
    for name in ("bcsstk13.mtx", "delaunay_n16.mtx"):
        B = mtx_graph(name)
        g = louvain(B, device="gpu", deterministic=det)
        G = nx.from_scipy_sparse_array(B)
        assert g.modularity == pytest.approx(nx_q(G, g), abs=1e-9)
        assert g.modularity >= 0.98 * nx_louvain_q(G, seeds=[0])
