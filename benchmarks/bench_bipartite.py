#!/usr/bin/env python3
"""Exact bipartite matching benchmark: every pyclmatch variant and scipy side by side.

Runs each algorithm variant of pyclmatch and scipy's ``maximum_bipartite_matching`` on the same
graphs in one run (the reference suite of shared/tools/graphgen.py, with and without random
row/column permutation, plus the shared Matrix Market files), repeats, and writes medians,
ratios and edges per second, with the device name, the command and the date, to
``--out`` (results.json + results.md).

Accounting (as the ECL-MM anchors): ``device_s`` = initial matching + augmentation on the
device, after upload, programs built (a warm-up run builds them and is verified); ``e2e_s`` =
the whole ``maximum_matching`` call (validation, upload, device work, download, verification).

    python benchmarks/bench_bipartite.py --device gpu --suite reference --out benchmarks/results/bipartite-h100
    python benchmarks/bench_bipartite.py --device cpu --suite small --out benchmarks/results/bipartite-pocl

With ``--ecl-mm BINARY`` (built by ``benchmarks/build_ecl_mm.sh``) ECL-MM runs on each square
graph in the same run (``ecl_mm.py``), and the tables compare with its ``totalRunTime``.
"""
import argparse
import os
import statistics
import time

import numpy as np

import common
import ecl_mm
from common import finish_child, start_scipy
import pyclmatch
from pyclmatch import generators
from pyclmatch.engine.graphs import as_bipartite

#: ECL-MM (IPDPS 2025) on an H100, matching only, transfers excluded (issue 2's anchors)
ECL_MM_H100 = {"uniform-4M-d4": 0.065, "uniform-4M-d4-rcp": 0.055, "kron-21": 0.010,
               "kron-21-rcp": 0.009, "delaunay-21": 0.068, "delaunay-21-rcp": 0.095,
               "grid-2048": 0.047, "grid-2048-rcp": 0.048}


