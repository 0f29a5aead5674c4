"""Probe (issue 33): kron-22 (not in the reference suite), ptg and APFB-MT against ECL-MM in
one process, device seconds, medians of 5 (as bench_bipartite)."""
import json, os, statistics, sys, time
sys.path.insert(0, "benchmarks")
import ecl_mm
import pyclmatch
from pyclmatch import generators
from pyclmatch.engine.graphs import as_bipartite
h = pyclmatch.get_device("gpu")
out = []
t = time.time()
A = generators.kron(22)
print("built kron-22", A.shape, A.nnz, round(time.time() - t, 1), "s", flush=True)
for name, M in (("kron-22", A), ("kron-22-rcp", None)):
    if M is None:
        if time.time() - t > 200:
            break
        M = generators.permuted(A, seed=1)
    g = as_bipartite(M); g.csc
    row = {"graph": name, "edges": int(M.nnz)}
    for alg in ("ptg", "apfb-gpubfs-wr-mt", "auto"):
        w = pyclmatch.maximum_matching(g, algorithm=alg, device=h)
        assert w.verified
        ds = [pyclmatch.maximum_matching(g, algorithm=alg, device=h, verify=False).device_seconds
              for _ in range(5)]
        row[alg] = statistics.median(ds)
        row[alg + "_card"] = int(w.cardinality)
    e = ecl_mm.run(sys.argv[1], M, repeat=5)
    row["ecl_mm"] = e["seconds"]
    row.update({f"{a}/ecl": round(row[a] / row["ecl_mm"], 3)
                for a in ("ptg", "apfb-gpubfs-wr-mt", "auto")})
    print(json.dumps(row), flush=True)
    out.append(row)
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "kron22.json"), "w"), indent=1)
