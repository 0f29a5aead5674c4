"""The restricted path's host work, old tree (ARGV[1]) against new, 2-core PoCL, medians of 3:

    git worktree add /tmp/oldtree 44457a8
    python3 host_ab.py /tmp/oldtree; python3 host_ab.py $PWD    # twice, alternating
"""
import sys, time, numpy as np, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
import pyclmatch
from scipy.optimize import linear_sum_assignment as lsa
h = pyclmatch.get_device("cpu")
rng = np.random.default_rng(0)
pyclmatch.assignment(rng.random((50, 60)), device=h)
for shape in ((5000, 5000), (2000, 2100), (4000, 4100), (1000, 3000)):
    C = rng.random(shape)
    ts = []
    for _ in range(3):
        t = time.perf_counter(); r = pyclmatch.assignment(C, device=h); ts.append(time.perf_counter() - t)
    a, b = lsa(C)
    print(sys.argv[1].split("/")[-1], shape, "median %.3f s" % np.median(ts), abs(r.objective / C[a, b].sum() - 1) < 1e-12, flush=True)
