"""The Suitor family's device intake and device verification: non-canonical scipy inputs give
the answers of canonical ones, the caller's arrays stay as they were, the device checks raise
the host checks' errors, and the device and host verifiers agree (both accept the greedy
answers, both reject corrupted ones)."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

from pyclmatch import get_device
from pyclmatch.engine.scheduler import Scheduler
from pyclmatch.errors import InputError, VerificationError
from pyclmatch.weighted import (as_weighted_graph, b_matching, greedy_b_matching,
                                greedy_matching_sequential, verify_b_matching,
                                verify_weighted_matching, weighted_matching)
from pyclmatch.weighted.blocking import DeviceCertificate
from pyclmatch.weighted.graph import SparseInput
from pyclmatch.weighted.suitor import DeviceWeighted

DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")


def sym_csr(n, edges):
    """Canonical symmetric CSR (float64) of the undirected weighted ``edges`` (u, v, w),
    the first weight of a repeated pair kept, self-loops left out."""
    seen = {}
    for u, v, w in edges:
        if u != v:
            seen.setdefault((min(u, v), max(u, v)), w)
    if not seen:
        return sp.csr_matrix((n, n))
    a, b = (np.array(x) for x in zip(*seen.keys()))
    w = np.array(list(seen.values()), float)
    A = sp.csr_matrix((np.concatenate([w, w]), (np.concatenate([a, b]), np.concatenate([b, a]))),
                      shape=(n, n))
    A.sort_indices()
    return A


def variants(A, seed=0):
    """Non-canonical forms of the symmetric CSR ``A`` holding the same graph."""
    rng = np.random.default_rng(seed)
    out = {"csr": A, "csr-int64": sp.csr_matrix((A.data, A.indices.astype(np.int64),
                                                 A.indptr.astype(np.int64)), shape=A.shape),
           "csc": A.tocsc(), "coo": A.tocoo(), "csr_array": sp.csr_array(A),
           "float32": A.astype(np.float32), "lil-to-csc-array": sp.csc_array(A.tolil())}
    # unsorted lists: each row's entries in a random order
    order = np.lexsort((rng.random(A.nnz), np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))))
    U = sp.csr_matrix((A.data[order], A.indices[order], A.indptr.copy()), shape=A.shape)
    out["unsorted"] = U
    # every entry twice with half the weight (halves of these weights are exact)
    D = sp.csr_matrix((np.repeat(A.data / 2, 2), np.repeat(A.indices, 2), A.indptr * 2),
                      shape=A.shape)
    out["duplicates"] = D
    # a diagonal (ignored) on every other vertex
    diag = sp.diags(np.where(np.arange(A.shape[0]) % 2 == 0, 5.0, 0.0), format="csr")
    diag.eliminate_zeros()
    out["diagonal"] = Dg = (A + diag).tocsr()
    # the diagonal, unsorted lists and int64 indices at once
    order = np.lexsort((-Dg.indices, np.repeat(np.arange(A.shape[0]), np.diff(Dg.indptr))))
    out["diagonal-unsorted-int64"] = sp.csr_matrix(
        (Dg.data[order], Dg.indices[order].astype(np.int64), Dg.indptr.copy()), shape=A.shape)
    return out


def _arrays(M):
    M = M if M.format in ("csr", "csc", "coo") else M.tocsr()
    if M.format == "coo":
        return [M.row.copy(), M.col.copy(), M.data.copy()]
    return [M.indptr.copy(), M.indices.copy(), M.data.copy()]


def _same_arrays(M, before):
    after = _arrays(M)
    return all(a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
               for a, b in zip(after, before))


EDGES = st.integers(2, 40).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                       st.sampled_from([0.5, 1.0, 2.0, 3.0, 0.25, 7.5])), max_size=120)))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDGES, st.integers(1, 3))
def test_noncanonical_inputs_give_the_canonical_answers(data, b):
    n, edges = data
    A = sym_csr(n, edges)
    ref = greedy_matching_sequential(A)
    ref_b = greedy_b_matching(A, b)
    base = weighted_matching(A, device=DEV)
    assert np.array_equal(base.mate, ref)
    for name, M in variants(A).items():
        before = _arrays(M)
        r = weighted_matching(M, device=DEV)
        assert np.array_equal(r.mate, ref), name
        assert r.weight == base.weight, name
        rb = b_matching(M, b, device=DEV)
        assert np.array_equal(rb.edges, ref_b[np.lexsort(ref_b.T[::-1])]), name
        assert _same_arrays(M, before), name          # the caller's arrays are untouched


def test_diagonal_only_and_empty_matrices():
    D = sp.diags([1.0, 2.0, 3.0], format="csr")
    assert list(weighted_matching(D, device=DEV).mate) == [-1, -1, -1]
    assert b_matching(D, 2, device=DEV).cardinality == 0
    assert weighted_matching(sp.csr_matrix((4, 4)), device=DEV).cardinality == 0


def test_integer_and_bool_weights():
    A = sym_csr(6, [(0, 1, 3), (1, 2, 5), (2, 3, 4), (3, 4, 1), (4, 5, 2)])
    ref = greedy_matching_sequential(A)
    for dt in (np.int8, np.uint16, np.int32, np.int64, np.uint64):
        assert np.array_equal(weighted_matching(A.astype(dt), device=DEV).mate, ref), dt
    P = (A != 0).astype(bool)
    assert np.array_equal(weighted_matching(P, device=DEV).mate,
                          greedy_matching_sequential(P.astype(float)))


def _host_error(M, **kw):
    with pytest.raises(InputError) as exc:
        as_weighted_graph(M, **kw)
    return str(exc.value)


@pytest.mark.parametrize("case", ["nan", "negative", "zero", "inf", "float32", "asymmetric",
                                  "asymmetric-csc", "asymmetric-missing", "out-of-range"])
def test_device_checks_raise_the_host_messages(case):
    A = sym_csr(5, [(0, 1, 1.0), (1, 2, 2.0), (2, 3, 3.0), (3, 4, 4.0), (0, 4, 0.5)])
    M = A.copy()
    if case in ("nan", "negative", "zero", "inf", "float32"):
        bad = {"nan": np.nan, "negative": -2.0, "zero": 0.0, "inf": np.inf,
               "float32": 1e300}[case]
        M.data[[3, 5]] = bad                  # two invalid entries (one per direction)
    elif case.startswith("asymmetric"):
        M.data[4] = 9.0
        if case == "asymmetric-csc":
            M = M.tocsc()
        if case == "asymmetric-missing":
            M = sp.csr_matrix(np.triu(A.toarray()))
    elif case == "out-of-range":
        M.indices[2] = 7
        with pytest.raises(InputError, match="out of range"):
            weighted_matching(M, device=DEV)
        return
    before = _arrays(M)
    msg = _host_error(M)
    with pytest.raises(InputError) as exc:
        weighted_matching(M, device=DEV)
    assert str(exc.value) == msg
    with pytest.raises(InputError) as exc:
        b_matching(M, 2, device=DEV)
    assert str(exc.value) == msg
    assert _same_arrays(M, before)


def test_options_that_need_the_host_graph():
    A = sym_csr(4, [(0, 1, 1.0), (1, 2, 2.0), (2, 3, 3.0)])
    M = A.copy()
    M.data[[0, 1]] = -1.0                  # (0, 1) and (1, 0) invalid: dropped
    r = weighted_matching(M, device=DEV, drop_invalid=True)
    assert list(r.mate) == [-1, -1, 3, 2]
    T = sp.csr_matrix(np.triu(A.toarray()))
    r = weighted_matching(T, device=DEV, symmetrize=True)
    assert np.array_equal(r.mate, greedy_matching_sequential(A))
    # symmetrize=True on a symmetric matrix stays on the device path
    assert np.array_equal(weighted_matching(A, device=DEV, symmetrize=True).mate,
                          greedy_matching_sequential(A))


@pytest.mark.parametrize("verify", [True, "device", "host", False])
def test_verify_modes_and_total(verify):
    A = sym_csr(30, [(i, (i * 7 + 3) % 30, 1.0 + (i % 4)) for i in range(30)])
    r = weighted_matching(A, device=DEV, verify=verify)
    assert r.verified == bool(verify) and np.array_equal(r.mate, greedy_matching_sequential(A))
    assert ("verify" in r.timings) == bool(verify)
    assert r.timings["total"] >= max(v for k, v in r.timings.items()
                                     if not k.startswith("kernel:") and k != "total")
    rb = b_matching(A, 2, device=DEV, verify=verify)
    assert rb.verified == bool(verify) and "total" in rb.timings
    with pytest.raises(InputError, match="verify"):
        weighted_matching(A, device=DEV, verify="gpu")


# ------------------------------------------------------------- device vs host verification

def _device_graph(A):
    h = get_device(DEV)
    sched = Scheduler(h)
    dg = DeviceWeighted.from_input(h, SparseInput(A), sched)
    return h, sched, dg


def _device_verify_matching(A, mate):
    h, sched, dg = _device_graph(A)
    mate = np.ascontiguousarray(mate, np.int64)
    pairs = int((mate > np.arange(mate.size)).sum())
    DeviceCertificate(h, dg).matching(h.to_device(mate), pairs, sched)


def _device_verify_b(A, b, edges):
    h, sched, dg = _device_graph(A)
    n = A.shape[0]
    E = np.ascontiguousarray(np.asarray(edges, np.int64).reshape(-1, 2))
    k = E.shape[0]
    degree = np.bincount(E.ravel(), minlength=n).astype(np.int64) if k else np.zeros(n, np.int64)
    ed = h.to_device(E if k else np.zeros((1, 2), np.int64))
    DeviceCertificate(h, dg).b_matching(ed, k, h.to_device(degree),
                                        np.full(n, b, np.int32), sched)


def _both(check_device, check_host):
    """(device raised, host raised)."""
    out = []
    for f in (check_device, check_host):
        try:
            f()
            out.append(False)
        except VerificationError:
            out.append(True)
    return tuple(out)


def _corrupted_mates(mate, A, rng):
    n = mate.size
    matched = np.flatnonzero(mate > np.arange(n))
    out = {}
    if matched.size:
        a = matched[rng.integers(matched.size)]
        m = mate.copy()
        m[a], m[mate[a]] = -1, -1              # a dropped (flipped) match: it blocks
        out["dropped"] = m
        m = mate.copy()
        m[a] = (a + 1) % n if (a + 1) % n != mate[a] else (a + 2) % n
        out["asymmetric"] = m
        m = mate.copy()
        m[a] = n + 3
        out["out-of-range"] = m
    if matched.size >= 2:
        a, c = matched[:2]
        b, d = mate[a], mate[c]
        m = mate.copy()                        # swapped pairs: (a, d), (c, b)
        m[a], m[d], m[c], m[b] = d, a, b, c
        out["swapped"] = m
    free = np.flatnonzero(mate < 0)
    if free.size >= 2:
        x, y = free[:2]
        m = mate.copy()
        m[x], m[y] = y, x                      # an added pair (an edge or not)
        out["added"] = m
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDGES, st.integers(0, 10 ** 6))
def test_device_and_host_verification_agree_on_matchings(data, seed):
    n, edges = data
    A = sym_csr(n, edges)
    g = as_weighted_graph(A)
    mate = greedy_matching_sequential(A)
    assert _both(lambda: _device_verify_matching(A, mate),
                 lambda: verify_weighted_matching(g, mate)) == (False, False)
    for name, bad in _corrupted_mates(mate, A, np.random.default_rng(seed)).items():
        dev, host = _both(lambda: _device_verify_matching(A, bad),
                          lambda: verify_weighted_matching(g, bad))
        assert dev == host, name
        if name in ("dropped", "asymmetric", "out-of-range"):
            assert dev, name


def _corrupted_b(E, A, b, rng):
    out = {}
    k = E.shape[0]
    if k:
        i = int(rng.integers(k))
        out["dropped"] = np.delete(E, i, axis=0)
        out["twice"] = np.concatenate([E, E[i:i + 1]])
        out["reversed"] = np.concatenate([E[:i], E[i:i + 1, ::-1], E[i + 1:]])
    if k >= 2:
        S = E.copy()                           # swapped ends of two pairs
        S[0, 1], S[1, 1] = E[1, 1], E[0, 1]
        out["swapped"] = S
    n = A.shape[0]
    dense = A.toarray()
    inM = {tuple(p) for p in E}
    extra = [(u, v) for u in range(n) for v in range(u + 1, n)
             if dense[u, v] and (u, v) not in inM]
    if extra:
        out["added"] = np.concatenate([E.reshape(-1, 2), np.array(extra[:1])])
    non = [(u, v) for u in range(n) for v in range(u + 1, n) if not dense[u, v]]
    if non:
        out["non-edge"] = np.concatenate([E.reshape(-1, 2), np.array(non[:1])])
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EDGES, st.integers(1, 3), st.integers(0, 10 ** 6))
def test_device_and_host_verification_agree_on_b_matchings(data, b, seed):
    n, edges = data
    A = sym_csr(n, edges)
    g = as_weighted_graph(A)
    E = greedy_b_matching(A, b)
    assert _both(lambda: _device_verify_b(A, b, E),
                 lambda: verify_b_matching(g, b, E)) == (False, False)
    for name, bad in _corrupted_b(E, A, b, np.random.default_rng(seed)).items():
        dev, host = _both(lambda: _device_verify_b(A, b, bad),
                          lambda: verify_b_matching(g, b, bad))
        assert dev == host, name
        if name in ("dropped", "twice", "non-edge"):
            assert dev, name
