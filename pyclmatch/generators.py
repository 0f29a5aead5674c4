"""The reference benchmark suite: square ``scipy.sparse.csr_matrix`` biadjacency matrices.

This module reproduces ``shared/tools/graphgen.py`` exactly: the same parameters and seeds give
bit-identical matrices (same ``numpy.random.default_rng`` streams, same order of random calls,
``int8`` ones as data, sorted indices, no duplicates).  Every family mirrors a test class of the
seed papers:

* :func:`uniform` -- sparse uniform random graphs (the random instances on which Karp-Sipser
  initialisation is analysed; the random-graph class behind the matching heuristics used by
  Meier et al., paper 001, and Deveci et al., papers 000/003);
* :func:`kron` -- Graph500 Kronecker / R-MAT graphs, ``kron_g500-logn20/21`` in Deveci et al.,
  Euro-Par 2013 (paper 000, O_Hardest20) and ICPP 2013 (G-PR, paper 003);
* :func:`delaunay` -- Delaunay triangulations of random points, DIMACS10 ``delaunay_nXX`` in
  papers 000 and 003;
* :func:`grid` -- 2-D grids with random edge deletions, standing in for the road networks
  (``roadNet-CA/PA/TX`` in papers 000/003, ``road_usa`` in Naim's thesis, paper 004);
* :func:`permuted` -- random row and column permutation, the "RCP" instance sets of paper 000.

The random draws, the CSR assembly (sort, merge of repeats) and the RCP gathers run on all
cores (:mod:`pyclmatch.hostpar`), with the same results as the sequential numpy/scipy calls of
``graphgen.py`` for any number of threads; only Delaunay's triangulation (Qhull) is sequential.

:data:`SUITE` holds the full-size benchmark graphs (millions of vertices), :data:`SMALL_SUITE`
the same families at small sizes, for tests and examples.
"""
import numpy as np
import scipy.sparse as sp

from .engine import args
from .errors import InputError
from .hostpar import Stream, pattern_csr, permute_csr, pmap, spans

__all__ = ["uniform", "kron", "delaunay", "grid", "permuted", "SUITE", "SMALL_SUITE", "MEDIUM_SUITE",
           "SUITES", "suite"]


