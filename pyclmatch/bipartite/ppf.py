"""PPF: parallel Pothen-Fan on the device (paper 001, Algorithms 1, 2 and 4).

One DFS per unmatched column with the lookahead step, an explicit stack of edge offsets per
work-item (no recursion in OpenCL C) and test-and-test-and-set claims on a ``visited`` array of
iteration stamps (never reset). Only row mates are written during the search; column mates are
completed at the end (Algorithm 1 line 22). Work-items are persistent and take the next
unmatched column from an atomic counter (dynamic load balance, which matters on CPU devices).

The stack pool holds ``work_items * depth_cap`` offsets; ``depth_cap`` is the worst-case path
length ``min(m, n) + 1`` when that fits in ``stack_bytes`` (default 256 MiB, capped by the
device's max allocation), else as many levels as fit. A DFS that would go deeper stops (never
overflows) and is reported; if the last iteration had such a stop, the run cannot prove the
matching maximum, so it warns and the API finishes with its alternating BFS (APFB), which
``counters["cover_phases"]`` then reports.

Parameters: ``work_group_size``, ``work_items`` (persistent work-items), ``stack_bytes``.
"""
import warnings

import numpy as np
import pyopencl.array as cla

from ..engine.family import KernelFamily
from .registry import CERTIFICATE_VARIANT, register_algorithm


