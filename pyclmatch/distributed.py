"""Batches of graphs over every OpenCL device of one or many hosts, on Dask's distributed scheduler.

Install with ``pip install 'pyclmatch[dask]'`` (dask and distributed).  Dask keeps the
scheduling, the dashboard, worker loss and rescheduling; this module adds what OpenCL needs:

* :class:`DevicePlugin`, a worker plugin that binds each Dask worker to **one** OpenCL device
  (as dask-cuda puts one worker on each GPU); :func:`worker_devices` reads what each worker
  announces.  Calls on one device run one at a time, whatever the worker's thread count.
  (Not Dask worker resources: resources set by a plugin after the worker joined do not wake
  tasks that wait for them, so the tasks of a lost worker would wait forever.)  A worker takes, in this order: the device its name is assigned (:func:`local_cluster`),
  the device named by ``PYCLMATCH_DEVICE`` in its environment (the ``CUDA_VISIBLE_DEVICES`` of
  dask-cuda: ``PYCLMATCH_DEVICE=0:1 dask worker tcp://...``), else the first device of the
  requested kind that no other worker of the host holds (a lock file per device in the
  temporary folder, released when the worker exits or dies).  A worker that finds no free
  device stays unbound and gets no pyclmatch work.
* :func:`local_cluster` starts a ``LocalCluster`` with one single-threaded worker process per
  usable device of the host: the GPUs by default; the CPU device only when asked
  (``devices="cpu"`` or ``"all"``), since it shares its cores with the workers.
* :func:`map_graphs` runs any pyclmatch call over a sequence of graphs on the workers' devices
  and returns the results in order.  A graph is a path (read on the worker by
  :func:`pyclmatch.read_graph`: nothing large goes through the scheduler), a matrix or other
  in-memory input (sent straight to a worker with ``Client.scatter``), or a zero-argument
  callable that builds the input on the worker.  A graph that fails (bad input, device error,
  a failed certificate) comes back as its exception at its place in the list and the rest of
  the batch finishes.  When a worker is lost Dask reruns its tasks elsewhere; a graph whose
  scattered input was lost with the worker is scattered again from the client's copy and
  resubmitted (``retries`` times).
* :func:`worker_devices` lists what each worker of a cluster owns (host, device, how bound).

Two ways to start::

    from pyclmatch.distributed import local_cluster, map_graphs
    from distributed import Client
    client = Client(local_cluster())            # one worker per GPU of this host
    results = map_graphs(pyclmatch.maximum_matching, paths, client=client)

    client = Client("tcp://scheduler:8786")     # an existing cluster, used as it is
    results = map_graphs("louvain", matrices, client=client, resolution=0.5)

``pyclmatch bench --dask ADDRESS|local`` spreads the (graph, algorithm, device) runs of a bench
over a cluster the same way (:func:`pyclmatch.bench.distributed.run_bench_dask`).

Next step: one graph larger than one device
-------------------------------------------
This module scales over *many* graphs.  A single graph that outgrows one device's memory needs
the graph itself partitioned over workers, each holding one part on its device, with a
communication step per round; which families allow that:

* **Louvain** partitions well, as cuGraph's multi-GPU Louvain (built on Dask and NCCL) does:
  vertices are split in 1-D ranges (cuGraph: 2-D edge partitioning over a GPU grid); each device
  runs the local-moving phase on the vertices it owns, reading the community of remote
  neighbours from a replicated community array and the community totals from an allreduce;
  the moves of one sweep are exchanged (allgather of changed labels) before the next; the
  aggregation step is a distributed shuffle of (community, community, weight) triples to the
  owner of the new vertex, after which the coarse graph usually fits one device and the
  single-device driver finishes.  The modularity gain is evaluated with stale remote labels,
  as the parallel (non-deterministic) variant already does within one device.
* **Suitor** (and b-Suitor) partitions by vertex ranges: each device owns the suitor slots of
  its range and scans the adjacency of its vertices; a proposal to a remote vertex becomes a
  message to its owner, which accepts or bounces it (displacing the previous suitor, who is
  sent back to its owner to propose again).  Rounds end with an exchange of pending
  proposals; the result is the same greedy matching (Manne and Halappanavar's distributed
  Suitor), so the certificate check does not change.  Stable marriage partitions the same way
  (men by range, proposals routed to the owner of the woman).
* The exact bipartite algorithms (augmenting-path BFS, push-relabel) partition poorly: every
  phase is a global BFS or relabel with a frontier exchange per level, and the long paths of
  road-like graphs make that thousands of synchronisations; a distributed matching would do
  the greedy/Karp-Sipser start and most augmentations per part and finish on one device.

What the Dask layer would need: a partitioned graph object (Dask futures of CSR row blocks,
one per worker, built where the data is read, never gathered); a *collective* between the
workers' devices, either NCCL-like peer transfers (OpenCL has none across contexts, so device
to host, then UCX/TCP through ``distributed.comm`` or a dedicated communicator as dask-cuda's
``raft-dask`` sets up) or Dask's ``shuffle`` for the aggregation step; all parts of one call
started together on distinct workers (Dask's ``Client.submit`` with ``workers=`` restrictions
and ``actors``, or ``client.run``), since a collective deadlocks if one part waits in a queue;
and a driver on the client that runs the rounds and gathers only scalars (modularity, number of
moves, proposals outstanding) until the result is asked for.
"""
import asyncio
from concurrent.futures import CancelledError
import hashlib
import inspect
import os
import pickle
import platform as _platform
import tempfile
import threading
import time
import traceback

