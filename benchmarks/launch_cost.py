#!/usr/bin/env python3
"""Host microseconds per enqueue on one device, by kind of command and queue: a kernel of ten
arguments (through pyopencl's invoker, and through ``set_args`` once then
``enqueue_nd_range_kernel``), a fill, a small non-blocking read and a 4-byte blocking read,
each on an in-order queue with and without ``PROFILING_ENABLE``. Medians of ``--repeat`` rounds
of ``--n`` enqueues; the queue is finished between rounds, outside the timing.

    python3 benchmarks/launch_cost.py --device gpu
"""
import argparse
import os
import sys
import time

import numpy as np
import pyopencl as cl

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import pyclmatch  # noqa: E402

SRC = """
__kernel void k(__global int *a, __global int *b, __global int *c, __global int *d, int n,
                int m, __global int *e, __global int *f, int x, int y)
{ int i = get_global_id(0); if (i < n) a[i] = b[i] + c[i] + d[i] + e[i] + f[i] + m + x + y; }
"""


def timed(fn, n, repeat, queue):
    ts = []
    for _ in range(repeat):
        queue.finish()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        ts.append((time.perf_counter() - t0) / n)
        queue.finish()
    return 1e6 * float(np.median(ts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    h = pyclmatch.get_device(args.device)
    ctx = h.context
    prg = cl.Program(ctx, SRC).build()
    bufs = [cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4096 * 4) for _ in range(6)]
    host = np.zeros(1024, np.int32)
    one = np.zeros(1, np.int32)
    print(f"{h.label}: host us per enqueue (medians of {args.repeat} x {args.n})")
    for name, props in (("profiling", cl.command_queue_properties.PROFILING_ENABLE),
                        ("plain", 0)):
        q = cl.CommandQueue(ctx, h.device, properties=props)
        k = cl.Kernel(prg, "k")
        k.set_scalar_arg_dtypes([None, None, None, None, np.int32, np.int32, None, None,
                                 np.int32, np.int32])
        a = (bufs[0], bufs[1], bufs[2], bufs[3], 1024, 3, bufs[4], bufs[5], 1, 2)
        k2 = cl.Kernel(prg, "k")
        k2.set_args(bufs[0], bufs[1], bufs[2], bufs[3], np.int32(1024), np.int32(3), bufs[4],
                    bufs[5], np.int32(1), np.int32(2))
        rows = {
            "kernel (invoker)": lambda: k(q, (1024,), (128,), *a),
            "kernel (set_args once)": lambda: cl.enqueue_nd_range_kernel(q, k2, (1024,),
                                                                         (128,)),
            "fill 4 KiB": lambda: cl.enqueue_fill_buffer(q, bufs[0], one, 0, 4096),
            "read 4 KiB, non-blocking": lambda: cl.enqueue_copy(q, host, bufs[1],
                                                                is_blocking=False),
            "write 4 KiB, non-blocking": lambda: cl.enqueue_copy(q, bufs[2], host,
                                                                 is_blocking=False),
        }
        for what, fn in rows.items():
            print(f"  {name:9s} {what:26s} {timed(fn, args.n, args.repeat, q):8.2f}")
        def roundtrip():
            k(q, (1024,), (128,), *a)
            cl.enqueue_copy(q, one, bufs[0], is_blocking=True)
        print(f"  {name:9s} {'launch + 4-byte blocking read':26s} "
              f"{timed(roundtrip, max(args.n // 4, 10), args.repeat, q):8.2f}")


if __name__ == "__main__":
    main()
