"""The Leiden algorithm on the device and the connectivity certificate: every community
connected (against scipy's connected_components per community), modularity recomputed on the
host, quality against Louvain's, reproducibility, levels, the certificate's refusals, bad
input."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

nx = pytest.importorskip("networkx")
from hypothesis import given, settings, strategies as st, HealthCheck

import pyclmatch
from pyclmatch.community import api
from pyclmatch.community.api import leiden, louvain, modularity, LeidenResult
from pyclmatch.community.connectivity import device_components, host_components
from pyclmatch.community.modularity import InputGraph
from pyclmatch.engine.scheduler import Scheduler
from pyclmatch.errors import InputError, VerificationError

from test_louvain import DATA       # (the shared graphs' folder, or None)


def shared_graph(name):
    """A shared graph's pattern, symmetrized, unit weights, no self-loops."""
    if DATA is None:
        pytest.skip("the shared graphs (shared/data/graphs) are not here")
    A = pyclmatch.read_graph(os.path.join(DATA, name), symmetrize=True).tocsr()
    A = (abs(A) + abs(A).T).tocsr()
    A.data[:] = 1
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def disconnected_reference(A, memb):
    """Communities of ``memb`` whose induced subgraph of ``A`` is not connected (scipy: the
    components of the graph without the edges between communities, counted per community;
    per-community subgraphs below a few hundred communities, as a second opinion)."""
    A = sp.csr_matrix(A)
    memb = np.asarray(memb)
    k = int(memb.max()) + 1 if memb.size else 0
    C = A.tocoo()
    keep = memb[C.row] == memb[C.col]
    B = sp.csr_matrix((np.ones(int(keep.sum())), (C.row[keep], C.col[keep])), shape=A.shape)
    _, lab = connected_components(B, directed=False)
    pieces = np.unique(np.stack([memb, lab]), axis=1)[0]
    bad = int((np.bincount(pieces, minlength=k) > 1).sum())
    if k <= 300:
        slow = sum(connected_components(A[idx][:, idx], directed=False)[0] > 1
                   for idx in (np.flatnonzero(memb == c) for c in range(k)))
        assert slow == bad
    return bad


def check_answer(A, res, resolution=1.0):
    """Every community connected, labels 0..k-1, modularity = the host's."""
    memb = res.membership
    k = res.n_communities
    assert sorted(set(memb.tolist())) == list(range(k))
    assert disconnected_reference(A, memb) == 0
    assert res.disconnected == 0 and res.components == k
    assert res.modularity == pytest.approx(modularity(A, memb, resolution), abs=1e-6)


# ------------------------------------------------------------------ small graphs
def test_barbell_and_karate():
    res = leiden(nx.barbell_graph(5, 0), deterministic=True)
    assert res.membership.tolist() == [0] * 5 + [1] * 5
    assert isinstance(res, LeidenResult) and res.disconnected == 0 and res.components == 2
    G = nx.karate_club_graph()
    res = leiden(G, weight=None, deterministic=True)
    A = nx.to_scipy_sparse_array(G, weight=None, format="csr")
    check_answer(A, res)
    assert res.modularity == pytest.approx(nx.community.modularity(G, res.communities,
                                                                   weight=None))
    assert res.modularity >= louvain(G, weight=None, deterministic=True).modularity - 1e-9
    assert res.modularity > 0.41


def test_weighted_resolution_and_labels():
    G = nx.relabel_nodes(nx.les_miserables_graph(), str)
    res = leiden(G, resolution=1.5, deterministic=True)
    assert res.nodes == list(G.nodes)
    A = nx.to_scipy_sparse_array(G, format="csr")
    check_answer(A, res, 1.5)
    assert res.modularity == pytest.approx(
        nx.community.modularity(G, res.communities, resolution=1.5))


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(2, 80), p=st.floats(0.02, 0.3), seed=st.integers(0, 10 ** 6),
       weighted=st.booleans(), det=st.booleans(), theta=st.sampled_from([0.0, 0.01, 1.0]))
