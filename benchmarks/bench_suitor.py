#!/usr/bin/env python3
"""Suitor family benchmark: pyclmatch Suitor (4 variants), b-Suitor and LD side by side with a
vectorized numpy greedy and, where installed, NetworKit's SuitorMatcher / BSuitorMatcher, plus
stable marriage (McVitie-Wilson, Gale-Shapley rounds) on Paper IV's easy and hard instances.

Graphs: the reference suite (pyclmatch.generators = shared/tools/graphgen.py: R-MAT/Kronecker,
uniform random, Delaunay and grid meshes), symmetrized, random weights in [0, 1) with seed 0
(``pyclmatch.weighted.with_random_weights``), optionally larger Kronecker/uniform graphs (about
5e7-1e8 edges) and the shared Matrix Market files (their patterns, weighted the same way).

Accounting: ``match_s`` = the device phase of one ``weighted_matching`` call (after upload and
setup, programs built: Suitor iterations, mates, finished queue); ``e2e_s`` = the whole call on
a prepared graph (``prepare_graph(g, device=...)``: upload from the page-locked copies it
staged on a GPU, setup = edge tails on the device, device phase, download; verify=False),
``prepare_s`` = the one-time host validation and staging. ``phases_s`` holds the
median of every wall-clock step of the call's ``timings`` (prepare, upload, setup, build,
match, download, result, total) so that host work shows apart from the device phase. The
result's weight is summed on first access, outside the timed call. The first (warm-up) run of
each algorithm builds the programs and is verified against the greedy matching. Edge rates use
the undirected m.
NetworKit times are ``run()`` only on a graph built beforehand, all host cores.

    python benchmarks/bench_suitor.py --device gpu --out benchmarks/results/suitor-h100
    python benchmarks/bench_suitor.py --device cpu --quick --out benchmarks/results/suitor-pocl-quick
"""
import argparse
import datetime
import json
import os
import platform
import sys
import time

import numpy as np

import common
from common import med, networkit, time_nk
import pyclmatch
from pyclmatch import generators
from pyclmatch.weighted import (b_matching, easy_instance, gale_shapley_sequential,
                                greedy_matching, hard_instance, prepare_graph,
                                release_device_graph, stable_marriage, weighted_matching,
                                with_random_weights)

#: NetworKit 11.2.2 on the H100 host's 16 cores (issue 4's anchors), seconds
NK_SUITOR_ANCHOR = {"delaunay-21": 1.03, "grid-2048": 0.40, "uniform-4M-d4": 2.27,
                    "kron-21": 0.67}
NK_BSUITOR3_ANCHOR = {"delaunay-21": 5.4, "grid-2048": 6.5, "uniform-4M-d4": 12.1,
                      "kron-21": 6.7}
LARGE = {"kron-22": lambda: generators.kron(22), "uniform-16M-d4": lambda: generators.uniform(1 << 24, 4)}
MTX = ("bcsstk13.mtx", "delaunay_n16.mtx", "bayer10.mtx", "rajat01.mtx")
SUITOR_ALGS = ("suitor-nosync", "suitor-synclb", "suitor-syncnolb", "suitor-hybrid", "ld")


def nk_graph(nk, g):
    """The undirected weighted NetworKit graph of ``g`` (each edge once), from COO arrays."""
    u, v = g.src, g.indices
    keep = u < v
    G = common.nk_graph(nk, g.n, u[keep], v[keep], g.w64[keep])
    if G.numberOfEdges() != int(keep.sum()):
        raise RuntimeError("NetworKit graph has the wrong edge count")
    return G


def wall_phases(timings):
    """The wall-clock steps of a result's timings (device ``kernel:*`` entries left out)."""
    return {k: v for k, v in timings.items() if not k.startswith("kernel:")}


def med_phases(rows):
    keys = sorted(set().union(*rows)) if rows else []
    return {k: med([r.get(k, 0.0) for r in rows]) for k in keys}


def fmt_phases(ph):
    keys = ("upload", "setup", "match", "download", "result", "total")
    return " ".join(f"{k} {ph[k]:.4f}" for k in keys if k in ph)


