"""The assignment family (issue 31): objectives against scipy's solvers on random,
rectangular, integer, tied, negative, Machol-Wien and geometric instances, partial
matchings against the doubled problem solved by scipy, the certificate (on the device and on
the host) catching corrupted answers, the scipy drop-ins' return values and errors, and the
input checks."""
import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import pyclmatch
from pyclmatch.assignment.problem import take_in
from pyclmatch.assignment.slackness import DeviceSlackness, verify_assignment
from pyclmatch.engine.scheduler import Scheduler
from pyclmatch.errors import InputError, VerificationError

DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")
FAST = settings(max_examples=25, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def sparse_instance(n, per_row, seed, values="uniform", nc=None):
    """n x nc with ``per_row`` random entries per row plus a diagonal (a full matching)."""
    nc = nc or n
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), per_row)
    cols = rng.integers(0, nc, rows.size)
    rows = np.concatenate([rows, np.arange(min(n, nc))])
    cols = np.concatenate([cols, np.arange(min(n, nc))])
    vals = {"uniform": lambda k: rng.random(k) + 0.01,
            "integer": lambda k: rng.integers(1, 1000, k).astype(float),
            "negative": lambda k: rng.standard_normal(k),
            "ties": lambda k: np.ones(k)}[values](rows.size)
    A = sp.csr_matrix((vals, (rows, cols)), shape=(n, nc))
    A.sum_duplicates()
    return A


def ref_objective(A, maximize=False):
    r, c = scipy_mwfbm(A, maximize=maximize)
    return float(np.asarray(A[r, c]).sum())


def check_against_scipy(A, maximize=False, exact=False):
    res = pyclmatch.assignment(A, maximize=maximize, device=DEV)
    ref = ref_objective(A, maximize)
    if exact:
        assert res.objective == ref
    else:
        assert res.objective == pytest.approx(ref, rel=1e-12, abs=1e-12)
    assert res.verified and res.cardinality == min(A.shape)
    verify_assignment(take_in(A, maximize=maximize, full=True), res.row_match, res.col_match,
                      res.u, res.v)
    return res


@pytest.mark.parametrize("values", ["uniform", "integer", "negative", "ties"])
@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_square_matches_scipy(values, maximize):
    A = sparse_instance(300, 5, seed=len(values), values=values)
    check_against_scipy(A, maximize, exact=values in ("integer", "ties"))


@pytest.mark.parametrize("shape", [(40, 90), (90, 40)])
def test_rectangular_matches_scipy(shape):
    A = sparse_instance(shape[0], 6, seed=3, nc=shape[1])
    res = check_against_scipy(A)
    small = 0 if shape[0] <= shape[1] else 1
    assert (res.row_match >= 0).sum() == shape[small]


def test_machol_wien_dense():
    n = 60
    C = np.outer(np.arange(1, n + 1), np.arange(1, n + 1)).astype(float)
    r, c = scipy_lsa(C)
    r2, c2 = pyclmatch.linear_sum_assignment(C)
    assert C[r2, c2].sum() == C[r, c].sum()
    assert r2.tolist() == list(range(n))


def test_geometric_knn():
    from scipy.spatial import cKDTree
    rng = np.random.default_rng(5)
    n, k = 400, 8
    x, y = rng.random((n, 2)), rng.random((n, 2))
    d, j = cKDTree(y).query(x, k)
    A = sp.csr_matrix((d.ravel(), (np.repeat(np.arange(n), k), j.ravel())), shape=(n, n))
    A = A + sp.csr_matrix((np.linalg.norm(x - y, axis=1), (np.arange(n), np.arange(n))),
                          shape=(n, n))
    check_against_scipy(A.tocsr())


@FAST
@given(st.integers(1, 7), st.integers(1, 7), st.integers(0, 2**32 - 1),
       st.sampled_from(["uniform", "integer", "ties", "negative"]), st.booleans())
def test_dense_hypothesis(nr, nc, seed, values, maximize):
    rng = np.random.default_rng(seed)
    C = {"uniform": rng.random((nr, nc)), "integer": rng.integers(-9, 9, (nr, nc)) * 1.0,
         "ties": np.full((nr, nc), 2.0), "negative": -rng.random((nr, nc))}[values]
    C[rng.random((nr, nc)) < 0.3] = np.inf if not maximize else -np.inf
    try:
        r, c = scipy_lsa(C, maximize=maximize)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            pyclmatch.linear_sum_assignment(C, maximize=maximize)
        return
    r2, c2 = pyclmatch.linear_sum_assignment(C, maximize=maximize)
    assert C[r2, c2].sum() == pytest.approx(C[r, c].sum(), rel=1e-12, abs=1e-12)
    assert r2.size == r.size and np.all(np.diff(r2) > 0)


