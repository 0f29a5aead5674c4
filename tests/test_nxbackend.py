"""The networkx backend (pyclmatch.nxbackend) against networkx's own functions on random
and adversarial graphs. networkx's own test suite runs with the backend in .ci/run."""
import itertools
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import networkx as nx
from pyclmatch import nxbackend as B


@st.composite
def bipartite_graphs(draw, connected=False):
    """Random bipartite graphs with labels of mixed types (ints, tuples, strings)."""
    n1, n2 = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    top = [("t", i) for i in range(n1)]
    bot = [f"b{j}" for j in range(n2)]
    G = nx.Graph()
    nodes = top + bot
    order = draw(st.permutations(range(len(nodes))))
    G.add_nodes_from(nodes[i] for i in order)
    G.add_edges_from(draw(st.lists(st.tuples(st.sampled_from(top), st.sampled_from(bot)),
                                   max_size=20)))
    if connected:
        keep = max(nx.connected_components(G), key=len)
        G = G.subgraph(keep).copy()
    return G, {u for u in G if u[0] == "t"}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bipartite_graphs())
def test_bipartite_matching_and_cover_as_networkx(device, case):
    G, top = case
    top &= set(G)
    m = B.hopcroft_karp_matching(G, top, device=device)
    ref = nx.bipartite.hopcroft_karp_matching(G, top)
    assert len(m) == len(ref)
    assert all(m[m[u]] == u and G.has_edge(u, m[u]) for u in m)
    assert B.eppstein_matching(G, top, device=device).keys() <= set(G)
    cover = B.to_vertex_cover(G, m, top, device=device)
    assert cover == nx.bipartite.to_vertex_cover(G, ref, top)     # König cover is canonical


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bipartite_graphs(connected=True))
def test_bipartite_sets_without_top_nodes(device, case):
    G, _ = case
    m = B.hopcroft_karp_matching(G, device=device)
    assert len(m) == len(nx.bipartite.maximum_matching(G))
    assert B.to_vertex_cover(G, m, device=device) == \
        nx.bipartite.to_vertex_cover(G, nx.bipartite.maximum_matching(G))


def _side_by_side(n1, n2, edges, isolated=()):
    """A bipartite graph numbered as the benchmarks build it (tops 0..n1-1, bottoms after),
    with some isolated nodes and the edges given (several components)."""
    G = nx.Graph()
    G.add_nodes_from(range(n1 + n2))
    G.add_edges_from((u, n1 + v) for u, v in edges)
    G.remove_edges_from([(u, v) for u, v in list(G.edges()) if u in isolated or v in isolated])
    return G


@pytest.mark.parametrize("shape", ["tops-first", "tops-last", "interleaved", "strings",
                                   "no-bottoms"])
def test_bipartite_matching_whatever_the_top_nodes_container(device, shape):
    """networkx's maximum matching (cardinality, a valid matching, the node objects as keys)
    whatever holds the top nodes (range, list, set, tuple, generator, array), on graphs with
    isolated nodes and several components, tops numbered before, after or among the
    bottoms, integer and string labels; and through networkx's dispatch."""
    rng = random.Random(5)
    n1, n2 = 40, 30
    edges = {(rng.randrange(n1), rng.randrange(n2)) for _ in range(70)}
    G = _side_by_side(n1, n2, edges, isolated={3, n1 + 4})
    top = list(range(n1))
    if shape == "tops-last":           # bottoms 0..n2-1, tops after
        G = nx.relabel_nodes(G, {u: (u + n2) % (n1 + n2) for u in G})
        G = _reordered(G)
        top = list(range(n2, n1 + n2))
    elif shape == "interleaved":
        perm = list(range(n1 + n2))
        rng.shuffle(perm)
        G = _reordered(nx.relabel_nodes(G, dict(enumerate(perm))))
        top = [perm[u] for u in range(n1)]
    elif shape == "strings":
        G = nx.relabel_nodes(G, {u: f"v{u}" for u in G})
        top = [f"v{u}" for u in range(n1)]
    elif shape == "no-bottoms":
        G = nx.empty_graph(5)
        top = list(range(5))
    ref = len(nx.bipartite.hopcroft_karp_matching(G, top))
    objs = {u: u for u in G}
    containers = [top, set(top), tuple(top), iter(top)]
    if shape != "strings":
        containers.append(np.array(top))
        if top == list(range(top[0], top[-1] + 1)):
            containers.append(range(top[0], top[-1] + 1))
    for tops in containers:
        m = B.hopcroft_karp_matching(G, tops, device=device)
        assert len(m) == ref
        assert all(m[m[u]] == u and G.has_edge(u, m[u]) for u in m)
        assert all(objs[u] is u for u in m) and all(type(v) is type(u) for u, v in m.items())
    m = nx.bipartite.maximum_matching(G, top_nodes=top, backend="pyclmatch", device=device)
    assert len(m) == ref and all(m[m[u]] == u and G.has_edge(u, m[u]) for u in m)
    assert B.hopcroft_karp_matching(G, [], device=device) == {}       # (no top node)


