import sys, time, statistics as st, argparse
sys.path.insert(0, "benchmarks")
import numpy as np, igraph as ig
import bench_leiden as BL
import pyclmatch
from pyclmatch import generators
from pyclmatch.community import leiden as L
orig = L.DeviceLeiden.__init__
def with_claims(c):
    def init(self, *a, **k):
        k["claims"] = c and k.get("claims", True)
        orig(self, *a, **k)
    return init
args = argparse.Namespace(files=None, suite=None, suite_graphs=None, max_edges=1e12)
gs = list(BL.graphs(args)) + list(generators.suite(["delaunay-17", "kron-17"], size="medium"))
h = pyclmatch.get_device("cpu")
worst = 0
for name, A in gs:
    A = A.tocsr()
    row = {}
    for c in (False, True):
        L.DeviceLeiden.__init__ = with_claims(c)
        qs, ts = [], []
        for s in range(3):
            t = time.perf_counter(); r = pyclmatch.leiden(A, device=h, seed=s); ts.append(time.perf_counter() - t)
            qs.append(pyclmatch.modularity(A, r.membership)); assert r.disconnected == 0
        row[c] = (st.median(qs), st.median(ts), r.counters.get("launches"))
    L.DeviceLeiden.__init__ = orig
    r_, c_ = A.nonzero(); m_ = r_ < c_; g = ig.Graph(n=A.shape[0], edges=list(zip(r_[m_].tolist(), c_[m_].tolist())))
    iq = st.median(
                   g.modularity(g.community_leiden(objective_function="modularity", n_iterations=2).membership) for s in range(3))
    rel = (row[True][0] - iq) / abs(iq)
    worst = min(worst, rel)
    print(f"{name}: hashed Q {row[False][0]:.5f} {row[False][1]:.3f}s L{row[False][2]} | claims Q {row[True][0]:.5f} {row[True][1]:.3f}s L{row[True][2]} | igraph {iq:.5f}  claims vs igraph {100*rel:+.2f}%  vs hashed {100*(row[True][0]-row[False][0])/abs(row[False][0]):+.2f}%", flush=True)
print("worst vs igraph", worst)
