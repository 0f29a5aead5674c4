#!/usr/bin/env python3
"""networkx backend benchmark: networkx's own ``louvain_communities`` and
``bipartite.maximum_matching`` against the same calls dispatched to pyclmatch
(``backend="pyclmatch"``), on networkx graphs of the suite generators (delaunay-20/21,
grid-1024/2048: 1M to 4M vertices, 2M to 6M edges; ``--small``: PoCL-sized versions).

What is timed (seconds, median of ``--repeat`` calls after one warm-up call that builds the
OpenCL programs), all from the networkx graph in memory:

* ``convert``: :func:`pyclmatch.nxbackend.from_networkx` (the backend's conversion), beside
  ``networkx.to_scipy_sparse_array`` on the same graph (``to_scipy``, once);
* ``backend``: the whole dispatched call as the user writes it, conversion included (networkx's
  conversion cache is cleared before every call, and the previous call's result is freed
  before the timer starts; the bipartite call, given ``top_nodes``, reads only one side's
  adjacency dicts, half of what ``convert`` reads);
* ``reuse``: the call on a graph converted once (:class:`~pyclmatch.nxbackend.PyclGraph`);
* ``device``: pyclmatch's own ``timings["total"]`` of one call on the converted graph's CSR;
* ``networkx``: networkx's own function, once, in a forked process stopped after ``--nx-cap``
  seconds. A stopped call is reported as ``> T``, T being how long networkx's function had
  run when it was stopped (the child records its start), and the speed-ups are then lower
  bounds (``speedup_*_lower_bound`` = T / pyclmatch's time). ``--nx-times FILE`` takes
  networkx's times (and its modularity / cardinality) of the same graphs from an earlier
  run's results.json instead of running networkx again (marked ``networkx_from`` in the rows
  and in the header): networkx's pure-Python calls take minutes, its speed does not depend
  on pyclmatch's changes, and without them the measured calls have the host to themselves;
  ``--nx-measure delaunay-20/matching,...`` still runs networkx for the rows named (after
  pyclmatch's calls, alone on the host).

The networkx calls and ``to_scipy`` run in forked processes (one core each) started as soon as
a graph's networkx graphs are built, beside pyclmatch's measurements, and are collected at the
end, so the run takes about as long as building the graphs plus the cap; ``--serial-nx`` runs
each after pyclmatch's calls of its graph instead (on machines with few cores, where the
children would compete with the measured calls). The parent keeps every graph until the end:
freeing one would copy the pages it shares with the running children.

The Louvain rows carry the modularity of both partitions (pyclmatch's host Eq. 1); the
matching rows both cardinalities (must be equal: both are maximum).

    python3 benchmarks/bench_nx.py --device gpu --graphs delaunay-20,grid-1024 --nx-cap 240 \
        --out benchmarks/results/nx-h100
    python3 benchmarks/bench_nx.py --device gpu --graphs delaunay-20,grid-1024 --nx-cap 240 \
        --nx-times benchmarks/results/nx-h100/results.json --nx-measure delaunay-20/matching \
        --out /tmp/nx-h100
    python3 benchmarks/bench_nx.py --device cpu --small --serial-nx --out /tmp/nx-pocl
"""
import argparse
import json
import multiprocessing as mp
import os
import sys
import threading
import time

import numpy as np
import scipy.sparse as sp

import networkx as nx
import pyclmatch
from pyclmatch import generators
from pyclmatch import nxbackend as B
from pyclmatch.community.api import modularity

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import med, run_meta, save_results  # noqa: E402

GRAPHS = {"delaunay-20": lambda: generators.delaunay(20),
          "delaunay-21": lambda: generators.delaunay(21),
          "grid-1024": lambda: generators.grid(1024),
          "grid-2048": lambda: generators.grid(2048)}
SMALL = {"delaunay-14": lambda: generators.delaunay(14),
         "grid-128": lambda: generators.grid(128)}
#: PoCL-sized graphs where the host parts show (by name only: --graphs delaunay-17,grid-512)
MID = {"delaunay-17": lambda: generators.delaunay(17),
       "grid-512": lambda: generators.grid(512)}


def timed(fn, repeat, before=None):
    ts, out = common.times(fn, repeat, before)
    return med(ts), out


def _child(conn, started, fn, post):
    started.value = time.perf_counter()      # (CLOCK_MONOTONIC: the parent's clock too)
    out = fn()
    conn.send((time.perf_counter() - started.value, post(out)))


