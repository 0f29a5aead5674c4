"""Shared bipartite test graphs: structured/adversarial cases and a hypothesis strategy.

Every exact family (augmenting paths, push-relabel, Pothen-Fan) is tested on these same cases
against scipy's ``maximum_bipartite_matching``.
"""
import os
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

#: the project's shared folder (papers, graphs, tools); PYCLMATCH_SHARED overrides it (the GPU
#: host gets a copy with gzipped Matrix Market files)
SHARED = Path(os.environ.get("PYCLMATCH_SHARED")
              or Path(__file__).resolve().parents[1].parent / "shared")
GRAPHS = SHARED / "data" / "graphs"


def scipy_cardinality(A):
    A = sp.csr_matrix(A)
    if A.shape[0] == 0 or A.shape[1] == 0 or A.nnz == 0:
        return 0
    A = A.copy()
    A.data[:] = 1          # scipy drops explicit zeros' edges otherwise
    return int((scipy_mbm(A, perm_type="column") >= 0).sum())


def _csr(rows, cols, shape):
    A = sp.csr_matrix((np.ones(len(rows), np.int8), (rows, cols)), shape=shape)
    A.sum_duplicates()
    A.data[:] = 1
    return A


def chain(n):
    """Rows i ~ columns i and i+1: a greedy choice of (i, i+1) leaves an augmenting path of
    length 2n through the whole chain."""
    i = np.arange(n)
    r = np.concatenate([i, i[:-1]])
    c = np.concatenate([i, i[:-1] + 1])
    return _csr(r, c, (n, n))


def long_paths(n, seed=0):
    """A chain under a random row/column permutation (the RCP form, long paths kept)."""
    A = chain(n)
    rng = np.random.default_rng(seed)
    return A[rng.permutation(n)][:, rng.permutation(n)].tocsr()


def layered(layers, width):
    """Layers of `width` rows and columns joined densely to the next layer only, with one
    column short per layer: many equal-length alternating paths, which makes phase-based
    algorithms (Hopcroft-Karp) do many phases."""
    rows, cols = [], []
    for k in range(layers):
        for a in range(width):
            for b in range(width):
                if k + 1 < layers or b < width - 1:
                    rows.append(k * width + a)
                    cols.append(min(k + 1, layers - 1) * width + b if k + 1 < layers
                                else k * width + b)
            rows.append(k * width + a)
            cols.append(k * width + a)
    n = layers * width
    return _csr(rows, cols, (n, n))


def upper_triangular(n):
    r, c = np.triu_indices(n)
    return _csr(r, c, (n, n))


def star(n, transpose=False):
    """Many rows competing for one column (and a few private columns)."""
    r = np.concatenate([np.arange(n), [0, 1]])
    c = np.concatenate([np.zeros(n, int), [1, 2]])
    A = _csr(r, c, (n, 3))
    return A.T.tocsr() if transpose else A


def permuted_perfect(n, extra=2, seed=0):
    """A perfect matching hidden under random permutations plus random extra edges."""
    rng = np.random.default_rng(seed)
    p = rng.permutation(n)
    r = np.concatenate([np.arange(n), rng.integers(0, n, extra * n)])
    c = np.concatenate([p, rng.integers(0, n, extra * n)])
    return _csr(r, c, (n, n))


def random_rect(m, n, deg, seed=0):
    rng = np.random.default_rng(seed)
    k = int(m * deg)
    return _csr(rng.integers(0, m, k), rng.integers(0, n, k), (m, n))


def with_duplicates(n=40, seed=3):
    """A COO matrix holding duplicate entries and explicit zeros (scipy once crashed on it)."""
    rng = np.random.default_rng(seed)
    r = rng.integers(0, n, 4 * n)
    c = rng.integers(0, n, 4 * n)
    r = np.concatenate([r, r[:n]])
    c = np.concatenate([c, c[:n]])
    data = rng.integers(0, 2, r.size).astype(float)   # zeros are explicit edges
    return sp.coo_matrix((data, (r, c)), shape=(n, n))


