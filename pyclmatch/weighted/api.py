"""Public API of half-approximate weighted matching and b-matching (the Suitor family)."""
from __future__ import annotations

from dataclasses import dataclass
import functools
import time

import numpy as np

from typing import Any

from numpy.typing import ArrayLike

from .._typing import DeviceSpec, GraphInput, Progress
from .._record import RunRecord
from ..engine import args, limits
from ..engine.devices import get_device, device_call
from ..engine.compressed import check_no_entries
from ..engine.scheduler import Scheduler
from ..errors import InputError, VerificationError
from .blocking import DeviceCertificate
from .graph import (WEIGHT_NAMES, SparseInput, WeightedGraph, as_b, b_values,
                    as_weighted_graph, check_precision, degree_bound, device_fp64,
                    inexact_error, resolve_precision, weighted_input)
from .reference import verify_b_matching, verify_weighted_matching
from .suitor import (SUITOR_VARIANTS, BSuitorMatcher, DeviceWeighted, LocallyDominantMatcher,
                     SuitorMatcher)

ALGORITHMS = ("suitor", "ld") + tuple(f"suitor-{v}" for v in SUITOR_VARIANTS)
_GRAPH_PARAMS = ("symmetrize", "drop_invalid", "n", "weight", "keep_on_device")


def _lanes(name, value):
    """``threads_per_vertex``: None or "auto" (from the average degree), or a power of two."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
        return None
    allowed = "a power of two between 1 and 1024, 'auto' or None"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or not 1 <= value <= 1024 or int(value) & (int(value) - 1):
        args.refuse(name, value, allowed)
    return int(value)


#: the checkers of the weighted families' parameters (:mod:`pyclmatch.engine.args`); the
#: graph options ``n`` and ``weight`` are checked with the graph. ``work_group_size``: a power
#: of two (the Suitor kernels split the group into lanes of ``threads_per_vertex``), checked
#: against the device once it is known.
PARAMS = {
    "symmetrize": args.boolean, "drop_invalid": args.boolean, "keep_on_device": args.boolean,
    "n": None, "weight": None,
    "variant": functools.partial(args.choice, options=SUITOR_VARIANTS),
    "vertices_per_group": functools.partial(args.integer, low=1, high=1 << 20, none=True),
    "work_group_size": functools.partial(args.work_group_size, power_of_two=True),
    "threads_per_vertex": _lanes,
    "lb_rounds": functools.partial(args.integer, low=0, high=args.INT32_MAX),
    "batch_rounds": args.batch,
}


class _PairWeight:
    """The total input weight (as float64) of matched pairs given by their input positions
    ``pos`` (entries < 0 skipped), summed when first asked for: one gather of the input
    weights ``w``, in increasing position, which is the order of the pairs (u < v, u
    increasing), so the sum is the same float as summing the input weights of the pairs in
    that order."""
    __slots__ = ("w64", "pos")

    def __init__(self, w64, pos):
        self.w64, self.pos = w64, pos

    def __call__(self):
        pos = self.pos
        if pos.size and pos.min() < 0:
            pos = pos[pos >= 0]
        if not pos.size:
            return 0.0
        with np.errstate(over="ignore"):
            total = float(np.asarray(self.w64[pos], np.float64).sum())
        if not np.isfinite(total):
            raise InputError("the total weight of the matched edges overflows float64 (the "
                             "weights are finite, their sum is not): scale the weights down; "
                             "the matching itself (mate, edges) is valid", argument="G")
        return total


def _lazy_weight(cls):
    """Make the dataclass field ``weight`` accept a :class:`_PairWeight`, evaluated (and cached)
    on first access, so that a call does not pay a pass over the weights unless asked."""
    def get(self):
        w = self.__dict__["_weight"]
        if isinstance(w, _PairWeight):
            w = self.__dict__["_weight"] = w()
        return w

    def set_(self, value):
        self.__dict__["_weight"] = value

    def getstate(self):
        get(self)
        return self.__dict__

    cls.weight = property(get, set_, doc="total input weight of the matched edges (float; "
                                         "computed on first access, then cached)")
    cls.__getstate__ = getstate
    return cls


@_lazy_weight
@dataclass
class WeightedMatchingResult(RunRecord):
    """Result of :func:`weighted_matching`: ``mate[v]`` is v's partner (-1 unmatched).

    Examples
    --------
    >>> import pyclmatch
    >>> import numpy as np
    >>> res = pyclmatch.weighted_matching((np.array([0, 1]), np.array([1, 2]),
    ...                                    np.array([1.0, 2.0])))
    >>> res.mate.tolist(), res.edges.tolist(), res.node_pairs(), res.weight
    ([-1, 2, 1], [[1, 2]], [(1, 2)], 2.0)
    """
    mate: np.ndarray
    weight: float
    cardinality: int
    nodes: list = None
    #: the precision in which the weights were compared: "float64" or "float32"
    precision: str = "float64"

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


@_lazy_weight
@dataclass
class BMatchingResult(RunRecord):
    """Result of :func:`b_matching`: ``edges`` (k x 2, u < v, each pair once), ``degree``.

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> triangle = np.array([[0, 1, 2], [1, 0, 3], [2, 3, 0]], float)
    >>> res = pyclmatch.b_matching(triangle, 2)      # up to 2 matched edges per vertex
    >>> res.cardinality, res.degree.tolist(), res.weight
    (3, [2, 2, 2], 6.0)
    """
    edges: np.ndarray
    degree: np.ndarray
    weight: float
    b: np.ndarray
    #: the precision in which the weights were compared: "float64" or "float32"
    precision: str = "float64"

    @property
    def cardinality(self):
        return int(self.edges.shape[0])


def _split_params(params, allowed, name):
    """``params`` of the driver ``name`` (taking ``allowed``) checked (:data:`PARAMS`) and
    split: ``(graph options, driver options)``."""
    params = args.options(name, params, {k: PARAMS[k] for k in (*allowed, *_GRAPH_PARAMS)})
    gp = {k: params[k] for k in _GRAPH_PARAMS if k in params and k != "keep_on_device"}
    ap = {k: params[k] for k in allowed if k in params}
    return gp, ap, params


def _fitter(handle, what, b=None):
    """The declared-size check of ``what`` (:func:`weighted_input`'s ``fits``): the
    family's footprint (:func:`~pyclmatch.engine.limits.weighted_footprint`; with ``b``, the
    b-Suitor lists of ``sum(b)`` suitors) against the device and the host."""
    def fits(n, nnz, host):
        b_total = None
        if b is not None:
            try:
                b_total = int(b) * n if np.ndim(b) == 0 else int(np.sum(b, dtype=np.int64))
            except (TypeError, ValueError, OverflowError):
                b_total = n                        # (invalid b: as_b names the problem)
            b_total = min(b_total, 2 * nnz)         # (b is capped at the degree)
        dev, need = limits.weighted_footprint(n, nnz, b=b_total)
        if b is not None:
            need["b"] = n * 8
        limits.check(handle, what, limits.sizes_text(n, nnz=nnz, entries="stored entries"),
                     dev, dict(need, **host))
    return fits


def _checked_precision(precision):
    """``precision`` as one of the names :func:`check_precision` takes, refused naming it."""
    try:
        return check_precision(precision)
    except InputError:
        args.refuse("precision", precision, "one of 'auto', 'float64', 'float32' (or their "
                    "numpy types), or None")


def _device_bound(handle, ap):
    """The driver options ``ap`` with ``work_group_size`` checked against ``handle``."""
    if ap.get("work_group_size") is not None:
        ap = dict(ap, work_group_size=args.work_group_size(
            "work_group_size", ap["work_group_size"], handle.max_work_group_size,
            power_of_two=True))
    return ap


def _weight_type(handle, src, precision):
    """``(dtype, check_exact)``: the weight type the device compares for the input ``src``
    (a :class:`SparseInput` resolved it already) under ``precision``
    (:func:`~pyclmatch.weighted.graph.resolve_precision`)."""
    if isinstance(src, WeightedGraph):
        return resolve_precision(precision, src.input_dtype, device_fp64(handle))
    return src.weight_dtype, src.check_exact


def _device_graph(handle, src, extra, keep, sched, reverse=False, precision="auto"):
    """The graph's device arrays (step ``upload``) with the weights in the type of
    ``precision`` (:func:`_weight_type`): a :class:`SparseInput` is taken in and checked on
    the device (or, where an option needs it, built and checked on the host, step
    ``prepare``); a prepared :class:`WeightedGraph` is uploaded as it is, or reused from an
    earlier call that kept it (``keep_on_device=True``: the arrays stay attached to it, one
    copy per device and weight type). Returns ``(device graph, reused)``."""
    wdt, exact = _weight_type(handle, src, precision)
    if not isinstance(src, WeightedGraph):
        with sched.step("upload"):
            dg = DeviceWeighted.from_input(handle, src, sched, extra, reverse)
            handle.queue.finish()
        if dg is not None:
            return dg, False
        with sched.step("prepare"):
            src = src.host_graph()
        keep = False
    if exact and src.inexact:
        raise inexact_error(src.inexact)
    with sched.step("prepare"):
        src = src.in_precision(wdt)     # (float32: refuses or drops what it cannot hold)
    key = (id(handle), wdt.str)
    cache = getattr(src, "_device_cache", None)
    dg = cache.get(key) if cache else None
    reused = dg is not None and dg.handle is handle
    if not reused:
        with sched.step("upload"):
            dg = DeviceWeighted(handle, src, extra, wdt)
            handle.queue.finish()
        if keep:
            if src._device_cache is None:
                src._device_cache = {}
            src._device_cache[key] = dg
    return dg, reused


def _setup(dg, runner, sched, reverse=False):
    """The edge tails (and reverse edges) of a device graph, computed on the device once
    (step ``setup``)."""
    if dg.src is None or (reverse and dg.rev is None):
        with sched.step("setup"):
            dg.setup(sched, runner, reverse=reverse)
            dg.handle.queue.finish()


def _host_graph(g):
    """The host-checked graph of ``verify="host"``."""
    return g if isinstance(g, WeightedGraph) else g.host_graph()


def _timings(sched, t_start):
    """The scheduler's timings plus ``total`` (the whole call, wall clock)."""
    t = sched.timings()
    t["total"] = time.perf_counter() - t_start
    return t


