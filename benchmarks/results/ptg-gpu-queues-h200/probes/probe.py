"""Probe (issue 33): ptg on the GPU with sweeps / queues / one-group levels, APFB-MT and
ECL-MM (built here), side by side; device seconds, medians."""
import json, os, re, subprocess, sys, statistics, time
import numpy as np, scipy.sparse as sp
import pyclmatch
from pyclmatch import generators
import pyclmatch.bipartite.ptg as ptg

OUT = os.environ.get("OUT", "/tmp")
REPEAT = int(os.environ.get("REPEAT", "5"))
names = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else None
CONFIGS = {
    "grid32k": dict(QUEUE_GRID_GPU=1 << 15, GROUP_FRONTIER_GPU=1024),
    "grid64k": dict(QUEUE_GRID_GPU=1 << 16, GROUP_FRONTIER_GPU=1024),
    "grid256k": dict(QUEUE_GRID_GPU=1 << 18, GROUP_FRONTIER_GPU=1024),
    "gridall": dict(QUEUE_GRID_GPU=1 << 30, GROUP_FRONTIER_GPU=1024),
    "grid64k-g512": dict(QUEUE_GRID_GPU=1 << 16, GROUP_FRONTIER_GPU=512),
    "grid64k-g2k": dict(QUEUE_GRID_GPU=1 << 16, GROUP_FRONTIER_GPU=2048),
    "apfb-gpubfs-wr-mt": None,
}
ECL = os.environ.get("ECL")


def egr(A, path):
    A = sp.csr_matrix(A)
    n = A.shape[0]
    B = sp.bmat([[None, A], [A.T, None]], format="csr")
    B.sort_indices()
    with open(path, "wb") as f:
        np.array([2 * n, B.nnz], np.int32).tofile(f)
        B.indptr.astype(np.int32).tofile(f)
        B.indices.astype(np.int32).tofile(f)


def ecl(A, name):
    if not ECL or A.shape[0] != A.shape[1]:
        return None
    path = f"/tmp/{name}.egr"
    egr(A, path)
    runs, card = [], None
    for _ in range(3):
        out = subprocess.run([ECL, path], capture_output=True, text=True, timeout=120).stdout
        runs.append(float(re.search(r"totalRunTime: ([0-9.e-]+)", out).group(1)))
        card = int(re.search(r"sizeof_finalMatching: (\d+)", out).group(1))
    os.unlink(path)
    return {"runs": runs, "median": statistics.median(runs), "cardinality": card}


def call(A, alg):
    if CONFIGS[alg] is None:
        return pyclmatch.maximum_matching(A, algorithm=alg, device="gpu")
    for k, v in CONFIGS[alg].items():
        setattr(ptg, k, v)
    return pyclmatch.maximum_matching(A, algorithm="ptg", device="gpu")


rows = []
for name, A in generators.suite(names, rcp="both", size="reference"):
    row = {"graph": name, "nnz": int(A.nnz), "ecl": ecl(A, name), "algs": {}}
    for alg in CONFIGS:
        call(A, alg)                     # warm-up (verified)
    runs = {alg: [] for alg in CONFIGS}
    for _ in range(REPEAT):
        for alg in CONFIGS:
            runs[alg].append(call(A, alg))
    for alg, rs in runs.items():
        ds = [r.device_seconds for r in rs]
        mid = sorted(rs, key=lambda r: r.device_seconds)[len(rs) // 2]
        row["algs"][alg] = {"device_s": ds, "median": statistics.median(ds),
                            "cardinality": int(mid.cardinality),
                            "timings": {k: round(v, 5) for k, v in mid.timings.items()},
                            "counters": dict(mid.counters)}
    e = row["ecl"]
    print(name, "ecl", e and round(e["median"], 4), e and e["cardinality"],
          {a: (round(v["median"], 4), v["cardinality"]) for a, v in row["algs"].items()},
          flush=True)
    rows.append(row)
    del A
json.dump(rows, open(os.path.join(OUT, "ptg-gpu.json"), "w"), indent=1, default=str)