def test_random_graphs_connected_and_verified(n, p, seed, weighted, det, theta):
    G = nx.gnp_random_graph(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 9)) / 4 if weighted else 1.0
    A = nx.to_scipy_sparse_array(G, format="csr")
    res = leiden(A, deterministic=det, theta=theta, seed=seed % 7)
    if A.nnz == 0:
        assert res.membership.tolist() == list(range(n))
        return
    check_answer(A, res)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(2, 70), p=st.floats(0.03, 0.4), seed=st.integers(0, 10 ** 6),
       theta=st.sampled_from([0.0, 0.01]), loops=st.booleans(), heavy=st.booleans(),
       claims=st.booleans(), small=st.booleans())
def test_refinement_keeps_ext_weights(monkeypatch, n, p, seed, theta, loops, heavy, claims,
                                      small):
    """refine_apply keeps extR[T] = E(T, S - T) (the weight from refined community T to the
    rest of its community S of P) through every round: compared with the sums recomputed on
    the host from the converted weights, at every level (integer weights; ``heavy``: every
    vertex of degree > 2 through the heavy kernels; ``claims``: every singleton moving,
    settled by refine_claim; ``small``: the levels in one work-group, refine_one_group)."""
    from pyclmatch.community import leiden as mod
    from pyclmatch.community.leiden import DeviceLeiden
    if heavy:
        monkeypatch.setattr(mod, "HEAVY_DEGREE", 3)
    monkeypatch.setattr(DeviceLeiden, "__init__", _with_init(claims=claims))
    G = nx.gnp_random_graph(n, p, seed=seed)
    rng = np.random.default_rng(seed)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.integers(1, 6))
    if loops:
        G.add_edge(0, 0, weight=2.0)
    A = nx.to_scipy_sparse_array(G, format="csr")
    seen = []
    orig = DeviceLeiden.aggregate_refined

    def spy(self):
        d = self.handle.download
        vert, edg, w = d(self.vertices, np.int64), d(self.edges, np.int64), d(self.w, np.int64)
        C, R, ext = (d(x, np.int64)[:self.n] for x in (self.C, self.R, self.extR))
        src = np.repeat(np.arange(self.n), np.diff(vert[:self.n + 1]))
        e = slice(0, int(vert[self.n]))
        inside = (C[src] == C[edg[e]]) & (R[src] != R[edg[e]])
        want = np.bincount(R[src[inside]], weights=w[e][inside], minlength=self.n)
        live = np.unique(R)
        seen.append(np.array_equal(ext[live], want[live].astype(np.int64)))
        return orig(self)
    monkeypatch.setattr(DeviceLeiden, "aggregate_refined", spy)
    res = leiden(A, deterministic=True, theta=theta, seed=seed % 5,
                 one_group_edges=None if small else 0)
    assert all(seen) and (seen or A.nnz == 0)
    if A.nnz:
        check_answer(A, res)


@pytest.mark.parametrize("theta", [0.0, 0.01])
def test_heavy_singletons_choose_as_one_work_item_would(monkeypatch, theta):
    """refine_choose_heavy (a work-group per singleton of high degree, the candidates reduced
    in the argmax order) takes the targets that refine_choose's one work-item scan takes:
    the same answer with every vertex of degree > 4 heavy and with none."""
    from pyclmatch.community import leiden as mod
    A = pyclmatch.generators.kron(12)
    A = sp.csr_matrix(abs(A) + abs(A).T)
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1
    out = []
    for bound in (5, 10 ** 9):
        monkeypatch.setattr(mod, "HEAVY_DEGREE", bound)
        out.append(leiden(A, deterministic=True, theta=theta, seed=1, one_group_edges=0))
    assert np.array_equal(out[0].membership, out[1].membership)
    assert out[0].modularity == out[1].modularity


