"""Leiden's small levels refined in one work-group (REFINE_ONE_GROUP_EDGES) or in launched
rounds: whole calls alternating in one process, medians."""
import sys, time, statistics as st
import numpy as np
import pyclmatch, scipy.io
from pyclmatch import generators
from pyclmatch.community import leiden as L

h = pyclmatch.get_device("gpu")
bounds = [int(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else [0, 1 << 16]
reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
graphs = list(generators.suite(["delaunay-21", "grid-2048"], size="reference"))
import os
R = scipy.io.mmread(os.path.join(os.environ["PYCLMATCH_SHARED"], "data/graphs/rajat01.mtx"))
R = ((abs(R) + abs(R.T)) > 0).astype(float).tocsr(); R.setdiag(0); R.eliminate_zeros()
graphs.append(("rajat01", R))
for name, A in graphs:
    pyclmatch.leiden(A, device=h)
    got = {b: [] for b in bounds}
    q = {}
    for _ in range(reps):
        for b in bounds:
            L.REFINE_ONE_GROUP_EDGES["gpu"] = b
            t = time.perf_counter(); r = pyclmatch.leiden(A, device=h)
            got[b].append(time.perf_counter() - t)
            q[b] = (round(r.modularity, 5), r.counters.get("launches"), r.disconnected)
    print(name, "  ".join(f"{b}: {st.median(v):.4f} {q[b]}" for b, v in got.items()), flush=True)
