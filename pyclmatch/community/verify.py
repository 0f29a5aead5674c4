"""The checks of a community answer, independent of the algorithm that found it.

:func:`check_answer` recomputes a partition's modularity (Eq. 1 of Paper III) on the device
(:func:`.modularity.device_modularity`, from the level-0 input buffers) or on the host
(:func:`modularity_csr`) and compares it with the algorithm's own value; :func:`check_cpm`
does the same for the constant Potts model; :func:`count_disconnected` counts the
communities whose induced subgraph is not connected (:mod:`.connectivity`). :func:`louvain`
and :func:`leiden` (:mod:`.api`) call them through :func:`verify_answer` with their
``verify`` mode (:func:`verify_mode`).
"""
import numpy as np
import pyopencl.array as cla

from ..engine import args
from ..engine.devices import get_device
from ..engine.scheduler import Scheduler
from ..errors import InputError, VerificationError
from .connectivity import device_components
from .dtypes import unit_scale
from .louvain import OVERFLOW
from .modularity import InputGraph, device_modularity


def modularity_csr(A, memb, resolution):
    """Eq. (1) from a canonical symmetric CSR matrix, O(nnz) with one random gather (the
    community of every column); a diagonal entry is a self-loop, inside its community and
    counted twice in 2m and in its vertex's degree.

    Examples
    --------
    >>> import networkx as nx, numpy as np
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(5, 0), format="csr")
    >>> round(modularity_csr(A, np.repeat([0, 1], 5), 1.0), 3)
    0.452
    """
    n = A.shape[0]
    if memb.shape != (n,):
        raise InputError(f"membership has shape {memb.shape}: it must have one label per "
                         f"vertex, shape ({n},)", argument="membership")
    nnz = A.indptr[-1]
    w = np.zeros(nnz + 1)                        # (+1: reduceat's index of trailing empty rows)
    w[:nnz] = A.data[:nnz]
    diag = A.diagonal().astype(np.float64)
    with np.errstate(over="ignore"):
        total = w.sum() + diag.sum()
    if not np.isfinite(total):
        raise InputError(OVERFLOW)
    if nnz:       # (scaled by a power of two, exactly: Q does not change, no sum underflows)
        w, diag = unit_scale(w, diag)
    deg = np.diff(A.indptr)
    k = np.add.reduceat(w, A.indptr[:-1]) if n else np.zeros(0)
    k[deg == 0] = 0.0                            # (reduceat gives the next entry there)
    k += diag
    w = w[:nnz]
    m2 = k.sum()
    if m2 == 0:
        return 0.0
    if n and memb.max() >= n:      # (labels renumbered 0..k-1: bincount's array stays O(n))
        memb = np.unique(memb, return_inverse=True)[1].reshape(-1)
    # (int32 ids gather faster; labels beyond int32 stay as they are, never wrapped)
    cm = memb.astype(np.int32) if n and 0 <= memb.min() and memb.max() < 2 ** 31 else memb
    same = np.repeat(cm, deg) == cm[A.indices[:nnz]]
    inside = w[same].sum() + diag.sum()
    a = np.bincount(cm, weights=k) / m2          # (normalized first: no overflow of a_c^2)
    return float(inside / m2 - resolution * np.dot(a, a))


def cpm_csr(A, memb, resolution):
    """The constant Potts model's quality ``sum_c [e_c - resolution n_c (n_c - 1) / 2]`` of
    a partition of a symmetric CSR matrix: e_c the weight inside community c, each edge
    once (a self-loop once), n_c its size; float64 on the host."""
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    same = memb[rows] == memb[A.indices]
    w = A.data.astype(np.float64)
    inside = w[same].sum() + w[rows == A.indices].sum()       # (loops: once, not twice)
    sizes = np.bincount(memb).astype(np.float64)
    return float(inside / 2 - resolution * (sizes * (sizes - 1)).sum() / 2)


def check_cpm(call, A, memb, h_dev, exact):
    """The CPM value ``h_dev`` of the device checked against :func:`cpm_csr` (``verify``
    on: within 1e-9 of the total weight where the device's sums were ``exact``, else
    1e-4); returns the host's."""
    h = cpm_csr(A, memb, call.resolution)
    if call.mode is not None:
        total = float(np.abs(A.data).sum()) + abs(h)
        if abs(h - h_dev) > (1e-9 if exact else 1e-4) * max(total, 1.0):
            raise VerificationError(f"the device's CPM quality {h_dev!r} differs from the "
                                    f"host recomputation {h!r} for the returned partition")
    return h


