#!/usr/bin/env python3
"""Louvain benchmark: pyclmatch's GPU Louvain (Paper III) side by side with networkx
``louvain_communities``, igraph ``community_multilevel`` and NetworKit ``PLM`` where installed:
time, modularity and edges per second of the first optimization phase.

Graphs: the reference suite (pyclmatch.generators = shared/tools/graphgen.py: uniform random,
R-MAT/Kronecker, Delaunay and grid meshes), symmetrized and unweighted as in the issue's
anchors, planted-partition (SBM) graphs, larger R-MAT (up to ~1e8 edges with --big) and the
shared Matrix Market / METIS / SNAP files (patterns, symmetrized).

Variants: ``ours`` = the defaults (relative stop rule, up/down moves), ``det`` =
``deterministic=True``, ``paper`` = ``threshold="paper", moves="paper"`` (the paper's method),
``tbin`` = ``threshold=(TBIN, 1e-6)``; ``--sweep`` adds the tuning variants of ``SWEEP``
(stop-rule fractions, bin_limit, sub-rounds, moves, work-group size) as a second table.
``--no-ours --competitors igraph`` measures only a competitor (igraph's modularity does not
depend on the machine, so its slow single-core runs can be made anywhere). Each record keeps
per-level wall seconds, level sizes, kernel seconds per phase and ``work`` (iterations x level
edges / input edges).

Accounting: ``time_s`` = one ``louvain(A, verify=False)`` call on a scipy CSR matrix already in
memory, programs built (a warm-up call builds them and is verified against the host's
modularity): host validation, upload, symmetry check, all levels, download. ``first_phase_eps``
= undirected edges x iterations of the first modularity optimization phase / its wall time
(the paper's TEPS). ``det`` rows are ``deterministic=True``. Competitors run on all host cores
(NetworKit) or one (networkx, igraph); times are their call only, on graphs built beforehand.
Modularity of every partition is recomputed by pyclmatch's host function (float64).

    python benchmarks/bench_louvain.py --device gpu --out benchmarks/results/louvain-h100
    python benchmarks/bench_louvain.py --device cpu --quick --out benchmarks/results/louvain-pocl-quick
"""
import argparse
import importlib
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

import common
from common import med
import pyclmatch
from pyclmatch import generators
from pyclmatch.community.api import louvain, modularity

#: NetworKit PLM / igraph multilevel on the H100 host's 16 cores (issue 5's anchors)
NK_PLM_ANCHOR = {"delaunay-21": (3.09, 0.9818), "grid-2048": (7.84, 0.9924),
                 "uniform-4M-d4": (27.3, 0.268), "kron-21": (7.74, 0.072)}
IGRAPH_ANCHOR = {"delaunay-21": 55.2, "grid-2048": 89.7}
FILES = ("bcsstk13.mtx", "rajat01.mtx", "delaunay_n16.mtx", "bayer10.mtx", "4elt.graph",
         "astro-ph.graph", "facebook_combined.txt")
QUICK_FILES = ("bcsstk13.mtx", "rajat01.mtx", "facebook_combined.txt")


#: ``--sweep``: tuning variants timed beside the defaults (label -> louvain keyword arguments)
SWEEP = {"rel-3e-2-1e-2": dict(threshold=("relative", 3e-2, 1e-2)),
         "rel-5e-2-1e-2": dict(threshold=("relative", 5e-2, 1e-2)),
         "rel-1e-1-1e-2": dict(threshold=("relative", 1e-1, 1e-2)),
         "rel-5e-2-3e-2": dict(threshold=("relative", 5e-2, 3e-2)),
         "bin-25k": dict(bin_limit=25_000), "bin-400k": dict(bin_limit=400_000),
         "subrounds-1": dict(subrounds=1), "moves-paper": dict(moves="paper"),
         "wg-256": dict(work_group_size=256),
         "subrounds-2": dict(subrounds=2),
         "rel-5e-3-1e-2": dict(threshold=("relative", 5e-3, 1e-2)),
         "rel-1e-2-1e-2": dict(threshold=("relative", 1e-2, 1e-2)),
         "subrounds-2+rel-1e-2": dict(subrounds=2, threshold=("relative", 1e-2, 1e-2))}


