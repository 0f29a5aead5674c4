#!/usr/bin/env python3
"""Small graphs (under 1e5 edges): whole calls against the host libraries, and ``auto``
against every exact family.

For each graph (the files of shared/data/graphs with fewer than ``--max-edges`` entries, read
as patterns, and generated suite graphs: uniform random, Kronecker, Delaunay and grid meshes at
several small sizes, each also with random row/column permutations = RCP):

* ``maximum_matching`` whole call (``verify=True``, the default: from the user's scipy CSR in
  memory to verified numpy answers, programs built beforehand) for ``auto`` and for every
  registered exact family, with its device seconds (``res.device_seconds``), launches and
  read-backs (``res.counters``); ``auto``'s choice and reason (``res.choice``);
* scipy's ``maximum_bipartite_matching`` (Hopcroft-Karp, one core) on the same CSR;
* the host-vs-device crossover: the host family ``host-hk`` (scipy's Hopcroft-Karp with a
  König cover and its check) against the best device family and ``auto`` (which sends graphs
  of at most ``host_edges`` edges to the host and races the host against the device up to
  ``race_edges``), with the graphs' cheap features, and for every edge threshold the worst
  ratio to the best of host and device that a size rule alone would give (``host.md``);
* with ``--race EDGES``: ``auto`` twice, side by side: ``auto`` with the race off
  (``race_edges`` = 0) and ``auto-race`` with the host family raced against the device family
  in the worker process up to EDGES edges (:mod:`pyclmatch.bipartite.race`; the worker is
  started and idle before each graph's auto-race runs, its start-up time is in the header);
* ``louvain`` whole call on the symmetric files against NetworKit's PLM (all host threads)
  when ``networkit`` is importable.

The summary gives, per graph, the medians side by side, the ratio of ``auto`` to the best exact
family (the issue's 1.3x criterion: the fraction of graphs within 1.3x, the worst ratio) and a
performance profile of the families and ``auto`` (whole-call time).

    python3 benchmarks/bench_small.py --device cpu --quick --out /tmp/small-pocl
    python3 benchmarks/bench_small.py --device gpu --out benchmarks/results/small-h100
    python3 benchmarks/bench_small.py --device gpu --quick --race 131072 --out /tmp/race
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

import common
from common import med
import pyclmatch
from pyclmatch import generators

#: the ``auto`` columns (not exact families): ``auto``, and ``auto-race`` with ``--race``
AUTOS = ("auto", "auto-race")


def timed(fn, repeat):
    """(last output, median seconds) of ``repeat`` calls."""
    ts, out = common.times(fn, repeat)
    return out, med(ts)


def shared_graphs(max_edges):
    """(name, csr) of the shared files with at most ``max_edges`` stored entries."""
    return list(common.shared_graphs(max_edges=max_edges))


def generated_graphs(quick):
    sizes = {"uniform": [(1 << 10, 4), (1 << 13, 4), (1 << 14, 3)],
             "kron": [8, 10, 12], "delaunay": [10, 12, 14], "grid": [32, 96, 150]}
    if quick:
        sizes = {"uniform": [(1 << 10, 4), (1 << 13, 4)], "kron": [8, 11],
                 "delaunay": [10, 13], "grid": [32, 100]}
    gs = []
    for n, d in sizes["uniform"]:
        gs.append((f"uniform-{n}-d{d}", generators.uniform(n, d)))
    for s in sizes["kron"]:
        gs.append((f"kron-{s}", generators.kron(s)))
    for s in sizes["delaunay"]:
        gs.append((f"delaunay-{s}", generators.delaunay(s)))
    for s in sizes["grid"]:
        gs.append((f"grid-{s}", generators.grid(s)))
    out = []
    for name, A in gs:
        A = sp.csr_matrix(A)
        out.append((name, A))
        out.append((name + "-rcp", sp.csr_matrix(generators.permuted(A))))
    return out


def race_profile(handle, race_edges):
    """Set ``race_edges`` of ``handle``'s shipped profile (None: leave it as shipped)."""
    from pyclmatch.bipartite import choice
    if race_edges is not None:
        choice.PROFILES[choice.profile_kind(handle)]["race_edges"] = race_edges


