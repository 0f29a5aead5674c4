#!/usr/bin/env python3
"""Where the time of one ``dulmage_mendelsohn`` call goes: the whole call, its phases and
counters, and a cProfile of a warm call (host functions by own time), for suite graphs.

    python benchmarks/profile_dmperm.py --device gpu --graphs grid-2048,delaunay-21,kron-21
    python benchmarks/profile_dmperm.py --device gpu --graphs grid-2048 --sweeps 4,8 \
        --converge 2:3,4:2,1:4

``--sweeps``, ``--one-group`` (``ONE_GROUP_MAX``) and ``--converge`` (passes between two
flag copies : copies in flight, of ``Scheduler.converge``) compare settings; each combination
is one warm call, timed beside ``maximum_matching``.
"""
import argparse
import cProfile
import io
import itertools
import os
import pstats
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import pyclmatch                                     # noqa: E402
from pyclmatch import generators                     # noqa: E402
from pyclmatch.bipartite import dmperm               # noqa: E402
from pyclmatch.engine.scheduler import Scheduler     # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--graphs", default="grid-512,delaunay-17,kron-17")
    ap.add_argument("--size", default=None, help="suite table (small, medium, reference)")
    ap.add_argument("--sweeps", default=None,
                    help="comma-separated chaotic sweeps per launch to compare")
    ap.add_argument("--one-group", default=None,
                    help="comma-separated ONE_GROUP_MAX values (lists for scc_small) to compare")
    ap.add_argument("--converge", default=None,
                    help="comma-separated chunk:ahead pairs of Scheduler.converge to compare")
    ap.add_argument("--top", type=int, default=15)
    args = ap.parse_args(argv)
    names = args.graphs.split(",")
    size = args.size or next((s for s, g in {
        "small": ["delaunay-10", "grid-64", "kron-10"],
        "medium": ["delaunay-17", "grid-512", "kron-17"]}.items() if names[0] in g),
        "reference")
    for nm, A in generators.suite(names, size=size):
        default, conv0, og0 = (dict(dmperm.SWEEPS), dict(Scheduler.CONVERGE),
                               dict(dmperm.ONE_GROUP_MAX))
        ogs = [int(x) for x in args.one_group.split(",")] if args.one_group else [None]
        sweeps = [int(x) for x in args.sweeps.split(",")] if args.sweeps else [None]
        convs = ([tuple(int(v) for v in x.split(":")) for x in args.converge.split(",")]
                 if args.converge else [None])
        for sw, cv, og in itertools.product(sweeps, convs, ogs):
            dmperm.SWEEPS = default if sw is None else {"cpu": sw, "gpu": sw}
            dmperm.ONE_GROUP_MAX = og0 if og is None else {"cpu": og, "gpu": og}
            Scheduler.CONVERGE = conv0 if cv is None else {"cpu": cv, "gpu": cv}
            pyclmatch.dulmage_mendelsohn(A, device=args.device)
            t0 = time.perf_counter()
            pyclmatch.maximum_matching(A, device=args.device)
            tm = time.perf_counter() - t0
            t0 = time.perf_counter()
            d = pyclmatch.dulmage_mendelsohn(A, device=args.device)
            tw = time.perf_counter() - t0
            steps = {k: round(v, 4) for k, v in d.timings.items()}
            print(f"== {nm} sweeps={sw} converge={cv} one_group={og}: whole {tw:.4f} s, matching "
                  f"{tm:.4f} s ({tw / tm:.2f}x)\n{steps}\n{d.counters}", flush=True)
        dmperm.SWEEPS, Scheduler.CONVERGE, dmperm.ONE_GROUP_MAX = default, conv0, og0
        pr = cProfile.Profile()
        pr.enable()
        pyclmatch.dulmage_mendelsohn(A, device=args.device)
        pr.disable()
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(args.top)
        print(out.getvalue(), flush=True)


if __name__ == "__main__":
    main()
