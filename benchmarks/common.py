"""Helpers shared by the benchmarks of this folder: timing (warm-up, medians), markdown
tables, results writing (results.json + results.md with the command, date, device and host),
peers in forked children (scipy with a time limit, NetworKit) and graph lookup (the reference
suite of :mod:`pyclmatch.generators` and the files of shared/data/graphs, found through
``PYCLMATCH_SHARED`` or ``../shared`` beside the checkout).

Importing it puts the checkout's package first on ``sys.path``, so a script run from
``benchmarks/`` measures the code beside it; :func:`use_tests` adds ``tests/`` (the host
references some benchmarks check against).
"""
import datetime
import json
import multiprocessing as mp
import os
import platform
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import maximum_bipartite_matching

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import pyclmatch  # noqa: E402  (the checkout's package)

#: where the shared graph files are looked for, first found wins
SHARED_DIRS = [os.path.join(os.environ.get("PYCLMATCH_SHARED", "/nonexistent"), "data", "graphs"),
               os.path.join(ROOT, "..", "shared", "data", "graphs")]


def use_tests():
    """Put ``tests/`` on ``sys.path`` (its host references: dm_reference, bipartite_cases)."""
    path = os.path.join(ROOT, "tests")
    if path not in sys.path:
        sys.path.insert(0, path)


def log(msg):
    print(msg, flush=True)


# --- timing ---------------------------------------------------------------------------------

def med(xs):
    """The median as a float, None for no values."""
    return float(statistics.median(xs)) if len(xs) else None


def times(fn, repeat, before=None):
    """``repeat`` timed calls of ``fn`` (``before()`` untimed ahead of each; the previous
    output is freed before the timer starts): ``(seconds of each call, last output)``."""
    ts, out = [], None
    for _ in range(repeat):
        if before:
            before()
        out = None
        t0 = time.perf_counter()
        out = fn()
        ts.append(time.perf_counter() - t0)
    return ts, out


def kernel_sum(timings, phases=None):
    """Seconds of the ``kernel:*`` entries of a result's timings (only ``phases`` if given)."""
    return sum(v for k, v in timings.items() if k.startswith("kernel:")
               and (phases is None or k[7:] in phases))


def wall_steps(timings):
    """The wall-clock steps of a result's timings (the ``kernel:*`` entries left out)."""
    return {k: v for k, v in timings.items() if not k.startswith("kernel:")}


# --- tables and results ---------------------------------------------------------------------

def fmt(x, p=4):
    """A cell: '-' for None, floats with ``p`` decimals, anything else as str."""
    return "-" if x is None else (f"{x:.{p}f}" if isinstance(x, float) else str(x))


def seconds(items):
    """``"name 0.1234 name 0.0012"``: the (name, seconds) pairs of ``items`` on one line."""
    return " ".join(f"{k} {v:.4f}" for k, v in items)


def ratio(a, b):
    return a / b if a and b else None


def table(header, rows):
    """Markdown table lines: ``header`` a list of column names, ``rows`` lists of cells."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def heading(title, meta):
    """The first lines of a results.md: title and device, command, date, host, repeat."""
    return [f"# {title} — {meta['device']}", "", f"Command: `{meta['command']}`  ",
            f"Date: {meta['date']}; host {meta['host']}; repeat {meta['repeat']} (medians)", ""]


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def run_meta(handle=None, **extra):
    """The header of a benchmark's results: device, command line, date (UTC) and host, with
    ``extra`` keys."""
    meta = {"command": " ".join(["python3"] + sys.argv), "date": now(),
            "host": f"{platform.node()} ({os.cpu_count()} cores)"}
    if handle is not None:
        meta["device"] = handle.label
    return dict(meta, **extra)


def write_json(path, doc, default=str):
    """``doc`` as indented JSON at ``path`` (what json does not take through ``default``)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, default=default)


def save_results(out, meta, rows, markdown, **more):
    """Write ``out/results.json`` (meta, rows and ``more``) and ``out/results.md``
    (``markdown(meta, rows)``); called after every row, so a run stopped early keeps what it
    measured."""
    write_json(os.path.join(out, "results.json"), dict({"meta": meta, "rows": rows}, **more))
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(markdown(meta, rows))


# --- peers ----------------------------------------------------------------------------------

def _child(conn, fn, args):
    t0 = time.perf_counter()
    out = fn(*args)
    conn.send((time.perf_counter() - t0, out))


