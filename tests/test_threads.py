"""Calls from several threads on one device: same answers as serial calls, and quiet.

Each thread runs every family (maximum_matching, weighted_matching, louvain, b_matching,
stable_marriage) on one device, in a different order per thread, twice. One set of threads shares the session's
device handle (programs already built); another starts from a fresh handle of the same device,
so that the threads build the programs and create their kernels concurrently. No warning may
be recorded (pyopencl's RepeatedKernelRetrieval and CompilerWarning included).
"""
import contextlib
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import scipy.sparse as sp

import pyclmatch
from pyclmatch.engine.devices import DeviceHandle

THREADS = 4


def _graphs():
    rng = np.random.default_rng(7)
    B = sp.random(400, 300, density=0.01, random_state=3, format="csr")
    n = 300
    u = rng.integers(0, n, 1500)
    v = rng.integers(0, n, 1500)
    keep = u != v
    U = sp.coo_matrix((np.ones(keep.sum()), (u[keep], v[keep])), shape=(n, n)).tocsr()
    P = ((U + U.T) > 0).astype(np.float64).tocsr()          # unweighted, symmetric
    W = P.copy()
    W.data = rng.random(W.nnz) + 0.01
    W = sp.triu(W, 1)
    W = (W + W.T).tocsr()                                     # weighted, symmetric
    return B, W, P


def _call(family, graphs, device):
    B, W, P = graphs
    if family == "maximum_matching":
        r = pyclmatch.maximum_matching(B, device=device)
        assert r.verified
        return r.cardinality
    if family == "weighted_matching":
        r = pyclmatch.weighted_matching(W, device=device)
        assert r.verified
        return r.mate.tolist()
    if family == "b_matching":
        r = pyclmatch.b_matching(W, 2, device=device)
        assert r.verified
        return r.edges.tolist()
    if family == "stable_marriage":
        r = pyclmatch.stable_marriage(MARRIAGE, device=device)
        assert r.verified
        return r.wife.tolist()
    r = pyclmatch.louvain(P, device=device, deterministic=True)
    return r.membership.tolist(), r.modularity


FAMILIES = ("maximum_matching", "weighted_matching", "louvain", "b_matching",
            "stable_marriage")
MARRIAGE = pyclmatch.easy_instance(300, seed=2)


def _worker(k, graphs, device, barrier):
    barrier.wait()                  # start together: the first calls overlap
    out = []
    k %= len(FAMILIES)
    order = FAMILIES[k:] + FAMILIES[:k]
    for _ in range(2):
        for fam in order:
            out.append((fam, _call(fam, graphs, device)))
    return out


@contextlib.contextmanager
def _enqueues_checked(handle):
    """Record every kernel enqueue (pyopencl's invokers call ``_cl.enqueue_nd_range_kernel``
    after setting the arguments) that is neither of a kernel object of the calling thread's
    own (:meth:`DeviceHandle.kernel`) nor made under the handle's lock of shared objects."""
    import pyopencl._cl as _cl
    real = _cl.enqueue_nd_range_kernel
    unsafe = []

    def checked(queue, kernel, *args, **kwargs):
        own = handle._thread.__dict__.get("kernels", {}).values()
        if not handle._shared._is_owned() and not any(kernel is k for k in own):
            unsafe.append(kernel.function_name)
        return real(queue, kernel, *args, **kwargs)

    _cl.enqueue_nd_range_kernel = checked
    try:
        yield unsafe
    finally:
        _cl.enqueue_nd_range_kernel = real


