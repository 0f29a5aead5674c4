import statistics, numpy as np, pyclmatch
from pyclmatch import generators
from pyclmatch.bipartite import ptg as P
T = P.TreeGraftingMatcher
bound_td, bound_bu = T._top_down, T._bottom_up
def old_td(self, guard):
    dg = self.dg
    n = min(self.nc, P.QUEUE_GRID_GPU) if self.queue and not self.handle.is_cpu else self.nc
    self.launch(self.sched, "ptg-top-down", self.kernel("top_down"), "cols", n,
                np.int32(self.level), dg.col_ptr.data, dg.col_ind.data, np.int32(self.nc),
                self.rmatch.data, self.croot.data, self.clevel.data, self.leaf.data,
                self.rroot.data, self.parent.data, self.flags.data, *guard, *self._queue_args())
def old_bu(self, guard):
    dg = self.dg
    self.sched.launch("ptg-bottom-up", self.kernel("bottom_up"), self.global_size(self.nr),
                      self.wg, np.int32(self.level), dg.row_ptr.data, dg.row_ind.data,
                      np.int32(self.nr), self.rmatch.data, self.croot.data, self.clevel.data,
                      self.leaf.data, self.rroot.data, self.parent.data, self.flags.data,
                      *guard, *self._queue_args())
CONF = {"bound-g1k": (bound_td, bound_bu, 1024), "bound-g0": (bound_td, bound_bu, 0),
        "unbound-g1k": (old_td, old_bu, 1024)}
names = ["delaunay-21", "delaunay-21-rcp", "grid-2048", "grid-2048-rcp", "uniform-4M-d4"]
for name, A in generators.suite(["delaunay-21", "grid-2048", "uniform-4M-d4"], rcp="both", size="reference"):
    if name not in names: continue
    t = {k: [] for k in CONF}; kt = {}
    for rep in range(8):
        for k, (td, bu, g) in CONF.items():
            T._top_down, T._bottom_up, P.GROUP_FRONTIER_GPU = td, bu, g
            r = pyclmatch.maximum_matching(A, algorithm="ptg", device="gpu", verify=rep == 0)
            if rep:
                t[k].append(r.device_seconds)
                kt[k] = (round(r.timings.get("kernel:ptg-top-down", 0) * 1e3, 1),
                         round(r.timings["readback"] * 1e3, 1), r.counters["launches"],
                         r.counters.get("group_launches", 0), r.counters["bfs_levels"])
    print(name, {k: round(statistics.median(v) * 1e3, 1) for k, v in t.items()}, kt, flush=True)