def doubled_reference(D, pattern, maximize):
    """The optimal partial matching by scipy on the doubled dense problem."""
    nr, nc = D.shape
    W = np.where(pattern, -D if maximize else D, np.inf)
    big = np.full((nr + nc, nr + nc), np.inf)
    big[:nr, :nc] = W
    big[:nr, nc:][np.eye(nr, dtype=bool)] = 0
    big[nr:, :nc][np.eye(nc, dtype=bool)] = 0
    big[nr:, nc:][pattern.T] = 0
    r, c = scipy_lsa(big)
    total = big[r, c].sum()
    return -total if maximize else total


@FAST
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1), st.booleans())
def test_partial_hypothesis(nr, nc, seed, maximize):
    rng = np.random.default_rng(seed)
    pattern = rng.random((nr, nc)) < 0.6
    D = np.where(pattern, rng.integers(-5, 6, (nr, nc)), 0).astype(float)
    A = sp.csr_matrix((D[pattern], np.nonzero(pattern)), shape=(nr, nc))
    res = pyclmatch.assignment(A, full=False, maximize=maximize, device=DEV,
                               verify="host")
    assert res.objective == doubled_reference(D, pattern, maximize)


def test_explicit_zeros_are_entries():
    A = sp.csr_matrix((np.array([0.0, 5.0, 5.0, 0.0]),
                       (np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))), shape=(2, 2))
    assert pyclmatch.assignment(A, device=DEV).objective == 0.0
    with pytest.warns(UserWarning, match="explicit zero"):
        r, c = pyclmatch.min_weight_full_bipartite_matching(A)
    assert c.tolist() == [1, 0]


@pytest.mark.parametrize("form", ["canonical", "integers", "unsorted", "duplicates", "coo"])
def test_user_matrix_left_as_it_was(form):
    """The intake takes a canonical float64 CSR without copying its entries and never changes
    the user's matrix (unsorted indices, duplicates to sum, other value types, COO)."""
    rng = np.random.default_rng(3)
    A = sparse_instance(40, 4, seed=3, values="integer")
    if form == "integers":
        A = A.astype(np.int64)
    elif form == "unsorted":
        order = np.concatenate([rng.permutation(np.arange(a, b))
                                for a, b in zip(A.indptr[:-1], A.indptr[1:])])
        A = sp.csr_matrix((A.data[order], A.indices[order], A.indptr), shape=A.shape)
    elif form == "duplicates":               # (every entry stored as two halves)
        A = sp.csr_matrix((np.repeat(A.data / 2, 2), np.repeat(A.indices, 2), 2 * A.indptr),
                          shape=A.shape)
    if form in ("unsorted", "duplicates"):
        assert not A.has_canonical_format
    elif form == "coo":
        A = A.tocoo()
    before = [x.copy() for x in ((A.data, A.indices, A.indptr) if form != "coo"
                                 else (A.data, A.row, A.col))]
    res = pyclmatch.assignment(A, device=DEV)
    assert res.objective == ref_objective(sp.csr_matrix(A), False)
    after = (A.data, A.indices, A.indptr) if form != "coo" else (A.data, A.row, A.col)
    assert all(np.array_equal(x, y) for x, y in zip(before, after))


@pytest.mark.parametrize("maximize", [False, True])
@pytest.mark.parametrize("full", [False, True])
def test_intake_extremes_are_the_costs(maximize, full):
    """The costs' (min, max) that the intake finds and hands on (to the transposed and the
    square problem, whose doubled form adds zeros) are those of the costs themselves."""
    from pyclmatch.assignment.problem import square
    rng = np.random.default_rng(2)
    D = rng.uniform(-3.0, 7.0, (5, 8))
    D[rng.random(D.shape) < 0.3] = np.inf
    for A in (sparse_instance(30, 4, seed=2, nc=40), D,
              sp.csr_matrix(rng.uniform(1, 2, (6, 4)))):
        p = take_in(A, maximize=maximize, full=full)
        for q in (p, p.transposed()):
            assert q.extremes == (q.cost.min(), q.cost.max())
            *_, cost, _, ext = square(q)
            assert ext == (cost.min(), cost.max())


