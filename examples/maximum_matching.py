#!/usr/bin/env python3
"""Maximum matching of a sparse matrix on the best OpenCL device, checked against scipy.

    python examples/maximum_matching.py [FILE.mtx[.gz]] [--device cpu]
"""
import argparse
import os
import time

from scipy.sparse.csgraph import maximum_bipartite_matching

import pyclmatch

HERE = os.path.dirname(os.path.abspath(__file__))

ap = argparse.ArgumentParser()
ap.add_argument("file", nargs="?", default=os.path.join(HERE, "data", "rajat01.mtx.gz"))
ap.add_argument("--device", default=None)
args = ap.parse_args()

A = pyclmatch.read_graph(args.file)
res = pyclmatch.maximum_matching(A, device=args.device)          # verified König certificate
print(f"{os.path.basename(args.file)}: {A.shape[0]} x {A.shape[1]}, {A.nnz} entries")
print(f"{res.algorithm} on {res.device}: cardinality {res.cardinality} "
      f"(initial {res.initial_cardinality}), {res.phases} phases, "
      f"{res.timings['total'] * 1e3:.1f} ms in all")
print(f"auto chose it by rule {res.choice['rule']}: {res.choice['reason']}")
print(f"certificate: {res.certificate.rows.size} rows + {res.certificate.cols.size} columns "
      f"cover every edge")

B = A.tocsr(copy=True)
B.data[:] = 1
t0 = time.perf_counter()
ref = maximum_bipartite_matching(B, perm_type="column")
print(f"scipy: cardinality {(ref >= 0).sum()} in {(time.perf_counter() - t0) * 1e3:.1f} ms")
assert (ref >= 0).sum() == res.cardinality
