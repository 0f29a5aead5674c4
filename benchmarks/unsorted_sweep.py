#!/usr/bin/env python3
"""maximum_matching (auto, apfb-gpubfs-wr-mt, ppf) on the GPU over unsorted random matrices of
1e3 to 3e6 entries (227 sizes, every 1500 entries from 60,000 to 160,000): each call must
return a verified answer. ``unbounded`` first undoes pyclmatch's bound on pyopencl's scan
intervals (:mod:`pyclmatch.engine.scan_intervals`), which shows the band where pyopencl's
RadixSort fails on the device.

    python3 benchmarks/unsorted_sweep.py [unbounded]
"""
import sys, os, numpy as np, scipy.sparse as sp, time
sys.path.insert(0, os.getcwd())
import pyclmatch
from pyclmatch.engine import scan_intervals
h = pyclmatch.get_device("gpu")
from pyopencl.scan import GenericScanKernel
if len(sys.argv) > 1 and sys.argv[1] == "unbounded":
    GenericScanKernel.__call__ = GenericScanKernel.__call__.__wrapped__
print("installed", getattr(GenericScanKernel.__init__, "_pyclmatch_bound", False))
rng = np.random.default_rng(0)
bad = []
sizes = sorted(set(np.geomspace(1000, 3e6, 160).astype(int).tolist() + list(range(60000, 160000, 1500))))
t0 = time.time()
for nnz in sizes:
    n = max(4, nnz // 4)
    r = rng.integers(0, n, nnz); c = rng.integers(0, n, nnz)
    A = sp.csr_matrix((np.ones(nnz, np.int8), (r, c)), shape=(n, n))
    A.sort_indices()
    A.indices = A.indices.copy()
    # unsorted lists: permute within the stored arrays by shuffling columns ids
    perm = rng.permutation(n)
    B = sp.csr_matrix((A.data, perm[A.indices], A.indptr), shape=(n, n))
    B.has_sorted_indices = False
    for alg in ("auto", "apfb-gpubfs-wr-mt", "ppf"):
        try:
            res = pyclmatch.maximum_matching(B, algorithm=alg, device=h)
            assert res.verified
        except Exception as e:
            bad.append((nnz, alg, type(e).__name__, str(e)[:100]))
print("sizes", len(sizes), "failures", len(bad), bad[:10], "s", time.time() - t0)
for k in [k for k in h.__dict__ if "memo" in k.lower()]:
    pass
