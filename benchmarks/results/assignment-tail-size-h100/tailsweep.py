"""Probe (issue 31): the tail's size (TAIL_GPU: the most unassigned rows the one-group tail
takes) against whole-call time on uniform 1M, knn 250K, uniform 250K."""
import sys, time, statistics
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch.assignment import auction
from bench_assignment import instance
h = pyclmatch.get_device("gpu")
sizes = [int(x) for x in (sys.argv[1] if len(sys.argv) > 1 else "1024,512,256,128").split(",")]
for kind, n in (("uniform", 1000000), ("knn", 250000), ("uniform", 250000)):
    A = instance(kind, n, 10, 0)
    pyclmatch.assignment(A, device=h)
    for rep in range(int(__import__("os").environ.get("REPS", "2"))):
        for tail in sizes:
            auction.TAIL_GPU = tail
            ts, rs = [], []
            for _ in range(3):
                t = time.perf_counter(); r = pyclmatch.assignment(A, device=h)
                ts.append(time.perf_counter() - t); rs.append(r)
            c, tm = rs[-1].counters, rs[-1].timings
            print(f"{kind} {n} tail={tail} rep{rep}: median {statistics.median(ts):.3f} s "
                  f"({' '.join(f'{x:.3f}' for x in ts)}) rounds {c.get('rounds')} tail_rounds "
                  f"{c.get('tail_rounds')} relabels {c.get('relabels')} kernel:tail "
                  f"{tm.get('kernel:tail', 0):.3f} bid {tm.get('kernel:bid', 0):.3f} relabel "
                  f"{tm.get('kernel:relabel', 0):.3f}", flush=True)
