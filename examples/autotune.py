#!/usr/bin/env python3
"""Sweep the bipartite family's template values on one device and store the best.

Sweeps every registered exact family (the APFB/APsB x GPUBFS/GPUBFS-WR x CT/MT variants, G-PR,
PPF, PTG) with its ``work_group_size`` and, where the family has it, ``batch_levels`` on a few suite
graphs, takes the configuration with the smallest geometric
mean of device seconds (median of ``--repeat`` runs, programs built in a warm-up, every answer
verified) and stores it with :func:`pyclmatch.engine.tuning.store`.  Later
``pyclmatch.maximum_matching(..., algorithm="auto")`` calls on the same device use it by default
(``PYCLMATCH_TUNING=off`` disables, ``PYCLMATCH_TUNING=/path.json`` relocates the cache).

Then it measures the device's crossover of the one-work-group path (APFB whole in one
work-group against a launch per step, whole calls on uniform, Kronecker, Delaunay and grid
graphs of growing size) and stores the largest size below which the one group won on every
class as the ``"auto"`` profile's ``one_group_edges`` (:mod:`pyclmatch.bipartite.choice`).

    python examples/autotune.py --device cpu --quick
    python examples/autotune.py --device gpu --suite medium
"""
import argparse
import itertools
import statistics
import sys

import numpy as np
import scipy.sparse as sp

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
    ap.add_argument("--no-one-group", action="store_true",
                    help="skip the one-work-group crossover measurement")
    args = ap.parse_args(argv)
    h = pyclmatch.get_device(args.device)
    graphs = [(n, as_bipartite(A)) for n, A in generators.suite(size=args.suite)]
    families = device_families(h)
    algs = list(families)
    wgs = [w for w in (32, 64, 128, 256) if w <= h.max_work_group_size]
    batches = [4, 8, 16]
    if args.quick:
        keep = ("apfb-gpubfs-wr-mt", "apfb-gpubfs-wr-ct", "gpr", "ppf", "ptg")
        algs, wgs, batches = [a for a in algs if a in keep], wgs[:2], [8]
    configs = []
    for alg in algs:
        has_bl = families[alg]
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
    if not args.no_one_group:
        edges = one_group_crossover(h, args.repeat, args.quick)
        print(f"one_group_edges: {edges}")
        if not args.dry_run:
            tuning.store(h, "auto", {"one_group_edges": edges})


def device_families(h):
    """The exact families that run on the device ``h`` (the host family has no device
    parameters to tune), each with whether it takes ``batch_levels``: asked of
    :func:`pyclmatch.maximum_matching` itself on a 2 x 2 graph, which refuses a parameter the
    family does not have with an ``InputError``."""
    tiny = sp.identity(2, format="csr")
    families = {}
    for alg in pyclmatch.bipartite.algorithms():
        try:
            res = pyclmatch.maximum_matching(tiny, algorithm=alg, device=h, batch_levels=8)
            takes = True
        except pyclmatch.InputError:
            res = pyclmatch.maximum_matching(tiny, algorithm=alg, device=h)
            takes = False
        if res.device != "host":
            families[alg] = takes
    return families


def one_group_crossover(h, repeat, quick):
    """The largest edge count below which APFB in one work-group took no longer than the
    per-step launches (whole call, median of ``repeat``) on every graph class measured."""
    exps = range(10, 16) if quick else range(10, 19)
    classes = {"uniform": lambda e: generators.uniform(max(e // 4, 2), 4),
               "kron": lambda e: generators.kron(max(int(np.log2(max(e // 16, 2))), 2)),
               "delaunay": lambda e: generators.delaunay(max(int(np.log2(max(e // 6, 2))), 3)),
               "grid": lambda e: generators.grid(max(int((e / 2.8) ** 0.5), 4))}
    best = 0
    for k in exps:
        wins = True
        for name, make in classes.items():
            A = make(1 << k)
            t = {}
            for og in (0, 1 << 40):
                pyclmatch.maximum_matching(A, device=h, algorithm="apfb-gpubfs-wr-mt",
                                           one_group_edges=og)
                t[og] = statistics.median(
                    pyclmatch.maximum_matching(A, device=h, algorithm="apfb-gpubfs-wr-mt",
                                               one_group_edges=og).timings["total"]
                    for _ in range(repeat))
            print(f"{name} ~2^{k} edges: one group {t[1 << 40] * 1e3:.2f} ms, launches "
                  f"{t[0] * 1e3:.2f} ms", file=sys.stderr)
            wins &= t[1 << 40] <= t[0]
        if not wins:
            break
        best = 1 << k
    return best


if __name__ == "__main__":
    main()
