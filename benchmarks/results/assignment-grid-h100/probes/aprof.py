"""Where the whole call of dense 5000^2 and knn 250K spends its time (issue 31)."""
import sys, time, cProfile, pstats, io
import numpy as np
sys.path.insert(0, "benchmarks")
import pyclmatch
from bench_assignment import instance

dev = sys.argv[1] if len(sys.argv) > 1 else "gpu"
h = pyclmatch.get_device(dev)
m = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
n = int(sys.argv[3]) if len(sys.argv) > 3 else 250000
C = np.random.default_rng(0).random((m, m))
pyclmatch.assignment(C, device=h)
for _ in range(2):
    t = time.perf_counter(); r = pyclmatch.assignment(C, device=h); t = time.perf_counter() - t
    print(f"dense {m}: {t:.4f} s")
print({k: round(v, 4) for k, v in r.timings.items()})
print(r.counters)
pr = cProfile.Profile(); pr.enable(); pyclmatch.assignment(C, device=h); pr.disable()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(30); print(s.getvalue()[:5000])
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15); print(s.getvalue()[:3000])
if n:
    A = instance("knn", n, 10, 0)
    pyclmatch.assignment(A, device=h)
    t = time.perf_counter(); r = pyclmatch.assignment(A, device=h); t = time.perf_counter() - t
    print(f"knn {n}: {t:.4f} s")
    print({k: round(v, 4) for k, v in r.timings.items()})
    print(r.counters)