def release_device_graph(g):
    """Drop the device arrays kept by ``keep_on_device=True`` calls (see
    :func:`prepare_graph`'s example)."""
    g._device_cache = None


@device_call
def prepare_graph(G: GraphInput, *, device: DeviceSpec = None,
                  **graph_params: Any) -> WeightedGraph:
    """Validate ``G`` once on the host (see
    :func:`~pyclmatch.weighted.graph.as_weighted_graph`); pass the returned
    :class:`WeightedGraph` to repeated calls to skip the input checks (a scipy input passed
    directly is checked on the device at each call instead). ``keep_on_device=True`` calls
    keep its device arrays attached to it.

    With ``device`` (any :func:`pyclmatch.get_device` spec) naming a GPU, the CSR arrays are
    also staged in page-locked host memory for that device (``DeviceHandle.pinned_copy``), so
    every later call uploads them at full PCIe speed instead of from numpy's pageable memory;
    it costs one host copy of the graph in pinned memory.

    Examples
    --------
    >>> import pyclmatch
    >>> import numpy as np
    >>> g = pyclmatch.prepare_graph((np.array([0, 1, 2]), np.array([1, 2, 3]),
    ...                              np.array([3.0, 2.0, 4.0])))
    >>> g
    <WeightedGraph 4 vertices, 3 edges>
    >>> pyclmatch.weighted_matching(g, keep_on_device=True).weight
    7.0
    >>> pyclmatch.weighted.release_device_graph(g)
    """
    graph_params = args.options("prepare_graph", graph_params, {
        k: PARAMS.get(k) for k in ("symmetrize", "drop_invalid", "n", "weight", "precision")})
    if "precision" in graph_params:
        graph_params["precision"] = _checked_precision(graph_params["precision"])
    g = as_weighted_graph(G, **graph_params)
    if device is not None:
        g.stage(get_device(device))
    return g


