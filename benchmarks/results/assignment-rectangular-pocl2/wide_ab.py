"""Wide complete problems (more than twice as many columns as rows) solved restricted to
each row's cheapest entries first, against the whole (doubled) problem (issue 31), on the
CPU device; and sparse near-square rectangular problems, which stay doubled. Run from the
repository root:

    PYTHONPATH=$PWD python3 benchmarks/results/assignment-rectangular-pocl2/wide_ab.py
"""
import os
import time
import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm
import pyclmatch
from pyclmatch.assignment import api

h = pyclmatch.get_device(os.environ.get("DEVICE", "cpu"))
rng = np.random.default_rng(0)
pyclmatch.assignment(rng.random((50, 200)), device=h)          # (the kernels' builds)
print("| shape | whole (doubled) s | restricted s (problems, entries) | scipy s | equal |")
print("|---|---|---|---|---|")
for shape in ((100, 1000), (466, 1000), (1000, 3000)):
    C = rng.random(shape) * 1e6
    t = time.perf_counter(); r, c = scipy_lsa(C); ts = time.perf_counter() - t
    ref, out = float(C[r, c].sum()), []
    for restricted in (False, True):
        saved = api.wide
        if not restricted:
            api.wide = lambda p: False
        t = time.perf_counter(); res = pyclmatch.assignment(C, device=h)
        out.append((time.perf_counter() - t, res))
        api.wide = saved
    equal = all(abs(o[1].objective - ref) <= 1e-12 * ref for o in out)
    k = out[1][1].counters
    print(f"| {shape[0]} x {shape[1]} | {out[0][0]:.3f} | {out[1][0]:.3f} ({k['restricted']}, "
          f"{k['restricted_entries']}) | {ts:.4f} | {equal} |", flush=True)
print()
print("| sparse, 10 per row | s | tail rounds | scipy s | equal |")
print("|---|---|---|---|---|")
for nr, nc in ((2000, 2100), (5000, 5200), (1000, 3000)):
    A = sp.random(nr, nc, density=10 / nc, random_state=1, format="csr")
    A = (A + sp.eye(nr, nc)).tocsr()
    A.data = rng.random(A.nnz) + 0.01
    t = time.perf_counter(); res = pyclmatch.assignment(A, device=h); tt = time.perf_counter() - t
    t = time.perf_counter(); r, c = scipy_mwfbm(A); ts = time.perf_counter() - t
    equal = abs(res.objective - A[r, c].sum()) <= 1e-12 * abs(res.objective)
    print(f"| {nr} x {nc} | {tt:.3f} | {res.counters.get('tail_rounds')} | {ts:.4f} | {equal} |",
          flush=True)