@pytest.mark.parametrize("fresh", [False, True], ids=["shared-handle", "fresh-handle"])
def test_threads_match_serial_and_stay_quiet(device, fresh):
    graphs = _graphs()
    serial = {fam: _call(fam, graphs, device) for fam in FAMILIES}
    target = DeviceHandle(device.device, index=device.index) if fresh else device
    barrier = threading.Barrier(THREADS)
    with warnings.catch_warnings(record=True) as rec, _enqueues_checked(target) as unsafe:
        warnings.simplefilter("always")
        with ThreadPoolExecutor(THREADS) as ex:
            futs = [ex.submit(_worker, k, graphs, target, barrier) for k in range(THREADS)]
            results = [f.result(timeout=300) for f in futs]
    assert not unsafe, sorted(set(unsafe))     # every shared kernel object set under the lock
    for out in results:
        assert len(out) == 2 * len(FAMILIES)
        for fam, value in out:
            assert value == serial[fam], fam
    assert not rec, [f"{w.category.__name__}: {str(w.message)[:200]}" for w in rec]


def test_compiler_output_goes_to_the_log(device, caplog):
    """Build output (if the driver says anything) is logged by logger "pyclmatch" at DEBUG,
    never raised as a warning; a build in a fresh handle is quiet."""
    import logging
    h = DeviceHandle(device.device, index=device.index)
    with caplog.at_level(logging.DEBUG, logger="pyclmatch"):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            h.kernel("intake.cl.mako", "intake_check", index_t="int", offset_t="int",
                     mode="ct", in_index_t="int", with_perm=False)
    assert not rec
    assert any("built" in r.getMessage() for r in caplog.records if r.name == "pyclmatch")


def test_warnings_of_other_code_pass_through_our_builds(device):
    """Our builds filter pyopencl's compiler warnings only: a warning raised by other code
    while a build runs is still shown (once)."""
    h = DeviceHandle(device.device, index=device.index)
    stop = threading.Event()
    seen = []

    def user_code():
        while not stop.is_set():
            warnings.warn("user warning", UserWarning)
            stop.wait(0.001)

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        t = threading.Thread(target=user_code)
        t.start()
        try:
            h.kernel("intake.cl.mako", "intake_check", index_t="int", offset_t="int",
                     mode="ct", in_index_t="int", with_perm=False)
        finally:
            stop.set()
            t.join()
        seen = [w for w in rec if str(w.message) == "user warning"]
    assert seen and all(w.category is UserWarning for w in rec)


def test_calls_on_one_device_hold_it_in_turn(device, monkeypatch):
    """A call holds its device from get_device to its return (engine.devices.device_call):
    a second thread's call on the same device, through another handle, starts only after the
    first has returned; nested calls (maximum_bipartite_matching -> maximum_matching) hold it
    once; a call that raises lets it go."""
    from pyclmatch.engine import scheduler
    from pyclmatch.engine.devices import device_lock
    B = _graphs()[0]
    want = pyclmatch.maximum_matching(B, device=device, algorithm="apfb-gpubfs-wr-ct").cardinality
    entered, release, order = threading.Event(), threading.Event(), []
    real_init = scheduler.Scheduler.__init__

    def init(self, *a, **k):
        order.append(threading.current_thread().name)
        if threading.current_thread().name == "first":
            entered.set()
            assert release.wait(30)
        real_init(self, *a, **k)

    monkeypatch.setattr(scheduler.Scheduler, "__init__", init)
    out = {}

    def run(name, handle):
        out[name] = pyclmatch.maximum_matching(B, device=handle,
                                               algorithm="apfb-gpubfs-wr-ct").cardinality

    first = threading.Thread(target=run, args=("first", device), name="first")
    other = DeviceHandle(device.device, index=device.index)
    second = threading.Thread(target=run, args=("second", other), name="second")
    first.start()
    assert entered.wait(30)
    second.start()
    second.join(0.5)
    assert second.is_alive() and order == ["first"]     # waiting for the device
    release.set()
    first.join(60)
    second.join(60)
    assert out == {"first": want, "second": want}
    assert order[0] == "first" and set(order) == {"first", "second"}
    monkeypatch.setattr(scheduler.Scheduler, "__init__", real_init)
    assert pyclmatch.maximum_bipartite_matching(B, device=device).size == B.shape[1]
    with pytest.raises(pyclmatch.InputError):
        pyclmatch.maximum_matching(B, device=device, init="bogus")
    lock = device_lock(device.device)
    assert lock.acquire(blocking=False)
    lock.release()
