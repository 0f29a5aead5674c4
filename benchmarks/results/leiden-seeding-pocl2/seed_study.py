import sys, functools, statistics as st, time
import numpy as np, scipy.sparse as sp
import pyclmatch
from pyclmatch import generators, io
from pyclmatch.community import api, leiden as L
h = pyclmatch.get_device("cpu")
def graphs():
    yield "delaunay-17", generators.delaunay(17).tocsr()
    yield "grid-256", generators.grid(256).tocsr()
    K = generators.kron(15).tocsr(); yield "kron-15", K.maximum(K.T).tocsr()
    for f in ["rajat01.mtx", "4elt.graph", "astro-ph.graph", "wing.graph", "ca-condmat-cc1.txt.gz", "PGPgiantcompo.graph"]:
        A = io.read_graph("/work/shared/data/graphs/" + f)
        A = sp.csr_matrix(A); A = sp.csr_matrix(((abs(A) + abs(A.T)) > 0).astype(float)); A.setdiag(0); A.eliminate_zeros()
        yield f.split(".")[0], A
bits = [int(b) for b in sys.argv[1].split(",")]
for name, A in graphs():
    row = []
    for b in bits:
        api.DeviceLeiden = functools.partial(L.DeviceLeiden, seed_bits=b)
        qs, lv, rr, ts = [], [], [], []
        for seed in (None, 1, 2):
            t = time.perf_counter(); r = pyclmatch.leiden(A, device=h, seed=seed); ts.append(time.perf_counter() - t)
            qs.append(r.modularity); lv.append(r.counters["levels"]); rr.append(sum(r.counters["refine_rounds"]))
            assert r.disconnected == 0
        row.append(f"b{b}: Q {np.mean(qs):.5f} lv {np.mean(lv):.1f} rounds {np.mean(rr):.0f} t {st.median(ts):.3f}")
    print(f"{name:14s} " + " | ".join(row), flush=True)
