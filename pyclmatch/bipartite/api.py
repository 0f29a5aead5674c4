"""Public API of exact maximum-cardinality bipartite matching: :func:`maximum_matching`
(the call: check the input, choose or look up the family, run it on the device or the host,
verify), :func:`maximum_bipartite_matching` (scipy's signature) and :func:`match_on_device`
(the device part, shared with the Dulmage-Mendelsohn decomposition)."""
from __future__ import annotations

from dataclasses import dataclass
import functools
import time

import numpy as np
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

from typing import Any

from .._typing import DeviceSpec, GraphInput, Progress
from .._record import RunRecord
from ..engine import args, limits
from ..engine.devices import get_device, device_call
from ..engine.graphs import as_bipartite, DeviceBipartite
from ..engine.intake import check_compressed_host, check_no_entries
from ..engine.scheduler import Scheduler
from ..engine.tuning import tuned_params
from ..errors import InputError
from . import host as host_family
from .apfb import CERTIFICATE_VARIANT, AugmentingRunner
from .choice import choose, host_choice
from .karp_sipser import InitialMatcher
from .konig import (OUT_MATCHED_ROWS, DeviceCertificate, KonigCover, check_counts,
                    verify_matching)
from .race import HostRace, HostWon
from .registry import (AUGMENTING_VARIANTS, HOST_FAMILY, INITS, PARAMS,  # noqa: F401
                       algorithms, canonical_name, device_families, factory_of, is_host,
                       parse_variant, register_algorithm)

@dataclass
class MatchingResult(RunRecord):
    """Result of :func:`maximum_matching` (arrays in scipy's conventions: int32 ids, -1 =
    unmatched).

    Attributes
    ----------
    row_match, col_match : numpy.ndarray
        The column of each row and the row of each column (-1: unmatched).
    cardinality, initial_cardinality : int
        Matched pairs at the end and after the initial matching.
    certificate : KonigCover
        A vertex cover of the size of the matching, which proves it maximum.
    algorithm, init, device : str
        What ran, and where (``"host"`` for the host family).
    timings, counters : dict
        Seconds per step and device time per phase; launches, read-backs, phases.
    verified : bool
        Whether the answer was checked before it was returned.
    choice : dict or None
        With ``algorithm="auto"``: what was chosen and why (``algorithm``, ``rule``,
        ``reason``, ``features``, ``profile``; :mod:`pyclmatch.bipartite.choice`).

    Examples
    --------
    >>> from pyclmatch import generators, maximum_matching
    >>> grid = generators.grid(8)
    >>> res = maximum_matching(grid, algorithm="ppf", device="cpu")
    >>> res.cardinality == res.certificate.size == 62
    True
    >>> res.verify(grid), res.summary()["algorithm"]
    (True, 'ppf')
    """
    row_match: np.ndarray
    col_match: np.ndarray
    cardinality: int
    initial_cardinality: int
    certificate: KonigCover
    init: str
    choice: dict = None

    @property
    def phases(self):
        return self.counters.get("phases", 0)

    @property
    def bfs_levels(self):
        return self.counters.get("bfs_levels", 0)

    @property
    def device_seconds(self):
        """Time on the device after upload (wall clock): initial matching, augmentation and,
        for families that hand over to an alternating BFS (PPF after a stall or a stack
        limit), that certificate step."""
        return (self.timings.get("init", 0.0) + self.timings.get("augment", 0.0)
                + self.timings.get("certificate", 0.0))

    def verify(self, A):
        """Check the matching and its König cover against ``A``; raises
        :class:`~pyclmatch.errors.VerificationError` on any inconsistency;
        :class:`~pyclmatch.errors.InputError` (``argument="A"``) when ``A`` is no matrix or
        not of the result's shape.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> from pyclmatch import maximum_matching
        >>> A = sp.csr_matrix([[1, 1], [0, 1]])
        >>> maximum_matching(A).verify(A)
        True
        """
        with args.blame("A"):
            graph = as_bipartite(A)
        args.shape_of("A", graph, (self.row_match.size, self.col_match.size))
        verify_matching(graph, self.row_match, self.col_match, self.certificate)
        self.verified = True
        return True

    def summary(self):
        """The result's numbers and names as one dict (no arrays)."""
        return {"rows": int(self.row_match.size), "cols": int(self.col_match.size),
                "initial_cardinality": self.initial_cardinality,
                "cardinality": self.cardinality, "verified": self.verified,
                "algorithm": self.algorithm, "init": self.init, "device": self.device,
                "timings": dict(self.timings), "counters": dict(self.counters),
                "choice": self.choice}


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
    name, factory, params, choice = resolve_call(handle, graph, algorithm, init, params,
                                                 choice=choice)
    if getattr(factory, "host", False):
        return _match_on_host(graph, name, verify, choice, t_call)
    if graph.nnz == 0:
        return _empty_result(handle, graph, name, init, verify, choice, t_call)
    sched = Scheduler(handle, progress=progress, label=f"maximum_matching[{name}]")
    race = None
    if choice and choice.get("race"):   # the host's Hopcroft-Karp in the race worker
        with sched.step("upload"):
            check_compressed_host(graph.indptr, graph.indices, graph.major[1])
        race = HostRace(graph, check=bool(verify), gpu=not handle.is_cpu)
    return _raced_device_call(handle, graph, name, factory, init, params, verify, choice,
                              sched, t_call, race)