class Capped:
    """``post(fn())`` in a forked process (the graphs are shared copy-on-write), killed by a
    timer ``cap`` seconds after the fork; :meth:`finish` gives ``(seconds, post's value)``
    or, when killed, ``(None, None)`` with :attr:`ran` = how long ``fn`` had run (from the
    start time the child recorded: the honest lower bound of networkx's time)."""

    def __init__(self, fn, post, cap):
        ctx = mp.get_context("fork")
        self.conn, b = ctx.Pipe(duplex=False)
        self.started = ctx.Value("d", 0.0, lock=False)
        self.ran = None
        self.proc = ctx.Process(target=_child, args=(b, self.started, fn, post))
        self.t_fork = time.perf_counter()
        self.proc.start()
        self.timer = threading.Timer(cap, self._kill)
        self.timer.daemon = True
        self.timer.start()

    def _kill(self):
        if self.proc.is_alive():
            self.ran = time.perf_counter() - (self.started.value or self.t_fork)
            self.proc.kill()

    def finish(self):
        got = None
        while got is None and (self.proc.is_alive() or self.conn.poll(0)):
            if self.conn.poll(0.1):
                try:
                    got = self.conn.recv()
                except EOFError:       # killed: the pipe closed without a result
                    break
        self.proc.join()
        self.timer.cancel()
        if got is not None:
            self.ran = None
            return got
        if self.ran is None:
            raise SystemExit(f"a networkx child died (exit code {self.proc.exitcode})")
        return None, None


