"""Graphs from other libraries, and results in their shapes: the one place where networkx,
igraph and pandas objects become the CSR arrays every family takes.

Inputs (:func:`foreign_graph`, called by the input path of every family):

* a networkx ``Graph``/``DiGraph``/``MultiGraph``/``MultiDiGraph``: the adjacency in the graph's
  node order (``nodes``), read from its dict-of-dicts by one vectorised walk
  (:class:`NetworkxAdjacency`: several times faster than ``networkx.to_scipy_sparse_array``);
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
from itertools import chain, repeat
from operator import methodcaller
import sys

import numpy as np
import scipy.sparse as sp

from .errors import InputError

INDEX_MAX = np.iinfo(np.int32).max

#: ``csr``: scipy CSR matrix (canonical: sorted indices, no duplicates) in the order of
#: ``nodes`` (the node labels, or None where the vertices are just 0..n-1); ``directed``:
#: whether the rows are out-edges of a directed graph (otherwise the matrix is symmetric).
ForeignGraph = namedtuple("ForeignGraph", "csr nodes directed")


def _module_type(G, module, name):
    mod = sys.modules.get(module)
    return mod is not None and isinstance(G, getattr(mod, name, ()))


def is_networkx(G):
    """Whether ``G`` is a networkx graph (any of the four classes or a subclass)."""
    return _module_type(G, "networkx", "Graph")


def is_igraph(G):
    return _module_type(G, "igraph", "Graph")


def is_dataframe(G):
    return _module_type(G, "pandas", "DataFrame")


def is_backend_graph(G):
    """Whether ``G`` is a graph of pyclmatch's networkx backend (:mod:`pyclmatch.nxbackend`)."""
    return getattr(type(G), "__networkx_backend__", None) == "pyclmatch"


def foreign_graph(G, weight="weight"):
    """``G`` as a :data:`ForeignGraph` when it is a networkx or igraph graph, a pandas edge
    list or a pyclmatch backend graph; ``None`` for anything else (scipy matrices, arrays,
    edge tuples: the families' own paths). ``weight``: the edge attribute (networkx, igraph,
    backend graph) or column (DataFrame) holding the weights, ``None`` for 1 on every edge."""
    if is_backend_graph(G):
        return ForeignGraph(G.csr(weight), G.node_list, G.is_directed())
    if is_networkx(G):
        csr, nodes = networkx_csr(G, weight)
        return ForeignGraph(csr, nodes, G.is_directed())
    if is_igraph(G):
        return igraph_csr(G, weight)
    if is_dataframe(G):
        return dataframe_csr(G, weight=weight)
    return None


# --------------------------------------------------------------------------- networkx
class NetworkxAdjacency:
    """One walk of a networkx graph's adjacency (its ``_adj`` dict of dicts: successors of a
    directed graph), in node order: ``nodes``, ``indptr`` and ``indices`` (int32 where they
    fit) of the CSR the dicts hold, each list in the dict's order, and :meth:`values` for the
    weights of any edge attribute in the same order. :meth:`csr` sorts the lists (scipy's
    compiled per-row sort, skipped when they are sorted already).

    The walk is a few C-level passes (``numpy.fromiter`` over chained dict iterators); node
    labels go through one dict look-up each, none when the labels are 0..n-1 in order. An
    undirected edge is in both lists already (a self-loop once), so nothing is symmetrized.
    """

    def __init__(self, G):
        adj = getattr(G, "_adj", None)
        if not isinstance(adj, dict):
            adj = {u: dict(nbrs) for u, nbrs in G.adj.items()}
        self.adj = adj
        self.multigraph = bool(G.is_multigraph())
        self.directed = bool(G.is_directed())
        nodes = list(adj)
        n = len(nodes)
        deg = np.fromiter(map(len, adj.values()), np.int64, n)
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(deg, out=indptr[1:])
        nnz = int(indptr[-1])
        if n > INDEX_MAX or nnz > INDEX_MAX:
            raise InputError(f"the graph has {n} nodes and {nnz} adjacency entries; pyclmatch "
                             f"supports up to 2**31-1 of each")
        self.nodes, self.n, self.nnz = nodes, n, nnz
        self.indptr = indptr.astype(np.int32)
        self.indices = self._indices()
        self._order = False      # not computed yet (None: the lists are sorted already)

    def _indices(self):
        keys = chain.from_iterable(self.adj.values())
        n, nnz = self.n, self.nnz
        if self.nodes == list(range(n)):         # labels are the ids: no look-up
            try:
                return np.fromiter(keys, np.int32, nnz)
            except (TypeError, ValueError, OverflowError):
                keys = chain.from_iterable(self.adj.values())
        self._index = index = dict(zip(self.nodes, range(n)))
        return np.fromiter(map(index.__getitem__, keys), np.int32, nnz)

    def _datadicts(self):
        """The edge data of every adjacency entry, in CSR order (key dicts of a multigraph)."""
        return chain.from_iterable(map(methodcaller("values"), self.adj.values()))

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
        elif not any(map(len, self._datadicts())):   # no edge has any attribute (one C pass)
            return np.full(nnz, default, np.float64)
        else:
            it = map(methodcaller("get", weight, default), self._datadicts())
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
                                      shape=(self.n, self.n))
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


def canonical_csr(data, indices, indptr, n):
    """A square scipy CSR matrix over arrays known canonical (sorted lists, no duplicate),
    flagged so (scipy and pyclmatch's intakes then skip their O(nnz) checks)."""
    A = sp.csr_matrix((data, indices, indptr), shape=(n, n), copy=False)
    A.has_canonical_format = True
    return A