def test_perfect_matching_dict_keeps_node_order_and_objects(device):
    """A perfect matching of a networkx graph (its dict presized from the graph's adjacency
    dict) and of a converted graph: every node once, in node order, the graph's own label
    objects as keys."""
    t0, t1 = ("t", 0), ("t", 1)
    G = nx.Graph()
    G.add_nodes_from(["b1", t0, "b0", t1])
    G.add_edges_from([(t0, "b0"), (t1, "b1"), (t0, "b1")])
    want = {t0: "b0", "b0": t0, t1: "b1", "b1": t1}
    for H in (G, B.from_networkx(G, None)):
        m = B.hopcroft_karp_matching(H, [t0, t1], device=device)
        assert m == want and list(m) == list(G)
        assert all(u is v for u, v in zip(m, G))


def _reordered(G):
    """``G`` with its nodes in sorted order (the node order the positions follow)."""
    H = nx.Graph()
    H.add_nodes_from(sorted(G))
    H.add_edges_from(G.edges())
    return H


def test_bipartite_errors_as_networkx(device):
    with pytest.raises(nx.AmbiguousSolution):
        B.hopcroft_karp_matching(nx.Graph([(0, 1), (2, 3)]), device=device)
    with pytest.raises(nx.NetworkXError, match="not bipartite"):
        B.hopcroft_karp_matching(nx.cycle_graph(5), device=device)
    with pytest.raises(nx.NetworkXPointlessConcept):
        B.hopcroft_karp_matching(nx.Graph(), device=device)


def _random_edge_sets(G, rng, count):
    nodes = list(G) + ["absent"]
    edges = list(G.edges())
    for _ in range(count):
        k = rng.randint(0, 4)
        s = set(rng.sample(edges, min(k, len(edges))))
        if rng.random() < 0.3:
            s.add((rng.choice(nodes), rng.choice(nodes)))
        if rng.random() < 0.1:
            s.add((rng.choice(nodes),))
        yield s


@pytest.mark.parametrize("graph", [nx.path_graph(6), nx.petersen_graph(),
                                   nx.DiGraph([(0, 1), (1, 2), (2, 3)]),
                                   nx.MultiGraph([(0, 1), (0, 1), (2, 3), (3, 3)])])
def test_matching_checks_as_networkx(graph):
    rng = random.Random(7)
    g = B.from_networkx(graph)
    for s in _random_edge_sets(graph, rng, 150):
        for fn in ("is_matching", "is_maximal_matching", "is_perfect_matching"):
            ref = mine = None
            try:
                ref = getattr(nx, fn)(graph, s)
            except nx.NetworkXError as exc:
                ref = type(exc)
            except ValueError:     # networkx's is_maximal_matching unpacks multigraph keys
                continue
            try:
                mine = getattr(B, fn)(g, s)
            except nx.NetworkXError as exc:
                mine = type(exc)
            assert mine == ref, (fn, s)


@pytest.mark.parametrize("graph", [nx.petersen_graph(), nx.star_graph(6),
                                   nx.path_graph(3), nx.empty_graph(4)])
def test_maximal_matching(device, graph):
    graph.add_edge(0, 0)
    m = B.maximal_matching(graph, device=device)
    assert nx.is_maximal_matching(graph, m)
    assert all(list(graph).index(u) < list(graph).index(v) for u, v in m)


def test_louvain_levels_and_max_level(device):
    G = nx.les_miserables_graph()
    parts = list(B.louvain_partitions(G, seed=3, device=device))
    assert len(parts) >= 1
    for k, p in enumerate(parts, 1):
        assert nx.community.is_partition(G, p)
        assert B.louvain_communities(G, max_level=k, seed=3, device=device) == p
    q = [nx.community.modularity(G, p) for p in parts]
    assert all(b > a for a, b in zip(q, q[1:]))
    assert B.modularity(G, parts[-1]) == pytest.approx(q[-1])
    with pytest.raises(ValueError, match="max_level"):
        B.louvain_communities(G, max_level=0)
    with pytest.raises(nx.algorithms.community.quality.NotAPartition):
        B.modularity(G, parts[-1][1:])


