"""G-PR: lock-free push-relabel on the device (paper 003, Deveci, Kaya, Ucar, Catalyurek).

Three variants, selectable by name in :func:`pyclmatch.maximum_matching`:

* ``"gpr-first"``: G-PR-First, Algorithm 3 with G-PR-KRNL (Algorithm 6) over all columns;
* ``"gpr-noshr"``: G-PR-NoShr, Algorithm 7 with the active-column lists ``Ac``/``Ap``, the
  ``iA`` loop stamps, G-PR-INITKRNL (rollback, Algorithm 8) and G-PR-PUSHKRNL (Algorithm 9);
* ``"gpr-shr"`` = ``"gpr"`` (the paper's best): G-PR-NoShr plus G-PR-SHRKRNL, which after a
  global relabel compacts the lists to the active columns when ``|Ac| >= shrink_threshold``
  (512 in the paper); the compaction is a prefix sum (pyopencl's ``copy_if`` scan).

Global relabeling (Algorithms 4-5, a level-synchronous BFS from the unmatched rows on the
device) runs first and then by the ``relabel`` rule: ``"adaptive"`` (the paper's best: the next
one after ``k * maxLevel`` push-relabel launches, ``k = 0.7``) or ``"fixed"`` (every ``k``
launches).

Parameters (keyword arguments of ``maximum_matching``): ``k``, ``relabel``,
``shrink_threshold``, ``work_group_size``, ``ct_work_items``, ``batch`` (push-relabel loops
enqueued between two reads of the flags; empty loops are no-ops) and ``batch_levels`` (GR
levels enqueued between two reads).

Exactness: when no active column is left, FIXMATCHING repairs the column mates, and one more
exact global relabel checks that no unmatched column can reach an unmatched row (our addition:
it makes the answer exact even if a concurrent race had marked a column unmatchable too
early; such columns are made active again and the loop goes on, counted in
``counters["reactivations"]``). The labels of that last relabel give the König cover directly
(reachable set from the unmatched rows), so no extra alternating search is needed.
"""
import math

import numpy as np
import pyopencl.array as cla

from ..engine.family import KernelFamily
from ..errors import InputError, IterationLimitError
from .registry import GPR_VARIANTS, register_algorithm

L0 = 2
VARIANTS = GPR_VARIANTS
RELABEL_RULES = ("adaptive", "fixed")
#: launches whose active-column count is recorded in ``counters["active_columns"]``
ACTIVE_HISTORY = 4096


