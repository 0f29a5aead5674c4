#!/usr/bin/env python3
"""One process, several threads calling the library on one device at once (the workload of
``tests/test_threads.py``), with optional process-wide locks around classes of OpenCL calls,
to find which concurrent calls a driver does not survive. The library holds each call's
device (``engine.devices.device_call``); ``--no-hold`` turns that off, to study the driver
as the library used it before (benchmarks/results/threads-h100). Exit status: 0 = every answer
equal to the serial one, 1 = a wrong answer or an exception, a signal's status = a crash.

    for v in none reads calls; do python3 benchmarks/threads_probe.py --device gpu \\
        --no-hold --variant $v; echo "$v $?"; done
"""
import argparse
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, ".."), os.path.join(HERE, "..", "tests")]

import faulthandler  # noqa: E402
faulthandler.enable()

import pyopencl as cl  # noqa: E402

import pyclmatch  # noqa: E402
from pyclmatch.engine import scheduler as _sched  # noqa: E402
from pyclmatch.engine.devices import DeviceHandle  # noqa: E402

LOCK = threading.RLock()


def locked(fn):
    def wrapper(*a, **k):
        with LOCK:
            return fn(*a, **k)
    return wrapper


def patch(variant):
    """Process-wide locks: ``reads`` around every ``enqueue_copy`` (blocking reads release
    the GIL in the driver; ``blocking``, ``nonblocking``, ``d2d``: only those copies),
    ``calls`` around each whole call, ``onegroup`` around Louvain's one-group level (its two launches and read-back),
    ``kernels`` around kernel creation and argument-type
    declaration, ``enqueues`` around kernel enqueues and copies, ``all`` all of these."""
    if variant in ("reads", "enqueues", "all"):
        real = cl.enqueue_copy
        cl.enqueue_copy = locked(real)
    if variant in ("blocking", "nonblocking", "d2d"):
        real = cl.enqueue_copy
        mem = cl.MemoryObjectHolder

        def some(queue, dest, src, **kw):
            d2d = isinstance(dest, mem) and isinstance(src, mem)
            blocking = not d2d and kw.get("is_blocking", True)
            take = {"blocking": blocking, "d2d": d2d,
                    "nonblocking": not d2d and not blocking}[variant]
            if take:
                with LOCK:
                    return real(queue, dest, src, **kw)
            return real(queue, dest, src, **kw)
        cl.enqueue_copy = some
    if variant in ("kernels", "all"):
        DeviceHandle.kernel = locked(DeviceHandle.kernel)
        _sched._declare_arg_types = locked(_sched._declare_arg_types)
    if variant == "calls":
        import test_threads as tt
        tt._call = locked(tt._call)
    if variant == "onegroup":
        from pyclmatch.community.driver import DeviceLouvain
        DeviceLouvain._optimize_one_group = locked(DeviceLouvain._optimize_one_group)
    if variant in ("enqueues", "all"):
        import pyopencl._cl as _cl
        _cl.enqueue_nd_range_kernel = locked(_cl.enqueue_nd_range_kernel)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--variant", default="none",
                    choices=("none", "reads", "kernels", "enqueues", "all", "blocking",
                             "nonblocking", "d2d", "onegroup", "calls"))
    ap.add_argument("--families", default="all", help="comma-separated, or all")
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--fresh", action="store_true", help="the threads use a fresh handle")
    ap.add_argument("--louvain-one-group-edges", type=int, default=None,
                    help="louvain's one_group_edges (0: the per-bucket path only)")
    ap.add_argument("--no-hold", action="store_true",
                    help="calls do not hold their device (the library's lock off)")
    ap.add_argument("--matching", default=None,
                    help="maximum_matching's algorithm (default: auto)")
    ap.add_argument("--matching-one-group-edges", type=int, default=None)
    args = ap.parse_args()
    if args.no_hold:
        from pyclmatch.engine import devices
        devices._hold = lambda handle: handle
    patch(args.variant)
    if args.matching or args.matching_one_group_edges is not None:
        import functools
        kw = {"algorithm": args.matching or "auto"}
        if args.matching_one_group_edges is not None:
            kw["one_group_edges"] = args.matching_one_group_edges
        pyclmatch.maximum_matching = functools.partial(pyclmatch.maximum_matching, **kw)
    if args.louvain_one_group_edges is not None:
        import functools
        pyclmatch.louvain = functools.partial(pyclmatch.louvain,
                                              one_group_edges=args.louvain_one_group_edges)
    import test_threads as tt
    fams = tt.FAMILIES if args.families == "all" else tuple(args.families.split(","))
    device = pyclmatch.get_device(args.device)
    graphs = tt._graphs()
    serial = {f: tt._call(f, graphs, device) for f in fams}
    target = DeviceHandle(device.device, index=device.index) if args.fresh else device
    barrier = threading.Barrier(args.threads)

    def worker(k):
        barrier.wait()
        order = fams[k % len(fams):] + fams[:k % len(fams)]
        return [(f, tt._call(f, graphs, target)) for _ in range(args.rounds) for f in order]

    with ThreadPoolExecutor(args.threads) as ex:
        results = [f.result() for f in [ex.submit(worker, k) for k in range(args.threads)]]
    bad = [f for out in results for f, v in out if v != serial[f]]
    print(f"variant={args.variant} families={','.join(fams)} wrong={bad}", flush=True)
    # (a process that does not end within 10 s from here dumps its threads' stacks)
    faulthandler.dump_traceback_later(10, exit=True)
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
