"""The Leiden algorithm on the device (Traag, Waltman, van Eck, "From Louvain to Leiden:
guaranteeing well-connected communities", Sci. Rep. 9, 5233 (2019); supplementary Algorithms
A.1-A.2).

:class:`DeviceLeiden` is :class:`~pyclmatch.community.louvain.DeviceLouvain` with a
refinement phase between local moving and aggregation. A level (:meth:`DeviceLeiden.next_level`)
reads as Algorithm A.1's loop body:

* :meth:`~DeviceLouvain.optimise_level`: MoveNodes (line 3), Louvain's degree-bucketed,
  hashed local moving, started from the level's starting partition P (singletons at level 0;
  a small level in one work-group: :meth:`~DeviceLeiden.optimise_level_small`);
* :meth:`~DeviceLeiden.refine`: RefinePartition (line 5, Algorithm A.2), in parallel rounds
  of ``kernels/leiden.cl.mako``: only singletons of the refined partition R move, into refined
  communities of their own community of P that they have an edge to, are well connected and
  do not move in the same round, so every refined community is connected (which singletons
  move: all of them, conflicts settled by hashed priorities, ``claims``; or a hashed half of
  them each round); a small level's rounds in one launch;
* :meth:`~DeviceLeiden.aggregate_refined`: AggregateGraph (line 6) on R (Louvain's Algorithm 3
  kernels with R as the partition), with P as the starting partition of the aggregate graph's
  vertices (a refined community not well connected to its community of P starts alone: leaving
  gains quality, a move local moving does not make); the method ends when local moving leaves
  every vertex alone (line 2's ``done``: every community of P is one aggregate vertex, a
  refined community, connected), when R merged nothing, or at ``max_level``.

The answer is P mapped to the input's vertices.
"""
import time

import numpy as np
import pyopencl as cl

from ..engine.family import KernelFamily
from ..errors import InputError
from .connectivity import DeviceConnectivity
from .louvain import SMALL_HEAD, SMALL_TRACE, DeviceLouvain

#: refinement rounds per level at most (a round: one pass over the edges, one over the
#: vertices; rounds stop earlier when no singleton moved and none is left waiting)
MAX_ROUNDS = 64
_U32 = 0xFFFFFFFF
#: singletons of at least this degree choose their target one work-group each
#: (``refine_choose_heavy``; their tables hold about 1.5 slots per entry), on the levels whose
#: local moving sorted the vertices by degree (the per-bucket path)
HEAVY_DEGREE = 85
_INT_MAX = np.iinfo(np.int32).max
#: refinement rounds enqueued between two reads of their counts
BATCH = 4
#: a small level (local moving in one work-group) of at most this many stored entries runs
#: its refinement rounds in one launch of one work-group too (``refine_one_group``), per
#: device type (0: never): on a small level the rounds' launches (some 50, and 4 read-backs)
#: cost more than their work; on CPU devices, where the group is one work-item on one core,
#: the bound is kept lower than local moving's
REFINE_ONE_GROUP_EDGES = {"cpu": 1 << 16, "gpu": 1 << 16}


def _slots():
    """Count slots of the rounds: a ring of two batches' slots, so that the batch's slots,
    zeroed in one fill as it starts, never hold the previous round's, which its first round
    reads."""
    return 2 * BATCH


class LeidenKernels(KernelFamily):
    """The kernels of ``kernels/leiden.cl.mako`` for one specialization of the Louvain
    driver (its index types, work-group size and weight type); ``refine_one_group``, built
    for the one-group work-group size, is a program of its own."""

    TEMPLATE = "leiden.cl.mako"
    GROUPS = (("refine_one_group",),)


def _round_key_base(seed, level):
    """The part of :func:`_round_key` that does not depend on the round."""
    return (int(seed) * 0x9E3779B1 + level * 0x85EBCA77 + 0x27D4EB2F) & _U32


