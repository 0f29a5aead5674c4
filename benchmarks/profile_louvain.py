#!/usr/bin/env python3
"""Where the host time of one ``louvain`` call goes (cProfile, programs built): the graphs of
the reference suite are launch-bound on a GPU (a few ms of kernels, ~30 launches per
iteration), so this shows what the host does between launches.

    python benchmarks/profile_louvain.py --device gpu --graph delaunay-21 --top 30
"""
import argparse
import cProfile
import io
import pstats
import time

import pyclmatch
from pyclmatch import generators
from pyclmatch.community import louvain


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--graph", default="delaunay-21")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    suite = {**generators.SMALL_SUITE, **generators.SUITE}
    A = suite[args.graph]()
    A = ((A + A.T) > 0).astype("float32").tocsr()
    h = pyclmatch.get_device(args.device)
    louvain(A, device=h)                                    # builds and verifies
    ts = []
    for _ in range(3):
        t0 = time.perf_counter()
        r = louvain(A, device=h, verify=False)
        ts.append(time.perf_counter() - t0)
    kern = sum(v for k, v in r.timings.items() if k.startswith("kernel:"))
    print(f"{args.graph} on {h.label}: {sorted(ts)[1]:.4f} s (kernels {kern:.4f} s, readback "
          f"wait {r.timings.get('readback', 0):.4f} s), {r.counters['launches']} launches, "
          f"{r.counters['readbacks']} read-backs, {sum(r.counters['iterations'])} iterations")
    prof = cProfile.Profile()
    prof.enable()
    louvain(A, device=h, verify=False)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.top)
    print(out.getvalue())


if __name__ == "__main__":
    main()
