#!/usr/bin/env python3
"""Leiden benchmark: pyclmatch's ``leiden`` side by side with its ``louvain``, NetworKit's
``ParallelLeiden`` (all cores) and igraph's ``community_leiden(objective_function=
"modularity")`` (where they are installed): modularity,
communities, disconnected communities and time, on the shared graphs (square files,
symmetrized patterns without self-loops, unit weights) and, with ``--suite``, the reference
suite of :mod:`pyclmatch.generators` (``small``, ``medium`` or ``large`` = the reference
sizes) up to ``--max-edges`` stored entries.

Accounting: ``time_s`` = the median of ``--repeat`` whole calls on a scipy CSR matrix in memory,
programs built (one warm-up call first); pyclmatch's calls verify their answers (the default
``verify=True``: Leiden's connectivity certificate included), and the time covers it. Every
modularity is recomputed by ``pyclmatch.modularity`` on the host; ``disconnected`` of every
partition (igraph's too) is counted by scipy's connected_components per community. igraph
runs on one core with ``n_iterations=2`` (its default) and ``-1`` (until stable), or those
``--igraph-iterations`` names, with ``--igraph-seeds`` seeds: its modularity is the median
seed's (``best_modularity`` the best one's), its time the median. NetworKit runs in a child process of the same command
(``common.in_child``), so that its OpenMP threads and our host thread do not share one.

    python3 benchmarks/bench_leiden.py --device gpu --out benchmarks/results/leiden-h100
    python3 benchmarks/bench_leiden.py --device cpu --files bcsstk13.mtx,rajat01.mtx --out /tmp/l
    python3 benchmarks/bench_leiden.py --device gpu --files rajat01.mtx --suite large --suite-graphs kron-21,delaunay-21 --out /tmp/l2
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import common
from common import med
import pyclmatch
from pyclmatch import generators

#: the shared graphs measured by default
FILES = ("bcsstk13.mtx", "rajat01.mtx", "facebook_combined.txt", "4elt.graph",
         "PGPgiantcompo.graph", "astro-ph.graph", "wiki-Vote.txt", "ca-condmat-cc1.txt.gz",
         "delaunay_n15.graph", "bayer10.mtx", "wing.graph", "delaunay_n16.mtx")


def disconnected(A, memb):
    """Communities of ``memb`` whose induced subgraph of ``A`` is not connected (scipy, one
    pass: components of the graph without the edges between communities)."""
    C = sp.coo_matrix(A)
    keep = memb[C.row] == memb[C.col]
    B = sp.csr_matrix((C.data[keep], (C.row[keep], C.col[keep])), shape=A.shape)
    _, lab = connected_components(B, directed=False)
    comps = np.unique(np.stack([memb, lab]), axis=1)[0]
    return int((np.bincount(comps) > 1).sum())


def graphs(args):
    """(name, symmetric CSR pattern) of the graphs to measure."""
    names = args.files.split(",") if args.files else FILES
    for name in names:
        path = common.shared_path(name)
        if path is None:
            common.log(f"skip {name}: not in the shared folder")
            continue
        A = sp.csr_matrix(pyclmatch.read_graph(path))
        if A.shape[0] != A.shape[1]:
            common.log(f"skip {name}: not square")
            continue
        yield name, common.symmetric_pattern(A).astype(np.float64)
    if args.suite:
        names = args.suite_graphs.split(",") if args.suite_graphs else None
        for name, A in generators.suite(names, size=args.suite):
            if A.nnz <= args.max_edges:
                yield name, common.symmetric_pattern(A).astype(np.float64)


def run_ours(fn, A, handle, repeat, **kw):
    """Median time and the last result of ``repeat`` warm calls of ``fn``."""
    fn(A, device=handle, **kw)
    ts, res = common.times(lambda: fn(A, device=handle, **kw), repeat)
    return med(ts), res


def run_igraph(A, iterations, seeds):
    """igraph's Leiden (modularity) on ``A`` with ``seeds`` seeds: (median time, membership
    of the median modularity, best modularity) or None without igraph."""
    try:
        import igraph as ig
    except ImportError:
        return None
    import random
    C = sp.triu(A, 1).tocoo()
    g = ig.Graph(n=A.shape[0], edges=list(zip(C.row.tolist(), C.col.tolist())))
    ts, runs = [], []
    for s in range(seeds):
        random.seed(s)
        t = time.perf_counter()
        part = g.community_leiden(objective_function="modularity", n_iterations=iterations)
        ts.append(time.perf_counter() - t)
        memb = np.asarray(part.membership)
        runs.append((pyclmatch.modularity(A, memb), s, memb))
    runs.sort(key=lambda r: r[:2])
    return med(ts), runs[len(runs) // 2][2], runs[-1][0]


def run_networkit(A, repeat):
    """NetworKit's ParallelLeiden (all cores, its defaults: 3 iterations, randomized) on
    ``A``: (median time of ``run()``, membership of the last run) or None without NetworKit.
    Its graph build and one warm-up run are not timed. The benchmark runs it in a child
    process (:func:`common.in_child`)."""
    nk = common.networkit()
    if nk is None:
        return None
    U = sp.triu(A, 1).tocoo()
    G = common.nk_graph(nk, A.shape[0], U.row, U.col)
    last = []

    def make():
        algo = nk.community.ParallelLeiden(G)
        last[:] = [algo]
        return algo
    make().run()            # (a warm-up, as ours get: a fresh process's heap and threads)
    t = common.time_nk(make, repeat)
    return t, np.asarray(last[0].getPartition().getVector(), dtype=np.int64)


def row_of(name, A, args, handle):
    """One graph's measurements: a dict of per-method records."""
    row = {"graph": name, "n": int(A.shape[0]), "edges": int(A.nnz // 2), "methods": {}}
    det = dict(deterministic=True) if args.deterministic else {}
    runs = {"louvain": (pyclmatch.louvain, {}), "leiden": (pyclmatch.leiden, {}),
            "leiden-1it": (pyclmatch.leiden, dict(iterations=1))}
    for label, (fn, kw) in runs.items():
        t, res = run_ours(fn, A, handle, args.repeat, **det, **kw)
        row["methods"][label] = dict(
            time_s=t, modularity=pyclmatch.modularity(A, res.membership),
            communities=int(res.n_communities), disconnected=disconnected(A, res.membership),
            device_disconnected=int(res.disconnected), levels=res.counters.get("levels"),
            iterations=res.counters.get("leiden_iterations"),
            refine_rounds=res.counters.get("refine_rounds"),
            kernel_s=common.kernel_sum(res.timings))
    got = common.in_child(run_networkit, A, args.repeat) if args.networkit else None
    if got is not None:
        t, memb = got
        row["methods"]["networkit-leiden"] = dict(
            time_s=t, modularity=pyclmatch.modularity(A, memb),
            communities=int(np.unique(memb).size), disconnected=disconnected(A, memb))
    its = [int(x) for x in args.igraph_iterations.split(",") if x.strip()]
    for it in its if A.nnz <= args.igraph_max_edges else ():
        got = run_igraph(A, it, args.igraph_seeds)
        if got is not None:
            t, memb, best = got
            row["methods"][f"igraph-{it}"] = dict(
                time_s=t, modularity=pyclmatch.modularity(A, memb), best_modularity=best,
                communities=int(memb.max()) + 1, disconnected=disconnected(A, memb))
    return row


def markdown(meta, rows):
    lines = common.heading("Leiden vs Louvain vs igraph", meta)
    methods = sorted({m for r in rows for m in r["methods"]})
    header = ["graph", "n", "edges"] + [f"{m} Q / disc / s" for m in methods]
    body = []
    for r in rows:
        cells = [r["graph"], r["n"], r["edges"]]
        for m in methods:
            x = r["methods"].get(m)
            cells.append("-" if x is None else
                         f"{x['modularity']:.5f} / {x['disconnected']} / {x['time_s']:.3f}")
        body.append(cells)
    return "\n".join(lines + common.table(header, body)) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--files", default=None, help="comma-separated shared graph files")
    ap.add_argument("--suite", choices=("small", "medium", "large"), default=None,
                    help="also this suite of pyclmatch.generators")
    ap.add_argument("--suite-graphs", default=None,
                    help="comma-separated names of the suite's graphs (default: all)")
    ap.add_argument("--max-edges", type=float, default=2e7)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--igraph-seeds", type=int, default=3)
    ap.add_argument("--igraph-iterations", default="2,-1",
                    help="igraph's n_iterations to run, comma-separated (-1: until stable)")
    ap.add_argument("--igraph-max-edges", type=float, default=5e6,
                    help="skip igraph on graphs of more stored entries (one core: minutes)")
    ap.add_argument("--deterministic", action="store_true")
    ap.add_argument("--no-networkit", dest="networkit", action="store_false",
                    help="skip NetworKit's ParallelLeiden (run where NetworKit is installed)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    handle = pyclmatch.get_device(args.device)
    meta = common.run_meta(handle, repeat=args.repeat, deterministic=args.deterministic)
    rows = []
    for name, A in graphs(args):
        common.log(f"{name}: n={A.shape[0]} edges={A.nnz // 2}")
        rows.append(row_of(name, A, args, handle))
        for m, x in rows[-1]["methods"].items():
            common.log(f"  {m:12s} Q={x['modularity']:.5f} k={x['communities']} "
                       f"disc={x['disconnected']} t={x['time_s']:.3f}s")
        common.save_results(args.out, meta, rows, markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
