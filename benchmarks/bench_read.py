#!/usr/bin/env python3
"""Time ``pyclmatch.read_graph`` on Matrix Market files against ``scipy.io.mmread`` (its
threaded C++ reader, then CSR with duplicates summed, as read_graph returns): the .mtx files
of shared/data/graphs and generated large ones (real general, pattern, integer and real
symmetric; ``--scale`` times 2M, 5M, 2M and 2M entries), written to a temporary folder.

Both readers alternate on each file, ``--repeat`` times; the minimum of each is reported
(the host may be shared). No device is used.

    python3 benchmarks/bench_read.py --repeat 5 --out benchmarks/results/read-pocl-2core
"""
import argparse
import io
import os
import tempfile
import time
import warnings

import numpy as np
import scipy.io
import scipy.sparse as sp

import common
from pyclmatch import read_graph

GENERATED = [("real2M.mtx", "real general", 2_000_000, "%d %d %.17g"),
             ("pattern5M.mtx", "pattern general", 5_000_000, "%d %d"),
             ("int2M.mtx", "integer general", 2_000_000, "%d %d %d"),
             ("sym2M.mtx", "real symmetric", 2_000_000, "%d %d %.16g")]


def generate(folder, scale, n=1_000_000, seed=0):
    """The files of ``GENERATED`` (``scale`` times their entries) in ``folder``."""
    rng, paths = np.random.default_rng(seed), []
    for name, kind, m, fmt in GENERATED:
        m = int(m * scale)
        i, j = rng.integers(1, n + 1, m), rng.integers(1, n + 1, m)
        if "symmetric" in kind:
            i, j = np.maximum(i, j), np.minimum(i, j)
        cols = [i, j]
        if "real" in kind:
            cols.append(rng.standard_normal(m) * 10.0 ** rng.integers(-5, 6, m))
        elif "integer" in kind:
            cols.append(rng.integers(-10**6, 10**6, m))
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(f"%%MatrixMarket matrix coordinate {kind}\n{n} {n} {m}\n")
            np.savetxt(f, np.column_stack(cols), fmt=fmt)
        paths.append(path)
    return paths


def scipy_read(path):
    with open(path, "rb") as f:
        data = f.read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        A = sp.csr_matrix(scipy.io.mmread(io.BytesIO(data)))
    A.sum_duplicates()
    return A


def markdown(meta, rows):
    lines = common.heading("read_graph vs scipy.io.mmread (.mtx)", meta)
    lines += ["Times: the best of `repeat` alternating runs (not medians).", ""]
    lines += common.table(["file", "MB", "nnz", "read_graph ms", "scipy ms", "ratio"],
                          [[r["file"], f"{r['mb']:.1f}", r["nnz"], f"{r['read_graph_s'] * 1e3:.1f}",
                            f"{r['scipy_s'] * 1e3:.1f}",
                            f"{r['read_graph_s'] / r['scipy_s']:.2f}"] for r in rows])
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="generated entries (x 2M/5M)")
    ap.add_argument("--out", default=None, help="folder for results.json and results.md")
    args = ap.parse_args()
    folder = common.shared_folder()
    shared = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                    if f.endswith(".mtx")) if folder else []
    meta = common.run_meta(device="host (no device)", repeat=args.repeat)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in shared + (generate(tmp, args.scale) if args.scale > 0 else []):
            best = {"read_graph": np.inf, "scipy": np.inf}
            for _ in range(args.repeat):
                for name, fn in (("scipy", scipy_read), ("read_graph", read_graph)):
                    t = time.perf_counter()
                    A = fn(path)
                    best[name] = min(best[name], time.perf_counter() - t)
            rows.append({"file": os.path.basename(path), "mb": os.path.getsize(path) / 1e6,
                         "nnz": int(A.nnz), "read_graph_s": best["read_graph"],
                         "scipy_s": best["scipy"]})
            print(markdown(meta, rows).splitlines()[-1], flush=True)
            if args.out:
                common.save_results(args.out, meta, rows, markdown)


if __name__ == "__main__":
    main()