def count_disconnected(res):
    """:attr:`LouvainResult.disconnected`: the communities of ``res`` that are not connected
    in the graph it was computed on."""
    handle, A, perm = res._source
    if A.nnz == 0:
        return 0
    memb = res.membership if perm is None else res.membership[perm]
    graph = InputGraph.upload(handle, A)
    memb_dev = cla.to_device(handle.queue, memb.astype(np.int32))
    sched = Scheduler(handle, label="connectivity")
    return device_components(handle, sched, graph, memb_dev, res.n_communities).disconnected


def verify_answer(call, dl, kept, memb, q_dev, m2_in):
    """``(modularity, k or None)``: the check of ``verify`` (:func:`check_answer`) on the
    device's kept buffers or on the host, or the device's own value without a check."""
    if call.mode is None:
        return q_dev, None
    exact = call.deterministic and call.counters.get("fixed_point_scale") == 1.0
    with call.sched.step("verify"):
        if call.mode == "device":
            graph, memb_dev = kept
            return check_answer("device", memb, q_dev, call.resolution, exact,
                                 handle=call.handle, sched=call.sched, graph=graph,
                                 memb_dev=memb_dev, wg=dl.wg,
                                 row_lanes=dl.values["row_lanes"], m2_hint=m2_in)
        return check_answer("host", memb, q_dev, call.resolution, exact, A=call.A_in)


#: ``verify=True`` checks graphs of at most this many stored entries on the host when the
#: device is a CPU (:func:`louvain`)
HOST_CHECK_ENTRIES = 1 << 16


def verify_mode(verify):
    """``verify`` of :func:`louvain` as ``"device"``, ``"host"`` or None."""
    verify = args.verify("verify", verify)
    return "host" if verify == "host" else "device" if verify else None


def check_answer(mode, memb, q_reported, resolution, exact, *, A=None, handle=None,
                  sched=None, graph=None, memb_dev=None, **device_args):
    """Verify a Louvain answer: the membership ``memb`` (host array, one label per vertex of
    the input) must be numbered ``0..k-1`` with no empty community, and Eq. (1) recomputed
    from the input graph must equal the reported modularity ``q_reported`` within the
    tolerance (1e-9 when the device's sums were ``exact``, else 1e-4, plus 1e-6 relative).
    Returns ``(recomputed modularity, k)``; raises :class:`VerificationError` otherwise.

    ``mode="host"``: :func:`modularity_csr` on the canonical CSR ``A``. ``mode="device"``:
    :func:`.modularity.device_modularity` on ``graph`` (:class:`.modularity.InputGraph`, the
    driver's level-0 buffers; uploaded from ``A`` when None) and ``memb_dev`` (the device's int32
    membership; uploaded from ``memb`` when None), ``device_args`` passed on. The two modes
    are independent recomputations; tests hand both the same (possibly corrupted) answer.

    Examples
    --------
    >>> import networkx as nx, numpy as np
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(5, 0), format="csr")
    >>> memb = np.repeat([0, 1], 5)
    >>> q, k = check_answer("host", memb, 0.4523809523809524, 1.0, True, A=A)
    >>> round(q, 3), k
    (0.452, 2)
    >>> check_answer("host", memb, 0.5, 1.0, True, A=A)
    Traceback (most recent call last):
    ...
    pyclmatch.errors.VerificationError: device modularity 0.5 differs from the host ...
    """
    tol = 1e-9 if exact else 1e-4
    memb = np.asarray(memb)
    if mode == "host":
        k = int(memb.max()) + 1 if memb.size else 0
        if memb.size and (memb.min() < 0 or (np.bincount(memb, minlength=k) == 0).any()):
            raise VerificationError("the membership is not numbered 0..k-1")
        q = modularity_csr(A, memb.astype(np.int64, copy=False), resolution)
    elif mode == "device":
        handle = handle or get_device(None)
        sched = sched or Scheduler(handle, label="louvain verify")
        if graph is None:
            graph = InputGraph.upload(handle, A)
        if memb.shape != (graph.n,):
            raise VerificationError(f"membership has shape {memb.shape}, expected "
                                    f"({graph.n},)")
        if memb_dev is None:
            if memb.size and not (-2 ** 31 <= memb.min() and memb.max() < 2 ** 31):
                raise VerificationError("the membership has a label outside 0..n-1")
            memb_dev = cla.to_device(handle.queue, memb.astype(np.int32))
        check = device_modularity(handle, sched, graph, memb_dev, resolution, **device_args)
        if check.problems:
            raise VerificationError("; ".join(check.problems))
        q, k = check.modularity, check.n_communities
    else:
        raise ValueError(f"unknown verification mode {mode!r}")
    if abs(q - q_reported) > tol + 1e-6 * abs(q):
        raise VerificationError(
            f"device modularity {q_reported!r} differs from the {mode} recomputation {q!r} "
            f"for the returned partition")
    return q, k
