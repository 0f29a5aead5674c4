"""Dulmage-Mendelsohn decomposition, block triangular form and structural rank on the device
against the sequential host reference (tests/dm_reference.py, scipy.sparse.csgraph)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import pyclmatch
from pyclmatch import InputError
from dm_reference import host_dmperm, canonical


def check(A, device, **kw):
    """Device decomposition, verified on the host too, equal as sets to the reference."""
    d = pyclmatch.dulmage_mendelsohn(A, device=device, **kw)
    d.verify(A)
    ref = host_dmperm(A)
    assert canonical(d.p, d.q, d.r, d.s, d.rr, d.cc) == canonical(*ref)
    assert d.structural_rank == int(ref[5][4] - ref[5][1])
    # the reference layout passes the same host certificate
    pyclmatch.bipartite.dmperm.verify_decomposition(
        pyclmatch.engine.graphs.as_bipartite(A),
        pyclmatch.DMDecomposition(*ref, d.structural_rank, A.shape, d.row_match, d.col_match))
    rb = np.repeat(np.arange(d.nblocks), np.diff(d.r))
    cb = np.repeat(np.arange(d.nblocks), np.diff(d.s))
    C = sp.coo_matrix(sp.csr_matrix(A)[d.p][:, d.q])
    assert not (rb[C.row] > cb[C.col]).any()                # block upper triangular
    assert d.timings["total"] > 0
    return d


def test_diagonal(device):
    d = check(sp.eye(7, format="csr"), device)
    assert d.nblocks == 7 and list(d.r) == list(range(8)) and d.structural_rank == 7
    assert list(d.rr) == [0, 0, 7, 7, 7] and list(d.cc) == [0, 0, 0, 7, 7]


def test_full(device):
    d = check(sp.csr_matrix(np.ones((5, 5))), device)
    assert d.nblocks == 1 and list(d.r) == [0, 5]


def test_upper_bidiagonal_blocks_in_order(device):
    n = 9
    A = sp.csr_matrix(np.eye(n) + np.eye(n, k=1))
    d = check(A, device)
    assert d.nblocks == n
    assert list(d.p) == list(range(n)) and list(d.q) == list(range(n))


def test_lower_bidiagonal_reversed(device):
    n = 8
    d = check(sp.csr_matrix(np.eye(n) + np.eye(n, k=-1)), device)
    assert list(d.q) == list(range(n))[::-1]


def test_cycle_and_tail(device):
    # 0 -> 1 -> 2 -> 0 a cycle, 3 hangs below: blocks {0,1,2} before {3}
    A = np.eye(4)
    A[0, 1] = A[1, 2] = A[2, 0] = A[2, 3] = 1
    d = check(sp.csr_matrix(A), device)
    assert d.nblocks == 2 and set(d.q[:3]) == {0, 1, 2} and d.q[3] == 3


def test_rectangular_and_singular(device):
    # horizontal part: row 0 over columns 0, 1; square part: (1, 2); vertical part: rows 2, 3
    # on column 3; entries above the parts (0, 2), (1, 3) are allowed
    A = np.zeros((4, 4))
    A[0, 0] = A[0, 1] = A[0, 2] = 1
    A[1, 2] = A[1, 3] = 1
    A[2, 3] = A[3, 3] = 1
    d = check(sp.csr_matrix(A), device)
    sizes = d.coarse_sizes()
    assert sizes["horizontal"][1] > sizes["horizontal"][0]
    assert sizes == {"horizontal": (1, 2), "square": (1, 1), "vertical": (2, 1)}
    assert d.structural_rank == 3 and d.nblocks == 3
    assert set(d.q[:2]) == {0, 1} and d.q[2] == 2 and d.p[1] == 1


def test_empty_rows_and_columns(device):
    A = sp.csr_matrix(np.array([[0, 0, 0, 0], [1, 1, 0, 0], [0, 0, 0, 0], [0, 1, 0, 1.]]))
    d = check(A, device)
    assert d.structural_rank == 2


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (3, 4)])
def test_no_entries(device, shape):
    d = pyclmatch.dulmage_mendelsohn(sp.csr_matrix(shape), device=device)
    d.verify(sp.csr_matrix(shape))
    assert d.structural_rank == 0 and d.rr[4] == shape[0] and d.cc[4] == shape[1]


def test_generators_and_files(device):
    from pyclmatch import generators
    for A in (generators.grid(16), generators.kron(8), generators.delaunay(7),
              generators.uniform(300, 2, seed=3)):
        check(A, device)
    A = pyclmatch.read_graph("examples/data/rajat01.mtx.gz")
    check(A, device)


@pytest.mark.parametrize("algorithm", ["apfb-gpubfs-wr-mt", "gpr", "ppf"])
def test_every_matching_family(device, algorithm):
    A = sp.random(60, 50, 0.04, random_state=7, format="csr")
    check(A, device, algorithm=algorithm, verify="host")


@st.composite
def sparse_patterns(draw):
    m = draw(st.integers(1, 40))
    n = draw(st.integers(1, 40))
    k = draw(st.integers(0, 3 * max(m, n)))
    rows = draw(st.lists(st.integers(0, m - 1), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    diag = draw(st.booleans())
    if diag:     # a structurally nonsingular part makes blocks likely
        d = min(m, n)
        rows += list(range(d))
        cols += list(range(d))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(m, n))


@settings(max_examples=25, deadline=None)
@given(sparse_patterns())
def test_random_against_reference(device, A):
    check(A, device)


def test_input_forms_and_bad_input(device):
    A = sp.random(20, 20, 0.1, random_state=3, format="coo")
    d1 = pyclmatch.dulmage_mendelsohn(A, device=device)
    d2 = pyclmatch.dulmage_mendelsohn(A.tocsc(), device=device)
    assert canonical(d1.p, d1.q, d1.r, d1.s, d1.rr, d1.cc) == \
        canonical(d2.p, d2.q, d2.r, d2.s, d2.rr, d2.cc)
    with pytest.raises(InputError, match="NaN"):
        pyclmatch.dulmage_mendelsohn(np.array([[1, np.nan], [0, 1]]), device=device)
    with pytest.raises(InputError, match="2-D"):
        pyclmatch.dulmage_mendelsohn(np.ones(3), device=device)
    with pytest.raises(InputError, match="negative"):
        pyclmatch.dulmage_mendelsohn((np.array([0, -1]), np.array([0, 1])), device=device)
    with pytest.raises(InputError, match="verify"):
        pyclmatch.dulmage_mendelsohn(sp.eye(3), verify="maybe", device=device)
    with pytest.raises(InputError, match="algorithm=.* is not allowed"):
        pyclmatch.dulmage_mendelsohn(sp.eye(3), algorithm="nope", device=device)
    with pytest.raises(InputError, match="square"):
        pyclmatch.block_triangular_form(sp.random(3, 4, 0.5), device=device)
    with pytest.raises(InputError, match="structurally singular"):
        pyclmatch.block_triangular_form(sp.csr_matrix(np.array([[1, 1], [0, 0]])),
                                        device=device)


def test_host_certificate_rejects_wrong_answers(device):
    A = sp.csr_matrix(np.eye(4) + np.eye(4, k=1))
    d = pyclmatch.dulmage_mendelsohn(A, device=device)
    import copy
    bad = copy.deepcopy(d)
    bad.q = bad.q[::-1].copy()
    bad.p = bad.p[::-1].copy()
    with pytest.raises(pyclmatch.VerificationError, match="below the block diagonal"):
        bad.verify(A)
    bad = copy.deepcopy(d)
    bad.r = np.array([0, 2, 4], np.int32)
    bad.s = np.array([0, 2, 4], np.int32)
    with pytest.raises(pyclmatch.VerificationError, match="irreducible"):
        bad.verify(A)


def test_block_triangular_form_and_structural_rank(device):
    A = sp.csr_matrix(np.eye(6) + np.eye(6, k=2))
    p, q, blocks = pyclmatch.block_triangular_form(A, device=device)
    assert blocks[0] == 0 and blocks[-1] == 6 and len(blocks) == 7
    B = A[p][:, q].toarray()
    assert np.all(np.diag(B) != 0) and not np.tril(B, -1).any()
    from scipy.sparse.csgraph import structural_rank as scipy_rank
    for M in (A, sp.random(30, 20, 0.08, random_state=1, format="csr"), sp.csr_matrix((3, 5))):
        assert pyclmatch.structural_rank(M, device=device) == scipy_rank(sp.csr_matrix(M))


# ----------------------------------------------------------------- SCC paths (issue 17)
def _perm(A, seed):
    """``A`` with rows and columns relabelled by one random permutation (same structure, ids
    that no sweep order follows)."""
    rng = np.random.default_rng(seed)
    p = rng.permutation(A.shape[0])
    return sp.csr_matrix(A)[p][:, p]


def _cycle(n, k=1):
    """Diagonal plus the cycle i -> i + k (mod n): one irreducible block."""
    i = np.arange(n)
    return sp.csr_matrix((np.ones(2 * n), (np.r_[i, i], np.r_[i, (i + k) % n])), shape=(n, n))


def _cycles_and_chains(seed):
    """Cycles of several lengths linked by long chains in both directions, and a tail of
    singletons: many blocks, long paths between them."""
    rng = np.random.default_rng(seed)
    blocks, off, rows, cols = [], 0, [], []
    for size in [400, 1, 1, 37, 2, 1, 150, 3] + [1] * 60:
        i = np.arange(off, off + size)
        rows += list(i) + list(i)
        cols += list(i) + list(np.roll(i, -1))
        blocks.append(i)
        off += size
    for a, b in zip(blocks[:-1], blocks[1:]):        # a chain of blocks, then jumps back up
        rows.append(int(rng.choice(a)))
        cols.append(int(rng.choice(b)))
    for _ in range(20):
        a, b = sorted(rng.choice(len(blocks), 2, replace=False))
        rows.append(int(rng.choice(blocks[a])))
        cols.append(int(rng.choice(blocks[b])))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(off, off))


@pytest.fixture(params=["fwbw", "gpu-style", "coloring"])
def scc_path(request, monkeypatch):
    """The SCC paths: the default (lists that fit ONE_GROUP_MAX go to scc_small, all rounds
    in one work-group; longer ones, as grid(100)'s, first to the FW-BW step and grid rounds);
    the launch shapes of long lists on GPUs throughout (queue searches one level a launch over
    many work-groups, four sweeps a tile); colouring from the first round with one sweep a
    launch over many work-groups."""
    from pyclmatch.bipartite import dmperm
    if request.param != "fwbw":
        monkeypatch.setattr(dmperm, "ONE_GROUP_MAX", {"cpu": 0, "gpu": 0})
    if request.param == "gpu-style":
        monkeypatch.setattr(dmperm, "CPU_SEARCH_LEVELS", 0)
        monkeypatch.setattr(dmperm, "SWEEPS", {"cpu": 4, "gpu": 4})
    if request.param == "coloring":
        monkeypatch.setattr(dmperm, "FWBW_MIN", 1 << 40)
        monkeypatch.setattr(dmperm, "SWEEPS", {"cpu": 1, "gpu": 1})
    return request.param


def test_long_chains_need_many_passes(device, scc_path):
    n = 1500
    for A in (sp.csr_matrix(sp.eye(n) + sp.eye(n, k=1)),
              sp.csr_matrix(sp.eye(n) + sp.eye(n, k=-1)), _perm(sp.eye(n) + sp.eye(n, k=1), 1)):
        d = check(A, device)
        assert d.nblocks == n and d.counters["block_levels"] == n


def test_long_cycles(device, scc_path):
    for A in (_cycle(2000), _perm(_cycle(2000, 7), 2), _perm(_cycle(1000) + _cycle(1000, 3), 3)):
        d = check(A, device)
        assert d.nblocks == 1


def test_cycles_linked_by_chains(device, scc_path):
    for seed in (4, 5):
        A = _cycles_and_chains(seed)
        check(A, device)
        check(_perm(A, seed), device)


def test_grids(device, scc_path):
    from pyclmatch import generators
    # grid(100): lists longer than ONE_GROUP_MAX in the first rounds, shorter later
    for A in (generators.grid(40), generators.permuted(generators.grid(33)),
              generators.grid(100)):
        check(A, device)


@settings(max_examples=15, deadline=None)
@given(sparse_patterns())
def test_random_many_work_group_shapes(device, A):
    """Random patterns with the launch shapes of long lists (grid launches with the flag
    cleared only by a launch that changed nothing, one BFS level a launch with the frontier
    hand-off, four sweeps a tile), against the reference."""
    from pyclmatch.bipartite import dmperm
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dmperm, "ONE_GROUP_MAX", {"cpu": 0, "gpu": 0})
        mp.setattr(dmperm, "CPU_SEARCH_LEVELS", 0)
        mp.setattr(dmperm, "SWEEPS", {"cpu": 4, "gpu": 4})
        check(A, device)


@pytest.mark.slow
def test_medium_suite_against_reference(device, scc_path):
    """The medium suite (131072-262144 vertices) on every SCC path, as the host reference."""
    from pyclmatch import generators
    for _, A in generators.suite(size="medium"):
        check(A, device)


@settings(max_examples=25, deadline=None)
@given(sparse_patterns())
def test_host_decomposition_against_reference(device, A):
    d = check(A, device, algorithm="host-hk")
    assert d.device == "host" and d.algorithm == "host-hk" and d.verified
    assert d.counters == {"launches": 0}
    dev = pyclmatch.dulmage_mendelsohn(A, device=device, algorithm="apfb")
    assert d.coarse_sizes() == dev.coarse_sizes() and d.nblocks == dev.nblocks


def test_auto_decomposes_small_graphs_on_the_host(device, monkeypatch, tmp_path):
    """``auto`` answers on the host the graphs maximum_matching's auto sends there (the
    profile's host_edges), on the device above it, and ``verify=False`` skips the check."""
    from pyclmatch.engine import tuning
    monkeypatch.setenv("PYCLMATCH_TUNING", str(tmp_path / "tuning.json"))
    A = sp.csr_matrix(pyclmatch.generators.grid(12))
    tuning.store(device, "auto", {"host_edges": A.nnz, "race_edges": 0})
    d = check(A, device)
    assert d.device == "host" and d.algorithm == "host-hk" and d.timings["verify"] >= 0
    assert not pyclmatch.dulmage_mendelsohn(A, device=device, verify=False).verified
    tuning.store(device, "auto", {"host_edges": A.nnz - 1, "race_edges": 0})
    d = check(A, device)
    assert d.device != "host" and d.algorithm != "host-hk"


@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (0, 4), (5, 4)])
def test_host_decomposition_without_entries(device, shape):
    d = pyclmatch.dulmage_mendelsohn(sp.csr_matrix(shape), device=device, algorithm="host-hk")
    assert d.structural_rank == 0 and d.cc.tolist() == [0] + [shape[1]] * 4
    assert d.p.tolist() == list(range(shape[0])) and d.q.tolist() == list(range(shape[1]))
