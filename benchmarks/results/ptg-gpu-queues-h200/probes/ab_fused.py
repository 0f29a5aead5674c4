import statistics, sys, pyclmatch
from pyclmatch import generators
from pyclmatch.bipartite.ptg import TreeGraftingMatcher as T
fused_run = T.run
def unfused_run(self, rmatch, cmatch, sched):
    self.rmatch, self.cmatch, self.sched = rmatch, cmatch, sched
    self.allocate()
    self.rebuild_forest()
    while True:
        found = self.grow_forest(False)
        if not found:
            break
        self.stats["phases"] += 1
        self.graft_or_rebuild(self.augment())
    return self.cover(), dict(self.stats)
names = ["kron-21", "kron-21-rcp", "uniform-4M-d4", "grid-2048", "delaunay-21"]
for name, A in generators.suite(None, rcp="both", size="reference"):
    if name not in names: continue
    t = {"fused": [], "unfused": []}
    rb = {}
    for rep in range(8):
        for k, fn in (("fused", fused_run), ("unfused", unfused_run)):
            T.run = fn
            r = pyclmatch.maximum_matching(A, algorithm="ptg", device="gpu", verify=rep == 0)
            if rep: t[k].append(r.device_seconds)
            rb[k] = r.counters["readbacks"]
    print(name, {k: round(statistics.median(v) * 1e3, 2) for k, v in t.items()}, rb,
          {k: [round(x * 1e3, 1) for x in v] for k, v in t.items()}, flush=True)
