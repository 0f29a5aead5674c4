"""The networkx conversion's label rules (pyclmatch.interop.NetworkxAdjacency: ids, integer
labels by table or binary search, object identity with the dict for equal-but-not-identical
keys), the backend's host-side results (biadjacency, matching dict, community sets) against
plain references, and the declared-size check made before a conversion allocates."""
import random

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

import networkx as nx
import pyclmatch
from pyclmatch import interop
from pyclmatch import nxbackend as B
from pyclmatch.engine import limits

LABELINGS = ["ids", "shuffled-ids", "odd-ints", "sparse-ints", "negative-ints", "numpy-ints",
             "strings", "fresh-strings", "tuples", "mixed"]


def _relabel(G, how, rng):
    """``G`` (nodes 0..n-1) relabelled, the nodes inserted in a random order; for
    "fresh-*" the neighbour keys are equal copies of the node objects, not the objects."""
    n = G.number_of_nodes()
    order = list(range(n))
    rng.shuffle(order)
    names = [f"v{i}" for i in range(n)]          # one object per node: identity hits
    lab = {"ids": lambda i: i, "shuffled-ids": lambda i: i, "odd-ints": lambda i: 2 * i + 1,
           "sparse-ints": lambda i: 1000 * i + 7, "negative-ints": lambda i: -3 * i - 1,
           "numpy-ints": lambda i: np.int64(i), "strings": names.__getitem__,
           "fresh-strings": lambda i: f"v{i}", "tuples": lambda i: (i % 3, i),
           "mixed": lambda i: (i,) if i % 3 == 0 else (f"s{i}" if i % 3 == 1 else i)}[how]
    H = G.__class__()
    H.add_nodes_from(lab(i) for i in (range(n) if how == "ids" else order))
    for u, v, d in G.edges(data=True):
        if how == "fresh-strings":    # equal strings built anew: not the node objects
            H.add_edge("".join(["v", str(u)]), "".join(["v", str(v)]), **d)
        else:
            H.add_edge(lab(u), lab(v), **d)
    return H


@st.composite
def labelled_graphs(draw):
    n = draw(st.integers(1, 30))
    cls = draw(st.sampled_from([nx.Graph, nx.DiGraph, nx.MultiGraph]))
    G = cls()
    G.add_nodes_from(range(n))
    for u, v, w in draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                                           st.one_of(st.none(), st.integers(1, 9))),
                                 max_size=60)):
        G.add_edge(u, v, **({} if w is None else {"weight": w}))
    how = draw(st.sampled_from(LABELINGS))
    return _relabel(G, how, random.Random(draw(st.integers(0, 99)))), how


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(labelled_graphs(), st.sampled_from(["weight", None]))
def test_conversion_is_to_scipy_sparse_array_for_every_labelling(case, weight):
    G, how = case
    A, nodes = interop.networkx_csr(G, weight)
    assert nodes == list(G)
    assert A.has_canonical_format and A.indices.dtype == np.int32
    ref = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, format="csr")
    assert abs(sp.csr_matrix(A, dtype=float) - ref).max() == 0 if ref.nnz else A.nnz == 0
    g = B.from_networkx(G, weight)
    assert g.ids_are_labels == (nodes == list(range(len(nodes))) and
                                all(type(u) is int for u in nodes))
    assert g.labels(np.arange(g.n)) == nodes      # the very label objects, in order
    assert all(type(a) is type(b) for a, b in zip(g.labels(np.arange(g.n)), nodes))


def test_identity_path_with_equal_but_new_keys():
    """Neighbour keys that are equal copies of the node objects go through the dict."""
    G = nx.Graph()
    G.add_nodes_from(["a", "b", "c"])
    a2 = "".join(["a", ""])
    G._adj["b"][a2] = G._adj["a"]["b"] = {}      # the neighbour key: an equal, other string
    walk = interop.NetworkxAdjacency(G)
    assert walk.indices.tolist() == [1, 0]
    assert not walk.ids_are_labels


def _biadjacency_reference(g, top, bottom):
    return g.csr(None)[bottom][:, top].tocsr()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 25), st.integers(0, 80), st.integers(0, 2 ** 16), st.booleans())
