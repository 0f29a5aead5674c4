"""Probe (issue 31): the scaling factor (eps divided per phase) against whole-call time on
knn 250K and uniform 1M, with the global price updates."""
import sys, time, statistics
sys.path.insert(0, "benchmarks")
import pyclmatch
from bench_assignment import instance
h = pyclmatch.get_device("gpu")
factors = [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "4,8,16").split(",")]
import os
cases = [(k, int(n)) for k, n in (c.split(":") for c in os.environ.get("CASES", "knn:250000,uniform:1000000").split(","))]
for kind, n in cases:
    A = __import__("numpy").random.default_rng(0).random((n, n)) if kind == "dense" else instance(kind, n, 10, 0)
    pyclmatch.assignment(A, device=h)
    for rep in range(int(os.environ.get("REPS", "2"))):
        for f in factors:
            ts = []
            for _ in range(3):
                t = time.perf_counter(); r = pyclmatch.assignment(A, device=h, scaling=f)
                ts.append(time.perf_counter() - t)
            c = r.counters
            print(f"{kind} {n} scaling={f} rep{rep}: median {statistics.median(ts):.3f} s "
                  f"({' '.join(f'{x:.3f}' for x in ts)}) phases {c.get('phases')} rounds "
                  f"{c.get('rounds')} tail_rounds {c.get('tail_rounds')} relabels {c.get('relabels')}",
                  flush=True)
