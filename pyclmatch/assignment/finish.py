"""The exact finishing step after the auction: from the auction's assignment and prices to an
optimal assignment with exact dual variables. Step 1 runs on the device first
(:meth:`~pyclmatch.assignment.auction.AuctionMatcher.tighten`, the same relaxation); the
host runs both steps where the device's does not converge within its bound.

1. :func:`tighten`: the matched entries are made tight (``u_i = c_im - v_m``) and the column
   potentials lowered, Bellman-Ford style, where an entry's reduced cost is negative
   (``v_k = min(v_k, c_ik - u_i)``), rows whose matched column moved following, until no
   entry is negative. This converges exactly when the assignment is optimal (it is the
   shortest-path computation of the duals of a given optimal assignment); it is given a
   bound of passes.
2. When it does not converge (the rounded problem's optimum is not the real one), the rows
   are given feasible potentials (``u_i = min_j c_ij - v_j``), those whose matched entry is
   not tight are unassigned, and each is augmented by a shortest path in the reduced costs
   (:func:`augment`, Dijkstra: the Hungarian method's step), which keeps the potentials
   feasible and the matched entries tight.

Examples
--------
>>> import numpy as np
>>> from pyclmatch.assignment.finish import exact
>>> ptr, ind = np.array([0, 2, 4]), np.array([0, 1, 0, 1], np.int32)
>>> cost = np.array([1.0, 2.0, 2.0, 4.0])
>>> rm, u, v, stats = exact(ptr, ind, cost, np.array([0, 1], np.int32), np.zeros(2))
>>> rm.tolist(), stats["augmented"]
([1, 0], 1)
"""
import heapq

import numpy as np

#: the finishing step's tolerance on a reduced cost, relative to the largest magnitude of
#: the costs and potentials (a few thousand float64 rounding units)
SLACK = 2.0 ** -40
#: bounds of :func:`tighten` before the finishing step augments instead: passes, and rows
#: visited per row of the problem
TIGHTEN_PASSES = 4096
TIGHTEN_WORK = 32


def scale_of(cost, *pots):
    """The magnitude that tolerances are relative to: the largest |cost| or |potential|."""
    return max([max(float(x.max()), -float(x.min())) for x in (cost, *pots) if x.size]
               + [1e-300])


def _row_entries(indptr, rows):
    """The positions of the entries of ``rows`` (concatenated)."""
    lo = indptr[rows]
    cnt = indptr[rows + 1] - lo
    if not cnt.size:
        return np.zeros(0, np.int64)
    start = np.repeat(lo - np.cumsum(cnt) + cnt, cnt)
    return start + np.arange(int(cnt.sum()))


def entry_positions(indptr, indices, rows, cols):
    """The positions of the stored entries ``(rows[k], cols[k])`` of a CSR without duplicates
    (they must exist; ``rows`` distinct): one comparison pass over the entries, no search."""
    n = indptr.size - 1
    want = np.full(n, -1, np.int32)
    want[rows] = cols
    hit = np.flatnonzero(indices == np.repeat(want, np.diff(indptr)))
    at = np.empty(n, np.int64)
    at[np.searchsorted(indptr, hit, side="right") - 1] = hit
    return at[rows]


def matched_positions(indptr, indices, rm):
    """The position of each row's matched entry (rows all matched)."""
    return entry_positions(indptr, indices, np.arange(indptr.size - 1), rm)


def tighten(indptr, indices, cost, rm, v, tol, passes=TIGHTEN_PASSES):
    """Step 1 (module docstring) on a perfect assignment ``rm``: ``(converged, u, v,
    passes)``; ``v`` is lowered in place."""
    n = indptr.size - 1
    pos = matched_positions(indptr, indices, rm)
    cm = np.empty(n, np.int64)
    cm[rm] = np.arange(n)
    rows_of = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    u = cost[pos] - v[rm]
    frontier = np.arange(n)
    work = 0
    for k in range(passes):
        work += frontier.size
        if work > TIGHTEN_WORK * n:
            break
        e = _row_entries(indptr, frontier)
        cand = cost[e] - u[rows_of[e]]
        neg = cand < v[indices[e]] - tol
        if not neg.any():
            return True, u, v, k + 1
        cols = indices[e][neg]
        np.minimum.at(v, cols, cand[neg])
        cols = np.sort(cols)              # (unique by sorting: numpy's hashed unique is slow)
        frontier = cm[cols[np.concatenate(([True], cols[1:] != cols[:-1]))]]
        u[frontier] = cost[pos[frontier]] - v[rm[frontier]]
    return False, u, v, k + 1


