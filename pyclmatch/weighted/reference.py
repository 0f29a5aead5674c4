"""Host references and certificate checks of the Suitor family.

Edges are ordered by the key (w, max(u, v), min(u, v)), heaviest first: the weights in the
precision the device compares (``precision``, see
:func:`~pyclmatch.weighted.graph.resolve_precision`: by default the user's float64 weights as
they are), ties by vertex ids. Seen from one vertex u this is the order of
(w(u, p), p), the tie breaking of the kernels, so the greedy matching under this order is the
unique stable ("no blocking edge") matching, which is what the verifiers check in O(m).
"""
import numpy as np

from ..errors import VerificationError
from .graph import as_b, as_weighted_graph, resolve_precision


def _graph(G, precision):
    """The host graph of ``G`` and its weights as compared in ``precision``."""
    g = as_weighted_graph(G, precision=precision)
    dtype, _ = resolve_precision(precision, g.input_dtype)
    g = g.in_precision(dtype)
    return g, g.weights(dtype)


def _undirected(g, w):
    u = g.src.astype(np.int64)
    v = g.indices.astype(np.int64)
    keep = u < v
    return u[keep], v[keep], w[keep]


def greedy_order(g, w=None):
    """Undirected edges (u < v) by decreasing key: returns arrays u, v, w (``w``: the
    weights compared, default the graph's float64 weights)."""
    u, v, w = _undirected(g, g.w64 if w is None else w)
    order = np.lexsort((-u, -v, -w.astype(np.float64)))
    return u[order], v[order], w[order]


def greedy_matching_sequential(G, precision="auto"):
    """The sequential greedy matching (plain Python loop: an independent test oracle), the
    weights compared in ``precision``."""
    g, w = _graph(G, precision)
    mate = np.full(g.n, -1, np.int64)
    for a, b, _ in zip(*greedy_order(g, w)):
        if mate[a] < 0 and mate[b] < 0:
            mate[a], mate[b] = b, a
    return mate


def greedy_matching(G, precision="auto"):
    """The greedy matching, vectorized with numpy (locally-dominant rounds), the weights
    compared in ``precision``.

    Each vertex points to its best remaining neighbour; mutual pointers are locally dominant
    edges of the greedy order and are matched; edges at matched vertices are removed; repeat.
    """
    g, w = _graph(G, precision)
    n = g.n
    # per vertex, best neighbour first: the key (u, -w, -v)
    ur = g.src.astype(np.int64)
    vr = g.indices.astype(np.int64)
    order = np.lexsort((-vr, -w.astype(np.float64), ur))
    u, v = ur[order], vr[order]
    mate = np.full(n, -1, np.int64)
    cand = np.full(n, -1, np.int64)
    while u.size:
        first = np.ones(u.size, bool)
        first[1:] = u[1:] != u[:-1]
        cand[:] = -1
        cand[u[first]] = v[first]
        heads = u[first]
        c = cand[heads]
        mutual = cand[c] == heads
        mate[heads[mutual]] = c[mutual]
        keep = (mate[u] < 0) & (mate[v] < 0)
        u, v = u[keep], v[keep]
    return mate


def greedy_b_matching(G, b, precision="auto"):
    """The sequential greedy b-matching: (k, 2) edges (u < v) in greedy order, the weights
    compared in ``precision``."""
    g, w = _graph(G, precision)
    b = as_b(b, g.n)
    deg = np.zeros(g.n, np.int64)
    out = []
    for a, c, _ in zip(*greedy_order(g, w)):
        if deg[a] < b[a] and deg[c] < b[c]:
            deg[a] += 1
            deg[c] += 1
            out.append((a, c))
    return np.array(out, np.int64).reshape(-1, 2)


def matching_weight(g, mate):
    """Total input weight (float64) of the matching ``mate``."""
    mate = np.asarray(mate)
    v = np.flatnonzero(mate > np.arange(mate.size))
    if v.size == 0:
        return 0.0
    return float(_edge_weights(g, v, mate[v], np.float64).sum())


def _edge_positions(g, a, b):
    """Positions in the CSR of the directed edges (a[i], b[i]); -1 where absent. A vectorized
    binary search in each row's sorted neighbour list: O(k log deg), nothing of size m."""
    a = np.asarray(a, np.int64)
    b = np.asarray(b, np.int64)
    pos = np.full(a.size, -1, np.int64)
    if a.size == 0:
        return pos
    lo = g.indptr[a].astype(np.int64)
    hi = g.indptr[a + 1].astype(np.int64)
    end = hi.copy()
    idx = g.indices
    while True:                      # first position in [lo, hi) whose neighbour is >= b
        act = lo < hi
        if not act.any():
            break
        mid = (lo + hi) >> 1
        go_right = act & (idx[np.minimum(mid, idx.size - 1)] < b)
        lo = np.where(go_right, mid + 1, lo)
        hi = np.where(act & ~go_right, mid, hi)
    ok = lo < end
    ok[ok] = idx[lo[ok]] == b[ok]
    pos[ok] = lo[ok]
    return pos