def _open(A, shape, algorithm, device):
    """``(handle, graph, choice)``: the device (None when the call runs on the host) and the
    converted graph; ``choice`` is ``auto``'s record when every device that ``device`` may
    name sends the graph to the host family (:func:`~.choice.host_choice`), else None. The
    host family needs no OpenCL device: none is opened (nor a program built) for it."""
    auto = canonical_name(algorithm) == "auto" and (device is None or isinstance(device, str))
    if str(algorithm).lower() != HOST_FAMILY and not auto:
        handle = get_device(device)
        return (handle, as_bipartite(A, shape=shape, fits=functools.partial(check_fits, handle)),
                None)
    graph = as_bipartite(A, shape=shape, fits=functools.partial(check_fits, None))
    choice = host_choice(device, graph) if auto else None
    if not auto or choice is not None:
        return None, graph, choice
    handle = get_device(device)     # the declared-size check, for the device now
    return handle, as_bipartite(graph, fits=functools.partial(check_fits, handle)), None


def _empty_result(handle, graph, name, init, verify, choice, t_call):
    """A graph without edges: nothing to launch, every vertex unmatched, the cover empty."""
    check_no_entries(graph.indptr)
    nr, nc = graph.shape
    rm, cm = np.full(nr, -1, np.int32), np.full(nc, -1, np.int32)
    res = MatchingResult(rm, cm, 0, 0, KonigCover(np.zeros(0, np.int32), np.zeros(0, np.int32)),
                         init, choice, algorithm=name, device=handle.label)
    res.verified = bool(verify)
    res.timings = {"total": time.perf_counter() - t_call}
    return res


def _raced_device_call(handle, graph, name, factory, init, params, verify, choice, sched,
                       t_call, race):
    """The device family's call, against the host attempt ``race`` when there is one
    (:mod:`pyclmatch.bipartite.race`): the first answer is returned."""
    racing = race if race is not None and race.started else None
    try:
        if racing is not None:
            _wait_for_backlog(handle, racing)
        res = _match_with_device(handle, graph, name, factory, init, params, verify, choice,
                                 sched, t_call, racing)
    except HostWon:
        if handle.is_cpu:   # (enqueued kernels may read host memory about to be released)
            handle.queue.finish()
        else:   # the next raced call enqueues nothing before this work has drained
            marker, kept = sched.drained()    # (an earlier backlog's events kept too:
            earlier = handle.race_backlog     # dropping a pending read's event waits for it)
            handle.race_backlog = (marker, kept + (earlier[1] if earlier else []))
        choice = dict(choice, race=race.record(HOST_FAMILY))
        counters = sched.call_counters()
        return _host_result(graph, HOST_FAMILY, race.solved(), verify, choice, t_call,
                            dict(sched.wall), counters, checked=race.checked)
    finally:
        if race is not None:
            race.lost()     # (nothing when the host won: its answer was taken)
    if race is not None:
        res.choice = dict(choice, race=race.record(name))
    return res


def _wait_for_backlog(handle, race):
    """Before a raced call enqueues anything: the device work that an earlier raced call
    left running when the host won it must drain first (waited for while polling ``race``,
    which raises :class:`~pyclmatch.bipartite.race.HostWon` if the host answers before)."""
    backlog = handle.race_backlog
    if backlog is not None:
        handle.queue.flush()
        race.wait(backlog[0], poll=True)
        handle.race_backlog = None


