"""Public API of half-approximate weighted matching and b-matching (the Suitor family)."""
from dataclasses import dataclass, field
import time

import numpy as np

from ..engine.devices import get_device
from ..engine.scheduler import Scheduler
from ..errors import InputError
from .graph import WeightedGraph, as_b, as_weighted_graph
from .reference import matching_weight, verify_b_matching, verify_weighted_matching
from .suitor import (SUITOR_VARIANTS, BSuitorMatcher, DeviceWeighted, LocallyDominantMatcher,
                     SuitorMatcher)

ALGORITHMS = ("suitor", "ld") + tuple(f"suitor-{v}" for v in SUITOR_VARIANTS)
_GRAPH_PARAMS = ("symmetrize", "drop_invalid", "n", "weight", "keep_on_device")


@dataclass
class WeightedMatchingResult:
    """Result of :func:`weighted_matching`: ``mate[v]`` is v's partner (-1 unmatched)."""
    mate: np.ndarray
    weight: float
    cardinality: int
    algorithm: str
    device: str
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    verified: bool = False
    nodes: list = None

    @property
    def edges(self):
        """(k, 2) array of the matched pairs (u < v)."""
        v = np.flatnonzero(self.mate > np.arange(self.mate.size))
        return np.stack([v, self.mate[v]], axis=1)

    def node_pairs(self):
        """Matched pairs as node objects (networkx input), else as vertex ids."""
        e = self.edges
        if self.nodes is None:
            return [tuple(map(int, p)) for p in e]
        return [(self.nodes[a], self.nodes[b]) for a, b in e]

    @property
    def device_seconds(self):
        return self.timings.get("match", 0.0)

    def summary(self):
        return {"n": int(self.mate.size), "cardinality": self.cardinality,
                "weight": self.weight, "algorithm": self.algorithm, "device": self.device,
                "verified": self.verified, "timings": dict(self.timings),
                "counters": dict(self.counters)}


@dataclass
class BMatchingResult:
    """Result of :func:`b_matching`: ``edges`` (k x 2, u < v, each pair once), ``degree``."""
    edges: np.ndarray
    degree: np.ndarray
    weight: float
    b: np.ndarray
    algorithm: str
    device: str
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    verified: bool = False

    @property
    def cardinality(self):
        return int(self.edges.shape[0])


def _split_params(params, allowed, name):
    unknown = set(params) - set(allowed) - set(_GRAPH_PARAMS)
    if unknown:
        raise InputError(f"unknown parameter(s) {', '.join(sorted(unknown))} for {name}; "
                         f"accepted: {', '.join(sorted(set(allowed) | set(_GRAPH_PARAMS)))}")
    gp = {k: params[k] for k in _GRAPH_PARAMS if k in params and k != "keep_on_device"}
    ap = {k: params[k] for k in allowed if k in params}
    return gp, ap


def _device_graph(handle, g, runner, extra, keep, sched):
    """The graph's device arrays: uploaded now, or reused from an earlier call that kept them
    (``keep_on_device=True``: they stay attached to the WeightedGraph, one copy per device)."""
    cache = getattr(g, "_device_cache", None)
    dg = cache.get(id(handle)) if cache else None
    if dg is not None and dg.handle is handle:
        return dg, True
    with sched.step("upload"):
        dg = DeviceWeighted(handle, g, runner, extra)
        handle.queue.finish()
    if keep:
        g._device_cache = {id(handle): dg}
    return dg, False


def release_device_graph(g):
    """Drop the device arrays kept by ``keep_on_device=True`` calls."""
    g._device_cache = None


def prepare_graph(G, **graph_params):
    """Validate ``G`` once (see :func:`~pyclmatch.weighted.graph.as_weighted_graph`); pass the
    returned :class:`WeightedGraph` to repeated calls to skip the host-side checks."""
    return as_weighted_graph(G, **graph_params)