def augment(s, lists, u, v, rm, cm, mpos):
    """Step 2: the Hungarian method's augmentation from the unassigned row ``s``: Dijkstra
    over the reduced costs ``c_ij - u_i - v_j`` (``lists``: ``ptr``, ``ind``, ``cost`` as
    Python lists) to the nearest unassigned column, the potentials of the settled columns
    and of their rows updated, the path flipped. ``u``, ``v``, ``rm``, ``cm``, ``mpos`` (the
    position of each row's matched entry) change in place."""
    ptr, ind, cost = lists
    dist, pred, settled, heap, done = {}, {}, [], [], set()
    i, d = s, 0.0
    while True:
        ui = u[i]
        for e in range(ptr[i], ptr[i + 1]):
            j = ind[e]
            nd = d + max(cost[e] - ui - v[j], 0.0)
            if nd < dist.get(j, np.inf):
                dist[j], pred[j] = nd, (i, e)
                heapq.heappush(heap, (nd, j))
        while True:
            d, j = heapq.heappop(heap)
            if j not in done and d <= dist[j]:
                break
        done.add(j)
        if cm[j] < 0:
            break
        settled.append(j)
        i = cm[j]
    end, delta = j, d
    rows = [s]
    for k in settled:
        v[k] += dist[k] - delta
        rows.append(cm[k])
    while True:
        i, e = pred[j]
        nxt = rm[i]
        rm[i], cm[j], mpos[i] = j, i, e
        if i == s:
            break
        j = nxt
    for i in rows:
        u[i] = cost[mpos[i]] - v[rm[i]]
    return end


def exact(indptr, indices, cost, rm, v, tol=None):
    """Both steps on the square problem ``(indptr, indices, cost)`` from the auction's perfect
    assignment ``rm`` and column potentials ``v``: ``(row_match, u, v, stats)``. ``tol``:
    the tolerance on a reduced cost (default: :data:`SLACK` / 16 relative to the largest
    magnitude of the costs and potentials)."""
    n = indptr.size - 1
    v = np.array(v, np.float64)
    stats = {"tighten_passes": 0, "augmented": 0}
    if not n:
        return rm, np.zeros(0), v, stats
    tol = SLACK * scale_of(cost, v) / 16 if tol is None else tol
    ok, u, v, stats["tighten_passes"] = tighten(indptr, indices, cost, rm, v, tol,
                                                TIGHTEN_PASSES)
    if ok:
        return rm, u, v, stats
    rows_of = np.repeat(np.arange(n), np.diff(indptr))
    red = cost - v[indices]
    u = np.minimum.reduceat(red, indptr[:-1].astype(np.int64))
    mpos = matched_positions(indptr, indices, rm)
    free = np.flatnonzero(cost[mpos] - u - v[rm] > tol)
    del rows_of, red
    rm = rm.astype(np.int64).tolist()
    cm = [0] * n
    for i, j in enumerate(rm):
        cm[j] = i
    for i in free.tolist():
        cm[rm[i]] = -1
        rm[i] = -1
    lists = (indptr.tolist(), indices.tolist(), cost.tolist())
    u, v, mpos = u.tolist(), v.tolist(), mpos.tolist()
    for s in free.tolist():
        augment(s, lists, u, v, rm, cm, mpos)
    stats["augmented"] = int(free.size)
    return (np.array(rm, np.int32), np.array(u, np.float64), np.array(v, np.float64), stats)
