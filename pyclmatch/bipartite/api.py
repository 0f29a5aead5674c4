"""Public API of exact maximum-cardinality bipartite matching: :func:`maximum_matching`
(the call: check the input, choose or look up the family, run it on the host or, through
:mod:`pyclmatch.bipartite.device_path`, on the device, verify) and
:func:`maximum_bipartite_matching` (scipy's signature). The device part is imported on the
first call that runs on a device: a call answered on the host loads no pyopencl."""
from __future__ import annotations

import functools
import time
from typing import Any

import numpy as np

from .._typing import DeviceSpec, GraphInput, Progress
from ..engine import args, limits
from ..engine.calls import device_call
from ..engine.compressed import check_compressed_host
from ..engine.graphs import as_bipartite
from ..engine.tuning import tuned_params
from ..errors import InputError
from . import host as host_family
from .choice import choose, host_choice
from .cover import KonigCover, verify_matching  # noqa: F401 (re-exported)
from .registry import (AUGMENTING_VARIANTS, HOST_FAMILY, INITS, PARAMS,  # noqa: F401
                       algorithms, canonical_name, device_families, factory_of, is_host,
                       register_algorithm)
from .result import MatchingResult, finish_result, host_result  # noqa: F401 (re-exported)

INIT_PARAMS = ("ks_rounds", "heavy_degree", "heavy_groups", "one_group_edges")


@device_call
def maximum_matching(A: GraphInput, *, algorithm: str = "auto", init: str = "karp-sipser",
                     device: DeviceSpec = None, verify: bool | str = True,
                     progress: Progress = None, **params: Any) -> MatchingResult:
    """Maximum-cardinality matching of the bipartite graph of ``A`` on an OpenCL device.

    Parameters
    ----------
    A : scipy.sparse matrix/array, dense array-like, or ``(rows, cols[, shape])`` edge arrays
        Rows are one side, columns the other (rectangular allowed). The sparsity pattern is
        the edge set: explicit zeros count as edges and duplicates are merged, as in scipy.
        A ``tuple`` of 1-D arrays is edge arrays (non-negative integer ids); ``shape=``
        sizes them, and given with a matrix must equal its shape.
    algorithm : str
        ``"auto"`` (chosen from the graph's size and degree dispersion and the device's
        profile, :mod:`pyclmatch.bipartite.choice`; ``res.choice`` says which rule and why),
        ``"apfb"`` or ``"apsb"`` (the best variant of each driver), or a name from
        :func:`algorithms`: the eight variants ``{apfb|apsb}-{gpubfs|gpubfs-wr}-{ct|mt}`` of
        paper 000 (APFB/APsB drivers, GPUBFS (Algorithm 2) or GPUBFS-WR (Algorithm 4) BFS
        kernels, constant-grid (CT) or one-vertex-per-work-item (MT) thread modes),
        ``"gpr"``, ``"gpr-shr"``, ``"gpr-noshr"``, ``"gpr-first"`` (push-relabel, paper 003),
        ``"ppf"`` (parallel Pothen-Fan, paper 001), ``"ptg"`` (parallel tree grafting,
        MS-BFS-Graft, :mod:`pyclmatch.bipartite.ptg`) and ``"host-hk"`` (scipy's Hopcroft-Karp
        and a König cover on the host, :mod:`pyclmatch.bipartite.host`; no device is opened).
    init : {"karp-sipser", "cheap", "none"}
        Initial matching computed on the device.
    device : see :func:`pyclmatch.get_device` (default ``PYCLMATCH_DEVICE`` or ``"auto"``).
    verify : True, "device", "host" or False
        Check the matching and its König-cover certificate before returning (raises
        :class:`~pyclmatch.errors.VerificationError` rather than return a wrong answer):
        ``True`` (= ``"device"``) by kernels independent of the algorithm, on the device the
        answer is on (on the host for an answer of the host family); ``"host"`` in numpy
        from the input; ``False`` not at all.
    progress : callable or bool, optional
        Progress reports for long runs (``True`` prints to stderr).
    **params
        The algorithm's parameters (``work_group_size``, ``ct_work_items``,
        ``batch_levels`` for the augmenting-path family), ``ks_rounds`` for Karp-Sipser,
        ``heavy_degree`` and ``heavy_groups`` (vertices of degree > ``heavy_degree`` are
        processed by a whole work-group, by at most ``heavy_groups`` groups per launch; a
        negative value turns it off; :func:`~pyclmatch.bipartite.geometry.default_heavy_degree`),
        ``one_group_edges`` (graphs with at most this many edges run APFB/APsB whole in one
        work-group; 0 = never) and ``shape`` for edge arrays. Values stored by
        ``examples/autotune.py`` for this device (:mod:`pyclmatch.engine.tuning`) are the
        defaults of what the caller did not pass (``PYCLMATCH_TUNING=off`` disables).

    Returns
    -------
    MatchingResult
        ``row_match`` (column of each row or -1), ``col_match``, ``cardinality``,
        ``initial_cardinality``, ``certificate`` (König cover), ``timings`` (seconds:
        ``total`` = the whole call, upload, build, init, augment, download, verify and
        ``kernel:<phase>`` device times) and ``counters`` (phases, BFS levels, launches,
        read-backs).

    Raises
    ------
    InputError
        A malformed input, an unknown algorithm (the message lists every accepted name),
        init or parameter.
    VerificationError
        The answer failed its check (never expected).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> A = sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
    >>> res = pyclmatch.maximum_matching(A, algorithm="apfb", device="cpu")
    >>> res.cardinality, res.algorithm, res.verified
    (3, 'apfb-gpubfs-wr-mt', True)
    >>> res.row_match.tolist(), res.certificate.size
    ([1, 0, 2], 3)
    >>> pyclmatch.maximum_matching(pyclmatch.generators.grid(8), device="cpu").cardinality
    62
    """
    t_call = time.perf_counter()
    init, verify, progress, params = check_arguments("maximum_matching", algorithm, init,
                                                     verify, progress, params)
    handle, graph, choice = _open(A, params.pop("shape", None), algorithm, device)
    name, factory, params, choice = resolve_call(handle, graph, algorithm, params,
                                                 choice=choice)
    if getattr(factory, "host", False):
        return _match_on_host(graph, name, verify, choice, t_call)
    from .device_path import device_matching   # (pyopencl and the device families)
    return device_matching(handle, graph, name, factory, init, params, verify, choice, progress,
                           t_call)


