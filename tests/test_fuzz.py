"""The bad-input corpus: files under tests/data/bad/ (listed in CASES.tsv with the call that
must refuse them) and in-memory cases below. Every case gets a clear error (InputError,
DeviceMemoryError or HostMemoryError, whose message names the problem) within a few seconds,
and the caller's arrays are unchanged afterwards."""
import csv
import os
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st
import scipy.sparse as sp

import pyclmatch
from pyclmatch import DeviceMemoryError, HostMemoryError, InputError
from pyclmatch.engine import limits

BAD = os.path.join(os.path.dirname(__file__), "data", "bad")
SECONDS = 5.0
ERRORS = {"InputError": InputError, "HostMemoryError": HostMemoryError,
          "DeviceMemoryError": DeviceMemoryError}


@pytest.fixture(autouse=True)
def host_8gib(monkeypatch):
    """A host with 8 GiB available, whatever the test machine has."""
    monkeypatch.setattr(limits, "host_available", lambda: 8 << 30)


def _corpus():
    with open(os.path.join(BAD, "CASES.tsv")) as f:
        return [tuple(r) for r in csv.reader(f, delimiter="\t")][1:]


def test_corpus_lists_every_file():
    listed = {r[0] for r in _corpus()}
    present = {f for f in os.listdir(BAD) if os.path.isfile(os.path.join(BAD, f))} - {"CASES.tsv"}
    assert listed == present


def _call(name, A, device):
    if name == "read_graph":
        return A
    if name == "b_matching":
        return pyclmatch.b_matching(A, 2, device=device)
    return getattr(pyclmatch, name)(A, device=device)


@pytest.mark.parametrize("file,call,error,words", _corpus(),
                         ids=[f"{r[0]}-{r[1]}" for r in _corpus()])
def test_bad_file(device, file, call, error, words):
    path = os.path.join(BAD, file)
    t0 = time.perf_counter()
    with pytest.raises(ERRORS[error]) as ei:
        _call(call, pyclmatch.read_graph(path), device)
    assert time.perf_counter() - t0 < SECONDS
    assert words in str(ei.value)


# -- in-memory cases: (call, builder of the arguments, message) --------------------------------

def _raw_csr(indptr, indices, n=3, m=None, data=None):
    """A CSR over the given arrays as scipy holds them (scipy checks only the lengths)."""
    indices = np.asarray(indices)
    data = np.ones(indices.size) if data is None else np.asarray(data)
    return sp.csr_matrix((data, indices, np.asarray(indptr)), shape=(n, m or n))


def _bad_indptr_end():
    A = sp.csr_matrix(np.eye(3))
    A.indptr[-1] = 7                      # past the entries (set after scipy's check)
    return A


def _sym(data):
    return _raw_csr([0, 1, 2, 2], [1, 0], data=data)


def _directed_nx():
    import networkx as nx
    return nx.DiGraph([(0, 1)])


ALL = ("maximum_matching", "weighted_matching", "b_matching", "louvain")
SYM = ("weighted_matching", "b_matching", "louvain")

