import sys, time
sys.path.insert(0, "benchmarks")
import numpy as np
import pyclmatch
from pyclmatch.assignment import auction as au
from bench_assignment import instance
n = int(sys.argv[1])
A = instance("knn", n, 10, 0)
h = pyclmatch.get_device("cpu")
au.TEAM_CPU = 1
for cfg in sys.argv[2].split(","):
    R, K, cap = map(int, cfg.split("/"))
    au.RELABEL_CPU, au.RELABEL_PASSES, au.RELABEL_CAP = R, K, cap
    t = time.perf_counter(); r = pyclmatch.assignment(A, device=h); t = time.perf_counter() - t
    c = r.counters
    print(f"{cfg}: {t:.2f}s rounds {c['rounds']} tail {c.get('tail_rounds')} relabels {c.get('relabels', 0)} passes {c.get('relabel_passes', 0)}", flush=True)
