"""Device driver of the GPU Louvain method (Paper III of shared/papers/004).

:class:`DeviceLouvain` holds a device handle and the specialization values of
``kernels/louvain.cl.mako`` (weight type, work-group size, degree buckets); :meth:`run` chains
the levels: modularity optimization (Algorithm 1, computeMove of Algorithm 2 per degree bucket)
and aggregation (Algorithm 3, mergeCommunity per community bucket), everything on the device.
The host only reads back a few scalars per iteration (the modularity of Eq. 1) and per level
(bucket sizes, the new vertex and edge counts). The input arrives as the user gave it (weights
in their own dtype): the first read-back returns the device's input checks and weight total,
from which the host picks the weight scales (see :meth:`DeviceLouvain.run`).
A level whose graph has at most ``one_group_edges`` entries and vertices (the device profile
``ONE_GROUP_EDGES``, ``ONE_GROUP_VERTICES``) runs instead in two launches of one work-group each and one read-back:
``optimize_level_one_group`` (every iteration, bucket and sub-round of Algorithm 1, and the stop
rule) and ``aggregate_level_one_group`` (Algorithm 3), generated from the same template defs.
"""
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from ..errors import InputError
from .hashing import (CPU_MOVE_BUCKETS, PAPER_MERGE_BUCKETS, PAPER_MOVE_BUCKETS,
                      bucket_specs, table_size)

TEMPLATE = "louvain.cl.mako"
FIXED_POINT_TOTAL = 2 ** 31 - 1
KEY_MAX = (1 << 16) - 1          # degree sort keys are clamped here (bucket 7 stays sorted
#                                  up to this degree; buckets only need 320)

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

#: raw weight types the input kernels read (OpenCL type, floating point?): the host uploads
#: the weights in these dtypes as they are and converts others first (``device_dtype``)
RAW_TYPES = (("char", 0), ("uchar", 0), ("int", 0), ("long", 0), ("float", 1), ("double", 1))
_RAW_OF = {np.dtype(np.int8): "char", np.dtype(np.uint8): "uchar", np.dtype(np.int32): "int",
           np.dtype(np.int64): "long", np.dtype(np.float32): "float",
           np.dtype(np.float64): "double"}

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
ASYMMETRIC = ("the adjacency matrix is not symmetric: louvain needs an undirected graph "
              "(symmetrize it, e.g. A + A.T, or pass a networkx Graph)")
#: work-groups of the first stage of the modularity reduction (at most)
MOD_GROUPS = 1024
#: input problems found by ``input_stats`` (flags[FLAG_BAD] bits)
BAD_RANGE, BAD_UNSORTED, BAD_NAN, BAD_INF, BAD_NEG, BAD_ZERO, BAD_NONINT = (
    1, 2, 4, 8, 16, 32, 64)


def device_dtype(dtype):
    """The dtype in which the host uploads weights of ``dtype`` (the input kernels read these
    directly; other dtypes are converted on the host first)."""
    dtype = np.dtype(dtype)
    if dtype in _RAW_OF:
        return dtype
    if dtype.kind == "b":
        return np.dtype(np.uint8)
    if dtype.kind in "iu" and dtype.itemsize < 4:
        return np.dtype(np.int32)
    if dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize == 4):
        return np.dtype(np.int64)
    if dtype.kind == "f" and dtype.itemsize < 4:
        return np.dtype(np.float32)
    return np.dtype(np.float64)


def raw_weights(data):
    """The weights ``data`` as the host uploads them: in their own dtype when the input
    kernels read it, else converted to :func:`device_dtype` (bool is viewed as uint8)."""
    dt = device_dtype(data.dtype)
    if data.dtype == dt:
        return data
    return data.view(np.uint8) if data.dtype.kind == "b" else data.astype(dt)


class InputProblem(Exception):
    """Raised by :meth:`DeviceLouvain.run` at its first read-back when the device's input check
    (``input_stats``) found something the host must handle: ``bits`` (``BAD_*``) say what
    (the caller repairs the matrix or raises the documented error)."""

    def __init__(self, bits):
        super().__init__(f"input flags {bits:#x}")
        self.bits = int(bits)


#: Levels whose graph has at most ``ONE_GROUP_EDGES`` stored entries and at most
#: ``ONE_GROUP_VERTICES`` vertices run their modularity optimization phase and aggregation in
#: one work-group, one launch each and one read-back (``optimize_level_one_group``,
#: ``aggregate_level_one_group``), per device type; a tuning-cache entry ``"louvain":
#: {"one_group_edges": ..., "one_group_vertices": ...}`` (:mod:`pyclmatch.engine.tuning`)
#: overrides them per device.
#: CPU: 2-core PoCL, whole-call medians, one-group against per-bucket on every level
#: (``benchmarks/louvain_small.py --sweep``, benchmarks/results/louvain-small-pocl): faster
#: to 4.3e5 entries on R-MAT (kron-13, 2.0e5 entries: 149 vs 300 ms; kron-14, 4.3e5: 301 vs
#: 367 ms), even at 1e5-1.3e5 on grids and uniform graphs (grid-192 247 vs 238 ms,
#: uniform-16384-d4 268 vs 296 ms), slower at 5.2e5 (uniform-65536-d4 1574 vs 1256 ms).
#: GPU: not measured yet (the same command with ``--device gpu`` measures it), bounds from
#: counting: the group has one of the H100's 132 multiprocessors and pays about 7 barriers
#: per slot step of a bucket (512 / T vertices), so ~2**15 vertices cost about one
#: per-bucket iteration's ~30 launches; its 512 work-items hash ~2**17 entries per
#: iteration in about the same time.
ONE_GROUP_EDGES = {"cpu": 1 << 18, "gpu": 1 << 17}
ONE_GROUP_VERTICES = {"cpu": 1 << 18, "gpu": 1 << 15}
#: work-items of that work-group per device type (None: the per-bucket kernels' size): more
#: on GPUs, where the group has a multiprocessor to itself and needs the warps to hide
#: memory latency (fewer if the compiled kernel allows fewer: ``one_group_kernel``)
ONE_GROUP_WG = {"cpu": None, "gpu": 512}