def networkx_jobs(A, G, Gb, args, reused=()):
    """Starters of networkx's own louvain_communities on ``G`` and hopcroft_karp_matching on
    ``Gb`` and of ``to_scipy_sparse_array`` on both, each a :class:`Capped` child (networkx's
    calls left out with --skip-nx, and those in ``reused``: their times come from
    --nx-times)."""
    n = A.shape[0]
    cap = args.nx_cap
    jobs = {}
    for key, H in (("louvain", G), ("matching", Gb)):
        if H is not None:
            jobs[f"to_scipy:{key}"] = lambda H=H: Capped(
                lambda: nx.to_scipy_sparse_array(H, format="csr"), lambda M: None, cap)
    if args.skip_nx:
        return jobs
    if G is not None and "louvain" not in reused:
        jobs["louvain"] = lambda: Capped(
            lambda: nx.community.louvain_communities(G, seed=1, backend="networkx"),
            lambda p: (modularity(A, membership(p, n)), len(p)), cap)
    if Gb is not None and "matching" not in reused:
        jobs["matching"] = lambda: Capped(
            lambda: nx.bipartite.hopcroft_karp_matching(Gb, range(n), backend="networkx"),
            lambda m: len(m) // 2, cap)
    return jobs


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


def bench_louvain(name, A, G, dev, args):
    n = A.shape[0]
    row = {"graph": name, "function": "louvain_communities", "n": n,
           "m": G.number_of_edges()}
    row["convert_s"], g = timed(lambda: B.from_networkx(G), args.repeat)
    call = lambda X: nx.community.louvain_communities(X, backend="pyclmatch", seed=1,  # noqa
                                                      device=dev)
    call(g)                                                       # warm-up: program builds
    row["backend_s"], parts = timed(lambda: call(G), args.repeat, before=clear(G))
    row["reuse_s"], _ = timed(lambda: call(g), args.repeat)
    r = pyclmatch.louvain(g.csr("weight"), seed=1, deterministic=True, device=dev)
    row["device_s"] = r.timings["total"]
    row["Q_backend"] = modularity(A, membership(parts, n))
    row["communities_backend"] = len(parts)
    return row


def bench_matching(name, A, Gb, dev, args):
    n = A.shape[0]
    top = range(n)
    row = {"graph": name, "function": "bipartite.maximum_matching", "n": 2 * n,
           "m": Gb.number_of_edges()}
    row["convert_s"], g = timed(lambda: B.from_networkx(Gb, None), args.repeat)
    call = lambda X: nx.bipartite.maximum_matching(X, top_nodes=top,  # noqa: E731
                                                   backend="pyclmatch", device=dev)
    call(g)
    row["backend_s"], M = timed(lambda: call(Gb), args.repeat, before=clear(Gb))
    row["reuse_s"], _ = timed(lambda: call(g), args.repeat)
    r = pyclmatch.maximum_matching(A, device=dev)
    row["device_s"] = r.timings["total"]
    row["cardinality_backend"] = len(M) // 2
    return row


#: what --nx-times copies from an earlier run's row of the same graph and function
NX_KEYS = ("networkx_s", "networkx_ran_s", "Q_networkx", "communities_networkx",
           "cardinality_networkx")


def earlier_networkx(path):
    """``(graph, function, n, m) -> row`` of an earlier results.json holding networkx's own
    times, and a note naming it (file, date, device)."""
    with open(path) as f:
        old = json.load(f)
    meta = old.get("meta", {})
    rows = {(r["graph"], r["function"], r["n"], r["m"]): r for r in old.get("rows", [])
            if r.get("networkx_s") is not None or r.get("networkx_ran_s") is not None}
    return rows, f"{path} ({meta.get('date', '?')}, {meta.get('device', '?')})"


def reuse_networkx(row, earlier, note):
    """Copy networkx's own results of ``row``'s graph and function from an earlier run
    (:func:`earlier_networkx`); False when it has none."""
    old = earlier.get((row["graph"], row["function"], row["n"], row["m"]))
    if old is None:
        return False
    row.update({k: old[k] for k in NX_KEYS if k in old})
    row["networkx_from"] = note
    return True


def collect(row, jobs, key):
    """Fill ``row`` from its children in ``jobs`` (:class:`Capped`, or a starter called
    here: then one child runs at a time): to_scipy and networkx's own call (unless
    --nx-times gave it)."""
    to_scipy = jobs.get(f"to_scipy:{key}")
    if callable(to_scipy):
        to_scipy = to_scipy()
    if to_scipy is not None:
        row["to_scipy_s"], _ = to_scipy.finish()
        if row["to_scipy_s"] is None:
            row["to_scipy_ran_s"] = to_scipy.ran
    job = jobs.get(key)
    if job is None:
        if key == "matching" and row.get("cardinality_networkx") not in (
                None, row["cardinality_backend"]):
            raise SystemExit(f"{row['graph']}: cardinality {row['cardinality_backend']} != "
                             f"networkx's {row['cardinality_networkx']}")
        return
    if callable(job):
        job = job()
    t, out = job.finish()
    row["networkx_s"] = t
    if t is None:
        row["networkx_ran_s"] = job.ran
    if key == "louvain" and out:
        row["Q_networkx"], row["communities_networkx"] = out
    if key == "matching":
        row["cardinality_networkx"] = out
        if out is not None and out != row["cardinality_backend"]:
            raise SystemExit(f"{row['graph']}: cardinality {row['cardinality_backend']} != "
                             f"networkx's {out}")


def speedups(r):
    """The speed-ups over networkx of the whole call and of the call on a converted graph
    (lower bounds, from how long networkx had run, when it was stopped), and the
    conversion's over to_scipy_sparse_array."""
    nxs, ran = r.get("networkx_s"), r.get("networkx_ran_s")
    for key, col in (("backend_s", "whole"), ("reuse_s", "reuse")):
        r[f"speedup_{col}"] = nxs / r[key] if nxs else None
        r[f"speedup_{col}_lower_bound"] = ran / r[key] if ran else None
    ts = r.get("to_scipy_s") or r.get("to_scipy_ran_s")
    r["convert_vs_to_scipy"] = ts / r["convert_s"] if ts else None


def fmt(x, ran=None):
    if x is None:
        return f"> {ran:.4g}" if ran else "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


COLS = ["graph", "function", "n", "m", "convert_s", "to_scipy_s", "convert_vs_to_scipy",
        "backend_s", "reuse_s", "device_s", "networkx_s", "speedup_whole", "speedup_reuse",
        "speedup_whole_lower_bound", "speedup_reuse_lower_bound", "Q_backend", "Q_networkx",
        "cardinality_backend", "cardinality_networkx"]


def nx_from(rows):
    """The header line naming the earlier run networkx's own times were taken from."""
    notes = sorted({r["networkx_from"] for r in rows if r.get("networkx_from")})
    return [f"- networkx_s marked \"(earlier run)\" (and that row's Q_networkx, "
            f"cardinality_networkx) NOT measured in this run: taken from {n}" for n in notes]


def markdown(meta, rows):
    md = [f"# networkx backend vs networkx ({meta['device']})", "",
          f"- command: `{meta['command']}`", f"- date: {meta['date']}, host {meta['host']}, "
          f"networkx {meta['networkx']}, repeat {meta['repeat']} (medians), networkx stopped "
          f"after {meta['nx_cap_s']:g} s (\"> T\": it had run T s), children "
          f"{'after' if meta['serial_nx'] else 'beside'} pyclmatch's calls, wall "
          f"{meta.get('wall_s', 0):.0f} s", *nx_from(rows), "",
          "backend_s: the whole dispatched call from the networkx graph (conversion "
          "included); reuse_s: the call on a graph converted once; speedup_whole/_reuse: "
          "networkx_s over those.", "",
          "| " + " | ".join(COLS) + " |", "|" + " --- |" * len(COLS)]
    for r in rows:
        ran = {"networkx_s": r.get("networkx_ran_s"), "to_scipy_s": r.get("to_scipy_ran_s")}
        cells = [fmt(r.get(c), ran.get(c)) for c in COLS]
        if r.get("networkx_from"):         # (from an earlier run: marked in the table too)
            i = COLS.index("networkx_s")
            cells[i] += " (earlier run)"
        md.append("| " + " | ".join(cells) + " |")
    return "\n".join(md) + "\n"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", default=None, help="folder for results.json and results.md")
    ap.add_argument("--small", action="store_true", help="PoCL-sized graphs")
    ap.add_argument("--graphs", default=None, help="comma-separated names of the table")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--nx-cap", type=float, default=120.0,
                    help="seconds after which networkx's own call (and to_scipy) is stopped")
    ap.add_argument("--serial-nx", action="store_true",
                    help="run networkx's calls after pyclmatch's, not beside them")
    ap.add_argument("--skip-nx", action="store_true")
    ap.add_argument("--nx-times", default=None, metavar="RESULTS_JSON",
                    help="take networkx's own times of the same graphs from this earlier "
                         "results.json instead of running networkx (marked in the output); "
                         "to_scipy then runs after pyclmatch's calls")
    ap.add_argument("--nx-measure", default="", metavar="GRAPH/FUNCTION,...",
                    help="with --nx-times: rows whose networkx call still runs, e.g. "
                         "delaunay-20/matching (FUNCTION: louvain or matching)")
    ap.add_argument("--functions", default="louvain,matching")
    return ap.parse_args()


