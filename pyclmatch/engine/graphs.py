"""Validated graph containers and their one-time upload to a device.

:func:`as_bipartite` turns any accepted input (scipy.sparse matrix or array, dense array-like,
edge arrays) into a :class:`BipartiteGraph`: structural CSR (row adjacency) and CSC (column
adjacency) with int32 vertex ids, duplicates merged, explicit zeros kept as edges (as scipy does).
Bad input raises :class:`~pyclmatch.errors.InputError` naming the problem.
"""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import scipy.sparse as sp

from ..errors import InputError

INDEX_MAX = np.iinfo(np.int32).max


def _check_int_array(name, a):
    a = np.asarray(a)
    if a.ndim != 1:
        raise InputError(f"{name} must be a 1-D array of vertex ids, got shape {a.shape}")
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            bad = "NaN" if np.isnan(a).any() else "infinite"
            raise InputError(f"{name} contains {bad} values; vertex ids must be finite integers")
        if not np.all(a == np.round(a)):
            raise InputError(f"{name} contains non-integer values; vertex ids must be integers")
        a = a.astype(np.int64)
    elif a.dtype.kind not in "iub":
        raise InputError(f"{name} must hold integer vertex ids, got dtype {a.dtype}")
    a = a.astype(np.int64, copy=False)
    if a.size and a.min() < 0:
        raise InputError(f"{name} contains a negative index ({int(a.min())})")
    return a


def structural_csr(rows, cols, shape):
    """CSR pattern (int32 indices, int8 ones) of the edges ``(rows[i], cols[i])``."""
    A = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=shape)
    A.sum_duplicates()
    A.data[:] = 1
    return A


class BipartiteGraph:
    """Rows are one side, columns the other. ``csr``/``csc`` are structural (data = 1)."""

    def __init__(self, csr):
        self.csr = csr
        self.n_rows, self.n_cols = csr.shape
        self.nnz = int(csr.nnz)
        self._csc = None

    @property
    def csc(self):
        if self._csc is None:
            self._csc = self.csr.tocsc()
            self._csc.sort_indices()
        return self._csc

    @property
    def shape(self):
        return (self.n_rows, self.n_cols)

    def __repr__(self):
        return f"<BipartiteGraph {self.n_rows} rows x {self.n_cols} cols, {self.nnz} edges>"