import numpy as np
import scipy.sparse as sp

try:
    import dask
    import distributed
    from distributed import Client, LocalCluster, WorkerPlugin, as_completed, get_worker
except ImportError as _exc:   # pragma: no cover - exercised by monkeypatching in the tests
    raise ImportError(
        "pyclmatch.distributed needs Dask's distributed scheduler, which is not installed "
        f"({_exc}); install it with: pip install 'pyclmatch[dask]'") from _exc

from . import bipartite, errors, weighted
from .community import api as community_api
from ._progress import Progress
from .engine import args
from .engine.devices import _type_name, describe_devices, get_device, usable_devices
from .errors import DeviceError, InputError, PyclmatchError
from .interop import is_backend_graph, is_dataframe, is_igraph, is_networkx
from .io import read_graph

__all__ = ["DevicePlugin", "local_cluster", "map_graphs", "worker_devices", "bind_workers",
           "bound_workers", "host_devices", "PLUGIN_NAME"]

PLUGIN_NAME = "pyclmatch-device"
_KINDS = ("gpu", "cpu", "accelerator")
_DEVICES_ALLOWED = ("'gpu', 'cpu', 'accelerator', 'all' or comma-separated device specs "
                    "(pyclmatch.get_device's: '0:1', a name substring)")


def _devices_arg(devices):
    """A ``devices`` selection (:func:`host_devices`): None (the GPUs) or a non-empty
    string."""
    if devices is None:
        return "gpu"
    if not isinstance(devices, str) or not devices.strip(" ,"):
        args.refuse("devices", devices, _DEVICES_ALLOWED)
    return devices


def _kind_arg(name, kind):
    """A kind of device: ``"gpu"``, ``"cpu"``, ``"accelerator"`` or ``"all"``."""
    return args.choice(name, kind, _KINDS + ("all",))


def _client_arg(client, none=False):
    if (client is None and none) or isinstance(client, Client):
        return client
    args.refuse("client", client, "a distributed.Client" + (" or None" if none else ""))


def host_devices(devices="gpu"):
    """``[(platform, device, pyopencl.Device)]`` of this host selected by ``devices``: ``"gpu"``,
    ``"cpu"``, ``"accelerator"``, ``"all"`` (every usable device) or comma-separated
    :func:`pyclmatch.get_device` specs.

    Examples
    --------
    >>> from pyclmatch.distributed import host_devices
    >>> all(len(entry) == 3 for entry in host_devices("all"))
    True
    """
    devices = _devices_arg(devices)
    s = devices.strip().lower()
    if s == "all":
        return usable_devices()
    if s in _KINDS:
        return [(p, d, dev) for p, d, dev in usable_devices() if _type_name(dev) == s]
    out = []
    for spec in (x.strip() for x in devices.split(",") if x.strip()):
        h = get_device(spec)
        if h.index is None:
            raise DeviceError(f"device spec {spec!r} names no enumerated device")
        if (h.index[0], h.index[1], h.device) not in out:
            out.append((h.index[0], h.index[1], h.device))
    return out


