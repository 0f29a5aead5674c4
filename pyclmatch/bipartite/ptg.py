"""PTG: parallel tree grafting, MS-BFS-Graft (Azad, Buluç, Pothen, IPDPS 2015 / IEEE TPDS
2017; paper 001 Section 3.2) on the device (``kernels/ptg.cl.mako``).

Every unmatched column roots an alternating tree. A phase of MS-BFS-Graft:

1. grows the forest level-synchronously from the frontier of the *active* trees (those that
   found no augmenting path yet), each level :meth:`~TreeGraftingMatcher.top_down` (the
   frontier's columns claim unvisited rows) or :meth:`~TreeGraftingMatcher.bottom_up`
   (unvisited rows look for a neighbour in an active tree), by the paper's rule: top-down
   while ``|frontier| < |unvisited rows| / alpha``; a tree stops growing once it has found an
   augmenting path;
2. :meth:`~TreeGraftingMatcher.augment` flips every path found (one per tree: disjoint);
3. the augmented trees are *renewable*: their rows become unvisited and
   :meth:`~TreeGraftingMatcher.graft` attaches those next to an active tree (their mates are
   the next frontier), unless ``|active columns| <= |renewable rows| / alpha``, when
   :meth:`~TreeGraftingMatcher.rebuild_forest` starts again from the unmatched columns.

Phases repeat while one finds a path. The last forest is complete, so its active columns are
exactly those reachable from unmatched columns: they are the König cover's ``bfs_array``
(no extra BFS). BFS levels go in batches of doubling size (``batch_levels``, default 16 on
GPUs, 8 on CPUs) between two read-backs of their counters: the alpha rule is applied on the
device from the previous level's counts (both directions are launched, one returns at
once; while the frontier stays far below the unvisited rows, top-down alone). Steps 2-3
are decided on the device too (:meth:`~TreeGraftingMatcher.enqueue_renewal`): their
counts come back with the next phase's first batch, so a phase costs no read-back of its
own (with ``batch_levels=1`` the host decides, one read-back per step).

Every step that adds columns to a frontier also appends them to that level's queue
(:data:`QUEUE_CPU`, :data:`QUEUE_GPU`; a work-group's appends take one atomic addition),
and TopDown visits the queue instead of sweeping every column; while the frontier is small
(:data:`GROUP_FRONTIER_CPU`, :data:`GROUP_FRONTIER_GPU`) one work-group runs up to
:data:`GROUP_LEVELS` top-down levels in one launch (``top_down_group``). Meshes, whose BFS
runs hundreds of levels of a few columns, then cost one launch per batch instead of two per
level and a sweep each. On GPUs the launch of those levels has one work-group per compute
unit instead of one, with a barrier over the groups between levels (``top_down_grid``,
:data:`GRID_GPU`): a level costs a barrier, not a launch, and many compute units share its
memory traffic. With a heavy tier the heavy columns of the queues are the tier's: TopDown's
launch leaves them to its heavy work-groups, and those levels list them for a pass of whole
work-groups after the light columns.

On CPU devices a graph of at most :data:`ONE_GROUP_EDGES_CPU` edges runs whole in one
work-group (``ptg_one_group``: the same steps, barriers where launches end): one launch and
one read-back instead of a few per phase, which on small graphs cost more than the kernels.

Parameters: ``work_group_size``, ``ct_work_items``, ``mode`` (``"ct"``/``"mt"``; default CT on
CPU devices, MT on GPUs), ``alpha`` (default 5, the paper's), ``heavy_degree`` and
``heavy_groups`` (top-down columns of larger degree expanded by a work-group),
``batch_levels`` (1: a read-back per level, the host's rule).
"""
import numpy as np
import pyopencl.array as cla

from ..engine import grid
from ..errors import IterationLimitError
from .geometry import Launcher
from .registry import register_algorithm

#: flags[] slots of kernels/ptg.cl.mako (from F_BATCH on: two counts per level of a batch)
(F_NEXT, F_LEAVES, F_PATHS, C_ACTIVE_COLS, C_RENEWABLE_ROWS, C_ACTIVE_ROWS, F_GRAFTED, F_F0,
 F_U0, F_BATCH) = range(10)
