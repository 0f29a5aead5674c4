#!/usr/bin/env python3
"""What the scan-interval bound (:mod:`pyclmatch.engine.scan_intervals`) costs on the GPU:
whole-call medians of maximum_matching on unsorted kron-21 and uniform-4M-d4 (the intake's
device radix sort) and on sorted kron-21, and of louvain on kron-21 symmetrized, in one
process ``bounded`` (as shipped) or ``unbounded`` (pyopencl's scans as they are); one JSON
line, with the first-level units of the scan kernels built.

    for m in bounded unbounded bounded unbounded; do python3 benchmarks/scan_bound_cost.py $m; done
"""
import sys, os, time, statistics, json
sys.path.insert(0, os.getcwd())
import numpy as np, scipy.sparse as sp
from pyopencl.scan import GenericScanKernel
if sys.argv[1] == "unbounded":
    import pyclmatch.engine.scan_intervals  # noqa
    import pyclmatch
    GenericScanKernel.__call__ = GenericScanKernel.__call__.__wrapped__
import pyclmatch
from pyclmatch import generators
h = pyclmatch.get_device("gpu")
def med(f, k=5):
    f(); ts = []
    for _ in range(k):
        t0 = time.perf_counter(); r = f(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts), r
out = {"mode": sys.argv[1]}
K = sp.csr_matrix(generators.kron(21))
Kr = sp.csr_matrix(generators.permuted(K, seed=1)); Kr.has_sorted_indices = False
U = sp.csr_matrix(generators.permuted(generators.uniform(1 << 22, 4), seed=1)); U.has_sorted_indices = False
for name, A in (("kron-21-rcp", Kr), ("uniform-4M-d4-rcp", U), ("kron-21", K)):
    t, r = med(lambda: pyclmatch.maximum_matching(A, device=h))
    out[f"mm {name} whole s"] = t; out[f"mm {name} device s"] = r.device_seconds
S = ((K + K.T) > 0).astype(np.float64).tocsr(); S.setdiag(0); S.eliminate_zeros()
t, r = med(lambda: pyclmatch.louvain(S, device=h), 3)
out["louvain kron-21 whole s"] = t; out["louvain Q"] = r.modularity
# unit sizes of the scans built so far
units = {}
import gc
for o in gc.get_objects():
    if isinstance(o, GenericScanKernel):
        i = o.first_level_scan_info
        units[i.wg_size * i.k_group_size] = units.get(i.wg_size * i.k_group_size, 0) + 1
out["scan units (unit: kernels)"] = units
print(json.dumps(out))
