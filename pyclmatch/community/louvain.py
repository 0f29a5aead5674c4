"""The GPU Louvain method of Paper III (shared/papers/004, "Community Detection on the GPU").

:class:`DeviceLouvain` drives ``kernels/louvain.cl.mako``. :meth:`DeviceLouvain.run` reads as
the method: :meth:`~DeviceLouvain.upload` the graph and :meth:`~DeviceLouvain.check_input`
on the device, then level after level :meth:`~DeviceLouvain.optimise_level` (Algorithm 1,
computeMove of Algorithm 2 per degree bucket) and :meth:`~DeviceLouvain.aggregate`
(Algorithm 3, mergeCommunity per community bucket), then :meth:`~DeviceLouvain.finish`.
Everything runs on the device; the host reads back a few scalars per iteration (the
modularity of Eq. 1) and per level (bucket sizes, the new vertex and edge counts).
A level whose graph has at most ``one_group_edges`` entries and vertices runs instead in two
launches of one work-group each and one read-back
(:meth:`~DeviceLouvain.optimise_level_one_group`: ``optimize_level_one_group`` and
``aggregate_level_one_group``, generated from the same template defs), since on a small graph
the launches and read-backs of the per-bucket path cost more than the work.
"""
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

from ..engine import tuning
from ..engine.family import KernelFamily
from ..engine.probe import survives
from ..engine.sorting import radix_sort
from ..errors import InputError
from .dtypes import DEFAULT_WG, RAW_OF, default_row_lanes
from .hashing import (CPU_MOVE_BUCKETS, local_bytes, PAPER_MERGE_BUCKETS, PAPER_MOVE_BUCKETS,
                      bucket_specs, table_size)
from .modularity import InputGraph

FIXED_POINT_TOTAL = 2 ** 31 - 1
#: the last bucket bound: every larger degree falls in the last bin (``degree_keys``)
KEY_MAX = (1 << 16) - 1

#: degree bounds splitting the global-table buckets (vertices or communities above the largest
#: local bucket): each part gets tables sized for its own largest degree, so the many
#: moderate hubs run on many work-groups and only the few huge ones share the big tables
GLOBAL_SPLITS = (4095, 32767)
#: communities above the last split are merged by every work-group of a launch together
#: (``merge_giant_add``/``merge_giant_emit``), at most this many per launch, while there are
#: no more of them than work-groups to keep busy; beyond that, one work-group per community
GIANT_BATCH = 64
#: hashed sub-rounds per bucket while a level's graph has more than ``bin_limit`` vertices
#: (``subrounds=None``; ``moves="paper"`` keeps the paper's fully parallel moves, 1)
LARGE_SUBROUNDS = 2

#: a one-group level's work-group maps the input's membership through its communities; when
#: the input has more than this many vertices per level vertex, it maps a short map instead
#: (the first such level's vertices to the current level's), and one launch over the input
#: composes the two when the membership is next read (:attr:`DeviceLouvain.memb`)
SHORT_MAP_RATIO = 4

#: the int32 flags buffer read back by every round trip: bucket ends at 0..14, then
FLAG_ASYM, FLAG_BAD, FLAG_LOOPS, FLAG_MAXDEG, FLAG_MOVES = 15, 16, 17, 18, 19
#: and 8-byte values (int32 index of their first half): input weight total (double), the two
#: terms of Eq. 1 (e_in, sum of squared a_c) and the fixed-point total of deterministic mode
SLOT_M2, SLOT_EIN, SLOT_SQ, SLOT_M2Q = 20, 22, 24, 26
#: totals of the aggregation's prefix sums: new vertex count, edge bound, vertex count
FLAG_NEW_N, FLAG_EDGE_BOUND, FLAG_VTOTAL = 28, 29, 30
NFLAGS = 32
#: the one-group level kernel's output (doubles): SMALL_HEAD values, then SMALL_TRACE
#: modularities and SMALL_TRACE move counts (iterations past SMALL_TRACE are not traced)
SMALL_HEAD, SMALL_TRACE = 8, 256
#: the refusal of a graph whose weight total overflows float64
OVERFLOW = ("the sum of the edge weights (2m, each edge counted from both ends) overflows "
            "float64: scale the weights down")
ASYMMETRIC = ("the adjacency matrix is not symmetric: communities need an undirected graph "
              "(symmetrize it, e.g. A + A.T, read a file with read_graph(path, "
              "symmetrize=True), or pass a networkx Graph)")
#: work-groups of the first stage of the modularity reduction (at most)
MOD_GROUPS = 1024
#: input problems found by ``input_stats`` (flags[FLAG_BAD] bits)
BAD_RANGE, BAD_UNSORTED, BAD_NAN, BAD_INF, BAD_NEG, BAD_ZERO, BAD_NONINT = (
    1, 2, 4, 8, 16, 32, 64)
#: (host-side) the weight total is so small that the kernels' float sums would underflow:
#: the host scales the weights by a power of two (modularity does not change) and runs again
BAD_SCALE = 128
#: weight totals below this are scaled up on the host (:data:`BAD_SCALE`)
SMALLEST_TOTAL = 2.0 ** -60


class InputProblem(Exception):
    """Raised by :meth:`DeviceLouvain.run` at its first read-back when the device's input check
    (``input_stats``) found something the host must handle: ``bits`` (``BAD_*``) say what
    (the caller repairs the matrix or raises the documented error)."""

    def __init__(self, bits):
        super().__init__(f"input flags {bits:#x}")
        self.bits = int(bits)


#: Levels whose graph has at most ``ONE_GROUP_EDGES`` stored entries and at most
#: ``ONE_GROUP_VERTICES`` vertices run their modularity optimization phase and aggregation in
#: one work-group, one launch each and one read-back, per device type; a tuning-cache entry
#: ``"louvain": {"one_group_edges": ..., "one_group_vertices": ...}``
#: (:mod:`pyclmatch.engine.tuning`) overrides them per device. On CPUs the bounds are where
#: the one-group path stops being the faster one (the benchmarks' ``louvain_small.py
#: --sweep`` measures it); on GPUs they are the best of a sweep of both bounds over the
#: shared graphs and a large Delaunay graph (the group has one multiprocessor, whose passes
#: over more vertices cost more than the per-bucket path's launches).
ONE_GROUP_EDGES = {"cpu": 1 << 18, "gpu": 1 << 16}
ONE_GROUP_VERTICES = {"cpu": 1 << 18, "gpu": 1 << 13}
#: work-items of that work-group per device type (None: the per-bucket kernels' size): more
#: on GPUs, where the group has a multiprocessor to itself and needs the warps to hide
#: memory latency (fewer if the compiled kernel allows fewer: ``one_group_kernel``); one on
#: CPU devices, which run a work-group on one core anyway: the template then compiles the
#: barriers out, and a CPU compiler that specializes kernels per local size (PoCL) forms no
#: work-item loops around them, the costly part of their first launch. Such kernels need no
#: probe (:func:`one_group_compiles`: the abort seen was in those loops). The answers are
#: the same: within a sub-round the moves are computed from the same partition whatever the
#: group's size, and applied after it.
ONE_GROUP_WG = {"cpu": 1, "gpu": 512}


#: the script :func:`~pyclmatch.engine.probe.survives` runs in a child process before a PoCL
#: device first takes the one-group path (some PoCL compilers abort the process on these
#: kernels): both one-group kernels on a small graph, float64 and float32 weights, default
#: and deterministic moves
ONE_GROUP_PROBE = """
import numpy as np
import pyclmatch
A = pyclmatch.generators.grid(24)
S = ((A + A.T) > 0).astype(np.float64).tocsr()
S.setdiag(0)
S.eliminate_zeros()
for W in (S, S.astype(np.float32)):
    for det in (False, True):
        pyclmatch.louvain(W, device=DEVICE, one_group_edges=1 << 30, deterministic=det)
"""


