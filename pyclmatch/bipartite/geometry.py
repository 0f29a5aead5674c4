"""Launch geometry shared by the augmenting-path and initial-matching drivers: work-group
size, CT/MT global sizes and the heavy tier (vertices of high degree expanded by a whole
work-group; see HEAVY TIER in ``kernels/common.cl.mako``).
"""
import numpy as np
import pyopencl as cl

from ..engine.family import KernelFamily
from .registry import THREAD_MODES

#: the smallest work-group that gets a heavy tier: a smaller group gains next to nothing from
#: cooperating, and PoCL compiles groups of 1-2 work-items by full replication
#: (POCL_FULL_REPLICATION_THRESHOLD), which fails on the heavy kernels
HEAVY_MIN_GROUP = 4


def default_heavy_degree(handle, work_group_size):
    """The default threshold above which a vertex is heavy (processed by a whole work-group);
    -1 = no heavy tier.

    GPUs: 64. A work-item walking d edges alone costs d dependent memory round trips while
    its SIMD neighbours idle, where a group needs about d / work_group_size of them and a few
    barriers, so the tier pays off on power-law graphs; graphs without a vertex above the
    threshold render the kernels without the tier. CPU devices: off, as a work-group is one
    core's loop there: a group-cooperative vertex costs the same edge visits plus barriers,
    and no core idles behind a long list.
    """
    return -1 if handle.is_cpu else 64


class HeavyTier:
    """Launch geometry of the heavy tier for one side: the first ``groups`` work-groups of a
    launch take ``batch`` heavy vertices per round."""

    __slots__ = ("vertices", "count", "groups", "batch")

    def __init__(self, vertices, count, groups, batch):
        self.vertices, self.count, self.groups, self.batch = vertices, count, groups, batch


class Launcher(KernelFamily):
    """A driver with CT/MT global sizes and heavy tiers (``self.tiers``, per side).

    ``heavy_degree``: vertices of larger degree are processed by a whole work-group (None: the
    device default, :func:`default_heavy_degree`; 0: every vertex with an edge; negative:
    never; never either with work-groups smaller than ``HEAVY_MIN_GROUP``).
    ``heavy_groups``: at most this many work-groups form the heavy tier of a launch (default:
    the CT grid's group count); each takes ``batch`` heavy vertices per round.
    """

    def __init__(self, handle, mode, work_group_size=None, ct_work_items=None,
                 heavy_degree=None, heavy_groups=None, **values):
        if mode not in THREAD_MODES:
            raise ValueError(f"thread mode must be 'ct' or 'mt', not {mode!r}")
        super().__init__(handle, mode=mode, heavy_degree=-1, **values)
        self.mode = mode
        self.wg = int(work_group_size or handle.default_work_group_size())
        self.wg = max(1, min(self.wg, handle.max_work_group_size))
        self.ct_items = int(ct_work_items or handle.constant_grid(self.wg))
        self.heavy_degree = (default_heavy_degree(handle, self.wg) if heavy_degree is None
                             else max(-1, int(heavy_degree)))
        self.heavy_group_cap = max(1, int(heavy_groups or self.ct_items // self.wg))
        self.tiers, self._heavy_args = {}, {}

    def global_size(self, n):
        return min(self.ct_items, int(n)) if self.mode == "ct" else int(n)

    def prepare_heavy(self, dgraph, sides, sched=None):
        """Find the heavy vertices of ``sides`` (once per device graph; one read-back for
        all sides, through ``sched`` when given) and specialize the kernels for them: the
        ``heavy_degree`` template value is the threshold if a side has heavy vertices, else
        -1 (kernels rendered without heavy tier)."""
        self.tiers, self._heavy_args = {}, {}
        if self.heavy_degree < 0 or self.wg < HEAVY_MIN_GROUP:
            return
        for side, hl in zip(sides, dgraph.heavy_many(sides, self.heavy_degree, sched)):
            if hl.count:
                groups = min(self.heavy_group_cap, hl.count)
                batch = min(self.wg, -(-hl.count // groups))
                self.tiers[side] = HeavyTier(hl.vertices, hl.count, groups, batch)
        self.specialize(heavy_degree=self.heavy_degree if self.tiers else -1)

    def _heavy_launch_args(self, side):
        """(heavy work-items, heavy kernel arguments) of ``side``, built once per side."""
        pre = self._heavy_args.get(side)
        if pre is None:
            tier = self.tiers.get(side)
            if tier is None:  # this side has no heavy vertex: an empty tier (any list will do)
                tier = HeavyTier(next(iter(self.tiers.values())).vertices, 0, 0, 1)
            pre = (tier.groups * self.wg,
                   (tier.vertices.data, np.int32(tier.count), np.int32(tier.groups),
                    np.int32(tier.batch),
                    cl.LocalMemory(4 * (3 * self.wg + 1))))   # scratch: int index_t
            self._heavy_args[side] = pre
        return pre

    def bind(self, sched, phase, kernel, side, n, *args):
        """:meth:`launch`'s grid and arguments kept in a :class:`~pyclmatch.engine.scheduler.
        BoundLaunch` (``sched.bind``), for a kernel relaunched with a few arguments changed."""
        if not self.tiers:
            return sched.bind(phase, kernel, self.global_size(n), self.wg, *args)
        heavy_items, heavy_args = self._heavy_launch_args(side)
        light = -(-self.global_size(n) // self.wg) * self.wg
        return sched.bind(phase, kernel, heavy_items + light, self.wg, *args, *heavy_args)

    def launch(self, sched, phase, kernel, side, n, *args):
        """Launch ``kernel`` over ``n`` vertices of ``side``; with heavy tiers, the heavy
        groups of that side come first in the grid and the heavy arguments last."""
        if not self.tiers:
            return sched.launch(phase, kernel, self.global_size(n), self.wg, *args)
        heavy_items, heavy_args = self._heavy_launch_args(side)
        light = -(-self.global_size(n) // self.wg) * self.wg
        return sched.launch(phase, kernel, heavy_items + light, self.wg, *args, *heavy_args)
