"""Louvain's answer verified on the device (``louvain(..., verify=True)``).

The modularity of Eq. (1) is recomputed from the input graph as the driver uploaded it (the
level-0 CSR and the user's raw weights, before any scaling or fixed point) and the final
membership, by the kernels of ``kernels/modularity.cl.mako``, which share nothing with the
algorithm's own kernels (``modularity_partial``/``modularity_final`` work on converted
weights and the algorithm's a_c). The same pass checks that the labels are ``0..k-1`` with
every community non-empty. Conventions are those of :func:`pyclmatch.modularity` (the host
recomputation, ``verify="host"``): a diagonal entry is a self-loop, counted twice in 2m, in
its vertex's degree and inside its community.

Accumulation: int64 for integer weight dtypes (exact), double otherwise (exact for integral
values while the sums stay below 2**53); a_c in 64-bit fixed point by integer atomics (exact
for integer weights, otherwise within n x 2**-59 on sum_c (a_c / 2m)^2, see the template).
The host reads one small buffer back.
"""
from dataclasses import dataclass

import numpy as np
import pyopencl.array as cla

from ..engine.family import KernelFamily
from .dtypes import DEFAULT_WG, RAW_OF, default_row_lanes, raw_weights

#: problem bits of the ``out`` buffer (slot 8)
V_LABEL, V_EMPTY, V_GRAPH = 1, 2, 4
#: work-groups of the reductions' first stage (at most)
MAX_GROUPS = 1024
#: integer weights of dtype int64 are summed in int64 while the total is below this
LONG_LIMIT = 2.0 ** 62


@dataclass
class InputGraph:
    """The level-0 graph on the device as the driver uploaded it: ``vertices`` (int32 row
    offsets), ``edges`` (int32 columns) and ``raw`` (the user's weights in a dtype of
    ``dtypes.RAW_TYPES``, self-loops not doubled), ``n`` vertices."""
    vertices: cla.Array
    edges: cla.Array
    raw: cla.Array
    n: int

    @classmethod
    def upload(cls, handle, A):
        """The canonical CSR matrix ``A`` uploaded as the driver does (tests, and calls that
        verify an answer without the driver's buffers)."""
        data = raw_weights(A.data)
        return cls(handle.to_device(A.indptr.astype(np.int32, copy=False)),
                   handle.to_device(A.indices.astype(np.int32, copy=False)),
                   handle.to_device(data), int(A.shape[0]))


@dataclass
class Check:
    """What the device found: ``modularity`` (Eq. 1 for the membership), ``n_communities``
    (largest label + 1) and ``problems`` (human-readable, empty when the labels are
    ``0..k-1`` with every community non-empty and the graph's indices in range)."""
    modularity: float
    n_communities: int
    problems: list


def _acc(raw_dtype, m2_hint):
    rt = RAW_OF[np.dtype(raw_dtype)]
    if rt in ("char", "uchar", "int") or (rt == "long" and m2_hint is not None
                                          and m2_hint < LONG_LIMIT):
        return rt, "long"
    return rt, "double"