def as_bipartite(A, shape=None):
    """Validate ``A`` and return a :class:`BipartiteGraph`.

    ``A`` may be a scipy.sparse matrix/array (any format; its pattern is the edge set, explicit
    zeros included), a dense 2-D array-like (nonzeros are edges), or edge arrays ``(rows, cols)``
    with ``shape`` (default: one more than the largest id on each side).
    """
    if isinstance(A, BipartiteGraph):
        return A
    if isinstance(A, tuple) and len(A) in (2, 3) and not sp.issparse(A[0]) \
            and np.ndim(A[0]) == 1:
        rows = _check_int_array("rows", A[0])
        cols = _check_int_array("cols", A[1])
        if len(A) == 3:
            if shape is not None:
                raise InputError("shape given twice (in the edge tuple and as shape=)")
            shape = A[2]
        if rows.size != cols.size:
            raise InputError(f"rows and cols differ in length ({rows.size} vs {cols.size})")
        if shape is None:
            shape = (int(rows.max()) + 1 if rows.size else 0,
                     int(cols.max()) + 1 if cols.size else 0)
        shape = _check_shape(shape)
        if rows.size and rows.max() >= shape[0]:
            raise InputError(f"row index {int(rows.max())} out of range for {shape[0]} rows")
        if cols.size and cols.max() >= shape[1]:
            raise InputError(f"column index {int(cols.max())} out of range for {shape[1]} columns")
        return BipartiteGraph(structural_csr(rows, cols, shape))
    if sp.issparse(A):
        if len(A.shape) != 2:
            raise InputError(f"the matrix must be 2-D, got shape {A.shape}")
        _check_shape(A.shape)
        coo = A.tocoo()
        rows = np.asarray(coo.row, np.int64)
        cols = np.asarray(coo.col, np.int64)
        if rows.size and (rows.min() < 0 or cols.min() < 0):
            raise InputError("the sparse matrix holds a negative index")
        if rows.size and (rows.max() >= A.shape[0] or cols.max() >= A.shape[1]):
            raise InputError("the sparse matrix holds an index out of range of its shape")
        return BipartiteGraph(structural_csr(rows, cols, A.shape))
    try:
        arr = np.asarray(A)
    except Exception as exc:
        raise InputError(f"cannot read {type(A).__name__} as a matrix: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise InputError(f"cannot read {type(A).__name__} of dtype {arr.dtype} as a numeric "
                         f"matrix")
    if arr.ndim != 2:
        raise InputError(f"the matrix must be 2-D, got {arr.ndim}-D input of shape {arr.shape}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise InputError("the dense matrix contains NaN; use 0 for no edge")
    _check_shape(arr.shape)
    r, c = np.nonzero(arr)
    return BipartiteGraph(structural_csr(r, c, arr.shape))


def _check_shape(shape):
    try:
        m, n = (int(x) for x in shape)
    except Exception:
        raise InputError(f"shape must be a pair of integers, got {shape!r}") from None
    if m < 0 or n < 0:
        raise InputError(f"shape must be non-negative, got {shape!r}")
    if m > INDEX_MAX or n > INDEX_MAX:
        raise InputError(f"shape {shape!r} exceeds the 2**31-1 vertices per side supported")
    return (m, n)


def index_types(nnz):
    """OpenCL C types (vertex id, edge offset) and numpy dtypes for a graph with ``nnz`` edges."""
    if nnz > INDEX_MAX:
        return ("int", "long"), (np.int32, np.int64)
    return ("int", "int"), (np.int32, np.int32)


class DeviceBipartite:
    """A :class:`BipartiteGraph` uploaded once: CSC always, CSR on demand (pyopencl arrays)."""

    def __init__(self, handle, graph, need_csr=False, extra_bytes=0):
        self.handle, self.graph = handle, graph
        (self.index_t, self.offset_t), (idt, odt) = index_types(graph.nnz)
        self.idt, self.odt = np.dtype(idt), np.dtype(odt)
        need = {"column offsets": (graph.n_cols + 1) * self.odt.itemsize,
                "column adjacency": graph.nnz * self.idt.itemsize}
        if need_csr:
            need["row offsets"] = (graph.n_rows + 1) * self.odt.itemsize
            need["row adjacency"] = graph.nnz * self.idt.itemsize
        need.update(extra_bytes or {})
        handle.check_fits(need)
        # the engine's upload (read-only: wrapped on CPU devices, one asynchronous copy into
        # the pool on GPUs; pyopencl keeps a temporary host array alive until its copy ends)
        csc = graph.csc
        self.col_ptr = handle.to_device(csc.indptr.astype(self.odt, copy=False))
        self.col_ind = handle.to_device(csc.indices.astype(self.idt, copy=False))
        self.row_ptr = self.row_ind = None
        self._heavy = {}
        if need_csr:
            csr = graph.csr
            self.row_ptr = handle.to_device(csr.indptr.astype(self.odt, copy=False))
            self.row_ind = handle.to_device(csr.indices.astype(self.idt, copy=False))

    @property
    def type_values(self):
        return {"index_t": self.index_t, "offset_t": self.offset_t}

    def heavy(self, side, threshold):
        """The heavy vertices of ``side`` (``"cols"`` or ``"rows"``): those of degree greater
        than ``threshold``, in increasing id order, as a :class:`HeavyList` (computed once per
        side and threshold, then cached with this device graph).

        The count comes from the host's offsets (no device round trip), so a side without
        heavy vertices costs no device work; otherwise the list is a ``copy_if`` scan over the
        device offsets. The degree-aware kernels hand these vertices to whole work-groups
        (HEAVY TIER in ``kernels/common.cl.mako``).
        """
        key = (side, int(threshold))
        hit = self._heavy.get(key)
        if hit is not None:
            return hit
        if side == "cols":
            host_ptr, ptr = self.graph.csc.indptr, self.col_ptr
        elif side == "rows":
            if self.row_ptr is None:
                raise ValueError("the row adjacency was not uploaded (need_csr=False)")
            host_ptr, ptr = self.graph.csr.indptr, self.row_ptr
        else:
            raise ValueError(f"side must be 'cols' or 'rows', not {side!r}")
        count = int(np.count_nonzero(np.diff(host_ptr) > threshold))
        vertices = None
        if count:
            from pyopencl.algorithm import copy_if
            q = self.handle.queue
            ids = cla.arange(q, ptr.size - 1, dtype=self.idt)
            out, _, _ = copy_if(ids, "xadj[ary[i] + 1] - xadj[ary[i]] > threshold",
                                extra_args=[("xadj", ptr), ("threshold", self.odt.type(threshold))],
                                queue=q)
            vertices = out[:count].copy(queue=q)
        hit = self._heavy[key] = HeavyList(vertices, count, int(threshold))
        return hit


class HeavyList:
    """Vertices of degree > ``threshold`` of one side: a device array of ``count`` ids (None
    when there is none)."""

    __slots__ = ("vertices", "count", "threshold")

    def __init__(self, vertices, count, threshold):
        self.vertices, self.count, self.threshold = vertices, count, threshold

    def __repr__(self):
        return f"<HeavyList {self.count} vertices of degree > {self.threshold}>"
