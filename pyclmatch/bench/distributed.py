"""`pyclmatch bench --dask ADDRESS|local`: the bench's (graph, algorithm, device) runs spread
over the devices of a Dask cluster (:mod:`pyclmatch.distributed`).

Each run is one task sent to a worker that holds a device of the requested model; the worker
builds the suite graph itself (a generator, or the Matrix Market file read where it runs, so
no matrix goes through the scheduler), keeps the last few prepared inputs for the next
algorithm on the same graph, and returns the same records as the serial harness with the
``host`` and ``worker`` that ran them.  The device axis of the table is the set of device
models (labels) the cluster's workers hold: workers with the same model share its runs.
Baselines run as tasks too (host libraries on the worker's host), checked against the device
records on the client.
"""
import datetime
import functools
import json
import os
import platform as _platform
import sys

from distributed import Client, as_completed, get_worker

from . import families as _families
from .harness import (Progress, SCHEMA_VERSION, check_baselines, check_bench_arguments,
                      device_meta, run_baselines,
                      run_combination, suite_graph, suite_names, write_summary)
from ..distributed import (NoDeviceHere, _device_lock, bound_workers, host_devices,
                           local_cluster, worker_handle)
from ..engine import args
from ..errors import DeviceError

__all__ = ["run_bench_dask"]


@functools.lru_cache(maxsize=2)
def _matrix(suite, gname, source):
    return suite_graph(suite, gname, source)


@functools.lru_cache(maxsize=4)
def _input(suite, gname, source, family):
    return _families.FAMILIES[family].prepare(gname, _matrix(suite, gname, source))


def _bench_task(suite, gname, source, family, alg, repeat, memory_limit, label):
    """On a worker: one combination on the worker's device; ``(records, device meta)``."""
    worker = get_worker()
    h = worker_handle()
    if h.label != label:
        raise NoDeviceHere(f"worker {worker.address} holds {h.label}, not {label}")
    inp = _input(suite, gname, source, family)
    with _device_lock(h):
        dmeta = device_meta(h)
        recs = run_combination(h, _families.FAMILIES[family], alg, gname, inp, repeat,
                               memory_limit, dmeta["bandwidth_bytes_per_s"],
                               worker=worker.address)
    return recs, dmeta


def _baseline_task(suite, gname, source, family, repeat):
    inp = _input(suite, gname, source, family)
    return run_baselines(_families.FAMILIES[family], gname, inp, repeat,
                         worker=get_worker().address)


def _kind(devices):
    if devices is None:
        return "auto"
    if not isinstance(devices, str) or devices.strip().lower() not in (
            "auto", "all", "gpu", "cpu", "accelerator"):
        args.refuse("devices", devices, "one of 'auto', 'all', 'gpu', 'cpu', 'accelerator' "
                    "with --dask (the workers own their devices)")
    return devices.strip().lower()


def run_bench_dask(address, suite="small", algorithms="bipartite", devices="auto",
                   baselines=False, repeat=3, out=None, rcp=False, graphs=None, progress=True,
                   memory_limit=None, command=None):
    """:func:`pyclmatch.bench.run_bench` over a Dask cluster.

    Parameters
    ----------
    address : str
        A scheduler's address, or ``"local"`` for :func:`pyclmatch.distributed.local_cluster`
        (``devices="auto"``: the host's GPUs, else its CPU device).
    suite, algorithms, devices, baselines, repeat, out, rcp, graphs, progress, memory_limit,
    command
        As :func:`pyclmatch.bench.run_bench`; ``devices`` is a kind of device (``auto``,
        ``all``, ``gpu``, ``cpu``, ``accelerator``): the workers own their devices.

    Returns
    -------
    (dict, list of dict)
        The run's meta data and its records; written into ``out`` when given.

    Examples
    --------
    >>> from pyclmatch.bench.distributed import run_bench_dask
    >>> meta, records = run_bench_dask("local", devices="cpu", graphs=["grid"],
    ...                                repeat=1, progress=False)   # doctest: +SKIP
    """
    if not isinstance(address, str) or not address.strip():
        args.refuse("address", address, "'local' or a scheduler's address "
                    "('tcp://host:8786')")
    combos, repeat, rcp, memory_limit = check_bench_arguments(
        suite, algorithms, baselines, repeat, out, rcp, graphs, progress, memory_limit,
        command)
    kind = _kind(devices)
    glist = suite_names(os.fspath(suite), rcp=rcp, graphs=graphs)
    client, cluster, kind = _connect(address, kind)
    try:
        bindings, ready, kind = _ready_workers(client, kind, address)
        meta = _meta(client, ready, command, suite, rcp, repeat, combos)
        tasks = _submit(client, bindings, ready, glist, combos, suite, repeat, memory_limit,
                        baselines)
        records = _collect(tasks, meta, out, Progress(len(tasks), enabled=progress))
        order = {g: i for i, (g, _) in enumerate(glist)}
        records.sort(key=lambda r: (order.get(r["graph"], 0), r["device"] == "host"))
        if out:
            with open(os.path.join(out, "meta.json"), "w") as mf:
                json.dump(meta, mf, indent=1, default=float)
            write_summary(out, meta, records)
        return meta, records
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _connect(address, kind):
    """``(client, cluster or None, kind)``: a client of the scheduler at ``address``, or of a
    new local cluster for ``"local"`` (where ``auto`` becomes the host's GPUs, else its CPU)."""
    if address != "local":
        return Client(address), None, kind
    if kind == "auto":
        kind = "gpu" if host_devices("gpu") else "cpu"
    cluster = local_cluster(kind, dashboard_address=None)
    return Client(cluster), cluster, kind


