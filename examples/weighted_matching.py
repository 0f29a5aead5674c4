#!/usr/bin/env python3
"""The Suitor family in a few lines: half-approximate weighted matching, b-matching and stable
marriage on an OpenCL device (a GPU, or any CPU through PoCL).

    python examples/weighted_matching.py [--device gpu]
"""
import argparse

import numpy as np
import scipy.sparse as sp

import pyclmatch
from pyclmatch.weighted import greedy_matching, smi_from_graph   # the host references


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default=None, help="gpu, cpu, a name, or P:D (default: auto)")
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()

    # a random symmetric weighted graph (weights must be finite and positive)
    rng = np.random.default_rng(0)
    n = args.n
    u, v = rng.integers(0, n, 5 * n), rng.integers(0, n, 5 * n)
    keep = u != v
    A = sp.coo_matrix((rng.random(keep.sum()) + 1e-6, (u[keep], v[keep])), shape=(n, n))
    A = A.tocsr().maximum(A.T.tocsr())              # symmetric: w(u, v) = w(v, u)

    # 1. GPU-Suitor (Paper I): the greedy matching, at least half the optimum weight
    res = pyclmatch.weighted_matching(A, device=args.device)  # algorithm="suitor" (NoSync)
    print(f"Suitor on {res.device}: {res.cardinality} edges, weight {res.weight:.2f}, "
          f"device phase {res.timings['match'] * 1e3:.1f} ms, verified={res.verified}")
    assert np.array_equal(res.mate, greedy_matching(A))   # exactly the sequential greedy
    for alg in ("suitor-synclb", "suitor-hybrid", "ld"):
        r = pyclmatch.weighted_matching(A, algorithm=alg, device=args.device)
        print(f"  {alg:14s} same matching: {np.array_equal(r.mate, res.mate)}")

    # 2. b-Suitor (Paper II): every vertex keeps up to b of its best suitors
    bm = pyclmatch.b_matching(A, 3, device=args.device)
    print(f"b-Suitor b=3: {bm.cardinality} edges, weight {bm.weight:.2f}, "
          f"max degree {bm.degree.max()}")

    # 3. stable marriage (Paper IV): McVitie-Wilson and Gale-Shapley give the man-optimal
    # solution; lists of lists work too: pyclmatch.stable_marriage(men_prefs, women_prefs)
    inst = pyclmatch.easy_instance(100000, seed=1)
    for alg in ("mcvitie-wilson", "gale-shapley"):
        sm = pyclmatch.stable_marriage(inst, algorithm=alg, device=args.device)
        print(f"{alg}: {sm.size} of {inst.n_men} married, "
              f"{sm.timings['match'] * 1e3:.1f} ms, stable={sm.verified}")
    men = [[0, 1], [1, 0], [0]]
    women = [[1, 0, 2], [0, 1]]
    print("tiny SMI: wife =", pyclmatch.stable_marriage(men, women, device=args.device).wife)

    # Lemma 3.1: the SMI instance built from a graph is solved by the greedy matching
    sm = pyclmatch.stable_marriage(smi_from_graph(A), device=args.device)
    print("Lemma 3.1 holds:", np.array_equal(sm.wife, res.mate))


if __name__ == "__main__":
    main()