def test_refinement_batches_give_the_same_answer(monkeypatch):
    """Refinement rounds enqueued 1, 2, 3 or 4 at a time between reads: the same answer."""
    from pyclmatch.community import leiden as mod
    A = nx.to_scipy_sparse_array(nx.les_miserables_graph(), format="csr")
    out = []
    for batch in (1, 2, 3, 4):
        monkeypatch.setattr(mod, "BATCH", batch)
        out.append(leiden(A, deterministic=True, one_group_edges=0))
    assert all(np.array_equal(r.membership, out[0].membership) for r in out)
    assert len({r.counters["refine_rounds"] == out[0].counters["refine_rounds"]
                for r in out}) == 1


def test_deterministic_reproducible_and_seeded_theta():
    G = nx.les_miserables_graph()
    runs = [leiden(G, deterministic=True) for _ in range(2)]
    assert np.array_equal(runs[0].membership, runs[1].membership)
    assert runs[0].modularity == runs[1].modularity
    a, b = (leiden(G, deterministic=True, theta=0.05, seed=3) for _ in range(2))
    assert np.array_equal(a.membership, b.membership)


def test_levels_refine_and_max_level():
    G = nx.connected_caveman_graph(6, 7)
    A = nx.to_scipy_sparse_array(G, format="csr")
    res = leiden(A, deterministic=True, return_levels=True, iterations=1)
    assert len(res.levels) == len(res.refined_levels) == res.counters["levels"]
    assert np.array_equal(res.levels[-1], res.membership)
    for coarse, fine in zip(res.levels, res.refined_levels):
        # each refined community lies inside one community, and is connected
        pairs = set(zip(fine.tolist(), coarse.tolist()))
        assert len(pairs) == len(set(fine.tolist()))
        assert disconnected_reference(A, fine) == 0
    one = leiden(A, deterministic=True, max_level=1, iterations=1)
    check_answer(A, one)
    assert one.counters["levels"] == 1


def test_one_group_and_per_bucket_paths_agree():
    """Local moving in one work-group or per bucket: the same deterministic answer."""
    A = nx.to_scipy_sparse_array(nx.les_miserables_graph(), format="csr")
    a = leiden(A, deterministic=True)
    b = leiden(A, deterministic=True, one_group_edges=0)
    assert a.counters.get("one_group_levels") and not b.counters.get("one_group_levels")
    assert np.array_equal(a.membership, b.membership) and a.modularity == b.modularity


@pytest.mark.parametrize("wg", [None, 64])
@pytest.mark.parametrize("kw", [dict(), dict(theta=0.05, seed=4)])
def test_one_group_refinement_equals_launched_rounds(monkeypatch, wg, kw):
    """A small level's refinement rounds in one launch (refine_one_group; one work-item on
    CPU devices, or a group of 64 with its barriers) or launched one by one: the same
    deterministic answer and rounds, with the hashed movers and theta's draws; with visits
    too (the rounds fixed)."""
    from pyclmatch.community import leiden as mod
    A = nx.to_scipy_sparse_array(nx.connected_caveman_graph(12, 6), format="csr")
    for extra in (dict(), dict(visits=3)):
        out = []
        for bound in (0, 1 << 20):
            for kind in ("cpu", "gpu"):
                monkeypatch.setitem(mod.REFINE_ONE_GROUP_EDGES, kind, bound)
            if extra:
                monkeypatch.setattr(mod.DeviceLeiden, "__init__", _with_init(visits=3))
            out.append(leiden(A, deterministic=True, work_group_size=wg, **kw))
            monkeypatch.undo()
        assert np.array_equal(out[0].membership, out[1].membership)
        assert out[0].modularity == out[1].modularity
        assert out[0].counters["refine_rounds"] == out[1].counters["refine_rounds"]
        assert out[1].counters["launches"] < out[0].counters["launches"]
        check_answer(A, out[1])
    # (a run that need not be reproducible: every singleton moves, claims settle conflicts)
    check_answer(A, leiden(A, work_group_size=wg, **kw))


def _with_init(**given):
    """DeviceLeiden's constructor with the arguments ``given``."""
    from pyclmatch.community.leiden import DeviceLeiden
    init = DeviceLeiden.__init__

    def made(self, *args, **kwargs):
        kwargs.update(given)
        init(self, *args, **kwargs)
    return made


