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
import os
import platform
import sys
import time

import numpy as np

import common
from common import (fmt, kernel_sum, med, networkit, seconds, table, time_nk,
                    wall_steps)
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
LARGE = {"kron-22": lambda: generators.kron(22),
         "uniform-16M-d4": lambda: generators.uniform(1 << 24, 4)}
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


def med_phases(rows):
    """The median of every step over the dicts ``rows`` (0 where a row lacks the step)."""
    keys = sorted(set().union(*rows)) if rows else []
    return {k: med([r.get(k, 0.0) for r in rows]) for k in keys}


def fmt_phases(ph):
    keys = ("upload", "setup", "match", "download", "result", "total")
    return seconds((k, ph[k]) for k in keys if k in ph)


def error(exc):
    """The record of a failed call (reported, the run goes on)."""
    return {"error": f"{type(exc).__name__}: {exc}"[:300]}


# --- one graph ------------------------------------------------------------------------------

def stage(name, A, args, log):
    """The weighted graph of ``A`` (random weights, seed 0) prepared for the device
    (page-locked copies on GPUs), its row (sizes, build and prepare seconds) and numpy's
    greedy matching where the graph has at most ``--numpy-max-edges`` edges (else None)."""
    t0 = time.perf_counter()
    g = with_random_weights(A, seed=0)
    row = {"graph": name, "n": g.n, "m": g.m, "build_s": time.perf_counter() - t0}
    log(f"{name}: n={g.n} m={g.m}")
    t0 = time.perf_counter()
    g = prepare_graph(g, device=args.device)
    row["prepare_s"] = time.perf_counter() - t0
    ref = None
    if g.m <= args.numpy_max_edges:
        t0 = time.perf_counter()
        ref = greedy_matching(g)
        row["numpy_greedy_s"] = time.perf_counter() - t0
    return g, row, ref


def time_cold(g, alg, args):
    """``--repeat`` whole calls (upload included): the seconds of each, its match step, its
    kernels' sum and its wall-clock steps."""
    e2e, match, kern, phases = [], [], [], []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        r = weighted_matching(g, algorithm=alg, device=args.device, verify=False)
        e2e.append(time.perf_counter() - t0)
        match.append(r.timings["match"])
        kern.append(kernel_sum(r.timings))
        phases.append(wall_steps(r.timings))
    return e2e, match, kern, phases


def time_resident(g, alg, args):
    """Seconds of ``--repeat`` calls with the graph kept on the device (keep_on_device=True:
    no upload; one untimed call puts it there), the device copy released after."""
    def call():
        return weighted_matching(g, algorithm=alg, device=args.device, verify=False,
                                 keep_on_device=True)
    call()
    ts, _ = common.times(call, args.repeat)
    release_device_graph(g)
    return ts


def suitor_record(g, alg, warm, exact, args):
    """One algorithm's record: medians of its cold and resident calls, edge rates, and the
    warm-up's weight, cardinality, verification and counters."""
    e2e, match, kern, phases = time_cold(g, alg, args)
    res_e2e = time_resident(g, alg, args)
    d = {"e2e_s": med(e2e), "e2e_resident_s": med(res_e2e), "match_s": med(match),
         "kernel_s": med(kern), "phases_s": med_phases(phases),
         "weight": warm.weight, "cardinality": warm.cardinality, "equals_greedy": exact,
         "verified": warm.verified or None, "counters": warm.counters}
    for rate, key in (("match", "match_s"), ("e2e", "e2e_s"), ("e2e_resident", "e2e_resident_s")):
        d[f"medges_per_s_{rate}"] = g.m / d[key] / 1e6
    return d


def bench_algorithms(g, row, ref, args, log):
    """Every algorithm of ``--algorithms`` into ``row``. The first one's warm-up is verified
    (no blocking edge: the greedy matching); every other must return the same mates, or
    numpy's where it ran. Returns the first algorithm's mates (None if none ran)."""
    first = None
    for alg in args.algorithms:
        try:
            warm = weighted_matching(g, algorithm=alg, device=args.device,
                                     verify=first is None)
        except Exception as exc:       # report, do not stop the run
            row[alg] = error(exc)
            log(f"  {alg}: {row[alg]['error']}")
            continue
        if first is None:
            first = warm.mate
        exact = bool(np.array_equal(warm.mate, first if ref is None else ref))
        row[alg] = d = suitor_record(g, alg, warm, exact, args)
        log(f"  {alg}: match {d['match_s']:.4f}s e2e {d['e2e_s']:.4f}s "
            f"({d['medges_per_s_match']:.0f} Medges/s) greedy={exact} "
            f"[{fmt_phases(d['phases_s'])}]")
    return first


