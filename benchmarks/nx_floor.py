#!/usr/bin/env python3
"""The CPython floor of any backend's ``bipartite.maximum_matching`` on a networkx graph:
on delaunay-20 as a bipartite graph (2.1M nodes, 6.3M edges, as ``bench_nx.py`` builds it),
the time to read the neighbour keys of one side out of networkx's dicts (every edge once) and
their counts, and to build networkx's result, a dict of 2.1M entries, from an int array of
mates. No pyclmatch code runs: these are the steps every backend must take at least, so
networkx's own time over their sum bounds the speed-up of any backend including conversion.

    python3 benchmarks/nx_floor.py > benchmarks/results/nx-h100/floor/nx_floor.json
"""
import sys, os, time, statistics, json
from itertools import chain
import numpy as np, networkx as nx, scipy.sparse as sp
sys.path.insert(0, os.getcwd())
from pyclmatch import generators
A = sp.csr_matrix(generators.delaunay(20))
n = A.shape[0]
B = A.tocoo()
G = nx.Graph()
G.add_nodes_from(range(2 * n))
G.add_edges_from(zip(B.row.tolist(), (B.col + n).tolist()))
adj = G._adj
dicts = [adj[u] for u in range(n)]
m = sum(map(len, dicts))
def med(f, k=5):
    ts = []
    for _ in range(k):
        t0 = time.perf_counter(); f(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts)
nodes = list(adj)
mate = np.random.default_rng(0).permutation(2 * n)
out = {"n": 2 * n, "m": m,
       "list(chain(keys)) s": med(lambda: list(chain.from_iterable(dicts))),
       "fromiter(chain(keys), int32) s": med(lambda: np.fromiter(chain.from_iterable(dicts), np.int32, m)),
       "sizes s": med(lambda: np.fromiter(map(len, dicts), np.int64, n)),
       "mate.tolist() s": med(lambda: mate.tolist()),
       "dict(zip(nodes, tolist)) s": med(lambda: dict(zip(nodes, mate.tolist()))),
       "fromkeys+update s": med(lambda: dict.fromkeys(adj).update(zip(nodes, mate.tolist())))}
print(json.dumps(out, indent=1))