def test_biadjacency_is_scipy_slicing(n, m, seed, consecutive):
    rng = np.random.default_rng(seed)
    G = nx.gnm_random_graph(n, m, seed=seed)
    G.add_edges_from((u, u) for u in range(0, n, 5))        # self-loops are dropped too
    g = B.from_networkx(G, None)
    if consecutive:      # (either side first: the top columns are a shift, or not)
        k = int(rng.integers(0, n + 1))
        top, bottom = np.arange(k), np.arange(k, n)
        if rng.random() < 0.5:
            top, bottom = np.arange(n - k, n), np.arange(n - k)
    else:
        mask = rng.random(n) < 0.5
        top, bottom = np.flatnonzero(mask), np.flatnonzero(~mask)
    ref = _biadjacency_reference(g, top, bottom)
    lazy = B.PyclGraph.deferred(G, {})        # only the bottom nodes' dicts are walked
    for Bm in (B._biadjacency(g, top, bottom), B._biadjacency(lazy, top, bottom)):
        assert Bm.shape == ref.shape and Bm.has_canonical_format
        assert (Bm != ref).nnz == 0
    assert lazy.source is G                   # (still deferred; G held weakly)
    assert lazy.number_of_edges() == g.number_of_edges() and lazy.source is None
    assert (lazy.csr(None) != g.csr(None)).nnz == 0


def test_labels_are_ids_is_exact():
    assert interop.labels_are_ids([]) and interop.labels_are_ids([0, 1, 2])
    for nodes in ([1, 0, 2], [0, 2, 2], [0, 1.0, 2], [0, True, 2], [0, np.int64(1), 2],
                  [False], ["0", 1], [0, 1, 3], [-1, 1, 1]):
        assert not interop.labels_are_ids(nodes), nodes


def test_exact_int32_values_reads_python_ints_only():
    """marshal's five-byte records are taken only when every element is one: bools, numpy
    integers, int subclasses, floats, strings and ints beyond int32 are refused."""
    class MyInt(int):
        pass
    ev = interop.exact_int32_values
    for seq in ([], [0, 1, 2], [5, -3, 2 ** 31 - 1, -2 ** 31], (7, 1) * 200, (4,)):
        assert ev(seq).tolist() == list(seq), seq
    assert sorted(ev({9, 2, 4}).tolist()) == [2, 4, 9]
    assert ev(frozenset([3])).tolist() == [3] and ev(set()).tolist() == []
    for seq in ([0, True], [False], [0, np.int64(1)], [MyInt(2)], [1.0], ["1"], [2 ** 31],
                [-2 ** 31 - 1], [0, (1,)], [[0]], iter([1]), {0: 1}, range(3), np.arange(2),
                [0, None], [0, 2 ** 40, 1]):
        assert ev(seq) is None, seq


def test_id_positions_take_exact_ints_only():
    assert B._id_positions(range(2, 9, 3)).tolist() == [2, 5, 8]
    assert B._id_positions(np.array([3, 1], np.int32)).tolist() == [3, 1]
    assert sorted(B._id_positions({4, 0, 2}).tolist()) == [0, 2, 4]
    assert B._id_positions([1, True]) is None and B._id_positions((1.0,)) is None
    assert B._id_positions(iter([1])) is None and B._id_positions(np.zeros(2)) is None
    g = B.from_networkx(nx.path_graph(5), None)
    assert g.positions([4, 0]).tolist() == [4, 0] and g.positions({True}).tolist() == [1]
    with pytest.raises(nx.NetworkXError, match="7"):
        g.positions({1, 7})


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 30), st.integers(0, 2 ** 16), st.sampled_from(["ids", "strings"]))
def test_rows_at_positions_are_the_dicts_there(n, seed, how):
    """A walk of some rows (consecutive or not, in any order) reads the dicts of the nodes at
    those positions."""
    rng = np.random.default_rng(seed)
    G = _relabel(nx.gnm_random_graph(n, 2 * n, seed=seed), how, random.Random(seed))
    nodes = list(G)
    k = int(rng.integers(0, n + 1))
    j = int(rng.integers(0, k + 1))
    for rows in (range(k, n), np.arange(k), rng.permutation(n)[:k], range(j, k),
                 np.arange(j, k), np.arange(k, n)):
        walk = interop.NetworkxAdjacency(G, rows=rows, nodes=nodes)
        assert all(d is G._adj[nodes[i]] for d, i in zip(walk.row_dicts, list(rows)))
        assert len(walk.row_dicts) == len(rows)