def _lock_path(p, d, dev):
    ident = f"{dev.platform.name.strip()}|{dev.name.strip()}|{p}:{d}"
    tag = hashlib.sha1(ident.encode()).hexdigest()[:12]
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return os.path.join(tempfile.gettempdir(), f"pyclmatch-device-{uid}-{p}-{d}-{tag}.lock")


def _claim(p, d, dev):
    """An open file holding an exclusive lock on device ``p:d`` of this host, or ``None`` when
    another process holds it (the kernel drops the lock when the holder exits or dies)."""
    try:
        import fcntl
    except ImportError:      # no POSIX locks: nothing to coordinate with
        return True
    fh = open(_lock_path(p, d, dev), "a+")
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        return None
    fh.seek(0)
    fh.truncate()
    fh.write(f"{os.getpid()}\n")
    fh.flush()
    return fh


class DevicePlugin(WorkerPlugin):
    """Binds the worker to one OpenCL device (see the module docstring for the order of
    choices); ``binding`` is what :func:`worker_devices` announces.

    ``devices``: the kind of device a worker claims when neither an assignment nor
    ``PYCLMATCH_DEVICE`` names one; ``assignment``: ``{worker name: device spec}``.

    Examples
    --------
    >>> from pyclmatch.distributed import DevicePlugin
    >>> plugin = DevicePlugin("cpu", assignment={0: "0:0"})
    >>> plugin.devices, plugin.assignment, plugin.binding
    ('cpu', {'0': '0:0'}, None)
    """
    name = PLUGIN_NAME
    idempotent = False

    def __init__(self, devices="gpu", assignment=None):
        self.devices = _devices_arg(devices)
        if assignment is not None and (not isinstance(assignment, dict) or not all(
                isinstance(k, (str, int)) and isinstance(v, str) and v.strip()
                for k, v in assignment.items())):
            args.refuse("assignment", assignment, "None or a dict {worker name: device spec "
                        "string}")
        self.assignment = {str(k): v for k, v in (assignment or {}).items()}
        self.handle = None
        self.binding = None
        self._lock_file = None

    def __getstate__(self):
        return {"devices": self.devices, "assignment": self.assignment}

    def __setstate__(self, state):
        self.__init__(state["devices"], state["assignment"])

    async def setup(self, worker):
        loop = asyncio.get_running_loop()
        # device probing builds a kernel: off the worker's event loop
        await loop.run_in_executor(None, self._bind, str(worker.name))

    def teardown(self, worker):
        lock, self._lock_file = self._lock_file, None
        if lock not in (None, True):
            lock.close()

    def _bind(self, worker_name):
        how, spec = None, None
        if worker_name in self.assignment:
            how, spec = "assigned", self.assignment[worker_name]
        elif os.environ.get("PYCLMATCH_DEVICE", "").strip():
            how, spec = "PYCLMATCH_DEVICE", os.environ["PYCLMATCH_DEVICE"].strip()
        self.binding = {"host": _platform.node(), "pid": os.getpid(), "device": None,
                        "how": how, "problem": None}
        try:
            if spec is not None:
                h = get_device(spec)
                if h.index is not None:   # best effort: a claiming worker then skips it
                    self._lock_file = _claim(h.index[0], h.index[1], h.device)
            else:
                h = None
                cands = host_devices(self.devices)
                for p, d, dev in cands:
                    lock = _claim(p, d, dev)
                    if lock is not None:
                        self._lock_file, how = lock, "claimed"
                        h = get_device(f"{p}:{d}")
                        break
                if h is None:
                    self.binding["problem"] = (
                        f"no free {self.devices} device on this host ({len(cands)} found, "
                        f"each held by another worker)" if cands else
                        f"this host has no usable {self.devices} OpenCL device")
                    return
        except PyclmatchError as exc:
            self.binding["problem"] = f"{type(exc).__name__}: {exc}"
            return
        self.handle = h
        self.binding.update(how=how, device=h.label, name=h.name, type=h.type,
                            spec=f"{h.index[0]}:{h.index[1]}" if h.index else None,
                            global_mem=h.global_mem, compute_units=h.compute_units)


