"""The host family ``host-hk`` (scipy's Hopcroft-Karp with a König cover on the host), ``auto``'s
host rule at its threshold and the race of host and device."""
import os
import time

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

import pyclmatch
from pyclmatch import InputError
from pyclmatch.bipartite import race
from pyclmatch.bipartite.konig import verify_matching
from pyclmatch.engine import tuning
from pyclmatch.engine.graphs import as_bipartite


def _scipy_cardinality(A):
    A = sp.csr_matrix(A)
    B = sp.csr_matrix((np.ones(A.indices.size), A.indices, A.indptr), shape=A.shape)
    return int((sp.csgraph.maximum_bipartite_matching(B, perm_type="column") >= 0).sum())


def _check(A, res):
    """A verified host answer: cardinality of scipy's, mutual matching on edges, and a König
    cover of that size that covers every edge (checked here from the dense pattern)."""
    assert res.algorithm == "host-hk" and res.device == "host" and res.verified
    assert res.counters["launches"] == 0 and res.counters["readbacks"] == 0
    assert res.cardinality == _scipy_cardinality(A) == res.certificate.size
    assert res.row_match.dtype == res.col_match.dtype == np.int32
    D = sp.csr_matrix(A, copy=True)
    D.data[:] = 1
    D = D.toarray() > 0
    rows = np.flatnonzero(res.row_match >= 0)
    assert D[rows, res.row_match[rows]].all()
    assert (res.col_match[res.row_match[rows]] == rows).all()
    covered = np.zeros_like(D)
    covered[res.certificate.rows, :] = True
    covered[:, res.certificate.cols] = True
    assert not (D & ~covered).any()
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)


@st.composite
def bipartite(draw):
    """Random patterns: rectangular, CSR or CSC, int32 or int64 indices, sometimes unsorted
    lists with repeated entries and explicit zeros (edges, as in scipy)."""
    nr, nc = draw(st.integers(0, 40)), draw(st.integers(0, 40))
    m = draw(st.integers(0, 4 * max(nr, nc))) if nr and nc else 0
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, max(nr, 1), m), rng.integers(0, max(nc, 1), m)
    if draw(st.booleans()) and m:          # one hub row and one hub column
        r[: m // 3], c[m // 3: 2 * m // 3] = 0, nc - 1
    A = sp.coo_matrix((rng.integers(0, 2, m).astype(float), (r, c)), shape=(nr, nc))
    A = A.tocsr() if draw(st.booleans()) else A.tocsc()
    if draw(st.booleans()):                # repeats and unsorted lists kept as they are
        A = type(A)((A.data, A.indices, A.indptr), shape=A.shape)
        A.has_canonical_format = False
    if draw(st.booleans()):
        A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    return A


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bipartite())
def test_random_graphs_match_scipy_and_the_certificate_holds(A):
    _check(A, pyclmatch.maximum_matching(A, algorithm="host-hk"))


def test_adversarial_shapes_and_same_answer_as_device(device):
    hub = sp.lil_matrix((60, 90))
    hub[0, :] = 1
    hub[:, 5] = 1
    cases = [sp.csr_matrix((0, 0)), sp.csr_matrix((7, 0)), sp.csr_matrix((3, 5)),
             hub.tocsr(), hub.tocsc(), hub.T.tocsr(), sp.eye(50, 80, format="csr"),
             pyclmatch.generators.kron(8), pyclmatch.generators.grid(20),
             sp.random(30, 300, density=0.02, format="csr", random_state=3)]
    for A in cases:
        res = pyclmatch.maximum_matching(A, algorithm="host-hk")
        _check(A, res)
        if A.nnz:
            dev = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-wr-ct", device=device)
            assert dev.cardinality == res.cardinality
    # scipy's drop-in and the edge-array input take the host family too
    A = cases[3]
    perm = pyclmatch.maximum_bipartite_matching(A, perm_type="column", algorithm="host-hk")
    assert int((perm >= 0).sum()) == _scipy_cardinality(A)
    coo = A.tocoo()
    res = pyclmatch.maximum_matching((coo.row, coo.col), shape=A.shape, algorithm="host-hk")
    assert res.cardinality == _scipy_cardinality(A)