def weighted_matching(G, *, algorithm="suitor", device=None, verify=True, progress=None,
                      **params):
    """Half-approximate maximum-weight matching of a general graph on an OpenCL device.

    Parameters
    ----------
    G : symmetric scipy.sparse matrix, ``(u, v, w)`` edge arrays (optionally ``(u, v, w, n)``),
        dense square array, networkx graph, or a :class:`WeightedGraph` from
        :func:`prepare_graph`. Weights must be finite and positive.
    algorithm : ``"suitor"`` (GPU-Suitor, Paper I Algorithm 4, NoSync variant by default),
        ``"suitor-nosync"``, ``"suitor-synclb"``, ``"suitor-syncnolb"``, ``"suitor-hybrid"``
        (the Section 4 variants) or ``"ld"`` (locally-dominant, Algorithms 1-2).
        All return the same matching: the greedy matching (edges by decreasing weight, ties
        by vertex ids), which weighs at least half the optimum.
    device : see :func:`pyclmatch.get_device`.
    verify : check on the host, in O(m), that the result is a matching with no blocking edge
        (which proves it is the greedy matching); a failure raises ``VerificationError``.
    params : graph options ``symmetrize``, ``drop_invalid``, ``n``, ``weight`` (networkx
        attribute), ``keep_on_device`` (keep the uploaded graph attached to a prepared
        :class:`WeightedGraph` so that later calls on the same device skip the upload;
        :func:`release_device_graph` drops it); Suitor options ``variant``, ``vertices_per_group`` (8),
        ``work_group_size`` (128 on GPUs), ``threads_per_vertex`` (lanes per vertex, "auto"),
        ``lb_rounds`` (load-balanced iterations of SyncLB/Hybrid, 4), ``batch_rounds``.

    Returns
    -------
    WeightedMatchingResult with ``mate``, ``weight`` (sum of the input weights), ``cardinality``,
    ``timings`` (seconds: prepare, upload, build, match, download, verify, ``kernel:<phase>``)
    and ``counters``.
    """
    name = (algorithm or "suitor").lower()
    if name not in ALGORITHMS:
        raise InputError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    cls = LocallyDominantMatcher if name == "ld" else SuitorMatcher
    gp, ap = _split_params(params, cls.params, name)
    if name.startswith("suitor-"):
        if "variant" in ap and ap["variant"] != name[7:]:
            raise InputError(f"algorithm {name!r} contradicts variant={ap['variant']!r}")
        ap["variant"] = name[7:]
    t0 = time.perf_counter()
    g = as_weighted_graph(G, **gp)
    t_prepare = time.perf_counter() - t0
    handle = get_device(device)
    label = name if name == "ld" else f"suitor-{ap.get('variant', 'nosync')}"
    if g.nnz == 0:
        res = WeightedMatchingResult(np.full(g.n, -1, np.int64), 0.0, 0, label, handle.label,
                                     {"prepare": t_prepare}, {}, bool(verify), g.nodes)
        return res
    try:
        runner = cls(handle, g, **ap)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    sched = Scheduler(handle, progress=progress, label=f"weighted_matching[{label}]")
    sched.wall["prepare"] = t_prepare
    keep = bool(params.get("keep_on_device", False))
    dg, reused = _device_graph(handle, g, runner, runner.device_bytes(g, runner.vpg), keep,
                               sched)
    with sched.step("build"):
        runner.build()
    with sched.step("match"):
        if not reused:
            dg.compute_sources(sched)
        mate_d, stats = runner.run(dg, sched)
        handle.queue.finish()
    with sched.step("download"):
        mate = mate_d.get().astype(np.int64)
    if verify:
        with sched.step("verify"):
            verify_weighted_matching(g, mate)
    card = int((mate >= 0).sum()) // 2
    res = WeightedMatchingResult(mate, matching_weight(g, mate),
                                 card, label, handle.label, nodes=g.nodes)
    res.verified = bool(verify)
    res.timings = sched.timings()
    res.counters = dict(stats, **sched.counters)
    return res