class DeviceModularity(KernelFamily):
    """The verification kernels of one device (``kernels/modularity.cl.mako``).

    Parameters
    ----------
    handle : pyclmatch.engine.devices.DeviceHandle
        The device.
    wg, row_lanes : int, optional
        Work-group size and work-items per row: the Louvain driver's (defaults: its defaults
        for this device).

    Examples
    --------
    >>> import networkx as nx
    >>> import numpy as np
    >>> import pyclmatch
    >>> from pyclmatch.community.modularity import DeviceModularity, InputGraph
    >>> from pyclmatch.engine.scheduler import Scheduler
    >>> h = pyclmatch.get_device("cpu")
    >>> A = nx.to_scipy_sparse_array(nx.barbell_graph(4, 0), format="csr")
    >>> memb = h.to_device(np.array([0, 0, 0, 0, 1, 1, 1, 1], np.int32))
    >>> check = DeviceModularity(h).check(Scheduler(h), InputGraph.upload(h, A), memb, 1.0)
    >>> round(check.modularity, 4), check.n_communities, check.problems
    (0.4231, 2, [])
    """

    TEMPLATE = "modularity.cl.mako"

    def __init__(self, handle, wg=None, row_lanes=None):
        wg = int(wg or min(DEFAULT_WG.get(handle.type, 128), handle.max_work_group_size))
        super().__init__(handle, index_t="int", offset_t="int", mode="ct", wg=wg,
                         row_lanes=int(row_lanes or default_row_lanes(handle)))

    def check(self, sched, graph, memb, resolution, m2_hint=None):
        """Eq. (1) of ``graph`` (:class:`InputGraph`) for ``memb`` (an int32 device array of
        ``graph.n`` labels) with ``resolution``, and the label checks: a :class:`Check`.
        ``m2_hint``: the weight total if known (int64 weights are summed in int64 below
        2**62, in double otherwise). Five launches and one read-back, all under phase
        ``verify``."""
        out, acc_dt = self._launch_all(sched, graph, memb, m2_hint)
        return self._read(sched, out, acc_dt, resolution)

    def _launch_all(self, sched, graph, memb, m2_hint):
        """The five launches: row sums, their totals, label checks and a_c, community sums,
        the squares' total; returns the output buffer and the accumulator dtype."""
        handle, wg, lanes = self.handle, self.values["wg"], self.values["row_lanes"]
        n = int(graph.n)
        rt, acc = _acc(graph.raw.dtype, m2_hint)
        acc_dt = np.dtype(np.int64 if acc == "long" else np.float64)
        grid = handle.constant_grid(wg)
        rgroups = max(1, min(MAX_GROUPS, grid // wg, -(-n * lanes // wg)))
        vgroups = max(1, min(MAX_GROUPS, grid // wg, -(-n // wg)))
        out, kv = handle.empty(16), handle.empty(max(n, 1), acc_dt)
        part, acw = handle.empty(2 * rgroups, acc_dt), handle.empty(2 * max(n, 1), np.uint32)
        cnt, psq = handle.empty(max(n, 1)), handle.empty(vgroups, np.float64)
        for arr in (out, acw, cnt):
            sched.fill("verify", arr, 0)
        knl = self.kernel
        sched.launch("verify", knl(f"verify_rows_{rt}_{acc}"), rgroups * wg, wg, np.int32(n),
                     graph.vertices.data, graph.edges.data, graph.raw.data, memb.data,
                     kv.data, part.data, out.data)
        sched.launch("verify", knl(f"verify_totals_{acc}"), wg, wg, np.int32(rgroups),
                     part.data, out.data)
        sched.launch("verify", knl(f"verify_labels_{acc}"), vgroups * wg, wg, np.int32(n),
                     memb.data, kv.data, out.data, acw.data, cnt.data)
        sched.launch("verify", knl("verify_communities"), vgroups * wg, wg, np.int32(n),
                     acw.data, cnt.data, out.data, psq.data)
        sched.launch("verify", knl("verify_sq"), wg, wg, np.int32(vgroups), psq.data,
                     out.data)
        return out, acc_dt

    @staticmethod
    def _read(sched, out, acc_dt, resolution):
        """The one read-back, as a :class:`Check`."""
        host = np.zeros(16, np.int32)
        sched.read("verify", host, out.data)
        ein, m2 = (host[0:4].view(acc_dt)).astype(np.float64)
        sq, scale = host[4:8].view(np.float64)
        bits, k = int(host[8]), int(host[9])
        problems = []
        if bits & V_GRAPH:
            problems.append("the graph has a column index out of range")
        if bits & V_LABEL:
            problems.append("the membership has a label outside 0..n-1")
        if bits & V_EMPTY:
            problems.append("the membership is not numbered 0..k-1 (a community is empty)")
        if m2 <= 0:
            return Check(0.0, k, problems)
        # sum_c (a_c / 2m)^2 = sq / (scale * 2m)^2 with scale * 2m in [2**59, 2**61) (no
        # overflow or underflow whatever the weights' magnitude); the integer sums reach double
        # exactly below 2**53
        unit = float(scale) * float(m2)
        qv = float(ein) / float(m2) - float(resolution) * (float(sq) / unit) / unit
        return Check(qv, k, problems)


def device_modularity(handle, sched, graph, memb, resolution, *, wg=None, row_lanes=None,
                      m2_hint=None):
    """:meth:`DeviceModularity.check` on ``handle`` with work-group size ``wg`` and
    ``row_lanes`` (defaults: the Louvain driver's for this device)."""
    return DeviceModularity(handle, wg, row_lanes).check(sched, graph, memb, resolution,
                                                         m2_hint)
