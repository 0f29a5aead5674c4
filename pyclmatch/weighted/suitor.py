"""Device drivers of the Suitor family (kernels in ``kernels/suitor.cl.mako``).

* :class:`SuitorMatcher`: GPU-Suitor (Paper I, Algorithm 4) with the variants of Section 4:
  ``nosync`` (each work-group runs its chunk to completion in one launch), ``syncnolb`` (one
  launch per recurrent iteration: the host synchronizes all groups between iterations, each
  group keeps its own pending vertices), ``synclb`` (like syncnolb, but for the first
  ``lb_rounds`` iterations the pending vertices are pooled and dealt evenly over the groups,
  globally and inside each work-group) and ``hybrid`` (load-balanced iterations first, then one
  NoSync launch to finish).
* :class:`LocallyDominantMatcher`: the LD baseline (Algorithms 1-2), one work-item per vertex.
* :class:`BSuitorMatcher`: b-Suitor (Paper II) by rounds, sorted suitor lists per vertex.

Each class holds its device handle and specialization values; kernels come from the handle's
program cache through :meth:`kernel`, keyed by those values. Two of them follow the graph: the
weight type ``weight_t`` (float32 or float64: the precision in which weights are compared, see
:func:`~pyclmatch.weighted.graph.resolve_precision`) and the edge-offset type ``offset_t``
(:func:`~pyclmatch.engine.indices.index_types`: 64-bit above 2**31-1 directed edges).
"""
import numpy as np
import pyopencl as cl
from pyopencl.elementwise import ElementwiseKernel

from ..engine.args import blame
from ..engine.family import KernelFamily
from ..errors import InputError
from ..engine.indices import offset_type, require_offset64
from ..engine.compressed import NOT_CANONICAL, raise_structure_problem
from ..engine.intake import DeviceSymmetric
from .graph import asymmetry_error, inexact_error, invalid_weights, weight_error

TEMPLATE = "suitor.cl.mako"
SUITOR_VARIANTS = ("nosync", "synclb", "syncnolb", "hybrid")
FOREVER = 1 << 30
#: OpenCL C names of the weight types, and the integer types of their bits (WEIGHT_BITS)
WEIGHT_C = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
WEIGHT_BITS = {np.dtype(np.float32): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.int64)}


def graph_types(handle, nnz, weight_dtype):
    """``(weight dtype, offset_t, offset dtype)`` of a graph of ``nnz`` directed edges compared
    in ``weight_dtype``; raises :class:`~pyclmatch.errors.DeviceError` when 64-bit offsets
    are needed and the device lacks their atomics."""
    ot, odt = offset_type(nnz)
    if ot == "long":
        require_offset64(handle)
    return np.dtype(weight_dtype), ot, odt


def _pow2_floor(x):
    x = max(1, int(x))
    return 1 << (x.bit_length() - 1)


class _Family(KernelFamily):
    """Specialization values and launch geometry shared by the drivers."""

    TEMPLATE = TEMPLATE
    #: the kernels one run launches (built ahead by :meth:`build`)
    KERNELS = ()

    def __init__(self, handle, work_group_size=None, threads_per_vertex=None,
                 vertices_per_group=None, mode="ct", avg_degree=8.0, weight_dtype=np.float32,
                 offset_t="int"):
        self.wdt = np.dtype(weight_dtype)
        self.offset_t = offset_t
        self.odt = np.dtype(np.int64 if offset_t == "long" else np.int32)
        wg = int(work_group_size or (128 if not handle.is_cpu else 64))
        wg = _pow2_floor(min(wg, handle.max_work_group_size))
        if threads_per_vertex in (None, "auto"):
            # the paper's warp is 32 lanes; lists much shorter than that leave lanes idle,
            # so "auto" takes the power of two nearest the average degree, within [4, 32]
            tpv = _pow2_floor(max(4, min(32, avg_degree * 1.5)))
            if handle.is_cpu:
                tpv = min(tpv, 8)
        else:
            tpv = int(threads_per_vertex)
        if tpv < 1 or tpv & (tpv - 1):
            raise ValueError(f"threads_per_vertex must be a power of two, got {tpv}")
        tpv = min(tpv, wg)
        vpg = int(vertices_per_group or 8)
        if vpg < 1:
            raise ValueError("vertices_per_group must be >= 1")
        self.wg, self.tpv, self.vpg, self.mode = wg, tpv, vpg, mode
        self.groups_per_wg = wg // tpv
        osz, wsz = self.odt.itemsize, self.wdt.itemsize            # gpu_suitor's __local:
        local = self.groups_per_wg * (vpg * (8 + osz) + 4) + wg * (4 + osz + wsz) + 4
        if local > handle.local_mem:
            raise InputError(f"vertices_per_group={vpg} with {self.groups_per_wg} groups per "
                             f"work-group needs {local} bytes of local memory; the device has "
                             f"{handle.local_mem}", argument="vertices_per_group")
        super().__init__(handle, index_t="int", offset_t=offset_t, mode=mode,
                         threads_per_vertex=tpv, vertices_per_group=vpg, work_group_size=wg,
                         weight_t=WEIGHT_C[self.wdt])
        self.ct_items = handle.constant_grid(wg)

    def build(self, *names):
        """Build the kernels ``names``, by default every kernel of the driver (``KERNELS``)."""
        super().build(*(names or self.KERNELS))


    def gsize(self, n):
        return min(self.ct_items, int(n)) if self.mode == "ct" else int(n)


