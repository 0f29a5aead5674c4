"""Input handling of the Suitor family: weighted general graphs and preference lists.

:func:`weighted_input` reads what the user holds: a square scipy.sparse matrix or array (any
format and index dtype), a dense array or a networkx graph becomes a :class:`SparseInput`,
which keeps the user's compressed arrays as they are for the device intake
(:meth:`pyclmatch.weighted.suitor.DeviceWeighted.from_input`: checks, diagonal removal and
conversion to the weight type on the device); ``(u, v, w)`` edge arrays and a prepared
:class:`WeightedGraph` are checked on the host. :func:`as_weighted_graph` builds the host
:class:`WeightedGraph` of any input: symmetric CSR with sorted neighbour lists, no diagonal,
the weights as float64 (and float32 on request).
Bad input raises :class:`~pyclmatch.errors.InputError` naming the problem, with the same
message on either path.

The weight type the device compares (:func:`resolve_precision`) is the user's precision:
``precision="auto"`` (the default) compares float64 weights as float64 (on a device with
cl_khr_fp64 and 64-bit atomics, else as float32), float32, float16, bool and integers of up
to 16 bits as float32 (exact), other integers as float64 (exact up to 2**53; 64-bit integers
beyond that are refused unless a precision is given). ``"float32"`` and ``"float64"``
compare the weights rounded to that type. The greedy matching is the greedy matching of the
compared weights: weights that differ in float64 may tie in float32.
"""
import numpy as np
import scipy.sparse as sp

from ..engine.devices import PinnedStaging
from ..engine import args, limits
from ..engine.compressed import canonical_copy, check_compressed_host, compressed_parts
from ..engine.intake import fp64_supported
from ..errors import InputError
from ..interop import foreign_graph, is_edge_tuple, mirrored_csr, undirected_pairs

INDEX_MAX = np.iinfo(np.int32).max
#: the accepted ``precision`` values (numpy's float32 and float64 dtypes are accepted too)
PRECISIONS = ("auto", "float64", "float32")
#: result names of the weight types (``counters["weights"]``)
WEIGHT_NAMES = {np.dtype(np.float32): "float32", np.dtype(np.float64): "float64"}


def check_precision(precision):
    """``precision`` as one of :data:`PRECISIONS` (``None`` is ``"auto"``)."""
    if precision is None:
        return "auto"
    if not isinstance(precision, str):
        try:
            precision = np.dtype(precision).name
        except TypeError:
            precision = repr(precision)
    p = precision.lower()
    if p not in PRECISIONS:
        raise InputError(f"precision must be one of {', '.join(map(repr, PRECISIONS))}, "
                         f"not {precision!r}")
    return p


def resolve_precision(precision, input_dtype, fp64=True):
    """The weight type the device compares, ``(dtype, check_exact)``: ``dtype`` float32 or
    float64 for ``precision`` (see the module docstring) and weights of ``input_dtype`` on a
    device that computes in double precision (``fp64``) or not; ``check_exact``: the values
    must be checked to be exact in ``dtype`` (64-bit integers in float64 under ``"auto"``).
    An explicit ``"float64"`` on a device without doubles raises
    :class:`~pyclmatch.errors.InputError`."""
    p = check_precision(precision)
    f32, f64 = np.dtype(np.float32), np.dtype(np.float64)
    if p == "float32":
        return f32, False
    if p == "float64":
        if not fp64:
            raise InputError("precision='float64' needs a device with double precision and "
                             "64-bit atomics (cl_khr_fp64, cl_khr_int64_extended_atomics); "
                             "this one has not: pass precision='float32'")
        return f64, False
    dt = np.dtype(input_dtype)
    if dt.kind == "b" or (dt.kind == "f" and dt.itemsize <= 4) or \
            (dt.kind in "iu" and dt.itemsize <= 2):
        return f32, False                       # exact in float32
    if not fp64:
        return f32, False
    return f64, dt.kind in "iu" and dt.itemsize == 8


