"""pyclmatch.generators must reproduce shared/tools/graphgen.py exactly (no OpenCL needed)."""
import hashlib
import importlib.util
import time
import types
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from pyclmatch import generators as gen
from pyclmatch.errors import InputError

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GRAPHGEN = SHARED / "tools" / "graphgen.py"


@pytest.fixture(scope="module")
def ref():
    if not GRAPHGEN.is_file():
        pytest.skip(f"{GRAPHGEN} is absent")
    spec = importlib.util.spec_from_file_location("_graphgen_reference", GRAPHGEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def assert_identical(A, B):
    assert isinstance(A, sp.csr_matrix) and isinstance(B, sp.csr_matrix)
    assert A.shape == B.shape
    assert A.dtype == B.dtype
    np.testing.assert_array_equal(A.indptr, B.indptr)
    np.testing.assert_array_equal(A.indices, B.indices)
    np.testing.assert_array_equal(A.data, B.data)


CASES = [
    ("uniform", (1 << 10, 4), {}),
    ("uniform", (1000, 3), {"seed": 5}),
    ("kron", (8,), {}),
    ("kron", (7,), {"edgefactor": 8, "seed": 3}),
    ("delaunay", (8,), {}),
    ("delaunay", (7,), {"seed": 2}),
    ("grid", (32,), {}),
    ("grid", (20,), {"keep": 0.5, "seed": 9}),
]


@pytest.mark.parametrize("fn,args,kw", CASES, ids=[f"{c[0]}{c[1]}{c[2] or ''}" for c in CASES])
def test_family_matches_reference(ref, fn, args, kw):
    A = getattr(gen, fn)(*args, **kw)
    B = getattr(ref, fn)(*args, **kw)
    assert_identical(A, B)
    assert_identical(gen.permuted(A), ref.permuted(B))
    assert_identical(gen.permuted(A, seed=7), ref.permuted(B, seed=7))


def test_suite_table_is_the_reference_table(ref):
    assert list(gen.SUITE) == list(ref.SUITE)
    for name, f in gen.SUITE.items():
        g = ref.SUITE[name]
        # same call with the same constants (compared without building the big graphs)
        assert f.__code__.co_code == g.__code__.co_code, name
        assert f.__code__.co_consts == g.__code__.co_consts, name
        assert f.__code__.co_names == g.__code__.co_names, name


def test_small_suite_matches_reference(ref):
    for name, f in gen.SMALL_SUITE.items():
        # the same lambda evaluated against the reference module's functions
        expected = types.FunctionType(f.__code__, vars(ref))()
        assert_identical(f(), expected)


def test_small_suite_families_and_speed():
    fams = {n.split("-")[0] for n in gen.SMALL_SUITE}
    assert fams == {n.split("-")[0] for n in gen.SUITE}
    for name, f in gen.SMALL_SUITE.items():
        t = time.perf_counter()
        A = f()
        assert time.perf_counter() - t < 1.0, name
        assert A.shape[0] == A.shape[1] >= 1000
        assert A.dtype == np.int8 and np.all(A.data == 1) and A.has_canonical_format


@pytest.mark.parametrize("name", ["kron-10", "delaunay-10", "grid-64"])
def test_symmetric_families(name):
    A = gen.SMALL_SUITE[name]()
    assert (A != A.T).nnz == 0
    assert A.diagonal().sum() == 0


def test_suite_generator():
    names = [n for n, _ in gen.suite(small=True)]
    assert names == list(gen.SMALL_SUITE)
    got = dict(gen.suite(["grid-64", "kron-10"], rcp="both", small=True))
    assert list(got) == ["grid-64", "grid-64-rcp", "kron-10", "kron-10-rcp"]
    assert_identical(got["grid-64-rcp"], gen.permuted(got["grid-64"]))
    only = list(gen.suite("delaunay-10", rcp=True, small=True))
    assert [n for n, _ in only] == ["delaunay-10-rcp"]
    assert_identical(only[0][1], gen.permuted(gen.delaunay(10)))
    with pytest.raises(InputError, match="unknown suite graph"):
        list(gen.suite(["nope"], small=True))
    with pytest.raises(InputError):
        list(gen.suite(rcp="sometimes", small=True))


def test_deterministic_and_seeded():
    assert_identical(gen.uniform(500, 4), gen.uniform(500, 4))
    assert (gen.uniform(500, 4, seed=1) != gen.uniform(500, 4)).nnz > 0
    A = gen.grid(10)
    P = gen.permuted(A)
    assert P.nnz == A.nnz and P.shape == A.shape


def matrix_digest(A):
    """sha256 (first 16 hex digits) of a CSR matrix's shape, indptr, indices and data."""
    h = hashlib.sha256()
    for a in (np.array(A.shape), A.indptr, A.indices, A.data):
        h.update(a.dtype.str.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


#: (graph, its permuted version) of the suites as first released: a faster generator must
#: give the same matrices (checked against the reference module too, where it is present)
DIGESTS = {
    "uniform-4K-d4": ("954a345162621a0e", "08188f550d5c7cf3"),
    "kron-10": ("ed1abd8f8b885ceb", "7f16e567a8c60ea1"),
    "delaunay-10": ("3d6150010a4d68b4", "0e162a095aa7ca56"),
    "grid-64": ("d48d845f2995cc64", "84914253e188dcf6"),
    "uniform-256K-d4": ("b4f1972b957f0d5d", "92b3a0bfe6e15197"),
    "kron-17": ("c77747fb5f83a24d", "c04cb053de9a51cf"),
    "delaunay-17": ("ae0aaf954e454162", "f5b79a213c3de53c"),
    "grid-512": ("3bd15d00bae55414", "d5995cb7769a9bba"),
}


@pytest.mark.parametrize("name", list(gen.SMALL_SUITE))
def test_small_suite_is_pinned(name):
    A = gen.SMALL_SUITE[name]()
    assert (matrix_digest(A), matrix_digest(gen.permuted(A))) == DIGESTS[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", list(gen.MEDIUM_SUITE))
def test_medium_suite_is_pinned(name):
    A = gen.MEDIUM_SUITE[name]()
    assert (matrix_digest(A), matrix_digest(gen.permuted(A))) == DIGESTS[name]
