"""Complete (dense) problems solved on a few entries per row first: a complete full problem
with more columns than rows (``linear_sum_assignment`` on 100 workers and 1000 tasks, or
2000 and 2100) is solved on each row's :data:`KEEP` cheapest entries, and the answer's dual
variables are checked on every entry of the whole problem; the entries with a negative
reduced cost join and the restricted problem is solved again, until none is left (at most
:data:`ROUNDS` times; then the whole problem). Duals feasible on every entry prove the
answer optimal for the whole problem (the certificate checks them again, independently).
An optimal assignment of random costs holds few entries far down its rows' orders, so the
first restricted problem usually is the last.

Such a problem would otherwise be doubled (:mod:`pyclmatch.assignment.problem`): a square
problem of ``nr + nc`` rows, every entry twice, whose auction then works on columns that
no optimal answer uses. A complete square problem is restricted where :data:`SQUARE` says
so for the device's type: on CPU devices, where the dense auction's rounds cost a sweep of
every entry; GPUs sweep the whole matrix faster than the host picks each row's cheapest
entries.

Examples
--------
>>> import numpy as np
>>> from pyclmatch.assignment.problem import take_in
>>> restricted(take_in(np.ones((2, 40)), maximize=False, full=True), cpu=False)
True
"""
import numpy as np

from ..errors import InputError
from .problem import Problem
from .slackness import tolerance

#: the entries per row of the first restricted problem
KEEP = 16
#: the restricted problems solved before the whole problem is
ROUNDS = 4


#: whether a complete square problem is restricted, by device type
SQUARE = {"cpu": True, "gpu": False}


def restricted(p, cpu):
    """Whether ``p`` (rows its smaller side) is solved restricted: full, complete, more
    than ``2 * KEEP`` columns, and more columns than rows (or as many, where :data:`SQUARE`
    says so for a CPU device if ``cpu``, else a GPU)."""
    nr, nc = p.shape
    return p.full and 0 < nr <= nc and nc > 2 * KEEP and p.nnz == nr * nc and \
        (nr < nc or SQUARE["cpu" if cpu else "gpu"])


def solve_restricted(p, solve, feasible, stats):
    """The answer of the complete problem ``p`` as ``solve(problem)`` gives it (``(row_match,
    col_match, u, v, objective, known)`` of a full problem of ``p``'s shape), from
    restricted problems (module docstring); ``feasible(problem)`` raises an ``InputError``
    where a restricted one has no full matching (each row's cheapest entries then double).
    ``stats`` counts the restricted problems (``restricted``) and the last one's entries
    (``restricted_entries``)."""
    nr, nc = p.shape
    C = p.cost.reshape(nr, nc)
    cols, extra = _cheapest(C, KEEP), None       # (extra: the entries that joined, or None)
    scale = max(-p.extremes[0], p.extremes[1])
    for _ in range(ROUNDS):
        r = _restricted_problem(p, C, cols, extra)
        stats["restricted"] = stats.get("restricted", 0) + 1
        stats["restricted_entries"] = r.nnz
        try:
            feasible(r)
        except InputError:                  # (no full matching on these entries: more)
            cols = _cheapest(C, min(nc, 2 * cols.shape[1]))
            continue
        rm, cm, u, v, objective, _ = solve(r)
        tol, found = tolerance(p, u, v, scale), False
        for rows in _blocks(nr, nc):        # (the entries with a negative reduced cost join)
            bad = C[rows] - u[rows, None] - v[None, :] < -tol
            if bad.any():
                found = True
                extra = np.zeros((nr, nc), bool) if extra is None else extra
                extra[rows] |= bad
        if not found:
            return rm, cm, u, v, objective, {"scale": scale}
    return solve(p)


def _cheapest(C, t):
    """The columns of each row's ``t`` cheapest entries of the dense ``C``, sorted: an
    ``(nr, t)`` int32 array."""
    cols = np.empty((C.shape[0], t), np.int32)
    for rows in _blocks(*C.shape):
        part = np.argpartition(C[rows], t - 1, axis=1)[:, :t]
        part.sort(axis=1)
        cols[rows] = part
    return cols


def _restricted_problem(p, C, cols, extra):
    """The restricted :class:`Problem` of ``p``: each row's entries ``cols`` (and those of
    the mask ``extra``, where not None), in CSR order."""
    nr, t = cols.shape
    if extra is None:                        # (t entries a row, sorted: no mask to scan)
        return Problem(p.shape, np.arange(0, nr * t + 1, t, dtype=np.int64), cols.ravel(),
                       np.take_along_axis(C, cols, axis=1).ravel(), p.maximize, True,
                       p.extremes)
    keep = extra.copy()
    keep[np.arange(nr)[:, None], cols] = True
    return Problem(p.shape, np.concatenate(([0], np.cumsum(keep.sum(axis=1)))),
                   np.nonzero(keep)[1].astype(np.int32), C[keep], p.maximize, True,
                   p.extremes)


def _blocks(nr, nc, entries=1 << 22):
    """Slices of the rows of an ``nr x nc`` matrix, about ``entries`` entries each (the
    temporaries of a pass over a dense matrix stay small)."""
    step = max(1, entries // max(nc, 1))
    return [slice(a, min(a + step, nr)) for a in range(0, nr, step)]
