"""The certificate of the Suitor family's answers, checked on the device
(``kernels/blocking.cl.mako``) by kernels independent of those that computed them; the
host checks of :mod:`pyclmatch.weighted.reference` are the ``verify="host"`` alternative.

A matching is the greedy one iff it is a matching of the graph with no blocking edge: no edge
(u, p) outside it ranks above both u's and p's mate edges in the key order (w, id) (the
unique stable matching). A b-matching is the greedy one iff each vertex has at most b(v)
matched edges and no edge outside it would be taken by both ends, an end taking it when it has
room or when the edge ranks above its worst matched edge.
"""
import numpy as np

from ..engine.family import KernelFamily
from ..errors import VerificationError
from .suitor import WEIGHT_BITS, WEIGHT_C

TEMPLATE = "blocking.cl.mako"
#: out[] slots and OUT_BAD bits of blocking.cl.mako
OUT_BAD, OUT_COUNT, OUT_EX_VERTEX, OUT_EX_EDGE = range(4)
BAD_ID, BAD_PAIR, SELF, NOT_EDGE, BLOCKING, TWICE, OVER_B, DEGREE = (1 << i for i in range(8))
_NONE = np.iinfo(np.int32).max


class DeviceCertificate(KernelFamily):
    """Checks a device graph's (:class:`~pyclmatch.weighted.suitor.DeviceWeighted`) matching
    or b-matching on the device, in two or three launches and one read-back; a failure raises
    :class:`~pyclmatch.errors.VerificationError` naming what failed and the least vertex
    where it did."""

    TEMPLATE = TEMPLATE

    def __init__(self, handle, dg):
        # the weights in the precision the algorithm compared, the graph's offset type
        super().__init__(handle, index_t="int", offset_t=dg.offset_t, mode="ct",
                         by_rows=handle.is_cpu, weight_t=WEIGHT_C[dg.wdt])
        self.dg = dg
        self.wg = handle.default_work_group_size()
        self.wdt, self.bits = dg.wdt, WEIGHT_BITS[dg.wdt]
        self.ot = dg.odt.type

    def _grid(self, n):
        return min(self.handle.constant_grid(self.wg), -(-max(int(n), 1) // self.wg) * self.wg)

    def _empty(self, n, dtype=np.int32):
        return self.empty(max(int(n), 1), dtype)

    def _out(self, sched, phase):
        out = self._empty(4)
        sched.fill(phase, out[:2], 0)
        sched.fill(phase, out[2:], _NONE)
        return out

    def matching(self, mate, pairs, sched, phase="verify"):
        """Check the int64 device array ``mate`` (and that it has ``pairs`` matched pairs)."""
        dg, n = self.dg, self.dg.g.n
        nnz = dg.g.nnz
        out = self._out(sched, phase)
        mw = self._empty(n, self.wdt)
        sched.launch(phase, self.kernel("wv_mates"), self._grid(n), self.wg, np.int32(n),
                     dg.xadj.data, dg.adj.data, dg.wt.data, mate.data, mw.data, out.data)
        sched.launch(phase, self.kernel("wv_blocking"), self._grid(nnz), self.wg, np.int32(n),
                     self.ot(nnz), dg.xadj.data, dg.adj.data, dg.wt.data, mate.data, mw.data,
                     out.data)
        host = sched.read(phase, np.zeros(4, np.int32), out.data)
        _raise(host, "matching")
        if int(host[OUT_COUNT]) != 2 * int(pairs):
            raise VerificationError(f"{int(host[OUT_COUNT])} vertices are matched but the "
                                    f"result counts {int(pairs)} pairs")

    def b_matching(self, pairs, k, degree, b, sched, phase="verify"):
        """Check the ``k`` pairs of the (k, 2) int64 device array ``pairs``, the int64 device
        array ``degree`` and the host int32 array ``b``."""
        dg, n = self.dg, self.dg.g.n
        nnz = dg.g.nnz
        h = self.handle
        out = self._out(sched, phase)
        bd = h.to_device(np.ascontiguousarray(b, np.int32))
        pos = self._empty(k, dg.odt)
        in_m = self._empty(nnz)
        deg = self._empty(n)
        worst = self._empty(n, self.bits)
        worst_p = self._empty(n)
        sched.fill(phase, in_m, 0)
        sched.fill(phase, deg, 0)
        sched.fill(phase, worst, np.iinfo(self.bits).max)     # WBITS_NONE
        sched.fill(phase, worst_p, _NONE)
        if k:
            sched.launch(phase, self.kernel("bv_pairs"), self._grid(k), self.wg, np.int32(n),
                         np.int32(k), dg.xadj.data, dg.adj.data, dg.wt.data, pairs.data,
                         pos.data, in_m.data, deg.data, worst.data, out.data)
            sched.launch(phase, self.kernel("bv_partners"), self._grid(k), self.wg,
                         np.int32(n), np.int32(k), dg.adj.data, dg.wt.data, pairs.data,
                         pos.data, worst.data, worst_p.data)
        sched.launch(phase, self.kernel("bv_check"), self._grid(max(n, nnz)), self.wg,
                     np.int32(n), self.ot(nnz), dg.xadj.data, dg.adj.data, dg.wt.data,
                     bd.data, degree.data, deg.data, worst.data, worst_p.data, in_m.data,
                     out.data)
        host = sched.read(phase, np.zeros(4, np.int32), out.data)
        _raise(host, "b-matching")


def _raise(out, what):
    """The :class:`VerificationError` that the device's ``out`` calls for, if any."""
    bad = int(out[OUT_BAD])
    if not bad:
        return
    v, u = int(out[OUT_EX_VERTEX]), int(out[OUT_EX_EDGE])
    at = f" (at vertex {v})" if v != _NONE else ""
    for bit, msg in ((BAD_ID, "holds an invalid vertex id"),
                     (SELF, "matches a vertex to itself"),
                     (BAD_PAIR, "is not symmetric: mate[mate[v]] != v"),
                     (NOT_EDGE, "holds a matched pair that is not an edge"),
                     (TWICE, "lists an edge twice"),
                     (OVER_B, "gives a vertex more matched edges than its b"),
                     (DEGREE, "reports degrees that differ from its pairs'")):
        if bad & bit:
            raise VerificationError(f"the {what} {msg}{at}")
    if bad & BLOCKING:
        raise VerificationError(f"an edge at vertex {u} blocks the {what}: both ends prefer "
                                f"it (not the greedy {what})")
