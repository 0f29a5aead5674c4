"""Graphs from other libraries, and results in their shapes: the one place where networkx,
igraph and pandas objects become the CSR arrays every family takes.

Inputs (:func:`foreign_graph`, called by the input path of every family):

* a networkx ``Graph``/``DiGraph``/``MultiGraph``/``MultiDiGraph``: the adjacency in the graph's
  node order (``nodes``), read from its dict-of-dicts by one vectorised walk
  (:class:`NetworkxAdjacency`, in place of ``networkx.to_scipy_sparse_array``);
  weights from an edge attribute (1 where missing), parallel edges of a multigraph summed, a
  self-loop stored once on the diagonal (networkx's and scipy's convention);
* an ``igraph.Graph``: its edge list, weights from an edge attribute, the vertex attribute
  ``name`` (or ``_nx_name``) as the node labels where the graph has one;
* a ``pandas.DataFrame`` edge list: columns ``source``, ``target`` and optionally ``weight``;
  for the undirected families each row is an undirected edge and a pair given again (in either
  direction) keeps the weight of its last row, as ``networkx.from_pandas_edgelist`` builds a
  ``Graph``; node labels are the sorted distinct values of the two columns. For the bipartite
  family (:func:`bipartite_edges`) ``source`` holds row ids and ``target`` column ids;
* a :class:`pyclmatch.nxbackend.PyclGraph` (a graph converted for the networkx backend): its
  CSR as it is, converted once.

Results (networkx's and igraph's shapes): :func:`matching_dict`, :func:`matching_edges`,
:func:`community_sets`, :func:`vertex_clustering`.

None of networkx, igraph and pandas is a dependency: each is used only when the object handed
in comes from it (its module is then imported already).
"""
from collections import namedtuple
from itertools import chain, islice, repeat
import marshal
from operator import methodcaller
import sys

import numpy as np
import scipy.sparse as sp

from .engine import args, limits
from .errors import InputError

#: what a user calls; the conversions below them serve the families' input paths
__all__ = ["is_networkx", "is_igraph", "is_dataframe", "is_backend_graph", "foreign_graph",
           "matching_dict", "matching_edges", "community_sets", "membership_sets",
           "group_order", "vertex_clustering"]

INDEX_MAX = np.iinfo(np.int32).max

#: ``csr``: scipy CSR matrix (canonical: sorted indices, no duplicates) in the order of
#: ``nodes`` (the node labels, or None where the vertices are just 0..n-1); ``directed``:
#: whether the rows are out-edges of a directed graph (otherwise the matrix is symmetric).
ForeignGraph = namedtuple("ForeignGraph", "csr nodes directed")


def _module_type(G, module, name):
    mod = sys.modules.get(module)
    return mod is not None and isinstance(G, getattr(mod, name, ()))


def is_networkx(G):
    """Whether ``G`` is a networkx graph (any of the four classes or a subclass).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.interop import is_networkx
    >>> is_networkx(nx.path_graph(3)), is_networkx([(0, 1)])
    (True, False)
    """
    return _module_type(G, "networkx", "Graph")


def is_igraph(G):
    """Whether ``G`` is an ``igraph.Graph`` (False when igraph was never imported).

    Examples
    --------
    >>> from pyclmatch.interop import is_igraph
    >>> is_igraph([(0, 1)])
    False
    """
    return _module_type(G, "igraph", "Graph")


def is_dataframe(G):
    """Whether ``G`` is a ``pandas.DataFrame`` (False when pandas was never imported).

    Examples
    --------
    >>> from pyclmatch.interop import is_dataframe
    >>> is_dataframe({"source": [0], "target": [1]})
    False
    """
    return _module_type(G, "pandas", "DataFrame")


def is_backend_graph(G):
    """Whether ``G`` is a graph of pyclmatch's networkx backend (:mod:`pyclmatch.nxbackend`).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.interop import is_backend_graph
    >>> from pyclmatch.nxbackend import from_networkx
    >>> G = nx.path_graph(3)
    >>> is_backend_graph(G), is_backend_graph(from_networkx(G))
    (False, True)
    """
    return getattr(type(G), "__networkx_backend__", None) == "pyclmatch"


def foreign_graph(G, weight="weight", fits=None):
    """``G`` as a :data:`ForeignGraph` when it is a networkx or igraph graph, a pandas edge
    list or a pyclmatch backend graph; ``None`` for anything else (scipy matrices, arrays,
    edge tuples: the families' own paths). ``weight``: the edge attribute (networkx, igraph,
    backend graph) or column (DataFrame) holding the weights, ``None`` for 1 on every edge.

    The sizes are checked before the conversion allocates anything proportional to them:
    by ``fits(n, nnz, host)`` (a family's declared-size check, with the conversion's host
    arrays in ``host``) when given, else the conversion's host arrays against the host's
    memory (:func:`pyclmatch.engine.limits.check`). ``nnz`` is the number of stored entries
    (an upper bound for igraph graphs and edge lists, whose repeated edges merge later).

    Examples
    --------
    >>> import networkx as nx
    >>> from pyclmatch.interop import foreign_graph
    >>> fg = foreign_graph(nx.path_graph(["a", "b", "c"]))
    >>> fg.csr.toarray().tolist(), list(fg.nodes)
    ([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], ['a', 'b', 'c'])
    >>> foreign_graph([(0, 1)]) is None
    True
    """
    args.attribute("weight", weight)
    refuse_masked(G)
    if is_backend_graph(G):
        if fits is not None:
            fits(G.n, G.nnz, {})
        return ForeignGraph(G.csr(weight), G.node_list, G.is_directed())
    if is_networkx(G):
        csr, nodes = networkx_csr(G, weight, fits=fits)
        return ForeignGraph(csr, nodes, G.is_directed())
    if is_igraph(G):
        return igraph_csr(G, weight, fits=fits)
    if is_dataframe(G):
        return dataframe_csr(G, weight=weight, fits=fits)
    return None


