"""APFB and APsB (Algorithm 1 of paper 000, Deveci, Kaya, Ucar, Catalyurek) with the
GPUBFS (Algorithm 2) or GPUBFS-WR (Algorithm 4) BFS kernels, in CT or MT thread mode
(``kernels/apfb.cl.mako``), and the same algorithm whole in one work-group for small graphs.

Each phase of Algorithm 1: :meth:`~AugmentingPathMatcher.init` the BFS array (line 4), the
level-synchronous :meth:`~AugmentingPathMatcher.bfs` from the unmatched columns (lines 5-11),
:meth:`~AugmentingPathMatcher.alternate` along the augmenting paths found (line 12) and
:meth:`~AugmentingPathMatcher.fix_matching` (line 13), while a BFS finds a path (line 2).
APFB is APsB without lines 9-10: its BFS goes on after the first level that finds a path.
"""
import numpy as np
import pyopencl.array as cla

from ..errors import IterationLimitError
from .choice import device_profile
from .geometry import Launcher
from .registry import (AUGMENTING_VARIANTS, CERTIFICATE_VARIANT, DRIVERS,  # noqa: F401
                       parse_variant, register_algorithm)

#: the BFS level of the unmatched columns (matched ones start at L0 - 1, unvisited)
L0 = 2


def default_one_group_edges(handle):
    """The largest graph (edges) that runs APFB/APsB whole in one work-group by default (0:
    never): the device profile's ``one_group_edges`` (:mod:`pyclmatch.bipartite.choice`).

    One work-group runs on one compute unit, so the path trades the device's width for the
    launches and read-backs it saves: it wins while a BFS level's work per work-item stays
    below a launch and a read-back.
    """
    return int(device_profile(handle)[0]["one_group_edges"])


def one_group_size(handle):
    """Work-items of the one work-group: the device's largest group, at most 1024."""
    return int(min(handle.max_work_group_size, 1024))