def _announce(dask_worker=None):
    plugin = (dask_worker or get_worker()).plugins.get(PLUGIN_NAME)
    return None if plugin is None else plugin.binding


def worker_devices(client):
    """``{worker address: binding}`` of every worker: ``host``, ``device`` (label), ``type``,
    ``spec`` (``P:D`` on its host), ``how`` (``assigned``, ``PYCLMATCH_DEVICE``, ``claimed``)
    and ``problem`` (why it holds none); ``None`` for a worker without the plugin.

    Examples
    --------
    >>> from distributed import Client
    >>> from pyclmatch.distributed import worker_devices, local_cluster
    >>> client = Client(local_cluster("cpu"))                    # doctest: +SKIP
    >>> sorted(b["how"] for b in worker_devices(client).values())  # doctest: +SKIP
    ['assigned']
    """
    return client.run(_announce)


def bind_workers(client, devices="gpu", assignment=None):
    """Install :class:`DevicePlugin` on every worker of ``client``'s cluster (and on workers
    that join later), replacing an earlier binding; returns :func:`worker_devices`.

    Examples
    --------
    >>> from distributed import Client
    >>> from pyclmatch.distributed import bind_workers, local_cluster
    >>> client = Client(local_cluster("cpu"))                    # doctest: +SKIP
    >>> bindings = bind_workers(client, "cpu")                    # doctest: +SKIP
    """
    _client_arg(client)
    plugin = DevicePlugin(devices, assignment)
    client.register_plugin(plugin, name=PLUGIN_NAME)
    return worker_devices(client)


def _plugin_registered(dask_scheduler=None):
    return PLUGIN_NAME in getattr(dask_scheduler, "worker_plugins", {})


def bound_workers(client, kind="gpu", timeout=30.0):
    """``(bindings, ready)``: :func:`worker_devices`, and those of the workers that hold a
    device of ``kind`` (``"gpu"``, ``"cpu"``, ``"accelerator"``, ``"all"``).

    Installs :class:`DevicePlugin` (claiming ``kind`` devices) when the scheduler has none, and
    waits up to ``timeout`` seconds while no worker is ready but some are still starting (a
    worker restarted after a loss binds itself again before it takes work).

    Examples
    --------
    >>> from distributed import Client
    >>> from pyclmatch.distributed import bound_workers, local_cluster
    >>> client = Client(local_cluster("cpu"))                    # doctest: +SKIP
    >>> bindings, ready = bound_workers(client, "cpu")            # doctest: +SKIP
    >>> len(ready)                                                # doctest: +SKIP
    1
    """
    kind = _kind_arg("kind", kind)
    timeout = args.number("timeout", timeout, low=0)
    _client_arg(client)
    if not client.run_on_scheduler(_plugin_registered):
        bind_workers(client, kind)
    deadline = time.monotonic() + timeout
    while True:
        try:
            bindings = client.run(_announce, on_error="ignore")
        except (OSError, distributed.comm.CommClosedError):
            bindings = {}
        ready = {a: b for a, b in bindings.items() if b and b.get("device")
                 and (kind == "all" or b.get("type") == kind)}
        starting = not bindings or any(b is None for b in bindings.values())
        if ready or not starting or time.monotonic() > deadline:
            return bindings, ready
        time.sleep(0.25)