def graphs(args):
    if args.suite != "none":
        names = args.graphs.split(",") if args.graphs else None
        rcp = {"both": "both", "yes": True, "no": False}[args.rcp]
        yield from generators.suite(names, rcp=rcp, size=args.suite)
    if args.mtx:
        for path in sorted(args.mtx):
            yield os.path.basename(path), pyclmatch.read_graph(path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None)
    ap.add_argument("--suite", default="small", choices=["reference", "large", "medium", "small", "none"])
    ap.add_argument("--graphs", default=None, help="comma-separated subset of the suite")
    ap.add_argument("--rcp", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--mtx", nargs="*", default=[], help="Matrix Market files to add")
    ap.add_argument("--algorithms", default="all",
                    help="comma-separated names, 'all' (every registered) or 'auto'")
    ap.add_argument("--init", default="karp-sipser")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scipy-timeout", type=float, default=75.0,
                    help="seconds; 0 skips scipy")
    ap.add_argument("--slow-seconds", type=float, default=5.0,
                    help="a (graph, algorithm) whose verified warm-up takes longer is timed once")
    ap.add_argument("--ecl-mm", default=None, metavar="BINARY",
                    help="an ECL-MM build (benchmarks/build_ecl_mm.sh) to run on each square "
                         "graph in the same run")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    handle = pyclmatch.get_device(args.device)
    algs = (list(pyclmatch.bipartite.algorithms()) if args.algorithms == "all"
            else args.algorithms.split(","))
    if "auto" not in algs:
        algs.append("auto")
    os.makedirs(args.out, exist_ok=True)
    meta = common.run_meta(handle, device_type=handle.type, cpu_count=os.cpu_count(),
                           pyclmatch=pyclmatch.__version__, init=args.init, repeat=args.repeat)
    print(f"device: {handle.label}", flush=True)
    records = []
    for gname, A in graphs(args):
        g = as_bipartite(A)
        g.csc  # conversion done once, outside every timing
        rec = {"graph": gname, "rows": g.n_rows, "cols": g.n_cols, "edges": g.nnz, "runs": {}}
        job = start_scipy(g.csr) if args.scipy_timeout > 0 else None
        if job is not None and handle.is_cpu:   # a CPU device needs the cores scipy would use
            rec["scipy_s"], rec["scipy_cardinality"] = finish_child(job, args.scipy_timeout)
            job = None
        for alg in algs:
            t_warm = time.perf_counter()
            try:
                warm = pyclmatch.maximum_matching(g, algorithm=alg, init=args.init,
                                                  device=handle)
            except pyclmatch.PyclmatchError as exc:   # reported, the other variants still run
                rec["runs"][alg] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
                print(f"{gname:<22} {alg:<20} error: {exc}"[:300], flush=True)
                continue
            t_warm = time.perf_counter() - t_warm
            dev, e2e = [], []
            for _ in range(args.repeat if t_warm <= args.slow_seconds else 1):
                t0 = time.perf_counter()
                r = pyclmatch.maximum_matching(g, algorithm=alg, init=args.init,
                                               device=handle, verify=False)
                e2e.append(time.perf_counter() - t0)
                dev.append(r.device_seconds)
                if r.cardinality != warm.cardinality:
                    raise SystemExit(f"{gname} {alg}: cardinality {r.cardinality} differs "
                                     f"from the verified {warm.cardinality}")
            rec["runs"][alg] = {
                "algorithm": warm.algorithm, "cardinality": warm.cardinality,
                "initial_cardinality": warm.initial_cardinality, "verified": warm.verified,
                "device_s": statistics.median(dev), "device_s_all": dev,
                "e2e_s": statistics.median(e2e), "e2e_s_all": e2e,
                "timings": r.timings, "counters": r.counters}
            print(f"{gname:<22} {alg:<20} card {warm.cardinality:>9} "
                  f"device {statistics.median(dev):9.4f} s  e2e {statistics.median(e2e):8.3f} s"
                  f"  phases {r.counters.get('phases', 0):>4} levels "
                  f"{r.counters.get('bfs_levels', 0):>6}", flush=True)
        if job is not None:
            rec["scipy_s"], rec["scipy_cardinality"] = finish_child(job, args.scipy_timeout)
            if rec["scipy_cardinality"] is not None:
                assert all(r["cardinality"] == rec["scipy_cardinality"]
                           for r in rec["runs"].values()), gname
            print(f"{gname:<22} scipy: {rec['scipy_s']} s", flush=True)
        if args.ecl_mm:
            rec["ecl_mm"] = run_ecl_mm(args, gname, g.csr, rec)
        ok = [a for a in rec["runs"] if "device_s" in rec["runs"][a]]
        best = min(ok, key=lambda a: rec["runs"][a]["device_s"])
        rec["best"] = best
        records.append(rec)
    write(args.out, meta, records)


def run_ecl_mm(args, gname, A, rec):
    """ECL-MM on ``A`` (None for a rectangular one), its cardinality checked against
    pyclmatch's verified one."""
    res = ecl_mm.run(args.ecl_mm, A, repeat=args.repeat)
    if res is not None:
        cards = {r["cardinality"] for r in rec["runs"].values() if "cardinality" in r}
        if cards and cards != {res["cardinality"]}:
            raise SystemExit(f"{gname}: ECL-MM's cardinality {res['cardinality']} differs "
                             f"from pyclmatch's {cards}")
        print(f"{gname:<22} {'ECL-MM':<20} card {res['cardinality']:>9} "
              f"device {res['seconds']:9.4f} s", flush=True)
    return res


def ecl_seconds(r):
    """ECL-MM's time on record ``r``: run in this command where it was, else the anchor."""
    run = r.get("ecl_mm")
    return run["seconds"] if run else ECL_MM_H100.get(r["graph"])


def gmean(xs):
    xs = [x for x in xs if x]
    return float(np.exp(np.mean(np.log(xs)))) if xs else None


