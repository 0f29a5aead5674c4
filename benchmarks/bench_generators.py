#!/usr/bin/env python3
"""Time the data generators the README shows, on the host (all cores): the stable-marriage
instances ``pyclmatch.easy_instance(n)`` and ``pyclmatch.hard_instance(n)``, and the benchmark
suite of ``pyclmatch.generators`` (each graph of the chosen table and its RCP version,
``generators.permuted``) that ``pyclmatch bench`` and the benchmarks build.

Every time is the median of ``--repeat`` calls (min and all times kept in results.json), with
the output's size (preference entries or nonzeros) and a sha256 digest of its arrays, so that
runs on different hosts can be checked to build the same data. No device is used.

    python3 benchmarks/bench_generators.py --n 25000000 --hard-n 20000 --suite large \\
        --repeat 3 --out benchmarks/results/generators-h100
"""
import argparse
import hashlib
import os
import platform
import statistics

import numpy as np
import scipy

import common
from common import times as timed
import pyclmatch
from pyclmatch import generators, hostpar


def digest(*arrays):
    h = hashlib.sha256()
    for a in arrays:
        h.update(a.dtype.str.encode())
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=float, default=1e6, help="easy_instance size (men = women)")
    ap.add_argument("--hard-n", type=float, default=5000, help="hard_instance size (0: skip)")
    ap.add_argument("--suite", default="medium", choices=["none", *generators.SUITES],
                    help="generators table to time (none: skip)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=None, help="folder for results.json and results.md")
    args = ap.parse_args()
    rows = []

    def record(name, call, fn, size_of):
        ts, out = timed(fn, args.repeat)
        size, dig = size_of(out)
        row = {"generator": name, "call": call, "median_s": statistics.median(ts),
               "min_s": min(ts), "times_s": ts, "size": size, "digest": dig}
        rows.append(row)
        print(f"{name:28s} {row['median_s']:9.3f} s  (size {size:,}, {dig})", flush=True)
        return out

    def inst_size(inst):
        return int(inst.mlist.size), digest(inst.mptr, inst.mlist, inst.wptr, inst.wlist)

    def mat_size(A):
        return int(A.nnz), digest(np.array(A.shape), A.indptr, A.indices, A.data)

    n = int(args.n)
    if n:
        record(f"easy_instance({n})", f"pyclmatch.easy_instance({n}, seed={args.seed})",
               lambda: pyclmatch.easy_instance(n, args.seed), inst_size)
    hn = int(args.hard_n)
    if hn:
        record(f"hard_instance({hn})", f"pyclmatch.hard_instance({hn}, seed={args.seed})",
               lambda: pyclmatch.hard_instance(hn, args.seed), inst_size)
    if args.suite != "none":
        for name, make in generators.SUITES[args.suite].items():
            A = record(name, f"generators.SUITES[{args.suite!r}][{name!r}]()", make, mat_size)
            record(name + "-rcp", f"generators.permuted(<{name}>)",
                   lambda: generators.permuted(A), mat_size)
            del A
    meta = common.run_meta(None, host=platform.node(), cpu_count=os.cpu_count(),
                           workers=hostpar.workers(), numpy=np.__version__,
                           scipy=scipy.__version__, repeat=args.repeat)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        common.write_json(os.path.join(args.out, "results.json"), {"meta": meta, "rows": rows})
        lines = [f"# Data generators ({meta['date']})", "",
                 f"`{meta['command']}`", "",
                 f"host {meta['host']}: {meta['cpu_count']} CPUs, {meta['workers']} generator "
                 f"threads; numpy {meta['numpy']}, scipy {meta['scipy']}; median of "
                 f"{args.repeat}", "",
                 "| generator | median (s) | min (s) | size (entries / nnz) | digest |",
                 "|---|---:|---:|---:|---|"]
        lines += [f"| `{r['generator']}` | {r['median_s']:.3f} | {r['min_s']:.3f} | "
                  f"{r['size']:,} | `{r['digest']}` |" for r in rows]
        with open(os.path.join(args.out, "results.md"), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
