"""Drivers of the augmenting-path family (paper 000) and of the initial matchings.

Each driver is a class holding its device handle and specialization values; kernels are fetched
from the handle's program cache by memoized getters keyed by those values, in pyopencl's style.
"""
import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ..errors import IterationLimitError

BFS_TEMPLATE = "bipartite_bfs.cl.mako"
INIT_TEMPLATE = "bipartite_init.cl.mako"
L0 = 2

DRIVERS = ("apfb", "apsb")
BFS_KERNELS = ("gpubfs", "gpubfs-wr")
THREAD_MODES = ("ct", "mt")
AUGMENTING_VARIANTS = tuple(f"{d}-{b}-{m}" for d in DRIVERS for b in BFS_KERNELS
                            for m in THREAD_MODES)
INITS = ("karp-sipser", "cheap", "none")


def parse_variant(name):
    """``"apfb-gpubfs-wr-ct"`` -> ``("apfb", True, "ct")`` (driver, with root array, mode)."""
    parts = name.lower().split("-")
    if len(parts) not in (3, 4) or parts[0] not in DRIVERS or parts[1] != "gpubfs" \
            or parts[-1] not in THREAD_MODES or (len(parts) == 4 and parts[2] != "wr"):
        raise ValueError(name)
    return parts[0], len(parts) == 4, parts[-1]


def default_heavy_degree(handle, work_group_size):
    """The default threshold above which a vertex is heavy (processed by a whole work-group);
    -1 = no heavy tier.

    GPUs: 64. A work-item walking d edges alone costs d dependent memory round trips while its
    SIMD neighbours idle, and a group needs about d / work_group_size of them plus a few
    barriers, so the tier pays off on power-law graphs. Measured on the H100
    (benchmarks/results/heavy-h100, kron-21, median device seconds of APFB/GPUBFS-WR-MT):
    23.4 ms without the tier, 12.1 ms with heavy_degree=64, 13.9 / 14.5 / 14.9 ms with 256 /
    1024 / 4096 (CT mode alike: 24.2 -> 14.0 ms); Karp-Sipser's hub loops drop from 10.8 to
    2.1 ms. ECL-MM takes 10 ms. Graphs without a vertex above the threshold (meshes, uniform
    random graphs of low degree) render the kernels without the tier: nothing changes there.
    CPU devices (PoCL): off. A work-group is one core's loop there, so a group-cooperative
    vertex costs the same edge visits plus its barriers (about 1.3 us per vertex for a group
    of 64 on 2-core PoCL: Karp-Sipser's first round on kron(16), 6719 heavy columns, took
    10.3 ms instead of 1.6 ms with heavy_degree=64), and no core idles behind a long list.
    """
    return -1 if handle.is_cpu else 64


def default_one_group_edges(handle):
    """The largest graph (edges) that runs APFB/APsB whole in one work-group by default (0:
    never): the device profile's ``one_group_edges`` (:mod:`pyclmatch.bipartite.choice`).

    One work-group runs on one compute unit (an SM of a GPU, a core under PoCL), so the path
    trades the device's width for the launches and read-backs it saves: it wins while a BFS
    level's work per work-item stays below a launch and a read-back (measured crossovers:
    benchmarks/results/small-h100 and small-pocl, ``bench_small.py --one-group-sweep``).
    """
    from .choice import device_profile
    return int(device_profile(handle)[0]["one_group_edges"])


def one_group_size(handle):
    """Work-items of the one work-group: the device's largest group, at most 1024."""
    return int(min(handle.max_work_group_size, 1024))


#: the smallest work-group that gets a heavy tier: a smaller group gains next to nothing from
#: cooperating, and PoCL compiles groups of 1-2 work-items by full replication
#: (POCL_FULL_REPLICATION_THRESHOLD), which crashes on the heavy kernels (PoCL 3.1)
HEAVY_MIN_GROUP = 4


class HeavyTier:
    """Launch geometry of the heavy tier for one side (see HEAVY TIER in common.cl.mako):
    the first ``groups`` work-groups of a launch take ``batch`` heavy vertices per round."""

    __slots__ = ("vertices", "count", "groups", "batch")

    def __init__(self, vertices, count, groups, batch):
        self.vertices, self.count, self.groups, self.batch = vertices, count, groups, batch


