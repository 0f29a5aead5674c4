"""Dulmage-Mendelsohn decomposition, block triangular form and structural rank on the device.

The decomposition that sparse direct solvers and the structural analysis of DAE systems are
built on (MATLAB's ``dmperm``, CSparse's ``cs_dmperm``, SuiteSparse's BTF), computed from the
maximum matching and the alternating BFS of its König certificate (:func:`maximum_matching`'s
device path), plus the strongly connected components of the square part and their order
(``kernels/dmperm.cl.mako``: Multistep trimming, a forward-backward step for the giant
component and coloring, Slota, Rajamanickam and Madduri, IPDPS 2014, on shrinking lists of the
unassigned columns with push-based chaotic relaxation, and longest-path levels of the
condensation). Conventions follow ``cs_dmperm``:

* ``A[p][:, q]`` is block upper triangular;
* ``rr`` and ``cc`` (five boundaries each) split the rows into R1, R2, R3, R0 and the columns
  into C0, C1, C2, C3: the horizontal (under-determined) part is ``A[p[rr[0]:rr[1]]]`` by
  ``q[cc[0]:cc[2]]``, the square (well-determined) part rows ``rr[1]:rr[2]`` by columns
  ``cc[2]:cc[3]``, the vertical (over-determined) part rows ``rr[2]:rr[4]`` by columns
  ``cc[3]:cc[4]``; C0 are the unmatched columns, R0 the unmatched rows;
* ``r`` and ``s`` (``nblocks + 1`` boundaries each) are the fine blocks: the horizontal part as
  one block when it is not empty, the square part's irreducible blocks, the vertical part as
  one block when it is not empty; the matched entries lie on the diagonal of each part.

Graphs that ``maximum_matching``'s ``auto`` would send to the host family (a device call
cannot win: :func:`~pyclmatch.bipartite.choice.host_choice`), and ``algorithm="host-hk"``,
are decomposed on the host instead (:func:`host_decomposition`: scipy's Hopcroft-Karp, its
breadth-first search and strongly connected components), in the same conventions, without
opening a device.
"""
from dataclasses import dataclass, field
import functools
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel
import scipy.sparse as sp
from scipy.sparse.csgraph import (breadth_first_order, connected_components,
                                  maximum_bipartite_matching)

from ..engine import args
from ..engine.compressed import check_compressed_host
from ..engine.devices import get_device, device_call
from ..engine.sorting import radix_sort
from ..engine.family import KernelFamily
from ..engine.graphs import as_bipartite
from ..engine.scheduler import Scheduler
from ..errors import InputError, IterationLimitError, VerificationError
from .api import _open, check_arguments, check_fits, maximum_matching, resolve_call
from .choice import choose
from .device_path import match_on_device
from .result import finish_result
from .registry import AUGMENTING_VARIANTS, HOST_FAMILY, canonical_name

#: the FW-BW step runs in the first SCC round when at least this many columns are left
FWBW_MIN = 1
#: BFS levels one launch of a queue search runs on a CPU device (one work-group; 0: one level
#: a launch over the whole grid, as on GPUs)
CPU_SEARCH_LEVELS = 1 << 16
#: lists up to this long relax in one work-group until converged (one launch a loop)
ONE_GROUP_MAX = {"cpu": 4096, "gpu": 2048}
#: chaotic sweeps of a work-group's tile per launch (kernels/dmperm.cl.mako), CPU and GPU:
#: more sweeps carry labels further per launch, each costs up to one pass over the tile
SWEEPS = {"cpu": 2, "gpu": 4}
BAD_PERM, BAD_DIAG, BAD_LOWER, BAD_REACH = 1, 2, 4, 8
_BAD_TEXT = {BAD_PERM: "p or q is not a permutation",
             BAD_DIAG: "a matched pair is off the diagonal of its part",
             BAD_LOWER: "an entry lies below the block diagonal",
             BAD_REACH: "the horizontal or vertical part is not the set of vertices reachable "
                        "from the unmatched ones"}


@dataclass
class DMDecomposition:
    """Result of :func:`dulmage_mendelsohn` (int32 arrays, ``cs_dmperm``'s conventions; see the
    module docstring).

    Attributes
    ----------
    p, q : numpy.ndarray
        Row and column permutations: ``A[p][:, q]`` is block upper triangular.
    r, s : numpy.ndarray
        Row and column boundaries of the fine blocks (``nblocks + 1`` each).
    rr, cc : numpy.ndarray
        The five coarse boundaries of rows and columns (R1, R2, R3, R0 / C0, C1, C2, C3).
    structural_rank : int
    row_match, col_match : numpy.ndarray
        The maximum matching it was built from.

    Examples
    --------
    >>> import numpy as np
    >>> from pyclmatch import dulmage_mendelsohn
    >>> dm = dulmage_mendelsohn(np.array([[1, 0, 0], [1, 0, 0], [0, 1, 1]]), device="cpu")
    >>> dm.coarse_sizes()["horizontal"], dm.coarse_sizes()["vertical"], len(dm.square_blocks)
    ((1, 2), (2, 1), 0)
    >>> dm.verify(np.array([[1, 0, 0], [1, 0, 0], [0, 1, 1]]))
    True
    """
    p: np.ndarray
    q: np.ndarray
    r: np.ndarray
    s: np.ndarray
    rr: np.ndarray
    cc: np.ndarray
    structural_rank: int
    shape: tuple
    row_match: np.ndarray
    col_match: np.ndarray
    device: str = ""
    algorithm: str = ""
    timings: dict = field(default_factory=dict)
    counters: dict = field(default_factory=dict)
    verified: bool = False

    @property
    def nblocks(self):
        """Number of fine blocks (horizontal and vertical parts included when not empty)."""
        return int(self.r.size - 1)

    @property
    def square_blocks(self):
        """``(start, stop)`` of rows and columns of the square part's irreducible blocks (the
        same offsets index ``p`` from ``start_row`` and ``q`` from ``start_col``): a list of
        ``(row_start, row_stop, col_start, col_stop)``."""
        lo = 1 if self.cc[2] > 0 else 0
        hi = self.nblocks - (1 if self.rr[2] < self.shape[0] else 0)
        return [(int(self.r[k]), int(self.r[k + 1]), int(self.s[k]), int(self.s[k + 1]))
                for k in range(lo, hi)]

    def coarse_sizes(self):
        """Rows x columns of the horizontal, square and vertical parts."""
        rr, cc = self.rr, self.cc
        return {"horizontal": (int(rr[1] - rr[0]), int(cc[2] - cc[0])),
                "square": (int(rr[2] - rr[1]), int(cc[3] - cc[2])),
                "vertical": (int(rr[4] - rr[2]), int(cc[4] - cc[3]))}

    def verify(self, A):
        """Check the decomposition against ``A`` on the host (numpy, scipy.sparse.csgraph):
        ``p``, ``q`` are permutations, the matching lies on the diagonal of each part,
        ``A[p][:, q]`` is block upper triangular, the horizontal and vertical parts are the
        vertices reachable by alternating paths from the unmatched columns and rows, and every
        square block is irreducible (strongly connected); raises
        :class:`~pyclmatch.errors.VerificationError` otherwise;
        :class:`~pyclmatch.errors.InputError` (``argument="A"``) when ``A`` is no matrix or
        not of the decomposition's shape."""
        with args.blame("A"):
            graph = as_bipartite(A)
        args.shape_of("A", graph, self.shape)
        verify_decomposition(graph, self)
        self.verified = True
        return True

    def summary(self):
        """The decomposition's sizes and names as one dict (no arrays)."""
        sizes = self.coarse_sizes()
        sq = self.square_blocks
        return {"rows": int(self.shape[0]), "cols": int(self.shape[1]),
                "structural_rank": self.structural_rank, "coarse": sizes,
                "blocks": self.nblocks, "square_blocks": len(sq),
                "largest_square_block": max((b[1] - b[0] for b in sq), default=0),
                "verified": self.verified, "device": self.device,
                "algorithm": self.algorithm, "timings": dict(self.timings),
                "counters": dict(self.counters)}