class PushRelabelMatcher(KernelFamily):
    """G-PR on one device graph; ``run`` leaves a maximum matching in ``rmatch``/``cmatch``.

    :meth:`run` follows Algorithm 7 (Algorithm 3 for G-PR-First): a
    :meth:`global_relabel` every so many launches, :meth:`push_relabel` launches until no
    active column is left, :meth:`fix_matching`, then the exact :meth:`final_check`.
    """

    TEMPLATE = "gpr.cl.mako"
    needs_csr = True   # the global relabel walks rows (Algorithm 5)
    params = ("work_group_size", "ct_work_items", "k", "relabel", "shrink_threshold",
              "batch", "batch_levels")

    def __init__(self, handle, dgraph, name="gpr", work_group_size=None, ct_work_items=None,
                 k=None, relabel="adaptive", shrink_threshold=512, batch=None,
                 batch_levels=None):
        name = name.lower()
        if name not in VARIANTS:
            raise InputError(f"unknown push-relabel variant {name!r}; choose one of "
                             + ", ".join(VARIANTS))
        if relabel not in RELABEL_RULES:
            raise InputError(f"relabel must be 'adaptive' or 'fixed', not {relabel!r}")
        super().__init__(handle, mode="ct", **dgraph.type_values)
        self.dg, self.name = dgraph, name
        self.variant = VARIANTS[name]
        self.first = self.variant == "first"
        self.relabel = relabel
        if k is None:
            k = 0.7 if relabel == "adaptive" else 10
        self.k = float(k)
        if not self.k > 0:
            raise InputError(f"k must be positive, got {k!r}")
        self.shrink_threshold = int(shrink_threshold)
        self.wg = int(work_group_size or handle.default_work_group_size())
        self.wg = max(1, min(self.wg, handle.max_work_group_size))
        self.ct_items = int(ct_work_items or handle.constant_grid(self.wg))
        self.batch = max(1, int(batch or (4 if handle.is_cpu else 8)))
        self.batch_levels = max(1, int(batch_levels or (8 if handle.is_cpu else 16)))
        g = dgraph.graph
        if g.n_rows + g.n_cols + 4 > np.iinfo(np.int32).max:
            raise InputError("push-relabel labels are 32-bit: m + n must stay below 2**31 - 4")

    @staticmethod
    def device_bytes(graph, name):
        nr, nc = graph.shape
        b = {"psi_r": nr * 4, "psi_c": nc * 4, "bfs_array": nc * 4}
        if VARIANTS.get(name.lower(), "shr") != "first":
            b.update({"Ac": nc * 4, "Ap": nc * 4, "iA": nc * 4, "column ids": nc * 4})
        return b

    def build(self):
        """Fetch the kernels of this variant."""
        names = ["init_relabel", "gr_level", "fix_matching_rows", "fix_matching_cols",
                 "labels_to_cover"]
        names += ["gpr_first"] if self.first else ["gpr_init", "gpr_push"]
        super().build(*names)

    def _gs(self, n):
        return min(self.ct_items, int(n))

    def _active_list(self, cmatch, psi_c=None, inf=None):
        """Ids of the unmatched columns (with finite psi when ``psi_c`` is given): a stream
        compaction with pyopencl's copy_if; returns (device array, count device array)."""
        q = self.handle.queue
        nc = self.dg.graph.n_cols
        ids = self.handle.arange(nc, np.int32, queue=q)
        if psi_c is None:
            out, count, _ = self.handle.copy_if(ids, "cm[ary[i]] == -1",
                                                extra_args=[("cm", cmatch)], queue=q)
        else:
            out, count, _ = self.handle.copy_if(ids, "cm[ary[i]] < 0 && ps[ary[i]] < inf",
                                                extra_args=[("cm", cmatch), ("ps", psi_c),
                                                            ("inf", np.int32(inf))], queue=q)
        return out, count

    # -- the main loop (Algorithms 3 and 7) ---------------------------------------------------
    def run(self, rmatch, cmatch, sched):
        """Push-relabel until no active column is left and the final check finds no
        unmatched column that can still reach an unmatched row; returns (bfs_array, stats),
        ``bfs_array`` marking the columns the last relabel reached (the König cover)."""
        self.rmatch, self.cmatch, self.sched = rmatch, cmatch, sched
        self.allocate()
        while True:
            self.push_relabel()
            self.fix_matching()
            if not self.final_check():
                break
            self.reactivate()
        return self.bfs_array, self.finish()

    def allocate(self):
        """Labels, flags, counters and (G-PR-NoShr/Shr) the active-column lists of the
        unmatched columns."""
        q = self.handle.queue
        nr, nc = int(self.dg.graph.n_rows), int(self.dg.graph.n_cols)
        self.inf = nr + nc
        self.psi_r = cla.empty(q, nr, np.int32)
        self.psi_c = cla.empty(q, nc, np.int32)
        self.flags = cla.empty(q, 3, np.int32)
        self.act_count = cla.zeros(q, ACTIVE_HISTORY, np.int32)
        self.host = np.zeros(3, np.int32)
        name = {"first": "First", "noshr": "NoShr", "shr": "Shr"}[self.variant]
        self.stats = {"variant": f"G-PR-{name}", "relabel": f"{self.relabel},{self.k:g}",
                      "pr_launches": 0, "global_relabels": 0, "max_level": 0, "shrinks": 0,
                      "reactivations": 0, "final_checks": 0}
        self.launch_bound = max(10000, 50 * (nr + nc))
        self.loop = self.iter_gr = 0
        self.shrink = False
        self.n_act = 0
        if not self.first:
            self.iA = cla.empty(q, max(nc, 1), np.int32)
            self.sched.fill("push-relabel", self.iA.data, -1)
            self._set_active(*self._active_list(self.cmatch))

    def _set_active(self, ids, count):
        """Take the list ``ids`` of ``count`` (device) active columns as ``Ac`` and ``Ap``."""
        self.n_act = int(self.sched.read("push-relabel", self.host[:1], count.data)[0])
        self.Ac = ids[:max(self.n_act, 1)]
        self.Ap = self.Ac.copy(queue=self.handle.queue)

    def push_relabel(self):
        """Push-relabel launches until no column is active (Algorithm 7 lines 4-19), with a
        global relabel whenever the rule schedules one."""
        first = self.first
        if first or self.n_act > 0:
            self.sched.fill("push-relabel", self.flags.data, -1)
        while first or self.n_act > 0:
            if self.loop >= self.iter_gr:                             # Algorithm 7 lines 6-9
                self.schedule_relabel()
            self.sched.report("push-relabel", launches=self.loop,
                              active=(None if first else self.n_act))
            if not first and self.shrink and self.variant == "shr" \
                    and self.n_act >= self.shrink_threshold:          # lines 11-13
                if not self.shrink_loop():
                    break
                continue
            self.shrink = False
            if not self.push_batch():
                break

    def _tick(self):
        self.sched.tick("push-relabel launches", self.launch_bound)

    def _launch_init(self):
        """G-PR-INITKRNL (Algorithm 8) over ``Ac``: roll back, stamp, fill ``Ap``."""
        self.sched.launch("push-relabel", self.kernel("gpr_init"), self.n_act, self.wg,
                          self.Ac.data, self.Ap.data, np.int32(self.n_act), self.rmatch.data,
                          self.cmatch.data, self.iA.data, np.int32(self.loop),
                          self.flags.data, self.act_count.data, np.int32(ACTIVE_HISTORY))

    def _launch_push(self):
        """G-PR-PUSHKRNL (Algorithm 9) over ``Ac``, then the lists swap (line 18)."""
        self.sched.launch("push-relabel", self.kernel("gpr_push"), self.n_act, self.wg,
                          self.dg.col_ptr.data, self.dg.col_ind.data, self.Ac.data,
                          self.Ap.data, np.int32(self.n_act), self.rmatch.data,
                          self.cmatch.data, self.psi_r.data, self.psi_c.data,
                          np.int32(self.inf), self.iA.data, np.int32(self.loop))
        self.Ac, self.Ap = self.Ap, self.Ac
        self.loop += 1

    def shrink_loop(self):
        """One loop with G-PR-SHRKRNL: after the init kernel the active list is compacted
        (pyopencl's copy_if) before the push; returns False when no column is left."""
        self._tick()
        self._launch_init()
        self.Ac, count, _ = self.handle.copy_if(self.Ac, "ary[i] != -1",
                                                queue=self.handle.queue)
        self.n_act = int(self.sched.read("shrink", self.host[:1], count.data)[0])
        self.stats["shrinks"] += 1
        self.shrink = False
        if self.n_act == 0:
            return False
        self.Ac = self.Ac[:self.n_act]
        self.Ap = cla.empty(self.handle.queue, self.n_act, np.int32)
        self._launch_push()
        return True

    def push_batch(self):
        """Up to ``batch`` loops before one read of the flags (Algorithm 3 line 9 or
        Algorithm 7 lines 15-18); returns False when a loop found no active column."""
        nc = np.int32(self.dg.graph.n_cols)
        for _ in range(max(1, min(self.batch, self.iter_gr - self.loop))):
            self._tick()
            if self.first:
                self.sched.launch("push-relabel", self.kernel("gpr_first"), self._gs(nc),
                                  self.wg, self.dg.col_ptr.data, self.dg.col_ind.data, nc,
                                  self.rmatch.data, self.cmatch.data, self.psi_r.data,
                                  self.psi_c.data, np.int32(self.inf), np.int32(self.loop),
                                  self.flags.data, self.act_count.data,
                                  np.int32(ACTIVE_HISTORY))
                self.loop += 1
            else:
                self._launch_init()
                self._launch_push()
        self.sched.read("push-relabel", self.host, self.flags.data)
        return self.host[1] >= self.loop - 1

    def schedule_relabel(self):
        """A global relabel, and the loop of the next one (GETITERGR: ``k * maxLevel``
        launches later with the adaptive rule, ``k`` with the fixed one)."""
        max_level = self.global_relabel()
        self.stats["global_relabels"] += 1
        self.stats["max_level"] = max(self.stats["max_level"], max_level)
        if self.relabel == "adaptive":
            self.iter_gr = self.loop + max(1, int(math.ceil(self.k * max_level)))
        else:
            self.iter_gr = self.loop + max(1, int(round(self.k)))
        self.shrink = True

    def global_relabel(self):
        """Global relabeling (Algorithms 4-5): a level-synchronous BFS from the unmatched
        rows; returns maxLevel (Algorithm 4 line 8)."""
        g, sched, host = self.dg.graph, self.sched, self.host
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        sched.launch("global relabel", self.kernel("init_relabel"), self._gs(nr + nc),
                     self.wg, self.rmatch.data, self.psi_r.data, self.psi_c.data, nr, nc,
                     np.int32(self.inf))
        sched.fill("global relabel", self.flags.data, -1)
        k_lvl, c_level, batch = self.kernel("gr_level"), 0, 2
        while True:
            for _ in range(batch):                                    # Algorithm 4 lines 4-7
                sched.launch("global relabel", k_lvl, self._gs(nr), self.wg,
                             np.int32(c_level), self.dg.row_ptr.data, self.dg.row_ind.data,
                             nr, self.rmatch.data, self.cmatch.data, self.psi_r.data,
                             self.psi_c.data, np.int32(self.inf), self.flags.data)
                c_level += 2
            sched.read("global relabel", host, self.flags.data)
            if host[0] != c_level:            # the last level enqueued added no row
                break
            if c_level > 2 * (int(nr) + 2):
                raise IterationLimitError(f"global relabel ran past {c_level} levels on "
                                          f"{self.handle.label}; stopped instead of hanging")
            batch = min(2 * batch, self.batch_levels)
        return max(int(host[0]), 0) + 2

    def fix_matching(self):
        """FIXMATCHING: the column mates made consistent with the row mates."""
        g = self.dg.graph
        self.sched.launch("fixmatching", self.kernel("fix_matching_rows"), self._gs(g.n_rows),
                          self.wg, self.rmatch.data, self.cmatch.data, np.int32(g.n_rows))
        self.sched.launch("fixmatching", self.kernel("fix_matching_cols"), self._gs(g.n_cols),
                          self.wg, self.cmatch.data, self.rmatch.data, np.int32(g.n_cols))

    def final_check(self):
        """One more exact global relabel (our addition); its labels give the König cover
        (``bfs_array``). Returns whether an unmatched column can still reach an unmatched
        row (then the loop goes on)."""
        self.schedule_relabel()
        self.stats["final_checks"] += 1
        nc = int(self.dg.graph.n_cols)
        self.bfs_array = cla.empty(self.handle.queue, nc, np.int32)
        self.sched.fill("final check", self.flags.data, 0)
        self.sched.launch("final check", self.kernel("labels_to_cover"), self._gs(nc),
                          self.wg, self.psi_c.data, self.cmatch.data, np.int32(nc),
                          np.int32(self.inf), self.bfs_array.data, self.flags.data)
        self.sched.read("final check", self.host, self.flags.data)
        return self.host[2] != 0

    def reactivate(self):
        """Make the unmatched columns that can reach an unmatched row active again."""
        g = self.dg.graph
        self.stats["reactivations"] += int(self.host[2])
        self.sched.tick("final checks", min(g.n_rows, g.n_cols) + 2)
        if not self.first:
            self._set_active(*self._active_list(self.cmatch, self.psi_c, self.inf))

    def finish(self):
        """The stats, with the active-column counts of the first launches."""
        self.stats["pr_launches"] = self.loop
        n_hist = min(self.loop, ACTIVE_HISTORY)
        self.stats["active_columns"] = (
            self.sched.get("push-relabel", self.act_count[:n_hist]).tolist() if n_hist else [])
        return self.stats


for _name in VARIANTS:
    register_algorithm(_name, PushRelabelMatcher)
