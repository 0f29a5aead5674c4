#!/usr/bin/env python3
"""G-PR vs APFB on long augmenting paths: device time and launch counts as the path length grows.

A chain under a random row/column permutation keeps its long alternating paths (the worst case
of push-relabel: excess moves one edge per launch). Prints one line per (n, algorithm).

    python3 benchmarks/gpr_long_paths.py --device gpu --sizes 1000,4000,16000
"""
import argparse
import sys
import time
import os

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import pyclmatch  # noqa: E402


def long_paths(n, seed=4):
    i = np.arange(n)
    r = np.concatenate([i, i[:-1]])
    c = np.concatenate([i, i[:-1] + 1])
    A = sp.csr_matrix((np.ones(r.size, np.int8), (r, c)), shape=(n, n))
    rng = np.random.default_rng(seed)
    return A[rng.permutation(n)][:, rng.permutation(n)].tocsr()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", default="1000,4000,16000")
    ap.add_argument("--algorithms", default="apfb-gpubfs-wr-mt,gpr,gpr-noshr,gpr-first,ppf")
    ap.add_argument("--budget", type=float, default=20.0,
                    help="skip larger sizes of an algorithm once one run took longer")
    args = ap.parse_args()
    h = pyclmatch.get_device(args.device)
    print("device:", h.label, flush=True)
    over = set()
    for n in (int(x) for x in args.sizes.split(",")):
        A = long_paths(n)
        for alg in args.algorithms.split(","):
            if alg in over:
                continue
            t = time.perf_counter()
            r = pyclmatch.maximum_matching(A, algorithm=alg, device=h)
            wall = time.perf_counter() - t
            c = {k: v for k, v in r.counters.items() if isinstance(v, (int, str))}
            print(f"n={n:<7} {alg:<18} card={r.cardinality} init={r.initial_cardinality} "
                  f"device={r.device_seconds:.4f}s wall={wall:.2f}s {c}", flush=True)
            if wall > args.budget:
                over.add(alg)


if __name__ == "__main__":
    main()
