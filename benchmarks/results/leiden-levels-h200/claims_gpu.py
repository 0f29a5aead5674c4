"""Probe (issue 32): Leiden's refinement with claims (default) against hashed movers
(claims=False), whole calls interleaved, medians of REPS, on the GPU."""
import os, sys, time, functools, statistics as st
import numpy as np, scipy.sparse as sp, scipy.io
import pyclmatch
from pyclmatch import generators
from pyclmatch.community import api, leiden as L
h = pyclmatch.get_device(os.environ.get("DEV", "gpu"))
reps = int(os.environ.get("REPS", 5))
names = sys.argv[1].split(",")
graphs = [(n, A.tocsr()) for n, A in generators.suite(
    [x for x in names if "." not in x], size="reference")]
for f in [x for x in names if "." in x]:
    R = scipy.io.mmread(os.path.join(os.environ["PYCLMATCH_SHARED"], "data/graphs", f))
    R = sp.csr_matrix(((abs(R) + abs(R.T)) > 0).astype(float)); R.setdiag(0); R.eliminate_zeros()
    graphs.append((f, R))
for name, A in graphs:
    res = {c: [] for c in (True, False)}
    for c in (True, False):
        api.DeviceLeiden = functools.partial(L.DeviceLeiden, claims=c)
        pyclmatch.leiden(A, device=h)
    for _ in range(reps):
        for c in (True, False):
            api.DeviceLeiden = functools.partial(L.DeviceLeiden, claims=c)
            t = time.perf_counter(); r = pyclmatch.leiden(A, device=h)
            res[c].append((time.perf_counter() - t, r.modularity, r.disconnected,
                           r.counters.get("launches", 0)))
    for c, rows in res.items():
        print(f"{name} claims={c}: median {st.median(x[0] for x in rows):.4f} s "
              f"Q {st.median(x[1] for x in rows):.5f} disconnected {max(x[2] for x in rows)} "
              f"launches {st.median(x[3] for x in rows):.0f} all "
              f"{' '.join(f'{x[0]:.3f}' for x in rows)}", flush=True)
