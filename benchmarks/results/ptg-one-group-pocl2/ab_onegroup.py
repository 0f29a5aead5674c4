import statistics, sys, pyclmatch
from pyclmatch import generators
from pyclmatch.io import read_graph
from pyclmatch.bipartite import ptg as P
G = [(n, read_graph(f"/work/shared/data/graphs/{n}.mtx")) for n in
     ("bcsstk13", "bayer10", "rajat01", "Groebner_id2003_aug", "delaunay_n16")]
G += list(generators.suite(["uniform-4K-d4", "kron-10", "delaunay-10", "grid-64"], rcp=False, size="small"))
G += list(generators.suite(["kron-17", "delaunay-17", "grid-512", "uniform-256K-d4"], rcp=False, size="medium"))
for name, A in G:
    t = {"launches": [], "one-group": [], "ppf": []}
    for rep in range(6):
        for k in t:
            if k == "ppf":
                r = pyclmatch.maximum_matching(A, algorithm="ppf", device="cpu", verify=rep == 0)
            else:
                P.ONE_GROUP_EDGES_CPU = 0 if k == "launches" else 1 << 40
                r = pyclmatch.maximum_matching(A, algorithm="ptg", device="cpu", verify=rep == 0)
            if rep: t[k].append(r.device_seconds)
    print(f"{name:22s} nnz {A.nnz:>9}", {k: round(statistics.median(v) * 1e3, 2) for k, v in t.items()}, flush=True)
