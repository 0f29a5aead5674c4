"""Dense rectangular problems on the CPU device, the code in the tree at ARGV[1] (2-core PoCL):

    python3 rect_ab.py /tmp/oldtree; python3 rect_ab.py $PWD
"""
import sys, time, numpy as np, scipy.sparse as sp
sys.path.insert(0, sys.argv[1])
import pyclmatch
from scipy.optimize import linear_sum_assignment as lsa
h = pyclmatch.get_device("cpu")
rng = np.random.default_rng(0)
pyclmatch.assignment(rng.random((50, 60)), device=h)
for shape in ((466, 480), (466, 700), (2000, 2100)):
    C = rng.random(shape) * 1e6
    ts = []
    for _ in range(3):
        t = time.perf_counter(); r = pyclmatch.assignment(C, device=h); ts.append(time.perf_counter() - t)
    a, b = lsa(C)
    print(sys.argv[1], shape, "median %.3f s" % np.median(ts), r.objective == C[a, b].sum() or abs(r.objective / C[a, b].sum() - 1) < 1e-12, flush=True)