@device_call
def weighted_matching(G: GraphInput, *, algorithm: str = "suitor", device: DeviceSpec = None,
                      verify: bool | str = True, progress: Progress = None,
                      precision: str = "auto", **params: Any) -> WeightedMatchingResult:
    """Half-approximate maximum-weight matching of a general graph on an OpenCL device.

    Parameters
    ----------
    G : symmetric scipy.sparse matrix, ``(u, v, w)`` edge arrays (optionally ``(u, v, w, n)``),
        dense square array, networkx graph, or a :class:`WeightedGraph` from
        :func:`prepare_graph`. Weights must be finite and positive; duplicate entries are
        summed before they are checked; a ``tuple`` of 1-D arrays is edge arrays (each
        undirected edge once or in both directions with the same weight, repeats in one
        direction summed, self-loops ignored); ``n=`` sizes edge arrays and must equal a
        matrix's size (:doc:`interop`, "Input rules").
    algorithm : ``"suitor"`` (GPU-Suitor, Paper I Algorithm 4, NoSync variant by default),
        ``"suitor-nosync"``, ``"suitor-synclb"``, ``"suitor-syncnolb"``, ``"suitor-hybrid"``
        (the Section 4 variants) or ``"ld"`` (locally-dominant, Algorithms 1-2).
        All return the same matching: the greedy matching (edges by decreasing weight, ties
        by vertex ids), which weighs at least half the optimum.
    device : see :func:`pyclmatch.get_device`.
    precision : the precision in which weights are compared: ``"auto"`` (default) the user's:
        float64 weights as float64 on a device with double precision and 64-bit atomics
        (NVIDIA GPUs, PoCL), float32 ones (and small integers, bool) as float32, other
        integers as float64 (refused beyond 2**53 unless a precision is given); ``"float64"``;
        ``"float32"`` (faster on GPUs with slow doubles; weights that differ in float64 may
        then tie, and the result is the greedy matching of the rounded weights). The result's
        ``precision`` (and ``counters["weights"]``) says which was used; the verification
        compares in the same precision.
    verify : ``True`` or ``"device"`` (default): check on the device, by kernels independent
        of the algorithm's (:mod:`pyclmatch.weighted.blocking`), that the result is a
        matching of the graph with no blocking edge, which proves it is the greedy matching;
        ``"host"``: the same check on the host against the host-built graph
        (:func:`~pyclmatch.weighted.reference.verify_weighted_matching`); ``False``: none. A
        failure raises ``VerificationError``.
    params : graph options ``symmetrize``, ``drop_invalid``, ``n``, ``weight`` (networkx
        attribute), ``keep_on_device`` (keep the uploaded graph attached to a prepared
        :class:`WeightedGraph` so that later calls on the same device skip the upload;
        :func:`release_device_graph` drops it); Suitor options ``variant``, ``vertices_per_group`` (8),
        ``work_group_size`` (128 on GPUs), ``threads_per_vertex`` (lanes per vertex, "auto"),
        ``lb_rounds`` (load-balanced iterations of SyncLB/Hybrid, 4), ``batch_rounds``.

    Returns
    -------
    WeightedMatchingResult with ``mate`` (int64), ``weight`` (sum of the input weights, summed
    from the matched pairs' input positions when first read; reading it raises
    :class:`~pyclmatch.errors.InputError` naming ``G`` when that sum overflows float64),
    ``cardinality``, ``timings`` and
    ``counters``. ``timings`` (seconds) has the wall-clock steps of the call, which add up to
    ``total`` (the whole call): ``prepare`` (reading the input and device lookup; the host
    graph's checks where they are needed: edge arrays, ``drop_invalid`` with invalid weights,
    ``symmetrize`` with an asymmetric matrix), ``upload`` (host to device with, for a scipy,
    dense or networkx input, the checks, diagonal removal and weight conversion on the
    device, one read-back; absent when a prepared graph is kept on the device), ``setup``
    (edge tails on the device, once per device graph), ``build`` (program build or cache
    lookup), ``match`` (the
    device phase, to a finished queue; ``readback`` is the part of it spent in blocking
    reads, which on a CPU device includes waiting for the kernels), ``download``, ``verify``,
    ``result`` (host post-processing); and the device time of each kernel phase from the
    profiling events, ``kernel:<phase>`` (setup, init, suitor/ld, mates).

    Examples
    --------
    >>> import pyclmatch
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_matrix(np.array([[0, 3, 1, 0], [3, 0, 2, 0],
    ...                             [1, 2, 0, 4], [0, 0, 4, 0]], float))
    >>> res = pyclmatch.weighted_matching(A)
    >>> res.mate.tolist(), res.weight, res.cardinality
    ([1, 0, 3, 2], 7.0, 2)
    >>> pyclmatch.weighted_matching(A, algorithm="ld").edges.tolist()
    [[0, 1], [2, 3]]
    """
    t_start = time.perf_counter()
    verify = args.verify("verify", verify)
    progress = args.progress("progress", progress)
    cls, label, gp, ap, params = _suitor_driver(algorithm, params)
    precision = _checked_precision(precision)
    handle = get_device(device)
    ap = _device_bound(handle, ap)
    src = weighted_input(G, precision=precision, fp64=device_fp64(handle),
                         fits=_fitter(handle, "weighted_matching"), **gp)
    sched = Scheduler(handle, progress=progress, label=f"weighted_matching[{label}]")
    sched.wall["prepare"] = time.perf_counter() - t_start
    dg, g, wname = _on_device(handle, src, bool(src.nnz), sched, params, precision,
                              lambda: cls.device_bytes(src, ap.get("vertices_per_group") or 8))
    if g.nnz == 0:
        if isinstance(g, SparseInput):
            check_no_entries(g.indptr)
        res = WeightedMatchingResult(np.full(g.n, -1, np.int64), 0.0, 0, g.nodes, wname,
                                     algorithm=label, device=handle.label,
                                     timings=dict(sched.wall), counters={"weights": wname},
                                     verified=bool(verify))
        res.timings["total"] = time.perf_counter() - t_start
        return res
    runner = _driver(cls, handle, g, **ap, **dg.types)
    mate, pair_e, card, stats = _run_matching(handle, dg, runner, sched, verify)
    if verify == "host":
        with sched.step("verify"):
            verify_weighted_matching(_host_graph(g), mate, precision=wname)
    with sched.step("result"):
        # pair_e holds, for v < mate[v] in increasing v, the input position of (v, mate[v]);
        # the weight is summed from it when first asked for
        res = WeightedMatchingResult(mate, _PairWeight(dg.weights, pair_e), card, g.nodes,
                                     wname, algorithm=label, device=handle.label)
        if dg.huge:       # (weights that may sum past float64: summed now, refused if so)
            res.weight
        handle.trim_pool()
    return _finish(res, sched, verify, t_start, stats, wname)


