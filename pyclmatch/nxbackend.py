"""pyclmatch as a networkx backend (networkx >= 3.2 dispatching).

Installed, the package registers the entry points ``networkx.backends`` and
``networkx.backend_info`` under the name ``pyclmatch``; then

    nx.community.louvain_communities(G, backend="pyclmatch")

(or any call, with ``NETWORKX_BACKEND_PRIORITY=pyclmatch``) runs on an OpenCL device. networkx
converts ``G`` once with :func:`convert_from_nx` into a :class:`PyclGraph` (and keeps it in
``G.__networkx_cache__``, so repeated calls on an unchanged graph convert once); a
:class:`PyclGraph` can also be built directly (:func:`from_networkx`) and passed instead of the
networkx graph. For the bipartite functions the walk is deferred
(:meth:`PyclGraph.deferred`): with ``top_nodes`` only one side's adjacency dicts are read (the
bottom side, or for a matching alone the top side when it leads the node order). Results are
built from integer arrays (node labels through an object array, or none when the labels are
the ids 0..n-1): ``dict(zip(...))`` for matchings with the graph's own node list as the keys
(a perfect matching of a networkx graph starts from ``dict.fromkeys`` of its adjacency dict),
one ``set`` per community after a radix sort of the membership.

Implemented, with networkx's signatures and return types:

* ``community.leiden_communities``, ``community.leiden_partitions`` (pyclmatch's
  :func:`~pyclmatch.leiden`, one deterministic iteration; networkx has no implementation of
  its own, so they run here whatever the graph's size);
* ``community.louvain_communities``, ``community.louvain_partitions`` (pyclmatch's
  :func:`~pyclmatch.louvain`, levels cut by networkx's ``threshold`` rule: a level is kept
  while it gains more than ``threshold`` modularity over the previous one) and
  ``community.modularity`` (Eq. 1 in numpy on the cached CSR);
* ``bipartite.hopcroft_karp_matching`` (= ``bipartite.maximum_matching``),
  ``bipartite.eppstein_matching`` (any maximum matching satisfies both) and
  ``bipartite.to_vertex_cover`` (the König cover that :func:`~pyclmatch.maximum_matching`
  returns as its certificate, grown from the unmatched top nodes as networkx grows it; it is
  the same set for every maximum matching);
* ``is_matching``, ``is_maximal_matching``, ``is_perfect_matching`` (vectorised over the
  cached CSR) and ``maximal_matching`` (Suitor on unit weights: a maximal matching).

Not registered: networkx's ``max_weight_matching`` is exact and Suitor is a
1/2-approximation; it is offered as :func:`approximate_max_weight_matching` (pyclmatch's own
name, not dispatched). ``minimum_weight_full_matching`` stays networkx's (pyclmatch has no exact
weighted bipartite algorithm).

:func:`can_run` declines directed graphs where pyclmatch's method is undirected (Louvain,
modularity, the bipartite functions, maximal matching), multigraphs for ``maximal_matching``
(networkx refuses them), and keyword arguments the backend does not know; :func:`should_run`
declines graphs smaller than :data:`MIN_EDGES` (the conversion and the device's launch
latency cost more than networkx's own loop there) unless the graph is converted already.
"""
from __future__ import annotations

import inspect
import math
import numbers
import weakref
from itertools import compress
from typing import Any, Iterator

import numpy as np
import scipy.sparse as sp

from ._version import __version__
from .engine import args
from .errors import InputError
from .interop import (NetworkxAdjacency, canonical_csr, exact_int32_values,
                      labels_are_ids, membership_sets)

__all__ = ["PyclGraph", "convert_from_nx", "convert_to_nx", "from_networkx", "can_run",
           "should_run", "get_info", "on_start_tests", "louvain_communities",
           "louvain_partitions", "leiden_communities", "leiden_partitions", "modularity",
           "hopcroft_karp_matching", "eppstein_matching",
           "to_vertex_cover", "is_matching", "is_maximal_matching", "is_perfect_matching",
           "maximal_matching", "approximate_max_weight_matching",
           "minimum_weight_full_matching"]

BACKEND_NAME = "pyclmatch"

#: networkx name -> fewest edges for which :func:`should_run` says yes for a networkx graph
#: (a converted :class:`PyclGraph` always runs; ``None``: never worth a conversion, because
#: networkx's function reads only the matching, not the graph). Below, networkx's loop
#: finishes before the conversion and one device round trip.
MIN_EDGES = {
    "louvain_communities": 5_000, "louvain_partitions": 5_000, "modularity": 50_000,
    "leiden_communities": 0, "leiden_partitions": 0,
    "hopcroft_karp_matching": 20_000, "eppstein_matching": 20_000, "to_vertex_cover": 20_000,
    "is_matching": None, "is_perfect_matching": None, "is_maximal_matching": 1_000_000,
    "maximal_matching": 200_000, "minimum_weight_full_matching": 2_000,
}

#: the functions that need an undirected graph here (networkx's bipartite and Louvain code
#: accept directed graphs with other semantics: directed modularity, successors only)
_UNDIRECTED = {"louvain_communities", "louvain_partitions", "leiden_communities",
               "leiden_partitions", "modularity",
               "hopcroft_karp_matching", "eppstein_matching", "to_vertex_cover",
               "maximal_matching", "minimum_weight_full_matching"}
_NO_MULTIGRAPH = {"maximal_matching"}
#: keyword arguments beyond networkx's that every implemented function takes
BACKEND_KWARGS = ("device",)
#: functions that may need only part of the graph: networkx's conversion hook defers the walk
#: (:meth:`PyclGraph.deferred`); with ``top_nodes`` only the other side's lists are read
_DEFERRED = {"hopcroft_karp_matching", "eppstein_matching", "to_vertex_cover"}