def _open(A, shape, algorithm, device):
    """``(handle, graph, choice)``: the device (None when the call runs on the host) and the
    converted graph; ``choice`` is ``auto``'s record when every device that ``device`` may
    name sends the graph to the host family (:func:`~.choice.host_choice`), else None. The
    host family needs no OpenCL device: none is opened (nor a program built) for it, nor
    pyopencl loaded."""
    name = canonical_name(algorithm)
    auto = name == "auto" and (device is None or isinstance(device, str))
    if name != HOST_FAMILY and not auto:
        handle = _device(device)
        return (handle, as_bipartite(A, shape=shape, fits=functools.partial(check_fits, handle)),
                None)
    graph = as_bipartite(A, shape=shape, fits=functools.partial(check_fits, None))
    choice = host_choice(device, graph) if auto else None
    if not auto or choice is not None:
        return None, graph, choice
    handle = _device(device)     # the declared-size check, for the device now
    return handle, as_bipartite(graph, fits=functools.partial(check_fits, handle)), None


def _device(device):
    """:func:`~pyclmatch.get_device` (imported here: it loads pyopencl)."""
    from ..engine.devices import get_device
    return get_device(device)


def _match_on_host(graph, name, verify, choice, t_call):
    """The call of a host family (``host-hk``, :mod:`pyclmatch.bipartite.host`): the intake's
    structure checks on the host (scipy's compiled routines trust the arrays), then
    :func:`~pyclmatch.bipartite.result.host_result`."""
    t0 = time.perf_counter()
    with args.blame("A"):
        check_compressed_host(graph.indptr, graph.indices, graph.major[1])
    timings = {"upload": time.perf_counter() - t0}   # (the intake: checks only)
    return host_result(graph, name, host_family.solve(graph), verify, choice, t_call, timings,
                        {"launches": 0, "readbacks": 0, "copies": 0})


