"""networkx, igraph and pandas inputs of every family, and results in their shapes
(pyclmatch.interop), against the libraries' own conversions."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

import networkx as nx
import pyclmatch
from pyclmatch import interop

pd = pytest.importorskip("pandas")


def _same(A, B):
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    A.sum_duplicates()
    B.sum_duplicates()
    assert A.shape == B.shape
    assert (abs(A - B) > 1e-12).nnz == 0


@st.composite
def nx_graphs(draw):
    """Small graphs of every networkx class: labels of mixed order, self-loops, parallel
    edges, weights missing on some edges."""
    cls = draw(st.sampled_from([nx.Graph, nx.DiGraph, nx.MultiGraph, nx.MultiDiGraph]))
    n = draw(st.integers(0, 9))
    labels = draw(st.permutations(list(range(n))))
    if draw(st.booleans()):
        labels = [f"v{x}" for x in labels]
    G = cls()
    G.add_nodes_from(labels)
    for u, v, w in draw(st.lists(st.tuples(st.integers(0, max(n - 1, 0)),
                                           st.integers(0, max(n - 1, 0)),
                                           st.one_of(st.none(), st.integers(1, 9))),
                                 max_size=25 if n else 0)):
        if w is None:
            G.add_edge(labels[u], labels[v])
        else:
            G.add_edge(labels[u], labels[v], weight=w)
    return G


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nx_graphs(), st.sampled_from(["weight", None]))
def test_networkx_csr_is_to_scipy_sparse_array(G, weight):
    A, nodes = interop.networkx_csr(G, weight)
    assert nodes == list(G)
    assert A.has_canonical_format and A.indices.dtype == np.int32
    if not nodes:                 # (networkx refuses the null graph)
        assert A.shape == (0, 0)
        return
    _same(A, nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, format="csr"))


def test_networkx_csr_rejects_non_numeric_weights():
    G = nx.Graph([(0, 1, {"weight": "heavy"})])
    with pytest.raises(pyclmatch.InputError, match="weight"):
        interop.networkx_csr(G)


def test_dataframe_edge_list_as_networkx_builds_it():
    df = pd.DataFrame({"source": ["b", "a", "c", "b", "d"], "target": ["a", "c", "a", "a", "d"],
                       "weight": [1.0, 2.0, 3.0, 4.0, 5.0]})
    fg = interop.dataframe_csr(df)
    G = nx.from_pandas_edgelist(df, edge_attr="weight")
    assert fg.nodes == ["a", "b", "c", "d"] and type(fg.nodes[0]) is str
    _same(fg.csr, nx.to_scipy_sparse_array(G, nodelist=fg.nodes, format="csr"))
    with pytest.raises(pyclmatch.InputError, match="'target'"):
        interop.dataframe_csr(df.rename(columns={"target": "dst"}))
    with pytest.raises(pyclmatch.InputError, match="missing values"):
        interop.dataframe_csr(pd.DataFrame({"source": [1.0, None], "target": [2.0, 3.0]}))


def test_igraph_input():
    ig = pytest.importorskip("igraph")
    G = nx.karate_club_graph()
    g = ig.Graph.from_networkx(G)
    fg = interop.igraph_csr(g)
    assert fg.nodes == list(G)
    _same(fg.csr, nx.to_scipy_sparse_array(G, format="csr"))
    m = ig.Graph([(0, 1), (0, 1), (1, 1)])          # multi-edge summed, loop once
    _same(interop.igraph_csr(m).csr, [[0, 2], [2, 1]])


def test_every_family_takes_graph_like_inputs(device):
    G = nx.karate_club_graph()
    df = nx.to_pandas_edgelist(G)
    ref = pyclmatch.louvain(G, device=device, deterministic=True)
    for other in (df, pyclmatch.nxbackend.from_networkx(G)):
        r = pyclmatch.louvain(other, device=device, deterministic=True)
        assert r.modularity == pytest.approx(ref.modularity)
        assert {frozenset(c) for c in r.communities} == {frozenset(c) for c in ref.communities}
    w = pyclmatch.weighted_matching(G, device=device)
    assert pyclmatch.weighted_matching(df, device=device).weight == w.weight
    assert interop.matching_edges(w) == set(w.node_pairs())
    md = interop.matching_dict(w)
    assert nx.is_matching(G, md) and len(md) == 2 * w.cardinality
    assert pyclmatch.b_matching(df, 2, device=device).weight == \
        pyclmatch.b_matching(G, 2, device=device).weight
    bdf = pd.DataFrame({"source": [0, 0, 1, 2], "target": [0, 1, 1, 2]})
    m = pyclmatch.maximum_matching(bdf, device=device)
    assert m.cardinality == 3
    assert interop.matching_edges(m) == {(0, 3), (1, 4), (2, 5)}
    with pytest.raises(pyclmatch.InputError, match="integer row ids"):
        pyclmatch.maximum_matching(pd.DataFrame({"source": ["a"], "target": [0]}))
    with pytest.raises(pyclmatch.InputError, match="biadjacency"):
        pyclmatch.maximum_matching(G)
    with pytest.raises(pyclmatch.InputError, match="undirected"):
        pyclmatch.louvain(nx.DiGraph([(0, 1)]), device=device)


def test_igraph_families_and_vertex_clustering(device):
    ig = pytest.importorskip("igraph")
    g = ig.Graph.Famous("Zachary")
    r = pyclmatch.louvain(g, device=device)
    vc = r.vertex_clustering(g)
    assert isinstance(vc, ig.VertexClustering)
    assert vc.modularity == pytest.approx(g.modularity(r.membership.tolist()))
    assert interop.community_sets(r) == r.communities
    assert pyclmatch.weighted_matching(g, device=device).cardinality > 0