def _ready_workers(client, kind, address):
    """``(bindings, ready, kind)``: every worker's binding, the workers that hold a device of
    ``kind`` (``auto``: the GPUs when any worker holds one, else every bound worker)."""
    bindings, bound = bound_workers(client, "all" if kind == "auto" else kind)
    if kind == "auto":
        kind = "gpu" if any(b["type"] == "gpu" for b in bound.values()) else "all"
    ready = {a: b for a, b in bound.items() if kind == "all" or b["type"] == kind}
    if not ready:
        raise DeviceError(f"no worker of the Dask cluster at {address} holds a {kind} "
                          f"device: {bindings}")
    return bindings, ready, kind


def _meta(client, ready, command, suite, rcp, repeat, combos):
    """The run's ``meta.json`` before the first record (devices are added as they report)."""
    return {"schema": SCHEMA_VERSION,
            "command": command or " ".join(["pyclmatch"] + sys.argv[1:]),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "host": _platform.node(), "cpu_count": os.cpu_count(), "suite": suite,
            "rcp": rcp, "repeat": repeat,
            "algorithms": [f"{f.name}:{a}" for f, a in combos],
            "devices": [], "bandwidth_bytes_per_s": {}, "devices_skipped": [],
            "dask": {"scheduler": client.scheduler.address,
                     "workers": {a: {k: b.get(k) for k in ("host", "device", "spec", "how")}
                                 for a, b in ready.items()}}}


def _submit(client, bindings, ready, glist, combos, suite, repeat, memory_limit, baselines):
    """One task per (graph, algorithm, device model), and per (graph, family) of baselines."""
    labels = {}
    for a, b in sorted(ready.items()):
        labels.setdefault(b["device"], []).append(a)
    fams = sorted({f.name for f, _ in combos})
    # one device model on every worker: no restriction, so a lost worker's runs go to any
    # worker (its restarted self included); several models: each run to its model's workers
    one = len(labels) == 1 and len(ready) == len(bindings)
    tasks = []
    for gname, src in glist:
        for fam, alg in combos:
            for label, addrs in labels.items():
                tasks.append(client.submit(
                    _bench_task, suite, gname, src, fam.name, alg, repeat, memory_limit,
                    label, workers=None if one else addrs, retries=2, pure=False,
                    key=f"pyclmatch-bench-{gname}-{fam.name}:{alg}-{len(tasks)}"))
        if baselines:
            for name in fams:
                tasks.append(client.submit(
                    _baseline_task, suite, gname, src, name, repeat,
                    workers=None if one else list(ready), retries=2, pure=False,
                    key=f"pyclmatch-bench-{gname}-{name}-baselines-{len(tasks)}"))
    return tasks


def _collect(tasks, meta, out, prog):
    """The records of ``tasks`` as they finish (appended to ``out/results.jsonl``), the
    baselines checked against the device records and put last; adds each device to ``meta``."""
    records, base_records = [], []
    fh = None
    if out:
        os.makedirs(out, exist_ok=True)
        fh = open(os.path.join(out, "results.jsonl"), "w")
    try:
        for fut in as_completed(tasks):
            res = fut.result()
            if isinstance(res, tuple):
                recs, dmeta = res
                if dmeta["device"] not in meta["bandwidth_bytes_per_s"]:
                    meta["devices"].append(dmeta)
                    meta["bandwidth_bytes_per_s"][dmeta["device"]] = \
                        dmeta["bandwidth_bytes_per_s"]
                records.extend(recs)
                _write(fh, recs)
            else:
                base_records.extend(res)
            prog.step(fut.key[len("pyclmatch-bench-"):])
        check_baselines(base_records, records)
        records.extend(base_records)
        _write(fh, base_records)
    finally:
        if fh:
            fh.close()
    return records


def _write(fh, recs):
    """Append ``recs`` to the open results file ``fh`` (nothing when ``fh`` is None)."""
    if fh:
        for rec in recs:
            fh.write(json.dumps(rec, default=float) + "\n")
        fh.flush()