def uniform(n, deg, seed=0):
    """Uniform random ``n x n`` biadjacency matrix with ``n * deg`` entries drawn with replacement
    (duplicates merged), i.e. about ``deg`` random columns per row.

    Mirrors the sparse uniform random graphs of Karp-Sipser's analysis, the classic random test
    class for maximum-matching heuristics (Meier et al., paper 001; Deveci et al., papers 000/003).

    Parameters
    ----------
    n : int
        Rows and columns.
    deg : int
        Entries drawn per row.
    seed : int, optional
        Seed of the random stream.

    Returns
    -------
    scipy.sparse.csr_matrix
        The ``int8`` pattern, sorted indices, no duplicates.

    Examples
    --------
    >>> from pyclmatch.generators import uniform
    >>> A = uniform(100, 3)
    >>> A.shape, A.nnz
    ((100, 100), 296)
    """
    n = args.integer("n", n, low=1, high=args.INT32_MAX)
    deg = args.integer("deg", deg, low=0, high=args.INT32_MAX // n)
    S = Stream(args.seed("seed", seed))
    m = n * deg
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    r = S.integers(n, m, dt)
    return _csr(r, S.integers(n, m, dt), n)


def kron(scale, edgefactor=16, seed=0):
    """Graph500 Kronecker (R-MAT ``a=.57, b=.19, c=.19``) graph on ``2**scale`` vertices with
    ``edgefactor * 2**scale`` generated edges, vertex ids randomly relabelled, self-loops dropped,
    symmetric (both directions stored).

    Mirrors ``kron_g500-logn20/21`` of Deveci et al. (Euro-Par 2013, paper 000; G-PR, ICPP 2013,
    paper 003).

    Parameters
    ----------
    scale : int
        ``log2`` of the number of vertices.
    edgefactor : int, optional
        Generated edges per vertex (before duplicates and self-loops are dropped).
    seed : int, optional
        Seed of the random stream.

    Returns
    -------
    scipy.sparse.csr_matrix
        The symmetric ``int8`` pattern of the ``2**scale`` vertices, no self-loops.

    Examples
    --------
    >>> from pyclmatch.generators import kron
    >>> A = kron(8)
    >>> A.shape, A.nnz, (A != A.T).nnz
    ((256, 256), 4262, 0)
    """
    scale = args.integer("scale", scale, low=1, high=30)
    edgefactor = args.integer("edgefactor", edgefactor, low=1, high=args.INT32_MAX >> scale)
    S = Stream(args.seed("seed", seed))
    n, m = 1 << scale, edgefactor << scale
    a, b, cc = 0.57, 0.19, 0.19
    p = S.generator(skip=scale * m).permutation(n)      # drawn after the scale * m doubles
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64

    def edges(span):                        # the edges e0 .. e1 - 1, bit by bit as drawn
        e0, e1 = span
        r = np.zeros(e1 - e0, np.int64)
        c = np.zeros(e1 - e0, np.int64)
        u = np.empty(e1 - e0)
        for bit in range(scale):
            S.doubles(bit * m + e0, e1 - e0, out=u)
            rb = u > a + b                  # lower half: quadrants c, d
            cb = ((u > a) & (u <= a + b)) | (u > a + b + cc)
            r |= rb.astype(np.int64) << bit
            c |= cb.astype(np.int64) << bit
        r, c = p[r].astype(dt), p[c].astype(dt)       # Graph500 vertex relabelling
        keep = r != c                       # self-loops dropped
        return r[keep], c[keep]
    parts = pmap(edges, spans(m, minimum=1 << 18))
    r = np.concatenate([x for x, _ in parts] + [y for _, y in parts])
    c = np.concatenate([y for _, y in parts] + [x for x, _ in parts])
    del parts
    return _csr(r, c, n)                    # symmetric, like kron_g500


def delaunay(logn, seed=0):
    """Delaunay triangulation of ``2**logn`` uniform random points in the unit square (symmetric
    adjacency of the triangle edges).

    Mirrors DIMACS10 ``delaunay_nXX`` (``delaunay_n20..n24``) of Deveci et al. (papers 000, 003).

    Parameters
    ----------
    logn : int
        ``log2`` of the number of points.
    seed : int, optional
        Seed of the random stream.

    Returns
    -------
    scipy.sparse.csr_matrix
        The symmetric ``int8`` pattern of the triangles' edges.

    Examples
    --------
    >>> from pyclmatch.generators import delaunay
    >>> A = delaunay(6)
    >>> A.shape, A.nnz
    ((64, 64), 360)
    """
    from scipy.spatial import Delaunay
    n = 1 << args.integer("logn", logn, low=2, high=28)
    t = Delaunay(Stream(args.seed("seed", seed)).random(2 * n).reshape(n, 2)).simplices
    r = np.concatenate([t[:, 0], t[:, 1], t[:, 2], t[:, 1], t[:, 2], t[:, 0]])
    c = np.concatenate([t[:, 1], t[:, 2], t[:, 0], t[:, 0], t[:, 1], t[:, 2]])
    return _csr(r, c, n)


def grid(side, keep=0.7, seed=0):
    """``side x side`` 2-D grid graph in which each edge survives with probability ``keep``
    (symmetric adjacency).

    A road-network-like class: planar, low degree, long paths, standing in for ``roadNet-CA/PA/TX``
    of Deveci et al. (papers 000, 003) and ``road_usa`` of Naim's thesis (paper 004).

    Parameters
    ----------
    side : int
        Vertices per row and column of the grid.
    keep : float, optional
        Probability that an edge is kept.
    seed : int, optional
        Seed of the random stream.

    Returns
    -------
    scipy.sparse.csr_matrix
        The symmetric ``int8`` pattern of ``side**2`` vertices.

    Examples
    --------
    >>> from pyclmatch.generators import grid
    >>> A = grid(8)                 # of the 2 * 8 * 7 = 112 edges, about 70% kept
    >>> A.shape, A.nnz // 2, grid(8, keep=1.0).nnz // 2
    ((64, 64), 71, 112)
    """
    side = args.integer("side", side, low=1, high=46340)
    keep = args.number("keep", keep, low=0, high=1)
    seed = args.seed("seed", seed)
    n = side * side
    idx = np.arange(n).reshape(side, side)
    r = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    c = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    k = Stream(seed).random(r.size) < keep
    r, c = r[k], c[k]
    return _csr(np.concatenate([r, c]), np.concatenate([c, r]), n)


def permuted(A, seed=1):
    """Random row and column permutation ("RCP") of ``A``: ``A[pr][:, pc]``.

    The RCP instance sets of Deveci et al. (Euro-Par 2013, paper 000): the same graphs with
    randomly permuted rows and columns, which usually makes augmenting-path searches harder.

    Parameters
    ----------
    A : scipy.sparse matrix or array
        The matrix to permute (any format; anything else is refused, naming ``A``).
    seed : int, optional
        Seed of the two permutations.

    Returns
    -------
    scipy.sparse.csr_matrix
        ``A`` with its rows and columns permuted.

    Examples
    --------
    >>> from pyclmatch.generators import grid, permuted
    >>> A = grid(8)
    >>> P = permuted(A)
    >>> P.shape == A.shape, P.nnz == A.nnz
    (True, True)
    """
    seed = args.seed("seed", seed)
    if not sp.issparse(A) or len(A.shape) != 2:
        args.refuse("A", A, "a 2-D scipy.sparse matrix or array")
    rng = np.random.default_rng(seed)
    pr, pc = rng.permutation(A.shape[0]), rng.permutation(A.shape[1])
    if A.format != "csr":       # (coo, dia and bsr take no indexing)
        A = A.tocsr()
    if A.indices.dtype == np.int32 and A.indptr.dtype == np.int32:
        return permute_csr(A, pr, pc)       # the same arrays, gathered by all cores
    return A[pr][:, pc].tocsr()


def _csr(r, c, n):
    """The pattern of the pairs (r, c): sorted, merged, int8 ones (scipy's coo -> csr with
    ``sum_duplicates``), built by all cores."""
    return pattern_csr(r, c, (n, n))


#: The reference benchmark graphs (same names and definitions as ``graphgen.SUITE``).
SUITE = {
    "uniform-4M-d4": lambda: uniform(1 << 22, 4),
    "kron-21": lambda: kron(21),
    "delaunay-21": lambda: delaunay(21),
    "grid-2048": lambda: grid(2048),
}

#: The same families at test/example sizes (each builds in well under a second).
SMALL_SUITE = {
    "uniform-4K-d4": lambda: uniform(1 << 12, 4),
    "kron-10": lambda: kron(10),
    "delaunay-10": lambda: delaunay(10),
    "grid-64": lambda: grid(64),
}

#: the same families at about 1/16 of the reference size: the CPU-side benchmark suite
MEDIUM_SUITE = {
    "uniform-256K-d4": lambda: uniform(1 << 18, 4),
    "kron-17": lambda: kron(17),
    "delaunay-17": lambda: delaunay(17),
    "grid-512": lambda: grid(512),
}

SUITES = {"small": SMALL_SUITE, "medium": MEDIUM_SUITE, "large": SUITE, "reference": SUITE}


def suite(names=None, rcp=False, *, small=False, size=None):
    """An iterator of ``(name, matrix)`` for the graphs of :data:`SUITE` (or
    :data:`SMALL_SUITE` with ``small=True``), in the table's order, built lazily one at a
    time; the arguments are checked when it is called, before any graph is built.

    ``size`` ("small", "medium", "large" = "reference") picks the table by name.
    ``names`` (a name or a list of names of the table) restricts and orders the graphs.
    ``rcp=True`` yields the randomly row/column permuted versions
    (:func:`permuted` with its default seed) named ``name + "-rcp"`` instead of the originals;
    ``rcp="both"`` yields each original followed by its permuted version.

    Raises
    ------
    InputError
        An unknown size, graph name or ``rcp`` value, or one of another type (``small``
        and ``rcp`` take True/False, not 0/1); ``exc.argument`` names it.

    Examples
    --------
    >>> from pyclmatch.generators import suite
    >>> [(name, A.shape) for name, A in suite("grid-64", rcp="both", small=True)]
    [('grid-64', (4096, 4096)), ('grid-64-rcp', (4096, 4096))]
    """
    small = args.boolean("small", small)
    size = None if size is None else args.choice("size", size, tuple(SUITES))
    table = SUITES[size] if size else (SMALL_SUITE if small else SUITE)
    rcp = checked_rcp(rcp)
    if names is None:
        names = list(table)
    elif isinstance(names, str):
        names = [names]
    elif not isinstance(names, (list, tuple)) or \
            not all(isinstance(nm, str) for nm in names):
        args.refuse("names", names, "None, a graph name or a list of graph names")
    unknown = [nm for nm in names if nm not in table]
    if unknown:
        raise InputError(f"unknown suite graph(s) {unknown}; available: {list(table)}",
                         argument="names")
    return _suite_graphs(table, list(names), rcp)


def _suite_graphs(table, names, rcp):
    """The graphs of :func:`suite`, built one at a time."""
    for nm in names:
        A = table[nm]()
        if rcp in (False, "both"):
            yield nm, A
        if rcp:
            yield nm + "-rcp", permuted(A)


def checked_rcp(rcp):
    """:func:`suite`'s ``rcp`` checked (:mod:`pyclmatch.engine.args`): ``False``, ``True`` or
    ``"both"``, else an :class:`~pyclmatch.errors.InputError` naming ``rcp``.

    Examples
    --------
    >>> checked_rcp("BOTH"), checked_rcp(False)
    ('both', False)
    """
    if isinstance(rcp, str):
        return args.choice("rcp", rcp, ("both",))
    if isinstance(rcp, (bool, np.bool_)):
        return bool(rcp)
    args.refuse("rcp", rcp, "False, True or 'both'")
