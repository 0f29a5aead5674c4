"""Probe (issue 32): Leiden's refinement with a fixed number of visits (DeviceLeiden's
``visits``) against rounds until nothing moves: time, modularity, levels, launches."""
import os, sys, time, statistics, inspect
import pyclmatch
from pyclmatch import generators
from pyclmatch.community.leiden import DeviceLeiden
h = pyclmatch.get_device(sys.argv[1] if len(sys.argv) > 1 else "gpu")
names = (sys.argv[2] if len(sys.argv) > 2 else "delaunay-21").split(",")
reps = int(os.environ.get("REPS", "3"))
init = DeviceLeiden.__init__
sig = inspect.signature(init)
for name in names:
    (gname, A), = list(generators.suite([name], size=os.environ.get("SIZE", "reference")))
    for rep in range(2):
        for v in (0, 4, 2):
            def patched(self, *a, _v=v, **k):
                k.setdefault("visits", _v)
                return init(self, *a, **k)
            DeviceLeiden.__init__ = patched
            pyclmatch.leiden(A, device=h)
            ts = []
            for _ in range(reps):
                t = time.perf_counter(); r = pyclmatch.leiden(A, device=h); ts.append(time.perf_counter() - t)
            c = r.counters
            print(f"{gname} visits={v} rep{rep}: {statistics.median(ts):.3f} s Q={r.modularity:.5f} "
                  f"levels={c.get('levels')} launches={c.get('launches')} readbacks={c.get('readbacks')} "
                  f"refine={r.timings.get('refine', 0):.3f} disc={getattr(r, 'disconnected', None)}", flush=True)
    DeviceLeiden.__init__ = init