def _round_key(seed, level, rnd):
    """The hash key of refinement round ``rnd`` of ``level`` (which vertices move in it;
    ``refine_one_group`` computes the same on the device)."""
    x = (_round_key_base(seed, level) + rnd * 0xC2B2AE3D) & _U32
    return np.uint32(x ^ (x >> 15))


class DeviceLeiden(DeviceLouvain):
    """Leiden's kernels of one device (Louvain's, plus the refinement).

    Parameters
    ----------
    handle, wtype, work_group_size, move_buckets, merge_buckets
        As for :class:`~pyclmatch.community.louvain.DeviceLouvain`.
    theta : float
        The randomness of the refinement (Algorithm A.2 line 16): 0 = greedy (the largest
        gain, ties to the lowest id); > 0 = a refined community drawn with probability
        proportional to exp(gain / theta), the gain in the input's weight units.
    seed : int
        The seed of the rounds' hashed movers and of theta's draws.
    cpm : bool
        Optimize the constant Potts model (:meth:`convert_weights`) instead of modularity.
    visits : int
        0 (default): refinement rounds until no singleton moved and none waits; ``v > 0``:
        exactly ``v`` rounds, each vertex a mover in one of them (its hashed bucket), as
        MergeNodesSubset visits each vertex once (about equal modularity on the shared
        graphs, no clear winner).
    claims : bool
        True (default): refinement rounds in which every singleton moves, conflicts settled
        by the hashed priorities of the round (``refine_claim_top``, ``refine_claim``);
        False: a hashed half of the vertices moves each round (about three times the
        rounds; always so with ``visits``).

    Examples
    --------
    >>> import pyclmatch
    >>> from pyclmatch.community.leiden import DeviceLeiden
    >>> dl = DeviceLeiden(pyclmatch.get_device("cpu"), "int", work_group_size=32)
    >>> dl.wg, dl.theta, dl.lk.TEMPLATE
    (32, 0.0, 'leiden.cl.mako')
    """

    def __init__(self, handle, wtype="float", theta=0.0, seed=0, cpm=False, visits=0,
                 claims=True, **tuning):
        self.visits = int(visits)
        self.claims = bool(claims) and not self.visits
        super().__init__(handle, wtype, **tuning)
        self.theta, self.seed, self.cpm = float(theta), int(seed or 0), bool(cpm)

    def convert_weights(self, rt, m2_in, scale, ac_scale):
        """Louvain's conversion; for the constant Potts model (``cpm``) every vertex then
        weighs 1 (k_i = 1, a_c = the community's size, exact in a_c's units) and 2m is taken
        as ``1 / scale``, so that Louvain's score 2m w(i, c) - gamma k_i a_c is the CPM gain
        w(i, c) - gamma n_i n_c in the input's weight units (and the driver's "modularity"
        is ``scale**2 (e_in - gamma sum_c n_c**2)``, e_in counting both directions)."""
        super().convert_weights(rt, m2_in, scale, ac_scale)
        if self.cpm:
            self.sched.fill("input", self.k, 1, self.wdt)
            self.sched.fill("input", self.kq, 1)
            self.ac_unit, self.m2f = 1.0, 1.0 / scale

    def level0_checks(self):
        super().level0_checks()
        if self.cpm:       # (the fixed-point total is no 2m for CPM)
            self.m2f = 1.0 / self.stats["weight_scale"]

    def _specialize(self, wtype):
        super()._specialize(wtype)
        self.lk = LeidenKernels(self.handle, **self.values, claims=self.claims)

    def builds_ahead(self):
        """Louvain's builds ahead (:meth:`DeviceLouvain.builds_ahead`), then the refinement's
        programs (the small levels' ``refine_one_group`` last) and the connectivity
        certificate's (a GPU builds them in the background while the first level's kernels
        run)."""
        extra = ()
        if REFINE_ONE_GROUP_EDGES["cpu" if self.handle.is_cpu else "gpu"]:
            extra = (lambda: self.lk.build_group("refine_one_group", wg=self.og_wg),)
        return super().builds_ahead() + (
            lambda: self.lk.build_group("refine_init"),
            lambda: DeviceConnectivity(self.handle).build_group("components_init")) + extra

    def _llaunch(self, phase, name, global_size, *args):
        return self.sched.launch(phase, self.lk.kernel(name), global_size, self.wg, *args)

    def run(self, *args, **kwargs):
        """:meth:`DeviceLouvain.run` with Leiden's levels (local moving of small levels in one
        work-group, :meth:`optimise_level_small`); ``stats`` adds ``communities`` and
        ``refined_communities`` (per level), ``refine_rounds``, ``started_alone`` (per
        level from the second) and ``stopped``;
        ``self.refined_levels`` holds the refined partitions per level with
        ``return_levels``. ``start``: the starting partition of level 0 (host labels
        in 0..n-1, one per vertex; default singletons), for a further iteration of the
        algorithm from an earlier answer."""
        indptr, indices = args[0], args[1]
        if 2 * indices.size + 3 * (indptr.size - 1) > np.iinfo(np.int32).max:
            # (the refinement's hash tables, int32 offsets: 1.5 d + a few slots a vertex)
            raise InputError("the graph is too large for leiden's refinement tables (at most "
                             "about 1e9 stored entries)", argument="G")
        start = kwargs.pop("start", None)
        self.source = kwargs.pop("source", None)
        self.start, self.refined_levels = None, []
        self.start_host = None if start is None else np.asarray(start, np.int32)
        self.start_held = self.alone = self.heavy = None
        try:
            return super().run(*args, **kwargs)
        finally:
            self.start = self.start_host = self.start_held = self.alone = None
            self.source = self.heavy = None

    def graph_buffers(self, indptr, indices, data):
        """:meth:`DeviceLouvain.graph_buffers`; a further iteration (``run(..., source=)``,
        the kept :class:`~pyclmatch.community.modularity.InputGraph` of the run before, on
        the same graph) copies them on the device instead of from the host."""
        src = self.source
        if src is None:
            return super().graph_buffers(indptr, indices, data)
        q = self.handle.queue
        return src.vertices.copy(queue=q), src.edges.copy(queue=q), src.raw.copy(queue=q)

    # -- a level --------------------------------------------------------------------------
    def next_level(self):
        """Algorithm A.1 lines 3-6: local moving, refinement, aggregation on the refined
        partition. Returns whether the method goes on."""
        self.sched.tick("leiden levels", 64 + self.n0)
        t_level = time.perf_counter()
        self.small = self.begin_level()
        if self.small:
            self.optimise_level_small()
        else:
            self.optimise_level()
        self.refine()
        go_on = self.aggregate_refined()
        self.sched.wall[f"level{self.level - 1}"] += time.perf_counter() - t_level
        return go_on

    def init_partition(self, sums=True):
        """The level's starting partition: singletons at level 0, else P of the previous
        level on the aggregate vertices (A.1 line 6), with its a_c and sizes (unless not
        ``sums``: the one-group kernel sums them). Returns whether a partition was given."""
        if self.start is None and self.start_host is not None:     # (a later iteration)
            # (the upload may wrap the host array on a CPU device: both stay referenced
            # until the run ends, after the copy below has run)
            self.start = self.start_held = self.handle.to_device(self.start_host)
        if self.start is None:
            if sums:
                super().init_partition()
            return False
        n = self.n
        cl.enqueue_copy(self.handle.queue, self.C.data, self.start.data, byte_count=4 * n)
        self.start = None
        if not sums:
            return True
        self._zero("init", self.ac)
        self._zero("init", self.csize)
        self._launch("init", "accumulate_communities", self._vgrid(n), self.wg, np.int32(n),
                     self.C.data, self.kq.data, self.ac.data, self.csize.data)
        return True

    def end_phase(self):
        """:meth:`DeviceLouvain.end_phase`, keeping the vertices of at least
        :data:`HEAVY_DEGREE` entries from local moving's degree order for the refinement
        (``self.heavy``: the sorted ids, the range of them and the degree they start at: the
        first bucket bound below :data:`HEAVY_DEGREE` plus one)."""
        if getattr(self, "vset", None) is not None:     # (not a one-group level)
            at = max(i for i, b in enumerate(self.mb) if b < HEAVY_DEGREE)
            self.heavy = (self.vset, int(self.ends[at]), int(self.ends[-1]), self.mb[at] + 1)
        super().end_phase()

    def optimise_level_small(self):
        """Local moving of a level of at most ``one_group_edges`` entries in one work-group:
        Louvain's ``optimize_level_one_group`` (one launch, one read-back) from the level's
        starting partition (copied to C by :meth:`init_partition`, unless it is the
        singletons; the kernel sums its a_c and sizes)."""
        self._begin_one_group_phase()
        self.given_start = int(self.init_partition(sums=False))
        out, held = self._launch_optimise_one_group()
        self.given_start = 0
        self._zero("move", out[SMALL_HEAD + 2 * SMALL_TRACE:])     # (no aggregation read)
        self._end_one_group_phase(out, held)

    def refine(self):
        """RefinePartition (Algorithm A.2) of P = C: R from singletons (``refine_init`` and a
        scan of the hash-table sizes; on a small level ``refine_init_one_group``), rounds of
        ``refine_edges`` (the first; ``refine_tables`` after it), ``refine_choose``, the
        claims (``claims``), ``refine_apply`` until no singleton moved and none waits for a
        round in which it may (at most :data:`MAX_ROUNDS`; :data:`BATCH` rounds between two
        reads of their counts; on a small level all in one launch, ``refine_one_group``)."""
        n, q = self.n, self.handle.queue
        with self.sched.step("refine"):
            self.R, self.aR, self.rsize = (self.empty(n, np.int32) for _ in range(3))
            tsz, self.tpos = self.empty(n, np.int32), self.empty(n + 1, np.int32)
            rflags = self.empty(4, np.int32)
            self._zero("refine", rflags)
            init = (np.int32(n), self.vertices.data, self.csize.data, self.kq.data,
                    self.R.data, self.aR.data, self.rsize.data, tsz.data)
            if self.small:      # (one launch, no scan to build)
                self._llaunch("refine", "refine_init_one_group", self.wg, *init,
                              self.tpos.data, rflags.data)
            else:
                self._llaunch("refine", "refine_init", self._vgrid(n), *init, rflags.data)
                self.scan(tsz, self.tpos, rflags, np.int32(3), np.int32(n), queue=q)
            if self.alone is not None:     # (the previous level's count, same read-back)
                cl.enqueue_copy(q, rflags.data, self.alone.data, byte_count=4, dst_offset=4)
            host = np.zeros(4, np.int32)
            self.sched.read("refine", host, rflags.data)
            self.n_P, total = int(host[2]), int(host[3])
            if self.alone is not None:
                self.stats.setdefault("started_alone", []).append(int(host[1]))
                self.alone = None
            keys, vals = self.empty(max(total, 1), np.int32), self.empty(max(total, 1),
                                                                          self.wdt)
            self.sched.fill("refine", keys, -1)
            self._zero("refine", vals)
            self.top = None
            if self.claims:
                self.top = self.empty(n, np.uint64)
                self._zero("refine", self.top)
            knl = self._refine_one_group_kernel()
            moved = (self._refine_one_group(knl, tsz, keys, vals) if knl is not None
                     else self._refine_rounds(tsz, keys, vals))
            self.heavy = self.top = None
        self.n_R = n - moved
        self.stats.setdefault("communities", []).append(self.n_P)
        self.stats.setdefault("refined_communities", []).append(self.n_R)

    def _refine_one_group_kernel(self):
        """``refine_one_group`` for this level's work-group (Louvain's one-group size), or
        None where the level is not small, is larger than :data:`REFINE_ONE_GROUP_EDGES` or
        the kernel does not fit that group."""
        bound = REFINE_ONE_GROUP_EDGES["cpu" if self.handle.is_cpu else "gpu"]
        if not (self.small and self.nnz <= bound):
            return None
        og = self.og_wg
        knl = self.lk.kernel("refine_one_group", wg=og)
        return knl if og == 1 or self.handle.group_fits(knl, most=og) >= og else None

    def _refine_one_group(self, knl, tsz, keys, vals):
        """The rounds of :meth:`refine` in one launch of ``refine_one_group`` (a small level)
        and one read-back; returns the vertices moved."""
        n, og = self.n, self.og_wg
        self.extR = self.empty(n, self.wdt)
        self._zero("refine", self.extR)
        prop, propw, out = self.empty(n, np.int32), self.empty(n, self.wdt), self.empty(2)
        self.sched.launch("refine", knl, og, og, np.int32(n), np.int32(self.nnz),
                          self.src.data, self.edges.data, self.w.data, self.vertices.data,
                          self.C.data, self.R.data, self.rsize.data, self.k.data,
                          self.kq.data, self.ac.data, self.aR.data, self.extR.data,
                          self.tpos.data, tsz.data, keys.data, vals.data,
                          np.float64(self.ac_unit), np.float64(self.m2f),
                          np.float64(self.res), np.float64(self._inv_theta()),
                          np.uint32(_round_key_base(self.seed, self.level)),
                          np.uint32(self.visits), np.int32(self.visits or MAX_ROUNDS),
                          prop.data, propw.data,
                          (prop if self.top is None else self.top).data, out.data)
        host = self.sched.read("refine", np.zeros(2, np.int32), out.data)
        self.stats.setdefault("refine_rounds", []).append(int(host[1]))
        return int(host[0])

    def _inv_theta(self):
        """1 / theta in the kernels' score units (0: greedy)."""
        scale = self.stats.get("weight_scale", 1.0)
        return 1.0 / (self.theta * self.m2f * scale) if self.theta > 0 else 0.0

    def _refine_rounds(self, tsz, keys, vals):
        """The rounds of :meth:`refine`, :data:`BATCH` between two reads of their counts (a
        round after one that moved nothing and left nothing waiting does nothing on the
        device); returns the vertices moved in all."""
        n = self.n
        self.extR = self.empty(n, self.wdt)
        rr = dict(tsz=tsz, keys=keys, vals=vals, prop=self.empty(n, np.int32),
                  propw=self.empty(n, self.wdt), rcount=self.empty(2 * _slots(), np.int32))
        counts = np.zeros(2 * _slots(), np.int32)
        limit = self.visits or MAX_ROUNDS
        moved = rounds = 0
        while rounds < limit:
            first = rounds                          # (a multiple of BATCH)
            lo = 2 * (first % _slots())
            self._zero("refine", rr["rcount"][lo:lo + 2 * BATCH])
            for rnd in range(first, min(first + BATCH, limit)):
                self._refine_round(rr, rnd)
            self.sched.read("refine", counts, rr["rcount"].data)
            for rnd in range(first, min(first + BATCH, limit)):
                at = 2 * (rnd % _slots())
                rounds += 1
                moved += int(counts[at])
                if not self.visits and not counts[at] and not counts[at + 1]:
                    limit = rounds                    # (the rounds after it did nothing)
                    break
        self.stats.setdefault("refine_rounds", []).append(rounds)
        return moved

    def _refine_round(self, rr, rnd):
        """Enqueue refinement round ``rnd``: the singletons' tables (``refine_edges`` with
        extR in the first round, ``refine_tables`` after it), ``refine_choose``, with
        ``claims`` ``refine_claim_top`` and ``refine_claim``, and ``refine_apply`` (and the
        ``_heavy`` kernels for the heavy vertices of ``self.heavy``); its counts in
        ``rr["rcount"]`` at ``2 * (rnd % (2 * BATCH))`` (zeroed with its batch's)."""
        n, nnz, extR, wg = self.n, self.nnz, self.extR, self.wg
        nvisit, rcount = self.visits, rr["rcount"]
        at = 2 * (rnd % _slots())
        prev = np.int32(-1 if nvisit or rnd == 0 else 2 * ((rnd - 1) % _slots()))
        graph = (np.int32(nnz), self.src.data, self.edges.data, self.w.data, self.C.data,
                 self.R.data, self.rsize.data)
        tables = (self.tpos.data, rr["tsz"].data, rr["keys"].data, rr["vals"].data)
        egrid = max(wg, min(self.grid, -(-max(nnz, 1) // wg) * wg))
        if rnd == 0:
            self._zero("refine", extR)
            self._llaunch("refine", "refine_edges", egrid, *graph, extR.data, *tables)
        else:
            self._llaunch("refine", "refine_tables", egrid, *graph, *tables, rcount.data, prev)
        inv_theta = self._inv_theta()
        key = _round_key(self.seed, self.level, 0 if nvisit else rnd)
        counts = (rcount.data, np.int32(at), prev)
        choose = (self.C.data, self.R.data, self.rsize.data, self.k.data, self.kq.data,
                  self.ac.data, self.aR.data, extR.data, *tables, np.float64(self.ac_unit),
                  np.float64(self.m2f), np.float64(self.res), np.float64(inv_theta),
                  key, np.uint32(nvisit),
                  np.uint32(rnd), rr["prop"].data, rr["propw"].data, *counts)
        vset, h0, h1, hdeg = self.heavy or (None, 0, 0, 0)    # (the per-bucket path's order)
        self._llaunch("refine", "refine_choose", self._vgrid(n), np.int32(n), *choose,
                      self.vertices.data, np.int32(hdeg if h1 > h0 else _INT_MAX))
        if h1 > h0:
            self._llaunch("refine", "refine_choose_heavy", min(h1 - h0, self.groups_max) * wg,
                          np.int32(h0), np.int32(h1 - h0), vset.data, *choose)
        if self.claims:
            claim = (np.int32(n), rr["prop"].data, self.rsize.data, self.top.data,
                     np.uint32(rnd), key)
            self._llaunch("refine", "refine_claim_top", self._vgrid(n), *claim, rcount.data,
                          prev)
            self._llaunch("refine", "refine_claim", self._vgrid(n), *claim, *counts)
        self._llaunch("refine", "refine_apply", self._vgrid(n), np.int32(n), rr["prop"].data,
                      rr["propw"].data, self.vertices.data, self.edges.data, self.w.data,
                      self.R.data, self.kq.data, self.aR.data, self.rsize.data, extR.data,
                      *counts, np.int32(hdeg if h1 > h0 else _INT_MAX))
        if h1 > h0:
            self._llaunch("refine", "refine_apply_heavy", min(h1 - h0, self.groups_max) * wg,
                          np.int32(h0), np.int32(h1 - h0), vset.data, rr["prop"].data,
                          self.vertices.data, self.edges.data, self.w.data, extR.data,
                          rcount.data, prev)

    def aggregate_refined(self):
        """A.1 lines 2 and 6: stop when local moving left every vertex alone (``done``: each
        community of P is one vertex of this level's graph, a refined community of the
        level before, hence connected), when R merged nothing or at ``max_level``, with the
        membership mapped through P; otherwise aggregate on R with P as the next level's
        starting partition. Returns whether the method goes on."""
        stop = ("converged" if self.n_P == self.n else "no-merge" if self.n_R == self.n
                else "max_level" if self.max_level is not None and
                self.level + 1 >= self.max_level else None)
        if stop:
            self.stats["stopped"] = stop
            if self.return_levels:
                self.refined_levels.append(self._host_levels(self.R))
            self._number(stop=True)               # the membership mapped through P
            if self.return_levels:
                self.levels.append(self.handle.download(self.memb, np.int64))
            self.level += 1
            self.stats["levels"] = self.level
            self._drop("R", "aR", "rsize", "tpos", "extR")
            return False
        P, P_ac = self.C, self.ac
        self.C, self.ac, self.csize = self.R, self.aR, self.rsize
        agg = self._number(stop=False)            # the membership mapped through R
        start = self._start_partition(P, P_ac)
        self.q_level = None      # (refined communities started alone: Q is recomputed)
        if self.return_levels:
            refined = self.handle.download(self.memb, np.int64)
            self.refined_levels.append(refined)
            self.levels.append(_renumbered(self.handle.download(start, np.int64)[refined]))
        self.level += 1
        self.stats["levels"] = self.level
        self._drop("R", "aR", "rsize", "tpos", "extR")
        if agg is None:
            self.order_communities()
            self.merge_communities()
            self.compact_edges()
        else:        # (a small level: the graph on R is built already)
            self._adopt_small_graph(*agg)
        self.start = start
        return True

    def _number(self, stop):
        """The communities of C numbered and the input's membership mapped through them: by
        Louvain's per-bucket kernels (:meth:`number_communities`; returns None), or on a
        small level by its one-group aggregation (``aggregate_level_one_group``, the kernel
        of Louvain's small levels, which also builds the graph on C unless ``stop``; one
        read-back; returns its ``(n_new, nnz_new, largest degree)``), so that a graph
        whose levels are all small builds none of the per-bucket aggregation."""
        if not self.small:
            self.number_communities()
            return None
        self._new_graph_arrays()
        out = self.empty(SMALL_HEAD + 2 * SMALL_TRACE + 4, np.float64)
        self._zero("aggregate", out)       # (out[7]: the level's optimization did run)
        # Leiden's own rule decided already (aggregate_refined): no threshold of the gain
        held = self._launch_aggregate_one_group(out, rule=(-np.inf, 0.0, stop))
        self.newID = held[2]
        host = np.empty(4, np.float64)
        self.sched.read("aggregate", host, out.data, offset=8 * (SMALL_HEAD + 2 * SMALL_TRACE))
        return tuple(int(x) for x in host[:3])

    def _adopt_small_graph(self, n_new, nnz_new, maxdeg_new):
        """The graph that :meth:`_number` built becomes the next level's."""
        self._take_new_graph(n_new, nnz_new, maxdeg_new)
        self._drop("new")

    def _start_partition(self, P, P_ac):
        """P on the aggregate graph's vertices (the refined communities' new ids): each
        community of P labelled by the smallest new id among its refined communities, a
        refined community not well connected to its community of P (``P_ac`` its a_c)
        alone (``start_representatives``, ``start_partition``)."""
        n = self.n
        rep = self.empty(n, np.int32)
        self.sched.fill("aggregate", rep, np.iinfo(np.int32).max)
        start = self.empty(max(self.n_R, 1), np.int32)
        alone = self.empty(1, np.int32)
        self._zero("aggregate", alone)
        well = (P_ac.data, self.aR.data, self.extR.data, np.float64(self.ac_unit),
                np.float64(self.m2f), np.float64(self.res))
        self._llaunch("aggregate", "start_representatives", self._vgrid(n), np.int32(n),
                      self.R.data, P.data, self.newID.data, *well, rep.data)
        self._llaunch("aggregate", "start_partition", self._vgrid(n), np.int32(n),
                      self.R.data, P.data, self.newID.data, *well, rep.data, start.data,
                      alone.data)
        self.alone = alone        # (read with the next level's refinement sizes)
        return start

    def _host_levels(self, part):
        """The input's vertices labelled by ``part`` (a partition of the level's vertices),
        numbered 0..k-1 (``return_levels``)."""
        memb = self.handle.download(self.memb, np.int64)
        return _renumbered(self.handle.download(part, np.int64)[memb])


def _renumbered(labels):
    """``labels`` numbered 0..k-1 in the order of their values."""
    return np.unique(labels, return_inverse=True)[1].reshape(-1).astype(np.int64)
