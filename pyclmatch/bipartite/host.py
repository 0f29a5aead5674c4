"""``algorithm="host-hk"``: maximum matching on the host, for graphs where a device call cannot
win (its fixed cost of uploads, launches and read-backs exceeds the whole work).

The matching is scipy's compiled Hopcroft-Karp (``scipy.sparse.csgraph.
maximum_bipartite_matching``, one core) on the user's compressed arrays as they are (no copy of
a CSR; a CSC is matched as the CSR of its transpose). The certificate is a König vertex cover
computed on the host (:func:`konig_cover_host`): the vertices reached by alternating paths from
the unmatched vertices of the stored side, found by one breadth-first search of
``scipy.sparse.csgraph`` over a directed graph built from the same arrays (a super-source to the
unmatched vertices, each stored list's edges, each matched vertex of the other side back to its
mate). :func:`~pyclmatch.bipartite.certificate.verify_matching` checks matching and cover in a
few vectorized passes over the same arrays. The result is the device families'
:class:`~pyclmatch.bipartite.api.MatchingResult` (``counters["launches"] == 0``,
``res.device == "host"``).

:class:`HostRace` runs the same in a background thread while a device family runs (``auto``'s
race, :mod:`pyclmatch.bipartite.choice`): scipy's Hopcroft-Karp releases the GIL, so the
device's host loop goes on beside it, and the device path gives up at its next read-back once
the host has finished (:class:`HostWon`).
"""
import threading
import time

import numpy as np
import scipy.sparse as sp

from .api import register_algorithm
from .certificate import KonigCover

#: the registered name of the host family
HOST_FAMILY = "host-hk"


class HostHopcroftKarp:
    """The registry entry of ``host-hk``: no device work (``host = True``; the
    :func:`~pyclmatch.bipartite.api.maximum_matching` path calls :func:`solve`)."""
    host = True
    needs_csr = False
    params = ()

    @staticmethod
    def device_bytes(graph, name):
        return {}


def solve(graph):
    """``(row_match, col_match, cover, timings)`` of the checked
    :class:`~pyclmatch.engine.graphs.BipartiteGraph` ``graph`` (its arrays already checked by
    :func:`~pyclmatch.engine.intake.check_compressed_host`)."""
    from scipy.sparse.csgraph import maximum_bipartite_matching
    nr, nc = graph.shape
    n_major, n_minor = graph.major
    t0 = time.perf_counter()
    # the stored lists as a CSR of (major side x minor side): scipy trusts these arrays
    M = sp.csr_matrix((np.ones(graph.indices.size, np.int8), graph.indices, graph.indptr),
                      shape=(n_major, n_minor))
    major_match = maximum_bipartite_matching(M, perm_type="column").astype(np.int32,
                                                                          copy=False)
    t1 = time.perf_counter()
    minor_match = np.full(n_minor, -1, np.int32)
    matched = np.flatnonzero(major_match >= 0).astype(np.int32)
    minor_match[major_match[matched]] = matched
    reached_major, reached_minor = _alternating_reach(M, major_match, minor_match)
    # König: the major vertices not reached (all matched) and the minor vertices reached
    cover_major = np.flatnonzero(~reached_major).astype(np.int32)
    cover_minor = np.flatnonzero(reached_minor).astype(np.int32)
    t2 = time.perf_counter()
    if graph.fmt == "csr":
        rm, cm, cover = major_match, minor_match, KonigCover(cover_major, cover_minor)
    else:
        rm, cm, cover = minor_match, major_match, KonigCover(cover_minor, cover_major)
    return rm, cm, cover, {"augment": t1 - t0, "certificate": t2 - t1}


def _alternating_reach(M, major_match, minor_match):
    """Flags of the major and minor vertices reached by alternating paths from the unmatched
    major vertices of the CSR ``M``: a breadth-first search (``scipy.sparse.csgraph``) from a
    super-source over major -> minor along every stored entry and minor -> its mate."""
    from scipy.sparse.csgraph import breadth_first_order
    n_major, n_minor = M.shape
    free = np.flatnonzero(major_match < 0)
    reached_major = np.zeros(n_major, bool)
    reached_minor = np.zeros(n_minor, bool)
    if free.size == 0:
        return reached_major, reached_minor
    nnz = M.indices.size
    mated = minor_match >= 0
    # nodes: major 0..n_major-1, minor n_major.., the source last
    ptr = np.empty(n_major + n_minor + 2, np.int64)
    ptr[:n_major + 1] = M.indptr
    ptr[n_major + 1:n_major + n_minor + 1] = nnz + np.cumsum(mated)
    ptr[-1] = ptr[-2] + free.size
    ind = np.concatenate((M.indices.astype(np.int64) + n_major,
                          minor_match[mated].astype(np.int64), free.astype(np.int64)))
    n = n_major + n_minor + 1
    G = sp.csr_matrix((np.ones(ind.size, np.float64), ind, ptr), shape=(n, n))
    order = breadth_first_order(G, n - 1, directed=True, return_predecessors=False)
    order = order[order < n - 1]
    reached_major[order[order < n_major]] = True
    reached_minor[order[order >= n_major] - n_major] = True
    return reached_major, reached_minor


class HostWon(Exception):
    """Raised at a device read-back of a raced call (:meth:`HostRace.check`) once the host's
    matching is ready: the device path stops there."""


class HostRace:
    """:func:`solve` of ``graph`` in a background thread (started at construction), raced
    against a device family. At most one host attempt runs at a time in the process: while an
    earlier one is still running (a device that won leaves its host attempt to finish in the
    background, as compiled code cannot be interrupted), ``started`` is False and the call
    runs on the device alone, so a loop over hard graphs keeps at most one core busy beside
    it. ``graph``'s arrays must have passed the intake's host checks."""

    _one = threading.Lock()

    def __init__(self, graph):
        self.graph, self.result, self.error = graph, None, None
        self.done = threading.Event()
        self.started = HostRace._one.acquire(blocking=False)
        self.t0 = time.perf_counter()
        self.seconds = None
        if self.started:
            threading.Thread(target=self._run, name="pyclmatch host-hk race",
                             daemon=True).start()

    def _run(self):
        try:
            self.result = solve(self.graph)
        except BaseException as exc:     # (the device's answer stands)
            self.error = exc
        finally:
            self.seconds = time.perf_counter() - self.t0
            self.done.set()
            HostRace._one.release()

    def won(self):
        """Whether the host's matching is ready (and its thread raised nothing)."""
        return self.done.is_set() and self.error is None

    def check(self):
        """Raise :class:`HostWon` when the host has finished (a device read-back's check)."""
        if self.won():
            raise HostWon()

    def record(self, winner):
        """What ``res.choice["race"]`` reports: the winner and the host's seconds (None
        while it still runs, or when no host attempt was started)."""
        return {"winner": winner, "host_started": self.started,
                "host_seconds": self.seconds if self.done.is_set() else None}


register_algorithm(HOST_FAMILY, HostHopcroftKarp)
