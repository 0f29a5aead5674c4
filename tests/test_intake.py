"""The engine's device intake (check + transpose) and the bipartite certificate on the device."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, HealthCheck, strategies as st

import pyclmatch
from pyclmatch import InputError, VerificationError
from pyclmatch.bipartite import verify_matching
from pyclmatch.bipartite.konig import KonigCover, verify_matching_device
from pyclmatch.engine.graphs import as_bipartite
from pyclmatch.engine.intake import (DeviceCompressed, BAD_PTR, BAD_RANGE, DUPLICATE,
                                     UNSORTED)
from pyclmatch.engine.scheduler import Scheduler

from bipartite_cases import bipartite_matrices, scipy_cardinality


def _intake(device, A, **kw):
    sched = Scheduler(device)
    dc = DeviceCompressed(device, A.indptr, A.indices, A.shape[0], A.shape[1], sched=sched,
                          **kw)
    return dc, dc.problems(sched)


def _sorted_lists(ptr, ind):
    return [np.sort(ind[ptr[i]:ptr[i + 1]]) for i in range(ptr.size - 1)]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), idx64=st.booleans())
def test_device_transpose_equals_scipy(A, idx64, device):
    """The device-built transpose holds the lists of scipy's (in some order), its perm array
    points at the input entries, and int64 input indices are converted."""
    A = sp.csr_matrix(A)
    A.sort_indices()
    if idx64:
        A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    dc, bits = _intake(device, A, perm=True)
    assert bits == 0
    T = A.tocsc()
    tp = dc.t_ptr.get()
    ti = dc.t_ind.get()[:A.nnz]
    assert np.array_equal(tp, T.indptr)
    for got, want in zip(_sorted_lists(tp, ti), _sorted_lists(T.indptr, T.indices)):
        assert np.array_equal(got, want)
    assert np.array_equal(dc.ind.get()[:A.nnz], A.indices)
    perm = dc.t_perm.get()[:A.nnz]
    col_of = np.repeat(np.arange(A.shape[1]), np.diff(tp))
    assert np.array_equal(A.indices[perm], col_of)      # the entry it came from


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), idx64=st.booleans(), chunks=st.sampled_from([1, 2, 3, 7]),
       long_offsets=st.booleans())
def test_transpose_in_chunks_equals_scipy(A, idx64, chunks, long_offsets, device):
    """The transpose in chunks (no atomics; the CPU devices' path) is scipy's CSC exactly:
    offsets, lists in increasing order, the perm array and the degrees, whatever the number of
    chunks (more chunks than lists included) and with 64-bit offsets."""
    A = sp.csr_matrix(A)
    A.sort_indices()
    if idx64:
        A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    offsets = {}
    if long_offsets:
        from pyclmatch.engine.graphs import require_offset64
        try:
            require_offset64(device)            # (the 64-bit atomics those kernels use)
            offsets = {"offset_t": "long"}
        except pyclmatch.DeviceError:
            pass
    dc, bits = _intake(device, A, perm=True, chunks=chunks, **offsets)
    assert bits == 0
    T = A.tocsc()
    assert np.array_equal(dc.t_ptr.get(), T.indptr)
    assert np.array_equal(dc.t_ind.get()[:A.nnz], T.indices)
    where = sp.csr_matrix((np.arange(A.nnz) + 1, A.indices, A.indptr), shape=A.shape)
    assert np.array_equal(dc.t_perm.get()[:A.nnz], where.tocsc().data - 1)
    assert np.array_equal(dc.counts.get(), np.diff(T.indptr))


def test_transpose_in_chunks_bad_offsets(device):
    """Offsets out of order are flagged on the chunks path too, which reads and writes inside
    its arrays meanwhile."""
    A = sp.csr_matrix((np.ones(4), np.array([0, 1, 1, 2]), np.array([0, 3, 1, 4])),
                      shape=(3, 3))
    for chunks in (1, 2, 5):
        assert _intake(device, A, chunks=chunks)[1] & BAD_PTR


def test_transpose_chunks_rule(device):
    """Chunks on CPU devices of several compute units when the cursors number at most
    CHUNK_CURSORS_PER_ENTRY times the entries and fit one allocation; the atomic path on GPUs
    and beyond those bounds (the measured crossover: CHUNK_CURSORS_PER_ENTRY's comment)."""
    from pyclmatch.engine.intake import CHUNK_CURSORS_PER_ENTRY as K, transpose_chunks
    assert K == 3
    P = device.compute_units
    want = P if device.is_cpu and P >= 2 else 0
    assert transpose_chunks(device, P * 1000, 3000) == want
    assert transpose_chunks(device, P * 1000 - 1, 3000) == 0
    huge = device.max_alloc // (8 * P) + 1            # cursors past one allocation
    assert transpose_chunks(device, huge, huge, offset_bytes=8) == 0


def test_intake_flags(device):
    A = sp.csr_matrix(np.array([[1, 1, 0], [0, 1, 1]]))
    assert _intake(device, A)[1] == 0
    bad = A.copy()
    bad.indices = np.array([1, 0, 1, 2], np.int32)      # row 0 unsorted
    assert _intake(device, bad)[1] == UNSORTED
    dup = A.copy()
    dup.indices = np.array([1, 1, 1, 2], np.int32)
    assert _intake(device, dup)[1] == DUPLICATE
    rng = A.copy()
    rng.indices = np.array([0, 3, 1, 2], np.int32)
    assert _intake(device, rng)[1] & BAD_RANGE
    neg = A.copy()
    neg.indices = np.array([0, -1, 1, 2], np.int32)
    assert _intake(device, neg)[1] & BAD_RANGE
    ptr = sp.csr_matrix((np.ones(4), np.array([0, 1, 1, 2]), np.array([0, 3, 1, 4])),
                        shape=(3, 3))
    assert _intake(device, ptr)[1] & BAD_PTR


def _variants(A):
    """The same graph in the shapes users hold it in, canonical or not."""
    A = sp.csr_matrix(A)
    out = {"csr": A, "csc": A.tocsc(), "coo": A.tocoo(), "csr_array": sp.csr_array(A),
           "csc_array": sp.csc_array(A), "coo_array": sp.coo_array(A),
           "edges": (A.tocoo().row, A.tocoo().col)}
    rng = np.random.default_rng(A.nnz)
    U = A.copy()               # unsorted rows, duplicates and explicit zeros
    for i in range(U.shape[0]):
        lo, hi = U.indptr[i], U.indptr[i + 1]
        U.indices[lo:hi] = rng.permutation(U.indices[lo:hi])
    U.has_sorted_indices = False
    out["unsorted"] = U
    coo = A.tocoo()
    k = min(coo.nnz, 3)
    out["duplicates"] = sp.coo_matrix((np.r_[coo.data, np.zeros(k)],
                                       (np.r_[coo.row, coo.row[:k]],
                                        np.r_[coo.col, coo.col[:k]])), shape=A.shape).tocsr()
    I64 = A.copy()
    I64.indices, I64.indptr = I64.indices.astype(np.int64), I64.indptr.astype(np.int64)
    out["int64"] = I64
    out["int64_csc"] = I64.tocsc()
    return out


def _snapshot(X):
    if isinstance(X, tuple):
        return [np.array(a, copy=True) for a in X]
    arrs = [X.data] + ([X.indices, X.indptr] if X.format in ("csr", "csc") else
                       [X.row, X.col])
    return [np.array(a, copy=True) for a in arrs]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices())
def test_non_canonical_inputs_same_answer(A, device):
    """Every shape and canonical or not: the same cardinality, a certificate valid for the
    graph, and the caller's arrays unchanged."""
    want = scipy_cardinality(A)
    g = as_bipartite(sp.csr_matrix(A))
    for name, X in _variants(A).items():
        before = _snapshot(X)
        shape = A.shape if name == "edges" else None
        res = pyclmatch.maximum_matching(X, device=device, **({"shape": shape} if shape
                                                                else {}))
        assert res.cardinality == want, name
        verify_matching(g, res.row_match, res.col_match, res.certificate)
        for a, b in zip(before, _snapshot(X)):
            assert np.array_equal(a, b), name


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), csc=st.booleans())
def test_device_and_host_verification_agree(A, csc, device):
    """On valid answers both accept; on corrupted ones (a flipped match, a dropped cover
    vertex, a cover vertex swapped for an uncovered one) both reject."""
    X = sp.csc_matrix(A) if csc else sp.csr_matrix(A)
    res = pyclmatch.maximum_matching(X, device=device)
    host = pyclmatch.maximum_matching(X, device=device, verify="host")
    assert res.verified and host.verified and res.cardinality == host.cardinality
    g = as_bipartite(X)
    rm, cm, cov = res.row_match, res.col_match, res.certificate
    verify_matching(g, rm, cm, cov)
    verify_matching_device(g, rm, cm, cov, device=device)

    def both_reject(rm2, cm2, cov2):
        with pytest.raises(VerificationError):
            verify_matching(g, rm2, cm2, cov2)
        with pytest.raises(VerificationError):
            verify_matching_device(g, rm2, cm2, cov2, device=device)

    if res.cardinality:
        r = int(np.flatnonzero(rm >= 0)[0])
        flipped = rm.copy()
        flipped[r] = -1                                  # a flipped match
        both_reject(flipped, cm, cov)
        dropped = KonigCover(cov.rows[1:], cov.cols) if cov.rows.size else \
            KonigCover(cov.rows, cov.cols[1:])
        both_reject(rm, cm, dropped)                     # a dropped cover vertex
    free_rows = np.flatnonzero(rm < 0)
    if cov.cols.size and free_rows.size and X.nnz:
        # the cover trades a column for an unmatched row: same size, but the column's edges
        # are no longer covered unless all of them lead to that row
        swapped = KonigCover(np.sort(np.r_[cov.rows, free_rows[:1]]), cov.cols[1:])
        C = sp.csc_matrix(A)
        c = cov.cols[0]
        rows_of_c = C.indices[C.indptr[c]:C.indptr[c + 1]]
        if not np.isin(rows_of_c, swapped.rows).all():
            both_reject(rm, cm, swapped)


