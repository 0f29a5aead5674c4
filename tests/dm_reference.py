"""Sequential host reference of the Dulmage-Mendelsohn decomposition (scipy.sparse.csgraph):
maximum_bipartite_matching, alternating BFS from the unmatched columns and rows, and
connected_components(connection="strong") of the square part's column graph. Returns the
decomposition as canonical sets (independent of the matching and of the block order), and
``host_dmperm`` a full ``(p, q, r, s, rr, cc)`` for timing comparisons."""
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import (maximum_bipartite_matching, connected_components,
                                  breadth_first_order)


def _reach(G, roots, n):
    """Vertices of the directed graph G (n x n CSR) reachable from ``roots``."""
    if roots.size == 0:
        return np.zeros(n, bool)
    G = G.tocoo()
    H = sp.csr_matrix((np.ones(G.nnz + roots.size),
                       (np.concatenate([G.row, np.full(roots.size, n)]),
                        np.concatenate([G.col, roots]))), shape=(n + 1, n + 1))
    got = np.zeros(n + 1, bool)
    got[breadth_first_order(H, n, directed=True, return_predecessors=False)] = True
    return got[:n]


def host_dmperm(A):
    """``(p, q, r, s, rr, cc)`` in cs_dmperm's layout, computed on the host."""
    A = sp.csr_matrix(A, copy=True)
    A.sum_duplicates()
    A.data = np.ones_like(A.data, dtype=np.int8)
    m, n = A.shape
    if A.nnz:
        cm = maximum_bipartite_matching(A, perm_type="row").astype(np.int64)
    else:
        cm = np.full(n, -1, np.int64)
    rm = np.full(m, -1, np.int64)
    rm[cm[cm >= 0]] = np.flatnonzero(cm >= 0)
    csc = A.tocsc()
    # column graph c -> mate column of each row of c (horizontal), row graph (vertical)
    col_of = np.repeat(np.arange(n), np.diff(csc.indptr))
    mc = rm[csc.indices]
    k = mc >= 0
    Gc = sp.csr_matrix((np.ones(int(k.sum())), (col_of[k], mc[k])), shape=(n, n))
    hcol = _reach(Gc, np.flatnonzero(cm < 0), n)
    row_of = np.repeat(np.arange(m), np.diff(A.indptr))
    mr = cm[A.indices]
    k = mr >= 0
    Gr = sp.csr_matrix((np.ones(int(k.sum())), (row_of[k], mr[k])), shape=(m, m))
    vrow = _reach(Gr, np.flatnonzero(rm < 0), m)
    c0 = np.flatnonzero(cm < 0)
    c1 = np.flatnonzero(hcol & (cm >= 0))
    c3 = np.flatnonzero((cm >= 0) & vrow[np.maximum(cm, 0)] & (cm >= 0))
    sq = np.flatnonzero((cm >= 0) & ~hcol & ~(vrow[np.maximum(cm, 0)]))
    # fine: SCCs of the square part, in a topological order (scipy's Tarjan labels its
    # components in reverse topological order; the order is re-derived below by Kahn anyway)
    S = A[cm[sq]][:, sq]
    nb, lab = connected_components(S, directed=True, connection="strong")
    Sc = S.tocoo()
    u, v = lab[Sc.row], lab[Sc.col]
    e = u != v
    order = _topological(nb, u[e], v[e])
    rank = np.empty(nb, np.int64)
    rank[order] = np.arange(nb)
    sq = sq[np.argsort(rank[lab], kind="stable")]
    q = np.concatenate([c0, c1, sq, c3]).astype(np.int32)
    p = np.concatenate([cm[c1], cm[sq], cm[c3], np.flatnonzero(rm < 0)]).astype(np.int32)
    sizes = np.bincount(lab, minlength=nb)[order] if nb else np.zeros(0, int)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]) if nb else np.zeros(0, int)
    from pyclmatch.bipartite.dmperm import _boundaries
    rr, cc, r, s = _boundaries([c0.size, c1.size, sq.size, c3.size], m, n, starts)
    return p, q, r, s, rr, cc


def _topological(nb, u, v):
    """Kahn's algorithm, level by level (numpy), on the condensation edges u -> v."""
    G = sp.csr_matrix((np.ones(u.size), (u, v)), shape=(nb, nb))
    G.sum_duplicates()
    indeg = np.diff(G.tocsc().indptr)
    frontier = np.flatnonzero(indeg == 0)
    out = []
    while frontier.size:
        out.append(frontier)
        nxt = G[frontier].indices
        np.subtract.at(indeg, nxt, 1)
        cand = np.unique(nxt)
        frontier = cand[indeg[cand] == 0]
    return np.concatenate(out) if out else np.zeros(0, np.int64)


def canonical(p, q, r, s, rr, cc):
    """The decomposition as the sets that do not depend on the maximum matching: the rows of
    the horizontal, square and vertical parts (R1, R2, R3 + R0), their columns (C0 + C1, C2,
    C3), and the square blocks as a set of (rows, cols) frozensets."""
    p, q = np.asarray(p), np.asarray(q)
    coarse = tuple(frozenset(p[a:b].tolist()) for a, b in ((rr[0], rr[1]), (rr[1], rr[2]),
                                                            (rr[2], rr[4]))) + \
        tuple(frozenset(q[a:b].tolist()) for a, b in ((cc[0], cc[2]), (cc[2], cc[3]),
                                                      (cc[3], cc[4])))
    blocks = set()
    for k in range(len(r) - 1):
        if r[k] >= rr[1] and r[k + 1] <= rr[2] and s[k] >= cc[2] and s[k + 1] <= cc[3] \
                and r[k + 1] > r[k]:
            blocks.add((frozenset(p[r[k]:r[k + 1]].tolist()),
                        frozenset(q[s[k]:s[k + 1]].tolist())))
    return coarse, blocks