def device_fp64(handle):
    """Whether ``handle``'s device compares float64 weights: cl_khr_fp64 and the 64-bit
    atomics (cl_khr_int64_extended_atomics) of the kernels' double-precision paths."""
    return fp64_supported(handle) and \
        "cl_khr_int64_extended_atomics" in handle.device.extensions.split() and \
        "cl_khr_int64_base_atomics" in handle.device.extensions.split()


def inexact_count(w):
    """The number of values of the 64-bit integer array ``w`` that float64 does not hold
    exactly (0 for other dtypes)."""
    w = np.asarray(w)
    if w.dtype.kind not in "iu" or w.dtype.itemsize < 8 or not w.size:
        return 0
    with np.errstate(invalid="ignore", over="ignore"):
        return int(np.count_nonzero(w.astype(np.float64).astype(w.dtype) != w))


def inexact_error(count):
    """The :class:`InputError` for ``count`` 64-bit integer weights not exact in float64."""
    return InputError(f"{count} integer weights exceed 2**53 and are not exact in float64, the "
                      f"widest weight type of the device; pass precision='float64' to compare "
                      f"them rounded to the nearest double", argument="G")


#: weights above this (2**960) may sum past float64's range over fewer than 2**63 edges
HUGE_WEIGHT = 2.0 ** 960


class WeightedGraph(PinnedStaging):
    """Undirected weighted graph as a symmetric CSR (each edge stored in both lists).

    ``indptr`` (int32, int64 above 2**31-1 entries)/``indices`` (int32, sorted per row),
    ``w64`` (the input weights as float64), ``w32`` (as float32, made on first use), ``n``
    vertices, ``m`` undirected edges, ``nodes`` (the networkx node of each vertex id, or
    ``None``), ``input_dtype`` (the dtype of the user's weights), ``inexact`` (how many of
    them float64 does not hold exactly: 64-bit integers above 2**53), ``drop_invalid`` (the
    option it was built with). ``stage(handle)`` keeps page-locked copies of the CSR arrays
    for a GPU, the weights in the type the device compares by default (:func:`prepare_graph`).
    """
    _staged_fields = ("indptr", "indices", "w64")

    def __init__(self, csr, nodes=None, input_dtype=None, inexact=0, drop_invalid=False):
        csr = csr.tocsr()
        csr.sort_indices()
        self.n = int(csr.shape[0])
        odt = np.int64 if csr.indptr[-1] > INDEX_MAX else np.int32
        self.indptr = csr.indptr.astype(odt, copy=False)
        self.indices = csr.indices.astype(np.int32, copy=False)
        self.w64 = np.asarray(csr.data, np.float64)
        self.input_dtype = np.dtype(input_dtype or csr.data.dtype)
        self.inexact = int(inexact)
        self.drop_invalid = bool(drop_invalid)
        self._w32 = None
        self.nodes = nodes
        self._csr = csr
        self._src = None
        self._rev = None
        self._in32 = None
        self._device_cache = None      # device arrays kept by keep_on_device=True calls
        # (weights so large that a sum of many may overflow float64: answers are summed
        # when the call returns, and refused if they do)
        self.huge = bool(self.w64.size) and bool(self.w64.max() > HUGE_WEIGHT)

    @property
    def w32(self):
        """The weights as float32 (made once)."""
        if self._w32 is None:
            with np.errstate(over="ignore", under="ignore"):
                self._w32 = self.w64.astype(np.float32)
        return self._w32

    def weights(self, dtype):
        """The weights in ``dtype`` (float32 or float64), as the device compares them."""
        return self.w64 if np.dtype(dtype) == np.float64 else self.w32

    def in_precision(self, dtype):
        """The graph whose weights are all valid in ``dtype``: this one, or for float32 with
        weights that round to 0 or overflow, the graph without them (``drop_invalid``, made
        once) or an :class:`~pyclmatch.errors.InputError` naming the first."""
        if np.dtype(dtype) == np.float64:
            return self
        if self._in32 is None:
            w = self.w32
            bad = ~(np.isfinite(w) & (w > 0))
            if not bad.any():
                self._in32 = self
            elif not self.drop_invalid:
                raise weight_error(self.w64[int(np.flatnonzero(bad)[0])], int(bad.sum()),
                                   dtype=np.float32)
            else:
                A = self._csr.copy()
                A.data = np.where(bad, 0.0, self.w64)
                A.eliminate_zeros()
                self._in32 = WeightedGraph(A, self.nodes, self.input_dtype, self.inexact,
                                           True)
        return self._in32

    def _fields_to_stage(self, handle):
        """The fields :meth:`stage` pins for ``handle``: the CSR arrays and the weights in
        the type its device compares under ``precision="auto"``."""
        wt, _ = resolve_precision("auto", self.input_dtype, device_fp64(handle))
        return ("indptr", "indices", "w64" if wt == np.float64 else "w32")

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

    def reverse_edges(self, dtype=np.int32):
        """``rev[e]`` = the position of the reverse copy of directed edge ``e`` (in the offset
        type ``dtype``, computed once: the CSR -> CSC counting sort of scipy, O(n + m); the
        lists are sorted and the graph symmetric, so column v of the CSC is row v's list)."""
        dtype = np.dtype(dtype)
        if self._rev is None or self._rev.dtype != dtype:
            M = sp.csr_matrix((np.arange(self.nnz, dtype=dtype), self.indices, self.indptr),
                              shape=(self.n, self.n))
            self._rev = np.ascontiguousarray(M.tocsc().data, dtype=dtype)
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


