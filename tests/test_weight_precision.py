"""The Suitor family compares the user's weights in the user's precision: float64 weights that
tie in float32 give the greedy matching of the float64 weights (Suitor, every variant, LD,
b-Suitor), float32 stays available as an explicit option, the result says which precision was
used, and the device certificate compares in the same precision."""
import os

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

from pyclmatch import get_device
from pyclmatch.engine.scheduler import Scheduler
from pyclmatch.errors import InputError, VerificationError
from pyclmatch.weighted import (ALGORITHMS, b_matching, greedy_b_matching,
                                greedy_matching_sequential, prepare_graph, weighted_matching)
from pyclmatch.weighted.blocking import DeviceCertificate
from pyclmatch.weighted.graph import SparseInput
from pyclmatch.weighted.suitor import DeviceWeighted

DEV = os.environ.get("PYCLMATCH_TEST_DEVICE", "cpu")


def tied_graph(n, density, seed, levels=3):
    """A symmetric CSR whose float64 weights take a few float32 values only: each weight is
    one of ``levels`` base values plus a multiple of 2**-40 that float32 rounds away, so that
    float32 ties almost every pair of edges that float64 orders."""
    rng = np.random.default_rng(seed)
    A = sp.random(n, n, density=density, random_state=rng, format="coo")
    keep = A.row < A.col
    r, c = A.row[keep], A.col[keep]
    w = (1.0 + rng.integers(0, levels, r.size)) + rng.integers(1, 1 << 10, r.size) * 2.0 ** -40
    assert np.unique(w.astype(np.float32)).size <= levels
    return sp.csr_matrix((np.r_[w, w], (np.r_[r, c], np.r_[c, r])), shape=(n, n))


def _as_set(E):
    return set(map(tuple, np.asarray(E).reshape(-1, 2).tolist()))


graphs = st.builds(tied_graph, st.integers(2, 40), st.sampled_from([0.1, 0.3, 0.8]),
                   st.integers(0, 10 ** 6))


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(A=graphs)
def test_suitor_and_ld_are_greedy_on_float64_weights(A):
    ref64 = greedy_matching_sequential(A, precision="float64")
    for name in ALGORITHMS:
        res = weighted_matching(A, algorithm=name, device=DEV)
        assert res.precision == "float64" and res.counters["weights"] == "float64"
        assert np.array_equal(res.mate, ref64), name
    ref32 = greedy_matching_sequential(A, precision="float32")
    res = weighted_matching(A, device=DEV, precision="float32")
    assert res.precision == "float32" and res.counters["weights"] == "float32"
    assert np.array_equal(res.mate, ref32)
    # the host verification in the same precision passes as well
    weighted_matching(A, device=DEV, verify="host")


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(A=graphs, b=st.integers(1, 3))
def test_b_suitor_is_greedy_on_float64_weights(A, b):
    res = b_matching(A, b, device=DEV)
    assert res.precision == "float64" and res.counters["weights"] == "float64"
    assert _as_set(res.edges) == _as_set(greedy_b_matching(A, b, precision="float64"))
    res32 = b_matching(A, b, device=DEV, precision="float32")
    assert res32.precision == "float32"
    assert _as_set(res32.edges) == _as_set(greedy_b_matching(A, b, precision="float32"))
    b_matching(A, b, device=DEV, verify="host")


def test_float32_ties_change_the_answer():
    """The test graphs do separate the precisions: on some of them the greedy matching of the
    float32-rounded weights differs from the float64 one, and the float64 certificate (device
    and host) refuses the float32 answer."""
    differ = 0
    h = get_device(DEV)
    for seed in range(20):
        A = tied_graph(30, 0.3, seed)
        m64 = weighted_matching(A, device=DEV).mate
        m32 = weighted_matching(A, device=DEV, precision="float32").mate
        if np.array_equal(m64, m32):
            continue
        differ += 1
        sched = Scheduler(h)
        dg = DeviceWeighted.from_input(h, SparseInput(A, precision="float64"), sched)
        assert dg.wdt == np.float64
        pairs = int((m32 > np.arange(m32.size)).sum())
        with pytest.raises(VerificationError, match="blocks"):
            DeviceCertificate(h, dg).matching(h.to_device(m32), pairs, sched)
        from pyclmatch.weighted.reference import verify_weighted_matching
        with pytest.raises(VerificationError, match="blocks"):
            verify_weighted_matching(A, m32, precision="float64")
    assert differ >= 5


def test_prepared_graph_in_either_precision():
    A = tied_graph(40, 0.3, 7)
    g = prepare_graph(A)
    for p in ("float64", "float32"):
        res = weighted_matching(g, device=DEV, precision=p, keep_on_device=True)
        assert res.precision == p
        assert np.array_equal(res.mate, greedy_matching_sequential(A, precision=p))
        again = weighted_matching(g, device=DEV, precision=p, keep_on_device=True)
        assert np.array_equal(again.mate, res.mate)
        assert "upload" not in again.timings
        resb = b_matching(g, 2, device=DEV, precision=p)
        assert _as_set(resb.edges) == _as_set(greedy_b_matching(A, 2, precision=p))


def test_precision_of_input_dtypes():
    A = tied_graph(20, 0.3, 3)
    for dtype, want in ((np.float32, "float32"),
                        (np.int16, "float32"), (np.bool_, "float32"),
                        (np.int32, "float64"), (np.int64, "float64"), (np.float64, "float64")):
        B = A.copy()
        B.data = (B.data * 3).astype(dtype)
        assert weighted_matching(B, device=DEV).precision == want, dtype
        u, v = B.nonzero()
        assert weighted_matching((u, v, np.asarray(B[u, v]).ravel()),
                                 device=DEV).precision == want, dtype
    assert weighted_matching(A, device=DEV, precision=np.float32).precision == "float32"
    with pytest.raises(InputError, match="precision=.* is not allowed"):
        weighted_matching(A, device=DEV, precision="half")


def test_int64_weights_beyond_2_53():
    """64-bit integers that float64 cannot hold are refused under "auto" (one is above
    2**53 and odd), and compared rounded when a precision is given."""
    big = np.array([2 ** 53 + 1, 5, 7], np.int64)
    u, v = np.array([0, 1, 2]), np.array([1, 2, 3])
    A = sp.csr_matrix((np.r_[big, big], (np.r_[u, v], np.r_[v, u])), shape=(4, 4))
    for G in (A, (u, v, big)):
        with pytest.raises(InputError, match="2\\*\\*53"):
            weighted_matching(G, device=DEV)
        with pytest.raises(InputError, match="2\\*\\*53"):
            b_matching(G, 1, device=DEV)
        res = weighted_matching(G, device=DEV, precision="float64")
        assert res.precision == "float64"
        assert _as_set(res.edges) == {(0, 1), (2, 3)}
    ok = A.copy()
    ok.data = np.where(ok.data > 100, 2 ** 53, ok.data)      # exact in float64
    assert weighted_matching(ok, device=DEV).precision == "float64"