def _suitor_driver(algorithm, params):
    """``(driver class, label, graph options, driver options, checked params)`` of
    :func:`weighted_matching`'s ``algorithm`` and ``params``."""
    name = args.choice("algorithm", algorithm, ALGORITHMS)
    cls = LocallyDominantMatcher if name == "ld" else SuitorMatcher
    gp, ap, params = _split_params(params, cls.params,
                                   f"weighted_matching(algorithm={name!r})")
    if name.startswith("suitor-"):
        if "variant" in ap and ap["variant"] != name[7:]:
            raise InputError(f"algorithm {name!r} contradicts variant={ap['variant']!r}",
                             argument="variant")
        ap["variant"] = name[7:]
    label = name if name == "ld" else f"suitor-{ap.get('variant', 'nosync')}"
    return cls, label, gp, ap, params


def _driver(cls, *args, **kwargs):
    """``cls(*args, **kwargs)``, its ``ValueError`` (a bad option) as :class:`InputError`."""
    try:
        return cls(*args, **kwargs)
    except InputError:
        raise
    except ValueError as exc:
        raise InputError(str(exc)) from None


def _on_device(handle, src, upload, sched, params, precision, extra, reverse=False):
    """``(device graph or None, graph, weight type name)``: the graph on the device
    (:func:`_device_graph`, with the driver's ``extra()`` buffers) when ``upload``, else the
    input as it is with the weight type it would have there."""
    if not upload:
        return None, src, WEIGHT_NAMES[_weight_type(handle, src, precision)[0]]
    keep = bool(params.get("keep_on_device", False))
    dg, _ = _device_graph(handle, src, extra(), keep, sched, reverse=reverse,
                          precision=precision)
    return dg, dg.g, WEIGHT_NAMES[dg.wdt]


