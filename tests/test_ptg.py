"""PTG (parallel tree grafting, MS-BFS-Graft) against scipy on the shared bipartite cases, and
its kernels on hand-made forests: the race outcomes of the claims on visited rows (TopDown),
of concurrent grafts and of Augment."""
import numpy as np
import pyopencl.array as cla
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, HealthCheck, strategies as st

import pyclmatch
from pyclmatch import generators
from pyclmatch.bipartite import INITS, verify_matching
from pyclmatch.bipartite.ptg import (C_ACTIVE_COLS, C_ACTIVE_ROWS, C_RENEWABLE_ROWS, F_LEAVES,
                                     F_NEXT, F_PATHS, TreeGraftingMatcher)
from pyclmatch.engine.graphs import DeviceBipartite, as_bipartite
from pyclmatch.engine.scheduler import Scheduler

from bipartite_cases import (structured_cases, heavy_cases, bipartite_matrices,
                             power_law_matrices, scipy_cardinality, chain, long_paths, layered,
                             permuted_perfect, random_rect, star, double_star, hubs, _csr,
                             shared_matrix_files)

NONE = -1


def check(A, res):
    """Scipy's cardinality, the device check passed, the König cover from the final forest
    (no extra BFS) checked again on the host."""
    assert res.cardinality == scipy_cardinality(A)
    assert res.verified and res.algorithm == "ptg"
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    assert res.certificate.size == res.cardinality
    assert res.counters.get("cover_phases", 0) == 0


def ptg(A, device, **kw):
    return pyclmatch.maximum_matching(A, algorithm="ptg", device=device, **kw)


# ------------------------------------------------------------------------ whole-call tests
@pytest.mark.parametrize("init", INITS)
def test_structured(init, device):
    for _, A in structured_cases():
        check(A, ptg(A, device, init=init))


def complete(m, n):
    return _csr(*np.divmod(np.arange(m * n), n), (m, n))


def test_adversarial(device):
    """Stars, complete bipartite graphs, hubs, layered graphs (many equal paths) and chains
    (long augmenting paths), without initial matching (every tree starts at a root)."""
    for A in (star(200), star(200, transpose=True), double_star(150), complete(40, 40),
              complete(50, 17), complete(17, 50), hubs(300, seed=5), layered(10, 7),
              chain(2000), long_paths(2000, seed=3)):
        for init in ("none", "cheap"):
            check(A, ptg(A, device, init=init))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=bipartite_matrices(), init=st.sampled_from(INITS),
       wg=st.sampled_from([None, 1, 4, 32]), alpha=st.sampled_from([None, 0.01, 100.0]))
def test_random_graphs(A, init, wg, alpha, device):
    """Random graphs (rectangular, empty, dense, duplicates) in every init, work-group size
    and alpha: 0.01 makes (almost) every level top-down and always rebuilds, 100 every level
    bottom-up and always grafts."""
    check(A, ptg(A, device, init=init, work_group_size=wg, alpha=alpha))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(A=power_law_matrices(), mode=st.sampled_from(["ct", "mt"]),
       heavy=st.sampled_from([None, -1, 0, 4]))
def test_power_law_heavy(A, mode, heavy, device):
    """Power-law graphs with hub rows and columns, top-down heavy columns expanded by
    work-groups (heavy_degree 0: every column with an edge)."""
    check(A, ptg(A, device, init="none", mode=mode, heavy_degree=heavy, work_group_size=16))


def test_heavy_cases(device):
    for _, A in heavy_cases():
        check(A, ptg(A, device, init="none", heavy_degree=8, work_group_size=16))


def test_counters_and_rules(device):
    """The alpha rule's extremes take the paths they name, and each phase augments."""
    A = random_rect(3000, 3000, 3.0, seed=7)
    down = ptg(A, device, init="none", alpha=1e-6)     # |F| < |R| / alpha: never
    up = ptg(A, device, init="none", alpha=1e6)
    for res in (down, up):
        check(A, res)
        assert res.counters["paths"] == res.cardinality and res.counters["phases"] >= 1
    assert down.counters["bottom_up_levels"] == 0 and down.counters["grafts"] == 0
    assert up.counters["top_down_levels"] == 0 and up.counters["rebuilds"] == 0


