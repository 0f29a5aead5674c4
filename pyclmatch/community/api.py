"""Public API of Louvain community detection on an OpenCL device.

What runs where (Paper III = shared/papers/004, "Community Detection on the GPU"):

* host: the input's type and shape (O(1): no pass over the entries for a CSR matrix whose
  weights are float32/float64/int8/uint8/int32/int64), the choice of the weight scales from
  the device's weight total, repairs the device asks for (unsorted or duplicate entries,
  explicit zeros: rare, O(nnz)), the final modularity check with ``verify="host"``;
* device, level 0: the input check (indices in range, rows strictly increasing, weights
  finite and non-negative, every entry's twin: symmetry), the weight total 2m, the weights
  converted (float32, or 31-bit fixed point for ``deterministic=True``; self-loops doubled);
* device, per level: k_i (Alg. 1 line 2), the degree partition (radix sort by degree bin
  and octave, seven buckets), iterations of computeMove per bucket
  (Alg. 2: double-hashed tables in local or global memory, CAS claims, atomic weight adds,
  argmax of Eq. 2 with ties to the lowest id, the singleton rule), community updates and a_c
  after each bucket (Alg. 1 lines 8-11), the modularity of Eq. 1 per iteration (reductions),
  then aggregation (Alg. 3: sizes/degrees by atomics, prefix sums for new ids, edge and vertex
  positions, vertices ordered by community, mergeCommunity in three buckets, compaction).
* device, at the end (``verify=True``): the answer checked by kernels independent of the
  algorithm's (:mod:`.modularity`): labels 0..k-1, Eq. (1) from the level-0 input buffers.

pyclmatch additions, all documented at :func:`louvain`: small levels optimized in one
work-group (one launch per level, ``one_group_edges``); the up/down move rule and a stop rule
relative to each phase's progress (the defaults; ``threshold="paper", moves="paper"`` is the
paper's method); an iteration that loses modularity is undone; hashed sub-rounds (2 per
bucket on large levels, 4 at or below ``bin_limit`` vertices); a_c in fixed point; giant
communities (more than 32767 edges) merged by all work-groups together instead of one each.
"""
from __future__ import annotations

from dataclasses import dataclass, field
import functools
import math
import time

import numpy as np
import pyopencl.array as cla

from typing import Any

from numpy.typing import ArrayLike

from .._typing import DeviceSpec, GraphInput, Progress
from ..engine import args, limits
from ..engine.devices import get_device, device_call
from ..engine.graphs import degree_stats
from ..engine.compressed import check_compressed_host, check_no_entries
from ..engine.scheduler import Scheduler
from ..errors import InputError, VerificationError
from ..hostpar import permute_csr, pmap
from ..interop import membership_sets, vertex_clustering
from .dtypes import raw_weights
from .louvain import DeviceLouvain, InputProblem
from .connectivity import device_components, host_components
from .leiden import DeviceLeiden, _renumbered
from .hashing import PAPER_MOVE_BUCKETS
from .intake import as_symmetric_csr, repair
from .verify import (HOST_CHECK_ENTRIES, check_cpm, count_disconnected, cpm_csr,
                     modularity_csr, verify_answer, verify_mode)

#: thresholds of Paper III Section 5: t_bin while the graph has more than BIN_LIMIT vertices,
#: t_final below (``threshold="paper"``)
T_BIN, T_FINAL, BIN_LIMIT = 1e-2, 1e-6, 100_000
#: the default stop rule (``threshold=None``): a phase ends after two iterations in a row that
#: each gain less than max(REL_BIN (REL_FINAL at or below BIN_LIMIT vertices) x the phase's
#: first gain, REL_FLOOR x |Q|); the method ends at a level gaining less than REL_FLOOR x |Q|
REL_BIN, REL_FINAL, REL_FLOOR = 2e-2, 1e-2, 1e-4
FIXED_POINT_TOTAL = 2 ** 31 - 1
#: :func:`leiden` on random-like graphs, whose degree dispersion (variance / mean of the
#: degrees: about 1 for uniform random graphs, about 0.3 for meshes, far above 1 for
#: power-law graphs) lies in (EXPANDER_DISPERSION): this many hashed sub-rounds per bucket
#: at every level when ``subrounds`` is None. Fewer vertices move at once: on an expander,
#: vertices moving together into each other's look-alike neighbourhoods undo each other's
#: gains (2-core PoCL, uniform-256K-d4: modularity 0.329 with louvain's sub-rounds, 0.3347
#: with 16 above ``bin_limit`` and 8 below, 0.3384 with 16 at every level, igraph's Leiden
#: 0.3392)
EXPANDER_DISPERSION = (0.5, 2.0)
EXPANDER_SUBROUNDS = 16


#: the largest resolution taken (the gains' products stay finite below it; far smaller
#: values already make every vertex its own community)
RESOLUTION_MAX = 1e300


