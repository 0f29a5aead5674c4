import sys, time, statistics as st
import numpy as np, igraph as ig, scipy.sparse as sp
import pyclmatch
from pyclmatch import generators
from pyclmatch.community import leiden as L
orig = L.DeviceLeiden.__init__
def with_claims(c):
    def init(self, *a, **k):
        k["claims"] = c and k.get("claims", True)
        orig(self, *a, **k)
    return init
h = pyclmatch.get_device("cpu")
for name, M in generators.suite(["uniform-256K-d4"], size="medium"):
    A = sp.csr_matrix(((abs(M) + abs(M).T) > 0).astype(float)); A.setdiag(0); A.eliminate_zeros()
    row = {}
    for c in (False, True):
        L.DeviceLeiden.__init__ = with_claims(c)
        qs, ts = [], []
        for s in range(3):
            t = time.perf_counter(); r = pyclmatch.leiden(A, device=h, seed=s); ts.append(time.perf_counter() - t)
            qs.append(pyclmatch.modularity(A, r.membership))
        row[c] = (st.median(qs), st.median(ts), r.counters.get("launches"), sum(r.counters.get("refine_rounds")))
    r_, c_ = A.nonzero(); m_ = r_ < c_; g = ig.Graph(n=A.shape[0], edges=list(zip(r_[m_].tolist(), c_[m_].tolist())))
    iq = st.median(g.modularity(g.community_leiden(objective_function="modularity", n_iterations=2).membership) for s in range(3))
    print(name, row, "igraph", iq, "claims vs igraph %+.2f%%" % (100 * (row[True][0] - iq) / iq))