def invalid_weights(w, dtype=np.float64):
    """Boolean mask of the weights ``w`` that are not finite and positive, as given and in
    the weight type ``dtype`` (float32 or float64)."""
    w = np.asarray(w)
    if w.dtype.kind in "iub":
        return ~(w > 0)
    w = w.astype(np.float64, copy=False)
    bad = ~np.isfinite(w) | (w <= 0)
    if np.dtype(dtype) == np.float32:
        with np.errstate(over="ignore", under="ignore"):
            w32 = w.astype(np.float32)
        bad |= ~np.isfinite(w32) | (w32 <= 0)
    return bad


def _check_weights(w, drop_invalid, dtype=np.float64, where="weights"):
    """Boolean mask of the entries to keep; raises on invalid weights (in the weight type
    ``dtype``) unless dropping."""
    w = np.asarray(w)
    _check_dtype(w.dtype, where)
    bad = invalid_weights(w, dtype)
    if bad.any() and not drop_invalid:
        raise weight_error(w[int(np.flatnonzero(bad)[0])], int(bad.sum()), where, dtype)
    return ~bad


def _check_dtype(dtype, where="weights"):
    if np.dtype(dtype).kind not in "fiub":
        raise InputError(f"{where} must be numeric, got dtype {dtype}")


def weight_error(v, count, where="weights", dtype=np.float64):
    """The :class:`InputError` for the invalid weight ``v`` (the first of ``count``) in the
    weight type ``dtype``."""
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
    hint = " Pass drop_invalid=True to drop such edges"
    if np.dtype(dtype) == np.float32:
        where += " (compared as float32)"
        hint += " or precision='float64' to compare them as float64"
    article = "an" if what[0] in "aeiou" else "a"
    return InputError(
        f"{where} must be finite and positive; found {article} {what} weight ({v!r}) "
        f"({count} invalid in all).{hint}.", argument="G")


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
                      "max(A[u,v], A[v,u]) (or read it with read_graph(path, "
                      "symmetrize=True))", argument="G")


