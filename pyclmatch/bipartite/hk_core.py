"""Hopcroft-Karp with its König cover on the host, on compressed arrays: the work of the host
family ``host-hk`` (:mod:`pyclmatch.bipartite.host`), in the caller's process or in the race
worker (:mod:`pyclmatch.bipartite.hk_worker`).

This module imports only numpy and scipy (no pyclmatch module, no OpenCL): the race worker
loads it by path so that its start costs the import of numpy and scipy alone.

The graph is given by the lists of its stored side (the *major* side: rows of a CSR, columns of
a CSC), ``indptr`` and ``indices`` as the intake checked them (scipy's compiled routines trust
them: a decreasing ``indptr`` or an index out of range makes them write outside their arrays).
"""
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order, maximum_bipartite_matching


def match_and_cover(indptr, indices, n_major, n_minor):
    """``(major_match, minor_match, cover_major, cover_minor, seconds)``: a maximum matching
    by scipy's Hopcroft-Karp (int32 mates, -1 = unmatched) and a König cover (int32 vertex
    lists of each side, :func:`alternating_reach`); ``seconds`` = ``{"augment",
    "certificate"}``."""
    t0 = time.perf_counter()
    M = sp.csr_matrix((np.ones(indices.size, np.int8), indices, indptr),
                      shape=(n_major, n_minor))
    major_match = maximum_bipartite_matching(M, perm_type="column").astype(np.int32,
                                                                          copy=False)
    t1 = time.perf_counter()
    minor_match = np.full(n_minor, -1, np.int32)
    matched = np.flatnonzero(major_match >= 0).astype(np.int32)
    minor_match[major_match[matched]] = matched
    reached_major, reached_minor = alternating_reach(indptr, indices, major_match,
                                                     minor_match)
    # König: the major vertices not reached (all matched) and the minor vertices reached
    cover_major = np.flatnonzero(~reached_major).astype(np.int32)
    cover_minor = np.flatnonzero(reached_minor).astype(np.int32)
    t2 = time.perf_counter()
    return (major_match, minor_match, cover_major, cover_minor,
            {"augment": t1 - t0, "certificate": t2 - t1})


def alternating_reach(indptr, indices, major_match, minor_match):
    """Flags of the major and minor vertices reached by alternating paths from the unmatched
    major vertices, for a maximum matching.

    One breadth-first search (``scipy.sparse.csgraph``) over the major side alone: major
    ``u`` -> the mate of each minor neighbour (the two steps of an alternating path; an
    unmatched minor neighbour, which a maximum matching leaves unreachable, is sent to an
    extra node), from that extra node, whose out-edges are the unmatched major vertices. Its
    lists are the caller's gathered through ``minor_match`` (one pass over the entries, no
    sort). A minor vertex is reached exactly when its mate is (the mate of a reached minor
    vertex is reached next; a matched major vertex is reached only through its mate)."""
    n_major, n_minor = major_match.size, minor_match.size
    free = np.flatnonzero(major_match < 0)
    if free.size == 0:
        return np.zeros(n_major, bool), np.zeros(n_minor, bool)
    nnz = indices.size
    mate = np.where(minor_match < 0, np.int32(n_major), minor_match).astype(np.int32,
                                                                           copy=False)
    ind = np.empty(nnz + free.size, np.int32)
    np.take(mate, indices, out=ind[:nnz])
    ind[nnz:] = free
    ptr = np.empty(n_major + 2, np.int32 if nnz + free.size < 2 ** 31 else np.int64)
    ptr[:n_major + 1] = indptr
    ptr[-1] = nnz + free.size
    # (the search reads the structure only: the values are left uninitialized)
    G = sp.csr_matrix((np.empty(ind.size, np.float64), ind, ptr),
                      shape=(n_major + 1, n_major + 1))
    order = breadth_first_order(G, n_major, directed=True, return_predecessors=False)
    reached_major = np.zeros(n_major + 1, bool)
    reached_major[order] = True
    reached_major = reached_major[:n_major]
    reached_minor = minor_match >= 0
    reached_minor[reached_minor] = reached_major[minor_match[reached_minor]]
    return reached_major, reached_minor


