import json, os, subprocess, sys, time, glob
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import bench_dask as B
import pyclmatch

def serial(paths, calls):
    dev = pyclmatch.get_device("0:0")
    for call in B.CALLS:
        i = calls.index(call); B.call_timed(call, paths[i], device=dev, **B.kwargs_of(call))
    out = []
    t0 = time.perf_counter()
    for p, c in zip(paths, calls):
        r, s = B.call_timed(c, p, device=dev, **B.kwargs_of(c)); out.append(s)
    return time.perf_counter() - t0, out

if __name__ == "__main__":
    n = int(sys.argv[2]); data = sys.argv[3]
    specs = [B.graph_spec(i, int(os.environ.get("LOG2", 19))) for i in range(n)]
    names = [f"{i:03d}-{f}-{c}-2^{k}" for i, (f, c, k, _) in enumerate(specs)]
    paths = [os.path.join(data, nm + ".npz") for nm in names]
    calls = [c for _, c, _, _ in specs]
    if sys.argv[1] == "gen":
        import multiprocessing as mp
        os.makedirs(data, exist_ok=True)
        todo = [(i, int(os.environ.get("LOG2", 19)), p) for i, p in enumerate(paths) if not os.path.exists(p)]
        if todo:
            with mp.get_context("spawn").Pool(min(32, len(todo))) as pool:
                pool.map(B.build, todo, chunksize=1)
        sys.exit()
    if sys.argv[1] == "serial":
        w, s = serial(paths, calls)
        print(json.dumps({"wall": w, "per": s}))
        sys.exit()
    if sys.argv[1] == "dask":
        import dask, distributed
        if sys.argv[4] == "clean":
            dask.config.set({"distributed.nanny.pre-spawn-environ": {}})
        elif sys.argv[4] == "malloc-only":
            dask.config.set({"distributed.nanny.pre-spawn-environ": {"OMP_NUM_THREADS": 1, "MKL_NUM_THREADS": 1, "OPENBLAS_NUM_THREADS": 1}})
        w, res, secs, info = B.run_dask(paths, calls, sys.argv[5], 1 if "," not in sys.argv[5] and sys.argv[5] != "gpu" else None)
        print(json.dumps({"wall": w, "per": secs}))
        sys.exit()
