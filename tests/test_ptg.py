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
from pyclmatch.engine import grid
from pyclmatch.bipartite import ptg as ptg_module
from pyclmatch.bipartite.ptg import (C_ACTIVE_COLS, C_ACTIVE_ROWS, C_RENEWABLE_ROWS,
                                     F_LEAVES, F_NEXT, F_PATHS, TreeGraftingMatcher)
from pyclmatch.engine.graphs import DeviceBipartite, as_bipartite
from pyclmatch.engine.scheduler import Scheduler

from bipartite_cases import (structured_cases, heavy_cases, bipartite_matrices,
                             power_law_matrices, scipy_cardinality, chain, long_paths, layered,
                             permuted_perfect, random_rect, star, double_star, hubs, _csr,
                             shared_matrix_files)

NONE = -1


@pytest.fixture(autouse=True, params=["launches", "one-group"])
def path(request, monkeypatch):
    """Every test on both paths: the kernels launched per step, and the whole run in one
    work-group (``ptg_one_group``) for every graph with edges."""
    limit = 0 if request.param == "launches" else 1 << 62
    monkeypatch.setattr(ptg_module, "ONE_GROUP_EDGES_CPU", limit)
    monkeypatch.setattr(ptg_module, "ONE_GROUP_EDGES_GPU", limit)
    return request.param


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


@pytest.mark.parametrize("batch,first", [(1, 2), (2, 2), (5, 2), (16, 2), (16, 1), (5, 4)])
def test_batched_levels(batch, first, device, monkeypatch):
    """BFS levels in batches (the direction chosen on the device, levels past the end of a
    BFS returning at once, a phase's first batch of ``first`` levels also bringing Steps 2-3
    decided on the device) give the same answers, count each level once and launch at least
    as many; batch_levels 1 is the host's rule, a read-back per level and step."""
    monkeypatch.setattr(ptg_module, "FIRST_BATCH", first)
    for A, alpha in ((random_rect(3000, 3000, 3.0, seed=7), None), (long_paths(500, seed=2),
                                                                   None),
                     (hubs(400, seed=3), 0.5), (generators.grid(30), 100.0)):
        res = ptg(A, device, init="none", batch_levels=batch, alpha=alpha)
        check(A, res)
        c = res.counters
        assert c["bfs_levels"] == c["top_down_levels"] + c["bottom_up_levels"]
        if batch > 1:
            assert c["bfs_levels_launched"] >= c["bfs_levels"]


@pytest.mark.parametrize("queue,group,lanes,grid,heavy", [
    (False, 0, 1, 0, -1), (True, 0, 1, 0, -1), (True, 4, 1, 0, -1), (True, 1024, 1, 0, -1),
    (True, 1024, 4, 0, -1), (True, 4, 8, 0, -1), (True, 1024, 1, 1, -1), (True, 4, 4, 1, -1),
    (False, 0, 1, 0, 2), (True, 0, 4, 0, 2), (True, 1024, 1, 0, 0), (True, 1024, 4, 1, 2),
    (True, 4, 1, 1, 0)])
def test_queues_and_one_group_levels(queue, group, lanes, grid, heavy, device, monkeypatch):
    """TopDown from the frontier queues, with or without runs of levels in one launch (one
    work-group, or ``grid`` work-groups with barriers between them: top_down_grid; one
    taking a frontier of at most 4 columns; the queues' columns expanded by teams of up to
    ``lanes`` work-items), and from sweeps of every column, with or without a heavy tier
    (columns of degree > ``heavy`` expanded by work-groups; in the one-launch levels, by a
    pass after the light columns): the same cardinality, a certified cover, each level
    counted once."""
    monkeypatch.setattr(ptg_module, "TEAM_LANES_CPU", lanes)
    monkeypatch.setattr(ptg_module, "GRID_GROUPS_CPU", grid)
    monkeypatch.setattr(ptg_module, "GRID_GPU", bool(grid))
    monkeypatch.setattr(ptg_module, "GRID_FRONTIER_GPU", group)
    monkeypatch.setattr(ptg_module, "TEAM_LANES_GPU", lanes)
    monkeypatch.setattr(ptg_module, "QUEUE_CPU", queue)
    monkeypatch.setattr(ptg_module, "QUEUE_GPU", queue)
    monkeypatch.setattr(ptg_module, "GROUP_FRONTIER_CPU", group)
    monkeypatch.setattr(ptg_module, "GROUP_FRONTIER_GPU", group)
    for A in (generators.grid(40), long_paths(300, seed=4),
              random_rect(2000, 1800, 3.0, seed=2), hubs(300, seed=5)):
        for init in ("none", "karp-sipser"):
            res = ptg(A, device, init=init, heavy_degree=heavy, work_group_size=16)
            check(A, res)
            c = res.counters
            assert c["bfs_levels"] == c["top_down_levels"] + c["bottom_up_levels"]
            if not (queue and group):
                assert c.get("group_launches", 0) == 0