def local_cluster(devices="gpu", n_workers=None, *, processes=True, **kwargs):
    """A ``distributed.LocalCluster`` with one single-threaded worker per device of this host
    selected by ``devices`` (default: the GPUs; ``"cpu"``/``"all"`` include the CPU device,
    which shares its cores with the workers), each bound to its device by :class:`DevicePlugin`.

    ``n_workers`` other than the number of devices assigns the devices round-robin (two
    workers on one PoCL device, as the tests do); at most ``max(8, 4 * os.cpu_count())``
    (each worker is a process of this host).  ``kwargs`` go to ``LocalCluster``.
    Use it as ``Client(local_cluster())``; close the cluster when done (or use ``with``).

    The workers start without the ``MALLOC_TRIM_THRESHOLD_`` that Dask sets for its worker
    processes (``distributed.nanny.pre-spawn-environ``): setting it turns off glibc's dynamic
    mmap threshold, so every array of a call above 128 KiB is mapped and faulted in afresh,
    which makes each call slower in a worker than in the client's process.  Dask's
    other pre-spawn variables (one OpenMP/BLAS thread) stay.

    Examples
    --------
    Starting a cluster takes seconds, so the lines below are not run as doctests:

    >>> from distributed import Client
    >>> from pyclmatch.distributed import local_cluster
    >>> cluster = local_cluster("cpu", n_workers=1)              # doctest: +SKIP
    >>> with Client(cluster) as client:                          # doctest: +SKIP
    ...     print(len(client.scheduler_info()["workers"]))
    1
    >>> cluster.close()                                          # doctest: +SKIP

    A worker count below 1 is refused before a cluster starts:

    >>> local_cluster("all", n_workers=0)
    Traceback (most recent call last):
    ...
    pyclmatch.errors.InputError: n_workers=0 is not allowed: it must be an integer between 1 and ..., or None
    """
    n_workers = args.integer("n_workers", n_workers, low=1, high=max(8, 4 * (os.cpu_count() or 1)),
                             none=True)
    processes = args.boolean("processes", processes)
    if "threads_per_worker" in kwargs:
        kwargs["threads_per_worker"] = args.integer("threads_per_worker",
                                                    kwargs["threads_per_worker"], low=1,
                                                    high=1024)
    found = host_devices(devices)
    if not found:
        have = ", ".join(f"{r['index']} {r['device']} ({r['type']})" for r in describe_devices())
        raise DeviceError(f"no usable {devices} OpenCL device on this host (devices: "
                          f"{have or 'none'})" + ("; pass devices='cpu' to run the workers on "
                                                  "the CPU device" if devices == "gpu" else ""))
    n = len(found) if n_workers is None else n_workers
    assignment = {i: f"{found[i % len(found)][0]}:{found[i % len(found)][1]}" for i in range(n)}
    kwargs.setdefault("threads_per_worker", 1)
    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    with dask.config.set({"distributed.nanny.pre-spawn-environ": environ}):
        cluster = LocalCluster(n_workers=n, processes=processes, **kwargs)
    try:
        with Client(cluster) as c:
            bind_workers(c, devices, assignment)
    except BaseException:
        cluster.close()
        raise
    return cluster


#: where :func:`map_graphs` looks up a call given by name (the public functions: the
#: community package's ``louvain`` and ``modularity`` are its modules of those names)
_CALL_MODULES = (bipartite, weighted, community_api)


def _resolve(func):
    if isinstance(func, str):
        f = next((getattr(m, func) for m in _CALL_MODULES if hasattr(m, func)), None)
        if not inspect.isfunction(f) or func.startswith("_"):
            raise InputError(f"unknown pyclmatch call {func!r}: func must be a pyclmatch "
                             f"call (maximum_matching, weighted_matching, louvain, ...) or "
                             f"its name", argument="func")
        return f
    if not callable(func):
        args.refuse("func", func, "a pyclmatch call or its name, or a function taking "
                    "(graph, device=..., **kwargs)")
    return func


class _NoGraph:
    """What :func:`_check_call` hands a pyclmatch call instead of a graph and a device."""