def test_bad_input_is_refused_before_scipy_reads_it():
    A = sp.csr_matrix(np.eye(4))
    bad_ptr = sp.csr_matrix((A.data, A.indices, A.indptr.copy()), shape=A.shape)
    bad_ptr.indptr[2] = 3
    bad_ptr.indptr[3] = 1
    with pytest.raises(InputError, match="indptr"):
        pyclmatch.maximum_matching(bad_ptr, algorithm="host-hk")
    bad_idx = sp.csr_matrix((A.data, A.indices.copy(), A.indptr), shape=A.shape)
    bad_idx.indices[1] = 9
    with pytest.raises(InputError, match="out of range"):
        pyclmatch.maximum_matching(bad_idx, algorithm="host-hk")
    with pytest.raises(InputError, match="unknown parameter"):
        pyclmatch.maximum_matching(A, algorithm="host-hk", work_group_size=64)


def test_verification_catches_a_wrong_cover():
    A = pyclmatch.generators.grid(6)
    res = pyclmatch.maximum_matching(A, algorithm="host-hk")
    bad = type(res.certificate)(res.certificate.rows[1:], res.certificate.cols)
    with pytest.raises(pyclmatch.VerificationError):
        verify_matching(as_bipartite(A), res.row_match, res.col_match, bad)


def _dense_certificate_holds(A, rm, cm, rows, cols):
    """The certificate check of ``hk_core`` spelled out on the dense pattern."""
    D = sp.csr_matrix(A, copy=True)
    D.data[:] = 1
    D = D.toarray() > 0
    mr = np.flatnonzero(rm >= 0)
    if mr.size != np.count_nonzero(cm >= 0) or (cm[rm[mr]] != mr).any() \
            or not D[mr, rm[mr]].all():
        return False
    if len(set(rows.tolist())) != rows.size or len(set(cols.tolist())) != cols.size:
        return False
    covered = np.zeros_like(D)
    covered[rows, :] = True
    covered[:, cols] = True
    return rows.size + cols.size == mr.size and not (D & ~covered).any()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bipartite(), st.integers(0, 2 ** 31))
def test_certificate_check_agrees_with_the_dense_reference(A, seed):
    """Certificates spoiled at random (a cover vertex moved, a mate swapped) are refused
    exactly when the dense reference refuses them; the cover's lists outside it are read in
    both ways of gathering them (few lists, or most of them)."""
    from pyclmatch.bipartite.hk_core import check_matching_and_cover
    res = pyclmatch.maximum_matching(A, algorithm="host-hk")
    rng = np.random.default_rng(seed)
    nr, nc = A.shape
    g = as_bipartite(A)
    for trial in range(6):
        rm, cm = res.row_match.copy(), res.col_match.copy()
        rows, cols = res.certificate.rows.copy(), res.certificate.cols.copy()
        kind = trial % 3
        if kind == 1 and rows.size + cols.size:      # move one cover vertex
            if rows.size and (not cols.size or rng.integers(2)):
                rows[rng.integers(rows.size)] = rng.integers(nr)
            else:
                cols[rng.integers(cols.size)] = rng.integers(nc)
        elif kind == 2 and (rm >= 0).sum():          # re-mate one matched row
            r = rng.choice(np.flatnonzero(rm >= 0))
            c = rng.integers(nc)
            if cm[c] < 0:
                cm[rm[r]], rm[r], cm[c] = -1, c, r
        csr = g.fmt == "csr"
        major, minor = (rm, cm) if csr else (cm, rm)
        cj, cn = (rows, cols) if csr else (cols, rows)
        problem = check_matching_and_cover(g.indptr, g.indices, *g.major, major, minor, cj, cn)
        assert (problem is None) == _dense_certificate_holds(A, rm, cm, rows, cols), problem


@pytest.fixture
def profile(device, monkeypatch, tmp_path):
    """Set keys of the test device's ``auto`` profile through the tuning cache."""
    monkeypatch.setenv("PYCLMATCH_TUNING", str(tmp_path / "tuning.json"))

    def set_(**keys):
        tuning.store(device, "auto", keys)
    return set_