def _mix32(x):
    """kernels/leiden.cl.mako's mix32 on a uint32 array."""
    x = x.astype(np.uint64)
    for shift, mult in ((16, 0x7FEB352D), (15, 0x846CA68B), (16, None)):
        x ^= x >> np.uint64(shift)
        if mult:
            x = (x * np.uint64(mult)) & np.uint64(0xFFFFFFFF)
    return x


def _claims_reference(prop, rsize, key):
    """The moves that refine_claim keeps (host reference): v -> t when v outranks every
    mover that targets v and t is larger than one vertex or does not outrank its own."""
    n = prop.size
    pri = _mix32(np.arange(n, dtype=np.uint64) ^ np.uint64(key))
    moving = prop >= 0
    top = np.full(n, -1, np.int64)
    single = moving & (rsize[np.maximum(prop, 0)] == 1)
    np.maximum.at(top, prop[single], pri[single].astype(np.int64))
    outranks = pri.astype(np.int64) > top
    t = np.maximum(prop, 0)
    return moving & outranks & ((rsize[t] > 1) | ~outranks[t])


def test_claims_settle_every_conflict():
    """refine_claim_top and refine_claim under contention (a star whose leaves all move to
    its centre while the centre moves to a leaf, a chain v -> v + 1, pairs and a cycle
    moving into each other, random moves with some larger targets): exactly the moves of
    the host's rule; no move kept into a singleton that moves; the mover of highest
    priority always kept; every dropped move counted as waiting; two rounds (their tags in
    the high bits of the same top array)."""
    from pyclmatch.community.leiden import DeviceLeiden
    h = pyclmatch.get_device(None)
    lk = DeviceLeiden(h, "int", claims=True).lk
    top_k, claim_k = lk.kernel("refine_claim_top"), lk.kernel("refine_claim")
    n = 4000
    rng = np.random.default_rng(1)
    for case in range(5):
        prop, rsize = np.full(n, -1, np.int32), np.ones(n, np.int32)
        if case == 0:                                   # a star and its centre
            prop[1:], prop[0] = 0, 7
        elif case == 1:                                 # a chain
            prop[:-1] = np.arange(1, n)
        elif case == 2:                                 # pairs into each other
            prop[0::2], prop[1::2] = np.arange(1, n, 2), np.arange(0, n, 2)
        elif case == 3:                                 # one cycle
            prop[:] = np.roll(np.arange(n), -1)
        else:                                           # random, some larger targets
            prop[:] = rng.integers(0, n, n)
            prop[prop == np.arange(n)] = -1
            bigs = rng.choice(n, 50, replace=False)
            rsize[bigs], prop[bigs] = 3, -1             # (a community of 3 does not move)
        moving = prop >= 0
        d_rsize = h.to_device(rsize)
        top = h.to_device(np.zeros(n, np.uint64), read_only=False)
        for rnd in (0, 1):
            key = int(rng.integers(0, 2 ** 32))
            d_prop = h.to_device(prop, read_only=False)
            counts = h.to_device(np.zeros(2, np.int32), read_only=False)
            args = (np.int32(n), d_prop.data, d_rsize.data, top.data, np.uint32(rnd),
                    np.uint32(key))
            top_k(h.queue, (n,), None, *args, counts.data, np.int32(-1))
            claim_k(h.queue, (n,), None, *args, counts.data, np.int32(0), np.int32(-1))
            kept = h.download(d_prop) >= 0
            assert np.array_equal(kept, _claims_reference(prop, rsize, key))
            into_singles = prop[kept & (rsize[np.maximum(prop, 0)] == 1)]
            assert not kept[into_singles].any()        # (a singleton target stays put)
            pri = _mix32(np.arange(n, dtype=np.uint64) ^ np.uint64(key))
            assert kept[np.flatnonzero(moving)[np.argmax(pri[moving])]]
            assert h.download(counts)[1] == int((moving & ~kept).sum())