def bench_graph(name, A, args, nk, log):
    t0 = time.perf_counter()
    g = with_random_weights(A, seed=0)
    row = {"graph": name, "n": g.n, "m": g.m, "build_s": time.perf_counter() - t0}
    log(f"{name}: n={g.n} m={g.m}")
    t0 = time.perf_counter()
    g = prepare_graph(g, device=args.device)   # pinned copies on GPUs
    row["prepare_s"] = time.perf_counter() - t0
    ref = None
    if g.m <= args.numpy_max_edges:
        t0 = time.perf_counter()
        ref = greedy_matching(g)
        row["numpy_greedy_s"] = time.perf_counter() - t0
    algs = args.algorithms
    first = None
    for alg in algs:
        try:
            # the first algorithm's warm-up is verified (no blocking edge = the greedy
            # matching); the others must return exactly the same mates
            warm = weighted_matching(g, algorithm=alg, device=args.device,
                                     verify=first is None)
        except Exception as exc:       # report, do not stop the run
            row[alg] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            log(f"  {alg}: {row[alg]['error']}")
            continue
        if first is None:
            first = warm.mate
        exact = bool(np.array_equal(warm.mate, first if ref is None else ref))
        e2e, match, kern, phases = [], [], [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            r = weighted_matching(g, algorithm=alg, device=args.device, verify=False)
            e2e.append(time.perf_counter() - t0)
            match.append(r.timings["match"])
            kern.append(sum(v for k, v in r.timings.items() if k.startswith("kernel:")))
            phases.append(wall_phases(r.timings))
        # the same with the graph kept on the device (keep_on_device=True): no upload
        weighted_matching(g, algorithm=alg, device=args.device, verify=False,
                          keep_on_device=True)
        res_e2e = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            weighted_matching(g, algorithm=alg, device=args.device, verify=False,
                              keep_on_device=True)
            res_e2e.append(time.perf_counter() - t0)
        release_device_graph(g)
        d = {"e2e_s": med(e2e), "e2e_resident_s": med(res_e2e), "match_s": med(match),
             "kernel_s": med(kern), "phases_s": med_phases(phases),
             "weight": warm.weight, "cardinality": warm.cardinality, "equals_greedy": exact,
             "verified": warm.verified or None, "counters": warm.counters}
        d["medges_per_s_match"] = g.m / d["match_s"] / 1e6
        d["medges_per_s_e2e"] = g.m / d["e2e_s"] / 1e6
        d["medges_per_s_e2e_resident"] = g.m / d["e2e_resident_s"] / 1e6
        row[alg] = d
        log(f"  {alg}: match {d['match_s']:.4f}s e2e {d['e2e_s']:.4f}s "
            f"({d['medges_per_s_match']:.0f} Medges/s) greedy={exact} "
            f"[{fmt_phases(d['phases_s'])}]")
    if args.sweep and "suitor-nosync" in row and "error" not in row["suitor-nosync"]:
        # GPU-Suitor geometry (Paper I, Section 5.3): lanes per vertex x vertices per group
        sweep = {}
        for tpv in (4, 8, 16, 32):
            for vpg in (4, 8, 32):
                ts = []
                for _ in range(1 + args.repeat // 2):
                    r = weighted_matching(g, device=args.device, verify=False,
                                          threads_per_vertex=tpv, vertices_per_group=vpg,
                                          keep_on_device=True)
                    ts.append(r.timings["match"])
                    if first is not None and not np.array_equal(r.mate, first):
                        sweep["mismatch"] = f"tpv={tpv} vpg={vpg}"
                sweep[f"tpv{tpv}-vpg{vpg}"] = med(ts[1:] or ts)
        release_device_graph(g)
        row["sweep_match_s"] = sweep
        best = min((k for k in sweep if k.startswith("tpv")), key=sweep.get)
        log(f"  sweep: best {best} {sweep[best]:.4f}s")
    if args.b:
        try:
            warm = b_matching(g, args.b, device=args.device, verify=True)
            ts, ms, phases = [], [], []
            for _ in range(max(1, args.repeat // 2)):
                t0 = time.perf_counter()
                r = b_matching(g, args.b, device=args.device, verify=False)
                ts.append(time.perf_counter() - t0)
                ms.append(r.timings["match"])
                phases.append(wall_phases(r.timings))
            row[f"b-suitor-b{args.b}"] = {"e2e_s": med(ts), "match_s": med(ms),
                                          "phases_s": med_phases(phases),
                                          "cardinality": warm.cardinality,
                                          "weight": warm.weight, "verified": warm.verified,
                                          "rounds": warm.counters.get("rounds")}
            log(f"  b-suitor b={args.b}: match {med(ms):.4f}s e2e {med(ts):.4f}s "
                f"[{fmt_phases(med_phases(phases))}]")
        except Exception as exc:
            row[f"b-suitor-b{args.b}"] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    if nk is not None:
        try:
            G = nk_graph(nk, g)
            row["networkit_suitor_s"] = time_nk(lambda: nk.matching.SuitorMatcher(G, False, True),
                                                min(3, args.repeat))
            if first is not None:       # NetworKit's Suitor is the greedy matching too
                sm = nk.matching.SuitorMatcher(G, False, True)
                sm.run()
                v = np.asarray(sm.getMatching().getVector(), dtype=np.uint64)
                nk_mate = np.where(v >= g.n, -1, v).astype(np.int64)
                row["networkit_suitor_equal"] = bool(np.array_equal(nk_mate, first))
            if args.b:
                row[f"networkit_bsuitor_b{args.b}_s"] = time_nk(
                    lambda: nk.matching.BSuitorMatcher(G, args.b), 1)   # seconds each: once
        except Exception as exc:
            row["networkit_error"] = f"{type(exc).__name__}: {exc}"[:300]
    return row


def bench_marriage(kind, n, args, log):
    t0 = time.perf_counter()
    inst = easy_instance(n, seed=0) if kind == "easy" else hard_instance(n, seed=0)
    row = {"instance": kind, "n": n, "entries": inst.entries,
           "generate_s": time.perf_counter() - t0}
    log(f"stable marriage {kind} n={n} entries={inst.entries}")
    t0 = time.perf_counter()
    inst.stage(args.device)           # page-locked copies on GPUs (as prepare_graph)
    row["stage_s"] = time.perf_counter() - t0
    wife = None
    verify = inst.entries <= args.sm_verify_max
    if inst.entries <= args.sm_seq_max:
        t0 = time.perf_counter()
        wife, _ = gale_shapley_sequential(inst)
        row["python_gale_shapley_s"] = time.perf_counter() - t0
    for alg in ("mcvitie-wilson", "gale-shapley"):
        try:
            warm = stable_marriage(inst, algorithm=alg, device=args.device, verify=verify)
            if wife is None and not verify:
                wife = warm.wife          # then Gale-Shapley must agree with McVitie-Wilson
            e2e, match, phases = [], [], {}
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                r = stable_marriage(inst, algorithm=alg, device=args.device, verify=False)
                e2e.append(time.perf_counter() - t0)
                match.append(r.timings["match"])
                for k, v in r.timings.items():
                    phases.setdefault(k, []).append(v)
            row[alg] = {"e2e_s": med(e2e), "match_s": med(match), "married": warm.size,
                        "phases_s": {k: med(v) for k, v in phases.items()},
                        "verified": warm.verified,
                        "equals_sequential": None if wife is None else
                        bool(np.array_equal(warm.wife, wife)),
                        "counters": warm.counters}
            log(f"  {alg}: match {med(match):.4f}s e2e {med(e2e):.4f}s married {warm.size} "
                f"[" + " ".join(f"{k} {v:.4f}" for k, v in row[alg]["phases_s"].items()) + "]")
        except Exception as exc:
            row[alg] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
            log(f"  {alg}: {row[alg]['error']}")
    return row


def _ratio(ref, t):
    return f"{ref / t:.1f}x" if ref and t else "-"


def fmt(x, p=4):
    return "-" if x is None else (f"{x:.{p}f}" if isinstance(x, float) else str(x))


def markdown(meta, rows, sm_rows, args):
    L = [f"# Suitor family benchmark ({meta['device']})", "",
         f"- date: {meta['date']}", f"- command: `{meta['command']}`",
         f"- host: {meta['host']}; pyclmatch {meta['pyclmatch']}; NetworKit: "
         f"{meta['networkit'] or 'not installed'}",
         "- match_s: device phase after upload and setup (programs built); e2e cold: whole "
         "call on a prepared graph (upload + setup + match + download, verify off); e2e "
         "resident: the same "
         "with the graph kept on the device (keep_on_device=True, no upload); medians of "
         f"{args.repeat} runs; Medges/s on the undirected edge count",
         "- exact: every algorithm returned the greedy matching (numpy reference, or the "
         "verified first algorithm), and NetworKit's SuitorMatcher the same mates", ""]
    algs = args.algorithms
    L.append("| graph | n | m | numpy greedy s | " + " | ".join(f"{a} match s" for a in algs)
             + " | Suitor e2e s (cold / resident) | Suitor Medges/s (match / e2e cold / e2e resident) | Suitor vs numpy (e2e) | exact | NetworKit Suitor s | "
               "vs NK (measured) | vs NK anchor (H100 host) |")
    L.append("|" + "---|" * (11 + len(algs)))
    for r in rows:
        s = r.get("suitor-nosync", {})
        cells = [r["graph"], str(r["n"]), str(r["m"]), fmt(r.get("numpy_greedy_s"), 3)]
        cells += [fmt(r.get(a, {}).get("match_s")) for a in algs]
        rate = (f"{s['medges_per_s_match']:.0f} / {s['medges_per_s_e2e']:.0f} / "
                f"{s['medges_per_s_e2e_resident']:.0f}" if "match_s" in s else "-")
        e2es = (f"{s['e2e_s']:.4f} / {s['e2e_resident_s']:.4f}" if "match_s" in s else "-")
        exact = all(r.get(a, {}).get("equals_greedy") in (True, None) for a in algs) and \
            r.get("networkit_suitor_equal", True)
        nk = r.get("networkit_suitor_s")
        vs = f"{nk / s['e2e_s']:.1f}x (cold)" if nk and "e2e_s" in s else "-"
        anc = NK_SUITOR_ANCHOR.get(r["graph"])
        va = f"{anc / s['e2e_s']:.1f}x (e2e cold), {anc / s['match_s']:.1f}x (match)" \
            if anc and "e2e_s" in s else "-"
        cells += [e2es, rate, _ratio(r.get("numpy_greedy_s"), s.get("e2e_s")),
                  "yes" if exact else "NO", fmt(nk, 3), vs, va]
        L.append("| " + " | ".join(cells) + " |")
    if args.b:
        L += ["", f"## b-Suitor, b = {args.b}", "",
              "| graph | match s | e2e s | rounds | NetworKit BSuitor s | NK anchor s | "
              "vs anchor (e2e) |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            d = r.get(f"b-suitor-b{args.b}", {})
            anc = NK_BSUITOR3_ANCHOR.get(r["graph"]) if args.b == 3 else None
            L.append(f"| {r['graph']} | {fmt(d.get('match_s'))} | {fmt(d.get('e2e_s'))} | "
                     f"{d.get('rounds', '-')} | {fmt(r.get(f'networkit_bsuitor_b{args.b}_s'), 3)} | "
                     f"{fmt(anc, 2)} | {_ratio(anc, d.get('e2e_s'))} |")
    steps = ("prepare", "upload", "setup", "build", "match", "download", "result", "total")
    L += ["", "## Where a cold call goes (wall-clock steps of `timings`, medians, s)", "",
          "| graph | call | " + " | ".join(steps) + " |", "|" + "---|" * (len(steps) + 2)]
    for r in rows:
        calls = [(a, r.get(a, {})) for a in algs[:1]]
        if args.b:
            calls.append((f"b-suitor b={args.b}", r.get(f"b-suitor-b{args.b}", {})))
        for name, d in calls:
            ph = d.get("phases_s")
            if ph:
                L.append(f"| {r['graph']} | {name} | "
                         + " | ".join(fmt(ph.get(k)) for k in steps) + " |")
    swept = [r for r in rows if r.get("sweep_match_s")]
    if swept:
        keys = [k for k in swept[0]["sweep_match_s"] if k.startswith("tpv")]
        L += ["", "## GPU-Suitor geometry sweep (suitor-nosync match s; threads_per_vertex x "
              "vertices_per_group, work_group_size default)", "",
              "| graph | " + " | ".join(keys) + " | best |", "|" + "---|" * (len(keys) + 2)]
        for r in swept:
            sw = r["sweep_match_s"]
            best = min(keys, key=lambda k: sw.get(k, float("inf")))
            L.append(f"| {r['graph']} | " + " | ".join(fmt(sw.get(k)) for k in keys)
                     + f" | {best}{' (MISMATCH ' + sw['mismatch'] + ')' if 'mismatch' in sw else ''} |")
    if sm_rows:
        L += ["", "## Stable marriage (Paper IV instances)", "",
              "e2e = one `stable_marriage(inst, verify=False)` call, programs built, on an "
              "instance staged in page-locked memory (`inst.stage(device)`, once: stage s); "
              "upload = its upload step.", "",
              "| instance | n | entries | generate s | stage s | python GS s | "
              "McVitie-Wilson match s | MW upload s | MW e2e s | Gale-Shapley match s | "
              "GS e2e s | married | exact |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in sm_rows:
            mw, gs = r.get("mcvitie-wilson", {}), r.get("gale-shapley", {})
            ex = all(d.get("equals_sequential") in (True, None) for d in (mw, gs))
            L.append(f"| {r['instance']} | {r['n']} | {r['entries']} | {fmt(r['generate_s'], 2)} "
                     f"| {fmt(r.get('stage_s'), 2)} "
                     f"| {fmt(r.get('python_gale_shapley_s'), 2)} | {fmt(mw.get('match_s'))} | "
                     f"{fmt((mw.get('phases_s') or {}).get('upload'))} | "
                     f"{fmt(mw.get('e2e_s'))} | {fmt(gs.get('match_s'))} | {fmt(gs.get('e2e_s'))} "
                     f"| {mw.get('married', '-')} | {'yes' if ex else 'NO'} |")
    return "\n".join(L) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", required=True, help="output folder (results.json, results.md)")
    ap.add_argument("--quick", action="store_true",
                    help="small suite, few repeats: about a minute on a 2-core PoCL machine")
    ap.add_argument("--suite", default=None, choices=["small", "medium", "reference", "none"])
    ap.add_argument("--large", action="store_true",
                    help="add kron-22 and uniform-16M-d4 (about 5e7-1e8 edges)")
    ap.add_argument("--no-mtx", action="store_true", help="skip the shared Matrix Market files")
    ap.add_argument("--algorithms", default=",".join(SUITOR_ALGS))
    ap.add_argument("--b", type=int, default=3, help="b of the b-Suitor runs (0: none)")
    ap.add_argument("--sweep", action="store_true",
                    help="also time suitor-nosync over threads_per_vertex x vertices_per_group")
    ap.add_argument("--repeat", type=int, default=None)
    ap.add_argument("--numpy-max-edges", type=float, default=4e7)
    ap.add_argument("--sm-easy", default=None, help="comma-separated n of easy instances")
    ap.add_argument("--sm-hard", default=None, help="comma-separated n of hard instances")
    ap.add_argument("--sm-verify-max", type=float, default=2e8,
                    help="largest instance (entries) whose result is checked for stability")
    ap.add_argument("--sm-seq-max", type=float, default=3e7,
                    help="largest instance (entries) checked against Python Gale-Shapley")
    args = ap.parse_args(argv)
    args.algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    handle = pyclmatch.get_device(args.device)
    gpu = not handle.is_cpu
    if args.suite is None:
        args.suite = "medium" if args.quick else ("reference" if gpu else "medium")
    if args.repeat is None:
        args.repeat = 3 if args.quick else 5
    if args.sm_easy is None:
        args.sm_easy = "200000" if args.quick else ("1000000,25000000" if gpu else "1000000")
    if args.sm_hard is None:
        args.sm_hard = "1000" if args.quick else ("5000" if gpu else "2000")
    args.sm_seq_max = int(args.sm_seq_max)
    args.sm_verify_max = int(args.sm_verify_max)
    if args.quick:
        args.sm_seq_max = min(args.sm_seq_max, 4 * 10 ** 6)
    nk = networkit()
    os.makedirs(args.out, exist_ok=True)
    t_start = time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - t_start:7.1f}s] {msg}", flush=True)

    meta = {"device": handle.label, "device_type": handle.type,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "host": f"{platform.node()} {platform.processor() or platform.machine()} "
                    f"{os.cpu_count()} cores",
            "pyclmatch": pyclmatch.__version__,
            "networkit": getattr(nk, "__version__", None) if nk else None,
            "networkit_anchors_s": {"SuitorMatcher": NK_SUITOR_ANCHOR,
                                    "BSuitorMatcher_b3": NK_BSUITOR3_ANCHOR}}
    rows, sm_rows = [], []

    def save():      # after every graph: a run cut short keeps what it measured
        meta["total_s"] = time.perf_counter() - t_start
        with open(os.path.join(args.out, "results.json"), "w") as fh:
            json.dump({"meta": meta, "graphs": rows, "stable_marriage": sm_rows}, fh, indent=1,
                      default=lambda o: o.item() if hasattr(o, "item") else str(o))
        with open(os.path.join(args.out, "results.md"), "w") as fh:
            fh.write(markdown(meta, rows, sm_rows, args))

    for name, A in ([] if args.suite == "none" else generators.suite(size=args.suite)):
        rows.append(bench_graph(name, A, args, nk, log))
        save()
    if args.large:
        for name, make in LARGE.items():
            rows.append(bench_graph(name, make(), args, nk, log))
            save()
    if not args.no_mtx:
        from pyclmatch import read_graph
        for f in (MTX[:2] if args.quick else MTX):
            path = common.shared_path(f) or f
            if os.path.exists(path):
                A = read_graph(path)
                A.setdiag(0)
                A.eliminate_zeros()
                rows.append(bench_graph(f, A, args, nk, log))
                save()
    for n in (int(x) for x in args.sm_easy.split(",") if x):
        sm_rows.append(bench_marriage("easy", n, args, log))
        save()
    for n in (int(x) for x in args.sm_hard.split(",") if x):
        sm_rows.append(bench_marriage("hard", n, args, log))
        save()
    log(f"wrote {args.out}/results.json and results.md")


if __name__ == "__main__":
    main()