# --------------------------------------------------------------------------- networkx
class NetworkxAdjacency:
    """One walk of a networkx graph's adjacency (its ``_adj`` dict of dicts: successors of a
    directed graph), in node order: ``nodes``, ``indptr`` and ``indices`` (int32 where they
    fit) of the CSR the dicts hold, each list in the dict's order, and :meth:`values` for the
    weights of any edge attribute in the same order. :meth:`csr` sorts the lists (scipy's
    compiled per-row sort, skipped when they are sorted already).

    The walk is a few C-level passes (``numpy.fromiter`` over chained dict iterators) and no
    Python code per entry. Neighbour labels become positions by the cheapest exact rule:
    none when the labels are the ints 0..n-1 in order (``ids_are_labels``); for other integer
    labels, a look-up table (or a binary search) over the label values; for any other labels,
    the neighbour's object identity (networkx stores the node objects it was given, so a
    neighbour key is usually the node key object itself), a dict look-up only for the keys
    that are equal but not identical objects. An undirected edge is in both lists already (a
    self-loop once), so nothing is symmetrized.

    ``fits(n, nnz, host)``, when given, is called with the sizes (read off the dicts' lengths)
    before anything proportional to the entries is allocated
    (:func:`pyclmatch.engine.limits.check`); otherwise the conversion's own host arrays are
    checked against the host's memory there. ``rows`` (node positions: a ``range`` or an
    int array): walk only their adjacency dicts (a bipartite graph's one side), the rows of
    the CSR in that order; ``nodes``: the graph's node list when the caller holds it already;
    ``ids_are_labels``: what the caller knows of the labels (True: they are the Python ints
    0..n-1; None: checked here).
    """

    def __init__(self, G, fits=None, rows=None, ids_are_labels=None, nodes=None):
        adj = getattr(G, "_adj", None)
        if not isinstance(adj, dict):
            adj = {u: dict(nbrs) for u, nbrs in G.adj.items()}
        self.adj = adj
        self.multigraph = bool(G.is_multigraph())
        self.directed = bool(G.is_directed())
        # plain dicts inside (networkx's default factories): their C methods are mapped directly
        self._plain = all(getattr(G, f, dict) is dict for f in (
            "adjlist_inner_dict_factory", "edge_attr_dict_factory", "edge_key_dict_factory"))
        nodes = list(adj) if nodes is None else nodes
        n = len(nodes)
        # the adjacency dicts walked: every node's, or those at the positions ``rows`` (then
        # the CSR has one row per position, its columns still the positions of all nodes)
        self.row_dicts = list(adj.values()) if rows is None else \
            _dicts_at(adj, rows, nodes)
        self.nodes, self.n = nodes, n
        self.ids_are_labels = False
        if n > INDEX_MAX:
            _too_large(n, 0)
        if fits is None and n and (ids_are_labels if ids_are_labels is not None
                                   else labels_are_ids(nodes)):
            walked = self._walk_ids()
        else:
            walked = None
        if walked is not None:
            deg, self.indices = walked
            self.ids_are_labels = True
        else:
            deg = np.fromiter(map(len, self.row_dicts), np.int64, len(self.row_dicts))
        indptr = np.zeros(deg.size + 1, np.int64)
        np.cumsum(deg, out=indptr[1:])
        nnz = self.nnz = int(indptr[-1])
        if nnz > INDEX_MAX:
            _too_large(n, nnz)
        self.indptr = indptr.astype(np.int32)
        if walked is None:
            _check_conversion(fits, n, nnz, "networkx graph")
            self.indices = self._indices(ids_are_labels)
        self._order = False      # not computed yet (None: the lists are sorted already)

    #: rows per chunk of :meth:`_walk_ids` (their dicts stay in the CPU's caches between
    #: the two passes over them)
    CHUNK_ROWS = 4096

    def _walk_ids(self):
        """``(degrees, positions)`` of the walked rows of a graph whose labels are the ids
        0..n-1 (the neighbour keys are the positions), or None when a key is not one (the
        caller then takes the general path). Read chunk by chunk, the sizes of a chunk's
        dicts and then their keys, so the dicts are still in the CPU's caches for the second
        pass. The conversion's host memory is checked
        as the entries grow: before the first chunk's keys are read, then whenever the
        entries have doubled since the last check (:func:`_check_conversion`'s estimate, 24
        bytes per entry, is three times what the walk holds per entry, so the walk never
        holds more than the memory last found available)."""
        dicts, n = self.row_dicts, self.n
        k = len(dicts)
        deg = np.empty(k, np.int64)
        parts, total, checked = [], 0, -1
        step = self.CHUNK_ROWS
        for a in range(0, k, step):
            chunk = dicts[a:a + step]
            d = deg[a:a + len(chunk)]
            d[:] = np.fromiter(map(len, chunk), np.int64, len(chunk))
            m = int(d.sum())
            total += m
            if total > INDEX_MAX:
                _too_large(n, total)
            if total > checked:           # (the first chunk, then every doubling)
                _check_conversion(None, n, total, "networkx graph")
                checked = 2 * total
            try:                          # (a key equal to a node, 1.0 or True, is its int)
                parts.append(np.fromiter(chain.from_iterable(chunk), np.int32, m))
            except (TypeError, ValueError, OverflowError):
                return None
        pos = np.concatenate(parts) if parts else np.zeros(0, np.int32)
        if pos.size and (int(pos.min()) < 0 or int(pos.max()) >= n):
            return None
        return deg, pos

    def _keys(self):
        return chain.from_iterable(self.row_dicts)

    def _indices(self, ids_are_labels=None):
        n, nnz = self.n, self.nnz
        if n == 0:
            self.ids_are_labels = True
            return np.zeros(0, np.int32)
        if ids_are_labels is None:
            ids_are_labels = labels_are_ids(self.nodes)
        if ids_are_labels:          # the keys are the positions: no look-up
            try:               # (a key equal to a node, 1.0 or True, is that node's int)
                pos = np.fromiter(self._keys(), np.int32, nnz)
            except (TypeError, ValueError, OverflowError):
                pos = None
            if pos is not None and (nnz == 0 or (pos.min() >= 0 and pos.max() < n)):
                self.ids_are_labels = True
                return pos
        types = set(map(type, self.nodes))
        lab = _int_labels(self.nodes, types, False)
        if lab is not None:
            try:
                keys = np.fromiter(self._keys(), np.int64, nnz)
            except (TypeError, ValueError, OverflowError):
                keys = None
            if keys is not None:
                if lab[0] == 0 and lab[-1] == n - 1 and (n < 2 or bool(
                        (lab[1:] - lab[:-1] == 1).all())):
                    self.ids_are_labels = types == {int}
                    pos = keys                           # labels are the ids: no look-up
                else:
                    pos = _positions_of_values(lab, keys)
                if pos is not None and (nnz == 0 or (pos.min() >= 0 and pos.max() < n)):
                    return pos.astype(np.int32)
        return self._indices_by_identity()

    def _indices_by_identity(self):
        """Positions of the neighbour keys by object identity (``id``), the keys that are
        not the node objects themselves (equal labels built anew) by the node index."""
        n, nnz = self.n, self.nnz
        keys = list(self._keys())
        pos = None
        sample = keys[:1000]
        if sample:
            node_ids = np.fromiter(map(id, self.nodes), np.intp, n)
            order = np.argsort(node_ids)
            sorted_ids = node_ids[order]
            probe = np.fromiter(map(id, sample), np.intp, len(sample))
            at = np.minimum(np.searchsorted(sorted_ids, probe), n - 1)
            if 2 * int(np.count_nonzero(sorted_ids[at] == probe)) >= len(sample):
                ids = np.fromiter(map(id, keys), np.intp, nnz)
                at = np.minimum(np.searchsorted(sorted_ids, ids), n - 1)
                hit = sorted_ids[at] == ids
                pos = order[at].astype(np.int32)
                miss = np.flatnonzero(~hit)
                if miss.size:
                    index, get = self.index(), keys.__getitem__
                    pos[miss] = np.fromiter(map(index.__getitem__, map(get, miss.tolist())),
                                            np.int32, miss.size)
        if pos is None:
            index = self.index()
            pos = np.fromiter(map(index.__getitem__, keys), np.int32, nnz)
        return pos

    def _datadicts(self):
        """The edge data of every adjacency entry, in CSR order (key dicts of a multigraph)."""
        values = dict.values if self._plain else methodcaller("values")
        return chain.from_iterable(map(values, self.row_dicts))

    def values(self, weight="weight", default=1.0):
        """Per-entry values of the edge attribute ``weight`` (``default`` where missing) as
        float64, in the walk's order; ``weight=None``: 1 per edge (int8), or for a
        multigraph the number of parallel edges (int32), as networkx counts them."""
        nnz = self.nnz
        if self.multigraph:
            if weight is None:
                return np.fromiter(map(len, self._datadicts()), np.int32, nnz)
            get = methodcaller("get", weight, default)
            it = (sum(map(get, kd.values())) for kd in self._datadicts())
        elif weight is None:
            return np.ones(nnz, np.int8)
        elif not any(self._datadicts()):   # no edge has any attribute (one C pass)
            return np.full(nnz, default, np.float64)
        else:
            get = dict.get if self._plain else (lambda d, k, v: d.get(k, v))
            it = map(get, self._datadicts(), repeat(weight), repeat(default))
        try:
            return np.fromiter(it, np.float64, nnz)
        except (TypeError, ValueError) as exc:
            raise InputError(f"edge attribute {weight!r} must hold numbers: {exc}") from None

    @property
    def order(self):
        """The permutation that sorts every list (None when they are sorted already)."""
        if self._order is False:
            ind, ptr = self.indices, self.indptr
            if self.nnz < 2:
                self._order = None
            else:
                up = ind[1:] > ind[:-1]
                up[ptr[1:-1][(ptr[1:-1] > 0) & (ptr[1:-1] < self.nnz)] - 1] = True
                if up.all():
                    self._order = None
                else:      # scipy's per-row sort carries the positions along as the data
                    M = sp.csr_matrix((np.arange(self.nnz, dtype=np.int32), ind, ptr),
                                      shape=(ptr.size - 1, self.n))
                    M.sort_indices()
                    self._order = M.data
                    self._sorted_indices = M.indices
        return self._order

    @property
    def sorted_indices(self):
        return self.indices if self.order is None else self._sorted_indices

    def sorted_values(self, weight="weight", default=1.0):
        v = self.values(weight, default)
        return v if self.order is None else v[self.order]

    def csr(self, weight="weight", default=1.0):
        """Canonical scipy CSR (sorted lists, scipy's canonical flag set) of ``weight``."""
        return canonical_csr(self.sorted_values(weight, default), self.sorted_indices,
                             self.indptr, self.n)

    def index(self):
        """node -> position (dict; built once)."""
        idx = getattr(self, "_index", None)
        if idx is None:
            idx = self._index = dict(zip(self.nodes, range(self.n)))
        return idx


