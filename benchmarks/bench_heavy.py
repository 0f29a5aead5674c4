#!/usr/bin/env python3
"""Sweep of the degree-aware (heavy-tier) kernels on power-law graphs.

Times ``maximum_matching`` on Graph500 Kronecker graphs (``pyclmatch.generators.kron``) for each
combination of ``heavy_degree`` (vertices of larger degree are processed by a whole work-group
in Karp-Sipser / cheap matching and GPUBFS / GPUBFS-WR; -1 = off), ``heavy_groups`` (work-groups
of the heavy tier per launch; "default" = the CT grid's group count), work-group size and
variant. Configurations are interleaved round by round (a noisy machine shifts them alike);
each is run once untimed first (program builds) and checked against the first configuration's
cardinality. Writes results.json and results.md (median and min device seconds, the kernel
phases, BFS levels, launches, heavy vertices per side) to ``--out``.

``device_s`` is the ``MatchingResult.device_seconds`` of the bipartite benchmark: initial matching
plus augmentation on the device after upload (the heavy lists are built at upload, once per
device graph), programs already built.

    python benchmarks/bench_heavy.py --device gpu --scales 21 --out benchmarks/results/heavy-h100
    python benchmarks/bench_heavy.py --device cpu --scales 16,17 --heavy-degree=-1,64,1024 \\
        --out benchmarks/results/heavy-pocl
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

import pyclmatch
from pyclmatch import generators
from pyclmatch.engine.graphs import as_bipartite

#: ECL-MM (IPDPS 2025) on an H100, matching only (bench_bipartite.py's anchors)
ECL_MM_H100 = {21: 0.010}


def _ints(text, allow_default=False):
    out = []
    for part in text.split(","):
        part = part.strip()
        if allow_default and part == "default":
            out.append(None)
        elif part:
            out.append(int(part))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--scales", default="16,17", help="kron scales (2**scale vertices a side)")
    ap.add_argument("--graphs", default="",
                    help="also these graphs of the reference suite (names of pyclmatch.generators"
                         ".SUITE or SMALL_SUITE, comma-separated), to check the tier where it "
                         "has little to do")
    ap.add_argument("--variants", default="apfb-gpubfs-wr-mt")
    ap.add_argument("--init", default="karp-sipser")
    ap.add_argument("--heavy-degree", default="-1,32,64,128,256,512,1024,2048,4096",
                    help="comma list; -1 = off (write --heavy-degree=-1,... with '=')")
    ap.add_argument("--heavy-groups", default="default",
                    help="comma list of ints or 'default'")
    ap.add_argument("--work-group-size", default="default",
                    help="comma list of ints or 'default'")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    dev = pyclmatch.get_device(args.device)
    configs = []
    for variant in args.variants.split(","):
        for wg in _ints(args.work_group_size, True):
            for hd in _ints(args.heavy_degree):
                for hg in (_ints(args.heavy_groups, True) if hd >= 0 else [None]):
                    c = {"algorithm": variant, "heavy_degree": hd}
                    if hg is not None:
                        c["heavy_groups"] = hg
                    if wg is not None:
                        c["work_group_size"] = wg
                    configs.append(c)
    records = []
    todo = [(f"kron-{s}", s, lambda s=s: generators.kron(s)) for s in _ints(args.scales)]
    suite = {**generators.SMALL_SUITE, **generators.SUITE}
    todo += [(name, None, suite[name]) for name in args.graphs.split(",") if name]
    for gname, scale, make in todo:
        A = make()
        deg = np.diff(A.indptr)
        print(f"{gname}: {A.shape[0]} x {A.shape[1]}, {A.nnz} edges, max degree "
              f"{deg.max()}, device {dev.label}", flush=True)
        g = as_bipartite(A)
        g.csc                       # conversions once, outside every timing
        ref = None
        for c in configs:           # builds, verifies (Koenig cover), and the answers agree
            t0 = time.perf_counter()
            r = pyclmatch.maximum_matching(g, init=args.init, device=dev, **c)
            ref = r.cardinality if ref is None else ref
            print(f"  warm-up {json.dumps(c)}: {r.device_seconds * 1e3:.2f} ms device, "
                  f"{time.perf_counter() - t0:.2f} s with verification", flush=True)
            if r.cardinality != ref:
                sys.exit(f"{c}: cardinality {r.cardinality} != {ref}")
        runs = {i: [] for i in range(len(configs))}
        for _ in range(args.repeat):
            for i, c in enumerate(configs):
                runs[i].append(pyclmatch.maximum_matching(g, init=args.init, device=dev,
                                                          verify=False, **c))
                if runs[i][-1].cardinality != ref:
                    sys.exit(f"{c}: cardinality {runs[i][-1].cardinality} != {ref}")
        for i, c in enumerate(configs):
            rs = runs[i]
            med = lambda key: statistics.median(r.timings.get(key, 0.0) for r in rs)  # noqa
            rec = {"graph": gname, "scale": scale, "config": c, "init": args.init,
                   "device_s": statistics.median(r.device_seconds for r in rs),
                   "device_s_min": min(r.device_seconds for r in rs),
                   "phases": {k[7:]: med(k) for k in rs[0].timings if k.startswith("kernel:")},
                   "bfs_levels": statistics.median(r.counters["bfs_levels"] for r in rs),
                   "launches": statistics.median(r.counters["launches"] for r in rs),
                   "heavy_cols": rs[0].counters.get("heavy_cols", 0),
                   "heavy_rows": rs[0].counters.get("heavy_rows", 0),
                   "cardinality": rs[0].cardinality}
            records.append(rec)
            ph = rec["phases"]
            print(f"  {json.dumps(c):70s} {rec['device_s'] * 1e3:8.2f} ms (min "
                  f"{rec['device_s_min'] * 1e3:7.2f})  init {ph.get('init', 0) * 1e3:6.2f}  "
                  f"bfs {ph.get('bfs', 0) * 1e3:6.2f}  levels {rec['bfs_levels']:4}  heavy "
                  f"{rec['heavy_cols']}/{rec['heavy_rows']}", flush=True)
    meta = {"device": dev.label, "date": datetime.datetime.now().isoformat(timespec="seconds"),
            "host": platform.node(), "command": " ".join(sys.argv), "repeat": args.repeat,
            "ecl_mm_h100_s": ECL_MM_H100}
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump({"meta": meta, "records": records}, f, indent=1)
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write(f"# Heavy-tier sweep on {dev.label}\n\n`{meta['command']}` ({meta['date']}, "
                    f"median of {args.repeat}; ms)\n\n")
            f.write("| graph | config | device | min | kernel:init | kernel:bfs | levels | "
                    "launches | heavy cols/rows |\n|---|---|---|---|---|---|---|---|---|\n")
            for r in records:
                c = {k: v for k, v in r["config"].items()}
                f.write(f"| {r['graph']} | `{json.dumps(c)}` | {r['device_s'] * 1e3:.2f} | "
                        f"{r['device_s_min'] * 1e3:.2f} | "
                        f"{r['phases'].get('init', 0) * 1e3:.2f} | "
                        f"{r['phases'].get('bfs', 0) * 1e3:.2f} | {r['bfs_levels']} | "
                        f"{r['launches']} | {r['heavy_cols']}/{r['heavy_rows']} |\n")
    return records


if __name__ == "__main__":
    main()