def networkx_csr(G, weight="weight", default=1.0):
    """``(csr, nodes)``: the adjacency matrix of the networkx graph ``G`` in its node order,
    as ``networkx.to_scipy_sparse_array(G, weight=weight)`` builds it (missing attributes
    count ``default``, a multigraph's parallel edges are summed, an undirected self-loop is
    one diagonal entry), canonical, int32 indices; ``weight=None`` gives int8 ones (the
    edge count between two nodes for a multigraph)."""
    walk = NetworkxAdjacency(G)
    return walk.csr(weight, default), walk.nodes


# --------------------------------------------------------------------------- igraph
def igraph_csr(g, weight="weight"):
    """:data:`ForeignGraph` of an ``igraph.Graph``: the (symmetric, unless directed) adjacency
    with multi-edges summed and a self-loop stored once on the diagonal, weights from the edge
    attribute ``weight`` (1 where the graph has no such attribute), node labels from the
    vertex attribute ``name`` (or ``_nx_name``, set by ``igraph.Graph.from_networkx``)
    where present."""
    n = g.vcount()
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


# --------------------------------------------------------------------------- pandas
def dataframe_csr(df, source="source", target="target", weight="weight"):
    """:data:`ForeignGraph` of a pandas edge list (undirected): node labels are the sorted
    distinct values of ``source`` and ``target`` (first-seen order where they cannot be
    sorted), weights from the column ``weight`` when the frame has it (else 1); a pair given
    more than once, in either direction, keeps the weight of its last row."""
    import pandas as pd
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
    A = _edges_csr(codes[:m], codes[m:], w, len(labels), False, sum_repeats=False)
    return ForeignGraph(A, labels.tolist(), False)


def _columns(df, source, target):
    missing = [c for c in (source, target) if c not in df.columns]
    if missing:
        raise InputError(f"the edge-list DataFrame needs columns {source!r} and {target!r} "
                         f"(missing: {', '.join(map(repr, missing))}); rename them or pass "
                         f"the arrays")
    return df[source].to_numpy(), df[target].to_numpy()


def bipartite_edges(A):
    """For the bipartite family: a pandas edge list becomes the edge arrays ``(rows, cols)``
    (column ``source`` = row ids, ``target`` = column ids: non-negative integers; the shape is
    one more than the largest id of each side); any other input is returned as it is."""
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
def _labels(nodes, n):
    """Object array of node labels (tuples stay whole), or ids 0..n-1."""
    if nodes is None:
        return np.arange(n)
    return np.fromiter(nodes, dtype=object, count=len(nodes))


def matching_dict(res, row_labels=None, col_labels=None):
    """A matching as networkx returns it: ``{u: v, v: u}`` for every matched pair.

    ``res`` is a :class:`~pyclmatch.MatchingResult` (bipartite: rows are ``row_labels``,
    default ``0..n_rows-1``, columns ``col_labels``, default ``n_rows..n_rows+n_cols-1`` as
    ``networkx.bipartite.from_biadjacency_matrix`` numbers them) or a weighted matching
    result (its node labels for networkx input, else the vertex ids)."""
    pairs = _pairs(res, row_labels, col_labels)
    return dict(chain(pairs, ((b, a) for a, b in pairs)))


def matching_edges(res, row_labels=None, col_labels=None):
    """A matching as a set of edges ``(u, v)``, as ``networkx.maximal_matching`` returns it:
    ``(row, column)`` for a bipartite result, ``u < v`` (by id) for a weighted one. Labels as
    in :func:`matching_dict`."""
    return set(_pairs(res, row_labels, col_labels))


def _pairs(res, row_labels, col_labels):
    if hasattr(res, "row_match"):
        rm = np.asarray(res.row_match)
        nr, nc = rm.size, np.asarray(res.col_match).size
        r = np.flatnonzero(rm >= 0)
        rl = _labels(row_labels, nr) if row_labels is not None else np.arange(nr)
        cl = _labels(col_labels, nc) if col_labels is not None else np.arange(nr, nr + nc)
        return list(zip(rl[r].tolist(), cl[rm[r]].tolist()))
    mate = np.asarray(res.mate)
    u = np.flatnonzero(mate > np.arange(mate.size))
    lab = _labels(getattr(res, "nodes", None), mate.size)
    return list(zip(lab[u].tolist(), lab[mate[u]].tolist()))


def community_sets(res):
    """Louvain communities as networkx returns them: a list of sets of node labels (of the
    vertex ids where the input had none), community ``c`` at position ``c``."""
    return membership_sets(res.membership, res.n_communities, res.nodes)


def membership_sets(membership, k=None, nodes=None):
    """The list of ``k`` sets (community c at position c) of a membership array, holding
    the labels ``nodes`` (ids where None). One sort, then one C-level set per community."""
    memb = np.asarray(membership)
    if k is None:
        k = int(memb.max()) + 1 if memb.size else 0
    order = np.argsort(memb, kind="stable")
    bounds = np.searchsorted(memb[order], np.arange(k + 1))
    lab = _labels(nodes, memb.size)[order].tolist()
    return [set(lab[bounds[c]:bounds[c + 1]]) for c in range(k)]


def vertex_clustering(res, graph):
    """Louvain communities as an ``igraph.VertexClustering`` of ``graph`` (the igraph graph
    the result was computed on), with the result's modularity."""
    import igraph
    memb = np.asarray(res.membership)
    if memb.size != graph.vcount():
        raise InputError(f"the result has {memb.size} vertices, the graph {graph.vcount()}")
    return igraph.VertexClustering(graph, membership=memb.tolist(),
                                   modularity=float(res.modularity))