#: the BFS level value of the cover's reached columns (the API's convention)
L0 = 2
#: the paper's alpha (direction switch and graft-or-rebuild rule)
ALPHA = 5.0
#: TopDown from queues of the frontier's columns on CPU and GPU devices, instead of a sweep
#: of every column per level: on meshes, hundreds of levels of a few columns each
QUEUE_CPU = True
QUEUE_GPU = True
#: with the queues, frontiers of at most this many columns run in one work-group, up to
#: GROUP_LEVELS levels a launch (``top_down_group``), on CPU devices and GPUs (0: never)
GROUP_FRONTIER_CPU = 1024
GROUP_FRONTIER_GPU = 1024
GROUP_LEVELS = 64
#: TopDown from the queues (a launch's or one work-group's levels) expands each frontier
#: column with a team of up to this many work-items while the frontier is small against
#: them (1: one each), on CPU devices and GPUs: a level's chain of dependent reads is then
#: one edge long, not a column's degree
TEAM_LANES_CPU = 1
TEAM_LANES_GPU = 8
#: on GPUs, the work-groups' count sums skip the work-items that have nothing to add (on
#: CPU devices every one adds: see add_group_counts in kernels/ptg.cl.mako)
SPARSE_COUNTS_GPU = True
#: on NVIDIA's GPUs (where the barrier's device-wide fence is inline PTX: OpenCL 1.2's
#: mem_fence is only CTA-wide there), frontiers of at most GRID_FRONTIER_GPU columns run up
#: to GRID_LEVELS top-down levels in ONE launch of one work-group (of GRID_WORK_GROUP
#: work-items) per compute unit, a barrier over the groups between levels
#: (``top_down_grid``), instead of the launches and the single work-group above;
#: GRID_GROUPS_CPU: that many groups on CPU devices (0: none; for the tests, a CPU device
#: need not run its groups at once); a barrier that waits past GRID_SPIN_LIMIT polls gives
#: up, and the run goes on without (the forest rebuilt)
GRID_GPU = True
GRID_FRONTIER_GPU = 1 << 16
GRID_LEVELS = 256
GRID_WORK_GROUP = 512
GRID_GROUPS_CPU = 0
GRID_SPIN_LIMIT = 1 << 21
#: on GPUs, TopDown from the queues runs at most this many work-items (they stride over the
#: queue): a launch over every column would start millions of work-items for a frontier of a
#: few thousand
QUEUE_GRID_GPU = 1 << 16
#: graphs of at most this many edges run MS-BFS-Graft whole in one work-group, one launch
#: (``ptg_one_group``), on CPU devices and GPUs (0: never)
ONE_GROUP_EDGES_CPU = 1 << 18
ONE_GROUP_EDGES_GPU = 0
#: the positions of LEVEL_ARGS (the guard) in TopDown's and BottomUp's arguments
GUARD_ARGS = range(11, 17)
#: the BFS levels of a phase's first batch (later batches double, up to ``batch_levels``)
FIRST_BATCH = 2


class _GridGaveUp(Exception):
    """A barrier of ``top_down_grid`` waited past its bound: the device did not run every
    work-group of the launch at once."""


