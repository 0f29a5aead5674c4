"""Dense rectangular full problems, padded with dummy rows against doubled (issue 31), on
the CPU device: whole-call seconds, the auction's rounds (a parallel round counted as 8 tail
rounds), and scipy's linear_sum_assignment beside them. Run from the repository root:

    PYTHONPATH=$PWD python3 benchmarks/results/assignment-rectangular-pocl2/pad_ab.py
"""
import os
import time
import numpy as np
from scipy.optimize import linear_sum_assignment as scipy_lsa
import pyclmatch
from pyclmatch.assignment import problem

h = pyclmatch.get_device(os.environ.get("DEVICE", "cpu"))
rng = np.random.default_rng(0)
pyclmatch.assignment(rng.random((50, 60)), device=h)         # (the kernels' builds)
pyclmatch.assignment(rng.random((50, 200)), device=h)
print("| shape | (nc - nr) / nr | doubled s (rounds) | padded s (rounds) | scipy s | equal |")
print("|---|---|---|---|---|---|")
for shape in ((466, 466), (466, 480), (466, 520), (466, 620), (466, 700), (100, 160),
              (466, 1000), (2000, 2100)):
    C = rng.random(shape) * 1e6
    t = time.perf_counter(); r, c = scipy_lsa(C); ts = time.perf_counter() - t
    out = []
    for density in (2.0, problem.PAD_DENSITY):      # (2.0: never padded)
        saved, problem.PAD_DENSITY = problem.PAD_DENSITY, density
        t = time.perf_counter(); res = pyclmatch.assignment(C, device=h)
        out.append((time.perf_counter() - t, res.counters.get("rounds", 0) * 8
                    + res.counters.get("tail_rounds", 0), res.objective))
        problem.PAD_DENSITY = saved
    ref = float(C[r, c].sum())
    equal = all(abs(o[2] - ref) <= 1e-12 * ref for o in out)
    pad = "(not padded)" if shape[1] > 2 * shape[0] or shape[0] == shape[1] else ""
    print(f"| {shape[0]} x {shape[1]} | {(shape[1] - shape[0]) / shape[0]:.2f} | "
          f"{out[0][0]:.3f} ({out[0][1]}) | {out[1][0]:.3f} ({out[1][1]}) {pad} | {ts:.4f} | "
          f"{equal} |", flush=True)
