"""pyclmatch.hostpar: the parallel generator blocks give numpy's / scipy's exact results, for
any number of threads (no OpenCL needed)."""
import numpy as np
import pytest
import scipy.sparse as sp

from pyclmatch import generators as gen
from pyclmatch import hostpar
from pyclmatch.weighted.marriage import easy_instance
from test_generators import DIGESTS, matrix_digest
from test_stable_marriage import EASY_DIGESTS, instance_digest


@pytest.fixture(params=[1, 3, 8])
def threads(request, monkeypatch):
    """Pretend to run on `param` CPUs, with small random chunks (more task boundaries)."""
    monkeypatch.setattr(hostpar, "workers", lambda: request.param)
    monkeypatch.setattr(hostpar, "_CHUNK64", 777)
    return request.param


@pytest.mark.parametrize("slack", [64, -5000])
def test_stream_replays_numpy(threads, slack, monkeypatch):
    monkeypatch.setattr(hostpar.Stream, "_slack", slack)    # -5000: several rounds of draws
    calls = np.random.default_rng(11)
    for seed in range(12):
        g, s = np.random.default_rng(seed), hostpar.Stream(seed)
        for _ in range(6):
            size = int(calls.choice([0, 1, 2, 3, 1001, 4000, 70001]))
            if calls.random() < 0.3:
                assert np.array_equal(g.random(size), s.random(size))
                continue
            high = int(calls.choice([1, 2, 3, 1000, 25_000_000, 2**31 - 1, 3 * 2**30 + 7,
                                     2**32 - 1]))
            dt = np.int32 if high < 2**31 and calls.random() < 0.5 else np.int64
            a, b = g.integers(0, high, size, dtype=dt), s.integers(high, size, dt)
            assert a.dtype == b.dtype and np.array_equal(a, b)
        r = s.generator()          # continues where the stream stands (buffered half included)
        assert np.array_equal(g.integers(0, 99, 5), r.integers(0, 99, 5))
        assert np.array_equal(g.permutation(40), r.permutation(40))


def test_group_by_key_is_scipys_transpose(threads):
    rng = np.random.default_rng(2)
    for n, L in [(1, 4), (3, 0), (7, 50), (70_000, 300_000)]:
        keys = rng.integers(0, n, L, dtype=np.int32)
        vals = rng.integers(-5, 5, L).astype(np.int64)
        ptr, grouped = hostpar.group_by_key(keys, n, vals)
        T = sp.csr_matrix((vals, keys, np.array([0, L])), shape=(1, n)).tocsc()
        assert np.array_equal(ptr, T.indptr) and np.array_equal(grouped, T.data)


def test_pattern_and_permutation_are_scipys(threads):
    rng = np.random.default_rng(3)
    for shape, m in [((1, 1), 0), ((5, 3), 40), ((2000, 70_000), 300_000)]:
        r, c = rng.integers(0, shape[0], m), rng.integers(0, shape[1], m)
        B = sp.csr_matrix((np.ones(m, np.int8), (r, c)), shape=shape)
        B.sum_duplicates()
        B.data[:] = 1
        A = hostpar.pattern_csr(r, c, shape)
        for x in ("indptr", "indices", "data"):
            assert getattr(A, x).dtype == getattr(B, x).dtype
            assert np.array_equal(getattr(A, x), getattr(B, x))
        pr, pc = rng.permutation(shape[0]), rng.permutation(shape[1])
        W = sp.csr_array((rng.random(m), (r, c)), shape=shape)      # float data, array class
        P, Q = W[pr][:, pc].tocsr(), hostpar.permute_csr(W, pr, pc)
        assert type(P) is type(Q)
        for x in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(P, x), getattr(Q, x))
        P.sort_indices()           # sort=True: every block's rows sorted where gathered
        S = hostpar.permute_csr(W, pr, pc, sort=True)
        assert type(S) is type(P) and S.has_canonical_format
        for x in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(P, x), getattr(S, x))
    C = gen.uniform(300, 3).tocsc()                   # other formats: scipy's indexing
    assert (gen.permuted(C) != gen.permuted(C.tocsr())).nnz == 0


def test_outputs_do_not_depend_on_the_thread_count(threads):
    for name in ("uniform-4K-d4", "kron-10", "grid-64"):
        A = gen.SMALL_SUITE[name]()
        assert (matrix_digest(A), matrix_digest(gen.permuted(A))) == DIGESTS[name]
    assert instance_digest(easy_instance(65537, 1)) == EASY_DIGESTS[65537, 1]
    assert instance_digest(easy_instance(7, 3)) == EASY_DIGESTS[7, 3]
