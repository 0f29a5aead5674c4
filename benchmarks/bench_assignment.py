#!/usr/bin/env python3
"""The assignment family (issue 31) against scipy, side by side in one run: the whole call
from a scipy CSR in memory to the certified answer.

Sparse instances, ``n x n`` with ``--per-row`` random entries per row plus a perfect matching
(a random permutation), costs by kind: ``uniform`` (reals in [0.01, 1.01)), ``integer``
(1..1000), ``ties`` (all 1), ``machol-wien`` (``c_ij = (i+1)(j+1)`` on the pattern), ``knn``
(the ``--per-row`` nearest neighbours of random points in the unit square among as many other
points, distances as costs, plus the pairs of a random permutation):
``pyclmatch.assignment(A, device=D)`` against ``scipy.sparse.csgraph.
min_weight_full_bipartite_matching(A)``. Dense ``m x m`` uniform matrices (``--dense``):
``pyclmatch.linear_sum_assignment`` against ``scipy.optimize.linear_sum_assignment``.
Medians of ``--repeat`` runs after a verified warm-up; every objective is checked equal to
scipy's (relative 1e-12; exactly for integer kinds). scipy is skipped above
``--scipy-max`` (its time grows fast: minutes at 300K). ``--transversal``:
``pyclmatch.maximum_product_transversal`` on every square matrix of shared/data/graphs (its
values) and, with ``--transversal-suite SIZE``, the reference suite's graphs (random values);
the scaling checked by the call (diagonal 1, entries <= 1), timed the same way.

    python3 benchmarks/bench_assignment.py --device cpu --sizes 10000,100000 \\
        --kinds uniform,integer --dense 1000 --out benchmarks/results/assignment-pocl
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment as scipy_lsa
from scipy.sparse.csgraph import min_weight_full_bipartite_matching as scipy_mwfbm

import common
from common import fmt, log, med, run_meta, save_results, table, times
import pyclmatch

INTEGER_KINDS = ("integer", "ties", "machol-wien")


def instance(kind, n, per_row, seed):
    """The ``n x n`` sparse instance of ``kind`` (module docstring)."""
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    if kind == "knn":
        from scipy.spatial import cKDTree
        x, y = rng.random((n, 2)), rng.random((n, 2))
        d, j = cKDTree(y).query(x, per_row)
        rows = np.concatenate([np.repeat(np.arange(n), per_row), np.arange(n)])
        cols = np.concatenate([j.ravel(), perm])
        vals = np.concatenate([d.ravel(), np.linalg.norm(x - y[perm], axis=1)])
    else:
        rows = np.concatenate([np.repeat(np.arange(n), per_row), np.arange(n)])
        cols = np.concatenate([rng.integers(0, n, n * per_row), perm])
        vals = {"uniform": lambda: rng.random(rows.size) + 0.01,
                "integer": lambda: rng.integers(1, 1001, rows.size).astype(float),
                "ties": lambda: np.ones(rows.size),
                "machol-wien": lambda: (rows + 1.0) * (cols + 1.0)}[kind]()
    A = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
    A.sum_duplicates()
    if kind == "ties":
        A.data[:] = 1.0
    elif kind == "machol-wien":
        r = np.repeat(np.arange(n), np.diff(A.indptr))
        A.data = (r + 1.0) * (A.indices + 1.0)
    return A


def objective_of(A, r, c):
    return float(np.asarray(A[r, c]).sum())


def same(a, b, exact):
    return a == b if exact else abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-300)


def run_sparse(args, handle, kind, n):
    A = instance(kind, n, args.per_row, args.seed)
    warm = pyclmatch.assignment(A, device=handle)            # verified warm-up
    ts, res = times(lambda: pyclmatch.assignment(A, device=handle), args.repeat)
    row = {"kind": kind, "n": n, "nnz": int(A.nnz), "ours_s": med(ts), "ours_all": ts,
           "objective": res.objective, "counters": res.counters, "timings": res.timings}
    assert warm.objective == res.objective
    if n <= args.scipy_max:
        sts, (r, c) = times(lambda: scipy_mwfbm(A), args.scipy_repeat)
        ref = objective_of(A, r, c)
        row.update(scipy_s=med(sts), scipy_all=sts, scipy_objective=ref,
                   equal=same(res.objective, ref, kind in INTEGER_KINDS))
        if not row["equal"]:
            raise SystemExit(f"{kind} n={n}: objective {res.objective!r} != scipy {ref!r}")
    return row


def run_dense(args, handle, m):
    rng = np.random.default_rng(args.seed)
    C = rng.random((m, m))
    pyclmatch.linear_sum_assignment(C)
    ts, (r, c) = times(lambda: pyclmatch.linear_sum_assignment(C), args.repeat)
    sts, (r0, c0) = times(lambda: scipy_lsa(C), args.scipy_repeat)
    ours, ref = float(C[r, c].sum()), float(C[r0, c0].sum())
    if not same(ours, ref, False):
        raise SystemExit(f"dense {m}: objective {ours!r} != scipy {ref!r}")
    return {"kind": "dense", "n": m, "nnz": m * m, "ours_s": med(ts), "ours_all": ts,
            "scipy_s": med(sts), "scipy_all": sts, "objective": ours, "scipy_objective": ref,
            "equal": True}


def transversal_inputs(args):
    """``(name, matrix)``: every square matrix file of shared/data/graphs (its values) and,
    with ``--transversal-suite``, the reference suite's graphs of that size with values drawn
    uniformly in [0.1, 10) (seeded by ``--seed``: the suite holds patterns only, whose unit
    values make every perfect matching a maximum-product one)."""
    import glob
    import scipy.io
    folder = common.shared_folder()
    for path in sorted(glob.glob(os.path.join(folder or "", "*.mtx"))):
        A = sp.csr_matrix(scipy.io.mmread(path))
        if A.shape[0] == A.shape[1]:
            yield os.path.basename(path), A
    if args.transversal_suite:
        from pyclmatch import generators
        rng = np.random.default_rng(args.seed)
        for name, A in generators.suite(size=args.transversal_suite):
            A = sp.csr_matrix(A, dtype=np.float64)
            A.data = rng.uniform(0.1, 10.0, A.nnz)
            yield name, A


def run_transversals(args, handle):
    """``maximum_product_transversal`` on :func:`transversal_inputs` (the scaling checked by
    the call: diagonal 1, entries <= 1); a structurally singular matrix is recorded as
    refused."""
    for name, A in transversal_inputs(args):
        try:
            pyclmatch.maximum_product_transversal(A, device=handle)
        except pyclmatch.InputError as exc:          # (structurally singular)
            yield {"kind": "transversal " + name, "n": A.shape[0], "nnz": int(A.nnz),
                   "ours_s": None, "refused": str(exc)}
            continue
        ts, res = times(lambda: pyclmatch.maximum_product_transversal(A, device=handle),
                        args.repeat)
        yield {"kind": "transversal " + name, "n": A.shape[0], "nnz": int(A.nnz),
               "ours_s": med(ts), "ours_all": ts, "log_product": res.log_product,
               "counters": res.counters, "scaling_checked": res.verified}


def markdown(meta, rows):
    lines = common.heading("assignment vs scipy", meta)
    cells = [[r["kind"], r["n"], r["nnz"], fmt(r["ours_s"]), fmt(r.get("scipy_s")),
              fmt(r["scipy_s"] / r["ours_s"], 2) if r.get("scipy_s") and r["ours_s"] else "-",
              r.get("equal", "refused (structurally singular)" if r.get("refused") else "-"),
              (r.get("counters") or {}).get("phases", "-"),
              (r.get("counters") or {}).get("rounds", "-")] for r in rows]
    lines += table(["kind", "n", "entries", "pyclmatch s", "scipy s", "speed-up",
                    "objective equal", "phases", "rounds"], cells)
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--kinds", default="uniform,integer,ties,machol-wien,knn")
    ap.add_argument("--per-row", type=int, default=10)
    ap.add_argument("--dense", default="", help="dense sizes for linear_sum_assignment")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scipy-repeat", type=int, default=1)
    ap.add_argument("--scipy-max", type=int, default=300000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--transversal", action="store_true",
                    help="maximum_product_transversal on the square shared graphs")
    ap.add_argument("--transversal-suite", choices=("small", "medium", "large"), default=None,
                    help="with --transversal: the reference suite of this size too "
                         "(random values)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    handle = pyclmatch.get_device(args.device)
    meta = run_meta(handle, repeat=args.repeat)
    rows = []
    for n in [int(x) for x in args.sizes.split(",") if x]:
        for kind in args.kinds.split(","):
            t0 = time.perf_counter()
            rows.append(run_sparse(args, handle, kind, n))
            r = rows[-1]
            log(f"{kind} n={n}: ours {fmt(r['ours_s'])} s, scipy {fmt(r.get('scipy_s'))} s "
                f"({time.perf_counter() - t0:.1f} s)")
            save_results(args.out, meta, rows, markdown)
    if args.transversal:
        for row in run_transversals(args, handle):
            rows.append(row)
            log(f"{row['kind']}: {fmt(row['ours_s'])} s")
            save_results(args.out, meta, rows, markdown)
    for m in [int(x) for x in args.dense.split(",") if x]:
        rows.append(run_dense(args, handle, m))
        log(f"dense {m}: ours {fmt(rows[-1]['ours_s'])} s, scipy {fmt(rows[-1]['scipy_s'])} s")
        save_results(args.out, meta, rows, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