class IntakeGraph:
    """What the families need to know of a graph taken in by the device
    (:meth:`DeviceWeighted.from_input`): ``n``, ``nnz`` (directed edges, the diagonal
    dropped), ``nodes``; ``input`` is the :class:`~pyclmatch.weighted.graph.SparseInput`
    (its host graph serves ``verify="host"``)."""

    def __init__(self, src, nnz):
        self.input, self.n, self.nnz, self.nodes = src, src.n, int(nnz), src.nodes

    @property
    def m(self):
        return self.nnz // 2

    def host_graph(self):
        return self.input.host_graph()


class DeviceWeighted:
    """A weighted graph on the device: ``xadj``/``adj`` (symmetric CSR, sorted lists), ``wt``
    (the weights in the type ``wdt`` the family compares, float32 or float64), and, computed
    on the device by :meth:`setup` and kept with the arrays (``keep_on_device`` reuses all of
    them), the edge tails ``src`` and for b-Suitor the reverse edges ``rev``. ``g`` describes
    the graph (``n``, ``nnz``, ``nodes``): a :class:`~pyclmatch.weighted.graph.WeightedGraph`
    uploaded as it is, or an :class:`IntakeGraph` (:meth:`from_input`). ``weights``: the
    input's weights (host) at the positions ``orig`` maps the device's edges to (``None``: the
    same positions). ``offset_t``/``odt``: the edge-offset type of ``xadj``, ``rev``,
    ``orig`` (:func:`graph_types`)."""

    def __init__(self, handle, g, extra_bytes=None, weight_dtype=np.float32):
        self.wdt, self.offset_t, self.odt = graph_types(handle, g.nnz, weight_dtype)
        osz, wsz = self.odt.itemsize, self.wdt.itemsize
        need = {"row offsets": (g.n + 1) * osz, "adjacency": g.nnz * 4,
                "weights": g.nnz * wsz, "edge tails": g.nnz * 4}
        need.update(extra_bytes or {})
        handle.check_fits(need, what="weighted graph")
        self.g = g
        self.handle = handle
        self.src = None
        self.rev = None
        self.orig = None
        if isinstance(g, IntakeGraph):
            return                            # (from_input fills the arrays)
        # (from the pinned copies made by prepare_graph(device=...) when there are some)
        self.xadj = (g.upload(handle, "indptr") if g.indptr.dtype == self.odt
                     else handle.to_device(g.indptr.astype(self.odt)))
        self.adj = g.upload(handle, "indices")
        self.wt = g.upload(handle, "w64" if self.wdt == np.float64 else "w32")
        self.weights = g.w64
        self.huge = g.huge

    @property
    def types(self):
        """The specialization values the graph fixes: ``weight_dtype``, ``offset_t``."""
        return {"weight_dtype": self.wdt, "offset_t": self.offset_t}

    @classmethod
    @blame("G")
    def from_input(cls, handle, src, sched, extra_bytes=None, reverse=False):
        """Take a :class:`~pyclmatch.weighted.graph.SparseInput` in on the device
        (:class:`~pyclmatch.engine.intake.DeviceSymmetric`, one read-back): the structure,
        the weights (finite, positive, also in the weight type ``src.weight_dtype``, and
        exact there where ``src.check_exact``) and the symmetry are checked there, the
        diagonal is dropped there when there is one, the weights are converted there;
        with ``reverse``, the reverse edges ``rev`` come from the symmetry check's searches.
        Unsorted lists or repeated entries are made canonical on the host (a copy, duplicates
        summed as scipy sums them) and checked again: the checks see the merged values.
        Returns a device graph, or ``None`` when the input needs the host graph
        (``drop_invalid`` with invalid weights, ``symmetrize`` with an asymmetric matrix);
        raises :class:`~pyclmatch.errors.InputError` with the host checks' messages."""
        wdt = src.weight_dtype
        # the uploads besides the device graph: indices that are not int32 (converted
        # there), weights that are not of the weight type (converted there)
        need = {"input indices": src.nnz * 8 if src.indices.dtype != np.int32 else 0,
                "input weights": src.nnz * src.data.dtype.itemsize
                if src.data.dtype != wdt else 0}
        need.update(extra_bytes or {})
        self = cls(handle, IntakeGraph(src, src.nnz), need, wdt)
        while True:
            ds = DeviceSymmetric(handle, src.indptr, src.indices, src.data, src.n,
                                 sched=sched, twins=reverse, weight_dtype=wdt,
                                 check_exact=src.check_exact)
            rep = ds.problems(sched)
            raise_structure_problem(rep.structure, "the sparse matrix")
            if rep.structure & NOT_CANONICAL:    # duplicates are summed before any check
                src.make_canonical()
                continue
            if rep.bad:
                if src.drop_invalid:
                    return None
                # the first invalid value off the diagonal in the first row holding one
                r = rep.first_bad_row
                lo, hi = int(src.indptr[r]), int(src.indptr[r + 1])
                bad = invalid_weights(src.data[lo:hi], wdt) & (src.indices[lo:hi] != r)
                raise weight_error(src.data[lo + int(np.flatnonzero(bad)[0])], rep.bad,
                                   dtype=wdt)
            if rep.inexact:
                raise inexact_error(rep.inexact)
            break
        if rep.asymmetric:
            if src.symmetrize:
                return None
            raise asymmetry_error(src.matrix)
        if rep.diagonal:
            ds.drop_diagonal(sched, rep.diagonal)
        ds.release_inputs()
        self.g = IntakeGraph(src, ds.nnz)
        self.xadj, self.adj, self.wt, self.orig = ds.ptr, ds.ind, ds.w, ds.orig
        self.offset_t, self.odt = ds.offset_t, ds.odt
        self.rev = ds.twin
        self.weights = src.data
        self.huge = bool(rep.huge)
        return self

    def input_positions(self, pos):
        """Map the device edge positions ``pos`` (device array of the offset type, -1 =
        none) to the input's, in place (a no-op unless the diagonal was dropped)."""
        if self.orig is None:
            return pos
        h = self.handle
        ct = self.offset_t
        knl = h.memoize(("weighted", "input positions", ct), lambda: ElementwiseKernel(
            h.context, f"{ct} *pos, {ct} *orig",
            "if (pos[i] >= 0) pos[i] = orig[pos[i]]", "input_positions"))
        if pos.size:
            knl(pos, self.orig, queue=h.queue)
        return pos

    def setup(self, sched, family, reverse=False):
        """Enqueue what is missing of the edge tails (and reverse edges when ``reverse``);
        returns True when something was launched (phase ``setup``)."""
        f = family
        did = False
        if self.src is None:
            self.src = f.empty(max(1, self.g.nnz))
            sched.launch("setup", f.kernel("edge_sources"), f.gsize(self.g.n), f.wg,
                         self.xadj.data, np.int32(self.g.n), self.src.data)
            did = True
        if reverse and self.rev is None and self.handle.is_cpu \
                and hasattr(self.g, "reverse_edges"):
            # a CPU device is the host: scipy's O(m) counting sort beats binary searches,
            # and the result (kept with the graph) is wrapped, not copied
            self.rev = self.handle.to_device(self.g.reverse_edges(self.odt))
        elif reverse and self.rev is None:
            m = self.g.nnz
            self.rev = f.empty(max(1, m), self.odt)
            sched.launch("setup", f.kernel("reverse_edges"), min(f.ct_items, m), f.wg,
                         self.xadj.data, self.adj.data, self.src.data, self.odt.type(m),
                         self.rev.data)
            did = True
        return did


