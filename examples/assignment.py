#!/usr/bin/env python3
"""The assignment family in a few lines: optimal weighted bipartite matching on an OpenCL
device (a GPU, or any CPU through PoCL), as scipy's drop-ins and with its certificate, and
the maximum-product transversal that a sparse direct solver applies before factorising.

    python examples/assignment.py [--device gpu] [--n 2000]
"""
import argparse
import os

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.linalg import splu

import pyclmatch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default=None, help="gpu, cpu, a name, or P:D (default: auto)")
    ap.add_argument("--n", type=int, default=2000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = args.n

    # 1. scipy's linear_sum_assignment, same signature and answer: n workers, n + 5% tasks
    #    (the drop-ins take scipy's arguments only: their device is $PYCLMATCH_DEVICE's)
    if args.device:
        os.environ["PYCLMATCH_DEVICE"] = args.device
    cost = rng.random((n, n + n // 20)) * 100.0
    rows, cols = pyclmatch.linear_sum_assignment(cost)
    r, c = scipy_lsa(cost)
    print(f"linear_sum_assignment {cost.shape}: total {cost[rows, cols].sum():.6f} "
          f"(scipy {cost[r, c].sum():.6f})")

    # 2. a sparse problem: 10 allowed tasks per worker, and a perfect matching among them
    m = 10 * n
    A = sp.csr_matrix((rng.random(m + n),
                       (np.r_[np.repeat(np.arange(n), 10), np.arange(n)],
                        np.r_[rng.integers(0, n, m), rng.permutation(n)])), shape=(n, n))
    res = pyclmatch.assignment(A, device=args.device)
    reduced = A.tocoo()
    reduced = reduced.data - res.u[reduced.row] - res.v[reduced.col]
    print(f"assignment on {res.device}: cost {res.objective:.6f}, verified={res.verified}; "
          f"the duals are its certificate: smallest reduced cost {reduced.min():.2e}, "
          f"{res.counters['phases']} scaling phases, auction {res.timings['auction']:.3f} s")

    # 3. the heaviest matching of any size (unmatched pairs count 0)
    best = pyclmatch.assignment(A, maximize=True, full=False, device=args.device)
    print(f"maximum weight matching: {best.cardinality} pairs, weight {best.objective:.3f}")

    # 4. MC64's job 5 before a sparse LU with static pivoting (as SuperLU_DIST factorises):
    #    permute the largest product onto the diagonal and scale it to 1, every other entry
    #    to at most 1. The matrix: a well-conditioned one (unit diagonal, smaller entries
    #    beside it) with its rows shuffled and rows and columns scaled by 1e-4 to 1e4.
    k = min(n, 400)
    B = sp.random(k, k, density=3 / k, random_state=1, format="csr")
    B.data = rng.uniform(-0.3, 0.3, B.nnz)
    B = (B + sp.eye(k)).tocsr()[rng.permutation(k)]
    M = (sp.diags(10.0 ** rng.uniform(-4, 4, k)) @ B @ sp.diags(10.0 ** rng.uniform(-4, 4, k)))
    M = M.tocsc()
    t = pyclmatch.maximum_product_transversal(M, device=args.device)
    S = (sp.diags(t.row_scale) @ M @ sp.diags(t.col_scale))[:, t.perm].tocsc()
    x = rng.random(k)
    b = M @ x
    static = dict(permc_spec="NATURAL", diag_pivot_thresh=0.0)     # no row interchanges
    y = splu(S, **static).solve(t.row_scale * b)     # S y = R b; x = C P y
    x_hat = np.empty_like(y)
    x_hat[t.perm] = t.col_scale[t.perm] * y
    print(f"transversal of a {k} x {k} matrix: |diagonal| = 1: "
          f"{np.allclose(abs(S.diagonal()), 1)}, largest |entry| {abs(S).max():.3f}; "
          f"statically pivoted LU, relative error {np.abs(x_hat - x).max() / x.max():.1e}")
    with np.errstate(all="ignore"):
        try:
            err = np.abs(splu(M, **static).solve(b) - x).max() / x.max()
            print(f"the same LU of the matrix as given: relative error {err:.1e}")
        except RuntimeError as exc:                 # (a zero pivot)
            print(f"the same LU of the matrix as given: {exc}")

if __name__ == "__main__":
    main()
