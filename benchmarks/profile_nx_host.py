#!/usr/bin/env python3
"""Where the host time of ``nx.bipartite.maximum_matching(G, top_nodes, backend="pyclmatch")``
goes, step by step, on the networkx graph bench_nx.py builds (rows and columns of a suite
matrix as the two sides, tops first).

Timed (medians of ``--repeat`` calls, networkx's conversion cache cleared before each, the
previous call's result freed before the timer): the whole dispatched call, the call on a graph
converted once, and ``from_networkx`` (the full conversion). Then ``--profile`` calls run under
cProfile and the steps are read off it (median over those calls, milliseconds, cumulative
time of the function named in the table, so a step includes the steps under it):

* ``deferred``: networkx's dispatch hands the graph to ``convert_from_nx``, which only lists
  the nodes (the walk is deferred);
* ``labels_are_ids``: whether the labels are the ints 0..n-1 (marshal's one C pass);
* ``row dicts``: the walked side's adjacency dicts (``_dicts_at``);
* ``walk``: their sizes and neighbour keys (``NetworkxAdjacency._walk_ids``);
* ``device``: :func:`pyclmatch.maximum_matching` on the biadjacency matrix (its host part
  included);
* ``result dict``: ``_mate_dict``, of which ``tolist`` (the mates' labels),
  ``dict.fromkeys`` (the presized table) and ``dict.update`` (the values).

``--stub`` answers every device call after the first with the first one's result, so the
table shows the host alone (the PoCL machine, where the device part would dominate).

    python3 benchmarks/profile_nx_host.py --device gpu --graph delaunay-20 \\
        --out benchmarks/results/nx-h100/host-profile
    python3 benchmarks/profile_nx_host.py --device cpu --graph delaunay-17 --stub --out /tmp/p
"""
import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

import networkx as nx
import pyclmatch
import pyclmatch.bipartite as PB
from pyclmatch import nxbackend as B

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_e2e import run_meta, save_results  # noqa: E402
from bench_nx import GRAPHS, MID, SMALL, nx_bipartite  # noqa: E402

#: table row -> (source file's base name, function name) whose cumulative time it is
STEPS = [("whole call (profiled)", ("backends.py", "_convert_and_call")),
         ("deferred (dispatch, node list)", ("nxbackend.py", "deferred")),
         ("labels_are_ids", ("interop.py", "labels_are_ids")),
         ("top/bottom split", ("nxbackend.py", "_bipartite_split")),
         ("row dicts", ("interop.py", "_dicts_at")),
         ("walk: sizes + keys", ("interop.py", "_walk_ids")),
         ("biadjacency (row dicts, walk, B)", ("nxbackend.py", "_biadjacency")),
         ("device: maximum_matching", ("api.py", "maximum_matching")),
         ("result dict", ("nxbackend.py", "_mate_dict")),
         ("  of which tolist", ("~", "<method 'tolist' of 'numpy.ndarray' objects>")),
         ("  of which dict.fromkeys", ("~", "<built-in method fromkeys>")),
         ("  of which dict.update", ("~", "<method 'update' of 'dict' objects>"))]


def med(fn, repeat, before=None):
    ts, kept = [], [None]
    for _ in range(repeat):
        if before:
            before()
        kept[0] = None        # (the previous result is freed outside the timer)
        t0 = time.perf_counter()
        kept[0] = fn()
        ts.append(time.perf_counter() - t0)
    return float(statistics.median(ts))


def markdown(meta, rows):
    md = [f"# Host steps of bipartite.maximum_matching dispatched to pyclmatch "
          f"({meta['device']})", "", f"- command: `{meta['command']}`",
          f"- date: {meta['date']}, host {meta['host']}, graph {meta['graph']} "
          f"(n = {meta['n']}, m = {meta['m']}), device calls "
          f"{'stubbed (host alone)' if meta['stub'] else 'real'}", "",
          "| step | ms |", "| --- | --- |"]
    md += [f"| {r['step']} | {r['ms']:.1f} |" for r in rows]
    return "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--graph", default="delaunay-20")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", type=int, default=3, help="profiled calls")
    ap.add_argument("--stub", action="store_true",
                    help="device calls after the first answer with the first's result")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    make = {**GRAPHS, **MID, **SMALL}.get(args.graph)
    if make is None:
        raise SystemExit(f"unknown graph {args.graph!r}")
    dev = pyclmatch.get_device(args.device)
    A = sp.csr_matrix(make())
    A.data[:] = 1
    G = nx_bipartite(A)
    n = A.shape[0]
    top = range(n)
    if args.stub:
        real, first = PB.maximum_matching, {}

        def stub(M, **kw):
            if M.shape not in first:
                first[M.shape] = real(M, **kw)
            return first[M.shape]
        PB.maximum_matching = stub

    def call(X):
        return nx.bipartite.maximum_matching(X, top_nodes=top, backend="pyclmatch",
                                             device=dev)
    def clear():             # (networkx may replace the cache dict: looked up every time)
        G.__networkx_cache__.clear()
    assert len(call(G)) == 2 * int((pyclmatch.maximum_matching(A, device=dev).row_match
                                    >= 0).sum())
    meta = run_meta(dev, graph=args.graph, n=2 * n, m=G.number_of_edges(),
                    repeat=args.repeat, stub=args.stub)
    rows = [{"step": "whole dispatched call", "ms": 1e3 * med(lambda: call(G), args.repeat,
                                                                 clear)}]
    g = B.from_networkx(G, None)
    call(g)
    rows.append({"step": "call on a converted graph",
                 "ms": 1e3 * med(lambda: call(g), args.repeat)})
    rows.append({"step": "full conversion (from_networkx)",
                 "ms": 1e3 * med(lambda: B.from_networkx(G, None), args.repeat)})
    seen = {}
    for _ in range(args.profile):
        clear()
        pr = cProfile.Profile()
        pr.enable()
        M = call(G)
        pr.disable()
        del M
        for (f, _, name), (_, _, _, ct, _) in pstats.Stats(pr).stats.items():
            seen.setdefault((os.path.basename(f), name), []).append(ct)
    for label, key in STEPS:
        if key in seen:
            rows.append({"step": label, "ms": 1e3 * float(np.median(seen[key]))})
    if args.out:
        save_results(args.out, meta, rows, markdown)
    print(markdown(meta, rows))


if __name__ == "__main__":
    main()