# --------------------------------------------------------------------------- graph type
class PyclGraph:
    """A networkx graph converted for pyclmatch: the adjacency as a canonical CSR (sorted
    int32 lists, in the graph's node order), the node labels, and per edge attribute the
    weights in CSR order. Built once per networkx graph; the arrays a call needs beyond them
    (weighted CSR matrices, the node index, the bipartite split of a connected graph, the
    sorted edge keys of the matching checks) are built on first use and kept.

    The graph is read-only: networkx's conversion cache drops it when the networkx graph is
    changed through its methods (``add_edge``, ...).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import PyclGraph, from_networkx
    >>> g = from_networkx(nx.path_graph(4))
    >>> isinstance(g, PyclGraph), g.n, g.nnz
    (True, 4, 6)
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, nodes: list,
                 directed: bool = False, multigraph: bool = False,
                 values: dict | None = None, graph: dict | None = None,
                 ids_are_labels: bool | None = None):
        self._indptr, self._indices = indptr, indices
        self._source = None      # (networkx graph, edge attributes) of a deferred walk
        self.node_list = nodes
        self.n = len(nodes)
        self.directed, self.multigraph = bool(directed), bool(multigraph)
        #: (attribute, default) -> weights in CSR order; (None, None) -> 1 per stored entry
        #: (a multigraph's parallel-edge count)
        self._values = dict(values or {})
        self.graph = dict(graph or {})
        self._cache: dict = {}
        if ids_are_labels is not None:
            self._cache["ids_are_labels"] = [bool(ids_are_labels)]
        self.__networkx_cache__: dict = {}

    @classmethod
    def deferred(cls, G, attrs: dict, graph: dict | None = None) -> "PyclGraph":
        """The graph of the networkx graph ``G`` with its adjacency walked on first use
        (:attr:`indptr`, :attr:`indices`, :attr:`values`): a function that needs only part
        of it (one side of a bipartite graph, :func:`hopcroft_karp_matching` with
        ``top_nodes``) walks only that part (:attr:`source`). Built by networkx's
        conversion hook, whose cache drops it when ``G`` changes."""
        adj = getattr(G, "_adj", None)
        nodes = list(adj) if isinstance(adj, dict) else list(G)
        g = cls(None, None, nodes, G.is_directed(), G.is_multigraph(), None, graph)
        try:      # (a weak reference: G's conversion cache holds g, and g must not hold G)
            ref = weakref.ref(G)
        except TypeError:
            ref = (lambda G: lambda: G)(G)
        g._source = (ref, dict(attrs))
        return g

    @property
    def source(self):
        """The networkx graph of a deferred walk not done yet (else None)."""
        if self._source is None:
            return None
        G = self._source[0]()
        if G is None:
            raise InputError("the networkx graph of this deferred conversion was freed")
        return G

    def _walk(self):
        G, attrs = self.source, self._source[1]
        known = self._cache.get("ids_are_labels")
        walk = NetworkxAdjacency(G, nodes=self.node_list,
                                 ids_are_labels=known[0] if known else None)
        self._values = _walk_values(walk, attrs)
        self._indptr, self._indices = walk.indptr, walk.sorted_indices
        self._cache.setdefault("ids_are_labels", [walk.ids_are_labels])
        self._source = None

    @property
    def indptr(self) -> np.ndarray:
        """CSR offsets (int32, ``n + 1``)."""
        if self._source is not None:
            self._walk()
        return self._indptr

    @property
    def indices(self) -> np.ndarray:
        """CSR column positions (int32, sorted within each row)."""
        if self._source is not None:
            self._walk()
        return self._indices

    @property
    def values(self) -> dict:
        """``(attribute, default)`` -> weights in CSR order; ``(None, None)`` -> 1 per
        stored entry (a multigraph's parallel-edge count)."""
        if self._source is not None:
            self._walk()
        return self._values

    # networkx's graph protocol, as far as the dispatcher and users look
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return self.n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return iter(self.node_list)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    @property
    def nnz(self) -> int:
        return int(self.indptr[-1])

    def number_of_edges(self) -> int:
        """Distinct adjacent pairs (an undirected edge and a self-loop count once)."""
        if self.directed:
            return self.nnz
        loops = int(np.count_nonzero(self.indices == self.rows))
        return (self.nnz + loops) // 2

    def __repr__(self) -> str:
        kind = ("Multi" if self.multigraph else "") + ("DiGraph" if self.directed else "Graph")
        return f"<PyclGraph ({kind}) {self.n} nodes, {self.nnz} adjacency entries>"

    # cached derived arrays
    def _memo(self, key, make):
        v = self._cache.get(key)
        if v is None:
            v = self._cache[key] = make()
        return v

    @property
    def index(self) -> dict:
        """node -> position."""
        return self._memo("index", lambda: dict(zip(self.node_list, range(self.n))))

    @property
    def rows(self) -> np.ndarray:
        """The row of every stored entry (int32)."""
        return self._memo("rows", lambda: np.repeat(
            np.arange(self.n, dtype=np.int32), np.diff(self.indptr)))

    @property
    def keys(self) -> np.ndarray:
        """``row * n + col`` of every entry: sorted (canonical CSR), so one
        ``searchsorted`` answers ``has_edge`` for many pairs."""
        return self._memo("keys", lambda: self.rows.astype(np.int64) * self.n + self.indices)

    def csr(self, weight: str | None = "weight", default: float = 1.0) -> sp.csr_matrix:
        """The adjacency matrix (canonical, flagged so) with the edge attribute ``weight``
        as values (``default`` where an edge has none; parallel edges of a multigraph
        summed); ``weight=None``: 1 per edge (the parallel-edge count for a multigraph)."""
        key = ("csr", weight, default)

        def make():
            if weight is None:
                data = self.values.get((None, None))
                if data is None:
                    data = np.ones(self.nnz, np.int8)
            else:
                data = self.values.get((weight, default))
                if data is None:
                    data = next((v for (a, _), v in self.values.items() if a == weight), None)
                if data is None:
                    raise InputError(f"the converted graph holds no edge attribute "
                                     f"{weight!r} (it holds: {self.attributes() or 'none'}); "
                                     f"convert it with edge_attrs={{{weight!r}: default}}")
            return canonical_csr(data, self.indices, self.indptr, self.n)
        return self._memo(key, make)

    def attributes(self) -> list:
        return sorted({a for a, _ in self.values if a is not None})

    def labels(self, idx: np.ndarray) -> list:
        """The node labels of the positions ``idx`` (Python objects, never numpy scalars;
        the positions themselves when the labels are the ids 0..n-1)."""
        if self.ids_are_labels:
            return np.asarray(idx).tolist()
        return self.label_array[np.asarray(idx, np.int64)].tolist()

    @property
    def label_array(self) -> np.ndarray | None:
        """The node labels as an object array (None when they are the ids 0..n-1)."""
        if self.ids_are_labels:
            return None
        return self._memo("labels", lambda: np.fromiter(self.node_list, dtype=object,
                                                        count=self.n))

    @property
    def ids_are_labels(self) -> bool:
        """Whether the node labels are the ints 0..n-1 in order (then no look-up is needed)."""
        return self._memo("ids_are_labels", lambda: [labels_are_ids(self.node_list)])[0]

    def positions(self, nodes, what: str = "node") -> np.ndarray:
        """Positions (int64) of the labels ``nodes``; NetworkXError for a label not in G."""
        import networkx as nx
        pos = _id_positions(nodes) if self.ids_are_labels else None
        if pos is not None:
            if pos.size and (pos.min() < 0 or pos.max() >= self.n):
                bad = pos[(pos < 0) | (pos >= self.n)][0]
                raise nx.NetworkXError(f"{what} {int(bad)!r} is not in the graph")
            return pos
        index = self.index
        try:
            return np.fromiter((index[u] for u in nodes), np.int64)
        except (KeyError, TypeError):
            bad = next(u for u in nodes if not _hashable_in(u, index))
            raise nx.NetworkXError(f"{what} {bad!r} is not in the graph") from None


def _id_positions(nodes) -> np.ndarray | None:
    """The labels ``nodes`` as int64 positions of a graph whose labels are the ids 0..n-1,
    without a look-up per label: a ``range``, an int array, or a list / tuple / set of Python
    ints (exactly ``int``: another type equal to an id is left to the node index; read by
    :func:`~pyclmatch.interop.exact_int32_values`); None for anything else."""
    if isinstance(nodes, range):
        return np.arange(nodes.start, nodes.stop, nodes.step, dtype=np.int64)
    if isinstance(nodes, np.ndarray):
        return nodes.astype(np.int64) if nodes.dtype.kind in "iu" and nodes.ndim == 1 else None
    pos = exact_int32_values(nodes)
    return None if pos is None else pos.astype(np.int64)


def _hashable_in(u, index):
    try:
        return u in index
    except TypeError:
        return False


# --------------------------------------------------------------------------- conversion
def from_networkx(G, weight: str | None = "weight", default: float = 1.0) -> PyclGraph:
    """Convert the networkx graph ``G`` once, keeping the edge attribute ``weight`` (or
    none): pass the result to networkx functions with ``backend="pyclmatch"`` (or to
    pyclmatch's families) to reuse the conversion.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import from_networkx
    >>> g = from_networkx(nx.path_graph(4))
    >>> g.csr(None).toarray().astype(int).tolist()[1]
    [1, 0, 1, 0]
    """
    attrs = None if weight is None else {weight: default}
    return convert_from_nx(G, edge_attrs=attrs)


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                    preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                    graph_name=None) -> PyclGraph:
    """networkx's conversion hook: ``G`` (any networkx graph class) as a :class:`PyclGraph`.

    One vectorised walk of ``G``'s adjacency dicts (:class:`pyclmatch.interop
    .NetworkxAdjacency`); ``edge_attrs`` (``{attribute: default}``, as networkx resolves it
    from the called function's ``weight`` argument) are read in the same order.
    ``preserve_edge_attrs=True`` keeps ``weight``. Node attributes are not kept (no
    implemented function reads them).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import convert_from_nx
    >>> convert_from_nx(nx.path_graph(4)).n
    4
    """
    if isinstance(G, PyclGraph):
        return G
    if isinstance(edge_attrs, str):
        edge_attrs = {edge_attrs: 1}
    attrs = dict(edge_attrs or {})
    if preserve_edge_attrs and not attrs:
        attrs = {"weight": 1}
    graph = dict(G.graph) if preserve_graph_attrs else {}
    if name in _DEFERRED:
        return PyclGraph.deferred(G, attrs, graph)
    walk = NetworkxAdjacency(G)
    return PyclGraph(walk.indptr, walk.sorted_indices, walk.nodes, walk.directed,
                     walk.multigraph, _walk_values(walk, attrs), graph,
                     ids_are_labels=walk.ids_are_labels)