def test_grid_gives_up(device, monkeypatch):
    """A barrier of top_down_grid that gives up (a device that did not run every group of
    the launch at once, simulated here) leaves the run to go on from a fresh forest with a
    launch per level: the same certified answer."""
    real = ptg_module.TreeGraftingMatcher.enqueue_group_levels

    def gave_up(self, **kw):        # (its levels ran, a barrier gave up after them)
        real(self, **kw)
        raise ptg_module._GridGaveUp()
    monkeypatch.setattr(ptg_module.TreeGraftingMatcher, "enqueue_group_levels", gave_up)
    monkeypatch.setattr(ptg_module, "GROUP_FRONTIER_CPU", 1024)
    monkeypatch.setattr(ptg_module, "GROUP_FRONTIER_GPU", 1024)
    A = generators.grid(40)
    res = ptg(A, device, init="none")
    check(A, res)
    if not res.counters.get("one_group"):
        assert res.counters["grid_fallbacks"] == 1


def test_grid_fence_refused(device, monkeypatch):
    """A device named NVIDIA's gets top_down_grid with an inline PTX fence; where the driver
    refuses to build it (a CPU device's, which cannot assemble PTX), the run takes the
    single work-group's levels instead: the same certified answer. NVIDIA's own driver
    builds it and never lands in the refused set."""
    nvidia = "NVIDIA" in device.platform_name
    monkeypatch.setattr(device, "platform_name", "NVIDIA CUDA")
    monkeypatch.setattr(ptg_module, "GRID_GROUPS_CPU", 1)
    monkeypatch.setattr(ptg_module, "ONE_GROUP_EDGES_CPU", 0)
    monkeypatch.setattr(grid, "PTX_FENCE_REFUSED", set())
    A = generators.grid(40)
    for _ in range(2):             # (the second call knows the refusal)
        check(A, ptg(A, device, init="none"))
        assert (device.label in grid.PTX_FENCE_REFUSED) is not nvidia


@pytest.mark.parametrize("heavy", [-1, 0])
def test_group_levels_keep_the_forest(heavy, device):
    """top_down_group on a chain whose only augmenting path runs through every vertex (the
    greedy matching of ``chain``): one launch runs its levels one column at a time, each
    counted once, the last levels' queues hold the columns stamped with them, the tree ends
    at the free row, and the forest stays valid (heavy 0: every column expanded by the
    heavy pass)."""
    n = 40
    A = chain(n)
    rm = np.append(np.arange(1, n), NONE).astype(np.int32)       # row i -> column i + 1
    cm = np.append(NONE, np.arange(n - 1)).astype(np.int32)      # column 0 unmatched
    croot = np.where(np.arange(n) == 0, 0, NONE)
    clevel = np.where(np.arange(n) == 0, 3, -1)
    f = Forest(device, A, wg=8, mode="ct", heavy_degree=heavy).set(
        rm, cm, np.full(n, NONE), np.full(n, NONE), croot, clevel, np.full(n, NONE), 3)
    assert bool(f.m.tiers) == (heavy >= 0 and not f.m.one_group)
    if not f.m.queue:
        pytest.skip("the queues are off on this device")
    f.m.group, f.m.unvisited, f.m.alpha = 1 << 20, n, 1e-3     # (the rule: top-down)
    counts, run = f.m.enqueue_group_levels()
    s = f.state()
    assert run == n                              # n - 1 columns, then the free row's level
    assert (counts[0:2 * (n - 1):2] == 1).all() and counts[2 * (n - 1)] == 0
    assert s["leaf"][0] == n - 1 and (s["rroot"] == 0).all()
    assert_valid_forest(A, s)
    fq = f.m.fq.get()
    for k in (n - 2, n - 1):     # (column k joined at level 3 + k; the two queues hold the
        level = 3 + k            #  last two levels: each is rewritten two levels on)
        assert fq[(level & 1) * n] == np.flatnonzero(s["clevel"] == level)[0] == k


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

    def __init__(self, device, A, wg=4, mode="mt", heavy_degree=-1, ct_work_items=None):
        self.A = sp.csr_matrix(A)
        g = as_bipartite(self.A)
        self.dg = DeviceBipartite(device, g, need_csr=True, canonical=False)
        self.m = TreeGraftingMatcher(device, self.dg, work_group_size=wg, mode=mode,
                                     heavy_degree=heavy_degree, ct_work_items=ct_work_items)
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
        m.group = ptg_module.GROUP_FRONTIER_CPU if m.queue and m.handle.is_cpu else 0
        m.group_levels = ptg_module.GROUP_LEVELS
        # (room for the group levels also where the helper's group is 0: a test may set it)
        m.flags = cla.zeros(self.q, m.flag_slots(m.group_levels), np.int32)
        m.hq = cla.zeros(self.q, max(self.nc, 1), np.int32)      # (a level's heavy columns)
        m.host = np.zeros(m.flags.size, np.int32)
        m.nr, m.nc, m.level = self.nr, self.nc, level
        m.stats = {k: 0 for k in ("phases", "bfs_levels", "top_down_levels", "paths",
                                  "bottom_up_levels", "grafts", "rebuilds")}
        m.unmatched = int(np.count_nonzero(np.asarray(cmatch) == NONE))
        m.frontier = m.unvisited = m.grafted_leaves = 0
        # (the frontier of `level`: its queue, where the kernels take one, and its size)
        front = np.flatnonzero(np.asarray(clevel) == level).astype(np.int32)
        fq = np.zeros(2 * max(self.nc, 1), np.int32)
        fq[(level & 1) * self.nc:][:front.size] = front
        m.fq, m.frontier = up(fq), int(front.size)
        m.bind_levels()
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
        f.m.count_forest(release=True)           # (the renewable rows: RELEASED)
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


