"""Public calls of the assignment family: :func:`assignment` (the optimal matching of a sparse
biadjacency matrix, with its dual variables), and scipy's two assignment solvers with the
same signatures, return values and errors (:func:`min_weight_full_bipartite_matching`,
:func:`linear_sum_assignment`)."""
from __future__ import annotations

from dataclasses import dataclass
import time

import numpy as np
import scipy.sparse as sp

from .._record import RunRecord
from ..engine import args
from ..engine.devices import device_call, get_device
from ..engine.scheduler import Scheduler
from ..errors import InputError
from .auction import SCALING, AuctionMatcher
from .finish import SLACK, exact, matched_positions
from .problem import (as_array, checked_flags, deficiency_error, original_duals, square,
                      take_in)
from .restrict import restricted, solve_restricted
from .slackness import DeviceSlackness, verify_assignment


class InputTypeError(InputError, TypeError):
    """An input of a type scipy's drop-in refuses with a ``TypeError`` (a dense matrix where
    a sparse one is needed, complex or string values): also an :class:`InputError`.

    Examples
    --------
    >>> issubclass(InputTypeError, TypeError) and issubclass(InputTypeError, ValueError)
    True
    """


@dataclass
class AssignmentResult(RunRecord):
    """Result of :func:`assignment`: ``row_match[i]`` the column of row ``i`` (-1 unmatched),
    ``col_match[j]`` the row of column ``j``, ``objective`` the sum of the matched entries'
    values, ``u`` and ``v`` the row and column potentials of the minimisation form (costs
    ``c = A``, or ``c = -A`` when ``maximize``): ``c_ij - u_i - v_j >= 0`` on every stored
    entry, 0 on the matched ones, the certificate of optimality (:mod:`.slackness`).

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> res = pyclmatch.assignment(np.array([[4.0, 1.0], [2.0, 3.0]]))
    >>> res.row_match.tolist(), res.objective, res.cardinality
    ([1, 0], 3.0, 2)
    """
    row_match: np.ndarray
    col_match: np.ndarray
    objective: float
    u: np.ndarray
    v: np.ndarray
    maximize: bool = False
    full: bool = True

    @property
    def cardinality(self):
        return int((self.row_match >= 0).sum())

    @property
    def pairs(self):
        """``(row_ind, col_ind)`` of the matched entries, by increasing row."""
        rows = np.flatnonzero(self.row_match >= 0)
        return rows, self.row_match[rows].astype(np.int64)


def _feasible(p, handle):
    """Refuse a full problem without a full matching (the exact cardinality code,
    :func:`~pyclmatch.maximum_matching`'s ``auto`` choice between the host and the device
    families, its certificate left out: only the size is used)."""
    from ..bipartite.api import maximum_matching
    if not p.full or min(p.shape) == 0 or p.nnz == p.shape[0] * p.shape[1]:
        return                                  # (a complete bipartite graph: a full one)
    pattern = sp.csr_matrix((np.ones(p.nnz, np.int8), p.indices, p.indptr), shape=p.shape)
    size = 0 if not p.nnz else int(maximum_matching(pattern, device=handle,
                                                    verify=False).cardinality)
    if size < min(p.shape):
        raise deficiency_error(p, size)


def _solve(p, handle, sched, scaling, stats):
    """Auction + exact finishing of ``p`` (rows its smaller side when full): ``(row_match,
    col_match, u, v, objective, known)``, ``known`` what the certificate may reuse: the
    costs' largest magnitude (``"scale"``) and, where ``p`` is square itself, its offsets,
    indices and costs on the device (``"uploaded"``). Where a few huge costs (a "big M")
    made the rounded benefits too coarse for the rest, the entries that no optimal
    assignment can hold are dropped and the auction runs again (:func:`_needless_above`);
    the host's tightening then makes the duals feasible on every entry."""
    indptr, indices, cost, n, extremes = square(p)
    doubled = not (p.full and p.shape[0] == p.shape[1])     # (square(): module problem)
    rm, u, v, (pos, mc), drv = _auction(indptr, indices, cost, n, handle, sched, scaling,
                                        stats, extremes, doubled)
    bmap = drv.map
    known = {"scale": bmap.scale}               # (of every cost of p, and zeros)
    if indices is p.indices:
        known["uploaded"] = (drv.ptr, drv.col, drv.c)
    bound = _needless_above(indptr, indices, cost, n, rm, mc, bmap)
    if bound is not None:
        keep = cost <= bound
        kept = np.concatenate(([0], np.cumsum(keep)))[indptr]     # (the kept rows' indptr)
        rm, u, v, _, _ = _auction(kept, indices[keep], cost[keep], n, handle, sched,
                                  scaling, stats, None, doubled)
        with sched.step("finish"):
            rm, u, v, fs = exact(indptr, indices, cost, rm, v,
                                 INTEGER_TOL if bmap.integers else None)
        stats["tighten_passes"] += fs["tighten_passes"]
        stats["augmented"] += fs["augmented"]
        stats["needless_entries"] = int(keep.size - keep.sum())
        pos = mc = None
    with sched.step("finish"):
        if doubled:
            pos = mc = None             # (positions in the doubled problem, not in p's)
        out = original_duals(p, rm, u, v, pos, tight=mc is not None)
        objective = p.objective(out[0], pos, mc)
    return (*out, objective, known)


