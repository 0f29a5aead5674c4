#!/usr/bin/env python3
"""networkx backend benchmark: networkx's own ``louvain_communities`` and
``bipartite.maximum_matching`` against the same calls dispatched to pyclmatch
(``backend="pyclmatch"``), on networkx graphs of the suite generators (delaunay-20, grid-1024:
1M vertices, 1.5M to 3M edges; ``--small``: PoCL-sized versions).

What is timed (seconds, median of ``--repeat`` calls after one warm-up call that builds the
OpenCL programs), all from the networkx graph in memory:

* ``convert``: :func:`pyclmatch.nxbackend.from_networkx` (the backend's conversion), beside
  ``networkx.to_scipy_sparse_array`` on the same graph (``to_scipy``, timed once: it is slow);
* ``backend``: the whole dispatched call as the user writes it, conversion included (networkx's
  conversion cache is cleared before every call);
* ``reuse``: the call on a graph converted once (:class:`~pyclmatch.nxbackend.PyclGraph`);
* ``device``: pyclmatch's own ``timings["total"]`` of one call on the converted graph's CSR;
* ``networkx``: networkx's own function, once, in a forked process killed after ``--nx-cap``
  seconds (reported as ``> cap``; the speed-up is then a lower bound). Both networkx calls
  of a graph start in their own processes as soon as its networkx graphs are built and run
  (one core each) while pyclmatch's calls are measured, so the run takes about as long as
  networkx's slowest call per graph; ``--serial-nx`` runs each after pyclmatch's instead
  (on machines with few cores).

The Louvain rows carry the modularity of both partitions (pyclmatch's host Eq. 1); the
matching rows both cardinalities (must be equal: both are maximum).

    python3 benchmarks/bench_nx.py --device gpu --out benchmarks/results/nx-h100
    python3 benchmarks/bench_nx.py --device cpu --small --out /tmp/nx-pocl
"""
import argparse
import datetime
import json
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

import networkx as nx
import pyclmatch
from pyclmatch import generators
from pyclmatch import nxbackend as B
from pyclmatch.community import modularity

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_bipartite import finish_child  # noqa: E402

GRAPHS = {"delaunay-20": lambda: generators.delaunay(20),
          "grid-1024": lambda: generators.grid(1024)}
SMALL = {"delaunay-14": lambda: generators.delaunay(14),
         "grid-128": lambda: generators.grid(128)}


def med(ts):
    return float(statistics.median(ts))


def timed(fn, repeat, before=None):
    ts, out = [], None
    for _ in range(repeat):
        if before:
            before()
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return med(ts), out


def _child(conn, fn):
    t0 = time.perf_counter()
    out = fn()
    conn.send((time.perf_counter() - t0, out))


def start_capped(fn, post):
    """Start ``post(fn())`` in a forked process (the graphs are shared copy-on-write); the
    job for :func:`bench_bipartite.finish_child`, which waits at most the cap from now."""
    ctx = mp.get_context("fork")
    a, b = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(b, lambda: post(fn())))
    p.start()
    return p, a, time.perf_counter()


