"""The result of :func:`~pyclmatch.bipartite.api.maximum_matching` and the steps that make
it, on the host or after the device (:mod:`pyclmatch.bipartite.device_path`): no pyopencl."""
from __future__ import annotations

from dataclasses import dataclass
import time

import numpy as np

from .._record import RunRecord
from ..engine import args
from ..engine.graphs import as_bipartite
from ..engine.compressed import check_no_entries
from .cover import KonigCover, verify_matching


@dataclass
class MatchingResult(RunRecord):
    """Result of :func:`~pyclmatch.maximum_matching` (arrays in scipy's conventions: int32 ids, -1 =
    unmatched).

    Attributes
    ----------
    row_match, col_match : numpy.ndarray
        The column of each row and the row of each column (-1: unmatched).
    cardinality, initial_cardinality : int
        Matched pairs at the end and after the initial matching.
    certificate : KonigCover
        A vertex cover of the size of the matching, which proves it maximum.
    algorithm, init, device : str
        What ran, and where (``"host"`` for the host family).
    timings, counters : dict
        Seconds per step and device time per phase; launches, read-backs, phases.
    verified : bool
        Whether the answer was checked before it was returned.
    choice : dict or None
        With ``algorithm="auto"``: what was chosen and why (``algorithm``, ``rule``,
        ``reason``, ``features``, ``profile``; :mod:`pyclmatch.bipartite.choice`).

    Examples
    --------
    >>> from pyclmatch import generators, maximum_matching
    >>> grid = generators.grid(8)
    >>> res = maximum_matching(grid, algorithm="ppf", device="cpu")
    >>> res.cardinality == res.certificate.size == 62
    True
    >>> res.verify(grid), res.summary()["algorithm"]
    (True, 'ppf')
    """
    row_match: np.ndarray
    col_match: np.ndarray
    cardinality: int
    initial_cardinality: int
    certificate: KonigCover
    init: str
    choice: dict = None

    @property
    def phases(self):
        return self.counters.get("phases", 0)

    @property
    def bfs_levels(self):
        return self.counters.get("bfs_levels", 0)

    @property
    def device_seconds(self):
        """Time on the device after upload (wall clock): initial matching, augmentation and,
        for families that hand over to an alternating BFS (PPF after a stall or a stack
        limit), that certificate step."""
        return (self.timings.get("init", 0.0) + self.timings.get("augment", 0.0)
                + self.timings.get("certificate", 0.0))

    def verify(self, A):
        """Check the matching and its König cover against ``A``; raises
        :class:`~pyclmatch.errors.VerificationError` on any inconsistency;
        :class:`~pyclmatch.errors.InputError` (``argument="A"``) when ``A`` is no matrix or
        not of the result's shape.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> from pyclmatch import maximum_matching
        >>> A = sp.csr_matrix([[1, 1], [0, 1]])
        >>> maximum_matching(A).verify(A)
        True
        """
        with args.blame("A"):
            graph = as_bipartite(A)
        args.shape_of("A", graph, (self.row_match.size, self.col_match.size))
        verify_matching(graph, self.row_match, self.col_match, self.certificate)
        self.verified = True
        return True

    def summary(self):
        """The result's numbers and names as one dict (no arrays)."""
        return {"rows": int(self.row_match.size), "cols": int(self.col_match.size),
                "initial_cardinality": self.initial_cardinality,
                "cardinality": self.cardinality, "verified": self.verified,
                "algorithm": self.algorithm, "init": self.init, "device": self.device,
                "timings": dict(self.timings), "counters": dict(self.counters),
                "choice": self.choice}


def empty_result(handle, graph, name, init, verify, choice, t_call):
    """A graph without edges: nothing to launch, every vertex unmatched, the cover empty."""
    check_no_entries(graph.indptr)
    nr, nc = graph.shape
    rm, cm = np.full(nr, -1, np.int32), np.full(nc, -1, np.int32)
    res = MatchingResult(rm, cm, 0, 0, KonigCover(np.zeros(0, np.int32), np.zeros(0, np.int32)),
                         init, choice, algorithm=name, device=handle.label)
    res.verified = bool(verify)
    res.timings = {"total": time.perf_counter() - t_call}
    return res


def host_result(graph, name, solved, verify, choice, t_call, timings, counters,
                 checked=False):
    """The result of a matching computed on the host (``solved``: the output of
    :func:`pyclmatch.bipartite.host.solve`), checked by :func:`verify_matching` when
    ``verify`` asks for any check (the answer is on the host) and the race worker has not
    checked it already (``checked``: the same check, run beside the device path). Same
    result object as the device families, with ``device == "host"``; ``counters`` holds the
    device work of a raced call that the host won (none otherwise)."""
    rm, cm, cover, steps = solved
    timings = dict(timings)
    for k, v in steps.items():
        timings[f"host:{k}" if k in timings else k] = v
    res = MatchingResult(rm, cm, int(np.count_nonzero(rm >= 0)), 0, cover, "none", choice,
                         algorithm=name, device="host")
    if verify and not checked:
        t0 = time.perf_counter()
        verify_matching(graph, rm, cm, cover)
        timings["verify"] = timings.get("verify", 0.0) + time.perf_counter() - t0
    res.verified = bool(verify)
    res.timings = dict(timings, total=time.perf_counter() - t_call)
    res.counters = dict(counters, phases=0)
    return res


def finish_result(res, graph, verify, sched, t_call, stats):
    """The common end of a call: the host verification when asked for, ``verified``,
    ``timings`` (``total`` = the whole call since ``t_call``) and ``counters``."""
    if verify == "host":
        with sched.step("verify"):
            res.verify(graph)
    res.verified = bool(verify)
    res.timings = sched.timings()
    res.timings["total"] = time.perf_counter() - t_call
    res.counters = dict(stats, **sched.call_counters())
    return res