def _auction(indptr, indices, cost, n, handle, sched, scaling, stats, extremes=None,
             doubled=False):
    """The auction and the exact finishing on the square problem: ``(row_match, u, v, (pos,
    mc), driver)``, ``pos`` and ``mc`` the matched entries' positions and costs (None where
    the host finished; else ``u = mc - v[row_match]``, the matched entries tight), the
    driver holding the problem on the device and its benefit map (``extremes``: the costs'
    ``(min, max)`` where known).
    The tightening runs on the device; the host finishes
    (:func:`~pyclmatch.assignment.finish.exact`) where it does not converge. Its tolerance
    is relative to the costs and potentials; for a ``doubled`` problem relative to the
    costs alone as far as the potentials' rounding allows (:func:`_tight_scale`)."""
    drv = AuctionMatcher(handle, indices.size, scaling, avg_degree=indices.size / max(n, 1))
    with sched.step("build"):
        drv.build(*drv.KERNELS)
    rm, price, st = drv.run(indptr, indices, cost, sched, extremes)
    whole = drv.map.integers        # (integer potentials: every reduced cost exact, tol < 1)
    v = -np.rint(price * drv.map.unit) if whole else -(price * drv.map.unit)
    tol = INTEGER_TOL if whole else SLACK * _tight_scale(drv.map.scale, v, doubled) / 16
    ok, u, v, passes, pos, mc = drv.tighten(cost, tol, sched) \
        if n else (True, np.zeros(0), v, 0, None, None)
    with sched.step("finish"):
        fs = {"tighten_passes": passes, "augmented": 0}
        if not ok:
            rm, u, v, fs = exact(indptr, indices, cost, rm, v, tol)
            fs["tighten_passes"] += passes
            pos = mc = None
    stats.update(st, **fs, exact_benefits=int(drv.map.exact))
    return rm, u, v, (pos, mc), drv


def _tight_scale(scale, v, doubled):
    """What the tightening's tolerance is relative to: the largest magnitude of the costs
    (``scale``) and of the potentials ``v``. A doubled problem's potentials are averaged
    into the original's (:func:`~pyclmatch.assignment.problem.original_duals`), which are
    of the costs' magnitude and certified relative to it: its potentials count for 1/64
    only, as much as their float64 rounding (2**-52 each) allows."""
    most = float(np.abs(v).max(initial=0.0))
    return max(scale, most / 64 if doubled else most, 1e-300)


#: the finishing step's tolerance on a reduced cost where the costs are integers below
#: 2**50 and the potentials integers too: every reduced cost is then exact, so any value
#: below 1 proves the assignment optimal exactly
INTEGER_TOL = 0.25
#: the rounded benefits are too coarse when entries that no optimal assignment holds widen
#: the costs' range by this factor or more
NEEDLESS_RANGE = 2.0 ** 8