#: the script :func:`~pyclmatch.engine.probe.survives` runs in a child process before a PoCL
#: device first takes the one-group path (PoCL 5.0's compiler aborts the process on these
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
    from ..engine.probe import survives
    return survives(handle, "louvain one-group kernels", ONE_GROUP_PROBE)


def one_group_default(handle):
    """``(entries, vertices)``: the one-group bounds of ``handle``'s device, its tuned values,
    else the device type's ``ONE_GROUP_EDGES`` and ``ONE_GROUP_VERTICES``."""
    from ..engine import tuning
    kind = "cpu" if handle.is_cpu else "gpu"
    tuned = tuning.tuned_params(handle, "louvain")
    return (int(tuned.get("one_group_edges", ONE_GROUP_EDGES[kind])),
            int(tuned.get("one_group_vertices", ONE_GROUP_VERTICES[kind])))


#: default work-group sizes: the paper's thread block of 128 on GPUs; CPU devices run
#: work-items as loop iterations, so a smaller group means less barrier overhead.
DEFAULT_WG = {"gpu": 128, "cpu": 32}


def _as_int32(a, what):
    """``a`` as int32 for the device, which checks the values' range itself; a wider array
    is checked here first, so that a value past int32 is refused instead of wrapped."""
    if a.dtype != np.int32 and a.size and (a.min() < np.iinfo(np.int32).min
                                           or a.max() > np.iinfo(np.int32).max):
        raise InputError(f"the sparse matrix holds an {what} out of range of its shape "
                         f"(negative or too large)")
    return a.astype(np.int32, copy=False)


