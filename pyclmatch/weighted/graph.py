"""Input handling of the Suitor family: weighted general graphs and preference lists.

:func:`weighted_input` reads what the user holds: a square scipy.sparse matrix or array (any
format and index dtype), a dense array or a networkx graph becomes a :class:`SparseInput`,
which keeps the user's compressed arrays as they are for the device intake
(:meth:`pyclmatch.weighted.suitor.DeviceWeighted.from_input`: checks, diagonal removal and
float32 conversion on the device); ``(u, v, w)`` edge arrays and a prepared
:class:`WeightedGraph` are checked on the host. :func:`as_weighted_graph` builds the host
:class:`WeightedGraph` of any input: symmetric CSR with sorted int32 neighbour lists, no
diagonal, float32 weights for the device (the float64 originals are kept for reporting).
Bad input raises :class:`~pyclmatch.errors.InputError` naming the problem, with the same
message on either path.
"""
import numpy as np
import scipy.sparse as sp

from ..engine.devices import PinnedStaging
from ..engine.intake import canonical_copy, compressed_parts
from ..errors import InputError
from ..interop import foreign_graph

INDEX_MAX = np.iinfo(np.int32).max


class WeightedGraph(PinnedStaging):
    """Undirected weighted graph as a symmetric CSR (each edge stored in both lists).

    ``indptr``/``indices`` (int32, sorted per row), ``w32`` (the float32 weights the device
    compares), ``w64`` (the input weights), ``n`` vertices, ``m`` undirected edges,
    ``nodes`` (the networkx node of each vertex id, or ``None``). ``stage(handle)`` keeps
    page-locked copies of the three CSR arrays for a GPU (:func:`prepare_graph`).
    """
    _staged_fields = ("indptr", "indices", "w32")

    def __init__(self, csr, nodes=None):
        csr = csr.tocsr()
        csr.sort_indices()
        self.n = int(csr.shape[0])
        self.indptr = csr.indptr.astype(np.int32, copy=False)
        self.indices = csr.indices.astype(np.int32, copy=False)
        self.w64 = np.asarray(csr.data, np.float64)
        self.w32 = self.w64.astype(np.float32)
        self.nodes = nodes
        self._csr = csr
        self._src = None
        self._rev = None
        self._device_cache = None      # device arrays kept by keep_on_device=True calls

    @property
    def nnz(self):
        """Directed edge count (twice the undirected edges)."""
        return int(self.indices.size)

    @property
    def m(self):
        return self.nnz // 2

    @property
    def src(self):
        if self._src is None:
            self._src = np.repeat(np.arange(self.n, dtype=np.int32), np.diff(self.indptr))
        return self._src

    def reverse_edges(self):
        """``rev[e]`` = the position of the reverse copy of directed edge ``e`` (int32,
        computed once: the CSR -> CSC counting sort of scipy, O(n + m); the lists are sorted
        and the graph symmetric, so column v of the CSC is row v's list)."""
        if self._rev is None:
            M = sp.csr_matrix((np.arange(self.nnz, dtype=np.int32), self.indices, self.indptr),
                              shape=(self.n, self.n))
            self._rev = np.ascontiguousarray(M.tocsc().data, dtype=np.int32)
        return self._rev

    @property
    def csr(self):
        return self._csr

    def degrees(self):
        return np.diff(self.indptr)

    def __getstate__(self):               # device caches and pinned copies stay behind
        state = super().__getstate__()
        state["_device_cache"] = None
        return state

    def __repr__(self):
        return f"<WeightedGraph {self.n} vertices, {self.m} edges>"


def _check_weights(w, drop_invalid, where="weights"):
    """Boolean mask of the entries to keep; raises on invalid weights unless dropping."""
    w = np.asarray(w)
    _check_dtype(w.dtype, where)
    w = w.astype(np.float64, copy=False)
    with np.errstate(over="ignore", under="ignore"):
        w32 = w.astype(np.float32)
    bad = ~np.isfinite(w) | (w <= 0) | ~np.isfinite(w32) | (w32 <= 0)
    if bad.any() and not drop_invalid:
        raise weight_error(w[int(np.flatnonzero(bad)[0])], int(bad.sum()), where)
    return ~bad


def _check_dtype(dtype, where="weights"):
    if np.dtype(dtype).kind not in "fiub":
        raise InputError(f"{where} must be numeric, got dtype {dtype}")