def grafted_leaf_case():
    """The state after an Augment on a GPU that a sequential device never reaches: the
    augmented tree of root D (column 2, matched to its path's row d) also holds a second free
    row u (row 0), claimed in the same level as its leaf by another work-item; u is adjacent
    to column ca (3) of the active tree of root r2 (column 1: r2 - a - ca), whose row a (1)
    is also adjacent to the active root r3 (column 0); row v (3), free and unvisited, hangs
    off ca. Graft attaches u to r2 through ca: a path u - ca - a - r2 found in Graft. Before
    the fix, r2 turned "renewable" in that launch, so a (processed after u) was released and
    re-grafted onto r3, taking ca with it; the next TopDown claimed v for r3 through ca, and
    Augment flipped both r3's path v - ca - a - r3 and r2's u - ca - a - r3 (through a's new
    parent): two rows matched to ca, whichever order the paths run in."""
    edges = [(0, 2), (0, 3), (1, 1), (1, 3), (1, 0), (2, 2), (3, 3)]
    A = _csr(np.array([e[0] for e in edges]), np.array([e[1] for e in edges]), (4, 4))
    rmatch = np.array([NONE, 3, 2, NONE])
    cmatch = np.array([NONE, NONE, 2, 1])
    rroot = np.array([2, 1, 2, NONE])
    parent = np.array([2, 1, 2, NONE])
    croot = np.array([0, 1, 2, 1])
    clevel = np.full(4, -1)
    leaf = np.array([NONE, NONE, 2, NONE])       # D's leaf was d (row 2), now matched
    return A, (rmatch, cmatch, rroot, parent, croot, clevel, leaf)


@pytest.mark.parametrize("mode,wg,items", [("ct", 1, 1), ("ct", 4, 4), ("mt", 1, None),
                                           ("mt", 4, None)])