def _walk_values(walk, attrs) -> dict:
    """The weights of ``attrs`` (``{attribute: default}``) in CSR order, and a multigraph's
    parallel-edge counts, from one :class:`~pyclmatch.interop.NetworkxAdjacency`."""
    values = {}
    for attr, default in attrs.items():
        if attr is None:
            continue
        d = 1.0 if default is None else default
        values[(attr, d)] = walk.sorted_values(attr, d)
    if walk.multigraph:
        values[(None, None)] = walk.sorted_values(None)
    return values


def convert_to_nx(obj: Any, *, name: str | None = None):
    """networkx's hook for results: a :class:`PyclGraph` becomes a networkx graph (nodes
    in order, the kept attributes on the edges); anything else is returned as it is (every
    implemented function returns networkx's own types).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import convert_to_nx, from_networkx
    >>> list(convert_to_nx(from_networkx(nx.path_graph(4))).edges())
    [(0, 1), (1, 2), (2, 3)]
    """
    if not isinstance(obj, PyclGraph):
        return obj
    import networkx as nx
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
    H = cls[(obj.directed, obj.multigraph)]()
    H.graph.update(obj.graph)
    H.add_nodes_from(obj.node_list)
    rows, cols = obj.rows, obj.indices
    keep = np.ones(obj.nnz, bool) if obj.directed else rows <= cols
    u, v = obj.labels(rows[keep]), obj.labels(cols[keep])
    attrs = [(a, vals[keep].tolist()) for (a, _), vals in obj.values.items() if a is not None]
    if attrs:
        H.add_edges_from((a, b, {k: vals[i] for k, vals in attrs})
                         for i, (a, b) in enumerate(zip(u, v)))
    else:
        H.add_edges_from(zip(u, v))
    return H


def _graph_arg(args, kwargs):
    if args:
        return args[0]
    return kwargs.get("G")


def can_run(name: str, args: tuple, kwargs: dict):
    """Whether the backend implements ``name`` for these arguments (True, or a string saying
    why not: networkx then uses its own code or the next backend).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import can_run
    >>> can_run("louvain_communities", (nx.path_graph(4),), {})
    True
    >>> can_run("pagerank", (nx.path_graph(4),), {})
    'pyclmatch does not implement pagerank'
    """
    if name not in MIN_EDGES:
        return f"pyclmatch does not implement {name}"
    G = _graph_arg(args, kwargs)
    directed = bool(getattr(G, "is_directed", lambda: False)())
    multi = bool(getattr(G, "is_multigraph", lambda: False)())
    if name in _UNDIRECTED and directed:
        return f"pyclmatch's {name} is for undirected graphs"
    if name in _NO_MULTIGRAPH and multi:
        return f"networkx's {name} is not defined on multigraphs"
    params = inspect.signature(globals()[name]).parameters
    unknown = [k for k in kwargs if k not in params and k != "backend"]
    if unknown:
        return f"unknown keyword argument(s) {', '.join(unknown)}"
    return True


def should_run(name: str, args: tuple, kwargs: dict):
    """Whether running here is worth it: yes for a converted graph; for a networkx graph,
    from :data:`MIN_EDGES` edges on (below, the conversion and the device round trip cost
    more than networkx's own loop).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import should_run
    >>> should_run("louvain_communities", (nx.path_graph(4),), {})
    'the graph is small (3 edges < 5000): networkx is faster'
    """
    G = _graph_arg(args, kwargs)
    if isinstance(G, PyclGraph):
        return True
    m = _edge_estimate(G)
    if m is None:
        return True
    least = MIN_EDGES.get(name, 0)
    if least is None:
        return (f"networkx's {name} reads only the matching: converting the graph costs "
                f"more (pass a converted graph, pyclmatch.nxbackend.from_networkx(G))")
    if m < least:
        return f"the graph is small ({m} edges < {least}): networkx is faster"
    return True


def _edge_estimate(G) -> int | None:
    """About how many edges ``G`` has, for :func:`should_run`'s threshold: the sizes of its
    adjacency dicts in one C-level pass (half of them for an undirected graph; a multigraph's
    parallel edges count once), where networkx's ``number_of_edges`` walks every node's
    degree in Python (a third of a second at 2M nodes)."""
    adj = getattr(G, "_adj", None)
    if isinstance(adj, dict):
        entries = sum(map(len, adj.values()))
        return entries if G.is_directed() else entries // 2
    try:
        return G.number_of_edges()
    except AttributeError:
        return None