class SparseInput:
    """A square sparse matrix as the user holds it, for the device intake: ``indptr``,
    ``indices`` and ``data`` of its CSR or CSC (a symmetric matrix's CSC is its CSR; other
    formats become a CSR through scipy's compiled conversion), never modified; ``n``,
    ``nnz`` (stored entries), ``nodes`` (networkx input), and the graph options. The
    host graph (:meth:`host_graph`) is built on request only: for ``verify="host"`` and for
    the options that need it (``drop_invalid`` with invalid weights, ``symmetrize`` with an
    asymmetric matrix). ``weight_dtype``/``check_exact``: the weight type of ``precision``
    (:func:`resolve_precision`) on a device with doubles (``fp64``) or not."""

    def __init__(self, A, nodes=None, symmetrize=False, drop_invalid=False, precision="auto",
                 fp64=True):
        self.fmt, self.indptr, self.indices, self.data = compressed_parts(A)
        if self.fmt != A.format:
            A = None                       # the CSR made here holds the same matrix
        self._matrix = A
        _check_dtype(self.data.dtype)
        self.input_dtype = self.data.dtype
        self.weight_dtype, self.check_exact = resolve_precision(precision, self.input_dtype,
                                                                fp64)
        self.n = int(self.indptr.size - 1)
        end = int(self.indptr[-1]) if self.indptr.size else 0
        if 0 <= end < self.indices.size:      # storage past indptr[-1]: not entries (scipy)
            self.indices, self.data = self.indices[:end], self.data[:end]
            self._matrix = None                # (rebuilt over the entries when needed)
        self.nnz = int(self.indices.size)
        if self.indptr.size and (self.indptr[0] != 0 or end != self.nnz
                                 or self.data.size != self.nnz):
            raise InputError(f"indptr must run from 0 to the number of stored entries "
                             f"({self.nnz}), got {self.indptr[0]} .. {self.indptr[-1]} "
                             f"({self.data.size} values)")
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
        if B.data.dtype.kind in "iu" and B.data.dtype.itemsize < 8:
            # (summed in int64 here: the sum of small integers may not fit their type)
            B = canonical_copy(self.matrix.astype(np.int64))
        self._matrix = B
        self.indptr, self.indices, self.data = B.indptr, B.indices, B.data
        self.nnz = int(B.nnz)

    def host_graph(self):
        """The :class:`WeightedGraph` of the input, checked on the host (built once)."""
        if self._host is None:
            check_compressed_host(self.indptr, self.indices, self.n)   # (scipy trusts them)
            self._host = _from_sparse(self.matrix.tocoo(), self.symmetrize,
                                      self.drop_invalid, self.nodes, self.weight_dtype)
        return self._host


def weighted_input(G, *, n=None, symmetrize=False, drop_invalid=False, weight="weight",
                   precision="auto", fp64=True, fits=None):
    """``G`` as the device intake takes it: a :class:`SparseInput` (scipy sparse, dense,
    networkx), or a host-checked :class:`WeightedGraph` (edge arrays, a prepared graph).
    See :func:`as_weighted_graph` for the accepted inputs and options; the weights are
    checked in the weight type of ``precision`` on a device with doubles (``fp64``) or not
    (:func:`resolve_precision`). ``fits(n, nnz, host)``, when given, is called with the
    declared sizes (vertices, stored entries, the bytes of the host conversion this input
    needs) before anything proportional to them is allocated
    (:func:`pyclmatch.engine.limits.check`)."""
    with args.blame("G"):
        g = _weighted_input(G, n, symmetrize, drop_invalid, weight,
                            {"precision": check_precision(precision), "fp64": bool(fp64)},
                            fits or (lambda *a: None))
    if n is not None and not isinstance(G, tuple) and n != g.n:
        raise InputError(f"n={args.shown(n)} contradicts the graph, which has {g.n} vertices: "
                         f"n sizes edge arrays only (leave it out, or pass n={g.n})",
                         argument="n")
    return g