def weight_error(v, count, where="weights"):
    """The :class:`InputError` for the invalid weight ``v`` (the first of ``count``)."""
    v = float(v)
    if np.isnan(v):
        what = "NaN"
    elif np.isinf(v):
        what = "infinite"
    elif v == 0:
        what = "zero"
    elif v < 0:
        what = "negative"
    else:
        what = "out of float32 range"
    return InputError(
        f"{where} must be finite and positive; found a {what} weight ({v!r}) "
        f"({count} invalid in all). Pass drop_invalid=True to drop such edges.")


def asymmetry_error(A):
    """The :class:`InputError` for the asymmetric square matrix ``A``, naming the first
    entry (in row-major order) that differs from its transpose's."""
    A = sp.csr_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    D = (A - A.T.tocsr()).tocsr()
    D.sort_indices()
    D = D.tocoo()
    nz = np.flatnonzero(D.data != 0)
    where = f" (e.g. at ({int(D.row[nz[0]])}, {int(D.col[nz[0]])}))" if nz.size else ""
    return InputError("the matrix is not symmetric" + where + "; a weighted general "
                      "graph needs A[u,v] == A[v,u]. Pass symmetrize=True to use "
                      "max(A[u,v], A[v,u])")


class SparseInput:
    """A square sparse matrix as the user holds it, for the device intake: ``indptr``,
    ``indices`` and ``data`` of its CSR or CSC (a symmetric matrix's CSC is its CSR; other
    formats become a CSR through scipy's compiled conversion), never modified; ``n``,
    ``nnz`` (stored entries), ``nodes`` (networkx input), and the graph options. The
    host graph (:meth:`host_graph`) is built on request only: for ``verify="host"`` and for
    the options that need it (``drop_invalid`` with invalid weights, ``symmetrize`` with an
    asymmetric matrix)."""

    def __init__(self, A, nodes=None, symmetrize=False, drop_invalid=False):
        self.fmt, self.indptr, self.indices, self.data = compressed_parts(A)
        if self.fmt != A.format:
            A = None                       # the CSR made here holds the same matrix
        self._matrix = A
        _check_dtype(self.data.dtype)
        self.n = int(self.indptr.size - 1)
        self.nnz = int(self.indices.size)
        self.nodes = nodes
        self.symmetrize, self.drop_invalid = bool(symmetrize), bool(drop_invalid)
        self._host = None

    @property
    def matrix(self):
        """The input as a scipy matrix (the user's, or one over the same arrays)."""
        if self._matrix is None:
            cls = sp.csr_matrix if self.fmt == "csr" else sp.csc_matrix
            self._matrix = cls((self.data, self.indices, self.indptr), shape=(self.n, self.n))
        return self._matrix

    def make_canonical(self):
        """Replace the arrays by a canonical copy (sorted lists, duplicates summed), as
        scipy builds it; the user's arrays are left alone."""
        B = canonical_copy(self.matrix)
        self._matrix = B
        self.indptr, self.indices, self.data = B.indptr, B.indices, B.data
        self.nnz = int(B.nnz)

    def host_graph(self):
        """The :class:`WeightedGraph` of the input, checked on the host (built once)."""
        if self._host is None:
            self._host = _from_sparse(self.matrix.tocoo(), self.symmetrize,
                                      self.drop_invalid, self.nodes)
        return self._host


