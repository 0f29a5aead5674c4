"""Complete (dense) problems solved whole (the default of 0c41972: doubled where
rectangular, the dense auction where square) against restricted to each row's 16 cheapest
entries first (pyclmatch.assignment.restrict, then only for more than twice as many columns
as rows), with scipy's linear_sum_assignment beside them; best of two calls after a
warm-up. Run at 0c41972, from the repository root:

    python3 -u benchmarks/results/assignment-restricted-complete/restrict_ab.py cpu   # or gpu
"""
import sys, time, numpy as np, warnings
warnings.simplefilter("ignore")
import pyclmatch
from pyclmatch.assignment import api, restrict
from scipy.optimize import linear_sum_assignment as lsa
h = pyclmatch.get_device(sys.argv[1] if len(sys.argv) > 1 else "cpu")
rng = np.random.default_rng(0)
pyclmatch.assignment(rng.random((50, 60)), device=h); pyclmatch.assignment(rng.random((50, 200)), device=h)
near = lambda p: p.full and 0 < p.shape[0] <= p.shape[1] and p.shape[1] > restrict.KEEP and p.nnz == p.shape[0] * p.shape[1]
orig = api.wide
cases = [("uniform", (2000, 2000)), ("uniform", (5000, 5000)), ("int", (3000, 3000)), ("mw", (1000, 1000)), ("uniform", (466, 480)), ("uniform", (2000, 2100)), ("uniform", (1000, 1500)), ("int", (2000, 2100)),
         ("mw", (500, 520)), ("uniform", (4000, 4100))]
for kind, shape in cases:
    C = {"uniform": lambda: rng.random(shape) * 1e6, "int": lambda: rng.integers(0, 100, shape).astype(float),
         "mw": lambda: np.outer(np.arange(1, shape[0] + 1), np.arange(1, shape[1] + 1)).astype(float)}[kind]()
    a, b = lsa(C); ref = C[a, b].sum()
    out = []
    for name, rule in (("doubled", orig), ("restricted", near)):
        api.wide = rule
        ts = []
        for _ in range(2):
            t = time.perf_counter(); r = pyclmatch.assignment(C, device=h); ts.append(time.perf_counter() - t)
        out.append(f"{name} {min(ts):.3f} s ok={abs(r.objective - ref) <= 1e-12 * abs(ref)} {r.counters.get('restricted', '')}/{r.counters.get('restricted_entries', '')}")
    api.wide = orig
    t = time.perf_counter(); lsa(C); ts = time.perf_counter() - t
    print(kind, shape, " | ".join(out), f"| scipy {ts:.4f}", flush=True)
