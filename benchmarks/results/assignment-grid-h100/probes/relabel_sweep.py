"""The auction's global-update cadence on the GPU (issue 31): whole-call seconds and
counters for RELABEL_GPU / RELABEL_PASSES / PARALLEL_WEIGHT settings, knn and uniform."""
import sys, time
import numpy as np
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch.assignment import auction
from bench_assignment import instance
h = pyclmatch.get_device("gpu")
probs = {f"{k}-{n}": instance(k, n, 10, 0) for k, n in (("knn", 250000), ("uniform", 1000000), ("uniform", 250000))}
probs["dense-5000"] = np.random.default_rng(0).random((5000, 5000))
for s in sys.argv[1:]:
    rr, passes, weight = (int(x) for x in s.split(","))
    auction.RELABEL_GPU, auction.RELABEL_PASSES, auction.PARALLEL_WEIGHT = rr, passes, weight
    for name, A in probs.items():
        pyclmatch.assignment(A, device=h)
        ts = []
        for _ in range(3):
            t = time.perf_counter(); r = pyclmatch.assignment(A, device=h); ts.append(time.perf_counter() - t)
        c = r.counters
        kt = {k[7:]: round(v, 3) for k, v in r.timings.items() if k.startswith("kernel:") and v > 0.01}
        print(s, name, f"{sorted(ts)[1]:.3f}s", {k: c.get(k) for k in ("rounds", "tail_rounds", "relabels", "relabel_passes", "launches")}, kt, flush=True)