# --------------------------------------------------------------------------- Louvain
def _seed_int(seed) -> int | None:
    """An int for pyclmatch's ``seed`` from networkx's seed (an int, or the
    ``random.Random`` / numpy state that ``py_random_state`` makes of it)."""
    if seed is None:
        return None
    if isinstance(seed, numbers.Integral):
        return int(seed)
    if hasattr(seed, "getrandbits"):
        return int(seed.getrandbits(63))
    if hasattr(seed, "integers"):
        return int(seed.integers(2 ** 62))
    if hasattr(seed, "randint"):
        return int(seed.randint(2 ** 31 - 1))
    raise InputError(f"seed must be an int, None or a random state, not {type(seed).__name__}")


def _real_arg(name, value):
    """A real number as networkx takes it (infinities and bools included: networkx computes
    with them); NaN (every comparison with it false, every sum with it NaN: no answer means
    anything) and anything else are refused as an :class:`InputError`."""
    if not isinstance(value, numbers.Real) or value != value:
        args.refuse(name, value, "a real number, not NaN")
    return value


def _iterable_arg(name, value, what):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        args.refuse(name, value, what)
    return value


def _as_pycl(G, weight) -> PyclGraph:
    args.attribute("weight", weight)
    if isinstance(G, PyclGraph):
        return G
    return from_networkx(G, weight)


def _singleton_modularity(g: PyclGraph, A, resolution) -> float:
    """Eq. (1) of the partition into single nodes (what networkx's first level is compared
    with), from the degrees alone: a self-loop is inside its community and counts twice in
    2m and in its node's degree, as in :func:`pyclmatch.community.verify.modularity_csr`."""
    w = np.asarray(A.data, np.float64)
    diag = A.diagonal().astype(np.float64)
    k = np.bincount(g.rows, weights=w, minlength=g.n) + diag
    m2 = float(k.sum())
    if m2 == 0:
        return 0.0
    a = k / m2
    return float(2.0 * diag.sum() / m2 - resolution * np.dot(a, a))


def _louvain_levels(G, weight, resolution, threshold, max_level, seed, device):
    """The memberships networkx's ``louvain_partitions`` would yield, from one pyclmatch
    run: its levels, each kept while it merges communities and gains more than
    ``threshold`` modularity over the previous one (networkx's rule, the first level
    always)."""
    _real_arg("threshold", threshold)
    g = _as_pycl(G, weight)
    A = g.csr(weight)
    if A.nnz == 0:
        return g, [np.arange(g.n)]
    from .community.api import louvain
    from .community.verify import modularity_csr   # (imported on first use)
    res = louvain(A, resolution=resolution, max_level=max_level, seed=_seed_int(seed),
                  deterministic=True, return_levels=True, device=device)
    q_prev = _singleton_modularity(g, A, resolution)
    # the device's Eq. (1) after every level (the last one verified against the input);
    # recomputed on the host where the driver did not report one per level
    q_levels = res.counters.get("modularity")
    if not isinstance(q_levels, list) or len(q_levels) != len(res.levels):
        q_levels = [modularity_csr(A, m.astype(np.int64), resolution) for m in res.levels]
    out = []
    k_prev = g.n
    for memb, q in zip(res.levels, q_levels):
        k = int(memb.max()) + 1 if memb.size else 0
        if out and k == k_prev:
            break
        out.append(memb)
        if q - q_prev <= threshold:
            break
        q_prev, k_prev = q, k
    if not out:
        out.append(res.membership)
    return g, out


def louvain_partitions(G, weight="weight", resolution=1, threshold=0.0000001, seed=None, *,
                       device=None) -> Iterator[list]:
    """networkx's ``louvain_partitions`` on an OpenCL device: yields the partition (list of
    sets of nodes) after each level. ``device``: see :func:`pyclmatch.get_device`.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(3, 0)        # the triangles 0-1-2 and 3-4-5, joined by 2-3
    >>> from pyclmatch.nxbackend import louvain_partitions
    >>> [sorted(map(sorted, p)) for p in louvain_partitions(G, seed=1)]
    [[[0, 1, 2], [3, 4, 5]]]
    """
    g, levels = _louvain_levels(G, weight, resolution, threshold, None, seed, device)
    return (membership_sets(m, None, g.label_array) for m in levels)


def louvain_communities(G, weight="weight", resolution=1, threshold=0.0000001, max_level=None,
                        seed=None, *, device=None) -> list:
    """networkx's ``louvain_communities`` on an OpenCL device: the partition (list of sets
    of nodes) of the last level kept, at most ``max_level`` levels.

    Examples
    --------
    Two triangles joined by one edge, through networkx's dispatch:

    >>> import networkx as nx
    >>> G = nx.barbell_graph(3, 0)        # the triangles 0-1-2 and 3-4-5, joined by 2-3
    >>> sorted(map(sorted, nx.community.louvain_communities(G, backend="pyclmatch", seed=1)))
    [[0, 1, 2], [3, 4, 5]]
    """
    _max_level_arg(max_level)
    g, levels = _louvain_levels(G, weight, resolution, threshold, max_level, seed, device)
    memb = levels[-1] if max_level is None else levels[:max_level][-1]
    return membership_sets(memb, None, g.label_array)


# --------------------------------------------------------------------------- Leiden
def _connected_labels(A, memb) -> np.ndarray:
    """``memb`` with every community split into its connected components, numbered by
    first appearance in node order (scipy's components of the edges inside communities):
    the canonical form of a Leiden level."""
    from scipy.sparse.csgraph import connected_components
    C = A.tocoo()
    keep = memb[C.row] == memb[C.col]
    B = sp.csr_matrix((np.ones(int(keep.sum()), np.int8), (C.row[keep], C.col[keep])),
                      shape=A.shape)
    return connected_components(B, directed=False)[1]


def _leiden_levels(G, weight, resolution, max_level, seed, device):
    """The partitions after every level of one deterministic pyclmatch Leiden run (one
    iteration, at most ``max_level`` levels), each in its canonical form
    (:func:`_connected_labels`), a level equal to the one before left out: a run stopped at
    level l gives level l of a longer run."""
    g = _as_pycl(G, weight)
    A = g.csr(weight)
    if A.nnz == 0:
        return g, [np.arange(g.n)]
    from .community.api import leiden    # (imported on first use)
    res = leiden(A, resolution=resolution, max_level=max_level, seed=_seed_int(seed),
                 deterministic=True, return_levels=True, iterations=1, device=device)
    out = []
    for memb in res.levels:      # (the last level, where nothing moved, repeats the one before)
        memb = _connected_labels(A, memb)
        if not out or not np.array_equal(out[-1], memb):
            out.append(memb)
    return g, out


def _max_level_arg(max_level):
    if max_level is not None and (isinstance(max_level, (bool, np.bool_)) or
                                  not isinstance(max_level, numbers.Integral)):
        args.refuse("max_level", max_level, "a positive integer or None")
    if max_level is not None and max_level <= 0:     # (networkx's own wording)
        raise InputError(f"max_level argument must be a positive integer or None, not "
                         f"{args.shown(max_level)}", argument="max_level")


