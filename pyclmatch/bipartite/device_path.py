"""The device part of :func:`~pyclmatch.bipartite.api.maximum_matching`: the call of a
device family (:func:`device_matching`, raced against the host family when ``auto`` says so)
and :func:`match_on_device`, which the Dulmage-Mendelsohn decomposition shares. Imported on
the first call that runs on a device: it loads pyopencl and the device families."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

from ..engine import args
from ..engine.compressed import check_compressed_host
from ..engine.graphs import DeviceBipartite
from ..engine.scheduler import Scheduler
from .apfb import CERTIFICATE_VARIANT, AugmentingRunner
from .karp_sipser import InitialMatcher
from .konig import OUT_MATCHED_ROWS, DeviceCertificate, check_counts
from .race import HostRace, HostWon
from .registry import AUGMENTING_VARIANTS, HOST_FAMILY, parse_variant
from .result import MatchingResult, empty_result, finish_result, host_result


def device_matching(handle, graph, name, factory, init, params, verify, choice, progress,
                    t_call):
    """:func:`~pyclmatch.bipartite.api.maximum_matching` of a device family, its arguments
    checked and resolved (``t_call``: when the call began): a graph without edges is
    answered without a launch; ``auto``'s race (``choice["race"]``) starts the host's
    Hopcroft-Karp in the race worker first."""
    if graph.nnz == 0:
        return empty_result(handle, graph, name, init, verify, choice, t_call)
    sched = Scheduler(handle, progress=progress, label=f"maximum_matching[{name}]")
    race = None
    if choice and choice.get("race"):   # the host's Hopcroft-Karp in the race worker
        with sched.step("upload"), args.blame("A"):
            check_compressed_host(graph.indptr, graph.indices, graph.major[1])
        race = HostRace(graph, check=bool(verify), gpu=not handle.is_cpu)
    return _raced_call(handle, graph, name, factory, init, params, verify, choice, sched,
                       t_call, race)


def _raced_call(handle, graph, name, factory, init, params, verify, choice, sched,
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
        return host_result(graph, HOST_FAMILY, race.solved(), verify, choice, t_call,
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
        self.pending = self.init_card = self._init_read = None

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
                # (read without a wait: the run is enqueued behind it, result() takes it)
                self._init_count = _count_matched(handle, self.cmatch)
                self._init_host = np.zeros(1, self._init_count.dtype)
                self._init_read = sched.read_later("init", self._init_host,
                                                   self._init_count.data)
                sched.pending_reads.append(self._init_read)   # (kept if the call is raced
                #                                                off before it lands)

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
        if self._init_read is not None:      # (the initial matching's cardinality)
            self.sched.wait(self._init_read)
            self.init_card, self._init_read = int(self._init_host[0]), None
        self.cert.cover(self.rmatch, self.cmatch, self.bfs_array, self.sched)
        return DeviceMatching(self.dg, self.rmatch, self.cmatch, self.bfs_array, self.cert,
                              self.init_card, self.stats, self.pending, self.runner)


def _count_kernel(handle, dtype):
    """pyopencl reduction counting the entries >= 0 (matched vertices), built once a device."""
    return handle.memoize(("count_nonneg", np.dtype(dtype).str), lambda: ReductionKernel(
        handle.context, np.int64, neutral="0", reduce_expr="a+b",
        map_expr="x[i] >= 0 ? 1 : 0", arguments=f"__global const {_ctype(dtype)} *x"))


def _count_matched(handle, arr):
    return _count_kernel(handle, arr.dtype)(arr, queue=handle.queue)


def _ctype(dt):
    return {"i4": "int", "i8": "long"}[np.dtype(dt).str[1:]]