def _too_large(n, nnz):
    raise InputError(f"the graph has {n} nodes and {nnz} adjacency entries; pyclmatch "
                     f"supports up to 2**31-1 of each")


def canonical_csr(data, indices, indptr, n):
    """A square scipy CSR matrix over arrays known canonical (sorted lists, no duplicate),
    flagged so (scipy and pyclmatch's intakes then skip their O(nnz) checks)."""
    A = sp.csr_matrix((data, indices, indptr), shape=(n, n), copy=False)
    A.has_canonical_format = True
    return A


def _dicts_at(adj, rows, nodes):
    """The adjacency dicts of the nodes at the positions ``rows`` (a ``range`` of step 1 or
    an int array) of the dict ``adj`` whose keys are ``nodes`` (in that order). A run of
    consecutive positions that starts early enough is read straight off ``adj``'s values
    (``islice``: no look-up, about half the time of one per node; skipping an entry costs
    about as much as reading one); otherwise one look-up per row by the node's own label
    object."""
    if isinstance(rows, range) and rows.step == 1:
        a, b = rows.start, max(rows.start, rows.stop)
    else:
        rows = np.asarray(rows, np.int64)
        a = int(rows[0]) if rows.size else 0
        b = a + rows.size
        if rows.size and not bool((np.diff(rows) == 1).all()):
            return list(map(adj.__getitem__, map(nodes.__getitem__, rows.tolist())))
    if a <= b - a and len(adj) == len(nodes):
        return list(islice(adj.values(), a, b))
    return list(map(adj.__getitem__, nodes[a:b]))


