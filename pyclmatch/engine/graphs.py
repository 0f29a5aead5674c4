"""Validated graph containers and their one-time upload to a device.

:func:`as_bipartite` turns any accepted input (scipy.sparse matrix or array, dense array-like,
edge arrays) into a :class:`BipartiteGraph`, which keeps a CSR or CSC as the user holds it (no
copy); :class:`DeviceBipartite` checks it and builds the other side on the device
(:mod:`pyclmatch.engine.intake`). Duplicates merge and explicit zeros are edges (as in scipy).
Bad input raises :class:`~pyclmatch.errors.InputError` naming the problem.
"""
import numpy as np
import scipy.sparse as sp

from ..errors import InputError
from . import args
from .indices import (INDEX_MAX, FORCE_OFFSET64_ENV, force_offset64,  # noqa: F401 (re-exported)
                      index_types, offset_type, require_offset64)
from .compressed import NOT_CANONICAL, UNSORTED, checked_csr, raise_structure_problem


def degree_stats(indptr):
    """(largest degree, dispersion) of the rows of a compressed matrix with index pointer
    ``indptr``: the dispersion is the degrees' variance over their mean (about 1 for uniform
    random graphs, whose degrees are Poisson, at most ~0.3 for meshes, far above 1 for
    power-law graphs; 0 for a graph without edges). O(n) on the host.

    >>> degree_stats([0, 2, 4, 6])
    (2, 0.0)
    """
    indptr = np.asarray(indptr)
    n = indptr.size - 1
    if n <= 0:
        return 0, 0.0
    deg = np.diff(indptr).astype(np.float64)
    mean = float(indptr[-1] - indptr[0]) / n
    if mean <= 0:
        return int(deg.max()), 0.0
    # (E[d^2] - mean^2: one BLAS dot instead of var's centred copy; exact for equal degrees)
    return int(deg.max()), max(float(deg @ deg) / n - mean * mean, 0.0) / mean


def structural_csr(rows, cols, shape):
    """CSR pattern (int32 indices, int8 ones) of the edges ``(rows[i], cols[i])``."""
    A = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=shape)
    A.sum_duplicates()
    A.data[:] = 1
    return A


class BipartiteGraph:
    """Rows are one side, columns the other.

    Holds the user's compressed arrays as they are (``fmt`` ``"csr"``: the lists are the
    rows', ``"csc"``: the columns'; any index dtype; no copy): the device checks and
    transposes them (:class:`DeviceBipartite`). ``csr``/``csc`` are structural canonical host
    matrices (data = 1), built on first use for host-side work (``verify="host"``, peers in
    benchmarks); the device path never builds them.
    """

    def __init__(self, A):
        if not sp.issparse(A) or A.format not in ("csr", "csc"):
            A = sp.csr_matrix(A)
        self.fmt = A.format
        self.indptr, self.indices = A.indptr, A.indices
        self.n_rows, self.n_cols = (int(x) for x in A.shape)
        self.nnz = int(A.indptr[-1]) if A.indptr.size else 0
        if 0 <= self.nnz < self.indices.size:   # storage past indptr[-1]: not entries (scipy)
            self.indices = self.indices[:self.nnz]
        self._host = {}

    @property
    def major(self):
        """(lists, other side) sizes of the stored arrays."""
        return (self.n_rows, self.n_cols) if self.fmt == "csr" else (self.n_cols, self.n_rows)

    def _structural(self, fmt):
        M = self._host.get(fmt)
        if M is None:
            cls = sp.csr_matrix if self.fmt == "csr" else sp.csc_matrix
            # (copies: scipy's sum_duplicates works in place, and the arrays are the user's)
            A = cls((np.ones(self.indices.size, np.int8), self.indices.copy(),
                     self.indptr.copy()), shape=self.shape)
            A.sum_duplicates()
            A.data[:] = 1
            M = A.asformat(fmt)
            M.sort_indices()
            self._host[fmt] = M
        return M

    @property
    def csr(self):
        return self._structural("csr")

    @property
    def csc(self):
        return self._structural("csc")

    @property
    def shape(self):
        return (self.n_rows, self.n_cols)

    def __repr__(self):
        return f"<BipartiteGraph {self.n_rows} rows x {self.n_cols} cols, {self.nnz} edges>"