@dataclass
class LouvainResult:
    """Result of :func:`louvain`.

    ``membership[v]`` is the community of vertex ``v`` (of ``nodes[v]`` for a graph with node
    labels), numbered ``0..n_communities-1``; ``modularity`` is Eq. (1) recomputed from the
    input graph by the verification (on the device by default, on the host with
    ``verify="host"``, the device's own value with ``verify=False``); ``device_modularity``
    is the algorithm's value, checked against it; ``levels[l]`` is the membership after level
    ``l`` (when ``return_levels=True``).

    Examples
    --------
    >>> import networkx as nx
    >>> import pyclmatch
    >>> G = nx.relabel_nodes(nx.barbell_graph(3, 0), dict(enumerate("abcdef")))
    >>> res = pyclmatch.louvain(G, deterministic=True, return_levels=True)
    >>> res.nodes
    ['a', 'b', 'c', 'd', 'e', 'f']
    >>> res.membership, res.n_communities
    (array([0, 0, 0, 1, 1, 1]), 2)
    >>> [sorted(c) for c in res.communities]
    [['a', 'b', 'c'], ['d', 'e', 'f']]
    >>> len(res.levels), res.counters["input_edges"]
    (2, 7)
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
    #: (device handle, the graph as run, its permutation) for :attr:`disconnected`
    _source: Any = field(default=None, repr=False, compare=False)
    _disconnected: Any = field(default=None, repr=False, compare=False)

    @property
    def disconnected(self):
        """How many communities induce a disconnected subgraph (Louvain can return such
        communities; :func:`leiden` cannot). Counted on the device by the connectivity
        certificate (:mod:`pyclmatch.community.connectivity`) at the first access, so that
        :func:`louvain` itself pays nothing for it (the result keeps a reference to the
        graph it was computed on for it; None for an unpickled result whose count was not
        taken before).

        Examples
        --------
        >>> import networkx as nx
        >>> import pyclmatch
        >>> pyclmatch.louvain(nx.barbell_graph(5, 0), deterministic=True).disconnected
        0
        """
        if self._disconnected is None and self._source is not None:
            self._disconnected = count_disconnected(self)
        return self._disconnected

    def __getstate__(self):
        """Pickled without the device handle and the graph (:attr:`disconnected` of an
        unpickled result is None unless it was counted before)."""
        return dict(self.__dict__, _source=None)

    @property
    def communities(self):
        """The communities as a list of sets (of node labels for a graph input with labels:
        networkx, named igraph vertices, a DataFrame's ids), community ``c`` at position
        ``c``, as networkx's ``louvain_communities`` returns them."""
        return membership_sets(self.membership, self.n_communities, self.nodes)

    def vertex_clustering(self, graph):
        """The communities as an ``igraph.VertexClustering`` of ``graph`` (the
        ``igraph.Graph`` they were computed on), carrying the verified modularity.

        Examples
        --------
        >>> import igraph as ig
        >>> import pyclmatch
        >>> g = ig.Graph.Famous("Zachary")
        >>> vc = pyclmatch.louvain(g, deterministic=True).vertex_clustering(g)
        >>> len(vc), round(vc.modularity, 3)
        (4, 0.415)
        """
        return vertex_clustering(self, graph)

    @property
    def first_phase_rate(self):
        """Edges per second of the first modularity optimization phase: undirected input
        edges times its iterations over its wall time (the paper's TEPS)."""
        t = self.timings.get("optimize:level0", 0.0)
        e = self.counters.get("input_edges", 0) * self.counters.get("level0_iterations", 0)
        return e / t if t > 0 else float("nan")


def modularity(A: GraphInput, membership: ArrayLike, resolution: float = 1.0,
               weight: str | None = "weight") -> float:
    """The modularity of a partition, Eq. (1), computed on the host in float64.

    ``Q = sum_c [e_c / 2m - resolution (a_c / 2m)^2]`` with networkx's conventions: a diagonal
    entry is a self-loop of that weight, counted twice in degrees and inside its community.

    Parameters
    ----------
    A : any input :func:`louvain` takes
        The undirected graph (the same rules: duplicates summed, then checked; an
        overflowing weight total refused).
    membership : array_like of int
        The community of each vertex (of each node, in the graph's node order): ``n``
        non-negative integers (integral floats accepted; fractions, NaN, strings refused).
    resolution : float
        The resolution gamma, in ``[0, 1e300]`` (:data:`RESOLUTION_MAX`).
    weight : str or None
        The edge attribute (graphs) or column (DataFrame) holding the weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import networkx as nx
    >>> import pyclmatch
    >>> G = nx.barbell_graph(5, 0)          # two 5-cliques joined by one edge
    >>> round(pyclmatch.modularity(G, [0] * 5 + [1] * 5), 4)
    0.4524
    >>> pyclmatch.modularity(G, [0] * 10)
    0.0
    """
    resolution = args.number("resolution", resolution, low=0, high=RESOLUTION_MAX)
    if isinstance(membership, (list, tuple)) and membership and \
            all(isinstance(c, (set, frozenset)) for c in membership):
        raise InputError("membership is a list of sets (networkx's communities): give one "
                         "community id per vertex (membership[v] = c for v in the c-th "
                         "set), or call networkx's modularity with backend='pyclmatch'",
                         argument="membership")
    A = as_symmetric_csr(A, weight=weight, name="A")[0]
    memb = args.integer_array("membership", membership, low=0, size=A.shape[0],
                              what="community ids")
    with args.blame("A"):
        return modularity_csr(A, memb, resolution)


def _scales(deterministic, A):
    """The weight scales of :meth:`DeviceLouvain.run`: ``(scale, ac_scale, exact, wtype)``
    from the weight total 2m (self-loops doubled) and whether every weight is an integer.
    Integer weights whose doubled total fits in 31 bits (unweighted graphs below ~1e9 edges)
    are kept as integers in both modes: the sums are then exact with native integer atomics,
    which are also faster than the float CAS loops."""
    n, nnz = A.shape[0], A.nnz

    def decide(m2, integral):
        if m2 <= 0:       # (zero weights are repaired before, so only underflow)
            raise InputError("the total edge weight is 0", argument="G")
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
    allowed = ("None, 'paper', a finite number >= 0, a (t_bin, t_final) pair of them or "
               "('relative', f_bin, f_final)")
    if threshold is None:
        return ("relative", REL_BIN, REL_FINAL, REL_FLOOR)
    if isinstance(threshold, str):
        if threshold.strip().lower() != "paper":
            args.refuse("threshold", threshold, allowed)
        return ("absolute", T_BIN, T_FINAL)
    kind, t = "absolute", threshold
    if isinstance(t, (tuple, list)) and len(t) == 3 and isinstance(t[0], str) and \
            t[0] == "relative":
        kind, t = "relative", t[1:]
    if isinstance(t, (tuple, list)):
        if len(t) != 2:
            args.refuse("threshold", threshold, allowed)
        pair = t
    else:
        pair = (t, t)
    try:
        t = tuple(args.number("threshold", x, low=0) for x in pair)
    except InputError:
        args.refuse("threshold", threshold, allowed)
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
    r"""Communities of an undirected graph by the GPU Louvain method, on an OpenCL device.

    The Louvain method (Paper III, Naim et al., "Community Detection on the GPU") greedily
    maximizes the modularity of a partition C of the vertices (Eq. 1),

        Q = sum_c [ e_c / 2m - gamma (a_c / 2m)^2 ],

    e_c the weight of the edges inside community c counted from both ends, a_c the sum of
    its vertices' degrees k_i, 2m the total degree, gamma the resolution. Each level moves
    vertices to the neighbouring community of largest gain (Eq. 2: e_{i->c} / m - gamma k_i
    a_c / 2m^2, Algorithms 1-2, vertices bucketed by degree, several work-items per vertex)
    until the gain is small, then merges each community into one vertex (Algorithm 3); the
    levels repeat on the merged graph while modularity grows. Everything runs on the device.

    Parameters
    ----------
    G : symmetric scipy.sparse matrix/array, 2-D array, networkx or igraph graph, pandas edge list
        Edge weights are the matrix values, or the edge attribute / column ``weight`` of a
        graph or DataFrame (1 where missing; a multigraph's parallel edges summed); a
        diagonal entry is a self-loop of that weight, as in networkx. A DataFrame has the
        columns ``source`` and ``target`` (each row one undirected edge; node labels are
        the sorted distinct ids). A ``tuple`` ``(u, v)``, ``(u, v, w)`` or ``(u, v, w, n)``
        is edge arrays (each undirected edge once, or in both directions with the same
        weight; repeats in one direction summed). Duplicate entries are summed before the
        weights are checked; explicit zeros are no edge; weights with a tiny total are
        scaled by a power of two (modularity does not change), a total that overflows
        float64 is refused (:doc:`interop`, "Input rules").
    weight : str or None
        The edge attribute or DataFrame column holding the weights (``None``: 1 per edge).
    resolution : float
        The resolution gamma of modularity (networkx's ``resolution``), in ``[0, 1e300]``
        (:data:`RESOLUTION_MAX`).
    threshold : None, "paper", float, (t_bin, t_final) or ("relative", f_bin, f_final)
        When a modularity optimization phase stops, and when the method does. ``None``
        (default): relative to the phase's own progress: a phase stops after two iterations
        in a row (one up, one down: see ``moves``) that each gain less than ``max(f x the
        gain of the phase's first iteration, 1e-4 x |Q|)``, ``f = 2e-2`` while the graph has
        more than ``bin_limit`` vertices and ``1e-2`` below; the method stops when a level
        gains less than ``1e-4 x |Q|`` (or nothing merges); ``("relative", f_bin, f_final)``
        sets the two fractions. An absolute gain is a large step when Q itself is small
        (skewed graphs) or grows slowly, so the relative rule reaches higher modularity.
        ``"paper"``, a number or a pair: the paper's absolute rule, a phase stops when an
        iteration gains less than ``t`` and the method when a level does, ``t = t_bin``
        above ``bin_limit`` vertices and ``t_final`` below; ``"paper"`` is ``(1e-2, 1e-6)``
        (Section 5), a number sets both.
    max_level : int, optional
        At most this many levels (optimization + aggregation).
    seed : int, optional
        Relabel the vertices by a random permutation drawn from ``seed`` before running (ties
        and the singleton rule favour low ids, so the seed picks among equally good moves).
        ``None`` keeps the input order.
    deterministic : bool
        Same answer on every run and every device (same input and arguments): the weights
        e_{i->c} are summed as 31-bit fixed-point integers by integer atomics (exact, in any
        order), moves are scored in double precision with FP_CONTRACT OFF, ties go to the
        lowest community id, and the degree buckets are the paper's on every device. Each
        weight is rounded to a multiple of 2**-k, 2**k the largest power of two keeping the
        doubled total below 2**31 (nothing changes for integer weights with a doubled total
        below 2**31, which are summed as integers in both modes), and ``move_buckets``
        bounds cannot be tuned. The default (False) follows the paper for other weights:
        float32 weights added by CAS loops, whose order may flip near-tied moves.
    device : see :func:`pyclmatch.get_device`.
    return_levels : bool
        Also return the membership after every level.
    verify : True, "device", "host" or False
        Check the answer independently of the algorithm: labels ``0..k-1`` with no empty
        community, and Eq. (1) recomputed from the input graph (the user's weights) equal to
        the algorithm's value within 1e-4 (1e-9 where its sums are exact), plus 1e-6
        relative; ``modularity`` is then the recomputed value. ``"device"``: on the device,
        by kernels that share nothing with the algorithm's (:mod:`.modularity`); ``"host"``:
        in float64 numpy; ``True``: on the device, except for graphs of at most
        :data:`HOST_CHECK_ENTRIES` stored entries on a CPU device, checked on the host (the
        same check, in microseconds, where a first call would otherwise build the check's
        kernels); ``False``: no check. Symmetry is checked on the device in every mode.
    progress : callable or bool, optional
        Progress reports for long runs.
    work_group_size, move_buckets, merge_buckets, bin_limit, subrounds
        Tuning. Work-group size (default 128 on GPUs, the paper's thread block; 32 on CPUs);
        bucket tuples ``(lowest degree, highest degree or None, work-items per vertex or
        None = the whole work-group)`` (defaults ``hashing.PAPER_MOVE_BUCKETS`` on GPUs,
        ``hashing.CPU_MOVE_BUCKETS`` (same bounds, fewer work-items) on CPUs, and
        ``PAPER_MERGE_BUCKETS``); the vertex count above which ``t_bin`` applies.
        ``subrounds``: split every bucket into that many hashed sub-rounds, so that fewer
        vertices move at once: ``None`` (default) = 2 above ``bin_limit`` vertices (1 with
        ``moves="paper"``) and 4 below; the singleton rule applies only with 1 sub-round.
        An iteration that loses modularity is undone and retried with twice the sub-rounds
        (up to 32). ``subrounds=1`` is the paper's fully parallel moves; at most 1024.
    moves : "up-down" or "paper"
        How the vertices of one bucket move together. ``"up-down"`` (default): odd
        iterations move a vertex only to a community of lower id than its own, even ones only
        to a higher one, so no two vertices swap communities in one launch. ``"paper"``: any
        direction, with the singleton rule of Section 4 (a vertex alone joins another single
        vertex only if that one's id is lower). ``threshold="paper", moves="paper"`` is the
        paper's method.
    one_group_edges : int, optional
        Levels whose graph has at most this many stored entries (and vertices) run their
        whole level in one work-group: one launch and one read-back instead of a launch per
        bucket and sub-round and a read-back per iteration. Same moves and arithmetic
        (``deterministic=True`` gives the same answer either way). ``None``: the device's
        profile (``ONE_GROUP_EDGES`` and ``ONE_GROUP_VERTICES`` of
        :mod:`pyclmatch.community.louvain`: 2**18 entries and vertices on CPUs, 2**16
        entries and 2**13 vertices on GPUs, or the tuning cache's ``"louvain"`` entry);
        ``0``: never.

    Returns
    -------
    LouvainResult
        ``membership``, ``modularity`` (verified), ``device_modularity``, ``n_communities``,
        ``levels``, ``communities``, ``timings`` (wall seconds per step, device seconds per
        kernel phase ``kernel:<phase>``, ``total``) and ``counters`` (``levels``,
        ``iterations``, ``vertices`` and ``edges`` per level, ``launches``, ``readbacks``,
        ``moved`` and ``trace`` per iteration, ``weights`` ``"int"`` or ``"float"``,
        ``giant_communities``, ``path`` (``"one-group"``, ``"per-bucket"`` or
        ``"per-bucket+one-group"``), ``one_group_levels``, ``input_repaired``).

    Raises
    ------
    InputError
        A directed or non-square graph, negative, NaN or infinite weights, a bad argument.
    VerificationError
        The answer failed the check of ``verify``.

    Examples
    --------
    Two 5-cliques joined by one edge fall apart into the cliques:

    >>> import networkx as nx
    >>> import pyclmatch
    >>> res = pyclmatch.louvain(nx.barbell_graph(5, 0), deterministic=True)
    >>> res.membership
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    >>> res.communities
    [{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}]
    >>> round(res.modularity, 3)
    0.452

    Zachary's karate club, unweighted, and a sparse matrix input:

    >>> res = pyclmatch.louvain(nx.karate_club_graph(), weight=None, deterministic=True)
    >>> res.n_communities, round(res.modularity, 3)
    (4, 0.415)
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(5, 0), format="csr")
    >>> pyclmatch.louvain(A, deterministic=True).n_communities
    2
    """
    given = locals()
    t_start = time.perf_counter()
    a = _checked_arguments({name: given[name] for name in LOUVAIN_ARGS})
    call, A, sym_checked = _start_call(G, a, device, weight, verify, t_start, "louvain")
    ran = _run(call, A, _driver_args(a),
               dict(_run_args(a, sym_checked), keep_input=call.mode == "device",
                    one_group_edges=a["one_group_edges"]))
    if ran is None:       # no edges (or only zero weights): every vertex alone, Q = 0
        return _no_edges(LouvainResult, call, A, a["return_levels"], _disconnected=0)
    return _answer(call, *ran)


def _start_call(G, a, device, weight, verify, t_start, label):
    """The device, the graph as the driver takes it (permuted by ``seed``) and the
    :class:`_Call` of :func:`louvain` or :func:`leiden` (checked arguments ``a``): returns
    ``(call, A, symmetry_checked)``."""
    handle = get_device(device)
    a["work_group_size"] = args.work_group_size("work_group_size", a["work_group_size"],
                                                handle.max_work_group_size, low=32,
                                                power_of_two=True)
    mode, seed = a["verify"], a["seed"]
    A, nodes, sym_checked = as_symmetric_csr(
        G, check_symmetric=False, check_values=False, weight=weight,
        fits=functools.partial(_fits, handle, seed))
    if mode == "device" and not isinstance(verify, str) and handle.is_cpu and \
            A.nnz <= HOST_CHECK_ENTRIES:           # (True, not "device": the place is ours)
        mode = "host"     # (a small graph on a CPU: numpy's check, no kernel to build)
    A_in, perm = A, None
    if seed is not None:
        check_compressed_host(A.indptr, A.indices, A.shape[0])   # (before scipy's indexing)
        perm = np.random.default_rng(seed).permutation(A.shape[0])
        A = permute_csr(A, perm, perm, sort=True)      # A[perm][:, perm], rows sorted
    call = _Call(handle, mode, a["resolution"], a["deterministic"], nodes, A_in, perm,
                 t_start, {"input_vertices": int(A.shape[0])},
                 Scheduler(handle, progress=a["progress"], label=label))
    return call, A, sym_checked


def random_like(indptr):
    """Whether the degree dispersion (variance / mean) of the graph with index pointer
    ``indptr`` lies in :data:`EXPANDER_DISPERSION` (a uniform random graph's, not a mesh's
    nor a power-law graph's).

    >>> import numpy as np
    >>> random_like(np.cumsum([0, 1, 5, 4, 6, 2])), random_like(np.arange(0, 24, 4))
    (True, False)
    """
    lo, hi = EXPANDER_DISPERSION
    return lo < degree_stats(indptr)[1] <= hi


def _driver_args(a):
    """The driver's tuning arguments from the checked arguments ``a``."""
    return dict(work_group_size=a["work_group_size"], move_buckets=a["move_buckets"],
                merge_buckets=a["merge_buckets"])


def _run_args(a, sym_checked):
    """The arguments of the driver's ``run`` that :func:`louvain` and :func:`leiden` share."""
    return dict(resolution=a["resolution"], stop=a["threshold"], bin_limit=a["bin_limit"],
                moves=a["moves"], max_level=a["max_level"], return_levels=a["return_levels"],
                subrounds=a["subrounds"], check_symmetric=not sym_checked)


def _no_edges(result, call, A, return_levels, **extra):
    """The answer for a graph without edges (or only zero weights): every vertex alone,
    Q = 0, as a ``result`` (:class:`LouvainResult` or a subclass; ``extra`` its fields)."""
    n = A.shape[0]
    memb = np.arange(n, dtype=np.int64)
    call.counters["input_edges"] = 0
    return result(memb, 0.0, 0.0, n, [memb.copy()] if return_levels else [],
                  call.resolution, call.deterministic, call.handle.label, call.nodes,
                  {"total": time.perf_counter() - call.t_start}, call.counters, **extra)


@dataclass
class _Call:
    """One call of :func:`louvain`: its checked arguments, counters and scheduler."""
    handle: Any
    mode: str | None
    resolution: float
    deterministic: bool
    nodes: list | None
    A_in: Any               # the checked input before any permutation (host verification)
    perm: np.ndarray | None
    t_start: float
    counters: dict
    sched: Scheduler
    t_prepared: float = 0.0


def _fits(handle, seed, n, nnz, host):
    """The memory check of a graph of ``n`` vertices and ``nnz`` entries (``fits`` of
    :func:`as_symmetric_csr`), with the permuted copy a ``seed`` makes."""
    dev, need = limits.louvain_footprint(n, nnz)
    if seed is not None:
        need["seed's permuted copy"] = n * 16 + nnz * 16
    limits.check(handle, "louvain", limits.sizes_text(n, nnz=nnz, entries="stored entries"),
                 dev, dict(need, **host))


#: the checkers of :func:`louvain`'s arguments (:mod:`pyclmatch.engine.args`), run before
#: any work; ``work_group_size`` is checked against the device once it is known (a power of
#: two >= 32: the kernels' tree reductions halve the group)
LOUVAIN_ARGS = {
    "resolution": functools.partial(args.number, low=0, high=RESOLUTION_MAX),
    "threshold": lambda name, value: _stop_rule(value),
    "max_level": functools.partial(args.integer, low=1, none=True),
    "seed": args.seed,
    "deterministic": args.boolean, "return_levels": args.boolean,
    "verify": lambda name, value: verify_mode(value),
    "progress": args.progress,
    "work_group_size": functools.partial(args.work_group_size, low=32, power_of_two=True),
    "move_buckets": args.buckets, "merge_buckets": args.buckets,
    "bin_limit": functools.partial(args.integer, low=0),
    "subrounds": functools.partial(args.integer, low=1, high=1024, none=True),
    "moves": functools.partial(args.choice, options=("up-down", "paper")),
    "one_group_edges": args.size,
}


def _checked_arguments(given):
    """The arguments of :func:`louvain` (and the same of :func:`leiden`) but the graph and
    the device, checked (:data:`LOUVAIN_ARGS`): a dict of the values to use (``threshold``
    as the stop rule, ``verify`` as ``"device"``, ``"host"`` or None)."""
    a = {k: LOUVAIN_ARGS[k](k, v) for k, v in given.items()}
    mb = a["move_buckets"]
    if a["deterministic"] and mb is not None and \
            [b[:2] for b in mb] != [b[:2] for b in PAPER_MOVE_BUCKETS]:
        raise InputError("deterministic=True needs the paper's degree-bucket bounds (they "
                         "decide which vertices move together); only the work-items per "
                         "vertex of move_buckets may be tuned in deterministic mode",
                         argument="move_buckets")
    return a


def _run(call, A, driver_args, run_args, driver=DeviceLouvain):
    """``driver(...).run`` (:meth:`DeviceLouvain.run`) on ``A``, after the repairs the device's
    input check asks for (unsorted rows, explicit zeros, bad weights). Returns ``(driver, A as
    run, (membership, q, levels, stats))``, or None when the graph has no edges."""
    dl = None
    for _attempt in range(3):
        if A.nnz == 0:
            check_no_entries(A.indptr)
            return None
        data = raw_weights(A.data)      # (rare dtypes: converted here)
        call.t_prepared = time.perf_counter()
        if dl is None:
            # the weight type the device will choose (_scales), guessed from the first
            # weights so that the right specialization is built up front
            head = data[:4096]
            guess = call.deterministic or data.dtype.kind in "biu" or \
                bool(np.array_equal(head, np.rint(head)))
            dl = driver(call.handle, "int" if guess else "float", **driver_args)
            with call.sched.step("build"):
                dl.build(raw=data.dtype)
        try:
            return dl, A, dl.run(A.indptr, A.indices, data, call.sched,
                                 _scales(call.deterministic, A), **run_args)
        except InputProblem as problem:
            with args.blame("G"):
                A = repair(A, problem.bits)
            call.counters["input_repaired"] = call.counters.get("input_repaired", 0) + 1
    raise InputError("the input could not be prepared for the device")  # pragma: no cover


def _answer(call, dl, A, ran):
    """The run's answer in the input's vertex order, verified (``verify``), as a
    :class:`LouvainResult` with the call's timings and counters."""
    memb, q_dev, levels, stats = ran
    counters = call.counters
    counters["input_edges"] = int((A.nnz + stats.pop("input_loops")) // 2)
    scale = stats.pop("weight_scale")
    if call.deterministic:
        counters["fixed_point_scale"] = scale
    if call.perm is not None:
        inv = np.empty(call.perm.size, np.int64)
        inv[call.perm] = np.arange(call.perm.size)
        memb = memb[inv]
        levels = pmap(lambda lv: lv[inv], levels)      # (one gather per level, all cores)
    m2_in = stats.pop("input_m2")
    kept, dl.kept = dl.kept, None
    q_checked, k = verify_answer(call, dl, kept, memb, q_dev, m2_in)
    if k is None:
        k = int(memb.max()) + 1 if memb.size else 0
    timings = call.sched.timings()
    timings["prepare"] = call.t_prepared - call.t_start   # host validation and conversion
    timings["total"] = time.perf_counter() - call.t_start
    counters.update(stats)
    small = counters.get("one_group_levels", 0)
    counters["path"] = ("one-group" if small == counters["levels"] else
                        "per-bucket" if not small else "per-bucket+one-group")
    counters.update(call.sched.call_counters())
    return LouvainResult(memb, q_checked, q_dev, k, levels, call.resolution,
                         call.deterministic, call.handle.label, call.nodes, timings, counters,
                         _source(call, A))


def _source(call, A):
    """What :attr:`LouvainResult.disconnected` counts on: ``(handle, graph, permutation)``,
    the input as checked (no copy of it; the answer's order) unless the device asked for a
    repair (then the repaired graph as run, and the seed's permutation)."""
    if call.counters.get("input_repaired"):
        return call.handle, A, call.perm
    return call.handle, call.A_in, None


# -- Leiden ---------------------------------------------------------------------------------
@dataclass
class LeidenResult(LouvainResult):
    """Result of :func:`leiden`: the fields of :class:`LouvainResult` (``membership``,
    ``modularity``, ``levels``, ``timings``, ``counters``, ...), ``refined_levels[l]`` the
    refined partition of level ``l`` on the input's vertices (``return_levels=True``),
    ``components`` the connected components of the communities counted by the certificate
    (equal to ``n_communities``; None with ``verify=False``), ``quality``, ``theta``,
    ``iterations`` and ``quality_value`` (the optimized quality: the modularity, or CPM's H
    with ``quality="cpm"``).

    Examples
    --------
    >>> import networkx as nx
    >>> import pyclmatch
    >>> res = pyclmatch.leiden(nx.karate_club_graph(), weight=None, deterministic=True,
    ...                        return_levels=True)
    >>> res.n_communities, res.disconnected, res.components
    (4, 0, 4)
    >>> len(res.refined_levels) == len(res.levels)
    True
    """
    refined_levels: list = field(default_factory=list)
    components: Any = None
    quality: str = "modularity"
    theta: float = 0.0
    iterations: Any = 2
    quality_value: float = 0.0


#: the checkers of the arguments :func:`leiden` adds to :data:`LOUVAIN_ARGS`
LEIDEN_ARGS = {
    "quality": functools.partial(args.choice, options=("modularity", "cpm")),
    "theta": functools.partial(args.number, low=0, high=1e300),
    "iterations": functools.partial(args.integer, low=1, high=1000, none=True),
}


@device_call
def leiden(G: GraphInput, resolution: float = 1.0, *, weight: str | None = "weight",
           quality: str = "modularity", theta: float = 0.0, iterations: int | None = 2,
           threshold: Any = None,
           max_level: int | None = None, seed: int | None = None,
           deterministic: bool = False, device: DeviceSpec = None,
           return_levels: bool = False, verify: bool | str = True,
           progress: Progress = None, work_group_size: int | None = None,
           move_buckets: Any = None, merge_buckets: Any = None, bin_limit: int = BIN_LIMIT,
           subrounds: int | None = None, moves: str = "up-down",
           one_group_edges: int | None = None) -> LeidenResult:
    r"""Communities of an undirected graph by the Leiden algorithm, on an OpenCL device,
    with every community certified connected.

    The Leiden algorithm (Traag, Waltman, van Eck, Sci. Rep. 2019) maximizes modularity
    (Eq. 1 of :func:`louvain`) like the Louvain method, with a refinement phase between
    local moving and aggregation: inside each community P, a refined partition R starts from
    singletons, and a singleton vertex joins a refined sub-community of its own community
    only if it has an edge to it, both are well connected to the community (``E(v, S - v) >=
    gamma k_v (K_S - k_v) / 2m``, the same for the sub-community) and the gain is >= 0; the
    aggregate graph's vertices are the refined communities, starting in P. Levels repeat
    until local moving leaves every vertex of a level alone (every community is then one
    refined community of the level before, hence connected). On the device:
    local moving is :func:`louvain`'s degree-bucketed hashed move phase, the refinement runs
    in parallel rounds (only singletons move, only into sub-communities that do not move in
    the same round, so refined communities stay connected: every singleton with a target
    moves, conflicts settled by hashed priorities of the round), aggregation is Louvain's.

    Parameters
    ----------
    G, weight, resolution, threshold, max_level, deterministic, device, progress
        As for :func:`louvain` (``threshold`` ends each local moving phase; the levels end
        when local moving moves nothing, when the refinement merges nothing or at
        ``max_level``).
    quality : "modularity" or "cpm"
        The quality function: modularity with ``resolution`` (Eq. 1 of :func:`louvain`), or
        the constant Potts model ``H = sum_c [e_c - resolution n_c (n_c - 1) / 2]`` (e_c the
        weight inside community c, each edge once; n_c its size), which has no resolution
        limit (``resolution`` is then a density, e.g. 0.05). With ``"cpm"`` the result's
        ``quality_value`` is H (checked against a float64 recomputation on the host with
        ``verify``) and ``modularity`` is Eq. (1) at resolution 1 of the answer.
    theta : float
        Randomness of the refinement (the paper's theta, igraph's ``beta``): 0 (default)
        joins the sub-community of largest gain (ties to the lowest id); ``theta > 0`` draws
        it with probability proportional to ``exp(gain / theta)``, the gain in the input's
        weight units, from hashes of ``seed`` (reproducible).
    seed : int, optional
        Relabel the vertices by a random permutation drawn from ``seed`` (as :func:`louvain`)
        and seed the refinement's rounds and draws; ``None``: the input order, seed 0.
    return_levels : bool
        Also return the membership after every level (``levels``) and the refined
        partitions (``refined_levels``).
    verify : True, "device", "host" or False
        The modularity check of :func:`louvain` (``"host"``: in numpy), and in every mode
        but False the connectivity certificate, where the modularity is checked (on the
        device, or by scipy in ``"host"`` mode): the connected components of every
        community's induced subgraph (:mod:`pyclmatch.community.connectivity`) must be one
        per community.
    work_group_size, move_buckets, merge_buckets, bin_limit, subrounds, moves, one_group_edges
        Tuning of the local moving phase, as for :func:`louvain` (a level of at most
        ``one_group_edges`` entries runs its local moving, the start of its refinement and
        its aggregation in one work-group each), except that with ``subrounds=None``
        random-like graphs (:func:`random_like`: degree dispersion in (0.5, 2], as uniform
        random graphs) get :data:`EXPANDER_SUBROUNDS` (16) at every level, for the
        modularity that fewer simultaneous moves reach there.

    Returns
    -------
    LeidenResult
        :func:`louvain`'s fields, ``refined_levels``, ``components`` and ``disconnected``
        (0, certified); ``counters`` adds ``communities`` and ``refined_communities`` per
        level, ``refine_rounds`` and ``split_communities`` (communities split into their
        components when the levels stopped early: ``max_level``, or a refinement that
        merged nothing) and ``stopped`` (``"converged"``, ``"no-merge"``, ``"max_level"``).

    Raises
    ------
    InputError
        As :func:`louvain`.
    VerificationError
        A community is not connected, or the modularity check failed.

    Examples
    --------
    >>> import networkx as nx
    >>> import pyclmatch
    >>> res = pyclmatch.leiden(nx.barbell_graph(5, 0), deterministic=True)
    >>> res.membership, round(res.modularity, 3), res.disconnected
    (array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1]), 0.452, 0)

    The constant Potts model at density 0.5 keeps the two 5-cliques (H = 2 (10 - 5) = 10):

    >>> res = pyclmatch.leiden(nx.barbell_graph(5, 0), quality="cpm", resolution=0.5,
    ...                        deterministic=True)
    >>> res.n_communities, res.quality_value
    (2, 10.0)
    """
    given = locals()
    t_start = time.perf_counter()
    a = _checked_arguments({name: given[name] for name in LOUVAIN_ARGS})
    extra = {k: LEIDEN_ARGS[k](k, v) for k, v in (("quality", quality), ("theta", theta),
                                                  ("iterations", iterations))}
    call, A, sym_checked = _start_call(G, a, device, weight, verify, t_start, "leiden")
    driver = functools.partial(DeviceLeiden, theta=extra["theta"], seed=a["seed"] or 0,
                               cpm=extra["quality"] == "cpm")
    run_args = dict(_run_args(a, sym_checked), keep_input=True,
                    one_group_edges=a["one_group_edges"])
    if a["subrounds"] is None and random_like(A.indptr):
        run_args.update(large_subrounds=EXPANDER_SUBROUNDS,
                        small_subrounds=EXPANDER_SUBROUNDS)
    ran = _run(call, A, _driver_args(a), run_args, driver=driver)
    if ran is None:
        return _no_edges(LeidenResult, call, A, a["return_levels"], _disconnected=0,
                         components=A.shape[0], refined_levels=[], quality_value=0.0,
                         **extra)
    ran = _iterate(call, ran, run_args, extra["iterations"])
    return _leiden_answer(call, ran, extra)


def _leiden_answer(call, ran, extra):
    """The last iteration's answer certified (:func:`_split_disconnected`, the modularity
    check of :func:`_answer`, for CPM :func:`check_cpm`), as a :class:`LeidenResult`."""
    dl, A_run, (memb, q_dev, levels, stats) = ran
    cpm = extra["quality"] == "cpm"
    if cpm:       # (the driver's value: scale**2 (e_in - gamma sum n_c**2), see DeviceLeiden)
        h_dev = (q_dev / stats["weight_scale"] ** 2 + call.resolution * A_run.shape[0]) / 2
    refined = dl.refined_levels
    graph, memb_dev = dl.kept
    comps = None
    if call.mode is not None or stats.get("stopped") != "converged":
        comps, memb, memb_dev, q_dev = _split_disconnected(
            call, dl.wg, A_run, graph, memb, memb_dev, q_dev, stats.get("stopped"))
        if cpm and call.counters.get("split_communities"):
            h_dev = cpm_csr(A_run, memb, call.resolution)
    if cpm:
        h = check_cpm(call, A_run, memb, h_dev, stats["weights"] == "int" and
                       stats["weight_scale"] == 1.0)
    dl.kept = (graph, memb_dev)
    gamma = call.resolution
    if cpm:      # (the modularity of a CPM answer: Eq. 1 at resolution 1)
        call.resolution = 1.0
        q_dev = modularity_csr(A_run, memb, 1.0)
    res = _answer(call, dl, A_run, (memb, q_dev, levels, stats))
    res.resolution = call.resolution = gamma
    if call.perm is not None and refined:
        inv = np.argsort(call.perm)
        refined = [lv[inv] for lv in refined]
    return LeidenResult(**{f: getattr(res, f) for f in LouvainResult.__dataclass_fields__
                           if f != "_disconnected"},
                        _disconnected=None if comps is None else comps.disconnected,
                        refined_levels=refined,
                        components=None if comps is None else comps.components,
                        quality_value=h if cpm else res.modularity, **extra)


def _iterate(call, ran, run_args, iterations):
    """Further iterations of the Leiden algorithm (A.1 from level 0), each started from the
    previous answer, while modularity grows by more than 1e-9 (|Q| + 1), at most
    ``iterations`` in all (``None``: until it stops growing). Returns the last ``ran``
    (``(driver, A, (membership, q, levels, stats))``) with ``stats["leiden_iterations"]``
    and ``stats["iteration_modularity"]``."""
    dl, A, out = ran
    qs = [out[1]]
    data = raw_weights(A.data)
    it = 1
    while iterations is None or it < iterations:
        call.sched.tick("leiden iterations", 1000)
        kept, dl.kept, refined = dl.kept, None, dl.refined_levels
        nxt = dl.run(A.indptr, A.indices, data, call.sched, _scales(call.deterministic, A),
                     start=out[0], source=kept[0], **run_args)
        it += 1
        qs.append(nxt[1])
        if nxt[1] <= out[1] + 1e-9 * (abs(out[1]) + 1):
            dl.kept, dl.refined_levels = kept, refined   # (no gain: the previous answer)
            break
        out = nxt
    out[3]["leiden_iterations"] = it
    out[3]["iteration_modularity"] = qs
    return dl, A, out


def _split_disconnected(call, wg, A, graph, memb, memb_dev, q_dev, stopped):
    """The connectivity certificate of Leiden's answer (run order; on the host with the
    modularity check in ``"host"`` mode): its
    :class:`~pyclmatch.community.connectivity.Components`, and when the levels stopped
    early (``max_level``, or a refinement that merged nothing) the disconnected
    communities split into their components (which raises modularity: e_c stays, the sum of
    squares drops), their modularity recomputed on the host. Raises
    :class:`VerificationError` for a disconnected community of a run that ``stopped``
    converged. Returns ``(components, membership, device membership, q_dev)``."""
    k = int(memb.max()) + 1 if memb.size else 0

    def components(memb, memb_dev, k):
        if call.mode == "host":        # (a small graph on a CPU: scipy's, no kernel to build)
            return host_components(A, memb, k)
        return device_components(call.handle, call.sched, graph, memb_dev, k, wg=wg)
    with call.sched.step("verify"):
        comps = components(memb, memb_dev, k)
        if comps.bad_labels:
            raise VerificationError("the membership has a label outside 0..k-1")
        if comps.disconnected and stopped == "converged":
            raise VerificationError(f"{comps.disconnected} of the {k} communities are not "
                                    f"connected")
        if comps.disconnected:
            call.counters["split_communities"] = comps.disconnected
            memb = _renumbered(comps.labels)
            memb_dev = cla.to_device(call.handle.queue, memb.astype(np.int32))
            q_dev = modularity_csr(A, memb, call.resolution)
            comps = components(memb, memb_dev, int(memb.max()) + 1)
    return comps, memb, memb_dev, q_dev
