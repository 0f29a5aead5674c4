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
program cache through :meth:`kernel`, keyed by those values.
"""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla

TEMPLATE = "suitor.cl.mako"
SUITOR_VARIANTS = ("nosync", "synclb", "syncnolb", "hybrid")
FOREVER = 1 << 30


def _pow2_floor(x):
    x = max(1, int(x))
    return 1 << (x.bit_length() - 1)


class _Family:
    """Specialization values and launch geometry shared by the drivers."""

    def __init__(self, handle, work_group_size=None, threads_per_vertex=None,
                 vertices_per_group=None, mode="ct", avg_degree=8.0):
        self.handle = handle
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
        local = self.groups_per_wg * (vpg * 12 + 4) + wg * 12 + 4   # gpu_suitor's __local
        if local > handle.local_mem:
            raise ValueError(f"vertices_per_group={vpg} with {self.groups_per_wg} groups per "
                             f"work-group needs {local} bytes of local memory; the device has "
                             f"{handle.local_mem}")
        self.values = dict(index_t="int", offset_t="int", mode=mode, threads_per_vertex=tpv,
                           vertices_per_group=vpg, work_group_size=wg)
        self.ct_items = handle.constant_grid(wg)

    def kernel(self, name):
        return self.handle.kernel(TEMPLATE, name, **self.values)

    def gsize(self, n):
        return min(self.ct_items, int(n)) if self.mode == "ct" else int(n)


class DeviceWeighted:
    """A :class:`~pyclmatch.weighted.graph.WeightedGraph` uploaded once (CSR, float32 weights,
    edge tails computed on the device)."""

    def __init__(self, handle, g, family, extra_bytes=None):
        need = {"row offsets": (g.n + 1) * 4, "adjacency": g.nnz * 4, "weights": g.nnz * 4,
                "edge tails": g.nnz * 4}
        need.update(extra_bytes or {})
        handle.check_fits(need, what="weighted graph")
        q = handle.queue
        self.g = g
        self.handle = handle
        self.xadj = cla.to_device(q, g.indptr)
        self.adj = cla.to_device(q, g.indices)
        self.wt = cla.to_device(q, g.w32)
        self.src = cla.empty(q, max(1, g.nnz), np.int32)
        self.family = family

    def compute_sources(self, sched):
        f = self.family
        sched.launch("prepare", f.kernel("edge_sources"), f.gsize(self.g.n), f.wg,
                     self.xadj.data, np.int32(self.g.n), self.src.data)


class SuitorMatcher(_Family):
    """GPU-Suitor (Algorithm 4 of Paper I) in one of :data:`SUITOR_VARIANTS`."""

    params = ("variant", "vertices_per_group", "work_group_size", "threads_per_vertex",
              "lb_rounds", "batch_rounds")

    def __init__(self, handle, g, variant="nosync", vertices_per_group=None,
                 work_group_size=None, threads_per_vertex=None, lb_rounds=4,
                 batch_rounds=None):
        avg = g.nnz / max(1, g.n)
        super().__init__(handle, work_group_size, threads_per_vertex, vertices_per_group,
                         "ct", avg)
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
        return {"suitor edges": g.n * 4, "ws": g.n * 4, "mate": g.n * 4,
                "work lists": 2 * slots * 4, "group counts": 2 * (slots // vpg + 1) * 4}

    def build(self):
        for name in ("edge_sources", "gpu_suitor", "suitor_mates"):
            self.kernel(name)

    def run(self, dg, sched):
        """Run to completion; returns (mate device array, stats)."""
        q = self.handle.queue
        n = self.g.n
        vpg = self.vpg
        n_groups = -(-n // vpg)
        slots = n_groups * vpg
        suitor_e = cla.empty(q, n, np.int32)
        ws = cla.empty(q, n, np.int32)
        sched.fill("init", suitor_e.data, -1)
        sched.fill("init", ws.data, 0)
        self._bufs = [cla.empty(q, slots, np.int32), cla.empty(q, slots, np.int32)]
        self._cnts = [cla.empty(q, n_groups + 1, np.int32), cla.empty(q, n_groups + 1, np.int32)]
        self._cur = 0
        counters = cla.zeros(q, 2, np.int32)
        # one one-int buffer per iteration of a batch (sub-buffers would need aligned offsets)
        self._slot_bufs = [cla.empty(q, 1, np.int32) for _ in range(max(1, self.batch))]
        self._host = np.zeros(1, np.int32)
        self._k = self.kernel("gpu_suitor")
        self._args = (dg.xadj.data, dg.adj.data, dg.wt.data, dg.src.data, suitor_e.data,
                      ws.data)
        self._counters = counters
        self._sched = sched
        stats = {"sync_iterations": 0}
        bound = 4 * (self.g.nnz + n) + 16 + self.batch + self.lb_rounds
        if self.variant in ("synclb", "hybrid"):
            # load-balanced iterations: the pending vertices are pooled into a dense list and
            # dealt evenly over the groups (and inside each work-group); one read per
            # iteration sizes the next grid
            work_n, identity = n, 1
            for _ in range(self.lb_rounds):
                sched.tick("suitor iterations", bound)
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
            left = self._step(n, 1, slots_in=0, slots_out=1, max_rounds=1, lb_local=0, slot=0,
                              read=False)
            stats["sync_iterations"] += 1
            self._syncnolb(slots, stats, bound)
        else:
            self._nosync(n, 1, stats, bound)
        mate = cla.empty(q, n, np.int32)
        sched.launch("mates", self.kernel("suitor_mates"), self.gsize(n), self.wg,
                     suitor_e.data, dg.src.data, np.int32(n), mate.data)
        c = counters.get()
        stats.update(proposals=int(c[0]), group_iterations=int(c[1]))
        for name in ("_bufs", "_cnts", "_slot_bufs", "_args", "_counters", "_sched", "_k"):
            delattr(self, name)
        return mate, stats

    def _step(self, n_work, identity, slots_in, slots_out, max_rounds, lb_local, slot, read):
        """One launch of gpu_suitor over ``n_work`` work entries; returns the leftover count
        when ``read`` (a blocking read), else None."""
        sched, vpg = self._sched, self.vpg
        cur, nxt = self._cur, 1 - self._cur
        cnt = self._slot_bufs[slot]
        sched.fill("suitor", cnt.data, 0)
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

    def __init__(self, handle, g, work_group_size=None, batch_rounds=None):
        super().__init__(handle, work_group_size, 8, 8, "ct")
        self.g = g
        self.batch = int(batch_rounds or (2 if handle.is_cpu else 4))

    @staticmethod
    def device_bytes(g, vpg=8):
        return {"mate": g.n * 4, "candidate": g.n * 4, "dirty": g.n * 4, "newly": g.n * 4}

    def build(self):
        for name in ("edge_sources", "ld_process_vertex", "ld_match", "ld_mark"):
            self.kernel(name)

    def run(self, dg, sched):
        q = self.handle.queue
        n = self.g.n
        mate = cla.empty(q, n, np.int32)
        cand = cla.empty(q, n, np.int32)
        dirty = cla.empty(q, n, np.int32)
        newly = cla.empty(q, n, np.int32)
        sched.fill("init", mate.data, -1)
        sched.fill("init", cand.data, -1)
        sched.fill("init", dirty.data, 1)
        sched.fill("init", newly.data, 0)
        counts = [cla.empty(q, 1, np.int32) for _ in range(self.batch)]
        host = np.zeros(1, np.int32)
        kp, km, kk = (self.kernel("ld_process_vertex"), self.kernel("ld_match"),
                      self.kernel("ld_mark"))
        nn = np.int32(n)
        gs = self.gsize(n)
        steps = 0
        while True:
            for i in range(self.batch):
                sched.fill("ld", counts[i].data, 0)
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
        return mate, {"ld_steps": int(steps)}


class BSuitorMatcher(_Family):
    """b-Suitor (Paper II) by rounds: propose (every vertex with a deficit proposes to its best
    eligible partners) then accept (every proposed-to vertex keeps its b best offers in a
    sorted list in global memory and rejects the rest)."""

    params = ("work_group_size", "batch_rounds")

    def __init__(self, handle, g, b, work_group_size=None, batch_rounds=None):
        super().__init__(handle, work_group_size, 8, 8, "ct")
        self.g, self.b = g, b
        self.batch = int(batch_rounds or (2 if handle.is_cpu else 4))

    @staticmethod
    def device_bytes(g, b):
        return {"reverse edges": g.nnz * 4, "proposals": g.nnz * 4,
                "suitor lists": int(np.sum(b, dtype=np.int64)) * 4, "b": g.n * 4,
                "list offsets": (g.n + 1) * 4, "state": 4 * g.n * 4}

    def build(self):
        for name in ("edge_sources", "reverse_edges", "bs_propose", "bs_accept"):
            self.kernel(name)

    def run(self, dg, sched):
        q = self.handle.queue
        g, n = self.g, self.g.n
        b = self.b
        bptr_h = np.zeros(n + 1, np.int64)
        np.cumsum(b, out=bptr_h[1:])
        if bptr_h[-1] > np.iinfo(np.int32).max:
            from ..errors import InputError
            raise InputError("sum(b) exceeds 2**31-1")
        bd = cla.to_device(q, b.astype(np.int32))
        bptr = cla.to_device(q, bptr_h.astype(np.int32))
        slist = cla.empty(q, max(1, int(bptr_h[-1])), np.int32)
        ssize = cla.zeros(q, n, np.int32)
        deficit = cla.to_device(q, b.astype(np.int32))
        active = cla.to_device(q, (b > 0).astype(np.int32))
        prop = cla.zeros(q, max(1, g.nnz), np.int32)
        touched = cla.zeros(q, n, np.int32)
        rev = cla.empty(q, max(1, g.nnz), np.int32)
        sched.fill("init", slist.data, -1)
        wg = self.wg
        m = g.nnz
        sched.launch("prepare", self.kernel("reverse_edges"), min(self.ct_items, m), wg,
                     dg.xadj.data, dg.adj.data, dg.src.data, np.int32(m), rev.data)
        kp, ka = self.kernel("bs_propose"), self.kernel("bs_accept")
        counts = [cla.empty(q, 1, np.int32) for _ in range(self.batch)]
        host = np.zeros(1, np.int32)
        nn = np.int32(n)
        gs = self.gsize(n)
        rounds = 0
        bound = int(bptr_h[-1]) + g.nnz + 4 + self.batch
        while True:
            for i in range(self.batch):
                sched.tick("b-suitor rounds", bound)
                sched.fill("bsuitor", counts[i].data, 0)
                sched.launch("bsuitor", kp, gs, wg, dg.xadj.data, dg.adj.data, dg.wt.data, nn,
                             bd.data, bptr.data, slist.data, ssize.data, deficit.data,
                             active.data, prop.data, touched.data, counts[i].data)
                sched.launch("bsuitor", ka, gs, wg, dg.xadj.data, dg.adj.data, dg.wt.data, nn,
                             bd.data, bptr.data, slist.data, ssize.data, deficit.data,
                             active.data, prop.data, touched.data, rev.data)
            rounds += self.batch
            if sched.read("bsuitor", host, counts[-1].data)[0] == 0:
                break
        return (slist, ssize, bptr_h), {"rounds": rounds}