class DeviceLouvain:
    """The Louvain kernels of one device, specialized for ``wtype`` ("float" or "int")."""

    def __init__(self, handle, wtype="float", work_group_size=None, move_buckets=None,
                 merge_buckets=None, groups_per_cu=None, table_budget=None):
        self.handle = handle
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
        self.values = dict(index_t="int", offset_t="int", mode="ct", wg=wg,
                           move_buckets=self.move, merge_buckets=self.merge,
                           row_lanes=1 if handle.is_cpu else 8, giant_batch=GIANT_BATCH)
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
        self.kept = None      # run(keep_input=True): the level-0 graph and membership

    def _specialize(self, wtype):
        """Use the kernels of weight type ``wtype`` ("float": float32 weights, float atomics
        by CAS loops; "int": 31-bit fixed point, native integer atomics)."""
        if wtype not in ("float", "int"):
            raise ValueError(f"wtype must be 'float' or 'int', not {wtype!r}")
        self.wtype = wtype
        self.values["wtype"] = wtype
        self.wdt = np.dtype(np.float32 if wtype == "float" else np.int32)
        self.acc_dt = np.dtype(np.float64 if wtype == "float" else np.int64)
        self._tables = None
        self._kernels = {}

    # -- kernels and helpers --------------------------------------------------------------
    def kernel(self, name):
        """Kernel ``name`` of this specialization (memoized by name: the driver launches
        ~30 kernels per iteration, and the handle's key is built from every template value)."""
        knl = self._kernels.get(name)
        if knl is None:
            knl = self._kernels[name] = self.handle.kernel(TEMPLATE, name, **self.values)
        return knl

    def one_group_kernel(self, name="optimize_level_one_group"):
        """Kernel ``name`` of the small-level path for work-groups of ``og_wg`` work-items
        (its own specialization when that differs from the per-bucket kernels' size)."""
        knl = self._kernels.get(("one group", name))
        if knl is None:
            values = dict(self.values, wg=self.og_wg,
                          move_buckets=bucket_specs(self._move_buckets, self.og_wg),
                          merge_buckets=bucket_specs(self._merge_buckets, self.og_wg))
            knl = self.handle.kernel(TEMPLATE, name, **values)
            if self.og_wg != self.wg and knl.get_work_group_info(
                    cl.kernel_work_group_info.WORK_GROUP_SIZE,
                    self.handle.device) < self.og_wg:
                # (registers or local memory do not allow that many work-items here: both
                # one-group kernels fall back to the per-bucket kernels' size)
                self.og_wg = self.wg
                self._kernels = {k: v for k, v in self._kernels.items()
                                 if not (isinstance(k, tuple) and k[0] == "one group")}
                return self.one_group_kernel(name)
            self._kernels[("one group", name)] = knl
        return knl

    def _launch(self, sched, phase, name, global_size, local_size, *args):
        """``sched.launch`` of kernel ``name`` of this specialization."""
        return sched.launch(phase, self.kernel(name), global_size, local_size, *args)

    def build(self):
        self.kernel("compute_move_b0")
        self._helpers()

    def _helpers(self):
        h, ctx = self.handle, self.handle.context
        from pyopencl.algorithm import RadixSort
        from pyopencl.reduction import ReductionKernel
        from pyopencl.scan import GenericScanKernel
        sort = h.memoize(("louvain", "radix"), lambda: RadixSort(
            ctx, "int *ids, int *keys", key_expr="keys[i]", sort_arg_names=["ids", "keys"],
            key_dtype=np.int32))
        scan = h.memoize(("louvain", "xscan"), lambda: GenericScanKernel(
            ctx, np.int32,
            arguments="__global const int *x, __global int *out, __global int *total, "
                      "int total_at, int n",
            input_expr="x[i]", scan_expr="a+b", neutral="0",
            output_statement="out[i] = prev_item; "
                             "if (i + 1 == n) { out[n] = item; total[total_at] = item; }"))
        scan_flag = h.memoize(("louvain", "xscan_flag"), lambda: GenericScanKernel(
            ctx, np.int32,
            arguments="__global const int *x, __global int *out, __global int *total, "
                      "int total_at, int n",
            input_expr="x[i] > 0 ? 1 : 0", scan_expr="a+b", neutral="0",
            output_statement="out[i] = prev_item; if (i + 1 == n) total[total_at] = item;"))
        imax = h.memoize(("louvain", "imax"), lambda: ReductionKernel(
            ctx, np.int32, neutral="0", reduce_expr="max(a,b)", map_expr="x[i]",
            arguments="__global const int *x"))
        return sort, scan, scan_flag, imax

    def _sums(self):
        """Double and long sums of an array (pyopencl reductions, memoized)."""
        from pyopencl.reduction import ReductionKernel
        h, ctx = self.handle, self.handle.context
        sum_d = h.memoize(("louvain", "sum_d"), lambda: ReductionKernel(
            ctx, np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]",
            arguments="__global const double *x"))
        sum_l = h.memoize(("louvain", "sum_l", self.wtype), lambda: ReductionKernel(
            ctx, np.int64, neutral="0", reduce_expr="a+b", map_expr="(long)x[i]",
            arguments=f"__global const {'float' if self.wtype == 'float' else 'int'} *x"))
        return sum_d, sum_l

    def _empty(self, n, dtype):
        """A device array from the device's memory pool (``DeviceHandle.pool``)."""
        return cla.empty(self.handle.queue, int(n), dtype, allocator=self.handle.pool)

    @staticmethod
    def _zero(sched, phase, arr):
        """Zero-fill a device array (its own bytes: a pooled buffer may be larger)."""
        sched.fill(phase, arr, 0, arr.dtype)

    def _copy_to_flags(self, value, flags, slot):
        """Copy a one-element device result (8 bytes) to flags[slot:slot + 2]."""
        cl.enqueue_copy(self.handle.queue, flags.data, value.data, byte_count=8,
                        dst_offset=4 * slot)

    def _rgrid(self, n):
        """Grid of the input kernels: row_lanes work-items per row, at most the CT grid."""
        lanes = self.values["row_lanes"]
        return max(self.wg, min(self.grid, -(-int(n) * lanes // self.wg) * self.wg))

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

    def _merge_giants(self, sched, b0, b1, max_cdeg, n, cset, vstart, comSize, comDegree,
                      com, edgePos, vertices, edges, w, C, newID, tmp_e, tmp_w, newDeg):
        """mergeCommunity of the giant communities cset[b0:b1] (above the last GLOBAL_SPLITS
        bound), every work-group on each: the flat member-edge offsets (one scan), then per
        batch of at most GIANT_BATCH communities (one global table region each) a fill of
        the tables, ``merge_giant_add`` and ``merge_giant_emit``."""
        from pyopencl.scan import GenericScanKernel
        q = self.handle.queue
        member_edges = self.handle.memoize(("louvain", "member_edges"), lambda: GenericScanKernel(
            self.handle.context, np.int32,
            arguments="__global const int *com, __global const int *vertices, "
                      "__global int *out, int n",
            input_expr="vertices[com[i] + 1] - vertices[com[i]]", scan_expr="a+b",
            neutral="0", output_statement="out[i] = prev_item; if (i + 1 == n) out[n] = item;"))
        memberEdge = self._empty(n + 1, np.int32)
        sched.record("merge", member_edges(com, vertices, memberEdge, np.int32(n), size=n,
                                           queue=q))
        gcap = table_size(min(max_cdeg, n))
        regions, (gk, gv) = self._global_tables(gcap, min(b1 - b0, self.values["giant_batch"]))
        gw = self.wg
        for s0 in range(b0, b1, regions):
            s1 = min(b1, s0 + regions)
            sched.fill("merge", gk[:(s1 - s0) * gcap], -1)
            sched.fill("merge", gv[:(s1 - s0) * gcap], 0)
            self._launch(sched, "merge", "merge_giant_add", self.groups_max * gw, gw,
                         cset.data, np.int32(s0), np.int32(s1), vstart.data, comSize.data,
                         comDegree.data, com.data, memberEdge.data, edgePos.data,
                         vertices.data, edges.data, w.data, C.data, np.int32(n), gk.data,
                         gv.data, np.int32(gcap))
            self._launch(sched, "merge", "merge_giant_emit", self.groups_max * gw, gw,
                         cset.data, np.int32(s0), np.int32(s1), comDegree.data, newID.data,
                         edgePos.data, tmp_e.data, tmp_w.data, newDeg.data, np.int32(n),
                         gk.data, gv.data, np.int32(gcap))

    def _local_groups(self, count, threads):
        per = self.wg // threads
        return int(max(1, min(-(-count // per), self.groups_max * 4)))

    def _vgrid(self, n):
        return max(1, min(self.grid, int(n)))

    # -- one run ----------------------------------------------------------------------------
    def run(self, indptr, indices, data, sched, scales, resolution=1.0,
            stop=("relative", 2e-2, 1e-2), bin_limit=100_000, max_level=None,
            return_levels=False, max_iterations=None, subrounds=None, max_subrounds=32,
            small_subrounds=4, large_subrounds=LARGE_SUBROUNDS, check_symmetric=True,
            moves="up-down", keep_input=False, one_group_edges=None):
        """Louvain on the CSR graph ``(indptr, indices, data)`` as the user gave it (weights in
        a dtype of ``RAW_TYPES``, self-loops not doubled). The device checks the input
        (:class:`InputProblem` at the first read-back), sums the weights (2m, self-loops
        doubled) and asks ``scales(m2, integral)`` for ``(scale, ac_scale, exact, wtype)``
        (``wtype`` switches this object's specialization when it differs): weights
        are stored as ``weight * scale`` (float32, or rounded to int32 fixed point), a_c in
        fixed point of unit ``1 / ac_scale``; ``exact`` says that the stored total is
        ``m2 * scale`` (otherwise it is summed on the device).

        ``stop``: when a modularity optimization phase ends, and the method.
        ``("absolute", t_bin, t_final)``: the paper's rule, an iteration gaining less than t
        ends the phase, a level gaining less than t ends the method (t = t_bin while the
        graph has more than ``bin_limit`` vertices, t_final below).
        ``("relative", f_bin, f_final[, floor])``: two iterations in a row each gaining less
        than max(f x the first gain of the phase, floor x |Q|) end the phase (floor 1e-4;
        with ``moves="paper"`` an iteration without gain ends it at once); a level gaining
        less than floor x |Q|
        ends the method. ``moves``: ``"up-down"`` (odd iterations move vertices only to
        communities of lower id, even ones only to higher: no pair swaps) or ``"paper"``
        (any direction, the singleton rule of Section 4 with one sub-round).
        Returns ``(membership, q, levels, stats)``; ``stats["input_m2"]`` is the device's
        weight total of the input (self-loops doubled). ``keep_input=True`` keeps the
        level-0 buffers as uploaded and the final membership on the device for the
        verification (:mod:`.verify`): ``self.kept = (InputGraph, membership int32 array)``,
        which the caller clears. ``one_group_edges``: a level whose graph has at most this many
        stored entries and vertices runs in one work-group (:meth:`_optimize_one_group`);
        ``None``: the bounds of :func:`one_group_default` for the device."""
        h, q = self.handle, self.handle.queue
        og_entries, og_vertices = (one_group_default(h) if one_group_edges is None
                                   else (int(one_group_edges), int(one_group_edges)))
        sort, scan, scan_flag, imax = self._helpers()
        sum_d, sum_l = self._sums()
        n = int(indptr.size - 1)
        nnz = int(indices.size)
        n0 = n
        wsz = self.wdt.itemsize
        rt = _RAW_OF[np.dtype(data.dtype)]
        h.check_fits({"vertices": (n + 1) * 4, "edges": nnz * 4, "weights": nnz * wsz,
                      "input weights": nnz * data.dtype.itemsize,
                      "row index": nnz * 4, "aggregation edges": nnz * (4 + wsz),
                      "new graph": nnz * (8 + wsz), "vertex arrays": n * 4 * 16},
                     what="graph")
        res = float(resolution)
        gw = self.wg
        stats = {"levels": 0, "iterations": [], "vertices": [], "edges": [],
                 "modularity": [], "trace": []}
        # the device's memory pool: the arrays of every level and iteration (and the
        # temporaries of pyopencl's sorts, scans and reductions, which take the allocator of
        # their first array) reuse its buffers instead of creating and releasing them
        with sched.step("upload"):
            # (copies, not wraps, on CPU devices: the level-0 buffers are the driver's own)
            vertices = h.to_device(_as_int32(indptr, "offset"), read_only=False)
            edges = h.to_device(_as_int32(indices, "index"), read_only=False)
            raw = h.to_device(data, read_only=False)
            flags = self._empty(NFLAGS, np.int32)
            self._zero(sched, "upload", flags)
            host_flags = np.zeros(NFLAGS, np.int32)
            k64 = self._empty(n, np.float64)
            src = self._empty(max(nnz, 1), np.int32)
            memb = h.arange(n0, np.int32, queue=q)
            q.finish()

        def f64(slot):
            return float(host_flags[slot:slot + 2].view(np.float64)[0])

        def i64(slot):
            return int(host_flags[slot:slot + 2].view(np.int64)[0])

        # the input, checked and converted on the device (one read-back)
        self._launch(sched, "input", f"input_stats_{rt}", self._rgrid(n), gw, np.int32(n),
                     np.int32(nnz), vertices.data, edges.data, raw.data, k64.data, src.data, flags.data)
        self._copy_to_flags(sum_d(k64, queue=q), flags, SLOT_M2)
        sched.read("input", host_flags, flags.data)
        bits = int(host_flags[FLAG_BAD])
        if bits & ~BAD_NONINT:
            raise InputProblem(bits)
        m2_in = f64(SLOT_M2)
        if not np.isfinite(m2_in):
            raise InputError("the total edge weight overflows double precision")
        maxdeg = int(host_flags[FLAG_MAXDEG])
        stats["input_loops"] = int(host_flags[FLAG_LOOPS])
        stats["input_m2"] = m2_in
        if keep_input:
            from .verify import InputGraph
            self.kept = (InputGraph(vertices, edges, raw, n), None)
        scale, ac_scale, exact, wtype = scales(m2_in, not bits & BAD_NONINT)
        if wtype != self.wtype:     # (the other specialization, built on first use)
            self._specialize(wtype)
            sum_d, sum_l = self._sums()
        stats["weight_scale"] = scale
        stats["weights"] = wtype            # "int" (exact fixed point) or "float" atomics
        stats["ac_scale"] = ac_scale
        del k64
        if np.dtype(data.dtype) == self.wdt and scale == 1.0 and not stats["input_loops"]:
            w, write = raw, 0           # the uploaded weights are the device's weights
        else:       # (a new buffer: no kernel argument aliases another that is written)
            w, write = self._empty(max(nnz, 1), self.wdt), 1
        k = self._empty(n, self.wdt)
        kq = self._empty(n, np.int32)
        self._launch(sched, "input", f"input_convert_{rt}", self._rgrid(n), gw, np.int32(n),
                     vertices.data, edges.data, raw.data, w.data, np.int32(write),
                     np.float64(scale), k.data, kq.data, np.float64(ac_scale))
        del raw
        m2f = m2_in * scale
        if not exact:       # the rounded fixed-point total, read with the first bucket sizes
            self._copy_to_flags(sum_l(k, queue=q), flags, SLOT_M2Q)
        ac_scale = float(ac_scale)       # a_c in fixed point: a_c = ac * ac_unit
        ac_unit = 1.0 / ac_scale
        if check_symmetric:     # flags[FLAG_ASYM] is read back with the first bucket sizes
            self._launch(sched, "input", "check_symmetric", self._vgrid(nnz), gw,
                         np.int32(nnz), vertices.data, edges.data, w.data, src.data,
                         flags.data, np.int32(FLAG_ASYM))
        levels = []
        q_level = None
        if moves not in ("up-down", "paper"):
            raise ValueError(f"moves must be 'up-down' or 'paper', not {moves!r}")
        relative = stop[0] == "relative"
        t_bin, t_final = stop[1], stop[2]
        floor = (stop[3] if len(stop) > 3 else 1e-4) if relative else 0.0
        mb, move_parts = _bounds(self.move)
        gb, merge_parts = _bounds(self.merge)
        move_bounds = cla.to_device(q, np.array(mb, np.int32))
        merge_bounds = cla.to_device(q, np.array(gb, np.int32))
        level = 0
        it_bound = int(max_iterations or 100_000)
        moves_seen = 0

        part_ein = self._empty(MOD_GROUPS, self.acc_dt)
        part_sq = self._empty(MOD_GROUPS, np.int64)

        def enqueue_modularity(C, ac):
            """The two sums of Eq. (1) into the flags buffer (read with the next read-back):
            two launches, no allocation."""
            groups = max(1, min(MOD_GROUPS, self.grid // gw, -(-max(nnz, n) // gw)))
            self._launch(sched, "modularity", "modularity_partial", groups * gw, gw,
                         np.int32(nnz), np.int32(n), C.data, src.data, edges.data, w.data,
                         ac.data, part_ein.data, part_sq.data)
            self._launch(sched, "modularity", "modularity_final", gw, gw, np.int32(groups),
                         part_ein.data, part_sq.data, flags.data)

        def host_modularity():
            """Eq. (1): e_in / 2m - resolution * sum a_c^2 / (2m)^2 from the flags read."""
            ein = f64(SLOT_EIN) if self.wtype == "float" else float(i64(SLOT_EIN))
            sq = float(i64(SLOT_SQ)) * ac_unit * ac_unit
            return ein / m2f - res * sq / (m2f * m2f)

        def modularity(C, ac):
            enqueue_modularity(C, ac)
            sched.read("modularity", host_flags, flags.data)
            return host_modularity()

        def level0_checks(m2f):
            """The level-0 checks read with the first bucket sizes (or before the first
            one-group level): symmetry, and the rounded fixed-point total, which is
            the 2m of Eq. (1) and (2) when the scaled total is not exact."""
            if level == 0 and check_symmetric and host_flags[FLAG_ASYM]:
                raise InputError(ASYMMETRIC)
            if level == 0 and not exact:
                m2q = i64(SLOT_M2Q)
                if m2q > FIXED_POINT_TOTAL:      # cannot happen, but never overflow
                    raise InputError("the total weight does not fit the fixed-point range")
                if m2q == 0:
                    raise InputError("every edge weight rounds to 0 in fixed point")
                m2f = float(m2q)
            return m2f

        while True:
            sched.tick("louvain levels", 64 + n0)
            t_level = time.perf_counter()
            thr = t_bin if n > bin_limit else t_final
            first_gain = None
            low = 0         # iterations in a row below the relative threshold
            if subrounds is None:     # above bin_limit: the paper's moves in 1 sub-round
                nsub = ((1 if moves == "paper" else large_subrounds) if n > bin_limit
                        else small_subrounds)
            else:
                nsub = max(1, int(subrounds))
            C = self._empty(n, np.int32)
            C_prev = self._empty(n, np.int32)
            newComm = self._empty(n, np.int32)
            ac = self._empty(n, np.int32)
            csize = self._empty(n, np.int32)
            one_group = nnz <= og_entries and n <= og_vertices and one_group_compiles(h)
            if one_group:           # the whole phase in one work-group, one launch and read
                if level == 0 and not exact:     # the fixed-point total is needed first
                    sched.read("partition", host_flags, flags.data)
                    m2f = level0_checks(m2f)
                t_opt = time.perf_counter()
                # Algorithm 3 in the same read-back: the new graph, sized by the old one
                new = dict(vertices=self._empty(n + 1, np.int32),
                           edges=self._empty(nnz, np.int32), w=self._empty(nnz, self.wdt),
                           src=self._empty(nnz, np.int32), k=self._empty(n, self.wdt),
                           kq=self._empty(n, np.int32))
                stop_now = max_level is not None and level + 1 >= max_level
                q_old, iters, doubled, trace, moved, agg = self._optimize_one_group(
                    sched, level, n, nnz, vertices, edges, w, src, k, kq, ac_unit, m2f, res,
                    C, C_prev, newComm, ac, csize, maxdeg, nsub, max_subrounds, moves,
                    relative, thr, floor, q_level, it_bound, flags,
                    (n0, memb, new, stop_now))
                vset = None
                q_start = trace[0]
                if doubled:
                    stats["subround_doublings"] = stats.get("subround_doublings", 0) + doubled
                stats["trace"].append(trace)
                stats.setdefault("moved", []).append(moved)
                stats["one_group_levels"] = stats.get("one_group_levels", 0) + 1
            else:
                self._launch(sched, "init", "init_communities", self._vgrid(n), gw,
                             np.int32(n), C.data, kq.data, ac.data, csize.data)
                # Alg. 1 lines 4-5: partition by degree once per level (degrees do not change)
                with sched.step("partition"):
                    ids = self._empty(n, np.int32)
                    keys = self._empty(n, np.int32)
                    self._launch(sched, "partition", "degree_keys", self._vgrid(n), gw, np.int32(n),
                                 vertices.data, ids.data, keys.data, np.int32(KEY_MAX))
                    kb = max(1, min(16, int(min(maxdeg, KEY_MAX)).bit_length()))
                    kb += kb % 2
                    (vset, skeys), _ = sort(ids, keys, key_bits=kb, queue=q)
                    self._launch(sched, "partition", "bucket_ends", len(mb), None,
                                 np.int32(n), skeys.data, move_bounds.data,
                                 np.int32(len(mb)), flags.data)
                    if q_level is None:         # level 0: Eq. (1) of the singletons, same read
                        enqueue_modularity(C, ac)
                    sched.read("partition", host_flags, flags.data)
                    ends = host_flags[:len(mb)].copy()
                    if level == 0:
                        m2f = level0_checks(m2f)
                    del ids, keys, skeys
                q_old = host_modularity() if q_level is None else q_level
                q_start = q_old
                iters = 0
                trace = [q_old]
                stats["trace"].append(trace)
                moved = []          # vertices moved per iteration
                stats.setdefault("moved", []).append(moved)
                t_opt = time.perf_counter()
                while True:
                    sched.tick(f"level {level} iterations", it_bound)
                    iters += 1
                    updown = 2 - iters % 2 if moves == "up-down" else 0   # down, up, down, ...
                    singleton = int(nsub == 1 and moves == "paper")
                    cl.enqueue_copy(q, C_prev.data, C.data)
                    for b, sub in ((b, sub) for b in range(len(self.move))
                                   for sub in range(nsub)):
                        lo, hi, T, L = self.move[b]
                        parts = move_parts[b]
                        b0, b1 = int(ends[parts[0][0]]), int(ends[parts[-1][1]])
                        if b1 <= b0:
                            continue
                        # every part of a bucket reads the same C: one update after all of them
                        for i0, i1, top in parts:
                            p0, p1 = int(ends[i0]), int(ends[i1])
                            if p1 <= p0:
                                continue
                            if L:
                                groups = self._local_groups(p1 - p0, T)
                                gk, gv, gcap = flags, flags, 0
                            else:
                                gcap = table_size(min(top or maxdeg, maxdeg))
                                groups, (gk, gv) = self._global_tables(gcap, p1 - p0)
                            self._launch(sched, "move", f"compute_move_b{b}", groups * gw, gw,
                                         vset.data, np.int32(p0), np.int32(p1), vertices.data,
                                         edges.data, w.data, C.data, k.data, kq.data, ac.data,
                                         np.float64(ac_unit), csize.data, newComm.data,
                                         np.float64(m2f), np.float64(res), gk.data,
                                         gv.data, np.int32(gcap), np.uint32(nsub),
                                         np.uint32(sub), np.int32(singleton), np.int32(updown))
                        self._launch(sched, "update", "update_communities",
                                     self._vgrid(b1 - b0), gw, vset.data, np.int32(b0),
                                     np.int32(b1), C.data, newComm.data, kq.data, ac.data,
                                     csize.data, np.uint32(nsub), np.uint32(sub), flags.data)
                    q_new = modularity(C, ac)
                    trace.append(q_new)
                    mv = int(host_flags[FLAG_MOVES])
                    moved.append((mv - moves_seen) & 0xFFFFFFFF)
                    moves_seen = mv
                    sched.report("louvain", level=level, iteration=iters, modularity=q_new)
                    if q_new < q_old:
                        # parallel moves lost modularity: keep the previous partition and let
                        # fewer vertices move at once (twice the sub-rounds), up to max_subrounds
                        cl.enqueue_copy(q, C.data, C_prev.data)
                        self._recount(C, kq, ac, csize, n, sched)
                        if nsub >= max_subrounds:
                            break
                        nsub = min(2 * nsub, max_subrounds)
                        stats["subround_doublings"] = stats.get("subround_doublings", 0) + 1
                        continue
                    gain = q_new - q_old
                    q_old = q_new
                    if not relative:
                        if gain <= thr:             # the paper's rule
                            break
                        continue
                    if first_gain is None:
                        first_gain = gain
                    if gain <= 0 and moves == "paper":      # (up/down: the other direction may)
                        break
                    # two iterations in a row (one up, one down) below the threshold
                    low = low + 1 if gain <= max(thr * first_gain, floor * abs(q_new)) else 0
                    if low >= 2:
                        break
            t_done = time.perf_counter()
            if level == 0:
                sched.wall["optimize:level0"] += t_done - t_opt
                stats["level0_iterations"] = iters
                stats["level0_edges"] = nnz // 1
            stats["iterations"].append(iters)
            stats["vertices"].append(n)
            stats["edges"].append(nnz)
            stats["modularity"].append(q_old)
            q_level = q_old
            del C_prev, newComm, vset
            if one_group:           # aggregated (or stopped) by aggregate_level_one_group
                if return_levels:
                    with sched.step("download"):
                        levels.append(self.handle.download(memb, np.int64))
                level += 1
                stats["levels"] = level
                n_new, nnz_new, maxdeg_new, stop = agg
                if not stop:
                    vertices, edges, w, src = (new["vertices"], new["edges"], new["w"],
                                               new["src"])
                    k, kq = new["k"], new["kq"]
                    if self.debug:
                        stats.setdefault("graphs", []).append(
                            (vertices[:n_new + 1].get(), edges[:nnz_new].get(),
                             w[:nnz_new].get(), k[:n_new].get()))
                    n, nnz, maxdeg = n_new, nnz_new, maxdeg_new
                del new, C, ac, csize
                sched.wall[f"level{level - 1}"] += time.perf_counter() - t_level
                if stop:
                    break
                continue
            # Algorithm 3 lines 2-16: sizes, degrees, new ids, edge and vertex positions
            with sched.step("aggregate"):
                comSize = csize            # recomputed exactly below
                comDegree = self._empty(n, np.int32)
                self._zero(sched, "aggregate", comSize)
                self._zero(sched, "aggregate", comDegree)
                self._launch(sched, "aggregate", "community_sizes", self._vgrid(n), gw,
                             np.int32(n), C.data, vertices.data, comSize.data,
                             comDegree.data)
                newID = self._empty(n + 1, np.int32)
                edgePos = self._empty(n + 1, np.int32)
                vstart = self._empty(n + 1, np.int32)
                scan_flag(comSize, newID, flags, np.int32(FLAG_NEW_N), np.int32(n), queue=q)
                scan(comDegree, edgePos, flags, np.int32(FLAG_EDGE_BOUND), np.int32(n),
                     queue=q)
                scan(comSize, vstart, flags, np.int32(FLAG_VTOTAL), np.int32(n), queue=q)
                self._launch(sched, "aggregate", "map_membership", self._vgrid(n0), gw,
                             np.int32(n0), memb.data, C.data, newID.data)
            if return_levels:
                with sched.step("download"):
                    levels.append(self.handle.download(memb, np.int64))
            level += 1
            stats["levels"] = level
            lthr = floor * abs(q_level) if relative else thr
            if q_level - q_start <= lthr or (max_level is not None and level >= max_level):
                sched.wall[f"level{level - 1}"] += time.perf_counter() - t_level
                break       # (no read-back: the membership is numbered already)
            with sched.step("aggregate"):
                # the new vertex count is read with the community buckets (one round trip);
                # the arrays of the new graph's vertices are sized n until then
                vpos = self._empty(n, np.int32)
                cl.enqueue_copy(q, vpos.data, vstart.data, byte_count=4 * n)
                com = self._empty(n, np.int32)
                self._launch(sched, "aggregate", "order_vertices", self._vgrid(n), gw,
                             np.int32(n), C.data, vpos.data, com.data)
                old_of_new = self._empty(n, np.int32)
                k_new = self._empty(n, self.wdt)
                kq_new = self._empty(n, np.int32)
                ids = self._empty(n, np.int32)
                keys = self._empty(n, np.int32)
                self._launch(sched, "aggregate", "new_vertices", self._vgrid(n), gw,
                             np.int32(n), comSize.data, comDegree.data, newID.data, ac.data,
                             np.float64(ac_unit), old_of_new.data, k_new.data, kq_new.data,
                             ids.data, keys.data,
                             np.int32(KEY_MAX))
                kb = max(1, min(16, int(min(nnz, KEY_MAX)).bit_length()))
                kb += kb % 2
                (cset, ckeys), _ = sort(ids, keys, key_bits=kb, queue=q)
                nb = len(gb)
                self._launch(sched, "aggregate", "bucket_ends", nb, None, np.int32(n),
                             ckeys.data, merge_bounds.data, np.int32(nb), flags.data)
                mx = imax(comDegree, queue=q)
                cl.enqueue_copy(q, flags.data, mx.data, byte_count=4, dst_offset=4 * nb)
                sched.read("aggregate", host_flags, flags.data)
                cends = host_flags[:nb].copy()
                max_cdeg = int(host_flags[nb])
                n_new = int(host_flags[FLAG_NEW_N])
                del ids, keys, ckeys
            if n_new == n:          # nothing merged: the method has converged
                sched.wall[f"level{level - 1}"] += time.perf_counter() - t_level
                break
            with sched.step("aggregate"):
                tmp_e = self._empty(max(nnz, 1), np.int32)
                tmp_w = self._empty(max(nnz, 1), self.wdt)
                newDeg = self._empty(n_new + 1, np.int32)
                self._zero(sched, "aggregate", newDeg)
                for b, (lo, hi, T, L), (i0, i1, top) in (
                        (b, self.merge[b], part) for b in range(len(self.merge))
                        for part in merge_parts[b]):
                    b0, b1 = int(cends[i0]), int(cends[i1])
                    if b1 <= b0:
                        continue
                    if not L and top is None and b1 - b0 <= self.giant_max:
                        self._merge_giants(sched, b0, b1, max_cdeg, n, cset, vstart, comSize,
                                           comDegree, com, edgePos, vertices, edges, w, C,
                                           newID, tmp_e, tmp_w, newDeg)
                        stats["giant_communities"] = stats.get("giant_communities", 0) + b1 - b0
                        continue
                    if L:
                        groups = self._local_groups(b1 - b0, T)
                        gk, gv, gcap = flags, flags, 0
                    else:
                        gcap = table_size(min(top or max_cdeg, max_cdeg, n))
                        groups, (gk, gv) = self._global_tables(gcap, b1 - b0)
                    self._launch(sched, "merge", f"merge_community_b{b}", groups * gw, gw,
                                 cset.data, np.int32(b0), np.int32(b1), vstart.data,
                                 comSize.data, comDegree.data, com.data, vertices.data,
                                 edges.data, w.data, C.data, newID.data, edgePos.data,
                                 tmp_e.data, tmp_w.data, newDeg.data, np.int32(n), gk.data,
                                 gv.data, np.int32(gcap))
                newVertices = self._empty(n_new + 1, np.int32)
                scan(newDeg, newVertices, flags, np.int32(0), np.int32(n_new), queue=q)
                mx = imax(newDeg, queue=q)
                cl.enqueue_copy(q, flags.data, mx.data, byte_count=4, dst_offset=4)
                sched.read("aggregate", host_flags, flags.data)
                nnz_new, maxdeg = int(host_flags[0]), int(host_flags[1])
                new_edges = self._empty(max(nnz_new, 1), np.int32)
                new_w = self._empty(max(nnz_new, 1), self.wdt)
                new_src = self._empty(max(nnz_new, 1), np.int32)
                self._launch(sched, "aggregate", "compact_edges",
                             max(32, min(self.grid, 32 * n_new)), gw, np.int32(n_new),
                             old_of_new.data, edgePos.data, newVertices.data, tmp_e.data,
                             tmp_w.data, new_edges.data, new_w.data, new_src.data)
                del tmp_e, tmp_w, cset, com, vpos, comDegree, old_of_new
                vertices, edges, w, src, k = newVertices, new_edges, new_w, new_src, k_new
                kq = kq_new
                if self.debug:
                    stats.setdefault("graphs", []).append(
                        (vertices.get(), edges.get(), w.get(), k[:n_new].get()))
                n, nnz = n_new, nnz_new
                del C, ac, csize, newID, edgePos, vstart, comSize
            sched.wall[f"level{level - 1}"] += time.perf_counter() - t_level
        with sched.step("download"):
            membership = self.handle.download(memb, np.int64)
        if keep_input:
            self.kept = (self.kept[0], memb)
        del memb, vertices, edges, w, src, k, kq, flags
        self.handle.trim_pool()
        stats["modularity_device"] = q_level
        return membership, q_level, levels, stats

    def _optimize_one_group(self, sched, level, n, nnz, vertices, edges, w, src, k, kq,
                            ac_unit, m2f, res, C, C_prev, newComm, ac, csize, maxdeg, nsub,
                            max_subrounds, moves, relative, thr, floor, q_level, it_bound,
                            flags, aggregate):
        """The modularity optimization phase of one level in one launch of
        ``optimize_level_one_group`` (one work-group loops over the iterations, buckets and
        sub-rounds with barriers) and one read-back of its output: ``(Q, iterations,
        sub-round doublings, trace, moved)`` as the per-bucket loop of :meth:`run` computes
        them (the same moves, stop rule and arithmetic); ``trace`` is the modularity at the
        start and after each iteration, ``moved`` the vertices moved per iteration, both cut
        at SMALL_TRACE. ``aggregate = (n0, memb, new, stop_now)``: Algorithm 3 follows in the
        same read-back (``aggregate_level_one_group``: the membership mapped, and unless the
        method stops, the new graph in the arrays of dict ``new``, sized by this level's);
        its ``(n_new, nnz_new, largest degree, stop)`` is returned last."""
        vset = self._empty(max(n, 1), np.int32)
        if maxdeg > (self.move[-2][1] or 0) and not self.move[-1][3]:
            gcap = table_size(maxdeg)       # the last bucket's table (global memory)
            gk, gv = self._empty(gcap, np.int32), self._empty(gcap, self.wdt)
        else:
            gcap, gk, gv = 0, flags, flags
        out = self._empty(SMALL_HEAD + 2 * SMALL_TRACE + 4, np.float64)
        have_q = q_level is not None
        sched.launch("move", self.one_group_kernel(), self.og_wg, self.og_wg, np.int32(n),
                     np.int32(nnz), vertices.data, edges.data, w.data, src.data, k.data,
                     kq.data, np.float64(ac_unit), np.float64(m2f), np.float64(res), C.data,
                     C_prev.data, newComm.data, ac.data, csize.data, vset.data, gk.data,
                     gv.data, np.int32(gcap), np.uint32(nsub), np.uint32(max_subrounds),
                     np.int32(moves == "paper"), np.int32(relative), np.float64(thr),
                     np.float64(floor), np.float64(q_level if have_q else 0.0),
                     np.int32(have_q), np.int32(it_bound), flags.data, out.data)
        n0, memb, new, stop_now = aggregate
        gsize = 2 * nnz + 16 * n          # the tables of every community (<= 2 d + 16 each)
        comSize, comDegree, newID, tpos, cursor = (self._empty(n, np.int32) for _ in range(5))
        tk, tv = self._empty(gsize, np.int32), self._empty(gsize, self.wdt)
        sched.launch("aggregate", self.one_group_kernel("aggregate_level_one_group"),
                     self.og_wg, self.og_wg, np.int32(n), np.int32(nnz), vertices.data,
                     edges.data, w.data, C.data, ac.data, np.float64(ac_unit), np.int32(n0),
                     memb.data, comSize.data, comDegree.data, newID.data, tpos.data,
                     cursor.data, tk.data, tv.data, new["vertices"].data, new["edges"].data,
                     new["w"].data, new["src"].data, new["k"].data, new["kq"].data,
                     np.float64(0.0 if relative else thr), np.float64(floor if relative else 0.0),
                     np.int32(stop_now), out.data, np.int32(SMALL_HEAD + 2 * SMALL_TRACE))
        host = np.empty(SMALL_HEAD + 2 * SMALL_TRACE + 4, np.float64)
        sched.read("move", host, out.data)
        if host[7]:
            raise InputError(ASYMMETRIC)
        iters = int(host[2])
        for _ in range(iters + int(host[4])):      # raises past it_bound
            sched.tick(f"level {level} iterations", it_bound)
        ntrace = int(host[6])
        trace = [float(x) for x in host[SMALL_HEAD:SMALL_HEAD + ntrace]]
        moved = [int(x) for x in host[SMALL_HEAD + SMALL_TRACE:
                                      SMALL_HEAD + SMALL_TRACE + ntrace - 1]]
        agg = tuple(int(x) for x in host[SMALL_HEAD + 2 * SMALL_TRACE:])
        return float(host[0]), iters, int(host[3]), trace, moved, agg

    def _recount(self, C, kq, ac, csize, n, sched):
        """Alg. 1 line 11: a_c (and community sizes) from scratch."""
        self._zero(sched, "update", ac)
        self._zero(sched, "update", csize)
        self._launch(sched, "update", "accumulate_communities", self._vgrid(n), self.wg,
                     np.int32(n), C.data, kq.data, ac.data, csize.data)


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