def test_auto_takes_the_host_up_to_host_edges(device, profile):
    A = sp.csr_matrix(pyclmatch.generators.grid(12))
    profile(host_edges=A.nnz, race_edges=0)
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.algorithm == "host-hk" and res.device == "host"
    assert res.choice["rule"] == 1 and "host_edges" in res.choice["reason"]
    _check(A, res)
    profile(host_edges=A.nnz - 1, race_edges=0)
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.algorithm != "host-hk" and res.device != "host" and res.choice["rule"] > 1
    assert "race" not in res.choice
    # the Dulmage-Mendelsohn decomposition follows auto: on the host where it matches there
    profile(host_edges=10 ** 9, race_edges=10 ** 9)
    dm = pyclmatch.dulmage_mendelsohn(A, device=device)
    assert dm.structural_rank == res.cardinality
    dm = pyclmatch.dulmage_mendelsohn(A, algorithm="host-hk", device=device)
    assert dm.structural_rank == res.cardinality and dm.verify(A)


def _ready_worker(timeout=60):
    """The race worker, started and idle (an abandoned host attempt finished)."""
    w = race.HostWorker.get()
    t0 = time.perf_counter()
    while not w.available():
        assert time.perf_counter() - t0 < timeout, w.state
        time.sleep(0.01)
    return w


def _segments():
    return {f for f in os.listdir("/dev/shm") if f.startswith("psm_")} \
        if os.path.isdir("/dev/shm") else set()


def _late_device(monkeypatch, seconds=0.3):
    """Make a raced call's device path late: its certificate build sleeps ``seconds``."""
    from pyclmatch.bipartite.konig import DeviceCertificate
    build = DeviceCertificate.build

    def slow_build(self):
        build(self)
        time.sleep(seconds)
    monkeypatch.setattr(DeviceCertificate, "build", slow_build)


def test_race_first_call_alone_then_host_wins(device, profile, monkeypatch):
    """The first call that wants a race starts the worker and runs on the device alone;
    once it is up, the host wins on a host-easy graph (the device path is late here) and its
    answer is verified; the device work left on the queue delays nothing."""
    A = sp.csr_matrix(pyclmatch.generators.kron(8))
    profile(host_edges=0, race_edges=A.nnz)
    w = race.HostWorker.get()
    w.close()                      # (a fresh worker: the first call finds none)
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.choice["race"]["host_started"] is False
    assert res.choice["race"]["why_not"] == "race worker starting"
    assert res.algorithm == res.choice["race"]["winner"] != "host-hk" and res.verified
    _ready_worker()
    _late_device(monkeypatch)      # (the host finishes first)
    res = pyclmatch.maximum_matching(A, device=device)
    r = res.choice["race"]
    assert r["winner"] == "host-hk" == res.algorithm and r["host_started"]
    assert 0 < r["host_seconds"] < 0.3
    assert res.device == "host" and res.verified and res.counters["launches"] >= 0
    assert "verify" in res.timings       # (checked in the worker, beside the device path)
    assert res.cardinality == _scipy_cardinality(A)
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    # a CSC and a rectangular graph come back oriented (rows, cols)
    B = sp.random(40, 70, density=0.08, format="csc", random_state=5)
    profile(host_edges=0, race_edges=B.nnz)
    res = pyclmatch.maximum_matching(B, device=device)
    assert res.algorithm == "host-hk" and res.row_match.shape == (40,)
    assert res.cardinality == _scipy_cardinality(B)
    verify_matching(as_bipartite(B), res.row_match, res.col_match, res.certificate)


def test_race_device_wins_then_busy_worker_is_left_alone(device, profile, monkeypatch):
    """A host attempt slower than the device: the device answers; the next call finds the
    worker busy with the abandoned attempt and runs on the device alone."""
    A = sp.csr_matrix(pyclmatch.generators.kron(8))
    profile(host_edges=0, race_edges=A.nnz)
    w = _ready_worker()
    monkeypatch.setattr(race, "HOST_DELAY", 2.0)
    monkeypatch.setattr(w, "boot_seconds", 30.0)     # (no restart within this test)
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.choice["race"]["winner"] == res.algorithm != "host-hk"
    assert res.choice["race"]["host_started"] and res.choice["race"]["host_seconds"] is None
    assert res.device != "host" and res.verified
    assert res.cardinality == _scipy_cardinality(A)
    again = pyclmatch.maximum_matching(A, device=device)
    assert again.choice["race"]["host_started"] is False
    assert "busy" in again.choice["race"]["why_not"]
    # an abandoned attempt older than a restart: the worker is killed and started afresh
    starts = w.starts
    monkeypatch.setattr(w, "boot_seconds", 0.0)
    monkeypatch.setattr(race, "HOST_DELAY", 0.0)
    third = pyclmatch.maximum_matching(A, device=device)
    assert third.choice["race"]["host_started"] is False and w.starts == starts + 1
    _ready_worker()