def start_child(fn, *args):
    """``fn(*args)`` in a forked child (on its own core; the inputs shared copy-on-write),
    timed there; the job for :func:`finish_child`."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(child, fn, args))
    p.start()
    return p, parent, time.perf_counter()


def _scipy_cardinality(A):
    return int((maximum_bipartite_matching(A, perm_type="column") >= 0).sum())


def start_scipy(A):
    """scipy's ``maximum_bipartite_matching`` in a forked child, so that a graph it cannot
    finish in time is reported as such; the job for :func:`finish_child`."""
    return start_child(_scipy_cardinality, A)


def finish_child(job, timeout):
    """The ``(seconds, result)`` the child ``job`` sends, or ``(None, None)`` after
    killing it once ``timeout`` seconds have passed since its start."""
    p, parent, t0 = job
    if parent.poll(max(0.0, timeout - (time.perf_counter() - t0))):
        sec, card = parent.recv()
        p.join()
        return sec, card
    p.kill()
    p.join()
    return None, None


def networkit():
    """The networkit module on all cores, or None where it is not installed."""
    try:
        import networkit as nk
        nk.setNumberOfThreads(os.cpu_count() or 1)
        return nk
    except Exception:
        return None


def nk_graph(nk, n, u, v, w=None):
    """The undirected NetworKit graph of the edges ``u[i] - v[i]`` (each once), weights ``w``."""
    make = getattr(nk, "GraphFromCoo", None) or getattr(nk.graph, "GraphFromCoo")
    data = np.ascontiguousarray(w, np.float64) if w is not None else np.ones(len(u))
    return make((data, (np.ascontiguousarray(u, np.uint64), np.ascontiguousarray(v, np.uint64))),
                n=n, weighted=w is not None, directed=False)


def in_child(fn, *args):
    """``fn(*args)`` in a fresh child process (spawned: nothing of this process's state, its
    OpenCL context or its thread pools, is shared), its result returned. For a peer run side
    by side with ours in one command without sharing a process: a multithreaded peer's
    runtime (OpenMP's waiting threads) then does not hold the cores our host thread needs,
    and ours does not slow it. ``fn`` must be importable (a module-level function).

    Examples
    --------
    >>> in_child(divmod, 7, 2)
    (3, 1)
    """
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)


def time_nk(make, repeat):
    """Median seconds of ``make().run()`` (the algorithm object built untimed)."""
    out = []
    for _ in range(repeat):
        algo = make()
        t0 = time.perf_counter()
        algo.run()
        out.append(time.perf_counter() - t0)
    return med(out)


def worker_idle(timeout=30.0):
    """Seconds waited until ``auto``'s race worker is idle (a host attempt an earlier call's
    device win left running is killed and the worker restarted), so that the next raced
    call starts as a user's next call would."""
    from pyclmatch.bipartite.race import HostWorker
    w, t0 = HostWorker.get(), time.perf_counter()
    while not w.available() and time.perf_counter() - t0 < timeout:
        time.sleep(0.005)
    return time.perf_counter() - t0


# --- graphs ---------------------------------------------------------------------------------

def shared_folder():
    """shared/data/graphs, or None where neither place has it."""
    return next((d for d in SHARED_DIRS if os.path.isdir(d)), None)


def shared_path(name):
    """The path of the shared graph file ``name`` (None where there is no such file)."""
    folder = shared_folder()
    path = folder and os.path.join(folder, name)
    return path if path and os.path.exists(path) else None


def shared_graphs(names="all", max_edges=float("inf"), required=False):
    """(file name, CSR with unit float64 data) of the shared graph files: every one or the
    comma-separated ``names``, of at most ``max_edges`` stored entries. A file the reader
    does not take is skipped with a line on stderr; ``required``: no folder is an error."""
    folder = shared_folder()
    if folder is None:
        if required:
            raise SystemExit("shared/data/graphs not found (set PYCLMATCH_SHARED)")
        return
    files = sorted(f for f in os.listdir(folder) if not f.endswith(".tsv")
                   and not os.path.isdir(os.path.join(folder, f)))
    for f in (files if names == "all" else names.split(",")):
        try:
            A = sp.csr_matrix(pyclmatch.read_graph(os.path.join(folder, f)))
        except Exception as exc:      # a format the reader does not take: say so, go on
            print(f"skip {f}: {exc}", file=sys.stderr)
            continue
        if A.nnz <= max_edges:
            A.data = np.ones_like(A.data, dtype=np.float64)
            yield f, A


def symmetric_pattern(A):
    """The symmetrized pattern of ``A`` without self-loops, unit float32 data, sorted lists."""
    S = sp.csr_matrix(A, dtype=np.float32)
    S.data[:] = 1
    S = (S + S.T).tocsr()
    S.setdiag(0)
    S.eliminate_zeros()
    S.data[:] = 1
    S.sort_indices()
    return S