def test_repeated_runs_never_wrong(device):
    """Claims and grafts race between work-items; every run must be maximum and verified."""
    A = permuted_perfect(2000, extra=3, seed=9)
    want = scipy_cardinality(A)
    for wg in (1, 4, 16, 64):
        for mode in ("ct", "mt"):
            res = ptg(A, device, init="none", work_group_size=wg, mode=mode)
            assert res.cardinality == want and res.verified


def test_reference_small_suite(device):
    for name, A in generators.suite(small=True, rcp="both"):
        for init in ("karp-sipser", "none"):
            check(A, ptg(A, device, init=init))


@pytest.mark.parametrize("path", shared_matrix_files(), ids=lambda p: p.name)
def test_shared_matrix_market_files(path, device):
    A = pyclmatch.read_graph(path)
    check(A, ptg(A, device))


def test_auto_never_chooses_ptg(device):
    for A in (chain(100), random_rect(3000, 3000, 3.0, seed=1), generators.kron(10)):
        assert pyclmatch.maximum_matching(A, device=device).algorithm != "ptg"


def test_bad_alpha(device):
    with pytest.raises(ValueError):
        ptg(chain(5), device, alpha=0)


@pytest.mark.slow
@pytest.mark.parametrize("path", shared_matrix_files(), ids=lambda p: p.name)
def test_shared_files_every_init_and_mode(path, device):
    A = pyclmatch.read_graph(path)
    for init in INITS:
        for mode in ("ct", "mt"):
            check(A, ptg(A, device, init=init, mode=mode))


@pytest.mark.slow
def test_larger_graphs(device):
    for A in (random_rect(100000, 100000, 3.0, seed=1), long_paths(20000, seed=4),
              generators.kron(14), generators.suite("delaunay-10", rcp=True, small=True)
              .__next__()[1]):
        check(A, ptg(A, device, init="none"))


@pytest.mark.gpu
def test_gpu_larger(gpu):
    for A in (random_rect(200000, 200000, 3.0, seed=1), long_paths(20000, seed=4),
              generators.kron(16)):
        for _ in range(3):
            check(A, ptg(A, gpu, init="karp-sipser"))


# ------------------------------------------------------------------ kernel-level race tests
class Forest:
    """A :class:`TreeGraftingMatcher` on ``A`` with a hand-made forest: mates, roots,
    parents, levels and leaves set from host arrays, one kernel launched, the state read."""

    def __init__(self, device, A, wg=4, mode="mt", heavy_degree=-1):
        self.A = sp.csr_matrix(A)
        g = as_bipartite(self.A)
        self.dg = DeviceBipartite(device, g, need_csr=True, canonical=False)
        self.m = TreeGraftingMatcher(device, self.dg, work_group_size=wg, mode=mode,
                                     heavy_degree=heavy_degree)
        self.sched = Scheduler(device)
        self.m.sched = self.sched
        self.m.prepare(self.sched)
        self.q = device.queue
        self.nr, self.nc = self.A.shape

    def set(self, rmatch, cmatch, rroot, parent, croot, clevel, leaf, level):
        up = lambda a: cla.to_device(self.q, np.asarray(a, np.int32))
        m = self.m
        m.rmatch, m.cmatch = up(rmatch), up(cmatch)
        m.rroot, m.parent, m.croot = up(rroot), up(parent), up(croot)
        m.clevel, m.leaf = up(clevel), up(leaf)
        m.flags = cla.zeros(self.q, 6, np.int32)
        m.host = np.zeros(6, np.int32)
        m.nr, m.nc, m.level = self.nr, self.nc, level
        m.stats = {k: 0 for k in ("phases", "bfs_levels", "top_down_levels", "paths",
                                  "bottom_up_levels", "grafts", "rebuilds")}
        m.unmatched = int(np.count_nonzero(np.asarray(cmatch) == NONE))
        return self

    def state(self):
        m = self.m
        return {k: getattr(m, k).get() for k in ("rmatch", "cmatch", "rroot", "parent",
                                                 "croot", "clevel", "leaf", "flags")}


def assert_valid_forest(A, s):
    """Every row in a tree hangs off an adjacent column of the same tree, and following
    parents and mates from it reaches its root (no cycle, within n steps); every column in a
    non-root position of a tree is the mate of a row of that tree."""
    A = sp.csr_matrix(A)
    for y in np.flatnonzero(s["rroot"] != NONE):
        r, yy = s["rroot"][y], y
        for _ in range(A.shape[1] + 1):
            x = s["parent"][yy]
            assert A[yy, x] != 0 and s["croot"][x] == r
            if x == r:
                break
            yy = s["cmatch"][x]
            assert yy >= 0 and s["rroot"][yy] == r
        else:
            raise AssertionError(f"row {y}: no way back to its root {r}")