@pytest.mark.parametrize("how", ["ids", "strings"])
def test_matching_dict_of_a_partial_matching(how):
    """The matched part of the node list (a byte mask) against the mates' labels."""
    G = _relabel(nx.path_graph(7), how, random.Random(3))
    g = B.from_networkx(G, None)
    mate = np.full(g.n, -1, np.int64)
    mate[[1, 2, 5, 6]] = [2, 1, 6, 5]
    lab = list(G)
    assert B._mate_dict(g, mate) == {lab[i]: lab[mate[i]] for i in (1, 2, 5, 6)}
    assert list(B._mate_dict(g, mate)) == [lab[i] for i in (1, 2, 5, 6)]   # node order
    assert B._mate_dict(g, np.full(g.n, -1, np.int64)) == {}


@pytest.mark.parametrize("how", ["ids", "sparse-ints", "strings", "tuples"])
def test_matching_dict_and_communities_keep_labels(device, how):
    G = _relabel(nx.grid_2d_graph(6, 5), "ids", random.Random(0))
    G = nx.convert_node_labels_to_integers(G)
    G = _relabel(G, how, random.Random(1))
    top = {u for u in G if nx.bipartite.color(G)[u] == 0}
    m = B.hopcroft_karp_matching(G, top, device=device)
    assert len(m) == len(nx.bipartite.hopcroft_karp_matching(G, top))
    assert all(m[m[u]] == u and G.has_edge(u, m[u]) for u in m)
    assert all(type(u) in (int, str, tuple) for u in m)
    parts = B.louvain_communities(G, seed=2, device=device)
    assert nx.community.is_partition(G, parts)


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=50), st.sampled_from([None, "obj"]))
def test_membership_sets_as_reference(memb, labels):
    memb = np.asarray(memb, np.int64)
    nodes = None if labels is None else [f"x{i}" for i in range(memb.size)]
    sets = interop.membership_sets(memb, None, nodes)
    lab = list(range(memb.size)) if nodes is None else nodes
    k = int(memb.max()) + 1 if memb.size else 0
    assert sets == [{lab[i] for i in range(memb.size) if memb[i] == c} for c in range(k)]


def test_group_order_beyond_16_bits():
    rng = np.random.default_rng(0)
    memb = rng.integers(0, 200_000, 50_000)
    order = interop.group_order(memb, 200_000)
    assert (np.diff(memb[order]) >= 0).all()
    assert np.array_equal(np.sort(order), np.arange(memb.size))


def test_sizes_checked_before_the_conversion(monkeypatch):
    """The declared sizes are refused before the walk reads any neighbour (a family's
    ``fits``), or for the host's memory before the first neighbours are read (a walk by
    chunks checks again as the entries grow): a networkx graph, an igraph graph and a
    DataFrame whose conversion cannot fit the host's memory."""
    monkeypatch.setattr(limits, "host_available", lambda: 1 << 10)
    monkeypatch.setattr(limits, "HOST_CHECK_MIN", 0)   # (small needs are not checked)
    G = nx.path_graph(100)
    calls = []
    monkeypatch.setattr(interop.NetworkxAdjacency, "_indices",
                        lambda self, *args: calls.append(1))
    with pytest.raises(pyclmatch.HostMemoryError, match="networkx graph"):
        interop.networkx_csr(G)
    assert not calls
    seen = []

    def fits(n, nnz, host):
        seen.append((n, nnz))
        raise pyclmatch.DeviceMemoryError("refused")
    monkeypatch.setattr(limits, "host_available", lambda: 1 << 40)
    with pytest.raises(pyclmatch.DeviceMemoryError):
        interop.foreign_graph(G, fits=fits)
    assert seen == [(100, 198)] and not calls
    pd = pytest.importorskip("pandas")
    monkeypatch.setattr(limits, "host_available", lambda: 1 << 10)
    with pytest.raises(pyclmatch.HostMemoryError, match="DataFrame"):
        interop.dataframe_csr(pd.DataFrame({"source": range(100), "target": range(1, 101)}))