def test_not_an_edge_rejected_by_both(device):
    A = sp.csr_matrix(np.array([[1, 0], [0, 1]]))
    rm = np.array([1, 0])          # mutual, but (0, 1) and (1, 0) are no edges
    cm = np.array([1, 0])
    cov = KonigCover(np.array([0, 1]), np.array([], np.int64))
    with pytest.raises(VerificationError):
        verify_matching(as_bipartite(A), rm, cm, cov)
    with pytest.raises(VerificationError, match="not an edge"):
        verify_matching_device(A, rm, cm, cov, device=device)


def test_bad_structure_errors(device):
    A = sp.csr_matrix(np.eye(3))
    A.indices = np.array([0, 5, 2], np.int32)
    with pytest.raises(InputError, match="out of range"):
        pyclmatch.maximum_matching(A, device=device)
    B = sp.csr_matrix(np.eye(3))
    B.indptr = np.array([0, 2, 1, 3], np.int32)
    with pytest.raises(InputError, match="indptr"):
        pyclmatch.maximum_matching(B, device=device)


def test_verify_modes_and_total(device):
    A = sp.random(30, 40, density=0.1, random_state=1, format="csr")
    for v in (True, "device", "host", False):
        res = pyclmatch.maximum_matching(A, device=device, verify=v)
        assert res.verified == bool(v)
        assert res.timings["total"] >= res.timings.get("verify", 0.0)
    with pytest.raises(InputError, match="verify"):
        pyclmatch.maximum_matching(A, device=device, verify="maybe")


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), seed=st.integers(0, 1000), csc=st.booleans())
def test_device_canonical_lists_equal_scipy(A, seed, csc, device):
    """Unsorted lists with repeated entries are sorted and merged on the device: the lists
    equal scipy's canonical ones, the transpose too, and the user's arrays stay as given."""
    from pyclmatch.engine.graphs import DeviceBipartite
    coo = sp.coo_matrix(A)
    rng = np.random.default_rng(seed)
    k = rng.integers(0, coo.nnz + 1)
    pick = rng.integers(0, max(coo.nnz, 1), k)
    r, c = np.r_[coo.row, coo.row[pick]], np.r_[coo.col, coo.col[pick]]
    order = rng.permutation(r.size)
    X = sp.coo_matrix((np.ones(r.size), (r[order], c[order])), shape=A.shape)
    X = X.tocsc() if csc else X.tocsr()            # (scipy keeps the repeats and the order)
    before = _snapshot(X)
    g = as_bipartite(X)
    dg = DeviceBipartite(device, g, need_csr=True)
    canon = sp.csr_matrix(A, dtype=np.int8)
    canon.sum_duplicates()
    assert g.nnz == canon.nnz
    for ptr, ind, M in ((dg.row_ptr, dg.row_ind, canon), (dg.col_ptr, dg.col_ind,
                                                          canon.tocsc())):
        M.sort_indices()
        p, i = ptr.get(), ind.get()[:g.nnz]
        assert np.array_equal(p, M.indptr)
        for got, want in zip(_sorted_lists(p, i), _sorted_lists(M.indptr, M.indices)):
            assert np.array_equal(got, want)
    side = dg.row_ind if dg.sorted_side == "rows" else dg.col_ind
    sp_ = dg.row_ptr if dg.sorted_side == "rows" else dg.col_ptr
    p, i = sp_.get(), side.get()[:g.nnz]
    assert all(np.all(np.diff(i[p[j]:p[j + 1]]) > 0) for j in range(p.size - 1))
    for a, b in zip(before, _snapshot(X)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("window", [1, 3, 7, 40])
def test_canonical_lists_in_windows(window, device, monkeypatch):
    """Above the sort's scratch limit the keys are sorted in ranges of whole lists (one list
    longer than the window is a range alone): the same canonical lists and matching as one
    sort, on unsorted lists with repeats (a PoCL host with 1 GiB allocations hit this on
    kron-21 with a random permutation: 63.5M keys need 4 GB of RadixSort scratch)."""
    from pyclmatch.engine import intake
    from pyclmatch.engine.graphs import DeviceBipartite
    monkeypatch.setattr(intake, "sort_window_entries", lambda handle, odt: window)
    rng = np.random.default_rng(window)
    r = np.r_[rng.integers(0, 30, 200), np.zeros(25, int)]       # row 0: a long list
    c = rng.integers(0, 20, r.size)
    order = np.lexsort((rng.random(r.size), r))      # grouped by row, unsorted within
    ptr = np.r_[0, np.cumsum(np.bincount(r, minlength=30))]
    X = sp.csr_matrix((np.ones(r.size), c[order], ptr), shape=(30, 20))
    g = as_bipartite(X)
    dg = DeviceBipartite(device, g, need_csr=True)
    assert dg.repaired                                  # the device sorted and merged it
    canon = sp.csr_matrix(X, dtype=np.int8, copy=True)
    canon.sum_duplicates()
    canon.sort_indices()
    assert g.nnz == canon.nnz
    assert np.array_equal(dg.row_ptr.get(), canon.indptr)
    assert np.array_equal(dg.row_ind.get()[:g.nnz], canon.indices)
    res = pyclmatch.maximum_matching(X, device=device)
    assert res.cardinality == scipy_cardinality(canon)


def test_sort_windows_cover_whole_lists():
    from pyclmatch.engine.intake import sort_windows
    ptr = np.array([0, 2, 2, 9, 10, 14])
    for w in (1, 2, 3, 5, 100):
        win = sort_windows(ptr, 14, w)
        assert win[0][0] == 0 and win[-1][1] == 14
        assert all(a < b and b in ptr for a, b in win)
        assert all(x[1] == y[0] for x, y in zip(win, win[1:]))
        assert all(b - a <= w or np.sum((ptr > a) & (ptr < b)) == 0 for a, b in win)


def _unsorted_with_repeats(A, seed):
    """``A``'s pattern (CSR) with some entries repeated and every list shuffled, in arrays
    that scipy keeps as given."""
    A = sp.csr_matrix(A)
    A.sum_duplicates()
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    pick = rng.integers(0, max(A.nnz, 1), rng.integers(0, A.nnz + 1)) if A.nnz else []
    r, c = np.r_[rows, rows[pick]], np.r_[A.indices, A.indices[pick]]
    order = np.lexsort((rng.random(r.size), r))          # grouped by row, shuffled within
    ptr = np.r_[0, np.cumsum(np.bincount(r, minlength=A.shape[0]))]
    X = sp.csr_matrix((np.ones(r.size), c[order].astype(np.int32), ptr.astype(np.int32)),
                      shape=A.shape)
    X.has_canonical_format = False
    return X


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), seed=st.integers(0, 1000))
def test_lists_kept_as_given(A, seed, device):
    """``canonical=False`` (the matching families on CPU devices): unsorted lists with
    repeated entries stay as given (no sort), the answers equal scipy's on the canonical
    pattern and are verified; the device check of a matched pair scans such lists."""
    from pyclmatch.engine.graphs import DeviceBipartite
    X = _unsorted_with_repeats(A, seed)
    g = as_bipartite(X)
    dg = DeviceBipartite(device, g, need_csr=True, canonical=False)
    assert not dg.repaired and g.nnz == X.nnz
    assert np.array_equal(dg.row_ptr.get(), X.indptr)
    assert np.array_equal(dg.row_ind.get()[:X.nnz], X.indices)
    assert dg.sorted_side in (None, "rows")
    want = scipy_cardinality(sp.csr_matrix(X, dtype=np.int8))
    for alg in ("apfb-gpubfs-wr-ct", "apsb-gpubfs-mt", "gpr", "ppf"):
        res = pyclmatch.maximum_matching(X, algorithm=alg, device=device)
        assert res.cardinality == want and res.verified
        verify_matching_device(X, res.row_match, res.col_match, res.certificate,
                               device=device)


def test_scan_check_refuses_a_pair_that_is_no_edge(device):
    """The list scan of the device check (lists kept unsorted on CPU devices) finds a matched
    pair missing from its list, as the binary search does on sorted lists."""
    n = 40                      # rows i -> columns i, i+1, i+7 (mod n); column n has no edge
    i = np.arange(n)
    A = sp.csr_matrix((np.ones(3 * n), (np.r_[i, i, i], np.r_[i, (i + 1) % n, (i + 7) % n])),
                      shape=(n, n + 1))
    X = _unsorted_with_repeats(A, 3)
    assert not X.has_sorted_indices
    res = pyclmatch.maximum_matching(X, device=device)
    assert res.cardinality == n and res.col_match[n] == -1
    rm, cm = res.row_match.copy(), res.col_match.copy()
    r = n - 1
    cm[rm[r]], rm[r], cm[n] = -1, n, r          # mutual, same size, not an edge
    for check in (verify_matching_device, verify_matching):
        with pytest.raises(VerificationError):
            kw = {"device": device} if check is verify_matching_device else {}
            check(X, rm, cm, res.certificate, **kw)
