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

from ..errors import InputError, IterationLimitError
from .api import register_algorithm

TEMPLATE = "push_relabel.cl.mako"
L0 = 2
VARIANTS = {"gpr": "shr", "gpr-shr": "shr", "gpr-noshr": "noshr", "gpr-first": "first"}
RELABEL_RULES = ("adaptive", "fixed")
#: launches whose active-column count is recorded in ``counters["active_columns"]``
ACTIVE_HISTORY = 4096


class PushRelabelMatcher:
    """G-PR on one device graph; ``run`` leaves a maximum matching in ``rmatch``/``cmatch``."""

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
        self.handle, self.dg, self.name = handle, dgraph, name
        self.variant = VARIANTS[name]
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
        self.values = dict(dgraph.type_values, mode="ct")

    @staticmethod
    def device_bytes(graph, name):
        nr, nc = graph.shape
        b = {"psi_r": nr * 4, "psi_c": nc * 4, "bfs_array": nc * 4}
        if VARIANTS.get(name.lower(), "shr") != "first":
            b.update({"Ac": nc * 4, "Ap": nc * 4, "iA": nc * 4, "column ids": nc * 4})
        return b

    # -- kernels ---------------------------------------------------------------------------
    def kernel(self, name):
        return self.handle.kernel(TEMPLATE, name, **self.values)

    def build(self):
        names = ["init_relabel", "gr_level", "fix_matching_rows", "fix_matching_cols",
                 "labels_to_cover"]
        names += ["gpr_first"] if self.variant == "first" else ["gpr_init", "gpr_push"]
        for n in names:
            self.kernel(n)

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

    # -- global relabel (Algorithm 4) ---------------------------------------------------------
    def _global_relabel(self, sched, rmatch, cmatch, psi_r, psi_c, flags, host, inf):
        g = self.dg.graph
        nr, nc = np.int32(g.n_rows), np.int32(g.n_cols)
        rp, ri = self.dg.row_ptr.data, self.dg.row_ind.data
        k_lvl = self.kernel("gr_level")
        sched.launch("global relabel", self.kernel("init_relabel"), self._gs(nr + nc),
                     self.wg, rmatch.data, psi_r.data, psi_c.data, nr, nc, np.int32(inf))
        sched.fill("global relabel", flags.data, -1)
        c_level, batch = 0, 2
        while True:
            for _ in range(batch):                                    # Algorithm 4 lines 4-7
                sched.launch("global relabel", k_lvl, self._gs(nr), self.wg, np.int32(c_level),
                             rp, ri, nr, rmatch.data, cmatch.data, psi_r.data, psi_c.data,
                             np.int32(inf), flags.data)
                c_level += 2
            sched.read("global relabel", host, flags.data)
            if host[0] != c_level:            # the last level enqueued added no row
                break
            if c_level > 2 * (int(nr) + 2):
                raise IterationLimitError(f"global relabel ran past {c_level} levels on "
                                          f"{self.handle.label}; stopped instead of hanging")
            batch = min(2 * batch, self.batch_levels)
        # maxLevel (Algorithm 4 line 8): the level after the last one that added a row
        return max(int(host[0]), 0) + 2

    # -- the main loop (Algorithms 3 and 7) ---------------------------------------------------
    def run(self, rmatch, cmatch, sched):
        q = self.handle.queue
        g = self.dg.graph
        nr, nc = int(g.n_rows), int(g.n_cols)
        inf = nr + nc
        cp, ci = self.dg.col_ptr.data, self.dg.col_ind.data
        psi_r = cla.empty(q, nr, np.int32)
        psi_c = cla.empty(q, nc, np.int32)
        flags = cla.empty(q, 3, np.int32)
        act_count = cla.zeros(q, ACTIVE_HISTORY, np.int32)
        host = np.zeros(3, np.int32)
        stats = {"variant": f"G-PR-{ {'first': 'First', 'noshr': 'NoShr', 'shr': 'Shr'}[self.variant] }",
                 "relabel": f"{self.relabel},{self.k:g}", "pr_launches": 0,
                 "global_relabels": 0, "max_level": 0, "shrinks": 0, "reactivations": 0,
                 "final_checks": 0}
        launch_bound = max(10000, 50 * (nr + nc))
        first = self.variant == "first"
        k_init = k_push = k_first = None
        if first:
            k_first = self.kernel("gpr_first")
        else:
            k_init, k_push = self.kernel("gpr_init"), self.kernel("gpr_push")
            iA = cla.empty(q, max(nc, 1), np.int32)
            sched.fill("push-relabel", iA.data, -1)
            Ac, count = self._active_list(cmatch)
            n_act = int(sched.read("push-relabel", host[:1], count.data)[0])
            Ac = Ac[:max(n_act, 1)]
            Ap = Ac.copy(queue=q)
        loop = 0
        iter_gr = 0
        shrink = False

        def schedule_gr():
            nonlocal iter_gr, shrink
            max_level = self._global_relabel(sched, rmatch, cmatch, psi_r, psi_c, flags,
                                             host, inf)
            stats["global_relabels"] += 1
            stats["max_level"] = max(stats["max_level"], max_level)
            if self.relabel == "adaptive":                   # GETITERGR: k * maxLevel
                iter_gr = loop + max(1, int(math.ceil(self.k * max_level)))
            else:                                            # fixed: every k launches
                iter_gr = loop + max(1, int(round(self.k)))
            shrink = True

        while True:
            # ---- push-relabel until no active column is left --------------------------------
            if first or n_act > 0:
                sched.fill("push-relabel", flags.data, -1)
            while first or n_act > 0:
                if loop >= iter_gr:                                   # Algorithm 7 lines 6-9
                    schedule_gr()
                sched.report("push-relabel", launches=loop, active=(None if first else n_act))
                if not first and shrink and self.variant == "shr" \
                        and n_act >= self.shrink_threshold:           # lines 11-13
                    sched.tick("push-relabel launches", launch_bound)
                    sched.launch("push-relabel", k_init, n_act, self.wg, Ac.data, Ap.data,
                                 np.int32(n_act), rmatch.data, cmatch.data, iA.data,
                                 np.int32(loop), flags.data, act_count.data,
                                 np.int32(ACTIVE_HISTORY))
                    Ac, count, _ = self.handle.copy_if(Ac, "ary[i] != -1", queue=q)  # SHRKRNL
                    n_act = int(sched.read("shrink", host[:1], count.data)[0])
                    stats["shrinks"] += 1
                    shrink = False
                    if n_act == 0:
                        break
                    Ac = Ac[:n_act]
                    Ap = cla.empty(q, n_act, np.int32)
                    sched.launch("push-relabel", k_push, n_act, self.wg, cp, ci, Ac.data,
                                 Ap.data, np.int32(n_act), rmatch.data, cmatch.data,
                                 psi_r.data, psi_c.data, np.int32(inf), iA.data,
                                 np.int32(loop))
                    Ac, Ap = Ap, Ac                                   # line 18
                    loop += 1
                    continue
                shrink = False
                n_b = max(1, min(self.batch, iter_gr - loop))
                for _ in range(n_b):
                    sched.tick("push-relabel launches", launch_bound)
                    if first:                                         # Algorithm 3 line 9
                        sched.launch("push-relabel", k_first, self._gs(nc), self.wg, cp, ci,
                                     np.int32(nc), rmatch.data, cmatch.data, psi_r.data,
                                     psi_c.data, np.int32(inf), np.int32(loop), flags.data,
                                     act_count.data, np.int32(ACTIVE_HISTORY))
                    else:                                             # Algorithm 7 lines 15-18
                        sched.launch("push-relabel", k_init, n_act, self.wg, Ac.data, Ap.data,
                                     np.int32(n_act), rmatch.data, cmatch.data, iA.data,
                                     np.int32(loop), flags.data, act_count.data,
                                     np.int32(ACTIVE_HISTORY))
                        sched.launch("push-relabel", k_push, n_act, self.wg, cp, ci, Ac.data,
                                     Ap.data, np.int32(n_act), rmatch.data, cmatch.data,
                                     psi_r.data, psi_c.data, np.int32(inf), iA.data,
                                     np.int32(loop))
                        Ac, Ap = Ap, Ac
                    loop += 1
                sched.read("push-relabel", host, flags.data)
                if host[1] < loop - 1:          # a loop of this batch found no active column
                    break
            # ---- FIXMATCHING, then the exact final check (our addition) ---------------------
            gr_, gc_ = self._gs(nr), self._gs(nc)
            sched.launch("fixmatching", self.kernel("fix_matching_rows"), gr_, self.wg,
                         rmatch.data, cmatch.data, np.int32(nr))
            sched.launch("fixmatching", self.kernel("fix_matching_cols"), gc_, self.wg,
                         cmatch.data, rmatch.data, np.int32(nc))
            schedule_gr()
            stats["final_checks"] += 1
            bfs_array = cla.empty(q, nc, np.int32)
            sched.fill("final check", flags.data, 0)
            sched.launch("final check", self.kernel("labels_to_cover"), gc_, self.wg,
                         psi_c.data, cmatch.data, np.int32(nc), np.int32(inf), bfs_array.data,
                         flags.data)
            sched.read("final check", host, flags.data)
            if host[2] == 0:
                break
            # some unmatched column can still reach an unmatched row: make it active again
            stats["reactivations"] += int(host[2])
            sched.tick("final checks", min(nr, nc) + 2)
            if not first:
                Ac, count = self._active_list(cmatch, psi_c, inf)
                n_act = int(sched.read("push-relabel", host[:1], count.data)[0])
                Ac = Ac[:max(n_act, 1)]
                Ap = Ac.copy(queue=q)
        stats["pr_launches"] = loop
        n_hist = min(loop, ACTIVE_HISTORY)
        stats["active_columns"] = (sched.get("push-relabel", act_count[:n_hist]).tolist()
                                   if n_hist else [])
        return bfs_array, stats


for _name in VARIANTS:
    register_algorithm(_name, PushRelabelMatcher)
