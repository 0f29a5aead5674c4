"""The argument checks of the public functions beyond the families' calls: pyclmatch.distributed
(refused before any cluster starts, so no cluster is needed here), the networkx backend's
functions, the interop result helpers, generators.suite and the result objects' methods; each
bad value is an InputError naming the argument."""
import os

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch import InputError, generators, interop, nxbackend

DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")
G = sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
K = sp.csr_matrix(np.array([[0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 0, 1], [0, 0, 1, 0]], float))
JUNK = ["x", -1, 1.5, float("nan"), True, [1], np.uint64(2**63), 2**64, b"x", {}]


@pytest.fixture(scope="module")
def results():
    """One result of each kind (computed once for the module)."""
    W = sp.csr_matrix(np.array([[0, 2.0, 0], [2.0, 0, 1.0], [0, 1.0, 0]]))
    return {"matching": pyclmatch.maximum_matching(G, algorithm="host-hk"),
            "dm": pyclmatch.dulmage_mendelsohn(G, device=DEV),
            "weighted": pyclmatch.weighted_matching(W, device=DEV),
            "louvain": pyclmatch.louvain(K, device=DEV, seed=1)}


def _raises(name, call):
    with pytest.raises(InputError) as exc:
        call()
    assert exc.value.argument == name, str(exc.value)
    return exc.value


# ------------------------------------------------------------------ generators.suite
SUITE_CASES = ([("names", v) for v in (-1, 1.5, float("nan"), True, [1], b"x", {}, "x",
                                       ["grid-64", "nope"], np.int64(3))]
               + [("rcp", v) for v in ("x", -1, 0, 1, 1.5, float("nan"), [1], None)]
               + [("size", v) for v in ("x", -1, [1], {}, float("nan"))]
               + [("small", v) for v in ("x", 1, None, [1])])


@pytest.mark.parametrize("name, value", SUITE_CASES, ids=str)
def test_suite_refuses_junk_when_called(name, value):
    kw = {"names": "grid-64", "small": True, name: value}
    # (refused by the call itself, before any graph is built: no next() needed)
    _raises(name, lambda: generators.suite(kw.pop("names"), **kw))


def test_suite_good_values():
    got = [(n, A.shape) for n, A in generators.suite(("grid-64",), rcp="BOTH", size="Small")]
    assert got == [("grid-64", (4096, 4096)), ("grid-64-rcp", (4096, 4096))]
    assert [n for n, _ in generators.suite("kron-10", rcp=np.True_, small=np.True_)] == \
        ["kron-10-rcp"]
    assert list(generators.suite([], small=True)) == []


# ------------------------------------------------------------------ result methods
@pytest.mark.parametrize("value", ["x", -1, [1], None, np.eye(4), sp.eye(3, 2).tocsr()],
                         ids=str)
@pytest.mark.parametrize("kind", ["matching", "dm"])
def test_verify_names_A(results, kind, value):
    _raises("A", lambda: results[kind].verify(value))


def test_verify_against_its_own_matrix(results):
    assert results["matching"].verify(G) and results["dm"].verify(G.toarray())


@pytest.mark.parametrize("value", ["x", None, K, nx.path_graph(4)], ids=str)
def test_vertex_clustering_names_graph(results, value):
    pytest.importorskip("igraph")
    _raises("graph", lambda: results["louvain"].vertex_clustering(value))


def test_vertex_clustering_of_another_size(results):
    ig = pytest.importorskip("igraph")
    _raises("graph", lambda: results["louvain"].vertex_clustering(ig.Graph.Ring(5)))
    assert len(results["louvain"].vertex_clustering(ig.Graph.Ring(4))) == \
        results["louvain"].n_communities


