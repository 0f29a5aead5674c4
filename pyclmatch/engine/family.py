"""The base class of every driver: a device handle, the family's template, memoized kernels.

A driver (one per algorithm: :class:`~pyclmatch.bipartite.apfb.AugmentingPathMatcher`,
:class:`~pyclmatch.community.louvain.DeviceLouvain`, ...) names its Mako template in
``TEMPLATE`` and keeps the values it is specialized for (work-group size, CT/MT thread mode,
index types, degree buckets, ...) in ``self.values``. :meth:`KernelFamily.kernel` fetches a
kernel of that specialization once per driver: the handle builds each program once per device
and gives each thread its own kernel object (:meth:`~pyclmatch.engine.devices.DeviceHandle.kernel`),
and the driver's own memo spares the hot loops the handle's key, which is built from every
template value. This follows pyopencl's ``algorithm.py``: a class per algorithm, templates as
module constants, kernels fetched by getters keyed by their specialization.
"""
import functools
from fnmatch import fnmatchcase

import numpy as np

from .programs import template_kernels


class KernelFamily:
    """Device handle, template and specialization values of one driver, and its kernels.

    Parameters
    ----------
    handle : pyclmatch.engine.devices.DeviceHandle
        The device the driver runs on.
    **values
        The template's specialization values (``self.values``).

    Examples
    --------
    >>> import pyclmatch
    >>> from pyclmatch.engine.family import KernelFamily
    >>> class Copy(KernelFamily):
    ...     TEMPLATE = "bench_copy.cl.mako"
    >>> drv = Copy(pyclmatch.get_device("cpu"), index_t="int", offset_t="int", mode="ct")
    >>> drv.kernel("bench_copy").function_name
    'bench_copy'
    >>> drv.kernel("bench_copy") is drv.kernel("bench_copy")
    True
    """

    #: the family's Mako template in ``kernels/`` (the stem names the driver module)
    TEMPLATE = None
    #: kernel groups: each a tuple of name patterns (``fnmatch``); the first launch of a
    #: kernel builds the program of its group's kernels alone (the first group that names it,
    #: unless a program built already holds it), so that a call compiles the groups it
    #: launches and no other; the kernels no group names form one group together.
    #: Empty: the whole template is one program.
    GROUPS = ()

    def __init__(self, handle, **values):
        self.handle = handle
        self.values = dict(values)
        self._kernels = {}

    def specialize(self, **values):
        """Change specialization values: the kernels fetched from now on are built for them."""
        self.values.update(values)
        self._kernels.clear()

    def kernel(self, name, **values):
        """Kernel ``name`` of this driver's specialization (``values`` override some of them
        for this kernel alone), memoized per driver."""
        key = (name, tuple(sorted(values.items()))) if values else name
        knl = self._kernels.get(key)
        if knl is None:
            vals = dict(self.values, **values)
            knl = self.handle.kernel(self.TEMPLATE, name, kernels=self.kernel_group(name, vals),
                                      **vals)
            self._kernels[key] = knl
        return knl

    def kernel_group(self, name, values):
        """The kernels of ``name``'s group (:data:`GROUPS`) in the template specialized for
        ``values``, or None (the whole template) when there are no groups (memoized: a
        driver is made per call, and its first fetch of each kernel asks)."""
        if not self.GROUPS:
            return None
        return _kernel_group(self.TEMPLATE, self.GROUPS, name, tuple(sorted(values.items())))

    def empty(self, shape, dtype=np.int32):
        """A device array from the device's memory pool (``DeviceHandle.pool``): the buffers
        of one call go back to the pool when dropped, and the next call reuses them."""
        return self.handle.empty(shape, dtype)

    def build_group(self, name, **values):
        """Build the program holding kernel ``name`` (its group, :data:`GROUPS`) for this
        specialization (``values`` override some of it) without fetching the kernel for the
        driver: a build ahead of the first launch (:meth:`DeviceHandle.ahead`), from any
        thread."""
        vals = dict(self.values, **values)
        self.handle.kernel(self.TEMPLATE, name, kernels=self.kernel_group(name, vals), **vals)

    def build(self, *names):
        """Build (fetch) the kernels ``names`` ahead of the first launch, so that a call's
        timings separate the build from the run."""
        for name in names:
            self.kernel(name)


@functools.lru_cache(maxsize=4096)
def _kernel_group(template, groups, name, frozen):
    """:meth:`KernelFamily.kernel_group` for ``groups`` and the values ``frozen``."""
    names = template_kernels(template, **dict(frozen))
    if name not in names:
        return None                    # (the handle says that there is no such kernel)

    def named(pats):
        return tuple(n for n in names if any(fnmatchcase(n, p) for p in pats))
    for pats in groups:
        if any(fnmatchcase(name, p) for p in pats):
            return named(pats)
    return tuple(n for n in names if not any(fnmatchcase(n, p) for pats in groups
                                             for p in pats))
