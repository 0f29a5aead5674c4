"""The 64-bit edge-offset path (``offset_t`` = long, taken above 2**31-1 stored entries) forced
on small graphs by ``PYCLMATCH_FORCE_OFFSET64`` for every family that has one: maximum
matching (every registered algorithm, with and without the heavy tier, the device intake's
transpose and canonical repair), the Suitor family (every Suitor variant, LD, b-Suitor, in
both weight precisions, with the device intake's diagonal removal and reverse edges) and stable
marriage (McVitie-Wilson with the hash table of long lists, Gale-Shapley). The answers must
equal the 32-bit path's and the sequential references, verified on the device. (Louvain is
32-bit only and refuses larger graphs by name.)"""
import os

import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch.bipartite.registry import algorithms
from pyclmatch.engine.devices import DeviceHandle
from pyclmatch.engine.graphs import FORCE_OFFSET64_ENV, index_types
from pyclmatch.weighted import (ALGORITHMS, b_matching, greedy_b_matching,
                                greedy_matching_sequential, weighted_matching)

DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")


@pytest.fixture
def offsets(monkeypatch):
    """Run the body with 64-bit offsets forced; yields the set of offset types the kernels
    were specialized with (every kernel built through the engine), to check the path was
    taken."""
    seen = set()
    orig = DeviceHandle.kernel

    def spy(self, template, name, **values):
        if "offset_t" in values:
            seen.add(values["offset_t"])
        return orig(self, template, name, **values)

    monkeypatch.setattr(DeviceHandle, "kernel", spy)
    monkeypatch.setenv(FORCE_OFFSET64_ENV, "1")
    yield seen
    monkeypatch.delenv(FORCE_OFFSET64_ENV)


def test_switch():
    assert index_types(10)[0] == ("int", "int")
    os.environ[FORCE_OFFSET64_ENV] = "1"
    try:
        assert index_types(10) == (("int", "long"), (np.int32, np.int64))
    finally:
        del os.environ[FORCE_OFFSET64_ENV]
    assert index_types(2 ** 31)[0] == ("int", "long")


def _bipartite_cases():
    rng = np.random.default_rng(5)
    A = sp.random(120, 90, density=0.04, random_state=rng, format="csr")
    B = sp.random(60, 60, density=0.1, random_state=rng, format="csc")
    # a hub row and column (heavy tier) and an unsorted CSR with repeats (device repair)
    H = sp.lil_matrix((80, 80))
    H[0, :] = 1
    H[:, 3] = 1
    H[np.arange(80), (np.arange(80) * 7) % 80] = 1
    r, c = rng.integers(0, 50, 300), rng.integers(0, 40, 300)
    U = sp.csr_matrix((np.ones(300), c, np.r_[np.searchsorted(np.sort(r), np.arange(50)), 300]),
                      shape=(50, 40))
    U.indices = c[np.argsort(r, kind="stable")]        # unsorted lists with repeats
    return {"random": A, "csc": B, "hubs": H.tocsr(), "unsorted": U}


@pytest.mark.parametrize("case", ["random", "csc", "hubs", "unsorted"])
def test_maximum_matching(case, offsets):
    A = _bipartite_cases()[case]
    want = sp.csgraph.maximum_bipartite_matching(
        sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        if A.format == "csr" else A.tocsr(), perm_type="column")
    card = int((want >= 0).sum())
    names = algorithms() if case in ("random", "hubs") else ["auto"]
    for name in names:
        kw = {"heavy_degree": 8} if case == "hubs" and "pf" not in name else {}
        for verify in (True, "host"):
            res = pyclmatch.maximum_matching(A, algorithm=name, device=DEV, verify=verify, **kw)
            assert res.cardinality == card, name
    assert offsets == {"long"}


def _sym(n, density, seed, diagonal=True):
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=rng, format="csr")
    A.data = np.round(A.data * 8) + 1 + rng.integers(0, 4, A.nnz) * 2.0 ** -40
    S = (A + A.T).tocsr()
    if diagonal:
        S.setdiag(5.0)
    return S


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_suitor_family(precision, offsets):
    for seed in range(3):
        S = _sym(150, 0.04, seed, diagonal=seed != 1)
        ref = greedy_matching_sequential(S, precision=precision)
        for name in ALGORITHMS:
            res = weighted_matching(S, algorithm=name, device=DEV, precision=precision)
            assert np.array_equal(res.mate, ref), name
            assert res.weight == pytest.approx(
                weighted_matching(S, algorithm=name, device=DEV, precision=precision,
                                  verify="host").weight)
        g = pyclmatch.prepare_graph(S)          # the host graph's upload (int32 -> int64 ptr)
        assert np.array_equal(weighted_matching(g, device=DEV, precision=precision).mate, ref)
        for b in (1, 3):
            want = set(map(tuple, greedy_b_matching(S, b, precision=precision).tolist()))
            for G in (S, g):
                res = b_matching(G, b, device=DEV, precision=precision)
                assert set(map(tuple, res.edges.tolist())) == want
    assert offsets == {"long"}


def test_stable_marriage(offsets):
    from pyclmatch.weighted.marriage import MARRIAGE_SHORT
    rng = np.random.default_rng(3)
    n = 3 * MARRIAGE_SHORT          # complete lists: every men's list is long (hash table)
    men = [list(rng.permutation(n)) for _ in range(n)]
    women = [list(rng.permutation(n)) for _ in range(n)]
    small = pyclmatch.easy_instance(500)
    for inst in ((men, women), small):
        out = []
        for name in ("mcvitie-wilson", "gale-shapley"):
            args = inst if isinstance(inst, tuple) else (inst,)
            res = pyclmatch.stable_marriage(*args, algorithm=name, device=DEV)
            out.append(res.wife)
        assert np.array_equal(out[0], out[1])
    assert offsets == {"long"}


def test_huge_edges_benchmark_tiny(tmp_path, monkeypatch):
    """benchmarks/huge_edges.py at a tiny scale with 64-bit offsets forced (the path its H100
    run takes above 2**31 entries): its graphs are canonical (sorted rows, no repeats; the
    weighted one symmetric) and every call is verified and recorded."""
    import importlib.util
    import json
    path = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "huge_edges.py")
    spec = importlib.util.spec_from_file_location("huge_edges", path)
    he = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(he)
    S = he.circulant_weighted(1 << 10, 9, 3, 2)
    B = he.uniform_bipartite(1 << 10, 17, 3, 2)
    for M in (S, B):
        C = M.copy()
        C.sum_duplicates()
        C.sort_indices()
        assert C.nnz == M.nnz and np.array_equal(C.indices, M.indices)
    assert abs(S - S.T).max() == 0 and S.diagonal().max() == 0 and S.data.min() > 0
    monkeypatch.setenv(FORCE_OFFSET64_ENV, "")        # (restored after the test)
    he.main(["--device", DEV, "--scale", "10", "--force-offset64", "--out", str(tmp_path)])
    out = json.load(open(tmp_path / "results.json"))
    assert out["meta"]["offset_t"] == "long"
    assert [r["call"] for r in out["rows"]] == [
        "maximum_matching", "weighted_matching [float64]", "weighted_matching [float32]"]
    assert (tmp_path / "results.md").exists()