class AugmentingPathMatcher(Launcher):
    """APFB / APsB with GPUBFS or GPUBFS-WR, CT or MT (Algorithm 1 of paper 000).

    ``batch_levels`` is the largest number of BFS levels enqueued between two reads of the
    flags; batches start at 2 levels in each phase and double up to it.
    """

    TEMPLATE = "apfb.cl.mako"

    def __init__(self, handle, dgraph, driver="apfb", wr=True, mode="ct",
                 work_group_size=None, ct_work_items=None, batch_levels=None,
                 heavy_degree=None, heavy_groups=None, one_group_edges=None):
        if driver not in DRIVERS:
            raise ValueError(f"driver must be 'apfb' or 'apsb', not {driver!r}")
        super().__init__(handle, mode, work_group_size, ct_work_items, heavy_degree,
                         heavy_groups, wr=bool(wr), apsb=driver == "apsb",
                         **dgraph.type_values)
        limit = (default_one_group_edges(handle) if one_group_edges is None
                 else int(one_group_edges))
        #: the whole algorithm in one work-group (one launch): graphs of <= limit edges
        self.one_group = 0 < dgraph.graph.nnz <= limit
        self.dg, self.driver, self.wr = dgraph, driver, bool(wr)
        self.apsb = driver == "apsb"
        self.batch_levels = int(batch_levels or (8 if handle.is_cpu else 16))

    def prepare(self, sched=None):
        """Heavy columns for GPUBFS / GPUBFS-WR (the only kernel that walks adjacency); the
        one-group path has no heavy tier (the group strides over the columns)."""
        if not self.one_group:
            self.prepare_heavy(self.dg, ("cols",), sched)

    def one_group_kernel(self):
        """``apfb_one_group`` of this variant (rendered in CT mode without heavy tier, as the
        group strides over every vertex)."""
        return self.kernel("apfb_one_group", mode="ct", heavy_degree=-1)

    def build(self):
        """Fetch the kernels of the path this graph takes (one group or per level)."""
        if self.one_group:
            self.one_group_kernel()
            return
        super().build("init_bfs_array", "gpubfs", "alternate", "fix_matching_rows",
                      "fix_matching_cols")

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
        """Augment until no augmenting path exists (Algorithm 1); returns (bfs_array, stats).

        The returned ``bfs_array`` is the last BFS, which found no augmenting path: columns
        with a value >= L0 are those reachable from unmatched columns by alternating paths
        (the König cover is built from it).
        """
        if self.one_group:
            bfs_array, stats = self.run_one_group(rmatch, cmatch, sched)
            stats.pop("initial_cardinality")
            return bfs_array, stats
        self.rmatch, self.cmatch, self.sched = rmatch, cmatch, sched
        self.allocate()
        phase_bound = min(self.dg.graph.n_rows, self.dg.graph.n_cols) + 2
        while True:                                                 # Algorithm 1 line 2
            sched.tick("augmenting phases", phase_bound)
            self.init()
            found = self.bfs()
            sched.report("augmenting", phase=self.stats["phases"],
                         levels=self.stats["bfs_levels"])
            if not found:                                           # line 2
                break
            self.stats["phases"] += 1
            self.alternate()
            self.fix_matching()
        return self.bfs_array, dict(self.stats)

    def allocate(self):
        """The work arrays of the per-level path and the phase counters."""
        q, g = self.handle.queue, self.dg.graph
        self.bfs_array = cla.empty(q, int(g.n_cols), np.int32)
        self.predecessor = cla.empty(q, int(g.n_rows), self.dg.idt)
        self.flags = cla.empty(q, 2, np.int32)
        self.root = cla.empty(q, int(g.n_cols), self.dg.idt) if self.wr else None
        self.extra = (self.root.data,) if self.wr else ()
        self.host = np.zeros(2, np.int32)
        self.stats = {"phases": 0, "bfs_levels": 0, "bfs_levels_launched": 0,
                      "max_bfs_depth": 0}

    def init(self):
        """INITBFSARRAY (line 4): unmatched columns at level L0, the others unvisited."""
        nc = np.int32(self.dg.graph.n_cols)
        self.sched.fill("bfs", self.flags.data, 0)
        self.sched.launch("bfs", self.kernel("init_bfs_array"), self.global_size(nc),
                          self.wg, self.bfs_array.data, self.cmatch.data, nc, *self.extra)

    def bfs(self):
        """GPUBFS / GPUBFS-WR levels (lines 5-11), enqueued in batches of doubling size
        between reads of the flags; returns whether an augmenting path was found."""
        nc = np.int32(self.dg.graph.n_cols)
        k_bfs, host, level, batch = self.kernel("gpubfs"), self.host, L0, 2
        while True:
            for _ in range(batch):
                self.launch(self.sched, "bfs", k_bfs, "cols", nc, np.int32(level),
                            self.bfs_array.data, self.dg.col_ptr.data, self.dg.col_ind.data,
                            nc, self.rmatch.data, self.predecessor.data, self.flags.data,
                            *self.extra)
                level += 1
            self.stats["bfs_levels_launched"] += batch
            self.sched.read("bfs", host, self.flags.data)
            if (self.apsb and host[1]) or host[0] != level:
                break
            if level - L0 > int(nc) + 1:   # a BFS has at most nc levels
                raise IterationLimitError(
                    f"BFS of phase {self.stats['phases']} ran past {int(nc) + 1} levels on "
                    f"{self.handle.label}; stopped instead of hanging")
            batch = min(2 * batch, self.batch_levels)
        depth = (int(host[0]) - L0 + 1) if host[0] else 1
        self.stats["bfs_levels"] += depth
        self.stats["max_bfs_depth"] = max(self.stats["max_bfs_depth"], depth)
        return bool(host[1])

    def alternate(self):
        """ALTERNATE (line 12): flip the matching along the augmenting paths found."""
        g = self.dg.graph
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        self.sched.launch("alternate", self.kernel("alternate"), self.global_size(nr),
                          self.wg, self.cmatch.data, self.rmatch.data, nr, nc,
                          self.predecessor.data,
                          *((self.bfs_array.data, self.root.data)
                            if self.wr and self.apsb else ()))

    def fix_matching(self):
        """FIXMATCHING (line 13): repair the mates that concurrent alternations left
        inconsistent, rows then columns."""
        g, sched = self.dg.graph, self.sched
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        sched.launch("fixmatching", self.kernel("fix_matching_rows"), self.global_size(nr),
                     self.wg, self.rmatch.data, self.cmatch.data, nr)
        sched.launch("fixmatching", self.kernel("fix_matching_cols"), self.global_size(nc),
                     self.wg, self.cmatch.data, self.rmatch.data, nc)


class AugmentingRunner(AugmentingPathMatcher):
    """The registry entry of the eight variants ``{apfb|apsb}-{gpubfs|gpubfs-wr}-{ct|mt}``."""

    needs_csr = False
    params = ("work_group_size", "ct_work_items", "batch_levels", "heavy_degree",
              "heavy_groups", "one_group_edges")

    def __init__(self, handle, dgraph, name, **params):
        driver, wr, mode = parse_variant(name)
        super().__init__(handle, dgraph, driver=driver, wr=wr, mode=mode, **params)

    @staticmethod
    def device_bytes(graph, name):
        nr, nc = graph.shape
        wr = parse_variant(name)[1]
        return {"predecessor": nr * 4, "bfs_array": nc * 4, "root": nc * 4 if wr else 0}


for _v in AUGMENTING_VARIANTS:
    register_algorithm(_v, AugmentingRunner)