@pytest.mark.parametrize("wg", [1, 4, 32])
def test_top_down_claims_race(wg, device):
    """TopDown on K_{n,n} (half of the rows matched to the other half of the columns): every
    unmatched column is a frontier root and all of them claim the same rows at once. Each row
    goes to exactly one tree; each matched claimed row brings its mate into that tree and the
    next frontier; each tree that claimed an unmatched row has a leaf of its own; the
    counters equal what the state shows."""
    n = 24
    A = complete(n, n)
    rmatch = np.full(n, NONE)
    cmatch = np.full(n, NONE)
    half = n // 2
    rmatch[:half] = np.arange(half, n)           # rows 0..11 matched to columns 12..23
    cmatch[half:] = np.arange(half)
    roots = np.flatnonzero(cmatch == NONE)
    croot = np.where(cmatch == NONE, np.arange(n), NONE)
    clevel = np.where(cmatch == NONE, 5, -1)
    f = Forest(device, A, wg=wg).set(rmatch, cmatch, np.full(n, NONE), np.full(n, NONE),
                                     croot, clevel, np.full(n, NONE), 5)
    f.m.top_down()
    s = f.state()
    claimed = np.flatnonzero(s["rroot"] != NONE)
    assert set(s["rroot"][claimed]) <= set(roots)
    assert_valid_forest(A, s)
    new = np.flatnonzero(s["clevel"] == 6)
    assert set(new) == set(rmatch[claimed][rmatch[claimed] >= 0])
    assert s["flags"][F_NEXT] == new.size
    for r in roots:
        if s["leaf"][r] != NONE:
            y = s["leaf"][r]
            assert s["rroot"][y] == r and rmatch[y] == NONE
    assert s["flags"][F_LEAVES] == np.count_nonzero((s["rroot"] != NONE) & (rmatch == NONE))
    assert s["flags"][F_LEAVES] >= 1


@pytest.mark.parametrize("wg,heavy", [(4, -1), (16, 0)])
def test_top_down_then_augment_disjoint(wg, heavy, device):
    """Random graphs, no matching: one TopDown level from every column, then Augment. Any
    outcome of the claims gives disjoint paths: a consistent matching of one edge per tree
    that found a leaf (heavy_degree 0: every column expanded by a work-group)."""
    for seed in range(6):
        A = random_rect(60, 50, 4.0, seed=seed)
        nr, nc = A.shape
        f = Forest(device, A, wg=wg, heavy_degree=heavy).set(
            np.full(nr, NONE), np.full(nc, NONE), np.full(nr, NONE), np.full(nr, NONE),
            np.arange(nc), np.zeros(nc), np.full(nc, NONE), 0)
        f.m.top_down()
        f.m.augment()
        s = f.state()
        rm, cm = s["rmatch"], s["cmatch"]
        matched = np.flatnonzero(rm >= 0)
        assert (cm[rm[matched]] == matched).all()
        assert np.count_nonzero(cm >= 0) == matched.size == s["flags"][F_PATHS]
        assert matched.size == np.count_nonzero(s["leaf"] != NONE)
        assert all(A[y, rm[y]] for y in matched)


