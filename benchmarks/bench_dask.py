#!/usr/bin/env python3
"""A batch of graphs over Dask workers, one per device (issue 18): 1 device vs all devices.

64 graphs (``--graphs``) of the suite's four families (uniform, Kronecker, Delaunay, grid) at
2^19-2^20 vertices (``--log2 19``: graph i has 2^(log2 + i % 2) vertices; ``--log2 10`` is the
tiny run for a 2-core machine), each with its own seed, and mixed calls: graph i runs
``maximum_matching`` (i % 3 == 0), ``weighted_matching`` on the symmetrized graph with random
weights (i % 3 == 1) or deterministic ``louvain`` (i % 3 == 2).  The inputs are written once as
scipy ``.npz`` files (``--data``, generated in parallel; reused when present) and the batch
passes their *paths*: each worker reads its graphs, nothing large goes through the scheduler.

Runs, each timed from the list of paths to the list of results in the client:

* ``serial``: one process, ``[call(read_graph(p), device=D) for p in paths]`` on one device;
* ``dask-1``: ``map_graphs`` on a LocalCluster of one worker (the first device);
* ``dask-all``: ``map_graphs`` on a LocalCluster of one worker per device (``--devices``).

Every per-graph result of the Dask runs is checked against the serial one (matching
cardinality; Suitor mate array and weight; Louvain membership and modularity); a run is
warmed up first (cluster start, program builds) on the first 3 graphs, not timed.
``results.json`` / ``results.md`` hold the command line, per-run wall seconds, the speedup of
all devices over one, the sum of per-graph call seconds measured in the workers (the device
busy time beside the batch's wall clock) and the equality checks.

    python benchmarks/bench_dask.py --devices gpu --out benchmarks/results/dask-h100
    python benchmarks/bench_dask.py --devices cpu --log2 10 --graphs 16 --workers 2 \\
        --out benchmarks/results/dask-pocl-tiny
"""
import argparse
import multiprocessing as mp
import os
import platform
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import common  # noqa: E402
import pyclmatch  # noqa: E402
from pyclmatch import generators  # noqa: E402
from pyclmatch.weighted.graph import with_random_weights  # noqa: E402

CALLS = ("maximum_matching", "weighted_matching", "louvain")


