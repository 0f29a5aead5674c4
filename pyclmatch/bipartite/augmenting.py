"""Drivers of the augmenting-path family (paper 000) and of the initial matchings.

Each driver is a class holding its device handle and specialization values; kernels are fetched
from the handle's program cache by memoized getters keyed by those values, in pyopencl's style.
"""
import numpy as np
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


class _Launcher:
    """Geometry shared by the drivers: work-group size and CT/MT global sizes."""

    def __init__(self, handle, mode, work_group_size=None, ct_work_items=None):
        if mode not in THREAD_MODES:
            raise ValueError(f"thread mode must be 'ct' or 'mt', not {mode!r}")
        self.handle, self.mode = handle, mode
        self.wg = int(work_group_size or handle.default_work_group_size())
        self.wg = max(1, min(self.wg, handle.max_work_group_size))
        self.ct_items = int(ct_work_items or handle.constant_grid(self.wg))

    def global_size(self, n):
        return min(self.ct_items, int(n)) if self.mode == "ct" else int(n)


class InitialMatcher(_Launcher):
    """Cheap (greedy) matching and parallel Karp-Sipser on the device."""

    def __init__(self, handle, dgraph, mode="ct", work_group_size=None, ct_work_items=None,
                 ks_rounds=32):
        super().__init__(handle, mode, work_group_size, ct_work_items)
        self.dg = dgraph
        self.ks_rounds = int(ks_rounds)
        self.values = dict(dgraph.type_values, mode=mode)

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
                sched.launch("init", deg, self.global_size(nc), self.wg,
                             cp, ci, nc, cmatch.data, rmatch.data, cdeg.data)
                sched.launch("init", deg, self.global_size(nr), self.wg,
                             rp, ri, nr, rmatch.data, cmatch.data, rdeg.data)
                sched.launch("init", deg1, self.global_size(nc), self.wg,
                             cp, ci, nc, cmatch.data, rmatch.data, cdeg.data, flags.data)
                sched.launch("init", deg1, self.global_size(nr), self.wg,
                             rp, ri, nr, rmatch.data, cmatch.data, rdeg.data, flags.data)
                sched.launch("init", mindeg, self.global_size(nc), self.wg,
                             cp, ci, nc, cmatch.data, rmatch.data, rdeg.data, flags.data)
                if sched.read("init", host, flags.data)[0] == 0:
                    break
        # one cheap pass makes any initial matching maximal (and is the whole "cheap" init)
        sched.launch("init", self.kernel("cheap_match"), self.global_size(nc), self.wg,
                     cp, ci, nc, rmatch.data, cmatch.data)


class AugmentingPathMatcher(_Launcher):
    """APFB / APsB with GPUBFS or GPUBFS-WR, CT or MT (Algorithm 1 of paper 000).

    ``batch_levels`` is the largest number of BFS levels enqueued between two reads of the
    flags; batches start at 2 levels in each phase and double up to it.
    """

    def __init__(self, handle, dgraph, driver="apfb", wr=True, mode="ct",
                 work_group_size=None, ct_work_items=None, batch_levels=None):
        super().__init__(handle, mode, work_group_size, ct_work_items)
        if driver not in DRIVERS:
            raise ValueError(f"driver must be 'apfb' or 'apsb', not {driver!r}")
        self.dg, self.driver, self.wr = dgraph, driver, bool(wr)
        self.apsb = driver == "apsb"
        self.batch_levels = int(batch_levels or (8 if handle.is_cpu else 16))
        self.values = dict(dgraph.type_values, mode=mode, wr=self.wr, apsb=self.apsb)

    def kernel(self, name):
        return self.handle.kernel(BFS_TEMPLATE, name, **self.values)

    def build(self):
        for name in ("init_bfs_array", "gpubfs", "alternate", "fix_matching_rows",
                     "fix_matching_cols"):
            self.kernel(name)

    def run(self, rmatch, cmatch, sched):
        """Augment until no augmenting path exists; returns (bfs_array, stats).

        The returned ``bfs_array`` is the last BFS, which found no augmenting path: columns
        with a value >= L0 are those reachable from unmatched columns by alternating paths
        (the König cover is built from it).
        """
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
                    sched.launch("bfs", k_bfs, gc, self.wg, np.int32(level), bfs_array.data,
                                 cp, ci, nc, rmatch.data, predecessor.data, flags.data, *extra)
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