def _match_with_device(handle, graph, name, factory, init, params, verify, choice, sched,
                       t_call, race=None):
    """The device part of :func:`maximum_matching` (a graph with edges); ``race``: see
    :func:`match_on_device`."""
    m = match_on_device(handle, graph, name, factory, init, params, sched, defer=True,
                        race=race)
    rmatch, cmatch, cert = m.rmatch, m.cmatch, m.cert
    on_device = verify is True or verify == "device"
    if cert.packed():   # small graph: the counters and the results in one read-back
        pending = [a for a in (m.pending,) if a is not None]
        if on_device:
            with sched.step("verify"):
                pending.append(cert.verify(rmatch, cmatch, sched, defer=True))
        with sched.step("download"):
            status, rm, cm, cover = cert.download_packed(rmatch, cmatch, sched, pending)
        if m.pending is not None:
            m.finish(status.pop(0))
        if on_device:
            with sched.step("verify"):
                check_counts(status[0])
                card = int(status[0][OUT_MATCHED_ROWS])
    else:
        m.finish()
        if on_device:
            with sched.step("verify"):
                card = cert.verify(rmatch, cmatch, sched)
        with sched.step("download"):
            rm, cm, cover = cert.download(rmatch, cmatch, sched)
    if not on_device:
        card = int(np.count_nonzero(cm >= 0))
    res = MatchingResult(rm, cm, card, m.init_cardinality, cover, init, choice, algorithm=name,
                         device=handle.label)
    sched.report("done", final=True, cardinality=res.cardinality)
    return finish_result(res, graph, verify, sched, t_call, m.stats)


def _match_on_host(graph, name, verify, choice, t_call):
    """The call of a host family (``host-hk``, :mod:`pyclmatch.bipartite.host`): the intake's
    structure checks on the host (scipy's compiled routines trust the arrays), then
    :func:`_host_result`."""
    t0 = time.perf_counter()
    check_compressed_host(graph.indptr, graph.indices, graph.major[1])
    timings = {"upload": time.perf_counter() - t0}   # (the intake: checks only)
    return _host_result(graph, name, host_family.solve(graph), verify, choice, t_call, timings,
                        {"launches": 0, "readbacks": 0, "copies": 0})


def _host_result(graph, name, solved, verify, choice, t_call, timings, counters,
                 checked=False):
    """The result of a matching computed on the host (``solved``: the output of
    :func:`pyclmatch.bipartite.host.solve`), checked by :func:`verify_matching` when
    ``verify`` asks for any check (the answer is on the host) and the race worker has not
    checked it already (``checked``: the same check, run beside the device path). Same
    result object as the device families, with ``device == "host"``; ``counters`` holds the
    device work of a raced call that the host won (none otherwise)."""
    rm, cm, cover, steps = solved
    timings = dict(timings)
    for k, v in steps.items():
        timings[f"host:{k}" if k in timings else k] = v
    res = MatchingResult(rm, cm, int(np.count_nonzero(rm >= 0)), 0, cover, "none", choice,
                         algorithm=name, device="host")
    if verify and not checked:
        t0 = time.perf_counter()
        verify_matching(graph, rm, cm, cover)
        timings["verify"] = timings.get("verify", 0.0) + time.perf_counter() - t0
    res.verified = bool(verify)
    res.timings = dict(timings, total=time.perf_counter() - t_call)
    res.counters = dict(counters, phases=0)
    return res


def finish_result(res, graph, verify, sched, t_call, stats):
    """The common end of a call: the host verification when asked for, ``verified``,
    ``timings`` (``total`` = the whole call since ``t_call``) and ``counters``."""
    if verify == "host":
        with sched.step("verify"):
            res.verify(graph)
    res.verified = bool(verify)
    res.timings = sched.timings()
    res.timings["total"] = time.perf_counter() - t_call
    res.counters = dict(stats, **sched.call_counters())
    return res


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


def resolve_call(handle, graph, algorithm, init, params, device_only=False, choice=None):
    """The algorithm's name and factory, the parameters (tuned defaults added) and ``auto``'s
    choice record (None for a named algorithm) for a call of :func:`maximum_matching`;
    raises :class:`InputError` on unknown names. ``device_only``: ``auto`` chooses among the
    device families, and the host family is refused. ``choice``: ``auto``'s record made
    already (:func:`~.choice.host_choice`)."""
    params = dict(params)
    init = args.choice("init", init, INITS)
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
    accepted = set(factory.params) | set(INIT_PARAMS)
    if choice is not None:   # (auto: what the chosen family does not take is not used)
        params = {k: v for k, v in params.items() if k in accepted}
    args.no_unknown(f"algorithm {name!r}", params, accepted)
    return name, factory, params, choice


