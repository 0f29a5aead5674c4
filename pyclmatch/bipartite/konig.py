"""The certificate of a maximum bipartite matching: a König vertex cover, assembled and
checked on the device by kernels independent of the algorithm that computed the matching
(``kernels/konig.cl.mako``), or checked on the host (:func:`verify_matching`,
``verify="host"``).

The checks, on either side: every mate is in range and mutual, every matched pair is an edge,
every edge has an end in the cover, and the cover has as many vertices as the matching has
edges, which proves the matching maximum (König).
"""
from dataclasses import dataclass

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ..engine import args
from ..engine.devices import device_call, get_device
from ..engine.family import KernelFamily
from ..engine.graphs import DeviceBipartite, as_bipartite
from ..engine.intake import check_compressed_host
from ..engine.scheduler import Scheduler
from ..errors import VerificationError
from .hk_core import check_matching_and_cover

#: out[] slots and bad bits of konig.cl.mako
OUT_BAD, OUT_MATCHED_ROWS, OUT_COVER_ROWS, OUT_MATCHED_COLS, OUT_COVER_COLS = range(5)
BAD_MATE, BAD_PAIR, NOT_EDGE, UNCOVERED = 1, 2, 4, 8


@dataclass
class KonigCover:
    """A minimum vertex cover (König): every edge has an end in it, and its size equals the
    cardinality of the matching, which proves the matching maximum.

    Attributes
    ----------
    rows, cols : numpy.ndarray of int32
        The rows and the columns in the cover.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> A = sp.csr_matrix([[1, 0, 0], [1, 0, 0], [0, 1, 1]])   # rows 0 and 1 share column 0
    >>> cover = pyclmatch.maximum_matching(A, device="cpu").certificate
    >>> cover.size, cover.rows.tolist(), cover.cols.tolist()
    (2, [2], [0])
    """
    rows: np.ndarray
    cols: np.ndarray

    @property
    def size(self):
        """Vertices in the cover (rows and columns)."""
        return int(self.rows.size + self.cols.size)


def verify_matching(graph, row_match, col_match, cover=None):
    """Host-side certificate check: a consistent matching on edges of the graph, and (given a
    cover) a vertex cover of every edge whose size equals the cardinality, which proves the
    matching maximum.

    Vectorized passes over ``graph``'s compressed arrays as they are (unsorted lists and
    repeated entries allowed; :func:`~pyclmatch.bipartite.hk_core.check_matching_and_cover`),
    after the intake's structure checks.

    Parameters
    ----------
    graph : scipy.sparse matrix/array or anything :func:`maximum_matching` takes
    row_match, col_match : array-like of int
        The column of each row and the row of each column (-1: unmatched).
    cover : KonigCover, optional
        Without it, only the matching is checked (not that it is maximum).

    Returns
    -------
    True

    Raises
    ------
    VerificationError
        Naming the first problem found (a wrong matching or cover).
    InputError
        A malformed matrix (``argument == "graph"``), or a match array that is not ``n_rows``
        (``row_match``) or ``n_cols`` (``col_match``) integers.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from pyclmatch.bipartite import KonigCover, verify_matching
    >>> A = sp.csr_matrix([[1, 0, 0], [1, 0, 0], [0, 1, 1]])
    >>> verify_matching(A, [0, -1, 1], [0, 2, -1], KonigCover([2], [0]))
    True
    >>> verify_matching(A, [0, -1, 1], [0, 2, -1], KonigCover([2], []))
    Traceback (most recent call last):
    ...
    pyclmatch.errors.VerificationError: the König cover has 1 vertices but the matching has 2 edges
    """
    with args.blame("graph", instead="A"):
        if not hasattr(graph, "major"):     # (a scipy matrix or anything as_bipartite takes)
            graph = as_bipartite(graph)
        nr, nc = graph.shape
        n_major, n_minor = graph.major
        check_compressed_host(graph.indptr, graph.indices, n_minor)
    rm, cm = _match_array("row_match", row_match, nr), _match_array("col_match", col_match, nc)
    csr = graph.fmt == "csr"
    major, minor = (rm, cm) if csr else (cm, rm)
    if cover is None:
        cmaj = cmin = None
    else:
        cmaj, cmin = (cover.rows, cover.cols) if csr else (cover.cols, cover.rows)
    problem = check_matching_and_cover(graph.indptr, graph.indices, n_major, n_minor, major,
                                       minor, cmaj, cmin,
                                       names=("row", "col") if csr else ("col", "row"))
    if problem:
        raise VerificationError(problem)
    return True