def _check_call(f, kwargs):
    """Refuse, before anything starts, the keyword arguments that every graph's call would
    refuse: names ``f``'s signature does not take, required ones missing (``b`` of
    ``b_matching``), and for a pyclmatch call every value it checks before it reads the
    graph or opens the device (the call is made with placeholders for both, so it stops
    there; only its refusals of ``kwargs`` are kept)."""
    try:
        params = list(inspect.signature(f).parameters.values())
    except (TypeError, ValueError):
        params = None
    if params:
        named = {p.name for p in params[1:] if p.kind in (p.KEYWORD_ONLY,
                                                           p.POSITIONAL_OR_KEYWORD)}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            args.no_unknown(getattr(f, "__name__", "func"),
                            {k: v for k, v in kwargs.items() if k not in named}, named)
        for p in params[1:]:
            if p.name in named and p.default is p.empty and p.name not in kwargs \
                    and p.name != "device":
                raise InputError(f"map_graphs calls {getattr(f, '__name__', 'func')}(graph, "
                                 f"device=..., **kwargs): pass its argument {p.name}= in "
                                 f"kwargs", argument=p.name)
    if not getattr(f, "__module__", "").startswith("pyclmatch."):
        return
    try:
        f(_NoGraph(), **({"device": _NoGraph()} if _takes_device(f) else {}), **kwargs)
    except InputError as exc:
        if exc.argument in kwargs:
            raise
    except Exception:          # the placeholders refused: the arguments before them passed
        pass


def _takes_device(f):
    """Whether ``f`` takes ``device=`` (a host function such as ``modularity`` does not, and
    is called without it)."""
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "device" or p.kind is p.VAR_KEYWORD for p in params)


def _graphs_arg(graphs):
    """``graphs`` as a list: any iterable of graphs but one graph itself (a path, a matrix,
    a networkx/igraph graph, a DataFrame), which iterates as something else."""
    one = _is_path(graphs) or isinstance(graphs, (np.ndarray, dict)) or sp.issparse(graphs) \
        or any(t(graphs) for t in (is_networkx, is_igraph, is_dataframe, is_backend_graph))
    if one or not hasattr(graphs, "__iter__"):
        args.refuse("graphs", graphs, "a sequence of graphs (paths, matrices, edge arrays, "
                    "networkx graphs or callables); put one graph in a list")
    return list(graphs)


def _is_path(graph):
    return isinstance(graph, (str, bytes, os.PathLike))


class _Failed:
    """A graph's exception carried back from a worker (pickled, or as text when the exception
    does not survive pickling)."""

    def __init__(self, exc, tb, worker):
        self.tb, self.worker = tb, worker
        try:
            pickle.loads(pickle.dumps(exc))
            self.exc, self.text = exc, None
        except Exception:
            self.exc, self.text = None, (type(exc).__name__, str(exc))

    def exception(self, index):
        exc = self.exc
        if exc is None:
            name, msg = self.text
            base = PyclmatchError if name in _pyclmatch_error_names() else RuntimeError
            exc = base(f"{name}: {msg}")
        exc.graph_index = index
        exc.worker = self.worker
        exc.remote_traceback = self.tb
        return exc


def _pyclmatch_error_names():
    return {n for n in dir(errors) if isinstance(getattr(errors, n), type)}


_device_locks = {}
_device_locks_guard = threading.Lock()


def _device_lock(handle):
    """The lock that makes this worker's calls on ``handle`` run one at a time."""
    with _device_locks_guard:
        return _device_locks.setdefault(id(handle), threading.Lock())   # (handles are cached)


class NoDeviceHere(RuntimeError):
    """The task reached a worker without a device of the kind asked for (Dask retries it and
    :func:`map_graphs` resubmits it to the workers that have one).

    Examples
    --------
    >>> from pyclmatch.distributed import NoDeviceHere
    >>> issubclass(NoDeviceHere, RuntimeError)
    True
    """


def worker_handle(kind="all", wait=30.0):
    """The device handle of the worker running the current task, waiting up to ``wait``
    seconds for its :class:`DevicePlugin` (a restarted worker may take a task before its
    plugin has bound it); raises :class:`NoDeviceHere` when it holds none of ``kind``.

    Examples
    --------
    Inside a task on a bound worker:

    >>> from pyclmatch.distributed import worker_handle
    >>> worker_handle("cpu").type                                # doctest: +SKIP
    'cpu'
    """
    kind = _kind_arg("kind", kind)
    wait = args.number("wait", wait, low=0)
    worker = get_worker()
    deadline = time.monotonic() + wait
    while True:
        plugin = worker.plugins.get(PLUGIN_NAME)
        if plugin is not None and plugin.binding is not None:
            break
        if time.monotonic() > deadline:
            raise NoDeviceHere(f"worker {worker.address} has no pyclmatch device plugin")
        time.sleep(0.1)
    h = plugin.handle
    if h is None or (kind != "all" and h.type != kind):
        raise NoDeviceHere(f"worker {worker.address} holds no {kind} device "
                           f"({plugin.binding.get('problem') or plugin.binding.get('device')})")
    return h


