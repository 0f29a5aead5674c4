"""``algorithm="host-hk"``: maximum matching on the host, for graphs where a device call cannot
win (its fixed cost of uploads, launches and read-backs exceeds the whole work).

The matching is scipy's compiled Hopcroft-Karp (``scipy.sparse.csgraph.
maximum_bipartite_matching``, one core) on the user's compressed arrays as they are (no copy of
a CSR; a CSC is matched as the CSR of its transpose); the certificate is a König vertex cover
found by one breadth-first search of ``scipy.sparse.csgraph`` over the alternating paths from
the unmatched vertices of the stored side (:mod:`pyclmatch.bipartite.hk_core`, which the race
worker runs too). :func:`~pyclmatch.bipartite.cover.verify_matching` checks matching and
cover in a few vectorized passes over the same arrays. The result is the device families'
:class:`~pyclmatch.bipartite.api.MatchingResult` (``counters["launches"] == 0``,
``res.device == "host"``).

``auto``'s race of this family against a device family runs it in a worker process
(:mod:`pyclmatch.bipartite.race`).
"""
from .hk_core import match_and_cover
from .cover import KonigCover
from .registry import HOST_FAMILY, register_algorithm


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
    n_major, n_minor = graph.major
    return oriented(graph, *match_and_cover(graph.indptr, graph.indices, n_major, n_minor))


def oriented(graph, major_match, minor_match, cover_major, cover_minor, seconds):
    """:func:`solve`'s answer from the major/minor-side answer of
    :func:`~pyclmatch.bipartite.hk_core.match_and_cover` (rows first)."""
    if graph.fmt == "csr":
        return major_match, minor_match, KonigCover(cover_major, cover_minor), seconds
    return minor_match, major_match, KonigCover(cover_minor, cover_major), seconds


register_algorithm(HOST_FAMILY, HostHopcroftKarp)
