"""Exact bipartite matching (APFB/APsB x GPUBFS/GPUBFS-WR x CT/MT) against scipy."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, HealthCheck, strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching as scipy_mbm

import pyclmatch
from pyclmatch import AUGMENTING_VARIANTS, VerificationError, InputError
from pyclmatch.bipartite import INITS, verify_matching
from pyclmatch.engine.graphs import as_bipartite

from bipartite_cases import (structured_cases, bipartite_matrices, scipy_cardinality,
                             shared_matrix_files, chain, long_paths, permuted_perfect,
                             heavy_cases, power_law_matrices, star, hubs)

CASES = structured_cases()
HEAVY_CASES = heavy_cases()


def check(A, res):
    assert res.cardinality == scipy_cardinality(A)
    assert res.verified
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    assert res.certificate.size == res.cardinality
    assert res.row_match.dtype.kind == "i" and res.col_match.dtype.kind == "i"


@pytest.mark.parametrize("variant", AUGMENTING_VARIANTS)
@pytest.mark.parametrize("init", INITS)
def test_structured(variant, init, device):
    """The large-graph path (a launch per step; tests/test_one_group.py has the other)."""
    for name, A in CASES:
        res = pyclmatch.maximum_matching(A, algorithm=variant, init=init, device=device,
                                         one_group_edges=0)
        check(A, res)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), variant=st.sampled_from(AUGMENTING_VARIANTS),
       init=st.sampled_from(INITS))
def test_random_graphs(A, variant, init, device):
    check(A, pyclmatch.maximum_matching(A, algorithm=variant, init=init, device=device))


@pytest.mark.parametrize("init", INITS)
def test_initial_matching_empty_maximum_perfect(init, device):
    A = permuted_perfect(300, extra=0)          # init already perfect (a permutation matrix)
    res = pyclmatch.maximum_matching(A, init=init, device=device)
    assert res.cardinality == 300
    if init != "none":
        assert res.initial_cardinality == 300 and res.phases == 0
    else:
        assert res.initial_cardinality == 0


def test_long_augmenting_paths(device):
    """Cheap matching on a chain can leave paths through the whole graph."""
    for A in (chain(400), long_paths(400, seed=5)):
        for variant in ("apfb-gpubfs-wr-ct", "apsb-gpubfs-mt"):
            res = pyclmatch.maximum_matching(A, algorithm=variant, init="cheap", device=device)
            check(A, res)


def test_small_batches_and_groups(device):
    """Geometry parameters change nothing but speed."""
    A = long_paths(500, seed=2)
    for params in ({"batch_levels": 1}, {"batch_levels": 64}, {"work_group_size": 1},
                   {"ct_work_items": 3}, {"work_group_size": 32, "ct_work_items": 32}):
        res = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-wr-ct", init="none",
                                         device=device, **params)
        check(A, res)


@pytest.mark.parametrize("variant,init,heavy_degree",
                         [(v, i, 3) for v in AUGMENTING_VARIANTS for i in INITS]
                         + [("apfb-gpubfs-wr-ct", "karp-sipser", 0),
                            ("apsb-gpubfs-mt", "karp-sipser", 0)])
def test_heavy_vertices(variant, init, heavy_degree, device):
    """Degree-aware kernels: the hubs (and, with heavy_degree=0, every vertex: Karp-Sipser's
    degree-1 rule included) of the power-law, kron, star, hub and complete graphs are
    processed by work-groups of 8, in the initial matchings and in GPUBFS/GPUBFS-WR; the
    answers stay exact. (heavy_degree=0 on two variants only: every template value is a
    program build per variant, seconds each on a cold PoCL cache.)"""
    for name, A in HEAVY_CASES:
        res = pyclmatch.maximum_matching(A, algorithm=variant, init=init, device=device,
                                         heavy_degree=heavy_degree, work_group_size=8,
                                         one_group_edges=0)
        check(A, res)
        cols = int((np.diff(A.tocsc().indptr) > heavy_degree).sum())
        assert res.counters["heavy_cols"] == cols, name
        if init == "karp-sipser":
            rows = int((np.diff(A.tocsr().indptr) > heavy_degree).sum())
            assert res.counters["heavy_rows"] == rows, name


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=power_law_matrices(), variant=st.sampled_from(AUGMENTING_VARIANTS),
       init=st.sampled_from(INITS), wg=st.sampled_from([5, 8]),
       heavy_groups=st.sampled_from([None, 1, 2]))
def test_random_power_law_heavy(A, variant, init, wg, heavy_groups, device):
    """Odd work-groups too (the reductions are not power-of-two only), few heavy groups (each
    takes several rounds of heavy vertices) or one per heavy vertex. (Few distinct template
    values and group sizes: PoCL compiles every kernel once per group size.)"""
    check(A, pyclmatch.maximum_matching(A, algorithm=variant, init=init, device=device,
                                        heavy_degree=3, work_group_size=wg,
                                        heavy_groups=heavy_groups, one_group_edges=0))


def test_heavy_geometry(device):
    """Heavy tier geometry: one heavy group for all heavy vertices (many rounds), an odd group
    size with a CT grid smaller than a group, and groups below HEAVY_MIN_GROUP (no tier). (The
    per-level launches: the one-group path has no heavy tier and prepares none.)"""
    for A in (hubs(300, seed=7), star(200, transpose=True)):
        for params in ({"heavy_groups": 1, "work_group_size": 8},
                       {"heavy_groups": 3, "work_group_size": 5, "ct_work_items": 5},
                       {"work_group_size": 2}):
            for variant in ("apfb-gpubfs-wr-ct", "apsb-gpubfs-mt"):
                res = pyclmatch.maximum_matching(A, algorithm=variant, device=device,
                                                 heavy_degree=3, one_group_edges=0, **params)
                check(A, res)
                assert (res.counters["heavy_rows"] > 0) == (params["work_group_size"] >= 4)
                small = pyclmatch.maximum_matching(A, algorithm=variant, device=device,
                                                   heavy_degree=3, **params)
                check(A, small)
                assert small.counters["one_group"] == 1
                assert small.counters["heavy_rows"] == small.counters["heavy_cols"] == 0


def test_heavy_tier_default_by_device_type(device, monkeypatch):
    """The tier is on by default on GPUs (vertices of degree > 64: measured on the H100) and
    off on CPU devices; an explicit heavy_degree wins either way."""
    from pyclmatch.bipartite.geometry import default_heavy_degree
    from pyclmatch.engine.devices import DeviceHandle
    monkeypatch.setattr(DeviceHandle, "is_cpu", property(lambda self: True))
    assert default_heavy_degree(device, 64) == -1
    monkeypatch.setattr(DeviceHandle, "is_cpu", property(lambda self: False))
    assert default_heavy_degree(device, 64) == 64
    A = hubs(300, seed=3)
    res = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-wr-mt", device=device,
                                     one_group_edges=0)
    check(A, res)
    assert res.counters["heavy_rows"] == int((np.diff(A.tocsr().indptr) > 64).sum()) > 0
    off = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-wr-mt", device=device,
                                     heavy_degree=-1, one_group_edges=0)
    assert off.counters.get("heavy_rows", 0) == 0 and off.cardinality == res.cardinality


def test_no_heavy_vertex_no_heavy_tier(device):
    """A graph without heavy vertices (or heavy_degree=-1) builds and launches the kernels
    without heavy tier: no heavy list, no extra arguments, no barrier in the kernels."""
    from pyclmatch.engine.programs import render_template
    A = long_paths(300)          # degrees <= 2
    for params in ({"heavy_degree": 2}, {"heavy_degree": -1}, {}):
        res = pyclmatch.maximum_matching(A, device=device, **params)
        check(A, res)
        assert res.counters["heavy_cols"] == 0 and res.counters["heavy_rows"] == 0
    for template, values in (("apfb.cl.mako", {"wr": True, "apsb": False}),
                             ("karp_sipser.cl.mako", {})):
        src = render_template(template, index_t="int", offset_t="int", mode="mt",
                              heavy_degree=-1, **values)
        assert "IN_HEAVY_TIER" not in src and "HEAVY_PARAMS" not in src and "barrier(" not in src
        src = render_template(template, index_t="int", offset_t="int", mode="mt",
                              heavy_degree=8, **values)
        assert "IN_HEAVY_TIER()" in src and "#define HEAVY_DEGREE 8" in src


def test_repeated_runs_race_free(device):
    """Races inside ALTERNATE are resolved by FIXMATCHING: every run is exact and verified."""
    A = permuted_perfect(1500, extra=3, seed=9)
    ref = scipy_cardinality(A)
    for variant in AUGMENTING_VARIANTS:
        for _ in range(2):
            res = pyclmatch.maximum_matching(A, algorithm=variant, init="none", device=device)
            assert res.cardinality == ref and res.verified


def _alternate_once(device, nr, nc, rmatch, cmatch, predecessor, bfs_array, root):
    """One APsB-WR ALTERNATE + FIXMATCHING on a given BFS outcome; returns (rmatch, cmatch)."""
    import pyopencl.array as cla
    from pyclmatch.bipartite.apfb import AugmentingPathMatcher
    values = dict(index_t="int", offset_t="int", mode="mt", wr=True, apsb=True, heavy_degree=-1)
    q = device.queue
    up = [cla.to_device(q, np.asarray(a, np.int32))
          for a in (rmatch, cmatch, predecessor, bfs_array, root)]
    rm, cm, pred, bfs, rt = up
    k = lambda name: device.kernel(AugmentingPathMatcher.TEMPLATE, name, **values)
    k("alternate")(q, (nr,), None, cm.data, rm.data, np.int32(nr), np.int32(nc), pred.data,
                   bfs.data, rt.data)
    k("fix_matching_rows")(q, (nr,), None, rm.data, cm.data, np.int32(nr))
    k("fix_matching_cols")(q, (nc,), None, cm.data, rm.data, np.int32(nc))
    return rm.get(), cm.get()


@pytest.mark.parametrize("k", [2, 5])
def test_alternate_crossed_root_marks(k, device):
    """The state that stalled APsB-GPUBFS-WR on the H100 (IterationLimitError in the GPU heavy
    test): on K_{k,k} with no initial matching every column is a root that finds every row;
    the racing BFS writes can leave root X_i marked with row a_i while predecessor[a_i] is the
    next root X_{i+1} (the heavy tier writes a column's rows in no fixed order). Taking the
    mark as it stands started no path (no row r has bfs_array[root[predecessor[r]]] == -r),
    so every phase repeated the same BFS; the roots are now claimed: one path per root."""
    cols = np.arange(k)
    rows = np.arange(k)
    pred = np.roll(cols, -1)                       # predecessor[a_i] = X_{i+1}
    bfs = -rows                                    # bfs_array[X_i] = -a_i
    rm, cm = _alternate_once(device, k, k, np.full(k, -2), np.full(k, -1), pred, bfs, cols)
    assert (rm >= 0).all() and (cm[rm] == rows).all()          # every root took one path


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(2, 12), seed=st.integers(0, 2**31 - 1))
def test_alternate_any_race_outcome_gains(n, seed, device):
    """Any outcome of the racing first BFS level on K_{n,n} (each row's predecessor, each
    root's mark, the last of their racing writes): ALTERNATE + FIXMATCHING gives a consistent
    matching with one match per root that holds a mark of a row pointing back into it and at
    least one match (a phase that found a path always gains)."""
    rng = np.random.default_rng(seed)
    pred = rng.integers(0, n, n)                   # the column whose write to row r landed last
    bfs = -rng.integers(0, n, n)                   # the row whose mark on root c landed last
    rm, cm = _alternate_once(device, n, n, np.full(n, -2), np.full(n, -1), pred, bfs,
                             np.arange(n))
    matched = rm >= 0
    assert (cm[rm[matched]] == np.flatnonzero(matched)).all()
    assert ((cm >= 0) == np.isin(np.arange(n), rm[matched])).all()
    assert matched.sum() == len(set(pred.tolist())) >= 1


def test_result_fields(device):
    A = long_paths(200)
    res = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-wr-mt", device=device)
    for key in ("upload", "build", "init", "augment", "download", "verify"):
        assert key in res.timings
    assert any(k.startswith("kernel:") for k in res.timings)
    assert res.counters["launches"] > 0 and res.counters["readbacks"] > 0
    assert res.device == device.label
    assert res.algorithm == "apfb-gpubfs-wr-mt"
    assert pyclmatch.maximum_matching(A, device=device).algorithm == \
        pyclmatch.bipartite.choose_algorithm(device, A)      # "auto"
    s = res.summary()
    assert s["cardinality"] == res.cardinality and s["verified"]


def test_scipy_drop_in(device):
    for name, A in CASES:
        if A.shape[0] == 0 or A.shape[1] == 0:
            continue
        B = sp.csr_matrix(A, dtype=float)
        B.data[:] = 1
        for perm_type in ("row", "column"):
            ours = pyclmatch.maximum_bipartite_matching(B, perm_type=perm_type, device=device)
            ref = scipy_mbm(B, perm_type=perm_type)
            assert ours.shape == ref.shape and ours.dtype == ref.dtype
            assert (ours >= 0).sum() == (ref >= 0).sum()
            # each entry is a valid partner
            idx = np.flatnonzero(ours >= 0)
            if perm_type == "row":   # ours[j] = row matched to column j
                assert np.all(B.toarray()[ours[idx], idx] != 0)
            else:
                assert np.all(B.toarray()[idx, ours[idx]] != 0)
    with pytest.raises(ValueError):
        pyclmatch.maximum_bipartite_matching(CASES[5][1], perm_type="diagonal")


def test_explicit_zeros_are_edges(device):
    A = sp.csr_matrix((np.zeros(3), np.array([0, 1, 2]), np.array([0, 1, 2, 3])), shape=(3, 3))
    assert pyclmatch.maximum_matching(A, device=device).cardinality == 3


def test_edge_arrays_and_dense(device):
    r, c = np.array([0, 1, 2, 2]), np.array([1, 0, 0, 1])
    res = pyclmatch.maximum_matching((r, c), device=device)
    assert res.cardinality == 2 and res.row_match.shape == (3,) and res.col_match.shape == (2,)
    res = pyclmatch.maximum_matching((r, c), shape=(4, 5), device=device)
    assert res.row_match.shape == (4,) and res.col_match.shape == (5,)
    dense = [[1, 0, 1], [0, 0, 1]]
    assert pyclmatch.maximum_matching(dense, device=device).cardinality == 2


def test_verification_catches_wrong_answers(device):
    A = long_paths(100)
    res = pyclmatch.maximum_matching(A, device=device)
    g = as_bipartite(A)
    rm, cm = res.row_match.copy(), res.col_match.copy()
    r = int(np.flatnonzero(rm >= 0)[0])
    c = rm[r]
    rm[r], cm[c] = -1, -1                     # a smaller matching: the cover no longer fits
    with pytest.raises(VerificationError):
        verify_matching(g, rm, cm, res.certificate)
    rm2 = res.row_match.copy()
    rm2[r] = (c + 1) % A.shape[1]             # inconsistent with col_match
    with pytest.raises(VerificationError):
        verify_matching(g, rm2, res.col_match, res.certificate)
    cov = res.certificate
    bad_cover = pyclmatch.KonigCover(cov.rows[1:], cov.cols) if cov.rows.size else \
        pyclmatch.KonigCover(cov.rows, cov.cols[1:])
    with pytest.raises(VerificationError):
        verify_matching(g, res.row_match, res.col_match, bad_cover)


@pytest.mark.parametrize("path", shared_matrix_files(), ids=lambda p: p.name)
def test_shared_matrix_market_files(path, device):
    A = pyclmatch.read_graph(path)
    for variant in ("apfb-gpubfs-wr-ct", "apsb-gpubfs-mt"):
        res = pyclmatch.maximum_matching(A, algorithm=variant, device=device)
        check(A, res)


@pytest.mark.slow
@pytest.mark.parametrize("path", shared_matrix_files(), ids=lambda p: p.name)
def test_shared_files_every_variant(path, device):
    A = pyclmatch.read_graph(path)
    for variant in AUGMENTING_VARIANTS:
        for init in INITS:
            check(A, pyclmatch.maximum_matching(A, algorithm=variant, init=init,
                                                device=device))


@pytest.mark.gpu
def test_gpu_every_variant(gpu):
    from pyclmatch import generators
    graphs = [(n, A) for n, A in generators.suite(small=True, rcp="both")]
    graphs += structured_cases()
    for name, A in graphs:
        ref = scipy_cardinality(A)
        for variant in AUGMENTING_VARIANTS:
            for init in INITS:
                res = pyclmatch.maximum_matching(A, algorithm=variant, init=init, device=gpu)
                assert res.cardinality == ref, (name, variant, init)
                assert res.verified


@pytest.mark.gpu
def test_gpu_shared_files_and_races(gpu):
    for path in shared_matrix_files():
        A = pyclmatch.read_graph(path)
        ref = scipy_cardinality(A)
        for variant in AUGMENTING_VARIANTS:
            for _ in range(3):
                res = pyclmatch.maximum_matching(A, algorithm=variant, init="none", device=gpu)
                assert res.cardinality == ref and res.verified


@pytest.mark.gpu
def test_gpu_apsb_wr_complete_graphs(gpu):
    """APsB-GPUBFS-WR from an empty matching on small complete graphs, every column heavy:
    the racing root marks of the first BFS level crossed here on the H100 and, before
    ALTERNATE claimed roots by CAS, could stall every phase (IterationLimitError)."""
    for k in range(2, 17):
        A = sp.csr_matrix(np.ones((k, k)))
        for variant in ("apsb-gpubfs-wr-ct", "apsb-gpubfs-wr-mt"):
            for heavy_degree in (0, -1):
                for _ in range(10):
                    res = pyclmatch.maximum_matching(A, algorithm=variant, init="none",
                                                     device=gpu, heavy_degree=heavy_degree)
                    assert res.cardinality == k and res.verified


@pytest.mark.gpu
def test_gpu_heavy_vertices(gpu):
    """The heavy tier on a GPU, where work-groups really race for the same rows (the lost-CAS
    retries of the heavy cheap / min-degree claims, which 2-core PoCL never hits): every
    variant and init, heavy thresholds from 'every vertex' to the default, repeated."""
    from pyclmatch import generators
    graphs = HEAVY_CASES + [("kron-14", generators.kron(14)),
                            ("complete-300", sp.csr_matrix(np.ones((300, 300))))]
    for name, A in graphs:
        ref = scipy_cardinality(A)
        for variant in AUGMENTING_VARIANTS:
            for init in INITS:
                for heavy_degree in (0, 32, None):
                    for _ in range(2):
                        res = pyclmatch.maximum_matching(A, algorithm=variant, init=init,
                                                         device=gpu, heavy_degree=heavy_degree)
                        assert res.cardinality == ref and res.verified, \
                            (name, variant, init, heavy_degree)


@pytest.mark.parametrize("short, variant", [("apfb", "apfb-gpubfs-wr-mt"),
                                            ("APsB", "apsb-gpubfs-wr-mt")])
def test_short_names_run_the_best_variant(short, variant, device):
    """``algorithm="apfb"`` / ``"apsb"`` run the best variant of each driver."""
    A = permuted_perfect(200, extra=2, seed=4)
    res = pyclmatch.maximum_matching(A, algorithm=short, device=device)
    assert res.algorithm == variant and res.cardinality == scipy_cardinality(A)


def test_unknown_algorithm_lists_every_accepted_name(device):
    from pyclmatch.bipartite.registry import ALIASES
    with pytest.raises(pyclmatch.InputError) as err:
        pyclmatch.maximum_matching(sp.eye(3, format="csr"), algorithm="apfc", device=device)
    msg = str(err.value)
    for name in ("auto", *ALIASES, *pyclmatch.bipartite.algorithms()):
        assert repr(name)[1:-1] in msg, name