def test_matching_walks_the_leading_side_and_the_cover_reuses_it(device, monkeypatch):
    """With the top nodes a leading run of the node order, a matching walks them (the
    columns of its B are the bottom nodes); to_vertex_cover then transposes that B instead of
    walking the bottom side, and gets networkx's cover."""
    rng = np.random.default_rng(4)
    k, n = 30, 70
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((int(u), int(v)) for u, v in zip(rng.integers(0, k, 120),
                                                      rng.integers(k, n, 120)))
    G.add_edge(k + 1, k + 2)          # (an edge inside the bottom side: dropped either way)
    top, bottom = np.arange(k), np.arange(k, n)
    walks = []
    real = interop.NetworkxAdjacency

    def counted(*args, **kw):
        walks.append(kw.get("rows"))
        return real(*args, **kw)
    monkeypatch.setattr(B, "NetworkxAdjacency", counted)
    g = B.PyclGraph.deferred(G, {})
    m = B.hopcroft_karp_matching(g, range(k), device=device)
    assert len(walks) == 1 and np.array_equal(walks[0], top)       # the leading side
    want = nx.bipartite.hopcroft_karp_matching(G, range(k))
    assert len(m) == len(want) and all(m[m[u]] == u and G.has_edge(u, m[u]) for u in m)
    cover = B.to_vertex_cover(g, m, range(k), device=device)
    assert len(walks) == 1 and g.source is G                    # B transposed, no walk
    assert cover == nx.bipartite.to_vertex_cover(G, want, range(k))
    ref = _biadjacency_reference(B.from_networkx(G, None), top, bottom)
    got = B._biadjacency(g, top, bottom)
    assert got.has_canonical_format and (got != ref).nnz == 0
    srt = got.copy()
    srt.has_sorted_indices = False
    srt.sort_indices()                      # (the flag is true: every list was sorted)
    assert np.array_equal(srt.indices, got.indices)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 40), st.integers(0, 2 ** 16), st.booleans())
def test_walk_by_chunks_of_rows(n, seed, subset):
    """The walk of a graph labelled by its ids, chunk by chunk (tiny chunks here), gives
    networkx's matrix; the host memory is checked before the first keys are read and then
    at every doubling of the entries."""
    checks = []
    real = interop._check_conversion

    def check(fits, n_, nnz, *args):
        checks.append(nnz)
        return real(fits, n_, nnz, *args)
    rng = np.random.default_rng(seed)
    G = nx.gnm_random_graph(n, int(rng.integers(0, 3 * n)), seed=seed)
    rows = np.sort(rng.choice(n, int(rng.integers(0, n + 1)), replace=False)) if subset \
        else None
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(interop.NetworkxAdjacency, "CHUNK_ROWS", 3)
        mp.setattr(interop, "_check_conversion", check)
        walk = interop.NetworkxAdjacency(G, rows=rows)
    ref = nx.to_scipy_sparse_array(G, format="csr", weight=None)
    if rows is not None:
        ref = ref[rows]
    assert walk.ids_are_labels
    got = sp.csr_matrix((np.ones(walk.nnz), walk.sorted_indices, walk.indptr), shape=ref.shape)
    assert (got != ref).nnz == 0
    if walk.nnz or walk.indptr.size > 1:
        assert checks and all(b >= 2 * a for a, b in zip(checks, checks[1:]))


def test_deferred_graph_reuses_its_biadjacency_and_holds_g_weakly():
    G = nx.complete_bipartite_graph(3, 4)
    g = B.PyclGraph.deferred(G, {})
    top, bottom = np.arange(3), np.arange(3, 7)
    assert B._biadjacency(g, top, bottom) is B._biadjacency(g, top, bottom)
    assert B._biadjacency(g, np.arange(4), np.arange(4, 7)).shape == (3, 4)
    del G
    import gc
    gc.collect()
    with pytest.raises(pyclmatch.InputError, match="freed"):
        g.csr(None)
