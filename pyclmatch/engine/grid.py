"""Launches whose work-groups wait for each other: a barrier over every group of one launch
(``kernels/grid.cl.mako``), which lets a kernel run many steps (BFS levels, bidding rounds)
in one launch instead of a launch and a host round trip each.

Sound only where every group of the launch runs at once: the families launch at most one
group per compute unit (:func:`grid_groups`), and only on NVIDIA's GPUs, where the
barrier's device-wide fence is known (inline PTX: OpenCL 1.2's ``mem_fence`` is CTA-wide
there). A driver that refuses the inline PTX is remembered (:func:`refuse_ptx_fence`) and
never asked again. A barrier that waits too long gives up and says so; each family then goes
on without.

Examples
--------
>>> import pyclmatch
>>> grid_groups(pyclmatch.get_device("cpu"))          # (CPU devices: none, unless asked)
0
"""

from ..errors import KernelBuildError

#: the devices (labels) whose driver refused to build the inline PTX fence
PTX_FENCE_REFUSED = set()


def is_nvidia(handle):
    """Whether ``handle`` is a device of NVIDIA's OpenCL platform."""
    return "NVIDIA" in handle.platform_name.upper()


def grid_groups(handle, gpu=True, cpu_groups=0):
    """The work-groups of a launch whose groups wait for each other: one per compute unit
    on NVIDIA's GPUs (when ``gpu``), ``cpu_groups`` on CPU devices (for the tests: a CPU
    device need not run its groups at once, and its barriers then give up), 0 elsewhere and
    where the driver refused the fence."""
    if handle.label in PTX_FENCE_REFUSED:
        return 0
    if handle.is_cpu:
        return int(cpu_groups)
    return int(handle.compute_units) if gpu and is_nvidia(handle) else 0


def ptx_fence(handle, groups):
    """The ``ptx_fence`` template value of a family launching ``groups`` such groups."""
    return bool(groups) and is_nvidia(handle)


def refuse_ptx_fence(handle):
    """Remember that ``handle``'s driver refused the inline PTX fence."""
    PTX_FENCE_REFUSED.add(handle.label)


def fenced(handle, groups, build):
    """``build()`` a family's kernels for ``groups`` such work-groups (:func:`grid_groups`);
    returns ``groups``, or 0 where the driver refused the inline PTX fence (the refusal is
    remembered, and the family goes on without the grid's launches). Other build failures,
    and any without the fence, are raised."""
    try:
        build()
    except KernelBuildError:
        if not ptx_fence(handle, groups):
            raise
        refuse_ptx_fence(handle)
        return 0
    return groups