def _run_one(func, graph, kwargs, kind):
    """Task body on a worker: load the graph, call ``func`` on the worker's device (without
    ``device=`` where ``func`` takes none)."""
    worker = get_worker()
    h = worker_handle(kind)
    try:
        if _is_path(graph):
            graph = read_graph(os.fsdecode(graph))
        elif callable(graph):
            graph = graph()
        with _device_lock(h):
            if _takes_device(func):
                return func(graph, device=h, **kwargs)
            return func(graph, **kwargs)
    except Exception as exc:
        return _Failed(exc, traceback.format_exc(), worker.address)


def _scatter(client, data, attempts=5):
    """``client.scatter`` to any worker, tried again while workers are being lost (the scheduler
    may pick one that is going away; a restarted worker comes back under a new address)."""
    for k in range(attempts):
        try:
            return client.scatter(data, hash=False)
        except (OSError, distributed.comm.CommClosedError):
            if k == attempts - 1:
                raise
            time.sleep(0.5 * (k + 1))


def map_graphs(func, graphs, *, client=None, devices="gpu", retries=2, progress=False,
               **kwargs):
    """``[func(graph, device=<the worker's device>, **kwargs) for graph in graphs]`` over the
    devices of a Dask cluster, in the order of ``graphs``.

    ``func``: any pyclmatch call (``maximum_matching``, ``weighted_matching``, ``louvain``, ...)
    or its name, or any function taking ``(graph, device=..., **kwargs)``.  ``graphs``: paths
    (read on the worker), in-memory inputs (scattered to a worker) or zero-argument callables
    (called on the worker).  ``client``: a ``distributed.Client``; ``None`` uses the current
    one, or starts :func:`local_cluster` (``devices``) for this call.  ``devices``: which bound
    workers take part: ``"gpu"``, ``"cpu"``, ``"accelerator"`` or ``"all"``; workers that carry
    no :class:`DevicePlugin` yet are bound first (:func:`bind_workers` with ``devices``).

    A graph whose call raises comes back as that exception (with ``graph_index``, ``worker``
    and ``remote_traceback`` attributes) and the others finish.  Graphs of a lost worker are
    rerun by Dask; a scattered input lost with its worker is resent up to ``retries`` times.
    ``progress=True`` draws a progress bar on stderr; the tasks (``pyclmatch-<func>-<i>``)
    show in Dask's dashboard.

    Examples
    --------
    The maximum matchings of two grids, on a local cluster of CPU devices (a cluster takes
    seconds to start, so these lines are not run as doctests):

    >>> from distributed import Client
    >>> from pyclmatch import generators
    >>> from pyclmatch.distributed import local_cluster, map_graphs
    >>> graphs = [generators.grid(8), generators.grid(16)]
    >>> with Client(local_cluster("cpu", n_workers=1)) as client:        # doctest: +SKIP
    ...     print([r.cardinality for r in map_graphs("maximum_matching", graphs, client=client)])
    [..., ...]

    The device is the worker's, so ``device=`` is refused before anything starts:

    >>> map_graphs("maximum_matching", graphs, device="cpu")
    Traceback (most recent call last):
    ...
    pyclmatch.errors.InputError: map_graphs chooses the device (the worker's); pass devices= to select the kind of device instead of device=
    """
    if "device" in kwargs:
        raise InputError("map_graphs chooses the device (the worker's); pass devices= to "
                         "select the kind of device instead of device=", argument="device")
    f = _resolve(func)
    graphs = _graphs_arg(graphs)
    devices = "gpu" if devices is None else devices
    if not isinstance(devices, str) or devices.strip().lower() not in _KINDS + ("all",):
        args.refuse("devices", devices, "'gpu', 'cpu', 'accelerator' or 'all' in map_graphs "
                    "(bind workers to particular devices with local_cluster or "
                    "PYCLMATCH_DEVICE)")
    kind = devices.strip().lower()
    retries = args.integer("retries", retries, low=0, high=1000)
    progress = False if progress is None else args.boolean("progress", progress)
    _check_call(f, kwargs)
    client = _client_arg(client, none=True)
    own = None
    if client is None:
        try:
            client = distributed.default_client()
        except ValueError:
            own = local_cluster(kind)
            client = Client(own)
    try:
        return _map(f, graphs, client, kind, retries, progress, kwargs)
    finally:
        if own is not None:
            client.close()
            own.close()


