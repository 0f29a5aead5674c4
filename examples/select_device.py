#!/usr/bin/env python3
"""List the OpenCL devices, pick one by policy, run one matching on each and compare.

Policies: ``fastest`` (run a small matching on every device, pick the least device time),
``gpu`` (first GPU, else the CPU), ``bandwidth`` (highest measured copy bandwidth),
``memory`` (most global memory).

    python examples/select_device.py --policy fastest
"""
import argparse
import statistics

import pyclmatch
from pyclmatch import generators
from pyclmatch.bench.harness import measure_bandwidth, select_devices
from pyclmatch.engine.graphs import as_bipartite


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", default="fastest", choices=["fastest", "gpu", "bandwidth", "memory"])
    ap.add_argument("--graph", default="kron-10", help="a graph of the small suite")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    g = as_bipartite(generators.SMALL_SUITE[args.graph]())
    rows = []
    for h in select_devices("all"):
        warm = pyclmatch.maximum_matching(g, device=h)          # builds + verifies
        ts = [pyclmatch.maximum_matching(g, device=h, verify=False).device_seconds
              for _ in range(args.repeat)]
        rows.append({"handle": h, "device_s": statistics.median(ts), "algorithm": warm.algorithm,
                     "cardinality": warm.cardinality, "bandwidth": measure_bandwidth(h)})
    print(f"{'device':<55} {'type':<4} {'algorithm':<20} {'card':>6} {'device s':>9} {'GB/s':>7}")
    for r in rows:
        h = r["handle"]
        print(f"{h.label[:55]:<55} {h.type:<4} {r['algorithm']:<20} {r['cardinality']:>6} "
              f"{r['device_s']:9.5f} {(r['bandwidth'] or 0) / 1e9:7.1f}")
    assert len({r["cardinality"] for r in rows}) == 1, "devices disagree"
    key = {"fastest": lambda r: r["device_s"],
           "gpu": lambda r: (r["handle"].type != "gpu", r["device_s"]),
           "bandwidth": lambda r: -(r["bandwidth"] or 0),
           "memory": lambda r: -r["handle"].global_mem}[args.policy]
    best = min(rows, key=key)["handle"]
    print(f"\npolicy {args.policy}: {best.label} (use device={best.index[0]}:{best.index[1]!s} "
          f"or PYCLMATCH_DEVICE)" if best.index else f"\npolicy {args.policy}: {best.label}")


if __name__ == "__main__":
    main()