# ------------------------------------------------------------------ interop helpers
def _interop_cases():
    c = [("matching_dict", "res", v) for v in JUNK + [None, K]]
    c += [("matching_edges", "res", v) for v in JUNK[:4]]
    c += [("community_sets", "res", v) for v in JUNK[:4] + [None]]
    for p in ("row_labels", "col_labels"):
        c += [("matching_dict", p, v) for v in ("ab", 3, 1.5, ["a"], ["a", "b", "c", "d"], {},
                                                np.zeros((3, 1)))]
        c += [("weighted_dict", p, v) for v in (["a", "b", "c"], "abc")]
    c += [("membership_sets", "membership", v) for v in
          ("x", -1, 1.5, [0.5, 0], [-1, 0], [[0, 1]], [None, 0], [2**64, 0],
           np.array([2**63], np.uint64), np.array([-1], np.int8), [float("nan")])]
    c += [("membership_sets", "k", v) for v in ("x", -1, 1.5, True, [2], 2**31)]
    c += [("membership_sets", "nodes", v) for v in ("ab", 3, ["a"], ["a", "b", "c"], {},
                                                    np.zeros((2, 1)))]
    c += [("group_order", "labels", v) for v in ("x", [0, 3], [-1, 0], [0.5], [[0]], None)]
    c += [("group_order", "k", v) for v in ("x", -1, 1.5, None, 2**32 + 1, [3])]
    c += [("vertex_clustering", "res", v) for v in JUNK[:4]]
    return c


def _interop_call(results, func, name, value):
    W, M = results["weighted"], results["matching"]
    calls = {
        "matching_dict": lambda: interop.matching_dict(**{"res": M, name: value}),
        "weighted_dict": lambda: interop.matching_dict(W, **{name: value}),
        "matching_edges": lambda: interop.matching_edges(value),
        "community_sets": lambda: interop.community_sets(value),
        "membership_sets": lambda: interop.membership_sets(**{
            "membership": [0, 1], "k": 2 if name == "membership" else None,
            **({"k": value} if name == "k" and value is not None else {}),
            **({"membership": value} if name == "membership" else {}),
            **({"nodes": value} if name == "nodes" else {})}),
        "group_order": lambda: interop.group_order(**{"labels": [0, 1], "k": 2, name: value}),
        "vertex_clustering": lambda: interop.vertex_clustering(value, None),
    }
    return calls[func]()


@pytest.mark.parametrize("func, name, value", _interop_cases(), ids=str)
def test_interop_refuses_junk(results, func, name, value):
    _raises(name, lambda: _interop_call(results, func, name, value))


def test_interop_good_values(results):
    assert interop.membership_sets(np.array([1, 1], np.uint8), 3) == [set(), {0, 1}, set()]
    assert interop.membership_sets([1]) == [set(), {0}]
    # a k below the largest id + 1: the id is refused, with the range k allows
    exc = _raises("membership", lambda: interop.membership_sets([0, 1], 1))
    assert "between 0 and 0" in str(exc)
    assert interop.group_order(np.array([1, 0], np.int32), 2).tolist() == [1, 0]
    assert interop.matching_dict(results["matching"], row_labels=range(3),
                                 col_labels=np.array(list("abc"), object)) == \
        dict(interop.matching_dict(results["matching"], row_labels=[0, 1, 2],
                                   col_labels=list("abc")))
    _raises("weight", lambda: interop.foreign_graph(nx.path_graph(3), weight=["w"]))


# ------------------------------------------------------------------ networkx backend
B = nx.complete_bipartite_graph(2, 3)
P = nx.barbell_graph(4, 0)
HALVES = [set(range(4)), set(range(4, 8))]


def _nx_cases():
    c = [("louvain_communities", "threshold", v) for v in ("x", None, [1], 1j, float("nan"))]
    c += [("louvain_partitions", "threshold", v) for v in ("x", None, np.float64("nan"))]
    c += [("louvain_communities", "max_level", v) for v in ("x", 1.5, [1], True, 0, -2)]
    c += [("louvain_communities", "resolution", v) for v in ("x", -1, float("nan"), None)]
    c += [("modularity", "resolution", v) for v in ("x", None, [1], 1j, float("nan"))]
    c += [("modularity", "communities", v) for v in (3, 1.5, None, True)]
    c += [("hopcroft_karp_matching", "top_nodes", v) for v in (3, 1.5, True, np.int64(1))]
    c += [("eppstein_matching", "top_nodes", v) for v in (3, 1.5)]
    c += [("to_vertex_cover", "matching", v) for v in ("x", 3, None, [(0, 2)], {(0, 2)})]
    c += [("to_vertex_cover", "top_nodes", v) for v in (3, 1.5)]
    for f in ("is_matching", "is_maximal_matching", "is_perfect_matching"):
        c += [(f, "matching", v) for v in (3, 1.5, None, [1], {1, 2})]
    c += [("modularity", "weight", v) for v in ([1], {})]
    return c


