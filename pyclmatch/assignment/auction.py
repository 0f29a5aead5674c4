"""Bertsekas' auction algorithm with epsilon-scaling, Jacobi (parallel) bidding, on the device
(kernels in ``kernels/auction.cl.mako``).

The auction solves a square sparse problem in the maximisation form with integer benefits
(:class:`BenefitMap`): the minimisation costs ``c`` become ``a = (max c - c) / unit``,
with ``unit = 1 / (n + 1)`` for integer costs whose range allows it (then a final ``eps = 1``
makes the answer exactly optimal: Bertsekas' ``eps < 1/n`` rule) and otherwise the unit that
spreads the cost range over :data:`BENEFIT_BITS` bits (the answer is then optimal for the
rounded benefits, within ``n`` units of them, and made exactly optimal by
:mod:`pyclmatch.assignment.finish`). The prices ``p`` become the minimisation form's column
potentials ``v = -p * unit``.

One scaling phase: the rows whose assignment is not ``eps``-optimal at the current prices
are released (``auction_release``; every row in the first phase), then bidding rounds run
until every row is assigned: each unassigned row bids for its best column (``auction_bid``;
``auction_bid_wide``, a work-group per row, for rows of :data:`WIDE_DEGREE` entries or more
on average), each column keeps its highest bid (``auction_tie``) and takes it
(``auction_assign``). Once at most a work-group's rows are unassigned, the rounds run inside
one launch of one work-group (``auction_tail``, a team of up to :data:`TEAM_GPU` work-items
per row on GPUs; for wide rows there, only the last rows of :data:`WIDE_TAIL_ENTRIES_GPU`
entries, with teams of up to the whole group). ``eps`` shrinks by ``scaling`` per phase down
to 1.

The last rows of a phase displace each other along long chains, a price rise of about
``eps`` per round, when the unassigned columns are far away: push-relabel without its global
relabelling. On GPUs, where a round costs microseconds, the prices get Goldberg and
Kennedy's global update every :data:`RELABEL_GPU` rounds of a phase (a parallel round
counting :data:`PARALLEL_WEIGHT`): ``relabel_*`` raises each price by ``eps`` times its
column's distance to an unassigned column, computed from below in at most
:data:`RELABEL_PASSES` sweeps, which keeps the phase's eps-complementary slackness and sends
the bids straight to the unassigned columns.
"""
import numpy as np
import pyopencl as cl

from ..engine import grid
from ..engine.family import KernelFamily
from ..engine.indices import offset_type, require_offset64
from ..errors import IterationLimitError

TEMPLATE = "auction.cl.mako"
#: the factor by which epsilon shrinks per scaling phase, by default
SCALING = 8
#: the rounded benefits span at most 2**BENEFIT_BITS (less for large problems: the prices
#: must stay far below 2**63)
BENEFIT_BITS = 40
NO_BID = np.iinfo(np.int64).min
NO_WINNER = np.iinfo(np.int32).max
#: the work-group size of the tail (auction_tail) on CPU and GPU devices
TAIL_CPU = 1024
TAIL_GPU = 1024
#: whether CPU devices map the costs to benefits by the kernel (numpy's map on the host is
#: faster there: 2-core PoCL, 3000^2 dense, 0.27 s against 0.1 s)
BENEFITS_KERNEL_CPU = False
#: the most work-items that bid for one row in the tail, on CPU and GPU devices
TEAM_CPU = 1
TEAM_GPU = 16
#: wide rows (WIDE_DEGREE) on GPUs: the tail takes the last rows holding this many entries
#: (on average), each bid for by a team of up to the whole group (0: none; a row per
#: work-group in launches of three kernels a round instead)
WIDE_TAIL_ENTRIES_GPU = 1 << 15
#: rows this long on average are bid for by a work-group each (auction_bid_wide)
WIDE_DEGREE = 64
#: the bidding rounds of a phase (parallel or in the tail) after which the prices get a
#: global update (:meth:`AuctionMatcher.relabel`), on GPUs; 0: never (CPU devices, where a
#: tail round costs far less than a relabelling pass over every row)
RELABEL_GPU = 2048
RELABEL_CPU = 0
#: a parallel round counts for this many tail rounds towards a global update (it costs
#: three launches and a sweep of every row)
PARALLEL_WEIGHT = 16
#: the most passes of a global update's distances (each a sweep of every row; a row whose
#: least term has not moved since the last pass reads one distance, not its entries)
RELABEL_PASSES = 128
#: the largest distance (in eps) that a global update gives a column
RELABEL_CAP = 256
#: on NVIDIA's GPUs (pyclmatch.engine.grid) the parallel rounds run up to GRID_ROUNDS at a
#: time in ONE launch of one work-group (of up to GRID_WORK_GROUP work-items) per compute
#: unit, a barrier over the groups between steps (``auction_grid``); wide rows then take no
#: tail (the grid's rounds are the cheaper there). GRID_GROUPS_CPU: that many groups on CPU
#: devices (0: none; for the tests). A barrier that waits past GRID_SPIN_LIMIT polls gives
#: up, and the rounds go on in launches.
GRID_GPU = True
GRID_GROUPS_CPU = 0
GRID_ROUNDS = 1024
GRID_WORK_GROUP = 1024
GRID_SPIN_LIMIT = 1 << 21