def leiden_partitions(G, weight="weight", resolution=1, seed=None, *,
                      device=None) -> Iterator[list]:
    """networkx's ``leiden_partitions`` on an OpenCL device (:func:`pyclmatch.leiden`, one
    iteration, deterministic): yields the partition (list of sets of nodes) after each
    level, every community connected.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(5, 0)        # two 5-cliques joined by the edge 4-5
    >>> from pyclmatch.nxbackend import leiden_partitions
    >>> [sorted(map(sorted, p)) for p in leiden_partitions(G, seed=1)]
    [[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]]
    """
    _real_arg("resolution", resolution)
    g, levels = _leiden_levels(G, weight, resolution, None, seed, device)
    return (membership_sets(m, None, g.label_array) for m in levels)


def leiden_communities(G, weight="weight", resolution=1, max_level=None, seed=None, *,
                       device=None) -> list:
    """networkx's ``leiden_communities`` on an OpenCL device: the partition (list of sets
    of nodes) of the last level, at most ``max_level`` levels; every community connected.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(5, 0)
    >>> sorted(map(sorted, nx.community.leiden_communities(G, backend="pyclmatch", seed=1)))
    [[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]
    """
    _max_level_arg(max_level)
    _real_arg("resolution", resolution)
    g, levels = _leiden_levels(G, weight, resolution, max_level, seed, device)
    return membership_sets(levels[-1], None, g.label_array)


def _membership(g: PyclGraph, communities) -> np.ndarray:
    """Community of every node from a list of sets; networkx's ``NotAPartition`` when the
    sets do not cover every node exactly once."""
    from networkx.algorithms.community.quality import NotAPartition
    memb = np.full(g.n, -1, np.int64)
    index = g.index
    for c, comm in enumerate(communities):
        try:
            idx = np.fromiter((index[u] for u in comm), np.int64)
        except (KeyError, TypeError):
            raise NotAPartition(g, communities) from None
        if (memb[idx] >= 0).any() or np.unique(idx).size != idx.size:
            raise NotAPartition(g, communities)
        memb[idx] = c
    if (memb < 0).any():
        raise NotAPartition(g, communities)
    return memb


def modularity(G, communities, weight="weight", resolution=1, *, device=None) -> float:
    """networkx's ``modularity`` (undirected): Eq. (1) of the partition ``communities`` in
    float64 numpy over the cached CSR (a self-loop inside its community, counted twice in
    its node's degree, as networkx counts it).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(3, 0)        # the triangles 0-1-2 and 3-4-5, joined by 2-3
    >>> from pyclmatch.nxbackend import modularity
    >>> round(modularity(G, [{0, 1, 2}, {3, 4, 5}]), 3)
    0.357
    """
    _real_arg("resolution", resolution)
    _iterable_arg("communities", communities, "an iterable of sets of nodes")
    g = _as_pycl(G, weight)
    if not isinstance(communities, list):
        communities = list(communities)
    memb = _membership(g, communities)
    A = g.csr(weight)
    if A.nnz == 0 or float(np.asarray(A.data, np.float64).sum()) == 0.0:
        raise ZeroDivisionError("modularity of a graph without edge weight (networkx divides "
                                "by the total weight)")
    from .community.verify import modularity_csr
    return float(modularity_csr(A, memb, resolution))


# --------------------------------------------------------------------------- bipartite
def _bipartite_split(g: PyclGraph, top_nodes):
    """``(top, bottom)`` positions as networkx's ``bipartite.sets`` splits the graph: the
    given ``top_nodes``, or for ``None`` the 2-colouring of a connected graph (the class of
    the first node with a neighbour is the top; ``AmbiguousSolution`` when disconnected,
    ``NetworkXError`` when not bipartite). The colouring is a scipy BFS and a pointer-
    jumping depth parity, kept on the graph."""
    import networkx as nx
    if top_nodes is not None:
        _iterable_arg("top_nodes", top_nodes, "None or an iterable of nodes")
        mask = np.zeros(g.n, bool)
        mask[g.positions(top_nodes, "top node")] = True
        return np.flatnonzero(mask), np.flatnonzero(~mask)

    def colour():
        if g.n == 0:
            raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
        A = g.csr(None)
        from scipy.sparse.csgraph import breadth_first_order, connected_components
        ncomp, _ = connected_components(A, directed=False)
        if ncomp > 1:
            raise nx.AmbiguousSolution("Disconnected graph: Ambiguous solution for bipartite "
                                       "sets.")
        deg = np.diff(g.indptr)
        if not deg.any():            # one isolated node: networkx colours it 0 (bottom)
            return np.zeros(0, np.int64), np.arange(g.n)
        start = int(np.argmax(deg > 0))
        _, pred = breadth_first_order(A, start, directed=False, return_predecessors=True)
        parent = np.where(pred < 0, np.arange(g.n), pred).astype(np.int64)
        depth = (pred >= 0).astype(np.int64)
        for _ in range(max(1, int(math.ceil(math.log2(max(g.n, 2))))) + 1):
            depth = depth + depth[parent]
            parent = parent[parent]
        par = depth & 1
        if (par[g.rows] == par[g.indices]).any():
            raise nx.NetworkXError("Graph is not bipartite.")
        return np.flatnonzero(par == 0), np.flatnonzero(par == 1)
    return g._memo("bipartite_sets", colour)


def _biadjacency(g: PyclGraph, top, bottom) -> sp.csr_matrix:
    """Rows = bottom nodes, columns = top nodes (pyclmatch's König cover grows from the
    unmatched columns, networkx's ``to_vertex_cover`` from the unmatched top nodes): the
    bottom rows of the cached CSR (one slice when they are consecutive) with the columns
    renumbered by a position table, entries between two bottom nodes dropped. The top
    positions ascend, so every list stays sorted: the result is canonical. A graph whose
    walk is deferred (:meth:`PyclGraph.deferred`) has only the bottom nodes' adjacency
    dicts walked (half the entries of a bipartite graph), or none where a matching walked
    the other side already: its B transposed."""
    nb = bottom.size
    if g.source is not None:
        # (networkx's cache keeps g: a later call with the same sides reuses B, or the
        # transpose of the B a matching built the other way round (:func:`_bipartite_match`))
        key = _sides_key(top)
        hit = g._cache.get(key)
        if hit is not None and np.array_equal(hit[0], top) and np.array_equal(hit[1], bottom):
            return hit[2]
        hit = g._cache.get(_sides_key(bottom))
        if hit is not None and np.array_equal(hit[0], bottom) and np.array_equal(hit[1], top):
            B = hit[2].T.tocsr()          # (scipy's transpose sorts every list: canonical)
            B.has_canonical_format = True
            g._cache[key] = (top, bottom, B)
            return B
        walk = NetworkxAdjacency(g.source, rows=bottom, nodes=g.node_list,
                                 ids_are_labels=g.ids_are_labels)
        cols, counts = walk.sorted_indices, np.diff(walk.indptr)
    elif nb and int(bottom[-1]) - int(bottom[0]) == nb - 1:       # consecutive rows
        ptr, ind = g.indptr, g.indices
        a, b = int(ptr[bottom[0]]), int(ptr[bottom[-1] + 1])
        cols, counts = ind[a:b], np.diff(ptr[bottom[0]:bottom[-1] + 2])
    else:
        ptr, ind = g.indptr, g.indices
        counts = (ptr[bottom + 1] - ptr[bottom]).astype(np.int64)
        starts = np.repeat(ptr[bottom].astype(np.int64) - np.cumsum(counts) + counts, counts)
        cols = ind[starts + np.arange(int(counts.sum()))]
    indptr = np.zeros(nb + 1, np.int64)
    np.cumsum(counts, out=indptr[1:])
    t0 = int(top[0]) if top.size else 0
    if top.size and int(top[-1]) - t0 == top.size - 1 and (cols.size == 0 or (
            int(cols.min()) >= t0 and int(cols.max()) < t0 + top.size)):
        # consecutive top positions holding every neighbour (a bipartite graph numbered
        # side by side): the columns are a shift, nothing is dropped
        cols = cols - np.int32(t0) if t0 else cols
        keep = None
    else:
        colpos = np.full(g.n, -1, np.int32)
        colpos[top] = np.arange(top.size, dtype=np.int32)
        cols = colpos[cols]
        keep = cols >= 0
    if keep is not None and not keep.all():
        rows = np.repeat(np.arange(nb), counts)[keep]
        cols = cols[keep]
        indptr[1:] = np.cumsum(np.bincount(rows, minlength=nb))
    B = sp.csr_matrix((np.ones(cols.size, np.int8), cols, indptr.astype(np.int32)),
                      shape=(nb, top.size), copy=False)
    B.has_canonical_format = True
    if g.source is not None:
        g._cache[key] = (top, bottom, B)
    return B