def _nx_call(func, name, value):
    f = getattr(nxbackend, func)
    G = B if func in ("hopcroft_karp_matching", "eppstein_matching", "to_vertex_cover") else P
    pos = {"modularity": [HALVES], "to_vertex_cover": [{0: 2, 2: 0}]}.get(func, [])
    if func.startswith("is_"):
        pos = [{(0, 1)}]
    kw = {"seed": 1} if func.startswith("louvain") else {}
    if func in ("hopcroft_karp_matching", "eppstein_matching", "to_vertex_cover"):
        kw["top_nodes"] = [0, 1]
    if name in ("communities", "matching"):
        pos = [value]
    else:
        kw[name] = value
    if func in nxbackend.BACKEND_KWARGS or "device" in \
            nxbackend.inspect.signature(f).parameters:
        kw["device"] = DEV
    out = f(G, *pos, **kw)
    return list(out) if func == "louvain_partitions" else out


@pytest.mark.parametrize("func, name, value", _nx_cases(), ids=str)
def test_nxbackend_refuses_what_networkx_leaves_unchecked(func, name, value):
    _raises(name, lambda: _nx_call(func, name, value))


def test_nxbackend_keeps_networkx_semantics():
    # networkx's own errors stay networkx's (max_level's wording too, as an InputError)
    with pytest.raises(ValueError, match="max_level argument must be a positive integer") \
            as exc:
        nxbackend.louvain_communities(P, max_level=0, device=DEV)
    assert isinstance(exc.value, InputError) and exc.value.argument == "max_level"
    with pytest.raises(nx.NetworkXError, match="non-2-tuple edge"):
        nxbackend.is_matching(P, {(0, 1, 2)})
    with pytest.raises(nx.algorithms.community.quality.NotAPartition):
        nxbackend.modularity(P, [[1]])
    # networkx computes with infinities and bools here: so does the backend (NaN is refused)
    assert nxbackend.modularity(P, HALVES, resolution=float("inf")) == \
        nx.community.modularity(P, HALVES, resolution=float("inf")) == -float("inf")
    assert nxbackend.modularity(P, HALVES, resolution=True) == \
        pytest.approx(nx.community.modularity(P, HALVES))
    assert len(nxbackend.louvain_communities(P, threshold=float("inf"), seed=1,
                                             device=DEV)) >= 1
    assert nxbackend.to_vertex_cover(B, {0: 2, 2: 0, 1: 3, 3: 1}, top_nodes=[0, 1],
                                     device=DEV) == {0, 1}


# ------------------------------------------------------------------ pyclmatch.distributed
distributed = pytest.importorskip("distributed", reason="needs pyclmatch[dask]")