class BenefitMap:
    """How the minimisation costs ``cost`` of a square problem of size ``n`` become the
    auction's integer benefits: ``unit`` the cost of one benefit unit (``a = (max c - c) /
    unit``; a price ``p`` is the column potential ``v = -p * unit``), ``exact`` whether the
    benefits are the costs exactly (integer costs scaled by ``n + 1``), ``span`` the largest
    benefit, ``scale`` the largest magnitude of a cost, ``integers`` whether they are integers
    below 2**50. Computed from half the costs, so that a
    range past the largest float64 (costs near +-1.8e308) and a tiny one (near 1e-308) stay
    finite. :meth:`apply` maps on the host, the ``benefits`` kernel on the device.
    ``extremes``: the costs' ``(min, max)`` where known (else found here).

    Examples
    --------
    >>> import numpy as np
    >>> m = BenefitMap(np.array([3.0, 1.0, 2.0]), 2)
    >>> m.apply(np.array([3.0, 1.0, 2.0])).tolist(), m.unit, m.exact
    ([0, 6, 3], 0.3333333333333333, True)
    """
    INTEGRAL, ROUNDED, ZERO = range(3)

    def __init__(self, cost, n, extremes=None):
        self.top = int(min(2 ** BENEFIT_BITS, 2 ** 60 // (4 * (n + 1))))
        if extremes is None:
            extremes = (float(cost.min()), float(cost.max())) if cost.size else (0.0, 0.0)
        self.cmin, self.cmax = (float(x) for x in extremes)
        cmin = self.cmin
        self.half, self.mult = self.cmax / 2 - cmin / 2, float(n + 1)
        self.scale = max(-cmin, self.cmax, -self.cmax, cmin)
        #: integer costs small enough that potentials, sums and differences of a few of them
        #: stay exact in float64 (the finishing step is then exact however they were rounded)
        self.integers = bool(self.scale < 2 ** 50 and _integral(cost))
        if self.integers and 2 * self.half * (n + 1) <= self.top:
            self.mode, self.unit, self.exact = self.INTEGRAL, 1.0 / (n + 1), True
            self.span = int((self.cmax - cmin) * (n + 1))
        elif self.half == 0:
            self.mode, self.unit, self.exact, self.span = self.ZERO, 1.0, True, 0
        else:
            self.mode, self.unit, self.exact = self.ROUNDED, self.half / self.top * 2, False
            self.span = self.top

    def apply(self, cost):
        """The benefits (int64) of ``cost`` on the host."""
        if self.mode == self.INTEGRAL:
            return ((self.cmax - cost) * self.mult).astype(np.int64)
        if self.mode == self.ZERO:
            return np.zeros(cost.size, np.int64)
        t = np.multiply(cost, -0.5)        # (cmax / 2 - cost / 2) / half * top, in place
        t += self.cmax / 2
        t /= self.half
        t *= self.top
        return np.rint(t, out=t).astype(np.int64)

    def args(self):
        """The ``benefits`` kernel's arguments after the arrays."""
        return (np.int32(self.mode), np.float64(self.cmax), np.float64(self.half),
                np.float64(self.top), np.float64(self.mult))


def _integral(x, head=4096):
    """Whether every value of ``x`` is an integer (a head of it first: reals fail there)."""
    return all(bool(np.all(y == np.rint(y))) for y in (x[:head], x[head:]))


class AuctionMatcher(KernelFamily):
    """The auction on one device: :meth:`run` uploads the problem, runs the scaling phases
    and returns the assignment and the prices.

    Examples
    --------
    >>> import numpy as np, pyclmatch
    >>> from pyclmatch.engine.scheduler import Scheduler
    >>> h = pyclmatch.get_device("cpu")
    >>> ptr, ind = np.array([0, 2, 4]), np.array([0, 1, 0, 1], np.int32)
    >>> drv = AuctionMatcher(h, nnz=4)
    >>> rm, price, stats = drv.run(ptr, ind, np.array([0.0, 2.0, 1.0, 3.0]), Scheduler(h))
    >>> rm.tolist()
    [0, 1]
    """

    TEMPLATE = TEMPLATE
    GROUPS = (("auction_grid",),)
    KERNELS = ("benefits", "auction_bid", "auction_bid_wide", "auction_tie", "auction_assign",
               "auction_release", "auction_release_wide", "auction_tail", "relabel_init",
               "relabel_pass", "relabel_pass_wide", "relabel_top", "relabel_apply",
               "tighten_init", "tighten_pass", "tighten_pass_wide")

    def __init__(self, handle, nnz, scaling=SCALING, work_group_size=None, avg_degree=0.0):
        ot, self.odt = offset_type(nnz)
        if ot == "long":
            require_offset64(handle)
        super().__init__(handle, index_t="int", offset_t=ot, mode="ct")
        self.wg = int(work_group_size or handle.default_work_group_size())
        self.scaling = int(scaling)
        #: degree-aware bidding: a work-group per row (of ``wide`` work-items), or 0
        self.wide = 0 if avg_degree < WIDE_DEGREE else int(min(
            64 if handle.is_cpu else 256, handle.max_work_group_size,
            1 << (int(avg_degree) - 1).bit_length()))
        #: the most unassigned rows that the one-work-group tail takes
        self.tail = int(min(TAIL_CPU if handle.is_cpu else TAIL_GPU,
                            handle.max_work_group_size))
        #: the bidding rounds of a phase between global price updates (:meth:`relabel`)
        self.relabel_rounds = RELABEL_CPU if handle.is_cpu else RELABEL_GPU
        #: the work-items that bid for one row in the tail, at most, and the tail's smallest
        #: group: wide rows on GPUs get the whole group (:meth:`run`: its size) for their
        #: last rows, WIDE_TAIL_ENTRIES_GPU entries of them
        self.team, self.group_min = (TEAM_CPU if handle.is_cpu else TEAM_GPU), 32
        if self.wide and not handle.is_cpu:
            self.tail = min(self.tail, int(WIDE_TAIL_ENTRIES_GPU // max(avg_degree, 1)))
        self.dist = None
        #: work-groups of auction_grid's launches (0: rounds of three launches)
        self.grid_groups = grid.grid_groups(handle, GRID_GPU, GRID_GROUPS_CPU)

    def build(self, *names):
        """The kernels ``names`` and, where the device takes them, ``auction_grid``'s (a
        driver that refuses its inline PTX fence is remembered, and the rounds take three
        launches)."""
        super().build(*names)
        if self.grid_groups:
            self.grid_groups = grid.fenced(self.handle, self.grid_groups, self.grid_kernel)

    def grid_kernel(self):
        """``auction_grid`` for this problem's rows (wide or not)."""
        return self.kernel("auction_grid", grid_wide=bool(self.wide),
                           ptx_fence=grid.ptx_fence(self.handle, self.grid_groups))

    def grid(self, n):
        return min(self.handle.constant_grid(self.wg), -(-max(int(n), 1) // self.wg) * self.wg)

    def wide_grid(self):
        """The work-items of a launch of the ``*_wide`` kernels: a work-group of ``wide``
        work-items per row, as many groups as fill the device (at most one per row)."""
        w = self.wide
        return w * min(self.n, max(1, self.handle.constant_grid(w) // w))

    def upload(self, indptr, indices, cost, sched, extremes=None):
        """The problem (the costs, and their benefits made on the device: ``self.map``;
        ``extremes`` the costs' ``(min, max)`` where known) and the auction's state on the
        device; every row unassigned."""
        h, n = self.handle, indptr.size - 1
        self.map = BenefitMap(cost, n, extremes)
        with sched.step("upload"):
            self.n = n
            self.ptr = h.to_device(indptr.astype(self.odt))
            self.col = h.to_device(np.ascontiguousarray(indices, np.int32))
            self.c = h.to_device(np.ascontiguousarray(cost, np.float64))
            on_host = h.is_cpu and not BENEFITS_KERNEL_CPU
            self.a = h.to_device(self.map.apply(cost)) if on_host \
                else self.empty(max(cost.size, 1), np.int64)
            self.price = self.empty(max(n, 1), np.int64)
            self.row_match, self.owner, self.bid_col, self.col_winner = (
                self.empty(max(n, 1)) for _ in range(4))
            self.bid, self.col_bid = (self.empty(max(n, 1), np.int64) for _ in range(2))
            self.flags = h.to_device(np.array([0, 0, n, 0, 0, 0], np.int32), read_only=False)
        for buf, value, dt in ((self.price, 0, np.int64), (self.row_match, -1, np.int32),
                               (self.owner, -1, np.int32), (self.col_bid, NO_BID, np.int64),
                               (self.col_winner, NO_WINNER, np.int32)):
            sched.fill("init", buf, value, dt)
        if not on_host:
            sched.launch("init", self.kernel("benefits"), self.grid(cost.size), self.wg,
                         self.odt.type(cost.size), self.c.data, self.a.data,
                         *self.map.args())

    def release(self, eps, sched):
        """Epsilon-scaling: unassign the rows that are not ``eps``-optimal any more."""
        args = (np.int32(self.n), self.ptr.data, self.col.data, self.a.data,
                self.price.data, self.row_match.data, self.owner.data, np.int64(eps),
                self.flags.data)
        if self.wide:
            w = self.wide
            sched.launch("release", self.kernel("auction_release_wide"), self.wide_grid(), w,
                         *args, cl.LocalMemory(8 * w))
        else:
            sched.launch("release", self.kernel("auction_release"), self.grid(self.n),
                         self.wg, *args)

    def relabel(self, eps, span, sched, stats):
        """The global price update (``relabel_*`` in the kernels): every price raised by
        ``eps`` times its column's distance to an unassigned column, computed from below in
        at most :data:`RELABEL_PASSES` passes (the kernels' comment: any number of passes
        keeps eps-complementary slackness), capped at :data:`RELABEL_CAP` and where the
        raise would pass the benefits' ``span`` (a column dearer than another by more than
        the span is never a row's better choice; more would only spread the potentials,
        and the finishing step's rounding with them)."""
        n, g, wg = np.int32(self.n), self.grid(self.n), self.wg
        cap = np.int32(min(self.n, RELABEL_CAP, max(span, eps) // eps + 1))
        if self.dist is None:
            self.dist, self.profit = self.empty(max(self.n, 1)), self.empty(max(self.n, 1),
                                                                            np.int64)
            self.rflags = self.empty(1)
            #: per row, the column of its least term and that column's distance then
            #: (relabel_pass skips a row while that distance has not moved)
            self.least_col, self.least_dist = (self.empty(max(self.n, 1)) for _ in range(2))
        sched.launch("relabel", self.kernel("relabel_init"), g, wg, n, self.ptr.data,
                     self.col.data, self.a.data, self.price.data, self.row_match.data,
                     self.dist.data, self.profit.data, np.int32(not self.wide))
        common = (n, self.ptr.data, self.col.data, self.a.data, self.price.data,
                  self.row_match.data)
        sched.fill("relabel", self.least_col, -1)
        if self.wide:
            w = self.wide
            step = sched.bind("relabel", self.kernel("relabel_pass_wide"), self.wide_grid(), w,
                              *common, self.dist.data, np.int64(eps), cap, np.int32(0),
                              self.rflags.data, cl.LocalMemory(8 * w), self.least_col.data,
                              self.least_dist.data, cl.LocalMemory(4 * w),
                              cl.LocalMemory(4 * w))
            at = 9
        else:
            step = sched.bind("relabel", self.kernel("relabel_pass"), g, wg, *common,
                              self.profit.data, self.dist.data, np.int64(eps), cap,
                              np.int32(0), self.rflags.data, self.least_col.data,
                              self.least_dist.data)
            at = 10
        sched.fill("relabel", self.rflags, 0)
        passes, seen = 0, np.zeros(1, np.int32)
        while passes < RELABEL_PASSES:
            for _ in range(min(8, RELABEL_PASSES - passes)):
                passes += 1
                step((at, np.int32(passes)))
            sched.read("relabel", seen, self.rflags.data)
            if seen[0] < passes:
                break
        sched.fill("relabel", self.rflags, 0)
        sched.launch("relabel", self.kernel("relabel_top"), g, wg, n, self.dist.data, cap,
                     self.rflags.data)
        sched.launch("relabel", self.kernel("relabel_apply"), g, wg, n, self.price.data,
                     self.dist.data, np.int64(eps), cap, self.rflags.data, self.flags.data)
        stats["relabels"] = stats.get("relabels", 0) + 1
        stats["relabel_passes"] = stats.get("relabel_passes", 0) + passes

    def bidding(self, eps, lonely, sched, stats):
        """Bidding rounds (bid, ties, assignment) until every row is assigned: launched three
        kernels a round, and once few rows are left (at most ``tail``) in one work-group
        (:meth:`tail_rounds`). The unassigned rows are read back after each chunk of rounds
        (1, 2, 4, then 8 rounds). Every ``relabel_rounds`` rounds (where set) the prices get
        a global update (:meth:`relabel`)."""
        g, wg, n = self.grid(self.n), self.wg, np.int32(self.n)
        bid_args = (n, self.ptr.data, self.col.data, self.a.data, self.price.data,
                    self.row_match.data, self.bid_col.data, self.bid.data, self.col_bid.data,
                    np.int64(eps), np.int64(lonely), np.int32(0), self.flags.data)
        if self.wide:
            w = self.wide
            bid = sched.bind("bid", self.kernel("auction_bid_wide"), self.wide_grid(), w,
                             *bid_args, *(cl.LocalMemory(8 * w) for _ in range(2)),
                             cl.LocalMemory(4 * w))
        else:
            bid = sched.bind("bid", self.kernel("auction_bid"), g, wg, *bid_args)
        tie = sched.bind("tie", self.kernel("auction_tie"), g, wg, n, self.row_match.data,
                         self.bid_col.data, self.bid.data, self.col_bid.data,
                         self.col_winner.data)
        assign = sched.bind("assign", self.kernel("auction_assign"), g, wg, n,
                            self.row_match.data, self.owner.data, self.price.data,
                            self.col_bid.data, self.col_winner.data, self.flags.data)
        chunk, flags, since, grid_ran = 1, np.zeros(6, np.int32), 0, False
        while True:
            left = self._left(sched, flags)
            if grid_ran:
                ran = self._grid_ran(sched, flags, stats)
                stats["rounds"] += ran
                since += ran * PARALLEL_WEIGHT
                left, grid_ran = int(flags[2]), False
            while 0 < left <= self.tail:
                since = self._relabel_due(since, eps, lonely, sched, stats)
                self.tail_rounds(eps, lonely, sched, stats, left, min(
                    1 << 14, self.relabel_rounds - since if self.relabel_rounds else 1 << 14))
                left = self._left(sched, flags)
                since += int(flags[3])
                stats["tail_rounds"] = stats.get("tail_rounds", 0) + int(flags[3])
                sched.tick("auction tails", 50 * self.n + 100000)
            if not left:
                return
            since = self._relabel_due(since, eps, lonely, sched, stats)
            if self.grid_groups:
                most = (self.relabel_rounds - since) // PARALLEL_WEIGHT \
                    if self.relabel_rounds else GRID_ROUNDS
                self.grid_rounds(eps, lonely, sched, max(1, min(GRID_ROUNDS, most)))
                grid_ran = True
            else:
                for _ in range(chunk):
                    stats["rounds"] += 1
                    bid((11, np.int32(stats["rounds"])))
                    tie()
                    assign()
                since += chunk * PARALLEL_WEIGHT
                chunk = min(2 * chunk, 8)
            sched.tick("auction rounds", 50 * self.n + 100000)

    def grid_rounds(self, eps, lonely, sched, max_rounds):
        """Up to ``max_rounds`` parallel rounds in one launch (``auction_grid``), until at
        most ``tail`` rows are unassigned; the host reads what ran with the unassigned rows
        (:meth:`_grid_ran`)."""
        knl = self.grid_kernel()
        wg = self.handle.group_fits(knl, most=GRID_WORK_GROUP)
        sched.fill("bid", self.flags, 0, start=4)
        sched.launch("bid", knl, wg * self.grid_groups, wg, np.int32(self.n), self.ptr.data,
                     self.col.data, self.a.data, self.price.data, self.row_match.data,
                     self.owner.data, self.bid_col.data, self.bid.data, self.col_bid.data,
                     self.col_winner.data, np.int64(eps), np.int64(lonely),
                     np.int32(max_rounds), np.int32(self.tail), np.int32(GRID_SPIN_LIMIT),
                     self.flags.data, *(cl.LocalMemory(8 * wg) for _ in range(2)),
                     *(cl.LocalMemory(4 * wg) for _ in range(2)))

    def _grid_ran(self, sched, flags, stats):
        """The rounds the last ``auction_grid`` ran (``flags`` read back after it). Where
        one of its barriers gave up (a device that did not run every group at once) the
        rounds go on in launches from now on: every step of a round leaves the assignment
        whole (a column's step is one work-item's), so only the bids of an unfinished round
        are dropped, and the unassigned rows recounted."""
        if not flags[5]:
            return int(flags[3])
        self.grid_groups, self.tail = 0, self.narrow_tail
        stats["grid_fallbacks"] = 1
        sched.fill("bid", self.col_bid, NO_BID, np.int64)
        sched.fill("bid", self.col_winner, NO_WINNER)
        left = int(np.count_nonzero(self.handle.download(self.row_match)[:self.n] < 0))
        flags[2:] = (left, 0, 0, 0)
        self.flags.set(flags)
        return 0

    def _relabel_due(self, since, eps, span, sched, stats):
        """A global update once ``since`` rounds ran since the last; the rounds since then."""
        if self.relabel_rounds and since >= self.relabel_rounds:
            self.relabel(eps, span, sched, stats)
            return 0
        return since

    def _left(self, sched, flags):
        """The unassigned rows (one read-back); raises when a price grew too large."""
        sched.read("auction", flags, self.flags.data)
        if flags[1]:
            raise IterationLimitError("the auction's prices grew past 2**61 (please report "
                                      "this matrix)")
        return int(flags[2])

    def tail_rounds(self, eps, lonely, sched, stats, left, max_rounds=1 << 14):
        """Up to ``max_rounds`` bidding rounds in one work-group (``auction_tail``) of the
        power of two >= ``left`` rows (at least ``group_min``), teams of up to ``team``
        work-items per row; on CPU devices, where a round costs the group's size, the group
        stops when its rows fall below a quarter of it, for a smaller one."""
        t = max(self.group_min, 1 << (int(left) - 1).bit_length())
        low = t // 4 if self.handle.is_cpu and t > 32 else 0
        sched.launch("tail", self.kernel("auction_tail"), t, t, np.int32(self.n),
                     self.ptr.data, self.col.data, self.a.data, self.price.data,
                     self.row_match.data, self.owner.data, self.col_bid.data,
                     self.col_winner.data, np.int64(eps),
                     np.int64(lonely), np.int32(max_rounds), np.int32(low),
                     np.int32(self.team), self.flags.data,
                     cl.LocalMemory(8 * t), cl.LocalMemory(8 * t), cl.LocalMemory(8 * t),
                     cl.LocalMemory(4 * t))
        stats["tail_launches"] = stats.get("tail_launches", 0) + 1

    def run(self, indptr, indices, cost, sched, extremes=None):
        """The auction of the square problem ``(indptr, indices, cost)`` (costs, minimised;
        their benefits maximised; ``extremes`` their ``(min, max)`` where known); returns
        ``(row_match int32, price int64, stats)`` on the host (``self.map.unit``: the cost
        of a price unit)."""
        stats = {"phases": 0, "rounds": 0}
        self.upload(indptr, indices, cost, sched, extremes)
        span = self.map.span
        eps = max(1, span // self.scaling)
        knl = self.kernel("auction_tail")          # (its group may be smaller than the device's)
        group = self.handle.group_fits(knl, most=1 << 30)
        self.tail = min(self.tail, group)
        if self.wide and not self.handle.is_cpu:
            self.team = self.group_min = group
        #: the tail of narrow rows; wide rows take none where the grid's rounds run
        self.narrow_tail = self.tail
        if self.wide and self.grid_groups:
            self.tail = 0
        with sched.step("auction"):
            while self.n:
                if stats["phases"]:
                    self.release(eps, sched)
                stats["phases"] += 1
                self.bidding(eps, max(span, 1), sched, stats)
                if eps == 1:
                    break
                eps = max(1, eps // self.scaling)
        with sched.step("download"):
            rm = self.handle.download(self.row_match)[:self.n]
            price = self.handle.download(self.price)[:self.n]
        return rm, price, stats

    def tighten(self, cost, tol, sched, passes=4096):
        """The finishing step's tightening (:func:`pyclmatch.assignment.finish.tighten`) on
        the device, from the auction's assignment and prices (call after :meth:`run`; the
        potentials rounded to integers where ``self.map.integers``):
        ``(converged, u, v, passes, pos, mc)`` on the host (``u``, ``pos`` and ``mc``: the
        position of each row's matched entry and its cost, None unless converged; ``u =
        mc - v[row_match]``, every matched entry exactly tight)."""
        h, n, g, wg = self.handle, self.n, self.grid(self.n), self.wg
        with sched.step("tighten"):
            mpos, vkey = self.empty(max(n, 1), self.odt), self.empty(max(n, 1), np.int64)
            stamp, flags = self.empty(max(n, 1)), self.empty(1)
            sched.launch("tighten", self.kernel("tighten_init"), g, wg, np.int32(n),
                         self.ptr.data, self.col.data, self.row_match.data, self.price.data,
                         np.float64(self.map.unit), np.int32(self.map.integers),
                         mpos.data, vkey.data, stamp.data)
            if self.wide:
                name, g, wg = "tighten_pass_wide", self.wide_grid(), self.wide
            else:
                name = "tighten_pass"
            step = sched.bind("tighten", self.kernel(name), g, wg, np.int32(n),
                              self.ptr.data, self.col.data, self.c.data, mpos.data,
                              self.row_match.data, self.owner.data, vkey.data, stamp.data,
                              np.float64(tol), np.int32(0), flags.data)
            count = [0]

            def one():
                count[0] += 1
                step((10, np.int32(count[0])))
                return count[0]
            try:
                done, _ = sched.converge("tighten", one, flags, "tightening", passes)
                converged = True
            except IterationLimitError:
                done, converged = count[0], False
            keys = h.download(vkey)[:n]
            v = np.where(keys >= 0, keys, keys ^ np.int64(2 ** 63 - 1)).view(np.float64)
            u = pos = mc = None
            if converged:
                pos = h.download(mpos)[:n]
                rm = h.download(self.row_match)[:n]
                mc = cost[pos]
                u = mc - v[rm]
        return converged, u, v, done, pos, mc
