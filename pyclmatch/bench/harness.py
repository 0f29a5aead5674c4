"""`pyclmatch bench`: every (graph, algorithm, device) combination, verified, timed.

For each combination: a memory estimate (skipped with a stated reason if it would not fit),
a warm-up run (program builds happen there; its wall time is reported as ``build_s``, never
inside a timing), then ``repeat`` timed runs, each verified. Every record keeps the whole call
as the user waits for it (``whole_seconds``: from the input object to the verified result),
the call without its verification (``seconds``) and the device time of the family's algorithm
(``device_seconds``). One record per timed
run goes to ``DIR/results.jsonl`` (fields :data:`RECORD_KEYS`); ``DIR/summary.md`` holds the
medians, min and max per combination.  Baselines (host libraries) run on the same graphs in
the same process with ``device="host"``.
"""
import datetime
import json
import os
import platform as _platform
import statistics
import sys

import numpy as np
import pyopencl as cl

from . import families as _families
from .. import generators
from .._progress import Progress
from ..engine import args
from ..engine.devices import describe_devices, get_device, usable_devices
from ..errors import InputError, PyclmatchError
from ..io import read_graph

__all__ = ["RECORD_KEYS", "SCHEMA_VERSION", "measure_bandwidth", "suite_graphs", "run_bench",
           "run_combination", "run_baselines", "device_meta", "select_devices", "write_summary"]

SCHEMA_VERSION = 2
#: fields present in every results.jsonl record (stable schema)
RECORD_KEYS = ("schema", "graph", "family", "algorithm", "device", "platform", "device_type",
               "run", "vertices", "edges", "seconds", "device_seconds", "phases", "edges_per_s",
               "whole_seconds",
               "bandwidth_fraction", "build_s", "verified", "quality", "skipped", "error",
               "host", "worker")