def _sides_key(cols: np.ndarray) -> tuple:
    """Cache key of a deferred graph's biadjacency with the columns ``cols``: their count
    and a hash of a sample of them (a hit is compared whole)."""
    return ("biadjacency", cols.size, hash(cols[::max(1, cols.size >> 12)].tobytes()))


def _bipartite_match(G, top_nodes, device, cover=True):
    """``(g, cols, rows, res)``: pyclmatch's maximum matching ``res`` of the graph ``G``
    split by ``top_nodes``, rows = bottom nodes and columns = top nodes (the König cover's
    orientation, :func:`_biadjacency`). With ``cover=False`` (a matching alone, any
    orientation will do) a deferred walk reads the top side instead when it is a leading run
    of the node order no longer than the bottom side: ``islice`` then reads its dicts with
    nothing to skip."""
    g = G if isinstance(G, PyclGraph) else PyclGraph.deferred(G, {})
    key = ("bimatch", device)       # (the answer for networkx's own split is kept)
    hit = g._cache.get(key) if top_nodes is None else None
    if hit is not None:
        return hit
    cols, rows = _bipartite_split(g, top_nodes)
    if not cover and top_nodes is not None and g.source is not None and \
            0 < cols.size <= rows.size and int(cols[0]) == 0 and _consecutive(cols):
        cols, rows = rows, cols
    B = _biadjacency(g, cols, rows)
    from .bipartite.api import maximum_matching
    res = maximum_matching(B, device=device)
    out = g, cols, rows, res
    if top_nodes is None:
        g._cache[key] = out
    return out


def hopcroft_karp_matching(G, top_nodes=None, *, device=None) -> dict:
    """networkx's ``bipartite.hopcroft_karp_matching`` (= ``bipartite.maximum_matching``):
    a maximum-cardinality matching as ``{u: v, v: u}``, computed by
    :func:`pyclmatch.maximum_matching` (verified by its König certificate).

    Examples
    --------
    >>> import networkx as nx
    >>> B = nx.complete_bipartite_graph(2, 2)
    >>> from pyclmatch.nxbackend import hopcroft_karp_matching
    >>> M = hopcroft_karp_matching(B, top_nodes=[0, 1])
    >>> len(M), nx.is_perfect_matching(B, {(u, M[u]) for u in (0, 1)})
    (4, True)
    """
    g, cols, rows, res = _bipartite_match(G, top_nodes, device, cover=False)
    mate = np.empty(g.n, np.int64)      # (the two sides cover every node)
    _put(mate, cols, _take(rows, res.col_match))
    _put(mate, rows, _take(cols, res.row_match))
    return _mate_dict(g, mate)


def _consecutive(pos: np.ndarray) -> bool:
    return pos.size > 0 and int(pos[-1]) - int(pos[0]) == pos.size - 1


def _take(pos: np.ndarray, idx) -> np.ndarray:
    """``pos[idx]`` (int64), -1 where ``idx`` is -1: an offset where ``pos`` is a run of
    consecutive positions (a side of a graph numbered side by side), else a gather."""
    idx = np.asarray(idx)
    if pos.size == 0:                   # (then every idx is -1)
        return np.full(idx.size, -1, np.int64)
    if _consecutive(pos):
        out = idx.astype(np.int64)
        out += int(pos[0])
    else:
        out = pos[idx]
    out[idx < 0] = -1
    return out


def _put(out: np.ndarray, pos: np.ndarray, values: np.ndarray) -> None:
    """``out[pos] = values``, a slice where ``pos`` is consecutive."""
    if _consecutive(pos):
        out[int(pos[0]):int(pos[0]) + pos.size] = values
    elif pos.size:
        out[pos] = values


def _mate_dict(g: PyclGraph, mate: np.ndarray) -> dict:
    """``{u: mate[u]}`` over the matched nodes, keys in node order (the dict's table is then
    written in order): the keys are the graph's own label objects (its node list, or the
    matched part of it through ``itertools.compress`` over a byte mask: no label is made
    for them), the values one ``tolist`` of the mates' labels. A perfect matching of a graph
    whose walk is deferred (:meth:`PyclGraph.deferred`: the networkx graph is at hand) starts
    from ``dict.fromkeys`` of the networkx graph's adjacency dict, which copies its keys and
    their hashes into a table of the final size, and then sets the values (no growing of
    the dict as ``zip`` would)."""
    matched = mate >= 0
    if matched.all():             # (a perfect matching: every node, in order)
        adj = _source_adj(g)
        if adj is None:
            return dict(zip(g.node_list, g.labels(mate)))
        out = dict.fromkeys(adj)
        out.update(zip(g.node_list, g.labels(mate)))
        return out
    keys = compress(g.node_list, matched.view(np.uint8).tobytes())
    return dict(zip(keys, g.labels(mate[matched])))


def _source_adj(g: PyclGraph) -> dict | None:
    """The adjacency dict (exactly a ``dict``, keyed by ``g``'s nodes in order) of the
    networkx graph of a deferred walk, if it is still at hand; else None."""
    G = g._source[0]() if g._source is not None else None
    adj = getattr(G, "_adj", None)
    return adj if type(adj) is dict and len(adj) == g.n else None


