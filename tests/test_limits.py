"""Declared sizes are checked before anything is allocated: each case below is refused (or
answered, when it fits) in well under a second, with an error naming the sizes, and the
process does not grow with the declared size (numpy's allocations, traced)."""
import time
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch import DeviceMemoryError, HostMemoryError, InputError
from pyclmatch.engine import limits

N = 2 ** 31 - 1
BIG = "2,147,483,647"


@pytest.fixture
def host_8gib(monkeypatch):
    """A host with 8 GiB available (the refusals do not depend on the test machine)."""
    monkeypatch.setattr(limits, "host_available", lambda: 8 << 30)


def _huge_coo(sym=False):
    """One edge in a 2**31-1 x 2**31-1 matrix, held as COO (a few bytes)."""
    r, c = (np.array([0, 1]), np.array([1, 0])) if sym else (np.array([0]), np.array([1]))
    return sp.coo_matrix((np.ones(r.size), (r, c)), shape=(N, N))


def _refused(fn, error, *words):
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(error) as ei:
            fn()
    finally:
        seconds = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert seconds < 1.0, seconds
    assert peak < 64 << 20, peak
    for w in words:
        assert w in str(ei.value), (w, str(ei.value))
    return ei.value


CASES = {
    "matching, empty 2**31-1 square": (
        lambda d, empty: pyclmatch.maximum_matching(empty, device=d),
        HostMemoryError, BIG, "host memory", "row matching"),
    "matching, one edge (COO)": (
        lambda d, _: pyclmatch.maximum_matching(_huge_coo(), device=d),
        DeviceMemoryError, BIG),     # (the device's limit, or the host's where the device fits)
    "matching, edge arrays with shape": (
        lambda d, _: pyclmatch.maximum_matching((np.array([0]), np.array([1])), shape=(N, N),
                                             device=d),
        DeviceMemoryError, BIG),
    "weighted, empty": (
        lambda d, empty: pyclmatch.weighted_matching(empty, device=d),
        HostMemoryError, BIG, "mates"),
    "weighted, one edge (COO)": (
        lambda d, _: pyclmatch.weighted_matching(_huge_coo(sym=True), device=d),
        DeviceMemoryError, BIG),
    "weighted, edge arrays with n": (
        lambda d, _: pyclmatch.weighted_matching((np.array([0]), np.array([1]), np.array([1.0]),
                                               N), device=d),
        DeviceMemoryError, BIG),
    "b-matching, one edge (COO)": (
        lambda d, _: pyclmatch.b_matching(_huge_coo(sym=True), 2, device=d),
        DeviceMemoryError, BIG),
    "prepare_graph, one edge (COO)": (
        lambda d, _: pyclmatch.prepare_graph(_huge_coo(sym=True)),
        HostMemoryError, BIG, "host graph"),
    "louvain, empty": (
        lambda d, empty: pyclmatch.louvain(empty, device=d),
        HostMemoryError, BIG, "membership"),
    "louvain, one edge (COO)": (
        lambda d, _: pyclmatch.louvain(_huge_coo(sym=True), device=d),
        DeviceMemoryError, BIG),
}


@pytest.mark.parametrize("case", list(CASES))
def test_declared_size_refused_at_once(device, host_8gib, case):
    fn, error, *words = CASES[case]
    empty = sp.csr_matrix((N, N))          # (the caller's: a 2**31 indptr of calloc'd zeros)
    _refused(lambda: fn(device, empty), error, *words)


def test_empty_graph_that_fits_is_answered(device):
    """An empty graph with a large shape is answered: its results are the only arrays."""
    n = 3_000_000
    t0 = time.perf_counter()
    res = pyclmatch.maximum_matching(sp.csr_matrix((n, n + 1)), device=device)
    assert time.perf_counter() - t0 < 1.0
    assert res.row_match.shape == (n,) and res.col_match.shape == (n + 1,)
    assert res.cardinality == 0 and (res.row_match == -1).all()


def test_device_limits_name_the_buffer(device, monkeypatch):
    """A graph that fits the host but not the device's largest allocation or its memory."""
    A = sp.coo_matrix((np.ones(1), ([0], [1])), shape=(10 ** 8, 10 ** 8))
    monkeypatch.setattr(device, "max_alloc", 1 << 28)
    err = _refused(lambda: pyclmatch.maximum_matching(A, device=device), DeviceMemoryError,
                   "100,000,000 x 100,000,000", "max allocation", "CL_DEVICE_MAX_MEM_ALLOC_SIZE")
    assert device.name in str(err)
    monkeypatch.setattr(device, "max_alloc", 1 << 40)
    monkeypatch.setattr(device, "global_mem", 1 << 30)
    _refused(lambda: pyclmatch.maximum_matching(A, device=device), DeviceMemoryError,
             "device memory", "CL_DEVICE_GLOBAL_MEM_SIZE")


MTX = "%%MatrixMarket matrix coordinate real general\n"


@pytest.mark.parametrize("text,error,words", [
    (MTX + "1000000000000 5 1\n1 1 1.0\n", InputError, ["1,000,000,000,000 rows", "int32"]),
    (MTX + "5 1000000000000 1\n1 1 1.0\n", InputError, ["1,000,000,000,000 columns"]),
    # (more entries than positions is allowed: duplicates are summed; the bytes refuse it)
    (MTX + "5 5 1000000000000\n1 1 1.0\n", InputError, ["1,000,000,000,000 entries",
                                                      "truncated"]),
    (MTX + "2000000 2000000 1000000000000\n1 1 1.0\n", InputError,
     ["1,000,000,000,000 entries", "truncated"]),
    (MTX.replace("coordinate", "array") + "1000000 1000000\n1.0\n", InputError,
     ["1,000,000,000,000 values", "truncated"]),
    (MTX.replace("real", "pattern") + "2147483647 2147483647 1\n1 1\n", HostMemoryError,
     [BIG, "host memory", "CSR"]),
    (MTX + "5 5\n1 1 1.0\n", InputError, ["size line"]),
])
def test_matrix_market_header_refused_before_allocating(tmp_path, host_8gib, text, error,
                                                        words):
    p = tmp_path / "bad.mtx"
    p.write_text(text)
    _refused(lambda: pyclmatch.read_graph(p), error, *words)


def test_edge_list_with_huge_id_refused(tmp_path, host_8gib):
    p = tmp_path / "huge.txt"
    p.write_text("0 2147483646\n")
    _refused(lambda: pyclmatch.read_graph(p), HostMemoryError, BIG, "host memory")


def test_capacity_is_where_the_check_flips(device):
    """limits.capacity: the largest graph that passes the device check (README's table)."""
    n, m = limits.capacity(device, "maximum_matching", degree=8)
    assert 0 < n < N and m == 8 * n
    limits.check(device, "x", "", limits.bipartite_footprint(n, n, m)[0])
    with pytest.raises(DeviceMemoryError):
        limits.check(device, "x", "", limits.bipartite_footprint(n + 1, n + 1, m + 8)[0])


def test_decompression_bomb_refused(tmp_path, monkeypatch):
    """A small compressed file that decompresses past the host's budget is refused while it
    is being decompressed, not after."""
    import gzip
    p = tmp_path / "bomb.mtx.gz"
    p.write_bytes(gzip.compress(MTX.encode() + b"3 3 1\n" + b" " * (64 << 20), 9))
    monkeypatch.setattr(limits, "host_available", lambda: 64 << 20)
    err = _refused(lambda: pyclmatch.read_graph(p), HostMemoryError, "bomb.mtx.gz",
                   "decompressed")
    assert "compressed" in str(err)