MEMORY = [
    (ALL, "index out of range", lambda: _raw_csr([0, 1, 2, 2], [1, 7]), "range"),
    (ALL, "negative index", lambda: _raw_csr([0, 1, 2, 2], [1, -1]), ""),
    (ALL, "int64 index past 2**31", lambda: _raw_csr([0, 1, 2, 2],
                                                      np.array([1, 2 ** 33], np.int64)), ""),
    (ALL, "decreasing indptr", lambda: _raw_csr([0, 2, 1, 2], [1, 0]), ""),
    (ALL, "indptr end past the entries", _bad_indptr_end, ""),
    (SYM, "NaN weight", lambda: _sym([np.nan, np.nan]), "NaN"),
    (SYM, "infinite weight", lambda: _sym([np.inf, np.inf]), "infinite"),
    (("weighted_matching", "louvain"), "negative weight", lambda: _sym([-1.0, -1.0]),
     "negative"),
    (SYM, "complex weight", lambda: _sym(np.array([1 + 1j, 1 + 1j])), "complex"),
    (SYM, "asymmetric", lambda: _raw_csr([0, 1, 1, 1], [1]), "symmetric"),
    (SYM, "rectangular", lambda: sp.csr_matrix(np.ones((2, 3))), "square"),
    (ALL, "3-D array", lambda: np.ones((2, 2, 2)), ""),
    (ALL, "strings", lambda: np.array([["a", "b"], ["c", "d"]]), ""),
    (ALL, "object array", lambda: np.array([[None, 1], [1, None]], dtype=object), ""),
    (("maximum_matching",), "edge arrays of different lengths",
     lambda: (np.array([0, 1]), np.array([0])), "length"),
    (("maximum_matching",), "fractional ids", lambda: (np.array([0.5]), np.array([0])), ""),
    (("maximum_matching",), "NaN ids", lambda: (np.array([np.nan]), np.array([0])), "NaN"),
    (("maximum_matching",), "negative ids", lambda: (np.array([-2]), np.array([0])),
     "negative"),
    (("maximum_matching",), "negative shape",
     lambda: (np.array([0]), np.array([0]), (-1, 3)), "shape"),
    (("maximum_matching",), "shape of three", lambda: (np.array([0]), np.array([0]),
                                                       (1, 2, 3)), "shape"),
    (("weighted_matching",), "edge arrays with n below an id",
     lambda: (np.array([0]), np.array([5]), np.array([1.0]), 3), "range"),
    (("louvain",), "directed networkx graph", _directed_nx, "directed"),
]


def _arrays(x):
    """The caller's arrays inside an input (for the unchanged-afterwards check)."""
    if sp.issparse(x):
        return [getattr(x, k) for k in ("indptr", "indices", "data", "row", "col")
                if hasattr(x, k)]
    if isinstance(x, tuple):
        return [a for a in x if isinstance(a, np.ndarray)]
    return [x] if isinstance(x, np.ndarray) else []


def _same(a, b):
    if a.dtype == object:
        return a.shape == b.shape and all(x is y or x == y for x, y in zip(a.flat, b.flat))
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


@pytest.mark.parametrize("calls,what,build,words", MEMORY, ids=[c[1] for c in MEMORY])
def test_bad_in_memory(device, calls, what, build, words):
    for call in calls:
        x = build()
        before = [a.copy() for a in _arrays(x)]
        t0 = time.perf_counter()
        with pytest.raises((InputError, DeviceMemoryError)) as ei:
            _call(call, x, device)
        assert time.perf_counter() - t0 < SECONDS, (call, what)
        assert words.lower() in str(ei.value).lower(), (call, str(ei.value))
        after = _arrays(x)
        assert all(_same(a, b) for a, b in zip(before, after)), (call, what)


@pytest.mark.parametrize("b,words", [(-1, "non-negative"), (np.array([1, 2]), "length"),
                                     (np.array([0.5, 1, 1]), "integers"), ("two", "")])
def test_bad_b(device, b, words):
    A = _sym([1.0, 1.0])
    keep = b.copy() if isinstance(b, np.ndarray) else b
    with pytest.raises(InputError, match=words or None):
        pyclmatch.b_matching(A, b, device=device)
    if isinstance(b, np.ndarray):
        assert np.array_equal(b, keep)


@pytest.mark.parametrize("kwargs", [{"resolution": -1.0}, {"resolution": float("nan")},
                                    {"max_level": 0}, {"moves": "sideways"}])
def test_bad_louvain_parameters(device, kwargs):
    with pytest.raises(InputError):
        pyclmatch.louvain(_sym([1.0, 1.0]), device=device, **kwargs)


