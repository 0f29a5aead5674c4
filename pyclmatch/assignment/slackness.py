"""The certificate of an optimal assignment: linear-programming duality (complementary
slackness), checked on the device by kernels independent of the auction
(``kernels/slackness.cl.mako``), or on the host (:func:`verify_assignment`,
``verify="host"``).

For the minimisation form with costs ``c``, row potentials ``u`` and column potentials ``v``:
every stored entry has a reduced cost ``c_ij - u_i - v_j >= -tol``, every matched entry one
in ``[-tol, tol]``; the potentials of a side that may stay unmatched (the larger side of a
full problem, both sides of a partial one) are ``<= tol``, and 0 (within ``tol``) at its
unmatched vertices; the matching is a matching of stored entries of the required size. Then
the matching's cost is within ``n * tol`` of the dual bound, which is a lower bound of every
matching's cost: the matching is optimal (up to that). ``tol`` is :data:`TOLERANCE` times the
largest magnitude of the costs and potentials.
"""
import numpy as np

from ..engine.family import KernelFamily
from ..errors import VerificationError
from .finish import SLACK, scale_of

#: the certificate's tolerance on a reduced cost, relative to the largest magnitude of the
#: costs and potentials
TOLERANCE = SLACK
OUT_BAD, OUT_MATCHED_ROWS, OUT_MATCHED_COLS = range(3)
BAD_MESSAGES = (
    (1, "a match array holds an invalid index"),
    (2, "row_match and col_match disagree"),
    (4, "a matched pair is not a stored entry"),
    (8, "a matched entry has a non-zero reduced cost: complementary slackness fails"),
    (16, "a stored entry has a negative reduced cost: the dual variables are infeasible"),
    (32, "a potential of a side that may stay unmatched is positive, or non-zero at an "
         "unmatched vertex"),
)


def sides(p):
    """``(rows may stay unmatched, columns may)`` of a problem."""
    nr, nc = p.shape
    if not p.full:
        return True, True
    return nr > nc, nc > nr


def tolerance(p, u, v, scale=None):
    """The tolerance on a reduced cost; ``scale``: the largest magnitude of ``p``'s costs
    where known (a pass over them saved)."""
    if scale is None:
        return TOLERANCE * scale_of(p.cost, u, v)
    return TOLERANCE * max(float(scale), scale_of(u, v))


def check_counts(out, p):
    """Raise the :class:`VerificationError` that the counters ``out`` call for."""
    bad = int(out[OUT_BAD])
    for bit, message in BAD_MESSAGES:
        if bad & bit:
            raise VerificationError(message)
    mr, mc = int(out[OUT_MATCHED_ROWS]), int(out[OUT_MATCHED_COLS])
    if mr != mc:
        raise VerificationError(f"{mr} rows but {mc} columns are matched")
    if p.full and mr != min(p.shape):
        raise VerificationError(f"{mr} entries are matched; a full matching has "
                                f"{min(p.shape)}")