def isolated(n=30, seed=4):
    """Rows and columns without edges beside a random part."""
    A = random_rect(n, n, 1.5, seed).tolil()
    A[: n // 3, :] = 0
    A[:, -n // 3:] = 0
    A = A.tocsr()
    A.eliminate_zeros()
    return A


def power_law(m, n, avg_deg, exponent=2.1, seed=0):
    """Chung-Lu bipartite graph: edge ends drawn with probabilities proportional to power-law
    weights (``i ** (-1 / (exponent - 1))``) on both sides under random labels, so a few hubs
    hold a large share of the edges (as kron graphs do) and many vertices have degree 0-1."""
    rng = np.random.default_rng(seed)
    k = int(m * avg_deg)

    def ends(size):
        w = np.arange(1, size + 1, dtype=float) ** (-1.0 / (exponent - 1.0))
        return rng.permutation(size)[rng.choice(size, k, p=w / w.sum())]

    return _csr(ends(m), ends(n), (m, n))


def hubs(n, hub_rows=2, hub_cols=3, extra=1.0, seed=0):
    """Random sparse part (``extra`` edges per row) plus hub rows and hub columns adjacent to
    every vertex of the other side, at random positions: the hubs compete for partners that
    the sparse part also wants, and a hub's scan must find the few free ones."""
    rng = np.random.default_rng(seed)
    k = int(n * extra)
    r, c = [rng.integers(0, n, k)], [rng.integers(0, n, k)]
    for h in rng.choice(n, hub_rows, replace=False):
        r.append(np.full(n, h))
        c.append(np.arange(n))
    for h in rng.choice(n, hub_cols, replace=False):
        r.append(np.arange(n))
        c.append(np.full(n, h))
    return _csr(np.concatenate(r), np.concatenate(c), (n, n))


def double_star(n):
    """Two hub columns sharing their n rows, plus rows of degree 1 on private columns: only
    two of the n rows can be matched to a hub, the hubs' first free rows are the same."""
    r = np.concatenate([np.arange(n), np.arange(n), np.arange(n // 2)])
    c = np.concatenate([np.zeros(n, int), np.ones(n, int), 2 + np.arange(n // 2)])
    return _csr(r, c, (n, 2 + n // 2))


def heavy_cases():
    """(name, matrix) pairs with vertices far above the average degree: power-law graphs
    (square, rectangular, transposed), kron graphs, stars and hub graphs. With a low
    ``heavy_degree`` they run the degree-aware (work-group per vertex) kernel paths; in the
    complete graph every heavy column competes for the same rows (lost claims, retries)."""
    from pyclmatch import generators
    return [
        ("power-law-400", power_law(400, 400, 3.0, seed=1)),
        ("power-law-300x150", power_law(300, 150, 4.0, exponent=1.8, seed=2)),
        ("power-law-150x300", power_law(150, 300, 2.0, exponent=2.5, seed=3)),
        ("kron-9", generators.kron(9)),
        ("kron-8", generators.kron(8, seed=4)),
        ("star-300", star(300)),
        ("star-300-T", star(300, transpose=True)),
        ("double-star-200", double_star(200)),
        ("hubs-300", hubs(300, seed=5)),
        ("hubs-200-dense", hubs(200, hub_rows=8, hub_cols=8, extra=0.5, seed=6)),
        ("complete-48x40", _csr(*np.divmod(np.arange(48 * 40), 40), (48, 40))),
    ]


def structured_cases():
    """(name, matrix) pairs: small, adversarial, square and rectangular."""
    return [
        ("empty-0x0", sp.csr_matrix((0, 0))),
        ("empty-5x0", sp.csr_matrix((5, 0))),
        ("empty-0x5", sp.csr_matrix((0, 5))),
        ("no-edges-6x4", sp.csr_matrix((6, 4))),
        ("single-edge", _csr([0], [0], (1, 1))),
        ("chain-200", chain(200)),
        ("long-paths-300", long_paths(300)),
        ("layered-8x6", layered(8, 6)),
        ("upper-triangular-60", upper_triangular(60)),
        ("star-50", star(50)),
        ("star-50-T", star(50, transpose=True)),
        ("perfect-rcp-500", permuted_perfect(500)),
        ("tall-300x120", random_rect(300, 120, 2.0, 1)),
        ("wide-120x300", random_rect(120, 300, 2.0, 2)),
        ("duplicates-40", with_duplicates()),
        ("isolated-30", isolated()),
        ("dense-30", sp.csr_matrix(np.ones((30, 30)))),
    ]


def shared_matrix_files():
    """The Matrix Market files of shared/data/graphs (empty list when absent)."""
    if not GRAPHS.is_dir():
        return []
    return sorted(list(GRAPHS.glob("*.mtx")) + list(GRAPHS.glob("*.mtx.gz")))


try:
    from hypothesis import strategies as st

    @st.composite
    def bipartite_matrices(draw, max_side=60):
        """Random bipartite graphs: square or rectangular, empty to dense, with isolated
        vertices and duplicate entries."""
        m = draw(st.integers(0, max_side))
        n = draw(st.integers(0, max_side))
        density = draw(st.sampled_from([0.0, 0.02, 0.05, 0.1, 0.3, 1.0]))
        seed = draw(st.integers(0, 2**31 - 1))
        rng = np.random.default_rng(seed)
        k = int(round(density * m * n)) if m and n else 0
        r = rng.integers(0, max(m, 1), k)
        c = rng.integers(0, max(n, 1), k)
        if k and draw(st.booleans()):                       # duplicate entries
            r, c = np.concatenate([r, r[: k // 2]]), np.concatenate([c, c[: k // 2]])
        return sp.coo_matrix((np.ones(r.size), (r, c)), shape=(m, n)).tocsr()

    @st.composite
    def power_law_matrices(draw, max_side=120):
        """Random power-law (Chung-Lu) bipartite graphs with optional full hub rows/columns:
        the degree distributions the degree-aware kernels are for."""
        m = draw(st.integers(1, max_side))
        n = draw(st.integers(1, max_side))
        avg = draw(st.sampled_from([0.5, 1.0, 2.0, 4.0]))
        exponent = draw(st.sampled_from([1.6, 2.0, 2.5]))
        seed = draw(st.integers(0, 2**31 - 1))
        A = power_law(m, n, avg, exponent, seed).tolil()
        rng = np.random.default_rng(seed)
        for _ in range(draw(st.integers(0, 2))):
            A[int(rng.integers(m)), :] = 1
        for _ in range(draw(st.integers(0, 2))):
            A[:, int(rng.integers(n))] = 1
        return A.tocsr()
except ImportError:  # pragma: no cover
    bipartite_matrices = power_law_matrices = None