class _Launcher:
    """Geometry shared by the drivers: work-group size, CT/MT global sizes and heavy tiers.

    ``heavy_degree``: vertices of larger degree are processed by a whole work-group (None: the
    device default, :func:`default_heavy_degree`; 0: every vertex with an edge; negative:
    never; never either with work-groups smaller than ``HEAVY_MIN_GROUP``).
    ``heavy_groups``: at most this many work-groups form the heavy tier of a launch (default:
    the CT grid's group count); each takes ``batch`` heavy vertices per round.
    """

    def __init__(self, handle, mode, work_group_size=None, ct_work_items=None,
                 heavy_degree=None, heavy_groups=None):
        if mode not in THREAD_MODES:
            raise ValueError(f"thread mode must be 'ct' or 'mt', not {mode!r}")
        self.handle, self.mode = handle, mode
        self.wg = int(work_group_size or handle.default_work_group_size())
        self.wg = max(1, min(self.wg, handle.max_work_group_size))
        self.ct_items = int(ct_work_items or handle.constant_grid(self.wg))
        self.heavy_degree = (default_heavy_degree(handle, self.wg) if heavy_degree is None
                             else max(-1, int(heavy_degree)))
        self.heavy_group_cap = max(1, int(heavy_groups or self.ct_items // self.wg))
        self.tiers, self._heavy_args = {}, {}

    def global_size(self, n):
        return min(self.ct_items, int(n)) if self.mode == "ct" else int(n)

    def prepare_heavy(self, dgraph, sides, sched=None):
        """Find the heavy vertices of ``sides`` (once per device graph; one read-back for
        all sides, through ``sched`` when given); returns the ``heavy_degree`` template value:
        the threshold if a side has heavy vertices, else -1 (the kernels are then rendered
        without heavy tier and launched as before)."""
        self.tiers, self._heavy_args = {}, {}
        if self.heavy_degree < 0 or self.wg < HEAVY_MIN_GROUP:
            return -1
        for side, hl in zip(sides, dgraph.heavy_many(sides, self.heavy_degree, sched)):
            if hl.count:
                groups = min(self.heavy_group_cap, hl.count)
                batch = min(self.wg, -(-hl.count // groups))
                self.tiers[side] = HeavyTier(hl.vertices, hl.count, groups, batch)
        return self.heavy_degree if self.tiers else -1

    def launch(self, sched, phase, kernel, side, n, *args):
        """Launch ``kernel`` over ``n`` vertices of ``side``; with heavy tiers, the heavy
        groups of that side come first in the grid and the heavy arguments last (built once
        per side and reused by every launch)."""
        if not self.tiers:
            return sched.launch(phase, kernel, self.global_size(n), self.wg, *args)
        pre = self._heavy_args.get(side)
        if pre is None:
            tier = self.tiers.get(side)
            if tier is None:  # this side has no heavy vertex: an empty tier (any list will do)
                tier = HeavyTier(next(iter(self.tiers.values())).vertices, 0, 0, 1)
            pre = (tier.groups * self.wg,
                   (tier.vertices.data, np.int32(tier.count), np.int32(tier.groups),
                    np.int32(tier.batch),
                    cl.LocalMemory(4 * (3 * self.wg + 1))))   # scratch: int index_t
            self._heavy_args[side] = pre
        light = -(-self.global_size(n) // self.wg) * self.wg
        return sched.launch(phase, kernel, pre[0] + light, self.wg, *args, *pre[1])


class InitialMatcher(_Launcher):
    """Cheap (greedy) matching and parallel Karp-Sipser on the device (degree-aware: see
    :class:`_Launcher`)."""

    def __init__(self, handle, dgraph, mode="ct", work_group_size=None, ct_work_items=None,
                 ks_rounds=32, heavy_degree=None, heavy_groups=None):
        super().__init__(handle, mode, work_group_size, ct_work_items, heavy_degree,
                         heavy_groups)
        self.dg = dgraph
        self.ks_rounds = int(ks_rounds)
        self.values = dict(dgraph.type_values, mode=mode, heavy_degree=-1)

    def prepare(self, init, sched=None):
        """Heavy lists of the sides ``init`` walks (columns; rows too for Karp-Sipser)."""
        if init == "none":
            return
        sides = ("cols", "rows") if init == "karp-sipser" else ("cols",)
        self.values["heavy_degree"] = self.prepare_heavy(self.dg, sides, sched)

    def kernel(self, name):
        return self.handle.kernel(INIT_TEMPLATE, name, **self.values)

    def run(self, init, rmatch, cmatch, sched):
        g = self.dg.graph
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        cp, ci = self.dg.col_ptr.data, self.dg.col_ind.data
        if init == "none":
            return
        if init == "karp-sipser":
            q = self.handle.queue
            cdeg = cla.empty(q, int(nc), self.dg.idt)
            rdeg = cla.empty(q, int(nr), self.dg.idt)
            flags = cla.zeros(q, 1, np.int32)
            host = np.zeros(1, np.int32)
            rp, ri = self.dg.row_ptr.data, self.dg.row_ind.data
            deg, deg1 = self.kernel("ks_degrees"), self.kernel("ks_match_deg1")
            mindeg = self.kernel("ks_match_mindeg")
            for _ in range(self.ks_rounds):
                sched.fill("init", flags.data, 0)
                self.launch(sched, "init", deg, "cols", nc,
                            cp, ci, nc, cmatch.data, rmatch.data, cdeg.data)
                self.launch(sched, "init", deg, "rows", nr,
                            rp, ri, nr, rmatch.data, cmatch.data, rdeg.data)
                self.launch(sched, "init", deg1, "cols", nc,
                            cp, ci, nc, cmatch.data, rmatch.data, cdeg.data, flags.data)
                self.launch(sched, "init", deg1, "rows", nr,
                            rp, ri, nr, rmatch.data, cmatch.data, rdeg.data, flags.data)
                self.launch(sched, "init", mindeg, "cols", nc,
                            cp, ci, nc, cmatch.data, rmatch.data, rdeg.data, flags.data)
                if sched.read("init", host, flags.data)[0] == 0:
                    break
        # one cheap pass makes any initial matching maximal (and is the whole "cheap" init)
        self.launch(sched, "init", self.kernel("cheap_match"), "cols", nc,
                    cp, ci, nc, rmatch.data, cmatch.data)


class AugmentingPathMatcher(_Launcher):
    """APFB / APsB with GPUBFS or GPUBFS-WR, CT or MT (Algorithm 1 of paper 000).

    ``batch_levels`` is the largest number of BFS levels enqueued between two reads of the
    flags; batches start at 2 levels in each phase and double up to it.
    """

    def __init__(self, handle, dgraph, driver="apfb", wr=True, mode="ct",
                 work_group_size=None, ct_work_items=None, batch_levels=None,
                 heavy_degree=None, heavy_groups=None, one_group_edges=None):
        super().__init__(handle, mode, work_group_size, ct_work_items, heavy_degree,
                         heavy_groups)
        limit = (default_one_group_edges(handle) if one_group_edges is None
                 else int(one_group_edges))
        #: the whole algorithm in one work-group (one launch): graphs of <= limit edges
        self.one_group = 0 < dgraph.graph.nnz <= limit
        if driver not in DRIVERS:
            raise ValueError(f"driver must be 'apfb' or 'apsb', not {driver!r}")
        self.dg, self.driver, self.wr = dgraph, driver, bool(wr)
        self.apsb = driver == "apsb"
        self.batch_levels = int(batch_levels or (8 if handle.is_cpu else 16))
        self.values = dict(dgraph.type_values, mode=mode, wr=self.wr, apsb=self.apsb,
                           heavy_degree=-1)

    def prepare(self, sched=None):
        """Heavy columns for GPUBFS / GPUBFS-WR (the only kernel that walks adjacency); the
        one-group path has no heavy tier (the group strides over the columns)."""
        if not self.one_group:
            self.values["heavy_degree"] = self.prepare_heavy(self.dg, ("cols",), sched)

    def kernel(self, name):
        return self.handle.kernel(BFS_TEMPLATE, name, **self.values)

    def one_group_kernel(self):
        """``apfb_one_group`` of this variant (rendered in CT mode without heavy tier, as the
        group strides over every vertex)."""
        return self.handle.kernel(BFS_TEMPLATE, "apfb_one_group",
                                  **dict(self.values, mode="ct", heavy_degree=-1))

    def build(self):
        if self.one_group:
            self.one_group_kernel()
            return
        for name in ("init_bfs_array", "gpubfs", "alternate", "fix_matching_rows",
                     "fix_matching_cols"):
            self.kernel(name)

    #: init_kind of apfb_one_group per initial matching
    ONE_GROUP_INIT = {"none": 0, "cheap": 1, "karp-sipser": 2}

    def run_one_group(self, rmatch, cmatch, sched, init="none", ks_rounds=32, defer=False):
        """Algorithm 1 whole in one work-group (``apfb_one_group``), after the initial matching
        ``init`` (its rounds in the same launch): one launch, one read-back of its counters.
        Same results as :class:`InitialMatcher` then :meth:`run` (the same loops, barriers
        for launches); the stats hold ``initial_cardinality``. ``defer=True`` leaves the
        counters on the device: returns ``(bfs_array, out)`` with ``out`` a device buffer of
        the kernel's five int32 counters, for the caller to read with other results and pass
        to :meth:`one_group_stats`."""
        q, g, it = self.handle.queue, self.dg.graph, self.dg.idt.type
        nr, nc = int(g.n_rows), int(g.n_cols)
        h = self.handle
        bfs_array = cla.empty(q, nc, np.int32, allocator=h.pool)
        predecessor = h.scratch(nr, self.dg.idt)
        out = h.scratch(5, np.int32)
        kind = self.ONE_GROUP_INIT[init]
        if kind == 2:
            rows = (self.dg.row_ptr.data, self.dg.row_ind.data, h.scratch(nc, self.dg.idt),
                    h.scratch(nr, self.dg.idt))
        else:   # not read: any buffers of the right kinds
            rows = (self.dg.col_ptr.data, self.dg.col_ind.data, predecessor, predecessor)
        extra = (h.scratch(nc, self.dg.idt),) if self.wr else ()
        wg = one_group_size(self.handle)
        sched.launch("one-group", self.one_group_kernel(), wg, wg, bfs_array.data,
                     self.dg.col_ptr.data, self.dg.col_ind.data, it(nr), it(nc), rmatch.data,
                     cmatch.data, predecessor, out, np.int32(kind),
                     np.int32(ks_rounds), *rows, *extra)
        if defer:
            return bfs_array, out
        host = sched.read("one-group", np.zeros(5, np.int32), out)
        return bfs_array, self.one_group_stats(host)

    def one_group_stats(self, host):
        """The stats of :meth:`run_one_group` from its five counters read back (``host``);
        raises :class:`IterationLimitError` when the kernel stopped at its bound."""
        g = self.dg.graph
        nr, nc = int(g.n_rows), int(g.n_cols)
        if host[3]:
            raise IterationLimitError(
                f"the one-group APFB exceeded its bound of {min(nr, nc) + 2} phases or "
                f"{nc + 1} BFS levels on {self.handle.label}; stopped instead of hanging "
                f"(please report this graph)")
        return {"phases": int(host[0]), "bfs_levels": int(host[1]),
                "bfs_levels_launched": int(host[1]), "max_bfs_depth": int(host[2]),
                "one_group": 1, "initial_cardinality": int(host[4])}

    def run(self, rmatch, cmatch, sched):
        """Augment until no augmenting path exists; returns (bfs_array, stats).

        The returned ``bfs_array`` is the last BFS, which found no augmenting path: columns
        with a value >= L0 are those reachable from unmatched columns by alternating paths
        (the König cover is built from it).
        """
        if self.one_group:
            stats = self.run_one_group(rmatch, cmatch, sched)
            stats[1].pop("initial_cardinality")
            return stats
        q = self.handle.queue
        g = self.dg.graph
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        cp, ci = self.dg.col_ptr.data, self.dg.col_ind.data
        bfs_array = cla.empty(q, int(nc), np.int32)
        predecessor = cla.empty(q, int(nr), self.dg.idt)
        flags = cla.empty(q, 2, np.int32)
        root = cla.empty(q, int(nc), self.dg.idt) if self.wr else None
        extra = (root.data,) if self.wr else ()
        host = np.zeros(2, np.int32)
        k_init, k_bfs = self.kernel("init_bfs_array"), self.kernel("gpubfs")
        k_alt = self.kernel("alternate")
        k_fixr, k_fixc = self.kernel("fix_matching_rows"), self.kernel("fix_matching_cols")
        gc, gr = self.global_size(nc), self.global_size(nr)
        phases = levels_launched = levels_used = 0
        max_depth = 0
        phase_bound = int(min(nr, nc)) + 2
        while True:
            sched.tick("augmenting phases", phase_bound)
            sched.fill("bfs", flags.data, 0)
            sched.launch("bfs", k_init, gc, self.wg, bfs_array.data, cmatch.data, nc, *extra)
            level, batch = L0, 2
            while True:
                for _ in range(batch):
                    self.launch(sched, "bfs", k_bfs, "cols", nc, np.int32(level),
                                bfs_array.data, cp, ci, nc, rmatch.data, predecessor.data,
                                flags.data, *extra)
                    level += 1
                levels_launched += batch
                sched.read("bfs", host, flags.data)
                if (self.apsb and host[1]) or host[0] != level:
                    break
                if level - L0 > int(nc) + 1:   # a BFS has at most nc levels
                    raise IterationLimitError(
                        f"BFS of phase {phases} ran past {int(nc) + 1} levels on "
                        f"{self.handle.label}; stopped instead of hanging")
                batch = min(2 * batch, self.batch_levels)
            depth = (int(host[0]) - L0 + 1) if host[0] else 1
            levels_used += depth
            max_depth = max(max_depth, depth)
            sched.report("augmenting", phase=phases, levels=levels_used)
            if not host[1]:
                break
            phases += 1
            sched.launch("alternate", k_alt, gr, self.wg, cmatch.data, rmatch.data, nr, nc,
                         predecessor.data, *((bfs_array.data, root.data)
                                             if self.wr and self.apsb else ()))
            sched.launch("fixmatching", k_fixr, gr, self.wg, rmatch.data, cmatch.data, nr)
            sched.launch("fixmatching", k_fixc, gc, self.wg, cmatch.data, rmatch.data, nc)
        stats = {"phases": phases, "bfs_levels": levels_used,
                 "bfs_levels_launched": levels_launched, "max_bfs_depth": max_depth}
        return bfs_array, stats
