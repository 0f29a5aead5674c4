"""Global updates with and without the skip of unchanged rows (issue 31), on a CPU device,
which runs none by default: the sparse instances of bench_assignment.py with the GPUs'
schedule forced (RELABEL_CPU = 2048), and uniform dense 2000 x 2000 costs (rows of a
work-group each: relabel_pass_wide) with an update every 16 rounds; a verified warm-up,
then 3 timed calls; prints one JSON line per instance.

    PYTHONPATH=TREE python3 relabel_ab.py LABEL   # TREE: a checkout of the code to time
"""
import json, statistics, sys, time
import numpy as np
sys.path.insert(0, "benchmarks")
from bench_assignment import instance
import pyclmatch
from pyclmatch.assignment import auction
h = pyclmatch.get_device("cpu")
CASES = (("uniform", 100000, 2048), ("knn", 50000, 2048), ("dense", 2000, 16))
for kind, n, every in CASES:
    auction.RELABEL_CPU = every
    A = (np.random.default_rng(0).random((n, n)) if kind == "dense"
         else instance(kind, n, 10, 0))
    warm = pyclmatch.assignment(A, device=h)
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        r = pyclmatch.assignment(A, device=h)
        runs.append((time.perf_counter() - t, r.timings.get("kernel:relabel", 0.0),
                     r.counters.get("relabel_passes", 0), r.objective))
    rel = statistics.median(x[1] for x in runs)
    passes = statistics.median(x[2] for x in runs)
    print(json.dumps({"code": sys.argv[1], "kind": kind, "n": n, "relabel_every": every,
                      "call_s": round(statistics.median(x[0] for x in runs), 3),
                      "relabel_s": round(rel, 3), "passes": passes,
                      "ms_per_pass": round(1e3 * rel / max(passes, 1), 3),
                      "objective": warm.objective,
                      "objectives_equal": all(x[3] == warm.objective for x in runs)}),
          flush=True)