def labels_are_ids(nodes):
    """Whether the labels ``nodes`` (a list) are the Python ints 0..n-1 in order: the ends
    first, then one C-level pass (:func:`exact_int32_values`) and one comparison."""
    n = len(nodes)
    if n == 0:
        return True
    first, last = nodes[0], nodes[-1]
    if type(first) is not int or type(last) is not int or first != 0 or last != n - 1:
        return False
    lab = exact_int32_values(nodes)
    return lab is not None and bool((lab == np.arange(n, dtype=np.int32)).all())


#: one element of ``marshal.dumps(container, 2)`` that is a Python int (exactly ``int``) in
#: the int32 range: the type code ``i`` and the value, 4 bytes little-endian
_MARSHAL_INT = np.dtype([("code", "u1"), ("value", "<i4")])
#: marshal's type codes of the containers :func:`exact_int32_values` reads (list, tuple, set,
#: frozenset), each followed by a 4-byte element count
_MARSHAL_SEQ = {list: ord("["), tuple: ord("("), set: ord("<"), frozenset: ord(">")}


def exact_int32_values(values):
    """The elements of the list, tuple, set or frozenset ``values`` (in iteration order) as
    int32 (a read-only view of marshal's bytes) when every one is a Python int (exactly
    ``int``: not a bool, a numpy integer or another subclass) in the int32 range; None
    otherwise.

    One C-level pass: ``marshal.dumps(values, 2)`` writes every such int as the same five
    bytes (code ``i``, value) and anything else differently (``T``/``F`` for bools, ``l`` for
    larger ints, other codes for floats and strings, an error for numpy scalars), so the
    bytes are the answer once every element is seen to be one of those five-byte records
    (cheaper than checking the types and converting with ``numpy.fromiter``)."""
    code = _MARSHAL_SEQ.get(type(values))
    if code is None:
        return None
    k = len(values)
    try:
        b = marshal.dumps(values, 2)     # (format 2: no back-references between objects)
    except (ValueError, TypeError):      # an object marshal cannot write: not an int
        return None
    if len(b) != 5 + 5 * k or b[0] != code or int.from_bytes(b[1:5], "little") != k:
        return None
    rec = np.frombuffer(b, _MARSHAL_INT, k, 5)
    if not bool((rec["code"] == ord("i")).all()):
        return None
    return rec["value"]


def _integer_labels(nodes, exact=False):
    """The labels as int64 when every one is a Python or numpy integer (bool included: it
    is the int it equals; ``exact``: Python ints only, the objects ``tolist`` gives back),
    else None."""
    return _int_labels(nodes, set(map(type, nodes)), exact)


def _int_labels(nodes, types, exact):
    for t in types:
        if t is not int and (exact or not issubclass(t, (int, np.integer))
                             or issubclass(t, np.uint64)):
            return None
    try:
        return np.fromiter(nodes, np.int64, len(nodes))
    except (TypeError, ValueError, OverflowError):
        return None


