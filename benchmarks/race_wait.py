#!/usr/bin/env python3
"""How a raced call's waits for the device affect the device path when the device wins
(``auto``'s race, :mod:`pyclmatch.bipartite.race`): per graph, medians of the whole call,
the device time, launches and read-backs of

* ``named``: the device family by name (no race);
* ``auto-norace``: ``auto`` with ``race_edges`` = 0;
* ``auto-race``: ``auto`` raced, waits as the library waits (blocking, a look at the worker
  before and after);
* ``auto-race-idle-host``: the same with the worker's attempt asleep (``race.HOST_DELAY``)
  instead of computing: what the host's computing beside the device path costs it;
* ``auto-race-spin`` / ``auto-race-sleep``: the same call with waits that poll the event's
  status in a loop between looks at the worker, without sleeping / sleeping 100 us on the
  worker's pipe (the earlier ways, kept here for the comparison).

The worker is idle before every call (each raced one races); waiting for it leaves the device
idle (up to the host's time on the graph), and with ``--heat`` an unraced call of the family
runs right before each measured one. Graphs: the shared files of at
most ``race_edges`` entries where the device wins.

    python3 benchmarks/race_wait.py --device gpu --out benchmarks/results/race-wait-h100
"""
import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyclmatch  # noqa: E402
from pyclmatch.bipartite import choice, race  # noqa: E402
from bench_small import shared_graphs, worker_idle  # noqa: E402

LABELS = ("named", "auto-norace", "auto-race", "auto-race-idle-host", "auto-race-spin",
          "auto-race-sleep")
GRAPHS = ("facebook_combined.txt", "bayer10.mtx", "WormNet.v3.benchmark.txt",
          "PGPgiantcompo.graph", "ca-condmat-cc1.txt.gz")


def polling_wait(sleep_s):
    """A ``HostRace.wait`` that polls the event's status between looks at the worker."""
    def wait(self, event, poll=False):
        import pyopencl as cl
        complete = cl.command_execution_status.COMPLETE
        status = cl.event_info.COMMAND_EXECUTION_STATUS
        t0 = time.perf_counter()
        try:
            while event.get_info(status) > complete:
                if self.won(sleep_s):
                    raise race.HostWon()
        finally:
            self.device_wait += time.perf_counter() - t0
    return wait


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--heat", action="store_true",
                    help="an unraced call of the family right before each measured call (the "
                         "device busy, not idle while the worker finishes an abandoned "
                         "attempt)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    h = pyclmatch.get_device(args.device)
    prof = choice.PROFILES[choice.profile_kind(h)]
    race_edges = prof["race_edges"] or (1 << 17)
    want = set(args.graphs.split(","))
    blocking = race.HostRace.wait
    rows = []
    for name, A in shared_graphs(race_edges):
        if name not in want:
            continue
        fam = pyclmatch.maximum_matching(A, device=h).algorithm
        if fam == "host-hk":
            fam = "apfb-gpubfs-wr-mt"
        row = {"graph": name, "nnz": int(A.nnz), "family": fam}
        for label in LABELS:
            prof["race_edges"] = 0 if label == "auto-norace" else race_edges
            race.HostRace.wait = {"auto-race-spin": polling_wait(0.0),
                                  "auto-race-sleep": polling_wait(1e-4)}.get(label, blocking)
            race.HOST_DELAY = 30.0 if label == "auto-race-idle-host" else 0.0
            runs = []
            try:
                for _ in range(args.repeat):
                    worker_idle()
                    if args.heat:       # (the GPU busy right before: no clock ramp-up)
                        pyclmatch.maximum_matching(A, device=h, algorithm=fam)
                    r = pyclmatch.maximum_matching(A, device=h, algorithm=fam
                                                   if label == "named" else "auto")
                    runs.append(r)
            finally:
                race.HostRace.wait = blocking
                race.HOST_DELAY = 0.0
                prof["race_edges"] = race_edges

            def med(f):
                return float(np.median([f(r) for r in runs]))
            row[label] = {"whole_ms": 1e3 * med(lambda r: r.timings["total"]),
                          "whole_ms_each": [round(1e3 * r.timings["total"], 2) for r in runs],
                          "device_ms": 1e3 * med(lambda r: r.device_seconds),
                          "launches": med(lambda r: r.counters.get("launches", 0)),
                          "readbacks": med(lambda r: r.counters.get("readbacks", 0)),
                          "winners": sorted({r.algorithm for r in runs}),
                          "raced": sum(bool((r.choice or {}).get("race", {})
                                            .get("host_started")) for r in runs)}
            print(name, label, row[label], flush=True)
        rows.append(row)
    meta = {"device": h.label, "command": "python3 " + " ".join(sys.argv),
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "repeat": args.repeat}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
        labels = LABELS
        lines = [f"# Raced calls the device wins: how the race waits ({meta['device']})", "",
                 f"- command: `{meta['command']}`", f"- date: {meta['date']}",
                 f"- medians of {args.repeat} calls, each raced from an idle worker; "
                 "whole ms / device ms (launches)", "",
                 "| graph | nnz | family | " + " | ".join(labels) + " |",
                 "|---|---|---|" + "---|" * len(labels)]
        for r in rows:
            lines.append(f"| {r['graph']} | {r['nnz']} | {r['family']} | " + " | ".join(
                f"{r[k]['whole_ms']:.2f} / {r[k]['device_ms']:.2f} ({r[k]['launches']:.0f})"
                + ("" if k in ("named", "auto-norace") else f" raced {r[k]['raced']}")
                for k in labels) + " |")
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