def test_infeasible_names_the_deficiency():
    A = sp.csr_matrix(np.array([[1.0, 0, 0], [2.0, 0, 0], [0, 3.0, 4.0]]))
    with pytest.raises(InputError, match="structural rank 2") as exc:
        pyclmatch.assignment(A, device=DEV)
    assert exc.value.argument == "A"
    assert pyclmatch.assignment(A, full=False, maximize=True, device=DEV).cardinality == 2
    with pytest.raises(ValueError, match="^no full matching exists"):
        pyclmatch.min_weight_full_bipartite_matching(A)
    with pytest.raises(ValueError, match="^cost matrix is infeasible$"):
        pyclmatch.linear_sum_assignment(np.where(A.toarray() == 0, np.inf, A.toarray()))


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0)])
def test_empty(shape):
    A = sp.csr_matrix(shape)
    res = pyclmatch.assignment(A, device=DEV)
    assert res.cardinality == 0 and res.objective == 0.0
    r, c = pyclmatch.min_weight_full_bipartite_matching(A)
    r0, c0 = scipy_mwfbm(A)
    assert (r.dtype, c.dtype, r.size, c.size) == (r0.dtype, c0.dtype, 0, 0)
    r, c = pyclmatch.linear_sum_assignment(np.zeros(shape))
    assert r.size == c.size == 0


def test_no_entries_full_is_refused():
    with pytest.raises(InputError) as exc:
        pyclmatch.assignment(sp.csr_matrix((2, 3)), device=DEV)
    assert exc.value.argument == "A"


def test_dropin_return_values_match_scipy():
    A = sp.csr_matrix(np.array([[1.0, 2.0, 0], [3.0, 0, 5.0]]))
    for M in (A, A.T.tocsr()):
        for maximize in (False, True):
            got, ref = (f(M, maximize=maximize) for f in
                        (pyclmatch.min_weight_full_bipartite_matching, scipy_mwfbm))
            assert [(a.tolist(), a.dtype) for a in got] == [(a.tolist(), a.dtype) for a in ref]
    C = np.array([[1, 2], [3, 4], [0, 9]])
    got, ref = pyclmatch.linear_sum_assignment(C), scipy_lsa(C)
    assert [(a.tolist(), a.dtype) for a in got] == [(a.tolist(), a.dtype) for a in ref]
    F = np.array([[1.0, np.inf, 3.0], [-np.inf, 2.0, 5.0], [4.0, 1.0, np.inf]])
    for maximize, M in ((False, np.where(F == -np.inf, 0.0, F)),   # (inf: forbidden)
                        (True, np.where(F == np.inf, 0.5, F))):    # (-inf, maximising)
        got, ref = (f(M, maximize=maximize) for f in (pyclmatch.linear_sum_assignment,
                                                     scipy_lsa))
        assert [a.tolist() for a in got] == [a.tolist() for a in ref]


@pytest.mark.parametrize("call, exc_type, match", [
    (lambda: pyclmatch.min_weight_full_bipartite_matching(np.eye(2)), TypeError,
     "graph must be sparse"),
    (lambda: pyclmatch.linear_sum_assignment(np.zeros(3)), ValueError, "2-D"),
    (lambda: pyclmatch.linear_sum_assignment(np.array([[np.nan]])), ValueError,
     "invalid numeric entries"),
    (lambda: pyclmatch.linear_sum_assignment(np.array([[1.0, -np.inf]])), ValueError,
     "invalid numeric entries"),
    (lambda: pyclmatch.linear_sum_assignment(np.array([[1.0, np.inf]]), maximize=True),
     ValueError, "invalid numeric entries"),
    (lambda: pyclmatch.linear_sum_assignment(np.array([[np.nan, 1.0]]), maximize=True),
     ValueError, "invalid numeric entries"),
    (lambda: pyclmatch.linear_sum_assignment(np.array([["a"]])), TypeError, "Cannot cast"),
])
def test_dropin_errors_like_scipy(call, exc_type, match):
    with pytest.raises(exc_type, match=match) as exc:
        call()
    assert isinstance(exc.value, InputError)


@pytest.mark.parametrize("kwargs, argument", [
    ({"maximize": "yes"}, "maximize"), ({"full": 1}, "full"), ({"verify": "gpu"}, "verify"),
    ({"scaling": 1}, "scaling"), ({"device": 1.5}, "device"),
])
def test_bad_arguments(kwargs, argument):
    with pytest.raises(InputError) as exc:
        pyclmatch.assignment(np.eye(2), **kwargs)
    assert exc.value.argument == argument


@pytest.mark.parametrize("A", [np.array([[np.nan, 1.0]]), sp.csr_matrix([[np.inf, 1.0]]),
                               np.array([1.0, 2.0]), np.array([[1 + 1j]])])
def test_bad_matrices(A):
    with pytest.raises(InputError) as exc:
        pyclmatch.assignment(A, device=DEV)
    assert exc.value.argument == "A"