def _positions_of_values(lab, keys):
    """Position in ``lab`` (distinct int64 labels) of every value of ``keys``: a look-up
    table when the labels are small non-negative ints, else a binary search; None when a
    key is not a label (then the caller takes the exact dict path)."""
    n = lab.size
    lo, hi = int(lab.min()), int(lab.max())
    if keys.size and (int(keys.min()) < lo or int(keys.max()) > hi):
        return None
    if lo >= 0 and hi < 4 * n + 1024:
        table = np.full(hi + 1, -1, np.int64)
        table[lab] = np.arange(n)
        return table[keys]
    order = np.argsort(lab, kind="stable")
    srt = lab[order]
    at = np.minimum(np.searchsorted(srt, keys), n - 1)
    if not bool((srt[at] == keys).all()):
        return None
    return order[at]


def _check_conversion(fits, n, nnz, what, nnz_text="adjacency entries"):
    """The declared-size check of a conversion of ``n`` nodes and ``nnz`` stored entries,
    before its arrays are allocated: the family's ``fits(n, nnz, host)`` when given (its
    device footprint and these host arrays), else the host arrays against the host's
    memory."""
    host = {f"{what} conversion": (n + 1) * 8 + nnz * 24}
    if fits is not None:
        fits(n, nnz, host)
        return
    limits.check(None, f"converting a {what}", limits.sizes_text(n, nnz=nnz,
                 entries=nnz_text), host=host)


def networkx_csr(G, weight="weight", default=1.0, fits=None):
    """``(csr, nodes)``: the adjacency matrix of the networkx graph ``G`` in its node order,
    as ``networkx.to_scipy_sparse_array(G, weight=weight)`` builds it (missing attributes
    count ``default``, a multigraph's parallel edges are summed, an undirected self-loop is
    one diagonal entry), canonical, int32 indices; ``weight=None`` gives int8 ones (the
    edge count between two nodes for a multigraph). ``fits``: see :func:`foreign_graph`."""
    walk = NetworkxAdjacency(G, fits)
    return walk.csr(weight, default), walk.nodes


# --------------------------------------------------------------------------- igraph
def igraph_csr(g, weight="weight", fits=None):
    """:data:`ForeignGraph` of an ``igraph.Graph``: the (symmetric, unless directed) adjacency
    with multi-edges summed and a self-loop stored once on the diagonal, weights from the edge
    attribute ``weight`` (1 where the graph has no such attribute), node labels from the
    vertex attribute ``name`` (or ``_nx_name``, set by ``igraph.Graph.from_networkx``)
    where present. ``fits``: see :func:`foreign_graph`."""
    n = g.vcount()
    m = g.ecount()
    _check_conversion(fits, n, 2 * m, "igraph graph", "stored entries")
    el = np.asarray(g.get_edgelist(), np.int64).reshape(-1, 2)
    if weight is not None and weight in g.es.attributes():
        w = _numeric(g.es[weight], f"edge attribute {weight!r}")
    else:
        w = np.ones(el.shape[0], np.float64)
    names = [a for a in ("name", "_nx_name") if a in g.vs.attributes()]
    nodes = list(g.vs[names[0]]) if names else None
    directed = bool(g.is_directed())
    return ForeignGraph(_edges_csr(el[:, 0], el[:, 1], w, n, directed, sum_repeats=True),
                        nodes, directed)