def _map(f, graphs, client, kind, retries, progress, kwargs):
    if not graphs:
        return []
    bindings, ready = bound_workers(client, kind)
    if not ready:
        desc = "; ".join(f"{a}: " + (f"{b['device']} ({b['type']})" if b and b.get("device")
                                     else (b or {}).get("problem") or "no binding")
                         for a, b in bindings.items()) or "none"
        raise DeviceError(f"no worker of the cluster holds a {kind} device (workers: {desc})"
                          + ("; for CPU devices pass devices='cpu'" if kind == "gpu" else ""))
    # every worker fit: no restriction, so that Dask reruns a lost worker's graphs on any
    # worker, its restarted self included (a restart changes the address)
    restrict = None if len(ready) == len(bindings) else list(ready)
    run = _Dispatch(client, f, graphs, kwargs, kind, retries, restrict)
    window = len(graphs) if all(_is_path(g) or callable(g) for g in graphs) else 2 * len(ready)
    nxt = min(window, len(graphs))
    for i in range(nxt):
        run.submit(i)
    bar = Progress(len(graphs)) if progress else None
    for fut in run.done:
        i, finished = run.collect(fut)
        if not finished:                   # (sent again)
            continue
        if bar:
            bar.step(f"graph {i}")
        if nxt < len(graphs):
            run.submit(nxt)
            nxt += 1
    return run.results


class _Dispatch:
    """The tasks of one :func:`_map`: a graph's task (its in-memory graph scattered first),
    resubmitted up to ``retries`` times when its input or worker is lost, and the results
    (or the exceptions) in the graphs' order."""

    def __init__(self, client, f, graphs, kwargs, kind, retries, restrict):
        self.client, self.f, self.graphs, self.kwargs = client, f, graphs, kwargs
        self.kind, self.retries, self.restrict = kind, retries, restrict
        self.name = getattr(f, "__name__", "call")
        self.token = os.urandom(4).hex()
        self.results = [None] * len(graphs)
        self.attempts = [0] * len(graphs)
        self.scattered, self.where = {}, {}
        self.done = as_completed()

    def submit(self, i):
        g = arg = self.graphs[i]
        if not (_is_path(g) or callable(g)):
            arg = self.scattered[i] = _scatter(self.client, g)
        fut = self.client.submit(
            _run_one, self.f, arg, self.kwargs, self.kind,
            key=f"pyclmatch-{self.name}-{i}-{self.token}-{self.attempts[i]}",
            workers=self.restrict, allow_other_workers=bool(self.restrict),
            retries=self.retries, pure=False)
        self.where[fut.key] = i
        self.done.add(fut)

    def collect(self, fut):
        """Take the finished task ``fut``: its graph's result or exception, or a resubmit of
        a lost one. Returns ``(graph index, whether the graph is done)``."""
        i = self.where.pop(fut.key)
        if fut.status == "finished":
            res = fut.result()
            self.results[i] = res.exception(i) if isinstance(res, _Failed) else res
        elif self.attempts[i] < self.retries:    # lost input or worker: send the graph again
            self.attempts[i] += 1
            self.scattered.pop(i, None)
            if self.restrict:
                _, ready = bound_workers(self.client, self.kind)
                self.restrict = list(ready) or self.restrict
            self.submit(i)
            return i, False
        else:
            exc = fut.exception() if fut.status == "error" else CancelledError(
                f"graph {i}: task {fut.key} was cancelled")
            exc.graph_index = i
            self.results[i] = exc
        self.scattered.pop(i, None)
        fut.release()
        return i, True