def graft_case(k, seed):
    """Active trees rooted at columns 0..k-1 (unmatched), each holding one matched row; then
    renewable rows (of a dead tree rooted at column D, matched to columns of their own), each
    adjacent to several active columns and to other renewable rows' mates, so that grafts
    race with each other (a row may attach to the mate of a row grafted in the same launch)."""
    rng = np.random.default_rng(seed)
    n_ren = 4 * k
    nr = k + n_ren
    nc = 2 * k + 1 + n_ren
    D = 2 * k                                     # the dead (augmented) root
    rmatch = np.full(nr, NONE)
    cmatch = np.full(nc, NONE)
    rroot, parent = np.full(nr, NONE), np.full(nr, NONE)
    croot, clevel, leaf = np.full(nc, NONE), np.full(nc, -1), np.full(nc, NONE)
    rows, cols = [], []
    for t in range(k):                            # tree t: root t - row t - column k + t
        rmatch[t], cmatch[k + t] = k + t, t
        rroot[t], parent[t] = t, t
        croot[t] = croot[k + t] = t
        rows += [t, t]
        cols += [t, k + t]
    cmatch[D], croot[D], leaf[D] = 0, D, 0        # (its leaf: any row; only "set" matters)
    for i in range(n_ren):
        y, x = k + i, D + 1 + i
        rmatch[y], cmatch[x] = x, y
        rroot[y], parent[y], croot[x] = D, D, D
        for c in rng.choice(2 * k, size=3, replace=False):   # active columns t or k + t
            rows.append(y), cols.append(int(c))
        for j in rng.choice(n_ren, size=2, replace=False):    # other renewable rows' mates
            rows.append(y), cols.append(D + 1 + int(j))
        rows.append(y), cols.append(x)
    A = _csr(np.array(rows), np.array(cols), (nr, nc))
    return A, (rmatch, cmatch, rroot, parent, croot, clevel, leaf)


@pytest.mark.parametrize("wg", [1, 4, 64])
def test_concurrent_grafts(wg, device):
    """Every renewable row is adjacent to active trees: each one is grafted (exactly once),
    onto an adjacent column of an active tree, possibly the mate of a row grafted in the same
    launch; the forest stays valid, the grafted rows' mates form the new frontier, and the
    active trees' own rows are untouched."""
    for seed in range(5):
        k = 6
        A, arrays = graft_case(k, seed)
        f = Forest(device, A, wg=wg).set(*arrays, 10)
        f.m.graft(active_rows=k)
        s = f.state()
        ren = np.arange(k, A.shape[0])
        assert (s["rroot"][ren] != NONE).all() and (s["rroot"][ren] < k).all()
        assert (s["rroot"][:k] == np.arange(k)).all()
        assert_valid_forest(A, s)
        mates = arrays[0][ren]
        assert (s["clevel"][mates] == 11).all() and (s["croot"][mates] == s["rroot"][ren]).all()
        assert s["flags"][F_NEXT] == ren.size and f.m.frontier == ren.size
        assert f.m.unvisited == A.shape[0] - k - ren.size


def test_count_forest_and_rule(device):
    """count_forest's counts, and the alpha rule: graft when active columns > renewable rows
    / alpha, else rebuild (every row unvisited, a tree per unmatched column)."""
    k = 6
    A, arrays = graft_case(k, 0)
    nr, nc = A.shape
    f = Forest(device, A).set(*arrays, 10)
    f.m.count_forest()
    s = f.state()
    assert s["flags"][C_ACTIVE_COLS] == 2 * k
    assert s["flags"][C_RENEWABLE_ROWS] == nr - k
    assert s["flags"][C_ACTIVE_ROWS] == k
    f.m.alpha = 0.1                                  # 12 * 0.1 < 24 renewable rows: rebuild
    f.m.stats.update(phases=1, rebuilds=0)
    f.m.unmatched = k
    f.m.graft_or_rebuild(s["flags"])
    s = f.state()
    assert (s["rroot"] == NONE).all() and f.m.stats["rebuilds"] == 1
    assert (s["croot"][:k] == np.arange(k)).all() and (s["croot"][k:] == NONE).all()
    assert f.m.frontier == k and f.m.unvisited == nr


@pytest.mark.parametrize("heavy", [-1, 0])
def test_offset64(heavy, device, monkeypatch):
    """The 64-bit edge-offset path (offset_t = long) forced on small graphs: same answers."""
    from pyclmatch.engine.devices import DeviceHandle
    from pyclmatch.engine.graphs import FORCE_OFFSET64_ENV
    seen, orig = set(), DeviceHandle.kernel

    def spy(self, template, name, **values):
        if template == TreeGraftingMatcher.TEMPLATE:
            seen.add(values["offset_t"])
        return orig(self, template, name, **values)

    monkeypatch.setattr(DeviceHandle, "kernel", spy)
    monkeypatch.setenv(FORCE_OFFSET64_ENV, "1")
    for A in (random_rect(300, 250, 3.0, seed=2), hubs(200, seed=1), long_paths(300)):
        for init in INITS:
            check(A, ptg(A, device, init=init, heavy_degree=heavy, work_group_size=16))
    assert seen == {"long"}
