"""The maximum-product transversal of a sparse matrix and its scaling (HSL MC64's job 5), on
the assignment family: what a sparse direct solver applies before it factorises.

With ``a_j = max_i |a_ij|`` (column maxima), the costs ``c_ij = log a_j - log |a_ij|`` of the
nonzero entries are >= 0, and a minimum-cost perfect matching maximises the product of the
matched |a_ij|. Its dual variables ``u``, ``v`` (``c_ij - u_i - v_j >= 0``, 0 on the
matched entries) give the scaling: ``row_scale = exp(u)``, ``col_scale = exp(v) / a``, so
that ``|row_scale_i * a_ij * col_scale_j| = exp(u_i + v_j - c_ij)``, 1 on the matched entries
and at most 1 elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._record import RunRecord
from ..engine import args
from ..errors import InputError, VerificationError
from .api import assignment
from .finish import matched_positions
from .problem import as_array

#: how far above 1 a scaled entry, and how far from 1 a scaled diagonal entry, may be
SCALE_TOLERANCE = 1e-8


@dataclass
class TransversalResult(RunRecord):
    """Result of :func:`maximum_product_transversal`: ``perm[i]`` the column matched to row
    ``i`` (``A[:, perm]`` has the transversal on its diagonal), ``row_scale`` and
    ``col_scale`` (None unless ``scale``), ``log_product`` the sum of ``log |a_i,perm[i]|``.

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> res = pyclmatch.maximum_product_transversal(np.array([[1.0, 4.0], [2.0, 0.5]]))
    >>> res.perm.tolist(), round(float(np.exp(res.log_product)), 6)
    ([1, 0], 8.0)
    """
    perm: np.ndarray
    row_scale: np.ndarray | None
    col_scale: np.ndarray | None
    log_product: float


def _log_costs(A):
    """The nonzero pattern of ``A`` (CSR, explicit zeros dropped) with the costs
    ``log a_j - log |a_ij|``, and the column maxima ``a``."""
    m = A if sp.issparse(A) else as_array(A, "A")
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise InputError(f"A must be a square matrix, not of shape {m.shape}", argument="A")
    if m.dtype.kind not in "biufc":
        raise InputError(f"A must hold numbers, not {m.dtype}", argument="A")
    m = sp.csr_matrix(m.astype(np.float32) if m.dtype == np.float16 else m, copy=True)
    m.sum_duplicates()
    m.data = np.abs(m.data).astype(np.float64)
    if not np.isfinite(m.data).all():
        raise InputError("A holds NaN or infinite entries", argument="A")
    m.eliminate_zeros()
    m.sort_indices()
    amax = np.zeros(m.shape[1])
    np.maximum.at(amax, m.indices, m.data)
    cost = np.log(amax[m.indices]) - np.log(m.data)
    return sp.csr_matrix((cost, m.indices, m.indptr), shape=m.shape), m, amax


def maximum_product_transversal(A, scale=True, *, device=None,
                                verify=True) -> TransversalResult:
    """The permutation that maximises the product of the absolute values on the diagonal of a
    square sparse matrix, and (``scale``) the row and column scaling that makes the permuted
    matrix's diagonal entries 1 in absolute value and every other entry at most 1 (MC64's
    job 5; module docstring).

    Parameters
    ----------
    A : square scipy sparse matrix or dense array; its nonzero entries are the pattern.
    scale : compute ``row_scale`` and ``col_scale`` (default True).
    device, verify : as :func:`pyclmatch.assignment` (the matching's certificate); with
        ``verify`` the scaled matrix is also checked (entries <= 1, diagonal 1, within
        :data:`SCALE_TOLERANCE`).

    Returns
    -------
    TransversalResult; a structurally singular ``A`` raises
    :class:`~pyclmatch.errors.InputError` naming its structural rank.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, pyclmatch
    >>> A = sp.csr_matrix([[0.1, 3.0, 0.0], [2.0, 0.0, 0.5], [0.0, 1.0, 4.0]])
    >>> res = pyclmatch.maximum_product_transversal(A)
    >>> res.perm.tolist()
    [1, 0, 2]
    >>> S = sp.diags(res.row_scale) @ A @ sp.diags(res.col_scale)
    >>> np.abs(S[:, res.perm].diagonal()).round(12).tolist()
    [1.0, 1.0, 1.0]
    >>> bool(abs(S).max() <= 1 + 1e-12)
    True
    """
    scale = args.boolean("scale", scale)
    costs, absA, amax = _log_costs(A)
    try:
        res = assignment(costs, device=device, verify=verify)
    except InputError as exc:
        if not str(exc).startswith("no full matching"):
            raise
        rank = str(exc).rsplit("structural rank ", 1)[-1].rstrip(")")
        raise InputError(f"A is structurally singular: its structural rank is {rank}, less "
                         f"than its size {absA.shape[0]}", argument="A") from None
    perm = res.row_match.astype(np.int64)
    n = perm.size
    log_product = float(np.log(np.asarray(absA[np.arange(n), perm]).ravel()).sum()) \
        if n else 0.0
    rs = cs = None
    if scale:
        u, v = canonical_duals(costs, perm, res.v)
        rs, cs = np.exp(u), np.exp(v) / np.where(amax > 0, amax, 1.0)
        if verify:
            _check_scaling(absA, perm, rs, cs)
    return TransversalResult(perm, rs, cs, log_product, algorithm="auction",
                             device=res.device, timings=res.timings,
                             counters=res.counters, verified=bool(verify))


def canonical_duals(costs, perm, v):
    """The largest column potentials <= 0 for the perfect matching ``perm`` (optimal for the
    CSR ``costs``), and their row potentials (the matched entries tight): the shortest
    distances from a source joined to every column by 0, over the edges ``perm[i] -> k``
    of weight ``c_ik - c_i,perm[i]`` (the dual constraints), found by one Dijkstra with the
    certified potentials ``v`` as Johnson's potential (the reduced costs, >= 0). They are the
    potentials MC64's shortest paths give; the auction's prices drift further apart, past
    what ``exp`` represents on some matrices."""
    from scipy.sparse.csgraph import dijkstra
    n = perm.size
    rows = np.repeat(np.arange(n), np.diff(costs.indptr))
    pos = matched_positions(costs.indptr, costs.indices, perm)
    u = costs.data[pos] - v[perm]
    red = np.maximum(costs.data - u[rows] - v[costs.indices], 0.0) + 1e-300
    top = float(v.max()) if n else 0.0
    g = sp.csr_matrix((np.concatenate([red, top - v + 1e-300]),
                       (np.concatenate([perm[rows], np.full(n, n)]),
                        np.concatenate([costs.indices, np.arange(n)]))), shape=(n + 1, n + 1))
    d = dijkstra(g, indices=n)[:n] - top + v
    d = np.minimum(d, 0.0)
    return costs.data[pos] - d[perm], d


def _check_scaling(absA, perm, rs, cs):
    """Raise :class:`VerificationError` unless the scaled matrix has entries <= 1 and its
    permuted diagonal 1 (within :data:`SCALE_TOLERANCE`)."""
    rows = np.repeat(np.arange(absA.shape[0]), np.diff(absA.indptr))
    scaled = rs[rows] * absA.data * cs[absA.indices]
    if scaled.size and not scaled.max() <= 1 + SCALE_TOLERANCE:
        raise VerificationError(f"a scaled entry is {scaled.max()!r} > 1")
    diag = rs * np.asarray(absA[np.arange(perm.size), perm]).ravel() * cs[perm]
    if diag.size and not np.abs(diag - 1).max() <= SCALE_TOLERANCE:
        raise VerificationError("a scaled diagonal entry is not 1")
