"""Harvesting profiling events during read-back waits (Scheduler.HARVEST) against all at the
end: whole calls alternating in one process, medians."""
import sys, time, statistics as st
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch import generators
from pyclmatch.engine.scheduler import Scheduler
from bench_assignment import instance

h = pyclmatch.get_device("gpu")
(_, D), = list(generators.suite(["delaunay-21"], size="reference"))
cases = [("leiden delaunay-21", lambda: pyclmatch.leiden(D, device=h), 7),
         ("louvain delaunay-21", lambda: pyclmatch.louvain(D, device=h), 7)]
for kind, n in (("uniform", 1000000), ("knn", 250000)):
    A = instance(kind, n, 10, 0)
    cases.append((f"{kind} {n}", (lambda A=A: pyclmatch.assignment(A, device=h)), 5))
for name, f, reps in cases:
    f()
    got = {True: [], False: []}
    for _ in range(reps):
        for hv in (True, False):
            Scheduler.HARVEST = hv
            t = time.perf_counter(); r = f(); got[hv].append(time.perf_counter() - t)
    print(f"{name}: harvest {st.median(got[True]):.4f} end {st.median(got[False]):.4f}  "
          f"launches {r.counters.get('launches')}  {[round(x, 3) for x in got[True]]} "
          f"{[round(x, 3) for x in got[False]]}", flush=True)