def nx_measure(args):
    """The GRAPH/FUNCTION rows of --nx-measure."""
    measure = {m.strip() for m in args.nx_measure.split(",") if m.strip()}
    bad = [m for m in measure if m.count("/") != 1 or m.split("/")[1] not in
           ("louvain", "matching")]
    if bad:
        raise SystemExit(f"--nx-measure takes GRAPH/louvain or GRAPH/matching, not {bad}")
    return measure


def suite_matrix(name, table):
    """The pattern (unit data) of the table's graph ``name``."""
    make = table.get(name) or GRAPHS.get(name) or SMALL.get(name) or MID.get(name)
    if make is None:
        raise SystemExit(f"unknown graph {name!r}: choose from "
                         f"{', '.join([*GRAPHS, *SMALL, *MID])}")
    A = sp.csr_matrix(make())
    A.data[:] = 1
    return A


def reused_keys(name, A, G, Gb, measure, earlier):
    """The functions whose networkx time comes from the earlier run (--nx-times)."""
    reused = set()
    for key, H, fn in (("louvain", G, "louvain_communities"),
                       ("matching", Gb, "bipartite.maximum_matching")):
        if H is not None and f"{name}/{key}" not in measure and (
                name, fn, A.shape[0] * (1 if H is G else 2), H.number_of_edges()) in earlier:
            reused.add(key)
    return reused


def main():
    args = parse_args()
    if "pyclmatch" not in nx.utils.backends.backends:
        raise SystemExit("the pyclmatch backend is not registered: pip install -e . first")
    dev = pyclmatch.get_device(args.device)
    table = SMALL if args.small else GRAPHS
    names = args.graphs.split(",") if args.graphs else list(table)
    earlier, note = earlier_networkx(args.nx_times) if args.nx_times else ({}, None)
    measure = nx_measure(args)
    serial = args.serial_nx or bool(args.nx_times)
    meta = run_meta(dev, networkx=nx.__version__, pyclmatch=pyclmatch.__version__,
                    repeat=args.repeat, nx_cap_s=args.nx_cap, serial_nx=serial,
                    nx_times=note)
    rows, pending, keep = [], [], []
    t_start = time.perf_counter()

    def finish(items):
        for row, jobs, key in items:
            collect(row, jobs, key)
            speedups(row)
            print(json.dumps(row), flush=True)

    for name in names:
        A = suite_matrix(name, table)
        t0 = time.perf_counter()
        G = nx_graph(A) if "louvain" in args.functions else None
        Gb = nx_bipartite(A) if "matching" in args.functions else None
        build = time.perf_counter() - t0
        reused = reused_keys(name, A, G, Gb, measure, earlier)
        starters = networkx_jobs(A, G, Gb, args, reused)
        jobs = {} if serial else {k: start() for k, start in starters.items()}
        mine = []
        if G is not None:
            row = bench_louvain(name, A, G, dev, args)
            row["nx_build_s"] = build
            mine.append((row, "louvain"))
        if Gb is not None:
            mine.append((bench_matching(name, A, Gb, dev, args), "matching"))
        for row, key in mine:
            if key in reused:
                reuse_networkx(row, earlier, note)
        rows += [row for row, _ in mine]
        for row, _ in mine:
            print(json.dumps(row), flush=True)
        if serial:                # one child at a time, after pyclmatch's calls
            finish([(row, starters, key) for row, key in mine])
            del G, Gb
        else:
            pending += [(row, jobs, key) for row, key in mine]
            keep.append((G, Gb))
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            save_results(args.out, meta, rows, markdown)
    finish(pending)
    meta["wall_s"] = time.perf_counter() - t_start
    text = markdown(meta, rows)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        save_results(args.out, meta, rows, markdown)


if __name__ == "__main__":
    main()