def test_grafted_leaf_keeps_its_tree(mode, wg, items, device):
    """A free row grafted onto an active tree ends that tree's path in the Graft launch; the
    tree's own rows keep their places (the renewable rows are fixed by count_forest before
    Graft), the path found in Graft is augmented although the next BFS finds none, and the
    run's answer is a valid maximum matching (ct_work_items 1: one work-item, rows in id
    order, the interleaving that broke the tree before the fix, made deterministic)."""
    A, arrays = grafted_leaf_case()
    f = Forest(device, A, wg=wg, mode=mode, ct_work_items=items).set(*arrays, 10)
    f.m.stats["phases"] = 1
    f.m.count_forest(release=True)
    counts = f.m.flags.get()
    assert list(counts[C_ACTIVE_COLS:C_ACTIVE_ROWS + 1]) == [3, 2, 1]   # r3, r2, ca; u, d; a
    f.m.graft(active_rows=int(counts[C_ACTIVE_ROWS]))
    s = f.state()
    assert_forest_invariants(A, s)
    assert s["rroot"][1] == 1 and s["parent"][1] == 1 and s["croot"][3] == 1   # a, ca stay
    assert s["leaf"][1] == 0 and s["parent"][0] == 3 and s["rroot"][0] == 1    # u: r2's leaf
    assert s["rroot"][2] == NONE                                                # d released
    assert f.m.grafted_leaves == 1 and f.m.frontier == 0
    assert f.m.grow_forest()                      # the path found in Graft counts
    f.m.augment()
    s = f.state()
    rm, cm = s["rmatch"], s["cmatch"]
    assert list(rm) == [3, 1, 2, NONE] and list(cm) == [NONE, 1, 2, 0]
    assert scipy_cardinality(A) == 3


def permuted_state(A, arrays, pr, pc):
    """A hand-made state with row i renamed pr[i] and column j renamed pc[j]."""
    rmatch, cmatch, rroot, parent, croot, clevel, leaf = (np.asarray(a) for a in arrays)
    col = lambda a: np.where(a >= 0, pc[np.maximum(a, 0)], a)
    row = lambda a: np.where(a >= 0, pr[np.maximum(a, 0)], a)
    out = [np.empty_like(a) for a in (rmatch, cmatch, rroot, parent, croot, clevel, leaf)]
    for k, a in enumerate((rmatch, None, rroot, parent)):
        if a is not None:
            out[k][pr] = col(a)
    out[1][pc] = row(cmatch)
    out[4][pc] = col(croot)
    out[5][pc] = clevel
    out[6][pc] = row(leaf)
    B = sp.csr_matrix(A).tocoo()
    return _csr(pr[B.row], pc[B.col], A.shape), out


@pytest.mark.parametrize("mode,wg,items", [("ct", 1, 1), ("mt", 1, None)])
def test_grafted_leaf_any_order(mode, wg, items, device):
    """The grafted-leaf state under every renaming of its rows and 24 renamings of its
    columns (the order in which work-items take the rows and roots): after Graft the trees
    are intact, and the rest of the run (BFS, Augment, further phases) ends in a consistent
    maximum matching."""
    import itertools
    A0, arrays0 = grafted_leaf_case()
    rng = np.random.default_rng(1)
    for pr in itertools.permutations(range(4)):
        pr, pc = np.array(pr), rng.permutation(4)
        A, arrays = permuted_state(A0, arrays0, pr, pc)
        f = Forest(device, A, wg=wg, mode=mode, ct_work_items=items).set(*arrays, 10)
        f.m.stats["phases"] = 1
        f.m.count_forest(release=True)
        f.m.graft(active_rows=int(f.m.flags.get()[C_ACTIVE_ROWS]))
        assert_forest_invariants(A, f.state())
        assert f.m.grafted_leaves == 1
        while f.m.grow_forest():
            f.m.stats["phases"] += 1
            f.m.graft_or_rebuild(f.m.augment())
        s = f.state()
        rm, cm = s["rmatch"], s["cmatch"]
        matched = np.flatnonzero(rm >= 0)
        assert (cm[rm[matched]] == matched).all() and np.count_nonzero(cm >= 0) == 3
        assert all(A[y, rm[y]] for y in matched)


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


# --------------------------------------------- forest invariants checked after every kernel
def assert_forest_invariants(A, s):
    """What makes Augment's paths vertex-disjoint, checked on a state read between two
    launches: every row of a tree whose root is still unmatched (a tree not augmented yet)
    hangs off an adjacent column of the same tree, and following parents and mates from it
    stays in that tree until it reaches the root; a root's leaf is an unmatched row of its own
    tree; no row is left released (RELEASED is Graft's input only)."""
    A = sp.csr_matrix(A)
    rroot, parent, croot = s["rroot"], s["parent"], s["croot"]
    cm, rm, leaf = s["cmatch"], s["rmatch"], s["leaf"]
    assert (rroot >= NONE).all(), "a row left released after Graft"
    for y in np.flatnonzero(rroot != NONE):
        r, yy = rroot[y], y
        if cm[r] != NONE:
            continue                     # an augmented tree: its rows are released next
        for _ in range(A.shape[1] + 1):
            x = parent[yy]
            assert A[yy, x] != 0, f"row {yy}: parent {x} not adjacent"
            assert croot[x] == r, f"row {yy} of tree {r} hangs off column {x} of tree {croot[x]}"
            if x == r:
                break
            yy = cm[x]
            assert yy >= 0 and rroot[yy] == r, f"tree {r}: the mate {yy} of {x} is elsewhere"
        else:
            raise AssertionError(f"row {y}: no way back to its root {r}")
    for r in np.flatnonzero((leaf != NONE) & (cm == NONE)):
        y = leaf[r]
        assert rroot[y] == r and rm[y] == NONE, f"tree {r}: leaf {y} is not its own free row"


