"""First calls: a family's first call in a fresh process beside its warm call, and the cost of
``import pyclmatch``.

Each measurement runs in its own child process: ``import pyclmatch`` (timed), the graph built
(untimed), then the first call and ``--repeat`` warm calls of the same family on the same
graph (timed; the first and the last call's per-step timings kept). ``--cold`` points pyopencl's binary
cache and PoCL's kernel cache at an empty folder for every child (a new user's first day);
without it the caches are the user's own (a new process on a machine that has run the call).

    python3 benchmarks/first_call.py --device cpu --graphs karate,rajat01 --cold
    python3 benchmarks/first_call.py --device gpu --graphs kron-23 --families louvain

Graphs: ``karate`` (networkx's karate club, symmetric), ``rajat01`` (examples/data), the
README's ``delaunay-12``, ``kron-N`` (:func:`pyclmatch.generators.kron` of scale N) and any
name of the reference suite (:mod:`pyclmatch.generators`).
Results: ``--out`` (default ``benchmarks/results/first-call``) gets results.json and
results.md.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FAMILIES = ("maximum_matching", "weighted_matching", "b_matching", "louvain",
            "dulmage_mendelsohn", "leiden", "assignment")

#: the child: import (timed), graph (untimed), first call and warm calls (timed)
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import pyclmatch
t_import = time.perf_counter() - t0
family, graph, device, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, sys.argv[5])
from first_call import make_graph, call
A = make_graph(graph, family)
t0 = time.perf_counter()
res = call(family, A, device)
first = time.perf_counter() - t0
steps = {k: v for k, v in getattr(res, "timings", {}).items() if isinstance(v, float)}
warm, warm_steps = [], {}
for _ in range(repeat):
    t0 = time.perf_counter()
    out = call(family, A, device)
    warm.append(time.perf_counter() - t0)
    warm_steps = {k: v for k, v in getattr(out, "timings", {}).items() if isinstance(v, float)}
print("RESULT " + json.dumps({"import": t_import, "first": first, "warm": warm,
                               "first_steps": steps, "warm_steps": warm_steps,
                               "device": getattr(res, "device", "")}))
"""


def make_graph(name, family):
    """The graph ``name`` in the form ``family`` takes (a symmetric matrix for the
    weighted and community families)."""
    import numpy as np
    import scipy.sparse as sp
    import pyclmatch
    from pyclmatch import generators
    if name == "karate":
        import networkx as nx
        A = nx.to_scipy_sparse_array(nx.karate_club_graph(), format="csr")
    elif name == "rajat01":
        A = pyclmatch.read_graph(os.path.join(ROOT, "examples", "data", "rajat01.mtx.gz"))
    elif name == "delaunay-12":
        A = generators.delaunay(12)
    elif name.startswith("kron-") and name[5:].isdigit():
        A = generators.kron(int(name[5:]))
    else:
        A = next(generators.suite(name, size="large" if name in generators.SUITE
                                  else "small"))[1]
    if family in ("weighted_matching", "b_matching", "louvain", "leiden") and (
            A.shape[0] != A.shape[1] or (abs(A - A.T) > 0).nnz):
        A = abs(A) + abs(A).T
        A = sp.csr_matrix(A)
        A.setdiag(0)
        A.eliminate_zeros()
        A.data = np.abs(A.data).astype(np.float64) + 1.0
    return A


def call(family, A, device):
    """One default call of ``family`` on ``A`` (the device named, everything else default)."""
    import pyclmatch
    if family == "b_matching":
        return pyclmatch.b_matching(A, 3, device=device)
    if family == "louvain":
        return pyclmatch.louvain(A, device=device)
    if family == "assignment":      # (the heaviest matching of any size: any shape or rank)
        return pyclmatch.assignment(A, full=False, maximize=True, device=device)
    return getattr(pyclmatch, family)(A, device=device)


def measure(family, graph, device, repeat, cold):
    """One child process's numbers (a dict), or ``{"error": ...}``."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    tmp = None
    if cold:
        tmp = tempfile.mkdtemp(prefix="pyclmatch-cold-")
        env.update(XDG_CACHE_HOME=tmp, POCL_CACHE_DIR=os.path.join(tmp, "pocl"))
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, family, graph, device, str(repeat), HERE],
                       env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return dict(json.loads(line[7:]), process=wall)
    return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1], "process": wall}


def markdown(meta, rows):
    import common
    lines = common.heading("First calls in a fresh process", meta)
    head = ["family", "graph", "cache", "import s", "first call s", "warm median s",
            "first / warm", "largest steps of the first call"]
    body = []
    for r in rows:
        if "error" in r:
            body.append([r["family"], r["graph"], r["cache"], "", "", "", "", r["error"]])
            continue
        warm = common.med(r["warm"])
        top = sorted(r["first_steps"].items(), key=lambda kv: -kv[1])[1:4]
        body.append([r["family"], r["graph"], r["cache"], common.fmt(r["import"], 3),
                     common.fmt(r["first"]), common.fmt(warm),
                     common.fmt(common.ratio(r["first"], warm), 1),
                     common.seconds(top)])
    return "\n".join(lines + common.table(head, body)) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="auto")
    ap.add_argument("--graphs", default="karate,rajat01,delaunay-12")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="empty kernel caches in every child")
    ap.add_argument("--rounds", type=int, default=1,
                    help="fresh processes per measurement (with the user's caches, the first "
                         "round on a new machine is its first day, the next ones are not)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "first-call"))
    args = ap.parse_args(argv)
    sys.path.insert(0, HERE)
    import common
    meta = common.run_meta(device=args.device, repeat=args.repeat)
    rows = []
    cache = "empty" if args.cold else "user's"
    for graph in args.graphs.split(","):
        for family in args.families.split(","):
            if family in ("maximum_matching", "dulmage_mendelsohn", "assignment") or \
                    graph != "rajat01":
                for rnd in range(1, args.rounds + 1):
                    r = dict(measure(family, graph, args.device, args.repeat, args.cold),
                             family=family, graph=graph, cache=f"{cache}, process {rnd}")
                    rows.append(r)
                    common.log(json.dumps({k: v for k, v in r.items() if k != "first_steps"}))
                    common.save_results(args.out, meta, rows, markdown)


if __name__ == "__main__":
    main()
