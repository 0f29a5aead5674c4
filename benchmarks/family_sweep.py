#!/usr/bin/env python3
"""Every family on one device over random graphs of many sizes (1e3 to 3e6 entries, denser
around 60,000-160,000 where pyopencl's scans split badly on GPUs of many compute units):
each call must return a verified answer, or the size and error are listed. Families:
maximum_matching (auto, apsb-gpubfs-mt, gpr, ppf) on unsorted lists, dulmage_mendelsohn,
weighted_matching, b_matching (b=2) and louvain (deterministic) on symmetric weighted graphs.

    python3 benchmarks/family_sweep.py --device gpu [--sizes 40]
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pyclmatch  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--sizes", type=int, default=40)
    a = ap.parse_args()
    h = pyclmatch.get_device(a.device)
    rng = np.random.default_rng(0)
    sizes = sorted(set(np.geomspace(1000, 3e6, a.sizes).astype(int).tolist()
                       + list(range(60000, 160000, 7000))))
    bad, calls, t0 = [], 0, time.time()
    for nnz in sizes:
        n = max(4, nnz // 4)
        r, c = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
        perm = rng.permutation(n)
        B = sp.csr_matrix((np.ones(nnz, np.int8), (r, perm[c])), shape=(n, n))
        B.has_sorted_indices = False
        S = sp.coo_matrix((rng.random(nnz) + 0.01, (r, c)), shape=(n, n))
        S = (S + S.T).tocsr()
        S.setdiag(0)
        S.eliminate_zeros()
        jobs = [(f"maximum_matching[{alg}]",
                 lambda alg=alg: pyclmatch.maximum_matching(B, algorithm=alg, device=h))
                for alg in ("auto", "apsb-gpubfs-mt", "gpr", "ppf")]
        jobs += [("dulmage_mendelsohn", lambda: pyclmatch.dulmage_mendelsohn(B, device=h)),
                 ("weighted_matching", lambda: pyclmatch.weighted_matching(S, device=h)),
                 ("b_matching", lambda: pyclmatch.b_matching(S, 2, device=h)),
                 ("louvain", lambda: pyclmatch.louvain(S, device=h, deterministic=True))]
        for name, job in jobs:
            calls += 1
            try:
                res = job()
                if getattr(res, "verified", True) is False:
                    bad.append((nnz, name, "not verified"))
            except Exception as exc:      # (listed: the sweep must see every failure)
                bad.append((nnz, name, f"{type(exc).__name__}: {str(exc)[:120]}"))
        print(f"{nnz:8d} entries: {len(bad)} failures so far", flush=True)
    print(f"{h.label}: {len(sizes)} sizes, {calls} calls, {len(bad)} failures, "
          f"{time.time() - t0:.0f} s")
    for b in bad:
        print("  ", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