def _run_matching(handle, dg, runner, sched, verify):
    """Build, set up and run a matching driver, check its answer on the device (unless
    ``verify`` says otherwise) and download it: ``(mate, pair input positions, pairs,
    stats)``."""
    with sched.step("build"):
        runner.build()
    _setup(dg, runner, sched)
    with sched.step("match"):
        (mate_d, pair_d, card), stats = runner.run(dg, sched)
        dg.input_positions(pair_d)
        handle.queue.finish()
    if verify is True or verify == "device":
        with sched.step("verify"):
            DeviceCertificate(handle, dg).matching(mate_d, card, sched)
    with sched.step("download"):
        mate = handle.download(mate_d)             # int64 on the device: no conversion
        pair_e = handle.download(pair_d)
        del mate_d, pair_d                        # back to the pool
    return mate, pair_e, card, stats


def _finish(res, sched, verify, t_start, stats, wname):
    """``res`` with ``verified``, the call's timings and counters."""
    res.verified = bool(verify)
    res.timings = _timings(sched, t_start)
    res.counters = dict(stats, weights=wname, **sched.call_counters())
    return res


@device_call
def b_matching(G: GraphInput, b: int | ArrayLike, *, algorithm: str = "b-suitor",
               device: DeviceSpec = None, verify: bool | str = True,
               progress: Progress = None, precision: str = "auto",
               **params: Any) -> BMatchingResult:
    """Half-approximate maximum-weight b-matching by b-Suitor (Paper II) on an OpenCL device.

    ``b`` is an int or a per-vertex integer array of length n (0 allowed; bools and fractions
    refused); a b(v) above v's degree acts as the degree, so memory follows the edges, not
    ``b`` (the result's ``b`` holds the values given). Every vertex v keeps up to b(v)
    best suitors; the result is exactly the sequential greedy b-matching (edges by decreasing
    weight, ties by vertex ids, an edge taken while both ends have room).

    Returns a :class:`BMatchingResult` with ``edges`` (k x 2 int64, u < v, each pair once, in
    lexicographic order), ``degree`` per vertex (int64), ``weight`` (summed when first read),
    timings (the steps of :func:`weighted_matching`; the reverse edges come from the device
    intake's symmetry check, or ``setup`` computes them for a prepared graph; ``match``
    includes gathering the pairs on the device, ``kernel:pairs``) and counters. ``verify``:
    as in :func:`weighted_matching` (the device check is the b-Suitor certificate: at most
    b(v) matched edges at v and no edge outside the b-matching that both ends would take).
    ``precision``: as in :func:`weighted_matching` (the result's ``precision`` and
    ``counters["weights"]`` say which was used).
    ``params``: the graph options of :func:`weighted_matching`, ``work_group_size``,
    ``batch_rounds``.

    Examples
    --------
    The graph of :func:`weighted_matching`'s example, as edge arrays ``(u, v, weight)``:

    >>> import numpy as np, pyclmatch
    >>> u, v, w = np.array([0, 0, 1, 2]), np.array([1, 2, 2, 3]), np.array([3.0, 1, 2, 4])
    >>> res = pyclmatch.b_matching((u, v, w), 2)
    >>> res.edges.tolist(), res.degree.tolist(), res.weight
    ([[0, 1], [1, 2], [2, 3]], [1, 2, 2, 1], 9.0)
    """
    t_start = time.perf_counter()
    args.choice("algorithm", algorithm, ("b-suitor", "bsuitor"))
    verify = args.verify("verify", verify)
    progress = args.progress("progress", progress)
    gp, ap, params = _split_params(params, BSuitorMatcher.params, "b_matching")
    precision = _checked_precision(precision)
    handle = get_device(device)
    ap = _device_bound(handle, ap)
    src = weighted_input(G, precision=precision, fp64=device_fp64(handle),
                         fits=_fitter(handle, "b_matching", b), **gp)
    b_user = b_values(b, src.n)
    bb = as_b(b_user, src.n, degree_bound(src))      # (b capped at the degree)
    sched = Scheduler(handle, progress=progress, label="b_matching[b-suitor]")
    sched.wall["prepare"] = time.perf_counter() - t_start
    dg, g, wname = _on_device(handle, src, bool(src.nnz and bb.any()), sched, params,
                              precision, lambda: BSuitorMatcher.device_bytes(src, bb), True)
    if g.nnz == 0 or not bb.any():
        if g.nnz == 0 and isinstance(g, SparseInput):
            check_no_entries(g.indptr)
        t = dict(sched.wall)
        t["total"] = time.perf_counter() - t_start
        return BMatchingResult(np.zeros((0, 2), np.int64), np.zeros(g.n, np.int64), 0.0, b_user,
                               wname, algorithm="b-suitor", device=handle.label, timings=t,
                               counters={"weights": wname}, verified=bool(verify))
    runner = _driver(BSuitorMatcher, handle, g, bb, **ap, **dg.types)
    edges, pos, degree, stats = _run_b_suitor(handle, dg, runner, bb, sched, verify)
    if verify == "host":
        with sched.step("verify"):
            verify_b_matching(_host_graph(g), bb, edges, precision=wname)
    with sched.step("result"):
        # pos: input positions of the pairs (u, v); the weight is summed when first asked for
        res = BMatchingResult(edges, degree, _PairWeight(dg.weights, pos), b_user, wname,
                              algorithm="b-suitor", device=handle.label)
        if dg.huge:
            res.weight
        handle.trim_pool()
    return _finish(res, sched, verify, t_start, stats, wname)


