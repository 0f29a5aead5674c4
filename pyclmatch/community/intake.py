"""The input of the community calls: the user's graph (scipy sparse, dense, networkx,
igraph, edge arrays) checked and made the symmetric CSR matrix the drivers take, and the
repairs the device's input check asks for.

:func:`as_symmetric_csr` is O(1) on a CSR matrix whose weights have a dtype the device reads:
the O(nnz) checks (indices, order, duplicates, weights, symmetry) are left to the device
(:meth:`~pyclmatch.community.louvain.DeviceLouvain.check_input`), which asks for
:func:`repair` where a matrix needs one (rare), or refuses it.
"""
import numpy as np
import scipy.sparse as sp

from ..engine import args
from ..engine.compressed import check_compressed_host, checked_csr
from ..errors import InputError
from ..interop import foreign_graph, is_edge_tuple, mirrored_csr, undirected_pairs
from .dtypes import unit_scale
from .louvain import (ASYMMETRIC, OVERFLOW, BAD_INF, BAD_NAN, BAD_NEG, BAD_RANGE, BAD_SCALE)


def as_symmetric_csr(G, check_symmetric=True, check_values=True, fits=None, weight="weight",
                      name="G"):
    """:func:`_symmetric_csr`, its errors naming the graph argument ``name``:
    ``(csr, nodes or None, symmetry_checked)``.

    Examples
    --------
    >>> import networkx as nx
    >>> A, nodes, symmetric = as_symmetric_csr(nx.path_graph(3))
    >>> A.toarray().tolist(), nodes, symmetric
    ([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], [0, 1, 2], True)
    """
    with args.blame(name):
        return _symmetric_csr(G, check_symmetric, check_values, fits, weight)


def _symmetric_csr(G, check_symmetric, check_values, fits, weight):
    """Validate ``G`` and return ``(csr, nodes or None, symmetry_checked)``. The data keeps its
    dtype (bool becomes int8). With ``check_symmetric=False`` the (costly, O(nnz) transpose)
    symmetry test is left to the device, which checks every entry's twin before running
    (networkx graphs need none). With ``check_values=False`` the O(nnz) passes are left to the
    device as well (:func:`louvain`): the weights are not checked (NaN, infinite, negative),
    explicit zeros stay and a matrix not known to be canonical (sorted indices, no duplicates:
    scipy's cached flag) is passed as it is; the device checks all of it and the caller
    repairs or rejects the matrix (:func:`repair`). Otherwise the result is canonical, with
    no explicit zeros and valid weights. ``fits(n, nnz, host)``, when given, is called with
    the declared sizes before any conversion proportional to them
    (:func:`pyclmatch.engine.limits.check`)."""
    fits = fits or (lambda *args: None)
    A, nodes, symmetric = _as_matrix(G, weight, fits)
    A = _square_csr(A, G, fits)
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


def _as_matrix(G, weight, fits):
    """``(matrix, nodes or None, known symmetric)`` of any input :func:`_symmetric_csr`
    takes: a foreign graph, an edge tuple, a scipy.sparse matrix or a dense array."""
    nodes, symmetric = None, False
    fg = foreign_graph(G, weight, fits=fits)
    if fg is not None:     # networkx, igraph, pandas edge list, networkx-backend graph
        if fg.directed:
            raise InputError(f"louvain needs an undirected graph; got a directed "
                             f"{type(G).__name__} (make it undirected first if the direction "
                             f"does not matter)")
        A, nodes, symmetric = fg.csr, fg.nodes, True
    elif is_edge_tuple(G, (2, 3, 4)):      # (u, v[, w[, n]]): undirected edges
        n = G[3] if len(G) == 4 else None
        n = None if n is None else args.integer("n", n, low=0)
        A = mirrored_csr(*undirected_pairs(G[0], G[1], G[2] if len(G) > 2 else None, n,
                                           lambda n, m: fits(n, 2 * m, {})))
        symmetric = True
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
        if arr.dtype == np.float16:         # (scipy.sparse has no float16: exact in float32)
            arr = arr.astype(np.float32)
        A = sp.csr_matrix(arr)
    return A, nodes, symmetric


def _square_csr(A, G, fits):
    """The square numeric matrix ``A`` (read from the input ``G``) as a CSR matrix whose
    arrays agree, bool weights as int8; its sizes checked (``fits``) before a conversion."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        hint = ("; a list is read as the rows of a dense matrix: give edges as a tuple of "
                "arrays (u, v[, w[, n]])" if isinstance(G, list) else "")
        raise InputError(f"the adjacency matrix must be square, got shape {A.shape}{hint}")
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
    return A


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


def repair(A, bits):
    """The host's answer to the device's input flags (``louvain.BAD_*``): raise the documented
    error, or return the repaired matrix (canonical, no explicit zeros)."""
    if bits & BAD_RANGE:
        raise InputError("the matrix has an index out of range (negative or >= n) or a "
                         "decreasing indptr")
    A = _canonical(A)                  # (duplicates summed before the weights are checked)
    if bits & (BAD_NAN | BAD_INF | BAD_NEG):
        _check_values_host(A)          # (raises unless the merge repaired them: [3, -1] is 2)
        if bits & BAD_INF:             # (finite values: a self-loop, counted twice, overflowed)
            raise InputError(OVERFLOW)
    if A.nnz and not A.data.all():
        A = A.copy()
        A.eliminate_zeros()
    if bits & BAD_SCALE:
        A = scaled_weights(A)
    return A


def scaled_weights(A):
    """``A`` (a copy) with its weights as float64 multiplied by the power of two that brings
    the largest to [0.5, 1) (:func:`unit_scale`)."""
    data, = unit_scale(A.data.astype(np.float64))
    return sp.csr_matrix((data, A.indices, A.indptr), shape=A.shape)


def _check_symmetric_host(A):
    T = A.tocsc()     # = A.T in CSR layout, rows sorted within each column
    if np.array_equal(A.indptr, T.indptr) and np.array_equal(A.indices, T.indices):
        diff = np.abs(A.data.astype(np.float64) - T.data.astype(np.float64))
        if not diff.size or diff.max() <= 1e-12 * max(1.0, float(np.abs(A.data).max())):
            return
    raise InputError(ASYMMETRIC)     # (named by the caller's args.blame: louvain's G, ...)