class TreeGraftingMatcher(Launcher):
    """MS-BFS-Graft on one device graph (the registry entry ``"ptg"``).

    Examples
    --------
    >>> import pyclmatch
    >>> A = pyclmatch.generators.grid(8)
    >>> res = pyclmatch.maximum_matching(A, algorithm="ptg", init="none", device="cpu")
    >>> res.cardinality, res.algorithm, res.counters["cover_phases"]
    (62, 'ptg', 0)
    """

    TEMPLATE = "ptg.cl.mako"
    needs_csr = True
    params = ("work_group_size", "ct_work_items", "mode", "alpha", "heavy_degree",
              "heavy_groups", "batch_levels")

    def __init__(self, handle, dgraph, name="ptg", work_group_size=None, ct_work_items=None,
                 mode=None, alpha=None, heavy_degree=None, heavy_groups=None,
                 batch_levels=None):
        mode = mode or ("ct" if handle.is_cpu else "mt")
        super().__init__(handle, mode, work_group_size, ct_work_items, heavy_degree,
                         heavy_groups, **dgraph.type_values)
        self.dg = dgraph
        #: TopDown from a queue of the frontier's columns, not a sweep of every column
        self.queue = bool(QUEUE_CPU if handle.is_cpu else QUEUE_GPU)
        self.alpha = float(ALPHA if alpha is None else alpha)   # (> 0: registry.PARAMS)
        self.batch_levels = max(1, int(batch_levels or (8 if handle.is_cpu else 16)))

    @staticmethod
    def device_bytes(graph, name):
        nr, nc = graph.shape
        return {"row roots": nr * 4, "parents": nr * 4, "column roots": nc * 4,
                "column levels": nc * 4, "leaves": nc * 4, "bfs_array": nc * 4}

    def prepare(self, sched=None):
        """Heavy columns for :meth:`top_down` and the levels of ``top_down_group`` and
        ``top_down_grid`` (the kernels a work-group may share a column in)."""
        limit = ONE_GROUP_EDGES_CPU if self.handle.is_cpu else ONE_GROUP_EDGES_GPU
        #: the whole run in one work-group (``ptg_one_group``, its queues and no heavy tier)
        self.one_group = 0 < self.dg.graph.nnz <= limit
        if not self.one_group:
            self.prepare_heavy(self.dg, ("cols",), sched)
        self.queue = self.one_group or self.queue
        gpu = not self.handle.is_cpu
        #: work-groups of top_down_grid's launches (0: top_down_group instead)
        self.grid_groups = 0
        if self.queue and not self.one_group:
            self.grid_groups = grid.grid_groups(self.handle, GRID_GPU, GRID_GROUPS_CPU)
        self.specialize(queue=self.queue, lanes=TEAM_LANES_GPU if gpu else TEAM_LANES_CPU,
                        sparse_counts=bool(gpu and SPARSE_COUNTS_GPU),
                        ptx_fence=grid.ptx_fence(self.handle, self.grid_groups))

    def build(self):
        """Fetch the kernels of the path this graph takes (one group or per step)."""
        if self.one_group:
            self.kernel("ptg_one_group", mode="ct")
            super().build("cover_bfs_array")
            return
        self.grid_groups = grid.fenced(self.handle, self.grid_groups, self._build_steps)
        if not self.grid_groups and self.values.get("ptx_fence"):
            # (a driver that refused the inline PTX fence: the single work-group's levels,
            # from now on without trying again)
            self.specialize(ptx_fence=False)
            self._build_steps()

    def _build_steps(self):
        super().build("rebuild_forest", "top_down", "bottom_up", "augment", "count_forest",
                      "graft", "phase_start", "cover_bfs_array",
                      *((("top_down_grid" if self.grid_groups else "top_down_group"),)
                        if self.queue else ()))

    def run(self, rmatch, cmatch, sched):
        """MS-BFS-Graft's phases until one finds no augmenting path; returns (bfs_array,
        stats), ``bfs_array`` marking the columns of the final (active, complete) forest."""
        self.rmatch, self.cmatch, self.sched = rmatch, cmatch, sched
        self.allocate()
        if self.one_group:
            return self.run_one_group()
        self.bind_levels()
        self.rebuild_forest()                               # the initial forest
        bound, renewed = min(self.nr, self.nc) + 2, False
        while True:
            sched.tick("ptg phases", bound)
            try:
                found = self.grow_forest(renewed)           # Step 1
            except _GridGaveUp:        # (levels one launch each from a fresh forest)
                self.grid_groups = self.group = 0
                self.stats["grid_fallbacks"] = 1
                self.level += self.group_levels + 1
                self.rebuild_forest()
                renewed = False
                continue
            sched.report("ptg", phase=self.stats["phases"], levels=self.stats["bfs_levels"])
            if not found:
                break
            self.stats["phases"] += 1
            if self.batch_levels > 1:                       # Steps 2-3, decided on the device
                self.enqueue_renewal()
                renewed = True
            else:                                           # the host's rule
                self.graft_or_rebuild(self.augment())
        return self.cover(), dict(self.stats)

    def run_one_group(self):
        """MS-BFS-Graft whole in one work-group (``ptg_one_group``): one launch, one read-back
        of its counts; returns (bfs_array, stats) as :meth:`run`."""
        dg, sched = self.dg, self.sched
        out = cla.zeros(self.handle.queue, 6, np.int32)
        sched.launch("ptg-one-group", self.kernel("ptg_one_group", mode="ct"), self.wg,
                     self.wg, dg.col_ptr.data, dg.col_ind.data, dg.row_ptr.data,
                     dg.row_ind.data, np.int32(self.nr), np.int32(self.nc), self.rmatch.data,
                     self.cmatch.data, self.croot.data, self.clevel.data, self.leaf.data,
                     self.rroot.data, self.parent.data, self.flags.data, *self._queue_args(),
                     np.float32(self.alpha), out.data)
        phases, levels, down, grafts, paths, exceeded = (
            int(v) for v in sched.read("ptg-one-group", np.zeros(6, np.int32), out.data))
        if exceeded:
            raise IterationLimitError(
                f"ptg: the one-group run exceeded its bound of {min(self.nr, self.nc) + 2} "
                f"phases or {self.nr + 2} levels per BFS on {self.handle.label}; stopped "
                f"instead of hanging (please report this graph)")
        self.stats.update(phases=phases, bfs_levels=levels, bfs_levels_launched=levels,
                          top_down_levels=down, bottom_up_levels=levels - down,
                          grafts=grafts, rebuilds=phases - grafts, paths=paths, one_group=1)
        return self.cover(), dict(self.stats)

    def allocate(self):
        """The forest's arrays (see ``kernels/ptg.cl.mako``), the counters and the stats."""
        g = self.dg.graph
        self.nr, self.nc = int(g.n_rows), int(g.n_cols)
        idt, empty = self.dg.idt, self.empty        # (from the device's memory pool)
        self.rroot = empty(max(self.nr, 1), idt)
        self.parent = empty(max(self.nr, 1), idt)
        self.croot = empty(max(self.nc, 1), idt)
        self.clevel = empty(max(self.nc, 1), np.int32)
        self.leaf = empty(max(self.nc, 1), idt)
        self.fq = empty(2 * max(self.nc, 1) if self.queue else 1, idt)
        #: the one-group levels' frontier bound (0: none) and their batch's counter slots
        bound = GROUP_FRONTIER_CPU if self.handle.is_cpu else GROUP_FRONTIER_GPU
        if self.grid_groups and not self.handle.is_cpu:
            bound = GRID_FRONTIER_GPU
        self.group = bound if self.queue else 0
        self.group_levels = GRID_LEVELS if self.grid_groups else GROUP_LEVELS
        self.flags = empty(self.flag_slots(), np.int32)
        #: the group levels' heavy list (a level's heavy columns: at most its frontier, and
        #: at most every column)
        self.hq = empty(min(self.group, max(self.nc, 1)) if self.group and self.tiers else 1,
                        idt)
        self.host = np.zeros(self.flags.size, np.int32)
        self.level = 0
        self.frontier = self.unvisited = self.unmatched = self.grafted_leaves = 0
        self.stats = {"phases": 0, "bfs_levels": 0, "bfs_levels_launched": 0,
                      "top_down_levels": 0, "bottom_up_levels": 0, "grafts": 0,
                      "rebuilds": 0, "paths": 0, "cover_phases": 0}

    def flag_slots(self, levels=None):
        """The size of flags[]: the counters, two counts per level of a batch or of a phase's
        first batch and the group levels behind it, then the levels run, the grid's arrivals
        and its give-up flag, then the group levels' heavy list counts (``levels``: the
        group levels a launch may run; default ``group_levels`` where there are any)."""
        if levels is None:
            levels = self.group_levels if self.group else 0
        return F_BATCH + 2 * max(self.batch_levels, FIRST_BATCH + levels) + 3 + levels

    def rebuild_forest(self):
        """RebuildForest (and the initial forest): a tree per unmatched column, in the
        frontier of a fresh level; every row unvisited. Counts the unmatched columns on the
        first call (one read-back); later the augmented paths are subtracted on the host."""
        self.level += 1
        if self.queue:              # (the queue's count)
            self.sched.fill("ptg-forest", self.flags[F_NEXT:F_NEXT + 1], 0)
        self._rebuild_forest(guard=False)
        if self.stats["phases"] == 0:
            self.sched.fill("ptg-forest", self.flags, 0)
            self.count_forest()
            self.unmatched = int(self.sched.read("ptg-forest", self.host,
                                                 self.flags.data)[C_ACTIVE_COLS])
        else:
            self.stats["rebuilds"] += 1
        self.frontier, self.unvisited = self.unmatched, self.nr
        self.grafted_leaves = 0

    def _rebuild_forest(self, guard):
        n = max(self.nr, self.nc)
        self.sched.launch("ptg-forest", self.kernel("rebuild_forest"), self.global_size(n),
                          self.wg, np.int32(self.nr), np.int32(self.nc), self.cmatch.data,
                          self.croot.data, self.clevel.data, self.leaf.data,
                          self.rroot.data, np.int32(self.level), *self._queue_args(),
                          self.flags.data, np.int32(F_NEXT), *self._renewal_args(guard))

    def _renewal_args(self, guard):
        """RENEWAL_GUARD's arguments: Step 3's rule on the device (``guard``) or not."""
        return np.int32(bool(guard)), np.float32(self.alpha)

    def enqueue_renewal(self):
        """Steps 2-3 without a read-back: Augment, the counts of Step 3's rule, Graft and
        RebuildForest each guarded by the rule on the device (RENEWAL_GUARD: one of them
        runs, at the same fresh level), then the next BFS's first frontier and unvisited rows
        (``phase_start``). The next :meth:`grow_forest` reads these counts with its first
        batch's (:meth:`settle_renewal`): a phase costs one read-back fewer per step."""
        sched = self.sched
        sched.fill("ptg-augment", self.flags, 0)
        self._augment()
        self.count_forest(release=True)
        wrap = self.level > 2**31 - 4 * (self.nr + 4)
        self.level = 1 if wrap else self.level + 1   # (a rebuild rewrites every stamp)
        if not wrap:
            self._graft(guard=True)
        self._rebuild_forest(guard=not wrap)
        sched.launch("ptg-augment", self.kernel("phase_start"), 1, 1, np.int32(self.nr),
                     np.int32(self.unmatched), self.flags.data)

    def settle_renewal(self, host):
        """The host's side of :meth:`enqueue_renewal` from the counts read back: paths,
        graft or rebuild, the frontier, the unvisited rows and the free rows grafted."""
        paths = int(host[F_PATHS])
        self.stats["paths"] += paths
        self.unmatched -= paths
        grafted = bool(host[F_GRAFTED])
        self.stats["grafts" if grafted else "rebuilds"] += 1
        self.grafted_leaves = int(host[F_LEAVES]) if grafted else 0
        self.frontier, self.unvisited = int(host[F_F0]), int(host[F_U0])

    def grow_forest(self, renewed=False):
        """Step 1: BFS levels from the frontier until a level adds no column; returns whether
        a path was found. Levels go in batches of doubling size (up to ``batch_levels``)
        between two read-backs: each level launches both directions, and on the device
        (LEVEL_GUARD) the one that the alpha rule picks from the last level's counts runs
        while the other returns; levels after the one that ended the BFS return at once. The
        host replays the rule on the counts read back (the stats). ``renewed``: Steps 2-3
        ran on the device (:meth:`enqueue_renewal`), the first batch's read-back settles
        them."""
        depth_bound, first = self.nr + 2, renewed
        depth, batch, growth = 0, min(FIRST_BATCH, self.batch_levels), float("inf")
        # (paths Graft found: a released free row grafted onto an active tree ends its path)
        found = 0 if renewed else self.grafted_leaves
        while first or self.frontier:
            if depth >= depth_bound:
                raise IterationLimitError(
                    f"ptg: the BFS of phase {self.stats['phases']} ran past {depth_bound} "
                    f"levels on {self.handle.label}; stopped instead of hanging (please "
                    f"report this graph)")
            run, replay, forced = batch, batch > 1, False
            if first:            # (its read-back brings the renewal's counts)
                if self.group:   # (the one-launch levels behind it: one read-back for both)
                    self.enqueue_levels(batch, settle=True, read=False)
                    counts, run = self.enqueue_group_levels(after=batch, settle=True)
                else:
                    counts = self.enqueue_levels(batch, settle=True)
                found, first, replay = self.grafted_leaves, False, True
            elif self.group and self.frontier <= self.group and self._top_down_next():
                counts, run = self.enqueue_group_levels()
                replay = True
            elif batch == 1:     # one level: the host's rule, no device guard
                (self.top_down if self._top_down_next() else self.bottom_up)()
                self.level += 1
                self.stats["bfs_levels_launched"] += 1
                counts = self.sched.read("ptg-bfs", self.host[:2], self.flags.data)
            else:
                forced = self._top_down_sure(batch, growth)
                counts = self.enqueue_levels(batch, forced)
            levels, leaves, growth = self._take_counts(counts, run, replay, forced)
            depth += levels
            found += leaves
            batch = min(2 * batch, self.batch_levels)
        self.grafted_leaves = 0
        return found > 0

    def _take_counts(self, counts, run, replay, forced):
        """The host's side of ``run`` levels from their counts read back (two per level):
        the frontier and unvisited rows after each, until one adds no column; with
        ``replay`` the direction the device chose (top-down if ``forced``) goes into the
        stats. Returns (levels taken, free rows claimed, the largest frontier growth)."""
        levels = leaves = 0
        growth = 1.0
        for i in range(run):
            if not self.frontier:
                break
            if replay:
                self.stats["top_down_levels" if forced or self._top_down_next()
                            else "bottom_up_levels"] += 1
            nxt, claimed = int(counts[2 * i]), int(counts[2 * i + 1])
            growth = max(growth, nxt / self.frontier)
            self.frontier = nxt
            self.unvisited -= nxt + claimed
            leaves += claimed
            levels += 1
        self.stats["bfs_levels"] += levels
        return levels, leaves, growth

    def enqueue_group_levels(self, after=0, settle=False):
        """Up to ``self.group_levels`` top-down levels in one launch, while the rule picks
        top-down and the frontier stays within ``self.group``: one work-group
        (``top_down_group``) or one per compute unit with barriers between them
        (``top_down_grid``); then one read-back of their counts and of how many ran;
        returns ``(counts, levels run)``. ``after``: the launch follows the ``after`` levels
        of a batch enqueued without its read-back (``enqueue_levels(read=False)``) and goes
        on from their state on the device; the counts and levels returned are the batch's
        then the launch's (``settle`` as :meth:`enqueue_levels`'s)."""
        sched, levels = self.sched, self.group_levels
        base = F_BATCH + 2 * after
        sched.fill("ptg-bfs", self.flags[base:], 0)
        dg, done_slot = self.dg, base + 2 * levels
        wg, args = self.group_wg, ()
        if self.grid_groups:
            name, size = "top_down_grid", wg * self.grid_groups
            args = (np.int32(done_slot + 1), np.int32(GRID_SPIN_LIMIT))
        else:
            name, size = "top_down_group", wg
        sched.launch("ptg-top-down", self.kernel(name), size, wg,
                     np.int32(self.level), dg.col_ptr.data, dg.col_ind.data,
                     np.int32(self.nc), self.rmatch.data, self.croot.data, self.clevel.data,
                     self.leaf.data, self.rroot.data, self.parent.data, self.flags.data,
                     np.int32(levels), np.int32(after),
                     np.int32(-1 if settle else self.frontier), np.int32(self.unvisited),
                     np.float32(self.alpha), np.int32(self.group), np.int32(done_slot),
                     *args, *self._queue_args(), self.hq.data, np.int32(done_slot + 3))
        host = sched.read("ptg-bfs", self.host[:done_slot + 3], self.flags.data)
        if settle:
            self.settle_renewal(host)
        if host[done_slot + 2]:
            raise _GridGaveUp()
        run = int(host[done_slot])
        self.level += run
        self.stats["group_launches"] = self.stats.get("group_launches", 0) + 1
        self.stats["bfs_levels_launched"] = self.stats.get("bfs_levels_launched", 0) + run
        return host[F_BATCH:base + 2 * run], after + run

    def _top_down_next(self):
        """The alpha rule (as the device's LEVEL_GUARD applies it): the next level grows
        top-down while ``|frontier| < |unvisited rows| / alpha``, else bottom-up."""
        return self.frontier * self.alpha < self.unvisited

    def _top_down_sure(self, batch, growth):
        """Whether the alpha rule will pick top-down at every level of the next ``batch``,
        the frontier growing at most ``growth`` times per level (the last batch's most):
        then the batch launches no bottom-up levels. Meshes, whose frontiers stay a few
        columns among millions of unvisited rows, then pay one launch per level, not two."""
        return self.frontier * self.alpha * growth ** batch < self.unvisited

    def enqueue_levels(self, batch, top_down_only=False, settle=False, read=True):
        """``batch`` BFS levels, each a top-down and a bottom-up launch of which the device
        runs one (LEVEL_GUARD), or top-down launches alone (``top_down_only``), then one
        read-back of their counts; returns the counts. ``settle``: the batch begins the
        phase after :meth:`enqueue_renewal`, its frontier on the device; the read-back also
        brings the renewal's counts (:meth:`settle_renewal`). ``read=False``: no read-back
        (:meth:`enqueue_group_levels` follows with ``after=batch`` and reads both)."""
        sched = self.sched
        sched.fill("ptg-bfs", self.flags[F_BATCH:F_BATCH + 2 * batch], 0)
        f0, u0, alpha = np.int32(self.frontier), np.int32(self.unvisited), np.float32(self.alpha)
        if settle:
            f0 = u0 = np.int32(-1)
        decide = np.int32(2 if top_down_only else 1)
        for i in range(batch):
            guard = (decide, np.int32(i), f0, u0, alpha, np.int32(F_BATCH + 2 * i))
            self._top_down(guard)
            if not top_down_only:
                self._bottom_up(guard)
            self.level += 1
        self.stats["bfs_levels_launched"] = self.stats.get("bfs_levels_launched", 0) + batch
        if not read:
            return None
        if settle:
            host = sched.read("ptg-bfs", self.host[:F_BATCH + 2 * batch], self.flags.data)
            self.settle_renewal(host)
            return host[F_BATCH:]
        return sched.read("ptg-bfs", self.host[F_BATCH:F_BATCH + 2 * batch],
                          self.flags.data, offset=4 * F_BATCH)

    def _single(self):
        """The guard arguments of a single level chosen by the host (counts at F_NEXT; the
        frontier's size, for its queue)."""
        self.sched.fill("ptg-bfs", self.flags[:2], 0)
        return (np.int32(0), np.int32(0), np.int32(self.frontier), np.int32(0),
                np.float32(1), np.int32(F_NEXT))

    def _queue_args(self):
        """The frontier queues' arguments (QUEUE_ARGS of the kernels; unused without)."""
        return self.fq.data, np.int32(self.nc)

    def top_down(self):
        """TopDown: the frontier's columns (active trees only) claim their unvisited rows
        (one level of the host's choice; counts at F_NEXT, F_LEAVES)."""
        self.stats["top_down_levels"] += 1
        self._top_down(self._single())

    def _top_down(self, guard):
        self._level_launches["top_down"]((0, np.int32(self.level)), *zip(GUARD_ARGS, guard))

    def bind_levels(self):
        """TopDown and BottomUp bound to this run's arrays (:meth:`Launcher.bind`): a level
        changes only its level and guard arguments (:data:`GUARD_ARGS`), and meshes launch
        a thousand levels a call."""
        dg, sched = self.dg, self.sched
        n = min(self.nc, QUEUE_GRID_GPU) if self.queue and not self.handle.is_cpu else self.nc
        state = (self.rmatch.data, self.croot.data, self.clevel.data, self.leaf.data,
                 self.rroot.data, self.parent.data, self.flags.data)
        guard = (np.int32(0), np.int32(0), np.int32(0), np.int32(0), np.float32(1),
                 np.int32(F_NEXT))                  # (each launch sets its own)
        #: top_down_group's (top_down_grid's) work-items per group: on GPUs the widest
        #: group the kernel fits (at most GRID_WORK_GROUP)
        self.group_wg = self.wg
        if self.group and not self.handle.is_cpu:
            self.group_wg = (self.handle.group_fits(self.kernel("top_down_grid"),
                                                    most=GRID_WORK_GROUP)
                             if self.grid_groups
                             else self.handle.group_fits(self.kernel("top_down_group")))
        self._level_launches = {
            "top_down": self.bind(sched, "ptg-top-down", self.kernel("top_down"), "cols", n,
                                  np.int32(self.level), dg.col_ptr.data, dg.col_ind.data,
                                  np.int32(self.nc), *state, *guard, *self._queue_args()),
            "bottom_up": sched.bind("ptg-bottom-up", self.kernel("bottom_up"),
                                    self.global_size(self.nr), self.wg, np.int32(self.level),
                                    dg.row_ptr.data, dg.row_ind.data, np.int32(self.nr),
                                    *state, *guard, *self._queue_args())}

    def bottom_up(self):
        """BottomUp: every unvisited row joins an active tree next to it, if any (one level
        of the host's choice; counts at F_NEXT, F_LEAVES)."""
        self.stats["bottom_up_levels"] += 1
        self._bottom_up(self._single())

    def _bottom_up(self, guard):
        self._level_launches["bottom_up"]((0, np.int32(self.level)), *zip(GUARD_ARGS, guard))

    def augment(self):
        """Step 2 (Augment): flip the path of every tree that found one; then the counts of
        Step 3's rule. One read-back; returns the host copy of the counters."""
        sched = self.sched
        sched.fill("ptg-augment", self.flags[F_PATHS:], 0)
        self._augment()
        self.count_forest(release=True)
        host = sched.read("ptg-augment", self.host, self.flags.data)
        paths = int(host[F_PATHS])
        self.stats["paths"] += paths
        self.unmatched -= paths
        return host.copy()

    def _augment(self):
        self.sched.launch("ptg-augment", self.kernel("augment"), self.global_size(self.nc),
                          self.wg, np.int32(self.nc), self.cmatch.data, self.rmatch.data,
                          self.leaf.data, self.parent.data, self.flags.data)

    def count_forest(self, release=False):
        """Columns in active trees, rows in renewable and in active trees (flags C_*); with
        ``release`` (after Augment) the renewable trees' rows are marked RELEASED for
        :meth:`graft` (or reset by :meth:`rebuild_forest`)."""
        self.sched.launch("ptg-count", self.kernel("count_forest"),
                          self.global_size(max(self.nr, self.nc)), self.wg,
                          np.int32(self.nr), np.int32(self.nc), self.croot.data,
                          self.rroot.data, self.leaf.data, np.int32(bool(release)),
                          self.flags.data)

    def graft_or_rebuild(self, counts):
        """Step 3: graft the renewable rows onto the active trees when
        ``|active columns| > |renewable rows| / alpha`` (the paper's rule), else rebuild the
        forest from the unmatched columns (also before the level counter could wrap)."""
        active_cols = int(counts[C_ACTIVE_COLS])
        renewable_rows = int(counts[C_RENEWABLE_ROWS])
        if self.level > 2**31 - 4 * (self.nr + 4):
            self.level = 0   # (every level stamp is rewritten by the rebuild)
        elif active_cols * self.alpha > renewable_rows:
            self.graft(int(counts[C_ACTIVE_ROWS]))
            return
        self.rebuild_forest()

    def graft(self, active_rows):
        """Graft: the renewable rows (released by :meth:`count_forest`) become unvisited
        and join an active tree next to them; their mates are the next frontier (one
        read-back: its size, and the free rows grafted, each the end of a path that the next
        :meth:`grow_forest` reports even if its BFS finds no other)."""
        self.stats["grafts"] += 1
        self.level += 1
        self.sched.fill("ptg-graft", self.flags[:2], 0)
        self._graft(guard=False)
        host = self.sched.read("ptg-graft", self.host[:2], self.flags.data)
        grafted, self.grafted_leaves = int(host[F_NEXT]), int(host[F_LEAVES])
        self.frontier = grafted
        self.unvisited = self.nr - active_rows - grafted - self.grafted_leaves

    def _graft(self, guard):
        dg = self.dg
        self.sched.launch("ptg-graft", self.kernel("graft"), self.global_size(self.nr),
                          self.wg, np.int32(self.level), dg.row_ptr.data, dg.row_ind.data,
                          np.int32(self.nr), self.rmatch.data, self.croot.data,
                          self.clevel.data, self.leaf.data, self.rroot.data, self.parent.data,
                          self.flags.data, *self._queue_args(), *self._renewal_args(guard))

    def cover(self):
        """The König cover's ``bfs_array`` from the final forest (columns of active trees)."""
        bfs_array = cla.empty(self.handle.queue, max(self.nc, 1), np.int32)
        self.sched.launch("cover", self.kernel("cover_bfs_array"), self.global_size(self.nc),
                          self.wg, np.int32(self.nc), self.croot.data, self.leaf.data,
                          bfs_array.data)
        return bfs_array


register_algorithm("ptg", TreeGraftingMatcher)
