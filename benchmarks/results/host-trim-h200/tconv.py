"""Tightening's converge cadence (chunk, ahead) on the GPU: whole calls, alternating."""
import sys, time, statistics as st
sys.path.insert(0, "benchmarks")
import numpy as np
import pyclmatch
from pyclmatch.engine.scheduler import Scheduler
from bench_assignment import instance

h = pyclmatch.get_device("gpu")
cases = [("uniform", 1000000), ("knn", 250000)]
settings = [tuple(int(x) for x in s.split(",")) for s in sys.argv[1:]] or [(2, 3), (8, 4)]
reps = 5
for kind, n in cases:
    A = instance(kind, n, 10, 0)
    pyclmatch.assignment(A, device=h)
    got = {s: [] for s in settings}
    for _ in range(reps):
        for s in settings:
            Scheduler.CONVERGE["gpu"] = s
            t = time.perf_counter(); r = pyclmatch.assignment(A, device=h)
            t = time.perf_counter() - t
            got[s].append((t, r.timings["tighten"], r.timings.get("kernel:tighten", 0),
                           r.timings["finish"], r.counters["tighten_passes"]))
    for s, rows in got.items():
        med = [st.median(x) for x in zip(*rows)]
        print(f"{kind} {n} {s}: total {med[0]:.4f} tighten {med[1]:.4f} "
              f"(kernel {med[2]:.4f}) finish {med[3]:.4f} passes {med[4]:.0f}  "
              f"all {[round(x[0], 3) for x in rows]}", flush=True)
    print({k: round(v, 4) for k, v in r.timings.items()})