def as_bipartite(A, shape=None, fits=None):
    """Validate ``A`` and return a :class:`BipartiteGraph`.

    ``A`` may be a scipy.sparse matrix/array (any format; its pattern is the edge set, explicit
    zeros included), a dense 2-D array-like (nonzeros are edges), edge arrays ``(rows, cols)``
    with ``shape`` (default: one more than the largest id on each side), or a pandas
    DataFrame with integer columns ``source`` (row ids) and ``target`` (column ids).

    ``fits(n_rows, n_cols, nnz, host, index_bytes)``, when given, is called with the declared
    sizes before anything proportional to them is allocated (``host``: the bytes of the host
    conversion this input needs, ``index_bytes``: the itemsize of the indices that go to the
    device); it raises when the call cannot fit (:func:`pyclmatch.engine.limits.check`).
    """
    if shape is not None:
        shape = _check_shape(shape, "shape")
    with args.blame("A"):
        graph = _as_bipartite(A, shape, fits or (lambda *a: None))
    if shape is not None and graph.shape != shape:
        raise InputError(f"shape={args.shown(shape)} contradicts the matrix, which is "
                         f"{graph.n_rows} x {graph.n_cols}: shape sizes edge arrays only "
                         f"(leave it out)", argument="shape")
    return graph


def _as_bipartite(A, shape, fits):
    """:func:`as_bipartite` without the argument names of its errors."""
    if isinstance(A, BipartiteGraph):
        fits(A.n_rows, A.n_cols, A.nnz, {}, A.indices.dtype.itemsize)
        return A
    if not sp.issparse(A):   # (graphs and data frames: pyclmatch.interop, loaded for them)
        from ..interop import bipartite_edges, is_backend_graph, is_igraph, is_networkx
        if is_networkx(A) or is_igraph(A) or is_backend_graph(A):
            raise InputError(f"maximum_matching takes the biadjacency matrix (rows = one "
                             f"side, columns = the other), not a {type(A).__name__}; for a "
                             f"networkx graph call networkx.bipartite.maximum_matching(G, "
                             f"backend='pyclmatch'), or build the matrix with "
                             f"networkx.bipartite.biadjacency_matrix / igraph's "
                             f"get_biadjacency")
        A = bipartite_edges(A)
    if isinstance(A, tuple) and len(A) in (2, 3) and not sp.issparse(A[0]) \
            and np.ndim(A[0]) == 1:
        return _edge_bipartite(A, shape, fits)
    if sp.issparse(A):
        return _sparse_bipartite(A, fits)
    return _dense_bipartite(A, fits)


def _edge_bipartite(A, shape, fits):
    """The graph of an edge tuple ``(rows, cols[, shape])`` (:func:`as_bipartite`)."""
    rows = args.vertex_ids("rows", A[0], "A")
    cols = args.vertex_ids("cols", A[1], "A")
    where = "shape"
    if len(A) == 3:
        if shape is not None:
            raise InputError("shape given twice (in the edge tuple and as shape=)",
                             argument="shape")
        shape, where = _check_shape(A[2], "A"), "A"
    if rows.size != cols.size:
        raise InputError(f"rows and cols differ in length ({rows.size} vs {cols.size})")
    if shape is None:
        shape = _check_shape((int(rows.max()) + 1 if rows.size else 0,
                              int(cols.max()) + 1 if cols.size else 0), "A")
    if rows.size and rows.max() >= shape[0]:
        raise InputError(f"row index {int(rows.max())} out of range for shape {shape}: "
                         f"ids must be < the shape", argument=where)
    if cols.size and cols.max() >= shape[1]:
        raise InputError(f"column index {int(cols.max())} out of range for shape "
                         f"{shape}: ids must be < the shape", argument=where)
    fits(shape[0], shape[1], rows.size,
         {"CSR of the edge arrays": (shape[0] + 1) * 8 + rows.size * 25}, 4)
    return BipartiteGraph(structural_csr(rows, cols, shape))


def _sparse_bipartite(A, fits):
    """The graph of a scipy.sparse biadjacency matrix (CSR or CSC kept, others converted)."""
    if len(A.shape) != 2:
        raise InputError(f"the matrix must be 2-D, got shape {A.shape}")
    nr, nc = _check_shape(A.shape, "A")
    if A.format not in ("csr", "csc"):
        fits(nr, nc, A.nnz, {"CSR conversion": (nr + 1) * 8 + A.nnz * 16}, 4)
        A = checked_csr(A)          # (duplicates stay for the device)
    if A.indices.dtype.kind not in "iu" or A.indptr.dtype.kind not in "iu":
        raise InputError(f"the sparse matrix's index arrays must be integers, got "
                         f"{A.indices.dtype} / {A.indptr.dtype}")
    fits(nr, nc, int(A.indptr[-1]) if A.indptr.size else 0, {},
         A.indices.dtype.itemsize)
    return BipartiteGraph(A)


