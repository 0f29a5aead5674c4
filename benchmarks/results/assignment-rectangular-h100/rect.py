"""Probe (issue 31): rectangular assignment problems on the GPU, per-phase timings and
counters, each called twice (the first call builds its kernels). Run from the repository root:

    T=150 timeout 160 python3 -u benchmarks/results/assignment-rectangular-h100/rect.py
"""
import os, time, numpy as np, scipy.sparse as sp
import pyclmatch, faulthandler, sys
faulthandler.dump_traceback_later(int(os.environ.get("T", "100")), exit=True)
print("start", flush=True)
from pyclmatch.assignment import api, problem
h = pyclmatch.get_device(os.environ.get("DEVICE", "gpu"))
rng = np.random.default_rng(0)
def sparse(nr, nc):
    r = np.repeat(np.arange(nr), 10); c = rng.integers(0, nc, r.size)
    A = (sp.csr_matrix((np.ones(r.size), (r, c)), (nr, nc)) + sp.eye(nr, nc)).tocsr(); A.data = rng.random(A.nnz) + 0.01; return A
cases = [("dense 1000x3000 restricted", rng.random((1000, 3000)) * 1e6, {}),
         ("dense 1000x3000 doubled", None, {"wide": False}),
         ("dense 466x480", rng.random((466, 480)) * 1e6, {}),
         ("dense 2000x2100", rng.random((2000, 2100)) * 1e6, {}),
         ("sparse 2000x2100", sparse(2000, 2100), {}),
         ("sparse 5000x5200", sparse(5000, 5200), {}),
         ("sparse 50000x52000", sparse(50000, 52000), {})]
prev = None
for name, A, opt in cases:
    A = prev if A is None else A; prev = A
    sw = api.wide
    if opt.get("wide") is False: api.wide = lambda p: False
    for k in range(2):
        print("..", name, k, flush=True)
        t = time.perf_counter(); r = pyclmatch.assignment(A, device=h); t = time.perf_counter() - t
        print(f"{name} [{k}] {t:.3f} s", {a: round(b, 4) for a, b in r.timings.items() if b > 0.002},
              {a: b for a, b in r.counters.items() if a in ("rounds", "tail_rounds", "phases",
               "relabels", "restricted", "launches", "finish_paths", "grid_launches")}, flush=True)
    api.wide = sw
