"""The assignment problem as the solver sees it: the user's matrix taken in (checked, canonical
CSR, costs in the minimisation form), turned into the square problem that the auction solves,
and the square problem's answer and dual variables turned back into the user's.

The reduction (the classic doubling): a problem whose answer need not match every vertex of
both sides (a rectangular full problem, or ``full=False``) becomes the square problem with
rows ``R + C'`` and columns ``C + R'`` (a copy of each side): the original entries
``(i, j)``; for each of them the transposed entry ``(j', i')`` at the same cost ``c_ij``;
each column's own ``(j', j)`` at cost 0 (column ``j`` unmatched) and, for a partial problem,
each row's own ``(i, i')`` at cost 0 (row ``i`` unmatched). A perfect matching of it is a
matching ``M1`` of the original on ``R x C`` and a matching ``M2`` of the same rows and
columns on the copies: its cost is at least twice the original's optimum, and exactly that
with ``M1 = M2`` optimal, so ``M1`` of an optimal one is optimal. (Copies at cost 0, the
textbook's choice, leave ``M2`` free among many ties, and the auction then runs long price
wars among them.) Its dual variables give the original's (:func:`original_duals`):
``(u_i + v_i') / 2`` for row ``i`` and ``(v_j + u_j') / 2`` for column ``j``, which are
feasible, <= 0 where a side may stay unmatched, 0 at its unmatched vertices and tight on the
matched entries (an optimal dual is tight on every optimal matching, ``M1`` beside its own
copy among them).

Examples
--------
>>> import numpy as np
>>> from pyclmatch.assignment.problem import take_in
>>> p = take_in(np.array([[4.0, 1.0], [2.0, np.inf]]), maximize=False, full=True)
>>> p.shape, p.cost.tolist(), p.indices.tolist()
((2, 2), [4.0, 1.0, 2.0], [0, 1, 0])
"""
import warnings

import numpy as np
import scipy.sparse as sp

from ..engine import args
from ..errors import InputError
from .finish import entry_positions


