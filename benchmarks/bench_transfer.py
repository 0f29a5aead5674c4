#!/usr/bin/env python3
"""Host <-> device transfers of the engine, side by side in one run: uploads from pageable
numpy memory vs from page-locked copies (``DeviceHandle.pinned_copy`` + ``to_device``), and
downloads with pyopencl's ``Array.get()`` into pageable memory vs ``DeviceHandle.download``
(page-locked staging buffer, then one host copy or int32 -> int64 conversion into the result).

Every time is the median of ``--repeat`` blocking transfers of one array; GB/s on the
device-side bytes. The download rows are what every family's "download" step pays (Suitor
mates, stable-marriage husband/wife, Louvain membership, bipartite matchings).

    python benchmarks/bench_transfer.py --device gpu --out benchmarks/results/transfer-h100
"""
import argparse
import datetime
import json
import platform
import statistics
import sys
import time

import numpy as np
import pyopencl.array as cla

import pyclmatch


def timed(fn, repeat):
    out, ts = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", default="1e6,1e7,2.5e7,1e8", help="int32 element counts")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None, help="write OUT.json and OUT.md")
    args = ap.parse_args()
    h = pyclmatch.get_device(args.device)
    q = h.queue
    rows = []
    for n in (int(float(x)) for x in args.sizes.split(",") if x):
        host = np.random.default_rng(0).integers(-1, n, n, dtype=np.int32)
        pinned = h.pinned_copy(host)
        row = {"n": n, "MB": host.nbytes / 1e6}

        def up(src):
            d = h.to_device(src)
            q.finish()
            return d
        row["upload_pageable_s"], _ = timed(lambda: up(host), args.repeat)
        row["upload_pinned_s"], d = timed(lambda: up(pinned), args.repeat)
        row["download_get_s"], a = timed(lambda: d.get(), args.repeat)
        row["download_staged_s"], b = timed(lambda: h.download(d, staged=True), args.repeat)
        row["download_get_int64_s"], c = timed(lambda: d.get().astype(np.int64), args.repeat)
        row["download_staged_int64_s"], e = timed(lambda: h.download(d, np.int64, staged=True),
                                                   args.repeat)
        assert np.array_equal(a, host) and np.array_equal(b, host)
        assert np.array_equal(c, host) and np.array_equal(e, host)
        rows.append(row)
        print({k: (round(v, 5) if isinstance(v, float) else v) for k, v in row.items()},
              flush=True)
        del d, pinned
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "device": h.label, "host": f"{platform.node()} {platform.machine()}",
            "repeat": args.repeat, "pyclmatch": pyclmatch.__version__,
            "command": " ".join(["python3"] + sys.argv)}
    if args.out:
        with open(args.out + ".json", "w") as fh:
            json.dump({"meta": meta, "rows": rows}, fh, indent=1)
        with open(args.out + ".md", "w") as fh:
            fh.write(f"# Transfers ({h.label})\n\n- command: `{meta['command']}`\n"
                     f"- date: {meta['date']}; medians of "
                     f"{args.repeat}; GB/s on the int32 bytes\n\n"
                     "| int32 elements | MB | upload pageable s (GB/s) | upload pinned s (GB/s) "
                     "| get() s (GB/s) | download staged s (GB/s) | get().astype(int64) s "
                     "| download int64 staged s |\n|---|---|---|---|---|---|---|---|\n")
            for r in rows:
                def c(k):
                    return f"{r[k]:.4f} ({r['MB'] / 1e3 / r[k]:.1f})"
                fh.write(f"| {r['n']} | {r['MB']:.0f} | {c('upload_pageable_s')} | "
                         f"{c('upload_pinned_s')} | {c('download_get_s')} | "
                         f"{c('download_staged_s')} | {r['download_get_int64_s']:.4f} | "
                         f"{r['download_staged_int64_s']:.4f} |\n")


if __name__ == "__main__":
    main()