def one_group_compiles(handle):
    """Whether ``handle``'s compiler takes the one-group kernels without aborting the process
    (:func:`~pyclmatch.engine.probe.survives`; every device but PoCL counts as yes)."""
    return survives(handle, "louvain one-group kernels", ONE_GROUP_PROBE)


def one_group_default(handle):
    """``(entries, vertices)``: the one-group bounds of ``handle``'s device, its tuned values,
    else the device type's ``ONE_GROUP_EDGES`` and ``ONE_GROUP_VERTICES``."""
    kind = "cpu" if handle.is_cpu else "gpu"
    tuned = tuning.tuned_params(handle, "louvain")
    return (int(tuned.get("one_group_edges", ONE_GROUP_EDGES[kind])),
            int(tuned.get("one_group_vertices", ONE_GROUP_VERTICES[kind])))


def _as_int32(a, what):
    """``a`` as int32 for the device, which checks the values' range itself; a wider array
    is checked here first, so that a value past int32 is refused instead of wrapped."""
    if a.dtype != np.int32 and a.size and (a.min() < np.iinfo(np.int32).min
                                           or a.max() > np.iinfo(np.int32).max):
        raise InputError(f"the sparse matrix holds an {what} out of range of its shape "
                         f"(negative or too large)", argument="G")
    return a.astype(np.int32, copy=False)


def _check_local(handle, name, buckets, sizes):
    """Refuse the caller's ``buckets`` (argument ``name``) whose local hash tables do not fit
    ``handle``'s local memory at one of the work-group ``sizes`` (the build would fail)."""
    for wg in sorted(sizes):
        need = local_bytes(bucket_specs(buckets, wg), wg)
        if need > handle.local_mem:
            raise InputError(
                f"{name}: its local hash tables need {need:,} bytes of local memory per "
                f"work-group of {wg}, and this device has {handle.local_mem:,}: give its "
                f"buckets more work-items per vertex (fewer vertices share a work-group) or "
                f"lower bounds", argument=name)


def _bin_bits(nbounds):
    """The radix sort's key bits for the keys of ``degree_key`` with bins 0..nbounds-1
    (four bits of degree octave under the bin's; even: it sorts two bits a pass)."""
    bits = 4 + max(1, (nbounds - 1).bit_length())
    return bits + bits % 2


def _bounds(buckets):
    """Upper degree bounds for ``bucket_ends`` (the first is 0: degree-0 vertices and empty
    communities go nowhere) and, per bucket, its parts ``(start index, end index, largest
    degree or None)`` into those bounds: one part for a local-table bucket, the
    ``GLOBAL_SPLITS`` parts for a global-table one (the last open-ended)."""
    bounds, parts = [0], []
    for lo, hi, _t, _l in buckets:
        if hi is not None:
            bounds.append(hi)
            parts.append([(len(bounds) - 2, len(bounds) - 1, hi)])
            continue
        p = []
        for sp in GLOBAL_SPLITS:
            if sp >= lo and sp > bounds[-1]:
                bounds.append(sp)
                p.append((len(bounds) - 2, len(bounds) - 1, sp))
        bounds.append(KEY_MAX)
        p.append((len(bounds) - 2, len(bounds) - 1, None))
        parts.append(p)
    if len(bounds) > 15:
        raise ValueError("too many bucket bounds (at most 14 buckets and splits)")
    return bounds, parts


