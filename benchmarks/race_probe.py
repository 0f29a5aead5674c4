#!/usr/bin/env python3
"""Where a raced call's time goes when the host wins (``auto``'s race,
:mod:`pyclmatch.bipartite.race`): per graph, medians over the raced calls of

* ``pre``: from the call to the hand-over of the graph to the worker (device, features, choice,
  the intake's host checks);
* the worker's own seconds (Hopcroft-Karp, cover, check) and when the caller took its answer;
* ``gap``: the longest stretch of the device path without a look at the worker, and where the
  look that ended it came from (the answer waits at most that long);
* ``post``: from the answer taken to the return;

beside scipy's Hopcroft-Karp alone and the host family in the caller's process. With
``--spin S`` the worker keeps polling its pipe S seconds after each reply
(``race.WORKER_SPIN_S``); both settings are measured side by side with ``--spin 0,0.2``.

    python3 benchmarks/race_probe.py --device gpu --spin 0,0.2 --out /tmp/probe
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pyclmatch  # noqa: E402
from pyclmatch import generators, io  # noqa: E402
from pyclmatch.bipartite import api, choice, race  # noqa: E402

GRAPHS = ("rajat01.mtx", "bcsstk13.mtx", "4elt.graph", "delaunay_n15.graph",
          "ca-condmat-cc1.txt.gz")


def graphs(names):
    root = os.environ.get("PYCLMATCH_SHARED", os.path.join(os.path.dirname(__file__), "..",
                                                          "..", "shared"))
    out = []
    for n in names:
        if n.startswith("kron-"):
            A = sp.csr_matrix(generators.kron(int(n.split("-")[1])))
            if n.endswith("-rcp"):
                A = sp.csr_matrix(generators.permuted(A))
            out.append((n, A))
        else:
            out.append((n, sp.csr_matrix(io.read_graph(os.path.join(root, "data", "graphs", n)))))
    return out


def med(xs):
    xs = [x for x in xs if x is not None]
    return float(np.median(xs)) if xs else None


def timed(f, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return med(ts)


class Probe:
    """Time stamps of the hand-over and of every look at the worker."""

    def __init__(self):
        self.looks, self.submitted = [], None
        won, init = race.HostRace.won, race.HostRace.__init__
        probe = self

        def traced_init(self, *a, **k):
            init(self, *a, **k)
            probe.submitted = time.perf_counter()

        def traced_won(self, timeout=0.0):
            f = sys._getframe(1)
            while f is not None and f.f_code.co_filename.endswith("race.py"):
                f = f.f_back
            site = []
            for _ in range(2):
                if f is None:
                    break
                site.append(f"{os.path.basename(f.f_code.co_filename)}:{f.f_code.co_name}:"
                            f"{f.f_lineno}")
                f = f.f_back
            probe.looks.append((time.perf_counter(), " < ".join(site)))
            return won(self, timeout)

        race.HostRace.__init__, race.HostRace.won = traced_init, traced_won


def markdown(meta, rows):
    """The probe's table: per graph and worker setting, medians in ms."""
    out = [f"# Raced host wins, where the time goes: {meta['device']}", "",
           f"- command: `{meta['command']}`", f"- date: {meta['date']}",
           "- ms, medians over the raced calls the host won: pre = call to hand-over; host = "
           "the worker's Hopcroft-Karp + cover + check (phases: augment / certificate / "
           "verify); taken = hand-over to the answer taken; latency = how long the answer "
           "waited; gap = longest stretch of the device path without a look at the worker", "",
           "| graph | nnz | scipy | host-hk in-process | setting | whole raced call | host wins "
           "| pre | host | augment / certificate / verify | taken | latency | gap |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def f(x):
        return "-" if x is None else f"{x:.2f}"
    for r in rows:
        for k, v in r.items():
            if not k.startswith("spin"):
                continue
            ph = v.get("host_phases_ms") or {}
            out.append(f"| {r['graph']} | {r['nnz']} | {f(r['scipy_ms'])} | "
                       f"{f(r['host_hk_ms'])} | {k} | {f(v['total_ms'])} | "
                       f"{v['host_wins']}/{v['calls']} | {f(v['pre_ms'])} | {f(v['host_s_ms'])} | "
                       + " / ".join(f(ph.get(x)) for x in ("augment", "certificate", "verify"))
                       + f" | {f(v['taken_ms'])} | {f(v['latency_ms'])} | {f(v['gap_ms'])} |")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default=None)
    ap.add_argument("--graphs", default=",".join(GRAPHS + ("kron-11", "kron-11-rcp")))
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--spin", default="0")
    ap.add_argument("--pin", action="store_true",
                    help="also measure with this process on CPU 0 and the worker on CPU n/2")
    ap.add_argument("--out", default=None)
    ap.add_argument("--md-from", default=None, help="re-render probe.md from a probe.json")
    args = ap.parse_args()
    if args.md_from:
        d = json.load(open(args.md_from))
        with open(os.path.join(os.path.dirname(args.md_from), "probe.md"), "w") as f:
            f.write(markdown(d["meta"], d["rows"]))
        return
    h = pyclmatch.get_device(args.device)
    choice.PROFILES[choice.profile_kind(h)].update(race_edges=1 << 20,
                                                                   host_edges=0)
    probe = Probe()
    w = race.HostWorker.get()
    w.start()
    while w.state != "idle":
        w.pump(0.05)
    rows = []
    for name, A in graphs(args.graphs.split(",")):
        from scipy.sparse.csgraph import maximum_bipartite_matching
        row = {"graph": name, "nnz": int(A.nnz),
               "scipy_ms": 1e3 * timed(lambda: maximum_bipartite_matching(A, perm_type="column"),
                                       args.repeat)}
        pyclmatch.maximum_matching(A, algorithm="host-hk")
        row["host_hk_ms"] = 1e3 * timed(lambda: pyclmatch.maximum_matching(
            A, algorithm="host-hk"), args.repeat)
        settings = [(float(s), False) for s in args.spin.split(",")]
        if args.pin:
            settings += [(s, True) for s, _ in settings]
        for spin, pin in settings:
            race.WORKER_SPIN_S = spin
            ncpu = os.cpu_count() or 1
            if w.proc is not None:
                os.sched_setaffinity(0, {0} if pin else set(range(ncpu)))
                os.sched_setaffinity(w.proc.pid, {ncpu // 2} if pin else set(range(ncpu)))
            pyclmatch.maximum_matching(A, device=h)        # builds
            recs = []
            for _ in range(args.repeat):
                t_idle = time.perf_counter()
                while not w.available() and time.perf_counter() - t_idle < 30:
                    pass                                   # (spin: no sleep before the call)
                probe.looks.clear()
                t0 = time.perf_counter()
                r = pyclmatch.maximum_matching(A, device=h)
                t1 = time.perf_counter()
                rc = r.choice.get("race", {})
                looks = [(probe.submitted, "hand-over")] + [x for x in probe.looks
                                                             if x[0] >= probe.submitted]
                gaps = [(b[0] - a[0], b[1]) for a, b in zip(looks, looks[1:])]
                gmax = max(gaps) if gaps else (0.0, "")
                taken = rc.get("host_answer_taken_s")
                recs.append({
                    "winner": r.algorithm, "total": t1 - t0, "pre": probe.submitted - t0,
                    "host_s": rc.get("host_seconds"), "taken": taken,
                    "latency": rc.get("host_answer_latency_s"),
                    "post": (t1 - probe.submitted - taken) if taken is not None
                    and r.algorithm == "host-hk" else None,
                    "gap": gmax[0], "gap_site": gmax[1], "looks": len(looks),
                    "phases": rc.get("host_phases_s") or {}})
            hostw = [x for x in recs if x["winner"] == "host-hk"]
            key = f"spin={spin:g}" + (" pinned" if pin else "")
            row[key] = {
                "total_ms": 1e3 * med([x["total"] for x in recs]),
                "host_wins": len(hostw), "calls": len(recs),
                **{f"{k}_ms": (1e3 * med([x[k] for x in hostw]) if hostw and
                               med([x[k] for x in hostw]) is not None else None)
                   for k in ("pre", "host_s", "taken", "latency", "post", "gap")},
                "gap_sites": sorted({x["gap_site"] for x in hostw}),
                "host_phases_ms": {k: 1e3 * med([x["phases"].get(k) for x in hostw])
                                   for k in sorted({k for x in hostw for k in x["phases"]})},
                "looks": med([x["looks"] for x in recs])}
        rows.append(row)
        print(json.dumps(row), flush=True)
    meta = {"device": h.label, "command": "python3 " + " ".join(sys.argv),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "probe.json"), "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
        with open(os.path.join(args.out, "probe.md"), "w") as f:
            f.write(markdown(meta, rows))


if __name__ == "__main__":
    main()
