"""Probe (issue 31): the tail's stall rule (tail-stall.patch) on the GPU, whole-call time,
settings interleaved call by call: uniform 1M, knn 250K, Machol-Wien 20K, dense 5000^2."""
import sys, time, statistics as st
import numpy as np
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch.assignment import auction as AU
from bench_assignment import instance
h = pyclmatch.get_device("gpu")
settings = [tuple(int(x) for x in s.split(",")) for s in sys.argv[2:]]
reps = int(sys.argv[1])
def dense(n):
    rng = np.random.default_rng(0)
    import scipy.sparse as sp
    return sp.csr_matrix(rng.random((n, n)) + 0.01)
cases = [("uniform", 1000000), ("knn", 250000), ("machol-wien", 20000), ("dense", 5000)]
only = __import__("os").environ.get("ONLY")
for kind, n in cases:
    if only and kind not in only.split(","):
        continue
    A = dense(n) if kind == "dense" else instance(kind, n, 10, 0)
    AU.STALL = 0; pyclmatch.assignment(A, device=h)
    res = {s: [] for s in settings}
    for _ in range(reps):
        for s in settings:
            AU.STALL, AU.STALL_GAP = s
            t = time.perf_counter(); r = pyclmatch.assignment(A, device=h)
            dt = time.perf_counter() - t
            c = r.counters
            res[s].append((dt, c.get("tail_rounds", 0), c.get("relabels", 0),
                           c.get("relabel_passes", 0), c["rounds"], c.get("stall_relabels", 0)))
    for s, rows in res.items():
        med = [st.median(x) for x in zip(*rows)]
        print(f"{kind} {n} stall,gap={s}: median {med[0]:.3f} s tail {med[1]:.0f} relabels "
              f"{med[2]:.0f} passes {med[3]:.0f} rounds {med[4]:.0f} stall_relabels {med[5]:.0f}"
              f"  all {' '.join(f'{x[0]:.3f}' for x in rows)}", flush=True)
