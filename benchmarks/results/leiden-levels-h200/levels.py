"""Probe (issue 32): Leiden's cost per level on the GPU (wall, kernel time per phase,
launches, read-backs), one warm call per graph, after a finish() at each level's end."""
import os, sys, time
import pyclmatch
from pyclmatch import generators
from pyclmatch.community import leiden as L
h = pyclmatch.get_device(os.environ.get("DEV", "gpu"))
orig = L.DeviceLeiden.next_level
rows = []
def next_level(self):
    self.handle.queue.finish()
    k0 = dict(self.sched.kernel_times()); w0 = dict(self.sched.wall)
    c0 = dict(self.sched.counters); r0 = self.handle.readbacks
    n, nnz = self.n, self.nnz
    t = time.perf_counter()
    go = orig(self)
    self.handle.queue.finish()
    dt = time.perf_counter() - t
    k1 = self.sched.kernel_times(); w1 = self.sched.wall; c1 = self.sched.counters
    kd = {p: k1[p] - k0.get(p, 0) for p in k1 if k1[p] - k0.get(p, 0) > 1e-5}
    wd = {p: w1[p] - w0.get(p, 0) for p in w1 if not p.startswith("level")
          and w1[p] - w0.get(p, 0) > 1e-4}
    rows.append(f"L{self.level - 1} n={n} nnz={nnz} small={int(self.small)} wall={dt*1e3:.2f}ms "
                f"kern={sum(kd.values())*1e3:.2f}ms launches={c1['launches'] - c0.get('launches', 0)} "
                f"reads={self.handle.readbacks - r0} "
                + " ".join(f"k:{p}={v*1e3:.2f}" for p, v in kd.items()) + " | "
                + " ".join(f"w:{p}={v*1e3:.2f}" for p, v in wd.items()))
    return go
L.DeviceLeiden.next_level = next_level
for name, A in generators.suite(sys.argv[1].split(","), size="reference"):
    pyclmatch.leiden(A, device=h)
    rows.clear()
    t = time.perf_counter(); r = pyclmatch.leiden(A, device=h); dt = time.perf_counter() - t
    print(f"== {name}: {dt:.3f} s total; timings " +
          " ".join(f"{k}={v*1e3:.1f}" for k, v in r.timings.items() if v > 1e-3), flush=True)
    print("\n".join(rows), flush=True)