def _weighted_input(G, n, symmetrize, drop_invalid, weight, opts, fits):
    """:func:`weighted_input` without the argument names of its errors."""
    if n is not None:
        n = args.integer("n", n, low=0)
    if isinstance(G, WeightedGraph):
        fits(G.n, G.nnz, {})
        return G
    fg = foreign_graph(G, weight, fits=fits)
    if fg is not None:     # networkx, igraph, pandas edge list, networkx-backend graph
        if fg.directed and not symmetrize:
            raise InputError(f"the {type(G).__name__} graph is directed; pass symmetrize=True "
                             f"to use the heavier of the two directions, or make it "
                             f"undirected first")
        # (an undirected graph's matrix holds each edge in both directions already)
        return SparseInput(fg.csr, fg.nodes, fg.directed, drop_invalid, **opts)
    if is_edge_tuple(G, (3, 4)):
        if len(G) == 4:
            if n is not None:
                raise InputError("n given twice (in the edge tuple and as n=)", argument="n")
            n = args.integer("n", G[3], low=0)
        return _from_edges(G[0], G[1], G[2], n, drop_invalid, fits=fits, **opts)
    if sp.issparse(G):
        if len(G.shape) != 2 or G.shape[0] != G.shape[1]:
            raise InputError(f"the matrix must be square (a graph), got shape {G.shape}")
        if G.shape[0] > INDEX_MAX:
            raise InputError(f"{G.shape[0]} vertices exceed the 2**31-1 supported")
        conv = {} if G.format in ("csr", "csc") else \
            {"CSR conversion": (G.shape[0] + 1) * 8 + G.nnz * 16}
        fits(int(G.shape[0]), int(G.nnz), conv)
        return SparseInput(G, None, symmetrize, drop_invalid, **opts)
    try:
        arr = np.asarray(G)
    except Exception as exc:
        raise InputError(f"cannot read {type(G).__name__} as a weighted graph: {exc}") from None
    if arr.dtype.kind not in "biuf" or arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise InputError(f"cannot read {type(G).__name__} of dtype {arr.dtype} and shape "
                         f"{arr.shape} as a weighted graph: expected a square numeric matrix, "
                         f"(u, v, w) edge arrays or a networkx graph")
    if arr.dtype.kind == "f" and np.isnan(arr).any() and not drop_invalid:
        raise InputError("the dense matrix contains NaN weights; use 0 for no edge")
    arr = np.where(np.isnan(arr), 0, arr) if arr.dtype.kind == "f" else arr
    if arr.dtype == np.float16:              # (scipy.sparse has no float16: exact in float32)
        arr = arr.astype(np.float32)
    fits(arr.shape[0], int(np.count_nonzero(arr)), {})
    return SparseInput(sp.csr_matrix(arr), None, symmetrize, drop_invalid, **opts)


def as_weighted_graph(G, *, n=None, symmetrize=False, drop_invalid=False, weight="weight",
                      precision="auto"):
    """Validate ``G`` on the host and return a :class:`WeightedGraph`.

    ``G`` may be a symmetric scipy.sparse matrix/array (diagonal ignored, the stored values are
    the weights; explicit zeros are zero weights), a dense 2-D array (nonzeros are edges),
    edge arrays ``(u, v, w)`` (each undirected edge once or in both directions with the same
    weight; ``n`` = number of vertices, default max id + 1) or a networkx graph (attribute
    ``weight``, default 1). Weights must be finite and positive (``drop_invalid=True`` drops
    the other edges); asymmetric matrices are refused unless ``symmetrize=True`` (then
    w(u,v) = max(A[u,v], A[v,u])). ``precision`` (see :func:`resolve_precision`): the
    weight type in which the weights must be valid (float32: the float64 weights that
    overflow or round to 0 there are invalid).
    """
    g = weighted_input(G, n=n, symmetrize=symmetrize, drop_invalid=drop_invalid, weight=weight,
                       precision=precision, fits=_host_fits)
    return g.host_graph() if isinstance(g, SparseInput) else g


def _host_fits(n, nnz, host):
    """The declared-size check of a host-side preparation: the host graph (CSR, float64
    weights, the symmetric copy) within the host's budget."""
    limits.check(None, "as_weighted_graph", limits.sizes_text(n, nnz=nnz,
                                                              entries="stored entries"),
                 host=dict(host, **{"host graph": (n + 1) * 8 + nnz * 24}))


def _from_edges(u, v, w, n, drop_invalid, precision="auto", fp64=True, fits=None):
    """The graph of edge arrays (:func:`~pyclmatch.interop.undirected_pairs`: repeats in
    one direction summed, both directions equal); then the weights are checked; self-loops
    are ignored, as a matrix's diagonal is."""
    input_dtype = np.asarray(w).dtype
    _check_dtype(input_dtype)
    fit = fits and (lambda n, m: fits(n, 2 * m, {"CSR of the edge arrays":
                                                 (n + 1) * 8 + m * 64}))
    n, a, b, w = undirected_pairs(u, v, w, n, fit)
    dtype, _ = resolve_precision(precision, input_dtype, fp64)
    off = a != b
    a, b, w = a[off], b[off], w[off]
    keep = _check_weights(w, drop_invalid, dtype)
    inexact = inexact_count(w[keep])
    A = mirrored_csr(n, a[keep], b[keep], np.asarray(w, np.float64)[keep])
    return WeightedGraph(A, None, input_dtype, 2 * inexact, drop_invalid)