@pytest.mark.parametrize("where", ["device", "device-uploaded", "host"])
def test_certificate_catches_corrupted_answers(where):
    """The certificate refuses swapped rows, infeasible duals and disagreeing matches: on the
    host, on the device, and on the device from the problem's copies uploaded already (as
    assignment() passes the auction's)."""
    A = sparse_instance(50, 4, seed=9)
    res = pyclmatch.assignment(A, device=DEV)
    p = take_in(A, maximize=False, full=True)
    h = pyclmatch.get_device(DEV)
    slack = DeviceSlackness(h, p)
    uploaded = [h.to_device(x) for x in (p.indptr.astype(slack.odt), p.indices, p.cost)]

    def check(rm, cm, u, v):
        if where == "host":
            return verify_assignment(p, rm, cm, u, v)
        return slack.verify(rm, cm, u, v, Scheduler(h),
                            uploaded=uploaded if where == "device-uploaded" else None)
    assert check(res.row_match, res.col_match, res.u, res.v) == 50
    rm, cm = res.row_match.copy(), res.col_match.copy()
    i, k = 0, 1                                   # swap two rows' columns
    rm[i], rm[k] = rm[k], rm[i]
    cm[rm[i]], cm[rm[k]] = i, k
    with pytest.raises(VerificationError):
        check(rm, cm, res.u, res.v)
    u = res.u.copy()
    u[3] += 1.0                                   # infeasible duals
    with pytest.raises(VerificationError, match="reduced cost"):
        check(res.row_match, res.col_match, u, res.v)
    rm = res.row_match.copy()
    rm[5] = -1                                    # row_match and col_match disagree
    with pytest.raises(VerificationError):
        check(rm, res.col_match, res.u, res.v)


def test_result_fields():
    A = sparse_instance(30, 3, seed=1, values="integer")
    res = pyclmatch.assignment(A, device=DEV)
    assert res.counters["phases"] >= 1 and res.counters["rounds"] >= 0
    assert res.counters["rounds"] + res.counters.get("tail_launches", 0) >= 1
    assert {"auction", "finish", "verify", "total"} <= set(res.timings)
    rows, cols = res.pairs
    assert rows.tolist() == list(range(30)) and (res.col_match[cols] == rows).all()


def test_package_is_callable_either_way():
    import pyclmatch.assignment as pkg
    assert pyclmatch.assignment is pkg and callable(pkg)
    assert pkg(np.array([[1.0]])).objective == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("values", ["uniform", "integer", "ties"])
def test_larger_sparse(values):
    check_against_scipy(sparse_instance(20000, 10, seed=2, values=values),
                        exact=values != "uniform")


def transversal_reference(A):
    """The largest log-product of a transversal, by scipy on the MC64 costs."""
    m = abs(sp.csr_matrix(A))
    m.eliminate_zeros()
    amax = np.asarray(m.max(axis=0).todense()).ravel()
    c = m.tocoo()
    cost = sp.csr_matrix((np.log(amax[c.col]) - np.log(c.data) + 1.0, (c.row, c.col)),
                         shape=m.shape)                 # (+1: no explicit zeros)
    r, k = scipy_mwfbm(cost)
    return float(np.log(np.asarray(m[r, k]).ravel()).sum())


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_maximum_product_transversal(seed):
    rng = np.random.default_rng(seed)
    A = sparse_instance(200, 4, seed=seed, values="negative")
    A.data *= 10.0 ** rng.integers(-6, 6, A.nnz)
    res = pyclmatch.maximum_product_transversal(A, device=DEV)
    assert sorted(res.perm.tolist()) == list(range(200))
    assert res.log_product == pytest.approx(transversal_reference(A), rel=1e-12, abs=1e-9)
    S = abs(sp.diags(res.row_scale) @ A @ sp.diags(res.col_scale))
    assert S.max() <= 1 + 1e-9
    assert np.allclose(np.asarray(S[np.arange(200), res.perm]).ravel(), 1.0, rtol=1e-9)
    bare = pyclmatch.maximum_product_transversal(A, scale=False, device=DEV)
    assert bare.row_scale is None and bare.log_product == pytest.approx(res.log_product)


def test_transversal_refuses_singular_and_rectangular():
    A = sp.csr_matrix(np.array([[1.0, 0, 0], [2.0, 0, 0], [0, 3.0, 4.0]]))
    with pytest.raises(InputError, match="structural rank is 2") as exc:
        pyclmatch.maximum_product_transversal(A, device=DEV)
    assert exc.value.argument == "A"
    with pytest.raises(InputError) as exc:
        pyclmatch.maximum_product_transversal(np.ones((2, 3)), device=DEV)
    assert exc.value.argument == "A"
    with pytest.raises(InputError) as exc:
        pyclmatch.maximum_product_transversal(np.eye(2), scale="yes")
    assert exc.value.argument == "scale"


def test_transversal_explicit_zero_is_no_entry():
    A = sp.csr_matrix((np.array([0.0, 1.0, 1.0, 2.0]),
                       (np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]))), shape=(2, 2))
    assert pyclmatch.maximum_product_transversal(A, device=DEV).perm.tolist() == [1, 0]