class BlockTriangularForm(tuple):
    """``(p, q, blocks)`` of :func:`block_triangular_form`, with the decomposition it came
    from as ``.decomposition``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> btf = pyclmatch.block_triangular_form(sp.eye(3, format="csr"), device="cpu")
    >>> p, q, blocks = btf
    >>> blocks.tolist(), btf.decomposition.structural_rank
    ([0, 1, 2, 3], 3)
    """

    def __new__(cls, p, q, blocks, decomposition):
        self = super().__new__(cls, (p, q, blocks))
        self.decomposition = decomposition
        return self

    p = property(lambda self: self[0])
    q = property(lambda self: self[1])
    blocks = property(lambda self: self[2])


# --------------------------------------------------------------------------- device driver
class _DeviceDM(KernelFamily):
    """The kernels of ``dmperm.cl.mako`` on one device graph with its maximum matching."""

    TEMPLATE = "dmperm.cl.mako"

    def __init__(self, handle, dg, sched):
        super().__init__(handle, mode="ct", **dg.type_values)
        self.dg, self.sched = dg, sched
        self.wg = handle.default_work_group_size()
        kind = "cpu" if handle.is_cpu else "gpu"
        self.sweeps = SWEEPS[kind]
        self.one_group = ONE_GROUP_MAX[kind]
        #: work-group of ``scc_small`` (the last rounds in one group): on GPUs the widest the
        #: kernel allows on this device, up to 1024
        self.small_wg = (self.wg if handle.is_cpu
                         else handle.group_fits(self.kernel("scc_small")))
        #: the loops' flags (``flags[0]``: the last pass that changed something, see
        #: :meth:`Scheduler.converge`; ``flags[1]``: an augmenting path seen) and the pass
        #: counter, increasing over the whole call (the push kernels' stamps compare with it)
        self.flags = cla.empty(handle.queue, 2, np.int32, allocator=handle.pool)
        self.passno = 0
        self.fwbw_min = FWBW_MIN
        self.nr, self.nc = dg.graph.shape

    def grid(self, n):
        return min(self.handle.constant_grid(self.wg), -(-max(int(n), 1) // self.wg) * self.wg)

    def launch(self, phase, name, n, *args):
        self.sched.launch(phase, self.kernel(name), self.grid(n), self.wg, *args)

    def relax(self, phase, name, n, lst, args, what):
        """A relaxation kernel (``sweeps`` in the kernel file) over ``lst[:n]`` to its
        fixpoint; returns the launches. Lists up to ``ONE_GROUP_MAX`` entries go to one
        work-group sweeping until nothing changes: one launch, no read-back (a sweep carries
        every label at least one edge further, so fewer than ``n + 1 < 1 << 20`` sweeps reach
        the fixpoint). Longer ones go to the grid, ``self.sweeps`` sweeps a tile per launch,
        relaunched (:meth:`Scheduler.converge`) until a launch changes nothing. ``args``:
        the kernel's arguments after ``n, list, sweeps, pass``."""
        small = n <= self.one_group
        bound = self.sched.bind(phase, self.kernel(name), self.wg if small else self.grid(n),
                                self.wg, np.int32(n), lst,
                                np.int32(1 << 20 if small else self.sweeps), np.int32(0),
                                *args)

        def step():
            self.passno += 1
            bound((3, np.int32(self.passno)))
            return self.passno
        if small:
            step()
            return 1
        return self.sched.converge(phase, step, self.flags, what, self.nc + 2)[0]

    def search(self, phase, name, n, args, what):
        """A queue BFS kernel (``frontier_levels`` in the kernel file) relaunched until its
        frontier is empty; returns ``(launches, flags read after the last level)``. On GPUs
        one level a launch over the grid; on CPU devices one work-group running up to
        ``CPU_SEARCH_LEVELS`` levels with a barrier between them. ``args``: the kernel's
        arguments after ``levels, pass``."""
        if self.handle.is_cpu and CPU_SEARCH_LEVELS:
            bound = self.sched.bind(phase, self.kernel(name), self.wg, self.wg,
                                    np.int32(CPU_SEARCH_LEVELS), np.int32(0), *args)
        else:
            bound = self.sched.bind(phase, self.kernel(name), self.grid(n), self.wg, np.int32(0),
                                    np.int32(0), *args)

        def step():
            self.passno += 1
            bound((1, np.int32(self.passno)))
            return self.passno
        return self.sched.converge(phase, step, self.flags, what, self.nc + 2)

    def empty(self, n, dtype):
        return cla.empty(self.handle.queue, max(int(n), 1), dtype, allocator=self.handle.pool)

    def reach(self, rmatch, cmatch, side):
        """The alternating BFS from the unmatched columns (``side="cols"``, over the column
        lists) or rows (``"rows"``, over the row lists) of the maximum matching, a queue BFS
        (``reach_visit``): returns its level array over that side (>= L0: reached, and the
        BFS level, the witness of the certificate's ``check_reach``)."""
        dg = self.dg
        n, mate, ptr, ind, mate_of = ((self.nc, cmatch, dg.col_ptr, dg.col_ind, rmatch)
                                      if side == "cols" else
                                      (self.nr, rmatch, dg.row_ptr, dg.row_ind, cmatch))
        level = self.empty(n, np.int32)
        queue = self.empty(n, dg.idt)
        bnd = self.empty(8, dg.idt)
        self.sched.fill("coarse", bnd, 0)
        self.sched.fill("coarse", self.flags, 0)
        self.launch("coarse", "reach_roots", n, np.int32(n), mate.data, level.data,
                    queue.data, bnd.data)
        self.launch("coarse", "reach_start", 1, bnd.data)
        levels, host = self.search("coarse", "reach_visit", n, (
            ptr.data, ind.data, mate_of.data, level.data, queue.data, bnd.data,
            self.flags.data), "alternating BFS")
        if host[1]:
            raise VerificationError("an augmenting path was found: the matching was not "
                                    "maximum")
        self.sched.counters[f"reach_launches_{side}"] = levels
        return level

    def coarse(self, rmatch, cmatch, bfs_c, bfs_r):
        nc = self.nc
        self.part = self.empty(nc, np.uint8)
        self.comp = self.empty(nc, self.dg.idt)
        self.group = self.empty(nc, self.dg.idt)
        self.stats = self.empty(6, np.int32)
        self.sched.fill("coarse", self.stats, 0)
        self.launch("coarse", "coarse_parts", nc, np.int32(nc), cmatch.data, bfs_c.data,
                    bfs_r.data, self.part.data, self.comp.data, self.group.data,
                    self.stats.data)

    def active(self, src, n, dst, total):
        """Compaction of the active list: ``dst`` = the unassigned columns of ``src[:n]`` (of
        ``0..n-1`` when ``src`` is None), in order; returns their count (one read-back)."""
        knl = _compact_kernel(self.handle, self.dg.index_t)
        use = np.int32(src is not None)
        self.sched.record("scc", knl(src if src is not None else dst, use, self.comp, dst,
                                     total, np.int64(n), size=n, queue=self.handle.queue,
                                     allocator=self.handle.pool))
        return int(self.sched.read("scc", np.zeros(1, np.int64), total.data)[0])

    def scc(self, rmatch, cmatch):
        """Strongly connected components of the square part (``comp``: root column id),
        rounds of trimming and coloring over a list of the still unassigned columns that is
        compacted after every trimming (later rounds touch only what is left); once the list
        fits one work-group (``ONE_GROUP_MAX``), ``scc_small`` runs all remaining rounds in
        one launch."""
        nc, dg, sched = self.nc, self.dg, self.sched
        cp, ci, rp, ri = dg.col_ptr.data, dg.col_ind.data, dg.row_ptr.data, dg.row_ind.data
        color = self.empty(nc, dg.idt)
        mark = self.empty(nc, np.uint8)
        stamp = self.empty(nc, np.int32)   # pass of a column's last change (push kernels)
        comp, group = self.comp.data, self.group.data
        rm, cm = rmatch.data, cmatch.data
        total = cla.empty(self.handle.queue, 1, np.int64, allocator=self.handle.pool)
        self.square = self.empty(nc, dg.idt)          # the square part's columns (order)
        self.n2 = n = self.active(None, nc, self.square, total)
        lists = [self.empty(nc, dg.idt), self.empty(nc, dg.idt)]
        cur = self.square
        rounds = trim_passes = color_passes = back_passes = fwbw_launches = 0
        while n:
            rounds += 1
            if rounds > self.nc + 1:
                raise IterationLimitError("dulmage_mendelsohn: SCC rounds ran past the "
                                          "number of columns; stopped instead of hanging")
            nn, L = np.int32(n), cur.data
            if n <= self.one_group:
                self.sched.launch("scc", self.kernel("scc_small"), self.small_wg, self.small_wg,
                                  nn, L, cp, ci, rp, ri, rm, cm, comp, group, color.data,
                                  mark.data)
                break
            trim_passes += self.relax("scc", "scc_trim", n, L, (
                np.int32(self.passno + 1), cp, ci, rp, ri, rm, cm, comp, group, stamp.data,
                self.flags.data), "trimming")
            nxt = lists[rounds % 2]
            n = self.active(cur, n, nxt, total)
            if not n:
                break
            cur, nn, L = nxt, np.int32(n), nxt.data
            if rounds == 1 and n >= self.fwbw_min and n > self.one_group:
                fwbw_launches = self.forward_backward(cur, n, rmatch, cmatch)
                continue
            if n <= self.one_group:
                continue
            self.passno += 1
            self.launch("scc", "scc_color_init", n, nn, L, comp, color.data, stamp.data,
                        np.int32(self.passno))
            color_passes += self.relax("scc", "scc_color", n, L, (
                rp, ri, cm, comp, group, color.data, stamp.data, self.flags.data), "coloring")
            self.passno += 1
            self.launch("scc", "scc_roots", n, nn, L, comp, color.data, mark.data,
                        stamp.data, np.int32(self.passno))
            back_passes += self.relax("scc", "scc_back", n, L, (
                cp, ci, rm, comp, color.data, mark.data, stamp.data, self.flags.data),
                "backward propagation")
            self.launch("scc", "scc_assign", n, nn, L, comp, group, color.data, mark.data)
        sched.counters.update(scc_rounds=rounds, trim_passes=trim_passes,
                              color_passes=color_passes, backward_passes=back_passes,
                              fwbw_launches=fwbw_launches)

    def forward_backward(self, cur, n, rmatch, cmatch):
        """The FW-BW step on the list ``cur[:n]`` (kernels/dmperm.cl.mako): the pivot's
        component is assigned, the columns it reaches only one way get their own groups.
        Returns the launches of both searches."""
        dg, h, sched = self.dg, self.handle, self.sched
        key, evt = _pivot_kernel(h, dg.index_t, dg.offset_t)(
            cur, dg.col_ptr, dg.row_ptr, cmatch, self.comp, range=slice(0, n),
            queue=h.queue, return_event=True)
        sched.record("scc", evt)
        reach = self.empty(self.nc, np.int32)
        sched.fill("scc", reach, 0)
        queue = self.empty(self.nc, dg.idt)
        bnd = self.empty(8, dg.idt)
        levels = 0
        for bit, fw, ptr, ind in ((1, 1, dg.row_ptr, dg.row_ind), (2, 0, dg.col_ptr,
                                                                   dg.col_ind)):
            bit, fw = np.int32(bit), np.int32(fw)
            self.launch("scc", "fwbw_start", 1, key.data, bit, queue.data, bnd.data,
                        reach.data)
            levels += self.search("scc", "fwbw_visit", n, (
                bit, fw, ptr.data, ind.data, rmatch.data, cmatch.data, self.comp.data,
                self.group.data, reach.data, queue.data, bnd.data, self.flags.data),
                "FW-BW search")[0]
        self.launch("scc", "fwbw_assign", n, np.int32(n), cur.data, key.data, reach.data,
                    self.comp.data, self.group.data)
        return levels

    def order(self, rmatch, cmatch):
        """Levels of the condensation, then the column order ``q`` (a stable radix sort of
        the keys (coarse set, level, component)), the row order ``p`` and the fine block
        starts; returns ``(p, q, starts, nstarts, counts)`` (device arrays, host counts)."""
        nc, nr, dg, sched, h = self.nc, self.nr, self.dg, self.sched, self.handle
        lev = self.empty(nc, np.int32)
        sched.fill("order", lev, 0)
        n2 = np.int32(self.n2)
        stamp = self.empty(nc, np.int32)
        sched.fill("order", stamp, self.passno)        # every column pushes in the first pass
        passes = self.relax("order", "block_levels", n2, self.square.data, (
            dg.row_ptr.data, dg.row_ind.data, cmatch.data, self.comp.data, lev.data,
            stamp.data, self.flags.data, self.stats.data), "block levels") if n2 else 0
        st = sched.read("order", np.zeros(6, np.int32), self.stats.data)
        if st[5]:
            raise VerificationError("a column is reached by alternating paths from both an "
                                    "unmatched row and an unmatched column: the matching was "
                                    "not maximum")
        counts, levels = st[:4].astype(np.int64), int(st[4]) + 1
        sched.counters.update(level_passes=passes, block_levels=levels)
        keys = self.empty(nc, np.uint64)
        ids = self.empty(nc, np.int32)
        self.launch("order", "column_keys", nc, np.int32(nc), self.part.data, self.comp.data,
                    lev.data, np.int64(levels), keys.data, ids.data)
        bits = max(1, int(4 * levels * nc).bit_length())
        (_, q), evt = _radix_sort(h)(keys[:nc], ids[:nc], key_bits=bits, queue=h.queue,
                                   allocator=h.pool)
        sched.record("order", evt)
        card = int(counts[1] + counts[2] + counts[3])
        first = int(counts[0])
        p = self.empty(nr, np.int32)
        self.launch("order", "mate_rows", card, np.int32(card), np.int32(first), q.data,
                    cmatch.data, p.data)
        total = self.empty(2, np.int32)
        sched.fill("order", total, 0)
        if nr > card:
            rflags = self.empty(nr, np.uint8)
            self.launch("order", "unmatched", nr, np.int32(nr), rmatch.data, rflags.data)
            r0 = self.empty(nr, np.int32)
            sched.record("order", h.flatnonzero(rflags[:nr], r0, total, 0))
            sched.record("order", cl.enqueue_copy(h.queue, p.data, r0.data,
                                                  byte_count=4 * (nr - card),
                                                  dst_offset=4 * card))
        n2 = int(counts[2])
        starts = self.empty(n2, np.int32)
        if n2:
            sflags = self.empty(n2, np.uint8)
            self.launch("order", "block_starts", n2, np.int32(n2),
                        np.int32(first + counts[1]), q.data, self.comp.data, sflags.data)
            sched.record("order", h.flatnonzero(sflags[:n2], starts, total, 1))
        tot = sched.read("order", np.zeros(2, np.int32), total.data)
        return p, q, starts, int(tot[1]), counts

    def verify(self, rmatch, cmatch, bfs_c, bfs_r, p, q, starts, nstarts, rr, cc, bad):
        """The device certificate of the answer: permutations, matched diagonal, block upper
        triangular form and the reachability witnesses of the horizontal and vertical
        parts. Raises :class:`VerificationError` naming what failed."""
        nr, nc, dg, sched = self.nr, self.nc, self.dg, self.sched
        i32 = np.int32
        h = i32(1 if cc[2] > 0 else 0)
        sched.fill("verify", bad, 0)
        blk = {}
        for side, n, perm, lo, hi in (("rows", nr, p, rr[1], rr[2]),
                                      ("cols", nc, q, cc[2], cc[3])):
            at, of, seen = (self.empty(n, np.int32) for _ in range(3))
            sched.fill("verify", seen, 0)
            self.launch("verify", "position_blocks", n, i32(n), i32(lo), i32(hi), h,
                        starts.data, i32(nstarts), at.data)
            self.launch("verify", "scatter_blocks", n, i32(n), perm.data, at.data, of.data,
                        seen.data, bad.data)
            blk[side] = of
        self.launch("verify", "check_upper", nr, i32(nr), dg.row_ptr.data, dg.row_ind.data,
                    blk["rows"].data, blk["cols"].data, bad.data)
        card = int(cc[4] - cc[1])
        self.launch("verify", "check_diagonal", max(nc, nr), i32(nc), i32(nr), i32(cc[1]),
                    i32(card), p.data, q.data, rmatch.data, cmatch.data, bad.data)
        self.launch("verify", "check_reach", nc, i32(nc), i32(0), i32(cc[2]), q.data,
                    bfs_c.data, cmatch.data, dg.row_ptr.data, dg.row_ind.data, bad.data)
        self.launch("verify", "check_reach", nr, i32(nr), i32(rr[2]), i32(nr), p.data,
                    bfs_r.data, rmatch.data, dg.col_ptr.data, dg.col_ind.data, bad.data)
        b = int(sched.read("verify", np.zeros(1, np.int32), bad.data)[0])
        for bit, text in _BAD_TEXT.items():
            if b & bit:
                raise VerificationError(f"Dulmage-Mendelsohn certificate: {text}")


def _compact_kernel(handle, index_t):
    """Scan keeping the unassigned columns (``comp == -1``) of a list (or of ``0..n-1``)."""
    return handle.scan(("dmperm", "compact unassigned", index_t), np.int64,
        arguments=f"__global const {index_t} *src, int use_src, __global const {index_t} "
                  f"*comp, __global {index_t} *dst, __global long *total, long n",
        input_expr="comp[use_src ? src[i] : i] == -1 ? 1 : 0", scan_expr="a+b",
        neutral="0",
        output_statement=f"if (prev_item != item) dst[prev_item] = ({index_t})"
                         f"(use_src ? src[i] : i); if (i + 1 == n) total[0] = item;")


def _pivot_kernel(handle, index_t, offset_t):
    """Max-reduction of ``(in-degree x out-degree) << 32 | column`` over the unassigned columns
    of a list: the FW-BW pivot (Slota, Rajamanickam and Madduri, IPDPS 2014)."""
    pre = f"""
    long pivot_key({index_t} c, __global const {offset_t} *cp, __global const {offset_t} *rp,
                   __global const {index_t} *cmatch, __global const {index_t} *comp)
    {{
        if (comp[c] != -1) return -1;
        const {index_t} r = cmatch[c];
        long d = (long)(cp[c + 1] - cp[c]) * (long)(rp[r + 1] - rp[r]);
        if (d > 0x7fffffffL) d = 0x7fffffffL;
        return (d << 32) | (long)c;
    }}"""
    return handle.memoize(("dmperm", "fwbw pivot", index_t, offset_t), lambda: ReductionKernel(
        handle.context, np.int64, neutral="-1", reduce_expr="max(a, b)",
        map_expr="pivot_key(list[i], cp, rp, cmatch, comp)",
        arguments=f"__global const {index_t} *list, __global const {offset_t} *cp, "
                  f"__global const {offset_t} *rp, __global const {index_t} *cmatch, "
                  f"__global const {index_t} *comp", preamble=pre))


def _radix_sort(handle):
    return handle.memoize(("dmperm", "radix sort u64 -> int32"), lambda: radix_sort(
        handle.context, arguments="__global ulong *keys, __global int *ids", key_expr="keys[i]",
        sort_arg_names=["keys", "ids"], key_dtype=np.uint64, bits_at_a_time=4))


def _boundaries(counts, nr, nc, starts):
    """``rr``, ``cc``, ``r``, ``s`` from the column sets' sizes and the square part's block
    starts (relative to its first position), laid out as ``cs_dmperm`` does."""
    c0, c1, c2, c3 = (int(x) for x in counts)
    cc = np.array([0, c0, c0 + c1, c0 + c1 + c2, nc], np.int32)
    rr = np.array([0, c1, c1 + c2, c1 + c2 + c3, nr], np.int32)
    starts = np.asarray(starts, np.int64)
    head = [0] if cc[2] > 0 else []                        # the horizontal part
    tail = [nr] if rr[2] >= nr else [int(rr[2]), nr]       # the vertical part, the end
    r = np.concatenate([head, int(rr[1]) + starts, tail]).astype(np.int32)
    tail = [nc] if rr[2] >= nr else [int(cc[3]), nc]
    s = np.concatenate([head, int(cc[2]) + starts, tail]).astype(np.int32)
    return rr, cc, r, s


def _trivial(graph, handle, name, t_call):
    """No edge: every column in C0, every row in R0 (no launch)."""
    nr, nc = graph.shape
    counts = np.array([nc, 0, 0, 0])
    rr, cc, r, s = _boundaries(counts, nr, nc, np.zeros(0, np.int32))
    return DMDecomposition(np.arange(nr, dtype=np.int32), np.arange(nc, dtype=np.int32), r, s,
                           rr, cc, 0, (nr, nc), np.full(nr, -1, np.int32),
                           np.full(nc, -1, np.int32), handle.label, name,
                           {"total": time.perf_counter() - t_call}, {})


@device_call
def dulmage_mendelsohn(A, *, device=None, algorithm="auto", init="karp-sipser", verify=True,
                       progress=None, **params):
    """Dulmage-Mendelsohn decomposition of the pattern of ``A`` on an OpenCL device, or on
    the host for the small graphs ``auto`` matches there.

    Parameters
    ----------
    A : scipy.sparse matrix/array, dense array-like, or ``(rows, cols)`` edge arrays
        Any shape; the pattern is what counts (explicit zeros are entries, as in scipy).
    device : see :func:`pyclmatch.get_device`.
    algorithm, init, params : the maximum matching's (:func:`pyclmatch.maximum_matching`).
        ``"auto"`` decomposes on the host the graphs it would match there (module
        docstring), as ``"host-hk"`` does every graph; ``init`` and ``params`` are then
        ignored.
    verify : True, "device", "host" or False
        ``True`` (= ``"device"``): the matching's König certificate and the decomposition's
        certificate are checked by device kernels independent of the algorithm (``p`` and
        ``q`` are permutations, the matched entries lie on the diagonal of each part, no entry
        below the block diagonal, every vertex of the horizontal and vertical parts reached by
        an alternating path from an unmatched one with a BFS-level witness); the
        irreducibility of the square blocks is not re-proved there. ``"host"`` checks all of
        it, irreducibility included, with numpy and scipy.sparse.csgraph
        (:meth:`DMDecomposition.verify`), as every check of a decomposition made on the host
        does. ``False``: no check.

    Returns
    -------
    DMDecomposition
        ``p``, ``q`` (``A[p][:, q]`` block upper triangular), ``r``, ``s`` (fine block
        boundaries), ``rr``, ``cc`` (coarse boundaries, five each), ``structural_rank``,
        the matching, ``timings`` (seconds: ``total`` = the whole call; upload, build, init,
        augment, coarse (the alternating BFS from the unmatched rows, and from the unmatched
        columns unless the matching family left its own, and the coarse sets), scc, order
        (levels of the condensation, the sort of the columns), verify, download, and
        ``kernel:<phase>`` device times) and ``counters`` (launches of the alternating BFS
        (``reach_launches_*``: one a level on GPUs, a whole search on CPU devices) and of the
        FW-BW searches, SCC rounds, trimming, colouring and backward passes, level passes and
        block levels, launches, read-backs, and the loops' non-blocking flag copies
        ``flag_reads`` and the waits on them ``flag_waits``).

    Raises
    ------
    InputError
        A malformed input, or an unknown algorithm.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> A = sp.csr_matrix([[1, 0, 0], [1, 0, 0], [0, 1, 1]])
    >>> dm = pyclmatch.dulmage_mendelsohn(A, device="cpu")
    >>> dm.structural_rank, dm.nblocks, dm.coarse_sizes()["square"]
    (2, 2, (0, 0))
    >>> pyclmatch.dulmage_mendelsohn(pyclmatch.generators.grid(8), device="cpu").nblocks
    52
    """
    t_call = time.perf_counter()
    init, verify, progress, params = check_arguments("dulmage_mendelsohn", algorithm, init,
                                                     verify, progress, params)
    handle, graph, _ = _open(A, params.pop("shape", None), algorithm, device)
    if handle is None or _host_wins(handle, graph, algorithm):
        return host_decomposition(graph, verify, t_call)
    name, factory, params, _ = resolve_call(handle, graph, algorithm, params,
                                            device_only=True)
    nr, nc = graph.shape
    if graph.nnz == 0:
        res = _trivial(graph, handle, name, t_call)
        res.verified = bool(verify)
        return res
    sched = Scheduler(handle, progress=progress, label=f"dulmage_mendelsohn[{name}]")
    m = match_on_device(handle, graph, name, factory, init, params, sched, need_csr=True)
    on_device = verify is True or verify == "device"
    if on_device:
        with sched.step("verify"):
            m.cert.verify(m.rmatch, m.cmatch, sched)
    dm = _DeviceDM(handle, m.dg, sched)
    with sched.step("build"):
        dm.build("reach_roots", "reach_start", "reach_visit", "coarse_parts", "scc_trim",
                 "fwbw_start", "fwbw_visit", "fwbw_assign", "scc_color_init", "scc_color",
                 "scc_roots", "scc_back", "scc_assign", "scc_small", "block_levels",
                 "column_keys", "mate_rows", "unmatched", "block_starts")
        _radix_sort(handle)
        _compact_kernel(handle, m.dg.index_t)
        _pivot_kernel(handle, m.dg.index_t, m.dg.offset_t)
    with sched.step("coarse"):
        # the matching's last BFS holds levels only in the augmenting-path family; the other
        # families' reached flags give no witness, so the BFS is run again for them
        bfs_c = m.bfs_array if name in AUGMENTING_VARIANTS else dm.reach(
            m.rmatch, m.cmatch, "cols")
        bfs_r = dm.reach(m.rmatch, m.cmatch, "rows")
        dm.coarse(m.rmatch, m.cmatch, bfs_c, bfs_r)
    with sched.step("scc"):
        dm.scc(m.rmatch, m.cmatch)
    with sched.step("order"):
        p, q, starts, nstarts, counts = dm.order(m.rmatch, m.cmatch)
    rr, cc, _, _ = _boundaries(counts, nr, nc, np.zeros(0, np.int32))
    if on_device:
        with sched.step("verify"):
            dm.verify(m.rmatch, m.cmatch, bfs_c, bfs_r, p, q, starts, nstarts, rr, cc,
                      dm.flags)
    with sched.step("download"):
        hp = handle.download(p[:nr]) if nr else np.zeros(0, np.int32)
        hq = handle.download(q[:nc]) if nc else np.zeros(0, np.int32)
        hs = handle.download(starts[:nstarts]) if nstarts else np.zeros(0, np.int32)
        rm = handle.download(m.rmatch[:nr], np.int32)
        cm = handle.download(m.cmatch[:nc], np.int32)
    rr, cc, r, s = _boundaries(counts, nr, nc, hs)
    res = DMDecomposition(hp.astype(np.int32, copy=False), hq.astype(np.int32, copy=False),
                          r, s, rr, cc, int(cc[4] - cc[1]), (nr, nc), rm, cm, handle.label,
                          name)
    return finish_result(res, graph, verify, sched, t_call, m.stats)


def _host_wins(handle, graph, algorithm):
    """Whether ``auto`` on ``handle`` (a device given as a handle) sends ``graph`` to the host
    family without a race, as :func:`~pyclmatch.bipartite.choice.choose` decides."""
    if canonical_name(algorithm) != "auto":
        return False
    choice = choose(handle, graph)
    return choice["algorithm"] == HOST_FAMILY and not choice.get("race")


def block_triangular_form(A, **kwargs):
    """Block upper triangular form of a square matrix: ``(p, q, blocks)`` with ``A[p][:, q]``
    block upper triangular, its diagonal blocks ``blocks[k]:blocks[k+1]`` (rows and columns)
    irreducible, and a zero-free diagonal when ``A`` is structurally nonsingular (the fine
    decomposition of :func:`dulmage_mendelsohn`; keyword arguments go there).

    A structurally singular ``A`` raises :class:`~pyclmatch.InputError` naming its structural
    rank (its horizontal and vertical parts are not square; use :func:`dulmage_mendelsohn`).
    The result also carries the whole decomposition as ``.decomposition``.

    Examples
    --------
    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> A = sp.csr_matrix([[1, 1, 0], [0, 1, 0], [0, 0, 1]])
    >>> p, q, blocks = pyclmatch.block_triangular_form(A, device="cpu")
    >>> len(blocks) - 1                       # three 1 x 1 blocks
    3
    >>> B = A[p][:, q].toarray()
    >>> bool(np.all(np.tril(B, -1) == 0)), bool(np.all(np.diag(B) != 0))
    (True, True)
    """
    kw = dict(kwargs)        # the parameters first (as dulmage_mendelsohn checks them)
    kw.pop("device", None)
    check_arguments("block_triangular_form", kw.pop("algorithm", "auto"),
                    kw.pop("init", "karp-sipser"), kw.pop("verify", True),
                    kw.pop("progress", None), kw)
    graph = as_bipartite(A, shape=kwargs.pop("shape", None))
    nr, nc = graph.shape
    if nr != nc:
        raise InputError(f"block_triangular_form needs a square matrix, got {nr} x {nc}; use "
                         f"dulmage_mendelsohn for rectangular ones", argument="A")
    dm = dulmage_mendelsohn(graph, **kwargs)
    if dm.structural_rank != nr:
        raise InputError(f"the matrix is structurally singular (structural rank "
                         f"{dm.structural_rank} < {nr}): it has no block triangular form with "
                         f"square blocks; use dulmage_mendelsohn for its coarse decomposition",
                         argument="A")
    return BlockTriangularForm(dm.p, dm.q, dm.r, dm)


def structural_rank(graph, **kwargs):
    """Structural rank of a sparse matrix: the size of a maximum matching of its pattern, as
    ``scipy.sparse.csgraph.structural_rank`` (keyword arguments go to
    :func:`pyclmatch.maximum_matching`, e.g. ``device=``).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> import pyclmatch
    >>> A = sp.csr_matrix([[1, 0, 0], [1, 0, 0], [0, 1, 1]])
    >>> pyclmatch.structural_rank(A, device="cpu")
    2
    """
    with args.blame("graph", instead="A"):
        return int(maximum_matching(graph, **kwargs).cardinality)


# --------------------------------------------------------------------------- host decomposition
def host_decomposition(graph, verify=True, t_call=None):
    """The decomposition of ``graph`` (a :class:`~pyclmatch.engine.graphs.BipartiteGraph`)
    on the host, in :func:`dulmage_mendelsohn`'s conventions: scipy's Hopcroft-Karp
    (``maximum_bipartite_matching``), the alternating breadth-first searches from the
    unmatched columns and rows, the strongly connected components of the square part
    (``connected_components(connection="strong")``) ordered by their longest-path levels in
    the condensation; ``verify`` (any true value): checked by :meth:`DMDecomposition.verify`.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from pyclmatch.bipartite.dmperm import host_decomposition
    >>> from pyclmatch.engine.graphs import as_bipartite
    >>> dm = host_decomposition(as_bipartite(sp.csr_matrix([[1, 1], [0, 1]])))
    >>> dm.p.tolist(), dm.q.tolist(), dm.r.tolist(), dm.device, dm.verified
    ([0, 1], [0, 1], [0, 1, 2], 'host', True)
    """
    t_call = time.perf_counter() if t_call is None else t_call
    timings = {}
    t0 = time.perf_counter()
    with args.blame("A"):      # (the intake's structure checks: scipy's routines trust them)
        check_compressed_host(graph.indptr, graph.indices, graph.major[1])
    nr, nc = graph.shape
    S = graph.csr
    S = sp.csr_matrix((np.ones(S.indices.size, np.int8), S.indices, S.indptr), shape=(nr, nc))
    rm = (maximum_bipartite_matching(S, perm_type="column").astype(np.int32) if S.nnz
          else np.full(nr, -1, np.int32))
    cm = np.full(nc, -1, np.int32)
    cm[rm[rm >= 0]] = np.flatnonzero(rm >= 0)
    t1 = time.perf_counter()
    timings["match"] = t1 - t0
    T = S.T.tocsr()
    horiz = _alternating(T, rm, cm < 0)          # columns reached from the unmatched columns
    vert = _alternating(S, cm, rm < 0)           # rows reached from the unmatched rows
    matched = cm >= 0
    in_vert = np.zeros(nc, bool)
    in_vert[matched] = vert[cm[matched]]
    c0, c1 = np.flatnonzero(~matched), np.flatnonzero(horiz & matched)
    c3 = np.flatnonzero(~horiz & in_vert)
    square = np.flatnonzero(~horiz & matched & ~in_vert)
    t2 = time.perf_counter()
    timings["coarse"] = t2 - t1
    c2, starts = _square_blocks(S, cm, square)
    timings["scc"] = time.perf_counter() - t2
    q = np.concatenate([c0, c1, c2, c3]).astype(np.int32)
    card = nc - c0.size
    p = np.concatenate([cm[q[c0.size:]], np.flatnonzero(rm < 0)]).astype(np.int32)
    rr, cc, r, s = _boundaries((c0.size, c1.size, c2.size, c3.size), nr, nc, starts)
    res = DMDecomposition(p, q, r, s, rr, cc, int(card), (nr, nc), rm, cm, "host",
                          HOST_FAMILY, timings, {"launches": 0})
    if verify:
        t3 = time.perf_counter()
        res.verify(graph)
        timings["verify"] = time.perf_counter() - t3
    timings["total"] = time.perf_counter() - t_call
    return res


def _alternating(M, mate, roots):
    """The vertices (rows of the pattern ``M``, CSR) reached by alternating paths from those
    where ``roots`` is true: from a vertex through each of its entries' columns ``j`` to the
    vertex ``mate[j]`` matched to it (scipy's breadth-first search)."""
    n = M.shape[0]
    dst = mate[M.indices] if M.nnz else np.zeros(0, np.int32)
    src = np.repeat(np.arange(n), np.diff(M.indptr))
    keep = dst >= 0
    start = np.flatnonzero(roots)
    G = sp.csr_matrix((np.ones(int(keep.sum()) + start.size, np.int8),
                       (np.concatenate([src[keep], np.full(start.size, n)]),
                        np.concatenate([dst[keep], start]))), shape=(n + 1, n + 1))
    got = np.zeros(n + 1, bool)
    got[breadth_first_order(G, n, directed=True, return_predecessors=False)] = True
    return got[:n]


def _square_blocks(S, cm, square):
    """The square part's columns ordered by irreducible block, and each block's first
    position: the blocks are the strongly connected components of the graph of columns
    ``c -> c'`` for the entries ``(cm[c], c')`` inside the part, in the order of their
    longest-path levels in the condensation (then their smallest column, then the columns
    in increasing order), so that every entry lies on or above the block diagonal."""
    n2 = square.size
    if not n2:
        return square, np.zeros(0, np.int64)
    local = np.full(S.shape[1], -1, np.int64)
    local[square] = np.arange(n2)
    R = S[cm[square]]
    src = np.repeat(np.arange(n2), np.diff(R.indptr))
    dst = local[R.indices]
    keep = dst >= 0
    G = sp.csr_matrix((np.ones(int(keep.sum()), np.int8), (src[keep], dst[keep])),
                      shape=(n2, n2))
    nb, lab = connected_components(G, directed=True, connection="strong")
    cross = lab[src[keep]] != lab[dst[keep]]
    D = sp.csr_matrix((np.ones(int(cross.sum()), np.int8),
                       (lab[src[keep]][cross], lab[dst[keep]][cross])), shape=(nb, nb))
    level = _levels(D)
    first = np.full(nb, n2, np.int64)
    np.minimum.at(first, lab, np.arange(n2))
    order = np.lexsort((np.arange(n2), first[lab], level[lab]))
    blk = lab[order]
    starts = np.flatnonzero(np.concatenate([[True], blk[1:] != blk[:-1]]))
    return square[order], starts


def _levels(D):
    """Longest-path levels of the DAG ``D`` (CSR; duplicates allowed): 0 for the sources,
    else one more than the highest level of a predecessor (Kahn's order)."""
    nb = D.shape[0]
    ptr, ind = D.indptr.tolist(), D.indices.tolist()
    indeg = np.bincount(D.indices, minlength=nb).tolist()
    level = [0] * nb
    todo = [b for b in range(nb) if not indeg[b]]
    while todo:
        b = todo.pop()
        up = level[b] + 1
        for t in ind[ptr[b]:ptr[b + 1]]:
            if level[t] < up:
                level[t] = up
            indeg[t] -= 1
            if not indeg[t]:
                todo.append(t)
    return np.asarray(level, np.int64)


# --------------------------------------------------------------------------- host certificate
def verify_decomposition(graph, dm):
    """Host check of a :class:`DMDecomposition` (see :meth:`DMDecomposition.verify`)."""
    nr, nc = graph.shape
    p, q, r, s, rr, cc = (np.asarray(x, np.int64) for x in (dm.p, dm.q, dm.r, dm.s, dm.rr,
                                                            dm.cc))
    fail = VerificationError
    if p.shape != (nr,) or q.shape != (nc,) or not np.array_equal(np.sort(p), np.arange(nr)) \
            or not np.array_equal(np.sort(q), np.arange(nc)):
        raise fail("p or q is not a permutation")
    if rr.size != 5 or cc.size != 5 or rr[0] or cc[0] or rr[4] != nr or cc[4] != nc \
            or np.any(np.diff(rr) < 0) or np.any(np.diff(cc) < 0):
        raise fail("rr and cc must be five non-decreasing boundaries from 0 to the shape")
    if rr[1] != cc[2] - cc[1] or rr[2] - rr[1] != cc[3] - cc[2] or rr[3] - rr[2] != cc[4] - cc[3]:
        raise fail("the coarse parts' matched sets differ in size")
    if r.size != s.size or r[0] or s[0] or r[-1] != nr or s[-1] != nc \
            or np.any(np.diff(r) < 0) or np.any(np.diff(s) < 0):
        raise fail("r and s must be boundaries from 0 to the shape")
    C = graph.csr[p][:, q].tocoo()
    # matched diagonal: position rr0 + t <-> cc1 + t
    card = int(cc[4] - cc[1])
    diag = sp.csr_matrix(C)[np.arange(card), cc[1] + np.arange(card)]
    if card and not np.all(np.asarray(diag).ravel() != 0):
        raise fail("a diagonal entry of the matched parts is missing")
    if dm.structural_rank != card:
        raise fail(f"structural rank {dm.structural_rank} but {card} matched columns")
    rb = np.repeat(np.arange(r.size - 1), np.diff(r))
    cb = np.repeat(np.arange(s.size - 1), np.diff(s))
    if C.nnz and np.any(rb[C.row] > cb[C.col]):
        raise fail("an entry lies below the block diagonal")
    Cr = sp.csr_matrix(C)
    h = _reach(sp.csr_matrix(C.T), int(cc[1]), card, 0)      # columns from C0, over C's columns
    if not np.array_equal(h, np.arange(cc[2])):
        raise fail("the horizontal part is not the set of columns reachable from the "
                   "unmatched columns")
    v = _reach(Cr, int(rr[3]), card, int(cc[1]), unmatched_last=True)
    if not np.array_equal(v, np.arange(rr[2], nr)):
        raise fail("the vertical part is not the set of rows reachable from the unmatched "
                   "rows")
    # irreducible square blocks
    first = 1 if cc[2] > 0 else 0
    last = r.size - 1 - (1 if rr[2] < nr else 0)
    n2 = int(cc[3] - cc[2])
    if n2:
        S = sp.csr_matrix(C)[rr[1]:rr[2]][:, cc[2]:cc[3]].tocoo()
        sb = rb[rr[1] + S.row]
        inner = sb == cb[cc[2] + S.col]
        G = sp.csr_matrix((np.ones(int(inner.sum()), np.int8), (S.row[inner], S.col[inner])),
                          shape=(n2, n2))
        nb, lab = connected_components(G, directed=True, connection="strong")
        if nb != last - first:
            raise fail(f"the square part has {nb} irreducible blocks but {last - first} are "
                       f"given")
        own = rb[rr[1]:rr[2]]
        if np.any(np.diff(lab)[np.diff(own) == 0] != 0):
            raise fail("a square block is not irreducible")
    return True


def _reach(M, k0, card, shift, unmatched_last=False):
    """Alternating reachability on the host (scipy BFS): the vertices (rows of ``M``, a
    permuted matrix or its transpose) reachable from the unmatched ones (positions ``< k0``,
    or ``>= k0`` with ``unmatched_last``) through an entry ``(v, j)`` and the vertex matched to
    ``j``, which sits at position ``j - shift`` when ``0 <= j - shift < card`` (+ ``k0`` when the
    unmatched come first)."""
    n = M.shape[0]
    src = np.repeat(np.arange(n), np.diff(M.indptr))
    t = M.indices.astype(np.int64) - shift
    keep = (t >= 0) & (t < card)
    dst = t[keep] + (0 if unmatched_last else k0)
    roots = np.arange(k0, n) if unmatched_last else np.arange(k0)
    G = sp.csr_matrix((np.ones(int(keep.sum()) + roots.size, np.int8),
                       (np.concatenate([src[keep], np.full(roots.size, n)]),
                        np.concatenate([dst, roots]))), shape=(n + 1, n + 1))
    seen = breadth_first_order(G, n, directed=True, return_predecessors=False)
    got = np.zeros(n + 1, bool)
    got[seen] = True
    return np.flatnonzero(got[:n])