class DeviceLouvain(KernelFamily):
    """The Louvain kernels of one device, specialized for ``wtype`` ("float" or "int").

    Parameters
    ----------
    handle : pyclmatch.engine.devices.DeviceHandle
        The device.
    wtype : {"float", "int"}
        Weights as float32 with float atomics (CAS loops), or as 31-bit fixed point with
        native integer atomics (exact; :meth:`run` switches when its scales ask for the other).
    work_group_size, move_buckets, merge_buckets
        Tuning (see :func:`pyclmatch.louvain`); defaults per device type.
    groups_per_cu, table_budget
        Work-groups per compute unit of the global-table launches, and the bytes their hash
        tables may take.

    Examples
    --------
    >>> import pyclmatch
    >>> from pyclmatch.community.louvain import DeviceLouvain
    >>> dl = DeviceLouvain(pyclmatch.get_device("cpu"), "int", work_group_size=32)
    >>> dl.wg, dl.wtype, len(dl.move)
    (32, 'int', 7)
    """

    TEMPLATE = "louvain.cl.mako"
    #: the kernels launched together (:attr:`KernelFamily.GROUPS`): the input kernels of one
    #: raw weight type, the one-group level, the modularity, the per-bucket level; the
    #: aggregation's kernels are the rest
    GROUPS = tuple((f"input_stats_{rt}", f"input_convert_{rt}", "check_symmetric",
                    "input_total")
                   for rt in RAW_OF.values()) + (
        ("*_one_group",), ("modularity_*",),
        ("init_communities", "degree_keys", "bucket_ends", "compute_move_b*",
         "update_communities", "accumulate_communities"))

    def __init__(self, handle, wtype="float", work_group_size=None, move_buckets=None,
                 merge_buckets=None, groups_per_cu=None, table_budget=None):
        wg = int(work_group_size or DEFAULT_WG.get(handle.type, 128))
        wg = min(wg, handle.max_work_group_size)
        if wg < 32 or wg & (wg - 1):
            raise ValueError(f"work_group_size must be a power of two >= 32, not {wg}")
        self.wg = wg
        self._move_buckets = move_buckets or (CPU_MOVE_BUCKETS if handle.is_cpu
                                              else PAPER_MOVE_BUCKETS)
        self.move = bucket_specs(self._move_buckets, wg)
        # the one-group level kernel's work-group (the whole device works for it alone)
        self.og_wg = wg if work_group_size else min(
            ONE_GROUP_WG["cpu" if handle.is_cpu else "gpu"] or wg, handle.max_work_group_size)
        self._merge_buckets = merge_buckets or PAPER_MERGE_BUCKETS
        self.merge = bucket_specs(self._merge_buckets, wg)
        for name, given in (("move_buckets", move_buckets), ("merge_buckets", merge_buckets)):
            if given:        # (the defaults fit every device's local memory)
                _check_local(handle, name, given, {wg, self.og_wg})
        super().__init__(handle, index_t="int", offset_t="int", mode="ct", wg=wg,
                         move_buckets=self.move, merge_buckets=self.merge,
                         row_lanes=default_row_lanes(handle), giant_batch=GIANT_BATCH)
        self._specialize(wtype)
        self.groups_max = max(1, handle.compute_units * int(
            groups_per_cu or (8 if handle.is_cpu else 16)))
        self.table_budget = int(table_budget or min(512 << 20, handle.global_mem // 16))
        # the giant-community merge while there are at most this many giants (more of them
        # keep the work-groups busy one community each)
        self.giant_max = self.groups_max
        # grid of the strided per-vertex / per-entry kernels: the engine's constant grid on
        # CPUs; on GPUs enough work-items to fill every compute unit (16 groups each)
        self.grid = (handle.constant_grid(wg) if handle.is_cpu
                     else max(handle.constant_grid(wg), handle.compute_units * 16 * wg))
        self.debug = False    # True: keep every aggregated graph in stats["graphs"] (tests)
        # the one-group level starts from the partition in C, a_c and the sizes (Leiden's
        # levels) instead of singletons
        self.given_start = 0
        self.kept = None      # run(keep_input=True): the level-0 graph and membership

    def _specialize(self, wtype):
        """Use the kernels of weight type ``wtype`` ("float": float32 weights, float atomics
        by CAS loops; "int": 31-bit fixed point, native integer atomics)."""
        if wtype not in ("float", "int"):
            raise ValueError(f"wtype must be 'float' or 'int', not {wtype!r}")
        self.wtype = wtype
        self.specialize(wtype=wtype)
        self.wdt = np.dtype(np.float32 if wtype == "float" else np.int32)
        self.acc_dt = np.dtype(np.float64 if wtype == "float" else np.int64)
        self._tables = None

    # -- kernels and helpers --------------------------------------------------------------
    def one_group_kernel(self, name="optimize_level_one_group"):
        """Kernel ``name`` of the small-level path for work-groups of ``og_wg`` work-items
        (its own specialization when that differs from the per-bucket kernels' size; the
        per-bucket size when registers or local memory do not allow ``og_wg``)."""
        og = self.og_wg
        knl = self.kernel(name, **self._one_group_values(og))
        if og != self.wg and self.handle.group_fits(knl, most=og) < og:
            self.og_wg = self.wg        # (both one-group kernels fall back to it)
            return self.one_group_kernel(name)
        return knl

    def _one_group_values(self, og):
        """The specialization of the one-group kernels for work-groups of ``og``."""
        return dict(wg=og, move_buckets=bucket_specs(self._move_buckets, og),
                    merge_buckets=bucket_specs(self._merge_buckets, og))

    def _launch(self, phase, name, global_size, local_size, *args):
        """``sched.launch`` of kernel ``name`` of this specialization."""
        return self.sched.launch(phase, self.kernel(name), global_size, local_size, *args)

    def build(self, *names, raw=np.float64):
        """Build the input kernels of weights of dtype ``raw`` (or the groups of ``names``)
        ahead of the first launch; the other groups are built at their first launch, and
        pyopencl's helpers (:meth:`helper`) at their first use: a graph whose levels all run
        in one work-group needs neither the per-bucket kernels nor the helpers."""
        super().build(*(names or (f"input_stats_{RAW_OF[np.dtype(raw)]}",)))

    def helper(self, name):
        """pyopencl's kernel ``name``, memoized per device and built at its first use:
        ``"sort"`` (radix sort of ids by int keys), ``"scan"`` and ``"scan_flag"`` (exclusive
        scans with a total, of x and of x > 0), ``"imax"`` (int max)."""
        h, ctx = self.handle, self.handle.context
        scan_args = ("__global const int *x, __global int *out, __global int *total, "
                     "int total_at, int n")
        factories = {
            "sort": lambda: radix_sort(ctx, arguments="int *ids, int *keys",
                                       key_expr="keys[i]", sort_arg_names=["ids", "keys"],
                                       key_dtype=np.int32),
            "scan": lambda: h.scan(
                ("louvain", "scan"), np.int32, arguments=scan_args, input_expr="x[i]",
                scan_expr="a+b", neutral="0", output_statement="out[i] = prev_item; "
                "if (i + 1 == n) { out[n] = item; total[total_at] = item; }"),
            "scan_flag": lambda: h.scan(
                ("louvain", "scan_flag"), np.int32, arguments=scan_args,
                input_expr="x[i] > 0 ? 1 : 0", scan_expr="a+b", neutral="0",
                output_statement="out[i] = prev_item; if (i + 1 == n) total[total_at] = item;"),
            "imax": lambda: ReductionKernel(ctx, np.int32, neutral="0", reduce_expr="max(a,b)",
                                            map_expr="x[i]", arguments="__global const int *x"),
        }
        return h.memoize(("louvain", name), factories[name])

    sort = property(lambda self: self.helper("sort"))
    scan = property(lambda self: self.helper("scan"))
    scan_flag = property(lambda self: self.helper("scan_flag"))
    imax = property(lambda self: self.helper("imax"))

    def _zero(self, phase, arr):
        """Zero-fill a device array (its own bytes: a pooled buffer may be larger)."""
        self.sched.fill(phase, arr, 0, arr.dtype)

    #: the membership array behind :attr:`memb` and the pending short map (None: none)
    _memb = _short = None

    @property
    def memb(self):
        """The current level's vertex of each input vertex (a device int32 array), with the
        one-group levels' short map (:meth:`_level_map`) composed into it first."""
        if self._short is not None:
            out = self.handle.take(self._short, self._memb, out=self._memb)
            self.sched.record("aggregate", out.events[-1])
            self._short = None
        return self._memb

    @memb.setter
    def memb(self, value):
        self._memb, self._short = value, None

    def _level_map(self):
        """``(length, array)`` that a one-group level's aggregation maps through its
        communities: the input's membership, or a short map (:data:`SHORT_MAP_RATIO`), which
        starts as the identity on this level's vertices, so that one work-group does not
        walk every input vertex at every small level."""
        if self._short is None and self.n0 > SHORT_MAP_RATIO * self.n:
            self._short = self.handle.arange(self.n, np.int32)
        if self._short is not None:
            return self._short.size, self._short
        return self.n0, self._memb

    def _drop(self, *names):
        """Release the device arrays ``names`` (back to the pool for the next level)."""
        for name in names:
            setattr(self, name, None)

    def _read(self, phase):
        """The round trip: the flags buffer into ``host_flags``."""
        self.sched.read(phase, self.host_flags, self.flags.data)

    def _f64(self, slot):
        return float(self.host_flags[slot:slot + 2].view(np.float64)[0])

    def _i64(self, slot):
        return int(self.host_flags[slot:slot + 2].view(np.int64)[0])

    def _rgrid(self, n):
        """Grid of the input kernels: row_lanes work-items per row, at most the CT grid."""
        lanes = self.values["row_lanes"]
        return max(self.wg, min(self.grid, -(-int(n) * lanes // self.wg) * self.wg))

    def _vgrid(self, n):
        return max(1, min(self.grid, int(n)))

    def _local_groups(self, count, threads):
        per = self.wg // threads
        return int(max(1, min(-(-count // per), self.groups_max * 4)))

    def _global_tables(self, cap, count):
        """Global hash tables for the buckets without a local table: ``groups`` regions of
        ``cap`` slots (keys + values), within the table budget; reused between launches."""
        per_group = cap * (4 + self.wdt.itemsize)
        groups = int(max(1, min(count, self.groups_max, self.table_budget // per_group)))
        need = groups * cap
        if self._tables is None or self._tables[0].size < need:
            self.handle.check_fits({"louvain hash tables": need * 4 + need * self.wdt.itemsize},
                                   what="Louvain hash tables")
            q = self.handle.queue
            self._tables = (cla.empty(q, need, np.int32), cla.empty(q, need, self.wdt))
        return groups, self._tables

    def _tables_for(self, local, threads, count, top, largest):
        """``(groups, keys, values, capacity)`` of a bucket part of ``count`` items: local
        tables (none in global memory), or global ones sized for its largest degree."""
        if local:
            return self._local_groups(count, threads), self.flags, self.flags, 0
        gcap = table_size(min(top or largest, largest))
        groups, (gk, gv) = self._global_tables(gcap, count)
        return groups, gk, gv, gcap

    # -- the method -----------------------------------------------------------------------
    def run(self, indptr, indices, data, sched, scales, resolution=1.0,
            stop=("relative", 2e-2, 1e-2), bin_limit=100_000, max_level=None,
            return_levels=False, max_iterations=None, subrounds=None, max_subrounds=32,
            small_subrounds=4, large_subrounds=LARGE_SUBROUNDS, check_symmetric=True,
            moves="up-down", keep_input=False, one_group_edges=None):
        """Louvain on the CSR graph ``(indptr, indices, data)`` as the user gave it (weights in
        a dtype of :data:`~pyclmatch.community.dtypes.RAW_TYPES`, self-loops not doubled).

        The device checks the input (:class:`InputProblem` at the first read-back), sums the
        weights (2m, self-loops doubled) and asks ``scales(m2, integral)`` for ``(scale,
        ac_scale, exact, wtype)`` (``wtype`` switches this object's specialization when it
        differs): weights are stored as ``weight * scale`` (float32, or rounded to int32
        fixed point), a_c in fixed point of unit ``1 / ac_scale``; ``exact`` says that the
        stored total is ``m2 * scale`` (otherwise it is summed on the device).

        ``stop``: when a modularity optimization phase ends, and the method.
        ``("absolute", t_bin, t_final)``: the paper's rule, an iteration gaining less than t
        ends the phase, a level gaining less than t ends the method (t = t_bin while the
        graph has more than ``bin_limit`` vertices, t_final below).
        ``("relative", f_bin, f_final[, floor])``: two iterations in a row each gaining less
        than max(f x the first gain of the phase, floor x |Q|) end the phase (floor 1e-4;
        with ``moves="paper"`` an iteration without gain ends it at once); a level gaining
        less than floor x |Q| ends the method. ``moves``: ``"up-down"`` (odd iterations move
        vertices only to communities of lower id, even ones only to higher: no pair swaps)
        or ``"paper"`` (any direction, the singleton rule of Section 4 with one sub-round).

        Returns ``(membership, q, levels, stats)``; ``stats["input_m2"]`` is the device's
        weight total of the input (self-loops doubled). ``keep_input=True`` keeps the
        level-0 buffers as uploaded and the final membership on the device for the
        verification: ``self.kept = (InputGraph, membership int32 array)``, which the caller
        clears. ``one_group_edges``: a level whose graph has at most this many stored entries
        and vertices runs in one work-group (:meth:`optimise_level_one_group`); ``None``: the
        bounds of :func:`one_group_default` for the device.
        """
        if moves not in ("up-down", "paper"):
            raise ValueError(f"moves must be 'up-down' or 'paper', not {moves!r}")
        self.sched, self.res = sched, float(resolution)
        self.relative = stop[0] == "relative"
        self.t_bin, self.t_final = stop[1], stop[2]
        self.floor = (stop[3] if len(stop) > 3 else 1e-4) if self.relative else 0.0
        self.bin_limit, self.max_level, self.moves = bin_limit, max_level, moves
        self.return_levels, self.keep_input = return_levels, keep_input
        self.check_symmetric = check_symmetric
        self.subrounds = (subrounds, max_subrounds, small_subrounds, large_subrounds)
        self.it_bound = int(max_iterations or 100_000)
        self.og_bounds = (one_group_default(self.handle) if one_group_edges is None
                          else (int(one_group_edges), int(one_group_edges)))
        n, nnz = indptr.size - 1, indices.size
        ahead = None
        try:
            self.upload(indptr, indices, data)
            if nnz > self.og_bounds[0] or n > self.og_bounds[1]:
                ahead = self.handle.ahead(*self.builds_ahead())
            self.check_input(scales)
            self.level, self.q_level, self.levels, self.moves_seen = 0, None, [], 0
            while self.next_level():
                pass
            return self.finish()
        finally:
            if ahead is not None:
                ahead.join()

    def builds_ahead(self):
        """What a run whose first level takes the per-bucket path builds after its upload, in
        the order it needs them: built in the background while the first level's kernels run
        (:meth:`~pyclmatch.engine.devices.DeviceHandle.ahead`). They start once the graph is
        up: the upload's host threads hand each chunk on through the interpreter, which a
        build's Python part would hold."""
        helper, one_group = self.helper, self._one_group_values(self.og_wg)
        return (lambda: self.build_group("init_communities"),
                lambda: helper("sort"),
                lambda: self.build_group("modularity_partial"),
                lambda: self.build_group("community_sizes"),
                lambda: helper("scan_flag").prebuild(),
                lambda: helper("scan").prebuild(),
                lambda: helper("imax"),
                lambda: self.build_group("optimize_level_one_group", **one_group))

    def upload(self, indptr, indices, data):
        """The input graph to the device as the user gave it, with the run's flags buffer, the
        level-0 membership (the identity) and room for the row index and the degrees."""
        h = self.handle
        n, nnz = int(indptr.size - 1), int(indices.size)
        self.n, self.nnz, self.n0 = n, nnz, n
        wsz = self.wdt.itemsize
        h.check_fits({"vertices": (n + 1) * 4, "edges": nnz * 4, "weights": nnz * wsz,
                      "input weights": nnz * data.dtype.itemsize,
                      "row index": nnz * 4, "aggregation edges": nnz * (4 + wsz),
                      "new graph": nnz * (8 + wsz), "vertex arrays": n * 4 * 16},
                     what="graph")
        self.stats = {"levels": 0, "iterations": [], "vertices": [], "edges": [],
                      "modularity": [], "trace": []}
        # the device's memory pool: the arrays of every level and iteration (and the
        # temporaries of pyopencl's sorts, scans and reductions, which take the allocator of
        # their first array) reuse its buffers instead of creating and releasing them
        with self.sched.step("upload"):
            self.vertices, self.edges, self.raw = self.graph_buffers(indptr, indices, data)
            self.flags = self.empty(NFLAGS, np.int32)
            self._zero("upload", self.flags)
            self.host_flags = np.zeros(NFLAGS, np.int32)
            self.src = self.empty(max(nnz, 1), np.int32)
            self.memb = self.empty(n, np.int32)      # (the identity, by input_stats)
            self.part_in = self.empty(self._rgrid(n) // self.wg, np.float64)
            h.queue.finish()

    def graph_buffers(self, indptr, indices, data):
        """The device copies of the input graph's CSR arrays (int32 offsets and indices, the
        weights as given): copies, not wraps, on CPU devices (the level-0 buffers are the
        driver's own)."""
        h = self.handle
        return (h.to_device(_as_int32(indptr, "offset"), read_only=False),
                h.to_device(_as_int32(indices, "index"), read_only=False),
                h.to_device(data, read_only=False))

    def check_input(self, scales):
        """The input checked on the device (indices in range, rows sorted, weights valid,
        self-loops, largest degree) and its weight total 2m, in one read-back; then the
        weights converted for the kernels (:meth:`convert_weights`)."""
        n, rt = self.n, RAW_OF[np.dtype(self.raw.dtype)]
        self._launch("input", f"input_stats_{rt}", self._rgrid(n), self.wg, np.int32(n),
                     np.int32(self.nnz), self.vertices.data, self.edges.data, self.raw.data,
                     self.src.data, self.memb.data, self.part_in.data, self.flags.data)
        self._input_total(0)
        self._read("input")
        bits = int(self.host_flags[FLAG_BAD])
        if bits & ~BAD_NONINT:
            self._drop(*_GRAPH_ARRAYS, "raw")    # (the caller repairs and runs again)
            raise InputProblem(bits)
        m2_in = self._f64(SLOT_M2)
        if not np.isfinite(m2_in):
            raise InputError(OVERFLOW, argument="G")
        if 0 < m2_in < SMALLEST_TOTAL:
            self._drop(*_GRAPH_ARRAYS, "raw")    # (the caller scales and runs again)
            raise InputProblem(BAD_SCALE)
        self.maxdeg = int(self.host_flags[FLAG_MAXDEG])
        self.stats["input_loops"] = int(self.host_flags[FLAG_LOOPS])
        self.stats["input_m2"] = m2_in
        if self.keep_input:
            self.kept = (InputGraph(self.vertices, self.edges, self.raw, n), None)
        scale, ac_scale, self.exact, wtype = scales(m2_in, not bits & BAD_NONINT)
        if wtype != self.wtype:     # (the other specialization, built on first use)
            self._specialize(wtype)
        self.stats["weight_scale"] = scale
        self.stats["weights"] = wtype       # "int" (exact fixed point) or "float" atomics
        self.stats["ac_scale"] = ac_scale
        self.convert_weights(rt, m2_in, scale, ac_scale)

    def _input_total(self, which):
        """Stage 2 of an input total (``input_total``): the per-work-group partial sums in
        ``part_in`` (of k_i from ``input_stats``, ``which`` 0; of the converted k_i from
        ``input_convert``, 1) summed into flags slot SLOT_M2 or SLOT_M2Q."""
        self._launch("input", "input_total", self.wg, self.wg,
                     np.int32(self.part_in.size), self.part_in.data, self.part_in.data,
                     np.int32(which), self.flags.data)

    def convert_weights(self, rt, m2_in, scale, ac_scale):
        """Alg. 1 line 2 on the converted weights: the kernels' weights (``weight * scale``,
        self-loops doubled), k_i and k_i in a_c units; the fixed-point total and the
        symmetry check are enqueued to be read with the first bucket sizes."""
        n, nnz, q, gw = self.n, self.nnz, self.handle.queue, self.wg
        if np.dtype(self.raw.dtype) == self.wdt and scale == 1.0 and \
                not self.stats["input_loops"]:
            self.w, write = self.raw, 0         # the uploaded weights are the device's weights
        else:       # (a new buffer: no kernel argument aliases another that is written)
            self.w, write = self.empty(max(nnz, 1), self.wdt), 1
        self.k = self.empty(n, self.wdt)
        self.kq = self.empty(n, np.int32)
        self._launch("input", f"input_convert_{rt}", self._rgrid(n), gw, np.int32(n),
                     self.vertices.data, self.edges.data, self.raw.data, self.w.data,
                     np.int32(write), np.float64(scale), self.k.data, self.kq.data,
                     np.float64(ac_scale), self.part_in.data)
        self._drop("raw")
        self.m2f = m2_in * scale
        if not self.exact:       # the rounded fixed-point total, read with the first sizes
            self._input_total(1)
        self._drop("part_in")
        self.ac_unit = 1.0 / float(ac_scale)    # a_c in fixed point: a_c = ac * ac_unit
        if self.check_symmetric:     # flags[FLAG_ASYM] is read with the first bucket sizes
            self._launch("input", "check_symmetric", self._vgrid(nnz), gw, np.int32(nnz),
                         self.vertices.data, self.edges.data, self.w.data, self.src.data,
                         self.flags.data, np.int32(FLAG_ASYM))
        self.mb, self.move_parts = _bounds(self.move)
        self.gb, self.merge_parts = _bounds(self.merge)
        self.move_bounds = cla.to_device(q, np.array(self.mb, np.int32))
        self.merge_bounds = cla.to_device(q, np.array(self.gb, np.int32))
        self.part_ein = self.empty(MOD_GROUPS, self.acc_dt)
        self.part_sq = self.empty(MOD_GROUPS, np.int64)

    def level0_checks(self):
        """The level-0 checks read with the first bucket sizes (or before the first one-group
        level): symmetry, and the rounded fixed-point total, which is the 2m of Eq. (1) and
        (2) when the scaled total is not exact."""
        if self.level == 0 and self.check_symmetric and self.host_flags[FLAG_ASYM]:
            raise InputError(ASYMMETRIC, argument="G")
        if self.level == 0 and not self.exact:
            m2q = self._i64(SLOT_M2Q)
            if m2q > FIXED_POINT_TOTAL:      # cannot happen, but never overflow
                raise InputError("the total weight does not fit the fixed-point range",
                                 argument="G")
            if m2q == 0:
                raise InputError("every edge weight rounds to 0 in fixed point", argument="G")
            self.m2f = float(m2q)

    # -- one level ------------------------------------------------------------------------
    def next_level(self):
        """One level of the method: the modularity optimization phase and the aggregation,
        in one work-group on a small graph. Returns whether the method goes on."""
        self.sched.tick("louvain levels", 64 + self.n0)
        t_level = time.perf_counter()
        if self.begin_level():
            go_on = self.optimise_level_one_group()
        else:
            self.optimise_level()
            go_on = self.aggregate()
        self.sched.wall[f"level{self.level - 1}"] += time.perf_counter() - t_level
        return go_on

    def begin_level(self):
        """The level's threshold and sub-rounds, its community arrays; returns whether it
        runs in one work-group."""
        n = self.n
        subrounds, _max, small, large = self.subrounds
        self.thr = self.t_bin if n > self.bin_limit else self.t_final
        self.first_gain = None
        self.low = 0            # iterations in a row below the relative threshold
        if subrounds is None:     # above bin_limit: the paper's moves in 1 sub-round
            self.nsub = ((1 if self.moves == "paper" else large) if n > self.bin_limit
                         else small)
        else:
            self.nsub = max(1, int(subrounds))
        self.C = self.empty(n, np.int32)
        self.C_prev = self.empty(n, np.int32)
        self.newComm = self.empty(n, np.int32)
        self.ac = self.empty(n, np.int32)
        self.csize = self.empty(n, np.int32)
        og_entries, og_vertices = self.og_bounds
        return (self.nnz <= og_entries and n <= og_vertices
                and (self.og_wg == 1 or one_group_compiles(self.handle)))

    def optimise_level(self):
        """Algorithm 1 on the level's graph: every vertex its own community, the degree
        partition, then iterations until the stop rule holds."""
        self.init_partition()
        self.partition()
        self.q_old = self._host_modularity() if self.q_level is None else self.q_level
        self.q_start = self.q_old
        self.iters = 0
        self.trace = [self.q_old]
        self.stats["trace"].append(self.trace)
        self.moved = []          # vertices moved per iteration
        self.stats.setdefault("moved", []).append(self.moved)
        self.t_opt = time.perf_counter()
        while self.iterate():
            pass
        self.end_phase()

    def init_partition(self):
        """Alg. 1 line 3: every vertex its own community (C, a_c and the sizes)."""
        n = self.n
        self._launch("init", "init_communities", self._vgrid(n), self.wg, np.int32(n),
                     self.C.data, self.kq.data, self.ac.data, self.csize.data)

    def partition(self):
        """Alg. 1 lines 4-5: the vertices sorted by degree bin (and octave) and the bucket ends,
        once per level (degrees do not change), read back with Eq. (1) of the singletons at
        level 0."""
        n, gw, q = self.n, self.wg, self.handle.queue
        with self.sched.step("partition"):
            ids = self.empty(n, np.int32)
            keys = self.empty(n, np.int32)
            nb = len(self.mb)
            self._launch("partition", "degree_keys", self._vgrid(n), gw, np.int32(n),
                         self.vertices.data, ids.data, keys.data, self.move_bounds.data,
                         np.int32(nb))
            (self.vset, skeys), _ = self.sort(ids, keys, key_bits=_bin_bits(nb), queue=q)
            self._launch("partition", "bucket_ends", nb, None, np.int32(n), skeys.data,
                         np.int32(nb), self.flags.data)
            if self.q_level is None:         # level 0: Eq. (1) of the singletons, same read
                self._enqueue_modularity()
            self._read("partition")
            self.ends = self.host_flags[:len(self.mb)].copy()
            if self.level == 0:
                self.level0_checks()

    def iterate(self):
        """One iteration of Alg. 1 lines 3-12: computeMove (Algorithm 2) and the community
        update per bucket and sub-round, then Eq. (1) read back. An iteration that loses
        modularity is undone. Returns whether the phase goes on."""
        self.sched.tick(f"level {self.level} iterations", self.it_bound)
        self.iters += 1
        updown = 2 - self.iters % 2 if self.moves == "up-down" else 0   # down, up, down, ...
        singleton = int(self.nsub == 1 and self.moves == "paper")
        cl.enqueue_copy(self.handle.queue, self.C_prev.data, self.C.data)
        for b in range(len(self.move)):
            for sub in range(self.nsub):
                self.move_bucket(b, sub, singleton, updown)
        self._enqueue_modularity()
        self._read("modularity")
        q_new = self._host_modularity()
        self.trace.append(q_new)
        mv = int(self.host_flags[FLAG_MOVES])
        self.moved.append((mv - self.moves_seen) & 0xFFFFFFFF)
        self.moves_seen = mv
        self.sched.report("louvain", level=self.level, iteration=self.iters, modularity=q_new)
        if q_new < self.q_old:
            return self.undo_iteration()
        return self.phase_goes_on(q_new)

    def move_bucket(self, b, sub, singleton, updown):
        """Alg. 1 lines 5-9 for sub-round ``sub`` of degree bucket ``b``: computeMove of each
        part of the bucket (they all read the same C), then one update of C, a_c and sizes."""
        lo, hi, T, L = self.move[b]
        parts, ends, gw = self.move_parts[b], self.ends, self.wg
        b0, b1 = int(ends[parts[0][0]]), int(ends[parts[-1][1]])
        if b1 <= b0:
            return
        for i0, i1, top in parts:
            p0, p1 = int(ends[i0]), int(ends[i1])
            if p1 <= p0:
                continue
            groups, gk, gv, gcap = self._tables_for(L, T, p1 - p0, top, self.maxdeg)
            self._launch("move", f"compute_move_b{b}", groups * gw, gw, self.vset.data,
                         np.int32(p0), np.int32(p1), self.vertices.data, self.edges.data,
                         self.w.data, self.C.data, self.k.data, self.kq.data, self.ac.data,
                         np.float64(self.ac_unit), self.csize.data, self.newComm.data,
                         np.float64(self.m2f), np.float64(self.res), gk.data, gv.data,
                         np.int32(gcap), np.uint32(self.nsub), np.uint32(sub),
                         np.int32(singleton), np.int32(updown))
        self._launch("update", "update_communities", self._vgrid(b1 - b0), gw,
                     self.vset.data, np.int32(b0), np.int32(b1), self.C.data,
                     self.newComm.data, self.kq.data, self.ac.data, self.csize.data,
                     np.uint32(self.nsub), np.uint32(sub), self.flags.data)

    def undo_iteration(self):
        """Parallel moves lost modularity: keep the previous partition (a_c recounted, Alg. 1
        line 11) and let fewer vertices move at once (twice the sub-rounds), up to
        ``max_subrounds``. Returns whether the phase goes on."""
        cl.enqueue_copy(self.handle.queue, self.C.data, self.C_prev.data)
        self._zero("update", self.ac)
        self._zero("update", self.csize)
        self._launch("update", "accumulate_communities", self._vgrid(self.n), self.wg,
                     np.int32(self.n), self.C.data, self.kq.data, self.ac.data,
                     self.csize.data)
        max_subrounds = self.subrounds[1]
        if self.nsub >= max_subrounds:
            return False
        self.nsub = min(2 * self.nsub, max_subrounds)
        self.stats["subround_doublings"] = self.stats.get("subround_doublings", 0) + 1
        return True

    def phase_goes_on(self, q_new):
        """The stop rule after an iteration that gained ``q_new - q_old``."""
        gain = q_new - self.q_old
        self.q_old = q_new
        if not self.relative:
            return gain > self.thr             # the paper's rule
        if self.first_gain is None:
            self.first_gain = gain
        if gain <= 0 and self.moves == "paper":      # (up/down: the other direction may)
            return False
        # two iterations in a row (one up, one down) below the threshold
        low = gain <= max(self.thr * self.first_gain, self.floor * abs(q_new))
        self.low = self.low + 1 if low else 0
        return self.low < 2

    def end_phase(self):
        """The phase's counters; its modularity becomes the level's."""
        if self.level == 0:
            self.sched.wall["optimize:level0"] += time.perf_counter() - self.t_opt
            self.stats["level0_iterations"] = self.iters
            self.stats["level0_edges"] = self.nnz // 1
        self.stats["iterations"].append(self.iters)
        self.stats["vertices"].append(self.n)
        self.stats["edges"].append(self.nnz)
        self.stats["modularity"].append(self.q_old)
        self.q_level = self.q_old
        self._drop("C_prev", "newComm", "vset")

    def _enqueue_modularity(self):
        """The two sums of Eq. (1) into the flags buffer (read with the next read-back): two
        launches, no allocation."""
        gw = self.wg
        groups = max(1, min(MOD_GROUPS, self.grid // gw, -(-max(self.nnz, self.n) // gw)))
        self._launch("modularity", "modularity_partial", groups * gw, gw, np.int32(self.nnz),
                     np.int32(self.n), self.C.data, self.src.data, self.edges.data,
                     self.w.data, self.ac.data, self.part_ein.data, self.part_sq.data)
        self._launch("modularity", "modularity_final", gw, gw, np.int32(groups),
                     self.part_ein.data, self.part_sq.data, self.flags.data)

    def _host_modularity(self):
        """Eq. (1): e_in / 2m - resolution * sum a_c^2 / (2m)^2 from the flags read."""
        ein = self._f64(SLOT_EIN) if self.wtype == "float" else float(self._i64(SLOT_EIN))
        sq = float(self._i64(SLOT_SQ)) * self.ac_unit * self.ac_unit
        return ein / self.m2f - self.res * sq / (self.m2f * self.m2f)

    # -- aggregation ----------------------------------------------------------------------
    def aggregate(self):
        """Algorithm 3: the communities become the vertices of the next level's graph.
        Returns whether the method goes on (the level gained enough and something merged)."""
        self.number_communities()
        self._download_level()
        self.level += 1
        self.stats["levels"] = self.level
        lthr = self.floor * abs(self.q_level) if self.relative else self.thr
        if self.q_level - self.q_start <= lthr or (self.max_level is not None
                                                   and self.level >= self.max_level):
            return False        # (no read-back: the membership is numbered already)
        if not self.order_communities():
            return False        # nothing merged: the method has converged
        self.merge_communities()
        self.compact_edges()
        return True

    def number_communities(self):
        """Alg. 3 lines 2-16: community sizes and degree sums, the new ids (a prefix sum over
        the non-empty communities), edge and vertex positions; the membership of the input's
        vertices mapped to the new ids."""
        n, gw = self.n, self.wg
        scan, q = self.scan, self.handle.queue
        with self.sched.step("aggregate"):
            self.comSize = self.csize            # recomputed exactly below
            self.comDegree = self.empty(n, np.int32)
            self._zero("aggregate", self.comSize)
            self._zero("aggregate", self.comDegree)
            self._launch("aggregate", "community_sizes", self._vgrid(n), gw, np.int32(n),
                         self.C.data, self.vertices.data, self.comSize.data,
                         self.comDegree.data)
            self.newID = self.empty(n + 1, np.int32)
            self.edgePos = self.empty(n + 1, np.int32)
            self.vstart = self.empty(n + 1, np.int32)
            self.scan_flag(self.comSize, self.newID, self.flags, np.int32(FLAG_NEW_N),
                           np.int32(n), queue=q)
            scan(self.comDegree, self.edgePos, self.flags, np.int32(FLAG_EDGE_BOUND),
                 np.int32(n), queue=q)
            scan(self.comSize, self.vstart, self.flags, np.int32(FLAG_VTOTAL), np.int32(n),
                 queue=q)
            self._launch("aggregate", "map_membership", self._vgrid(self.n0), gw,
                         np.int32(self.n0), self.memb.data, self.C.data, self.newID.data)

    def order_communities(self):
        """Alg. 3 lines 16-20: the vertices ordered by community (``com``), the new vertices'
        degrees, and the communities sorted by degree sum into the merge buckets, read back
        with the new vertex count. Returns whether any community merged vertices."""
        n, gw, q = self.n, self.wg, self.handle.queue
        with self.sched.step("aggregate"):
            # the arrays of the new graph's vertices are sized n until the count is read
            self.vpos = self.empty(n, np.int32)
            cl.enqueue_copy(q, self.vpos.data, self.vstart.data, byte_count=4 * n)
            self.com = self.empty(n, np.int32)
            self._launch("aggregate", "order_vertices", self._vgrid(n), gw, np.int32(n),
                         self.C.data, self.vpos.data, self.com.data)
            self.old_of_new = self.empty(n, np.int32)
            self.k_new = self.empty(n, self.wdt)
            self.kq_new = self.empty(n, np.int32)
            ids = self.empty(n, np.int32)
            keys = self.empty(n, np.int32)
            nb = len(self.gb)
            self._launch("aggregate", "new_vertices", self._vgrid(n), gw, np.int32(n),
                         self.comSize.data, self.comDegree.data, self.newID.data,
                         self.ac.data, np.float64(self.ac_unit), self.old_of_new.data,
                         self.k_new.data, self.kq_new.data, ids.data, keys.data,
                         self.merge_bounds.data, np.int32(nb))
            (self.cset, ckeys), _ = self.sort(ids, keys, key_bits=_bin_bits(nb), queue=q)
            self._launch("aggregate", "bucket_ends", nb, None, np.int32(n), ckeys.data,
                         np.int32(nb), self.flags.data)
            mx = self.imax(self.comDegree, queue=q)
            cl.enqueue_copy(q, self.flags.data, mx.data, byte_count=4, dst_offset=4 * nb)
            self._read("aggregate")
            self.cends = self.host_flags[:nb].copy()
            self.max_cdeg = int(self.host_flags[nb])
            self.n_new = int(self.host_flags[FLAG_NEW_N])
        return self.n_new != n

    def merge_communities(self):
        """Alg. 3 lines 20-23: mergeCommunity per community bucket (its parts by degree sum),
        the giant communities by every work-group together; each community's edges land in
        ``tmp_e``/``tmp_w`` at its ``edgePos``, their count in ``newDeg``."""
        n, gw, cends = self.n, self.wg, self.cends
        with self.sched.step("aggregate"):
            self.tmp_e = self.empty(max(self.nnz, 1), np.int32)
            self.tmp_w = self.empty(max(self.nnz, 1), self.wdt)
            self.newDeg = self.empty(self.n_new + 1, np.int32)
            self._zero("aggregate", self.newDeg)
            for b, (lo, hi, T, L) in enumerate(self.merge):
                for i0, i1, top in self.merge_parts[b]:
                    b0, b1 = int(cends[i0]), int(cends[i1])
                    if b1 <= b0:
                        continue
                    if not L and top is None and b1 - b0 <= self.giant_max:
                        self._merge_giants(b0, b1)
                        self.stats["giant_communities"] = (
                            self.stats.get("giant_communities", 0) + b1 - b0)
                        continue
                    groups, gk, gv, gcap = self._tables_for(L, T, b1 - b0, top,
                                                            min(self.max_cdeg, n))
                    self._launch("merge", f"merge_community_b{b}", groups * gw, gw,
                                 self.cset.data, np.int32(b0), np.int32(b1),
                                 self.vstart.data, self.comSize.data, self.comDegree.data,
                                 self.com.data, self.vertices.data, self.edges.data,
                                 self.w.data, self.C.data, self.newID.data,
                                 self.edgePos.data, self.tmp_e.data, self.tmp_w.data,
                                 self.newDeg.data, np.int32(n), gk.data, gv.data,
                                 np.int32(gcap))

    def _merge_giants(self, b0, b1):
        """mergeCommunity of the giant communities cset[b0:b1] (above the last GLOBAL_SPLITS
        bound), every work-group on each: the flat member-edge offsets (one scan), then per
        batch of at most GIANT_BATCH communities (one global table region each) a fill of
        the tables, ``merge_giant_add`` and ``merge_giant_emit``."""
        q, n, gw = self.handle.queue, self.n, self.wg
        member_edges = self.handle.scan(("louvain", "member_edges"), np.int32,
            arguments="__global const int *com, __global const int *vertices, "
                      "__global int *out, int n",
            input_expr="vertices[com[i] + 1] - vertices[com[i]]", scan_expr="a+b",
            neutral="0", output_statement="out[i] = prev_item; if (i + 1 == n) out[n] = item;")
        memberEdge = self.empty(n + 1, np.int32)
        self.sched.record("merge", member_edges(self.com, self.vertices, memberEdge,
                                                np.int32(n), size=n, queue=q))
        gcap = table_size(min(self.max_cdeg, n))
        regions, (gk, gv) = self._global_tables(gcap, min(b1 - b0, self.values["giant_batch"]))
        for s0 in range(b0, b1, regions):
            s1 = min(b1, s0 + regions)
            self.sched.fill("merge", gk[:(s1 - s0) * gcap], -1)
            self.sched.fill("merge", gv[:(s1 - s0) * gcap], 0)
            self._launch("merge", "merge_giant_add", self.groups_max * gw, gw, self.cset.data,
                         np.int32(s0), np.int32(s1), self.vstart.data, self.comSize.data,
                         self.comDegree.data, self.com.data, memberEdge.data,
                         self.edgePos.data, self.vertices.data, self.edges.data, self.w.data,
                         self.C.data, np.int32(n), gk.data, gv.data, np.int32(gcap))
            self._launch("merge", "merge_giant_emit", self.groups_max * gw, gw,
                         self.cset.data, np.int32(s0), np.int32(s1), self.comDegree.data,
                         self.newID.data, self.edgePos.data, self.tmp_e.data,
                         self.tmp_w.data, self.newDeg.data, np.int32(n), gk.data, gv.data,
                         np.int32(gcap))

    def compact_edges(self):
        """The new graph's CSR: a prefix sum over the merged degrees, read back with its edge
        count and largest degree, then the edges moved in place (the step after Algorithm 3);
        it replaces the level's graph."""
        n_new, q = self.n_new, self.handle.queue
        with self.sched.step("aggregate"):
            newVertices = self.empty(n_new + 1, np.int32)
            self.scan(self.newDeg, newVertices, self.flags, np.int32(0), np.int32(n_new),
                      queue=q)
            mx = self.imax(self.newDeg, queue=q)
            cl.enqueue_copy(q, self.flags.data, mx.data, byte_count=4, dst_offset=4)
            self._read("aggregate")
            nnz_new, self.maxdeg = int(self.host_flags[0]), int(self.host_flags[1])
            new_edges = self.empty(max(nnz_new, 1), np.int32)
            new_w = self.empty(max(nnz_new, 1), self.wdt)
            new_src = self.empty(max(nnz_new, 1), np.int32)
            self._launch("aggregate", "compact_edges", max(32, min(self.grid, 32 * n_new)),
                         self.wg, np.int32(n_new), self.old_of_new.data, self.edgePos.data,
                         newVertices.data, self.tmp_e.data, self.tmp_w.data, new_edges.data,
                         new_w.data, new_src.data)
            self._drop("tmp_e", "tmp_w", "cset", "com", "vpos", "comDegree", "old_of_new")
            self.vertices, self.edges, self.w, self.src = (newVertices, new_edges, new_w,
                                                           new_src)
            self.k, self.kq = self.k_new, self.kq_new
            if self.debug:
                self.stats.setdefault("graphs", []).append(
                    (self.vertices.get(), self.edges.get(), self.w.get(),
                     self.k[:n_new].get()))
            self.n, self.nnz = n_new, nnz_new
            self._drop("C", "ac", "csize", "newID", "edgePos", "vstart", "comSize",
                       "k_new", "kq_new", "newDeg")

    # -- a level in one work-group --------------------------------------------------------
    def optimise_level_one_group(self):
        """A whole level in one work-group: Algorithm 1 (every iteration, bucket and
        sub-round, and the stop rule) in one launch of ``optimize_level_one_group`` and
        Algorithm 3 in one of ``aggregate_level_one_group``, one read-back for both; the same
        moves, stop rule and arithmetic as :meth:`optimise_level` and :meth:`aggregate`.
        Returns whether the method goes on."""
        self._begin_one_group_phase()
        self._new_graph_arrays()        # Algorithm 3 in the same read-back
        out, held = self._launch_optimise_one_group()
        held += self._launch_aggregate_one_group(out)
        return self._adopt_one_group_graph(*self._end_one_group_phase(out, held))

    def _new_graph_arrays(self):
        """``self.new``: the arrays of the graph that ``aggregate_level_one_group`` builds,
        sized by the level's."""
        n, nnz = self.n, max(self.nnz, 1)
        self.new = dict(vertices=self.empty(n + 1, np.int32), edges=self.empty(nnz, np.int32),
                        w=self.empty(nnz, self.wdt), src=self.empty(nnz, np.int32),
                        k=self.empty(n, self.wdt), kq=self.empty(n, np.int32))

    def _begin_one_group_phase(self):
        """Before a one-group level's launch: the level-0 checks (the fixed-point total is
        needed first) and the phase's clock."""
        if self.level == 0 and not self.exact:
            self._read("partition")
            self.level0_checks()
        self.t_opt = time.perf_counter()

    def _end_one_group_phase(self, out, held):
        """The one read-back of a one-group level (``held``: its temporaries, released after
        it) and the phase's counters (:meth:`end_phase`); returns the aggregation's numbers
        of :meth:`_read_one_group`."""
        self.q_old, self.iters, doubled, trace, moved, agg = self._read_one_group(out)
        del held
        self.q_start = trace[0]
        if doubled:
            self.stats["subround_doublings"] = self.stats.get("subround_doublings", 0) + doubled
        self.stats["trace"].append(trace)
        self.stats.setdefault("moved", []).append(moved)
        self.stats["one_group_levels"] = self.stats.get("one_group_levels", 0) + 1
        self.end_phase()
        return agg

    def _launch_optimise_one_group(self):
        """Enqueue ``optimize_level_one_group``; returns its output buffer and the
        temporaries to hold until the read-back."""
        knl = self.one_group_kernel()       # (first: it may lower og_wg to what fits)
        n, gw = self.n, self.og_wg
        vset = self.empty(max(n, 1), np.int32)
        if self.maxdeg > (self.move[-2][1] or 0) and not self.move[-1][3]:
            gcap = table_size(self.maxdeg)       # the last bucket's table (global memory)
            gk, gv = self.empty(gcap, np.int32), self.empty(gcap, self.wdt)
        else:
            gcap, gk, gv = 0, self.flags, self.flags
        out = self.empty(SMALL_HEAD + 2 * SMALL_TRACE + 4, np.float64)
        have_q = self.q_level is not None
        self.sched.launch(
            "move", knl, gw, gw, np.int32(n), np.int32(self.nnz),
            self.vertices.data, self.edges.data, self.w.data, self.src.data, self.k.data,
            self.kq.data, np.float64(self.ac_unit), np.float64(self.m2f), np.float64(self.res),
            self.C.data, self.C_prev.data, self.newComm.data, self.ac.data, self.csize.data,
            vset.data, gk.data, gv.data, np.int32(gcap), np.uint32(self.nsub),
            np.uint32(self.subrounds[1]), np.int32(self.moves == "paper"),
            np.int32(self.relative), np.float64(self.thr), np.float64(self.floor),
            np.float64(self.q_level if have_q else 0.0), np.int32(have_q),
            np.int32(self.it_bound), np.int32(self.given_start), self.flags.data, out.data)
        return out, [vset, gk, gv]

    def _launch_aggregate_one_group(self, out, rule=None):
        """Enqueue ``aggregate_level_one_group``: the membership mapped, and unless the method
        stops, the new graph in the arrays of ``self.new``; returns the temporaries. ``rule``:
        ``(lthr_abs, lthr_rel, stop_now)`` of the kernel's stop rule (default: this run's,
        the level's gain in ``out`` against the threshold, and ``max_level``)."""
        knl = self.one_group_kernel("aggregate_level_one_group")     # (it may lower og_wg)
        n, nnz, gw, new = self.n, self.nnz, self.og_wg, self.new
        if rule is None:
            rule = (0.0 if self.relative else self.thr, self.floor if self.relative else 0.0,
                    self.max_level is not None and self.level + 1 >= self.max_level)
        lthr_abs, lthr_rel, stop_now = rule
        gsize = 2 * nnz + 16 * n          # the tables of every community (<= 2 d + 16 each)
        n_map, level_map = self._level_map()
        comSize, comDegree, newID, tpos, cursor = (self.empty(n, np.int32) for _ in range(5))
        tk, tv = self.empty(gsize, np.int32), self.empty(gsize, self.wdt)
        self.sched.launch(
            "aggregate", knl, gw, gw,
            np.int32(n), np.int32(nnz), self.vertices.data, self.edges.data, self.w.data,
            self.C.data, self.ac.data, np.float64(self.ac_unit), np.int32(n_map),
            level_map.data, comSize.data, comDegree.data, newID.data, tpos.data, cursor.data,
            tk.data, tv.data, new["vertices"].data, new["edges"].data, new["w"].data,
            new["src"].data, new["k"].data, new["kq"].data,
            np.float64(lthr_abs), np.float64(lthr_rel), np.int32(stop_now), out.data,
            np.int32(SMALL_HEAD + 2 * SMALL_TRACE))
        return [comSize, comDegree, newID, tpos, cursor, tk, tv]

    def _read_one_group(self, out):
        """The one read-back of a one-group level: ``(Q, iterations, sub-round doublings,
        trace, moved, (n_new, nnz_new, largest degree, stop))``; ``trace`` is the modularity
        at the start and after each iteration, ``moved`` the vertices moved per iteration,
        both cut at SMALL_TRACE."""
        host = np.empty(SMALL_HEAD + 2 * SMALL_TRACE + 4, np.float64)
        self.sched.read("move", host, out.data)
        if host[7]:
            raise InputError(ASYMMETRIC, argument="G")
        iters = int(host[2])
        for _ in range(iters + int(host[4])):      # raises past it_bound
            self.sched.tick(f"level {self.level} iterations", self.it_bound)
        ntrace = int(host[6])
        trace = [float(x) for x in host[SMALL_HEAD:SMALL_HEAD + ntrace]]
        moved = [int(x) for x in host[SMALL_HEAD + SMALL_TRACE:
                                      SMALL_HEAD + SMALL_TRACE + ntrace - 1]]
        agg = tuple(int(x) for x in host[SMALL_HEAD + 2 * SMALL_TRACE:])
        return float(host[0]), iters, int(host[3]), trace, moved, agg

    def _adopt_one_group_graph(self, n_new, nnz_new, maxdeg_new, stop):
        """After a one-group level: the next level's graph is the one it built, unless the
        method stops. Returns whether it goes on."""
        self._download_level()
        self.level += 1
        self.stats["levels"] = self.level
        if not stop:
            self._take_new_graph(n_new, nnz_new, maxdeg_new)
            if self.debug:
                self.stats.setdefault("graphs", []).append(
                    (self.vertices[:n_new + 1].get(), self.edges[:nnz_new].get(),
                     self.w[:nnz_new].get(), self.k[:n_new].get()))
        self._drop("new", "C", "ac", "csize")
        return not stop

    def _take_new_graph(self, n_new, nnz_new, maxdeg_new):
        """The graph ``aggregate_level_one_group`` built in ``self.new`` becomes the level's."""
        new = self.new
        self.vertices, self.edges, self.w, self.src = (new["vertices"], new["edges"],
                                                       new["w"], new["src"])
        self.k, self.kq = new["k"], new["kq"]
        self.n, self.nnz, self.maxdeg = n_new, nnz_new, maxdeg_new

    # -- the answer -----------------------------------------------------------------------
    def _download_level(self):
        """The membership after this level (``return_levels=True``)."""
        if self.return_levels:
            with self.sched.step("download"):
                self.levels.append(self.handle.download(self.memb, np.int64))

    def finish(self):
        """The final membership read back (kept on the device with ``keep_input``), the
        run's buffers released. Returns ``(membership, q, levels, stats)``."""
        with self.sched.step("download"):
            membership = self.handle.download(self.memb, np.int64)
        if self.keep_input:
            self.kept = (self.kept[0], self.memb)
        self._drop(*_GRAPH_ARRAYS)
        self.handle.trim_pool()
        self._drop(*_LEVEL_ARRAYS)
        self.stats["modularity_device"] = self.q_level
        return membership, self.q_level, self.levels, self.stats


#: the device arrays of a run's current graph and its flags (released by ``finish``)
_GRAPH_ARRAYS = ("memb", "vertices", "edges", "w", "src", "k", "kq", "flags")
#: the other device arrays a run keeps on its driver between stages
_LEVEL_ARRAYS = ("C", "C_prev", "newComm", "ac", "csize", "vset", "new", "comSize",
                 "comDegree", "newID", "edgePos", "vstart", "vpos", "com", "old_of_new",
                 "k_new", "kq_new", "cset", "tmp_e", "tmp_w", "newDeg", "move_bounds",
                 "merge_bounds", "part_ein", "part_sq", "raw", "part_in")