def test_cli_assign(tmp_path, capsys):
    import json
    import scipy.io
    from pyclmatch.cli import main
    A = sparse_instance(40, 3, seed=4, values="integer")
    path = str(tmp_path / "a.mtx")
    scipy.io.mmwrite(path, A)
    assert main(["assign", path, "--device", DEV, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["objective"] == ref_objective(A) and info["verified"]
    assert main(["assign", path, "--device", DEV, "--maximize"]) == 0
    assert f"weight:               {ref_objective(A, True)!r}" in capsys.readouterr().out
    assert main(["assign", path, "--device", DEV, "--product"]) == 0
    assert "log of the product" in capsys.readouterr().out
    singular = str(tmp_path / "s.mtx")
    scipy.io.mmwrite(singular, sp.csr_matrix(np.array([[1.0, 0], [2.0, 0]])))
    assert main(["assign", singular, "--device", DEV]) == 2
    assert "no full matching exists" in capsys.readouterr().err


def test_networkx_minimum_weight_full_matching():
    import networkx as nx
    from pyclmatch.nxbackend import minimum_weight_full_matching
    G = nx.complete_bipartite_graph(4, 6)
    for k, (u, v) in enumerate(G.edges):
        G[u][v]["w"] = float((k * 7919) % 13)
    got = minimum_weight_full_matching(G, top_nodes=range(4), weight="w", device=DEV)
    ref = nx.bipartite.minimum_weight_full_matching(G, top_nodes=range(4), weight="w")
    assert sum(G[u][got[u]]["w"] for u in range(4)) == sum(G[u][ref[u]]["w"] for u in range(4))
    assert all(got[got[u]] == u for u in got)
    G.remove_edges_from([(0, v) for v in range(4, 10)])
    with pytest.raises(ValueError, match="cost matrix is infeasible"):
        minimum_weight_full_matching(G, top_nodes=range(4), weight="w", device=DEV)


@pytest.fixture
def whole(monkeypatch):
    """Complete problems solved whole, not restricted to each row's cheapest entries first
    (pyclmatch.assignment.restrict), for the tests of the whole problem's kernels."""
    monkeypatch.setattr("pyclmatch.assignment.api.restricted", lambda p, cpu: False)


@pytest.mark.parametrize("tail", [32, 1024])
def test_wide_bidding_and_small_tail(monkeypatch, whole, tail):
    """Rows of >= WIDE_DEGREE entries are bid for by a work-group each; a small tail leaves
    the main rounds most of the work."""
    from pyclmatch.assignment import auction
    monkeypatch.setattr(auction, "TAIL_CPU", tail)
    rng = np.random.default_rng(11)
    C = rng.random((200, 150))
    r, c = scipy_lsa(C)
    res = pyclmatch.assignment(C.T.copy(), device=DEV)
    assert res.objective == pytest.approx(C[r, c].sum(), rel=1e-12)
    if tail == 32 and pyclmatch.get_device(DEV).is_cpu:
        assert res.counters["rounds"] > 0


@pytest.mark.parametrize("groups, spin", [(1, None), (2, 1)])
def test_grid_rounds(monkeypatch, whole, groups, spin):
    """The parallel rounds in one launch (``auction_grid``: work-groups with a barrier over
    them between steps; one group runs them on any device) for narrow and wide rows; with
    ``spin`` 1 a barrier gives up at once (a device that does not run every group at once),
    and the rounds go on in launches: objectives equal to scipy's either way."""
    from pyclmatch.assignment import auction
    monkeypatch.setattr(auction, "GRID_GROUPS_CPU", groups)
    monkeypatch.setattr(auction, "TAIL_CPU", 32)
    if spin:
        monkeypatch.setattr(auction, "GRID_SPIN_LIMIT", spin)
    rng = np.random.default_rng(12)
    C = rng.random((150, 150))
    A = sp.random(400, 400, density=0.03, random_state=5, format="csr") + sp.eye(400)
    for M, dense in ((C, True), (A.tocsr(), False)):
        res = pyclmatch.assignment(M, device=DEV)
        r, c = scipy_lsa(M) if dense else scipy_mwfbm(M)
        assert res.objective == pytest.approx(float(M[r, c].sum()), rel=1e-12)
        if pyclmatch.get_device(DEV).is_cpu:
            assert bool(res.counters.get("grid_fallbacks")) == bool(spin)


@pytest.mark.parametrize("scale", [1e-300, 1e-10, 1e10, 1e300])
def test_extreme_magnitudes(scale):
    rng = np.random.default_rng(3)
    C = np.clip(rng.standard_normal((20, 20)), -1, 1) * scale
    r, c = scipy_lsa(C)
    res = pyclmatch.assignment(C, device=DEV)
    assert res.objective == pytest.approx(C[r, c].sum(), rel=1e-12)


def test_host_finishing_when_device_tightening_stops(monkeypatch):
    """A device tightening cut short (as when the rounded optimum is not the real one) leaves
    the finishing to the host (tightening, then Hungarian augmentations)."""
    from pyclmatch.assignment.auction import AuctionMatcher
    original = AuctionMatcher.tighten
    monkeypatch.setattr(AuctionMatcher, "tighten",
                        lambda self, *a, **kw: original(self, *a, **dict(kw, passes=1)))
    monkeypatch.setattr("pyclmatch.assignment.finish.TIGHTEN_PASSES", 2)
    A = sparse_instance(400, 6, seed=21)
    res = check_against_scipy(A)
    assert res.counters["augmented"] > 0


def _reference_distances(ptr, ind, a, price, rm, eps, cap):
    """The global update's distances (kernels/auction.cl.mako): value iteration from 0 on the
    host, to its fixed point."""
    n = ptr.size - 1
    d = np.zeros(n, np.int64)
    while True:
        new = d.copy()
        for i in np.flatnonzero(rm >= 0):
            m, row = rm[i], slice(ptr[i], ptr[i + 1])
            mine = a[row][ind[row] == m][0] - price[m]
            steps = np.maximum(mine - (a[row] - price[ind[row]]) + eps, 0) // eps
            new[m] = min(cap, (steps + d[ind[row]])[ind[row] != m].min(initial=cap))
        if (new == d).all():
            return d
        d = new


@pytest.mark.parametrize("values", ["uniform", "integer", "ties", "dense"])
@pytest.mark.parametrize("passes", [1, 1 << 20])
def test_global_price_update(monkeypatch, whole, values, passes):
    """Every global update (forced every 2 rounds) keeps eps-complementary slackness, after
    one pass of its distances or at their fixed point, where they equal a host value
    iteration's; "dense": rows long enough for a work-group each (relabel_pass_wide)."""
    from pyclmatch.assignment import auction
    monkeypatch.setattr(auction, "RELABEL_CPU", 2)
    monkeypatch.setattr(auction, "RELABEL_GPU", 2)
    monkeypatch.setattr(auction, "RELABEL_PASSES", passes)
    original, seen = auction.AuctionMatcher.relabel, []

    def checked(self, eps, span, sched, stats):
        get = self.handle.download
        ptr, ind, a = get(self.ptr)[:self.n + 1], get(self.col), get(self.a)
        rm, price = (get(x)[:self.n] for x in (self.row_match, self.price))
        original(self, eps, span, sched, stats)
        cap = min(self.n, auction.RELABEL_CAP, max(span, eps) // eps + 1)
        dist = get(self.dist)[:self.n].astype(np.int64)
        ref = _reference_distances(ptr, ind, a, price, rm, eps, cap)
        assert (dist <= ref).all() and (passes == 1 or (dist == ref).all())
        dist[dist == cap] = dist[dist < cap].max(initial=0) + 1
        after = get(self.price)[:self.n]
        assert (after == price + eps * dist).all()
        for i in np.flatnonzero(rm >= 0):
            val = a[ptr[i]:ptr[i + 1]] - after[ind[ptr[i]:ptr[i + 1]]]
            assert val[ind[ptr[i]:ptr[i + 1]] == rm[i]][0] >= val.max() - eps
        seen.append(eps)
    monkeypatch.setattr(auction.AuctionMatcher, "relabel", checked)
    A = sp.csr_matrix(np.random.default_rng(5).integers(1, 50, (90, 90)).astype(float)) \
        if values == "dense" else sparse_instance(120, 4, seed=5, values=values)
    res = check_against_scipy(A, exact=values != "uniform")
    assert seen and res.counters["relabels"] == len(seen)


@pytest.mark.parametrize("team", [1, 4, 32, 1024])
def test_tail_teams(monkeypatch, whole, team):
    """The tail's rows bid by teams of work-items (auction_tail): the same optimum for every
    team size, on rows shorter and longer than the team, and on dense rows (which GPUs bid
    for with teams of the whole group)."""
    from pyclmatch.assignment import auction
    monkeypatch.setattr(auction, "TEAM_CPU", team)
    monkeypatch.setattr(auction, "TEAM_GPU", team)
    check_against_scipy(sparse_instance(300, 3, seed=7, values="integer"), exact=True)
    check_against_scipy(sparse_instance(200, 40, seed=8), maximize=True)
    check_against_scipy(sparse_instance(60, 5, seed=9, nc=140))
    C = np.random.default_rng(team).random((150, 150))
    res = pyclmatch.assignment(C, device=DEV)
    r, c = scipy_lsa(C)
    assert res.objective == pytest.approx(C[r, c].sum(), rel=1e-12)


@pytest.mark.parametrize("kind", ["real", "integer", "equal", "huge", "tiny"])
def test_device_benefits_equal_host(monkeypatch, kind):
    """The benefits kernel maps costs exactly as BenefitMap.apply does on the host."""
    from pyclmatch.assignment import auction
    from pyclmatch.assignment.auction import AuctionMatcher, BenefitMap
    monkeypatch.setattr(auction, "BENEFITS_KERNEL_CPU", True)
    rng = np.random.default_rng(4)
    cost = {"real": lambda: rng.standard_normal(5000),
            "integer": lambda: rng.integers(-50, 50, 5000).astype(float),
            "equal": lambda: np.full(5000, 2.5),
            "huge": lambda: rng.uniform(-1, 1, 5000) * 1.7e308,
            "tiny": lambda: rng.uniform(-1, 1, 5000) * 1e-307}[kind]()
    ptr = np.arange(0, 5001, 5)
    h = pyclmatch.get_device(DEV)
    drv = AuctionMatcher(h, cost.size)
    drv.upload(ptr, np.tile(np.arange(5, dtype=np.int32), 1000), cost, Scheduler(h))
    assert (h.download(drv.a)[:cost.size] == BenefitMap(cost, 1000).apply(cost)).all()


@FAST
@given(st.integers(2, 40), st.integers(2, 40), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([1e15, 4.6e18, 1e300]), st.booleans())
def test_big_m_costs(nr, nc, seed, big, sparse):
    """A few huge costs (a "big M" for unwanted pairs) among small integers: the rounded
    benefits cannot tell the small ones apart, so the entries that no optimal assignment
    holds are dropped and the auction runs again; the objective is scipy's, exactly. (The
    sparse problems' reference is scipy's dense solver with inf for the missing entries:
    its sparse LAPJVsp did not return on one such instance in a CI run.)"""
    rng = np.random.default_rng(seed)
    C = rng.integers(-5, 20, (nr, nc)).astype(float)
    C[rng.random((nr, nc)) < 0.3] = big
    if sparse:
        A = sp.csr_matrix(np.where(rng.random((nr, nc)) < 0.6, C, 0.0))
        A.eliminate_zeros()
        D, e = np.full((nr, nc), np.inf), A.tocoo()
        D[e.row, e.col] = e.data
        try:
            r, c = scipy_lsa(D)
        except ValueError:
            return
        want, res = D[r, c].sum(), pyclmatch.assignment(A, device=DEV)
    else:
        r, c = scipy_lsa(C)
        want, res = C[r, c].sum(), pyclmatch.assignment(C, device=DEV)
    assert res.objective == want and res.verified


def test_doubled_duals_certified_at_the_costs_scale():
    """A doubled problem's potentials may grow far past its costs (here 145 against 7), and
    the original's, averaged from them, are certified relative to the costs: the
    tightening's tolerance follows the costs (fuzz campaign seed 133, case 531: a 5 x 3
    COO matrix with duplicates; then small random problems of such costs)."""
    A = sp.coo_matrix((np.array([1.5, 6, 1.5, 1.5, 3, 21, -1, -4, -1, -1, -2, -14.0]),
                       ([0, 1, 2, 3, 3, 4, 0, 1, 2, 3, 3, 4], [2, 0, 0, 1, 2, 1, 2, 0, 0, 1,
                                                               2, 1])), shape=(5, 3))
    res = pyclmatch.assignment(A, device=DEV)
    assert res.verified and res.objective == 1.5
    rng = np.random.default_rng(1)
    for k in range(200):
        nr, nc = rng.integers(1, 12, 2)
        B = sp.random(nr, nc, density=rng.uniform(0.2, 1), random_state=k, format="csr")
        B.data = rng.choice([0.5, 2, 7, 1.5, -1, 0.25, 3, 1e3, 1e-3, 21], B.nnz) * \
            rng.choice([1, 3, -2], B.nnz)
        full, maximize = bool(k % 2), bool(k % 3 == 0)
        try:
            res = pyclmatch.assignment(B, device=DEV, full=full, maximize=maximize)
        except InputError:
            continue                       # (no full matching)
        assert res.verified


@pytest.mark.parametrize("shape", [(64, 66), (66, 64), (40, 44), (30, 61)])
def test_doubled_rectangular(whole, shape):
    """A dense rectangular full problem, doubled (module docstring of
    pyclmatch.assignment.problem): the same optimum as scipy's, the duals certified (0 at
    the unmatched columns)."""
    C = np.random.default_rng(shape[1]).integers(0, 20, shape).astype(float)
    r, c = scipy_lsa(C)
    res = pyclmatch.assignment(C, device=DEV, verify="host")
    assert res.objective == C[r, c].sum()


@pytest.mark.parametrize("kind", ["uniform", "integer", "ties", "crowded", "few"])
@pytest.mark.parametrize("maximize", [False, True])
@pytest.mark.parametrize("shape", [(40, 130), (40, 41), (50, 50)])
def test_complete_restricted(monkeypatch, kind, maximize, shape):
    """A complete problem of more columns than rows (or as many: restrict.SQUARE set) is
    solved on each row's cheapest entries first (pyclmatch.assignment.restrict), more
    entries joining where the duals say so: scipy's optimum, certified. "crowded": every
    row's cheapest entries in the same few columns (the first restricted problem has no
    full matching); "few": one entry per row first, too few (the entries the duals find
    negative join)."""
    from pyclmatch.assignment import restrict
    if kind == "few":
        monkeypatch.setattr(restrict, "KEEP", 1)
    monkeypatch.setattr(restrict, "SQUARE", {"cpu": True, "gpu": True})
    rng = np.random.default_rng(4)
    nr, nc = shape
    C = {"uniform": lambda: rng.random((nr, nc)),
         "integer": lambda: rng.integers(0, 9, (nr, nc)).astype(float),
         "ties": lambda: np.ones((nr, nc)),
         "crowded": lambda: np.hstack([np.zeros((nr, 20)), 1 + rng.random((nr, nc - 20))]),
         "few": lambda: rng.random((nr, nc))}[kind]()
    C = -C if maximize else C
    for M in (C, C.T.copy()):
        r, c = scipy_lsa(M, maximize=maximize)
        res = pyclmatch.assignment(M, maximize=maximize, device=DEV)
        assert res.objective == pytest.approx(float(M[r, c].sum()), rel=1e-12, abs=1e-12)
        assert res.counters["restricted"] >= 1 and res.verified
    if kind in ("crowded", "few"):
        assert res.counters["restricted"] >= 2


@FAST
@given(st.integers(1, 60), st.integers(0, 40), st.integers(0, 2**32 - 1),
       st.sampled_from(["uniform", "integer", "ties", "crowded"]), st.booleans(),
       st.booleans())
def test_complete_hypothesis(nr, extra, seed, values, maximize, tall):
    """Complete problems of 33 to 100 columns and any number of rows up to that, wide or
    tall, square ones restricted too (restrict.SQUARE set): scipy's optimum, certified."""
    from pyclmatch.assignment import restrict
    rng = np.random.default_rng(seed)
    nc = 33 + extra + max(0, nr - 33 - extra)
    C = {"uniform": lambda: rng.random((nr, nc)),
         "integer": lambda: rng.integers(-3, 4, (nr, nc)) * 1.0,
         "ties": lambda: np.full((nr, nc), 2.0),
         "crowded": lambda: np.hstack([np.zeros((nr, 3)), 1 + rng.random((nr, nc - 3))])}[
        values]()
    C = C.T.copy() if tall else C
    saved = restrict.SQUARE
    restrict.SQUARE = {"cpu": True, "gpu": True}
    try:
        res = pyclmatch.assignment(C, maximize=maximize, device=DEV)
    finally:
        restrict.SQUARE = saved
    r, c = scipy_lsa(C, maximize=maximize)
    assert res.objective == pytest.approx(float(C[r, c].sum()), rel=1e-12, abs=1e-12)
    assert res.verified and res.counters["restricted"] >= 1


def test_big_m_fuzz_case():
    """The fuzz campaign's case (seed 108, case 735) that answered 0 where scipy finds -3:
    entries of 2**62 beside -1..7."""
    B = float(2 ** 62)
    C = np.array([[0, 0, 0, 0], [0, 0, 0, 0], [7, 0, -1, B], [0, -1, 2, 0], [0, 1, 0, -1],
                  [0, 0, 0, 0], [0, 0, B, 7], [B, 0, 0, 7]])
    res = pyclmatch.assignment(C, device=DEV)
    assert res.objective == -3.0 and res.counters["needless_entries"] >= 3    # (the 2**62s)


def test_example_script_runs(monkeypatch, capsys):
    """examples/assignment.py runs as written (small), on the test device."""
    import runpy
    import sys
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples", "assignment.py")
    monkeypatch.setenv("PYCLMATCH_DEVICE", DEV)       # (the script sets it; restored after)
    monkeypatch.setattr(sys, "argv", [path, "--device", DEV, "--n", "300"])
    runpy.run_path(path, run_name="__main__")
    out = capsys.readouterr().out
    assert "verified=True" in out and "|diagonal| = 1: True" in out