def _run_b_suitor(handle, dg, runner, bb, sched, verify):
    """Build, set up and run b-Suitor, gather the matched pairs on the device, check them
    there (unless ``verify`` says otherwise) and download them: ``(edges, pair input
    positions, degree, stats)``."""
    with sched.step("build"):
        runner.build()
    _setup(dg, runner, sched, reverse=True)
    with sched.step("match"):
        stats = runner.run(dg, sched)
        # the matched pairs, gathered on the device (one read-back of their count)
        edges_d, pair_d, degree_d, k, bad = runner.pairs(dg, sched)
        if k:
            dg.input_positions(pair_d[:k])
        handle.queue.finish()
    if bad and verify:
        raise VerificationError("b-Suitor ended with a non-mutual suitor pair")
    if verify is True or verify == "device":
        with sched.step("verify"):
            DeviceCertificate(handle, dg).b_matching(edges_d, k, degree_d, bb, sched)
    with sched.step("download"):
        # pairs (u, v), u < v, in lexicographic order; non-mutual entries (none at the
        # fixpoint) are left out, as their intersection
        edges = handle.download(edges_d[:k]) if k else np.zeros((0, 2), np.int64)
        pos = handle.download(pair_d[:k]) if k else np.zeros(0, np.int64)
        degree = handle.download(degree_d)
        del edges_d, pair_d, degree_d             # back to the pool
    return edges, pos, degree, stats