def _dist_cases():
    c = [("map_graphs", "func", v) for v in ("nope", "_resolve", 3, None, [1])]
    c += [("map_graphs", "graphs", v) for v in (3, None, "a.mtx", b"a.mtx", G, G.toarray(),
                                                nx.path_graph(3), {})]
    c += [("map_graphs", "devices", v) for v in ("x", "0:0", 1, [1], True)]
    c += [("map_graphs", "retries", v) for v in (-1, 1.5, "2", True, 2**64, 10**6)]
    c += [("map_graphs", "progress", v) for v in (1, "yes", print)]
    c += [("map_graphs", "client", v) for v in ("tcp://x:1", 3)]
    c += [("map_graphs", "device", "cpu")]
    c += [("map_graphs", "work_group_size", v) for v in (0, "64", 1.5)]
    c += [("map_graphs", "colour", 1)]
    c += [("map_graphs/louvain", "seed", v) for v in (-1, 1.5, "x")]
    c += [("map_graphs/b_matching", "b", None)]          # (missing)
    c += [("map_graphs/modularity", "resolution", v) for v in ("x", -1)]
    c += [("map_graphs/user", "b", 1)]
    c += [("local_cluster", "n_workers", v) for v in (0, -1, 1.5, "2", True, 10**6, 2**64)]
    c += [("local_cluster", "processes", v) for v in (1, "yes", None)]
    c += [("local_cluster", "threads_per_worker", v) for v in (0, "1")]
    c += [("local_cluster", "devices", v) for v in (1, [1], b"cpu", "", ",")]
    c += [("host_devices", "devices", v) for v in (1, [1], "", True)]
    c += [("DevicePlugin", "devices", v) for v in (1, "")]
    c += [("DevicePlugin", "assignment", v) for v in ("0:0", [1], {0: 1}, {0: ""}, {1.5: "0:0"})]
    c += [("bind_workers", "client", v) for v in (None, "tcp://x:1")]
    c += [("bound_workers", "kind", v) for v in ("auto", None, "x", 1)]
    c += [("bound_workers", "timeout", v) for v in (-1, "x", float("nan"))]
    c += [("bound_workers", "client", None)]
    c += [("worker_handle", "kind", v) for v in ("x", None)]
    c += [("worker_handle", "wait", v) for v in (-1, "x")]
    return c


def _dist_call(func, name, value):
    from pyclmatch import distributed as D
    one = [G]
    if func.startswith("map_graphs"):
        call = {"map_graphs": "maximum_matching", "map_graphs/louvain": "louvain",
                "map_graphs/b_matching": "b_matching", "map_graphs/modularity": "modularity",
                "map_graphs/user": lambda g, device=None, a=1: 0}[func]
        kw = {"membership": [0, 0, 1]} if func.endswith("modularity") else {}
        if name == "func":
            call = value
        elif name == "graphs":
            one = value
        elif value is not None or name != "b":
            kw[name] = value
        return D.map_graphs(call, one, **kw)
    if func == "local_cluster":
        kw = {"devices": "cpu", "dashboard_address": None, name: value}
        return D.local_cluster(kw.pop("devices"), **kw)
    if func == "host_devices":
        return D.host_devices(value)
    if func == "DevicePlugin":
        return D.DevicePlugin(**{"devices": "cpu", name: value})
    if func == "bind_workers":
        return D.bind_workers(**{"client": "c", "devices": "cpu", name: value})
    if func == "bound_workers":
        return D.bound_workers(**{"client": "c", "kind": "cpu", name: value})
    return D.worker_handle(**{"kind": "cpu", name: value})


@pytest.mark.parametrize("func, name, value", _dist_cases(), ids=str)
def test_distributed_refuses_before_a_cluster_starts(func, name, value):
    """Each of these would start a local cluster, or connect, if the bad value passed: the
    default client=None of map_graphs starts one."""
    _raises(name, lambda: _dist_call(func, name, value))


def _bench_cases():
    c = [("address", v) for v in (None, 1, "", b"local")]
    c += [("suite", v) for v in (None, 1, [1])]
    c += [("algorithms", v) for v in (None, 1, "", "nope", "bipartite:nope,x")]
    c += [("devices", v) for v in ("x", 1, "0:0")]
    c += [("repeat", v) for v in (0, -1, 1.5, "3", True)]
    c += [("baselines", v) for v in (1, "yes", None)]
    c += [("out", v) for v in (1, [1])]
    c += [("rcp", v) for v in ("x", 1, None)]
    c += [("graphs", v) for v in ("kron-10", [1], 3)]
    c += [("progress", v) for v in (1, None)]
    c += [("memory_limit", v) for v in (0, -1, 1.5, "1G")]
    c += [("command", v) for v in (1, ["x"])]
    return c


@pytest.mark.parametrize("name, value", _bench_cases(), ids=str)
def test_run_bench_dask_refuses_before_it_connects(name, value):
    from pyclmatch.bench.distributed import run_bench_dask
    # (an address that would take 30 s to time out if a bad value got through)
    kw = {"address": "tcp://192.0.2.1:1", "devices": "cpu", name: value}
    _raises(name, lambda: run_bench_dask(kw.pop("address"), **kw))
