"""Issue 31 probe: what one auction_grid round costs on the GPU with no row to bid for (the
barriers' and sweeps' floor), for narrow and wide rows."""
import time, sys
import numpy as np, pyopencl as cl
import pyclmatch
from pyclmatch.assignment.auction import AuctionMatcher
from pyclmatch.engine.scheduler import Scheduler
from pyclmatch.assignment.problem import take_in
h = pyclmatch.get_device(sys.argv[1] if len(sys.argv) > 1 else "gpu")
for n, dense in ((5000, True), (250000, False)):
    if dense:
        C = np.random.default_rng(0).random((n, n)); p = take_in(C, maximize=False, full=True)
    else:
        sys.path.insert(0, "benchmarks")
        from bench_assignment import instance
        A = instance("uniform", n, 10, 0)
        p = take_in(A, maximize=False, full=True)
    drv = AuctionMatcher(h, p.indices.size, avg_degree=p.indices.size / n)
    drv.build(*drv.KERNELS)
    sched = Scheduler(h)
    rm, price, st = drv.run(p.indptr, p.indices, p.cost, sched)
    print("n", n, "wide", drv.wide, "groups", drv.grid_groups, "rounds", st["rounds"], flush=True)
    for rounds in (1, 100, 1000):
        flags = np.array([0, 0, 1, 0, 0, 0], np.int32)   # (one row "left": every round runs)
        drv.flags.set(flags)
        sched.finish()
        t = time.perf_counter()
        drv.tail = 0
        drv.grid_rounds(1, 1, sched, rounds)
        sched.finish()
        dt = time.perf_counter() - t
        out = drv.flags.get()
        print(f"  {rounds} empty rounds: {dt * 1e6 / rounds:.1f} us/round, ran {out[3]}, gave up {out[5]}", flush=True)
