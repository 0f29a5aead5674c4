"""Global price updates from above (RELABEL_ABOVE) against from below: whole calls
alternating in one process, medians, with the relabel kernels' time and passes."""
import sys, time, statistics as st
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch.assignment import auction
from bench_assignment import instance

h = pyclmatch.get_device("gpu")
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
cases = [("uniform", 1000000), ("knn", 250000), ("uniform", 250000), ("machol-wien", 100000)]
if len(sys.argv) > 2:
    auction.RELABEL_GPU = int(sys.argv[2])
for kind, n in cases:
    A = instance(kind, n, 10, 0)
    pyclmatch.assignment(A, device=h)
    got = {True: [], False: []}
    obj = set()
    for _ in range(reps):
        for ab in (True, False):
            auction.RELABEL_ABOVE = ab
            t = time.perf_counter(); r = pyclmatch.assignment(A, device=h)
            got[ab].append((time.perf_counter() - t, r.timings.get("kernel:relabel", 0),
                            r.timings.get("kernel:tail", 0), r.counters.get("relabels", 0),
                            r.counters.get("relabel_passes", 0),
                            r.counters.get("tail_rounds", 0),
                            r.counters.get("relabel_fallbacks", 0)))
            obj.add(r.objective)
    for ab, rows in got.items():
        med = [st.median(x) for x in zip(*rows)]
        print(f"{kind} {n} above={ab}: total {med[0]:.4f} relabel {med[1]:.4f} tail "
              f"{med[2]:.4f} relabels {med[3]:.0f} passes {med[4]:.0f} tail_rounds "
              f"{med[5]:.0f} fallbacks {med[6]:.0f}  all {[round(x[0], 3) for x in rows]}",
              flush=True)
    print("  objectives", obj, flush=True)