def test_race_worker_killed_mid_call(device, profile, monkeypatch):
    """The worker dies during a raced call: the device's answer stands, nothing hangs, the
    next call starts a new worker, and no shared-memory segment is left at close."""
    A = sp.csr_matrix(pyclmatch.generators.grid(12))
    profile(host_edges=0, race_edges=A.nnz)
    w = _ready_worker()
    monkeypatch.setattr(race, "HOST_DELAY", 5.0)
    from pyclmatch.bipartite.konig import DeviceCertificate
    build = DeviceCertificate.build

    def kill_then_build(self):
        w.proc.kill()
        w.proc.wait()
        build(self)
    monkeypatch.setattr(DeviceCertificate, "build", kill_then_build)
    t0 = time.perf_counter()
    res = pyclmatch.maximum_matching(A, device=device)
    assert time.perf_counter() - t0 < 4.0
    assert res.algorithm != "host-hk" and res.verified and res.cardinality == \
        _scipy_cardinality(A)
    assert res.choice["race"]["host_started"]
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    monkeypatch.setattr(DeviceCertificate, "build", build)
    monkeypatch.setattr(race, "HOST_DELAY", 0.0)
    starts = w.starts
    nxt = pyclmatch.maximum_matching(A, device=device)
    assert nxt.choice["race"]["host_started"] is False and w.starts == starts + 1
    assert nxt.verified
    name = w.shm.name if w.shm is not None else None
    w.close()
    assert name is None or name not in _segments()
    assert w.proc is None


def test_race_host_answer_failing_its_check_is_not_taken(device, profile, monkeypatch):
    """The worker checks the host's answer before replying (verify=True): an answer that
    fails the check is an error reply, and the device's answer stands."""
    A = sp.csr_matrix(pyclmatch.generators.kron(8))
    profile(host_edges=0, race_edges=A.nnz)
    _ready_worker()
    monkeypatch.setattr(race, "HOST_SPOIL", True)
    _late_device(monkeypatch)      # (the host would win)
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.choice["race"]["host_started"] and res.algorithm != "host-hk"
    assert res.verified and res.cardinality == _scipy_cardinality(A)
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)


def test_race_waits_for_device_work_a_host_win_left(device, profile, monkeypatch):
    """Device work left on the queue by a call the host won: the next raced call enqueues
    nothing until it has drained (the host answers meanwhile); once drained, the device
    runs again and the mark is cleared."""
    import pyopencl as cl
    A = sp.csr_matrix(pyclmatch.generators.kron(8))
    profile(host_edges=0, race_edges=A.nnz)
    pyclmatch.maximum_matching(A, device=device)       # (builds)
    _ready_worker()
    pending = cl.UserEvent(device.context)
    monkeypatch.setattr(device, "race_backlog", (pending, []))
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.algorithm == "host-hk" and res.counters["launches"] == 0 and res.verified
    assert res.choice["race"]["device_wait_s"] > 0
    verify_matching(as_bipartite(A), res.row_match, res.col_match, res.certificate)
    pending.set_status(cl.command_execution_status.COMPLETE)
    _ready_worker()
    monkeypatch.setattr(race, "HOST_DELAY", 1.0)
    res = pyclmatch.maximum_matching(A, device=device)
    assert res.algorithm != "host-hk" and device.race_backlog is None
    assert res.cardinality == _scipy_cardinality(A)


def test_worker_imports_numpy_and_scipy_only():
    """The race worker starts without the package (no pyopencl, no pyclmatch import) and
    exits at the end of its input."""
    import subprocess
    import sys
    path = os.path.join(os.path.dirname(race.__file__), "hk_worker.py")
    out = subprocess.run([sys.executable, "-X", "importtime", path], input=b"",
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.decode().splitlines()
                if line.startswith("import time:")}
    assert "scipy.sparse.csgraph" in imported
    assert not {m for m in imported if m.split(".")[0] in ("pyopencl", "pyclmatch", "mako")}