def eppstein_matching(G, top_nodes=None, *, device=None) -> dict:
    """networkx's ``bipartite.eppstein_matching``: a maximum-cardinality matching (the
    same computation as :func:`hopcroft_karp_matching`).

    Examples
    --------
    >>> import networkx as nx
    >>> B = nx.complete_bipartite_graph(2, 2)
    >>> from pyclmatch.nxbackend import eppstein_matching
    >>> len(eppstein_matching(B, top_nodes=[0, 1]))
    4
    """
    return hopcroft_karp_matching(G, top_nodes, device=device)


def to_vertex_cover(G, matching, top_nodes=None, *, device=None) -> set:
    """networkx's ``bipartite.to_vertex_cover``: a minimum vertex cover (König). It is the
    certificate of pyclmatch's maximum matching, built from the unmatched top nodes as
    networkx builds it from ``matching``; for a maximum ``matching`` that set does not depend
    on which maximum matching (Dulmage-Mendelsohn), so it is networkx's answer.

    Examples
    --------
    >>> import networkx as nx
    >>> B = nx.complete_bipartite_graph(2, 2)
    >>> from pyclmatch.nxbackend import hopcroft_karp_matching, to_vertex_cover
    >>> M = hopcroft_karp_matching(B, top_nodes=[0, 1])
    >>> cover = to_vertex_cover(B, M, top_nodes=[0, 1])
    >>> len(cover), all(u in cover or v in cover for u, v in B.edges())
    (2, True)
    """
    if not isinstance(matching, dict):
        args.refuse("matching", matching, "a dict {node: its mate} (as hopcroft_karp_matching "
                    "returns it)")
    g, top, bottom, res = _bipartite_match(G, top_nodes, device)
    cover = res.certificate
    return set(g.labels(top[np.asarray(cover.cols, np.int64)])) | \
        set(g.labels(bottom[np.asarray(cover.rows, np.int64)]))