@dataclass
class DeviceMatching:
    """A maximum matching left on the device by :func:`match_on_device`: the device graph,
    the match arrays, the last alternating BFS from the unmatched columns (``bfs_array``:
    values >= 2 mark the columns it reached, and are their BFS levels), the König cover
    (flags enqueued in ``cert``), the initial cardinality and the algorithm's counters.
    With ``defer=True`` the one-group path leaves its counters on the device (``pending``):
    the caller reads them with the results and calls :meth:`finish` with them, which fills
    ``stats`` and ``init_cardinality`` (or raises the kernel's iteration-limit error)."""
    dg: DeviceBipartite
    rmatch: cla.Array
    cmatch: cla.Array
    bfs_array: cla.Array
    cert: DeviceCertificate
    init_cardinality: int
    stats: dict
    pending: Any = None
    runner: Any = None

    def finish(self, host=None):
        """Take the deferred one-group counters ``host`` (read back by the caller);
        nothing to do when none were deferred."""
        if self.pending is None:
            return
        self.stats = dict(self.runner.one_group_stats(host), **self.stats)
        self.init_cardinality = self.stats.pop("initial_cardinality")
        self.pending = None


def match_on_device(handle, graph, name, factory, init, params, sched, need_csr=False,
                    defer=False, race=None):
    """Upload ``graph`` and compute a maximum matching and its König cover flags on the device
    (the body of :func:`maximum_matching`, shared with the Dulmage-Mendelsohn decomposition);
    nothing is verified or downloaded here. ``need_csr`` uploads the row lists too.
    ``defer=True`` lets the one-group path leave its counters on the device
    (:class:`DeviceMatching`'s ``pending``; call ``finish`` with them read back).
    ``race`` (a :class:`~pyclmatch.bipartite.race.HostRace`) is checked at the intake's
    read-back, then once the programs are built and at every launch, read-back and drain: it
    raises :class:`~pyclmatch.bipartite.race.HostWon` once the host has finished (the builds
    are never cut short, so a raced call leaves the device family ready for the next)."""
    call = _DeviceCall(handle, graph, name, factory, init, params, sched)
    sched.race = race     # the intake's read-back polls the host attempt too
    call.upload(need_csr)
    sched.race = None     # (builds are never cut short)
    call.build()
    if race is not None:   # from here on the host may win at any launch or wait
        sched.race = race
        race.check()
    call.initial_matching()
    call.augment(defer)
    return call.result()


