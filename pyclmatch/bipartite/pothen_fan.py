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

from .api import register_algorithm

TEMPLATE = "pothen_fan.cl.mako"


class PothenFanMatcher:
    needs_csr = False
    params = ("work_group_size", "work_items", "stack_bytes")

    def __init__(self, handle, dgraph, name="ppf", work_group_size=None, work_items=None,
                 stack_bytes=None):
        self.handle, self.dg = handle, dgraph
        self.wg = int(work_group_size or (16 if handle.is_cpu else 64))
        self.wg = max(1, min(self.wg, handle.max_work_group_size))
        self.work_items = int(work_items or (handle.compute_units * 4 * self.wg if handle.is_cpu
                                             else 256 * self.wg))
        self.stack_bytes = int(stack_bytes or 256 * 2**20)
        self.values = dict(dgraph.type_values, mode="ct")

    @staticmethod
    def device_bytes(graph, name):
        nr, nc = graph.shape
        return {"visited": nr * 4, "lookahead": nc * 8, "unmatched": nc * 4, "bfs_array": nc * 4}

    def kernel(self, name):
        return self.handle.kernel(TEMPLATE, name, **self.values)

    def build(self):
        for n in ("ppf_iteration", "complete_matching", "cover_cols", "cover_rows"):
            self.kernel(n)

    def run(self, rmatch, cmatch, sched):
        q, h = self.handle.queue, self.handle
        g = self.dg.graph
        nr, nc = int(g.n_rows), int(g.n_cols)
        cp, ci = self.dg.col_ptr.data, self.dg.col_ind.data
        host = np.zeros(3, np.int32)
        ids = h.arange(nc, np.int32, queue=q)
        un, count, _ = h.copy_if(ids, "cm[ary[i]] == -1", extra_args=[("cm", cmatch)], queue=q)
        n_un = int(sched.read("ppf", host[:1], count.data)[0])
        visited = cla.zeros(q, max(nr, 1), np.int32)
        lookahead = self.dg.col_ptr[:nc].copy(queue=q)
        osz = self.dg.odt.itemsize
        T = max(self.wg, min(self.work_items, -(-max(n_un, 1) // self.wg) * self.wg))
        budget = min(self.stack_bytes, h.max_alloc)
        need = min(nr, nc) + 1
        depth_cap = int(max(2, min(need, budget // (T * osz))))
        pool = cla.empty(q, T * depth_cap, self.dg.odt)
        flags = cla.empty(q, 3, np.int32)
        k_it = self.kernel("ppf_iteration")
        stats = {"ppf_iterations": 0, "paths": 0, "work_items": T, "depth_cap": depth_cap,
                 "stack_overflows": 0}
        it = 0
        overflow = False
        final_failed = False       # did the last iteration search from every unmatched column?
        while n_un > 0:
            sched.tick("ppf iterations", min(nr, nc) + 2)
            it += 1
            sched.fill("ppf", flags.data, 0)
            sched.launch("ppf", k_it, T, self.wg, cp, ci, un.data, np.int32(n_un), rmatch.data,
                         visited.data, np.int32(it), lookahead.data, pool.data,
                         np.int32(depth_cap), flags.data)
            sched.read("ppf", host, flags.data)
            found = int(host[1])
            stats["paths"] += found
            if host[2]:
                stats["stack_overflows"] += 1
            if found == 0:
                overflow = bool(host[2])
                final_failed = True
                break
            sched.report("ppf", iteration=it, paths=stats["paths"])
            if 4 * found >= n_un:                     # drop the matched columns from the list
                un, count, _ = h.copy_if(un[:n_un], "ary[i] >= 0", queue=q)
                n_un = int(sched.read("ppf", host[:1], count.data)[0])
        stats["ppf_iterations"] = it
        sched.launch("complete", self.kernel("complete_matching"), min(nr, T), self.wg,
                     rmatch.data, cmatch.data, np.int32(nr))
        if overflow:
            warnings.warn(f"ppf: a DFS needed more than {depth_cap} stack levels per work-item "
                          f"({T} work-items, stack_bytes={self.stack_bytes}); the matching is "
                          f"finished by the alternating BFS of apfb-gpubfs-wr-ct instead",
                          RuntimeWarning)
            return None, stats
        bfs_array = cla.empty(q, nc, np.int32)
        sched.launch("cover", self.kernel("cover_cols"), min(nc, T), self.wg, cmatch.data,
                     np.int32(nc), bfs_array.data)
        sched.launch("cover", self.kernel("cover_rows"), min(nr, T), self.wg, rmatch.data,
                     visited.data, np.int32(nr), np.int32(it if final_failed else it + 1),
                     bfs_array.data)   # no unmatched column left: nothing is reached
        return bfs_array, stats


register_algorithm("ppf", PothenFanMatcher)
