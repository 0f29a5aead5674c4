"""The host's checks of a compressed matrix (CSR/CSC arrays as the user holds them): what
host paths run before scipy's compiled routines read the arrays, and the one wording of a
structure problem that the device intake (:mod:`pyclmatch.engine.intake`) reports too. Only
numpy: the host family answers without loading pyopencl."""
import numpy as np

from ..errors import InputError

BAD_PTR, BAD_RANGE, UNSORTED, DUPLICATE = 1, 2, 4, 8
#: the flags that a canonical copy of the same matrix repairs
NOT_CANONICAL = UNSORTED | DUPLICATE


def compressed_parts(A):
    """``(fmt, indptr, indices, data)`` of a scipy sparse matrix or array without copying
    a CSR or CSC (``fmt`` is ``"csr"`` or ``"csc"``); other formats become a CSR through
    scipy's compiled conversion (:func:`checked_csr`; duplicates are kept: the device finds
    them).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> fmt, indptr, indices, data = compressed_parts(sp.csr_matrix([[0, 1], [1, 1]]))
    >>> fmt, indptr.tolist(), indices.tolist()
    ('csr', [0, 1, 3], [1, 0, 1])
    """
    fmt = A.format
    if fmt not in ("csr", "csc"):
        A = checked_csr(A)
        fmt = "csr"
    return fmt, A.indptr, A.indices, A.data


def check_compressed_host(indptr, indices, n_minor, what="the sparse matrix"):
    """The structure checks of the device intake, on the host (O(n + nnz), no copy): for
    host paths that hand the user's compressed arrays to scipy's compiled routines, which
    trust them (a decreasing indptr or an index out of range makes them write outside their
    arrays). Raises the intake's :class:`InputError`.

    Examples
    --------
    >>> import numpy as np
    >>> try:
    ...     check_compressed_host(np.array([0, 1]), np.array([5]), 2)
    ... except ValueError as exc:
    ...     print(str(exc).split(" (")[0])
    the sparse matrix holds an index out of range of its shape
    """
    nnz = int(indices.size)
    if indptr.size == 0 or indptr[0] != 0 or indptr[-1] != nnz:
        raise InputError(f"{what}'s indptr must run from 0 to the number of stored entries "
                         f"({nnz})")
    if indptr.size > 1 and np.any(indptr[1:] < indptr[:-1]):
        raise_structure_problem(BAD_PTR, what)
    if nnz and (indices.min() < 0 or indices.max() >= n_minor):
        raise_structure_problem(BAD_RANGE, what)


def checked_csr(A, what="the sparse matrix"):
    """A CSR of the sparse matrix ``A`` through scipy's conversion, after the checks that
    conversion leaves out: a CSR is returned as it is; a CSC is checked as compressed arrays
    (:func:`check_compressed_host`); any other format's coordinates (COO's ``row``/``col``,
    which the caller may have changed after scipy's check at construction) must lie in the
    shape.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> checked_csr(sp.coo_matrix([[0, 1], [1, 0]])).format
    'csr'
    """
    if A.format == "csr":
        return A
    if A.format == "csc":
        check_compressed_host(A.indptr, A.indices, A.shape[0], what)
        return A.tocsr()
    C = A if A.format == "coo" else A.tocoo()
    rows, cols = C.coords if hasattr(C, "coords") else (C.row, C.col)
    for ids, bound in ((rows, A.shape[0]), (cols, A.shape[1])):
        if ids.size and (ids.min() < 0 or ids.max() >= bound):
            raise_structure_problem(BAD_RANGE, what)
    return C.tocsr()


def canonical_copy(A):
    """A canonical copy of the CSR/CSC ``A`` with its values (sorted indices, duplicates
    summed, as scipy does); ``A`` itself is never modified. The repair of weighted input the
    device found unsorted or with repeated entries (structural input is repaired on the
    device: :func:`canonical_lists`).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_matrix((np.array([3.0, -1.0]), np.array([0, 0]), np.array([0, 2])),
    ...                   shape=(1, 1))
    >>> canonical_copy(A).toarray().tolist()
    [[2.0]]
    """
    B = A.copy()
    B.sum_duplicates()
    return B


def raise_structure_problem(bits, what="the matrix"):
    """The documented :class:`InputError` for the flags that no canonical copy repairs.

    Examples
    --------
    >>> raise_structure_problem(0) is None
    True
    """
    if bits & BAD_PTR:
        raise InputError(f"{what}'s indptr decreases: it is not a valid compressed matrix")
    if bits & BAD_RANGE:
        raise InputError(f"{what} holds an index out of range of its shape (negative or too "
                         f"large)")


def check_no_entries(indptr, what="the sparse matrix"):
    """The structure check of a matrix without entries, which no device pass sees (the
    families answer it on the host): its indptr must be all zeros. O(n), no copy.

    Examples
    --------
    >>> import numpy as np
    >>> check_no_entries(np.zeros(4, np.int32)) is None
    True
    """
    if indptr.size and np.any(indptr):
        raise InputError(f"{what}'s indptr decreases: it is not a valid compressed matrix")