def konig_cover(graph, row_match, col_match, visited_cols):
    """König cover on the host from the last alternating BFS (``visited_cols``: the columns
    reached from unmatched columns): the matched columns not reached and the mates of the
    reached matched columns (as the device's ``konig_cover`` kernel)."""
    cols = np.flatnonzero((col_match >= 0) & ~visited_cols)
    rows = col_match[(col_match >= 0) & visited_cols]
    return KonigCover(rows=np.sort(rows).astype(np.int32), cols=cols.astype(np.int32))


class DeviceCertificate(KernelFamily):
    """The König cover of a device graph's matching, built and verified on the device.

    :meth:`cover` enqueues the cover flags from the last BFS; :meth:`verify` enqueues the
    checks, reads their counters (one read-back) and raises
    :class:`~pyclmatch.errors.VerificationError` naming what failed; :meth:`download` brings
    the cover's vertex lists back.
    """

    TEMPLATE = "konig.cl.mako"

    def __init__(self, handle, dgraph):
        super().__init__(handle, mode="ct", by_rows=handle.is_cpu, **dgraph.type_values)
        self.dg = dgraph
        self.wg = handle.default_work_group_size()
        self.cover_r = self.cover_c = None

    def build(self):
        """Fetch the cover and check kernels."""
        super().build("konig_cover", "verify_side", "verify_cover")

    def _grid(self, n):
        return min(self.handle.constant_grid(self.wg), -(-max(int(n), 1) // self.wg) * self.wg)

    def cover(self, rmatch, cmatch, bfs_array, sched, phase="certificate"):
        """Enqueue the cover flags (``cover_r``, ``cover_c``) from the last BFS."""
        q = self.handle.queue
        nr, nc = self.dg.graph.shape
        self.cover_r = cla.empty(q, max(nr, 1), np.uint8, allocator=self.handle.pool)
        self.cover_c = cla.empty(q, max(nc, 1), np.uint8, allocator=self.handle.pool)
        sched.launch(phase, self.kernel("konig_cover"), self._grid(max(nr, nc)), self.wg,
                     np.int32(nr), np.int32(nc), rmatch.data, cmatch.data, bfs_array.data,
                     self.cover_r.data, self.cover_c.data)

    def verify(self, rmatch, cmatch, sched, phase="verify", defer=False):
        """Check the matching and the cover on the device; returns the cardinality.
        ``defer=True`` returns the device buffer of the checks' five int32 counters instead,
        for the caller to read with the results (:meth:`download_packed`) and pass to
        :func:`check_counts`."""
        q = self.handle.queue
        g = self.dg.graph
        nr, nc = g.shape
        out = self.handle.scratch(5, np.int32)
        sched.fill(phase, out, 0)
        ptr, ind = self.dg.user_lists
        rows_user = self.dg.user_side == "rows"
        look = 1 if self.dg.sorted_side else 2     # (binary search, or a scan of the list)
        side = self.kernel("verify_side")
        sched.launch(phase, side, self._grid(nr), self.wg, np.int32(nr), np.int32(nc),
                     rmatch.data, cmatch.data, self.cover_r.data, ptr.data, ind.data,
                     np.int32(look if rows_user else 0), out, np.int32(OUT_MATCHED_ROWS),
                     np.int32(OUT_COVER_ROWS))
        sched.launch(phase, side, self._grid(nc), self.wg, np.int32(nc), np.int32(nr),
                     cmatch.data, rmatch.data, self.cover_c.data, ptr.data, ind.data,
                     np.int32(0 if rows_user else look), out, np.int32(OUT_MATCHED_COLS),
                     np.int32(OUT_COVER_COLS))
        major, minor = (self.cover_r, self.cover_c) if rows_user else \
            (self.cover_c, self.cover_r)
        sched.launch(phase, self.kernel("verify_cover"), self._grid(g.nnz), self.wg,
                     np.int32(nr if rows_user else nc), self.dg.odt.type(g.nnz), ptr.data,
                     ind.data, major.data, minor.data, out)
        if defer:
            return out
        host = sched.read(phase, np.zeros(5, np.int32), out)
        check_counts(host)
        return int(host[OUT_MATCHED_ROWS])

    def download(self, rmatch, cmatch, sched, phase="download"):
        """The matching and its cover in one read: ``(row_match, col_match, cover)``.

        The cover's vertex lists are made from its flags on the device (scans), their sizes
        read back, and the two match arrays and the two lists gathered into one buffer that
        comes back in one download through the page-locked stage
        (:meth:`DeviceHandle.download`); the host only slices it (int32 ids, scipy's dtype
        for matchings)."""
        q, h = self.handle.queue, self.handle
        nr, nc = self.dg.graph.shape
        lists = [cla.empty(q, max(n, 1), np.int32, allocator=h.pool) for n in (nr, nc)]
        total = cla.empty(q, 2, np.int32, allocator=h.pool)
        sched.fill(phase, total, 0)
        for k, (flags, n) in enumerate(((self.cover_r, nr), (self.cover_c, nc))):
            if n:
                sched.record(phase, h.flatnonzero(flags[:n], lists[k], total, k))
        kr, kc = (int(x) for x in sched.read(phase, np.zeros(2, np.int32), total.data))
        out = cla.empty(q, max(nr + nc + kr + kc, 1), np.int32, allocator=h.pool)
        at = 0
        for src, n in ((rmatch, nr), (cmatch, nc), (lists[0], kr), (lists[1], kc)):
            if n:
                sched.record(phase, cl.enqueue_copy(q, out.data, src.data, byte_count=4 * n,
                                                    dst_offset=4 * at))
            at += n
        host = h.download(out)
        cover = KonigCover(rows=host[nr + nc:nr + nc + kr], cols=host[nr + nc + kr:at])
        return host[:nr], host[nr:nr + nc], cover


    #: graphs with at most this many vertices (both sides) come back by
    #: :meth:`download_packed`, whose host pass over the cover flags costs less than the
    #: device's list scans and their extra read-back
    PACKED_MAX_VERTICES = 1 << 18

    def packed(self):
        """Whether :meth:`download_packed` suits this graph (see ``PACKED_MAX_VERTICES``)."""
        nr, nc = self.dg.graph.shape
        return nr + nc <= self.PACKED_MAX_VERTICES

    def download_packed(self, rmatch, cmatch, sched, status=(), phase="download"):
        """The matching, its cover and device buffers ``status`` of five int32 counters each
        (left on the device by the kernels before) in one read-back: ``(status host arrays,
        row_match, col_match, cover)``. The arrays are gathered into one buffer by device
        copies (the status arrays, the two match arrays, then the two cover flag arrays as
        bytes) and read in one blocking copy; the host turns the flags into vertex lists
        (``np.flatnonzero``: one pass over ``nr + nc`` bytes, for small graphs)."""
        q, h = self.handle.queue, self.handle
        nr, nc = self.dg.graph.shape
        parts = [(buf, 0, 20) for buf in status]
        parts += [(a.base_data, a.offset, b) for a, b in ((rmatch, 4 * nr), (cmatch, 4 * nc),
                                                          (self.cover_r, nr),
                                                          (self.cover_c, nc))]
        words = max(-(-sum(b for _, _, b in parts) // 4), 1)
        out = h.scratch(words, np.int32)
        at = 0
        for src, offset, b in parts:
            if b:
                sched.record(phase, cl.enqueue_copy(q, out, src, byte_count=b,
                                                    dst_offset=at, src_offset=offset))
            at += b
        host = sched.read(phase, np.empty(words, np.int32), out).view(np.uint8)
        at, res = 0, []
        for _ in status:
            res.append(host[at:at + 20].view(np.int32))
            at += 20
        rm = host[at:at + 4 * nr].view(np.int32)
        cm = host[at + 4 * nr:at + 4 * (nr + nc)].view(np.int32)
        at += 4 * (nr + nc)
        cover = KonigCover(rows=np.flatnonzero(host[at:at + nr]).astype(np.int32),
                           cols=np.flatnonzero(host[at + nr:at + nr + nc]).astype(np.int32))
        return res, rm, cm, cover


def check_counts(out):
    """Raise the :class:`VerificationError` that the device's counters ``out`` call for."""
    bad = int(out[OUT_BAD])
    if bad & BAD_MATE:
        raise VerificationError("a match array holds an invalid index")
    if bad & BAD_PAIR:
        raise VerificationError("row_match and col_match disagree")
    if bad & NOT_EDGE:
        raise VerificationError("a matched pair is not an edge of the graph")
    mr, mc = int(out[OUT_MATCHED_ROWS]), int(out[OUT_MATCHED_COLS])
    if mr != mc:
        raise VerificationError(f"{mr} rows but {mc} columns are matched")
    if bad & UNCOVERED:
        raise VerificationError("an edge is not covered by the König cover: the matching "
                                "is not maximum")
    size = int(out[OUT_COVER_ROWS]) + int(out[OUT_COVER_COLS])
    if size != mr:
        raise VerificationError(f"the König cover has {size} vertices but the matching has "
                                f"{mr} edges")


@device_call
def _match_array(name, value, n):
    """A match array of :func:`verify_matching`: ``n`` integers (any values: those out of
    range are a wrong matching, found by the check), else an :class:`InputError` naming
    ``name``. An integer array of the right shape is taken as it is (no copy)."""
    if isinstance(value, np.ndarray) and value.shape == (n,) and value.dtype.kind in "iu" \
            and value.dtype != np.uint64:
        return value
    return args.integer_array(name, value, size=n)


def verify_matching_device(graph, row_match, col_match, cover, device=None):
    """:func:`verify_matching` on the device: uploads the graph (engine intake), the matching
    and the cover flags, runs the kernels that ``maximum_matching(verify=True)`` runs and
    raises :class:`~pyclmatch.errors.VerificationError` on any inconsistency."""
    graph = as_bipartite(graph)
    handle = get_device(device)
    sched = Scheduler(handle, label="verify_matching_device")
    dg = DeviceBipartite(handle, graph, sched=sched, canonical=not handle.is_cpu)  # (as the
    nr, nc = graph.shape                                    # matching families upload it)
    rm, cm = np.asarray(row_match), np.asarray(col_match)
    if rm.shape != (nr,) or cm.shape != (nc,):
        raise VerificationError(f"match arrays have shapes {rm.shape}, {cm.shape}; "
                                f"expected ({nr},), ({nc},)")
    for a in (rm, cm):
        if a.size and (a.min() < -1 or a.max() > np.iinfo(np.int32).max):
            raise VerificationError("a match array holds an invalid index")
    cert = DeviceCertificate(handle, dg)
    flags = []
    for n, vs in ((nr, cover.rows), (nc, cover.cols)):
        f = np.zeros(max(n, 1), np.uint8)
        f[np.asarray(vs, np.int64)] = 1
        flags.append(f)
    if int(flags[0].sum() + flags[1].sum()) != cover.size:
        raise VerificationError("the König cover lists a vertex twice")
    q = handle.queue
    cert.cover_r, cert.cover_c = (cla.to_device(q, f) for f in flags)
    cert.verify(cla.to_device(q, rm.astype(np.int32).reshape(-1) if nr else
                              np.zeros(1, np.int32)),
                cla.to_device(q, cm.astype(np.int32).reshape(-1) if nc else
                              np.zeros(1, np.int32)), sched)
    return True
