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
import numpy as np
import pyopencl.array as cla


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
            knl = self.handle.kernel(self.TEMPLATE, name, **dict(self.values, **values))
            self._kernels[key] = knl
        return knl

    def empty(self, shape, dtype=np.int32):
        """A device array from the device's memory pool (``DeviceHandle.pool``): the buffers
        of one call go back to the pool when dropped, and the next call reuses them."""
        return cla.empty(self.handle.queue, shape, dtype, allocator=self.handle.pool)

    def build(self, *names):
        """Build (fetch) the kernels ``names`` ahead of the first launch, so that a call's
        timings separate the build from the run."""
        for name in names:
            self.kernel(name)
