#!/usr/bin/env python3
"""Where the host family's time goes on this machine: per small shared graph, scipy's
Hopcroft-Karp alone, :func:`~pyclmatch.bipartite.hk_core.match_and_cover` (matching plus
König cover) and :func:`~pyclmatch.bipartite.hk_core.check_matching_and_cover` (the
certificate check), and the check's numpy passes one by one (medians of ``--repeat`` runs).

``--env`` re-runs the same measurement in child processes under each given environment
(``NAME=VALUE,NAME=VALUE``; e.g. glibc's malloc tunables), to see whether allocation (fresh
pages for each temporary array) is what makes the check slower on one machine than another.

    python3 benchmarks/host_check_probe.py --env "" \\
        --env MALLOC_MMAP_THRESHOLD_=268435456,MALLOC_TRIM_THRESHOLD_=1073741824
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

GRAPHS = ("4elt.graph", "rajat01.mtx", "bcsstk13.mtx", "ca-condmat-cc1.txt.gz",
          "delaunay_n15.graph")


def med(fn, repeat):
    """Median ms of ``repeat`` calls of ``fn`` (bench_small's timer)."""
    import bench_small
    return 1e3 * bench_small.timed(fn, repeat)[1]


def passes(indptr, indices, mj, mn, cmaj, cmin, repeat):
    """ms of the check's main numpy passes, one by one."""
    n, m = mj.size, mn.size
    counts = np.diff(indptr)
    mr = np.flatnonzero(mj >= 0)
    out = {
        "minmax": med(lambda: (mj.min(), mj.max(), mn.min(), mn.max()), repeat),
        "mutual": med(lambda: np.array_equal(mn[mj[mr]], mr), repeat),
        "repeat": med(lambda: np.repeat(mj, counts), repeat),
        "zeros_nnz": med(lambda: np.zeros(indices.size + 1, np.int32), repeat),
    }
    rep = np.repeat(mj, counts)
    eq = rep == indices
    hits = np.zeros(indices.size + 1, np.int32)
    out["eq"] = med(lambda: rep == indices, repeat)
    out["cumsum"] = med(lambda: np.cumsum(eq, out=hits[1:]), repeat)
    out["found"] = med(lambda: hits[indptr[1:]] - hits[indptr[:-1]], repeat)

    def flags():
        a = np.zeros(n, bool)
        a[cmaj] = True
        b = np.zeros(m, bool)
        b[cmin] = True
        return a, b
    out["cover_flags"] = med(flags, repeat)
    return out


def measure(repeat):
    import scipy
    from scipy.sparse.csgraph import maximum_bipartite_matching
    import bench_small
    from pyclmatch.bipartite import hk_core
    graphs = dict(bench_small.shared_graphs(400000))
    rows = []
    for name in GRAPHS:
        if name not in graphs:
            continue
        A = graphs[name].tocsr()
        ptr, ind = A.indptr, A.indices
        out = hk_core.match_and_cover(ptr, ind, *A.shape)
        row = {"graph": name, "nnz": int(A.nnz),
               "scipy_ms": med(lambda: maximum_bipartite_matching(A, perm_type="column"),
                               repeat),
               "match_and_cover_ms": med(lambda: hk_core.match_and_cover(ptr, ind, *A.shape),
                                         repeat),
               "check_ms": med(lambda: hk_core.check_matching_and_cover(
                   ptr, ind, *A.shape, *out[:4]), repeat)}
        row["passes_ms"] = passes(ptr, ind, *out[:4], repeat)
        rows.append(row)
    return {"numpy": np.__version__, "scipy": scipy.__version__,
            "env": {k: v for k, v in os.environ.items() if k.startswith("MALLOC_")},
            "rows": rows}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=41)
    ap.add_argument("--env", action="append", default=None,
                    help="NAME=VALUE,... for one child run (repeatable; '' = as is)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help="JSON file")
    args = ap.parse_args()
    if args.child or not args.env:
        res = [measure(args.repeat)]
    else:
        res = []
        for spec in args.env:
            env = dict(os.environ)
            for kv in filter(None, spec.split(",")):
                k, v = kv.split("=", 1)
                env[k] = v
            p = subprocess.run([sys.executable, __file__, "--child", "--repeat",
                                str(args.repeat)], env=env, capture_output=True, text=True)
            if p.returncode:
                sys.stderr.write(p.stderr)
                raise SystemExit(p.returncode)
            res.append(json.loads(p.stdout))
    if args.child:
        print(json.dumps(res[0]))
        return
    for r in res:
        print(f"numpy {r['numpy']} scipy {r['scipy']} env {r['env']}")
        for row in r["rows"]:
            ps = " ".join(f"{k}={v:.3f}" for k, v in row["passes_ms"].items())
            print(f"  {row['graph']:24s} nnz {row['nnz']:7d} scipy {row['scipy_ms']:.3f} "
                  f"match+cover {row['match_and_cover_ms']:.3f} check {row['check_ms']:.3f}"
                  f" | {ps}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "runs": res}, f, indent=1)


if __name__ == "__main__":
    main()