def check_matching_and_cover(indptr, indices, n_major, n_minor, major_match, minor_match,
                             cover_major, cover_minor, names=("row", "col")):
    """The certificate check on compressed arrays, or the text of the first problem found
    (None when all holds): mates in range and mutual, every matched pair an entry of its
    list, every entry with an end in the cover, the cover as large as the matching (which
    proves it maximum, König). A few vectorized passes: per entry, the list's mate (one
    ``np.repeat``) against the entry's index, and the lists holding their mate flagged from
    the entries that matched (no cumulative sum over the entries, the slowest pass); for the
    cover, only the lists of the major vertices outside it are read (none when it holds the
    whole major side, as after a matching perfect on that side). ``names``: what the major
    and minor vertices are called in the messages."""
    mj, mn = np.asarray(major_match), np.asarray(minor_match)
    if mj.shape != (n_major,) or mn.shape != (n_minor,):
        return (f"{names[0]}_match and {names[1]}_match have shapes {mj.shape}, {mn.shape}; "
                f"expected ({n_major},), ({n_minor},)")
    if mj.size and (mj.min() < -1 or mj.max() >= n_minor) or \
            mn.size and (mn.min() < -1 or mn.max() >= n_major):
        return "a match array holds an invalid index"
    mr = np.flatnonzero(mj >= 0)
    if mr.size != np.count_nonzero(mn >= 0):
        return (f"{mr.size} {names[0]}s but {np.count_nonzero(mn >= 0)} {names[1]}s are "
                f"matched")
    if mr.size and not np.array_equal(mn[mj[mr]], mr):
        return "row_match and col_match disagree"
    counts = np.diff(indptr)
    # the entries that hold their list's mate; by the mutual check above, the list of such an
    # entry of index c is mn[c]: every matched list must hold one
    at = np.flatnonzero(np.repeat(mj, counts) == indices)
    found = np.zeros(n_major, bool)
    found[np.take(mn, np.take(indices, at))] = True
    if np.count_nonzero(found) != mr.size:
        bad = mr[np.flatnonzero(~found[mr])[0]]
        return f"matched pair ({names[0]} {bad}, {names[1]} {mj[bad]}) is not an edge"
    if cover_major is None:
        return None
    cover_major, cover_minor = np.asarray(cover_major), np.asarray(cover_minor)
    size = cover_major.size + cover_minor.size
    if size != mr.size:
        return f"the König cover has {size} vertices but the matching has {mr.size} edges"
    in_major = np.zeros(n_major, bool)
    in_major[cover_major] = True
    in_minor = np.zeros(n_minor, bool)
    in_minor[cover_minor] = True
    if int(np.count_nonzero(in_major)) + int(np.count_nonzero(in_minor)) != size:
        return "the König cover lists a vertex twice"
    # every entry of a major vertex outside the cover must have its minor end in the cover
    outside = np.flatnonzero(~in_major)
    if outside.size:
        lens = counts[outside]
        total = int(lens.sum())
        if 2 * total < indices.size:    # (gather those lists' entries only)
            at = np.repeat(indptr[outside].astype(np.int64) - (np.cumsum(lens) - lens), lens)
            at += np.arange(total)
        else:
            at = np.flatnonzero(np.repeat(~in_major, counts))
        uncovered = np.flatnonzero(~np.take(in_minor, np.take(indices, at)))
        if uncovered.size:
            k = int(at[uncovered[0]])
            u = int(np.searchsorted(indptr, k, side="right") - 1)
            return (f"edge ({names[0]} {u}, {names[1]} {indices[k]}) is not covered: the "
                    f"matching is not maximum")
    return None