def _numeric(values, what):
    try:
        a = np.asarray(values, np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{what} must hold numbers") from None
    if a.ndim != 1:
        raise InputError(f"{what} must hold one number per edge")
    return a


def _edges_csr(u, v, w, n, directed, sum_repeats):
    """Canonical CSR of the edges ``(u[i], v[i], w[i])``: directed as given, undirected
    mirrored (a self-loop once). Repeated pairs (an undirected pair in either direction) are
    summed (``sum_repeats``) or keep the weight of their last occurrence."""
    if u.size > INDEX_MAX // 2 or n > INDEX_MAX:
        raise InputError("the graph exceeds the 2**31-1 entries pyclmatch supports")
    if not directed:
        u, v = np.minimum(u, v), np.maximum(u, v)
    if not sum_repeats and u.size:
        key = u * np.int64(n) + v
        _, last = np.unique(key[::-1], return_index=True)
        keep = np.sort(u.size - 1 - last)
        u, v, w = u[keep], v[keep], w[keep]
    if not directed:
        off = u != v
        u, v, w = (np.concatenate([u, v[off]]), np.concatenate([v, u[off]]),
                   np.concatenate([w, w[off]]))
    A = sp.csr_matrix((w, (u, v)), shape=(n, n))
    A.sum_duplicates()
    A.indices = A.indices.astype(np.int32, copy=False)
    A.indptr = A.indptr.astype(np.int32, copy=False)
    return A


def is_edge_tuple(G, sizes):
    """Whether ``G`` is a tuple of edge arrays: a ``tuple`` (never a list: a list of rows is
    a dense matrix) of ``len(G)`` in ``sizes`` whose first item is 1-D and not sparse. The
    one rule of every family: ``(rows, cols[, shape])`` for the bipartite family, ``(u, v,
    w[, n])`` for the weighted ones, ``(u, v[, w[, n]])`` for Louvain.

    Examples
    --------
    >>> import numpy as np
    >>> is_edge_tuple((np.array([0]), np.array([1])), (2, 3)), is_edge_tuple([[0, 1]], (2,))
    (True, False)
    """
    return isinstance(G, tuple) and len(G) in sizes and not sp.issparse(G[0]) and \
        np.ndim(G[0]) == 1


def undirected_pairs(u, v, w=None, n=None, fits=None):
    """The undirected edges of edge arrays ``(u, v, w)``, as ``(n, a, b, w)`` with ``a <=
    b``, each pair once, sorted by ``(a, b)``: ids non-negative integers below ``n``
    (default: the largest id + 1); ``w`` numeric and 1-D (default 1; ints summed as int64,
    others as float64). Each undirected edge is given once, or in both directions with the
    same weight; entries repeated in the same direction are summed first (as scipy sums a
    COO matrix's duplicates); a self-loop ``(a, a)`` is kept once. Errors name ``G`` (``n``
    when it contradicts the ids). ``fits(n, m)``, when given, is called with the sizes
    before the conversion allocates anything proportional to ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> n, a, b, w = undirected_pairs(np.array([1, 0, 1]), np.array([0, 1, 2]))
    >>> n, a.tolist(), b.tolist(), w.tolist()
    (3, [0, 1], [1, 2], [1, 1])
    """
    u, v = args.vertex_ids("u", u, "G"), args.vertex_ids("v", v, "G")
    w = np.ones(u.size, np.int64) if w is None else np.asarray(w)
    if w.ndim != 1:
        raise InputError(f"the weights w (the edge tuple's third array) must be 1-D, got "
                         f"shape {w.shape}", argument="G")
    if w.dtype.kind not in "biuf":
        raise InputError(f"the weights w must be numbers, got dtype {w.dtype}", argument="G")
    if not (u.size == v.size == w.size):
        raise InputError(f"u, v, w differ in length ({u.size}, {v.size}, {w.size})",
                         argument="G")
    hi = int(max(u.max(), v.max())) + 1 if u.size else 0
    n = hi if n is None else n
    if n < hi:
        raise InputError(f"vertex id {hi - 1} of the edge arrays is out of range for n={n}: "
                         f"ids must be < n", argument="n")
    if n > INDEX_MAX or u.size > INDEX_MAX // 2:
        raise InputError(f"n={n} vertices or {u.size} edges exceed the 2**31-1 supported",
                         argument="n" if n > INDEX_MAX else "G")
    if fits is not None:
        fits(n, u.size)
    D = sp.csr_matrix((w.astype(np.int64 if w.dtype.kind in "biu" else np.float64), (u, v)),
                      shape=(n, n))
    D.sum_duplicates()                       # (repeats in the same direction summed)
    D = D.tocoo()
    r, c, w = np.asarray(D.row, np.int64), np.asarray(D.col, np.int64), D.data
    key = np.minimum(r, c) * n + np.maximum(r, c)
    order = np.argsort(key, kind="stable")
    key, w = key[order], w[order]
    first = np.ones(key.size, bool)
    first[1:] = key[1:] != key[:-1]
    if not first.all():                      # given in both directions: the same weight
        grp = np.cumsum(first) - 1
        wf = w[first]
        if np.any(w != wf[grp]):
            k = int(np.flatnonzero(w != wf[grp])[0])
            raise InputError(f"edge ({int(key[k] // n)}, {int(key[k] % n)}) is given in both "
                             f"directions with different weights ({wf[grp[k]]!r} and "
                             f"{w[k]!r})", argument="G")
        key, w = key[first], wf
    return n, key // n, key % n, w


def mirrored_csr(n, a, b, w):
    """The symmetric CSR of the pairs of :func:`undirected_pairs` (a self-loop once, on the
    diagonal).

    Examples
    --------
    >>> import numpy as np
    >>> mirrored_csr(2, np.array([0]), np.array([1]), np.array([5.0])).toarray().tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    off = a != b
    A = sp.csr_matrix((np.concatenate([w, w[off]]),
                       (np.concatenate([a, b[off]]), np.concatenate([b, a[off]]))),
                      shape=(n, n))
    A.sum_duplicates()
    return A


# --------------------------------------------------------------------------- pandas
def dataframe_csr(df, source="source", target="target", weight="weight", fits=None):
    """:data:`ForeignGraph` of a pandas edge list (undirected): node labels are the sorted
    distinct values of ``source`` and ``target`` (first-seen order where they cannot be
    sorted), weights from the column ``weight`` when the frame has it (else 1); a pair given
    more than once, in either direction, keeps the weight of its last row. ``fits``: see
    :func:`foreign_graph` (called with the exact node count before the CSR is built; the
    host's memory is checked for two nodes and two stored entries per row before anything
    is read)."""
    import pandas as pd
    rows = len(df)
    _check_conversion(None, 2 * rows, 2 * rows, "edge-list DataFrame", "stored entries")
    src, dst = _columns(df, source, target)
    try:
        codes, labels = pd.factorize(np.concatenate([src, dst]), sort=True)
    except TypeError:          # labels of mixed types: first-seen order
        codes, labels = pd.factorize(np.concatenate([src, dst]), sort=False)
    if (codes < 0).any():
        raise InputError(f"the {source!r}/{target!r} columns hold missing values (NaN/None)")
    m = src.size
    if weight is not None and weight in df.columns:
        w = _numeric(df[weight].to_numpy(), f"column {weight!r}")
    else:
        w = np.ones(m, np.float64)
    codes = codes.astype(np.int64)
    if fits is not None:
        fits(len(labels), 2 * m, {"edge-list conversion": m * 48 + len(labels) * 8})
    A = _edges_csr(codes[:m], codes[m:], w, len(labels), False, sum_repeats=False)
    return ForeignGraph(A, labels.tolist(), False)


def _columns(df, source, target):
    missing = [c for c in (source, target) if c not in df.columns]
    if missing:
        raise InputError(f"the edge-list DataFrame needs columns {source!r} and {target!r} "
                         f"(missing: {', '.join(map(repr, missing))}); rename them or pass "
                         f"the arrays")
    return df[source].to_numpy(), df[target].to_numpy()


def refuse_masked(G):
    """Refuse a numpy masked array (its mask would be dropped silently by the conversion to
    a matrix): the caller says which entries are edges with ``G.filled(0)``.

    Examples
    --------
    >>> import numpy as np
    >>> try:
    ...     refuse_masked(np.ma.array(np.eye(2), mask=np.eye(2)))
    ... except ValueError as exc:
    ...     print(str(exc).split(";")[0])
    a masked array: its mask is not a graph's
    """
    if np.ma.isMaskedArray(G):
        raise InputError("a masked array: its mask is not a graph's; pass G.filled(0) (masked "
                         "entries as no edge) or G.data (every entry as given)")


def bipartite_edges(A):
    """For the bipartite family: a pandas edge list becomes the edge arrays ``(rows, cols)``
    (column ``source`` = row ids, ``target`` = column ids: non-negative integers; the shape is
    one more than the largest id of each side); any other input is returned as it is."""
    refuse_masked(A)
    if not is_dataframe(A):
        return A
    src, dst = _columns(A, "source", "target")
    for name, a in (("source", src), ("target", dst)):
        if a.dtype.kind not in "iu":
            raise InputError(f"the bipartite family takes integer row ids in 'source' and "
                             f"column ids in 'target'; column {name!r} has dtype {a.dtype} "
                             f"(number the labels first, e.g. with pandas.factorize)")
    return (src, dst)


# --------------------------------------------------------------------------- results
def _labels(nodes, n, name="nodes"):
    """Object array of node labels (tuples stay whole), or ids 0..n-1; ``nodes`` must hold
    ``n`` labels (any sized iterable but a string or a mapping)."""
    if nodes is None:
        return np.arange(n)
    if isinstance(nodes, (str, bytes, dict, np.generic)) or not hasattr(nodes, "__len__") \
            or not hasattr(nodes, "__iter__") or (isinstance(nodes, np.ndarray)
                                                 and nodes.ndim != 1):
        args.refuse(name, nodes, f"None or a sequence of {n} labels")
    if len(nodes) != n:
        raise InputError(f"{name} holds {len(nodes)} labels: it must hold {n}, one per "
                         f"vertex", argument=name)
    if isinstance(nodes, np.ndarray) and nodes.dtype == object:
        return nodes
    return np.fromiter(nodes, dtype=object, count=n)


def _result_of(name, res, fields, what):
    """Refuse ``res`` unless it carries every attribute of ``fields`` (a result of ``what``)."""
    if not all(hasattr(res, f) for f in fields):
        args.refuse(name, res, what)
    return res


def matching_dict(res, row_labels=None, col_labels=None):
    """A matching as networkx returns it: ``{u: v, v: u}`` for every matched pair.

    ``res`` is a :class:`~pyclmatch.MatchingResult` (bipartite: rows are ``row_labels``,
    default ``0..n_rows-1``, columns ``col_labels``, default ``n_rows..n_rows+n_cols-1`` as
    ``networkx.bipartite.from_biadjacency_matrix`` numbers them; one label per row and per
    column) or a weighted matching result (its node labels for networkx input, else the
    vertex ids; ``row_labels`` and ``col_labels`` are refused there).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from pyclmatch import maximum_matching, matching_dict
    >>> res = maximum_matching(sp.csr_matrix([[1, 1], [0, 1]]))
    >>> matching_dict(res)
    {0: 2, 1: 3, 2: 0, 3: 1}
    >>> matching_dict(res, row_labels=["a", "b"], col_labels=["x", "y"])
    {'a': 'x', 'b': 'y', 'x': 'a', 'y': 'b'}
    """
    pairs = _pairs(res, row_labels, col_labels)
    return dict(chain(pairs, ((b, a) for a, b in pairs)))


def matching_edges(res, row_labels=None, col_labels=None):
    """A matching as a set of edges ``(u, v)``, as ``networkx.maximal_matching`` returns it:
    ``(row, column)`` for a bipartite result, ``u < v`` (by id) for a weighted one. Labels as
    in :func:`matching_dict`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from pyclmatch import maximum_matching, weighted_matching, matching_edges
    >>> sorted(matching_edges(maximum_matching(sp.csr_matrix([[1, 1], [0, 1]]))))
    [(0, 2), (1, 3)]
    >>> W = sp.csr_matrix([[0, 2.0, 0], [2.0, 0, 1.0], [0, 1.0, 0]])
    >>> matching_edges(weighted_matching(W))
    {(0, 1)}
    """
    return set(_pairs(res, row_labels, col_labels))


def _pairs(res, row_labels, col_labels):
    if hasattr(res, "row_match") and hasattr(res, "col_match"):
        rm = np.asarray(res.row_match)
        nr, nc = rm.size, np.asarray(res.col_match).size
        r = np.flatnonzero(rm >= 0)
        rl = _labels(row_labels, nr, "row_labels") if row_labels is not None else \
            np.arange(nr)
        cl = _labels(col_labels, nc, "col_labels") if col_labels is not None else \
            np.arange(nr, nr + nc)
        return list(zip(rl[r].tolist(), cl[rm[r]].tolist()))
    _result_of("res", res, ("mate",), "a matching result (maximum_matching, "
               "weighted_matching)")
    for name, lab in (("row_labels", row_labels), ("col_labels", col_labels)):
        if lab is not None:
            args.refuse(name, lab, "None for a weighted matching (its labels are the "
                        "input's nodes)")
    mate = np.asarray(res.mate)
    u = np.flatnonzero(mate > np.arange(mate.size))
    lab = _labels(getattr(res, "nodes", None), mate.size)
    return list(zip(lab[u].tolist(), lab[mate[u]].tolist()))


def community_sets(res):
    """Louvain communities as networkx returns them: a list of sets of node labels (of the
    vertex ids where the input had none), community ``c`` at position ``c``.

    Examples
    --------
    Two disjoint triangles:

    >>> import numpy as np, scipy.sparse as sp
    >>> from pyclmatch import louvain, community_sets
    >>> A = sp.csr_matrix(np.kron(np.eye(2), np.ones((3, 3)) - np.eye(3)))
    >>> sorted(map(sorted, community_sets(louvain(A, seed=1))))
    [[0, 1, 2], [3, 4, 5]]
    """
    _result_of("res", res, ("membership", "n_communities", "nodes"), "a louvain result")
    return membership_sets(res.membership, res.n_communities, res.nodes)


def _group_ids(name, labels, k):
    """``labels`` as a 1-D integer array of values in ``[0, k-1]`` (``k`` None: below
    2**31 - 1), checked without a copy where it is an integer array already."""
    a = labels
    if not (isinstance(a, np.ndarray) and a.ndim == 1 and a.dtype.kind in "iu"):
        a = args.integer_array(name, labels, low=0)
    hi = args.INT32_MAX if k is None else k
    if a.size and (int(a.min()) < 0 or int(a.max()) >= hi):
        args.integer_array(name, a, low=0, high=hi - 1)     # (raises, naming the value)
    return a


def membership_sets(membership, k=None, nodes=None):
    """The list of ``k`` sets (community c at position c) of a membership array, holding
    the labels ``nodes`` (ids where None). One sort, then one C-level set per community.

    ``membership``: one community id per vertex, in ``[0, k-1]``; ``k``: the number of
    communities (None: the largest id + 1; a community without a vertex is an empty set);
    ``nodes``: one label per vertex.

    Examples
    --------
    >>> from pyclmatch.interop import membership_sets
    >>> membership_sets([1, 0, 1, 0])
    [{1, 3}, {0, 2}]
    >>> [sorted(c) for c in membership_sets([1, 0, 1], nodes=["a", "b", "c"])]
    [['b'], ['a', 'c']]
    """
    k = args.integer("k", k, low=0, high=args.INT32_MAX, none=True)
    memb = _group_ids("membership", membership, k)
    if k is None:
        k = int(memb.max()) + 1 if memb.size else 0
    lab = None if nodes is None else _labels(nodes, memb.size)
    order = group_order(memb, k)
    bounds = np.zeros(k + 1, np.int64)
    np.cumsum(np.bincount(memb, minlength=k), out=bounds[1:])
    lab = (order if lab is None else lab[order]).tolist()
    return [set(lab[bounds[c]:bounds[c + 1]]) for c in range(k)]


def group_order(labels, k):
    """A permutation that sorts ``labels`` (ints in 0..k-1, k <= 2**32): numpy's linear
    radix sort on 16-bit keys (stable), twice for more than 2**16 groups (low half, then
    high half), cheaper than a comparison argsort of int64 keys.

    Examples
    --------
    >>> from pyclmatch.interop import group_order
    >>> group_order([2, 0, 1, 0], 3).tolist()
    [1, 3, 2, 0]
    """
    k = args.integer("k", k, low=0, high=1 << 32)
    labels = _group_ids("labels", labels, k)
    if k <= 1 << 16:
        return np.argsort(labels.astype(np.uint16), kind="stable")
    order = np.argsort((labels & 0xFFFF).astype(np.uint16), kind="stable")
    return order[np.argsort((labels[order] >> 16).astype(np.uint16), kind="stable")]


def vertex_clustering(res, graph):
    """Louvain communities as an ``igraph.VertexClustering`` of ``graph`` (the igraph graph
    the result was computed on), with the result's modularity.

    Examples
    --------
    >>> import igraph                                   # doctest: +SKIP
    >>> from pyclmatch import louvain
    >>> from pyclmatch.interop import vertex_clustering
    >>> g = igraph.Graph.Famous("Zachary")              # doctest: +SKIP
    >>> vertex_clustering(louvain(g, seed=1), g).modularity > 0.3     # doctest: +SKIP
    True
    """
    import igraph
    _result_of("res", res, ("membership", "modularity"), "a louvain result")
    if not isinstance(graph, igraph.Graph):
        args.refuse("graph", graph, "the igraph.Graph the result was computed on")
    memb = np.asarray(res.membership)
    if memb.size != graph.vcount():
        raise InputError(f"graph has {graph.vcount()} vertices: it must be the igraph.Graph "
                         f"the result was computed on ({memb.size} vertices)",
                         argument="graph")
    return igraph.VertexClustering(graph, membership=memb.tolist(),
                                   modularity=float(res.modularity))
