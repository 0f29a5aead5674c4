"""Public API of Louvain community detection on an OpenCL device.

What runs where (Paper III = shared/papers/004, "Community Detection on the GPU"):

* host: the input's type and shape (O(1): no pass over the entries for a CSR matrix whose
  weights are float32/float64/int8/uint8/int32/int64), the choice of the weight scales from
  the device's weight total, repairs the device asks for (unsorted or duplicate entries,
  explicit zeros: rare, O(nnz)), the final modularity check with ``verify="host"``;
* device, level 0: the input check (indices in range, rows strictly increasing, weights
  finite and non-negative, every entry's twin: symmetry), the weight total 2m, the weights
  converted (float32, or 31-bit fixed point for ``deterministic=True``; self-loops doubled);
* device, per level: k_i (Alg. 1 line 2), the degree
  partition (radix sort by degree, seven buckets), iterations of computeMove per bucket
  (Alg. 2: double-hashed tables in local or global memory, CAS claims, atomic weight adds,
  argmax of Eq. 2 with ties to the lowest id, the singleton rule), community updates and a_c
  after each bucket (Alg. 1 lines 8-11), the modularity of Eq. 1 per iteration (reductions),
  then aggregation (Alg. 3: sizes/degrees by atomics, prefix sums for new ids, edge and vertex
  positions, vertices ordered by community, mergeCommunity in three buckets, compaction).
* device, at the end (``verify=True``): the answer checked by kernels independent of the
  algorithm's (:mod:`.verify`): labels 0..k-1, Eq. (1) from the level-0 input buffers.

pyclmatch additions, all documented at :func:`louvain`: small levels optimized in one
work-group (one launch per level, ``one_group_edges``); the up/down move rule and a stop rule
relative to each phase's progress (the defaults; ``threshold="paper", moves="paper"`` is the
paper's method); an iteration that loses modularity is undone; hashed sub-rounds (2 per
bucket on large levels, 4 at or below ``bin_limit`` vertices); a_c in fixed point; giant
communities (more than 32767 edges) merged by all work-groups together instead of one each.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import math
import time

import numpy as np
import scipy.sparse as sp

from typing import Any

from numpy.typing import ArrayLike

from .._typing import DeviceSpec, GraphInput, Progress
from ..engine import limits
from ..engine.devices import get_device, device_call
from ..engine.intake import check_compressed_host, check_no_entries, checked_csr
from ..engine.scheduler import Scheduler
from ..errors import InputError, VerificationError
from ..hostpar import permute_csr, pmap
from ..interop import foreign_graph, membership_sets
from .driver import (BAD_INF, BAD_NAN, BAD_NEG, BAD_RANGE, DeviceLouvain, InputProblem,
                     raw_weights)
from .hashing import PAPER_MOVE_BUCKETS

#: thresholds of Paper III Section 5: t_bin while the graph has more than BIN_LIMIT vertices,
#: t_final below (``threshold="paper"``)
T_BIN, T_FINAL, BIN_LIMIT = 1e-2, 1e-6, 100_000
#: the default stop rule (``threshold=None``): a phase ends after two iterations in a row that
#: each gain less than max(REL_BIN (REL_FINAL at or below BIN_LIMIT vertices) x the phase's
#: first gain, REL_FLOOR x |Q|); the method ends at a level gaining less than REL_FLOOR x |Q|
REL_BIN, REL_FINAL, REL_FLOOR = 2e-2, 1e-2, 1e-4
FIXED_POINT_TOTAL = 2 ** 31 - 1


@dataclass
class LouvainResult:
    """Result of :func:`louvain`.

    ``membership[v]`` is the community of vertex ``v`` (of ``nodes[v]`` for a networkx input),
    numbered ``0..n_communities-1``; ``modularity`` is Eq. (1) recomputed from the input graph
    by the verification (on the device by default, on the host with ``verify="host"``, the
    device's own value with ``verify=False``); ``device_modularity`` is the algorithm's value,
    checked against it;
    ``levels[l]`` is the membership after level ``l`` (when ``return_levels=True``).
    """
    membership: np.ndarray
    modularity: float
    device_modularity: float
    n_communities: int
    levels: list
    resolution: float
    deterministic: bool
    device: str
    nodes: list = None
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)

    @property
    def communities(self):
        """The communities as a list of sets (of node labels for a graph input with labels:
        networkx, named igraph vertices, a DataFrame's ids), community ``c`` at position
        ``c``, as networkx's ``louvain_communities`` returns them."""
        return membership_sets(self.membership, self.n_communities, self.nodes)

    def vertex_clustering(self, graph):
        """The communities as an ``igraph.VertexClustering`` of ``graph`` (the
        ``igraph.Graph`` they were computed on), carrying the verified modularity."""
        from ..interop import vertex_clustering
        return vertex_clustering(self, graph)

    @property
    def first_phase_rate(self):
        """Edges per second of the first modularity optimization phase: undirected input
        edges times its iterations over its wall time (the paper's TEPS)."""
        t = self.timings.get("optimize:level0", 0.0)
        e = self.counters.get("input_edges", 0) * self.counters.get("level0_iterations", 0)
        return e / t if t > 0 else float("nan")


def _as_symmetric_csr(G, check_symmetric=True, check_values=True, fits=None, weight="weight"):
    """Validate ``G`` and return ``(csr, nodes or None, symmetry_checked)``. The data keeps its
    dtype (bool becomes int8). With ``check_symmetric=False`` the (costly, O(nnz) transpose)
    symmetry test is left to the device, which checks every entry's twin before running
    (networkx graphs need none). With ``check_values=False`` the O(nnz) passes are left to the
    device as well (:func:`louvain`): the weights are not checked (NaN, infinite, negative),
    explicit zeros stay and a matrix not known to be canonical (sorted indices, no duplicates:
    scipy's cached flag) is passed as it is; the device checks all of it and the caller
    repairs or rejects the matrix (:func:`_repair`). Otherwise the result is canonical, with
    no explicit zeros and valid weights. ``fits(n, nnz, host)``, when given, is called with
    the declared sizes before any conversion proportional to them
    (:func:`pyclmatch.engine.limits.check`)."""
    fits = fits or (lambda *args: None)
    nodes = None
    symmetric = False
    fg = foreign_graph(G, weight, fits=fits)
    if fg is not None:     # networkx, igraph, pandas edge list, networkx-backend graph
        if fg.directed:
            raise InputError(f"louvain needs an undirected graph; got a directed "
                             f"{type(G).__name__} (make it undirected first if the direction "
                             f"does not matter)")
        A, nodes, symmetric = fg.csr, fg.nodes, True
    elif sp.issparse(G):
        A = G
    else:
        try:
            arr = np.asarray(G)
        except Exception as exc:
            raise InputError(f"cannot read {type(G).__name__} as a graph: {exc}") from None
        if arr.dtype.kind not in "biufc" or arr.ndim != 2:
            raise InputError("louvain needs a symmetric scipy.sparse matrix, a 2-D numeric "
                             f"array or a networkx graph, not {type(G).__name__} of dtype "
                             f"{arr.dtype} and shape {arr.shape}")
        fits(arr.shape[0], int(np.count_nonzero(arr)), {})
        A = sp.csr_matrix(arr)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise InputError(f"the adjacency matrix must be square, got shape {A.shape}")
    if A.dtype.kind == "c":
        raise InputError("complex edge weights are not supported")
    if A.dtype.kind not in "biuf":
        raise InputError(f"edge weights must be numbers, got dtype {A.dtype}")
    if A.shape[0] > np.iinfo(np.int32).max or A.nnz > np.iinfo(np.int32).max:
        raise InputError("graphs with more than 2**31-1 vertices or stored entries are not "
                         "supported")
    fits(int(A.shape[0]), int(A.nnz), {} if A.format == "csr" else
         {"CSR conversion": (A.shape[0] + 1) * 8 + A.nnz * (8 + A.dtype.itemsize)})
    if A.format == "csc":
        # a symmetric matrix's CSC arrays are its CSR (an asymmetric one is refused either
        # way); scipy's conversion would trust the unchecked indices
        A = sp.csr_matrix((A.data, A.indices, A.indptr), shape=A.shape)
    elif A.format != "csr":
        A = checked_csr(A)
    A = sp.csr_matrix(A) if not isinstance(A, sp.csr_matrix) else A
    end = int(A.indptr[-1]) if A.indptr.size else 0
    if 0 <= end < A.indices.size:             # storage past indptr[-1]: not entries (scipy)
        A = sp.csr_matrix((A.data[:end], A.indices[:end], A.indptr), shape=A.shape)
    if A.indptr.size != A.shape[0] + 1 or A.indptr[0] != 0 or \
            A.indptr[-1] != A.indices.size or A.indices.size != A.data.size:
        raise InputError(f"the sparse matrix's arrays disagree: indptr of length "
                         f"{A.indptr.size} from {A.indptr[0] if A.indptr.size else None} to "
                         f"{A.indptr[-1] if A.indptr.size else None}, {A.indices.size} "
                         f"indices, {A.data.size} values for {A.shape[0]} rows")
    if A.dtype.kind == "b":
        A = sp.csr_matrix(A, dtype=np.int8)
    if A.shape[0] > np.iinfo(np.int32).max or A.nnz > np.iinfo(np.int32).max:
        raise InputError("graphs with more than 2**31-1 vertices or stored entries are not "
                         "supported")
    if check_values or _known_canonical(A) is False:
        check_compressed_host(A.indptr, A.indices, A.shape[1])   # (before scipy's routines)
    if check_values:
        A = _canonical(A)
        _check_values_host(A)
        if A.nnz and not A.data.all():
            A = A.copy()
            A.eliminate_zeros()
    elif _known_canonical(A) is False:
        A = _canonical(A)
    if check_symmetric and not symmetric:
        _check_symmetric_host(A)
        symmetric = True
    return A, nodes, symmetric


def _known_canonical(A):
    """scipy's cached knowledge: True (canonical), False (not) or None (not checked yet; the
    check is an O(nnz) pass, which :func:`louvain` leaves to the device)."""
    if not getattr(A, "_has_sorted_indices", True):
        return False
    flag = getattr(A, "_has_canonical_format", None)
    return None if flag is None else bool(flag)


def _canonical(A):
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    return A


def _check_values_host(A):
    """The weight checks on the host: NaN, infinite, negative (InputError)."""
    data = A.data
    if data.size and data.dtype.kind == "f" and not np.isfinite(data).all():
        bad = "NaN" if np.isnan(data).any() else "infinite"
        raise InputError(f"the graph has {bad} edge weights")
    if data.size and data.dtype.kind in "if" and data.min() < 0:
        raise InputError(f"the graph has negative edge weights (min {data.min():g}); "
                         "modularity needs non-negative weights")


def _repair(A, bits):
    """The host's answer to the device's input flags (``driver.BAD_*``): raise the documented
    error, or return the repaired matrix (canonical, no explicit zeros)."""
    if bits & BAD_RANGE:
        raise InputError("the matrix has an index out of range (negative or >= n) or a "
                         "decreasing indptr")
    if bits & (BAD_NAN | BAD_INF | BAD_NEG):
        _check_values_host(A)
        raise InputError("the graph has invalid (NaN, infinite or negative) edge weights")
    A = _canonical(A)
    if A.nnz and not A.data.all():
        A = A.copy()
        A.eliminate_zeros()
    return A


def _check_symmetric_host(A):
    T = A.tocsc()     # = A.T in CSR layout, rows sorted within each column
    if np.array_equal(A.indptr, T.indptr) and np.array_equal(A.indices, T.indices):
        diff = np.abs(A.data.astype(np.float64) - T.data.astype(np.float64))
        if not diff.size or diff.max() <= 1e-12 * max(1.0, float(np.abs(A.data).max())):
            return
    raise InputError("the adjacency matrix is not symmetric: louvain needs an undirected "
                     "graph (symmetrize it, e.g. A + A.T, or pass a networkx Graph)")


def modularity(A: GraphInput, membership: ArrayLike, resolution: float = 1.0,
               weight: str | None = "weight") -> float:
    """Eq. (1) of the input graph for ``membership`` on the host, in float64, with networkx's
    conventions (a diagonal entry is a self-loop of that weight, counted twice in degrees).
    ``A`` is any input :func:`louvain` takes; ``weight`` names the edge attribute (graphs)
    or column (DataFrame) holding the weights."""
    A = _as_symmetric_csr(A, weight=weight)[0]
    memb = np.asarray(membership, np.int64)
    return _modularity_csr(A, memb, resolution)


def _modularity_csr(A, memb, resolution):
    """Eq. (1) from a canonical symmetric CSR matrix, O(nnz) with one random gather (the
    community of every column); a diagonal entry is a self-loop, inside its community and
    counted twice in 2m and in its vertex's degree."""
    n = A.shape[0]
    if memb.shape != (n,):
        raise InputError(f"membership has shape {memb.shape}, expected ({n},)")
    nnz = A.indptr[-1]
    w = np.zeros(nnz + 1)                        # (+1: reduceat's index of trailing empty rows)
    w[:nnz] = A.data[:nnz]
    diag = A.diagonal().astype(np.float64)
    deg = np.diff(A.indptr)
    k = np.add.reduceat(w, A.indptr[:-1]) if n else np.zeros(0)
    k[deg == 0] = 0.0                            # (reduceat gives the next entry there)
    k += diag
    w = w[:nnz]
    m2 = k.sum()
    if m2 == 0:
        return 0.0
    # (int32 ids gather faster; labels beyond int32 stay as they are, never wrapped)
    cm = memb.astype(np.int32) if n and 0 <= memb.min() and memb.max() < 2 ** 31 else memb
    same = np.repeat(cm, deg) == cm[A.indices[:nnz]]
    inside = w[same].sum() + diag.sum()
    a = np.bincount(cm, weights=k) / m2          # (normalized first: no overflow of a_c^2)
    return float(inside / m2 - resolution * np.dot(a, a))


def _scales(deterministic, A):
    """The weight scales of :meth:`DeviceLouvain.run`: ``(scale, ac_scale, exact, wtype)``
    from the weight total 2m (self-loops doubled) and whether every weight is an integer.
    Integer weights whose doubled total fits in 31 bits (unweighted graphs below ~1e9 edges)
    are kept as integers in both modes: the sums are then exact with native integer atomics,
    which is also faster than the float CAS loops (H100, benchmarks/results/louvain-h100:
    uniform-4M-d4 0.37 -> 0.28 s, kron-17 0.31 -> 0.11 s)."""
    n, nnz = A.shape[0], A.nnz

    def decide(m2, integral):
        if m2 <= 0:       # (zero weights are repaired before, so only underflow)
            raise InputError("the total edge weight is 0")
        if integral and m2 <= FIXED_POINT_TOTAL:
            return 1.0, 1.0, True, "int"
        if deterministic:
            # 31-bit fixed point, rounded to nearest multiple of 2**-k (one unit of headroom
            # per entry keeps the rounded total below 2**31)
            return (2.0 ** math.floor(math.log2((FIXED_POINT_TOTAL - nnz) / m2)), 1.0, False,
                    "int")
        scale = 1.0
        if m2 > 2.0 ** 100 or m2 < 2.0 ** -100:   # keep float32 sums in range
            scale = 2.0 ** (-math.floor(math.log2(m2)))
        # a_c is accumulated in 31-bit fixed point (native integer atomics, exact): the
        # largest power-of-two scale keeping the sum of the rounded k_i below 2**31
        ac_scale = 2.0 ** math.floor(math.log2((FIXED_POINT_TOTAL - n) / (m2 * scale * 1.0001)))
        return scale, ac_scale, True, "float"
    return decide


def _stop_rule(threshold):
    """``threshold`` of :func:`louvain` as the driver's ``stop`` rule."""
    if threshold is None:
        return ("relative", REL_BIN, REL_FINAL, REL_FLOOR)
    if isinstance(threshold, str):
        if threshold != "paper":
            raise InputError(f"threshold must be None, 'paper', a number, a (t_bin, t_final) "
                             f"pair or ('relative', f_bin, f_final), not {threshold!r}")
        return ("absolute", T_BIN, T_FINAL)
    kind = "absolute"
    if isinstance(threshold, (tuple, list)) and len(threshold) == 3 and \
            threshold[0] == "relative":
        kind, threshold = "relative", threshold[1:]
    if isinstance(threshold, (tuple, list)):
        if len(threshold) != 2:
            raise InputError("threshold must be a number, a (t_bin, t_final) pair or "
                             "('relative', f_bin, f_final)")
        t = (float(threshold[0]), float(threshold[1]))
    else:
        t = (float(threshold), float(threshold))
    if not all(math.isfinite(x) and x >= 0 for x in t):
        raise InputError(f"threshold must be finite and >= 0, got {threshold!r}")
    return (kind,) + t + ((REL_FLOOR,) if kind == "relative" else ())


@device_call
def louvain(G: GraphInput, *, weight: str | None = "weight", resolution: float = 1.0,
            threshold: Any = None, max_level: int | None = None, seed: int | None = None,
            deterministic: bool = False, device: DeviceSpec = None,
            return_levels: bool = False, verify: bool | str = True, progress: Progress = None,
            work_group_size: int | None = None, move_buckets: Any = None,
            merge_buckets: Any = None, bin_limit: int = BIN_LIMIT,
            subrounds: int | None = None, moves: str = "up-down",
            one_group_edges: int | None = None) -> LouvainResult:
    """Louvain community detection on an OpenCL device (Paper III, "Community Detection on
    the GPU", Naim et al.): modularity optimization with per-degree-bucket kernels
    (Algorithms 1-2) and aggregation (Algorithm 3), all on the device.

    Parameters
    ----------
    G : symmetric scipy.sparse matrix/array, 2-D array, networkx or igraph graph, pandas edge list
        Edge weights are the matrix values, or the edge attribute / column ``weight`` of a
        graph or DataFrame (1 where missing; a multigraph's parallel edges summed); a
        diagonal entry is a self-loop of that weight, as in networkx. A DataFrame has the
        columns ``source`` and ``target`` (each row one undirected edge; node labels are
        the sorted distinct ids). Directed (non-symmetric) input, negative, NaN or
        infinite weights raise :class:`~pyclmatch.errors.InputError`.
    weight : str or None
        The edge attribute or DataFrame column holding the weights (``None``: 1 per edge).
    resolution : float
        The resolution parameter gamma of modularity (networkx's ``resolution``).
    threshold : None, "paper", float, (t_bin, t_final) or ("relative", f_bin, f_final)
        When a modularity optimization phase stops, and when the method does.

        ``None`` (default): relative to the phase's own progress. A phase stops after two
        iterations in a row (one up, one down: see ``moves``) that each gain less than
        ``max(f x the gain of the phase's first iteration, 1e-4 x |Q|)``, with ``f = 2e-2``
        while the graph has more than ``bin_limit`` vertices and ``1e-2`` below; the method
        stops when a whole level gains less than ``1e-4 x |Q|`` (or nothing merges).
        ``("relative", f_bin, f_final)`` sets the two fractions.

        ``"paper"``, a number or a pair: the paper's absolute rule: a phase stops when an
        iteration gains less than ``t`` and the method when a level does, ``t = t_bin`` while
        the graph has more than ``bin_limit`` vertices, ``t_final`` below; ``"paper"`` is
        ``(1e-2, 1e-6)`` (Section 5), a number sets both.

        Why the default changed: an absolute gain of 1e-2 is a large step when the total
        modularity is 0.07 (R-MAT) or when parallel moves make slow, steady progress
        (uniform random graphs): with ``"paper"`` the first phases end after 2-3 iterations
        and the method stops while the graph is still large. What it costs: more iterations
        on large graphs. Measured on this package's CPU device with ``bin_limit`` scaled to
        the graph size (work = iterations x edges of each level over the input's edges; Q
        relative to igraph's ``community_multilevel``): uniform random (degree 8 per row)
        Q 0.89 -> 1.02 of igraph's for 7x the work; R-MAT (kron 17-19) 0.52-0.87 -> 0.98-1.00
        for 3-7x; Delaunay and grids 0.999 -> 1.000 for 1.5-1.7x; ``threshold=(1e-4, 1e-6)``
        with the paper's moves reaches 0.96-0.98 (uniform) for 7-11x.
        On the H100 (reference suite uniform-4M-d4 / kron-21 / delaunay-21 / grid-2048):
        the defaults give Q 0.2789/0.0713/0.9818/0.9924 in 0.22/0.54/0.13/0.15 s
        (benchmarks/results/louvain-h100.md); NetworKit PLM on the host's 16 cores, measured
        side by side, Q 0.2691/0.0720/0.9819/0.9924 in 25/7.6/2.7/5.4 s; igraph 0.0718 on
        kron-21. ``threshold="paper", moves="paper"`` gave Q 0.2475/0.0351/0.9811/0.9923 in
        0.12/0.14/0.19/0.24 s in an earlier run (before the giant-community merge).
    max_level : int, optional
        At most this many levels (optimization + aggregation).
    seed : int, optional
        Relabel the vertices by a random permutation drawn from ``seed`` before running (ties
        and the singleton rule favour low ids, so the seed picks among equally good moves).
        ``None`` keeps the input order.
    deterministic : bool
        Same answer on every run and every device (same input, resolution, threshold and
        seed). The hash-table weights e_{i->c} are then accumulated as 31-bit fixed-point
        integers with native integer atomics, so every sum is exact and independent of the
        order in which work-items add them; moves are scored in double precision with
        FP_CONTRACT OFF (correctly rounded on every conforming device), ties go to the lowest
        community id, and the degree-bucket bounds are the paper's on every device (only the
        work-items per vertex may differ, which cannot change the answer). What it costs:
        each weight is rounded to the nearest multiple of 2**-k, 2**k the largest power of
        two keeping the doubled total weight below 2**31 (nothing for integer weights whose
        doubled total is below 2**31, e.g. unweighted graphs below ~1e9 edges; weights
        below half that step count as 0), and ``move_buckets`` bounds cannot be tuned.
        Speed is the same or better (integer atomics are native; the benchmark times both).
        The default (False) follows the paper for non-integer weights: float32 weights and
        float atomic adds by CAS loops, whose order may differ from run to run and flip
        near-tied moves. Integer weights (unweighted graphs) whose doubled total fits in 31
        bits are accumulated as integers in both modes: exact, and faster than the CAS loops
        (H100: uniform-4M-d4 0.37 -> 0.28 s, kron-17 0.31 -> 0.11 s), so the default is
        deterministic on them too. (In both modes a_c is kept in 31-bit fixed point with
        integer atomics: exact, and free of the CAS-loop contention of many vertices joining
        one community.)
    device : see :func:`pyclmatch.get_device`.
    return_levels : bool
        Also return the membership after every level.
    verify : True, "host" or False
        Check the answer independently of the algorithm: the labels must be ``0..k-1`` with
        no empty community, and Eq. (1) recomputed from the input graph (the user's weights,
        before any scaling or fixed point) must equal the algorithm's value within 1e-4
        (1e-9 where the algorithm's sums are exact: ``deterministic=True`` with integer
        weights), plus 1e-6 relative; otherwise :class:`~pyclmatch.errors.VerificationError`.
        ``modularity`` is then the recomputed value. ``True`` (default): on the device, by
        the kernels of ``kernels/louvain_verify.cl.mako`` (they share nothing with the
        algorithm's modularity kernels) from the level-0 buffers the device already holds
        and the device's membership, with int64 sums for integer weights and double sums
        otherwise (:mod:`pyclmatch.community.verify`): a small fraction of the call.
        ``"host"``: the same checks on the host in float64 numpy (O(m), single-threaded:
        most of the call on large graphs). ``False``: no check; ``modularity`` is the
        algorithm's value. Symmetry is checked on the device in every mode (every entry
        looks up its twin before any move).
    progress : callable or bool, optional
        Progress reports for long runs.
    work_group_size, move_buckets, merge_buckets, bin_limit, subrounds
        Tuning. Work-group size (default 128 on GPUs, the paper's thread block; 32 on CPUs);
        bucket tuples ``(lowest degree, highest degree or None, work-items per vertex or
        None = the whole work-group)`` (defaults ``hashing.PAPER_MOVE_BUCKETS`` on GPUs,
        ``hashing.CPU_MOVE_BUCKETS`` (same bounds, fewer work-items) on CPUs, and
        ``PAPER_MERGE_BUCKETS``); the vertex count above which ``t_bin`` applies.
        ``subrounds``: split every bucket into that many hashed sub-rounds (a pyclmatch
        extension in the spirit of the colouring of Lu et al.): ``None`` (default) = 2 while
        a level's graph has more than ``bin_limit`` vertices (1, the paper's fully parallel
        moves, with ``moves="paper"``), and 4 below, where the device is not filled anyway
        and fewer simultaneous moves find better partitions (karate club: 0.4449 instead of
        0.4345); the singleton rule applies only with 1 sub-round. When an iteration loses
        modularity it is undone and retried with twice the sub-rounds (up to 32).
        Why 2 on large graphs (H100, benchmarks/results/louvain-h100-giant.md, measured side
        by side with 1): Q 0.2789 instead of 0.2678 on uniform-4M-d4 (NetworKit PLM 0.2676)
        in the same time, 0.0713 instead of 0.0706 on kron-21 (igraph 0.0718) for 2x the
        time (0.58 s against 0.28 s), the same Q and time on delaunay-21 and grid-2048.
        ``subrounds=1`` is the faster, paper-like choice.
    moves : "up-down" or "paper"
        How the vertices of one bucket move together. ``"up-down"`` (default, as cuGraph's
        Louvain): every vertex computes its best community by Eq. (2) as in Algorithm 2, but
        in odd iterations it moves only to a community of lower id than its own, in even
        iterations only to a higher one, so no two vertices swap communities in the same
        launch (without it half the vertices of a uniform random graph move in every
        iteration for a small net gain). ``"paper"``: any direction, with the singleton rule
        of Section 4 (a vertex alone joins another single vertex only if that one's id is
        lower). Both are deterministic; ``threshold="paper", moves="paper"`` is the paper's
        method.
    one_group_edges : int, optional
        Levels whose graph has at most this many stored entries (and vertices) run their
        whole modularity optimization phase (every iteration, bucket and sub-round, the stop
        rule) in one work-group: one launch and one read-back per level instead of a launch
        per bucket and sub-round and a read-back per iteration, which dominate on small
        graphs. Same moves and arithmetic as the per-bucket path (``deterministic=True``
        gives the same answer on both). ``None``: the device's profile
        (``community.driver.ONE_GROUP_EDGES`` and ``ONE_GROUP_VERTICES``: 2**18 entries and
        vertices on CPUs, 2**17 entries and 2**15 vertices on GPUs, or the tuning cache's
        ``"louvain"`` entry); ``0``: never. ``counters["path"]`` says which ran (``"one-group"``, ``"per-bucket"``
        or ``"per-bucket+one-group"``), ``counters["one_group_levels"]`` on how many levels.

    Returns
    -------
    LouvainResult
        ``membership``, ``modularity`` (verified), ``device_modularity``, ``n_communities``,
        ``levels``, ``communities`` (list of sets), ``timings`` and ``counters``.
        ``timings``, wall seconds: ``prepare`` (host work before the upload: O(1) for a CSR
        matrix), ``upload``, ``partition``, ``aggregate``, ``readback`` (time blocked in
        read-backs, i.e. waiting for the device), ``level<i>`` (each level),
        ``optimize:level0``, ``verify`` (the verification, as the user waits for it),
        ``total`` (the whole call, as the user waits for it); device seconds per kernel phase
        ``kernel:input`` (input checks, conversion, symmetry), ``kernel:init``,
        ``kernel:partition``, ``kernel:move`` (computeMove), ``kernel:update``,
        ``kernel:modularity`` (Eq. 1 after every iteration), ``kernel:aggregate``,
        ``kernel:merge`` (mergeCommunity), ``kernel:verify`` (device verification).
        ``counters``: ``levels``, ``iterations`` (per
        level), ``vertices``/``edges`` (per level), ``launches``, ``readbacks``, ``moved``
        (vertices moved per iteration), ``trace`` (modularity after each iteration),
        ``weights`` (``"int"``: exact fixed-point sums, or ``"float"``: float32 atomics),
        ``giant_communities`` (communities merged by all work-groups together), ``path`` and
        ``one_group_levels`` (see ``one_group_edges``),
        ``input_repaired`` (the host repaired the matrix after the device's check).
    """
    t_start = time.perf_counter()
    mode = _verify_mode(verify)
    handle = get_device(device)

    def fits(n, nnz, host):
        dev, need = limits.louvain_footprint(n, nnz)
        if seed is not None:
            need["seed's permuted copy"] = n * 16 + nnz * 16
        limits.check(handle, "louvain", limits.sizes_text(n, nnz=nnz, entries="stored entries"),
                     dev, dict(need, **host))

    A, nodes, sym_checked = _as_symmetric_csr(G, check_symmetric=False, check_values=False,
                                              fits=fits, weight=weight)
    n = A.shape[0]
    res = float(resolution)
    if not math.isfinite(res) or res < 0:
        raise InputError(f"resolution must be finite and >= 0, got {resolution!r}")
    if max_level is not None and int(max_level) < 1:
        raise InputError(f"max_level must be >= 1, got {max_level!r}")
    if deterministic and move_buckets is not None and \
            [tuple(b[:2]) for b in move_buckets] != [b[:2] for b in PAPER_MOVE_BUCKETS]:
        raise InputError("deterministic=True needs the paper's degree-bucket bounds (they "
                         "decide which vertices move together); only the work-items per "
                         "vertex of move_buckets may be tuned in deterministic mode")
    stop = _stop_rule(threshold)
    if moves not in ("up-down", "paper"):
        raise InputError(f"moves must be 'up-down' or 'paper', not {moves!r}")
    perm = None
    A_in = A
    if seed is not None:
        check_compressed_host(A.indptr, A.indices, n)         # (before scipy's indexing)
        perm = np.random.default_rng(seed).permutation(n)
        A = permute_csr(A, perm, perm, sort=True)      # A[perm][:, perm], rows sorted
    counters = {"input_vertices": int(n)}
    sched = Scheduler(handle, progress=progress, label="louvain")
    dl = None
    for _attempt in range(3):
        if A.nnz == 0:       # no edges (or only zero weights): every vertex alone, Q = 0
            check_no_entries(A.indptr)
            memb = np.arange(n, dtype=np.int64)
            counters["input_edges"] = 0
            return LouvainResult(memb, 0.0, 0.0, n, [memb.copy()] if return_levels else [],
                                 res, bool(deterministic), handle.label, nodes,
                                 {"total": time.perf_counter() - t_start}, counters)
        data = raw_weights(A.data)      # (rare dtypes: converted here)
        t_prepared = time.perf_counter()
        if dl is None:
            # the weight type the device will choose (_scales), guessed from the first
            # weights so that the right specialization is built up front
            head = data[:4096]
            guess = deterministic or data.dtype.kind in "biu" or \
                bool(np.array_equal(head, np.rint(head)))
            dl = DeviceLouvain(handle, "int" if guess else "float",
                               work_group_size=work_group_size, move_buckets=move_buckets,
                               merge_buckets=merge_buckets)
            with sched.step("build"):
                dl.build()
        try:
            memb, q_dev, levels, stats = dl.run(
                A.indptr, A.indices, data, sched, _scales(bool(deterministic), A),
                resolution=res, stop=stop, bin_limit=int(bin_limit), moves=moves,
                max_level=max_level, return_levels=return_levels, subrounds=subrounds,
                check_symmetric=not sym_checked, keep_input=mode == "device",
                one_group_edges=one_group_edges)
            break
        except InputProblem as problem:     # unsorted rows, explicit zeros, bad weights
            A = _repair(A, problem.bits)
            counters["input_repaired"] = counters.get("input_repaired", 0) + 1
    else:     # pragma: no cover (a repaired matrix passes)
        raise InputError("the input could not be prepared for the device")
    counters["input_edges"] = int((A.nnz + stats.pop("input_loops")) // 2)
    if deterministic:
        counters["fixed_point_scale"] = stats.pop("weight_scale")
    else:
        stats.pop("weight_scale")
    if perm is not None:
        inv = np.empty(n, np.int64)
        inv[perm] = np.arange(n)
        memb = memb[inv]
        levels = pmap(lambda lv: lv[inv], levels)      # (one gather per level, all cores)
    m2_in = stats.pop("input_m2")
    kept, dl.kept = dl.kept, None
    q_checked, k = q_dev, None
    if mode is not None:
        exact = deterministic and counters.get("fixed_point_scale") == 1.0
        with sched.step("verify"):
            if mode == "device":
                graph, memb_dev = kept
                q_checked, k = _check_answer(
                    "device", memb, q_dev, res, exact, handle=handle, sched=sched, graph=graph,
                    memb_dev=memb_dev, wg=dl.wg, row_lanes=dl.values["row_lanes"],
                    m2_hint=m2_in)
            else:
                q_checked, k = _check_answer("host", memb, q_dev, res, exact, A=A_in)
    del kept
    if k is None:
        k = int(memb.max()) + 1 if n else 0
    timings = sched.timings()
    timings["prepare"] = t_prepared - t_start      # host validation and weight conversion
    timings["total"] = time.perf_counter() - t_start
    counters.update(stats)
    small = counters.get("one_group_levels", 0)
    counters["path"] = ("one-group" if small == counters["levels"] else
                        "per-bucket" if not small else "per-bucket+one-group")
    counters.update(sched.call_counters())
    return LouvainResult(memb, q_checked, q_dev, k, levels, res, bool(deterministic),
                         handle.label, nodes, timings, counters)


def _verify_mode(verify):
    """``verify`` of :func:`louvain` as ``"device"``, ``"host"`` or None."""
    if isinstance(verify, str):
        if verify != "host":
            raise InputError(f"verify must be True, False or 'host', not {verify!r}")
        return "host"
    return "device" if verify else None


def _check_answer(mode, memb, q_reported, resolution, exact, *, A=None, handle=None,
                  sched=None, graph=None, memb_dev=None, **device_args):
    """Verify a Louvain answer: the membership ``memb`` (host array, one label per vertex of
    the input) must be numbered ``0..k-1`` with no empty community, and Eq. (1) recomputed
    from the input graph must equal the reported modularity ``q_reported`` within the
    tolerance (1e-9 when the device's sums were ``exact``, else 1e-4, plus 1e-6 relative).
    Returns ``(recomputed modularity, k)``; raises :class:`VerificationError` otherwise.

    ``mode="host"``: :func:`_modularity_csr` on the canonical CSR ``A``. ``mode="device"``:
    :func:`.verify.device_modularity` on ``graph`` (:class:`.verify.InputGraph`, the driver's
    level-0 buffers; uploaded from ``A`` when None) and ``memb_dev`` (the device's int32
    membership; uploaded from ``memb`` when None), ``device_args`` passed on. The two modes
    are independent recomputations; tests hand both the same (possibly corrupted) answer."""
    tol = 1e-9 if exact else 1e-4
    memb = np.asarray(memb)
    if mode == "host":
        k = int(memb.max()) + 1 if memb.size else 0
        if memb.size and (memb.min() < 0 or (np.bincount(memb, minlength=k) == 0).any()):
            raise VerificationError("the membership is not numbered 0..k-1")
        q = _modularity_csr(A, memb.astype(np.int64, copy=False), resolution)
    elif mode == "device":
        from .verify import InputGraph, device_modularity
        import pyopencl.array as cla
        handle = handle or get_device(None)
        sched = sched or Scheduler(handle, label="louvain verify")
        if graph is None:
            graph = InputGraph.upload(handle, A)
        if memb.shape != (graph.n,):
            raise VerificationError(f"membership has shape {memb.shape}, expected "
                                    f"({graph.n},)")
        if memb_dev is None:
            if memb.size and not (-2 ** 31 <= memb.min() and memb.max() < 2 ** 31):
                raise VerificationError("the membership has a label outside 0..n-1")
            memb_dev = cla.to_device(handle.queue, memb.astype(np.int32))
        check = device_modularity(handle, sched, graph, memb_dev, resolution, **device_args)
        if check.problems:
            raise VerificationError("; ".join(check.problems))
        q, k = check.modularity, check.n_communities
    else:
        raise ValueError(f"unknown verification mode {mode!r}")
    if abs(q - q_reported) > tol + 1e-6 * abs(q):
        raise VerificationError(
            f"device modularity {q_reported!r} differs from the {mode} recomputation {q!r} "
            f"for the returned partition")
    return q, k