def check_arguments(func, algorithm, init, verify, progress, params):
    """The arguments of a matching call (``func``: its name) checked before any work
    (:mod:`pyclmatch.engine.args`): ``(init, verify, progress, params)``. The algorithm's
    name is looked up (an unknown one is refused), and the parameters are checked by
    :data:`~pyclmatch.bipartite.registry.PARAMS`: names the algorithm does not take are
    refused (with ``"auto"``, names no family takes; the chosen one's are checked once it is
    known)."""
    name = canonical_name(algorithm)
    init = args.choice("init", init, INITS)
    verify = args.verify("verify", verify)
    progress = args.progress("progress", progress)
    if name == "auto":
        accepted = set(PARAMS)
    else:
        # (the initial matching's parameters: every family takes them, the host family
        # ignores them, so that one set of keywords serves a sweep over the algorithms)
        accepted = set(getattr(factory_of(name), "params", ())) | set(INIT_PARAMS)
    specs = {k: PARAMS.get(k) for k in accepted}
    specs["shape"] = None        # (checked with the graph)
    label = func if name == "auto" else f"{func}(algorithm={name!r})"
    return init, verify, progress, args.options(label, params, specs)


def resolve_call(handle, graph, algorithm, params, device_only=False, choice=None):
    """The algorithm's name and factory, the parameters (tuned defaults added) and ``auto``'s
    choice record (None for a named algorithm) for a call of :func:`maximum_matching`, whose
    arguments :func:`check_arguments` checked. ``device_only``: ``auto`` chooses among the
    device families, and the host family is refused. ``choice``: ``auto``'s record made
    already (:func:`~.choice.host_choice`)."""
    params = dict(params)
    if handle is not None and params.get("work_group_size") is not None:
        params["work_group_size"] = args.work_group_size(   # (the device's bound, before
            "work_group_size", params["work_group_size"], handle.max_work_group_size)  # work)
    # per-user autotune cache (PYCLMATCH_TUNING=off)
    tuned = tuned_params(handle, "bipartite") if handle is not None else {}
    name = canonical_name(algorithm)
    if name != "auto":
        choice = None
    elif choice is None:   # features + device profile (choice.py)
        choice = choose(handle, graph, device_only=device_only)
    if choice is not None:
        name = choice["algorithm"]
        params.setdefault("one_group_edges", choice["one_group_edges"])
    factory = factory_of(name)
    if device_only and is_host(name):
        raise InputError(f"{name!r} runs on the host; this call needs a device family: "
                         f"'auto' or one of " + ", ".join(device_families()))
    if tuned.get("algorithm") == name:   # tuned values are defaults for what was not passed
        for k, v in tuned.items():
            if k in factory.params and k not in params:
                params[k] = v
    if choice is not None:   # (auto: what the chosen family does not take is not used)
        accepted = set(factory.params) | set(INIT_PARAMS)
        params = {k: v for k, v in params.items() if k in accepted}
    return name, factory, params, choice


def check_fits(handle, n_rows, n_cols, nnz, host, index_bytes):
    """The declared-size check of :func:`maximum_matching` (before any allocation)."""
    dev, host_need = limits.bipartite_footprint(n_rows, n_cols, nnz, index_bytes)
    limits.check(handle, "maximum_matching", limits.sizes_text(n_rows, n_cols, nnz), dev,
                 dict(host_need, **host))


@device_call
def maximum_bipartite_matching(A: GraphInput, perm_type: str = "row",
                               **kwargs: Any) -> np.ndarray:
    """Drop-in for ``scipy.sparse.csgraph.maximum_bipartite_matching``.

    Parameters
    ----------
    A : scipy.sparse matrix/array or anything :func:`maximum_matching` takes
    perm_type : {"row", "column"}
        ``"row"`` returns, for each column, the row matched to it (-1 if none); ``"column"``
        returns, for each row, its column.
    **kwargs
        Go to :func:`maximum_matching` (``device=``, ``algorithm=``, ...).

    Returns
    -------
    numpy.ndarray of int32

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> A = sp.csr_matrix([[1, 1, 0], [1, 0, 0], [0, 1, 1]])
    >>> pyclmatch.maximum_bipartite_matching(A, perm_type="column", device="cpu").tolist()
    [1, 0, 2]
    """
    perm_type = args.choice("perm_type", perm_type, ("row", "column"))
    res = maximum_matching(A, **kwargs)
    out = res.col_match if perm_type == "row" else res.row_match
    return out.astype(np.int32, copy=False)
