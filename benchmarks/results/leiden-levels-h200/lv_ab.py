"""Louvain and Leiden whole calls, the tree in PYTHONPATH: medians of REPS after a warm-up
(graphs cached in /tmp/lv_ab.npz by the first process)."""
import os, sys, time, statistics as st
import numpy as np, scipy.sparse as sp, scipy.io
import pyclmatch
from pyclmatch import generators
cache = "/tmp/lv_ab.npz"
names = ["delaunay-21", "kron-21", "grid-2048"]
if not os.path.exists(cache):
    G = {k: A.tocsr() for k, A in generators.suite(names, size="reference")}
    R = scipy.io.mmread(os.path.join(os.environ["PYCLMATCH_SHARED"], "data/graphs/rajat01.mtx"))
    R = sp.csr_matrix(((abs(R) + abs(R.T)) > 0).astype(float)); R.setdiag(0); R.eliminate_zeros()
    G["rajat01"] = R
    np.savez(cache, **{f"{k}|{a}": getattr(M, a) for k, M in G.items()
                       for a in ("data", "indices", "indptr")},
             **{f"{k}|n": M.shape[0] for k, M in G.items()})
z = np.load(cache)
keys = sorted({k.split("|")[0] for k in z.files})
G = {k: sp.csr_matrix((z[f"{k}|data"], z[f"{k}|indices"], z[f"{k}|indptr"]),
                      shape=(int(z[f"{k}|n"]),) * 2) for k in keys}
h = pyclmatch.get_device("gpu")
reps = int(os.environ.get("REPS", 5))
out = []
only = os.environ.get("ONLY")
for k, A in G.items():
    if only and k not in only.split(","):
        continue
    for f in (pyclmatch.louvain, pyclmatch.leiden):
        f(A, device=h)
        ts = []
        for _ in range(reps):
            t = time.perf_counter(); r = f(A, device=h); ts.append(time.perf_counter() - t)
        out.append(f"{k}/{f.__name__[:3]} {st.median(ts):.4f} Q {r.modularity:.5f}")
print(sys.argv[1], "  ".join(out), flush=True)