class PothenFanMatcher(KernelFamily):
    """PPF on one device graph: :meth:`run` searches from the unmatched columns in
    iterations (Algorithm 1's loop), then completes the column mates and the cover."""

    TEMPLATE = "ppf.cl.mako"
    needs_csr = False
    params = ("work_group_size", "work_items", "stack_bytes")

    def __init__(self, handle, dgraph, name="ppf", work_group_size=None, work_items=None,
                 stack_bytes=None):
        super().__init__(handle, mode="ct", **dgraph.type_values)
        self.dg = dgraph
        self.wg = int(work_group_size or (16 if handle.is_cpu else 64))
        self.wg = max(1, min(self.wg, handle.max_work_group_size))
        self.work_items = int(work_items or (handle.compute_units * 4 * self.wg if handle.is_cpu
                                             else 256 * self.wg))
        self.stack_bytes = int(stack_bytes or 256 * 2**20)
        self.stack_given = stack_bytes is not None      # (a stack cap the caller chose)

    @staticmethod
    def device_bytes(graph, name):
        nr, nc = graph.shape
        return {"visited": nr * 4, "lookahead": nc * 8, "unmatched": nc * 4, "bfs_array": nc * 4}

    def build(self):
        """Fetch the search, completion and cover kernels."""
        super().build("ppf_iteration", "complete_matching", "cover_cols", "cover_rows")

    def run(self, rmatch, cmatch, sched):
        """Augment until an iteration finds no path; returns (bfs_array, stats), with
        ``bfs_array`` None when a DFS hit the stack cap (the caller's BFS finishes)."""
        self.rmatch, self.cmatch, self.sched = rmatch, cmatch, sched
        self.allocate()
        overflow, final_failed = self.iterate()
        self.stats["ppf_iterations"] = self.it
        nr = int(self.dg.graph.n_rows)
        sched.launch("complete", self.kernel("complete_matching"), min(nr, self.T), self.wg,
                     rmatch.data, cmatch.data, np.int32(nr))           # Algorithm 1 line 22
        if overflow:     # (the answer is the same: counters["finished_by"] says so; only a
            self.stats["finished_by"] = CERTIFICATE_VARIANT    # cap the caller set warns)
            if self.stack_given:
                warnings.warn(f"ppf: a DFS needed more than {self.depth_cap} stack levels per "
                              f"work-item ({self.T} work-items, stack_bytes="
                              f"{self.stack_bytes}); the matching is finished by the "
                              f"alternating BFS of {CERTIFICATE_VARIANT} instead",
                              RuntimeWarning)
            return None, self.stats
        return self.cover(final_failed), self.stats

    def allocate(self):
        """The list of unmatched columns, the visit stamps, the lookahead offsets and the
        stack pool (``depth_cap`` levels per work-item, within ``stack_bytes``)."""
        q, h = self.handle.queue, self.handle
        g = self.dg.graph
        nr, nc = int(g.n_rows), int(g.n_cols)
        self.host = np.zeros(3, np.int32)
        ids = h.arange(nc, np.int32, queue=q)
        self.un, count, _ = h.copy_if(ids, "cm[ary[i]] == -1",
                                      extra_args=[("cm", self.cmatch)], queue=q)
        self.n_un = int(self.sched.read("ppf", self.host[:1], count.data)[0])
        self.visited = cla.zeros(q, max(nr, 1), np.int32)
        self.lookahead = self.dg.col_ptr[:nc].copy(queue=q)
        osz = self.dg.odt.itemsize
        self.T = max(self.wg, min(self.work_items, -(-max(self.n_un, 1) // self.wg) * self.wg))
        budget = min(self.stack_bytes, h.max_alloc)
        need = min(nr, nc) + 1
        self.depth_cap = int(max(2, min(need, budget // (self.T * osz))))
        self.pool = cla.empty(q, self.T * self.depth_cap, self.dg.odt)
        self.flags = cla.empty(q, 3, np.int32)
        self.stats = {"ppf_iterations": 0, "paths": 0, "work_items": self.T,
                      "depth_cap": self.depth_cap, "stack_overflows": 0}
        self.it = 0

    def iterate(self):
        """PPF iterations (Algorithm 1 lines 3-21) while unmatched columns are left;
        returns (stack overflow in the last iteration, the last one found no path)."""
        q, h, sched, host = self.handle.queue, self.handle, self.sched, self.host
        g = self.dg.graph
        k_it = self.kernel("ppf_iteration")
        while self.n_un > 0:
            sched.tick("ppf iterations", min(g.n_rows, g.n_cols) + 2)
            self.it += 1
            sched.fill("ppf", self.flags.data, 0)
            sched.launch("ppf", k_it, self.T, self.wg, self.dg.col_ptr.data,
                         self.dg.col_ind.data, self.un.data, np.int32(self.n_un),
                         self.rmatch.data, self.visited.data, np.int32(self.it),
                         self.lookahead.data, self.pool.data, np.int32(self.depth_cap),
                         self.flags.data)
            sched.read("ppf", host, self.flags.data)
            found = int(host[1])
            self.stats["paths"] += found
            if host[2]:
                self.stats["stack_overflows"] += 1
            if found == 0:
                return bool(host[2]), True
            sched.report("ppf", iteration=self.it, paths=self.stats["paths"])
            if 4 * found >= self.n_un:                # drop the matched columns from the list
                self.un, count, _ = h.copy_if(self.un[:self.n_un], "ary[i] >= 0", queue=q)
                self.n_un = int(sched.read("ppf", host[:1], count.data)[0])
        return False, False

    def cover(self, final_failed):
        """The reached columns of the last search (the König cover's ``bfs_array``): the
        rows visited in the last iteration, none when it searched from no column."""
        g = self.dg.graph
        nr, nc = int(g.n_rows), int(g.n_cols)
        bfs_array = cla.empty(self.handle.queue, nc, np.int32)
        self.sched.launch("cover", self.kernel("cover_cols"), min(nc, self.T), self.wg,
                          self.cmatch.data, np.int32(nc), bfs_array.data)
        self.sched.launch("cover", self.kernel("cover_rows"), min(nr, self.T), self.wg,
                          self.rmatch.data, self.visited.data, np.int32(nr),
                          np.int32(self.it if final_failed else self.it + 1), bfs_array.data)
        return bfs_array


register_algorithm("ppf", PothenFanMatcher)