def test_verify_modes_and_edgeless():
    G = nx.karate_club_graph()
    for mode in (True, "device", "host"):
        assert leiden(G, deterministic=True, verify=mode).disconnected == 0
    r = leiden(G, deterministic=True, verify=False)
    assert r.components is None and r.n_communities > 1
    r = leiden(sp.csr_matrix((4, 4)))
    assert r.membership.tolist() == [0, 1, 2, 3] and r.disconnected == 0


# ------------------------------------------------------------------ the certificate
def random_communities_components(A, k, seed):
    """At most ``k`` random communities of ``A``'s vertices, numbered ``0..k-1`` without
    gaps, and the device's components of them: ``(membership, k, Components)``."""
    memb = np.random.default_rng(seed).integers(0, k, A.shape[0])
    memb = np.unique(memb, return_inverse=True)[1].reshape(-1)
    k = int(memb.max()) + 1
    h = pyclmatch.get_device(None)
    comps = device_components(h, Scheduler(h), InputGraph.upload(h, A),
                              h.to_device(memb.astype(np.int32)), k)
    return memb, k, comps


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 60), p=st.floats(0.0, 0.3), k=st.integers(1, 6),
       seed=st.integers(0, 10 ** 6))
def test_device_components_match_scipy(n, p, k, seed):
    G = nx.gnp_random_graph(n, p, seed=seed)
    A = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr")
    memb, k, comps = random_communities_components(A, k, seed)
    want = 0
    for c in range(k):
        idx = np.flatnonzero(memb == c)
        want += connected_components(A[idx][:, idx], directed=False)[0]
    assert comps.components == want
    assert comps.disconnected == disconnected_reference(A, memb)
    # two vertices share a label iff they are connected inside their community
    for c in range(k):
        idx = np.flatnonzero(memb == c)
        _, lab = connected_components(A[idx][:, idx], directed=False)
        assert len(set(zip(lab.tolist(), comps.labels[idx].tolist()))) == lab.max() + 1
        assert len(set(comps.labels[idx].tolist())) == lab.max() + 1
    # the host's certificate (small graphs checked on the host) finds the same, labels too
    host = host_components(A, memb, k)
    assert (host.components, host.disconnected, host.bad_labels) == (
        comps.components, comps.disconnected, False)
    assert np.array_equal(host.labels, comps.labels)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_device_components_hubs_paths_and_empty_rows(k):
    """Rows longer than a chunk (a star's hub), a long path (union-find chains), isolated
    vertices (empty rows) and a non-symmetric pattern: the device's components equal
    scipy's (weakly connected, per community)."""
    G = nx.disjoint_union_all([nx.star_graph(300), nx.path_graph(500), nx.empty_graph(40),
                               nx.complete_graph(30)])
    A = nx.to_scipy_sparse_array(G, format="csr")
    A = sp.csr_matrix(sp.triu(A))          # (each edge stored once)
    memb, k, comps = random_communities_components(A, k, k)
    host = host_components(A, memb, k)
    assert (comps.components, comps.disconnected) == (host.components, host.disconnected)
    assert np.array_equal(comps.labels, host.labels) and comps.passes == 2


def test_certificate_refuses_a_disconnected_converged_answer(monkeypatch):
    """A converged run whose answer holds a disconnected community is refused; a run that
    stopped early has it split into its components."""
    G = nx.path_graph(6)
    A = nx.to_scipy_sparse_array(G, format="csr")
    real = api._split_disconnected

    def corrupt(call, wg, A_run, graph, memb, memb_dev, q_dev, stopped):
        memb = np.array([0, 1, 1, 0, 2, 2])        # {0, 3} is not connected
        return real(call, wg, A_run, graph, memb, call.handle.to_device(
            memb.astype(np.int32)), modularity(A_run, memb), stopped)
    monkeypatch.setattr(api, "_split_disconnected", corrupt)
    with pytest.raises(VerificationError, match="not connected"):
        leiden(A, deterministic=True)

    def early(call, wg, A_run, graph, memb, memb_dev, q_dev, stopped):
        return corrupt(call, wg, A_run, graph, memb, memb_dev, q_dev, "max_level")
    monkeypatch.setattr(api, "_split_disconnected", early)
    res = leiden(A, deterministic=True)
    assert res.counters["split_communities"] == 1 and res.n_communities == 4
    check_answer(A, res)
    assert res.modularity > modularity(A, [0, 1, 1, 0, 2, 2])
    monkeypatch.setattr(api, "_split_disconnected", real)