def symmetrize(A):
    A = sp.csr_matrix(A)
    A = (A + A.T).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    A.data = np.ones(A.nnz, np.float32)
    A.sort_indices()
    return A


def sbm(n_blocks, block, deg_in, deg_out, seed=0):
    """Sparse planted partition: ``n_blocks`` blocks of ``block`` vertices, about ``deg_in``
    edges inside and ``deg_out`` outside per vertex."""
    rng = np.random.default_rng(seed)
    n = n_blocks * block
    m_in, m_out = n * deg_in // 2, n * deg_out // 2
    r = rng.integers(0, n, m_in)
    c = (r // block) * block + rng.integers(0, block, m_in)
    r2, c2 = rng.integers(0, n, m_out), rng.integers(0, n, m_out)
    A = sp.csr_matrix((np.ones(m_in + m_out, np.float32),
                       (np.concatenate([r, r2]), np.concatenate([c, c2]))), shape=(n, n))
    return symmetrize(A)


def graph_list(quick, big):
    out = []
    if quick:
        for name, make in generators.SMALL_SUITE.items():
            out.append((name, lambda make=make: symmetrize(make())))
        out.append(("kron-14", lambda: symmetrize(generators.kron(14))))
        out.append(("sbm-50x100", lambda: sbm(50, 100, 16, 2)))
        files = QUICK_FILES
    else:
        for name, make in generators.SUITE.items():
            out.append((name, lambda make=make: symmetrize(make())))
        out.append(("sbm-10Kx100", lambda: sbm(10_000, 100, 20, 4)))
        out.append(("kron-17", lambda: symmetrize(generators.kron(17))))
        if big:
            out.append(("kron-22", lambda: symmetrize(generators.kron(22))))
            out.append(("sbm-100Kx100", lambda: sbm(100_000, 100, 16, 4)))
        files = FILES
    for f in files:
        path = common.shared_path(f)
        if path:
            out.append((f, lambda path=path: symmetrize(pyclmatch.read_graph(path,
                                                                           symmetrize=True))))
    return out


def run_ours(A, device, repeat, deterministic, threshold=None, **extra):
    kw = dict(device=device, deterministic=deterministic, threshold=threshold, **extra)
    warm = louvain(A, **kw)                                  # builds the programs + verifies
    times, rates, res = [], [], None
    for _ in range(repeat):
        t = time.perf_counter()
        res = louvain(A, verify=False, **kw)
        times.append(time.perf_counter() - t)
        rates.append(res.first_phase_rate)
    return {"time_s": med(times), "times": times, "modularity": warm.modularity,
            "modularity_timed": (warm.modularity if np.array_equal(warm.membership,
                                                                    res.membership)
                                 else modularity(A, res.membership)),
            "communities": int(res.n_communities), "first_phase_eps": med(rates),
            "levels": res.counters["levels"], "iterations": res.counters["iterations"],
            "first_phase_s": res.timings.get("optimize:level0"),
            "prepare_s": res.timings.get("prepare"),
            "kernel_s": {k[7:]: round(v, 6) for k, v in res.timings.items()
                         if k.startswith("kernel:")},
            "readbacks": res.counters["readbacks"], "launches": res.counters["launches"],
            "level_s": [round(res.timings.get(f"level{i}", 0.0), 6)
                        for i in range(res.counters["levels"])],
            "level_vertices": res.counters["vertices"], "level_edges": res.counters["edges"],
            "upload_s": res.timings.get("upload"), "readback_wait_s": res.timings.get("readback"),
            "work": sum(i * e for i, e in zip(res.counters["iterations"],
                                              res.counters["edges"])) / max(A.nnz, 1)}


def run_variants(row, A, handle, repeat, args, save):
    """Our runs of one graph into ``row``: the defaults, then the variants ``args`` asks for
    (``save()`` after each tuning variant, so a run cut short keeps them)."""
    row["ours"] = run_ours(A, handle, repeat, False)
    if not args.no_det:
        row["det"] = run_ours(A, handle, repeat, True)
    if not args.no_paper:
        row["paper"] = run_ours(A, handle, repeat, False, threshold="paper", moves="paper")
    if args.tbin:
        row["tbin"] = run_ours(A, handle, repeat, False, threshold=(args.tbin, 1e-6))
    if args.sweep:
        row["sweep"] = {}
        for label, kw in SWEEP.items():
            if args.sweep != "all" and label not in args.sweep.split(","):
                continue
            try:
                row["sweep"][label] = run_ours(A, handle, repeat, False, **kw)
            except Exception as exc:          # one failing variant is reported, not fatal
                row["sweep"][label] = {"error": f"{type(exc).__name__}: {exc}"}
            save()


def _peer_module(name, A, max_edges):
    """(module, None) where the Python peer ``name`` is installed and ``A`` has at most
    ``max_edges`` undirected edges; else (None, what to report: None or a skip note)."""
    try:
        lib = importlib.import_module(name)
    except ImportError:
        return None, None
    if A.nnz // 2 > max_edges:
        return None, {"skipped": f"more than {max_edges} edges"}
    return lib, None


def run_networkx(A, max_edges):
    nx, skipped = _peer_module("networkx", A, max_edges)
    if nx is None:
        return skipped
    G = nx.from_scipy_sparse_array(A)
    t = time.perf_counter()
    comms = nx.community.louvain_communities(G, seed=0)
    dt = time.perf_counter() - t
    memb = np.empty(A.shape[0], np.int64)
    for c, s in enumerate(comms):
        memb[list(s)] = c
    return {"time_s": dt, "modularity": modularity(A, memb), "communities": len(comms)}


def run_igraph(A, max_edges):
    ig, skipped = _peer_module("igraph", A, max_edges)
    if ig is None:
        return skipped
    U = sp.triu(A, 1).tocoo()
    g = ig.Graph(n=A.shape[0], edges=np.column_stack([U.row, U.col]).tolist())
    t = time.perf_counter()
    cl = g.community_multilevel()
    dt = time.perf_counter() - t
    memb = np.asarray(cl.membership, np.int64)
    return {"time_s": dt, "modularity": modularity(A, memb), "communities": int(memb.max() + 1)}


def run_networkit(A):
    try:
        import networkit as nk
    except ImportError:
        return None
    nk.setNumberOfThreads(os.cpu_count() or 1)
    U = sp.triu(A, 1).tocoo()
    make = getattr(nk, "GraphFromCoo", None) or getattr(nk.graph, "GraphFromCoo")
    G = make((np.ones(U.nnz), (U.row.astype(np.uint64), U.col.astype(np.uint64))),
             n=A.shape[0], weighted=False, directed=False)
    t = time.perf_counter()
    plm = nk.community.PLM(G, refine=False)
    plm.run()
    dt = time.perf_counter() - t
    memb = np.asarray(plm.getPartition().getVector(), np.int64)
    _, memb = np.unique(memb, return_inverse=True)
    return {"time_s": dt, "modularity": modularity(A, memb), "communities": int(memb.max() + 1),
            "threads": nk.getMaxNumberOfThreads()}


def fmt(x, spec=".3g"):
    return "-" if x is None else format(x, spec)


def markdown(report):
    lines = [f"# Louvain benchmark ({report['device']})", "",
             f"- date: {report['date']}", f"- command: `{report['command']}`",
             f"- host: {report['host']}", f"- pyclmatch {report['version']}", "",
             "Times in seconds (median of the timed runs, programs built, `verify=False`); "
             "Q = modularity (host, float64); EPS = first-phase edges per second; "
             "speedup = competitor time / ours.", "",
             "| graph | n | m | ours s | Q | EPS | det s | det Q | paper s (Q) | t_bin s (Q) | "
             "networkx s (Q) | igraph s (Q) | NetworKit PLM s (Q) | NK anchor s (Q) | "
             "x NetworKit | Q / igraph |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for g in report["graphs"]:
        def comp(key):
            c = g.get(key)
            if not c:
                return "-"
            if "skipped" in c:
                return "skipped"
            return f"{fmt(c['time_s'])} ({c['modularity']:.4f})"
        if "ours" not in g:
            what = f"failed: {g['error']}" if g.get("error") else "-"
            lines.append(f"| {g['name']} | {g['n']} | {g['m']} | {what} | | | | | | | "
                         f"{comp('networkx')} | {comp('igraph')} | {comp('networkit')} | | | |")
            continue
        o, d = g["ours"], g.get("det") or {}
        tb = g.get("tbin")
        tb_str = f"{fmt(tb['time_s'])} ({tb['modularity']:.4f})" if tb else "-"
        pp = g.get("paper")
        pp_str = f"{fmt(pp['time_s'])} ({pp['modularity']:.4f})" if pp else "-"
        anchor = NK_PLM_ANCHOR.get(g["name"])
        nk_t = (g.get("networkit") or {}).get("time_s") or (anchor[0] if anchor else None)
        ig_q = (g.get("igraph") or {}).get("modularity")
        lines.append(
            f"| {g['name']} | {g['n']} | {g['m']} | {fmt(o['time_s'])} | "
            f"{o['modularity']:.4f} | {fmt(o['first_phase_eps'])} | {fmt(d.get('time_s'))} | "
            f"{fmt(d.get('modularity'), '.4f')} | "
            f"{pp_str} | {tb_str} | "
            f"{comp('networkx')} | {comp('igraph')} | "
            f"{comp('networkit')} | "
            f"{f'{anchor[0]} ({anchor[1]})' if anchor else '-'} | "
            f"{fmt(nk_t / o['time_s'] if nk_t else None)} | "
            f"{fmt(o['modularity'] / ig_q if ig_q else None, '.4f')} |")
    swept = [g for g in report["graphs"] if g.get("sweep")]
    if swept:
        labels = list(swept[0]["sweep"])
        lines += ["", "Tuning variants (`--sweep`): seconds (Q); the defaults first.", "",
                  "| graph | defaults | " + " | ".join(labels) + " |",
                  "|---|---|" + "---|" * len(labels)]
        for g in swept:
            cells = []
            for lab in labels:
                r = g["sweep"].get(lab) or {}
                cells.append(f"{fmt(r['time_s'])} ({r['modularity']:.4f})" if "time_s" in r
                             else str(r.get("error", "-"))[:60])
            lines.append(f"| {g['name']} | {fmt(g['ours']['time_s'])} "
                         f"({g['ours']['modularity']:.4f}) | " + " | ".join(cells) + " |")
    lines += ["", "Medians over graphs: "
              + ", ".join(f"{k} {fmt(v)}" for k, v in report["summary"].items()), ""]
    return "\n".join(lines)


def write_report(report, out, t_all):
    """Summary + ``out``.json/.md; called after every graph, so a run cut short keeps what it measured."""
    gs = [g for g in report["graphs"] if "ours" in g]

    def ratios(key):
        return [g[key]["time_s"] / g["ours"]["time_s"] for g in gs
                if g.get(key) and "time_s" in g[key]]
    summary = {"ours_first_phase_eps": med([g["ours"]["first_phase_eps"] for g in gs]),
               "speedup_vs_networkx": med(ratios("networkx")),
               "speedup_vs_igraph": med(ratios("igraph")),
               "speedup_vs_networkit": med(ratios("networkit")),
               "speedup_vs_networkit_anchor": med([NK_PLM_ANCHOR[g["name"]][0]
                                                   / g["ours"]["time_s"] for g in gs
                                                   if g["name"] in NK_PLM_ANCHOR]),
               "Q_ratio_vs_networkx": med([g["ours"]["modularity"] / g["networkx"]["modularity"]
                                           for g in gs if g.get("networkx")
                                           and "modularity" in g["networkx"]]),
               "Q_ratio_vs_igraph": med([g["ours"]["modularity"] / g["igraph"]["modularity"]
                                         for g in gs if g.get("igraph")
                                         and "modularity" in g["igraph"]]),
               "Q_ratio_vs_networkit": med([g["ours"]["modularity"]
                                            / g["networkit"]["modularity"] for g in gs
                                            if g.get("networkit")
                                            and "modularity" in g["networkit"]]),
               "paper_Q_ratio_vs_networkit": med([g["paper"]["modularity"]
                                                  / g["networkit"]["modularity"] for g in gs
                                                  if g.get("paper") and g.get("networkit")
                                                  and "modularity" in g["networkit"]]),
               "tbin_Q_ratio_vs_networkit": med([g["tbin"]["modularity"]
                                                 / g["networkit"]["modularity"] for g in gs
                                                 if g.get("tbin") and g.get("networkit")
                                                 and "modularity" in g["networkit"]])}
    report["summary"] = summary
    report["wall_s"] = time.perf_counter() - t_all
    common.write_json(out + ".json", report, default=float)
    with open(out + ".md", "w") as fh:
        fh.write(markdown(report))
    return report


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", required=True, help="output prefix (writes .json and .md)")
    ap.add_argument("--quick", action="store_true", help="small graphs (~1 min on PoCL)")
    ap.add_argument("--big", action="store_true", help="add kron-22 and a 1e7-vertex SBM")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--graphs", default=None, help="comma-separated subset of graph names")
    ap.add_argument("--no-det", action="store_true", help="skip deterministic=True runs")
    ap.add_argument("--tbin", type=float, default=1e-4,
                    help="also run with threshold=(TBIN, 1e-6) (0: skip); the paper's "
                         "t_bin=1e-2 stops low-modularity graphs (R-MAT) early")
    ap.add_argument("--no-paper", action="store_true",
                    help="skip the run of the paper's method (threshold='paper', "
                         "moves='paper': the default before the relative stop rule)")
    ap.add_argument("--sweep", nargs="?", const="all", default=None,
                    help="also time the tuning variants of SWEEP (thresholds, bin_limit, "
                         "subrounds, moves, work-group size): all of them, or the "
                         "comma-separated labels given")
    ap.add_argument("--no-ours", action="store_true",
                    help="run the competitors only (e.g. igraph's modularity on large graphs, "
                         "which does not depend on the machine)")
    ap.add_argument("--competitors", default="networkx,igraph,networkit",
                    help="comma-separated competitors to run")
    ap.add_argument("--nx-max-edges", type=int, default=None)
    ap.add_argument("--igraph-max-edges", type=int, default=1_000_000)
    args = ap.parse_args(argv)
    repeat = args.repeat or (1 if args.quick else 3)
    nx_max = args.nx_max_edges or 200_000
    handle = None if args.no_ours else pyclmatch.get_device(args.device)
    report = common.run_meta(handle, device_type=handle.type if handle else None,
                             version=pyclmatch.__version__, repeat=repeat, graphs=[])
    report.setdefault("device", "competitors only")
    wanted = set(args.graphs.split(",")) if args.graphs else None
    t_all = time.perf_counter()
    for name, make in graph_list(args.quick, args.big):
        if wanted and name not in wanted:
            continue
        t0 = time.perf_counter()
        A = make()
        gen_s = time.perf_counter() - t0
        row = {"name": name, "n": int(A.shape[0]), "m": int(A.nnz // 2), "gen_s": gen_s}
        print(f"[{time.perf_counter() - t_all:7.1f}s] {name}: n={row['n']} m={row['m']}",
              file=sys.stderr, flush=True)
        try:
            if not args.no_ours:
                run_variants(row, A, handle, repeat, args,
                             lambda: write_report(report, args.out, t_all))
        except Exception as exc:                  # reported, the other graphs still run
            row["error"] = f"{type(exc).__name__}: {exc}"
            print(f"    FAILED: {row['error']}", file=sys.stderr, flush=True)
            report["graphs"].append(row)
            write_report(report, args.out, t_all)
            continue
        for key, fn in (("networkx", lambda: run_networkx(A, nx_max)),
                        ("igraph", lambda: run_igraph(A, args.igraph_max_edges)),
                        ("networkit", lambda: run_networkit(A))):
            if key not in args.competitors.split(","):
                continue
            try:
                row[key] = fn()
            except Exception as exc:          # a competitor failing is reported, not fatal
                row[key] = {"skipped": f"{type(exc).__name__}: {exc}"}
        o = row.get("ours") or {}
        print(f"    ours {fmt(o.get('time_s'))}s Q={fmt(o.get('modularity'), '.4f')} "
              f"EPS={fmt(o.get('first_phase_eps'))}"
              + "".join(f"  {k} {row[k]['time_s']:.3f}s Q={row[k]['modularity']:.4f}"
                        for k in ("networkx", "igraph", "networkit")
                        if row.get(k) and "time_s" in row[k]), file=sys.stderr, flush=True)
        report["graphs"].append(row)
        write_report(report, args.out, t_all)
    write_report(report, args.out, t_all)
    print(markdown(report))


if __name__ == "__main__":
    main()