def _edge_weights(g, a, b, dtype=np.float32):
    pos = _edge_positions(g, a, b)
    if (pos < 0).any():
        k = int(np.flatnonzero(pos < 0)[0])
        raise VerificationError(f"matched pair ({int(a[k])}, {int(b[k])}) is not an edge")
    return (g.w64 if dtype == np.float64 else g.w32)[pos]


def verify_weighted_matching(G, mate, precision="auto"):
    """Check that ``mate`` is a matching of the graph with no blocking edge, which makes it the
    greedy matching under the key order (unique stable matching), the weights compared in
    ``precision``. O(m) after one search."""
    g, wt = _graph(G, precision)
    n = g.n
    mate = np.asarray(mate, np.int64)
    if mate.shape != (n,):
        raise VerificationError(f"mate has shape {mate.shape}, expected ({n},)")
    if (mate < -1).any() or (mate >= n).any():
        raise VerificationError("mate holds an invalid vertex id")
    mv = np.flatnonzero(mate >= 0)
    if mv.size and not np.array_equal(mate[mate[mv]], mv):
        k = mv[np.flatnonzero(mate[mate[mv]] != mv)[0]]
        raise VerificationError(f"mate is not symmetric at vertex {k} (mate {mate[k]})")
    if (mate[mv] == mv).any():
        raise VerificationError("a vertex is matched to itself")
    mw = np.zeros(n, np.float64)
    mw[mv] = _edge_weights(g, mv, mate[mv], wt.dtype)
    u = g.src.astype(np.int64)
    p = g.indices.astype(np.int64)
    w = wt.astype(np.float64)
    pref_u = (w > mw[u]) | ((w == mw[u]) & (p > mate[u]))
    pref_p = (w > mw[p]) | ((w == mw[p]) & (u > mate[p]))
    block = pref_u & pref_p
    if block.any():
        k = int(np.flatnonzero(block)[0])
        raise VerificationError(f"edge ({u[k]}, {p[k]}) of weight {w[k]} blocks the matching: "
                                f"both ends prefer it (not the greedy matching)")
    return True


def verify_b_matching(G, b, edges, precision="auto"):
    """Check a b-matching (k x 2 edges, each pair once) for validity and for having no
    blocking edge (both ends would take it), i.e. that it is the greedy b-matching, the
    weights compared in ``precision``."""
    g, wt = _graph(G, precision)
    n = g.n
    b = as_b(b, n)
    E = np.asarray(edges, np.int64).reshape(-1, 2)
    if E.size and ((E < 0).any() or (E >= n).any()):
        raise VerificationError("an edge holds an invalid vertex id")
    a, c = np.minimum(E[:, 0], E[:, 1]), np.maximum(E[:, 0], E[:, 1])
    if (a == c).any():
        raise VerificationError("a self loop is in the b-matching")
    key = a * n + c
    if np.unique(key).size != key.size:
        raise VerificationError("an edge appears twice in the b-matching")
    deg = np.bincount(np.concatenate([a, c]), minlength=n)
    if (deg > b).any():
        k = int(np.flatnonzero(deg > b)[0])
        raise VerificationError(f"vertex {k} has {deg[k]} matched edges but b = {b[k]}")
    wm = _edge_weights(g, a, c, wt.dtype).astype(np.float64)
    # worst matched partner per vertex under the key (w, partner id)
    du = np.concatenate([a, c])
    dp = np.concatenate([c, a])
    dw = np.concatenate([wm, wm])
    order = np.lexsort((dp, dw, du))
    du, dp, dw = du[order], dp[order], dw[order]
    first = np.ones(du.size, bool)
    first[1:] = du[1:] != du[:-1]
    worst_w = np.full(n, np.inf)
    worst_p = np.full(n, n, np.int64)
    worst_w[du[first]] = dw[first]
    worst_p[du[first]] = dp[first]
    u = g.src.astype(np.int64)
    p = g.indices.astype(np.int64)
    w = wt.astype(np.float64)
    inM = np.isin(np.minimum(u, p) * n + np.maximum(u, p), key)
    want_u = (deg[u] < b[u]) | (w > worst_w[u]) | ((w == worst_w[u]) & (p > worst_p[u]))
    want_p = (deg[p] < b[p]) | (w > worst_w[p]) | ((w == worst_w[p]) & (u > worst_p[p]))
    block = want_u & want_p & ~inM
    if block.any():
        k = int(np.flatnonzero(block)[0])
        raise VerificationError(f"edge ({u[k]}, {p[k]}) of weight {w[k]} blocks the "
                                f"b-matching: both ends would take it")
    return True
