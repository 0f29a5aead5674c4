"""The tail's stall rule (tail-stall.patch) on PoCL with the GPUs' auction settings: counts of
tail rounds, global updates and their passes per (STALL, STALL_GAP), medians of REPS calls,
and a model of the GPU time from the H200's knn 250K costs (4.7 us a tail round, 37 us a
pass, 27 us a parallel round).

    python3 stall_study.py KIND N REPS STALL,GAP ...
"""
import sys, time, statistics as st
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch.assignment import auction as AU
from bench_assignment import instance
AU.RELABEL_CPU = 2048; AU.GPU_LIKE = True; AU.TEAM_CPU = 16
kind, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
settings = [tuple(int(x) for x in s.split(",")) for s in sys.argv[4:]]
A = instance(kind, n, 10, 0)
h = pyclmatch.get_device("cpu")
res = {s: [] for s in settings}
for _ in range(reps):
    for s in settings:
        AU.STALL, AU.STALL_GAP = s
        r = pyclmatch.assignment(A, device=h)
        c = r.counters
        res[s].append((c.get("tail_rounds", 0), c.get("relabels", 0), c.get("relabel_passes", 0), c["rounds"],
                       c.get("tail_rounds", 0) * 4.7e-6 + c.get("relabel_passes", 0) * 37e-6 + c["rounds"] * 27e-6))
for s, rows in res.items():
    med = [st.median(x) for x in zip(*rows)]
    print(f"{kind} {n} stall,gap={s}: tail {med[0]:.0f} relabels {med[1]:.0f} passes {med[2]:.0f} rounds {med[3]:.0f} model {med[4]:.3f}  all {[round(x[4], 3) for x in rows]}", flush=True)
