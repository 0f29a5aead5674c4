"""The dense rows' global update (relabel_pass_wide) with and without the skip of unchanged
rows (issue 31), on a CPU device with a global update forced every 16 rounds
(RELABEL_CPU = 16): uniform dense 2000 x 2000 costs, a verified warm-up, then 2 timed
calls; prints one JSON line.

    PYTHONPATH=TREE python3 relabel_dense_ab.py LABEL   # TREE: a checkout of the code to time
"""
import json, statistics, sys, time
import numpy as np
import pyclmatch
from pyclmatch.assignment import auction
auction.RELABEL_CPU = 16
h = pyclmatch.get_device("cpu")
C = np.random.default_rng(0).random((2000, 2000))
warm = pyclmatch.assignment(C, device=h)
runs = []
for _ in range(2):
    t = time.perf_counter()
    r = pyclmatch.assignment(C, device=h)
    runs.append((time.perf_counter() - t, r.timings.get("kernel:relabel", 0.0),
                 r.counters.get("relabel_passes", 0), r.objective))
rel = statistics.median(x[1] for x in runs)
passes = statistics.median(x[2] for x in runs)
print(json.dumps({"code": sys.argv[1], "kind": "dense", "n": 2000,
                  "call_s": round(statistics.median(x[0] for x in runs), 3),
                  "relabel_s": round(rel, 3), "passes": passes,
                  "ms_per_pass": round(1e3 * rel / max(passes, 1), 3),
                  "objective": warm.objective,
                  "objectives_equal": all(x[3] == warm.objective for x in runs)}), flush=True)