def measure_bandwidth(handle, nbytes=None):
    """Device copy bandwidth in bytes/s (read + write) from a copy kernel's profiling event:
    the best of 5 after a warm-up."""
    if nbytes is None:
        nbytes = min(64 << 20, handle.max_alloc // 4, handle.global_mem // 8)
    n = max(nbytes // 16, 1024)
    mf = cl.mem_flags
    src = cl.Buffer(handle.context, mf.READ_WRITE, n * 16)
    dst = cl.Buffer(handle.context, mf.READ_WRITE, n * 16)
    knl = handle.kernel("bench_copy.cl.mako", "bench_copy", index_t="int", offset_t="int",
                        mode="ct")
    wg = min(256, handle.max_work_group_size)
    gsz = min(((n + wg - 1) // wg) * wg, wg * handle.compute_units * 64)
    best = None
    for i in range(6):
        ev = knl(handle.queue, (gsz,), (wg,), src, dst, np.int64(n))
        ev.wait()
        t = (ev.profile.end - ev.profile.start) * 1e-9
        if i and t > 0:
            best = t if best is None else min(best, t)
    src.release()
    dst.release()
    return 2.0 * n * 16 / best if best else None


def suite_graphs(suite, rcp=False, graphs=None):
    """``(name, matrix)`` of a named suite ("small", "medium", "large"/"reference") or of every
    Matrix Market file of a folder; ``rcp`` as :func:`pyclmatch.generators.suite`."""
    if os.path.isdir(suite):
        for fn in sorted(os.listdir(suite)):
            if fn.endswith((".mtx", ".mtx.gz")):
                A = read_graph(os.path.join(suite, fn))
                name = fn.split(".mtx")[0]
                if rcp in (False, "both"):
                    yield name, A
                if rcp:
                    yield name + "-rcp", generators.permuted(A)
        return
    yield from generators.suite(graphs, rcp=rcp, size=suite)


def suite_names(suite, rcp=False, graphs=None):
    """``[(name, source)]`` of :func:`suite_graphs` without building a matrix: ``source`` is
    the file of a folder suite, else ``None``; :func:`suite_graph` builds one of them."""
    if os.path.isdir(suite):
        base = [(fn.split(".mtx")[0], os.path.abspath(os.path.join(suite, fn)))
                for fn in sorted(os.listdir(suite)) if fn.endswith((".mtx", ".mtx.gz"))]
    else:
        if suite not in generators.SUITES:
            raise InputError(f"unknown suite {suite!r}: small, medium, large/reference or a "
                             f"folder of .mtx files")
        table = generators.SUITES[suite]
        names = list(table) if graphs is None else list(graphs)
        unknown = [nm for nm in names if nm not in table]
        if unknown:
            raise InputError(f"unknown suite graph(s) {unknown}; available: {list(table)}")
        base = [(nm, None) for nm in names]
    out = []
    for nm, src in base:
        if rcp in (False, "both"):
            out.append((nm, src))
        if rcp:
            out.append((nm + "-rcp", src))
    return out


def suite_graph(suite, name, source=None):
    """The matrix of one entry of :func:`suite_names` (generated, or read from ``source``)."""
    rcp = name.endswith("-rcp")
    base = name[:-4] if rcp else name
    if source is not None:
        A = read_graph(source)
    else:
        A = generators.SUITES[suite][base]()
    return generators.permuted(A) if rcp else A


def select_devices(spec):
    """Handles for ``spec``: "all" (every OpenCL device), or comma-separated device specs."""
    if spec in (None, "", "auto"):
        return [get_device(None)]
    if spec == "all":
        return [get_device(f"{p}:{d}") for p, d, _ in usable_devices()]
    return [get_device(s.strip()) for s in spec.split(",") if s.strip()]


def _unusable_devices():
    """The devices ``--devices all`` leaves out, with the reason (their compiler fails)."""
    return [{"device": f"{r['device']} [{r['platform']}]", "index": r["index"],
             "reason": r["problem"]} for r in describe_devices() if not r["usable"]]


def _fits(handle, need, memory_limit=None):
    total = sum(need.values())
    cap = handle.global_mem if memory_limit is None else memory_limit
    big = max(need.values()) if need else 0
    if memory_limit is None and big > handle.max_alloc:
        return (f"largest buffer {big} B exceeds the device's max allocation "
                f"{handle.max_alloc} B")
    if total > cap:
        return f"estimated device memory {total} B exceeds {cap} B available"
    return None


def _record(**kw):
    rec = {k: None for k in RECORD_KEYS}
    rec.update(schema=SCHEMA_VERSION, host=_platform.node(), **kw)
    return rec


_bandwidths = {}


def device_meta(h):
    """The meta.json entry of device ``h`` with its copy bandwidth (measured once per handle)."""
    key = h.context.int_ptr
    if key not in _bandwidths:    # not h.memoize: its lock is held while the factory runs
        _bandwidths[key] = measure_bandwidth(h)
    bw = _bandwidths[key]
    return {"device": h.label, "platform": h.platform_name, "type": h.type,
            "compute_units": h.compute_units, "global_mem": h.global_mem,
            "bandwidth_bytes_per_s": bw}


def run_combination(h, fam, alg, gname, inp, repeat, memory_limit=None, bandwidth=None,
                    **extra):
    """The records of one (graph, algorithm, device) combination: a skip (memory estimate), an
    error, or ``repeat`` timed runs after a warm-up, each verified.  ``extra`` fields (the Dask
    worker) go into every record."""
    sz = fam.size(inp)
    base = dict(graph=gname, family=fam.name, algorithm=alg, device=h.label,
                platform=h.platform_name, device_type=h.type,
                vertices=sz["vertices"], edges=sz["edges"], **extra)
    why = _fits(h, fam.estimate_bytes(inp, alg), memory_limit)
    if why:
        return [_record(**base, verified=False, skipped=why)]
    try:
        warm = fam.run(h, alg, inp)
        runs = [fam.run(h, alg, inp) for _ in range(repeat)]
    except PyclmatchError as exc:   # a wrong or failed answer: recorded, the other
        return [_record(**base, verified=False,   # combinations still run
                        error=f"{type(exc).__name__}: {exc}"[:500])]
    # program builds (and first-touch costs) = warm-up minus a timed run
    build_s = warm["seconds"] - statistics.median(x["seconds"] for x in runs)
    out = []
    for i, r in enumerate(runs):
        dev_s = r.get("device_seconds") or r["seconds"]
        out.append(_record(**base, run=i, seconds=r["seconds"],
                           whole_seconds=r.get("whole_seconds"),
                           device_seconds=r.get("device_seconds"),
                           phases=r.get("phases", {}),
                           edges_per_s=sz["edges"] / r["seconds"] if r["seconds"] else None,
                           bandwidth_fraction=(sz["bytes"] / dev_s / bandwidth
                                               if bandwidth and dev_s else None),
                           build_s=max(build_s, 0.0),
                           verified=bool(r["verified"] and warm["verified"]
                                         and r["quality"] == warm["quality"]),
                           quality=r.get("quality", {})))
    return out


def run_baselines(fam, gname, inp, repeat, step=None, **extra):
    """The records of every installed host baseline of ``fam`` on one graph (``verified`` left
    ``None``: :func:`check_baselines` compares them with the device records)."""
    sz = fam.size(inp)
    limits = getattr(fam, "baseline_max_edges", {})
    out = []
    for bname, fn in fam.baselines().items():
        if step:
            step(f"{gname} {bname}")
        base = dict(graph=gname, family=fam.name, algorithm=bname, device="host",
                    platform="python", device_type="host", vertices=sz["vertices"],
                    edges=sz["edges"], **extra)
        if sz["edges"] > limits.get(bname, float("inf")):
            out.append(_record(**base, verified=False, skipped=(
                f"{sz['edges']} edges > {limits[bname]}: too slow for this baseline")))
            continue
        for i in range(repeat):
            r = fn(inp)
            out.append(_record(**base, run=i, seconds=r["seconds"],
                               whole_seconds=r["seconds"], phases={},
                               edges_per_s=sz["edges"] / r["seconds"] if r["seconds"] else None,
                               quality=r["quality"]))
    return out


def check_baselines(baseline_records, records):
    """Set ``verified`` of the timed baseline records of exact families: the same quality as
    the first verified device record of that graph and family."""
    for b in baseline_records:
        if b["skipped"]:
            continue
        fam = _families.FAMILIES.get(b["family"])
        ref = [x["quality"] for x in records if x["graph"] == b["graph"]
               and x["family"] == b["family"] and x["device"] != "host" and x["verified"]]
        b["verified"] = (b["quality"] == ref[0]) if ref and getattr(fam, "exact", False) else None
    return baseline_records


def check_bench_arguments(suite, algorithms, baselines, repeat, out, rcp, graphs, progress,
                          memory_limit, command):
    """The arguments of :func:`run_bench` (and of the Dask runner) but ``devices``, checked
    before any work: ``(combos, repeat, rcp, memory_limit)``. ``repeat`` is at most
    :data:`pyclmatch.engine.args.REPEAT_MAX`.

    Examples
    --------
    >>> combos, repeat, rcp, limit = check_bench_arguments(
    ...     "small", "bipartite:ppf", False, 2, None, "both", None, False, None, None)
    >>> [alg for _, alg in combos], repeat, rcp
    (['ppf'], 2, 'both')
    """
    if not isinstance(suite, (str, os.PathLike)):
        args.refuse("suite", suite, "'small', 'medium', 'large', 'reference' or a folder of "
                    ".mtx files")
    if not isinstance(algorithms, str) or not algorithms.strip(" ,"):
        args.refuse("algorithms", algorithms, "'all' or comma-separated families or "
                    "family:algorithm names")
    with args.blame("algorithms"):
        specs = _families.all_algorithms() if algorithms == "all" else algorithms.split(",")
        combos = [c for s in specs if s.strip() for c in _families.family_of(s.strip())]
    args.boolean("baselines", baselines)
    args.boolean("progress", progress)
    repeat = args.integer("repeat", repeat, low=1, high=args.REPEAT_MAX)
    for name, value in (("out", out), ("command", command)):
        if value is not None and not isinstance(value, (str, os.PathLike) if name == "out"
                                                else str):
            args.refuse(name, value, "None or a " + ("path" if name == "out" else "string"))
    rcp = generators.checked_rcp(rcp)
    if graphs is not None and (not isinstance(graphs, (list, tuple)) or not all(
            isinstance(g, str) for g in graphs)):
        args.refuse("graphs", graphs, "None or a list of graph names")
    memory_limit = args.integer("memory_limit", memory_limit, low=1, none=True)
    return combos, repeat, rcp, memory_limit


def run_bench(suite="small", algorithms="bipartite", devices="auto", baselines=False,
              repeat=3, out=None, rcp=False, graphs=None, progress=True, memory_limit=None,
              command=None):
    """Run the benchmark; returns ``(meta, records)`` and writes ``out`` if given.

    ``algorithms``: comma-separated ``family:alg``, bare algorithm names, family names or
    ``all``.  ``memory_limit`` (bytes) overrides the device's global memory in the estimate.
    """
    combos, repeat, rcp, memory_limit = check_bench_arguments(
        suite, algorithms, baselines, repeat, out, rcp, graphs, progress, memory_limit,
        command)
    handles = select_devices(devices)
    meta = {"schema": SCHEMA_VERSION,
            "command": command or " ".join(["pyclmatch"] + sys.argv[1:]),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": _platform.node(), "cpu_count": os.cpu_count(), "suite": suite,
            "rcp": rcp, "repeat": repeat, "algorithms": [f"{f.name}:{a}" for f, a in combos],
            "devices": [], "bandwidth_bytes_per_s": {},
            "devices_skipped": _unusable_devices() if devices == "all" else []}
    for h in handles:
        meta["devices"].append(device_meta(h))
        meta["bandwidth_bytes_per_s"][h.label] = meta["devices"][-1]["bandwidth_bytes_per_s"]
    glist = list(suite_graphs(suite, rcp=rcp, graphs=graphs))
    fams = {f.name: f for f, _ in combos}
    nbase = sum(len(f.baselines()) for f in fams.values()) if baselines else 0
    prog = Progress(len(glist) * (len(combos) * len(handles) + nbase), enabled=progress)
    records = []
    fh = None
    if out:
        os.makedirs(out, exist_ok=True)
        fh = open(os.path.join(out, "results.jsonl"), "w")

    def emit(rec):
        records.append(rec)
        if fh:
            fh.write(json.dumps(rec, default=float) + "\n")
            fh.flush()

    try:
        for gname, A in glist:
            inputs = {name: f.prepare(gname, A) for name, f in fams.items()}
            for fam, alg in combos:
                for h in handles:
                    prog.step(f"{gname} {alg} {h.name}")
                    for rec in run_combination(h, fam, alg, gname, inputs[fam.name], repeat,
                                               memory_limit,
                                               meta["bandwidth_bytes_per_s"].get(h.label)):
                        emit(rec)
            if baselines:
                for name, f in fams.items():
                    for rec in check_baselines(run_baselines(f, gname, inputs[name], repeat,
                                                             prog.step), records):
                        emit(rec)
    finally:
        if fh:
            fh.close()
    if out:
        with open(os.path.join(out, "meta.json"), "w") as mf:
            json.dump(meta, mf, indent=1, default=float)
        write_summary(out, meta, records)
    return meta, records


def aggregate(records):
    """``{(graph, algorithm, device): {...median/min/max...}}`` over the timed runs."""
    groups = {}
    for r in records:
        groups.setdefault((r["graph"], f"{r['family']}:{r['algorithm']}", r["device"]), []).append(r)
    out = {}
    for key, rs in groups.items():
        if rs[0]["skipped"]:
            out[key] = {"skipped": rs[0]["skipped"]}
            continue
        if rs[0]["error"]:
            out[key] = {"error": rs[0]["error"]}
            continue
        secs = [r["seconds"] for r in rs]
        agg = {"median_s": statistics.median(secs), "min_s": min(secs), "max_s": max(secs),
               "runs": len(rs), "verified": all(r["verified"] is not False for r in rs),
               "edges": rs[0]["edges"], "quality": rs[0]["quality"]}
        ws = [r["whole_seconds"] for r in rs if r["whole_seconds"] is not None]
        agg["whole_median_s"] = statistics.median(ws) if ws else None
        ds = [r["device_seconds"] for r in rs if r["device_seconds"] is not None]
        if ds:
            agg.update(device_median_s=statistics.median(ds), device_min_s=min(ds),
                       device_max_s=max(ds))
        bf = [r["bandwidth_fraction"] for r in rs if r["bandwidth_fraction"] is not None]
        agg["bandwidth_fraction"] = statistics.median(bf) if bf else None
        agg["edges_per_s"] = rs[0]["edges"] / agg["median_s"] if agg["median_s"] else None
        agg["build_s"] = rs[0]["build_s"]
        phases = {}
        for r in rs:
            for p, v in (r["phases"] or {}).items():
                phases.setdefault(p, []).append(v)
        agg["phases"] = {p: (statistics.median(v), min(v), max(v)) for p, v in phases.items()}
        out[key] = agg
    return out


def write_summary(out, meta, records):
    agg = aggregate(records)
    L = ["# pyclmatch bench", "", f"- date: {meta['date']}", f"- command: `{meta['command']}`",
         f"- host: {meta['host']} ({meta['cpu_count']} CPUs); suite: {meta['suite']} "
         f"(rcp: {meta['rcp']}); {meta['repeat']} timed runs after a warm-up (builds)", "",
         "Devices:", ""]
    for d in meta["devices"]:
        bw = d["bandwidth_bytes_per_s"]
        L.append(f"- {d['device']} ({d['type']}, {d['compute_units']} CUs): copy bandwidth "
                 + (f"{bw / 1e9:.1f} GB/s" if bw else "n/a"))
    for d in meta.get("devices_skipped", []):
        L.append(f"- not run: {d['index']} {d['device']}: {d['reason']}")
    L += ["", "Whole call with its verification (median), end-to-end seconds without the "
          "verification (median [min-max]), device seconds (median), edges/s, fraction of "
          "measured bandwidth, warm-up build seconds:", "",
          "| graph | algorithm | device | whole s | e2e s | device s | edges/s | bw frac | "
          "build s | verified | quality |", "|" + "---|" * 11]
    for (g, a, d), v in agg.items():
        if "skipped" in v:
            L.append(f"| {g} | {a} | {d} | skipped: {v['skipped']} | | | | | | | |")
            continue
        if "error" in v:
            L.append(f"| {g} | {a} | {d} | FAILED: {v['error']} | | | | | | False | |")
            continue
        dm = v.get("device_median_s")
        bf = v.get("bandwidth_fraction")
        wm = v.get("whole_median_s")
        whole = f"{wm:.4f}" if wm is not None else "-"
        L.append(f"| {g} | {a} | {d} | {whole} | {v['median_s']:.4f} [{v['min_s']:.4f}-{v['max_s']:.4f}]"
                 f" | {dm:.4f} |" if dm is not None else
                 f"| {g} | {a} | {d} | {whole} | {v['median_s']:.4f} [{v['min_s']:.4f}-{v['max_s']:.4f}] | - |")
        L[-1] += (f" {v['edges_per_s']:.3e} | {bf:.4f} |" if bf is not None
                  else f" {v['edges_per_s']:.3e} | - |")
        L[-1] += (f" {v['build_s']:.3f} |" if v["build_s"] is not None else " - |")
        L[-1] += f" {v['verified']} | {json.dumps(v['quality'])} |"
    L += ["", "Kernel phases (device seconds, median [min-max]):", ""]
    for (g, a, d), v in agg.items():
        if v.get("phases"):
            L.append(f"- {g} / {a} / {d}: " + ", ".join(
                f"{p} {m:.5f} [{lo:.5f}-{hi:.5f}]" for p, (m, lo, hi) in sorted(v["phases"].items())))
    with open(os.path.join(out, "summary.md"), "w") as fh:
        fh.write("\n".join(L) + "\n")
    return "\n".join(L)