class CheckedMatcher(TreeGraftingMatcher):
    """PTG with the state read back and checked after every launch that grows, grafts or
    augments (tests only): a race outcome that breaks a tree is caught where it happens,
    even when a sequential Augment would hide the conflict that a GPU turns into
    "row_match and col_match disagree"."""

    A = None

    def state(self):
        return {k: getattr(self, k).get() for k in ("rmatch", "cmatch", "rroot", "parent",
                                                    "croot", "leaf")}

    def checked(self):
        s = self.state()
        assert_forest_invariants(self.A, s)
        rm, cm = s["rmatch"], s["cmatch"]
        assert (cm[rm[rm >= 0]] == np.flatnonzero(rm >= 0)).all()
        assert (rm[cm[cm >= 0]] == np.flatnonzero(cm >= 0)).all()
        self.n_checks += 1

    def top_down(self):
        super().top_down()
        self.checked()

    def bottom_up(self):
        super().bottom_up()
        self.checked()

    def graft(self, active_rows):
        super().graft(active_rows)
        self.checked()

    def enqueue_renewal(self):
        super().enqueue_renewal()
        self.checked()

    def enqueue_levels(self, batch, top_down_only=False, settle=False, read=True):
        counts = super().enqueue_levels(batch, top_down_only, settle, read)
        self.checked()
        return counts

    def enqueue_group_levels(self, after=0, settle=False):
        out = super().enqueue_group_levels(after, settle)
        self.checked()
        return out


def checked_run(device, A, **params):
    """One whole PTG run of ``A`` from the empty matching with the invariants checked after
    every kernel (the launches' path); returns (cardinality, number of checks)."""
    A = sp.csr_matrix(A)
    nr, nc = A.shape
    dg = DeviceBipartite(device, as_bipartite(A), need_csr=True, canonical=False)
    m = CheckedMatcher(device, dg, **params)
    m.A, m.n_checks = A, 0
    sched = Scheduler(device)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ptg_module, "ONE_GROUP_EDGES_CPU", 0)
        mp.setattr(ptg_module, "ONE_GROUP_EDGES_GPU", 0)
        m.prepare(sched)
    rm = cla.to_device(device.queue, np.full(max(nr, 1), NONE, np.int32))
    cm = cla.to_device(device.queue, np.full(max(nc, 1), NONE, np.int32))
    m.run(rm, cm, sched)
    rmh, cmh = rm.get()[:nr], cm.get()[:nc]
    matched = np.flatnonzero(rmh >= 0)
    assert (cmh[rmh[matched]] == matched).all()
    assert all(A[y, rmh[y]] for y in matched)
    return matched.size, m.n_checks


@pytest.mark.parametrize("mode,wg,items,batch", [("ct", 1, 1, 1), ("ct", 4, 8, 3),
                                                 ("mt", 1, None, None), ("mt", 32, None, 16)])
def test_checked_runs_always_graft(mode, wg, items, batch, device):
    """alpha = 100: every level bottom-up and every phase grafts, so unmatched rows left in
    augmented trees (a tree claims several free rows in one level, keeps one as its leaf)
    are grafted onto active trees in the same launch as those trees' own rows are tested:
    before the fix, such a row made its tree "renewable" mid-launch and the tree's later rows
    were released and re-grafted elsewhere, so its path ran into another tree (ct_work_items
    1: one work-item, rows in id order, the interleaving made deterministic)."""
    for seed in range(12):
        A = random_rect(120, 110, 2.5, seed=seed)
        card, checks = checked_run(device, A, mode=mode, work_group_size=wg,
                                   ct_work_items=items, alpha=100.0, batch_levels=batch)
        assert card == scipy_cardinality(A) and checks > 0