def test_louvain_disconnected_and_leiden_on_a_shared_graph():
    """PGPgiantcompo: Louvain's default answer holds a disconnected community, Leiden's
    none, at a higher modularity."""
    A = shared_graph("PGPgiantcompo.graph")
    lv = louvain(A, deterministic=True)
    assert lv.disconnected == disconnected_reference(A, lv.membership) >= 1
    ld = leiden(A, deterministic=True)
    check_answer(A, ld)
    assert ld.modularity >= lv.modularity - 1e-3


@pytest.mark.parametrize("name", ["bcsstk13.mtx", "rajat01.mtx", "facebook_combined.txt"])
def test_quality_at_least_louvain_on_shared_graphs(name):
    A = shared_graph(name)
    ld = leiden(A, deterministic=True)
    check_answer(A, ld)
    assert ld.modularity >= louvain(A, deterministic=True).modularity - 2e-3


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs, argument", [
    (dict(quality="surprise"), "quality"), (dict(theta=-1.0), "theta"),
    (dict(theta=float("nan")), "theta"), (dict(iterations=0), "iterations"),
    (dict(resolution=-1), "resolution"), (dict(max_level=0), "max_level"),
    (dict(seed="x"), "seed"), (dict(verify="maybe"), "verify"),
    (dict(work_group_size=48), "work_group_size")])
def test_bad_arguments(kwargs, argument):
    with pytest.raises(InputError) as err:
        leiden(nx.karate_club_graph(), **kwargs)
    assert err.value.argument == argument


def test_bad_graphs():
    with pytest.raises(InputError, match="directed") as err:
        leiden(nx.DiGraph([(0, 1)]))
    assert err.value.argument == "G"
    with pytest.raises(InputError, match="symmetric") as err:
        leiden(sp.csr_matrix(np.array([[0, 1.0], [0, 0]])))
    assert err.value.argument == "G"
    with pytest.raises(InputError, match="negative") as err:
        leiden(sp.csr_matrix(np.array([[0, -1.0], [-1.0, 0]])))
    assert err.value.argument == "G"


