"""The certificate of a maximum bipartite matching on the host: :class:`KonigCover` (a König
vertex cover) and :func:`verify_matching`, the host's check of a matching and its cover
(``verify="host"``, and every answer of the host family). Only numpy and scipy: the host
family answers without loading pyopencl. The device's certificate is
:mod:`pyclmatch.bipartite.konig`."""
from dataclasses import dataclass

import numpy as np

from ..engine import args
from ..engine.compressed import check_compressed_host
from ..engine.graphs import as_bipartite
from ..errors import VerificationError
from .hk_core import check_matching_and_cover


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


def _match_array(name, value, n):
    """A match array of :func:`verify_matching`: ``n`` integers (any values: those out of
    range are a wrong matching, found by the check), else an :class:`InputError` naming
    ``name``. An integer array of the right shape is taken as it is (no copy)."""
    if isinstance(value, np.ndarray) and value.shape == (n,) and value.dtype.kind in "iu" \
            and value.dtype != np.uint64:
        return value
    return args.integer_array(name, value, size=n)
