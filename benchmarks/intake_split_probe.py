#!/usr/bin/env python3
"""The device intake of one generated graph (check + transpose, ``DeviceCompressed``) kernel
by kernel, with the atomic transpose (``--chunks 0``) and the transpose in chunks
(``intake_chunk_*``; ``--chunks auto`` = the rule of ``transpose_chunks``), side by side:
the wall time of the intake to its read-back and each command's device milliseconds, per run.

    PYCLMATCH_DEVICE=cpu python3 benchmarks/intake_split_probe.py --graph kron-21 --chunks 0,auto
"""
import argparse
import os
import sys
import time

import numpy as np
import pyopencl as cl
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pyclmatch  # noqa: E402
from pyclmatch import generators  # noqa: E402
from pyclmatch.engine.intake import DeviceCompressed  # noqa: E402
from pyclmatch.engine.scheduler import Scheduler  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--graph", default="kron-18", help="a graph of the generators' suites, or kron-N")
    ap.add_argument("--chunks", default="0,auto", help="comma-separated: 0, auto or a count")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    suite = {**generators.SMALL_SUITE, **generators.MEDIUM_SUITE, **generators.SUITE}
    name = args.graph
    A = sp.csr_matrix(suite[name]() if name in suite else
                      generators.kron(int(name.split("-")[1])))
    h = pyclmatch.get_device(args.device)
    print(f"{name}: {A.shape}, {A.nnz} entries, max row degree {np.diff(A.indptr).max()}, "
          f"on {h.label} ({h.compute_units} compute units)")
    start, end = cl.profiling_info.START, cl.profiling_info.END
    for setting in args.chunks.split(","):
        chunks = None if setting == "auto" else int(setting)
        for _ in range(args.repeat + 1):              # (the first run builds)
            s = Scheduler(h)
            t0 = time.perf_counter()
            dc = DeviceCompressed(h, A.indptr, A.indices, A.shape[0], A.shape[1],
                                  transpose=True, sched=s, chunks=chunks)
            dc.problems(s)
            wall = time.perf_counter() - t0
            steps = []
            for _, e in s._events:
                try:
                    kind = cl.command_type.to_string(e.command_type).lower()
                    ms = (e.get_profiling_info(end) - e.get_profiling_info(start)) * 1e-6
                    steps.append(f"{kind} {ms:.1f}")
                except cl.Error:
                    pass
            print(f"  chunks={setting} ({dc.chunks}): {wall * 1e3:.1f} ms | " + ", ".join(steps))


if __name__ == "__main__":
    main()