def networkx_jobs(A, G, Gb, args):
    """networkx's own louvain_communities on ``G`` and hopcroft_karp_matching on ``Gb``, each
    in a child process (``{}`` with --skip-nx)."""
    if args.skip_nx:
        return {}
    n = A.shape[0]
    jobs = {}
    if G is not None:
        jobs["louvain"] = lambda: start_capped(
            lambda: nx.community.louvain_communities(G, seed=1, backend="networkx"),
            lambda p: (modularity(A, membership(p, n)), len(p)))
    if Gb is not None:
        jobs["matching"] = lambda: start_capped(
            lambda: nx.bipartite.hopcroft_karp_matching(Gb, range(n), backend="networkx"),
            lambda m: len(m) // 2)
    if args.serial_nx:        # started when their rows are measured, after pyclmatch's calls
        return jobs
    return {k: (start(),) for k, start in jobs.items()}


def finish_networkx(job, args):
    """``(seconds or None, result or None)`` of a job of :func:`networkx_jobs`."""
    job = job[0] if isinstance(job, tuple) else job()
    return finish_child(job, args.nx_cap)


def _nx_from_symmetric(S, node_attrs=None):
    """The undirected networkx graph of the symmetric pattern ``S`` (nodes 0..n-1, no
    self-loops), built straight into networkx's dict-of-dicts (each undirected edge one
    shared data dict, as ``add_edges_from`` makes it) a few times faster than
    ``add_edges_from``: setup only, never timed."""
    S = sp.csr_matrix(S, dtype=np.int64, copy=True)
    S.setdiag(0)
    S.eliminate_zeros()
    S.sort_indices()
    N = S.shape[0]
    U = sp.triu(S, k=1).tocsr()
    m = U.nnz
    U.data = np.arange(1, m + 1, dtype=np.int64)
    W = (U + U.T).tocsr()
    W.sort_indices()
    dicts = [{} for _ in range(m)]
    get = dicts.__getitem__
    ind, ids, ptr = W.indices.tolist(), (W.data - 1).tolist(), W.indptr.tolist()
    G = nx.Graph()
    G.add_nodes_from(range(N))
    if node_attrs is not None:
        for i, d in enumerate(node_attrs):
            G._node[i].update(d)
    adj = G._adj
    for i in range(N):
        a, b = ptr[i], ptr[i + 1]
        if b > a:
            adj[i] = dict(zip(ind[a:b], map(get, ids[a:b])))
    return G


def nx_graph(A):
    """The undirected networkx graph of the symmetric pattern ``A`` (nodes 0..n-1)."""
    return _nx_from_symmetric(A)


def nx_bipartite(A):
    """``A`` as a bipartite networkx graph: rows 0..n-1, columns n..n+n_cols-1 (as
    ``networkx.bipartite.from_biadjacency_matrix`` numbers them, with its ``bipartite``
    node attribute)."""
    n, k = A.shape
    S = sp.bmat([[None, A], [A.T, None]], format="csr")
    attrs = [{"bipartite": 0}] * n + [{"bipartite": 1}] * k
    return _nx_from_symmetric(S, [dict(a) for a in attrs])


def membership(parts, n):
    m = np.empty(n, np.int64)
    for c, s in enumerate(parts):
        m[np.fromiter(s, np.int64, len(s))] = c
    return m


def clear(G):
    return lambda: G.__networkx_cache__.clear()


def bench_louvain(name, A, G, dev, args, job):
    n = A.shape[0]
    row = {"graph": name, "function": "louvain_communities", "n": n,
           "m": G.number_of_edges()}
    row["convert_s"], g = timed(lambda: B.from_networkx(G), args.repeat)
    row["to_scipy_s"], _ = timed(lambda: nx.to_scipy_sparse_array(G, format="csr"), 1)
    call = lambda X: nx.community.louvain_communities(X, backend="pyclmatch", seed=1,  # noqa
                                                      device=dev)
    call(g)                                                       # warm-up: program builds
    row["backend_s"], parts = timed(lambda: call(G), args.repeat, before=clear(G))
    row["reuse_s"], _ = timed(lambda: call(g), args.repeat)
    r = pyclmatch.louvain(g.csr("weight"), seed=1, deterministic=True, device=dev)
    row["device_s"] = r.timings["total"]
    row["Q_backend"] = modularity(A, membership(parts, n))
    row["communities_backend"] = len(parts)
    if job is not None:
        t, out = finish_networkx(job, args)
        row["networkx_s"] = t
        if out:
            row["Q_networkx"], row["communities_networkx"] = out
    return row


def bench_matching(name, A, Gb, dev, args, job):
    n = A.shape[0]
    top = range(n)
    row = {"graph": name, "function": "bipartite.maximum_matching", "n": 2 * n,
           "m": Gb.number_of_edges()}
    row["convert_s"], g = timed(lambda: B.from_networkx(Gb, None), args.repeat)
    row["to_scipy_s"], _ = timed(lambda: nx.to_scipy_sparse_array(Gb, format="csr"), 1)
    call = lambda X: nx.bipartite.maximum_matching(X, top_nodes=top,  # noqa: E731
                                                   backend="pyclmatch", device=dev)
    call(g)
    row["backend_s"], M = timed(lambda: call(Gb), args.repeat, before=clear(Gb))
    row["reuse_s"], _ = timed(lambda: call(g), args.repeat)
    r = pyclmatch.maximum_matching(A, device=dev)
    row["device_s"] = r.timings["total"]
    row["cardinality_backend"] = len(M) // 2
    if job is not None:
        t, card = finish_networkx(job, args)
        row["networkx_s"] = t
        row["cardinality_networkx"] = card
        if card is not None and card != row["cardinality_backend"]:
            raise SystemExit(f"{name}: cardinality {row['cardinality_backend']} != "
                             f"networkx's {card}")
    return row


def fmt(x, cap=None):
    if x is None:
        return f"> {cap:g}" if cap else "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", default=None, help="folder for results.json and results.md")
    ap.add_argument("--small", action="store_true", help="PoCL-sized graphs")
    ap.add_argument("--graphs", default=None, help="comma-separated names of the table")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--nx-cap", type=float, default=120.0,
                    help="seconds after which networkx's own call is stopped")
    ap.add_argument("--serial-nx", action="store_true",
                    help="run networkx's calls after pyclmatch's, not beside them")
    ap.add_argument("--skip-nx", action="store_true")
    ap.add_argument("--functions", default="louvain,matching")
    args = ap.parse_args()
    if "pyclmatch" not in nx.utils.backends.backends:
        raise SystemExit("the pyclmatch backend is not registered: pip install -e . first")
    dev = pyclmatch.get_device(args.device)
    table = SMALL if args.small else GRAPHS
    names = args.graphs.split(",") if args.graphs else list(table)
    rows = []
    t_start = time.perf_counter()
    for name in names:
        A = (table.get(name) or GRAPHS.get(name) or SMALL[name])()
        A = sp.csr_matrix(A)
        A.data[:] = 1
        t0 = time.perf_counter()
        G = nx_graph(A) if "louvain" in args.functions else None
        Gb = nx_bipartite(A) if "matching" in args.functions else None
        build = time.perf_counter() - t0
        jobs = networkx_jobs(A, G, Gb, args)
        if G is not None:
            row = bench_louvain(name, A, G, dev, args, jobs.get("louvain"))
            row["nx_build_s"] = build
            rows.append(row)
            print(json.dumps(row), flush=True)
        if Gb is not None:
            row = bench_matching(name, A, Gb, dev, args, jobs.get("matching"))
            rows.append(row)
            print(json.dumps(row), flush=True)
        del G, Gb
    for r in rows:
        r["speedup_vs_networkx"] = (r["networkx_s"] / r["backend_s"]
                                    if r.get("networkx_s") else None)
        r["speedup_lower_bound"] = (args.nx_cap / r["backend_s"]
                                    if r.get("networkx_s") is None and not args.skip_nx
                                    else None)
        r["convert_vs_to_scipy"] = r["to_scipy_s"] / r["convert_s"]
    meta = {"command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "device": dev.label, "host": platform.node(), "networkx": nx.__version__,
            "pyclmatch": pyclmatch.__version__, "repeat": args.repeat, "nx_cap_s": args.nx_cap,
            "wall_s": time.perf_counter() - t_start}
    cols = ["graph", "function", "n", "m", "convert_s", "to_scipy_s", "convert_vs_to_scipy",
            "backend_s", "reuse_s", "device_s", "networkx_s", "speedup_vs_networkx",
            "speedup_lower_bound", "Q_backend", "Q_networkx", "cardinality_backend",
            "cardinality_networkx"]
    md = [f"# networkx backend vs networkx ({meta['device']})", "",
          f"- command: `{meta['command']}`", f"- date: {meta['date']}, host {meta['host']}, "
          f"networkx {meta['networkx']}, repeat {args.repeat} (medians), networkx capped at "
          f"{args.nx_cap:g} s, wall {meta['wall_s']:.0f} s", "",
          "| " + " | ".join(cols) + " |", "|" + " --- |" * len(cols)]
    for r in rows:
        md.append("| " + " | ".join(fmt(r.get(c), args.nx_cap if c == "networkx_s" and
                                          not args.skip_nx else None) for c in cols) + " |")
    text = "\n".join(md) + "\n"
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