def b_matching(G, b, *, algorithm="b-suitor", device=None, verify=True, progress=None,
               **params):
    """Half-approximate maximum-weight b-matching by b-Suitor (Paper II) on an OpenCL device.

    ``b`` is an int or a per-vertex integer array (0 allowed). Every vertex v keeps up to b(v)
    best suitors; the result is exactly the sequential greedy b-matching (edges by decreasing
    weight, ties by vertex ids, an edge taken while both ends have room).

    Returns a :class:`BMatchingResult` with ``edges`` (k x 2, u < v, each pair once),
    ``degree`` per vertex, ``weight``, timings and counters. ``params``: the graph options of
    :func:`weighted_matching`, ``work_group_size``, ``batch_rounds``.
    """
    if (algorithm or "b-suitor").lower() not in ("b-suitor", "bsuitor"):
        raise InputError(f"unknown algorithm {algorithm!r}; b_matching has 'b-suitor'")
    gp, ap = _split_params(params, BSuitorMatcher.params, "b-suitor")
    t0 = time.perf_counter()
    g = as_weighted_graph(G, **gp)
    bb = as_b(b, g.n)
    t_prepare = time.perf_counter() - t0
    handle = get_device(device)
    if g.nnz == 0 or not bb.any():
        return BMatchingResult(np.zeros((0, 2), np.int64), np.zeros(g.n, np.int64), 0.0, bb,
                               "b-suitor", handle.label, {"prepare": t_prepare}, {},
                               bool(verify))
    runner = BSuitorMatcher(handle, g, bb, **ap)
    sched = Scheduler(handle, progress=progress, label="b_matching[b-suitor]")
    sched.wall["prepare"] = t_prepare
    keep = bool(params.get("keep_on_device", False))
    dg, reused = _device_graph(handle, g, runner, runner.device_bytes(g, bb), keep, sched)
    with sched.step("build"):
        runner.build()
    with sched.step("match"):
        if not reused:
            dg.compute_sources(sched)
        (slist_d, ssize_d, bptr), stats = runner.run(dg, sched)
        handle.queue.finish()
    with sched.step("download"):
        slist = slist_d.get().astype(np.int64)
        ssize = ssize_d.get().astype(np.int64)
    # pairs (p, u) with u in S(p): entry k of p's list is valid when k < ssize[p]
    owner = np.repeat(np.arange(g.n, dtype=np.int64), bb)
    k = np.arange(owner.size, dtype=np.int64) - bptr[owner]
    valid = k < ssize[owner]
    p = owner[valid]
    u = g.indices[slist[:owner.size][valid]].astype(np.int64)
    lo_key = np.sort(np.minimum(p, u)[p < u] * g.n + np.maximum(p, u)[p < u])
    hi_key = np.sort(np.minimum(p, u)[p > u] * g.n + np.maximum(p, u)[p > u])
    if np.array_equal(lo_key, hi_key):       # at the fixpoint the suitor relation is mutual
        keys = lo_key
    elif verify:
        from ..errors import VerificationError
        raise VerificationError("b-Suitor ended with a non-mutual suitor pair")
    else:
        keys = np.intersect1d(lo_key, hi_key)
    edges = np.stack([keys // g.n, keys % g.n], axis=1)
    degree = np.bincount(edges.ravel(), minlength=g.n).astype(np.int64)
    if verify:
        with sched.step("verify"):
            verify_b_matching(g, bb, edges)
    weight = 0.0
    if edges.size:
        from .reference import _edge_weights
        weight = float(_edge_weights(g, edges[:, 0], edges[:, 1], np.float64).sum())
    res = BMatchingResult(edges, degree, weight, bb, "b-suitor", handle.label)
    res.verified = bool(verify)
    res.timings = sched.timings()
    res.counters = dict(stats, **sched.counters)
    return res