def weighted_input(G, *, n=None, symmetrize=False, drop_invalid=False, weight="weight"):
    """``G`` as the device intake takes it: a :class:`SparseInput` (scipy sparse, dense,
    networkx), or a host-checked :class:`WeightedGraph` (edge arrays, a prepared graph).
    See :func:`as_weighted_graph` for the accepted inputs and options."""
    if isinstance(G, WeightedGraph):
        return G
    fg = foreign_graph(G, weight)
    if fg is not None:     # networkx, igraph, pandas edge list, networkx-backend graph
        if fg.directed and not symmetrize:
            raise InputError(f"the {type(G).__name__} graph is directed; pass symmetrize=True "
                             f"to use the heavier of the two directions, or make it "
                             f"undirected first")
        # (an undirected graph's matrix holds each edge in both directions already)
        return SparseInput(fg.csr, fg.nodes, fg.directed, drop_invalid)
    if isinstance(G, tuple) and len(G) in (3, 4) and not sp.issparse(G[0]) \
            and np.ndim(G[0]) == 1:
        if len(G) == 4:
            if n is not None:
                raise InputError("n given twice (in the edge tuple and as n=)")
            n = G[3]
        return _from_edges(G[0], G[1], G[2], n, drop_invalid)
    if sp.issparse(G):
        if len(G.shape) != 2 or G.shape[0] != G.shape[1]:
            raise InputError(f"the matrix must be square (a graph), got shape {G.shape}")
        if G.shape[0] > INDEX_MAX:
            raise InputError(f"{G.shape[0]} vertices exceed the 2**31-1 supported")
        return SparseInput(G, None, symmetrize, drop_invalid)
    try:
        arr = np.asarray(G)
    except Exception as exc:
        raise InputError(f"cannot read {type(G).__name__} as a weighted graph: {exc}") from None
    if arr.dtype == object or arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InputError(f"cannot read {type(G).__name__} as a weighted graph: expected a "
                         f"square matrix, (u, v, w) edge arrays or a networkx graph")
    if arr.dtype.kind == "f" and np.isnan(arr).any() and not drop_invalid:
        raise InputError("the dense matrix contains NaN weights; use 0 for no edge")
    arr = np.where(np.isnan(arr), 0, arr) if arr.dtype.kind == "f" else arr
    return SparseInput(sp.csr_matrix(arr), None, symmetrize, drop_invalid)


def as_weighted_graph(G, *, n=None, symmetrize=False, drop_invalid=False, weight="weight"):
    """Validate ``G`` on the host and return a :class:`WeightedGraph`.

    ``G`` may be a symmetric scipy.sparse matrix/array (diagonal ignored, the stored values are
    the weights; explicit zeros are zero weights), a dense 2-D array (nonzeros are edges),
    edge arrays ``(u, v, w)`` (each undirected edge once or in both directions with the same
    weight; ``n`` = number of vertices, default max id + 1) or a networkx graph (attribute
    ``weight``, default 1). Weights must be finite and positive (``drop_invalid=True`` drops
    the other edges); asymmetric matrices are refused unless ``symmetrize=True`` (then
    w(u,v) = max(A[u,v], A[v,u])).
    """
    g = weighted_input(G, n=n, symmetrize=symmetrize, drop_invalid=drop_invalid, weight=weight)
    return g.host_graph() if isinstance(g, SparseInput) else g


def _ids(name, a):
    a = np.asarray(a)
    if a.ndim != 1:
        raise InputError(f"{name} must be a 1-D array of vertex ids, got shape {a.shape}")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            raise InputError(f"{name} must hold integer vertex ids")
    elif a.dtype.kind not in "iub":
        raise InputError(f"{name} must hold integer vertex ids, got dtype {a.dtype}")
    a = a.astype(np.int64)
    if a.size and a.min() < 0:
        raise InputError(f"{name} contains a negative vertex id ({int(a.min())})")
    return a


def _check_n(n, hi):
    try:
        n = int(n)
    except Exception:
        raise InputError(f"n must be an integer, got {n!r}") from None
    if n < hi:
        raise InputError(f"vertex id {hi - 1} out of range for n = {n}")
    if n > INDEX_MAX:
        raise InputError(f"n = {n} exceeds the 2**31-1 vertices supported")
    return n


def _from_edges(u, v, w, n, drop_invalid):
    u, v = _ids("u", u), _ids("v", v)
    w = np.asarray(w)
    if not (u.size == v.size == w.size):
        raise InputError(f"u, v, w differ in length ({u.size}, {v.size}, {w.size})")
    hi = int(max(u.max(), v.max())) + 1 if u.size else 0
    n = _check_n(hi if n is None else n, hi)
    keep = _check_weights(w, drop_invalid) & (u != v)
    u, v, w = u[keep], v[keep], np.asarray(w, np.float64)[keep]
    a, b = np.minimum(u, v), np.maximum(u, v)
    key = a * n + b
    order = np.argsort(key, kind="stable")
    key, w = key[order], w[order]
    first = np.ones(key.size, bool)
    first[1:] = key[1:] != key[:-1]
    if not first.all():
        grp = np.cumsum(first) - 1
        wf = w[first]
        if np.any(w != wf[grp]):
            k = int(np.flatnonzero(w != wf[grp])[0])
            raise InputError(f"edge ({int(key[k] // n)}, {int(key[k] % n)}) is given twice "
                             f"with different weights ({wf[grp[k]]!r} and {w[k]!r})")
        key, w = key[first], wf
    a, b = key // n, key % n
    A = sp.coo_matrix((np.concatenate([w, w]), (np.concatenate([a, b]), np.concatenate([b, a]))),
                      shape=(n, n))
    _check_size(A.nnz)
    return WeightedGraph(A.tocsr())


