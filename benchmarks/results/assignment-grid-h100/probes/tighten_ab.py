"""Issue 31 probe: the tightening's passes in one launch (tighten_grid) against launched one
by one, alternating calls on uniform 1M and 250K (GPU): the tighten step's seconds."""
import sys, time, statistics
sys.path.insert(0, "benchmarks")
import pyclmatch
from pyclmatch.assignment.auction import AuctionMatcher
from bench_assignment import instance
h = pyclmatch.get_device("gpu")
grid = AuctionMatcher._tighten_grid
for n in (1000000, 250000):
    A = instance("uniform", n, 10, 0)
    pyclmatch.assignment(A, device=h)
    out = {"grid": [], "launched": []}
    for k in range(8):
        way = "grid" if k % 2 else "launched"
        AuctionMatcher._tighten_grid = grid if way == "grid" else (lambda self, *a: None)
        r = pyclmatch.assignment(A, device=h)
        out[way].append((r.timings["tighten"], r.counters["tighten_passes"], r.timings["total"]))
    for way, v in out.items():
        print(n, way, "tighten s", [round(x[0], 4) for x in v], "passes", [x[1] for x in v],
              "us/pass", round(statistics.median(x[0] / x[1] * 1e6 for x in v), 1), flush=True)
