"""Leiden's refinement with claims (DeviceLeiden(claims=True)) against the hashed movers
(claims=False) and igraph's community_leiden, on 2-core PoCL: modularity (recomputed),
time and launches, medians of three seeds.

    python3 claims_study.py shared      # the shared graphs of bench_leiden.py, delaunay-17, kron-17
    python3 claims_study.py expander    # uniform-256K-d4, symmetrized
"""
import argparse
import statistics as st
import sys
import time

import igraph as ig
import scipy.sparse as sp

sys.path.insert(0, "benchmarks")
import bench_leiden as BL
import pyclmatch
from pyclmatch import generators
from pyclmatch.community import leiden as L

ORIG = L.DeviceLeiden.__init__


def with_claims(c):
    def init(self, *a, **k):
        k["claims"] = c
        ORIG(self, *a, **k)
    return init


def graphs(which):
    if which == "shared":
        args = argparse.Namespace(files=None, suite=None, suite_graphs=None, max_edges=1e12)
        yield from BL.graphs(args)
        yield from generators.suite(["delaunay-17", "kron-17"], size="medium")
        return
    for name, M in generators.suite(["uniform-256K-d4"], size="medium"):
        A = sp.csr_matrix(((abs(M) + abs(M).T) > 0).astype(float))
        A.setdiag(0)
        A.eliminate_zeros()
        yield name, A


def main(which):
    h = pyclmatch.get_device("cpu")
    for name, A in graphs(which):
        A = A.tocsr()
        row = {}
        for c in (False, True):
            L.DeviceLeiden.__init__ = with_claims(c)
            qs, ts = [], []
            for s in range(3):
                t = time.perf_counter()
                r = pyclmatch.leiden(A, device=h, seed=s)
                ts.append(time.perf_counter() - t)
                qs.append(pyclmatch.modularity(A, r.membership))
                assert r.disconnected == 0
            row[c] = (st.median(qs), st.median(ts), r.counters.get("launches"))
        L.DeviceLeiden.__init__ = ORIG
        r_, c_ = A.nonzero()
        m_ = r_ < c_
        g = ig.Graph(n=A.shape[0], edges=list(zip(r_[m_].tolist(), c_[m_].tolist())))
        iq = st.median(g.modularity(g.community_leiden(objective_function="modularity",
                                                       n_iterations=2).membership)
                       for _ in range(3))
        (hq, hs, hl), (cq, cs, cl) = row[False], row[True]
        print(f"{name}: hashed Q {hq:.5f} {hs:.3f}s L{hl} | claims Q {cq:.5f} {cs:.3f}s L{cl} "
              f"| igraph {iq:.5f}  claims vs igraph {100 * (cq - iq) / abs(iq):+.2f}%  "
              f"vs hashed {100 * (cq - hq) / abs(hq):+.2f}%", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