def _needless_above(indptr, indices, cost, n, rm, mc, bmap):
    """The cost above which no entry can be in an optimal assignment of the square problem,
    where dropping those entries narrows the range of the costs by :data:`NEEDLESS_RANGE` or
    more and the benefits were rounded (else None): the assignment ``rm`` found costs ``U``
    and every entry at least ``cmin``, so an assignment holding an entry dearer than ``U -
    (n - 1) cmin`` costs more than ``U``. (The bound gets a relative margin of 2**-30 against
    its own rounding; ``rm``'s entries stay below it, so the rest keeps a full matching.)
    ``mc``: the matched entries' costs, where known."""
    if bmap.exact or not n:
        return None
    if mc is None:
        mc = cost[matched_positions(indptr, indices, rm)]
    total, cmin = float(mc.sum()), bmap.cmin
    bound = total - (n - 1) * cmin
    bound += 2.0 ** -30 * max(abs(total), abs((n - 1) * cmin), 1e-300)
    if not (bound - cmin) * NEEDLESS_RANGE <= bmap.cmax - cmin:
        return None
    return bound


@device_call
def assignment(A, *, maximize=False, full=True, device=None, verify=True,
               scaling=SCALING) -> AssignmentResult:
    """The optimal (minimum-cost or maximum-weight) matching of a bipartite graph given by its
    biadjacency matrix, on an OpenCL device.

    Parameters
    ----------
    A : scipy sparse matrix (its stored entries are the allowed pairs with their values, any
        finite reals, explicit zeros included; duplicates summed) or dense array-like (its
        finite entries are the allowed pairs, ``inf`` forbids one). Rectangular allowed.
    maximize : minimise the sum of the matched values (default) or maximise it.
    full : True (default): every vertex of the smaller side is matched (an
        :class:`~pyclmatch.errors.InputError` naming ``A`` and its structural rank when no
        such matching exists); False: the optimal matching of any size (the unmatched
        vertices count 0).
    device : see :func:`pyclmatch.get_device`.
    verify : True or ``"device"`` (default): the answer is certified on the device by linear
        programming duality (:mod:`pyclmatch.assignment.slackness`); ``"host"``: the same
        check on the host; False: none. A failure raises ``VerificationError``.
    scaling : the factor by which the auction's epsilon shrinks per phase (>= 2).

    Returns
    -------
    AssignmentResult with ``row_match``, ``col_match`` (int32, -1 unmatched), ``objective``,
    the potentials ``u``, ``v``, ``timings`` (``prepare``, ``check`` (the cardinality check),
    ``build``, ``upload``, ``auction``, ``download``, ``finish``, ``verify``, ``total``
    and ``kernel:<phase>``) and ``counters`` (``phases``, ``rounds``: the auction's scaling
    phases and bidding rounds; ``tighten_passes``, ``augmented``: the finishing step's).

    Examples
    --------
    >>> import scipy.sparse as sp, pyclmatch
    >>> A = sp.csr_matrix([[5.0, 0, 1], [2, 3, 0]])
    >>> res = pyclmatch.assignment(A)
    >>> res.row_match.tolist(), res.objective
    ([2, 0], 3.0)
    >>> pyclmatch.assignment(A, maximize=True).objective
    8.0
    """
    t0 = time.perf_counter()
    maximize, full = checked_flags(maximize, full)
    verify = args.verify("verify", verify)
    scaling = args.integer("scaling", scaling, low=2, high=1 << 20)
    return _assign(take_in(A, maximize=maximize, full=full), device, verify, scaling, t0)


def _assign(p, device, verify, scaling, t0):
    """:func:`assignment` of the problem ``p`` (its arguments checked; ``t0`` the call's
    start)."""
    handle = get_device(device)
    sched = Scheduler(handle, label="assignment[auction]")
    sched.wall["prepare"] = time.perf_counter() - t0
    with sched.step("check"):
        _feasible(p, handle)
    flip = p.full and p.shape[0] > p.shape[1]
    q = p.transposed() if flip else p
    stats = {}
    if restricted(q, handle.is_cpu):
        rm, cm, u, v, objective, known = solve_restricted(
            q, lambda r: _solve(r, handle, sched, scaling, stats),
            lambda r: _feasible(r, handle), stats)
    else:
        rm, cm, u, v, objective, known = _solve(q, handle, sched, scaling, stats)
    if flip:
        rm, cm, u, v = cm, rm, v, u
        known.pop("uploaded", None)             # (q's arrays, not p's)
    if verify == "host":
        with sched.step("verify"):
            verify_assignment(p, rm, cm, u, v)
    elif verify:
        with sched.step("verify"):
            DeviceSlackness(handle, p).verify(rm, cm, u, v, sched, **known)
    res = AssignmentResult(rm, cm, objective, u, v, p.maximize, p.full,
                           algorithm="auction", device=handle.label, verified=bool(verify))
    res.counters = {**sched.call_counters(), **stats}
    res.timings = sched.timings()
    res.timings["total"] = time.perf_counter() - t0
    return res