def _dense_bipartite(A, fits):
    """The graph of a dense numeric matrix: its nonzeros are the edges."""
    try:
        arr = np.asarray(A)
    except Exception as exc:
        raise InputError(f"cannot read {type(A).__name__} as a matrix: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise InputError(f"cannot read {type(A).__name__} of dtype {arr.dtype} as a numeric "
                         f"matrix")
    if arr.ndim != 2:
        raise InputError(f"the matrix must be 2-D, got {arr.ndim}-D input of shape {arr.shape}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = arr[~np.isfinite(arr)][0]
        raise InputError(f"the dense matrix contains "
                         f"{'NaN' if np.isnan(bad) else args.shown(bad)}; its nonzeros are the "
                         f"edges: use 0 for no edge and a finite number for an edge")
    nr, nc = _check_shape(arr.shape, "A")
    fits(nr, nc, int(np.count_nonzero(arr)), {}, 4)
    r, c = np.nonzero(arr)
    return BipartiteGraph(structural_csr(r, c, arr.shape))


def _check_shape(shape, argument):
    """``shape`` as a pair of ints of at most 2**31-1 (:func:`args.shape`); a refusal names
    ``argument`` (``"shape"``, or ``"A"`` for the edge tuple's shape or a matrix's)."""
    with args.blame(argument, instead="shape"):
        return args.shape("shape", shape, high=INDEX_MAX)


class DeviceBipartite:
    """A :class:`BipartiteGraph` on a device (pyopencl arrays): the column adjacency
    (``col_ptr``/``col_ind``) always, the row adjacency (``row_ptr``/``row_ind``) when asked
    for or when it is the user's side.

    The user's side (``user_side``, ``user_lists``) goes up as it is and is checked there
    (:mod:`pyclmatch.engine.intake`); the other side is its transpose, built on the device.
    ``sorted_side`` names the side whose lists are sorted (the user's; the transpose's lists
    are in no particular order), or is None. Input the device finds unsorted or with repeated
    entries is made canonical on the device (``repaired`` is then True), unless
    ``canonical=False``: the lists then stay as given, repeated entries included (a repeated
    entry is a parallel edge, which changes no matching, cover or decomposition), and
    ``sorted_side`` is None when they are unsorted (the matching families pass it on CPU
    devices, where the device sort of a large unsorted input costs more than the matching).
    Offsets are 32-bit up to
    2**31-1 edges and 64-bit above (:func:`index_types`), on the same device path.
    """

    @args.blame("A")
    def __init__(self, handle, graph, need_csr=False, extra_bytes=0, sched=None,
                 canonical=True):
        self.handle, self.graph = handle, graph
        (self.index_t, self.offset_t), (idt, odt) = index_types(graph.nnz)
        self.idt, self.odt = np.dtype(idt), np.dtype(odt)
        need_csr = need_csr or graph.fmt == "csr"
        need = {"column offsets": (graph.n_cols + 1) * self.odt.itemsize,
                "column adjacency": graph.nnz * self.idt.itemsize}
        if need_csr:
            need["row offsets"] = (graph.n_rows + 1) * self.odt.itemsize
            need["row adjacency"] = graph.nnz * self.idt.itemsize
        if graph.indices.dtype != np.int32:
            need["input indices"] = graph.nnz * 8
        need.update(extra_bytes or {})
        handle.check_fits(need)
        # (the device intake loads pyopencl: imported here, for the host paths' sake)
        from .intake import DeviceCompressed, canonical_lists
        from .scheduler import Scheduler
        sched = sched or Scheduler(handle)
        self.row_ptr = self.row_ind = None
        self._heavy = {}
        self.repaired = False
        n, n_minor = graph.major
        transpose = need_csr or graph.fmt == "csr"
        dc = DeviceCompressed(handle, graph.indptr, graph.indices, n, n_minor,
                              transpose=transpose, sched=sched, offset_t=self.offset_t)
        bits = dc.problems(sched)
        raise_structure_problem(bits, "the sparse matrix")
        if bits & NOT_CANONICAL and canonical:   # sorted and merged on the device, taken again
            ptr, ind, nnz = canonical_lists(dc, sched, graph.indptr)
            dc = DeviceCompressed(handle, ptr, ind, n, n_minor, transpose=transpose,
                                  sched=sched, nnz=nnz, offset_t=self.offset_t)
            graph.nnz = nnz
            self.repaired = True
        if graph.fmt == "csr":
            self.row_ptr, self.row_ind = dc.ptr, dc.ind
            self.col_ptr, self.col_ind = dc.t_ptr, dc.t_ind
            self.user_side = "rows"
        else:
            self.col_ptr, self.col_ind = dc.ptr, dc.ind
            self.row_ptr, self.row_ind = dc.t_ptr, dc.t_ind
            self.user_side = "cols"
        # (repeated entries alone leave a list non-decreasing: still binary-searchable)
        self.sorted_side = None if bits & UNSORTED and not self.repaired else self.user_side
        # on a CPU device the uploaded input may wrap a converted host copy, which stays
        # referenced while the enqueued transpose reads it
        self._raw = dc._raw if handle.is_cpu else None

    @property
    def user_lists(self):
        """``(ptr, ind)`` of the user's side (sorted when ``sorted_side`` is not None)."""
        if self.user_side == "rows":
            return self.row_ptr, self.row_ind
        return self.col_ptr, self.col_ind

    @property
    def type_values(self):
        return {"index_t": self.index_t, "offset_t": self.offset_t}

    def heavy(self, side, threshold, sched=None):
        """The heavy vertices of ``side`` (``"cols"`` or ``"rows"``): those of degree greater
        than ``threshold``, in increasing id order, as a :class:`HeavyList` (computed once per
        side and threshold, then cached with this device graph; :meth:`heavy_many`). The
        degree-aware kernels hand these vertices to whole work-groups (HEAVY TIER in
        ``kernels/common.cl.mako``).
        """
        return self.heavy_many((side,), threshold, sched)[0]

    def heavy_many(self, sides, threshold, sched=None):
        """:meth:`heavy` of each of ``sides``: a ``copy_if`` scan over the device offsets
        per side not cached yet, and one read-back of their counts together (through
        ``sched`` when given: counted there, and in a raced call a wait that polls the host
        attempt, :meth:`~pyclmatch.engine.scheduler.Scheduler.read_many`)."""
        threshold = int(threshold)
        todo = {}
        for side in sides:
            if (side, threshold) in self._heavy or side in todo:
                continue
            if side == "cols":
                ptr = self.col_ptr
            elif side == "rows":
                if self.row_ptr is None:
                    raise ValueError("the row adjacency was not uploaded (need_csr=False)")
                ptr = self.row_ptr
            else:
                raise ValueError(f"side must be 'cols' or 'rows', not {side!r}")
            if ptr.size <= 1:
                self._heavy[(side, threshold)] = HeavyList(None, 0, threshold)
                continue
            q = self.handle.queue
            ids = self.handle.arange(ptr.size - 1, self.idt, queue=q)
            todo[side] = self.handle.copy_if(
                ids, "xadj[ary[i] + 1] - xadj[ary[i]] > threshold",
                extra_args=[("xadj", ptr), ("threshold", self.odt.type(threshold))],
                queue=q)[:2]
        if todo:
            if sched is not None:
                counts = sched.read_many("upload", [c for _, c in todo.values()])
            else:
                counts = [self.handle.download(c) for _, c in todo.values()]
            for (side, (out, _)), count in zip(todo.items(), counts):
                count = int(np.asarray(count).reshape(-1)[0])
                vertices = out[:count].copy(queue=self.handle.queue) if count else None
                self._heavy[(side, threshold)] = HeavyList(vertices, count, threshold)
        return [self._heavy[(side, threshold)] for side in sides]


class HeavyList:
    """Vertices of degree > ``threshold`` of one side: a device array of ``count`` ids (None
    when there is none)."""

    __slots__ = ("vertices", "count", "threshold")

    def __init__(self, vertices, count, threshold):
        self.vertices, self.count, self.threshold = vertices, count, threshold

    def __repr__(self):
        return f"<HeavyList {self.count} vertices of degree > {self.threshold}>"


class TransposedBipartite:
    """A :class:`DeviceBipartite` seen with rows and columns swapped (the graph of ``A.T``),
    sharing its buffers: the drivers that walk column lists (the alternating BFS) then walk
    the rows' lists. The device graph must hold its row lists (``need_csr=True``)."""

    def __init__(self, dgraph):
        if dgraph.row_ptr is None:
            raise ValueError("the row adjacency was not uploaded (need_csr=False)")
        self.base, self.handle = dgraph, dgraph.handle
        g = dgraph.graph
        self.graph = _Shape(g.n_cols, g.n_rows, g.nnz)
        self.col_ptr, self.col_ind = dgraph.row_ptr, dgraph.row_ind
        self.row_ptr, self.row_ind = dgraph.col_ptr, dgraph.col_ind
        self.idt, self.odt = dgraph.idt, dgraph.odt
        self.index_t, self.offset_t = dgraph.index_t, dgraph.offset_t
        self.type_values = dgraph.type_values

    def heavy_many(self, sides, threshold, sched=None):
        flip = {"cols": "rows", "rows": "cols"}
        return self.base.heavy_many([flip[s] for s in sides], threshold, sched)


class _Shape:
    __slots__ = ("n_rows", "n_cols", "nnz")

    def __init__(self, n_rows, n_cols, nnz):
        self.n_rows, self.n_cols, self.nnz = n_rows, n_cols, nnz

    @property
    def shape(self):
        return (self.n_rows, self.n_cols)
