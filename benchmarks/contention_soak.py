#!/usr/bin/env python3
"""Verified matchings under contention: ``--processes`` processes at once, each calling
``maximum_matching`` with every registered algorithm in turn on the small graphs of
``tests/test_offset64.py`` (random, CSC, hubs, unsorted lists with repeats), with 64-bit
offsets forced on every other round, for ``--seconds``. Every answer is checked by the device
certificate (``verify=True``) and again on the host (cardinality equal to scipy's).

Why: on a CPU device, many processes each running the device's threads on the same cores
(oversubscribed) interleave work-groups in orders a single process never shows; a kernel that
relies on an ordering it does not enforce fails only there (test_offset64's random case raised
a VerificationError once under 8 pytest workers on the H100 host's PoCL, never in a single
process). Prints, and writes to ``--out`` as JSON, the calls and failures per (case,
algorithm, offsets), with the first messages.

    python3 benchmarks/contention_soak.py --device cpu --processes 8 --seconds 60
"""
import argparse
import collections
import json
import multiprocessing as mp
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def work(args, rank, queue):
    sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests")]
    import numpy as np
    import scipy.sparse as sp
    import pyclmatch
    from pyclmatch.bipartite.api import algorithms
    from pyclmatch.engine.graphs import FORCE_OFFSET64_ENV
    from test_offset64 import _bipartite_cases
    cases = _bipartite_cases()
    want = {k: int((sp.csgraph.maximum_bipartite_matching(
        sp.csr_matrix((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        if A.format == "csr" else A.tocsr(), perm_type="column") >= 0).sum())
        for k, A in cases.items()}
    names = [n for n in algorithms() if n != "host-hk"]
    calls, fails = collections.Counter(), collections.defaultdict(list)
    t_end = time.time() + args.seconds
    rnd = rank
    while time.time() < t_end:
        off64 = rnd % 2 == 1
        if off64:
            os.environ[FORCE_OFFSET64_ENV] = "1"
        else:
            os.environ.pop(FORCE_OFFSET64_ENV, None)
        for case, A in cases.items():
            for name in names:
                key = f"{case}|{name}|{'64' if off64 else '32'}"
                calls[key] += 1
                try:
                    res = pyclmatch.maximum_matching(A, algorithm=name, device=args.device,
                                                     verify=True)
                    if res.cardinality != want[case]:
                        raise AssertionError(f"cardinality {res.cardinality} != "
                                             f"{want[case]}")
                except Exception as e:   # noqa: BLE001 (every failure is counted)
                    fails[key].append(f"{type(e).__name__}: {e}"[:300] + " | " +
                                      traceback.format_exc(limit=-3).replace("\n", " ")[-400:])
                if time.time() >= t_end:
                    break
        rnd += 1
    queue.put((dict(calls), dict(fails)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--processes", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--out")
    args = ap.parse_args()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    ps = [ctx.Process(target=work, args=(args, r, q)) for r in range(args.processes)]
    for p in ps:
        p.start()
    calls, fails = collections.Counter(), collections.defaultdict(list)
    for _ in ps:
        c, f = q.get()
        calls.update(c)
        for k, v in f.items():
            fails[k].extend(v)
    for p in ps:
        p.join()
    total = sum(calls.values())
    nfail = sum(len(v) for v in fails.values())
    print(f"{args.processes} processes x {args.seconds} s on {args.device}: {total} verified "
          f"calls, {nfail} failures")
    for k in sorted(fails):
        print(f"  {k}: {len(fails[k])} of {calls[k]}: {fails[k][0]}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": " ".join(sys.argv), "calls": dict(calls),
                       "failures": dict(fails)}, f, indent=1)
    raise SystemExit(1 if nfail else 0)


if __name__ == "__main__":
    main()