def _truth(maximize):
    """``maximize`` as scipy reads it (any value with a truth value), or an
    :class:`~pyclmatch.errors.InputError` naming it where it has none (an array)."""
    try:
        return bool(maximize)
    except (ValueError, TypeError) as exc:
        raise InputError(f"maximize={args.shown(maximize)} is not allowed: it must be True "
                         f"or False ({exc})", argument="maximize") from None


def min_weight_full_bipartite_matching(biadjacency_matrix, maximize=False):
    """scipy's ``scipy.sparse.csgraph.min_weight_full_bipartite_matching`` on the device
    (:func:`assignment`), with its signature, return values and errors: ``(row_ind,
    col_ind)``, every vertex of the smaller side matched; explicit zeros are removed with a
    ``UserWarning``; ``ValueError("no full matching exists")`` when none does; ``TypeError``
    for a dense matrix. NaN and infinite stored entries are refused (``ValueError``).

    Examples
    --------
    >>> import scipy.sparse as sp, pyclmatch
    >>> A = sp.csr_matrix([[1.0, 2.0, 0], [3.0, 0, 5.0]])
    >>> pyclmatch.min_weight_full_bipartite_matching(A)
    (array([0, 1]), array([1, 0], dtype=int32))
    """
    if not sp.issparse(biadjacency_matrix):
        raise InputTypeError("graph must be sparse", argument="biadjacency_matrix")
    A = biadjacency_matrix
    with args.blame("biadjacency_matrix", instead="A"):
        if np.asarray(A.data).dtype.kind not in "biuf":
            raise InputTypeError(f"cannot take {A.dtype} values as real numbers",
                                 argument="biadjacency_matrix")
        p = take_in(A, maximize=_truth(maximize), full=True, drop_zeros=True)
        nr, nc = p.shape
        if min(nr, nc) == 0:
            empty = (np.zeros(0, np.int64), np.zeros(0, np.int32))
            return empty if nr <= nc else empty[::-1]
        res = assignment(p.csr() if not p.maximize else -p.csr(), maximize=p.maximize)
    if nr <= nc:
        return np.arange(nr), res.row_match.astype(np.int32)
    rows, cols = res.pairs                      # (scipy: by row, the row indices int32)
    return rows.astype(np.int32), cols.astype(np.int64)


@device_call
def linear_sum_assignment(cost_matrix, maximize=False):
    """scipy's ``scipy.optimize.linear_sum_assignment`` on the device (:func:`assignment`),
    with its signature, return values and errors: ``(row_ind, col_ind)`` sorted by row, the
    smaller side matched; ``inf`` forbids an entry; NaN, and ``-inf`` (``+inf`` when
    maximising) give ``ValueError("matrix contains invalid numeric entries")``, an
    infeasible matrix ``ValueError("cost matrix is infeasible")``.

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> cost = np.array([[4, 1, 3], [2, 0, 5], [3, 2, 2]])
    >>> pyclmatch.linear_sum_assignment(cost)
    (array([0, 1, 2]), array([1, 0, 2]))
    """
    c = as_array(cost_matrix, "cost_matrix")
    if c.ndim != 2:
        raise InputError(f"expected a matrix (2-D array), got a {c.ndim}-D array",
                         argument="cost_matrix")
    if c.dtype.kind not in "biuf":
        raise InputTypeError(f"Cannot cast array data from {c.dtype!r} to "
                             f"dtype('float64') according to the rule 'safe'",
                             argument="cost_matrix")
    t0 = time.perf_counter()
    c, maximize = c.astype(np.float64, copy=False), _truth(maximize)
    p = take_in(c, maximize=maximize, full=True, argument="cost_matrix",
                invalid=np.inf if maximize else -np.inf)
    if min(c.shape) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    try:
        res = _assign(p, None, True, SCALING, t0)        # (assignment's defaults)
    except InputError as exc:
        if str(exc).startswith("no full matching"):
            raise InputError("cost matrix is infeasible", argument="cost_matrix") from None
        raise
    rows, cols = res.pairs
    return rows.astype(np.int64), cols
