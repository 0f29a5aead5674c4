"""Probe (issue 33): host seconds per launch on this device: pyopencl's invoker with 7 changed
arguments (BoundLaunch, today's level launches), set_arg of one argument + a raw enqueue, a
raw enqueue of a kernel whose arguments are set already."""
import time, sys
import numpy as np
import pyopencl as cl
import pyclmatch
from pyclmatch.engine import scheduler as schedmod

h = pyclmatch.get_device(sys.argv[1] if len(sys.argv) > 1 else "gpu")
ctx, q = h.context, h.queue
src = """__kernel void k(int level, __global int *a, __global int *b, int n, __global int *c,
 __global int *d, __global int *e, __global int *f, __global int *g, __global int *flags,
 int decide, int bi, int f0, int u0, float alpha, int slot, __global int *fq, int qn)
{ if (get_global_id(0) == 0 && decide < 0) flags[slot] = level + bi + f0 + u0 + qn; }"""
knl = cl.Program(ctx, src).build().k
buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4096)
args = [np.int32(0), buf, buf, np.int32(0), buf, buf, buf, buf, buf, buf, np.int32(0),
        np.int32(0), np.int32(0), np.int32(0), np.float32(1), np.int32(0), buf, np.int32(0)]
sched = schedmod.Scheduler(h)
N = 3000


def timed(label, gs, launch):
    """Two trials of N launches (``launch(i)``): host microseconds per launch, and with the
    device's drain."""
    for trial in range(2):
        q.finish()
        t = time.perf_counter()
        for i in range(N):
            launch(i)
        t1 = time.perf_counter()
        q.finish()
        t2 = time.perf_counter()
        print(f"gs {gs} {label}: {(t1 - t) / N * 1e6:.1f} us/launch host, "
              f"{(t2 - t) / N * 1e6:.1f} us/launch with device", flush=True)


for gs in (65536, 1024):
    ls = (256 if gs > 1024 else 1024,)
    bl = sched.bind("x", knl, gs, ls[0], *args)
    timed("invoker 7 args", gs, lambda i: bl(
        (0, np.int32(i)), (10, np.int32(1)), (11, np.int32(i & 15)), (12, np.int32(5)),
        (13, np.int32(7)), (14, np.float32(5)), (15, np.int32(9))))
    knl.set_args(*args)
    timed("set_arg + raw enqueue", gs, lambda i: (knl.set_arg(0, np.int32(i)),
                                                  cl.enqueue_nd_range_kernel(q, knl, (gs,), ls)))
    timed("raw enqueue", gs, lambda i: cl.enqueue_nd_range_kernel(q, knl, (gs,), ls))
    # a blocking 8-byte read-back after each of 200 launches
    host = np.zeros(2, np.int32)
    q.finish()
    t = time.perf_counter()
    for i in range(300):
        cl.enqueue_nd_range_kernel(q, knl, (gs,), (256 if gs > 1024 else 1024,))
        cl.enqueue_copy(q, host, buf, is_blocking=True)
    print(f"gs {gs} launch + blocking read-back: {(time.perf_counter() - t) / 300 * 1e6:.1f} us",
          flush=True)
