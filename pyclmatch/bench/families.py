"""Family adapters: how the bench harness runs one algorithm family.

A family adapter is any object with these attributes (register it with :func:`register`;
the harness needs no change for a new family):

``name``                      family name ("bipartite", "weighted", "louvain", ...)
``algorithms()``              list of algorithm names it runs on devices
``prepare(graph_name, A)``    the family's input built from a suite matrix (outside timings)
``size(inp)``                 ``{"vertices": int, "edges": int, "bytes": int}`` (bytes = the
                              graph's device bytes, used for the bandwidth fraction)
``estimate_bytes(inp, alg)``  device-memory estimate of one run: ``{buffer: bytes}``
``run(handle, alg, inp)``     one verified run: ``{"seconds": e2e without the verification,
                              "whole_seconds": the whole call, verification included,
                              "device_seconds", "phases": {phase: s}, "verified": bool,
                              "quality": {...}}``
``exact``                     optional: True when baselines must match the device's quality
                              numbers exactly (their records are then verified against them)
``baseline_max_edges``        optional ``{baseline: edges}``: larger graphs skip it (stated)
``baselines()``               ``{name: fn(inp) -> {"seconds", "quality"}}`` of installed
                              host libraries (scipy, networkx, igraph, NetworKit)
"""
import time

import numpy as np
import scipy.sparse as sp

from .. import bipartite, weighted
from ..bipartite import maximum_matching
from ..community.api import leiden, louvain
from ..engine.graphs import as_bipartite
from ..errors import InputError
from ..weighted import (gale_shapley_sequential, greedy_matching, marriage, matching_weight,
                        smi_from_graph, stable_marriage, weighted_matching, with_random_weights)

__all__ = ["FAMILIES", "register", "family_of", "all_algorithms", "BipartiteFamily"]

FAMILIES = {}


def register(family):
    FAMILIES[family.name] = family
    return family


def all_algorithms():
    """``["family:algorithm", ...]`` for every registered family."""
    return [f"{f.name}:{a}" for f in FAMILIES.values() for a in f.algorithms()]


def family_of(spec):
    """``(family, algorithm)`` for ``"family:alg"``, a bare algorithm name, or a family name
    (all of its algorithms: returns a list)."""
    if ":" in spec:
        fam, alg = spec.split(":", 1)
        if fam not in FAMILIES:
            raise InputError(f"unknown family {fam!r}; known: {list(FAMILIES)}")
        return [(FAMILIES[fam], alg)]
    if spec in FAMILIES:
        f = FAMILIES[spec]
        return [(f, a) for a in f.algorithms()]
    for f in FAMILIES.values():
        if spec in f.algorithms() or spec == "auto":
            return [(f, spec)]
    raise InputError(f"unknown algorithm {spec!r}; known: {all_algorithms()}")


def phases_of(timings):
    """The kernel phases of a result's ``timings``: ``{phase: seconds}``."""
    return {k.split(":", 1)[1]: float(v) for k, v in timings.items() if k.startswith("kernel:")}


def verified_call(call, *args, **kwargs):
    """``(result, record)`` of one ``call(*args, verify=True, **kwargs)``: the record holds the
    whole call (``whole_seconds``), the call without its verification (``seconds``), the
    kernel phases, their sum as ``device_seconds`` and whether the result is verified."""
    t0 = time.perf_counter()
    r = call(*args, verify=True, **kwargs)
    total = time.perf_counter() - t0
    phases = phases_of(r.timings)
    return r, {"seconds": total - r.timings.get("verify", 0.0), "whole_seconds": total,
               "device_seconds": sum(phases.values()) or None, "phases": phases,
               "verified": bool(getattr(r, "verified", True))}