def bench_matching(name, A, handle, families, repeat, race=None):
    from scipy.sparse.csgraph import maximum_bipartite_matching
    from pyclmatch.bipartite.choice import features
    from pyclmatch.engine.graphs import as_bipartite
    rec = {"graph": name, "rows": A.shape[0], "cols": A.shape[1], "nnz": int(A.nnz),
           "features": features(as_bipartite(A))}
    ref, rec["scipy_s"] = timed(lambda: maximum_bipartite_matching(A, perm_type="column"),
                                repeat)
    rec["scipy_cardinality"] = int(np.count_nonzero(ref >= 0))
    rec["families"] = {}
    autos = ["auto", "auto-race"] if race else ["auto"]
    for fam in autos + families:
        if fam in AUTOS:   # auto with the race off, or on up to `race` edges (--race)
            race_profile(handle, None if race is None else (race if fam == "auto-race" else 0))
        alg = "auto" if fam in AUTOS else fam
        if fam == "auto-race":
            common.worker_idle()
        warm = pyclmatch.maximum_matching(A, algorithm=alg, device=handle)   # builds, verifies
        if warm.cardinality != rec["scipy_cardinality"]:
            raise AssertionError(f"{name} {fam}: {warm.cardinality} != scipy's "
                                 f"{rec['scipy_cardinality']}")
        runs = [pyclmatch.maximum_matching(A, algorithm=alg, device=handle)
                for _ in range(repeat)]
        for x in runs:
            if x.cardinality != rec["scipy_cardinality"] or not x.verified:
                raise AssertionError(f"{name} {fam}: {x.cardinality} != scipy's "
                                     f"{rec['scipy_cardinality']}")
        r = runs[-1]
        rec["families"][fam] = {
            "call_s": med([x.timings["total"] for x in runs]),
            "device_s": med([x.device_seconds for x in runs]),
            "algorithm": r.algorithm, "device": r.device,
            "winners": sorted({x.algorithm for x in runs}),
            "launches": r.counters.get("launches"),
            "readbacks": r.counters.get("readbacks"),
            "choice": getattr(r, "choice", None)}
        if fam == "auto-race":   # per run: the winner, the host's seconds, when it answered
            rec["families"][fam]["races"] = [x.choice.get("race") for x in runs]
    exact = {f: v["call_s"] for f, v in rec["families"].items() if f not in AUTOS}
    best = min(exact, key=exact.get)
    rec["best"] = best
    rec["auto_over_best"] = rec["families"]["auto"]["call_s"] / exact[best]
    return rec


HOST = "host-hk"


def host_vs_device(mrecs):
    """Rows of the crossover table and the size-rule analysis: per graph the host family,
    the best device family, auto; per threshold T (host for edges <= T, auto's device family
    above) the worst ratio to the best of the two and the share within 1.3x."""
    rows = []
    for m in mrecs:
        F = m["families"]
        dev = {f: v["call_s"] for f, v in F.items() if f not in AUTOS + (HOST,)}
        if HOST not in F or not dev:
            continue
        best_dev = min(dev, key=dev.get)
        c = F["auto"].get("choice") or {}
        auto_dev = c.get("algorithm") if c.get("algorithm") in dev else best_dev
        rows.append({"graph": m["graph"], "edges": m["nnz"], "features": m.get("features", {}),
                     "scipy": m["scipy_s"], "host": F[HOST]["call_s"],
                     "best_dev": best_dev, "dev": dev[best_dev], "rule_dev": dev[auto_dev],
                     "auto": F["auto"]["call_s"], "auto_winners": F["auto"].get("winners"),
                     "auto_race": F.get("auto-race", {}).get("call_s"),
                     "race_winners": F.get("auto-race", {}).get("winners"),
                     "race": bool(c.get("race"))})
    rows.sort(key=lambda r: r["edges"])
    sweep = []
    for T in sorted({0} | {r["edges"] for r in rows}):
        ratios = [(r["host"] if r["edges"] <= T else r["rule_dev"]) / min(r["host"], r["dev"])
                  for r in rows]
        if ratios:
            sweep.append({"T": T, "worst": max(ratios),
                          "within_1.3": sum(x <= 1.3 for x in ratios) / len(ratios)})
    return rows, sweep