def sweep(g, args, first):
    """GPU-Suitor's geometry (Paper I, Section 5.3): suitor-nosync's match seconds for every
    lanes per vertex x vertices per group, graph on the device (``mismatch``: a geometry
    whose mates differ from ``first``)."""
    out = {}
    for tpv in (4, 8, 16, 32):
        for vpg in (4, 8, 32):
            ts = []
            for _ in range(1 + args.repeat // 2):
                r = weighted_matching(g, device=args.device, verify=False,
                                      threads_per_vertex=tpv, vertices_per_group=vpg,
                                      keep_on_device=True)
                ts.append(r.timings["match"])
                if first is not None and not np.array_equal(r.mate, first):
                    out["mismatch"] = f"tpv={tpv} vpg={vpg}"
            out[f"tpv{tpv}-vpg{vpg}"] = med(ts[1:] or ts)
    release_device_graph(g)
    return out


def bench_b(g, args, log):
    """b-Suitor with b = ``--b``: a verified warm-up, then ``--repeat`` / 2 timed calls."""
    try:
        warm = b_matching(g, args.b, device=args.device, verify=True)
        ts, ms, phases = [], [], []
        for _ in range(max(1, args.repeat // 2)):
            t0 = time.perf_counter()
            r = b_matching(g, args.b, device=args.device, verify=False)
            ts.append(time.perf_counter() - t0)
            ms.append(r.timings["match"])
            phases.append(wall_steps(r.timings))
    except Exception as exc:
        return error(exc)
    log(f"  b-suitor b={args.b}: match {med(ms):.4f}s e2e {med(ts):.4f}s "
        f"[{fmt_phases(med_phases(phases))}]")
    return {"e2e_s": med(ts), "match_s": med(ms), "phases_s": med_phases(phases),
            "cardinality": warm.cardinality, "weight": warm.weight, "verified": warm.verified,
            "rounds": warm.counters.get("rounds")}


def nk_mate(nk, G, n):
    """The mates of NetworKit's SuitorMatcher on ``G`` (-1: unmatched)."""
    sm = nk.matching.SuitorMatcher(G, False, True)
    sm.run()
    v = np.asarray(sm.getMatching().getVector(), dtype=np.uint64)
    return np.where(v >= n, -1, v).astype(np.int64)


def bench_networkit(g, nk, args, first, row):
    """NetworKit's SuitorMatcher (and BSuitorMatcher with ``--b``) into ``row``; its Suitor
    is the greedy matching too, so its mates are compared with ``first``."""
    try:
        G = nk_graph(nk, g)
        row["networkit_suitor_s"] = time_nk(lambda: nk.matching.SuitorMatcher(G, False, True),
                                            min(3, args.repeat))
        if first is not None:
            row["networkit_suitor_equal"] = bool(np.array_equal(nk_mate(nk, G, g.n), first))
        if args.b:
            row[f"networkit_bsuitor_b{args.b}_s"] = time_nk(
                lambda: nk.matching.BSuitorMatcher(G, args.b), 1)   # seconds each: once
    except Exception as exc:
        row["networkit_error"] = f"{type(exc).__name__}: {exc}"[:300]


def bench_graph(name, A, args, nk, log):
    """One graph's row: every Suitor algorithm, the geometry sweep (``--sweep``), b-Suitor
    (``--b``) and NetworKit where installed."""
    g, row, ref = stage(name, A, args, log)
    first = bench_algorithms(g, row, ref, args, log)
    if args.sweep and "suitor-nosync" in row and "error" not in row["suitor-nosync"]:
        row["sweep_match_s"] = sw = sweep(g, args, first)
        best = min((k for k in sw if k.startswith("tpv")), key=sw.get)
        log(f"  sweep: best {best} {sw[best]:.4f}s")
    if args.b:
        row[f"b-suitor-b{args.b}"] = bench_b(g, args, log)
    if nk is not None:
        bench_networkit(g, nk, args, first, row)
    return row


# --- stable marriage ------------------------------------------------------------------------

def bench_marriage(kind, n, args, log):
    """McVitie-Wilson and Gale-Shapley rounds on one easy or hard instance of ``n`` men,
    staged once; checked for stability up to ``--sm-verify-max`` entries and against
    Python's Gale-Shapley up to ``--sm-seq-max``."""
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
                f"[{seconds(row[alg]['phases_s'].items())}]")
        except Exception as exc:
            row[alg] = error(exc)
            log(f"  {alg}: {row[alg]['error']}")
    return row



# --- results.md -----------------------------------------------------------------------------

def _ratio(ref, t):
    return f"{ref / t:.1f}x" if ref and t else "-"


def intro(meta, args):
    """The title and the notes on what the columns measure."""
    return [f"# Suitor family benchmark ({meta['device']})", "",
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


SUITOR_COLUMNS = ["Suitor e2e s (cold / resident)",
                  "Suitor Medges/s (match / e2e cold / e2e resident)", "Suitor vs numpy (e2e)",
                  "exact", "NetworKit Suitor s", "vs NK (measured)", "vs NK anchor (H100 host)"]


def suitor_cells(r, algs):
    """One graph's cells of the Suitor table (suitor-nosync's rates and peers)."""
    s = r.get("suitor-nosync", {})
    cells = [r["graph"], str(r["n"]), str(r["m"]), fmt(r.get("numpy_greedy_s"), 3)]
    cells += [fmt(r.get(a, {}).get("match_s")) for a in algs]
    if "match_s" not in s:
        rate = e2es = "-"
    else:
        rate = (f"{s['medges_per_s_match']:.0f} / {s['medges_per_s_e2e']:.0f} / "
                f"{s['medges_per_s_e2e_resident']:.0f}")
        e2es = f"{s['e2e_s']:.4f} / {s['e2e_resident_s']:.4f}"
    exact = all(r.get(a, {}).get("equals_greedy") in (True, None) for a in algs) and \
        r.get("networkit_suitor_equal", True)
    nk = r.get("networkit_suitor_s")
    vs = f"{nk / s['e2e_s']:.1f}x (cold)" if nk and "e2e_s" in s else "-"
    anc = NK_SUITOR_ANCHOR.get(r["graph"])
    va = f"{anc / s['e2e_s']:.1f}x (e2e cold), {anc / s['match_s']:.1f}x (match)" \
        if anc and "e2e_s" in s else "-"
    return cells + [e2es, rate, _ratio(r.get("numpy_greedy_s"), s.get("e2e_s")),
                    "yes" if exact else "NO", fmt(nk, 3), vs, va]


def suitor_table(rows, algs):
    header = ["graph", "n", "m", "numpy greedy s"] + [f"{a} match s" for a in algs]
    return table(header + SUITOR_COLUMNS, [suitor_cells(r, algs) for r in rows])


def b_table(rows, b):
    """b-Suitor beside NetworKit's BSuitorMatcher (measured, and the anchor for b = 3)."""
    cells = []
    for r in rows:
        d = r.get(f"b-suitor-b{b}", {})
        anc = NK_BSUITOR3_ANCHOR.get(r["graph"]) if b == 3 else None
        cells.append([r["graph"], fmt(d.get("match_s")), fmt(d.get("e2e_s")),
                      d.get("rounds", "-"), fmt(r.get(f"networkit_bsuitor_b{b}_s"), 3),
                      fmt(anc, 2), _ratio(anc, d.get("e2e_s"))])
    return ["", f"## b-Suitor, b = {b}", ""] + table(
        ["graph", "match s", "e2e s", "rounds", "NetworKit BSuitor s", "NK anchor s",
         "vs anchor (e2e)"], cells)


def steps_table(rows, args):
    """The wall-clock steps of the first algorithm's and b-Suitor's cold calls."""
    steps = ("prepare", "upload", "setup", "build", "match", "download", "result", "total")
    cells = []
    for r in rows:
        calls = [(a, r.get(a, {})) for a in args.algorithms[:1]]
        if args.b:
            calls.append((f"b-suitor b={args.b}", r.get(f"b-suitor-b{args.b}", {})))
        cells += [[r["graph"], name] + [fmt(d["phases_s"].get(k)) for k in steps]
                  for name, d in calls if d.get("phases_s")]
    return ["", "## Where a cold call goes (wall-clock steps of `timings`, medians, s)",
            ""] + table(["graph", "call", *steps], cells)


def sweep_table(rows):
    """The geometry sweep's match seconds and the best geometry of each swept graph."""
    swept = [r for r in rows if r.get("sweep_match_s")]
    if not swept:
        return []
    keys = [k for k in swept[0]["sweep_match_s"] if k.startswith("tpv")]
    cells = []
    for r in swept:
        sw = r["sweep_match_s"]
        best = min(keys, key=lambda k: sw.get(k, float("inf")))
        if "mismatch" in sw:
            best += f" (MISMATCH {sw['mismatch']})"
        cells.append([r["graph"]] + [fmt(sw.get(k)) for k in keys] + [best])
    return ["", "## GPU-Suitor geometry sweep (suitor-nosync match s; threads_per_vertex x "
            "vertices_per_group, work_group_size default)", ""] + table(
        ["graph", *keys, "best"], cells)


def marriage_table(sm_rows):
    """Stable marriage: both algorithms on every instance, with its generation and staging."""
    cells = []
    for r in sm_rows:
        mw, gs = r.get("mcvitie-wilson", {}), r.get("gale-shapley", {})
        ex = all(d.get("equals_sequential") in (True, None) for d in (mw, gs))
        cells.append([r["instance"], r["n"], r["entries"], fmt(r["generate_s"], 2),
                      fmt(r.get("stage_s"), 2), fmt(r.get("python_gale_shapley_s"), 2),
                      fmt(mw.get("match_s")), fmt((mw.get("phases_s") or {}).get("upload")),
                      fmt(mw.get("e2e_s")), fmt(gs.get("match_s")), fmt(gs.get("e2e_s")),
                      mw.get("married", "-"), "yes" if ex else "NO"])
    return ["", "## Stable marriage (Paper IV instances)", "",
            "e2e = one `stable_marriage(inst, verify=False)` call, programs built, on an "
            "instance staged in page-locked memory (`inst.stage(device)`, once: stage s); "
            "upload = its upload step.", ""] + table(
        ["instance", "n", "entries", "generate s", "stage s", "python GS s",
         "McVitie-Wilson match s", "MW upload s", "MW e2e s", "Gale-Shapley match s",
         "GS e2e s", "married", "exact"], cells)


def markdown(meta, rows, sm_rows, args):
    L = intro(meta, args) + suitor_table(rows, args.algorithms)
    if args.b:
        L += b_table(rows, args.b)
    L += steps_table(rows, args) + sweep_table(rows)
    if sm_rows:
        L += marriage_table(sm_rows)
    return "\n".join(L) + "\n"


# --- the run --------------------------------------------------------------------------------

def parse_args(argv):
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
    return args


def fill_defaults(args, gpu):
    """The defaults that depend on --quick and on the device kind (GPUs: larger runs)."""
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


def graphs(args):
    """(name, matrix) of the chosen suite, the --large graphs and the shared Matrix Market
    files (self-loops dropped), each made when its turn comes."""
    yield from ([] if args.suite == "none" else generators.suite(size=args.suite))
    if args.large:
        for name, make in LARGE.items():
            yield name, make()
    if not args.no_mtx:
        for f in (MTX[:2] if args.quick else MTX):
            path = common.shared_path(f) or f
            if os.path.exists(path):
                A = pyclmatch.read_graph(path)
                A.setdiag(0)
                A.eliminate_zeros()
                yield f, A


def marriages(args):
    """(kind, n) of the stable marriage instances, easy ones first."""
    return [(kind, int(x)) for kind, ns in (("easy", args.sm_easy), ("hard", args.sm_hard))
            for x in ns.split(",") if x]


class Results:
    """The rows measured so far, with the run's header; :meth:`save` writes results.json and
    results.md after every graph or instance, so a run cut short keeps what it measured."""

    def __init__(self, args, handle, nk):
        self.args, self.t_start = args, time.perf_counter()
        self.rows, self.sm_rows = [], []
        self.meta = {
            "device": handle.label, "device_type": handle.type, "date": common.now(),
            "command": " ".join([os.path.basename(sys.executable)] + sys.argv),
            "host": f"{platform.node()} {platform.processor() or platform.machine()} "
                    f"{os.cpu_count()} cores",
            "pyclmatch": pyclmatch.__version__,
            "networkit": getattr(nk, "__version__", None) if nk else None,
            "networkit_anchors_s": {"SuitorMatcher": NK_SUITOR_ANCHOR,
                                    "BSuitorMatcher_b3": NK_BSUITOR3_ANCHOR}}

    def log(self, msg):
        print(f"[{time.perf_counter() - self.t_start:7.1f}s] {msg}", flush=True)

    def save(self):
        out = self.args.out
        self.meta["total_s"] = time.perf_counter() - self.t_start
        common.write_json(os.path.join(out, "results.json"),
                          {"meta": self.meta, "graphs": self.rows,
                           "stable_marriage": self.sm_rows},
                          default=lambda o: o.item() if hasattr(o, "item") else str(o))
        with open(os.path.join(out, "results.md"), "w") as fh:
            fh.write(markdown(self.meta, self.rows, self.sm_rows, self.args))


def main(argv=None):
    args = parse_args(argv)
    handle = pyclmatch.get_device(args.device)
    fill_defaults(args, gpu=not handle.is_cpu)
    nk = networkit()
    os.makedirs(args.out, exist_ok=True)
    res = Results(args, handle, nk)
    for name, A in graphs(args):
        res.rows.append(bench_graph(name, A, args, nk, res.log))
        res.save()
    for kind, n in marriages(args):
        res.sm_rows.append(bench_marriage(kind, n, args, res.log))
        res.save()
    res.log(f"wrote {args.out}/results.json and results.md")


if __name__ == "__main__":
    main()
