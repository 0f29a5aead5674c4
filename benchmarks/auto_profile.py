#!/usr/bin/env python3
"""``auto`` against every exact family, per device: the issue's 1.3x criterion and a
Dolan-Moré performance profile.

For each graph, side by side in one run: ``pyclmatch.maximum_matching(A, algorithm=X,
device=D)`` with default arguments (from the scipy CSR in memory to the verified answer) for
X = ``"auto"`` and every exact family of ``pyclmatch.bipartite.algorithms()`` (the device
families and ``host-hk``), timed as the whole call (``res.timings["total"]``) and as device
time (``res.device_seconds``), medians of ``--repeat`` runs after a verified warm-up. Every
run is verified (certificates) and its cardinality checked against scipy's or the warm-up's.

Graphs:

* the reference suite of shared/tools/graphgen.py (``pyclmatch.generators.suite``, built as
  benchmarks/bench_bipartite.py builds it), scaled by ``--suite`` (``reference`` on the H100,
  ``small`` or ``medium`` on PoCL), each with and without RCP (random row/column permutation,
  ``generators.permuted``);
* every graph of shared/data/graphs (MANIFEST.tsv lists them), read with
  ``pyclmatch.io.read_graph`` as benchmarks/bench_small.py reads them (symmetric files as
  their adjacency matrix, entries set to ones). A listed file that cannot be read is an error.

A family whose verified warm-up takes longer than ``--slow-seconds`` twice (the first call
on a device also builds programs) is marked ``slow``: its second warm-up is its only
(verified) run. ``host-hk`` is first tried as scipy's Hopcroft-Karp in a
forked child (bench_bipartite.py's child with a timeout): where scipy alone needs longer than
``--slow-seconds``, ``host-hk`` is marked slow without running (its time counts as infinite).
Where the device's profile races (GPUs, CPUs of many cores), ``auto`` races the host family
in a worker process on small graphs
(``pyclmatch.bipartite.race``); before each ``auto`` call the script waits until that worker
is idle (bench_small.py's ``worker_idle``), so each call starts as a user's next call would.

The reference of every ratio is the best exact family on the graph (``auto`` is not one):
``auto/best`` for the whole call and for device time (each against its own best), the share
of graphs with ``auto`` within 1.3x, the worst ratio and its graph, and the performance
profile (fraction of graphs on which a family or ``auto`` is within tau of the best exact
family; ``profile_whole.png``, ``profile_device.png``).

    # H100 (after `source benchmarks/gpu_setup.sh`), two parts (each half of the suite's
    # graphs with their RCP and half of the shared files) and their merge:
    python3 benchmarks/auto_profile.py --device gpu --suite reference --slow-seconds 1 \
        --part 1/2 --out benchmarks/results/auto-profile-h100/part1
    python3 benchmarks/auto_profile.py --device gpu --suite reference --slow-seconds 1 \
        --part 2/2 --out benchmarks/results/auto-profile-h100/part2
    python3 benchmarks/auto_profile.py --merge benchmarks/results/auto-profile-h100/part1,\
benchmarks/results/auto-profile-h100/part2 --out benchmarks/results/auto-profile-h100
    # PoCL (2 cores: small; 16 cores: medium):
    python3 benchmarks/auto_profile.py --device cpu --suite small --slow-seconds 2 \
        --out benchmarks/results/auto-profile-pocl-small
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys
import time

import numpy as np

import common
from common import finish_child, shared_folder, start_scipy, worker_idle
import pyclmatch
from pyclmatch import generators
from pyclmatch.bipartite import choice

AUTO = "auto"
#: the issue's criterion: auto within WITHIN of the best exact family on at least SHARE of
#: the graphs, never worse than NEVER
WITHIN, SHARE, NEVER = 1.3, 0.9, 2.0
METRICS = (("whole", "call_s", "whole call"), ("device", "device_s", "device time"))
TAUS = (1.0, 1.1, 1.3, 1.5, 2.0, 3.0, 5.0, 10.0)


def suite_graphs(size, names=None, rcp="both"):
    """(name, matrix) of the reference suite at ``size``, with and without RCP (``rcp``:
    "both", "yes" or "no"), as bench_bipartite.py builds it."""
    if size == "none":
        return
    yield from generators.suite(names, rcp={"both": "both", "yes": True, "no": False}[rcp],
                                size=size)


def manifest_files(folder):
    """File names listed in ``folder``/MANIFEST.tsv (empty without one)."""
    path = os.path.join(folder, "MANIFEST.tsv")
    if not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        return [row["file"] for row in csv.DictReader(fh, delimiter="\t") if row.get("file")]


def shared_graphs(names=None):
    """(name, csr) of every graph of shared/data/graphs (or of ``names``), read as
    bench_small.py reads them; raises when a file that MANIFEST.tsv lists is missing or
    unreadable (the goal covers every one of them)."""
    folder = shared_folder()
    if folder is None:
        raise SystemExit("shared/data/graphs not found (set PYCLMATCH_SHARED)")
    got = dict(common.shared_graphs())
    listed = manifest_files(folder) or sorted(got)
    missing = [f for f in listed if f not in got]
    if missing:
        raise SystemExit(f"listed in MANIFEST.tsv but not read: {missing}")
    for f in (names if names is not None else listed):
        yield f, got[f]


def split_part(items, part):
    """The ``k``-th of ``n`` round-robin shares of ``items`` for ``part`` = "k/n"."""
    if not part:
        return list(items)
    k, n = (int(x) for x in part.split("/"))
    if not 1 <= k <= n:
        raise SystemExit(f"--part {part}: need 1 <= k <= n")
    return [x for i, x in enumerate(items) if i % n == k - 1]


def races(handle):
    """Whether ``auto`` may race on ``handle`` (its profile's ``race_edges``): the script then
    starts the race worker before the first graph and waits for it before each ``auto``."""
    return choice.device_profile(handle)[0].get("race_edges", 0) > 0


def _call(A, alg, handle, race):
    """One verified whole call with default arguments, summarized (``auto`` on a GPU: after
    the race worker is idle, as a user's next call would find it)."""
    if race and alg == AUTO:
        worker_idle()
    r = pyclmatch.maximum_matching(A, algorithm=alg, device=handle)
    return argparse.Namespace(   # what the record keeps (not the arrays: big graphs x runs)
        total=r.timings["total"], device_seconds=r.device_seconds, algorithm=r.algorithm,
        cardinality=r.cardinality, verified=r.verified, counters=dict(r.counters),
        timings=dict(r.timings), choice=getattr(r, "choice", None))


def measure_graph(name, A, handle, families, repeat=3, slow_seconds=3.0, log=None):
    """One graph's record: per family (and ``auto``) the median whole call and device
    seconds, the best exact family per metric and ``auto``'s ratios to it.

    Every family's verified warm-up first (a family slower than ``slow_seconds`` keeps it as
    its only run), then ``repeat`` rounds that call each remaining family once in turn, so
    that a drift of the machine's load spreads over all families alike."""
    A = A.tocsr() if A.format != "csr" else A
    rec = {"graph": name, "rows": int(A.shape[0]), "cols": int(A.shape[1]),
           "nnz": int(A.nnz), "families": {}}
    t_graph = time.perf_counter()
    job = scipy_res = None
    want_host = "host-hk" in families
    if want_host:        # scipy in a child: host-hk's time predictor and a cardinality check
        job = start_scipy(A)
        if handle.is_cpu:   # a CPU device needs the cores scipy would use
            scipy_res = finish_child(job, slow_seconds)
            job = None
    race = races(handle)
    order = [AUTO] + [f for f in families if f != "host-hk"] + \
        (["host-hk"] if want_host else [])
    runs, slow = {}, {}
    for fam in order:
        if fam == "host-hk":
            if job is not None:
                scipy_res = finish_child(job, slow_seconds)
            rec["scipy_s"], rec["scipy_cardinality"] = scipy_res
            if rec["scipy_cardinality"] is None:
                rec["families"][fam] = {"slow": True, "call_s": None, "device_s": None,
                                        "note": f"scipy > {slow_seconds} s"}
                continue
        try:
            warm = _call(A, fam, handle, race)
        except pyclmatch.PyclmatchError as exc:   # reported; the other families still run
            rec["families"][fam] = {"error": f"{type(exc).__name__}: {exc}"[:300],
                                    "call_s": None, "device_s": None}
            continue
        if warm.total > slow_seconds:   # (a first call also builds programs: once more)
            warm = _call(A, fam, handle, race)
        slow[fam] = warm.total > slow_seconds
        runs[fam] = [warm] if slow[fam] else []
    timed = [f for f in runs if not slow[f]]
    for _ in range(repeat):
        for fam in timed:
            runs[fam].append(_call(A, fam, handle, race))
    card = rec.get("scipy_cardinality")
    for fam, rs in runs.items():
        for x in rs:
            card = x.cardinality if card is None else card
            if not x.verified or x.cardinality != card:
                raise AssertionError(f"{name} {fam}: cardinality {x.cardinality} "
                                     f"(verified {x.verified}), expected {card}")
        e = {"call_s": statistics.median([x.total for x in rs]),
             "device_s": statistics.median([x.device_seconds for x in rs]),
             "call_s_all": [x.total for x in rs],
             "device_s_all": [x.device_seconds for x in rs],
             "slow": slow[fam], "algorithm": rs[-1].algorithm,
             "winners": sorted({x.algorithm for x in rs}),
             "launches": rs[-1].counters.get("launches"),
             "readbacks": rs[-1].counters.get("readbacks"),
             "timings": rs[-1].timings}
        if fam == AUTO:
            c = rs[-1].choice or {}
            e["rule"], e["reason"] = c.get("rule"), c.get("reason")
            e["chose"] = c.get("algorithm")
            e["races"] = [(x.choice or {}).get("race") for x in rs]
        rec["families"][fam] = e
    rec["families"] = {f: rec["families"][f] for f in order if f in rec["families"]}
    rec["cardinality"] = card
    F = rec["families"]
    for key, field, _ in METRICS:
        exact = {f: v[field] for f, v in F.items() if f != AUTO and v.get(field)}
        best = min(exact, key=exact.get) if exact else None
        rec["best_" + key] = best
        a = F.get(AUTO, {}).get(field)
        rec["auto_over_best_" + key] = a / exact[best] if best and a else None
    rec["seconds"] = time.perf_counter() - t_graph
    if log:
        a = F.get(AUTO, {})
        log(f"{name}: nnz {rec['nnz']} auto {a.get('call_s') or 0:.4f} s "
            f"({a.get('algorithm')}), best {rec['best_whole']}; auto/best whole "
            f"{rec['auto_over_best_whole'] or float('nan'):.2f}, device "
            f"{rec['auto_over_best_device'] or float('nan'):.2f} [{rec['seconds']:.1f} s]")
    return rec


def ratios(records, field, name):
    """Per graph: ``name``'s time over the best exact family's (inf where it has none)."""
    out = []
    for r in records:
        F = r["families"]
        best = min((v[field] for f, v in F.items() if f != AUTO and v.get(field)),
                   default=None)
        t = F.get(name, {}).get(field)
        out.append(t / best if t and best else math.inf)
    return out


def summarize(records):
    """The criterion per metric: graphs, share of graphs with auto within 1.3x of the best
    exact family, the worst ratio and its graph, graphs above 2x, geometric mean, and
    whether the goal holds (share >= 0.9, worst <= 2)."""
    out = {}
    for key, field, _ in METRICS:
        q = ratios(records, field, AUTO)
        if not q:
            out[key] = {"graphs": 0}
            continue
        worst = int(np.argmax(q))
        fin = [x for x in q if math.isfinite(x)]
        share = sum(x <= WITHIN for x in q) / len(q)
        out[key] = {"graphs": len(q), "within_1.3": sum(x <= WITHIN for x in q),
                    "share_within_1.3": share, "worst": q[worst],
                    "worst_graph": records[worst]["graph"],
                    "over_2x": [records[i]["graph"] for i, x in enumerate(q) if x > NEVER],
                    "gmean": float(np.exp(np.mean(np.log(fin)))) if fin else None,
                    "goal_met": share >= SHARE and q[worst] <= NEVER}
    return out


def names_of(records):
    fams = []
    for r in records:
        for f in r["families"]:
            if f not in fams:
                fams.append(f)
    return [AUTO] + [f for f in fams if f != AUTO] if AUTO in fams else fams


def plot_profile(path, records, field, title):
    """Dolan-Moré performance profile: per family and auto, the fraction of graphs on which
    its time is within tau of the best exact family's, tau on a log axis."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = names_of(records)
    rs = {n: sorted(ratios(records, field, n)) for n in names}
    fin = [x for v in rs.values() for x in v if math.isfinite(x)]
    lo, hi = min(fin + [1.0]), max(fin + [2.0]) * 1.2
    taus = np.geomspace(lo, hi, 400)
    fig, ax = plt.subplots(figsize=(8, 5.5))
    colors = plt.cm.tab20(np.linspace(0, 1, 20))
    for i, n in enumerate(names):
        ys = [sum(x <= t * (1 + 1e-12) for x in rs[n]) / len(rs[n]) for t in taus]
        ax.step(taus, ys, where="post", label=n, lw=2.6 if n == AUTO else 1.2,
                color="black" if n == AUTO else colors[(i - 1) % 20],
                ls="-" if n == AUTO or i % 2 else "--", zorder=3 if n == AUTO else 2)
    ax.axvline(WITHIN, ls=":", color="grey")
    ax.axvline(NEVER, ls="--", color="grey")
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("tau (time / best exact family's time)")
    ax.set_ylabel("fraction of graphs within tau of the best")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, ncol=2, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _ms(v, field):
    if v.get("error"):
        return "err"
    if v.get(field) is None:
        return "slow" if v.get("slow") else "-"
    return f"{v[field] * 1e3:.2f}" + ("*" if v.get("slow") else "")


def write(out, meta, records, plots=True):
    os.makedirs(out, exist_ok=True)
    summary = summarize(records)
    common.write_json(os.path.join(out, "results.json"),
                      {"meta": meta, "summary": summary, "records": records})
    names = names_of(records)
    cmds = meta["command"] if isinstance(meta["command"], list) else [meta["command"]]
    L = [f"# auto vs every exact family: {meta['device']}", "", f"- date: {meta['date']}"]
    L += [f"- command: `{c}`" for c in cmds]
    L += [f"- host: {meta['host']}; medians of {meta['repeat']} runs after a verified warm-up;"
          f" whole call = `res.timings['total']` of `maximum_matching(A, algorithm=X)` with "
          f"default arguments (scipy CSR in memory to verified answer), device = "
          f"`res.device_seconds`; * = slow (warm-up over {meta['slow_seconds']} s: one run), "
          f"slow without time = scipy alone over {meta['slow_seconds']} s (host-hk not run)",
          "- the reference of every ratio is the best exact family on the graph (auto is not "
          "one)", "", "## Summary", ""]
    for key, _, label in METRICS:
        s = summary[key]
        if not s.get("graphs"):
            continue
        L.append(f"- {label}: auto within {WITHIN}x of the best exact family on "
                 f"{s['within_1.3']}/{s['graphs']} graphs ({100 * s['share_within_1.3']:.0f}%),"
                 f" worst {s['worst']:.2f}x ({s['worst_graph']}), over {NEVER}x: "
                 f"{', '.join(s['over_2x']) or 'none'}; geometric mean of auto/best "
                 f"{s['gmean']:.2f}; goal ({SHARE:.0%} within {WITHIN}x, never over {NEVER}x) "
                 f"{'met' if s['goal_met'] else 'NOT met'}")
    L += ["", "## Per graph", "",
          "| graph | nnz | auto chose (rule) | auto whole ms | best (whole) | auto/best whole "
          "| auto device ms | best (device) | auto/best device |", "|" + "---|" * 9]
    for r in records:
        a = r["families"].get(AUTO, {})
        w, d = r.get("auto_over_best_whole"), r.get("auto_over_best_device")
        L.append(f"| {r['graph']} | {r['nnz']} | {', '.join(a.get('winners') or [])} "
                 f"({a.get('rule')}) | {_ms(a, 'call_s')} | {r['best_whole']} | "
                 f"{w if w is None else f'{w:.2f}'} | {_ms(a, 'device_s')} | "
                 f"{r['best_device']} | {d if d is None else f'{d:.2f}'} |")
    for key, field, label in METRICS:
        L += ["", f"## {label} ms per family", "",
              "| graph | " + " | ".join(names) + " |", "|" + "---|" * (len(names) + 1)]
        for r in records:
            L.append(f"| {r['graph']} | " + " | ".join(
                _ms(r["families"][n], field) if n in r["families"] else "-" for n in names)
                + " |")
        L += ["", f"Performance profile ({label}; fraction of graphs within tau of the best "
              f"exact family; profile_{key}.png):", "",
              "| family | " + " | ".join(f"tau={t:g}" for t in TAUS) + " |",
              "|" + "---|" * (len(TAUS) + 1)]
        for n in names:
            q = ratios(records, field, n)
            L.append(f"| {n} | " + " | ".join(
                f"{sum(x <= t * (1 + 1e-12) for x in q) / len(q):.2f}" for t in TAUS) + " |")
    L += ["", "## auto's reasons", ""]
    for r in records:
        a = r["families"].get(AUTO, {})
        races = [x.get("winner") if isinstance(x, dict) else x for x in a.get("races") or []]
        L.append(f"- {r['graph']}: {a.get('chose')} (rule {a.get('rule')}: {a.get('reason')})"
                 + (f"; race winners {races}" if any(races) else ""))
    with open(os.path.join(out, "results.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")
    if plots and records:
        for key, field, label in METRICS:
            plot_profile(os.path.join(out, f"profile_{key}.png"), records, field,
                         f"{meta['device']}: {label}, {len(records)} graphs")
    return summary


def merge(dirs, out):
    metas, records = [], []
    for d in dirs:
        with open(os.path.join(d, "results.json")) as fh:
            doc = json.load(fh)
        metas.append(doc["meta"])
        records += doc["records"]
    devices = sorted({m["device"] for m in metas})
    if len(devices) > 1:
        raise SystemExit(f"--merge: parts ran on different devices {devices}")
    meta = dict(metas[0])
    meta["command"] = [c for m in metas for c in (m["command"] if isinstance(m["command"], list)
                                                  else [m["command"]])]
    meta["date"] = " / ".join(m["date"] for m in metas)
    meta["parts"] = dirs
    return write(out, meta, records)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None)
    ap.add_argument("--out", required=True)
    ap.add_argument("--suite", default="small",
                    choices=["reference", "large", "medium", "small", "none"])
    ap.add_argument("--graphs", default=None,
                    help="comma-separated subset of the suite's graphs (base names)")
    ap.add_argument("--rcp", default="both", choices=["both", "yes", "no"])
    ap.add_argument("--shared", default="all",
                    help="'all' (every file of shared/data/graphs), 'none', or file names")
    ap.add_argument("--part", default=None, metavar="K/N",
                    help="the K-th of N round-robin shares of the suite graphs (each with its "
                         "RCP) and of the shared files; --merge recombines the parts")
    ap.add_argument("--families", default=None,
                    help="comma-separated exact families (default: every registered one)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--slow-seconds", type=float, default=3.0)
    ap.add_argument("--merge", default=None, metavar="DIR1,DIR2",
                    help="recombine the results.json of parts into --out")
    ap.add_argument("--no-plots", action="store_true")
    args = ap.parse_args(argv)
    if args.merge:
        s = merge(args.merge.split(","), args.out)
        print(json.dumps(s, indent=1))
        return
    handle = pyclmatch.get_device(args.device)
    families = (args.families.split(",") if args.families
                else list(pyclmatch.bipartite.algorithms()))
    unknown = [f for f in families if f not in pyclmatch.bipartite.algorithms()]
    if unknown:
        raise SystemExit(f"unknown families {unknown}")
    table = pyclmatch.generators.SUITES.get(args.suite, {})
    base = split_part(args.graphs.split(",") if args.graphs else list(table), args.part)
    if args.shared == "none":
        shared = []
    else:
        folder = shared_folder()
        listed = (manifest_files(folder) or None) if folder else None
        shared = args.shared.split(",") if args.shared != "all" else listed
        shared = split_part(shared, args.part) if shared is not None else None
    meta = common.run_meta(
        handle, device_type=handle.type, repeat=args.repeat, slow_seconds=args.slow_seconds,
        suite=args.suite, part=args.part, families=families, pyclmatch=pyclmatch.__version__,
        command="python3 " + " ".join(sys.argv if argv is None else
                                      ["benchmarks/auto_profile.py"] + list(argv)))
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    log(f"device: {handle.label}; suite graphs {base}; shared {shared or 'none'}")
    if races(handle):                     # the race worker up and idle before the first graph
        meta["worker_wait_s"] = worker_idle(60)
    records, t0 = [], time.perf_counter()
    sources = [] if not base or args.suite == "none" else [suite_graphs(args.suite, base,
                                                                        args.rcp)]
    if args.shared != "none":
        sources.append(shared_graphs(shared))
    for src in sources:
        for name, A in src:
            records.append(measure_graph(name, A, handle, families, args.repeat,
                                         args.slow_seconds, log))
            write(args.out, meta, records, plots=False)
    meta["seconds"] = time.perf_counter() - t0
    s = write(args.out, meta, records, plots=not args.no_plots)
    log(json.dumps(s, indent=1))
    print(os.path.join(args.out, "results.md"))


if __name__ == "__main__":
    main()