def _check_size(nnz):
    if nnz > INDEX_MAX:
        raise InputError(f"the graph has {nnz} directed edges; the Suitor family supports up to "
                         f"2**31-1 (edge indices are 32-bit for the atomics)")


def _from_sparse(coo, symmetrize, drop_invalid, nodes):
    n = int(coo.shape[0])
    if n > INDEX_MAX:
        raise InputError(f"{n} vertices exceed the 2**31-1 supported")
    r = np.asarray(coo.row, np.int64)
    c = np.asarray(coo.col, np.int64)
    w = np.asarray(coo.data)
    off = r != c
    r, c, w = r[off], c[off], w[off]
    keep = _check_weights(w, drop_invalid)
    r, c, w = r[keep], c[keep], np.asarray(w, np.float64)[keep]
    A = sp.csr_matrix((w, (r, c)), shape=(n, n))     # duplicates summed, as scipy does
    A.sum_duplicates()
    T = A.T.tocsr()
    T.sort_indices()
    A.sort_indices()
    same = (A.nnz == T.nnz and np.array_equal(A.indptr, T.indptr)
            and np.array_equal(A.indices, T.indices) and np.array_equal(A.data, T.data))
    if not same:
        if not symmetrize:
            raise asymmetry_error(A)
        A = A.maximum(T).tocsr()
        A.sort_indices()
    _check_size(A.nnz)
    return WeightedGraph(A, nodes)


# --------------------------------------------------------------------------- b values

def as_b(b, n):
    """``b`` as an int32 array of length n (an int broadcasts); non-negative integers only."""
    if isinstance(b, (int, np.integer)) and not isinstance(b, bool):
        if b < 0:
            raise InputError(f"b must be non-negative, found {int(b)}")
        if b > INDEX_MAX:
            raise InputError("b is too large")
        return np.full(n, b, np.int32)          # the common case: no int64 round trip
    arr = np.asarray(b)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise InputError("b must hold non-negative integers")
    elif arr.dtype.kind not in "iub":
        raise InputError(f"b must be an int or an integer array, got dtype {arr.dtype}")
    arr = arr.astype(np.int64)
    if arr.ndim == 0:
        arr = np.full(n, int(arr), np.int64)
    if arr.shape != (n,):
        raise InputError(f"b must be an int or an array of length n = {n}, got shape "
                         f"{arr.shape}")
    if arr.size and arr.min() < 0:
        raise InputError(f"b must be non-negative, found {int(arr.min())}")
    if arr.size and arr.max() > INDEX_MAX:
        raise InputError("b is too large")
    return arr.astype(np.int32)


def with_random_weights(A, seed=0, low=0.0):
    """Symmetrize the pattern of the square matrix ``A`` (diagonal dropped) and give every
    undirected edge a weight drawn uniformly from [low, 1) (``numpy.random.default_rng(seed)``,
    one draw per edge of the upper triangle in CSR order); weights that are 0 (or round to 0
    in float32) are replaced by the smallest positive float32. Returns a :class:`WeightedGraph`.
    This is how the benchmark weights the reference suite."""
    if not sp.issparse(A) or A.shape[0] != A.shape[1]:
        raise InputError("with_random_weights needs a square scipy.sparse matrix")
    P = sp.csr_matrix(A, copy=True)
    P.data = np.ones(P.nnz, np.int8)
    P = (P + P.T).tocsr()
    U = sp.triu(P, k=1).tocsr()
    U.sort_indices()
    w = np.random.default_rng(seed).uniform(low, 1.0, U.nnz)
    w = np.maximum(w, np.finfo(np.float32).tiny)
    U = sp.csr_matrix((w, U.indices, U.indptr), shape=U.shape)
    return WeightedGraph((U + U.T).tocsr())
