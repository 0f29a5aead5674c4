#!/usr/bin/env python3
"""Sweep the bipartite family's template values on one device and store the best.

Sweeps every registered exact family (the APFB/APsB x GPUBFS/GPUBFS-WR x CT/MT variants, G-PR,
PPF) with its ``work_group_size`` and, where the family has it, ``batch_levels`` on a few suite
graphs, takes the configuration with the smallest geometric
mean of device seconds (median of ``--repeat`` runs, programs built in a warm-up, every answer
verified) and stores it with :func:`pyclmatch.engine.tuning.store`.  Later
``pyclmatch.maximum_matching(..., algorithm="auto")`` calls on the same device use it by default
(``PYCLMATCH_TUNING=off`` disables, ``PYCLMATCH_TUNING=/path.json`` relocates the cache).

    python examples/autotune.py --device cpu --quick
    python examples/autotune.py --device gpu --suite medium
"""
import argparse
import itertools
import statistics
import sys

import numpy as np

import pyclmatch
from pyclmatch import generators
from pyclmatch.engine import tuning
from pyclmatch.engine.graphs import as_bipartite


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default=None)
    ap.add_argument("--suite", default="small")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer configurations (~30 s on PoCL)")
    ap.add_argument("--dry-run", action="store_true", help="do not store the result")
    args = ap.parse_args(argv)
    h = pyclmatch.get_device(args.device)
    graphs = [(n, as_bipartite(A)) for n, A in generators.suite(size=args.suite)]
    from pyclmatch.bipartite.api import _ALGORITHMS
    algs = list(pyclmatch.bipartite.algorithms())
    wgs = [w for w in (32, 64, 128, 256) if w <= h.max_work_group_size]
    batches = [4, 8, 16]
    if args.quick:
        keep = ("apfb-gpubfs-wr-mt", "apfb-gpubfs-wr-ct", "gpr", "ppf")
        algs, wgs, batches = [a for a in algs if a in keep], wgs[:2], [8]
    configs = []
    for alg in algs:
        has_bl = "batch_levels" in _ALGORITHMS[alg].params
        for wg, bl in itertools.product(wgs, batches if has_bl else [None]):
            configs.append((alg, {"work_group_size": wg}
                            if bl is None else {"work_group_size": wg, "batch_levels": bl}))
    print(f"device: {h.label}; {len(configs)} configurations, {len(graphs)} graphs",
          file=sys.stderr)
    results = []
    for alg, params in configs:
        per_graph = []
        for name, g in graphs:
            warm = pyclmatch.maximum_matching(g, algorithm=alg, device=h, **params)
            ts = []
            for _ in range(args.repeat):
                r = pyclmatch.maximum_matching(g, algorithm=alg, device=h, verify=False, **params)
                assert r.cardinality == warm.cardinality, (name, alg, params)
                ts.append(r.device_seconds)
            per_graph.append(statistics.median(ts))
        gm = float(np.exp(np.mean(np.log(per_graph))))
        results.append((gm, alg, params))
        print(f"{alg:<22} {params}: gmean device s {gm:.5f}", file=sys.stderr)
    results.sort(key=lambda x: x[0])
    gm, alg, params = results[0]
    best = dict(params, algorithm=alg)
    print(f"best: {best} (gmean {gm:.5f} s)")
    if not args.dry_run:
        path = tuning.store(h, "bipartite", best, {"gmean_device_s": gm, "suite": args.suite})
        print(f"stored in {path}" if path else "PYCLMATCH_TUNING=off: not stored")


if __name__ == "__main__":
    main()