class SuitorMatcher(_Family):
    """GPU-Suitor (Algorithm 4 of Paper I) in one of :data:`SUITOR_VARIANTS`."""

    params = ("variant", "vertices_per_group", "work_group_size", "threads_per_vertex",
              "lb_rounds", "batch_rounds")

    def __init__(self, handle, g, variant="nosync", vertices_per_group=None,
                 work_group_size=None, threads_per_vertex=None, lb_rounds=4,
                 batch_rounds=None, weight_dtype=np.float32, offset_t="int"):
        avg = g.nnz / max(1, g.n)
        super().__init__(handle, work_group_size, threads_per_vertex, vertices_per_group,
                         "ct", avg, weight_dtype, offset_t)
        variant = (variant or "nosync").lower()
        if variant not in SUITOR_VARIANTS:
            raise ValueError(f"unknown Suitor variant {variant!r}; choose one of "
                             + ", ".join(SUITOR_VARIANTS))
        self.variant = variant
        self.lb_rounds = int(lb_rounds)
        self.batch = int(batch_rounds or (4 if handle.is_cpu else 8))
        self.g = g

    @staticmethod
    def device_bytes(g, vpg=8):
        slots = (-(-g.n // vpg)) * vpg
        return {"suitor edges": g.n * 8, "ws": g.n * 8, "mate": g.n * 8, "pair edges": g.n * 8,
                "work lists": 2 * slots * 4, "group counts": 2 * (slots // vpg + 1) * 4}

    KERNELS = ("edge_sources", "gpu_suitor", "suitor_mates")

    def run(self, dg, sched):
        """Run to completion; returns ((mate, pair_e, pairs), stats): device arrays ``mate``
        (int64) and ``pair_e`` (the edge (v -> mate[v]) when v < mate[v], else -1), and the
        number of matched pairs (one read-back with the counters)."""
        suitor_e = self._init_state(dg, sched)
        stats = {"sync_iterations": 0}
        self._propose(stats, 4 * (self.g.nnz + self.g.n) + 16 + self.batch + self.lb_rounds)
        result = self._mates(dg, suitor_e, sched, stats)
        for name in ("_bufs", "_cnts", "_slot_bufs", "_args", "_counters", "_sched", "_k"):
            delattr(self, name)
        return result, stats

    def _init_state(self, dg, sched):
        """No vertex has a suitor; every vertex is pending. Returns ``suitor_e``."""
        n, vpg = self.g.n, self.vpg
        n_groups = -(-n // vpg)
        slots = n_groups * vpg
        suitor_e = self.empty(n, self.odt)
        ws = self.empty(n, WEIGHT_BITS[self.wdt])
        sched.fill("init", suitor_e, -1)
        sched.fill("init", ws, 0)
        self._bufs = [self.empty(slots, np.int32), self.empty(slots, np.int32)]
        self._cnts = [self.empty(n_groups + 1, np.int32), self.empty(n_groups + 1, np.int32)]
        self._cur = 0
        counters = self.empty(3)
        sched.fill("init", counters, 0)
        # one one-int buffer per iteration of a batch (sub-buffers would need aligned offsets)
        self._slot_bufs = [self.empty(1, np.int32) for _ in range(max(1, self.batch))]
        self._host = np.zeros(1, np.int32)
        self._k = self.kernel("gpu_suitor")
        self._args = (dg.xadj.data, dg.adj.data, dg.wt.data, dg.src.data, suitor_e.data,
                      ws.data)
        self._counters = counters
        self._sched = sched
        return suitor_e

    def _propose(self, stats, bound):
        """The proposals of the variant (Section 4 of Paper I) until no vertex is pending."""
        n, vpg = self.g.n, self.vpg
        slots = -(-n // vpg) * vpg
        if self.variant in ("synclb", "hybrid"):
            # load-balanced iterations: the pending vertices are pooled into a dense list and
            # dealt evenly over the groups (and inside each work-group); one read per
            # iteration sizes the next grid
            work_n, identity = n, 1
            for _ in range(self.lb_rounds):
                self._sched.tick("suitor iterations", bound)
                work_n = self._step(work_n, identity, slots_in=0, slots_out=0, max_rounds=1,
                                    lb_local=1, slot=0, read=True)
                identity = 0
                stats["sync_iterations"] += 1
                if work_n == 0:
                    break
            if work_n and self.variant == "hybrid":
                self._nosync(work_n, identity, stats, bound)
            elif work_n:
                # then without load balancing: dense list -> per-group slots
                left = self._step(work_n, identity, slots_in=0, slots_out=1, max_rounds=1,
                                  lb_local=0, slot=0, read=True)
                stats["sync_iterations"] += 1
                if left:
                    self._syncnolb(-(-work_n // vpg) * vpg, stats, bound)
        elif self.variant == "syncnolb":
            self._step(n, 1, slots_in=0, slots_out=1, max_rounds=1, lb_local=0, slot=0,
                       read=False)
            stats["sync_iterations"] += 1
            self._syncnolb(slots, stats, bound)
        else:
            self._nosync(n, 1, stats, bound)

    def _mates(self, dg, suitor_e, sched, stats):
        """The mutual suitors as ``(mate, pair_e, pairs)`` (one read-back)."""
        n = self.g.n
        mate = self.empty(n, np.int64)
        pair_e = self.empty(n, self.odt)
        sched.launch("mates", self.kernel("suitor_mates"), self.gsize(n), self.wg,
                     suitor_e.data, dg.src.data, np.int32(n), mate.data, pair_e.data,
                     self._counters.data)
        c = sched.read("mates", np.zeros(3, np.int32), self._counters.data)
        stats.update(proposals=int(c[0]), group_iterations=int(c[1]))
        return mate, pair_e, int(c[2])

    def _step(self, n_work, identity, slots_in, slots_out, max_rounds, lb_local, slot, read):
        """One launch of gpu_suitor over ``n_work`` work entries; returns the leftover count
        when ``read`` (a blocking read), else None."""
        sched, vpg = self._sched, self.vpg
        cur, nxt = self._cur, 1 - self._cur
        cnt = self._slot_bufs[slot]
        sched.fill("suitor", cnt, 0)
        groups = -(-int(n_work) // vpg)
        if groups:
            wgs = -(-groups // self.groups_per_wg)
            sched.launch("suitor", self._k, wgs * self.wg, self.wg, *self._args,
                         self._bufs[cur].data, np.int32(n_work), np.int32(identity),
                         np.int32(slots_in), self._cnts[cur].data, self._bufs[nxt].data,
                         self._cnts[nxt].data, np.int32(slots_out), cnt.data,
                         np.int32(max_rounds), np.int32(lb_local), self._counters.data)
        self._cur = nxt
        if read:
            return int(sched.read("suitor", self._host, cnt.data)[0])
        return None

    def _nosync(self, work_n, identity, stats, bound):
        # NoSync: every group iterates until its chunk is done, all in one launch; leftovers
        # could only come from the iteration cap and are run the same way
        while work_n:
            sched = self._sched
            sched.tick("suitor iterations", bound)
            work_n = self._step(work_n, identity, slots_in=0, slots_out=0,
                                max_rounds=FOREVER, lb_local=0, slot=0, read=True)
            identity = 0
            stats["sync_iterations"] += 1

    def _syncnolb(self, n_slots, stats, bound):
        # one launch per iteration over all groups, each keeping its own pending vertices
        # (slots layout); the leftover count is read once per batch of iterations
        while True:
            for i in range(self.batch):
                self._sched.tick("suitor iterations", bound)
                self._step(n_slots, 0, slots_in=1, slots_out=1, max_rounds=1, lb_local=0,
                           slot=i, read=False)
                stats["sync_iterations"] += 1
            if int(self._sched.read("suitor", self._host,
                                    self._slot_bufs[self.batch - 1].data)[0]) == 0:
                return


class LocallyDominantMatcher(_Family):
    """The locally-dominant algorithm (Algorithms 1-2 of Paper I), one work-item per vertex,
    the queues as flag arrays; several steps are enqueued between two reads."""

    params = ("work_group_size", "batch_rounds")

    def __init__(self, handle, g, work_group_size=None, batch_rounds=None,
                 weight_dtype=np.float32, offset_t="int"):
        super().__init__(handle, work_group_size, 8, 8, "ct", weight_dtype=weight_dtype,
                         offset_t=offset_t)
        self.g = g
        self.batch = int(batch_rounds or (2 if handle.is_cpu else 4))

    @staticmethod
    def device_bytes(g, vpg=8):
        return {"mate": g.n * 4, "candidate": g.n * 4, "dirty": g.n * 4, "newly": g.n * 4,
                "mate (64-bit)": g.n * 8, "pair edges": g.n * 8}

    KERNELS = ("edge_sources", "ld_process_vertex", "ld_match", "ld_mark", "mate_pairs")

    def run(self, dg, sched):
        n = self.g.n
        mate = self.empty(n, np.int32)
        cand = self.empty(n, np.int32)
        dirty = self.empty(n, np.int32)
        newly = self.empty(n, np.int32)
        sched.fill("init", mate, -1)
        sched.fill("init", cand, -1)
        sched.fill("init", dirty, 1)
        sched.fill("init", newly, 0)
        counts = [self.empty(1, np.int32) for _ in range(self.batch)]
        host = np.zeros(1, np.int32)
        kp, km, kk = (self.kernel("ld_process_vertex"), self.kernel("ld_match"),
                      self.kernel("ld_mark"))
        nn = np.int32(n)
        gs = self.gsize(n)
        steps = 0
        while True:
            for i in range(self.batch):
                sched.fill("ld", counts[i], 0)
                sched.tick("ld steps", n + 2 + self.batch)
                sched.launch("ld", kp, gs, self.wg, dg.xadj.data, dg.adj.data, dg.wt.data, nn,
                             mate.data, cand.data, dirty.data)
                sched.launch("ld", km, gs, self.wg, nn, cand.data, mate.data, newly.data,
                             counts[i].data)
                sched.launch("ld", kk, gs, self.wg, dg.xadj.data, dg.adj.data, nn, mate.data,
                             cand.data, newly.data, dirty.data)
            steps += self.batch
            if sched.read("ld", host, counts[-1].data)[0] == 0:
                break
        mate64 = self.empty(n, np.int64)
        pair_e = self.empty(n, self.odt)
        cnt = counts[0]
        sched.fill("mates", cnt, 0)
        sched.launch("mates", self.kernel("mate_pairs"), gs, self.wg, dg.xadj.data,
                     dg.adj.data, nn, mate.data, mate64.data, pair_e.data, cnt.data)
        pairs = int(sched.read("mates", host, cnt.data)[0])
        return (mate64, pair_e, pairs), {"ld_steps": int(steps)}


class BSuitorMatcher(_Family):
    """b-Suitor (Paper II) by rounds: propose (every vertex with a deficit proposes to its best
    eligible partners) then accept (every proposed-to vertex keeps its b best offers in a
    sorted list in global memory and rejects the rest). The matched pairs are gathered on the
    device (degree, one exclusive scan, pairs in lexicographic order with their CSR edges), so
    that only the answer comes back."""

    params = ("work_group_size", "batch_rounds")

    def __init__(self, handle, g, b, work_group_size=None, batch_rounds=None,
                 weight_dtype=np.float32, offset_t="int"):
        super().__init__(handle, work_group_size, 8, 8, "ct", weight_dtype=weight_dtype,
                         offset_t=offset_t)
        self.g, self.b = g, np.ascontiguousarray(b, dtype=np.int32)
        self.batch = int(batch_rounds or (2 if handle.is_cpu else 4))
        self.total_b = int(np.sum(b, dtype=np.int64))
        if self.total_b > np.iinfo(np.int32).max:
            raise ValueError("sum(b) exceeds 2**31-1")

    @staticmethod
    def device_bytes(g, b):
        osz = 8 if g.nnz > np.iinfo(np.int32).max else 4
        return {"reverse edges": g.nnz * osz, "proposals": g.nnz * 4,
                "suitor lists": int(np.sum(b, dtype=np.int64)) * osz, "b": g.n * 4,
                "list offsets": (g.n + 1) * osz, "state": 4 * g.n * 4,
                "degree": g.n * 8, "pair counts": 2 * g.n * 4}

    KERNELS = ("edge_sources", "reverse_edges", "bs_init", "bs_propose", "bs_accept",
               "bs_degree", "bs_pairs")

    def exclusive_scan(self, sched, phase, src, dst, n, total):
        """dst[i] = src[0] + ... + src[i-1] (int32 ``src``, n entries, summed in the type of
        ``dst``), total[0] = the sum (the engine's pyopencl scan; no read-back)."""
        evt = self.handle.exclusive_scan(src[:n], dst[:n], total)
        sched.record(phase, evt)

    def run(self, dg, sched):
        """Rounds to the fixpoint; returns the device arrays of the state and stats."""
        q = self.handle.queue
        g, n = self.g, self.g.n
        wg = self.wg
        nn = np.int32(n)
        gs = self.gsize(n)
        bd = self.empty(n)
        cl.enqueue_copy(q, bd.data, self.b, is_blocking=False)
        bptr = self.empty(n, self.odt)
        btot = self.empty(1, self.odt)
        self.exclusive_scan(sched, "init", bd, bptr, n, btot)
        slist = self.empty(max(1, self.total_b), self.odt)
        ssize = self.empty(n, np.int32)
        deficit = self.empty(n, np.int32)
        active = self.empty(n, np.int32)
        touched = self.empty(n, np.int32)
        prop = self.empty(max(1, g.nnz), np.int32)
        sched.fill("init", prop, 0)
        sched.launch("init", self.kernel("bs_init"), gs, wg, nn, bd.data, deficit.data,
                     active.data, ssize.data, touched.data)
        rev = dg.rev
        kp, ka = self.kernel("bs_propose"), self.kernel("bs_accept")
        counts = [self.empty(1, np.int32) for _ in range(self.batch)]
        host = np.zeros(1, np.int32)
        rounds = 0
        bound = self.total_b + g.nnz + 4 + self.batch
        while True:
            for i in range(self.batch):
                sched.tick("b-suitor rounds", bound)
                sched.fill("bsuitor", counts[i], 0)
                sched.launch("bsuitor", kp, gs, wg, dg.xadj.data, dg.adj.data, dg.wt.data, nn,
                             bd.data, bptr.data, slist.data, ssize.data, deficit.data,
                             active.data, prop.data, touched.data, counts[i].data)
                sched.launch("bsuitor", ka, gs, wg, dg.xadj.data, dg.adj.data, dg.wt.data, nn,
                             bd.data, bptr.data, slist.data, ssize.data, deficit.data,
                             active.data, prop.data, touched.data, rev.data)
            rounds += self.batch
            if sched.read("bsuitor", host, counts[-1].data)[0] == 0:
                break
        self._state = (bptr, slist, ssize, prop)
        return {"rounds": rounds}

    def pairs(self, dg, sched):
        """The matched pairs on the device: returns (edges int64 (k, 2) device array, pair
        edges (k,) in the offset type, degree int64 (n,), k, non-mutual entries); one read-back of
        (k, non-mutual) to size the output."""
        n = self.g.n
        wg, gs, nn = self.wg, self.gsize(n), np.int32(n)
        bptr, slist, ssize, prop = self._state
        del self._state
        degree = self.empty(n, np.int64)
        own = self.empty(n, np.int32)
        at = self.empty(n, np.int32)
        info = self.empty(2, np.int32)          # [k, non-mutual entries]
        sched.fill("pairs", info, 0)
        sched.launch("pairs", self.kernel("bs_degree"), gs, wg, nn, bptr.data, slist.data,
                     ssize.data, dg.adj.data, prop.data, degree.data, own.data, info.data)
        self.exclusive_scan(sched, "pairs", own, at, n, info)     # info[0] = k
        k, bad = (int(x) for x in sched.read("pairs", np.zeros(2, np.int32), info.data))
        edges = self.empty((max(1, k), 2), np.int64)
        pair_e = self.empty(max(1, k), self.odt)
        if k:
            sched.launch("pairs", self.kernel("bs_pairs"), gs, wg, nn, bptr.data, slist.data,
                         ssize.data, dg.adj.data, prop.data, own.data, at.data, edges.data,
                         pair_e.data)
        return edges, pair_e, degree, k, bad
