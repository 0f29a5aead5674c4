"""Probe: top_down_grid's PTX (is the barrier's fence device-wide?) and a stress run of ptg
on the GPU (every answer verified, cardinality against APFB-MT)."""
import re, sys, time
import numpy as np
import pyopencl as cl
import pyclmatch
from pyclmatch import generators
import pyclmatch.bipartite.ptg as ptg

h = pyclmatch.get_device(sys.argv[2] if len(sys.argv) > 2 else "gpu")
A = generators.grid(64)
r = pyclmatch.maximum_matching(A, algorithm="ptg", device=h)
knl = None
for key, k in list(h._thread.__dict__.get("kernels", {}).items()):
    if key[1] == "top_down_grid":
        knl = k
if knl is not None:
    prg = knl.program
    ptx = prg.get_info(cl.program_info.BINARIES)[0].decode(errors="replace")
    i = ptx.find(".entry top_down_grid")
    j = ptx.find(".entry", i + 10)
    body = ptx[i:j if j > 0 else None]
    print("fences in top_down_grid:",
          sorted(set(re.findall(r"(membar\.\w+|fence\.[\w.]+)", body))),
          "volatile loads:", len(re.findall(r"ld\.volatile", body)),
          "atom:", sorted(set(re.findall(r"atom\.[\w.]+", body))), flush=True)
rng = np.random.default_rng(1)
bad = runs = grids = 0
t = time.time()
while time.time() - t < float(sys.argv[1]):
    kind = runs % 5
    n = int(rng.integers(20000, 400000))
    if kind == 0:
        A = generators.grid(int(np.sqrt(n)), seed=int(rng.integers(1 << 30)))
    elif kind == 1:
        A = generators.uniform(n, 3 + int(rng.integers(0, 3)), seed=int(rng.integers(1 << 30)))
    elif kind == 2:
        A = generators.permuted(generators.grid(int(np.sqrt(n)), seed=runs),
                                seed=int(rng.integers(1 << 30)))
    elif kind == 4:
        A = generators.kron(int(rng.integers(14, 19)), seed=int(rng.integers(1 << 30)))
        A = generators.permuted(A, seed=runs) if runs % 2 else A
    else:
        A = generators.delaunay(int(rng.integers(14, 19)), seed=int(rng.integers(1 << 30)))
    init = ("none", "karp-sipser", "cheap")[runs % 3]
    try:
        r1 = pyclmatch.maximum_matching(A, algorithm="ptg", device=h, init=init)
        r2 = pyclmatch.maximum_matching(A, algorithm="apfb-gpubfs-wr-mt", device=h, init=init)
        grids += r1.counters.get("group_launches", 0) > 0
        if r1.cardinality != r2.cardinality or r1.counters.get("grid_fallbacks"):
            bad += 1
            print("MISMATCH/fallback", kind, n, init, r1.cardinality, r2.cardinality, r1.counters, flush=True)
    except Exception as e:
        bad += 1
        print("ERROR", kind, n, init, type(e).__name__, str(e)[:300], flush=True)
    runs += 1
print(f"runs {runs} with grid launches {grids} bad {bad}", flush=True)
