import sys, time, statistics as st, numpy as np, scipy.sparse as sp, os
import pyclmatch
from pyclmatch import generators
G = {"delaunay-18": generators.delaunay(18).tocsr(), "kron-16": generators.kron(16).tocsr()}
h = pyclmatch.get_device("cpu")
out = []
for k, A in G.items():
    A = A.maximum(A.T).tocsr() if (A != A.T).nnz else A
    for f in (pyclmatch.louvain, pyclmatch.leiden):
        f(A, device=h)
        ts = []
        for _ in range(3):
            t = time.perf_counter(); r = f(A, device=h); ts.append(time.perf_counter() - t)
        out.append(f"{k}/{f.__name__[:3]} {st.median(ts):.3f} Q {r.modularity:.5f}")
print(sys.argv[1], os.path.dirname(pyclmatch.__file__), "  ".join(out), flush=True)