def _from_sparse(coo, symmetrize, drop_invalid, nodes, dtype=np.float64):
    n = int(coo.shape[0])
    if n > INDEX_MAX:
        raise InputError(f"{n} vertices exceed the 2**31-1 supported")
    input_dtype = coo.data.dtype
    # duplicates summed first, as scipy does (ints in int64), then the checks
    A = sp.csr_matrix(coo, dtype=np.int64 if input_dtype.kind in "iu" else None, copy=True)
    A.sum_duplicates()
    A = A.tocoo()
    off = A.row != A.col                     # (the diagonal is ignored)
    r, c, w = A.row[off], A.col[off], A.data[off]
    keep = _check_weights(w, drop_invalid, dtype)
    inexact = inexact_count(w[keep])
    r, c, w = r[keep], c[keep], np.asarray(w, np.float64)[keep]
    A = sp.csr_matrix((w, (r, c)), shape=(n, n))
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
    return WeightedGraph(A, nodes, input_dtype, inexact, drop_invalid)


# --------------------------------------------------------------------------- b values

def b_values(b, n):
    """``b`` as the user gave it, checked: an int64 array of length ``n`` (an integer
    broadcasts) of non-negative integers; bools, fractions, NaN and values past int64 are
    refused (:class:`InputError` naming ``b``, a uint64 shown unsigned).

    Examples
    --------
    >>> b_values(2, 3).tolist(), b_values([1, 0, 4], 3).tolist()
    ([2, 2, 2], [1, 0, 4])
    """
    if isinstance(b, np.ndarray) and b.ndim == 0:
        b = b[()]
    if np.ndim(b) == 0 and not isinstance(b, np.ndarray):
        if isinstance(b, (float, np.floating)):
            if not (np.isfinite(b) and b == np.round(b)):
                args.refuse("b", b, "a non-negative integer (or an array of n of them)")
            b = int(b)
        v = args.integer("b", b, low=0, high=np.iinfo(np.int64).max,
                         what="a non-negative integer (or an array of n of them)")
        return np.full(n, v, np.int64)
    if np.ndim(b) == 1 and np.size(b) != n:
        raise InputError(f"b has length {np.size(b)}: it must be an integer or an array of "
                         f"length n = {n}", argument="b")
    return args.integer_array("b", b, low=0, size=n, what="non-negative integers")


def as_b(b, n, degree=None):
    """``b`` (:func:`b_values`) capped at each vertex's degree, as int32: a vertex takes at
    most as many matched edges as it has, so a larger b changes nothing, and the suitor
    lists stay proportional to the edges. ``degree``: an upper bound of each vertex's degree
    (default ``n - 1``, the most a simple graph allows).

    Examples
    --------
    >>> import numpy as np
    >>> as_b(10 ** 9, 3, np.array([1, 2, 1])).tolist()
    [1, 2, 1]
    """
    bb = b_values(b, n)
    cap = max(n - 1, 0) if degree is None else np.asarray(degree, np.int64)
    return np.minimum(bb, cap).astype(np.int32)


def degree_bound(g):
    """An upper bound of each vertex's degree in the graph of ``g`` (a :class:`SparseInput`
    or a :class:`WeightedGraph`), O(n) from its offsets: the stored entries of each list
    (diagonal and duplicates included), plus those of each column when an asymmetric input
    may be symmetrized (an O(nnz) count, then only).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> degree_bound(as_weighted_graph(sp.csr_matrix([[0, 1.0], [1.0, 0]]))).tolist()
    [1, 1]
    """
    deg = np.diff(np.asarray(g.indptr, np.int64))
    if isinstance(g, SparseInput) and g.symmetrize and g.nnz:
        # (the indices are checked later, on the device: clipped here)
        deg = deg + np.bincount(np.clip(g.indices, 0, g.n - 1), minlength=g.n)[:g.n]
    return deg


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