class _DeviceCall:
    """The stages of :func:`match_on_device`: upload and heavy lists, build, initial
    matching, augmentation, then the König cover flags."""

    def __init__(self, handle, graph, name, factory, init, params, sched):
        self.handle, self.graph, self.name, self.factory = handle, graph, name, factory
        self.init, self.params, self.sched = init, params, sched
        self.alg_params = {k: v for k, v in params.items() if k in factory.params}
        self.pending = self.init_card = None

    def upload(self, need_csr):
        """The device graph (engine intake), the drivers and their heavy-vertex lists."""
        handle, graph, sched, init = self.handle, self.graph, self.sched, self.init
        nr, nc = graph.shape
        extra = {"rmatch": nr * 4, "cmatch": nc * 4,
                 "Karp-Sipser degrees": (nr + nc) * 4 if init == "karp-sipser" else 0}
        extra.update(self.factory.device_bytes(graph, self.name))
        with sched.step("upload"):
            self.dg = DeviceBipartite(handle, graph, extra_bytes=extra, sched=sched,
                                      need_csr=(need_csr or init == "karp-sipser"
                                                or self.factory.needs_csr),
                                      canonical=not handle.is_cpu)   # (CPU: lists as given)
        self.make_drivers()
        if not self.one_group:   # (the one group's loops have no heavy tier)
            with sched.step("upload"):   # heavy-vertex lists: once per device graph
                self.initm.prepare(init, sched)   # (their counts: one read-back, which
                for r in ([self.runner] if self.certifier is self.runner   # polls the host
                          else [self.runner, self.certifier]):            # in a race)
                    if hasattr(r, "prepare"):
                        r.prepare(sched)
        for side in ("cols", "rows"):   # heavy vertices handed to work-groups (0: none or off)
            tier = self.certifier.tiers.get(side) or self.initm.tiers.get(side)
            sched.counters[f"heavy_{side}"] = tier.count if tier else 0

    def make_drivers(self):
        """The initial matcher, the family's runner and the certifier (the runner itself
        for the augmenting-path family, else APFB's alternating BFS)."""
        name, params, augmenting = self.name, self.params, self.name in AUGMENTING_VARIANTS
        mode = self.alg_params.get("mode") or (parse_variant(name)[2] if augmenting
                                               else "ct")
        self.initm = InitialMatcher(self.handle, self.dg, mode=mode,
                                    work_group_size=params.get("work_group_size"),
                                    ct_work_items=params.get("ct_work_items"),
                                    ks_rounds=params.get("ks_rounds", 32),
                                    heavy_degree=params.get("heavy_degree"),
                                    heavy_groups=params.get("heavy_groups"))
        self.runner = self.factory(self.handle, self.dg, name, **self.alg_params)
        self.one_group = augmenting and self.runner.one_group
        self.certifier = self.runner if augmenting else AugmentingRunner(
            self.handle, self.dg, CERTIFICATE_VARIANT,
            **{k: params[k] for k in ("heavy_degree", "heavy_groups", "one_group_edges")
               if k in params})

    def build(self):
        """Every kernel the call launches, before the first launch."""
        with self.sched.step("build"):
            self.runner.build()
            self.certifier.build()
            if self.init != "none" and not self.one_group:
                self.initm.kernel("cheap_match")
            _count_kernel(self.handle, self.dg.idt)
            self.cert = DeviceCertificate(self.handle, self.dg)
            self.cert.build()

    def initial_matching(self):
        """Empty match arrays, then the initial matching (in the one-group launch when the
        graph takes that path)."""
        handle, sched, dg = self.handle, self.sched, self.dg
        nr, nc = self.graph.shape
        with sched.step("init"):
            self.rmatch = cla.empty(handle.queue, nr, dg.idt, allocator=handle.pool)
            self.cmatch = cla.empty(handle.queue, nc, dg.idt, allocator=handle.pool)
            sched.fill("init", self.rmatch, -1)
            sched.fill("init", self.cmatch, -1)
            if not self.one_group:
                self.initm.run(self.init, self.rmatch, self.cmatch, sched)
                self.init_card = int(sched.get("init", _count_matched(handle, self.cmatch)))

    def augment(self, defer):
        """The family's run, then the certifier's BFS when the run left no ``bfs_array``."""
        sched, runner = self.sched, self.runner
        with sched.step("augment"):
            if self.one_group:   # the initial matching's rounds run in the same launch
                self.bfs_array, out = runner.run_one_group(
                    self.rmatch, self.cmatch, sched, self.init,
                    self.params.get("ks_rounds", 32), defer=True)
                if defer:   # (finished, not read: the augment step keeps its device time)
                    sched.sync()
                    self.pending, self.stats = out, {}
                else:
                    self.stats = runner.one_group_stats(
                        sched.read("one-group", np.zeros(5, np.int32), out))
                    self.init_card = self.stats.pop("initial_cardinality")
            else:
                self.bfs_array, self.stats = runner.run(self.rmatch, self.cmatch, sched)
                sched.sync()
        if self.bfs_array is None:
            with sched.step("certificate"):
                self.bfs_array, cstats = self.certifier.run(self.rmatch, self.cmatch, sched)
                self.stats["cover_phases"] = cstats["phases"]
                sched.sync()

    def result(self):
        """The cover flags enqueued, and the :class:`DeviceMatching`."""
        self.cert.cover(self.rmatch, self.cmatch, self.bfs_array, self.sched)
        return DeviceMatching(self.dg, self.rmatch, self.cmatch, self.bfs_array, self.cert,
                              self.init_card, self.stats, self.pending, self.runner)


def check_fits(handle, n_rows, n_cols, nnz, host, index_bytes):
    """The declared-size check of :func:`maximum_matching` (before any allocation)."""
    dev, host_need = limits.bipartite_footprint(n_rows, n_cols, nnz, index_bytes)
    limits.check(handle, "maximum_matching", limits.sizes_text(n_rows, n_cols, nnz), dev,
                 dict(host_need, **host))


def _count_kernel(handle, dtype):
    """pyopencl reduction counting the entries >= 0 (matched vertices), built once a device."""
    return handle.memoize(("count_nonneg", np.dtype(dtype).str), lambda: ReductionKernel(
        handle.context, np.int64, neutral="0", reduce_expr="a+b",
        map_expr="x[i] >= 0 ? 1 : 0", arguments=f"__global const {_ctype(dtype)} *x"))


def _count_matched(handle, arr):
    return _count_kernel(handle, arr.dtype)(arr, queue=handle.queue)


def _ctype(dt):
    return {"i4": "int", "i8": "long"}[np.dtype(dt).str[1:]]


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
