#!/usr/bin/env python3
"""Louvain on small graphs: the one-work-group level path against the per-bucket path, and
NetworKit's PLM where installed.

For each graph (generated suite graphs and the shared files, symmetrized patterns without
self-loops) the whole ``louvain`` call (``verify=False``, from the scipy CSR in memory to the
numpy membership, programs built by a verified warm-up) is timed ``--repeat`` times for:

* ``auto``: the defaults (levels at most ``one_group_edges`` of the device's profile run in
  one work-group, ``pyclmatch.community.driver.ONE_GROUP_EDGES``);
* ``per-bucket``: ``one_group_edges=0`` (a launch per bucket and sub-round, a read-back per
  iteration: the large-graph path);
* ``one-group``: ``one_group_edges=10**9`` (every level in one work-group);

with medians of the whole call and of device seconds, the modularity recomputed on the host,
launches, read-backs and the path that ran (``res.counters["path"]``), and NetworKit
``PLM(refine=False)`` (all host threads) on the same graph when ``networkit`` is importable.
``--sweep`` times one-group against per-bucket on generated graphs of growing size (Kronecker,
grids, uniform random): the crossover that ``ONE_GROUP_EDGES`` is set from.

    python3 benchmarks/louvain_small.py --device cpu --out /tmp/louvain-small-pocl
    python3 benchmarks/louvain_small.py --device cpu --sweep --graphs none --out /tmp/sweep
    python3 benchmarks/louvain_small.py --device gpu --shared-max-edges 3e6 --sweep \\
        --sweep-paths per-bucket,one-group@128,one-group@512,one-group@1024 \\
        --out benchmarks/results/louvain-small-h100
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import pyclmatch  # noqa: E402
from pyclmatch import generators  # noqa: E402
from pyclmatch.community import louvain, modularity  # noqa: E402
from pyclmatch.community import driver  # noqa: E402
from bench_small import med, shared_graphs, time_plm  # noqa: E402
from bench_e2e import run_meta, save_results  # noqa: E402

DEFAULT_WG = dict(driver.ONE_GROUP_WG)

DEFAULT = ("kron-10", "grid-64", "bcsstk13.mtx", "4elt.graph", "PGPgiantcompo.graph")
PATHS = {"auto": {}, "per-bucket": {"one_group_edges": 0},
         "one-group": {"one_group_edges": 10 ** 9}}
SWEEP = ("kron-8", "kron-10", "kron-12", "kron-13", "kron-14", "grid-32", "grid-64",
         "grid-128", "grid-192", "uniform-4096-d4", "uniform-16384-d4", "uniform-65536-d4")


def generated(name):
    """A generated graph by name: kron-S, grid-S, delaunay-S, uniform-N-dD."""
    kind, _, rest = name.partition("-")
    if kind == "uniform":
        n, d = rest.split("-d")
        return generators.uniform(int(n), int(d))
    return {"kron": generators.kron, "grid": generators.grid,
            "delaunay": generators.delaunay}[kind](int(rest))


def symmetric_pattern(A):
    """The undirected pattern of square A (A + A^T, no self-loops, weights 1), else None."""
    A = sp.csr_matrix(A)
    if A.shape[0] != A.shape[1]:
        return None
    S = (abs(A) + abs(A).T).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    S.data = np.ones_like(S.data, dtype=np.float64)
    S.sort_indices()
    return S


def graph_list(names, shared_max):
    wanted = [g for g in names.split(",") if g and g != "none"]
    need_files = shared_max or any("." in g for g in wanted)
    files = {n: A for n, A in shared_graphs(max(shared_max, 10 ** 12))} if need_files else {}
    out = []
    for name in wanted:
        A = files.get(name)
        if A is None and "." in name:
            print(f"skip {name}: not among the shared files", file=sys.stderr)
            continue
        out.append((name, A if A is not None else generated(name)))
    if shared_max:
        out += [(n, A) for n, A in sorted(files.items())
                if n not in wanted and A.nnz <= shared_max]
    return [(n, S) for n, S in ((n, symmetric_pattern(A)) for n, A in out) if S is not None]


def path_kwargs(path):
    """louvain keyword arguments of ``path``; ``one-group@W``: one-group with a work-group of
    W work-items (``driver.ONE_GROUP_WG`` set for the call)."""
    name, _, wg = path.partition("@")
    for kind in driver.ONE_GROUP_WG:
        driver.ONE_GROUP_WG[kind] = int(wg) if wg else DEFAULT_WG[kind]
    return PATHS[name]


def time_path(S, handle, repeat, path):
    kw = path_kwargs(path)
    louvain(S, device=handle, **kw)        # warm-up: programs built, verified
    runs = []
    for _ in range(repeat):
        runs.append(louvain(S, device=handle, verify=False, **kw))
    r = runs[-1]
    dev = [sum(v for k, v in x.timings.items() if k.startswith("kernel:")) for x in runs]
    return {"call_s": med([x.timings["total"] for x in runs]), "device_s": med(dev),
            "modularity": float(modularity(S, r.membership)),
            "communities": int(r.n_communities), "launches": r.counters.get("launches"),
            "readbacks": r.counters.get("readbacks"), "path": r.counters.get("path"),
            "levels": r.counters.get("levels"), "iterations": r.counters.get("iterations")}


def bench(name, S, handle, repeat, paths, plm):
    rec = {"graph": name, "vertices": int(S.shape[0]), "edges": int(S.nnz // 2),
           "paths": {p: time_path(S, handle, repeat, p) for p in paths}}
    if plm:
        rec["plm"] = time_plm(S, repeat)
    return rec


def ms(x):
    return "-" if x is None else f"{x * 1e3:.2f}"


def markdown(meta, rows):
    recs, sweep = rows["graphs"], rows["sweep"]
    L = [f"# Louvain on small graphs: one-group vs per-bucket path ({meta['device']})", "",
         f"`{meta['command']}`", "", f"{meta['date']}, {meta['host']}, medians of "
         f"{meta['repeat']} whole calls (verify=False, scipy CSR in memory, programs built); "
         "Q recomputed on the host; L/R = launches/read-backs.", ""]
    for title, rows in (("Graphs", recs), ("Crossover sweep", sweep)):
        if not rows:
            continue
        paths = list(rows[0]["paths"])
        L += [f"## {title}", "", "| graph | n | edges | " + " | ".join(
            f"{p} ms | Q | L/R" for p in paths) + " | PLM ms | Q(PLM) |",
              "|---" * (3 + 3 * len(paths) + 2) + "|"]
        for r in rows:
            cells = []
            for p in paths:
                x = r["paths"][p]
                cells += [f"{ms(x['call_s'])} (dev {ms(x['device_s'])})",
                          f"{x['modularity']:.4f}", f"{x['launches']}/{x['readbacks']}"]
            plm = r.get("plm") or {}
            L.append(f"| {r['graph']} | {r['vertices']} | {r['edges']} | " + " | ".join(cells)
                     + f" | {ms(plm.get('call_s'))} | "
                     + (f"{plm['modularity']:.4f}" if plm else "-") + " |")
        L.append("")
    return "\n".join(L) + "\n"


def write(out, meta, recs, sweep):
    os.makedirs(out, exist_ok=True)
    save_results(out, meta, {"graphs": recs, "sweep": sweep}, markdown)


def main(argv=None):
    ap = argparse.ArgumentParser(formatter_class=argparse.RawDescriptionHelpFormatter,
                                 description=__doc__)
    for flag, kw in (("--device", {}), ("--out", {"required": True}),
                     ("--repeat", {"type": int, "default": 5})):
        ap.add_argument(flag, **kw)
    ap.add_argument("--graphs", default=",".join(DEFAULT),
                    help="comma-separated generated graphs / shared file names ('none')")
    ap.add_argument("--shared-max-edges", type=float, default=0,
                    help="also every shared file with at most this many stored entries")
    ap.add_argument("--paths", default="auto,per-bucket,one-group",
                    help="auto, per-bucket, one-group, one-group@W (work-group of W)")
    ap.add_argument("--sweep", action="store_true",
                    help="one-group vs per-bucket on generated graphs of growing size")
    ap.add_argument("--sweep-graphs", default=",".join(SWEEP))
    ap.add_argument("--sweep-paths", default="per-bucket,one-group")
    ap.add_argument("--no-plm", action="store_true")
    args = ap.parse_args(argv)
    handle = pyclmatch.get_device(args.device)
    meta = run_meta(handle, repeat=args.repeat)
    paths = args.paths.split(",")
    sweep_paths = args.sweep_paths.split(",")
    recs, sweep = [], []
    for name, S in graph_list(args.graphs, int(args.shared_max_edges)):
        t = time.perf_counter()
        recs.append(bench(name, S, handle, args.repeat, paths, not args.no_plm))
        print(f"{name}: " + ", ".join(f"{p} {ms(x['call_s'])} ms Q {x['modularity']:.4f}"
                                      for p, x in recs[-1]["paths"].items())
              + f" [{time.perf_counter() - t:.1f} s]", file=sys.stderr, flush=True)
        write(args.out, meta, recs, sweep)
    if args.sweep:
        for name in args.sweep_graphs.split(","):
            S = symmetric_pattern(generated(name))
            sweep.append(bench(name, S, handle, args.repeat, sweep_paths, False))
            print(f"sweep {name} ({S.nnz} entries): " + ", ".join(
                f"{p} {ms(x['call_s'])} ms" for p, x in sweep[-1]["paths"].items()),
                file=sys.stderr, flush=True)
            write(args.out, meta, recs, sweep)
    write(args.out, meta, recs, sweep)
    print(os.path.join(args.out, "results.md"))


if __name__ == "__main__":
    main()