class DeviceSlackness(KernelFamily):
    """The certificate's kernels on one device.

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> from pyclmatch.assignment.problem import take_in
    >>> from pyclmatch.engine.scheduler import Scheduler
    >>> p = take_in(np.array([[1.0, 2.0], [2.0, 4.0]]), maximize=False, full=True)
    >>> h = pyclmatch.get_device("cpu")
    >>> DeviceSlackness(h, p).verify(np.array([1, 0]), np.array([1, 0]),
    ...                              np.array([1.0, 2.0]), np.array([0.0, 1.0]), Scheduler(h))
    2
    """

    TEMPLATE = "slackness.cl.mako"

    def __init__(self, handle, p):
        from ..engine.indices import offset_type
        ot, self.odt = offset_type(p.nnz)
        super().__init__(handle, index_t="int", offset_t=ot, mode="ct", by_rows=handle.is_cpu)
        self.p = p
        self.wg = handle.default_work_group_size()

    def _grid(self, n):
        return min(self.handle.constant_grid(self.wg), -(-max(int(n), 1) // self.wg) * self.wg)

    def verify(self, row_match, col_match, u, v, sched, phase="verify", uploaded=None,
               scale=None):
        """Check the answer on the device (one read-back); returns the matched entries.
        ``uploaded``: the device's copies of ``p``'s offsets (of this family's offset type),
        indices and costs where they are there already (read-only buffers the solver
        uploaded), instead of uploading them again; ``scale``: the largest magnitude of
        ``p``'s costs, where known."""
        h, p = self.handle, self.p
        nr, nc = p.shape
        given = [] if uploaded is None else list(uploaded)
        todo = ((p.indptr.astype(self.odt), self.odt), (p.indices, np.int32),
                (p.cost, np.float64))[len(given):] + (
                (row_match, np.int32), (col_match, np.int32), (u, np.float64), (v, np.float64))
        up = given + [h.to_device(np.ascontiguousarray(x, dt) if len(x) else np.zeros(1, dt))
                      for x, dt in todo]
        ptr, ind, c, rm, cm, uu, vv = (a.data for a in up)
        out = h.scratch(3, np.int32)
        sched.fill(phase, out, 0)
        tol = np.float64(tolerance(p, u, v, scale))
        row_side, col_side = sides(p)
        side = self.kernel("slackness_side")
        sched.launch(phase, side, self._grid(nr), self.wg, np.int32(nr), np.int32(nc), rm, cm,
                     uu, np.int32(row_side), np.int32(1), ptr, ind, c, vv, tol, out,
                     np.int32(OUT_MATCHED_ROWS))
        sched.launch(phase, side, self._grid(nc), self.wg, np.int32(nc), np.int32(nr), cm, rm,
                     vv, np.int32(col_side), np.int32(0), ptr, ind, c, vv, tol, out,
                     np.int32(OUT_MATCHED_COLS))
        sched.launch(phase, self.kernel("slackness_entries"), self._grid(p.nnz if not
                     h.is_cpu else nr), self.wg, np.int32(nr), self.odt.type(p.nnz), ptr,
                     ind, c, uu, vv, tol, out)
        host = sched.read(phase, np.zeros(3, np.int32), out)
        check_counts(host, p)
        return int(host[OUT_MATCHED_ROWS])


def verify_assignment(p, row_match, col_match, u, v):
    """The certificate on the host (the same checks as :class:`DeviceSlackness`); returns
    the number of matched entries or raises :class:`VerificationError`.

    Examples
    --------
    >>> import numpy as np
    >>> from pyclmatch.assignment.problem import take_in
    >>> p = take_in(np.array([[1.0, 2.0], [2.0, 4.0]]), maximize=False, full=True)
    >>> verify_assignment(p, np.array([1, 0]), np.array([1, 0]), np.array([1.0, 2.0]),
    ...                   np.array([0.0, 1.0]))
    2
    """
    nr, nc = p.shape
    rm, cm = np.asarray(row_match, np.int64), np.asarray(col_match, np.int64)
    u, v = np.asarray(u, np.float64), np.asarray(v, np.float64)
    tol = tolerance(p, u, v)
    out = np.zeros(3, np.int64)
    bad = 0
    for mate, other, pot, n_other, side, slot in ((rm, cm, u, nc, sides(p)[0], 1),
                                                  (cm, rm, v, nr, sides(p)[1], 2)):
        if np.isnan(pot).any() or (side and ((pot > tol).any()
                                             or (np.abs(pot[mate == -1]) > tol).any())):
            bad |= 32
        m = mate[mate != -1]
        if ((m < -1) | (m >= n_other)).any():
            bad |= 1
            continue
        out[slot] = m.size
        if (other[m] != np.flatnonzero(mate != -1)).any():
            bad |= 2
    red = p.cost - u[p.rows()] - v[p.indices]
    if not (red >= -tol).all():
        bad |= 16
    if not bad & 3:
        rows = np.flatnonzero(rm >= 0)
        key = p.rows().astype(np.int64) * max(nc, 1) + p.indices
        want = rows * max(nc, 1) + rm[rows]
        pos = np.minimum(np.searchsorted(key, want), max(key.size - 1, 0))
        if rows.size and (key[pos] != want).any():
            bad |= 4
        elif rows.size and not (np.abs(red[pos]) <= tol).all():
            bad |= 8
    out[0] = bad
    check_counts(out, p)
    return int(out[1])