class Problem:
    """A checked assignment problem in the minimisation form: ``shape`` ``(nr, nc)``, the
    canonical CSR arrays ``indptr``, ``indices`` (int64, int32; sorted rows, no duplicates)
    and ``cost`` (float64: the user's values, negated when ``maximize``), ``full`` (every
    vertex of the smaller side matched) and ``maximize``; ``extremes``: the costs' ``(min,
    max)``, where the intake found them already (else computed when first asked)."""

    def __init__(self, shape, indptr, indices, cost, maximize, full, extremes=None):
        self.shape = (int(shape[0]), int(shape[1]))
        self.indptr, self.indices, self.cost = indptr, indices, cost
        self.maximize, self.full = bool(maximize), bool(full)
        self._extremes = extremes

    @property
    def extremes(self):
        """``(min, max)`` of the costs (0, 0 without any)."""
        if self._extremes is None:
            self._extremes = _extremes(self.cost)
        return self._extremes

    @property
    def nnz(self):
        return int(self.indices.size)

    def rows(self):
        """The row of each stored entry."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int32), np.diff(self.indptr))

    def csr(self):
        """The pattern and costs as a scipy CSR matrix (no copy)."""
        return sp.csr_matrix((self.cost, self.indices, self.indptr), shape=self.shape)

    def transposed(self):
        """The same problem with rows and columns swapped."""
        t = self.csr().T.tocsr()
        t.sort_indices()
        return Problem(t.shape, t.indptr.astype(np.int64), t.indices.astype(np.int32),
                       t.data, self.maximize, self.full, self._extremes)

    def objective(self, row_match, pos=None, values=None):
        """The user's objective (the sum of the user's values of the matched entries);
        ``pos``: their positions, ``values``: their costs, where known (every row
        matched)."""
        rows = np.flatnonzero(row_match >= 0)
        if not rows.size:
            return 0.0
        if values is None:
            if pos is None:
                pos = entry_positions(self.indptr, self.indices, rows, row_match[rows])
            values = self.cost[pos]
        total = float(values.sum())
        return -total if self.maximize else total


#: the largest magnitude of a value: the potentials and reduced costs, sums and differences
#: of up to four values, stay finite in float64 below it (2**1020)
COST_MAX = 2.0 ** 1020


def as_array(data, argument):
    """``data`` as a numpy array, or an :class:`InputError` naming ``argument`` where numpy
    cannot make one (ragged nested lists, ...).

    Examples
    --------
    >>> as_array([[1, 2], [3, 4]], "A").shape
    (2, 2)
    >>> as_array([[1, 2], [3]], "A")
    Traceback (most recent call last):
    ...
    pyclmatch.errors.InputError: A cannot be read as an array: ...
    """
    try:
        return np.asarray(data)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{argument} cannot be read as an array: {exc}",
                         argument=argument) from None


def _real_values(data, argument):
    """``data`` as float64; refuses what is not real numbers (complex, strings, objects)."""
    data = as_array(data, argument)
    if data.dtype.kind not in "biuf":
        raise InputError(f"{argument} must hold real numbers, not {data.dtype}",
                         argument=argument)
    return data.astype(np.float64, copy=False)


def _extremes(x):
    """``(min, max)`` of ``x`` as floats (NaN where it holds one; 0 when empty): two passes,
    no temporary array."""
    return (float(x.min()), float(x.max())) if x.size else (0.0, 0.0)


def _canonical_csr(A, argument):
    """A sparse ``A`` as a CSR with float64 values, sorted indices and no duplicates (summed),
    never modifying ``A``: a canonical float64 CSR is ``A`` itself (no copy of its entries),
    a canonical one of other values shares its index arrays, the others are copies."""
    m = A if A.format == "csr" else A.tocsr()
    data = _real_values(m.data, argument)
    if not m.has_canonical_format:
        m = m.copy() if m is A else m
        m.data = data.astype(np.float64)                 # (a copy: summed in place next)
        m.sum_duplicates()
    elif data is not m.data:
        m = sp.csr_matrix((data, m.indices, m.indptr), shape=m.shape)
    return m


def _dense_csr(dense, dense_inf):
    """The CSR of a dense matrix's allowed entries (the finite ones when ``dense_inf``, else
    all: the caller found them all finite), built row by row as numpy lays them out (no
    sort, and flagged sorted: scipy need not check)."""
    nr, nc = dense.shape
    allowed = np.isfinite(dense) if dense_inf else None
    if allowed is None or allowed.all():
        indptr = np.arange(nr + 1, dtype=np.int64) * nc
        cols = np.empty((nr, nc), np.int32)
        cols[:] = np.arange(nc, dtype=np.int32)          # (a broadcast: faster than np.tile)
        m = sp.csr_matrix((dense.ravel(), cols.ravel(), indptr), shape=(nr, nc))
    else:
        indptr = np.zeros(nr + 1, np.int64)
        np.cumsum(allowed.sum(axis=1), out=indptr[1:])
        m = sp.csr_matrix((dense[allowed], np.nonzero(allowed)[1].astype(np.int32), indptr),
                          shape=(nr, nc))
    m.has_sorted_indices = True
    return m


def take_in(A, *, maximize, full, argument="A", dense_inf=True, drop_zeros=False,
            invalid=None):
    """The :class:`Problem` of ``A`` (scipy sparse, or a dense array-like: then its finite
    entries are the allowed pairs and ``+-inf`` forbidden, when ``dense_inf``).
    ``drop_zeros``: explicit zeros are removed with a warning (scipy's
    ``min_weight_full_bipartite_matching``). NaN, and infinite stored entries of a sparse
    matrix, are refused; so is a dense matrix holding ``invalid`` (scipy's
    ``linear_sum_assignment`` refuses ``-inf`` when minimising, ``+inf`` when maximising),
    as NaN is."""
    if sp.issparse(A):
        if A.ndim != 2:
            raise InputError(f"{argument} must be a 2-D matrix", argument=argument)
        m = _canonical_csr(A, argument)
        if drop_zeros and m.nnz and not m.data.all():
            warnings.warn("explicit zero weights are removed before matching", UserWarning,
                          stacklevel=3)
            m = m.copy() if m is A else m
            m.eliminate_zeros()
        lo, hi = _extremes(m.data)
    else:
        dense = _real_values(A, argument)
        if dense.ndim != 2:
            raise InputError(f"expected a matrix (2-D array), got a {dense.ndim}-D array",
                             argument=argument)
        lo, hi = _extremes(dense)
        if (np.isnan(lo) or np.isnan(hi)) and np.isnan(dense).any() or \
                invalid is not None and invalid in (lo, hi):
            raise InputError("matrix contains invalid numeric entries", argument=argument)
        complete = np.isfinite(lo) and np.isfinite(hi)
        m = _dense_csr(dense, dense_inf and not complete)
        if dense_inf and not complete:
            lo, hi = _extremes(m.data)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise InputError(f"{argument} holds NaN or infinite stored entries; every stored "
                         f"entry must be a finite real number", argument=argument)
    big = max(hi, -lo)
    if big > COST_MAX:
        raise InputError(f"{argument} holds a value of magnitude {big:.3g}: the dual variables "
                         f"(sums and differences of the values) would overflow float64; "
                         f"values up to {COST_MAX:.3g} are allowed (scaling every value by one "
                         f"positive factor leaves the optimal assignment as it is)",
                         argument=argument)
    m.sort_indices()
    cost = -m.data if maximize else m.data        # (never written to: may share the user's)
    return Problem(m.shape, m.indptr.astype(np.int64), m.indices.astype(np.int32, copy=False),
                   cost, maximize, full, (-hi, -lo) if maximize else (lo, hi))


def square(p):
    """The square problem the auction solves for ``p`` (whose rows are its smaller side when
    ``p.full``): ``p`` itself when it is square and full, else the doubled problem (module
    docstring). Returns ``(indptr, indices, cost, n, extremes)``, ``extremes`` the costs'
    ``(min, max)`` (the doubled problem's are ``p``'s and zeros)."""
    nr, nc = p.shape
    lo, hi = p.extremes
    if p.full and nr == nc:
        return p.indptr, p.indices, p.cost, nr, (lo, hi)
    return _doubled(p) + (nr + nc, (min(lo, 0.0), max(hi, 0.0)))


def _doubled(p):
    """The doubled problem's CSR arrays ``(indptr, indices, cost)``, rows sorted, laid out
    directly: row ``i`` is ``p``'s row (then ``(i, i')`` when partial), row ``j'`` is
    ``(j', j)`` then column ``j`` of ``p`` (the transpose of ``p`` under a row of zeros,
    shifted by ``nc - 1``)."""
    nr, nc = p.shape
    under = sp.csr_matrix((np.concatenate([np.zeros(nc), p.cost]),
                           np.concatenate([np.arange(nc, dtype=np.int32), p.indices]),
                           np.concatenate([[0], nc + p.indptr])), shape=(nr + 1, nc)).tocsc()
    bottom = under.indices + np.int32(nc - 1)
    bottom[under.indptr[:-1]] = np.arange(nc)
    if p.full:
        top, top_cost, top_ptr = p.indices, p.cost, p.indptr
    else:                                       # (row i's entries move down by i)
        top_ptr = p.indptr + np.arange(nr + 1)
        top, top_cost = np.empty(top_ptr[-1], np.int32), np.zeros(top_ptr[-1])
        at = np.arange(p.nnz, dtype=np.int64) + \
            np.repeat(np.arange(nr, dtype=np.int64), np.diff(p.indptr))
        top[at], top_cost[at] = p.indices, p.cost
        top[top_ptr[1:] - 1] = nc + np.arange(nr)
    indptr = np.concatenate([top_ptr, top_ptr[-1] + under.indptr[1:]]).astype(np.int64)
    return indptr, np.concatenate([top, bottom]), np.concatenate([top_cost, under.data])


def original_duals(p, row_match, u, v, pos=None, tight=False):
    """The original problem's answer from the square problem's (:func:`square`): ``(row_match,
    col_match, u, v)``. The matched entries are made exactly tight (``u_i = c_ij - v_j``),
    the potentials of the unmatched vertices of a side that may stay unmatched exactly 0.
    ``pos``: the positions of the matched entries in ``p``, where known (``p`` square and
    full); ``tight``: ``u`` makes them exactly tight already (``p`` square and full)."""
    nr, nc = p.shape
    if p.full and nr == nc:
        rm, uu, vv = row_match, u, v
    else:
        rm = row_match[:nr].copy()
        rm[rm >= nc] = -1
        uu = (u[:nr] + v[nc:nc + nr]) / 2
        vv = (v[:nc] + u[nr:nr + nc]) / 2
    cm = np.full(nc, -1, np.int32)
    if nr == nc and p.full and nr and rm.min() >= 0:       # (every row: no gathers)
        cm[rm] = np.arange(nr, dtype=np.int32)
        if tight:
            return rm.astype(np.int32, copy=False), cm, u, v
        if pos is None:
            pos = entry_positions(p.indptr, p.indices, np.arange(nr), rm)
        return rm.astype(np.int32, copy=False), cm, p.cost[pos] - v[rm], v
    matched = np.flatnonzero(rm >= 0)
    cm[rm[matched]] = matched
    if not (p.full and nr == nc):
        vv = np.minimum(vv, 0.0)
        vv[cm < 0] = 0.0
        if not p.full:
            uu = np.minimum(uu, 0.0)
            uu[rm < 0] = 0.0
    if matched.size:
        if pos is None:
            pos = entry_positions(p.indptr, p.indices, matched, rm[matched])
        uu = uu.copy()
        uu[matched] = p.cost[pos] - vv[rm[matched]]
    return rm.astype(np.int32), cm, uu, vv


def deficiency_error(p, size, argument="A"):
    """The :class:`InputError` of a full problem whose largest matching has ``size`` < the
    smaller side."""
    nr, nc = p.shape
    side = "row" if nr <= nc else "column"
    return InputError(f"no full matching exists: the largest matching of the {nr} x {nc} "
                      f"matrix {argument} has {size} entries, so {min(nr, nc) - size} "
                      f"{side}(s) must stay unmatched (structural rank {size})",
                      argument=argument)


def checked_flags(maximize, full):
    """``maximize`` and ``full`` as bools (:mod:`pyclmatch.engine.args`)."""
    return args.boolean("maximize", maximize), args.boolean("full", full)
