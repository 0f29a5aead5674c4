"""Probe (issue 32): where Leiden's whole call on delaunay-21 spends its host time on the GPU
host (timings per step, kernel time, cProfile of one warm call)."""
import cProfile, pstats, time, statistics
import pyclmatch
from pyclmatch import generators
h = pyclmatch.get_device("gpu")
(name, A), = list(generators.suite(["delaunay-21"], size="reference"))
for f in (pyclmatch.louvain, pyclmatch.leiden):
    f(A, device=h)
    ts = []
    for _ in range(3):
        t = time.perf_counter(); r = f(A, device=h); ts.append(time.perf_counter() - t)
    ks = sum(v for k, v in r.timings.items() if k.startswith("kernel:"))
    print(f.__name__, [round(t, 3) for t in ts], "kernel", round(ks, 3), "launches",
          r.counters.get("launches"), "readbacks", r.counters.get("readbacks"), flush=True)
    print("  ", {k: round(v, 4) for k, v in r.timings.items()}, flush=True)
pr = cProfile.Profile(); pr.enable()
r = pyclmatch.leiden(A, device=h)
pr.disable()
st = pstats.Stats(pr); st.sort_stats("tottime").print_stats(22)
st.sort_stats("cumtime").print_stats("pyclmatch", 30)