def write_host(out, meta, mrecs):
    rows, sweep = host_vs_device(mrecs)
    if not rows:
        return
    raced = any(r["auto_race"] is not None for r in rows)
    L = [f"# Host vs device, whole calls: {meta['device']}", "", f"- command: `{meta['command']}`",
         f"- date: {meta['date']}", "- host-hk = scipy's Hopcroft-Karp + König cover + check, "
         "on the host; best device = the fastest device family; auto = the library's choice "
         "(host, device, or a race of both; winners of the timed runs)"]
    head = ("| graph | edges | dispersion | max degree | scipy ms | host-hk ms | best device ms "
            "(family) | auto ms (winners) | raced | auto / best |")
    if raced:
        L.append(f"- auto-race = auto with the host family raced in the worker process up to "
                 f"{meta.get('race_edges')} edges, auto = the same with the race off "
                 f"(worker start-up {meta.get('worker_boot_s')} s, before the first graph)")
        head += " auto-race ms (winners) | auto-race / best | auto-race / auto |"
    L += ["", head, "|" + "---|" * head[1:].count("|")]
    for r in rows:
        f = r["features"]
        best = min(r["host"], r["dev"])
        line = (f"| {r['graph']} | {r['edges']} | {f.get('dispersion')} | "
                f"{f.get('max_degree')} | {r['scipy'] * 1e3:.2f} | {r['host'] * 1e3:.2f} | "
                f"{r['dev'] * 1e3:.2f} ({r['best_dev']}) | {r['auto'] * 1e3:.2f} "
                f"({', '.join(r['auto_winners'] or [])}) | {'yes' if r['race'] else 'no'} | "
                f"{r['auto'] / best:.2f} |")
        if raced:
            line += (f" {r['auto_race'] * 1e3:.2f} ({', '.join(r['race_winners'] or [])}) | "
                     f"{r['auto_race'] / best:.2f} | {r['auto_race'] / r['auto']:.2f} |")
        L.append(line)
    L.append("")
    for key, label in (("auto", "auto"), ("auto_race", "auto-race")):
        if key == "auto_race" and not raced:
            continue
        ratios = [r[key] / min(r["host"], r["dev"]) for r in rows]
        L.append(f"- {label} within 1.3x of the best of host and device on "
                 f"{sum(x <= 1.3 for x in ratios)}/{len(ratios)} graphs, worst "
                 f"{max(ratios):.2f}x; no slower than scipy on "
                 f"{sum(r[key] <= r['scipy'] for r in rows)}/{len(rows)}; under 2 ms on "
                 f"{sum(r[key] < 2e-3 for r in rows if r['scipy'] < 2e-3)}/"
                 f"{sum(r['scipy'] < 2e-3 for r in rows)} of the graphs where scipy takes "
                 f"under 2 ms")
    if raced:
        q = [r["auto_race"] / r["auto"] for r in rows]
        L.append(f"- auto-race / auto: geometric mean "
                 f"{float(np.exp(np.mean(np.log(q)))):.2f}, best {min(q):.2f}, worst "
                 f"{max(q):.2f}")
    L += ["", "A size rule alone (host for edges <= T, auto's device family above), per T:", "",
          "| T (edges) | worst ratio | within 1.3x |", "|---|---|---|"]
    for s in sweep:
        L.append(f"| {s['T']} | {s['worst']:.2f} | {s['within_1.3']:.2f} |")
    best = min(sweep, key=lambda s: (s["worst"], -s["within_1.3"]))
    L += ["", f"- the size threshold with the smallest worst ratio: T = {best['T']} "
          f"(worst {best['worst']:.2f}x, {best['within_1.3']:.0%} within 1.3x)"]
    with open(os.path.join(out, "host.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")
    common.write_json(os.path.join(out, "host.json"),
                      {"meta": meta, "rows": rows, "sweep": sweep})


def time_plm(S, repeat):
    """NetworKit ``PLM(refine=False)`` (all host threads) on the symmetric CSR ``S``: median
    seconds of the call, modularity, threads; None without networkit."""
    try:
        import networkit as nk
    except ImportError:
        return None
    coo = sp.triu(S).tocoo()
    G = nk.graph.Graph(S.shape[0], weighted=False)
    for u, v in zip(coo.row.tolist(), coo.col.tolist()):
        G.addEdge(u, v)
    ts, q = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        part = nk.community.detectCommunities(G, algo=nk.community.PLM(G, refine=False),
                                              inspect=False)
        ts.append(time.perf_counter() - t)
        q = nk.community.Modularity().getQuality(part, G)
    return {"call_s": med(ts), "modularity": float(q), "threads": nk.getMaxNumberOfThreads()}


def bench_louvain(name, A, handle, repeat):
    S = sp.csr_matrix(A)
    if S.shape[0] != S.shape[1] or (S != S.T).nnz:
        return None
    S.setdiag(0)
    S.eliminate_zeros()
    rec = {"graph": name, "vertices": S.shape[0], "edges": int(S.nnz // 2)}
    pyclmatch.louvain(S, device=handle)          # warm-up, verified
    runs = [pyclmatch.louvain(S, device=handle, verify=False) for _ in range(repeat)]
    rec["louvain_s"] = med([r.timings["total"] for r in runs])
    rec["louvain_modularity"] = float(runs[-1].modularity)
    rec["louvain_launches"] = runs[-1].counters.get("launches")
    rec["louvain_readbacks"] = runs[-1].counters.get("readbacks")
    plm = time_plm(S, repeat)
    if plm is not None:
        rec["plm_s"], rec["plm_modularity"] = plm["call_s"], plm["modularity"]
        rec["plm_threads"] = plm["threads"]
    return rec


def one_group_sweep(handle, families, repeat, quick):
    """Whole call and device seconds with and without the one-work-group path
    (``one_group_edges`` = 1e9 vs 0) on generated graphs of growing size: where the crossover
    lies on this device, per graph class."""
    G = generators
    sizes = {"uniform": [1 << k for k in range(8, 17)], "kron": list(range(6, 14)),
             "delaunay": list(range(8, 16)), "grid": [16, 32, 64, 96, 128, 192, 256]}
    if quick:
        sizes = {"uniform": [1 << 8, 1 << 11], "kron": [7, 10], "delaunay": [9, 12],
                 "grid": [24, 64]}
    graphs = [(f"uniform-{n}-d4", G.uniform(n, 4)) for n in sizes["uniform"]]
    graphs += [(f"kron-{s}", G.kron(s)) for s in sizes["kron"]]
    graphs += [(f"delaunay-{s}", G.delaunay(s)) for s in sizes["delaunay"]]
    graphs += [(f"grid-{s}", G.grid(s)) for s in sizes["grid"]]
    graphs += [(n + "-rcp", G.permuted(A)) for n, A in graphs
               if n.startswith(("uniform", "delaunay"))]
    out = []
    for name, A in graphs:
        A = sp.csr_matrix(A)
        for fam in families:
            rec = {"graph": name, "nnz": int(A.nnz), "family": fam}
            for key, og in (("one_group", 10 ** 12), ("grid", 0)):
                pyclmatch.maximum_matching(A, algorithm=fam, device=handle, one_group_edges=og)
                runs = [pyclmatch.maximum_matching(A, algorithm=fam, device=handle,
                                                   one_group_edges=og) for _ in range(repeat)]
                rec[key + "_call_s"] = med([r.timings["total"] for r in runs])
                rec[key + "_device_s"] = med([r.device_seconds for r in runs])
            out.append(rec)
            print(f"{name} {fam} nnz {rec['nnz']}: one group {rec['one_group_call_s'] * 1e3:.2f}"
                  f" ms, grid {rec['grid_call_s'] * 1e3:.2f} ms", file=sys.stderr, flush=True)
    return out


def write_sweep(out, meta, recs):
    os.makedirs(out, exist_ok=True)
    common.write_json(os.path.join(out, "one_group.json"), {"meta": meta, "sweep": recs})
    L = [f"# One work-group vs grid path: {meta['device']}", "", f"- command: `{meta['command']}`",
         "", "| graph | nnz | family | one group call ms | grid call ms | one group device ms"
         " | grid device ms | grid/one group (call) |", "|---|---|---|---|---|---|---|---|"]
    for r in sorted(recs, key=lambda r: (r["family"], r["nnz"])):
        L.append(f"| {r['graph']} | {r['nnz']} | {r['family']} | "
                 f"{r['one_group_call_s'] * 1e3:.2f} | {r['grid_call_s'] * 1e3:.2f} | "
                 f"{r['one_group_device_s'] * 1e3:.2f} | {r['grid_device_s'] * 1e3:.2f} | "
                 f"{r['grid_call_s'] / r['one_group_call_s']:.2f} |")
    with open(os.path.join(out, "one_group.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")


def profile(records, names, xs=(1, 1.1, 1.3, 1.5, 2, 3, 5, 10)):
    rows = {}
    for f in names:
        r = [m["families"][f]["call_s"] / min(v["call_s"] for k, v in m["families"].items()
                                              if k not in AUTOS) for m in records]
        rows[f] = [sum(1 for x in r if x <= t * (1 + 1e-9)) / len(r) for t in xs]
    return list(xs), rows


def write(out, meta, mrecs, lrecs, families):
    os.makedirs(out, exist_ok=True)
    common.write_json(os.path.join(out, "results.json"),
                      {"meta": meta, "matching": mrecs, "louvain": lrecs})
    L = [f"# Small graphs: {meta['device']}", "", f"- date: {meta['date']}",
         f"- command: `{meta['command']}`", f"- host: {meta['host']}",
         f"- medians of {meta['repeat']} runs after a verified warm-up; whole call = from the "
         f"scipy CSR in memory to verified numpy answers (verify=True)", "",
         "## maximum_matching (whole call ms; device ms in parentheses)", "",
         "| graph | nnz | scipy | auto (chose) | " + " | ".join(families)
         + " | best | auto/best | call/scipy |",
         "|" + "---|" * (7 + len(families))]
    shown = ([f for f in families] if not mrecs or "auto-race" not in mrecs[0]["families"]
             else ["auto-race"] + list(families))
    if shown != list(families):     # (auto-race's cell: whole call and the winners)
        L[-2] = L[-2].replace("| auto (chose) | ", "| auto (chose) | auto-race | ")
        L[-1] += "---|"
    for m in mrecs:
        F = m["families"]
        cells = [f"{F[f]['call_s'] * 1e3:.2f} ({F[f]['device_s'] * 1e3:.2f})"
                 if f != "auto-race" else
                 f"{F[f]['call_s'] * 1e3:.2f} ({', '.join(F[f]['winners'])})" for f in shown]
        a = F["auto"]
        L.append(f"| {m['graph']} | {m['nnz']} | {m['scipy_s'] * 1e3:.2f} | "
                 f"{a['call_s'] * 1e3:.2f} ({a['algorithm']}) | " + " | ".join(cells)
                 + f" | {m['best']} | {m['auto_over_best']:.2f} | "
                 f"{a['call_s'] / m['scipy_s']:.2f} |")
    if mrecs:
        ratios = [m["auto_over_best"] for m in mrecs]
        L += ["", f"- auto within 1.3x of the best exact family on "
              f"{sum(r <= 1.3 for r in ratios)}/{len(ratios)} graphs "
              f"({100 * sum(r <= 1.3 for r in ratios) / len(ratios):.0f}%), worst "
              f"{max(ratios):.2f}x", f"- auto's whole call no slower than scipy on "
              f"{sum(m['families']['auto']['call_s'] <= m['scipy_s'] for m in mrecs)}"
              f"/{len(mrecs)} graphs", "",
              "Performance profile (whole call; fraction of graphs within x of the best exact "
              "family):", ""]
        autos = [a for a in AUTOS if a in mrecs[0]["families"]]
        xs, rows = profile(mrecs, autos + families)
        L.append("| family | " + " | ".join(f"x={x}" for x in xs) + " |")
        L.append("|" + "---|" * (len(xs) + 1))
        for f, v in rows.items():
            L.append(f"| {f} | " + " | ".join(f"{y:.2f}" for y in v) + " |")
        L += ["", "auto's reasons:", ""]
        for m in mrecs:
            c = m["families"]["auto"]["choice"] or {}
            L.append(f"- {m['graph']}: {c.get('algorithm')} (rule {c.get('rule')}: "
                     f"{c.get('reason')})")
    if lrecs:
        L += ["", "## louvain (whole call ms) vs NetworKit PLM", "",
              "| graph | edges | louvain | Q | launches | read-backs | PLM | Q(PLM) |",
              "|---|---|---|---|---|---|---|---|"]
        for r in lrecs:
            plm = f"{r['plm_s'] * 1e3:.2f} | {r['plm_modularity']:.4f}" if "plm_s" in r \
                else "- | -"
            L.append(f"| {r['graph']} | {r['edges']} | {r['louvain_s'] * 1e3:.2f} | "
                     f"{r['louvain_modularity']:.4f} | {r['louvain_launches']} | "
                     f"{r['louvain_readbacks']} | {plm} |")
    with open(os.path.join(out, "results.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--max-edges", type=float, default=1e5)
    ap.add_argument("--quick", action="store_true", help="fewer generated graphs")
    ap.add_argument("--families", default=None,
                    help="comma-separated exact families (default: every registered one)")
    ap.add_argument("--no-shared", action="store_true")
    ap.add_argument("--no-louvain", action="store_true")
    ap.add_argument("--one-group-sweep", default=None, metavar="FAMILIES",
                    help="also sweep graph sizes with and without the one-work-group path "
                         "for these comma-separated families (one_group.md)")
    ap.add_argument("--sweep-only", action="store_true")
    ap.add_argument("--race", type=int, default=None, metavar="EDGES",
                    help="measure auto with the race off (race_edges 0) and auto-race with "
                         "race_edges EDGES side by side (host.md)")
    args = ap.parse_args(argv)
    handle = pyclmatch.get_device(args.device)
    families = (args.families.split(",") if args.families
                else list(pyclmatch.bipartite.algorithms()))
    graphs = ([] if args.no_shared else shared_graphs(args.max_edges)) \
        + generated_graphs(args.quick)
    meta = common.run_meta(handle, repeat=args.repeat)
    if args.race is not None:     # the worker up and idle before the first graph
        from pyclmatch.bipartite.race import HostWorker
        common.worker_idle(60)
        meta["race_edges"], meta["worker_boot_s"] = args.race, HostWorker.get().boot_seconds
    if args.one_group_sweep:
        write_sweep(args.out, meta, one_group_sweep(handle, args.one_group_sweep.split(","),
                                                    args.repeat, args.quick))
        if args.sweep_only:
            return
    mrecs, lrecs = [], []
    for name, A in graphs:
        t = time.perf_counter()
        mrecs.append(bench_matching(name, A, handle, families, args.repeat, args.race))
        if not args.no_louvain and not name.startswith(("uniform", "kron", "delaunay",
                                                        "grid")):
            r = bench_louvain(name, A, handle, args.repeat)
            if r:
                lrecs.append(r)
        m = mrecs[-1]
        print(f"{name}: nnz {m['nnz']} scipy {m['scipy_s'] * 1e3:.2f} ms, auto "
              f"{m['families']['auto']['call_s'] * 1e3:.2f} ms "
              f"({m['families']['auto']['algorithm']}), best {m['best']} "
              f"{m['families'][m['best']]['call_s'] * 1e3:.2f} ms "
              f"[{time.perf_counter() - t:.1f} s]", file=sys.stderr, flush=True)
        write(args.out, meta, mrecs, lrecs, families)
    write(args.out, meta, mrecs, lrecs, families)
    write_host(args.out, meta, mrecs)
    print(os.path.join(args.out, "results.md"))


if __name__ == "__main__":
    main()