class BipartiteFamily:
    """Exact maximum-cardinality bipartite matching (:func:`pyclmatch.maximum_matching`)."""
    name = "bipartite"
    baseline_max_edges = {"networkx": 300_000, "scipy": 20_000_000}
    exact = True    # baselines must reach the same quality numbers (cardinality)

    def algorithms(self):
        return list(bipartite.algorithms())

    def prepare(self, graph_name, A):
        g = as_bipartite(A)
        g.csc   # conversion once, outside every timing
        return g

    def size(self, g):
        nr, nc = g.shape
        return {"vertices": nr + nc, "edges": int(g.nnz),
                "bytes": 4 * (2 * int(g.nnz) + nr + nc + 2)}

    def estimate_bytes(self, g, alg):
        nr, nc = g.shape
        nnz = int(g.nnz)
        return {"row_ptr": 4 * (nr + 1), "col_ind": 4 * nnz, "col_ptr": 4 * (nc + 1),
                "row_ind": 4 * nnz, "matches": 4 * (nr + nc),
                "bfs arrays (estimate)": 4 * 4 * (nr + nc)}

    def run(self, handle, alg, g):
        r, rec = verified_call(maximum_matching, g, algorithm=alg, device=handle)
        return dict(rec, device_seconds=float(r.device_seconds), algorithm_resolved=r.algorithm,
                    quality={"cardinality": int(r.cardinality)})

    def baselines(self):
        out = {}
        try:
            from scipy.sparse.csgraph import maximum_bipartite_matching

            def scipy_mbm(g):
                t0 = time.perf_counter()
                m = maximum_bipartite_matching(g.csr, perm_type="column")
                return {"seconds": time.perf_counter() - t0,
                        "quality": {"cardinality": int((m >= 0).sum())}}
            out["scipy"] = scipy_mbm
        except ImportError:
            pass
        try:
            import networkx as nx

            def networkx_hk(g):
                nr, _ = g.shape
                coo = g.csr.tocoo()
                G = nx.Graph()
                G.add_nodes_from(range(nr + g.shape[1]))
                G.add_edges_from(zip(coo.row.tolist(), (coo.col + nr).tolist()))
                t0 = time.perf_counter()
                m = nx.bipartite.hopcroft_karp_matching(G, top_nodes=range(nr))
                return {"seconds": time.perf_counter() - t0,
                        "quality": {"cardinality": len(m) // 2}}
            out["networkx"] = networkx_hk
        except ImportError:
            pass
        return out


register(BipartiteFamily())


class WeightedFamily:
    """Half-approximate weighted matching (:func:`pyclmatch.weighted.weighted_matching`): the
    suite matrix symmetrized with random weights (seed 0), as the weighted benchmark does.
    Every variant returns the greedy matching, so the weight is compared exactly."""
    name = "weighted"
    exact = True

    def algorithms(self):
        return list(weighted.ALGORITHMS)

    def prepare(self, graph_name, A):
        return with_random_weights(A, seed=0)

    def size(self, g):
        nnz = int(g.indptr[-1])
        return {"vertices": g.n, "edges": nnz // 2, "bytes": 4 * (2 * nnz + g.n + 1)}

    def estimate_bytes(self, g, alg):
        nnz = int(g.indptr[-1])
        return {"indptr": 4 * (g.n + 1), "indices": 4 * nnz, "weights": 4 * nnz,
                "suitor arrays (estimate)": 4 * 4 * g.n}

    def run(self, handle, alg, g):
        r, rec = verified_call(weighted_matching, g, algorithm=alg, device=handle)
        return dict(rec, quality={"weight": round(float(r.weight), 6),
                                  "cardinality": int(r.cardinality)})

    def baselines(self):
        def numpy_greedy(g):
            t0 = time.perf_counter()
            mate = greedy_matching(g)
            sec = time.perf_counter() - t0
            mate = np.asarray(mate)
            return {"seconds": sec,
                    "quality": {"weight": round(float(matching_weight(g, mate)), 6),
                                "cardinality": int((mate >= 0).sum() // 2)}}
        return {"numpy-greedy": numpy_greedy}


class LouvainFamily:
    """Louvain community detection (:func:`pyclmatch.louvain`) on the symmetrized,
    unweighted suite matrix; quality = modularity (no exact baseline comparison)."""
    name = "louvain"
    baseline_max_edges = {"networkx-louvain": 300_000}

    def algorithms(self):
        return ["louvain", "louvain-deterministic"]

    def prepare(self, graph_name, A):
        P = sp.csr_matrix(A, dtype=np.float64, copy=True)
        P.data[:] = 1.0
        P = ((P + P.T) > 0).astype(np.float64).tocsr()
        P.setdiag(0)
        P.eliminate_zeros()
        return P

    def size(self, P):
        return {"vertices": P.shape[0], "edges": int(P.nnz) // 2,
                "bytes": 8 * int(P.nnz) + 4 * (P.shape[0] + 1)}

    def estimate_bytes(self, P, alg):
        return {"graph": 8 * int(P.nnz) + 4 * (P.shape[0] + 1),
                "aggregated graph + tables (estimate)": 24 * int(P.nnz) + 32 * P.shape[0]}

    def run(self, handle, alg, P):
        r, rec = verified_call(louvain, P, deterministic=(alg == "louvain-deterministic"),
                               seed=0, device=handle)
        return dict(rec, verified=True,    # verify=True raises otherwise
                    quality={"modularity": round(float(r.modularity), 4),
                             "communities": int(r.n_communities)})

    def baselines(self):
        out = {}
        try:
            import networkx as nx

            def networkx_louvain(P):
                G = nx.from_scipy_sparse_array(P)
                t0 = time.perf_counter()
                comms = nx.community.louvain_communities(G, seed=0)
                sec = time.perf_counter() - t0
                return {"seconds": sec, "quality": {"modularity": round(float(
                    nx.community.modularity(G, comms)), 4), "communities": len(comms)}}
            out["networkx-louvain"] = networkx_louvain
        except ImportError:
            pass
        return out


class LeidenFamily(LouvainFamily):
    """Leiden (:func:`pyclmatch.leiden`, connectivity certified) on the same input as
    :class:`LouvainFamily`; quality = modularity, communities and disconnected communities
    (0); baseline igraph's ``community_leiden(objective_function="modularity")`` where
    igraph is installed."""
    name = "leiden"
    baseline_max_edges = {"igraph-leiden": 5_000_000}

    def algorithms(self):
        return ["leiden", "leiden-deterministic"]

    def run(self, handle, alg, P):
        r, rec = verified_call(leiden, P, deterministic=(alg == "leiden-deterministic"),
                               seed=0, device=handle)
        return dict(rec, verified=r.disconnected == 0,
                    quality={"modularity": round(float(r.modularity), 4),
                             "communities": int(r.n_communities),
                             "disconnected": int(r.disconnected)})

    def baselines(self):
        try:
            import igraph as ig
        except ImportError:
            return {}

        def igraph_leiden(P):
            C = sp.triu(P, 1).tocoo()
            g = ig.Graph(n=P.shape[0], edges=np.column_stack([C.row, C.col]).tolist())
            t0 = time.perf_counter()
            part = g.community_leiden(objective_function="modularity", n_iterations=2)
            sec = time.perf_counter() - t0
            return {"seconds": sec, "quality": {"modularity": round(float(part.modularity), 4),
                                                "communities": len(part)}}
        return {"igraph-leiden": igraph_leiden}


class MarriageFamily:
    """Stable marriage (:func:`pyclmatch.weighted.stable_marriage`) on the SMI instance of
    Lemma 3.1 (Paper IV) built from the suite graph with random weights (seed 0); the
    man-optimal matching is unique, so its size is compared with the sequential
    Gale-Shapley baseline exactly."""
    name = "marriage"
    exact = True
    baseline_max_edges = {"gale-shapley-python": 300_000}

    def algorithms(self):
        return list(marriage.ALGORITHMS)

    def prepare(self, graph_name, A):
        return smi_from_graph(with_random_weights(A, seed=0))

    def size(self, inst):
        L = int(inst.mptr[-1])
        return {"vertices": inst.n_men + inst.n_women, "edges": L,
                "bytes": 4 * (2 * L + inst.n_men + inst.n_women + 2)}

    def estimate_bytes(self, inst, alg):
        L = int(inst.mptr[-1])
        return {"men lists": 4 * (L + inst.n_men + 1), "women lists": 4 * (L + inst.n_women + 1),
                "ranks (estimate)": 4 * L, "state (estimate)": 16 * (inst.n_men + inst.n_women)}

    def run(self, handle, alg, inst):
        r, rec = verified_call(stable_marriage, inst, algorithm=alg, device=handle)
        return dict(rec, quality={"size": int(r.size)})

    def baselines(self):
        def gale_shapley_python(inst):
            t0 = time.perf_counter()
            wife, _ = gale_shapley_sequential(inst)
            return {"seconds": time.perf_counter() - t0,
                    "quality": {"size": int((np.asarray(wife) >= 0).sum())}}
        return {"gale-shapley-python": gale_shapley_python}


register(WeightedFamily())
register(LouvainFamily())
register(LeidenFamily())
register(MarriageFamily())


class AssignmentFamily:
    """The optimal assignment (:func:`pyclmatch.assignment`, the auction) of the suite matrix
    with random weights in [0.01, 1.01) (seed 0), maximised: a full matching of the smaller
    side where the structural rank allows it, else the optimal matching of any size
    (``full=False``). The objective is compared with scipy's
    ``min_weight_full_bipartite_matching`` (on the doubled problem for a partial one) to 9
    significant digits."""
    name = "assignment"
    exact = True
    baseline_max_edges = {"scipy": 2_000_000}

    def algorithms(self):
        return ["auction"]

    def prepare(self, graph_name, A):
        from scipy.sparse.csgraph import maximum_bipartite_matching
        B = sp.csr_matrix(A, dtype=np.float64, copy=True)
        B.sum_duplicates()
        B.data = np.random.default_rng(0).random(B.nnz) + 0.01
        rank = int((maximum_bipartite_matching(B, perm_type="column") >= 0).sum())
        return B, rank == min(B.shape)

    def size(self, inp):
        B, _ = inp
        return {"vertices": sum(B.shape), "edges": int(B.nnz),
                "bytes": 16 * int(B.nnz) + 4 * (B.shape[0] + 1)}

    def estimate_bytes(self, inp, alg):
        B, full = inp
        n = max(B.shape) if full else sum(B.shape)
        nnz = int(B.nnz) if full else 2 * int(B.nnz) + n
        return {"problem": 16 * nnz + 4 * (n + 1), "auction state": 32 * n}

    def run(self, handle, alg, inp):
        from ..assignment.api import assignment
        B, full = inp
        r, rec = verified_call(assignment, B, maximize=True, full=full, device=handle)
        return dict(rec, quality={"objective": float(f"{r.objective:.9g}"),
                                  "cardinality": int(r.cardinality)})

    def baselines(self):
        from scipy.sparse.csgraph import min_weight_full_bipartite_matching

        def scipy_mwfbm(inp):
            B, full = inp
            t0 = time.perf_counter()
            if full:
                r, c = min_weight_full_bipartite_matching(B, maximize=True)
                total, card = float(np.asarray(B[r, c]).sum()), int(r.size)
            else:
                total, card = _doubled_scipy(B, min_weight_full_bipartite_matching)
            return {"seconds": time.perf_counter() - t0,
                    "quality": {"objective": float(f"{total:.9g}"), "cardinality": card}}
        return {"scipy": scipy_mwfbm}


def _doubled_scipy(B, solver):
    """The maximum-weight matching of any size of ``B`` by scipy's full-matching solver on
    the doubled problem (:mod:`pyclmatch.assignment.problem`), every cost shifted by 1 + the
    largest |weight| so that no entry becomes an explicit zero (scipy drops them; a perfect
    matching of the doubled problem has a fixed size, so the shift moves every one's cost
    alike): ``(weight, cardinality)``."""
    nr, nc = B.shape
    c = B.tocoo()
    rows = np.concatenate([c.row, nr + c.col, nr + np.arange(nc), np.arange(nr)])
    cols = np.concatenate([c.col, nc + c.row, np.arange(nc), nc + np.arange(nr)])
    vals = np.concatenate([-c.data, np.zeros(c.nnz + nc + nr)])
    vals += 1.0 + (float(np.abs(c.data).max()) if c.nnz else 0.0)
    D = sp.csr_matrix((vals, (rows, cols)), shape=(nr + nc, nr + nc))
    r, k = solver(D)
    real = (r < nr) & (k < nc)
    if not real.any():
        return 0.0, 0
    return float(np.asarray(B[r[real], k[real]]).sum()), int(real.sum())


register(AssignmentFamily())