# ------------------------------------------------------------------ constant Potts model
@pytest.mark.parametrize("gamma", [0.05, 0.1, 0.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_cpm_quality_recomputed_and_connected(gamma, weighted):
    G = nx.karate_club_graph()
    A = nx.to_scipy_sparse_array(G, weight="weight" if weighted else None, format="csr")
    res = leiden(A, quality="cpm", resolution=gamma, deterministic=True)
    memb = res.membership
    same = memb[:, None] == memb[None, :]
    e = A.toarray()[same].sum() / 2
    sizes = np.bincount(memb)
    assert res.quality_value == pytest.approx(e - gamma * (sizes * (sizes - 1)).sum() / 2)
    assert res.modularity == pytest.approx(nx.community.modularity(
        G, res.communities, weight="weight" if weighted else None))
    assert disconnected_reference(A, memb) == 0 and res.disconnected == 0
    assert res.quality == "cpm" and res.resolution == gamma


def test_cpm_karate_matches_igraph_at_low_density():
    """Karate, unweighted, CPM at 0.05 and 0.1: igraph's community_leiden's best of 10 runs
    reaches H = 54.4 and 43.1; the greedy refinement within 1%, the seeded theta = 0.01
    runs' best equal."""
    A = nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None, format="csr")
    for gamma, best in ((0.05, 54.4), (0.1, 43.1)):
        assert leiden(A, quality="cpm", resolution=gamma,
                      deterministic=True).quality_value >= 0.99 * best
        assert max(leiden(A, quality="cpm", resolution=gamma, theta=0.01, seed=s)
                   .quality_value for s in range(5)) == pytest.approx(best)


# ------------------------------------------------------------------ command line
def test_cli_communities(tmp_path, capsys):
    import json
    import scipy.io
    from pyclmatch.cli import main
    A = nx.to_scipy_sparse_array(nx.karate_club_graph(), weight=None, format="coo")
    path = tmp_path / "karate.mtx"
    scipy.io.mmwrite(str(path), sp.triu(A).tocoo())
    out = tmp_path / "memb.txt"
    assert main(["communities", str(path), "--deterministic", "--json",
                 "--membership", str(out)]) == 0
    info = json.loads(capsys.readouterr().out)
    want = leiden(A.tocsr(), deterministic=True)
    assert info["method"] == "leiden" and info["disconnected"] == 0
    assert info["communities"] == want.n_communities
    assert info["modularity"] == pytest.approx(want.modularity)
    assert np.array_equal(np.loadtxt(out, dtype=int), want.membership)
    assert main(["communities", str(path), "--method", "louvain", "--deterministic"]) == 0
    assert "louvain" in capsys.readouterr().out
    assert main(["communities", str(path), "--method", "louvain", "--quality", "cpm"]) == 2
    assert main(["communities", str(path), "--resolution", "-1"]) == 2


# ------------------------------------------------------------------ networkx backend
def test_networkx_backend_leiden():
    from pyclmatch import nxbackend as B
    G = nx.connected_caveman_graph(5, 6)
    A = nx.to_scipy_sparse_array(G, format="csr")
    parts = list(B.leiden_partitions(G, seed=3))
    assert parts and all(nx.community.is_partition(G, p) for p in parts)
    for level, want in enumerate(parts, 1):
        assert B.leiden_communities(G, max_level=level, seed=3) == want
    for p in parts:
        memb = np.empty(A.shape[0], int)
        for c, nodes in enumerate(p):
            memb[list(nodes)] = c
        assert disconnected_reference(A, memb) == 0
    assert B.can_run("leiden_communities", (nx.DiGraph(),), {}) != True   # noqa: E712
    assert B.should_run("leiden_communities", (nx.path_graph(3),), {}) is True
    with pytest.raises(InputError) as err:
        B.leiden_communities(G, max_level=0)
    assert err.value.argument == "max_level"
    if "pyclmatch" in nx.utils.backends.backends:
        got = nx.community.leiden_communities(G, seed=3, backend="pyclmatch")
        assert got == parts[-1]


# ------------------------------------------------------------------ heavier cases
def _suite_pattern(make):
    A = sp.csr_matrix(make(), dtype=np.float64)
    A = ((A + A.T) > 0).astype(np.float64).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    return A


@pytest.mark.slow
@pytest.mark.parametrize("name", ["kron-17", "delaunay-17"])
def test_medium_suite_connected_and_at_least_louvain(name):
    from pyclmatch.generators import MEDIUM_SUITE
    A = _suite_pattern(MEDIUM_SUITE[name])
    ld = leiden(A, deterministic=True)
    assert ld.disconnected == 0 and ld.components == ld.n_communities
    assert disconnected_reference(A, ld.membership) == 0
    assert ld.modularity >= louvain(A, deterministic=True).modularity - 2e-3


@pytest.mark.gpu
@pytest.mark.parametrize("det", [False, True])
def test_gpu_leiden(det):
    """On the GPU: the shared graphs and the medium suite connected and verified, Leiden at
    least Louvain's modularity, deterministic runs equal on the GPU and the CPU."""
    from pyclmatch.generators import MEDIUM_SUITE
    graphs = [_suite_pattern(make) for make in MEDIUM_SUITE.values()]
    if DATA is not None:
        graphs += [shared_graph(n) for n in ("PGPgiantcompo.graph", "astro-ph.graph",
                                             "delaunay_n16.mtx")]
    for A in graphs:
        res = leiden(A, device="gpu", deterministic=det)
        assert res.disconnected == 0 and disconnected_reference(A, res.membership) == 0
        assert res.modularity == pytest.approx(modularity(A, res.membership), abs=1e-6)
        assert res.modularity >= louvain(A, device="gpu", deterministic=det).modularity - 2e-3
        if det:
            again = leiden(A, device="gpu", deterministic=True)
            assert np.array_equal(res.membership, again.membership)
            try:
                cpu = leiden(A, device="cpu", deterministic=True)
            except pyclmatch.DeviceError:
                continue
            assert np.array_equal(res.membership, cpu.membership)


def test_louvain_disconnected_after_repair_and_seed():
    """``disconnected`` counts on the graph as run: a seed's permutation and an input the
    device asks the host to repair (explicit zeros: no edge) give the scipy reference's
    count."""
    G = nx.connected_caveman_graph(4, 5)
    A = nx.to_scipy_sparse_array(G, format="csr")
    B = sp.csr_matrix((A.data.copy(), A.indices.copy(), A.indptr.copy()), shape=A.shape)
    u, v = 0, int(B.indices[0])
    B.data[B.indptr[u]:B.indptr[u + 1]][B.indices[B.indptr[u]:B.indptr[u + 1]] == v] = 0
    B.data[B.indptr[v]:B.indptr[v + 1]][B.indices[B.indptr[v]:B.indptr[v + 1]] == u] = 0
    ref = B.copy()
    ref.eliminate_zeros()
    for M, R, seed in ((A, A, None), (A, A, 5), (B, ref, 2), (B, ref, None)):
        r = louvain(M, seed=seed, deterministic=True)
        assert r.disconnected == disconnected_reference(R, r.membership)
    assert r.counters.get("input_repaired") == 1


def test_results_pickle():
    import pickle
    G = nx.karate_club_graph()
    lv = louvain(G, deterministic=True)
    back = pickle.loads(pickle.dumps(lv))
    assert np.array_equal(back.membership, lv.membership) and back.disconnected is None
    assert lv.disconnected == 0
    assert pickle.loads(pickle.dumps(lv)).disconnected == 0
    ld = pickle.loads(pickle.dumps(leiden(G, deterministic=True)))
    assert ld.disconnected == 0 and ld.components == ld.n_communities


def test_random_like_graphs_take_more_subrounds(monkeypatch):
    """With ``subrounds=None`` a random-like graph (degree dispersion in (0.5, 2]) runs its
    local moving in EXPANDER_SUBROUNDS hashed sub-rounds at every level; a mesh, a power-law
    graph and an explicit ``subrounds`` keep louvain's rule; the answers stay certified."""
    from pyclmatch.community.leiden import DeviceLeiden
    seen = []
    run = DeviceLeiden.run

    def spy(self, *a, **kw):
        seen.append((kw.get("large_subrounds"), kw.get("small_subrounds"),
                     kw.get("subrounds")))
        return run(self, *a, **kw)
    monkeypatch.setattr(DeviceLeiden, "run", spy)
    rand = nx.gnm_random_graph(3000, 12000, seed=3)
    mesh = nx.grid_2d_graph(40, 40)
    star = nx.star_graph(50)
    big = api.EXPANDER_SUBROUNDS
    for G, kw, want in ((rand, {}, (big, big, None)), (mesh, {}, (None, None, None)),
                        (star, {}, (None, None, None)),
                        (rand, {"subrounds": 2}, (None, None, 2))):
        seen.clear()
        res = leiden(G, device="cpu", **kw)
        assert res.disconnected == 0
        assert seen and all(s == want for s in seen), (kw, seen)


def test_example_script_runs(monkeypatch, capsys):
    """examples/leiden.py runs as written, on the test device: Leiden's communities of its
    R-MAT graph certified connected."""
    import runpy
    import sys
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "leiden.py")
    monkeypatch.setattr(sys, "argv", [path])
    runpy.run_path(path, run_name="__main__")
    out = capsys.readouterr().out
    assert "0 disconnected (certified)" in out and "backend pyclmatch" in out