def test_converted_graph_is_reused(device):
    G = nx.karate_club_graph()
    g = B.from_networkx(G)
    assert B.convert_from_nx(g) is g
    assert g.csr("weight") is g.csr("weight")
    H = B.convert_to_nx(g)
    assert nx.utils.graphs_equal(G, H) or (set(H.edges) == set(G.edges) and
                                           all(H[u][v]["weight"] == d["weight"]
                                               for u, v, d in G.edges(data=True)))
    assert B.louvain_communities(g, seed=1, device=device) == \
        B.louvain_communities(G, seed=1, device=device)


def test_can_run_should_run():
    assert B.can_run("louvain_communities", (nx.Graph(),), {}) is True
    assert isinstance(B.can_run("louvain_communities", (nx.DiGraph(),), {}), str)
    assert isinstance(B.can_run("maximal_matching", (nx.MultiGraph(),), {}), str)
    assert isinstance(B.can_run("max_weight_matching", (nx.Graph(),), {}), str)
    assert isinstance(B.can_run("louvain_communities", (nx.Graph(),), {"bogus": 1}), str)
    assert isinstance(B.should_run("louvain_communities", (nx.path_graph(10),), {}), str)
    assert B.should_run("louvain_communities", (B.from_networkx(nx.path_graph(10)),), {})
    assert not hasattr(B, "max_weight_matching")        # Suitor is approximate: not registered
    assert len(B.XFAIL_TESTS) <= 5


def test_dispatch_through_networkx(device):
    if "pyclmatch" not in nx.utils.backends.backends:
        pytest.skip("package not installed (pip install -e .): no networkx entry point")
    info = nx.utils.backends.backend_info["pyclmatch"]
    assert "louvain_communities" in info["functions"]
    G = nx.karate_club_graph()
    p = nx.community.louvain_communities(G, backend="pyclmatch", seed=4, device=device)
    assert nx.community.is_partition(G, p)
    m = nx.bipartite.maximum_matching(nx.complete_bipartite_graph(3, 4), backend="pyclmatch",
                                      device=device)
    assert len(m) == 6


def test_dispatched_seed_and_parameters_keep_networkx_contract(device):
    """networkx makes a random state of ``seed`` before it dispatches: a negative int is a
    seed, 1.5 networkx's own ValueError; NaN threshold/resolution and max_level <= 0 are
    InputErrors (ValueErrors) naming the argument."""
    if "pyclmatch" not in nx.utils.backends.backends:
        pytest.skip("package not installed (pip install -e .): no networkx entry point")
    from pyclmatch import InputError
    G = nx.karate_club_graph()
    lc = nx.community.louvain_communities
    assert nx.community.is_partition(G, lc(G, backend="pyclmatch", seed=-1, device=device))
    assert lc(G, backend="pyclmatch", seed=-1, device=device) == \
        lc(G, backend="pyclmatch", seed=-1, device=device)
    for backend in ("pyclmatch", None):
        with pytest.raises(ValueError, match="1.5 cannot be used to generate") as exc:
            lc(G, backend=backend, seed=1.5)
        assert type(exc.value) is ValueError
    for kw, name in (({"threshold": float("nan")}, "threshold"),
                     ({"max_level": 0}, "max_level"), ({"max_level": -1}, "max_level")):
        with pytest.raises(InputError) as exc:
            lc(G, backend="pyclmatch", device=device, **kw)
        assert exc.value.argument == name
    assert "max_level argument must be a positive integer or None, not -1" in str(exc.value)
    with pytest.raises(InputError) as exc:
        nx.community.modularity(G, [set(G)], resolution=float("nan"), backend="pyclmatch")
    assert exc.value.argument == "resolution"


def test_approximate_weighted_matching(device):
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 3.0), (1, 2, 4.0), (2, 3, 3.0)])
    assert B.approximate_max_weight_matching(G, device=device) == {(1, 2)}


def test_example_script_runs(monkeypatch, capsys):
    import os
    import runpy
    import sys
    if "pyclmatch" not in nx.utils.backends.backends:
        pytest.skip("package not installed (pip install -e .): no networkx entry point")
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "networkx_backend.py")
    dev = os.environ.get("PYCLMATCH_TEST_DEVICE")
    monkeypatch.setattr(sys, "argv", [path] + (["--device", dev] if dev else []))
    runpy.run_path(path, run_name="__main__")
    assert "König cover" in capsys.readouterr().out