def graph_spec(i, log2):
    """(family, call, logn, seed) of graph ``i``."""
    fam = ("uniform", "kron", "delaunay", "grid")[(i // 3) % 4]   # every family meets every call
    return fam, CALLS[i % 3], log2 + i % 2, 1000 + i


def build(args):
    i, log2, path = args
    fam, call, logn, seed = graph_spec(i, log2)
    if fam == "uniform":
        A = generators.uniform(1 << logn, 4, seed=seed)
    elif fam == "kron":
        A = generators.kron(logn, seed=seed)
    elif fam == "delaunay":
        A = generators.delaunay(logn, seed=seed)
    else:
        A = generators.grid(int(round(2 ** (logn / 2))), seed=seed)
    if call == "weighted_matching":
        A = with_random_weights(A, seed=seed)._csr
    elif call == "louvain":
        A = ((A + A.T) > 0).astype(np.float64).tocsr()
        A.setdiag(0)
        A.eliminate_zeros()
    tmp = path + ".tmp.npz"
    sp.save_npz(tmp, A, compressed=False)
    os.replace(tmp, path)
    return path


def kwargs_of(call):
    return {"deterministic": True, "seed": 0} if call == "louvain" else {}


def summary(call, r):
    """What must be equal between runs, as JSON-able values."""
    if isinstance(r, Exception):
        return {"error": f"{type(r).__name__}: {r}"}
    if call == "maximum_matching":
        return {"cardinality": int(r.cardinality), "verified": bool(r.verified)}
    if call == "weighted_matching":
        return {"weight": float(r.weight), "cardinality": int(r.cardinality),
                "mate_sha": _digest(r.mate)}
    return {"modularity": float(r.modularity), "communities": int(r.n_communities),
            "membership_sha": _digest(r.membership)}


def _digest(a):
    import hashlib
    return hashlib.sha1(np.ascontiguousarray(a, np.int64).tobytes()).hexdigest()[:16]


def call_timed(call, graph, device=None, **kw):
    """The call, with its seconds (read + call) beside the result."""
    t0 = time.perf_counter()
    if isinstance(graph, str):
        graph = pyclmatch.read_graph(graph)
    r = getattr(pyclmatch, call)(graph, device=device, **kw)
    return r, time.perf_counter() - t0


def load_job(path, call):
    """A graph of the batch as map_graphs sees it: a callable run on the worker."""
    t0 = time.perf_counter()
    return t0, pyclmatch.read_graph(path), call


def run_job(job, device=None):
    t0, A, call = job
    r = getattr(pyclmatch, call)(A, device=device, **kwargs_of(call))
    return r, time.perf_counter() - t0


def run_dask(paths, calls, devices, n_workers):
    """map_graphs of the whole batch (mixed calls) on a fresh LocalCluster:
    ``(wall s, [results], [per-graph s], worker bindings)``."""
    import functools
    from distributed import Client
    from pyclmatch.distributed import local_cluster, map_graphs, worker_devices
    cluster = local_cluster(devices, n_workers=n_workers, dashboard_address=None)
    client = Client(cluster)
    jobs = [functools.partial(load_job, p, c) for p, c in zip(paths, calls)]
    try:
        info = worker_devices(client)
        # warm-up (not timed): imports and program builds of every call on every worker
        warm = [i for call in CALLS for i in [k for k, c in enumerate(calls) if c == call][:len(info)]]
        map_graphs(run_job, [jobs[i] for i in warm], client=client, devices="all")
        t0 = time.perf_counter()
        out = map_graphs(run_job, jobs, client=client, devices="all")
        wall = time.perf_counter() - t0
    finally:
        client.close()
        cluster.close()
    results = [r if isinstance(r, Exception) else r[0] for r in out]
    secs = [None if isinstance(r, Exception) else r[1] for r in out]
    return wall, results, secs, info


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--devices", default="gpu", help="gpu, cpu or all (the workers' devices)")
    ap.add_argument("--graphs", type=int, default=64)
    ap.add_argument("--workers", type=int, default=None,
                    help="workers of the all-devices run (default: one per device; more share "
                         "devices round-robin, e.g. 2 PoCL workers on a 2-core machine)")
    ap.add_argument("--log2", type=int, default=19, help="graphs have 2^log2..2^(log2+1) vertices")
    ap.add_argument("--data", default=None, help="folder of the .npz inputs (default OUT/graphs)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--keep-data", action="store_true", help="keep the .npz inputs")
    return ap.parse_args()


def prepare(args):
    """The batch's names, .npz paths, calls and sizes (inputs generated in parallel where
    missing) and the seconds the generation took."""
    os.makedirs(args.out, exist_ok=True)
    data = args.data or os.path.join(args.out, "graphs")
    os.makedirs(data, exist_ok=True)
    specs = [graph_spec(i, args.log2) for i in range(args.graphs)]
    names = [f"{i:03d}-{f}-{c}-2^{n}" for i, (f, c, n, _) in enumerate(specs)]
    paths = [os.path.abspath(os.path.join(data, nm + ".npz")) for nm in names]
    calls = [c for _, c, _, _ in specs]
    t0 = time.perf_counter()
    todo = [(i, args.log2, p) for i, p in enumerate(paths) if not os.path.exists(p)]
    if todo:
        with mp.get_context("spawn").Pool(min(len(todo), os.cpu_count() or 1)) as pool:
            pool.map(build, todo, chunksize=1)
    gen_s = time.perf_counter() - t0
    sizes = []
    for p in paths:
        with np.load(p) as z:
            sizes.append({"vertices": int(z["shape"][0]), "entries": int(z["indptr"][-1])})
    print(f"{len(paths)} graphs ready in {gen_s:.1f} s", flush=True)
    return data, names, paths, calls, sizes, gen_s


def run_serial(paths, calls, first):
    """The serial reference: one process, one device, a warm-up call of each kind first
    (as for the clusters); (results, per-call seconds, the run's entry)."""
    dev = pyclmatch.get_device(first)
    for call in CALLS:
        i = calls.index(call)
        call_timed(call, paths[i], device=dev, **kwargs_of(call))
    t0 = time.perf_counter()
    serial, serial_s = [], []
    for p, call in zip(paths, calls):
        try:
            r, s = call_timed(call, p, device=dev, **kwargs_of(call))
        except pyclmatch.PyclmatchError as exc:
            r, s = exc, None
        serial.append(r)
        serial_s.append(s)
    serial_wall = time.perf_counter() - t0
    print(f"serial on {dev.label}: {serial_wall:.2f} s", flush=True)
    run = {"wall_s": serial_wall, "workers": 1, "devices": [f"{first} {dev.label}"],
           "call_s_sum": sum(s for s in serial_s if s)}
    return serial, serial_s, {"serial": run}


def run_clusters(args, paths, calls, names, first, ref, runs):
    """``dask-1`` and ``dask-all``, each checked against the serial results ``ref``."""
    checks = {}
    for label, nw_devices, nw in (("dask-1", first, 1), ("dask-all", args.devices, args.workers)):
        wall, res, secs, info = run_dask(paths, calls, nw_devices, nw)
        got = [summary(c, r) for c, r in zip(calls, res)]
        bad = [names[i] for i in range(len(paths)) if got[i] != ref[i]]
        checks[label] = {"equal_to_serial": not bad, "different": bad}
        runs[label] = {"wall_s": wall, "workers": len(info),
                       "devices": sorted({f"{b['spec']} {b['device']}" for b in info.values()
                                          if b and b.get("device")}),
                       "call_s_sum": sum(s for s in secs if s)}
        print(f"{label}: {len(info)} worker(s) {wall:.2f} s, equal to serial: {not bad}",
              flush=True)
    return checks


def report(doc, sizes, calls):
    """The results.md lines of the run's ``doc``."""
    L = ["# Batch of graphs over Dask workers (one per device)", "",
         f"- command: `{doc['command']}`", f"- date: {doc['date']}, host {doc['host']} "
         f"({doc['cpu_count']} CPUs)",
         f"- {len(sizes)} graphs, {min(s['vertices'] for s in sizes)}-"
         f"{max(s['vertices'] for s in sizes)} vertices, "
         f"{sum(s['entries'] for s in sizes) / 1e6:.1f} M stored entries in all; "
         f"calls: {', '.join(f'{c} x{calls.count(c)}' for c in CALLS)}; inputs as .npz paths "
         f"read on the workers (generated in {doc['generate_s']:.0f} s)", "",
         "| run | workers | devices | batch wall s | sum of per-graph call s | equal to serial |",
         "|---|---|---|---|---|---|"]
    for label, r in doc["runs"].items():
        eq = "reference" if label == "serial" else str(doc["checks"][label]["equal_to_serial"])
        L.append(f"| {label} | {r['workers']} | {', '.join(r['devices'])} | {r['wall_s']:.2f} | "
                 f"{r['call_s_sum']:.2f} | {eq} |")
    L += ["", "Speedup of all devices over one (dask-all vs dask-1): "
          f"{doc['speedup_all_vs_1']:.2f}x", ""]
    return L


def main():
    args = parse_args()
    data, names, paths, calls, sizes, gen_s = prepare(args)
    from pyclmatch.distributed import host_devices
    devs = host_devices(args.devices)
    if not devs:
        sys.exit(f"no usable {args.devices} device")
    first = f"{devs[0][0]}:{devs[0][1]}"
    serial, serial_s, runs = run_serial(paths, calls, first)
    ref = [summary(c, r) for c, r in zip(calls, serial)]
    checks = run_clusters(args, paths, calls, names, first, ref, runs)
    speedup = runs["dask-1"]["wall_s"] / runs["dask-all"]["wall_s"]
    doc = dict(common.run_meta(None, host=platform.node(), cpu_count=os.cpu_count()),
               generate_s=gen_s,
               graphs=[dict(name=nm, call=c, **sz) for nm, c, sz in zip(names, calls, sizes)],
               runs=runs, speedup_all_vs_1=speedup, checks=checks,
               per_graph=[{"graph": nm, "serial": r, "serial_s": s}
                          for nm, r, s in zip(names, ref, serial_s)])
    common.write_json(os.path.join(args.out, "results.json"), doc)
    L = report(doc, sizes, calls)
    with open(os.path.join(args.out, "results.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")
    print("\n".join(L))
    if not args.keep_data and not args.data:
        for p in paths:
            os.remove(p)
        os.rmdir(data)
    return 0 if all(c["equal_to_serial"] for c in checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