def write(out, meta, records):
    common.write_json(os.path.join(out, "results.json"), {"meta": meta, "records": records})
    algs = sorted({a for r in records for a in r["runs"]})
    lines = [f"# Bipartite matching benchmark — {meta['device']}", "",
             f"- date: {meta['date']}", f"- command: `{meta['command']}`",
             f"- host: {meta['host']}; init: {meta['init']}; "
             f"medians of {meta['repeat']} runs after a verified warm-up", "",
             "Device seconds (initial matching + augmentation, after upload, programs built):",
             "", "| graph | edges | scipy s | " + " | ".join(algs) + " | best | best/ECL-MM "
             "| scipy/best |", "|" + "---|" * (len(algs) + 6)]
    for r in records:
        best = r["runs"][r["best"]]["device_s"]
        ecl = ecl_seconds(r)
        sc = r.get("scipy_s")
        lines.append(
            f"| {r['graph']} | {r['edges']} | "
            + (f"{sc:.3f}" if sc else ("n/a" if "scipy_s" not in r else "timeout")) + " | "
            + " | ".join(f"{r['runs'][a]['device_s']:.4f}" if "device_s" in r["runs"].get(a, {})
                         else ("err" if a in r["runs"] else "-") for a in algs)
            + f" | {r['best']} | " + (f"{best / ecl:.2f}" if ecl else "-") + " | "
            + (f"{sc / best:.0f}" if sc else "-") + " |")
    lines += ["", "Geometric means (device s):", ""]
    for a in algs:
        v = [r["runs"][a].get("device_s") for r in records if a in r["runs"]]
        lines.append(f"- {a}: {gmean(v):.4f}" if v and all(v) and len(v) == len(records)
                     else f"- {a}: - (not run on every graph)")
    bests = [r["runs"][r["best"]]["device_s"] for r in records]
    lines.append(f"- best variant per graph: {gmean(bests):.4f}")
    ecl = [ecl_seconds(r) for r in records if ecl_seconds(r)]
    if len(ecl) == len(records) and records:
        run_here = all(r.get("ecl_mm") for r in records)
        lines.append(f"- ECL-MM ({'run in this command' if run_here else 'H100 anchor'}): "
                     f"{gmean(ecl):.4f}; best/ECL-MM = {gmean(bests) / gmean(ecl):.2f}")
    if any(r.get("ecl_mm") for r in records):
        lines += ["", "Against ECL-MM run in this command (device seconds / its "
                  "totalRunTime, median of as many runs):", "",
                  "| graph | ECL-MM s | " + " | ".join(algs) + " |",
                  "|" + "---|" * (len(algs) + 2)]
        for r in (r for r in records if r.get("ecl_mm")):
            e = r["ecl_mm"]["seconds"]
            lines.append(f"| {r['graph']} | {e:.4f} | " + " | ".join(
                f"{r['runs'][a]['device_s'] / e:.2f}" if "device_s" in r["runs"].get(a, {})
                else "-" for a in algs) + " |")
    lines += ["", "End-to-end seconds (validation, upload, device, download; no verify):", "",
              "| graph | " + " | ".join(algs) + " |", "|" + "---|" * (len(algs) + 1)]
    for r in records:
        lines.append(f"| {r['graph']} | " + " | ".join(
            f"{r['runs'][a]['e2e_s']:.3f}" if "e2e_s" in r["runs"].get(a, {}) else "-"
            for a in algs) + " |")
    xs = (1.0, 1.1, 1.3, 1.5, 2.0, 3.0, 5.0, 10.0)
    lines += ["", "Performance profile (fraction of graphs on which a variant is within x of "
              "the best variant, as in Fig. 3 of paper 000):", "",
              "| variant | " + " | ".join(f"x={x:g}" for x in xs) + " |",
              "|" + "---|" * (len(xs) + 1)]
    for a in algs:
        ratios = [r["runs"][a]["device_s"] / r["runs"][r["best"]]["device_s"]
                  if "device_s" in r["runs"].get(a, {}) else float("inf") for r in records]
        lines.append(f"| {a} | " + " | ".join(
            f"{sum(q <= x for q in ratios) / max(len(ratios), 1):.2f}" for x in xs) + " |")
    lines += ["", "Edges per second (best variant, device time):", ""]
    for r in records:
        lines.append(f"- {r['graph']}: {r['edges'] / r['runs'][r['best']]['device_s']:.3e}")
    with open(os.path.join(out, "results.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