@pytest.mark.parametrize("men,women,words", [
    ([[0, 0]], [[0]], ""),                       # a repeated entry
    ([[3]], [[0]], ""),                          # a woman out of range
    ([[0]], [[]], ""),                           # m lists w but w does not list m
    ((np.array([0, 2]), np.array([0, 1])), [[0]], ""),   # CSR list past the women
    ((np.array([0, 5]), np.array([0])), [[0]], "indptr"),
])
def test_bad_marriage(device, men, women, words):
    arrays = [a for p in (men, women) if isinstance(p, tuple) for a in p]
    before = [a.copy() for a in arrays]
    with pytest.raises(InputError, match=words or None):
        pyclmatch.stable_marriage(men, women, device=device)
    assert all(np.array_equal(a, b) for a, b in zip(arrays, before))


# -- random compressed arrays: an answer exactly when the arrays are valid ---------------------

def _valid(indptr, indices, n):
    """scipy's view: the entries are indices[:indptr[-1]] (storage past it is ignored)."""
    p = np.asarray(indptr)
    i = np.asarray(indices)[:max(p[-1], 0)]
    return bool(p[0] == 0 and 0 <= p[-1] <= len(indices) and np.all(np.diff(p) >= 0)
                and np.all((i >= 0) & (i < n)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_compressed_arrays(device, data):
    """Random (often invalid) indptr/indices (int32 or int64, CSR or CSC): every family raises
    InputError exactly when the arrays are not a valid compressed matrix of the shape (or, for the symmetric families, not symmetric),
    otherwise answers; the arrays are never modified."""
    n = data.draw(st.integers(1, 5), "n")
    nnz = data.draw(st.integers(0, 8), "nnz")
    wide = data.draw(st.booleans(), "int64 indices")
    ids = st.integers(-2, n + 1)
    if wide:
        ids = ids | st.sampled_from([2 ** 31, 2 ** 32 + 1, -2 ** 33])
    indices = np.array(data.draw(st.lists(ids, min_size=nnz, max_size=nnz), "indices"),
                       np.int64 if wide else np.int32)
    fmt = data.draw(st.sampled_from([sp.csr_matrix, sp.csc_matrix]), "format")
    if data.draw(st.booleans(), "plausible indptr"):
        cuts = sorted(data.draw(st.lists(st.integers(0, nnz), min_size=n - 1, max_size=n - 1)))
        indptr = np.array([0, *cuts, nnz], np.int32)
    else:
        indptr = np.array(data.draw(st.lists(st.integers(-1, nnz + 1), min_size=n + 1,
                                             max_size=n + 1), "indptr"), np.int32)
    try:
        A = fmt((np.ones(nnz), indices, indptr), shape=(n, n))
    except (ValueError, OverflowError):
        assume(False)                        # (scipy refuses these itself)
    keep = (A.indptr.copy(), A.indices.copy(), A.data.copy())
    valid = _valid(indptr, indices, n)
    symmetric = False
    if valid:
        e = int(indptr[-1])
        B = fmt((np.ones(e), indices[:e].copy(), indptr.copy()), shape=(n, n))
        B.sum_duplicates()
        symmetric = (abs(B - B.T)).nnz == 0
    calls = [  # (name, call, whether it must answer)
        ("maximum_matching", lambda: pyclmatch.maximum_matching(A, device=device), valid),
        ("maximum_matching host", lambda: pyclmatch.maximum_matching(
            A, device=device, verify="host"), valid),
        ("weighted_matching", lambda: pyclmatch.weighted_matching(A, device=device),
         valid and symmetric),
        ("weighted_matching symmetrize", lambda: pyclmatch.weighted_matching(
            A, device=device, symmetrize=True), valid),
        ("b_matching", lambda: pyclmatch.b_matching(A, 2, device=device), valid and symmetric),
        ("prepare_graph", lambda: pyclmatch.prepare_graph(A), valid and symmetric),
        ("louvain", lambda: pyclmatch.louvain(A, device=device), valid and symmetric),
        ("louvain seed", lambda: pyclmatch.louvain(A, device=device, seed=1),
         valid and symmetric),
    ]
    for name, call, ok in calls:
        if ok:
            call()
        else:
            with pytest.raises(InputError):
                call()
        assert all(np.array_equal(a, b) for a, b in zip(keep, (A.indptr, A.indices, A.data))), \
            name
