#!/usr/bin/env python3
"""Where the host time of one call goes (cProfile, programs built, default arguments): the
whole call from the user's scipy CSR, for any family, on a graph of the suites. Shows what the
host does between and around launches (conversions, transfers, waits).

    python benchmarks/profile_call.py --device gpu --family matching --graph grid-2048
    python benchmarks/profile_call.py --device gpu --family louvain --graph delaunay-21 --top 30
    python benchmarks/profile_call.py --device gpu --graph uniform-4K-d4 --loop 200 --top 0
"""
import argparse
import cProfile
import io
import os
import pstats
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pyclmatch  # noqa: E402  (the checkout's package, beside this script)
from pyclmatch import generators  # noqa: E402
from pyclmatch.weighted.graph import with_random_weights  # noqa: E402


def symmetric_pattern(A):
    S = ((A + A.T) > 0).astype(np.float32).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    S.sort_indices()
    return S


def make_call(family, A, h, algorithm="auto"):
    if family == "matching":
        return lambda: pyclmatch.maximum_matching(A, algorithm=algorithm, device=h)
    S = symmetric_pattern(A)
    if family == "louvain":
        return lambda: pyclmatch.louvain(S, device=h)
    W = with_random_weights(S, seed=0).csr
    if family == "weighted":
        return lambda: pyclmatch.weighted_matching(W, device=h)
    if family == "bmatching":
        return lambda: pyclmatch.b_matching(W, 3, device=h)
    raise SystemExit(f"unknown family {family!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--family", default="matching",
                    help="matching | weighted | bmatching | louvain")
    ap.add_argument("--graph", default="delaunay-21",
                    help="a graph of the suites, or a file (a path, or a name in the shared "
                         "graphs)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--algorithm", default="auto",
                    help="maximum_matching's algorithm (e.g. apfb-gpubfs-wr-mt: the device path "
                         "that auto races against the host on small graphs)")
    ap.add_argument("--loop", type=int, default=0,
                    help="also time this many calls and print their median and quartiles")
    ap.add_argument("--profile-calls", type=int, default=1,
                    help="calls under cProfile (its table sums them: more calls, finer times)")
    ap.add_argument("--sort", default="tottime", help="cProfile's sort key (tottime, cumtime)")
    args = ap.parse_args()
    suite = {**generators.SMALL_SUITE, **generators.MEDIUM_SUITE, **generators.SUITE}
    if args.graph in suite:
        A = sp.csr_matrix(suite[args.graph]())
    else:                       # a file: a path, or a name in the shared graphs
        from bench_small import GRAPH_DIRS
        from pyclmatch import io as graph_io
        path = next((p for p in [args.graph] + [os.path.join(d, args.graph)
                                                for d in GRAPH_DIRS] if os.path.exists(p)),
                    args.graph)
        A = sp.csr_matrix(graph_io.read_graph(path))
    h = pyclmatch.get_device(args.device)
    call = make_call(args.family, A, h, args.algorithm)
    call()                                                  # builds and verifies
    ts = []
    for _ in range(3):
        t0 = time.perf_counter()
        r = call()
        ts.append(time.perf_counter() - t0)
    kern = sum(v for k, v in r.timings.items() if k.startswith("kernel:"))
    steps = " ".join(f"{k} {v:.4f}" for k, v in sorted(r.timings.items())
                     if not k.startswith("kernel:"))
    print(f"{args.family} {args.graph} on {h.label}: {sorted(ts)[1]:.4f} s (kernels "
          f"{kern:.4f} s), {r.counters.get('launches')} launches, "
          f"{r.counters.get('readbacks')} read-backs\n  steps: {steps}")
    if args.loop:
        ts, steps = [], {}
        for _ in range(args.loop):
            t0 = time.perf_counter()
            r = call()
            ts.append(time.perf_counter() - t0)
            for k, v in r.timings.items():
                steps.setdefault(k, []).append(v)
        q1, med, q3 = np.percentile(ts, [25, 50, 75]) * 1e3
        print(f"  {args.loop} calls: median {med:.3f} ms (quartiles {q1:.3f} .. {q3:.3f})")
        print("  median step times (us): " + " ".join(
            f"{k} {np.median(v) * 1e6:.0f}" for k, v in sorted(steps.items())))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.profile_calls):
        call()
    prof.disable()
    if args.profile_calls > 1:
        print(f"(cProfile of {args.profile_calls} calls: divide the times by that)")
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats(args.sort).print_stats(args.top)
    print(out.getvalue())


if __name__ == "__main__":
    main()
