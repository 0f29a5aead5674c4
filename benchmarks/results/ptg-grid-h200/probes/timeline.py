"""Probe (issue 33): where ptg's device seconds go on the GPU (kernel time, idle gaps after
read-backs and between launches, one-group level launches), and team lanes / sparse count
sums in the one-group levels, alternating with APFB-MT in one process; medians."""
import json, os, sys, statistics
from collections import defaultdict
import pyopencl as cl
import pyclmatch
from pyclmatch import generators
import pyclmatch.bipartite.ptg as ptg
from pyclmatch.engine import scheduler as schedmod

OUT = os.environ.get("OUT", "/tmp")
REPEAT = int(os.environ.get("REPEAT", "5"))
names = sys.argv[1].split(",")
DEV = os.environ.get("DEV", "gpu")
CONFIGS = {
    "ptg": dict(GRID_GPU=True),
    "apfb-gpubfs-wr-mt": None,
}
FLUSH = [False]
_launch = schedmod.Scheduler.launch
_bound = schedmod.BoundLaunch.__call__


def launch(self, *a):
    e = _launch(self, *a)
    if FLUSH[0]:
        self.queue.flush()
    return e


def bound(self, *a):
    e = _bound(self, *a)
    if FLUSH[0]:
        self.sched.queue.flush()
    return e


schedmod.Scheduler.launch = launch
schedmod.BoundLaunch.__call__ = bound
LAST = {}
_timings = schedmod.Scheduler.timings


def timings(self):
    t = _timings(self)
    LAST["events"] = list(self._events)
    return t


schedmod.Scheduler.timings = timings
_group = ptg.TreeGraftingMatcher.enqueue_group_levels
GROUPS = []


def group_levels(self):
    f0 = self.frontier
    n0 = len(self.sched._events)
    counts, run = _group(self)
    GROUPS.append((n0, f0, run))
    return counts, run


ptg.TreeGraftingMatcher.enqueue_group_levels = group_levels


def timeline():
    S, E = cl.profiling_info.START, cl.profiling_info.END
    evs = []
    for i, (ph, e) in enumerate(LAST["events"]):
        try:
            evs.append((i, ph, e.get_profiling_info(S), e.get_profiling_info(E)))
        except cl.Error:
            pass
    busy, gaps, prev = defaultdict(float), defaultdict(float), None
    for i, ph, s, e in evs:
        busy[ph] += (e - s) * 1e-9
        if prev is not None and s > prev:
            gaps[ph] += (s - prev) * 1e-9
        prev = max(prev or 0, e)
    span = (evs[-1][3] - evs[0][2]) * 1e-9 if evs else 0
    byidx = {i: (s, e) for i, ph, s, e in evs}
    groups = []
    for n0, f0, run in GROUPS:
        # the group launch is the first event after the fill at n0
        for j in range(n0, n0 + 3):
            ph = LAST["events"][j][0] if j < len(LAST["events"]) else None
            if ph == "ptg-top-down" and j in byidx:
                s, e = byidx[j]
                groups.append((f0, run, round((e - s) * 1e-6, 3)))
                break
    t0 = evs[0][2] if evs else 0
    raw = [(ph, round((s - t0) * 1e-3, 1), round((e - t0) * 1e-3, 1)) for i, ph, s, e in evs]
    return {"span": span, "busy": dict(busy), "gaps": dict(gaps), "groups": groups,
            "events": raw if os.environ.get("DUMP") else None}


def call(A, alg):
    GROUPS.clear()
    if CONFIGS[alg] is None:
        FLUSH[0] = False
        return pyclmatch.maximum_matching(A, algorithm=alg, device=DEV)
    FLUSH[0] = CONFIGS[alg].get("FLUSH", False)
    for k, v in CONFIGS[alg].items():
        if k != "FLUSH":
            setattr(ptg, k, v)
    return pyclmatch.maximum_matching(A, algorithm="ptg", device=DEV)


rows = []
for name, A in generators.suite(names, rcp="both", size="reference"):
    row = {"graph": name, "nnz": int(A.nnz), "algs": {}}
    for alg in CONFIGS:
        call(A, alg)                     # warm-up (verified)
    runs = {alg: [] for alg in CONFIGS}
    lines = {alg: [] for alg in CONFIGS}
    for _ in range(REPEAT):
        for alg in CONFIGS:
            r = call(A, alg)
            runs[alg].append(r)
            lines[alg].append(timeline())
    for alg, rs in runs.items():
        ds = [r.device_seconds for r in rs]
        k = sorted(range(len(rs)), key=lambda i: ds[i])[len(rs) // 2]
        mid = rs[k]
        row["algs"][alg] = {"device_s": ds, "median": statistics.median(ds),
                            "cardinality": int(mid.cardinality),
                            "timings": {a: round(v, 5) for a, v in mid.timings.items()},
                            "counters": dict(mid.counters), "timeline": lines[alg][k]}
        tl = lines[alg][k]
        g = tl["groups"]
        print(f"{name:20s} {alg:18s} {statistics.median(ds)*1e3:7.2f} ms card {mid.cardinality}"
              f" span {tl['span']*1e3:.2f} busy {sum(tl['busy'].values())*1e3:.2f}"
              f" gaps {sum(tl['gaps'].values())*1e3:.2f}"
              f" groups {len(g)} levels {sum(x[1] for x in g)} ms {sum(x[2] for x in g):.2f}",
              flush=True)
        print("   busy", {a: round(v * 1e3, 2) for a, v in tl["busy"].items()},
              "\n   gaps", {a: round(v * 1e3, 2) for a, v in tl["gaps"].items()},
              "\n   groups(f0,levels,ms)", g[:12], flush=True)
    rows.append(row)
    del A
json.dump(rows, open(os.path.join(OUT, "timeline.json"), "w"), indent=1, default=str)