# --------------------------------------------------------------------------- matching checks
def _edge_status(g: PyclGraph, matching):
    """networkx's per-edge checks of ``is_*matching``, vectorised: returns the endpoint
    positions ``(u, v)`` of a valid matching, or None when it is not one; raises
    networkx's errors (an edge that is not a 2-tuple, a node not in G) where networkx's
    in-order loop would reach them before returning False."""
    import networkx as nx
    from networkx.algorithms.matching import matching_dict_to_set
    _iterable_arg("matching", matching, "a dict {node: its mate} or an iterable of edges")
    if isinstance(matching, dict):
        matching = matching_dict_to_set(matching)
    edges = list(matching)
    k = len(edges)
    index = g.index
    raise_at, raise_exc = k, None
    u = np.full(k, -1, np.int64)
    v = np.full(k, -1, np.int64)
    for i, e in enumerate(edges):
        if not hasattr(e, "__len__"):
            args.refuse("matching", matching, "a dict {node: its mate} or an iterable of "
                        "2-tuples of nodes")
        if len(e) != 2:
            raise_at, raise_exc = i, nx.NetworkXError(f"matching has non-2-tuple edge {e}")
            break
        a, b = e
        ia, ib = index.get(a) if _hashable_in(a, index) else None, \
            index.get(b) if _hashable_in(b, index) else None
        if ia is None or ib is None:
            raise_at, raise_exc = i, nx.NetworkXError(
                f"matching contains edge {e} with node not in G")
            break
        u[i], v[i] = ia, ib
    u, v = u[:raise_at], v[:raise_at]
    # first failing edge among the resolved ones (self-loop, non-edge, repeated node)
    bad = u == v
    if g.nnz:
        key = u * g.n + v
        pos = np.minimum(np.searchsorted(g.keys, key), g.nnz - 1)
        bad |= g.keys[pos] != key
    else:
        bad |= True
    ends = np.stack([u, v], axis=1).ravel()
    if ends.size:
        uniq, first = np.unique(ends, return_index=True)
        firstpos = np.empty(g.n, np.int64)
        firstpos[uniq] = first
        seen_before = (firstpos[ends] // 2) < (np.arange(ends.size) // 2)
        bad |= seen_before.reshape(-1, 2).any(axis=1)
    if bad.any():
        return None
    if raise_exc is not None:
        raise raise_exc
    return u, v


def is_matching(G, matching) -> bool:
    """networkx's ``is_matching`` over the cached CSR (``has_edge`` for every pair in
    one ``searchsorted``).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import is_matching
    >>> G = nx.path_graph(4)
    >>> is_matching(G, {(0, 1), (2, 3)}), is_matching(G, {(0, 1), (1, 2)})
    (True, False)
    """
    return _edge_status(_as_pycl(G, None), matching) is not None


def is_maximal_matching(G, matching) -> bool:
    """networkx's ``is_maximal_matching``: a matching no edge of G (a self-loop aside) can
    be added to.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import is_maximal_matching
    >>> G = nx.path_graph(4)
    >>> is_maximal_matching(G, {(1, 2)}), is_maximal_matching(G, {(0, 1)})
    (True, False)
    """
    g = _as_pycl(G, None)
    st = _edge_status(g, matching)
    if st is None:
        return False
    matched = np.zeros(g.n, bool)
    matched[st[0]] = matched[st[1]] = True
    r, c = g.rows, g.indices
    return not bool((~matched[r] & ~matched[c] & (r != c)).any())


def is_perfect_matching(G, matching) -> bool:
    """networkx's ``is_perfect_matching``: a matching covering every node.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import is_perfect_matching
    >>> G = nx.path_graph(4)
    >>> is_perfect_matching(G, {(0, 1), (2, 3)}), is_perfect_matching(G, {(1, 2)})
    (True, False)
    """
    g = _as_pycl(G, None)
    st = _edge_status(g, matching)
    if st is None:
        return False
    return 2 * st[0].size == g.n


def maximal_matching(G, *, device=None) -> set:
    """networkx's ``maximal_matching``: a maximal matching as a set of edges ``(u, v)``
    (``u`` before ``v`` in node order). Computed by Suitor on unit weights, whose answer
    (the greedy matching by weight, then vertex id) is locally dominant, hence maximal.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import maximal_matching
    >>> sorted(maximal_matching(nx.path_graph(4)))
    [(0, 1), (2, 3)]
    """
    g = _as_pycl(G, None)
    off = g.rows != g.indices
    if not off.any():
        return set()
    W = sp.csr_matrix((np.ones(int(off.sum())), (g.rows[off], g.indices[off])),
                      shape=(g.n, g.n))
    from .weighted.api import weighted_matching
    res = weighted_matching(W, device=device)
    mate = np.asarray(res.mate)
    a = np.flatnonzero(mate > np.arange(mate.size))
    return set(zip(g.labels(a), g.labels(mate[a])))


def approximate_max_weight_matching(G, weight="weight", *, device=None,
                                    algorithm="suitor") -> set:
    """A 1/2-approximate maximum-weight matching (Suitor: the greedy matching) as a set of
    edges ``(u, v)``, for a networkx graph or a :class:`PyclGraph`. Not registered for
    networkx's ``max_weight_matching``, which is exact.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import approximate_max_weight_matching
    >>> G = nx.Graph()
    >>> G.add_weighted_edges_from([(0, 1, 2.0), (1, 2, 1.0), (2, 3, 3.0)])
    >>> sorted(approximate_max_weight_matching(G))
    [(0, 1), (2, 3)]
    """
    g = _as_pycl(G, weight)
    A = g.csr(weight).astype(np.float64)
    A.setdiag(0)
    A.eliminate_zeros()
    if A.nnz == 0:
        return set()
    from .weighted.api import weighted_matching
    res = weighted_matching(A, device=device, algorithm=algorithm)
    mate = np.asarray(res.mate)
    a = np.flatnonzero(mate > np.arange(mate.size))
    return set(zip(g.labels(a), g.labels(mate[a])))


def minimum_weight_full_matching(G, top_nodes=None, weight="weight", *, device=None) -> dict:
    """networkx's ``bipartite.minimum_weight_full_matching``: a minimum-weight matching of
    every node of the smaller side as ``{u: v, v: u}``, computed by
    :func:`pyclmatch.assignment` (the auction, certified by its dual variables) on the
    weighted biadjacency matrix (rows the top side as ``bipartite.sets`` splits it; a missing
    weight counts 1, a zero weight is an edge). ``ValueError("cost matrix is infeasible")``
    when no full matching exists, as networkx's (scipy's) code raises.

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.nxbackend import minimum_weight_full_matching
    >>> B = nx.Graph()
    >>> B.add_weighted_edges_from([(0, 2, 5.0), (0, 3, 1.0), (1, 2, 1.0), (1, 3, 5.0)])
    >>> sorted(minimum_weight_full_matching(B, top_nodes=[0, 1]).items())
    [(0, 3), (1, 2), (2, 1), (3, 0)]
    """
    from .assignment.api import assignment
    g = G if isinstance(G, PyclGraph) else from_networkx(G, weight=weight)
    top, bottom = _bipartite_split(g, top_nodes)
    A = g.csr(weight)
    B = A[top][:, bottom]
    B.sort_indices()
    try:
        res = assignment(B, device=device)
    except InputError as exc:
        if str(exc).startswith("no full matching"):
            raise ValueError("cost matrix is infeasible") from None
        raise
    rows = np.flatnonzero(res.row_match >= 0)
    left, right = g.labels(top[rows]), g.labels(bottom[res.row_match[rows]])
    d = dict(zip(left, right))
    d.update(zip(right, left))
    return d


# --------------------------------------------------------------------------- registration
_DOCS = {
    "louvain_communities": "Louvain on an OpenCL device (Naim et al., Paper III); "
                           "deterministic for a given seed. The partition may differ from "
                           "networkx's for the same seed (another move order).",
    "louvain_partitions": "Levels of one device run, cut by networkx's threshold rule.",
    "leiden_communities": "Leiden on an OpenCL device (one iteration, deterministic for a "
                          "given seed); every community certified connected.",
    "leiden_partitions": "The levels of one device run, every community connected.",
    "modularity": "Eq. (1) vectorised over the converted graph's CSR.",
    "hopcroft_karp_matching": "APFB/APsB, G-PR or Pothen-Fan on the device, verified by a "
                              "König cover.",
    "eppstein_matching": "Same computation as hopcroft_karp_matching.",
    "to_vertex_cover": "The König cover certificate of the device's maximum matching.",
    "is_matching": "Vectorised over the converted graph's CSR.",
    "is_maximal_matching": "Vectorised over the converted graph's CSR.",
    "is_perfect_matching": "Vectorised over the converted graph's CSR.",
    "maximal_matching": "Suitor on unit weights (a maximal matching).",
    "minimum_weight_full_matching": "Bertsekas' auction with epsilon-scaling on the device "
                                    "and an exact finishing step, certified by LP duality.",
}


def get_info() -> dict:
    """networkx's ``backend_info`` entry point.

    Examples
    --------
    >>> from pyclmatch.nxbackend import get_info
    >>> get_info()["backend_name"]
    'pyclmatch'
    """
    device_doc = ("OpenCL device: 'auto', 'gpu', 'cpu', 'P:D', a name substring "
                  "(default PYCLMATCH_DEVICE or 'auto').")
    return {
        "backend_name": BACKEND_NAME,
        "project": "pyclmatch",
        "package": "pyclmatch",
        "short_summary": "Matchings and Louvain on OpenCL devices (GPUs, PoCL on CPUs).",
        "version": __version__,
        "functions": {
            name: {"additional_docs": doc,
                   "additional_parameters": ({"device : str, optional": device_doc}
                                             if name not in ("is_matching",
                                                             "is_maximal_matching",
                                                             "is_perfect_matching")
                                             else {})}
            for name, doc in _DOCS.items()},
    }


#: networkx tests that cannot pass with any other implementation: (module suffix, test
#: name) -> reason. Each pins one particular answer of networkx's own algorithm where the
#: function's contract allows several.
XFAIL_TESTS = {
    ("community/tests/test_louvain.py", "test_karate_club_partition"):
        "pins the partition networkx's own move order gives for seed=2",
    ("community/tests/test_louvain.py", "test_undirected_selfloops"):
        "pins the partition networkx's own move order gives for seed=2",
    ("community/tests/test_louvain.py", "test_none_weight_param"):
        "pins the partition networkx's own move order gives for seed=2",
    ("bipartite/tests/test_matching.py", "TestMatching::test_eppstein_matching_simple"):
        "pins which of the maximum matchings of K(2,3) networkx's search finds",
    ("bipartite/tests/test_matching.py", "TestMatching::test_hopcroft_karp_matching_simple"):
        "pins which of the maximum matchings of K(2,3) networkx's search finds",
}


def on_start_tests(items) -> None:
    """networkx's test hook: mark :data:`XFAIL_TESTS` as expected failures (non-strict:
    an answer may coincide with networkx's).

    Examples
    --------
    >>> from pyclmatch.nxbackend import on_start_tests
    >>> on_start_tests([])      # no test items: nothing to mark
    """
    import pytest
    for item in items:
        path = str(item.fspath).replace("\\", "/")
        for (suffix, test), reason in XFAIL_TESTS.items():
            name = item.nodeid.split("::", 1)[-1].split("[", 1)[0]
            if path.endswith(suffix) and name == test:
                item.add_marker(pytest.mark.xfail(reason=reason, strict=False))


#: networkx's test modules of the implemented functions (run with the backend by .ci/run:
#: ``NETWORKX_TEST_BACKEND=pyclmatch NETWORKX_FALLBACK_TO_NX=True python3 -m pytest --pyargs
#: $(python3 -c "import pyclmatch; print(*pyclmatch.nxbackend.TEST_MODULES)")``)
TEST_MODULES = (
    "networkx.algorithms.bipartite.tests.test_matching",
    "networkx.algorithms.bipartite.tests.test_covering",
    "networkx.algorithms.community.tests.test_louvain",
    "networkx.algorithms.community.tests.test_leiden",
    "networkx.algorithms.community.tests.test_quality",
    "networkx.algorithms.tests.test_matching",
    "networkx.algorithms.approximation.tests.test_matching",
)
