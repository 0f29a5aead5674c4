"""Global updates with and without the skip of unchanged rows (issue 31), on a CPU device
with the GPUs' update schedule forced (RELABEL_CPU = 2048): the instances of
bench_assignment.py, a verified warm-up, then 3 timed calls; prints one JSON line.

    PYTHONPATH=TREE python3 relabel_ab.py LABEL   # TREE: a checkout of the code to time
"""
import json, statistics, sys, time
sys.path.insert(0, "benchmarks")
from bench_assignment import instance
import pyclmatch
from pyclmatch.assignment import auction
auction.RELABEL_CPU = 2048
h = pyclmatch.get_device("cpu")
for kind, n in (("uniform", 100000), ("knn", 50000)):
    A = instance(kind, n, 10, 0)
    warm = pyclmatch.assignment(A, device=h)
    runs = []
    for _ in range(3):
        t = time.perf_counter()
        r = pyclmatch.assignment(A, device=h)
        runs.append((time.perf_counter() - t, r.timings.get("kernel:relabel", 0.0),
                     r.counters.get("relabel_passes", 0), r.objective))
    call = statistics.median(x[0] for x in runs)
    rel = statistics.median(x[1] for x in runs)
    passes = statistics.median(x[2] for x in runs)
    print(json.dumps({"code": sys.argv[1], "kind": kind, "n": n, "call_s": round(call, 3),
                      "relabel_s": round(rel, 3), "passes": passes,
                      "ms_per_pass": round(1e3 * rel / max(passes, 1), 3),
                      "objective": warm.objective,
                      "objectives_equal": all(x[3] == warm.objective for x in runs)}),
          flush=True)
